"""From motors to joints: gear ratios, coupled joints and torque constants.

An industrial arm measures its **motor** positions (encoders on the motor shafts) and its
**motor** currents; the model is written in **joint** coordinates. A transmission links them
by a constant matrix ``R`` (the gear ratios and couplings)::

    q_motor = R q                       (positions and, differentiated, velocities)
    tau     = R^T c,   c = K_t i        (joint torques from motor torques, or currents)

``R^T`` follows from power conservation, ``c . qd_motor = tau . qd``. A diagonal ``R``
means one motor per joint; an off-diagonal entry ``R[k, j]`` means that motor ``k`` also turns
when joint ``j`` moves, as the wrist motor 6 of the Staubli TX40, ``q_motor6 = N6 (q5 + q6)``.

Motor ``k``'s own gear ratio is ``g_k = R[k, k]``; its velocity in the units of joint ``k``
is ``r_k . qd`` with ``r_k = R[k] / g_k`` (``r_k = e_k`` for an uncoupled motor). A rotor
inertia ``J_k``, a viscous ``fv_k`` and a Coulomb ``fs_k`` friction on the motor shaft add to
the joint torques ``Ia_k r_k (r_k . qdd) + FVm_k r_k (r_k . qd) + FSm_k r_k sign(r_k . qd)``
with the joint-side parameters ``Ia_k = g_k^2 J_k``, ``FVm_k = g_k^2 fv_k`` and
``FSm_k = |g_k| fs_k`` (:class:`Transmission` gives these columns to
:class:`~robidlib.identification.model.DriveModel`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validate import as_array

__all__ = ["Transmission"]


class Transmission:
    """A constant linear transmission between motors and joints.

    Parameters
    ----------
    motor_matrix : array_like, shape (n, n)
        ``R`` with ``q_motor = R @ q``: gear ratios on the diagonal (non-zero), couplings
        off it. Must be invertible.
    torque_constants : array_like, shape (n,), optional
        ``K_t`` (N m/A) per motor when the torque signals are currents (A); default: the
        signals are already motor torques (N m), ``K_t = 1``.

    Attributes
    ----------
    n : int
    motor_matrix : numpy.ndarray, shape (n, n)
        ``R``.
    torque_matrix : numpy.ndarray, shape (n, n)
        ``R^T``: ``tau = R^T c``.
    gear_ratios : numpy.ndarray, shape (n,)
        ``diag(R)``.
    motor_rows : numpy.ndarray, shape (n, n)
        ``r_k = R[k] / R[k, k]`` (row k): motor k's velocity in joint-k units is ``r_k . qd``.
    coupled : numpy.ndarray of bool, shape (n,)
        Motors that turn with more than one joint.
    torque_constants : numpy.ndarray, shape (n,)

    Raises
    ------
    ValueError
        A non-square, singular or non-finite ``R``, a zero gear ratio on the diagonal,
        non-positive or wrongly shaped torque constants.

    Examples
    --------
    >>> import numpy as np
    >>> R = np.diag([32.0, 45.0, 32.0]); R[2, 1] = 32.0   # motor 3 turns with q2 + q3
    >>> tr = Transmission(R)
    >>> tr.coupled.tolist(), tr.motor_rows[2].tolist()
    ([False, False, True], [0.0, 1.0, 1.0])
    >>> tr.joint_positions([[32.0, 45.0, 64.0]]).tolist()
    [[1.0, 1.0, 1.0]]
    """

    __slots__ = ("_R", "_RT", "_Rinv", "_kt", "_rows", "_coupled")

    def __init__(self, motor_matrix: ArrayLike, torque_constants: ArrayLike | None = None) -> None:
        R = as_array("motor_matrix", motor_matrix, ndim=2)
        n = R.shape[0]
        if R.shape != (n, n) or n == 0:
            raise ValueError(f"motor_matrix must be square (n, n) with n >= 1, got shape {R.shape}")
        g = np.diag(R)
        if np.any(g == 0):
            raise ValueError(
                f"motor_matrix must have non-zero gear ratios on its diagonal (motor k drives joint k), "
                f"got diagonal {g.tolist()}"
            )
        if np.linalg.matrix_rank(R) < n:
            raise ValueError(f"motor_matrix must be invertible, got rank {np.linalg.matrix_rank(R)} for n = {n}")
        if torque_constants is None:
            kt = np.ones(n)
        else:
            kt = as_array("torque_constants", torque_constants, shape=(n,))
            if np.any(kt <= 0):
                raise ValueError(f"torque_constants must be > 0 (N m/A), got {kt.tolist()}")
        rows = R / g[:, None]
        coupled = np.count_nonzero(R, axis=1) > 1
        for name, a in (("_R", R), ("_RT", R.T), ("_Rinv", np.linalg.inv(R)), ("_kt", kt), ("_rows", rows),
                        ("_coupled", coupled)):
            a = np.array(a)
            a.setflags(write=False)
            object.__setattr__(self, name, a)

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("Transmission is immutable")

    n = property(lambda self: self._R.shape[0], doc="Number of joints (= motors).")
    motor_matrix = property(lambda self: self._R, doc="R, with q_motor = R q.")
    torque_matrix = property(lambda self: self._RT, doc="R^T, with tau = R^T c.")
    gear_ratios = property(lambda self: np.diag(self._R).copy(), doc="diag(R).")
    motor_rows = property(lambda self: self._rows, doc="r_k = R[k] / R[k, k].")
    coupled = property(lambda self: self._coupled, doc="Motors that turn with several joints.")
    torque_constants = property(lambda self: self._kt, doc="K_t per motor (1 for torque signals).")

    def __repr__(self) -> str:
        return f"Transmission(n={self.n}, gear_ratios={self.gear_ratios.tolist()}, coupled={np.flatnonzero(self._coupled).tolist()})"

    def _series(self, name: str, x: Any) -> tuple[np.ndarray, bool]:
        a = as_array(name, x, ndim=(1, 2))
        if a.shape[-1] != self.n:
            raise ValueError(f"{name} must have shape ({self.n},) or (N, {self.n}), got {a.shape}")
        return (a[None], True) if a.ndim == 1 else (a, False)

    def joint_positions(self, q_motor: ArrayLike) -> np.ndarray:
        """Joint positions ``R^-1 q_motor`` (also velocities and accelerations).

        Parameters
        ----------
        q_motor : array_like, shape (n,) or (N, n)

        Returns
        -------
        numpy.ndarray, same shape

        Raises
        ------
        ValueError
            Wrong shape or NaN/inf.
        """
        a, single = self._series("q_motor", q_motor)
        out = a @ self._Rinv.T
        return out[0] if single else out

    def motor_positions(self, q: ArrayLike) -> np.ndarray:
        """Motor positions ``R q`` (the inverse of :meth:`joint_positions`).

        Raises
        ------
        ValueError
            Wrong shape or NaN/inf.
        """
        a, single = self._series("q", q)
        out = a @ self._R.T
        return out[0] if single else out

    def joint_torques(self, signal: ArrayLike) -> np.ndarray:
        """Joint torques ``R^T (K_t signal)`` from motor torques (or currents).

        Parameters
        ----------
        signal : array_like, shape (n,) or (N, n)
            Motor torques (N m), or currents (A) when ``torque_constants`` were given.

        Returns
        -------
        numpy.ndarray, same shape, N m

        Raises
        ------
        ValueError
            Wrong shape or NaN/inf.

        Examples
        --------
        >>> import numpy as np
        >>> R = np.diag([32.0, 45.0, 32.0]); R[2, 1] = 32.0
        >>> Transmission(R).joint_torques([1.0, 1.0, 1.0]).tolist()   # motor 3 helps joint 2
        [32.0, 77.0, 32.0]
        """
        a, single = self._series("signal", signal)
        out = (a * self._kt) @ self._R
        return out[0] if single else out

    def motor_signals(self, tau: ArrayLike) -> np.ndarray:
        """Motor torques (or currents) ``K_t^-1 R^-T tau`` giving the joint torques ``tau``.

        Raises
        ------
        ValueError
            Wrong shape or NaN/inf.
        """
        a, single = self._series("tau", tau)
        out = (a @ self._Rinv) / self._kt
        return out[0] if single else out
