"""Physically consistent least squares without constraints: the log-Cholesky parametrisation.

Each link's ten standard parameters are written as a function of ten unconstrained numbers,
``pi_j = log_cholesky_to_params(theta_j)`` (:func:`robidlib.params.log_cholesky_to_params`,
Rucker and Wensing :cite:`rucker2022`), so that every ``theta`` is a body with a positive
definite pseudo-inertia; friction coefficients are squares, ``f = phi^2 >= 0``. The fit

    minimise  ||W x(theta, phi) - y||^2 / ||y||^2  +  reg ||(x - prior) / s||^2 / p

is then an *unconstrained* nonlinear least-squares problem, solved here by
``scipy.optimize.least_squares`` from the prior, with its variables scaled by the columns of the
Jacobian (``x_scale="jac"``): a boundary body pulls some ``theta`` towards infinity, where the
map is flat, and with unit scaling the trust region crawls there. It is the alternative to the semidefinite
program of :func:`~robidlib.estimation.physical_ls`: no convex solver, smooth, but not convex
either (local minima, starts matter), and a body on the boundary of the consistent set (a
rod, a plate, a point mass, where ``J`` is singular) is only reached as ``theta -> inf``.
"""

from __future__ import annotations

import time
from typing import Any, Literal, Sequence

import numpy as np
import scipy.optimize

from .._validate import as_array, check_choice, check_int, check_nonnegative, check_tolerance
from ._estimate import Estimate

__all__ = ["log_cholesky_ls"]


def log_cholesky_ls(
    W: np.ndarray,
    y: np.ndarray,
    robot: Any,
    *,
    prior: np.ndarray | Sequence[float],
    friction: bool = True,
    reg: float = 1e-6,
    start: np.ndarray | Sequence[float] | None = None,
    max_nfev: int = 200,
    ftol: float = 1e-10,
    x_scale: Literal["jac", "unit"] = "jac",
) -> Estimate:
    """Least squares over physically consistent bodies through their log-Cholesky parameters.

    Parameters
    ----------
    W : array_like, shape (r, 10 n [+ 2 n])
        Stacked regressor of the standard parameters (with the viscous and Coulomb friction
        columns ``fv1, fc1, ...`` after them when ``friction``).
    y : array_like, shape (r,)
        Stacked torques.
    robot : SerialRobot
        For ``n`` and the parameter names.
    prior : array_like, shape (10 n [+ 2 n],)
        Prior standard parameters (e.g. CAD values), every link with a positive definite
        pseudo-inertia: the start of the optimisation (unless ``start``) and the target of the
        regularisation. Its scales ``s`` (per link: the mass ``M``, ``M L`` for the first moments,
        ``M L^2`` for the inertias with ``L^2 = tr(I_O) / (2 M)``; per friction column the
        coefficient that alone would explain ``y``) make ``reg`` dimensionless.
    friction : bool, default True
        Whether ``W`` holds the friction columns.
    reg : float, default 1e-6
        Weight of the regularisation (>= 0): picks among the standard sets the data cannot
        tell apart. Unlike ``physical_ls``'s default (the null space of ``W`` only), it pulls
        every parameter towards the prior, so the identifiable combinations move by a relative
        amount of the order of ``reg`` too; ``reg=0`` leaves them to the data.
    start : array_like, shape like ``prior``, optional
        Another start (standard parameters, every link strictly consistent).
    max_nfev : int, default 200
        Budget of ``least_squares`` (1 to 100000).
    ftol : float, default 1e-10
        Tolerance on the relative change of the cost.
    x_scale : {"jac", "unit"}, default "jac"
        Scaling of the variables ``(theta, phi)`` in ``least_squares``'s trust region:
        ``"jac"`` rescales each by the inverse norm of its Jacobian column, updated at every
        iteration (``least_squares(x_scale="jac")``); ``"unit"`` uses no scaling
        (``x_scale=1``, scipy's default for its ``"trf"`` method). Where the optimum has a body
        on the boundary of the consistent set, the map flattens as ``theta`` grows and the
        unit-scaled trust region stalls well above the optimum; ``"jac"`` follows it.

    Returns
    -------
    Estimate
        ``method="log-cholesky"``; the standard parameters of the solution (every link
        strictly consistent by construction); no covariance (NaN). ``info``: ``"theta"``
        (``(n, 10)``), ``"nfev"``, ``"status"``, ``"success"``, ``"message"``, ``"cost"``
        (the objective above), ``"residual_norm"`` (``||W x - y||``), ``"cpu_seconds"``.

    Raises
    ------
    ValueError
        Shapes that do not match, NaN/inf, a prior or start with a link whose pseudo-inertia
        is not positive definite, bad ``reg``/``max_nfev``/``ftol``, an unknown ``x_scale``.
    TypeError
        If ``robot`` is not a SerialRobot.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.base import random_states
    >>> from robidlib.models import planar_2r
    >>> from robidlib.regressor import regressor
    >>> arm = planar_2r()
    >>> q, qd, qdd = random_states(arm, 200, rng=0)
    >>> W = regressor(arm, q, qd, qdd).reshape(-1, 20)
    >>> y = W @ arm.params
    >>> est = log_cholesky_ls(W, y, arm, prior=1.3 * arm.params, friction=False)
    >>> r_prior = np.linalg.norm(W @ (1.3 * arm.params) - y)
    >>> bool(np.linalg.norm(W @ est.params - y) < 0.1 * r_prior)   # where it stops depends on the path
    True
    """
    from ..params import friction_names, log_cholesky_to_params, params_to_log_cholesky
    from ..robot import SerialRobot

    if not isinstance(robot, SerialRobot):
        raise TypeError(f"robot must be a SerialRobot, got {type(robot).__name__}")
    if not isinstance(friction, (bool, np.bool_)):
        raise TypeError(f"friction must be True or False, got {friction!r}")
    n = robot.n
    p = 10 * n + (2 * n if friction else 0)
    W = as_array("W", W, ndim=2)
    if W.shape[1] != p or W.shape[0] == 0:
        raise ValueError(f"W must have shape (r, {p}) ({10 * n} standard parameters"
                         f"{' + ' + str(2 * n) + ' friction' if friction else ''}), got {W.shape}")
    y = as_array("y", y, shape=(W.shape[0],))
    ny = float(np.linalg.norm(y))
    if ny == 0:
        raise ValueError("y must not be all zeros (the fit is relative to its norm)")
    prior = as_array("prior", prior, shape=(p,))
    reg = check_nonnegative("reg", reg)
    max_nfev = check_int("max_nfev", max_nfev, 1, 100000)
    ftol = check_tolerance("ftol", ftol)
    scale = {"jac": "jac", "unit": 1.0}[check_choice("x_scale", x_scale, ("jac", "unit"))]
    x0 = prior if start is None else as_array("start", start, shape=(p,))
    names = tuple(robot.param_names) + (tuple(friction_names(n)) if friction else ())
    links = prior[: 10 * n].reshape(n, 10)
    try:
        theta0 = params_to_log_cholesky(x0[: 10 * n].reshape(n, 10))
        params_to_log_cholesky(links)
    except ValueError as exc:
        which = "start" if start is not None else "prior"
        raise ValueError(f"{which} must give every link a positive definite pseudo-inertia ({exc})") from None
    # scales of the regulariser (as physical_ls's)
    M = links[:, 0]
    L2 = links[:, 4:7].sum(axis=1) / (2 * M)
    s = np.concatenate([np.r_[[m], [m * np.sqrt(l2)] * 3, [m * l2] * 6] for m, l2 in zip(M, L2)])
    if friction:
        cols = W[:, 10 * n:]
        s = np.r_[s, ny / np.maximum(np.linalg.norm(cols, axis=0), 1e-300)]
    k = float(p)
    phi0 = np.sqrt(np.clip(x0[10 * n:], 0.0, None)) if friction else np.zeros(0)
    z0 = np.r_[theta0.ravel(), phi0]
    lam = np.sqrt(reg / k)

    def unpack(z: np.ndarray) -> np.ndarray:
        x = log_cholesky_to_params(z[: 10 * n].reshape(n, 10)).ravel()
        return np.r_[x, z[10 * n:] ** 2] if friction else x

    def dx_dz(z: np.ndarray) -> np.ndarray:
        """Jacobian of x(z): per link 10 x 10 by central differences of a closed form (smooth), friction 2 phi."""
        J = np.zeros((p, z.size))
        th = z[: 10 * n].reshape(n, 10)
        for j in range(n):
            h = 1e-6 * np.maximum(1.0, np.abs(th[j]))
            E = np.diag(h)
            plus = log_cholesky_to_params(th[j] + E)
            minus = log_cholesky_to_params(th[j] - E)
            J[10 * j: 10 * j + 10, 10 * j: 10 * j + 10] = ((plus - minus) / (2 * h)).T
        if friction:
            J[10 * n:, 10 * n:] = np.diag(2 * z[10 * n:])
        return J

    def fun(z: np.ndarray) -> np.ndarray:
        x = unpack(z)
        return np.r_[(W @ x - y) / ny, lam * (x - prior) / s]

    def jac(z: np.ndarray) -> np.ndarray:
        D = dx_dz(z)
        return np.vstack([(W @ D) / ny, lam * D / s[:, None]])

    t0 = time.process_time()
    sol = scipy.optimize.least_squares(fun, z0, jac=jac, method="trf", ftol=ftol, xtol=1e-12, gtol=1e-12,
                                       max_nfev=max_nfev, x_scale=scale)
    x = unpack(sol.x)
    res = W @ x - y
    sv = np.linalg.svd(W, compute_uv=False)
    rank = int(np.count_nonzero(sv > max(W.shape) * np.finfo(float).eps * sv[0]))
    dof = max(W.shape[0] - rank, 1)
    info = {"theta": sol.x[: 10 * n].reshape(n, 10), "nfev": int(sol.nfev), "status": int(sol.status),
            "success": bool(sol.success), "message": str(sol.message), "cost": float(2 * sol.cost),
            "residual_norm": float(np.linalg.norm(res)), "cpu_seconds": time.process_time() - t0, "reg": reg,
            "x_scale": x_scale}
    return Estimate(x, np.full((p, p), np.nan), np.full(p, np.nan), float(np.linalg.norm(res) / np.sqrt(dof)),
                    rank, float("nan"), names, "log-cholesky", info)
