"""Kinematic constraints in mixed, fully Cartesian coordinates.

Every constraint ``Phi(q, t) = 0`` offers the four things a kinematic analysis needs:

* ``phi(q, p)`` - its value (``p`` = prescribed data at time ``t``: marker positions, angles);
* ``jacobian(q)`` - ``Phi_q`` as full-width rows (``n_eq x n`` with ``n`` the number of
  coordinates of the system);
* ``nu(pd)`` - right-hand side of the velocity equation ``Phi_q qd = nu = -Phi_t``;
* ``gamma(q, qd, pdd)`` - right-hand side of the acceleration equation
  ``Phi_q qdd = gamma = -(Phi_q qd)_q qd - 2 Phi_qt qd - Phi_tt``;

plus ``hessian(q, lam) = sum_k lam_k d^2 Phi_k / dq^2`` for the optimisation solvers.

Because points and vectors are linear in the body coordinates (``P = C^P q_i``), the
topological constraints are linear (spherical joint, tracking) or bilinear dot products
(unit length, orthogonality, revolute axes, MCR).  For a dot product ``a . b`` of two
body-fixed vectors the Jacobian rows are ``[b^T C_a, a^T C_b]``, the Hessian is constant and
``gamma = -2 a_dot . b_dot``.  Only the angle term ``cos(theta)`` of the mixed-coordinates
relation is not polynomial.

The implementation uses exactly this structure: every topological equation is stored as

.. math:: \\Phi_k = x_k(q) \\cdot y_k(q) + c_k - f_k(\\theta_k), \\qquad
          x_k = A_k q + a_k, \\quad y_k = B_k q + b_k ,

(a linear equation is a dot product with a constant vector ``y_k = e``), with constant
``A_k, B_k`` built from the ``C^P``/``C^s`` matrices (class :class:`Linear`).  Value,
Jacobian, ``gamma`` and Hessian of *all* constraints then follow from four vectorised lines
(class ``_Bilinear``), which is what makes the Newton iterations cheap.  Each constraint
class only lists its dot products in ``_equations``.

Constraints refer to bodies by name (``"ground"`` is the fixed frame, whose local coordinates
are global coordinates) and to angle variables by name.  They are *bound* to the coordinate
layout of a :class:`~robidlib.multibody.system.MultibodySystem`, which checks the names.
"""

from __future__ import annotations

import copy
from typing import Any, Sequence

import numpy as np

from .._validate import as_array, check_choice, check_names, check_text
from .body import GROUND, point_matrix, vector_matrix

__all__ = [
    "Constraint",
    "RigidBodyConstraints",
    "Spherical",
    "Revolute",
    "MixedCoordinateRelation",
    "AngleDriver",
    "Marker",
    "TrackedVector",
    "MarkerTracking",
    "VectorTracking",
    "perpendicular_vectors",
    "Linear",
]

_UNIT_TOL = 1e-9

#: codes of the non-polynomial angle term ``-f(theta)`` of an equation
_NO_ANGLE, _COS, _SIN = 0, 1, 2


def _unit(name: str, x: Any) -> np.ndarray:
    a = as_array(name, x, shape=(3,)).copy()
    norm = float(np.linalg.norm(a))
    if abs(norm - 1.0) > _UNIT_TOL:
        raise ValueError(f"{name} must be a unit vector (local components), got norm {norm:.6g}")
    a.setflags(write=False)
    return a


def _point(name: str, x: Any) -> np.ndarray:
    a = as_array(name, x, shape=(3,)).copy()
    a.setflags(write=False)
    return a


def perpendicular_vectors(axis: Any) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors ``e1, e2`` with ``(e1, e2, axis)`` a right-handed orthonormal triad.

    Parameters
    ----------
    axis : array_like, shape (3,)
        A unit vector.

    Returns
    -------
    e1, e2 : numpy.ndarray, shape (3,)

    Raises
    ------
    ValueError
        If ``axis`` is not a unit vector.

    Examples
    --------
    >>> e1, e2 = perpendicular_vectors([0.0, 0.0, 1.0])
    >>> e1, e2
    (array([1., 0., 0.]), array([0., 1., 0.]))
    """
    a = _unit("axis", axis)
    helper = np.eye(3)[int(np.argmin(np.abs(a)))]          # the global axis least aligned
    e1 = helper - a * (helper @ a)
    e1 /= np.linalg.norm(e1)
    return e1, np.cross(a, e1)


class Linear:
    """A 3-vector that is linear in the coordinates: ``x(q) = A q + a``.

    A body-fixed point is ``C^P q_i`` and a body-fixed vector ``C^s q_i``: ``A`` holds the
    constant ``C`` matrix in the columns of body ``i``; on the ground ``A = 0`` and ``a`` is
    the (global) point or vector.  Differences of such terms are again linear.

    Custom topological constraints subclass :class:`Constraint` and return their equations
    from ``_equations(system)`` as ``(x, y, c, angle_column, form)`` tuples built from
    these terms (see :class:`Spherical` for a three-line example).

    Parameters
    ----------
    A : numpy.ndarray, shape (3, n)
    a : numpy.ndarray, shape (3,)

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.multibody import MultibodySystem, RigidBody
    >>> sys = MultibodySystem([RigidBody("b")], [])
    >>> P = Linear.point(sys, "b", [0.5, 0.0, 0.0])           # O + 0.5 u
    >>> q = np.r_[1.0, 0, 0, 0, 1, 0, -1, 0, 0, 0, 0, 1]
    >>> P.A @ q + P.a
    array([1. , 0.5, 0. ])
    """

    def __init__(self, A: np.ndarray, a: np.ndarray) -> None:
        self.A = as_array("A", A, ndim=2, shape=(3, None))
        self.a = as_array("a", a, shape=(3,))

    @classmethod
    def point(cls, system: Any, body: str, local: np.ndarray) -> "Linear":
        """Body-fixed point ``C^P q_i`` (or a fixed global point on the ground)."""
        return cls._body_term(system, body, local, point_matrix, as_array("local", local, shape=(3,)))

    @classmethod
    def vector(cls, system: Any, body: str, local: np.ndarray) -> "Linear":
        """Body-fixed vector ``C^s q_i`` (or a fixed global vector on the ground)."""
        return cls._body_term(system, body, local, vector_matrix, as_array("local", local, shape=(3,)))

    @classmethod
    def constant(cls, system: Any, value: Any) -> "Linear":
        """A constant vector."""
        if not hasattr(system, "n_coords"):
            raise TypeError(f"system must be a MultibodySystem, got {type(system).__name__}")
        return cls(np.zeros((3, system.n_coords)), as_array("value", value, shape=(3,)))

    @classmethod
    def _body_term(cls, system, body, local, cmat, ground_value) -> "Linear":
        if not all(hasattr(system, a) for a in ("n_coords", "body_slice")):
            raise TypeError(f"system must be a MultibodySystem, got {type(system).__name__}")
        A = np.zeros((3, system.n_coords))
        sl = system.body_slice(body)                 # None for the ground
        if sl is None:
            return cls(A, ground_value.copy())
        A[:, sl] = cmat(local)
        return cls(A, np.zeros(3))

    def __sub__(self, other: "Linear") -> "Linear":
        return Linear(self.A - other.A, self.a - other.a)


class _Bilinear:
    """Stacked scalar equations ``Phi_k = x_k(q) . y_k(q) + c_k - f_k(theta_k)``.

    ``x_k = A_k q + a_k`` and ``y_k = B_k q + b_k`` are linear 3-vectors (body-fixed points and
    vectors); ``f_k`` is ``0``, ``cos`` or ``sin`` of the angle coordinate in column ``col_k``.
    Every topological constraint of the formulation has this form (a linear equation is a dot
    product with a constant vector), so one vectorised evaluation serves them all:

    * ``Phi_q = y^T A + x^T B - f'(theta) e_col``  (rows linear in ``q``: constant blocks
      times coordinates);
    * ``gamma = -(Phi_q qd)_q qd = -2 xd . yd + f''(theta) thetad^2``;
    * ``d^2 Phi_k / dq^2 = A_k^T B_k + B_k^T A_k - f''(theta) e_col e_col^T`` (constant for
      quadratic equations).
    """

    def __init__(self, A, a, B, b, c, col, form) -> None:
        self.A, self.a, self.B, self.b = A, a, B, b
        self.c, self.col, self.form = c, col, form
        m, _, n = A.shape
        self._A2, self._B2 = A.reshape(3 * m, n), B.reshape(3 * m, n)
        self._rows = np.flatnonzero(form != _NO_ANGLE)
        self._cols = col[self._rows]
        self._cos = form[self._rows] == _COS

    @classmethod
    def from_rows(cls, n: int, rows: list) -> "_Bilinear":
        """Build from a list of ``(x: Linear, y: Linear, c, col, form)``."""
        if not rows:
            z = np.zeros((0, 3))
            return cls(np.zeros((0, 3, n)), z, np.zeros((0, 3, n)), z, np.zeros(0),
                       np.zeros(0, int), np.zeros(0, int))
        return cls(np.array([r[0].A for r in rows]), np.array([r[0].a for r in rows]),
                   np.array([r[1].A for r in rows]), np.array([r[1].a for r in rows]),
                   np.array([r[2] for r in rows], float), np.array([r[3] for r in rows], int),
                   np.array([r[4] for r in rows], int))

    @classmethod
    def concat(cls, blocks: Sequence["_Bilinear"]) -> "_Bilinear":
        """Stack several blocks (the System evaluates all topological rows at once)."""
        return cls(*(np.concatenate([getattr(b, f) for b in blocks])
                     for f in ("A", "a", "B", "b", "c", "col", "form")))

    def _xy(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        m = self.c.shape[0]
        return (self._A2 @ q).reshape(m, 3) + self.a, (self._B2 @ q).reshape(m, 3) + self.b

    def _f(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``f, f', f''`` of the angle rows (``cos`` or ``sin``)."""
        c, s = np.cos(theta), np.sin(theta)
        return (np.where(self._cos, c, s), np.where(self._cos, -s, c), np.where(self._cos, -c, -s))

    def phi(self, q: np.ndarray) -> np.ndarray:
        X, Y = self._xy(q)
        out = np.einsum("ki,ki->k", X, Y) + self.c
        out[self._rows] -= self._f(q[self._cols])[0]
        return out

    def jacobian(self, q: np.ndarray) -> np.ndarray:
        return self.phi_jacobian(q)[1]

    def phi_jacobian(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Value and Jacobian in one pass (the inner loop of the Newton solvers)."""
        X, Y = self._xy(q)
        f, fd, _ = self._f(q[self._cols])
        out = np.einsum("ki,ki->k", X, Y) + self.c
        out[self._rows] -= f
        jac = np.einsum("ki,kin->kn", Y, self.A) + np.einsum("ki,kin->kn", X, self.B)
        jac[self._rows, self._cols] -= fd
        return out, jac

    def gamma(self, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
        m = self.c.shape[0]
        Xd, Yd = (self._A2 @ qd).reshape(m, 3), (self._B2 @ qd).reshape(m, 3)
        out = -2.0 * np.einsum("ki,ki->k", Xd, Yd)
        out[self._rows] += self._f(q[self._cols])[2] * qd[self._cols] ** 2
        return out

    def hessian(self, q: np.ndarray, lam: np.ndarray) -> np.ndarray:
        hess = np.einsum("k,kin,kip->np", lam, self.A, self.B)
        hess += hess.T
        np.add.at(hess, (self._cols, self._cols), -lam[self._rows] * self._f(q[self._cols])[2])
        return hess


class Constraint:
    """Base class: a named block of ``n_eq`` scalar equations ``Phi(q, t) = 0``.

    Topological subclasses only list their equations as dot products of linear terms in
    ``_equations(system)`` (a list of ``(x, y, c, angle_column, form)`` meaning
    ``x . y + c - f(theta) = 0``); value, Jacobian, ``gamma`` and Hessian follow from that
    form (see ``_Bilinear``).  A constraint must be *bound* (:meth:`bind`, done by
    :class:`~robidlib.multibody.system.MultibodySystem`) before it is evaluated.

    Attributes
    ----------
    kind : str
        ``"topological"`` (joints, rigid body, MCR), ``"tracking"`` (TC, TOC) or
        ``"driver"`` (AR).
    name : str
        Name used in row labels and error messages.
    labels : tuple of str
        One label per equation.
    """

    kind = "topological"

    def __init__(self, name: str) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"name must be a non-empty string, got {name!r}")
        self.name = name
        self._n: int | None = None
        self.labels: tuple[str, ...] = ()

    @property
    def n_eq(self) -> int:
        """Number of scalar equations."""
        return len(self.labels)

    @property
    def is_bound(self) -> bool:
        """Whether :meth:`bind` has resolved the names against a system."""
        return self._n is not None

    def bind(self, system: Any) -> "Constraint":
        """Return a copy whose body/angle names are resolved against ``system``.

        Parameters
        ----------
        system : MultibodySystem
            Provides ``body_slice(name)``, ``angle_index(name)`` and ``n_coords``.

        Returns
        -------
        Constraint
            A bound copy (the original is left unchanged).

        Raises
        ------
        ValueError
            If a body or angle name is unknown to ``system``.
        """
        if not all(hasattr(system, a) for a in ("n_coords", "body_slice", "angle_index")):
            raise TypeError(f"system must be a MultibodySystem, got {type(system).__name__}")
        bound = copy.copy(self)
        bound._n = int(system.n_coords)
        bound._setup(system)
        return bound

    def _setup(self, system: Any) -> None:
        self._bl = _Bilinear.from_rows(self._n, self._equations(system))

    def _equations(self, system: Any) -> list:  # pragma: no cover - abstract
        raise NotImplementedError

    def _coords(self, q: Any, allow_none: bool = False, name: str = "q") -> np.ndarray | None:
        """``q`` checked as a finite ``(n,)`` coordinate vector of the bound system."""
        if q is None and allow_none:
            return None
        q = as_array(name, q, ndim=1)
        if q.shape != (self._n,):
            raise ValueError(f"{name} must have shape ({self._n},) (the coordinates of the system), got {q.shape}")
        return q

    def _check_bound(self) -> None:
        if self._n is None:
            raise RuntimeError(f"constraint {self.name!r} is not bound; add it to a MultibodySystem")

    def phi(self, q: np.ndarray, p: Any = None) -> np.ndarray:
        """Value ``Phi(q)`` (n_eq,); ``p`` is unused by topological constraints."""
        self._check_bound()
        return self._bl.phi(self._coords(q))

    def jacobian(self, q: np.ndarray) -> np.ndarray:
        """Jacobian rows ``Phi_q`` (n_eq, n)."""
        self._check_bound()
        return self._bl.jacobian(self._coords(q))

    def nu(self, pd: Any = None) -> np.ndarray:
        """Velocity right-hand side ``nu = -Phi_t`` (zero for scleronomic constraints)."""
        return np.zeros(self.n_eq)

    def gamma(self, q: np.ndarray, qd: np.ndarray, pdd: Any = None) -> np.ndarray:
        """Acceleration right-hand side ``gamma = -(Phi_q qd)_q qd`` (n_eq,)."""
        self._check_bound()
        return self._bl.gamma(self._coords(q), self._coords(qd, name="qd"))

    def hessian(self, q: np.ndarray, lam: np.ndarray) -> np.ndarray:
        """``sum_k lam_k d^2 Phi_k / dq^2`` (n, n)."""
        self._check_bound()
        return self._bl.hessian(self._coords(q), self._multipliers(lam))

    def _multipliers(self, lam: Any) -> np.ndarray:
        """``lam`` checked as one finite multiplier per equation."""
        lam = as_array("lam", lam, ndim=1)
        if lam.shape != (self.n_eq,):
            raise ValueError(f"lam must have shape ({self.n_eq},) (one multiplier per equation), got {lam.shape}")
        return lam

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, n_eq={self.n_eq})"


class RigidBodyConstraints(Constraint):
    """Rigid-body constraints of generic bodies: ``u, v, w`` unit and mutually orthogonal.

    For each body six quadratic equations:
    ``u.u - 1, v.v - 1, w.w - 1, u.v, u.w, v.w`` (Jacobian rows such as ``[0, 2u^T, 0, 0]``
    and ``[0, v^T, u^T, 0]``, ``gamma = -2 a_dot . b_dot``).  The handedness ``w = u x v``
    is not imposed; it is kept by continuity from a right-handed start.

    Parameters
    ----------
    bodies : sequence of str
        Body names.

    Examples
    --------
    >>> from robidlib.multibody import MultibodySystem, RigidBody
    >>> import numpy as np
    >>> sys = MultibodySystem([RigidBody("b")], joints=[])
    >>> rb = sys.topological[0]
    >>> rb.phi(np.r_[0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1.0])
    array([0., 0., 0., 0., 0., 0.])
    """

    #: index pairs into [O, u, v, w] of the six dot products
    PAIRS = ((1, 1), (2, 2), (3, 3), (1, 2), (1, 3), (2, 3))

    def __init__(self, bodies: Sequence[str], name: str = "rigid body") -> None:
        super().__init__(name)
        self.bodies = check_names("bodies", bodies)
        names = "uvw"
        self.labels = tuple(f"{b}: {names[i - 1]}.{names[j - 1]}{' - 1' if i == j else ''}"
                            for b in self.bodies for i, j in self.PAIRS)

    def _equations(self, system: Any) -> list:
        rows = []
        for b in self.bodies:
            if system.body_slice(b) is None:
                raise ValueError(f"bodies: the ground has no rigid-body constraints, got {b!r}")
            uvw = [None] + [Linear.vector(system, b, e) for e in np.eye(3)]   # u, v, w
            rows += [(uvw[i], uvw[j], -1.0 if i == j else 0.0, 0, _NO_ANGLE) for i, j in self.PAIRS]
        return rows


class Spherical(Constraint):
    """Spherical joint: a point of body ``i`` coincides with a point of body ``j``.

    ``Phi = C^P_i q_i - C^P_j q_j`` (3 linear equations, constant Jacobian, ``gamma = 0``).

    Parameters
    ----------
    body_i, body_j : str
        Body names (``"ground"`` allowed for one of them).
    point_i, point_j : array_like, shape (3,)
        Local coordinates of the joint centre in each body (global on the ground).
    name : str, optional

    Examples
    --------
    >>> from robidlib.multibody import MultibodySystem, RigidBody, Spherical
    >>> import numpy as np
    >>> sys = MultibodySystem([RigidBody("b")], [Spherical("ground", [0, 0, 0], "b", [0, 0, -1])])
    >>> q = np.r_[0, 0, 1.0, 1, 0, 0, 0, 1, 0, 0, 0, 1]
    >>> sys.phi(q)[6:]
    array([0., 0., 0.])
    """

    def __init__(self, body_i: str, point_i: Any, body_j: str, point_j: Any,
                 name: str | None = None) -> None:
        body_i, body_j = check_text("body_i", body_i, False), check_text("body_j", body_j, False)
        super().__init__(name or f"spherical({body_i},{body_j})")
        if body_i == body_j:
            raise ValueError(f"body_j must differ from body_i, got {body_i!r} twice")
        self.body_i, self.body_j = body_i, body_j
        self.point_i, self.point_j = _point("point_i", point_i), _point("point_j", point_j)
        self.labels = tuple(f"{self.name}.{c}" for c in "xyz")

    def _equations(self, system: Any) -> list:
        d = Linear.point(system, self.body_i, self.point_i) - Linear.point(system, self.body_j, self.point_j)
        return [(d, Linear.constant(system, e), 0.0, 0, _NO_ANGLE) for e in np.eye(3)]


class Revolute(Spherical):
    """Revolute joint: spherical joint plus two perpendicularity conditions on the axis.

    ``Phi = [P_i - P_j;  s_i . e1_j;  s_i . e2_j]`` where ``s_i`` is the joint axis fixed in
    body ``i`` and ``e1_j, e2_j`` are two unit vectors of body ``j`` perpendicular to its copy
    of the axis (:func:`perpendicular_vectors`).  Five independent equations (no redundancy,
    which matters for SQP solvers and for unique Lagrange multipliers).

    Parameters
    ----------
    body_i, body_j : str
        Body names (``"ground"`` allowed for one of them).
    point_i, point_j : array_like, shape (3,)
        Local coordinates of a point of the axis in each body.
    axis_i, axis_j : array_like, shape (3,)
        Local components of the unit axis in each body.
    name : str, optional

    Raises
    ------
    ValueError
        If an axis is not a unit vector or both bodies are the same.

    Examples
    --------
    >>> from robidlib.multibody import MultibodySystem, RigidBody, Revolute
    >>> import numpy as np
    >>> joint = Revolute("ground", [0, 0, 0], [0, 0, 1], "b", [0, 0, 0], [0, 0, 1])
    >>> sys = MultibodySystem([RigidBody("b")], [joint])
    >>> c, s = np.cos(0.3), np.sin(0.3)
    >>> q = np.r_[0, 0, 0, c, s, 0, -s, c, 0, 0, 0, 1]
    >>> bool(np.abs(sys.phi(q)).max() < 1e-12)           # zero up to round-off
    True
    """

    def __init__(self, body_i: str, point_i: Any, axis_i: Any, body_j: str, point_j: Any,
                 axis_j: Any, name: str | None = None) -> None:
        super().__init__(body_i, point_i, body_j, point_j, name or f"revolute({body_i},{body_j})")
        self.axis_i, self.axis_j = _unit("axis_i", axis_i), _unit("axis_j", axis_j)
        self.labels = tuple(f"{self.name}.{c}" for c in ("x", "y", "z", "s.e1", "s.e2"))

    def _equations(self, system: Any) -> list:
        s_i = Linear.vector(system, self.body_i, self.axis_i)
        return super()._equations(system) + [
            (s_i, Linear.vector(system, self.body_j, e), 0.0, 0, _NO_ANGLE)
            for e in perpendicular_vectors(self.axis_j)]


class MixedCoordinateRelation(Constraint):
    """Mixed-coordinates relation (MCR): a joint angle ``theta`` as an extra coordinate.

    ``form="cos"`` (the relation of the formulation):
    ``Phi = s_i . s_j - cos(theta)``, with ``s_i`` fixed in body ``i`` and ``s_j`` in body ``j``
    (unit vectors).  ``theta`` is then the (unsigned) angle between the two vectors, so the
    relation is only well posed for ``theta`` in ``(0, pi)``: ``cos`` is even (``theta`` and
    ``-theta`` satisfy it) and ``dPhi/dtheta = sin(theta)`` vanishes at ``0`` and ``pi``, where
    the angle becomes ill-determined.  Choose the reference vectors so that the joint range
    stays inside ``(0, pi)``: for a revolute joint with range ``(-pi/2, pi/2)`` take ``s_i``
    perpendicular to the axis and ``s_j = axis x s_i`` at the zero configuration, so that
    ``theta = phi + pi/2`` (``phi`` the usual joint angle).

    ``form="sin"`` (companion for ranges around zero): ``Phi = t_i . s_j - sin(theta)`` with
    ``t_i = axis_i x s_i`` also fixed in body ``i``; it is still quadratic, gives the *signed*
    angle about ``axis_i`` and is well posed for ``theta`` in ``(-pi/2, pi/2)``
    (``dPhi/dtheta = -cos(theta)``).  Using both relations for one angle would add a redundant
    equation, so one form per angle is used.

    Jacobian row: ``[s_j^T C^s_i, s_i^T C^s_j, sin(theta)]`` (cos form);
    ``gamma = -(2 s_i_dot . s_j_dot + cos(theta) theta_dot^2)``.

    Parameters
    ----------
    angle : str
        Name of the angle coordinate.
    body_i, body_j : str
        Body names (``"ground"`` allowed for one of them).
    s_i, s_j : array_like, shape (3,)
        Local components of the unit reference vectors.
    axis_i : array_like, shape (3,), optional
        Local components (in body ``i``) of the joint axis, perpendicular to ``s_i``; required
        by ``form="sin"`` and used by the angle computation from markers
        (:meth:`angle_from_vectors` gives the signed in-plane angle when it is known).
    form : {"cos", "sin"}, default "cos"
    name : str, optional

    Raises
    ------
    ValueError
        If a vector is not unit, ``s_i`` is not perpendicular to ``axis_i`` or ``form="sin"``
        is requested without an axis.

    Examples
    --------
    >>> from robidlib.multibody import MultibodySystem, RigidBody, Revolute
    >>> import numpy as np
    >>> z = [0, 0, 1]
    >>> mcr = MixedCoordinateRelation("th", "ground", [1, 0, 0], "b", [0, 1, 0], axis_i=z)
    >>> sys = MultibodySystem([RigidBody("b")],
    ...                       [Revolute("ground", [0, 0, 0], z, "b", [0, 0, 0], z)], [mcr])
    >>> c, s = np.cos(0.3), np.sin(0.3)      # body turned by phi = 0.3 -> theta = phi + pi/2
    >>> q = np.r_[0, 0, 0, c, s, 0, -s, c, 0, 0, 0, 1, 0.3 + np.pi / 2]
    >>> bool(np.abs(sys.phi(q)).max() < 1e-12)           # zero up to round-off
    True
    """

    def __init__(self, angle: str, body_i: str, s_i: Any, body_j: str, s_j: Any,
                 axis_i: Any = None, form: str = "cos", name: str | None = None) -> None:
        super().__init__(name or f"MCR({angle})")
        if not isinstance(angle, str) or not angle:
            raise ValueError(f"angle must be a non-empty string, got {angle!r}")
        body_i, body_j = check_text("body_i", body_i, False), check_text("body_j", body_j, False)
        if body_i == body_j:
            raise ValueError(f"body_j must differ from body_i, got {body_i!r} twice")
        self.angle = angle
        self.form = check_choice("form", form, ("cos", "sin"))
        self.body_i, self.body_j = body_i, body_j
        self.s_i, self.s_j = _unit("s_i", s_i), _unit("s_j", s_j)
        self.axis_i = None if axis_i is None else _unit("axis_i", axis_i)
        if self.axis_i is not None and abs(self.axis_i @ self.s_i) > 1e-9:
            raise ValueError(f"s_i must be perpendicular to axis_i, got s_i . axis_i = "
                             f"{self.axis_i @ self.s_i:.3g}")
        if form == "sin" and self.axis_i is None:
            raise ValueError("form='sin' needs axis_i (t_i = axis_i x s_i), got axis_i=None")
        self.labels = (f"{self.name}",)

    def _equations(self, system: Any) -> list:
        ref = self.s_i if self.form == "cos" else np.cross(self.axis_i, self.s_i)
        return [(Linear.vector(system, self.body_i, ref), Linear.vector(system, self.body_j, self.s_j),
                 0.0, system.angle_index(self.angle), _COS if self.form == "cos" else _SIN)]

    def angle_from_vectors(self, s_i: np.ndarray, s_j: np.ndarray,
                           axis_i: np.ndarray | None = None) -> np.ndarray:
        """Angle of this relation from global reference vectors (batched over frames).

        With the axis known the signed in-plane angle ``atan2(t_i . s_j, s_i . s_j)`` is
        returned (``t_i = axis x s_i``), otherwise ``arccos(s_i . s_j)`` in ``[0, pi]``.

        Parameters
        ----------
        s_i, s_j : numpy.ndarray, shape (N, 3)
            Global reference vectors of bodies ``i`` and ``j``.
        axis_i : numpy.ndarray, shape (N, 3), optional
            Global axis fixed in body ``i``.

        Returns
        -------
        numpy.ndarray, shape (N,)

        Raises
        ------
        ValueError, TypeError
            If the vectors are not finite real ``(N, 3)`` arrays of the same length.
        """
        s_i = as_array("s_i", s_i, ndim=2, shape=(None, 3))
        s_j = as_array("s_j", s_j, ndim=2, shape=(s_i.shape[0], 3))
        c = np.einsum("nk,nk->n", s_i, s_j)
        if axis_i is None:
            return np.arccos(np.clip(c, -1.0, 1.0))
        axis_i = as_array("axis_i", axis_i, ndim=2, shape=(s_i.shape[0], 3))
        s = np.einsum("nk,nk->n", np.cross(axis_i, s_i), s_j)
        return np.arctan2(s, c)


class AngleDriver(Constraint):
    """Angular-relation driver (AR) in mixed coordinates: ``theta_k - theta_k*(t) = 0``.

    Because the angle is a coordinate, the driver is linear: Jacobian row ``e_k``,
    ``nu = theta_dot*``, ``gamma = theta_ddot*``.  (In pure fully Cartesian coordinates the
    same driver reads ``s_i . s_j - cos(theta*(t)) = 0``; the mixed form avoids its
    singularity at ``0`` and ``pi``.)  The Lagrange multiplier of the driver is minus the
    generalised force (joint moment) needed to impose the motion.

    Parameters
    ----------
    angles : sequence of str
        Names of the driven angle coordinates.
    name : str, default "AR"

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.multibody import models
    >>> sys = models.simple_chain().system
    >>> ar = AngleDriver(sys.angle_names).bind(sys)
    >>> ar.n_eq, float(ar.jacobian(np.zeros(sys.n_coords)).sum())
    (3, 3.0)
    """

    kind = "driver"

    def __init__(self, angles: Sequence[str], name: str = "AR") -> None:
        super().__init__(name)
        self.angles = check_names("angles", angles)
        if not self.angles:
            raise ValueError("angles must name at least one angle, got none")
        self.labels = tuple(f"{name}({a})" for a in self.angles)

    def _setup(self, system: Any) -> None:
        self._idx = np.array([system.angle_index(a) for a in self.angles], dtype=int)

    def _data(self, name: str, p: Any) -> np.ndarray:
        if p is None:
            raise ValueError(f"{name} is required by the angle driver, got None")
        return as_array(name, p, shape=(self.n_eq,))

    def phi(self, q: np.ndarray, p: Any = None) -> np.ndarray:
        self._check_bound()
        return self._coords(q)[self._idx] - self._data("angles", p)

    def jacobian(self, q: np.ndarray) -> np.ndarray:
        self._check_bound()
        self._coords(q, allow_none=True)                  # constant: q is only checked
        rows = np.zeros((self.n_eq, self._n))
        rows[np.arange(self.n_eq), self._idx] = 1.0
        return rows

    def hessian(self, q: np.ndarray, lam: np.ndarray) -> np.ndarray:
        self._check_bound()
        self._coords(q, allow_none=True), self._multipliers(lam)      # linear: only checked
        return np.zeros((self._n, self._n))

    def nu(self, pd: Any = None) -> np.ndarray:
        return self._data("angle_rates", pd).copy()

    def gamma(self, q: np.ndarray, qd: np.ndarray, pdd: Any = None) -> np.ndarray:
        self._check_bound()
        self._coords(q, allow_none=True), self._coords(qd, allow_none=True, name="qd")
        return self._data("angle_accelerations", pdd).copy()


class Marker:
    """A named point fixed to a body (a skin or technical marker).

    Parameters
    ----------
    name : str
    body : str
        Name of the body that carries the marker.
    local : array_like, shape (3,)
        Local coordinates along ``u, v, w`` from ``O``.

    Examples
    --------
    >>> Marker("P1", "thigh", [0.0, 0.05, -0.1]).body
    'thigh'
    """

    def __init__(self, name: str, body: str, local: Any) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"name must be a non-empty string, got {name!r}")
        if not isinstance(body, str) or not body:
            raise ValueError(f"body must be a non-empty string, got {body!r}")
        self.name, self.body, self.local = name, body, _point("local", local)

    def __repr__(self) -> str:
        return f"Marker({self.name!r}, {self.body!r}, {self.local.tolist()})"


class TrackedVector(Marker):
    """A named unit vector fixed to a body, tracked by a TOC constraint.

    Parameters
    ----------
    name : str
    body : str
    local : array_like, shape (3,)
        Local components (unit).

    Raises
    ------
    ValueError
        If ``local`` is not a unit vector.

    Examples
    --------
    >>> TrackedVector("long axis", "forearm", [1.0, 0.0, 0.0]).local
    array([1., 0., 0.])
    """

    def __init__(self, name: str, body: str, local: Any) -> None:
        super().__init__(name, body, local)
        self.local = _unit("local", local)


class MarkerTracking(Constraint):
    """Tracking constraints TC of all markers: ``C^P_i q - P_i*(t) = 0`` (linear).

    The Jacobian is the constant stacked ``C^P`` matrix, ``nu`` the measured marker velocities
    and ``gamma`` the measured marker accelerations.

    Parameters
    ----------
    markers : sequence of Marker
    name : str, default "TC"

    Examples
    --------
    >>> from robidlib.multibody import models
    >>> sys = models.simple_chain().system
    >>> sys.tracking.n_eq
    27
    """

    kind = "tracking"
    _is_point = True
    _data_name = "markers"

    def __init__(self, markers: Sequence[Marker], name: str = "TC") -> None:
        super().__init__(name)
        kind = TrackedVector if not self._is_point else Marker
        if isinstance(markers, (str, bytes)) or not hasattr(markers, "__iter__"):
            raise TypeError(f"{self._data_name} must be a sequence of {kind.__name__}, got {type(markers).__name__}")
        self.items = tuple(markers)
        for m in self.items:
            if not isinstance(m, kind):
                raise TypeError(f"{self._data_name} must hold {kind.__name__} objects, got {type(m).__name__}")
        self.labels = tuple(f"{name}({m.name}).{c}" for m in self.items for c in "xyz")

    def _setup(self, system: Any) -> None:
        n = len(self.items)
        self._jac = np.zeros((3 * n, self._n))
        for k, m in enumerate(self.items):
            sl = system.body_slice(m.body)
            if sl is None:
                raise ValueError(f"{self._data_name}: {m.name!r} is attached to the ground; "
                                 "expected a moving body")
            C = point_matrix(m.local) if self._is_point else vector_matrix(m.local)
            self._jac[3 * k:3 * k + 3, sl] = C
        self._jac.setflags(write=False)

    def _data(self, name: str, p: Any) -> np.ndarray:
        if p is None:
            raise ValueError(f"{name} is required by the tracking constraints, got None")
        arr = as_array(name, p, ndim=(1, 2))
        if arr.size != self.n_eq:
            raise ValueError(f"{name} must have shape ({len(self.items)}, 3), got {arr.shape}")
        return arr.reshape(-1)

    def positions(self, q: np.ndarray) -> np.ndarray:
        """Model positions (or vectors) ``(..., n_items, 3)`` for coordinates ``(..., n)``."""
        self._check_bound()
        q = as_array("q", q)
        if q.ndim == 0 or q.shape[-1] != self._n:
            raise ValueError(f"q must have shape (..., {self._n}) (the coordinates of the system), got {q.shape}")
        return (q @ self._jac.T).reshape(*q.shape[:-1], len(self.items), 3)

    def phi(self, q: np.ndarray, p: Any = None) -> np.ndarray:
        self._check_bound()
        return self._jac @ self._coords(q) - self._data(self._data_name, p)

    def jacobian(self, q: np.ndarray) -> np.ndarray:
        self._check_bound()
        self._coords(q, allow_none=True)                  # constant: q is only checked
        return self._jac.copy()

    def hessian(self, q: np.ndarray, lam: np.ndarray) -> np.ndarray:
        self._check_bound()
        self._coords(q, allow_none=True), self._multipliers(lam)      # linear: only checked
        return np.zeros((self._n, self._n))

    def nu(self, pd: Any = None) -> np.ndarray:
        return self._data(self._data_name[:-1] + "_velocities", pd).copy()

    def gamma(self, q: np.ndarray, qd: np.ndarray, pdd: Any = None) -> np.ndarray:
        self._check_bound()
        self._coords(q, allow_none=True), self._coords(qd, allow_none=True, name="qd")
        return self._data(self._data_name[:-1] + "_accelerations", pdd).copy()


class VectorTracking(MarkerTracking):
    """Tracking constraints TOC of body-fixed unit vectors: ``C^s_i q - s_i*(t) = 0``.

    Parameters
    ----------
    vectors : sequence of TrackedVector
    name : str, default "TOC"

    Examples
    --------
    >>> from robidlib.multibody import MultibodySystem, RigidBody
    >>> sys = MultibodySystem([RigidBody("b")], [], vectors=[TrackedVector("V", "b", [0, 0, 1])])
    >>> sys.vector_tracking.n_eq, sys.vector_tracking.labels[0]
    (3, 'TOC(V).x')
    """

    _is_point = False
    _data_name = "vectors"

    def __init__(self, vectors: Sequence[TrackedVector], name: str = "TOC") -> None:
        super().__init__(vectors, name)
