"""Checks of the exercises of chapter 4 (ridge with a CAD prior, excitation design, pipeline).

Every check prints one line, ✔ or ✘ with what to do next, and returns ``True`` or ``False``.
It never raises because of the answer (an untouched stub, a function returning ``None``, a
wrong shape or dtype all give ✘); answers may be lists or arrays of any real dtype.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ._report import as_answer_array, call_answer, report, student_check

__all__ = ["check_map_estimate", "check_gcv", "check_telescope_inertia"]


def _callable(func: Any, what: str) -> bool:
    if callable(func):
        return True
    return report(False, f"pass your function itself, {what}; got {type(func).__name__} {func!r}")


def _ridge(W: np.ndarray, y: np.ndarray, mu: float, prior: np.ndarray) -> np.ndarray:
    """Reference ridge estimate from the SVD filter factors (independent of the student's route)."""
    U, s, Vt = np.linalg.svd(W, full_matrices=False)
    r = U.T @ (y - W @ prior)
    return prior + Vt.T @ (s / (s**2 + mu) * r)


def _problem(rng: np.random.Generator, m: int, p: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A regressor with columns of very different scales (mixed units), data and a prior."""
    W = rng.standard_normal((m, p)) * np.logspace(-2, 2, p)
    b = rng.uniform(0.5, 2.0, p) / np.logspace(-2, 2, p)
    y = W @ b + 0.1 * rng.standard_normal(m)
    return W, y, b * (1 + 0.2 * rng.uniform(-1, 1, p))


def _map(W: np.ndarray, y: np.ndarray, sigma: float, prior: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Reference MAP estimate: least squares on the stacked, whitened data and prior rows."""
    A = np.vstack([W / sigma, np.diag(1 / p)])
    return np.linalg.lstsq(A, np.r_[y / sigma, prior / p], rcond=None)[0]


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
    rng = np.random.default_rng(20261206)
    rtol = 1e-6
    close = lambda a, b: np.allclose(a, b, rtol=rtol, atol=1e-12)  # noqa: E731
    for m, p, sigma in ((40, 4, 0.1), (90, 6, 2.0)):
        W, y, prior = _problem(rng, m, p)
        pstd = 0.3 * np.abs(prior) + 1e-3
        expected = _map(W, y, sigma, prior, pstd)
        ok, out = call_answer(func, W.copy(), y.copy(), sigma, prior.copy(), pstd.copy())
        if not ok:
            return report(False, out)
        ok, got = as_answer_array(out, "the estimate", shape=(p,))
        if not ok:
            return report(False, got)
        if close(got, expected):
            continue
        if close(got, _map(W, y, 1.0, prior, pstd)):
            return report(False, "the noise level is missing: the data term is ||W b - y||^2 / sigma^2")
        if close(got, _map(W, y, sigma, prior, 1 / pstd)):
            return report(False, "the prior term divides by prior_std^2: a large spread means a weak prior")
        if close(got, _map(W, y, sigma, prior, np.sqrt(pstd))):
            return report(False, "prior_std is a standard deviation: the penalty uses its square")
        return report(False, f"wrong estimate on a {m}x{p} problem with sigma = {sigma:g}")
    W, y, prior = _problem(rng, 50, 5)
    pstd = 0.3 * np.abs(prior) + 1e-3
    c = np.ones(5)
    c[0] = 1e-3                     # parameter 0 in a unit 1000 times smaller: values x 1000
    answers = []
    for args in ((W, y, 0.5, prior, pstd), (W * c, y, 0.5, prior / c, pstd / c)):
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
    rng = np.random.default_rng(20261207)
    for m, p in ((30, 4), (80, 7)):
        W, y, prior = _problem(rng, m, p)
        s = np.linalg.svd(W, compute_uv=False)
        for mu in (1e-2, 1.0, 1e2):
            b = _ridge(W, y, mu, prior)
            rss = float(np.sum((y - W @ b) ** 2))
            df = float(np.sum(s**2 / (s**2 + mu)))
            expected = (rss / m) / (1 - df / m) ** 2
            ok, out = call_answer(func, W.copy(), y.copy(), mu, prior.copy())
            if not ok:
                return report(False, out)
            ok, got = as_answer_array(out, "GCV", shape=())
            if not ok:
                return report(False, got)
            got = float(got)
            if np.isclose(got, expected, rtol=1e-6):
                continue
            if np.isclose(got, (rss / m) / (1 - p / m) ** 2, rtol=1e-6):
                return report(False, "df is not p: use the effective number of parameters sum s^2 / (s^2 + mu)")
            if np.isclose(got, (rss / m) / (1 - df / m), rtol=1e-6):
                return report(False, "square the denominator: (1 - df / m)^2")
            if np.isclose(got, rss / (1 - df / m) ** 2, rtol=1e-6):
                return report(False, "divide the residual sum of squares by the number of rows m")
            return report(False, f"wrong GCV on a {m}x{p} problem at mu = {mu:g}")
    return report(True, "GCV is right for every mu tried")


def _pose(q5: float) -> np.ndarray:
    return np.array([0.25, 0.0, 0.3, 0.5, q5])


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
    from ..dynamics import mass_matrix
    from ..models import redundant_5dof

    robot = redundant_5dof()
    q5s = np.linspace(0.0, 0.2, 5)
    M = [mass_matrix(robot, _pose(q5)) for q5 in q5s]
    for q5, Mq in zip(q5s, M):
        ok, out = call_answer(func, float(q5))
        if not ok:
            return report(False, out)
        if np.ndim(out) == 2:
            return report(False, "return one number, the elbow's diagonal entry M[3, 3], not the whole matrix")
        ok, got = as_answer_array(out, "M_44", shape=())
        if not ok:
            return report(False, got)
        got = float(got)
        if np.isclose(got, Mq[3, 3], rtol=1e-6):
            continue
        diag = np.diag(Mq)
        hit = [k for k in range(5) if np.isclose(got, diag[k], rtol=1e-6)]
        if hit:
            return report(False, f"that is the entry of joint {hit[0] + 1}; the elbow is joint 4, index 3")
        return report(False, f"wrong value at q5 = {q5:g} m: use the pose [0.25, 0, 0.3, 0.5, q5]")
    growth = M[-1][3, 3] / M[0][3, 3]
    return report(True, f"right: over the stroke the elbow's inertia grows by a factor {growth:.2f}")
