"""Checks of the exercises of chapter 7 (validation and comparison of methods).

Every check prints one line of feedback (a tick or a cross and what is wrong) and returns
``True`` or ``False``; a malformed answer (not callable, not an identification problem)
raises ``TypeError``.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ._report import report as _report

__all__ = [
    "check_agreement_index",
    "check_parameter_error",
    "check_prior_method",
]


def _call(func: Callable, *args: Any) -> tuple[Any, str | None]:
    try:
        return func(*args), None
    except Exception as exc:  # the student's code failed: say how
        return None, f"your function raised {type(exc).__name__}: {exc}"


def _number(x: Any) -> float | None:
    if isinstance(x, (bool, np.bool_, str, bytes)) or np.ndim(x) != 0:
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if np.isfinite(v) else None


def check_agreement_index(func: Callable[[np.ndarray, np.ndarray], Any]) -> bool:
    """Check a student's Willmott index of agreement for one series (chapter 7, exercise 1).

    ``func(o, p)`` takes two 1-D arrays (observed, predicted) and must return
    ``d = 1 - sum (p - o)^2 / sum (|p - o_m| + |o - o_m|)^2`` with ``o_m`` the mean of the
    observations.  It is tried on random series, on a perfect prediction (``d = 1``) and on
    the constant prediction ``p = o_m`` (``d = 0``).

    Parameters
    ----------
    func : callable
        ``func(o, p) -> float``.

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
    >>> def d(o, p):
    ...     om = o.mean()
    ...     return 1 - np.sum((p - o) ** 2) / np.sum((np.abs(p - om) + np.abs(o - om)) ** 2)
    >>> check_agreement_index(d)
    ✔ Willmott's d: 1 for a perfect prediction, 0 for the observed mean, in between otherwise
    True
    """
    if not callable(func):
        raise TypeError(f"func must be a function of (observed, predicted), got {type(func).__name__}")
    from ..validation import agreement_index

    rng = np.random.default_rng(20250707)
    o = np.sin(np.linspace(0.0, 6.0, 40)) * 3.0 + 1.0 + 0.3 * rng.normal(size=40)
    cases = [
        ("a perfect prediction", o, o.copy()),
        ("the constant prediction p = mean(o)", o, np.full_like(o, o.mean())),
        ("a noisy prediction", o, o + 0.8 * rng.normal(size=40)),
        ("a biased, scaled prediction", o, 0.7 * o + 2.0),
    ]
    for label, oo, pp in cases:
        got, err = _call(func, oo.copy(), pp.copy())
        if err:
            return _report(False, err)
        v = _number(got)
        if v is None:
            return _report(False, f"for {label} your function returned {got!r}: it must return one finite number")
        want = agreement_index(oo, pp)
        if abs(v - want) > 1e-9:
            hint = ""
            o_m = oo.mean()
            plain = 1 - np.sum((pp - oo) ** 2) / np.sum((pp - oo) ** 2 + (oo - o_m) ** 2)
            no_abs = 1 - np.sum((pp - oo) ** 2) / np.sum(((pp - o_m) + (oo - o_m)) ** 2)
            if abs(v - plain) < 1e-9:
                hint = ": the denominator is sum (|p - o_m| + |o - o_m|)^2, the 'potential error'"
            elif abs(v - no_abs) < 1e-9:
                hint = ": take absolute values, |p - o_m| + |o - o_m|, before squaring"
            elif abs(v - (1 - want)) < 1e-9:
                hint = ": you returned 1 - d; d itself is 1 for a perfect prediction"
            return _report(False, f"for {label} d should be {want:.6g}, got {v:.6g}{hint}")
    return _report(True, "Willmott's d: 1 for a perfect prediction, 0 for the observed mean, in between otherwise")


def check_parameter_error(func: Callable[[np.ndarray, np.ndarray], Any]) -> bool:
    """Check a student's relative parameter error ``delta_beta`` (chapter 7, exercise 2).

    ``func(estimate, truth)`` takes two 1-D arrays and must return
    ``100 (2/p) sum |b_hat - b| / (|b| + |b_hat|)`` in percent, counting a term with
    ``b = b_hat = 0`` as 0.

    Parameters
    ----------
    func : callable
        ``func(estimate, truth) -> float``.

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
    >>> def delta_beta(e, b):
    ...     den = np.abs(b) + np.abs(e)
    ...     terms = np.divide(np.abs(e - b), den, out=np.zeros_like(den), where=den > 0)
    ...     return 100 * 2 * terms.mean()
    >>> check_parameter_error(delta_beta)
    ✔ delta_beta is right: each parameter counts at most 2/p * 100 %, an exact zero counts 0
    True
    """
    if not callable(func):
        raise TypeError(f"func must be a function of (estimate, truth), got {type(func).__name__}")
    from ..validation import relative_parameter_error

    rng = np.random.default_rng(20250708)
    b = rng.normal(size=6) * [10.0, 1.0, 0.1, 1.0, 5.0, 0.01]
    cases = [
        ("a close estimate", b * (1 + 0.05 * rng.normal(size=6)), b),
        ("an estimate with a sign error", b * [1, -1, 1, 1, 1, 1], b),
        ("a truth with a zero parameter", np.r_[b[:5], 0.3], np.r_[b[:5], 0.0]),
        ("an exact zero estimated as zero", np.r_[b[:5], 0.0], np.r_[b[:5], 0.0]),
    ]
    for label, e, bb in cases:
        got, err = _call(func, e.copy(), bb.copy())
        if err:
            return _report(False, f"for {label}: {err}")
        v = _number(got)
        if v is None:
            return _report(False, f"for {label} your function returned {got!r}: it must return one finite number")
        want = relative_parameter_error(e, bb)
        if abs(v - want) > 1e-9 * max(1.0, want):
            hint = ""
            if abs(v - want / 100) < 1e-9:
                hint = ": multiply by 100, delta_beta is in percent"
            elif abs(v - want / 2) < 1e-9 * max(1.0, want):
                hint = ": the formula has the factor 2/p (the denominator |b| + |b_hat| is twice a mean)"
            return _report(False, f"for {label} delta_beta should be {want:.6g} %, got {v:.6g}{hint}")
    return _report(True, "delta_beta is right: each parameter counts at most 2/p * 100 %, an exact zero counts 0")


def check_prior_method(func: Callable[[Any], Any], problem: Any) -> bool:
    """Check an estimator that uses the prior, written for ``compare_methods`` (chapter 7, exercise 3).

    ``func(problem)`` must return a :class:`robidlib.benchmark.FitResult` with finite
    parameters of the right length, give the same answer twice, leave the problem untouched,
    *follow the data* (adding the torques ``W delta`` of a parameter change ``delta`` to the
    measurements must move the estimate by at least 10 % of ``delta``, in projection: a method
    that returns the prior whatever the data is not an estimator) and
    *use the prior* (moving ``problem.prior`` must move the estimate the same way).

    Parameters
    ----------
    func : callable
        ``func(problem) -> FitResult``.
    problem : IdentificationProblem
        A problem to try it on.

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        If ``func`` is not callable or ``problem`` is not an IdentificationProblem.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.benchmark import FitResult, make_study
    >>> from robidlib.estimation.lsq import ridge
    >>> from robidlib.models import planar_2r
    >>> problem = make_study(planar_2r(), seed=1, duration=2.0, optimize=0).problem(0.05, rng=0)
    >>> def fit_ridge(problem):
    ...     D = problem.column_scale
    ...     est = ridge(problem.W / D, problem.y, lam=10.0, prior=problem.prior * D)
    ...     return FitResult(est.params / D, 1)
    >>> check_prior_method(fit_ridge, problem)
    ✔ a valid method that uses the prior: compare it with compare_methods(..., methods={...})
    True
    """
    from ..benchmark import FitResult, IdentificationData, IdentificationProblem

    if not callable(func):
        raise TypeError(f"func must be a function of an IdentificationProblem, got {type(func).__name__}")
    if not isinstance(problem, IdentificationProblem):
        raise TypeError(f"problem must be an IdentificationProblem, got {type(problem).__name__}")
    r = problem.base.rank
    prior0 = problem.prior.copy()
    got, err = _call(func, problem)
    if err:
        return _report(False, err)
    if not isinstance(got, FitResult):
        return _report(False, f"the function must return a FitResult(params, iterations), got {type(got).__name__}")
    b1 = np.asarray(got.params, dtype=float)
    if b1.shape != (r,) or not np.all(np.isfinite(b1)):
        return _report(False, f"params must be {r} finite numbers (one per base parameter), got shape {b1.shape}")
    if not isinstance(got.iterations, (int, np.integer)) or got.iterations < 0:
        return _report(False, f"iterations must be an int >= 0, got {got.iterations!r}")
    if not np.array_equal(problem.prior, prior0):
        return _report(False, "the function changed problem.prior: work on a copy")
    again, err = _call(func, problem)
    if err or not isinstance(again, FitResult) or not np.allclose(np.asarray(again.params, dtype=float), b1,
                                                                  rtol=1e-9, atol=1e-12):
        return _report(False, "two calls on the same problem gave different results: use a seeded generator")
    # it must follow the data: torques generated by other parameters must move the estimate towards them
    n = problem.robot.n
    delta = 0.2 * np.abs(prior0) * np.where(np.arange(r) % 2 == 0, 1.0, -1.0)
    d = problem.data
    extra = (problem.W @ delta).reshape(-1, n)
    shifted = IdentificationData(d.t, d.q, d.qd, d.qdd, d.tau + extra, d.q_meas, d.qd_meas, d.sigma_tau,
                                 d.sigma_q, d.sigma_qd, d.tau_true + extra)
    moved_data = IdentificationProblem(problem.robot, problem.base, shifted, prior0, prior_std=problem.prior_std,
                                       options=problem.options)
    got_d, err = _call(func, moved_data)
    if err or not isinstance(got_d, FitResult):
        return _report(False, err or "the function failed on a problem with other torques")
    follow = float(np.dot(np.asarray(got_d.params, dtype=float) - b1, delta) / np.dot(delta, delta))
    if follow < 0.1:
        return _report(False, f"the estimate follows only {100 * follow:.0f} % of a change of the data: it (nearly) "
                              "ignores the measurements (regularise less)")
    shift = 0.5 * np.abs(prior0) + (problem.prior_std if problem.prior_std is not None else 0.1 * np.abs(prior0).max())
    moved = IdentificationProblem(problem.robot, problem.base, problem.data, prior0 + shift,
                                  prior_std=problem.prior_std, options=problem.options)
    got2, err = _call(func, moved)
    if err or not isinstance(got2, FitResult):
        return _report(False, err or "the function failed on a problem with another prior")
    b2 = np.asarray(got2.params, dtype=float)
    if float(np.dot(b2 - b1, shift)) <= 1e-12 * float(np.dot(shift, shift)):
        return _report(False, "moving the prior did not move the estimate towards it: the method ignores the prior "
                              "(least squares does; ridge regression towards problem.prior does not)")
    return _report(True, "a valid method that uses the prior: compare it with compare_methods(..., methods={...})")
