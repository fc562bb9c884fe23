"""Checks of the exercises of chapter 4 (ridge with a CAD prior, excitation design, pipeline).

Every check prints one line, ✔ or ✘ with what to do next, and returns ``True`` or ``False``.
It never raises because of the answer (an untouched stub, a function returning ``None``, a
wrong shape or dtype all give ✘); answers may be lists or arrays of any real dtype.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ._report import as_answer_array, call_answer, report, stored_answers, student_check

__all__ = ["check_map_estimate", "check_gcv", "check_telescope_inertia"]


def _callable(func: Any, what: str) -> bool:
    if callable(func):
        return True
    return report(False, f"pass your function itself, {what}; got {type(func).__name__} {func!r}")


@student_check("Substitute beta = P z with P = diag(prior_std): that is ridge on the columns W P "
               "with weight sigma^2 towards prior / prior_std; map z back to beta.")
def check_map_estimate(func: Callable[..., Any]) -> bool:
    """Check the maximum a posteriori estimate with a Gaussian prior (chapter 4, exercise 1).

    ``func(W, y, sigma, prior, prior_std)`` must return the minimiser of
    ``||W b - y||^2 / sigma^2 + sum_i (b_i - prior_i)^2 / prior_std_i^2``. Tested on two
    problems whose columns differ by four orders of magnitude, and for unit invariance
    (expressing one parameter in a unit a thousand times smaller must change only that
    parameter's value, by the same factor). Tolerance ``1e-6`` relative.

    Parameters
    ----------
    func : callable
        ``func(W, y, sigma, prior, prior_std)`` returning an array of shape (p,).

    Returns
    -------
    bool

    Examples
    --------
    >>> check_map_estimate(lambda W, y, sigma, prior, prior_std: None)
    ✘ your function returned None: did you forget `return`?
    False
    """
    if not _callable(func, "e.g. check_map_estimate(map_estimate)"):
        return False
    rtol = 1e-6
    close = lambda a, b: np.allclose(a, b, rtol=rtol, atol=1e-12)  # noqa: E731
    ref = stored_answers("excitation")["map_estimate"]
    for case in ref["cases"]:
        W, y, prior, pstd, expected = (np.array(case[k]) for k in ("W", "y", "prior", "prior_std", "expected"))
        sigma, slips = case["sigma"], {k: np.array(v) for k, v in case["slips"].items()}
        m, p = W.shape
        ok, out = call_answer(func, W.copy(), y.copy(), sigma, prior.copy(), pstd.copy())
        if not ok:
            return report(False, out)
        ok, got = as_answer_array(out, "the estimate", shape=(p,))
        if not ok:
            return report(False, got)
        if close(got, expected):
            continue
        if close(got, slips["no_sigma"]):
            return report(False, "the noise level is missing: the data term is ||W b - y||^2 / sigma^2")
        if close(got, slips["inverse_std"]):
            return report(False, "the prior term divides by prior_std^2: a large spread means a weak prior")
        if close(got, slips["sqrt_std"]):
            return report(False, "prior_std is a standard deviation: the penalty uses its square")
        return report(False, f"wrong estimate on a {m}x{p} problem with sigma = {sigma:g}")
    W, y, prior, pstd = (np.array(ref["units"][k]) for k in ("W", "y", "prior", "prior_std"))
    sigma = ref["units"]["sigma"]
    c = np.ones(5)
    c[0] = 1e-3                     # parameter 0 in a unit 1000 times smaller: values x 1000
    answers = []
    for args in ((W, y, sigma, prior, pstd), (W * c, y, sigma, prior / c, pstd / c)):
        ok, out = call_answer(func, *(a.copy() if isinstance(a, np.ndarray) else a for a in args))
        if ok:
            ok, out = as_answer_array(out, "the estimate", shape=(5,))
        if not ok:
            return report(False, out)
        answers.append(out)
    if not close(answers[1] * c, answers[0]):
        return report(False, "the estimate must not depend on the units of the parameters")
    return report(True, "the MAP estimate is right, and the same in any units of the parameters")


@student_check("Compute the ridge estimate for mu, its residual, the effective number of "
               "parameters df = sum s_i^2 / (s_i^2 + mu), and GCV = (||r||^2 / m) / (1 - df/m)^2.")
def check_gcv(func: Callable[..., Any]) -> bool:
    """Check the generalised cross-validation score of a ridge estimate (chapter 4, exercise 2).

    ``func(W, y, mu, prior)`` must return ``GCV(mu) = (||y - W b_mu||^2 / m) / (1 - df/m)^2``
    with ``b_mu`` the ridge estimate towards ``prior``, ``m`` the number of rows and ``df``
    the effective number of parameters (Hastie et al. 2009). Tested for several ``mu`` on two
    problems; tolerance ``1e-6`` relative.

    Parameters
    ----------
    func : callable
        ``func(W, y, mu, prior)`` returning a float.

    Returns
    -------
    bool

    Examples
    --------
    >>> check_gcv(lambda W, y, mu, prior: [1.0, 2.0])
    ✘ GCV must have shape (), got (2,)
    False
    """
    if not _callable(func, "e.g. check_gcv(gcv)"):
        return False
    for case in stored_answers("excitation")["gcv"]:
        W, y, prior = (np.array(case[k]) for k in ("W", "y", "prior"))
        mu, expected, slips = case["mu"], case["expected"], case["slips"]
        m, p = W.shape
        ok, out = call_answer(func, W.copy(), y.copy(), mu, prior.copy())
        if not ok:
            return report(False, out)
        ok, got = as_answer_array(out, "GCV", shape=())
        if not ok:
            return report(False, got)
        got = float(got)
        if np.isclose(got, expected, rtol=1e-6):
            continue
        if np.isclose(got, slips["df_p"], rtol=1e-6):
            return report(False, "df is not p: use the effective number of parameters sum s^2 / (s^2 + mu)")
        if np.isclose(got, slips["unsquared"], rtol=1e-6):
            return report(False, "square the denominator: (1 - df / m)^2")
        if np.isclose(got, slips["no_m"], rtol=1e-6):
            return report(False, "divide the residual sum of squares by the number of rows m")
        return report(False, f"wrong GCV on a {m}x{p} problem at mu = {mu:g}")
    return report(True, "GCV is right for every mu tried")


@student_check("Build the pose q = [0.25, 0, 0.3, 0.5, q5], compute the mass matrix of "
               "redundant_5dof() there and return the entry of joint 4 (the elbow).")
def check_telescope_inertia(func: Callable[[float], Any]) -> bool:
    """Check the elbow's mass-matrix entry as a function of the telescope (chapter 4, ex. 3).

    ``func(q5)`` must return ``M_44(q)`` of ``robidlib.models.redundant_5dof()`` (joint 4,
    the elbow, at index 3) at the pose ``q = [0.25, 0, 0.3, 0.5, q5]``, for telescope
    extensions ``q5`` over its stroke ``[0, 0.2]`` m. Tolerance ``1e-6`` relative.

    Parameters
    ----------
    func : callable
        ``func(q5)`` returning a float (kg m^2).

    Returns
    -------
    bool

    Examples
    --------
    >>> check_telescope_inertia(lambda q5: "big")
    ✘ M_44 must be numbers, not text: got str 'big'
    False
    """
    if not _callable(func, "e.g. check_telescope_inertia(elbow_inertia)"):
        return False
    ref = stored_answers("excitation")["telescope_inertia"]
    q5s, diagonals = ref["q5"], np.array(ref["diagonal"])
    for q5, diag in zip(q5s, diagonals):
        ok, out = call_answer(func, float(q5))
        if not ok:
            return report(False, out)
        if np.ndim(out) == 2:
            return report(False, "return one number, the elbow's diagonal entry M[3, 3], not the whole matrix")
        ok, got = as_answer_array(out, "M_44", shape=())
        if not ok:
            return report(False, got)
        got = float(got)
        if np.isclose(got, diag[3], rtol=1e-6):
            continue
        hit = [k for k in range(5) if np.isclose(got, diag[k], rtol=1e-6)]
        if hit:
            return report(False, f"that is the entry of joint {hit[0] + 1}; the elbow is joint 4, index 3")
        return report(False, f"wrong value at q5 = {q5:g} m: use the pose [0.25, 0, 0.3, 0.5, q5]")
    growth = diagonals[-1, 3] / diagonals[0, 3]
    return report(True, f"right: over the stroke the elbow's inertia grows by a factor {growth:.2f}")
