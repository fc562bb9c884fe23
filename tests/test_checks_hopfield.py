"""Tests of the chapter-7 exercise checks (Hopfield network)."""

import doctest

import numpy as np
import pytest

from robidlib.checks import hopfield
from robidlib.checks.hopfield import (
    check_hopfield_connections,
    check_slowest_time_constant,
    check_tracking,
    check_window_design,
)
from robidlib.estimation.hopfield import HopfieldEstimator


def test_doctests_run():
    result = doctest.testmod(hopfield, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


@pytest.fixture
def data():
    rng = np.random.default_rng(11)
    Phi = rng.normal(size=(30, 3)) * [1.0, 0.5, 2.0]
    tau = Phi @ np.array([0.3, -1.0, 0.7]) + 0.01 * rng.normal(size=30)
    return Phi, tau


def test_connections_right_and_mistakes(data, capsys):
    Phi, tau = data
    r = len(Phi)
    W, I = -Phi.T @ Phi / r, Phi.T @ tau / r
    assert check_hopfield_connections(W, I, Phi, tau)
    net = HopfieldEstimator(5.0, 1.0).run(Phi, tau, (0.0, 1.0))      # the library's convention
    assert check_hopfield_connections(net.W, net.I, Phi, tau)
    capsys.readouterr()
    assert not check_hopfield_connections(-W, I, Phi, tau)
    assert "sign of W" in capsys.readouterr().out
    assert not check_hopfield_connections(W, -I, Phi, tau)
    assert "sign of I" in capsys.readouterr().out
    assert not check_hopfield_connections(W, I * 2, Phi, tau)
    assert "I is not" in capsys.readouterr().out
    assert not check_hopfield_connections(W * 2, I, Phi, tau)
    assert "\u2718" in capsys.readouterr().out
    assert not check_hopfield_connections(W + np.triu(np.ones_like(W), 1), I, Phi, tau)
    assert "not symmetric" in capsys.readouterr().out
    assert not check_hopfield_connections(W[:2, :2], I, Phi, tau)
    assert "shape (3, 3)" in capsys.readouterr().out


def test_connections_accept_raw_sums_any_scale_and_float32(data, capsys):
    Phi, tau = data
    r = len(Phi)
    W, I = -Phi.T @ Phi / r, Phi.T @ tau / r
    assert check_hopfield_connections(W * r, I * r, Phi, tau)            # the paper's raw sums
    assert "raw sums" in capsys.readouterr().out
    assert check_hopfield_connections(W / 7.0, I / 7.0, Phi, tau)        # any common scale
    assert "same equilibrium" in capsys.readouterr().out
    P32, t32 = Phi.astype(np.float32), tau.astype(np.float32)
    assert check_hopfield_connections(-P32.T @ P32 / r, P32.T @ t32 / r, Phi, tau)
    assert check_hopfield_connections(W.tolist(), I.tolist(), Phi, tau)
    capsys.readouterr()


def test_connections_never_raise_on_the_answer(data, capsys):
    Phi, tau = data
    W, I = -Phi.T @ Phi, Phi.T @ tau
    for args, msg in (((..., ...), "not answered yet"), ((None, I), "W is None"), ((W, None), "I is None"),
                      ((I, I), "shape (3, 3)"), ((W, "I"), "must be numbers"),
                      ((W, np.full(3, np.nan)), "NaN"), ((W * 1j, I), "complex")):
        assert check_hopfield_connections(*args, Phi, tau) == False
        out = capsys.readouterr().out
        assert out.startswith("\u2718") and msg in out, (msg, out)
    with pytest.raises(ValueError, match="rows but tau"):
        check_hopfield_connections(W, I, Phi, tau[:-1])
    with pytest.raises(ValueError, match="finite"):
        check_hopfield_connections(W, I, np.full_like(Phi, np.nan), tau)


def test_slowest_time_constant(data, capsys):
    Phi, tau = data
    alpha, beta = 3.0, 0.5
    lam = np.linalg.eigvalsh(Phi.T @ Phi / len(Phi))
    tc = beta / (alpha * lam[0])
    assert check_slowest_time_constant(tc, Phi, alpha, beta)
    # it is the library's linearised time constant at rest
    assert np.isclose(HopfieldEstimator(alpha, beta).time_constants(Phi)[0], tc)
    capsys.readouterr()
    assert not check_slowest_time_constant(beta / (alpha * lam[-1]), Phi, alpha, beta)
    assert "fastest" in capsys.readouterr().out
    assert not check_slowest_time_constant(1 / lam[0], Phi, alpha, beta)
    assert "gain" in capsys.readouterr().out
    assert not check_slowest_time_constant(alpha / (beta * lam[0]), Phi, alpha, beta)
    assert "denominator" in capsys.readouterr().out
    assert not check_slowest_time_constant(1.1 * tc, Phi, alpha, beta)


def test_slowest_time_constant_answers_and_misuse(data, capsys):
    Phi, _ = data
    for bad, msg in (([1.0], "shape ()"), (None, "is None"), (..., "not answered yet"), ("1", "must be numbers")):
        assert check_slowest_time_constant(bad, Phi, 1.0, 1.0) == False
        assert msg in capsys.readouterr().out
    lam = np.linalg.eigvalsh(Phi.T @ Phi / len(Phi))
    assert check_slowest_time_constant(np.float32(1.0 / lam[0]), Phi, 1.0, 1.0)
    with pytest.raises(ValueError, match="positive"):
        check_slowest_time_constant(1.0, Phi, -1.0, 1.0)
    with pytest.raises(ValueError, match="rank deficient"):
        check_slowest_time_constant(1.0, np.column_stack([Phi[:, 0], Phi[:, 0]]), 1.0, 1.0)
    with pytest.raises(ValueError, match="2-D"):
        check_slowest_time_constant(1.0, Phi[:, 0], 1.0, 1.0)


def test_tracking(capsys):
    t = np.linspace(0.0, 6.0, 121)
    theta0, theta1 = np.array([1.0, 0.5]), np.array([1.4, 0.5])
    # first-order response with a 0.3 s time constant after a change at t = 3 s
    w = np.where(t < 3.0, 0.0, 1.0 - np.exp(-(t - 3.0) / 0.3))
    S = theta0 + w[:, None] * (theta1 - theta0)
    assert check_tracking(t, S, 3.0, theta1, settle=1.5, tol=0.05)
    assert "\u2714" in capsys.readouterr().out
    assert not check_tracking(t, S, 3.0, theta1, settle=0.2, tol=0.01)   # too soon
    assert "forget faster" in capsys.readouterr().out
    assert not check_tracking(t, S, 3.0, theta1, settle=5.0)             # no estimate that late
    assert "run the network longer" in capsys.readouterr().out
    lagging = theta0 + np.where(t < 5.5, 0.0, 1.0)[:, None] * (theta1 - theta0)
    assert not check_tracking(t, lagging, 3.0, theta1)


def test_tracking_answers_and_misuse(capsys):
    t = np.linspace(0.0, 1.0, 5)
    S = np.ones((5, 2))
    assert not check_tracking(t, S[:, :1], 0.5, [1.0, 1.0])
    assert "S must have shape (5, 2)" in capsys.readouterr().out
    assert not check_tracking(t[::-1], S, 0.5, [1.0, 1.0])
    assert "strictly increasing" in capsys.readouterr().out
    assert not check_tracking(t, np.full((5, 2), np.inf), 0.5, [1.0, 1.0])
    assert "NaN or infinite" in capsys.readouterr().out
    assert not check_tracking(None, S, 0.5, [1.0, 1.0])
    assert "t is None" in capsys.readouterr().out
    assert check_tracking(t.tolist(), S.astype(np.float32), 0.5, [1.0, 1.0], settle=0.1)
    with pytest.raises(ValueError, match="all zeros"):
        check_tracking(t, S, 0.5, [0.0, 0.0])
    with pytest.raises(ValueError, match="positive"):
        check_tracking(t, S, 0.5, [1.0, 1.0], settle=0.0)
    with pytest.raises(TypeError, match="t_change must be a real number"):
        check_tracking(t, S, "soon", [1.0, 1.0])


def _step_data():
    rng = np.random.default_rng(3)
    N = 200
    t = np.arange(N) * 0.05
    Phi = rng.normal(size=(N, 1, 2))
    theta = np.where(t[:, None] < 5.0, [1.0, 2.0], [1.5, 2.0])
    tau = np.einsum("knp,kp->kn", Phi, theta)
    return Phi, tau, t


def test_window_design(capsys):
    Phi, tau, t = _step_data()
    assert check_window_design(0.05, 10, Phi, tau, t, 4.0, 5.0, [1.5, 2.0], settle=2.0, tol=0.05)
    assert "\u2714" in capsys.readouterr().out
    assert not check_window_design(0.05, 150, Phi, tau, t, 4.0, 5.0, [1.5, 2.0], settle=2.0)
    assert "forget faster" in capsys.readouterr().out          # a window longer than the change
    for b, m, msg in ((..., 10, "not answered"), (0.05, ..., "not answered"), (-1.0, 10, "beta must be > 0"),
                      (0.05, 2.5, "whole number"), (0.05, 0, "whole number"), ("fast", 10, "must be numbers"),
                      (None, 10, "beta is None")):
        assert check_window_design(b, m, Phi, tau, t, 4.0, 5.0, [1.5, 2.0]) == False
        assert msg in capsys.readouterr().out, msg
    with pytest.raises(ValueError, match="malformed"):
        check_window_design(0.05, 10, Phi, tau[:5], t, 4.0, 5.0, [1.5, 2.0])
