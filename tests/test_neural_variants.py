"""Tests of the Estimate-returning variants of Adaline and the Hopfield network.

Weighted rows (divided by the per-joint noise sigma), a fixed budget started at a prior, and
on-line runs: the variants a fair benchmark gives the same information as WLS, MAP and the EKF.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from robidlib.estimation import (
    Estimate,
    adaline_batch,
    adaline_online,
    hopfield_batch,
    hopfield_online,
    ols,
    recursive_least_squares,
    whiten_rows,
    wls,
)
from robidlib.estimation.hopfield import HopfieldEstimator

SIGMA = np.array([0.05, 0.5])


def _stacked(seed=0, N=150, p=3, sigma=SIGMA):
    """Sample-major stacked system of a 2-joint 'robot' with per-joint noise."""
    rng = np.random.default_rng(seed)
    Y = rng.normal(size=(N, 2, p)) * rng.uniform(0.5, 2.0, size=p)
    b = rng.uniform(-2.0, 2.0, size=p)
    tau = Y @ b + sigma * rng.normal(size=(N, 2))
    return Y, tau, b


def _ill(seed=1, r=200, p=5, cond=1e4, noise=0.05):
    """A regressor with prescribed condition number, its truth and noisy targets."""
    rng = np.random.default_rng(seed)
    U = np.linalg.qr(rng.normal(size=(r, p)))[0]
    V = np.linalg.qr(rng.normal(size=(p, p)))[0]
    s = np.geomspace(1.0, 1.0 / cond, p) * np.sqrt(r)
    W = (U * s) @ V.T
    b = rng.uniform(-1.0, 1.0, size=p)
    return W, W @ b + noise * rng.normal(size=r), b, s, V


# ------------------------------------------------------------------ whiten_rows
def test_whiten_rows_then_ols_is_wls():
    Y, tau, _ = _stacked()
    W, y = Y.reshape(-1, 3), tau.ravel()
    Ww, yw = whiten_rows(W, y, 2, SIGMA)
    assert np.allclose(Ww[1::2], W[1::2] / SIGMA[1]) and np.allclose(yw[0::2], y[0::2] / SIGMA[0])
    assert np.allclose(ols(Ww, yw).params, wls(W, y, 2, weights=SIGMA).params, rtol=1e-10)
    # a scalar sigma divides every row
    Ws, _ = whiten_rows(W, y, 2, 2.0)
    assert np.allclose(Ws, W / 2.0)


def test_whiten_rows_bad_input():
    W, y = np.ones((6, 2)), np.ones(6)
    with pytest.raises(ValueError, match="sigma must be a scalar or have shape \\(2,\\)"):
        whiten_rows(W, y, 2, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="must be > 0"):
        whiten_rows(W, y, 2, [1.0, 0.0])
    with pytest.raises(ValueError, match="not a multiple of n_joints=4"):
        whiten_rows(W, y, 4, 1.0)
    with pytest.raises(TypeError, match="n_joints must be a positive int"):
        whiten_rows(W, y, 2.0, 1.0)
    with pytest.raises(ValueError, match="sigma must be given"):
        whiten_rows(W, y, 2, None)
    with pytest.raises(ValueError, match="sigma must be finite"):
        whiten_rows(W, y, 2, [1.0, np.nan])
    with pytest.raises(ValueError, match="rows but y has"):
        whiten_rows(W, y[:4], 2, 1.0)
    with pytest.raises(TypeError, match="numeric"):
        whiten_rows(W, y, 2, "1.0")


# ------------------------------------------------------------------ adaline_batch
def test_adaline_batch_converges_to_ols_and_wls():
    Y, tau, _ = _stacked()
    W, y = Y.reshape(-1, 3), tau.ravel()
    est = adaline_batch(W, y, names=["a", "b", "c"])
    assert isinstance(est, Estimate) and est.method == "adaline" and est.names == ("a", "b", "c")
    assert est.info["converged"] and est.info["sigma_joint"] is None
    ref = ols(W, y)
    assert np.allclose(est.params, ref.params, rtol=1e-7, atol=1e-9)
    assert np.allclose(est.cov, ref.cov, rtol=1e-6)
    w = adaline_batch(W, y, n_joints=2, sigma=SIGMA)
    ref_w = wls(W, y, 2, weights=SIGMA)
    assert np.allclose(w.params, ref_w.params, rtol=1e-7, atol=1e-9)
    assert np.allclose(w.cov, ref_w.cov, rtol=1e-6)
    assert np.allclose(w.info["sigma_joint"], SIGMA)
    # weighting matters here: WLS and OLS differ by more than the convergence tolerance
    assert np.linalg.norm(w.params - est.params) > 1e-4


def test_adaline_batch_equilibrated_reaches_the_same_solution():
    W, y, _, _, _ = _ill(cond=10.0)
    W = W * [1.0, 10.0, 0.1, 3.0, 1.0]                     # columns of very different size
    ref = ols(W, y).params
    eq = adaline_batch(W, y, equilibrate=True, tol=1e-12)
    assert eq.info["equilibrated"] and eq.info["converged"]
    assert np.allclose(eq.params, ref, rtol=1e-7, atol=1e-9)
    # the preconditioner pays: without it ten times the epochs do not converge
    raw = adaline_batch(W, y, tol=1e-12, max_epochs=10 * eq.info["epochs"])
    assert not raw.info["converged"] and raw.info["epochs"] == 10 * eq.info["epochs"]


def test_adaline_batch_budget_is_the_landweber_filter():
    W, y, _, s, _ = _ill(cond=1e3)
    r = W.shape[0]
    w0 = np.array([0.3, -0.2, 0.1, 0.0, 0.5])
    k = 50
    est = adaline_batch(W, y, w0=w0, epochs=k, rate=0.5)
    assert est.info["epochs"] == k and est.info["budget"] == k and not est.info["converged"]
    gamma = est.info["learning_rate"]
    assert np.isclose(gamma, 0.5 * 2.0 / (s[0] ** 2 / r))
    # closed form: w_k - w_ls = V diag((1 - gamma s_i^2 / r)^k) V' (w0 - w_ls)
    w_ls = np.linalg.lstsq(W, y, rcond=None)[0]
    _, sv, Vt = np.linalg.svd(W, full_matrices=False)
    filt = (1.0 - gamma * sv**2 / r) ** k
    expected = w_ls + Vt.T @ (filt * (Vt @ (w0 - w_ls)))
    assert np.allclose(est.params, expected, rtol=1e-9, atol=1e-12)
    # zero epochs return the prior itself
    assert np.array_equal(adaline_batch(W, y, w0=w0, epochs=0).params, w0)


def test_adaline_batch_budget_from_a_good_prior_beats_ols_on_poor_data():
    # badly conditioned data, a prior 5 % off: early stopping keeps the unexcited directions
    W, y, b, _, _ = _ill(cond=1e5, noise=0.01)
    prior = b * 1.05
    err = lambda x: np.linalg.norm(x - b) / np.linalg.norm(b)
    e_ols = err(ols(W, y).params)
    e_budget = err(adaline_batch(W, y, w0=prior, epochs=200).params)
    assert e_ols > 1.0                   # OLS is useless: noise 0.01 amplified by up to 1e5/sqrt(r)
    assert e_budget < err(prior) < e_ols


def test_adaline_batch_bad_input():
    W, y = np.random.default_rng(0).normal(size=(20, 2)), np.ones(20)
    with pytest.raises(ValueError, match="rate .* must be < 1"):
        adaline_batch(W, y, rate=1.0)
    with pytest.raises(ValueError, match="rate must be > 0"):
        adaline_batch(W, y, rate=0.0)
    with pytest.raises(ValueError, match="epochs must be a non-negative integer"):
        adaline_batch(W, y, epochs=-1)
    with pytest.raises(ValueError, match="epochs must be a non-negative integer"):
        adaline_batch(W, y, epochs=2.5)
    with pytest.raises(ValueError, match="epochs must be a non-negative integer"):
        adaline_batch(W, y, epochs=True)
    with pytest.raises(ValueError, match="needs n_joints"):
        adaline_batch(W, y, sigma=[1.0, 2.0])
    with pytest.raises(ValueError, match="w0 must have shape \\(2,\\)"):
        adaline_batch(W, y, w0=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="W must be finite"):
        adaline_batch(np.where(W > 1, np.nan, W), y)
    with pytest.raises(ValueError, match="all-zero column"):
        adaline_batch(np.c_[W, np.zeros(20)], y, equilibrate=True)
    with pytest.raises(ValueError, match="rank deficient"):
        adaline_batch(np.c_[W, W[:, :1]], y, epochs=5)
    with pytest.raises(ValueError, match="at least one row"):
        adaline_batch(np.empty((0, 2)), np.empty(0))


# ------------------------------------------------------------------ adaline_online
def test_adaline_online_is_normalised_block_lms():
    Y, tau, b = _stacked(sigma=np.zeros(2))
    est = adaline_online(Y, tau, rate=0.7, passes=3)
    assert est.method == "adaline-online" and est.info["history"].shape == (3 * len(Y) + 1, 3)
    assert np.allclose(est.params, b, atol=1e-8)                     # exact data: converges
    # from scratch, the first three samples
    w = np.zeros(3)
    for k in range(3):
        X = Y[k]
        w = w + 0.7 * X.T @ (tau[k] - X @ w) / (np.sum(X * X) + 1e-12)
        assert np.allclose(est.info["history"][k + 1], w, rtol=1e-12)
    # one row per sample (N, p) is plain NLMS
    flat = adaline_online(Y[:, 0, :], tau[:, 0], rate=1.0)
    x = Y[0, 0]
    assert np.allclose(flat.info["history"][1], x * tau[0, 0] / (x @ x + 1e-12))


def test_adaline_online_weighting():
    Y, tau, _ = _stacked()
    plain = adaline_online(Y, tau, rate=0.3)
    weighted = adaline_online(Y, tau, rate=0.3, sigma=SIGMA)
    pre = adaline_online(Y / SIGMA[None, :, None], tau / SIGMA, rate=0.3)
    assert np.allclose(weighted.params, pre.params)
    assert not np.allclose(weighted.params, plain.params, rtol=1e-3)
    assert np.allclose(weighted.info["sigma_joint"], SIGMA)


def test_adaline_online_bad_input():
    Y, tau, _ = _stacked(N=10)
    with pytest.raises(ValueError, match="in \\]0, 2\\["):
        adaline_online(Y, tau, rate=2.0)
    with pytest.raises(ValueError, match="passes must be a positive integer"):
        adaline_online(Y, tau, passes=0)
    with pytest.raises(ValueError, match="tau must have shape \\(10, 2\\)"):
        adaline_online(Y, tau[:, :1])
    with pytest.raises(ValueError, match="one value per joint"):
        adaline_online(Y, tau, sigma=[1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="w0 must have shape"):
        adaline_online(Y, tau, w0=[0.0])
    with pytest.raises(ValueError, match="Y must be finite"):
        adaline_online(np.full_like(Y, np.inf), tau)
    with pytest.raises(ValueError, match="with Y of shape \\(N, p\\)"):
        adaline_online(Y[:, 0], tau)


# ------------------------------------------------------------------ recursive least squares
def test_rls_equals_batch_least_squares():
    Y, tau, _ = _stacked()
    W, y = Y.reshape(-1, 3), tau.ravel()
    est = recursive_least_squares(Y, tau, p0=1e8)
    assert est.method == "rls" and est.info["history"].shape == (len(Y) + 1, 3)
    assert np.allclose(est.params, ols(W, y).params, rtol=1e-6, atol=1e-8)
    w = recursive_least_squares(Y, tau, sigma=SIGMA, p0=1e8)
    assert np.allclose(w.params, wls(W, y, 2, weights=SIGMA).params, rtol=1e-6, atol=1e-8)


def test_rls_forgetting_is_exponentially_weighted_least_squares():
    Y, tau, _ = _stacked(N=80)
    lam = 0.9
    est = recursive_least_squares(Y, tau, forgetting=lam, p0=1e9)
    for k in (20, 50, 79):
        g = np.sqrt(lam ** np.arange(k, -1, -1))[:, None]
        Wk = (Y[: k + 1] * g[:, :, None]).reshape(-1, 3)
        yk = (tau[: k + 1] * g).ravel()
        assert np.allclose(est.info["history"][k + 1], np.linalg.lstsq(Wk, yk, rcond=None)[0], rtol=1e-5)


def test_rls_bad_input():
    Y, tau, _ = _stacked(N=10)
    with pytest.raises(ValueError, match="forgetting must be in \\]0, 1\\]"):
        recursive_least_squares(Y, tau, forgetting=1.5)
    with pytest.raises(ValueError, match="forgetting must be > 0"):
        recursive_least_squares(Y, tau, forgetting=0.0)
    with pytest.raises(ValueError, match="p0 must be > 0"):
        recursive_least_squares(Y, tau, p0=-1.0)
    with pytest.raises(ValueError, match="tau must be finite"):
        recursive_least_squares(Y, np.full_like(tau, np.nan))


# ------------------------------------------------------------------ hopfield_batch
def test_hopfield_batch_is_wls_and_ols():
    Y, tau, _ = _stacked()
    W, y = Y.reshape(-1, 3), tau.ravel()
    est = hopfield_batch(W, y, alpha=6.0, beta=1.0)
    assert est.method == "hopfield" and est.info["budget"] is None
    assert np.allclose(est.params, ols(W, y).params, rtol=1e-6)
    w = hopfield_batch(W, y, alpha=6.0, n_joints=2, sigma=SIGMA, names=["a", "b", "c"])
    assert np.allclose(w.params, wls(W, y, 2, weights=SIGMA).params, rtol=1e-6)
    assert w.names == ("a", "b", "c") and np.allclose(w.info["sigma_joint"], SIGMA)


def test_hopfield_batch_budget_from_prior():
    W, y, b, _, _ = _ill(cond=1e3)
    prior = 1.05 * b
    alpha = 3.0
    net = HopfieldEstimator(alpha, 1.0)
    tc = net.time_constants(W, prior)
    w_ls = ols(W, y).params
    dist = [np.linalg.norm(hopfield_batch(W, y, alpha=alpha, S0=prior, t_final=f * tc[0]).params - w_ls)
            for f in (1e-6, 0.1, 1.0)]
    assert dist[0] == pytest.approx(np.linalg.norm(prior - w_ls), rel=1e-3)   # barely moved
    assert dist[0] > dist[1] > dist[2]
    est = hopfield_batch(W, y, alpha=alpha, S0=prior, t_final=0.1 * tc[0])
    assert est.info["budget"] == pytest.approx(0.1 * tc[0])


def test_hopfield_batch_bad_input():
    W, y = np.random.default_rng(0).normal(size=(20, 2)), np.ones(20)
    with pytest.raises(ValueError, match="needs n_joints"):
        hopfield_batch(W, y, alpha=2.0, sigma=1.0)
    with pytest.raises(ValueError, match="t_final must be > 0"):
        hopfield_batch(W, y, alpha=2.0, t_final=0.0)
    with pytest.raises(ValueError, match="n_tc must be > 0"):
        hopfield_batch(W, y, alpha=2.0, n_tc=-1.0)
    with pytest.raises(ValueError, match="full column rank"):
        hopfield_batch(np.c_[W, W[:, :1]], y, alpha=2.0)
    with pytest.raises(ValueError, match="strictly inside"):
        hopfield_batch(W, y, alpha=2.0, S0=[3.0, 0.0])
    with pytest.raises(ValueError, match="alpha must be > 0"):
        hopfield_batch(W, y, alpha=-1.0)
    with pytest.raises(ValueError, match="rows but tau has"):
        hopfield_batch(W, y[:3], alpha=2.0)


# ------------------------------------------------------------------ hopfield_online
def test_hopfield_online_window_one_is_the_papers_form():
    rng = np.random.default_rng(4)
    N = 300
    t = np.arange(N) * 0.02
    Phi = rng.normal(size=(N, 2, 3))
    b = np.array([0.5, -1.0, 1.5])
    tau = Phi @ b
    est = hopfield_online(Phi, tau, t, alpha=3.0, beta=0.05)
    assert est.method == "hopfield-online" and est.info["window"] == 1
    assert est.info["history"]["S"].shape == (N, 3)
    assert np.allclose(est.params, b, atol=1e-3)
    # the same as HopfieldEstimator.run_online(window=1)
    ref = HopfieldEstimator(3.0, 0.05, check=False).run_online(Phi, tau, t, window=1)
    assert np.allclose(est.info["history"]["S"], ref.history["S"], rtol=1e-6, atol=1e-9)


def test_hopfield_online_weighted_and_forgetting():
    Y, tau, _ = _stacked(N=60)
    t = np.arange(60) * 0.05
    w = hopfield_online(Y, tau, t, alpha=6.0, beta=0.05, sigma=SIGMA, window=None, forgetting=0.95)
    pre = hopfield_online(Y / SIGMA[None, :, None], tau / SIGMA, t, alpha=6.0, beta=0.05, window=None,
                          forgetting=0.95)
    assert np.allclose(w.info["history"]["S"], pre.info["history"]["S"])
    assert w.info["forgetting"] == 0.95 and np.allclose(w.info["sigma_joint"], SIGMA)


def test_hopfield_online_bad_input():
    Y, tau, _ = _stacked(N=10)
    t = np.arange(10) * 0.1
    with pytest.raises(ValueError, match="one value per joint"):
        hopfield_online(Y, tau, t, alpha=3.0, beta=0.1, sigma=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="strictly increasing"):
        hopfield_online(Y, tau, t[::-1], alpha=3.0, beta=0.1)
    with pytest.raises(ValueError, match="window must be a positive integer"):
        hopfield_online(Y, tau, t, alpha=3.0, beta=0.1, window=0)
    with pytest.raises(ValueError, match="not both"):
        hopfield_online(Y, tau, t, alpha=3.0, beta=0.1, forgetting=0.9)
    with pytest.raises(ValueError, match="beta must be > 0"):
        hopfield_online(Y, tau, t, alpha=3.0, beta=0.0)


def test_hopfield_online_window_one_does_not_warn_about_an_undetermined_ls():
    # the last sample alone (2 rows, 3 parameters) has a minimum-norm LS solution far outside
    # the box; it is not unique, so the network must not warn about it
    rng = np.random.default_rng(5)
    t = np.arange(50) * 0.02
    Phi = rng.normal(size=(50, 2, 3))
    tau = Phi @ np.array([0.5, -1.0, 1.5]) + 0.01 * rng.normal(size=(50, 2))
    Phi[-1] = [[1e-3, 0.0, 0.0], [0.0, 1e-3, 0.0]]
    tau[-1] = [1.0, 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hopfield_online(Phi, tau, t, alpha=3.0, beta=0.05)
