"""Kinematic analysis from markers, frame by frame, in mixed fully Cartesian coordinates.

Position analysis (``solve_kinematics``), each frame warm-started from the previous one:

* ``"nrm-ls"`` - Newton-Raphson on *all* constraints (topological and tracking) in the
  least-squares (Gauss-Newton) sense, ``min ||Phi_q dq + Phi||``, solved with
  ``scipy.linalg.lstsq``.  With noisy markers the tracking equations cannot all hold, and the
  topological ones are violated as much as the tracking ones.
* ``"nrm-wls"`` - the same with the tracking rows weighted by ``weight`` (default ``1e-3``)
  relative to the topological rows: it minimises
  ``||Phi_T||^2 + weight ||Phi_M||^2`` (rows scaled by ``sqrt(weight)``), so topological
  violations shrink roughly in proportion to the weight.
* ``"slsqp"`` and ``"trust-constr"`` - ``scipy.optimize.minimize`` with the topological
  constraints as equalities and the tracking as objective (``objective="tc"``:
  ``1/2 sum ||P_i - P_i*||^2``; ``"distance"``: ``sum ||P_i - P_i*||``).  SciPy's
  ``trust-constr`` handles a pure equality problem with its trust-region SQP branch (its
  interior-point branch is only used for inequalities); we use it as the
  "interior-point-like" large-scale alternative.
* ``"goal-attainment"`` - multi-objective goal attainment (MO, after Gembicki 1974, as
  MATLAB's ``fgoalattain``): every tracking objective ``F_k`` gets the goal ``0`` and the
  same weight, and ``min gamma`` subject to ``F_k(q) <= gamma`` and the topological
  constraints is solved with SLSQP over ``[q, gamma]``.  ``objective="tc"``: one objective
  per tracking equation, ``|C_k q - P_k*| <= gamma`` (two linear inequalities each);
  ``"distance"`` (ED): one per marker, ``||P_i - P_i*|| <= gamma`` (the distance smoothed
  as ``sqrt(||d||^2 + eps^2)``, ``eps = 1e-9`` m, to stay differentiable at an exact fit).
  It is a minimax fit: it makes the *largest* tracking error small, not their sum of
  squares.
* ``"ad"`` - angle-driven analysis: joint angles computed from the markers body by body
  (:func:`angles_from_markers`), then imposed by drivers ``theta - theta* = 0``
  (:func:`solve_driven`, a square Newton-Raphson).

Velocity and acceleration analyses (:func:`solve_velocities`, :func:`solve_accelerations`)
solve ``Phi_q qd = nu`` and ``Phi_q qdd = gamma`` with the same constraint sets.

Performance note: the matrices are small (tens of rows), so a multi-threaded BLAS only adds
overhead; robidlib runs BLAS on one thread when it is imported (``ROBIDLIB_BLAS_THREADS``).
"""

from __future__ import annotations

import time as _time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.linalg
from scipy.optimize import NonlinearConstraint, minimize

from .._validate import as_array, check_choice, check_fields, check_positive, check_text, check_tolerance
from .system import MultibodySystem

__all__ = [
    "METHODS",
    "KinematicsResult",
    "solve_kinematics",
    "solve_driven",
    "angles_from_markers",
    "pose_from_markers",
    "solve_velocities",
    "solve_accelerations",
]

#: Names accepted by :func:`solve_kinematics`.
METHODS = ("nrm-ls", "nrm-wls", "slsqp", "trust-constr", "goal-attainment", "ad")


@dataclass(frozen=True)
class KinematicsResult:
    """Result of a frame-by-frame position analysis.

    Attributes
    ----------
    q : numpy.ndarray, shape (N, n)
        Coordinates of every frame.
    angles : numpy.ndarray, shape (N, na)
        The mixed (MCR) angle coordinates.
    iterations : numpy.ndarray of int, shape (N,)
    time : numpy.ndarray, shape (N,)
        Time per frame (s): wall-clock time, or CPU time of the process with ``clock="cpu"``
        (``info["clock"]`` says which).
    phi_norm : numpy.ndarray, shape (N,)
        ``||Phi||`` of all constraints of the method at the solution (topological plus tracking,
        or plus drivers for ``"ad"``), unweighted.
    max_violation : numpy.ndarray, shape (N,)
        Largest ``|Phi_k|`` of the topological constraints (rigid body, joints, MCR).
    method : str
    tol : float
    info : dict
        Method options (weight, objective, ...).
    """

    q: np.ndarray
    angles: np.ndarray
    iterations: np.ndarray
    time: np.ndarray
    phi_norm: np.ndarray
    max_violation: np.ndarray
    method: str
    tol: float
    info: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        d = check_fields(self, q=("N", None), angles=("N", None), time=("N",), phi_norm=("N",),
                         max_violation=("N",))
        it = np.asarray(self.iterations)
        if it.shape != (d["N"],) or it.dtype.kind not in "iu" or np.any(it < 0):
            raise ValueError(f"iterations must be {d['N']} integers >= 0 (one per frame), got {it.dtype} {it.shape}")
        for name in ("time", "phi_norm", "max_violation"):
            if np.any(getattr(self, name) < 0):
                raise ValueError(f"{name} must be >= 0, got a negative entry")
        check_choice("method", self.method, METHODS)
        object.__setattr__(self, "tol", check_positive("tol", self.tol))
        if not isinstance(self.info, dict):
            raise TypeError(f"info must be a dict, got {type(self.info).__name__}")

    def summary(self) -> dict:
        """Means over frames: ms per frame, iterations, ``||Phi||``, and the maximum violation.

        Examples
        --------
        >>> from robidlib.multibody import models
        >>> m = models.simple_chain()
        >>> res = solve_kinematics(m.system, m.reference_motion(duration=0.05).markers)
        >>> sorted(res.summary())[:3]
        ['frames', 'iterations_per_frame', 'max_violation']
        """
        return {
            "method": self.method,
            "tol": self.tol,
            "frames": int(self.q.shape[0]),
            "ms_per_frame": 1e3 * float(np.mean(self.time)),
            "iterations_per_frame": float(np.mean(self.iterations)),
            "mean_phi_norm": float(np.mean(self.phi_norm)),
            "max_violation": float(np.max(self.max_violation)),
        }


# -- helpers ---------------------------------------------------------------------------------
def _trackers(system: MultibodySystem) -> list:
    return [t for t in (system.tracking, system.vector_tracking) if t is not None]


def _frames(name: str, x: Any, n_items: int, n_frames: int | None = None) -> np.ndarray:
    a = as_array(name, x, ndim=(2, 3))
    if a.ndim == 2:
        a = a[None]
    if a.shape[1:] != (n_items, 3) or (n_frames is not None and a.shape[0] != n_frames):
        exp = f"({'N' if n_frames is None else n_frames}, {n_items}, 3)"
        raise ValueError(f"{name} must have shape {exp}, got {np.shape(x)}")
    return a


def _tracking_data(system: MultibodySystem, markers: Any, vectors: Any, what: str = "s"
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Stacked tracking Jacobian (constant) and per-frame targets ``(N, rows)``."""
    parts, jacs = [], []
    if system.tracking is not None:
        nm = len(system.markers)
        parts.append(_frames(f"marker{what}", markers, nm).reshape(-1, 3 * nm))
        jacs.append(system.tracking.jacobian(None))
    elif markers is not None:
        raise ValueError("markers were given but the system has no markers")
    if system.vector_tracking is not None:
        if vectors is None:
            raise ValueError(f"vector{what} are required: the system tracks vectors {system.vector_names}")
        nv = len(system.vectors)
        parts.append(_frames(f"vector{what}", vectors, nv).reshape(-1, 3 * nv))
        jacs.append(system.vector_tracking.jacobian(None))
    elif vectors is not None:
        raise ValueError(f"vector{what} were given but the system tracks no vectors; expected None")
    if not parts:
        raise ValueError("the system has neither markers nor tracked vectors to follow")
    if len({p.shape[0] for p in parts}) != 1:
        raise ValueError(f"markers and vectors must have the same number of frames, got "
                         f"{[p.shape[0] for p in parts]}")
    return np.vstack(jacs), np.hstack(parts)


def _no_convergence(method: str, frame: int, iters: int, step: float, resid: float, tol: float):
    return ValueError(f"frame {frame}: {method} did not converge in {iters} iterations "
                      f"(last step {step:.3g}, residual ||Phi|| = {resid:.3g}, tol = {tol:g}); "
                      "check the markers of this frame or raise max_iter")


def _check_system(system: Any) -> None:
    if not isinstance(system, MultibodySystem):
        raise TypeError(f"system must be a MultibodySystem, got {type(system).__name__}")


def _check_common(system: Any, tol: Any, max_iter: Any) -> tuple[float, int]:
    _check_system(system)
    tol = check_tolerance("tol", tol)
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise ValueError(f"max_iter must be a positive int, got {max_iter!r}")
    return tol, int(max_iter)


#: Clocks that time the frames: wall-clock time, or CPU time of this process (which does not
#: count the time the operating system gives to other programs on a busy machine).
CLOCKS = {"wall": _time.perf_counter, "cpu": _time.process_time}


def _lstsq(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Least-squares solution of ``A x = b`` (QR with column pivoting, handles rank loss)."""
    return scipy.linalg.lstsq(A, b, lapack_driver="gelsy", check_finite=False)[0]


def _newton(residual_jacobian, solve, q: np.ndarray, tol: float, max_iter: int,
            method: str, frame: int) -> int:
    """Newton-Raphson ``A dq = -r``, ``q += dq`` until ``||dq|| <= tol``; returns iterations.

    ``q`` is updated in place; ``solve`` is ``numpy.linalg.solve`` (square systems) or a
    least-squares solver (Gauss-Newton on over-determined systems).
    """
    for it in range(1, max_iter + 1):
        r, A = residual_jacobian(q)
        try:
            dq = solve(A, -r)
        except np.linalg.LinAlgError:
            raise ValueError(f"frame {frame}: {method} hit a singular Jacobian (residual "
                             f"||Phi|| = {np.linalg.norm(r):.3g}); the angles may be at a "
                             "singular configuration of the MCR (theta near 0 or pi)") from None
        q += dq
        step = float(np.linalg.norm(dq))
        if not np.isfinite(step):
            break
        if step <= tol:
            return it
    raise _no_convergence(method, frame, it, step, float(np.linalg.norm(r)), tol)


# -- poses and angles from markers (model-free, body by body) --------------------------------
def pose_from_markers(system: MultibodySystem, markers: Any) -> np.ndarray:
    """Coordinates of every body fitted to its own markers, and the angles they imply.

    Each body pose is the least-squares rigid fit (Kabsch/SVD, batched over frames) of its
    local marker coordinates to the measured ones; the angles follow from the fitted frames
    as in :func:`angles_from_markers`.  Joints are not enforced: this is the marker-only,
    body-by-body estimate used to start the solvers and by the angle-driven analysis.

    Parameters
    ----------
    system : MultibodySystem
    markers : array_like, shape (N, n_markers, 3) or (n_markers, 3)

    Returns
    -------
    numpy.ndarray, shape (N, n)

    Raises
    ------
    ValueError
        If a body has fewer than three non-collinear markers, its measured markers coincide
        or are collinear in a frame (the orientation is then undetermined), or the shape is
        wrong.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.multibody import models
    >>> m = models.simple_chain()
    >>> ref = m.reference_motion(duration=0.05)
    >>> bool(np.allclose(pose_from_markers(m.system, ref.markers), ref.q))
    True
    """
    _check_system(system)
    if system.tracking is None:
        raise ValueError("system has no markers; pass q0 to the solver instead")
    X = _frames("markers", markers, len(system.markers))
    N = X.shape[0]
    q = np.zeros((N, system.n_coords))
    rot = {}
    for b in system.body_names:
        idx = [k for k, m in enumerate(system.markers) if m.body == b]
        local = np.array([system.markers[k].local for k in idx]).reshape(-1, 3)
        lc = local - local.mean(axis=0) if len(idx) else local
        s_local = np.linalg.svd(lc, compute_uv=False) if len(idx) else np.zeros(1)
        if len(idx) < 3 or s_local[1] < 1e-6:
            raise ValueError(f"body {b!r} has {len(idx)} marker(s); at least 3 non-collinear "
                             "markers are needed to estimate its pose; pass q0 instead")
        meas = X[:, idx]
        mc = meas - meas.mean(axis=1, keepdims=True)
        s_meas = np.linalg.svd(mc, compute_uv=False)                     # (N, 3)
        flat = np.flatnonzero(s_meas[:, 1] <= 1e-6 * s_local[0])
        if flat.size:
            raise ValueError(f"markers of body {b!r} coincide or are collinear in frame {int(flat[0])} "
                             f"({flat.size} frame(s)): its orientation is undetermined; expected markers spread "
                             "like the model's (check the measurement or pass q0 to a solver)")
        H = np.einsum("ki,nkj->nij", lc, mc)                            # (N, 3, 3)
        U, _, Vt = np.linalg.svd(H)
        d = np.sign(np.linalg.det(np.swapaxes(Vt, 1, 2) @ np.swapaxes(U, 1, 2)))
        D = np.zeros((N, 3, 3))
        D[:, 0, 0] = D[:, 1, 1] = 1.0
        D[:, 2, 2] = d
        R = np.swapaxes(Vt, 1, 2) @ D @ np.swapaxes(U, 1, 2)            # R lc_k ~ mc_k
        O = meas.mean(axis=1) - R @ local.mean(axis=0)
        sl = system.body_slice(b)
        q[:, sl] = np.concatenate([O, R[:, :, 0], R[:, :, 1], R[:, :, 2]], axis=1)
        rot[b] = R
    eye = np.broadcast_to(np.eye(3), (N, 3, 3))
    for mcr in system.mcrs:
        Ri, Rj = rot.get(mcr.body_i, eye), rot.get(mcr.body_j, eye)
        axis = None if mcr.axis_i is None else Ri @ mcr.axis_i
        q[:, system.angle_index(mcr.angle)] = mcr.angle_from_vectors(Ri @ mcr.s_i, Rj @ mcr.s_j, axis)
    return q


def angles_from_markers(system: MultibodySystem, markers: Any) -> np.ndarray:
    """Joint angles computed joint by joint from the markers (input of the AD analysis).

    Each body frame is fitted to its markers (:func:`pose_from_markers`); the angle of each
    MCR is ``atan2(t_i . s_j, s_i . s_j)`` with the reference vectors of the fitted frames
    (``t_i = axis x s_i``; ``arccos(s_i . s_j)`` if the MCR has no axis).  Errors of one body
    propagate to all the angles that use it.

    Parameters
    ----------
    system : MultibodySystem
    markers : array_like, shape (N, n_markers, 3) or (n_markers, 3)

    Returns
    -------
    numpy.ndarray, shape (N, na)

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.multibody import models
    >>> m = models.simple_chain()
    >>> ref = m.reference_motion(duration=0.05)
    >>> bool(np.allclose(angles_from_markers(m.system, ref.markers), ref.theta))
    True
    """
    _check_system(system)
    return pose_from_markers(system, markers)[:, system.angle_slice]


# -- position analyses ------------------------------------------------------------------------
def solve_driven(system: MultibodySystem, angles: Any, *, q0: Any, tol: float = 1e-10,
                 max_iter: int = 50, method: str = "ad", clock: str = "wall") -> KinematicsResult:
    """Position analysis with every angle prescribed: ``Phi_T(q) = 0``, ``theta - theta* = 0``.

    A square Newton-Raphson per frame (``Phi_q dq = -Phi``), warm-started from the previous
    frame; the result is exactly consistent with the model but inherits every error of the
    prescribed angles.

    Parameters
    ----------
    system : MultibodySystem
    angles : array_like, shape (N, na)
        Prescribed angle coordinates ``theta*`` of each frame.
    q0 : array_like, shape (n,)
        Initial guess for the first frame (body vectors must be orthonormal).
    tol : float, default 1e-10
        Convergence when ``||dq|| <= tol``.
    max_iter : int, default 50
    method : str, default "ad"
        Label stored in the result.
    clock : {"wall", "cpu"}, default "wall"
        Time the frames by the wall clock or by the CPU time of the process.

    Returns
    -------
    KinematicsResult

    Raises
    ------
    ValueError
        Wrong shapes, an angle count that differs from the number of MCR constraints,
        invalid ``q0``, or a frame that does not converge (the message names the frame).

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.multibody import models
    >>> m = models.simple_chain()
    >>> ref = m.reference_motion(duration=0.1)
    >>> res = solve_driven(m.system, ref.theta, q0=m.zero_coordinates())
    >>> bool(np.abs(res.q - ref.q).max() < 1e-10)
    True
    """
    tol, max_iter = _check_common(system, tol, max_iter)
    timer = CLOCKS[check_choice("clock", clock, tuple(CLOCKS))]
    check_choice("method", method, ("ad",))
    if system.driver is None:
        raise ValueError("system has no angle coordinates (MCR constraints) to drive")
    th = as_array("angles", angles, ndim=(1, 2))
    th = th[None] if th.ndim == 1 else th
    if th.shape[1] != len(system.angle_names):
        raise ValueError(f"angles must have shape (N, {len(system.angle_names)}) - one column per "
                         f"MCR angle variable {system.angle_names} - got {th.shape}")
    q = system.check_coordinates(q0, "q0").copy()
    if q.ndim != 1:
        raise ValueError(f"q0 must have shape ({system.n_coords},), got {q.shape}")
    drv, m = system.driver, system.n_constraints
    A = np.empty((system.n_coords, system.n_coords))      # [Phi_q; driver rows] (square)
    A[m:] = drv.jacobian(q)                                # constant driver rows
    r = np.empty(system.n_coords)
    out = _Recorder(th.shape[0], system)
    for k, theta in enumerate(th):

        def residual_jacobian(x):
            r[:m], A[:m] = system._topo.phi_jacobian(x)
            r[m:] = drv.phi(x, theta)
            return r, A

        t0 = timer()
        it = _newton(residual_jacobian, np.linalg.solve, q, tol, max_iter, method, k)
        elapsed = timer() - t0
        phi = system._topo.phi(q)
        out.add(k, q, it, elapsed, np.linalg.norm(np.r_[phi, drv.phi(q, theta)]), phi)
    return out.result(method, tol, {"clock": clock})


def solve_kinematics(system: MultibodySystem, markers: Any, method: str = "nrm-wls", *,
                     weight: float = 1e-3, tol: float = 1e-10, max_iter: int | None = None,
                     q0: Any = None, vectors: Any = None, objective: str = "tc",
                     clock: str = "wall") -> KinematicsResult:
    """Frame-by-frame position analysis of the model fitted to measured markers.

    Parameters
    ----------
    system : MultibodySystem
        Model with markers (and optionally tracked vectors).
    markers : array_like, shape (N, n_markers, 3) or (n_markers, 3)
        Measured marker positions, in the order of ``system.marker_names``.
    method : {"nrm-ls", "nrm-wls", "slsqp", "trust-constr", "goal-attainment", "ad"}, default "nrm-wls"
        See the module docstring.
    weight : float, default 1e-3
        Weight of the tracking rows relative to the topological rows (``"nrm-wls"`` only;
        ``"nrm-ls"`` uses 1).
    tol : float, default 1e-10
        Newton methods (``"nrm-ls"``, ``"nrm-wls"``, ``"ad"``): stop when ``||dq|| <= tol``.
        ``"slsqp"``: its ``ftol``, a tolerance on the *objective* (m^2 for ``"tc"``), so the
        positions are only accurate to about ``sqrt(tol)``; ``"trust-constr"``: ``gtol`` and
        ``xtol``; ``"goal-attainment"``: the ``ftol`` of its SLSQP run (on ``gamma``, in m).
    max_iter : int, optional
        Iterations per frame (default 50 for the Newton methods, 500 for the optimisers).
    q0 : array_like, shape (n,), optional
        Initial guess for the first frame; by default the body-by-body marker fit
        (:func:`pose_from_markers`).  Later frames start from the previous solution.
    vectors : array_like, shape (N, n_vectors, 3), optional
        Measured unit vectors for the TOC constraints (required if the system tracks vectors).
    objective : {"tc", "distance"}, default "tc"
        Objective of the optimisation methods: ``"tc"`` is ``1/2 sum ||P_i - P_i*||^2`` (the
        tracking constraints as least squares, exact Hessian ``C^T C`` given to
        ``trust-constr``); ``"distance"`` is the sum of Euclidean distances (smoothed at zero;
        non-smooth near an exact fit, ``trust-constr`` then falls back to a quasi-Newton
        Hessian and may need many iterations).  For ``"goal-attainment"`` they name the
        objectives whose largest value is minimised: every tracking equation (``"tc"``) or
        every marker distance (``"distance"``, the paper's ED).
    clock : {"wall", "cpu"}, default "wall"
        How :attr:`KinematicsResult.time` is measured: wall-clock time
        (``time.perf_counter``) or the CPU time of this process (``time.process_time``), which
        is the fairer measure on a machine shared with other programs.

    Returns
    -------
    KinematicsResult

    Raises
    ------
    ValueError
        Unknown method, wrong shapes, invalid ``q0`` (non-unit or collinear body vectors), or a
        frame that does not converge; the message names the frame and its residual.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.multibody import models
    >>> m = models.simple_chain()
    >>> ref = m.reference_motion(duration=0.1)
    >>> noisy = models.perturb_markers(ref.markers, 0.0075, rng=0)
    >>> res = solve_kinematics(m.system, noisy, "nrm-wls")
    >>> bool(res.max_violation.max() < 1e-4), res.q.shape
    (True, (11, 39))
    """
    method = check_choice("method", method, METHODS)
    objective = check_choice("objective", objective, ("tc", "distance"))
    check_choice("clock", clock, tuple(CLOCKS))
    timer = CLOCKS[clock]
    if max_iter is None:
        max_iter = 500 if method in ("slsqp", "trust-constr", "goal-attainment") else 50
    tol, max_iter = _check_common(system, tol, max_iter)
    weight = 1.0 if method == "nrm-ls" else check_positive("weight", weight)
    Jt, targets = _tracking_data(system, markers, vectors)
    N = targets.shape[0]
    if q0 is None:
        if system.tracking is None:
            raise ValueError("q0 is required when the system has no markers")
        q = pose_from_markers(system, np.asarray(markers, float).reshape(N, -1, 3)[:1])[0]
    else:
        q = system.check_coordinates(q0, "q0").copy()
        if q.ndim != 1:
            raise ValueError(f"q0 must have shape ({system.n_coords},), got {q.shape}")
    if method == "ad":
        angles = angles_from_markers(system, np.asarray(markers, float).reshape(N, -1, 3))
        return solve_driven(system, angles, q0=q, tol=tol, max_iter=max_iter, method="ad",
                            clock=clock)

    out = _Recorder(N, system)
    sw, m = np.sqrt(weight), system.n_constraints
    A = np.empty((m + Jt.shape[0], system.n_coords))      # [Phi_q; sqrt(w) C]
    A[m:] = sw * Jt                                        # tracking rows are constant
    r = np.empty(A.shape[0])
    hess_obj = Jt.T @ Jt
    for k, y in enumerate(targets):

        def residual_jacobian(x):
            r[:m], A[:m] = system._topo.phi_jacobian(x)
            r[m:] = sw * (Jt @ x - y)
            return r, A

        t0 = timer()
        if method in ("nrm-ls", "nrm-wls"):
            it = _newton(residual_jacobian, _lstsq, q, tol, max_iter, method, k)
        else:
            q, it = _optimise(system, method, objective, Jt, hess_obj, y, q, tol, max_iter, k)
        elapsed = timer() - t0
        phi = system._topo.phi(q)
        out.add(k, q, it, elapsed, np.linalg.norm(np.r_[phi, Jt @ q - y]), phi)
    info = {"weight": weight} if method.startswith("nrm") else {"objective": objective}
    return out.result(method, tol, {**info, "clock": clock})


def _optimise(system, method, objective, Jt, hess_obj, y, q, tol, max_iter, frame):
    """One frame of the constrained optimisation methods (SLSQP, trust-constr)."""
    nm = Jt.shape[0] // 3
    eps2 = 1e-18                  # smooths ||d|| at d = 0 for the distance objective

    def fun(x):
        r = Jt @ x - y
        if objective == "tc":
            return 0.5 * r @ r, Jt.T @ r
        d = r.reshape(nm, 3)
        n = np.sqrt(np.einsum("ij,ij->i", d, d) + eps2)
        return n.sum(), Jt.T @ (d / n[:, None]).ravel()

    def phi(x):
        return system._topo.phi(x)

    def jac(x):
        return system._topo.jacobian(x)

    if method == "goal-attainment":
        return _goal_attainment(system, objective, Jt, y, q, tol, max_iter, frame)
    if method == "slsqp":
        res = minimize(fun, q, jac=True, method="SLSQP",
                       constraints=[{"type": "eq", "fun": phi, "jac": jac}],
                       options={"ftol": tol, "maxiter": max_iter})
        ok = res.success
    else:
        hess = (lambda x: hess_obj) if objective == "tc" else None
        con = NonlinearConstraint(phi, 0.0, 0.0, jac=jac,
                                  hess=lambda x, v: system.hessian(x, v))
        kwargs = {"hess": hess} if hess is not None else {}
        res = minimize(fun, q, jac=True, method="trust-constr", constraints=[con],
                       options={"gtol": tol, "xtol": tol, "maxiter": max_iter}, **kwargs)
        ok = res.status in (1, 2)
    if not ok or not np.all(np.isfinite(res.x)):
        raise ValueError(f"frame {frame}: {method} did not converge ({res.message}; residual "
                         f"max |Phi| = {np.abs(phi(res.x)).max():.3g}, tol = {tol:g})")
    return np.array(res.x, dtype=float), int(res.nit)


def _goal_attainment(system, objective, Jt, y, q, tol, max_iter, frame):
    """One frame of the goal-attainment method: ``min gamma`` s.t. ``F_k(q) <= gamma``.

    The variables are ``z = [q, gamma]``; the goals are zero and the weights one, so gamma
    is the largest tracking objective (a minimax fit under the topological equalities).
    """
    n, nm = q.size, Jt.shape[0] // 3
    grad = np.zeros(n + 1)
    grad[-1] = 1.0
    if objective == "tc":
        ones = np.ones((Jt.shape[0], 1))
        jac_ineq = np.vstack([np.hstack([-Jt, ones]), np.hstack([Jt, ones])])

        def ineq(z):                              # gamma - |C q - P*| >= 0, as two rows
            r = Jt @ z[:n] - y
            return np.r_[z[-1] - r, z[-1] + r]

        def ineq_jac(z):
            return jac_ineq
        gamma0 = np.abs(Jt @ q - y).max()
    else:
        blocks = Jt.reshape(nm, 3, n)
        eps2 = 1e-18                              # smooths ||d|| at d = 0 (eps = 1e-9 m)

        def distances(x):
            d = (Jt @ x - y).reshape(nm, 3)
            return d, np.sqrt(np.einsum("ij,ij->i", d, d) + eps2)

        def ineq(z):                              # gamma - ||P_i - P_i*|| >= 0
            return z[-1] - distances(z[:n])[1]

        def ineq_jac(z):
            d, dist = distances(z[:n])
            return np.hstack([-np.einsum("ki,kin->kn", d / dist[:, None], blocks),
                              np.ones((nm, 1))])
        gamma0 = distances(q)[1].max()

    def eq(z):
        return system._topo.phi(z[:n])

    def eq_jac(z):
        J = system._topo.jacobian(z[:n])
        return np.hstack([J, np.zeros((J.shape[0], 1))])

    res = minimize(lambda z: (z[-1], grad), np.r_[q, gamma0], jac=True, method="SLSQP",
                   constraints=[{"type": "eq", "fun": eq, "jac": eq_jac},
                                {"type": "ineq", "fun": ineq, "jac": ineq_jac}],
                   options={"ftol": tol, "maxiter": max_iter})
    x = np.asarray(res.x, dtype=float)
    if not res.success or not np.all(np.isfinite(x)):
        raise ValueError(f"frame {frame}: goal-attainment did not converge ({res.message}; "
                         f"residual max |Phi| = {np.abs(eq(x)).max():.3g}, tol = {tol:g})")
    return x[:n].copy(), int(res.nit)


class _Recorder:
    """Collects the per-frame outputs of a solver."""

    def __init__(self, N: int, system: MultibodySystem) -> None:
        self.q = np.empty((N, system.n_coords))
        self.iters = np.empty(N, dtype=int)
        self.time = np.empty(N)
        self.phi_norm = np.empty(N)
        self.viol = np.empty(N)
        self._slice = system.angle_slice

    def add(self, k, q, it, elapsed, phi_norm, phi_topo) -> None:
        self.q[k], self.iters[k], self.time[k] = q, it, elapsed
        self.phi_norm[k] = phi_norm
        self.viol[k] = np.abs(phi_topo).max()

    def result(self, method: str, tol: float, info: dict) -> KinematicsResult:
        return KinematicsResult(self.q, self.q[:, self._slice].copy(), self.iters, self.time,
                                self.phi_norm, self.viol, method, tol, info)


# -- velocity and acceleration analyses -------------------------------------------------------
def _rhs_source(system: MultibodySystem, marker_data: Any, angle_data: Any, N: int,
                names: tuple[str, str]) -> tuple[str, Any]:
    if (marker_data is None) == (angle_data is None):
        raise ValueError(f"give exactly one of {names[0]} (tracking) or {names[1]} (drivers), "
                         f"got {'both' if marker_data is not None else 'neither'}")
    if angle_data is not None:
        if system.driver is None:
            raise ValueError(f"{names[1]} given but the system has no angle coordinates")
        a = as_array(names[1], angle_data, ndim=2)
        if a.shape != (N, len(system.angle_names)):
            raise ValueError(f"{names[1]} must have shape ({N}, {len(system.angle_names)}) - one row per "
                             f"frame of q, one column per MCR angle variable - got {a.shape}")
        return "driver", a
    Jt, targets = _tracking_data(system, marker_data, None, what="_" + names[0].split("_", 1)[1])
    if targets.shape[0] != N:
        raise ValueError(f"{names[0]} must have {N} frames (one per frame of q), got {targets.shape[0]}")
    return "tracking", (Jt, targets)


def _solve_linear(system, q, topo_rhs, source, weight) -> np.ndarray:
    kind, data = source
    N = q.shape[0]
    out = np.empty_like(q)
    sw = np.sqrt(check_positive("weight", weight))
    for k in range(N):
        J = system._topo.jacobian(q[k])
        if kind == "driver":
            A = np.vstack([J, system.driver.jacobian(q[k])])
            out[k] = np.linalg.solve(A, np.r_[topo_rhs[k], data[k]])
        else:
            Jt, b = data
            A = np.vstack([J, sw * Jt])
            out[k] = _lstsq(A, np.r_[topo_rhs[k], sw * b[k]])
    return out


def _q_frames(system: MultibodySystem, name: str, q: Any) -> np.ndarray:
    _check_system(system)
    a = as_array(name, q, ndim=(1, 2))
    a = a[None] if a.ndim == 1 else a
    if a.shape[1] != system.n_coords:
        raise ValueError(f"{name} must have shape (N, {system.n_coords}), got {np.shape(q)}")
    return a


def solve_velocities(system: MultibodySystem, q: Any, *, marker_velocities: Any = None,
                     angle_rates: Any = None, weight: float = 1e-3) -> np.ndarray:
    """Velocity analysis ``Phi_q qd = nu`` frame by frame.

    Topological rows have ``nu = 0``.  With ``marker_velocities`` the tracking rows
    (``nu = dP*/dt``) are added with weight ``weight`` and the system is solved in the
    weighted least-squares sense; with ``angle_rates`` the drivers (``nu = dtheta*/dt``) make
    the system square.

    Parameters
    ----------
    system : MultibodySystem
    q : array_like, shape (N, n)
        Positions (from a position analysis).
    marker_velocities : array_like, shape (N, n_markers, 3), optional
    angle_rates : array_like, shape (N, na), optional
    weight : float, default 1e-3

    Returns
    -------
    numpy.ndarray, shape (N, n)

    Raises
    ------
    ValueError
        Both or neither source given, or wrong shapes.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.multibody import models
    >>> m = models.simple_chain()
    >>> ref = m.reference_motion(duration=0.05)
    >>> qd = solve_velocities(m.system, ref.q, angle_rates=ref.phid)
    >>> bool(np.allclose(qd, ref.qd))
    True
    """
    q = _q_frames(system, "q", q)
    src = _rhs_source(system, marker_velocities, angle_rates, q.shape[0],
                      ("marker_velocities", "angle_rates"))
    return _solve_linear(system, q, np.zeros((q.shape[0], system.n_constraints)), src, weight)


def solve_accelerations(system: MultibodySystem, q: Any, qd: Any, *,
                        marker_accelerations: Any = None, angle_accelerations: Any = None,
                        weight: float = 1e-3) -> np.ndarray:
    """Acceleration analysis ``Phi_q qdd = gamma`` frame by frame.

    Topological rows have ``gamma = -(Phi_q qd)_q qd``; tracking rows
    ``gamma = d^2P*/dt^2`` (weighted by ``weight``) or driver rows ``gamma = d^2 theta*/dt^2``.

    Parameters
    ----------
    system : MultibodySystem
    q, qd : array_like, shape (N, n)
    marker_accelerations : array_like, shape (N, n_markers, 3), optional
    angle_accelerations : array_like, shape (N, na), optional
    weight : float, default 1e-3

    Returns
    -------
    numpy.ndarray, shape (N, n)

    Raises
    ------
    ValueError
        Both or neither source given, or wrong shapes.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.multibody import models
    >>> m = models.simple_chain()
    >>> ref = m.reference_motion(duration=0.05)
    >>> qdd = solve_accelerations(m.system, ref.q, ref.qd, angle_accelerations=ref.phidd)
    >>> bool(np.allclose(qdd, ref.qdd))
    True
    """
    q = _q_frames(system, "q", q)
    qd = _q_frames(system, "qd", qd)
    if qd.shape != q.shape:
        raise ValueError(f"qd must have the shape of q, {q.shape}, got {qd.shape}")
    src = _rhs_source(system, marker_accelerations, angle_accelerations, q.shape[0],
                      ("marker_accelerations", "angle_accelerations"))
    gam = np.array([system._topo.gamma(q[k], qd[k])
                    for k in range(q.shape[0])])
    return _solve_linear(system, q, gam, src, weight)
