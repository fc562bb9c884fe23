"""The standard inertial-parameter vector: order, names, conversions and consistency checks.

Convention (see the GUIDE)
--------------------------
Link i carries ten standard parameters, in this order::

    [m, mx, my, mz, Ixx, Iyy, Izz, Ixy, Ixz, Iyz]

* ``m`` is the mass (kg) and ``(mx, my, mz) = m * c`` the first moment of mass (kg m), with
  ``c`` the centre of mass in the link frame;
* ``Ixx ... Iyz`` are the entries of the inertia tensor (kg m^2) **about the link-frame
  origin, expressed in the link frame**::

      I = [[Ixx, Ixy, Ixz],
           [Ixy, Iyy, Iyz],
           [Ixz, Iyz, Izz]],   I = sum_k m_k (|r_k|^2 E - r_k r_k^T)

  so the products of inertia are tensor entries (``Ixy = -sum m x y``), as in URDF.

The robot vector stacks the links: ``pi = [pi_1, pi_2, ..., pi_n]``, shape ``(10 n,)``, with
names ``m1, mx1, my1, mz1, Ixx1, Iyy1, Izz1, Ixy1, Ixz1, Iyz1, m2, ...``.

Pinocchio's ``Inertia.toDynamicParameters()`` uses the same quantities (first moment, inertia
about the frame origin) in a different order, ``[m, mx, my, mz, Ixx, Ixy, Iyy, Ixz, Iyz,
Izz]``; :func:`to_pinocchio_order` and :func:`from_pinocchio_order` convert.

The inertia about the centre of mass follows from the parallel-axis (Huygens-Steiner)
theorem, ``I_O = I_C + m (|c|^2 E - c c^T)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
from numpy.typing import ArrayLike

from ._validate import (as_array, check_choice, check_fields, check_flag, check_int, check_nonnegative,
                        check_tolerance)

__all__ = [
    "PARAM_FIELDS",
    "FRICTION_TERMS",
    "MAX_JOINTS",
    "param_names",
    "friction_names",
    "inertia_matrix",
    "inertia_vector",
    "com_to_origin",
    "origin_to_com",
    "link_params",
    "split_link_params",
    "transform_params",
    "to_pinocchio_order",
    "from_pinocchio_order",
    "is_physically_consistent",
]

#: Names of the ten standard parameters of one link, in vector order.
PARAM_FIELDS: tuple[str, ...] = ("m", "mx", "my", "mz", "Ixx", "Iyy", "Izz", "Ixy", "Ixz", "Iyz")

#: Friction terms understood by the friction regressor, with their name prefixes.
FRICTION_TERMS: dict[str, str] = {"viscous": "fv", "coulomb": "fc", "offset": "off"}

# position k of pinocchio's [m, mx, my, mz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz] in the GUIDE order
_PIN_FROM_GUIDE = np.array([0, 1, 2, 3, 4, 7, 5, 8, 9, 6])
_GUIDE_FROM_PIN = np.argsort(_PIN_FROM_GUIDE)


#: Most joints a robot may have: names of more would take seconds and gigabytes to build.
MAX_JOINTS = 10_000


def _check_count(name: str, n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"{name} must be a positive integer, got {n!r}")
    if n > MAX_JOINTS:
        raise ValueError(f"{name} must be at most {MAX_JOINTS} (joints of a robot), got {n}")
    return int(n)


def param_names(n: int) -> tuple[str, ...]:
    """Names of the ``10 n`` standard parameters of an ``n``-link robot.

    Parameters
    ----------
    n : int
        Number of links (joints), >= 1.

    Returns
    -------
    tuple of str
        ``('m1', 'mx1', 'my1', 'mz1', 'Ixx1', 'Iyy1', 'Izz1', 'Ixy1', 'Ixz1', 'Iyz1', 'm2', ...)``.

    Raises
    ------
    ValueError
        If ``n`` is not a positive integer at most :data:`MAX_JOINTS` (10 000).

    Examples
    --------
    >>> param_names(2)[:3], len(param_names(2))
    (('m1', 'mx1', 'my1'), 20)
    """
    n = _check_count("n", n)
    return tuple(f"{f}{i}" for i in range(1, n + 1) for f in PARAM_FIELDS)


def _check_terms(terms: Sequence[str], offset: bool) -> tuple[str, ...]:
    if isinstance(terms, str):
        raise ValueError(f"terms must be a sequence of names such as ('viscous', 'coulomb'), got the string {terms!r}")
    terms = tuple(terms)
    for t in terms:
        if t not in ("viscous", "coulomb"):
            raise ValueError(f"unknown friction term {t!r} in terms; expected one of 'viscous', 'coulomb'")
    if len(set(terms)) != len(terms):
        raise ValueError(f"terms must not repeat a friction term, got {terms}")
    if not isinstance(offset, (bool, np.bool_)):
        raise TypeError(f"offset must be True or False, got {offset!r}")
    if not terms and not offset:
        raise ValueError("terms is empty and offset is False: the friction model would have no column")
    return terms + (("offset",) if offset else ())


def friction_names(n: int, terms: Sequence[str] = ("viscous", "coulomb"), offset: bool = False) -> tuple[str, ...]:
    """Names of the friction parameters, joint-major, in the order of ``terms``.

    Parameters
    ----------
    n : int
        Number of joints.
    terms : sequence of {'viscous', 'coulomb'}, default ('viscous', 'coulomb')
        Friction terms per joint, in column order.
    offset : bool, default False
        Append a constant torque offset per joint (``off1``, ...).

    Returns
    -------
    tuple of str
        e.g. ``('fv1', 'fc1', 'fv2', 'fc2')``; matches :func:`robidlib.regressor.friction_regressor`.

    Raises
    ------
    ValueError
        Unknown or repeated term, no term at all, or ``n`` not an integer in ``[1, MAX_JOINTS]``.

    Examples
    --------
    >>> friction_names(2)
    ('fv1', 'fc1', 'fv2', 'fc2')
    >>> friction_names(1, terms=("coulomb",), offset=True)
    ('fc1', 'off1')
    """
    n = _check_count("n", n)
    full = _check_terms(terms, offset)
    return tuple(f"{FRICTION_TERMS[t]}{i}" for i in range(1, n + 1) for t in full)


def inertia_matrix(v: ArrayLike) -> np.ndarray:
    """Symmetric inertia tensor(s) from ``[Ixx, Iyy, Izz, Ixy, Ixz, Iyz]``.

    Parameters
    ----------
    v : array_like, shape (..., 6)

    Returns
    -------
    numpy.ndarray, shape (..., 3, 3)

    Raises
    ------
    ValueError
        If the last axis is not of length 6 or an entry is NaN/inf.

    Examples
    --------
    >>> inertia_matrix([1.0, 2.0, 3.0, 0.1, 0.2, 0.3])[0]
    array([1. , 0.1, 0.2])
    """
    v = as_array("v", v)
    if v.ndim == 0 or v.shape[-1] != 6:
        raise ValueError(f"v must have shape (..., 6) = [Ixx, Iyy, Izz, Ixy, Ixz, Iyz], got {v.shape}")
    xx, yy, zz, xy, xz, yz = np.moveaxis(v, -1, 0)
    return np.stack(
        [np.stack([xx, xy, xz], -1), np.stack([xy, yy, yz], -1), np.stack([xz, yz, zz], -1)], -2
    )


def inertia_vector(I: ArrayLike, tol: float = 1e-9) -> np.ndarray:
    """``[Ixx, Iyy, Izz, Ixy, Ixz, Iyz]`` of symmetric inertia tensor(s).

    Parameters
    ----------
    I : array_like, shape (..., 3, 3)
        Symmetric tensors.
    tol : float, default 1e-9
        Largest accepted asymmetry ``|I - I.T|`` relative to ``max(1, |I|)``: 0 (exactly
        symmetric) or at least ``2.2e-14`` (round-off).

    Returns
    -------
    numpy.ndarray, shape (..., 6)

    Raises
    ------
    ValueError
        Wrong shape, NaN/inf, a tensor that is not symmetric, or a ``tol`` between 0 and round-off.

    Examples
    --------
    >>> inertia_vector(inertia_matrix([1.0, 2.0, 3.0, 0.1, 0.2, 0.3])).tolist()
    [1.0, 2.0, 3.0, 0.1, 0.2, 0.3]
    """
    I = as_array("I", I)
    if I.ndim < 2 or I.shape[-2:] != (3, 3):
        raise ValueError(f"I must have shape (..., 3, 3), got {I.shape}")
    tol = check_tolerance("tol", tol, allow_zero=True)
    asym = np.abs(I - np.swapaxes(I, -1, -2)).max() if I.size else 0.0
    if asym > tol * max(1.0, float(np.abs(I).max()) if I.size else 1.0):
        raise ValueError(f"I must be symmetric, got an asymmetry of {asym:.3g}")
    return np.stack(
        [I[..., 0, 0], I[..., 1, 1], I[..., 2, 2], I[..., 0, 1], I[..., 0, 2], I[..., 1, 2]], -1
    )


def _steiner(m: np.ndarray, c: np.ndarray) -> np.ndarray:
    """m (|c|^2 E - c c^T) for batches m (...), c (..., 3)."""
    cc = np.einsum("...i,...j->...ij", c, c)
    return m[..., None, None] * (np.einsum("...i,...i->...", c, c)[..., None, None] * np.eye(3) - cc)


def _mass_com(mass, com):
    m = as_array("mass", mass)
    c = as_array("com", com)
    if c.ndim == 0 or c.shape[-1] != 3:
        raise ValueError(f"com must have shape (..., 3), got {c.shape}")
    if c.shape[:-1] != m.shape:
        raise ValueError(f"com must have shape {m.shape + (3,)} to match mass {m.shape}, got {c.shape}")
    return m, c


def _inertia(name, I, batch):
    I = as_array(name, I)
    if I.shape == batch + (6,):
        I = inertia_matrix(I)
    if I.shape != batch + (3, 3):
        raise ValueError(f"{name} must have shape {batch + (3, 3)} or {batch + (6,)}, got {I.shape}")
    return I


def com_to_origin(mass: ArrayLike, com: ArrayLike, inertia_com: ArrayLike) -> np.ndarray:
    """Inertia about the frame origin from the inertia about the centre of mass.

    ``I_O = I_C + m (|c|^2 E - c c^T)`` (parallel-axis theorem), all in the same frame.

    Parameters
    ----------
    mass : array_like, shape (...)
        Mass(es) in kg.
    com : array_like, shape (..., 3)
        Centre(s) of mass in m, in the frame.
    inertia_com : array_like, shape (..., 3, 3) or (..., 6)
        Inertia about the centre of mass (kg m^2), as a tensor or as
        ``[Ixx, Iyy, Izz, Ixy, Ixz, Iyz]``.

    Returns
    -------
    numpy.ndarray, shape (..., 3, 3)

    Raises
    ------
    ValueError
        Shapes that do not match, NaN/inf.

    Examples
    --------
    >>> import numpy as np
    >>> # a point mass of 2 kg at 1 m on x: Iyy = Izz = 2 kg m^2 about the origin
    >>> np.diag(com_to_origin(2.0, [1.0, 0.0, 0.0], np.zeros((3, 3)))).tolist()
    [0.0, 2.0, 2.0]
    """
    m, c = _mass_com(mass, com)
    Ic = _inertia("inertia_com", inertia_com, m.shape)
    return Ic + _steiner(m, c)


def origin_to_com(mass: ArrayLike, com: ArrayLike, inertia_origin: ArrayLike) -> np.ndarray:
    """Inertia about the centre of mass from the inertia about the frame origin.

    ``I_C = I_O - m (|c|^2 E - c c^T)``; inverse of :func:`com_to_origin`.

    Parameters
    ----------
    mass : array_like, shape (...)
    com : array_like, shape (..., 3)
    inertia_origin : array_like, shape (..., 3, 3) or (..., 6)

    Returns
    -------
    numpy.ndarray, shape (..., 3, 3)

    Raises
    ------
    ValueError
        Shapes that do not match, NaN/inf.

    Examples
    --------
    >>> import numpy as np
    >>> Io = com_to_origin(2.0, [0.1, 0.2, 0.3], np.diag([1.0, 2.0, 3.0]))
    >>> bool(np.allclose(origin_to_com(2.0, [0.1, 0.2, 0.3], Io), np.diag([1.0, 2.0, 3.0])))
    True
    """
    m, c = _mass_com(mass, com)
    Io = _inertia("inertia_origin", inertia_origin, m.shape)
    return Io - _steiner(m, c)


def link_params(mass: ArrayLike, com: ArrayLike, inertia: ArrayLike, about: str = "com") -> np.ndarray:
    """Standard parameters ``[m, mx, my, mz, Ixx, Iyy, Izz, Ixy, Ixz, Iyz]`` of link(s).

    Parameters
    ----------
    mass : array_like, shape (...)
        Mass(es), kg (>= 0).
    com : array_like, shape (..., 3)
        Centre of mass in the link frame, m.
    inertia : array_like, shape (..., 3, 3) or (..., 6)
        Inertia tensor in the link frame, about the centre of mass (``about="com"``) or about
        the link-frame origin (``about="origin"``).
    about : {'com', 'origin'}, default 'com'

    Returns
    -------
    numpy.ndarray, shape (..., 10)
        Inertia about the link origin, GUIDE order.

    Raises
    ------
    ValueError
        Negative mass, shapes that do not match, NaN/inf, unknown ``about``.

    Examples
    --------
    >>> import numpy as np
    >>> link_params(2.0, [0.5, 0.0, 0.0], np.zeros(6)).tolist()
    [2.0, 1.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0, 0.0]
    """
    check_choice("about", about, ("com", "origin"))
    m, c = _mass_com(mass, com)
    if np.any(m < 0):
        raise ValueError(f"mass must be >= 0, got {m[m < 0].ravel()[:3].tolist()}")
    I = _inertia("inertia", inertia, m.shape)
    if about == "com":
        I = I + _steiner(m, c)
    return np.concatenate([m[..., None], m[..., None] * c, inertia_vector(I)], axis=-1)


def _link_blocks(name: str, pi: ArrayLike) -> np.ndarray:
    pi = as_array(name, pi)
    if pi.ndim == 0 or pi.shape[-1] == 0 or pi.shape[-1] % 10:
        raise ValueError(f"{name} must have shape (..., 10 n) with n >= 1 links, got {pi.shape}")
    return pi.reshape(pi.shape[:-1] + (pi.shape[-1] // 10, 10))


def split_link_params(pi: ArrayLike, about: str = "com") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mass, centre of mass and inertia tensor of each link of a parameter vector.

    Parameters
    ----------
    pi : array_like, shape (10 n,) or (..., 10 n)
        Standard parameters.
    about : {'com', 'origin'}, default 'com'
        Return the inertia about the centre of mass or about the link origin.

    Returns
    -------
    mass : numpy.ndarray, shape (..., n)
    com : numpy.ndarray, shape (..., n, 3)
        ``(mx, my, mz) / m``.
    inertia : numpy.ndarray, shape (..., n, 3, 3)

    Raises
    ------
    ValueError
        Wrong shape, NaN/inf, or a zero mass with a non-zero first moment (the centre of mass
        is then undefined). A zero mass with a zero first moment gives ``com = 0``.

    Examples
    --------
    >>> m, c, I = split_link_params(link_params(2.0, [0.5, 0, 0], [1.0, 2, 3, 0, 0, 0]))
    >>> m.tolist(), c.tolist(), I[0].diagonal().tolist()
    ([2.0], [[0.5, 0.0, 0.0]], [1.0, 2.0, 3.0])
    """
    check_choice("about", about, ("com", "origin"))
    P = _link_blocks("pi", pi)
    m, h = P[..., 0], P[..., 1:4]
    zero = m == 0
    if np.any(zero & np.any(h != 0, axis=-1)):
        raise ValueError("pi has a link with zero mass but a non-zero first moment (mx, my, mz)")
    c = h / np.where(zero, 1.0, m)[..., None]
    Io = inertia_matrix(P[..., 4:10])
    return m, c, (Io - _steiner(m, c) if about == "com" else Io)


def transform_params(pi: ArrayLike, R: ArrayLike, p: ArrayLike) -> np.ndarray:
    """Express the parameters of a body given in frame B in another frame A.

    With ``T_AB = (R, p)`` (the pose of B in A), the first moment becomes
    ``h_A = m p + R h_B`` and the inertia about A's origin
    ``I_A = R I_B R^T + m (|p|^2 E - p p^T) + 2 (p . h) E - p h^T - h p^T`` with
    ``h = R h_B``. This is how a body attached by a fixed joint is merged into its parent.

    Parameters
    ----------
    pi : array_like, shape (..., 10)
        Parameters of one body per row, in frame B.
    R : array_like, shape (3, 3)
        Rotation of B in A.
    p : array_like, shape (3,)
        Origin of B in A, m.

    Returns
    -------
    numpy.ndarray, shape (..., 10)

    Raises
    ------
    ValueError
        Wrong shapes, NaN/inf, or ``R`` not a rotation.

    Examples
    --------
    >>> import numpy as np
    >>> pB = link_params(1.0, [0, 0, 0], np.diag([0.1, 0.1, 0.1]))
    >>> pA = transform_params(pB, np.eye(3), [0.0, 0.0, 2.0])
    >>> pA[:4].tolist(), float(pA[4])
    ([1.0, 0.0, 0.0, 2.0], 4.1)
    """
    from .spatial import is_rotation

    pi = as_array("pi", pi)
    if pi.ndim == 0 or pi.shape[-1] != 10:
        raise ValueError(f"pi must have shape (..., 10), got {pi.shape}")
    R = as_array("R", R, shape=(3, 3))
    if not is_rotation(R):
        raise ValueError("R must be a rotation matrix (orthonormal, determinant +1)")
    p = as_array("p", p, shape=(3,))
    m = pi[..., 0]
    h = pi[..., 1:4] @ R.T
    I = R @ inertia_matrix(pi[..., 4:10]) @ R.T
    ph = (h @ p)[..., None, None]
    I = (
        I
        + _steiner(m, np.broadcast_to(p, h.shape))
        + 2.0 * ph * np.eye(3)
        - np.einsum("i,...j->...ij", p, h)
        - np.einsum("...i,j->...ij", h, p)
    )
    return np.concatenate([m[..., None], m[..., None] * p + h, inertia_vector(I)], axis=-1)


def _wrench_basis(phi: np.ndarray) -> np.ndarray:
    """The 6x10 matrix A with [f; n] = A pi of one link, from its motion features phi (..., 12).

    ``phi = [a (3), dw (3), wx^2, wy^2, wz^2, wx wy, wx wz, wy wz]`` (origin acceleration incl.
    gravity, angular acceleration, products of the angular velocity). Newton-Euler about the
    link origin with ``pi = [m, h, Ixx, Iyy, Izz, Ixy, Ixz, Iyz]`` (``h = m c``)::

        f = m a + (dw x + w x w x) h
        n = I dw + w x (I w) - a x h
    """
    ax, ay, az, dx, dy, dz, wxx, wyy, wzz, wxy, wxz, wyz = np.moveaxis(phi, -1, 0)
    z = np.zeros_like(ax)
    rows = [
        [ax, -wyy - wzz, wxy - dz, wxz + dy, z, z, z, z, z, z],
        [ay, wxy + dz, -wxx - wzz, wyz - dx, z, z, z, z, z, z],
        [az, wxz - dy, wyz + dx, -wxx - wyy, z, z, z, z, z, z],
        [z, z, az, -ay, dx, -wyz, wyz, dy - wxz, dz + wxy, wyy - wzz],
        [z, -az, z, ax, wxz, dy, -wxz, dx + wyz, wzz - wxx, dz - wxy],
        [z, ay, -ax, z, -wxy, wxy, dz, wxx - wyy, dx - wyz, dy + wxz],
    ]
    return np.stack([np.stack(r, axis=-1) for r in rows], axis=-2)


#: A is linear in the 12 features: A = sum_f phi_f _WRENCH_BASIS[f]  (shape (12, 6, 10)).
#: The robot's constants, the RNEA and the regressor all build on it.
_WRENCH_BASIS = _wrench_basis(np.eye(12))


def to_pinocchio_order(x: ArrayLike, axis: int = -1) -> np.ndarray:
    """Reorder each 10-block from the GUIDE order to pinocchio's dynamic-parameter order.

    GUIDE ``[m, mx, my, mz, Ixx, Iyy, Izz, Ixy, Ixz, Iyz]`` ->
    pinocchio ``[m, mx, my, mz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz]`` (both: first moment and
    inertia about the frame origin). Works for parameter vectors and for regressor columns.

    Parameters
    ----------
    x : array_like
        Array whose ``axis`` has length ``10 n``.
    axis : int, default -1

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    ValueError
        If the axis length is not a positive multiple of 10 or ``axis`` is out of range
        (NaN entries are kept: this is a reordering).

    Examples
    --------
    >>> to_pinocchio_order([1, 2, 3, 4, 11, 22, 33, 12, 13, 23]).tolist()
    [1.0, 2.0, 3.0, 4.0, 11.0, 12.0, 22.0, 13.0, 23.0, 33.0]
    """
    return _permute("x", x, axis, _PIN_FROM_GUIDE)


def from_pinocchio_order(x: ArrayLike, axis: int = -1) -> np.ndarray:
    """Reorder each 10-block from pinocchio's order back to the GUIDE order.

    Inverse of :func:`to_pinocchio_order`.

    Parameters
    ----------
    x : array_like
        Array whose ``axis`` has length ``10 n`` (pinocchio order).
    axis : int, default -1

    Returns
    -------
    numpy.ndarray
        GUIDE order ``[m, mx, my, mz, Ixx, Iyy, Izz, Ixy, Ixz, Iyz]`` per block.

    Raises
    ------
    ValueError
        If the axis length is not a positive multiple of 10 or ``axis`` is out of range
        (NaN entries are kept: this is a reordering).

    Examples
    --------
    >>> from_pinocchio_order(to_pinocchio_order(list(range(10)))).tolist()
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
    """
    return _permute("x", x, axis, _GUIDE_FROM_PIN)


def _permute(name, x, axis, perm):
    x = as_array(name, x, finite=False)          # a pure reordering: NaN placeholders may stay
    if x.ndim == 0:
        raise ValueError(f"{name} must have at least one dimension, got a scalar")
    axis = check_int("axis", axis, -x.ndim, x.ndim - 1)
    L = x.shape[axis]
    if L == 0 or L % 10:
        raise ValueError(f"{name} must have a multiple of 10 entries along axis {axis}, got {L}")
    idx = (np.arange(L // 10)[:, None] * 10 + perm[None, :]).ravel()
    return np.take(x, idx, axis=axis)


def is_physically_consistent(
    pi: ArrayLike, tol: float = 0.0, per_link: bool = False, *, explain: bool = False
) -> bool | np.ndarray | ConsistencyReport:
    """Whether every link's parameters describe a physically possible rigid body.

    A link is consistent when (i) ``m > tol``, (ii) its inertia about the centre of mass,
    ``I_C = I_O - m (|c|^2 E - c c^T)``, is positive definite (smallest eigenvalue > ``tol``)
    and (iii) the principal moments satisfy the triangle inequalities
    ``I1 + I2 >= I3`` (for every permutation, to ``-tol``) that every mass distribution obeys.

    Parameters
    ----------
    pi : array_like, shape (10 n,)
        Standard parameters.
    tol : float, default 0.0
        Non-negative margin for the three tests.
    per_link : bool, default False
        Return one flag per link instead of a single bool.
    explain : bool, default False
        Return a :class:`ConsistencyReport` (truthy exactly when the answer is True) that
        names the failing links and conditions; see :func:`consistency_report`.

    Returns
    -------
    bool or numpy.ndarray of bool, shape (n,), or ConsistencyReport

    Raises
    ------
    ValueError
        Wrong shape, NaN/inf, negative ``tol``.

    Examples
    --------
    >>> import numpy as np
    >>> good = link_params(1.0, [0.1, 0, 0], [0.02, 0.03, 0.04, 0, 0, 0])
    >>> bad = link_params(1.0, [0.1, 0, 0], [0.01, 0.01, 0.05, 0, 0, 0])  # 0.01 + 0.01 < 0.05
    >>> is_physically_consistent(good), is_physically_consistent(np.r_[good, bad], per_link=True).tolist()
    (True, [True, False])
    >>> print(is_physically_consistent(np.r_[good, bad], explain=True).failures[0][:2])
    (2, 'triangle inequality')
    """
    if check_flag("explain", explain):
        return consistency_report(pi, tol)
    tol = check_nonnegative("tol", tol)
    per_link = check_flag("per_link", per_link)
    P = _link_blocks("pi", pi)
    if P.ndim != 2:
        raise ValueError(f"pi must have shape (10 n,), got {np.shape(pi)}")
    m, h = P[:, 0], P[:, 1:4]
    mass_ok = m > tol
    c = h / np.where(mass_ok, m, 1.0)[:, None]
    Ic = inertia_matrix(P[:, 4:10]) - _steiner(m, c)
    J = np.linalg.eigvalsh(Ic)  # ascending principal moments I1 <= I2 <= I3
    pd_ok = J[:, 0] > tol
    tri_ok = J[:, 0] + J[:, 1] - J[:, 2] >= -tol
    ok = mass_ok & pd_ok & tri_ok
    return ok if per_link else bool(np.all(ok))


# ---------------------------------------------------------------------------------------------
# Pseudo-inertia, a report of the failed conditions, and the nearest consistent body
# ---------------------------------------------------------------------------------------------


def _reject_complex(name: str, x) -> None:
    if np.iscomplexobj(x):
        raise TypeError(f"{name} must be real, got a complex array (dtype {np.asarray(x).dtype})")


def pseudo_inertia(pi_j: ArrayLike) -> np.ndarray:
    """Pseudo-inertia matrix ``J`` (4x4) of a body from its ten standard parameters.

    With ``I`` the inertia about the link-frame origin and ``h = m c`` the first moment::

        J = [[Theta, h],      Theta = tr(I)/2 E - I = sum_k m_k r_k r_k^T
             [h^T,   m]]

    ``J = sum_k m_k [r_k; 1] [r_k; 1]^T`` is the matrix of second moments of the mass
    distribution (``Theta`` is its second-moment, or covariance-like, matrix about the origin).
    A rigid body exists with these parameters (a non-negative mass density, point masses
    included) if and only if ``J`` is positive semi-definite :cite:`wensing2018`; ``J >= 0`` is
    equivalent to ``m >= 0`` together with the triangle inequalities of the principal moments
    about the centre of mass. Positive definiteness of ``J`` is the strict version (``m > 0``,
    strict triangle inequalities, hence a positive definite inertia about the centre of mass).
    ``J`` is linear in the parameters, which makes ``J >= 0`` a linear matrix inequality.

    Parameters
    ----------
    pi_j : array_like, shape (10,) or (..., 10)
        ``[m, mx, my, mz, Ixx, Iyy, Izz, Ixy, Ixz, Iyz]`` of one link (or a batch of links),
        inertia about the link-frame origin (GUIDE order).

    Returns
    -------
    numpy.ndarray, shape (4, 4) or (..., 4, 4)
        Symmetric.

    Raises
    ------
    ValueError
        If the last axis is not of length 10, or an entry is NaN/inf.
    TypeError
        If ``pi_j`` is complex or not numeric.

    Examples
    --------
    >>> import numpy as np
    >>> # a point mass of 2 kg at (0.5, 0, 0): J = 2 [r; 1][r; 1]^T
    >>> J = pseudo_inertia(link_params(2.0, [0.5, 0.0, 0.0], np.zeros(6)))
    >>> J[[0, 0, 3], [0, 3, 3]].tolist(), bool(np.linalg.eigvalsh(J).min() > -1e-12)
    ([0.5, 1.0, 2.0], True)
    """
    _reject_complex("pi_j", pi_j)
    pi_j = as_array("pi_j", pi_j)
    if pi_j.ndim == 0 or pi_j.shape[-1] != 10:
        raise ValueError(
            f"pi_j must have shape (10,) or (..., 10) = [m, mx, my, mz, Ixx, Iyy, Izz, Ixy, Ixz, Iyz] "
            f"of one link, got {pi_j.shape}"
        )
    I = inertia_matrix(pi_j[..., 4:10])
    tr = np.trace(I, axis1=-2, axis2=-1)
    J = np.zeros(pi_j.shape[:-1] + (4, 4))
    J[..., :3, :3] = 0.5 * tr[..., None, None] * np.eye(3) - I
    J[..., :3, 3] = pi_j[..., 1:4]
    J[..., 3, :3] = pi_j[..., 1:4]
    J[..., 3, 3] = pi_j[..., 0]
    return J


def pseudo_inertia_params(J: ArrayLike, tol: float = 1e-9) -> np.ndarray:
    """Standard parameters of a body from its pseudo-inertia matrix (inverse of :func:`pseudo_inertia`).

    ``m = J[3, 3]``, ``h = J[:3, 3]``, ``I = tr(Theta) E - Theta`` with ``Theta = J[:3, :3]``.

    Parameters
    ----------
    J : array_like, shape (4, 4) or (..., 4, 4)
        Symmetric matrices.
    tol : float, default 1e-9
        Largest accepted asymmetry ``|J - J.T|`` relative to ``max(1, |J|)``: 0 (exactly
        symmetric) or at least ``2.2e-14`` (round-off).

    Returns
    -------
    numpy.ndarray, shape (10,) or (..., 10)
        GUIDE order, inertia about the link-frame origin.

    Raises
    ------
    ValueError
        Wrong shape, NaN/inf, a matrix that is not symmetric, or a ``tol`` that is negative
        or between 0 and round-off.
    TypeError
        If ``J`` is complex or not numeric.

    Examples
    --------
    >>> import numpy as np
    >>> pi = link_params(1.5, [0.1, -0.2, 0.3], [0.02, 0.03, 0.04, 0.001, 0.0, -0.002])
    >>> bool(np.allclose(pseudo_inertia_params(pseudo_inertia(pi)), pi))
    True
    """
    tol = check_tolerance("tol", tol, allow_zero=True)
    _reject_complex("J", J)
    J = as_array("J", J)
    if J.ndim < 2 or J.shape[-2:] != (4, 4):
        raise ValueError(f"J must have shape (4, 4) or (..., 4, 4), got {J.shape}")
    asym = float(np.abs(J - np.swapaxes(J, -1, -2)).max()) if J.size else 0.0
    if asym > tol * max(1.0, float(np.abs(J).max()) if J.size else 1.0):
        raise ValueError(f"J must be symmetric, got an asymmetry of {asym:.3g}")
    S = 0.5 * (J[..., :3, :3] + np.swapaxes(J[..., :3, :3], -1, -2))
    I = np.trace(S, axis1=-2, axis2=-1)[..., None, None] * np.eye(3) - S
    h = 0.5 * (J[..., :3, 3] + J[..., 3, :3])
    return np.concatenate([J[..., 3, 3][..., None], h, inertia_vector(I)], axis=-1)


#: The conditions reported by :func:`consistency_report`, in the order they are checked.
CONSISTENCY_CONDITIONS: tuple[str, ...] = ("mass", "positive definite", "triangle inequality", "pseudo-inertia")

# round-off allowance of the eigenvalue test of J, relative to its 2-norm
_J_ROUNDOFF = 64 * np.finfo(float).eps


@dataclass(frozen=True)
class ConsistencyReport:
    """Which links of a parameter vector are physically consistent, and why not.

    Returned by :func:`consistency_report` (and by ``is_physically_consistent(...,
    explain=True)``). It is truthy exactly when every link is consistent.

    Attributes
    ----------
    consistent : bool
        Every link passes (i)-(iii) below: the same answer as :func:`is_physically_consistent`.
    per_link : numpy.ndarray of bool, shape (n,)
        One flag per link.
    mass : numpy.ndarray, shape (n,)
        ``m`` of each link (kg).
    min_moment : numpy.ndarray, shape (n,)
        Smallest principal moment of the inertia about the centre of mass (kg m^2); NaN where
        ``m <= tol`` (no centre of mass).
    triangle_margin : numpy.ndarray, shape (n,)
        ``I1 + I2 - I3`` of the ascending principal moments about the centre of mass (kg m^2;
        the triangle inequality holds when it is >= 0); NaN where ``m <= tol``.
    min_eig_pseudo : numpy.ndarray, shape (n,)
        Smallest eigenvalue of the pseudo-inertia ``J`` divided by its largest absolute
        eigenvalue (dimensionless; 0 for a zero body). ``J >= 0`` holds when it is >=
        ``-64 eps``.
    failures : tuple of (int, str, str)
        ``(link, condition, detail)`` for every failed condition of every inconsistent link;
        ``link`` counts from 1, ``condition`` is one of :data:`CONSISTENCY_CONDITIONS`.
    tol : float
        The tolerance used.
    """

    consistent: bool
    per_link: np.ndarray
    mass: np.ndarray
    min_moment: np.ndarray
    triangle_margin: np.ndarray
    min_eig_pseudo: np.ndarray
    failures: tuple[tuple[int, str, str], ...]
    tol: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "consistent", check_flag("consistent", self.consistent))
        per_link = np.asarray(self.per_link)
        if per_link.dtype != bool or per_link.ndim != 1 or per_link.size == 0:
            raise ValueError(f"per_link must be a non-empty 1-D bool array, got {per_link.dtype} {per_link.shape}")
        n = per_link.size
        check_fields(self, finite=False, mass=(n,), min_moment=(n,), triangle_margin=(n,), min_eig_pseudo=(n,))
        for name in ("mass", "min_eig_pseudo", "min_moment", "triangle_margin"):
            a = getattr(self, name)
            bad = np.isinf(a) if name in ("min_moment", "triangle_margin") else ~np.isfinite(a)
            if np.any(bad):                                    # NaN only where m <= tol (documented)
                raise ValueError(f"{name} must be finite{' or NaN' if name[0] in 'mt' and name != 'mass' else ''}, "
                                 f"got {a.tolist()}")
        if isinstance(self.failures, (str, bytes)) or not hasattr(self.failures, "__iter__") or not all(
                isinstance(f, tuple) and len(f) == 3 for f in self.failures):
            raise TypeError(f"failures must be a tuple of (link, condition, detail) tuples, got {self.failures!r:.80}")
        object.__setattr__(self, "failures", tuple(self.failures))
        object.__setattr__(self, "tol", check_nonnegative("tol", self.tol))

    def __bool__(self) -> bool:
        return bool(self.consistent)

    @property
    def reason(self) -> str:
        """One line per failed condition, ``"link 2: mass: m = -0.3 kg <= tol 0"``; empty when consistent."""
        return "\n".join(f"link {j}: {cond}: {detail}" for j, cond, detail in self.failures)

    def __str__(self) -> str:
        n = self.per_link.size
        if self.consistent:
            return f"physically consistent: all {n} link(s) pass (tol {self.tol:g})"
        bad = ", ".join(str(j + 1) for j in np.flatnonzero(~self.per_link))
        return f"not physically consistent: link(s) {bad} of {n} fail (tol {self.tol:g})\n" + self.reason


def consistency_report(pi: ArrayLike, tol: float = 0.0) -> ConsistencyReport:
    """Check every link of ``pi`` and say which link fails which condition.

    A link is consistent (as in :func:`is_physically_consistent`) when

    (i) ``mass``: ``m > tol``;
    (ii) ``positive definite``: the inertia about the centre of mass,
         ``I_C = I_O - m (|c|^2 E - c c^T)``, has its smallest eigenvalue ``> tol``;
    (iii) ``triangle inequality``: its principal moments satisfy ``I1 + I2 >= I3 - tol``
          (every mass distribution obeys ``I_a + I_b >= I_c``).

    For an inconsistent link the report also tells whether (iv) ``pseudo-inertia``:
    ``J(pi_j) >= 0`` (:func:`pseudo_inertia`) fails, to round-off. (iv) is the linear matrix
    inequality equivalent to ``m >= 0`` and (iii) with ``tol = 0`` :cite:`wensing2018`; (i)-(iii)
    add the strict margins a simulator needs (a positive mass, a non-singular inertia).

    Parameters
    ----------
    pi : array_like, shape (10 n,)
        Standard parameters (GUIDE order, inertia about the link origins).
    tol : float, default 0.0
        Non-negative margin of (i)-(iii), in kg for (i) and kg m^2 for (ii)-(iii).

    Returns
    -------
    ConsistencyReport
        Truthy when every link is consistent; ``failures`` and ``reason`` name the failing
        links (from 1) and conditions.

    Raises
    ------
    ValueError
        Wrong shape, NaN/inf, negative ``tol``.
    TypeError
        Complex or non-numeric ``pi``.

    Examples
    --------
    >>> import numpy as np
    >>> good = link_params(1.0, [0.1, 0, 0], [0.02, 0.03, 0.04, 0, 0, 0])
    >>> bad = link_params(1.0, [0.1, 0, 0], [0.01, 0.01, 0.05, 0, 0, 0])  # 0.01 + 0.01 < 0.05
    >>> rep = consistency_report(np.r_[good, bad])
    >>> bool(rep), rep.per_link.tolist()
    (False, [True, False])
    >>> [(j, cond) for j, cond, _ in rep.failures]
    [(2, 'triangle inequality'), (2, 'pseudo-inertia')]
    """
    tol = check_nonnegative("tol", tol)
    _reject_complex("pi", pi)
    P = _link_blocks("pi", pi)
    if P.ndim != 2:
        raise ValueError(f"pi must have shape (10 n,), got {np.shape(pi)}")
    n = P.shape[0]
    m, h = P[:, 0], P[:, 1:4]
    mass_ok = m > tol
    c = h / np.where(mass_ok, m, 1.0)[:, None]
    Ic = inertia_matrix(P[:, 4:10]) - _steiner(m, c)
    moments = np.linalg.eigvalsh(Ic)  # ascending principal moments
    min_moment = np.where(mass_ok, moments[:, 0], np.nan)
    tri = np.where(mass_ok, moments[:, 0] + moments[:, 1] - moments[:, 2], np.nan)
    pd_ok = mass_ok & (moments[:, 0] > tol)
    tri_ok = mass_ok & (moments[:, 0] + moments[:, 1] - moments[:, 2] >= -tol)
    ok = mass_ok & pd_ok & tri_ok
    lam = np.linalg.eigvalsh(pseudo_inertia(P))
    top = np.abs(lam).max(axis=1)
    min_eig = np.where(top > 0, lam[:, 0] / np.where(top > 0, top, 1.0), 0.0)
    failures = []
    for j in map(int, np.flatnonzero(~ok)):
        if not mass_ok[j]:
            failures.append((j + 1, "mass", f"m = {m[j]:.4g} kg <= tol {tol:g}"))
        else:
            if not pd_ok[j]:
                failures.append(
                    (j + 1, "positive definite", f"smallest principal moment about the centre of mass "
                     f"{min_moment[j]:.4g} kg m^2 <= tol {tol:g}")
                )
            if not tri_ok[j]:
                I1, I2, I3 = moments[j]
                failures.append(
                    (j + 1, "triangle inequality", f"I1 + I2 - I3 = {I1:.4g} + {I2:.4g} - {I3:.4g} = "
                     f"{tri[j]:.4g} kg m^2 < -tol {tol:g}")
                )
        if min_eig[j] < -_J_ROUNDOFF:
            failures.append(
                (j + 1, "pseudo-inertia", f"J is not positive semi-definite: smallest eigenvalue "
                 f"{lam[j, 0]:.4g} ({min_eig[j]:.3g} of the largest)")
            )
    return ConsistencyReport(
        consistent=bool(np.all(ok)), per_link=ok, mass=m.copy(), min_moment=min_moment,
        triangle_margin=tri, min_eig_pseudo=min_eig, failures=tuple(failures), tol=tol,
    )


def nearest_consistent(pi: ArrayLike, *, margin: float = 0.0, length: ArrayLike = 1.0) -> np.ndarray:
    """The nearest physically consistent parameters: each link's pseudo-inertia projected on ``J >= 0``.

    Metric. Link by link, the result minimises the Frobenius distance of the scaled
    pseudo-inertias, ``|| D (J(pi_j') - J(pi_j)) D ||_F`` with ``D = diag(1/L, 1/L, 1/L, 1)``
    and ``L = length`` of that link: lengths are measured in units of ``L``, so every entry
    of ``D J D`` is in kg and the mass, first moment and second moment enter alike. The
    minimiser is the eigenvalue clipping ``V max(lambda, margin) V^T`` of ``D J D`` (the
    Frobenius-nearest matrix in ``{X >= margin E}`` :cite:`higham1988`). Links already satisfying
    ``D J D >= margin E`` are returned unchanged.

    This is a projection of the standard parameters only: it does **not** keep the torques of
    the robot (its base parameters) unchanged. To make a simulable robot from an identified
    model that keeps the fit, use :func:`robidlib.estimation.physical_ls`, which searches the
    consistent sets among those the data cannot tell apart.

    Parameters
    ----------
    pi : array_like, shape (10 n,)
        Standard parameters (GUIDE order), possibly inconsistent (e.g. an OLS estimate).
    margin : float, default 0.0
        Smallest eigenvalue of ``D J D`` in the result, kg (>= 0). With ``margin > 0`` every
        link is strictly consistent: ``m >= margin`` and a positive definite inertia about the
        centre of mass, so :func:`is_physically_consistent` accepts it; with 0 a link can end on
        the boundary (a zero eigenvalue: a flat or massless body).
    length : float or array_like, shape (n,), default 1.0
        Length scale ``L`` of each link, m (> 0): the size of the link is a good choice.

    Returns
    -------
    numpy.ndarray, shape (10 n,)

    Raises
    ------
    ValueError
        Wrong shape, NaN/inf, negative ``margin``, non-positive or misshaped ``length``.
    TypeError
        Complex or non-numeric input.

    Examples
    --------
    >>> import numpy as np
    >>> bad = link_params(1.0, [0.1, 0, 0], [0.01, 0.01, 0.05, 0, 0, 0])  # triangle fails
    >>> fixed = nearest_consistent(bad, margin=1e-6, length=0.2)
    >>> is_physically_consistent(bad), is_physically_consistent(fixed)
    (False, True)
    >>> float(np.round(fixed[0], 3))  # the mass hardly moves
    1.0
    """
    margin = check_nonnegative("margin", margin)
    _reject_complex("pi", pi)
    _reject_complex("length", length)
    P = _link_blocks("pi", pi)
    if P.ndim != 2:
        raise ValueError(f"pi must have shape (10 n,), got {np.shape(pi)}")
    n = P.shape[0]
    L = as_array("length", length)
    if L.ndim == 0:
        L = np.full(n, float(L))
    if L.shape != (n,):
        raise ValueError(f"length must be a scalar or have shape ({n},) (one per link), got {L.shape}")
    if np.any(L <= 0):
        raise ValueError(f"length must be > 0 (metres), got {L.tolist()}")
    out = P.copy()
    d = np.ones((n, 4))
    d[:, :3] = 1.0 / L[:, None]
    Js = pseudo_inertia(P) * d[:, :, None] * d[:, None, :]
    lam, V = np.linalg.eigh(Js)
    for j in np.flatnonzero(lam[:, 0] < margin):
        Jp = (V[j] * np.maximum(lam[j], margin)) @ V[j].T
        out[j] = pseudo_inertia_params((Jp + Jp.T) / 2 / d[j][:, None] / d[j][None, :])
    return out.reshape(np.shape(pi))


__all__ += [
    "pseudo_inertia",
    "pseudo_inertia_params",
    "CONSISTENCY_CONDITIONS",
    "ConsistencyReport",
    "consistency_report",
    "nearest_consistent",
]


# ------------------------------------------------------------------- log-Cholesky parameters
# Rucker and Wensing (2022): the pseudo-inertia of a body is J = U U^T with U upper triangular
# and a positive diagonal; writing the diagonal as exponentials gives ten unconstrained numbers
# theta = [alpha, d1, d2, d3, s12, s23, s13, t1, t2, t3] (pinocchio's order):
#
#     U = exp(alpha) [[exp(d1), s12,     s13,     t1],
#                     [0,       exp(d2), s23,     t2],
#                     [0,       0,       exp(d3), t3],
#                     [0,       0,       0,       1 ]]
#
# Every theta in R^10 gives J > 0 (a body with m = exp(2 alpha) > 0, centre of mass t), and
# every J > 0 has exactly one theta (the Cholesky factor with a positive diagonal is unique).
LOG_CHOLESKY_FIELDS: tuple[str, ...] = ("alpha", "d1", "d2", "d3", "s12", "s23", "s13", "t1", "t2", "t3")


def _theta(name: str, theta: ArrayLike) -> np.ndarray:
    _reject_complex(name, theta)
    th = as_array(name, theta)
    if th.ndim == 0 or th.shape[-1] != 10:
        raise ValueError(f"{name} must have shape (10,) or (..., 10) = [alpha, d1, d2, d3, s12, s23, s13, t1, t2, "
                         f"t3], got {th.shape}")
    return th


def log_cholesky_factor(theta: ArrayLike) -> np.ndarray:
    """The upper-triangular factor ``U`` (``J = U U^T``) of log-Cholesky parameters.

    Parameters
    ----------
    theta : array_like, shape (10,) or (..., 10)
        ``[alpha, d1, d2, d3, s12, s23, s13, t1, t2, t3]``, any real numbers.

    Returns
    -------
    numpy.ndarray, shape (4, 4) or (..., 4, 4)
        Upper triangular with a positive diagonal.

    Raises
    ------
    ValueError, TypeError
        Wrong last axis, NaN/inf, complex or non-numeric entries.

    Examples
    --------
    >>> import numpy as np
    >>> U = log_cholesky_factor(np.zeros(10))          # unit mass at the origin, unit Sigma
    >>> U.tolist() == np.eye(4).tolist()
    True
    """
    th = _theta("theta", theta)
    a, d, s12, s23, s13, t = th[..., 0], th[..., 1:4], th[..., 4], th[..., 5], th[..., 6], th[..., 7:10]
    U = np.zeros(th.shape[:-1] + (4, 4))
    U[..., [0, 1, 2], [0, 1, 2]] = np.exp(d)
    U[..., 0, 1], U[..., 1, 2], U[..., 0, 2] = s12, s23, s13
    U[..., :3, 3] = t
    U[..., 3, 3] = 1.0
    return np.exp(a)[..., None, None] * U


def log_cholesky_to_params(theta: ArrayLike) -> np.ndarray:
    """Ten unconstrained numbers to the standard parameters of a physically consistent body.

    The log-Cholesky parametrisation of Rucker and Wensing :cite:`rucker2022`: the
    pseudo-inertia (:func:`pseudo_inertia`) is ``J = U U^T`` with ``U`` of
    :func:`log_cholesky_factor`, so ``J`` is positive definite for *every* ``theta``: mass
    ``exp(2 alpha) > 0``, centre of mass ``(t1, t2, t3)``, strict triangle inequalities. An
    optimiser can move ``theta`` freely and never leave the set of bodies.

    Parameters
    ----------
    theta : array_like, shape (10,) or (..., 10)
        ``[alpha, d1, d2, d3, s12, s23, s13, t1, t2, t3]`` (pinocchio's
        ``LogCholeskyParameters`` order).

    Returns
    -------
    numpy.ndarray, shape (10,) or (..., 10)
        ``[m, mx, my, mz, Ixx, Iyy, Izz, Ixy, Ixz, Iyz]`` (GUIDE order, inertia about the link
        origin).

    Raises
    ------
    ValueError, TypeError
        Wrong last axis, NaN/inf, complex or non-numeric entries.

    Examples
    --------
    >>> import numpy as np
    >>> pi = log_cholesky_to_params([np.log(2.0) / 2, 0, 0, 0, 0, 0, 0, 0.5, 0.0, 0.0])
    >>> pi[:4].round(12).tolist()                       # 2 kg with its centre of mass at x = 0.5 m
    [2.0, 1.0, 0.0, 0.0]
    >>> bool(is_physically_consistent(pi))
    True
    """
    U = log_cholesky_factor(theta)
    return pseudo_inertia_params(U @ np.swapaxes(U, -1, -2))


def params_to_log_cholesky(pi_j: ArrayLike) -> np.ndarray:
    """The log-Cholesky parameters of a body whose pseudo-inertia is positive definite.

    Inverse of :func:`log_cholesky_to_params`: ``U`` is the upper-triangular Cholesky factor of
    ``J`` (the lower factor of ``J`` with its rows and columns reversed, reversed back), and
    ``alpha = log U_44``, ``d_i = log(U_ii / U_44)``, the other entries divided by ``U_44``.

    Parameters
    ----------
    pi_j : array_like, shape (10,) or (..., 10)
        Standard parameters of one link (or a batch), GUIDE order.

    Returns
    -------
    numpy.ndarray, shape (10,) or (..., 10)

    Raises
    ------
    ValueError
        If a pseudo-inertia is not positive definite (a point mass, a rod or a plate, an
        impossible body: no log-Cholesky parameters exist; the message says which), wrong
        shape or NaN/inf.
    TypeError
        Complex or non-numeric entries.

    Examples
    --------
    >>> import numpy as np
    >>> pi = link_params(1.5, [0.1, -0.2, 0.3], [0.02, 0.03, 0.04, 0.001, 0.0, -0.002])
    >>> bool(np.allclose(log_cholesky_to_params(params_to_log_cholesky(pi)), pi))
    True
    """
    J = pseudo_inertia(pi_j)
    flip = J[..., ::-1, ::-1]
    try:
        L = np.linalg.cholesky(flip)
    except np.linalg.LinAlgError:
        lam = np.linalg.eigvalsh(J.reshape(-1, 4, 4))[:, 0]
        raise ValueError(
            f"pi_j must be a body with a positive definite pseudo-inertia (mass > 0, strict triangle "
            f"inequalities); got smallest eigenvalue(s) of J {np.round(lam, 12).tolist()[:5]}: no log-Cholesky "
            "parameters exist for it"
        ) from None
    U = L[..., ::-1, ::-1]
    e = U[..., 3, 3]
    out = np.empty(J.shape[:-2] + (10,))
    out[..., 0] = np.log(e)
    out[..., 1:4] = np.log(np.diagonal(U, axis1=-2, axis2=-1)[..., :3] / e[..., None])
    out[..., 4] = U[..., 0, 1] / e
    out[..., 5] = U[..., 1, 2] / e
    out[..., 6] = U[..., 0, 2] / e
    out[..., 7:10] = U[..., :3, 3] / e[..., None]
    return out


__all__ += ["LOG_CHOLESKY_FIELDS", "log_cholesky_factor", "log_cholesky_to_params", "params_to_log_cholesky"]
