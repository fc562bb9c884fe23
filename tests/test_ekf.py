"""Tests of the Kalman filters of robidlib.estimation (kalman, augmented, consistency, symbolic,
base_model; ``robidlib.estimation.ekf`` re-exports them under their former names)."""

from __future__ import annotations

import doctest
import importlib

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import robidlib.estimation.ekf as ekf_module
from robidlib.estimation import augmented, base_model, consistency, kalman, symbolic
from robidlib.estimation.ekf import AugmentedStateIdentifier, ExtendedKalmanFilter, numerical_jacobian

# ---------------------------------------------------------------------- pendulum (local)
# (I + m l^2) qdd + m g l sin q + b qd = tau, base parameters beta = [I + m l^2, m g l, b]
BETA = np.array([0.45, 3.9, 0.15])


def pendulum_regressor(q, qd, qdd):
    return np.array([[qdd[0], np.sin(q[0]), qd[0]]])


def pendulum_xdot_jac(x, u):
    """Analytic Jacobian of the continuous augmented model x = [q, qd, a, b, c]."""
    q, qd, a, b, c = x
    qdd = (u[0] - b * np.sin(q) - c * qd) / a
    J = np.zeros((5, 5))
    J[0, 1] = 1.0
    J[1] = [-b * np.cos(q) / a, -c / a, -qdd / a, -np.sin(q) / a, -qd / a]
    return J


def pendulum_xdot(x, u):
    q, qd, a, b, c = x
    return np.array([qd, (u[0] - b * np.sin(q) - c * qd) / a, 0.0, 0.0, 0.0])


def euler_jac(dt):
    return lambda x, u: np.eye(5) + dt * pendulum_xdot_jac(np.asarray(x), np.asarray(u))


def rk4_jac(dt):
    """Analytic Jacobian of one RK4 step by the chain rule through the four stages."""

    def F(x, u):
        x, u = np.asarray(x, float), np.asarray(u, float)
        I = np.eye(5)
        k1, d1 = pendulum_xdot(x, u), pendulum_xdot_jac(x, u)
        x2 = x + 0.5 * dt * k1
        k2, d2 = pendulum_xdot(x2, u), pendulum_xdot_jac(x2, u) @ (I + 0.5 * dt * d1)
        x3 = x + 0.5 * dt * k2
        k3, d3 = pendulum_xdot(x3, u), pendulum_xdot_jac(x3, u) @ (I + 0.5 * dt * d2)
        x4 = x + dt * k3
        d4 = pendulum_xdot_jac(x4, u) @ (I + dt * d3)
        return I + dt / 6.0 * (d1 + 2 * d2 + 2 * d3 + d4)

    return F


def excitation(t):
    return (2.0 * np.sin(1.3 * t) + 1.5 * np.sin(3.1 * t + 0.4))[:, None]


def simulate_pendulum(dt=0.02, N=300, x0=(0.2, 0.0)):
    """Exact (solve_ivp, tight tolerances) response to a zero-order-hold torque."""
    t = np.arange(N) * dt
    tau = excitation(t)
    a, b, c = BETA
    X = np.empty((N, 2))
    X[0] = x0
    for k in range(N - 1):
        u = tau[k, 0]
        sol = solve_ivp(lambda _t, y: [y[1], (u - b * np.sin(y[0]) - c * y[1]) / a], (t[k], t[k + 1]),
                        X[k], method="DOP853", rtol=1e-12, atol=1e-12)
        X[k + 1] = sol.y[:, -1]
    return t, tau, X


def make_identifier(dt=0.02, **kw):
    opts = dict(
        n=1, p=3, x0=np.r_[0.2, 0.0, BETA * [1.15, 0.9, 1.3]], Q=np.r_[1e-14, 1e-14, 0.0, 0.0, 0.0],
        R=[1e-8], P0=np.r_[1e-8, 1e-8, (0.5 * BETA) ** 2], integrator="rk4",
    )
    opts.update(kw)
    return AugmentedStateIdentifier(pendulum_regressor, dt, **opts)


@pytest.mark.parametrize("module", [kalman, augmented, consistency, symbolic, base_model])
def test_doctests_run(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_former_ekf_module_reexports_every_name():
    for name in ekf_module.__all__:
        obj = getattr(ekf_module, name)
        assert obj.__module__ != ekf_module.__name__
        assert getattr(importlib.import_module(obj.__module__), name) is obj


# ---------------------------------------------------------------------- linear KF
def _linear_system(seed):
    rng = np.random.default_rng(seed)
    F = np.eye(3) + 0.1 * rng.normal(size=(3, 3))
    B = rng.normal(size=(3, 1))
    H = rng.normal(size=(2, 3))
    G = rng.normal(size=(3, 3))
    Q = 0.01 * G @ G.T
    R = np.diag([0.04, 0.09])
    return rng, F, B, H, Q, R


def test_linear_system_equals_textbook_kalman_filter():
    rng, F, B, H, Q, R = _linear_system(0)
    x0, P0 = rng.normal(size=3), np.eye(3)
    ekf = ExtendedKalmanFilter(lambda x, u: F @ x + B @ u, lambda x: H @ x, lambda x, u: F, lambda x: H,
                               Q, R, x0, P0)
    x, P = x0.copy(), P0.copy()
    for _ in range(25):
        u, z = rng.normal(size=1), rng.normal(size=2)
        x = F @ x + B @ u                                           # textbook KF, five lines
        P = F @ P @ F.T + Q
        K = P @ H.T @ np.linalg.inv(H @ P @ H.T + R)
        x = x + K @ (z - H @ x)
        P = (np.eye(3) - K @ H) @ P
        ekf.predict(u)
        ekf.update(z)
        assert np.allclose(ekf.x, x, rtol=1e-10, atol=1e-12)
        assert np.allclose(ekf.P, P, rtol=1e-9, atol=1e-12)
        assert np.allclose(ekf.K, K, rtol=1e-9, atol=1e-12)
    assert np.array_equal(ekf.P, ekf.P.T)
    h = ekf.history
    assert h["x"].shape == (51, 3) and h["P"].shape == (51, 3, 3)
    assert list(h["stage"][:3]) == ["init", "predict", "update"] and h["step"][-1] == 25


def test_matches_filterpy_extended_kalman_filter():
    import filterpy.kalman as fp                  # a test requirement: missing means failing

    rng, F, B, H, Q, R = _linear_system(1)
    # nonlinear measurement: range and bearing of the first two states
    hx = lambda x: np.array([np.hypot(x[0], x[1]), np.arctan2(x[1], x[0])])

    def H_jac(x):
        r2 = x[0] ** 2 + x[1] ** 2
        r = np.sqrt(r2)
        return np.array([[x[0] / r, x[1] / r, 0.0], [-x[1] / r2, x[0] / r2, 0.0]])

    x0, P0 = np.array([3.0, 1.0, -0.5]), 0.5 * np.eye(3)
    ours = ExtendedKalmanFilter(lambda x, u: F @ x + B @ u, hx, lambda x, u: F, H_jac, Q, R, x0, P0)
    ref = fp.ExtendedKalmanFilter(dim_x=3, dim_z=2, dim_u=1)
    ref.x, ref.P, ref.F, ref.B, ref.Q, ref.R = x0.copy(), P0.copy(), F, B, Q, R
    for _ in range(5):
        u = rng.normal(size=1)
        z = hx(ours.x) + rng.normal(scale=[0.2, 0.3])
        ours.predict(u)
        ref.predict(u)
        assert np.allclose(ours.x, ref.x, rtol=1e-12) and np.allclose(ours.P, ref.P, rtol=1e-12)
        ours.update(z)
        ref.update(z, H_jac, hx)
        assert np.allclose(ours.x, ref.x, rtol=1e-10, atol=1e-12)
        assert np.allclose(ours.P, ref.P, rtol=1e-9, atol=1e-12)
        assert np.allclose(ours.y, ref.y) and np.allclose(ours.S, ref.S) and np.allclose(ours.K, ref.K)


def test_nis_and_reset():
    rng, F, B, H, Q, R = _linear_system(2)
    ekf = ExtendedKalmanFilter(lambda x, u: F @ x, lambda x: H @ x, lambda x, u: F, lambda x: H,
                               Q, R, np.zeros(3), np.eye(3), record_history=False)
    ekf.predict()
    z = rng.normal(size=2)
    ekf.update(z)
    assert ekf.nis == pytest.approx(ekf.y @ np.linalg.solve(ekf.S, ekf.y), rel=1e-12)
    assert ekf.history["x"].shape == (0, 3)
    ekf.reset(np.ones(3), 2 * np.eye(3))
    assert ekf.step == 0 and np.array_equal(ekf.x, np.ones(3)) and np.array_equal(ekf.P, 2 * np.eye(3))


def test_loss_of_positive_definiteness_is_reported_with_the_step():
    ekf = ExtendedKalmanFilter(lambda x, u: x, lambda x: x[:1], lambda x, u: np.eye(2),
                               lambda x: np.array([[1.0, 0.0]]), np.eye(2) * 1e-3, [[1.0]], [0.0, 0.0], np.eye(2))
    ekf.predict()
    ekf.update([0.1])
    ekf.Q = -np.eye(2)                                               # sabotage after construction
    with pytest.raises(ValueError, match=r"P lost positive semi-definiteness at step 2 \(predict\)"):
        ekf.predict()
    singular = ExtendedKalmanFilter(lambda x, u: x, lambda x: x, lambda x, u: np.eye(2), lambda x: np.eye(2),
                                    np.zeros((2, 2)), np.zeros((2, 2)), [0.0, 0.0], np.zeros((2, 2)))
    with pytest.raises(ValueError, match="innovation covariance .* step 0"):
        singular.update([1.0, 2.0])
    nan_f = ExtendedKalmanFilter(lambda x, u: x * np.nan, lambda x: x, lambda x, u: np.eye(2), lambda x: np.eye(2),
                                 np.eye(2), np.eye(2), [0.0, 0.0], np.eye(2))
    with pytest.raises(ValueError, match=r"f\(x, u\) returned non-finite values at step 1"):
        nan_f.predict()


def test_bad_filter_input():
    good = dict(f=lambda x, u: x, h=lambda x: x[:1], F_jac=lambda x, u: np.eye(2),
                H_jac=lambda x: np.array([[1.0, 0.0]]), Q=np.eye(2), R=[[1.0]], x0=[0.0, 0.0], P0=np.eye(2))
    with pytest.raises(ValueError, match="Q must be symmetric"):
        ExtendedKalmanFilter(**{**good, "Q": [[1.0, 0.5], [0.0, 1.0]]})
    with pytest.raises(ValueError, match="P0 must be positive semi-definite"):
        ExtendedKalmanFilter(**{**good, "P0": [[1.0, 2.0], [2.0, 1.0]]})
    with pytest.raises(ValueError, match="R must be positive semi-definite"):
        ExtendedKalmanFilter(**{**good, "R": [[-1.0]]})
    with pytest.raises(ValueError, match=r"Q must have shape \(2, 2\)"):
        ExtendedKalmanFilter(**{**good, "Q": np.eye(3)})
    with pytest.raises(ValueError, match="R must have shape square"):
        ExtendedKalmanFilter(**{**good, "R": np.ones((1, 2))})
    with pytest.raises(ValueError, match="x0 must be finite"):
        ExtendedKalmanFilter(**{**good, "x0": [np.nan, 0.0]})
    with pytest.raises(TypeError, match="h must be callable"):
        ExtendedKalmanFilter(**{**good, "h": 3.0})
    ekf = ExtendedKalmanFilter(**good)
    with pytest.raises(ValueError, match=r"z must have shape \(1,\)"):
        ekf.update([1.0, 2.0])
    with pytest.raises(ValueError, match="z must be finite"):
        ekf.update([np.inf])
    wrong = ExtendedKalmanFilter(**{**good, "f": lambda x, u: np.zeros(3)})
    with pytest.raises(ValueError, match=r"f\(x, u\) returned shape \(3,\) at step 1, expected \(2,\)"):
        wrong.predict()
    wrong_h = ExtendedKalmanFilter(**{**good, "H_jac": lambda x: np.eye(2)})
    with pytest.raises(ValueError, match=r"H_jac\(x\) returned shape \(2, 2\)"):
        wrong_h.update([0.0])


def test_numerical_jacobian():
    fun = lambda x: np.array([np.exp(x[0]) * x[1], x[1] ** 3, np.sin(x[0] * x[1])])
    x = np.array([0.3, -1.7])
    exact = np.array([[np.exp(0.3) * -1.7, np.exp(0.3)], [0.0, 3 * 1.7**2],
                      [np.cos(x[0] * x[1]) * x[1], np.cos(x[0] * x[1]) * x[0]]])
    assert np.allclose(numerical_jacobian(fun, x), exact, rtol=1e-8, atol=1e-10)
    with pytest.raises(ValueError, match="step"):
        numerical_jacobian(fun, x, step=0.0)
    with pytest.raises(ValueError, match="x must be finite"):
        numerical_jacobian(fun, [np.nan, 1.0])


# ---------------------------------------------------------------------- augmented state
@pytest.mark.parametrize("integrator, analytic", [("euler", euler_jac), ("rk4", rk4_jac)])
def test_numerical_and_analytic_jacobians_agree(integrator, analytic):
    ident = make_identifier(integrator=integrator)
    F = analytic(0.02)
    rng = np.random.default_rng(3)
    for _ in range(5):
        x = np.r_[rng.uniform(-2, 2, 2), BETA * rng.uniform(0.5, 1.5, 3)]
        u = rng.uniform(-3, 3, 1)
        num = ident.numerical_transition_jacobian(x, u)
        assert np.allclose(num, F(x, u), rtol=1e-6, atol=1e-9)
        assert np.allclose(num, ident.transition_jacobian(x, u))     # default is the numerical one
    # the analytic Jacobian can be handed to the identifier and is then used
    ana = make_identifier(integrator=integrator, F_jac=analytic(0.02))
    assert np.array_equal(ana.transition_jacobian(x, u), F(x, u))


def test_transition_matches_the_pendulum_model():
    ident = make_identifier(integrator="euler")
    x, u = np.array([0.4, -0.3, *BETA]), np.array([1.2])
    assert np.allclose(ident.transition(x, u), x + 0.02 * pendulum_xdot(x, u), rtol=1e-14)
    rk = make_identifier(integrator="rk4")
    sol = solve_ivp(lambda _t, y: pendulum_xdot(y, u), (0, 0.02), x, rtol=1e-13, atol=1e-13)
    assert np.allclose(rk.transition(x, u), sol.y[:, -1], rtol=0, atol=1e-9)   # RK4 local error O(dt^5)


@pytest.mark.parametrize("measure", [("q",), ("q", "qd")])
def test_identifier_recovers_pendulum_parameters_from_noise_free_data(measure):
    # exact data (solve_ivp) against the RK4 model: dt = 0.01 s keeps the RK4 model error
    # (local error O(dt^5)) well below what would bias the parameters by 1e-4
    t, tau, X = simulate_pendulum(dt=0.01, N=300)
    z = X[:, :1] if measure == ("q",) else X
    ident = make_identifier(dt=0.01, measure=measure, R=np.full(len(measure), 1e-8))
    hist = ident.run(t, tau, z)
    assert np.all(np.abs(ident.params / BETA - 1) < 1e-4)
    assert np.allclose(hist["params"][-1], ident.params) and hist["std"].shape == (t.size, 3)
    assert np.all(np.abs(ident.params - BETA) < 3 * ident.std + 1e-12)   # the truth inside 3 sigma
    assert np.all(hist["std"][-1] < hist["std"][0])
    assert np.allclose(hist["q"][:, 0], X[:, 0], atol=1e-4)


def test_euler_identifier_recovers_parameters_of_the_euler_model():
    dt, N = 0.02, 300
    t = np.arange(N) * dt
    tau = excitation(t)
    X = np.empty((N, 2))
    X[0] = [0.2, 0.0]
    for k in range(N - 1):                                            # data from the Euler model itself
        X[k + 1] = (np.r_[X[k], BETA] + dt * pendulum_xdot(np.r_[X[k], BETA], tau[k]))[:2]
    ident = make_identifier(integrator="euler", measure=("q", "qd"), R=[1e-8, 1e-8], F_jac=euler_jac(dt))
    ident.run(t, tau, X)
    assert np.all(np.abs(ident.params / BETA - 1) < 1e-4)


class TwoLinkArm:
    """Planar 2R arm with point masses, gravity in the plane; base parameters
    [(m1 + m2) l1^2, m2 l2^2, m2 l1 l2, (m1 + m2) g l1, m2 g l2]."""

    n_joints, n_params = 2, 5

    def regressor(self, q, qd, qdd):
        c2, s2 = np.cos(q[1]), np.sin(q[1])
        c1, c12 = np.cos(q[0]), np.cos(q[0] + q[1])
        return np.array([
            [qdd[0], qdd[0] + qdd[1], c2 * (2 * qdd[0] + qdd[1]) - s2 * (2 * qd[0] * qd[1] + qd[1] ** 2), c1, c12],
            [0.0, qdd[0] + qdd[1], c2 * qdd[0] + s2 * qd[0] ** 2, 0.0, c12],
        ])


def test_object_model_mass_matrix_bias_and_forward_dynamics():
    m1, m2, l1, l2, g = 1.0, 0.7, 0.5, 0.4, 9.81
    beta = np.array([(m1 + m2) * l1**2, m2 * l2**2, m2 * l1 * l2, (m1 + m2) * g * l1, m2 * g * l2])
    ident = AugmentedStateIdentifier(TwoLinkArm(), 0.01, x0=np.r_[np.zeros(4), beta], Q=np.zeros(9),
                                     R=np.ones(4), P0=np.ones(9), measure=("q", "qd"))
    assert (ident.n, ident.p, ident.m) == (2, 5, 4)
    q, qd = np.array([0.3, -0.8]), np.array([0.5, 1.1])
    c2 = np.cos(q[1])
    M = np.array([[(m1 + m2) * l1**2 + m2 * l2**2 + 2 * m2 * l1 * l2 * c2, m2 * l2**2 + m2 * l1 * l2 * c2],
                  [m2 * l2**2 + m2 * l1 * l2 * c2, m2 * l2**2]])
    assert np.allclose(ident.mass_matrix(q, beta), M, rtol=1e-14)
    s2, c1, c12 = np.sin(q[1]), np.cos(q[0]), np.cos(q[0] + q[1])
    h = np.array([-m2 * l1 * l2 * s2 * (2 * qd[0] * qd[1] + qd[1] ** 2) + (m1 + m2) * g * l1 * c1 + m2 * g * l2 * c12,
                  m2 * l1 * l2 * s2 * qd[0] ** 2 + m2 * g * l2 * c12])
    assert np.allclose(ident.bias(q, qd, beta), h, rtol=1e-14)
    tau = np.array([2.0, -1.0])
    qdd = ident.forward_dynamics(q, qd, tau, beta)
    assert np.allclose(TwoLinkArm().regressor(q, qd, qdd) @ beta, tau, rtol=1e-12)
    assert np.allclose(ident.measurement(np.r_[q, qd, beta]), np.r_[q, qd])
    assert ident.measurement_jacobian().shape == (4, 9)


class BatchedPendulum:
    """Like robidlib.models.pendulum.Pendulum: batched regressor (N,) -> (N, 3), no size attributes."""

    param_names = ("a1", "a2", "a3")

    def regressor(self, q, qd, qdd):
        return np.column_stack([np.atleast_1d(qdd), np.sin(np.atleast_1d(q)), np.atleast_1d(qd)])


def test_object_without_size_attributes_needs_n_and_p():
    with pytest.raises(ValueError, match="give n: model has no integer attribute n_joints or n"):
        AugmentedStateIdentifier(BatchedPendulum(), 0.02, x0=np.zeros(5), Q=np.zeros(5), R=[1.0], P0=np.ones(5))
    ident = AugmentedStateIdentifier(BatchedPendulum(), 0.02, n=1, p=3, x0=np.r_[0.1, 0.0, BETA],
                                     Q=np.zeros(5), R=[1.0], P0=np.ones(5))
    assert ident.names == ("a1", "a2", "a3")
    x, u = np.array([0.4, -0.3, *BETA]), np.array([1.2])
    assert np.allclose(ident.dynamics(x, u), pendulum_xdot(x, u), rtol=1e-14)


# ---------------------------------------------------------------------- bad input
def test_bad_identifier_input():
    with pytest.raises(ValueError, match="dt must be > 0"):
        AugmentedStateIdentifier(pendulum_regressor, 0.0, n=1, p=3, x0=np.zeros(5), Q=np.zeros(5), R=[1.0],
                                 P0=np.ones(5))
    with pytest.raises(ValueError, match="dt must be > 0"):
        AugmentedStateIdentifier(pendulum_regressor, -0.02, n=1, p=3, x0=np.zeros(5), Q=np.zeros(5), R=[1.0],
                                 P0=np.ones(5))
    with pytest.raises(ValueError, match="unknown integrator 'rk45'"):
        make_identifier(integrator="rk45")
    with pytest.raises(ValueError, match="unknown measure 'qdd'"):
        make_identifier(measure=("q", "qdd"), R=[1.0, 1.0])
    with pytest.raises(ValueError, match="repeat"):
        make_identifier(measure=("q", "q"), R=[1.0, 1.0])
    with pytest.raises(ValueError, match="at least one"):
        make_identifier(measure=())
    with pytest.raises(ValueError, match=r"R must have shape \(2, 2\)"):
        make_identifier(measure=("q", "qd"), R=[1.0])
    with pytest.raises(ValueError, match="Q must be positive semi-definite"):
        make_identifier(Q=np.r_[1.0, 1.0, -1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="P0 must be symmetric"):
        make_identifier(P0=np.triu(np.ones((5, 5))))
    with pytest.raises(ValueError, match=r"x0 must have shape \(5,\)"):
        make_identifier(x0=np.zeros(4))
    with pytest.raises(ValueError, match="give n"):
        AugmentedStateIdentifier(pendulum_regressor, 0.02, x0=np.zeros(5), Q=np.zeros(5), R=[1.0], P0=np.ones(5))
    with pytest.raises(ValueError, match="disagrees"):
        AugmentedStateIdentifier(TwoLinkArm(), 0.02, n=3, x0=np.zeros(9), Q=np.zeros(9), R=[1.0, 1.0],
                                 P0=np.ones(9))
    with pytest.raises(TypeError, match="model must be"):
        AugmentedStateIdentifier("pendulum", 0.02, n=1, p=3, x0=np.zeros(5), Q=np.zeros(5), R=[1.0],
                                 P0=np.ones(5))
    bad_shape = AugmentedStateIdentifier(lambda q, qd, qdd: np.zeros((3, 1)), 0.02, n=1, p=3,
                                         x0=np.r_[0, 0, BETA], Q=np.zeros(5), R=[1.0], P0=np.ones(5))
    with pytest.raises(ValueError, match=r"regressor returned shape \(3, 1\), expected \(1, 3\)"):
        bad_shape.transition(np.r_[0, 0, BETA], [0.0])


def test_bad_run_and_model_input():
    ident = make_identifier()
    t, tau, X = simulate_pendulum(N=5)
    with pytest.raises(ValueError, match="uniformly spaced by dt"):
        ident.run(t * 1.5, tau, X[:, :1])
    with pytest.raises(ValueError, match=r"z must have shape \(5, 1\)"):
        ident.run(t, tau, X)
    with pytest.raises(ValueError, match="tau must be finite"):
        ident.run(t, np.full_like(tau, np.nan), X[:, :1])
    with pytest.raises(ValueError, match="torque u"):
        ident.filter.predict()
    with pytest.raises(ValueError, match="singular"):
        ident.forward_dynamics([0.0], [0.0], [1.0], [0.0, 1.0, 1.0])
    with pytest.raises(ValueError, match=r"beta must have shape \(3,\)"):
        ident.mass_matrix([0.0], [1.0, 2.0])


def test_wires_to_the_project_pendulum_model():
    from robidlib.models.pendulum import Pendulum

    pend = Pendulum()
    ident = AugmentedStateIdentifier(pend, 0.02, n=1, p=3, x0=np.r_[0.0, 0.0, pend.params], Q=np.zeros(5),
                                     R=[1.0], P0=np.ones(5))
    q, qd, tau = np.array([0.7]), np.array([-1.1]), np.array([0.3])
    expected = np.atleast_1d(pend.acceleration(q, qd, tau))
    assert np.allclose(ident.forward_dynamics(q, qd, tau, pend.params), expected, rtol=1e-12)


# ---------------------------------------------------------------------- robots, symbolic models
def _arm(friction=((0.3, 0.0), (0.15, 0.0))):
    from robidlib.models import planar_2r

    return planar_2r(friction=friction)


@pytest.fixture(scope="module")
def arm_models():
    from robidlib.base import base_parameters

    arm = _arm()
    base = base_parameters(arm)
    return (arm, base, ekf_module.robot_base_model(arm, base, friction=["viscous"]),
            ekf_module.robot_base_model(arm, base, friction=["viscous"], symbolic=True))


def test_symbolic_regressor_matches_the_numeric_regressor():
    from robidlib.regressor import regressor
    from robidlib.robot import SerialRobot

    rng = np.random.default_rng(11)
    spatial = SerialRobot.from_dh("RRP", a=[0, 0.3, 0.1], alpha=[0, np.pi / 2, -np.pi / 2], d=[0.1, 0, 0.2],
                                  mass=[1.0, 2.0, 3.0], com=0.1 * rng.normal(size=(3, 3)),
                                  inertia=np.abs(rng.normal(size=(3, 6))) * 0.1, gravity=[0.3, -1.0, -9.7])
    import sympy as sp

    for robot in (_arm(), spatial):
        Y, q, qd, qdd = ekf_module.symbolic_regressor(robot)
        assert Y.shape == (robot.n, 10 * robot.n)
        f = sp.lambdify([q, qd, qdd], Y, "numpy")
        for _ in range(3):
            x = rng.normal(size=(3, robot.n))
            assert np.allclose(np.array(f(*x), dtype=float), regressor(robot, *x), rtol=1e-12, atol=1e-12)
    with pytest.raises(TypeError, match="robot must be a SerialRobot"):
        ekf_module.symbolic_regressor("arm")


def test_robot_base_model_symbolic_equals_numeric(arm_models):
    from robidlib.dynamics import inverse_dynamics

    arm, base, num, sym = arm_models
    assert num.param_names == sym.param_names == tuple(base.base_names) + ("fv1", "fv2")
    assert (num.n_joints, num.n_params) == (2, 8)
    rng = np.random.default_rng(4)
    q, qd, qdd = rng.normal(size=(3, 40, 2))
    Yn, Ys = num.regressor(q, qd, qdd), sym.regressor(q, qd, qdd)
    assert Yn.shape == (40, 2, 8) and np.allclose(Yn, Ys, rtol=1e-12, atol=1e-12)
    assert np.allclose(Ys @ sym.params, inverse_dynamics(arm, q, qd, qdd), rtol=1e-10, atol=1e-12)
    assert np.allclose(num.regressor(q[0], qd[0], qdd[0]), sym.regressor(q[0], qd[0], qdd[0]), atol=1e-12)
    assert sym.Y.shape == (2, 8) and "Sym" not in repr(num) and "symbolic" in repr(sym)


def test_robot_base_model_with_friction_inside_the_base():
    from robidlib.base import base_parameters
    from robidlib.dynamics import inverse_dynamics

    arm = _arm(friction=((0.3, 0.4), (0.15, 0.2)))
    base = base_parameters(arm, friction=True)
    rng = np.random.default_rng(5)
    q, qd, qdd = rng.normal(size=(3, 20, 2))
    for symbolic in (False, True):
        model = ekf_module.robot_base_model(arm, base, symbolic=symbolic)
        assert model.n_params == base.rank and "fc1" in model.param_names
        assert np.allclose(model.regressor(q, qd, qdd) @ model.params, inverse_dynamics(arm, q, qd, qdd),
                           rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="already holds the friction columns"):
        ekf_module.robot_base_model(arm, base, friction=["viscous"])


def test_robot_base_model_svd_base_and_default_base():
    from robidlib.base import base_parameters
    from robidlib.dynamics import inverse_dynamics

    arm = _arm()
    q, qd, qdd = np.random.default_rng(6).normal(size=(3, 10, 2))
    for model in (ekf_module.robot_base_model(arm, base_parameters(arm, method="svd"), symbolic=True,
                                              simplify=False),
                  ekf_module.robot_base_model(arm)):
        tau = inverse_dynamics(arm, q, qd, qdd, include_friction=False)
        assert np.allclose(model.regressor(q, qd, qdd) @ model.params, tau, rtol=1e-10, atol=1e-12)


def test_bad_robot_base_model_input():
    from robidlib.base import base_parameters
    from robidlib.robot import SerialRobot

    arm = _arm()
    other = SerialRobot.from_dh("R", a=[0.0], alpha=[0.0], d=[0.0], mass=[1.0], com=[[0.2, 0, 0]])
    with pytest.raises(TypeError, match="robot must be a SerialRobot"):
        ekf_module.robot_base_model(np.eye(2))
    with pytest.raises(TypeError, match="base must be a BaseParameters"):
        ekf_module.robot_base_model(arm, base=np.eye(3))
    with pytest.raises(ValueError, match="base must be computed for this robot"):
        ekf_module.robot_base_model(arm, base_parameters(other))
    with pytest.raises(ValueError, match="unknown friction term 'dry'"):
        ekf_module.robot_base_model(arm, friction=["dry"])
    with pytest.raises(ValueError, match="repeat"):
        ekf_module.robot_base_model(arm, friction=["viscous", "viscous"])
    with pytest.raises(TypeError, match="symbolic must be True or False"):
        ekf_module.robot_base_model(arm, symbolic="yes")
    model = ekf_module.robot_base_model(arm)
    with pytest.raises(ValueError, match=r"qd must have shape \(2,\) or \(N, 2\)"):
        model.regressor(np.zeros(2), np.zeros(3), np.zeros(2))
    with pytest.raises(ValueError, match="must have the same shape"):
        model.regressor(np.zeros(2), np.zeros((4, 2)), np.zeros(2))
    with pytest.raises(ValueError, match="q must be finite"):
        model.regressor([np.nan, 0.0], np.zeros(2), np.zeros(2))


def _sym_pendulum():
    import sympy as sp

    q, qd, qdd = sp.symbols("q qd qdd")
    return ekf_module.SymbolicModel(sp.Matrix([[qdd, sp.sin(q), qd]]), [q], [qd], [qdd], names=["a1", "a2", "a3"])


def test_symbolic_model_regressor_and_derivatives():
    model = _sym_pendulum()
    rng = np.random.default_rng(7)
    q, qd, qdd = rng.normal(size=(3, 6, 1))
    assert np.allclose(model.regressor(q, qd, qdd), pendulum_regressor_batch(q, qd, qdd))
    dq, dqd = model.regressor_derivatives(q[0], qd[0], qdd[0])
    num_q = numerical_jacobian(lambda v: model.regressor(v, qd[0], qdd[0]).ravel(), q[0]).reshape(1, 3, 1)
    num_qd = numerical_jacobian(lambda v: model.regressor(q[0], v, qdd[0]).ravel(), qd[0]).reshape(1, 3, 1)
    assert np.allclose(dq, num_q, atol=1e-8) and np.allclose(dqd, num_qd, atol=1e-8)
    # the checked path (lists, inf) gives the same or a clear error
    assert np.allclose(model.regressor([0.3], [0.1], [0.2]), model.regressor(np.array([0.3]), np.array([0.1]),
                                                                           np.array([0.2])))
    with pytest.raises(ValueError, match="q must be finite"):
        model.regressor([np.inf], [0.0], [0.0])
    with pytest.raises(ValueError, match=r"qd must have shape \(1,\)"):
        model.regressor_derivatives([0.1], [0.1, 0.2], [0.0])


def pendulum_regressor_batch(q, qd, qdd):
    return np.stack([np.column_stack([qdd[:, 0], np.sin(q[:, 0]), qd[:, 0]])], axis=1)


def test_symbolic_model_coulomb_derivative_is_zero():
    import sympy as sp

    q, qd, qdd = sp.symbols("q qd qdd")
    model = ekf_module.SymbolicModel(sp.Matrix([[qdd, sp.sign(qd)]]), [q], [qd], [qdd])
    assert model.param_names == ("b1", "b2")
    assert np.array_equal(model.regressor([0.0], [-2.0], [1.0]), [[1.0, -1.0]])
    dq, dqd = model.regressor_derivatives([0.0], [-2.0], [1.0])
    assert np.array_equal(dqd, np.zeros((1, 2, 1)))


def test_bad_symbolic_model_input():
    import sympy as sp

    q, qd, qdd, m = sp.symbols("q qd qdd m")
    with pytest.raises(TypeError, match="Y must be a sympy Matrix"):
        ekf_module.SymbolicModel([[qdd]], [q], [qd], [qdd])
    with pytest.raises(TypeError, match="q must hold sympy Symbols"):
        ekf_module.SymbolicModel(sp.Matrix([[qdd]]), ["q"], [qd], [qdd])
    with pytest.raises(ValueError, match="same positive number of symbols"):
        ekf_module.SymbolicModel(sp.Matrix([[qdd]]), [q], [qd, m], [qdd])
    with pytest.raises(ValueError, match=r"Y must have shape \(1, p\)"):
        ekf_module.SymbolicModel(sp.Matrix([[qdd], [qd]]), [q], [qd], [qdd])
    with pytest.raises(ValueError, match="must be distinct"):
        ekf_module.SymbolicModel(sp.Matrix([[qdd]]), [q], [q], [qdd])
    with pytest.raises(ValueError, match=r"other than q, qd, qdd: \['m'\]"):
        ekf_module.SymbolicModel(sp.Matrix([[m * qdd]]), [q], [qd], [qdd])
    with pytest.raises(ValueError, match="affine in the accelerations"):
        ekf_module.SymbolicModel(sp.Matrix([[qdd**2]]), [q], [qd], [qdd])
    with pytest.raises(ValueError, match="names must have 1 entries"):
        ekf_module.SymbolicModel(sp.Matrix([[qdd]]), [q], [qd], [qdd], names=["a", "b"])


@pytest.mark.parametrize("integrator", ["euler", "rk4"])
def test_analytic_and_numerical_jacobians_agree_for_the_2r_arm(arm_models, integrator):
    arm, base, num, sym = arm_models
    kw = dict(Q=np.zeros(12), R=np.ones(2), P0=np.ones(12), integrator=integrator)
    beta = sym.params
    a_sym = AugmentedStateIdentifier(sym, 0.02, x0=np.r_[np.zeros(4), beta], **kw)
    a_num = AugmentedStateIdentifier(num, 0.02, x0=np.r_[np.zeros(4), beta], **kw)
    assert (a_sym.jacobian, a_num.jacobian) == ("analytic", "numerical")
    rng = np.random.default_rng(8)
    for _ in range(4):
        x = np.r_[rng.uniform(-2, 2, 4), beta * rng.uniform(0.8, 1.2, 8)]
        u = rng.uniform(-3, 3, (3, 2))
        Fa, Fn = a_sym.transition_jacobian(x, u), a_num.transition_jacobian(x, u)
        assert np.allclose(Fa, Fn, rtol=1e-6, atol=1e-6 * np.abs(Fa).max())
        assert np.allclose(a_sym.transition(x, u), a_num.transition(x, u), rtol=1e-12, atol=1e-12)
        # continuous-time Jacobian against central differences of the continuous model
        A = a_sym.dynamics_jacobian(x, u[0])
        assert np.allclose(A, numerical_jacobian(lambda v: a_sym.dynamics(v, u[0]), x), rtol=1e-6, atol=1e-6)
    # the analytic path reuses its state: the next transition at the same (x, u) is that state
    x_next = a_sym.transition(x, u)
    assert np.array_equal(x_next, a_sym._cache[2])


def test_pendulum_symbolic_jacobian_equals_the_hand_derived_one():
    model = _sym_pendulum()
    for integrator, jac in (("euler", euler_jac(0.02)), ("rk4", rk4_jac(0.02))):
        ident = make_identifier(integrator=integrator)
        sym = AugmentedStateIdentifier(model, 0.02, x0=np.r_[0.2, 0.0, BETA], Q=np.zeros(5), R=[1.0],
                                       P0=np.ones(5), integrator=integrator)
        x, u = np.array([0.4, -0.3, *BETA * 1.1]), np.array([1.2])
        assert np.allclose(sym.analytic_transition_jacobian(x, u), jac(x, u), rtol=1e-12, atol=1e-14)
        assert np.allclose(sym.transition(x, u), ident.transition(x, u), rtol=1e-14)


def test_identifier_accepts_a_robot_and_base():
    from robidlib.base import base_parameters

    arm = _arm(friction=None)
    base = base_parameters(arm)
    ident = AugmentedStateIdentifier(arm, 0.01, base=base, x0=np.zeros(4 + base.rank), Q=np.zeros(4 + base.rank),
                                     R=np.ones(2), P0=np.ones(4 + base.rank))
    assert ident.names == tuple(base.base_names) and ident.jacobian == "numerical"
    with pytest.raises(ValueError, match="base is only used with a SerialRobot"):
        make_identifier(base=base)


def test_stage_torques_and_cubic_torque_mode():
    model = _sym_pendulum()
    t = np.arange(200) * 0.02
    exc = lambda s: 2.0 * np.sin(1.3 * s) + 1.5 * np.sin(3.1 * s + 0.4)
    tau = exc(t)[:, None]
    a, b, c = BETA
    # exact data for a smooth torque: one solve_ivp over the whole record
    sol = solve_ivp(lambda s, y: [y[1], (exc(s) - b * np.sin(y[0]) - c * y[1]) / a], (0, t[-1]), [0.2, 0.0],
                    t_eval=t, method="DOP853", rtol=1e-12, atol=1e-12)
    X = sol.y.T
    errors = {}
    for mode in ("hold", "cubic"):
        ident = AugmentedStateIdentifier(model, 0.02, x0=np.r_[0.2, 0.0, BETA * [1.1, 0.9, 1.2]],
                                         Q=np.r_[0.0, 1e-12, 0.0, 0.0, 0.0], R=[1e-10],
                                         P0=np.r_[1e-10, 1e-8, (0.3 * BETA) ** 2], integrator="rk4")
        hist = ident.run(t, tau, X[:, :1], torque=mode, keep_cov=True)
        errors[mode] = np.max(np.abs(ident.params / BETA - 1))
        assert hist["P"].shape == (200, 5, 5)
        assert np.allclose(hist["P"][:, 2:, 2:].diagonal(axis1=1, axis2=2), hist["std"] ** 2)
    assert errors["cubic"] < 1e-4 < errors["hold"]       # a held smooth torque is a model error
    # a (3, n) torque is [start, middle, end]: RK4 with a constant one equals the held one
    ident = make_identifier(integrator="rk4")
    x = np.array([0.3, 0.1, *BETA])
    assert np.allclose(ident.transition(x, np.full((3, 1), 0.7)), ident.transition(x, [0.7]), rtol=1e-15)
    with pytest.raises(ValueError, match=r"u must have shape \(1,\) .* or \(3, 1\)"):
        ident.transition(x, np.zeros((2, 1)))
    with pytest.raises(ValueError, match="unknown torque 'linear'"):
        ident.run(t[:3], tau[:3], X[:3, :1], torque="linear")


def test_torque_midpoints():
    t = np.arange(8) * 0.1
    x = np.column_stack([t**3 - t, np.cos(t)])
    mid = ekf_module.torque_midpoints(x)
    assert mid.shape == (7, 2)
    assert np.allclose(mid[1:-1, 0], (t[1:-2] + 0.05) ** 3 - (t[1:-2] + 0.05), atol=1e-14)
    assert np.allclose(mid[1:-1, 1], np.cos(t[1:-2] + 0.05), atol=1e-5)     # cubic inside: O(dt^4)
    assert np.allclose(mid[:, 1], np.cos(t[:-1] + 0.05), atol=1e-4)         # quadratic at the ends
    assert np.allclose(ekf_module.torque_midpoints([1.0, 3.0]), [2.0])
    assert np.allclose(ekf_module.torque_midpoints(t[:3] ** 2), (t[:2] + 0.05) ** 2)
    with pytest.raises(ValueError, match="at least 2 samples"):
        ekf_module.torque_midpoints([1.0])
    with pytest.raises(ValueError, match="tau must be finite"):
        ekf_module.torque_midpoints([1.0, np.nan, 2.0])


def test_nees_and_bounds():
    from scipy.stats import chi2

    rng = np.random.default_rng(9)
    G = rng.normal(size=(4, 4))
    P = G @ G.T + 0.1 * np.eye(4)
    e = rng.multivariate_normal(np.zeros(4), P, size=4000)
    values = ekf_module.nees(e, P)
    assert values.shape == (4000,) and abs(values.mean() - 4.0) < 0.25          # chi-square, 4 dof
    assert np.isclose(ekf_module.nees(e[0], P), e[0] @ np.linalg.solve(P, e[0]))
    batched = ekf_module.nees(e[:5], np.broadcast_to(P, (5, 4, 4)))
    assert np.allclose(batched, values[:5])
    lo, hi = ekf_module.nees_bounds(4, 30, 0.99)
    assert np.isclose(lo * 30, chi2.ppf(0.005, 120)) and np.isclose(hi * 30, chi2.ppf(0.995, 120))
    with pytest.raises(ValueError, match="positive definite"):
        ekf_module.nees([1.0, 1.0], [[1.0, 0.0], [0.0, -1.0]])
    with pytest.raises(ValueError, match=r"error must have shape \(\.\.\., nx\)"):
        ekf_module.nees([1.0, 1.0, 1.0], np.eye(2))
    with pytest.raises(ValueError, match="n_runs must be a positive integer"):
        ekf_module.nees_bounds(3, 0)
    with pytest.raises(ValueError, match=r"confidence must be in \(0, 1\)"):
        ekf_module.nees_bounds(3, 20, 1.5)


def test_jacobian_option_errors():
    with pytest.raises(ValueError, match="needs a model with regressor_derivatives"):
        make_identifier(jacobian="analytic")
    with pytest.raises(ValueError, match="unknown jacobian 'exact'"):
        make_identifier(jacobian="exact")
    with pytest.raises(ValueError, match="give either F_jac or jacobian"):
        make_identifier(F_jac=euler_jac(0.02), jacobian="numerical")
    ident = make_identifier()
    with pytest.raises(ValueError, match="no regressor_derivatives"):
        ident.dynamics_jacobian(np.r_[0.0, 0.0, BETA], [0.0])
    with pytest.raises(ValueError, match="no regressor_derivatives"):
        ident.analytic_transition_jacobian(np.r_[0.0, 0.0, BETA], [0.0])
    num = AugmentedStateIdentifier(_sym_pendulum(), 0.02, x0=np.r_[0.0, 0.0, BETA], Q=np.zeros(5), R=[1.0],
                                   P0=np.ones(5), jacobian="numerical")
    assert num.jacobian == "numerical"
    with pytest.raises(ValueError, match="singular"):
        num.dynamics_jacobian(np.r_[0.0, 0.0, 0.0, 1.0, 1.0], [1.0])


class _WithoutTerms:
    """A symbolic model seen through regressor + regressor_derivatives only (the generic path)."""

    def __init__(self, model):
        self.m = model
        self.n_joints, self.n_params, self.param_names = model.n_joints, model.n_params, model.param_names

    def regressor(self, q, qd, qdd):
        return self.m.regressor(q, qd, qdd)

    def regressor_derivatives(self, q, qd, qdd):
        return self.m.regressor_derivatives(q, qd, qdd)


def test_affine_terms_reproduce_the_regressor_and_its_derivatives(arm_models):
    sym = arm_models[3]
    rng = np.random.default_rng(12)
    q, qd, qdd = rng.normal(size=(3, 2))
    Yh, D, dYh_q, dD_q, dYh_qd = sym.affine_terms(q, qd)
    assert np.allclose(Yh + np.tensordot(qdd, D, axes=1), sym.regressor(q, qd, qdd), atol=1e-13)
    dq, dqd = sym.regressor_derivatives(q, qd, qdd)
    assert np.allclose(np.moveaxis(dq, -1, 0), dYh_q + np.einsum("j,ijrc->irc", qdd, dD_q), atol=1e-12)
    assert np.allclose(np.moveaxis(dqd, -1, 0), dYh_qd, atol=1e-12)
    # the identifier's fast path (affine_terms) and its generic path give the same dynamics and F
    kw = dict(x0=np.r_[np.zeros(4), sym.params], Q=np.zeros(12), R=np.ones(2), P0=np.ones(12), integrator="rk4")
    fast = AugmentedStateIdentifier(sym, 0.02, **kw)
    slow = AugmentedStateIdentifier(_WithoutTerms(sym), 0.02, **kw)
    assert fast._terms is not None and slow._terms is None and slow.jacobian == "analytic"
    x, u = np.r_[q, qd, sym.params * 1.05], rng.normal(size=(3, 2))
    assert np.allclose(fast.analytic_transition_jacobian(x, u), slow.analytic_transition_jacobian(x, u),
                       rtol=1e-12, atol=1e-12)
    assert np.allclose(fast.dynamics_jacobian(x, u[0]), slow.dynamics_jacobian(x, u[0]), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="q must be finite"):
        sym.affine_terms([np.nan, 0.0], [0.0, 0.0])
    with pytest.raises(ValueError, match=r"qd must have shape \(2,\)"):
        sym.affine_terms([0.0, 0.0], [0.0, 0.0, 1.0])


def test_affine_terms_refuse_velocity_dependent_inertia():
    import sympy as sp

    q, qd, qdd = sp.symbols("q qd qdd")
    odd = ekf_module.SymbolicModel(sp.Matrix([[qd * qdd]]), [q], [qd], [qdd])
    with pytest.raises(ValueError, match="depend on qd"):
        odd.affine_terms([0.0], [1.0])
    ident = AugmentedStateIdentifier(odd, 0.02, x0=[0.0, 1.0, 1.0], Q=np.zeros(3), R=[1.0], P0=np.ones(3))
    assert not odd.has_affine_terms and ident._terms is None and ident.jacobian == "analytic"


def test_symbolic_model_at_a_pole_raises_a_clear_error():
    import warnings

    import sympy as sp

    q, qd, qdd = sp.symbols("q qd qdd")
    model = ekf_module.SymbolicModel(sp.Matrix([[qdd / q, sp.sin(q) / q]]), [q], [qd], [qdd])
    assert np.allclose(model.regressor([0.5], [1.0], [2.0]), [[4.0, np.sin(0.5) / 0.5]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")                # no RuntimeWarning escapes either
        for call in (lambda: model.regressor([0.0], [1.0], [2.0]),
                     lambda: model.regressor(np.zeros((3, 1)), np.ones((3, 1)), np.ones((3, 1))),
                     lambda: model.regressor_derivatives([0.0], [1.0], [2.0]),
                     lambda: model.affine_terms([0.0], [1.0])):
            with pytest.raises(ValueError, match="at a pole of Y"):
                call()
