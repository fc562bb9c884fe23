"""The held-out torque error, defined once.

A metric that judges identification settings must not move with them. The pipeline's own
torques (:class:`~robidlib.identification.preprocess.IdentificationData`'s ``tau``) are
low-passed and decimated by the settings being judged (cut-off, decimation), and its
equations near zero velocity are dropped by a threshold that is a setting too: an error
computed there can be made smaller by filtering harder. So the reference is the **measured
joint torque** at the log's own rate, on **every sample** (only the first and last 0.5 s of
each gap-free segment of a record are left out, a fixed margin where the pipeline's filters
start up and no motion estimate can be trusted), passed through one fixed filter :math:`F`
that no setting changes:

.. math::

    e_j = \\frac{\\lVert F[\\tau_j - \\hat\\tau_j] \\rVert}{\\lVert F[\\tau_j] \\rVert}, \\qquad
    e = \\sqrt{\\frac{\\sum_j \\lVert F[\\tau_j - \\hat\\tau_j] \\rVert^2}{\\sum_j \\lVert F[\\tau_j] \\rVert^2}},

with :math:`\\hat\\tau` the model's prediction from the pipeline's estimate of the motion and
:math:`F` a zero-phase Butterworth low-pass of order :data:`REFERENCE_ORDER` (forward and
backward: order 8 in effect, -6 dB at the cut-off) at :data:`REFERENCE_CUTOFF` = 10 Hz (or
0.4 times the log's rate when that is lower), applied to each gap-free run of samples on its
own. 10 Hz lies above the rigid-body motion of arm identification experiments and below most
drive ripple and current noise. The same errors without :math:`F` are the second figure
(``*_unfiltered``); the errors over the equations the fit kept only (``|qd_j|`` above its
threshold) are the third, named ``*_kept``. The overall error mixes joints of different
units and sizes: ``share`` says how much each joint weighs in its denominator.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.signal

from .._validate import as_array, check_positive

__all__ = ["REFERENCE_CUTOFF", "REFERENCE_ORDER", "DEFINITION", "TorqueError", "reference_cutoff",
           "reference_filter", "torque_error"]

#: Cut-off of the reference filter F, Hz (lowered to 0.4 fs for logs slower than 25 Hz).
REFERENCE_CUTOFF = 10.0
#: Butterworth order of F (applied forward and backward).
REFERENCE_ORDER = 4

#: The definition printed beside every held-out number.
DEFINITION = (
    "relative torque error ||F[tau - tau_hat]|| / ||F[tau]|| over every sample of the held-out data "
    "(only the first and last 0.5 s of each gap-free segment of a record are left out, where filters "
    "start up), tau the measured joint torque at the log's rate, tau_hat the model's prediction, F a zero-phase "
    f"Butterworth low-pass of order {REFERENCE_ORDER} (forward-backward) at {REFERENCE_CUTOFF:g} Hz "
    "(0.4 fs for logs slower than 25 Hz), applied to each gap-free run; fixed, independent of the "
    "identification settings. Unfiltered: the same without F. Kept: only the equations the fit used."
)


def reference_cutoff(fs: float) -> float:
    """Cut-off of the reference filter at sampling rate ``fs``: ``min(10 Hz, 0.4 fs)``.

    Raises
    ------
    ValueError
        A non-positive or non-finite ``fs``.

    Examples
    --------
    >>> reference_cutoff(5000.0), reference_cutoff(20.0)
    (10.0, 8.0)
    """
    fs = check_positive("fs", fs)
    return min(REFERENCE_CUTOFF, 0.4 * fs)


def _runs(runs, N: int) -> list[np.ndarray]:
    if runs is None:
        return [np.arange(N)]
    lab = np.asarray(runs)
    if lab.shape != (N,) or lab.dtype.kind not in "iu":
        raise ValueError(f"runs must be integer labels of shape ({N},), got {lab.dtype} {lab.shape}")
    out = []
    change = np.flatnonzero(np.diff(lab) != 0) + 1
    for a, b in zip(np.r_[0, change], np.r_[change, N]):
        out.append(np.arange(a, b))
    return out


def reference_filter(x: np.ndarray, fs: float, runs: np.ndarray | None = None) -> np.ndarray:
    """Apply the reference filter F along axis 0, to each run of samples on its own.

    Parameters
    ----------
    x : array_like, shape (N,) or (N, m)
    fs : float
        Sampling rate, Hz.
    runs : array_like of int, shape (N,), optional
        Run labels: consecutive samples with the same label are one gap-free run (default:
        all samples are one run). A run too short for the filter's padding is filtered with
        a shorter padding; a run of one sample is left as it is.

    Returns
    -------
    numpy.ndarray, same shape as ``x``

    Raises
    ------
    ValueError
        NaN/inf, a bad ``fs`` or ``runs``.

    Examples
    --------
    >>> import numpy as np
    >>> t = np.arange(2000) / 1000.0
    >>> slow, fast = np.sin(2 * np.pi * t), 0.3 * np.sin(2 * np.pi * 100 * t)
    >>> y = reference_filter(slow + fast, 1000.0)
    >>> bool(np.abs(y - slow)[200:-200].max() < 1e-3)
    True
    """
    x = as_array("x", x, ndim=(1, 2))
    if x.shape[0] == 0:
        raise ValueError("x must hold samples, got an empty array")
    fc = reference_cutoff(fs)
    sos = scipy.signal.butter(REFERENCE_ORDER, fc, btype="low", fs=fs, output="sos")
    pad = 3 * (2 * sos.shape[0] + 1)
    out = np.empty_like(x)
    for idx in _runs(runs, x.shape[0]):
        seg = x[idx]
        if idx.size < 2:
            out[idx] = seg
            continue
        out[idx] = scipy.signal.sosfiltfilt(sos, seg, axis=0, padlen=min(pad, idx.size - 1))
    return out


@dataclass(frozen=True, eq=False)
class TorqueError:
    """Relative torque errors of a prediction against the measured torques.

    Attributes
    ----------
    per_joint : numpy.ndarray, shape (n,)
        The metric: ``||F[tau_j - tau_hat_j]|| / ||F[tau_j]||``.
    overall : float
        The metric over every joint.
    rms : numpy.ndarray, shape (n,)
        Root-mean-square of ``F[tau_j - tau_hat_j]`` (N m or N): the absolute counterpart.
    per_joint_unfiltered, overall_unfiltered, rms_unfiltered
        The same without F (the second figure).
    per_joint_kept, overall_kept
        Without F, over the kept equations only (NaN when no mask was given): the variant
        that flatters, named as such.
    share : numpy.ndarray, shape (n,)
        ``||F[tau_j]||^2 / sum_k ||F[tau_k]||^2``: how much each joint weighs in ``overall``.
    samples : int
    cutoff : float
        Cut-off of F, Hz.
    definition : str
    """

    per_joint: np.ndarray
    overall: float
    rms: np.ndarray
    per_joint_unfiltered: np.ndarray
    overall_unfiltered: float
    rms_unfiltered: np.ndarray
    per_joint_kept: np.ndarray
    overall_kept: float
    share: np.ndarray
    samples: int
    cutoff: float
    definition: str = DEFINITION

    def __post_init__(self) -> None:
        from .._validate import check_fields, check_int, check_text

        # NaN is a ratio with no torque to compare with (a joint at rest, no kept mask): allowed
        vec = ("per_joint", "rms", "per_joint_unfiltered", "rms_unfiltered", "per_joint_kept", "share")
        dims = check_fields(self, finite=False, **{k: ("n",) for k in vec})
        if dims["n"] == 0:
            raise ValueError("per_joint must hold one value per joint, got an empty array")
        for k in vec:
            if np.any(np.isinf(getattr(self, k))):
                raise ValueError(f"{k} must not hold inf (NaN marks a ratio with nothing to compare), got inf")
        for k in ("overall", "overall_unfiltered", "overall_kept"):
            v = getattr(self, k)
            if isinstance(v, (bool, np.bool_, str)) or np.ndim(v) != 0 or np.iscomplexobj(v):
                raise TypeError(f"{k} must be a real scalar, got {type(v).__name__} {v!r}")
            if np.isinf(float(v)):
                raise ValueError(f"{k} must be finite or NaN, got {v}")
            object.__setattr__(self, k, float(v))
        object.__setattr__(self, "samples", check_int("samples", self.samples, 1))
        object.__setattr__(self, "cutoff", check_positive("cutoff", self.cutoff))
        check_text("definition", self.definition, allow_empty=False)

    def as_dict(self) -> dict:
        """Plain Python numbers and lists (NaN as None), for JSON."""
        def clean(v):
            a = np.asarray(v, dtype=float)
            if a.ndim == 0:
                return None if not np.isfinite(a) else float(a)
            return [None if not np.isfinite(x) else float(x) for x in a]

        return {k: (clean(getattr(self, k)) if k not in ("samples", "definition") else getattr(self, k))
                for k in ("per_joint", "overall", "rms", "per_joint_unfiltered", "overall_unfiltered",
                          "rms_unfiltered", "per_joint_kept", "overall_kept", "share", "samples", "cutoff",
                          "definition")}


def _ratios(e: np.ndarray, o: np.ndarray, mask: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    if mask is not None:
        e, o = np.where(mask, e, 0.0), np.where(mask, o, 0.0)
    e2, o2 = (e**2).sum(0), (o**2).sum(0)
    with np.errstate(divide="ignore", invalid="ignore"):
        per = np.sqrt(e2 / o2)
    per = np.where(o2 > 0, per, np.nan)
    tot = float(np.sqrt(e2.sum() / o2.sum())) if o2.sum() > 0 else float("nan")
    return per, tot


def torque_error(measured: np.ndarray, predicted: np.ndarray, fs: float, *, runs: np.ndarray | None = None,
                 keep: np.ndarray | None = None) -> TorqueError:
    """The held-out metric of a prediction (see the module docstring).

    Parameters
    ----------
    measured, predicted : array_like, shape (N, n)
        Measured joint torques at the log's rate (unfiltered) and the model's prediction on
        the same samples.
    fs : float
        Sampling rate, Hz.
    runs : array_like of int, shape (N,), optional
        Gap-free runs (see :func:`reference_filter`).
    keep : array_like of bool, shape (N, n), optional
        The equations the fit kept, for the ``*_kept`` variant.

    Returns
    -------
    TorqueError

    Raises
    ------
    ValueError
        Shapes that differ, NaN/inf, a bad ``fs``, no torque at all.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> t = np.arange(5000) / 500.0
    >>> tau = np.column_stack([np.sin(t), 2 * np.cos(0.7 * t)])
    >>> noisy = tau + 0.2 * rng.normal(size=tau.shape)          # white noise up to 250 Hz
    >>> e = torque_error(noisy, tau, 500.0)
    >>> bool(e.overall < 0.05 < e.overall_unfiltered)            # F removes most of the noise
    True
    """
    o = as_array("measured", measured, ndim=2)
    p = as_array("predicted", predicted, ndim=2)
    if p.shape != o.shape:
        raise ValueError(f"predicted must have shape {o.shape} (the shape of measured), got {p.shape}")
    if o.shape[0] == 0:
        raise ValueError("measured must hold at least one sample, got 0")
    fs = check_positive("fs", fs)
    m = None
    if keep is not None:
        m = np.asarray(keep)
        if m.shape != o.shape or m.dtype != bool:
            raise ValueError(f"keep must be a boolean mask of shape {o.shape}, got {m.dtype} {m.shape}")
    return _errors(o, {"p": p}, fs, runs, m)["p"]


def _errors(o: np.ndarray, predictions: dict, fs: float, runs, m) -> dict:
    """torque_error of several predictions of the same measurement (F[measured] computed once)."""
    fo = reference_filter(o, fs, runs)
    if not np.any(fo):
        raise ValueError("measured holds no torque (all zero): the relative error is undefined")
    o2 = (fo**2).sum(0)
    return {k: _one(o, fo, o2, p, fs, runs, m) for k, p in predictions.items()}


def _one(o, fo, o2, p, fs, runs, m) -> TorqueError:
    fe = reference_filter(o - p, fs, runs)
    per, tot = _ratios(fe, fo)
    per_u, tot_u = _ratios(o - p, o)
    if m is not None:
        per_k, tot_k = _ratios(o - p, o, m)
    else:
        per_k, tot_k = np.full(o.shape[1], np.nan), float("nan")
    return TorqueError(
        per_joint=per, overall=tot, rms=np.sqrt((fe**2).mean(0)), per_joint_unfiltered=per_u,
        overall_unfiltered=tot_u, rms_unfiltered=np.sqrt(((o - p) ** 2).mean(0)), per_joint_kept=per_k,
        overall_kept=tot_k, share=o2 / o2.sum(), samples=int(o.shape[0]), cutoff=reference_cutoff(fs),
    )
