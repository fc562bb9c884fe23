"""Symbolic regressors (sympy): derived from the Lagrangian, compiled, differentiated exactly.

:func:`symbolic_regressor` derives the regressor of the standard parameters of a small
serial robot with sympy; :class:`SymbolicModel` compiles any regressor given as a sympy
matrix for fast numeric evaluation, together with its exact derivatives, which give
:class:`~robidlib.estimation.augmented.AugmentedStateIdentifier` an analytic Jacobian.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .._validate import as_array, check_names

__all__ = ["SymbolicModel", "symbolic_regressor"]


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
    >>> from robidlib.estimation.symbolic import symbolic_regressor
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
    With them :class:`~robidlib.estimation.augmented.AugmentedStateIdentifier` builds the *analytic* Jacobian of the
    augmented dynamics (see :meth:`~robidlib.estimation.augmented.AugmentedStateIdentifier.dynamics_jacobian`).
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
    >>> from robidlib.estimation.symbolic import SymbolicModel
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
            try:
                syms = tuple(syms)
            except TypeError:
                raise TypeError(f"{label} must be a sequence of sympy Symbols, got {type(syms).__name__}") from None
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
        names = check_names("names", names, p)
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
        except (ValueError, OverflowError, ZeroDivisionError):   # inf, or a pole of Y
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
            raise ValueError(
                "the symbolic regressor returned non-finite values: q, qd, qdd are at a pole of Y (a "
                "division by zero) or so large that it overflows"
            )
        return out[0] if single else out

    def affine_terms(self, q: Any, qd: Any) -> tuple[np.ndarray, ...]:
        """The regressor split as ``Y(q, qd, qdd) = Yh(q, qd) + sum_j qdd_j D_j(q)``, with derivatives.

        Everything :class:`~robidlib.estimation.augmented.AugmentedStateIdentifier` needs for
        the dynamics and its analytic Jacobian at one state, from one compiled call: ``M(q) = [D_1 beta, ..., D_n beta]``,
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
        fast = lambda a: type(a) is np.ndarray and a.dtype == np.float64  # noqa: E731 - checked below
        q = q if fast(q) else as_array("q", q, shape=(n,))
        qd = qd if fast(qd) else as_array("qd", qd, shape=(n,))
        if q.shape != (n,) or qd.shape != (n,):
            q, qd = as_array("q", q, shape=(n,)), as_array("qd", qd, shape=(n,))
        try:
            flat = np.array(self._f_terms(*q.tolist(), *qd.tolist()), dtype=float)
        except (ValueError, OverflowError, ZeroDivisionError):   # inf, or a pole of Y
            flat = np.array([np.nan])
        if not np.isfinite(flat.sum()):                        # one reduction: cheap when all is well
            as_array("q", q), as_array("qd", qd)               # names a non-finite input
            raise ValueError(
                "the symbolic regressor terms are not finite at this state: q, qd are at a pole of Y "
                "(a division by zero) or so large that it overflows"
            )
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
                raise ValueError(
                    "the derivatives of the symbolic regressor are not finite at this state: q, qd, qdd are "
                    "at a pole of Y (a division by zero) or so large that it overflows"
                )
        return np.moveaxis(D[0], 0, -1), np.moveaxis(D[1], 0, -1)

    def __repr__(self) -> str:
        return f"SymbolicModel(n_joints={self.n_joints}, n_params={self.n_params})"
