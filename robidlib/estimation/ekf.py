"""Extended Kalman filter and parameter identification with an augmented state.

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
filter stops loudly instead of producing meaningless bands.

:class:`AugmentedStateIdentifier` identifies the base parameters ``beta`` of a robot by
appending them to the state, ``x = [q, qd, beta]`` with ``d(beta)/dt = 0``
(:cite:`gautier2001`).  The process model is the forward dynamics of the
*base-parameter* model built from the base regressor ``Yb(q, qd, qdd)`` (the very
model least squares identifies, ``Yb(q, qd, qdd) beta = tau``):

* column ``j`` of the mass matrix: ``M e_j = Yb(q, 0, e_j) beta - Yb(q, 0, 0) beta``;
* bias torques (Coriolis, centrifugal, gravity, friction): ``h = Yb(q, qd, 0) beta``;
* accelerations: ``qdd = M^-1 (tau - h)`` from an LU solve (never an explicit inverse);

discretised with one explicit Euler step (as in the source paper, ``dt = 0.02 s``) or
one classical Runge-Kutta (RK4) step per sample.  The torque is held constant over the
step (exact for a digital controller), or, for a smooth torque sampled at the data rate,
given at the start, middle and end of the step (``run(..., torque="cubic")`` with
:func:`torque_midpoints`).  ``H`` is an exact selection matrix.  The Jacobian ``F`` of the
discrete map is

* analytic when the model provides exact derivatives of its regressor (a
  :class:`SymbolicModel`, or :func:`robot_base_model` with ``symbolic=True``, which derives
  the base regressor of a serial robot with sympy, :func:`symbolic_regressor`): the
  implicit-function theorem applied to ``Yb(q, qd, qdd) beta = tau`` gives
  ``d(dx/dt)/dx``, chained through the Euler or RK4 stages;
* otherwise central differences (:func:`numerical_jacobian`; the regressor is any user
  function, not necessarily complex-safe, so the complex-step method is not used).

The tests check the two against each other.  :func:`nees` and :func:`nees_bounds` test a
filter's consistency over a Monte Carlo experiment.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
import scipy.linalg
from scipy.linalg.lapack import dgesv, dpotrf, dpotrs

from .._validate import as_array, check_choice, check_positive

__all__ = [
    "ExtendedKalmanFilter",
    "AugmentedStateIdentifier",
    "numerical_jacobian",
    "symbolic_regressor",
    "SymbolicModel",
    "RobotBaseModel",
    "SymbolicRobotBaseModel",
    "robot_base_model",
    "torque_midpoints",
    "nees",
    "nees_bounds",
]


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
    >>> from robidlib.estimation.ekf import numerical_jacobian
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
    >>> from robidlib.estimation.ekf import ExtendedKalmanFilter
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


# ---------------------------------------------------------------------- augmented state
_MEASURES = ("q", "qd")


class AugmentedStateIdentifier:
    """Identify base parameters with an EKF on the augmented state ``x = [q, qd, beta]``.

    Parameters
    ----------
    model : SerialRobot, callable or object
        A :class:`~robidlib.robot.SerialRobot` (wired with ``base`` by
        :func:`robot_base_model`; pass ``robot_base_model(...)`` yourself for friction or a
        symbolic model), a callable base regressor ``Yb(q, qd, qdd) -> (n, p)`` for one
        sample (then ``n`` and ``p`` are required), or an object with a method
        ``regressor(q, qd, qdd) -> (n, p)`` (one sample: ``q``, ``qd``, ``qdd`` of shape
        ``(n,)``; a ``(1, n, p)`` result is also accepted) whose integer attributes
        ``n_joints`` (or ``n``) and ``n_params`` give the sizes when ``n`` / ``p`` are not
        passed; its ``param_names`` are used as default names if their number is ``p``.
        If the object also has ``regressor_derivatives(q, qd, qdd) -> (dY/dq, dY/dqd)``
        (each ``(n, p, n)``, e.g. :class:`SymbolicModel`), the Jacobian is analytic.
    dt : float
        Time step (s) of the discretisation, equal to the sampling period of the data.
    x0 : array_like, shape (2n + p,)
        Initial estimate ``[q0, qd0, beta0]``.
    Q : array_like, shape (2n + p, 2n + p) or (2n + p,)
        Process-noise covariance (a 1-D array is its diagonal).  A zero parameter block
        means the parameters are modelled as exact constants.
    R : array_like, shape (m, m) or (m,)
        Measurement-noise covariance, ``m = n * len(measure)``.
    P0 : array_like, shape (2n + p, 2n + p) or (2n + p,)
        Initial covariance.
    n, p : int, optional
        Number of joints and of base parameters (required with a callable ``model``; must
        agree with ``model.n_joints`` / ``model.n_params`` otherwise).
    base : BaseParameters, optional
        Only with a SerialRobot ``model``: its base parameters (default
        ``base_parameters(robot)``).
    integrator : {"euler", "rk4"}, default "euler"
        One explicit Euler step or one RK4 step per sample.
    measure : sequence of {"q", "qd"}, default ("q",)
        Measured quantities, stacked in this order (a single string is one name).
    jacobian : {"auto", "analytic", "numerical"}, default "auto"
        How ``F`` is computed: ``"analytic"`` (:meth:`analytic_transition_jacobian`, needs
        ``regressor_derivatives``), ``"numerical"`` (central differences,
        :func:`numerical_jacobian`); ``"auto"`` picks analytic when it is available.
    F_jac : callable, optional
        Your own Jacobian ``F_jac(x, u) -> (nx, nx)`` of the *discrete* map
        :meth:`transition` (then ``jacobian`` must stay ``"auto"``); ``u`` is the torque as
        given to :meth:`predict`, shape ``(n,)`` or ``(3, n)``.
    fd_step : float, optional
        Relative step of the central differences (default ``eps^(1/3)``).
    names : sequence of str, optional
        Parameter names (default ``model.param_names`` if it has ``p`` entries, else
        ``b1, b2, ...``).
    record_history : bool, default True
        Passed to the :class:`ExtendedKalmanFilter` (switch off for Monte Carlo runs;
        :meth:`run` returns its own arrays either way).

    Attributes
    ----------
    filter : ExtendedKalmanFilter
        The underlying filter.
    n, p, nx, m : int
        Joints, parameters, state size ``2n + p`` and measurement size.
    jacobian : {"analytic", "numerical", "given"}
        The Jacobian method in use.

    Raises
    ------
    ValueError
        If ``dt <= 0``, an integrator, measurement or Jacobian name is unknown, sizes
        disagree, ``Q``/``R``/``P0`` are not symmetric positive semi-definite of the right
        size, ``base`` is given without a robot, or an analytic Jacobian is asked of a
        model without derivatives.
    TypeError
        If ``model`` is neither a robot, a callable nor an object with ``regressor``.

    Examples
    --------
    A pendulum ``a qdd + b sin q + c qd = tau`` with ``beta = [a, b, c]``:

    >>> import numpy as np
    >>> from robidlib.estimation.ekf import AugmentedStateIdentifier
    >>> Yb = lambda q, qd, qdd: np.array([[qdd[0], np.sin(q[0]), qd[0]]])
    >>> ident = AugmentedStateIdentifier(Yb, 0.02, n=1, p=3, x0=[0.1, 0.0, 1.0, 5.0, 0.1],
    ...                                  Q=np.zeros(5), R=[1e-6], P0=[0, 0, 1, 1, 1])
    >>> ident.forward_dynamics([0.0], [0.0], [2.0], [0.5, 1.0, 0.1])   # qdd = tau / a
    array([4.])
    >>> ident.mass_matrix([0.3], [0.5, 1.0, 0.1])
    array([[0.5]])
    """

    def __init__(
        self,
        model: Any,
        dt: float,
        *,
        x0: Any,
        Q: Any,
        R: Any,
        P0: Any,
        n: int | None = None,
        p: int | None = None,
        base: Any = None,
        integrator: str = "euler",
        measure: Sequence[str] | str = ("q",),
        jacobian: str = "auto",
        F_jac: Callable | None = None,
        fd_step: float | None = None,
        names: Sequence[str] | None = None,
        record_history: bool = True,
    ) -> None:
        if _is_robot(model):
            model = robot_base_model(model, base)
        elif base is not None:
            raise ValueError(
                "base is only used with a SerialRobot model; for a robot with friction or a symbolic "
                "model pass robot_base_model(robot, base, ...) as the model"
            )
        if hasattr(model, "regressor") and callable(getattr(model, "regressor")):
            fun = model.regressor
            for label, given, attrs in (("n", n, ("n_joints", "n")), ("p", p, ("n_params",))):
                attr = next((a for a in attrs if isinstance(getattr(model, a, None), (int, np.integer))), None)
                if attr is None:
                    if given is None:
                        raise ValueError(
                            f"give {label}: model has no integer attribute {' or '.join(attrs)}"
                        )
                    continue
                value = int(getattr(model, attr))
                if given is not None and int(given) != value:
                    raise ValueError(f"{label}={given} disagrees with model.{attr}={value}")
                if label == "n":
                    n = value
                else:
                    p = value
            if names is None:
                model_names = getattr(model, "param_names", None)
                if model_names is not None and p is not None and len(tuple(model_names)) == int(p):
                    names = tuple(model_names)
        elif callable(model):
            fun = model
            if n is None or p is None:
                raise ValueError("with a callable regressor model, give n (joints) and p (parameters)")
        else:
            raise TypeError(
                "model must be a callable regressor(q, qd, qdd) -> (n, p) or an object with a "
                f"regressor method (and n_joints or n / n_params attributes), got {type(model).__name__}"
            )
        for label, v in (("n", n), ("p", p)):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{label} must be a positive integer, got {v!r}")
        self._Yb = fun
        self.n, self.p = int(n), int(p)
        self.nx = 2 * self.n + self.p
        self.dt = check_positive("dt", dt)
        self.integrator = check_choice("integrator", integrator, ("euler", "rk4"))
        if isinstance(measure, str):
            measure = (measure,)
        measure = tuple(measure)
        if not measure:
            raise ValueError("measure must name at least one quantity: ('q',), ('qd',) or ('q', 'qd')")
        for name in measure:
            check_choice("measurement", name, _MEASURES)
        if len(set(measure)) != len(measure):
            raise ValueError(f"measure must not repeat a name, got {measure}")
        self.measure = measure
        self.m = self.n * len(measure)
        if F_jac is not None and not callable(F_jac):
            raise TypeError(f"F_jac must be callable or None, got {type(F_jac).__name__}")
        self._F_analytic = F_jac
        check_choice("jacobian", jacobian, ("auto", "analytic", "numerical"))
        derivs = getattr(model, "regressor_derivatives", None)
        self._dYb = derivs if callable(derivs) else None
        terms = getattr(model, "affine_terms", None)          # optional fast path (SymbolicModel)
        usable = callable(terms) and self._dYb is not None and bool(getattr(model, "has_affine_terms", True))
        self._terms = terms if usable else None
        if F_jac is not None:
            if jacobian != "auto":
                raise ValueError(f"give either F_jac or jacobian={jacobian!r}, not both")
            self.jacobian = "given"
        elif jacobian == "analytic" and self._dYb is None:
            raise ValueError(
                "jacobian='analytic' needs a model with regressor_derivatives(q, qd, qdd) (a SymbolicModel "
                f"or robot_base_model(..., symbolic=True)); got {type(model).__name__}"
            )
        elif jacobian == "auto":
            self.jacobian = "analytic" if self._dYb is not None else "numerical"
        else:
            self.jacobian = jacobian
        self._cache: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._Inx = np.eye(self.nx)
        self.fd_step = None if fd_step is None else check_positive("fd_step", fd_step)
        if names is None:
            names = tuple(f"b{i + 1}" for i in range(self.p))
        names = tuple(str(s) for s in names)
        if len(names) != self.p:
            raise ValueError(f"names must have {self.p} entries (one per parameter), got {len(names)}")
        self.names = names
        rows = []
        for name in measure:
            off = 0 if name == "q" else self.n
            rows.append(np.eye(self.n, self.nx, k=off))
        self._H = np.vstack(rows)
        x0 = as_array("x0", x0, shape=(self.nx,))
        Q = _check_cov("Q", Q, self.nx, allow_diag=True)
        R = _check_cov("R", R, self.m, allow_diag=True)
        P0 = _check_cov("P0", P0, self.nx, allow_diag=True)
        self.filter = ExtendedKalmanFilter(
            self.transition, self.measurement, self.transition_jacobian, self.measurement_jacobian,
            Q, R, x0, P0, record_history=record_history,
        )

    # ------------------------------------------------------------------ model
    def regressor(self, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray) -> np.ndarray:
        """Base regressor of one sample, checked to be an ``(n, p)`` array.

        Finiteness is checked once on the accelerations it produces (see :meth:`forward_dynamics`).
        """
        Y = np.asarray(self._Yb(q, qd, qdd), dtype=float)
        if Y.shape == (1, self.n, self.p):
            Y = Y[0]
        if Y.shape != (self.n, self.p):
            raise ValueError(f"the regressor returned shape {Y.shape}, expected ({self.n}, {self.p})")
        return Y

    def mass_matrix(self, q: Any, beta: Any) -> np.ndarray:
        """Mass matrix ``M(q)`` of the base-parameter model: ``M e_j = Yb(q,0,e_j) beta - Yb(q,0,0) beta``.

        Parameters
        ----------
        q : array_like, shape (n,)
            Joint positions.
        beta : array_like, shape (p,)
            Base parameters.

        Returns
        -------
        numpy.ndarray, shape (n, n)
            Symmetric mass matrix (symmetrised to remove round-off).

        Raises
        ------
        ValueError
            On wrong shapes or non-finite input.
        """
        q = as_array("q", q, shape=(self.n,))
        beta = as_array("beta", beta, shape=(self.p,))
        return self._mass(q, beta)

    def _mass(self, q: np.ndarray, beta: np.ndarray) -> np.ndarray:
        return self._mass_columns(q, beta)[0]

    def _mass_columns(self, q: np.ndarray, beta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``M(q)`` and the regressor slopes ``D[j] = Yb(q, 0, e_j) - Yb(q, 0, 0)``, shape (n, n, p)."""
        zero = np.zeros(self.n)
        Y0 = self.regressor(q, zero, zero)
        D = np.empty((self.n, self.n, self.p))
        for j in range(self.n):
            e = np.zeros(self.n)
            e[j] = 1.0
            D[j] = self.regressor(q, zero, e) - Y0
        M = (D @ beta).T                                      # column j is D[j] beta
        return 0.5 * (M + M.T), D

    def bias(self, q: Any, qd: Any, beta: Any) -> np.ndarray:
        """Bias torques ``h(q, qd) = Yb(q, qd, 0) beta`` (Coriolis, centrifugal, gravity, friction).

        Raises
        ------
        ValueError
            On wrong shapes or non-finite input.
        """
        q = as_array("q", q, shape=(self.n,))
        qd = as_array("qd", qd, shape=(self.n,))
        beta = as_array("beta", beta, shape=(self.p,))
        return self.regressor(q, qd, np.zeros(self.n)) @ beta

    def forward_dynamics(self, q: Any, qd: Any, tau: Any, beta: Any) -> np.ndarray:
        """Joint accelerations ``qdd = M(q)^-1 (tau - h(q, qd))`` of the base-parameter model.

        The system is solved by LU (LAPACK ``gesv``), not Cholesky: ``M`` is symmetric
        positive definite for physical parameters, but an intermediate filter estimate may
        make it indefinite, and the filter should be able to move through such a region.
        For the small ``n`` of a robot arm LU is also the cheaper call.

        Raises
        ------
        ValueError
            On wrong shapes, non-finite input or a singular mass matrix.
        """
        q = as_array("q", q, shape=(self.n,))
        qd = as_array("qd", qd, shape=(self.n,))
        tau = as_array("tau", tau, shape=(self.n,))
        beta = as_array("beta", beta, shape=(self.p,))
        return self._qdd(q, qd, tau, beta)

    def _qdd(self, q: np.ndarray, qd: np.ndarray, tau: np.ndarray, beta: np.ndarray) -> np.ndarray:
        M = self._mass(q, beta)
        rhs = tau - self.regressor(q, qd, np.zeros(self.n)) @ beta
        try:
            qdd = _solve(M, rhs)
        except np.linalg.LinAlgError:
            raise ValueError(
                f"the mass matrix M(q) built from the parameter estimate {beta} is singular at q = {q}"
            ) from None
        if not np.isfinite(qdd).all():
            raise ValueError(
                f"the forward dynamics gave non-finite accelerations at q = {q}, qd = {qd} with the "
                f"parameters {beta}: check the regressor and the parameter estimate"
            )
        return qdd

    def dynamics(self, x: Any, u: Any) -> np.ndarray:
        """Continuous-time augmented model ``dx/dt = [qd, qdd(q, qd, u, beta), 0]``."""
        x = as_array("x", x, shape=(self.nx,))
        u = as_array("u", u, shape=(self.n,))
        return self._xdot(x, u)

    def _xdot(self, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        n = self.n
        q, qd, beta = x[:n], x[n:2 * n], x[2 * n:]
        return np.concatenate([qd, self._qdd(q, qd, u, beta), np.zeros(self.p)])

    def transition(self, x: Any, u: Any) -> np.ndarray:
        """Discrete process model: one Euler or RK4 step of length ``dt``.

        Parameters
        ----------
        x : array_like, shape (2n + p,)
            Augmented state ``[q, qd, beta]``.
        u : array_like, shape (n,) or (3, n)
            Joint torques: held constant over the step (``(n,)``), or at the start, the
            middle and the end of the step (``(3, n)``; the RK4 stages use them in the
            order start, middle, middle, end; Euler uses the start).

        Returns
        -------
        numpy.ndarray, shape (2n + p,)
            State after ``dt`` (``beta`` unchanged).

        Raises
        ------
        ValueError
            On wrong shapes, non-finite input, a missing ``u`` or a singular mass matrix.
        """
        x, u = self._check_xu(x, u)
        c = self._cache
        if c is not None and np.array_equal(c[0], x) and np.array_equal(c[1], u):
            return c[2].copy()                       # computed with the analytic Jacobian
        return self._step(x, u)

    def _check_u(self, u: Any) -> np.ndarray:
        """Torque over a step as a (3, n) array [start, middle, end]."""
        if u is None:
            raise ValueError(
                f"the torque u (shape ({self.n},) or (3, {self.n})) is required to predict the robot state"
            )
        u = as_array("u", u, ndim=(1, 2))
        if u.shape == (self.n,):
            return np.broadcast_to(u, (3, self.n))
        if u.shape != (3, self.n):
            raise ValueError(
                f"u must have shape ({self.n},) (held over the step) or (3, {self.n}) "
                f"(start, middle, end), got {u.shape}"
            )
        return u

    def _check_xu(self, x: Any, u: Any) -> tuple[np.ndarray, np.ndarray]:
        return as_array("x", x, shape=(self.nx,)), self._check_u(u)

    def _step(self, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        dt = self.dt
        if self.integrator == "euler":
            return x + dt * self._xdot(x, u[0])
        k1 = self._xdot(x, u[0])
        k2 = self._xdot(x + 0.5 * dt * k1, u[1])
        k3 = self._xdot(x + 0.5 * dt * k2, u[1])
        k4 = self._xdot(x + dt * k3, u[2])
        return x + (dt / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4)

    def numerical_transition_jacobian(self, x: Any, u: Any) -> np.ndarray:
        """Central-difference Jacobian of :meth:`transition` with respect to ``x``."""
        x, u = self._check_xu(x, u)
        return numerical_jacobian(lambda xx: self._step(xx, u), x, self.fd_step)

    def dynamics_jacobian(self, x: Any, u: Any) -> np.ndarray:
        """Analytic Jacobian ``A = d(dx/dt)/dx`` of the continuous augmented model.

        With ``qdd`` defined implicitly by ``Yb(q, qd, qdd) beta = u`` and
        ``M = d(Yb beta)/d(qdd)`` the mass matrix, the implicit-function theorem gives::

            A = [[0,     I,      0     ],
                 [-M^-1 G_q, -M^-1 G_qd, -M^-1 Yb(q, qd, qdd)],
                 [0,     0,      0     ]],   G_q = d(Yb beta)/dq,  G_qd = d(Yb beta)/dqd

        evaluated at the current ``qdd``, with ``dYb/dq`` and ``dYb/dqd`` from the model's
        ``regressor_derivatives`` (exact for a :class:`SymbolicModel`).

        Parameters
        ----------
        x : array_like, shape (2n + p,)
        u : array_like, shape (n,)

        Returns
        -------
        numpy.ndarray, shape (2n + p, 2n + p)

        Raises
        ------
        ValueError
            If the model has no ``regressor_derivatives``, on wrong shapes, NaN/inf or a
            singular mass matrix.
        """
        if self._dYb is None:
            raise ValueError(
                "the model has no regressor_derivatives: use a SymbolicModel or robot_base_model(..., symbolic=True)"
            )
        x = as_array("x", x, shape=(self.nx,))
        u = as_array("u", u, shape=(self.n,))
        return self._xdot_and_A(x, u)[1]

    def _xdot_and_A(self, x: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self._terms is not None:
            return self._xdot_and_A_terms(x, u)
        n, p = self.n, self.p
        q, qd, beta = x[:n], x[n:2 * n], x[2 * n:]
        M, D = self._mass_columns(q, beta)
        Yh = self.regressor(q, qd, np.zeros(n))
        try:
            qdd = _solve(M, u - Yh @ beta)
        except np.linalg.LinAlgError:
            raise ValueError(
                f"the mass matrix M(q) built from the parameter estimate {beta} is singular at q = {q}"
            ) from None
        Y = Yh + np.tensordot(qdd, D, axes=1)                 # Yb(q, qd, qdd): affine in qdd
        dq, dqd = self._dYb(q, qd, qdd)
        dq, dqd = np.asarray(dq, dtype=float), np.asarray(dqd, dtype=float)
        if dq.shape != (n, p, n) or dqd.shape != (n, p, n):
            raise ValueError(
                f"regressor_derivatives returned shapes {dq.shape}, {dqd.shape}, expected ({n}, {p}, {n}) each"
            )
        G = np.hstack([np.einsum("jki,k->ji", dq, beta), np.einsum("jki,k->ji", dqd, beta), Y])
        A = np.zeros((self.nx, self.nx))
        A[:n, n:2 * n] = np.eye(n)
        A[n:2 * n] = -_solve(M, G)
        if not (np.isfinite(qdd).all() and np.isfinite(A).all()):
            raise ValueError(
                f"the forward dynamics gave non-finite values at q = {q}, qd = {qd} with the parameters {beta}"
            )
        return np.concatenate([qd, qdd, np.zeros(p)]), A

    def _xdot_and_A_terms(self, x: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The same as :meth:`_xdot_and_A` from one call of the model's ``affine_terms``."""
        n, p = self.n, self.p
        q, qd, beta = x[:n], x[n:2 * n], x[2 * n:]
        Yh, D, dYh_q, dD_q, dYh_qd = self._terms(q, qd)
        M = (D @ beta).T                                       # column j: D[j] beta
        try:
            qdd = _solve(M, u - Yh @ beta)
        except np.linalg.LinAlgError:
            raise ValueError(
                f"the mass matrix M(q) built from the parameter estimate {beta} is singular at q = {q}"
            ) from None
        Y = Yh + (qdd @ D.reshape(n, n * p)).reshape(n, p)
        Gq = dYh_q @ beta + (qdd[None, :, None] * (dD_q @ beta)).sum(axis=1)    # [i, row]
        G = np.empty((n, 2 * n + p))
        G[:, :n], G[:, n:2 * n], G[:, 2 * n:] = Gq.T, (dYh_qd @ beta).T, Y
        A = np.zeros((self.nx, self.nx))
        A[:n, n:2 * n] = np.eye(n)
        A[n:2 * n] = -_solve(M, G)
        if not np.isfinite(qdd.sum() + A[n:2 * n].sum()):
            raise ValueError(
                f"the forward dynamics gave non-finite values at q = {q}, qd = {qd} with the parameters {beta}"
            )
        xdot = np.zeros(self.nx)
        xdot[:n], xdot[n:2 * n] = qd, qdd
        return xdot, A

    def analytic_transition_jacobian(self, x: Any, u: Any) -> np.ndarray:
        """Exact Jacobian of :meth:`transition` from :meth:`dynamics_jacobian`.

        Euler: ``F = I + dt A(x)`` (the paper's ``F_{k-1}``).  RK4: the chain rule through
        the four stages, ``D1 = A(x)``, ``D2 = A(x2) (I + dt/2 D1)``,
        ``D3 = A(x3) (I + dt/2 D2)``, ``D4 = A(x4) (I + dt D3)``,
        ``F = I + dt/6 (D1 + 2 D2 + 2 D3 + D4)``.

        Raises
        ------
        ValueError
            As :meth:`dynamics_jacobian`.
        """
        if self._dYb is None:
            raise ValueError(
                "the model has no regressor_derivatives: use a SymbolicModel or robot_base_model(..., symbolic=True)"
            )
        x, u = self._check_xu(x, u)
        return self._step_and_F(x, u)[1]

    def _step_and_F(self, x: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        dt, I = self.dt, self._Inx
        k1, D1 = self._xdot_and_A(x, u[0])
        if self.integrator == "euler":
            return x + dt * k1, I + dt * D1
        k2, A2 = self._xdot_and_A(x + 0.5 * dt * k1, u[1])
        D2 = A2 @ (I + 0.5 * dt * D1)
        k3, A3 = self._xdot_and_A(x + 0.5 * dt * k2, u[1])
        D3 = A3 @ (I + 0.5 * dt * D2)
        k4, A4 = self._xdot_and_A(x + dt * k3, u[2])
        D4 = A4 @ (I + dt * D3)
        return (x + (dt / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4),
                I + (dt / 6.0) * (D1 + 2.0 * D2 + 2.0 * D3 + D4))

    def transition_jacobian(self, x: Any, u: Any) -> np.ndarray:
        """Jacobian ``F`` of :meth:`transition`, by the method in :attr:`jacobian`.

        ``"given"``: the ``F_jac`` passed in; ``"analytic"``: :meth:`analytic_transition_jacobian`
        (the new state is kept, so the following :meth:`transition` at the same ``x, u``
        costs nothing); ``"numerical"``: :meth:`numerical_transition_jacobian`.
        """
        if self._F_analytic is not None:
            return _check_out("F_jac(x, u)", self._F_analytic(x, u), (self.nx, self.nx))
        if self.jacobian == "analytic":
            x, u = self._check_xu(x, u)
            x_next, F = self._step_and_F(x, u)
            self._cache = (x.copy(), u.copy(), x_next)
            return F
        return self.numerical_transition_jacobian(x, u)

    def measurement(self, x: Any) -> np.ndarray:
        """Measurement model ``z = H x`` (the measured ``q`` and/or ``qd``)."""
        return self._H @ as_array("x", x, shape=(self.nx,))

    def measurement_jacobian(self, x: Any = None) -> np.ndarray:
        """Constant selection matrix ``H`` (shape ``(m, 2n + p)``)."""
        return self._H.copy()

    # ------------------------------------------------------------------ filter
    def predict(self, u: Any) -> None:
        """EKF prediction over one step ``dt`` with the torque ``u`` (see :meth:`transition`)."""
        self._check_u(u)
        self.filter.predict(np.asarray(u, dtype=float))

    def update(self, z: Any) -> None:
        """EKF correction with the measurement ``z`` (shape ``(m,)``, order of ``measure``)."""
        self.filter.update(z)

    @property
    def x(self) -> np.ndarray:
        """Current augmented state estimate ``[q, qd, beta]``."""
        return self.filter.x

    @property
    def P(self) -> np.ndarray:
        """Current covariance of the augmented state."""
        return self.filter.P

    @property
    def params(self) -> np.ndarray:
        """Current parameter estimate ``beta`` (shape ``(p,)``)."""
        return self.filter.x[2 * self.n:]

    @property
    def std(self) -> np.ndarray:
        """Standard deviations of the parameters, ``sqrt(diag(P))`` of the parameter block."""
        return np.sqrt(np.clip(np.diag(self.filter.P)[2 * self.n:], 0.0, None))

    def run(self, t: Any, tau: Any, z: Any, *, torque: str = "hold",
            keep_cov: bool = False) -> dict[str, np.ndarray]:
        """Filter a whole data set: update with ``z[0]``, then predict/update for each sample.

        The filter continues from its current state (call ``filter.reset`` to restart).

        Parameters
        ----------
        t : array_like, shape (N,)
            Sample times, uniformly spaced by ``dt``.
        tau : array_like, shape (N, n)
            Joint torques sampled at ``t``.
        z : array_like, shape (N, m)
            Measurements in the order of ``measure`` (e.g. ``[q, qd]`` per row).
        torque : {"hold", "cubic"}, default "hold"
            How the torque varies between ``t[k-1]`` and ``t[k]``.  ``"hold"``: ``tau[k-1]``
            is held (zero-order hold: exact for a digital controller whose output is
            constant over the period).  ``"cubic"``: the torque is a smooth signal sampled
            at ``t``; the RK4 stages get the samples at both ends and the middle value of
            the cubic through four neighbouring samples,
            ``(-tau[k-2] + 9 tau[k-1] + 9 tau[k] - tau[k+1]) / 16`` (a quadratic at the two
            ends of the record).  Holding a smooth torque costs an ``O(dt^3)`` error per step
            in the velocities; the cubic one ``O(dt^5)``, the order of RK4 itself.
        keep_cov : bool, default False
            Also return every posterior covariance (key ``"P"``), e.g. for the NEES.

        Returns
        -------
        dict of numpy.ndarray
            ``"t"`` (N,), posterior ``"x"`` (N, nx) and ``"P_diag"`` (N, nx), and the views
            ``"q"``, ``"qd"`` (N, n), ``"params"``, ``"std"`` (N, p) for plotting; with
            ``keep_cov`` also ``"P"`` (N, nx, nx).

        Raises
        ------
        ValueError
            On bad shapes, non-finite data, a time step different from ``dt``, or a
            numerically failing filter (with the step number).
        """
        t = as_array("t", t, ndim=1)
        N = t.size
        if N == 0:
            raise ValueError("t must hold at least one sample")
        tau = as_array("tau", tau, shape=(N, self.n))
        z = as_array("z", z, shape=(N, self.m))
        if N > 1 and not np.allclose(np.diff(t), self.dt, rtol=1e-6, atol=0.0):
            raise ValueError(
                f"t must be uniformly spaced by dt = {self.dt}; got steps between "
                f"{np.min(np.diff(t)):.6g} and {np.max(np.diff(t)):.6g}"
            )
        check_choice("torque", torque, ("hold", "cubic"))
        if torque == "cubic" and N > 1:
            U = np.stack([tau[:-1], torque_midpoints(tau), tau[1:]], axis=1)   # (N-1, 3, n)
        else:
            U = tau[:-1]                                                        # (N-1, n), held
        X = np.empty((N, self.nx))
        Pd = np.empty((N, self.nx))
        Ps = np.empty((N, self.nx, self.nx)) if keep_cov else None
        for k in range(N):
            if k > 0:
                self.filter.predict(U[k - 1])
            self.filter.update(z[k])
            X[k] = self.filter._x
            Pd[k] = np.diag(self.filter._P)
            if Ps is not None:
                Ps[k] = self.filter._P
        n = self.n
        std = np.sqrt(np.clip(Pd[:, 2 * n:], 0.0, None))
        out = {
            "t": t.copy(), "x": X, "P_diag": Pd, "q": X[:, :n], "qd": X[:, n:2 * n],
            "params": X[:, 2 * n:], "std": std,
        }
        if Ps is not None:
            out["P"] = Ps
        return out

    def __repr__(self) -> str:
        return (
            f"AugmentedStateIdentifier(n={self.n}, p={self.p}, dt={self.dt:g}, "
            f"integrator={self.integrator!r}, measure={self.measure})"
        )


# ---------------------------------------------------------------------- helpers for experiments
def torque_midpoints(tau: Any) -> np.ndarray:
    """Values half-way between consecutive samples of a smooth signal (cubic interpolation).

    Inside the record, ``(-x[k-1] + 9 x[k] + 9 x[k+1] - x[k+2]) / 16`` (the cubic through
    four samples, error ``O(dt^4)``); between the first two and the last two samples the
    quadratic through three, ``(3 x[0] + 6 x[1] - x[2]) / 8`` and its mirror image; with two
    samples, their mean.

    Parameters
    ----------
    tau : array_like, shape (N,) or (N, n)
        Uniformly sampled signal, N >= 2.

    Returns
    -------
    numpy.ndarray, shape (N - 1,) or (N - 1, n)
        The signal at ``t[k] + dt / 2`` for ``k = 0 .. N-2``.

    Raises
    ------
    ValueError
        If ``tau`` has fewer than 2 samples or is not finite.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.estimation.ekf import torque_midpoints
    >>> t = np.arange(6) * 0.1
    >>> bool(np.allclose(torque_midpoints(t**2), (t[:-1] + 0.05) ** 2))        # exact for quadratics
    True
    >>> bool(np.allclose(torque_midpoints(t**3)[1:-1], (t[1:-2] + 0.05) ** 3))  # inside: cubics too
    True
    """
    x = as_array("tau", tau, ndim=(1, 2))
    N = x.shape[0]
    if N < 2:
        raise ValueError(f"tau must have at least 2 samples, got {N}")
    if N == 2:
        return 0.5 * (x[0] + x[1])[None]
    mid = np.empty((N - 1,) + x.shape[1:])
    mid[0] = (3 * x[0] + 6 * x[1] - x[2]) / 8
    mid[-1] = (-x[-3] + 6 * x[-2] + 3 * x[-1]) / 8
    if N > 3:
        mid[1:-1] = (-x[:-3] + 9 * x[1:-2] + 9 * x[2:-1] - x[3:]) / 16
    return mid


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
    >>> from robidlib.estimation.ekf import nees
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
    >>> from robidlib.estimation.ekf import nees_bounds
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


# ---------------------------------------------------------------------- models
def _is_robot(obj: Any) -> bool:
    """True for a :class:`robidlib.robot.SerialRobot` (imported lazily: the core is optional here)."""
    from ..robot import SerialRobot

    return isinstance(obj, SerialRobot)


def _exact(value: float) -> Any:
    """A float as a sympy number, rational when it is one to 1e-12 (0.5 -> 1/2, 6e-17 -> 0)."""
    import sympy as sp

    return sp.nsimplify(float(value), tolerance=1e-12, rational=True)


def symbolic_regressor(robot: Any) -> tuple[Any, tuple, tuple, tuple]:
    """Regressor of the standard parameters of a serial robot, derived symbolically (sympy).

    The Lagrangian of link ``j`` is linear in its standard parameters
    ``pi_j = [m, mx, my, mz, Ixx, Iyy, Izz, Ixy, Ixz, Iyz]`` (inertia about the link
    origin, GUIDE order), with the link-frame angular velocity ``w`` and origin velocity
    ``v``, the base-frame origin ``p`` and rotation ``R``, and the gravity vector ``g``::

        L_j = m (v.v / 2 + g.p) + h.(v x w + R' g) + w' I w / 2,   h = m c = [mx, my, mz]

    (``T = m v.v/2 + v.(w x h) + w' I w/2`` and ``V = -m g.p - g.(R h)``).  Column ``k`` of
    the regressor is Lagrange's operator applied to the coefficient ``L_k`` of ``pi_k``:
    ``Y[:, k] = d/dt dL_k/dqd - dL_k/dq``, so ``Y @ pi`` is the rigid-body torque
    (:cite:`khalil2002`).  ``w`` and ``v`` come from the usual outward recursion, so the
    expressions stay polynomial in sines and cosines of the joint angles.  Geometry and
    gravity enter as exact rationals where they are (``0.5 -> 1/2``).

    Meant for small robots (the 2R arm of the book takes about half a second); the cost
    grows quickly with the number of joints.

    Parameters
    ----------
    robot : SerialRobot
        Only its kinematics (joint origins, axes, types) and gravity are used.

    Returns
    -------
    Y : sympy.Matrix, shape (n, 10 n)
        Columns in the order of ``robot.param_names``.
    q, qd, qdd : tuple of sympy.Symbol
        The symbols ``q1..qn``, ``qd1..qdn``, ``qdd1..qddn``.

    Raises
    ------
    TypeError
        If ``robot`` is not a :class:`~robidlib.robot.SerialRobot`.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.robot import SerialRobot
    >>> from robidlib.estimation.ekf import symbolic_regressor
    >>> pend = SerialRobot.from_dh("R", a=[0.0], alpha=[0.0], d=[0.0], gravity=[0, -9.81, 0])
    >>> Y, q, qd, qdd = symbolic_regressor(pend)
    >>> Y[0, 1], Y[0, 6]                  # columns of mx1 and Izz1
    (981*cos(q1)/100, qdd1)
    """
    import sympy as sp

    if not _is_robot(robot):
        raise TypeError(f"robot must be a SerialRobot, got {type(robot).__name__}")
    n = robot.n
    q = sp.symbols(f"q1:{n + 1}")
    qd = sp.symbols(f"qd1:{n + 1}")
    qdd = sp.symbols(f"qdd1:{n + 1}")
    g = sp.Matrix([_exact(c) for c in robot.gravity])
    w, v = sp.zeros(3, 1), sp.zeros(3, 1)
    R, p = sp.eye(3), sp.zeros(3, 1)
    lagrangian_terms = []
    for i in range(n):
        T = robot.joint_origins[i]
        R0 = sp.Matrix(3, 3, [_exact(c) for c in T[:3, :3].ravel()])
        p0 = sp.Matrix([_exact(c) for c in T[:3, 3]])
        a = sp.Matrix([_exact(c) for c in robot.joint_axes[i]])
        if robot.joint_types[i] == "revolute":
            K = sp.Matrix([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
            Ri = R0 * (sp.eye(3) + sp.sin(q[i]) * K + (1 - sp.cos(q[i])) * K * K)   # Rodrigues
            pi = p0
            v = Ri.T * (v + w.cross(pi))
            w = Ri.T * w + a * qd[i]
        else:
            Ri, pi = R0, p0 + q[i] * R0 * a
            v = Ri.T * (v + w.cross(pi)) + a * qd[i]
            w = Ri.T * w
        w, v = w.applyfunc(sp.expand), v.applyfunc(sp.expand)
        p = (p + R * pi).applyfunc(sp.expand)
        R = (R * Ri).applyfunc(sp.expand)
        vw, Rg = v.cross(w), R.T * g
        lagrangian_terms += [
            v.dot(v) / 2 + g.dot(p), vw[0] + Rg[0], vw[1] + Rg[1], vw[2] + Rg[2],
            w[0] ** 2 / 2, w[1] ** 2 / 2, w[2] ** 2 / 2, w[0] * w[1], w[0] * w[2], w[1] * w[2],
        ]
    Y = sp.zeros(n, 10 * n)
    for k, Lk in enumerate(lagrangian_terms):
        Lk = sp.expand(Lk)
        for j in range(n):
            dL = sp.diff(Lk, qd[j])
            ddt = sum(sp.diff(dL, q[i]) * qd[i] + sp.diff(dL, qd[i]) * qdd[i] for i in range(n))
            Y[j, k] = sp.expand(ddt - sp.diff(Lk, q[j]))
    return Y, q, qd, qdd


def _joint_batch(name: str, x: Any, n: int) -> tuple[np.ndarray, bool]:
    """``(n,)`` -> ``((1, n), True)``; ``(N, n)`` -> ``((N, n), False)``, checked."""
    a = as_array(name, x, ndim=(1, 2))
    if a.shape[-1] != n:
        raise ValueError(f"{name} must have shape ({n},) or (N, {n}), got {a.shape}")
    return (a[None], True) if a.ndim == 1 else (a, False)


def _same_batch(n: int, **arrays: Any) -> tuple[list[np.ndarray], bool]:
    out, single = [], set()
    for name, x in arrays.items():
        a, s = _joint_batch(name, x, n)
        out.append(a)
        single.add(s)
    if len(single) > 1 or len({a.shape for a in out}) > 1:
        shapes = ", ".join(f"{k}: {np.shape(v)}" for k, v in arrays.items())
        raise ValueError(f"{', '.join(arrays)} must have the same shape, got {shapes}")
    return out, single.pop()


class SymbolicModel:
    """A regressor model given as a sympy matrix: fast numeric evaluation and exact derivatives.

    The model ``tau = Y(q, qd, qdd) beta`` is compiled with :func:`sympy.lambdify` (common
    subexpressions eliminated), and so are the derivatives ``dY/dq_i`` and ``dY/dqd_i``.
    With them :class:`AugmentedStateIdentifier` builds the *analytic* Jacobian of the
    augmented dynamics (see :meth:`AugmentedStateIdentifier.dynamics_jacobian`).
    The derivative of a ``sign`` (Coulomb friction) is taken as zero (a Dirac at zero
    velocity that no filter can use).

    Parameters
    ----------
    Y : sympy.Matrix, shape (n, p)
        Regressor; affine in the accelerations ``qdd`` (as every mechanical model is).
    q, qd, qdd : sequence of sympy.Symbol, length n
        Symbols of the positions, velocities and accelerations (all distinct).
    names : sequence of str, optional
        Parameter names (default ``b1..bp``).

    Attributes
    ----------
    Y : sympy.Matrix
    symbols : tuple of tuple of sympy.Symbol
        ``(q, qd, qdd)``.
    n_joints, n_params : int
    param_names : tuple of str
    has_affine_terms : bool
        Whether the coefficients of ``qdd`` depend on ``q`` only (every mechanical model), so
        that :meth:`affine_terms` is available.

    Raises
    ------
    TypeError
        If ``Y`` is not a sympy matrix or a symbol is not a sympy symbol.
    ValueError
        On inconsistent sizes, repeated symbols, other free symbols in ``Y``, a ``Y`` that
        is not affine in ``qdd``, or names of the wrong length.

    Examples
    --------
    The pendulum of chapter 1, ``tau = [qdd, sin q, qd] a``:

    >>> import numpy as np, sympy as sp
    >>> from robidlib.estimation.ekf import SymbolicModel
    >>> q, qd, qdd = sp.symbols("q qd qdd")
    >>> model = SymbolicModel(sp.Matrix([[qdd, sp.sin(q), qd]]), [q], [qd], [qdd], names=["a1", "a2", "a3"])
    >>> model.regressor([0.5], [1.0], [2.0]).round(4)
    array([[2.    , 0.4794, 1.    ]])
    >>> dq, dqd = model.regressor_derivatives([0.5], [1.0], [2.0])
    >>> dq[0, :, 0].round(4), dqd[0, :, 0]
    (array([0.    , 0.8776, 0.    ]), array([0., 0., 1.]))
    """

    def __init__(self, Y: Any, q: Sequence[Any], qd: Sequence[Any], qdd: Sequence[Any],
                 names: Sequence[str] | None = None) -> None:
        import sympy as sp

        if not isinstance(Y, sp.MatrixBase):
            raise TypeError(f"Y must be a sympy Matrix, got {type(Y).__name__}")
        Y = sp.Matrix(Y)
        groups = {}
        for label, syms in (("q", q), ("qd", qd), ("qdd", qdd)):
            syms = tuple(syms)
            for s in syms:
                if not isinstance(s, sp.Symbol):
                    raise TypeError(f"{label} must hold sympy Symbols, got {type(s).__name__}")
            groups[label] = syms
        n = len(groups["q"])
        if n == 0 or len(groups["qd"]) != n or len(groups["qdd"]) != n:
            raise ValueError(
                "q, qd and qdd must hold the same positive number of symbols, got "
                f"{len(groups['q'])}, {len(groups['qd'])}, {len(groups['qdd'])}"
            )
        if Y.rows != n or Y.cols == 0:
            raise ValueError(f"Y must have shape ({n}, p) with p >= 1 (one row per joint), got {Y.shape}")
        allsyms = groups["q"] + groups["qd"] + groups["qdd"]
        if len(set(allsyms)) != len(allsyms):
            raise ValueError(f"the symbols of q, qd and qdd must be distinct, got {allsyms}")
        extra = Y.free_symbols - set(allsyms)
        if extra:
            raise ValueError(
                f"Y depends on symbols other than q, qd, qdd: {sorted(map(str, extra))}; substitute numbers first"
            )
        for s in groups["qdd"]:
            for s2 in groups["qdd"]:
                if any(sp.expand(e) != 0 for e in Y.diff(s).diff(s2)):
                    raise ValueError(f"Y must be affine in the accelerations, but d2Y/d{s}d{s2} is not zero")
        p = Y.cols
        if names is None:
            names = tuple(f"b{i + 1}" for i in range(p))
        names = tuple(str(s) for s in names)
        if len(names) != p:
            raise ValueError(f"names must have {p} entries (one per column of Y), got {len(names)}")
        self.Y = Y
        self.symbols = (groups["q"], groups["qd"], groups["qdd"])
        self.n_joints, self.n_params, self.param_names = n, p, names

        def no_dirac(e: Any) -> Any:   # d sign(v)/dv: DiracDelta (real v) or an unevaluated Derivative
            return e.replace(
                lambda a: isinstance(a, sp.DiracDelta) or (isinstance(a, sp.Derivative) and a.expr.func == sp.sign),
                lambda a: sp.S.Zero,
            )

        derivs = [Y.diff(s).applyfunc(no_dirac) for s in groups["q"] + groups["qd"]]
        dY = [e for D in derivs for e in D]
        # one sample: plain floats through the math module (a few microseconds per call);
        # batches: numpy
        math_mod = [{"sign": lambda v: float(np.sign(v))}, "math"]
        self._f_Y1 = sp.lambdify(allsyms, list(Y), modules=math_mod, cse=True)
        self._f_dY1 = sp.lambdify(allsyms, dY, modules=math_mod, cse=True)
        self._f_Y = sp.lambdify(allsyms, list(Y), modules="numpy", cse=True)
        # Y = Yh(q, qd) + sum_j qdd_j D_j(q): the pieces the EKF needs, in one compiled call
        zero = {s: 0 for s in groups["qdd"]}
        Dj = [Y.diff(s) for s in groups["qdd"]]
        self.has_affine_terms = not any(D.has(*groups["qd"]) for D in Dj)
        if self.has_affine_terms:
            Yh = Y.subs(zero)
            pieces = [Yh] + Dj + [Yh.diff(s).applyfunc(no_dirac) for s in groups["q"]]
            pieces += [D.diff(s) for s in groups["q"] for D in Dj]
            pieces += [Yh.diff(s).applyfunc(no_dirac) for s in groups["qd"]]
            self._f_terms = sp.lambdify(groups["q"] + groups["qd"], [e for P_ in pieces for e in P_],
                                        modules=math_mod, cse=True)

    def _one(self, fun: Callable, q: Any, qd: Any, qdd: Any, shape: tuple[int, ...]) -> np.ndarray | None:
        """Fast path for one float sample of shape (n,); None if the checked path is needed."""
        n = self.n_joints
        for a in (q, qd, qdd):
            if type(a) is not np.ndarray or a.shape != (n,) or a.dtype != np.float64:
                return None
        try:
            out = np.array(fun(*q.tolist(), *qd.tolist(), *qdd.tolist()), dtype=float).reshape(shape)
        except (ValueError, OverflowError):   # math domain error on inf
            return None
        return out if np.isfinite(out).all() else None

    def regressor(self, q: Any, qd: Any, qdd: Any) -> np.ndarray:
        """Numeric regressor: shape ``(n, p)`` for one sample ``(n,)``, ``(N, n, p)`` for ``(N, n)``.

        Raises
        ------
        ValueError
            On inconsistent shapes or NaN/inf (in the input or in the result).
        """
        shape = (self.n_joints, self.n_params)
        out = self._one(self._f_Y1, q, qd, qdd, shape)
        if out is not None:
            return out
        args, single = _same_batch(self.n_joints, q=q, qd=qd, qdd=qdd)
        N = args[0].shape[0]
        with np.errstate(all="ignore"):             # overflow is reported below as a ValueError
            vals = self._f_Y(*[a[:, j] for a in args for j in range(a.shape[1])])
            out = np.stack([np.broadcast_to(np.asarray(v, dtype=float), (N,)) for v in vals], axis=-1)
        out = out.reshape((N,) + shape)
        if not np.isfinite(out).all():
            raise ValueError("the symbolic regressor returned non-finite values (overflow at a huge state?)")
        return out[0] if single else out

    def affine_terms(self, q: Any, qd: Any) -> tuple[np.ndarray, ...]:
        """The regressor split as ``Y(q, qd, qdd) = Yh(q, qd) + sum_j qdd_j D_j(q)``, with derivatives.

        Everything :class:`AugmentedStateIdentifier` needs for the dynamics and its analytic
        Jacobian at one state, from one compiled call: ``M(q) = [D_1 beta, ..., D_n beta]``,
        ``h = Yh beta``, ``dY/dq_i = dYh/dq_i + sum_j qdd_j dD_j/dq_i``, ``dY/dqd_i = dYh/dqd_i``.

        Parameters
        ----------
        q, qd : array_like, shape (n,)

        Returns
        -------
        Yh : numpy.ndarray, shape (n, p)
        D : numpy.ndarray, shape (n, n, p)
            ``D[j] = dY/dqdd_j``.
        dYh_dq : numpy.ndarray, shape (n, n, p)
            ``dYh_dq[i] = dYh/dq_i``.
        dD_dq : numpy.ndarray, shape (n, n, n, p)
            ``dD_dq[i, j] = dD_j/dq_i``.
        dYh_dqd : numpy.ndarray, shape (n, n, p)
            ``dYh_dqd[i] = dYh/dqd_i``.

        Raises
        ------
        ValueError
            On wrong shapes or NaN/inf, or if the acceleration coefficients ``D_j`` depend on
            the velocities (not a mechanical model).
        """
        if not self.has_affine_terms:
            raise ValueError("the coefficients of qdd in Y depend on qd: affine_terms needs D_j(q) only")
        n, p = self.n_joints, self.n_params
        q = np.asarray(q, dtype=float) if type(q) is np.ndarray else as_array("q", q, shape=(n,))
        qd = np.asarray(qd, dtype=float) if type(qd) is np.ndarray else as_array("qd", qd, shape=(n,))
        if q.shape != (n,) or qd.shape != (n,):
            q, qd = as_array("q", q, shape=(n,)), as_array("qd", qd, shape=(n,))
        try:
            flat = np.array(self._f_terms(*q.tolist(), *qd.tolist()), dtype=float)
        except (ValueError, OverflowError):
            flat = np.array([np.nan])
        if not np.isfinite(flat.sum()):                        # one reduction: cheap when all is well
            as_array("q", q), as_array("qd", qd)               # names a non-finite input
            raise ValueError("the symbolic regressor terms are not finite at this state")
        a, b, c, d = n * p, n * p + n * n * p, n * p + 2 * n * n * p, n * p + 2 * n * n * p + n**3 * p
        return (flat[:a].reshape(n, p), flat[a:b].reshape(n, n, p), flat[b:c].reshape(n, n, p),
                flat[c:d].reshape(n, n, n, p), flat[d:].reshape(n, n, p))

    def regressor_derivatives(self, q: Any, qd: Any, qdd: Any) -> tuple[np.ndarray, np.ndarray]:
        """Exact derivatives ``dY/dq`` and ``dY/dqd`` of one sample.

        Parameters
        ----------
        q, qd, qdd : array_like, shape (n,)

        Returns
        -------
        dY_dq, dY_dqd : numpy.ndarray, shape (n, p, n)
            ``dY_dq[:, :, i]`` is ``dY/dq_i`` (likewise for ``qd``).

        Raises
        ------
        ValueError
            On wrong shapes or NaN/inf.
        """
        n, p = self.n_joints, self.n_params
        D = self._one(self._f_dY1, q, qd, qdd, (2, n, n, p))     # [which, i, row, col]
        if D is None:
            q, qd, qdd = (as_array(name, x, shape=(n,)) for name, x in (("q", q), ("qd", qd), ("qdd", qdd)))
            D = self._one(self._f_dY1, q, qd, qdd, (2, n, n, p))
            if D is None:
                raise ValueError("the derivatives of the symbolic regressor are not finite at this state")
        return np.moveaxis(D[0], 0, -1), np.moveaxis(D[1], 0, -1)

    def __repr__(self) -> str:
        return f"SymbolicModel(n_joints={self.n_joints}, n_params={self.n_params})"


class RobotBaseModel:
    """The base-parameter model of a serial robot: ``tau = Yb(q, qd, qdd) beta``.

    Built by :func:`robot_base_model`; see there.  ``regressor`` reduces the standard
    regressor of :func:`robidlib.regressor.regressor` with ``base.reduce`` (numeric route)
    or evaluates the compiled symbolic base regressor (``symbolic=True``, which also
    provides :meth:`regressor_derivatives` for analytic EKF Jacobians).

    Attributes
    ----------
    robot : SerialRobot
    base : BaseParameters
    friction : tuple of str
        Friction terms appended after the base columns.
    n_joints, n_params : int
    param_names : tuple of str
    params : numpy.ndarray, shape (n_params,)
        The robot's own base parameters (and friction coefficients): the truth in a simulation.
    symbolic : SymbolicModel or None
        The compiled symbolic model when built with ``symbolic=True``.
    """

    def __init__(self, robot: Any, base: Any, friction: tuple[str, ...], base_has_friction: bool,
                 symbolic: "SymbolicModel | None") -> None:
        from ..params import friction_names

        self.robot, self.base, self.friction = robot, base, friction
        self._base_has_friction = base_has_friction
        self.n_joints = int(robot.n)
        extra = friction_names(robot.n, friction) if friction else ()
        self.param_names = tuple(base.base_names) + tuple(extra)
        self.n_params = len(self.param_names)
        pi = np.asarray(robot.params, dtype=float)
        if base_has_friction:
            pi = np.concatenate([pi, np.asarray(robot.friction, dtype=float).ravel()])
        cols = [0 if t == "viscous" else 1 for t in friction]
        fr = np.asarray(robot.friction, dtype=float)[:, cols].ravel() if friction else np.zeros(0)
        self.params = np.concatenate([base.beta(pi), fr])
        self.symbolic = symbolic

    def regressor(self, q: Any, qd: Any, qdd: Any) -> np.ndarray:
        """Base regressor: ``(n, p)`` for one sample ``(n,)``, ``(N, n, p)`` for ``(N, n)``.

        Raises
        ------
        ValueError
            On inconsistent shapes or NaN/inf.
        """
        if self.symbolic is not None:
            return self.symbolic.regressor(q, qd, qdd)
        return self.numeric_regressor(q, qd, qdd)

    def numeric_regressor(self, q: Any, qd: Any, qdd: Any) -> np.ndarray:
        """The same regressor by the numeric route (``regressor`` + ``base.reduce``)."""
        from ..regressor import friction_regressor, regressor

        (q, qd, qdd), single = _same_batch(self.n_joints, q=q, qd=qd, qdd=qdd)
        Y = regressor(self.robot, q, qd, qdd)
        if self._base_has_friction:
            Y = np.concatenate([Y, friction_regressor(qd)], axis=-1)
        Y = self.base.reduce(Y)
        if self.friction:
            Y = np.concatenate([Y, friction_regressor(qd, terms=self.friction)], axis=-1)
        return Y[0] if single else Y

    def __repr__(self) -> str:
        kind = "symbolic" if self.symbolic is not None else "numeric"
        return (f"RobotBaseModel({self.robot.name!r}, n_joints={self.n_joints}, n_params={self.n_params}, "
                f"{kind})")


class SymbolicRobotBaseModel(RobotBaseModel):
    """A :class:`RobotBaseModel` with a compiled symbolic regressor and its exact derivatives."""

    def regressor_derivatives(self, q: Any, qd: Any, qdd: Any) -> tuple[np.ndarray, np.ndarray]:
        """``dYb/dq`` and ``dYb/dqd`` of one sample, each ``(n, p, n)`` (see :class:`SymbolicModel`)."""
        return self.symbolic.regressor_derivatives(q, qd, qdd)

    def affine_terms(self, q: Any, qd: Any) -> tuple[np.ndarray, ...]:
        """See :meth:`SymbolicModel.affine_terms`."""
        return self.symbolic.affine_terms(q, qd)

    @property
    def has_affine_terms(self) -> bool:
        """See :class:`SymbolicModel`."""
        return self.symbolic.has_affine_terms

    @property
    def Y(self) -> Any:
        """The symbolic base regressor (sympy Matrix, shape ``(n, p)``)."""
        return self.symbolic.Y


def robot_base_model(
    robot: Any,
    base: Any = None,
    *,
    friction: Sequence[str] = (),
    symbolic: bool = False,
    simplify: bool = True,
) -> RobotBaseModel:
    """Wire a serial robot and its base parameters into a model for :class:`AugmentedStateIdentifier`.

    The model exposes ``regressor(q, qd, qdd) -> (n, p)``, ``n_joints``, ``n_params``,
    ``param_names`` and the robot's true base parameters ``params``.  Its columns are the
    base regressor ``Yb = base.reduce(Y)`` of the standard regressor ``Y`` of
    :func:`robidlib.regressor.regressor`, followed by the friction columns of
    ``friction`` (joint-major, e.g. ``fv1, fv2``; each friction coefficient is a base
    parameter of its own).

    Parameters
    ----------
    robot : SerialRobot
        The robot (kinematics, gravity; its inertial and friction parameters give ``params``).
    base : BaseParameters, optional
        From :func:`robidlib.base.base_parameters` of this robot, either without friction
        (``10 n`` standard parameters) or with ``friction=True`` (``12 n``: viscous and
        Coulomb columns already inside, then ``friction`` must be empty).  Default:
        ``base_parameters(robot)`` (QR regrouping).
    friction : sequence of {"viscous", "coulomb"}, default ()
        Friction terms to append (Coulomb makes the dynamics discontinuous at ``qd = 0``;
        an EKF handles viscous friction much better).
    symbolic : bool, default False
        Derive the base regressor with sympy (:func:`symbolic_regressor`), compile it, and
        provide exact derivatives (:class:`SymbolicRobotBaseModel`).  Much faster to
        evaluate sample by sample than the numeric route, but the derivation itself is only
        practical for a few joints.
    simplify : bool, default True
        With ``symbolic=True``, ``trigsimp`` each base column (readable, cheaper to evaluate).

    Returns
    -------
    RobotBaseModel or SymbolicRobotBaseModel

    Raises
    ------
    TypeError
        If ``robot`` is not a SerialRobot or ``base`` not a BaseParameters.
    ValueError
        If ``base`` belongs to another parameter list (names differ), friction terms are
        unknown, repeated, or given twice (in ``base`` and ``friction``).

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.robot import SerialRobot
    >>> from robidlib.estimation.ekf import robot_base_model
    >>> arm = SerialRobot.from_dh("RR", a=[0, 0.5], alpha=[0, 0], d=[0, 0], mass=[1.0, 0.7],
    ...                           com=[[0.25, 0, 0], [0.2, 0, 0]], gravity=[0, -9.81, 0])
    >>> model = robot_base_model(arm, friction=["viscous"])
    >>> model.param_names
    ('mx1R', 'my1', 'Izz1R', 'mx2', 'my2', 'Izz2', 'fv1', 'fv2')
    >>> model.regressor(np.zeros(2), np.zeros(2), np.zeros(2)).shape
    (2, 8)
    """
    from ..base import BaseParameters, base_parameters
    from ..params import _check_terms, friction_names

    if not _is_robot(robot):
        raise TypeError(f"robot must be a SerialRobot, got {type(robot).__name__}")
    if base is None:
        base = base_parameters(robot)
    if not isinstance(base, BaseParameters):
        raise TypeError(f"base must be a BaseParameters (from base_parameters(robot)), got {type(base).__name__}")
    friction = () if len(tuple(friction)) == 0 else _check_terms(friction, False)
    rigid = tuple(robot.param_names)
    with_fr = rigid + tuple(friction_names(robot.n))
    if tuple(base.names) == rigid:
        base_has_friction = False
    elif tuple(base.names) == with_fr:
        base_has_friction = True
        if friction:
            raise ValueError(
                f"base already holds the friction columns {friction_names(robot.n)}; do not give friction={friction}"
            )
    else:
        raise ValueError(
            f"base must be computed for this robot's {len(rigid)} parameters {rigid[:2]}... "
            f"(or {len(with_fr)} with friction=True), got {base.n_params} named {tuple(base.names)[:2]}..."
        )
    if not isinstance(symbolic, (bool, np.bool_)):
        raise TypeError(f"symbolic must be True or False, got {symbolic!r}")
    if not symbolic:
        return RobotBaseModel(robot, base, friction, base_has_friction, None)

    import sympy as sp

    Y, q, qd, qdd = symbolic_regressor(robot)
    n = robot.n
    if base_has_friction:
        F = sp.zeros(n, 2 * n)
        for j in range(n):
            F[j, 2 * j], F[j, 2 * j + 1] = qd[j], sp.sign(qd[j])
        Y = Y.row_join(F)
    if base.method == "svd":
        Yb = Y * sp.Matrix(base.V1)
    else:
        Yb = Y[:, [int(i) for i in base.independent]]
    if simplify:
        Yb = Yb.applyfunc(lambda e: sp.trigsimp(sp.expand(e)))
    if friction:
        F = sp.zeros(n, n * len(friction))
        for j in range(n):
            for c, term in enumerate(friction):
                F[j, j * len(friction) + c] = qd[j] if term == "viscous" else sp.sign(qd[j])
        Yb = Yb.row_join(F)
    model = SymbolicRobotBaseModel(robot, base, friction, base_has_friction, None)
    model.symbolic = SymbolicModel(Yb, q, qd, qdd, names=model.param_names)
    return model
