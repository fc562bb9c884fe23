"""Tests of robidlib.multibody.dynamics: mass matrix, gravity, joint moments from multipliers."""

from __future__ import annotations

import numpy as np
import pytest

from robidlib.multibody import models
from robidlib.multibody.body import RigidBody
from robidlib.multibody.constraints import Revolute
from robidlib.multibody.dynamics import gravity_forces, inverse_dynamics, mass_matrix
from robidlib.multibody.system import MultibodySystem

MODELS = {"simple": models.simple_chain(), "five": models.five_body_chain()}


def _newton_euler_torques(model: models.ChainModel, ref: models.ReferenceMotion) -> np.ndarray:
    """Joint torques of a serial chain from the Newton-Euler equations of the outboard bodies.

    tau_j = z_j . sum_{b >= j} [I_b alpha_b + omega_b x I_b omega_b + (c_b - p_j) x m_b (a_b - g)]
    (independent of the multibody formulation: uses only the exact body kinematics).
    """
    s, g = ref.state, model.system.gravity
    masses = np.array([lk.mass for lk in model.links])
    I_local = np.array([np.diag(lk.inertia) for lk in model.links])
    I_glob = s.rotation @ I_local[None] @ np.swapaxes(s.rotation, -1, -2)          # (N, nb, 3, 3)
    Iw = np.einsum("nbij,nbj->nbi", I_glob, s.omega)
    moment = np.einsum("nbij,nbj->nbi", I_glob, s.alpha) + np.cross(s.omega, Iw)
    force = masses[None, :, None] * (s.acceleration - g)
    nb = len(model.links)
    tau = np.zeros((ref.t.size, nb))
    for j in range(nb):
        for b in range(j, nb):
            total = moment[:, b] + np.cross(s.origin[:, b] - s.joint_point[:, j], force[:, b])
            tau[:, j] += np.einsum("ni,ni->n", s.joint_axis[:, j], total)
    return tau


@pytest.mark.parametrize("name", list(MODELS))
def test_joint_moments_equal_newton_euler_and_power_balance(name):
    model = MODELS[name]
    ref = model.reference_motion(duration=0.6, rate=50.0)
    res = inverse_dynamics(model.system, ref.q, ref.qdd)
    tau_ne = _newton_euler_torques(model, ref)
    assert np.abs(tau_ne).max() > 1.0                              # a non-trivial load
    np.testing.assert_allclose(res.torques, tau_ne, atol=1e-9)
    np.testing.assert_allclose(res.torques_mcr, res.torques, atol=1e-9)
    assert res.residual.max() < 1e-10
    assert res.multipliers.shape == (ref.t.size, model.system.n_constraints + len(model.links))
    assert len(res.labels) == res.multipliers.shape[1]
    # power of the joint moments = d/dt (kinetic + potential energy), T = 1/2 qd' M qd
    M, Q = mass_matrix(model.system), gravity_forces(model.system)
    dE = np.einsum("ni,ij,nj->n", ref.qd, M, ref.qdd) - ref.qd @ Q
    np.testing.assert_allclose(np.sum(res.torques * ref.phid, axis=1), dE, atol=1e-9)


@pytest.mark.parametrize("name", list(MODELS))
def test_joint_moments_equal_serial_robot_rnea(name):
    from robidlib.dynamics import inverse_dynamics as rnea
    from robidlib.robot import SerialRobot

    model = MODELS[name]
    ref = model.reference_motion(duration=0.6, rate=50.0)
    robot = SerialRobot(**model.serial_robot_data())
    tau_rnea = rnea(robot, ref.phi, ref.phid, ref.phidd, include_friction=False)
    res = inverse_dynamics(model.system, ref.q, ref.qdd)
    np.testing.assert_allclose(res.torques, tau_rnea, atol=1e-9)


def test_mass_matrix_and_gravity_of_the_simple_chain():
    s = MODELS["simple"].system
    M = mass_matrix(s)
    assert np.count_nonzero(M - np.diag(np.diag(M))) == 0      # O at the CoM, principal axes
    np.testing.assert_array_equal(np.diag(M)[-3:], 0.0)         # angles carry no mass
    link1 = MODELS["simple"].links[0]
    Ju = (link1.inertia[1] + link1.inertia[2] - link1.inertia[0]) / 2
    np.testing.assert_allclose(np.diag(M)[:6], [2.0] * 3 + [Ju] * 3)
    Q = gravity_forces(s)
    assert Q.reshape(-1)[2::12][:3] == pytest.approx([-9.81 * lk.mass for lk in MODELS["simple"].links])
    assert Q.sum() == pytest.approx(-9.81 * 6.5)


def test_bad_inverse_dynamics_input():
    s = MODELS["simple"].system
    q = MODELS["simple"].zero_coordinates()
    with pytest.raises(ValueError, match=r"qdd must have shape \(1, 39\)"):
        inverse_dynamics(s, q, np.zeros(38))
    with pytest.raises(ValueError, match=r"q must have shape \(N, 39\)"):
        inverse_dynamics(s, q[:30], np.zeros(30))
    with pytest.raises(ValueError, match="qdd must be finite"):
        inverse_dynamics(s, q, np.full(39, np.inf))
    plain = MultibodySystem([RigidBody("b", 1.0)],
                            [Revolute("ground", [0, 0, 0], [0, 0, 1], "b", [0, 0, 0], [0, 0, 1])])
    with pytest.raises(ValueError, match="no angle coordinates"):
        inverse_dynamics(plain, np.zeros(12), np.zeros(12))
    with pytest.raises(TypeError, match="MultibodySystem"):
        mass_matrix(None)
