"""Tests of the chapter-4 exercise checks (Adaline)."""

import doctest
import math

import numpy as np
import pytest

from robidlib.checks import adaline
from robidlib.checks.adaline import check_delta_rule_epoch, check_epoch_prediction, check_stable_rate
from robidlib.estimation.adaline import Adaline, max_stable_rate


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


def test_stable_rate_bad_input(W):
    with pytest.raises(TypeError, match="rate must be a real number"):
        check_stable_rate(W, "0.1")
    with pytest.raises(TypeError, match="rate must be a real number"):
        check_stable_rate(W, [0.1, 0.2])
    with pytest.raises(TypeError, match="rate must be a finite"):
        check_stable_rate(W, np.nan)
    with pytest.raises(TypeError, match="2-D"):
        check_stable_rate(np.ones(3), 0.1)
    with pytest.raises(TypeError, match="finite numbers"):
        check_stable_rate(np.full((3, 2), np.inf), 0.1)
    with pytest.raises(TypeError, match="identically zero"):
        check_stable_rate(np.zeros((3, 2)), 0.1)
    with pytest.raises(TypeError, match="array of numbers"):
        check_stable_rate("W", 0.1)


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
    with pytest.raises(TypeError, match="func must be a function"):
        check_delta_rule_epoch(np.zeros(3))


def test_epoch_prediction_matches_a_real_run(W, capsys):
    lam = np.linalg.eigvalsh(W.T @ W / len(W))
    k = math.ceil(math.log(1e-6) / math.log(1 - lam[0] / lam[-1]))
    assert check_epoch_prediction(W, k)
    assert check_epoch_prediction(W, k * 1.01)
    assert not check_epoch_prediction(W, k * 1.2)
    assert not check_epoch_prediction(W, k / 3)
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


def test_epoch_prediction_bad_input(W):
    with pytest.raises(TypeError, match="epochs must be a real number"):
        check_epoch_prediction(W, "many")
    with pytest.raises(TypeError, match="tol must be in"):
        check_epoch_prediction(W, 10, tol=2.0)
    with pytest.raises(TypeError, match="rank deficient"):
        check_epoch_prediction(np.column_stack([W[:, 0], W[:, 0]]), 10)
    with pytest.raises(TypeError, match="2-D"):
        check_epoch_prediction(np.zeros((0, 2)), 10)
