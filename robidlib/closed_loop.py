"""Closed-loop identification experiments: a digital controller, sensors, and the robot.

A real arm is identified while a controller makes it track an excitation. The controller
reads the *measured* positions (quantised encoders with noise) at every sample, computes a
torque that it holds until the next sample (zero-order hold), and the drives report that
torque with noise of their own. The measurement noise therefore enters the motion and the
torque through the loop: the torque is correlated with the noise of the positions from
which an inverse-model fit builds its regressor (chapter 12).

Everything here works on a *linear-in-parameters model*: any object with ``n_joints`` and
``regressor(q, qd, qdd) -> (N, n, p)`` such that ``regressor(...) @ params`` are the joint
torques (e.g. :func:`robidlib.estimation.robot_base_model` with friction columns, or a
drive model reduced to its base columns). The mass matrix and the bias torques of a
parameter vector come from the same regressor (its columns at unit accelerations), so
``K`` models (``K`` parameter vectors, or ``K`` noise draws of one) are integrated together,
one batched regressor evaluation per Runge-Kutta stage. The plant is integrated by the
classical fourth-order Runge-Kutta method with ``substeps`` steps per sample: the torque is
constant over a sample interval, so the steps never straddle a jump.

* :class:`Sensors` -- encoder resolution and noise, torque noise.
* :class:`Controller`, :func:`pd_controller`, :func:`computed_torque_controller` -- PD (with
  an optional model-based feed-forward along the reference) and computed torque, with the
  velocity from the backward difference of the measured positions.
* :class:`ClosedLoopExperiment` -- model, reference, controller: what an estimator needs to
  simulate the experiment again with other parameters.
* :func:`simulate_closed_loop` -- the experiment, for one or many parameter vectors and noise
  draws; :class:`ClosedLoopRecord` holds the true states, the applied torques and the
  measurements.
* :func:`idim_data` -- the inverse-model data of a record: positions low-passed, central
  differences, the regressor stacked (GUIDE), the torques stacked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._validate import (as_array, check_choice, check_fields, check_int, check_positive, check_rng)

__all__ = [
    "Sensors",
    "Controller",
    "ClosedLoopExperiment",
    "ClosedLoopRecord",
    "pd_controller",
    "computed_torque_controller",
    "simulate_closed_loop",
    "idim_data",
    "mass_and_bias",
]

#: Largest number of Runge-Kutta steps per sample.
_MAX_SUBSTEPS = 100


def _check_model(model: Any) -> int:
    """The joint count of a linear-in-parameters model (duck-typed), checked."""
    n = getattr(model, "n_joints", None)
    if not callable(getattr(model, "regressor", None)) or not isinstance(n, (int, np.integer)) or n < 1:
        raise TypeError(
            "model must be a linear-in-parameters model with n_joints and regressor(q, qd, qdd) -> (N, n, p) "
            f"(e.g. robidlib.estimation.robot_base_model(robot, base)), got {type(model).__name__}"
        )
    return int(n)


def _fast_regressor(model: Any) -> Any:
    """``model.regressor`` itself, or, for a robot's base model (``robidlib.estimation.robot_base_model``,
    numeric route), the same numbers without its per-call checks: the simulation calls it at
    every Runge-Kutta stage on a few samples, where the checks cost more than the regressor."""
    from .params import friction_names
    from .regressor import regressor

    robot, base = getattr(model, "robot", None), getattr(model, "base", None)
    terms = tuple(getattr(model, "friction", ()) or ())
    if robot is None or base is None or getattr(model, "symbolic", None) is not None or terms:
        return model.regressor
    n = robot.n
    names = tuple(base.names)
    if names == tuple(robot.param_names):
        fric = False
    elif names == tuple(robot.param_names) + tuple(friction_names(n)):
        fric = True
    else:
        return model.regressor
    svd = base.method == "svd"
    ind = np.asarray(base.independent)
    rigid, fcols = ind[ind < 10 * n], ind[ind >= 10 * n] - 10 * n
    j = np.arange(n)

    def fast(q: np.ndarray, qd: np.ndarray, qdd: np.ndarray) -> np.ndarray:
        Y = regressor(robot, q, qd, qdd)
        if not fric and not svd:
            return Y[..., ind]
        if fric:
            F = np.zeros(Y.shape[:2] + (2 * n,))
            F[:, j, 2 * j] = qd
            F[:, j, 2 * j + 1] = np.sign(qd)
            if svd:
                return np.concatenate([Y, F], axis=-1) @ base.V1
            return np.concatenate([Y[..., rigid], F[..., fcols]], axis=-1)
        return Y @ base.V1

    return fast


def _n_params(model: Any, n: int) -> int:
    z = np.zeros((1, n))
    Y = np.asarray(model.regressor(z, z, z))
    if Y.ndim != 3 or Y.shape[:2] != (1, n):
        raise TypeError(f"model.regressor must return an array of shape (N, {n}, p) for (N, {n}) inputs, "
                        f"got {Y.shape}")
    return int(Y.shape[2])


def _per_joint(name: str, value: Any, n: int, positive: bool = False) -> np.ndarray:
    """A scalar or ``(n,)`` array of finite values >= 0 (> 0 with ``positive``), as ``(n,)``."""
    a = as_array(name, value, ndim=(0, 1))
    if a.ndim == 0:
        a = np.full(n, float(a))
    if a.shape != (n,):
        raise ValueError(f"{name} must be a scalar or have shape ({n},) (one value per joint), got {a.shape}")
    if np.any(a < 0) or (positive and np.any(a == 0)):
        raise ValueError(f"{name} must be {'> 0' if positive else '>= 0'} for every joint, got {a.tolist()}")
    return a.copy()


@dataclass(frozen=True)
class Sensors:
    """What the encoders and the drives report.

    The measured position of joint ``j`` is the true one rounded to the encoder's resolution
    plus white Gaussian noise, ``y = r_j round(q / r_j) + sigma_q,j e``; the measured torque
    is the applied one plus white noise, ``tau_m = tau + sigma_tau,j e``.

    Attributes
    ----------
    resolution : numpy.ndarray, shape (n,)
        Encoder resolution at the joint (rad or m); 0: no quantisation.
    sigma_q : numpy.ndarray, shape (n,)
        Standard deviation of the position noise (rad or m).
    sigma_tau : numpy.ndarray, shape (n,)
        Standard deviation of the torque noise (N m or N).

    Raises
    ------
    ValueError
        If a field is not a finite array of ``n`` values >= 0, or the three lengths differ.

    Examples
    --------
    >>> s = Sensors(resolution=[1e-4, 1e-4], sigma_q=[0.0, 0.0], sigma_tau=[0.1, 0.05])
    >>> s.n_joints
    2
    """

    resolution: np.ndarray
    sigma_q: np.ndarray
    sigma_tau: np.ndarray

    def __post_init__(self) -> None:
        n = check_fields(self, resolution=("n",), sigma_q=("n",), sigma_tau=("n",))["n"]
        if n == 0:
            raise ValueError("resolution must have at least one joint, got shape (0,)")
        for name in ("resolution", "sigma_q", "sigma_tau"):
            v = getattr(self, name)
            if np.any(v < 0):
                raise ValueError(f"{name} must be >= 0 for every joint, got {v.tolist()}")

    @property
    def n_joints(self) -> int:
        """Number of joints."""
        return int(self.resolution.size)

    def scaled(self, factor: float) -> "Sensors":
        """The same sensors with both noise levels multiplied by ``factor >= 0`` (resolution kept).

        Raises
        ------
        ValueError, TypeError
            If ``factor`` is not a finite real number >= 0.
        """
        f = check_positive("factor", factor, allow_zero=True)
        return Sensors(self.resolution.copy(), f * self.sigma_q, f * self.sigma_tau)


@dataclass(frozen=True)
class Controller:
    """A digital joint controller, run once per sample on the measured positions.

    With ``y`` the measured positions, ``v = (y_k - y_{k-1}) / dt`` their backward difference
    (the velocity an encoder-based drive computes), ``e = q_r - y`` and ``de = qd_r - v``:

    * ``"pd"``: ``tau = Kp e + Kd de [+ Y(q_r, qd_r, qdd_r) feedforward]``, gains in N m/rad
      and N m s/rad (N/m, N s/m for prismatic joints);
    * ``"computed_torque"``: ``tau = M(y) (qdd_r + Kp e + Kd de) + h(y, v)`` with the mass
      matrix and bias torques of the parameters ``feedforward`` (the controller's model),
      gains in 1/s^2 and 1/s.

    Attributes
    ----------
    kind : {"pd", "computed_torque"}
    kp, kd : numpy.ndarray, shape (n,)
        Gains (> 0).
    feedforward : numpy.ndarray, shape (p,), or None
        Model parameters of the controller: the feed-forward of ``"pd"`` (optional), the
        model of ``"computed_torque"`` (required).
    velocity_cutoff : float or None
        Cut-off (Hz, > 0) of a first-order low-pass applied to the backward difference, as
        drives do to keep the derivative gain from amplifying the encoder noise:
        ``v_k = a v_{k-1} + (1 - a) (y_k - y_{k-1}) / dt``, ``a = exp(-2 pi f dt)``; None:
        the raw difference.

    Raises
    ------
    ValueError, TypeError
        Unknown ``kind``, gains not positive or of different lengths, a computed-torque
        controller without ``feedforward``.

    Examples
    --------
    >>> c = Controller("pd", kp=[100.0, 50.0], kd=[10.0, 5.0])
    >>> c.n_joints, c.feedforward is None
    (2, True)
    """

    kind: str
    kp: np.ndarray
    kd: np.ndarray
    feedforward: np.ndarray | None = None
    velocity_cutoff: float | None = None

    def __post_init__(self) -> None:
        check_choice("kind", self.kind, ("pd", "computed_torque"))
        if self.velocity_cutoff is not None:
            object.__setattr__(self, "velocity_cutoff", check_positive("velocity_cutoff", self.velocity_cutoff))
        check_fields(self, kp=("n",), kd=("n",), feedforward=(None,))
        if self.feedforward is not None and self.feedforward.size == 0:
            raise ValueError("feedforward must hold the controller's model parameters (or be None), got an empty array")
        for name in ("kp", "kd"):
            v = getattr(self, name)
            if v.size == 0 or np.any(v <= 0):
                raise ValueError(f"{name} must hold gains > 0, one per joint, got {v.tolist()}")
        if self.kind == "computed_torque" and self.feedforward is None:
            raise ValueError("feedforward must give the controller's model parameters for kind 'computed_torque', "
                             "got None")

    @property
    def n_joints(self) -> int:
        """Number of joints."""
        return int(self.kp.size)


def _reference(reference: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    for attr in ("t", "q", "qd", "qdd"):
        if not hasattr(reference, attr):
            raise TypeError("reference must have t, q, qd and qdd (a robidlib.trajectories.Trajectory), got "
                            f"{type(reference).__name__}")
    t = as_array("reference.t", reference.t, ndim=1)
    if t.size < 3:
        raise ValueError(f"reference must hold at least 3 samples, got {t.size}")
    q = as_array("reference.q", reference.q, shape=(t.size, None))
    qd = as_array("reference.qd", reference.qd, shape=q.shape)
    qdd = as_array("reference.qdd", reference.qdd, shape=q.shape)
    dt = np.diff(t)
    h = float(dt.mean())
    if not h > 0 or not np.allclose(dt, h, rtol=1e-6, atol=0.0):
        raise ValueError(f"reference.t must be uniformly spaced and increasing (one sample per control period), got "
                         f"steps from {dt.min():.6g} to {dt.max():.6g} s")
    return t, q, qd, qdd, h


@dataclass(frozen=True, eq=False)
class ClosedLoopExperiment:
    """An identification experiment under feedback: what it takes to simulate it again.

    Attributes
    ----------
    model : object
        Linear-in-parameters model (``n_joints``, ``regressor(q, qd, qdd) -> (N, n, p)``).
    reference : Trajectory
        The reference the controller tracks, sampled at the controller's rate (uniform ``t``).
    controller : Controller
    substeps : int, default 1
        Runge-Kutta steps per sample (1 to 100).

    Raises
    ------
    ValueError, TypeError
        A model without a regressor, a reference that is not uniformly sampled or has another
        joint count, a controller for another joint count or whose ``feedforward`` does not
        have one entry per model parameter, ``substeps`` out of range.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.estimation import robot_base_model
    >>> from robidlib.models import planar_2r
    >>> from robidlib.trajectories import fourier_series
    >>> arm = planar_2r()
    >>> t = np.arange(0.0, 1.0, 0.005)
    >>> ref = fourier_series(t, 2 * np.pi, [[0.3], [0.2]], [[0.0], [0.1]], [0.0, 0.5])
    >>> exp = ClosedLoopExperiment(robot_base_model(arm), ref, Controller("pd", [400, 100], [40, 10]))
    >>> exp.n_samples, exp.n_params
    (200, 6)
    """

    model: Any
    reference: Any
    controller: Controller
    substeps: int = 1

    def __post_init__(self) -> None:
        n = _check_model(self.model)
        t, q, qd, qdd, h = _reference(self.reference)
        if q.shape[1] != n:
            raise ValueError(f"reference must move the model's {n} joints, got {q.shape[1]} columns")
        if not isinstance(self.controller, Controller):
            raise TypeError(f"controller must be a Controller, got {type(self.controller).__name__}")
        if self.controller.n_joints != n:
            raise ValueError(f"controller must have gains for the model's {n} joints, got {self.controller.n_joints}")
        p = _n_params(self.model, n)
        ff = self.controller.feedforward
        if ff is not None and ff.shape != (p,):
            raise ValueError(f"controller.feedforward must have {p} entries (one per model parameter), got {ff.shape}")
        object.__setattr__(self, "substeps", check_int("substeps", self.substeps, 1, _MAX_SUBSTEPS))
        object.__setattr__(self, "_ref", (t, q, qd, qdd, h))
        object.__setattr__(self, "_p", p)

    @property
    def n_joints(self) -> int:
        """Number of joints."""
        return int(self.model.n_joints)

    @property
    def n_params(self) -> int:
        """Number of model parameters ``p``."""
        return self._p

    @property
    def n_samples(self) -> int:
        """Number of samples of the record."""
        return int(self._ref[0].size)

    @property
    def dt(self) -> float:
        """Control (and sampling) period, s."""
        return self._ref[4]

    @property
    def t(self) -> np.ndarray:
        """Sample times, s."""
        return self._ref[0]


@dataclass(frozen=True)
class ClosedLoopRecord:
    """Result of :func:`simulate_closed_loop` (leading axis ``K`` dropped for one model).

    Attributes
    ----------
    t : numpy.ndarray, shape (N,)
    q, qd, qdd : numpy.ndarray, shape (K, N, n) or (N, n)
        True positions, velocities and accelerations at the samples; ``qdd`` is the
        acceleration just after the sample, under the torque applied from that sample on, so
        that ``tau = regressor(q, qd, qdd) @ params`` holds exactly.
    tau : numpy.ndarray, like ``q``
        Torques the controller applied (held over each sample interval).
    q_meas, tau_meas : numpy.ndarray, like ``q``
        What the sensors reported (equal to ``q`` and ``tau`` without sensors).
    failed : bool or numpy.ndarray of bool, shape (K,)
        Simulations that failed (``on_failure="nan"``): NaN from the failing sample on.

    Raises
    ------
    ValueError
        Arrays of inconsistent shapes, or NaN/inf outside a failed simulation.
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    q_meas: np.ndarray
    tau_meas: np.ndarray
    failed: Any = False

    def __post_init__(self) -> None:
        spec = ("N", "n") if np.ndim(self.q) == 2 else ("K", "N", "n")
        names = ("q", "qd", "qdd", "tau", "q_meas", "tau_meas")
        check_fields(self, finite=False, t=("N",), **{k: spec for k in names})
        check_fields(self, t=("N",))
        f = np.asarray(self.failed)
        if f.dtype != bool or f.shape != (() if len(spec) == 2 else (self.q.shape[0],)):
            raise ValueError(f"failed must be a bool (one record) or a bool array with one entry per simulation, got "
                             f"{f.dtype} {f.shape}")
        for k in names:
            a = getattr(self, k)
            bad = ~np.isfinite(a)
            if (bad.any() and f.ndim == 0 and not f) or (f.ndim and bad[~f].any()):
                raise ValueError(f"{k} must be finite where no simulation failed, got NaN or infinite entries")
        object.__setattr__(self, "failed", bool(f) if f.ndim == 0 else f)

    @property
    def n_draws(self) -> int:
        """Number of simulations ``K`` held (1 for a record of one)."""
        return 1 if self.q.ndim == 2 else int(self.q.shape[0])

    def draw(self, k: int) -> "ClosedLoopRecord":
        """The record of simulation ``k`` alone (arrays of shape ``(N, n)``).

        Raises
        ------
        ValueError, TypeError
            If ``k`` is not an int in ``0 .. n_draws - 1``.
        """
        k = check_int("k", k, 0, self.n_draws - 1)
        if self.q.ndim == 2:
            return self
        return ClosedLoopRecord(self.t, *(getattr(self, a)[k] for a in ("q", "qd", "qdd", "tau", "q_meas",
                                                                          "tau_meas")), failed=bool(self.failed[k]))


def mass_and_bias(model: Any, q: Any, qd: Any, params: Any) -> tuple[np.ndarray, np.ndarray]:
    """Mass matrices and bias torques of a linear-in-parameters model, one parameter vector per state.

    With ``Y`` the model's regressor: ``h = Y(q, qd, 0) p`` (gravity, Coriolis and centrifugal
    torques, friction, offsets) and column ``j`` of ``M(q)`` is ``Y(q, 0, e_j) p - Y(q, 0, 0) p``.
    One regressor call on ``K (n + 2)`` samples.

    Parameters
    ----------
    model : object
        Linear-in-parameters model (``n_joints``, ``regressor``).
    q, qd : array_like, shape (K, n)
        States.
    params : array_like, shape (K, p)
        Parameters, one vector per state.

    Returns
    -------
    M : numpy.ndarray, shape (K, n, n)
        Symmetrised mass matrices.
    h : numpy.ndarray, shape (K, n)

    Raises
    ------
    ValueError, TypeError
        Wrong shapes, NaN/inf, a model without a regressor.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.dynamics import mass_matrix
    >>> from robidlib.estimation import robot_base_model
    >>> from robidlib.models import planar_2r
    >>> arm = planar_2r()
    >>> model = robot_base_model(arm)
    >>> M, h = mass_and_bias(model, [[0.3, -0.2]], [[0.0, 0.0]], [model.params])
    >>> bool(np.allclose(M[0], mass_matrix(arm, [0.3, -0.2])))
    True
    """
    n = _check_model(model)
    q = as_array("q", q, ndim=2)
    K = q.shape[0]
    if q.shape[1] != n or K == 0:
        raise ValueError(f"q must have shape (K, {n}) with K >= 1 states, got {q.shape}")
    qd = as_array("qd", qd, ndim=2)
    if qd.shape != q.shape:
        raise ValueError(f"qd must have the shape of q, {q.shape}, got {qd.shape}")
    P = as_array("params", params, ndim=2)
    if P.shape[0] != K:
        raise ValueError(f"params must have one row per state (K = {K}), got shape {P.shape}")
    return _mass_bias(model, q, qd, P)


def _mass_bias(model: Any, q: np.ndarray, qd: np.ndarray, P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    K, n = q.shape      # model: a model, or its (fast) regressor function
    Q = np.repeat(q[:, None, :], n + 2, axis=1)
    QD = np.zeros_like(Q)
    QD[:, n + 1] = qd
    QDD = np.zeros_like(Q)
    QDD[:, 1: n + 1] = np.eye(n)
    reg = model if callable(model) else model.regressor
    Y = np.asarray(reg(Q.reshape(-1, n), QD.reshape(-1, n), QDD.reshape(-1, n)))
    if Y.shape[-1] != P.shape[1]:
        raise ValueError(f"params must have {Y.shape[-1]} entries per row (the model's parameters), got {P.shape[1]}")
    T = np.einsum("kmjp,kp->kmj", Y.reshape(K, n + 2, n, -1), P)
    g = T[:, 0]
    M = np.swapaxes(T[:, 1: n + 1] - g[:, None, :], 1, 2)
    return 0.5 * (M + np.swapaxes(M, 1, 2)), T[:, n + 1]


def _mean_mass_diagonal(model: Any, params: np.ndarray, q_ref: np.ndarray) -> np.ndarray:
    every = max(1, q_ref.shape[0] // 50)
    qs = q_ref[::every]
    M, _ = _mass_bias(model, qs, np.zeros_like(qs), np.repeat(params[None], qs.shape[0], axis=0))
    d = np.diagonal(M, axis1=1, axis2=2)
    if np.any(d <= 0):
        raise ValueError("params give a mass matrix with a diagonal entry <= 0 along the reference: not a robot")
    return d.mean(axis=0)


def pd_controller(model: Any, params: Any, reference: Any, *, bandwidth: float = 5.0, damping: float = 1.0,
                  feedforward: bool = False, velocity_cutoff: float | None = None) -> Controller:
    """A PD controller tuned to a closed-loop bandwidth on a model's mean inertias.

    Each joint is treated as a mass ``m_j`` (the mean of the diagonal entry ``M_jj`` of the
    mass matrix of ``params`` along the reference): ``Kp_j = m_j w^2``, ``Kd_j = 2 damping
    m_j w`` with ``w = 2 pi bandwidth``.

    Parameters
    ----------
    model : object
        Linear-in-parameters model (``n_joints``, ``regressor``).
    params : array_like, shape (p,)
        The controller designer's model (e.g. CAD values).
    reference : Trajectory
        The reference (for the mean inertias).
    bandwidth : float, default 5.0
        Closed-loop bandwidth, Hz (> 0).
    damping : float, default 1.0
        Damping ratio (> 0).
    feedforward : bool, default False
        Add the inverse dynamics of ``params`` along the reference to the PD torque.
    velocity_cutoff : float, optional
        See :class:`Controller`.

    Returns
    -------
    Controller

    Raises
    ------
    ValueError, TypeError
        Bad bandwidth or damping, ``params`` of the wrong length, a mass matrix with a
        non-positive diagonal, a model or reference of the wrong type.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.estimation import robot_base_model
    >>> from robidlib.models import planar_2r
    >>> from robidlib.trajectories import fourier_series
    >>> model = robot_base_model(planar_2r())
    >>> ref = fourier_series(np.arange(0.0, 1.0, 0.01), 2 * np.pi, [[0.3], [0.2]], [[0.0], [0.1]], [0.0, 0.5])
    >>> c = pd_controller(model, model.params, ref, bandwidth=5.0)
    >>> bool(np.allclose(c.kd ** 2, 4 * c.kp * c.kp / (2 * np.pi * 5.0) ** 2))   # critically damped
    True
    """
    n = _check_model(model)
    _, q_ref, _, _, _ = _reference(reference)
    if q_ref.shape[1] != n:
        raise ValueError(f"reference must move the model's {n} joints, got {q_ref.shape[1]} columns")
    p = _n_params(model, n)
    P = as_array("params", params, shape=(p,))
    w = 2.0 * np.pi * check_positive("bandwidth", bandwidth)
    zeta = check_positive("damping", damping)
    if not isinstance(feedforward, (bool, np.bool_)):
        raise TypeError(f"feedforward must be True or False, got {feedforward!r}")
    m = _mean_mass_diagonal(model, P, q_ref)
    return Controller("pd", m * w**2, 2.0 * zeta * m * w, P.copy() if feedforward else None, velocity_cutoff)


def computed_torque_controller(model: Any, params: Any, *, bandwidth: float = 5.0,
                               damping: float = 1.0, velocity_cutoff: float | None = None) -> Controller:
    """A computed-torque controller: the model ``params`` linearises, the gains set the error dynamics.

    ``e'' + Kd e' + Kp e = 0`` (when the model is exact) with ``Kp = w^2``, ``Kd = 2 damping w``,
    ``w = 2 pi bandwidth``, the same for every joint.

    Parameters
    ----------
    model : object
        Linear-in-parameters model (``n_joints``, ``regressor``).
    params : array_like, shape (p,)
        The controller's model parameters.
    bandwidth : float, default 5.0
        Hz (> 0).
    damping : float, default 1.0
        (> 0).
    velocity_cutoff : float, optional
        See :class:`Controller`.

    Returns
    -------
    Controller

    Raises
    ------
    ValueError, TypeError
        Bad values.

    Examples
    --------
    >>> from robidlib.estimation import robot_base_model
    >>> from robidlib.models import planar_2r
    >>> model = robot_base_model(planar_2r())
    >>> c = computed_torque_controller(model, model.params, bandwidth=1.0)
    >>> c.kind, round(float(c.kp[0]), 3)
    ('computed_torque', 39.478)
    """
    n = _check_model(model)
    P = as_array("params", params, shape=(_n_params(model, n),))
    w = 2.0 * np.pi * check_positive("bandwidth", bandwidth)
    zeta = check_positive("damping", damping)
    return Controller("computed_torque", np.full(n, w**2), np.full(n, 2.0 * zeta * w), P.copy(), velocity_cutoff)


def simulate_closed_loop(
    experiment: ClosedLoopExperiment,
    params: Any,
    *,
    sensors: Sensors | None = None,
    rng: np.random.Generator | int | None = None,
    on_failure: str = "raise",
) -> ClosedLoopRecord:
    """Simulate the experiment: the robot of ``params`` under the controller, with sensors.

    Every sample ``k`` the controller reads the measured positions ``y_k`` (exact without
    ``sensors``), computes the torque ``tau_k`` (:class:`Controller`), and the drives apply it
    until sample ``k + 1``; the plant ``M(q) qdd + h(q, qd) = tau`` of the parameters is
    integrated by the fourth-order Runge-Kutta method with ``experiment.substeps`` steps per
    sample. It starts on the reference (``q = q_r(0)``, ``qd = qd_r(0)``); the velocity the
    controller computes at the first sample is the reference's.

    Parameters
    ----------
    experiment : ClosedLoopExperiment
    params : array_like, shape (p,) or (K, p)
        Parameters of the simulated robot(s); ``K`` rows give ``K`` simulations, integrated
        together (with ``sensors``, each with its own noise draw).
    sensors : Sensors, optional
        Encoders and torque noise; default none (exact measurements).
    rng : numpy.random.Generator or int, or a list of K of them, optional
        Source of the noise; required with ``sensors`` whose noise is not zero. A list gives
        each simulation its own generator, so that a draw can be recomputed alone.
    on_failure : {"raise", "nan"}, default "raise"
        A parameter vector whose mass matrix is not positive definite somewhere along its
        motion (not a robot), or whose motion blows up: raise, or fill that simulation's
        arrays with NaN from the failing sample on and go on with the others
        (``ClosedLoopRecord.failed``).

    Returns
    -------
    ClosedLoopRecord

    Raises
    ------
    ValueError
        ``params`` of the wrong length or not finite, sensors for another joint count, noise
        without ``rng``, a mass matrix that is not positive definite (the message names the
        model and the sample), or a motion that blows up.
    TypeError
        If ``experiment`` or ``sensors`` has the wrong type, or ``rng`` is not a Generator or an int.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.estimation import robot_base_model
    >>> from robidlib.models import planar_2r
    >>> from robidlib.trajectories import fourier_series
    >>> model = robot_base_model(planar_2r(friction=[[0.3, 0.2], [0.1, 0.1]]), friction=["viscous", "coulomb"])
    >>> ref = fourier_series(np.arange(0.0, 2.0, 0.005), np.pi, [[0.3], [0.2]], [[0.0], [0.1]], [0.0, 0.5])
    >>> exp = ClosedLoopExperiment(model, ref, pd_controller(model, model.params, ref, bandwidth=8.0))
    >>> rec = simulate_closed_loop(exp, model.params)
    >>> tau = np.einsum("njp,p->nj", model.regressor(rec.q, rec.qd, rec.qdd), model.params)
    >>> bool(np.allclose(tau, rec.tau)), bool(np.abs(rec.q - ref.q).max() < 0.05)
    (True, True)
    """
    if not isinstance(experiment, ClosedLoopExperiment):
        raise TypeError(f"experiment must be a ClosedLoopExperiment, got {type(experiment).__name__}")
    check_choice("on_failure", on_failure, ("raise", "nan"))
    p, n = experiment.n_params, experiment.n_joints
    P = as_array("params", params, ndim=(1, 2))
    single = P.ndim == 1
    P2 = P[None] if single else P
    if P2.shape[1] != p or P2.shape[0] == 0:
        raise ValueError(f"params must have shape ({p},) or (K, {p}) (the model's parameters), got {P.shape}")
    t, q_r, qd_r, qdd_r, dt = experiment._ref
    N, K = t.size, P2.shape[0]
    noise_q = noise_tau = None
    res = np.zeros(n)
    if sensors is not None:
        if not isinstance(sensors, Sensors):
            raise TypeError(f"sensors must be a Sensors, got {type(sensors).__name__}")
        if sensors.n_joints != n:
            raise ValueError(f"sensors must describe the model's {n} joints, got {sensors.n_joints}")
        res = sensors.resolution
        if np.any(sensors.sigma_q > 0) or np.any(sensors.sigma_tau > 0):
            if rng is None:
                raise ValueError("rng must be given (an int seed or a numpy Generator) when the sensors are noisy, "
                                 "got None")
            if isinstance(rng, (list, tuple)):
                if len(rng) != K:
                    raise ValueError(f"rng must be one seed or generator, or a list of {K} (one per simulation), "
                                     f"got a list of {len(rng)}")
                gens = [check_rng(g) for g in rng]
                z = np.stack([np.stack([g.standard_normal((N, n)), g.standard_normal((N, n))]) for g in gens], axis=1)
            else:
                z = check_rng(rng).standard_normal((2, K, N, n))
            noise_q = sensors.sigma_q * z[0]
            noise_tau = sensors.sigma_tau * z[1]
    elif rng is not None and not isinstance(rng, (list, tuple)):
        check_rng(rng)
    ctrl = experiment.controller
    model = _fast_regressor(experiment.model)
    ff = ctrl.feedforward
    tau_ff = None
    if ctrl.kind == "pd" and ff is not None:
        tau_ff = np.asarray(experiment.model.regressor(q_r, qd_r, qdd_r)) @ ff
    ff_rows = None if ff is None else np.repeat(ff[None], K, axis=0)
    quantised = res > 0
    safe_res = np.where(quantised, res, 1.0)

    def measure(q: np.ndarray, k: int) -> np.ndarray:
        y = np.where(quantised, safe_res * np.round(q / safe_res), q)
        return y if noise_q is None else y + noise_q[:, k]

    alive = np.ones(K, dtype=bool)
    died = np.full(K, N)

    def accel(q: np.ndarray, qd: np.ndarray, u: np.ndarray, k: int) -> np.ndarray:
        with np.errstate(over="ignore", invalid="ignore"):
            q = np.where(alive[:, None], q, q_r[k])
            qd = np.where(alive[:, None], qd, qd_r[k])
            M, h = _mass_bias(model, q, qd, P2)
            M[~alive] = np.eye(n)
            ok = np.all(np.isfinite(M), axis=(1, 2)) & np.all(np.isfinite(h), axis=1) & np.all(np.isfinite(u), axis=1)
            M[~ok] = np.eye(n)
            try:
                L = np.linalg.cholesky(M)
            except np.linalg.LinAlgError:
                pd_ = np.array([np.all(np.linalg.eigvalsh(M[i]) > 0) for i in range(K)])
                ok &= pd_
                M[~pd_] = np.eye(n)
                L = np.linalg.cholesky(M)
            bad = alive & ~ok
            if np.any(bad):
                if on_failure == "raise":
                    raise ValueError(
                        f"params row(s) {np.flatnonzero(bad)[:10].tolist()} give a mass matrix that is not positive "
                        f"definite (or a motion that blows up) at t = {t[k]:.4g} s: not a robot that can be "
                        "simulated (make the parameters physically consistent)")
                alive[bad] = False
                died[bad] = k
            rhs = np.where(alive[:, None], u - h, 0.0)[..., None]
            z = np.linalg.solve(L, rhs)
            a = np.linalg.solve(np.swapaxes(L, 1, 2), z)[..., 0]
        fine = np.all(np.isfinite(a), axis=1)
        if not np.all(fine | ~alive):
            blown = alive & ~fine
            if on_failure == "raise":
                raise ValueError(f"the simulation of params row(s) {np.flatnonzero(blown)[:10].tolist()} blew up near "
                                 f"t = {t[k]:.4g} s (non-finite accelerations): a loop too stiff for the step (raise "
                                 "substeps or lower the gains) or unphysical params")
            alive[blown] = False
            died[blown] = k
        return np.where(alive[:, None], a, 0.0)

    Q, QD, QDD, TAU, Y = (np.empty((K, N, n)) for _ in range(5))
    q = np.repeat(q_r[:1], K, axis=0)
    qd = np.repeat(qd_r[:1], K, axis=0)
    y_prev = v = None
    hstep = dt / experiment.substeps
    a_v = 0.0 if ctrl.velocity_cutoff is None else float(np.exp(-2.0 * np.pi * ctrl.velocity_cutoff * dt))
    for k in range(N):
        y = measure(q, k)
        if y_prev is None:
            v = np.repeat(qd_r[k:k + 1], K, axis=0)
        else:
            v = a_v * v + (1.0 - a_v) * (y - y_prev) / dt
        y_prev = y
        e, de = q_r[k] - y, qd_r[k] - v
        if ctrl.kind == "pd":
            u = ctrl.kp * e + ctrl.kd * de
            if tau_ff is not None:
                u = u + tau_ff[k]
        else:
            Mc, hc = _mass_bias(model, y, v, ff_rows)
            u = np.einsum("kij,kj->ki", Mc, qdd_r[k] + ctrl.kp * e + ctrl.kd * de) + hc
        Q[:, k], QD[:, k], TAU[:, k], Y[:, k] = q, qd, u, y
        a1 = None
        if k == N - 1:
            QDD[:, k] = accel(q, qd, u, k)
            break
        for s in range(experiment.substeps):
            k1 = accel(q, qd, u, k)
            if a1 is None:
                a1 = k1
            q2, qd2 = q + 0.5 * hstep * qd, qd + 0.5 * hstep * k1
            k2 = accel(q2, qd2, u, k)
            q3, qd3 = q + 0.5 * hstep * qd2, qd + 0.5 * hstep * k2
            k3 = accel(q3, qd3, u, k)
            q4, qd4 = q + hstep * qd3, qd + hstep * k3
            k4 = accel(q4, qd4, u, k)
            q = q + (hstep / 6.0) * (qd + 2 * qd2 + 2 * qd3 + qd4)
            qd = qd + (hstep / 6.0) * (k1 + 2 * k2 + 2 * k3 + k4)
        QDD[:, k] = a1
    TM = TAU if noise_tau is None else TAU + noise_tau
    for i in np.flatnonzero(~alive):                     # a failed simulation has no motion from then on
        for a in (Q, QD, QDD, TAU, Y, TM):
            a[i, died[i]:] = np.nan
    out = (Q, QD, QDD, TAU, Y, TM)
    if single:
        out = tuple(a[0] for a in out)
    failed = ~alive
    return ClosedLoopRecord(t.copy(), *out[:4], q_meas=out[4], tau_meas=out[5],
                            failed=bool(failed[0]) if single else failed)


def idim_data(
    model: Any,
    record: ClosedLoopRecord,
    *,
    cutoff: float,
    velocity_threshold: Any = 0.0,
    trim: int | None = None,
    order: int = 4,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The inverse-model (IDIM) data of one record: ``W`` from the measured positions, ``y`` the measured torques.

    The positions are low-passed (zero-phase Butterworth of ``order`` at ``cutoff``,
    :func:`robidlib.signals.lowpass`) and differentiated twice by central differences
    (:func:`robidlib.signals.differentiate`); the regressor is evaluated on them and stacked
    sample-major with the measured torques (GUIDE). ``trim`` samples are dropped at both ends,
    where the filter and the differences have no neighbours, and the equation of joint ``j``
    at a sample is dropped where its filtered speed is below ``velocity_threshold[j]``: near a
    reversal the Coulomb term ``fc sign(qd)`` switches within a sample period and no
    regressor built from sampled signals describes it (chapter 11 does the same).

    Parameters
    ----------
    model : object
        Linear-in-parameters model (``n_joints``, ``regressor``).
    record : ClosedLoopRecord
        One record (``q_meas`` of shape ``(N, n)``; see :meth:`ClosedLoopRecord.draw`).
    cutoff : float
        Low-pass cut-off, Hz (> 0, below the Nyquist frequency).
    velocity_threshold : float or array_like, shape (n,), default 0
        Speed below which a joint's equation is dropped (rad/s or m/s, >= 0).
    trim : int, optional
        Samples dropped at each end; default a tenth of a second (at least 2).
    order : int, default 4
        Butterworth order (1 to 20).

    Returns
    -------
    W : numpy.ndarray, shape (R, p)
        The kept equations' regressor rows, sample-major.
    y : numpy.ndarray, shape (R,)
        The measured torques of the same equations.
    samples : numpy.ndarray of int, shape (S,)
        The record's samples after trimming.
    keep : numpy.ndarray of bool, shape (S, n)
        Which equations were kept (``R = keep.sum()``); pass ``samples`` and ``keep`` to the
        estimators of :mod:`robidlib.estimation.closed_loop`.

    Raises
    ------
    ValueError, TypeError
        A record of many draws, a bad cut-off or threshold, ``trim`` leaving no sample, a
        model of another joint count.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.estimation import ols, robot_base_model
    >>> from robidlib.models import planar_2r
    >>> from robidlib.trajectories import fourier_series
    >>> model = robot_base_model(planar_2r())
    >>> ref = fourier_series(np.arange(0.0, 2.0, 0.005), np.pi, [[0.3], [0.2]], [[0.0], [0.1]], [0.0, 0.5])
    >>> exp = ClosedLoopExperiment(model, ref, pd_controller(model, model.params, ref, bandwidth=8.0))
    >>> W, y, samples, keep = idim_data(model, simulate_closed_loop(exp, model.params), cutoff=20.0)
    >>> W.shape, samples[:2].tolist(), bool(keep.all())       # 20 samples trimmed at each end
    ((720, 6), [20, 21], True)
    """
    from .signals import differentiate, lowpass

    n = _check_model(model)
    if not isinstance(record, ClosedLoopRecord):
        raise TypeError(f"record must be a ClosedLoopRecord, got {type(record).__name__}")
    if record.q.ndim != 2:
        raise ValueError(f"record must hold one draw (arrays of shape (N, n)), got shape {record.q.shape}; "
                         "take one with record.draw(k)")
    if record.q.shape[1] != n:
        raise ValueError(f"record must have the model's {n} joints, got {record.q.shape[1]}")
    if record.failed:
        raise ValueError("record must come from a simulation that did not fail (record.failed is True)")
    N = record.t.size
    dt = float(np.mean(np.diff(record.t)))
    fc = check_positive("cutoff", cutoff)
    if fc >= 0.5 / dt:
        raise ValueError(f"cutoff must be below the Nyquist frequency {0.5 / dt:g} Hz, got {fc:g}")
    thr = _per_joint("velocity_threshold", velocity_threshold, n)
    trim = max(2, int(round(0.1 / dt))) if trim is None else check_int("trim", trim, 1)
    if N - 2 * trim < 1:
        raise ValueError(f"trim must leave samples: {N} samples, trim {trim} at each end")
    order = check_int("order", order, 1, 20)
    qf = lowpass(record.q_meas, fc, 1.0 / dt, order=order)
    qd = differentiate(qf, dt)
    qdd = differentiate(qd, dt)
    idx = np.arange(trim, N - trim)
    keep = np.abs(qd[idx]) > thr
    if keep.sum() <= _n_params(model, n):
        raise ValueError(f"velocity_threshold must leave more equations than parameters, got {int(keep.sum())} "
                         "kept equations")
    Yr = np.asarray(model.regressor(qf[idx], qd[idx], qdd[idx]))
    return Yr[keep], record.tau_meas[idx][keep], idx, keep
