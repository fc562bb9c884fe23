"""The dynamic model is linear in the inertial parameters: ``tau = Y(q, qd, qdd) pi``.

* :func:`regressor` -- the batched regressor ``Y`` of the standard parameters (GUIDE order);
* :func:`friction_regressor` -- columns of the viscous / Coulomb / offset friction terms;
* :func:`stack` -- stacks a batch of regressors and torques into the least-squares system
  ``W pi = y`` (sample-major rows: row ``k n + j`` is joint ``j`` of sample ``k``).

How the regressor is built
--------------------------
The Newton-Euler wrench of link ``j`` about its origin, in its own frame, is linear in its
ten parameters ``pi_j = [m, h, I]`` (``h = m c``, ``I`` about the origin)::

    f_j = m a_j + dw_j x h + w_j x (w_j x h)
    n_j = I dw_j + w_j x (I w_j) - a_j x h

with the link's angular velocity ``w_j``, angular acceleration ``dw_j`` and origin acceleration
``a_j`` (gravity included, as an upward acceleration of the base). Joint ``i <= j`` feels this
wrench through its unit screw expressed in frame ``j``, ``s_ij = (v_ij, u_ij)``: the velocity of
the origin of frame ``j`` and the angular velocity of link ``j`` when only ``qd_i = 1``. Its
torque share is ``v_ij . f_j + u_ij . n_j``; collecting the coefficient of each parameter gives
the block ``Y[i, 10 j : 10 j + 10]`` (zero for ``i > j``)::

    m      v . a
    h      v x dw + a x u + (v . w) w - |w|^2 v
    I      x^T I y summed over (x, y) = (dw, u) and (w, u x w), per entry of the symmetric I:
           Ixx: u_x dw_x + t_x w_x, ..., Ixy: u_x dw_y + u_y dw_x + t_x w_y + t_y w_x, ...

where ``t = u x w``. ``_regressor_rows`` does exactly this, sample by sample: the forward
Newton-Euler recursion of ``(w, dw, a)`` and, beside it, the screws of the joints so far, moved
from frame to frame (``v <- R^T (v + u x p)``, ``u <- R^T u``). It is plain Python, compiled
once with numba (and cached on disk, see :mod:`robidlib._jit`), because a loop over the
samples is how the algorithm reads and compiled it is several times faster than any
arrangement of whole-array numpy operations: every entry of ``Y`` costs a few multiply-adds,
fewer than numpy's per-element overhead. :func:`robidlib.dynamics.inverse_dynamics` computes
the same recursion (compiled the same way, with a numpy reference), and the tests compare the
regressor with it, and both with pinocchio.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import numpy as np
from numpy.typing import ArrayLike

from ._jit import compiled
from ._validate import as_array, check_same_robot
from .dynamics import _c, _chunked, _gravity, _robot_arrays, _state
from .params import _check_terms
from .robot import SerialRobot

__all__ = ["regressor", "friction_regressor", "stack"]


def regressor(
    robot: SerialRobot,
    q: ArrayLike,
    qd: ArrayLike,
    qdd: ArrayLike,
    *,
    gravity: ArrayLike | None = None,
    base: Any = None,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """Regressor of the standard inertial parameters: ``regressor(...) @ robot.params == tau``.

    Friction is not included (see :func:`friction_regressor`); the identity holds with
    ``inverse_dynamics(..., include_friction=False)``. The first call in a process compiles
    (or loads from robidlib's numba cache, see :mod:`robidlib._jit`) the loop that computes it;
    see the module docstring.

    Parameters
    ----------
    robot : SerialRobot
        Only its kinematics and gravity are used, never its inertial parameters.
    q, qd, qdd : array_like, shape (n,) or (N, n)
        Joint positions, velocities and accelerations (same shape).
    gravity : array_like, shape (3,), optional
        Override ``robot.gravity``.
    base : BaseParameters, optional
        Return the *base* regressor ``base.reduce(Y)``, shape ``(N, n, r)``, without ever
        forming the full ``(N, n, 10 n)`` array: each chunk of samples is computed in a reused
        buffer and reduced (its independent columns for the QR method, times ``base.V1`` for
        the SVD method). Identification needs only these columns (and real data sets have
        tens of thousands of samples).
    out : numpy.ndarray, optional
        A C-contiguous float64 array of the result's shape to write into (every entry is
        overwritten). Reusing one array across calls saves allocating, and the operating
        system zeroing, a large array every time.

    Returns
    -------
    numpy.ndarray, shape (n, 10 n) or (N, n, 10 n); (n, r) or (N, n, r) with ``base``
        Columns in the order of ``robot.param_names`` (of ``base.base_names``); the block of
        link ``j`` is zero in the rows of the joints after ``j``. ``out`` itself if given.

    Raises
    ------
    ValueError
        Shapes that do not match each other or the robot's joint count, NaN/inf; a ``base``
        computed for another robot (its ``robot_id``), or a ``base``
        computed for other parameters (or with friction columns); an ``out`` of the wrong
        shape or memory layout.
    TypeError
        If ``base`` is not a BaseParameters or ``out`` not a float64 numpy array.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.models.planar_2r import planar_2r
    >>> from robidlib.dynamics import inverse_dynamics
    >>> from robidlib.base import base_parameters
    >>> r = planar_2r()
    >>> rng = np.random.default_rng(0)
    >>> q, qd, qdd = rng.normal(size=(3, 100, 2))
    >>> Y = regressor(r, q, qd, qdd)
    >>> Y.shape, bool(np.allclose(Y @ r.params, inverse_dynamics(r, q, qd, qdd)))
    ((100, 2, 20), True)
    >>> bp = base_parameters(r, rng=0)
    >>> Yb = regressor(r, q, qd, qdd, base=bp)          # only the base columns
    >>> Yb.shape, bool(np.allclose(Yb, bp.reduce(Y)))
    ((100, 2, 6), True)
    """
    (q2, qd2, qdd2), single = _state(robot, q, qd, qdd)
    g = _gravity(robot, gravity)
    N, n = q2.shape
    if base is not None:
        _check_base(robot, base)
    width = 10 * n if base is None else base.rank
    Y = _output(out, (n, width) if single else (N, n, width))
    Y3 = Y[None] if single else Y
    rows = _compiled_rows()
    robot_arrays = _robot_arrays(robot, g)
    q2, qd2, qdd2 = (_c(x) for x in (q2, qd2, qdd2))
    if base is None:
        rows(q2, qd2, qdd2, *robot_arrays, Y3)
        return Y
    scratch = None
    for sl in _chunked(N):
        if scratch is None:                 # one buffer for every chunk (the first is the largest)
            scratch = np.empty((sl.stop - sl.start, n, 10 * n))
        full = scratch[: sl.stop - sl.start]
        rows(q2[sl], qd2[sl], qdd2[sl], *robot_arrays, full)
        if base.method == "svd":
            np.matmul(full, base.V1, out=Y3[sl])
        else:
            np.take(full, base.independent, axis=2, out=Y3[sl])
    return Y


def _check_base(robot: SerialRobot, base: Any) -> Any:
    # duck-typed: robidlib.base (a higher layer) builds BaseParameters from this module
    if not all(hasattr(base, a) for a in ("method", "rank", "names", "independent", "V1")):
        raise TypeError(f"base must be a BaseParameters (from base_parameters(robot)), got {type(base).__name__}")
    if tuple(base.names) != tuple(robot.param_names):
        raise ValueError(
            f"base must be computed for this robot's {10 * robot.n} rigid-body parameters (base_parameters(robot), "
            f"without friction), got {base.n_params} parameters named {tuple(base.names)[:2]}..."
        )
    check_same_robot("base", base, robot)
    return base


def _output(out: Any, shape: tuple[int, ...]) -> np.ndarray:
    """``out`` checked (C-contiguous float64 of ``shape``), or a new uninitialised array.

    The compiled loop writes every entry, the zeros of the blocks a joint does not feel
    included, so nothing needs clearing first.
    """
    if out is None:
        return np.empty(shape)
    if not isinstance(out, np.ndarray) or out.dtype != np.float64:
        raise TypeError(f"out must be a float64 numpy array, got {type(out).__name__} {getattr(out, 'dtype', '')}")
    if out.shape != shape or not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError(
            f"out must be a writeable C-contiguous array of shape {shape}, got shape {out.shape}"
            f"{'' if out.flags.c_contiguous else ', not C-contiguous'}{'' if out.flags.writeable else ', read-only'}"
        )
    return out


#: The argument types of :func:`_regressor_rows` (float64 arrays, C order; ``prismatic`` bool).
_SIGNATURE = (
    "void(f8[:, ::1], f8[:, ::1], f8[:, ::1], f8[::1], "     # q, qd, qdd, g
    "f8[:, :, ::1], f8[:, :, ::1], f8[:, :, ::1], "          # R0, RK, RK2
    "f8[:, ::1], f8[:, ::1], f8[:, ::1], b1[::1], "          # p0, R0e, axis, prismatic
    "f8[:, :, ::1])"                                         # out
)


@functools.cache
def _compiled_rows() -> Callable[..., None]:
    """:func:`_regressor_rows` compiled by numba on first use (later processes load it from
    robidlib's numba cache, see :mod:`robidlib._jit`); the plain Python itself where numba is
    missing or disabled (``NUMBA_DISABLE_JIT=1``): the same numbers, some hundreds of times
    slower."""
    return compiled(_regressor_rows, _SIGNATURE) or _regressor_rows


def _regressor_rows(q, qd, qdd, g, R0, RK, RK2, p0, R0e, axis, prismatic, out):  # noqa: C901
    """Fill ``out`` (N, n, 10 n) with the regressor of the samples ``q, qd, qdd`` (N, n).

    Plain Python on scalars, compiled by :func:`_compiled_rows` (it runs uncompiled too,
    some hundreds of times slower). The robot enters through its kinematic constants
    (:class:`robidlib.robot._KinematicConstants`): joint ``j`` places link ``j`` in link
    ``j - 1`` with the rotation ``R = R0 + sin(q) RK + (1 - cos(q)) RK2`` and origin
    ``p = p0`` (revolute), or ``R = R0`` and ``p = p0 + q R0 e`` (prismatic); ``e`` is its axis
    in link ``j``.
    """
    N, n = q.shape
    R = np.empty((3, 3))
    p = np.empty(3)
    v = np.empty((n, 3))        # screws of joints 0..j in the current frame: velocity part
    u = np.empty((n, 3))        # ... and angular part
    for k in range(N):
        w0 = w1 = w2 = 0.0                          # base: at rest, accelerating upwards (gravity)
        d0 = d1 = d2 = 0.0
        a0, a1, a2 = -g[0], -g[1], -g[2]
        for j in range(n):
            # -- where link j is in link j - 1
            if prismatic[j]:
                for r in range(3):
                    p[r] = p0[j, r] + q[k, j] * R0e[j, r]
                    for c in range(3):
                        R[r, c] = R0[j, r, c]
            else:
                s, c1 = np.sin(q[k, j]), 1.0 - np.cos(q[k, j])
                for r in range(3):
                    p[r] = p0[j, r]
                    for c in range(3):
                        R[r, c] = R0[j, r, c] + s * RK[j, r, c] + c1 * RK2[j, r, c]
            # -- forward Newton-Euler: acceleration of the new origin, a + dw x p + w x (w x p),
            #    in link j - 1, then w, dw, a rotated into link j: x <- R^T x
            x0, x1, x2 = w1 * p[2] - w2 * p[1], w2 * p[0] - w0 * p[2], w0 * p[1] - w1 * p[0]
            b0 = a0 + d1 * p[2] - d2 * p[1] + w1 * x2 - w2 * x1
            b1 = a1 + d2 * p[0] - d0 * p[2] + w2 * x0 - w0 * x2
            b2 = a2 + d0 * p[1] - d1 * p[0] + w0 * x1 - w1 * x0
            w0, w1, w2 = (R[0, 0] * w0 + R[1, 0] * w1 + R[2, 0] * w2,
                          R[0, 1] * w0 + R[1, 1] * w1 + R[2, 1] * w2,
                          R[0, 2] * w0 + R[1, 2] * w1 + R[2, 2] * w2)
            d0, d1, d2 = (R[0, 0] * d0 + R[1, 0] * d1 + R[2, 0] * d2,
                          R[0, 1] * d0 + R[1, 1] * d1 + R[2, 1] * d2,
                          R[0, 2] * d0 + R[1, 2] * d1 + R[2, 2] * d2)
            a0, a1, a2 = (R[0, 0] * b0 + R[1, 0] * b1 + R[2, 0] * b2,
                          R[0, 1] * b0 + R[1, 1] * b1 + R[2, 1] * b2,
                          R[0, 2] * b0 + R[1, 2] * b1 + R[2, 2] * b2)
            # -- the joint's own motion (e in link j):
            #    revolute   w += qd e,  dw += w x qd e + qdd e   (w before the joint's share)
            #    prismatic  a += 2 w x qd e + qdd e
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
            # -- screws of joints 0..j-1 moved to the origin of link j and rotated into it:
            #    v <- R^T (v + u x p),  u <- R^T u;  joint j itself: (0, e) or (e, 0)
            for i in range(j):
                y0 = v[i, 0] + u[i, 1] * p[2] - u[i, 2] * p[1]
                y1 = v[i, 1] + u[i, 2] * p[0] - u[i, 0] * p[2]
                y2 = v[i, 2] + u[i, 0] * p[1] - u[i, 1] * p[0]
                z0, z1, z2 = u[i, 0], u[i, 1], u[i, 2]
                for c in range(3):
                    v[i, c] = R[0, c] * y0 + R[1, c] * y1 + R[2, c] * y2
                    u[i, c] = R[0, c] * z0 + R[1, c] * z1 + R[2, c] * z2
            if prismatic[j]:
                v[j, 0], v[j, 1], v[j, 2], u[j, 0], u[j, 1], u[j, 2] = e0, e1, e2, 0.0, 0.0, 0.0
            else:
                v[j, 0], v[j, 1], v[j, 2], u[j, 0], u[j, 1], u[j, 2] = 0.0, 0.0, 0.0, e0, e1, e2
            # -- block j of the rows of joints 0..j (the formulas of the module docstring);
            #    the joints after j do not feel link j
            ww = w0 * w0 + w1 * w1 + w2 * w2
            col = 10 * j
            for i in range(j + 1):
                v0, v1, v2, u0, u1, u2 = v[i, 0], v[i, 1], v[i, 2], u[i, 0], u[i, 1], u[i, 2]
                vw = v0 * w0 + v1 * w1 + v2 * w2
                t0, t1, t2 = u1 * w2 - u2 * w1, u2 * w0 - u0 * w2, u0 * w1 - u1 * w0
                Yi = out[k, i]
                Yi[col] = v0 * a0 + v1 * a1 + v2 * a2
                Yi[col + 1] = v1 * d2 - v2 * d1 + a1 * u2 - a2 * u1 + vw * w0 - ww * v0
                Yi[col + 2] = v2 * d0 - v0 * d2 + a2 * u0 - a0 * u2 + vw * w1 - ww * v1
                Yi[col + 3] = v0 * d1 - v1 * d0 + a0 * u1 - a1 * u0 + vw * w2 - ww * v2
                Yi[col + 4] = u0 * d0 + t0 * w0
                Yi[col + 5] = u1 * d1 + t1 * w1
                Yi[col + 6] = u2 * d2 + t2 * w2
                Yi[col + 7] = u0 * d1 + u1 * d0 + t0 * w1 + t1 * w0
                Yi[col + 8] = u0 * d2 + u2 * d0 + t0 * w2 + t2 * w0
                Yi[col + 9] = u1 * d2 + u2 * d1 + t1 * w2 + t2 * w1
            for i in range(j + 1, n):
                for c in range(col, col + 10):
                    out[k, i, c] = 0.0


def friction_regressor(
    qd: ArrayLike,
    terms: Sequence[str] = ("viscous", "coulomb"),
    offset: bool = False,
) -> np.ndarray:
    """Friction columns: ``friction_regressor(qd) @ robot.friction.ravel()`` is the friction torque.

    Joint ``j``'s torque gets ``fv_j qd_j`` (viscous), ``fc_j sign(qd_j)`` (Coulomb, with
    ``sign(0) = 0``) and, with ``offset=True``, a constant ``off_j`` (e.g. a torque-sensor or
    current offset). The columns are joint-major, in the order of ``terms`` and then the
    offset: ``fv1, fc1, (off1), fv2, fc2, (off2), ...``, named by
    :func:`robidlib.params.friction_names`.

    Parameters
    ----------
    qd : array_like, shape (n,) or (N, n)
        Joint velocities.
    terms : sequence of {'viscous', 'coulomb'}, default ('viscous', 'coulomb')
    offset : bool, default False

    Returns
    -------
    numpy.ndarray, shape (n, k n) or (N, n, k n)
        ``k = len(terms) + offset``; row ``j`` is non-zero only in joint ``j``'s columns.

    Raises
    ------
    ValueError
        Wrong shape, NaN/inf, unknown or repeated term, no term at all.

    Examples
    --------
    >>> friction_regressor([2.0, -0.5]).tolist()
    [[2.0, 1.0, 0.0, 0.0], [0.0, 0.0, -0.5, -1.0]]
    """
    full = _check_terms(terms, offset)
    qd = as_array("qd", qd, ndim=(1, 2))
    if qd.shape[-1] == 0:
        raise ValueError(f"qd must have at least one joint, got shape {qd.shape}")
    single = qd.ndim == 1
    qd2 = qd[None] if single else qd
    N, n = qd2.shape
    k = len(full)
    cols = {"viscous": qd2, "coulomb": np.sign(qd2), "offset": np.ones_like(qd2)}
    F = np.zeros((N, n, n, k))
    idx = np.arange(n)
    for c, term in enumerate(full):
        F[:, idx, idx, c] = cols[term]
    F = F.reshape(N, n, n * k)
    return F[0] if single else F


def stack(Y: ArrayLike, tau: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Stack regressors and torques sample-major: ``W`` of shape ``(N n, p)``, ``y`` of ``(N n,)``.

    Row ``k n + j`` of ``W`` and entry ``k n + j`` of ``y`` belong to joint ``j`` of sample
    ``k``, so ``W @ pi == y`` whenever ``Y[k] @ pi == tau[k]`` for every sample.

    Parameters
    ----------
    Y : array_like, shape (N, n, p) or (n, p)
    tau : array_like, shape (N, n) or (n,)

    Returns
    -------
    W : numpy.ndarray, shape (N n, p)
    y : numpy.ndarray, shape (N n,)

    Raises
    ------
    ValueError
        Shapes that do not match, NaN/inf.

    Examples
    --------
    >>> import numpy as np
    >>> Y = np.arange(12.0).reshape(2, 2, 3)      # 2 samples, 2 joints, 3 parameters
    >>> W, y = stack(Y, [[1.0, 2.0], [3.0, 4.0]])
    >>> W.shape, y.tolist(), W[2].tolist()
    ((4, 3), [1.0, 2.0, 3.0, 4.0], [6.0, 7.0, 8.0])
    """
    Y = as_array("Y", Y, ndim=(2, 3))
    tau = as_array("tau", tau, ndim=(1, 2))
    if Y.ndim == 2:
        Y = Y[None]
    if tau.ndim == 1:
        tau = tau[None]
    if tau.shape != Y.shape[:2]:
        raise ValueError(
            f"tau must have shape {Y.shape[:2]} (samples, joints) to match Y {Y.shape}, got {tau.shape}"
        )
    N, n, p = Y.shape
    return Y.reshape(N * n, p), tau.reshape(N * n)
