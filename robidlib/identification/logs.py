"""Reading logs and data hygiene: time stamps, gaps, jitter, NaN rows, saturated signals.

Real logs are not the uniform, complete records the pipeline's filters need. Before
anything is filtered, every record goes through the same checks, each stated in the report:

* **time stamps** must increase strictly: a duplicate or decreasing stamp is an error naming
  the file and the row (:func:`check_time_stamps`), never silently sorted;
* **NaN and infinite rows** (a missing cell, a logger's ``nan``) are dropped and split the
  record there, like a gap; they are counted and their rows reported;
* **gaps**: a step larger than the gap threshold (default five times the median step)
  splits a record into segments (:func:`split_at_gaps`); nothing is interpolated across a
  gap, because a filter or a derivative across it would invent motion;
* **jitter**: a segment whose steps deviate from the median step by more than the tolerance
  (default 1 %) is resampled onto a uniform grid (:func:`resample_uniform`): positions and
  velocities by cubic spline interpolation (not-a-knot), torques and currents linearly (a
  cubic would overshoot their noise); a segment within the tolerance keeps its samples and
  gets the uniform stamps ``t0 + k / rate``;
* **saturated signals**: a torque or velocity column that holds its extreme value for more
  than a few samples is flagged (:func:`detect_saturation`): a drive at its current limit
  does not report the torque the dynamics needed. Flagged, not removed: the report says
  where.
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .._validate import as_array, check_fields, check_flag, check_int, check_nonnegative, check_positive, check_text

__all__ = [
    "Segment",
    "check_time_stamps",
    "clean_record",
    "detect_saturation",
    "read_columns",
    "resample_uniform",
    "split_at_gaps",
]


def _file_label(path: Any) -> str:
    return os.path.basename(str(path))


def read_columns(path: str | os.PathLike, columns: Sequence[str], *, delimiter: str = ",",
                 what: str = "column") -> np.ndarray:
    """Read named columns of a CSV file with one header line, as floats.

    Empty cells and ``nan`` become NaN (the caller decides what a NaN row means); anything
    else that is not a number is an error naming the file, the row and the column.

    Parameters
    ----------
    path : str or os.PathLike
    columns : sequence of str
        Header names to read (surrounding spaces ignored), in the order wanted.
    delimiter : str, default ","
    what : str, default "column"
        How the caller names the columns in error messages (e.g. the configuration key).

    Returns
    -------
    numpy.ndarray, shape (N, len(columns))

    Raises
    ------
    FileNotFoundError
        No such file.
    ValueError
        An empty file, a column missing from the header (with the closest names), a
        duplicate header name that is asked for, a cell that is not a number, rows of
        different lengths.
    TypeError
        Arguments of the wrong type.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "log.csv"
    >>> _ = f.write_text("t, q1, tau1\\n0.0, 0.1, 2.0\\n0.01, 0.2,\\n")
    >>> read_columns(f, ["tau1", "t"])
    array([[2.  , 0.  ],
           [ nan, 0.01]])
    """
    import difflib

    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a path, got {type(path).__name__}")
    if isinstance(columns, str) or not all(isinstance(c, str) for c in columns):
        raise TypeError(f"columns must be a sequence of column names, got {columns!r}")
    if not isinstance(delimiter, str) or len(delimiter) != 1:
        raise ValueError(f"delimiter must be one character, got {delimiter!r}")
    check_text("what", what)
    p = Path(path)
    name = _file_label(p)
    if not p.is_file():
        raise FileNotFoundError(f"log file {str(p)!r} not found")
    with open(p, encoding="utf-8-sig", newline="") as fh:
        text = fh.read()
    lines = text.splitlines()
    if not lines:
        raise ValueError(f"{name}: the file is empty; expected a header line and data rows")
    header = [h.strip() for h in next(csv.reader([lines[0]], delimiter=delimiter))]
    idx = []
    for c in columns:
        key = c.strip()
        hits = [k for k, h in enumerate(header) if h == key]
        if not hits:
            close = difflib.get_close_matches(key, header, n=2)
            hint = f"; closest: {close}" if close else ""
            raise ValueError(f"{name}: {what} {c!r} is not in the header{hint}; the header has {header}")
        if len(hits) > 1:
            raise ValueError(f"{name}: {what} {c!r} appears {len(hits)} times in the header")
        idx.append(hits[0])
    if len(lines) < 2:
        raise ValueError(f"{name}: the file has a header but no data row")
    try:
        data = np.loadtxt(io.StringIO(text), delimiter=delimiter, skiprows=1, usecols=idx, ndmin=2,
                          dtype=float, encoding=None)
    except ValueError:
        data = _read_slowly(lines[1:], idx, delimiter, name, [header[k] for k in idx])
    if data.shape[0] == 0:
        raise ValueError(f"{name}: the file has a header but no data row")
    return data


def _read_slowly(rows: list[str], idx: list[int], delimiter: str, name: str, labels: list[str]) -> np.ndarray:
    """A cell-by-cell reader for files with empty cells: '' and 'nan' -> NaN, anything else named."""
    out = np.empty((len(rows), len(idx)))
    width = None
    for r, row in enumerate(csv.reader(rows, delimiter=delimiter)):
        if width is None:
            width = len(row)
        if len(row) != width or max(idx) >= len(row):
            raise ValueError(f"{name}: row {r + 2} has {len(row)} fields, the first data row {width}")
        for c, k in enumerate(idx):
            cell = row[k].strip()
            if cell == "" or cell.lower() in ("nan", "na", "null", "none"):
                out[r, c] = np.nan
                continue
            try:
                out[r, c] = float(cell)
            except ValueError:
                raise ValueError(f"{name}: row {r + 2}, column {labels[c]!r}: {cell!r} is not a number") from None
    return out


def check_time_stamps(t: Any, source: str = "t", first_row: int = 2) -> np.ndarray:
    """Check that time stamps increase strictly; return them as floats.

    Parameters
    ----------
    t : array_like, shape (N,)
        Time stamps, s (finite).
    source : str, default "t"
        Named in error messages (e.g. the file name).
    first_row : int, default 2
        File row of ``t[0]`` (1-based, after one header line), for the messages.

    Returns
    -------
    numpy.ndarray, shape (N,)

    Raises
    ------
    ValueError
        NaN/inf, fewer than 2 stamps, a duplicate or decreasing stamp: the message names the
        source and the row of the first one and says how many there are.

    Examples
    --------
    >>> check_time_stamps([0.0, 0.01, 0.01, 0.03], "log.csv")
    Traceback (most recent call last):
    ...
    ValueError: log.csv: time stamps must increase strictly; row 4 repeats the stamp 0.01 s of row 3 (1 duplicate or decreasing stamp in all)
    """
    t = as_array("t", t, ndim=1)
    check_text("source", source)
    first_row = check_int("first_row", first_row, 0)
    if t.size < 2:
        raise ValueError(f"{source}: at least 2 time stamps are needed, got {t.size}")
    dt = np.diff(t)
    bad = np.flatnonzero(dt <= 0)
    if bad.size:
        k = int(bad[0])
        what = "repeats the stamp" if dt[k] == 0 else "goes back in time from the stamp"
        raise ValueError(
            f"{source}: time stamps must increase strictly; row {k + 1 + first_row} {what} "
            f"{t[k]:.9g} s of row {k + first_row}"
            + (f" (to {t[k + 1]:.9g} s)" if dt[k] < 0 else "")
            + f" ({bad.size} duplicate or decreasing stamp{'s' if bad.size > 1 else ''} in all)"
        )
    return t


def split_at_gaps(t: Any, gap: float) -> list[slice]:
    """Contiguous runs of samples between gaps: slices into ``t``.

    Parameters
    ----------
    t : array_like, shape (N,)
        Strictly increasing time stamps, s.
    gap : float
        A step larger than this (s) ends a run.

    Returns
    -------
    list of slice

    Raises
    ------
    ValueError
        Stamps that do not increase, a non-positive gap.

    Examples
    --------
    >>> split_at_gaps([0.0, 0.1, 0.2, 1.0, 1.1], gap=0.5)
    [slice(0, 3, None), slice(3, 5, None)]
    """
    t = check_time_stamps(t)
    gap = check_positive("gap", gap)
    cuts = np.flatnonzero(np.diff(t) > gap) + 1
    edges = np.r_[0, cuts, t.size]
    return [slice(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:])]


def resample_uniform(t: Any, x: Any, rate: float, *, order: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Interpolate samples at jittered stamps onto the uniform grid ``t[0] + k / rate``.

    Parameters
    ----------
    t : array_like, shape (N,)
        Strictly increasing stamps, s (one segment: no gap inside).
    x : array_like, shape (N,) or (N, m)
    rate : float
        Rate of the grid, Hz.
    order : {1, 3}, default 3
        Linear, or cubic spline (not-a-knot, ``scipy.interpolate.make_interp_spline``).

    Returns
    -------
    t_uniform : numpy.ndarray, shape (M,)
        ``t[0] + k / rate`` for every ``k`` with ``t_uniform <= t[-1]`` (to 1e-9 of a step).
    x_uniform : numpy.ndarray, shape (M,) or (M, m)

    Raises
    ------
    ValueError
        Stamps that do not increase, NaN/inf, too few samples for the order, a bad rate or
        order, shapes that do not match.

    Examples
    --------
    >>> import numpy as np
    >>> t = np.array([0.0, 0.011, 0.019, 0.031, 0.04])
    >>> tu, xu = resample_uniform(t, 2.0 * t, 100.0, order=1)
    >>> tu.round(3).tolist(), xu.round(3).tolist()
    ([0.0, 0.01, 0.02, 0.03, 0.04], [0.0, 0.02, 0.04, 0.06, 0.08])
    """
    t = check_time_stamps(t)
    x = as_array("x", x, ndim=(1, 2))
    if x.shape[0] != t.size:
        raise ValueError(f"x must have one row per time stamp ({t.size}), got shape {x.shape}")
    rate = check_positive("rate", rate)
    order = check_int("order", order, 1, 3)
    if order == 2:
        raise ValueError("order must be 1 (linear) or 3 (cubic spline), got 2")
    if t.size < order + 1:
        raise ValueError(f"t must hold at least {order + 1} samples for order {order}, got {t.size}")
    import scipy.interpolate  # here: importing robidlib.identification need not load it

    m = int(np.floor((t[-1] - t[0]) * rate + 1e-9)) + 1
    tu = t[0] + np.arange(m) / rate
    tu[-1] = min(tu[-1], t[-1])
    if order == 1:
        xu = scipy.interpolate.interp1d(t, x, axis=0, assume_sorted=True)(tu)
    else:
        xu = scipy.interpolate.make_interp_spline(t, x, k=3, axis=0)(tu)
    return tu, xu


def detect_saturation(x: Any, *, min_run: int = 5, limit: Any = None) -> list[dict]:
    """Columns that sit at their extreme value (or at a known limit) for several samples.

    A column is flagged when its maximum (or minimum) value is held for ``min_run`` or more
    consecutive samples, or when ``limit`` is given and ``|x|`` reaches 99 % of it. A column
    that is constant throughout is not flagged here (it carries no signal at all, which the
    report states elsewhere).

    Parameters
    ----------
    x : array_like, shape (N, m)
    min_run : int, default 5
    limit : array_like, shape (m,), optional
        Known limits of ``|x|`` (e.g. the URDF's effort limits; ``inf`` for none).

    Returns
    -------
    list of dict
        One per flagged column: ``column`` (0-based), ``value``, ``samples`` (how many
        samples sit at it), ``longest_run``, ``at_limit`` (bool).

    Raises
    ------
    ValueError
        NaN, a wrong shape or a bad ``min_run``.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.sin(np.linspace(0, 6, 200))[:, None] * [1.0, 1.0]
    >>> x[:, 1] = np.clip(x[:, 1], -0.8, 0.8)          # a drive at its limit
    >>> [(f["column"], round(f["value"], 2)) for f in detect_saturation(x)]
    [(1, 0.8), (1, -0.8)]
    """
    x = as_array("x", x, ndim=2)
    if x.shape[0] == 0:
        raise ValueError("x must hold samples (rows), got an empty array")
    min_run = check_int("min_run", min_run, 2, x.shape[0])
    lim = None
    if limit is not None:
        lim = as_array("limit", limit, shape=(x.shape[1],), finite=False)
        if np.any(np.isnan(lim)) or np.any(lim <= 0):
            raise ValueError(f"limit must be > 0 (inf for none), got {lim.tolist()}")
    out = []
    for j in range(x.shape[1]):
        col = x[:, j]
        if col.size == 0 or np.all(col == col[0]):
            continue
        for value in (col.max(), col.min()):
            at = col == value
            runs = np.diff(np.flatnonzero(np.diff(np.r_[0, at.astype(np.int8), 0])))[::2] if at.any() else [0]
            longest = int(np.max(runs))
            at_limit = bool(lim is not None and np.isfinite(lim[j]) and abs(value) >= 0.99 * lim[j])
            if longest >= min_run or at_limit:
                out.append({"column": j, "value": float(value), "samples": int(at.sum()),
                            "longest_run": longest, "at_limit": at_limit})
    return out


@dataclass(frozen=True, eq=False)
class Segment:
    """A gap-free, uniformly sampled piece of a record, in SI units and the model's signs.

    Attributes
    ----------
    record : str
        Name of the record it comes from.
    index : int
        Its number within the record (0, 1, ...).
    t : numpy.ndarray, shape (N,)
        Uniform stamps, s.
    position, torque : numpy.ndarray, shape (N, n)
        As configured (joint or motor side; torques, motor torques or currents).
    velocity : numpy.ndarray, shape (N, n) or None
    resampled : bool
        Interpolated onto the uniform grid (jittered stamps).
    rows : tuple of int
        First and last file row (1-based, after the header) of the samples it holds.
    """

    record: str
    index: int
    t: np.ndarray
    position: np.ndarray
    torque: np.ndarray
    velocity: np.ndarray | None = None
    resampled: bool = False
    rows: tuple = (0, 0)

    def __post_init__(self) -> None:
        check_text("record", self.record)
        object.__setattr__(self, "index", check_int("index", self.index, 0))
        check_flag("resampled", self.resampled)
        dims = check_fields(self, t=("N",), position=("N", "n"), torque=("N", "n"), velocity=("N", "n"))
        if dims["N"] == 0 or dims["n"] == 0:
            raise ValueError(f"t and position must not be empty, got {dims['N']} samples of {dims['n']} joints")
        r = self.rows
        if (not isinstance(r, tuple) or len(r) != 2 or any(isinstance(v, bool) or not isinstance(v, (int, np.integer))
                                                            for v in r) or not 0 <= r[0] <= r[1]):
            raise ValueError(f"rows must be a tuple (first, last) of file rows, 0 <= first <= last, got {r!r}")

    @property
    def n_samples(self) -> int:
        """Number of samples."""
        return int(self.t.size)

    @property
    def duration(self) -> float:
        """Length in time, s."""
        return float(self.t[-1] - self.t[0]) if self.t.size else 0.0


def clean_record(
    name: str,
    t: Any,
    position: Any,
    torque: Any,
    velocity: Any = None,
    *,
    gap: float | None = None,
    jitter: float = 0.01,
    rate: float | None = None,
    min_segment: float = 1.0,
    min_samples: int = 30,
    source: str = "",
) -> tuple[list[Segment], dict]:
    """Data hygiene of one record: NaN rows, stamps, gaps, jitter, short segments.

    Parameters
    ----------
    name : str
        The record's name (in the segments and messages).
    t : array_like, shape (N,)
        Time stamps, s (NaN allowed: such rows are dropped).
    position, torque : array_like, shape (N, n)
    velocity : array_like, shape (N, n), optional
    gap : float, optional
        Steps larger than this (s) split the record; default five times the median step.
    jitter : float, default 0.01
        Relative deviation of a step from the median step tolerated without resampling.
    rate : float, optional
        Rate of the uniform grid (Hz); default one over the median step.
    min_segment : float, default 1.0
        Shorter segments (s) are dropped.
    min_samples : int, default 30
        Segments with fewer samples are dropped.
    source : str, optional
        File name(s) for the messages (default: the record's name).

    Returns
    -------
    segments : list of Segment
    summary : dict
        ``samples``, ``duration``, ``median_step``, ``step_min``, ``step_max``,
        ``step_jitter`` (std of the steps over the median), ``rate`` (the grid's), ``gap``,
        ``gaps`` (``[{"row", "time", "step"}]``), ``nan_rows`` (count and the first rows),
        ``resampled`` (segments resampled), ``dropped_segments``, ``segments`` (their
        ``rows``, ``start``, ``duration``, ``samples``, ``resampled``), ``kept_samples``.

    Raises
    ------
    ValueError
        Duplicate or decreasing stamps (file and row named), shapes that do not match, no
        segment left.

    Examples
    --------
    >>> import numpy as np
    >>> t = np.r_[np.arange(300) * 0.01, 5.0 + np.arange(300) * 0.01]   # a 2 s gap
    >>> q = np.sin(t)[:, None]
    >>> segs, info = clean_record("run", t, q, q)
    >>> len(segs), info["gaps"][0]["row"], info["resampled"]
    (2, 302, 0)
    """
    check_text("name", name)
    check_text("source", source)
    src = source or name
    t = as_array("t", t, ndim=1, finite=False)
    P = as_array("position", position, ndim=2, finite=False)
    if P.shape[0] != t.size:
        raise ValueError(f"position must have one row per time stamp of t ({t.size}), got shape {P.shape}")
    Q = as_array("torque", torque, ndim=2, finite=False)
    if Q.shape != P.shape:
        raise ValueError(f"torque must have shape {P.shape} (the shape of position), got {Q.shape}")
    V = None if velocity is None else as_array("velocity", velocity, ndim=2, finite=False)
    if V is not None and V.shape != P.shape:
        raise ValueError(f"velocity must have shape {P.shape} (the shape of position), got {V.shape}")
    jitter = check_nonnegative("jitter", jitter)
    min_segment = check_nonnegative("min_segment", min_segment)
    min_samples = check_int("min_samples", min_samples, 2)
    rows = np.arange(t.size) + 2                       # file rows, 1-based after one header line
    finite = np.isfinite(t) & np.all(np.isfinite(P), 1) & np.all(np.isfinite(Q), 1)
    if V is not None:
        finite &= np.all(np.isfinite(V), 1)
    nan_rows = rows[~finite]
    if finite.sum() < 2:
        raise ValueError(f"{src}: fewer than 2 rows without NaN; nothing to identify from")
    tf, rf = t[finite], rows[finite]
    back = np.flatnonzero(np.diff(tf) <= 0)
    if back.size:
        k = int(back[0])
        what = "repeats the stamp" if tf[k + 1] == tf[k] else f"goes back in time (to {tf[k + 1]:.9g} s) from"
        raise ValueError(f"{src}: time stamps must increase strictly; row {rf[k + 1]} {what} {tf[k]:.9g} s "
                         f"of row {rf[k]} ({back.size} duplicate or decreasing stamp"
                         f"{'s' if back.size > 1 else ''} in all)")
    # NaN rows split the record: the neighbours of a dropped row are not contiguous
    keep_idx = np.flatnonzero(finite)
    breaks = np.flatnonzero(np.diff(keep_idx) > 1) + 1
    tk = t[keep_idx]
    steps = np.diff(tk)
    contiguous = np.ones(steps.size, dtype=bool)
    contiguous[breaks - 1] = False
    base_steps = steps[contiguous] if contiguous.any() else steps
    median = float(np.median(base_steps))
    gap_ = 5.0 * median if gap is None else check_positive("gap", gap)
    rate_ = 1.0 / median if rate is None else check_positive("rate", rate)
    big = np.flatnonzero(steps > gap_)
    cuts = np.unique(np.r_[breaks, big + 1]).astype(int)
    edges = np.r_[0, cuts, tk.size]
    segments, seg_info, dropped = [], [], []
    for a, b in zip(edges[:-1], edges[1:]):
        sl = keep_idx[a:b]
        ts = t[sl]
        r0, r1 = int(rows[sl[0]]), int(rows[sl[-1]])
        dur = float(ts[-1] - ts[0]) if ts.size else 0.0
        if ts.size < min_samples or dur < min_segment:
            dropped.append({"rows": [r0, r1], "duration": dur, "samples": int(ts.size),
                            "reason": f"shorter than {min_segment:g} s or {min_samples} samples"})
            continue
        d = np.diff(ts)
        dev = float(np.max(np.abs(d * rate_ - 1.0)))
        resampled = dev > jitter
        if resampled:
            tu, pos = resample_uniform(ts, P[sl], rate_, order=3)
            _, tq = resample_uniform(ts, Q[sl], rate_, order=1)
            vel = None if V is None else resample_uniform(ts, V[sl], rate_, order=3)[1]
        else:
            tu = ts[0] + np.arange(ts.size) / rate_
            pos, tq, vel = P[sl].copy(), Q[sl].copy(), None if V is None else V[sl].copy()
        segments.append(Segment(record=name, index=len(segments), t=tu, position=pos, torque=tq, velocity=vel,
                                resampled=bool(resampled), rows=(r0, r1)))
        seg_info.append({"rows": [r0, r1], "start": float(tu[0]), "duration": float(tu[-1] - tu[0]),
                         "samples": int(tu.size), "resampled": bool(resampled), "largest_step_deviation": dev})
    if not segments:
        raise ValueError(f"{src}: no segment of at least {min_segment:g} s (min_segment) and {min_samples} samples "
                         f"(min_samples) is left "
                         f"after splitting at {len(big)} gap(s) and {nan_rows.size} NaN row(s)")
    summary = {
        "samples": int(t.size), "duration": float(tk[-1] - tk[0]), "median_step": median,
        "step_min": float(steps.min()) if steps.size else median, "step_max": float(steps.max()) if steps.size else median,
        "step_jitter": float(np.std(base_steps) / median) if base_steps.size else 0.0,
        "rate": rate_, "gap": gap_, "jitter_tolerance": jitter,
        "gaps": [{"row": int(rows[keep_idx[k + 1]]), "time": float(tk[k]), "step": float(steps[k])} for k in big],
        "nan_rows": {"count": int(nan_rows.size), "first": nan_rows[:10].tolist()},
        "resampled": int(sum(s.resampled for s in segments)), "dropped_segments": dropped, "segments": seg_info,
        "kept_samples": int(sum(s.n_samples for s in segments)),
    }
    return segments, summary
