"""Base-parameter estimates: OLS, WLS with per-joint weights, essential parameters.

:func:`identify` fits the base parameters of a :class:`~robidlib.identification.model.DriveModel`
to :class:`~robidlib.identification.preprocess.IdentificationData`:

* **OLS** on the stacked base regressor ``W_b`` (:func:`robidlib.estimation.ols`);
* **WLS** :cite:`gautier2001`: the equations of joint ``j`` are divided by the standard
  deviation of that joint's error, ``sigma_j^2 = ||y_j - W_j x_j||^2 / (r_j - c_j)``, where
  ``x_j`` is the least-squares solution of joint ``j``'s own ``r_j`` equations and ``c_j`` the
  rank of their regressor; the covariance is that of the weighted problem;
* **essential parameters** :cite:`pham1991`: starting from the base parameters, the
  parameter with the largest relative standard deviation is removed and the WLS problem
  solved again (same weights), until the largest relative standard deviation is below
  ``ratio_essential`` times the smallest -- the parameters that matter, with a better
  conditioned regressor and a residual that barely grows;
* **physically consistent** estimate: a hook. :func:`identify` calls ``physical(problem)``
  with a :class:`PhysicalProblem` (the weighted regressor of *all* the model's parameters,
  not the base ones, so that per-link constraints can be written) and stores what it returns;
  :func:`physical_estimator` makes such a hook from ``robidlib.estimation.physical_ls``
  (every link a possible rigid body, friction and rotor inertias non-negative), whose result
  :meth:`IdentificationResult.predict` and :func:`~robidlib.identification.validate.validate`
  accept as the estimate ``"physical"``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .._validate import (as_array, check_choice, check_fields, check_int, check_names, check_nonnegative,
                         check_positive)
from ..base import BaseParameters
from ..estimation import Estimate, ols
from .model import DriveModel
from .preprocess import IdentificationData

__all__ = [
    "IdentificationResult",
    "PhysicalProblem",
    "identify",
    "joint_sigmas",
    "essential_parameters",
    "physical_estimator",
]

_ESTIMATES = ("ols", "wls", "essential", "essential_ols", "physical")


@dataclass(frozen=True, eq=False)
class PhysicalProblem:
    """What a physically consistent estimator is given by :func:`identify`.

    Attributes
    ----------
    W : numpy.ndarray, shape (rows, p)
        Regressor of all the model's parameters (``model.names`` order), each row divided by
        its joint's ``sigma_j`` (the WLS weighting).
    y : numpy.ndarray, shape (rows,)
        Weighted torques.
    joint : numpy.ndarray of int, shape (rows,)
    sigma_joint : numpy.ndarray, shape (n,)
    model : DriveModel
        ``model.blocks["inertial"]`` are the ``10 n`` standard parameters of the links
        (10 per link, GUIDE order); the rest are friction, offsets and rotor inertias.
    base : BaseParameters
    wls : Estimate
        The WLS estimate of the base parameters (a starting point or a check).
    prior : numpy.ndarray, shape (p,)
        The CAD values (``model.pack()``: the URDF's inertial parameters, zero elsewhere).

    Raises
    ------
    TypeError, ValueError
        Fields of the wrong type or shape (the model's columns and joints), NaN/inf, joint
        indices outside the model.
    """

    W: np.ndarray
    y: np.ndarray
    joint: np.ndarray
    sigma_joint: np.ndarray
    model: DriveModel
    base: BaseParameters
    wls: Estimate
    prior: np.ndarray

    def __post_init__(self) -> None:
        if not isinstance(self.model, DriveModel):
            raise TypeError(f"model must be a DriveModel, got {type(self.model).__name__}")
        if not isinstance(self.base, BaseParameters):
            raise TypeError(f"base must be a BaseParameters, got {type(self.base).__name__}")
        if not isinstance(self.wls, Estimate):
            raise TypeError(f"wls must be an Estimate, got {type(self.wls).__name__}")
        p, n = self.model.p, self.model.n
        if self.base.n_params != p:
            raise ValueError(f"base must describe the model's {p} columns, got {self.base.n_params}")
        check_fields(self, W=("rows", p), y=("rows",), sigma_joint=(n,), prior=(p,))
        object.__setattr__(self, "joint", _joint_index("joint", self.joint, self.W.shape[0], n))


@dataclass(frozen=True, eq=False)
class IdentificationResult:
    """Result of :func:`identify`.

    Attributes
    ----------
    base : BaseParameters
        Regrouping of the model's columns (names ``ZZ1R, MX2R, FV1, ...``).
    ols, wls : Estimate
        Estimates of all the base parameters (``cond`` of the raw and of the weighted
        base regressor).
    essential, essential_ols : Estimate
        WLS (and OLS) estimates of the essential parameters.
    essential_index : numpy.ndarray of int
        Positions of the essential parameters among the base parameters.
    essential_history : tuple of dict
        One entry per removal: ``name``, ``rel_std`` (%) and the ``ratio`` max/min before it.
    sigma_joint : numpy.ndarray, shape (n,)
        Per-joint error standard deviations used by WLS (N m).
    rows_per_joint : numpy.ndarray of int, shape (n,)
    physical : object or None
        What the ``physical`` hook returned.
    timings : dict
        Seconds of the ``ols``, ``wls`` and ``essential`` stages.

    Raises
    ------
    TypeError, ValueError
        Fields of the wrong type or shape, ``essential_index`` outside the base parameters.
    """

    base: BaseParameters
    ols: Estimate
    wls: Estimate
    essential: Estimate
    essential_ols: Estimate
    essential_index: np.ndarray
    essential_history: tuple
    sigma_joint: np.ndarray
    rows_per_joint: np.ndarray
    model: DriveModel = field(repr=False)
    physical: Any = None
    timings: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.base, BaseParameters):
            raise TypeError(f"base must be a BaseParameters, got {type(self.base).__name__}")
        if not isinstance(self.model, DriveModel):
            raise TypeError(f"model must be a DriveModel, got {type(self.model).__name__}")
        for name in ("ols", "wls", "essential", "essential_ols"):
            if not isinstance(getattr(self, name), Estimate):
                raise TypeError(f"{name} must be an Estimate, got {type(getattr(self, name)).__name__}")
        r, n = self.base.rank, self.model.n
        check_fields(self, sigma_joint=(n,), rows_per_joint=(n,))
        idx = np.asarray(self.essential_index)
        if idx.ndim != 1 or idx.dtype.kind not in "iu" or idx.size == 0 or idx.min() < 0 or idx.max() >= r:
            raise ValueError(f"essential_index must hold indices of base parameters in [0, {r}), got {idx!r}")
        if not isinstance(self.essential_history, tuple):
            raise TypeError(f"essential_history must be a tuple, got {type(self.essential_history).__name__}")
        if not isinstance(self.timings, dict):
            raise TypeError(f"timings must be a dict, got {type(self.timings).__name__}")

    @property
    def names(self) -> tuple[str, ...]:
        """Names of the base parameters."""
        return self.base.base_names

    def estimate(self, which: str) -> Estimate:
        """The estimate ``'ols'``, ``'wls'``, ``'essential'``, ``'essential_ols'`` or ``'physical'``.

        ``'physical'`` is what the ``physical`` hook of :func:`identify` returned, when it is
        an :class:`~robidlib.estimation.Estimate` of the model's parameters with the base
        parameters in ``info["beta"]`` (as :func:`physical_estimator`'s hook returns).

        Raises
        ------
        ValueError
            Another name, or ``'physical'`` when no such estimate was computed.
        """
        if not isinstance(which, str) or which not in _ESTIMATES:
            raise ValueError(f"unknown estimate which={which!r}; expected one of {', '.join(map(repr, _ESTIMATES))}")
        if which == "physical":
            phys = self.physical
            if not isinstance(phys, Estimate) or "beta" not in phys.info:
                got = "no physical hook was given" if phys is None else f"the hook returned {type(phys).__name__}"
                raise ValueError(
                    f"estimate 'physical' is not available: {got}; pass physical=physical_estimator() "
                    "to identify (an Estimate with info['beta'] is needed)"
                )
            return phys
        return getattr(self, which)

    def full_base_vector(self, which: str = "wls") -> np.ndarray:
        """Estimate ``which`` as a vector of all base parameters (removed essentials are 0).

        For ``'physical'``: the base parameters of its standard parameters, ``info["beta"]``.
        """
        est = self.estimate(which)
        if which.startswith("essential"):
            x = np.zeros(self.base.rank)
            x[self.essential_index] = est.params
            return x
        if which == "physical":
            beta = np.asarray(est.info["beta"], dtype=float)
            if beta.shape != (self.base.rank,):
                raise ValueError(
                    f"the physical estimate's info['beta'] has shape {beta.shape}, expected ({self.base.rank},)"
                )
            return beta.copy()
        return est.params.copy()

    def predict(self, data: IdentificationData, which: str = "wls") -> np.ndarray:
        """Torques predicted by estimate ``which`` on every sample of ``data``, shape (M, n).

        Raises
        ------
        ValueError
            Unknown ``which``; data of another model.
        TypeError
            ``data`` not IdentificationData.
        """
        if not isinstance(data, IdentificationData):
            raise TypeError(f"data must be IdentificationData, got {type(data).__name__}")
        if data.Y.shape[2] != self.base.n_params:
            raise ValueError(f"data has {data.Y.shape[2]} columns but the model has {self.base.n_params}")
        return self.base.reduce(data.Y) @ self.full_base_vector(which)


def joint_sigmas(W: np.ndarray, y: np.ndarray, joint: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-joint error standard deviations from each joint's own least-squares fit.

    ``sigma_j^2 = ||y_j - W_j x_j||^2 / (r_j - c_j)`` with ``x_j`` the least-squares solution
    of the ``r_j`` rows of joint ``j`` and ``c_j`` the rank of ``W_j`` (its columns that are
    zero in those rows do not count) :cite:`gautier2001`.

    Parameters
    ----------
    W : numpy.ndarray, shape (rows, k)
    y : numpy.ndarray, shape (rows,)
    joint : numpy.ndarray of int, shape (rows,)
        Joint index of each row, in ``[0, n)``.
    n : int

    Returns
    -------
    sigma : numpy.ndarray, shape (n,)
    rows : numpy.ndarray of int, shape (n,)

    Raises
    ------
    ValueError
        Shapes that do not match, NaN/inf, joint indices outside ``[0, n)``, ``n`` outside
        ``[1, rows]``, a joint with no more rows than the rank of its regressor, or a zero
        residual.
    TypeError
        Non-numeric or complex ``W`` or ``y``, ``joint`` not integers, ``n`` not an int.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> W = rng.normal(size=(4000, 2)); joint = np.tile([0, 1], 2000)
    >>> y = W @ [1.0, 2.0] + np.where(joint == 0, 0.1, 1.0) * rng.normal(size=4000)
    >>> np.round(joint_sigmas(W, y, joint, 2)[0], 1)
    array([0.1, 1. ])
    """
    W = as_array("W", W, ndim=2)
    if W.shape[0] == 0 or W.shape[1] == 0:
        raise ValueError(f"W must have at least one row and one column, got shape {W.shape}")
    y = _rows_of("y", y, W)
    n = check_int("n", n, 1, W.shape[0])
    joint = _joint_index("joint", joint, W.shape[0], n)
    sigma, rows = np.zeros(n), np.zeros(n, dtype=int)
    for j in range(n):
        m = joint == j
        Wj, yj = W[m], y[m]
        rows[j] = Wj.shape[0]
        if rows[j] == 0:
            raise ValueError(f"joint {j + 1} has no equation left to estimate its error standard deviation")
        xj, _, rank, _ = np.linalg.lstsq(Wj, yj, rcond=None)
        dof = rows[j] - rank
        if dof <= 0:
            raise ValueError(f"joint {j + 1} has {rows[j]} equations for a regressor of rank {rank}: no residual left")
        res = yj - Wj @ xj
        sigma[j] = np.sqrt(res @ res / dof)
        if sigma[j] == 0:
            raise ValueError(f"joint {j + 1} is fitted exactly (zero residual): its weight is undefined")
    return sigma, rows


def _rows_of(name: str, y: Any, W: np.ndarray) -> np.ndarray:
    y = as_array(name, y, ndim=1)
    if y.shape != (W.shape[0],):
        raise ValueError(f"{name} must have shape ({W.shape[0]},) (one per row of W), got {y.shape}")
    return y


def _joint_index(name: str, joint: Any, rows: int, n: int) -> np.ndarray:
    """Joint index of each row: integers in ``[0, n)``, one per row (floats holding integers too)."""
    a = np.asarray(joint)
    if a.dtype.kind == "b" or a.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold integer joint indices, got dtype {a.dtype}")
    if a.shape != (rows,):
        raise ValueError(f"{name} must have shape ({rows},) (one joint index per row), got {a.shape}")
    if a.dtype.kind == "f" and (not np.all(np.isfinite(a)) or np.any(a != np.round(a))):
        raise ValueError(f"{name} must hold integer joint indices, got non-integer values")
    a = a.astype(int)
    if rows and (a.min() < 0 or a.max() >= n):
        raise ValueError(f"{name} must hold indices in [0, {n}), got the range [{a.min()}, {a.max()}]")
    return a


def _relabel(est: Estimate, method: str, **info: Any) -> Estimate:
    return replace(est, method=method, info={**est.info, **info})


def essential_parameters(
    W: np.ndarray, y: np.ndarray, names: tuple[str, ...], ratio: float
) -> tuple[np.ndarray, Estimate, tuple]:
    """Iteratively remove the parameter of largest relative standard deviation.

    Parameters
    ----------
    W : numpy.ndarray, shape (rows, k)
        A (weighted) full-rank regressor.
    y : numpy.ndarray, shape (rows,)
    names : tuple of str, length k
    ratio : float
        Stop when ``max(rel_std) < ratio * min(rel_std)``; finite and >= 1 (``ratio = 1``
        never stops early: the history is then the whole removal path, down to one parameter).

    Returns
    -------
    index : numpy.ndarray of int
        Columns kept.
    estimate : Estimate
        Least squares on the kept columns.
    history : tuple of dict
        ``{"name", "rel_std", "ratio"}`` of each removed parameter.

    Raises
    ------
    ValueError
        A rank-deficient ``W`` (see :func:`robidlib.estimation.ols`), shapes that do not
        match, NaN/inf, ``ratio`` not a finite number >= 1 (NaN dropped parameters until one
        was left, inf kept them all), ``names`` of the wrong length.
    TypeError
        Non-numeric ``W``, ``y`` or ``ratio``, ``names`` not strings.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> W = rng.normal(size=(500, 3))
    >>> y = W @ [1.0, 2.0, 1e-3] + 0.1 * rng.normal(size=500)     # the third hardly matters
    >>> idx, est, hist = essential_parameters(W, y, ("a", "b", "c"), ratio=30.0)
    >>> idx.tolist(), [h["name"] for h in hist]
    ([0, 1], ['c'])
    """
    W = as_array("W", W, ndim=2)
    if W.shape[0] == 0 or W.shape[1] == 0:
        raise ValueError(f"W must have at least one row and one column, got shape {W.shape}")
    y = _rows_of("y", y, W)
    if isinstance(names, str) or not hasattr(names, "__len__") or len(names) != W.shape[1]:
        got = type(names).__name__ if isinstance(names, str) or not hasattr(names, "__len__") else len(names)
        raise ValueError(f"names must hold {W.shape[1]} names (one per column of W), got {got}")
    names = check_names("names", names, W.shape[1])
    ratio = check_positive("ratio", ratio)
    if ratio < 1:
        raise ValueError(f"ratio must be >= 1 (a ratio of relative standard deviations; 1 removes down to one "
                         f"parameter), got {ratio}")
    keep = np.arange(W.shape[1])
    history = []
    while True:
        est = ols(W[:, keep], y, names=[names[i] for i in keep])
        rel = est.rel_std
        worst = int(np.argmax(rel))
        r = float(rel.max() / rel.min()) if rel.min() > 0 else np.inf
        if r < ratio or keep.size == 1:
            return keep, est, tuple(history)
        history.append({"name": names[keep[worst]], "rel_std": float(rel[worst]), "ratio": r})
        keep = np.delete(keep, worst)


def _ratio(name: str, value: Any) -> float:
    r = check_positive(name, value)
    if not r > 1:
        raise ValueError(f"{name} must be > 1 (a ratio of relative standard deviations), got {r}")
    return r


def identify(
    data: IdentificationData,
    *,
    base: BaseParameters | None = None,
    ratio_essential: float | None = None,
    physical: Callable[[PhysicalProblem], Any] | None = None,
) -> IdentificationResult:
    """OLS, WLS and essential estimates of the base parameters (and an optional physical one).

    Parameters
    ----------
    data : ~robidlib.identification.preprocess.IdentificationData
        From :func:`~robidlib.identification.preprocess.prepare` (or a part of it, see
        :func:`~robidlib.identification.preprocess.split`); its ``keep`` mask selects the
        equations.
    base : BaseParameters, optional
        Default ``data.model.base_parameters()`` (QR regrouping on random states).
    ratio_essential : float, optional
        Default ``data.settings.ratio_essential``.
    physical : callable, optional
        ``physical(problem: PhysicalProblem) -> object``; its result is stored in
        ``IdentificationResult.physical``.

    Returns
    -------
    IdentificationResult

    Raises
    ------
    ValueError
        A base regressor that the data do not excite (rank deficient), a joint without
        equations, fewer fitted equations per base parameter than
        ``settings.min_equations_per_parameter`` (the numbers in the message), a
        ``ratio_essential`` not above 1.
    TypeError
        ``data`` not IdentificationData, ``physical`` not callable, ``base`` not
        BaseParameters, ``ratio_essential`` not a real number.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.identification import DriveModel, Settings, prepare
    >>> from robidlib.models import planar_2r
    >>> model = DriveModel(planar_2r(), offset=False)
    >>> t = np.arange(25000) * 2e-4
    >>> w = np.array([[1.1, 2.3, 3.7], [1.7, 2.9, 4.3]])
    >>> q = np.stack([np.sin(np.outer(t, w[j])).sum(1) for j in range(2)], 1) * 0.3
    >>> x = model.pack(friction=[[0.5, 0.2], [0.3, 0.1]], rotor=[0.05, 0.02])
    >>> tau = model.torques(q, np.gradient(q, 2e-4, axis=0),
    ...                     np.gradient(np.gradient(q, 2e-4, axis=0), 2e-4, axis=0), x)
    >>> res = identify(prepare(t, q, tau, model, Settings(ts=2e-4)))
    >>> bool(np.allclose(res.ols.params, res.base.beta(x), rtol=1e-2, atol=1e-3))
    True
    """
    if not isinstance(data, IdentificationData):
        raise TypeError(f"data must be IdentificationData, got {type(data).__name__}")
    if physical is not None and not callable(physical):
        raise TypeError(f"physical must be a callable taking a PhysicalProblem, got {type(physical).__name__}")
    model = data.model
    if base is None:
        base = model.base_parameters()
    if not isinstance(base, BaseParameters):
        raise TypeError(f"base must be a BaseParameters (model.base_parameters()), got {type(base).__name__}")
    if base.n_params != model.p or tuple(base.names) not in (tuple(model.names), tuple(model.khalil_names)):
        raise ValueError(f"base must be the BaseParameters of the model's {model.p} columns {model.names[:2]}..., "
                         f"got {base.n_params} named {tuple(base.names)[:2]}...")
    ratio = data.settings.ratio_essential if ratio_essential is None else _ratio("ratio_essential", ratio_essential)
    names = base.base_names
    timings: dict[str, float] = {}

    tic = time.perf_counter()
    W, y, joint = data.stack(base.independent)
    need = data.settings.min_equations_per_parameter
    if W.shape[0] < need * base.rank:
        raise ValueError(
            f"data holds {W.shape[0]} fitted equations for {base.rank} base parameters "
            f"({W.shape[0] / base.rank:.1f} per parameter); at least {need:g} per parameter are needed "
            f"(settings.min_equations_per_parameter): fit on more data, decimate less (now "
            f"{data.settings.decimation}, {data.settings.decimated_rate:.4g} Hz) or lower the velocity thresholds"
        )
    est_ols = ols(W, y, names=names)
    timings["ols"] = time.perf_counter() - tic

    tic = time.perf_counter()
    sigma, rows = joint_sigmas(W, y, joint, model.n)
    scale = 1.0 / sigma[joint]
    Ww, yw = W * scale[:, None], y * scale
    est_wls = _relabel(ols(Ww, yw, names=names), "wls", sigma_joint=sigma, n_joints=model.n)
    timings["wls"] = time.perf_counter() - tic

    tic = time.perf_counter()
    idx, est_ess, history = essential_parameters(Ww, yw, names, ratio)
    est_ess = _relabel(est_ess, "wls-essential", sigma_joint=sigma)
    ess_ols = _relabel(ols(W[:, idx], y, names=[names[i] for i in idx]), "ols-essential")
    timings["essential"] = time.perf_counter() - tic

    phys = None
    if physical is not None:
        tic = time.perf_counter()
        Wf, yf, jf = data.stack()
        s = 1.0 / sigma[jf]
        problem = PhysicalProblem(W=Wf * s[:, None], y=yf * s, joint=jf, sigma_joint=sigma, model=model,
                                  base=base, wls=est_wls, prior=model.pack())
        phys = physical(problem)
        timings["physical"] = time.perf_counter() - tic
    return IdentificationResult(
        base=base, ols=est_ols, wls=est_wls, essential=est_ess, essential_ols=ess_ols, essential_index=idx,
        essential_history=history, sigma_joint=sigma, rows_per_joint=rows, model=model, physical=phys,
        timings=timings,
    )


class _ReorderedBase:
    """What ``physical_ls`` needs of a BaseParameters (``n_params``, ``beta``) for reordered columns."""

    def __init__(self, base: BaseParameters, order: np.ndarray) -> None:
        self._base, self._order = base, order

    @property
    def n_params(self) -> int:
        return self._base.n_params

    def beta(self, x: np.ndarray) -> np.ndarray:
        full = np.empty(self._base.n_params)
        full[self._order] = x
        return self._base.beta(full)


#: name stems of the drive parameters that :func:`physical_estimator` keeps non-negative
_DRIVE_STEMS = ("Ia", "Iam", "fvm", "fcm")


def physical_estimator(
    *,
    reg: float = 1e-6,
    consistency: str = "full",
    margin: float = 0.0,
    min_mass: float | Sequence[float] = 0.0,
    bounds: Mapping[str, Sequence[float]] | None = None,
    drives_nonnegative: bool = True,
    solver: str | None = None,
    solver_options: Mapping[str, Any] | None = None,
) -> Callable[[PhysicalProblem], Estimate]:
    """A physically consistent estimator for the ``physical`` hook of :func:`identify`.

    The hook solves :func:`robidlib.estimation.physical_ls` on the problem :func:`identify`
    hands it: the WLS-weighted regressor of *all* the model's parameters, every link's
    pseudo-inertia constrained positive semi-definite (``consistency="full"``: a real mass
    distribution exists) and the prior the CAD values of the URDF (``problem.prior``; the
    regulariser only chooses among the standard parameters the data cannot tell apart, see
    ``physical_ls``). ``physical_ls`` wants the viscous and Coulomb friction columns right
    after the inertial ones and any other column appended by name, so the hook reorders the
    drive model's columns (offsets, rotor inertias and coupled-motor terms become its extra
    columns) and orders the result back. Joint friction is non-negative (``physical_ls``'s
    default); with ``drives_nonnegative`` so are the rotor inertias ``Ia_j``, the motor
    inertias ``Iam_k`` and the motor friction ``fvm_k, fcm_k``; offsets are free.

    Parameters
    ----------
    reg, consistency, margin, min_mass, solver, solver_options
        Passed to :func:`robidlib.estimation.physical_ls`.
    bounds : mapping str -> (lower, upper), optional
        Extra bounds by robidlib name (``"m6"``, ``"Ia2"``, ``"off1"``...); they replace the
        defaults above for the parameters they name.
    drives_nonnegative : bool, default True

    Returns
    -------
    callable
        ``hook(problem: PhysicalProblem) -> Estimate``: ``params`` in the model's column
        order (``model.names``), ``names = model.names``, ``method = "physical_ls"``, ``cov``
        and ``rel_std`` NaN (a constrained estimate has no closed-form covariance);
        ``info`` is ``physical_ls``'s (status, ``consistent``, ``min_eig_J``, residuals, ...)
        with ``beta`` replaced by the base parameters in ``problem.base``'s order and
        ``base = problem.base``. :meth:`IdentificationResult.predict` and
        :func:`~robidlib.identification.validate.validate` use it as ``"physical"``.

    Raises
    ------
    ValueError
        Bad options (negative ``reg``, ``margin`` or ``min_mass``, unknown ``consistency`` or
        ``solver``, bounds that are not ``(lower, upper)`` pairs); at call time what
        ``physical_ls`` raises (unknown names in ``bounds``, an infeasible problem).
    TypeError
        Non-bool ``drives_nonnegative``, ``bounds`` or ``solver_options`` not a mapping,
        non-numeric ``min_mass``; a hook called with something other than a
        :class:`PhysicalProblem`.
    ImportError
        At call time, when cvxpy or Clarabel is missing (``physical_ls``'s message).

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.identification import DriveModel, Settings, prepare, identify, validate
    >>> from robidlib.models import planar_2r
    >>> model = DriveModel(planar_2r(), offset=False)
    >>> t = np.arange(25000) * 2e-4
    >>> w = np.array([[1.1, 2.3, 3.7], [1.7, 2.9, 4.3]])
    >>> q = np.stack([np.sin(np.outer(t, w[j])).sum(1) for j in range(2)], 1) * 0.3
    >>> qd = np.gradient(q, 2e-4, axis=0)
    >>> x = model.pack(friction=[[0.5, 0.2], [0.3, 0.1]], rotor=[0.05, 0.02])
    >>> tau = model.torques(q, qd, np.gradient(qd, 2e-4, axis=0), x)
    >>> noisy = tau + 0.01 * np.random.default_rng(0).normal(size=tau.shape)
    >>> res = identify(prepare(t, q, noisy, model, Settings(ts=2e-4)),
    ...                physical=physical_estimator())
    >>> res.physical.info["status"], res.physical.info["consistent"], res.physical.names[:2]
    ('optimal', True, ('m1', 'mx1'))
    >>> bool(np.allclose(res.full_base_vector("physical"), res.wls.params, atol=3 * res.wls.std.max()))
    True
    """
    reg = check_nonnegative("reg", reg)
    margin = check_nonnegative("margin", margin)
    check_choice("consistency", consistency, ("full", "semi"))
    if not isinstance(drives_nonnegative, (bool, np.bool_)):
        raise TypeError(f"drives_nonnegative must be True or False, got {drives_nonnegative!r}")
    if bounds is not None and not isinstance(bounds, Mapping):
        raise TypeError(f"bounds must be a mapping name -> (lower, upper), got {type(bounds).__name__}")
    user_bounds = dict(bounds or {})
    from ..estimation.physical import _check_options

    _check_options(min_mass=min_mass, bounds=user_bounds, solver=solver, solver_options=solver_options)

    def hook(problem: PhysicalProblem) -> Estimate:
        if not isinstance(problem, PhysicalProblem):
            raise TypeError(f"problem must be a PhysicalProblem, got {type(problem).__name__}")
        from ..estimation import physical_ls

        model = problem.model
        n, names = model.n, model.names
        index = {s: k for k, s in enumerate(names)}
        missing = [f"{s}{j + 1}" for j in range(n) for s in ("fv", "fc") if f"{s}{j + 1}" not in index]
        if missing:
            raise ValueError(
                f"physical_estimator needs a model with viscous and Coulomb friction on every joint "
                f"(physical_ls's friction columns); the model lacks {missing}"
            )
        friction = [index[f"{s}{j + 1}"] for j in range(n) for s in ("fv", "fc")]
        inertial = list(range(10 * n))
        taken = set(inertial) | set(friction)
        extra = [k for k in range(model.p) if k not in taken]
        order = np.array(inertial + friction + extra)
        extra_names = [names[k] for k in extra]
        bnd: dict[str, Any] = {}
        if drives_nonnegative:
            bnd.update({s: (0.0, np.inf) for s in extra_names if s.rstrip("0123456789") in _DRIVE_STEMS})
        bnd.update(user_bounds)
        est = physical_ls(
            problem.W[:, order], problem.y, model.robot, prior=problem.prior[order], reg=reg,
            consistency=consistency, extra_names=extra_names, bounds=bnd or None, min_mass=min_mass,
            margin=margin, bp=_ReorderedBase(problem.base, order), solver=solver, solver_options=solver_options,
        )
        x = np.empty(model.p)
        x[order] = est.params
        lower, upper = np.empty(model.p), np.empty(model.p)
        lower[order], upper[order] = est.info["lower"], est.info["upper"]
        info = {**est.info, "base": problem.base, "beta": problem.base.beta(x), "lower": lower, "upper": upper,
                "prior": problem.prior.copy(), "scale": _unorder(est.info["scale"], order)}
        return replace(est, params=x, names=tuple(names), info=info)

    return hook


def _unorder(v: np.ndarray, order: np.ndarray) -> np.ndarray:
    out = np.empty(len(order))
    out[order] = v
    return out
