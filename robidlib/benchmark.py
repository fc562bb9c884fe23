"""Run every estimator on the same data and compare them: a tidy table, a seeded Monte Carlo.

The comparison follows the protocol of simulation studies in identification
:cite:`gautier2001,hollerbach2016,leboutet2021`:

1. a "real" robot (:func:`perturb_robot`: the CAD model with physically consistent errors)
   follows an excitation trajectory (a Fourier series, optimised once and stored as package
   data, :func:`benchmark_study`); its exact motion and torques form a clean
   :class:`IdentificationData` (:func:`clean_experiment`);
2. :func:`add_measurement_noise` draws noisy measurements from a seeded generator: white
   Gaussian torque noise of standard deviation ``level * rms(tau_j)`` on joint ``j`` (a
   relative noise level, so the absolute noise differs between joints; ``torque_noise="pooled"``
   gives every joint the same standard deviation instead), and white position and velocity
   noise ``sigma_q``, ``sigma_qd``;
3. every method of :data:`METHODS` (or your own) estimates the base parameters from the same
   :class:`IdentificationProblem` (:func:`compare_methods`);
4. each estimate is scored against the truth (:func:`~robidlib.validation.relative_parameter_error`
   over all and over the *essential* parameters, the column-scaled error
   :func:`~robidlib.validation.scaled_parameter_error`, the error in prior standard deviations
   :func:`~robidlib.validation.standardized_error`) and by the relative torque error and the
   agreement index on a *validation* trajectory that took no part in the identification; the
   wall-clock time and the number of iterations are recorded (reported, never ranked: an
   epoch, an ODE step and a filter step are not comparable units);
5. :func:`monte_carlo` repeats 2-4 over noise levels and seeds and :func:`summarize`
   condenses the raw rows into one row per method and noise level.

What each method is given (:data:`METHOD_INPUTS`).  Every method sees the same measurements:
positions and velocities with noise ``sigma_q``, ``sigma_qd``, torques with noise
``sigma_tau``, sampled at ``fs``; the noise standard deviations (a data sheet gives them) and
the prior (the CAD model's base parameters with the standard deviations :func:`prior_std` of
the manufacturing errors, from the same distribution that made the "real" robot).  The
regressor-based methods (LS, WLS, MAP, Adaline, Hopfield) get the motion through the
:class:`MeasurementPipeline` of the problem, as in practice and in BIRDy :cite:`leboutet2021`:
zero-phase low-pass filtering of the measured positions, velocities and (in parallel) torques,
differentiation of the filtered velocities, trimming of the filter's edge transients and
decimation; with ``pipeline=None`` they get the exact motion instead (a bound no experiment
reaches).  The EKF gets the raw measurements at ``dt = 2 / fs`` of the same stretch of the
record (the pipeline's trimmed ends left out) and estimates the motion with its model.  The
on-line variants get the pipeline's samples too, in time order: the zero-phase filter that
made them looked ahead, which a real on-line estimator cannot do.  LS ignores the noise levels and the prior by design; WLS uses the noise levels;
MAP, the budget-limited and the on-line networks and the EKF also use the prior (MAP and the
EKF its covariance, the networks only as their starting point).

Every table is a :class:`ResultTable` (a list of dicts with ``to_markdown``), so no data-frame
library is needed.  The book's benchmark (chapter 9, ``benchmarks/bench_methods.py``) is stored
as package data and read by :func:`load_benchmark`.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from ._validate import (as_array, check_choice, check_fields, check_int, check_names, check_nonnegative,
                        check_positive, check_rng, check_same_robot, check_text)
from .validation import (
    _mass_bias,
    agreement_index,
    base_to_standard,
    relative_parameter_error,
    relative_torque_error,
)

__all__ = [
    "ResultTable",
    "ColumnError",
    "IdentificationData",
    "MeasurementPipeline",
    "IdentificationProblem",
    "FitResult",
    "perturb_robot",
    "prior_std",
    "clean_experiment",
    "add_measurement_noise",
    "fit_ls",
    "fit_wls",
    "fit_wls_estimated",
    "fit_map",
    "fit_adaline",
    "fit_adaline_budget",
    "fit_adaline_online",
    "fit_hopfield",
    "fit_hopfield_budget",
    "fit_hopfield_online",
    "fit_ekf",
    "METHODS",
    "METHOD_INPUTS",
    "compare_methods",
    "noise_rng",
    "monte_carlo",
    "summarize",
    "Study",
    "make_study",
    "BENCHMARK_EXCITATIONS",
    "benchmark_study",
    "load_benchmark",
]


# ------------------------------------------------------------------------------ table
def _fmt(x: Any, digits: int) -> str:
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, (float, np.floating)):
        if math.isnan(x):
            return "-"
        return f"{x:.{digits}g}"
    return str(x)


class ColumnError(KeyError, ValueError):
    """An unknown column of a :class:`ResultTable` (a ``KeyError`` and a ``ValueError``)."""

    def __str__(self) -> str:                  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


def _column(arg: str, name: Any, columns: tuple[str, ...]) -> None:
    if name not in columns:
        raise ColumnError(f"{arg}: unknown column {name!r}; expected one of {columns}")


def _scalar(x: Any) -> Any:
    """numpy scalars to Python scalars (for JSON)."""
    if isinstance(x, np.generic):
        return x.item()
    return x


def _read_only(self: Any, *args: Any, **kwargs: Any) -> None:
    raise TypeError(f"a ResultTable is read-only: copy it ({type(self).__mro__[1].__name__}(...)) to change "
                    "it, or build a new table (where, summarize)")


class _Row(dict):
    """A row of a :class:`ResultTable`: a dict that refuses changes."""

    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = _read_only                  # type: ignore[assignment]
    clear = pop = popitem = setdefault = update = _read_only            # type: ignore[assignment]

    def __reduce__(self) -> tuple:                                      # copy, deepcopy, pickle
        return (type(self), (dict(self),))


class _Rows(list):
    """The rows of a :class:`ResultTable`: a list that refuses changes."""

    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _read_only      # type: ignore[assignment]
    append = extend = insert = remove = pop = clear = sort = reverse = _read_only  # type: ignore[assignment]

    def __reduce__(self) -> tuple:
        return (type(self), (list(self),))


@dataclass(frozen=True)
class ResultTable:
    """A tidy table: a list of rows (dicts of scalars), one observation per row.

    A table does not change once made (its rows and their dicts are read-only; ``where``
    and ``summarize`` make new tables), so its columns are listed once and each column is
    read, and indexed for ``where``, at most once.

    Parameters
    ----------
    rows : list of dict
        The rows; keys are column names, values are numbers or strings.
    meta : dict, optional
        Anything describing how the table was made (settings, versions).

    Examples
    --------
    >>> from robidlib.benchmark import ResultTable
    >>> t = ResultTable([{"method": "LS", "err": 1.23456}, {"method": "WLS", "err": 0.5}])
    >>> len(t), t.columns, t.column("err").tolist()
    (2, ('method', 'err'), [1.23456, 0.5])
    >>> print(t.to_markdown(digits=2))
    | method | err |
    |---|---:|
    | LS | 1.2 |
    | WLS | 0.5 |
    >>> len(t.where(method="WLS"))
    1

    Raises
    ------
    TypeError
        ``rows`` not a list of dicts, ``meta`` not a dict.
    """

    rows: list[dict[str, Any]]
    meta: dict[str, Any] = field(default_factory=dict)
    # built once from the rows: the column names, and per column (on first use) its values,
    # its array for column() and an index value -> row numbers for where()
    _columns: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _values: dict[str, list[Any]] = field(init=False, repr=False, compare=False)
    _arrays: dict[str, np.ndarray] = field(init=False, repr=False, compare=False)
    _index: dict[str, dict[Any, list[int]] | None] = field(init=False, repr=False, compare=False)

    __hash__ = None                                  # type: ignore[assignment]  # as a mutable dataclass

    def __post_init__(self) -> None:
        if not isinstance(self.rows, list) or not all(isinstance(r, dict) for r in self.rows):
            raise TypeError(f"rows must be a list of dicts, got {type(self.rows).__name__}")
        rows = _Rows(r if type(r) is _Row else _Row({str(k): _scalar(v) for k, v in r.items()}) for r in self.rows)
        seen: dict[str, None] = {}
        for r in rows:
            for k in r:
                seen.setdefault(k, None)
        object.__setattr__(self, "rows", rows)
        object.__setattr__(self, "_columns", tuple(seen))
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "_arrays", {})
        object.__setattr__(self, "_index", {})
        if not isinstance(self.meta, dict):
            raise TypeError(f"meta must be a dict, got {type(self.meta).__name__}")

    def _column_values(self, name: str) -> list[Any]:
        """The values of one column, ``None`` where a row lacks it (as ``row.get(name)``)."""
        values = self._values.get(name)
        if values is None:
            values = self._values[name] = [r.get(name) for r in self.rows]
        return values

    def _rows_equal_to(self, name: str, value: Any) -> Iterable[int]:
        """Numbers of the rows whose column ``name`` may equal ``value`` (a superset of the rows
        with ``row.get(name) == value``, in order); every row if the column cannot be indexed."""
        if name not in self._index:
            index: dict[Any, list[int]] | None = {}
            try:
                for i, v in enumerate(self._column_values(name)):
                    if v == v:                       # NaN equals nothing: never a match
                        index.setdefault(v, []).append(i)
            except (TypeError, ValueError):          # an unhashable value: scan this column
                index = None
            self._index[name] = index
        index = self._index[name]
        if index is None:
            return range(len(self.rows))
        try:
            return index.get(value, ())
        except TypeError:                            # an unhashable value asked for
            return range(len(self.rows))

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    def __getitem__(self, i: int) -> dict[str, Any]:
        return self.rows[i]

    @property
    def columns(self) -> tuple[str, ...]:
        """Column names in order of first appearance."""
        return self._columns

    def column(self, name: str) -> np.ndarray:
        """One column as an array (``nan`` where a row lacks it, for numeric columns).

        Raises
        ------
        ColumnError
            If no row has the column (a ``KeyError`` and a
            ``ValueError``).
        """
        _column("name", name, self.columns)
        array = self._arrays.get(name)
        if array is None:
            nan = float("nan")
            values = [nan if v is None and name not in r else v for v, r in zip(self._column_values(name), self.rows)]
            try:
                array = np.array(values, dtype=float)
            except (TypeError, ValueError):
                array = np.array(values, dtype=object)
            self._arrays[name] = array
        return array.copy()                          # the caller's to change

    def where(self, **conditions: Any) -> "ResultTable":
        """The rows whose columns equal the given values (``where(method="LS", level=0.02)``).

        Raises
        ------
        ColumnError
            If a condition names an unknown column (a ``KeyError`` and a
            ``ValueError``).
        """
        for k in conditions:
            _column("where", k, self.columns)
        candidates: Iterable[int] = range(len(self.rows))
        for k, v in conditions.items():              # the first condition narrows the rows
            candidates = self._rows_equal_to(k, v)
            break
        rows = self.rows
        keep = [rows[i] for i in candidates if all(rows[i].get(k) == v for k, v in conditions.items())]
        return ResultTable(keep, dict(self.meta))

    def to_markdown(self, columns: Sequence[str] | None = None, digits: int = 3) -> str:
        """A markdown (pipe) table; numbers with ``digits`` significant digits, ``nan`` as ``-``.

        Raises
        ------
        ColumnError
            If ``columns`` names an unknown column (a ``KeyError`` and a
            ``ValueError``).
        """
        cols = self.columns if columns is None else check_names("columns", columns)
        for c in cols:
            _column("columns", c, self.columns)
        digits = check_int("digits", digits, 1, 17)
        numeric = [all(isinstance(r.get(c), (int, float)) or r.get(c) is None for r in self.rows) for c in cols]
        lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---:" if num else "---" for num in numeric) + "|"]
        for r in self.rows:
            lines.append("| " + " | ".join(_fmt(r.get(c, float("nan")), digits) for c in cols) + " |")
        return "\n".join(lines)

    def to_json(self, columnar: bool = False, indent: int | None = 1) -> str:
        """JSON text ``{"meta": ..., "rows": [...]}`` (NaN written as null).

        ``columnar=True`` writes ``{"meta": ..., "columns": {name: [values, ...]}}`` instead: one
        list per column (``null`` where a row lacks it), several times smaller for long tables.
        :meth:`from_json` reads both. ``indent``: spaces per level (0 to 16), None for one line.
        """
        if not isinstance(columnar, (bool, np.bool_)):
            raise TypeError(f"columnar must be True or False, got {columnar!r}")
        if indent is not None:
            indent = check_int("indent", indent, 0, 16)

        def clean(v: Any) -> Any:
            if isinstance(v, float) and not math.isfinite(v):
                return None
            return v

        if columnar:
            body: Any = {c: [clean(r.get(c)) for r in self.rows] for c in self.columns}
            doc = {"meta": self.meta, "columns": body, "n_rows": len(self.rows)}
        else:
            doc = {"meta": self.meta, "rows": [{k: clean(v) for k, v in r.items()} for r in self.rows]}
        return json.dumps(doc, indent=indent, separators=None if indent else (",", ":"))

    @classmethod
    def from_json(cls, text: str) -> "ResultTable":
        """Inverse of :meth:`to_json`, row-wise or columnar (null read back as NaN).

        Raises
        ------
        ValueError
            If the text is not a JSON object with a ``rows`` list or a ``columns`` mapping of
            equally long lists.

        Examples
        --------
        >>> t = ResultTable([{"method": "LS", "err": 1.5}, {"method": "WLS", "err": float("nan")}])
        >>> back = ResultTable.from_json(t.to_json(columnar=True))
        >>> back.column("method").tolist(), back[0]["err"]
        (['LS', 'WLS'], 1.5)
        """
        check_text("text", text)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"text must be JSON written by ResultTable.to_json, got invalid JSON: {exc}") from None
        if isinstance(data, dict) and isinstance(data.get("columns"), dict):
            cols = data["columns"]
            lengths = {len(v) for v in cols.values() if isinstance(v, list)}
            if len(lengths) > 1 or not all(isinstance(v, list) for v in cols.values()):
                raise ValueError("the 'columns' of a columnar table must be lists of the same length")
            n = lengths.pop() if lengths else 0
            rows = [{k: (float("nan") if v[i] is None else v[i]) for k, v in cols.items()} for i in range(n)]
            return cls(rows, dict(data.get("meta", {})))
        if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
            raise ValueError("the JSON text must be an object with a 'rows' list (written by ResultTable.to_json)")
        rows = [{k: (float("nan") if v is None else v) for k, v in r.items()} for r in data["rows"]]
        return cls(rows, dict(data.get("meta", {})))


# ------------------------------------------------------------------------------- data
@dataclass(frozen=True, eq=False)
class IdentificationData:
    """One experiment, uniformly sampled.

    Attributes
    ----------
    t : numpy.ndarray, shape (N,)
        Sample times, s.
    q, qd, qdd : numpy.ndarray, shape (N, n)
        The motion given to the regressor-based estimators.
    tau : numpy.ndarray, shape (N, n)
        Measured joint torques (N m) and forces (N).
    q_meas, qd_meas : numpy.ndarray, shape (N, n)
        Measured positions and velocities (used by the EKF).
    sigma_tau, sigma_q, sigma_qd : numpy.ndarray, shape (n,)
        Standard deviations of the measurement noise (zeros for clean data); an
        experimenter knows them from the sensors' data sheets.
    tau_true : numpy.ndarray, shape (N, n)
        The noise-free torques (known in a simulation study only).
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    q_meas: np.ndarray
    qd_meas: np.ndarray
    sigma_tau: np.ndarray
    sigma_q: np.ndarray
    sigma_qd: np.ndarray
    tau_true: np.ndarray

    def __post_init__(self) -> None:
        j = ("N", "n")
        check_fields(self, t=("N",), q=j, qd=j, qdd=j, tau=j, q_meas=j, qd_meas=j, tau_true=j,
                     sigma_tau=("n",), sigma_q=("n",), sigma_qd=("n",))
        t = self.t
        if t.size < 3:
            raise ValueError(f"t must hold at least 3 samples, got {t.size}")
        for name in ("sigma_tau", "sigma_q", "sigma_qd"):
            if np.any(getattr(self, name) < 0):
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name).tolist()}")
        dt = np.diff(t)
        if np.any(dt <= 0) or not np.allclose(dt, dt.mean(), rtol=1e-6, atol=0.0):
            raise ValueError("t must be uniformly spaced and increasing")

    @property
    def n_joints(self) -> int:
        """Number of joints ``n``."""
        return int(self.q.shape[1])

    @property
    def dt(self) -> float:
        """Sampling period, s."""
        return float(self.t[1] - self.t[0])


@dataclass(frozen=True)
class MeasurementPipeline:
    """How the regressor-based estimators get the motion from measured signals.

    The measured positions and velocities and the measured torques pass through the *same*
    zero-phase Butterworth low-pass filter (:func:`robidlib.signals.lowpass`, ``cutoff`` Hz,
    ``order``); the accelerations are the central differences of the filtered velocities
    (:func:`robidlib.signals.differentiate`); ``trim`` seconds are dropped at both ends, where
    the forward-backward filter has edge transients; every ``factor``-th sample is kept
    (decimation: the filter has already removed what would alias).  Filtering the torques
    with the motion ("parallel filtering" :cite:`khalil2002`) keeps the pair consistent; the
    torque noise left in ``y`` has the variance ``noise_gain(fs)`` times the raw one.

    Parameters
    ----------
    cutoff : float, default 5.0
        Cut-off frequency in Hz (> 0, below the Nyquist frequency of the data).
    factor : int, default 2
        Decimation factor (>= 1).
    trim : float, default 0.5
        Seconds dropped at each end (>= 0).
    order : int, default 4
        Butterworth order (>= 1).

    Raises
    ------
    ValueError
        On a non-positive cut-off, a factor or order < 1, a negative trim.
    TypeError
        If ``factor`` or ``order`` is not an int.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.models import planar_2r
    >>> from robidlib.trajectories import random_fourier
    >>> arm = planar_2r()
    >>> ft = random_fourier(arm, 2 * np.pi * 0.5, 3, rng=2)
    >>> clean = clean_experiment(arm, ft.evaluate(np.arange(0.0, 4.0, 0.01)))
    >>> t, q, qd, qdd, tau = MeasurementPipeline(cutoff=5.0).apply(clean)
    >>> t.size, bool(np.abs(qdd - clean.qdd[50:-50:2]).max() < 1e-2 * np.abs(clean.qdd).max())
    (150, True)
    >>> round(MeasurementPipeline(cutoff=5.0).noise_gain(100.0), 3)   # about 2 cutoff / fs
    0.09
    """

    cutoff: float = 5.0
    factor: int = 2
    trim: float = 0.5
    order: int = 4

    def __post_init__(self) -> None:
        object.__setattr__(self, "cutoff", check_positive("cutoff", self.cutoff))
        object.__setattr__(self, "trim", check_nonnegative("trim", self.trim))
        from .signals import MAX_ORDER

        # decimation by more than a million samples, or a filter order the filter design refuses
        for name, top in (("factor", 10**6), ("order", MAX_ORDER)):
            object.__setattr__(self, name, check_int(name, getattr(self, name), 1, top))

    def noise_gain(self, fs: float) -> float:
        """Variance of white noise of unit variance after the filter (its impulse response's energy)."""
        from .signals import lowpass

        fs = check_positive("fs", fs)
        m = 40 * int(math.ceil(fs / self.cutoff)) + 1
        impulse = np.zeros(2 * m + 1)
        impulse[m] = 1.0
        return float(np.sum(lowpass(impulse, self.cutoff, fs, order=self.order) ** 2))

    def apply(self, data: "IdentificationData") -> tuple[np.ndarray, ...]:
        """``(t, q, qd, qdd, tau)`` of the measured signals of ``data`` after the pipeline.

        Raises
        ------
        ValueError
            If the cut-off is not below the Nyquist frequency of the data or the trimmed,
            decimated record holds fewer than 3 samples.
        TypeError
            If ``data`` is not an IdentificationData.
        """
        from .signals import differentiate, lowpass

        if not isinstance(data, IdentificationData):
            raise TypeError(f"data must be an IdentificationData, got {type(data).__name__}")
        fs = 1.0 / data.dt
        q = lowpass(data.q_meas, self.cutoff, fs, order=self.order)
        qd = lowpass(data.qd_meas, self.cutoff, fs, order=self.order)
        tau = lowpass(data.tau, self.cutoff, fs, order=self.order)
        qdd = differentiate(qd, data.dt)
        k = int(round(self.trim * fs))
        keep = slice(k, data.t.size - k, self.factor)
        t = data.t[keep]
        if t.size < 3:
            raise ValueError(
                f"the pipeline keeps {t.size} samples of {data.t.size} (trim {self.trim} s at each end, "
                f"factor {self.factor}); give a longer record or a shorter trim"
            )
        return t, q[keep], qd[keep], qdd[keep], tau[keep]


@dataclass(frozen=True, eq=False)
class IdentificationProblem:
    """What every estimator receives: robot kinematics, base parameters, data and a prior.

    Attributes
    ----------
    robot : SerialRobot
        Kinematics and gravity (its inertial parameters are *not* used by the estimators).
    base : BaseParameters
        The base parameters to estimate (QR or SVD, without friction columns).
    data : IdentificationData
        The (noisy) identification experiment.
    prior : numpy.ndarray, shape (r,)
        Prior base parameters (e.g. of the CAD model): the starting point of the iterative
        estimators.
    prior_std : numpy.ndarray, shape (r,), optional
        Standard deviations of the prior (e.g. from manufacturing tolerances, :func:`prior_std`);
        used by the EKF's initial covariance.
    options : dict
        Per-method settings, e.g. ``{"adaline": {"tol": 1e-9}}`` (see each ``fit_*``).
    pipeline : MeasurementPipeline, optional
        How the regressor-based methods get the motion from the measurements; ``None``
        (default) gives them the exact motion ``data.q, data.qd, data.qdd`` and the raw
        torques.

    The stacked base regressor ``W`` and torque vector ``y`` of the data (after the pipeline)
    are computed once, on first use, and shared by the methods (``problem.W``,
    ``problem.y``); so are ``problem.column_scale``, the RMS of each column of ``W``, and
    ``problem.sigma_tau``, the standard deviation of the torque noise left in ``y``.

    Raises
    ------
    TypeError
        Fields of the wrong type (``options`` not a mapping of mappings...).
    ValueError
        ``base`` not of ``robot`` (another joint count or structure), data of another joint
        count, vectors of the wrong length, ``prior_std`` not > 0, ``options`` naming an
        unknown method.
    """

    robot: Any
    base: Any
    data: IdentificationData
    prior: np.ndarray
    prior_std: np.ndarray | None = None
    options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    pipeline: MeasurementPipeline | None = None

    def __post_init__(self) -> None:
        if self.pipeline is not None and not isinstance(self.pipeline, MeasurementPipeline):
            raise TypeError(f"pipeline must be a MeasurementPipeline or None, got {type(self.pipeline).__name__}")
        if not hasattr(self.robot, "param_names") or not hasattr(self.robot, "n"):
            raise TypeError(f"robot must be a SerialRobot, got {type(self.robot).__name__}")
        if not hasattr(self.base, "reduce") or not hasattr(self.base, "rank"):
            raise TypeError(f"base must be a BaseParameters, got {type(self.base).__name__}")
        if tuple(self.base.names) != tuple(self.robot.param_names):
            raise ValueError(
                "base must be computed for this robot's rigid-body parameters (base_parameters(robot), "
                f"without friction): got {self.base.n_params} parameters named {tuple(self.base.names)[:2]}..."
            )
        check_same_robot("base", self.base, self.robot)
        if not isinstance(self.data, IdentificationData):
            raise TypeError(f"data must be an IdentificationData, got {type(self.data).__name__}")
        if self.data.n_joints != self.robot.n:
            raise ValueError(f"data has {self.data.n_joints} joints but the robot has {self.robot.n}")
        object.__setattr__(self, "prior", as_array("prior", self.prior, shape=(self.base.rank,)).copy())
        if self.prior_std is not None:
            sd = as_array("prior_std", self.prior_std, shape=(self.base.rank,)).copy()
            if np.any(sd <= 0):
                raise ValueError(f"prior_std must be > 0 (one standard deviation per base parameter), got {sd.tolist()}")
            object.__setattr__(self, "prior_std", sd)
        if not isinstance(self.options, Mapping):
            raise TypeError(f"options must be a mapping of method name to settings, got {type(self.options).__name__}")
        for key, value in self.options.items():
            if key not in _OPTION_GROUPS:
                raise ValueError(f"options names an unknown method {key!r}; expected some of {', '.join(_OPTION_GROUPS)}")
            if not isinstance(value, Mapping):
                raise TypeError(f"options[{key!r}] must be a mapping of settings, got {type(value).__name__}")

    @cached_property
    def _system(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        from .regressor import regressor, stack

        d = self.data
        if self.pipeline is None:
            t, q, qd, qdd, tau = d.t, d.q, d.qd, d.qdd, d.tau
        else:
            t, q, qd, qdd, tau = self.pipeline.apply(d)
        return (*stack(self.base.reduce(regressor(self.robot, q, qd, qdd)), tau), t)

    @property
    def W(self) -> np.ndarray:
        """Stacked base regressor, shape ``(N n, r)`` (sample-major)."""
        return self._system[0]

    @property
    def y(self) -> np.ndarray:
        """Stacked measured torques, shape ``(N n,)``."""
        return self._system[1]

    @property
    def t(self) -> np.ndarray:
        """Sample times of the rows of ``W`` (after the pipeline), shape ``(N,)``."""
        return self._system[2]

    @cached_property
    def column_scale(self) -> np.ndarray:
        """RMS of each column of ``W`` (zero columns get 1), shape ``(r,)``."""
        s = np.sqrt(np.mean(self.W**2, axis=0))
        return np.where(s > 0, s, 1.0)

    @cached_property
    def sigma_tau(self) -> np.ndarray:
        """Standard deviation of the torque noise in ``y``, per joint, shape ``(n,)``.

        ``data.sigma_tau`` (the data sheet's values), times the square root of the
        pipeline's :meth:`~MeasurementPipeline.noise_gain` when there is a pipeline.
        """
        if self.pipeline is None:
            return self.data.sigma_tau.copy()
        return self.data.sigma_tau * math.sqrt(self.pipeline.noise_gain(1.0 / self.data.dt))

    def weighted(self) -> tuple[np.ndarray, np.ndarray]:
        """``W`` and ``y`` with the rows of joint ``j`` divided by ``sigma_tau[j]`` (whitened).

        Raises
        ------
        ValueError
            If a joint's noise standard deviation is zero (noise-free data: nothing to weigh by).
        """
        sig = self.sigma_tau
        if np.any(sig <= 0):
            raise ValueError(
                f"weighting needs the torque noise of every joint, got sigma_tau = {sig.tolist()} "
                "(noise-free data); add noise with add_measurement_noise or use an unweighted method"
            )
        w = np.tile(1.0 / sig, self.W.shape[0] // sig.size)
        return self.W * w[:, None], self.y * w

    def option(self, method: str, key: str, default: Any) -> Any:
        """Setting ``key`` of ``method`` from :attr:`options`, or ``default``."""
        check_text("method", method)
        check_text("key", key)
        return dict(self.options.get(method, {})).get(key, default)


@dataclass(frozen=True)
class FitResult:
    """What an estimator function returns.

    Attributes
    ----------
    params : numpy.ndarray, shape (r,)
        Estimated base parameters.
    iterations : int
        Epochs (Adaline), solver steps (Hopfield), filter steps (EKF), 1 for a direct solve.
    info : dict
        Anything else worth keeping.
    """

    params: np.ndarray
    iterations: int
    info: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_fields(self, params=(None,))
        if self.params.size == 0:
            raise ValueError("params must hold at least one estimated parameter, got shape (0,)")
        object.__setattr__(self, "iterations", check_int("iterations", self.iterations, 0))
        if not isinstance(self.info, dict):
            raise TypeError(f"info must be a dict, got {type(self.info).__name__}")


# ---------------------------------------------------------------------- experiments
def perturb_robot(
    robot: Any,
    rng: np.random.Generator | int,
    mass: float = 0.1,
    com: float = 0.01,
    inertia: float = 0.1,
    angle: float = 0.1,
) -> Any:
    """A "real" robot: the CAD model with random, physically consistent parameter errors.

    For every link: the mass is multiplied by ``1 + U(-mass, mass)``, each coordinate of the
    centre of mass is shifted by ``U(-com, com)`` m, and the inertia tensor about the centre
    of mass is scaled by ``1 + U(-inertia, inertia)`` and turned by a random rotation of up
    to ``angle`` rad (this creates products of inertia).  Scaling and rotating a valid
    inertia tensor keeps it valid, so the result is physically consistent when the input is.
    Kinematics, friction, gravity and limits are unchanged.

    Parameters
    ----------
    robot : SerialRobot
    rng : numpy.random.Generator or int
        Seeded generator (or seed).
    mass, com, inertia, angle : float
        Sizes of the errors (>= 0; ``mass`` and ``inertia`` < 1).

    Returns
    -------
    SerialRobot

    Raises
    ------
    ValueError
        On negative sizes, ``mass`` or ``inertia`` >= 1, or a robot with a massless link.
    TypeError
        If ``rng`` is not a Generator or an int.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.models import planar_2r
    >>> from robidlib.params import is_physically_consistent
    >>> cad = planar_2r()
    >>> real = perturb_robot(cad, rng=0)
    >>> bool(is_physically_consistent(real.params)), bool(np.allclose(real.params, cad.params))
    (True, False)
    """
    from scipy.spatial.transform import Rotation

    from .params import link_params, split_link_params

    _check_robot("robot", robot)
    gen = check_rng(rng)
    sizes = {k: check_nonnegative(k, v) for k, v in (("mass", mass), ("com", com), ("inertia", inertia), ("angle", angle))}
    for k in ("mass", "inertia"):
        if sizes[k] >= 1:
            raise ValueError(f"{k} must be < 1 (a relative error), got {sizes[k]}")
    m, c, Ic = split_link_params(robot.params, about="com")
    if np.any(m <= 0):
        raise ValueError(f"every link must have a positive mass, got {m.tolist()}")
    n = robot.n
    m2 = m * (1.0 + gen.uniform(-sizes["mass"], sizes["mass"], n))
    c2 = c + gen.uniform(-sizes["com"], sizes["com"], (n, 3))
    rotvec = gen.normal(size=(n, 3))
    rotvec *= (gen.uniform(0.0, sizes["angle"], n) / np.maximum(np.linalg.norm(rotvec, axis=1), 1e-300))[:, None]
    R = Rotation.from_rotvec(rotvec).as_matrix()
    I2 = (1.0 + gen.uniform(-sizes["inertia"], sizes["inertia"], n))[:, None, None] * (R @ Ic @ np.swapaxes(R, 1, 2))
    pi = link_params(m2, c2, 0.5 * (I2 + np.swapaxes(I2, 1, 2)), about="com").ravel()
    return robot.with_params(pi)


def prior_std(
    robot: Any,
    base: Any,
    rng: np.random.Generator | int,
    n_samples: int = 200,
    **sizes: float,
) -> np.ndarray:
    """Standard deviations of the base parameters over random CAD errors (:func:`perturb_robot`).

    The spread of ``base.beta(pi)`` over ``n_samples`` robots drawn by
    :func:`perturb_robot` with the given error ``sizes``: the prior uncertainty of the base
    parameters implied by the manufacturing tolerances of the links.

    Parameters
    ----------
    robot : SerialRobot
        The CAD model.
    base : BaseParameters
    rng : numpy.random.Generator or int
    n_samples : int, default 200
        Number of random robots (>= 2).
    **sizes : float
        ``mass``, ``com``, ``inertia``, ``angle`` as in :func:`perturb_robot`.

    Returns
    -------
    numpy.ndarray, shape (r,)
        Sample standard deviations (``ddof = 1``); a parameter that no error can change (a
        spread at round-off level, below ``100 eps max|beta|``) gets the smallest value of the
        others (a standard deviation must be > 0).

    Raises
    ------
    ValueError
        If ``n_samples < 2``, a size is invalid, or the sizes change no base parameter beyond
        round-off.

    Examples
    --------
    >>> from robidlib.base import base_parameters
    >>> from robidlib.models import planar_2r
    >>> cad = planar_2r()
    >>> sd = prior_std(cad, base_parameters(cad, rng=0), rng=0, n_samples=50)
    >>> sd.shape, bool((sd > 0).all())
    ((6,), True)
    """
    _check_robot("robot", robot)
    _check_base("base", base)
    gen = check_rng(rng)
    if isinstance(n_samples, (bool, np.bool_)) or not isinstance(n_samples, (int, np.integer)) or not 2 <= n_samples <= 10**6:
        raise ValueError(f"n_samples must be an integer from 2 to 1e6, got {n_samples!r}")
    B = np.array([base.beta(perturb_robot(robot, gen, **sizes).params) for _ in range(int(n_samples))])
    sd = B.std(axis=0, ddof=1)
    # a spread at the round-off level of beta is no spread: the perturbation did not change it
    floor = 100 * np.finfo(float).eps * max(float(np.abs(B).max()), np.finfo(float).tiny)
    positive = sd[sd > floor]
    if positive.size == 0:
        raise ValueError(f"the perturbation sizes {sizes or 'given'} change no base parameter (their spread is "
                         "round-off); expected a non-zero mass, com, inertia or angle")
    return np.where(sd > floor, sd, positive.min())


def clean_experiment(robot: Any, trajectory: Any) -> IdentificationData:
    """Noise-free data: the trajectory and the robot's exact torques (inverse dynamics, friction included).

    Parameters
    ----------
    robot : SerialRobot
        The "real" robot.
    trajectory : Trajectory
        Uniformly sampled motion.

    Returns
    -------
    IdentificationData
        Measurements equal to the truth, noise standard deviations zero.

    Raises
    ------
    ValueError
        If the trajectory does not fit the robot or is not uniformly sampled.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.models import planar_2r
    >>> from robidlib.trajectories import quintic
    >>> d = clean_experiment(planar_2r(), quintic(np.linspace(0, 1, 11), [0, 0], [1, 1], T=1.0))
    >>> d.tau.shape, float(d.sigma_tau.max())
    ((11, 2), 0.0)
    """
    from .dynamics import inverse_dynamics

    _check_robot("robot", robot)
    if not all(hasattr(trajectory, k) for k in ("t", "q", "qd", "qdd")):
        raise TypeError(f"trajectory must be a Trajectory (t, q, qd, qdd), got {type(trajectory).__name__}")
    t = as_array("trajectory.t", trajectory.t, ndim=1)
    q, qd, qdd = (as_array(k, getattr(trajectory, k), ndim=2) for k in ("q", "qd", "qdd"))
    tau = inverse_dynamics(robot, q, qd, qdd)
    z = np.zeros(robot.n)
    return IdentificationData(t, q, qd, qdd, tau, q.copy(), qd.copy(), z, z, z, tau.copy())


def add_measurement_noise(
    data: IdentificationData,
    level: float,
    rng: np.random.Generator | int,
    sigma_q: float | Sequence[float] = 1e-4,
    sigma_qd: float | Sequence[float] = 1e-3,
    torque_noise: str = "joint",
) -> IdentificationData:
    """Noisy measurements of clean data.

    Torques: white Gaussian noise.  With ``torque_noise="joint"`` its standard deviation on
    joint ``j`` is ``level * rms(tau_true_j)`` (a relative noise level: joints with large
    torques get large absolute noise, a heteroscedastic model); with ``"pooled"`` every joint
    gets the same ``level * sqrt(mean_j rms(tau_true_j)^2)`` (homoscedastic, the same total
    noise power).  Positions and velocities: white Gaussian noise of standard deviations
    ``sigma_q`` (rad or m) and ``sigma_qd`` (rad/s or m/s).  The exact motion ``q, qd, qdd``
    is kept beside the measurements (see :class:`IdentificationProblem`'s ``pipeline``).
    The draws (torques, then positions, then velocities) do not depend on ``torque_noise``:
    both models scale the same standard normal numbers.

    Parameters
    ----------
    data : IdentificationData
        Clean data (from :func:`clean_experiment`).
    level : float
        Relative torque noise level, ``>= 0`` (0.02 = 2 % of each joint's RMS torque).
    rng : numpy.random.Generator or int
    sigma_q, sigma_qd : float or array_like, shape (n,)
        Position and velocity noise, ``> 0`` (the EKF needs some measurement noise).
    torque_noise : {"joint", "pooled"}, default "joint"
        Noise model of the torques (see above).

    Returns
    -------
    IdentificationData

    Raises
    ------
    ValueError
        On a negative level, non-positive or badly shaped ``sigma_q`` / ``sigma_qd``, an
        unknown ``torque_noise``.
    TypeError
        If ``data`` is not an IdentificationData or ``rng`` not a Generator / int.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.models import planar_2r
    >>> from robidlib.trajectories import quintic
    >>> clean = clean_experiment(planar_2r(), quintic(np.linspace(0, 1, 101), [0, 0], [1, 1], T=1.0))
    >>> noisy = add_measurement_noise(clean, 0.05, rng=0)
    >>> bool(np.allclose(noisy.sigma_tau, 0.05 * np.sqrt(np.mean(clean.tau_true**2, axis=0))))
    True
    >>> pooled = add_measurement_noise(clean, 0.05, rng=0, torque_noise="pooled")
    >>> bool(np.isclose(np.sum(pooled.sigma_tau**2), np.sum(noisy.sigma_tau**2)))
    True
    """
    if not isinstance(data, IdentificationData):
        raise TypeError(f"data must be an IdentificationData, got {type(data).__name__}")
    lv = check_nonnegative("level", level)
    gen = check_rng(rng)
    check_choice("torque_noise", torque_noise, ("joint", "pooled"))
    n = data.n_joints
    sq, sqd = (_per_joint(name, v, n) for name, v in (("sigma_q", sigma_q), ("sigma_qd", sigma_qd)))
    if np.any(sq <= 0) or np.any(sqd <= 0):
        raise ValueError(f"sigma_q and sigma_qd must be > 0, got {sq.tolist()} and {sqd.tolist()}")
    rms = np.sqrt(np.mean(data.tau_true**2, axis=0))
    if torque_noise == "pooled":
        rms = np.full(n, np.sqrt(np.mean(rms**2)))
    st = lv * rms
    N = data.t.size
    tau = data.tau_true + st * gen.standard_normal((N, n))
    q_meas = data.q + sq * gen.standard_normal((N, n))
    qd_meas = data.qd + sqd * gen.standard_normal((N, n))
    return IdentificationData(data.t, data.q, data.qd, data.qdd, tau, q_meas, qd_meas, st, sq, sqd, data.tau_true)


def _per_joint(name: str, value: Any, n: int) -> np.ndarray:
    """A scalar or one value per joint, as an ``(n,)`` array."""
    v = as_array(name, value, ndim=(0, 1))
    if v.ndim == 1 and v.shape != (n,):
        raise ValueError(f"{name} must be a scalar or have shape ({n},) (one value per joint), got {v.shape}")
    return np.broadcast_to(v, (n,)).astype(float)


#: The methods that take settings in :attr:`IdentificationProblem.options`.
_OPTION_GROUPS = ("wls", "adaline", "hopfield", "ekf")


def _check_robot(name: str, robot: Any) -> None:
    if not all(hasattr(robot, a) for a in ("n", "params", "param_names")):
        raise TypeError(f"{name} must be a SerialRobot, got {type(robot).__name__}")


def _check_base(name: str, base: Any) -> None:
    if not all(hasattr(base, a) for a in ("rank", "beta", "reduce")):
        raise TypeError(f"{name} must be a BaseParameters (from base_parameters), got {type(base).__name__}")


def _check_problem(problem: Any) -> None:
    if not isinstance(problem, IdentificationProblem):
        raise TypeError(f"problem must be an IdentificationProblem, got {type(problem).__name__}")


# ---------------------------------------------------------------------------- methods
def fit_ls(problem: IdentificationProblem) -> FitResult:
    """Ordinary least squares (:func:`robidlib.estimation.lsq.ols`) on the stacked system (one direct solve).

    Parameters
    ----------
    problem : IdentificationProblem

    Returns
    -------
    FitResult
        ``info["cond"]`` is the condition number of ``W``.

    Raises
    ------
    ValueError
        If ``W`` is rank deficient.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.models import planar_2r
    >>> problem = make_study(planar_2r(), seed=1, duration=2.0, optimize=0, validation_optimize=0).problem(0.01, rng=0)
    >>> fit = fit_ls(problem)
    >>> fit.params.shape, fit.iterations
    ((6,), 1)
    """
    _check_problem(problem)
    from .estimation.lsq import ols

    est = ols(problem.W, problem.y)
    return FitResult(est.params, 1, {"cond": est.cond})


def fit_wls(problem: IdentificationProblem) -> FitResult:
    """Weighted least squares (:func:`~robidlib.estimation.lsq.wls`): rows of joint ``j`` divided by ``sigma_j``.

    The weights are the known noise levels ``problem.sigma_tau`` (the data sheet's, through
    the pipeline) by default -- the same information the MAP estimator and the EKF get.
    Option ``{"wls": {"weights": "estimated"}}`` estimates them from the OLS residuals
    instead (:cite:`gautier2001`; then ``iterations = 2``, two solves).
    ``info["sigma_joint"]`` holds the standard deviations used.

    Parameters
    ----------
    problem : IdentificationProblem

    Returns
    -------
    FitResult

    Raises
    ------
    ValueError
        If ``W`` is rank deficient, the known noise levels are zero (noise-free data: use
        ``weights="estimated"``... which then fails on an exactly zero residual), or the
        option is unknown.

    Examples
    --------
    >>> from robidlib.models import planar_2r
    >>> problem = make_study(planar_2r(), seed=1, duration=3.0, optimize=0,
    ...                      validation_optimize=0).problem(0.01, rng=0)
    >>> fit = fit_wls(problem)
    >>> fit.params.shape, bool(np.allclose(fit.info['sigma_joint'], problem.sigma_tau))
    ((6,), True)
    """
    from .estimation.lsq import wls

    _check_problem(problem)
    how = check_choice("options['wls']['weights']", problem.option("wls", "weights", "known"), ("known", "estimated"))
    if how == "estimated":
        est = wls(problem.W, problem.y, n_joints=problem.robot.n)
        return FitResult(est.params, 2, {"sigma_joint": est.info["sigma_joint"].tolist()})
    sig = problem.sigma_tau
    if np.any(sig <= 0):
        raise ValueError(
            f"fit_wls weighs by the known torque noise, but sigma_tau = {sig.tolist()} (noise-free data); "
            "add noise with add_measurement_noise, or set options={'wls': {'weights': 'estimated'}}"
        )
    est = wls(problem.W, problem.y, n_joints=problem.robot.n, weights=sig)
    return FitResult(est.params, 1, {"sigma_joint": sig.tolist()})


def fit_wls_estimated(problem: IdentificationProblem) -> FitResult:
    """:func:`fit_wls` with the noise levels estimated from the OLS residuals, joint by joint.

    What an experimenter without a data sheet does :cite:`gautier2001` (two solves,
    ``iterations = 2``); the same as ``options={"wls": {"weights": "estimated"}}``.

    Parameters
    ----------
    problem : IdentificationProblem

    Returns
    -------
    FitResult

    Raises
    ------
    ValueError
        If ``W`` is rank deficient or a joint's residual is exactly zero.

    Examples
    --------
    >>> from robidlib.models import planar_2r
    >>> problem = make_study(planar_2r(), seed=1, duration=3.0, optimize=0,
    ...                      validation_optimize=0).problem(0.01, rng=0)
    >>> fit = fit_wls_estimated(problem)
    >>> fit.iterations, len(fit.info["sigma_joint"])
    (2, 2)
    """
    _check_problem(problem)
    from .estimation.lsq import wls

    est = wls(problem.W, problem.y, n_joints=problem.robot.n)
    return FitResult(est.params, 2, {"sigma_joint": est.info["sigma_joint"].tolist()})


def fit_map(problem: IdentificationProblem) -> FitResult:
    """Maximum a posteriori estimate: WLS plus the Gaussian prior ``N(prior, diag(prior_std^2))``.

    The minimiser of ``sum_j ||(y_j - W_j b) / sigma_j||^2 + ||(b - prior) / prior_std||^2``:
    the rows of joint ``j`` are divided by its known noise level ``sigma_j`` (as in
    :func:`fit_wls`) and the prior enters as ``r`` extra rows.  It is ridge regression
    (:func:`~robidlib.estimation.lsq.ridge`, ``lam = 1``, one linear solve) in the
    standardised parameters ``z = (b - prior) / prior_std``.  With a correctly specified prior
    and Gaussian noise it is the Bayes estimate: the static counterpart of the EKF, which gets
    the same prior and noise levels.  ``info["std"]`` holds the posterior standard deviations
    ``sqrt(diag((W_w'W_w + P0^-1)^-1))``.

    Parameters
    ----------
    problem : IdentificationProblem
        With ``prior_std``.

    Returns
    -------
    FitResult

    Raises
    ------
    ValueError
        If the problem has no ``prior_std`` or its noise levels are zero.

    Examples
    --------
    >>> from robidlib.models import planar_2r
    >>> problem = make_study(planar_2r(), seed=1, duration=3.0, optimize=0,
    ...                      validation_optimize=0).problem(0.01, rng=0)
    >>> fit = fit_map(problem)
    >>> wls_fit = fit_wls(problem)
    >>> bool(np.all(np.array(fit.info["std"]) < problem.prior_std))    # data add information
    True
    """
    from .estimation.lsq import ridge

    _check_problem(problem)
    if problem.prior_std is None:
        raise ValueError("fit_map needs problem.prior_std (the standard deviations of the prior, e.g. prior_std(...))")
    Ww, yw = problem.weighted()
    S = problem.prior_std
    A = Ww * S[None, :]
    est = ridge(A, yw - Ww @ problem.prior, lam=1.0)
    post = np.linalg.inv(A.T @ A + np.eye(S.size))
    return FitResult(problem.prior + S * est.params, 1, {"std": (S * np.sqrt(np.diag(post))).tolist()})


def _network_system(problem: IdentificationProblem, weighted: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Regressor (weighted or not) with equilibrated columns ``A = W / D``, its torques, and ``D``."""
    W, y = problem.weighted() if weighted else (problem.W, problem.y)
    D = np.sqrt(np.mean(W**2, axis=0))
    D = np.where(D > 0, D, 1.0)
    return W / D, y, D


def _option_bool(problem: IdentificationProblem, method: str, key: str, default: bool) -> bool:
    v = problem.option(method, key, default)
    if not isinstance(v, (bool, np.bool_)):
        raise TypeError(f"options[{method!r}][{key!r}] must be True or False, got {v!r}")
    return bool(v)


def _option_fraction(problem: IdentificationProblem, method: str, key: str, default: float | None) -> float | None:
    _check_problem(problem)
    v = problem.option(method, key, default)
    return None if v is None else check_positive(f"options[{method!r}][{key!r}]", v)


def _adaline(problem: IdentificationProblem, budget: float | None, online: bool) -> FitResult:
    """The three Adaline variants through :mod:`robidlib.estimation.adaline`'s functions."""
    _check_problem(problem)
    from .estimation.adaline import adaline_batch, adaline_online, max_stable_rate

    weighted = _option_bool(problem, "adaline", "weighted", True)
    A, y, D = _network_system(problem, weighted)
    w0 = problem.prior * D
    if online:
        rate = check_positive("options['adaline']['online_rate']", problem.option("adaline", "online_rate", 0.5))
        n = problem.robot.n
        est = adaline_online(A.reshape(-1, n, A.shape[1]), y.reshape(-1, n), rate=rate, w0=w0)
        iterations, info = A.shape[0] // n, {"converged": False, "weighted": weighted}
    else:
        rate = check_positive("options['adaline']['rate']", problem.option("adaline", "rate", 0.9))
        if budget is None:
            max_epochs = problem.option("adaline", "max_epochs", 50_000)
            tol = check_positive("options['adaline']['tol']", problem.option("adaline", "tol", 1e-10))
            est = adaline_batch(A, y, w0=w0, rate=rate, tol=tol, max_epochs=max_epochs)
        else:
            gamma = rate * max_stable_rate(A)
            lam_min = float(np.linalg.eigvalsh(A.T @ A / A.shape[0])[0])
            epochs = max(1, int(math.ceil(budget / (gamma * lam_min))))
            est = adaline_batch(A, y, w0=w0, rate=rate, epochs=epochs)
        iterations, info = est.info["epochs"], {"converged": bool(est.info["converged"]), "weighted": weighted}
    if not np.all(np.isfinite(est.params)):
        raise RuntimeError("Adaline diverged")
    return FitResult(est.params / D, int(iterations), info)


def fit_adaline(problem: IdentificationProblem) -> FitResult:
    """Batch Adaline (gradient descent on the mean squared error), weighted, run to convergence.

    The rows of joint ``j`` are divided by its known noise level ``sigma_j`` (as in WLS; option
    ``weighted=False`` keeps them: the network then converges to LS), the columns by their RMS
    ``D`` (the weights become ``D beta``); the rate is ``rate * max_stable_rate`` (default 0.9
    of the stable bound); training starts from the prior and stops when an epoch changes the
    weights by less than ``tol`` (relative, default 1e-10) or after ``max_epochs`` (default
    50 000).  Options key ``"adaline"``: ``weighted``, ``rate``, ``tol``, ``max_epochs``
    (and ``online_rate`` for :func:`fit_adaline_online`).  The weighted, budget-limited and
    on-line variants are thin wrappers of one helper, so that another implementation (e.g. of
    :mod:`robidlib.estimation`) plugs in by replacing a wrapper.

    Parameters
    ----------
    problem : IdentificationProblem

    Returns
    -------
    FitResult
        ``iterations`` is the number of epochs.

    Raises
    ------
    RuntimeError
        If the network diverges (a rate above the stable bound).
    ValueError
        If weighting is asked for on noise-free data, or an option is out of range.

    Examples
    --------
    >>> from robidlib.models import planar_2r
    >>> problem = make_study(planar_2r(), seed=1, duration=3.0, optimize=0,
    ...                      validation_optimize=0).problem(0.01, rng=0)
    >>> fit = fit_adaline(problem)
    >>> bool(fit.info['converged']), bool(np.allclose(fit.params, fit_wls(problem).params, rtol=1e-6))
    (True, True)
    """
    _check_problem(problem)
    return _adaline(problem, None, False)


def fit_adaline_budget(problem: IdentificationProblem) -> FitResult:
    """Weighted batch Adaline started at the prior and stopped after a fixed budget.

    The budget is ``budget`` (option, default 0.25) times the slowest time constant of the
    gradient descent, ``1 / (gamma lambda_min)`` epochs with ``lambda_min`` the smallest
    eigenvalue of ``A'A / N``: the well-excited directions of parameter space converge, the
    poorly excited ones move only part of the way (``1 - exp(-0.25)`` = 22 % for the slowest)
    from the prior towards the data.  Early stopping from the prior acts like a prior
    (a ridge penalty) on those directions.  Options as :func:`fit_adaline`, plus ``budget``.

    Parameters
    ----------
    problem : IdentificationProblem

    Returns
    -------
    FitResult

    Raises
    ------
    RuntimeError, ValueError
        As :func:`fit_adaline`.

    Examples
    --------
    >>> from robidlib.models import planar_2r
    >>> problem = make_study(planar_2r(), seed=1, duration=3.0, optimize=0,
    ...                      validation_optimize=0).problem(0.01, rng=0)
    >>> fit = fit_adaline_budget(problem)
    >>> fit.info['converged'], bool(fit.iterations < fit_adaline(problem).iterations)
    (False, True)
    """
    _check_problem(problem)
    return _adaline(problem, _option_fraction(problem, "adaline", "budget", 0.25), False)


def fit_adaline_online(problem: IdentificationProblem) -> FitResult:
    """Weighted on-line Adaline, one pass over the samples in time order, started at the prior.

    The on-line use of the paper: each sample (its ``n`` joint rows) updates the weights once,
    as it arrives, by the normalised block step of
    :func:`robidlib.estimation.adaline.adaline_online` on the weighted, column-equilibrated
    rows, with the rate ``online_rate`` (option, default 0.5; stable below 2).  The estimate is
    the weights after the last sample.  ``iterations`` is the number of updates (samples).

    Parameters
    ----------
    problem : IdentificationProblem

    Returns
    -------
    FitResult

    Raises
    ------
    RuntimeError, ValueError
        As :func:`fit_adaline`.

    Examples
    --------
    >>> from robidlib.models import planar_2r
    >>> problem = make_study(planar_2r(), seed=1, duration=3.0, optimize=0,
    ...                      validation_optimize=0).problem(0.01, rng=0)
    >>> fit = fit_adaline_online(problem)
    >>> fit.iterations == problem.t.size
    True
    """
    return _adaline(problem, None, True)


def _hopfield(problem: IdentificationProblem, budget: float | None, online: bool) -> FitResult:
    _check_problem(problem)
    import warnings

    from .estimation.hopfield import HopfieldEstimator, SaturationWarning

    weighted = _option_bool(problem, "hopfield", "weighted", True)
    A, y, D = _network_system(problem, weighted)
    S0 = problem.prior * D
    margin = check_positive("options['hopfield']['margin']", problem.option("hopfield", "margin", 3.0))
    floor = check_positive("options['hopfield']['floor']", problem.option("hopfield", "floor", 0.3))
    alpha = margin * np.maximum(np.abs(S0), floor * np.sqrt(np.mean(S0**2)))
    beta = float(np.max(alpha))
    tc = HopfieldEstimator(alpha=alpha, beta=beta, check=False).time_constants(A, S0)
    slowest = float(tc[np.isfinite(tc)].max())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SaturationWarning)
        if online:
            n = problem.robot.n
            t = problem.t
            frac = check_positive("options['hopfield']['online_tc']", problem.option("hopfield", "online_tc", 0.3))
            # time constants scale with beta: the slowest one becomes frac * duration
            beta_online = beta * frac * float(t[-1] - t[0]) / slowest
            net = HopfieldEstimator(alpha=alpha, beta=beta_online, check=True)
            net.run_online(A.reshape(-1, n, A.shape[1]), y.reshape(-1, n), t, window=1, S0=S0)
            iterations, info = t.size, {"window": 1, "beta": beta_online}
        else:
            default = 12.0 if budget is None else budget
            horizon = float(problem.option("hopfield", "horizon", default)) * slowest
            net = HopfieldEstimator(alpha=alpha, beta=beta, check=True)
            net.run(A, y, (0.0, horizon), S0=S0)
            iterations, info = int(net.history["t"].size - 1), {"t_final": horizon}
    info["saturated"] = any(issubclass(w.category, SaturationWarning) for w in caught)
    info["weighted"] = weighted
    return FitResult(net.params / D, iterations, info)


def fit_hopfield(problem: IdentificationProblem) -> FitResult:
    """Hopfield network (Abe's form), weighted and column-equilibrated, started at the prior, run to convergence.

    Rows weighted by ``1 / sigma_j`` as in :func:`fit_adaline` (option ``weighted``); states
    are the scaled parameters ``S = D beta``; the amplitude of neuron ``i`` is
    ``alpha_i = margin * max(|S_prior_i|, floor * rms(S_prior))`` (defaults ``margin = 3``,
    ``floor = 0.3``): the prior bounds the feasible box.  ``beta = max(alpha)``, so that the
    largest neuron gain ``alpha_i / beta`` is 1, and the network runs for ``horizon`` (default
    12) times its slowest time constant at the prior (LSODA).  A state that saturates is
    recorded in ``info["saturated"]``.  ``iterations`` is the number of ODE solver steps,
    which an adaptive solver chooses (it differs between machines: report it, never compare
    it exactly).  Options key ``"hopfield"``: ``weighted``, ``margin``, ``floor``,
    ``horizon`` (and ``online_tc`` for :func:`fit_hopfield_online`).

    Parameters
    ----------
    problem : IdentificationProblem

    Returns
    -------
    FitResult

    Raises
    ------
    RuntimeError
        If the ODE solver fails.
    ValueError
        If weighting is asked for on noise-free data, or an option is out of range.

    Examples
    --------
    >>> from robidlib.models import planar_2r
    >>> problem = make_study(planar_2r(), seed=1, duration=3.0, optimize=0,
    ...                      validation_optimize=0).problem(0.01, rng=0)
    >>> fit = fit_hopfield(problem)
    >>> fit.info['saturated'], bool(np.allclose(fit.params, fit_wls(problem).params, rtol=1e-4))
    (False, True)
    """
    _check_problem(problem)
    return _hopfield(problem, None, False)


def fit_hopfield_budget(problem: IdentificationProblem) -> FitResult:
    """The weighted Hopfield network of :func:`fit_hopfield` stopped after ``budget`` slowest time constants.

    ``budget`` (option ``"hopfield"``, default 0.25) times the slowest time constant at the
    prior: the same budget as :func:`fit_adaline_budget`, in the network's own time scale.

    Parameters
    ----------
    problem : IdentificationProblem

    Returns
    -------
    FitResult

    Raises
    ------
    RuntimeError, ValueError
        As :func:`fit_hopfield`.

    Examples
    --------
    >>> from robidlib.models import planar_2r
    >>> problem = make_study(planar_2r(), seed=1, duration=3.0, optimize=0,
    ...                      validation_optimize=0).problem(0.01, rng=0)
    >>> full, short = fit_hopfield(problem), fit_hopfield_budget(problem)
    >>> bool(short.info["t_final"] < full.info["t_final"])
    True
    """
    return _hopfield(problem, _option_fraction(problem, "hopfield", "budget", 0.25), False)


def fit_hopfield_online(problem: IdentificationProblem) -> FitResult:
    """The paper's on-line Hopfield network: ``W(t) = -Phi(t)'Phi(t)``, ``I(t) = Phi(t)'tau(t)`` of the current sample.

    The instantaneous form (:meth:`~robidlib.estimation.HopfieldEstimator.run_online` with
    ``window=1``) on the weighted, column-equilibrated rows, started at the prior, in real
    time: sample ``k`` drives the network from ``t_k`` to ``t_(k+1)``.  Its gain is set so
    that the slowest time constant of the time-averaged network at the prior is ``online_tc``
    (option, default 0.3) times the duration of the experiment: a faster network follows each
    sample and jitters, a slower one does not get away from the prior.  The samples are those
    of the batch methods, in time order (a real on-line system would filter causally;
    zero-phase filtering is an off-line operation).  It converges only if the
    excitation is persistent over intervals (the paper's eq. 20), and the instantaneous
    gradient makes it jitter: it is an on-line estimator, not a least-squares solver.
    ``iterations`` is the number of samples.

    Parameters
    ----------
    problem : IdentificationProblem

    Returns
    -------
    FitResult

    Raises
    ------
    RuntimeError, ValueError
        As :func:`fit_hopfield`.

    Examples
    --------
    >>> from robidlib.models import planar_2r
    >>> problem = make_study(planar_2r(), seed=1, duration=3.0, optimize=0,
    ...                      validation_optimize=0).problem(0.01, rng=0)
    >>> fit = fit_hopfield_online(problem)
    >>> fit.iterations == problem.t.size
    True
    """
    return _hopfield(problem, None, True)


class _AugmentedBaseModel:
    """Process model of the EKF on ``x = [q, qd, beta]``: RK4 on the base-parameter dynamics.

    The same model as :class:`robidlib.estimation.AugmentedStateIdentifier` (mass-matrix
    columns from unit accelerations, bias from ``qdd = 0``, ``d beta/dt = 0``, torque given at
    the start, middle and end of the step), evaluated with **one batched regressor call per
    Runge-Kutta stage**: the centre state, the ``2 n`` position-perturbed states (for
    ``dA/dq`` by central differences) and the ``2 n`` velocity-perturbed ones.  The exact
    Jacobian of the RK4 map follows by the chain rule through the stages.
    """

    def __init__(self, robot: Any, base: Any, dt: float) -> None:
        self.robot, self.base, self.dt = robot, base, float(dt)
        self.n, self.p = int(robot.n), int(base.rank)
        self.nx = 2 * self.n + self.p
        self._cache: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None

    def _stage(self, x: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        from .regressor import regressor

        n, p = self.n, self.p
        q, qd, beta = x[:n], x[n:2 * n], x[2 * n:]
        hq = 1e-5 * (1.0 + np.abs(q))
        hv = 1e-3 * (1.0 + np.abs(qd))
        E = np.eye(n)
        # groups of n + 2 samples [(q', 0, 0), (q', 0, e_j), (q', qd, 0)] for q' = q, q +- hq_i e_i
        qs = np.concatenate([q[None], q + hq[:, None] * E, q - hq[:, None] * E])          # (2n + 1, n)
        G = qs.shape[0]
        Q = np.repeat(qs[:, None], n + 2, axis=1)
        QD = np.zeros_like(Q)
        QD[:, n + 1] = qd
        QDD = np.zeros_like(Q)
        QDD[:, 1:n + 1] = E
        # velocity-perturbed (q, qd +- hv_i e_i, 0)
        qdv = np.concatenate([qd + hv[:, None] * E, qd - hv[:, None] * E])
        Qa = np.concatenate([Q.reshape(-1, n), np.repeat(q[None], 2 * n, axis=0)])
        QDa = np.concatenate([QD.reshape(-1, n), qdv])
        QDDa = np.concatenate([QDD.reshape(-1, n), np.zeros((2 * n, n))])
        Yb = self.base.reduce(regressor(self.robot, Qa, QDa, QDDa))                        # (S, n, p)
        T = Yb @ beta                                                                     # (S, n)
        Tg = T[: G * (n + 2)].reshape(G, n + 2, n)
        Tv = T[G * (n + 2):]
        g0 = Tg[:, 0]                                                 # gravity at each q'
        Mcols = Tg[:, 1:n + 1] - g0[:, None]                          # (G, j, i) = M_ij
        M = Mcols[0].T
        M = 0.5 * (M + M.T)
        h = Tg[0, n + 1]
        try:
            qdd = np.linalg.solve(M, u - h)
        except np.linalg.LinAlgError:
            raise ValueError(f"the mass matrix of the parameter estimate is singular at q = {q}") from None
        # inverse dynamics at the perturbed positions with the centre's qdd: bias + M' qdd
        ID = Tg[:, n + 1] + np.einsum("gji,j->gi", Mcols, qdd)      # (G, n)
        Gq = (ID[1:n + 1] - ID[n + 1:]).T / (2 * hq)                 # (n, n): d tau / d q_i
        Gv = (Tv[:n] - Tv[n:]).T / (2 * hv)
        Ybq = Yb[: G * (n + 2)].reshape(G, n + 2, n, p)[0]
        Yfull = Ybq[n + 1] + np.einsum("j,jip->ip", qdd, Ybq[1:n + 1] - Ybq[0][None])
        A = np.zeros((self.nx, self.nx))
        A[:n, n:2 * n] = np.eye(n)
        A[n:2 * n] = -np.linalg.solve(M, np.hstack([Gq, Gv, Yfull]))
        if not (np.all(np.isfinite(qdd)) and np.all(np.isfinite(A))):
            raise ValueError("the EKF process model produced non-finite values")
        return np.concatenate([qd, qdd, np.zeros(p)]), A

    def _step(self, x: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        dt, I = self.dt, np.eye(self.nx)
        k1, D1 = self._stage(x, u[0])
        k2, A2 = self._stage(x + 0.5 * dt * k1, u[1])
        D2 = A2 @ (I + 0.5 * dt * D1)
        k3, A3 = self._stage(x + 0.5 * dt * k2, u[1])
        D3 = A3 @ (I + 0.5 * dt * D2)
        k4, A4 = self._stage(x + dt * k3, u[2])
        D4 = A4 @ (I + dt * D3)
        return x + (dt / 6.0) * (k1 + 2 * k2 + 2 * k3 + k4), I + (dt / 6.0) * (D1 + 2 * D2 + 2 * D3 + D4)

    def jacobian(self, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        x_next, F = self._step(np.asarray(x, dtype=float), np.asarray(u, dtype=float))
        self._cache = (np.array(x, dtype=float), np.array(u, dtype=float), x_next, F)
        return F

    def transition(self, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        c = self._cache
        if c is not None and np.array_equal(c[0], x) and np.array_equal(c[1], u):
            return c[2].copy()
        return self._step(np.asarray(x, dtype=float), np.asarray(u, dtype=float))[0]


def fit_ekf(problem: IdentificationProblem) -> FitResult:
    """Extended Kalman filter on the augmented state ``[q, qd, beta]`` (RK4, ``dt = 2 / fs``).

    The filter (:class:`robidlib.estimation.kalman.ExtendedKalmanFilter`) steps every other
    sample: the positions and velocities measured at ``t_0, t_2, t_4, ...`` update it and
    the torques at the start, middle and end of each step drive the RK4 prediction (the
    process model of :class:`~robidlib.estimation.AugmentedStateIdentifier`, evaluated in
    batches).  Tuning, from the data sheet noise levels:

    * ``R = diag(sigma_q^2, sigma_qd^2)``;
    * ``Q``: the torque noise, held over one step, seen through the mean inverse mass matrix
      ``Mi`` of the prior model along the measured motion, zero on the parameters (they are
      constants).  By default diagonal: ``(dt sigma_tau_j Mi_jj)^2`` on the velocities and a
      quarter of it times ``dt^2`` on the positions.  Option ``process_noise="full"`` takes
      ``G diag(sigma_tau^2) G^T`` with ``G = [dt^2/2 Mi; dt Mi]`` instead (one torque error
      moves every joint's angle and velocity, the block of chapter 8's eq-q-torque); with a
      constant ``Mi`` and the lift's large torque noise spread into the small joints it gives
      the 5-DOF benchmark worse estimates at high noise (the book's benchmark stores both);
    * the samples: with a measurement pipeline, only those the pipeline keeps for the
      regressor-based methods (its ``trim`` seconds are left out at both ends, so every
      method rests on the same stretch of the record); option ``window="record"`` gives the
      filter the whole record instead;
    * ``P0``: the measurement variances on ``q, qd``; on ``beta`` the variances
      ``problem.prior_std**2`` when given (e.g. from :func:`prior_std`), else a standard
      deviation of ``rel * |prior_i| + floor * max_k |prior_k D_k| / D_i`` with ``D`` the
      column RMS of the regressor (options ``rel = 0.5``, ``floor = 0.02``).  A prior that is
      too wide lets the first corrections throw the parameters far off, where the mass
      matrix of the estimate is no longer positive definite and the linearisation fails:
      the EKF, unlike least squares, is nonlinear in the parameters and needs a fair prior.

    The filter works on the state scaled by its prior standard deviations (``P0 = I``),
    which keeps the covariance numerically symmetric positive definite.  Options key
    ``"ekf"``: ``rel``, ``floor``, ``process_noise`` (``"diagonal"`` or ``"full"``), ``window``
    (``"pipeline"`` or ``"record"``).  The number of iterations is the number of filter steps.

    Parameters
    ----------
    problem : IdentificationProblem

    Returns
    -------
    FitResult

    Raises
    ------
    ValueError
        If the data carry no measurement noise (``data.sigma_q`` or ``data.sigma_qd`` zero, as
        from :func:`clean_experiment`: the EKF needs a positive definite ``R``; add noise with
        :func:`add_measurement_noise`), the prior model has a singular mass matrix or the
        prior gives no spread (e.g. a zero prior without ``prior_std``), an option is not a
        number >= 0, or the filter fails numerically (a singular mass matrix of the estimate,
        a covariance that is no longer positive semi-definite; the message gives the step).

    Examples
    --------
    >>> from robidlib.models import planar_2r
    >>> problem = make_study(planar_2r(), seed=1, duration=2.0, optimize=0, validation_optimize=0).problem(0.01, rng=0)
    >>> fit = fit_ekf(problem)          # 2 s at 100 Hz; the pipeline keeps the middle 1 s
    >>> fit.params.shape, fit.iterations
    ((6,), 50)
    """
    _check_problem(problem)
    from .estimation.kalman import ExtendedKalmanFilter

    d = problem.data
    n, p = problem.robot.n, problem.base.rank
    for label, sig in (("sigma_q", d.sigma_q), ("sigma_qd", d.sigma_qd)):
        if np.any(sig <= 0):
            raise ValueError(
                f"fit_ekf needs measurement noise: data.{label} must be > 0 for every joint (the "
                f"filter's R = diag(sigma_q^2, sigma_qd^2) must be positive definite), got "
                f"{np.asarray(sig).tolist()}; noise-free data (clean_experiment) has none, add it "
                "with add_measurement_noise"
            )
    how_q = check_choice("options['ekf']['process_noise']", problem.option("ekf", "process_noise", "diagonal"),
                         ("full", "diagonal"))
    window = check_choice("options['ekf']['window']", problem.option("ekf", "window", "pipeline"),
                          ("pipeline", "record"))
    first, stop = 0, d.t.size                                  # the samples the filter sees
    if window == "pipeline" and problem.pipeline is not None:
        first = int(round(problem.pipeline.trim / d.dt))        # the pipeline refuses < 3 samples
        stop = d.t.size - first
    N = stop - first
    K = (N - 1) // 2                                           # filter steps
    dt = 2.0 * d.dt
    model = _AugmentedBaseModel(problem.robot, problem.base, dt)
    prior = problem.prior
    # the inverse mass matrix of the prior model, averaged along the measured motion
    pi0 = base_to_standard(problem.base, prior)
    every = max(1, N // 40)
    qs = d.q_meas[first:stop:every]
    Mp, _ = _mass_bias(problem.robot, qs, np.zeros_like(qs), np.repeat(pi0[None], qs.shape[0], 0),
                       np.zeros((qs.shape[0], n, 2)))
    try:
        Mi = np.mean(np.linalg.inv(Mp), axis=0)               # mean inverse mass matrix
    except np.linalg.LinAlgError:
        Mi = np.full((n, n), np.nan)
    if not np.all(np.isfinite(Mi)):
        raise ValueError(
            "fit_ekf starts from the prior model, but problem.prior gives a singular mass matrix "
            f"along the measured motion (prior = {np.round(prior, 6).tolist()}); give a prior with "
            "positive masses and inertias (e.g. the CAD model's base parameters)"
        )
    Q = np.zeros((2 * n + p, 2 * n + p))
    if how_q == "full":
        G = np.vstack([0.5 * dt**2 * Mi, dt * Mi])            # torque error -> [dq, dqd]
        Q[:2 * n, :2 * n] = G @ np.diag(d.sigma_tau**2) @ G.T
    else:
        var_qd = (dt * d.sigma_tau * np.abs(np.diag(Mi))) ** 2
        Q[:2 * n, :2 * n] = np.diag(np.concatenate([0.25 * dt**2 * var_qd, var_qd]))
    D = problem.column_scale
    rel = check_nonnegative("options['ekf']['rel']", problem.option("ekf", "rel", 0.5))
    floor = check_nonnegative("options['ekf']['floor']", problem.option("ekf", "floor", 0.02))
    sd_beta = rel * np.abs(prior) + floor * np.max(np.abs(prior) * D) / D
    if problem.prior_std is not None:
        sd_beta = problem.prior_std
    if not np.all(sd_beta > 0):
        raise ValueError(
            "fit_ekf needs a prior spread > 0 for every base parameter, got the standard deviations "
            f"{sd_beta.tolist()} from rel = {rel}, floor = {floor} and the prior {prior.tolist()}; give "
            "problem.prior_std (e.g. prior_std(...)) or a non-zero prior"
        )
    # the filter runs on the scaled state x / s (s = prior standard deviations), so that P0 = I:
    # without it P spans 1e-8 (positions) to 1e+1 (masses) and round-off breaks its symmetry
    s = np.concatenate([d.sigma_q, d.sigma_qd, sd_beta])
    R = np.diag(np.concatenate([d.sigma_q**2, d.sigma_qd**2]))
    Hs = np.hstack([np.eye(2 * n), np.zeros((2 * n, p))]) * s

    def f(xs, u):
        return model.transition(xs * s, u) / s

    def F(xs, u):
        return model.jacobian(xs * s, u) * s[None, :] / s[:, None]

    kf = ExtendedKalmanFilter(
        f, lambda xs: Hs @ xs, F, lambda xs: Hs, Q / np.outer(s, s), R,
        np.concatenate([d.q_meas[first], d.qd_meas[first], prior]) / s, np.eye(2 * n + p), record_history=False,
    )
    kf.update(np.concatenate([d.q_meas[first], d.qd_meas[first]]))
    for k in range(K):
        i = first + 2 * k
        kf.predict(d.tau[i:i + 3])
        kf.update(np.concatenate([d.q_meas[i + 2], d.qd_meas[i + 2]]))
    x = kf.x * s
    std = np.sqrt(np.clip(np.diag(kf.P), 0.0, None)) * s
    return FitResult(x[2 * n:], K, {"std": std[2 * n:].tolist()})


#: The estimators compared by default, by display name.
METHODS: dict[str, Callable[[IdentificationProblem], FitResult]] = {
    "LS": fit_ls,
    "WLS": fit_wls,
    "WLS (estimated)": fit_wls_estimated,
    "MAP": fit_map,
    "Adaline": fit_adaline,
    "Adaline (budget)": fit_adaline_budget,
    "Adaline (on-line)": fit_adaline_online,
    "Hopfield": fit_hopfield,
    "Hopfield (budget)": fit_hopfield_budget,
    "Hopfield (on-line)": fit_hopfield_online,
    "EKF": fit_ekf,
}

#: What each method of :data:`METHODS` uses of the shared :class:`IdentificationProblem`.
#: Every method sees the same measurements; "motion through the pipeline" means the
#: problem's :class:`MeasurementPipeline` (or the exact motion when it is ``None``).
METHOD_INPUTS: dict[str, str] = {
    "LS": "torques; motion through the pipeline",
    "WLS": "as LS, plus the torque noise levels (rows divided by sigma_j)",
    "WLS (estimated)": "as LS; estimates the noise levels from the LS residuals, then weighs",
    "MAP": "as WLS, plus the prior mean and standard deviations (one linear solve)",
    "Adaline": "as WLS; starts at the prior mean, runs to convergence",
    "Adaline (budget)": "as WLS; starts at the prior mean, stops after 1/4 of its slowest time constant",
    "Adaline (on-line)": ("as WLS; starts at the prior mean, one pass over the samples in time order (the "
                          "pipeline's zero-phase filtered samples: a real on-line estimator would get causal, "
                          "delayed ones)"),
    "Hopfield": "as WLS; starts at the prior mean, runs to convergence",
    "Hopfield (budget)": "as WLS; starts at the prior mean, stops after 1/4 of its slowest time constant",
    "Hopfield (on-line)": ("as WLS; starts at the prior mean, driven by the current sample only (the paper's form; "
                           "the pipeline's zero-phase filtered samples, as for Adaline (on-line))"),
    "EKF": ("raw positions, velocities and torques of the same stretch of the record (the pipeline's trimmed ends "
            "left out), all noise levels, the prior mean and standard deviations; estimates the motion with its "
            "model; process noise: the torque noise through the prior's mean inverse mass matrix, diagonal"),
}


# ------------------------------------------------------------------------- comparison
def _methods(methods: Any) -> dict[str, Callable]:
    if methods is None:
        return dict(METHODS)
    if isinstance(methods, Mapping):
        out = dict(methods)
    elif isinstance(methods, str):
        raise TypeError(f"methods must be a sequence of names or a mapping name -> function, got the str {methods!r}")
    else:
        out = {}
        for name in methods:
            if name not in METHODS:
                raise ValueError(f"unknown method {name!r} in methods; expected one of {', '.join(map(repr, METHODS))}")
            out[name] = METHODS[name]
    if not out:
        raise ValueError("methods must name at least one method")
    for name, fn in out.items():
        if not callable(fn):
            raise TypeError(f"method {name!r} must be callable (problem -> FitResult), got {type(fn).__name__}")
    return out


def _validation_regressor(problem: IdentificationProblem, validation: IdentificationData) -> np.ndarray:
    from .regressor import regressor

    return problem.base.reduce(regressor(problem.robot, validation.q, validation.qd, validation.qdd))


_SCORES = ("delta_beta", "delta_beta_ess", "scaled_error", "prior_sigma_error", "delta_tau", "agreement")


def compare_methods(
    problem: IdentificationProblem,
    validation: IdentificationData | None = None,
    truth: Any = None,
    methods: Sequence[str] | Mapping[str, Callable] | None = None,
    catch: bool = True,
    *,
    essential: Any = None,
    column_scale: Any = None,
) -> ResultTable:
    """Run every estimator on the same problem and score it: one row per method.

    Columns: ``method``; against ``truth`` (NaN without it): ``delta_beta``
    (:func:`~robidlib.validation.relative_parameter_error`, %, over all parameters),
    ``delta_beta_ess`` (the same over the ``essential`` ones), ``scaled_error``
    (:func:`~robidlib.validation.scaled_parameter_error` with ``column_scale``, %) and
    ``prior_sigma_error`` (:func:`~robidlib.validation.standardized_error` in units of
    ``problem.prior_std``; NaN without it); on the validation data: ``delta_tau`` (per-joint
    :func:`~robidlib.validation.relative_torque_error` of the predicted torques against
    ``validation.tau_true``, averaged over the joints, %) and ``agreement`` (the
    :func:`~robidlib.validation.agreement_index`, averaged over the joints); ``time_s`` (wall
    clock of the fit, s) and ``iterations`` (in each method's own unit: report them, do not
    rank by them); ``status`` (``"ok"`` or the error message of a failed fit, whose numbers
    are then NaN).  The estimates are in ``table.meta["params"]`` (a dict of lists).

    Parameters
    ----------
    problem : IdentificationProblem
    validation : IdentificationData, optional
        Validation experiment (default: the identification data itself, a "training error").
    truth : array_like, shape (r,), optional
        True base parameters.
    methods : sequence of str or mapping, optional
        Names from :data:`METHODS` (default: all), or a mapping ``name -> function(problem) ->
        FitResult`` to compare your own estimators.
    catch : bool, default True
        Record a failing estimator (``ValueError``, ``RuntimeError``, ``LinAlgError``) as a
        row with status ``"failed: ..."`` instead of raising.
    essential : array_like of bool, shape (r,), optional
        The essential parameters (e.g. :attr:`Study.essential`); default all.
    column_scale : array_like, shape (r,), optional
        Weights of the scaled error (default ``problem.column_scale``).

    Returns
    -------
    ResultTable

    Raises
    ------
    ValueError
        Unknown method names, a truth, mask or scale of the wrong length, validation data of
        another robot, a mask that selects nothing.
    TypeError
        Arguments of the wrong type.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.base import base_parameters
    >>> from robidlib.models import planar_2r
    >>> from robidlib.trajectories import random_fourier
    >>> cad = planar_2r()
    >>> real = perturb_robot(cad, rng=1)
    >>> bp = base_parameters(cad, rng=0)
    >>> ft = random_fourier(cad, 2 * np.pi * 0.5, 3, rng=2)
    >>> clean = clean_experiment(real, ft.evaluate(np.arange(0.0, 2.0, 0.01)))
    >>> data = add_measurement_noise(clean, 0.02, rng=3)
    >>> problem = IdentificationProblem(real, bp, data, prior=bp.beta(cad.params))
    >>> table = compare_methods(problem, truth=bp.beta(real.params), methods=["LS", "WLS"])
    >>> table.columns[:4], table.column("status").tolist()
    (('method', 'delta_beta', 'delta_beta_ess', 'scaled_error'), ['ok', 'ok'])
    >>> bool(table.column("delta_tau").max() < 1.0)      # percent, on the (here: training) data
    True
    """
    from .validation import scaled_parameter_error, standardized_error

    _check_problem(problem)
    if not isinstance(problem, IdentificationProblem):
        raise TypeError(f"problem must be an IdentificationProblem, got {type(problem).__name__}")
    fns = _methods(methods)
    if not isinstance(catch, (bool, np.bool_)):
        raise TypeError(f"catch must be True or False, got {catch!r}")
    val = problem.data if validation is None else validation
    if not isinstance(val, IdentificationData):
        raise TypeError(f"validation must be an IdentificationData, got {type(val).__name__}")
    if val.n_joints != problem.robot.n:
        raise ValueError(f"validation has {val.n_joints} joints but the robot has {problem.robot.n}")
    r = problem.base.rank
    b = None if truth is None else as_array("truth", truth, shape=(r,))
    if essential is None:
        ess = np.ones(r, dtype=bool)
    else:
        ess = np.asarray(essential)
        if ess.dtype != bool or ess.shape != (r,):
            raise ValueError(f"essential must be {r} booleans (one per base parameter), got {ess.dtype} of shape {ess.shape}")
        if not ess.any():
            raise ValueError("essential selects no parameter")
    D = problem.column_scale if column_scale is None else as_array("column_scale", column_scale, shape=(r,))
    Yv = _validation_regressor(problem, val)
    problem.W                                  # the shared regressor is built before any clock starts
    rows, params = [], {}
    for name, fn in fns.items():
        t0 = time.perf_counter()
        try:
            fit = fn(problem)
            elapsed = time.perf_counter() - t0
            if not isinstance(fit, FitResult):
                raise TypeError(f"method {name!r} must return a FitResult, got {type(fit).__name__}")
            est = as_array(f"the parameters of {name}", fit.params, shape=(r,))
        except (ValueError, RuntimeError, np.linalg.LinAlgError) as exc:
            if not catch:
                raise
            rows.append({"method": name, **{k: float("nan") for k in _SCORES}, "time_s": time.perf_counter() - t0,
                         "iterations": -1, "status": f"failed: {exc}"[:200]})
            params[name] = [float("nan")] * r
            continue
        pred = Yv @ est
        nan = float("nan")
        rows.append({
            "method": name,
            "delta_beta": relative_parameter_error(est, b) if b is not None else nan,
            "delta_beta_ess": relative_parameter_error(est[ess], b[ess]) if b is not None else nan,
            "scaled_error": scaled_parameter_error(est, b, D) if b is not None else nan,
            "prior_sigma_error": (standardized_error(est, b, problem.prior_std)
                                  if b is not None and problem.prior_std is not None else nan),
            "delta_tau": float(np.mean(relative_torque_error(val.tau_true, pred))),
            "agreement": float(np.mean(agreement_index(val.tau_true, pred))),
            "time_s": elapsed,
            "iterations": int(fit.iterations),
            "status": "ok",
        })
        params[name] = est.tolist()
    return ResultTable(rows, {"params": params})


def noise_rng(seed: int, level: float, run: int) -> np.random.Generator:
    """The generator of the noise draw of run ``run`` at noise level ``level`` in :func:`monte_carlo`.

    ``numpy.random.default_rng(SeedSequence(seed, spawn_key=(round(1e9 * level), run)))``: the
    draw depends on these three numbers only, so one run of a stored benchmark can be
    recomputed alone (e.g. ``study.problem(level, rng=noise_rng(7, level, 0))`` is the data of
    its first run). The level is keyed on a grid of 1e-9, so a level must lie on it (0.02,
    0.005, 1e-9...): two levels closer than the grid would otherwise share their draws; and
    at most 1e6 (a relative noise of 10^8 %), where the grid is still exact in floating point.

    Parameters
    ----------
    seed : int
        Root seed of the Monte Carlo (>= 0).
    level : float
        Noise level (>= 0).
    run : int
        Run index (>= 0).

    Returns
    -------
    numpy.random.Generator

    Raises
    ------
    TypeError
        If ``seed`` or ``run`` is not an int, ``level`` not a real number.
    ValueError
        If a value is negative, or ``level`` is above 1e6 or not a multiple of 1e-9.

    Examples
    --------
    >>> a, b = noise_rng(7, 0.02, 0).standard_normal(3), noise_rng(7, 0.02, 0).standard_normal(3)
    >>> bool((a == b).all()), bool((a == noise_rng(7, 0.02, 1).standard_normal(3)).any())
    (True, False)
    """
    for name, v in (("seed", seed), ("run", run)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{name} must be an int, got {type(v).__name__}")
        if v < 0:
            raise ValueError(f"{name} must be >= 0, got {v}")
    lv = check_nonnegative("level", level)
    if lv > 1e6:
        raise ValueError(f"level must be <= 1e6 (a relative noise of 10^8 %), got {lv:g}")
    key = round(1e9 * lv)
    if abs(1e9 * lv - key) > max(1e-6, 4 * np.finfo(float).eps * 1e9 * lv):
        raise ValueError(f"level must be a multiple of 1e-9 (the draws are keyed by round(1e9 * level): a level "
                         f"between grid points would share the draws of its neighbour), got {lv!r}")
    return np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(int(key), int(run))))


def monte_carlo(
    robot: Any,
    base: Any,
    clean: IdentificationData,
    levels: Sequence[float],
    n_runs: int | Mapping[str, int],
    seed: int,
    *,
    prior: Any,
    truth: Any,
    prior_std: Any = None,
    validation: IdentificationData | None = None,
    methods: Sequence[str] | Mapping[str, Callable] | None = None,
    sigma_q: float | Sequence[float] = 1e-4,
    sigma_qd: float | Sequence[float] = 1e-3,
    torque_noise: str = "joint",
    pipeline: MeasurementPipeline | None = None,
    essential: Any = None,
    column_scale: Any = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    runs: Iterable[int] | None = None,
    keep_params: bool = False,
    progress: Callable[[str], None] | None = None,
) -> ResultTable:
    """Seeded Monte Carlo comparison: every method on the same noisy data sets.

    For noise level ``level`` and run ``k`` the measurements are drawn by
    :func:`add_measurement_noise` from the generator :func:`noise_rng` ``(seed, level, k)``,
    seeded with ``numpy.random.SeedSequence(seed, spawn_key=(round(1e9 * level), k))``: the draw depends
    on the seed, the level and the run only, so any cell (or run) can be recomputed alone and
    gives the same numbers, whatever else is run; every method sees the same data.  Calls
    with other ``sigma_q`` or ``torque_noise`` reuse the same standard normal numbers (common
    random numbers), so their differences are not blurred by other draws.

    Parameters
    ----------
    robot : SerialRobot
        The "real" robot (kinematics used by the estimators).
    base : BaseParameters
    clean : IdentificationData
        Noise-free identification data.
    levels : sequence of float
        Relative torque noise levels (>= 0).
    n_runs : int or mapping
        Runs per noise level (>= 1), or a mapping ``method -> runs`` (the missing methods get
        the largest number given) to run a slow method fewer times.
    seed : int
        Root seed.
    prior, truth : array_like, shape (r,)
        Prior base parameters given to the estimators and the true ones.
    prior_std : array_like, shape (r,), optional
        Standard deviations of the prior (see :class:`IdentificationProblem`).
    validation : IdentificationData, optional
        Validation experiment (default: the clean identification data).
    methods : optional
        As in :func:`compare_methods`.
    sigma_q, sigma_qd : float or array_like
        Position and velocity noise (see :func:`add_measurement_noise`).
    torque_noise : {"joint", "pooled"}
        Torque noise model (see :func:`add_measurement_noise`).
    pipeline : MeasurementPipeline, optional
        How the regressor-based methods get the motion (see :class:`IdentificationProblem`).
    essential, column_scale : array_like, optional
        As in :func:`compare_methods`.
    options : mapping, optional
        Per-method settings (see :class:`IdentificationProblem`).
    runs : iterable of int, optional
        Only these run indices (distinct, in ``[0, n_runs)``; e.g. ``[0, 1]`` to reproduce part
        of a stored result).
    keep_params : bool, default False
        Keep every estimate in ``meta["estimates"]`` (a list of ``{"level", "run", "method",
        "params"}``).
    progress : callable, optional
        Called with a short message after each cell.

    Returns
    -------
    ResultTable
        Raw rows: the columns of :func:`compare_methods` plus ``level`` and ``run``.

    Raises
    ------
    ValueError
        Empty or negative levels, bad run counts or run indices, unknown methods, base
        parameters of another robot, options of unknown methods.
    TypeError
        Arguments of the wrong type (``progress`` not callable, ``runs`` not integers...).

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.base import base_parameters
    >>> from robidlib.models import planar_2r
    >>> from robidlib.trajectories import random_fourier
    >>> cad = planar_2r()
    >>> real = perturb_robot(cad, rng=1)
    >>> bp = base_parameters(cad, rng=0)
    >>> ft = random_fourier(cad, 2 * np.pi * 0.5, 3, rng=2)
    >>> clean = clean_experiment(real, ft.evaluate(np.arange(0.0, 2.0, 0.01)))
    >>> raw = monte_carlo(real, bp, clean, [0.01, 0.05], 3, seed=7, prior=bp.beta(cad.params),
    ...                   truth=bp.beta(real.params), methods=["LS", "WLS"])
    >>> len(raw), len(summarize(raw))            # 2 methods x 2 levels x 3 runs; 4 cells
    (12, 4)
    """
    lv = as_array("levels", levels, ndim=1)
    if lv.size == 0 or np.any(lv < 0):
        raise ValueError(f"levels must be a non-empty sequence of values >= 0, got {lv.tolist()}")
    fns = _methods(methods)
    if isinstance(n_runs, Mapping):
        counts = {}
        for k, v in n_runs.items():
            if k not in fns:
                raise ValueError(f"n_runs names {k!r}, which is not among the methods {tuple(fns)}")
            counts[k] = v
        default = max(counts.values()) if counts else 1
        counts = {name: counts.get(name, default) for name in fns}
    else:
        counts = {name: n_runs for name in fns}
    for name, c in counts.items():
        if isinstance(c, (bool, np.bool_)) or not isinstance(c, (int, np.integer)) or not 1 <= c <= 10**5:
            raise ValueError(f"n_runs must be an integer from 1 to 1e5 (per method), got {c!r} for {name!r}")
    check_int("seed", seed, 0)
    _check_robot("robot", robot)
    _check_base("base", base)
    check_same_robot("base", base, robot)
    if not isinstance(clean, IdentificationData):
        raise TypeError(f"clean must be an IdentificationData (from clean_experiment), got {type(clean).__name__}")
    R = max(counts.values())
    if runs is None:
        run_ids = list(range(R))
    else:
        if isinstance(runs, (str, bytes)) or not hasattr(runs, "__iter__"):
            raise TypeError(f"runs must be an iterable of run indices (int), got {type(runs).__name__} {runs!r}")
        given = [check_int("runs entry", r, 0) for r in runs]
        if any(r >= R for r in given):
            raise ValueError(f"runs must lie in [0, {R}), got {given}")
        if not given or len(set(given)) != len(given):
            raise ValueError(f"runs must name distinct run indices in [0, {R}), at least one, got {given}")
        run_ids = sorted(given)
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be a callable taking a message (str), got {type(progress).__name__}")
    prior = as_array("prior", prior, shape=(base.rank,))
    truth = as_array("truth", truth, shape=(base.rank,))
    sd = None if prior_std is None else as_array("prior_std", prior_std, shape=(base.rank,))
    if not isinstance(keep_params, (bool, np.bool_)):
        raise TypeError(f"keep_params must be True or False, got {keep_params!r}")
    rows: list[dict[str, Any]] = []
    estimates: list[dict[str, Any]] = []
    for level in lv:
        for k in run_ids:
            active = {name: fn for name, fn in fns.items() if k < counts[name]}
            if not active:
                continue
            data = add_measurement_noise(clean, float(level), noise_rng(seed, float(level), k),
                                         sigma_q=sigma_q, sigma_qd=sigma_qd, torque_noise=torque_noise)
            problem = IdentificationProblem(robot, base, data, prior, prior_std=sd, options=options or {},
                                            pipeline=pipeline)
            table = compare_methods(problem, validation if validation is not None else clean, truth, active,
                                    essential=essential, column_scale=column_scale)
            for r in table:
                rows.append({"level": float(level), "run": k, **r})
            if keep_params:
                estimates.extend({"level": float(level), "run": int(k), "method": m, "params": v}
                                 for m, v in table.meta["params"].items())
            if progress is not None:
                progress(f"level {level:g} run {k}: " + ", ".join(f"{r['method']} {r['delta_beta']:.3g}" for r in table))
    meta: dict[str, Any] = {"levels": lv.tolist(), "n_runs": {k: int(v) for k, v in counts.items()}, "seed": int(seed),
                            "torque_noise": torque_noise, "sigma_q": np.asarray(sigma_q, dtype=float).tolist(),
                            "sigma_qd": np.asarray(sigma_qd, dtype=float).tolist(),
                            "pipeline": None if pipeline is None else asdict(pipeline)}
    if keep_params:
        meta["estimates"] = estimates
    return ResultTable(rows, meta)


def summarize(
    table: ResultTable,
    by: Sequence[str] = ("method", "level"),
    values: Sequence[str] = ("delta_beta", "delta_beta_ess", "scaled_error", "prior_sigma_error", "delta_tau",
                             "agreement", "time_s", "iterations"),
) -> ResultTable:
    """One row per group (default: per method and noise level) with mean and standard deviation.

    For each value column ``v``: ``v_mean`` and ``v_std`` (sample standard deviation,
    ``ddof = 1``; NaN for a single run) over the successful runs (``status == "ok"``), and for
    ``time_s`` also ``time_s_median``.  ``runs`` counts the rows of the group and ``failed``
    those whose status is not ``"ok"``.  Groups appear in order of first appearance.

    Parameters
    ----------
    table : ResultTable
        Raw rows (e.g. from :func:`monte_carlo`).
    by : sequence of str
        Grouping columns.
    values : sequence of str
        Columns to summarise (those absent from the table are skipped).

    Returns
    -------
    ResultTable

    Raises
    ------
    ColumnError
        If a grouping column is missing (a ``KeyError`` and a ``ValueError``).
    TypeError
        If ``table`` is not a ResultTable, or ``by`` / ``values`` are not sequences of names.

    Examples
    --------
    >>> t = ResultTable([{"method": "LS", "err": 1.0, "status": "ok"},
    ...                  {"method": "LS", "err": 3.0, "status": "ok"}])
    >>> s = summarize(t, by=["method"], values=["err"])
    >>> s[0]["err_mean"], s[0]["runs"]
    (2.0, 2)
    """
    if not isinstance(table, ResultTable):
        raise TypeError(f"table must be a ResultTable, got {type(table).__name__}")
    by = check_names("by", by)
    for c in by:
        if c not in table.columns:
            raise ColumnError(f"by: unknown grouping column {c!r}; expected one of {table.columns}")
    values = check_names("values", values)
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for r in table:
        groups.setdefault(tuple(r.get(c) for c in by), []).append(r)
    out = []
    for key, rs in groups.items():
        ok = [r for r in rs if r.get("status", "ok") == "ok"]
        row: dict[str, Any] = dict(zip(by, key))
        row["runs"] = len(rs)
        row["failed"] = len(rs) - len(ok)
        for v in values:
            if v not in table.columns:
                continue
            x = np.array([r.get(v, float("nan")) for r in ok], dtype=float)
            row[f"{v}_mean"] = float(np.mean(x)) if x.size else float("nan")
            row[f"{v}_std"] = float(np.std(x, ddof=1)) if x.size > 1 else float("nan")
            if v == "time_s":
                row["time_s_median"] = float(np.median(x)) if x.size else float("nan")
        out.append(row)
    return ResultTable(out, dict(table.meta))


# ------------------------------------------------------------------------------ study
@dataclass(frozen=True, eq=False)
class Study:
    """Everything that defines a benchmark: robots, parameters and the two clean experiments.

    Built by :func:`make_study` (or :func:`benchmark_study` for the book's); the same call
    gives the same study on any machine when its excitations are stored ones, so a notebook can
    recompute part of a stored benchmark.

    Attributes
    ----------
    cad, real : SerialRobot
        The CAD model (the prior) and the "real" robot (the truth).
    base : BaseParameters
        Base parameters (QR regrouping of the CAD model; the real robot has the same
        kinematics, hence the same base parameters).
    truth, prior, prior_std : numpy.ndarray, shape (r,)
        True base parameters, those of the CAD model, and the prior standard deviations.
    train, validation : IdentificationData
        Clean identification and validation experiments of the real robot.
    excitation, validation_excitation : FourierTrajectory
        The trajectories.
    settings : dict
        The arguments of :func:`make_study` and the excitation's condition number.
    essential : numpy.ndarray of bool, shape (r,)
        The essential parameters: relative standard deviation of weighted least squares
        below ``essential_threshold`` % at the torque noise ``essential_level`` (exact
        motion, the true noise levels; :func:`~robidlib.validation.essential_parameters`).
    column_scale : numpy.ndarray, shape (r,)
        RMS of each column of the clean identification regressor with the rows of joint ``j``
        divided by the RMS torque of joint ``j`` (the weights of
        :func:`~robidlib.validation.scaled_parameter_error`): each parameter counts by the
        *relative* torque it explains on each joint, as in ``delta_tau``, whatever the units
        (N for the prismatic joints, N m for the revolute ones).
    wls_std : numpy.ndarray, shape (r,)
        The standard deviations of that weighted least-squares estimate.
    pipeline : MeasurementPipeline or None
        How the regressor-based methods get the motion in :meth:`problem` and
        :meth:`monte_carlo`.

    Raises
    ------
    ValueError
        ``cad`` and ``real`` of another structure (joint count, frames, gravity: see
        :attr:`robidlib.robot.SerialRobot.structure_id`), ``base`` not of ``cad``, vectors of
        the wrong length, ``prior_std`` not > 0.
    TypeError
        Fields of the wrong type.
    """

    cad: Any
    real: Any
    base: Any
    truth: np.ndarray
    prior: np.ndarray
    prior_std: np.ndarray
    train: IdentificationData
    validation: IdentificationData
    excitation: Any
    validation_excitation: Any
    settings: dict
    essential: np.ndarray
    column_scale: np.ndarray
    wls_std: np.ndarray
    pipeline: MeasurementPipeline | None = None

    def __post_init__(self) -> None:
        _check_robot("cad", self.cad)
        _check_robot("real", self.real)
        _check_base("base", self.base)
        if self.cad.n != self.real.n or self.cad.structure_id != self.real.structure_id:
            raise ValueError(f"cad ({self.cad.n} joints, structure {self.cad.structure_id}) must model the real robot "
                             f"({self.real.n} joints, structure {self.real.structure_id}): same joints, frames and "
                             "gravity, other inertial parameters")
        from .base import check_base_of

        check_base_of(self.cad, self.base, "base", friction=False)
        r = self.base.rank
        check_fields(self, truth=(r,), prior=(r,), prior_std=(r,), column_scale=(r,), wls_std=(r,))
        ess = np.asarray(self.essential)
        if ess.shape != (r,) or ess.dtype != bool:
            raise TypeError(f"essential must be a boolean array of shape ({r},), got {ess.dtype} of shape {ess.shape}")
        if self.pipeline is not None and not isinstance(self.pipeline, MeasurementPipeline):
            raise TypeError(f"pipeline must be a MeasurementPipeline or None, got {type(self.pipeline).__name__}")
        if np.any(self.prior_std <= 0):
            raise ValueError(f"prior_std must be > 0, got {self.prior_std.tolist()}")
        for name in ("train", "validation"):
            if not isinstance(getattr(self, name), IdentificationData):
                raise TypeError(f"{name} must be an IdentificationData, got {type(getattr(self, name)).__name__}")
        for name in ("excitation", "validation_excitation"):
            if not hasattr(getattr(self, name), "evaluate"):
                raise TypeError(f"{name} must be a FourierTrajectory, got {type(getattr(self, name)).__name__}")
        if not isinstance(self.settings, dict):
            raise TypeError(f"settings must be a dict, got {type(self.settings).__name__}")

    def problem(self, level: float, rng: np.random.Generator | int, *, exact_motion: bool = False,
                **noise: Any) -> IdentificationProblem:
        """An identification problem with noisy training data (see :func:`add_measurement_noise`).

        ``exact_motion=True`` gives the regressor-based methods the exact motion instead of the
        study's pipeline.
        """
        if not isinstance(exact_motion, (bool, np.bool_)):
            raise TypeError(f"exact_motion must be True or False, got {exact_motion!r}")
        data = add_measurement_noise(self.train, level, rng, **noise)
        return IdentificationProblem(self.real, self.base, data, self.prior, prior_std=self.prior_std,
                                     pipeline=None if exact_motion else self.pipeline)

    def compare(self, problem: IdentificationProblem, methods: Any = None, **kwargs: Any) -> ResultTable:
        """:func:`compare_methods` on the study's validation data, truth, essential parameters and scales."""
        return compare_methods(problem, self.validation, self.truth, methods, essential=self.essential,
                               column_scale=self.column_scale, **kwargs)

    def monte_carlo(self, levels: Sequence[float], n_runs: Any, seed: int, **kwargs: Any) -> ResultTable:
        """:func:`monte_carlo` on this study (validation on the clean validation experiment)."""
        kwargs.setdefault("pipeline", self.pipeline)
        kwargs.setdefault("essential", self.essential)
        kwargs.setdefault("column_scale", self.column_scale)
        return monte_carlo(self.real, self.base, self.train, levels, n_runs, seed, prior=self.prior,
                           truth=self.truth, prior_std=self.prior_std, validation=self.validation, **kwargs)


def _given_excitation(value: Any, cad: Any, frequency: float, n_harmonics: int, which: str) -> Any:
    """A stored excitation (by name) or a FourierTrajectory, checked against the study's settings."""
    from .trajectories import FourierTrajectory, load_excitation

    if isinstance(value, str):
        from .trajectories import stored_excitations

        if value not in stored_excitations():
            raise ValueError(f"{which} {value!r} is not a stored excitation; expected a FourierTrajectory or one of "
                             f"{stored_excitations()}")
        value, meta = load_excitation(value)
        robot = dict(meta.get("recipe", {})).get("robot")
        if robot is not None and robot != cad.name:
            raise ValueError(f"cad must be the robot {robot!r} the stored {which} was made for, got {cad.name!r}")
    if not isinstance(value, FourierTrajectory):
        raise TypeError(f"{which} must be a FourierTrajectory or the name of a stored excitation, "
                        f"got {type(value).__name__}")
    if value.n_joints != cad.n:
        raise ValueError(f"{which} has {value.n_joints} joints but cad has {cad.n}: they must match")
    if not np.isclose(value.wf, 2 * np.pi * frequency, rtol=1e-9) or value.a.shape[1] != n_harmonics:
        raise ValueError(
            f"{which} has base frequency {value.wf / (2 * np.pi):.6g} Hz and {value.a.shape[1]} harmonics; the "
            f"study's settings say {frequency:g} Hz and {n_harmonics}: pass the matching frequency and harmonics"
        )
    return value


def make_study(
    cad: Any,
    seed: int = 2024,
    *,
    duration: float = 5.0,
    fs: float = 100.0,
    frequency: float = 0.2,
    n_harmonics: int = 5,
    optimize: int = 20,
    validation_duration: float = 4.0,
    validation_frequency: float = 0.25,
    validation_harmonics: int = 4,
    validation_optimize: int = 10,
    errors: Mapping[str, float] | None = None,
    excitation: Any = None,
    validation_excitation: Any = None,
    pipeline: MeasurementPipeline | None = MeasurementPipeline(),
    essential_level: float = 0.01,
    essential_threshold: float = 10.0,
) -> Study:
    """Build a benchmark study of a robot: a perturbed "real" robot, excitations, clean data.

    1. ``real = perturb_robot(cad, rng, **errors)`` (the CAD model with link errors);
    2. base parameters of the CAD model (``base_parameters(cad, rng=0)``), truth
       ``base.beta(real.params)``, prior ``base.beta(cad.params)``, and prior standard
       deviations :func:`prior_std` from 200 more perturbations of the same sizes;
    3. identification excitation: ``excitation`` when given (a FourierTrajectory, or the name
       of one stored with :func:`robidlib.trajectories.save_excitation`), otherwise a random
       Fourier series (:func:`robidlib.trajectories.random_fourier` with ``fill=0.9``, base
       frequency ``frequency`` Hz, ``n_harmonics``) improved by ``optimize`` SLSQP iterations
       of :func:`robidlib.trajectories.optimize_excitation` (condition number of the
       column-equilibrated base regressor, joint limits as constraints; 0 keeps the random
       series).  A truncated SLSQP run ends at slightly different coefficients on another
       machine or BLAS kernel, so a study whose numbers must be reproduced loads stored
       excitations (:func:`benchmark_study`);
    4. validation excitation: likewise (``validation_excitation``, or another random series,
       with other frequencies and harmonics, improved by ``validation_optimize`` iterations: a
       validation motion should be as rich as the identification one);
    5. clean experiments sampled at ``fs`` for ``duration`` and ``validation_duration`` s
       (endpoints included);
    6. the essential parameters, the column scales and the WLS standard deviations of
       :class:`Study`.

    The random numbers are drawn in the same order whether or not the excitations are given,
    so a study with stored excitations has the same robot and prior as the one that made them.

    Parameters
    ----------
    cad : SerialRobot
        The CAD model (positive link masses).
    seed : int, default 2024
        Root seed of every random draw.
    duration, fs, frequency, n_harmonics, optimize
        Identification experiment: length (s), sampling rate (Hz), base frequency (Hz),
        harmonics, and SLSQP iterations of the excitation optimisation (>= 0).
    validation_duration, validation_frequency, validation_harmonics, validation_optimize
        Validation experiment.
    errors : mapping, optional
        Sizes of the link errors for :func:`perturb_robot` (``mass``, ``com``, ``inertia``,
        ``angle``).
    excitation, validation_excitation : FourierTrajectory or str, optional
        Given (or stored, by name) excitations; they must match the frequency and harmonics
        settings.
    pipeline : MeasurementPipeline or None, default MeasurementPipeline()
        The study's measurement pipeline (``None``: the exact motion).
    essential_level, essential_threshold : float
        Noise level and relative standard deviation (%) that define the essential parameters.

    Returns
    -------
    Study

    Raises
    ------
    ValueError
        On non-positive durations, rates, frequencies, counts or ``essential_threshold``,
        unknown or negative ``errors``, or given excitations that do not match the settings or
        the robot (or name no stored excitation).
    TypeError
        On arguments of the wrong type.

    Examples
    --------
    >>> from robidlib.models import planar_2r
    >>> st = make_study(planar_2r(), seed=1, duration=2.0, optimize=0, validation_duration=1.0,
    ...                 validation_optimize=0)
    >>> st.train.t.size, st.validation.t.size, st.truth.shape, int(st.essential.sum())
    (201, 101, (6,), 5)
    """
    from .base import base_parameters
    from .regressor import regressor, stack
    from .trajectories import excitation_cond, optimize_excitation, random_fourier
    from .validation import essential_parameters

    _check_robot("cad", cad)
    check_int("seed", seed, 0)
    for name, value in (("duration", duration), ("fs", fs), ("frequency", frequency),
                        ("validation_duration", validation_duration), ("validation_frequency", validation_frequency)):
        check_positive(name, value)
    for name, value in (("n_harmonics", n_harmonics), ("validation_harmonics", validation_harmonics)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not 1 <= value <= 1000:
            raise ValueError(f"{name} must be an integer from 1 to 1000, got {value!r}")
    for name, value in (("optimize", optimize), ("validation_optimize", validation_optimize)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not 0 <= value <= 10**6:
            raise ValueError(f"{name} must be an integer from 0 to 1e6 (SLSQP iterations), got {value!r}")
    if pipeline is not None and not isinstance(pipeline, MeasurementPipeline):
        raise TypeError(f"pipeline must be a MeasurementPipeline or None, got {type(pipeline).__name__}")
    lv_ess = check_positive("essential_level", essential_level)
    check_positive("essential_threshold", essential_threshold)
    if errors is not None and not isinstance(errors, Mapping):
        raise TypeError(f"errors must be a mapping such as {{'mass': 0.1}}, got {type(errors).__name__}")
    errors = dict(errors or {})
    for key, value in errors.items():
        if key not in ("mass", "com", "inertia", "angle"):
            raise ValueError(f"errors names an unknown error {key!r}; expected some of 'mass', 'com', 'inertia', 'angle' "
                             "(the arguments of perturb_robot)")
        check_nonnegative(f"errors[{key!r}]", value)
    settings = {"seed": int(seed), "duration": float(duration), "fs": float(fs), "frequency": float(frequency),
                "n_harmonics": int(n_harmonics), "optimize": int(optimize),
                "validation_duration": float(validation_duration),
                "validation_frequency": float(validation_frequency),
                "validation_harmonics": int(validation_harmonics), "validation_optimize": int(validation_optimize),
                "errors": errors, "robot": cad.name,
                "excitation": excitation if isinstance(excitation, str) else ("given" if excitation is not None
                                                                              else "optimised"),
                "validation_excitation": (validation_excitation if isinstance(validation_excitation, str)
                                          else ("given" if validation_excitation is not None else "optimised")),
                "pipeline": None if pipeline is None else asdict(pipeline),
                "essential_level": lv_ess, "essential_threshold": float(essential_threshold)}
    gen = np.random.default_rng(seed)
    real = perturb_robot(cad, gen, **errors)
    base = base_parameters(cad, rng=0)
    sd = prior_std(cad, base, gen, 200, **errors)
    t = np.arange(int(round(duration * fs)) + 1) / fs
    # the random starting points are always drawn, so that the stream does not depend on what is given
    best = random_fourier(cad, 2 * np.pi * frequency, int(n_harmonics), gen, fill=0.9)
    if excitation is not None:
        best = _given_excitation(excitation, cad, frequency, int(n_harmonics), "excitation")
    elif optimize > 0:
        best = optimize_excitation(cad, best, base=base, maxiter=int(optimize), rng=gen).trajectory
    best_cond = excitation_cond(cad, best.evaluate(np.arange(0.0, best.period, 0.05)), base)
    val = random_fourier(cad, 2 * np.pi * validation_frequency, int(validation_harmonics), gen, fill=0.9)
    if validation_excitation is not None:
        val = _given_excitation(validation_excitation, cad, validation_frequency, int(validation_harmonics),
                                   "validation_excitation")
    elif validation_optimize > 0:
        val = optimize_excitation(cad, val, base=base, maxiter=int(validation_optimize), rng=gen).trajectory
    tv = np.arange(int(round(validation_duration * fs)) + 1) / fs
    settings["excitation_cond"] = best_cond
    train = clean_experiment(real, best.evaluate(t))
    truth = base.beta(real.params)
    W0, _ = stack(base.reduce(regressor(real, train.q, train.qd, train.qdd)), train.tau_true)
    rms = np.sqrt(np.mean(train.tau_true**2, axis=0))
    Wn = W0 * np.tile(1.0 / rms, t.size)[:, None]          # rows of joint j in units of its RMS torque
    D = np.sqrt(np.mean(Wn**2, axis=0))
    Ww = Wn / lv_ess                                       # whitened: noise lv_ess * rms_j on joint j
    _, sv, Vt = np.linalg.svd(Ww, full_matrices=False)
    wls_std = np.sqrt(np.sum((Vt.T / sv) ** 2, axis=1))
    return Study(
        cad=cad, real=real, base=base, truth=truth, prior=base.beta(cad.params), prior_std=sd,
        train=train, validation=clean_experiment(real, val.evaluate(tv)),
        excitation=best, validation_excitation=val, settings=settings,
        essential=essential_parameters(truth, wls_std, essential_threshold),
        column_scale=np.where(D > 0, D, 1.0), wls_std=wls_std, pipeline=pipeline,
    )


#: Names of the stored excitations of the book's benchmark (identification, validation).
BENCHMARK_EXCITATIONS = ("redundant_5dof_identification", "redundant_5dof_validation")
#: The stored benchmark table (written by ``benchmarks/bench_methods.py``).
BENCHMARK_FILE = Path(__file__).resolve().parent / "data" / "bench_methods.json"


def benchmark_study(cad: Any) -> Study:
    """The study of the book's benchmark: the 5-DOF arm, seed 2024, stored excitations.

    ``make_study(cad, seed=2024, excitation=..., validation_excitation=...)`` with the
    excitations stored in robidlib's package data (:data:`BENCHMARK_EXCITATIONS`, made by
    ``make_study(redundant_5dof(), seed=2024)``, which optimises them: their recipe is stored
    with them).  The same on every machine.  The robot is passed in (``robidlib.models`` is a
    higher layer than this module).

    Parameters
    ----------
    cad : SerialRobot
        The CAD model of the benchmark, ``robidlib.models.redundant_5dof()``.

    Returns
    -------
    Study

    Raises
    ------
    ValueError
        If ``cad`` is not the robot the stored excitations were made for.

    Examples
    --------
    >>> from robidlib.models import redundant_5dof
    >>> st = benchmark_study(redundant_5dof())
    >>> st.base.rank, st.settings["excitation"], bool(st.settings["excitation_cond"] < 5)
    (20, 'redundant_5dof_identification', True)
    """
    return make_study(cad, seed=2024, excitation=BENCHMARK_EXCITATIONS[0],
                      validation_excitation=BENCHMARK_EXCITATIONS[1])


def load_benchmark(path: Any = None) -> ResultTable:
    """The stored benchmark of the book (chapter 9), shipped as robidlib package data.

    Written by ``benchmarks/bench_methods.py`` (``make bench``): a seeded Monte Carlo of every
    method of :data:`METHODS` on :func:`benchmark_study` ``(redundant_5dof())``.  One row per axis, noise level,
    position noise, run and method (columns of :func:`compare_methods` plus ``axis``,
    ``level``, ``sigma_q`` and ``run``); ``meta`` holds the settings, the truth, the prior,
    the essential parameters, per-parameter statistics of the estimates
    (``meta["param_stats"]``), the machine, the BLAS threads and the run time.

    Parameters
    ----------
    path : path-like, optional
        Another file written by the benchmark script (default: the package data).

    Returns
    -------
    ResultTable

    Raises
    ------
    TypeError
        If ``path`` is not a path.
    ValueError
        If the file does not exist or is not a benchmark table.

    Examples
    --------
    >>> bench = load_benchmark()
    >>> bench.meta["benchmark"], sorted(set(bench.column("axis")))
    ('bench_methods', ['ekf_q', 'homoscedastic', 'position', 'torque'])
    """
    if path is not None and (isinstance(path, bool) or not isinstance(path, (str, os.PathLike))):
        raise TypeError(f"path must be a str or os.PathLike (or None), got {type(path).__name__} {path!r}")
    f = BENCHMARK_FILE if path is None else Path(path)
    if not f.is_file():
        raise ValueError(f"no benchmark table at {f}: run `make bench` (benchmarks/bench_methods.py) to write it")
    table = ResultTable.from_json(f.read_text(encoding="utf-8"))
    if table.meta.get("benchmark") != "bench_methods":
        raise ValueError(f"{f} is not a table written by benchmarks/bench_methods.py")
    return table
