"""The base-parameter model of a serial robot, ready for the augmented-state identifier.

:func:`robot_base_model` wires a :class:`~robidlib.robot.SerialRobot` and its base
parameters into a model ``tau = Yb(q, qd, qdd) beta`` with the interface that
:class:`~robidlib.estimation.augmented.AugmentedStateIdentifier` expects (numeric route:
the standard regressor reduced to the base columns; symbolic route: a compiled
:class:`~robidlib.estimation.symbolic.SymbolicModel` with exact derivatives).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .symbolic import SymbolicModel, _is_robot, _same_batch, symbolic_regressor

__all__ = ["FiniteDifferenceModel", "RobotBaseModel", "SymbolicRobotBaseModel", "robot_base_model",
           "with_finite_differences"]


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
        from ..base import BaseParameters, check_base_of
        from ..params import _check_terms, friction_names

        if not _is_robot(robot):
            raise TypeError(f"robot must be a SerialRobot, got {type(robot).__name__}")
        if not isinstance(base, BaseParameters):
            raise TypeError(f"base must be a BaseParameters, got {type(base).__name__}")
        if isinstance(friction, str):
            raise TypeError(f"friction must be a sequence of terms such as ('viscous',), got the string {friction!r}")
        friction = tuple(friction) and _check_terms(friction, False)
        if not isinstance(base_has_friction, (bool, np.bool_)):
            raise TypeError(f"base_has_friction must be True or False, got {base_has_friction!r}")
        check_base_of(robot, base, "base", friction=bool(base_has_friction))
        if symbolic is not None and not isinstance(symbolic, SymbolicModel):
            raise TypeError(f"symbolic must be a SymbolicModel or None, got {type(symbolic).__name__}")
        self.robot, self.base, self.friction = robot, base, tuple(friction)
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
        """See :meth:`~robidlib.estimation.symbolic.SymbolicModel.affine_terms`."""
        return self.symbolic.affine_terms(q, qd)

    @property
    def has_affine_terms(self) -> bool:
        """See :class:`~robidlib.estimation.symbolic.SymbolicModel`."""
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
    """Wire a serial robot and its base parameters into a model for the augmented-state EKF.

    The result is the ``model`` that
    :class:`~robidlib.estimation.augmented.AugmentedStateIdentifier` takes.  It exposes ``regressor(q, qd, qdd) -> (n, p)``, ``n_joints``, ``n_params``,
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
    >>> from robidlib.estimation.base_model import robot_base_model
    >>> arm = SerialRobot.from_dh("RR", a=[0, 0.5], alpha=[0, 0], d=[0, 0], mass=[1.0, 0.7],
    ...                           com=[[0.25, 0, 0], [0.2, 0, 0]], gravity=[0, -9.81, 0])
    >>> model = robot_base_model(arm, friction=["viscous"])
    >>> model.param_names
    ('mx1R', 'my1', 'Izz1R', 'mx2', 'my2', 'Izz2', 'fv1', 'fv2')
    >>> model.regressor(np.zeros(2), np.zeros(2), np.zeros(2)).shape
    (2, 8)
    """
    from .._validate import check_same_robot
    from ..base import BaseParameters, base_parameters
    from ..params import _check_terms, friction_names

    if not _is_robot(robot):
        raise TypeError(f"robot must be a SerialRobot, got {type(robot).__name__}")
    if base is None:
        base = base_parameters(robot)
    if not isinstance(base, BaseParameters):
        raise TypeError(f"base must be a BaseParameters (from base_parameters(robot)), got {type(base).__name__}")
    if isinstance(friction, str):
        raise TypeError(f"friction must be a sequence of terms such as ['viscous'], got the string {friction!r}")
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
    check_same_robot("base", base, robot)
    if not isinstance(symbolic, (bool, np.bool_)):
        raise TypeError(f"symbolic must be True or False, got {symbolic!r}")
    if not isinstance(simplify, (bool, np.bool_)):
        raise TypeError(f"simplify must be True or False, got {simplify!r}")
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
        Yb = Y * sp.Matrix(base.V1.tolist())            # Python floats for sympy
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


# ---------------------------------------------------------------------- finite-difference terms
class FiniteDifferenceModel:
    """A batched regressor model with the derivatives the EKF needs, by central differences.

    Built by :func:`with_finite_differences`; see there.  It forwards ``regressor``,
    ``n_joints``, ``n_params``, ``param_names`` and ``params`` of the wrapped model and adds
    :meth:`affine_terms` and :meth:`regressor_derivatives`, so that
    :class:`~robidlib.estimation.augmented.AugmentedStateIdentifier` takes its fast path
    (one batched regressor call per dynamics evaluation instead of one call per sample and
    a central-difference Jacobian of the whole step).
    """

    def __init__(self, model: Any, step: float) -> None:
        from .._validate import check_tolerance

        if not callable(getattr(model, "regressor", None)):
            raise TypeError(f"model must have a batched regressor(q, qd, qdd) method, got {type(model).__name__}")
        for attr in ("n_joints", "n_params"):
            v = getattr(model, attr, None)
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"model.{attr} must be a positive integer, got {v!r}")
        self.model = model
        self.step = check_tolerance("step", step)
        self.n_joints = int(model.n_joints)
        self.n_params = int(model.n_params)
        self.param_names = tuple(getattr(model, "param_names", tuple(f"b{i + 1}" for i in range(self.n_params))))
        if hasattr(model, "params"):
            self.params = np.asarray(model.params, dtype=float)
        self.has_affine_terms = True

    def regressor(self, q: Any, qd: Any, qdd: Any) -> np.ndarray:
        """The wrapped model's regressor (``(n, p)`` for one sample, ``(N, n, p)`` for a batch)."""
        return self.model.regressor(q, qd, qdd)

    def affine_terms(self, q: Any, qd: Any) -> tuple[np.ndarray, ...]:
        """``Y = Yh(q, qd) + sum_j qdd_j D_j(q)`` and the derivatives of the pieces.

        The same output as :meth:`robidlib.estimation.symbolic.SymbolicModel.affine_terms`,
        from one batched call of the regressor on ``(2n + 1)(n + 2) + 2n`` samples: at ``q``
        and at ``q +- h_i e_i`` the samples ``(q', 0, 0)``, ``(q', 0, e_j)`` and
        ``(q', qd, 0)``; at ``q`` also ``(q, qd +- h_i e_i, 0)``.  ``D_j`` is exact (the
        regressor is affine in ``qdd``); the derivatives are central differences with
        ``h_i = step * (1 + |x_i|)`` (error ``O(h^2)``).

        Raises
        ------
        ValueError
            On wrong shapes or NaN/inf.
        """
        from .._validate import as_array

        n, p = self.n_joints, self.n_params
        q = as_array("q", q, shape=(n,))
        qd = as_array("qd", qd, shape=(n,))
        hq = self.step * (1.0 + np.abs(q))
        hv = self.step * (1.0 + np.abs(qd))
        E = np.eye(n)
        qs = np.concatenate([q[None], q + hq[:, None] * E, q - hq[:, None] * E])       # (G, n)
        G = qs.shape[0]
        Qp = np.repeat(qs[:, None], n + 2, axis=1)                                     # (G, n + 2, n)
        QDp = np.zeros_like(Qp)
        QDp[:, n + 1] = qd
        QDDp = np.zeros_like(Qp)
        QDDp[:, 1:n + 1] = E
        Qa = np.concatenate([Qp.reshape(-1, n), np.repeat(q[None], 2 * n, axis=0)])
        QDa = np.concatenate([QDp.reshape(-1, n), qd + hv[:, None] * E, qd - hv[:, None] * E])
        QDDa = np.concatenate([QDDp.reshape(-1, n), np.zeros((2 * n, n))])
        Y = np.asarray(self.model.regressor(Qa, QDa, QDDa), dtype=float)
        if Y.shape != (Qa.shape[0], n, p):
            raise ValueError(f"the batched regressor returned shape {Y.shape}, expected {(Qa.shape[0], n, p)}")
        Yg = Y[: G * (n + 2)].reshape(G, n + 2, n, p)
        Yv = Y[G * (n + 2):]
        Dg = Yg[:, 1:n + 1] - Yg[:, :1]                          # (G, j, n, p): D_j at each q'
        Yhg = Yg[:, n + 1]                                       # (G, n, p)
        two_h = (2.0 * hq)[:, None, None]
        dYh_dq = (Yhg[1:n + 1] - Yhg[n + 1:]) / two_h
        dD_dq = (Dg[1:n + 1] - Dg[n + 1:]) / two_h[..., None]
        dYh_dqd = (Yv[:n] - Yv[n:]) / (2.0 * hv)[:, None, None]
        return Yhg[0], Dg[0], dYh_dq, dD_dq, dYh_dqd

    def regressor_derivatives(self, q: Any, qd: Any, qdd: Any) -> tuple[np.ndarray, np.ndarray]:
        """``dY/dq`` and ``dY/dqd`` of one sample, each ``(n, p, n)`` (last axis: the joint).

        Raises
        ------
        ValueError
            On wrong shapes or NaN/inf.
        """
        from .._validate import as_array

        qdd = as_array("qdd", qdd, shape=(self.n_joints,))
        _, _, dYh_dq, dD_dq, dYh_dqd = self.affine_terms(q, qd)
        dq = dYh_dq + np.einsum("j,ijrc->irc", qdd, dD_dq)
        return np.moveaxis(dq, 0, -1), np.moveaxis(dYh_dqd, 0, -1)

    def __repr__(self) -> str:
        return f"FiniteDifferenceModel({self.model!r}, step={self.step:g})"


def with_finite_differences(model: Any, step: float | None = None) -> FiniteDifferenceModel:
    """Give a batched regressor model the derivatives that make the augmented EKF fast.

    :class:`~robidlib.estimation.augmented.AugmentedStateIdentifier` linearises the step
    either analytically (from the model's ``affine_terms`` / ``regressor_derivatives``, as a
    :class:`~robidlib.estimation.symbolic.SymbolicModel` provides) or by central
    differences of the whole step, ``2 nx + 1`` steps per Jacobian.  For a robot too large
    for the symbolic derivation (the 5-DOF arm: ``nx = 30``), this wrapper computes the
    pieces of the regressor and their derivatives with respect to ``q`` and ``qd`` by
    central differences in **one batched regressor call**; the identifier then chains them
    exactly through the implicit-function theorem and the integrator stages.

    Parameters
    ----------
    model : object
        A model with a batched ``regressor(q, qd, qdd)`` (``(N, n)`` inputs give
        ``(N, n, p)``), integer ``n_joints`` and ``n_params`` (e.g. the result of
        :func:`robot_base_model`).  Its velocity dependence must be smooth: viscous friction
        is fine, Coulomb friction (``sign(qd)``) is not.
    step : float, optional
        Relative step of the differences (default ``eps^(1/3) ~ 6e-6``).

    Returns
    -------
    FiniteDifferenceModel

    Raises
    ------
    TypeError
        If ``model`` has no callable ``regressor``.
    ValueError
        If ``n_joints`` / ``n_params`` are not positive integers or ``step`` is not positive.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.models import planar_2r
    >>> from robidlib.estimation.base_model import robot_base_model, with_finite_differences
    >>> arm = planar_2r()
    >>> exact = robot_base_model(arm, symbolic=True)
    >>> fd = with_finite_differences(robot_base_model(arm))
    >>> q, qd, qdd = np.array([0.3, -0.7]), np.array([1.0, 0.5]), np.array([-2.0, 1.0])
    >>> all(np.allclose(a, b, atol=1e-8) for a, b in zip(fd.regressor_derivatives(q, qd, qdd),
    ...                                                 exact.regressor_derivatives(q, qd, qdd)))
    True
    """
    h = float(np.cbrt(np.finfo(float).eps)) if step is None else step
    return FiniteDifferenceModel(model, h)
