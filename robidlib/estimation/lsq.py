"""Batch least-squares estimators: ordinary, weighted and regularised (ridge) least squares.

Every solver works on the stacked regressor ``W`` (shape ``(r, p)``) and the stacked
measurement ``y`` (shape ``(r,)``) of the GUIDE and never forms an explicit inverse:
the estimate comes from an SVD-based least-squares solver and the covariance from the
singular values, ``(W'W)^-1 = V diag(1/s^2) V'``.

* :func:`ols` -- ordinary least squares, ``min ||W b - y||^2``.
* :func:`wls` -- weighted least squares with one noise standard deviation per joint,
  given or estimated from the OLS residuals :cite:`gautier2001`.
* :func:`ridge` -- Tikhonov (ridge) regression towards a prior,
  ``min ||W b - y||^2 + lam ||b - prior||^2`` :cite:`hoerl1970`.
* :func:`ridge_path` -- the ridge estimates over a grid of weights from one SVD, with the
  two data-driven choices of the weight (generalised cross-validation, L-curve corner), for
  one data set or many sharing ``W`` (a Monte Carlo).
* :func:`sandwich_cov` -- the covariance of the OLS estimate when the noise is not the same
  on every row (per-joint noise levels, or any heteroscedasticity) :cite:`white1980`.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import scipy.linalg

from .._validate import as_array, check_int, check_names, check_nonnegative
from ._estimate import Estimate

__all__ = ["ols", "wls", "ridge", "ridge_path", "RidgePath", "sandwich_cov", "default_rank_tol"]


def default_rank_tol(s: np.ndarray, shape: tuple[int, int]) -> float:
    """Default numerical-rank tolerance ``max(r, p) * eps * s_max``.

    This is the tolerance of ``numpy.linalg.matrix_rank``: singular values below the
    round-off level of an SVD of a matrix of that size carry no information.

    Parameters
    ----------
    s : numpy.ndarray
        Singular values, any order.
    shape : tuple of int
        Shape ``(r, p)`` of the matrix.

    Returns
    -------
    float
        The absolute tolerance.

    Raises
    ------
    ValueError, TypeError
        If ``s`` is not a finite 1-D array of values >= 0, or ``shape`` not two ints >= 0.

    Examples
    --------
    >>> import numpy as np
    >>> bool(default_rank_tol(np.array([2.0, 1.0]), (10, 2)) == 10 * np.finfo(float).eps * 2.0)
    True
    """
    s = as_array("s", s, ndim=1)
    if np.any(s < 0):
        raise ValueError(f"s must hold singular values >= 0, got {s.min():.3g}")
    if isinstance(shape, (str, bytes)) or np.ndim(shape) != 1 or len(shape) != 2:
        raise TypeError(f"shape must be the pair (r, p) of the matrix's shape, got {shape!r}")
    r, p = (check_int("shape", v, 0) for v in shape)
    return float(max(r, p) * np.finfo(float).eps * (np.max(s) if s.size else 0.0))


def _check_system(W, y, names, overdetermined: bool = True) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    W = as_array("W", W, ndim=2)
    y = as_array("y", y, ndim=1)
    if W.shape[0] != y.shape[0]:
        raise ValueError(f"W has {W.shape[0]} rows but y has {y.shape[0]} entries; they must match")
    r, p = W.shape
    if p == 0 or r == 0:
        raise ValueError(f"W must have at least one row and one column, got shape {W.shape}")
    if overdetermined and r <= p:
        raise ValueError(
            f"W has {r} rows for {p} parameters; least squares needs more rows than "
            "parameters (r > p) to estimate the noise variance"
        )
    if names is None:
        names = tuple(f"p{i + 1}" for i in range(p))
    else:
        names = check_names("names", names)
        if len(names) != p:
            raise ValueError(f"names must have {p} entries (one per column of W), got {len(names)}: {names!r}")
    return W, y, names


def _rel_std(b: np.ndarray, cov: np.ndarray) -> np.ndarray:
    """Relative standard deviations in percent, ``inf`` where a parameter is exactly 0."""
    std = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b != 0, 100.0 * std / np.abs(b), np.inf)


def _make_estimate(
    b: np.ndarray, cov: np.ndarray, sigma2: float, rank: int, cond: float,
    names: tuple[str, ...], method: str, info: dict,
) -> Estimate:
    """Shared constructor of :class:`Estimate` (relative standard deviations included)."""
    return Estimate(
        params=b, cov=cov, rel_std=_rel_std(b, cov), residual_std=float(np.sqrt(sigma2)), rank=rank,
        cond=cond, names=names, method=method, info=info,
    )


def _solve(W: np.ndarray, y: np.ndarray, names: tuple[str, ...], method: str, info: dict) -> Estimate:
    r, p = W.shape
    U, s, Vt = scipy.linalg.svd(W, full_matrices=False, lapack_driver="gesdd")
    tol = default_rank_tol(s, W.shape)
    rank = int(np.count_nonzero(s > tol))
    cond = float(s[0] / s[-1]) if s[-1] > 0 else float("inf")
    if rank < p:
        raise ValueError(
            f"the regressor W is rank deficient: numerical rank {rank} < {p} columns "
            f"(singular values below {tol:.3g}; condition number {cond:.3g}). The parameters "
            "are not identifiable: reduce them to base parameters (robidlib.base) or use a "
            "richer excitation."
        )
    b = Vt.T @ ((U.T @ y) / s)
    res = y - W @ b
    sigma2 = float(res @ res) / (r - p)
    Vs = Vt.T / s
    cov = sigma2 * (Vs @ Vs.T)
    return _make_estimate(b, cov, sigma2, rank, cond, names, method, info)


def ols(W: np.ndarray, y: np.ndarray, names: Sequence[str] | None = None) -> Estimate:
    """Ordinary least squares ``b = argmin ||W b - y||^2`` with its statistics.

    The solution is computed from the thin SVD ``W = U S V'`` (never from an explicit
    inverse of ``W'W``); the covariance is ``sigma^2 (W'W)^-1 = sigma^2 V S^-2 V'`` with
    ``sigma^2 = ||y - W b||^2 / (r - p)``.

    Parameters
    ----------
    W : array_like, shape (r, p)
        Stacked regressor (observation matrix).
    y : array_like, shape (r,)
        Stacked measurements (torques).
    names : sequence of str, optional
        Parameter names, one per column.

    Returns
    -------
    Estimate
        Estimated parameters, covariance, relative standard deviations (%), residual
        standard deviation, rank and condition number.

    Raises
    ------
    ValueError
        On shape mismatch, non-finite data, too few rows, or a rank-deficient ``W``
        (the message gives the numerical rank and points to base parameters).

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.estimation.lsq import ols
    >>> W = np.column_stack([np.ones(5), np.arange(5.0)])
    >>> est = ols(W, 1.0 + 2.0 * np.arange(5.0))
    >>> np.round(est.params, 12)
    array([1., 2.])
    """
    W, y, names = _check_system(W, y, names)
    return _solve(W, y, names, "ols", {})


def _check_n_joints(n_joints, r: int) -> int:
    if isinstance(n_joints, (bool, np.bool_)) or not isinstance(n_joints, numbers.Integral):
        raise TypeError(f"n_joints must be a positive int, got {type(n_joints).__name__}")
    n = int(n_joints)
    if n < 1:
        raise ValueError(f"n_joints must be >= 1, got {n}")
    if r % n != 0:
        raise ValueError(
            f"W has {r} rows, which is not a multiple of n_joints={n}; the stacked regressor "
            "must hold n_joints rows per sample (row k*n + j is joint j of sample k)"
        )
    return n


def wls(
    W: np.ndarray,
    y: np.ndarray,
    n_joints: int,
    weights: np.ndarray | Sequence[float] | None = None,
    names: Sequence[str] | None = None,
) -> Estimate:
    """Weighted least squares with one noise standard deviation per joint.

    The stacked system is sample-major (GUIDE): row ``k*n + j`` belongs to joint ``j``
    of sample ``k``, so the rows of joint ``j`` are ``W[j::n]``.  Each row of joint ``j``
    (in ``W`` and in ``y``) is divided by the noise standard deviation ``sigma_j`` of that
    joint and the weighted system is solved by :func:`ols`'s SVD solver.  This is the
    maximum-likelihood estimate when the torque noise of joint ``j`` is Gaussian, white,
    with variance ``sigma_j^2`` and independent between joints.

    When ``weights`` is None the standard deviations are estimated from the residuals of
    an OLS fit of the whole system, joint by joint :cite:`gautier2001`::

        sigma_j^2 = ||y_j - W_j b_ols||^2 / (r_j - c)

    with ``r_j`` the number of rows of joint ``j`` (the number of samples) and ``c`` the
    number of parameters (columns of ``W``).  The OLS error caused by the noisy joints
    leaks into the residuals of the quiet ones, so the estimated sigma of a joint much
    quieter than the others is biased upwards (the added error is of the order of
    ``sqrt(c / r)`` times the rms of the sigmas); the weighting still helps, and ``weights`` can be given when the
    sigmas are known.

    Parameters
    ----------
    W : array_like, shape (r, p)
        Stacked regressor, ``r = N * n_joints``.
    y : array_like, shape (r,)
        Stacked measurements, same stacking.
    n_joints : int
        Number of joints ``n`` (rows per sample).
    weights : array_like, shape (n_joints,), optional
        Per-joint noise **standard deviations** ``sigma_j > 0`` (in the unit of ``y``),
        *not* their inverses: the rows of joint ``j`` are multiplied by ``1/sigma_j``.
        Only the ratios matter for the estimate.  This is the same quantity as
        ``info["sigma_joint"]`` of the result, so an estimate's sigmas can be passed
        back in.  When omitted they are estimated as above.
    names : sequence of str, optional
        Parameter names, one per column.

    Returns
    -------
    Estimate
        ``method="wls"``.  ``cov`` is the covariance of the weighted problem,
        ``s_w^2 (W_w' W_w)^-1`` with ``W_w`` the weighted regressor and
        ``s_w^2 = ||y_w - W_w b||^2 / (r - p)`` (close to 1 when the sigmas are right);
        ``residual_std`` is ``s_w`` (dimensionless); ``rank`` and ``cond`` are those of
        ``W_w``.  ``info`` holds ``"sigma_joint"`` (shape ``(n_joints,)``, the sigmas
        used), ``"weights_estimated"`` (bool) and ``"n_joints"``.

    Raises
    ------
    ValueError
        On shape mismatch, non-finite data, ``r`` not a multiple of ``n_joints``, too few
        samples per joint to estimate ``sigma_j`` (``r_j <= c``), non-positive weights,
        a rank-deficient ``W``, or an estimated ``sigma_j`` of exactly zero (a joint
        fitted without residual: give ``weights`` explicitly).
    TypeError
        If ``n_joints`` is not an int.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.estimation.lsq import wls
    >>> rng = np.random.default_rng(0)
    >>> W = rng.normal(size=(1000, 3))                # 500 samples of a 2-joint arm
    >>> sigma = np.tile([0.1, 1.0], 500)              # joint 2 is 10x noisier
    >>> y = W @ [1.0, -2.0, 0.5] + sigma * rng.normal(size=1000)
    >>> est = wls(W, y, n_joints=2)
    >>> np.round(est.info["sigma_joint"], 1)
    array([0.1, 1. ])
    >>> bool(np.allclose(est.params, [1.0, -2.0, 0.5], atol=0.02))
    True
    """
    W, y, names = _check_system(W, y, names)
    r, p = W.shape
    n = _check_n_joints(n_joints, r)
    n_samples = r // n
    if weights is None:
        if n_samples <= p:
            raise ValueError(
                f"estimating the per-joint sigmas needs more samples per joint than parameters, "
                f"got {n_samples} samples (rows per joint) for {p} parameters; give weights explicitly"
            )
        b = _solve(W, y, names, "ols", {}).params
        res = (y - W @ b).reshape(n_samples, n)
        sigma = np.sqrt(np.sum(res**2, axis=0) / (n_samples - p))
        zero = np.flatnonzero(sigma == 0)
        if zero.size:
            raise ValueError(
                f"the OLS residual of joint(s) {', '.join(str(j + 1) for j in zero)} is exactly zero, so "
                "the per-joint sigma (and the weight 1/sigma) is undefined; give weights explicitly"
            )
        estimated = True
    else:
        sigma = as_array("weights", weights, ndim=1, shape=(n,)).copy()
        if np.any(sigma <= 0):
            raise ValueError(
                f"weights are per-joint noise standard deviations and must be > 0, got {sigma}"
            )
        estimated = False
    scale = np.tile(1.0 / sigma, n_samples)
    info = {"sigma_joint": sigma, "weights_estimated": estimated, "n_joints": n}
    return _solve(W * scale[:, None], y * scale, names, "wls", info)


def ridge(
    W: np.ndarray,
    y: np.ndarray,
    lam: float,
    prior: np.ndarray | Sequence[float] | None = None,
    names: Sequence[str] | None = None,
) -> Estimate:
    """Ridge (Tikhonov) regression towards a prior, ``min ||W b - y||^2 + lam ||b - prior||^2``.

    The minimiser is computed as the ordinary least-squares solution of the augmented
    system (never through an inverse) :cite:`hoerl1970`::

        [ W            ]       [ y                ]
        [ sqrt(lam) I  ] b  =  [ sqrt(lam) prior  ]

    which has full column rank whenever ``lam > 0``, so the estimate exists even when
    ``W`` is rank deficient or has fewer rows than columns.  ``lam -> 0`` gives OLS (when
    ``W`` has full rank) and ``lam -> inf`` gives ``prior``.

    Covariance.  With ``A = W'W + lam I`` the estimator is
    ``b = A^-1 (W'y + lam prior)``, so for ``y = W b_true + e``, ``cov(e) = sigma^2 I``::

        cov(b) = sigma^2 A^-1 W'W A^-1 = sigma^2 V diag(s^2 / (s^2 + lam)^2) V'

    computed from the thin SVD ``W = U diag(s) V'`` (no explicit inverse).  It is the
    spread of ``b`` around its mean; it does not include the bias
    ``-lam A^-1 (b_true - prior)`` that regularisation introduces, so ``rel_std`` is
    optimistic when ``lam`` is large.  The noise variance is estimated with the
    effective number of parameters ``df = trace(W A^-1 W') = sum s^2 / (s^2 + lam)``
    :cite:`hastie2009`::

        sigma^2 = ||y - W b||^2 / (r - df)

    (``df = p`` and the OLS formulas when ``lam = 0``).

    Parameters
    ----------
    W : array_like, shape (r, p)
        Stacked regressor.
    y : array_like, shape (r,)
        Stacked measurements.
    lam : float
        Regularisation weight ``lam >= 0``.  ``lam = 0`` is OLS and then needs a full-rank
        ``W`` with ``r > p``.
    prior : array_like, shape (p,), optional
        Prior parameter values (e.g. from CAD); zeros when omitted.
    names : sequence of str, optional
        Parameter names, one per column.

    Returns
    -------
    Estimate
        ``method="ridge"``; ``rank`` and ``cond`` are those of ``W`` itself (showing why
        regularisation is needed; ``cond`` is ``inf`` when ``W`` is rank deficient).
        ``info`` holds ``"lam"``, ``"prior"``, ``"dof"`` (the effective number of
        parameters ``df``) and ``"cond_augmented"`` (condition number of the augmented
        matrix, ``sqrt((s_max^2 + lam) / (s_min^2 + lam))``).

    Raises
    ------
    ValueError
        On shape mismatch, non-finite data, ``lam < 0``, ``prior`` of the wrong length,
        ``lam = 0`` with a rank-deficient ``W`` or ``r <= p``, or a residual with no
        degree of freedom left (``r - df`` not positive).

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.estimation.lsq import ridge
    >>> W = np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])   # rank 1: OLS fails
    >>> y = np.array([2.0, 4.1, 5.9])
    >>> est = ridge(W, y, lam=1e-3, prior=[0.0, 0.0])
    >>> est.rank, np.round(est.params, 3)
    (1, array([0.996, 0.996]))
    """
    lam = check_nonnegative("lam", lam)
    W, y, names = _check_system(W, y, names, overdetermined=(lam == 0))
    r, p = W.shape
    if prior is None:
        prior_arr = np.zeros(p)
    else:
        prior_arr = as_array("prior", prior, ndim=1)
        if prior_arr.shape != (p,):
            raise ValueError(
                f"prior must have shape ({p},) (one value per column of W), got {prior_arr.shape}"
            )
    if lam == 0:
        est = _solve(W, y, names, "ridge", {})
        info = {"lam": 0.0, "prior": prior_arr, "dof": float(p), "cond_augmented": est.cond}
        return _make_estimate(est.params, est.cov, est.residual_std**2, est.rank, est.cond, names, "ridge", info)

    # estimate: least-squares solution of the augmented system (full column rank for lam > 0)
    sq = np.sqrt(lam)
    A_aug = np.vstack([W, sq * np.eye(p)])
    y_aug = np.concatenate([y, sq * prior_arr])
    b, *_ = scipy.linalg.lstsq(A_aug, y_aug, lapack_driver="gelsd")

    # statistics from the thin SVD of W
    _, s, Vt = scipy.linalg.svd(W, full_matrices=False, lapack_driver="gesdd")
    tol = default_rank_tol(s, W.shape)
    rank = int(np.count_nonzero(s > tol))
    cond = float(s[0] / s[-1]) if (rank == p and s[-1] > 0) else float("inf")
    s_min = s[-1] if s.size == p else 0.0  # r < p: W has p - r zero singular values
    cond_aug = float(np.sqrt((s[0] ** 2 + lam) / (s_min**2 + lam)))
    shrink = s**2 / (s**2 + lam)
    dof = float(np.sum(shrink))
    if r - dof <= 0:
        raise ValueError(
            f"no residual degree of freedom left: r={r} rows, effective number of parameters "
            f"{dof:.3g}; add rows to W or increase lam"
        )
    res = y - W @ b
    sigma2 = float(res @ res) / (r - dof)
    Vg = Vt.T * (s / (s**2 + lam))
    cov = sigma2 * (Vg @ Vg.T)
    info = {"lam": lam, "prior": prior_arr, "dof": dof, "cond_augmented": cond_aug}
    return _make_estimate(b, cov, sigma2, rank, cond, names, "ridge", info)


@dataclass(frozen=True)
class RidgePath:
    """Ridge estimates over a grid of weights, and the weights GCV and the L-curve choose.

    Made by :func:`ridge_path`. With ``K`` weights and ``D`` data sets (``D`` columns of
    ``y``; a single data set drops that axis):

    Attributes
    ----------
    lams : numpy.ndarray, shape (K,)
        The weights, increasing.
    residual_norm : numpy.ndarray, shape (K,) or (K, D)
        ``||W b_lam - y||``.
    solution_norm : numpy.ndarray, shape (K,) or (K, D)
        ``||b_lam - prior||``.
    dof : numpy.ndarray, shape (K,)
        Effective number of parameters ``sum s_i^2 / (s_i^2 + lam)``.
    gcv : numpy.ndarray, shape (K,) or (K, D)
        Generalised cross-validation score ``(||W b_lam - y||^2 / r) / (1 - dof / r)^2``.
    curvature : numpy.ndarray, shape (K,) or (K, D)
        Signed curvature of the L-curve ``(log ||W b - y||, log ||b - prior||)`` as a
        function of ``log lam`` (finite differences on the grid; NaN where a norm is zero).
    i_gcv, i_lcurve : int or numpy.ndarray of int, shape (D,)
        Index of the GCV minimum and of the L-curve corner (largest curvature) on the grid.
    """

    lams: np.ndarray
    residual_norm: np.ndarray
    solution_norm: np.ndarray
    dof: np.ndarray
    gcv: np.ndarray
    curvature: np.ndarray
    i_gcv: int | np.ndarray
    i_lcurve: int | np.ndarray
    _prior: np.ndarray = field(repr=False)
    _V: np.ndarray = field(repr=False)
    _gain: np.ndarray = field(repr=False)          # s / (s^2 + lam), shape (K, k)
    _c: np.ndarray = field(repr=False)             # U' (y - W prior), shape (k, D)

    @property
    def lam_gcv(self) -> float | np.ndarray:
        """The weight(s) GCV chooses."""
        return self.lams[self.i_gcv]

    @property
    def lam_lcurve(self) -> float | np.ndarray:
        """The weight(s) at the L-curve corner."""
        return self.lams[self.i_lcurve]

    def params(self, index: int | Sequence[int] | np.ndarray) -> np.ndarray:
        """Ridge estimate(s) at the grid weight(s) ``lams[index]``.

        Parameters
        ----------
        index : int or array_like of int, shape (D,)
            One grid index for every data set, or one index per data set (e.g. ``i_gcv``).

        Returns
        -------
        numpy.ndarray, shape (p,) or (p, D)

        Raises
        ------
        TypeError
            If ``index`` holds no integers.
        ValueError
            If an index is outside ``[0, K)`` or there is not one per data set.
        """
        K, D = self._gain.shape[0], self._c.shape[1]
        idx = np.asarray(index)
        if idx.dtype.kind not in "iu" or idx.ndim > 1:
            raise TypeError(f"index must be an int or a 1-D array of ints, got {idx.dtype} of shape {idx.shape}")
        if np.any(idx < 0) or np.any(idx >= K):
            raise ValueError(f"index must lie in [0, {K}) (one per weight of the grid), got {index!r}")
        single = self.residual_norm.ndim == 1
        if idx.ndim == 0:
            z = self._gain[int(idx)][:, None] * self._c
        else:
            if idx.shape != (D,):
                raise ValueError(f"index must have one entry per data set ({D}), got shape {idx.shape}")
            z = self._gain[idx].T * self._c
        b = self._prior[:, None] + self._V @ z
        return b[:, 0] if single else b


def ridge_path(
    W: np.ndarray,
    y: np.ndarray,
    lams: np.ndarray | Sequence[float],
    prior: np.ndarray | Sequence[float] | None = None,
) -> RidgePath:
    """Ridge regression over a grid of weights, and the weights GCV and the L-curve choose.

    For every weight ``lam`` of the grid, the ridge estimate of :func:`ridge`,
    ``b_lam = argmin ||W b - y||^2 + lam ||b - prior||^2``, written with the thin SVD
    ``W = U diag(s) V'`` and the filter factors ``f_i = s_i^2 / (s_i^2 + lam)``
    :cite:`hansen1992`::

        b_lam = prior + V diag(s / (s^2 + lam)) U' (y - W prior)

    One SVD serves every weight and every data set: ``y`` may hold several data sets of the
    same experiment as columns (a Monte Carlo over the noise). Two data-driven choices of the
    weight are reported: the minimum of generalised cross-validation :cite:`hastie2009`,
    ``GCV(lam) = (||W b_lam - y||^2 / r) / (1 - df_lam / r)^2`` with the effective number of
    parameters ``df_lam = sum f_i``, and the corner of the L-curve :cite:`hansen1992`, the
    point of largest curvature of ``(log ||W b_lam - y||, log ||b_lam - prior||)``, both
    taken on the grid. The curvature is computed by finite differences in ``log lam``
    (``numpy.gradient``), so the grid should be fine and logarithmic.

    Parameters
    ----------
    W : array_like, shape (r, p)
        Stacked regressor (any rank).
    y : array_like, shape (r,) or (r, D)
        Stacked measurements: one data set, or ``D`` data sets as columns.
    lams : array_like, shape (K,)
        Weights, finite, ``> 0`` and strictly increasing; at least 3 (for the curvature).
    prior : array_like, shape (p,), optional
        Prior parameter values; zeros when omitted.

    Returns
    -------
    RidgePath
        Norms, ``dof``, GCV, curvature, the chosen indices ``i_gcv``, ``i_lcurve`` and the
        estimates at any grid weight (:meth:`RidgePath.params`).

    Raises
    ------
    ValueError
        On shape mismatch, an empty ``W`` or ``y``, non-finite data, weights that are not
        positive, finite and strictly increasing, fewer than 3 weights, or a ``prior`` of the
        wrong length.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.estimation.lsq import ridge, ridge_path
    >>> rng = np.random.default_rng(0)
    >>> W = rng.normal(size=(50, 3)) * [1.0, 1.0, 1e-3]       # one direction barely excited
    >>> y = W @ [1.0, 2.0, 3.0] + 0.1 * rng.normal(size=50)
    >>> path = ridge_path(W, y, np.logspace(-6, 2, 33), prior=[1.0, 2.0, 2.5])
    >>> b = path.params(path.i_gcv)
    >>> bool(np.allclose(b, ridge(W, y, path.lam_gcv, prior=[1.0, 2.0, 2.5]).params))
    True
    """
    W = as_array("W", W, ndim=2)
    y = as_array("y", y, ndim=(1, 2))
    r, p = W.shape
    if r == 0 or p == 0:
        raise ValueError(f"W must have at least one row and one column, got shape {W.shape}")
    if y.shape[0] != r:
        raise ValueError(f"W has {r} rows but y has {y.shape[0]}; they must match")
    if y.ndim == 2 and y.shape[1] == 0:
        raise ValueError(f"y must hold at least one data set (column), got shape {y.shape}")
    lams = as_array("lams", lams, ndim=1)
    if lams.size < 3:
        raise ValueError(f"lams must hold at least 3 weights (the L-curve's curvature needs them), got {lams.size}")
    if np.any(lams <= 0):
        raise ValueError(f"lams must be > 0 (ridge weights), got {lams.min():.3g}")
    if np.any(np.diff(lams) <= 0):
        k = int(np.flatnonzero(np.diff(lams) <= 0)[0])
        raise ValueError(f"lams must be strictly increasing, got {lams[k]:.3g} then {lams[k + 1]:.3g}")
    if prior is None:
        prior_arr = np.zeros(p)
    else:
        prior_arr = as_array("prior", prior, ndim=1)
        if prior_arr.shape != (p,):
            raise ValueError(f"prior must have shape ({p},) (one value per column of W), got {prior_arr.shape}")
    single = y.ndim == 1
    Y = y[:, None] if single else y
    U, s, Vt = scipy.linalg.svd(W, full_matrices=False, lapack_driver="gesdd")
    R0 = Y - (W @ prior_arr)[:, None]
    c = U.T @ R0                                                   # (k, D)
    outside = np.clip(np.sum(R0**2, axis=0) - np.sum(c**2, axis=0), 0.0, None)
    f = s**2 / (s**2 + lams[:, None])                              # (K, k)
    gain = s / (s**2 + lams[:, None])                              # f / s, defined at s = 0
    res2 = ((1.0 - f) ** 2) @ (c**2) + outside                     # (K, D)
    sol = np.sqrt((gain**2) @ (c**2))
    dof = f.sum(axis=1)
    gcv = (res2 / r) / (1.0 - dof[:, None] / r) ** 2
    ll = np.log(lams)
    with np.errstate(divide="ignore", invalid="ignore"):
        lx, ly = 0.5 * np.log(res2), np.log(sol)
        dx, dy = np.gradient(lx, ll, axis=0), np.gradient(ly, ll, axis=0)
        ddx, ddy = np.gradient(dx, ll, axis=0), np.gradient(dy, ll, axis=0)
        curv = (dx * ddy - dy * ddx) / (dx**2 + dy**2) ** 1.5
    i_gcv = np.argmin(gcv, axis=0)
    finite = np.isfinite(curv)
    i_l = np.argmax(np.where(finite, curv, -np.inf), axis=0)
    if not np.all(finite.any(axis=0)):
        bad = int(np.flatnonzero(~finite.any(axis=0))[0])
        raise ValueError(f"y (data set {bad}) has no L-curve: the residual or the distance to the prior is zero "
                         "for every weight (y = W prior exactly?)")
    squeeze = (lambda a: a[:, 0]) if single else (lambda a: a)
    return RidgePath(
        lams=lams, residual_norm=squeeze(np.sqrt(res2)), solution_norm=squeeze(sol), dof=dof,
        gcv=squeeze(gcv), curvature=squeeze(curv),
        i_gcv=int(i_gcv[0]) if single else i_gcv, i_lcurve=int(i_l[0]) if single else i_l,
        _prior=prior_arr, _V=Vt.T, _gain=gain, _c=c,
    )


def sandwich_cov(W: np.ndarray, y: np.ndarray, params: np.ndarray | Sequence[float] | None = None,
                 n_joints: int | None = None) -> np.ndarray:
    """Sandwich (heteroscedasticity-consistent) covariance of the OLS estimate.

    :func:`ols` reports ``s^2 (W'W)^-1`` with one pooled noise variance ``s^2``: right only
    when every row has the same noise.  When the rows have variances ``Omega = diag(w_k)``
    (per-joint torque noise: the lift's is much larger than the wrist's), the OLS estimate
    ``b = (W'W)^-1 W'y`` has the covariance

        cov(b) = (W'W)^-1 W' Omega W (W'W)^-1

    (bread, meat, bread :cite:`white1980`), estimated from the residuals ``e = y - W b``:

    * ``n_joints`` given (the stacked, sample-major system of the GUIDE): one variance per
      joint, ``w_j = ||e_j||^2 / N`` over the ``N`` rows of joint ``j``;
    * otherwise White's estimator, one squared residual per row, ``w_k = e_k^2``;

    both times ``r / (r - p)`` (HC1: the residuals are smaller than the noise by ``p`` degrees
    of freedom).  Computed from the thin SVD ``W = U S V'``: ``V S^-1 (U' Omega U) S^-1 V'``.
    The per-joint form is the better estimate when the noise is known to be per joint (it
    averages ``N`` squared residuals per variance); White's needs no such knowledge.

    Parameters
    ----------
    W : array_like, shape (r, p)
        Stacked regressor (full column rank).
    y : array_like, shape (r,)
        Stacked measurements.
    params : array_like, shape (p,), optional
        The OLS estimate (computed when omitted).
    n_joints : int, optional
        Rows per sample, for the per-joint form.

    Returns
    -------
    numpy.ndarray, shape (p, p)

    Raises
    ------
    ValueError
        On shape mismatch, non-finite data, too few rows, a rank-deficient ``W``, or ``r`` not
        a multiple of ``n_joints``.
    TypeError
        If ``n_joints`` is not an int.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.estimation.lsq import ols, sandwich_cov
    >>> rng = np.random.default_rng(0)
    >>> W = rng.normal(size=(2000, 2))
    >>> sigma = np.tile([0.1, 3.0], 1000)                  # joint 2 is 30 times noisier
    >>> y = W @ [1.0, 2.0] + sigma * rng.normal(size=2000)
    >>> est = ols(W, y)
    >>> C = sandwich_cov(W, y, est.params, n_joints=2)
    >>> exact = np.linalg.inv(W.T @ W) @ (W.T * sigma**2) @ W @ np.linalg.inv(W.T @ W)
    >>> bool(np.allclose(np.sqrt(np.diag(C)), np.sqrt(np.diag(exact)), rtol=0.1))
    True
    """
    W, y, _ = _check_system(W, y, None)
    r, p = W.shape
    U, s, Vt = scipy.linalg.svd(W, full_matrices=False, lapack_driver="gesdd")
    tol = default_rank_tol(s, W.shape)
    if np.count_nonzero(s > tol) < p:
        raise ValueError(
            f"the regressor W is rank deficient (singular values below {tol:.3g}); the OLS estimate and its "
            "covariance are not defined: reduce to base parameters (robidlib.base)"
        )
    b = Vt.T @ ((U.T @ y) / s) if params is None else as_array("params", params, shape=(p,))
    e = y - W @ b
    if n_joints is None:
        omega = e**2
    else:
        n = _check_n_joints(n_joints, r)
        var = np.mean(e.reshape(-1, n) ** 2, axis=0)
        omega = np.tile(var, r // n)
    omega = omega * (r / (r - p))
    meat = (U * omega[:, None]).T @ U
    Vs = Vt.T / s
    cov = Vs @ meat @ Vs.T
    return 0.5 * (cov + cov.T)
