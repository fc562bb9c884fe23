"""Tests of robidlib.dynamics: RNEA, mass matrix, forward dynamics, energy, simulation."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robidlib.dynamics as dyn
from robidlib.dynamics import (
    bias_torques,
    forward_dynamics,
    friction_torques,
    gravity_torques,
    inverse_dynamics,
    kinetic_energy,
    mass_matrix,
    potential_energy,
    simulate,
)
from robidlib.models.planar_2r import planar_2r
from robidlib.models.redundant_5dof import redundant_5dof
from robidlib.models.ur5 import ur5
from robidlib.params import link_params
from robidlib.robot import SerialRobot

MODELS = {"planar_2r": planar_2r(), "redundant_5dof": redundant_5dof(), "ur5": ur5()}
SEEDS = st.integers(0, 2**32 - 1)
FAST = settings(max_examples=25, deadline=None)


def random_state(robot, rng, N=None):
    size = (robot.n,) if N is None else (N, robot.n)
    lo, hi = robot.q_limits.T
    q = rng.uniform(lo, hi, size)
    qd = rng.uniform(-1, 1, size) * robot.qd_limits
    qdd = rng.uniform(-1, 1, size) * robot.qdd_limits
    return q, qd, qdd


def random_params(robot, rng):
    """Physically consistent random inertial parameters."""
    m = rng.uniform(0.2, 5.0, robot.n)
    c = rng.uniform(-0.2, 0.2, (robot.n, 3))
    J = rng.uniform(0.01, 0.1, (robot.n, 3))
    J[:, 2] = np.minimum(J[:, 2], J[:, 0] + J[:, 1])
    from robidlib.spatial import rpy_to_matrix

    R = rpy_to_matrix(rng.uniform(-np.pi, np.pi, (robot.n, 3)))
    Ic = R @ (J[:, :, None] * np.eye(3)) @ np.swapaxes(R, 1, 2)
    return link_params(m, c, Ic).ravel()


def planar_2r_closed_form(robot, q, qd, qdd):
    """Lagrange equations of a planar 2R arm (joints about z, gravity along -y)."""
    P = robot.link_params
    l1 = robot.joint_origins[1, 0, 3]
    g0 = -robot.gravity[1]
    m2 = P[1, 0]
    mx1, my1, mx2, my2 = P[0, 1], P[0, 2], P[1, 1], P[1, 2]
    I1, I2 = P[0, 6], P[1, 6]
    q1, q2 = q[..., 0], q[..., 1]
    c2 = mx2 * np.cos(q2) - my2 * np.sin(q2)
    h = l1 * (mx2 * np.sin(q2) + my2 * np.cos(q2))
    M11 = I1 + I2 + m2 * l1**2 + 2 * l1 * c2
    M12 = I2 + l1 * c2
    G1 = g0 * (mx1 * np.cos(q1) - my1 * np.sin(q1) + m2 * l1 * np.cos(q1) + mx2 * np.cos(q1 + q2) - my2 * np.sin(q1 + q2))
    G2 = g0 * (mx2 * np.cos(q1 + q2) - my2 * np.sin(q1 + q2))
    t1 = M11 * qdd[..., 0] + M12 * qdd[..., 1] - h * (2 * qd[..., 0] * qd[..., 1] + qd[..., 1] ** 2) + G1
    t2 = M12 * qdd[..., 0] + I2 * qdd[..., 1] + h * qd[..., 0] ** 2 + G2
    return np.stack([t1, t2], axis=-1)


@given(seed=SEEDS)
@FAST
def test_rnea_matches_planar_2r_lagrange(seed):
    rng = np.random.default_rng(seed)
    r = planar_2r()
    r = r.with_params(random_params(r, rng))
    q, qd, qdd = random_state(r, rng, N=50)
    assert np.allclose(inverse_dynamics(r, q, qd, qdd), planar_2r_closed_form(r, q, qd, qdd), rtol=1e-10, atol=1e-10)


def test_prismatic_lift_carries_the_weight_and_inertia():
    r = redundant_5dof()
    M_total = r.link_params[:, 0].sum()
    q = np.array([0.2, 0.3, -0.4, 0.5, 0.1])
    tau = inverse_dynamics(r, q, np.zeros(5), np.r_[1.5, 0, 0, 0, 0])
    assert np.isclose(tau[0], M_total * (9.81 + 1.5))
    assert np.isclose(mass_matrix(r, q)[0, 0], M_total)


@pytest.mark.parametrize("name", list(MODELS))
def test_single_and_batch_agree(name):
    r = MODELS[name]
    rng = np.random.default_rng(0)
    q, qd, qdd = random_state(r, rng, N=7)
    tau = inverse_dynamics(r, q, qd, qdd)
    assert tau.shape == (7, r.n)
    assert np.allclose(inverse_dynamics(r, q[3], qd[3], qdd[3]), tau[3])
    assert mass_matrix(r, q).shape == (7, r.n, r.n)
    assert np.allclose(mass_matrix(r, q[2]), mass_matrix(r, q)[2])


def test_chunks_give_the_same_result(monkeypatch):
    r = MODELS["ur5"]
    rng = np.random.default_rng(1)
    q, qd, qdd = random_state(r, rng, N=23)
    tau, M = inverse_dynamics(r, q, qd, qdd), mass_matrix(r, q)
    monkeypatch.setattr(dyn, "_CHUNK", 5)
    assert np.allclose(inverse_dynamics(r, q, qd, qdd), tau, rtol=1e-13, atol=1e-12)
    assert np.allclose(mass_matrix(r, q), M, rtol=1e-13, atol=1e-13)


# ---------------------------------------------------------------------- the compiled loop
def _close(a, b, rtol):
    """Per-sample relative agreement: |a - b| <= rtol * max(1, |b|) (max over the joints)."""
    err = np.abs(a - b).max(axis=-1)
    assert np.all(err <= rtol * np.maximum(1.0, np.abs(b).max(axis=-1))), err.max()


@pytest.mark.parametrize("name", list(MODELS))
@given(seed=SEEDS)
@FAST
def test_compiled_inverse_dynamics_is_the_numpy_reference(name, seed):
    """inverse_dynamics runs the compiled loop; the readable numpy version is the reference:
    equal to round-off (a few hundred operations on numbers of order one) for any parameters,
    gravity and state, revolute and prismatic joints."""
    from robidlib import _jit

    assert (dyn._compiled_rnea() is not None) == _jit.jit_enabled()
    rng = np.random.default_rng(seed)
    r = MODELS[name].with_params(random_params(MODELS[name], rng))
    q, qd, qdd = random_state(r, rng, N=30)
    g = rng.normal(size=3) * 5
    tau = dyn._inverse_dynamics(r, q, qd, qdd, g)
    _close(tau, dyn._inverse_dynamics_numpy(r, q, qd, qdd, g), 1e-13)
    _close(inverse_dynamics(r.with_gravity(g), q, qd, qdd, include_friction=False), tau, 0)


@pytest.mark.parametrize("name", list(MODELS))
def test_compiled_loop_is_its_python(name):
    """What numba compiles is the Python of _rnea_rows: run uncompiled, the same numbers."""
    r = MODELS[name]
    q, qd, qdd = random_state(r, np.random.default_rng(4), N=5)
    plain = np.full(q.shape, np.nan)
    dyn._rnea_rows(q, qd, qdd, *dyn._robot_arrays(r, r.gravity), dyn._c(r.link_params), plain)
    _close(inverse_dynamics(r, q, qd, qdd, include_friction=False), plain, 1e-13)


@pytest.mark.parametrize("name", list(MODELS))
def test_simulation_terms_compiled_and_numpy(name, monkeypatch):
    """simulate's h(q, qd) and M(q) (the compiled loop, twice per evaluation) equal the numpy
    RNEA on n + 1 columns, bias_torques and mass_matrix."""
    r = MODELS[name]
    q, qd, _ = random_state(r, np.random.default_rng(5))
    h, M = (x.copy() for x in dyn._rigid_terms(r, r.gravity)(q, qd))
    monkeypatch.setattr(dyn, "_compiled_rnea", lambda: None)
    h_np, M_np = dyn._rigid_terms(r, r.gravity)(q, qd)
    _close(h, h_np, 1e-13)
    _close(M, M_np, 1e-13)
    _close(h, bias_torques(r, q, qd, include_friction=False), 1e-13)
    _close(M, mass_matrix(r, q), 1e-12)


@pytest.mark.parametrize("name", list(MODELS))
@given(seed=SEEDS)
@FAST
def test_mass_matrix_is_spd_and_equals_rnea_columns(name, seed):
    r = MODELS[name]
    rng = np.random.default_rng(seed)
    q, _, _ = random_state(r, rng)
    M = mass_matrix(r, q)
    assert np.allclose(M, M.T, rtol=0, atol=1e-12)
    assert np.linalg.eigvalsh(M)[0] > 0
    cols = inverse_dynamics(r, np.tile(q, (r.n, 1)), np.zeros((r.n, r.n)), np.eye(r.n), gravity=[0, 0, 0], include_friction=False)
    assert np.allclose(cols.T, M, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", list(MODELS))
@given(seed=SEEDS)
@FAST
def test_id_of_fd_is_identity(name, seed):
    rng = np.random.default_rng(seed)
    r = MODELS[name].with_friction(rng.uniform(0, 1, (MODELS[name].n, 2)))
    q, qd, _ = random_state(r, rng, N=5)
    tau = rng.normal(size=(5, r.n)) * 10
    qdd = forward_dynamics(r, q, qd, tau)
    assert np.allclose(inverse_dynamics(r, q, qd, qdd), tau, rtol=1e-9, atol=1e-9)
    assert np.allclose(forward_dynamics(r, q[0], qd[0], tau[0]), qdd[0])


def test_friction_gravity_and_bias_terms():
    rng = np.random.default_rng(3)
    fr = np.array([[0.5, 0.2], [0.3, 0.1]])
    r = planar_2r(friction=fr)
    q, qd, qdd = random_state(r, rng, N=10)
    qd[0, 1] = 0.0  # sign(0) = 0
    tf = friction_torques(r, qd)
    assert np.allclose(tf, fr[:, 0] * qd + fr[:, 1] * np.sign(qd))
    assert tf[0, 1] == 0.0
    assert np.allclose(inverse_dynamics(r, q, qd, qdd), inverse_dynamics(r, q, qd, qdd, include_friction=False) + tf)
    h = bias_torques(r, q, qd)
    M = mass_matrix(r, q)
    assert np.allclose(inverse_dynamics(r, q, qd, qdd), np.einsum("nij,nj->ni", M, qdd) + h)
    assert np.allclose(bias_torques(r, q, np.zeros_like(q), include_friction=False), gravity_torques(r, q))
    # gravity is a robot parameter that can be overridden
    assert np.allclose(gravity_torques(r, q, gravity=[0, 0, -9.81]), 0.0)  # plane is horizontal then
    assert np.allclose(gravity_torques(r, q, gravity=2 * r.gravity), 2 * gravity_torques(r, q))
    assert np.allclose(bias_torques(r, q[0], qd[0]), h[0])


@pytest.mark.parametrize("name", list(MODELS))
def test_potential_energy_gradient_is_gravity_torque(name):
    r = MODELS[name]
    rng = np.random.default_rng(4)
    q, qd, _ = random_state(r, rng)
    eps = 1e-6
    E = np.eye(r.n) * eps
    grad = (potential_energy(r, q + E) - potential_energy(r, q - E)) / (2 * eps)
    assert np.allclose(grad, gravity_torques(r, q), rtol=1e-6, atol=1e-6)
    assert np.isclose(kinetic_energy(r, q, qd), 0.5 * qd @ mass_matrix(r, q) @ qd)
    assert kinetic_energy(r, np.tile(q, (3, 1)), np.tile(qd, (3, 1))).shape == (3,)


def energy_drift(robot, q0, qd0, T=5.0, rtol=1e-10):
    t = np.linspace(0.0, T, 251)
    sim = simulate(robot, t, q0, qd0, method="DOP853", rtol=rtol, atol=rtol * 1e-2)
    E = kinetic_energy(robot, sim.q, sim.qd) + potential_energy(robot, sim.q)
    return np.abs(E - E[0]).max() / max(np.abs(E).max(), kinetic_energy(robot, q0, qd0))


@given(seed=SEEDS)
@settings(max_examples=3, deadline=None)
def test_energy_is_conserved_redundant_5dof(seed):
    r = redundant_5dof()
    rng = np.random.default_rng(seed)
    q0, qd0, _ = random_state(r, rng)
    assert energy_drift(r, q0, 0.5 * qd0) <= 1e-6


def test_energy_is_conserved_planar_2r():
    r = planar_2r()
    assert energy_drift(r, np.array([0.3, -0.5]), np.array([1.0, -2.0]), rtol=1e-9) <= 1e-6


def test_simulate_tracks_a_trajectory_from_its_torques():
    r = planar_2r()
    t = np.linspace(0, 0.5, 101)
    w = 2 * np.pi
    q = np.column_stack([0.5 * np.sin(w * t), 0.3 * np.cos(w * t)])
    qd = np.column_stack([0.5 * w * np.cos(w * t), -0.3 * w * np.sin(w * t)])
    qdd = np.column_stack([-0.5 * w**2 * np.sin(w * t), -0.3 * w**2 * np.cos(w * t)])
    tau = inverse_dynamics(r, q, qd, qdd)
    sim = simulate(r, t, q[0], qd[0], tau, rtol=1e-7, atol=1e-9)  # linear interpolation of the samples
    assert sim.q.shape == (101, 2) and np.allclose(sim.tau, tau)
    assert np.abs(sim.q - q).max() < 1e-3
    assert np.allclose(sim.qdd, forward_dynamics(r, sim.q, sim.qd, tau))
    zoh = simulate(r, t[:41], q[0], qd[0], tau[:41], torque_interp="zoh", rtol=1e-7, atol=1e-9)
    err_zoh = np.abs(zoh.q - q[:41]).max()
    assert 2 * np.abs(sim.q[:41] - q[:41]).max() < err_zoh < 2e-2  # holding the torque lags
    assert np.allclose(zoh.tau, tau[:41])


def test_simulate_with_a_controller():
    r = planar_2r()
    target = np.array([0.8, -0.4])

    def computed_torque(t, q, qd):
        v = 100.0 * (target - q) - 20.0 * qd
        return inverse_dynamics(r, q, qd, v)

    sim = simulate(r, np.linspace(0, 2, 41), np.zeros(2), np.zeros(2), computed_torque)
    assert np.allclose(sim.q[-1], target, atol=1e-3)
    assert np.allclose(sim.tau[0], computed_torque(0, np.zeros(2), np.zeros(2)))
    free = simulate(r, np.linspace(0, 0.5, 6), np.zeros(2), np.zeros(2))
    assert np.all(free.tau == 0) and free.q[-1, 0] < -0.1  # falls under gravity
    assert free.nfev > 0 and isinstance(free.message, str)


# ---------------------------------------------------------------------- bad input
R2 = MODELS["planar_2r"]
Z = np.zeros(2)


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: inverse_dynamics(R2, np.zeros(3), np.zeros(3), np.zeros(3)), ValueError, r"q must have shape \(2,\) or \(N, 2\)"),
        (lambda: inverse_dynamics(R2, Z, np.zeros((4, 2)), Z), ValueError, "qd must have the same shape as q"),
        (lambda: inverse_dynamics(R2, Z, Z, [np.nan, 0]), ValueError, "qdd must be finite"),
        (lambda: inverse_dynamics(R2, Z, Z, Z, gravity=[0, 1]), ValueError, "gravity must have shape"),
        (lambda: inverse_dynamics(R2, Z, Z, Z, include_friction=1), TypeError, "include_friction must be True or False"),
        (lambda: inverse_dynamics(None, Z, Z, Z), TypeError, "robot must be a SerialRobot"),
        (lambda: mass_matrix(R2, np.zeros((2, 3))), ValueError, r"q must have shape"),
        (lambda: mass_matrix(R2, [np.inf, 0]), ValueError, "q must be finite"),
        (lambda: bias_torques(R2, Z, np.zeros(3)), ValueError, "qd must have shape"),
        (lambda: gravity_torques(R2, "q"), TypeError, "q must be numeric"),
        (lambda: friction_torques(R2, np.zeros((2, 2, 2))), ValueError, "qd must have 1 or 2 dimension"),
        (lambda: forward_dynamics(R2, Z, Z, np.zeros(3)), ValueError, "tau must have shape"),
        (lambda: forward_dynamics(SerialRobot.from_dh("RR", [0, 1], [0, 0], [0, 0]), Z, Z, Z), ValueError, "mass matrix is singular"),
        (lambda: kinetic_energy(R2, Z, np.zeros((3, 2))), ValueError, "qd must have the same shape"),
        (lambda: potential_energy(R2, [0.0, np.nan]), ValueError, "q must be finite"),
        (lambda: simulate(R2, [0.0, 0.0, 1.0], Z, Z), ValueError, "t must be strictly increasing"),
        (lambda: simulate(R2, [0.0], Z, Z), ValueError, "at least 2"),
        (lambda: simulate(R2, [0.0, 1.0], np.zeros(3), Z), ValueError, r"q0 must have shape \(2,\)"),
        (lambda: simulate(R2, [0.0, 1.0], Z, [np.nan, 0]), ValueError, "qd0 must be finite"),
        (lambda: simulate(R2, [0.0, 1.0], Z, Z, np.zeros((3, 2))), ValueError, r"torque must have shape \(2, 2\)"),
        (lambda: simulate(R2, [0.0, 1.0], Z, Z, torque_interp="cubic"), ValueError, "unknown torque_interp 'cubic'"),
        (lambda: simulate(R2, [0.0, 1.0], Z, Z, lambda t, q, qd: np.zeros(3)), ValueError, r"callable must return shape \(2,\)"),
        (lambda: simulate(R2, [0.0, 1.0], Z, Z, lambda t, q, qd: np.full(2, np.nan)), ValueError, "returned NaN"),
        (lambda: simulate(R2, [0.0, 1.0], Z, Z, rtol=-1.0), ValueError, "rtol must be > 0"),
        (lambda: simulate(R2, [0.0, 1.0], Z, Z, method="Euler"), ValueError, "unknown method 'Euler'"),
    ],
)
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_docstring_examples_run():
    import doctest

    import robidlib.dynamics as module

    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_simulate_with_smoothed_coulomb_friction_through_a_stop():
    # a joint that brakes to rest under Coulomb friction: with tanh smoothing the simulation is
    # quick, ends (nearly) at rest, and qdd is consistent with the smoothed plant
    from robidlib.models.planar_2r import planar_2r

    robot = planar_2r(gravity=[0.0, 0.0, 0.0]).with_friction(fv=[0.0, 0.0], fc=[0.5, 0.5])
    t = np.linspace(0.0, 2.0, 201)
    sim = simulate(robot, t, [0.0, 0.0], [1.0, -1.0], coulomb_smoothing=1e-2)
    assert np.all(np.abs(sim.qd[-1]) < 0.05)
    smooth = robot.friction[:, 1] * np.tanh(sim.qd / 1e-2)
    expected = forward_dynamics(robot, sim.q, sim.qd, sim.tau - smooth, include_friction=False)
    np.testing.assert_allclose(sim.qdd, expected, atol=1e-9)
    with pytest.raises(ValueError, match="coulomb_smoothing must be >= 0"):
        simulate(robot, t, [0.0, 0.0], [1.0, -1.0], coulomb_smoothing=-1.0)


@pytest.mark.parametrize("make", [planar_2r, redundant_5dof, ur5])
def test_empty_batches_give_empty_results_of_the_right_shape(make):
    r = make()
    n, e = r.n, np.zeros((0, r.n))
    assert inverse_dynamics(r, e, e, e).shape == (0, n)
    assert mass_matrix(r, e).shape == (0, n, n)
    assert forward_dynamics(r, e, e, e).shape == (0, n)
    assert dyn.kinetic_energy(r, e, e).shape == (0,)
    assert dyn.potential_energy(r, e).shape == (0,)
    assert dyn.bias_torques(r, e, e).shape == dyn.gravity_torques(r, e).shape == (0, n)


def test_simulate_refuses_what_would_hang_or_fail_obscurely():
    import time

    r = planar_2r()
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"simulate: the ODE solver used up max_nfev = 2000 evaluations .* "
                                         r"of the time span \[0, 1e\+06\]"):
        simulate(r, [0.0, 1e6], [0.1, 0.2], [0.0, 0.0], max_nfev=2000)
    assert time.perf_counter() - t0 < 60               # a bound, not a timing claim: it ends
    with pytest.raises(ValueError, match="simulate needs a positive definite mass matrix, but M\\(q0\\)"):
        simulate(r.with_params(np.zeros(20)), [0.0, 1.0], [0.1, 0.2], [0.0, 0.0])
    for bad in (-np.inf, np.nan, -1.0, 0.0):
        with pytest.raises(ValueError, match="max_step must be"):
            simulate(r, [0.0, 1.0], [0.1, 0.2], [0.0, 0.0], max_step=bad)
    with pytest.raises(TypeError, match="max_step must be a real scalar"):
        simulate(r, [0.0, 1.0], [0.1, 0.2], [0.0, 0.0], max_step="1")
    with pytest.raises(ValueError, match=r"rtol must be >= 2.22e-14"):
        simulate(r, [0.0, 1.0], [0.1, 0.2], [0.0, 0.0], rtol=1e-300)
    with pytest.raises(TypeError, match="robot must be a SerialRobot, got str"):
        simulate("robot", [0.0, 1.0], [0.1, 0.2], [0.0, 0.0])
    with pytest.raises(ValueError, match="max_nfev must be >= 1"):
        simulate(r, [0.0, 1.0], [0.1, 0.2], [0.0, 0.0], max_nfev=0)
    # the default budget is far above what a normal simulation needs
    assert simulate(r, np.linspace(0, 2, 21), [0.1, 0.2], [0.0, 0.0]).nfev < 20_000


def test_simulation_result_validates_its_fields():
    t = np.linspace(0, 1, 3)
    z = np.zeros((3, 2))
    res = dyn.SimulationResult(t, z, z, z, z, 10, "ok")
    assert res.q.shape == (3, 2)
    with pytest.raises(ValueError, match=r"qd must have shape \(3, 2\) \(n = 2 from q\), got \(3, 3\)"):
        dyn.SimulationResult(t, z, np.zeros((3, 3)), z, z, 10, "ok")
    with pytest.raises(ValueError, match="tau must be finite"):
        dyn.SimulationResult(t, z, z, z, np.full((3, 2), np.nan), 10, "ok")
    with pytest.raises(ValueError, match="nfev must be >= 0, got -1"):
        dyn.SimulationResult(t, z, z, z, z, -1, "ok")
