"""Tests of robidlib.spatial: rotations, transforms, modified DH."""

import numpy as np
import pytest

from robidlib.spatial import (
    axis_angle,
    dh_transform,
    homogeneous,
    inverse_transform,
    is_rotation,
    matrix_to_rpy,
    rot_x,
    rot_y,
    rot_z,
    rpy_to_matrix,
    skew,
)


def test_skew_is_cross_product():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, 50, 3))
    assert np.allclose(np.einsum("nij,nj->ni", skew(a), b), np.cross(a, b))
    assert np.allclose(skew(a), -np.swapaxes(skew(a), 1, 2))


@pytest.mark.parametrize("rot, axis", [(rot_x, 0), (rot_y, 1), (rot_z, 2)])
def test_elementary_rotations(rot, axis):
    rng = np.random.default_rng(1)
    t = rng.uniform(-4, 4, size=(4, 5))
    R = rot(t)
    assert R.shape == (4, 5, 3, 3)
    assert np.all(is_rotation(R))
    e = np.eye(3)[axis]
    assert np.allclose(R @ e, e)  # the axis is fixed
    # right-handed: rotating the next axis by +90 deg gives the one after
    R90 = rot(np.pi / 2)
    assert np.allclose(R90 @ np.eye(3)[(axis + 1) % 3], np.eye(3)[(axis + 2) % 3])
    assert np.allclose(rot(t) @ rot(-t), np.eye(3))


def test_axis_angle_matches_elementary_and_scipy():
    from scipy.spatial.transform import Rotation

    rng = np.random.default_rng(2)
    t = rng.uniform(-3, 3, 20)
    assert np.allclose(axis_angle([1, 0, 0], t), rot_x(t))
    assert np.allclose(axis_angle([0, 0, 1], t), rot_z(t))
    a = rng.normal(size=3)
    a /= np.linalg.norm(a)
    assert np.allclose(axis_angle(a, t), Rotation.from_rotvec(t[:, None] * a).as_matrix())


def test_rpy_convention_and_round_trip():
    from scipy.spatial.transform import Rotation

    rng = np.random.default_rng(3)
    rpy = np.column_stack([rng.uniform(-np.pi, np.pi, 100), rng.uniform(-1.5, 1.5, 100), rng.uniform(-np.pi, np.pi, 100)])
    R = rpy_to_matrix(rpy)
    # URDF rpy = fixed-axis x, y, z = scipy's extrinsic 'xyz'
    assert np.allclose(R, Rotation.from_euler("xyz", rpy).as_matrix())
    assert np.allclose(matrix_to_rpy(R), rpy)


def test_matrix_to_rpy_gimbal_lock():
    for pitch in (np.pi / 2, -np.pi / 2):
        R = rpy_to_matrix([0.3, pitch, -0.4])
        rpy = matrix_to_rpy(R)
        assert np.allclose(rpy_to_matrix(rpy), R)
        assert rpy[0] == 0.0


def test_homogeneous_and_inverse():
    rng = np.random.default_rng(4)
    R = rpy_to_matrix(rng.uniform(-1, 1, (10, 3)))
    p = rng.normal(size=(10, 3))
    T = homogeneous(R, p)
    assert T.shape == (10, 4, 4)
    assert np.allclose(inverse_transform(T) @ T, np.eye(4))
    assert np.allclose(T @ inverse_transform(T), np.eye(4))


def test_dh_transform_is_product_of_elementary_motions():
    rng = np.random.default_rng(5)
    a, alpha, d, theta = rng.normal(size=(4, 7))

    def tx(x):
        return homogeneous(np.eye(3), [x, 0, 0])

    def tz(x):
        return homogeneous(np.eye(3), [0, 0, x])

    T = dh_transform(a, alpha, d, theta)
    for k in range(7):
        ref = homogeneous(rot_x(alpha[k]), np.zeros(3)) @ tx(a[k]) @ homogeneous(rot_z(theta[k]), np.zeros(3)) @ tz(d[k])
        assert np.allclose(T[k], ref)
    assert dh_transform(0.1, 0.2, 0.3, np.zeros((2, 3))).shape == (2, 3, 4, 4)  # broadcasting


def test_is_rotation_rejects_reflections_and_scaling():
    R = rot_z(0.3)
    assert is_rotation(R)
    assert not is_rotation(np.diag([1.0, 1.0, -1.0]))
    assert not is_rotation(1.001 * R)
    assert not is_rotation(np.full((3, 3), np.nan))


# ---------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: skew([1.0, 2.0]), "v must have shape"),
        (lambda: skew([1.0, np.nan, 2.0]), "v must be finite"),
        (lambda: rot_x([0.1, np.inf]), "angle must be finite"),
        (lambda: rot_z("a"), "angle must be numeric"),
        (lambda: axis_angle([0, 0, 2], 0.1), "axis must be a unit vector"),
        (lambda: axis_angle([0, 0], 0.1), "axis must have shape"),
        (lambda: rpy_to_matrix([0.1, 0.2]), "rpy must have shape"),
        (lambda: matrix_to_rpy(np.eye(2)), r"R must have shape \(\.\.\., 3, 3\)"),
        (lambda: matrix_to_rpy(2 * np.eye(3)), "R must contain rotation matrices"),
        (lambda: homogeneous(np.eye(3), [1.0, 2.0]), "p must have shape"),
        (lambda: homogeneous(np.eye(2), [1.0, 2.0, 3.0]), "R must have shape"),
        (lambda: inverse_transform(np.eye(3)), "T must have shape"),
        (lambda: dh_transform([1, 2], [1, 2, 3], 0, 0), "must broadcast together"),
        (lambda: dh_transform(np.nan, 0, 0, 0), "a must be finite"),
        (lambda: is_rotation(np.eye(4)), "R must have shape"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_docstring_examples_run():
    import doctest

    import robidlib.spatial as module

    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
