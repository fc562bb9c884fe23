"""Angular-relation drivers (AR) of the classical fully Cartesian formulation.

Without angle coordinates, a revolute joint is driven by prescribing the angle between two
unit vectors ``s_i`` (body ``i``) and ``s_j`` (body ``j``) of the joint (Goncalves et al. 2025,
eqs. 23-28):

.. math::

    \\Phi_{AR} = s_i^T s_j - \\cos\\theta^*(t) = 0, \\qquad
    \\nu_{AR} = -\\dot\\theta^* \\sin\\theta^*, \\qquad
    \\gamma_{AR} = -2\\,\\dot s_i^T \\dot s_j
                   - (\\dot\\theta^{*2} \\cos\\theta^* + \\ddot\\theta^* \\sin\\theta^*) .

The relation is quadratic in ``q``, its Jacobian rows are ``[s_j^T C^s_i, s_i^T C^s_j]`` (the
same as those of the mixed-coordinates relation, without the angle column), and it is
*rheonomic*: the prescribed angle makes ``nu`` and ``gamma`` depend on time.  The mixed
formulation replaces it by the MCR ``s_i^T s_j - cos(theta) = 0`` with ``theta`` a
coordinate and the linear driver ``theta - theta*(t) = 0`` (:class:`AngleDriver`); both
describe the same motion, which :func:`solve_angular_relations` lets one check.

* :func:`classical_system` - the same bodies, joints and markers without angle coordinates;
* :func:`angular_relations` - the AR drivers that replace the MCRs of a mixed system;
* :func:`solve_angular_relations` - position, velocity and acceleration analyses of the
  classical system driven by them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from .._validate import as_array, check_fields, check_int, check_tolerance
from .constraints import Constraint, Linear, _unit
from .system import MultibodySystem

__all__ = ["AngularRelation", "classical_system", "angular_relations", "ARKinematics",
           "solve_angular_relations"]


class AngularRelation(Constraint):
    """Angular-relation driver ``s_i . s_j - cos(theta*(t)) = 0`` (the paper's AR condition).

    Parameters
    ----------
    body_i, body_j : str
        Body names (``"ground"`` allowed for one of them).
    s_i, s_j : array_like, shape (3,)
        Local components of the unit vectors whose angle is prescribed.
    name : str, optional

    Raises
    ------
    ValueError
        If a vector is not unit or the two bodies are the same.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.multibody import MultibodySystem, RigidBody, Revolute
    >>> z = [0, 0, 1]
    >>> sys = MultibodySystem([RigidBody("b")], [Revolute("ground", [0, 0, 0], z, "b", [0, 0, 0], z)])
    >>> ar = AngularRelation("ground", [1, 0, 0], "b", [0, 1, 0]).bind(sys)
    >>> c, s = np.cos(0.3), np.sin(0.3)     # body turned by 0.3 rad: angle(x, v) = 0.3 + pi/2
    >>> q = np.r_[0, 0, 0, c, s, 0, -s, c, 0, 0, 0, 1]
    >>> bool(abs(ar.phi(q, [0.3 + np.pi / 2])[0]) < 1e-12)
    True
    """

    kind = "driver"

    def __init__(self, body_i: str, s_i: Any, body_j: str, s_j: Any, name: str | None = None) -> None:
        for arg, value in (("body_i", body_i), ("body_j", body_j)):
            if not isinstance(value, str) or not value:
                raise ValueError(f"{arg} must be a non-empty body name, got {value!r}")
        super().__init__(name or f"AR({body_i},{body_j})")
        if body_i == body_j:
            raise ValueError(f"body_j must differ from body_i, got {body_i!r} twice")
        self.body_i, self.body_j = body_i, body_j
        self.s_i, self.s_j = _unit("s_i", s_i), _unit("s_j", s_j)
        self.labels = (self.name,)

    def _equations(self, system: Any) -> list:
        return [(Linear.vector(system, self.body_i, self.s_i),
                 Linear.vector(system, self.body_j, self.s_j), 0.0, 0, 0)]

    def _angle(self, name: str, value: Any) -> float:
        """A prescribed scalar (a number or an array of one entry)."""
        if value is None:
            raise ValueError(f"{name} is required by the angular relation, got None")
        a = as_array(name, value, ndim=(0, 1))
        if a.size != 1:
            raise ValueError(f"{name} must be one number (this relation drives one angle), got shape {a.shape}")
        return float(a.reshape(()))

    def phi(self, q: np.ndarray, p: Any = None) -> np.ndarray:
        """``s_i . s_j - cos(theta*)`` for the prescribed angle ``p = theta*`` (rad)."""
        return super().phi(q) - np.cos(self._angle("angle", p))

    def nu(self, pd: Any = None, p: Any = None) -> np.ndarray:
        """``-theta*_dot sin(theta*)`` for the rate ``pd`` and the angle ``p`` (eq. 25)."""
        return np.array([-self._angle("rate", pd) * np.sin(self._angle("angle", p))])

    def gamma(self, q: np.ndarray, qd: np.ndarray, pdd: Any = None, pd: Any = None,
              p: Any = None) -> np.ndarray:
        """``-2 s_i_dot . s_j_dot - (theta*_dot^2 cos theta* + theta*_ddot sin theta*)`` (eq. 26)."""
        th, thd, thdd = (self._angle(n, v) for n, v in (("angle", p), ("rate", pd),
                                                          ("acceleration", pdd)))
        return super().gamma(q, qd) - (thd**2 * np.cos(th) + thdd * np.sin(th))


def classical_system(system: MultibodySystem) -> MultibodySystem:
    """The classical fully Cartesian system: ``system`` without its MCR angle coordinates.

    Parameters
    ----------
    system : MultibodySystem
        A mixed system (bodies, joints, MCRs, markers).

    Returns
    -------
    MultibodySystem
        Same bodies, joints, markers, vectors and gravity; ``12 n_b`` coordinates.

    Raises
    ------
    TypeError
        If ``system`` is not a MultibodySystem.

    Examples
    --------
    >>> from robidlib.multibody import models
    >>> mixed = models.simple_chain().system
    >>> classical_system(mixed).n_coords, mixed.n_coords
    (36, 39)
    """
    if not isinstance(system, MultibodySystem):
        raise TypeError(f"system must be a MultibodySystem, got {type(system).__name__}")
    joints = system.topological[1:len(system.topological) - len(system.mcrs)]
    return MultibodySystem(system.bodies, joints, markers=system.markers, vectors=system.vectors,
                           gravity=system.gravity)


def angular_relations(system: MultibodySystem) -> tuple[AngularRelation, ...]:
    """The AR drivers that replace the (cos-form) MCRs of a mixed system, in angle order.

    Each MCR ``s_i . s_j - cos(theta_k)`` becomes ``s_i . s_j - cos(theta_k*(t))`` with the same
    vectors, so prescribing ``theta_k* = theta_k`` gives the same positions.

    Parameters
    ----------
    system : MultibodySystem
        A mixed system whose MCRs are all in ``form="cos"``.

    Returns
    -------
    tuple of AngularRelation
        Unbound; bind them to :func:`classical_system` ``(system)``.

    Raises
    ------
    TypeError
        If ``system`` is not a MultibodySystem.
    ValueError
        If the system has no MCR or one in ``form="sin"``.

    Examples
    --------
    >>> from robidlib.multibody import models
    >>> [ar.name for ar in angular_relations(models.simple_chain().system)]
    ['AR(theta1)', 'AR(theta2)', 'AR(theta3)']
    """
    if not isinstance(system, MultibodySystem):
        raise TypeError(f"system must be a MultibodySystem, got {type(system).__name__}")
    if not system.mcrs:
        raise ValueError("system has no MCR (angle coordinate) to turn into an angular relation")
    out = []
    for mcr in system.mcrs:
        if mcr.form != "cos":
            raise ValueError(f"{mcr.name} is in form={mcr.form!r}; the AR condition of the paper "
                             "is the cos form (expected form='cos')")
        out.append(AngularRelation(mcr.body_i, mcr.s_i, mcr.body_j, mcr.s_j, name=f"AR({mcr.angle})"))
    return tuple(out)


@dataclass(frozen=True, eq=False)
class ARKinematics:
    """Positions, velocities and accelerations of a system driven by angular relations.

    Attributes
    ----------
    q : numpy.ndarray, shape (N, n)
    qd, qdd : numpy.ndarray, shape (N, n), or None
        Computed when the rates (and accelerations) were given.
    iterations : numpy.ndarray of int, shape (N,)
        Newton-Raphson iterations of the position analysis per frame (>= 1).

    Raises
    ------
    TypeError, ValueError
        Non-numeric, complex or non-finite arrays, shapes that disagree (``qd`` and ``qdd``
        have the shape of ``q``), ``qdd`` without ``qd``, or iterations that are not one
        integer >= 1 per frame.
    """

    q: np.ndarray
    qd: np.ndarray | None
    qdd: np.ndarray | None
    iterations: np.ndarray

    def __post_init__(self) -> None:
        if self.q is None:
            raise TypeError("q must be an array of shape (N, n), got None")
        d = check_fields(self, q=("N", "n"), qd=("N", "n"), qdd=("N", "n"))
        if d["N"] < 1:
            raise ValueError(f"q must have at least one frame, got shape {self.q.shape}")
        if self.qdd is not None and self.qd is None:
            raise ValueError("qdd needs qd (accelerations are computed after the velocities), got qd=None")
        it = self.iterations
        if isinstance(it, (str, bytes)) or np.iscomplexobj(it):
            raise TypeError(f"iterations must be integers, got {type(it).__name__}")
        it = np.asarray(it)
        if it.shape != (d["N"],) or it.dtype.kind not in "iu" or np.any(it < 1):
            raise ValueError(f"iterations must be {d['N']} integers >= 1 (one per frame), "
                             f"got dtype {it.dtype} and shape {it.shape}")
        object.__setattr__(self, "iterations", it)


def _series(name: str, x: Any, na: int, N: int | None) -> np.ndarray:
    if np.iscomplexobj(x):
        raise TypeError(f"{name} must be real numeric array-like, got complex values")
    a = as_array(name, x, ndim=(1, 2))
    a = a[None] if a.ndim == 1 else a
    if a.shape[1] != na or a.shape[0] == 0 or (N is not None and a.shape[0] != N):
        raise ValueError(f"{name} must have shape ({'N >= 1' if N is None else N}, {na}) - one "
                         f"column per angular relation - got {np.shape(x)}")
    return a


def solve_angular_relations(system: MultibodySystem, relations: Sequence[AngularRelation], angles: Any,
                            *, q0: Any, rates: Any = None, accelerations: Any = None,
                            tol: float = 1e-10, max_iter: int = 50) -> ARKinematics:
    """Kinematic analysis of a classical system driven by angular relations (AR).

    Position analysis frame by frame, ``[Phi; Phi_AR](q) = 0`` by a square Newton-Raphson
    (warm-started from the previous frame); then, if given, velocities
    ``[Phi_q; Phi_AR,q] qd = [0; nu_AR]`` and accelerations
    ``[Phi_q; Phi_AR,q] qdd = [gamma; gamma_AR]`` (eqs. 25-26).

    Parameters
    ----------
    system : MultibodySystem
        A classical system (:func:`classical_system`): ``n_coords - n_constraints`` must equal
        the number of relations.
    relations : sequence of AngularRelation
        One driver per degree of freedom (bound to ``system`` here).
    angles : array_like, shape (N, na)
        Prescribed angles ``theta*`` (rad), inside ``(0, pi)``.
    q0 : array_like, shape (n,)
        Initial guess for the first frame.
    rates, accelerations : array_like, shape (N, na), optional
        ``theta*_dot`` (rad/s) and ``theta*_ddot`` (rad/s^2); accelerations need rates.
    tol : float, default 1e-10
        Newton stop: ``||dq|| <= tol``.
    max_iter : int, default 50

    Returns
    -------
    ARKinematics

    Raises
    ------
    TypeError
        If ``system`` is not a MultibodySystem, a relation is not an AngularRelation or
        ``max_iter`` is not an int.
    ValueError
        Wrong shapes (no frame), a system that is not square with the drivers, accelerations
        without rates, a ``tol`` that is not positive or is below round-off, or a frame that
        does not converge (``theta*`` near 0 or pi is singular).

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.multibody import models
    >>> m = models.simple_chain()
    >>> ref = m.reference_motion(duration=0.05)
    >>> fcc = classical_system(m.system)
    >>> out = solve_angular_relations(fcc, angular_relations(m.system), ref.theta,
    ...                               q0=m.zero_coordinates()[:36], rates=ref.phid,
    ...                               accelerations=ref.phidd)
    >>> bool(np.allclose(out.q, ref.q[:, :36]) and np.allclose(out.qdd, ref.qdd[:, :36]))
    True
    """
    if not isinstance(system, MultibodySystem):
        raise TypeError(f"system must be a MultibodySystem, got {type(system).__name__}")
    if isinstance(relations, (str, bytes)) or not isinstance(relations, Sequence):
        raise TypeError(f"relations must be a non-empty sequence of AngularRelation, "
                        f"got {type(relations).__name__}")
    relations = tuple(relations)
    bad = [type(r).__name__ for r in relations if not isinstance(r, AngularRelation)]
    if not relations or bad:
        raise TypeError("relations must be a non-empty sequence of AngularRelation, got "
                        + (f"a {bad[0]}" if bad else "an empty sequence"))
    na = len(relations)
    if system.n_coords - system.n_constraints != na:
        raise ValueError(f"the system has {system.n_coords - system.n_constraints} degrees of "
                         f"freedom but {na} angular relations were given (expected one per dof)")
    tol = check_tolerance("tol", tol)
    max_iter = check_int("max_iter", max_iter, minimum=1)
    th = _series("angles", angles, na, None)
    N = th.shape[0]
    thd = None if rates is None else _series("rates", rates, na, N)
    thdd = None if accelerations is None else _series("accelerations", accelerations, na, N)
    if thdd is not None and thd is None:
        raise ValueError("accelerations need the rates too (gamma_AR depends on theta*_dot)")
    q = system.check_coordinates(q0, "q0").copy()
    if q.ndim != 1:
        raise ValueError(f"q0 must have shape ({system.n_coords},), got {q.shape}")
    bound = [r.bind(system) for r in relations]
    m = system.n_constraints

    def matrix(x):
        return np.vstack([system._topo.jacobian(x)] + [r.jacobian(x) for r in bound])

    Q = np.empty((N, system.n_coords))
    its = np.empty(N, dtype=int)
    for k in range(N):
        for it in range(1, max_iter + 1):
            r = np.r_[system._topo.phi(q), [b.phi(q, th[k, j])[0] for j, b in enumerate(bound)]]
            try:
                dq = np.linalg.solve(matrix(q), -r)
            except np.linalg.LinAlgError:
                raise ValueError(f"frame {k}: singular Jacobian; an angle theta* near 0 or pi "
                                 "makes the angular relation singular") from None
            q += dq
            if np.linalg.norm(dq) <= tol:
                break
        else:
            raise ValueError(f"frame {k}: the AR-driven analysis did not converge in {max_iter} "
                             f"iterations (residual {np.linalg.norm(r):.3g}, tol = {tol:g})")
        Q[k], its[k] = q, it
    QD = QDD = None
    if thd is not None:
        QD = np.array([np.linalg.solve(matrix(Q[k]), np.r_[np.zeros(m), [
            b.nu(thd[k, j], th[k, j])[0] for j, b in enumerate(bound)]]) for k in range(N)])
    if thdd is not None:
        QDD = np.array([np.linalg.solve(matrix(Q[k]), np.r_[system._topo.gamma(Q[k], QD[k]), [
            b.gamma(Q[k], QD[k], thdd[k, j], thd[k, j], th[k, j])[0]
            for j, b in enumerate(bound)]]) for k in range(N)])
    return ARKinematics(Q, QD, QDD, its)
