"""Checks of the exercises of chapter 6 (the extended Kalman filter).

Every check prints one line of feedback (a tick or a cross and what is wrong) and returns
``True`` or ``False``; a malformed answer (not callable, not numbers, not names) raises
``TypeError``.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

from ._report import report as _report

__all__ = [
    "check_euler_bias_order",
    "check_unobservable_at_rest",
    "check_nees_function",
]

#: Parameter names of the pendulum (robidlib.models.Pendulum): a = [I + m l^2, m g l, b].
PENDULUM_NAMES = ("a1", "a2", "a3")


def _positive_vector(name: str, x: Any) -> np.ndarray:
    """``x`` as a 1-D array of finite positive numbers (at least 3), else TypeError."""
    if isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of numbers, got {type(x).__name__}")
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a sequence of numbers, got {type(x).__name__}") from None
    if a.ndim != 1 or a.size < 3:
        raise TypeError(f"{name} must be a 1-D sequence of at least 3 numbers, got shape {a.shape}")
    if not np.all(np.isfinite(a)) or np.any(a <= 0):
        raise TypeError(f"{name} must hold finite positive numbers, got {a.tolist()}")
    return a


def check_euler_bias_order(dts: Sequence[float], biases: Sequence[float]) -> bool:
    """Check that the bias of an Euler-discretised EKF shrinks like ``dt`` (chapter 6, exercise 1).

    Explicit Euler has a local error ``O(dt^2)`` and a global error ``O(dt)``: the parameter
    bias it causes should fall roughly in proportion to the time step.  The check fits
    ``log(bias) = c + s log(dt)`` by least squares and accepts a slope ``0.7 <= s <= 1.3``.

    Parameters
    ----------
    dts : sequence of float, length >= 3
        Time steps (s), all different.
    biases : sequence of float, same length
        The absolute relative parameter errors (e.g. ``max |a_hat / a - 1|``) at those steps.

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        If either argument is not a sequence of at least three finite positive numbers, the
        lengths differ, or the time steps repeat.

    Examples
    --------
    >>> check_euler_bias_order([0.02, 0.01, 0.005], [0.04, 0.021, 0.0098])
    ✔ the bias falls like dt^1.01: first order, as the global error of Euler's method
    True
    """
    h = _positive_vector("dts", dts)
    b = _positive_vector("biases", biases)
    if h.size != b.size:
        raise TypeError(f"dts and biases must have the same length, got {h.size} and {b.size}")
    if np.unique(h).size != h.size:
        raise TypeError(f"dts must all be different, got {h.tolist()}")
    slope = float(np.polyfit(np.log(h), np.log(b), 1)[0])
    if 0.7 <= slope <= 1.3:
        return _report(True, f"the bias falls like dt^{slope:.2f}: first order, as the global error of Euler's method")
    if slope < 0:
        return _report(False, f"the bias grows as dt shrinks (slope {slope:.2f}): are dts and biases in the same order?")
    if slope < 0.7:
        return _report(
            False,
            f"slope {slope:.2f}: the bias hardly depends on dt - is something else (noise, the torque "
            "hold, too short a record) larger than the discretisation error?",
        )
    return _report(False, f"slope {slope:.2f}: faster than first order - did you use RK4, or the squared error?")


def check_unobservable_at_rest(names: Sequence[str], q0: float = 0.5) -> bool:
    """Check which pendulum parameters are unobservable at rest (chapter 6, exercise 2).

    The pendulum ``a1 qdd + a2 sin q + a3 qd = tau`` is held at rest at the angle ``q0`` by
    the torque ``tau = a2 sin q0`` and its angle is measured.  With ``qd = qdd = 0`` the
    columns ``qdd`` and ``qd`` of the regressor vanish: ``a1`` and ``a3`` leave no trace
    in the measurements; ``a2`` is seen through the static balance unless ``sin q0 = 0``.

    Parameters
    ----------
    names : sequence of str
        The unobservable parameters, among ``"a1"``, ``"a2"``, ``"a3"`` (any order).
    q0 : float, default 0.5
        The rest angle (rad) the answer is for.

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        If ``names`` is a string or holds something other than strings, or ``q0`` is not a
        finite real number.

    Examples
    --------
    >>> check_unobservable_at_rest(["a3", "a1"])
    ✔ at rest only the static balance a2 sin(q0) = tau is seen: a1 and a3 are unobservable
    True
    """
    if isinstance(names, (str, bytes)) or not isinstance(names, (list, tuple, set, frozenset, np.ndarray)):
        raise TypeError(f"names must be a list of parameter names such as ['a1'], got {type(names).__name__}")
    got = list(names)
    if not all(isinstance(s, (str, np.str_)) for s in got):
        raise TypeError(f"names must hold strings such as 'a1', got {got!r}")
    if isinstance(q0, (bool, np.bool_, str, bytes)) or np.ndim(q0) != 0:
        raise TypeError(f"q0 must be a real number (rad), got {type(q0).__name__}")
    q0 = float(q0)
    if not math.isfinite(q0):
        raise TypeError(f"q0 must be finite, got {q0}")
    unknown = sorted(set(got) - set(PENDULUM_NAMES))
    if unknown:
        return _report(False, f"unknown parameter name(s) {unknown}: the pendulum has a1, a2, a3")
    expected = {"a1", "a3"} if abs(math.sin(q0)) > 1e-9 else {"a1", "a2", "a3"}
    given = set(got)
    if given == expected:
        if expected == {"a1", "a2", "a3"}:
            return _report(True, "at q0 = 0 even gravity gives no torque: no parameter is observable at rest")
        return _report(True, "at rest only the static balance a2 sin(q0) = tau is seen: a1 and a3 are unobservable")
    if "a2" in given and "a2" not in expected:
        return _report(False, "a2 is observable: it sets the torque a2 sin(q0) that holds the pendulum")
    missing = sorted(expected - given)
    return _report(False, f"{', '.join(missing)} also leave(s) no trace: which regressor columns vanish at rest?")


def check_nees_function(func: Callable[[np.ndarray, np.ndarray], Any]) -> bool:
    """Check a function computing the normalised estimation error squared (chapter 6, exercise 3).

    ``func(e, P)`` must return ``e' P^-1 e`` for one error vector ``e`` (shape ``(nx,)``) and
    one covariance ``P`` (shape ``(nx, nx)``), as a number.

    Parameters
    ----------
    func : callable
        The student's function.

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        If ``func`` is not callable.

    Examples
    --------
    >>> import numpy as np
    >>> check_nees_function(lambda e, P: e @ np.linalg.solve(P, e))
    ✔ e' P^-1 e is right on 20 random cases
    True
    """
    if not callable(func):
        raise TypeError(f"func must be a function of (e, P), got {type(func).__name__}")
    rng = np.random.default_rng(20261206)
    for case in range(20):
        nx = 1 + case % 5
        G = rng.normal(size=(nx, nx))
        P = G @ G.T + 0.1 * np.eye(nx)
        e = rng.normal(size=nx)
        expected = float(e @ np.linalg.solve(P, e))
        try:
            got = func(e.copy(), P.copy())
            value = float(np.asarray(got, dtype=float).reshape(()))
        except Exception as exc:  # the student's code failed: tell them how
            return _report(False, f"your function raised {type(exc).__name__}: {exc}")
        if math.isclose(value, expected, rel_tol=1e-8):
            continue
        if math.isclose(value, float(e @ P @ e), rel_tol=1e-8):
            return _report(False, "you computed e' P e: the NEES weighs the error with the *inverse* of P")
        if math.isclose(value, math.sqrt(expected), rel_tol=1e-8):
            return _report(False, "you returned the square root: the NEES is the squared normalised error")
        if math.isclose(value, float(np.sum(e**2 / np.diag(P))), rel_tol=1e-8) and nx > 1:
            return _report(False, "you used only the diagonal of P: the correlations matter, use the full inverse")
        return _report(False, f"for nx = {nx} expected {expected:.6g}, got {value:.6g}")
    return _report(True, "e' P^-1 e is right on 20 random cases")
