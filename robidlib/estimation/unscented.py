"""The unscented Kalman filter: sigma points instead of Jacobians.

The extended Kalman filter (:mod:`robidlib.estimation.kalman`) propagates the covariance
through the Jacobians of the model at one point, the current estimate.  The unscented
Kalman filter (:cite:`julier2004`, :cite:`simon2006`) propagates ``2 n + 1`` *sigma points*
instead: the estimate and ``n`` symmetric pairs around it along the columns of a square
root of ``(n + lam) P``.  Each point goes through the nonlinear model itself, and the
weighted mean and covariance of the images are the prediction.  No Jacobian is needed, and
the mean and covariance are exact to second order of the model's Taylor series (the EKF's
are exact to first order).

The points and weights are the scaled set of van der Merwe (:func:`sigma_points`):
``lam = alpha^2 (n + kappa) - n``; the points sit ``sqrt(n + lam)`` standard deviations
from the mean; ``beta = 2`` is optimal for a Gaussian prior.  The filter is the one for
additive process and measurement noise:

* predict: sigma points of ``(x, P)``, pushed through ``f(x, u)``; their weighted mean and
  covariance plus ``Q`` are the prior;
* update: *new* sigma points of the prior (so that ``Q`` enters the measurement
  prediction), pushed through ``h(x)``; ``S`` is their covariance plus ``R``, ``C`` the
  cross-covariance of states and measurements, ``K = C S^-1`` (from a Cholesky factor of
  ``S``), ``x <- x + K (z - z_hat)`` and ``P <- P - K S K'``.

After every step ``P`` is symmetrised and checked; a covariance that is no longer positive
semi-definite raises a ``ValueError`` naming the step, as in the EKF.  ``tests/test_ukf.py``
checks the filter against ``filterpy``'s ``UnscentedKalmanFilter``.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import scipy.linalg

from .._validate import as_array, check_nonnegative, check_positive
from .kalman import _check_cov, _check_out, _cho_solve, _cholesky

__all__ = ["UnscentedKalmanFilter", "sigma_points"]


def _real(name: str, value: Any) -> float:
    """A finite real scalar (``kappa`` may be negative)."""
    if isinstance(value, (bool, np.bool_, str, bytes)) or np.ndim(value) != 0:
        raise TypeError(f"{name} must be a real scalar, got {type(value).__name__}")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real scalar, got {type(value).__name__}") from None
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite, got {v}")
    return v


def _scaling(n: int, alpha: Any, beta: Any, kappa: Any) -> tuple[float, float, float]:
    """Checked ``alpha``, ``beta``, and ``lam = alpha^2 (n + kappa) - n`` with ``n + lam > 0``."""
    a = check_positive("alpha", alpha)
    b = check_nonnegative("beta", beta)
    k = _real("kappa", kappa)
    if n + k <= 0:
        raise ValueError(f"kappa must be > -n = {-n} (so that the points have a spread), got {k}")
    lam = a * a * (n + k) - n
    return a, b, lam


def _weights(n: int, alpha: float, beta: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    c = n + lam
    Wm = np.full(2 * n + 1, 0.5 / c)
    Wc = Wm.copy()
    Wm[0] = lam / c
    Wc[0] = lam / c + (1.0 - alpha * alpha + beta)
    return Wm, Wc


def _points(x: np.ndarray, P: np.ndarray, c: float) -> np.ndarray:
    """``x`` and ``x +- columns of a square root of c P`` (Cholesky, or eigen for a singular P)."""
    try:
        L = _cholesky(c * P).T                   # lower factor: c P = L L'
    except np.linalg.LinAlgError:                # positive semi-definite: symmetric square root
        lam, V = scipy.linalg.eigh(c * P)
        L = V * np.sqrt(np.clip(lam, 0.0, None))
    return np.vstack([x, x + L.T, x - L.T])


def sigma_points(x: Any, P: Any, alpha: float = 1.0, beta: float = 2.0,
                 kappa: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scaled sigma points of a mean and covariance, with their weights (van der Merwe).

    With ``lam = alpha^2 (n + kappa) - n`` the ``2 n + 1`` points are ``x`` and
    ``x +- L_i``, ``L_i`` the columns of the Cholesky factor of ``(n + lam) P`` (of its
    symmetric square root when ``P`` is singular).  The mean weights are
    ``lam / (n + lam)`` for ``x`` and ``1 / (2 (n + lam))`` for the others; the covariance
    weight of ``x`` adds ``1 - alpha^2 + beta``.  The weighted mean and covariance of the
    points are exactly ``x`` and ``P`` (the centre's covariance weight multiplies a zero
    deviation; it matters once the points have gone through a nonlinear map).

    Parameters
    ----------
    x : array_like, shape (n,)
        Mean.
    P : array_like, shape (n, n)
        Covariance (symmetric positive semi-definite).
    alpha : float, default 1.0
        Spread (> 0): the points lie ``alpha sqrt(n + kappa)`` standard deviations from the
        mean.  ``alpha = 1, kappa = 0`` gives positive weights; small values (``1e-3``) give
        points close to the mean and a large negative centre weight.
    beta : float, default 2.0
        Prior knowledge of the distribution (>= 0); 2 is optimal for a Gaussian.
    kappa : float, default 0.0
        Secondary scaling, ``n + kappa > 0`` (``3 - n`` is Julier's choice for a Gaussian).

    Returns
    -------
    points : numpy.ndarray, shape (2n + 1, n)
        One point per row, the mean first.
    Wm, Wc : numpy.ndarray, shape (2n + 1,)
        Weights of the mean and of the covariance.

    Raises
    ------
    ValueError
        If ``x`` is not a finite non-empty vector, ``P`` is not a symmetric positive
        semi-definite ``(n, n)`` matrix, ``alpha <= 0``, ``beta < 0`` or
        ``n + kappa <= 0``.
    TypeError
        If a scaling parameter is not a real scalar.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.estimation.unscented import sigma_points
    >>> pts, Wm, Wc = sigma_points([1.0, 2.0], np.diag([4.0, 1.0]))
    >>> pts
    array([[ 1.        ,  2.        ],
           [ 3.82842712,  2.        ],
           [ 1.        ,  3.41421356],
           [-1.82842712,  2.        ],
           [ 1.        ,  0.58578644]])
    >>> bool(np.allclose(Wm @ pts, [1.0, 2.0]))
    True
    """
    x = as_array("x", x, ndim=1)
    if x.size == 0:
        raise ValueError("x must have at least one entry, got shape (0,)")
    n = x.size
    try:
        shape_P = None if isinstance(P, (str, bytes)) else np.shape(P)
    except ValueError:                                   # ragged: as_array names it below
        shape_P = None
    if shape_P is not None and shape_P != (n, n):
        raise ValueError(f"P must have shape ({n}, {n}) to match x of shape ({n},), got {shape_P}")
    P = _check_cov("P", P, n)
    a, b, lam = _scaling(n, alpha, beta, kappa)
    Wm, Wc = _weights(n, a, b, lam)
    return _points(x, P, n + lam), Wm, Wc


class UnscentedKalmanFilter:
    """Unscented Kalman filter for additive process and measurement noise.

    The same ``predict`` / ``update`` interface as
    :class:`~robidlib.estimation.kalman.ExtendedKalmanFilter`, without Jacobians.

    Parameters
    ----------
    f : callable
        Process model ``f(x, u) -> x_next`` (shape ``(nx,)``); ``u`` is whatever was passed
        to :meth:`predict` (``None`` by default).
    h : callable
        Measurement model ``h(x) -> z`` (shape ``(nz,)``).
    Q : array_like, shape (nx, nx) or (nx,)
        Process-noise covariance (a 1-D array is its diagonal).
    R : array_like, shape (nz, nz) or (nz,)
        Measurement-noise covariance.
    x0 : array_like, shape (nx,)
        Initial state estimate.
    P0 : array_like, shape (nx, nx) or (nx,)
        Initial covariance.
    alpha, beta, kappa : float
        Scaling of the sigma points (:func:`sigma_points`); default ``1, 2, 0``.

    Attributes
    ----------
    x, P : numpy.ndarray
        Current estimate and covariance (copies).
    y, S, K : numpy.ndarray
        Innovation, its covariance and the gain of the last update.
    nis : float
        Normalised innovation squared ``y' S^-1 y`` of the last update (NaN before one).
    step : int
        Number of predictions made so far.
    Wm, Wc : numpy.ndarray, shape (2 nx + 1,)
        Weights of the sigma points.

    Raises
    ------
    TypeError
        If ``f`` or ``h`` is not callable, or a scaling parameter is not a real scalar.
    ValueError
        If ``Q``, ``R`` or ``P0`` is not symmetric positive semi-definite of the right size,
        ``x0`` is not a finite vector, or the scaling is out of range.

    Examples
    --------
    A constant-velocity target observed through its range from a point 1 m off its path:

    >>> import numpy as np
    >>> from robidlib.estimation.unscented import UnscentedKalmanFilter
    >>> F = np.array([[1.0, 0.1], [0.0, 1.0]])
    >>> ukf = UnscentedKalmanFilter(lambda x, u: F @ x, lambda x: np.hypot(x[:1], 1.0),
    ...                             Q=1e-8 * np.eye(2), R=[1e-6], x0=[0.5, 0.5],
    ...                             P0=np.diag([0.25, 0.25]))
    >>> for k in range(1, 60):
    ...     ukf.predict()
    ...     ukf.update(np.hypot([0.3 + 0.02 * k], 1.0))    # true velocity 0.2
    >>> bool(abs(ukf.x[1] - 0.2) < 1e-3)
    True
    """

    def __init__(self, f: Callable, h: Callable, Q: Any, R: Any, x0: Any, P0: Any, *,
                 alpha: float = 1.0, beta: float = 2.0, kappa: float = 0.0) -> None:
        for name, fun in (("f", f), ("h", h)):
            if not callable(fun):
                raise TypeError(f"{name} must be callable, got {type(fun).__name__}")
        self.f, self.h = f, h
        x0 = as_array("x0", x0, ndim=1)
        if x0.size == 0:
            raise ValueError("x0 must have at least one entry, got shape (0,)")
        nx = x0.size
        self.Q = _check_cov("Q", Q, nx, allow_diag=True)
        self.R = _check_cov("R", R, None, allow_diag=True)
        self.nx, self.nz = nx, self.R.shape[0]
        self.alpha, self.beta, self._lam = _scaling(nx, alpha, beta, kappa)
        self.kappa = float(kappa)
        self.Wm, self.Wc = _weights(nx, self.alpha, self.beta, self._lam)
        self.y = np.zeros(self.nz)
        self.S = np.zeros((self.nz, self.nz))
        self.K = np.zeros((nx, self.nz))
        self.nis = float("nan")
        self.reset(x0, P0)

    def reset(self, x0: Any, P0: Any) -> None:
        """Restart the filter from ``x0``, ``P0`` (and the step count from zero).

        Raises
        ------
        ValueError
            If ``x0`` or ``P0`` has the wrong shape, is not finite, or ``P0`` is not
            symmetric positive semi-definite.
        """
        self._x = as_array("x0", x0, shape=(self.nx,)).copy()
        self._P = _check_cov("P0", P0, self.nx, allow_diag=True)
        self.step = 0

    @property
    def x(self) -> np.ndarray:
        """Current state estimate (copy)."""
        return self._x.copy()

    @property
    def P(self) -> np.ndarray:
        """Current covariance (copy)."""
        return self._P.copy()

    def _set_P(self, P: np.ndarray, stage: str) -> None:
        P = 0.5 * (P + P.T)
        if not np.all(np.isfinite(P)):
            raise ValueError(f"the covariance P became non-finite at step {self.step} ({stage})")
        lam = np.linalg.eigvalsh(P)
        scale = max(float(np.max(np.abs(lam))), np.finfo(float).tiny)
        if lam[0] < -1e-9 * scale:
            raise ValueError(
                f"the covariance P lost positive semi-definiteness at step {self.step} ({stage}): "
                f"smallest eigenvalue {lam[0]:.3g} (largest {lam[-1]:.3g}); with a small alpha the "
                "negative centre weight can cause this - use alpha = 1, or increase Q or R"
            )
        self._P = P

    def predict(self, u: Any = None) -> None:
        """Propagate the sigma points through ``f``: the prior mean and covariance (plus ``Q``).

        Parameters
        ----------
        u : optional
            Input passed unchanged to ``f`` (e.g. the torque over the step).

        Raises
        ------
        ValueError
            If ``f`` returns a wrong shape or non-finite values (or fails with a
            ``LinAlgError``), or ``P`` loses positive semi-definiteness; the message gives
            the step number.
        """
        self.step += 1
        k = self.step
        X = _points(self._x, self._P, self.nx + self._lam)
        try:
            Xf = np.array([_check_out("f(x, u)", self.f(p, u), (self.nx,), k) for p in X])
        except np.linalg.LinAlgError as exc:
            raise ValueError(f"the process model failed at step {k}: {exc}") from exc
        with np.errstate(over="ignore", invalid="ignore"):    # non-finite: _set_P raises
            x = self.Wm @ Xf
            D = Xf - x
            P = (D.T * self.Wc) @ D + self.Q
        self._x = x
        self._set_P(P, "predict")

    def update(self, z: Any) -> None:
        """Correct the estimate with the measurement ``z`` through new sigma points of the prior.

        Parameters
        ----------
        z : array_like, shape (nz,)
            Measurement.

        Raises
        ------
        ValueError
            If ``z`` has the wrong shape or is not finite, ``h`` returns a wrong shape or
            non-finite values, ``S`` is not positive definite, or ``P`` loses positive
            semi-definiteness; the message gives the step number.
        """
        k = self.step
        z = as_array("z", z, shape=(self.nz,))
        X = _points(self._x, self._P, self.nx + self._lam)
        Z = np.array([_check_out("h(x)", self.h(p), (self.nz,), k) for p in X])
        with np.errstate(over="ignore", invalid="ignore"):
            z_hat = self.Wm @ Z
            DX, DZ = X - self._x, Z - z_hat
            S = (DZ.T * self.Wc) @ DZ + self.R
            S = 0.5 * (S + S.T)
            C = (DX.T * self.Wc) @ DZ
        try:
            if not (np.all(np.isfinite(S)) and np.all(np.isfinite(C))):
                raise np.linalg.LinAlgError("non-finite")
            c = _cholesky(S)
        except np.linalg.LinAlgError:
            raise ValueError(
                f"the innovation covariance S is not positive definite at step {k}; make R positive "
                "definite or check the measurement model"
            ) from None
        K = _cho_solve(c, C.T).T
        y = z - z_hat
        self._x = self._x + K @ y
        self._set_P(self._P - K @ S @ K.T, "update")
        self.y, self.S, self.K = y, S, K
        self.nis = float(y @ _cho_solve(c, y))

    def __repr__(self) -> str:
        return (f"UnscentedKalmanFilter(nx={self.nx}, nz={self.nz}, alpha={self.alpha:g}, "
                f"beta={self.beta:g}, kappa={self.kappa:g}, step={self.step})")
