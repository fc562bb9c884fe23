"""The result object shared by every estimator of robidlib."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["Estimate"]


@dataclass(frozen=True)
class Estimate:
    """Result of a parameter estimation.

    Attributes
    ----------
    params : numpy.ndarray, shape (p,)
        Estimated parameters.
    cov : numpy.ndarray, shape (p, p)
        Estimated covariance of ``params`` (``sigma^2 (W'W)^-1`` for least squares).
    rel_std : numpy.ndarray, shape (p,)
        Relative standard deviations in percent, ``100 sqrt(cov_ii) / |params_i|``
        (``inf`` where a parameter is exactly zero).
    residual_std : float
        Standard deviation of the residuals, ``||y - W b|| / sqrt(r - p)``.
    rank : int
        Numerical rank of the (weighted) regressor.
    cond : float
        2-norm condition number of the (weighted) regressor.
    names : tuple of str
        Parameter names (``("p1", "p2", ...)`` when none were given).
    method : str
        Name of the estimator that produced the result.
    info : dict
        Estimator-specific extras (weights, regularisation, iterations, ...).
    """

    params: np.ndarray
    cov: np.ndarray
    rel_std: np.ndarray
    residual_std: float
    rank: int
    cond: float
    names: tuple[str, ...]
    method: str = "ols"
    info: dict = field(default_factory=dict)

    @property
    def std(self) -> np.ndarray:
        """Absolute standard deviations, ``sqrt(diag(cov))``."""
        return np.sqrt(np.clip(np.diag(self.cov), 0.0, None))

    def table(self, truth: np.ndarray | None = None, digits: int = 4) -> str:
        """Return a plain-text table of names, estimates, standard deviations and %sigma.

        Parameters
        ----------
        truth : array_like, shape (p,), optional
            True values to print in an extra column.
        digits : int, default 4
            Significant digits.
        """
        rows = ["name          estimate        std     %sigma" + ("        truth" if truth is not None else "")]
        t = None if truth is None else np.asarray(truth, dtype=float).ravel()
        if t is not None and t.shape != self.params.shape:
            raise ValueError(f"truth must have shape {self.params.shape}, got {t.shape}")
        for i, name in enumerate(self.names):
            row = f"{name:<10} {self.params[i]:>11.{digits}g} {self.std[i]:>10.{digits}g} {self.rel_std[i]:>10.3g}"
            if t is not None:
                row += f" {t[i]:>12.{digits}g}"
            rows.append(row)
        return "\n".join(rows)

    def __repr__(self) -> str:  # short, readable in a notebook
        return (
            f"Estimate(method={self.method!r}, p={self.params.size}, rank={self.rank}, "
            f"cond={self.cond:.3g}, residual_std={self.residual_std:.3g})\n" + self.table()
        )
