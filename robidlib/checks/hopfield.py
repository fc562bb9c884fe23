"""Checks of the exercises of chapter 5 (the Hopfield network).

Every check prints one line of feedback (a tick or a cross and what is wrong) and returns
``True`` or ``False``; a malformed answer (not numeric, wrong number of dimensions) raises
``TypeError``.  The sign convention is the book's: ``W = -Phi'Phi / r``, ``I = Phi'tau / r``
(``r`` rows), so that ``W S + I`` is minus the gradient of the mean squared error.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._report import report as _report
from .adaline import _scalar

__all__ = [
    "check_hopfield_connections",
    "check_slowest_time_constant",
    "check_tracking",
]


def _array(name: str, x: Any, ndim: int) -> np.ndarray:
    """``x`` as a finite float array with ``ndim`` dimensions, else TypeError."""
    if isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be a {ndim}-D array of numbers, got {type(x).__name__}")
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a {ndim}-D array of numbers, got {type(x).__name__}") from None
    if a.ndim != ndim or a.size == 0:
        raise TypeError(f"{name} must be a non-empty {ndim}-D array, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise TypeError(f"{name} must contain finite numbers only (no NaN or inf)")
    return a


def _problem(Phi: Any, tau: Any) -> tuple[np.ndarray, np.ndarray]:
    P = _array("Phi", Phi, 2)
    t = _array("tau", tau, 1)
    if t.shape[0] != P.shape[0]:
        raise TypeError(f"Phi has {P.shape[0]} rows but tau has {t.shape[0]} entries; they must match")
    return P, t


def check_hopfield_connections(W: Any, I: Any, Phi: Any, tau: Any) -> bool:
    """Check the connection matrix and biases of the estimator network (chapter 5, ex. 1).

    Expected: ``W = -Phi'Phi / r`` and ``I = Phi'tau / r`` with ``r`` the number of rows.

    Parameters
    ----------
    W : array_like, shape (p, p)
        The student's connection matrix.
    I : array_like, shape (p,)
        The student's bias vector.
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
        If an argument is not a finite numeric array of the right number of dimensions, or
        ``Phi`` and ``tau`` do not match.

    Examples
    --------
    >>> import numpy as np
    >>> Phi, tau = np.array([[1.0, 0.0], [1.0, 1.0]]), np.array([1.0, 3.0])
    >>> check_hopfield_connections(-Phi.T @ Phi / 2, Phi.T @ tau / 2, Phi, tau)
    ✔ W = -Phi'Phi/r is symmetric negative definite and W S + I = 0 are the normal equations
    True
    """
    P, t = _problem(Phi, tau)
    Wm = _array("W", W, 2)
    Iv = _array("I", I, 1)
    r, p = P.shape
    if Wm.shape != (p, p) or Iv.shape != (p,):
        return _report(False, f"W must have shape ({p}, {p}) and I shape ({p},), got {Wm.shape} and {Iv.shape}")
    A = P.T @ P / r
    b = P.T @ t / r

    def close(x: np.ndarray, y: np.ndarray) -> bool:
        return bool(np.allclose(x, y, rtol=1e-9, atol=1e-12 * max(1.0, float(np.max(np.abs(y))))))

    w_ok, i_ok = close(Wm, -A), close(Iv, b)
    if w_ok and i_ok:
        return _report(True, "W = -Phi'Phi/r is symmetric negative definite and W S + I = 0 are the normal equations")
    if close(Wm, A):
        return _report(False, "sign of W: it must be -Phi'Phi/r (negative semi-definite), or the network climbs the cost")
    if close(Wm, -A * r) and close(Iv, b * r):
        return _report(False, "these are the raw sums (scale='sum'); the book divides both by the number of rows r")
    if w_ok and close(Iv, -b):
        return _report(False, "sign of I: it must be +Phi'tau/r, so that W S + I = Phi'(tau - Phi S)/r")
    if not w_ok:
        return _report(False, "W is not -Phi'Phi/r")
    return _report(False, "I is not Phi'tau/r")


def check_slowest_time_constant(value: Any, Phi: Any, alpha: Any, beta: Any) -> bool:
    """Check the slowest time constant of the network started from rest (chapter 5, ex. 2).

    Linearised at ``S = 0`` (where ``dS/du = alpha / beta``) the network is
    ``dS/dt = -(alpha/beta) A (S - S*)`` with ``A = Phi'Phi / r``, so its slowest time
    constant is ``beta / (alpha lambda_min(A))``.

    Parameters
    ----------
    value : float
        The student's time constant, in seconds of network time.
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
        On malformed input, ``alpha <= 0``, ``beta <= 0`` or a rank-deficient ``Phi``.

    Examples
    --------
    >>> import numpy as np
    >>> Phi = np.diag([1.0, 2.0])            # A = diag(0.5, 2)
    >>> check_slowest_time_constant(4.0, Phi, alpha=2.0, beta=4.0)
    ✔ beta / (alpha lambda_min) = 4 s: the weakest excited direction sets the convergence time
    True
    """
    v = _scalar("value", value)
    P = _array("Phi", Phi, 2)
    a = _scalar("alpha", alpha)
    b = _scalar("beta", beta)
    if a <= 0 or b <= 0:
        raise TypeError(f"alpha and beta must be positive, got alpha={a}, beta={b}")
    lam = np.sort(np.linalg.svd(P, compute_uv=False) ** 2 / P.shape[0])
    if P.shape[0] < P.shape[1] or lam[0] <= lam[-1] * max(P.shape) * np.finfo(float).eps:
        raise TypeError("Phi is rank deficient: some direction is never excited and its time constant is infinite")
    expected = b / (a * lam[0])
    if math.isclose(v, expected, rel_tol=0.01):
        return _report(True, f"beta / (alpha lambda_min) = {expected:.4g} s: the weakest excited direction sets the convergence time")
    if math.isclose(v, b / (a * lam[-1]), rel_tol=0.01):
        return _report(False, f"{v:.4g} s is the *fastest* time constant (lambda_max); the slowest uses lambda_min")
    if math.isclose(v, 1.0 / lam[0], rel_tol=0.01):
        return _report(False, "you forgot the neuron gain dS/du = alpha / beta at S = 0")
    if math.isclose(v, a / (b * lam[0]), rel_tol=0.01):
        return _report(False, "the gain is alpha / beta, so the time constant is beta / (alpha lambda_min), not the inverse")
    return _report(False, f"{v:.4g} s is not beta / (alpha lambda_min(Phi'Phi/r)) = {expected:.4g} s")


def check_tracking(
    t: Any, S: Any, t_change: Any, theta_after: Any, settle: Any = 1.5, tol: Any = 0.05
) -> bool:
    """Check that an on-line estimate has settled on new parameter values (chapter 5, ex. 3).

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
        On malformed or mismatched arrays, non-increasing ``t``, non-positive ``settle`` or
        ``tol``, or an all-zero ``theta_after``.

    Examples
    --------
    >>> import numpy as np
    >>> t = np.linspace(0.0, 4.0, 81)
    >>> S = np.where(t[:, None] < 2.5, [1.0, 1.0], [2.0, 1.0])     # settles 0.5 s after the change
    >>> check_tracking(t, S, t_change=2.0, theta_after=[2.0, 1.0], settle=1.0)
    ✔ within 5 % of the new values from t = 3 s on (largest error 0 %)
    True
    """
    tt = _array("t", t, 1)
    SS = _array("S", S, 2)
    th = _array("theta_after", theta_after, 1)
    tc = _scalar("t_change", t_change)
    st = _scalar("settle", settle)
    tl = _scalar("tol", tol)
    if SS.shape != (tt.size, th.size):
        raise TypeError(f"S must have shape (len(t), len(theta_after)) = ({tt.size}, {th.size}), got {SS.shape}")
    if tt.size > 1 and np.any(np.diff(tt) <= 0):
        raise TypeError("t must be strictly increasing")
    if st <= 0 or tl <= 0:
        raise TypeError(f"settle and tol must be positive, got settle={st}, tol={tl}")
    norm = float(np.linalg.norm(th))
    if norm == 0.0:
        raise TypeError("theta_after is all zeros: a relative error is undefined")
    after = tt >= tc + st
    if not np.any(after):
        return _report(False, f"no estimate at or after t_change + settle = {tc + st:g} s: run the network longer")
    err = np.linalg.norm(SS[after] - th, axis=1) / norm
    worst = int(np.argmax(err))
    if err[worst] <= tl:
        return _report(True, f"within {100 * tl:g} % of the new values from t = {tc + st:g} s on (largest error {100 * err[worst]:.2g} %)")
    return _report(
        False,
        f"at t = {tt[after][worst]:.3g} s the error is {100 * err[worst]:.3g} % (> {100 * tl:g} %): forget faster "
        "(smaller forgetting factor) or make the network faster (smaller beta), but not so fast that noise dominates",
    )
