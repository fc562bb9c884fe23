"""Adaline: the adaptive linear neuron of Widrow and Hoff as a parameter estimator.

The network has one linear neuron: its inputs are the entries of a regressor row
``x`` (one row of the stacked observation matrix ``W``), its output is the predicted
torque ``y = x . w`` and its weights ``w`` are the (base) parameters.  Training
minimises the mean squared error over the ``N`` rows of the data set

.. math::  J(w) = \\frac{1}{2N} \\sum_{k=1}^{N} (d_k - x_k^\\top w)^2
           = \\frac{1}{2N} \\lVert d - W w \\rVert^2 ,

whose gradient is ``-W'(d - W w) / N`` (:cite:`widrow1960`).

* ``mode="batch"`` is gradient descent on ``J``: ``w <- w + gamma W'(d - W w) / N``.
  It is stable if and only if ``0 < gamma < 2 / lambda_max(W'W / N)``
  (:func:`max_stable_rate`); the slowest error component decays like
  ``(1 - gamma lambda_min)^epoch``, so the convergence speed is set by the condition
  number ``lambda_max / lambda_min`` of ``W'W``.
* ``mode="sample"`` is the delta (LMS, Widrow-Hoff) rule, one row at a time:
  ``w <- w + gamma (d_k - x_k . w) x_k`` -- a stochastic gradient step on ``J``.  The
  same bound ``2 / lambda_max(W'W/N)`` governs convergence *in the mean*.
* ``normalized=True`` divides the step by the input power so that the rate becomes
  dimensionless and stable for ``0 < gamma < 2`` whatever the scaling of the data:
  ``w <- w + gamma e_k x_k / (eps + x_k . x_k)`` in sample mode (normalised LMS,
  :cite:`widrow1985`), ``gamma / lambda_max(W'W/N)`` as the step of batch
  gradient descent.

An unstable rate does not crash: the weights grow, the fit stops as soon as the mean
squared error is no longer finite or has grown by a factor ``divergence_factor``,
:attr:`Adaline.diverged` is set and a ``RuntimeWarning`` names the stable bound.
"""

from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np
import scipy.linalg

from .._validate import as_array, check_choice, check_flag, check_names, check_positive, check_rng, check_tolerance
from ._estimate import Estimate
from .lsq import default_rank_tol

__all__ = [
    "Adaline",
    "adaline_batch",
    "adaline_online",
    "max_stable_rate",
    "recursive_least_squares",
    "whiten_rows",
]


def _check_data(W: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    W = as_array("W", W, ndim=2)
    y = as_array("y", y, ndim=1)
    if W.shape[0] != y.shape[0]:
        raise ValueError(f"W has {W.shape[0]} rows but y has {y.shape[0]} entries; they must match")
    if W.shape[0] == 0 or W.shape[1] == 0:
        raise ValueError(f"W must have at least one row and one column, got shape {W.shape}")
    return W, y


def _lambda_max(W: np.ndarray) -> float:
    """Largest eigenvalue of ``W'W / N`` from the largest singular value of ``W``."""
    s = scipy.linalg.svdvals(W)
    return float(s[0] ** 2 / W.shape[0])


def max_stable_rate(W: Any) -> float:
    """Largest stable learning rate of batch gradient descent on the mean squared error.

    Batch Adaline iterates ``e <- (I - gamma W'W/N) e`` on the weight error, which
    converges if and only if every eigenvalue ``1 - gamma lambda_i`` lies in ``]-1, 1[``,
    i.e. ``0 < gamma < 2 / lambda_max(W'W / N)``.  ``lambda_max`` is obtained from the
    largest singular value of ``W`` (``lambda_max = s_max^2 / N``), without forming
    ``W'W``.

    Parameters
    ----------
    W : array_like, shape (N, p)
        Regressor rows (network inputs).

    Returns
    -------
    float
        ``2 / lambda_max(W'W / N)``; rates strictly below converge, rates above diverge.

    Raises
    ------
    ValueError
        If ``W`` is not a finite 2-D array or is identically zero.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.estimation.adaline import max_stable_rate
    >>> W = np.array([[1.0, 0.0], [0.0, 2.0]])   # W'W/N = diag(0.5, 2)
    >>> round(float(max_stable_rate(W)), 12)
    1.0
    """
    W = as_array("W", W, ndim=2)
    if W.size == 0:
        raise ValueError(f"W must have at least one row and one column, got shape {W.shape}")
    lam = _lambda_max(W)
    if lam == 0.0:
        raise ValueError("W is identically zero: every learning rate is stable and nothing is learnt")
    return 2.0 / lam


def _estimate_at(
    W: np.ndarray, y: np.ndarray, b: np.ndarray, names: Sequence[str] | None, method: str, info: dict
) -> Estimate:
    """Package weights ``b`` as an :class:`Estimate` with the least-squares covariance.

    The covariance is the one of least squares, ``sigma^2 (W'W)^-1`` with
    ``sigma^2 = ||y - W b||^2 / (N - p)`` evaluated at the given ``b`` (from the SVD of
    ``W``), so that neural and least-squares estimates can be compared side by side.
    """
    r, p = W.shape
    if r <= p:
        raise ValueError(f"W has {r} rows for {p} parameters; the covariance needs r > p")
    if names is None:
        names = tuple(f"p{i + 1}" for i in range(p))
    else:
        names = check_names("names", names, p)
    _, s, Vt = scipy.linalg.svd(W, full_matrices=False)
    tol = default_rank_tol(s, W.shape)
    rank = int(np.count_nonzero(s > tol))
    cond = float(s[0] / s[-1]) if s[-1] > 0 else float("inf")
    if rank < p:
        raise ValueError(
            f"the regressor W is rank deficient (numerical rank {rank} < {p} columns, condition "
            f"number {cond:.3g}); the covariance (W'W)^-1 does not exist: use base parameters"
        )
    res = y - W @ b
    sigma2 = float(res @ res) / (r - p)
    Vs = Vt.T / s
    cov = sigma2 * (Vs @ Vs.T)
    std = np.sqrt(np.diag(cov))
    with np.errstate(divide="ignore"):
        rel = np.where(b != 0, 100.0 * std / np.abs(np.where(b != 0, b, 1.0)), np.inf)
    return Estimate(
        params=np.array(b, dtype=float), cov=cov, rel_std=rel, residual_std=float(np.sqrt(sigma2)),
        rank=rank, cond=cond, names=names, method=method, info=info,
    )


class Adaline:
    """Adaptive linear neuron trained by the delta rule (sample) or gradient descent (batch).

    Parameters
    ----------
    learning_rate : float
        Step ``gamma > 0``.  Unnormalised: in units of ``1 / (input unit)^2``; batch mode
        converges iff ``gamma < max_stable_rate(W)``.  Normalised: dimensionless, stable for
        ``gamma < 2``.
    epochs : int, default 100
        Maximum number of passes over the data in :meth:`fit`.
    mode : {"sample", "batch"}, default "sample"
        ``"sample"``: delta (LMS) rule, one update per row.  ``"batch"``: one gradient step
        on the mean squared error per epoch.
    normalized : bool, default False
        Normalise the step by the input power (NLMS in sample mode, by
        ``lambda_max(W'W/N)`` in batch mode).
    shuffle : bool, default True
        In sample mode, present the rows in a new random order at every epoch (drawn from
        ``rng``).  Ignored in batch mode, where the order does not matter.
    rng : numpy.random.Generator or int, optional
        Seeded generator (or seed) for the shuffling.  Required when ``mode="sample"`` and
        ``shuffle=True``: there is no hidden default seed.
    tol : float, optional
        Stop early when the weight change of an epoch satisfies
        ``||w_new - w_old|| <= tol * ||w_new||`` (``tol >= eps = 2.2e-16``: a smaller one is
        never met); ``None`` runs all epochs.
    w0 : array_like, shape (p,), optional
        Initial weights of :meth:`fit` (default zeros).
    eps : float, default 1e-12
        Regularisation of the NLMS denominator ``eps + x . x``.
    divergence_factor : float, default 1e8
        The fit is declared diverged (and stopped) when the mean squared error exceeds
        ``divergence_factor * max(mse_0, mean(y^2))`` or is not finite.

    Attributes
    ----------
    params : numpy.ndarray, shape (p,)
        Current weights (the parameter estimate).
    history : dict of numpy.ndarray
        ``"epoch"`` (K,), ``"weights"`` (K, p) and ``"mse"`` (K,): entry 0 is the initial
        state, entry k the state after epoch k of :meth:`fit` (MSE on the whole data set).
        Each :meth:`partial_fit` call appends one entry whose ``"mse"`` is the *a-priori*
        mean squared error on the block it was given and whose ``"epoch"`` is -1.
    diverged : bool
        True if the last :meth:`fit` stopped because the error blew up.
    converged : bool
        True if the last :meth:`fit` stopped early because of ``tol``.
    n_epochs : int
        Number of epochs run by the last :meth:`fit`.

    Raises
    ------
    ValueError
        If ``learning_rate``, ``tol``, ``eps`` or ``divergence_factor`` is not positive,
        ``epochs`` is not a positive integer, or ``mode`` is unknown.
    TypeError
        If ``rng`` is missing (or not a Generator / int) while shuffling is requested.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.estimation.adaline import Adaline, max_stable_rate
    >>> rng = np.random.default_rng(0)
    >>> W = rng.normal(size=(200, 3))
    >>> y = W @ np.array([1.0, -2.0, 0.5])
    >>> net = Adaline(0.9 * max_stable_rate(W), epochs=500, mode="batch").fit(W, y)
    >>> np.allclose(net.params, [1.0, -2.0, 0.5], atol=1e-8)
    True
    >>> lms = Adaline(0.02, epochs=50, rng=rng).fit(W, y)
    >>> np.allclose(lms.params, [1.0, -2.0, 0.5], atol=1e-6)
    True
    """

    def __init__(
        self,
        learning_rate: float,
        epochs: int = 100,
        mode: str = "sample",
        normalized: bool = False,
        shuffle: bool = True,
        rng: np.random.Generator | int | None = None,
        tol: float | None = None,
        w0: Any = None,
        eps: float = 1e-12,
        divergence_factor: float = 1e8,
    ) -> None:
        self.learning_rate = check_positive("learning_rate", learning_rate)
        if isinstance(epochs, (bool, np.bool_)) or not isinstance(epochs, (int, np.integer)) or epochs < 1:
            raise ValueError(f"epochs must be a positive integer, got {epochs!r}")
        self.epochs = int(epochs)
        self.mode = check_choice("mode", mode, ("sample", "batch"))
        self.normalized = check_flag("normalized", normalized)
        self.shuffle = check_flag("shuffle", shuffle)
        if self.mode == "sample" and self.shuffle:
            try:
                self.rng = check_rng(rng)
            except TypeError as exc:
                raise TypeError(
                    f"{exc}. mode='sample' with shuffle=True draws a random presentation order: "
                    "pass rng=numpy.random.default_rng(seed) (or an int seed), or shuffle=False"
                ) from None
        else:
            self.rng = None if rng is None else check_rng(rng)
        self.tol = None if tol is None else check_tolerance("tol", tol, minimum=np.finfo(float).eps)
        self.w0 = None if w0 is None else as_array("w0", w0, ndim=1)
        self.eps = check_positive("eps", eps)
        self.divergence_factor = check_positive("divergence_factor", divergence_factor)
        self._w: np.ndarray | None = None
        self._hist_w: list[np.ndarray] = []
        self._hist_mse: list[float] = []
        self._hist_epoch: list[int] = []
        self.diverged = False
        self.converged = False
        self.n_epochs = 0

    # ------------------------------------------------------------------ properties
    @property
    def params(self) -> np.ndarray:
        """Current weights (copy), shape ``(p,)``."""
        if self._w is None:
            raise RuntimeError("the Adaline has no weights yet: call fit(W, y) or partial_fit(x_row, t) first")
        return self._w.copy()

    @property
    def history(self) -> dict[str, np.ndarray]:
        """Weights and mean squared error per epoch (see the class docstring)."""
        p = 0 if self._w is None else self._w.size
        return {
            "epoch": np.array(self._hist_epoch, dtype=int),
            "weights": np.array(self._hist_w, dtype=float).reshape(len(self._hist_w), p),
            "mse": np.array(self._hist_mse, dtype=float),
        }

    # ------------------------------------------------------------------ helpers
    def _initial_weights(self, p: int) -> np.ndarray:
        if self.w0 is None:
            return np.zeros(p)
        if self.w0.shape != (p,):
            raise ValueError(f"w0 must have shape ({p},) (one weight per column of W), got {self.w0.shape}")
        return self.w0.copy()

    def _record(self, epoch: int, w: np.ndarray, mse: float) -> None:
        self._hist_epoch.append(epoch)
        self._hist_w.append(w.copy())
        self._hist_mse.append(mse)

    def _sample_pass(self, w: np.ndarray, X: np.ndarray, d: np.ndarray, order: Sequence[int]) -> np.ndarray:
        gamma = self.learning_rate
        if self.normalized:
            power = np.einsum("ij,ij->i", X, X) + self.eps
            for k in order:
                x = X[k]
                w += (gamma * (d[k] - x @ w) / power[k]) * x
        else:
            for k in order:
                x = X[k]
                w += (gamma * (d[k] - x @ w)) * x
        return w

    # ------------------------------------------------------------------ training
    def fit(self, W: Any, y: Any) -> "Adaline":
        """Train from the initial weights ``w0`` for at most ``epochs`` epochs.

        Parameters
        ----------
        W : array_like, shape (N, p)
            Regressor rows (inputs of the neuron).
        y : array_like, shape (N,)
            Targets (measured torques).

        Returns
        -------
        Adaline
            ``self``, with :attr:`params`, :attr:`history`, :attr:`diverged`,
            :attr:`converged` and :attr:`n_epochs` updated.

        Raises
        ------
        ValueError
            On non-finite data, mismatched ``W``/``y``, an all-zero ``W`` (no input excites
            the neuron: nothing to learn) or ``w0`` of the wrong length.

        Warns
        -----
        RuntimeWarning
            If the error blows up (the learning rate is above the stable bound).
        """
        W, y = _check_data(W, y)
        if not np.any(W):
            raise ValueError("W must not be all zero: no input excites the neuron, there is nothing to learn")
        N, p = W.shape
        w = self._initial_weights(p)
        self._w = w
        self._hist_w, self._hist_mse, self._hist_epoch = [], [], []
        self.diverged = self.converged = False
        self.n_epochs = 0

        mse0 = float(np.mean((y - W @ w) ** 2))
        self._record(0, w, mse0)
        limit = self.divergence_factor * max(mse0, float(np.mean(y**2)), np.finfo(float).tiny)
        if self.mode == "batch":
            lam = _lambda_max(W)
            step = self.learning_rate / lam if self.normalized else self.learning_rate
        for epoch in range(1, self.epochs + 1):
            w_old = w.copy()
            with np.errstate(over="ignore", invalid="ignore"):
                if self.mode == "batch":
                    w = w + (step / N) * (W.T @ (y - W @ w))
                else:
                    order = self.rng.permutation(N) if self.shuffle else range(N)
                    w = self._sample_pass(w, W, y, order)
                mse = float(np.mean((y - W @ w) ** 2))
            self._w = w
            self._record(epoch, w, mse)
            self.n_epochs = epoch
            if not np.isfinite(mse) or not np.all(np.isfinite(w)) or mse > limit:
                self.diverged = True
                bound = max_stable_rate(W)
                hint = (
                    "the normalised rate must be below 2"
                    if self.normalized
                    else f"the stable bound of batch gradient descent is 2/lambda_max(W'W/N) = {bound:.4g}"
                )
                warnings.warn(
                    f"Adaline diverged at epoch {epoch} (mean squared error {mse:.3g}, initially "
                    f"{mse0:.3g}) with learning_rate={self.learning_rate:.4g} in mode={self.mode!r}; {hint}",
                    RuntimeWarning,
                    stacklevel=2,
                )
                break
            if self.tol is not None:
                change = float(np.linalg.norm(w - w_old))
                if change <= self.tol * float(np.linalg.norm(w)):
                    self.converged = True
                    break
        return self

    def partial_fit(self, x_row: Any, t: Any) -> "Adaline":
        """Update the weights with one sample (or one block of rows) as it arrives.

        In sample mode the rows of a block are presented in the given order (no
        shuffling), one delta-rule step each; in batch mode the block gives one gradient
        step on its own mean squared error (for a single row both are the same).

        Parameters
        ----------
        x_row : array_like, shape (p,) or (m, p)
            One regressor row, or ``m`` rows (e.g. the ``n`` joint rows of one sample).
        t : float or array_like, shape (m,)
            Target(s) for the row(s).

        Returns
        -------
        Adaline
            ``self``; one entry is appended to :attr:`history` (epoch ``-1``, a-priori MSE).

        Raises
        ------
        ValueError
            On non-finite input, or a row length different from the current weights.

        Examples
        --------
        >>> import numpy as np
        >>> from robidlib.estimation.adaline import Adaline
        >>> net = Adaline(0.5, normalized=True, shuffle=False)
        >>> for _ in range(60):
        ...     net = net.partial_fit([1.0, 1.0], 3.0).partial_fit([1.0, -1.0], -1.0)
        >>> np.allclose(net.params, [1.0, 2.0])
        True
        """
        X = as_array("x_row", x_row, ndim=(1, 2))
        single = X.ndim == 1
        X = X.reshape(1, -1) if single else X
        d = as_array("t", t, ndim=0 if single else 1).reshape(-1)
        if d.shape[0] != X.shape[0]:
            raise ValueError(f"x_row has {X.shape[0]} rows but t has {d.shape[0]} entries; they must match")
        p = X.shape[1]
        if p == 0:
            raise ValueError(f"x_row must have at least one entry (one per weight), got shape {np.shape(x_row)}")
        if self._w is None:
            self._w = self._initial_weights(p)
        elif self._w.size != p:
            raise ValueError(f"x_row must have {self._w.size} entries (the number of weights), got {p}")
        w = self._w.copy()
        with np.errstate(over="ignore", invalid="ignore"):
            mse = float(np.mean((d - X @ w) ** 2))
            if self.mode == "batch":
                step = self.learning_rate / _lambda_max(X) if self.normalized and np.any(X) else self.learning_rate
                w = w + (step / X.shape[0]) * (X.T @ (d - X @ w))
            else:
                w = self._sample_pass(w, X, d, range(X.shape[0]))
        self._w = w
        self._record(-1, w, mse)
        return self

    def predict(self, W: Any) -> np.ndarray:
        """Network output ``W w`` for regressor rows ``W`` (shape ``(N, p)`` or ``(p,)``)."""
        X = as_array("W", W, ndim=(1, 2))
        w = self.params
        if X.shape[-1] != w.size:
            raise ValueError(f"W must have {w.size} columns (the number of weights), got {X.shape[-1]}")
        return X @ w

    def to_estimate(self, W: Any, y: Any, names: Sequence[str] | None = None) -> Estimate:
        """Package the current weights as an :class:`Estimate` for comparison with OLS.

        The covariance is the least-squares formula ``sigma^2 (W'W)^-1`` with ``sigma^2``
        from the residuals *at the Adaline weights*; at convergence it equals the OLS
        covariance.

        Parameters
        ----------
        W : array_like, shape (N, p)
            Regressor used for training (or validation).
        y : array_like, shape (N,)
            Targets.
        names : sequence of str, optional
            Parameter names.

        Returns
        -------
        Estimate
            ``method="adaline"``; ``info`` holds the learning rate, mode, epochs run and
            the divergence flag.

        Raises
        ------
        ValueError
            On bad data, ``N <= p`` or a rank-deficient ``W``.
        """
        W, y = _check_data(W, y)
        w = self.params
        if W.shape[1] != w.size:
            raise ValueError(f"W must have {w.size} columns (the number of weights), got {W.shape[1]}")
        info = {
            "learning_rate": self.learning_rate, "mode": self.mode, "normalized": self.normalized,
            "epochs": self.n_epochs, "diverged": self.diverged, "converged": self.converged,
        }
        return _estimate_at(W, y, w, names, "adaline", info)

    def __repr__(self) -> str:
        return (
            f"Adaline(learning_rate={self.learning_rate:g}, epochs={self.epochs}, mode={self.mode!r}, "
            f"normalized={self.normalized}, shuffle={self.shuffle})"
        )


# ---------------------------------------------------------------------- estimator variants
# Functional front ends that return an :class:`Estimate`, for benchmarks that compare every
# method on the same information: weighted rows, a fixed budget from a prior, on-line runs.


def _joint_sigma(sigma: Any, n_joints: Any, r: int) -> tuple[np.ndarray | None, int | None]:
    """Per-row scale ``1/sigma_j`` of a sample-major stacked system, or ``(None, None)``."""
    if sigma is None:
        if n_joints is not None:
            _n_joints(n_joints, r)
        return None, None
    if n_joints is None:
        raise ValueError("sigma (per-joint noise standard deviations) needs n_joints, the rows per sample")
    n = _n_joints(n_joints, r)
    s = as_array("sigma", sigma, ndim=(0, 1))
    s = np.full(n, float(s)) if s.ndim == 0 else s
    if s.shape != (n,):
        raise ValueError(f"sigma must be a scalar or have shape ({n},) (one value per joint), got {s.shape}")
    if np.any(s <= 0):
        raise ValueError(f"sigma holds noise standard deviations and must be > 0, got {s}")
    return s, n


def _n_joints(n_joints: Any, r: int) -> int:
    if isinstance(n_joints, (bool, np.bool_)) or not isinstance(n_joints, (int, np.integer)):
        raise TypeError(f"n_joints must be a positive int, got {type(n_joints).__name__}")
    n = int(n_joints)
    if n < 1:
        raise ValueError(f"n_joints must be >= 1, got {n}")
    if r % n:
        raise ValueError(f"W has {r} rows, not a multiple of n_joints={n} (row k*n + j is joint j of sample k)")
    return n


def whiten_rows(W: Any, y: Any, n_joints: int, sigma: Any) -> tuple[np.ndarray, np.ndarray]:
    """Divide every row of a stacked system by the noise standard deviation of its joint.

    Row ``k*n + j`` of ``W`` and ``y`` (joint ``j`` of sample ``k``, the book's sample-major
    stacking) is divided by ``sigma_j``.  Least squares on the result is weighted least
    squares (:func:`robidlib.estimation.lsq.wls` with ``weights=sigma``); every estimator that
    minimises a sum of squares (Adaline, the Hopfield network) becomes its weighted version
    when it is given the whitened rows.

    Parameters
    ----------
    W : array_like, shape (N*n, p)
        Stacked regressor.
    y : array_like, shape (N*n,)
        Stacked torques.
    n_joints : int
        Rows per sample ``n``.
    sigma : float or array_like, shape (n,)
        Noise standard deviation of each joint (> 0, the unit of ``y``).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        ``W / sigma_row[:, None]`` and ``y / sigma_row``.

    Raises
    ------
    ValueError
        On non-finite or mismatched data, a row count not a multiple of ``n_joints``, or a
        ``sigma`` that is not positive or not one value per joint.
    TypeError
        If ``n_joints`` is not an int.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.estimation.adaline import whiten_rows
    >>> Ww, yw = whiten_rows(np.ones((4, 1)), [2.0, 10.0, 2.0, 10.0], 2, [1.0, 5.0])
    >>> Ww.ravel().tolist(), yw.tolist()
    ([1.0, 0.2, 1.0, 0.2], [2.0, 2.0, 2.0, 2.0])
    """
    W, y = _check_data(W, y)
    s, n = _joint_sigma(sigma, n_joints, W.shape[0])
    if s is None:
        raise ValueError("sigma must be given (per-joint noise standard deviations), got None")
    scale = np.tile(1.0 / s, W.shape[0] // n)
    return W * scale[:, None], y * scale


def _names_or_default(names: Sequence[str] | None, p: int) -> tuple[str, ...] | None:
    if names is None:
        return None
    if isinstance(names, str):
        raise TypeError("names must be a sequence of strings, got a single str")
    return tuple(str(nm) for nm in names)


#: Most epochs (passes) a call may run: far beyond convergence, short of running for hours.
_MAX_EPOCHS = 10**7


def _epoch_count(name: str, value: Any) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not 0 <= value <= _MAX_EPOCHS:
        raise ValueError(f"{name} must be an integer number of epochs from 0 to {_MAX_EPOCHS:.0e}, got {value!r}")
    return int(value)


def _initial_weights(w0: Any, p: int, what: str) -> np.ndarray:
    """``w0`` (default zeros) as a copy of shape ``(p,)``, one weight per column of ``what``."""
    if w0 is None:
        return np.zeros(p)
    w = as_array("w0", w0, ndim=1)
    if w.shape != (p,):
        raise ValueError(f"w0 must have shape ({p},) (one weight per column of {what}), got {w.shape}")
    return w.copy()


def adaline_batch(
    W: Any,
    y: Any,
    *,
    n_joints: int | None = None,
    sigma: Any = None,
    w0: Any = None,
    epochs: int | None = None,
    rate: float = 0.9,
    equilibrate: bool = False,
    tol: float = 1e-10,
    max_epochs: int = 200_000,
    names: Sequence[str] | None = None,
) -> Estimate:
    """Batch Adaline (gradient descent on the mean squared error) as an :class:`Estimate`.

    Iterates ``w <- w + gamma W'(y - W w) / N`` (the Landweber iteration) from ``w0``:

    * ``sigma`` given: on the whitened rows (:func:`whiten_rows`), i.e. gradient descent on
      the *weighted* least-squares cost, whose minimiser is the WLS estimate;
    * ``epochs=None``: until the relative weight change of an epoch is below ``tol`` (or
      ``max_epochs``): the result is the (weighted) least-squares estimate, reached slowly;
    * ``epochs=k``: a **fixed budget** of ``k`` epochs from ``w0`` (e.g. a CAD prior).
      Early-stopped gradient descent is a spectral regulariser: along a right singular
      vector ``v_i`` of ``W`` the distance to the least-squares solution shrinks by
      ``(1 - gamma s_i^2 / N)^k``, so well-excited directions follow the data while poorly
      excited ones stay near ``w0`` -- close to ridge regression towards ``w0``.

    Parameters
    ----------
    W : array_like, shape (N, p)
        Stacked regressor (``N = samples * n_joints`` rows, sample-major).
    y : array_like, shape (N,)
        Stacked torques.
    n_joints : int, optional
        Rows per sample; required with ``sigma``.
    sigma : float or array_like, shape (n_joints,), optional
        Per-joint noise standard deviations: weighted Adaline.
    w0 : array_like, shape (p,), optional
        Initial weights (default zeros), e.g. the prior.
    epochs : int, optional
        Fixed number of epochs (0 returns ``w0``); ``None`` runs to convergence.
    rate : float, default 0.9
        Learning rate as a fraction of the stable bound ``2 / lambda_max`` of the (whitened,
        equilibrated) regressor, in ``]0, 1[``.
    equilibrate : bool, default False
        Run on columns divided by their norms (a diagonal preconditioner; the weights are
        scaled back). It speeds convergence and changes which directions a fixed budget
        learns first.
    tol : float, default 1e-10
        Convergence test of ``epochs=None``: ``||w_new - w_old|| <= tol ||w_new||``.
    max_epochs : int, default 200000
        Largest number of epochs of ``epochs=None``.
    names : sequence of str, optional
        Parameter names.

    Returns
    -------
    Estimate
        ``method="adaline"``; ``cov`` is the (weighted) least-squares covariance at the
        weights; ``info`` holds ``"epochs"`` (run), ``"converged"``, ``"budget"``
        (the ``epochs`` asked for or None), ``"learning_rate"`` (the absolute step),
        ``"rate"``, ``"sigma_joint"`` (None when unweighted) and ``"equilibrated"``.

    Raises
    ------
    ValueError
        On bad data, a ``rate`` outside ``]0, 1[``, a negative or non-integer budget,
        ``sigma`` without ``n_joints``, ``w0`` of the wrong length, fewer rows than
        parameters or a rank-deficient ``W``.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.estimation.adaline import adaline_batch
    >>> from robidlib.estimation.lsq import wls
    >>> rng = np.random.default_rng(0)
    >>> W = rng.normal(size=(400, 3))
    >>> y = W @ [1.0, -2.0, 0.5] + np.tile([0.1, 1.0], 200) * rng.normal(size=400)
    >>> est = adaline_batch(W, y, n_joints=2, sigma=[0.1, 1.0])
    >>> bool(np.allclose(est.params, wls(W, y, 2, weights=[0.1, 1.0]).params, atol=1e-8))
    True
    >>> adaline_batch(W, y, w0=[1.0, 1.0, 1.0], epochs=0).params.tolist()
    [1.0, 1.0, 1.0]
    """
    W, y = _check_data(W, y)
    r, p = W.shape
    s, n = _joint_sigma(sigma, n_joints, r)
    if s is not None:
        W, y = whiten_rows(W, y, n, s)
    frac = check_positive("rate", rate)
    if frac >= 1.0:
        raise ValueError(f"rate is a fraction of the stable bound 2/lambda_max and must be < 1, got {frac}")
    budget = None if epochs is None else _epoch_count("epochs", epochs)
    n_max = _epoch_count("max_epochs", max_epochs)
    if n_max < 1:
        raise ValueError(f"max_epochs must be >= 1, got {n_max}")
    tol = check_tolerance("tol", tol, minimum=np.finfo(float).eps)
    w = _initial_weights(w0, p, "W")
    D = np.linalg.norm(W, axis=0) if check_flag("equilibrate", equilibrate) else np.ones(p)
    if np.any(D == 0):
        raise ValueError("W has an all-zero column: that parameter is not excited at all")
    X = W / D
    gamma = frac * max_stable_rate(X)
    A = X.T @ X / r                               # the gradient W'(y - W w)/N = b - A w
    b = X.T @ y / r
    v = w * D                                     # weights of the equilibrated problem
    done, converged = 0, False
    for done in range(1, (n_max if budget is None else budget) + 1):
        step = gamma * (b - A @ v)
        v = v + step
        if budget is None and np.linalg.norm(step) <= tol * np.linalg.norm(v):
            converged = True
            break
    else:
        done = budget if budget is not None else done
    w = v / D
    info = {
        "epochs": int(done), "converged": converged, "budget": budget, "learning_rate": gamma,
        "rate": frac, "sigma_joint": s, "equilibrated": bool(equilibrate),
    }
    return _estimate_at(W, y, w, _names_or_default(names, p), "adaline", info)


def _samples(Y: Any, tau: Any, name: str = "Y") -> tuple[np.ndarray, np.ndarray]:
    """Per-sample regressor ``(N, n, p)`` and torques ``(N, n)`` (``(N, p)``, ``(N,)`` accepted).

    ``name`` is the regressor's argument name in the messages (``Phi`` for the Hopfield network).
    """
    Y = as_array(name, Y, ndim=(2, 3))
    tau = as_array("tau", tau, ndim=(1, 2))
    if Y.ndim == 2:
        if tau.ndim != 1:
            raise ValueError(f"with {name} of shape (N, p), tau must have shape (N,), got {tau.shape}")
        Y, tau = Y[:, None, :], tau[:, None]
    if tau.shape != Y.shape[:2]:
        raise ValueError(f"tau must have shape {Y.shape[:2]} to match {name} {Y.shape}, got {tau.shape}")
    if Y.shape[0] == 0 or Y.shape[2] == 0:
        raise ValueError(f"{name} must hold at least one sample and one parameter, got shape {Y.shape}")
    return Y, tau


def _sample_sigma(sigma: Any, n: int) -> np.ndarray | None:
    if sigma is None:
        return None
    s = as_array("sigma", sigma, ndim=(0, 1))
    s = np.full(n, float(s)) if s.ndim == 0 else s
    if s.shape != (n,):
        raise ValueError(f"sigma must be a scalar or have shape ({n},) (one value per joint), got {s.shape}")
    if np.any(s <= 0):
        raise ValueError(f"sigma holds noise standard deviations and must be > 0, got {s}")
    return s


def adaline_online(
    Y: Any,
    tau: Any,
    *,
    sigma: Any = None,
    rate: float = 0.5,
    w0: Any = None,
    passes: int = 1,
    eps: float = 1e-12,
    names: Sequence[str] | None = None,
) -> Estimate:
    """On-line Adaline: one normalised LMS step per sample, in time order, as data arrive.

    Sample ``k`` brings the ``n`` joint rows ``X_k`` (``n x p``) and torques ``d_k``; the
    weights move by the normalised block step

    .. math::  w \\leftarrow w + \\gamma\\, X_k^\\top (d_k - X_k w) / (\\varepsilon + \\lVert X_k\\rVert_F^2),

    stable for ``0 < gamma < 2`` whatever the units (for ``n = 1`` this is NLMS).  With
    ``sigma`` the rows of joint ``j`` are divided by ``sigma_j`` first (weighted: with one
    row per sample the normalisation would cancel the weights, with a block it does not).

    Parameters
    ----------
    Y : array_like, shape (N, n, p) or (N, p)
        Regressor of each sample.
    tau : array_like, shape (N, n) or (N,)
        Torques of each sample.
    sigma : float or array_like, shape (n,), optional
        Per-joint noise standard deviations.
    rate : float, default 0.5
        Normalised step ``gamma`` in ``]0, 2[``.
    w0 : array_like, shape (p,), optional
        Initial weights (default zeros), e.g. a prior.
    passes : int, default 1
        Passes over the data (1: truly on-line; each pass in time order).
    eps : float, default 1e-12
        Regularisation of the normaliser.
    names : sequence of str, optional
        Parameter names.

    Returns
    -------
    Estimate
        ``method="adaline-online"``, the final weights with the (weighted) least-squares
        covariance at them; ``info["history"]`` is an array ``(passes * N + 1, p)``: the
        weights before any sample and after each one; ``info`` also holds ``"rate"``,
        ``"passes"`` and ``"sigma_joint"``.

    Raises
    ------
    ValueError
        On bad shapes or values, ``rate`` outside ``]0, 2[``, ``passes < 1``, or too few
        rows / a rank-deficient regressor for the covariance.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.estimation.adaline import adaline_online
    >>> rng = np.random.default_rng(1)
    >>> Y = rng.normal(size=(300, 2, 3))
    >>> tau = Y @ np.array([1.0, -2.0, 0.5])
    >>> est = adaline_online(Y, tau, rate=1.0)
    >>> bool(np.allclose(est.params, [1.0, -2.0, 0.5], atol=1e-6)), est.info["history"].shape
    (True, (301, 3))
    """
    Y, tau = _samples(Y, tau)
    N, n, p = Y.shape
    s = _sample_sigma(sigma, n)
    if s is not None:
        Y, tau = Y / s[None, :, None], tau / s[None, :]
    g = check_positive("rate", rate)
    if g >= 2.0:
        raise ValueError(f"rate is the normalised step and must be in ]0, 2[, got {g}")
    if isinstance(passes, (bool, np.bool_)) or not isinstance(passes, (int, np.integer)) or not 1 <= passes <= 10**4:
        raise ValueError(f"passes must be an integer from 1 to 1e4, got {passes!r}")
    eps = check_positive("eps", eps)
    w = _initial_weights(w0, p, "Y")
    power = np.einsum("knp,knp->k", Y, Y) + eps
    hist = np.empty((passes * N + 1, p))
    hist[0] = w
    i = 1
    for _ in range(int(passes)):
        for k in range(N):
            X = Y[k]
            w = w + (g / power[k]) * (X.T @ (tau[k] - X @ w))
            hist[i] = w
            i += 1
    info = {"history": hist, "rate": g, "passes": int(passes), "sigma_joint": s}
    return _estimate_at(Y.reshape(-1, p), tau.reshape(-1), w, _names_or_default(names, p), "adaline-online", info)


def recursive_least_squares(
    Y: Any,
    tau: Any,
    *,
    forgetting: float = 1.0,
    sigma: Any = None,
    w0: Any = None,
    p0: float = 1e6,
    names: Sequence[str] | None = None,
) -> Estimate:
    """Recursive least squares with a forgetting factor: the benchmark of on-line estimators.

    Sample ``k`` (rows ``X_k``, torques ``d_k``, divided by ``sigma_j`` when given) updates

    .. math::

        K = P X_k^\\top (\\lambda I + X_k P X_k^\\top)^{-1},\\quad
        w \\leftarrow w + K (d_k - X_k w),\\quad
        P \\leftarrow (P - K X_k P) / \\lambda ,

    which minimises ``sum_i lambda^(k-i) ||d_i - X_i w||^2 + lambda^k ||w - w0||^2 / p0``
    exactly at every sample: exponentially weighted least squares with a memory of about
    ``1 / (1 - lambda)`` samples (:cite:`ljung1999`).

    Parameters
    ----------
    Y : array_like, shape (N, n, p) or (N, p)
        Regressor of each sample.
    tau : array_like, shape (N, n) or (N,)
        Torques of each sample.
    forgetting : float, default 1.0
        ``lambda`` in ``]0, 1]`` (1: ordinary recursive least squares).
    sigma : float or array_like, shape (n,), optional
        Per-joint noise standard deviations (weighted RLS).
    w0 : array_like, shape (p,), optional
        Initial estimate (default zeros).
    p0 : float, default 1e6
        Initial covariance ``P_0 = p0 I`` (large: little trust in ``w0``).
    names : sequence of str, optional
        Parameter names.

    Returns
    -------
    Estimate
        ``method="rls"``, the final estimate with the (weighted) least-squares covariance
        over all samples; ``info["history"]`` ``(N + 1, p)`` holds the estimate before any
        sample and after each one, ``info["forgetting"]`` and ``info["sigma_joint"]``.

    Raises
    ------
    ValueError
        On bad shapes or values, ``forgetting`` outside ``]0, 1]``, a non-positive ``p0``.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.estimation.adaline import recursive_least_squares
    >>> rng = np.random.default_rng(2)
    >>> Y = rng.normal(size=(200, 2, 3))
    >>> tau = Y @ np.array([1.0, -2.0, 0.5]) + 0.01 * rng.normal(size=(200, 2))
    >>> est = recursive_least_squares(Y, tau)
    >>> ls = np.linalg.lstsq(Y.reshape(-1, 3), tau.ravel(), rcond=None)[0]
    >>> bool(np.allclose(est.params, ls, atol=1e-6))
    True
    """
    Y, tau = _samples(Y, tau)
    N, n, p = Y.shape
    s = _sample_sigma(sigma, n)
    if s is not None:
        Y, tau = Y / s[None, :, None], tau / s[None, :]
    lam = check_positive("forgetting", forgetting)
    if lam > 1.0:
        raise ValueError(f"forgetting must be in ]0, 1], got {lam}")
    P = check_positive("p0", p0) * np.eye(p)
    w = _initial_weights(w0, p, "Y")
    hist = np.empty((N + 1, p))
    hist[0] = w
    eye = np.eye(n)
    for k in range(N):
        X = Y[k]
        PX = P @ X.T
        K = np.linalg.solve(lam * eye + X @ PX, PX.T).T
        w = w + K @ (tau[k] - X @ w)
        P = (P - K @ PX.T) / lam
        P = 0.5 * (P + P.T)
        hist[k + 1] = w
    info = {"history": hist, "forgetting": lam, "sigma_joint": s}
    return _estimate_at(Y.reshape(-1, p), tau.reshape(-1), w, _names_or_default(names, p), "rls", info)
