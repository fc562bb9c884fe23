"""The discrete extended Kalman filter (the generic part, no robot inside).

:class:`ExtendedKalmanFilter` is the textbook discrete EKF (:cite:`kalman1960`,
:cite:`simon2006`) with the ``predict`` / ``update`` interface of filterpy:

* predict: ``x <- f(x, u)``, ``P <- F P F' + Q`` with ``F = df/dx`` at the previous
  estimate;
* update: ``y = z - h(x)``, ``S = H P H' + R``, ``K = P H' S^-1`` (from a Cholesky
  factor of ``S``, never an explicit inverse), ``x <- x + K y`` and the Joseph form
  ``P <- (I - K H) P (I - K H)' + K R K'`` (:cite:`simon2006`), which keeps ``P``
  symmetric positive semi-definite for any gain, unlike ``(I - K H) P``.

After every step ``P`` is symmetrised and checked; if it is no longer positive
semi-definite (up to round-off) a ``ValueError`` names the step, so a numerically sick
filter stops loudly instead of producing meaningless bands.  A linear Kalman filter is the
special case of constant Jacobians.

:func:`numerical_jacobian` (central differences) linearises a model that has no analytic
Jacobian.  The robot identifier built on this filter is in
:mod:`robidlib.estimation.augmented`, the consistency tests in
:mod:`robidlib.estimation.consistency`.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import scipy.linalg
from scipy.linalg.lapack import dgesv, dpotrf, dpotrs

from .._validate import as_array, check_positive

__all__ = ["ExtendedKalmanFilter", "numerical_jacobian"]


# ---------------------------------------------------------------------- helpers
# The filter solves many tiny systems per step; LAPACK is called directly (dgesv: LU with
# partial pivoting; dpotrf/dpotrs: Cholesky) to avoid the per-call overhead of the
# numpy/scipy wrappers, which dominates for 2x2 to 12x12 matrices.
def _solve(M: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Solve ``M X = B`` by LU (LAPACK gesv); ``LinAlgError`` if ``M`` is singular."""
    _, _, X, info = dgesv(M, B)
    if info != 0:
        raise np.linalg.LinAlgError(f"singular matrix (gesv info {info})")
    return X


def _cholesky(S: np.ndarray) -> np.ndarray:
    """Upper Cholesky factor of ``S`` (LAPACK potrf); ``LinAlgError`` if not positive definite."""
    c, info = dpotrf(S, lower=False, clean=True)
    if info != 0:
        raise np.linalg.LinAlgError(f"not positive definite (potrf info {info})")
    return c


def _cho_solve(c: np.ndarray, B: np.ndarray) -> np.ndarray:
    X, info = dpotrs(c, B, lower=False)
    if info != 0:  # pragma: no cover - only on invalid arguments
        raise np.linalg.LinAlgError(f"potrs info {info}")
    return X


def _check_cov(name: str, M: Any, n: int | None, allow_diag: bool = False) -> np.ndarray:
    """Check that ``M`` is a finite symmetric positive semi-definite ``(n, n)`` matrix."""
    M = as_array(name, M, ndim=(1, 2) if allow_diag else 2)
    if M.ndim == 1:
        M = np.diag(M)
    if M.shape[0] != M.shape[1] or (n is not None and M.shape[0] != n):
        want = f"({n}, {n})" if n is not None else "square"
        extra = f" or ({n},) for a diagonal" if allow_diag and n is not None else ""
        raise ValueError(f"{name} must have shape {want}{extra}, got {M.shape}")
    scale = max(float(np.max(np.abs(M))) if M.size else 0.0, np.finfo(float).tiny)
    asym = float(np.max(np.abs(M - M.T))) if M.size else 0.0
    if asym > 1e-10 * scale:
        raise ValueError(f"{name} must be symmetric, got max |{name} - {name}'| = {asym:.3g}")
    if M.size:
        lam = scipy.linalg.eigvalsh(M)
        if lam[0] < -1e-10 * scale:
            raise ValueError(
                f"{name} must be positive semi-definite, got smallest eigenvalue {lam[0]:.3g}"
            )
    return 0.5 * (M + M.T)


def _check_out(what: str, value: Any, shape: tuple[int, ...], step: int | None = None) -> np.ndarray:
    where = "" if step is None else f" at step {step}"
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must return a numeric array, got {type(value).__name__}") from None
    if a.shape != shape:
        raise ValueError(f"{what} returned shape {a.shape}{where}, expected {shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{what} returned non-finite values{where}")
    return a


def numerical_jacobian(fun: Callable[[np.ndarray], np.ndarray], x: Any, step: float | None = None) -> np.ndarray:
    """Jacobian of ``fun`` at ``x`` by central differences.

    Column ``i`` is ``(fun(x + h_i e_i) - fun(x - h_i e_i)) / (2 h_i)`` with
    ``h_i = step * max(1, |x_i|)``.  The truncation error is ``O(h^2)`` and the round-off
    error ``O(eps / h)``; the default ``step = eps^(1/3) ~ 6e-6`` balances the two, giving
    about 10 correct digits for smooth functions (:cite:`nocedal2006`, sec. 8.1).
    The complex-step method would be exact to round-off but needs a function that accepts
    complex input, which a user-supplied regressor need not.

    Parameters
    ----------
    fun : callable
        ``fun(x) -> array of shape (m,)``.
    x : array_like, shape (n,)
        Point of linearisation.
    step : float, optional
        Relative step (default ``eps^(1/3)``).

    Returns
    -------
    numpy.ndarray, shape (m, n)
        The Jacobian ``d fun / d x``.

    Raises
    ------
    ValueError
        If ``x`` is not a finite vector, ``step`` is not positive, or ``fun`` returns
        non-finite values or inconsistent shapes.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.estimation.kalman import numerical_jacobian
    >>> J = numerical_jacobian(lambda x: np.array([x[0] * x[1], np.sin(x[0])]), [1.0, 2.0])
    >>> np.allclose(J, [[2.0, 1.0], [np.cos(1.0), 0.0]], atol=1e-9)
    True
    """
    x = as_array("x", x, ndim=1)
    step = np.cbrt(np.finfo(float).eps) if step is None else check_positive("step", step)
    f0 = np.asarray(fun(x), dtype=float)
    if f0.ndim != 1:
        raise ValueError(f"fun must return a 1-D array, got shape {f0.shape}")
    J = np.empty((f0.size, x.size))
    for i in range(x.size):
        h = step * max(1.0, abs(x[i]))
        xp, xm = x.copy(), x.copy()
        xp[i] += h
        xm[i] -= h
        J[:, i] = (_check_out("fun", fun(xp), f0.shape) - _check_out("fun", fun(xm), f0.shape)) / (xp[i] - xm[i])
    return J


# ---------------------------------------------------------------------- EKF
class ExtendedKalmanFilter:
    """Discrete extended Kalman filter with Joseph-form covariance update.

    Parameters
    ----------
    f : callable
        Process model ``f(x, u) -> x_next`` (shape ``(nx,)``); ``u`` is whatever was passed
        to :meth:`predict` (``None`` by default).
    h : callable
        Measurement model ``h(x) -> z`` (shape ``(nz,)``).
    F_jac : callable
        ``F_jac(x, u) -> (nx, nx)``, Jacobian of ``f`` with respect to ``x``.
    H_jac : callable
        ``H_jac(x) -> (nz, nx)``, Jacobian of ``h``.
    Q : array_like, shape (nx, nx)
        Process-noise covariance (symmetric positive semi-definite).
    R : array_like, shape (nz, nz)
        Measurement-noise covariance (symmetric positive semi-definite).
    x0 : array_like, shape (nx,)
        Initial state estimate.
    P0 : array_like, shape (nx, nx)
        Initial covariance (symmetric positive semi-definite).
    record_history : bool, default True
        Keep every prior and posterior in :attr:`history` (switch off for Monte Carlo runs).

    Attributes
    ----------
    x : numpy.ndarray, shape (nx,)
        Current state estimate (copy).
    P : numpy.ndarray, shape (nx, nx)
        Current covariance (copy).
    y, S, K : numpy.ndarray
        Innovation, innovation covariance and gain of the last update.
    nis : float
        Normalised innovation squared ``y' S^-1 y`` of the last update.
    F : numpy.ndarray, shape (nx, nx)
        Jacobian of the last prediction (what a Rauch-Tung-Striebel smoother needs,
        :func:`robidlib.estimation.smoother.rts_smoother`); NaN before the first one.
    step : int
        Number of predictions made so far.
    history : dict of numpy.ndarray
        ``"step"`` (m,), ``"stage"`` (m,) of ``"predict"``/``"update"``, ``"x"`` (m, nx),
        ``"P"`` (m, nx, nx); entry 0 is the initial state (stage ``"init"``).

    Raises
    ------
    TypeError
        If a model argument is not callable.
    ValueError
        If ``Q``, ``R`` or ``P0`` is not a symmetric positive semi-definite matrix of the
        right size, or ``x0`` is not a finite vector.

    Examples
    --------
    A constant-velocity target observed in position:

    >>> import numpy as np
    >>> from robidlib.estimation.kalman import ExtendedKalmanFilter
    >>> F = np.array([[1.0, 0.1], [0.0, 1.0]]); H = np.array([[1.0, 0.0]])
    >>> kf = ExtendedKalmanFilter(lambda x, u: F @ x, lambda x: H @ x, lambda x, u: F,
    ...                           lambda x: H, Q=1e-6 * np.eye(2), R=[[1e-4]], x0=[0.0, 0.0],
    ...                           P0=np.eye(2))
    >>> for k in range(1, 50):
    ...     kf.predict()
    ...     kf.update([0.2 * k * 0.1])       # true velocity 0.2
    >>> bool(abs(kf.x[1] - 0.2) < 1e-3)
    True
    """

    def __init__(
        self,
        f: Callable,
        h: Callable,
        F_jac: Callable,
        H_jac: Callable,
        Q: Any,
        R: Any,
        x0: Any,
        P0: Any,
        *,
        record_history: bool = True,
    ) -> None:
        for name, fun in (("f", f), ("h", h), ("F_jac", F_jac), ("H_jac", H_jac)):
            if not callable(fun):
                raise TypeError(f"{name} must be callable, got {type(fun).__name__}")
        self.f, self.h, self.F_jac, self.H_jac = f, h, F_jac, H_jac
        x0 = as_array("x0", x0, ndim=1)
        if x0.size == 0:
            raise ValueError("x0 must have at least one entry, got shape (0,)")
        nx = x0.size
        self.Q = _check_cov("Q", Q, nx)
        self.R = _check_cov("R", R, None)
        self.nx, self.nz = nx, self.R.shape[0]
        self._I = np.eye(nx)
        self.record_history = bool(record_history)
        self.y = np.zeros(self.nz)
        self.S = np.zeros((self.nz, self.nz))
        self.K = np.zeros((nx, self.nz))
        self.nis = float("nan")
        self.F = np.full((nx, nx), np.nan)
        self.reset(x0, P0)

    # ------------------------------------------------------------------ state
    def reset(self, x0: Any, P0: Any) -> None:
        """Restart the filter from ``x0``, ``P0`` (clears the history and the step count).

        Raises
        ------
        ValueError
            If ``x0`` or ``P0`` has the wrong shape, is not finite, or ``P0`` is not
            symmetric positive semi-definite.
        """
        self._x = as_array("x0", x0, shape=(self.nx,)).copy()
        self._P = _check_cov("P0", P0, self.nx)
        self.step = 0
        self._hist: list[tuple[int, str, np.ndarray, np.ndarray]] = []
        self._record("init")

    @property
    def x(self) -> np.ndarray:
        """Current state estimate (copy)."""
        return self._x.copy()

    @property
    def P(self) -> np.ndarray:
        """Current covariance (copy)."""
        return self._P.copy()

    @property
    def history(self) -> dict[str, np.ndarray]:
        """Every recorded state and covariance (see the class docstring)."""
        h = self._hist
        return {
            "step": np.array([r[0] for r in h], dtype=int),
            "stage": np.array([r[1] for r in h]),
            "x": np.array([r[2] for r in h]).reshape(len(h), self.nx),
            "P": np.array([r[3] for r in h]).reshape(len(h), self.nx, self.nx),
        }

    def _record(self, stage: str) -> None:
        if self.record_history:
            self._hist.append((self.step, stage, self._x.copy(), self._P.copy()))

    def _set_P(self, P: np.ndarray, stage: str) -> None:
        P = 0.5 * (P + P.T)
        if not np.all(np.isfinite(P)):
            raise ValueError(f"the covariance P became non-finite at step {self.step} ({stage})")
        lam = np.linalg.eigvalsh(P)
        scale = max(float(np.max(np.abs(lam))), np.finfo(float).tiny)
        if lam[0] < -1e-9 * scale:
            raise ValueError(
                f"the covariance P lost positive semi-definiteness at step {self.step} ({stage}): "
                f"smallest eigenvalue {lam[0]:.3g} (largest {lam[-1]:.3g}); the filter is numerically "
                "unhealthy - rescale the states, increase Q or R, or reduce P0"
            )
        self._P = P

    # ------------------------------------------------------------------ filter
    def predict(self, u: Any = None) -> None:
        """Propagate the estimate: ``x <- f(x, u)``, ``P <- F P F' + Q``.

        Parameters
        ----------
        u : optional
            Input passed unchanged to ``f`` and ``F_jac`` (e.g. the torque held over the step).

        Raises
        ------
        ValueError
            If ``f`` / ``F_jac`` return wrong shapes or non-finite values (or fail with a
            ``ValueError`` / ``LinAlgError``), or ``P`` loses positive semi-definiteness;
            the message gives the step number.
        """
        self.step += 1
        k = self.step
        try:
            F = _check_out("F_jac(x, u)", self.F_jac(self._x, u), (self.nx, self.nx), k)
            x_new = _check_out("f(x, u)", self.f(self._x, u), (self.nx,), k)
        except np.linalg.LinAlgError as exc:
            raise ValueError(f"the process model failed at step {k}: {exc}") from exc
        self._x = x_new
        self.F = F
        self._set_P(F @ self._P @ F.T + self.Q, "predict")
        self._record("predict")

    def update(self, z: Any) -> None:
        """Correct the estimate with the measurement ``z`` (Joseph-form covariance).

        Parameters
        ----------
        z : array_like, shape (nz,)
            Measurement.

        Raises
        ------
        ValueError
            If ``z`` has the wrong shape or is not finite, ``h`` / ``H_jac`` return wrong
            shapes, the innovation covariance ``S`` is not positive definite, or ``P``
            loses positive semi-definiteness; the message gives the step number.
        """
        k = self.step
        z = as_array("z", z, shape=(self.nz,))
        H = _check_out("H_jac(x)", self.H_jac(self._x), (self.nz, self.nx), k)
        y = z - _check_out("h(x)", self.h(self._x), (self.nz,), k)
        PHt = self._P @ H.T
        S = H @ PHt + self.R
        S = 0.5 * (S + S.T)
        try:
            c = _cholesky(S)
        except np.linalg.LinAlgError:
            raise ValueError(
                f"the innovation covariance S = H P H' + R is not positive definite at step {k}; "
                "make R positive definite or check the measurement model"
            ) from None
        K = _cho_solve(c, PHt.T).T
        self._x = self._x + K @ y
        IKH = self._I - K @ H
        self._set_P(IKH @ self._P @ IKH.T + K @ self.R @ K.T, "update")
        self.y, self.S, self.K = y, S, K
        self.nis = float(y @ _cho_solve(c, y))
        self._record("update")

    def __repr__(self) -> str:
        return f"ExtendedKalmanFilter(nx={self.nx}, nz={self.nz}, step={self.step})"
