"""The Universal Robots UR5 (CB3) from its published DH and dynamics parameters.

Source: Universal Robots, "DH parameters for calculations of kinematics and dynamics"
(https://www.universal-robots.com/articles/ur/application-installation/dh-parameters-for-calculations-of-kinematics-and-dynamics/),
UR5 (CB3) table. It gives *standard* (distal) DH parameters, link masses and centres of
mass in the standard DH frames::

    joint  theta  a (m)     d (m)      alpha   |  link  mass (kg)  centre of mass (m)
    1      q1     0         0.089159   pi/2    |  1     3.7        (0, -0.02561, 0.00193)
    2      q2     -0.425    0          0       |  2     8.393      (0.2125, 0, 0.11336)
    3      q3     -0.39225  0          0       |  3     2.33       (0.15, 0, 0.0265)
    4      q4     0         0.10915    pi/2    |  4     1.219      (0, -0.0018, 0.01634)
    5      q5     0         0.09465    -pi/2   |  5     1.219      (0, 0.0018, 0.01634)
    6      q6     0         0.0823     0       |  6     0.1879     (0, 0, -0.001159)

UR does not publish the inertia tensors of the UR5. As in the ROS ``ur_description`` package,
each link's inertia about its centre of mass is that of a uniform solid cylinder along the
link (radius r, length L; ``I_axis = m r^2 / 2``, ``I_perp = m (3 r^2 + L^2) / 12``):
shoulder r = 0.06, L = 0.15 (axis = joint 1); upper arm 0.06, 0.56 and forearm 0.06, 0.50
(along the arm); wrists 1 and 2 r = 0.06, L = 0.12 (axis = joints 4 and 5; ``ur_description``
writes r = 0.6 m, a known typo); wrist 3 r = 0.0375, L = 0.0345 (axis = joint 6).

Conversion to robidlib's modified DH: the modified frame i sits on joint i's axis, and the
standard frame i is obtained from it by ``TransX(a_i) RotX(alpha_i)``, so the modified
parameters are ``(a_{i-1}, alpha_{i-1}, d_i, theta_i)`` with the same numbers shifted by one
row, and each centre of mass and inertia is moved with that constant transform.

Limits (UR5 data sheet): ``|q| <= 2 pi``, ``|qd| <= pi`` rad/s, torques 150 N m (joints 1-3)
and 28 N m (joints 4-6); UR gives no joint acceleration limit, we use 15 rad/s^2.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..params import com_to_origin
from ..robot import SerialRobot
from ..spatial import rot_x

__all__ = ["ur5", "UR5_STANDARD_DH"]

#: Published standard DH table of the UR5 (CB3): columns theta offset, a, d, alpha.
UR5_STANDARD_DH = np.array(
    [
        [0.0, 0.0, 0.089159, np.pi / 2],
        [0.0, -0.425, 0.0, 0.0],
        [0.0, -0.39225, 0.0, 0.0],
        [0.0, 0.0, 0.10915, np.pi / 2],
        [0.0, 0.0, 0.09465, -np.pi / 2],
        [0.0, 0.0, 0.0823, 0.0],
    ]
)

_MASS = np.array([3.7, 8.393, 2.33, 1.219, 1.219, 0.1879])
_COM_STD = np.array(
    [
        [0.0, -0.02561, 0.00193],
        [0.2125, 0.0, 0.11336],
        [0.15, 0.0, 0.0265],
        [0.0, -0.0018, 0.01634],
        [0.0, 0.0018, 0.01634],
        [0.0, 0.0, -0.001159],
    ]
)
# (radius, length, cylinder axis in the standard DH frame of the link)
_CYLINDERS = [(0.06, 0.15, 1), (0.06, 0.56, 0), (0.06, 0.50, 0), (0.06, 0.12, 1), (0.06, 0.12, 1), (0.0375, 0.0345, 2)]


def _cylinder_inertia(m: float, r: float, L: float, axis: int) -> np.ndarray:
    I = np.full(3, m * (3 * r**2 + L**2) / 12.0)
    I[axis] = m * r**2 / 2.0
    return np.diag(I)


def ur5(
    *,
    gravity: ArrayLike = (0.0, 0.0, -9.81),
    friction: ArrayLike | None = None,
    name: str = "ur5",
) -> SerialRobot:
    """The UR5 (CB3) arm built from its published DH and dynamics parameters.

    Parameters
    ----------
    gravity : array_like, shape (3,), default (0, 0, -9.81)
        Gravity in the base frame (``z0`` along joint 1, up for a floor-mounted robot).
    friction : array_like, shape (6, 2), optional
        ``[fv, fc]`` per joint; default no friction. Harmonic-drive joints of this size have
        roughly ``fv ~ 1-5 N m s/rad`` and ``fc ~ 2-10 N m``.
    name : str, default "ur5"

    Returns
    -------
    SerialRobot
        Modified-DH robot; its link frames are the modified DH frames (not the URDF ones).

    Raises
    ------
    ValueError
        For a gravity or friction of the wrong shape, NaN/inf or negative friction.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.robot import forward_kinematics
    >>> r = ur5()
    >>> r.n, round(float(r.link_params[:, 0].sum()), 4)
    (6, 17.0489)
    >>> # at q = 0 the arm is stretched along -x: the flange is at x = -(0.425 + 0.39225)
    >>> np.round(forward_kinematics(r, np.zeros(6))[-1, :3, 3], 5).tolist()
    [-0.81725, -0.19145, -0.00549]
    """
    theta, a_std, d, alpha_std = UR5_STANDARD_DH.T
    # modified DH: a_{i-1}, alpha_{i-1} are the previous row's a, alpha
    a_mod = np.r_[0.0, a_std[:-1]]
    alpha_mod = np.r_[0.0, alpha_std[:-1]]
    # inertial data: standard frame i = modified frame i * TransX(a_i) RotX(alpha_i)
    R = rot_x(alpha_std)
    com = a_std[:, None] * np.array([1.0, 0.0, 0.0]) + np.einsum("kij,kj->ki", R, _COM_STD)
    I_com = np.array(
        [R[k] @ _cylinder_inertia(_MASS[k], *_CYLINDERS[k]) @ R[k].T for k in range(6)]
    )
    # a_6 = alpha_6 = 0, so the flange frame is the last modified frame
    return SerialRobot.from_dh(
        "RRRRRR",
        a=a_mod,
        alpha=alpha_mod,
        d=d,
        theta=theta,
        mass=_MASS,
        com=com,
        inertia=com_to_origin(_MASS, com, I_com),
        inertia_about="origin",
        friction=friction,
        gravity=gravity,
        q_limits=np.tile([-2 * np.pi, 2 * np.pi], (6, 1)),
        qd_limits=np.full(6, np.pi),
        qdd_limits=np.full(6, 15.0),
        tau_limits=[150.0, 150.0, 150.0, 28.0, 28.0, 28.0],
        joint_names=("shoulder_pan", "shoulder_lift", "elbow", "wrist_1", "wrist_2", "wrist_3"),
        link_names=("shoulder", "upper_arm", "forearm", "wrist_1", "wrist_2", "wrist_3"),
        name=name,
    )
