"""The single pendulum: the first model of the course (chapter 1).

A rigid body turns about a horizontal joint axis.  With ``q`` measured from the downward
vertical, Lagrange's equation gives

.. math::

    (I + m l^2)\\,\\ddot q + m g l \\sin q + b \\dot q = \\tau ,

where ``I`` is the moment of inertia about the axis through the centre of mass parallel to
the joint axis (so ``I + m l^2`` is the inertia about the joint, by Steiner's theorem), ``m``
the mass, ``l`` the distance from the joint to the centre of mass, ``b`` the viscous friction
coefficient and ``g`` the gravitational acceleration.  The equation is linear in the three
*identifiable* parameters ``a = [I + m l^2, m g l, b]`` with the regressor row
``[qdd, sin q, qd]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Union

import numpy as np
from .._ode import OdeBudget
from .._validate import as_array, check_fields, check_nonnegative, check_positive, check_tolerance

__all__ = ["Pendulum", "Motion"]

TorqueInput = Union[Callable[[float, float, float], float], np.ndarray]


@dataclass(frozen=True)
class Motion:
    """Sampled motion of a simulated model.

    Attributes
    ----------
    t, q, qd, qdd, tau : numpy.ndarray, shape (N,)
        Time (s), position (rad), velocity (rad/s), acceleration (rad/s^2) and joint
        torque (N m) at the requested times.

    Raises
    ------
    ValueError, TypeError
        If a field is not a finite real 1-D array of the common length N.
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray

    def __post_init__(self) -> None:
        check_fields(self, t=("N",), q=("N",), qd=("N",), qdd=("N",), tau=("N",))


def _same_length(**arrays: np.ndarray) -> int:
    lengths = {k: v.shape[0] for k, v in arrays.items()}
    if len(set(lengths.values())) > 1:
        got = ", ".join(f"{k}: {n}" for k, n in lengths.items())
        raise ValueError(f"{', '.join(lengths)} must have the same number of samples, got {got}")
    return next(iter(lengths.values()))


@dataclass(frozen=True)
class Pendulum:
    """A single rigid pendulum with viscous friction.

    Parameters
    ----------
    I : float, default 0.0175
        Moment of inertia about the centre of mass, kg m^2 (>= 0).
    m : float, default 1.0
        Mass, kg (> 0).
    l : float, default 0.25
        Distance from the joint axis to the centre of mass, m (> 0).
    b : float, default 0.1
        Viscous friction coefficient, N m s/rad (>= 0).
    g : float, default 9.81
        Gravitational acceleration, m/s^2 (> 0).

    Examples
    --------
    >>> from robidlib.models import Pendulum
    >>> p = Pendulum()
    >>> p.params.round(4)
    array([0.08  , 2.4525, 0.1   ])
    """

    I: float = 0.0175
    m: float = 1.0
    l: float = 0.25
    b: float = 0.1
    g: float = 9.81

    #: Names of the identifiable parameters, in the order of :attr:`params`.
    param_names = ("a1", "a2", "a3")

    def __post_init__(self) -> None:
        check_nonnegative("I", self.I)
        check_positive("m", self.m)
        check_positive("l", self.l)
        check_nonnegative("b", self.b)
        check_positive("g", self.g)

    @property
    def params(self) -> np.ndarray:
        """Identifiable parameters ``[I + m l^2, m g l, b]`` (kg m^2, N m, N m s/rad)."""
        return np.array([self.I + self.m * self.l**2, self.m * self.g * self.l, self.b])

    def regressor(self, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray) -> np.ndarray:
        """Regressor ``Y`` with ``Y @ params == torque``: columns ``[qdd, sin q, qd]``.

        Parameters
        ----------
        q, qd, qdd : array_like, shape (N,)
            Joint position (rad), velocity (rad/s) and acceleration (rad/s^2); scalars are
            treated as one sample.

        Returns
        -------
        numpy.ndarray, shape (N, 3)

        Raises
        ------
        ValueError
            If the inputs are not 1-D, differ in length, or are not finite.
        """
        q = np.atleast_1d(as_array("q", q, ndim=(0, 1)))
        qd = np.atleast_1d(as_array("qd", qd, ndim=(0, 1)))
        qdd = np.atleast_1d(as_array("qdd", qdd, ndim=(0, 1)))
        _same_length(q=q, qd=qd, qdd=qdd)
        return np.column_stack([qdd, np.sin(q), qd])

    def torque(self, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray) -> np.ndarray:
        """Inverse dynamics: the joint torque (N m) that produces ``qdd``.

        Parameters
        ----------
        q, qd, qdd : array_like, shape (N,)
            Joint position, velocity and acceleration.

        Returns
        -------
        numpy.ndarray, shape (N,)
        """
        return self.regressor(q, qd, qdd) @ self.params

    def acceleration(self, q: np.ndarray, qd: np.ndarray, tau: np.ndarray) -> np.ndarray:
        """Forward dynamics: ``qdd = (tau - m g l sin q - b qd) / (I + m l^2)``.

        Parameters
        ----------
        q, qd, tau : array_like, shape (N,)
            Joint position, velocity and torque.

        Returns
        -------
        numpy.ndarray, shape (N,)
        """
        q = np.atleast_1d(as_array("q", q, ndim=(0, 1)))
        qd = np.atleast_1d(as_array("qd", qd, ndim=(0, 1)))
        tau = np.atleast_1d(as_array("tau", tau, ndim=(0, 1)))
        _same_length(q=q, qd=qd, tau=tau)
        a1, a2, a3 = self.params
        return (tau - a2 * np.sin(q) - a3 * qd) / a1

    def energy(self, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
        """Mechanical energy (J) with the potential zero at the joint height."""
        q = np.atleast_1d(as_array("q", q, ndim=(0, 1)))
        qd = np.atleast_1d(as_array("qd", qd, ndim=(0, 1)))
        _same_length(q=q, qd=qd)
        a1, a2, _ = self.params
        return 0.5 * a1 * qd**2 - a2 * np.cos(q)

    def simulate(
        self,
        t: np.ndarray,
        torque: TorqueInput | float = 0.0,
        q0: float = 0.0,
        qd0: float = 0.0,
        rtol: float = 1e-10,
        atol: float = 1e-12,
    ) -> Motion:
        """Integrate the equation of motion with ``scipy.integrate.solve_ivp`` (DOP853).

        Parameters
        ----------
        t : array_like, shape (N,)
            Strictly increasing sample times (s); the simulation starts at ``t[0]``.
        torque : callable, array_like of shape (N,), or float, default 0
            Either a function ``torque(t, q, qd) -> float`` (an open-loop input or a
            feedback controller), the torque sampled at ``t`` (linearly interpolated between
            samples, so the integrator never steps over a sample), or a constant.
        q0, qd0 : float
            Initial position (rad) and velocity (rad/s).
        rtol, atol : float
            Integrator tolerances.

        Returns
        -------
        Motion
            ``t, q, qd, qdd, tau`` at the requested times; ``qdd`` is evaluated from the
            model, so it is exact up to the integration error.

        Raises
        ------
        ValueError
            If ``t`` is not strictly increasing, the torque array has the wrong length,
            or the integration fails.
        TypeError
            If ``torque`` is neither callable nor numeric.
        """
        t = as_array("t", t, ndim=1)
        if t.size < 2 or np.any(np.diff(t) <= 0):
            raise ValueError(f"t must be strictly increasing with at least 2 samples, got {t.size} samples")
        q0 = float(as_array("q0", q0, ndim=0))
        qd0 = float(as_array("qd0", qd0, ndim=0))
        check_tolerance("rtol", rtol)
        check_positive("atol", atol)
        if callable(torque):
            u = torque
            max_step = np.inf
        else:
            tau_arr = as_array("torque", torque, ndim=(0, 1))
            if tau_arr.ndim == 0:
                c = float(tau_arr)
                u = lambda _t, _q, _qd: c  # noqa: E731
                max_step = np.inf
            else:
                if tau_arr.shape != t.shape:
                    raise ValueError(f"torque must have shape {t.shape} (one value per time), got {tau_arr.shape}")
                u = lambda tt, _q, _qd: np.interp(tt, t, tau_arr)  # noqa: E731
                max_step = float(np.min(np.diff(t)))
        a1, a2, a3 = self.params

        def rhs(tt: float, x: np.ndarray) -> np.ndarray:
            tau = float(u(tt, x[0], x[1]))
            if not np.isfinite(tau):
                raise ValueError(f"torque returned non-finite value {tau} at t = {tt:.6g} s")
            return np.array([x[1], (tau - a2 * np.sin(x[0]) - a3 * x[1]) / a1])

        sol = OdeBudget("Pendulum.simulate").solve(rhs, (t[0], t[-1]), [q0, qd0], method="DOP853", t_eval=t,
                                                   rtol=rtol, atol=atol, max_step=max_step)
        q, qd = sol.y
        tau = np.array([float(u(tt, qq, vv)) for tt, qq, vv in zip(t, q, qd)])
        if not np.all(np.isfinite(tau)):
            raise ValueError("torque returned non-finite values during the simulation")
        qdd = (tau - a2 * np.sin(q) - a3 * qd) / a1
        return Motion(t=t.copy(), q=q, qd=qd, qdd=qdd, tau=tau)
