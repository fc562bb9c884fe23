"""Off-line estimation: the Rauch-Tung-Striebel smoother and the iterated extended smoother.

A filter's estimate at time ``k`` uses the measurements up to ``k``; off-line, every
estimate may use the whole record.  :func:`rts_smoother` (:cite:`rauch1965`) runs back over
a Kalman filter's (or an EKF's) estimates, predictions and transition Jacobians and returns
the smoothed means and covariances; for a linear-Gaussian model they are the mean and the
marginal covariances of the exact posterior of the whole state trajectory (the batch
least-squares solution, which the tests check).

:func:`iterated_extended_smoother` repeats "filter, smooth" with the model linearised about
the previous smoothed trajectory instead of about the filter's running estimate: a
Gauss-Newton iteration on the batch (maximum a posteriori) problem (:cite:`bell1994`).  Its
first pass is the EKF followed by the RTS smoother; when it converges it no longer depends
on where the EKF linearised, which is the weak point of the joint state-parameter EKF
(:cite:`ljung1979`).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .._validate import as_array, check_positive
from .kalman import ExtendedKalmanFilter, _check_cov, _check_out

__all__ = ["rts_smoother", "iterated_extended_smoother"]


def _cho_solve_sym(A: np.ndarray, B: np.ndarray, what: str) -> np.ndarray:
    import scipy.linalg

    try:
        c = scipy.linalg.cho_factor(A, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        raise ValueError(f"{what} is not positive definite: the smoother gain is undefined "
                         "(give the states some process noise or initial uncertainty)") from None
    return scipy.linalg.cho_solve(c, B, check_finite=False)


def rts_smoother(x_filt: Any, P_filt: Any, x_pred: Any, P_pred: Any, F: Any) -> tuple[np.ndarray, np.ndarray]:
    """Rauch-Tung-Striebel smoother: the backward pass over a filtered record.

    With ``k = N-2, ..., 0`` and the gain ``G_k = P_{k|k} F_k' P_{k+1|k}^-1``::

        x_{k|N} = x_{k|k} + G_k (x_{k+1|N} - x_{k+1|k})
        P_{k|N} = P_{k|k} + G_k (P_{k+1|N} - P_{k+1|k}) G_k'

    starting from the last filtered estimate (:cite:`rauch1965`, :cite:`simon2006` sec. 9.4).
    The gain comes from a Cholesky solve with ``P_{k+1|k}``, never an explicit inverse.

    Parameters
    ----------
    x_filt : array_like, shape (N, nx)
        Filtered (posterior) estimates ``x_{k|k}``.
    P_filt : array_like, shape (N, nx, nx)
        Their covariances.
    x_pred : array_like, shape (N - 1, nx)
        Predictions ``x_{k+1|k}`` (row ``k`` predicts sample ``k + 1``).
    P_pred : array_like, shape (N - 1, nx, nx)
        Their covariances (positive definite).
    F : array_like, shape (N - 1, nx, nx)
        Jacobian of the transition from ``k`` to ``k + 1`` (what the filter used:
        :attr:`ExtendedKalmanFilter.F` after each ``predict``).

    Returns
    -------
    x_smooth : numpy.ndarray, shape (N, nx)
    P_smooth : numpy.ndarray, shape (N, nx, nx)

    Raises
    ------
    ValueError
        On inconsistent shapes, NaN/inf, an empty record, or a predicted covariance that is
        not positive definite.

    Examples
    --------
    A constant observed twice with unit noise: the smoothed value at both times is the mean.

    >>> import numpy as np
    >>> from robidlib.estimation.smoother import rts_smoother
    >>> xs, Ps = rts_smoother(x_filt=[[1.0], [2.0]], P_filt=[[[1.0]], [[0.5]]],
    ...                       x_pred=[[1.0]], P_pred=[[[1.0]]], F=[[[1.0]]])
    >>> xs.ravel().tolist(), Ps.ravel().tolist()
    ([2.0, 2.0], [0.5, 0.5])
    """
    xf = as_array("x_filt", x_filt, ndim=2)
    N, nx = xf.shape
    if N == 0 or nx == 0:
        raise ValueError(f"x_filt must hold at least one sample of at least one state, got shape {xf.shape}")
    Pf = as_array("P_filt", P_filt, shape=(N, nx, nx))
    xp = as_array("x_pred", x_pred, shape=(N - 1, nx))
    Pp = as_array("P_pred", P_pred, shape=(N - 1, nx, nx))
    Fs = as_array("F", F, shape=(N - 1, nx, nx))
    xs = xf.copy()
    Ps = Pf.copy()
    for k in range(N - 2, -1, -1):
        # G' = P_pred^-1 F P_filt (P_pred and P_filt symmetric)
        Gt = _cho_solve_sym(Pp[k], Fs[k] @ Pf[k], f"P_pred[{k}]")
        G = Gt.T
        xs[k] = xf[k] + G @ (xs[k + 1] - xp[k])
        P = Pf[k] + G @ (Ps[k + 1] - Pp[k]) @ Gt
        Ps[k] = 0.5 * (P + P.T)
    return xs, Ps


def iterated_extended_smoother(
    f: Callable,
    F_jac: Callable,
    h: Callable,
    H_jac: Callable,
    Q: Any,
    R: Any,
    x0: Any,
    P0: Any,
    z: Any,
    u: Any = None,
    *,
    iterations: int = 10,
    tol: float = 1e-9,
) -> dict[str, Any]:
    """Iterated extended Kalman smoother: Gauss-Newton on the whole record (:cite:`bell1994`).

    Pass 1 is the EKF (:class:`~robidlib.estimation.kalman.ExtendedKalmanFilter`: update
    with ``z[0]``, then predict with ``u[k-1]`` and update with ``z[k]``) followed by
    :func:`rts_smoother`.  Each further pass runs a Kalman filter on the model linearised
    about the previous smoothed trajectory ``xbar``::

        x_{k+1} ~ f(xbar_k, u_k) + F(xbar_k, u_k) (x_k - xbar_k),
        z_k     ~ h(xbar_k) + H(xbar_k) (x_k - xbar_k),

    and smooths it.  At a fixed point the smoothed trajectory minimises the batch objective
    ``|x_0 - x0|^2_{P0^-1} + sum |x_{k+1} - f(x_k, u_k)|^2_{Q^-1} + sum |z_k - h(x_k)|^2_{R^-1}``
    (a local minimum of it): the maximum a posteriori estimate of the trajectory, which no
    longer depends on where the filter happened to linearise.

    Parameters
    ----------
    f, F_jac, h, H_jac : callable
        As for :class:`~robidlib.estimation.kalman.ExtendedKalmanFilter`: ``f(x, u)``,
        ``F_jac(x, u)``, ``h(x)``, ``H_jac(x)``.
    Q, R, x0, P0 : array_like
        Process and measurement noise covariances, initial estimate and covariance (as for
        the filter; ``Q`` must make every predicted covariance positive definite).
    z : array_like, shape (N, nz)
        Measurements.
    u : sequence, optional
        ``N - 1`` inputs, ``u[k]`` drives the step from ``k`` to ``k + 1`` (default ``None``
        for every step).
    iterations : int, default 10
        Largest number of passes (>= 1).
    tol : float, default 1e-9
        Stop when the largest change of the smoothed trajectory between two passes, scaled
        by its smoothed standard deviations, falls below ``tol``.

    Returns
    -------
    dict
        ``"x"`` (N, nx) and ``"P"`` (N, nx, nx): the smoothed trajectory and covariances of
        the last pass; ``"x_filt"`` (N, nx): the plain EKF estimates of pass 1;
        ``"passes"``: passes made; ``"change"``: the scaled change of each pass after the
        first; ``"converged"``: whether the last change was below ``tol``.

    Raises
    ------
    TypeError
        If a model argument is not callable.
    ValueError
        On bad shapes or covariances, ``iterations`` < 1, ``tol`` <= 0, or a numerically
        failing pass (from the filter or the smoother).

    Examples
    --------
    A linear model converges in two passes (the second reproduces the first):

    >>> import numpy as np
    >>> from robidlib.estimation.smoother import iterated_extended_smoother
    >>> F = np.array([[1.0, 0.1], [0.0, 1.0]]); H = np.array([[1.0, 0.0]])
    >>> z = (0.2 * 0.1 * np.arange(30))[:, None]
    >>> out = iterated_extended_smoother(lambda x, u: F @ x, lambda x, u: F, lambda x: H @ x,
    ...                                  lambda x: H, 1e-8 * np.eye(2), [[1e-4]], [0.0, 0.0],
    ...                                  np.eye(2), z)
    >>> out["passes"], out["converged"], bool(abs(out["x"][0, 1] - 0.2) < 1e-3)
    (2, True, True)
    """
    for name, fun in (("f", f), ("F_jac", F_jac), ("h", h), ("H_jac", H_jac)):
        if not callable(fun):
            raise TypeError(f"{name} must be callable, got {type(fun).__name__}")
    if isinstance(iterations, (bool, np.bool_)) or not isinstance(iterations, (int, np.integer)) or iterations < 1:
        raise ValueError(f"iterations must be a positive integer, got {iterations!r}")
    tol = check_positive("tol", tol)
    z = as_array("z", z, ndim=2)
    N, nz = z.shape
    if N < 2:
        raise ValueError(f"z must hold at least two samples to smooth, got {N}")
    if u is None:
        u = [None] * (N - 1)
    if len(u) != N - 1:
        raise ValueError(f"u must hold N - 1 = {N - 1} inputs (one per step), got {len(u)}")
    x0 = as_array("x0", x0, ndim=1)
    nx = x0.size
    Qm = _check_cov("Q", Q, nx, allow_diag=True)
    Rm = _check_cov("R", R, nz, allow_diag=True)
    P0m = _check_cov("P0", P0, nx, allow_diag=True)

    # pass 1: the EKF and the RTS smoother
    ekf = ExtendedKalmanFilter(f, h, F_jac, H_jac, Qm, Rm, x0, P0m, record_history=False)
    xf, Pf = np.empty((N, nx)), np.empty((N, nx, nx))
    xp, Pp, Fs = np.empty((N - 1, nx)), np.empty((N - 1, nx, nx)), np.empty((N - 1, nx, nx))
    for k in range(N):
        if k > 0:
            ekf.predict(u[k - 1])
            xp[k - 1], Pp[k - 1], Fs[k - 1] = ekf._x, ekf._P, ekf.F
        ekf.update(z[k])
        xf[k], Pf[k] = ekf._x, ekf._P
    x_ekf = xf.copy()
    xs, Ps = rts_smoother(xf, Pf, xp, Pp, Fs)
    changes: list[float] = []
    passes = 1
    while passes < iterations:
        xbar = xs
        x, P = x0.copy(), P0m.copy()
        I = np.eye(nx)
        for k in range(N):
            if k > 0:
                Fk = _check_out("F_jac(x, u)", F_jac(xbar[k - 1], u[k - 1]), (nx, nx), k)
                fk = _check_out("f(x, u)", f(xbar[k - 1], u[k - 1]), (nx,), k)
                x = fk + Fk @ (x - xbar[k - 1])
                P = Fk @ P @ Fk.T + Qm
                P = 0.5 * (P + P.T)
                xp[k - 1], Pp[k - 1], Fs[k - 1] = x, P, Fk
            # the measurement linearised about xbar[k]: z ~ h(xbar) + H (x - xbar)
            Hk = _check_out("H_jac(x)", H_jac(xbar[k]), (nz, nx), k)
            y = z[k] - _check_out("h(x)", h(xbar[k]), (nz,), k) - Hk @ (x - xbar[k])
            S = Hk @ P @ Hk.T + Rm
            K = _cho_solve_sym(0.5 * (S + S.T), Hk @ P, f"the innovation covariance at step {k}").T
            x = x + K @ y
            IKH = I - K @ Hk
            P = IKH @ P @ IKH.T + K @ Rm @ K.T                    # Joseph form
            P = 0.5 * (P + P.T)
            xf[k], Pf[k] = x, P
        xs, Ps = rts_smoother(xf, Pf, xp, Pp, Fs)
        passes += 1
        # the change in smoothed standard deviations (floored where a state is known exactly)
        sd = np.sqrt(np.clip(np.diagonal(Ps, axis1=1, axis2=2), 0.0, None))
        sd = np.maximum(sd, 1e-12 * np.maximum(1.0, np.abs(xs)))
        changes.append(float(np.max(np.abs(xs - xbar) / sd)))
        if changes[-1] < tol:
            break
    return {"x": xs, "P": Ps, "x_filt": x_ekf, "passes": passes, "change": changes,
            "converged": bool(changes and changes[-1] < tol)}
