"""Checks of the exercises of chapter 6 (Adaline).

Every check prints one line of feedback (a tick or a cross and what to do next) and returns
``True`` or ``False``. It never raises because of the answer: an untouched stub, a function
that returns ``None`` or raises, a list, a ``float32`` value, NaN or a wrong shape all get a
✘ with a hint (:mod:`robidlib.checks._report`). Only a misuse of the check itself (data the
chapter passes in that are not a finite matrix, a bad tolerance) raises ``ValueError``.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .._validate import as_array
from ._report import as_answer_array, call_answer, data_number, report, stored_answers, student_check

__all__ = [
    "check_stable_rate",
    "check_delta_rule_epoch",
    "check_epoch_prediction",
    "check_early_stopping",
]

#: an early-stopping budget passes when it cuts the prior's error by at least a fifth.
IMPROVEMENT = 0.8

#: relative tolerance of a number the exercise asks to compute: agreement to about four
#: significant digits, so that a rounded answer (``0.01140``) is accepted.
RATE_RTOL = 1e-3


def _matrix(name: str, W: Any) -> np.ndarray:
    """Problem data ``W`` as a finite, non-zero 2-D float array, else ValueError (misuse)."""
    A = as_array(name, W, finite=False)
    if A.ndim != 2 or A.size == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array (rows = samples), got shape {A.shape}")
    if not np.all(np.isfinite(A)):
        raise ValueError(f"{name} must contain finite numbers only (no NaN or inf)")
    if not np.any(A):
        raise ValueError(f"{name} is identically zero: there is nothing to learn")
    return A


def _eigs(W: np.ndarray) -> np.ndarray:
    """Eigenvalues of ``W'W / N`` (ascending) from the singular values of ``W``."""
    s = np.linalg.svd(W, compute_uv=False)
    return np.sort(s**2 / W.shape[0])


def _scalar_answer(value: Any, what: str) -> tuple[bool, Any]:
    ok, v = as_answer_array(value, what, shape=())
    return (True, float(v)) if ok else (False, v)


def _close(a: float, b: float, rtol: float = RATE_RTOL) -> bool:
    return math.isclose(a, b, rel_tol=rtol)


@student_check("Take the eigenvalues of W'W/N (N = number of rows) and use the largest one.")
def check_stable_rate(W: Any, rate: Any) -> bool:
    """Check the largest stable learning rate of batch Adaline (chapter 6, exercise 1).

    Parameters
    ----------
    W : array_like, shape (N, p)
        The regressor the rate is meant for.
    rate : float
        Your bound (any real number type; give at least four significant digits).

    Returns
    -------
    bool
        True if ``rate`` agrees with the bound to a relative ``1e-3``.

    Raises
    ------
    TypeError
        A value of the wrong type (text, a bool, complex numbers) where the chapter's data or
        numbers are meant (a misuse of the check; a wrong *answer* is reported, not raised).
    ValueError
        If ``W`` is not a finite, non-zero 2-D numeric array (a misuse of the check).

    Examples
    --------
    >>> import numpy as np
    >>> check_stable_rate(np.array([[1.0, 0.0], [0.0, 2.0]]), 1.0)
    ✔ the bound is 1: rates below converge, rates above diverge
    True
    >>> check_stable_rate(np.array([[1.0, 0.0], [0.0, 2.0]]), ...)
    ✘ not answered yet: replace the `...` of the stub. Take the eigenvalues of W'W/N (N = number of rows) and use the largest one.
    False
    """
    A = _matrix("W", W)
    ok, r = _scalar_answer(rate, "rate")
    if not ok:
        return report(False, r)
    lam = _eigs(A)
    expected = 2.0 / lam[-1]
    if _close(r, expected):
        return report(True, f"the bound is {expected:.6g}: rates below converge, rates above diverge")
    if _close(r, expected / 2.0):
        return report(False, f"{r:.6g} is 1 / lambda_max; the bound has a 2 in the numerator")
    if _close(r, 2.0 / (lam[-1] * A.shape[0])):
        return report(False, f"{r:.6g} uses W'W without dividing by N = {A.shape[0]}: the cost is the *mean* squared error")
    if _close(r, 2.0 / lam[0]):
        return report(False, f"{r:.6g} uses the smallest eigenvalue: stability is decided by the largest one")
    if _close(r, 2.0 / float(np.sum(lam))):
        return report(False, f"{r:.6g} is 2 / tr R, the mean-square bound of the sample-by-sample rule; "
                             "batch gradient descent is limited by lambda_max only")
    return report(False, f"{r:.6g} is not the bound (it differs by {100 * abs(r / expected - 1):.3g} %): "
                         "use 2 over the largest eigenvalue of W'W/N")


@student_check("Write the body of delta_rule_epoch: loop over the rows and update w after each one.")
def check_delta_rule_epoch(func: Callable[..., Any]) -> bool:
    """Check one epoch of the delta (Widrow-Hoff, LMS) rule (chapter 6, exercise 2).

    Your ``func(w, W, d, gamma)`` is called on small random data and compared with the rule
    of equation (eq-delta-rule) applied row after row, in the given order (stored results).

    Parameters
    ----------
    func : callable
        ``func(w, W, d, gamma)`` with ``w`` (p,), ``W`` (N, p), ``d`` (N,), ``gamma`` float,
        returning the new weights, shape (p,), without modifying ``w``.

    Returns
    -------
    bool

    Examples
    --------
    >>> check_delta_rule_epoch(lambda w, W, d, gamma: None)
    ✘ your function returned None: did you forget `return`?
    False
    """
    ref = stored_answers("adaline")["delta_rule_epoch"]
    W, d, w0, expected = (np.array(ref[k]) for k in ("W", "d", "w0", "expected"))
    gamma, p = ref["gamma"], W.shape[1]
    batch, batch_mean, wrong_sign = (np.array(ref["slips"][k]) for k in ("batch", "batch_mean", "wrong_sign"))

    w_arg = w0.copy()
    ok, out = call_answer(func, w_arg, W.copy(), d.copy(), gamma)
    if not ok:
        return report(False, out)
    ok, got = as_answer_array(out, "the returned weights", shape=(p,))
    if not ok:
        return report(False, got)
    if not np.array_equal(w_arg, w0):
        return report(False, "the function modified its argument w in place: work on a copy of w")

    def close(a: np.ndarray, b: np.ndarray) -> bool:   # float32 arithmetic passes
        return bool(np.allclose(a, b, rtol=1e-5, atol=1e-7))

    if close(got, expected):
        return report(True, "one delta-rule step per row, in order: this is the Widrow-Hoff (LMS) rule")
    if close(got, batch) or close(got, batch_mean):
        return report(False, "that is one batch gradient step: the delta rule updates w after *each* row, using the new w")
    if close(got, wrong_sign):
        return report(False, "wrong sign: the error is e = d_k - x_k . w and the step goes downhill, along + e x_k")
    return report(False, "the weights differ from the delta rule applied row after row: "
                         "each error must use the weights updated by the previous row")


@student_check("Use the factor 1 - lambda_min/lambda_max per epoch and solve factor**k = tol for k.")
def check_epoch_prediction(W: Any, epochs: Any, tol: float = 1e-6) -> bool:
    """Check a predicted number of epochs of batch gradient descent (chapter 6, exercise 3).

    The rate is ``gamma = 1 / lambda_max(W'W/N)``; the prediction is the number of epochs
    after which the slowest error component has shrunk by the factor ``tol``.

    Parameters
    ----------
    W : array_like, shape (N, p)
        Regressor (full column rank).
    epochs : int or float
        Your predicted number of epochs.
    tol : float, default 1e-6
        Factor by which the slowest error component must shrink, in ]0, 1[.

    Returns
    -------
    bool
        True if ``epochs`` is within one epoch of the exact count
        ``ceil(ln(tol) / ln(1 - 1/kappa))`` (so that rounding down, or the unrounded value,
        pass).  The approximation ``kappa ln(1/tol)``, which the exercise forbids, is refused
        with a hint whenever it differs from the exact count by more than two epochs: it is
        about ``ln(1/tol) / 2`` epochs too large (7 for ``tol = 1e-6``) whatever ``kappa``.

    Raises
    ------
    TypeError
        A value of the wrong type (text, a bool, complex numbers) where the chapter's data or
        numbers are meant (a misuse of the check; a wrong *answer* is reported, not raised).
    ValueError
        If ``W`` is malformed or rank deficient, or ``tol`` is not in ]0, 1[ (misuse).

    Examples
    --------
    >>> import numpy as np
    >>> W = np.diag([1.0, 10.0])            # lambda = 0.5 and 50: contraction 0.99 per epoch
    >>> check_epoch_prediction(W, 1375)
    ✔ 1375 epochs: the slowest mode shrinks by 1 - 1/kappa = 0.99 per epoch (kappa = 100)
    True
    >>> check_epoch_prediction(W, 100 * np.log(1e6))        # kappa ln(1/tol) = 1381.6
    ✘ that is the approximation kappa ln(1/tol); use the exact factor 1 - 1/kappa per epoch, k = ln(tol) / ln(1 - 1/kappa)
    False
    """
    A = _matrix("W", W)
    t = data_number("tol", tol)
    if not 0.0 < t < 1.0:
        raise ValueError(f"tol must be in ]0, 1[, got {t}")
    ok, k_student = _scalar_answer(epochs, "epochs")
    if not ok:
        return report(False, k_student)
    lam = _eigs(A)
    if lam[0] <= lam[-1] * max(A.shape) * np.finfo(float).eps:
        raise ValueError("W is rank deficient: lambda_min = 0 and the slowest component never decays")
    kappa = lam[-1] / lam[0]
    rho = 1.0 - 1.0 / kappa
    k = 1 if rho <= 0.0 else math.ceil(math.log(t) / math.log(rho))
    k_approx = kappa * math.log(1.0 / t)
    # the approximation is refused where it can be told apart from the exact count (its
    # error ln(1/tol)/2 exceeds the one epoch of rounding); closer to it than to k: refused
    distinct = abs(k_approx - k) > 2.0
    if distinct and abs(k_student - k_approx) < abs(k_student - k):
        return report(False, "that is the approximation kappa ln(1/tol); use the exact factor 1 - 1/kappa "
                             "per epoch, k = ln(tol) / ln(1 - 1/kappa)")
    if abs(k_student - k) <= 1.0:
        return report(True, f"{k} epochs: the slowest mode shrinks by 1 - 1/kappa = {rho:.4g} per epoch (kappa = {kappa:.4g})")
    k_cond = math.ceil(math.log(t) / math.log(1.0 - 1.0 / math.sqrt(kappa))) if kappa > 1 else 1
    if abs(k_student - k_cond) <= max(1.0, 0.02 * k_cond):
        return report(False, "you used cond(W); the rate is set by kappa = lambda_max / lambda_min of W'W, i.e. cond(W)^2")
    return report(False, f"{k_student:g} epochs is more than one epoch off: the slowest component is multiplied "
                         "by 1 - gamma lambda_min per epoch")


def _landweber_errors(W: np.ndarray, y: np.ndarray, w0: np.ndarray, truth: np.ndarray, ks: np.ndarray,
                      rate: float) -> np.ndarray:
    """Relative error ``||w_k - truth|| / ||truth||`` of batch Adaline after ``k`` epochs."""
    _, s, Vt = np.linalg.svd(W, full_matrices=False)
    N = W.shape[0]
    gamma = rate * 2.0 / (s[0] ** 2 / N)
    w_ls = Vt.T @ ((Vt @ (W.T @ y)) / s**2)
    c0 = Vt @ (w0 - w_ls)
    filt = (1.0 - gamma * s[None, :] ** 2 / N) ** ks[:, None]
    w = w_ls + (filt * c0) @ Vt
    return np.linalg.norm(w - truth, axis=1) / np.linalg.norm(truth)


@student_check("Run adaline_batch from the prior, watch the residual, and stop when it reaches the noise level.")
def check_early_stopping(epochs: Any, W: Any, y: Any, w0: Any, truth: Any, rate: float = 0.9) -> bool:
    """Judge an early-stopping budget for batch Adaline started at a prior (chapter 6, ex. 4).

    Batch Adaline with the rate ``rate * 2 / lambda_max(W'W/N)``, started at ``w0`` and
    stopped after ``epochs`` epochs, is compared by its error against ``truth`` with the
    prior itself and with the best budget in hindsight (which needs the truth, which you
    did not have).

    Parameters
    ----------
    epochs : int
        Your budget (a non-negative whole number).
    W : array_like, shape (N, p)
        The regressor (full column rank).
    y : array_like, shape (N,)
        The measured torques.
    w0 : array_like, shape (p,)
        The prior the training starts from.
    truth : array_like, shape (p,)
        The true parameters (known in a simulation only).
    rate : float, default 0.9
        Fraction of the stable bound used as learning rate, in ]0, 1[.

    Returns
    -------
    bool
        True when the error at your budget is at most 80 % of the prior's: the data improved
        on the prior without drowning it in noise.

    Raises
    ------
    TypeError
        A value of the wrong type (text, a bool, complex numbers) where the chapter's data or
        numbers are meant (a misuse of the check; a wrong *answer* is reported, not raised).
    ValueError
        On malformed or mismatched problem data or a ``rate`` outside ]0, 1[ (misuse).

    Examples
    --------
    >>> import numpy as np
    >>> W = np.diag([10.0, 0.01]); y = W @ [1.0, 1.0] + [0.0, 0.5]
    >>> check_early_stopping(-3, W, y, [0.9, 0.9], [1.0, 1.0])
    ✘ epochs must be a whole number >= 0, got -3
    False
    """
    A = _matrix("W", W)
    N, p = A.shape
    yy, prior, th = (as_array(k, v, ndim=1) for k, v in (("y", y), ("w0", w0), ("truth", truth)))
    if yy.shape != (N,) or prior.shape != (p,) or th.shape != (p,):
        raise ValueError(f"y must have shape ({N},) (the rows of W), w0 and truth shape ({p},) (the columns of W); "
                         f"got {yy.shape}, {prior.shape}, {th.shape}")
    if not np.any(th):
        raise ValueError("truth must not be all zero (the error is relative to it)")
    rate = data_number("rate", rate)
    if not 0.0 < rate < 1.0:
        raise ValueError(f"rate must be in ]0, 1[, got {rate!r}")
    ok, k = _scalar_answer(epochs, "epochs")
    if not ok:
        return report(False, k)
    if k < 0 or k != math.floor(k):
        return report(False, f"epochs must be a whole number >= 0, got {k:g}")
    grid = np.unique(np.r_[0, np.geomspace(1, 1e7, 400).astype(np.int64)])
    errs = _landweber_errors(A, yy, prior, th, grid.astype(float), float(rate))
    best = int(np.argmin(errs))
    e_k = float(_landweber_errors(A, yy, prior, th, np.array([k]), float(rate))[0])
    e_prior = float(errs[0])
    hint = "train longer" if k < grid[best] else "stop earlier"
    if e_k <= IMPROVEMENT * e_prior:
        return report(True, f"{k:g} epochs: error {100 * e_k:.3g} % against {100 * e_prior:.3g} % for the prior "
                            f"(the best budget in hindsight, {grid[best]} epochs, gives {100 * errs[best]:.3g} %)")
    if e_k >= e_prior:
        return report(False, f"after {k:g} epochs the error ({100 * e_k:.3g} %) is not below the prior's "
                             f"({100 * e_prior:.3g} %): {hint}")
    return report(False, f"{k:g} epochs give {100 * e_k:.3g} %, hardly better than the prior's "
                         f"{100 * e_prior:.3g} %: {hint}")
