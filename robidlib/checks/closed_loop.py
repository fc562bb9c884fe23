"""Checks of the exercises of chapter 12 (closed-loop data).

Every check prints one line, ✔ or ✘ with what to do next, and returns ``True`` or ``False``.
An untouched stub (an answer still holding ``...``) is reported, never raised; only a misuse
of the check itself (the chapter's data of the wrong kind) raises (see
:mod:`robidlib.checks._report`).
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ._report import as_answer_array, report as _report, student_check

__all__ = ["check_instruments", "check_bias_sign", "check_method_choice", "SCENARIOS"]


@student_check("Simulate the model of `params` with simulate_closed_loop, evaluate the regressor at `samples` and "
               "keep the rows of `keep`.")
def check_instruments(Z: Any, experiment: Any, params: Any, samples: Any, keep: Any) -> bool:
    """Check the instruments of one IDIM-IV iteration (exercise 1).

    ``Z`` must be the regressor of ``experiment.model`` on the closed-loop simulation of
    ``params`` (exact sensors), at the record's ``samples``, restricted to the kept equations
    ``keep``: shape ``(keep.sum(), p)``, rows sample-major. Compared entrywise to ``1e-6`` of
    the largest entry.

    Parameters
    ----------
    Z : array_like, shape (R, p)
        The student's instruments.
    experiment : robidlib.closed_loop.ClosedLoopExperiment
    params : array_like, shape (p,)
    samples : array_like of int, shape (S,)
    keep : array_like of bool, shape (S, n)

    Returns
    -------
    bool

    Raises
    ------
    TypeError, ValueError
        If the chapter's data given to the check are not of the right kind.

    Examples
    --------
    >>> check_instruments(..., None, None, None, None)
    ✘ not answered yet: replace the `...` of the stub. Simulate the model of `params` with simulate_closed_loop, evaluate the regressor at `samples` and keep the rows of `keep`.
    False
    """
    from .._validate import as_array
    from ..closed_loop import ClosedLoopExperiment, simulate_closed_loop

    if not isinstance(experiment, ClosedLoopExperiment):
        raise TypeError(f"experiment must be the chapter's ClosedLoopExperiment, got {type(experiment).__name__}")
    P = as_array("params", params, shape=(experiment.n_params,))
    s = as_array("samples", samples, ndim=1)
    if np.any(s != np.round(s)):
        raise TypeError(f"samples must be integer indices of the record's samples, got {s[s != np.round(s)][:3]}")
    s = s.astype(int)
    k = np.asarray(keep)
    if k.dtype != bool or k.shape != (s.size, experiment.n_joints):
        raise ValueError(f"keep must be a bool array of shape (len(samples), n) = ({s.size}, {experiment.n_joints}), "
                         f"got {k.dtype} {k.shape}")
    rec = simulate_closed_loop(experiment, P)
    if s.size and (s.min() < 0 or s.max() >= len(rec.t)):
        raise ValueError(f"samples must be indices in [0, {len(rec.t)}) (the record's samples), got "
                         f"{s.min()} .. {s.max()}")
    ref = np.asarray(experiment.model.regressor(rec.q[s], rec.qd[s], rec.qdd[s]))[k]
    ok, z = as_answer_array(Z, "Z", shape=ref.shape)
    if not ok:
        if np.shape(Z) == (s.size * experiment.n_joints, experiment.n_params):
            z = "Z has a row for every equation: keep only the rows of `keep` (Y[keep])"
        return _report(False, z)
    err = np.abs(z - ref).max()
    if err > 1e-6 * np.abs(ref).max():
        return _report(False, f"Z differs from the instruments by up to {err:.3g} (largest entry "
                              f"{np.abs(ref).max():.3g}): use the regressor of the *simulation* of `params` "
                              "(rec.q, rec.qd, rec.qdd), not of the measured record")
    return _report(True, f"Z: the regressor on the model's own closed-loop motion, {ref.shape[0]} equations "
                         f"x {ref.shape[1]} parameters")


@student_check("Give the name of a parameter of the chapter's model and '+' or '-'.")
def check_bias_sign(name: Any, sign: Any, study: Mapping[str, Any], meta: Mapping[str, Any]) -> bool:
    """Check a predicted sign of the least-squares bias of one parameter at the highest noise (exercise 2).

    The truth is the stored Monte Carlo: the mean least-squares estimate at the highest noise
    level minus the true value, which must be clearly non-zero (more than three standard
    errors of the mean) for the question to have an answer.

    Parameters
    ----------
    name : str
        A parameter name of the chapter's model (``meta["names"]``).
    sign : {"+", "-"}
    study, meta : mapping
        The stored study and its meta data (``load_closed_loop_study()``).

    Returns
    -------
    bool

    Raises
    ------
    TypeError, ValueError
        If ``study`` or ``meta`` are not the chapter's study.

    Examples
    --------
    >>> check_bias_sign(..., "+", {}, {})
    ✘ not answered yet: replace the `...` of the stub. Give the name of a parameter of the chapter's model and '+' or '-'.
    False
    """
    if not isinstance(meta, Mapping) or "names" not in meta or "recipe" not in meta:
        raise TypeError("meta must be the chapter's study meta data (load_closed_loop_study()[1])")
    names = list(meta["names"])
    if not isinstance(name, str) or name not in names:
        return _report(False, f"name must be one of the model's parameters, e.g. {names[:3]}; got {name!r}")
    if sign not in ("+", "-"):
        return _report(False, f"sign must be '+' (least squares overestimates) or '-' (underestimates), got {sign!r}")
    top = len(meta["recipe"]["levels"]) - 1
    try:
        E = np.asarray(study[f"{top}/ls"], dtype=float)
    except (TypeError, KeyError, IndexError, ValueError):
        E = None
    if E is None or E.ndim != 2 or E.shape[1] != len(names):
        raise TypeError(f"study must be the chapter's study results (load_closed_loop_study()[0], with the "
                        f"least-squares estimates '{top}/ls' of shape (runs, {len(names)})), got "
                        f"{type(study).__name__}")
    i = names.index(name)
    bias = np.nanmean(E[:, i]) - float(meta["truth"][i])
    se = np.nanstd(E[:, i]) / np.sqrt(np.sum(np.isfinite(E[:, i])))
    if abs(bias) < 3 * se:
        return _report(False, f"the bias of {name} is within three standard errors of zero ({bias:.3g} +- {se:.2g}): "
                              "pick a parameter whose bias the study shows")
    right = "+" if bias > 0 else "-"
    if sign != right:
        return _report(False, f"least squares {'over' if right == '+' else 'under'}estimates {name} "
                              f"({bias:+.3g}, {abs(bias) / se:.0f} standard errors): think of which error dominates")
    return _report(True, f"{name}: bias {bias:+.3g} ({abs(bias) / se:.0f} standard errors of the mean)")


#: The scenarios of exercise 3 and the method each calls for.
SCENARIOS: dict[str, str] = {
    "A": "didim",     # controller and reference known, positions coarsely quantised: no derivatives needed
    "B": "iv",        # controller known, a good W is available, want to keep the IDIM pipeline and its checks
    "C": "neither",   # controller and reference unknown (the TX40 record): no simulation of the experiment
}


@student_check("Answer with a dict {'A': ..., 'B': ..., 'C': ...}, each 'iv', 'didim' or 'neither'.")
def check_method_choice(choices: Any) -> bool:
    """Check the choice of method for the three scenarios of exercise 3.

    Parameters
    ----------
    choices : dict
        ``{"A": ..., "B": ..., "C": ...}`` with values ``"iv"``, ``"didim"`` or ``"neither"``.

    Returns
    -------
    bool

    Examples
    --------
    >>> check_method_choice({"A": "iv", "B": "iv", "C": "iv"})
    ✘ scenario A: IV needs the derivatives of the positions; which method needs only the torques?
    False
    """
    if not isinstance(choices, Mapping):
        return _report(False, f"give a dict {{'A': ..., 'B': ..., 'C': ...}}, got {type(choices).__name__}")
    hints = {
        "A": "IV needs the derivatives of the positions; which method needs only the torques?",
        "B": "both work; which one keeps the inverse model W of the measured motion?",
        "C": "both simulate the experiment with its controller: what if nobody knows it?",
    }
    for key, right in SCENARIOS.items():
        got = choices.get(key)
        if not isinstance(got, str) or got.lower() not in ("iv", "didim", "neither"):
            return _report(False, f"scenario {key}: answer 'iv', 'didim' or 'neither', got {got!r}")
        if got.lower() != right:
            return _report(False, f"scenario {key}: {hints[key]}")
    return _report(True, "A: DIDIM (no derivatives of coarse positions), B: IV (the IDIM pipeline kept), "
                         "C: neither (no controller to simulate)")
