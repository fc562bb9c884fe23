"""The result object shared by every estimator of robidlib."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._validate import as_array, check_fields, check_int, check_names, check_nonnegative, check_text

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

    A quantity the estimator cannot give is NaN: the covariance and relative standard
    deviations of a constrained estimate (all NaN), the condition number.

    Raises
    ------
    ValueError, TypeError
        If a field is malformed: ``params`` not a finite vector, ``cov`` not a finite (or all
        NaN) ``(p, p)`` matrix, ``rel_std`` negative (or NaN beside a covariance),
        ``residual_std`` negative, ``rank`` outside ``0..p``, ``cond`` below 1, ``names`` not
        ``p`` distinct strings.
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

    def __post_init__(self) -> None:
        p = check_fields(self, params=("p",))["p"]
        for name, shape in (("cov", (p, p)), ("rel_std", (p,))):
            if np.shape(getattr(self, name)) != shape:
                raise ValueError(f"{name} must have shape {shape} (p = {p} entries of params), got "
                                 f"{np.shape(getattr(self, name))}")
        check_fields(self, finite=False, cov=(p, p), rel_std=(p,))
        unknown = bool(np.all(np.isnan(self.cov)))        # no covariance (a constrained estimate)
        if not unknown and not np.all(np.isfinite(self.cov)):
            raise ValueError("cov must be finite (or all NaN when the estimator gives no covariance), "
                             f"got {int(np.sum(~np.isfinite(self.cov)))} NaN or infinite entries")
        rs = self.rel_std
        if np.any(rs < 0) or (not unknown and np.any(np.isnan(rs))):
            raise ValueError(f"rel_std must be >= 0 (inf for a zero parameter, NaN without a covariance), "
                             f"got {rs.tolist()}")
        object.__setattr__(self, "residual_std", check_nonnegative("residual_std", self.residual_std))
        object.__setattr__(self, "rank", check_int("rank", self.rank, 0, p))
        cond = self.cond
        if isinstance(cond, (bool, np.bool_)) or not isinstance(cond, (int, float, np.integer, np.floating)):
            raise TypeError(f"cond must be a real number >= 1 (inf allowed), got {type(cond).__name__} {cond!r}")
        if not (cond >= 1.0 or np.isnan(cond)):
            raise ValueError(f"cond must be >= 1 (a condition number; inf allowed, NaN if unknown), got {cond!r}")
        object.__setattr__(self, "cond", float(cond))
        object.__setattr__(self, "names", check_names("names", self.names, p))
        check_text("method", self.method)
        if not isinstance(self.info, dict):
            raise TypeError(f"info must be a dict, got {type(self.info).__name__}")

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
            Significant digits (1 to 17).

        Raises
        ------
        ValueError, TypeError
            If ``truth`` is not a finite array like ``params`` or ``digits`` is out of range.
        """
        digits = check_int("digits", digits, 1, 17)
        rows = ["name          estimate        std     %sigma" + ("        truth" if truth is not None else "")]
        t = None if truth is None else as_array("truth", truth, shape=self.params.shape)
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
