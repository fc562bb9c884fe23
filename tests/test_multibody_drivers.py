"""Tests of robidlib.multibody.drivers: the angular-relation drivers (AR) of the paper's eqs. 23-28."""

from __future__ import annotations

import numpy as np
import pytest

from robidlib.multibody import (AngularRelation, MultibodySystem, RigidBody, Revolute,
                                angular_relations, classical_system, models, solve_accelerations,
                                solve_angular_relations, solve_driven, solve_velocities)

SIMPLE = models.simple_chain()
FIVE = models.five_body_chain()


@pytest.mark.parametrize("model", [SIMPLE, FIVE], ids=["simple", "five"])
def test_ar_drivers_give_the_motion_of_the_mixed_drivers(model):
    """Classical FCC + AR (rheonomic) and mixed coordinates + linear drivers: one motion."""
    ref = model.reference_motion(duration=0.3)
    fcc = classical_system(model.system)
    nb = 12 * len(fcc.bodies)
    out = solve_angular_relations(fcc, angular_relations(model.system), ref.theta,
                                  q0=model.zero_coordinates()[:nb], rates=ref.phid,
                                  accelerations=ref.phidd)
    mixed = solve_driven(model.system, ref.theta, q0=model.zero_coordinates())
    qd = solve_velocities(model.system, mixed.q, angle_rates=ref.phid)
    qdd = solve_accelerations(model.system, mixed.q, qd, angle_accelerations=ref.phidd)
    np.testing.assert_allclose(out.q, mixed.q[:, :nb], atol=1e-10)
    np.testing.assert_allclose(out.qd, qd[:, :nb], atol=1e-9)
    np.testing.assert_allclose(out.qdd, qdd[:, :nb], atol=1e-8)
    np.testing.assert_allclose(out.qdd, ref.qdd[:, :nb], atol=1e-8)
    assert out.iterations.min() >= 1


def test_ar_right_hand_sides_are_the_time_derivatives():
    """nu_AR = -Phi_t and gamma_AR = -(Phi_q qd)_q qd - Phi_tt, by finite differences."""
    ref = SIMPLE.reference_motion(duration=0.5, rate=1000.0)
    fcc = classical_system(SIMPLE.system)
    ar = angular_relations(SIMPLE.system)[1].bind(fcc)
    k, dt, nb = 250, 1e-3, 36
    q, qd, qdd = ref.q[:, :nb], ref.qd[:, :nb], ref.qdd[:, :nb]
    th, thd, thdd = ref.theta[:, 1], ref.phid[:, 1], ref.phidd[:, 1]
    # along the motion Phi_AR = 0, so Phi_q qd = nu and Phi_q qdd = gamma
    assert abs(ar.phi(q[k], th[k])[0]) < 1e-12
    np.testing.assert_allclose(ar.jacobian(q[k]) @ qd[k], ar.nu(thd[k], th[k]), atol=1e-10)
    np.testing.assert_allclose(ar.jacobian(q[k]) @ qdd[k], ar.gamma(q[k], qd[k], thdd[k], thd[k], th[k]),
                               atol=1e-9)
    # and the explicit time term: d/dt(-cos theta*) = sin(theta*) theta*_dot = -nu
    dphi_t = (-np.cos(th[k + 1]) + np.cos(th[k - 1])) / (2 * dt)
    assert abs(dphi_t + ar.nu(thd[k], th[k])[0]) < 1e-5


def test_classical_system_and_relations_layout():
    fcc = classical_system(FIVE.system)
    assert fcc.n_coords == 60 and fcc.angle_names == () and fcc.marker_names == FIVE.system.marker_names
    assert fcc.n_coords - fcc.n_constraints == 5
    rel = angular_relations(FIVE.system)
    assert [r.name for r in rel] == [f"AR(theta{k})" for k in range(1, 6)]
    assert all(r.kind == "driver" and r.n_eq == 1 for r in rel)


def test_ar_singular_at_zero_angle():
    """At theta* = 0 the AR row is singular (the dot product is extremal): a clear error."""
    z = [0, 0, 1]
    sys = MultibodySystem([RigidBody("b")], [Revolute("ground", [0, 0, 0], z, "b", [0, 0, 0], z)])
    ar = AngularRelation("ground", [1, 0, 0], "b", [1, 0, 0])
    q0 = np.r_[0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1.0]
    with pytest.raises(ValueError, match="singular|did not converge"):
        solve_angular_relations(sys, [ar], [[0.0]], q0=q0)
    c, s = np.cos(0.3), np.sin(0.3)                   # start away from the singular pose
    q1 = np.r_[0, 0, 0, c, s, 0, -s, c, 0, 0, 0, 1.0]
    out = solve_angular_relations(sys, [ar], [[0.4], [0.5]], q0=q1)
    np.testing.assert_allclose(out.q[:, 3:5], [[np.cos(0.4), np.sin(0.4)], [np.cos(0.5), np.sin(0.5)]],
                               atol=1e-10)
    assert out.qd is None and out.qdd is None


def test_bad_input():
    fcc = classical_system(SIMPLE.system)
    rel = angular_relations(SIMPLE.system)
    ref = SIMPLE.reference_motion(duration=0.05)
    q0 = SIMPLE.zero_coordinates()[:36]
    with pytest.raises(TypeError, match="system must be a MultibodySystem"):
        solve_angular_relations(SIMPLE, rel, ref.theta, q0=q0)
    with pytest.raises(TypeError, match="AngularRelation"):
        solve_angular_relations(fcc, ["AR"], ref.theta, q0=q0)
    with pytest.raises(ValueError, match="degrees of freedom"):
        solve_angular_relations(fcc, rel[:2], ref.theta[:, :2], q0=q0)
    with pytest.raises(ValueError, match="angles must have shape"):
        solve_angular_relations(fcc, rel, ref.theta[:, :2], q0=q0)
    with pytest.raises(ValueError, match="finite"):
        solve_angular_relations(fcc, rel, np.full_like(ref.theta, np.nan), q0=q0)
    with pytest.raises(TypeError, match="numeric"):
        solve_angular_relations(fcc, rel, ref.theta + 0j, q0=q0)
    with pytest.raises(ValueError, match="rates must have shape"):
        solve_angular_relations(fcc, rel, ref.theta, q0=q0, rates=ref.phid[:2])
    with pytest.raises(ValueError, match="accelerations need the rates"):
        solve_angular_relations(fcc, rel, ref.theta, q0=q0, accelerations=ref.phidd)
    with pytest.raises(ValueError, match="tol"):
        solve_angular_relations(fcc, rel, ref.theta, q0=q0, tol=-1.0)
    with pytest.raises(ValueError, match="max_iter"):
        solve_angular_relations(fcc, rel, ref.theta, q0=q0, max_iter=0)
    with pytest.raises(ValueError, match="q0"):
        solve_angular_relations(fcc, rel, ref.theta, q0=np.zeros(35))
    with pytest.raises(ValueError, match="did not converge"):
        solve_angular_relations(fcc, rel, ref.theta, q0=q0, max_iter=1)
    with pytest.raises(TypeError, match="system must be a MultibodySystem"):
        classical_system("chain")
    with pytest.raises(TypeError, match="system must be a MultibodySystem"):
        angular_relations(None)
    with pytest.raises(ValueError, match="no MCR"):
        angular_relations(fcc)
    with pytest.raises(ValueError, match="unit"):
        AngularRelation("ground", [2, 0, 0], "b", [0, 1, 0])
    with pytest.raises(ValueError, match="body_j must differ"):
        AngularRelation("b", [1, 0, 0], "b", [0, 1, 0])
    with pytest.raises(ValueError, match="body_i"):
        AngularRelation("", [1, 0, 0], "b", [0, 1, 0])
    ar = rel[0].bind(fcc)
    with pytest.raises(ValueError, match="angle is required"):
        ar.phi(q0)
    with pytest.raises(ValueError, match="one number"):
        ar.phi(q0, [0.1, 0.2])
    with pytest.raises(ValueError, match="rate is required"):
        ar.nu(None, 0.3)
