"""Checks of the exercises of chapter 4 (Adaline).

Every check prints one line of feedback (a tick or a cross and what is wrong) and returns
``True`` or ``False``; a malformed answer (not a number, not callable, not an array of
numbers) raises ``TypeError``.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from ._report import report as _report

__all__ = [
    "check_stable_rate",
    "check_delta_rule_epoch",
    "check_epoch_prediction",
]


def _matrix(name: str, W: Any) -> np.ndarray:
    """``W`` as a finite 2-D float array with at least one row and column, else TypeError."""
    if isinstance(W, (str, bytes)):
        raise TypeError(f"{name} must be a 2-D array of numbers, got {type(W).__name__}")
    try:
        A = np.asarray(W, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a 2-D array of numbers, got {type(W).__name__}") from None
    if A.ndim != 2 or A.size == 0:
        raise TypeError(f"{name} must be a non-empty 2-D array (rows = samples), got shape {A.shape}")
    if not np.all(np.isfinite(A)):
        raise TypeError(f"{name} must contain finite numbers only (no NaN or inf)")
    if not np.any(A):
        raise TypeError(f"{name} is identically zero: there is nothing to learn")
    return A


def _scalar(name: str, x: Any) -> float:
    """``x`` as a finite real scalar, else TypeError."""
    if isinstance(x, (bool, np.bool_, str, bytes)) or np.ndim(x) != 0:
        raise TypeError(f"{name} must be a real number, got {type(x).__name__}")
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real number, got {type(x).__name__}") from None
    if not math.isfinite(v):
        raise TypeError(f"{name} must be a finite number, got {v}")
    return v


def _eigs(W: np.ndarray) -> np.ndarray:
    """Eigenvalues of ``W'W / N`` (ascending) from the singular values of ``W``."""
    s = np.linalg.svd(W, compute_uv=False)
    return np.sort(s**2 / W.shape[0])


def check_stable_rate(W: Any, rate: Any) -> bool:
    """Check the largest stable learning rate of batch Adaline (chapter 4, exercise 1).

    The expected value is ``2 / lambda_max(W'W / N)``, ``N`` the number of rows of ``W``.

    Parameters
    ----------
    W : array_like, shape (N, p)
        The regressor the rate is meant for.
    rate : float
        The student's bound.

    Returns
    -------
    bool
        True if ``rate`` is within 1e-6 (relative) of the bound.

    Raises
    ------
    TypeError
        If ``W`` is not a finite, non-zero 2-D numeric array or ``rate`` is not a real number.

    Examples
    --------
    >>> import numpy as np
    >>> check_stable_rate(np.array([[1.0, 0.0], [0.0, 2.0]]), 1.0)
    ✔ 2 / lambda_max(W'W/N) = 1: rates below converge, rates above diverge
    True
    """
    A = _matrix("W", W)
    r = _scalar("rate", rate)
    lam = _eigs(A)
    expected = 2.0 / lam[-1]
    if math.isclose(r, expected, rel_tol=1e-6):
        return _report(True, f"2 / lambda_max(W'W/N) = {expected:.6g}: rates below converge, rates above diverge")
    if math.isclose(r, expected / 2.0, rel_tol=1e-6):
        return _report(False, f"{r:.6g} is 1 / lambda_max: the bound is 2 / lambda_max(W'W/N)")
    if math.isclose(r, 2.0 / (lam[-1] * A.shape[0]), rel_tol=1e-6):
        return _report(False, f"{r:.6g} uses W'W without dividing by N = {A.shape[0]}: the cost is the *mean* squared error")
    if math.isclose(r, 2.0 / lam[0], rel_tol=1e-6):
        return _report(False, f"{r:.6g} uses the smallest eigenvalue: stability is decided by the largest one")
    return _report(False, f"{r:.6g} is not 2 / lambda_max(W'W/N) = {expected:.6g}")


def check_delta_rule_epoch(func: Callable[[np.ndarray, np.ndarray, np.ndarray, float], Any]) -> bool:
    """Check one epoch of the delta (Widrow-Hoff, LMS) rule (chapter 4, exercise 2).

    ``func(w, W, d, gamma)`` must present the rows of ``W`` in order and, after each row
    ``x_k``, update ``w <- w + gamma (d_k - x_k . w) x_k``; it returns the final weights and
    does not modify its argument ``w``.

    Parameters
    ----------
    func : callable
        ``func(w, W, d, gamma)`` with ``w`` (p,), ``W`` (N, p), ``d`` (N,), ``gamma`` float,
        returning an array of shape (p,).

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
    >>> def epoch(w, W, d, gamma):
    ...     w = np.array(w, dtype=float)
    ...     for x, dk in zip(W, d):
    ...         w = w + gamma * (dk - x @ w) * x
    ...     return w
    >>> check_delta_rule_epoch(epoch)
    ✔ one delta-rule step per row, in order: this is the Widrow-Hoff (LMS) rule
    True
    """
    if not callable(func):
        raise TypeError(f"func must be a function of (w, W, d, gamma), got {type(func).__name__}")
    rng = np.random.default_rng(20261201)
    N, p = 12, 3
    W = rng.normal(size=(N, p))
    d = rng.normal(size=N)
    w0 = rng.normal(size=p)
    gamma = 0.05

    expected = w0.copy()
    for x, dk in zip(W, d):
        expected = expected + gamma * (dk - x @ expected) * x
    batch = w0 + gamma * W.T @ (d - W @ w0)
    batch_mean = w0 + gamma * W.T @ (d - W @ w0) / N
    wrong_sign = w0.copy()
    for x, dk in zip(W, d):
        wrong_sign = wrong_sign - gamma * (dk - x @ wrong_sign) * x

    w_arg = w0.copy()
    try:
        got = np.asarray(func(w_arg, W.copy(), d.copy(), gamma), dtype=float)
    except Exception as exc:  # the student's code failed: say how
        return _report(False, f"your function raised {type(exc).__name__}: {exc}")
    if got.shape != (p,):
        return _report(False, f"the function must return the {p} weights, shape ({p},), got shape {got.shape}")
    if not np.all(np.isfinite(got)):
        return _report(False, "the returned weights contain NaN or inf")
    if not np.array_equal(w_arg, w0):
        return _report(False, "the function modified its argument w in place: copy it first (w = np.array(w, dtype=float))")
    if np.allclose(got, expected, rtol=1e-10, atol=1e-12):
        return _report(True, "one delta-rule step per row, in order: this is the Widrow-Hoff (LMS) rule")
    if np.allclose(got, batch, rtol=1e-10, atol=1e-12) or np.allclose(got, batch_mean, rtol=1e-10, atol=1e-12):
        return _report(False, "that is one batch gradient step: the delta rule updates w after *each* row, using the new w")
    if np.allclose(got, wrong_sign, rtol=1e-10, atol=1e-12):
        return _report(False, "wrong sign: the error is e = d_k - x_k . w and the step is + gamma e x_k (downhill)")
    return _report(False, "the weights differ from w <- w + gamma (d_k - x_k . w) x_k applied row after row")


def check_epoch_prediction(W: Any, epochs: Any, tol: float = 1e-6) -> bool:
    """Check a predicted number of epochs of batch gradient descent (chapter 4, exercise 3).

    With the rate ``gamma = 1 / lambda_max(W'W/N)`` the slowest error component shrinks by
    ``1 - lambda_min / lambda_max`` per epoch, so it takes
    ``k = ceil(log(tol) / log(1 - lambda_min / lambda_max))`` epochs to shrink it by ``tol``.

    Parameters
    ----------
    W : array_like, shape (N, p)
        Regressor (full column rank).
    epochs : int or float
        The predicted number of epochs.
    tol : float, default 1e-6
        Factor by which the slowest error component must shrink, in ]0, 1[.

    Returns
    -------
    bool
        True if ``epochs`` is within 2 % (or one epoch) of ``k``.

    Raises
    ------
    TypeError
        If ``W`` or ``epochs`` is malformed, ``tol`` is not in ]0, 1[, or ``W`` is rank
        deficient (then the slowest component never decays).

    Examples
    --------
    >>> import numpy as np
    >>> W = np.diag([1.0, 10.0])            # lambda = 0.5 and 50: contraction 0.99 per epoch
    >>> check_epoch_prediction(W, 1375)
    ✔ 1375 epochs: the slowest mode shrinks by 1 - 1/kappa = 0.99 per epoch (kappa = 100)
    True
    """
    A = _matrix("W", W)
    k_student = _scalar("epochs", epochs)
    t = _scalar("tol", tol)
    if not 0.0 < t < 1.0:
        raise TypeError(f"tol must be in ]0, 1[, got {t}")
    lam = _eigs(A)
    if lam[0] <= lam[-1] * max(A.shape) * np.finfo(float).eps:
        raise TypeError("W is rank deficient: lambda_min = 0 and the slowest component never decays")
    kappa = lam[-1] / lam[0]
    rho = 1.0 - 1.0 / kappa
    if rho <= 0.0:  # every eigenvalue equal: one step of rate 1/lambda is exact
        k = 1
    else:
        k = math.ceil(math.log(t) / math.log(rho))
    if abs(k_student - k) <= max(1.0, 0.02 * k):
        return _report(True, f"{k} epochs: the slowest mode shrinks by 1 - 1/kappa = {rho:.4g} per epoch (kappa = {kappa:.4g})")
    k_cond = math.ceil(math.log(t) / math.log(1.0 - 1.0 / math.sqrt(kappa))) if kappa > 1 else 1
    if abs(k_student - k_cond) <= max(1.0, 0.02 * k_cond):
        return _report(False, "you used cond(W); the rate is set by kappa = lambda_max / lambda_min of W'W, i.e. cond(W)^2")
    return _report(
        False,
        f"{k_student:g} epochs is not right (expected about {k}): the slowest component is multiplied by "
        "1 - gamma lambda_min per epoch",
    )
