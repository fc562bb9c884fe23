"""Tests of robidlib.multibody.constraints and .system: Jacobians, nu, gamma, Hessians, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from robidlib.multibody import models
from robidlib.multibody.body import RigidBody
from robidlib.multibody.constraints import (AngleDriver, Marker, MixedCoordinateRelation,
                                            Revolute, Spherical, TrackedVector,
                                            perpendicular_vectors)
from robidlib.multibody.system import MultibodySystem

S2 = np.sqrt(0.5)


def _system() -> MultibodySystem:
    """Three bodies exercising every constraint type (ground on either side, both MCR forms)."""
    bodies = [RigidBody(n, 1.0, [0.01, 0.0, 0.02], np.diag([0.02, 0.03, 0.04])) for n in "ABC"]
    joints = [
        Revolute("ground", [0.1, 0.2, 0.0], [0, 0, 1], "A", [0.0, 0.0, -0.2], [0, 0, 1]),
        Spherical("A", [0.3, 0.0, 0.1], "B", [-0.2, 0.05, 0.0]),
        Revolute("B", [0.2, 0.0, 0.0], [0, S2, S2], "C", [-0.1, 0.0, 0.0], [1, 0, 0]),
        Spherical("C", [0.2, 0.1, 0.0], "ground", [0.5, 0.4, 0.3]),
    ]
    angles = [
        MixedCoordinateRelation("th1", "ground", [1, 0, 0], "A", [0, 1, 0], axis_i=[0, 0, 1]),
        MixedCoordinateRelation("th2", "B", [1, 0, 0], "C", [0, 1, 0], axis_i=[0, S2, S2], form="sin"),
        MixedCoordinateRelation("th3", "A", [0, 0, 1], "B", [S2, 0, S2]),
    ]
    markers = [Marker("P1", "A", [0.1, 0.0, 0.0]), Marker("P2", "B", [0.0, 0.1, 0.05]),
               Marker("P3", "C", [0.05, 0.0, -0.1])]
    vectors = [TrackedVector("V1", "C", [0, 0, 1]), TrackedVector("V2", "A", [S2, S2, 0])]
    return MultibodySystem(bodies, joints, angles, markers, vectors)


SYS = _system()
ALL = SYS.topological + (SYS.tracking, SYS.vector_tracking, SYS.driver)


def _path(t: float, rng_seed: int = 3) -> np.ndarray:
    """A smooth (not necessarily admissible) coordinate path q(t)."""
    rng = np.random.default_rng(rng_seed)
    a, b, c = rng.normal(size=(3, SYS.n_coords))
    return a + b * np.sin(1.3 * t) + c * t**2


def _data(c, t: float) -> np.ndarray | None:
    """Smooth prescribed data p(t) for the rheonomic constraints."""
    if c.kind == "topological":
        return None
    base = np.linspace(0.2, 1.0, c.n_eq)
    return base * np.cos(0.7 * t) + 0.3 * t


def _fd(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


@pytest.mark.parametrize("c", ALL, ids=lambda c: c.name)
def test_jacobian_matches_central_differences(c):
    rng = np.random.default_rng(0)
    q = rng.normal(size=SYS.n_coords)
    p = _data(c, 0.4)
    J = c.jacobian(q)
    h = 1e-6
    fd = np.array([(c.phi(q + h * e, p) - c.phi(q - h * e, p)) / (2 * h)
                   for e in np.eye(SYS.n_coords)]).T
    assert J.shape == (c.n_eq, SYS.n_coords)
    np.testing.assert_allclose(J, fd, atol=1e-8)


@pytest.mark.parametrize("c", ALL, ids=lambda c: c.name)
def test_nu_and_gamma_match_derivatives_along_a_smooth_motion(c):
    """d/dt Phi = Phi_q qd - nu and d^2/dt^2 Phi = Phi_q qdd - gamma along q(t), p(t)."""
    t, h = 0.8, 1e-4
    q, qd, qdd = _path(t), _fd(_path, t, h), (_path(t + h) - 2 * _path(t) + _path(t - h)) / h**2
    def phi_t(s):
        return c.phi(_path(s), _data(c, s))
    dphi = _fd(phi_t, t, h)
    ddphi = (phi_t(t + h) - 2 * phi_t(t) + phi_t(t - h)) / h**2
    pd = None if c.kind == "topological" else _fd(lambda s: _data(c, s), t, h)
    pdd = None if c.kind == "topological" else (_data(c, t + h) - 2 * _data(c, t) + _data(c, t - h)) / h**2
    J = c.jacobian(q)
    np.testing.assert_allclose(c.nu(pd), J @ qd - dphi, atol=1e-6)
    np.testing.assert_allclose(c.gamma(q, qd, pdd), J @ qdd - ddphi, atol=2e-5)
    if c.kind == "topological":
        np.testing.assert_array_equal(c.nu(), 0.0)


@pytest.mark.parametrize("c", ALL, ids=lambda c: c.name)
def test_hessian_matches_differences_of_the_jacobian(c):
    rng = np.random.default_rng(5)
    q, lam = rng.normal(size=SYS.n_coords), rng.normal(size=c.n_eq)
    h = 1e-6
    fd = np.array([(lam @ c.jacobian(q + h * e) - lam @ c.jacobian(q - h * e)) / (2 * h)
                   for e in np.eye(SYS.n_coords)])
    H = c.hessian(q, lam)
    np.testing.assert_allclose(H, H.T, atol=1e-12)
    np.testing.assert_allclose(H, fd, atol=1e-7)


def test_system_stacks_the_topological_constraints():
    rng = np.random.default_rng(6)
    q, qd = rng.normal(size=(2, SYS.n_coords))
    np.testing.assert_allclose(SYS.phi(q), np.concatenate([c.phi(q) for c in SYS.topological]))
    np.testing.assert_allclose(SYS.jacobian(q), np.vstack([c.jacobian(q) for c in SYS.topological]))
    np.testing.assert_allclose(SYS.gamma(q, qd), np.concatenate([c.gamma(q, qd) for c in SYS.topological]))
    lam = rng.normal(size=SYS.n_constraints)
    H = sum(c.hessian(q, lam[r:r + c.n_eq]) for c, r in
            zip(SYS.topological, np.cumsum([0] + [c.n_eq for c in SYS.topological])))
    np.testing.assert_allclose(SYS.hessian(q, lam), H, atol=1e-12)
    assert len(SYS.constraint_labels) == SYS.n_constraints == 18 + 5 + 3 + 5 + 3 + 3
    # tracking positions are the linear maps C^P q
    np.testing.assert_allclose(SYS.marker_positions(q)[1],
                               SYS.bodies[1].point_matrix([0.0, 0.1, 0.05]) @ q[SYS.body_slice("B")])


def test_mcr_gives_the_joint_angle_in_both_forms():
    """On a revolute joint, cos-form theta = phi + pi/2 and sin-form theta = phi."""
    z = [0, 0, 1]
    joint = Revolute("ground", [0, 0, 0], z, "b", [0, 0, 0], z)
    for form, s_j, offset in (("cos", [0, 1, 0], np.pi / 2), ("sin", [1, 0, 0], 0.0)):
        mcr = MixedCoordinateRelation("th", "ground", [1, 0, 0], "b", s_j, axis_i=z, form=form)
        sys = MultibodySystem([RigidBody("b")], [joint], [mcr])
        for phi in (-1.2, -0.3, 0.4, 1.3):
            c, s = np.cos(phi), np.sin(phi)
            q = np.r_[0, 0, 0, c, s, 0, -s, c, 0, 0, 0, 1, phi + offset]
            assert np.abs(sys.phi(q)).max() < 1e-13     # zero up to round-off
            # the signed in-plane angle computed from the global vectors recovers theta
            s_j_global = q[3:6] if form == "sin" else q[6:9]
            got = sys.mcrs[0].angle_from_vectors(np.array([[1.0, 0, 0]]), s_j_global[None],
                                                 np.array([[0, 0, 1.0]]))
            assert got[0] == pytest.approx(phi + offset)
    # the cos form is blind to the sign of theta: theta and -theta both satisfy it
    mcr = MixedCoordinateRelation("th", "ground", [1, 0, 0], "b", [0, 1, 0])
    sys = MultibodySystem([RigidBody("b")], [], [mcr])
    q = np.r_[0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, np.pi / 2]
    assert np.abs(sys.phi(q)).max() < 1e-13     # zero up to round-off
    q[-1] = -np.pi / 2
    assert np.abs(sys.phi(q)).max() < 1e-13     # zero up to round-off
    # ... and its angle derivative sin(theta) vanishes at 0 and pi (ill-determined angle)
    q[-1] = 0.0
    assert sys.jacobian(q)[-1, -1] == 0.0


def test_perpendicular_vectors_form_a_right_handed_triad():
    rng = np.random.default_rng(7)
    for _ in range(5):
        a = rng.normal(size=3)
        a /= np.linalg.norm(a)
        e1, e2 = perpendicular_vectors(a)
        R = np.column_stack([e1, e2, a])
        np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-14)
        assert np.linalg.det(R) == pytest.approx(1.0)


def test_bad_constraint_input():
    with pytest.raises(ValueError, match="axis_i must be a unit vector"):
        Revolute("A", [0, 0, 0], [0, 0, 2], "B", [0, 0, 0], [0, 0, 1])
    with pytest.raises(ValueError, match="body_j must differ"):
        Spherical("A", [0, 0, 0], "A", [1, 0, 0])
    with pytest.raises(ValueError, match="perpendicular to axis_i"):
        MixedCoordinateRelation("th", "A", [1, 0, 0], "B", [0, 1, 0], axis_i=[1, 0, 0])
    with pytest.raises(ValueError, match="form='sin' needs axis_i"):
        MixedCoordinateRelation("th", "A", [1, 0, 0], "B", [0, 1, 0], form="sin")
    with pytest.raises(ValueError, match="unknown form"):
        MixedCoordinateRelation("th", "A", [1, 0, 0], "B", [0, 1, 0], form="tan")
    with pytest.raises(ValueError, match="s_j must be a unit vector"):
        MixedCoordinateRelation("th", "A", [1, 0, 0], "B", [0, 1, 1])
    with pytest.raises(ValueError, match="point_i"):
        Spherical("A", [0, 0], "B", [0, 0, 0])
    with pytest.raises(ValueError, match="local must be a unit vector"):
        TrackedVector("V", "A", [1, 1, 0])
    with pytest.raises(RuntimeError, match="not bound"):
        Spherical("A", [0, 0, 0], "B", [0, 0, 0]).phi(np.zeros(24))
    with pytest.raises(ValueError, match="angles must have shape"):
        SYS.driver.phi(np.zeros(SYS.n_coords), np.zeros(2))
    with pytest.raises(ValueError, match="markers must have shape"):
        SYS.tracking.phi(np.zeros(SYS.n_coords), np.zeros((2, 3)))
    with pytest.raises(ValueError, match="marker_velocities is required"):
        SYS.tracking.nu(None)


def test_bad_system_input():
    b = [RigidBody("A"), RigidBody("B")]
    with pytest.raises(ValueError, match="marker 'P1' is attached to unknown body 'Z'"):
        MultibodySystem(b, [], markers=[Marker("P1", "Z", [0, 0, 0])])
    with pytest.raises(ValueError, match="unknown body 'Z'"):
        MultibodySystem(b, [Spherical("A", [0, 0, 0], "Z", [0, 0, 0])])
    with pytest.raises(ValueError, match="body names must be unique"):
        MultibodySystem([RigidBody("A"), RigidBody("A")], [])
    mcr = MixedCoordinateRelation("th1", "A", [1, 0, 0], "B", [0, 1, 0])
    with pytest.raises(ValueError, match="2 angle variable.*1 MCR"):
        MultibodySystem(b, [], [mcr], angle_names=["th1", "th2"])
    with pytest.raises(ValueError, match="angle.*unique"):
        MultibodySystem(b, [], [mcr, MixedCoordinateRelation("th1", "B", [1, 0, 0], "A", [0, 1, 0])])
    with pytest.raises(TypeError, match="MixedCoordinateRelation"):
        MultibodySystem(b, [], [Spherical("A", [0, 0, 0], "B", [0, 0, 0])])
    with pytest.raises(TypeError, match="topological"):
        MultibodySystem(b, [AngleDriver(["th1"])], [mcr])
    with pytest.raises(ValueError, match=r"q must have shape \(24,\)"):
        MultibodySystem(b, []).phi(np.zeros(12))
    with pytest.raises(ValueError, match="body 'A'.*not unit"):
        MultibodySystem(b, []).check_coordinates(np.zeros(24))
    with pytest.raises(ValueError, match="collinear"):
        MultibodySystem(b[:1], []).check_coordinates(np.r_[0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1.0])
    with pytest.raises(ValueError, match="unknown angle"):
        models.simple_chain().system.angle_index("nope")
