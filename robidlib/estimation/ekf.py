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
one classical Runge-Kutta (RK4) step per sample, the torque being held constant over
the step.  The Jacobian ``F`` of the discrete map is computed by central differences
(the regressor is any user function, not necessarily complex-safe, so the complex-step
method is not used) unless an analytic one is given; ``H`` is an exact selection matrix.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
import scipy.linalg

from .._validate import as_array, check_choice, check_positive

__all__ = ["ExtendedKalmanFilter", "AugmentedStateIdentifier", "numerical_jacobian"]


# ---------------------------------------------------------------------- helpers
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
        lam = scipy.linalg.eigvalsh(P)
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
            c = scipy.linalg.cho_factor(S)
        except np.linalg.LinAlgError:
            raise ValueError(
                f"the innovation covariance S = H P H' + R is not positive definite at step {k}; "
                "make R positive definite or check the measurement model"
            ) from None
        K = scipy.linalg.cho_solve(c, PHt.T).T
        self._x = self._x + K @ y
        IKH = np.eye(self.nx) - K @ H
        self._set_P(IKH @ self._P @ IKH.T + K @ self.R @ K.T, "update")
        self.y, self.S, self.K = y, S, K
        self.nis = float(y @ scipy.linalg.cho_solve(c, y))
        self._record("update")

    def __repr__(self) -> str:
        return f"ExtendedKalmanFilter(nx={self.nx}, nz={self.nz}, step={self.step})"


# ---------------------------------------------------------------------- augmented state
_MEASURES = ("q", "qd")


class AugmentedStateIdentifier:
    """Identify base parameters with an EKF on the augmented state ``x = [q, qd, beta]``.

    Parameters
    ----------
    model : callable or object
        Either a callable base regressor ``Yb(q, qd, qdd) -> (n, p)`` for one sample (then
        ``n`` and ``p`` are required), or an object with a method
        ``regressor(q, qd, qdd) -> (n, p)`` (one sample: ``q``, ``qd``, ``qdd`` of shape
        ``(n,)``; a ``(1, n, p)`` result is also accepted) whose integer attributes
        ``n_joints`` (or ``n``) and ``n_params`` give the sizes when ``n`` / ``p`` are not
        passed; its ``param_names`` are used as default names if their number is ``p``.
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
    integrator : {"euler", "rk4"}, default "euler"
        One explicit Euler step or one RK4 step per sample.
    measure : sequence of {"q", "qd"}, default ("q",)
        Measured quantities, stacked in this order (a single string is one name).
    F_jac : callable, optional
        Analytic Jacobian ``F_jac(x, u) -> (nx, nx)`` of the *discrete* map
        :meth:`transition`; default: central differences (:func:`numerical_jacobian`).
    fd_step : float, optional
        Relative step of the central differences (default ``eps^(1/3)``).
    names : sequence of str, optional
        Parameter names (default ``model.param_names`` if it has ``p`` entries, else
        ``b1, b2, ...``).

    Attributes
    ----------
    filter : ExtendedKalmanFilter
        The underlying filter.
    n, p, nx, m : int
        Joints, parameters, state size ``2n + p`` and measurement size.

    Raises
    ------
    ValueError
        If ``dt <= 0``, an integrator or measurement name is unknown, sizes disagree, or
        ``Q``/``R``/``P0`` are not symmetric positive semi-definite of the right size.
    TypeError
        If ``model`` is neither a callable nor an object with ``regressor``.

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
        integrator: str = "euler",
        measure: Sequence[str] | str = ("q",),
        F_jac: Callable | None = None,
        fd_step: float | None = None,
        names: Sequence[str] | None = None,
    ) -> None:
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
            Q, R, x0, P0,
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
        zero = np.zeros(self.n)
        g = self.regressor(q, zero, zero) @ beta
        M = np.empty((self.n, self.n))
        for j in range(self.n):
            e = np.zeros(self.n)
            e[j] = 1.0
            M[:, j] = self.regressor(q, zero, e) @ beta - g
        return 0.5 * (M + M.T)

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

        The system is solved by LU (``numpy.linalg.solve``), not Cholesky: ``M`` is symmetric
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
            qdd = np.linalg.solve(M, rhs)
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
        """Discrete process model: one Euler or RK4 step of length ``dt`` with torque ``u`` held.

        Parameters
        ----------
        x : array_like, shape (2n + p,)
            Augmented state ``[q, qd, beta]``.
        u : array_like, shape (n,)
            Joint torques over the step.

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
        return self._step(x, u)

    def _check_xu(self, x: Any, u: Any) -> tuple[np.ndarray, np.ndarray]:
        if u is None:
            raise ValueError(f"the torque u (shape ({self.n},)) is required to predict the robot state")
        return as_array("x", x, shape=(self.nx,)), as_array("u", u, shape=(self.n,))

    def _step(self, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        dt = self.dt
        if self.integrator == "euler":
            return x + dt * self._xdot(x, u)
        k1 = self._xdot(x, u)
        k2 = self._xdot(x + 0.5 * dt * k1, u)
        k3 = self._xdot(x + 0.5 * dt * k2, u)
        k4 = self._xdot(x + dt * k3, u)
        return x + (dt / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4)

    def numerical_transition_jacobian(self, x: Any, u: Any) -> np.ndarray:
        """Central-difference Jacobian of :meth:`transition` with respect to ``x``."""
        x, u = self._check_xu(x, u)
        return numerical_jacobian(lambda xx: self._step(xx, u), x, self.fd_step)

    def transition_jacobian(self, x: Any, u: Any) -> np.ndarray:
        """Jacobian ``F`` of :meth:`transition`: the analytic ``F_jac`` if given, else central differences."""
        if self._F_analytic is not None:
            return _check_out("F_jac(x, u)", self._F_analytic(x, u), (self.nx, self.nx))
        return self.numerical_transition_jacobian(x, u)

    def measurement(self, x: Any) -> np.ndarray:
        """Measurement model ``z = H x`` (the measured ``q`` and/or ``qd``)."""
        return self._H @ as_array("x", x, shape=(self.nx,))

    def measurement_jacobian(self, x: Any = None) -> np.ndarray:
        """Constant selection matrix ``H`` (shape ``(m, 2n + p)``)."""
        return self._H.copy()

    # ------------------------------------------------------------------ filter
    def predict(self, u: Any) -> None:
        """EKF prediction over one step ``dt`` with the torque ``u`` (shape ``(n,)``) held."""
        self.filter.predict(as_array("u", u, shape=(self.n,)))

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

    def run(self, t: Any, tau: Any, z: Any) -> dict[str, np.ndarray]:
        """Filter a whole data set: update with ``z[0]``, then predict/update for each sample.

        The filter continues from its current state (call ``filter.reset`` to restart).
        Between ``t[k-1]`` and ``t[k]`` the torque ``tau[k-1]`` is held (zero-order hold),
        which is how the data should be generated for an exact model.

        Parameters
        ----------
        t : array_like, shape (N,)
            Sample times, uniformly spaced by ``dt``.
        tau : array_like, shape (N, n)
            Joint torques.
        z : array_like, shape (N, m)
            Measurements in the order of ``measure`` (e.g. ``[q, qd]`` per row).

        Returns
        -------
        dict of numpy.ndarray
            ``"t"`` (N,), posterior ``"x"`` (N, nx) and ``"P_diag"`` (N, nx), and the views
            ``"q"``, ``"qd"`` (N, n), ``"params"``, ``"std"`` (N, p) for plotting.

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
        X = np.empty((N, self.nx))
        Pd = np.empty((N, self.nx))
        for k in range(N):
            if k > 0:
                self.filter.predict(tau[k - 1])
            self.filter.update(z[k])
            X[k] = self.filter._x
            Pd[k] = np.diag(self.filter._P)
        n = self.n
        std = np.sqrt(np.clip(Pd[:, 2 * n:], 0.0, None))
        return {
            "t": t.copy(), "x": X, "P_diag": Pd, "q": X[:, :n], "qd": X[:, n:2 * n],
            "params": X[:, 2 * n:], "std": std,
        }

    def __repr__(self) -> str:
        return (
            f"AugmentedStateIdentifier(n={self.n}, p={self.p}, dt={self.dt:g}, "
            f"integrator={self.integrator!r}, measure={self.measure})"
        )
