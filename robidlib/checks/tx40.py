"""Checks of the exercises of chapter 11 (a real robot: the Staubli TX40).

Every check prints one line, ✔ or ✘ with what to do next, and returns ``True`` or ``False``.
An untouched stub (an answer still holding ``...``), ``None``, a wrong type or shape is
reported, never raised (see :mod:`robidlib.checks._report`).

The reference answers come from the chapter's own pipeline: the record of
:func:`robidlib.datasets.staubli_tx40` with FIGAROH's settings
(:meth:`robidlib.identification.Settings.from_figaroh`), the drive model with rotor
inertias and the coupled motor 6, fitted on the first 70 % of the record
(:func:`robidlib.identification.split` with its default guard). A reference run takes a few
seconds, so the reference answers of the cut-offs the exercises suggest (and of the other
exercises) are stored in ``robidlib/data/checks/tx40_reference.json``, written by
``tools/store_tx40_reference.py`` from :func:`compute_reference`;
``tests/test_checks_tx40.py`` recomputes them. The recipe is instructor-only
(:mod:`robidlib.checks.answers.tx40`): in an instructor's install another cut-off is computed
on demand, once per session; the student edition knows the stored cut-offs.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any, Sequence

import numpy as np

from ._report import as_answer_array, report as _report, student_check

__all__ = [
    "FRACTION",
    "STORED_CUTOFFS",
    "compute_reference",
    "check_cutoff_estimates",
    "check_without_rotors",
    "check_static_torques",
    "check_joint5_critique",
]

#: Share of the record (in time) the chapter fits on; the rest is held out.
FRACTION = 0.7
_NYQUIST = 2500.0      # Hz: half the 5 kHz sampling rate of the record
#: Cut-offs (Hz) whose reference estimates are stored (the chapter's and the exercise's).
STORED_CUTOFFS = (10.0, 20.0, 50.0, 100.0, 200.0)
_STORE = ("data", "checks", "tx40_reference.json")


def compute_reference(cutoffs: Sequence[float] = STORED_CUTOFFS) -> dict:
    """Compute the reference answers of the chapter's exercises (a few seconds per cut-off).

    The recipe of the stored references (``tools/store_tx40_reference.py``): it lives in the
    instructor-only :mod:`robidlib.checks.answers.tx40`, which the student edition's robidlib
    does not contain (there this function raises ``ImportError``).

    Parameters
    ----------
    cutoffs : sequence of float, default :data:`STORED_CUTOFFS`
        Cut-offs (Hz) of the position filter whose WLS estimates to compute; must include
        100 (the chapter's).

    Returns
    -------
    dict
        See :func:`robidlib.checks.answers.tx40.compute_reference`.

    Raises
    ------
    TypeError
        Cut-offs that are not numbers.
    ValueError
        Cut-offs outside (0, 2500) Hz, repeated, or without 100.
    """
    from .answers.tx40 import compute_reference as compute

    return compute(cutoffs)


@functools.lru_cache(maxsize=1)
def _stored() -> dict:
    path = resources.files("robidlib").joinpath(*_STORE)
    return json.loads(path.read_text(encoding="utf-8"))


def _cutoff_values(fc: float) -> dict:
    """Reference WLS estimates, stds and held-out error at a cut-off: stored, else computed."""
    stored = _stored()["cutoffs"]
    key = f"{fc:g}"
    if key in stored and float(key) == fc:
        return {k: np.asarray(v) if isinstance(v, list) else v for k, v in stored[key].items()}
    try:
        from .answers.tx40 import at_cutoff
    except ImportError:     # the student edition: only the stored cut-offs
        return {}
    return {k: np.asarray(v) if isinstance(v, list) else v for k, v in at_cutoff(fc).items()}


def _number(x: Any) -> float | None:
    if isinstance(x, (bool, np.bool_, str, bytes)) or np.ndim(x) != 0 or np.iscomplexobj(x):
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if np.isfinite(v) else None


@student_check("Run the pipeline at your cut-off and pass the WLS estimates (res.wls.params).")
def check_cutoff_estimates(cutoff: Any, wls_params: Any) -> bool:
    """Check the WLS base parameters identified with another cut-off frequency (exercise 1).

    The reference is the chapter's pipeline with ``Settings.from_figaroh(..., cutoff=cutoff)``
    (every other setting FIGAROH's), fitted on the first 70 % of the record. The estimates
    must agree with it to 5 % of each parameter's standard deviation: the computation is
    deterministic, and any other setting (another cut-off, split or model) moves some
    parameter by more. On success the check says how far the estimates moved from those at
    the chapter's 100 Hz, in their standard deviations, and how the held-out error changed.

    Parameters
    ----------
    cutoff : float
        The cut-off frequency of the zero-phase position filter, Hz, in (0, 2500).
    wls_params : array_like, shape (61,)
        The WLS estimates of the 61 base parameters, in the pipeline's order.

    Returns
    -------
    bool

    Examples
    --------
    >>> check_cutoff_estimates(20.0, ...)
    ✘ not answered yet: replace the `...` of the stub. Run the pipeline at your cut-off and pass the WLS estimates (res.wls.params).
    False
    >>> check_cutoff_estimates(3000.0, [0.0] * 61)
    ✘ the cut-off must be a frequency in (0, 2500) Hz (below the Nyquist frequency of the 5 kHz record), got 3000.0
    False
    """
    fc = _number(cutoff)
    if fc is None or not 0.0 < fc < _NYQUIST:
        return _report(False, f"the cut-off must be a frequency in (0, {_NYQUIST:g}) Hz (below the Nyquist "
                              f"frequency of the 5 kHz record), got {cutoff!r}")
    ok, x = as_answer_array(wls_params, "wls_params", shape=(len(_stored()["names"]),))
    if not ok:
        return _report(False, x)
    names = _stored()["names"]
    ref, at100 = _cutoff_values(fc), _cutoff_values(100.0)
    if not ref:
        known = ", ".join(f"{c:g}" for c in STORED_CUTOFFS)
        return _report(False, f"this check knows the cut-offs {known} Hz: run the pipeline at one of them")
    z = np.abs(x - ref["wls"]) / ref["std"]
    if z.max() >= 0.05:
        if fc != 100.0 and np.max(np.abs(x - at100["wls"]) / at100["std"]) < 0.05:
            return _report(False, "these are the estimates at 100 Hz, the chapter's cut-off: pass "
                                  f"cutoff={fc:g} to Settings.from_figaroh and run prepare again")
        k = int(np.argmax(z))
        return _report(False, f"your estimates differ from the reference at {fc:g} Hz by up to {z[k]:.2f} of "
                              f"their standard deviations ({names[k]}); fit the first 70 % of the record "
                              "(split(data, 0.7)) with identify and pass res.wls.params")
    moved = np.abs(ref["wls"] - at100["wls"]) / at100["std"]
    k = int(np.argmax(moved))
    return _report(True, f"right: at {fc:g} Hz the largest change from the 100 Hz estimates is {moved[k]:.2f} "
                         f"of their standard deviations ({names[k]}); held-out error {100 * ref['held_out']:.2f} % "
                         f"(100 Hz: {100 * at100['held_out']:.2f} %)")


@student_check("Identify the model without rotor inertias and pass its held-out WLS error (a fraction).")
def check_without_rotors(held_out_error: Any) -> bool:
    """Check the held-out error of a TX40 model without rotor inertias (exercise 2).

    The model is the chapter's drive model without the rotor inertias ``IA_j`` and without
    motor 6's terms (``DriveModel(..., rotor_inertia=False, coupled_motors=False)``), fitted
    by WLS on the first 70 % of the record with FIGAROH's settings; the answer is its overall
    relative torque error on the held-out part over the kept equations
    (``validate(..., use_keep=True).overall["wls"]``, the kept-only variant the chapter
    reports), as a fraction (0.05 for 5 %). It must agree with the reference to 0.5 % of its value.

    Parameters
    ----------
    held_out_error : float

    Returns
    -------
    bool

    Examples
    --------
    >>> check_without_rotors(...)
    ✘ not answered yet: replace the `...` of the stub. Identify the model without rotor inertias and pass its held-out WLS error (a fraction).
    False
    >>> check_without_rotors("small")
    ✘ held_out_error must be a number (a fraction such as 0.05), got 'small'
    False
    """
    e = _number(held_out_error)
    if e is None:
        return _report(False, f"held_out_error must be a number (a fraction such as 0.05), got {held_out_error!r}")
    ref = _stored()["without_rotors"]
    target, full = ref["held_out"], ref["full_held_out"]
    if abs(e - 100 * target) <= 0.005 * 100 * target:
        return _report(False, "that is the error in percent: give it as a fraction (divide by 100)")
    if abs(e - target) > 0.005 * target:
        hint = " (that is the full model's error)" if abs(e - full) <= 0.005 * full else ""
        return _report(False, f"{e:.4g} is not the held-out WLS error of the model without rotor inertias{hint}; "
                              "build it with rotor_inertia=False, coupled_motors=False, fit the first 70 % "
                              "and pass validate(..., use_keep=True).overall['wls'] (the kept equations)")
    return _report(True, f"right: {100 * target:.1f} % held out without rotor inertias against {100 * full:.1f} % "
                         f"with them (fitted part: {100 * ref['fitted']:.1f} %); joint 5 goes to "
                         f"{100 * ref['held_out_per_joint'][4]:.0f} %")


@student_check("Predict the torques at rest at q = 0 with the WLS estimate and pass the 6 values.")
def check_static_torques(predicted: Any) -> bool:
    """Check the torques the identified model predicts at rest at the model's zero (exercise 3).

    The record starts and ends at rest at ``q = 0``; there the model's torque is gravity plus
    the offsets, ``W_b(0, 0, 0) beta`` (velocities and accelerations zero, so the friction
    columns vanish). The answer is that prediction with the chapter's WLS estimate (fitted
    on the first 70 %), N m per joint; it must agree with the reference to a tenth of the
    prediction's own standard deviation per joint. On success the check compares it with
    the torques measured at rest (the mean before 0.06 s and after 7.7 s): the difference
    must lie within the stick-friction band ``+-FS_j`` (plus ``FSM6`` for joints 5 and 6,
    which motor 6 drives), since at rest the friction holds any torque within it.

    Parameters
    ----------
    predicted : array_like, shape (6,)

    Returns
    -------
    bool

    Examples
    --------
    >>> check_static_torques(...)
    ✘ not answered yet: replace the `...` of the stub. Predict the torques at rest at q = 0 with the WLS estimate and pass the 6 values.
    False
    >>> check_static_torques([0.0, 1.0])
    ✘ predicted must have shape (6,), got (2,)
    False
    """
    ok, x = as_answer_array(predicted, "predicted", shape=(6,))
    if not ok:
        return _report(False, x)
    ref = {k: np.asarray(v) for k, v in _stored()["static"].items()}
    pred, std = ref["predicted"], ref["std"]
    z = np.abs(x - pred) / std
    if z.max() > 0.1:
        k = int(np.argmax(z))
        return _report(False, f"joint {k + 1}: {x[k]:.3f} N m, the WLS model predicts {pred[k]:.3f} N m at rest at q = 0; "
                              "reduce the regressor at q = qd = qdd = 0 to the base columns and multiply by "
                              "res.wls.params")
    measured, band = np.array([ref["measured_start"], ref["measured_end"]]), ref["band"]
    inside = np.all(np.abs(measured - pred) <= band + 3 * std, axis=0)
    worst = int(np.argmax(np.abs(measured - pred).max(axis=0) / band))
    return _report(True, f"right; measured at rest minus predicted, start {np.round(measured[0] - pred, 2).tolist()}, "
                         f"end {np.round(measured[1] - pred, 2).tolist()} N m: "
                         + ("every joint within its stick-friction band" if inside.all()
                            else f"joints {(np.flatnonzero(~inside) + 1).tolist()} outside their stick-friction band")
                         + f" (closest to its edge: joint {worst + 1}, band +-{band[worst]:.2f} N m)")


@student_check("Compute the two ratios for joint 5 from the validations of the fitted and held-out parts.")
def check_joint5_critique(error_ratio: Any, torque_ratio: Any) -> bool:
    """Check the two ratios behind joint 5's held-out relative error (exercise 4).

    ``error_ratio``: joint 5's root-mean-square WLS torque error on the held-out part over the
    same on the fitted part (``Validation.rms``); ``torque_ratio``: the root-mean-square of
    joint 5's measured torque on the held-out part over the same on the fitted part. Both
    over the equations kept for fitting (``Validation.keep``: ``|qd_5|`` above its
    threshold). Each must agree with the reference to 2 % of its value.

    Parameters
    ----------
    error_ratio, torque_ratio : float

    Returns
    -------
    bool

    Examples
    --------
    >>> check_joint5_critique(..., 0.2)
    ✘ not answered yet: replace the `...` of the stub. Compute the two ratios for joint 5 from the validations of the fitted and held-out parts.
    False
    >>> check_joint5_critique(1.0, [0.2, 0.3])
    ✘ torque_ratio must be a number, got [0.2, 0.3]
    False
    """
    values = {}
    for name, v in (("error_ratio", error_ratio), ("torque_ratio", torque_ratio)):
        values[name] = _number(v)
        if values[name] is None:
            return _report(False, f"{name} must be a number, got {v!r}")
    target = _stored()["joint5"]
    for name in ("error_ratio", "torque_ratio"):
        if abs(values[name] - target[name]) > 0.02 * target[name]:
            return _report(False, f"{name} = {values[name]:.4g} is not right; use joint 5 (index 4), WLS, and only the "
                                  "kept equations (v.keep[:, 4]) of each part")
    return _report(True, f"right: joint 5's absolute error is {target['error_ratio']:.2f} times the fitted one, but "
                         f"its torque only {target['torque_ratio']:.2f} times: the same error, a smaller signal")
