"""From raw logs to identification data: filter, differentiate, regress, decimate.

:func:`prepare` runs the measurement pipeline of Gautier's identification practice
(chapter 3) on time-stamped motor positions and torque (or current) signals:

1. **motor to joint**: ``q = R^-1 q_motor + offsets``, ``tau = R^T K_t signal``
   (:class:`~robidlib.identification.drives.Transmission`);
2. **low-pass** the positions with a zero-phase Butterworth filter
   (:func:`robidlib.signals.lowpass`: no lag between the positions and the torques) and
   **differentiate** them twice by central differences (:func:`robidlib.signals.differentiate`);
   the ``trim`` samples at both ends, disturbed by the filter's edges, are dropped;
3. the **regressor** at the full sampling rate (:meth:`DriveModel.regressor`);
4. **parallel decimation** :cite:`gautier1997`: every regressor column and every torque is
   low-pass filtered and resampled by the same zero-phase filter
   (``scipy.signal.decimate``, Chebyshev type I, order 8, forward-backward), stage by stage
   (``decimation=(10, 10)``: 5 kHz -> 500 Hz -> 50 Hz). Filtering ``W`` and ``tau`` alike
   keeps ``tau = W x`` exact while it removes the torque ripple and noise above the rigid
   model's bandwidth; this is done *after* building the regressor because the regressor is
   non-linear in ``q`` and ``qd``: decimating the positions first would alias;
5. samples of joint ``j`` with ``|qd_j|`` below ``velocity_threshold[j]`` are flagged
   (``keep[:, j]``) and left out of joint ``j``'s equations: the Coulomb term ``sign(qd_j)`` is
   discontinuous there and the decimation filter smears the jump.

Measured velocities (``qd_motor``), when a log has them, replace the first derivative: they
are low-passed by the same filter and differentiated once for the accelerations. The time
stamps must be uniform: a log with jittered stamps or gaps goes through
:func:`robidlib.identification.logs.clean_record` (resampling, segments) first. The default
cut-off and decimation follow the sampling rate (:class:`Settings`), and :func:`prepare`
warns when the decimation filter would remove part of the measured motion.

Besides the decimated data, :func:`prepare` keeps the full-rate motion and the *unfiltered*
joint torques (:class:`FullRate`), on which the held-out metric
(:func:`robidlib.identification.metric.torque_error`) is computed independently of the
settings. :func:`split` cuts the decimated record in time into a fitting and a validation
part, :func:`blocked_folds` into the blocks of a k-fold cross-validation, and
:func:`concatenate` stacks several records or segments into one data set.

The Coulomb columns take the sign of a *measured* velocity. A joint at rest has a filtered
velocity below 1e-9 rad/s, pure round-off; its sign flips with any change of a filter's
arithmetic (1e-14 in a scipy release), and the decimation filter carries the flips into the
kept equations (on the TX40 up to 1e-2 of the estimates' standard deviations). So the
columns are the *expected* sign given the velocity noise, ``erf(qd / (sqrt(2) s))``
(:meth:`DriveModel.regressor`), with ``s`` measured on the record (``velocity_noise``): the
positions' content above the cut-off, ``q - lowpass(q)``, is taken as white noise of the
same RMS and passed through the filter and the differentiator (measured velocities: their
own content above the cut-off, through the filter). On the TX40 that content is
on joints 1 to 4 the quantisation of its positions, written with five significant digits
(steps of 1e-3 rad at the motors, 1e-2 rad beyond 100 rad), and more on joints 5 and 6;
``s`` is 5e-4 to 2.4e-3 rad/s at 100 Hz, far above round-off and 35 to 95 times below the
velocity thresholds.
"""

from __future__ import annotations

import numbers
import time
import warnings
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

import numpy as np
import scipy.signal
from numpy.typing import ArrayLike

from .._validate import as_array, check_choice, check_fields, check_flag, check_positive
from ..signals import differentiate, lowpass
from .model import DriveModel

__all__ = ["Settings", "IdentificationData", "FullRate", "prepare", "parallel_decimate", "split",
           "blocked_folds", "concatenate", "decimation_factors", "motion_bandwidth"]

_CHUNK = 4096   # samples per regressor evaluation in prepare
_MAX_ORDER = 20  # highest Butterworth order of the position filter

#: Seconds at both ends of a record that the held-out metric leaves out (fixed: the start-up
#: transient of a zero-phase filter at 10 Hz or more has decayed by then).
METRIC_EDGE = 0.5


def _int(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if int(value) < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


@dataclass(frozen=True, eq=False)
class Settings:
    """Settings of the identification pipeline.

    Attributes
    ----------
    ts : float
        Sampling period of the logs, s.
    cutoff : float, optional
        Cut-off of the zero-phase Butterworth low-pass on the positions, Hz. Default (None):
        ``min(100 Hz, fs / 5)`` (100 Hz for logs of 500 Hz and more, as FIGAROH's TX40).
    filter_order : int, default 4
        Order of that filter (doubled by the forward-backward pass).
    trim : int, optional
        Samples dropped at each end after filtering and differentiation, where the
        zero-phase filter's start-up transients corrupt the derivatives. Default (None):
        ``ceil(5 fs / cutoff)`` (50 ms at 100 Hz; the transient of a record that starts in
        motion has decayed to about 1e-4 of the accelerations by then). A record that starts
        and ends at rest needs fewer (FIGAROH trims 20 samples of the TX40's).
    decimation : tuple of int, optional
        Factors of the successive ``scipy.signal.decimate`` stages (each <= 13, as scipy
        recommends for its IIR filter); ``()`` keeps the full rate. Default (None): the
        largest total factor that keeps at least 50 Hz (:func:`decimation_factors`; (10, 10)
        at 5 kHz, (5, 4) at 1 kHz, (2,) at 100 Hz, none below 100 Hz), so that the decimation
        filter passes 20 Hz, above the motion of arm identification experiments;
        :func:`prepare` warns when the record's motion reaches above the filter's pass band.
    velocity_threshold : numpy.ndarray, shape (n,), optional
        ``|qd_j|`` (rad/s or m/s) below which joint ``j``'s equations are dropped; default
        (None) 1 % of the robot's velocity limits (FIGAROH's ``dq_lim_def`` of the TX40 is 1 % of its speed limits).
    ratio_essential : float, default 30.0
        Essential parameters: stop removing parameters once the largest relative standard
        deviation is below ``ratio_essential`` times the smallest.
    joint_offsets : numpy.ndarray, shape (n,), optional
        Added to the joint positions after the motor-to-joint transform (calibration of
        the model's zero); default zeros.
    window : tuple of float, optional
        ``(start, end)`` in s: the part of the record kept after filtering (e.g. the part
        where the arm moves); default the whole record.
    min_equations_per_parameter : float, default 10.0
        :func:`~robidlib.identification.estimate.identify` refuses data with fewer fitted
        equations per base parameter (the statistics of least squares need many more
        equations than unknowns; a decimation that leaves too few is a setting mistake).
    velocity_noise : float or numpy.ndarray, shape (n,), optional
        Standard deviation of the noise of the filtered joint velocities, rad/s (or m/s):
        the Coulomb columns are ``erf(qd / (sqrt(2) velocity_noise))``, the expected sign
        (:meth:`DriveModel.regressor`); 0 gives the exact ``sign(qd)`` (noise-free data).
        Default (None): measured on the record by :func:`prepare` (never below the noise of
        a resolution of ``2 pi / 2**32`` rad, a 32-bit count per turn, finer than any
        encoder); the value used is in the returned data's ``settings``.

    Raises
    ------
    ValueError
        Non-positive or non-finite values, a cut-off at or above the Nyquist frequency, a
        decimation factor outside ``[2, 13]``, a ``filter_order`` above 20, negative or empty
        thresholds, empty offsets, negative velocity noise.
    TypeError
        Integers given as floats (``trim``, ``filter_order``, ``decimation``).

    Examples
    --------
    >>> s = Settings(ts=0.0002)
    >>> s.fs, s.decimated_rate, s.cutoff, s.decimation
    (5000.0, 50.0, 100.0, (10, 10))
    >>> s = Settings(ts=0.01)                      # a 100 Hz log: the defaults follow
    >>> s.cutoff, s.decimation, s.decimated_rate
    (20.0, (2,), 50.0)
    """

    ts: float
    cutoff: float | None = None
    filter_order: int = 4
    trim: int | None = None
    decimation: tuple[int, ...] | None = None
    velocity_threshold: np.ndarray | None = None
    ratio_essential: float = 30.0
    joint_offsets: np.ndarray | None = None
    window: tuple[float, float] | None = None
    min_equations_per_parameter: float = 10.0
    velocity_noise: float | np.ndarray | None = None

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "ts", check_positive("ts", self.ts))
        if self.cutoff is None:
            set_(self, "cutoff", min(100.0, 0.2 / self.ts))
        if self.decimation is None:
            set_(self, "decimation", decimation_factors(max(1, int(np.floor(1.0 / (self.ts * 50.0) + 1e-9)))))
        set_(self, "cutoff", check_positive("cutoff", self.cutoff))
        if self.cutoff >= 0.5 / self.ts:
            raise ValueError(
                f"cutoff must be below the Nyquist frequency 1/(2 ts) = {0.5 / self.ts:g} Hz, got {self.cutoff:g} Hz"
            )
        set_(self, "filter_order", _int("filter_order", self.filter_order, 1))
        if self.filter_order > _MAX_ORDER:
            raise ValueError(f"filter_order must be <= {_MAX_ORDER} (a Butterworth filter of higher order is not "
                             f"stable in floating point), got {self.filter_order}")
        if self.trim is not None:
            set_(self, "trim", _int("trim", self.trim, 0))
        if isinstance(self.decimation, (numbers.Integral, str)):
            raise TypeError(f"decimation must be a sequence of ints such as (10, 10), got {self.decimation!r}")
        dec = tuple(_int("decimation factor", f, 2) for f in self.decimation)
        if any(f > 13 for f in dec):
            raise ValueError(f"decimation factors must be <= 13 (split a larger one into stages), got {dec}")
        set_(self, "decimation", dec)
        set_(self, "ratio_essential", check_positive("ratio_essential", self.ratio_essential))
        if self.ratio_essential <= 1:
            raise ValueError(f"ratio_essential must be > 1 (a ratio of relative stds), got {self.ratio_essential}")
        for name in ("velocity_threshold", "joint_offsets"):
            value = getattr(self, name)
            if value is not None:
                arr = as_array(name, value, ndim=1).copy()
                if arr.size == 0:
                    raise ValueError(f"{name} must hold one value per joint, got an empty array")
                if name == "velocity_threshold" and np.any(arr < 0):
                    raise ValueError(f"velocity_threshold must be >= 0, got {arr.tolist()}")
                arr.setflags(write=False)
                set_(self, name, arr)
        if self.velocity_noise is not None:
            noise = as_array("velocity_noise", self.velocity_noise, ndim=(0, 1)).copy()
            if noise.size == 0:
                raise ValueError("velocity_noise must be a float or hold one value per joint, got an empty array")
            if np.any(noise < 0):
                raise ValueError(f"velocity_noise must be >= 0 (a standard deviation, rad/s), got {noise.tolist()}")
            noise.setflags(write=False)
            set_(self, "velocity_noise", float(noise) if noise.ndim == 0 else noise)
        if self.window is not None:
            w = as_array("window", self.window, shape=(2,))
            if not w[0] < w[1]:
                raise ValueError(f"window must be (start, end) with start < end, got {tuple(w.tolist())}")
            set_(self, "window", (float(w[0]), float(w[1])))
        mepp = check_positive("min_equations_per_parameter", self.min_equations_per_parameter)
        if mepp < 1:
            raise ValueError(f"min_equations_per_parameter must be >= 1, got {mepp:g}")
        set_(self, "min_equations_per_parameter", mepp)

    @property
    def fs(self) -> float:
        """Sampling frequency of the logs, Hz."""
        return 1.0 / self.ts

    @property
    def trim_samples(self) -> int:
        """Samples dropped at each end: ``trim``, or ``ceil(5 fs / cutoff)`` by default."""
        return int(np.ceil(5.0 * self.fs / self.cutoff)) if self.trim is None else self.trim

    @property
    def decimated_rate(self) -> float:
        """Sampling frequency after decimation, Hz."""
        return self.fs / float(np.prod(self.decimation, dtype=float))

    @classmethod
    def from_figaroh(cls, config: Mapping[str, Any], joint_offsets: ArrayLike | None = None, **overrides: Any) -> "Settings":
        """Settings from a FIGAROH identification YAML (already parsed).

        Reads ``ts`` and ``cut_off_frequency_butterworth`` (processing_params),
        ``dq_lim_def`` and ``ratio_essential`` (robot_params); the filter order 4, the 20
        trimmed samples (``trim=20``) and the decimation by 10 twice are those of FIGAROH's
        TX40 script.

        Parameters
        ----------
        config : mapping
            The whole YAML (with an ``identification`` key) or its ``identification`` part.
        joint_offsets : array_like, shape (n,), optional
        **overrides
            Any other field of :class:`Settings`.

        Returns
        -------
        Settings

        Raises
        ------
        ValueError
            A missing entry (named in the message) or a bad value.

        Examples
        --------
        >>> from robidlib.datasets import staubli_tx40
        >>> s = Settings.from_figaroh(staubli_tx40().settings)
        >>> s.ts, s.cutoff, s.ratio_essential, s.velocity_threshold.round(3).tolist()
        (0.0002, 100.0, 30.0, [0.05, 0.05, 0.075, 0.072, 0.056, 0.122])
        """
        ident = config.get("identification", config) if isinstance(config, Mapping) else None
        if not isinstance(ident, Mapping):
            raise ValueError(f"config must be a FIGAROH settings mapping, got {type(config).__name__}")

        def section(name: str) -> Mapping[str, Any]:
            value = ident.get(name)
            if isinstance(value, list) and value:
                value = value[0]
            if not isinstance(value, Mapping):
                raise ValueError(f"FIGAROH config: section {name!r} is missing")
            return value

        pp, rp = section("processing_params"), section("robot_params")
        try:
            kw: dict[str, Any] = dict(
                ts=float(pp["ts"]),
                cutoff=float(pp["cut_off_frequency_butterworth"]),
                velocity_threshold=np.asarray([float(v) for v in rp["dq_lim_def"]]),
                ratio_essential=float(rp["ratio_essential"]),
                filter_order=4,
                trim=20,
                decimation=(10, 10),
            )
        except KeyError as exc:
            raise ValueError(f"FIGAROH config: entry {exc.args[0]!r} is missing") from None
        if joint_offsets is not None:
            kw["joint_offsets"] = joint_offsets
        kw.update(overrides)
        return cls(**kw)


@dataclass(frozen=True, eq=False)
class FullRate:
    """The full-rate signals behind decimated data: what the held-out metric is computed on.

    Attributes
    ----------
    t : numpy.ndarray, shape (K,)
        Time stamps, s.
    q, qd, qdd : numpy.ndarray, shape (K, n)
        The pipeline's filtered joint motion (what the model is evaluated at).
    tau : numpy.ndarray, shape (K, n)
        Measured joint torques, **unfiltered** (``R^T K_t signal``).
    nearest : numpy.ndarray of int, shape (K,)
        Index of the decimated sample nearest to each full-rate sample (for the keep mask of
        the kept-only variant).
    run : numpy.ndarray of int, shape (K,)
        Gap-free runs: consecutive samples with one label are contiguous in time (one per
        record or segment, and a new one wherever a selection leaves a hole).
    fs : float
        Sampling rate, Hz.
    edge : numpy.ndarray of bool, shape (K,)
        Samples within :data:`METRIC_EDGE` of the first or last sample of the record they
        come from (the one :func:`prepare` was given): the held-out metric leaves them out,
        a fixed margin that no setting changes (the filters' start-up transients at a
        record's ends make any motion estimate, and so any prediction, unreliable there).
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    nearest: np.ndarray
    run: np.ndarray
    fs: float
    edge: np.ndarray | None = None

    def __post_init__(self) -> None:
        dims = check_fields(self, t=("K",), q=("K", "n"), qd=("K", "n"), qdd=("K", "n"), tau=("K", "n"))
        if dims["K"] == 0 or dims["n"] == 0:
            raise ValueError(f"t and q must not be empty, got {dims['K']} samples of {dims['n']} joints")
        for name in ("nearest", "run"):
            a = as_array(name, getattr(self, name), shape=(dims["K"],))
            if np.any(a != np.round(a)) or np.any(a < 0):
                raise ValueError(f"{name} must hold integer indices >= 0, one per full-rate sample, got {a[:3]}...")
            object.__setattr__(self, name, a.astype(int))
        if self.edge is not None:
            e = np.asarray(self.edge)
            if e.dtype != bool or e.shape != (dims["K"],):
                raise ValueError(f"edge must be a bool array of shape ({dims['K']},) or None, got {e.dtype} {e.shape}")
        object.__setattr__(self, "fs", check_positive("fs", self.fs))

    @property
    def n_samples(self) -> int:
        """Number of full-rate samples K."""
        return int(self.t.size)

    def _take(self, idx: np.ndarray, nearest: np.ndarray) -> "FullRate":
        # a new run label wherever the kept samples are not consecutive
        cont = np.r_[False, (np.diff(idx) == 1) & (self.run[idx][1:] == self.run[idx][:-1])]
        run = np.cumsum(~cont) - 1
        edge = None if self.edge is None else self.edge[idx]
        return FullRate(t=self.t[idx], q=self.q[idx], qd=self.qd[idx], qdd=self.qdd[idx], tau=self.tau[idx],
                        nearest=nearest, run=run, fs=self.fs, edge=edge)


def decimation_factors(total: int) -> tuple[int, ...]:
    """Stages of at most 13 for the largest decimation factor ``<= total`` that has them.

    As few stages as possible, then the largest stage as small as possible: ``100 -> (10, 10)``, ``20 -> (5, 4)``; a prime above 13 is replaced by the
    next smaller factor that splits (``17 -> (4, 4)``, a total of 16).

    Parameters
    ----------
    total : int
        The largest acceptable total factor, ``>= 1`` (1: no decimation).

    Returns
    -------
    tuple of int
        ``()`` for ``total = 1``.

    Raises
    ------
    ValueError, TypeError
        ``total`` not an int ``>= 1`` or absurdly large (> 10**6).

    Examples
    --------
    >>> decimation_factors(100), decimation_factors(20), decimation_factors(17), decimation_factors(1)
    ((10, 10), (5, 4), (4, 4), ())
    """
    total = _int("total", total, 1)
    if total > 10**6:
        raise ValueError(f"total must be <= 10**6 (a decimation factor), got {total}")

    def stages(d: int, most: int) -> tuple[int, ...] | None:
        if d == 1:
            return ()
        best = None
        for f in range(min(13, most, d), 1, -1):
            if d % f == 0:
                rest = stages(d // f, f)
                if rest is not None:
                    cand = (f,) + rest
                    if best is None or (len(cand), max(cand)) < (len(best), max(best)):
                        best = cand
        return best

    for d in range(total, 0, -1):
        out = stages(d, 13)
        if out is not None:
            return out
    return ()  # pragma: no cover - d = 1 always splits


def motion_bandwidth(q: ArrayLike, fs: float, *, energy: float = 0.99, fmax: float | None = None) -> np.ndarray:
    """Frequency below which ``energy`` of each joint's velocity energy lies, Hz.

    The velocity is the central difference of the positions low-passed at ``fmax``
    (default ``min(50 Hz, 0.4 fs)``: above that, differentiated positions are sensor
    noise, not motion); its power spectrum is Welch's (segments of 20 s or the record).

    Parameters
    ----------
    q : array_like, shape (N, n)
        Joint positions at a uniform rate.
    fs : float
        Sampling rate, Hz.
    energy : float, default 0.99
        Share of the velocity energy, in (0, 1).
    fmax : float, optional

    Returns
    -------
    numpy.ndarray, shape (n,)
        Per joint (0 for a joint that does not move).

    Raises
    ------
    ValueError
        NaN/inf, too few samples, bad ``fs``, ``energy`` or ``fmax``.

    Examples
    --------
    >>> import numpy as np
    >>> t = np.arange(20000) / 1000.0
    >>> q = np.column_stack([np.sin(2 * np.pi * 0.5 * t), np.sin(2 * np.pi * 3.0 * t)])
    >>> motion_bandwidth(q, 1000.0).round(2).tolist()     # within the window's leakage
    [0.55, 3.05]
    """
    q = as_array("q", q, ndim=2)
    fs = check_positive("fs", fs)
    energy = check_positive("energy", energy)
    if not energy < 1:
        raise ValueError(f"energy must be in (0, 1), got {energy}")
    fmax = min(50.0, 0.4 * fs) if fmax is None else check_positive("fmax", fmax)
    if fmax >= fs / 2:
        raise ValueError(f"fmax must be below the Nyquist frequency {fs / 2:g} Hz, got {fmax:g}")
    if q.shape[0] < 64:
        raise ValueError(f"q must hold at least 64 samples to estimate a spectrum, got {q.shape[0]}")
    v = differentiate(lowpass(q, fmax, fs), 1.0 / fs)
    nper = int(min(q.shape[0], max(256, 20.0 * fs)))
    f, P = scipy.signal.welch(v, fs=fs, nperseg=nper, axis=0, detrend="constant")
    P = P[f <= fmax]
    f = f[f <= fmax]
    c = np.cumsum(P, axis=0)
    out = np.zeros(q.shape[1])
    for j in range(q.shape[1]):
        if c[-1, j] > 0:
            out[j] = f[min(int(np.searchsorted(c[:, j], energy * c[-1, j])), f.size - 1)]
    return out


@dataclass(frozen=True, eq=False)
class IdentificationData:
    """Decimated identification data, ready to stack.

    Attributes
    ----------
    t : numpy.ndarray, shape (M,)
        Times of the decimated samples, s.
    q, qd, qdd : numpy.ndarray, shape (M, n)
        Filtered joint positions, velocities, accelerations, parallel-decimated like ``Y``.
    tau : numpy.ndarray, shape (M, n)
        Joint torques, parallel-decimated.
    Y : numpy.ndarray, shape (M, n, p)
        The model's regressor, computed at the full rate and parallel-decimated.
    keep : numpy.ndarray of bool, shape (M, n)
        Equations used for fitting: ``|qd_j| >= velocity_threshold[j]``.
    model : DriveModel
    settings : Settings
    timings : dict
        Seconds spent in each stage (``filter``, ``regressor``, ``decimate``).
    full : FullRate or None
        The full-rate motion and unfiltered torques of the same samples (None for data made
        by hand); :func:`~robidlib.identification.validate.heldout_error` needs it.

    Raises
    ------
    TypeError, ValueError
        Fields of the wrong type or shape (the model's joints and columns), NaN/inf, ``keep``
        not a bool array.
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    Y: np.ndarray
    keep: np.ndarray
    model: DriveModel = field(repr=False)
    settings: Settings = field(repr=False)
    timings: dict = field(default_factory=dict, repr=False)
    full: FullRate | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.model, DriveModel):
            raise TypeError(f"model must be a DriveModel, got {type(self.model).__name__}")
        if not isinstance(self.settings, Settings):
            raise TypeError(f"settings must be Settings, got {type(self.settings).__name__}")
        if not isinstance(self.timings, dict):
            raise TypeError(f"timings must be a dict, got {type(self.timings).__name__}")
        if self.full is not None and not isinstance(self.full, FullRate):
            raise TypeError(f"full must be the full-rate data (FullRate) or None, got {type(self.full).__name__}")
        n, p = self.model.n, self.model.p
        j = ("M", n)
        check_fields(self, t=("M",), q=j, qd=j, qdd=j, tau=j, Y=("M", n, p))
        keep = np.asarray(self.keep)
        if keep.dtype != bool or keep.shape != self.t.shape + (n,):
            raise TypeError(f"keep must be a bool array of shape {self.t.shape + (n,)}, got {keep.dtype} {keep.shape}")

    @property
    def n_samples(self) -> int:
        """Number of decimated samples M."""
        return int(self.t.size)

    def stack(self, columns: ArrayLike | None = None, use_keep: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Stack the kept equations: ``W`` (rows, k), ``y`` (rows,), ``joint`` (rows,).

        Rows are sample-major (sample ``k``'s kept joints, then sample ``k + 1``'s); ``joint``
        gives each row's joint index (0-based).

        Parameters
        ----------
        columns : array_like of int, optional
            Columns of ``Y`` to keep (e.g. ``base.independent``); default all.
        use_keep : bool, default True
            Leave out the equations near zero velocity (``keep``); False stacks them all.

        Returns
        -------
        W, y, joint : numpy.ndarray

        Raises
        ------
        ValueError
            Column indices out of range, or no equation left.
        TypeError
            ``use_keep`` not a bool.
        """
        use_keep = check_flag("use_keep", use_keep)
        Y = self.Y
        if columns is not None:
            idx = np.asarray(columns)
            if idx.ndim != 1 or idx.size == 0 or not np.issubdtype(idx.dtype, np.integer):
                raise ValueError(f"columns must be a non-empty 1-D array of column indices, got {columns!r}")
            if idx.min() < -Y.shape[2] or idx.max() >= Y.shape[2]:
                raise ValueError(f"columns must be indices in [0, {Y.shape[2]}), got range [{idx.min()}, {idx.max()}]")
            Y = Y[:, :, idx]
        mask = self.keep if use_keep else np.ones_like(self.keep)
        if not np.any(mask):
            raise ValueError("no equation left: every sample is below the velocity threshold")
        joint = np.broadcast_to(np.arange(self.keep.shape[1]), self.keep.shape)[mask]
        return Y[mask], self.tau[mask], joint

    def select(self, samples: ArrayLike, full_samples: ArrayLike | None = None) -> "IdentificationData":
        """The data of some decimated samples (a boolean mask or indices along time).

        Parameters
        ----------
        samples : array_like of bool or int
            Decimated samples to keep.
        full_samples : array_like of bool, shape (K,), optional
            Full-rate samples to keep (e.g. chosen by their own time stamps, as
            :func:`split` does); default: those whose nearest decimated sample is kept.

        Raises
        ------
        ValueError
            A mask of the wrong length, indices out of range, or no sample selected.
        TypeError
            ``samples`` neither a boolean mask nor integer indices.
        """
        s = np.asarray(samples)
        if s.dtype == bool:
            if s.shape != self.t.shape:
                raise ValueError(f"samples mask must have shape {self.t.shape}, got {s.shape}")
        elif s.dtype.kind not in "iu" or s.ndim != 1:
            raise TypeError(f"samples must be a boolean mask or a 1-D array of integer indices, got {s.dtype} "
                            f"of shape {s.shape}")
        elif s.size and (s.min() < -self.n_samples or s.max() >= self.n_samples):
            raise ValueError(f"samples must be indices in [0, {self.n_samples}), got the range [{s.min()}, {s.max()}]")
        t = self.t[s]
        if t.size == 0:
            raise ValueError("samples selects no sample")
        full = None
        if self.full is not None:
            mask = np.zeros(self.t.size, dtype=bool)
            mask[s] = True
            if s.dtype != bool and (np.unique(s).size != s.size or np.any(np.diff(s) < 0)):
                full = None        # reordered or repeated samples: no full-rate counterpart
            else:
                if full_samples is None:
                    fm = mask[self.full.nearest]
                else:
                    fm = np.asarray(full_samples)
                    if fm.dtype != bool or fm.shape != (self.full.n_samples,):
                        raise ValueError(f"full_samples must be a boolean mask of shape ({self.full.n_samples},), "
                                         f"got {fm.dtype} {fm.shape}")
                idx = np.flatnonzero(fm)
                kept = np.flatnonzero(mask)             # the nearest kept decimated sample, by index
                near = self.full.nearest[idx]
                pos = np.clip(np.searchsorted(kept, near), 0, kept.size - 1)
                lower = np.clip(pos - 1, 0, kept.size - 1)
                pos = np.where(np.abs(kept[lower] - near) <= np.abs(kept[pos] - near), lower, pos)
                full = self.full._take(idx, pos)
        return replace(self, t=t, q=self.q[s], qd=self.qd[s], qdd=self.qdd[s], tau=self.tau[s],
                       Y=self.Y[s], keep=self.keep[s], full=full)


def parallel_decimate(x: ArrayLike, factors: Sequence[int]) -> np.ndarray:
    """Decimate along axis 0 by successive zero-phase ``scipy.signal.decimate`` stages.

    Every other axis is a separate signal filtered by the same filter (Chebyshev type I of
    order 8, cut-off ``0.8`` of each stage's new Nyquist frequency, applied forward and
    backward): applied to a regressor ``(N, n, p)`` and to the torques ``(N, n)`` it is
    Gautier's parallel decimation, column by column. The filter's passband ripples by
    0.05 dB and an even-order Chebyshev filter sits at the bottom of the ripple at low
    frequency: each pass scales slow signals by ``10**(-0.05/20) = 0.9943``, so two stages
    (four passes) by about 0.977. The same factor scales ``W`` and ``tau``: the estimates do
    not change.

    Parameters
    ----------
    x : array_like, shape (N, ...)
    factors : sequence of int
        Each in ``[2, 13]``; ``()`` returns a copy.

    Returns
    -------
    numpy.ndarray, shape (M, ...)
        ``M = ceil(N / f1)`` then ``ceil(. / f2)`` and so on.

    Raises
    ------
    ValueError
        NaN/inf, factors out of range, too few samples for the filter's padding.
    TypeError
        Non-numeric ``x``, ``factors`` not a sequence of ints.

    Examples
    --------
    >>> import numpy as np
    >>> t = np.arange(5000) / 5000.0
    >>> x = np.sin(2 * np.pi * t)[:, None] * [1.0, 2.0]
    >>> y = parallel_decimate(x, (10, 10))
    >>> y.shape, round(float(np.abs(y).max(axis=0)[1] / 2.0), 3)   # 0.9943**4
    ((50, 2), 0.977)
    """
    x = as_array("x", x)
    if x.ndim == 0 or x.shape[0] == 0:
        raise ValueError(f"x must hold samples along axis 0, got shape {x.shape}")
    if isinstance(factors, (str, bytes)) or not hasattr(factors, "__iter__"):
        raise TypeError(f"factors must be a sequence of ints such as (10, 10), got {type(factors).__name__}")
    factors = [_int("factors entry", f, 2) for f in factors]
    out = x
    for k, f in enumerate(factors):
        if f > 13:
            raise ValueError(f"factors must be <= 13, got {f}")
        need = 3 * 9 + 1   # filtfilt pads 3 * 9 samples (9 coefficients of the order-8 filter)
        if out.shape[0] < need:
            raise ValueError(f"x has {out.shape[0]} samples at decimation stage {k + 1} of factors {factors}; at "
                             f"least {need} are needed")
        out = scipy.signal.decimate(out, f, ftype="iir", zero_phase=True, axis=0)
    return np.array(out, copy=True) if out is x else out


def _decimate_regressor(Y: np.ndarray, structure: np.ndarray, factors: Sequence[int]) -> np.ndarray:
    """Parallel decimation of the structurally non-zero (row, column) pairs of Y only."""
    rows, cols = np.nonzero(structure)
    Z = parallel_decimate(Y[:, rows, cols], factors)
    out = np.zeros((Z.shape[0],) + Y.shape[1:])
    out[:, rows, cols] = Z
    return out


def prepare(
    t: ArrayLike,
    q_motor: ArrayLike,
    signal: ArrayLike,
    model: DriveModel,
    settings: Settings,
    *,
    qd_motor: ArrayLike | None = None,
) -> IdentificationData:
    """Filtered, differentiated, parallel-decimated regressor and torques from raw logs.

    Parameters
    ----------
    t : array_like, shape (N,)
        Time stamps, s, uniformly spaced by ``settings.ts`` (relative tolerance 1e-6). Logs
        with jittered stamps or gaps: resample and split them first
        (:func:`robidlib.identification.logs.clean_record`, as ``robidlib-identify`` does).
    q_motor : array_like, shape (N, n)
        Motor positions (rad, motor side; joint positions when the transmission is the
        identity).
    signal : array_like, shape (N, n)
        Motor torques (N m) or currents (A, with the transmission's torque constants).
    model : DriveModel
    settings : Settings
    qd_motor : array_like, shape (N, n), optional
        Measured motor velocities (joint velocities for an identity transmission): they
        replace the derivative of the positions (low-passed by the same filter; the
        accelerations are their central differences).

    Returns
    -------
    IdentificationData
        With ``full``: the full-rate motion and the unfiltered joint torques of every sample
        inside ``settings.window``; ``full.edge`` marks the first and last
        :data:`METRIC_EDGE` seconds of the record, which the held-out metric leaves out.

    Raises
    ------
    ValueError
        Shapes that do not match the model, NaN/inf, time stamps not uniform or not matching
        ``ts`` (the message says how to resample), a record too short for the filters,
        offsets or thresholds of the wrong length.
    TypeError
        ``model`` not a DriveModel or ``settings`` not Settings.

    Warns
    -----
    UserWarning
        When the record's motion reaches above the pass band of the decimation filter
        (0.4 times the decimated rate): the decimation would remove motion that the torques
        contain, and the fit would describe a slower robot.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.models import planar_2r
    >>> model = DriveModel(planar_2r())
    >>> t = np.arange(20000) * 2e-4
    >>> q = np.column_stack([np.sin(t), np.cos(2 * t)])
    >>> tau = model.torques(q, [1.0, -2.0] * np.column_stack([np.cos(t), np.sin(2 * t)]),
    ...                     [-1.0, -4.0] * q, model.pack())
    >>> data = prepare(t, q, tau, model, Settings(ts=2e-4))
    >>> data.Y.shape, bool(np.allclose(data.Y @ model.pack(), data.tau, atol=1e-3))
    ((195, 2, 28), True)
    >>> data.full.n_samples, data.full.tau.shape, int(data.full.edge.sum())  # 0.5 s at each end
    (20000, (20000, 2), 5000)
    """
    if not isinstance(model, DriveModel):
        raise TypeError(f"model must be a DriveModel, got {type(model).__name__}")
    if not isinstance(settings, Settings):
        raise TypeError(f"settings must be Settings, got {type(settings).__name__}")
    n = model.n
    t = as_array("t", t, ndim=1)
    q_motor = as_array("q_motor", q_motor, ndim=2)
    signal = as_array("signal", signal, ndim=2)
    if q_motor.shape[1] != n or signal.shape != q_motor.shape or t.shape[0] != q_motor.shape[0]:
        raise ValueError(
            f"t (N,), q_motor and signal (N, {n}) must match the model's {n} joints and each other, got "
            f"t {t.shape}, q_motor {q_motor.shape}, signal {signal.shape}"
        )
    if qd_motor is not None:
        qd_motor = as_array("qd_motor", qd_motor, shape=q_motor.shape)
    N = t.size
    if N < 2:
        raise ValueError(f"the record must hold at least 2 samples, got {N}")
    dt = np.diff(t)
    if not np.allclose(dt, settings.ts, rtol=1e-6, atol=0.0):
        raise ValueError(
            f"t must be uniformly spaced by settings.ts = {settings.ts:g} s, got steps in "
            f"[{dt.min():.6g}, {dt.max():.6g}] s; resample jittered stamps and split the record at "
            "gaps first (robidlib.identification.logs.clean_record or resample_uniform)"
        )
    offsets = np.zeros(n) if settings.joint_offsets is None else settings.joint_offsets
    if offsets.shape != (n,):
        raise ValueError(f"settings.joint_offsets must have shape ({n},), got {offsets.shape}")
    thr = 0.01 * model.robot.qd_limits if settings.velocity_threshold is None else settings.velocity_threshold
    if thr.shape != (n,):
        raise ValueError(f"settings.velocity_threshold must have shape ({n},), got {thr.shape}")
    noise = settings.velocity_noise
    if noise is not None:
        noise = np.full(n, noise) if np.ndim(noise) == 0 else np.array(noise)
        if noise.shape != (n,):
            raise ValueError(f"settings.velocity_noise must be a float or have shape ({n},), got {noise.shape}")
    trim = settings.trim_samples
    if N <= 2 * trim + 3:
        raise ValueError(f"the record has {N} samples, too few to trim {trim} at each end")

    timings: dict[str, float] = {}
    tic = time.perf_counter()
    tr = model.transmission
    q_raw = tr.joint_positions(q_motor)
    q = lowpass(q_raw, settings.cutoff, settings.fs, order=settings.filter_order)
    if qd_motor is None:
        above = q_raw - q                    # the positions' content above the cut-off
        q = q + offsets
        qd = differentiate(q, settings.ts)
    else:
        qd_raw = tr.joint_positions(qd_motor)
        q = q + offsets
        qd = lowpass(qd_raw, settings.cutoff, settings.fs, order=settings.filter_order)
        above = qd_raw - qd                  # the measured velocities' content above the cut-off
    qdd = differentiate(qd, settings.ts)
    tau = tr.joint_torques(signal)
    inside = np.ones(N, dtype=bool)
    if settings.window is not None:
        inside &= (t >= settings.window[0]) & (t <= settings.window[1])
    sl = np.zeros(N, dtype=bool)
    sl[trim: N - trim] = True
    sl &= inside
    if np.count_nonzero(sl) < 2:
        raise ValueError(f"settings.window {settings.window} keeps fewer than 2 samples of the record")
    f = settings.decimation
    step = int(np.prod(f, dtype=int)) if f else 1
    dec_rows = np.flatnonzero(sl)[::step]                     # record rows of the decimated samples
    win = np.flatnonzero(inside)                              # every sample of the window
    pos = np.clip(np.searchsorted(dec_rows, win), 0, dec_rows.size - 1)
    lower = np.clip(pos - 1, 0, dec_rows.size - 1)
    nearest = np.where(np.abs(dec_rows[lower] - win) <= np.abs(dec_rows[pos] - win), lower, pos)
    edge = (t[win] < t[0] + METRIC_EDGE) | (t[win] > t[-1] - METRIC_EDGE)
    full = FullRate(t=t[win], q=q[win], qd=qd[win], qdd=qdd[win], tau=tau[win], nearest=nearest,
                    run=np.zeros(win.size, dtype=int), fs=settings.fs, edge=edge)
    t, q, qd, qdd, tau = t[sl], q[sl], qd[sl], qdd[sl], tau[sl]
    if noise is None:
        noise = _record_velocity_noise(above[sl], settings, measured=qd_motor is not None)
    noise.setflags(write=False)
    timings["filter"] = time.perf_counter() - tic
    if f and q.shape[0] >= 64:
        band = motion_bandwidth(q, settings.fs)
        passband = 0.4 * settings.decimated_rate
        if np.max(band) > passband:
            warnings.warn(
                f"the motion reaches {np.max(band):.3g} Hz (99 % of the velocity energy of joint "
                f"{int(np.argmax(band)) + 1}) but the decimation {f} to {settings.decimated_rate:.4g} Hz passes "
                f"only {passband:.3g} Hz: it removes motion the torques contain; decimate less",
                UserWarning, stacklevel=2,
            )

    # the regressor at the full rate, computed in chunks of samples (it is sample-wise, so the
    # result is the unchunked one) and kept only where it can be non-zero: a tenth of the memory
    tic = time.perf_counter()
    rows, cols = np.nonzero(model.structure())
    Z = np.empty((t.size, rows.size))
    for start in range(0, t.size, _CHUNK):
        c = slice(start, start + _CHUNK)
        Z[c] = model.regressor(q[c], qd[c], qdd[c], velocity_noise=noise)[:, rows, cols]
    timings["regressor"] = time.perf_counter() - tic

    tic = time.perf_counter()
    Zd = parallel_decimate(Z, f)
    del Z
    Yd = np.zeros((Zd.shape[0], n, model.p))
    Yd[:, rows, cols] = Zd
    signals = parallel_decimate(np.concatenate([q, qd, qdd, tau], axis=1), f)
    q_d, qd_d, qdd_d, tau_d = np.split(signals, 4, axis=1)
    t_d = t[::step]
    timings["decimate"] = time.perf_counter() - tic
    keep = np.abs(qd_d) >= thr
    return IdentificationData(t=t_d, q=q_d, qd=qd_d, qdd=qdd_d, tau=tau_d, Y=Yd, keep=keep, model=model,
                              settings=replace(settings, velocity_noise=noise), timings=timings, full=full)


#: Finest position resolution assumed of any record: a 32-bit count per turn, rad (or m).
_FINEST_RESOLUTION = 2.0 * np.pi / 2.0**32


def _velocity_noise_gain(settings: Settings, measured: bool = False) -> float:
    """RMS velocity (1/s) that unit-variance white noise on the positions leaves in ``prepare``.

    The norm of the impulse response of :func:`~robidlib.signals.lowpass` followed by
    :func:`~robidlib.signals.differentiate` as :func:`prepare` applies them (64.7 /s at
    100 Hz and 5 kHz); ``measured``: of the low-pass filter alone (unit-variance white noise
    on measured velocities, dimensionless).
    """
    m = int(np.ceil(20.0 * settings.fs / settings.cutoff))     # the response has died out by then
    x = np.zeros(2 * m + 1)
    x[m] = 1.0
    h = lowpass(x, settings.cutoff, settings.fs, order=settings.filter_order)
    if not measured:
        h = differentiate(h, settings.ts)
    return float(np.sqrt(np.sum(h**2)))


def _record_velocity_noise(above: np.ndarray, settings: Settings, measured: bool = False) -> np.ndarray:
    """Standard deviation of the velocity noise per joint, from a record.

    ``above`` (N, n) is what the position filter removed, ``q - lowpass(q)``: encoder and
    recording resolution, and whatever else lies above the cut-off. Taken as white noise of
    the same RMS (never below that of a uniform quantisation by :data:`_FINEST_RESOLUTION`),
    the filter and the differentiator leave ``rms * gain`` of it in the velocities.
    """
    rms = np.sqrt(np.mean(above**2, axis=0))
    if measured:                         # measured velocities: their own content above the cut-off
        return rms * _velocity_noise_gain(settings, measured=True)
    rms = np.maximum(rms, _FINEST_RESOLUTION / np.sqrt(12.0))
    return rms * _velocity_noise_gain(settings)


def split(data: IdentificationData, fraction: float = 0.7, guard: float = 0.1, *,
          span: str = "decimated") -> tuple[IdentificationData, IdentificationData]:
    """Cut the record in time: the first ``fraction`` for fitting, the rest for validation.

    The full-rate samples (``data.full``) are cut at the same instant by their own time
    stamps, with the same guard.

    Parameters
    ----------
    data : IdentificationData
    fraction : float, default 0.7
        Share of the duration used for fitting, in ``(0, 1)``.
    guard : float, default 0.1
        Seconds left out on each side of the cut: the decimation filter spreads each sample
        over its neighbours, so samples right at the cut would share information.
    span : {"decimated", "record"}, default "decimated"
        The duration ``fraction`` is a share of: the decimated samples' (which the trimmed
        ends and the decimation step move a little), or the record's own, from its first to
        its last full-rate sample (no setting moves the cut; ``robidlib-identify`` uses it).

    Returns
    -------
    train, test : IdentificationData

    Raises
    ------
    ValueError
        ``fraction`` outside ``(0, 1)``, a negative ``guard``, or a part left empty.
    TypeError
        ``data`` not IdentificationData.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.models import planar_2r
    >>> model = DriveModel(planar_2r())
    >>> t = np.arange(20000) * 2e-4
    >>> q = np.column_stack([np.sin(t), np.cos(2 * t)])
    >>> data = prepare(t, q, np.zeros_like(q), model, Settings(ts=2e-4))
    >>> train, test = split(data, 0.75, guard=0.0)
    >>> train.n_samples, test.n_samples
    (147, 48)
    >>> [p.n_samples for p in split(data, 0.75, guard=0.0, span="record")]
    [148, 47]
    """
    if not isinstance(data, IdentificationData):
        raise TypeError(f"data must be IdentificationData, got {type(data).__name__}")
    fraction = check_positive("fraction", fraction)
    if not 0 < fraction < 1:
        raise ValueError(f"fraction must be in (0, 1), got {fraction}")
    guard = check_positive("guard", guard, allow_zero=True)
    check_choice("span", span, ("decimated", "record"))
    if span == "record":
        if data.full is None:
            raise ValueError("span='record' needs the full-rate data (data.full), which data made by hand lack")
        t0, t1 = data.full.t[0], data.full.t[-1] + 1.0 / data.full.fs
    else:
        t0, t1 = data.t[0], data.t[-1] + (data.t[-1] - data.t[0]) / max(data.t.size - 1, 1)
    cut = t0 + fraction * (t1 - t0)
    train, test = data.t < cut - guard, data.t >= cut + guard
    if not np.any(train) or not np.any(test):
        raise ValueError(f"fraction={fraction} with guard={guard} s leaves a part without samples")
    if data.full is None:
        return data.select(train), data.select(test)
    ft = data.full.t
    return data.select(train, ft < cut - guard), data.select(test, ft >= cut + guard)


def concatenate(parts: Sequence[IdentificationData]) -> IdentificationData:
    """Stack several records (or segments, or parts) of one model into one data set.

    The equations of every part are fitted together
    (:func:`~robidlib.identification.estimate.identify`); the full-rate data keep their runs apart, so that the held-out
    metric's filter never runs across two records. The time stamps are kept as they are
    (several records may overlap in time); the settings are the first part's.

    Parameters
    ----------
    parts : sequence of ~robidlib.identification.preprocess.IdentificationData
        Of the same model (the same object) and the same decimated rate.

    Returns
    -------
    IdentificationData

    Raises
    ------
    ValueError
        No part, parts of different models or decimated rates.
    TypeError
        A part that is not IdentificationData.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.models import planar_2r
    >>> model = DriveModel(planar_2r())
    >>> t = np.arange(20000) * 2e-4
    >>> q = np.column_stack([np.sin(t), np.cos(2 * t)])
    >>> data = prepare(t, q, np.zeros_like(q), model, Settings(ts=2e-4))
    >>> a, b = split(data, 0.5, guard=0.0)
    >>> both = concatenate([a, b])
    >>> both.n_samples == a.n_samples + b.n_samples, int(both.full.run.max())
    (True, 1)
    """
    if isinstance(parts, IdentificationData) or not isinstance(parts, (list, tuple)):
        raise TypeError(f"parts must be a list of IdentificationData, got {type(parts).__name__}")
    if not parts:
        raise ValueError("parts must hold at least one IdentificationData, got none")
    for k, d in enumerate(parts):
        if not isinstance(d, IdentificationData):
            raise TypeError(f"parts[{k}] must be IdentificationData, got {type(d).__name__}")
    first = parts[0]
    for k, d in enumerate(parts[1:], 1):
        if d.model is not first.model:
            raise ValueError(f"parts[{k}] is data of another model; every part must come from one DriveModel")
        if abs(d.settings.decimated_rate - first.settings.decimated_rate) > 1e-9 * first.settings.decimated_rate:
            raise ValueError(f"parts[{k}] is decimated to {d.settings.decimated_rate:g} Hz, parts[0] to "
                             f"{first.settings.decimated_rate:g} Hz; stack data of one rate")
    cat = lambda name: np.concatenate([getattr(d, name) for d in parts], axis=0)  # noqa: E731
    full = None
    if all(d.full is not None for d in parts):
        offs = np.cumsum([0] + [d.n_samples for d in parts[:-1]])
        run_offs = np.cumsum([0] + [int(d.full.run.max()) + 1 for d in parts[:-1]])
        fs = parts[0].full.fs
        if any(abs(d.full.fs - fs) > 1e-9 * fs for d in parts):
            raise ValueError("the parts' full-rate data have different sampling rates; stack data of one rate")
        fc = lambda name: np.concatenate([getattr(d.full, name) for d in parts], axis=0)  # noqa: E731
        edges = [d.full.edge if d.full.edge is not None else np.zeros(d.full.n_samples, bool) for d in parts]
        full = FullRate(t=fc("t"), q=fc("q"), qd=fc("qd"), qdd=fc("qdd"), tau=fc("tau"),
                        nearest=np.concatenate([d.full.nearest + o for d, o in zip(parts, offs)]),
                        run=np.concatenate([d.full.run + o for d, o in zip(parts, run_offs)]), fs=fs,
                        edge=np.concatenate(edges))
    timings: dict[str, float] = {}
    for d in parts:
        for k, v in d.timings.items():
            timings[k] = timings.get(k, 0.0) + v
    return IdentificationData(t=cat("t"), q=cat("q"), qd=cat("qd"), qdd=cat("qdd"), tau=cat("tau"), Y=cat("Y"),
                              keep=cat("keep"), model=first.model, settings=first.settings, timings=timings,
                              full=full)


def _fold_blocks(data: IdentificationData, k: int, guard: float, runs: Any) -> tuple[np.ndarray, ...]:
    """Block index (0..k-1) of every decimated sample and the samples within ``guard`` of a cut.

    With full-rate data, the blocks are cut in each run's full-rate time range (no setting
    moves them) and the full-rate samples get their own blocks and guard flags too: returns
    ``(block, near, block_full, near_full)`` (the last two None without full-rate data).
    """
    M = data.n_samples
    if runs is None:
        runs_ = np.r_[0, np.cumsum(np.diff(data.t) <= 0)]
    else:
        runs_ = np.asarray(runs)
        if runs_.shape != (M,) or runs_.dtype.kind not in "iu":
            raise ValueError(f"runs must be integer labels of shape ({M},), got {runs_.dtype} {runs_.shape}")
    f = data.full
    block = np.empty(M, dtype=int)
    near_cut = np.zeros(M, dtype=bool)
    bf = nf = None
    if f is not None:
        runs_f = runs_[f.nearest]
        bf = np.empty(f.n_samples, dtype=int)
        nf = np.zeros(f.n_samples, dtype=bool)

    def assign(tt: np.ndarray, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        b = np.clip(np.searchsorted(edges, tt, side="right") - 1, 0, k - 1)
        inner = edges[1:-1]
        n = np.min(np.abs(tt[:, None] - inner[None, :]), axis=1) < guard if inner.size else np.zeros(tt.size, bool)
        return b, n

    for r in np.unique(runs_):
        m = runs_ == r
        if f is not None and np.any(runs_f == r):
            tf = f.t[runs_f == r]
            t0, t1 = tf[0], tf[-1] + 1.0 / f.fs
        else:
            tr = data.t[m]
            t0, t1 = tr[0], tr[-1] + (tr[-1] - tr[0]) / max(tr.size - 1, 1)
        edges = t0 + (t1 - t0) * np.arange(k + 1) / k
        block[m], near_cut[m] = assign(data.t[m], edges)
        if f is not None:
            mf = runs_f == r
            bf[mf], nf[mf] = assign(f.t[mf], edges)
    return block, near_cut, bf, nf


def blocked_folds(data: IdentificationData, k: int = 5, guard: float = 0.1,
                  runs: ArrayLike | None = None) -> list[tuple[IdentificationData, IdentificationData]]:
    """Blocked k-fold cross-validation: ``k`` contiguous blocks in time, each held out once.

    Every record (or segment) is cut into ``k`` blocks of equal duration; fold ``i`` holds
    out block ``i`` of every record and fits on the rest, leaving ``guard`` seconds out on
    both sides of each cut (the decimation filter spreads each sample over its neighbours).
    Blocks, not random samples: neighbouring samples share their noise and filter, and a
    random split would test the model on samples it has nearly seen.

    Parameters
    ----------
    data : ~robidlib.identification.preprocess.IdentificationData
    k : int, default 5
        Number of folds, ``>= 2``.
    guard : float, default 0.1
        Seconds, ``>= 0``.
    runs : array_like of int, shape (M,), optional
        Record or segment label of every decimated sample (blocks are cut within each);
        default: a new run wherever the time stamps go back (``concatenate`` of records).

    Returns
    -------
    list of (train, test)

    Raises
    ------
    ValueError
        ``k < 2``, a negative guard, a fold left without samples.
    TypeError
        ``data`` not IdentificationData, ``k`` not an int.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.models import planar_2r
    >>> model = DriveModel(planar_2r())
    >>> t = np.arange(20000) * 2e-4
    >>> q = np.column_stack([np.sin(t), np.cos(2 * t)])
    >>> data = prepare(t, q, np.zeros_like(q), model, Settings(ts=2e-4))
    >>> folds = blocked_folds(data, 4, guard=0.0)
    >>> [test.n_samples for _, test in folds], sum(tr.n_samples for tr, _ in folds) == 3 * data.n_samples
    ([48, 50, 50, 47], True)
    """
    if not isinstance(data, IdentificationData):
        raise TypeError(f"data must be IdentificationData, got {type(data).__name__}")
    k = _int("k", k, 2)
    if k > data.n_samples:
        raise ValueError(f"k must be at most the number of samples ({data.n_samples}), got {k}")
    guard = check_positive("guard", guard, allow_zero=True)
    block, near_cut, block_f, near_f = _fold_blocks(data, k, guard, runs)
    out = []
    for i in range(k):
        test = (block == i) & ~near_cut
        train = (block != i) & ~near_cut
        if not test.any() or not train.any():
            raise ValueError(f"fold {i + 1} of {k} has no {'held-out' if not test.any() else 'fitting'} sample "
                             f"with guard = {guard} s; use fewer folds or a smaller guard")
        if block_f is None:
            out.append((data.select(train), data.select(test)))
        else:
            out.append((data.select(train, (block_f != i) & ~near_f), data.select(test, (block_f == i) & ~near_f)))
    return out
