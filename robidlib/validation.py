"""Validation of identified models: indices, errors, simulation and sensitivity.

Indices
-------
Three dimensionless indices, each in ``[0, 1]``, computed per joint (columns of an
``(N, n)`` array) or overall (all entries pooled into one series):

* :func:`rms_index` -- normalised residual root mean square: Theil's inequality
  coefficient ``U1`` :cite:`theil1958,bliemel1973`; 0 = perfect.
* :func:`rsd_index` -- normalised residual standard deviation: the same coefficient
  applied to the deviations from the means; 0 = perfect up to a constant offset.
* :func:`agreement_index` -- Willmott's index of agreement ``d`` :cite:`willmott1981`;
  1 = perfect agreement, 0 = no agreement.

The numerators are the usual residual RMS and residual standard deviation (in the
unit of the signal); dividing by the sum of the two signals' RMS (standard deviations)
makes the index dimensionless and bounded by 1 (triangle inequality), so joints with
torques of different sizes can be compared in one table.

Errors against a known truth (simulation studies)
-------------------------------------------------
* :func:`relative_parameter_error` -- the symmetric relative parameter error
  ``delta_beta = 100 (2/p) sum |b_hat - b| / (|b| + |b_hat|)`` (percent, in ``[0, 200]``),
  the formula of the BIRDy benchmark :cite:`leboutet2021`; every parameter counts the same,
  so compute it over the :func:`essential_parameters` as well.
* :func:`scaled_parameter_error` -- ``100 ||D (b_hat - b)|| / ||D b||`` with ``D`` the column
  RMS of the regressor: each parameter weighted by its effect on the torques.
* :func:`standardized_error` -- the RMS of ``(b_hat - b) / s`` for standard deviations ``s``
  (e.g. the prior's): the error in units of what was known before.
* :func:`essential_parameters` -- the parameters a covariance says are determined to better
  than a relative standard deviation.
* :func:`relative_torque_error` -- ``delta_tau = 100 ||tau_hat - tau|| / ||tau||`` per joint.

Identified models in motion
---------------------------
* :func:`base_to_standard` and :func:`identified_robot` -- a standard parameter vector (and a
  :class:`~robidlib.robot.SerialRobot`) with exactly the dynamics of identified *base*
  parameters, for :func:`robidlib.dynamics.simulate` and friends.
* :func:`simulate_tracking` -- many models (one per parameter vector) driven by the *same*
  PD + feed-forward controller along a reference, integrated together with one batched
  regressor evaluation per Runge-Kutta stage (the dynamics are linear in the parameters).
* :func:`sensitivity` -- vary each parameter by up to +-``variation`` (one at a time) and
  measure, with :func:`rms_index`, how far the resulting motion (or torque) moves from the
  nominal one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ._validate import (as_array, check_choice, check_fields, check_flag, check_int, check_names, check_positive,
                        check_same_robot)

__all__ = [
    "rms_index",
    "rsd_index",
    "agreement_index",
    "relative_parameter_error",
    "scaled_parameter_error",
    "standardized_error",
    "essential_parameters",
    "relative_torque_error",
    "base_to_standard",
    "identified_robot",
    "simulate_tracking",
    "TrackingResult",
    "sensitivity",
    "SensitivityResult",
]


#: Bounds of the simulation grid: more is never needed and would run for hours.
_MAX_SUBSTEPS = 1000
_MAX_STEPS = 1000


def _pair(observed: Any, predicted: Any, per_joint: bool) -> tuple[np.ndarray, np.ndarray, bool]:
    """Check the two series; return them as (N, m) columns and whether to return a scalar."""
    if not isinstance(per_joint, (bool, np.bool_)):
        raise TypeError(f"per_joint must be a bool, got {type(per_joint).__name__}")
    o = as_array("observed", observed, ndim=(1, 2))
    p = as_array("predicted", predicted, ndim=(1, 2))
    if o.shape != p.shape:
        raise ValueError(f"observed and predicted must have the same shape, got {o.shape} and {p.shape}")
    if o.size == 0:
        raise ValueError(f"observed and predicted must not be empty, got shape {o.shape}")
    scalar = o.ndim == 1 or not per_joint
    if scalar:
        return o.reshape(-1, 1), p.reshape(-1, 1), True
    return o, p, False


def _scaled(o: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Divide both by the largest magnitude per column, so squares neither under- nor overflow.

    Every index is invariant to a common scaling of ``o`` and ``p`` (column by column).
    """
    scale = np.maximum(np.abs(o).max(axis=0), np.abs(p).max(axis=0))
    scale = np.where(scale > 0, scale, 1.0)
    return o / scale, p / scale


def _out(values: np.ndarray, scalar: bool) -> float | np.ndarray:
    return float(values[0]) if scalar else values


def _undefined(name: str, bad: np.ndarray, scalar: bool, why: str) -> None:
    if np.any(bad):
        where = "" if scalar else f" for joint(s) {', '.join(str(j + 1) for j in np.flatnonzero(bad))}"
        raise ValueError(f"{name} is undefined{where}: {why}")


def _theil(o: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    num = np.sqrt(np.mean((p - o) ** 2, axis=0))
    den = np.sqrt(np.mean(p**2, axis=0)) + np.sqrt(np.mean(o**2, axis=0))
    return num, den


def rms_index(observed: np.ndarray, predicted: np.ndarray, per_joint: bool = True) -> float | np.ndarray:
    """Normalised residual root mean square (Theil's ``U1``), in ``[0, 1]``.

    For observations ``o_k`` and predictions ``p_k``, ``k = 1..N``
    :cite:`theil1958,bliemel1973`::

        RMS = sqrt(mean((p - o)^2)) / ( sqrt(mean(p^2)) + sqrt(mean(o^2)) )

    ``0`` means a perfect prediction; ``1`` is reached when ``p = -c o`` (``c >= 0``),
    e.g. a prediction identically zero.  The index is scale-free (multiplying both
    series by a constant leaves it unchanged) but, unlike :func:`rsd_index`, it counts
    a constant offset as an error.

    Parameters
    ----------
    observed, predicted : array_like, shape (N,) or (N, n)
        Measured and predicted series (e.g. joint torques or positions), same shape.
    per_joint : bool, default True
        For 2-D input, one index per column (joint); ``False`` pools every entry into
        one series (flattened) and returns one number.

    Returns
    -------
    float or numpy.ndarray, shape (n,)
        A float for 1-D input or ``per_joint=False``; one value per joint otherwise.

    Raises
    ------
    ValueError
        If the shapes differ, the input is empty or not finite, or both series of a
        joint are identically zero (0/0).
    TypeError
        If ``per_joint`` is not a bool.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.validation import rms_index
    >>> o = np.array([1.0, 2.0, 3.0])
    >>> rms_index(o, o), rms_index(o, np.zeros(3)), round(rms_index(o, [1.0, 2.0, 4.0]), 4)
    (0.0, 1.0, 0.1201)
    """
    o, p, scalar = _pair(observed, predicted, per_joint)
    num, den = _theil(*_scaled(o, p))
    _undefined("the RMS index", den == 0, scalar, "observed and predicted are both identically zero")
    return _out(num / den, scalar)


def rsd_index(observed: np.ndarray, predicted: np.ndarray, per_joint: bool = True) -> float | np.ndarray:
    """Normalised residual standard deviation, in ``[0, 1]``.

    Theil's ``U1`` (:func:`rms_index`) applied to the deviations from the means
    ``o' = o - mean(o)``, ``p' = p - mean(p)`` :cite:`theil1958,bliemel1973`::

        RSD = std(p - o) / ( std(p) + std(o) )

    (population standard deviations, ``ddof = 0``).  The numerator is the standard
    deviation of the residual, so a constant offset between prediction and observation
    is *not* counted: ``0`` means perfect up to an offset, ``1`` is reached when
    ``p' = -c o'`` (``c >= 0``), e.g. a constant prediction.

    Parameters
    ----------
    observed, predicted : array_like, shape (N,) or (N, n)
        Measured and predicted series, same shape.
    per_joint : bool, default True
        For 2-D input, one index per column; ``False`` pools every entry (deviations
        from the mean of all entries).

    Returns
    -------
    float or numpy.ndarray, shape (n,)
        A float for 1-D input or ``per_joint=False``; one value per joint otherwise.

    Raises
    ------
    ValueError
        If the shapes differ, the input is empty or not finite, or both series of a
        joint are constant (0/0).
    TypeError
        If ``per_joint`` is not a bool.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.validation import rsd_index
    >>> o = np.array([1.0, 2.0, 3.0])
    >>> rsd_index(o, o + 5.0), rsd_index(o, np.full(3, 2.0)), round(rsd_index(o, [1.0, 2.0, 4.0]), 4)
    (0.0, 1.0, 0.2284)
    """
    o, p, scalar = _pair(observed, predicted, per_joint)
    # deviations from the means; shifting by the first sample first makes the deviations
    # of a constant series exactly zero (mean(0.1, 0.1, 0.1) != 0.1 in floating point)
    do, dp = o - o[0], p - p[0]
    num, den = _theil(*_scaled(do - do.mean(axis=0), dp - dp.mean(axis=0)))
    _undefined("the RSD index", den == 0, scalar, "observed and predicted are both constant")
    return _out(num / den, scalar)


def agreement_index(observed: np.ndarray, predicted: np.ndarray, per_joint: bool = True) -> float | np.ndarray:
    """Willmott's index of agreement ``d``, in ``[0, 1]``.

    With ``o_m`` the mean of the observations :cite:`willmott1981`::

        d = 1 - sum (p - o)^2 / sum (|p - o_m| + |o - o_m|)^2

    ``1`` is perfect agreement; ``0`` is no agreement, e.g. a constant prediction equal
    to the observed mean (the "model" that knows only the mean).  The denominator, the
    "potential error", bounds the numerator, so ``0 <= d <= 1``.

    Parameters
    ----------
    observed, predicted : array_like, shape (N,) or (N, n)
        Measured and predicted series, same shape.
    per_joint : bool, default True
        For 2-D input, one index per column (with that column's mean ``o_m``);
        ``False`` pools every entry (one mean for all).

    Returns
    -------
    float or numpy.ndarray, shape (n,)
        A float for 1-D input or ``per_joint=False``; one value per joint otherwise.

    Raises
    ------
    ValueError
        If the shapes differ, the input is empty or not finite, or the observed series
        of a joint is constant: then ``d`` is 0 whatever the prediction (or 0/0), so it
        is undefined.
    TypeError
        If ``per_joint`` is not a bool.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.validation import agreement_index
    >>> o = np.array([1.0, 2.0, 3.0])
    >>> agreement_index(o, o), agreement_index(o, np.full(3, 2.0)), round(agreement_index(o, [1.0, 2.0, 4.0]), 4)
    (1.0, 0.0, 0.9231)
    """
    o, p, scalar = _pair(observed, predicted, per_joint)
    constant = np.all(o == o[0], axis=0)
    _undefined("the agreement index", constant, scalar, "the observed series is constant")
    # d is invariant to a common shift and scaling: work with deviations from o_m
    om = o.mean(axis=0)
    o, p = _scaled(o - om, p - om)
    num = np.sum((p - o) ** 2, axis=0)
    den = np.sum((np.abs(p) + np.abs(o)) ** 2, axis=0)
    return _out(1.0 - num / den, scalar)


# ---------------------------------------------------------------------------------- errors
def relative_parameter_error(estimate: Any, truth: Any) -> float | np.ndarray:
    """Symmetric relative parameter error ``delta_beta`` in percent.

    For ``p`` parameters with true values ``b_i`` and estimates ``b_hat_i``::

        delta_beta = 100 (2 / p) sum_i |b_hat_i - b_i| / (|b_i| + |b_hat_i|)

    Each term lies in ``[0, 1]``: ``0`` for an exact estimate, ``1`` for an estimate of the
    wrong sign or a zero estimate of a non-zero parameter (and vice versa), so
    ``0 <= delta_beta <= 200``.  Unlike ``|b_hat - b| / |b|`` it stays finite for a true
    value of zero, and one wild estimate cannot dominate the average.  It is the symmetric
    mean absolute percentage error of forecasting :cite:`makridakis1993`, applied to
    parameters.  Every parameter counts equally, whatever its size and its influence on the
    torques, so poorly identifiable parameters dominate it (compare
    :func:`relative_torque_error`).  A term with ``b_i = b_hat_i = 0`` is an exact estimate
    and counts ``0`` (the formula would give ``0/0``).

    Parameters
    ----------
    estimate : array_like, shape (p,) or (R, p)
        Estimated parameters (``R`` estimates, e.g. Monte Carlo runs, give ``R`` errors).
    truth : array_like, shape (p,)
        True parameters.

    Returns
    -------
    float or numpy.ndarray, shape (R,)
        ``delta_beta`` in percent.

    Raises
    ------
    ValueError
        If the shapes do not match, the input is empty or not finite.

    Examples
    --------
    >>> from robidlib.validation import relative_parameter_error
    >>> round(relative_parameter_error([1.1, 2.0], [1.0, 2.0]), 6)   # 100 * (2/2) * 0.1/2.1
    4.761905
    >>> relative_parameter_error([[1.0, 0.0], [-1.0, 0.0]], [1.0, 0.0]).tolist()
    [0.0, 100.0]
    """
    b = as_array("truth", truth, ndim=1)
    e = as_array("estimate", estimate, ndim=(1, 2))
    if b.size == 0:
        raise ValueError("truth must hold at least one parameter, got shape (0,)")
    if e.shape[-1] != b.size:
        raise ValueError(
            f"estimate must have {b.size} parameters (last axis) to match truth, got shape {e.shape}"
        )
    den = np.abs(b) + np.abs(e)
    num = np.abs(e - b)
    terms = np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape), where=den > 0)
    out = 100.0 * 2.0 * terms.mean(axis=-1)
    return float(out) if e.ndim == 1 else out


def _estimates_and_truth(estimate: Any, truth: Any) -> tuple[np.ndarray, np.ndarray]:
    b = as_array("truth", truth, ndim=1)
    e = as_array("estimate", estimate, ndim=(1, 2))
    if b.size == 0:
        raise ValueError("truth must hold at least one parameter, got shape (0,)")
    if e.shape[-1] != b.size:
        raise ValueError(f"estimate must have {b.size} parameters (last axis) to match truth, got shape {e.shape}")
    return e, b


def _weights(name: str, w: Any, p: int) -> np.ndarray:
    w = as_array(name, w, shape=(p,))
    if np.any(w <= 0):
        raise ValueError(f"{name} must be > 0 (one value per parameter), got {w.tolist()}")
    return w


def scaled_parameter_error(estimate: Any, truth: Any, scale: Any) -> float | np.ndarray:
    """Column-scaled parameter error ``100 ||D (b_hat - b)|| / ||D b||`` in percent.

    ``D = diag(scale)`` with ``scale_i`` the RMS of column ``i`` of the regressor (e.g.
    :attr:`robidlib.benchmark.IdentificationProblem.column_scale`): ``scale_i |b_i|`` is the
    RMS torque parameter ``i`` contributes, so every parameter is weighted by its effect on
    the torques and a near-zero, barely excited parameter cannot dominate (compare
    :func:`relative_parameter_error`).  The result is invariant to the units of the
    parameters.

    Parameters
    ----------
    estimate : array_like, shape (p,) or (R, p)
        Estimated parameters.
    truth : array_like, shape (p,)
        True parameters, not all zero after scaling.
    scale : array_like, shape (p,)
        Positive weights ``D``.

    Returns
    -------
    float or numpy.ndarray, shape (R,)

    Raises
    ------
    ValueError
        On mismatched shapes, non-finite input, non-positive ``scale`` or ``D b = 0``.

    Examples
    --------
    >>> from robidlib.validation import scaled_parameter_error
    >>> round(scaled_parameter_error([1.1, 0.5], [1.0, 0.0], scale=[10.0, 0.01]), 4)
    10.0001
    """
    e, b = _estimates_and_truth(estimate, truth)
    D = _weights("scale", scale, b.size)
    den = float(np.linalg.norm(D * b))
    if den == 0:
        raise ValueError("the scaled truth D b is zero: the relative error is undefined")
    out = 100.0 * np.linalg.norm(D * (e - b), axis=-1) / den
    return float(out) if e.ndim == 1 else out


def standardized_error(estimate: Any, truth: Any, std: Any) -> float | np.ndarray:
    """RMS of the errors in standard deviations, ``sqrt(mean(((b_hat - b) / s)^2))``.

    With ``s`` the prior standard deviations, the prior itself scores about 1 when the truth
    is drawn from the prior (as in :func:`robidlib.benchmark.make_study`): an estimate below
    1 has learned from the data, above 1 it is worse than knowing nothing but the prior.

    Parameters
    ----------
    estimate : array_like, shape (p,) or (R, p)
    truth : array_like, shape (p,)
    std : array_like, shape (p,)
        Positive standard deviations.

    Returns
    -------
    float or numpy.ndarray, shape (R,)

    Raises
    ------
    ValueError
        On mismatched shapes, non-finite input or non-positive ``std``.

    Examples
    --------
    >>> from robidlib.validation import standardized_error
    >>> round(standardized_error([1.2, 3.0], [1.0, 2.0], std=[0.1, 1.0]), 4)   # errors of 2 and 1 sigma
    1.5811
    """
    e, b = _estimates_and_truth(estimate, truth)
    s = _weights("std", std, b.size)
    out = np.sqrt(np.mean(((e - b) / s) ** 2, axis=-1))
    return float(out) if e.ndim == 1 else out


def essential_parameters(params: Any, std: Any, threshold: float = 10.0) -> np.ndarray:
    """Which parameters are determined to a relative standard deviation below ``threshold`` %.

    ``100 std_i / |params_i| < threshold``.  Parameters above it are not identifiable from
    these data at this noise level: their estimates are mostly noise, and an error measure
    that counts them (:func:`relative_parameter_error`) says more about the excitation than
    about the estimator.  Khalil and Dombre :cite:`khalil2002` call the others *essential*
    and fix or drop the rest.  Use a covariance that is right for the noise: for per-joint
    noise that of weighted least squares or the sandwich covariance
    (:func:`robidlib.estimation.lsq.sandwich_cov`), not the pooled-sigma one of ``ols``.

    Parameters
    ----------
    params : array_like, shape (p,)
        Parameter values (the estimate, or the truth in a simulation).
    std : array_like, shape (p,)
        Their standard deviations (>= 0).
    threshold : float, default 10.0
        Largest relative standard deviation in percent (> 0).

    Returns
    -------
    numpy.ndarray of bool, shape (p,)

    Raises
    ------
    ValueError
        On mismatched shapes, non-finite input, negative ``std`` or a non-positive threshold.

    Examples
    --------
    >>> from robidlib.validation import essential_parameters
    >>> essential_parameters([2.0, 0.01, -1.0], [0.02, 0.01, 0.5]).tolist()
    [True, False, False]
    """
    b = as_array("params", params, ndim=1)
    s = as_array("std", std, ndim=1)
    if s.shape != b.shape:
        raise ValueError(f"params and std must have the same shape, got {b.shape} and {s.shape}")
    if np.any(s < 0):
        raise ValueError(f"std must be >= 0, got {s.tolist()}")
    thr = check_positive("threshold", threshold)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(b != 0, 100.0 * s / np.abs(b), np.inf)
    return rel < thr


def relative_torque_error(observed: Any, predicted: Any, per_joint: bool = True) -> float | np.ndarray:
    """Relative torque error ``delta_tau = 100 ||tau_hat - tau|| / ||tau||`` in percent.

    The norm of the prediction error relative to the norm of the observed torques, per joint
    (column) or pooled over all entries.  ``0`` is a perfect prediction; a prediction
    identically zero gives ``100``.  The pooled value is dominated by the joints with the
    largest torques (in a mixed prismatic/revolute arm: the forces of the lift), which is
    why per-joint values are the default.  Unlike the indices it is not bounded.

    Parameters
    ----------
    observed, predicted : array_like, shape (N,) or (N, n)
        Observed (e.g. noise-free validation) and predicted torques, same shape.
    per_joint : bool, default True
        For 2-D input, one value per column; ``False`` pools every entry.

    Returns
    -------
    float or numpy.ndarray, shape (n,)

    Raises
    ------
    ValueError
        If the shapes differ, the input is empty or not finite, or an observed series is
        identically zero (the relative error is undefined).
    TypeError
        If ``per_joint`` is not a bool.

    Examples
    --------
    >>> from robidlib.validation import relative_torque_error
    >>> relative_torque_error([3.0, 4.0], [3.0, 4.5])     # 100 * 0.5 / 5
    10.0
    """
    o, p, scalar = _pair(observed, predicted, per_joint)
    scale = np.abs(o).max(axis=0)
    _undefined("the relative torque error", scale == 0, scalar, "the observed series is identically zero")
    o, p = o / scale, p / scale
    err = 100.0 * np.sqrt(np.sum((p - o) ** 2, axis=0) / np.sum(o**2, axis=0))
    return _out(err, scalar)


# ------------------------------------------------------------------- identified models
def _is_base(obj: Any) -> bool:
    return all(hasattr(obj, a) for a in ("rank", "independent", "dependent", "K", "V1", "method", "names"))


def base_to_standard(base: Any, beta: Any) -> np.ndarray:
    """A standard parameter vector ``pi`` with ``base.beta(pi) == beta``.

    Every ``pi`` with ``base.beta(pi) = beta`` gives the same torques as the base model for
    every motion (``W pi = W_b beta``), hence the same mass matrix, bias torques and forward
    dynamics: the base model *is* a robot.  The simplest such ``pi``:

    * QR regrouping (``base.method == "qr"``): ``pi_ind = beta``, ``pi_dep = 0``, because
      ``beta(pi) = pi_ind + K pi_dep``;
    * SVD basis: ``pi = V1 beta``, because ``beta(pi) = V1' pi`` and ``V1' V1 = I``.

    The result is usually *not* physically consistent (a regrouped link may get zero mass
    and a non-zero first moment); that does not matter for its dynamics.  Any null-space
    direction (:meth:`robidlib.base.BaseParameters.null_space_direction`) can be added
    without changing them.

    Parameters
    ----------
    base : BaseParameters
        From :func:`robidlib.base.base_parameters`.
    beta : array_like, shape (r,) or (K, r)
        Base parameters (``K`` vectors give ``K`` rows).

    Returns
    -------
    numpy.ndarray, shape (p,) or (K, p)
        Standard parameters, in the order of ``base.names``.

    Raises
    ------
    TypeError
        If ``base`` is not a BaseParameters.
    ValueError
        If ``beta`` does not have ``base.rank`` finite entries (last axis).

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.base import base_parameters
    >>> from robidlib.validation import base_to_standard
    >>> W = np.column_stack([np.arange(6.0), np.ones(6), 2 * np.arange(6.0) + np.ones(6)])
    >>> bp = base_parameters(W, names=["a", "b", "c"])      # beta = (a + 2c, b + c)
    >>> pi = base_to_standard(bp, [3.0, 4.0])
    >>> pi.tolist(), bp.beta(pi).tolist()
    ([3.0, 4.0, 0.0], [3.0, 4.0])
    """
    if not _is_base(base):
        raise TypeError(f"base must be a BaseParameters (robidlib.base.base_parameters), got {type(base).__name__}")
    B = as_array("beta", beta, ndim=(1, 2))
    if B.shape[-1] != base.rank:
        raise ValueError(f"beta must have {base.rank} entries (base.rank, last axis), got shape {B.shape}")
    if base.method == "svd":
        return B @ np.asarray(base.V1).T
    pi = np.zeros(B.shape[:-1] + (len(base.names),))
    pi[..., np.asarray(base.independent)] = B
    return pi


@dataclass(frozen=True)
class _Model:
    """A robot, optional base parameters and optional extra friction terms (see _resolve)."""

    robot: Any
    base: Any
    terms: tuple[str, ...]
    n_core: int            # entries of the identified vector before the extra friction terms
    std_friction: bool     # whether the standard vector holds the 2 n friction columns (12 n)
    names: tuple[str, ...]

    @property
    def p(self) -> int:
        return self.n_core + self.robot.n * len(self.terms)

    def standard(self, P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rigid-body standard parameters (K, 10 n) and friction [fv, fc] (K, n, 2) of rows P (K, p)."""
        n = self.robot.n
        K = P.shape[0]
        core, extra = P[:, : self.n_core], P[:, self.n_core:]
        pi = base_to_standard(self.base, core) if self.base is not None else core
        fr = np.zeros((K, n, 2))
        if self.std_friction:
            fr += pi[:, 10 * n:].reshape(K, n, 2)
            pi = pi[:, : 10 * n]
        if self.terms:
            e = extra.reshape(K, n, len(self.terms))
            for c, term in enumerate(self.terms):
                fr[:, :, 0 if term == "viscous" else 1] += e[:, :, c]
        return pi, fr


def _resolve(robot_or_model: Any, base: Any, n_params: int | None) -> _Model:
    """Sort out what the identified parameter vector means.

    * a SerialRobot without ``base``: standard parameters, ``10 n`` (rigid body) or ``12 n``
      (followed by ``fv1, fc1, ...``);
    * a SerialRobot with ``base``: base parameters of ``base`` (computed with or without
      friction columns);
    * an object with ``robot`` and ``base`` attributes (e.g. the model of
      ``robidlib.estimation.robot_base_model``): its base parameters followed by the
      friction terms listed in its ``friction`` attribute (joint-major).
    """
    from .params import friction_names
    from .robot import SerialRobot

    terms: tuple[str, ...] = ()
    if isinstance(robot_or_model, SerialRobot):
        robot = robot_or_model
    elif hasattr(robot_or_model, "robot") and hasattr(robot_or_model, "base"):
        if base is not None:
            raise ValueError("base must not be given with a model object: the model carries its own base")
        robot, base = robot_or_model.robot, robot_or_model.base
        terms = tuple(getattr(robot_or_model, "friction", ()) or ())
        for t in terms:
            check_choice("friction term", t, ("viscous", "coulomb"))
        if not isinstance(robot, SerialRobot):
            raise TypeError(f"model.robot must be a SerialRobot, got {type(robot).__name__}")
    else:
        raise TypeError(
            "robot_or_model must be a SerialRobot or an object with robot and base attributes "
            f"(e.g. robidlib.estimation.robot_base_model(...)), got {type(robot_or_model).__name__}"
        )
    n = robot.n
    rigid, fric = tuple(robot.param_names), tuple(friction_names(n))
    if base is None:
        if n_params == 10 * n:
            return _Model(robot, None, (), 10 * n, False, rigid)
        if n_params == 12 * n:
            return _Model(robot, None, (), 12 * n, True, rigid + fric)
        raise ValueError(
            f"params must hold the {10 * n} standard parameters of the {n}-joint robot (or {12 * n} "
            f"with viscous and Coulomb friction), or give base=...; got {n_params} entries"
        )
    if not _is_base(base):
        raise TypeError(f"base must be a BaseParameters (robidlib.base.base_parameters), got {type(base).__name__}")
    check_same_robot("base", base, robot)
    names = tuple(base.names)
    if names == rigid:
        std_friction = False
    elif names == rigid + fric:
        std_friction = True
        if terms:
            raise ValueError(f"the base parameters already hold the friction columns; extra terms {terms} would repeat them")
    else:
        raise ValueError(
            f"base was computed for other parameters ({len(names)} named {names[:2]}...); expected this "
            f"robot's {10 * n} (or {12 * n} with friction=True)"
        )
    extra = tuple(friction_names(n, terms)) if terms else ()
    model = _Model(robot, base, terms, int(base.rank), std_friction, tuple(base.base_names) + extra)
    if n_params is not None and n_params != model.p:
        raise ValueError(
            f"params must hold {model.p} entries ({base.rank} base parameters"
            + (f" + {len(extra)} friction coefficients" if extra else "")
            + f"), got {n_params}"
        )
    return model


def identified_robot(robot_or_model: Any, params: Any, base: Any = None) -> Any:
    """A :class:`~robidlib.robot.SerialRobot` whose dynamics are those of identified parameters.

    Use it to simulate an identified model with :func:`robidlib.dynamics.simulate` or to
    compute its mass matrix.  Base parameters are turned into standard ones with
    :func:`base_to_standard` (same dynamics).  Friction is taken from ``params`` when they
    hold friction coefficients and is **zero otherwise**: the identified model knows nothing
    else; the robot's own friction is not kept.

    Parameters
    ----------
    robot_or_model : SerialRobot or model object
        The robot (kinematics and gravity are used, its inertial and friction parameters are
        replaced), or an object with ``robot``, ``base`` (and ``friction`` terms) attributes
        such as ``robidlib.estimation.robot_base_model(...)``.
    params : array_like, shape (p,)
        Identified parameters: standard (``10 n`` or ``12 n`` with friction) when ``base`` is
        None, else base parameters (then friction coefficients of the model's terms).
    base : BaseParameters, optional
        The base parameters ``params`` refer to (with a SerialRobot).

    Returns
    -------
    SerialRobot

    Raises
    ------
    ValueError
        If ``params`` has the wrong length or is not finite, ``base`` belongs to another
        robot, or an identified friction coefficient is negative (a SerialRobot refuses it).
    TypeError
        If ``robot_or_model`` or ``base`` has the wrong type.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.base import base_parameters
    >>> from robidlib.dynamics import mass_matrix
    >>> from robidlib.models import planar_2r
    >>> arm = planar_2r()
    >>> bp = base_parameters(arm, rng=0)
    >>> twin = identified_robot(arm, bp.beta(arm.params), base=bp)
    >>> bool(np.allclose(mass_matrix(twin, [0.3, -0.2]), mass_matrix(arm, [0.3, -0.2])))
    True
    """
    P = as_array("params", params, ndim=1)
    model = _resolve(robot_or_model, base, P.size)
    pi, fr = model.standard(P[None])
    if np.any(fr < 0):
        raise ValueError(
            f"the identified friction coefficients must be >= 0 to build a SerialRobot, got {fr[0].tolist()} "
            "([fv, fc] per joint)"
        )
    return model.robot.with_params(pi[0]).with_friction(fr[0])


# ------------------------------------------------------------------ batched simulation
def _mass_bias(robot: Any, q: np.ndarray, qd: np.ndarray, pi: np.ndarray, fr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mass matrices (K, n, n) and bias torques (K, n) of K models at K states.

    One batched regressor call on ``K (n + 2)`` samples: ``(q, 0, 0)`` (gravity),
    ``(q, 0, e_j)`` (gravity + column j of M) and ``(q, qd, 0)`` (gravity + Coriolis and
    centrifugal), each multiplied by its model's parameters.
    """
    from .regressor import regressor

    K, n = q.shape
    Q = np.repeat(q[:, None, :], n + 2, axis=1)
    QD = np.zeros_like(Q)
    QD[:, n + 1] = qd
    QDD = np.zeros_like(Q)
    QDD[:, 1 : n + 1] = np.eye(n)
    Y = regressor(robot, Q.reshape(-1, n), QD.reshape(-1, n), QDD.reshape(-1, n)).reshape(K, n + 2, n, -1)
    T = np.einsum("kmjp,kp->kmj", Y, pi)
    g = T[:, 0]
    M = np.swapaxes(T[:, 1 : n + 1] - g[:, None, :], 1, 2)
    M = 0.5 * (M + np.swapaxes(M, 1, 2))
    h = T[:, n + 1] + fr[:, :, 0] * qd + fr[:, :, 1] * np.sign(qd)
    return M, h


def _uniform_trajectory(trajectory: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    for attr in ("t", "q", "qd", "qdd"):
        if not hasattr(trajectory, attr):
            raise TypeError(
                f"trajectory must have t, q, qd and qdd (a robidlib.trajectories.Trajectory), got {type(trajectory).__name__}"
            )
    t = as_array("trajectory.t", trajectory.t, ndim=1)
    N = t.size
    if N < 2:
        raise ValueError(f"trajectory must hold at least 2 samples, got {N}")
    q = as_array("trajectory.q", trajectory.q, ndim=2)
    n = q.shape[1]
    qd = as_array("trajectory.qd", trajectory.qd, shape=(N, n))
    qdd = as_array("trajectory.qdd", trajectory.qdd, shape=(N, n))
    if q.shape[0] != N:
        raise ValueError(f"trajectory.q must have {N} rows (one per time), got shape {q.shape}")
    dt = np.diff(t)
    h = float(dt.mean())
    if h <= 0 or not np.allclose(dt, h, rtol=1e-6, atol=0.0):
        raise ValueError(
            f"trajectory.t must be uniformly spaced and increasing, got steps from {dt.min():.6g} to {dt.max():.6g} s"
        )
    return t, q, qd, qdd, h


def _hermite(q: np.ndarray, qd: np.ndarray, qdd: np.ndarray, h: float, m: int) -> tuple[np.ndarray, ...]:
    """Reference on a grid ``m`` times finer.

    Cubic Hermite interpolation for ``q`` (from ``q`` and ``qd``) and for ``qd`` (from ``qd``
    and ``qdd``); ``qdd`` by the cubic through the four nearest samples (the three nearest
    for a 3-sample record, linear for 2).  All are fourth-order accurate in the step.
    """
    N, n = q.shape
    s = np.arange(m) / m
    h00, h10, h01, h11 = 2 * s**3 - 3 * s**2 + 1, s**3 - 2 * s**2 + s, -2 * s**3 + 3 * s**2, s**3 - s**2

    def interp(x, dx):
        a, b, da, db = x[:-1, None], x[1:, None], h * dx[:-1, None], h * dx[1:, None]
        w = [c[None, :, None] for c in (h00, h10, h01, h11)]
        fine = w[0] * a + w[1] * da + w[2] * b + w[3] * db
        return np.concatenate([fine.reshape(-1, n), x[-1:]], axis=0)

    # Lagrange cubic through samples j0 .. j0 + 3 (clipped to the record) at k + s
    k = np.arange(N - 1)
    width = min(4, N)
    j0 = np.clip(k - 1, 0, N - width)
    nodes = np.arange(width)
    x = (k - j0)[:, None] + s[None, :]                           # position among the nodes (N-1, m)
    L = np.ones((N - 1, m, width))
    for a in range(width):
        for b in range(width):
            if a != b:
                L[:, :, a] *= (x - nodes[b]) / (nodes[a] - nodes[b])
    idx = j0[:, None] + nodes[None, :]                            # (N-1, width)
    qdd_f = np.einsum("kma,kaj->kmj", L, qdd[idx]).reshape(-1, n)
    return interp(q, qd), interp(qd, qdd), np.concatenate([qdd_f, qdd[-1:]])


@dataclass(frozen=True)
class TrackingResult:
    """Result of :func:`simulate_tracking`.

    Attributes
    ----------
    t : numpy.ndarray, shape (N,)
        Sample times, s.
    q, qd, tau : numpy.ndarray, shape (K, N, n) or (N, n)
        Joint positions, velocities and the controller's torques of each model at the sample
        times (the leading axis is dropped for a single parameter vector).
    q_ref : numpy.ndarray, shape (N, n)
        The reference positions.
    kp, kd : numpy.ndarray, shape (n,)
        The controller gains used.
    failed : numpy.ndarray of bool, shape (K,) (or a bool)
        Models whose simulation failed (``on_failure="nan"``): their outputs are NaN from the
        sample where it happened.
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    tau: np.ndarray
    q_ref: np.ndarray
    kp: np.ndarray
    kd: np.ndarray
    failed: np.ndarray | bool = False

    def __post_init__(self) -> None:
        d = check_fields(self, t=("N",), q_ref=("N", "n"), kp=("n",), kd=("n",))
        failed = np.asarray(self.failed)
        if failed.dtype != bool:
            raise TypeError(f"failed must be a bool or an array of bools, got dtype {failed.dtype}")
        one = failed.ndim == 0
        K = None if one else failed.shape[0]
        spec = (d["N"], d["n"]) if one else (K, d["N"], d["n"])
        check_fields(self, finite=False, q=spec, qd=spec, tau=spec)
        for name in ("q", "qd", "tau"):                  # NaN only where a simulation failed
            bad = ~np.isfinite(getattr(self, name))
            if np.any(bad if one else bad[~failed]) and not (one and bool(failed)):
                raise ValueError(f"{name} must be finite for the models that did not fail (see failed)")
        object.__setattr__(self, "failed", bool(failed) if one else failed)


def simulate_tracking(
    robot_or_model: Any,
    params: Any,
    trajectory: Any,
    *,
    base: Any = None,
    feedforward: Any = None,
    bandwidth: float = 2.0,
    damping: float = 1.0,
    substeps: int = 2,
    on_failure: str = "raise",
) -> TrackingResult:
    """Simulate models that track a reference with the same PD + feed-forward controller.

    Every model ``k`` (one parameter vector each) starts on the reference and is driven by::

        tau = tau_ff(t) + Kp (q_ref(t) - q) + Kd (qd_ref(t) - qd)

    where ``tau_ff`` is the inverse dynamics of the ``feedforward`` model along the
    reference (the controller's model of the robot) and the gains give each joint a
    closed-loop bandwidth ``bandwidth`` (Hz) and damping ratio ``damping`` on the
    feed-forward model's mean mass-matrix diagonal ``m_j``: ``Kp_j = m_j w^2``,
    ``Kd_j = 2 damping m_j w``, ``w = 2 pi bandwidth``.  Open-loop simulation (the same
    torques, no feedback) is useless for validation over more than a fraction of a second:
    an arm under gravity is unstable and even the exact model drifts away.  With feedback
    the motion stays close to the reference and the differences between the models show in
    the tracking errors.

    All models are integrated together by the classical fourth-order Runge-Kutta method with
    the step ``dt / substeps`` (``dt`` the trajectory's sampling period): the dynamics are
    linear in the parameters, so one batched regressor evaluation per stage gives every
    model's mass matrix and bias torques.  Between samples the reference is interpolated to
    fourth order: cubic Hermite for positions (from positions and velocities) and velocities
    (from velocities and accelerations), the cubic through four neighbouring samples for
    accelerations.

    Parameters
    ----------
    robot_or_model : SerialRobot or model object
        See :func:`identified_robot`.
    params : array_like, shape (p,) or (K, p)
        Parameter vector(s) of the model(s) to simulate.
    trajectory : Trajectory
        Reference (``t`` uniformly spaced, ``q``, ``qd``, ``qdd``).
    base : BaseParameters, optional
        When ``params`` are base parameters (with a SerialRobot).
    feedforward : array_like, shape (p,), optional
        Parameters of the controller's model (default: the first row of ``params``).
    bandwidth : float, default 2.0
        Closed-loop bandwidth in Hz (> 0).
    damping : float, default 1.0
        Damping ratio (> 0).
    substeps : int, default 2
        Runge-Kutta steps per sample (1 to 1000).  The explicit method is stable while the step is
        small against the fastest closed-loop time constant, roughly ``m_min / Kd`` for the
        smallest effective inertia ``m_min`` of any model: a model with a much smaller inertia
        than the feed-forward model (e.g. a -50 % variation of an inertia) may need more.
    on_failure : {"raise", "nan"}, default "raise"
        What to do when a model's mass matrix is singular or its motion blows up (a
        non-physical parameter set whose mass matrix is not positive definite, or a loop too
        stiff for the step): raise a ``ValueError``, or mark the model in
        ``TrackingResult.failed``, fill its outputs with NaN and go on with the others.

    Returns
    -------
    TrackingResult

    Raises
    ------
    ValueError
        Bad shapes or values, a non-uniform time grid, a singular mass matrix or a
        simulation that blows up (the message names the model and suggests more substeps).
    TypeError
        If ``robot_or_model``, ``base`` or ``trajectory`` has the wrong type.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.models import planar_2r
    >>> from robidlib.trajectories import quintic
    >>> arm = planar_2r()
    >>> ref = quintic(np.linspace(0.0, 1.0, 51), [0.0, 0.0], [0.5, -0.5], T=1.0)
    >>> heavy = arm.params * 1.2
    >>> res = simulate_tracking(arm, [arm.params, heavy], ref)   # the controller knows the first
    >>> err = np.abs(res.q - ref.q).max(axis=(1, 2))
    >>> bool(err[0] < 1e-4), bool(err[1] > 1e-2)     # rad: the second model lags behind
    (True, True)
    """
    P = as_array("params", params, ndim=(1, 2))
    single = P.ndim == 1
    P2 = P[None] if single else P
    if P2.shape[0] == 0:
        raise ValueError(f"params must hold at least one parameter vector, got shape {P.shape}")
    model = _resolve(robot_or_model, base, P2.shape[1])
    t, q_ref, qd_ref, qdd_ref, dt = _uniform_trajectory(trajectory)
    n = model.robot.n
    if q_ref.shape[1] != n:
        raise ValueError(f"trajectory must have {n} joints (columns) for this robot, got {q_ref.shape[1]}")
    ff = P2[0] if feedforward is None else as_array("feedforward", feedforward, shape=(model.p,))
    w = 2.0 * np.pi * check_positive("bandwidth", bandwidth)
    zeta = check_positive("damping", damping)
    substeps = check_int("substeps", substeps, 1, _MAX_SUBSTEPS)
    check_choice("on_failure", on_failure, ("raise", "nan"))
    m = 2 * int(substeps)                         # reference on a grid of half steps
    h = dt / substeps
    qf, qdf, qddf = _hermite(q_ref, qd_ref, qdd_ref, dt, m)

    from .regressor import regressor

    pi_ff, fr_ff = model.standard(ff[None])
    tau_ff = regressor(model.robot, qf, qdf, qddf) @ pi_ff[0] + fr_ff[0, :, 0] * qdf + fr_ff[0, :, 1] * np.sign(qdf)
    every = max(1, t.size // 50)                  # mean mass-matrix diagonal from <= ~50 samples
    Mff, _ = _mass_bias(model.robot, q_ref[::every], np.zeros_like(q_ref[::every]),
                        np.repeat(pi_ff, q_ref[::every].shape[0], axis=0),
                        np.repeat(fr_ff, q_ref[::every].shape[0], axis=0))
    mbar = np.abs(np.diagonal(Mff, axis1=1, axis2=2)).mean(axis=0)
    kp, kd = mbar * w**2, 2.0 * zeta * mbar * w

    pi, fr = model.standard(P2)
    K = P2.shape[0]

    def control(i, q, qd):
        return tau_ff[i] + kp * (qf[i] - q) + kd * (qdf[i] - qd)

    alive = np.ones(K, dtype=bool)
    died = np.full(K, -1)

    def accel(q, qd, tau, k_sample):
        # the states of failed models are replaced by finite values; their outputs become NaN
        qs, qds = np.where(alive[:, None], q, q_ref[0]), np.where(alive[:, None], qd, 0.0)
        taus = np.where(alive[:, None], tau, 0.0)
        with np.errstate(over="ignore", invalid="ignore"):   # a blow-up is reported below, once
            M, hb = _mass_bias(model.robot, qs, qds, pi, fr)
            rhs = taus - hb
            finite = np.all(np.isfinite(M), axis=(1, 2)) & np.all(np.isfinite(rhs), axis=1)
            qdd = np.zeros_like(q)
            singular = np.zeros(K, dtype=bool)
            use = alive & finite
            try:
                qdd[use] = np.linalg.solve(M[use], rhs[use][..., None])[..., 0]
            except np.linalg.LinAlgError:                     # find the culprit(s) one by one
                for j in np.flatnonzero(use):
                    try:
                        qdd[j] = np.linalg.solve(M[j], rhs[j])
                    except np.linalg.LinAlgError:
                        singular[j] = True
        ok = use & ~singular & np.all(np.isfinite(qdd), axis=1)
        new = alive & ~ok
        if np.any(new):
            idx = np.flatnonzero(new).tolist()
            if on_failure == "raise":
                if np.any(singular):
                    raise ValueError(
                        f"model(s) {np.flatnonzero(singular).tolist()} have a singular mass matrix along the "
                        "simulation; check their parameters"
                    )
                raise ValueError(
                    f"the simulation of model(s) {idx} blew up (non-finite accelerations) near t = "
                    f"{t[k_sample]:.3g} s: a non-physical parameter set (mass matrix not positive definite), or a "
                    f"loop too stiff for the step; increase substeps (now {substeps}) or lower the bandwidth"
                )
            alive[new] = False
            died[new] = k_sample
        qdd[~alive] = 0.0
        return qdd

    N = t.size
    Qo, QDo, To = np.empty((K, N, n)), np.empty((K, N, n)), np.empty((K, N, n))
    q = np.repeat(q_ref[:1], K, axis=0)
    qd = np.repeat(qd_ref[:1], K, axis=0)
    for k in range(N):
        i0 = k * m
        Qo[:, k], QDo[:, k] = q, qd
        To[:, k] = control(i0, q, qd)
        if k == N - 1:
            break
        for s in range(substeps):
            a, b, c = i0 + 2 * s, i0 + 2 * s + 1, i0 + 2 * s + 2
            k1v = accel(q, qd, control(a, q, qd), k)
            q2, qd2 = q + 0.5 * h * qd, qd + 0.5 * h * k1v
            k2v = accel(q2, qd2, control(b, q2, qd2), k)
            q3, qd3 = q + 0.5 * h * qd2, qd + 0.5 * h * k2v
            k3v = accel(q3, qd3, control(b, q3, qd3), k)
            q4, qd4 = q + h * qd3, qd + h * k3v
            k4v = accel(q4, qd4, control(c, q4, qd4), k)
            with np.errstate(over="ignore", invalid="ignore"):
                q = q + (h / 6.0) * (qd + 2 * qd2 + 2 * qd3 + qd4)
                qd = qd + (h / 6.0) * (k1v + 2 * k2v + 2 * k3v + k4v)
    for j in np.flatnonzero(~alive):                     # a failed model has no motion from then on
        Qo[j, died[j]:] = QDo[j, died[j]:] = To[j, died[j]:] = np.nan
    failed = ~alive
    if single:
        Qo, QDo, To, failed = Qo[0], QDo[0], To[0], failed[0]
    return TrackingResult(t=t.copy(), q=Qo, qd=QDo, tau=To, q_ref=q_ref.copy(), kp=kp, kd=kd, failed=failed)


# ------------------------------------------------------------------------- sensitivity
@dataclass(frozen=True)
class SensitivityResult:
    """Result of :func:`sensitivity`.

    Attributes
    ----------
    names : tuple of str
        Parameter names, length ``p``.
    params : numpy.ndarray, shape (p,)
        Nominal parameters.
    variations : numpy.ndarray, shape (m,)
        Variations applied: relative (fractions: ``-0.5`` is -50 %) or, when ``scale`` is
        set, multiples of ``scale`` (``-3`` is ``params - 3 scale``).
    rms_joint : numpy.ndarray, shape (p, m, n)
        :func:`rms_index` of each joint's output against the nominal output.
    rms : numpy.ndarray, shape (p, m)
        Mean of ``rms_joint`` over the joints (every joint weighs the same).
    output : {"q", "tau"}
        What was compared: simulated joint positions or joint torques.
    nominal : numpy.ndarray, shape (N, n)
        The nominal output.
    failed : numpy.ndarray of bool, shape (p, m)
        Variations whose model could not be simulated (``output="q"``): the mass matrix of the
        varied base parameters is singular or not positive definite along the motion (a
        non-physical model), or the motion blew up.  Their indices are NaN.
    scale : numpy.ndarray, shape (p,), or None
        The absolute step of each parameter (e.g. its standard deviation), or ``None`` for
        relative variations.
    """

    names: tuple[str, ...]
    params: np.ndarray
    variations: np.ndarray
    rms_joint: np.ndarray
    rms: np.ndarray
    output: str
    nominal: np.ndarray
    failed: np.ndarray
    scale: np.ndarray | None = None

    def __post_init__(self) -> None:
        d = check_fields(self, params=("p",), variations=("m",), nominal=("N", "n"))
        if d["N"] == 0 or d["p"] == 0:
            raise ValueError(f"params and nominal must not be empty, got shapes {self.params.shape} and {self.nominal.shape}")
        names = tuple(self.names) if not isinstance(self.names, str) else self.names
        if not isinstance(names, str) and len(names) != d["p"]:
            raise ValueError(f"names must have {d['p']} entries (one per entry of params), got {len(names)}")
        object.__setattr__(self, "names", check_names("names", names, d["p"]))
        check_choice("output", self.output, ("q", "tau"))
        failed = np.asarray(self.failed)
        if failed.dtype != bool or failed.shape != (d["p"], d["m"]):
            raise ValueError(f"failed must be a bool array of shape ({d['p']}, {d['m']}) (params x variations), "
                             f"got {failed.dtype} {failed.shape}")
        object.__setattr__(self, "failed", failed)
        for name, spec in (("rms_joint", (d["p"], d["m"], d["n"])), ("rms", (d["p"], d["m"]))):
            shape = np.shape(getattr(self, name))
            if shape != spec:
                raise ValueError(f"{name} must have shape {spec} (params x variations"
                                 f"{' x joints of nominal' if len(spec) == 3 else ''}), got {shape}")
        check_fields(self, finite=False, rms_joint=(d["p"], d["m"], d["n"]), rms=(d["p"], d["m"]))
        for name in ("rms_joint", "rms"):
            a = getattr(self, name)
            ok = a[~failed]
            if not np.all(np.isfinite(ok)) or np.any(ok < 0):
                raise ValueError(f"{name} must be finite and >= 0 where the variation did not fail")
        if self.scale is not None:
            check_fields(self, scale=(d["p"],))
            if np.any(self.scale <= 0):
                raise ValueError(f"scale must be > 0 (one per entry of params), got {self.scale.tolist()}")

    @property
    def max_rms(self) -> np.ndarray:
        """Largest RMS index of each parameter over the variations that could be simulated, shape ``(p,)``."""
        return np.where(np.all(self.failed, axis=1), np.nan,
                        np.max(np.where(self.failed, -np.inf, self.rms), axis=1))

    def ranking(self) -> tuple[str, ...]:
        """Parameter names from the most to the least influential (by :attr:`max_rms`)."""
        order = np.argsort(-np.nan_to_num(self.max_rms, nan=-np.inf), kind="stable")
        return tuple(self.names[i] for i in order)

    def to_markdown(self, digits: int = 3, top: int | None = None) -> str:
        """A markdown table: one row per parameter (most influential first), one column per variation.

        Parameters
        ----------
        digits : int, default 3
            Significant digits.
        top : int, optional
            Only the ``top`` most influential parameters.

        Returns
        -------
        str
            ``failed`` marks the variations that could not be simulated.
        """
        order = np.argsort(-np.nan_to_num(self.max_rms, nan=-np.inf), kind="stable")
        digits = check_int("digits", digits, 1, 17)
        if top is not None:
            order = order[: check_int("top", top, 1)]
        if self.scale is None:
            labels = [f"{100 * v:+.0f} %" for v in self.variations]
        else:
            labels = [f"{v:+g} σ" for v in self.variations]
        head = "| parameter | value | " + " | ".join(labels) + " |"
        sep = "|---|---:|" + "---:|" * self.variations.size
        rows = [head, sep]
        for i in order:
            cells = " | ".join("failed" if f else f"{x:.{digits}g}" for x, f in zip(self.rms[i], self.failed[i]))
            rows.append(f"| {self.names[i]} | {self.params[i]:.{digits}g} | {cells} |")
        return "\n".join(rows)


def sensitivity(
    robot_or_model: Any,
    params: Any,
    trajectory: Any,
    variation: float = 0.5,
    steps: int | Sequence[float] = 5,
    *,
    base: Any = None,
    output: str = "q",
    names: Sequence[str] | None = None,
    bandwidth: float = 2.0,
    damping: float = 1.0,
    substeps: int = 2,
    scale: Any = None,
) -> SensitivityResult:
    """Sensitivity of the motion (or the torques) to each parameter, one at a time.

    Each parameter ``i`` is multiplied by ``1 + s`` for every relative variation ``s`` of
    the grid (``-variation .. +variation``) -- or, with ``scale``, moved to
    ``params_i + s scale_i`` (absolute variations, e.g. ``+-3`` standard deviations of the
    estimate or of the prior) --, the others keeping their nominal values, and
    the output of the varied model is compared with the nominal model's by
    :func:`rms_index`, joint by joint:

    * ``output="q"``: both models track ``trajectory`` with the same PD + feed-forward
      controller, whose feed-forward is computed with the *nominal* parameters
      (:func:`simulate_tracking`); the varied model's tracking error is the effect of the
      parameter error on the motion (the paper's Table 6 and Figure 8 in this closed-loop
      form; open loop, an arm under gravity drifts away whatever the parameters);
    * ``output="tau"``: the torques of both models along ``trajectory`` (inverse dynamics);
      the index then grows almost linearly with ``|s|`` and the parameter's contribution
      ``|b_i| ||W_i||`` to the torques.

    A parameter whose nominal value is 0 cannot be varied relatively: its RMS index is 0.
    Relative variations also build in a correlation: a parameter's effect is about
    ``|s| |b_i| ||W_i||`` while its relative standard deviation is about
    ``sigma / (|b_i| ||W_i||)`` (orthogonal columns), so "influential parameters are well
    determined" holds by construction; varying by standard deviations asks another question
    (which uncertainties matter for the motion).
    A variation of 0 reproduces the nominal model, whose index is exactly 0 (identical
    parameter vectors are simulated once).  Varying a *base* parameter alone can give a
    non-physical model: a regrouped inertia halved may leave a mass matrix that is not
    positive definite for some postures.  Such a model cannot be simulated; its entry is
    NaN, flagged in :attr:`SensitivityResult.failed`, and a ``RuntimeWarning`` names it.  Note that the RMS index of positions, being
    Theil's ``U1``, depends on where the joint zero is (the mean position enters its
    denominator); compare parameters with each other, not with indices of other robots.

    Parameters
    ----------
    robot_or_model : SerialRobot or model object
        See :func:`identified_robot`.
    params : array_like, shape (p,)
        Nominal (identified) parameters: standard ones, or base parameters with ``base``.
    trajectory : Trajectory
        Reference motion (``t`` uniformly spaced, ``q``, ``qd``, ``qdd``).
    variation : float, default 0.5
        Largest variation: relative, in ``(0, 1]`` (0.5 = +-50 %), or in units of ``scale``
        (any positive number) when ``scale`` is given.
    steps : int or array_like, default 5
        Number of variations evenly spaced in ``[-variation, variation]`` (an int >= 2), or
        the relative variations themselves (each within ``[-variation, variation]``).
    base : BaseParameters, optional
        When ``params`` are base parameters of a SerialRobot.
    output : {"q", "tau"}, default "q"
        Compare simulated joint positions or joint torques.
    names : sequence of str, optional
        Parameter names (default: the base or standard names).
    bandwidth, damping, substeps
        Controller and integration settings of :func:`simulate_tracking` (``output="q"``).
    scale : array_like, shape (p,), optional
        Positive absolute step of each parameter (e.g. standard deviations); the variations
        are then multiples of it.

    Returns
    -------
    SensitivityResult

    Raises
    ------
    ValueError
        If ``variation`` is not in ``(0, 1]``, ``steps`` is not an int >= 2 or a non-empty
        1-D array of variations within the range, the shapes do not match, an output series
        makes the RMS index undefined, or a simulation fails.
    TypeError
        For arguments of the wrong type.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.models import planar_2r
    >>> from robidlib.trajectories import quintic
    >>> arm = planar_2r()
    >>> ref = quintic(np.linspace(0.0, 1.0, 51), [0.0, 0.0], [0.5, -0.5], T=1.0)
    >>> res = sensitivity(arm, arm.params, ref, steps=[-0.5, 0.0, 0.5], output="tau")
    >>> res.rms.shape, float(res.rms[:, 1].max())          # 20 parameters; 0 % changes nothing
    ((20, 3), 0.0)
    >>> res.ranking()[:2]                          # the first moments of mass matter most
    ('mx2', 'mx1')
    >>> sd = np.full(20, 0.01)                     # +-3 "standard deviations" of 0.01
    >>> res3 = sensitivity(arm, arm.params, ref, variation=3.0, steps=[-3.0, 3.0], output="tau", scale=sd)
    >>> res3.ranking()[:1], res3.scale.shape       # equal steps of 0.01 each
    (('mx2',), (20,))
    """
    v = check_positive("variation", variation)
    if v > 1.0 and scale is None:
        raise ValueError(f"variation must be in (0, 1] (a fraction: 0.5 is +-50 %; give scale for absolute "
                         f"variations), got {v}")
    if isinstance(steps, (bool, np.bool_)):
        raise TypeError(f"steps must be an int >= 2 or an array of variations, got {steps!r}")
    if isinstance(steps, (int, np.integer)):
        if not 2 <= steps <= _MAX_STEPS:
            raise ValueError(
                f"steps must be an int from 2 to {_MAX_STEPS} (variations from -variation to +variation), got {steps}"
            )
        grid = np.linspace(-v, v, int(steps))
    else:
        grid = as_array("steps", steps, ndim=1)
        if not 1 <= grid.size <= _MAX_STEPS:
            raise ValueError(f"steps must hold 1 to {_MAX_STEPS} variations, got {grid.size}")
        if np.any(np.abs(grid) > v * (1 + 1e-12)):
            raise ValueError(f"steps must lie within [-variation, variation] = [{-v}, {v}], got {grid.tolist()}")
    check_choice("output", output, ("q", "tau"))
    P = as_array("params", params, ndim=1)
    model = _resolve(robot_or_model, base, P.size)
    p = P.size
    if names is None:
        names_t = model.names
    else:
        names_t = check_names("names", names, p)

    if scale is not None:
        sc = as_array("scale", scale, shape=(p,))
        if np.any(sc <= 0):
            raise ValueError(f"scale must be > 0 (one step per parameter), got {sc.tolist()}")
    m = grid.size
    rows = np.repeat(P[None], 1 + p * m, axis=0)
    for i in range(p):
        rows[1 + i * m : 1 + (i + 1) * m, i] = P[i] * (1.0 + grid) if scale is None else P[i] + grid * sc[i]
    unique, inverse = np.unique(rows, axis=0, return_inverse=True)
    inverse = np.asarray(inverse).reshape(-1)

    failed_unique = np.zeros(unique.shape[0], dtype=bool)
    if output == "q":
        res = simulate_tracking(
            robot_or_model, unique, trajectory, base=base, feedforward=P,
            bandwidth=bandwidth, damping=damping, substeps=substeps, on_failure="nan",
        )
        out = res.q
        failed_unique = np.asarray(res.failed, dtype=bool)
        if failed_unique[inverse[0]]:
            raise ValueError("the nominal model itself cannot be simulated (singular mass matrix or blow-up); "
                             "check params, or increase substeps / lower the bandwidth")
    else:
        from .regressor import regressor

        _, q, qd, qdd, _ = _uniform_trajectory(trajectory)
        if q.shape[1] != model.robot.n:
            raise ValueError(f"trajectory must have {model.robot.n} joints (columns), got {q.shape[1]}")
        pi, fr = model.standard(unique)
        Y = regressor(model.robot, q, qd, qdd)
        out = np.einsum("tjp,kp->ktj", Y, pi) + fr[:, None, :, 0] * qd + fr[:, None, :, 1] * np.sign(qd)
    nominal = out[inverse[0]]
    n = nominal.shape[1]
    per_unique = np.full((unique.shape[0], n), np.nan)
    for u in np.flatnonzero(~failed_unique):
        per_unique[u] = rms_index(nominal, out[u])
    rms_joint = per_unique[inverse[1:]].reshape(p, m, n)
    failed = failed_unique[inverse[1:]].reshape(p, m)
    if np.any(failed):
        import warnings

        what = ", ".join(f"{names_t[i]} {100 * grid[j]:+.0f} %" if scale is None else f"{names_t[i]} {grid[j]:+g} s"
                         for i, j in zip(*np.nonzero(failed)))
        warnings.warn(
            f"{int(failed.sum())} varied model(s) could not be simulated (mass matrix singular or not positive "
            f"definite along the motion, or a blow-up): {what}; their RMS index is NaN",
            RuntimeWarning,
            stacklevel=2,
        )
    return SensitivityResult(
        names=names_t, params=P.copy(), variations=grid.copy(), rms_joint=rms_joint,
        rms=rms_joint.mean(axis=2), output=output, nominal=nominal.copy(), failed=failed,
        scale=None if scale is None else sc.copy(),
    )
