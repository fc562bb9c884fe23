"""Tests of the chapter-8 exercise checks (the extended Kalman filter): right answers pass,
common mistakes get their own message, and no answer makes a check raise."""

import doctest
import inspect

import numpy as np
import pytest

from robidlib.checks import ekf
from robidlib.checks.ekf import (
    check_arm_process_noise,
    check_euler_bias_order,
    check_nees_function,
    check_unobservable_at_rest,
)
from robidlib.dynamics import mass_matrix
from robidlib.estimation import nees
from robidlib.models import planar_2r

CROSS, TICK = "\u2718", "\u2714"


def test_doctests_run():
    result = doctest.testmod(ekf, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_docstrings_hold_no_solution_code():
    """Students read the checks with help() and Shift-Tab: no working answer in there."""
    for name in ekf.__all__:
        doc = inspect.getdoc(getattr(ekf, name))
        for giveaway in ("np.linalg.solve(P", "solve(P, e)", "inv(M", "dt**3 / 2", "['a1', 'a3']",
                         "[\"a3\", \"a1\"]", "a1 and a3"):
            assert giveaway not in doc, f"{name}'s docstring shows {giveaway!r}"


def test_untouched_stubs_print_a_cross(capsys):
    assert not check_euler_bias_order([0.02, 0.01, 0.005], [])             # the stub's empty list
    assert "biases is empty" in capsys.readouterr().out
    assert not check_euler_bias_order([0.02, 0.01, 0.005], ...)
    assert not check_unobservable_at_rest([...])
    assert not check_arm_process_noise(...)
    out = capsys.readouterr().out
    assert out.count("not answered yet") == 3

    def my_nees(e, P):
        ...

    assert not check_nees_function(my_nees)
    assert "not answered yet" in capsys.readouterr().out

    def unfinished(e, P):
        raise NotImplementedError

    assert not check_nees_function(unfinished)
    assert CROSS in capsys.readouterr().out


# ---------------------------------------------------------------------- exercise 1
def test_euler_bias_order(capsys):
    dts = [0.04, 0.02, 0.01, 0.005]
    assert check_euler_bias_order(dts, [3e-2 * h / 0.04 for h in dts])
    assert "first order" in capsys.readouterr().out
    assert check_euler_bias_order(np.array(dts, dtype=np.float32), np.float32([0.03, 0.015, 0.0075, 0.0037]))
    assert check_euler_bias_order(tuple(dts), np.array([0.03, 0.015, 0.0075, 0.0037]))
    assert not check_euler_bias_order(dts, [3e-2 * (h / 0.04) ** 4 for h in dts])    # RK4-like
    assert "faster than first order" in capsys.readouterr().out
    assert not check_euler_bias_order(dts, [0.01, 0.0101, 0.0099, 0.01])              # no dt dependence
    assert "hardly depends on dt" in capsys.readouterr().out
    assert not check_euler_bias_order(dts, [0.01, 0.02, 0.04, 0.08])                  # reversed order
    assert "grows as dt shrinks" in capsys.readouterr().out


@pytest.mark.parametrize("dts, biases, message", [
    ([0.01, 0.02], [0.1, 0.2], "at least 3 time steps"),
    ([0.01, 0.02, 0.03], [0.1, -0.2, 0.3], "must be positive"),
    ([0.01, np.nan, 0.03], [0.1, 0.2, 0.3], "NaN"),
    ([0.01, 0.02, 0.03], [0.1, 0.2, 0.3, 0.4], "append one bias per time step"),
    ([0.01, 0.01, 0.03], [0.1, 0.2, 0.3], "all different"),
    ("0.01", [0.1, 0.2, 0.3], "text"),
    ([0.01, "x", 0.03], [0.1, 0.2, 0.3], "numbers"),
    ([0.01, 0.02, 0.03], None, "None"),
    ([0.01, 0.02, 0.03], [[0.1, 0.2, 0.3]], "flat list"),
    ([0.01, 0.02, 0.03], [0.1 + 1j, 0.2, 0.3], "complex"),
    ([0.01, 0.02, 0.03], [True, False, True], "booleans"),
])
def test_euler_bias_order_bad_answers_never_raise(capsys, dts, biases, message):
    assert check_euler_bias_order(dts, biases) == False
    out = capsys.readouterr().out
    assert out.startswith(CROSS) and message in out


# ---------------------------------------------------------------------- exercise 2
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
    assert check_unobservable_at_rest(np.array(["a3", "a1"]))
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
    assert "empty" in capsys.readouterr().out
    for bad, message in (("a1 a3", "text"), (13, "list of names"), ([1, 3], "hold strings"), (None, "None")):
        assert check_unobservable_at_rest(bad) == False
        assert message in capsys.readouterr().out


def test_unobservable_at_rest_misuse_raises():
    with pytest.raises(TypeError, match="q0 must be a real number"):
        check_unobservable_at_rest(["a1"], q0="0.5")
    with pytest.raises(ValueError, match="q0 must be finite"):
        check_unobservable_at_rest(["a1"], q0=np.inf)


# ---------------------------------------------------------------------- exercise 3
def test_nees_function(capsys):
    assert check_nees_function(lambda e, P: e @ np.linalg.solve(P, e))
    assert check_nees_function(nees)                                       # the library's agrees
    assert check_nees_function(lambda e, P: np.float32(e @ np.linalg.solve(P, e)))   # float32 result
    assert check_nees_function(lambda e, P: [e @ np.linalg.solve(P, e)])   # a one-element list
    assert TICK in capsys.readouterr().out
    for func, message in (
        (lambda e, P: e @ P @ e, "inverse"),
        (lambda e, P: np.sqrt(e @ np.linalg.solve(P, e)), "square root"),
        (lambda e, P: np.sum(e**2 / np.diag(P)), "diagonal"),
        (lambda e, P: 1.0, "expected"),
        (lambda e, P: e[3], "raised IndexError"),                          # fails for nx = 1
        (lambda e, P: np.r_[e, e], "one number per error vector"),
        (lambda e, P: "3.2", "text"),
        (lambda e, P: np.nan, "NaN"),
        (lambda e, P: 1j, "complex"),
        (3.0, "expected a function"),
    ):
        assert check_nees_function(func) == False
        out = capsys.readouterr().out
        assert out.startswith(CROSS) and message in out, out


# ---------------------------------------------------------------------- exercise 4
def _arm_q(q=(-np.pi / 2, 0.0), sigma=(0.02, 0.01), dt=0.02, cross=True, use_M=False):
    M = mass_matrix(planar_2r(), np.asarray(q))
    Minv = M if use_M else np.linalg.inv(M)
    G = np.vstack([dt**2 / 2 * Minv, dt * Minv])             # d[q, qd] / d tau over one step
    Q = np.zeros((12, 12))
    Q[:4, :4] = G @ np.diag(np.square(sigma)) @ G.T
    if not cross:
        Q[:2, 2:4] = Q[2:4, :2] = 0.0
    return Q


def test_arm_process_noise(capsys):
    assert check_arm_process_noise(_arm_q())
    assert "cross terms" in capsys.readouterr().out
    assert check_arm_process_noise(_arm_q().astype(np.float32))
    assert check_arm_process_noise(_arm_q().tolist())
    assert check_arm_process_noise(np.round(_arm_q(), 16))
    assert check_arm_process_noise(_arm_q(q=(0.3, -1.0), sigma=(0.05, 0.02), dt=0.01), q=(0.3, -1.0),
                                   sigma_tau=(0.05, 0.02), dt=0.01)
    capsys.readouterr()
    bad = _arm_q()
    bad[5, 5] = bad[0, 0]
    Mi = np.linalg.inv(mass_matrix(planar_2r(), np.array([-np.pi / 2, 0.0])))
    G = np.vstack([0.02**2 / 2 * np.diag(np.diag(Mi)), 0.02 * np.diag(np.diag(Mi))])
    dec = np.zeros((12, 12))
    dec[:4, :4] = G @ np.diag([0.02**2, 0.01**2]) @ G.T
    no_angle = _arm_q()
    no_angle[:2, :] = no_angle[:, :2] = 0.0
    asym = _arm_q()
    asym[0, 2] *= 2
    for Q, message in (
        (_arm_q(cross=False), "cross terms are missing"),
        (_arm_q(use_M=True), "M where M^-1 belongs"),
        (dec, "whole M^-1"),
        (_arm_q() / 0.02**2, "factor dt^2"),
        (_arm_q() / 0.02, "factor dt"),
        (no_angle, "angle block is zero"),
        (bad, "parameter rows and columns must be zero"),
        (asym, "not symmetric"),
        (2.0 * _arm_q(), "off by up to"),
        (np.zeros((12, 12)), "Q is zero"),
        (np.zeros((4, 4)), "shape (12, 12)"),
        (None, "None"),
        ("Q", "text"),
        (np.full((12, 12), np.nan), "NaN"),
    ):
        assert check_arm_process_noise(Q) == False
        out = capsys.readouterr().out
        assert out.startswith(CROSS) and message in out, (message, out)


def test_arm_process_noise_misuse_raises():
    Q = _arm_q()
    with pytest.raises(ValueError, match=r"q must have shape \(2,\)"):
        check_arm_process_noise(Q, q=(0.0,))
    with pytest.raises(ValueError, match="sigma_tau"):
        check_arm_process_noise(Q, sigma_tau=(0.02, -0.01))
    with pytest.raises(ValueError, match="dt"):
        check_arm_process_noise(Q, dt=0.0)
    with pytest.raises(TypeError, match="dt"):
        check_arm_process_noise(Q, dt="0.02")


def test_nees_function_accepts_a_float32_computation(capsys):
    def nees32(e, P):
        e32, P32 = np.float32(e), np.float32(P)
        return e32 @ np.linalg.solve(P32, e32)

    assert check_nees_function(nees32)
    assert TICK in capsys.readouterr().out
