"""Checks of the exercises of chapter 3 (least-squares identification)."""

from __future__ import annotations

from typing import Callable

import numpy as np

from ._report import report as _report

__all__ = ["check_augmented_qr", "check_rel_std", "check_joint_sigmas"]


def _callable(func, what: str) -> None:
    if not callable(func):
        raise TypeError(f"func must be a function of {what}, got {type(func).__name__}")


def _problem(rng: np.random.Generator, m: int, p: int, cond: float, noise: float) -> tuple[np.ndarray, np.ndarray]:
    """``W`` (m x p) with singular values from 1 down to ``1/cond`` and ``y = W 1 + noise``."""
    U, _ = np.linalg.qr(rng.standard_normal((m, p)))
    V, _ = np.linalg.qr(rng.standard_normal((p, p)))
    W = (U * np.logspace(0, -np.log10(cond), p)) @ V.T
    return W, W @ np.ones(p) + noise * rng.standard_normal(m)


def _call(func, *args):
    """Call the student's function; return (result, None) or (None, message)."""
    try:
        return func(*args), None
    except Exception as exc:  # the student's code failed: say how
        return None, f"your function raised {type(exc).__name__}: {exc}"


def _vector(value, p: int, what: str):
    try:
        v = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None, f"{what} must be an array of {p} numbers, got {type(value).__name__}"
    if v.shape != (p,):
        return None, f"{what} must have shape ({p},), got {v.shape}"
    if not np.all(np.isfinite(v)):
        return None, f"{what} contains NaN or inf"
    return v, None


def check_augmented_qr(func: Callable[[np.ndarray, np.ndarray], tuple]) -> bool:
    """Check a least-squares solver built on the R factor of ``[W y]`` (chapter 3, exercise 1).

    The answer must return ``(b, rnorm)``: the least-squares solution and the norm of the
    residual ``||y - W b||``, both read from the triangular factor of the augmented matrix
    ``[W y]``.  It is tested on a well-conditioned problem and on one with
    ``cond(W) = 1e7``, where an orthogonal factorisation keeps the error near
    ``cond * eps`` but the normal equations lose about ``cond^2 * eps``.

    Parameters
    ----------
    func : callable
        ``func(W, y)`` with ``W`` of shape (m, p), ``y`` of shape (m,), returning
        ``(b, rnorm)``, ``b`` of shape (p,) and ``rnorm`` a float.

    Returns
    -------
    bool
        Whether the answer is right (a message says what is wrong otherwise).

    Raises
    ------
    TypeError
        If ``func`` is not callable.

    Examples
    --------
    >>> import numpy as np, scipy.linalg
    >>> def solve(W, y):
    ...     R = scipy.linalg.qr(np.column_stack([W, y]), mode="r")[0]
    ...     p = W.shape[1]
    ...     return scipy.linalg.solve_triangular(R[:p, :p], R[:p, p]), abs(R[p, p])
    >>> check_augmented_qr(solve)
    ✔ b and ||y - W b|| are right, also for cond(W) = 1e7
    True
    """
    _callable(func, "(W, y)")
    rng = np.random.default_rng(20261203)
    for label, (m, p, cond, noise, tol) in {
        "a well-conditioned problem": (40, 4, 10.0, 0.1, 1e-10),
        "cond(W) = 1e7": (120, 6, 1e7, 1e-6, 1e-6),
    }.items():
        W, y = _problem(rng, m, p, cond, noise)
        b_ref, *_ = np.linalg.lstsq(W, y, rcond=None)
        r_ref = np.linalg.norm(y - W @ b_ref)
        out, err = _call(func, W.copy(), y.copy())
        if err:
            return _report(False, err)
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            return _report(False, "return a pair (b, rnorm): the solution and the residual norm")
        b, err = _vector(out[0], p, "b")
        if err:
            return _report(False, err)
        try:
            rnorm = float(out[1])
        except (TypeError, ValueError):
            return _report(False, f"rnorm must be a number, got {type(out[1]).__name__}")
        rel = np.linalg.norm(b - b_ref) / np.linalg.norm(b_ref)
        if rel > tol:
            hint = (" - that is the accuracy of the normal equations (cond^2 eps): use the R factor, not W'W"
                    if cond > 1e3 and rel < 1.0 else "")
            return _report(False, f"b is off by {rel:.2g} (relative) on {label}{hint}")
        if not np.isclose(abs(rnorm), r_ref, rtol=1e-6, atol=1e-12):
            return _report(False, f"rnorm should be ||y - W b|| = {r_ref:.6g} on {label}, got {rnorm:.6g}")
    return _report(True, "b and ||y - W b|| are right, also for cond(W) = 1e7")


def check_rel_std(func: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> bool:
    """Check relative standard deviations ``%sigma`` computed by hand (chapter 3, exercise 2).

    ``%sigma_i = 100 sigma_i / |b_i|`` with ``sigma_i^2`` the diagonal of
    ``s^2 (W'W)^-1`` and ``s^2 = ||y - W b||^2 / (r - p)`` (``r`` rows, ``p`` columns).

    Parameters
    ----------
    func : callable
        ``func(W, y)`` returning an array of shape (p,) in percent.

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
    >>> def rel_std(W, y):
    ...     b, *_ = np.linalg.lstsq(W, y, rcond=None)
    ...     s2 = np.sum((y - W @ b) ** 2) / (W.shape[0] - W.shape[1])
    ...     return 100 * np.sqrt(s2 * np.diag(np.linalg.inv(W.T @ W))) / np.abs(b)
    >>> check_rel_std(rel_std)
    ✔ the relative standard deviations are right
    True
    """
    _callable(func, "(W, y)")
    rng = np.random.default_rng(20261204)
    for m, p in ((12, 3), (60, 5)):
        W = rng.standard_normal((m, p)) * np.logspace(0, 1, p)
        b_true = rng.uniform(0.5, 2.0, p)
        y = W @ b_true + 0.3 * rng.standard_normal(m)
        b, *_ = np.linalg.lstsq(W, y, rcond=None)
        res = y - W @ b
        dof = m - p
        Uw, s, Vt = np.linalg.svd(W, full_matrices=False)
        var = (res @ res) / dof * np.sum((Vt.T / s) ** 2, axis=1)
        expected = 100 * np.sqrt(var) / np.abs(b)
        out, err = _call(func, W.copy(), y.copy())
        if err:
            return _report(False, err)
        got, err = _vector(out, p, "the result")
        if err:
            return _report(False, err)
        if np.allclose(got, expected / 100, rtol=1e-6):
            return _report(False, "multiply by 100: %sigma is in percent")
        if np.allclose(got, expected * np.sqrt(dof / m), rtol=1e-6):
            return _report(False, "divide the residual sum of squares by r - p (the degrees of freedom), not by r")
        if np.allclose(got, 100 * var / np.abs(b), rtol=1e-6):
            return _report(False, "take the square root of the variance before dividing by |b|")
        if not np.allclose(got, expected, rtol=1e-6):
            return _report(False, f"expected {np.round(expected, 4)} on a {m}x{p} problem, got {np.round(got, 4)}")
    return _report(True, "the relative standard deviations are right")


def check_joint_sigmas(func: Callable[[np.ndarray, np.ndarray, int], np.ndarray]) -> bool:
    """Check per-joint noise standard deviations from OLS residuals (chapter 3, exercise 3).

    With the sample-major stacking of the book (row ``k n + j`` is joint ``j`` of sample
    ``k``), ``sigma_j^2 = ||y_j - W_j b||^2 / (r_j - c)`` where ``b`` is the OLS estimate
    of the whole system, ``r_j`` the number of rows of joint ``j`` and ``c`` the number
    of columns (Gautier and Poignet 2001).

    Parameters
    ----------
    func : callable
        ``func(W, y, n_joints)`` returning an array of shape (n_joints,).

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
    >>> def sigmas(W, y, n_joints):
    ...     b, *_ = np.linalg.lstsq(W, y, rcond=None)
    ...     res = (y - W @ b).reshape(-1, n_joints)
    ...     return np.sqrt(np.sum(res ** 2, axis=0) / (res.shape[0] - W.shape[1]))
    >>> check_joint_sigmas(sigmas)
    ✔ the per-joint sigmas are right
    True
    """
    _callable(func, "(W, y, n_joints)")
    rng = np.random.default_rng(20261205)
    for n, N, p, sig in ((2, 40, 5, (1.0, 0.1)), (3, 30, 4, (0.2, 2.0, 0.5))):
        W = rng.standard_normal((N * n, p))
        y = W @ rng.uniform(-1, 1, p) + np.tile(sig, N) * rng.standard_normal(N * n)
        b, *_ = np.linalg.lstsq(W, y, rcond=None)
        res = (y - W @ b).reshape(N, n)
        ss = np.sum(res**2, axis=0)
        expected = np.sqrt(ss / (N - p))
        out, err = _call(func, W.copy(), y.copy(), n)
        if err:
            return _report(False, err)
        got, err = _vector(out, n, "the result")
        if err:
            return _report(False, err)
        if np.allclose(got, expected**2, rtol=1e-6):
            return _report(False, "return standard deviations (the square root of the variances)")
        if np.allclose(got, np.sqrt(ss / N), rtol=1e-6) or np.allclose(got, np.sqrt(ss / (N - 1)), rtol=1e-6):
            return _report(False, "divide by r_j - c (rows of the joint minus number of parameters)")
        if np.allclose(np.sort(got), np.sort(expected), rtol=1e-6) and not np.allclose(got, expected, rtol=1e-6):
            return _report(False, "the joints are mixed up: joint j owns the rows j, j + n, j + 2n, ... (y[j::n])")
        if not np.allclose(got, expected, rtol=1e-6):
            return _report(False, f"expected {np.round(expected, 4)} for {n} joints, got {np.round(got, 4)}")
    return _report(True, "the per-joint sigmas are right")
