"""The dynamic model is linear in the inertial parameters: ``tau = Y(q, qd, qdd) pi``.

* :func:`regressor` -- the batched regressor ``Y`` of the standard parameters (GUIDE order);
* :func:`friction_regressor` -- columns of the viscous / Coulomb / offset friction terms;
* :func:`stack` -- stacks a batch of regressors and torques into the least-squares system
  ``W pi = y`` (sample-major rows: row ``k n + j`` is joint ``j`` of sample ``k``).

How the regressor is built
--------------------------
The Newton-Euler wrench of link ``j`` about its origin, in its own frame, is linear in its
ten parameters ``pi_j = [m, h, I]`` (``h = m c``, ``I`` about the origin)::

    f_j = m a_j + (dw_j x + w_j x w_j x) h
    n_j = I dw_j + w_j x (I w_j) - a_j x h

so ``[f_j; n_j] = A_j pi_j`` with a 6x10 matrix ``A_j`` built from the link's angular
velocity ``w_j``, angular acceleration ``dw_j`` and origin acceleration ``a_j`` (gravity
included). Joint ``i <= j`` feels this wrench through its unit screw expressed in frame ``j``,
``s_ij = (v_ij, u_ij)`` (linear, angular part), hence the block
``Y[i, 10 j : 10 j + 10] = v_ij^T A_j^f + u_ij^T A_j^n`` and zero for ``i > j``.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from numpy.typing import ArrayLike

from ._validate import as_array
from .dynamics import _chunked, _forward_pass, _gravity, _joint_screws, _state
from .params import _WRENCH_BASIS, _check_terms
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
    ``inverse_dynamics(..., include_friction=False)``.

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
        forming the full ``(N, n, 10 n)`` array: for the QR method only the independent
        columns are computed, for the SVD method each chunk of samples is multiplied by
        ``base.V1``. Identification needs only these columns (and real data sets have tens
        of thousands of samples).
    out : numpy.ndarray, optional
        A C-contiguous float64 array of the result's shape to write into (it is overwritten
        entirely). Reusing one array across calls saves allocating, and the operating system
        zeroing, a large array every time.

    Returns
    -------
    numpy.ndarray, shape (n, 10 n) or (N, n, 10 n); (n, r) or (N, n, r) with ``base``
        Columns in the order of ``robot.param_names`` (of ``base.base_names``); the block of
        link ``j`` is zero in the rows of the joints after ``j``. ``out`` itself if given.

    Raises
    ------
    ValueError
        Shapes that do not match each other or the robot's joint count, NaN/inf; a ``base``
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
    blocks = _column_plan(robot, base)
    width = 10 * n if base is None else base.rank
    Y = _output(out, (n, width) if single else (N, n, width))
    Y3 = Y[None] if single else Y
    if base is not None and base.method == "svd":
        # every column is needed: one chunk of the full regressor at a time, times V1
        scratch = None
        for sl in _chunked(N):
            if scratch is None:                        # the first chunk is the largest; its
                scratch = np.zeros((sl.stop - sl.start, n, 10 * n))   # zeros stay zeros
            full = scratch[: sl.stop - sl.start]
            _regressor_chunk(robot, q2[sl], qd2[sl], qdd2[sl], g, full, blocks)
            np.matmul(full, base.V1, out=Y3[sl])
    else:
        for sl in _chunked(N):
            _regressor_chunk(robot, q2[sl], qd2[sl], qdd2[sl], g, Y3[sl], blocks)
    return Y


_BASIS = _WRENCH_BASIS.reshape(12, 60)


def _column_plan(robot: SerialRobot, base: Any) -> list[tuple[np.ndarray, slice]]:
    """Per link ``j``: the wrench-basis columns to compute and where they go in the output.

    The full regressor needs all ten columns of every block; the QR base regressor only the
    independent ones (``base.independent`` is ascending, so each block's columns stay
    together); the SVD base regressor all of them (it multiplies by ``V1`` afterwards).
    """
    n = robot.n
    if base is None or _check_base(robot, base).method == "svd":
        return [(_BASIS, slice(10 * j, 10 * j + 10)) for j in range(n)]
    plan, start = [], 0
    basis = _WRENCH_BASIS                                        # (12, 6, 10)
    for j in range(n):
        cols = base.independent[(base.independent >= 10 * j) & (base.independent < 10 * j + 10)] - 10 * j
        plan.append((basis[:, :, cols].reshape(12, -1), slice(start, start + cols.size)))
        start += cols.size
    return plan


def _check_base(robot: SerialRobot, base: Any) -> Any:
    # duck-typed: robidlib.base (a higher layer) builds BaseParameters from this module
    if not all(hasattr(base, a) for a in ("method", "rank", "names", "independent", "V1")):
        raise TypeError(f"base must be a BaseParameters (from base_parameters(robot)), got {type(base).__name__}")
    if tuple(base.names) != tuple(robot.param_names):
        raise ValueError(
            f"base must be computed for this robot's {10 * robot.n} rigid-body parameters (base_parameters(robot), "
            f"without friction), got {base.n_params} parameters named {tuple(base.names)[:2]}..."
        )
    return base


def _output(out: Any, shape: tuple[int, ...]) -> np.ndarray:
    """``out`` checked (C-contiguous float64 of ``shape``) and zeroed, or a new zero array.

    The computation writes only the blocks a joint feels; the zeros of the others are there
    already (one contiguous fill is cheaper than zeroing those blocks one by one).
    """
    if out is None:
        return np.zeros(shape)
    if not isinstance(out, np.ndarray) or out.dtype != np.float64:
        raise TypeError(f"out must be a float64 numpy array, got {type(out).__name__} {getattr(out, 'dtype', '')}")
    if out.shape != shape or not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError(
            f"out must be a writeable C-contiguous array of shape {shape}, got shape {out.shape}"
            f"{'' if out.flags.c_contiguous else ', not C-contiguous'}{'' if out.flags.writeable else ', read-only'}"
        )
    out.fill(0.0)
    return out


def _regressor_chunk(robot, q, qd, qdd, g, out, blocks) -> None:
    """Fill ``out`` (C, n, width, zero on entry) for samples-first q, qd, qdd (C, n).

    Per link ``j``: ``A = phi @ basis`` (C, 6, k) is the link's wrench per unit parameter
    (``phi`` its motion features, ``basis`` the chosen columns of the wrench basis), and
    joint ``i <= j`` feels it through its unit screw ``S[:, i]`` (in link ``j``'s frame):
    ``Y[:, i, cols] = S[:, i] @ A``. Joints after ``j`` do not feel link ``j``: their entries
    keep the zeros ``out`` came with.
    """
    C = q.shape[0]
    qT = q.T.copy()
    s, c1 = np.sin(qT), 1.0 - np.cos(qT)
    # the motion features of every link, samples first: (n, C, 12)
    phi = np.stack([f for _, f in _forward_pass(robot, qT, qd.T.copy(), qdd.T.copy(), g, s, c1)])
    phi = np.ascontiguousarray(phi.transpose(0, 2, 1))
    for (j, S), (basis, dst) in zip(_joint_screws(robot, q, s, c1), blocks):
        if dst.start == dst.stop:
            continue                                   # no column of link j is wanted
        A = (phi[j] @ basis).reshape(C, 6, -1)        # link j's wrench is A @ pi_j
        np.matmul(S, A, out=out[:, : j + 1, dst])


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
