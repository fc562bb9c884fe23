"""The planar two-link (2R) arm moving in a vertical plane.

Both joints turn about axes parallel to the base ``z`` axis; the arm moves in the ``x-y``
plane and gravity points along ``-y`` (the plane is vertical). Modified DH parameters:

=====  ===========  ===========  =====  =======
joint  a_{i-1} (m)  alpha_{i-1}  d_i    theta_i
=====  ===========  ===========  =====  =======
1      0            0            0      q1
2      l1 = 0.5     0            0      q2
=====  ===========  ===========  =====  =======

so ``q = 0`` is the arm stretched along ``x`` (horizontal) and ``q1 = pi/2`` points it
straight up.

Inertial data (a tabletop arm built from aluminium tubes; link 1 carries the elbow motor):

======  =========  ======================  =====================================
link    mass (kg)  centre of mass (m)      inertia about the CoM (kg m^2)
======  =========  ======================  =====================================
1       2.4        (0.28, 0, 0)            diag(0.0012, 0.055, 0.055)
2       1.1        (0.17, 0, 0)            diag(0.0005, 0.016, 0.016)
======  =========  ======================  =====================================

(slender tubes: ``m L^2 / 12`` about the transverse axes plus the spread of the motor mass).
Limits: ``|q| <= pi`` rad, ``|qd| <= (3, 4)`` rad/s, ``|qdd| <= (15, 20)`` rad/s^2,
``|tau| <= (40, 15)`` N m.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..robot import SerialRobot

__all__ = ["planar_2r"]


def planar_2r(
    *,
    gravity: ArrayLike = (0.0, -9.81, 0.0),
    friction: ArrayLike | None = None,
    name: str = "planar_2r",
) -> SerialRobot:
    """The planar 2R arm in a vertical plane (see the module docstring for its numbers).

    Parameters
    ----------
    gravity : array_like, shape (3,), default (0, -9.81, 0)
        Gravity in the base frame; the default lies in the plane of motion. Use
        ``(0, 0, -9.81)`` for a horizontal (SCARA-like) arm that gravity does not load.
    friction : array_like, shape (2, 2), optional
        ``[[fv1, fc1], [fv2, fc2]]`` (N m s/rad, N m); default no friction. Typical values
        for such an arm: ``[[0.3, 0.4], [0.15, 0.2]]``.
    name : str, default "planar_2r"

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
    >>> r = planar_2r()
    >>> r.n, r.joint_types
    (2, ('revolute', 'revolute'))
    >>> # stretched horizontally, joint 1 holds both links: m1 g c1 + m2 g (l1 + c2)
    >>> round(float(gravity_torques(r, [0.0, 0.0])[0]), 3)
    13.822
    """
    mass = [2.4, 1.1]
    com = [[0.28, 0.0, 0.0], [0.17, 0.0, 0.0]]
    inertia = [[0.0012, 0.055, 0.055, 0.0, 0.0, 0.0], [0.0005, 0.016, 0.016, 0.0, 0.0, 0.0]]
    return SerialRobot.from_dh(
        "RR",
        a=[0.0, 0.5],
        alpha=[0.0, 0.0],
        d=[0.0, 0.0],
        mass=mass,
        com=com,
        inertia=np.array(inertia),
        inertia_about="com",
        friction=friction,
        gravity=gravity,
        q_limits=[[-np.pi, np.pi], [-np.pi, np.pi]],
        qd_limits=[3.0, 4.0],
        qdd_limits=[15.0, 20.0],
        tau_limits=[40.0, 15.0],
        joint_names=("shoulder", "elbow"),
        link_names=("upper_arm", "forearm"),
        name=name,
    )
