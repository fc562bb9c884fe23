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

from typing import Sequence

import numpy as np
from numpy.typing import ArrayLike

from ._validate import as_array, check_choice, check_flag, check_int, check_nonnegative

__all__ = [
    "PARAM_FIELDS",
    "FRICTION_TERMS",
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


def _check_count(name: str, n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"{name} must be a positive integer, got {n!r}")
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
        If ``n`` is not a positive integer.

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
        Unknown or repeated term, or no term at all.

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
        Largest accepted asymmetry ``|I - I.T|`` relative to ``max(1, |I|)``.

    Returns
    -------
    numpy.ndarray, shape (..., 6)

    Raises
    ------
    ValueError
        Wrong shape, NaN/inf, or a tensor that is not symmetric.

    Examples
    --------
    >>> inertia_vector(inertia_matrix([1.0, 2.0, 3.0, 0.1, 0.2, 0.3])).tolist()
    [1.0, 2.0, 3.0, 0.1, 0.2, 0.3]
    """
    I = as_array("I", I)
    if I.ndim < 2 or I.shape[-2:] != (3, 3):
        raise ValueError(f"I must have shape (..., 3, 3), got {I.shape}")
    tol = check_nonnegative("tol", tol)
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


def is_physically_consistent(pi: ArrayLike, tol: float = 0.0, per_link: bool = False) -> bool | np.ndarray:
    """Whether every link's parameters describe a physically possible rigid body.

    A link is consistent when (i) ``m > tol``, (ii) its inertia about the centre of mass,
    ``I_C = I_O - m (|c|^2 E - c c^T)``, is positive definite (smallest eigenvalue > ``tol``)
    and (iii) the principal moments satisfy the triangle inequalities
    ``J1 + J2 >= J3`` (for every permutation, to ``-tol``) that every mass distribution obeys.

    Parameters
    ----------
    pi : array_like, shape (10 n,)
        Standard parameters.
    tol : float, default 0.0
        Non-negative margin for the three tests.
    per_link : bool, default False
        Return one flag per link instead of a single bool.

    Returns
    -------
    bool or numpy.ndarray of bool, shape (n,)

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
    """
    tol = check_nonnegative("tol", tol)
    per_link = check_flag("per_link", per_link)
    P = _link_blocks("pi", pi)
    if P.ndim != 2:
        raise ValueError(f"pi must have shape (10 n,), got {np.shape(pi)}")
    m, h = P[:, 0], P[:, 1:4]
    mass_ok = m > tol
    c = h / np.where(mass_ok, m, 1.0)[:, None]
    Ic = inertia_matrix(P[:, 4:10]) - _steiner(m, c)
    J = np.linalg.eigvalsh(Ic)  # ascending principal moments
    pd_ok = J[:, 0] > tol
    tri_ok = J[:, 0] + J[:, 1] - J[:, 2] >= -tol
    ok = mass_ok & pd_ok & tri_ok
    return ok if per_link else bool(np.all(ok))
