"""Excitation trajectories: quintic polynomials and finite Fourier series.

Every generator returns a :class:`Trajectory` holding the time vector and the joint
positions, velocities and accelerations as ``(N, n)`` arrays (GUIDE); it unpacks as
``q, qd, qdd = traj``, so that ``regressor(robot, *traj)``-style calls read naturally.

* :func:`quintic` -- rest-to-rest (or any boundary state) fifth-degree polynomial per joint.
* :func:`quintic_via` -- piecewise quintic through via points (continuous up to qdd).
* :class:`FourierTrajectory` / :func:`fourier_series` -- the periodic finite Fourier
  series of Swevers et al. :cite:`swevers1997`, with analytic derivatives, a
  parameter-vector packing (:meth:`FourierTrajectory.pack` / :meth:`FourierTrajectory.unpack`)
  and the linear maps from that vector to ``q, qd, qdd`` (:func:`fourier_basis`) for
  excitation optimisation.
* :func:`limit_margins`, :func:`limits_violation`, :func:`check_limits` -- joint
  position, velocity and acceleration limits.
* :func:`random_fourier` -- a random Fourier trajectory scaled to fit the joint limits.
* :func:`excitation_cond` / :func:`optimize_excitation` -- the condition number of the
  base regressor along a trajectory, and its minimisation over the Fourier coefficients
  under joint limits (:cite:`swevers1997`), returning an :class:`ExcitationResult`.
* :class:`PolynomialTrajectory`, :func:`polynomial_basis`, :func:`random_polynomial`,
  :func:`optimize_polynomial_excitation` -- the design of Urrea and Pascal :cite:`urrea2017`:
  a polynomial per joint over one window (fifth degree in the paper, eq. 39), optional
  fixed sinusoids, the coefficients optimised with the same linear-constraint SLSQP.
* :func:`save_excitation` / :func:`load_excitation` / :func:`stored_excitations` -- optimised
  excitations stored as package data (``robidlib/data/excitations``, written from the source
  tree by ``tools/store_excitations.py``; ``save_excitation`` writes only where it is told),
  so that chapters and benchmarks load them instead of re-running a truncated optimisation
  whose last digits depend on the machine.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np
import scipy.linalg
import scipy.optimize

from ._validate import (as_array, check_choice, check_fields, check_flag, check_int, check_nonnegative, check_positive,
                        check_rng, check_same_robot, check_text, check_tolerance)

__all__ = [
    "Trajectory",
    "quintic",
    "quintic_coefficients",
    "quintic_via",
    "FourierTrajectory",
    "fourier_series",
    "fourier_basis",
    "limit_margins",
    "limits_violation",
    "check_limits",
    "random_fourier",
    "excitation_cond",
    "excitation_logdet",
    "ExcitationResult",
    "optimize_excitation",
    "save_excitation",
    "load_excitation",
    "stored_excitations",
    "PolynomialTrajectory",
    "polynomial_basis",
    "random_polynomial",
    "optimize_polynomial_excitation",
]

ArrayLike = Any


@dataclass(frozen=True, eq=False)
class Trajectory:
    """Sampled joint trajectory.

    Attributes
    ----------
    t : numpy.ndarray, shape (N,)
        Time in s.
    q, qd, qdd : numpy.ndarray, shape (N, n)
        Joint positions (rad or m), velocities (per s) and accelerations (per s^2).

    Iterating over a trajectory gives ``q, qd, qdd`` (not ``t``)::

        q, qd, qdd = traj
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray

    def __post_init__(self) -> None:
        check_fields(self, t=("N",), q=("N", "n"), qd=("N", "n"), qdd=("N", "n"))

    def __iter__(self) -> Iterator[np.ndarray]:
        return iter((self.q, self.qd, self.qdd))

    @property
    def n_samples(self) -> int:
        """Number of samples ``N``."""
        return int(self.t.shape[0])

    @property
    def n_joints(self) -> int:
        """Number of joints ``n``."""
        return int(self.q.shape[1])

    def __repr__(self) -> str:
        span = f"{self.t[0]:.3g}..{self.t[-1]:.3g} s" if self.n_samples else "empty"
        return f"Trajectory(N={self.n_samples}, n={self.n_joints}, t={span})"


# ----------------------------------------------------------------------------- quintic
def _time(t: ArrayLike) -> np.ndarray:
    t = as_array("t", t, ndim=1)
    if t.shape[0] == 0:
        raise ValueError("t must hold at least one time instant, got an empty array")
    return t


def _boundary(**values: ArrayLike) -> tuple[int, dict[str, np.ndarray]]:
    """Broadcast scalar or (n,) boundary values to a common joint count ``n``."""
    arrays = {k: as_array(k, v, ndim=(0, 1)) for k, v in values.items()}
    lengths = {k: a.shape[0] for k, a in arrays.items() if a.ndim == 1}
    n_set = set(lengths.values())
    if len(n_set) > 1:
        got = ", ".join(f"{k}: {n}" for k, n in lengths.items())
        raise ValueError(f"boundary values must be scalars or arrays of one common length n, got lengths {got}")
    n = n_set.pop() if n_set else 1
    if n == 0:
        raise ValueError("boundary values must describe at least one joint, got length 0")
    return n, {k: np.broadcast_to(a, (n,)).astype(float) for k, a in arrays.items()}


def _quintic_matrix(T: float) -> np.ndarray:
    """Rows: q(0), qd(0), qdd(0), q(T), qd(T), qdd(T) of the monomials 1, t, ..., t^5."""
    p = np.arange(6)
    row_q = T**p
    row_qd = np.r_[0.0, p[1:] * T ** (p[1:] - 1)]
    row_qdd = np.r_[0.0, 0.0, p[2:] * (p[2:] - 1) * T ** (p[2:] - 2)]
    M0 = np.zeros((3, 6))
    M0[0, 0], M0[1, 1], M0[2, 2] = 1.0, 1.0, 2.0
    return np.vstack([M0, row_q, row_qd, row_qdd])


def quintic_coefficients(
    q0: ArrayLike, qf: ArrayLike, T: float,
    qd0: ArrayLike = 0.0, qdf: ArrayLike = 0.0, qdd0: ArrayLike = 0.0, qddf: ArrayLike = 0.0,
) -> np.ndarray:
    """Coefficients ``a0..a5`` of ``q(t) = a0 + a1 t + ... + a5 t^5`` per joint.

    The six boundary conditions (position, velocity and acceleration at ``t = 0`` and
    ``t = T``) give a 6x6 linear system, solved for all joints at once with
    ``scipy.linalg.solve`` in the normalised time ``s = t / T`` (``M(1) b = c(T)``, a
    well-conditioned system whatever ``T``); then ``a_k = b_k / T^k``.

    Parameters
    ----------
    q0, qf : float or array_like, shape (n,)
        Initial and final positions.
    T : float
        Duration in s, ``> 0``.
    qd0, qdf, qdd0, qddf : float or array_like, shape (n,), default 0
        Initial/final velocities and accelerations.

    Returns
    -------
    numpy.ndarray, shape (6, n)
        Row ``k`` holds ``a_k`` for every joint.

    Raises
    ------
    ValueError
        If a value is not finite, ``T <= 0``, the boundary arrays have different lengths, or
        ``T`` is so short or long that a coefficient overflows double precision.

    Examples
    --------
    >>> from robidlib.trajectories import quintic_coefficients
    >>> (quintic_coefficients(0.0, 1.0, 1.0)[:, 0].round(9) + 0.0).tolist()  # 10t^3 - 15t^4 + 6t^5
    [0.0, 0.0, 0.0, 10.0, -15.0, 6.0]
    """
    T = check_positive("T", T)
    _, b = _boundary(q0=q0, qd0=qd0, qdd0=qdd0, qf=qf, qdf=qdf, qddf=qddf)
    Tf = np.float64(T)                  # numpy powers overflow to inf (Python's raise OverflowError)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        rhs = np.vstack([b["q0"], Tf * b["qd0"], Tf**2 * b["qdd0"], b["qf"], Tf * b["qdf"], Tf**2 * b["qddf"]])
        coef = scipy.linalg.solve(_quintic_matrix(1.0), rhs) if np.all(np.isfinite(rhs)) else rhs[:6] * np.nan
        a = coef / (Tf ** np.arange(6.0))[:, None]
    if not np.all(np.isfinite(a)):
        raise ValueError(f"T = {T:g} s is too short or too long for these boundary values: a coefficient "
                         "overflows double precision; expected a duration on the scale of the motion")
    return a


def _eval_poly(coef: np.ndarray, tau: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Evaluate per-sample coefficient sets ``coef`` (N, 6, n) at local times ``tau`` (N,)."""
    p = np.arange(6)
    P = tau[:, None] ** p
    dP = np.zeros_like(P)
    dP[:, 1:] = p[1:] * tau[:, None] ** (p[1:] - 1)
    ddP = np.zeros_like(P)
    ddP[:, 2:] = p[2:] * (p[2:] - 1) * tau[:, None] ** (p[2:] - 2)
    ev = lambda B: np.einsum("nk,nkj->nj", B, coef)  # noqa: E731
    return ev(P), ev(dP), ev(ddP)


def quintic(
    t: ArrayLike, q0: ArrayLike, qf: ArrayLike, T: float,
    qd0: ArrayLike = 0.0, qdf: ArrayLike = 0.0, qdd0: ArrayLike = 0.0, qddf: ArrayLike = 0.0,
) -> Trajectory:
    """Fifth-degree polynomial trajectory per joint from its boundary conditions.

    ``q_i(t) = a0 + a1 t + a2 t^2 + a3 t^3 + a4 t^4 + a5 t^5`` with the coefficients of
    :func:`quintic_coefficients`: the position, velocity and acceleration take the given
    values at ``t = 0`` and ``t = T`` (by default a rest-to-rest motion).

    Parameters
    ----------
    t : array_like, shape (N,)
        Sample times, all in ``[0, T]``.
    q0, qf : float or array_like, shape (n,)
        Initial and final positions (scalars broadcast to every joint; all scalars give
        one joint).
    T : float
        Duration in s, ``> 0``.
    qd0, qdf, qdd0, qddf : float or array_like, shape (n,), default 0
        Boundary velocities and accelerations.

    Returns
    -------
    Trajectory
        ``q, qd, qdd`` of shape ``(N, n)``.

    Raises
    ------
    ValueError
        If a time lies outside ``[0, T]``, ``T <= 0``, a value is not finite or the
        boundary arrays have different lengths.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.trajectories import quintic
    >>> traj = quintic(np.linspace(0, 2, 5), q0=[0.0, 1.0], qf=[1.0, -1.0], T=2.0)
    >>> q, qd, qdd = traj
    >>> q.shape, np.round(q[[0, 2, 4]], 6).tolist() == [[0.0, 1.0], [0.5, 0.0], [1.0, -1.0]]
    ((5, 2), True)
    """
    t = _time(t)
    coef = quintic_coefficients(q0, qf, T, qd0=qd0, qdf=qdf, qdd0=qdd0, qddf=qddf)
    T = float(T)
    tol = 1e-12 * max(T, 1.0)
    bad = (t < -tol) | (t > T + tol)
    if np.any(bad):
        raise ValueError(
            f"t must lie in [0, T] = [0, {T:g}] s, got {int(bad.sum())} value(s) outside "
            f"(range {t.min():g} .. {t.max():g} s)"
        )
    q, qd, qdd = _eval_poly(np.broadcast_to(coef, (t.shape[0],) + coef.shape), t)
    return Trajectory(t, q, qd, qdd)


def quintic_via(
    t: ArrayLike,
    times: ArrayLike,
    positions: ArrayLike,
    velocities: ArrayLike | None = None,
    accelerations: ArrayLike | None = None,
) -> Trajectory:
    """Piecewise quintic trajectory through via points.

    Segment ``k`` joins via points ``k`` and ``k + 1`` with a quintic (as
    :func:`quintic`), so position, velocity and acceleration are continuous.  When
    ``velocities`` is omitted the motion starts and ends at rest and the velocity at an
    interior via point is the mean of the slopes of its two segments, or zero where the
    slope changes sign (the heuristic of :cite:`craig2005`, Sec. 7.3); when
    ``accelerations`` is omitted they are zero at every via point.

    Parameters
    ----------
    t : array_like, shape (N,)
        Sample times in ``[times[0], times[-1]]``.
    times : array_like, shape (m,)
        Strictly increasing via-point times, ``m >= 2``.
    positions : array_like, shape (m,) or (m, n)
        Via-point positions (1-D means one joint).
    velocities, accelerations : array_like, shape like ``positions``, optional
        Via-point velocities and accelerations.

    Returns
    -------
    Trajectory
        ``q, qd, qdd`` of shape ``(N, n)``.

    Raises
    ------
    ValueError
        On non-increasing ``times``, fewer than two via points, mismatched shapes,
        non-finite values or sample times outside ``[times[0], times[-1]]``.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.trajectories import quintic_via
    >>> traj = quintic_via([0.0, 1.0, 2.0, 3.0], times=[0, 1, 3], positions=[0.0, 1.0, 0.0])
    >>> (np.round(traj.q[:, 0], 6) + 0.0).tolist()        # + 0.0: no "-0.0" from round-off
    [0.0, 1.0, 0.5, 0.0]
    >>> bool(abs(traj.qd[1, 0]) < 1e-10)                  # at rest at the middle via point
    True
    """
    t = _time(t)
    tv = as_array("times", times, ndim=1)
    if tv.shape[0] < 2:
        raise ValueError(f"times must hold at least 2 via points, got {tv.shape[0]}")
    if np.any(np.diff(tv) <= 0):
        raise ValueError(f"times must be strictly increasing, got {tv}")
    m = tv.shape[0]
    P = as_array("positions", positions, ndim=(1, 2))
    if P.ndim == 1:
        P = P[:, None]
    if P.shape[0] != m:
        raise ValueError(f"positions must have {m} rows (one per via time), got shape {P.shape}")
    n = P.shape[1]
    dT = np.diff(tv)
    if velocities is None:
        slope = np.diff(P, axis=0) / dT[:, None]  # (m-1, n)
        V = np.zeros_like(P)
        same = np.sign(slope[:-1]) == np.sign(slope[1:])
        V[1:-1] = np.where(same & (slope[:-1] != 0), 0.5 * (slope[:-1] + slope[1:]), 0.0)
    else:
        V = as_array("velocities", velocities, ndim=(1, 2))
        V = V[:, None] if V.ndim == 1 else V
        if V.shape != P.shape:
            raise ValueError(f"velocities must have the shape of positions {P.shape}, got {V.shape}")
    if accelerations is None:
        A = np.zeros_like(P)
    else:
        A = as_array("accelerations", accelerations, ndim=(1, 2))
        A = A[:, None] if A.ndim == 1 else A
        if A.shape != P.shape:
            raise ValueError(f"accelerations must have the shape of positions {P.shape}, got {A.shape}")
    tol = 1e-12 * max(abs(tv[-1]), abs(tv[0]), 1.0)
    bad = (t < tv[0] - tol) | (t > tv[-1] + tol)
    if np.any(bad):
        raise ValueError(
            f"t must lie in [times[0], times[-1]] = [{tv[0]:g}, {tv[-1]:g}] s, got {int(bad.sum())} "
            f"value(s) outside (range {t.min():g} .. {t.max():g} s)"
        )
    coefs = np.stack([
        quintic_coefficients(P[k], P[k + 1], dT[k], V[k], V[k + 1], A[k], A[k + 1]) for k in range(m - 1)
    ])  # (m-1, 6, n)
    seg = np.clip(np.searchsorted(tv, t, side="right") - 1, 0, m - 2)
    tau = np.clip(t - tv[seg], 0.0, dT[seg])
    q, qd, qdd = _eval_poly(coefs[seg], tau)
    return Trajectory(t, q, qd, qdd)


# ----------------------------------------------------------------------------- Fourier
#: Upper bounds of the counts: far above any use, below what would exhaust memory or run for hours.
_MAX_COUNT = {"n_joints": 1000, "n_harmonics": 1000, "n_starts": 1000, "maxiter": 10**6,
              "n_grid": 10**6, "n_constraint": 10**6, "n_eval": 10**6, "degree": 50}


def _check_count(name: str, value: Any) -> int:
    """A count >= 1, at most :data:`_MAX_COUNT` of its name."""
    return check_int(name, value, 1, _MAX_COUNT.get(name))


@dataclass(frozen=True, eq=False)
class FourierTrajectory:
    """Finite Fourier series excitation of Swevers et al. :cite:`swevers1997`.

    For joint ``i`` and harmonics ``l = 1..L`` of the base pulsation ``wf``::

        q_i(t)   = q_i0 + sum_l  a_il/(wf l) sin(wf l t) - b_il/(wf l) cos(wf l t)
        qd_i(t)  =        sum_l  a_il cos(wf l t) + b_il sin(wf l t)
        qdd_i(t) =        sum_l -a_il wf l sin(wf l t) + b_il wf l cos(wf l t)

    The motion is periodic with period ``2 pi / wf``, so measurements can be averaged
    over periods and the noise spectrum separated from the excitation.  The trajectory
    is linear in ``(a, b, q0)``; :meth:`pack` / :meth:`unpack` map them to and from one
    parameter vector and :func:`fourier_basis` gives the matrices of that linear map.

    Parameters
    ----------
    wf : float
        Base pulsation in rad/s, ``> 0`` (base frequency ``wf / (2 pi)`` Hz).
    a, b : array_like, shape (n, L)
        Sine and cosine coefficients of the *velocity* (rad/s or m/s).
    q0 : array_like, shape (n,)
        Position offsets.

    Raises
    ------
    ValueError
        On non-finite values, ``wf <= 0`` or inconsistent shapes.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.trajectories import FourierTrajectory
    >>> ft = FourierTrajectory(wf=2 * np.pi * 0.1, a=[[0.5, 0.2]], b=[[0.0, -0.1]], q0=[0.3])
    >>> x = ft.pack()                               # [a.ravel(), b.ravel(), q0]
    >>> x.tolist()
    [0.5, 0.2, 0.0, -0.1, 0.3]
    >>> FourierTrajectory.unpack(x, ft.wf, n_joints=1, n_harmonics=2).a.tolist()
    [[0.5, 0.2]]
    >>> q, qd, qdd = ft.evaluate(np.linspace(0.0, 10.0, 5))
    >>> bool(np.allclose(q[0], q[-1]))               # one period: 10 s
    True
    """

    wf: float
    a: np.ndarray
    b: np.ndarray
    q0: np.ndarray

    def __post_init__(self) -> None:
        wf = check_positive("wf", self.wf)
        a = as_array("a", self.a, ndim=2)
        if a.shape[0] == 0 or a.shape[1] == 0:
            raise ValueError(f"a must have shape (n, L) with n >= 1 and L >= 1, got {a.shape}")
        b = as_array("b", self.b, ndim=2)
        if b.shape != a.shape:
            raise ValueError(f"b must have the shape of a, {a.shape}, got {b.shape}")
        q0 = as_array("q0", self.q0, ndim=1)
        if q0.shape != (a.shape[0],):
            raise ValueError(f"q0 must have one entry per row of a, shape ({a.shape[0]},), got {q0.shape}")
        for name, v in (("wf", wf), ("a", a), ("b", b), ("q0", q0)):
            object.__setattr__(self, name, v)

    @property
    def n_joints(self) -> int:
        """Number of joints ``n``."""
        return int(self.a.shape[0])

    @property
    def n_harmonics(self) -> int:
        """Number of harmonics ``L``."""
        return int(self.a.shape[1])

    @property
    def n_params(self) -> int:
        """Length of the packed vector, ``n (2 L + 1)``."""
        return self.n_joints * (2 * self.n_harmonics + 1)

    @property
    def period(self) -> float:
        """Period ``2 pi / wf`` in s."""
        return 2 * np.pi / self.wf

    def pack(self) -> np.ndarray:
        """Parameter vector ``x = [a.ravel(), b.ravel(), q0]`` of length ``n (2 L + 1)``.

        ``a.ravel()`` is row-major: ``a_11, ..., a_1L, a_21, ...`` (joint by joint).
        """
        return np.concatenate([self.a.ravel(), self.b.ravel(), self.q0])

    @classmethod
    def unpack(cls, x: ArrayLike, wf: float, n_joints: int, n_harmonics: int) -> "FourierTrajectory":
        """Inverse of :meth:`pack`: build a trajectory from a parameter vector.

        Parameters
        ----------
        x : array_like, shape (n (2 L + 1),)
            Packed parameters.
        wf : float
            Base pulsation in rad/s.
        n_joints, n_harmonics : int
            ``n`` and ``L``.

        Raises
        ------
        ValueError
            If ``x`` has the wrong length or non-finite entries.
        """
        n = _check_count("n_joints", n_joints)
        L = _check_count("n_harmonics", n_harmonics)
        x = as_array("x", x, ndim=1)
        size = n * (2 * L + 1)
        if x.shape[0] != size:
            raise ValueError(
                f"x must have length n_joints * (2 * n_harmonics + 1) = {n} * {2 * L + 1} = {size}, got {x.shape[0]}"
            )
        nL = n * L
        return cls(wf, x[:nL].reshape(n, L), x[nL:2 * nL].reshape(n, L), x[2 * nL:])

    def evaluate(self, t: ArrayLike) -> Trajectory:
        """Positions, velocities and accelerations at times ``t`` (shape ``(N,)``)."""
        t = _time(t)
        w = self.wf * np.arange(1, self.n_harmonics + 1)  # (L,)
        S, C = np.sin(np.outer(t, w)), np.cos(np.outer(t, w))  # (N, L)
        q = self.q0 + (S / w) @ self.a.T - (C / w) @ self.b.T
        qd = C @ self.a.T + S @ self.b.T
        qdd = -(S * w) @ self.a.T + (C * w) @ self.b.T
        return Trajectory(t, q, qd, qdd)

    def amplitude_bounds(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Analytic upper bounds of ``|q - q0|``, ``|qd|`` and ``|qdd|`` per joint.

        From ``|a sin + b cos| <= sqrt(a^2 + b^2)``::

            |q_i - q_i0| <= sum_l sqrt(a_il^2 + b_il^2) / (wf l)
            |qd_i|       <= sum_l sqrt(a_il^2 + b_il^2)
            |qdd_i|      <= sum_l sqrt(a_il^2 + b_il^2) wf l

        valid for all times (smooth, sample-free constraints for optimisation, slightly
        conservative since the harmonics rarely peak together).

        Returns
        -------
        tuple of numpy.ndarray, each shape (n,)
            Bounds for ``|q - q0|``, ``|qd|``, ``|qdd|``.
        """
        w = self.wf * np.arange(1, self.n_harmonics + 1)
        r = np.hypot(self.a, self.b)
        return (r / w).sum(axis=1), r.sum(axis=1), (r * w).sum(axis=1)


def fourier_series(t: ArrayLike, wf: float, a: ArrayLike, b: ArrayLike, q0: ArrayLike) -> Trajectory:
    """Evaluate the finite Fourier series of :class:`FourierTrajectory` at times ``t``.

    Shorthand for ``FourierTrajectory(wf, a, b, q0).evaluate(t)``.

    Parameters
    ----------
    t : array_like, shape (N,)
        Sample times in s.
    wf : float
        Base pulsation in rad/s.
    a, b : array_like, shape (n, L)
        Sine and cosine velocity coefficients.
    q0 : array_like, shape (n,)
        Position offsets.

    Returns
    -------
    Trajectory
        ``q, qd, qdd`` of shape ``(N, n)``.

    Raises
    ------
    ValueError
        On non-finite values, ``wf <= 0`` or inconsistent shapes.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.trajectories import fourier_series
    >>> q, qd, qdd = fourier_series([0.0], wf=1.0, a=[[1.0]], b=[[0.0]], q0=[0.5])
    >>> q.tolist(), qd.tolist(), qdd.tolist()
    ([[0.5]], [[1.0]], [[0.0]])
    """
    return FourierTrajectory(wf, a, b, q0).evaluate(t)


def fourier_basis(
    t: ArrayLike, wf: float, n_joints: int, n_harmonics: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Matrices of the linear map from the packed Fourier vector to ``q, qd, qdd``.

    With ``x = FourierTrajectory.pack()`` and the GUIDE's sample-major stacking,
    ``q.ravel() = Bq @ x``, ``qd.ravel() = Bqd @ x``, ``qdd.ravel() = Bqdd @ x``.  Joint
    limits on a time grid are therefore *linear* constraints on ``x``
    (``scipy.optimize.LinearConstraint(Bq, q_min, q_max)``).

    Parameters
    ----------
    t : array_like, shape (N,)
        Sample times in s.
    wf : float
        Base pulsation in rad/s.
    n_joints, n_harmonics : int
        ``n`` and ``L``.

    Returns
    -------
    tuple of numpy.ndarray, each shape (N n, n (2 L + 1))
        ``Bq, Bqd, Bqdd``.

    Raises
    ------
    ValueError
        On non-finite ``t``, ``wf <= 0`` or counts below 1.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.trajectories import FourierTrajectory, fourier_basis
    >>> ft = FourierTrajectory(1.5, a=[[0.2, 0.1], [0.0, 0.3]], b=[[0.1, 0.0], [-0.2, 0.1]], q0=[0.0, 1.0])
    >>> t = np.linspace(0.0, 4.0, 9)
    >>> Bq, Bqd, Bqdd = fourier_basis(t, 1.5, 2, 2)
    >>> bool(np.allclose(Bq @ ft.pack(), ft.evaluate(t).q.ravel()))
    True
    """
    t = _time(t)
    wf = check_positive("wf", wf)
    n = _check_count("n_joints", n_joints)
    L = _check_count("n_harmonics", n_harmonics)
    N = t.shape[0]
    w = wf * np.arange(1, L + 1)
    S, C = np.sin(np.outer(t, w)), np.cos(np.outer(t, w))  # (N, L)
    eye = np.eye(n)

    def block(sa: np.ndarray, cb: np.ndarray, offset: float) -> np.ndarray:
        # row (k, i), columns [a_(j, l)], [b_(j, l)], [q0_j]: nonzero only for j == i
        A = np.einsum("ij,kl->kijl", eye, sa).reshape(N * n, n * L)
        B = np.einsum("ij,kl->kijl", eye, cb).reshape(N * n, n * L)
        Q = np.tile(offset * eye, (N, 1))
        return np.hstack([A, B, Q])

    return block(S / w, -C / w, 1.0), block(C, S, 0.0), block(-S * w, C * w, 0.0)


# ----------------------------------------------------------------------------- limits
def _limits(traj: Trajectory, q_min, q_max, qd_max, qdd_max) -> dict[str, np.ndarray]:
    if not isinstance(traj, Trajectory):
        raise TypeError(f"traj must be a robidlib.trajectories.Trajectory, got {type(traj).__name__}")
    n = traj.n_joints
    given = {k: v for k, v in (("q_min", q_min), ("q_max", q_max), ("qd_max", qd_max), ("qdd_max", qdd_max))
             if v is not None}
    if not given:
        raise ValueError("no limit given: pass at least one of q_min, q_max, qd_max, qdd_max")
    out = {}
    for k, v in given.items():
        a = as_array(k, v, ndim=(0, 1), finite=False)
        if a.ndim == 1 and a.shape[0] != n:
            raise ValueError(f"{k} must be a scalar or have shape ({n},) (one per joint), got shape {a.shape}")
        if np.any(np.isnan(a)):
            raise ValueError(f"{k} must not contain NaN (use +-inf for an unlimited joint), got {a}")
        out[k] = np.broadcast_to(a, (n,)).astype(float)
    for k in ("qd_max", "qdd_max"):
        if k in out and np.any(out[k] <= 0):
            raise ValueError(f"{k} must be > 0 (a bound on the magnitude), got {out[k]}")
    if "q_min" in out and "q_max" in out and np.any(out["q_min"] >= out["q_max"]):
        raise ValueError(f"q_min must be below q_max for every joint, got q_min={out['q_min']}, q_max={out['q_max']}")
    return out


def limit_margins(
    traj: Trajectory,
    q_min: ArrayLike | None = None,
    q_max: ArrayLike | None = None,
    qd_max: ArrayLike | None = None,
    qdd_max: ArrayLike | None = None,
) -> np.ndarray:
    """Smallest distance to each given limit, per joint; all ``>= 0`` iff the limits hold.

    Suited to an inequality constraint ``c(x) >= 0`` of ``scipy.optimize.minimize``.

    Parameters
    ----------
    traj : Trajectory
        Sampled trajectory (limits are checked at its samples only).
    q_min, q_max : float or array_like, shape (n,), optional
        Position limits (``+-inf`` for an unlimited joint).
    qd_max, qdd_max : float or array_like, shape (n,), optional
        Bounds on ``|qd|`` and ``|qdd|``, ``> 0``.

    Returns
    -------
    numpy.ndarray, shape (k n,)
        Concatenation, for the ``k`` limits given and in the order
        ``q_min, q_max, qd_max, qdd_max``, of ``min_t(q - q_min)``, ``min_t(q_max - q)``,
        ``qd_max - max_t|qd|`` and ``qdd_max - max_t|qdd|`` (one entry per joint).

    Raises
    ------
    ValueError
        If no limit is given, a limit has the wrong length or is NaN, a magnitude bound
        is ``<= 0`` or ``q_min >= q_max``.
    TypeError
        If ``traj`` is not a :class:`Trajectory`.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.trajectories import quintic, limit_margins
    >>> traj = quintic(np.linspace(0, 1, 101), 0.0, 1.0, T=1.0)
    >>> np.round(limit_margins(traj, q_min=-0.5, q_max=2.0, qd_max=2.0), 3).tolist()
    [0.5, 1.0, 0.125]
    """
    lim = _limits(traj, q_min, q_max, qd_max, qdd_max)
    parts = []
    if "q_min" in lim:
        parts.append(traj.q.min(axis=0) - lim["q_min"])
    if "q_max" in lim:
        parts.append(lim["q_max"] - traj.q.max(axis=0))
    if "qd_max" in lim:
        parts.append(lim["qd_max"] - np.abs(traj.qd).max(axis=0))
    if "qdd_max" in lim:
        parts.append(lim["qdd_max"] - np.abs(traj.qdd).max(axis=0))
    return np.concatenate(parts)


def limits_violation(
    traj: Trajectory,
    q_min: ArrayLike | None = None,
    q_max: ArrayLike | None = None,
    qd_max: ArrayLike | None = None,
    qdd_max: ArrayLike | None = None,
) -> dict[str, np.ndarray]:
    """By how much each given limit is exceeded, per joint (0 where it holds).

    Parameters
    ----------
    traj, q_min, q_max, qd_max, qdd_max
        As in :func:`limit_margins`.

    Returns
    -------
    dict of str to numpy.ndarray, shape (n,)
        One entry per limit given (keys ``"q_min"``, ``"q_max"``, ``"qd_max"``,
        ``"qdd_max"``), each ``max(0, -margin)``.

    Raises
    ------
    ValueError, TypeError
        As in :func:`limit_margins`.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.trajectories import quintic, limits_violation
    >>> traj = quintic(np.linspace(0, 1, 101), 0.0, 1.0, T=1.0)   # peak velocity 1.875
    >>> {k: np.round(v, 3).tolist() for k, v in limits_violation(traj, q_max=0.8, qd_max=1.5).items()}
    {'q_max': [0.2], 'qd_max': [0.375]}
    """
    lim = _limits(traj, q_min, q_max, qd_max, qdd_max)
    margins = limit_margins(traj, **lim).reshape(len(lim), traj.n_joints)
    return {k: np.maximum(0.0, -m) for k, m in zip(lim, margins)}


def check_limits(
    traj: Trajectory,
    q_min: ArrayLike | None = None,
    q_max: ArrayLike | None = None,
    qd_max: ArrayLike | None = None,
    qdd_max: ArrayLike | None = None,
    name: str = "trajectory",
) -> None:
    """Raise a ``ValueError`` naming every joint and limit the trajectory violates.

    Parameters
    ----------
    traj, q_min, q_max, qd_max, qdd_max
        As in :func:`limit_margins`.
    name : str, default "trajectory"
        What to call the trajectory in the message (e.g. ``"the initial guess"``).

    Raises
    ------
    ValueError
        If a limit is violated (or the limits are invalid, as in :func:`limit_margins`).
    TypeError
        If ``traj`` is not a :class:`Trajectory`.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.trajectories import quintic, check_limits
    >>> traj = quintic(np.linspace(0, 1, 101), [0.0, 0.0], [1.0, 0.1], T=1.0)
    >>> check_limits(traj, qd_max=2.0)               # passes silently
    >>> check_limits(traj, qd_max=[1.0, 1.0], name="the initial guess")
    Traceback (most recent call last):
    ...
    ValueError: the initial guess violates its limits: joint 1 |qd| exceeds qd_max=1 by 0.875
    """
    check_text("name", name)
    viol = limits_violation(traj, q_min=q_min, q_max=q_max, qd_max=qd_max, qdd_max=qdd_max)
    lim = _limits(traj, q_min, q_max, qd_max, qdd_max)
    what = {"q_min": "q goes below q_min", "q_max": "q exceeds q_max", "qd_max": "|qd| exceeds qd_max",
            "qdd_max": "|qdd| exceeds qdd_max"}
    msgs = [
        f"joint {j + 1} {what[k]}={lim[k][j]:g} by {v[j]:.3g}"
        for k, v in viol.items() for j in np.flatnonzero(v > 0)
    ]
    if msgs:
        raise ValueError(f"{name} violates its limits: " + "; ".join(msgs))


# ----------------------------------------------------------------------------- excitation design
def _robot_n(robot: Any) -> int:
    if not all(hasattr(robot, a) for a in ("n", "param_names", "q_limits", "qd_limits", "qdd_limits")):
        raise TypeError(
            f"robot must be a robidlib.robot.SerialRobot (with n, param_names and joint limits), "
            f"got {type(robot).__name__}"
        )
    return int(robot.n)


def _resolve_limits(robot: Any, q_min, q_max, qd_max, qdd_max) -> dict[str, np.ndarray]:
    """Limits given explicitly, or else the robot's (``q_limits``, ``qd_limits``, ``qdd_limits``)."""
    n = _robot_n(robot)
    ql = np.asarray(robot.q_limits, dtype=float)
    given = {
        "q_min": ql[:, 0] if q_min is None else q_min,
        "q_max": ql[:, 1] if q_max is None else q_max,
        "qd_max": np.asarray(robot.qd_limits, dtype=float) if qd_max is None else qd_max,
        "qdd_max": np.asarray(robot.qdd_limits, dtype=float) if qdd_max is None else qdd_max,
    }
    dummy = Trajectory(np.zeros(1), np.zeros((1, n)), np.zeros((1, n)), np.zeros((1, n)))
    return _limits(dummy, **given)


def _period_grid(wf: float, n_points: int) -> np.ndarray:
    return np.linspace(0.0, 2 * np.pi / wf, n_points, endpoint=False)


def _max_scale(x: np.ndarray, n: int, L: int, B: tuple[np.ndarray, np.ndarray, np.ndarray],
               lim: dict[str, np.ndarray]) -> float:
    """Largest ``s >= 0`` such that scaling the harmonics of ``x`` by ``s`` (``q0`` kept) keeps
    the samples of ``B = (Bq, Bqd, Bqdd)`` within ``lim``; ``inf`` if no limit binds, 0 if
    the offsets ``q0`` themselves violate the position limits."""
    nm = 2 * n * L
    Bq, Bqd, Bqdd = B
    N = Bq.shape[0] // n
    off = Bq[:, nm:] @ x[nm:]
    dq, dqd, dqdd = Bq[:, :nm] @ x[:nm], Bqd[:, :nm] @ x[:nm], Bqdd[:, :nm] @ x[:nm]
    tile = lambda v: np.tile(v, N)  # noqa: E731  (sample-major, like the basis rows)
    lo, hi = tile(lim["q_min"]), tile(lim["q_max"])
    if np.any(off < lo) or np.any(off > hi):
        return 0.0
    bounds = [np.inf]
    with np.errstate(divide="ignore", invalid="ignore"):
        up, down = dq > 0, dq < 0
        bounds += list(((hi - off)[up] / dq[up])) + list(((lo - off)[down] / dq[down]))
        for d, key in ((dqd, "qd_max"), (dqdd, "qdd_max")):
            nz = d != 0
            bounds += list(tile(lim[key])[nz] / np.abs(d[nz]))
    return float(max(0.0, min(bounds)))


def random_fourier(
    robot: Any,
    wf: float,
    n_harmonics: int,
    rng: np.random.Generator | int,
    *,
    q_min: ArrayLike | None = None,
    q_max: ArrayLike | None = None,
    qd_max: ArrayLike | None = None,
    qdd_max: ArrayLike | None = None,
    fill: float = 0.8,
    n_grid: int | None = None,
) -> FourierTrajectory:
    """A random Fourier trajectory (:class:`FourierTrajectory`) that fits the joint limits.

    The coefficients ``a, b`` are drawn uniformly in ``[-1, 1]`` and ``q0`` is the centre of
    each joint's position range (0 for an unbounded joint); the harmonics are then scaled by
    ``fill`` times the largest factor that keeps every limit on a grid of ``n_grid`` samples
    per period, so that the trajectory uses a fraction ``fill`` of its tightest limit.
    Used as seeded starting points of :func:`optimize_excitation`.

    Parameters
    ----------
    robot : SerialRobot
        Supplies the number of joints and the default limits (``q_limits``, ``qd_limits``,
        ``qdd_limits``).
    wf : float
        Base pulsation in rad/s, ``> 0``.
    n_harmonics : int
        Number of harmonics ``L >= 1``.
    rng : numpy.random.Generator or int
        Random generator or seed (``None`` is refused: draws must be reproducible).
    q_min, q_max, qd_max, qdd_max : float or array_like, shape (n,), optional
        Limits overriding the robot's (``+-inf`` for none).
    fill : float, default 0.8
        Fraction of the tightest limit used, ``0 < fill <= 1``.
    n_grid : int, optional
        Samples per period on which the limits are enforced; default ``max(200, 50 L)``.

    Returns
    -------
    FourierTrajectory

    Raises
    ------
    ValueError
        On invalid limits, ``fill`` outside ``(0, 1]``, or when every limit is infinite
        (nothing sets the amplitude).
    TypeError
        If ``robot`` is not a robot or ``rng`` is neither a Generator nor an int.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.robot import SerialRobot
    >>> from robidlib.trajectories import random_fourier, limit_margins
    >>> arm = SerialRobot.from_dh("RR", a=[0.0, 0.3], alpha=[0.0, 0.0], d=[0.0, 0.0])
    >>> ft = random_fourier(arm, wf=2 * np.pi / 5, n_harmonics=3, rng=0, fill=0.5)
    >>> traj = ft.evaluate(np.linspace(0.0, ft.period, 1000))
    >>> bool(np.all(limit_margins(traj, qd_max=arm.qd_limits, qdd_max=arm.qdd_limits) > 0))
    True
    """
    n = _robot_n(robot)
    wf = check_positive("wf", wf)
    L = _check_count("n_harmonics", n_harmonics)
    gen = check_rng(rng)
    fill = check_positive("fill", fill)
    if fill > 1:
        raise ValueError(f"fill must be in (0, 1] (a fraction of the tightest limit), got {fill}")
    lim = _resolve_limits(robot, q_min, q_max, qd_max, qdd_max)
    K = max(200, 50 * L) if n_grid is None else _check_count("n_grid", n_grid)
    lo, hi = lim["q_min"], lim["q_max"]
    with np.errstate(invalid="ignore"):  # inf - inf in the branches np.where does not pick
        q0 = np.where(np.isfinite(lo) & np.isfinite(hi), 0.5 * (lo + hi),
                      np.where(np.isfinite(lo), lo + 1.0, np.where(np.isfinite(hi), hi - 1.0, 0.0)))
    x = np.concatenate([gen.uniform(-1.0, 1.0, 2 * n * L), q0])
    s = _max_scale(x, n, L, fourier_basis(_period_grid(wf, K), wf, n, L), lim)
    if not np.isfinite(s):
        raise ValueError("every limit is infinite: give at least one finite limit to set the amplitude")
    x[: 2 * n * L] *= fill * s
    return FourierTrajectory.unpack(x, wf, n, L)


def _base_of(robot: Any, base: Any, friction: bool) -> Any:
    from .base import base_parameters  # the core is imported lazily: trajectories stays light

    p = 10 * robot.n + (2 * robot.n if friction else 0)
    if base is None:
        return base_parameters(robot, friction=friction, rng=0)
    if not (hasattr(base, "reduce") and hasattr(base, "n_params")):
        raise TypeError(f"base must be a robidlib.base.BaseParameters, got {type(base).__name__}")
    if base.n_params != p:
        raise ValueError(
            f"base must describe the robot's {p} standard parameters "
            f"({10 * robot.n} inertial{' + ' + str(2 * robot.n) + ' friction' if friction else ''}), got "
            f"{base.n_params}; compute it with base_parameters(robot, friction=...) using the same friction flag"
        )
    check_same_robot("base", base, robot)
    return base


def _base_regressor(robot: Any, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray, base: Any,
                    friction: bool) -> np.ndarray:
    from .regressor import friction_regressor, regressor

    Y = regressor(robot, q, qd, qdd)
    if friction:
        Y = np.concatenate([Y, friction_regressor(qd)], axis=-1)
    return base.reduce(Y.reshape(-1, Y.shape[-1]))


#: Largest condition number reported; beyond it the base regressor is numerically singular.
_COND_CAP = 1e16


def _cond(W: np.ndarray, scaling: str) -> float:
    if scaling == "columns":
        norms = np.linalg.norm(W, axis=0)
        if np.any(norms == 0):
            return _COND_CAP
        W = W / norms
    s = np.linalg.svd(W, compute_uv=False)
    if s[-1] <= s[0] / _COND_CAP:
        return _COND_CAP
    return float(s[0] / s[-1])


def excitation_cond(
    robot: Any,
    traj: Trajectory,
    base: Any = None,
    friction: bool = False,
    scaling: str = "columns",
) -> float:
    """Condition number of the base regressor stacked along a trajectory.

    The regressor of the standard parameters (plus viscous and Coulomb friction columns
    when ``friction``) is evaluated at every sample, stacked (GUIDE) and reduced to the base
    parameters with ``base.reduce``.  With ``scaling="columns"`` each column is divided by
    its Euclidean norm first: the condition number of a regressor depends on the units of
    its parameters (kg, kg m, kg m^2, N m s/rad, ...), while that of the column-equilibrated
    matrix does not, and is within a factor ``sqrt(r)`` of the smallest condition number
    over all column scalings (:cite:t:`vandersluis1969`).  ``scaling="none"`` gives the raw one.

    Parameters
    ----------
    robot : SerialRobot
    traj : Trajectory
        Any sampled trajectory (quintic, Fourier, measured).
    base : BaseParameters, optional
        Base parameters to reduce to; default ``base_parameters(robot, friction=friction,
        rng=0)``.
    friction : bool, default False
        Append the friction columns ``fv1, fc1, ...``.
    scaling : {"columns", "none"}, default "columns"
        Column equilibration before the SVD.

    Returns
    -------
    float
        ``s_max / s_min`` of the (scaled) base regressor; ``1e16`` when it is numerically
        singular (the trajectory does not excite every base parameter).

    Raises
    ------
    ValueError
        Unknown ``scaling``, ``base`` for another parameter count, or a trajectory whose
        joint count differs from the robot's.
    TypeError
        If ``traj`` is not a :class:`Trajectory` or ``base`` is not a ``BaseParameters``.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.robot import SerialRobot
    >>> from robidlib.trajectories import excitation_cond, fourier_series, quintic
    >>> arm = SerialRobot.from_dh("RR", a=[0.0, 0.3], alpha=[0.0, 0.0], d=[0.0, 0.0],
    ...                           gravity=[0.0, -9.81, 0.0])
    >>> t = np.linspace(0.0, 5.0, 200)
    >>> slow = quintic(t, [0.0, 0.0], [0.5, 0.5], T=5.0)
    >>> rich = fourier_series(t, 2 * np.pi / 5, a=[[0.5, 0.3], [-0.4, 0.6]], b=[[0.2, 0.0], [0.1, -0.3]], q0=[0.3, -0.5])
    >>> bool(excitation_cond(arm, rich) < excitation_cond(arm, slow))
    True
    """
    if not isinstance(traj, Trajectory):
        raise TypeError(f"traj must be a robidlib.trajectories.Trajectory, got {type(traj).__name__}")
    n = _robot_n(robot)
    if traj.n_joints != n:
        raise ValueError(f"traj must have {n} joints (the robot's), got {traj.n_joints}")
    check_choice("scaling", scaling, ("columns", "none"))
    friction = _flag("friction", friction)
    base = _base_of(robot, base, friction)
    return _cond(_base_regressor(robot, traj.q, traj.qd, traj.qdd, base, friction), scaling)


def _logdet(W: np.ndarray, n_samples: int) -> float:
    """``log det(W'W / N)`` from the singular values; ``-inf`` when ``W`` is numerically singular."""
    s = np.linalg.svd(W, compute_uv=False)
    if s.size == 0 or s[-1] <= s[0] / _COND_CAP:
        return -np.inf
    return float(2.0 * np.sum(np.log(s)) - s.size * np.log(n_samples))


def excitation_logdet(
    robot: Any,
    traj: Trajectory,
    base: Any = None,
    friction: bool = False,
) -> float:
    """D-optimality of a trajectory: ``log det`` of the information matrix of the base parameters.

    With ``W_b`` the base regressor stacked along the ``N`` samples of ``traj`` (as in
    :func:`excitation_cond`, without column scaling), the information matrix of the base
    parameters per sample and unit noise variance is ``F = W_b' W_b / N``; its inverse is the
    covariance of least squares (times ``sigma^2 / N``). Maximising ``log det F`` (a
    D-optimal design :cite:`atkinson2007`) shrinks the volume of the confidence ellipsoid of
    all parameters at once, where the condition number only balances its longest and shortest
    axes. A change of units (a column scaling ``D``) adds ``2 log det D`` to every design alike,
    so, unlike the condition number, the criterion needs no scaling to compare designs.

    Parameters
    ----------
    robot : SerialRobot
    traj : Trajectory
    base : BaseParameters, optional
        Default ``base_parameters(robot, friction=friction, rng=0)``.
    friction : bool, default False
        Append the friction columns.

    Returns
    -------
    float
        ``log det F`` (natural logarithm); ``-inf`` when the trajectory does not excite every
        base parameter.

    Raises
    ------
    ValueError
        ``base`` for another parameter count, a trajectory with another joint count.
    TypeError
        If ``traj`` is not a :class:`Trajectory` or ``base`` not a ``BaseParameters``.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.robot import SerialRobot
    >>> from robidlib.trajectories import excitation_logdet, fourier_series
    >>> arm = SerialRobot.from_dh("RR", a=[0.0, 0.3], alpha=[0.0, 0.0], d=[0.0, 0.0],
    ...                           gravity=[0.0, -9.81, 0.0])
    >>> t = np.linspace(0.0, 5.0, 200)
    >>> small = fourier_series(t, 2 * np.pi / 5, a=[[0.2, 0.1], [-0.2, 0.3]], b=[[0.1, 0.0], [0.0, -0.1]],
    ...                        q0=[0.3, -0.5])
    >>> large = fourier_series(t, 2 * np.pi / 5, a=[[0.4, 0.2], [-0.4, 0.6]], b=[[0.2, 0.0], [0.0, -0.2]],
    ...                        q0=[0.3, -0.5])
    >>> bool(excitation_logdet(arm, large) > excitation_logdet(arm, small))   # more motion, more information
    True
    """
    if not isinstance(traj, Trajectory):
        raise TypeError(f"traj must be a robidlib.trajectories.Trajectory, got {type(traj).__name__}")
    n = _robot_n(robot)
    if traj.n_joints != n:
        raise ValueError(f"traj must have {n} joints (the robot's), got {traj.n_joints}")
    friction = _flag("friction", friction)
    base = _base_of(robot, base, friction)
    return _logdet(_base_regressor(robot, traj.q, traj.qd, traj.qdd, base, friction), traj.n_samples)


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


@dataclass(frozen=True, eq=False)
class ExcitationResult:
    """Result of :func:`optimize_excitation` or :func:`optimize_polynomial_excitation`.

    Attributes
    ----------
    trajectory : FourierTrajectory or PolynomialTrajectory
        The optimised trajectory (within the limits on the evaluation grid).
    initial : FourierTrajectory or PolynomialTrajectory
        The initial guess that was given.
    cond_initial, cond : float
        Condition number of the (scaled) base regressor of the initial guess and of the
        result, on the fine evaluation grid ``t_eval``.
    history : numpy.ndarray
        Condition number (on the optimisation grid) at the start, at every accepted SLSQP
        iterate and at the end of the start that won.
    start_conds : numpy.ndarray, shape (n_starts,)
        Final condition number (evaluation grid) of every start; start 0 is ``initial``.
    best_start : int
        Index of the start that won.
    success : bool
        Whether the winning SLSQP run reported convergence.
    message : str
        Its message.
    nfev : int
        Objective evaluations over all starts.
    scaling : str
        ``"columns"`` or ``"none"`` (see :func:`excitation_cond`).
    base : BaseParameters
        The base parameters whose regressor was conditioned.
    t_eval : numpy.ndarray
        The evaluation grid (one period).
    info : dict
        ``n_grid``, ``n_constraint``, ``margin``, ``contraction`` (factor applied to the
        harmonics of the winner so that it holds the limits on ``t_eval``; 1 if none was
        needed), ``limits`` (the limits used).

    Raises
    ------
    TypeError, ValueError
        Fields of the wrong type or shape (``base`` not BaseParameters, a condition number
        below 1, empty histories...).
    """

    trajectory: Any
    initial: Any
    cond_initial: float
    cond: float
    history: np.ndarray
    start_conds: np.ndarray
    best_start: int
    success: bool
    message: str
    nfev: int
    scaling: str
    base: Any
    t_eval: np.ndarray
    info: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("trajectory", "initial"):
            if not isinstance(getattr(self, name), (FourierTrajectory, PolynomialTrajectory)):
                raise TypeError(f"{name} must be a FourierTrajectory or PolynomialTrajectory, got "
                                f"{type(getattr(self, name)).__name__}")
        for name in ("cond_initial", "cond"):
            v = check_positive(name, getattr(self, name))
            if v < 1.0:
                raise ValueError(f"{name} must be >= 1 (a condition number), got {v}")
            object.__setattr__(self, name, v)
        n = check_fields(self, history=("h",), start_conds=("s",), t_eval=("K",))
        for name, k in (("history", "h"), ("start_conds", "s"), ("t_eval", "K")):
            if n[k] == 0:
                raise ValueError(f"{name} must not be empty, got shape (0,)")
        object.__setattr__(self, "best_start", check_int("best_start", self.best_start, 0, n["s"] - 1))
        object.__setattr__(self, "success", check_flag("success", self.success))
        check_text("message", self.message)
        object.__setattr__(self, "nfev", check_int("nfev", self.nfev, 0))
        check_choice("scaling", self.scaling, ("columns", "none"))
        if not (hasattr(self.base, "reduce") and hasattr(self.base, "n_params")):
            raise TypeError(f"base must be a BaseParameters, got {type(self.base).__name__}")
        if not isinstance(self.info, dict):
            raise TypeError(f"info must be a dict, got {type(self.info).__name__}")

    @property
    def improvement(self) -> float:
        """``cond_initial / cond``."""
        return self.cond_initial / self.cond

    def __repr__(self) -> str:
        traj = self.trajectory
        family = (f"{traj.n_harmonics} harmonics" if isinstance(traj, FourierTrajectory)
                  else f"degree {traj.degree} polynomial")
        return (
            f"ExcitationResult(cond {self.cond_initial:.4g} -> {self.cond:.4g} "
            f"(x{self.improvement:.3g}), {self.trajectory.n_joints} joints, {family}, "
            f"start {self.best_start} of "
            f"{len(self.start_conds)}, success={self.success})"
        )


def _design_options(scaling, friction, n_starts, maxiter, ftol, margin, rng) -> tuple:
    """The options both excitation optimisers share, checked: ``(friction, n_starts, maxiter,
    ftol, margin, generator or None)``."""
    check_choice("scaling", scaling, ("columns", "none"))
    friction = _flag("friction", friction)
    n_starts = _check_count("n_starts", n_starts)
    maxiter = _check_count("maxiter", maxiter)
    ftol = check_tolerance("ftol", ftol)
    margin = check_nonnegative("margin", margin)
    if margin >= 1:
        raise ValueError(f"margin must be in [0, 1) (a relative tightening of the limits), got {margin}")
    if n_starts > 1 and rng is None:
        raise ValueError(f"n_starts={n_starts} random starts need a seed: pass rng (an int or a Generator)")
    return friction, n_starts, maxiter, ftol, margin, (check_rng(rng) if rng is not None else None)


def optimize_excitation(
    robot: Any,
    initial: FourierTrajectory,
    *,
    q_min: ArrayLike | None = None,
    q_max: ArrayLike | None = None,
    qd_max: ArrayLike | None = None,
    qdd_max: ArrayLike | None = None,
    base: Any = None,
    friction: bool = False,
    scaling: str = "columns",
    n_starts: int = 1,
    rng: np.random.Generator | int | None = None,
    n_grid: int | None = None,
    n_constraint: int | None = None,
    n_eval: int | None = None,
    margin: float = 0.02,
    maxiter: int = 100,
    ftol: float = 1e-6,
    criterion: str = "cond",
) -> ExcitationResult:
    """Fourier excitation that minimises the condition number of the base regressor (or maximises D-optimality).

    The design of Swevers et al. :cite:`swevers1997`: the trajectory is a finite Fourier
    series (:class:`FourierTrajectory`, periodic, so measurements can be averaged over
    periods), and its coefficients ``x = [a, b, q0]`` are chosen to

    ``minimise log cond(W_b(x) D(x))  subject to  q_min <= q <= q_max, |qd| <= qd_max,
    |qdd| <= qdd_max``

    where ``W_b`` is the base regressor stacked over one period (:func:`excitation_cond`)
    and ``D`` the column scaling.  The trajectory is linear in ``x``
    (:func:`fourier_basis`), so on a time grid the limits are *linear* inequalities
    ``A x >= c`` with an exact Jacobian; the objective is minimised by SLSQP
    (``scipy.optimize.minimize``) with forward-difference gradients.

    Three grids over one period keep it fast and safe: the objective uses ``n_grid``
    samples (the condition number needs few), the limits ``n_constraint`` samples
    tightened by the relative ``margin`` (the trajectory can overshoot slightly between
    samples), and the reported condition numbers and the final limit check use ``n_eval``
    samples.  Should the result still exceed a limit on that fine grid, its harmonics are
    scaled down (about ``q0``) by the smallest factor that restores every limit, and the
    factor is reported in ``info["contraction"]``.

    Optimisation starts from ``initial`` and, when ``n_starts > 1``, from ``n_starts - 1``
    random trajectories of :func:`random_fourier` drawn from ``rng`` (multi-start: the
    problem is not convex); the best result wins.  Equal seeds give equal results.

    Parameters
    ----------
    robot : SerialRobot
        The robot (its kinematics, gravity and default limits are used, not its masses).
    initial : FourierTrajectory
        Initial guess; it fixes the base pulsation ``wf`` and the number of harmonics.  It
        must hold the limits and excite every base parameter.
    q_min, q_max, qd_max, qdd_max : float or array_like, shape (n,), optional
        Joint limits; by default the robot's ``q_limits``, ``qd_limits`` and
        ``qdd_limits``.  ``+-inf`` means unlimited.
    base : BaseParameters, optional
        Default ``base_parameters(robot, friction=friction, rng=0)``.
    friction : bool, default False
        Include the viscous and Coulomb friction columns in the regressor.
    scaling : {"columns", "none"}, default "columns"
        Condition number of the column-equilibrated (unit-free) or raw base regressor.
    n_starts : int, default 1
        Number of starts (the first is ``initial``).
    rng : numpy.random.Generator or int, optional
        Generator or seed of the random starts; required when ``n_starts > 1``.
    n_grid, n_constraint, n_eval : int, optional
        Samples per period of the objective (default ``max(30, 8 L)``), of the limits
        (default ``max(60, 15 L)``) and of the evaluation (default ``max(500, 100 L)``).
    margin : float, default 0.02
        Relative tightening of the limits on the constraint grid, ``0 <= margin < 1``.
        With ``15 L`` samples per period a harmonic overshoots its sampled peak by at
        most ``1 - cos(pi / 15) = 2.2 %``.
    maxiter : int, default 100
        SLSQP iterations per start.
    ftol : float, default 1e-6
        SLSQP tolerance on the objective (``log cond``).
    criterion : {"cond", "logdet"}, default "cond"
        ``"cond"``: minimise ``log cond`` as above; ``"logdet"``: maximise the D-optimality
        :func:`excitation_logdet` (the objective is ``-log det(W_b' W_b / N)`` on the
        optimisation grid; ``scaling`` then only affects the reported condition numbers).
        Either way the result is never worse than its start by its own criterion.

    Returns
    -------
    ExcitationResult
        Optimised trajectory, condition numbers before and after, history (of the criterion's
        objective: the condition number, or ``-log det``); ``info["criterion"]``,
        ``info["logdet_initial"]`` and ``info["logdet"]`` (on the evaluation grid).

    Raises
    ------
    ValueError
        If the initial guess violates a limit (the message names the joints and limits),
        its base regressor is singular, a limit is invalid, ``base`` is for another
        parameter count, ``n_starts > 1`` without ``rng``, ``margin`` not in ``[0, 1)``.
    TypeError
        If ``initial`` is not a :class:`FourierTrajectory` or has the wrong joint count
        type, ``robot`` is not a robot, ``rng`` is not a Generator or an int.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.robot import SerialRobot
    >>> from robidlib.trajectories import FourierTrajectory, optimize_excitation
    >>> arm = SerialRobot.from_dh("RR", a=[0.0, 0.3], alpha=[0.0, 0.0], d=[0.0, 0.0],
    ...                           gravity=[0.0, -9.81, 0.0])
    >>> guess = FourierTrajectory(2 * np.pi / 5, a=[[0.3, 0.1], [0.2, 0.1]],
    ...                           b=[[0.0, 0.1], [0.1, 0.0]], q0=[0.0, 0.5])
    >>> res = optimize_excitation(arm, guess, maxiter=30)
    >>> bool(res.cond < res.cond_initial)
    True
    """
    n = _robot_n(robot)
    if not isinstance(initial, FourierTrajectory):
        raise TypeError(
            f"initial must be a robidlib.trajectories.FourierTrajectory (the family optimised), "
            f"got {type(initial).__name__}"
        )
    if initial.n_joints != n:
        raise ValueError(f"initial must have {n} joints (the robot's), got {initial.n_joints}")
    friction, n_starts, maxiter, ftol, margin, gen = _design_options(scaling, friction, n_starts, maxiter, ftol,
                                                                     margin, rng)
    check_choice("criterion", criterion, ("cond", "logdet"))
    lim = _resolve_limits(robot, q_min, q_max, qd_max, qdd_max)
    base = _base_of(robot, base, friction)
    wf, L = initial.wf, initial.n_harmonics
    K_obj = max(30, 8 * L) if n_grid is None else _check_count("n_grid", n_grid)
    K_con = max(60, 15 * L) if n_constraint is None else _check_count("n_constraint", n_constraint)
    K_eval = max(500, 100 * L) if n_eval is None else _check_count("n_eval", n_eval)
    t_eval = _period_grid(wf, K_eval)
    B_eval = fourier_basis(t_eval, wf, n, L)

    # the initial guess must be admissible: within the limits and exciting every base parameter
    check_limits(initial.evaluate(t_eval), name="the initial guess", **lim)

    def cond_on(x: np.ndarray, B: tuple[np.ndarray, np.ndarray, np.ndarray]) -> float:
        q, qd, qdd = ((Bk @ x).reshape(-1, n) for Bk in B)
        return _cond(_base_regressor(robot, q, qd, qdd, base, friction), scaling)

    def logdet_on(x: np.ndarray, B: tuple[np.ndarray, np.ndarray, np.ndarray]) -> float:
        q, qd, qdd = ((Bk @ x).reshape(-1, n) for Bk in B)
        return _logdet(_base_regressor(robot, q, qd, qdd, base, friction), q.shape[0])

    def merit(x: np.ndarray, B: tuple[np.ndarray, np.ndarray, np.ndarray]) -> float:
        """What the criterion minimises: ``cond`` or ``-log det`` (``inf`` when singular)."""
        return cond_on(x, B) if criterion == "cond" else -logdet_on(x, B)

    cond0 = cond_on(initial.pack(), B_eval)
    if cond0 >= _COND_CAP:
        raise ValueError(
            "the initial guess does not excite every base parameter (its base regressor is "
            "singular); start from a richer trajectory, e.g. random_fourier(...)"
        )

    # linear limits on the constraint grid: A x - c >= 0
    Bq, Bqd, Bqdd = fourier_basis(_period_grid(wf, K_con), wf, n, L)
    tile = lambda v: np.tile(v, K_con)  # noqa: E731
    half = 0.5 * (lim["q_max"] - lim["q_min"])
    mid = 0.5 * (lim["q_max"] + lim["q_min"])
    both = np.isfinite(half)
    q_hi = np.where(both, mid + (1 - margin) * half, lim["q_max"])
    q_lo = np.where(both, mid - (1 - margin) * half, lim["q_min"])
    rows, rhs = [], []
    for Bk, lo, hi in ((Bq, q_lo, q_hi), (Bqd, -(1 - margin) * lim["qd_max"], (1 - margin) * lim["qd_max"]),
                       (Bqdd, -(1 - margin) * lim["qdd_max"], (1 - margin) * lim["qdd_max"])):
        lo, hi = tile(lo), tile(hi)
        up, dn = np.isfinite(hi), np.isfinite(lo)
        rows += [-Bk[up], Bk[dn]]
        rhs += [-hi[up], lo[dn]]
    A, c = np.vstack(rows), np.concatenate(rhs)
    constraints = [{"type": "ineq", "fun": lambda x: A @ x - c, "jac": lambda x: A}] if A.shape[0] else []

    # objective samples offset by half a step: a symmetric guess (b = 0) has qd = 0 exactly
    # at t = T/4, where the finite-difference steps would flip the Coulomb column sign(qd)
    B_obj = fourier_basis(_period_grid(wf, K_obj) + np.pi / (wf * K_obj), wf, n, L)
    nfev = [0]

    def objective(x: np.ndarray) -> float:
        nfev[0] += 1
        if criterion == "logdet":
            v = -logdet_on(x, B_obj)
            return float(v) if np.isfinite(v) else 1e6
        return float(np.log(cond_on(x, B_obj)))

    starts = [initial.pack()]
    for _ in range(n_starts - 1):
        starts.append(random_fourier(robot, wf, L, gen, n_grid=K_eval, **lim).pack())

    def gradient(x: np.ndarray, hist: list) -> np.ndarray:
        # forward differences; SLSQP asks for a gradient only at accepted iterates, so this
        # is also where the history is recorded (its callback may see line-search trials)
        f0 = objective(x)
        hist.append(float(np.exp(f0)) if criterion == "cond" else float(f0))
        g = np.empty_like(x)
        for i in range(x.size):
            xp = x.copy()
            xp[i] += 1.5e-8 * max(1.0, abs(x[i]))
            g[i] = (objective(xp) - f0) / (xp[i] - x[i])
        return g

    best = None
    finals = []
    for k, x0 in enumerate(starts):
        hist: list[float] = []
        res = scipy.optimize.minimize(
            objective, x0, jac=lambda x, h=hist: gradient(x, h), method="SLSQP",
            constraints=constraints, options={"maxiter": maxiter, "ftol": ftol},
        )
        x = res.x
        hist.append(float(np.exp(res.fun)) if criterion == "cond" else float(res.fun))
        # the result must hold the limits on the fine grid: contract the harmonics if needed
        s = _max_scale(x, n, L, B_eval, lim)
        contraction = 1.0
        if s < 1.0:
            contraction = s * (1 - 1e-9)
            x = np.concatenate([x[: 2 * n * L] * contraction, x[2 * n * L:]])
        m_x, m_start = merit(x, B_eval), merit(x0, B_eval)
        if not m_x <= m_start:  # never return something worse than the start
            x, m_x, contraction = x0, m_start, 1.0
        finals.append(cond_on(x, B_eval))
        if best is None or m_x < best[1]:
            best = (x, m_x, k, res, np.array(hist), contraction)
    x, _, k_best, res_best, hist_best, contraction = best
    cond_best = cond_on(x, B_eval)
    return ExcitationResult(
        trajectory=FourierTrajectory.unpack(x, wf, n, L),
        initial=initial,
        cond_initial=cond0,
        cond=cond_best,
        history=hist_best,
        start_conds=np.array(finals),
        best_start=k_best,
        success=bool(res_best.success),
        message=str(res_best.message),
        nfev=nfev[0],
        scaling=scaling,
        base=base,
        t_eval=t_eval,
        info={"n_grid": K_obj, "n_constraint": K_con, "n_eval": K_eval, "margin": margin,
              "contraction": contraction, "limits": lim, "criterion": criterion,
              "logdet_initial": logdet_on(initial.pack(), B_eval), "logdet": logdet_on(x, B_eval)},
    )


# --- stored excitations ---------------------------------------------------------------------
# An optimised excitation is the result of a truncated, multi-start optimisation whose last
# digits depend on the CPU, the BLAS kernel and the library versions. The chapters and
# benchmarks therefore *load* the trajectories they rely on from robidlib's package data
# (computed once, with the recipe recorded in the file), and a unit test re-runs the recipe
# and checks that it still reaches a trajectory at least as good.

EXCITATION_DIR = Path(__file__).resolve().parent / "data" / "excitations"
_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789_-")


def _excitation_path(name: str, directory: Any) -> Path:
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    if not name or not set(name) <= _NAME_CHARS:
        raise ValueError(f"name must be non-empty lower-case letters, digits, '_' or '-', got {name!r}")
    return _excitation_dir(directory) / f"{name}.json"


def _excitation_dir(directory: Any) -> Path:
    """The store folder: ``directory`` (a path) or, for the readers, the package's own."""
    if directory is None:
        return Path(EXCITATION_DIR)
    if not isinstance(directory, (str, os.PathLike)):
        raise TypeError(f"directory must be a path (str or os.PathLike), got {type(directory).__name__}")
    return Path(directory)


def _fourier_doc(traj: FourierTrajectory) -> dict:
    return {"wf": float(traj.wf), "a": traj.a.tolist(), "b": traj.b.tolist(), "q0": traj.q0.tolist()}


def _fourier_from(doc: dict) -> FourierTrajectory:
    return FourierTrajectory(wf=doc["wf"], a=doc["a"], b=doc["b"], q0=doc["q0"])


def save_excitation(
    trajectory: Any, name: str, *, directory: str | os.PathLike, meta: dict | None = None, overwrite: bool = False
) -> Path:
    """Store an excitation as JSON (coefficients, plus what made it) and return the path.

    The file is ``directory/name.json``. Nothing is written into the installed robidlib
    package (its stored excitations are made in the project's source tree by
    ``tools/store_excitations.py``), no folder is created and no file replaced unasked (see
    :mod:`robidlib._io`).

    Parameters
    ----------
    trajectory : FourierTrajectory or PolynomialTrajectory
        The trajectory to store.
    name : str
        File stem (lower-case letters, digits, ``_``, ``-``).
    directory : str or os.PathLike
        An existing folder to write to (no default: robidlib writes only where you say).
    meta : dict, optional
        JSON-serialisable description: the robot, the recipe that produced it (function and
        arguments), the condition number reached, the robidlib version.
    overwrite : bool, default False
        Replace an existing ``name.json``.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    TypeError
        If ``trajectory`` is neither a :class:`FourierTrajectory` nor a
        :class:`PolynomialTrajectory`, ``meta`` not a dict, ``directory`` not a path or
        ``overwrite`` not a bool.
    ValueError
        If ``name`` is not a valid file stem, ``meta`` is not JSON-serialisable, or
        ``directory`` is inside the installed robidlib package.
    FileExistsError
        If the file exists and ``overwrite`` is False.
    FileNotFoundError
        If ``directory`` does not exist.
    """
    import json

    from ._io import destination, write_text

    if isinstance(trajectory, FourierTrajectory):
        doc = {"format": "robidlib-fourier-excitation/1", "name": name, **_fourier_doc(trajectory)}
    elif isinstance(trajectory, PolynomialTrajectory):
        per = trajectory.periodic
        doc = {"format": "robidlib-polynomial-excitation/1", "name": name, "T": float(trajectory.T),
               "c": trajectory.c.tolist(), "periodic": None if per is None else _fourier_doc(per)}
    else:
        raise TypeError(
            f"trajectory must be a FourierTrajectory or a PolynomialTrajectory, got {type(trajectory).__name__}"
        )
    if meta is not None and not isinstance(meta, dict):
        raise TypeError(f"meta must be a dict, got {type(meta).__name__}")
    destination(directory, "directory")           # given, a path, not inside the installed package
    path = _excitation_path(name, directory)
    doc["meta"] = meta or {}
    try:
        text = json.dumps(doc, indent=1, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"meta must be JSON-serialisable finite data: {exc}") from None
    return write_text(path, text + "\n", overwrite=overwrite)


def load_excitation(name: str, *, directory: Any = None) -> tuple[Any, dict]:
    """Load a stored excitation: ``(trajectory, meta)``.

    Parameters
    ----------
    name : str
        File stem of the stored excitation (see :func:`stored_excitations`).
    directory : path-like, optional
        Where to look; default robidlib's package data.

    Returns
    -------
    (FourierTrajectory or PolynomialTrajectory, dict)
        The trajectory and the description stored with it (recipe, robot, condition number).

    Raises
    ------
    ValueError
        If no such excitation is stored (the message lists those that are) or the file is not a
        stored excitation.

    Examples
    --------
    >>> import tempfile
    >>> from robidlib.trajectories import FourierTrajectory, load_excitation, save_excitation
    >>> ft = FourierTrajectory(wf=1.0, a=[[0.5, 0.2]], b=[[0.0, -0.1]], q0=[0.3])
    >>> d = tempfile.mkdtemp()
    >>> _ = save_excitation(ft, "demo", meta={"robot": "one joint"}, directory=d)
    >>> ft2, meta = load_excitation("demo", directory=d)
    >>> bool((ft2.pack() == ft.pack()).all()), meta["robot"]
    (True, 'one joint')
    """
    import json

    path = _excitation_path(name, directory)
    if not path.exists():
        raise ValueError(f"no stored excitation {name!r} in {path.parent}; stored: {stored_excitations(directory=directory)}")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        fmt = doc.get("format")
        if fmt == "robidlib-fourier-excitation/1":
            traj = _fourier_from(doc)
        elif fmt == "robidlib-polynomial-excitation/1":
            per = None if doc["periodic"] is None else _fourier_from(doc["periodic"])
            traj = PolynomialTrajectory(doc["T"], doc["c"], per)
        else:
            raise KeyError("format")
    except (KeyError, TypeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path} is not a stored robidlib excitation ({exc})") from None
    return traj, dict(doc.get("meta", {}))


def stored_excitations(*, directory: Any = None) -> list[str]:
    """Names of the stored excitations (sorted).

    Examples
    --------
    >>> import tempfile
    >>> from robidlib.trajectories import stored_excitations
    >>> stored_excitations(directory=tempfile.mkdtemp())
    []
    """
    d = _excitation_dir(directory)
    return sorted(p.stem for p in d.glob("*.json")) if d.is_dir() else []


# --- polynomial excitation (Urrea and Pascal 2017, eq. 39) ----------------------------------
@dataclass(frozen=True, eq=False)
class PolynomialTrajectory:
    """A polynomial per joint over one window ``[0, T]``, plus an optional Fourier part.

    The excitation design of Urrea and Pascal :cite:`urrea2017` (their eq. 39) drives each
    revolute joint with a fifth-degree polynomial ``q_i(t) = a_0i + a_1i t + ... + a_5i t^5``
    and the prismatic joints with sinusoids. This class holds both: joint ``i`` moves as::

        q_i(t) = sum_k c_ik (t / T)^k  +  periodic_i(t)

    The coefficients ``c`` are those of the normalised time ``s = t / T`` in ``[0, 1]`` (all
    in rad or m, so an optimiser sees them on one scale); :meth:`monomials` gives the
    paper's ``a_ki = c_ik / T^k``. ``periodic`` is a :class:`FourierTrajectory` (for the
    sinusoids of the prismatic joints; zero coefficients elsewhere) or ``None``.

    Unlike a Fourier series the motion is not periodic: ``q(T) != q(0)`` in general, so the
    window cannot be repeated without a jump, and its spectrum is not band-limited.

    Parameters
    ----------
    T : float
        Duration of the window in s, ``> 0``.
    c : array_like, shape (n, d + 1)
        Coefficients of ``s^0 .. s^d`` per joint (``d >= 1``).
    periodic : FourierTrajectory, optional
        Added periodic motion with ``n`` joints.

    Raises
    ------
    ValueError
        On non-finite values, ``T <= 0``, a degree below 1 or a ``periodic`` part with
        another joint count.
    TypeError
        If ``periodic`` is not a :class:`FourierTrajectory`.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.trajectories import PolynomialTrajectory
    >>> pt = PolynomialTrajectory(2.0, c=[[0.0, 1.0, 0.0, 0.0, 0.0, 0.0]])   # q = t / 2
    >>> q, qd, qdd = pt.evaluate([0.0, 1.0, 2.0])
    >>> q[:, 0].tolist(), qd[:, 0].tolist()
    ([0.0, 0.5, 1.0], [0.5, 0.5, 0.5])
    >>> pt.monomials()[0, :2].tolist()                # a_0, a_1 of q = a_0 + a_1 t + ...
    [0.0, 0.5]
    """

    T: float
    c: np.ndarray
    periodic: FourierTrajectory | None = None

    def __post_init__(self) -> None:
        T = check_positive("T", self.T)
        c = as_array("c", self.c, ndim=2)
        if c.shape[0] == 0 or c.shape[1] < 2:
            raise ValueError(f"c must have shape (n, d + 1) with n >= 1 and degree d >= 1, got {c.shape}")
        if self.periodic is not None:
            if not isinstance(self.periodic, FourierTrajectory):
                raise TypeError(f"periodic must be a FourierTrajectory or None, got {type(self.periodic).__name__}")
            if self.periodic.n_joints != c.shape[0]:
                raise ValueError(
                    f"periodic must have {c.shape[0]} joints (the rows of c), got {self.periodic.n_joints}"
                )
        object.__setattr__(self, "T", T)
        object.__setattr__(self, "c", c)

    @property
    def n_joints(self) -> int:
        """Number of joints ``n``."""
        return int(self.c.shape[0])

    @property
    def degree(self) -> int:
        """Polynomial degree ``d``."""
        return int(self.c.shape[1] - 1)

    @property
    def n_params(self) -> int:
        """Length of the packed vector, ``n (d + 1)``."""
        return int(self.c.size)

    @property
    def period(self) -> float:
        """Length of the window ``T`` in s (the motion is not periodic)."""
        return self.T

    def pack(self) -> np.ndarray:
        """Parameter vector ``c.ravel()`` (joint by joint)."""
        return self.c.ravel().copy()

    def with_coefficients(self, x: ArrayLike) -> "PolynomialTrajectory":
        """The same window and periodic part with the packed coefficients ``x``."""
        x = as_array("x", x, ndim=1)
        if x.shape[0] != self.n_params:
            raise ValueError(f"x must have length n (d + 1) = {self.n_params}, got {x.shape[0]}")
        return PolynomialTrajectory(self.T, x.reshape(self.c.shape), self.periodic)

    def monomials(self) -> np.ndarray:
        """Coefficients ``a_ki`` of ``q_i = sum_k a_ki t^k`` (time in s), shape ``(n, d + 1)``."""
        return self.c / self.T ** np.arange(self.degree + 1)

    def evaluate(self, t: ArrayLike) -> Trajectory:
        """Positions, velocities and accelerations at times ``t`` in ``[0, T]``."""
        t = _time(t)
        tol = 1e-9 * self.T
        if np.any(t < -tol) or np.any(t > self.T + tol):
            raise ValueError(f"t must lie in [0, T] = [0, {self.T:g}] s, got range {t.min():g} .. {t.max():g} s")
        Bq, Bqd, Bqdd = polynomial_basis(t, self.T, self.n_joints, self.degree)
        x = self.pack()
        q, qd, qdd = ((B @ x).reshape(-1, self.n_joints) for B in (Bq, Bqd, Bqdd))
        if self.periodic is not None:
            p = self.periodic.evaluate(t)
            q, qd, qdd = q + p.q, qd + p.qd, qdd + p.qdd
        return Trajectory(t, q, qd, qdd)


def polynomial_basis(
    t: ArrayLike, T: float, n_joints: int, degree: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Matrices of the linear map from packed polynomial coefficients to ``q, qd, qdd``.

    With ``x = PolynomialTrajectory.pack()`` (no periodic part) and the GUIDE's sample-major
    stacking, ``q.ravel() = Bq @ x`` and so on: joint limits on a time grid are linear
    constraints on ``x``, as for :func:`fourier_basis`.

    Parameters
    ----------
    t : array_like, shape (N,)
        Sample times in s.
    T : float
        Window length in s (the normalised time is ``s = t / T``).
    n_joints : int
    degree : int
        Polynomial degree ``d >= 1``.

    Returns
    -------
    tuple of numpy.ndarray, each shape (N n, n (d + 1))
        ``Bq, Bqd, Bqdd``.

    Raises
    ------
    ValueError
        On non-finite ``t``, ``T <= 0`` or counts below 1.

    Examples
    --------
    >>> from robidlib.trajectories import polynomial_basis
    >>> Bq, Bqd, Bqdd = polynomial_basis([0.0, 1.0], 2.0, n_joints=1, degree=2)
    >>> Bq.tolist(), Bqd.tolist(), Bqdd.tolist()
    ([[1.0, 0.0, 0.0], [1.0, 0.5, 0.25]], [[0.0, 0.5, 0.0], [0.0, 0.5, 0.5]], [[0.0, 0.0, 0.5], [0.0, 0.0, 0.5]])
    """
    t = _time(t)
    T = check_positive("T", T)
    n = _check_count("n_joints", n_joints)
    d = _check_count("degree", degree)
    s = t / T
    k = np.arange(d + 1)
    P = s[:, None] ** k
    dP = np.zeros_like(P)
    dP[:, 1:] = k[1:] * s[:, None] ** (k[1:] - 1) / T
    ddP = np.zeros_like(P)
    if d >= 2:
        ddP[:, 2:] = k[2:] * (k[2:] - 1) * s[:, None] ** (k[2:] - 2) / T**2
    eye = np.eye(n)
    # row (sample m, joint i), column (joint j, power k): nonzero only for j == i
    return tuple(np.einsum("ij,mk->mijk", eye, B).reshape(t.shape[0] * n, n * (d + 1)) for B in (P, dP, ddP))


def _free_joints(free: Any, n: int) -> np.ndarray:
    if free is None:
        return np.arange(n)
    idx = np.asarray(free)
    if idx.ndim != 1 or idx.size == 0 or not np.issubdtype(idx.dtype, np.integer):
        raise ValueError(f"free must be a non-empty sequence of joint indices (ints), got {free!r}")
    if np.any(idx < 0) or np.any(idx >= n) or len(set(idx.tolist())) != idx.size:
        raise ValueError(f"free must hold distinct joint indices in 0..{n - 1}, got {idx.tolist()}")
    return np.sort(idx)


def _poly_scale(off: np.ndarray, dq: np.ndarray, dqd: np.ndarray, dqdd: np.ndarray,
                lim: dict[str, np.ndarray], N: int) -> float:
    """Largest ``s >= 0`` with ``off + s dq`` (and ``s dqd``, ``s dqdd`` plus the fixed parts in
    ``off``) inside ``lim``; the arrays are stacked sample-major like the basis rows."""
    tile = lambda v: np.tile(v, N)  # noqa: E731
    lo, hi = tile(lim["q_min"]), tile(lim["q_max"])
    q0, qd0, qdd0 = off
    if np.any(q0 < lo) or np.any(q0 > hi) or np.any(np.abs(qd0) > tile(lim["qd_max"])) \
            or np.any(np.abs(qdd0) > tile(lim["qdd_max"])):
        return 0.0
    bounds = [np.inf]
    with np.errstate(divide="ignore", invalid="ignore"):
        for base_, d, lo_, hi_ in ((q0, dq, lo, hi), (qd0, dqd, -tile(lim["qd_max"]), tile(lim["qd_max"])),
                                   (qdd0, dqdd, -tile(lim["qdd_max"]), tile(lim["qdd_max"]))):
            up, down = d > 0, d < 0
            bounds += list((hi_ - base_)[up] / d[up]) + list((lo_ - base_)[down] / d[down])
    return float(max(0.0, min(bounds)))


def random_polynomial(
    robot: Any,
    T: float,
    rng: np.random.Generator | int,
    *,
    degree: int = 5,
    free: Sequence[int] | None = None,
    periodic: FourierTrajectory | None = None,
    q_min: ArrayLike | None = None,
    q_max: ArrayLike | None = None,
    qd_max: ArrayLike | None = None,
    qdd_max: ArrayLike | None = None,
    fill: float = 0.8,
    n_grid: int = 200,
) -> PolynomialTrajectory:
    """A random :class:`PolynomialTrajectory` that fits the joint limits.

    The joints in ``free`` get coefficients ``c_ik`` (``k >= 1``) drawn uniformly in
    ``[-1, 1]`` about the centre of their position range (``c_i0``), scaled by ``fill`` times
    the largest factor that keeps every limit on ``n_grid`` samples of ``[0, T]``; the other
    joints keep a zero polynomial and move with ``periodic`` only. Seeded starts of
    :func:`optimize_polynomial_excitation`.

    Parameters
    ----------
    robot : SerialRobot
    T : float
        Window length in s.
    rng : numpy.random.Generator or int
    degree : int, default 5
    free : sequence of int, optional
        Joints that get a polynomial (default all).
    periodic : FourierTrajectory, optional
        Fixed periodic motion added to every joint (the prismatic sinusoids of the paper).
    q_min, q_max, qd_max, qdd_max : float or array_like, optional
        Limits overriding the robot's.
    fill : float, default 0.8
        Fraction of the tightest limit used, in (0, 1].
    n_grid : int, default 200

    Returns
    -------
    PolynomialTrajectory

    Raises
    ------
    ValueError
        Invalid limits, ``fill`` outside (0, 1], bad ``free``, or a ``periodic`` part that
        alone violates the limits.
    TypeError
        Bad ``robot`` or ``rng``, a ``periodic`` that is not a FourierTrajectory.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.robot import SerialRobot
    >>> from robidlib.trajectories import random_polynomial, limit_margins
    >>> arm = SerialRobot.from_dh("RR", a=[0.0, 0.3], alpha=[0.0, 0.0], d=[0.0, 0.0])
    >>> pt = random_polynomial(arm, T=5.0, rng=0, fill=0.5)
    >>> traj = pt.evaluate(np.linspace(0.0, 5.0, 500))
    >>> bool(np.all(limit_margins(traj, qd_max=arm.qd_limits, qdd_max=arm.qdd_limits) > 0))
    True
    """
    n = _robot_n(robot)
    T = check_positive("T", T)
    d = _check_count("degree", degree)
    gen = check_rng(rng)
    fill = check_positive("fill", fill)
    if fill > 1:
        raise ValueError(f"fill must be in (0, 1] (a fraction of the tightest limit), got {fill}")
    if periodic is not None and not isinstance(periodic, FourierTrajectory):
        raise TypeError(f"periodic must be a FourierTrajectory or None, got {type(periodic).__name__}")
    idx = _free_joints(free, n)
    lim = _resolve_limits(robot, q_min, q_max, qd_max, qdd_max)
    K = _check_count("n_grid", n_grid)
    t = np.linspace(0.0, T, K)
    lo, hi = lim["q_min"], lim["q_max"]
    with np.errstate(invalid="ignore"):
        mid = np.where(np.isfinite(lo) & np.isfinite(hi), 0.5 * (lo + hi),
                       np.where(np.isfinite(lo), lo + 1.0, np.where(np.isfinite(hi), hi - 1.0, 0.0)))
    c = np.zeros((n, d + 1))
    c[idx, 0] = mid[idx]
    if periodic is not None:
        c[idx, 0] -= periodic.q0[idx]
    dc = np.zeros_like(c)
    dc[idx, 1:] = gen.uniform(-1.0, 1.0, (idx.size, d))
    Bq, Bqd, Bqdd = polynomial_basis(t, T, n, d)
    fixed = [B @ c.ravel() for B in (Bq, Bqd, Bqdd)]
    if periodic is not None:
        p = periodic.evaluate(t)
        fixed = [f + v.ravel() for f, v in zip(fixed, (p.q, p.qd, p.qdd))]
    s = _poly_scale(fixed, Bq @ dc.ravel(), Bqd @ dc.ravel(), Bqdd @ dc.ravel(), lim, K)
    if s == 0.0:
        raise ValueError("the fixed part of the motion (periodic part, range centres) already violates the limits")
    if not np.isfinite(s):
        raise ValueError("every limit is infinite: give at least one finite limit to set the amplitude")
    return PolynomialTrajectory(T, c + fill * s * dc, periodic)


def optimize_polynomial_excitation(
    robot: Any,
    initial: PolynomialTrajectory,
    *,
    free: Sequence[int] | None = None,
    q_min: ArrayLike | None = None,
    q_max: ArrayLike | None = None,
    qd_max: ArrayLike | None = None,
    qdd_max: ArrayLike | None = None,
    base: Any = None,
    friction: bool = False,
    scaling: str = "columns",
    n_starts: int = 1,
    rng: np.random.Generator | int | None = None,
    n_grid: int = 60,
    n_constraint: int = 100,
    n_eval: int = 500,
    margin: float = 0.02,
    maxiter: int = 100,
    ftol: float = 1e-6,
) -> ExcitationResult:
    """Minimise the condition number of the base regressor over polynomial coefficients.

    The design of Urrea and Pascal :cite:`urrea2017` (their eq. 39): the coefficients of a
    polynomial per joint in ``free`` (the revolute joints in the paper) are chosen to
    minimise ``log cond`` of the (column-scaled) base regressor sampled on ``[0, T]``, while
    the other joints keep ``initial``'s motion (the paper's fixed sinusoids on the prismatic
    joints, held in ``initial.periodic``). As in :func:`optimize_excitation`, ``q, qd, qdd``
    are linear in the coefficients, so the joint limits on a time grid are linear
    constraints of SLSQP; ``n_grid`` samples for the objective, ``n_constraint`` for the
    limits (tightened by ``margin``), ``n_eval`` for the reported numbers and the final
    limit check, after which the non-constant coefficients are contracted if needed. With
    ``n_starts > 1`` the further starts come from :func:`random_polynomial` with ``rng``.

    Parameters
    ----------
    robot : SerialRobot
    initial : PolynomialTrajectory
        Start; fixes ``T``, the degree and the periodic part. Must hold the limits.
    free : sequence of int, optional
        Joints whose coefficients are optimised (default all).
    q_min, q_max, qd_max, qdd_max, base, friction, scaling, n_starts, rng, margin, maxiter, ftol
        As in :func:`optimize_excitation`.
    n_grid, n_constraint, n_eval : int, default 60, 100, 500
        Samples of ``[0, T]`` (end points included) for objective, limits and evaluation.

    Returns
    -------
    ExcitationResult
        ``trajectory`` and ``initial`` are :class:`PolynomialTrajectory`; ``t_eval`` covers
        ``[0, T]``.

    Raises
    ------
    ValueError
        If the start violates a limit or does not excite every base parameter, bad ``free``,
        ``n_starts > 1`` without ``rng``, ``margin`` outside ``[0, 1)``.
    TypeError
        If ``initial`` is not a :class:`PolynomialTrajectory` or ``robot`` not a robot.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.robot import SerialRobot
    >>> from robidlib.trajectories import optimize_polynomial_excitation, random_polynomial
    >>> arm = SerialRobot.from_dh("RR", a=[0.0, 0.3], alpha=[0.0, 0.0], d=[0.0, 0.0],
    ...                           gravity=[0.0, -9.81, 0.0])
    >>> res = optimize_polynomial_excitation(arm, random_polynomial(arm, 5.0, rng=0), maxiter=20)
    >>> bool(res.cond < res.cond_initial)
    True
    """
    n = _robot_n(robot)
    if not isinstance(initial, PolynomialTrajectory):
        raise TypeError(f"initial must be a robidlib.trajectories.PolynomialTrajectory, got {type(initial).__name__}")
    if initial.n_joints != n:
        raise ValueError(f"initial must have {n} joints (the robot's), got {initial.n_joints}")
    friction, n_starts, maxiter, ftol, margin, gen = _design_options(scaling, friction, n_starts, maxiter, ftol,
                                                                     margin, rng)
    idx = _free_joints(free, n)
    lim = _resolve_limits(robot, q_min, q_max, qd_max, qdd_max)
    base = _base_of(robot, base, friction)
    T, d, per = initial.T, initial.degree, initial.periodic
    K_obj, K_con, K_eval = (_check_count(k, v) for k, v in
                            (("n_grid", n_grid), ("n_constraint", n_constraint), ("n_eval", n_eval)))
    cols = (idx[:, None] * (d + 1) + np.arange(d + 1)).ravel()     # free entries of the packed c

    def grid(K: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Basis restricted to the free coefficients, and the fixed part (others + periodic)."""
        t = np.linspace(0.0, T, K)
        B = polynomial_basis(t, T, n, d)
        x_fixed = initial.pack()
        x_fixed[cols] = 0.0
        fixed = [Bk @ x_fixed for Bk in B]
        if per is not None:
            p = per.evaluate(t)
            fixed = [f + v.ravel() for f, v in zip(fixed, (p.q, p.qd, p.qdd))]
        return [Bk[:, cols] for Bk in B], fixed

    def motion(z: np.ndarray, G: tuple) -> tuple[np.ndarray, ...]:
        B, fixed = G
        return tuple((Bk @ z + f).reshape(-1, n) for Bk, f in zip(B, fixed))

    def cond_on(z: np.ndarray, G: tuple) -> float:
        return _cond(_base_regressor(robot, *motion(z, G), base, friction), scaling)

    G_eval, G_obj, G_con = grid(K_eval), grid(K_obj), grid(K_con)
    traj0 = initial.evaluate(np.linspace(0.0, T, K_eval))
    check_limits(traj0, name="the initial guess", **lim)
    z0 = initial.pack()[cols]
    cond0 = cond_on(z0, G_eval)
    if cond0 >= _COND_CAP:
        raise ValueError(
            "the initial guess does not excite every base parameter (its base regressor is "
            "singular); start from a richer trajectory, e.g. random_polynomial(...)"
        )

    # linear limits on the constraint grid: A z - c >= 0
    (Bq, Bqd, Bqdd), (fq, fqd, fqdd) = G_con
    tile = lambda v: np.tile(v, K_con)  # noqa: E731
    half = 0.5 * (lim["q_max"] - lim["q_min"])
    mid = 0.5 * (lim["q_max"] + lim["q_min"])
    both = np.isfinite(half)
    q_hi = np.where(both, mid + (1 - margin) * half, lim["q_max"])
    q_lo = np.where(both, mid - (1 - margin) * half, lim["q_min"])
    rows, rhs = [], []
    for Bk, f, lo, hi in ((Bq, fq, q_lo, q_hi), (Bqd, fqd, -(1 - margin) * lim["qd_max"], (1 - margin) * lim["qd_max"]),
                          (Bqdd, fqdd, -(1 - margin) * lim["qdd_max"], (1 - margin) * lim["qdd_max"])):
        lo, hi = tile(lo) - f, tile(hi) - f
        up, dn = np.isfinite(hi), np.isfinite(lo)
        rows += [-Bk[up], Bk[dn]]
        rhs += [-hi[up], lo[dn]]
    A, c = np.vstack(rows), np.concatenate(rhs)
    constraints = [{"type": "ineq", "fun": lambda z: A @ z - c, "jac": lambda z: A}]
    nfev = [0]

    def objective(z: np.ndarray) -> float:
        nfev[0] += 1
        return float(np.log(cond_on(z, G_obj)))

    def gradient(z: np.ndarray, hist: list) -> np.ndarray:
        f0 = objective(z)
        hist.append(float(np.exp(f0)))
        g = np.empty_like(z)
        for i in range(z.size):
            zp = z.copy()
            zp[i] += 1.5e-8 * max(1.0, abs(z[i]))
            g[i] = (objective(zp) - f0) / (zp[i] - z[i])
        return g

    starts = [z0]
    for _ in range(n_starts - 1):
        starts.append(random_polynomial(robot, T, gen, degree=d, free=idx, periodic=per, **lim).pack()[cols])
    const = np.arange(d + 1)[None, :].repeat(idx.size, 0).ravel() == 0     # c_i0 entries
    best, finals = None, []
    for k, zs in enumerate(starts):
        hist: list[float] = []
        res = scipy.optimize.minimize(
            objective, zs, jac=lambda z, h=hist: gradient(z, h), method="SLSQP",
            constraints=constraints, options={"maxiter": maxiter, "ftol": ftol},
        )
        z = res.x
        hist.append(float(np.exp(res.fun)))
        # hold the limits on the fine grid: contract the non-constant coefficients if needed
        (Be, fe) = G_eval
        zc = np.where(const, z, 0.0)
        off = [Bk @ zc + f for Bk, f in zip(Be, fe)]
        dz = np.where(const, 0.0, z)
        s = _poly_scale(off, *(Bk @ dz for Bk in Be), lim, K_eval)
        contraction = 1.0
        if s < 1.0:
            contraction = s * (1 - 1e-9)
            z = zc + contraction * dz
        cond_z, cond_s = cond_on(z, G_eval), cond_on(zs, G_eval)
        if not cond_z <= cond_s:
            z, cond_z, contraction = zs, cond_s, 1.0
        finals.append(cond_z)
        if best is None or cond_z < best[1]:
            best = (z, cond_z, k, res, np.array(hist), contraction)
    z, cond_best, k_best, res_best, hist_best, contraction = best
    x = initial.pack()
    x[cols] = z
    return ExcitationResult(
        trajectory=initial.with_coefficients(x),
        initial=initial,
        cond_initial=cond0,
        cond=cond_best,
        history=hist_best,
        start_conds=np.array(finals),
        best_start=k_best,
        success=bool(res_best.success),
        message=str(res_best.message),
        nfev=nfev[0],
        scaling=scaling,
        base=base,
        t_eval=np.linspace(0.0, T, K_eval),
        info={"n_grid": K_obj, "n_constraint": K_con, "n_eval": K_eval, "margin": margin,
              "contraction": contraction, "limits": lim, "free": idx.tolist()},
    )
