"""The figures that several chapters draw: uncertainty, rank, estimates against the truth.

* :func:`ellipse_points`, :func:`confidence_ellipse`: the ellipse
  ``(x - m)' C^-1 (x - m) = r^2`` of a 2-D Gaussian, for a Monte Carlo cloud of estimates;
* :func:`singular_values`: singular values on a log scale with the rank tolerance;
* :func:`estimate_band`, :func:`parameter_history`: on-line estimates over time with their
  ``+-k sigma`` band, the truth and a batch reference;
* :func:`grouped_bars`, :func:`estimate_errorbars`: one quantity per parameter for several
  methods, and estimates with error bars against the truth;
* :func:`measured_vs_predicted`: measured signals per joint and a model's prediction;
* :func:`error_distribution`: the distribution of an error over Monte Carlo draws, per method.

Every function takes an optional ``ax`` (or ``axes``) and returns what it drew on, so that
a chapter can add its own title and labels.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import PolyCollection
from matplotlib.lines import Line2D
from numpy.typing import ArrayLike

from .._validate import check_positive
from .style import PALETTE, _axes, _fraction, _real

__all__ = [
    "ellipse_points",
    "confidence_ellipse",
    "singular_values",
    "estimate_band",
    "parameter_history",
    "grouped_bars",
    "estimate_errorbars",
    "measured_vs_predicted",
    "error_distribution",
]

TRUTH_STYLE: dict[str, Any] = dict(color="k", ls="--", lw=1.0)
REFERENCE_STYLE: dict[str, Any] = dict(color=PALETTE["green"], ls=":", lw=1.5)


#: Most points or panels a figure function draws (more would only exhaust memory).
_MAX_POINTS = 10**6


def _int(name: str, value: Any, minimum: int, maximum: int = _MAX_POINTS) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    if value > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {value}")
    return int(value)


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")
    return bool(value)


def _names(name: str, names: Any, p: int, default: str = "p") -> list[str]:
    if names is None:
        return [f"{default}{i + 1}" for i in range(p)]
    if isinstance(names, str):
        raise TypeError(f"{name} must be a sequence of {p} strings, got a single string")
    out = list(names)
    bad = [v for v in out if not isinstance(v, str)]
    if bad:
        raise TypeError(f"{name} must hold strings, got {type(bad[0]).__name__} {bad[0]!r}")
    if len(out) != p:
        raise ValueError(f"{name} must hold {p} labels, got {len(out)}")
    return out


def _mean_cov(mean: ArrayLike, cov: ArrayLike, dims: Sequence[int] | None) -> tuple[np.ndarray, np.ndarray]:
    m = _real("mean", mean, ndim=1)
    C = _real("cov", cov, ndim=2)
    if C.shape != (m.size, m.size):
        raise ValueError(f"cov must have shape ({m.size}, {m.size}) to match mean, got {C.shape}")
    if dims is not None:
        if isinstance(dims, (str, bytes)) or not hasattr(dims, "__iter__"):
            raise TypeError(f"dims must be two integer indices (i, j), got {type(dims).__name__} {dims!r}")
        idx = list(dims)
        if len(idx) != 2 or len(set(idx)) != 2 or not all(isinstance(i, (int, np.integer)) for i in idx):
            raise ValueError(f"dims must be two different integer indices, got {dims!r}")
        if not all(-m.size <= i < m.size for i in idx):
            raise ValueError(f"dims {dims!r} out of range: expected indices in [0, {m.size}) (the length of mean)")
        m, C = m[idx], C[np.ix_(idx, idx)]
    if m.size != 2:
        raise ValueError(f"mean must have 2 entries (or pass dims=(i, j)), got {m.size}")
    scale = max(float(np.max(np.abs(C))), np.finfo(float).tiny)
    if abs(C[0, 1] - C[1, 0]) > 1e-10 * scale:
        raise ValueError(f"cov must be symmetric, got off-diagonal entries {C[0, 1]!r} and {C[1, 0]!r}")
    lam = np.linalg.eigvalsh((C + C.T) / 2)
    if lam[0] < -1e-10 * scale:
        raise ValueError(f"cov must be positive semi-definite, got eigenvalues {lam.tolist()}")
    return m, (C + C.T) / 2


def ellipse_points(
    mean: ArrayLike, cov: ArrayLike, n_std: float = 1.0, n_points: int = 200, *, dims: Sequence[int] | None = None
) -> np.ndarray:
    """Points of the ellipse ``(x - mean)' cov^-1 (x - mean) = n_std^2``.

    Parameters
    ----------
    mean : array_like, shape (2,) or (p,)
        Centre.
    cov : array_like, shape (2, 2) or (p, p)
        Symmetric positive semi-definite covariance (a singular one gives a flat ellipse).
    n_std : float, default 1.0
        Mahalanobis radius ``r`` (> 0).
    n_points : int, default 200
        Number of points (>= 3); the first and the last coincide.
    dims : (int, int), optional
        The two coordinates to take from a larger ``mean`` and ``cov``.

    Returns
    -------
    numpy.ndarray, shape (n_points, 2)

    Raises
    ------
    TypeError
        Complex or non-numeric input, a non-integer ``n_points``.
    ValueError
        Wrong shapes, NaN/inf, a non-symmetric or indefinite ``cov``, ``n_std <= 0``,
        ``n_points < 3``, bad ``dims``.

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[4.0, 1.0], [1.0, 2.0]])
    >>> xy = ellipse_points([1.0, -1.0], C, n_std=2.0)
    >>> d = xy - [1.0, -1.0]
    >>> bool(np.allclose(np.einsum("ki,ij,kj->k", d, np.linalg.inv(C), d), 4.0))
    True
    """
    m, C = _mean_cov(mean, cov, dims)
    r = check_positive("n_std", n_std)
    n = _int("n_points", n_points, 3)
    lam, V = np.linalg.eigh(C)
    th = np.linspace(0.0, 2 * np.pi, n)
    circle = np.stack([np.cos(th), np.sin(th)])
    return m + (r * (V * np.sqrt(np.clip(lam, 0.0, None))) @ circle).T


def confidence_ellipse(
    mean: ArrayLike,
    cov: ArrayLike,
    ax: Axes | None = None,
    *,
    level: float | None = None,
    n_std: float | None = None,
    dims: Sequence[int] | None = None,
    n_points: int = 200,
    **line_kw: Any,
) -> Line2D:
    """Draw the confidence ellipse of a 2-D Gaussian ``N(mean, cov)``.

    For a probability ``level`` the radius is ``r = sqrt(chi2_2^-1(level)) =
    sqrt(-2 ln(1 - level))`` (5.991 = r^2 for 95 %): that fraction of Gaussian draws falls
    inside. Alternatively give the radius ``n_std`` itself.

    Parameters
    ----------
    mean, cov : array_like
        As in :func:`ellipse_points`.
    ax : matplotlib.axes.Axes, optional
        2-D axes (a new figure when omitted).
    level : float, optional
        Probability inside the ellipse, in (0, 1); default 0.95 when ``n_std`` is not given.
    n_std : float, optional
        Mahalanobis radius instead of ``level``.
    dims : (int, int), optional
        Two coordinates of a larger ``mean`` / ``cov`` (e.g. the two most correlated
        parameters).
    n_points : int, default 200
    **line_kw
        Passed to ``ax.plot`` (``color``, ``label``, ``ls``, ...).

    Returns
    -------
    matplotlib.lines.Line2D

    Raises
    ------
    TypeError, ValueError
        As :func:`ellipse_points`; also for both ``level`` and ``n_std`` given, or a
        ``level`` outside (0, 1).

    Examples
    --------
    >>> import numpy as np
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from robidlib.plotting import confidence_ellipse
    >>> C = np.array([[1.0, 0.8], [0.8, 1.0]])
    >>> x = np.random.default_rng(0).multivariate_normal([0, 0], C, 4000)
    >>> line = confidence_ellipse([0, 0], C, level=0.95, label="95 %")
    >>> inside = np.einsum("ki,ij,kj->k", x, np.linalg.inv(C), x) <= -2 * np.log(0.05)
    >>> bool(abs(inside.mean() - 0.95) < 0.02)
    True
    """
    if level is not None and n_std is not None:
        raise ValueError("give either level or n_std, not both")
    if n_std is None:
        lv = 0.95 if level is None else _fraction("level", level, allow_one=False)
        r = math.sqrt(-2.0 * math.log1p(-lv))
    else:
        r = check_positive("n_std", n_std)
    xy = ellipse_points(mean, cov, r, n_points, dims=dims)
    ax = _axes(ax, False)
    (line,) = ax.plot(xy[:, 0], xy[:, 1], **line_kw)
    line.set_gid("ellipse")
    return line


def singular_values(
    s: ArrayLike,
    ax: Axes | None = None,
    *,
    tol: float | None = None,
    relative: bool = False,
    label: str | None = None,
    marker: str = "o",
    color: str | None = None,
) -> Axes:
    """Singular values on a log scale, with the rank tolerance and the rank it gives.

    Values above ``tol`` are filled markers, those at or below it hollow; exact zeros
    (which a log scale cannot show) are drawn as downward triangles at the bottom of the
    plot. Call again on the same axes to compare several sets.

    Parameters
    ----------
    s : array_like, shape (p,)
        Singular values, non-negative and non-increasing (as ``numpy.linalg.svd`` returns).
    ax : matplotlib.axes.Axes, optional
    tol : float, optional
        Rank tolerance, in the units of ``s`` (also when ``relative``): a dashed line, and a
        dotted line after the last value above it, labelled with the rank.
    relative : bool, default False
        Plot ``s / s[0]``.
    label : str, optional
        Legend entry of the markers.
    marker, color : str, optional
        Marker and colour of this set.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    TypeError
        Complex or non-numeric ``s``.
    ValueError
        ``s`` empty, not 1-D, NaN/inf, negative, increasing, all zero; ``tol`` not > 0 or
        below the round-off level ``eps * s[0]``.

    Examples
    --------
    >>> import numpy as np
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from robidlib.plotting import singular_values
    >>> W = np.random.default_rng(0).normal(size=(50, 4)) @ np.diag([3.0, 1.0, 0.5, 0.0])
    >>> sv = np.linalg.svdvals(W)                 # the singular values
    >>> ax = singular_values(sv, tol=1e-10, label="W")
    >>> [t.get_text() for t in ax.texts]
    ['rank 3']
    """
    sv = _real("s", s, ndim=1)
    if sv.size == 0:
        raise ValueError("s must hold at least one singular value, got an empty array")
    if np.any(sv < 0):
        raise ValueError(f"s must be >= 0, got the minimum {sv.min()!r}")
    if np.any(np.diff(sv) > 0):
        raise ValueError("s must be non-increasing (sorted as numpy.linalg.svd returns it)")
    if sv[0] == 0:
        raise ValueError("s is all zero: nothing to show on a log scale")
    t = None if tol is None else check_positive("tol", tol)
    if t is not None and t < np.finfo(float).eps * sv[0]:
        raise ValueError(f"tol must be >= eps * s[0] = {np.finfo(float).eps * sv[0]:.3g} (the round-off level of "
                         f"the singular values: below it round-off would count as rank), got {t:.3g}")
    relative = _flag("relative", relative)
    ax = _axes(ax, False)
    div = sv[0] if relative else 1.0
    y = sv / div
    i = np.arange(1, sv.size + 1)
    above = sv > t if t is not None else np.ones(sv.size, bool)
    zero = sv == 0
    (pts,) = ax.semilogy(i[above & ~zero], y[above & ~zero], marker, ls="none", ms=4, color=color, label=label,
                         gid="singular_values")
    c = pts.get_color()
    ax.semilogy(i[~above & ~zero], y[~above & ~zero], marker, ls="none", ms=4, mfc="none", color=c,
                gid="singular_values")
    if zero.any():
        ax.plot(i[zero], np.full(zero.sum(), 0.02), "v", ls="none", ms=4, mfc="none", color=c,
                transform=ax.get_xaxis_transform(), gid="singular_values")
    if t is not None:
        rank = int(above.sum())
        ax.axhline(t / div, color=PALETTE["vermillion"], ls="--", lw=1, gid="tol",
                   label=f"tolerance {t / div:.1e} $s_1$" if relative else f"tolerance {t:.1e}")
        ax.axvline(rank + 0.5, color="0.5", ls=":", lw=1, gid="rank")
        ax.text(rank + 0.6, 0.98, f"rank {rank}", transform=ax.get_xaxis_transform(), ha="left", va="top",
                fontsize=8, color="0.3", gid="rank")
    ax.set_xlabel("index $i$ of the singular value")
    ax.set_ylabel("$s_i / s_1$ (-)" if relative else "singular value $s_i$")
    if label is not None or t is not None:
        ax.legend(loc="lower left")
    return ax


def estimate_band(
    x: ArrayLike,
    mean: ArrayLike,
    std: ArrayLike,
    ax: Axes | None = None,
    *,
    n_std: float = 3.0,
    color: str | None = None,
    label: str | None = None,
    band_label: str | None = None,
    alpha: float = 0.25,
    **line_kw: Any,
) -> tuple[Line2D, PolyCollection]:
    """An estimate over time with its ``+- n_std`` standard-deviation band.

    Parameters
    ----------
    x : array_like, shape (N,)
        Time (or sample, epoch).
    mean, std : array_like, shape (N,)
        Estimate and its standard deviation (>= 0), e.g. a Kalman filter's ``sqrt(P_ii)``.
    ax : matplotlib.axes.Axes, optional
    n_std : float, default 3.0
        Half-width of the band in standard deviations (> 0).
    color, label : str, optional
        Colour and legend entry of the line (the band takes the same colour).
    band_label : str, optional
        Legend entry of the band.
    alpha : float, default 0.25
        Opacity of the band, in (0, 1].
    **line_kw
        Passed to ``ax.plot``.

    Returns
    -------
    (Line2D, PolyCollection)
        The line and the band.

    Raises
    ------
    TypeError
        Complex or non-numeric input.
    ValueError
        Shapes that differ or are not 1-D, NaN/inf, negative ``std``, bad ``n_std`` or
        ``alpha``.

    Examples
    --------
    >>> import numpy as np
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from robidlib.plotting import estimate_band
    >>> t = np.linspace(0, 1, 50)
    >>> line, band = estimate_band(t, 1 - np.exp(-5 * t), 0.2 * np.exp(-3 * t), label="EKF")
    >>> line.get_label(), band.get_gid()
    ('EKF', 'band')
    """
    xs = _real("x", x, ndim=1)
    m = _real("mean", mean, ndim=1)
    sd = _real("std", std, ndim=1)
    for name, a in (("mean", m), ("std", sd)):
        if a.shape != xs.shape:
            raise ValueError(f"{name} must have shape {xs.shape} (that of x), got {a.shape}")
    if np.any(sd < 0):
        raise ValueError(f"std must be >= 0, got the minimum {sd.min()!r}")
    k = check_positive("n_std", n_std)
    a = _fraction("alpha", alpha)
    ax = _axes(ax, False)
    (line,) = ax.plot(xs, m, color=color, label=label, **line_kw)
    band = ax.fill_between(xs, m - k * sd, m + k * sd, color=line.get_color(), alpha=a, lw=0, label=band_label)
    band.set_gid("band")
    line.set_gid("estimate")
    return line, band


def _grid(k: int, ncols: int | None, figsize: Any = None) -> np.ndarray:
    import matplotlib.pyplot as plt

    nc = min(k, 4) if ncols is None else _int("ncols", ncols, 1, 64)
    nr = -(-k // nc)
    size = (2.3 * nc + 1.0, 2.0 * nr + 0.7) if figsize is None else _real("figsize", figsize, shape=(2,))
    fig, axs = plt.subplots(nr, nc, figsize=tuple(size), sharex=True, squeeze=False)
    for ax in axs.flat[k:]:
        ax.set_visible(False)
    return axs.ravel()[:k]


def parameter_history(
    t: ArrayLike,
    params: ArrayLike,
    std: ArrayLike | None = None,
    *,
    axes: Sequence[Axes] | np.ndarray | None = None,
    select: Sequence[int] | None = None,
    names: Sequence[str] | None = None,
    units: Sequence[str] | None = None,
    truth: ArrayLike | None = None,
    reference: ArrayLike | None = None,
    reference_label: str = "reference",
    n_std: float = 3.0,
    label: str | None = None,
    color: str | None = None,
    span: float | None = None,
    span_min: float = 0.0,
    ncols: int | None = None,
    figsize: tuple[float, float] | None = None,
    xlabel: str = "time $t$ (s)",
) -> np.ndarray:
    """The parameter estimates of an on-line estimator over time, one panel per parameter.

    Each panel shows the estimate (with its ``+- n_std`` band when ``std`` is given), the
    truth as a dashed black line (constant or changing, e.g. a payload picked up) and a
    batch ``reference`` (e.g. least squares on all data) as a dotted line. Call again with
    ``axes=`` the returned panels to overlay another estimator.

    Parameters
    ----------
    t : array_like, shape (N,)
        Time (or sample, epoch) of each estimate.
    params : array_like, shape (N, p)
        Estimates, e.g. ``filter.history["params"]``.
    std : array_like, shape (N, p), optional
        Their standard deviations (>= 0).
    axes : sequence of Axes, optional
        Panels to draw on, one per selected parameter; new ones when omitted.
    select : sequence of int, optional
        Parameters to show (indices into p); default all.
    names : sequence of str, optional
        The p parameter names (panel titles); default ``p1, p2, ...``.
    units : sequence of str, optional
        The p units (y labels).
    truth : array_like, shape (p,) or (N, p), optional
        True values.
    reference : array_like, shape (p,), optional
        A fixed comparison value per parameter.
    reference_label : str, default "reference"
    n_std : float, default 3.0
        Half-width of the band (> 0).
    label, color : str, optional
        Legend entry and colour of this estimator.
    span : float, optional
        Zoom: y limits at the truth ``+- max(span * max|truth_i|, span_min)`` (needs
        ``truth``), so that a wild start does not squash the interesting part.
    span_min : float, default 0.0
        Smallest half-width of the zoom, in the unit of each parameter (for parameters
        whose truth is zero); a zero half-width leaves that panel's limits alone.
    ncols : int, optional
        Panels per row of a new figure, 1 to 64 (default up to 4).
    figsize : (float, float), optional
        Size of a new figure in inches (default from the number of panels).
    xlabel : str, default "time $t$ (s)"
        Label of the bottom panels' x axes.

    Returns
    -------
    numpy.ndarray of Axes, shape (len(select),)

    Raises
    ------
    TypeError
        Complex or non-numeric arrays, non-integer ``select`` entries or ``ncols``, labels
        that are not strings.
    ValueError
        Inconsistent shapes, NaN/inf, negative ``std``, ``select`` out of range or empty,
        ``axes`` not one per selected parameter, ``span`` without ``truth`` or not > 0,
        a negative ``span_min``, ``ncols`` outside 1..64.

    Examples
    --------
    >>> import numpy as np
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from robidlib.plotting import parameter_history
    >>> t = np.linspace(0, 10, 200)
    >>> est = np.column_stack([2 - np.exp(-t), 0.5 + 0.1 * np.exp(-t) * np.sin(5 * t)])
    >>> axes = parameter_history(t, est, 0.2 * np.exp(-t)[:, None] * [1, 1], truth=[2.0, 0.5],
    ...                          names=["a1", "a2"], units=["kg m$^2$", "N m"], label="EKF")
    >>> axes.shape, axes[1].get_title()
    ((2,), 'a2')
    """
    ts = _real("t", t, ndim=1)
    P = _real("params", params, ndim=2)
    N, p = P.shape
    if N != ts.size:
        raise ValueError(f"params must have one row per time sample of t ({ts.size}), got shape {P.shape}")
    S = None if std is None else _real("std", std, ndim=2)
    if S is not None and S.shape != (N, p):
        raise ValueError(f"std must have the shape of params ({N}, {p}), got {S.shape}")
    if S is not None and np.any(S < 0):
        raise ValueError(f"std must be >= 0, got the minimum {S.min()!r}")
    sel = list(range(p)) if select is None else list(select)
    if not all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in sel):
        raise TypeError(f"select must hold integer indices, got {select!r}")
    if not sel or any(not -p <= i < p for i in sel):
        raise ValueError(f"select must hold indices in [0, {p}), got {select!r}")
    nm = _names("names", names, p)
    un = None if units is None else _names("units", units, p)
    tr = None
    if truth is not None:
        tr = _real("truth", truth, ndim=(1, 2))
        if tr.shape not in ((p,), (N, p)):
            raise ValueError(f"truth must have shape ({p},) or ({N}, {p}), got {tr.shape}")
        tr = np.broadcast_to(tr, (N, p))
    ref = None if reference is None else _real("reference", reference, shape=(p,))
    if span is not None:
        if tr is None:
            raise ValueError("span needs truth (the zoom is around the true values)")
        span = check_positive("span", span)
    s_min = check_positive("span_min", span_min, allow_zero=True)
    k_std = check_positive("n_std", n_std)
    if axes is None:
        axs = _grid(len(sel), ncols, figsize)
        fresh = True
    else:
        axs = np.asarray(axes, dtype=object).ravel()
        if axs.size != len(sel) or not all(isinstance(a, Axes) for a in axs):
            raise ValueError(f"axes must hold {len(sel)} matplotlib Axes (one per selected parameter), got {axs.size}")
        fresh = False
    for ax, i in zip(axs, sel):
        if S is None:
            (line,) = ax.plot(ts, P[:, i], color=color, label=label, gid="estimate")
        else:
            line, _ = estimate_band(ts, P[:, i], S[:, i], ax, n_std=k_std, color=color, label=label)
        if tr is not None:
            ax.plot(ts, tr[:, i], label="truth", gid="truth", **TRUTH_STYLE)
        if ref is not None:
            ax.axhline(ref[i], label=reference_label, gid="reference", **REFERENCE_STYLE)
        if span is not None:
            half = max(span * float(np.max(np.abs(tr[:, i]))), s_min)
            if half > 0:
                ax.set_ylim(tr[:, i].min() - half, tr[:, i].max() + half)
        if fresh:
            ax.set_title(nm[i], fontsize=10)
            if un is not None:
                ax.set_ylabel(un[i], fontsize=9)
    if fresh:
        for ax in axs[-min(len(axs), _ncols(axs)):]:
            ax.set_xlabel(xlabel)
    axs[0].legend(loc="best", fontsize=7)
    return axs


def _ncols(axs: np.ndarray) -> int:
    spec = axs[0].get_subplotspec()
    return spec.get_gridspec().ncols if spec is not None else 1


def grouped_bars(
    values: Mapping[str, ArrayLike],
    names: Sequence[str],
    ax: Axes | None = None,
    *,
    log: bool = False,
    ylabel: str | None = None,
    colors: Sequence[str] | None = None,
    width: float = 0.8,
) -> Axes:
    """One bar per parameter and method, the methods side by side.

    For per-parameter comparisons such as Monte Carlo against theoretical standard
    deviations, RMS errors of OLS and WLS, or the errors of several pipelines.

    Parameters
    ----------
    values : mapping of str to array_like, shape (p,)
        Legend label -> one value per parameter.
    names : sequence of str
        The p parameter names (tick labels).
    ax : matplotlib.axes.Axes, optional
    log : bool, default False
        Logarithmic y axis (values must then be > 0).
    ylabel : str, optional
    colors : sequence of str, optional
        One colour per method; default the colour cycle.
    width : float, default 0.8
        Width of a group of bars, in (0, 1].

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    TypeError
        ``values`` not a mapping, complex or non-numeric values, ``names`` not strings,
        ``log`` not a bool.
    ValueError
        No method, values not of length p, NaN/inf, non-positive values with ``log``,
        ``colors`` not one per method, ``width`` outside (0, 1].

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from robidlib.plotting import grouped_bars
    >>> ax = grouped_bars({"OLS": [0.3, 0.02, 0.5], "WLS": [0.1, 0.02, 0.2]}, ["m", "mx", "Izz"], log=True)
    >>> len(ax.patches), [c.get_label() for c in ax.containers]
    (6, ['OLS', 'WLS'])
    """
    if not isinstance(values, Mapping):
        raise TypeError(f"values must be a mapping label -> values, got {type(values).__name__}")
    if not values:
        raise ValueError("values must hold at least one method, got an empty mapping")
    if isinstance(names, str) or not isinstance(names, Sequence):
        raise TypeError(f"names must be a sequence of strings, got {type(names).__name__}")
    labels = _names("names", names, len(names))
    p = len(labels)
    if p == 0:
        raise ValueError("names must hold at least one parameter name, got an empty sequence")
    data = {}
    for k, v in values.items():
        a = _real(f"values[{k!r}]", v, ndim=1)
        if a.shape != (p,):
            raise ValueError(f"values[{k!r}] must have shape ({p},) (one per entry of names), got {a.shape}")
        data[str(k)] = a
    log = _flag("log", log)
    if log and any(np.any(v <= 0) for v in data.values()):
        raise ValueError("values must be > 0 on a log scale (log=True)")
    cols = None if colors is None else _names("colors", colors, len(data))
    w = _fraction("width", width) / len(data)
    ax = _axes(ax, False)
    x = np.arange(p)
    for k, (lab, v) in enumerate(data.items()):
        off = (k - (len(data) - 1) / 2) * w
        ax.bar(x + off, v, w, label=lab, color=None if cols is None else cols[k], gid="bars")
    if log:
        ax.set_yscale("log")
    ax.set_xticks(x, labels, rotation=60 if p > 6 else 0, fontsize=8 if p > 6 else None)
    if ylabel is not None:
        ax.set_ylabel(ylabel)
    ax.legend()
    return ax


def estimate_errorbars(
    estimates: Mapping[str, Any],
    truth: ArrayLike,
    ax: Axes | None = None,
    *,
    names: Sequence[str] | None = None,
    n_std: float = 2.0,
    scale: ArrayLike | None = None,
) -> Axes:
    """Estimates with ``+- n_std`` error bars against the truth, for several methods.

    Each parameter is shown relative to its scale: ``100 (estimate - truth) / scale`` in
    percent, so that parameters of different units share one axis and the truth is the zero
    line. An error bar that misses zero by far flags a bias or an optimistic covariance.

    Parameters
    ----------
    estimates : mapping of str to Estimate or (params, std)
        Legend label -> a :class:`robidlib.estimation.Estimate` (its ``params`` and ``std``)
        or a pair of arrays of shape (p,).
    truth : array_like, shape (p,)
    ax : matplotlib.axes.Axes, optional
    names : sequence of str, optional
        Parameter names; default those of the first ``Estimate``, else ``p1, p2, ...``.
    n_std : float, default 2.0
        Half-length of the error bars in standard deviations (> 0).
    scale : float or array_like, shape (p,), optional
        Divisor per parameter (> 0); default ``|truth|``, which must then be non-zero (give
        e.g. ``np.maximum(abs(truth), 0.05)`` for parameters whose truth is zero).

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    TypeError
        ``estimates`` not a mapping, or an entry neither an Estimate nor a pair; complex
        input.
    ValueError
        No estimate, shapes not (p,), NaN/inf, negative std, a zero ``|truth|`` without
        ``scale``, a non-positive ``scale``, bad ``n_std``.

    Examples
    --------
    >>> import numpy as np
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from robidlib.estimation import ols
    >>> from robidlib.plotting import estimate_errorbars
    >>> rng = np.random.default_rng(1)
    >>> W = rng.normal(size=(200, 3)); beta = np.array([1.0, -2.0, 0.5])
    >>> est = ols(W, W @ beta + 0.1 * rng.normal(size=200), names=["a", "b", "c"])
    >>> ax = estimate_errorbars({"OLS": est}, beta)
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['a', 'b', 'c']
    """
    if not isinstance(estimates, Mapping):
        raise TypeError(f"estimates must be a mapping label -> Estimate or (params, std), got {type(estimates).__name__}")
    if not estimates:
        raise ValueError("estimates must hold at least one entry, got an empty mapping")
    tr = _real("truth", truth, ndim=1)
    p = tr.size
    pairs, default_names = {}, None
    for lab, e in estimates.items():
        if hasattr(e, "params") and hasattr(e, "std"):
            par, sd = e.params, e.std
            default_names = default_names or getattr(e, "names", None)
        elif isinstance(e, (tuple, list)) and len(e) == 2:
            par, sd = e
        else:
            raise TypeError(f"estimates[{lab!r}] must be an Estimate or a pair (params, std), got {type(e).__name__}")
        par, sd = _real(f"estimates[{lab!r}] params", par, ndim=1), _real(f"estimates[{lab!r}] std", sd, ndim=1)
        if par.shape != (p,) or sd.shape != (p,):
            raise ValueError(f"estimates[{lab!r}] params and std must have shape ({p},) (one per entry of truth), "
                             f"got {par.shape} and {sd.shape}")
        if np.any(sd < 0):
            raise ValueError(f"estimates[{lab!r}] std must be >= 0")
        pairs[str(lab)] = (par, sd)
    nm = _names("names", names if names is not None else default_names, p)
    if scale is None:
        if np.any(tr == 0):
            raise ValueError("truth has zero entries: give scale= (e.g. np.maximum(abs(truth), 0.05))")
        sc = np.abs(tr)
    else:
        sc = _real("scale", scale, ndim=(0, 1))
        if sc.ndim == 1 and sc.shape != (p,):
            raise ValueError(f"scale must be a number or have shape ({p},) (one per entry of truth), got {sc.shape}")
        sc = np.broadcast_to(sc, (p,))
        if np.any(sc <= 0):
            raise ValueError("scale must be > 0 for every parameter")
    k = check_positive("n_std", n_std)
    ax = _axes(ax, False)
    x = np.arange(p)
    w = 0.7 / len(pairs)
    for j, (lab, (par, sd)) in enumerate(pairs.items()):
        off = (j - (len(pairs) - 1) / 2) * w
        cont = ax.errorbar(x + off, 100 * (par - tr) / sc, yerr=100 * k * sd / sc, fmt="o", ms=4, capsize=2,
                           label=lab)
        cont.lines[0].set_gid("estimate")
    ax.axhline(0.0, label="truth", gid="truth", **{**TRUTH_STYLE, "ls": "-"})
    ax.set_xticks(x, nm, rotation=60 if p > 6 else 0, fontsize=8 if p > 6 else None)
    ax.set_ylabel(f"error / scale (%), bars $\\pm{k:g}\\sigma$")
    ax.legend()
    return ax


def measured_vs_predicted(
    t: ArrayLike,
    measured: ArrayLike,
    predicted: ArrayLike | Mapping[str, ArrayLike],
    axes: Sequence[Axes] | np.ndarray | None = None,
    *,
    units: Sequence[str] | None = None,
    symbol: str = "\\tau",
    measured_label: str = "measured",
    xlabel: str = "time $t$ (s)",
) -> np.ndarray:
    """Measured signals and model predictions, one panel per joint.

    The measurement is drawn as grey dots (noise shows as a cloud), each prediction as a
    line, e.g. the torques of an identified model on a validation trajectory.

    Parameters
    ----------
    t : array_like, shape (N,)
    measured : array_like, shape (N,) or (N, n)
    predicted : array_like of the same shape, or mapping of str to such arrays
        One prediction (labelled "model") or several (label -> array).
    axes : sequence of Axes, optional
        n panels; new stacked ones (shared time axis) when omitted.
    units : sequence of str, optional
        Unit per joint for the y labels (e.g. "N m" or "N" for a prismatic joint).
    symbol : str, default "\\\\tau"
        TeX symbol of the signal; panel j is labelled ``$symbol_{j+1}$``.
    measured_label : str, default "measured"
    xlabel : str, default "time $t$ (s)"

    Returns
    -------
    numpy.ndarray of Axes, shape (n,)

    Raises
    ------
    TypeError
        Complex or non-numeric input.
    ValueError
        Shapes that do not match, NaN/inf, ``axes`` or ``units`` not one per joint.

    Examples
    --------
    >>> import numpy as np
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from robidlib.plotting import measured_vs_predicted
    >>> t = np.linspace(0, 2, 100)
    >>> tau = np.column_stack([np.sin(t), np.cos(t)])
    >>> noisy = tau + 0.05 * np.random.default_rng(0).normal(size=tau.shape)
    >>> axes = measured_vs_predicted(t, noisy, {"LS": tau}, units=["N m", "N m"])
    >>> axes.shape, axes[1].get_ylabel()
    ((2,), '$\\\\tau_{2}$ (N m)')
    """
    ts = _real("t", t, ndim=1)
    M = _real("measured", measured, ndim=(1, 2))
    if M.shape[0] != ts.size:
        raise ValueError(f"measured must have one row per time sample of t ({ts.size}), got shape {M.shape}")
    M = M.reshape(ts.size, -1)
    n = M.shape[1]
    preds = dict(predicted) if isinstance(predicted, Mapping) else {"model": predicted}
    if not preds:
        raise ValueError("predicted must hold at least one prediction, got an empty mapping")
    preds = {str(k): _real(f"predicted[{k!r}]", v, ndim=(1, 2)) for k, v in preds.items()}
    for k, v in preds.items():
        if v.size != M.size or v.shape[0] != ts.size:
            raise ValueError(f"predicted[{k!r}] must have the shape of measured {M.shape}, got {v.shape}")
    un = None if units is None else _names("units", units, n)
    if axes is None:
        import matplotlib.pyplot as plt

        _, axs = plt.subplots(n, 1, figsize=(7.0, 1.3 + 1.5 * n), sharex=True, squeeze=False)
        axs = axs.ravel()
    else:
        axs = np.asarray(axes, dtype=object).ravel()
        if axs.size != n or not all(isinstance(a, Axes) for a in axs):
            raise ValueError(f"axes must hold {n} matplotlib Axes (one per joint), got {axs.size}")
    colors = [PALETTE["vermillion"], PALETTE["blue"], PALETTE["green"], PALETTE["purple"], PALETTE["orange"]]
    for j, ax in enumerate(axs):
        ax.plot(ts, M[:, j], ".", ms=1.5, color="0.6", label=measured_label, gid="measured")
        for c, (lab, v) in enumerate(preds.items()):
            ax.plot(ts, v.reshape(ts.size, -1)[:, j], color=colors[c % len(colors)], lw=1.0, label=lab,
                    gid="predicted")
        ax.set_ylabel(f"${symbol}_{{{j + 1}}}$" + ("" if un is None else f" ({un[j]})"))
    axs[-1].set_xlabel(xlabel)
    axs[0].legend(loc="upper right", ncol=1 + len(preds), markerscale=4)
    return axs


_GROUP_STYLES = ("-", "--", ":", "-.")


def _distributions(errors: Any) -> tuple[dict[str, dict[str, np.ndarray]], bool]:
    """``{group: {method: values}}`` from a flat or nested mapping, and whether it was nested."""
    if not isinstance(errors, Mapping):
        raise TypeError(f"errors must be a mapping label -> values (or group -> such a mapping), "
                        f"got {type(errors).__name__}")
    if not errors:
        raise ValueError("errors must hold at least one method, got an empty mapping")
    nested = all(isinstance(v, Mapping) for v in errors.values())
    if not nested and any(isinstance(v, Mapping) for v in errors.values()):
        raise TypeError("errors must be either label -> values or group -> (label -> values), not a mix")
    groups = errors if nested else {"": errors}
    out: dict[str, dict[str, np.ndarray]] = {}
    for g, methods in groups.items():
        if not methods:
            raise ValueError(f"errors[{g!r}] must hold at least one method, got an empty mapping")
        out[str(g)] = {}
        for k, v in methods.items():
            where = f"errors[{g!r}][{k!r}]" if nested else f"errors[{k!r}]"
            a = _real(where, v, ndim=1)
            if a.size == 0:
                raise ValueError(f"{where} must hold at least one value, got none")
            out[str(g)][str(k)] = a
    return out, nested


def error_distribution(
    errors: Mapping[str, ArrayLike] | Mapping[str, Mapping[str, ArrayLike]],
    ax: Axes | None = None,
    *,
    kind: str = "ecdf",
    log: bool = True,
    label: str | None = None,
    reference: float | None = None,
    reference_label: str | None = None,
    marks: Mapping[str, float] | None = None,
    colors: Sequence[str] | None = None,
) -> Axes:
    """The distribution of an error over Monte Carlo draws, one curve or box per method.

    Where one random draw could mislead (the choice of a regularisation weight, a filter, an
    estimator on one noise realisation), the figure shows every draw: ``kind="ecdf"`` draws
    the empirical distribution function of each method's errors (the fraction of draws with
    an error at most x, so that tails and failure rates can be read off), ``kind="box"`` a
    box plot per method (median, quartiles, whiskers at 1.5 interquartile ranges, outliers).
    A nested mapping ``{group: {method: errors}}`` compares several experiments: line styles
    (ECDF) or colours (boxes) tell the groups apart.

    Parameters
    ----------
    errors : mapping of str to array_like, shape (R,), or mapping of str to such mappings
        Method label -> the errors of its ``R`` draws (``R`` may differ between methods),
        or group label -> such a mapping.
    ax : matplotlib.axes.Axes, optional
    kind : {"ecdf", "box"}, default "ecdf"
    log : bool, default True
        Logarithmic error axis (errors must then be > 0).
    label : str, optional
        Label of the error axis (x for ECDF, y for boxes).
    reference : float, optional
        A fixed error to compare with (e.g. that of the prior alone), drawn as a line.
    reference_label : str, optional
        Legend entry of ``reference``.
    marks : mapping of str to float, optional
        ECDF only, flat ``errors`` only: method label -> one error to mark on that method's
        curve (e.g. the error on the data set a chapter showed).
    colors : sequence of str, optional
        One colour per method (ECDF) or per group (boxes); default the colour cycle.

    Returns
    -------
    matplotlib.axes.Axes
        Artists carry the gid ``"ecdf"``, ``"box"``, ``"reference"`` or ``"mark"``.

    Raises
    ------
    TypeError
        ``errors`` not a mapping (or a mix of flat and nested), complex or non-numeric values,
        ``ax`` not an Axes.
    ValueError
        No method, a method without values, NaN/inf, non-positive values or reference with
        ``log``, unknown ``kind``, ``marks`` naming an unknown method or used with boxes or
        groups, ``colors`` not one per method (ECDF) or group (box).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from robidlib.plotting import error_distribution
    >>> rng = np.random.default_rng(0)
    >>> errs = {"GCV": rng.lognormal(-3, 1.5, 200), "L-curve": rng.lognormal(-2.8, 0.2, 200)}
    >>> ax = error_distribution(errs, reference=0.12, reference_label="prior alone")
    >>> [line.get_label() for line in ax.get_lines()]
    ['GCV', 'L-curve', 'prior alone']
    """
    data, nested = _distributions(errors)
    if kind not in ("ecdf", "box"):
        raise ValueError(f"kind must be 'ecdf' or 'box', got {kind!r}")
    if not isinstance(log, (bool, np.bool_)):
        raise TypeError(f"log must be a bool, got {type(log).__name__}")
    if log and any(np.any(v <= 0) for m in data.values() for v in m.values()):
        raise ValueError("errors must be > 0 on a log scale (log=True)")
    ref = None
    if reference is not None:
        ref = check_positive("reference", reference, allow_zero=not log)
    methods = list(dict.fromkeys(k for m in data.values() for k in m))
    ax = _axes(ax, False)
    if kind == "ecdf":
        cols = _names("colors", colors, len(methods)) if colors is not None else [f"C{k}" for k in range(len(methods))]
        if len(data) > len(_GROUP_STYLES):
            raise ValueError(f"errors must hold at most {len(_GROUP_STYLES)} groups for an ECDF, got {len(data)}")
        for g, (group, m) in enumerate(data.items()):
            for name, v in m.items():
                x = np.sort(v)
                y = np.arange(1, x.size + 1) / x.size
                lab = f"{name}, {group}" if nested else name
                ax.step(np.r_[x[0], x], np.r_[0.0, y], where="post", color=cols[methods.index(name)],
                        ls=_GROUP_STYLES[g], label=lab, gid="ecdf")
        if marks is not None:
            if nested:
                raise ValueError("marks needs a flat errors mapping (one group)")
            if not isinstance(marks, Mapping):
                raise TypeError(f"marks must be a mapping method -> error, got {type(marks).__name__}")
            for name, value in marks.items():
                if name not in data[""]:
                    raise ValueError(f"marks names {name!r}, which is not a method of errors ({methods})")
                v = check_positive(f"marks[{name!r}]", value, allow_zero=not log)
                frac = np.mean(data[""][name] <= v)
                ax.plot([v], [frac], "o", ms=7, mfc="none", color=cols[methods.index(name)], gid="mark")
        if ref is not None:
            ax.axvline(ref, label=reference_label, gid="reference", **TRUTH_STYLE)
        if log:
            ax.set_xscale("log")
        ax.set_ylim(0.0, 1.0)
        ax.set_ylabel("fraction of draws (-)")
        if label is not None:
            ax.set_xlabel(label)
    else:
        if marks is not None:
            raise ValueError("marks are drawn on ECDF curves only (kind='ecdf')")
        cols = _names("colors", colors, len(data)) if colors is not None else [f"C{k}" for k in range(len(data))]
        width = 0.8 / len(data)
        for g, (group, m) in enumerate(data.items()):
            pos = [methods.index(k) + (g - (len(data) - 1) / 2) * width for k in m]
            bp = ax.boxplot(list(m.values()), positions=pos, widths=0.85 * width, patch_artist=True,
                            medianprops=dict(color="k"), manage_ticks=False)
            for patch in bp["boxes"]:
                patch.set(facecolor=cols[g], alpha=0.5, gid="box")
            if nested:
                patch.set_label(group)
        ax.set_xticks(np.arange(len(methods)), methods, fontsize=8 if len(methods) > 3 else None)
        if ref is not None:
            ax.axhline(ref, label=reference_label, gid="reference", **TRUTH_STYLE)
        if log:
            ax.set_yscale("log")
        if label is not None:
            ax.set_ylabel(label)
    if ax.get_legend_handles_labels()[1]:
        ax.legend(fontsize=8)
    return ax
