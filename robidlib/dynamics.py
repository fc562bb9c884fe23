"""Batched rigid-body dynamics of serial robots: RNEA, mass matrix, forward dynamics, simulation.

All functions take a :class:`~robidlib.robot.SerialRobot` and joint-space arrays of shape
``(n,)`` (one sample) or ``(N, n)`` (N samples) and return arrays of the matching shape.
Inverse dynamics (and the simulation built on it) runs a loop over the samples compiled by
numba (:func:`_rnea_rows`; ``benchmarks/bench_regressor.py`` compares it with a Python loop
over pinocchio's C++ ``rnea``). Its readable reference, which the tests compare it with and
which runs where numba is missing or disabled, is vectorised over the samples with numpy and
loops over the joints, as does the mass matrix.

Equations of motion (joint torques for revolute joints, forces for prismatic joints)::

    tau = M(q) qdd + c(q, qd) + g(q) + tau_f(qd),     tau_f = fv * qd + fc * sign(qd)

with ``sign(0) = 0``. ``inverse_dynamics(..., include_friction=False)`` returns the rigid-body
part only, which is exactly ``regressor(robot, q, qd, qdd) @ robot.params``.

The recursive Newton-Euler algorithm (Luh, Walker and Paul 1980) works in the link frames:
a forward pass propagates the angular velocity ``w``, angular acceleration ``dw`` and the
linear acceleration ``a`` of each link-frame origin from the base (where ``a = -gravity``, so
gravity enters as an upward acceleration of the base), and a backward pass sums the link
wrenches from the tip to the base and projects them on the joint axes.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

import numpy as np
from numpy.typing import ArrayLike
from scipy.integrate import OdeSolver

from ._jit import compiled
from ._ode import MAX_NFEV, OdeBudget
from ._validate import as_array, check_choice, check_fields, check_int, check_positive, check_text, check_tolerance
from .robot import SerialRobot, _joint_array, forward_kinematics

__all__ = [
    "inverse_dynamics",
    "mass_matrix",
    "bias_torques",
    "gravity_torques",
    "friction_torques",
    "forward_dynamics",
    "kinetic_energy",
    "potential_energy",
    "simulate",
    "SimulationResult",
]


# ---------------------------------------------------------------------- the batched core
# The Newton-Euler passes keep the samples on the LAST axis ("structure of arrays"): the
# vectors of C samples form a (3, C) array, so that every numpy operation runs over long
# contiguous rows and every frame change is one product with a constant matrix (see
# robidlib.robot._KinematicConstants). The joint-screw (Jacobian) recursion keeps the samples
# FIRST, because its result feeds batched matrix products (the mass matrix). Public functions
# take and return the GUIDE's (N, n) layout and work in chunks of _CHUNK samples so that the
# temporaries stay in the CPU cache. (Inverse dynamics and the regressor, where every
# quantity costs only a few multiply-adds, run compiled loops over the samples instead, see
# _rnea_rows below and robidlib.regressor: numpy's per-call overhead would dominate.)

#: Samples processed together by the batched algorithms.
_CHUNK = 2048

#: OpenBLAS runs a matrix product of more than about 2.6e5 multiply-adds on several threads.
#: For the skinny products used here the threads cost more than they save (10x slower on a
#: busy 2-core machine), so larger products are cut into row blocks below this size.
_SINGLE_THREAD_MACS = 200_000


def _matmul_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` for a 2-D ``a`` with many rows, in row blocks that BLAS runs single-threaded."""
    out = np.empty((a.shape[0], b.shape[1]))
    step = max(1, _SINGLE_THREAD_MACS // (a.shape[1] * b.shape[1]))
    for r in range(0, a.shape[0], step):
        np.matmul(a[r : r + step], b, out=out[r : r + step])
    return out


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cross product of column vectors a, b of shape (3, ...)."""
    return np.stack([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def _rotate(T9: np.ndarray, V: np.ndarray, s: np.ndarray, c1: np.ndarray) -> np.ndarray:
    """R v for column vectors V (3, ..., C), with R = M0 + s M1 + c1 M2 and T9 = [M0; M1; M2]."""
    P = (T9 @ V.reshape(3, -1)).reshape((3, 3) + V.shape[1:])
    return P[0] + s * P[1] + c1 * P[2]


def _to_child(kin, i: int, V: np.ndarray, s: np.ndarray, c1: np.ndarray) -> np.ndarray:
    """Vectors V (3, ..., C) given in link i-1 -> link i (``R_i^T v``)."""
    if kin.prismatic[i]:
        return (kin.R0[i].T @ V.reshape(3, -1)).reshape(V.shape)
    return _rotate(kin.Tc[i], V, s[i], c1[i])


def _to_parent(kin, i: int, V: np.ndarray, s: np.ndarray, c1: np.ndarray) -> np.ndarray:
    """Vectors V (3, ..., C) given in link i -> link i-1 (``R_i v``)."""
    if kin.prismatic[i]:
        return (kin.R0[i] @ V.reshape(3, -1)).reshape(V.shape)
    return _rotate(kin.Tp[i], V, s[i], c1[i])


def _origin(kin, i: int, qT: np.ndarray) -> np.ndarray:
    """Origin (3, C) of link i in link i-1 for a prismatic joint i."""
    return kin.p0[i][:, None] + kin.R0e[i][:, None] * qT[i]




def _forward_pass(robot: SerialRobot, qT, qdT, qddT, g, s, c1):
    """Motion features of the links, yielded link by link as ``(i, phi_i)``, phi_i (12, C).

    See :func:`robidlib.params._wrench_basis` for the features.

    Forward Newton-Euler recursion in the link frames, from the base (w = dw = 0, a = -g)
    to the tip. For link i, with the parent's quantities on the right, ``R``, ``p`` the rotation
    and origin of link i in link i-1 and ``e`` the joint axis in link i::

        a_o = a + dw x p + w x (w x p)                  (origin of link i, in link i-1)
        revolute:  w_i = R^T w + qd e,  dw_i = R^T dw + (R^T w) x qd e + qdd e,  a_i = R^T a_o
        prismatic: w_i = R^T w,         dw_i = R^T dw,  a_i = R^T a_o + 2 w_i x qd e + qdd e
    """
    kin = robot._kin
    n, C = qT.shape
    V = np.empty((3, 3, C))  # columns w, dw, a_o of the parent, rotated together
    w = np.zeros((3, C))
    dw = np.zeros((3, C))
    acc = np.broadcast_to(-g[:, None], (3, C)) if g.ndim == 1 else -g  # g: (3,) or (3, C)
    for i in range(n):
        e = kin.axis[i][:, None]
        if kin.prismatic[i]:
            p = _origin(kin, i, qT)
            V[:, 2] = acc + _cross(dw, p) + _cross(w, _cross(w, p))
        else:  # constant p: x cross p = -Px @ x
            V[:, 2] = acc - kin.Px[i] @ dw - _cross(w, kin.Px[i] @ w)
        V[:, 0], V[:, 1] = w, dw
        Vc = _to_child(kin, i, V, s, c1)
        w, dw, acc = Vc[:, 0], Vc[:, 1], Vc[:, 2]
        if kin.prismatic[i]:
            acc = acc - (2.0 * qdT[i]) * (kin.Ex[i] @ w) + e * qddT[i]
        else:
            dw = dw - qdT[i] * (kin.Ex[i] @ w) + e * qddT[i]
            w = w + e * qdT[i]
        f = np.empty((12, C))
        f[0:3], f[3:6], f[6:9] = acc, dw, w * w
        f[9], f[10], f[11] = w[0] * w[1], w[0] * w[2], w[1] * w[2]
        yield i, f


def _rigid_id(robot: SerialRobot, qT, qdT, qddT, g) -> np.ndarray:
    """Rigid-body RNEA on (n, C) arrays; returns tau (n, C).

    Backward pass: the wrench of link i about its origin is ``Gpi_i @ phi_i`` (linear in its
    parameters); the total adds the child's wrench moved to this link::

        f_i += R f_{i+1},   n_i += R n_{i+1} + p x (R f_{i+1}),   tau_i = e . n_i  (e . f_i if prismatic)
    """
    kin = robot._kin
    s, c1 = np.sin(qT), 1.0 - np.cos(qT)
    phi = [f for _, f in _forward_pass(robot, qT, qdT, qddT, g, s, c1)]
    n, C = qT.shape
    tau = np.empty((n, C))
    F = None  # total wrench (3, 2, C), columns f and n, of link i+1 in link i+1
    for i in reversed(range(n)):
        W = (kin.Gpi[i] @ phi[i]).reshape(3, 2, C)
        if F is not None:
            j = i + 1
            RF = _to_parent(kin, j, F, s, c1)
            W += RF
            if kin.prismatic[j]:
                W[:, 1] += _cross(_origin(kin, j, qT), RF[:, 0])
            else:
                W[:, 1] += kin.Px[j] @ RF[:, 0]
        F = W
        tau[i] = kin.axis[i] @ F[:, 0 if kin.prismatic[i] else 1]
    return tau


def _joint_screws(robot: SerialRobot, q: np.ndarray, s: np.ndarray, c1: np.ndarray):
    """For each link j, the unit motions of joints 0..j expressed in link frame j.

    Works on samples-first arrays: q is (C, n); s, c1 are sin(q), 1 - cos(q) as (n, C).
    Yields ``(j, S)`` with S of shape (C, j + 1, 6): row i is ``[v, u]``, the velocity of the
    origin of frame j and the angular velocity of link j produced by ``qd_i = 1`` -- the
    transpose of link j's Jacobian in its own frame. Recursion (row vectors, ``x @ R = R^T x``)::

        move the point from o_{j-1} to o_j:  v <- v + u x p_j;   rotate both: x <- x @ R_j;
        append joint j:  [0, e_j] (revolute) or [e_j, 0] (prismatic).
    """
    kin = robot._kin
    C = q.shape[0]
    S = np.zeros((C, 0, 2, 3))
    for j in range(robot.n):
        if j:
            if kin.prismatic[j]:
                S[:, :, 0] += np.cross(S[:, :, 1], _origin(kin, j, q.T).T[:, None, :])
            else:  # row form: u x p = u @ Px
                S[:, :, 0] += (S[:, :, 1].reshape(-1, 3) @ kin.Px[j]).reshape(C, j, 3)
            X = S.reshape(-1, 3)
            if kin.prismatic[j]:
                S = X @ kin.R0[j]
            else:
                S = (X @ kin.R0[j]).reshape(C, 6 * j)
                S += s[j, :, None] * (X @ kin.RK[j]).reshape(C, 6 * j)
                S += c1[j, :, None] * (X @ kin.RK2[j]).reshape(C, 6 * j)
            S = S.reshape(C, j, 2, 3)
        new = np.zeros((C, j + 1, 2, 3))
        new[:, :j] = S
        new[:, j, 0 if kin.prismatic[j] else 1] = kin.axis[j]
        S = new
        yield j, S.reshape(C, j + 1, 6)


def _mass_matrix(robot: SerialRobot, q: np.ndarray) -> np.ndarray:
    """M(q) for samples-first q (C, n): M = sum_j J_j^T G_j J_j with J_j^T = S_j."""
    C, n = q.shape
    G = robot._kin.G
    qT = q.T
    s, c1 = np.sin(qT), 1.0 - np.cos(qT)
    M = np.zeros((C, n, n))
    for j, S in _joint_screws(robot, q, s, c1):
        SG = _matmul_rows(S.reshape(-1, 6), G[j]).reshape(S.shape)
        M[:, : j + 1, : j + 1] += SG @ np.swapaxes(S, 1, 2)
    return M


def _chunked(N: int):
    for c in range(0, N, _CHUNK):
        yield slice(c, min(c + _CHUNK, N))


def _inverse_dynamics_numpy(robot, q, qd, qdd, g) -> np.ndarray:
    """Rigid-body torques (N, n) for samples-first arrays, in chunks: the readable numpy
    version, which the tests compare the compiled loop with (and the one that runs where
    numba is missing or disabled)."""
    tau = np.empty(q.shape)
    for sl in _chunked(q.shape[0]):
        tau[sl] = _rigid_id(robot, q[sl].T.copy(), qd[sl].T.copy(), qdd[sl].T.copy(), g).T
    return tau


def _inverse_dynamics(robot, q, qd, qdd, g) -> np.ndarray:
    """Rigid-body torques (N, n) for samples-first arrays: the compiled loop
    :func:`_rnea_rows` where numba runs, else :func:`_inverse_dynamics_numpy`."""
    rows = _compiled_rnea()
    if rows is None:
        return _inverse_dynamics_numpy(robot, q, qd, qdd, g)
    tau = np.empty(q.shape)
    rows(_c(q), _c(qd), _c(qdd), *_robot_arrays(robot, g), _c(robot.link_params), tau)
    return tau


# ---------------------------------------------------------------------- the compiled loop
def _c(x: np.ndarray) -> np.ndarray:
    """``x`` as the compiled loops take it: writeable C-contiguous float64 (a copy if needed)."""
    if type(x) is np.ndarray and x.dtype == np.float64 and x.flags.c_contiguous and x.flags.writeable:
        return x                            # the usual case, checked 6x faster than np.require
    return np.require(x, np.float64, ("C", "W"))


def _robot_arrays(robot: SerialRobot, g: np.ndarray) -> tuple[np.ndarray, ...]:
    """The arguments ``g, R0, RK, RK2, p0, R0e, axis, prismatic`` of the compiled loops
    (:func:`_rnea_rows`, :func:`robidlib.regressor._regressor_rows`)."""
    k = robot._kin
    return (*(_c(x) for x in (g, k.R0, k.RK, k.RK2, k.p0, k.R0e, k.axis)),
            np.require(k.prismatic, np.bool_, ("C", "W")))


#: The argument types of :func:`_rnea_rows` (float64 arrays, C order; ``prismatic`` bool).
_RNEA_SIGNATURE = (
    "void(f8[:, ::1], f8[:, ::1], f8[:, ::1], f8[::1], "     # q, qd, qdd, g
    "f8[:, :, ::1], f8[:, :, ::1], f8[:, :, ::1], "          # R0, RK, RK2
    "f8[:, ::1], f8[:, ::1], f8[:, ::1], b1[::1], "          # p0, R0e, axis, prismatic
    "f8[:, ::1], f8[:, ::1])"                                # link parameters (n, 10), out
)


@functools.cache
def _compiled_rnea() -> Callable[..., None] | None:
    """:func:`_rnea_rows` compiled by numba on first use (see :mod:`robidlib._jit`), or None
    where numba is missing or disabled."""
    return compiled(_rnea_rows, _RNEA_SIGNATURE)


def _rnea_rows(q, qd, qdd, g, R0, RK, RK2, p0, R0e, axis, prismatic, P, out):  # noqa: C901
    """Fill ``out`` (N, n) with the rigid-body torques of the samples ``q, qd, qdd`` (N, n).

    The recursive Newton-Euler algorithm of :func:`_rigid_id`, one sample at a time, in plain
    Python on scalars (compiled by :func:`_compiled_rnea`; uncompiled it is some hundreds of
    times slower than the numpy version). ``P`` holds the link parameters (n, 10) in the
    GUIDE's order ``[m, mx, my, mz, Ixx, Iyy, Izz, Ixy, Ixz, Iyz]``; the robot's kinematics
    enter as in :func:`robidlib.regressor._regressor_rows`. For each sample:

    * forward, base to tip: ``w, dw, a`` of link j (the regressor's recursion) and its wrench
      about its origin, in its frame: ``f = m a + dw x h + w x (w x h)``,
      ``n = I dw + w x (I w) + h x a`` (``h = m c``, ``I`` about the origin);
    * backward, tip to base: ``tau_j = e . n_j`` (``e . f_j`` if prismatic), and link j's
      wrench moved to link j - 1: ``f_{j-1} += R f_j``, ``n_{j-1} += R n_j + p x (R f_j)``.
    """
    N, n = q.shape
    R = np.empty((n, 3, 3))     # rotation and origin of link j in link j - 1
    p = np.empty((n, 3))
    f = np.empty((n, 3))        # wrench of links j..n-1 about origin j, in frame j: force
    m = np.empty((n, 3))        # ... and moment
    for k in range(N):
        w0 = w1 = w2 = 0.0                          # base: at rest, accelerating upwards (gravity)
        d0 = d1 = d2 = 0.0
        a0, a1, a2 = -g[0], -g[1], -g[2]
        for j in range(n):
            Rj, pj = R[j], p[j]
            if prismatic[j]:
                for r in range(3):
                    pj[r] = p0[j, r] + q[k, j] * R0e[j, r]
                    for c in range(3):
                        Rj[r, c] = R0[j, r, c]
            else:
                s, c1 = np.sin(q[k, j]), 1.0 - np.cos(q[k, j])
                for r in range(3):
                    pj[r] = p0[j, r]
                    for c in range(3):
                        Rj[r, c] = R0[j, r, c] + s * RK[j, r, c] + c1 * RK2[j, r, c]
            # -- forward: the acceleration of the new origin in link j - 1, then w, dw, a
            #    rotated into link j (x <- R^T x), then the joint's own motion
            x0, x1, x2 = w1 * pj[2] - w2 * pj[1], w2 * pj[0] - w0 * pj[2], w0 * pj[1] - w1 * pj[0]
            b0 = a0 + d1 * pj[2] - d2 * pj[1] + w1 * x2 - w2 * x1
            b1 = a1 + d2 * pj[0] - d0 * pj[2] + w2 * x0 - w0 * x2
            b2 = a2 + d0 * pj[1] - d1 * pj[0] + w0 * x1 - w1 * x0
            w0, w1, w2 = (Rj[0, 0] * w0 + Rj[1, 0] * w1 + Rj[2, 0] * w2,
                          Rj[0, 1] * w0 + Rj[1, 1] * w1 + Rj[2, 1] * w2,
                          Rj[0, 2] * w0 + Rj[1, 2] * w1 + Rj[2, 2] * w2)
            d0, d1, d2 = (Rj[0, 0] * d0 + Rj[1, 0] * d1 + Rj[2, 0] * d2,
                          Rj[0, 1] * d0 + Rj[1, 1] * d1 + Rj[2, 1] * d2,
                          Rj[0, 2] * d0 + Rj[1, 2] * d1 + Rj[2, 2] * d2)
            a0, a1, a2 = (Rj[0, 0] * b0 + Rj[1, 0] * b1 + Rj[2, 0] * b2,
                          Rj[0, 1] * b0 + Rj[1, 1] * b1 + Rj[2, 1] * b2,
                          Rj[0, 2] * b0 + Rj[1, 2] * b1 + Rj[2, 2] * b2)
            e0, e1, e2 = axis[j, 0], axis[j, 1], axis[j, 2]
            qdj, qddj = qd[k, j], qdd[k, j]
            if prismatic[j]:
                a0 += 2.0 * qdj * (w1 * e2 - w2 * e1) + qddj * e0
                a1 += 2.0 * qdj * (w2 * e0 - w0 * e2) + qddj * e1
                a2 += 2.0 * qdj * (w0 * e1 - w1 * e0) + qddj * e2
            else:
                d0 += qdj * (w1 * e2 - w2 * e1) + qddj * e0
                d1 += qdj * (w2 * e0 - w0 * e2) + qddj * e1
                d2 += qdj * (w0 * e1 - w1 * e0) + qddj * e2
                w0, w1, w2 = w0 + qdj * e0, w1 + qdj * e1, w2 + qdj * e2
            # -- the link's own wrench about its origin (h = m c; I about the origin)
            mj, h0, h1, h2 = P[j, 0], P[j, 1], P[j, 2], P[j, 3]
            ixx, iyy, izz, ixy, ixz, iyz = P[j, 4], P[j, 5], P[j, 6], P[j, 7], P[j, 8], P[j, 9]
            x0, x1, x2 = w1 * h2 - w2 * h1, w2 * h0 - w0 * h2, w0 * h1 - w1 * h0      # w x h
            f[j, 0] = mj * a0 + d1 * h2 - d2 * h1 + w1 * x2 - w2 * x1
            f[j, 1] = mj * a1 + d2 * h0 - d0 * h2 + w2 * x0 - w0 * x2
            f[j, 2] = mj * a2 + d0 * h1 - d1 * h0 + w0 * x1 - w1 * x0
            y0 = ixx * w0 + ixy * w1 + ixz * w2                                       # I w
            y1 = ixy * w0 + iyy * w1 + iyz * w2
            y2 = ixz * w0 + iyz * w1 + izz * w2
            m[j, 0] = ixx * d0 + ixy * d1 + ixz * d2 + w1 * y2 - w2 * y1 + h1 * a2 - h2 * a1
            m[j, 1] = ixy * d0 + iyy * d1 + iyz * d2 + w2 * y0 - w0 * y2 + h2 * a0 - h0 * a2
            m[j, 2] = ixz * d0 + iyz * d1 + izz * d2 + w0 * y1 - w1 * y0 + h0 * a1 - h1 * a0
        # -- backward: project on the joint axis, then move the wrench to the parent
        for j in range(n - 1, -1, -1):
            if prismatic[j]:
                out[k, j] = axis[j, 0] * f[j, 0] + axis[j, 1] * f[j, 1] + axis[j, 2] * f[j, 2]
            else:
                out[k, j] = axis[j, 0] * m[j, 0] + axis[j, 1] * m[j, 1] + axis[j, 2] * m[j, 2]
            if j == 0:
                break
            Rj, pj = R[j], p[j]
            y0 = Rj[0, 0] * f[j, 0] + Rj[0, 1] * f[j, 1] + Rj[0, 2] * f[j, 2]         # R f
            y1 = Rj[1, 0] * f[j, 0] + Rj[1, 1] * f[j, 1] + Rj[1, 2] * f[j, 2]
            y2 = Rj[2, 0] * f[j, 0] + Rj[2, 1] * f[j, 1] + Rj[2, 2] * f[j, 2]
            z0 = Rj[0, 0] * m[j, 0] + Rj[0, 1] * m[j, 1] + Rj[0, 2] * m[j, 2]         # R n
            z1 = Rj[1, 0] * m[j, 0] + Rj[1, 1] * m[j, 1] + Rj[1, 2] * m[j, 2]
            z2 = Rj[2, 0] * m[j, 0] + Rj[2, 1] * m[j, 1] + Rj[2, 2] * m[j, 2]
            f[j - 1, 0] += y0
            f[j - 1, 1] += y1
            f[j - 1, 2] += y2
            m[j - 1, 0] += z0 + pj[1] * y2 - pj[2] * y1
            m[j - 1, 1] += z1 + pj[2] * y0 - pj[0] * y2
            m[j - 1, 2] += z2 + pj[0] * y1 - pj[1] * y0


def _gravity(robot: SerialRobot, gravity: ArrayLike | None) -> np.ndarray:
    return robot.gravity if gravity is None else as_array("gravity", gravity, shape=(3,))


def _state(robot, q, qd=None, qdd=None, names=("qd", "qdd")):
    """Validate q, qd, qdd: same shape (n,) or (N, n). Returns 2-D arrays and the single flag."""
    q2, single = _joint_array(robot, "q", q)
    out = [q2]
    for name, x in zip(names, (qd, qdd)):
        if x is None:
            continue
        x2, s = _joint_array(robot, name, x)
        if x2.shape != q2.shape or s != single:
            raise ValueError(f"{name} must have the same shape as q, {np.shape(q)}, got {np.shape(x)}")
        out.append(x2)
    return out, single


def _friction(robot: SerialRobot, qd: np.ndarray) -> np.ndarray:
    return robot.friction[:, 0] * qd + robot.friction[:, 1] * np.sign(qd)


# ---------------------------------------------------------------------- public API
def inverse_dynamics(
    robot: SerialRobot,
    q: ArrayLike,
    qd: ArrayLike,
    qdd: ArrayLike,
    *,
    gravity: ArrayLike | None = None,
    include_friction: bool = True,
) -> np.ndarray:
    """Joint torques that produce the motion ``(q, qd, qdd)`` (recursive Newton-Euler).

    ``tau = M(q) qdd + c(q, qd) + g(q) [+ fv qd + fc sign(qd)]``.

    Parameters
    ----------
    robot : SerialRobot
    q, qd, qdd : array_like, shape (n,) or (N, n)
        Joint positions, velocities and accelerations (same shape).
    gravity : array_like, shape (3,), optional
        Override ``robot.gravity`` (base frame, m/s^2).
    include_friction : bool, default True
        Add the friction torque ``fv * qd + fc * sign(qd)`` of ``robot.friction``. With
        ``False`` the result equals ``regressor(robot, q, qd, qdd) @ robot.params``.

    Returns
    -------
    numpy.ndarray, shape (n,) or (N, n)
        Torques (N m) of revolute joints, forces (N) of prismatic joints.

    Raises
    ------
    ValueError
        Shapes that do not match each other or the robot's joint count, NaN/inf.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.models.planar_2r import planar_2r
    >>> r = planar_2r()
    >>> tau = inverse_dynamics(r, np.zeros((5, 2)), np.zeros((5, 2)), np.zeros((5, 2)))
    >>> tau.shape, bool(np.allclose(tau, tau[0]))     # same static torque for every sample
    ((5, 2), True)
    """
    (q2, qd2, qdd2), single = _state(robot, q, qd, qdd)
    tau = _inverse_dynamics(robot, q2, qd2, qdd2, _gravity(robot, gravity))
    if _flag("include_friction", include_friction):
        tau += _friction(robot, qd2)
    return tau[0] if single else tau


def _flag(name: str, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def friction_torques(robot: SerialRobot, qd: ArrayLike) -> np.ndarray:
    """Friction torques ``fv * qd + fc * sign(qd)`` of ``robot.friction`` (``sign(0) = 0``).

    Parameters
    ----------
    robot : SerialRobot
    qd : array_like, shape (n,) or (N, n)

    Returns
    -------
    numpy.ndarray, shape like ``qd``

    Raises
    ------
    ValueError
        Wrong shape or NaN/inf.

    Examples
    --------
    >>> from robidlib.models.planar_2r import planar_2r
    >>> r = planar_2r().with_friction([[0.5, 0.2], [0.3, 0.1]])
    >>> friction_torques(r, [1.0, -2.0]).tolist()
    [0.7, -0.7]
    """
    qd2, single = _joint_array(robot, "qd", qd)
    tau = _friction(robot, qd2)
    return tau[0] if single else tau


def bias_torques(
    robot: SerialRobot,
    q: ArrayLike,
    qd: ArrayLike,
    *,
    gravity: ArrayLike | None = None,
    include_friction: bool = True,
) -> np.ndarray:
    """Coriolis, centrifugal, gravity (and friction) torques ``h = c(q, qd) + g(q) [+ tau_f]``.

    Equals ``inverse_dynamics(robot, q, qd, 0)``.

    Parameters
    ----------
    robot : SerialRobot
    q, qd : array_like, shape (n,) or (N, n)
    gravity : array_like, shape (3,), optional
    include_friction : bool, default True

    Returns
    -------
    numpy.ndarray, shape like ``q``

    Raises
    ------
    ValueError
        Shapes that do not match, NaN/inf.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.models.planar_2r import planar_2r
    >>> r = planar_2r()
    >>> h = bias_torques(r, [0.3, 0.4], [1.0, -1.0])
    >>> bool(np.allclose(h, inverse_dynamics(r, [0.3, 0.4], [1.0, -1.0], [0.0, 0.0])))
    True
    """
    (q2, qd2), single = _state(robot, q, qd)
    return inverse_dynamics(
        robot, q2[0] if single else q2, qd2[0] if single else qd2, np.zeros_like(q2[0] if single else q2),
        gravity=gravity, include_friction=include_friction,
    )


def gravity_torques(robot: SerialRobot, q: ArrayLike, *, gravity: ArrayLike | None = None) -> np.ndarray:
    """Static gravity torques ``g(q)`` (no motion, no friction).

    Parameters
    ----------
    robot : SerialRobot
    q : array_like, shape (n,) or (N, n)
    gravity : array_like, shape (3,), optional

    Returns
    -------
    numpy.ndarray, shape like ``q``

    Raises
    ------
    ValueError
        Wrong shape or NaN/inf.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.models.planar_2r import planar_2r
    >>> r = planar_2r()
    >>> bool(np.allclose(gravity_torques(r, [0.0, 0.0], gravity=[0, 0, 0]), 0.0))
    True
    """
    q2, single = _joint_array(robot, "q", q)
    z = np.zeros_like(q2)
    tau = _inverse_dynamics(robot, q2, z, z, _gravity(robot, gravity))
    return tau[0] if single else tau


def mass_matrix(robot: SerialRobot, q: ArrayLike) -> np.ndarray:
    """Joint-space mass (inertia) matrix ``M(q)``.

    Computed as ``M = sum_j J_j^T G_j J_j`` with ``J_j`` the Jacobian of link ``j`` in its own
    frame and ``G_j`` its constant 6x6 spatial inertia about the link origin,
    ``[[m E, -[h]x], [[h]x, I_O]]`` (twist order: linear, angular).

    Parameters
    ----------
    robot : SerialRobot
    q : array_like, shape (n,) or (N, n)

    Returns
    -------
    numpy.ndarray, shape (n, n) or (N, n, n)
        Symmetric; positive definite for physically consistent parameters.

    Raises
    ------
    ValueError
        Wrong shape or NaN/inf.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.models.planar_2r import planar_2r
    >>> M = mass_matrix(planar_2r(), np.zeros((3, 2)))
    >>> M.shape, bool(np.allclose(M, np.swapaxes(M, 1, 2)))
    ((3, 2, 2), True)
    """
    q2, single = _joint_array(robot, "q", q)
    M = _mass_matrix(robot, q2)
    return M[0] if single else M


def forward_dynamics(
    robot: SerialRobot,
    q: ArrayLike,
    qd: ArrayLike,
    tau: ArrayLike,
    *,
    gravity: ArrayLike | None = None,
    include_friction: bool = True,
) -> np.ndarray:
    """Joint accelerations produced by the torques ``tau``: solve ``M(q) qdd = tau - h(q, qd)``.

    The linear systems are solved in one batched call (``numpy.linalg.solve``, LU with partial
    pivoting); no inverse is formed.

    Parameters
    ----------
    robot : SerialRobot
    q, qd, tau : array_like, shape (n,) or (N, n)
    gravity : array_like, shape (3,), optional
    include_friction : bool, default True
        Subtract the friction torque (``fc sign(qd)`` makes the dynamics discontinuous at
        ``qd = 0``).

    Returns
    -------
    numpy.ndarray, shape like ``q``

    Raises
    ------
    ValueError
        Shapes that do not match, NaN/inf, or a singular mass matrix (e.g. a robot without
        inertial parameters).

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.models.planar_2r import planar_2r
    >>> r = planar_2r()
    >>> q, qd, qdd = [0.1, 0.2], [0.3, -0.4], [1.0, 2.0]
    >>> tau = inverse_dynamics(r, q, qd, qdd)
    >>> bool(np.allclose(forward_dynamics(r, q, qd, tau), qdd))
    True
    """
    (q2, qd2, tau2), single = _state(robot, q, qd, tau, names=("qd", "tau"))
    qdd = _forward_dynamics(robot, q2, qd2, tau2, _gravity(robot, gravity), _flag("include_friction", include_friction))
    return qdd[0] if single else qdd


def _forward_dynamics(robot, q, qd, tau, g, include_friction) -> np.ndarray:
    h = _inverse_dynamics(robot, q, qd, np.zeros_like(q), g)
    if include_friction:
        h = h + _friction(robot, qd)
    M = _mass_matrix(robot, q)
    try:
        return np.linalg.solve(M, (tau - h)[..., None])[..., 0]
    except np.linalg.LinAlgError:
        raise ValueError(
            "the mass matrix is singular for some sample; check the robot's inertial parameters"
        ) from None


def kinetic_energy(robot: SerialRobot, q: ArrayLike, qd: ArrayLike) -> np.ndarray:
    """Kinetic energy ``qd^T M(q) qd / 2`` (J).

    Parameters
    ----------
    robot : SerialRobot
    q, qd : array_like, shape (n,) or (N, n)

    Returns
    -------
    float or numpy.ndarray, shape (N,)

    Raises
    ------
    ValueError
        Shapes that do not match, NaN/inf.

    Examples
    --------
    >>> from robidlib.models.planar_2r import planar_2r
    >>> float(kinetic_energy(planar_2r(), [0.0, 0.0], [0.0, 0.0]))
    0.0
    """
    (q2, qd2), single = _state(robot, q, qd)
    T = 0.5 * np.einsum("ni,nij,nj->n", qd2, _mass_matrix(robot, q2), qd2)
    return T[0] if single else T


def potential_energy(robot: SerialRobot, q: ArrayLike, *, gravity: ArrayLike | None = None) -> np.ndarray:
    """Gravitational potential energy ``-sum_j g . (m_j p_j + R_j h_j)`` (J, zero at the base origin).

    Parameters
    ----------
    robot : SerialRobot
    q : array_like, shape (n,) or (N, n)
    gravity : array_like, shape (3,), optional

    Returns
    -------
    float or numpy.ndarray, shape (N,)

    Raises
    ------
    ValueError
        Wrong shape or NaN/inf.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.models.planar_2r import planar_2r
    >>> r = planar_2r()
    >>> bool(potential_energy(r, [np.pi / 2, 0.0]) > potential_energy(r, [0.0, 0.0]))   # arm up
    True
    """
    q2, single = _joint_array(robot, "q", q)
    g = _gravity(robot, gravity)
    T = forward_kinematics(robot, q2)  # (N, n, 4, 4)
    P = robot.link_params
    first_moment = P[:, 0, None] * T[..., :3, 3] + np.einsum("nkij,kj->nki", T[..., :3, :3], P[:, 1:4])
    V = -(first_moment @ g).sum(axis=1)
    return V[0] if single else V


def _rigid_terms(robot: SerialRobot, g: np.ndarray) -> Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """``rigid(q, qd) -> (h, M)`` for one state (n,): bias torques ``h = c + g`` and the mass
    matrix, by RNEA (column k of M: the torques of ``qdd = e_k`` without gravity or velocity).

    The compiled loop (two calls: 1 and n samples, into buffers reused across the calls: use
    the results before the next call) where numba runs; else one numpy RNEA on n + 1 columns.
    """
    n = robot.n
    rows = _compiled_rnea()
    if rows is None:
        qdd_cols = np.hstack([np.zeros((n, 1)), np.eye(n)])
        g_cols = np.hstack([g[:, None], np.zeros((3, n))])

        def rigid(q: np.ndarray, qd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            qd_cols = np.zeros((n, n + 1))
            qd_cols[:, 0] = qd
            T = _rigid_id(robot, np.repeat(q[:, None], n + 1, axis=1), qd_cols, qdd_cols, g_cols)
            return T[:, 0], T[:, 1:]

        return rigid
    with_g, without_g = _robot_arrays(robot, g), _robot_arrays(robot, np.zeros(3))
    P = _c(robot.link_params)
    q1, qd1, zero1, h = (np.zeros((1, n)) for _ in range(4))
    Qn, Zn, En, Mt = np.zeros((n, n)), np.zeros((n, n)), np.eye(n), np.zeros((n, n))

    def rigid(q: np.ndarray, qd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        q1[0], qd1[0], Qn[:] = q, qd, q
        rows(q1, qd1, zero1, *with_g, P, h)
        rows(Qn, Zn, En, *without_g, P, Mt)      # row k: torques of qdd = e_k, i.e. M e_k
        return h[0], Mt.T

    return rigid


@dataclass(frozen=True)
class SimulationResult:
    """Result of :func:`simulate`: arrays at the requested times.

    Attributes
    ----------
    t : numpy.ndarray, shape (N,)
    q, qd, qdd, tau : numpy.ndarray, shape (N, n)
        Positions, velocities, accelerations and the applied joint torques.
    nfev : int
        Number of right-hand-side evaluations.
    message : str
        The solver's message.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.models.planar_2r import planar_2r
    >>> sim = simulate(planar_2r(), np.linspace(0, 0.2, 3), [0.0, 0.0], [0.0, 0.0])
    >>> sim.t.tolist(), sim.q.shape, sim.tau.shape
    ([0.0, 0.1, 0.2], (3, 2), (3, 2))
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    nfev: int
    message: str

    def __post_init__(self) -> None:
        j = ("N", "n")
        check_fields(self, t=("N",), q=j, qd=j, qdd=j, tau=j)
        object.__setattr__(self, "nfev", check_int("nfev", self.nfev, 0))
        check_text("message", self.message)


def simulate(
    robot: SerialRobot,
    t: ArrayLike,
    q0: ArrayLike,
    qd0: ArrayLike,
    torque: ArrayLike | Callable[[float, np.ndarray, np.ndarray], ArrayLike] | None = None,
    *,
    torque_interp: str = "linear",
    include_friction: bool = True,
    gravity: ArrayLike | None = None,
    method: str = "DOP853",
    rtol: float = 1e-9,
    atol: float = 1e-11,
    max_step: float = np.inf,
    coulomb_smoothing: float = 0.0,
    max_nfev: int = MAX_NFEV,
) -> SimulationResult:
    """Integrate the equations of motion with :func:`scipy.integrate.solve_ivp`.

    The state ``x = [q, qd]`` obeys ``dx/dt = [qd, forward_dynamics(q, qd, tau)]``. The
    solution is reported at the times ``t`` (``t_eval``), starting from ``(q0, qd0)`` at
    ``t[0]``.

    Parameters
    ----------
    robot : SerialRobot
    t : array_like, shape (N,)
        Strictly increasing output times, s (N >= 2).
    q0, qd0 : array_like, shape (n,)
        Initial state.
    torque : array_like of shape (N, n), callable, or None
        * array: torques at the times ``t``, interpolated in between according to
          ``torque_interp``: ``"linear"`` (piecewise linear, one solver run) or ``"zoh"``
          (zero-order hold: sample k is applied on ``[t_k, t_{k+1})`` as a digital controller
          would; the solver is restarted at every sample, where the torque jumps);
        * callable ``torque(t, q, qd) -> (n,)``: a controller (PD, computed torque, ...)
          evaluated at every solver stage, and once more at each output time for ``tau``;
        * None: zero torque.
    torque_interp : {'linear', 'zoh'}, default 'linear'
    include_friction : bool, default True
        Include ``robot.friction`` in the dynamics.
    gravity : array_like, shape (3,), optional
        Override ``robot.gravity``.
    method : str, default 'DOP853'
        Any explicit ``solve_ivp`` method (``'RK45'``, ``'DOP853'``, ``'Radau'``, ...).
        DOP853 (8th order) with the default tolerances keeps the energy of a conservative
        simulation to about 1e-9 relative over seconds.
    rtol, atol : float, default 1e-9, 1e-11
        Solver tolerances (``rtol >= 2.2e-14``, 100 ulps: tighter cannot be met).
    max_step : float, default inf
        Largest solver step, s (> 0; ``inf``: no limit).
    coulomb_smoothing : float, default 0
        Velocity scale ``v_s`` (rad/s or m/s) > 0 to replace the Coulomb term
        ``fc sign(qd)`` by ``fc tanh(qd / v_s)`` in the simulated plant. With the exact sign,
        a joint that stops makes the friction torque chatter and an explicit solver's step
        collapse (stick-slip); a small ``v_s`` (e.g. 1e-2) keeps the simulation fast and
        changes the friction only where ``|qd| < ~3 v_s``. 0 keeps the exact sign.
    max_nfev : int, default 200000
        Budget of evaluations of the dynamics (per sample interval with ``torque_interp="zoh"``,
        where the solver restarts at every sample): a horizon or a tolerance the solver cannot
        finish in reasonable time stops with a clear error instead of running for hours.

    Returns
    -------
    SimulationResult
        ``t, q, qd, qdd, tau`` at the requested times.

    Raises
    ------
    ValueError
        Bad shapes, NaN/inf, times not increasing, unknown ``torque_interp``, bad tolerances
        or ``max_step``, a controller returning the wrong shape or NaN, a mass matrix that is
        singular (e.g. a robot without inertial parameters) at the start or along the motion,
        a solver failure, or more than ``max_nfev`` evaluations.
    TypeError
        If ``robot`` is not a SerialRobot or an argument has the wrong type.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.models.planar_2r import planar_2r
    >>> r = planar_2r(gravity=[0, 0, 0])
    >>> sim = simulate(r, np.linspace(0, 1, 11), [0.0, 0.0], [1.0, 0.0])   # free motion
    >>> sim.q.shape, bool(np.allclose(sim.tau, 0.0))
    ((11, 2), True)
    """
    if not isinstance(robot, SerialRobot):
        raise TypeError(f"robot must be a SerialRobot, got {type(robot).__name__}")
    t = as_array("t", t, ndim=1)
    if t.size < 2 or np.any(np.diff(t) <= 0):
        raise ValueError(f"t must be strictly increasing with at least 2 entries, got {t.size} entr(y/ies)")
    q0 = as_array("q0", q0, shape=(robot.n,))
    qd0 = as_array("qd0", qd0, shape=(robot.n,))
    check_choice("torque_interp", torque_interp, ("linear", "zoh"))
    fric = _flag("include_friction", include_friction)
    g = _gravity(robot, gravity)
    rtol = check_tolerance("rtol", rtol)
    atol = check_positive("atol", atol)
    if not (isinstance(max_step, (float, int, np.floating, np.integer)) and max_step == np.inf):
        max_step = check_positive("max_step", max_step)
    v_s = check_positive("coulomb_smoothing", coulomb_smoothing, allow_zero=True)
    if isinstance(method, str) or not (isinstance(method, type) and issubclass(method, OdeSolver)):
        check_choice("method", method, ("RK23", "RK45", "DOP853", "Radau", "BDF", "LSODA"))
    budget = OdeBudget("simulate", max_nfev)
    n = robot.n
    M0 = _mass_matrix(robot, q0[None])[0]
    if not np.all(np.linalg.eigvalsh(M0) > 0):
        raise ValueError(
            f"simulate needs a positive definite mass matrix, but M(q0) of robot {robot.name!r} is "
            f"singular or indefinite (eigenvalues {np.round(np.linalg.eigvalsh(M0), 6).tolist()}): give "
            "the robot inertial parameters (robot.params) with mass and inertia about every joint axis"
        )

    if torque is None:
        torque = np.zeros((t.size, n))
    if callable(torque):
        controller = torque

        def tau_of(ti, qi, qdi):
            u = np.asarray(controller(ti, qi, qdi), dtype=float)
            if u.shape != (n,):
                raise ValueError(f"the torque callable must return shape ({n},), got {u.shape}")
            if not np.all(np.isfinite(u)):
                raise ValueError(f"the torque callable returned NaN/inf at t = {ti}: {u}")
            return u
    else:
        U = as_array("torque", torque, shape=(t.size, n))

        def tau_of(ti, qi, qdi):  # piecewise-linear interpolation of the samples
            k = int(np.clip(np.searchsorted(t, ti, side="right") - 1, 0, t.size - 2))
            s = min(max((ti - t[k]) / (t[k + 1] - t[k]), 0.0), 1.0)
            return (1.0 - s) * U[k] + s * U[k + 1]

    # h(q, qd) and the columns of M(q) (unit accelerations without gravity or velocity) by RNEA
    rigid = _rigid_terms(robot, g)

    def plant_friction(qdi):
        if not fric:
            return 0.0
        if v_s > 0.0:
            return robot.friction[:, 0] * qdi + robot.friction[:, 1] * np.tanh(qdi / v_s)
        return _friction(robot, qdi)

    def accel(qi, qdi, u):
        h, M = rigid(qi, qdi)
        try:
            return np.linalg.solve(M, u - (h + plant_friction(qdi)))
        except np.linalg.LinAlgError:
            raise ValueError(
                f"simulate: the mass matrix became singular at q = {np.round(qi, 6).tolist()} (the "
                "robot's inertial parameters give no inertia about a joint axis there)"
            ) from None

    def integrate(rhs, t_span, x0, t_eval, budget):
        return budget.solve(rhs, t_span, x0, method=method, t_eval=t_eval, rtol=rtol, atol=atol,
                            max_step=max_step)

    x0 = np.concatenate([q0, qd0])
    if not callable(torque) and torque_interp == "zoh":
        # the torque jumps at every sample: integrate sample interval by sample interval
        X = np.empty((t.size, 2 * n))
        X[0] = x0
        nfev, message = 0, ""
        for k in range(t.size - 1):
            sol = integrate(lambda ti, x, u=U[k]: np.concatenate([x[n:], accel(x[:n], x[n:], u)]),
                            (t[k], t[k + 1]), X[k], [t[k + 1]], OdeBudget("simulate", budget.max_nfev))
            X[k + 1] = sol.y[:, -1]
            nfev += sol.nfev
            message = sol.message
        q, qd = X[:, :n], X[:, n:]
        tau = U.copy()
    else:
        sol = integrate(lambda ti, x: np.concatenate([x[n:], accel(x[:n], x[n:], tau_of(ti, x[:n], x[n:]))]),
                        (t[0], t[-1]), x0, t, budget)
        q, qd = sol.y[:n].T.copy(), sol.y[n:].T.copy()
        nfev, message = sol.nfev, sol.message
        if callable(torque):
            tau = np.array([tau_of(ti, qi, qdi) for ti, qi, qdi in zip(t, q, qd)])
        else:
            tau = U.copy()
    if fric and v_s > 0.0:
        qdd = _forward_dynamics(robot, q, qd, tau - plant_friction(qd), g, False)
    else:
        qdd = _forward_dynamics(robot, q, qd, tau, g, fric)
    return SimulationResult(t=t.copy(), q=q, qd=qd, qdd=qdd, tau=tau, nfev=int(nfev), message=str(message))
