"""Tests of robidlib.estimation.ekf (EKF and the augmented-state identifier)."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import robidlib.estimation.ekf as ekf_module
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


def test_doctests_run():
    result = doctest.testmod(ekf_module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


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
    fp = pytest.importorskip("filterpy.kalman")
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
    with pytest.raises(ValueError, match="unknown measurement 'qdd'"):
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
    pendulum_module = pytest.importorskip("robidlib.models.pendulum")
    pend = pendulum_module.Pendulum()
    ident = AugmentedStateIdentifier(pend, 0.02, n=1, p=3, x0=np.r_[0.0, 0.0, pend.params], Q=np.zeros(5),
                                     R=[1.0], P0=np.ones(5))
    q, qd, tau = np.array([0.7]), np.array([-1.1]), np.array([0.3])
    expected = np.atleast_1d(pend.acceleration(q, qd, tau))
    assert np.allclose(ident.forward_dynamics(q, qd, tau, pend.params), expected, rtol=1e-12)
