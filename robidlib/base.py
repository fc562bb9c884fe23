"""Base (minimal, identifiable) inertial parameters.

Many columns of the stacked regressor ``W`` of a serial robot are zero or linear combinations
of others: the torques do not depend on every standard parameter separately. Only the
**base parameters** ``beta`` -- independent linear combinations of the standard parameters
``pi`` with ``W pi = W_b beta`` for every motion -- can be identified
{Gautier and Khalil 1990; Gautier 1991}.

Two numerical methods are offered, both working on the regressor stacked over random,
sufficiently rich states (:func:`random_states`):

``"svd"``
    ``W = U S V'``. The numerical rank ``r`` is the number of singular values above the
    tolerance; ``V = [V1 V2]`` splits into an orthonormal basis ``V1`` of the identifiable
    directions and ``V2`` of the null space. Then ``beta = V1' pi`` and ``W_b = W V1``. Exact
    and robust, but each ``beta_i`` mixes all parameters.

``"qr"``
    Regrouping. A QR decomposition with column pivoting gives the rank; the independent
    columns are then chosen in parameter order (link 1 first, the order of Khalil's
    recursive regrouping), so each dependent parameter is *regrouped* into the independent
    ones: ``W_dep = W_ind K``, ``beta = pi_ind + K pi_dep`` and ``W_b = W[:, ind]``.
    Each ``beta_i`` is one standard parameter plus a few others, e.g.
    ``Izz1 + Iyy2 + 0.09*m2``.

Tolerance: by default a singular value (or ``|R_jj|``) counts as zero below
``max(rows, p) * eps * s_max``, the round-off level of an SVD of a matrix that size (the
default of ``numpy.linalg.matrix_rank``). The exact dependencies of a regressor sit at that
level; genuine but weak directions of rich random samples are many orders of magnitude above
it. A tolerance much larger (or too few samples) merges weak directions into the null space
and under-counts the rank -- chapter 2 shows both.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
import scipy.linalg

if TYPE_CHECKING:   # sympy is imported where relations are written (0.3 s every kernel otherwise)
    import sympy as sp

from ._validate import (as_array, check_choice, check_fields, check_flag, check_int, check_names, check_positive,
                        check_rng, check_same_robot, check_text)

__all__ = ["BaseParameters", "base_parameters", "random_states", "format_relation", "check_base_of"]


#: Largest number of random states: 10^7 states of a 6-joint arm already take 1.4 GB.
_MAX_SAMPLES = 10**7


def random_states(
    robot: Any,
    n_samples: int,
    rng: np.random.Generator | int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random, sufficiently rich joint states within the robot's limits.

    Positions are uniform in ``robot.q_limits``, velocities and accelerations uniform in
    ``[-qd_limits, qd_limits]`` and ``[-qdd_limits, qdd_limits]``, independently per sample
    and joint: with probability one such states excite every direction the regressor can
    excite, which is all that the base-parameter computation needs. An infinite speed or
    acceleration limit (allowed by :class:`~robidlib.robot.SerialRobot`) is replaced by the
    finite default of its joint type in :data:`robidlib.robot.DEFAULT_LIMITS` (2 rad/s and
    10 rad/s^2 revolute, 0.5 m/s and 5 m/s^2 prismatic): the base parameters do not depend on
    the scale of the states, only on their richness.

    Parameters
    ----------
    robot : SerialRobot
        Supplies ``n``, ``q_limits`` (n, 2), ``qd_limits`` (n,), ``qdd_limits`` (n,).
    n_samples : int
        Number of states N (1 to 10^7).
    rng : numpy.random.Generator or int, optional
        Random generator or seed; default ``numpy.random.default_rng(0)``.

    Returns
    -------
    q, qd, qdd : numpy.ndarray, shape (N, n)

    Raises
    ------
    ValueError
        If ``n_samples`` is not a positive integer.
    TypeError
        If ``robot`` lacks the limits attributes.

    Examples
    --------
    >>> from robidlib.models import planar_2r
    >>> q, qd, qdd = random_states(planar_2r(), 5, rng=1)
    >>> q.shape
    (5, 2)
    """
    if not all(hasattr(robot, a) for a in ("n", "q_limits", "qd_limits", "qdd_limits")):
        raise TypeError(f"robot must be a SerialRobot (with n and joint limits), got {type(robot).__name__}")
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or not 1 <= n_samples <= _MAX_SAMPLES:
        raise ValueError(f"n_samples must be an integer from 1 to {_MAX_SAMPLES:.0e}, got {n_samples!r}")
    gen = _rng(rng)
    n = robot.n
    lo, hi = np.asarray(robot.q_limits, dtype=float).T
    q = gen.uniform(lo, hi, size=(n_samples, n))
    qd = gen.uniform(-1.0, 1.0, size=(n_samples, n)) * _finite_limits(robot, "qd")
    qdd = gen.uniform(-1.0, 1.0, size=(n_samples, n)) * _finite_limits(robot, "qdd")
    return q, qd, qdd


def _finite_limits(robot: Any, key: str) -> np.ndarray:
    """``robot.<key>_limits`` with an infinite entry replaced by its joint type's default."""
    from .robot import DEFAULT_LIMITS

    lim = np.array(getattr(robot, f"{key}_limits"), dtype=float)
    types = getattr(robot, "joint_types", ("revolute",) * lim.size)
    inf = ~np.isfinite(lim)
    lim[inf] = [DEFAULT_LIMITS[types[j]][key] for j in np.flatnonzero(inf)]
    return lim


def _rng(rng: Any) -> np.random.Generator:
    """``check_rng`` with a documented default: seed 0 when ``rng`` is None."""
    return check_rng(0 if rng is None else rng)


def _coefficient(c: float, digits: int) -> tuple[str, str]:
    """Sign and magnitude text of a coefficient, always in decimal notation.

    One format for every coefficient (``0.0144``, never ``9/625`` beside ``0.2169``): at most
    ``digits`` significant digits, so a coefficient whose decimal expansion ends within them
    (``0.09``, ``0.0144``) is printed exactly.
    """
    c = float(c)
    sign = "-" if c < 0 else "+"
    return sign, f"{abs(c):.{digits}g}"


def format_relation(name: str, coeffs: np.ndarray, dep_names: Sequence[str], digits: int = 6) -> str:
    """Human-readable ``name + c1*dep1 - c2*dep2 ...`` with rounded (or exact) coefficients.

    Parameters
    ----------
    name : str
        The independent parameter.
    coeffs : array_like, shape (k,)
        Coefficients of the dependent parameters; those below ``1e-10`` (relative to 1) are
        omitted.
    dep_names : sequence of str, length k
        Names of the dependent parameters.
    digits : int, default 6
        Significant digits of the coefficients (all printed in decimal notation; a
        coefficient of one is left out).

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If ``coeffs`` and ``dep_names`` differ in length, ``coeffs`` is not finite or
        ``digits`` is not in ``1..17``.
    TypeError
        If ``name`` is not a string or ``dep_names`` not a sequence of strings.

    Examples
    --------
    >>> format_relation("Izz1", [0.0, 1.0, 0.09], ["m1", "Iyy2", "m2"])
    'Izz1 + Iyy2 + 0.09*m2'
    """
    check_text("name", name)
    c = as_array("coeffs", coeffs, ndim=1)
    dep_names = check_names("dep_names", dep_names, unique=False)
    digits = check_int("digits", digits, 1, 17)
    if c.size != len(dep_names):
        raise ValueError(f"coeffs has {c.size} entries but dep_names has {len(dep_names)}; they must match")
    text = name
    for ck, dk in zip(c, dep_names):
        if abs(ck) <= 1e-10:
            continue
        sign, mag = _coefficient(float(ck), digits)
        text += f" {sign} {dk}" if mag == "1" else f" {sign} {mag}*{dk}"
    return text


@dataclass(frozen=True)
class BaseParameters:
    """Base parameters of a regressor: the result of :func:`base_parameters`.

    Attributes
    ----------
    method : {"qr", "svd"}
        Which representation :meth:`beta` and :meth:`reduce` use.
    rank : int
        Number of base parameters ``r``.
    names : tuple of str
        Names of the ``p`` standard parameters (columns of ``W``).
    independent : numpy.ndarray of int, shape (r,)
        Indices of the independent columns (ascending).
    dependent : numpy.ndarray of int, shape (p - r,)
        Indices of the regrouped (dependent) columns (ascending).
    K : numpy.ndarray, shape (r, p - r)
        Regrouping matrix: ``W[:, dependent] = W[:, independent] @ K``.
    V1, V2 : numpy.ndarray, shapes (p, r) and (p, p - r)
        Orthonormal bases of the identifiable subspace and of the null space of ``W``.
    singular_values : numpy.ndarray, shape (min(rows, p),)
        Singular values of the stacked regressor, descending.
    tol : float
        Absolute tolerance used for the rank.
    robot_id : str or None
        :attr:`robidlib.robot.SerialRobot.structure_id` of the robot they were computed for
        (None for a matrix ``W``): a function given a robot and its base parameters refuses
        base parameters of another robot, even one with the same joint count.

    Raises
    ------
    ValueError, TypeError
        If the fields do not describe base parameters: an unknown method, a rank outside
        ``1..p``, index arrays that do not split the columns, matrices of the wrong shapes or
        with NaN/inf, unsorted or negative singular values, a tolerance that is not > 0, a
        ``robot_id`` that is not a string or None.
    """

    method: str
    rank: int
    names: tuple[str, ...]
    independent: np.ndarray
    dependent: np.ndarray
    K: np.ndarray
    V1: np.ndarray
    V2: np.ndarray
    singular_values: np.ndarray
    tol: float
    _rows: int = field(default=0, repr=False)
    robot_id: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        check_choice("method", self.method, ("qr", "svd"))
        names = check_names("names", self.names)
        p = len(names)
        rank = check_int("rank", self.rank, 1, p)
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "rank", rank)
        for label, idx, size in (("independent", self.independent, rank), ("dependent", self.dependent, p - rank)):
            a = np.asarray(idx)
            if a.shape != (size,) or (size and a.dtype.kind not in "iu"):
                raise ValueError(f"{label} must hold {size} column indices (integers; rank {rank} of p = {p} "
                                 f"names), got {a.dtype} {a.shape}")
            object.__setattr__(self, label, a.astype(int))
        cols = np.concatenate([self.independent, self.dependent])
        if not np.array_equal(np.sort(cols), np.arange(p)):
            raise ValueError(
                f"independent and dependent must split the column indices 0..{p - 1}, got "
                f"{self.independent.tolist()} and {self.dependent.tolist()}"
            )
        check_fields(self, K=(rank, p - rank), V1=(p, rank), V2=(p, p - rank), singular_values=(None,))
        if np.any(self.singular_values < 0) or np.any(np.diff(self.singular_values) > 0):
            raise ValueError("singular_values must be >= 0 and in descending order")
        if self.singular_values.size < rank:
            raise ValueError(f"singular_values must hold at least rank = {rank} values, got {self.singular_values.size}")
        object.__setattr__(self, "tol", check_positive("tol", self.tol))
        if self.robot_id is not None:
            check_text("robot_id", self.robot_id, allow_empty=False)

    @property
    def n_params(self) -> int:
        """Number of standard parameters ``p`` (columns of ``W``)."""
        return len(self.names)

    @property
    def base_names(self) -> tuple[str, ...]:
        """Names of the base parameters: the independent parameter each ``beta_i`` starts
        with, with an ``R`` suffix when others are regrouped into it (Khalil's notation);
        ``b1, b2, ...`` for the SVD method."""
        if self.method == "svd":
            return tuple(f"b{i + 1}" for i in range(self.rank))
        out = []
        for i, j in enumerate(self.independent):
            regrouped = np.any(np.abs(self.K[i]) > 1e-10)
            out.append(self.names[j] + ("R" if regrouped else ""))
        return tuple(out)

    @property
    def relations(self) -> tuple[str, ...]:
        """``beta_i`` in terms of the standard parameters, e.g. ``"Izz1 + Iyy2 + 0.09*m2"``.

        For the QR method: ``pi_ind_i + sum_k K_ik pi_dep_k``. For the SVD method:
        ``sum_j V1_ji pi_j`` (every coefficient rounded).
        """
        if self.method == "svd":
            rels = []
            for i in range(self.rank):
                v = self.V1[:, i]
                terms = [(v[j], self.names[j]) for j in range(self.n_params) if abs(v[j]) > 1e-10]
                first_c, first_n = terms[0]
                head = f"{first_c:.4g}*{first_n}"
                rels.append(format_relation(head, np.array([c for c, _ in terms[1:]]), [n for _, n in terms[1:]], digits=4))
            return tuple(rels)
        dep_names = [self.names[j] for j in self.dependent]
        return tuple(
            format_relation(self.names[j], self.K[i], dep_names) for i, j in enumerate(self.independent)
        )

    def as_sympy(self) -> list[sp.Expr]:
        """The QR relations as sympy expressions of symbols named like the parameters."""
        import sympy as sp

        sym = {n: sp.Symbol(n) for n in self.names}
        out = []
        for i, j in enumerate(self.independent):
            expr = sym[self.names[j]]
            for k, d in enumerate(self.dependent):
                c = float(self.K[i, k])         # a Python float for sympy (see _coefficient)
                if abs(c) > 1e-10:
                    expr += sp.nsimplify(c, tolerance=1e-10 * max(1.0, abs(c)), rational=True) * sym[self.names[d]]
            out.append(expr)
        return out

    def beta(self, pi: np.ndarray) -> np.ndarray:
        """Map standard parameters to base parameters.

        Parameters
        ----------
        pi : array_like, shape (p,)

        Returns
        -------
        numpy.ndarray, shape (r,)
            ``pi_ind + K pi_dep`` (QR) or ``V1' pi`` (SVD).

        Raises
        ------
        ValueError
            If ``pi`` does not have ``p`` finite entries.
        """
        pi = as_array("pi", pi, shape=(self.n_params,))
        if self.method == "svd":
            return self.V1.T @ pi
        return pi[self.independent] + self.K @ pi[self.dependent]

    def reduce(self, W: np.ndarray) -> np.ndarray:
        """Base regressor ``W_b`` (full column rank) with ``W_b @ beta(pi) == W @ pi``.

        Parameters
        ----------
        W : array_like, shape (..., p)
            A regressor (stacked, batched ``(N, n, p)`` or one sample ``(n, p)``).

        Returns
        -------
        numpy.ndarray, shape (..., r)

        Raises
        ------
        ValueError
            If the last dimension of ``W`` is not ``p`` or ``W`` is not finite.
        """
        W = as_array("W", W, ndim=(1, 2, 3))
        if W.shape[-1] != self.n_params:
            raise ValueError(f"W must have {self.n_params} columns (last axis), got shape {W.shape}")
        if self.method == "svd":
            return W @ self.V1
        return W[..., self.independent]

    def null_space_direction(self, k: int = 0) -> np.ndarray:
        """A parameter change that changes no torque: ``W @ d == 0`` for every motion.

        For the QR method it is the ``k``-th regrouping direction (one dependent parameter
        +1, the independent ones ``-K[:, k]``); this is exact, not only to the tolerance.

        Raises
        ------
        ValueError
            If ``k`` is not in ``[0, p - r)``.
        """
        m = self.n_params - self.rank
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= k < m:
            raise ValueError(f"k must be an integer in [0, {m}) (one per dependent parameter), got {k!r}")
        d = np.zeros(self.n_params)
        d[self.dependent[k]] = 1.0
        d[self.independent] = -self.K[:, k]
        return d

    def __repr__(self) -> str:
        lines = [f"BaseParameters(method={self.method!r}, rank={self.rank} of {self.n_params})"]
        for name, rel in zip(self.base_names, self.relations):
            lines.append(f"  {name:<8} = {rel}")
        return "\n".join(lines)


def _stacked_robot_regressor(robot: Any, samples: int | None, rng: Any, friction: bool) -> tuple[np.ndarray, tuple[str, ...]]:
    from .regressor import friction_regressor, regressor, stack

    p = 10 * robot.n + (2 * robot.n if friction else 0)
    samples = max(50, 2 * p) if samples is None else check_int("samples", samples, 1, _MAX_SAMPLES)
    q, qd, qdd = random_states(robot, samples, rng)
    Y = regressor(robot, q, qd, qdd)
    names = tuple(robot.param_names)
    if friction:
        Y = np.concatenate([Y, friction_regressor(qd)], axis=-1)
        names = names + tuple(robot.friction_names)
    W, _ = stack(Y, np.zeros((samples, robot.n)))
    return W, names


def base_parameters(
    robot_or_W: Any,
    method: str = "qr",
    tol: float | None = None,
    samples: int | None = None,
    rng: np.random.Generator | int | None = None,
    names: Sequence[str] | None = None,
    friction: bool = False,
) -> BaseParameters:
    """Compute the base parameters of a robot or of a stacked regressor.

    Parameters
    ----------
    robot_or_W : SerialRobot or array_like of shape (rows, p)
        A robot (its regressor is stacked over ``samples`` random states from
        :func:`random_states`) or a stacked regressor ``W``.
    method : {"qr", "svd"}, default "qr"
        Regrouping by QR, or the SVD basis (see the module docstring). Both always compute
        the rank, ``K``, ``V1`` and ``V2``; ``method`` selects what :meth:`BaseParameters.beta`
        and :meth:`BaseParameters.reduce` return.
    tol : float, optional
        Absolute rank tolerance, at least the round-off level ``eps * s_max`` of ``W`` (a
        smaller one would count round-off as rank); default ``max(rows, p) * eps * s_max``.
    samples : int, optional
        Number of random states for a robot; default ``max(50, 2 p)``.
    rng : numpy.random.Generator or int, optional
        Generator or seed for the random states; default seed 0.
    names : sequence of str, optional
        Parameter names for a matrix ``W`` (default ``p1, ..., pp``); robots name their own.
    friction : bool, default False
        For a robot: append the viscous and Coulomb friction columns (``fv1, fc1, ...``).

    Returns
    -------
    BaseParameters

    Raises
    ------
    ValueError
        Unknown method, ``tol <= 0`` or below the round-off level ``eps * s_max``, an empty,
        1-D or non-finite ``W``, names of the wrong length, or a rank of zero.
    TypeError
        If ``robot_or_W`` is neither a robot nor numeric.

    Warns
    -----
    UserWarning
        When ``W`` has fewer rows than columns, or the SVD and QR ranks differ: the rank may
        be under-counted; the message gives the numbers.

    Examples
    --------
    >>> import numpy as np
    >>> W = np.column_stack([np.arange(6.0), np.ones(6), 2 * np.arange(6.0) + np.ones(6)])
    >>> bp = base_parameters(W, names=["a", "b", "c"])
    >>> bp.rank, bp.relations
    (2, ('a + 2*c', 'b + c'))
    """
    check_choice("method", method, ("qr", "svd"))
    if tol is not None:
        tol = check_positive("tol", tol)
    friction = check_flag("friction", friction)
    if hasattr(robot_or_W, "param_names") and hasattr(robot_or_W, "n"):
        if names is not None:
            raise ValueError("names must not be given with a robot: the robot names its parameters")
        W, names_t = _stacked_robot_regressor(robot_or_W, samples, rng, friction)
    else:
        if friction:
            raise ValueError("friction=True needs a robot; for a matrix W append the friction columns yourself")
        W = as_array("W", robot_or_W, ndim=2)
        if names is None:
            names_t = tuple(f"p{i + 1}" for i in range(W.shape[1]))
        else:
            names_t = check_names("names", names, W.shape[1])
    rows, p = W.shape
    if rows == 0 or p == 0:
        raise ValueError(f"W must not be empty, got shape {W.shape}")
    if rows < p:
        warnings.warn(
            f"W has {rows} rows for {p} parameters: its rank cannot exceed {rows}, so the base "
            "parameters may be under-counted; use more samples",
            UserWarning,
            stacklevel=2,
        )

    # Vt is complete (p x p) without the rows x rows U when rows >= p: skip computing U in full
    _, s, Vt = scipy.linalg.svd(W, full_matrices=rows < p, lapack_driver="gesvd")
    floor = float(np.finfo(float).eps * (s[0] if s.size else 0.0))
    if tol is None:
        tol = max(rows, p) * floor
    elif tol < floor:
        raise ValueError(
            f"tol must be >= eps * s_max = {floor:.3g} (the round-off level of W: smaller singular "
            f"values are noise, not rank), got {tol:.3g}; the default is max(rows, p) * eps * s_max"
        )
    r_svd = int(np.count_nonzero(s > tol))
    if r_svd == 0:
        raise ValueError(f"W has rank 0 at tolerance {tol:.3g}: no parameter affects the torques")

    # rank by QR with column pivoting, then the independent columns in parameter order
    _, R, piv = scipy.linalg.qr(W, mode="economic", pivoting=True)
    r_qr = int(np.count_nonzero(np.abs(np.diag(R)) > tol))
    if r_qr != r_svd:
        warnings.warn(
            f"the SVD gives rank {r_svd} but the pivoted QR gives {r_qr} at tolerance {tol:.3g}: "
            "the regressor has nearly dependent columns; use richer samples or set tol",
            UserWarning,
            stacklevel=2,
        )
    rank = r_svd if method == "svd" else r_qr
    independent = _ordered_independent(W, rank, tol)
    if independent is None:  # ordered choice failed numerically: fall back to the pivots
        independent = np.sort(piv[:rank])
    dependent = np.setdiff1d(np.arange(p), independent)
    K = _regrouping(W, independent, dependent)
    V1 = Vt[:rank].T.copy()
    V2 = Vt[rank:].T.copy()
    robot_id = robot_or_W.structure_id if hasattr(robot_or_W, "structure_id") else None
    return BaseParameters(
        method=method, rank=rank, names=names_t, independent=independent, dependent=dependent,
        K=K, V1=V1, V2=V2, singular_values=s, tol=tol, _rows=rows, robot_id=robot_id,
    )


def check_base_of(robot: Any, base: Any, name: str = "base", friction: bool | None = None) -> "BaseParameters":
    """Check that ``base`` are base parameters of ``robot`` (not of another robot); return ``base``.

    Parameters
    ----------
    robot : SerialRobot
    base : BaseParameters
    name : str, default "base"
        The caller's name of the argument, for the messages.
    friction : bool, optional
        Whether ``base`` must include the friction columns (True), must not (False), or may
        (None).

    Raises
    ------
    TypeError
        If ``base`` is not a :class:`BaseParameters`, ``robot`` not a robot, ``name`` not a
        string or ``friction`` neither a bool nor None.
    ValueError
        If its parameters are not the robot's (another joint count, friction columns where
        none are expected or the reverse), or it was computed for a robot of another
        structure (:attr:`BaseParameters.robot_id`).

    Examples
    --------
    >>> from robidlib.models import planar_2r, ur5
    >>> bp = base_parameters(planar_2r())
    >>> check_base_of(planar_2r().with_params(2 * planar_2r().params), bp) is bp   # same structure
    True
    """
    check_text("name", name)
    if not all(hasattr(robot, a) for a in ("param_names", "friction_names", "structure_id")):
        raise TypeError(f"robot must be a SerialRobot, got {type(robot).__name__}")
    if friction is not None:
        friction = check_flag("friction", friction)
    if not isinstance(base, BaseParameters):
        raise TypeError(f"{name} must be a BaseParameters (base_parameters(robot)), got {type(base).__name__}")
    rigid = tuple(robot.param_names)
    allowed = {False: [rigid], True: [rigid + tuple(robot.friction_names)],
               None: [rigid, rigid + tuple(robot.friction_names)]}[friction]
    if tuple(base.names) not in allowed:
        want = " or ".join(str(len(a)) for a in allowed)
        raise ValueError(
            f"{name} must be the base parameters of robot {robot.name!r} ({want} standard parameters "
            f"{rigid[:2]}...), got {base.n_params} parameters named {tuple(base.names)[:2]}..."
        )
    check_same_robot(name, base, robot)
    return base


def _ordered_independent(W: np.ndarray, rank: int, tol: float) -> np.ndarray | None:
    """Independent columns chosen greedily in column order.

    Column ``j`` is kept when its distance to the span of the columns kept so far exceeds
    ``tol`` (Gram-Schmidt with re-orthogonalisation). This is Gautier's QR selection in the
    preferred parameter order; an unpivoted QR's diagonal would not do, because after a
    dependent column the later diagonal entries no longer measure distances.
    Returns None when the greedy count disagrees with ``rank``.
    """
    rows = W.shape[0]
    Q = np.zeros((rows, 0))
    keep = []
    for j in range(W.shape[1]):
        r = W[:, j].copy()
        for _ in range(2):  # twice is enough (Kahan-Parlett)
            r -= Q @ (Q.T @ r)
        nr = float(np.linalg.norm(r))
        if nr > tol:
            keep.append(j)
            Q = np.column_stack([Q, r / nr])
            if len(keep) > rank:
                return None
    if len(keep) != rank:
        return None
    return np.array(keep, dtype=int)


def _regrouping(W: np.ndarray, independent: np.ndarray, dependent: np.ndarray) -> np.ndarray:
    if dependent.size == 0:
        return np.zeros((independent.size, 0))
    K, *_ = scipy.linalg.lstsq(W[:, independent], W[:, dependent])
    K[np.abs(K) < 1e-11 * max(1.0, float(np.max(np.abs(K))))] = 0.0
    return K
