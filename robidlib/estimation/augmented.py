"""Parameter identification with an EKF on the augmented state ``x = [q, qd, beta]``.

:class:`AugmentedStateIdentifier` identifies the base parameters ``beta`` of a robot by
appending them to the state, ``x = [q, qd, beta]`` with ``d(beta)/dt = 0``
(:cite:`gautier2001`), and running the :class:`~robidlib.estimation.kalman.ExtendedKalmanFilter`
on it.  The process model is the forward dynamics of the *base-parameter* model built from
the base regressor ``Yb(q, qd, qdd)`` (the very model least squares identifies,
``Yb(q, qd, qdd) beta = tau``):

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
  :class:`~robidlib.estimation.symbolic.SymbolicModel`, or
  :func:`~robidlib.estimation.base_model.robot_base_model` with ``symbolic=True``, which
  derives the base regressor of a serial robot with sympy): the implicit-function theorem
  applied to ``Yb(q, qd, qdd) beta = tau`` gives ``d(dx/dt)/dx``, chained through the Euler
  or RK4 stages;
* otherwise central differences (:func:`~robidlib.estimation.kalman.numerical_jacobian`;
  the regressor is any user function, not necessarily complex-safe, so the complex-step
  method is not used).

The tests check the two against each other.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .._validate import as_array, check_choice, check_flag, check_names, check_positive, check_tolerance
from .base_model import robot_base_model
from .kalman import ExtendedKalmanFilter, _check_cov, _check_out, _solve, numerical_jacobian
from .symbolic import _is_robot

__all__ = ["AugmentedStateIdentifier", "torque_midpoints"]


_MEASURES = ("q", "qd")


class AugmentedStateIdentifier:
    """Identify base parameters with an EKF on the augmented state ``x = [q, qd, beta]``.

    Parameters
    ----------
    model : SerialRobot, callable or object
        A :class:`~robidlib.robot.SerialRobot` (wired with ``base`` by
        :func:`~robidlib.estimation.base_model.robot_base_model`; pass
        ``robot_base_model(...)`` yourself for friction or a
        symbolic model), a callable base regressor ``Yb(q, qd, qdd) -> (n, p)`` for one
        sample (then ``n`` and ``p`` are required), or an object with a method
        ``regressor(q, qd, qdd) -> (n, p)`` (one sample: ``q``, ``qd``, ``qdd`` of shape
        ``(n,)``; a ``(1, n, p)`` result is also accepted) whose integer attributes
        ``n_joints`` (or ``n``) and ``n_params`` give the sizes when ``n`` / ``p`` are not
        passed; its ``param_names`` are used as default names if their number is ``p``.
        If the object also has ``regressor_derivatives(q, qd, qdd) -> (dY/dq, dY/dqd)``
        (each ``(n, p, n)``, e.g. :class:`~robidlib.estimation.symbolic.SymbolicModel`), the Jacobian is analytic.
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
        Passed to the :class:`~robidlib.estimation.kalman.ExtendedKalmanFilter` (switch off for Monte Carlo runs;
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
    >>> from robidlib.estimation.augmented import AugmentedStateIdentifier
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
        try:
            measure = tuple(measure)
        except TypeError:
            raise TypeError(f"measure must be 'q', 'qd' or a sequence of them, got {type(measure).__name__}") from None
        if not measure:
            raise ValueError("measure must name at least one quantity: ('q',), ('qd',) or ('q', 'qd')")
        for name in measure:
            check_choice("measure", name, _MEASURES)
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
        self.fd_step = None if fd_step is None else check_tolerance("fd_step", fd_step)
        if names is None:
            names = tuple(f"b{i + 1}" for i in range(self.p))
        names = check_names("names", names, self.p)
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
            Q, R, x0, P0, record_history=check_flag("record_history", record_history),
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
        ``regressor_derivatives`` (exact for a :class:`~robidlib.estimation.symbolic.SymbolicModel`).

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

    def _check_record(self, t: Any, tau: Any, z: Any, torque: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Checked ``t``, the per-step torques ``U`` and ``z`` of a record (see :meth:`run`)."""
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
        return t, U, z

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
            ``"q"``, ``"qd"`` (N, n), ``"params"``, ``"std"`` (N, p) for plotting; the
            innovations ``"innovation"`` (N, m), their covariances ``"innovation_cov"``
            (N, m, m) and the normalised innovations squared ``"nis"`` (N,), the
            diagnostics that need no truth (:func:`~robidlib.estimation.consistency.whiteness_test`);
            with ``keep_cov`` also ``"P"`` (N, nx, nx).

        Raises
        ------
        ValueError
            On bad shapes, non-finite data, a time step different from ``dt``, or a
            numerically failing filter (with the step number).
        """
        t, U, z = self._check_record(t, tau, z, torque)
        return self._filter_record(t, U, z, check_flag("keep_cov", keep_cov), prior=False)

    def _filter_record(self, t: np.ndarray, U: np.ndarray, z: np.ndarray, keep_cov: bool,
                       prior: bool) -> dict[str, np.ndarray]:
        """The loop of :meth:`run`; with ``prior`` also the predictions and Jacobians."""
        N, m, nx = t.size, self.m, self.nx
        X = np.empty((N, nx))
        Pd = np.empty((N, nx))
        Ps = np.empty((N, nx, nx)) if keep_cov or prior else None
        Y, S, nis = np.empty((N, m)), np.empty((N, m, m)), np.empty(N)
        if prior:
            Xp, Pp, Fs = np.empty((N - 1, nx)), np.empty((N - 1, nx, nx)), np.empty((N - 1, nx, nx))
        f = self.filter
        for k in range(N):
            if k > 0:
                f.predict(U[k - 1])
                if prior:
                    Xp[k - 1], Pp[k - 1], Fs[k - 1] = f._x, f._P, f.F
            f.update(z[k])
            X[k] = f._x
            Pd[k] = np.diag(f._P)
            Y[k], S[k], nis[k] = f.y, f.S, f.nis
            if Ps is not None:
                Ps[k] = f._P
        n = self.n
        std = np.sqrt(np.clip(Pd[:, 2 * n:], 0.0, None))
        out = {
            "t": t.copy(), "x": X, "P_diag": Pd, "q": X[:, :n], "qd": X[:, n:2 * n],
            "params": X[:, 2 * n:], "std": std, "innovation": Y, "innovation_cov": S, "nis": nis,
        }
        if Ps is not None:
            out["P"] = Ps
        if prior:
            out.update(x_pred=Xp, P_pred=Pp, F=Fs)
        return out

    def smooth(self, t: Any, tau: Any, z: Any, *, torque: str = "hold") -> dict[str, np.ndarray]:
        """Filter a whole record, then smooth it backwards (Rauch-Tung-Striebel).

        Off-line, every estimate may use every measurement: the smoother
        (:func:`~robidlib.estimation.smoother.rts_smoother`, :cite:`rauch1965`) runs back
        over the filter's estimates, predictions and Jacobians.  With zero process noise on
        the parameters the smoothed parameters equal the last filtered ones at every time
        (a constant is known equally well at every instant); with process noise they follow
        changes without the filter's lag.

        Parameters
        ----------
        t, tau, z, torque
            As in :meth:`run` (the filter continues from its current state).

        Returns
        -------
        dict of numpy.ndarray
            Everything :meth:`run` returns with ``keep_cov=True`` (the filtered estimates),
            plus the smoothed ``"x_smooth"`` (N, nx), ``"P_smooth"`` (N, nx, nx),
            ``"params_smooth"`` and ``"std_smooth"`` (N, p).

        Raises
        ------
        ValueError
            As :meth:`run`; also if a predicted covariance is singular (no process noise and
            a singular transition), where the smoother gain is undefined.

        Examples
        --------
        >>> import numpy as np
        >>> from robidlib.estimation.augmented import AugmentedStateIdentifier
        >>> Yb = lambda q, qd, qdd: np.array([[qdd[0], np.sin(q[0]), qd[0]]])
        >>> t = 0.02 * np.arange(200)
        >>> q = np.sin(t); qd = np.cos(t); qdd = -np.sin(t)
        >>> tau = (np.column_stack([qdd, np.sin(q), qd]) @ [0.5, 2.0, 0.1])[:, None]
        >>> ident = AugmentedStateIdentifier(Yb, 0.02, n=1, p=3, x0=[0.0, 1.0, 0.6, 1.8, 0.2],
        ...                                  Q=np.r_[1e-12, 1e-10, 0, 0, 0], R=[1e-6],
        ...                                  P0=np.r_[1e-6, 1e-4, 0.04, 0.25, 0.01], integrator="rk4")
        >>> out = ident.smooth(t, tau, q[:, None], torque="cubic")
        >>> bool(np.allclose(out["params_smooth"], out["params"][-1], atol=1e-9))
        True
        """
        from .smoother import rts_smoother

        t, U, z = self._check_record(t, tau, z, torque)
        if t.size < 2:
            raise ValueError("smoothing needs at least two samples")
        out = self._filter_record(t, U, z, keep_cov=True, prior=True)
        xs, Ps = rts_smoother(out["x"], out["P"], out["x_pred"], out["P_pred"], out["F"])
        n = self.n
        out.update(x_smooth=xs, P_smooth=Ps, params_smooth=xs[:, 2 * n:],
                   std_smooth=np.sqrt(np.clip(np.diagonal(Ps, axis1=1, axis2=2)[:, 2 * n:], 0.0, None)))
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
    >>> from robidlib.estimation.augmented import torque_midpoints
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
