"""Estimators for data recorded under feedback: instrumental variables, DIDIM, output error.

In closed loop the controller reacts to the noise of the measured positions, and the
inverse-model regressor ``W`` is built from those same noisy positions (filtered and
differentiated): the noise is in ``W`` and, through the loop, correlated with the torque, so
least squares is biased (chapter 12). The three answers of the field all simulate the
experiment again, with the identified model, the same reference and the same controller
(:class:`robidlib.closed_loop.ClosedLoopExperiment`), because a simulation is free of the
measurement noise:

* :func:`iv` -- the instrumental-variable estimate ``b = (Z'W)^-1 Z'y`` for given instruments;
* :func:`idim_iv` -- IDIM-IV :cite:`janot2014`: the instruments are the regressor evaluated on
  the simulation of the current estimate; estimate, simulate, repeat;
* :func:`didim` -- DIDIM :cite:`gautier2013`: the output is the measured torque, the model
  output the torque of the closed-loop simulation; each Gauss-Newton step is least squares on
  the regressor of the simulation (the derivative of the simulated torque with respect to the
  parameters, the motion's own sensitivity neglected);
* :func:`output_error` -- the same output (or the positions) fitted by
  ``scipy.optimize.least_squares`` with the exact sensitivity, by finite differences over
  simulations (closed-loop output error).

Every estimator returns an :class:`~robidlib.estimation.Estimate`; ``info`` holds the
iterations, the parameter history and the number of model simulations it took.
"""

from __future__ import annotations

import time
from typing import Any, Sequence

import numpy as np
import scipy.linalg
import scipy.optimize

from .._validate import as_array, check_choice, check_int, check_tolerance
from ._estimate import Estimate
from .lsq import _check_system, _make_estimate, default_rank_tol

__all__ = ["iv", "idim_iv", "didim", "output_error"]


def _iv_solve(W: np.ndarray, y: np.ndarray, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, int, float]:
    """``b = (Z'W)^-1 Z'y`` through the thin QR of ``Z``; its covariance factor and statistics."""
    r, p = W.shape
    Qz, Rz = np.linalg.qr(Z)
    s = np.linalg.svd(Rz, compute_uv=False)
    if s[-1] <= default_rank_tol(s, Z.shape):
        raise ValueError(f"the instruments Z are rank deficient (numerical rank below {p}); they must excite "
                         "every parameter as W does")
    A = Qz.T @ W                      # Z'W = Rz' A: the Rz' cancels from both sides
    sa = np.linalg.svd(A, compute_uv=False)
    tol = default_rank_tol(sa, A.shape)
    rank = int(np.count_nonzero(sa > tol))
    if rank < p:
        raise ValueError(f"Z'W is rank deficient (numerical rank {rank} < {p}): the instruments are not "
                         "correlated with every column of W")
    b = scipy.linalg.solve(A, Qz.T @ y)
    res = y - W @ b
    sigma2 = float(res @ res) / (r - p)
    Ainv = scipy.linalg.inv(A)
    cov = sigma2 * (Ainv @ Ainv.T)    # sigma^2 (Z'W)^-1 Z'Z (W'Z)^-1
    return b, 0.5 * (cov + cov.T), sigma2, rank, float(sa[0] / sa[-1])


def iv(W: np.ndarray, y: np.ndarray, Z: np.ndarray, names: Sequence[str] | None = None) -> Estimate:
    """Instrumental-variable estimate ``b = (Z'W)^-1 Z'y`` with its covariance.

    When the noise ``e = y - W b_true`` (and the noise inside ``W``) is uncorrelated with the
    instruments ``Z`` while ``Z'W / r`` stays invertible, ``b`` is consistent where least
    squares (``Z = W``) is not :cite:`soderstrom1983`. Computed without forming ``Z'W``: with
    the thin QR ``Z = Q R``, ``Z'W b = Z'y`` is ``Q'W b = Q'y``. The covariance is
    ``sigma^2 (Z'W)^-1 Z'Z (W'Z)^-1 = sigma^2 (Q'W)^-1 (Q'W)^-T`` with
    ``sigma^2 = ||y - W b||^2 / (r - p)``; it is never smaller than least squares' (the price of
    instruments that are only correlated with ``W``).

    Parameters
    ----------
    W : array_like, shape (r, p)
        Stacked regressor (from the measurements).
    y : array_like, shape (r,)
        Stacked measurements.
    Z : array_like, shape (r, p)
        Instruments, one column per parameter, rows as ``W``.
    names : sequence of str, optional

    Returns
    -------
    Estimate
        ``method="iv"``; ``cond`` is the condition number of ``Q'W``; ``info`` holds
        ``"cond_Z"``.

    Raises
    ------
    ValueError
        Shapes that do not match, NaN/inf, too few rows, rank-deficient ``Z`` or ``Z'W``.
    TypeError
        Non-numeric arguments.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(5000, 2))                   # the true regressor
    >>> e = rng.normal(size=(5000, 2))                   # noise in the measured regressor
    >>> y = x @ [1.0, -1.0] + 0.1 * rng.normal(size=5000)
    >>> ls = np.linalg.lstsq(x + e, y, rcond=None)[0]    # attenuated towards zero
    >>> est = iv(x + e, y, x)                            # instruments: free of the noise
    >>> bool(np.all(np.abs(ls) < 0.6)), bool(np.allclose(est.params, [1.0, -1.0], atol=0.05))
    (True, True)
    """
    W, y, names = _check_system(W, y, names)
    Z = as_array("Z", Z, ndim=2)
    if Z.shape != W.shape:
        raise ValueError(f"Z must have the shape of W, {W.shape} (one instrument per parameter), got {Z.shape}")
    b, cov, sigma2, rank, cond = _iv_solve(W, y, Z)
    info = {"cond_Z": float(np.linalg.cond(Z))}
    return _make_estimate(b, cov, sigma2, rank, cond, names, "iv", info)


def _experiment(experiment: Any) -> Any:
    from ..closed_loop import ClosedLoopExperiment

    if not isinstance(experiment, ClosedLoopExperiment):
        raise TypeError(f"experiment must be a robidlib.closed_loop.ClosedLoopExperiment, got "
                        f"{type(experiment).__name__}")
    return experiment


def _samples(experiment: Any, samples: Any) -> np.ndarray:
    N = experiment.n_samples
    if samples is None:
        return np.arange(N)
    s = as_array("samples", samples, ndim=1)
    if s.size == 0 or np.any(s != np.round(s)) or np.any(s < 0) or np.any(s >= N):
        raise ValueError(f"samples must be indices of the record's samples, integers in 0..{N - 1}, got "
                         f"{s.size} entries from {s.min() if s.size else None} to {s.max() if s.size else None}")
    s = s.astype(int)
    if np.unique(s).size != s.size:
        raise ValueError("samples must not repeat a sample")
    return s


def _start(name: str, params0: Any, p: int) -> np.ndarray:
    return as_array(name, params0, shape=(p,)).copy()


def _simulate(experiment: Any, B: np.ndarray, what: str) -> Any:
    from ..closed_loop import simulate_closed_loop

    try:
        return simulate_closed_loop(experiment, B)
    except ValueError as exc:
        raise ValueError(f"{what}: the model of the current estimate (started from params0) cannot be simulated "
                         f"in closed loop ({exc}); start from a better params0 (e.g. a physically consistent "
                         "estimate)") from None


def _rows(experiment: Any, samples: Any, keep: Any) -> tuple[np.ndarray, np.ndarray]:
    """The samples and the kept equations ``(S, n)`` (all when ``keep`` is None)."""
    s = _samples(experiment, samples)
    n = experiment.n_joints
    if keep is None:
        return s, np.ones((s.size, n), dtype=bool)
    k = np.asarray(keep)
    if k.dtype != bool or k.shape != (s.size, n):
        raise ValueError(f"keep must be a bool array of shape ({s.size}, {n}) (samples x joints), got "
                         f"{k.dtype} {k.shape}")
    return s, k


def _regressor_rows(experiment: Any, rec: Any, samples: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Stacked regressor of the kept equations of the simulated states (one simulation)."""
    Y = np.asarray(experiment.model.regressor(rec.q[samples], rec.qd[samples], rec.qdd[samples]))
    return Y[keep]


def _converged(b_new: np.ndarray, b_old: np.ndarray, std: np.ndarray, tol: float) -> bool:
    """Every parameter moved by less than ``tol`` standard deviations (or ``1e-8`` of itself when
    the data are exact and the standard deviations vanish)."""
    scale = np.maximum(np.maximum(std, 1e-8 * np.abs(b_new)), 1e-12 * np.abs(b_new).max()) + 1e-300
    return bool(np.max(np.abs(b_new - b_old) / scale) < tol)


def idim_iv(
    experiment: Any,
    W: np.ndarray,
    y: np.ndarray,
    params0: Any,
    *,
    samples: Any = None,
    keep: Any = None,
    max_iter: int = 20,
    tol: float = 0.5,
    names: Sequence[str] | None = None,
) -> Estimate:
    """IDIM-IV: instrumental variables from closed-loop simulations of the estimate, iterated.

    The method of Janot, Vandanjon and Gautier :cite:`janot2014`. Start from ``params0``
    (usually the least-squares estimate); then, until the estimate stops moving:

    1. simulate the experiment (same reference, same controller, exact sensors) with the
       current estimate ``b_k``: the motion ``q_s, qd_s, qdd_s`` of the model;
    2. the instruments are the regressor on that motion, ``Z = W(q_s, qd_s, qdd_s)``, at the
       samples of ``W``: free of the measurement noise, yet close to ``W`` when ``b_k`` is good;
    3. ``b_{k+1} = (Z'W)^-1 Z'y`` (:func:`iv`).

    It stops when no parameter moved by more than ``tol`` of its standard deviation (or by more
    than ``1e-8`` of itself, on exact data).

    Parameters
    ----------
    experiment : robidlib.closed_loop.ClosedLoopExperiment
        The experiment (model, reference, controller) the data come from.
    W : array_like, shape (r, p)
        Stacked regressor from the measurements (e.g. :func:`robidlib.closed_loop.idim_data`).
    y : array_like, shape (r,)
        Stacked measured torques.
    params0 : array_like, shape (p,)
        Starting estimate.
    samples : array_like of int, shape (S,), optional
        The record's samples the rows of ``W`` belong to (default all, in order).
    keep : array_like of bool, shape (S, n), optional
        The equations kept in ``W`` (default all): ``W`` has ``keep.sum()`` rows
        (:func:`robidlib.closed_loop.idim_data` returns ``samples`` and ``keep``).
    max_iter : int, default 20
        Largest number of iterations (1 to 1000).
    tol : float, default 0.5
        Stop when every change is below ``tol`` standard deviations: the data cannot tell such
        a change from none. (Much smaller tolerances may never be met: where a simulated
        velocity crosses zero, the Coulomb term switches at another sample for a slightly
        different estimate, and the iterates wander by a fraction of a standard deviation.)
    names : sequence of str, optional

    Returns
    -------
    Estimate
        ``method="idim-iv"``; ``info``: ``"iterations"``, ``"converged"``, ``"history"`` (the
        estimates, ``(iterations + 1, p)``, ``params0`` first), ``"simulations"``,
        ``"cpu_seconds"``.

    Raises
    ------
    ValueError
        Shapes that do not match the experiment (``r`` must be ``len(samples) n``), NaN/inf, a
        bad ``tol`` or ``max_iter``, an estimate whose model cannot be simulated.
    TypeError
        If ``experiment`` is not a ClosedLoopExperiment.

    Examples
    --------
    See chapter 12 and ``tests/test_closed_loop.py``.
    """
    exp = _experiment(experiment)
    W, y, names = _check_system(W, y, names)
    p, n = exp.n_params, exp.n_joints
    s, kp = _rows(exp, samples, keep)
    if W.shape != (int(kp.sum()), p):
        raise ValueError(f"W must have shape ({int(kp.sum())}, {p}): one row per kept equation of the {s.size} "
                         f"samples, one column per model parameter; got {W.shape}")
    b = _start("params0", params0, p)
    max_iter = check_int("max_iter", max_iter, 1, 1000)
    tol = check_tolerance("tol", tol)
    history = [b.copy()]
    t0 = time.process_time()
    converged = False
    for it in range(1, max_iter + 1):
        rec = _simulate(exp, b, f"idim_iv, iteration {it}")
        Z = _regressor_rows(exp, rec, s, kp)
        b_new, cov, sigma2, rank, cond = _iv_solve(W, y, Z)
        history.append(b_new.copy())
        done = _converged(b_new, b, np.sqrt(np.diag(cov)), tol)
        b = b_new
        if done:
            converged = True
            break
    info = {"iterations": it, "converged": converged, "history": np.array(history), "simulations": it,
            "cpu_seconds": time.process_time() - t0}
    return _make_estimate(b, cov, sigma2, rank, cond, names, "idim-iv", info)


def didim(
    experiment: Any,
    y: np.ndarray,
    params0: Any,
    *,
    samples: Any = None,
    keep: Any = None,
    max_iter: int = 30,
    tol: float = 0.5,
    names: Sequence[str] | None = None,
) -> Estimate:
    """DIDIM: the closed-loop simulation's torque fitted to the measured torque, by Gauss-Newton.

    The direct-and-inverse dynamic identification model of Gautier, Janot and Vandanjon
    :cite:`gautier2013`. The model output is the torque ``tau_s(b)`` that the controller
    applies when the *model* ``b`` tracks the reference; it is linear in ``b`` along the
    simulated motion, ``tau_s(b) = W_s(b) b`` with ``W_s`` the regressor on the simulation.
    Each Gauss-Newton step takes ``W_s`` as the derivative (the motion's own dependence on
    ``b`` neglected), which makes it least squares on the simulated regressor:

    ``b_{k+1} = argmin_b ||y - W_s(b_k) b||^2``.

    Only the torques and the experiment are needed: no derivative of measured positions. It
    stops when no parameter moved by more than ``tol`` of its standard deviation.

    Parameters
    ----------
    experiment : robidlib.closed_loop.ClosedLoopExperiment
    y : array_like, shape (R,)
        Measured torques of the kept equations at ``samples``, stacked sample-major.
    params0 : array_like, shape (p,)
        Starting estimate (e.g. least squares, or CAD values).
    samples : array_like of int, optional
        Record samples used (default all).
    keep : array_like of bool, shape (S, n), optional
        Equations used (default all); ``R = keep.sum()``.
    max_iter : int, default 30
    tol : float, default 0.5
        As :func:`idim_iv`.
    names : sequence of str, optional

    Returns
    -------
    Estimate
        ``method="didim"``; the covariance is least squares' on the last simulated regressor;
        ``info`` as :func:`idim_iv`, plus ``"residual_norms"`` (``||y - tau_s(b_k)||`` per
        iteration).

    Raises
    ------
    ValueError
        Wrong shapes, NaN/inf, bad ``tol``/``max_iter``, a model that cannot be simulated.
    TypeError
        If ``experiment`` is not a ClosedLoopExperiment.

    Examples
    --------
    See chapter 12 and ``tests/test_closed_loop.py``.
    """
    from .lsq import _solve

    exp = _experiment(experiment)
    p, n = exp.n_params, exp.n_joints
    s, kp = _rows(exp, samples, keep)
    y = as_array("y", y, shape=(int(kp.sum()),))
    names = _names(names, p)
    b = _start("params0", params0, p)
    max_iter = check_int("max_iter", max_iter, 1, 1000)
    tol = check_tolerance("tol", tol)
    if y.size <= p:
        raise ValueError(f"y must hold more equations than parameters ({p}), got {y.size}")
    history, norms = [b.copy()], []
    t0 = time.process_time()
    converged = False
    for it in range(1, max_iter + 1):
        rec = _simulate(exp, b, f"didim, iteration {it}")
        Ws = _regressor_rows(exp, rec, s, kp)
        norms.append(float(np.linalg.norm(y - rec.tau[s][kp])))
        est = _solve(Ws, y, names, "didim", {})
        history.append(est.params.copy())
        done = _converged(est.params, b, est.std, tol)
        b = est.params
        if done:
            converged = True
            break
    info = {"iterations": it, "converged": converged, "history": np.array(history), "simulations": it,
            "residual_norms": np.array(norms), "cpu_seconds": time.process_time() - t0}
    return Estimate(est.params, est.cov, est.rel_std, est.residual_std, est.rank, est.cond, names, "didim", info)


def _names(names: Any, p: int) -> tuple[str, ...]:
    from .._validate import check_names

    return tuple(f"p{i + 1}" for i in range(p)) if names is None else check_names("names", names, p)


def output_error(
    experiment: Any,
    y: np.ndarray,
    params0: Any,
    *,
    samples: Any = None,
    keep: Any = None,
    output: str = "torque",
    max_nfev: int = 50,
    ftol: float = 1e-8,
    names: Sequence[str] | None = None,
) -> Estimate:
    """Closed-loop output error: the simulation fitted to the measurements by ``scipy.optimize.least_squares``.

    Minimise ``||y - f(b)||^2`` over ``b``, with ``f(b)`` the simulated output at ``samples``:
    the torque the controller applies (``output="torque"``, DIDIM's output) or the measured
    positions (``output="position"``, the classical closed-loop output error). The Jacobian
    is computed by forward differences, all ``p`` perturbed models simulated together in one
    batched run; ``least_squares`` (trust-region reflective) takes exact Gauss-Newton steps
    where DIDIM neglects the motion's sensitivity.

    Parameters
    ----------
    experiment : robidlib.closed_loop.ClosedLoopExperiment
    y : array_like, shape (R,)
        Measured output of the kept equations at ``samples``, stacked sample-major.
    params0 : array_like, shape (p,)
    samples : array_like of int, optional
    keep : array_like of bool, shape (S, n), optional
        Equations used (default all); ``R = keep.sum()``.
    output : {"torque", "position"}, default "torque"
    max_nfev : int, default 50
        Largest number of residual evaluations of ``least_squares`` (1 to 10000).
    ftol : float, default 1e-8
        ``least_squares``'s tolerance on the relative change of the cost.
    names : sequence of str, optional

    Returns
    -------
    Estimate
        ``method="output-error"``; covariance ``sigma^2 (J'J)^-1`` at the solution;
        ``info``: ``"nfev"``, ``"njev"``, ``"status"``, ``"message"``, ``"simulations"``
        (models simulated, the ``p`` of every Jacobian included), ``"cpu_seconds"``.

    Raises
    ------
    ValueError
        Wrong shapes, NaN/inf, unknown ``output``, bad budgets, a model that cannot be simulated.
    TypeError
        If ``experiment`` is not a ClosedLoopExperiment.

    Examples
    --------
    See chapter 12 and ``tests/test_closed_loop.py``.
    """
    exp = _experiment(experiment)
    p, n = exp.n_params, exp.n_joints
    s, kp = _rows(exp, samples, keep)
    y = as_array("y", y, shape=(int(kp.sum()),))
    check_choice("output", output, ("torque", "position"))
    names = _names(names, p)
    b0 = _start("params0", params0, p)
    max_nfev = check_int("max_nfev", max_nfev, 1, 10000)
    ftol = check_tolerance("ftol", ftol)
    if y.size <= p:
        raise ValueError(f"y must hold more equations than parameters ({p}), got {y.size}")
    key = "tau" if output == "torque" else "q"
    count = {"sims": 0}
    cache: dict[bytes, np.ndarray] = {}
    scale0 = np.abs(b0)
    floor = 1e-3 * (np.median(scale0[scale0 > 0]) if np.any(scale0 > 0) else 1.0)

    from ..closed_loop import simulate_closed_loop

    def outputs(B: np.ndarray) -> np.ndarray:
        rec = simulate_closed_loop(exp, B, on_failure="nan")
        count["sims"] += B.shape[0]
        return getattr(rec, key)[:, s][:, kp]

    def fun(b: np.ndarray) -> np.ndarray:
        k = b.tobytes()
        if k not in cache:
            cache.clear()
            out = outputs(b[None])[0]
            # a trial step whose model cannot be simulated (not a robot): a residual far larger than any
            # the data give, so that the trust region rejects the step and shrinks
            cache[k] = y - out if np.all(np.isfinite(out)) else 1e3 * (np.abs(y) + np.abs(y).max())
        return cache[k]

    def jac(b: np.ndarray) -> np.ndarray:
        h = 1e-6 * np.maximum(np.abs(b), floor)
        B = b[None] + np.diag(h)
        r0 = fun(b)
        R = y[None] - outputs(B)
        if not np.all(np.isfinite(R)):
            raise ValueError("output_error: a model a finite-difference step away from the iterate cannot be "
                             "simulated; start from a physically consistent estimate")
        return ((R - r0[None]) / h[:, None]).T

    t0 = time.process_time()
    sol = scipy.optimize.least_squares(fun, b0, jac=jac, method="trf", x_scale="jac", ftol=ftol,
                                       xtol=1e-10, gtol=1e-10, max_nfev=max_nfev)
    b = sol.x
    r = fun(b)
    J = jac(b)
    sigma2 = float(r @ r) / (y.size - p)
    U, sv, Vt = np.linalg.svd(J, full_matrices=False)
    tol_r = default_rank_tol(sv, J.shape)
    rank = int(np.count_nonzero(sv > tol_r))
    if rank < p:
        raise ValueError(f"the output is insensitive to some parameters at the solution (Jacobian rank {rank} < {p}); "
                         "use the torque output or fewer parameters")
    Vs = Vt.T / sv
    cov = sigma2 * (Vs @ Vs.T)
    info = {"nfev": int(sol.nfev), "njev": int(sol.njev or 0), "status": int(sol.status), "message": str(sol.message),
            "simulations": count["sims"], "cpu_seconds": time.process_time() - t0, "output": output}
    return _make_estimate(b, 0.5 * (cov + cov.T), sigma2, rank, float(sv[0] / sv[-1]), names, "output-error", info)
