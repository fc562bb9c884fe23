"""Consistency of a Kalman filter: NEES (needs the truth), NIS and whiteness (need only data).

:func:`nees` and :func:`nees_bounds` test a filter's consistency over a Monte Carlo
experiment (:cite:t:`barshalom2001`, sec. 5.4): a consistent filter's errors have the
covariance it reports.  That needs the true state, which only a simulation has.  On real
data the **innovations** ``y_k = z_k - h(x_{k|k-1})`` are what is left to test: for a
consistent filter they are zero-mean, white, with the covariance ``S_k`` the filter reports.
The normalised innovation squared (NIS) ``y' S^-1 y`` of one update is
:attr:`robidlib.estimation.kalman.ExtendedKalmanFilter.nis` (and :func:`nees` of the
innovations); its time average over ``N`` steps of one run has the bounds
``nees_bounds(nz, N)``.  :func:`whiteness_test` tests the whiteness: the normalised
autocorrelation with its 95 % bounds and the Ljung-Box portmanteau statistic
(:cite:t:`ljung1978`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validate import as_array, check_positive

__all__ = ["WhitenessTest", "nees", "nees_bounds", "whiteness_test"]


def nees(error: Any, P: Any) -> np.ndarray:
    """Normalised estimation error squared ``e' P^-1 e`` (:cite:t:`barshalom2001`, sec. 5.4).

    For a consistent filter the true error ``e = x - x_hat`` is zero-mean with covariance
    ``P``, and the NEES is chi-square distributed with ``nx`` degrees of freedom (mean ``nx``).

    Parameters
    ----------
    error : array_like, shape (..., nx)
        Estimation errors (truth minus estimate).
    P : array_like, shape (..., nx, nx)
        The filter's covariances (symmetric to ``1e-8`` of their largest entry, positive
        definite), broadcast against ``error``; their symmetric part is used.

    Returns
    -------
    numpy.ndarray, shape (...)

    Raises
    ------
    ValueError
        On mismatched shapes, NaN/inf, or a covariance that is not symmetric or not positive
        definite (Cholesky reads one triangle only: an asymmetric P would pass unseen).

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.estimation.consistency import nees
    >>> float(nees([1.0, 2.0], np.diag([1.0, 4.0])))
    2.0
    """
    e = as_array("error", error)
    P = as_array("P", P)
    if e.ndim < 1 or P.ndim < 2 or P.shape[-1] != P.shape[-2] or P.shape[-1] != e.shape[-1]:
        raise ValueError(f"error must have shape (..., nx) and P (..., nx, nx); got {e.shape} and {P.shape}")
    scale = float(np.abs(P).max()) if P.size else 0.0
    asym = float(np.abs(P - np.swapaxes(P, -1, -2)).max()) if P.size else 0.0
    if asym > 1e-8 * scale:
        raise ValueError(f"P must be symmetric (a covariance), got |P - P^T| up to {asym:.3g} "
                         f"({asym / scale:.2g} of its largest entry)")
    P = 0.5 * (P + np.swapaxes(P, -1, -2))
    try:
        L = np.linalg.cholesky(P)
    except np.linalg.LinAlgError:
        raise ValueError("P must be positive definite (the NEES needs its inverse)") from None
    e_b = np.broadcast_to(e, np.broadcast_shapes(e.shape, P.shape[:-1]))
    L = np.broadcast_to(L, e_b.shape + (e_b.shape[-1],))
    w = np.linalg.solve(L, e_b[..., None])[..., 0]
    return np.sum(w * w, axis=-1)


def nees_bounds(n_states: int, n_runs: int, confidence: float = 0.95) -> tuple[float, float]:
    """Two-sided bounds of the NEES averaged over ``n_runs`` independent Monte Carlo runs.

    ``n_runs`` times the average NEES of a consistent filter is chi-square with
    ``n_runs * n_states`` degrees of freedom, so the average lies between
    ``chi2.ppf((1 - c) / 2, M nx) / M`` and ``chi2.ppf((1 + c) / 2, M nx) / M`` with
    probability ``c`` (:cite:t:`barshalom2001`, sec. 5.4).

    Parameters
    ----------
    n_states : int
        Dimension ``nx`` of the error.
    n_runs : int
        Number of runs ``M``.
    confidence : float, default 0.95
        Probability ``c`` in ``(0, 1)``.

    Returns
    -------
    (float, float)

    Raises
    ------
    ValueError
        If a count is not a positive integer or ``confidence`` is outside ``(0, 1)``.

    Examples
    --------
    >>> from robidlib.estimation.consistency import nees_bounds
    >>> lo, hi = nees_bounds(5, 25)
    >>> round(lo, 2), round(hi, 2)
    (3.84, 6.31)
    """
    from scipy.stats import chi2

    for label, v in (("n_states", n_states), ("n_runs", n_runs)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{label} must be a positive integer, got {v!r}")
    c = check_positive("confidence", confidence)
    if not c < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    dof = n_runs * n_states
    return float(chi2.ppf(0.5 * (1 - c), dof) / n_runs), float(chi2.ppf(0.5 * (1 + c), dof) / n_runs)


@dataclass(frozen=True, eq=False)
class WhitenessTest:
    """The result of :func:`whiteness_test` (arrays: compared by identity).

    Attributes
    ----------
    lags : numpy.ndarray, shape (L,)
        The lags ``1 .. L``.
    acf : numpy.ndarray, shape (L, m)
        Normalised autocorrelation of each channel of the (whitened) innovations.
    bound : float
        Two-sided bound ``z_(1+c)/2 / sqrt(N)`` of a white sequence's autocorrelation.
    outside : float
        Fraction of the ``L m`` autocorrelations outside ``+- bound`` (about ``1 - c`` for a
        white sequence).
    statistic : float
        Ljung-Box statistic ``N (N + 2) sum_l acf_l^2 / (N - l)``, summed over the channels.
    dof : int
        Its degrees of freedom, ``L m``.
    p_value : float
        ``P(chi2_dof > statistic)``: small when the innovations are correlated.
    white : bool
        ``p_value >= 1 - confidence``: whiteness not rejected at that level.
    """

    lags: np.ndarray
    acf: np.ndarray
    bound: float
    outside: float
    statistic: float
    dof: int
    p_value: float
    white: bool

    def __post_init__(self) -> None:
        from .._validate import check_fields, check_flag, check_int, check_nonnegative

        d = check_fields(self, lags=("L",), acf=("L", "m"))
        if d["L"] == 0 or np.any(self.lags < 1):
            raise ValueError(f"lags must hold lags >= 1, got {self.lags.tolist()}")
        for name in ("bound", "outside", "statistic", "p_value"):
            object.__setattr__(self, name, check_nonnegative(name, getattr(self, name)))
        for name in ("outside", "p_value"):
            if getattr(self, name) > 1:
                raise ValueError(f"{name} must be a fraction in [0, 1], got {getattr(self, name)}")
        object.__setattr__(self, "dof", check_int("dof", self.dof, 1))
        object.__setattr__(self, "white", check_flag("white", self.white))


def whiteness_test(innovations: Any, S: Any = None, lags: int = 20, confidence: float = 0.95) -> WhitenessTest:
    """Test whether a filter's innovations are white (a test that needs no true state).

    A consistent Kalman filter's innovations are a white sequence (:cite:t:`barshalom2001`,
    sec. 5.4): a model error (a wrong integrator, a held torque that is really smooth, a
    wrong Q or R) shows as correlation between successive innovations.  Each innovation is
    first whitened with the Cholesky factor of its covariance, ``nu_k = L_k^-1 y_k``
    (``S_k = L_k L_k'``), then each channel's normalised autocorrelation

    ``rho(l) = sum_k nu_k nu_{k+l} / sum_k nu_k^2``,   ``l = 1 .. lags``

    is compared with ``+- z_(1+c)/2 / sqrt(N)`` (the large-sample distribution of a white
    sequence's autocorrelation, ``N(0, 1/N)``), and the Ljung-Box statistic
    ``N (N + 2) sum_l rho(l)^2 / (N - l)`` (:cite:t:`ljung1978`), summed over the channels,
    with a chi-square distribution of ``lags * m`` degrees of freedom.  The innovations are
    centred on their mean first, so a bias alone does not count as correlation (the NIS
    sees it).

    Parameters
    ----------
    innovations : array_like, shape (N,) or (N, m)
        Innovations ``z_k - h(x_{k|k-1})`` of one run (e.g. ``run(...)["innovation"]``).
    S : array_like, shape (N, m, m) or (N, m), optional
        Their covariances (full, or the diagonal); default: the innovations are taken as
        already normalised.
    lags : int, default 20
        Largest lag ``L``, ``1 <= L < N / 2``.
    confidence : float, default 0.95
        Level ``c`` of the bounds and of the test, in ``(0, 1)``.

    Returns
    -------
    WhitenessTest

    Raises
    ------
    ValueError
        On wrong shapes, NaN/inf, covariances that are not positive definite, a constant
        channel, ``lags`` out of range or ``confidence`` outside ``(0, 1)``.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.estimation.consistency import whiteness_test
    >>> e = np.random.default_rng(0).standard_normal(2000)
    >>> whiteness_test(e).white                                      # white noise
    True
    >>> whiteness_test(np.convolve(e, np.ones(5), "same")).white     # a moving average is not
    False
    """
    from scipy.stats import chi2, norm

    y = as_array("innovations", innovations, ndim=(1, 2))
    if y.ndim == 1:
        y = y[:, None]
    N, m = y.shape
    if N < 4 or m == 0:
        raise ValueError(f"innovations must hold at least 4 samples of at least one channel, got shape {y.shape}")
    if S is not None:
        S = as_array("S", S, ndim=(2, 3))
        if S.ndim == 2:
            if S.shape != (N, m):
                raise ValueError(f"S must have shape ({N}, {m}, {m}) or ({N}, {m}) for a diagonal, got {S.shape}")
            if np.any(S <= 0):
                raise ValueError("S must hold positive variances")
            y = y / np.sqrt(S)
        else:
            if S.shape != (N, m, m):
                raise ValueError(f"S must have shape ({N}, {m}, {m}) or ({N}, {m}) for a diagonal, got {S.shape}")
            try:
                L = np.linalg.cholesky(0.5 * (S + np.swapaxes(S, 1, 2)))
            except np.linalg.LinAlgError:
                raise ValueError("S must be positive definite at every sample") from None
            y = np.linalg.solve(L, y[..., None])[..., 0]
    if isinstance(lags, (bool, np.bool_)) or not isinstance(lags, (int, np.integer)) or not 1 <= lags < N / 2:
        raise ValueError(f"lags must be an integer in [1, N/2) = [1, {N / 2:g}), got {lags!r}")
    c = check_positive("confidence", confidence)
    if not c < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    y = y - y.mean(axis=0)
    energy = np.sum(y * y, axis=0)
    if np.any(energy <= 0):
        raise ValueError("an innovation channel is constant: its autocorrelation is undefined")
    L_ = int(lags)
    acf = np.array([np.sum(y[:-l] * y[l:], axis=0) for l in range(1, L_ + 1)]) / energy      # (L, m)
    bound = float(norm.ppf(0.5 * (1 + c)) / np.sqrt(N))
    weights = 1.0 / (N - np.arange(1, L_ + 1))
    stat = float(N * (N + 2) * np.sum(weights[:, None] * acf**2))
    dof = L_ * m
    p = float(chi2.sf(stat, dof))
    return WhitenessTest(lags=np.arange(1, L_ + 1), acf=acf, bound=bound,
                         outside=float(np.mean(np.abs(acf) > bound)), statistic=stat, dof=dof,
                         p_value=p, white=bool(p >= 1 - c))
