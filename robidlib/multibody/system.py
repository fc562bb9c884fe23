"""A multibody system in mixed, fully Cartesian coordinates: bodies, joints, angles, markers.

The coordinate vector is

.. math:: q = [q_1^T, \\dots, q_{n_b}^T, \\theta_1, \\dots, \\theta_{n_a}]^T,
          \\qquad q_i = [O_i^T, u_i^T, v_i^T, w_i^T]^T ,

``12 n_b`` fully Cartesian coordinates followed by the ``n_a`` joint angles of the
mixed-coordinates relations.  The *topological* constraints are the rigid-body constraints of
every body, the joints and the MCRs; the *tracking* constraints (markers, vectors) and the
angle *drivers* are added by the solvers.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .._validate import as_array, check_text, check_tolerance
from .body import GROUND, RigidBody, check_body_vectors
from .constraints import (AngleDriver, Constraint, Marker, MarkerTracking,
                          MixedCoordinateRelation, RigidBodyConstraints, TrackedVector,
                          VectorTracking, _Bilinear)

__all__ = ["MultibodySystem"]


def _sequence(name: str, value: Any) -> tuple:
    """``value`` as a tuple; a TypeError naming ``name`` if it is not a sequence."""
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of objects, got the string {value!r}")
    try:
        return tuple(value)
    except TypeError:
        raise TypeError(f"{name} must be a sequence, got {type(value).__name__}") from None


def _unique(kind: str, names: Sequence[str]) -> None:
    seen = set()
    for n in names:
        if n in seen:
            raise ValueError(f"{kind} names must be unique, got {n!r} twice")
        seen.add(n)


class MultibodySystem:
    """Bodies, joints, mixed-coordinate angles and markers, with the coordinate layout.

    Parameters
    ----------
    bodies : sequence of RigidBody
        The moving bodies (the ground is implicit and called ``"ground"``).
    joints : sequence of Constraint
        Topological joint constraints (:class:`Spherical`, :class:`Revolute`, ...).
    angles : sequence of MixedCoordinateRelation, optional
        One MCR per angle coordinate; the angle coordinates follow the body coordinates in
        the order given.
    markers : sequence of Marker, optional
        Markers tracked by the TC constraints.
    vectors : sequence of TrackedVector, optional
        Body-fixed vectors tracked by the TOC constraints.
    gravity : array_like, shape (3,), default (0, 0, -9.81)
    angle_names : sequence of str, optional
        If given, must list exactly the angles of ``angles`` (a consistency check between
        the number of angle variables and the number of MCR constraints).

    Raises
    ------
    ValueError
        Duplicate names, a joint/marker attached to an unknown body, an MCR referring to an
        angle twice, or ``angle_names`` inconsistent with the MCRs.
    TypeError
        If ``bodies`` or ``angles`` contain objects of the wrong type.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.multibody import (MultibodySystem, RigidBody, Revolute,
    ...                                 MixedCoordinateRelation, Marker)
    >>> z = [0, 0, 1]
    >>> sys = MultibodySystem(
    ...     [RigidBody("arm", mass=1.0)],
    ...     [Revolute("ground", [0, 0, 0], z, "arm", [-0.5, 0, 0], z)],
    ...     [MixedCoordinateRelation("th", "ground", [1, 0, 0], "arm", [0, 1, 0], axis_i=z)],
    ...     markers=[Marker("P1", "arm", [0.5, 0, 0])])
    >>> sys.n_coords, sys.n_constraints, sys.n_coords - sys.n_constraints
    (13, 12, 1)
    """

    def __init__(self, bodies: Sequence[RigidBody], joints: Sequence[Constraint],
                 angles: Sequence[MixedCoordinateRelation] = (), markers: Sequence[Marker] = (),
                 vectors: Sequence[TrackedVector] = (), gravity: Any = (0.0, 0.0, -9.81),
                 angle_names: Sequence[str] | None = None) -> None:
        self.bodies = _sequence("bodies", bodies)
        if not self.bodies:
            raise ValueError("bodies must contain at least one RigidBody, got none")
        for b in self.bodies:
            if not isinstance(b, RigidBody):
                raise TypeError(f"bodies must contain RigidBody objects, got {type(b).__name__}")
        self.body_names = tuple(b.name for b in self.bodies)
        _unique("body", self.body_names)
        self._body_index = {n: k for k, n in enumerate(self.body_names)}

        angles = _sequence("angles", angles)
        for a in angles:
            if not isinstance(a, MixedCoordinateRelation):
                raise TypeError("angles must contain MixedCoordinateRelation objects, "
                                f"got {type(a).__name__}")
        self.angle_names = tuple(a.angle for a in angles)
        _unique("angle (one MCR per angle variable)", self.angle_names)
        if angle_names is not None and tuple(angle_names) != self.angle_names:
            raise ValueError(
                f"angle_names has {len(tuple(angle_names))} angle variable(s) {tuple(angle_names)} "
                f"but the {len(angles)} MCR constraint(s) define {self.angle_names}; expected "
                "exactly one MCR per angle variable")
        self._angle_index = {n: 12 * len(self.bodies) + k for k, n in enumerate(self.angle_names)}
        self.n_coords = 12 * len(self.bodies) + len(angles)
        self.gravity = as_array("gravity", gravity, shape=(3,)).copy()

        self.markers = _sequence("markers", markers)
        self.vectors = _sequence("vectors", vectors)
        self.marker_names = tuple(m.name for m in self.markers)
        self.vector_names = tuple(v.name for v in self.vectors)
        _unique("marker", self.marker_names)
        _unique("vector", self.vector_names)
        for m in self.markers + self.vectors:
            if m.body not in self._body_index:
                raise ValueError(f"marker {m.name!r} is attached to unknown body {m.body!r}; "
                                 f"expected one of {self.body_names}")

        joints = _sequence("joints", joints)
        for j in joints:
            if not isinstance(j, Constraint) or j.kind != "topological":
                raise TypeError(f"joints must contain topological Constraint objects, got {j!r}")
        rigid = RigidBodyConstraints(self.body_names)
        self.topological = tuple(c.bind(self) for c in (rigid,) + joints + angles)
        #: the bound MCR constraints, in the order of the angle coordinates
        self.mcrs = self.topological[1 + len(joints):]
        # all topological equations stacked for one vectorised evaluation per iteration
        self._topo = _Bilinear.concat([c._bl for c in self.topological])
        self.tracking = MarkerTracking(self.markers).bind(self) if self.markers else None
        self.vector_tracking = VectorTracking(self.vectors).bind(self) if self.vectors else None
        self.driver = AngleDriver(self.angle_names).bind(self) if angles else None

        self.constraint_labels = tuple(lab for c in self.topological for lab in c.labels)
        self.n_constraints = len(self.constraint_labels)
        self.mcr_rows = np.array([k for k, lab in enumerate(self.constraint_labels)
                                  if lab in {a.labels[0] for a in angles}], dtype=int)

    # -- layout -----------------------------------------------------------------------------
    def body_slice(self, name: str) -> slice | None:
        """Slice of body ``name`` in ``q`` (``None`` for the ground).

        Raises
        ------
        ValueError
            If ``name`` is not a body of the system.
        """
        if name == GROUND:
            return None
        if name not in self._body_index:
            raise ValueError(f"name: unknown body {name!r}; expected 'ground' or one of {self.body_names}")
        k = self._body_index[name]
        return slice(12 * k, 12 * k + 12)

    def angle_index(self, name: str) -> int:
        """Index of angle coordinate ``name`` in ``q``.

        Raises
        ------
        ValueError
            If ``name`` is not an angle of the system.
        """
        if name not in self._angle_index:
            raise ValueError(f"name: unknown angle {name!r}; expected one of {self.angle_names}")
        return self._angle_index[name]

    @property
    def angle_slice(self) -> slice:
        """Slice of the angle coordinates in ``q``."""
        return slice(12 * len(self.bodies), self.n_coords)

    @property
    def n_dof(self) -> int:
        """Degrees of freedom ``n_coords - n_constraints`` (independent constraints assumed)."""
        return self.n_coords - self.n_constraints

    # -- topological constraints --------------------------------------------------------------
    def _q(self, q: Any, name: str = "q") -> np.ndarray:
        return as_array(name, q, shape=(self.n_coords,))

    def phi(self, q: Any) -> np.ndarray:
        """Topological constraints (rigid body, joints, MCR) at ``q``, shape (m,)."""
        return self._topo.phi(self._q(q))

    def jacobian(self, q: Any) -> np.ndarray:
        """Jacobian ``Phi_q`` of the topological constraints, shape (m, n)."""
        return self._topo.jacobian(self._q(q))

    def gamma(self, q: Any, qd: Any) -> np.ndarray:
        """Acceleration right-hand side of the topological constraints, shape (m,)."""
        return self._topo.gamma(self._q(q), self._q(qd, "qd"))

    def hessian(self, q: Any, lam: Any) -> np.ndarray:
        """``sum_k lam_k d^2 Phi_k/dq^2`` of the topological constraints, shape (n, n)."""
        lam = as_array("lam", lam, shape=(self.n_constraints,))
        return self._topo.hessian(self._q(q), lam)

    # -- helpers ----------------------------------------------------------------------------
    def marker_positions(self, q: Any) -> np.ndarray:
        """Model marker positions ``(..., n_markers, 3)`` for ``q`` of shape ``(..., n)``."""
        if self.tracking is None:
            raise ValueError("the system has no markers")
        q = as_array("q", q)
        if q.shape[-1:] != (self.n_coords,):
            raise ValueError(f"q must have shape (..., {self.n_coords}), got {q.shape}")
        return self.tracking.positions(q)

    def angles(self, q: Any) -> np.ndarray:
        """The angle coordinates ``(..., n_angles)`` of ``q`` ``(..., n)``."""
        q = as_array("q", q)
        if q.shape[-1:] != (self.n_coords,):
            raise ValueError(f"q must have shape (..., {self.n_coords}), got {q.shape}")
        return q[..., self.angle_slice]

    def check_coordinates(self, q: Any, name: str = "q", tol: float = 1e-6) -> np.ndarray:
        """Check shape and the body vectors (unit, orthogonal, right-handed) of ``q``.

        Parameters
        ----------
        q : array_like, shape (n,) or (N, n)
        name : str
            Argument name for the messages.
        tol : float, default 1e-6
            Tolerance of the orthonormality checks; at least ``2.2e-14`` (round-off).

        Returns
        -------
        numpy.ndarray
            ``q`` as a float array.

        Raises
        ------
        ValueError
            Wrong shape, non-finite values, non-unit or collinear body vectors, a ``tol``
            below round-off.
        TypeError
            ``name`` not a string, non-numeric ``q`` or ``tol``.

        Examples
        --------
        >>> from robidlib.multibody import RigidBody
        >>> sys = MultibodySystem([RigidBody("b")], [])
        >>> sys.check_coordinates([0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1])
        Traceback (most recent call last):
        ...
        ValueError: q (body 'b'): vectors u and v are collinear (|u . v| = 1), expected orthogonal unit vectors
        """
        check_text("name", name)
        tol = check_tolerance("tol", tol)
        q = as_array(name, q, ndim=(1, 2))
        if q.shape[-1] != self.n_coords:
            raise ValueError(f"{name} must have shape (..., {self.n_coords}), got {q.shape}")
        for b in self.body_names:
            check_body_vectors(q[..., self.body_slice(b)], name=f"{name} (body {b!r})", tol=tol)
        return q

    def __repr__(self) -> str:
        return (f"MultibodySystem(bodies={self.body_names}, angles={self.angle_names}, "
                f"markers={len(self.markers)}, n_coords={self.n_coords}, "
                f"n_constraints={self.n_constraints})")
