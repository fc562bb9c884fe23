"""Tests of robidlib.estimation.lsq: ols, wls and ridge against closed forms and lstsq."""

from __future__ import annotations

import numpy as np
import pytest

from robidlib.estimation.lsq import ols, ridge, wls


def _problem(seed: int = 0, r: int = 60, p: int = 4, noise: float = 0.1):
    rng = np.random.default_rng(seed)
    W = rng.normal(size=(r, p))
    b = rng.normal(size=p)
    y = W @ b + noise * rng.normal(size=r)
    return W, y, b


# ----------------------------------------------------------------------------- ols
def test_ols_matches_lstsq_and_closed_form_covariance():
    W, y, _ = _problem()
    est = ols(W, y)
    b_ref = np.linalg.lstsq(W, y, rcond=None)[0]
    np.testing.assert_allclose(est.params, b_ref, rtol=1e-10, atol=1e-12)
    res = y - W @ b_ref
    sigma2 = res @ res / (W.shape[0] - W.shape[1])
    np.testing.assert_allclose(est.cov, sigma2 * np.linalg.inv(W.T @ W), rtol=1e-9)
    np.testing.assert_allclose(est.rel_std, 100 * np.sqrt(np.diag(est.cov)) / np.abs(b_ref), rtol=1e-9)
    assert est.method == "ols" and est.rank == 4
    np.testing.assert_allclose(est.cond, np.linalg.cond(W), rtol=1e-10)


def test_ols_bad_input():
    W, y, _ = _problem()
    with pytest.raises(ValueError, match="rows but y has"):
        ols(W, y[:-1])
    with pytest.raises(ValueError, match="rank deficient"):
        ols(np.column_stack([W, W[:, 0]]), y)
    y_nan = y.copy()
    y_nan[3] = np.nan
    with pytest.raises(ValueError, match="y must be finite"):
        ols(W, y_nan)
    with pytest.raises(ValueError, match="names must have 4"):
        ols(W, y, names=["a", "b"])


# ----------------------------------------------------------------------------- wls
def _stacked(sigmas, n_samples: int, p: int, seed: int):
    rng = np.random.default_rng(seed)
    n = len(sigmas)
    W = rng.normal(size=(n_samples * n, p))
    b = rng.uniform(0.5, 2.0, size=p)
    row_sigma = np.tile(sigmas, n_samples)  # sample-major: row k*n + j is joint j
    y = W @ b + row_sigma * rng.normal(size=n_samples * n)
    return W, y, b


def test_wls_with_given_sigmas_matches_lstsq_on_weighted_system():
    sig = np.array([0.1, 2.0, 0.5])
    W, y, _ = _stacked(sig, 80, 4, seed=1)
    est = wls(W, y, n_joints=3, weights=sig)
    s = np.tile(1 / sig, 80)
    Ww, yw = W * s[:, None], y * s
    b_ref = np.linalg.lstsq(Ww, yw, rcond=None)[0]
    np.testing.assert_allclose(est.params, b_ref, rtol=1e-10)
    res = yw - Ww @ b_ref
    s2 = res @ res / (Ww.shape[0] - Ww.shape[1])
    np.testing.assert_allclose(est.cov, s2 * np.linalg.inv(Ww.T @ Ww), rtol=1e-9)
    assert est.method == "wls" and est.info["weights_estimated"] is False
    np.testing.assert_array_equal(est.info["sigma_joint"], sig)
    # with the true sigmas the weighted residual std is close to 1
    assert 0.8 < est.residual_std < 1.2


def test_wls_estimated_sigmas_follow_gautier_formula_exactly():
    sig = np.array([0.3, 1.0])
    W, y, _ = _stacked(sig, 50, 3, seed=2)
    est = wls(W, y, n_joints=2)
    b_ols = np.linalg.lstsq(W, y, rcond=None)[0]
    res = y - W @ b_ols
    expected = [np.sqrt(np.sum(res[j::2] ** 2) / (50 - 3)) for j in range(2)]
    np.testing.assert_allclose(est.info["sigma_joint"], expected, rtol=1e-10)
    assert est.info["weights_estimated"] is True
    # and passing them back gives the same estimate
    again = wls(W, y, n_joints=2, weights=est.info["sigma_joint"])
    np.testing.assert_allclose(again.params, est.params, rtol=1e-12)


def test_wls_recovers_known_per_joint_sigmas():
    sig = np.array([0.5, 1.0, 3.0])
    W, y, _ = _stacked(sig, 3000, 5, seed=3)
    est = wls(W, y, n_joints=3)
    # each sigma from ~3000 residuals: relative sampling error ~ 1/sqrt(2*3000) ~ 1.3 %;
    # the OLS leakage from the noisy joint adds about sqrt(5/9000)*1.9 ~ 0.05 to the smallest
    np.testing.assert_allclose(est.info["sigma_joint"], sig, rtol=0.06)


def test_wls_is_invariant_to_scaling_of_the_weights():
    sig = np.array([0.2, 1.5])
    W, y, _ = _stacked(sig, 40, 3, seed=4)
    a = wls(W, y, 2, weights=sig)
    b = wls(W, y, 2, weights=10 * sig)
    np.testing.assert_allclose(a.params, b.params, rtol=1e-12)
    np.testing.assert_allclose(a.cov, b.cov, rtol=1e-9)


def test_wls_beats_ols_when_joint_noise_differs_tenfold():
    sig = np.array([0.1, 1.0])
    rng = np.random.default_rng(5)
    n_samples, p = 60, 3
    W = rng.normal(size=(2 * n_samples, p))
    b = np.array([1.0, -0.5, 2.0])
    err_ols, err_wls = [], []
    for _ in range(100):
        y = W @ b + np.tile(sig, n_samples) * rng.normal(size=2 * n_samples)
        err_ols.append(np.linalg.norm(ols(W, y).params - b))
        err_wls.append(np.linalg.norm(wls(W, y, 2).params - b))
    assert np.mean(err_wls) < 0.7 * np.mean(err_ols)


def test_wls_bad_input():
    W, y, _ = _stacked([0.1, 1.0], 20, 3, seed=6)
    with pytest.raises(ValueError, match="not a multiple of n_joints=3"):
        wls(W, y, 3)
    with pytest.raises(ValueError, match="n_joints must be >= 1"):
        wls(W, y, 0)
    with pytest.raises(TypeError, match="n_joints must be a positive int"):
        wls(W, y, 2.0)
    with pytest.raises(ValueError, match=r"weights must have shape \(2,\)"):
        wls(W, y, 2, weights=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="must be > 0"):
        wls(W, y, 2, weights=[1.0, 0.0])
    with pytest.raises(ValueError, match="weights must be finite"):
        wls(W, y, 2, weights=[1.0, np.nan])
    with pytest.raises(ValueError, match="rows but y has"):
        wls(W, y[:-2], 2)
    with pytest.raises(ValueError, match="rank deficient"):
        wls(np.column_stack([W, 2 * W[:, 1]]), y, 2)
    # 4 samples per joint for 3 parameters is solvable, but 3 is not enough for the sigmas
    with pytest.raises(ValueError, match="got 3 samples"):
        wls(W[:6], y[:6], 2)


def test_wls_zero_residual_joint_is_reported():
    rng = np.random.default_rng(7)
    n_samples = 20
    W = rng.normal(size=(2 * n_samples, 2))
    y = W @ [1.0, 2.0] + rng.normal(size=2 * n_samples)
    W[0::2] = 0.0  # joint 1 neither moves nor carries torque: residual exactly zero
    y[0::2] = 0.0
    with pytest.raises(ValueError, match=r"joint\(s\) 1 is exactly zero"):
        wls(W, y, 2)


# ----------------------------------------------------------------------------- ridge
def test_ridge_matches_normal_equations_closed_form():
    W, y, _ = _problem(seed=8)
    prior = np.array([0.5, -0.5, 1.0, 0.0])
    lam = 3.0
    est = ridge(W, y, lam, prior=prior)
    A = W.T @ W + lam * np.eye(4)
    b_ref = np.linalg.solve(A, W.T @ y + lam * prior)
    np.testing.assert_allclose(est.params, b_ref, rtol=1e-10)
    dof = np.trace(W @ np.linalg.solve(A, W.T))
    np.testing.assert_allclose(est.info["dof"], dof, rtol=1e-10)
    res = y - W @ b_ref
    sigma2 = res @ res / (W.shape[0] - dof)
    Ai = np.linalg.inv(A)
    np.testing.assert_allclose(est.cov, sigma2 * Ai @ W.T @ W @ Ai, rtol=1e-9)
    np.testing.assert_allclose(est.info["cond_augmented"], np.linalg.cond(np.vstack([W, np.sqrt(lam) * np.eye(4)])), rtol=1e-9)
    assert est.method == "ridge" and est.rank == 4


def test_ridge_tends_to_ols_and_to_prior():
    W, y, _ = _problem(seed=9)
    prior = np.array([3.0, -1.0, 0.2, 5.0])
    b_ols = ols(W, y).params
    small = ridge(W, y, 1e-9, prior=prior)
    np.testing.assert_allclose(small.params, b_ols, atol=1e-8)
    big = ridge(W, y, 1e12, prior=prior)
    np.testing.assert_allclose(big.params, prior, atol=1e-8)
    # the distance to the prior decreases monotonically with lam
    d = [np.linalg.norm(ridge(W, y, lam, prior=prior).params - prior) for lam in (0.1, 1, 10, 100)]
    assert all(d1 > d2 for d1, d2 in zip(d, d[1:]))
    # lam = 0 is exactly OLS
    zero = ridge(W, y, 0.0, prior=prior)
    np.testing.assert_allclose(zero.params, b_ols, rtol=1e-12)
    np.testing.assert_allclose(zero.cov, ols(W, y).cov, rtol=1e-12)


def test_ridge_works_on_rank_deficient_and_underdetermined_w():
    rng = np.random.default_rng(10)
    W = rng.normal(size=(30, 3))
    W = np.column_stack([W, W[:, 0] + W[:, 1]])  # rank 3 of 4
    y = W @ [1.0, 2.0, 3.0, 0.0] + 0.01 * rng.normal(size=30)
    prior = np.array([1.0, 1.0, 1.0, 1.0])
    est = ridge(W, y, 1e-6, prior=prior)
    assert est.rank == 3 and est.cond == np.inf
    # the null-space component (1, 1, 0, -1)/sqrt(3) of the estimate stays at the prior's
    null = np.array([1.0, 1.0, 0.0, -1.0]) / np.sqrt(3)
    np.testing.assert_allclose(null @ est.params, null @ prior, atol=1e-6)
    np.testing.assert_allclose(W @ est.params, W @ [1.0, 2.0, 3.0, 0.0], atol=0.05)
    # no variance along the null space (the prior fixes it): zero up to round-off relative to
    # the covariance's own size (an absolute 1e-20 was a few ulps of it, decided by the BLAS)
    scale = np.linalg.norm(est.cov, 2)
    assert scale > 1e-8                   # the estimate does have variance elsewhere
    assert abs(null @ est.cov @ null) <= 1e-10 * scale
    # fewer rows than columns
    est2 = ridge(W[:2], y[:2], 0.5)
    A = W[:2].T @ W[:2] + 0.5 * np.eye(4)
    np.testing.assert_allclose(est2.params, np.linalg.solve(A, W[:2].T @ y[:2]), rtol=1e-10)
    A_aug = np.vstack([W[:2], np.sqrt(0.5) * np.eye(4)])
    np.testing.assert_allclose(est2.info["cond_augmented"], np.linalg.cond(A_aug), rtol=1e-9)
    assert est2.rank == 2 and est2.cond == np.inf


def test_ridge_covariance_matches_monte_carlo():
    rng = np.random.default_rng(11)
    W = rng.normal(size=(40, 3))
    W[:, 2] = W[:, 1] + 0.05 * rng.normal(size=40)  # ill-conditioned
    b_true = np.array([1.0, 0.5, -0.5])
    sigma, lam = 0.2, 0.5
    runs = np.array([ridge(W, W @ b_true + sigma * rng.normal(size=40), lam).params for _ in range(1500)])
    A = W.T @ W + lam * np.eye(3)
    Ai = np.linalg.inv(A)
    cov_theory = sigma**2 * Ai @ W.T @ W @ Ai
    ratio = np.trace(np.cov(runs.T)) / np.trace(cov_theory)
    assert 0.9 < ratio < 1.1


def test_ridge_bad_input():
    W, y, _ = _problem(seed=12)
    with pytest.raises(ValueError, match="lam must be >= 0"):
        ridge(W, y, -1.0)
    with pytest.raises(ValueError, match="lam must be finite"):
        ridge(W, y, np.nan)
    with pytest.raises(TypeError, match="lam must be a real scalar"):
        ridge(W, y, [1.0])
    with pytest.raises(ValueError, match=r"prior must have shape \(4,\)"):
        ridge(W, y, 1.0, prior=[1.0, 2.0])
    with pytest.raises(ValueError, match="prior must be finite"):
        ridge(W, y, 1.0, prior=[1.0, 2.0, np.inf, 0.0])
    with pytest.raises(ValueError, match="rows but y has"):
        ridge(W[:-1], y, 1.0)
    with pytest.raises(ValueError, match="rank deficient"):
        ridge(np.column_stack([W, W[:, 0]]), y, 0.0)
    with pytest.raises(ValueError, match="names must have 4"):
        ridge(W, y, 1.0, names=["a"])
