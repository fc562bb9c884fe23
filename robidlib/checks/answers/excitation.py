"""References of the chapter-4 checks (:mod:`robidlib.checks.excitation`)."""

from __future__ import annotations

import numpy as np


def _problem(rng: np.random.Generator, m: int, p: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A regressor with columns of very different scales (mixed units), data and a prior."""
    W = rng.standard_normal((m, p)) * np.logspace(-2, 2, p)
    b = rng.uniform(0.5, 2.0, p) / np.logspace(-2, 2, p)
    y = W @ b + 0.1 * rng.standard_normal(m)
    return W, y, b * (1 + 0.2 * rng.uniform(-1, 1, p))


def _map(W: np.ndarray, y: np.ndarray, sigma: float, prior: np.ndarray, p: np.ndarray) -> np.ndarray:
    """MAP estimate: least squares on the stacked, whitened data and prior rows."""
    A = np.vstack([W / sigma, np.diag(1 / p)])
    return np.linalg.lstsq(A, np.r_[y / sigma, prior / p], rcond=None)[0]


def _ridge(W: np.ndarray, y: np.ndarray, mu: float, prior: np.ndarray) -> np.ndarray:
    """Ridge estimate towards ``prior`` from the SVD filter factors."""
    U, s, Vt = np.linalg.svd(W, full_matrices=False)
    r = U.T @ (y - W @ prior)
    return prior + Vt.T @ (s / (s**2 + mu) * r)


def map_estimate() -> dict:
    """Two problems with their MAP estimates and three slips; a problem for the unit test."""
    rng = np.random.default_rng(20261206)
    cases = []
    for m, p, sigma in ((40, 4, 0.1), (90, 6, 2.0)):
        W, y, prior = _problem(rng, m, p)
        pstd = 0.3 * np.abs(prior) + 1e-3
        cases.append({"W": W, "y": y, "sigma": sigma, "prior": prior, "prior_std": pstd,
                      "expected": _map(W, y, sigma, prior, pstd),
                      "slips": {"no_sigma": _map(W, y, 1.0, prior, pstd),
                                "inverse_std": _map(W, y, sigma, prior, 1 / pstd),
                                "sqrt_std": _map(W, y, sigma, prior, np.sqrt(pstd))}})
    W, y, prior = _problem(rng, 50, 5)
    units = {"W": W, "y": y, "sigma": 0.5, "prior": prior, "prior_std": 0.3 * np.abs(prior) + 1e-3}
    return {"cases": cases, "units": units}


def gcv() -> list[dict]:
    """GCV scores for three weights on two problems, and three slips."""
    rng = np.random.default_rng(20261207)
    cases = []
    for m, p in ((30, 4), (80, 7)):
        W, y, prior = _problem(rng, m, p)
        s = np.linalg.svd(W, compute_uv=False)
        for mu in (1e-2, 1.0, 1e2):
            b = _ridge(W, y, mu, prior)
            rss = float(np.sum((y - W @ b) ** 2))
            df = float(np.sum(s**2 / (s**2 + mu)))
            cases.append({"W": W, "y": y, "mu": mu, "prior": prior, "expected": (rss / m) / (1 - df / m) ** 2,
                          "slips": {"df_p": (rss / m) / (1 - p / m) ** 2, "unsquared": (rss / m) / (1 - df / m),
                                    "no_m": rss / (1 - df / m) ** 2}})
    return cases


def telescope_inertia() -> dict:
    """The diagonal of the mass matrix of redundant_5dof() over the telescope's stroke."""
    from ...dynamics import mass_matrix
    from ...models import redundant_5dof

    robot = redundant_5dof()
    q5s = np.linspace(0.0, 0.2, 5)
    return {"q5": q5s, "diagonal": [np.diag(mass_matrix(robot, np.array([0.25, 0.0, 0.3, 0.5, q5]))) for q5 in q5s]}


def compute() -> dict:
    return {"map_estimate": map_estimate(), "gcv": gcv(), "telescope_inertia": telescope_inertia()}
