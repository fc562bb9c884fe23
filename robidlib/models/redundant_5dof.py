"""A 5-DOF redundant manipulator with prismatic first and fifth joints (P-R-R-R-P).

The source paper's robot combines a vertical lift (prismatic joint 1), a yaw-pitch-pitch arm
(revolute joints 2-4) and a telescopic forearm (prismatic joint 5). For positioning the tool
point in space (3 coordinates) it has two degrees of redundancy. The paper gives no drawing
dimensions that we could reuse, so the geometry and the inertias below are plausible values
for a light laboratory arm, chosen and documented here.

Modified DH parameters (``theta_i`` and ``d_i`` are offsets added to the joint variables)::

    joint  type  a_{i-1} (m)  alpha_{i-1}  d_i (m)     theta_i
    1      P     0            0            0.30 + q1   0        vertical lift (z0 up)
    2      R     0            0            0.15        q2       yaw about the vertical
    3      R     0.12         +pi/2        0           q3       shoulder pitch (horizontal axis)
    4      R     0.45         0            0           q4       elbow pitch (parallel to 3)
    5      P     0            -pi/2        0.25 + q5   0        telescopic forearm (along y4)

At ``q = 0`` the upper arm is horizontal (along ``x3``) and the forearm points straight up
(``y4 = y3`` is vertical): an L-shaped "ready" pose.

Inertial data (link frames as above; inertia about the centre of mass, principal axes along
the link frame; boxes and cylinders of the stated size, ``I = m (b^2 + c^2) / 12`` ...)::

    link  body                         mass (kg)  CoM (m)               I_C diag (kg m^2)
    1     lift carriage, box .2x.2x.15   8.0      (0, 0, -0.05)         (0.0417, 0.0417, 0.0533)
    2     turret with pitch motor        4.0      (0.05, 0, 0.02)       (0.0120, 0.0150, 0.0100)
    3     upper arm tube, 0.45 m         3.5      (0.20, 0, 0.01)       (0.0028, 0.0620, 0.0610)
    4     forearm housing, 0.30 m        2.0      (0, 0.13, 0)          (0.0160, 0.0016, 0.0160)
    5     telescopic rod with tool       0.8      (0, 0, -0.08)         (0.0085, 0.0085, 0.0003)

Limits: ``q1 in [0, 0.5]`` m, ``q5 in [0, 0.2]`` m, revolute ``|q| <= pi`` (joint 3: ``[-pi/2,
pi/2]``); speeds ``(0.5 m/s, 2, 2, 2.5 rad/s, 0.3 m/s)``; accelerations ``(2 m/s^2, 8, 8, 10
rad/s^2, 2 m/s^2)``; forces/torques ``(400 N, 60, 60, 30 N m, 100 N)``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..robot import SerialRobot

__all__ = ["redundant_5dof"]


def redundant_5dof(
    *,
    gravity: ArrayLike = (0.0, 0.0, -9.81),
    friction: ArrayLike | None = None,
    name: str = "redundant_5dof",
) -> SerialRobot:
    """The P-R-R-R-P redundant manipulator (see the module docstring for its numbers).

    Parameters
    ----------
    gravity : array_like, shape (3,), default (0, 0, -9.81)
        Gravity in the base frame (the lift axis ``z0`` points up).
    friction : array_like, shape (5, 2), optional
        ``[fv, fc]`` per joint (N s/m and N for the prismatic joints, N m s/rad and N m for the
        revolute ones); default no friction. Typical values:
        ``[[40, 15], [0.8, 1.0], [0.8, 1.0], [0.5, 0.6], [20, 5]]``.
    name : str, default "redundant_5dof"

    Returns
    -------
    SerialRobot

    Raises
    ------
    ValueError
        For a gravity or friction of the wrong shape, NaN/inf or negative friction.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.dynamics import gravity_torques
    >>> r = redundant_5dof()
    >>> r.joint_types[0], r.joint_types[4], r.n
    ('prismatic', 'prismatic', 5)
    >>> # the lift carries the whole arm: its static force is the total weight
    >>> bool(np.isclose(gravity_torques(r, np.zeros(5))[0], 9.81 * r.link_params[:, 0].sum()))
    True
    """
    mass = [8.0, 4.0, 3.5, 2.0, 0.8]
    com = [
        [0.0, 0.0, -0.05],
        [0.05, 0.0, 0.02],
        [0.20, 0.0, 0.01],
        [0.0, 0.13, 0.0],
        [0.0, 0.0, -0.08],
    ]
    inertia_diag = [
        [0.0417, 0.0417, 0.0533],
        [0.0120, 0.0150, 0.0100],
        [0.0028, 0.0620, 0.0610],
        [0.0160, 0.0016, 0.0160],
        [0.0085, 0.0085, 0.0003],
    ]
    inertia = np.hstack([np.array(inertia_diag), np.zeros((5, 3))])
    return SerialRobot.from_dh(
        "PRRRP",
        a=[0.0, 0.0, 0.12, 0.45, 0.0],
        alpha=[0.0, 0.0, np.pi / 2, 0.0, -np.pi / 2],
        d=[0.30, 0.15, 0.0, 0.0, 0.25],
        theta=[0.0, 0.0, 0.0, 0.0, 0.0],
        mass=mass,
        com=com,
        inertia=inertia,
        inertia_about="com",
        friction=friction,
        gravity=gravity,
        q_limits=[[0.0, 0.5], [-np.pi, np.pi], [-np.pi / 2, np.pi / 2], [-np.pi, np.pi], [0.0, 0.2]],
        qd_limits=[0.5, 2.0, 2.0, 2.5, 0.3],
        qdd_limits=[2.0, 8.0, 8.0, 10.0, 2.0],
        tau_limits=[400.0, 60.0, 60.0, 30.0, 100.0],
        joint_names=("lift", "yaw", "shoulder", "elbow", "telescope"),
        link_names=("carriage", "turret", "upper_arm", "forearm", "rod"),
        name=name,
    )
