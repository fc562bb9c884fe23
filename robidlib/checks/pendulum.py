"""Checks of the exercises of chapter 1 (the single pendulum).

Every check prints one line, ✔ or ✘ with what to do next, and returns ``True`` or ``False``.
An untouched stub (an answer still holding ``...``, a function that returns ``None`` or
raises) is reported, never raised (see :mod:`robidlib.checks._report`).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from ..models.pendulum import Pendulum
from ._report import as_answer_array, call_answer, report as _report, stored_answers, student_check

__all__ = [
    "check_coulomb_regressor",
    "check_equivalent_pendulums",
    "check_sqrt_n_scaling",
    "check_excitation_design",
]

#: Relative precision asked for in the exercises that compare numbers (four digits).
RTOL = 1e-4


@student_check("Write the body of regressor_coulomb so that it returns an (N, 4) array.")
def check_coulomb_regressor(func: Callable[[np.ndarray, np.ndarray, np.ndarray], Any]) -> bool:
    """Check a pendulum regressor extended with Coulomb friction (chapter 1, exercise 1).

    The answer is called on 25 random states; each of its four columns is compared with the
    column the exercise asks for (parameters ``[I + m l^2, m g l, b, fc]``, in that order),
    stored with the states (:func:`~robidlib.checks._report.stored_answers`), to a relative
    precision of ``1e-6`` (so ``float32`` results pass).

    Parameters
    ----------
    func : callable
        ``func(q, qd, qdd)`` taking arrays of shape (N,) and returning an array (or nested
        list) of shape (N, 4).

    Returns
    -------
    bool
        Whether the answer is right; a message says what is wrong otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> check_coulomb_regressor(lambda q, qd, qdd: np.ones((q.size, 3)))
    ✘ the regressor must have shape (25, 4), got (25, 3) (one row per sample, one column per parameter)
    False
    """
    ref = stored_answers("pendulum")["coulomb_regressor"]
    q, qd, qdd = (np.array(ref[k]) for k in ("q", "qd", "qdd"))
    expected = np.array(ref["columns"]).T
    ok, got = call_answer(func, q, qd, qdd)
    if not ok:
        return _report(False, got)
    ok, arr = as_answer_array(got, "the regressor", shape=(q.size, 4))
    if not ok:
        return _report(False, arr + " (one row per sample, one column per parameter)")
    names = ref["names"]
    for j, name in enumerate(names):
        if not np.allclose(arr[:, j], expected[:, j], rtol=1e-6, atol=1e-6):
            found = [k for k in range(4) if np.allclose(arr[:, j], expected[:, k], rtol=1e-6, atol=1e-6)]
            where = f" (it holds {names[found[0]]}: check the order)" if found else ""
            return _report(False, f"column {j} should be {name}{where}")
    return _report(True, f"the regressor [{', '.join(names)}] is right")


def _pendulum_tuple(p: Any, which: str) -> tuple[bool, Any]:
    """``(True, (I, m, l))`` or ``(False, message)`` for a tuple, list, dict or Pendulum."""
    if isinstance(p, Mapping):
        missing = [k for k in ("I", "m", "l") if k not in p]
        if missing:
            return False, f"{which} must have the keys 'I', 'm', 'l'; missing {missing}"
        p = (p["I"], p["m"], p["l"])
    elif hasattr(p, "I") and hasattr(p, "m") and hasattr(p, "l"):
        p = (p.I, p.m, p.l)
    ok, arr = as_answer_array(p, which, shape=(3,))
    if not ok:
        return False, arr + " (give (I, m, l))"
    return True, tuple(float(v) for v in arr)


@student_check("Give the (I, m, l) of a second pendulum: pick a new mass, then solve for l and I.")
def check_equivalent_pendulums(p1: Any, p2: Any, g: float = 9.81) -> bool:
    """Check a second pendulum that produces exactly the torques of a first (chapter 1, ex. 2).

    Both pendulums must be physical (finite, ``I >= 0``, ``m > 0``, ``l > 0``), differ in
    mass or length, and have the same identifiable parameters ``I + m l^2`` and ``m g l`` to
    four significant digits (relative ``1e-4``), which makes their torques equal for every
    motion.

    Parameters
    ----------
    p1 : (I, m, l), dict with keys I, m, l, or Pendulum
        The given pendulum.
    p2 : (I, m, l), dict with keys I, m, l, or Pendulum
        The answer. Centroidal inertia (kg m^2), mass (kg), centre-of-mass distance (m).
    g : float, default 9.81
        Gravitational acceleration (m/s^2).

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        If ``p1`` is not a physical pendulum or ``g`` is not positive and finite (a misuse of
        the check, not a wrong answer).

    Examples
    --------
    >>> from robidlib.models import Pendulum
    >>> check_equivalent_pendulums(Pendulum(), (0.0175, 2.0, 0.25))
    ✘ the torques differ: I + m l^2 = 0.1425 instead of 0.08; m g l = 4.905 instead of 2.4525
    False
    """
    if isinstance(g, bool) or not isinstance(g, (int, float, np.integer, np.floating)) or not (
            np.isfinite(g) and g > 0):
        raise ValueError(f"g must be a positive finite number (m/s^2), got {g!r}")
    ok, a = _pendulum_tuple(p1, "p1")
    if not ok or not (a[0] >= 0 and a[1] > 0 and a[2] > 0):
        raise ValueError(f"p1 must be a physical pendulum (I >= 0, m > 0, l > 0), got {p1!r}")
    ok, b = _pendulum_tuple(p2, "your pendulum")
    if not ok:
        return _report(False, b)
    I, m, l = b
    if not (I >= 0 and m > 0 and l > 0):
        return _report(False, f"(I={I:.4g}, m={m:.4g}, l={l:.4g}) is not physical: need I >= 0, m > 0, l > 0")
    (a1, a2), (b1, b2) = [(Ii + mi * li**2, mi * g * li) for Ii, mi, li in (a, b)]
    wrong = []
    if abs(b1 - a1) > RTOL * abs(a1):
        wrong.append(f"I + m l^2 = {b1:.6g} instead of {a1:.6g}")
    if abs(b2 - a2) > RTOL * abs(a2):
        wrong.append(f"m g l = {b2:.6g} instead of {a2:.6g}")
    if wrong:
        return _report(False, "the torques differ: " + "; ".join(wrong))
    if np.isclose(m, a[1], rtol=1e-3, atol=0) and np.isclose(l, a[2], rtol=1e-3, atol=0):
        return _report(False, "that is the same pendulum: change m (and so l), then adjust I")
    return _report(True, "different mass and length, identical torques: only I + m l^2 and m g l are identifiable")


@student_check("Compute one standard deviation of a2 per entry of Ns (a list or an array).")
def check_sqrt_n_scaling(n_samples: Any, std: Any, tol: float = 0.1) -> bool:
    """Check that standard deviations fall like ``1/sqrt(N)`` (chapter 1, exercise 3).

    The slope of ``log(std)`` against ``log(N)`` (a straight-line fit) must be within ``tol``
    of ``-1/2``.

    Parameters
    ----------
    n_samples : array_like, shape (k,)
        Numbers of samples N (at least three distinct, positive).
    std : array_like, shape (k,)
        Standard deviation of one parameter estimate for each N (positive).
    tol : float, default 0.1
        Accepted distance of the log-log slope from -1/2.

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        If ``tol`` is not positive and finite.

    Examples
    --------
    >>> check_sqrt_n_scaling([100, 200, 400], [1.0, 0.5, 0.25])
    ✘ log-log slope -1.000 should be close to -1/2
    False
    """
    if isinstance(tol, bool) or not isinstance(tol, (int, float, np.integer, np.floating)) or not (
            np.isfinite(tol) and tol > 0):
        raise ValueError(f"tol must be a positive finite number, got {tol!r}")
    ok, n = as_answer_array(n_samples, "n_samples", shape=(None,))
    if not ok:
        return _report(False, n)
    ok, s = as_answer_array(std, "std", shape=(n.size,))
    if not ok:
        return _report(False, s + " (one standard deviation per N)")
    if n.size < 3 or np.unique(n).size < 3 or np.any(n <= 0) or np.any(s <= 0):
        return _report(False, "give at least three distinct positive N and positive standard deviations")
    slope = float(np.polyfit(np.log(n), np.log(s), 1)[0])
    ok = abs(slope + 0.5) <= tol
    return _report(ok, f"log-log slope {slope:.3f} " + ("is close to -1/2" if ok else "should be close to -1/2"))


def _design_experiment() -> tuple[np.ndarray, np.ndarray, float]:
    """Times, true parameters and torque noise of the design exercise."""
    return np.linspace(0.0, 10.0, 1000), Pendulum().params, 0.05


@student_check("Write motion(t) so that it returns the three arrays q, qd, qdd of your design.")
def check_excitation_design(motion: Callable[[np.ndarray], Any], q_max: float = 0.5,
                            target: float = 2.0, qd_max: float = 3.0, qdd_max: float = 15.0) -> bool:
    """Check an excitation of the pendulum designed for precise estimates (chapter 1, ex. 4).

    The experiment is the chapter's first one: N = 1000 samples over 10 s, torque noise of
    0.05 N m, the default :class:`~robidlib.models.Pendulum`. For the motion the answer
    returns, the check computes the standard deviations of least squares,
    ``sigma sqrt(diag((W'W)^-1))``, relative to the *true* parameters, and requires each to
    be at most ``target`` percent while the motion stays within the joint's limits: the
    angle within ``+-q_max``, the velocity within ``+-qd_max`` and the acceleration within
    ``+-qdd_max`` (a real drive has all three; without the last two, a small fast
    vibration on top of any motion "identifies" the inertia with accelerations of hundreds
    of rad/s^2 that no motor of this pendulum delivers). The limits are checked on a time grid
    twenty times finer than the samples, where the check also verifies that ``qd`` and
    ``qdd`` are the derivatives of ``q``.

    Parameters
    ----------
    motion : callable
        ``motion(t)`` taking times of shape (N,) and returning ``(q, qd, qdd)``, three arrays
        of shape (N,).
    q_max : float, default 0.5
        Largest admissible ``|q|`` (rad).
    target : float, default 2.0
        Largest admissible relative standard deviation (%).
    qd_max : float, default 3.0
        Largest admissible ``|qd|`` (rad/s).
    qdd_max : float, default 15.0
        Largest admissible ``|qdd|`` (rad/s^2).

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        If ``q_max``, ``target``, ``qd_max`` or ``qdd_max`` is not positive and finite.

    Examples
    --------
    >>> import numpy as np
    >>> check_excitation_design(lambda t: (0.5 * np.sin(2 * t), np.cos(2 * t), -2 * np.sin(2 * t)))
    ✘ relative standard deviations of a1, a2, a3: 133 %, 17.9 %, 2.22 %; each must be at most 2 %
    False
    """
    for name, v in (("q_max", q_max), ("target", target), ("qd_max", qd_max), ("qdd_max", qdd_max)):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not (
                np.isfinite(v) and v > 0):
            raise ValueError(f"{name} must be a positive finite number, got {v!r}")
    t, a_true, sigma = _design_experiment()
    arrays = []
    for tt in (t, np.linspace(t[0], t[-1], 20 * t.size + 1)):
        ok, out = call_answer(motion, tt)
        if not ok:
            return _report(False, out)
        if not isinstance(out, (tuple, list)) or len(out) != 3:
            return _report(False, "motion(t) must return three arrays: (q, qd, qdd)")
        cols = []
        for what, x in zip(("q", "qd", "qdd"), out):
            ok, arr = as_answer_array(x, what, shape=(tt.size,))
            if not ok:
                return _report(False, arr + " (one value per time sample)")
            cols.append(arr)
        arrays.append(cols)
    (q, qd, qdd), (qf, qdf, qddf) = arrays
    tf = np.linspace(t[0], t[-1], 20 * t.size + 1)
    for name, x, dx in (("qd", qf, qdf), ("qdd", qdf, qddf)):
        err = np.abs(np.gradient(x, tf, edge_order=2) - dx).max()
        if err > 1e-3 * max(np.abs(dx).max(), 1e-12) + 1e-9:
            return _report(False, f"{name} is not the time derivative of the signal before it (largest "
                                  f"mismatch {err:.3g}); keep frequencies below about 100 rad/s")
    for what, x, limit, unit in (("angle", qf, q_max, "rad"), ("velocity", qdf, qd_max, "rad/s"),
                                 ("acceleration", qddf, qdd_max, "rad/s^2")):
        peak = float(np.abs(x).max())
        if peak > limit * (1 + 1e-9):
            return _report(False, f"the {what} reaches {peak:.3g} {unit}, beyond the limit of {limit:g} {unit}")
    W = Pendulum().regressor(q, qd, qdd)
    s = np.linalg.svd(W, compute_uv=False)
    if s[-1] <= 1e-9 * s[0]:
        return _report(False, "this motion cannot separate the three parameters (W is rank deficient)")
    _, s, Vt = np.linalg.svd(W, full_matrices=False)
    std = sigma * np.sqrt(((Vt.T / s) ** 2).sum(axis=1))
    rel = 100 * std / np.abs(a_true)
    text = ", ".join(f"{v:.3g} %" for v in rel)
    ok = bool(np.all(rel <= target))
    return _report(ok, f"relative standard deviations of a1, a2, a3: {text}"
                       + (f" (all within {target:g} %)" if ok else f"; each must be at most {target:g} %"))
