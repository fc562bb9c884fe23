"""Physically consistent least squares: identification under linear matrix inequalities.

Least squares on the data of a poorly exciting experiment can return a robot that cannot
exist (a negative mass, an inertia that is not positive definite about the centre of mass, or
principal moments that break the triangle inequality); such a model cannot be simulated.
This module estimates the **standard** parameters under the constraints that make every link
a possible rigid body.

* :func:`physical_ls` -- least squares subject to the pseudo-inertia LMI ``J(pi_j) >= 0`` of
  every link :cite:`wensing2018` (or, with ``consistency="semi"``, the 6x6 LMI of positive
  mass and a positive semi-definite inertia about the centre of mass :cite:`sousa2014`),
  non-negative friction and optional bounds. It is a convex semidefinite program, solved
  with cvxpy :cite:`diamond2016` and the Clarabel interior-point solver
  :cite:`goulart2024`.
* :func:`bounded_ls` -- the bounded-QP alternative (box bounds on masses, inertias and
  friction, in the spirit of FIGAROH and of the feasible-parameter retrieval of
  :cite:`gaz2019`): a bounded least-squares problem solved by ``scipy.optimize.lsq_linear``;
  a box cannot express ``J >= 0``, so its result is not guaranteed to be consistent (the
  result says whether it is).
* :func:`standard_from_base` -- from base parameters identified by any method to a full
  standard set that a simulator accepts: the realisation of ``beta`` closest to a prior (CAD)
  with every link consistent, an SDP with the equality ``bp.beta(x) = beta``;
  :func:`is_feasible_base` -- whether such a set exists at all (the physical feasibility of
  base parameters of :cite:`sousa2014`).

Problem
-------
With the stacked standard regressor ``W`` (``(r, p)``, rows stacked as
:func:`robidlib.regressor.stack` does; columns: the ``10 n`` inertial parameters in the GUIDE
order, then ``fv1, fc1, ..., fvn, fcn`` when ``friction=True``, then any extra columns the
caller appends, e.g. rotor inertias) and the torques ``y``::

    minimise    ||W x - y||^2 / ||y||^2  +  reg * ||G (x - prior)||^2 / k
    subject to  J(pi_j) >= 0  (or the semi LMI)          for every link j
                lower <= x <= upper                      (friction >= 0, m_j >= min_mass, bounds)

The data fix only the base parameters ``beta`` (:mod:`robidlib.base`): every standard set in
``x + null(W)`` fits equally well. The second term picks one physical set among them: ``G``
measures the deviation from the prior (default: the robot's own parameters) in units of each
parameter's own scale (see :func:`physical_ls`), so both terms, and ``reg``, are
dimensionless.

Speed: the data enter the cone program only through the triangular factor of the thin QR of
``[W, y]`` (``p + 1`` rows whatever the number of samples), so 2 000 or 20 000 samples give
the same small SDP; the inertial unknowns are the (scaled) pseudo-inertia matrices themselves,
so the LMIs are plain positive-semidefinite cones without equality constraints ("semi": the
6x6 matrices, with 11 linear equalities each for their zero and repeated entries). The UR5
with 2 000 samples takes well under a second (``benchmarks/bench_physical.py``).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from .._validate import as_array, check_choice, check_nonnegative, check_positive, check_same_robot
from ..params import consistency_report, friction_names, pseudo_inertia, pseudo_inertia_params
from ._estimate import Estimate
from .lsq import default_rank_tol

__all__ = ["physical_ls", "bounded_ls", "standard_from_base", "is_feasible_base"]

_INSTALL_HINT = (
    "physical_ls needs cvxpy with the Clarabel solver: pip install 'cvxpy-base>=1.5.2' "
    "'clarabel>=0.7' (or pip install 'robidlib[physical]'); the full 'cvxpy' package works too"
)


def _import_cvxpy():
    """cvxpy, imported only when a function of this module needs it."""
    try:
        import cvxpy as cp
    except ImportError as exc:  # tests/test_physical.py hides cvxpy to exercise this
        raise ImportError(f"{_INSTALL_HINT} ({exc})") from None
    return cp


# --------------------------------------------------------------------------------- validation
def _real(name: str, x: Any, **kw) -> np.ndarray:
    if np.iscomplexobj(x):
        raise TypeError(f"{name} must be real, got a complex array (dtype {np.asarray(x).dtype})")
    return as_array(name, x, **kw)


#: Largest magnitude of a bound, a mass or a margin handed to the solver: its square must
#: still be a double (the cone program squares the scaled parameters), else the solver fails
#: (Clarabel even panics) instead of answering.
LARGEST = 1e150


def _per_link(name: str, value: Any, n: int | None) -> np.ndarray:
    """A scalar or one value per link (``n`` None: any length), each in ``[0, LARGEST]``."""
    v = _real(name, value)
    if v.ndim == 0 and n is not None:
        v = np.full(n, float(v))
    if v.ndim > 1 or (n is not None and v.shape != (n,)):
        raise ValueError(f"{name} must be a scalar or have shape ({n if n is not None else 'n'},) (one per link), "
                         f"got {v.shape}")
    if np.any(v < 0) or np.any(v > LARGEST):
        raise ValueError(f"{name} must be >= 0 and <= {LARGEST:g}, got {v.tolist()}")
    return v


def _bound_pair(key: str, value: Any) -> np.ndarray:
    """``(lower, upper)`` of ``bounds[key]``: not NaN, finite ends at most :data:`LARGEST` in magnitude."""
    b = _real(f"bounds[{key!r}]", value, shape=(2,), finite=False)
    if np.any(np.isnan(b)):
        raise ValueError(f"bounds[{key!r}] must not be NaN, got {b.tolist()}")
    if np.any(np.isfinite(b) & (np.abs(b) > LARGEST)):
        raise ValueError(f"bounds[{key!r}] must be within +-{LARGEST:g} (or +-inf for no bound), got {b.tolist()}")
    return b


def _margin(margin: Any) -> float:
    m = check_nonnegative("margin", margin)
    if m > LARGEST:
        raise ValueError(f"margin must be <= {LARGEST:g}, got {m:g}")
    return m


def _check_options(*, min_mass: Any = 0.0, bounds: Any = None, solver: Any = None, solver_options: Any = None,
                   margin: Any = 0.0) -> None:
    """The options of :func:`physical_ls` that need no data, checked early (e.g. by a hook factory)."""
    _per_link("min_mass", min_mass, None)
    _margin(margin)
    if bounds is not None:
        if not isinstance(bounds, Mapping):
            raise TypeError(f"bounds must be a mapping name -> (lower, upper), got {type(bounds).__name__}")
        for key, lu in bounds.items():
            if not isinstance(key, str):
                raise TypeError(f"bounds must be keyed by parameter names (str), got {type(key).__name__} {key!r}")
            _bound_pair(key, lu)
    if solver is not None and not isinstance(solver, str):
        raise TypeError(f"solver must be a cvxpy solver name (str) or None, got {type(solver).__name__}")
    if solver_options is not None and not isinstance(solver_options, Mapping):
        raise TypeError(f"solver_options must be a mapping of keyword arguments, got {type(solver_options).__name__}")
    if solver is not None:
        _check_solver(_import_cvxpy(), solver, solver_options)


# floor of the residual energy the solver's objective is divided by, relative to ||y||^2
_RES_FLOOR = 1e-12
# J >= -_PSD_TOL |J| counts as J >= 0 in info["consistent"] (an interior-point solution that is
# on the boundary of the cone is feasible to about the solver's tolerance)
_PSD_TOL = 1e-8
# an "optimal_inaccurate" realisation (standard_from_base) is accepted when it meets the equality
# constraints and the LMIs to this relative tolerance
_INACCURATE_TOL = 1e-6


@dataclass
class _Problem:
    """Everything both estimators share: checked inputs, the reduced data, the regulariser."""

    W: np.ndarray
    y: np.ndarray
    n: int
    names: tuple[str, ...]
    n_friction: int
    prior: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    R: np.ndarray  # reduced data: ||W x - y||^2 = ||R x - z||^2
    z: np.ndarray
    ynorm: float
    rank: int
    cond: float
    ols_residual: float
    rho: float  # the solver's objective is divided by rho^2 / ||y||^2
    scale: np.ndarray
    G: np.ndarray
    reg: float
    reg_space: str
    bp: Any

    @property
    def p(self) -> int:
        return len(self.names)


def _setup(
    W, y, robot, prior, reg, reg_space, friction, extra_names, bounds, min_mass, bp,
) -> _Problem:
    from ..robot import SerialRobot

    if not isinstance(robot, SerialRobot):
        raise TypeError(f"robot must be a SerialRobot, got {type(robot).__name__}")
    W = _real("W", W, ndim=2)
    y = _real("y", y, ndim=1)
    if W.shape[0] != y.shape[0]:
        raise ValueError(f"W has {W.shape[0]} rows but y has {y.shape[0]} entries; they must match")
    if W.shape[0] == 0 or W.shape[1] == 0:
        raise ValueError(f"W must have at least one row and one column, got shape {W.shape}")
    if not isinstance(friction, (bool, np.bool_)):
        raise TypeError(f"friction must be True or False, got {friction!r}")
    n = robot.n
    if isinstance(extra_names, str):
        raise TypeError(f"extra_names must be a sequence of str (one per extra column), got the str {extra_names!r}")
    extra = tuple(extra_names)
    if not all(isinstance(e, str) for e in extra):
        raise TypeError(f"extra_names must be a sequence of str, got {extra!r}")
    fr = friction_names(n) if friction else ()
    names = tuple(robot.param_names) + fr + extra
    if len(set(names)) != len(names):
        raise ValueError(f"extra_names must be new, distinct names, got {extra} (robot names: {names[:3]}...)")
    p = len(names)
    if W.shape[1] != p:
        raise ValueError(
            f"W must have {p} columns for robot {robot.name!r} ({n} joints) = 10 n inertial ({10 * n})"
            + (f" + 2 n friction ({2 * n})" if friction else "")
            + f" + {len(extra)} extra (extra_names), got {W.shape[1]}; set friction= and "
            "extra_names= to describe the columns of W"
        )
    ynorm = float(np.linalg.norm(y))
    if ynorm == 0:
        raise ValueError("y must not be all zero: there is nothing to fit")

    # prior: the robot's own parameters, its friction, zeros for extra columns
    if prior is None:
        prior_arr = np.concatenate([robot.params, robot.friction.ravel() if friction else [], np.zeros(len(extra))])
    else:
        prior_arr = _real("prior", prior, ndim=1)
        if prior_arr.shape != (p,):
            raise ValueError(f"prior must have shape ({p},) (one value per column of W), got {prior_arr.shape}")

    reg = check_nonnegative("reg", reg)
    check_choice("reg_space", reg_space, ("null", "all"))

    # bounds: friction >= 0 by default, masses >= min_mass, then the caller's
    lower = np.full(p, -np.inf)
    upper = np.full(p, np.inf)
    lower[10 * n: 10 * n + len(fr)] = 0.0
    mm = _per_link("min_mass", min_mass, n)
    lower[0: 10 * n: 10] = mm
    if bounds is not None:
        if not isinstance(bounds, Mapping):
            raise TypeError(f"bounds must be a mapping name -> (lower, upper), got {type(bounds).__name__}")
        index = {nm: k for k, nm in enumerate(names)}
        for key, lu in bounds.items():
            if key not in index:
                raise ValueError(f"bounds names an unknown parameter {key!r}; known: {', '.join(names[:12])}, ...")
            b = _bound_pair(key, lu)
            k = index[key]
            lower[k] = max(lower[k], b[0]) if k % 10 == 0 and k < 10 * n else b[0]
            upper[k] = b[1]
    bad = np.flatnonzero(lower > upper)
    if bad.size:
        k = int(bad[0])
        raise ValueError(
            f"infeasible bounds: {names[k]} must satisfy {lower[k]:g} <= {names[k]} <= {upper[k]:g} "
            "(bounds and min_mass contradict each other)"
        )

    # reduced data from one QR of [W, y]: ||W x - y||^2 = ||R x - z||^2
    Rz = np.linalg.qr(np.column_stack([W, y]), mode="r")
    R, z = Rz[:, :p], Rz[:, p]
    U, s, Vt = np.linalg.svd(R, full_matrices=True)
    tol = default_rank_tol(s, W.shape)
    rank = int(np.count_nonzero(s > tol))
    if rank == 0:
        raise ValueError("W has rank 0: no parameter affects the torques")
    cond = float(s[0] / s[p - 1]) if rank == p else float("inf")
    Ur = U[:, :rank]
    ols_residual = float(np.linalg.norm(z - Ur @ (Ur.T @ z)))

    scale = _scales(prior_arr, R, ynorm, n)
    if reg_space == "all":
        G = np.diag(1.0 / scale)
    else:
        V2 = Vt[rank:].T
        if V2.shape[1] == 0:
            G = np.zeros((0, p))
        else:
            Q, _ = np.linalg.qr(V2 / scale[:, None])
            G = Q.T / scale[None, :]

    if bp is None:
        from ..base import base_parameters

        bp = base_parameters(robot, friction=bool(friction)) if not extra else base_parameters(W, names=names)
    elif getattr(bp, "n_params", None) != p:
        raise ValueError(
            f"bp must be a BaseParameters of the {p} columns of W, got one of "
            f"{getattr(bp, 'n_params', type(bp).__name__)} parameters"
        )
    else:
        check_same_robot("bp", bp, robot)
    return _Problem(
        W=W, y=y, n=n, names=names, n_friction=len(fr), prior=prior_arr, lower=lower, upper=upper,
        R=R, z=z, ynorm=ynorm, rank=rank, cond=cond, ols_residual=ols_residual,
        rho=max(ols_residual, np.sqrt(_RES_FLOOR) * ynorm), scale=scale, G=G,
        reg=reg, reg_space=reg_space, bp=bp,
    )


def _link_scales(prior: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Mass scale M_j (kg) and length scale L_j (m) of every link, from the prior."""
    P = prior[: 10 * n].reshape(n, 10)
    m = P[:, 0]
    pos = m[m > 0]
    M = np.where(m > 0, m, np.median(pos) if pos.size else 1.0)
    second = 0.5 * P[:, 4:7].sum(axis=1)  # tr(Sigma_O) = sum m r^2 about the link origin
    with np.errstate(invalid="ignore", divide="ignore"):
        L = np.sqrt(np.where(second > 0, second / M, np.nan))
    ok = np.isfinite(L) & (L > 0)
    L = np.where(ok, L, np.median(L[ok]) if ok.any() else 1.0)
    return M, L


def _scales(prior, R, ynorm, n) -> np.ndarray:
    """Size of every parameter: M, M L, M L^2 for m, h, I of link j; ||y|| / ||w_k|| otherwise."""
    M, L = _link_scales(prior, n)
    per_link = np.column_stack([M, M[:, None] * L[:, None] * np.ones((n, 3)), (M * L**2)[:, None] * np.ones((n, 6))])
    col = np.linalg.norm(R[:, 10 * n:], axis=0)
    rest = np.where(col > 0, ynorm / np.where(col > 0, col, 1.0), 1.0)
    return np.concatenate([per_link.ravel(), rest])


def _objective_rows(pb: _Problem) -> tuple[np.ndarray, np.ndarray]:
    """B, c with the objective ||B x - c||^2 (data term over ||y||^2 plus the regulariser)."""
    k = pb.G.shape[0]
    B, c = pb.R / pb.ynorm, pb.z / pb.ynorm
    if pb.reg > 0 and k > 0:
        w = np.sqrt(pb.reg / k)
        B = np.vstack([B, w * pb.G])
        c = np.concatenate([c, w * (pb.G @ pb.prior)])
    return B, c


def _finish(pb: _Problem, x: np.ndarray, method: str, info: dict, t0: float) -> Estimate:
    res = pb.y - pb.W @ x
    rnorm = float(np.linalg.norm(res))
    r = pb.W.shape[0]
    p = pb.p
    rep = consistency_report(x[: 10 * pb.n])
    lam = np.linalg.eigvalsh(pseudo_inertia(x[: 10 * pb.n].reshape(pb.n, 10)))
    top = np.abs(lam).max(axis=1)
    info.update(
        beta=pb.bp.beta(x),
        base=pb.bp,
        residual=res,
        residual_norm=rnorm,
        relative_residual=rnorm / pb.ynorm,
        ols_residual_norm=pb.ols_residual,
        min_eig_J=lam[:, 0] / np.where(top > 0, top, 1.0),
        report=rep,
        consistent=bool(np.all(lam[:, 0] >= -_PSD_TOL * top)),
        prior=pb.prior,
        scale=pb.scale,
        reg=pb.reg,
        reg_space=pb.reg_space,
        lower=pb.lower,
        upper=pb.upper,
        time=time.perf_counter() - t0,
    )
    nan = np.full((p, p), np.nan)
    return Estimate(
        params=x, cov=nan, rel_std=np.full(p, np.nan), residual_std=rnorm / np.sqrt(max(r - pb.rank, 1)),
        rank=pb.rank, cond=pb.cond, names=pb.names, method=method, info=info,
    )


# ------------------------------------------------------------------------- linear maps of the LMIs
def _params_of_sym(size: int, params_of) -> np.ndarray:
    """Matrix T with pi = T vec(X) for symmetric X (any vec order), from a map of symmetric X."""
    T = np.zeros((10, size * size))
    for a in range(size):
        for b in range(size):
            E = np.zeros((size, size))
            E[a, b] += 0.5
            E[b, a] += 0.5
            T[:, b * size + a] = params_of(E)
    return T


def _semi_lmi(pi: np.ndarray) -> np.ndarray:
    """[[I_O, S(h)^T], [S(h), m E]] (6x6): PSD iff m >= 0 and the inertia about the CoM is PSD."""
    m, h = pi[0], pi[1:4]
    I = np.array([[pi[4], pi[7], pi[8]], [pi[7], pi[5], pi[9]], [pi[8], pi[9], pi[6]]])
    S = np.array([[0.0, -h[2], h[1]], [h[2], 0.0, -h[0]], [-h[1], h[0], 0.0]])
    return np.block([[I, S.T], [S, m * np.eye(3)]])


_IU6 = np.triu_indices(6)
_M6 = np.stack([_semi_lmi(e)[_IU6] for e in np.eye(10)], axis=1)  # (21, 10): upper triangle of the 6x6 LMI
_M6_PINV = np.linalg.pinv(_M6)
_M6_PERP = np.linalg.svd(_M6, full_matrices=True)[0][:, 10:]  # (21, 11): the LMI's structural zeros


def _semi_params(X: np.ndarray) -> np.ndarray:
    return _M6_PINV @ X[_IU6]


_T4 = _params_of_sym(4, pseudo_inertia_params)

_T6 = _params_of_sym(6, _semi_params)



@dataclass
class _Cone:
    """The parameters as an affine map of the cone variables: ``x = A v + a0``."""

    A: np.ndarray
    a0: np.ndarray
    v: Any
    Ys: list
    w: Any
    constraints: list

    def value(self) -> np.ndarray:
        """The solved ``v`` (each LMI matrix symmetrised)."""
        parts = [(Yj.value + Yj.value.T).ravel(order="F") / 2 for Yj in self.Ys]
        if self.w is not None:
            parts.append(self.w.value)
        return np.concatenate(parts)


def _cone_program(cp, n, p, prior, scale, lower, upper, consistency, margin) -> _Cone:
    """Variables and constraints shared by :func:`physical_ls` and :func:`standard_from_base`.

    ``x = A v + a0`` with ``v = [vec(Y_1), ..., vec(Y_n), w]``: ``Y_j >= 0`` the scaled LMI
    matrix of link j minus its margin, ``w`` the other parameters in units of their scale;
    plus the bounds ``lower <= x <= upper`` (and, for "semi", the structure of the 6x6 LMI).
    """
    M, L = _link_scales(prior, n)
    size = 4 if consistency == "full" else 6
    T = _T4 if consistency == "full" else _T6
    nv = size * size
    A = np.zeros((p, n * nv + (p - 10 * n)))
    a0 = np.zeros(p)
    for j in range(n):
        d = np.sqrt(M[j]) * np.r_[[L[j]] * 3, [1.0] * (size - 3)]
        DD = np.kron(d, d)  # vec(D Y D) = (d (x) d) * vec(Y), elementwise, any vec order
        A[10 * j: 10 * j + 10, j * nv: (j + 1) * nv] = T * DD[None, :]
        a0[10 * j: 10 * j + 10] = T @ (DD * np.eye(size).ravel()) * margin
    A[10 * n:, n * nv:] = np.diag(scale[10 * n:])

    Ys = [cp.Variable((size, size), PSD=True) for _ in range(n)]
    parts = [cp.reshape(Yj, (nv,), order="F") for Yj in Ys]
    w = None
    if p > 10 * n:
        w = cp.Variable(p - 10 * n)
        parts.append(w)
    v = cp.hstack(parts)
    cons = []
    if consistency == "semi":
        # the 6x6 matrix must keep the LMI's structure (zero and repeated entries)
        iu = _IU6[1] * 6 + _IU6[0]  # F-order position of each upper-triangle entry
        for j in range(n):
            d = np.sqrt(M[j]) * np.r_[[L[j]] * 3, [1.0] * 3]
            dd = np.outer(d, d)[_IU6]
            cons.append((_M6_PERP.T * dd[None, :]) @ parts[j][iu] == 0)
    lo_k = np.flatnonzero(np.isfinite(lower))
    hi_k = np.flatnonzero(np.isfinite(upper))
    if lo_k.size:
        cons.append(A[lo_k] @ v >= lower[lo_k] - a0[lo_k])
    if hi_k.size:
        cons.append(A[hi_k] @ v <= upper[hi_k] - a0[hi_k])
    return _Cone(A=A, a0=a0, v=v, Ys=Ys, w=w, constraints=cons)


def _check_solver(cp, solver, solver_options) -> str:
    if solver is not None and not isinstance(solver, str):
        raise TypeError(f"solver must be a cvxpy solver name (str) or None, got {type(solver).__name__}")
    if solver_options is not None and not isinstance(solver_options, Mapping):
        raise TypeError(f"solver_options must be a mapping of keyword arguments, got {type(solver_options).__name__}")
    solver = "CLARABEL" if solver is None else solver.upper()
    if solver not in cp.installed_solvers():
        raise ValueError(
            f"unknown or uninstalled solver {solver!r}; installed cvxpy solvers: {', '.join(cp.installed_solvers())}"
        )
    return solver


def _solve(cp, prob, solver, solver_options, what, hint, infeasible_ok=False, inaccurate_ok=False):
    """Solve; return (status, iterations, stats, wall time). Infeasible: ValueError (or the status
    when ``infeasible_ok``); "optimal_inaccurate" is returned when ``inaccurate_ok`` (the caller
    then verifies the solution); any other non-optimal status: RuntimeError, never a partial
    result."""
    opts = dict(solver_options or {})
    t1 = time.perf_counter()
    try:
        with warnings.catch_warnings():  # an inaccurate solution raises below, with its status
            warnings.filterwarnings("ignore", message="Solution may be inaccurate", category=UserWarning)
            prob.solve(solver=solver, **opts)
    except cp.error.SolverError as exc:
        raise RuntimeError(f"the solver {solver} failed on {what} (status {prob.status!r}): {exc}") from None
    except TypeError as exc:       # an option the solver does not know (Clarabel: "unrecognized solver setting")
        if not opts:
            raise
        raise ValueError(f"solver_options {sorted(opts)} were refused by the solver {solver}: {exc}") from None
    except BaseException as exc:   # noqa: BLE001 - Clarabel's Rust panics derive from BaseException
        if type(exc).__name__ != "PanicException":
            raise
        raise RuntimeError(f"the solver {solver} crashed on {what} ({exc}); no result is returned (check the "
                           "scale of the data, bounds and min_mass)") from None
    wall = time.perf_counter() - t1
    status = prob.status
    stats = prob.solver_stats
    iters = getattr(stats, "num_iters", None)
    if status in ("infeasible", "infeasible_inaccurate"):
        if infeasible_ok:
            return status, iters, stats, wall
        raise ValueError(
            f"the constraints admit no parameter vector: solver {solver} status {status!r} after "
            f"{iters} iterations; {hint}"
        )
    if status != "optimal" and not (inaccurate_ok and status == "optimal_inaccurate"):
        raise RuntimeError(
            f"the solver {solver} stopped without an optimal solution: status {status!r} after "
            f"{iters} iterations; no result is returned (try solver_options, a larger reg, or "
            "scaling the data)"
        )
    return status, iters, stats, wall


# ----------------------------------------------------------------------------------- estimators
def physical_ls(
    W: np.ndarray,
    y: np.ndarray,
    robot: Any,
    *,
    prior: np.ndarray | Sequence[float] | None = None,
    reg: float = 1e-6,
    reg_space: str = "null",
    friction: bool = True,
    consistency: str = "full",
    extra_names: Sequence[str] = (),
    bounds: Mapping[str, Sequence[float]] | None = None,
    min_mass: float | Sequence[float] = 0.0,
    margin: float = 0.0,
    bp: Any = None,
    solver: str | None = None,
    solver_options: Mapping[str, Any] | None = None,
) -> Estimate:
    """Least squares over the standard parameters with every link a possible rigid body (an SDP).

    Solves (see the module docstring)::

        minimise    ||W x - y||^2 / ||y||^2  +  reg * ||G (x - prior)||^2 / k
        subject to  C_j(x) >= margin * D_j^2      (one LMI per link j)
                    lower <= x <= upper

    Constraints. ``consistency="full"``: ``C_j = J(pi_j)``, the 4x4 pseudo-inertia
    (:func:`robidlib.params.pseudo_inertia`); ``J >= 0`` holds exactly when a non-negative mass
    distribution with these ten parameters exists, i.e. ``m >= 0`` and the triangle
    inequalities of the principal moments about the centre of mass :cite:`wensing2018`
    (the "full physical consistency" of :cite:`traversaro2016`, and the condition
    :cite:`sousa2019` add to the older ones). ``consistency="semi"``: ``C_j`` is the 6x6 LMI
    ``[[I_O, S(h)^T], [S(h), m E]]`` of :cite:`sousa2014`; by the Schur complement it holds
    exactly when ``m >= 0`` and the inertia about the centre of mass
    ``I_C = I_O - S(h)^T S(h) / m`` is positive semi-definite -- the classical
    "physical feasibility" conditions, without the triangle inequalities. In both modes the
    data determine only the base parameters ``beta = bp.beta(x)``; what the result certifies
    is that ``beta`` has at least one standard realisation satisfying the chosen conditions
    (the feasibility of base parameters of :cite:`sousa2014`), and ``params`` is such a
    realisation. "semi" certifies less: its realisation may break the triangle inequality,
    so that no mass distribution has it, while any "full" result is also "semi".
    ``D_j = sqrt(M_j) diag(L_j, L_j, L_j, 1)`` (and ``diag(L_j E, E)`` for "semi") makes
    ``margin`` dimensionless: ``margin > 0`` keeps every link strictly inside (a positive
    mass and a positive definite inertia about the centre of mass, as a simulator needs).
    Friction coefficients are ``>= 0``, masses ``>= min_mass``; ``bounds`` adds bounds on
    any parameter by name (e.g. a payload-mass range).

    Regularisation. ``reg`` is dimensionless. The data term is the squared residual relative
    to ``||y||^2`` (the squared torque norm); the second term is the mean squared deviation
    from ``prior`` in units of each parameter's scale: ``M_j`` (kg) for the mass, ``M_j L_j``
    for the first moments and ``M_j L_j^2`` for the inertias of link ``j``, with ``M_j`` the
    prior mass and ``L_j = sqrt(tr(I_O) / (2 M_j))`` the prior's root-mean-square distance of
    the mass from the link origin (links without a prior mass or inertia get the median of
    the others); ``||y|| / ||w_k||`` for a friction or extra column ``w_k`` (the coefficient
    that alone would explain all the torque). ``info["scale"]`` holds the scales.

    With ``reg_space="null"`` (default) only the deviation along the null space of ``W``
    counts (``k = p - rank(W)`` rows of ``G``: the projection of ``x - prior`` on the null
    space, orthogonal in the scaled metric): among the standard sets the data cannot tell
    apart, the regulariser picks the one closest to the prior, and the identifiable
    combinations are left to the data. When the realisation of the least-squares base
    parameters closest to the prior is consistent (rich data), ``bp.beta(params)`` equals the
    least-squares base parameters to the solver's tolerance. Otherwise the constraints couple
    the two, and the regulariser may move along directions the data hardly see: at the
    default ``reg = 1e-6`` the squared residual grows by at most about ``reg`` times
    ``||y||^2`` times the mean squared scaled deviation it saves -- a 100 % deviation of every
    unidentifiable combination weighs as much as a 0.0001 % change of ``||y||^2``.
    ``reg_space="all"`` regularises every parameter (``G = diag(1/scale)``, ``k = p``): ridge
    regression toward the prior under the constraints; then ``reg`` of the order of the
    relative noise energy ``||y - W x||^2 / ||y||^2`` or larger has a visible effect.
    ``reg = 0`` leaves the choice within the null space to the solver (any consistent set of
    the best fit).

    Accuracy. The solver's stopping tests are relative to its objective, which it is given
    divided by the unconstrained least-squares residual energy (floored at ``1e-12 ||y||^2``
    for noise-free data): the minimiser is the same, and the tolerance becomes a fraction of
    the noise rather than of ``||y||^2``, so even the weakly excited base parameters come out
    to many digits.

    Parameters
    ----------
    W : array_like, shape (r, p)
        Stacked standard regressor (:func:`robidlib.regressor.stack`), columns in the order
        ``robot.param_names``, then ``fv1, fc1, ..., fvn, fcn`` when ``friction`` is True, then
        ``extra_names``.
    y : array_like, shape (r,)
        Stacked measured torques.
    robot : SerialRobot
        Gives ``n``, the parameter names and the default prior (``robot.params`` and
        ``robot.friction``).
    prior : array_like, shape (p,), optional
        The values the regulariser pulls toward (e.g. CAD); default the robot's own
        parameters, its friction and zeros for the extra columns. It need not be consistent.
    reg : float, default 1e-6
        Dimensionless regularisation weight (>= 0), see above.
    reg_space : {"null", "all"}, default "null"
        Regularise only the directions the data cannot see, or every parameter.
    friction : bool, default True
        ``W`` has the ``2 n`` viscous and Coulomb friction columns after the inertial ones;
        their coefficients are constrained ``>= 0`` (``bounds`` can override).
    consistency : {"full", "semi"}, default "full"
        The LMI imposed on every link, see above.
    extra_names : sequence of str, default ()
        Names of extra columns the caller appended to ``W`` after the friction columns (e.g.
        rotor inertias ``("Ia1", ..., "Ia6")`` with columns ``qdd_j``); their number is the
        number of extra columns. They are free unless ``bounds`` bounds them.
    bounds : mapping str -> (lower, upper), optional
        Bounds by parameter name, e.g. ``{"m6": (1.0, 1.5), "Ia1": (0.0, np.inf)}``
        (``+-inf`` for no bound). A mass bound is combined with ``min_mass`` (the larger
        lower bound wins); other bounds replace the defaults.
    min_mass : float or array_like, shape (n,), default 0.0
        Lower bound of every link mass (kg, >= 0): a strict margin ``m_j >= eps``.
    margin : float, default 0.0
        Dimensionless margin of the LMIs (>= 0), see above.
    bp : BaseParameters, optional
        Base parameters used to report ``info["beta"]``; default
        :func:`robidlib.base.base_parameters` of the robot (with friction when
        ``friction``), or of ``W`` itself when there are extra columns.
    solver : str, optional
        cvxpy solver name; default ``"CLARABEL"``. It must support semidefinite cones.
    solver_options : mapping, optional
        Keyword arguments passed to ``cvxpy.Problem.solve`` (e.g. ``{"max_iter": 100}`` or
        Clarabel's ``tol_gap_rel``).

    Returns
    -------
    Estimate
        ``method="physical_ls"``. ``params`` (p,): standard parameters a simulator accepts
        (``robot.with_params(params[:10 n])``). ``cov`` and ``rel_std`` are NaN: a constrained
        estimate has no closed-form covariance (use a seeded Monte Carlo). ``residual_std`` is
        ``||y - W x|| / sqrt(r - rank(W))``; ``rank`` and ``cond`` are those of ``W`` (``cond``
        is ``inf`` when ``W`` is rank deficient, as it is for standard parameters).
        ``info``: ``beta`` (``bp.beta(params)``), ``base`` (``bp``), ``residual`` (``y - W x``),
        ``residual_norm``, ``relative_residual`` (over ``||y||``), ``ols_residual_norm``
        (the unconstrained least-squares residual, for comparison), ``status``,
        ``iterations``, ``solve_time`` (the solver's), ``setup_time`` (cvxpy's compilation),
        ``time`` (the whole call, s), ``objective``, ``solver``, ``consistency``,
        ``min_eig_J`` (smallest eigenvalue of every link's ``J`` over its largest absolute
        one), ``consistent`` (every ``J >= 0`` to ``1e-8`` of its norm: the solver's tolerance;
        a link on the boundary of the cone, e.g. a flat body, counts), ``report``
        (:func:`robidlib.params.consistency_report` of the result, strict: a boundary link fails
        its positive-definite test -- use ``margin > 0`` for a strictly consistent robot),
        plus ``prior``, ``scale``, ``reg``, ``reg_space``, ``lower``, ``upper``, ``margin``.

    Raises
    ------
    ValueError
        Wrong shapes, NaN/inf, ``y`` all zero, a column count that does not match
        ``friction``/``extra_names``, unknown ``consistency``/``reg_space``/names in
        ``bounds``, negative ``reg``/``margin``/``min_mass``, bounds, masses or a margin beyond
        :data:`LARGEST` (``1e150``: the solver squares them), contradicting bounds, ``bp`` of
        another robot, an unknown or uninstalled solver, ``solver_options`` the solver
        refuses, or a problem the solver finds infeasible (the message gives its status).
    TypeError
        Complex or non-numeric arrays, a robot that is not a ``SerialRobot``, a non-bool
        ``friction``, non-mapping ``bounds`` or ``solver_options``.
    RuntimeError
        The solver stopped without an optimal solution (iteration limit, numerical trouble)
        or crashed (a Clarabel panic, caught here): the message gives its status; no partial
        result is returned.
    ImportError
        cvxpy (``cvxpy-base``) or Clarabel is not installed; the message names the packages.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.models import planar_2r
    >>> from robidlib import random_states, regressor, stack
    >>> from robidlib.regressor import friction_regressor
    >>> robot = planar_2r().with_friction(fv=[0.2, 0.1], fc=[0.5, 0.3])
    >>> q, qd, qdd = random_states(robot, 200, rng=0)
    >>> Y = np.concatenate([regressor(robot, q, qd, qdd), friction_regressor(qd)], axis=-1)
    >>> W, y = stack(Y, Y @ np.r_[robot.params, robot.friction.ravel()])
    >>> est = physical_ls(W, y, robot)
    >>> est.info["status"], est.info["consistent"]
    ('optimal', True)
    >>> bool(np.allclose(est.info["beta"], est.info["base"].beta(np.r_[robot.params, robot.friction.ravel()]), rtol=1e-6, atol=1e-8))
    True
    """
    t0 = time.perf_counter()
    check_choice("consistency", consistency, ("full", "semi"))
    margin = _margin(margin)
    pb = _setup(W, y, robot, prior, reg, reg_space, friction, extra_names, bounds, min_mass, bp)
    cp = _import_cvxpy()
    solver = _check_solver(cp, solver, solver_options)

    n, p = pb.n, pb.p
    cone = _cone_program(cp, n, p, pb.prior, pb.scale, pb.lower, pb.upper, consistency, margin)
    A, a0, v = cone.A, cone.a0, cone.v
    B, c = _objective_rows(pb)
    # The solver's stopping tests are relative to its objective: hand it the objective over the
    # unconstrained residual energy (same minimiser), so that its tolerance is a fraction of the
    # noise, not of ||y||^2 (this gains several digits in the weakly excited base parameters).
    kappa = pb.ynorm / pb.rho
    H = kappa * (B @ A)
    g = kappa * (c - B @ a0)
    prob = cp.Problem(cp.Minimize(cp.sum_squares(H @ v - g)), cone.constraints)
    status, iters, stats, wall = _solve(
        cp, prob, solver, solver_options, "the physically consistent least-squares problem",
        "check bounds, min_mass and margin against J >= 0 (a link needs non-negative diagonal "
        "inertia and mass)",
    )
    vval = cone.value()
    xv = A @ vval + a0
    solve_time = getattr(stats, "solve_time", None)
    info = dict(
        status=status, iterations=iters, solve_time=solve_time,
        setup_time=wall - (solve_time or 0.0), objective=float(prob.value) / kappa**2, solver=solver,
        consistency=consistency, margin=margin,
    )
    return _finish(pb, xv, "physical_ls", info, t0)


def bounded_ls(
    W: np.ndarray,
    y: np.ndarray,
    robot: Any,
    *,
    prior: np.ndarray | Sequence[float] | None = None,
    reg: float = 1e-6,
    reg_space: str = "null",
    friction: bool = True,
    extra_names: Sequence[str] = (),
    bounds: Mapping[str, Sequence[float]] | None = None,
    min_mass: float | Sequence[float] = 0.0,
    rel_bound: float | None = None,
    bp: Any = None,
) -> Estimate:
    """Least squares with box bounds on the standard parameters (the bounded-QP alternative).

    Solves the same objective as :func:`physical_ls` (``||W x - y||^2 / ||y||^2 + reg
    ||G (x - prior)||^2 / k``, same ``reg`` and ``reg_space``) subject only to bounds
    ``lower <= x <= upper``: masses ``>= min_mass``, diagonal inertias about the link origin
    ``Ixx, Iyy, Izz >= 0``, friction ``>= 0``, and with ``rel_bound`` every inertial parameter
    within ``prior_k +- rel_bound * scale_k`` (the parameter scales of :func:`physical_ls`:
    a box around the CAD values, as FIGAROH's quadratic program uses; :cite:`gaz2019` bound
    masses, centres of mass and inertias in a penalty formulation). ``bounds`` adds or
    replaces bounds by name. The problem is a bounded linear least-squares problem, solved
    exactly by ``scipy.optimize.lsq_linear(method="bvls")`` -- no cvxpy needed.

    A box cannot express ``J(pi_j) >= 0`` (a convex cone, not a box): the bounds above are
    necessary conditions only, so the result may still be inconsistent (e.g. break the
    triangle inequality, or have its centre of mass too far for its inertia).
    ``info["report"]`` says whether it is; :func:`physical_ls` guarantees it.

    Parameters
    ----------
    W, y, robot, prior, reg, reg_space, friction, extra_names, bounds, min_mass, bp
        As in :func:`physical_ls`.
    rel_bound : float, optional
        Half-width of the box around the prior, in units of each parameter's scale (> 0);
        e.g. 0.5 keeps every mass within +-50 % of the prior mass. None: no such box.

    Returns
    -------
    Estimate
        ``method="bounded_ls"``; fields as in :func:`physical_ls` (``cov`` and ``rel_std``
        NaN). ``info`` holds ``beta``, ``base``, ``residual``, ``residual_norm``,
        ``relative_residual``, ``ols_residual_norm``, ``status`` (scipy's code),
        ``message``, ``iterations``, ``active`` (names of the parameters on a bound),
        ``objective``, ``time``, ``min_eig_J``, ``report``, ``consistent``, ``prior``,
        ``scale``, ``reg``, ``reg_space``, ``lower``, ``upper``.

    Raises
    ------
    ValueError
        As :func:`physical_ls` (shapes, NaN/inf, names, contradicting bounds), a
        ``rel_bound`` that is not > 0.
    TypeError
        As :func:`physical_ls`.
    RuntimeError
        If ``lsq_linear`` does not converge (its status and message are given).

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.models import planar_2r
    >>> from robidlib import random_states, regressor, stack
    >>> robot = planar_2r()
    >>> q, qd, qdd = random_states(robot, 200, rng=0)
    >>> W, y = stack(regressor(robot, q, qd, qdd), regressor(robot, q, qd, qdd) @ robot.params)
    >>> est = bounded_ls(W, y, robot, friction=False, rel_bound=0.5)
    >>> est.info["status"] > 0, bool(np.all(est.params[::10] >= 0))
    (True, True)
    """
    import scipy.optimize

    t0 = time.perf_counter()
    pb = _setup(W, y, robot, prior, reg, reg_space, friction, extra_names, bounds, min_mass, bp)
    n = pb.n
    lower, upper = pb.lower.copy(), pb.upper.copy()
    user = set(bounds or {})
    for j in range(n):
        for k in (4, 5, 6):  # Ixx, Iyy, Izz about the origin are >= 0 for any body
            i = 10 * j + k
            if pb.names[i] not in user:
                lower[i] = max(lower[i], 0.0)
    if rel_bound is not None:
        rel = check_positive("rel_bound", rel_bound)
        half = rel * pb.scale[: 10 * n]
        for i in range(10 * n):
            if pb.names[i] not in user:
                lower[i] = max(lower[i], pb.prior[i] - half[i])
                upper[i] = min(upper[i], pb.prior[i] + half[i])
    bad = np.flatnonzero(lower > upper)
    if bad.size:
        k = int(bad[0])
        raise ValueError(
            f"infeasible bounds: {pb.names[k]} must satisfy {lower[k]:g} <= {pb.names[k]} <= {upper[k]:g} "
            "(bounds, min_mass and rel_bound contradict each other)"
        )
    pb.lower, pb.upper = lower, upper
    B, c = _objective_rows(pb)
    # in units of the parameter scales, for a well-scaled problem
    s = pb.scale
    res = scipy.optimize.lsq_linear(B * s[None, :], c, bounds=(lower / s, upper / s), method="bvls")
    if not res.success:
        raise RuntimeError(
            f"lsq_linear did not converge: status {res.status} ({res.message}) after {res.nit} iterations"
        )
    x = res.x * s
    x = np.clip(x, lower, upper)
    on = (np.isclose(x, lower, rtol=1e-9, atol=0) & np.isfinite(lower)) | (
        np.isclose(x, upper, rtol=1e-9, atol=0) & np.isfinite(upper)
    )
    info = dict(
        status=int(res.status), message=str(res.message), iterations=int(res.nit),
        active=tuple(pb.names[k] for k in np.flatnonzero(on)), objective=float(2 * res.cost),
        solver="scipy.optimize.lsq_linear(bvls)",
    )
    return _finish(pb, x, "bounded_ls", info, t0)


# ------------------------------------------------------------------------- from base to standard
def _base_matrix(bp: Any) -> np.ndarray:
    """``Bm`` (r, p) with ``bp.beta(x) == Bm @ x``."""
    p = bp.n_params
    return np.stack([bp.beta(e) for e in np.eye(p)], axis=1)


def _realise(beta, bp, robot, prior, consistency, margin, min_mass, bounds, solver, solver_options):
    """Shared part of :func:`standard_from_base` and :func:`is_feasible_base`."""
    from ..base import BaseParameters
    from ..params import param_names
    from ..robot import SerialRobot

    t0 = time.perf_counter()
    if not isinstance(robot, SerialRobot):
        raise TypeError(f"robot must be a SerialRobot, got {type(robot).__name__}")
    if not isinstance(bp, BaseParameters):
        raise TypeError(f"bp must be a BaseParameters (robidlib.base.base_parameters), got {type(bp).__name__}")
    check_choice("consistency", consistency, ("full", "semi"))
    margin = _margin(margin)
    n, p = robot.n, bp.n_params
    names = tuple(bp.names)
    if names[: 10 * n] != tuple(param_names(n)):
        raise ValueError(
            f"bp must be computed for this robot's {10 * n} standard parameters first (names m1, mx1, ...), "
            f"got {p} parameters named {names[:3]}..."
        )
    beta = _real("beta", beta, ndim=1)
    if beta.shape != (bp.rank,):
        raise ValueError(f"beta must have shape ({bp.rank},) (one value per base parameter of bp), got {beta.shape}")
    check_same_robot("bp", bp, robot)
    if prior is None:
        extra = p - 10 * n
        fr = robot.friction.ravel() if names[10 * n:] == friction_names(n) else np.zeros(extra)
        prior_arr = np.concatenate([robot.params, fr])
    else:
        prior_arr = _real("prior", prior, ndim=1)
        if prior_arr.shape != (p,):
            raise ValueError(f"prior must have shape ({p},) (one value per standard parameter of bp), got {prior_arr.shape}")

    # bounds: friction >= 0 (when the extra columns are the friction columns), masses >= min_mass
    lower = np.full(p, -np.inf)
    upper = np.full(p, np.inf)
    if names[10 * n:] == friction_names(n):
        lower[10 * n:] = 0.0
    lower[0: 10 * n: 10] = _per_link("min_mass", min_mass, n)
    if bounds is not None:
        if not isinstance(bounds, Mapping):
            raise TypeError(f"bounds must be a mapping name -> (lower, upper), got {type(bounds).__name__}")
        index = {nm: k for k, nm in enumerate(names)}
        for key, lu in bounds.items():
            if key not in index:
                raise ValueError(f"bounds names an unknown parameter {key!r}; known: {', '.join(names[:12])}, ...")
            b = _bound_pair(key, lu)
            k = index[key]
            lower[k] = max(lower[k], b[0]) if k % 10 == 0 and k < 10 * n else b[0]
            upper[k] = b[1]
    bad = np.flatnonzero(lower > upper)
    if bad.size:
        k = int(bad[0])
        raise ValueError(
            f"infeasible bounds: {names[k]} must satisfy {lower[k]:g} <= {names[k]} <= {upper[k]:g} "
            "(bounds and min_mass contradict each other)"
        )

    cp = _import_cvxpy()
    solver = _check_solver(cp, solver, solver_options)
    # parameter scales: those of physical_ls for the links; |prior| (1 where it is 0) otherwise
    M, L = _link_scales(prior_arr, n)
    per_link = np.column_stack([M, M[:, None] * L[:, None] * np.ones((n, 3)), (M * L**2)[:, None] * np.ones((n, 6))])
    rest = np.abs(prior_arr[10 * n:])
    scale = np.concatenate([per_link.ravel(), np.where(rest > 0, rest, 1.0)])
    cone = _cone_program(cp, n, p, prior_arr, scale, lower, upper, consistency, margin)
    Bm = _base_matrix(bp)
    row = np.linalg.norm(Bm * scale[None, :], axis=1)  # size of each base parameter in scale units
    E = (Bm @ cone.A) / row[:, None]
    e = (beta - Bm @ cone.a0) / row
    G = cone.A / scale[:, None]
    h = (prior_arr - cone.a0) / scale
    cons = cone.constraints + [E @ cone.v == e]
    prob = cp.Problem(cp.Minimize(cp.sum_squares(G @ cone.v - h) / p), cons)
    status, iters, stats, wall = _solve(
        cp, prob, solver, solver_options, "the realisation of base parameters", "", infeasible_ok=True,
        inaccurate_ok=True,
    )
    solve_time = getattr(stats, "solve_time", None)
    info = dict(
        status=status, iterations=iters, solve_time=solve_time, setup_time=wall - (solve_time or 0.0),
        solver=solver, consistency=consistency, margin=margin, prior=prior_arr, scale=scale,
        lower=lower, upper=upper, base=bp,
    )
    if status.startswith("infeasible"):
        info["time"] = time.perf_counter() - t0
        return None, info
    x = cone.A @ cone.value() + cone.a0
    lam = np.linalg.eigvalsh(pseudo_inertia(x[: 10 * n].reshape(n, 10)))
    top = np.abs(lam).max(axis=1)
    beta_error = float(np.max(np.abs(bp.beta(x) - beta) / row))
    if status != "optimal" and (beta_error > _INACCURATE_TOL or np.any(lam[:, 0] < -_INACCURATE_TOL * top)):
        # a point on the boundary of the feasible set (an interior-point method converges slowly
        # there): accepted only if it satisfies the constraints to _INACCURATE_TOL
        raise RuntimeError(
            f"the solver {solver} stopped with status {status!r} after {iters} iterations and a solution "
            f"that misses the constraints (base-parameter error {beta_error:.2g}, smallest eigenvalue of J "
            f"{float(np.min(lam[:, 0] / np.where(top > 0, top, 1.0))):.2g}): beta is on the boundary of "
            "the feasible set, too close to decide; try margin > 0 or solver_options"
        )
    info.update(
        beta=bp.beta(x),
        beta_error=beta_error,
        distance=float(np.sqrt(np.mean(((x - prior_arr) / scale) ** 2))),
        min_eig_J=lam[:, 0] / np.where(top > 0, top, 1.0),
        consistent=bool(np.all(lam[:, 0] >= -_PSD_TOL * top)),
        report=consistency_report(x[: 10 * n]),
        time=time.perf_counter() - t0,
    )
    return x, info


def standard_from_base(
    beta: np.ndarray | Sequence[float],
    bp: Any,
    robot: Any,
    *,
    prior: np.ndarray | Sequence[float] | None = None,
    consistency: str = "full",
    margin: float = 0.0,
    min_mass: float | Sequence[float] = 0.0,
    bounds: Mapping[str, Sequence[float]] | None = None,
    solver: str | None = None,
    solver_options: Mapping[str, Any] | None = None,
) -> Estimate:
    """A full standard parameter set with given base parameters, every link consistent, closest to a prior.

    Solves the semidefinite program (:cite:`sousa2014` pose the feasibility question; the
    LMIs are those of :func:`physical_ls`)::

        minimise    ||(x - prior) / scale||^2 / p
        subject to  bp.beta(x) = beta
                    J(pi_j) >= margin * D_j^2  (or the "semi" LMI)     for every link j
                    lower <= x <= upper           (friction >= 0, m_j >= min_mass, bounds)

    Every ``x`` with ``bp.beta(x) = beta`` has the same dynamics (the same torques for every
    motion, hence the same mass matrix), so the result is a robot that moves exactly as the
    base model does and that a simulator accepts, as close to the prior (e.g. CAD) as the
    constraints allow, in the parameter scales of :func:`physical_ls` (``|prior_k|``, or 1,
    for the friction and extra columns). Use it to turn base parameters identified by any
    method (OLS, ridge, a published table) into a full model (a URDF, a simulator).

    Parameters
    ----------
    beta : array_like, shape (bp.rank,)
        Base parameters.
    bp : BaseParameters
        Their definition (:func:`robidlib.base.base_parameters` of ``robot``, with or without
        friction columns, or of a regressor whose first ``10 n`` columns are the robot's).
    robot : SerialRobot
        Gives ``n`` and the default prior (``robot.params`` and, when ``bp`` has the friction
        columns ``fv1, fc1, ...``, ``robot.friction``; zeros for other extra columns).
    prior : array_like, shape (bp.n_params,), optional
        The set the result is closest to; need not be consistent.
    consistency : {"full", "semi"}, default "full"
        ``J(pi_j) >= 0`` (a mass distribution exists), or only ``m >= 0`` and a positive
        semi-definite inertia about the centre of mass (see :func:`physical_ls`).
    margin, min_mass, bounds, solver, solver_options
        As in :func:`physical_ls`.

    Returns
    -------
    Estimate
        ``method="standard_from_base"``, ``params`` (p,) the standard set (``cov``,
        ``rel_std`` NaN; ``residual_std`` 0; ``rank`` ``bp.rank``; ``cond`` NaN). ``info``:
        ``beta`` (``bp.beta(params)``), ``beta_error`` (largest deviation from ``beta``
        relative to the size of each base parameter in scale units: the solver's equality
        tolerance), ``distance`` (RMS scaled deviation from the prior), ``status``,
        ``iterations``, ``solve_time``, ``setup_time``, ``time``, ``min_eig_J``,
        ``consistent``, ``report``, ``prior``, ``scale``, ``lower``, ``upper``, ``base``.

    Raises
    ------
    ValueError
        If no such set exists (``beta`` is not physically feasible: the message gives the
        solver's status; :func:`is_feasible_base` answers the question without raising), or
        on bad input: wrong shapes, NaN/inf, a ``bp`` of another robot, unknown
        ``consistency``, names in ``bounds``, negative ``margin``/``min_mass``, contradicting
        bounds, an unknown solver.
    TypeError
        Complex input, a robot that is not a ``SerialRobot``, a ``bp`` that is not a
        ``BaseParameters``, non-mapping ``bounds`` or ``solver_options``.
    RuntimeError
        The solver stopped without an answer (iteration limit, numerical trouble).
    ImportError
        cvxpy (``cvxpy-base``) or Clarabel is not installed.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.base import base_parameters
    >>> from robidlib.models import planar_2r
    >>> robot = planar_2r()
    >>> bp = base_parameters(robot, rng=0)
    >>> beta = bp.beta(robot.params) * 1.05                 # a heavier arm
    >>> est = standard_from_base(beta, bp, robot)
    >>> est.info["consistent"], bool(np.allclose(est.info["beta"], beta, rtol=1e-6))
    (True, True)
    >>> est.info["distance"] > 0                          # it had to leave the prior
    True
    """
    x, info = _realise(beta, bp, robot, prior, consistency, margin, min_mass, bounds, solver, solver_options)
    if x is None:
        raise ValueError(
            f"beta is not physically feasible: no standard parameter set with these base parameters has "
            f"every link consistent ({consistency!r}, margin {info['margin']:g}) within the bounds; solver "
            f"{info['solver']} status {info['status']!r} after {info['iterations']} iterations"
        )
    p = x.size
    nan = np.full((p, p), np.nan)
    return Estimate(
        params=x, cov=nan, rel_std=np.full(p, np.nan), residual_std=0.0, rank=int(bp.rank), cond=float("nan"),
        names=tuple(bp.names), method="standard_from_base", info=info,
    )


def is_feasible_base(
    beta: np.ndarray | Sequence[float],
    bp: Any,
    robot: Any,
    *,
    consistency: str = "full",
    margin: float = 0.0,
    min_mass: float | Sequence[float] = 0.0,
    bounds: Mapping[str, Sequence[float]] | None = None,
    solver: str | None = None,
    solver_options: Mapping[str, Any] | None = None,
) -> bool:
    """Whether base parameters are physically feasible: some consistent robot has them.

    ``True`` when :func:`standard_from_base` finds a standard set ``x`` with
    ``bp.beta(x) = beta`` in which every link satisfies the chosen LMI (the feasibility of
    base parameters of :cite:`sousa2014`); ``False`` when the solver proves that none exists.
    Feasible base parameters have a positive semi-definite mass matrix at every
    configuration (every link's kinetic energy is ``>= 0``); infeasible ones may still have
    one along a given motion, but no robot has them.

    Parameters
    ----------
    beta, bp, robot, consistency, margin, min_mass, bounds, solver, solver_options
        As in :func:`standard_from_base`.

    Returns
    -------
    bool

    Raises
    ------
    ValueError, TypeError, RuntimeError, ImportError
        As :func:`standard_from_base`, except that infeasibility is the answer ``False``.

    Examples
    --------
    >>> from robidlib.base import base_parameters
    >>> from robidlib.models import planar_2r
    >>> robot = planar_2r()
    >>> bp = base_parameters(robot, rng=0)
    >>> beta = bp.beta(robot.params)
    >>> is_feasible_base(beta, bp, robot), is_feasible_base(-beta, bp, robot)
    (True, False)
    """
    x, _ = _realise(beta, bp, robot, None, consistency, margin, min_mass, bounds, solver, solver_options)
    return x is not None
