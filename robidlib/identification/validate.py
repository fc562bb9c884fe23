"""Validation of an identified model on data it was not fitted to.

Two measures, for two purposes:

* :func:`heldout_error` is **the** held-out metric
  (:mod:`~robidlib.identification.metric`): the model's prediction at the log's own rate
  against the *measured* joint torques through one fixed filter, on every sample. It does
  not depend on the identification settings, so it can rank them.
* :func:`validate` is a diagnostic in the pipeline's own domain: it predicts the *decimated*
  torques (low-passed by the settings being judged) and reports
  ``||tau_j - tau_hat_j|| / ||tau_j||`` per joint and overall, on every sample by default or
  over the equations the fit kept (``use_keep=True``: the "kept-only" variant, which leaves
  out the samples near zero velocity where the friction model fails and flatters the
  model), and the spectrum of the residual (Welch's method), where the model's failures
  show: peaks at the frequencies of unmodelled dynamics, broad-band error at velocity
  reversals (friction).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.signal

from .._validate import (as_array, check_choice, check_fields, check_flag, check_int, check_names,
                         check_positive)
from ..base import BaseParameters
from .estimate import _ESTIMATES, IdentificationResult, identify
from .metric import TorqueError, _errors, torque_error
from .preprocess import METRIC_EDGE, FullRate, IdentificationData

__all__ = ["Validation", "validate", "relative_errors", "residual_spectrum", "heldout_error", "predict_full_rate",
           "metric_samples", "BlockedCrossValidation", "blocked_cross_validation"]


def relative_errors(observed: np.ndarray, predicted: np.ndarray, mask: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """Relative torque errors per joint and overall over the masked entries.

    Parameters
    ----------
    observed, predicted : array_like, shape (M, n)
    mask : array_like of bool, shape (M, n), optional
        Entries to use (default all).

    Returns
    -------
    per_joint : numpy.ndarray, shape (n,)
        ``||o_j - p_j|| / ||o_j||``.
    overall : float
        ``||o - p|| / ||o||`` over every used entry.

    Raises
    ------
    ValueError
        Shapes that differ, NaN/inf, a joint with no entry or zero torque.
    TypeError
        Non-numeric ``observed``/``predicted``, a ``mask`` that is not boolean.

    Examples
    --------
    >>> import numpy as np
    >>> o = np.array([[1.0, 2.0], [-1.0, 2.0]])
    >>> per, tot = relative_errors(o, 0.9 * o)
    >>> np.round(per, 3).tolist(), round(tot, 3)
    ([0.1, 0.1], 0.1)
    """
    o = as_array("observed", observed, ndim=2)
    p = as_array("predicted", predicted, ndim=2)
    if p.shape != o.shape:
        raise ValueError(f"predicted must have the shape of observed {o.shape}, got {p.shape}")
    m = np.ones(o.shape, dtype=bool) if mask is None else _mask("mask", mask, o.shape)
    e2 = np.where(m, (o - p) ** 2, 0.0).sum(axis=0)
    o2 = np.where(m, o**2, 0.0).sum(axis=0)
    if np.any(o2 == 0):
        bad = (np.flatnonzero(o2 == 0) + 1).tolist()
        raise ValueError(f"joint(s) {bad} have no torque in the used entries: the relative error is undefined")
    return np.sqrt(e2 / o2), float(np.sqrt(e2.sum() / o2.sum()))


def residual_spectrum(residual: np.ndarray, fs: float, nperseg: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """One-sided power spectral density of each column of a residual (Welch).

    Parameters
    ----------
    residual : array_like, shape (M, n)
    fs : float
        Sampling frequency, Hz.
    nperseg : int, optional
        Segment length (default ``min(M, 128)``).

    Returns
    -------
    f : numpy.ndarray, shape (K,)
    psd : numpy.ndarray, shape (K, n)
        (N m)^2 / Hz.

    Raises
    ------
    ValueError
        NaN/inf, fewer than 8 samples, a non-positive ``fs``, ``nperseg`` outside
        ``[2, M]``.
    TypeError
        Non-numeric ``residual`` or ``fs``, a non-integer ``nperseg``.

    Examples
    --------
    >>> import numpy as np
    >>> t = np.arange(1000) / 50.0
    >>> f, P = residual_spectrum(np.sin(2 * np.pi * 5 * t)[:, None], 50.0)
    >>> float(f[np.argmax(P[:, 0])])
    5.078125
    """
    r = as_array("residual", residual, ndim=2)
    if r.shape[0] < 8:
        raise ValueError(f"residual needs at least 8 samples, got {r.shape[0]}")
    fs = check_positive("fs", fs)
    seg = min(r.shape[0], 128) if nperseg is None else check_int("nperseg", nperseg, 2, r.shape[0])
    return scipy.signal.welch(r, fs=fs, nperseg=seg, axis=0)


def _mask(name: str, mask: Any, shape: tuple[int, ...]) -> np.ndarray:
    """A boolean mask of ``shape`` (numbers are not masks: 0.5 would be True)."""
    m = np.asarray(mask)
    if m.dtype != bool:
        raise TypeError(f"{name} must be an array of bools, got dtype {m.dtype}")
    if m.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {m.shape}")
    return m


@dataclass(frozen=True, eq=False)
class Validation:
    """Result of :func:`validate`.

    Attributes
    ----------
    methods : tuple of str
    per_joint : dict
        ``{method: (n,) relative errors}``.
    overall : dict
        ``{method: float}``.
    rms : dict
        ``{method: (n,) root-mean-square torque errors}`` over the same equations, N m: the
        absolute counterpart (a part where a joint barely moves has a large relative error
        for the same absolute error).
    predicted : dict
        ``{method: (M, n) predicted torques}`` on every sample.
    observed : numpy.ndarray, shape (M, n)
    keep : numpy.ndarray of bool, shape (M, n)
    t : numpy.ndarray, shape (M,)
    kept_only : bool
        True when the errors are over the kept equations only (``use_keep=True``).

    Raises
    ------
    TypeError, ValueError
        Fields of the wrong type or shape (one entry per method in each dict), ``keep`` not
        a bool array of the shape of ``observed``.
    """

    methods: tuple
    per_joint: dict
    overall: dict
    rms: dict
    predicted: dict
    observed: np.ndarray
    keep: np.ndarray
    t: np.ndarray
    kept_only: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "methods", check_names("methods", self.methods))
        check_flag("kept_only", self.kept_only)
        for name in ("per_joint", "overall", "rms", "predicted"):
            d = getattr(self, name)
            if not isinstance(d, dict) or set(d) != set(self.methods):
                got = sorted(d) if isinstance(d, dict) else type(d).__name__
                raise TypeError(f"{name} must be a dict with one entry per method {list(self.methods)}, got {got}")
        dims = check_fields(self, observed=("M", "n"), t=("M",))
        if np.shape(self.keep) != (dims["M"], dims["n"]):
            raise ValueError(f"keep must have the shape of observed {(dims['M'], dims['n'])}, got {np.shape(self.keep)}")
        _mask("keep", self.keep, (dims["M"], dims["n"]))

    def residual(self, method: str = "wls") -> np.ndarray:
        """``observed - predicted[method]``, shape (M, n).

        Raises
        ------
        ValueError
            ``method`` is not one of :attr:`methods`.
        """
        check_choice("method", method, self.methods)
        return self.observed - self.predicted[method]

    def spectrum(self, method: str = "wls", fs: float | None = None, nperseg: int | None = None):
        """Welch spectrum of the residual of ``method`` (default rate: from ``t``).

        Returns ``(f, psd)`` as :func:`residual_spectrum`.

        Raises
        ------
        ValueError
            ``method`` is not one of :attr:`methods`, a bad ``fs`` or ``nperseg``.
        """
        check_choice("method", method, self.methods)
        if fs is None:
            fs = 1.0 / float(np.median(np.diff(self.t)))
        return residual_spectrum(self.residual(method), fs, nperseg)


def validate(
    result: IdentificationResult,
    data: IdentificationData,
    methods: tuple[str, ...] = ("ols", "wls", "essential"),
    use_keep: bool = False,
) -> Validation:
    """Relative errors of the estimates on (held-out) decimated data: a diagnostic.

    The reference here is the pipeline's own decimated torque, filtered by the settings
    being judged: for the held-out metric, independent of the settings, use
    :func:`heldout_error`.

    Parameters
    ----------
    result : IdentificationResult
    data : ~robidlib.identification.preprocess.IdentificationData
        Data of the same model (e.g. the second part of :func:`split`).
    methods : tuple of str
        Estimates to evaluate (see :meth:`IdentificationResult.estimate`).
    use_keep : bool, default False
        Errors over every sample (False), or only over the equations kept for fitting
        (True: the kept-only variant, which leaves out the samples near zero velocity;
        ``Validation.kept_only`` records the choice).

    Returns
    -------
    Validation

    Raises
    ------
    ValueError
        Unknown method, data of another model.
    TypeError
        Wrong argument types (``methods`` not a sequence of names, ``use_keep`` not a bool).
    """
    if not isinstance(result, IdentificationResult):
        raise TypeError(f"result must be an IdentificationResult, got {type(result).__name__}")
    if not isinstance(data, IdentificationData):
        raise TypeError(f"data must be IdentificationData, got {type(data).__name__}")
    methods = check_names("methods", methods)
    for m in methods:
        if m not in _ESTIMATES:
            raise ValueError(f"unknown estimate {m!r} in methods; expected some of {', '.join(map(repr, _ESTIMATES))}")
    use_keep = check_flag("use_keep", use_keep)
    mask = data.keep if use_keep else np.ones_like(data.keep)
    per, tot, rms, pred = {}, {}, {}, {}
    count = np.maximum(mask.sum(axis=0), 1)
    for m in methods:
        pred[m] = result.predict(data, m)
        per[m], tot[m] = relative_errors(data.tau, pred[m], mask)
        rms[m] = np.sqrt(np.where(mask, (data.tau - pred[m]) ** 2, 0.0).sum(axis=0) / count)
    return Validation(methods=tuple(methods), per_joint=per, overall=tot, rms=rms, predicted=pred, observed=data.tau,
                      keep=data.keep, t=data.t, kept_only=use_keep)


_CHUNK = 4096


def predict_full_rate(result: IdentificationResult, data: IdentificationData,
                      vectors: np.ndarray) -> np.ndarray:
    """Torques of base-parameter vectors at the full rate of ``data.full``, shape (K, n, m).

    The model's regressor is evaluated at the pipeline's full-rate motion chunk by chunk
    (never stored whole), reduced to the base columns and multiplied by the ``m`` vectors at
    once.

    Parameters
    ----------
    result : IdentificationResult
        Gives the model and the base parameters.
    data : ~robidlib.identification.preprocess.IdentificationData
        With full-rate data (made by :func:`~robidlib.identification.preprocess.prepare`).
    vectors : array_like, shape (r,) or (r, m)
        Base-parameter vectors (e.g. ``result.full_base_vector("wls")``).

    Returns
    -------
    numpy.ndarray, shape (K, n) for one vector, (K, n, m) for several

    Raises
    ------
    ValueError
        Data without full-rate signals, vectors of the wrong length or NaN/inf.
    TypeError
        Wrong argument types.
    """
    if not isinstance(result, IdentificationResult):
        raise TypeError(f"result must be an IdentificationResult, got {type(result).__name__}")
    if not isinstance(data, IdentificationData):
        raise TypeError(f"data must be IdentificationData, got {type(data).__name__}")
    if data.full is None:
        raise ValueError("data has no full-rate signals (data.full is None); use data made by prepare")
    r = result.base.rank
    B = as_array("vectors", vectors, ndim=(1, 2))
    single = B.ndim == 1
    B = B[:, None] if single else B
    if B.shape[0] != r:
        raise ValueError(f"vectors must have {r} rows (one per base parameter), got shape {B.shape}")
    f, model, idx = data.full, result.model, result.base.independent
    out = np.empty((f.n_samples, model.n, B.shape[1]))
    for a in range(0, f.n_samples, _CHUNK):
        c = slice(a, a + _CHUNK)
        out[c] = model.regressor(f.q[c], f.qd[c], f.qdd[c])[:, :, idx] @ B
    return out[:, :, 0] if single else out


def metric_samples(full: FullRate) -> tuple[np.ndarray, np.ndarray]:
    """The full-rate samples the held-out metric uses, and their gap-free runs.

    Every sample except those within :data:`~robidlib.identification.preprocess.METRIC_EDGE`
    of their record's ends (``full.edge``); a run ends wherever samples are left out.

    Parameters
    ----------
    full : FullRate

    Returns
    -------
    idx : numpy.ndarray of int
    runs : numpy.ndarray of int, shape (idx.size,)

    Raises
    ------
    TypeError
        ``full`` not FullRate.
    """
    if not isinstance(full, FullRate):
        raise TypeError(f"full must be FullRate (IdentificationData.full), got {type(full).__name__}")
    mask = np.ones(full.n_samples, dtype=bool) if full.edge is None else ~full.edge
    idx = np.flatnonzero(mask)
    cont = np.r_[False, (np.diff(idx) == 1) & (full.run[idx][1:] == full.run[idx][:-1])]
    return idx, np.cumsum(~cont) - 1


def heldout_error(
    result: IdentificationResult,
    data: IdentificationData,
    methods: tuple[str, ...] = ("ols", "wls", "essential"),
) -> dict[str, TorqueError]:
    """The held-out metric of each estimate (:func:`~robidlib.identification.metric.torque_error`).

    Each estimate's prediction at the full rate (:func:`predict_full_rate`) against the
    measured, unfiltered joint torques of ``data.full``, through the fixed reference filter,
    on every full-rate sample except the first and last
    :data:`~robidlib.identification.preprocess.METRIC_EDGE` seconds of each record
    (:func:`metric_samples`); the kept-only variant uses the keep mask of each sample's
    nearest decimated sample.

    Parameters
    ----------
    result : IdentificationResult
    data : ~robidlib.identification.preprocess.IdentificationData
        Held-out data with full-rate signals (e.g. the second part of
        :func:`~robidlib.identification.preprocess.split`).
    methods : tuple of str
        Estimates (see :meth:`IdentificationResult.estimate`).

    Returns
    -------
    dict
        ``{method: TorqueError}``.

    Raises
    ------
    ValueError
        Unknown method, data without full-rate signals or of another model.
    TypeError
        Wrong argument types.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.identification import DriveModel, Settings, identify, prepare, split
    >>> from robidlib.models import planar_2r
    >>> model = DriveModel(planar_2r(), offset=False)
    >>> t = np.arange(25000) * 2e-4
    >>> w = np.array([[1.1, 2.3, 3.7], [1.7, 2.9, 4.3]])
    >>> q = np.stack([np.sin(np.outer(t, w[j])).sum(1) for j in range(2)], 1) * 0.3
    >>> qd = np.gradient(q, 2e-4, axis=0)
    >>> tau = model.torques(q, qd, np.gradient(qd, 2e-4, axis=0), model.pack(rotor=[0.05, 0.02]))
    >>> train, test = split(prepare(t, q, tau, model, Settings(ts=2e-4)), 0.7)
    >>> e = heldout_error(identify(train), test, ("wls",))["wls"]
    >>> bool(e.overall < 1e-3), e.samples == int((~test.full.edge).sum())
    (True, True)
    """
    if not isinstance(result, IdentificationResult):
        raise TypeError(f"result must be an IdentificationResult, got {type(result).__name__}")
    if not isinstance(data, IdentificationData):
        raise TypeError(f"data must be IdentificationData, got {type(data).__name__}")
    if isinstance(methods, str) or not isinstance(methods, (tuple, list)) or not methods:
        raise TypeError(f"methods must be a non-empty tuple of estimate names, got {methods!r}")
    known = ("ols", "wls", "essential", "essential_ols", "physical")
    bad = [m for m in methods if m not in known]
    if bad:
        raise ValueError(f"methods must name estimates among {known}, got {bad[0]!r}")
    if data.Y.shape[2] != result.base.n_params:
        raise ValueError(f"data has {data.Y.shape[2]} columns but the model has {result.base.n_params}")
    vecs = np.column_stack([result.full_base_vector(m) for m in methods])
    pred = predict_full_rate(result, data, vecs)
    f = data.full
    idx, runs = metric_samples(f)
    if idx.size == 0:
        raise ValueError(f"data holds no full-rate sample farther than {METRIC_EDGE} s from its record's ends: "
                         "nothing to measure the held-out error on")
    keep = data.keep[f.nearest[idx]]
    return _errors(f.tau[idx], {m: pred[idx, :, i] for i, m in enumerate(methods)}, f.fs, runs, keep)


@dataclass(frozen=True, eq=False)
class BlockedCrossValidation:
    """Result of :func:`blocked_cross_validation`.

    Attributes
    ----------
    method : str
        The estimate evaluated (see :meth:`IdentificationResult.estimate`).
    blocks : numpy.ndarray, shape (k, 2)
        Start and end time (s) of each held-out block.
    per_fold : numpy.ndarray, shape (k,)
        Relative torque error of each held-out block, over its kept equations.
    per_fold_joint : numpy.ndarray, shape (k, n)
        The same per joint.
    rms_fold_joint : numpy.ndarray, shape (k, n)
        Root-mean-square torque errors (N m) of each block and joint.
    pooled : float
        Relative error over every held-out equation of every block at once.
    pooled_joint : numpy.ndarray, shape (n,)
    """

    method: str
    blocks: np.ndarray
    per_fold: np.ndarray
    per_fold_joint: np.ndarray
    rms_fold_joint: np.ndarray
    pooled: float
    pooled_joint: np.ndarray

    def __post_init__(self) -> None:
        check_choice("method", self.method, ("ols", "wls", "essential"))
        dims = check_fields(self, blocks=("k", 2), per_fold=("k",), per_fold_joint=("k", "n"),
                            rms_fold_joint=("k", "n"), pooled_joint=("n",))
        if dims["k"] == 0 or dims["n"] == 0:
            raise ValueError(f"blocks and pooled_joint must not be empty (one row per fold, one entry per joint), "
                             f"got {dims['k']} folds and {dims['n']} joints")
        object.__setattr__(self, "pooled", check_positive("pooled", self.pooled, allow_zero=True))

    @property
    def mean(self) -> float:
        """Mean of the blocks' relative errors."""
        return float(self.per_fold.mean())


def blocked_cross_validation(
    data: IdentificationData,
    folds: int = 5,
    *,
    guard: float = 0.1,
    method: str = "wls",
    base: BaseParameters | None = None,
    span: str = "moving",
) -> BlockedCrossValidation:
    """Blocked k-fold cross-validation in time: every block held out once, fitted on the rest.

    The span is cut into ``folds`` contiguous blocks of equal duration. For each block the
    model is identified (:func:`~robidlib.identification.estimate.identify`) on every sample
    outside it and ``guard`` seconds away from it (the decimation filter spreads each sample
    over its neighbours), and the held-out block is predicted (:func:`validate`). Unlike one
    cut, every part of the record is tested once, so a block in which a joint barely moves
    shows as one fold among several instead of being the whole validation.

    Parameters
    ----------
    data : ~robidlib.identification.preprocess.IdentificationData
    folds : int, default 5
        Number of blocks, >= 2.
    guard : float, default 0.1
        Seconds left out on each side of the held-out block, >= 0.
    method : str, default "wls"
        Estimate to evaluate: ``"ols"``, ``"wls"`` or ``"essential"``.
    base : BaseParameters, optional
        As for :func:`identify` (default ``data.model.base_parameters()``, computed once).
    span : {"moving", "record"}, default "moving"
        The blocks cover the samples from the first to the last one with a kept equation
        (``"moving"``: a record that starts and ends at rest is not cut into blocks of rest)
        or the whole record.

    Returns
    -------
    BlockedCrossValidation

    Raises
    ------
    TypeError
        ``data`` not IdentificationData, ``folds`` not an int, ``base`` not BaseParameters.
    ValueError
        ``folds`` < 2, a negative ``guard``, an unknown ``method`` or ``span``, a block with no
        kept equation of some joint, or a fitting part that does not excite the model (the
        message names the block).

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.identification import DriveModel, Settings, prepare
    >>> from robidlib.models import planar_2r
    >>> model = DriveModel(planar_2r(), offset=False)
    >>> t = np.arange(50000) * 2e-4
    >>> w = np.array([[1.1, 2.3, 3.7], [1.7, 2.9, 4.3]])
    >>> q = np.stack([np.sin(np.outer(t, w[j])).sum(1) for j in range(2)], 1) * 0.3
    >>> x = model.pack(friction=[[0.5, 0.2], [0.3, 0.1]], rotor=[0.05, 0.02])
    >>> tau = model.torques(q, np.gradient(q, 2e-4, axis=0),
    ...                     np.gradient(np.gradient(q, 2e-4, axis=0), 2e-4, axis=0), x)
    >>> tau = tau + 0.01 * np.random.default_rng(0).standard_normal(tau.shape)
    >>> cv = blocked_cross_validation(prepare(t, q, tau, model, Settings(ts=2e-4)), folds=4)
    >>> cv.per_fold.shape, bool(cv.pooled < 0.05)
    ((4,), True)
    """
    if not isinstance(data, IdentificationData):
        raise TypeError(f"data must be IdentificationData, got {type(data).__name__}")
    if isinstance(folds, (bool, np.bool_)) or not isinstance(folds, (int, np.integer)):
        raise TypeError(f"folds must be an int, got {type(folds).__name__}")
    if folds < 2 or folds > data.n_samples // 2:
        raise ValueError(f"folds must be in [2, {data.n_samples // 2}] (half the {data.n_samples} samples), got {folds}")
    guard = check_positive("guard", guard, allow_zero=True)
    method = check_choice("method", method, ("ols", "wls", "essential"))
    span = check_choice("span", span, ("moving", "record"))
    if base is not None and not isinstance(base, BaseParameters):
        raise TypeError(f"base must be BaseParameters or None, got {type(base).__name__}")
    base = data.model.base_parameters() if base is None else base
    t = data.t
    dt = float(np.median(np.diff(t))) if t.size > 1 else 0.0
    moving = np.any(data.keep, axis=1)
    if span == "moving":
        if not np.any(moving):
            raise ValueError("data has no kept equation: nothing to cross-validate")
        t0, t1 = t[moving][0], t[moving][-1] + dt
    else:
        t0, t1 = t[0], t[-1] + dt
    edges = np.linspace(t0, t1, int(folds) + 1)
    n = data.keep.shape[1]
    per, per_j, rms_j = np.zeros(folds), np.zeros((folds, n)), np.zeros((folds, n))
    e2, o2 = np.zeros(n), np.zeros(n)
    for f in range(int(folds)):
        lo, hi = edges[f], edges[f + 1]
        held = (t >= lo) & (t < hi)
        fit = (t < lo - guard) | (t >= hi + guard)
        if not np.any(held) or not np.any(fit):
            raise ValueError(f"block {f + 1} of {folds} ([{lo:.3g}, {hi:.3g}) s, guard {guard:g} s) leaves a part empty")
        test = data.select(held)
        missing = np.flatnonzero(~np.any(test.keep, axis=0))
        if missing.size:
            raise ValueError(f"block {f + 1} of {folds} ([{lo:.3g}, {hi:.3g}) s) has no kept equation of joint(s) "
                             f"{(missing + 1).tolist()}: use fewer folds")
        try:
            res = identify(data.select(fit), base=base)
        except ValueError as exc:
            raise ValueError(f"block {f + 1} of {folds}: fitting on the rest failed: {exc}") from None
        v = validate(res, test, (method,), use_keep=True)   # over its kept equations
        per[f], per_j[f], rms_j[f] = v.overall[method], v.per_joint[method], v.rms[method]
        r = np.where(test.keep, test.tau - v.predicted[method], 0.0)
        e2 += np.sum(r**2, axis=0)
        o2 += np.sum(np.where(test.keep, test.tau, 0.0) ** 2, axis=0)
    return BlockedCrossValidation(method=method, blocks=np.column_stack([edges[:-1], edges[1:]]), per_fold=per,
                                  per_fold_joint=per_j, rms_fold_joint=rms_j, pooled=float(np.sqrt(e2.sum() / o2.sum())),
                                  pooled_joint=np.sqrt(e2 / o2))
