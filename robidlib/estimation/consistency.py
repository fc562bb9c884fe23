"""Consistency of a Kalman filter: the normalised estimation error squared (NEES).

:func:`nees` and :func:`nees_bounds` test a filter's consistency over a Monte Carlo
experiment (:cite:t:`barshalom2001`, sec. 5.4): a consistent filter's errors have the
covariance it reports.  The innovation counterpart (NIS) of one update is
:attr:`robidlib.estimation.kalman.ExtendedKalmanFilter.nis`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validate import as_array, check_positive

__all__ = ["nees", "nees_bounds"]


def nees(error: Any, P: Any) -> np.ndarray:
    """Normalised estimation error squared ``e' P^-1 e`` (:cite:t:`barshalom2001`, sec. 5.4).

    For a consistent filter the true error ``e = x - x_hat`` is zero-mean with covariance
    ``P``, and the NEES is chi-square distributed with ``nx`` degrees of freedom (mean ``nx``).

    Parameters
    ----------
    error : array_like, shape (..., nx)
        Estimation errors (truth minus estimate).
    P : array_like, shape (..., nx, nx)
        The filter's covariances (positive definite), broadcast against ``error``.

    Returns
    -------
    numpy.ndarray, shape (...)

    Raises
    ------
    ValueError
        On mismatched shapes, NaN/inf, or a covariance that is not positive definite.

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
