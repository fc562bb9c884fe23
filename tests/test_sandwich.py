"""The sandwich covariance of OLS matches the Monte Carlo spread under per-joint noise; the
pooled-sigma covariance of ``ols`` does not."""

import numpy as np
import pytest

from robidlib.estimation import sandwich_cov
from robidlib.estimation.lsq import ols


def _problem(rng, N=400, sigma=(0.05, 2.0, 0.3)):
    n = len(sigma)
    # joint j's rows excite the parameters differently, as a robot's do
    W = rng.normal(size=(N * n, 4)) * np.tile([[1.0, 0.2, 3.0, 0.5], [0.1, 2.0, 0.3, 1.0], [1.0, 1.0, 0.1, 0.05]], (N, 1))
    return W, np.tile(sigma, N), n


def test_sandwich_matches_a_100_run_monte_carlo():
    rng = np.random.default_rng(42)
    W, s, n = _problem(rng)
    b = np.array([1.0, -0.5, 0.2, 2.0])
    runs = []
    for _ in range(100):
        runs.append(ols(W, W @ b + s * rng.normal(size=s.size)).params)
    mc = np.std(runs, axis=0, ddof=1)
    y = W @ b + s * rng.normal(size=s.size)
    est = ols(W, y)
    joint = np.sqrt(np.diag(sandwich_cov(W, y, est.params, n_joints=n)))
    white = np.sqrt(np.diag(sandwich_cov(W, y)))
    pooled = est.std
    # the Monte Carlo standard deviation of 100 runs has a relative error of 1/sqrt(2 * 99) = 7 %:
    # 25 % is more than 3 of its standard errors
    np.testing.assert_allclose(joint / mc, 1.0, atol=0.25)
    np.testing.assert_allclose(white / mc, 1.0, atol=0.25)
    assert np.max(np.abs(pooled / mc - 1.0)) > 0.5      # the pooled sigma is wrong for some parameter
    # the exact sandwich with the true variances
    A = np.linalg.pinv(W)
    exact = np.sqrt(np.diag((A * s**2) @ A.T))
    np.testing.assert_allclose(joint, exact, rtol=0.15)


def test_sandwich_with_equal_noise_is_the_pooled_covariance():
    rng = np.random.default_rng(1)
    W = rng.normal(size=(600, 3))
    y = W @ [1.0, 2.0, 3.0] + 0.1 * rng.normal(size=600)
    est = ols(W, y)
    C = sandwich_cov(W, y, n_joints=1)           # one "joint": one variance, the pooled one
    np.testing.assert_allclose(C, est.cov, rtol=1e-10)
    np.testing.assert_allclose(sandwich_cov(W, y), sandwich_cov(W, y, est.params), rtol=1e-12)


def test_sandwich_bad_input():
    W = np.random.default_rng(0).normal(size=(10, 2))
    y = np.ones(10)
    with pytest.raises(ValueError, match="W has 10 rows but y has 9"):
        sandwich_cov(W, y[:9])
    with pytest.raises(ValueError, match="rank deficient"):
        sandwich_cov(np.column_stack([W[:, 0], W[:, 0]]), y)
    with pytest.raises(ValueError, match="not a multiple of n_joints=3"):
        sandwich_cov(W, y, n_joints=3)
    with pytest.raises(TypeError, match="n_joints must be a positive int"):
        sandwich_cov(W, y, n_joints=2.0)
    with pytest.raises(ValueError, match=r"params must have shape \(2,\)"):
        sandwich_cov(W, y, params=[1.0])
    with pytest.raises(ValueError, match="must be finite"):
        sandwich_cov(W, np.full(10, np.nan))
    with pytest.raises(ValueError, match="least squares needs more rows than parameters"):
        sandwich_cov(W[:2], y[:2])
