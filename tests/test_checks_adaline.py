"""Tests of the chapter-6 exercise checks (Adaline)."""

import doctest
import math

import numpy as np
import pytest

from robidlib.checks import adaline
from robidlib.checks.adaline import (
    check_delta_rule_epoch,
    check_early_stopping,
    check_epoch_prediction,
    check_stable_rate,
)
from robidlib.estimation.adaline import Adaline, adaline_batch, max_stable_rate


def test_doctests_run():
    result = doctest.testmod(adaline, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


@pytest.fixture
def W():
    return np.random.default_rng(4).normal(size=(40, 3)) * [1.0, 3.0, 0.2]


def test_stable_rate_right_and_common_mistakes(W, capsys):
    lam = np.linalg.eigvalsh(W.T @ W / len(W))
    assert check_stable_rate(W, 2 / lam[-1])
    assert check_stable_rate(W, max_stable_rate(W))           # agrees with the library
    assert "\u2714" in capsys.readouterr().out
    assert not check_stable_rate(W, 1 / lam[-1])
    assert "1 / lambda_max" in capsys.readouterr().out
    assert not check_stable_rate(W, 2 / (lam[-1] * len(W)))
    assert "dividing by N" in capsys.readouterr().out
    assert not check_stable_rate(W, 2 / lam[0])
    assert "smallest eigenvalue" in capsys.readouterr().out
    assert not check_stable_rate(W, 1.234)
    assert "\u2718" in capsys.readouterr().out


def test_stable_rate_accepts_rounded_and_any_dtype(W, capsys):
    bound = max_stable_rate(W)
    assert check_stable_rate(W, float(f"{bound:.4g}"))               # four digits are enough
    assert check_stable_rate(W, np.float32(bound))
    assert check_stable_rate(W, [bound]) == False                      # a list is not a number
    assert "shape ()" in capsys.readouterr().out.splitlines()[-1]
    assert check_stable_rate(W, np.array(bound))
    assert not check_stable_rate(W, 1.01 * bound)
    out = capsys.readouterr().out
    assert "differs by 1 %" in out                                     # numbers that look equal say so
    assert not check_stable_rate(W, 2 / np.trace(W.T @ W / len(W)))
    assert "2 / tr R" in capsys.readouterr().out


def test_stable_rate_never_raises_on_the_answer(W, capsys):
    for bad, msg in (("0.1", "must be numbers"), (None, "is None"), (np.nan, "NaN"), (..., "not answered yet"),
                     (1j, "complex"), ([0.1, 0.2], "shape ()")):
        assert check_stable_rate(W, bad) == False
        out = capsys.readouterr().out
        assert out.startswith("\u2718") and msg in out, (bad, out)


def test_stable_rate_misuse_raises(W):
    with pytest.raises(ValueError, match="2-D"):
        check_stable_rate(np.ones(3), 0.1)
    with pytest.raises(ValueError, match="finite numbers"):
        check_stable_rate(np.full((3, 2), np.inf), 0.1)
    with pytest.raises(ValueError, match="identically zero"):
        check_stable_rate(np.zeros((3, 2)), 0.1)
    with pytest.raises(TypeError, match="W must be numeric"):
        check_stable_rate("W", 0.1)
    with pytest.raises(TypeError, match="bools"):
        check_stable_rate(np.ones((3, 2), dtype=bool), 0.1)


def _lms_epoch(w, W, d, gamma):
    w = np.array(w, dtype=float)
    for x, dk in zip(W, d):
        w = w + gamma * (dk - x @ w) * x
    return w


def test_delta_rule_epoch(capsys):
    assert check_delta_rule_epoch(_lms_epoch)
    # the library's delta rule is the same thing
    lib = lambda w, W, d, g: Adaline(g, epochs=1, shuffle=False, w0=w).fit(W, d).params  # noqa: E731
    assert check_delta_rule_epoch(lib)
    capsys.readouterr()

    batch = lambda w, W, d, g: w + g * W.T @ (d - W @ w)  # noqa: E731
    assert not check_delta_rule_epoch(batch)
    assert "batch gradient" in capsys.readouterr().out

    def wrong_sign(w, W, d, g):
        w = np.array(w, dtype=float)
        for x, dk in zip(W, d):
            w = w - g * (dk - x @ w) * x
        return w

    assert not check_delta_rule_epoch(wrong_sign)
    assert "wrong sign" in capsys.readouterr().out

    def in_place(w, W, d, g):
        for x, dk in zip(W, d):
            w += g * (dk - x @ w) * x
        return w

    assert not check_delta_rule_epoch(in_place)
    assert "in place" in capsys.readouterr().out

    def stale(w, W, d, g):  # uses the initial weights for every error
        w0 = np.array(w, dtype=float)
        return w0 + sum(g * (dk - x @ w0) * x for x, dk in zip(W, d)) * 0.5

    assert not check_delta_rule_epoch(stale)
    assert not check_delta_rule_epoch(lambda w, W, d, g: np.zeros(5))
    assert "shape (3,)" in capsys.readouterr().out
    assert not check_delta_rule_epoch(lambda w, W, d, g: np.full(3, np.nan))
    assert not check_delta_rule_epoch(lambda w, W, d, g: 1 / 0)
    assert "ZeroDivisionError" in capsys.readouterr().out
    assert not check_delta_rule_epoch(np.zeros(3))
    assert "expected a function" in capsys.readouterr().out


def test_delta_rule_untouched_stub_and_none(capsys):
    def stub(w, W, d, gamma):
        ...  # your code here

    assert check_delta_rule_epoch(stub) == False
    assert "not answered yet" in capsys.readouterr().out
    assert check_delta_rule_epoch(...) == False
    assert "not answered yet" in capsys.readouterr().out

    def unwritten(w, W, d, gamma):
        raise NotImplementedError

    assert check_delta_rule_epoch(unwritten) == False
    assert "not written yet (it raises NotImplementedError)" in capsys.readouterr().out


def test_delta_rule_float32_and_list_answers(capsys):
    def epoch32(w, W, d, gamma):
        w = np.array(w, dtype=np.float32)
        for x, dk in zip(W.astype(np.float32), d.astype(np.float32)):
            w = w + np.float32(gamma) * (dk - x @ w) * x
        return w

    assert check_delta_rule_epoch(epoch32)
    assert check_delta_rule_epoch(lambda w, W, d, g: _lms_epoch(w, W, d, g).tolist())
    capsys.readouterr()


def test_epoch_prediction_matches_a_real_run(W, capsys):
    lam = np.linalg.eigvalsh(W.T @ W / len(W))
    k = math.ceil(math.log(1e-6) / math.log(1 - lam[0] / lam[-1]))
    exact = math.log(1e-6) / math.log(1 - lam[0] / lam[-1])
    assert check_epoch_prediction(W, k)
    assert check_epoch_prediction(W, exact) and check_epoch_prediction(W, k - 1)   # unrounded, floor
    assert not check_epoch_prediction(W, k + 2)
    assert not check_epoch_prediction(W, k * 1.2)
    assert not check_epoch_prediction(W, k / 3)
    capsys.readouterr()
    # the approximation the exercise forbids, kappa ln(1e6), about 7 epochs above the exact count
    approx = lam[-1] / lam[0] * math.log(1e6)
    assert 5 < approx - exact < 8
    for answer in (approx, math.ceil(approx), round(approx)):
        assert not check_epoch_prediction(W, answer)
        assert "approximation kappa ln(1/tol)" in capsys.readouterr().out
    # the prediction is what batch gradient descent really does on the slowest mode
    _, _, Vt = np.linalg.svd(W, full_matrices=False)
    v = Vt[-1]
    y = W @ v  # the solution is the slowest eigenvector: its error starts at 1
    net = Adaline(1.0 / lam[-1], epochs=k, mode="batch").fit(W, y)
    err = np.linalg.norm(net.history["weights"] - v, axis=1)
    assert err[k] <= 1e-6 < err[k - 2]
    capsys.readouterr()
    kc = math.ceil(math.log(1e-6) / math.log(1 - 1 / math.sqrt(lam[-1] / lam[0])))
    assert not check_epoch_prediction(W, kc)
    assert "cond(W)^2" in capsys.readouterr().out


def test_epoch_prediction_refuses_the_approximation_on_the_chapter_data(capsys):
    """Chapter 6's planar-arm regressor (its recipe): kappa ln(1e6) is refused (issue 28, item 9)."""
    from robidlib.base import base_parameters
    from robidlib.models import planar_2r
    from robidlib.regressor import regressor, stack
    from robidlib.trajectories import FourierTrajectory

    arm = planar_2r()
    bp = base_parameters(arm, rng=0)
    g = np.random.default_rng(0)                   # the chapter's scaled_fourier(arm, ..., seed=0)
    a, b = g.uniform(-1.0, 1.0, size=(2, arm.n, 3))
    lo, hi = arm.q_limits.T
    wf = 2 * np.pi * 0.2
    pos, vel, acc = FourierTrajectory(wf, a, b, (lo + hi) / 2).amplitude_bounds()
    sc = 0.9 * np.minimum.reduce([(hi - lo) / 2 / pos, arm.qd_limits / vel, arm.qdd_limits / acc])
    traj = FourierTrajectory(wf, a * sc[:, None], b * sc[:, None], (lo + hi) / 2)
    q, qd, qdd = traj.evaluate(np.arange(0.0, 5.0, 0.01))
    Wc, _ = stack(bp.reduce(regressor(arm, q, qd, qdd)), np.zeros((q.shape[0], 2)))
    lam = np.linalg.eigvalsh(Wc.T @ Wc / len(Wc))
    kappa = lam[-1] / lam[0]
    k = math.ceil(math.log(1e-6) / math.log(1 - 1 / kappa))
    assert 5 < kappa * math.log(1e6) - k < 8       # the 716 against 710
    assert check_epoch_prediction(Wc, k)
    capsys.readouterr()
    assert not check_epoch_prediction(Wc, round(kappa * math.log(1e6)))
    assert "approximation" in capsys.readouterr().out


def test_epoch_prediction_answers_and_misuse(W, capsys):
    assert check_epoch_prediction(W, ...) == False
    assert "not answered yet" in capsys.readouterr().out
    assert check_epoch_prediction(W, "many") == False
    assert "must be numbers" in capsys.readouterr().out
    assert check_epoch_prediction(W, None) == False
    assert "is None" in capsys.readouterr().out
    with pytest.raises(ValueError, match="tol must be in"):
        check_epoch_prediction(W, 10, tol=2.0)
    with pytest.raises(ValueError, match="rank deficient"):
        check_epoch_prediction(np.column_stack([W[:, 0], W[:, 0]]), 10)
    with pytest.raises(ValueError, match="2-D"):
        check_epoch_prediction(np.zeros((0, 2)), 10)


def _poor_problem():
    """Two well excited directions, two hardly excited; the prior is wrong mostly in the first."""
    rng = np.random.default_rng(11)
    U = np.linalg.qr(rng.normal(size=(120, 4)))[0]
    V = np.linalg.qr(rng.normal(size=(4, 4)))[0]
    W = (U * (np.array([1.0, 0.3, 1e-3, 1e-4]) * np.sqrt(120))) @ V.T
    truth = np.array([1.0, -0.5, 0.8, 0.3])
    y = W @ truth + 0.01 * rng.normal(size=120)
    prior = truth + 0.15 * V[:, 0] - 0.15 * V[:, 1] + 0.02 * V[:, 3]
    return W, y, prior, truth


def test_early_stopping_judges_by_the_real_error(capsys):
    W, y, w0, truth = _poor_problem()
    err = lambda k: np.linalg.norm(adaline_batch(W, y, w0=w0, epochs=k).params - truth) / np.linalg.norm(truth)
    ks = [0, 10, 100, 1000, 10000, 100000]
    errs = [err(k) for k in ks]
    best = ks[int(np.argmin(errs))]
    assert 0 < best < ks[-1]                                          # a finite budget is best
    assert check_early_stopping(best, W, y, w0, truth)
    assert "best budget in hindsight" in capsys.readouterr().out
    assert errs[ks.index(best)] <= 0.8 * errs[0]
    assert not check_early_stopping(0, W, y, w0, truth)               # the prior itself
    assert "not below the prior" in capsys.readouterr().out
    assert not check_early_stopping(10**7, W, y, w0, truth)           # (almost) OLS: noise wins
    assert "stop earlier" in capsys.readouterr().out
    k_barely = next(k for k in ks[1:] if 0.8 * errs[0] < errs[ks.index(k)] < errs[0]) if any(
        0.8 * errs[0] < e < errs[0] for e in errs[1:]) else None
    if k_barely is not None:
        assert not check_early_stopping(k_barely, W, y, w0, truth)
        assert "hardly better" in capsys.readouterr().out
    assert check_early_stopping(np.int64(best), W, y, w0, truth)
    for bad in (2.5, -1, "10", None, ...):
        assert check_early_stopping(bad, W, y, w0, truth) == False
    with pytest.raises(ValueError, match="must have shape"):
        check_early_stopping(10, W, y[:5], w0, truth)
    with pytest.raises(ValueError, match="rate must be in"):
        check_early_stopping(10, W, y, w0, truth, rate=1.5)
