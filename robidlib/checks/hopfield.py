"""Checks of the exercises of chapter 7 (the Hopfield network).

Every check prints one line of feedback (a tick or a cross and what to do next) and returns
``True`` or ``False``. It never raises because of the answer: an untouched stub, ``None``, a
list, a ``float32`` array, NaN or a wrong shape all get a ✘ with a hint
(:mod:`robidlib.checks._report`). Only a misuse of the check itself (problem data that are not
finite arrays, a bad tolerance) raises ``ValueError``. The sign convention is the book's:
``W S + I`` is minus the gradient of the least-squares cost.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._validate import as_array
from ._report import as_answer_array, data_number, report, student_check

__all__ = [
    "check_hopfield_connections",
    "check_slowest_time_constant",
    "check_tracking",
    "check_window_design",
]


def _data(name: str, x: Any, ndim: int) -> np.ndarray:
    """Problem data as a finite float array with ``ndim`` dimensions, else ValueError/TypeError (misuse)."""
    a = as_array(name, x)
    if a.ndim != ndim or a.size == 0:
        raise ValueError(f"{name} must be a non-empty {ndim}-D array, got shape {a.shape}")
    return a


def _problem(Phi: Any, tau: Any) -> tuple[np.ndarray, np.ndarray]:
    P = _data("Phi", Phi, 2)
    t = _data("tau", tau, 1)
    if t.shape[0] != P.shape[0]:
        raise ValueError(f"Phi has {P.shape[0]} rows but tau has {t.shape[0]} entries; they must match")
    return P, t


def _number(name: str, x: Any) -> float:
    """A problem parameter (not an answer) as a finite float, else ValueError/TypeError."""
    return data_number(name, x)


#: relative tolerance of W and I: float32 arithmetic (about 1e-7) passes with a wide margin.
CONNECTION_RTOL = 1e-5


@student_check("Build W from Phi'Phi and I from Phi'tau, both divided by the number of rows.")
def check_hopfield_connections(W: Any, I: Any, Phi: Any, tau: Any) -> bool:
    """Check the connection matrix and biases of the estimator network (chapter 7, ex. 1).

    The book divides both by the number of rows ``r``; any common positive scale gives the
    same equilibrium (only the time constants change), so the raw sums are accepted too,
    with a note.

    Parameters
    ----------
    W : array_like, shape (p, p)
        Your connection matrix (any real dtype, lists accepted).
    I : array_like, shape (p,)
        Your bias vector.
    Phi : array_like, shape (r, p)
        Stacked regressor.
    tau : array_like, shape (r,)
        Stacked torques.

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        A value of the wrong type (text, a bool, complex numbers) where the chapter's data or
        numbers are meant (a misuse of the check; a wrong *answer* is reported, not raised).
    ValueError
        If ``Phi`` or ``tau`` is not a finite numeric array, or they do not match (misuse).

    Examples
    --------
    >>> import numpy as np
    >>> Phi, tau = np.array([[1.0, 0.0], [1.0, 1.0]]), np.array([1.0, 3.0])
    >>> check_hopfield_connections(None, [0.0, 0.0], Phi, tau)
    ✘ W is None: did you forget to assign it (or to `return` it)?
    False
    """
    P, t = _problem(Phi, tau)
    r, p = P.shape
    ok_w, Wm = as_answer_array(W, "W", shape=(p, p))
    if not ok_w:
        return report(False, Wm)
    ok_i, Iv = as_answer_array(I, "I", shape=(p,))
    if not ok_i:
        return report(False, Iv)
    A = P.T @ P
    b = P.T @ t

    def close(x: np.ndarray, y: np.ndarray) -> bool:
        scale = max(float(np.max(np.abs(y))), np.finfo(float).tiny)
        return bool(np.allclose(x, y, rtol=CONNECTION_RTOL, atol=CONNECTION_RTOL * scale))

    tr = float(np.trace(Wm))
    c = -float(np.trace(A)) / tr if tr != 0.0 else float("nan")   # the scale the answer used
    if math.isfinite(c) and c > 0 and close(Wm, -A / c) and close(Iv, b / c):
        if math.isclose(c, r, rel_tol=CONNECTION_RTOL):
            return report(True, "W = -Phi'Phi/r is symmetric negative definite and W S + I = 0 are the normal equations")
        if math.isclose(c, 1.0, rel_tol=CONNECTION_RTOL):
            return report(True, "the raw sums (scale='sum'): the same equilibrium, the normal equations; the book "
                                f"divides by r = {r} so that the time constants do not depend on the amount of data")
        return report(True, f"W and I share the scale 1/{c:.4g}: the same equilibrium (the normal equations); "
                            f"the book's scale is 1/r = 1/{r}")
    if math.isfinite(c) and c < 0 and close(Wm, -A / c):
        return report(False, "sign of W: it must be negative semi-definite (minus Phi'Phi, scaled), "
                             "or the network climbs the cost")
    if math.isfinite(c) and c > 0 and close(Wm, -A / c) and close(Iv, -b / c):
        return report(False, "sign of I: it must be +Phi'tau (scaled like W), so that W S + I = Phi'(tau - Phi S)/r")
    if math.isfinite(c) and c > 0 and close(Wm, -A / c):
        return report(False, f"W is right (scale 1/{c:.4g}) but I is not Phi'tau with the same scale")
    if not np.allclose(Wm, Wm.T, rtol=CONNECTION_RTOL, atol=CONNECTION_RTOL * max(float(np.max(np.abs(Wm))), 1e-300)):
        return report(False, "W is not symmetric: it must be minus Phi'Phi (p x p), scaled")
    return report(False, "W is not minus Phi'Phi divided by the number of rows (check the transpose and the shape)")


@student_check("Use the smallest eigenvalue of Phi'Phi/r and the neuron gain at S = 0.")
def check_slowest_time_constant(value: Any, Phi: Any, alpha: Any, beta: Any) -> bool:
    """Check the slowest time constant of the network started from rest (chapter 7, ex. 2).

    Parameters
    ----------
    value : float
        Your time constant, in seconds of network time.
    Phi : array_like, shape (r, p)
        Stacked regressor (full column rank).
    alpha : float
        Amplitude of the neurons (one value for every neuron).
    beta : float
        Slope parameter.

    Returns
    -------
    bool
        True within 1 %.

    Raises
    ------
    TypeError
        A value of the wrong type (text, a bool, complex numbers) where the chapter's data or
        numbers are meant (a misuse of the check; a wrong *answer* is reported, not raised).
    ValueError
        On malformed problem data, ``alpha <= 0``, ``beta <= 0`` or a rank-deficient
        ``Phi`` (misuse).

    Examples
    --------
    >>> import numpy as np
    >>> Phi = np.diag([1.0, 2.0])            # A = diag(0.5, 2)
    >>> check_slowest_time_constant(4.0, Phi, alpha=2.0, beta=4.0)
    ✔ 4 s: the weakest excited direction sets the convergence time
    True
    """
    P = _data("Phi", Phi, 2)
    a = _number("alpha", alpha)
    b = _number("beta", beta)
    if a <= 0 or b <= 0:
        raise ValueError(f"alpha and beta must be positive, got alpha={a}, beta={b}")
    lam = np.sort(np.linalg.svd(P, compute_uv=False) ** 2 / P.shape[0])
    if P.shape[0] < P.shape[1] or lam[0] <= lam[-1] * max(P.shape) * np.finfo(float).eps:
        raise ValueError("Phi is rank deficient: some direction is never excited and its time constant is infinite")
    ok, v = as_answer_array(value, "value", shape=())
    if not ok:
        return report(False, v)
    v = float(v)
    expected = b / (a * lam[0])
    if math.isclose(v, expected, rel_tol=0.01):
        return report(True, f"{expected:.4g} s: the weakest excited direction sets the convergence time")
    if math.isclose(v, b / (a * lam[-1]), rel_tol=0.01):
        return report(False, f"{v:.4g} s is the *fastest* time constant (largest eigenvalue); the slowest uses the smallest")
    if math.isclose(v, 1.0 / lam[0], rel_tol=0.01):
        return report(False, "you forgot the neuron gain dS/du at S = 0")
    if math.isclose(v, a / (b * lam[0]), rel_tol=0.01):
        return report(False, "the gain at S = 0 is alpha / beta, so alpha belongs in the denominator of the time constant")
    if math.isclose(v, b / (a * lam[0] * P.shape[0]), rel_tol=0.01):
        return report(False, "you used Phi'Phi without dividing by the number of rows r")
    return report(False, f"{v:.4g} s is off by more than 1 %: linearise the network at S = 0 and take the slowest mode")


@student_check("Run the on-line network with your window and beta, then pass its history['t'] and history['S'].")
def check_tracking(t: Any, S: Any, t_change: Any, theta_after: Any, settle: Any = 1.5, tol: Any = 0.05) -> bool:
    """Check that an on-line estimate has settled on new parameter values (chapter 7, ex. 3).

    Passes when, at every time ``t_k >= t_change + settle``, the relative error
    ``||S_k - theta_after|| / ||theta_after||`` is at most ``tol``.

    Parameters
    ----------
    t : array_like, shape (K,)
        Times of the estimates (s), increasing.
    S : array_like, shape (K, p)
        Estimates (e.g. ``net.history["S"]``).
    t_change : float
        Time at which the parameters changed (s).
    theta_after : array_like, shape (p,)
        Parameter values after the change (not all zero).
    settle : float, default 1.5
        Allowed settling time (s), > 0.
    tol : float, default 0.05
        Relative tolerance, > 0.

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        A value of the wrong type (text, a bool, complex numbers) where the chapter's data or
        numbers are meant (a misuse of the check; a wrong *answer* is reported, not raised).
    ValueError
        On malformed problem data (``t_change``, ``theta_after``, ``settle``, ``tol``).

    Examples
    --------
    >>> import numpy as np
    >>> t = np.linspace(0.0, 4.0, 81)
    >>> S = np.where(t[:, None] < 2.5, [1.0, 1.0], [2.0, 1.0])     # settles 0.5 s after the change
    >>> check_tracking(t, S, t_change=2.0, theta_after=[2.0, 1.0], settle=1.0)
    ✔ within 5 % of the new values from t = 3 s on (largest error 0 %)
    True
    """
    th = _data("theta_after", theta_after, 1)
    tc = _number("t_change", t_change)
    st = _number("settle", settle)
    tl = _number("tol", tol)
    if st <= 0 or tl <= 0:
        raise ValueError(f"settle and tol must be positive, got settle={st}, tol={tl}")
    norm = float(np.linalg.norm(th))
    if norm == 0.0:
        raise ValueError("theta_after is all zeros: a relative error is undefined")
    ok, tt = as_answer_array(t, "t", shape=(None,))
    if not ok:
        return report(False, tt)
    ok, SS = as_answer_array(S, "S", shape=(tt.size, th.size))
    if not ok:
        return report(False, SS)
    if tt.size > 1 and np.any(np.diff(tt) <= 0):
        return report(False, "t must be strictly increasing: pass the network's history['t']")
    after = tt >= tc + st
    if not np.any(after):
        return report(False, f"no estimate at or after t_change + settle = {tc + st:g} s: run the network longer")
    err = np.linalg.norm(SS[after] - th, axis=1) / norm
    worst = int(np.argmax(err))
    if err[worst] <= tl:
        return report(True, f"within {100 * tl:g} % of the new values from t = {tc + st:g} s on (largest error {100 * err[worst]:.2g} %)")
    return report(
        False,
        f"at t = {tt[after][worst]:.3g} s the error is {100 * err[worst]:.3g} % (> {100 * tl:g} %): forget faster "
        "(a shorter window) or make the network faster (smaller beta), but not so fast that noise dominates",
    )


@student_check("Choose beta (s) and a window length m (samples); the check runs the network for you.")
def check_window_design(beta: Any, window: Any, Phi: Any, tau: Any, t: Any, alpha: Any, t_change: Any,
                        theta_after: Any, settle: Any = 2.0, tol: Any = 0.05) -> bool:
    """Run the on-line network with your sliding window and judge its tracking (ch. 7, ex. 3).

    The network ``HopfieldEstimator(alpha, beta).run_online(Phi, tau, t, window=window)`` is
    run and its history judged as :func:`check_tracking` does.

    Parameters
    ----------
    beta : float
        Your slope parameter (> 0, seconds of network time per unit of potential).
    window : int
        Your window length in samples (a whole number >= 1).
    Phi, tau, t : array_like
        The on-line data: regressor ``(N, n, p)``, torques ``(N, n)``, sample times ``(N,)``.
    alpha : float or array_like
        The amplitudes of the neurons.
    t_change : float
        Time of the parameter change (s).
    theta_after : array_like, shape (p,)
        Parameters after the change.
    settle, tol : float, default 2.0 and 0.05
        Allowed settling time (s) and relative tolerance.

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        A value of the wrong type (text, a bool, complex numbers) where the chapter's data or
        numbers are meant (a misuse of the check; a wrong *answer* is reported, not raised).
    ValueError
        On malformed problem data (a misuse of the check).

    Examples
    --------
    >>> check_window_design(..., 10, None, None, None, 1.0, 0.0, [1.0])
    ✘ not answered yet: replace the `...` of the stub. Choose beta (s) and a window length m (samples); the check runs the network for you.
    False
    """
    from ..estimation.hopfield import HopfieldEstimator

    P = as_array("Phi", Phi, ndim=3)                 # the problem first: a misuse raises, whatever the answer
    tau = as_array("tau", tau, ndim=2)
    t = as_array("t", t, ndim=1)
    th = _data("theta_after", theta_after, 1)
    if th.shape != (P.shape[2],):
        raise ValueError(f"theta_after must have shape ({P.shape[2]},) (one value per column of Phi), got {th.shape}")
    alpha = as_array("alpha", alpha)
    for name, v in (("t_change", t_change), ("settle", settle), ("tol", tol)):
        _number(name, v)
    ok, b = as_answer_array(beta, "beta", shape=())
    if not ok:
        return report(False, b)
    ok, m = as_answer_array(window, "window", shape=())
    if not ok:
        return report(False, m)
    b, m = float(b), float(m)
    if b <= 0:
        return report(False, f"beta must be > 0, got {b:g}")
    if m < 1 or m != math.floor(m):
        return report(False, f"window must be a whole number of samples >= 1, got {m:g}")
    net = HopfieldEstimator(alpha, b, check=False)
    try:
        net.run_online(P, tau, t, window=int(m))
    except (ValueError, TypeError) as exc:
        raise ValueError(f"the on-line data passed to the check are malformed: {exc}") from None
    return check_tracking(net.history["t"], net.history["S"], t_change, theta_after, settle=settle, tol=tol)
