"""Tests of robidlib.estimation.adaline (Adaline / LMS and batch gradient descent)."""

from __future__ import annotations

import doctest
import warnings

import numpy as np
import pytest

import robidlib.estimation.adaline as adaline_module
from robidlib.estimation.adaline import Adaline, max_stable_rate
from robidlib.estimation.lsq import ols


def _problem(seed: int, N: int = 150, p: int = 4, noise: float = 0.0):
    rng = np.random.default_rng(seed)
    W = rng.normal(size=(N, p)) + 0.3 * rng.normal(size=(1, p))   # correlated columns, well conditioned
    b = rng.uniform(-2.0, 2.0, size=p)
    y = W @ b + noise * rng.normal(size=N)
    return W, y, b


def test_doctests_run():
    result = doctest.testmod(adaline_module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_max_stable_rate_is_two_over_lambda_max():
    W, _, _ = _problem(0)
    lam = np.linalg.eigvalsh(W.T @ W / W.shape[0]).max()
    assert max_stable_rate(W) == pytest.approx(2.0 / lam, rel=1e-12)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_batch_converges_to_lstsq(seed):
    W, y, _ = _problem(seed, noise=0.1)
    net = Adaline(0.9 * max_stable_rate(W), epochs=3000, mode="batch", tol=1e-14).fit(W, y)
    b_ls = np.linalg.lstsq(W, y, rcond=None)[0]
    assert not net.diverged
    assert np.linalg.norm(net.params - b_ls) / np.linalg.norm(b_ls) < 1e-8


@pytest.mark.parametrize("seed", [4, 5])
def test_sample_mode_converges_to_lstsq_on_noise_free_data(seed):
    W, y, b = _problem(seed)
    rate = 0.2 * max_stable_rate(W) / W.shape[1]
    net = Adaline(rate, epochs=200, mode="sample", rng=np.random.default_rng(seed), tol=1e-13).fit(W, y)
    b_ls = np.linalg.lstsq(W, y, rcond=None)[0]
    assert np.linalg.norm(net.params - b_ls) / np.linalg.norm(b_ls) < 1e-8
    assert np.allclose(net.params, b, rtol=1e-7)


def test_batch_converges_below_and_diverges_above_the_bound():
    W, y, _ = _problem(6)
    bound = max_stable_rate(W)
    below = Adaline(0.98 * bound, epochs=400, mode="batch").fit(W, y)
    h = below.history
    assert not below.diverged
    assert h["mse"][-1] < 1e-12 * h["mse"][0]
    assert np.all(np.diff(h["mse"]) <= 1e-12 * h["mse"][0])          # gradient descent below 2/L: monotone
    with pytest.warns(RuntimeWarning, match="diverged"):
        above = Adaline(1.02 * bound, epochs=400, mode="batch").fit(W, y)
    assert above.diverged
    mse = above.history["mse"]
    assert mse[-1] > 1e6 * mse[0]
    assert above.n_epochs < 400                                        # stopped at the blow-up


def test_huge_rate_does_not_crash_on_overflow():
    W, y, _ = _problem(7)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                                 # numpy overflow warnings would fail here
        with pytest.raises(RuntimeWarning, match="diverged"):
            Adaline(1e200, epochs=50, mode="sample", shuffle=False).fit(W, y)
    with pytest.warns(RuntimeWarning, match="diverged"):
        net = Adaline(1e200, epochs=50, mode="sample", shuffle=False).fit(W, y)
    assert net.diverged and net.n_epochs <= 2


def test_normalized_lms_converges_whatever_the_input_scale():
    W, y, b = _problem(8)
    scale = 10.0 ** np.linspace(-2, 2, W.shape[0])                    # rows from slow to fast motions
    W, y = W * scale[:, None], y * scale                               # same exact solution b
    nlms = Adaline(0.5, epochs=400, normalized=True, rng=8, tol=1e-13).fit(W, y)
    assert not nlms.diverged
    assert np.allclose(nlms.params, b, rtol=1e-7)
    with pytest.warns(RuntimeWarning, match="diverged"):
        assert Adaline(0.5, epochs=400, rng=8).fit(W, y).diverged     # the same rate unnormalised
    W, y = 1e3 * W, 1e3 * y                                            # normalised batch: bound is 2
    h = Adaline(1.9, epochs=3000, mode="batch", normalized=True).fit(W, y).history
    assert h["mse"][-1] < 1e-20 * h["mse"][0]
    with pytest.warns(RuntimeWarning, match="diverged"):
        assert Adaline(2.1, epochs=3000, mode="batch", normalized=True).fit(W, y).diverged


def test_condition_number_sets_the_speed():
    rng = np.random.default_rng(9)
    Q, _ = np.linalg.qr(rng.normal(size=(200, 3)))
    epochs_needed = []
    for cond in (2.0, 20.0):
        W = Q * np.array([1.0, np.sqrt(cond), cond]) * np.sqrt(200)   # W'W/N has eigenvalues 1, cond, cond^2
        y = W @ np.ones(3)
        net = Adaline(0.9 * max_stable_rate(W), epochs=100000, mode="batch", tol=1e-10).fit(W, y)
        assert net.converged
        epochs_needed.append(net.n_epochs)
    assert epochs_needed[1] > 20 * epochs_needed[0]


def test_partial_fit_equals_one_unshuffled_epoch():
    W, y, _ = _problem(10)
    whole = Adaline(0.01, epochs=1, shuffle=False).fit(W, y)
    online = Adaline(0.01, shuffle=False)
    for k in range(W.shape[0]):
        online.partial_fit(W[k], y[k])
    assert np.allclose(online.params, whole.params, rtol=0, atol=1e-14)
    block = Adaline(0.01, shuffle=False).partial_fit(W, y)           # a block is processed row by row
    assert np.allclose(block.params, whole.params, rtol=0, atol=1e-14)
    h = online.history
    assert h["weights"].shape == (W.shape[0], W.shape[1]) and np.all(h["epoch"] == -1)


def test_shuffling_is_reproducible_and_seed_dependent():
    W, y, _ = _problem(11, noise=0.5)
    a = Adaline(0.01, epochs=3, rng=123).fit(W, y).params
    b = Adaline(0.01, epochs=3, rng=np.random.default_rng(123)).fit(W, y).params
    c = Adaline(0.01, epochs=3, rng=124).fit(W, y).params
    assert np.array_equal(a, b)
    assert not np.allclose(a, c, rtol=0, atol=1e-12)


def test_history_records_every_epoch_and_w0_is_used():
    W, y, _ = _problem(12)
    w0 = np.full(W.shape[1], 0.5)
    net = Adaline(0.5 * max_stable_rate(W), epochs=7, mode="batch", w0=w0).fit(W, y)
    h = net.history
    assert h["weights"].shape == (8, W.shape[1]) and h["mse"].shape == (8,)
    assert np.array_equal(h["epoch"], np.arange(8))
    assert np.array_equal(h["weights"][0], w0)
    assert h["mse"][0] == pytest.approx(np.mean((y - W @ w0) ** 2))
    assert np.array_equal(h["weights"][-1], net.params)


def test_to_estimate_matches_ols_at_convergence():
    W, y, _ = _problem(13, noise=0.2)
    net = Adaline(0.9 * max_stable_rate(W), epochs=5000, mode="batch", tol=1e-15).fit(W, y)
    est, ref = net.to_estimate(W, y, names=list("abcd")), ols(W, y)
    assert est.method == "adaline" and est.names == tuple("abcd")
    assert np.allclose(est.params, ref.params, rtol=1e-9)
    assert np.allclose(est.cov, ref.cov, rtol=1e-6)
    assert est.residual_std == pytest.approx(ref.residual_std, rel=1e-9)


def test_predict():
    W, y, _ = _problem(14)
    net = Adaline(0.9 * max_stable_rate(W), epochs=2000, mode="batch").fit(W, y)
    assert np.allclose(net.predict(W), y, atol=1e-8)
    with pytest.raises(ValueError, match="columns"):
        net.predict(W[:, :2])


# ---------------------------------------------------------------------- bad input
@pytest.mark.parametrize("rate", [0.0, -0.1, np.nan, np.inf])
def test_bad_learning_rate(rate):
    with pytest.raises(ValueError, match="learning_rate"):
        Adaline(rate, rng=0)


def test_bad_constructor_arguments():
    with pytest.raises(ValueError, match="epochs"):
        Adaline(0.1, epochs=0, rng=0)
    with pytest.raises(ValueError, match="mode"):
        Adaline(0.1, mode="minibatch", rng=0)
    with pytest.raises(TypeError, match="rng"):
        Adaline(0.1)                                                   # shuffling needs a seed
    with pytest.raises(TypeError, match="rng"):
        Adaline(0.1, rng=0.5)
    with pytest.raises(ValueError, match="tol"):
        Adaline(0.1, rng=0, tol=-1.0)
    Adaline(0.1, mode="batch")                                         # no randomness, no seed needed
    Adaline(0.1, shuffle=False)


def test_bad_data():
    W, y, _ = _problem(15)
    net = Adaline(0.01, rng=0)
    Wn = W.copy()
    Wn[3, 1] = np.nan
    with pytest.raises(ValueError, match="W must be finite"):
        net.fit(Wn, y)
    with pytest.raises(ValueError, match="y must be finite"):
        net.fit(W, np.where(np.arange(y.size) == 0, np.inf, y))
    with pytest.raises(ValueError, match="rows"):
        net.fit(W, y[:-1])
    with pytest.raises(ValueError, match="W must have 2"):
        net.fit(W[:, 0], y)
    with pytest.raises(ValueError, match="w0"):
        Adaline(0.01, rng=0, w0=[1.0, 2.0]).fit(W, y)
    with pytest.raises(RuntimeError, match="fit"):
        Adaline(0.01, rng=0).params
    net.partial_fit(W[0], y[0])
    with pytest.raises(ValueError, match="x_row"):
        net.partial_fit(W[0, :2], y[0])
    with pytest.raises(ValueError, match="t has"):
        net.partial_fit(W[:3], y[:2])
    with pytest.raises(ValueError, match="zero"):
        max_stable_rate(np.zeros((4, 2)))
    with pytest.raises(ValueError, match="rank deficient"):
        Adaline(0.01, mode="batch").fit(np.ones((10, 2)), np.ones(10)).to_estimate(np.ones((10, 2)), np.ones(10))
