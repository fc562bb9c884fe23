"""Tests of the ready models: planar 2R, redundant 5-DOF (P-RRR-P), UR5 from published DH."""

import numpy as np
import pytest

from robidlib.dynamics import gravity_torques, inverse_dynamics, mass_matrix
from robidlib.models.planar_2r import planar_2r
from robidlib.models.redundant_5dof import redundant_5dof
from robidlib.models.ur5 import UR5_STANDARD_DH, ur5
from robidlib.params import is_physically_consistent, split_link_params
from robidlib.robot import SerialRobot, forward_kinematics
from robidlib.spatial import homogeneous, rot_x, rot_z

MAKERS = {"planar_2r": planar_2r, "redundant_5dof": redundant_5dof, "ur5": ur5}


@pytest.mark.parametrize("name", list(MAKERS))
def test_models_are_consistent_and_documented(name):
    r = MAKERS[name]()
    assert isinstance(r, SerialRobot) and r.name == name
    assert is_physically_consistent(r.params, tol=1e-9)
    assert len(set(r.joint_names)) == r.n and len(r.param_names) == 10 * r.n
    assert np.all(r.q_limits[:, 0] < r.q_limits[:, 1])
    assert np.all(np.isfinite(r.qd_limits)) and np.all(np.isfinite(r.qdd_limits)) and np.all(np.isfinite(r.tau_limits))
    assert np.all(r.friction == 0)
    # overrides
    fr = np.full((r.n, 2), 0.1)
    r2 = MAKERS[name](gravity=[0, 0, 0], friction=fr, name="x")
    assert np.all(r2.gravity == 0) and np.array_equal(r2.friction, fr) and r2.name == "x"
    assert np.array_equal(r2.params, r.params)
    # at rest, in the middle of the range, the static torques stay within the limits
    q = r.q_limits.mean(axis=1)
    assert np.all(np.abs(gravity_torques(r, q)) < r.tau_limits)


def test_planar_2r_moves_in_the_vertical_plane():
    r = planar_2r()
    rng = np.random.default_rng(0)
    T = forward_kinematics(r, rng.uniform(-3, 3, (20, 2)))
    assert np.allclose(T[..., 2, 3], 0.0) and np.allclose(T[..., :3, 2], [0, 0, 1])
    assert np.allclose(r.gravity, [0, -9.81, 0])
    P = r.link_params
    l1 = r.joint_origins[1, 0, 3]
    # holding the arm horizontal: g (m1 c1 + m2 (l1 + c2)); pointing up: no torque
    assert np.isclose(gravity_torques(r, [0.0, 0.0])[0], 9.81 * (P[0, 1] + P[1, 0] * l1 + P[1, 1]))
    assert np.allclose(gravity_torques(r, [np.pi / 2, 0.0]), 0.0, atol=1e-12)


def test_redundant_5dof_geometry():
    r = redundant_5dof()
    assert r.joint_types == ("prismatic", "revolute", "revolute", "revolute", "prismatic")
    T0 = forward_kinematics(r, np.zeros(5))
    assert np.allclose(T0[-1, :3, 3], [0.57, 0.0, 0.70])  # L-shaped ready pose
    T = forward_kinematics(r, [0.2, 0.3, -0.5, 0.8, 0.1])
    # joint 1 lifts along z0, joint 5 slides along the forearm (y of link 4)
    assert np.allclose(T[0, :3, 3], [0, 0, 0.5])
    assert np.allclose(T[4, :3, 2], T[3, :3, 1])
    assert np.allclose(T[4, :3, 3] - T[3, :3, 3], 0.35 * T[3, :3, 1])
    # the two pitch axes are horizontal and parallel, the yaw axis vertical
    assert np.allclose(T[1, :3, 2], [0, 0, 1]) and np.isclose(T[2, 2, 2], 0) and np.allclose(T[2, :3, 2], T[3, :3, 2])
    # prismatic joints carry forces: the lift holds the whole weight
    assert np.isclose(gravity_torques(r, np.zeros(5))[0], 9.81 * r.link_params[:, 0].sum())
    assert np.isclose(mass_matrix(r, np.zeros(5))[0, 0], r.link_params[:, 0].sum())


def standard_dh_frames(q):
    """Frames of the UR5 built independently with the standard DH convention."""
    T, out = np.eye(4), []
    for (theta, a, d, alpha), qi in zip(UR5_STANDARD_DH, q):
        T = T @ homogeneous(rot_z(theta + qi), [0, 0, d]) @ homogeneous(rot_x(alpha), [a, 0, 0])
        out.append(T)
    return np.array(out)


def test_ur5_matches_the_published_standard_dh():
    r = ur5()
    rng = np.random.default_rng(1)
    com_std = np.array([[0, -0.02561, 0.00193], [0.2125, 0, 0.11336], [0.15, 0, 0.0265],
                        [0, -0.0018, 0.01634], [0, 0.0018, 0.01634], [0, 0, -0.001159]])
    mass, com, I_C = split_link_params(r.params)
    assert np.allclose(mass, [3.7, 8.393, 2.33, 1.219, 1.219, 0.1879])
    for q in rng.uniform(-np.pi, np.pi, (5, 6)):
        S = standard_dh_frames(q)
        M = forward_kinematics(r, q)
        # the flange (last standard frame) is the last modified frame
        assert np.allclose(M[-1], S[-1])
        # the centres of mass land at the same world points
        world_std = np.einsum("kij,kj->ki", S[:, :3, :3], com_std) + S[:, :3, 3]
        world_mod = np.einsum("kij,kj->ki", M[:, :3, :3], com) + M[:, :3, 3]
        assert np.allclose(world_mod, world_std)
        # the CoM inertias, seen from the standard frames, are the documented cylinders
        cylinders = [(0.06, 0.15, 1), (0.06, 0.56, 0), (0.06, 0.50, 0), (0.06, 0.12, 1), (0.06, 0.12, 1), (0.0375, 0.0345, 2)]
        for k, (rad, length, axis) in enumerate(cylinders):
            Iw = M[k, :3, :3] @ I_C[k] @ M[k, :3, :3].T
            I_std = S[k, :3, :3].T @ Iw @ S[k, :3, :3]
            expected = np.full(3, mass[k] * (3 * rad**2 + length**2) / 12)
            expected[axis] = mass[k] * rad**2 / 2
            assert np.allclose(I_std, np.diag(expected))


def test_ur5_static_torques_are_plausible():
    r = ur5()
    # arm stretched horizontally (q = 0): shoulder lift holds the arm, about 30-45 N m
    tau = gravity_torques(r, np.zeros(6))
    assert 25 < abs(tau[1]) < 60 and abs(tau[0]) < 1e-9
    assert np.all(np.abs(inverse_dynamics(r, np.zeros(6), np.zeros(6), np.full(6, 1.0))) < r.tau_limits)


@pytest.mark.parametrize("name", list(MAKERS))
@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(friction=np.ones(3)), ValueError, "friction must have shape"),
        (dict(friction=-np.ones((1, 2))), ValueError, "friction"),
        (dict(gravity=[0, np.nan, 0]), ValueError, "gravity must be finite"),
        (dict(gravity=[0, 9.81]), ValueError, "gravity must have shape"),
        (dict(name=1), TypeError, "name must be a string"),
        (dict(mass=1.0), TypeError, "unexpected keyword"),
    ],
)
def test_bad_input(name, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        MAKERS[name](**kwargs)


@pytest.mark.parametrize("module", ["planar_2r", "redundant_5dof", "ur5"])
def test_docstring_examples_run(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(f"robidlib.models.{module}"), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
