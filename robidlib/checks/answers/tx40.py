"""References of the chapter-11 checks (:mod:`robidlib.checks.tx40`): the recipe of
``robidlib/data/checks/tx40_reference.json`` (``tools/store_tx40_reference.py``).

The reference answers come from the chapter's own pipeline: the record of
:func:`robidlib.datasets.staubli_tx40` with FIGAROH's settings
(:meth:`robidlib.identification.Settings.from_figaroh`), the drive model with rotor
inertias and the coupled motor 6, fitted on the first 70 % of the record
(:func:`robidlib.identification.split` with its default guard).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Any, Sequence

import numpy as np

from ..tx40 import _NYQUIST, FRACTION, STORED_CUTOFFS


@dataclass(frozen=True)
class _Reference:
    model: Any
    data: Any
    train: Any
    test: Any
    result: Any
    tx: Any


@functools.lru_cache(maxsize=1)
def _model_and_base():
    from ...datasets import staubli_tx40
    from ...identification import DriveModel, Transmission

    tx = staubli_tx40()
    model = DriveModel(tx.robot, Transmission(tx.motor_matrix))
    return tx, model, model.base_parameters()


@functools.lru_cache(maxsize=4)
def _reference(cutoff: float) -> _Reference:
    from ...identification import Settings, identify, prepare, split

    tx, model, base = _model_and_base()
    settings = Settings.from_figaroh(tx.settings, joint_offsets=tx.joint_offsets, cutoff=cutoff)
    data = prepare(tx.t, tx.q_motor, tx.tau_motor, model, settings)
    train, test = split(data, FRACTION)
    return _Reference(model=model, data=data, train=train, test=test, result=identify(train, base=base), tx=tx)


def _without_rotors(ref: _Reference):
    from ...identification import DriveModel, Transmission, identify, split, validate

    tx, model = ref.tx, ref.model
    reduced = DriveModel(tx.robot, Transmission(tx.motor_matrix), rotor_inertia=False, coupled_motors=False)
    cols = np.r_[model.blocks["inertial"], model.blocks["friction"]]
    data = replace(ref.data, Y=ref.data.Y[:, :, cols], model=reduced)
    train, test = split(data, FRACTION)
    res = identify(train)
    return validate(res, test, use_keep=True), validate(res, train, use_keep=True)


def _at_cutoff(ref: _Reference) -> dict:
    from ...identification import validate

    res = ref.result
    return {"wls": res.wls.params.tolist(), "std": res.wls.std.tolist(),
            "held_out": float(validate(res, ref.test, use_keep=True).overall["wls"])}


def compute_reference(cutoffs: Sequence[float] = STORED_CUTOFFS) -> dict:
    """Compute the reference answers of chapter 11's exercises (a few seconds per cut-off).

    Parameters
    ----------
    cutoffs : sequence of float, default :data:`STORED_CUTOFFS`
        Cut-offs (Hz) of the position filter whose WLS estimates to compute; must include
        100 (the chapter's).

    Returns
    -------
    dict
        ``names`` (the base parameters), ``cutoffs`` (``{str(cutoff): {"wls", "std",
        "held_out"}}``), ``without_rotors`` (held-out and fitted errors, per joint held out),
        ``static`` (prediction at rest at ``q = 0`` and its std, measured torques at rest,
        stick-friction bands), ``joint5`` (the two ratios of exercise 4) and ``recipe``.

    Raises
    ------
    TypeError
        Cut-offs that are not numbers.
    ValueError
        Cut-offs outside (0, 2500) Hz, repeated, or without 100.
    """
    from ..._validate import as_array

    fcs = [float(c) for c in as_array("cutoffs", cutoffs, ndim=1)]
    if len(set(fcs)) != len(fcs):
        raise ValueError(f"cutoffs must not repeat a value, got {list(fcs)}")
    if 100.0 not in fcs or any(not 0.0 < c < _NYQUIST for c in fcs):
        raise ValueError(f"cutoffs must lie in (0, {_NYQUIST:g}) Hz and include 100, got {list(cutoffs)}")
    from ...identification import validate

    ref = _reference(100.0)
    res, tx = ref.result, ref.tx
    held, fitted = _without_rotors(ref)
    pred, std = _static_prediction(ref)
    tau = tx.tau_joint()
    band = np.array([res.wls.params[res.names.index(f"FS{j + 1}")] for j in range(6)])
    band[4:] += res.wls.params[res.names.index("FSM6")]
    v_fit, v_held = validate(res, ref.train, use_keep=True), validate(res, ref.test, use_keep=True)

    def rms(v):
        m = v.keep[:, 4]
        return float(np.sqrt(np.mean(v.observed[m, 4] ** 2)))

    return {
        "names": list(res.names),
        "cutoffs": {f"{c:g}": _at_cutoff(_reference(c)) for c in fcs},
        "without_rotors": {"held_out": float(held.overall["wls"]), "fitted": float(fitted.overall["wls"]),
                           "held_out_per_joint": held.per_joint["wls"].tolist(),
                           "full_held_out": float(v_held.overall["wls"])},
        "static": {"predicted": pred.tolist(), "std": std.tolist(),
                   "measured_start": tau[tx.t < 0.06].mean(0).tolist(),
                   "measured_end": tau[tx.t > 7.7].mean(0).tolist(), "band": band.tolist()},
        "joint5": {"error_ratio": float(v_held.rms["wls"][4] / v_fit.rms["wls"][4]),
                   "torque_ratio": rms(v_held) / rms(v_fit)},
        "recipe": ("robidlib.checks.answers.tx40.compute_reference(): staubli_tx40(), DriveModel with rotor "
                   "inertias and motor 6, Settings.from_figaroh (cut-off varied), split(data, 0.7), "
                   "identify(train, base=model.base_parameters()), validate"),
    }


def _static_prediction(ref: _Reference) -> tuple[np.ndarray, np.ndarray]:
    res, model = ref.result, ref.model
    Yb = res.base.reduce(model.regressor(np.zeros(model.n), np.zeros(model.n), np.zeros(model.n)))
    pred = Yb @ res.wls.params
    std = np.sqrt(np.einsum("ij,jk,ik->i", Yb, res.wls.cov, Yb))
    return pred, std


def at_cutoff(cutoff: float) -> dict:
    """WLS estimates, their standard deviations and the held-out error at ``cutoff`` (Hz).

    ``cutoff`` must lie in (0, 2500) Hz (below the record's Nyquist frequency); a
    ``ValueError`` or ``TypeError`` says so.
    """
    from ..._validate import check_positive

    fc = check_positive("cutoff", cutoff)
    if fc >= _NYQUIST:
        raise ValueError(f"cutoff must lie in (0, {_NYQUIST:g}) Hz, got {fc:g}")
    return _at_cutoff(_reference(fc))
