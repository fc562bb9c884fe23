"""Checks of the exercises of chapter 3 (least-squares identification).

Every check prints one line, ✔ or ✘ with what to do next, and returns ``True`` or ``False``.
It never raises because of the answer (an untouched stub, a function returning ``None``, a
wrong shape or dtype all give ✘); answers may be lists or arrays of any real dtype.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ._report import as_answer_array, call_answer, data_number, report, stored_answers, student_check

__all__ = ["check_augmented_qr", "check_rel_std", "check_joint_sigmas", "check_experiment_duration"]


def _callable(func: Any, what: str) -> bool:
    """A non-function answer is a wrong answer, not an error of the check."""
    if callable(func):
        return True
    return report(False, f"pass your function itself, {what}; got {type(func).__name__} {func!r}")


@student_check("Build [W y], take its R factor with scipy.linalg.qr(..., mode='r') and solve "
               "the leading triangular block; the residual norm is the last diagonal entry.")
def check_augmented_qr(func: Callable[[np.ndarray, np.ndarray], tuple]) -> bool:
    """Check a least-squares solver built on the R factor of ``[W y]`` (chapter 3, exercise 1).

    The answer must return ``(b, rnorm)``: the least-squares solution and the norm of the
    residual ``||y - W b||``, both read from the triangular factor of the augmented matrix
    ``[W y]``. It is tested on a well-conditioned problem and on one with
    ``cond(W) = 1e7``, where an orthogonal factorisation keeps the relative error near
    ``cond * eps`` (about 1e-9) but the normal equations lose about ``cond^2 * eps`` (1e-2):
    the tolerances, 1e-10 and 1e-6 on ``b`` and 1e-6 (relative) on ``rnorm``, sit between the
    two.

    Parameters
    ----------
    func : callable
        ``func(W, y)`` with ``W`` of shape (m, p), ``y`` of shape (m,), returning
        ``(b, rnorm)``, ``b`` of shape (p,) and ``rnorm`` a float.

    Returns
    -------
    bool
        Whether the answer is right (a message says what is wrong otherwise).

    Examples
    --------
    >>> check_augmented_qr(lambda W, y: None)
    ✘ your function returned None: did you forget `return`?
    False
    """
    if not _callable(func, "e.g. check_augmented_qr(solve_augmented)"):
        return False
    for case in stored_answers("least_squares")["augmented_qr"]:
        label, cond, tol, r_ref = case["label"], case["cond"], case["tol"], case["rnorm"]
        W, y, b_ref = np.array(case["W"]), np.array(case["y"]), np.array(case["b"])
        p = W.shape[1]
        ok, out = call_answer(func, W.copy(), y.copy())
        if not ok:
            return report(False, out)
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            return report(False, "return a pair (b, rnorm): the solution and the residual norm")
        ok, b = as_answer_array(out[0], "b", shape=(p,))
        if not ok:
            return report(False, b)
        ok, rnorm = as_answer_array(out[1], "rnorm", shape=())
        if not ok:
            return report(False, rnorm)
        rel = np.linalg.norm(b - b_ref) / np.linalg.norm(b_ref)
        if rel > tol:
            hint = (" - that is the accuracy of the normal equations (cond^2 eps): use the R factor, not W'W"
                    if cond > 1e3 and rel < 1.0 else "")
            return report(False, f"b is off by {rel:.2g} (relative) on {label}{hint}")
        if not np.isclose(abs(float(rnorm)), r_ref, rtol=1e-6, atol=1e-12):
            return report(False, f"rnorm should be ||y - W b|| = {r_ref:.6g} on {label}, got {float(rnorm):.6g}")
    return report(True, "b and ||y - W b|| are right, also for cond(W) = 1e7")


@student_check("Solve by SVD or QR, estimate s^2 = ||y - W b||^2 / (Nn - r), take the diagonal of "
               "s^2 (W'W)^-1 (from V S^-2 V'), and return 100 sqrt(diag) / |b|.")
def check_rel_std(func: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> bool:
    """Check relative standard deviations ``%sigma`` computed by hand (chapter 3, exercise 2).

    ``%sigma_i = 100 sigma_i / |b_i|`` with ``sigma_i^2`` the diagonal of
    ``s^2 (W'W)^-1`` and ``s^2 = ||y - W b||^2 / (Nn - r)`` (``Nn`` rows, ``r`` columns). The
    exercise asks for four significant digits: the tolerance is ``1e-4`` relative (a float32
    computation passes too).

    Parameters
    ----------
    func : callable
        ``func(W, y)`` returning an array of shape (p,) in percent.

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> check_rel_std(lambda W, y: np.ones(W.shape[1] + 1))
    ✘ the result must have shape (3,), got (4,)
    False
    """
    if not _callable(func, "e.g. check_rel_std(rel_std)"):
        return False
    rtol = 1e-4
    for case in stored_answers("least_squares")["rel_std"]:
        W, y, expected = np.array(case["W"]), np.array(case["y"]), np.array(case["expected"])
        slips = {k: np.array(v) for k, v in case["slips"].items()}
        m, p = W.shape
        ok, out = call_answer(func, W.copy(), y.copy())
        if not ok:
            return report(False, out)
        ok, got = as_answer_array(out, "the result", shape=(p,))
        if not ok:
            return report(False, got)
        close = lambda a, b_: np.allclose(a, b_, rtol=rtol, atol=0.0)  # noqa: E731
        if close(got, slips["fraction"]):
            return report(False, "multiply by 100: %sigma is in percent")
        if close(got, slips["rows"]):
            return report(False, "divide the residual sum of squares by Nn - r (rows minus parameters), not by the rows")
        if close(got, slips["variance"]):
            return report(False, "take the square root of the variance before dividing by |b|")
        if not close(got, expected):
            return report(False, f"expected {np.round(expected, 4)} on a {m}x{p} problem, got {np.round(got, 4)}")
    return report(True, "the relative standard deviations are right")


@student_check("Solve OLS on the whole system, reshape the residual to (N, n_joints) and divide "
               "each column's sum of squares by N - r before taking the square root.")
def check_joint_sigmas(func: Callable[[np.ndarray, np.ndarray, int], np.ndarray]) -> bool:
    """Check per-joint noise standard deviations from OLS residuals (chapter 3, exercise 3).

    With the sample-major stacking of the book (row ``k n + j`` is joint ``j`` of sample
    ``k``), ``sigma_j^2 = ||y_j - W_j b||^2 / (N - r)`` where ``b`` is the OLS estimate of the
    whole system, ``N`` the number of rows of joint ``j`` and ``r`` the number of columns
    (Gautier and Poignet 2001). Tolerance ``1e-4`` relative (four significant digits).

    Parameters
    ----------
    func : callable
        ``func(W, y, n_joints)`` returning an array of shape (n_joints,).

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> check_joint_sigmas(lambda W, y, n_joints: np.ones(n_joints + 1))
    ✘ the result must have shape (2,), got (3,)
    False
    """
    if not _callable(func, "e.g. check_joint_sigmas(joint_sigmas)"):
        return False
    rtol = 1e-4
    for case in stored_answers("least_squares")["joint_sigmas"]:
        W, y, n, expected = np.array(case["W"]), np.array(case["y"]), int(case["n"]), np.array(case["expected"])
        slips = {k: np.array(v) for k, v in case["slips"].items()}
        ok, out = call_answer(func, W.copy(), y.copy(), n)
        if not ok:
            return report(False, out)
        ok, got = as_answer_array(out, "the result", shape=(n,))
        if not ok:
            return report(False, got)
        close = lambda a, b_: np.allclose(a, b_, rtol=rtol, atol=0.0)  # noqa: E731
        if close(got, slips["variance"]):
            return report(False, "return standard deviations (the square root of the variances)")
        if close(got, slips["rows"]) or close(got, slips["rows_minus_one"]):
            return report(False, "divide by N - r (rows of the joint minus number of parameters)")
        if close(np.sort(got), np.sort(expected)) and not close(got, expected):
            return report(False, "the joints are mixed up: joint j owns the rows j, j + n, j + 2n, ... (y[j::n])")
        if not close(got, expected):
            return report(False, f"expected {np.round(expected, 4)} for {n} joints, got {np.round(got, 4)}")
    return report(True, "the per-joint sigmas are right")


@student_check("The variance in the weakest direction is sigma^2 / (N lambda_min): equal "
               "variances need N_poor lambda_poor = N_rich lambda_rich.")
def check_experiment_duration(duration: Any, lam_rich: float, lam_poor: float, t_rich: float) -> bool:
    """Check the duration a poorly exciting experiment needs (chapter 3, exercise 4).

    For periodic motions ``W'W ~ N * mean(W_k' W_k)``, so the variance of the estimate in the
    weakest direction is ``sigma^2 / (N lambda_min)``. The poor experiment matches the rich
    one when ``N_poor lambda_poor = N_rich lambda_rich``; the answer, a duration in seconds,
    is accepted within 1 % (the eigenvalues are read off a running mean).

    Parameters
    ----------
    duration : float
        The student's answer, in s.
    lam_rich, lam_poor : float
        Smallest eigenvalues of ``W'W / N`` of the rich and the poor trajectory (> 0).
    t_rich : float
        Duration of the rich experiment, in s (> 0).

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        A value of the wrong type (text, a bool, complex numbers) where the chapter's data or
        numbers are meant (a misuse of the check; a wrong *answer* is reported, not raised).
    ValueError
        If ``lam_rich``, ``lam_poor`` or ``t_rich`` is not a positive finite number (a misuse
        of the check, not a wrong answer).

    Examples
    --------
    >>> check_experiment_duration(10.0, lam_rich=1e-2, lam_poor=1e-4, t_rich=5.0)
    ✘ 10 s is too short: compare N lambda_min of the two experiments
    False
    """
    given = {}
    for name, v in (("lam_rich", lam_rich), ("lam_poor", lam_poor), ("t_rich", t_rich)):
        given[name] = data_number(name, v, positive=True)
    ok, d = as_answer_array(duration, "duration", shape=())
    if not ok:
        return report(False, d)
    d = float(d)
    ratio = given["lam_rich"] / given["lam_poor"]
    expected = given["t_rich"] * ratio
    close = lambda a: abs(a / expected - 1) < 0.01  # noqa: E731
    if d > 0 and close(d * d / given["t_rich"]):
        return report(False, "you scaled with the square root of the eigenvalue ratio: equal standard "
                             "deviations need equal variances, and the variance goes like 1 / (N lambda_min)")
    if d > 0 and close(given["t_rich"] ** 2 / d):
        return report(False, "the ratio is upside down: the poor trajectory has the smaller eigenvalue, so it needs more data")
    if not close(d):
        side = "too short" if d < expected else "too long"
        return report(False, f"{d:.4g} s is {side}: compare N lambda_min of the two experiments")
    return report(True, f"{d:.4g} s, that is {d / 86400:.3g} days of continuous motion")
