"""Checks of the exercises of chapter 9 (validation and comparison of methods).

Every check prints one line of feedback (a tick or a cross and what to do next) and returns
``True`` or ``False``.  It never raises because of the answer: an untouched stub, a function
that returns ``None`` or raises, a list or a ``float32`` value are all handled
(:mod:`robidlib.checks._report`); only a misuse of the check itself (e.g. a ``problem`` that is
not an identification problem) raises ``TypeError``.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ._report import as_answer_array, call_answer, report, stored_answers, student_check

__all__ = [
    "check_agreement_index",
    "check_parameter_error",
    "check_prior_method",
]

#: An index of agreement is a number in [0, 1]; the exercise asks for it to float precision.
AGREEMENT_TOL = 1e-6
#: delta_beta in percent; relative tolerance that a float32 computation passes.
PARAMETER_ERROR_RTOL = 1e-5


def _one_number(value: Any, what: str) -> tuple[bool, Any]:
    """One real number (a float32, an int or a one-element list are fine)."""
    ok, arr = as_answer_array(value, what)
    if not ok:
        return False, arr
    if arr.size != 1:
        return False, f"{what} must be one number, got an array of shape {arr.shape}"
    return True, float(arr.reshape(-1)[0])


@student_check("Write my_agreement(o, p): 1 minus the squared errors over the 'potential error' sum.")
def check_agreement_index(func: Callable[[np.ndarray, np.ndarray], Any]) -> bool:
    """Check a student's Willmott index of agreement for one series (chapter 9, first exercise).

    ``func(o, p)`` takes two 1-D arrays (observed, predicted) and must return Willmott's ``d``
    (the chapter's equation ``eq-val-ai``) as one number.  It is tried on a perfect
    prediction (``d = 1``), on the constant prediction ``p = mean(o)`` (``d = 0``), on a noisy
    and on a biased, scaled prediction; the answer must agree to ``1e-6`` (``float32`` is
    fine).  Common slips (no absolute values, the plain sum of squares, ``1 - d``) get a hint.

    Parameters
    ----------
    func : callable
        ``func(o, p) -> float``.

    Returns
    -------
    bool

    Examples
    --------
    >>> check_agreement_index(lambda o, p: 0.5)
    ✘ for a perfect prediction d should be 1.000000, got 0.500000
    False
    >>> check_agreement_index(lambda o, p: None)
    ✘ for a perfect prediction: your function returned None: did you forget `return`?
    False
    """
    for case in stored_answers("validation")["agreement_index"]:
        label, oo, pp = case["label"], np.array(case["o"]), np.array(case["p"])
        want, slips = case["expected"], case["slips"]
        ok, got = call_answer(func, oo.copy(), pp.copy())
        if not ok:
            return report(False, f"for {label}: {got}")
        ok, v = _one_number(got, "your d")
        if not ok:
            return report(False, f"for {label}: {v}")
        if abs(v - want) > AGREEMENT_TOL:
            hint = ""
            if abs(v - slips["plain_squares"]) < AGREEMENT_TOL:
                hint = ": the denominator is the 'potential error', built from |p - o_m| and |o - o_m|"
            elif abs(v - slips["no_absolute_values"]) < AGREEMENT_TOL:
                hint = ": take absolute values of p - o_m and o - o_m before adding and squaring"
            elif abs(v - slips["one_minus_d"]) < AGREEMENT_TOL:
                hint = ": you returned 1 - d; d itself is 1 for a perfect prediction"
            return report(False, f"for {label} d should be {want:.6f}, got {v:.6f}{hint}")
    return report(True, "Willmott's d: 1 for a perfect prediction, 0 for the observed mean, in between otherwise")


@student_check("Write delta_beta(estimate, truth): the symmetric relative error of each parameter, averaged, in %.")
def check_parameter_error(func: Callable[[np.ndarray, np.ndarray], Any]) -> bool:
    """Check a student's relative parameter error ``delta_beta`` (chapter 9, second exercise).

    ``func(estimate, truth)`` takes two 1-D arrays and must return the chapter's
    ``delta_beta`` (equation ``eq-val-errors``) in percent, counting a parameter that is zero
    and estimated as zero as exact.  It is tried on a close estimate, a sign error, a zero
    truth and an exact zero; the answer must agree to a relative ``1e-5``.

    Parameters
    ----------
    func : callable
        ``func(estimate, truth) -> float``.

    Returns
    -------
    bool

    Examples
    --------
    >>> check_parameter_error(lambda estimate, truth: 0.0)
    ✘ for a close estimate delta_beta should be 4.81232 %, got 0
    False
    """
    for case in stored_answers("validation")["parameter_error"]:
        label, e, bb = case["label"], np.array(case["estimate"]), np.array(case["truth"])
        want, slips = case["expected"], case["slips"]
        ok, got = call_answer(func, e.copy(), bb.copy())
        if not ok:
            return report(False, f"for {label}: {got}")
        ok, v = _one_number(got, "your delta_beta")
        if not ok:
            return report(False, f"for {label}: {v}")
        if abs(v - want) > PARAMETER_ERROR_RTOL * max(1.0, want):
            hint = ""
            if abs(v - slips["fraction"]) < PARAMETER_ERROR_RTOL * max(0.01, slips["fraction"]):
                hint = ": multiply by 100, delta_beta is in percent"
            elif abs(v - slips["half"]) < PARAMETER_ERROR_RTOL * max(1.0, want):
                hint = ": the formula has the factor 2/p (the denominator |b| + |b_hat| is twice a mean)"
            elif not np.isfinite(v):
                hint = ": a parameter that is zero and estimated as zero counts 0 (avoid 0/0)"
            return report(False, f"for {label} delta_beta should be {want:.6g} %, got {v:.6g}{hint}")
    return report(True, "delta_beta is right: each parameter counts at most 2/p * 100 %, an exact zero counts 0")


def _fit_params(got: Any, r: int) -> tuple[bool, Any]:
    from ..benchmark import FitResult

    if not isinstance(got, FitResult):
        return False, (f"the function must return a FitResult(params, iterations) (from robidlib.benchmark), "
                       f"got {type(got).__name__}")
    ok, b = as_answer_array(got.params, "params", shape=(r,))
    if not ok:
        return False, f"{b} (one value per base parameter)"
    it = got.iterations
    if isinstance(it, (bool, np.bool_)) or not isinstance(it, (int, np.integer)) or it < 0:
        return False, f"iterations must be an int >= 0, got {it!r}"
    return True, b


@student_check("Write fit_ridge(problem): ridge regression towards problem.prior on scaled columns, "
               "returned as FitResult(params, 1).")
def check_prior_method(func: Callable[[Any], Any], problem: Any) -> bool:
    """Check an estimator that uses the prior, written for ``compare_methods`` (chapter 9, third exercise).

    ``func(problem)`` must return a :class:`robidlib.benchmark.FitResult` with finite
    parameters of the right length, give the same answer twice, leave the problem untouched,
    *follow the data* (adding the torques of a parameter change ``delta`` to the measurements
    must move the estimate by at least 10 % of ``delta``, in projection: a method that returns
    the prior whatever the data is not an estimator) and *use the prior* (moving
    ``problem.prior`` must move the estimate the same way; least squares does not).

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
        If ``problem`` is not an IdentificationProblem (a misuse of the check).

    Examples
    --------
    >>> from robidlib.benchmark import fit_ls, make_study
    >>> from robidlib.models import planar_2r
    >>> problem = make_study(planar_2r(), seed=1, duration=3.0, optimize=0).problem(0.05, rng=0)
    >>> check_prior_method(fit_ls, problem)
    ✘ moving the prior did not move the estimate towards it: the method ignores the prior (least squares does; ridge regression towards problem.prior does not)
    False
    """
    from ..benchmark import IdentificationData, IdentificationProblem
    from ..regressor import regressor

    if not isinstance(problem, IdentificationProblem):
        raise TypeError(f"problem must be an IdentificationProblem (e.g. study.problem(...)), got {type(problem).__name__}")
    r = problem.base.rank
    prior0 = problem.prior.copy()

    def run(p: Any) -> tuple[bool, Any]:
        ok, got = call_answer(func, p)
        return _fit_params(got, r) if ok else (False, got)

    ok, b1 = run(problem)
    if not ok:
        return report(False, b1)
    if not np.array_equal(problem.prior, prior0):
        return report(False, "the function changed problem.prior: work on a copy")
    ok, again = run(problem)
    if not ok or not np.allclose(again, b1, rtol=1e-9, atol=1e-12 * max(1.0, float(np.abs(b1).max()))):
        return report(False, "two calls on the same problem gave different results: use a seeded generator")

    def variant(data: Any = None, prior: Any = None) -> Any:
        return IdentificationProblem(problem.robot, problem.base, problem.data if data is None else data,
                                     prior0 if prior is None else prior, prior_std=problem.prior_std,
                                     options=problem.options, pipeline=problem.pipeline)

    # it must follow the data: torques generated by other parameters move the estimate towards them
    delta = 0.2 * np.abs(prior0) * np.where(np.arange(r) % 2 == 0, 1.0, -1.0)
    d = problem.data
    extra = problem.base.reduce(regressor(problem.robot, d.q, d.qd, d.qdd)) @ delta
    shifted = IdentificationData(d.t, d.q, d.qd, d.qdd, d.tau + extra, d.q_meas, d.qd_meas, d.sigma_tau,
                                 d.sigma_q, d.sigma_qd, d.tau_true + extra)
    ok, b_d = run(variant(data=shifted))
    if not ok:
        return report(False, f"on a problem with other torques: {b_d}")
    follow = float(np.dot(b_d - b1, delta) / np.dot(delta, delta))
    if follow < 0.1:
        return report(False, f"the estimate follows only {100 * follow:.0f} % of a change of the data: it (nearly) "
                             "ignores the measurements (regularise less)")
    spread = problem.prior_std if problem.prior_std is not None else 0.1 * np.abs(prior0).max()
    shift = 0.5 * np.abs(prior0) + spread
    ok, b2 = run(variant(prior=prior0 + shift))
    if not ok:
        return report(False, f"on a problem with another prior: {b2}")
    if float(np.dot(b2 - b1, shift)) <= 1e-12 * float(np.dot(shift, shift)):
        return report(False, "moving the prior did not move the estimate towards it: the method ignores the prior "
                             "(least squares does; ridge regression towards problem.prior does not)")
    return report(True, "a valid method that uses the prior: compare it with compare_methods(..., methods={...})")
