"""Checks of the exercises of chapter 8 (the extended Kalman filter).

Every check prints one line of feedback (a tick or a cross and what to do next) and returns
``True`` or ``False``. It never raises because of the answer: an untouched stub, a function
that returns ``None`` or raises, a list, a ``float32`` value, NaN, text or a wrong shape all get
a ✘ with a hint (:mod:`robidlib.checks._report`). Only a misuse of the check itself (an
argument the chapter passes that is not what the exercise states, e.g. a negative time step)
raises ``ValueError``.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

from .._validate import as_array
from ._report import Unanswered, as_answer_array, call_answer, data_number, report, stored_answers, student_check

__all__ = [
    "check_euler_bias_order",
    "check_unobservable_at_rest",
    "check_nees_function",
    "check_arm_process_noise",
]

#: Parameter names of the pendulum (robidlib.models.Pendulum): a = [I + m l^2, m g l, b].
PENDULUM_NAMES = ("a1", "a2", "a3")

#: Relative tolerance of a computed number: four significant digits, so that a rounded
#: answer or a float32 computation is accepted.
RTOL = 1e-3

#: Relative tolerance of the NEES function: the same function in float32 differs by up to
#: cond(P) * 6e-8 (about 1e-5 for the test covariances); the wrong answers the check names
#: differ by far more.
RTOL_NEES = 1e-4


def _numbers(value: Any, what: str) -> tuple[bool, Any]:
    """An answer as a 1-D float array (lists, tuples, any real dtype), or a message."""
    if isinstance(value, (str, bytes)):
        return False, f"{what} must be numbers, got the text {value!r}"
    ok, arr = as_answer_array(value, what)
    if not ok:
        return False, arr
    if arr.dtype == bool or np.asarray(value).dtype == bool:
        return False, f"{what} must be numbers, got booleans"
    if arr.ndim != 1:
        return False, f"{what} must be a flat list of numbers, got shape {arr.shape}"
    return True, arr


@student_check("For each dt, run the Euler filter on exact angle samples and append "
               "max |a_hat / a - 1| to biases.")
def check_euler_bias_order(dts: Any, biases: Any) -> bool:
    """Check that the bias of an Euler-discretised EKF shrinks like ``dt`` (chapter 8, exercise 1).

    Explicit Euler has a local error ``O(dt^2)`` and a global error ``O(dt)``: the parameter
    bias it causes should fall roughly in proportion to the time step.  The check fits
    ``log(bias) = c + s log(dt)`` by least squares and accepts a slope ``0.7 <= s <= 1.3``
    (an order is a rough property: the noise and the record length move it a little).

    Parameters
    ----------
    dts : sequence of float, length >= 3
        Time steps (s), all different and positive.
    biases : sequence of float, same length
        The relative parameter errors at those steps (positive numbers).

    Returns
    -------
    bool

    Examples
    --------
    >>> check_euler_bias_order([0.02, 0.01, 0.005], [0.04, 0.02])
    ✘ dts has 3 time steps but biases has 2 values: append one bias per time step
    False
    >>> check_euler_bias_order([0.02, 0.01, 0.005], ...)
    ✘ not answered yet: replace the `...` of the stub. For each dt, run the Euler filter on exact angle samples and append max |a_hat / a - 1| to biases.
    False
    """
    ok, h = _numbers(dts, "dts")
    if not ok:
        return report(False, h)
    ok, b = _numbers(biases, "biases")
    if not ok:
        return report(False, b)
    if b.size == 0:
        raise Unanswered("biases is empty, as in the stub")
    if h.size != b.size:
        return report(False, f"dts has {h.size} time steps but biases has {b.size} values: "
                             "append one bias per time step")
    if h.size < 3:
        return report(False, f"an order needs at least 3 time steps, got {h.size}")
    if np.any(h <= 0) or np.unique(h).size != h.size:
        return report(False, f"the time steps must be positive and all different, got {h.tolist()}")
    if np.any(b <= 0):
        return report(False, "the biases must be positive: take the absolute value of the relative error")
    slope = float(np.polyfit(np.log(h), np.log(b), 1)[0])
    if 0.7 <= slope <= 1.3:
        return report(True, f"the bias falls like dt^{slope:.2f}: first order, as the global error "
                            "of Euler's method")
    if slope < 0:
        return report(False, f"the bias grows as dt shrinks (slope {slope:.2f}): are dts and biases "
                             "in the same order?")
    if slope < 0.7:
        return report(False, f"slope {slope:.2f}: the bias hardly depends on dt - is something else "
                             "(noise, the torque hold, too short a record) larger than the "
                             "discretisation error?")
    return report(False, f"slope {slope:.2f}: faster than first order - did you use RK4, or the "
                         "squared error?")


@student_check("List the names (among 'a1', 'a2', 'a3') of the parameters the null space of the "
               "observability matrix points along.")
def check_unobservable_at_rest(names: Any, q0: float = 0.5) -> bool:
    """Check which pendulum parameters are unobservable at rest (chapter 8, exercise 2).

    The pendulum ``a1 qdd + a2 sin q + a3 qd = tau`` is held at rest at the angle ``q0``
    and its angle is measured.  Which parameters leave no trace in the measurements?

    Parameters
    ----------
    names : sequence of str
        Your unobservable parameters, among ``"a1"``, ``"a2"``, ``"a3"`` (any order).
    q0 : float, default 0.5
        The rest angle (rad) the answer is for.

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        A value of the wrong type (text, a bool, complex numbers) where the chapter's data or
        numbers are meant (a misuse of the check; a wrong *answer* is reported, not raised).
    ValueError
        If ``q0`` is not a finite real number (a misuse of the check).

    Examples
    --------
    >>> check_unobservable_at_rest("a1")
    ✘ names must be a list of names such as ['a1'], got the text 'a1'
    False
    """
    q0 = data_number("q0", q0)
    if names is None:
        return report(False, "names is None: did you forget to assign it?")
    if isinstance(names, (str, bytes)):
        return report(False, f"names must be a list of names such as ['a1'], got the text {names!r}")
    try:
        got = list(names)
    except TypeError:
        return report(False, f"names must be a list of names such as ['a1'], got {type(names).__name__}")
    if not all(isinstance(s, (str, np.str_)) for s in got):
        return report(False, f"names must hold strings such as 'a1', got {got!r}")
    unknown = sorted(set(got) - set(PENDULUM_NAMES))
    if unknown:
        return report(False, f"unknown parameter name(s) {unknown}: the pendulum has a1, a2, a3")
    ref = stored_answers("ekf")["unobservable_at_rest"]
    expected = set(ref["away_from_zero"] if abs(math.sin(q0)) > 1e-9 else ref["at_zero"])
    given = set(got)
    if given == expected:
        if len(expected) == len(PENDULUM_NAMES):
            return report(True, "at q0 = 0 even gravity gives no torque: no parameter is observable at rest")
        return report(True, f"at rest only the static balance is seen: {' and '.join(sorted(expected))} "
                            "are unobservable")
    extra = sorted(given - expected)
    if extra:
        return report(False, f"{', '.join(extra)} is observable at rest: its regressor column does not vanish "
                             "when qd = qdd = 0, so it sets the torque that holds the pendulum")
    if not given:
        return report(False, "the list is empty, but the observability matrix at rest is rank deficient: "
                             "which states does its null space point along?")
    missing = sorted(expected - given)
    return report(False, f"{', '.join(missing)} also leave(s) no trace: which regressor columns "
                         "vanish at rest?")


@student_check("Complete the body of my_nees: return e' P^-1 e as a number, without forming P^-1.")
def check_nees_function(func: Callable[[np.ndarray, np.ndarray], Any]) -> bool:
    """Check a function computing the normalised estimation error squared (chapter 8, exercise 3).

    ``func(e, P)`` must return the NEES of one error vector ``e`` (shape ``(nx,)``) with its
    covariance ``P`` (shape ``(nx, nx)``), as a number.  It is called on 20 random cases,
    ``nx = 1 .. 5``, and must agree to a relative ``1e-4`` (four significant digits: a float32
    computation passes).

    Parameters
    ----------
    func : callable
        Your function.

    Returns
    -------
    bool

    Examples
    --------
    >>> check_nees_function(lambda e, P: None)
    ✘ your function returned None: did you forget `return`?
    False
    """
    for case in stored_answers("ekf")["nees"]:
        e, P, expected, slips = np.array(case["e"]), np.array(case["P"]), case["expected"], case["slips"]
        nx = e.size
        ok, got = call_answer(func, e.copy(), P.copy())
        if not ok:
            return report(False, got)
        if isinstance(got, (str, bytes)):
            return report(False, f"your function returned the text {got!r}: return a number")
        ok, arr = as_answer_array(got, "the value your function returned")
        if not ok:
            return report(False, arr)
        if arr.size != 1:
            return report(False, f"for nx = {nx} your function returned shape {arr.shape}: the NEES is "
                                 "one number per error vector")
        value = float(arr.reshape(()))
        if math.isclose(value, expected, rel_tol=RTOL_NEES):
            continue
        if math.isclose(value, slips["not_inverse"], rel_tol=RTOL_NEES):
            return report(False, "you computed e' P e: the NEES weighs the error with the *inverse* of P")
        if math.isclose(value, slips["square_root"], rel_tol=RTOL_NEES):
            return report(False, "you returned the square root: the NEES is the squared normalised error")
        if nx > 1 and math.isclose(value, slips["diagonal"], rel_tol=RTOL_NEES):
            return report(False, "you used only the diagonal of P: the correlations matter, use the "
                                 "full matrix")
        return report(False, f"for nx = {nx} expected {expected:.6g}, got {value:.6g}")
    return report(True, "e' P^-1 e is right on 20 random cases")


def _arm_reference(q: np.ndarray, sigma_tau: np.ndarray, dt: float) -> dict:
    """The stored reference of exercise 4's setting; another setting is computed by the
    instructor-only :mod:`robidlib.checks.answers` (absent from the student edition)."""
    ref = stored_answers("ekf")["arm_process_noise"]
    if np.allclose(q, ref["q"], rtol=0, atol=1e-12) and np.allclose(sigma_tau, ref["sigma_tau"], rtol=1e-12) \
            and math.isclose(dt, ref["dt"], rel_tol=1e-12):
        return ref
    try:
        from .answers import _jsonable
        from .answers.ekf import arm_process_noise
    except ImportError:
        raise ValueError(f"this check knows the exercise's setting only (q={ref['q']}, sigma_tau={ref['sigma_tau']}, "
                         f"dt={ref['dt']}); got q={q.tolist()}, sigma_tau={sigma_tau.tolist()}, dt={dt}") from None
    return _jsonable(arm_process_noise(q, sigma_tau, dt))


@student_check("Build the 12 x 12 Q: the (q, qd) block from dt and M(q)^-1, zeros for the "
               "parameters.")
def check_arm_process_noise(Q: Any, q: Sequence[float] = (-np.pi / 2, 0.0),
                            sigma_tau: Sequence[float] = (0.02, 0.01), dt: float = 0.02) -> bool:
    """Check a process-noise covariance designed from the torque noise of the 2R arm (chapter 8, exercise 4).

    The augmented state of the planar 2R arm of chapter 8 is ``[q1, q2, qd1, qd2, beta]``
    with 8 base parameters (``planar_2r`` with viscous friction).  Its measured joint
    torques carry independent white noise of standard deviations ``sigma_tau``, held over
    each step ``dt``; the parameters are exact constants.  ``Q`` is the covariance this
    noise adds to the state over one step, linearised at the posture ``q`` (at rest).
    Each block (angles, angles-velocities, velocities) is compared to a relative ``1e-3``
    of its own largest entry (the angle block is ``dt^2 / 4`` times smaller than the
    velocity block).

    Parameters
    ----------
    Q : array_like, shape (12, 12)
        Your process-noise covariance.
    q : sequence of 2 float, default (-pi/2, 0)
        The posture (rad), the hanging arm.
    sigma_tau : sequence of 2 float, default (0.02, 0.01)
        Torque noise of each joint (N m).
    dt : float, default 0.02
        Time step (s).

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        A value of the wrong type (text, a bool, complex numbers) where the chapter's data or
        numbers are meant (a misuse of the check; a wrong *answer* is reported, not raised).
    ValueError
        If ``q``, ``sigma_tau`` or ``dt`` are not what the exercise states (finite; positive
        noise and step): a misuse of the check.

    Examples
    --------
    >>> import numpy as np
    >>> check_arm_process_noise(np.zeros((12, 12)))
    ✘ Q is zero: the torque noise moves the arm, so Q has a non-zero (q, qd) block
    False
    """
    qq = as_array("q", q, shape=(2,))
    st = as_array("sigma_tau", sigma_tau, shape=(2,))
    if np.any(st <= 0):
        raise ValueError(f"sigma_tau must be 2 positive numbers (N m), got {sigma_tau!r}")
    dt = data_number("dt", dt, positive=True)
    if isinstance(Q, (str, bytes)):
        return report(False, f"Q must be a 12 x 12 matrix of numbers, got the text {Q!r}")
    ok, A = as_answer_array(Q, "Q", shape=(12, 12))
    if not ok:
        return report(False, A)
    scale = float(np.max(np.abs(A)))
    if scale == 0:
        return report(False, "Q is zero: the torque noise moves the arm, so Q has a non-zero (q, qd) block")
    if np.max(np.abs(A - A.T)) > 1e-9 * scale:
        return report(False, "Q is not symmetric: a covariance matrix equals its transpose")
    if np.max(np.abs(A[4:, :])) > 1e-9 * scale or np.max(np.abs(A[:, 4:])) > 1e-9 * scale:
        return report(False, "the parameter rows and columns must be zero: the parameters are exact "
                             "constants, the torque noise does not change them")
    ref = _arm_reference(qq, st, dt)
    expected = np.array(ref["expected"])
    slips = {k: np.array(v) for k, v in ref["slips"].items()}
    B = A[:4, :4]

    def close(X: np.ndarray) -> bool:
        """Each block (angles, cross, velocities) to RTOL of its own largest entry."""
        for rows, cols in ((slice(0, 2), slice(0, 2)), (slice(0, 2), slice(2, 4)), (slice(2, 4), slice(2, 4))):
            ref = float(np.max(np.abs(X[rows, cols])))
            tol = RTOL * (ref if ref > 0 else float(np.max(np.abs(X))))
            if np.max(np.abs(B[rows, cols] - X[rows, cols])) > tol:
                return False
        return True

    if close(expected):
        return report(True, "Q = G C G' with G = [dt^2/2; dt] M^-1: the same torque error moves the "
                            "angles and the velocities, hence the cross terms")
    if close(slips["no_cross_terms"]):
        return report(False, "the (q, qd) cross terms are missing: one torque error over a step moves "
                             "both the angle and the velocity, so their errors are correlated")
    if close(slips["mass_not_inverse"]):
        return report(False, "you used M where M^-1 belongs: a torque error changes the acceleration by "
                             "M^-1 d_tau")
    if close(slips["uncoupled"]):
        return report(False, "the joints are coupled: use the whole M^-1, not only its diagonal, so a "
                             "torque error at one joint also moves the other")
    if close(slips["over_dt2"]):
        return report(False, "off by a factor dt^2: over one step the velocity changes by dt M^-1 d_tau")
    if close(slips["over_dt"]):
        return report(False, "off by a factor dt: the velocity changes by dt M^-1 d_tau, so its "
                             "variance carries dt^2")
    if np.allclose(B[:2, :2], 0) and not np.allclose(B[2:, 2:], 0):
        return report(False, "the angle block is zero: over one step the angle also moves, by "
                             "dt^2/2 M^-1 d_tau")
    worst = float(np.max(np.abs(B - expected)) / float(np.max(np.abs(expected))))
    return report(False, f"the (q, qd) block is off by up to {100 * worst:.3g} % of its largest entry: "
                         "start from the change of [q, qd] that one torque error makes over a step")
