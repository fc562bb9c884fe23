"""Inverse dynamics in mixed, fully Cartesian coordinates.

The equations of motion of the constrained system are

.. math:: M \\ddot q + \\Phi_q^T \\lambda = Q ,

with the *constant* block-diagonal mass matrix of the generic rigid bodies (zero rows and
columns for the massless angle coordinates), the generalised gravity forces ``Q`` and the
Lagrange multipliers ``lambda`` of the topological constraints and of the angle drivers
``theta_k - theta_k*(t) = 0``.  Because ``M`` does not depend on ``q``, there are no
Coriolis or centrifugal terms in these coordinates: velocity effects enter only through the
accelerations ``qdd`` of the Cartesian coordinates.

Given a consistent motion ``(q, qdd)`` the multipliers follow from the linear system
``Phi_q^T lambda = Q - M qdd``.  The row of angle ``theta_k`` reads
``lambda_MCR,k dPhi_MCR,k/dtheta_k + lambda_AR,k = 0``, so the joint moment that drives the
joint (the generalised force conjugate to ``theta_k``, equal to the joint torque when
``theta_k = phi_k + const``) is

.. math:: \\tau_k = -\\lambda_{AR,k} = \\lambda_{MCR,k}\\, \\partial\\Phi_{MCR,k}/\\partial\\theta_k .
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg

from .._validate import as_array, check_fields, check_names
from .system import MultibodySystem

__all__ = ["mass_matrix", "gravity_forces", "InverseDynamicsResult", "inverse_dynamics"]


def mass_matrix(system: MultibodySystem) -> np.ndarray:
    """Constant mass matrix ``M`` (n x n) of the system.

    Block ``i`` is the generic-rigid-body mass matrix of body ``i``
    (:func:`~robidlib.multibody.body.generic_mass_matrix`); the angle coordinates carry no mass.

    Parameters
    ----------
    system : MultibodySystem

    Returns
    -------
    numpy.ndarray, shape (n, n)

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.multibody import models
    >>> M = mass_matrix(models.simple_chain().system)
    >>> M.shape, bool(np.count_nonzero(M - np.diag(np.diag(M))) == 0)
    ((39, 39), True)
    """
    if not isinstance(system, MultibodySystem):
        raise TypeError(f"system must be a MultibodySystem, got {type(system).__name__}")
    M = np.zeros((system.n_coords, system.n_coords))
    for b in system.bodies:
        sl = system.body_slice(b.name)
        M[sl, sl] = b.mass_matrix()
    return M


def gravity_forces(system: MultibodySystem) -> np.ndarray:
    """Constant generalised gravity forces ``Q`` (n,) (zero for the angle coordinates).

    Examples
    --------
    >>> from robidlib.multibody import models
    >>> Q = gravity_forces(models.simple_chain().system)
    >>> float(Q[2])            # m g_z of the first body
    -19.62
    """
    if not isinstance(system, MultibodySystem):
        raise TypeError(f"system must be a MultibodySystem, got {type(system).__name__}")
    Q = np.zeros(system.n_coords)
    for b in system.bodies:
        Q[system.body_slice(b.name)] = b.gravity_force(system.gravity)
    return Q


@dataclass(frozen=True)
class InverseDynamicsResult:
    """Joint moments and Lagrange multipliers of an inverse-dynamics analysis.

    Attributes
    ----------
    torques : numpy.ndarray, shape (N, na)
        Joint moments ``tau_k = -lambda_AR,k`` conjugate to the angle coordinates (N m).
    torques_mcr : numpy.ndarray, shape (N, na)
        The same moments from the MCR multipliers, ``lambda_MCR,k dPhi_MCR,k/dtheta_k``.
    multipliers : numpy.ndarray, shape (N, m + na)
        ``lambda`` of the topological constraints followed by the drivers.
    labels : tuple of str
        One label per multiplier.
    residual : numpy.ndarray, shape (N,)
        ``||M qdd + Phi_q^T lambda - Q||`` (zero up to round-off for a consistent motion).
    """

    torques: np.ndarray
    torques_mcr: np.ndarray
    multipliers: np.ndarray
    labels: tuple[str, ...]
    residual: np.ndarray

    def __post_init__(self) -> None:
        d = check_fields(self, torques=("N", "na"), torques_mcr=("N", "na"), multipliers=("N", "m"),
                         residual=("N",))
        labels = check_names("labels", self.labels, unique=False)
        if len(labels) != d["m"]:
            raise ValueError(f"labels must have {d['m']} entries (one per column of multipliers), got {len(labels)}")
        object.__setattr__(self, "labels", labels)


def inverse_dynamics(system: MultibodySystem, q: Any, qdd: Any) -> InverseDynamicsResult:
    """Joint moments from ``M qdd + Phi_q^T lambda = Q`` (batched over frames).

    The velocities are not needed: the mass matrix is constant in fully Cartesian
    coordinates, so all velocity-dependent effects are already in ``qdd``.

    Parameters
    ----------
    system : MultibodySystem
        Must have angle coordinates (one MCR per actuated joint).
    q : array_like, shape (N, n) or (n,)
        Consistent positions (e.g. from :func:`~robidlib.multibody.solvers.solve_kinematics`).
    qdd : array_like, same shape
        Consistent accelerations (``Phi_q qdd = gamma``).

    Returns
    -------
    InverseDynamicsResult

    Raises
    ------
    ValueError
        Wrong shapes or non-finite values, or a system without angle coordinates.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.multibody import models
    >>> m = models.simple_chain()
    >>> q0 = m.zero_coordinates()                     # at rest, arm horizontal
    >>> tau = inverse_dynamics(m.system, q0, np.zeros_like(q0)).torques[0]
    >>> bool(abs(tau[0]) < 1e-9 and tau[1] < 0)      # no yaw torque; shoulder holds the arm
    True
    """
    if not isinstance(system, MultibodySystem):
        raise TypeError(f"system must be a MultibodySystem, got {type(system).__name__}")
    if system.driver is None:
        raise ValueError("system has no angle coordinates: joint moments need MCR constraints")
    n = system.n_coords
    q = as_array("q", q, ndim=(1, 2))
    qdd = as_array("qdd", qdd, ndim=(1, 2))
    q, qdd = np.atleast_2d(q), np.atleast_2d(qdd)
    if q.shape[1] != n:
        raise ValueError(f"q must have shape (N, {n}), got {q.shape}")
    if qdd.shape != q.shape:
        raise ValueError(f"qdd must have shape {q.shape}, got {qdd.shape}")
    M, Q = mass_matrix(system), gravity_forces(system)
    rhs = Q[None] - qdd @ M.T                                             # (N, n)
    na, m = len(system.angle_names), system.n_constraints
    lam = np.empty((q.shape[0], m + na))
    res = np.empty(q.shape[0])
    for k in range(q.shape[0]):
        A = np.vstack([system._topo.jacobian(q[k]),
                       system.driver.jacobian(q[k])]).T
        lam[k] = scipy.linalg.lstsq(A, rhs[k], lapack_driver="gelsy", check_finite=False)[0]
        res[k] = np.linalg.norm(A @ lam[k] - rhs[k])
    theta = q[:, system.angle_slice]
    # dPhi_MCR/dtheta: +sin(theta) for the cos form, -cos(theta) for the sin form
    dphi_dtheta = np.stack([np.sin(theta[:, k]) if mcr.form == "cos" else -np.cos(theta[:, k])
                            for k, mcr in enumerate(system.mcrs)], axis=1)
    torques_mcr = lam[:, system.mcr_rows] * dphi_dtheta
    labels = system.constraint_labels + system.driver.labels
    return InverseDynamicsResult(-lam[:, m:], torques_mcr, lam, labels, res)
