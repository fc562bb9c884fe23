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
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

import numpy as np
import scipy.linalg

from ._validate import as_array, check_positive

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
        t = as_array("t", self.t, ndim=1)
        shape = (t.shape[0], None)
        q = as_array("q", self.q, ndim=2, shape=shape)
        qd = as_array("qd", self.qd, ndim=2, shape=q.shape)
        qdd = as_array("qdd", self.qdd, ndim=2, shape=q.shape)
        for name, v in (("t", t), ("q", q), ("qd", qd), ("qdd", qdd)):
            object.__setattr__(self, name, v)

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
    ``t = T``) give a 6x6 linear system ``M(T) a = c``, solved for all joints at once
    with ``scipy.linalg.solve``.

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
        If a value is not finite, ``T <= 0``, or the boundary arrays have different
        lengths.

    Examples
    --------
    >>> from robidlib.trajectories import quintic_coefficients
    >>> quintic_coefficients(0.0, 1.0, 1.0)[:, 0]      # 10 t^3 - 15 t^4 + 6 t^5
    array([  0.,   0.,   0.,  10., -15.,   6.])
    """
    T = check_positive("T", T)
    _, b = _boundary(q0=q0, qd0=qd0, qdd0=qdd0, qf=qf, qdf=qdf, qddf=qddf)
    rhs = np.vstack([b["q0"], b["qd0"], b["qdd0"], b["qf"], b["qdf"], b["qddf"]])
    return scipy.linalg.solve(_quintic_matrix(T), rhs)


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
    >>> np.round(traj.q[:, 0], 6).tolist(), float(traj.qd[1, 0])
    ([0.0, 1.0, 0.5, 0.0], 0.0)
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
def _check_count(name: str, value: Any) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if int(value) < 1:
        raise ValueError(f"{name} must be >= 1, got {int(value)}")
    return int(value)


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
        b = as_array("b", self.b, ndim=2, shape=a.shape)
        q0 = as_array("q0", self.q0, ndim=1, shape=(a.shape[0],))
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
