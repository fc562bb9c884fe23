"""Generic rigid body in fully Cartesian coordinates (FCC).

A rigid body ``i`` is described by a point ``O_i`` and three unit, mutually orthogonal vectors
``u_i, v_i, w_i`` fixed to it (its "generic rigid body" frame).  The fully defined coordinates
are the 12 numbers

.. math:: q_i = [O_i^T,\\ u_i^T,\\ v_i^T,\\ w_i^T]^T .

A point with local coordinates ``(a, b, c)`` (measured from ``O_i`` along ``u_i, v_i, w_i``) is

.. math:: P = O_i + a\\,u_i + b\\,v_i + c\\,w_i = C^P q_i,
          \\qquad C^P = [I_3,\\ a I_3,\\ b I_3,\\ c I_3],

and a body-fixed vector with local components ``(a, b, c)`` is ``s = C^s q_i`` with
``C^s = [0,\\ a I_3,\\ b I_3,\\ c I_3]``.  Both matrices are *constant*: positions and
orientations are linear in ``q_i``.  This is why every constraint of the formulation is at most
quadratic and why the mass matrix is constant (:func:`generic_mass_matrix`).

Reduced form
------------
The reduced coordinates keep ``[O_i, u_i, v_i]`` (9 numbers) and rebuild the third vector as
``w_i = u_i x v_i``.  In matrix form

.. math:: w_i = S(u_i)\\, V\\, q_i^{(9)},

where ``V = [0, 0, I_3]`` (3 x 9, constant) selects ``v_i`` from the reduced vector and
``S(u_i)`` is the skew-symmetric (cross-product) matrix of ``u_i``.  Because ``S`` depends on
``u_i`` the map is *bilinear*, not linear: the reduced form has 3 fewer coordinates but a point
with ``c != 0`` becomes quadratic in the coordinates.  The solvers of :mod:`robidlib.multibody`
therefore work with the fully defined form (``w_i`` independent, kept orthonormal by the
rigid-body constraints of :class:`~robidlib.multibody.constraints.RigidBodyConstraints`); the
reduced form is offered by :func:`reduced_to_full`, :func:`full_to_reduced` and its Jacobian
:func:`expansion_jacobian` (used, e.g., to count coordinates or to store results compactly).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validate import as_array, check_nonnegative, check_positive, check_text, check_tolerance

__all__ = [
    "GROUND",
    "RigidBody",
    "point_matrix",
    "vector_matrix",
    "generic_mass_matrix",
    "skew",
    "V_SELECT",
    "reduced_to_full",
    "full_to_reduced",
    "expansion_jacobian",
    "body_coordinates",
    "body_pose",
    "check_body_vectors",
]

#: Reserved name of the fixed (inertial) body; its local coordinates are global coordinates.
GROUND = "ground"

#: ``V`` of the reduced form: the constant 3 x 9 matrix that selects ``v`` from ``[O, u, v]``.
V_SELECT = np.hstack([np.zeros((3, 6)), np.eye(3)])
V_SELECT.setflags(write=False)

_I3 = np.eye(3)


def _coefficient_matrix(coeff: np.ndarray) -> np.ndarray:
    """Return ``[c0 I3, c1 I3, c2 I3, c3 I3]`` for coefficient rows of shape (..., 4)."""
    # out[..., r, k, c] = coeff[..., k] * I3[r, c]  ->  reshape to (..., 3, 12)
    out = coeff[..., None, :, None] * _I3[:, None, :]
    return out.reshape(*coeff.shape[:-1], 3, 12)


def point_matrix(local: Any) -> np.ndarray:
    """Constant matrix ``C^P`` that maps body coordinates to a body-fixed point.

    Parameters
    ----------
    local : array_like, shape (3,) or (k, 3)
        Local coordinates ``(a, b, c)`` of the point(s) along ``u, v, w`` measured from ``O``.

    Returns
    -------
    numpy.ndarray, shape (3, 12) or (k, 3, 12)
        ``C^P = [I3, a I3, b I3, c I3]`` so that ``P = C^P @ q_i``.

    Raises
    ------
    ValueError
        If ``local`` does not have a last dimension of 3 or is not finite.

    Examples
    --------
    >>> import numpy as np
    >>> C = point_matrix([0.1, 0.0, 0.0])
    >>> q = np.r_[1.0, 2.0, 3.0, 1, 0, 0, 0, 1, 0, 0, 0, 1]
    >>> C @ q
    array([1.1, 2. , 3. ])
    """
    a = as_array("local", local, ndim=(1, 2))
    if a.shape[-1] != 3:
        raise ValueError(f"local must have shape (3,) or (k, 3), got {a.shape}")
    coeff = np.concatenate([np.ones(a.shape[:-1] + (1,)), a], axis=-1)
    return _coefficient_matrix(coeff)


def vector_matrix(local: Any) -> np.ndarray:
    """Constant matrix ``C^s`` that maps body coordinates to a body-fixed vector.

    Parameters
    ----------
    local : array_like, shape (3,) or (k, 3)
        Local components ``(a, b, c)`` of the vector(s) along ``u, v, w``.

    Returns
    -------
    numpy.ndarray, shape (3, 12) or (k, 3, 12)
        ``C^s = [0, a I3, b I3, c I3]`` so that ``s = C^s @ q_i`` (the origin does not enter).

    Raises
    ------
    ValueError
        If ``local`` does not have a last dimension of 3 or is not finite.

    Examples
    --------
    >>> import numpy as np
    >>> q = np.r_[1.0, 2.0, 3.0, 0, 1, 0, -1, 0, 0, 0, 0, 1]   # body turned 90 deg about z
    >>> vector_matrix([1.0, 0.0, 0.0]) @ q
    array([0., 1., 0.])
    """
    a = as_array("local", local, ndim=(1, 2))
    if a.shape[-1] != 3:
        raise ValueError(f"local must have shape (3,) or (k, 3), got {a.shape}")
    coeff = np.concatenate([np.zeros(a.shape[:-1] + (1,)), a], axis=-1)
    return _coefficient_matrix(coeff)


def _second_moment_matrix(mass: float, com: np.ndarray, inertia: np.ndarray) -> np.ndarray:
    """4 x 4 matrix ``Jbar = int [1; rho][1; rho]^T dm`` (see :func:`generic_mass_matrix`)."""
    # Second moments about the CoM (the "planar" moments int (rho-c)(rho-c)^T dm):
    # Sigma_c = 1/2 tr(I_c) I3 - I_c  (inverse of I_c = tr(Sigma_c) I3 - Sigma_c).
    sigma_c = 0.5 * np.trace(inertia) * _I3 - inertia
    jbar = np.empty((4, 4))
    jbar[0, 0] = mass
    jbar[0, 1:] = jbar[1:, 0] = mass * com
    jbar[1:, 1:] = sigma_c + mass * np.outer(com, com)      # parallel-axis (Steiner) shift to O
    return jbar


def generic_mass_matrix(mass: float, com: Any = (0.0, 0.0, 0.0), inertia: Any = None) -> np.ndarray:
    """Constant 12 x 12 mass matrix of a generic rigid body in fully Cartesian coordinates.

    Derivation: every point of the body is ``P = C(rho) q_i`` with ``C(rho) = [1, rho^T] (x) I3``
    (Kronecker product, ``rho = (a, b, c)`` its local coordinates), so
    ``dP/dt = C(rho) dq_i/dt`` and the kinetic energy is

    .. math:: T = \\tfrac12 \\int \\lVert \\dot P\\rVert^2 dm
              = \\tfrac12 \\dot q_i^T \\Big(\\int C^T C\\, dm\\Big) \\dot q_i
              = \\tfrac12 \\dot q_i^T (\\bar J \\otimes I_3)\\, \\dot q_i ,
       \\qquad \\bar J = \\int \\begin{bmatrix}1\\\\ \\rho\\end{bmatrix}
                         \\begin{bmatrix}1 & \\rho^T\\end{bmatrix} dm
              = \\begin{bmatrix} m & m c^T \\\\ m c & \\Sigma_c + m c c^T \\end{bmatrix},

    with ``c`` the local CoM and ``Sigma_c = int (rho - c)(rho - c)^T dm = tr(I_c)/2 I3 - I_c``
    the second moments about the CoM (``I_c`` the inertia tensor about the CoM in the body
    frame).  ``M = Jbar (x) I3`` does not depend on ``q``.  When ``O`` is the CoM and
    ``u, v, w`` are principal axes, ``M = blockdiag(m I3, J_u I3, J_v I3, J_w I3)`` is diagonal
    with ``J_u = int a^2 dm = (I_yy + I_zz - I_xx) / 2`` (and cyclic).

    Parameters
    ----------
    mass : float
        Mass ``m`` in kg (>= 0).
    com : array_like, shape (3,)
        Local coordinates of the centre of mass (m).
    inertia : array_like, shape (3, 3), optional
        Inertia tensor about the centre of mass in the body frame (kg m^2); zero by default.

    Returns
    -------
    numpy.ndarray, shape (12, 12)
        The symmetric positive semi-definite mass matrix.

    Raises
    ------
    ValueError
        If the mass is negative, the shapes are wrong, ``inertia`` is not symmetric, or it is
        not physically consistent (``Sigma_c`` not positive semi-definite, i.e. the principal
        moments violate the triangle inequality).

    Examples
    --------
    >>> import numpy as np
    >>> M = generic_mass_matrix(2.0, [0, 0, 0], np.diag([0.3, 0.5, 0.6]))
    >>> np.allclose(M, np.diag(np.repeat([2.0, 0.4, 0.2, 0.1], 3)))
    True
    """
    m = check_nonnegative("mass", mass)
    c = as_array("com", com, shape=(3,))
    inertia_c = np.zeros((3, 3)) if inertia is None else as_array("inertia", inertia, shape=(3, 3))
    _check_inertia(inertia_c)
    return np.kron(_second_moment_matrix(m, c, inertia_c), _I3)


def _check_inertia(inertia: np.ndarray) -> None:
    if not np.allclose(inertia, inertia.T, atol=1e-12, rtol=1e-9):
        raise ValueError(f"inertia must be symmetric, got {inertia.tolist()}")
    sigma = 0.5 * np.trace(inertia) * _I3 - inertia
    tol = 1e-12 * max(1.0, float(np.abs(inertia).max()))
    if np.linalg.eigvalsh(sigma).min() < -tol:
        raise ValueError(
            "inertia is not physically consistent: the second moments tr(I)/2 - I must be "
            f"positive semi-definite (triangle inequality of principal moments), got eigenvalues "
            f"{np.linalg.eigvalsh(inertia).tolist()}"
        )


@dataclass(frozen=True)
class RigidBody:
    """A generic rigid body: a name and its inertial data in the body frame ``(O, u, v, w)``.

    Parameters
    ----------
    name : str
        Unique name (``"ground"`` is reserved for the fixed frame).
    mass : float, default 0
        Mass in kg.
    com : array_like, shape (3,), default (0, 0, 0)
        Local coordinates of the centre of mass (m); zero when ``O`` is the CoM.
    inertia : array_like, shape (3, 3), optional
        Inertia tensor about the centre of mass in the body frame (kg m^2).

    Raises
    ------
    ValueError
        If the name is empty or reserved, or the inertial data are invalid
        (see :func:`generic_mass_matrix`).
    TypeError
        If ``name`` is not a string.

    Examples
    --------
    >>> import numpy as np
    >>> body = RigidBody("arm", mass=1.0, inertia=np.diag([0.01, 0.02, 0.02]))
    >>> body.mass_matrix().shape
    (12, 12)
    >>> np.allclose(body.point_matrix([0.2, 0, 0])[:, 3:6], 0.2 * np.eye(3))
    True
    """

    name: str
    mass: float = 0.0
    com: np.ndarray = field(default_factory=lambda: np.zeros(3))
    inertia: np.ndarray = field(default_factory=lambda: np.zeros((3, 3)))

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise TypeError(f"name must be a str, got {type(self.name).__name__}")
        if not self.name or self.name == GROUND:
            raise ValueError(f"name must be a non-empty string other than {GROUND!r}, got {self.name!r}")
        object.__setattr__(self, "mass", check_nonnegative("mass", self.mass))
        com = as_array("com", self.com, shape=(3,)).copy()
        inertia = as_array("inertia", self.inertia, shape=(3, 3)).copy()
        _check_inertia(inertia)
        com.setflags(write=False)
        inertia.setflags(write=False)
        object.__setattr__(self, "com", com)
        object.__setattr__(self, "inertia", inertia)

    def point_matrix(self, local: Any) -> np.ndarray:
        """``C^P`` of a body-fixed point (see :func:`point_matrix`)."""
        return point_matrix(local)

    def vector_matrix(self, local: Any) -> np.ndarray:
        """``C^s`` of a body-fixed vector (see :func:`vector_matrix`)."""
        return vector_matrix(local)

    def second_moments(self) -> np.ndarray:
        """The 4 x 4 matrix ``Jbar = int [1; rho][1, rho^T] dm`` (``M = Jbar (x) I3``)."""
        return _second_moment_matrix(self.mass, self.com, self.inertia)

    def mass_matrix(self) -> np.ndarray:
        """Constant 12 x 12 mass matrix (see :func:`generic_mass_matrix`)."""
        return np.kron(self.second_moments(), _I3)

    def gravity_force(self, gravity: Any = (0.0, 0.0, -9.81)) -> np.ndarray:
        """Generalised gravity force ``Q = int C(rho)^T g dm = Jbar[:, 0] (x) g`` (12,).

        Parameters
        ----------
        gravity : array_like, shape (3,)
            Gravity acceleration in global coordinates (m/s^2).

        Returns
        -------
        numpy.ndarray, shape (12,)
            ``[m g, m a_c g, m b_c g, m c_c g]`` with ``(a_c, b_c, c_c)`` the local CoM.
        """
        g = as_array("gravity", gravity, shape=(3,))
        return np.kron(self.second_moments()[:, 0], g)


def skew(a: Any) -> np.ndarray:
    """Skew-symmetric matrix ``S(a)`` with ``S(a) b = a x b``.

    Parameters
    ----------
    a : array_like, shape (..., 3)

    Returns
    -------
    numpy.ndarray, shape (..., 3, 3)

    Examples
    --------
    >>> import numpy as np
    >>> skew([1.0, 0, 0]) @ np.array([0.0, 1, 0])
    array([0., 0., 1.])
    """
    a = as_array("a", a)
    if a.ndim == 0 or a.shape[-1] != 3:
        raise ValueError(f"a must have shape (..., 3), got {a.shape}")
    out = np.zeros(a.shape + (3,))
    out[..., 0, 1], out[..., 0, 2] = -a[..., 2], a[..., 1]
    out[..., 1, 0], out[..., 1, 2] = a[..., 2], -a[..., 0]
    out[..., 2, 0], out[..., 2, 1] = -a[..., 1], a[..., 0]
    return out


def _last_dim(name: str, x: Any, n: int) -> np.ndarray:
    a = as_array(name, x)
    if a.ndim == 0 or a.shape[-1] != n:
        raise ValueError(f"{name} must have shape (..., {n}), got {a.shape}")
    return a


def reduced_to_full(q_reduced: Any) -> np.ndarray:
    """Rebuild fully defined coordinates ``[O, u, v, w]`` from reduced ``[O, u, v]``.

    ``w = S(u) V q_reduced = u x v`` (``V`` = :data:`V_SELECT`).  The map is bilinear.

    Parameters
    ----------
    q_reduced : array_like, shape (..., 9)

    Returns
    -------
    numpy.ndarray, shape (..., 12)

    Raises
    ------
    ValueError
        If the last dimension is not 9 or the input is not finite.

    Examples
    --------
    >>> reduced_to_full([0, 0, 0, 1, 0, 0, 0, 1, 0])[9:]
    array([0., 0., 1.])
    """
    q9 = _last_dim("q_reduced", q_reduced, 9)
    u = q9[..., 3:6]
    w = np.einsum("...ij,...j->...i", skew(u), q9 @ V_SELECT.T)
    return np.concatenate([q9, w], axis=-1)


def full_to_reduced(q_full: Any, tol: float = 1e-8) -> np.ndarray:
    """Drop ``w`` from fully defined coordinates after checking ``w = u x v``.

    Parameters
    ----------
    q_full : array_like, shape (..., 12)
    tol : float, default 1e-8
        Largest accepted ``|w - u x v|``; the check makes sure nothing is silently lost. At
        least ``2.2e-14`` (100 ulps: round-off cannot meet a smaller one).

    Returns
    -------
    numpy.ndarray, shape (..., 9)

    Raises
    ------
    ValueError
        If the shape is wrong, ``w`` differs from ``u x v`` by more than ``tol`` (for example
        a left-handed frame), or ``tol`` is below round-off.

    Examples
    --------
    >>> full_to_reduced([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]).shape
    (9,)
    """
    q12 = _last_dim("q_full", q_full, 12)
    tol = check_tolerance("tol", tol)
    err = np.abs(q12[..., 9:12] - np.cross(q12[..., 3:6], q12[..., 6:9])).max(initial=0.0)
    if err > tol:
        raise ValueError(f"q_full has w != u x v (max difference {err:.3g} > tol={tol:g}); "
                         "expected a right-handed orthonormal frame")
    return q12[..., :9].copy()


def expansion_jacobian(q_reduced: Any) -> np.ndarray:
    """Jacobian ``d q_full / d q_reduced`` of :func:`reduced_to_full` (12 x 9).

    ``dw = d(u x v) = -S(v) du + S(u) dv``, so the last three rows are ``[0, -S(v), S(u)]`` and
    the first nine rows are the identity.

    Parameters
    ----------
    q_reduced : array_like, shape (9,)

    Returns
    -------
    numpy.ndarray, shape (12, 9)

    Examples
    --------
    >>> expansion_jacobian([0, 0, 0, 1, 0, 0, 0, 1, 0]).shape
    (12, 9)
    """
    q9 = as_array("q_reduced", q_reduced, shape=(9,))
    jac = np.zeros((12, 9))
    jac[:9] = np.eye(9)
    jac[9:, 3:6] = -skew(q9[6:9])
    jac[9:, 6:9] = skew(q9[3:6])
    return jac


def check_body_vectors(q_body: Any, name: str = "q_body", tol: float = 1e-6) -> np.ndarray:
    """Check that ``u, v, w`` of body coordinates are unit, orthogonal and right-handed.

    Parameters
    ----------
    q_body : array_like, shape (..., 12)
        Fully defined coordinates of one body (or a batch).
    name : str
        Name used in error messages (for example the body name).
    tol : float, default 1e-6
        Tolerance on ``| |u| - 1 |``, ``|u . v|`` etc.; at least ``2.2e-14`` (round-off).

    Returns
    -------
    numpy.ndarray
        ``q_body`` as a float array.

    Raises
    ------
    ValueError
        If a vector is not unit length, two vectors are not orthogonal (collinear vectors are
        reported as such), the frame is left-handed, or ``tol`` is below round-off.

    Examples
    --------
    >>> q = check_body_vectors([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1])
    >>> check_body_vectors([0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1])
    Traceback (most recent call last):
    ...
    ValueError: q_body: vectors u and v are collinear (|u . v| = 1), expected orthogonal unit vectors
    """
    check_text("name", name)
    q = _last_dim(name, q_body, 12)
    tol = check_tolerance("tol", tol)
    vecs = {"u": q[..., 3:6], "v": q[..., 6:9], "w": q[..., 9:12]}
    for key, vec in vecs.items():
        err = np.abs(np.linalg.norm(vec, axis=-1) - 1.0).max(initial=0.0)
        if err > tol:
            raise ValueError(f"{name}: vector {key} is not unit length (| |{key}| - 1 | = {err:.3g}"
                             f" > {tol:g}), expected orthonormal vectors u, v, w")
    for a, b in (("u", "v"), ("u", "w"), ("v", "w")):
        dot = np.abs(np.sum(vecs[a] * vecs[b], axis=-1)).max(initial=0.0)
        if dot > 1.0 - 1e-6:
            raise ValueError(f"{name}: vectors {a} and {b} are collinear (|{a} . {b}| = {dot:.3g}),"
                             " expected orthogonal unit vectors")
        if dot > tol:
            raise ValueError(f"{name}: vectors {a} and {b} are not orthogonal (|{a} . {b}| = "
                             f"{dot:.3g} > {tol:g}), expected orthogonal unit vectors")
    handed = np.sum(np.cross(vecs["u"], vecs["v"]) * vecs["w"], axis=-1).min(initial=1.0)
    if handed < 0:
        raise ValueError(f"{name}: frame (u, v, w) is left-handed (u x v . w = {handed:.3g}),"
                         " expected a right-handed frame")
    return q


def body_coordinates(origin: Any, rotation: Any, tol: float = 1e-9) -> np.ndarray:
    """Fully defined coordinates ``[O, u, v, w]`` from a position and a rotation matrix.

    Parameters
    ----------
    origin : array_like, shape (..., 3)
        Position of ``O`` in global coordinates.
    rotation : array_like, shape (..., 3, 3)
        Rotation matrix whose columns are ``u, v, w`` in global coordinates.
    tol : float, default 1e-9
        Tolerance of the orthonormality check; at least ``2.2e-14`` (round-off).

    Returns
    -------
    numpy.ndarray, shape (..., 12)

    Raises
    ------
    ValueError
        If shapes are inconsistent or the columns are not a right-handed orthonormal frame.

    Examples
    --------
    >>> import numpy as np
    >>> body_coordinates([1.0, 2.0, 3.0], np.eye(3))
    array([1., 2., 3., 1., 0., 0., 0., 1., 0., 0., 0., 1.])
    """
    o = _last_dim("origin", origin, 3)
    r = as_array("rotation", rotation)
    if r.shape[-2:] != (3, 3) or r.shape[:-2] != o.shape[:-1]:
        raise ValueError(f"rotation must have shape {o.shape[:-1] + (3, 3)}, got {r.shape}")
    q = np.concatenate([o, r[..., :, 0], r[..., :, 1], r[..., :, 2]], axis=-1)
    return check_body_vectors(q, name="rotation", tol=tol)


def body_pose(q_body: Any) -> tuple[np.ndarray, np.ndarray]:
    """Origin and rotation matrix ``[u v w]`` of body coordinates (inverse of
    :func:`body_coordinates`, no orthonormality check).

    Parameters
    ----------
    q_body : array_like, shape (..., 12)

    Returns
    -------
    origin : numpy.ndarray, shape (..., 3)
    rotation : numpy.ndarray, shape (..., 3, 3)

    Examples
    --------
    >>> o, r = body_pose([1, 2, 3, 1, 0, 0, 0, 1, 0, 0, 0, 1])
    >>> o.tolist(), float(r.trace())
    ([1.0, 2.0, 3.0], 3.0)
    """
    q = _last_dim("q_body", q_body, 12)
    return q[..., 0:3].copy(), np.stack([q[..., 3:6], q[..., 6:9], q[..., 9:12]], axis=-1)
