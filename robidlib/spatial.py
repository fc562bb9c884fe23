"""Small vectorised helpers for rotations and rigid-body frame transforms.

Every function accepts a leading batch of any shape (``(..., 3)`` vectors, ``(...)``
angles) and returns the matching batch, so a whole trajectory is handled in one call.

Conventions
-----------
* A rotation matrix ``R`` of frame B in frame A maps coordinates in B to coordinates in
  A: ``x_A = R @ x_B``.
* A homogeneous transform ``T = [[R, p], [0, 1]]`` is the pose of frame B in frame A
  (``p`` is the origin of B in A coordinates).
* Roll-pitch-yaw (URDF ``rpy``) angles are fixed-axis X, then Y, then Z rotations:
  ``R = Rz(yaw) @ Ry(pitch) @ Rx(roll)``.
* Modified Denavit-Hartenberg (Craig / Khalil):
  ``T = RotX(alpha) TransX(a) RotZ(theta) TransZ(d)``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._validate import as_array, check_nonnegative, check_tolerance

__all__ = [
    "skew",
    "rot_x",
    "rot_y",
    "rot_z",
    "axis_angle",
    "rpy_to_matrix",
    "matrix_to_rpy",
    "homogeneous",
    "inverse_transform",
    "dh_transform",
    "is_rotation",
]


def _vec3(name: str, v: ArrayLike) -> np.ndarray:
    v = as_array(name, v)
    if v.ndim == 0 or v.shape[-1] != 3:
        raise ValueError(f"{name} must have shape (..., 3), got {v.shape}")
    return v


def skew(v: ArrayLike) -> np.ndarray:
    """Skew-symmetric (cross-product) matrix of a 3-vector: ``skew(a) @ b == cross(a, b)``.

    Parameters
    ----------
    v : array_like, shape (..., 3)
        Vector(s).

    Returns
    -------
    numpy.ndarray, shape (..., 3, 3)

    Raises
    ------
    ValueError
        If the last axis is not of length 3 or an entry is NaN/inf.

    Examples
    --------
    >>> import numpy as np
    >>> a, b = np.array([1.0, 2.0, 3.0]), np.array([-1.0, 0.5, 2.0])
    >>> bool(np.allclose(skew(a) @ b, np.cross(a, b)))
    True
    """
    v = _vec3("v", v)
    S = np.zeros(v.shape + (3,))
    S[..., 0, 1], S[..., 0, 2] = -v[..., 2], v[..., 1]
    S[..., 1, 0], S[..., 1, 2] = v[..., 2], -v[..., 0]
    S[..., 2, 0], S[..., 2, 1] = -v[..., 1], v[..., 0]
    return S


def _elementary(name: str, angle: ArrayLike, i: int, j: int) -> np.ndarray:
    t = as_array(name, angle)
    c, s = np.cos(t), np.sin(t)
    R = np.zeros(t.shape + (3, 3))
    k = 3 - i - j
    R[..., k, k] = 1.0
    R[..., i, i], R[..., j, j] = c, c
    R[..., i, j], R[..., j, i] = -s, s
    return R


def rot_x(angle: ArrayLike) -> np.ndarray:
    """Rotation about the x axis by ``angle`` (rad).

    Parameters
    ----------
    angle : array_like, shape (...)
        Angle(s) in rad, any batch shape.

    Returns
    -------
    numpy.ndarray, shape angle.shape + (3, 3)

    Raises
    ------
    ValueError
        If an angle is NaN/inf.
    TypeError
        If ``angle`` is not numeric.

    Examples
    --------
    >>> import numpy as np
    >>> bool(np.allclose(rot_x(np.pi / 2) @ [0, 1, 0], [0, 0, 1]))
    True
    """
    return _elementary("angle", angle, 1, 2)


def rot_y(angle: ArrayLike) -> np.ndarray:
    """Rotation about the y axis by ``angle`` (rad).

    Parameters
    ----------
    angle : array_like, shape (...)
        Angle(s) in rad, any batch shape.

    Returns
    -------
    numpy.ndarray, shape angle.shape + (3, 3)

    Raises
    ------
    ValueError
        If an angle is NaN/inf.
    TypeError
        If ``angle`` is not numeric.

    Examples
    --------
    >>> import numpy as np
    >>> bool(np.allclose(rot_y(np.pi / 2) @ [0, 0, 1], [1, 0, 0]))
    True
    """
    return _elementary("angle", angle, 2, 0)


def rot_z(angle: ArrayLike) -> np.ndarray:
    """Rotation about the z axis by ``angle`` (rad).

    Parameters
    ----------
    angle : array_like, shape (...)
        Angle(s) in rad, any batch shape.

    Returns
    -------
    numpy.ndarray, shape angle.shape + (3, 3)

    Raises
    ------
    ValueError
        If an angle is NaN/inf.
    TypeError
        If ``angle`` is not numeric.

    Examples
    --------
    >>> import numpy as np
    >>> bool(np.allclose(rot_z(np.pi / 2) @ [1, 0, 0], [0, 1, 0]))
    True
    """
    return _elementary("angle", angle, 0, 1)


def axis_angle(axis: ArrayLike, angle: ArrayLike) -> np.ndarray:
    """Rotation by ``angle`` about a unit ``axis`` (Rodrigues' formula).

    ``R = I + sin(angle) K + (1 - cos(angle)) K @ K`` with ``K = skew(axis)``.

    Parameters
    ----------
    axis : array_like, shape (3,)
        Unit rotation axis (norm within 1e-9 of one).
    angle : array_like, shape (...)
        Angle(s) in rad.

    Returns
    -------
    numpy.ndarray, shape angle.shape + (3, 3)

    Raises
    ------
    ValueError
        If ``axis`` is not a unit 3-vector or an input is NaN/inf.

    Examples
    --------
    >>> import numpy as np
    >>> bool(np.allclose(axis_angle([0, 0, 1], 0.3), rot_z(0.3)))
    True
    """
    a = as_array("axis", axis, shape=(3,))
    if abs(np.linalg.norm(a) - 1.0) > 1e-9:
        raise ValueError(f"axis must be a unit vector, got norm {np.linalg.norm(a):.6g}")
    t = as_array("angle", angle)
    K = skew(a)
    s, c = np.sin(t)[..., None, None], np.cos(t)[..., None, None]
    return np.eye(3) + s * K + (1.0 - c) * (K @ K)


def rpy_to_matrix(rpy: ArrayLike) -> np.ndarray:
    """Rotation matrix of URDF roll-pitch-yaw angles, ``Rz(yaw) @ Ry(pitch) @ Rx(roll)``.

    Parameters
    ----------
    rpy : array_like, shape (..., 3)
        ``(roll, pitch, yaw)`` in rad.

    Returns
    -------
    numpy.ndarray, shape (..., 3, 3)

    Raises
    ------
    ValueError
        If the last axis is not of length 3 or an entry is NaN/inf.

    Examples
    --------
    >>> import numpy as np
    >>> R = rpy_to_matrix([0.1, -0.2, 0.3])
    >>> bool(np.allclose(R, rot_z(0.3) @ rot_y(-0.2) @ rot_x(0.1)))
    True
    """
    rpy = _vec3("rpy", rpy)
    return rot_z(rpy[..., 2]) @ rot_y(rpy[..., 1]) @ rot_x(rpy[..., 0])


def matrix_to_rpy(R: ArrayLike) -> np.ndarray:
    """Roll-pitch-yaw angles of a rotation matrix (inverse of :func:`rpy_to_matrix`).

    Pitch is returned in ``[-pi/2, pi/2]``; at the singularity ``|pitch| = pi/2`` the roll is
    set to zero and the yaw carries the whole rotation about the vertical axis. The angles
    reproduce ``R`` to round-off everywhere, also next to the singularity.

    Parameters
    ----------
    R : array_like, shape (..., 3, 3)
        Rotation matrices.

    Returns
    -------
    numpy.ndarray, shape (..., 3)

    Raises
    ------
    ValueError
        If ``R`` is not a batch of rotation matrices (orthonormal to 1e-9, det +1).

    Examples
    --------
    >>> import numpy as np
    >>> bool(np.allclose(matrix_to_rpy(rpy_to_matrix([0.1, -0.2, 0.3])), [0.1, -0.2, 0.3]))
    True
    """
    R = as_array("R", R)
    if R.ndim < 2 or R.shape[-2:] != (3, 3):
        raise ValueError(f"R must have shape (..., 3, 3), got {R.shape}")
    if not np.all(is_rotation(R)):
        raise ValueError("R must contain rotation matrices (orthonormal, determinant +1)")
    # Every angle from atan2 (never arcsin or arccos, which lose half the digits near +-1):
    # pitch from the first column, roll from the last row, and the yaw from R Rx(roll)^T,
    # whose second column is [-sin(yaw), cos(yaw), 0]; so the yaw fits whatever roll was
    # chosen, and rpy_to_matrix(matrix_to_rpy(R)) equals R to round-off even next to the
    # singularity (where roll and yaw are individually ill-determined).
    cos_pitch = np.hypot(R[..., 0, 0], R[..., 1, 0])
    pitch = np.arctan2(-R[..., 2, 0], cos_pitch)
    singular = cos_pitch < 1e-15
    roll = np.where(singular, 0.0, np.arctan2(R[..., 2, 1], R[..., 2, 2]))
    sr, cr = np.sin(roll), np.cos(roll)
    yaw = np.arctan2(sr * R[..., 0, 2] - cr * R[..., 0, 1], cr * R[..., 1, 1] - sr * R[..., 1, 2])
    return np.stack([roll, pitch, yaw], axis=-1)


def is_rotation(R: ArrayLike, tol: float = 1e-9) -> np.ndarray:
    """Whether each ``(3, 3)`` matrix is a proper rotation: ``R.T @ R = I`` and ``det R = +1``.

    Parameters
    ----------
    R : array_like, shape (..., 3, 3)
    tol : float, default 1e-9
        Absolute tolerance on the entries of ``R.T @ R - I`` and on ``det R - 1``; at least
        ``2.2e-14`` (100 ulps of 1: with a smaller one a rotation computed in floating point
        would be "not a rotation").

    Returns
    -------
    numpy.ndarray of bool, shape (...)
        False for a matrix with NaN or infinite entries (it is not a rotation).

    Raises
    ------
    ValueError
        If the trailing shape is not ``(3, 3)`` or ``tol`` is not finite or below round-off.

    Examples
    --------
    >>> bool(is_rotation(rot_x(0.4))), bool(is_rotation(2 * rot_x(0.4)))
    (True, False)
    """
    R = as_array("R", R, finite=False)
    if R.ndim < 2 or R.shape[-2:] != (3, 3):
        raise ValueError(f"R must have shape (..., 3, 3), got {R.shape}")
    tol = check_tolerance("tol", tol)
    with np.errstate(invalid="ignore"):
        err = np.abs(np.swapaxes(R, -1, -2) @ R - np.eye(3)).max(axis=(-2, -1))
        det = np.linalg.det(R)
        return (err <= tol) & (np.abs(det - 1.0) <= tol)


def homogeneous(R: ArrayLike, p: ArrayLike) -> np.ndarray:
    """Homogeneous transform ``[[R, p], [0, 0, 0, 1]]``.

    Parameters
    ----------
    R : array_like, shape (..., 3, 3)
        Rotation part.
    p : array_like, shape (..., 3)
        Translation part (same batch shape as ``R``, or broadcastable).

    Returns
    -------
    numpy.ndarray, shape (..., 4, 4)

    Raises
    ------
    ValueError
        If the shapes are wrong or an entry is NaN/inf.

    Examples
    --------
    >>> T = homogeneous(rot_z(0.5), [1.0, 2.0, 3.0])
    >>> T.shape, float(T[3, 3])
    ((4, 4), 1.0)
    """
    R = as_array("R", R)
    if R.ndim < 2 or R.shape[-2:] != (3, 3):
        raise ValueError(f"R must have shape (..., 3, 3), got {R.shape}")
    p = _vec3("p", p)
    batch = np.broadcast_shapes(R.shape[:-2], p.shape[:-1])
    T = np.zeros(batch + (4, 4))
    T[..., :3, :3] = R
    T[..., :3, 3] = p
    T[..., 3, 3] = 1.0
    return T


def inverse_transform(T: ArrayLike) -> np.ndarray:
    """Inverse of homogeneous transforms, ``[[R.T, -R.T p], [0, 1]]`` (no matrix inverse).

    Parameters
    ----------
    T : array_like, shape (..., 4, 4)

    Returns
    -------
    numpy.ndarray, shape (..., 4, 4)

    Raises
    ------
    ValueError
        If the trailing shape is not ``(4, 4)`` or an entry is NaN/inf.

    Examples
    --------
    >>> import numpy as np
    >>> T = homogeneous(rot_x(0.3), [0.1, 0.2, 0.3])
    >>> bool(np.allclose(inverse_transform(T) @ T, np.eye(4)))
    True
    """
    T = as_array("T", T)
    if T.ndim < 2 or T.shape[-2:] != (4, 4):
        raise ValueError(f"T must have shape (..., 4, 4), got {T.shape}")
    Rt = np.swapaxes(T[..., :3, :3], -1, -2)
    return homogeneous(Rt, -(Rt @ T[..., :3, 3:4])[..., 0])


def dh_transform(a: ArrayLike, alpha: ArrayLike, d: ArrayLike, theta: ArrayLike) -> np.ndarray:
    """Modified (Craig / Khalil) Denavit-Hartenberg transform of frame i in frame i-1.

    ``T = RotX(alpha_{i-1}) TransX(a_{i-1}) RotZ(theta_i) TransZ(d_i)``.

    Parameters
    ----------
    a, alpha : array_like
        Link length ``a_{i-1}`` (m) and twist ``alpha_{i-1}`` (rad) along/about x_{i-1}.
    d, theta : array_like
        Offset ``d_i`` (m) and angle ``theta_i`` (rad) along/about z_i.
        The four arguments broadcast together.

    Returns
    -------
    numpy.ndarray, shape broadcast + (4, 4)

    Raises
    ------
    ValueError
        If an entry is NaN/inf or the shapes do not broadcast.

    Examples
    --------
    >>> import numpy as np
    >>> T = dh_transform(0.5, 0.0, 0.0, np.pi / 2)
    >>> bool(np.allclose(T[:3, 3], [0.5, 0, 0])), bool(np.allclose(T[:3, 0], [0, 1, 0]))
    (True, True)
    """
    a, alpha, d, theta = (as_array(k, v) for k, v in zip(("a", "alpha", "d", "theta"), (a, alpha, d, theta)))
    try:
        a, alpha, d, theta = np.broadcast_arrays(a, alpha, d, theta)
    except ValueError:
        raise ValueError(
            f"a, alpha, d, theta must broadcast together, got shapes {a.shape}, {alpha.shape}, "
            f"{d.shape}, {theta.shape}"
        ) from None
    R = rot_x(alpha) @ rot_z(theta)
    # origin: TransX(a) then (after the rotations) d along the new z axis
    p = np.stack([a, np.zeros_like(a), np.zeros_like(a)], axis=-1) + d[..., None] * R[..., :, 2]
    return homogeneous(R, p)
