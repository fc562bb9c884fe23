"""Tests of the chapter-6 exercise checks (the extended Kalman filter)."""

import doctest

import numpy as np
import pytest

from robidlib.checks import ekf
from robidlib.checks.ekf import check_euler_bias_order, check_nees_function, check_unobservable_at_rest
from robidlib.estimation.ekf import nees


def test_doctests_run():
    result = doctest.testmod(ekf, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_euler_bias_order(capsys):
    dts = [0.04, 0.02, 0.01, 0.005]
    assert check_euler_bias_order(dts, [3e-2 * h / 0.04 for h in dts])
    assert "first order" in capsys.readouterr().out
    assert not check_euler_bias_order(dts, [3e-2 * (h / 0.04) ** 4 for h in dts])    # RK4-like
    assert "faster than first order" in capsys.readouterr().out
    assert not check_euler_bias_order(dts, [0.01, 0.0101, 0.0099, 0.01])              # no dt dependence
    assert "hardly depends on dt" in capsys.readouterr().out
    assert not check_euler_bias_order(dts, [0.01, 0.02, 0.04, 0.08])                  # reversed order
    assert "grows as dt shrinks" in capsys.readouterr().out


def test_euler_bias_order_bad_input():
    with pytest.raises(TypeError, match="dts must be a 1-D sequence of at least 3"):
        check_euler_bias_order([0.01, 0.02], [0.1, 0.2])
    with pytest.raises(TypeError, match="biases must hold finite positive numbers"):
        check_euler_bias_order([0.01, 0.02, 0.03], [0.1, -0.2, 0.3])
    with pytest.raises(TypeError, match="dts must hold finite positive numbers"):
        check_euler_bias_order([0.01, np.nan, 0.03], [0.1, 0.2, 0.3])
    with pytest.raises(TypeError, match="same length"):
        check_euler_bias_order([0.01, 0.02, 0.03], [0.1, 0.2, 0.3, 0.4])
    with pytest.raises(TypeError, match="all be different"):
        check_euler_bias_order([0.01, 0.01, 0.03], [0.1, 0.2, 0.3])
    with pytest.raises(TypeError, match="sequence of numbers"):
        check_euler_bias_order("0.01", [0.1, 0.2, 0.3])
    with pytest.raises(TypeError, match="sequence of numbers"):
        check_euler_bias_order([0.01, "x", 0.03], [0.1, 0.2, 0.3])


def _pendulum_observability_rank(q0, K=60, dt=0.02):
    """Numerical rank of the observability matrix of the augmented pendulum held at rest."""
    a1, a2, a3 = 0.08, 2.45, 0.1
    A = np.zeros((5, 5))
    A[0, 1] = 1.0
    A[1] = [-a2 * np.cos(q0) / a1, -a3 / a1, 0.0, -np.sin(q0) / a1, 0.0]
    F = np.eye(5) + dt * A
    H = np.array([[1.0, 0, 0, 0, 0]])
    O = np.vstack([H @ np.linalg.matrix_power(F, k) for k in range(K)])
    null = np.linalg.svd(O)[2][np.linalg.matrix_rank(O):]
    return np.linalg.matrix_rank(O), null


def test_unobservable_at_rest_agrees_with_the_observability_matrix(capsys):
    rank, null = _pendulum_observability_rank(0.5)
    assert rank == 3                                   # q, qd and a2
    unobservable = [n for j, n in enumerate(ekf.PENDULUM_NAMES) if np.linalg.norm(null[:, 2 + j]) > 0.5]
    assert sorted(unobservable) == ["a1", "a3"]
    assert check_unobservable_at_rest(unobservable)
    assert check_unobservable_at_rest(("a3", "a1"), q0=-1.0)
    assert "a1 and a3" in capsys.readouterr().out
    rank0, _ = _pendulum_observability_rank(0.0)
    assert rank0 == 2
    assert check_unobservable_at_rest(["a1", "a2", "a3"], q0=0.0)
    assert "no parameter" in capsys.readouterr().out


def test_unobservable_at_rest_common_mistakes(capsys):
    assert not check_unobservable_at_rest(["a1", "a2", "a3"])
    assert "a2 is observable" in capsys.readouterr().out
    assert not check_unobservable_at_rest(["a1"])
    assert "a3 also" in capsys.readouterr().out
    assert not check_unobservable_at_rest(["m", "a1"])
    assert "unknown parameter name" in capsys.readouterr().out
    assert not check_unobservable_at_rest([])


def test_unobservable_at_rest_bad_input():
    with pytest.raises(TypeError, match="list of parameter names"):
        check_unobservable_at_rest("a1 a3")
    with pytest.raises(TypeError, match="list of parameter names"):
        check_unobservable_at_rest(13)
    with pytest.raises(TypeError, match="hold strings"):
        check_unobservable_at_rest([1, 3])
    with pytest.raises(TypeError, match="q0 must be a real number"):
        check_unobservable_at_rest(["a1"], q0="0.5")
    with pytest.raises(TypeError, match="q0 must be finite"):
        check_unobservable_at_rest(["a1"], q0=np.inf)


def test_nees_function(capsys):
    assert check_nees_function(lambda e, P: e @ np.linalg.solve(P, e))
    assert check_nees_function(nees)                                       # the library's agrees
    assert "\u2714" in capsys.readouterr().out
    assert not check_nees_function(lambda e, P: e @ P @ e)
    assert "inverse" in capsys.readouterr().out
    assert not check_nees_function(lambda e, P: np.sqrt(e @ np.linalg.solve(P, e)))
    assert "square root" in capsys.readouterr().out
    assert not check_nees_function(lambda e, P: np.sum(e**2 / np.diag(P)))
    assert "diagonal" in capsys.readouterr().out
    assert not check_nees_function(lambda e, P: 1.0)
    assert "expected" in capsys.readouterr().out
    assert not check_nees_function(lambda e, P: e[3])                        # fails for nx = 1
    assert "raised IndexError" in capsys.readouterr().out
    assert not check_nees_function(lambda e, P: e)                           # not a number
    assert "expected" in capsys.readouterr().out


def test_nees_function_bad_input():
    with pytest.raises(TypeError, match="func must be a function"):
        check_nees_function(3.0)
