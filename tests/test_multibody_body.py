"""Tests of robidlib.multibody.body: C^P, C^s, generic mass matrix, reduced <-> full form."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from robidlib.multibody import body as body_module
from robidlib.multibody import constraints, dynamics, models, solvers, system
from robidlib.multibody.body import (RigidBody, V_SELECT, body_coordinates, body_pose,
                                     check_body_vectors, expansion_jacobian, full_to_reduced,
                                     generic_mass_matrix, point_matrix, reduced_to_full, skew,
                                     vector_matrix)


@pytest.mark.parametrize("module", [body_module, constraints, system, solvers, dynamics, models])
def test_doctests_run(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def _random_pose(rng):
    R = Rotation.random(random_state=rng.integers(1 << 31)).as_matrix()
    return rng.normal(size=3), R


def test_point_and_vector_matrices_map_local_coordinates():
    rng = np.random.default_rng(0)
    origin, R = _random_pose(rng)
    q = body_coordinates(origin, R)
    local = rng.normal(size=(4, 3))
    np.testing.assert_allclose(point_matrix(local) @ q, origin + local @ R.T, atol=1e-14)
    np.testing.assert_allclose(vector_matrix(local) @ q, local @ R.T, atol=1e-14)
    # the batched and the single-point forms agree, and C^P = C^s + [I3, 0, 0, 0]
    np.testing.assert_array_equal(point_matrix(local)[2], point_matrix(local[2]))
    np.testing.assert_array_equal(point_matrix(local[0])[:, :3] - vector_matrix(local[0])[:, :3], np.eye(3))
    origin_back, R_back = body_pose(q)
    np.testing.assert_allclose(origin_back, origin)
    np.testing.assert_allclose(R_back, R)


def test_mass_matrix_equals_kinetic_energy_of_point_masses():
    """M must reproduce T = 1/2 sum m_k |dP_k/dt|^2 of a cloud of point masses."""
    rng = np.random.default_rng(1)
    masses = rng.uniform(0.1, 1.0, 12)
    pts = rng.normal(size=(12, 3)) * [0.3, 0.1, 0.05]      # local coordinates
    m = masses.sum()
    com = masses @ pts / m
    d = pts - com
    inertia = np.einsum("k,kij->ij", masses, np.einsum("ki,ki->k", d, d)[:, None, None] * np.eye(3)
                        - d[:, :, None] * d[:, None, :])
    M = generic_mass_matrix(m, com, inertia)
    M_points = sum(mk * point_matrix(p).T @ point_matrix(p) for mk, p in zip(masses, pts))
    np.testing.assert_allclose(M, M_points, atol=1e-12)
    # kinetic energy of a random rigid motion: both sides, plus the classical formula
    origin, R = _random_pose(rng)
    q = body_coordinates(origin, R)
    v, omega = rng.normal(size=3), rng.normal(size=3)
    qd = np.concatenate([v, np.cross(omega, R[:, 0]), np.cross(omega, R[:, 1]), np.cross(omega, R[:, 2])])
    vel = v + np.cross(omega, pts @ R.T)
    T_points = 0.5 * np.sum(masses * np.einsum("ki,ki->k", vel, vel))
    v_c = v + np.cross(omega, R @ com)
    T_classic = 0.5 * m * v_c @ v_c + 0.5 * omega @ (R @ inertia @ R.T) @ omega
    assert 0.5 * qd @ M @ qd == pytest.approx(T_points, rel=1e-12)
    assert T_points == pytest.approx(T_classic, rel=1e-12)
    # generalised gravity: Q . qd = power of gravity m g . v_c
    g = np.array([0.0, 0.0, -9.81])
    b = RigidBody("cloud", m, com, inertia)
    assert b.gravity_force(g) @ qd == pytest.approx(m * g @ v_c, rel=1e-12)
    assert q.shape == (12,)


def test_mass_matrix_diagonal_at_centre_of_mass_on_principal_axes():
    inertia = np.diag([0.02, 0.05, 0.06])
    M = RigidBody("b", 3.0, [0, 0, 0], inertia).mass_matrix()
    J = [(0.05 + 0.06 - 0.02) / 2, (0.02 + 0.06 - 0.05) / 2, (0.02 + 0.05 - 0.06) / 2]
    np.testing.assert_allclose(M, np.diag(np.repeat([3.0, *J], 3)))
    # an offset origin couples the blocks (no longer diagonal) but keeps M constant and SPD
    M_off = generic_mass_matrix(3.0, [0.1, 0.0, 0.0], inertia)
    assert np.count_nonzero(M_off - np.diag(np.diag(M_off))) > 0
    assert np.linalg.eigvalsh(M_off).min() > 0


def test_reduced_form_rebuilds_w_and_its_jacobian():
    rng = np.random.default_rng(2)
    q = body_coordinates(*_random_pose(rng))
    q9 = full_to_reduced(q)
    np.testing.assert_allclose(reduced_to_full(q9), q, atol=1e-14)   # unit vectors: round-off
    # w = S(u) V q9 with the constant selector V
    np.testing.assert_allclose(skew(q9[3:6]) @ (V_SELECT @ q9), q[9:], atol=1e-14)
    jac = expansion_jacobian(q9)
    h = 1e-6
    fd = np.array([(reduced_to_full(q9 + h * e) - reduced_to_full(q9 - h * e)) / (2 * h)
                   for e in np.eye(9)]).T
    np.testing.assert_allclose(jac, fd, atol=1e-9)
    # batched input
    assert reduced_to_full(np.stack([q9, q9])).shape == (2, 12)


def test_bad_body_vectors_are_reported():
    q = np.r_[0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1.0]
    check_body_vectors(q)
    with pytest.raises(ValueError, match="u is not unit length"):
        check_body_vectors(np.r_[0, 0, 0, 1.1, 0, 0, 0, 1, 0, 0, 0, 1.0])
    with pytest.raises(ValueError, match="u and v are collinear"):
        check_body_vectors(np.r_[0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1.0])
    with pytest.raises(ValueError, match="not orthogonal"):
        check_body_vectors(np.r_[0, 0, 0, 1, 0, 0, 0.01, np.sqrt(1 - 1e-4), 0, 0, 0, 1])
    with pytest.raises(ValueError, match="left-handed"):
        check_body_vectors(np.r_[0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, -1.0])
    with pytest.raises(ValueError, match=r"shape \(\.\.\., 12\)"):
        check_body_vectors(np.zeros(9))
    with pytest.raises(ValueError, match="rotation"):
        body_coordinates(np.zeros(3), np.diag([1.0, 1.0, 2.0]))
    with pytest.raises(ValueError, match="w != u x v"):
        full_to_reduced(np.r_[0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, -1.0])


def test_bad_rigid_body_input():
    with pytest.raises(ValueError, match="ground"):
        RigidBody("ground")
    with pytest.raises(TypeError, match="name"):
        RigidBody(3)
    with pytest.raises(ValueError, match="mass"):
        RigidBody("b", mass=-1.0)
    with pytest.raises(ValueError, match="physically consistent"):
        RigidBody("b", 1.0, inertia=np.diag([1.0, 0.1, 0.1]))          # triangle inequality
    with pytest.raises(ValueError, match="symmetric"):
        RigidBody("b", 1.0, inertia=[[1, 0.1, 0], [0, 1, 0], [0, 0, 1]])
    with pytest.raises(ValueError, match="com"):
        RigidBody("b", 1.0, com=[0.0, np.nan, 0.0])
    with pytest.raises(ValueError, match="local"):
        point_matrix([1.0, 2.0])
    with pytest.raises(ValueError, match="q_reduced"):
        reduced_to_full(np.zeros(12))
