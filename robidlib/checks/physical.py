"""Checks of the exercises of chapter 5 (physically consistent identification).

Every check prints one line, ✔ or ✘ with what to do next, and returns ``True`` or ``False``.
An untouched stub (an answer still holding ``...``, a function that returns ``None`` or
raises) is reported, never raised; only a misuse of the check itself (an argument that is not
a robot, base parameters of another robot) raises (see :mod:`robidlib.checks._report`).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .._validate import as_array
from ..params import CONSISTENCY_CONDITIONS, consistency_report, link_params, pseudo_inertia
from ._report import as_answer_array, call_answer, report as _report, stored_answers, student_check

__all__ = [
    "check_pseudo_inertia",
    "check_broken_conditions",
    "check_mass_bound",
    "check_prior_and_lmi",
]

#: The three conditions a student names in :func:`check_broken_conditions`.
CONDITIONS: tuple[str, ...] = CONSISTENCY_CONDITIONS[:3]

# smallest eigenvalue of J, relative to its largest, that still counts as J >= 0 for a
# solver's answer (interior-point tolerances are about 1e-8; allow a hundredfold)
_J_TOL = 1e-6


def _robot(robot: Any) -> None:
    from ..robot import SerialRobot

    if not isinstance(robot, SerialRobot):
        raise TypeError(f"robot must be a SerialRobot, got {type(robot).__name__}")


def _min_rel_eig(params: np.ndarray, n: int) -> np.ndarray:
    lam = np.linalg.eigvalsh(pseudo_inertia(params[: 10 * n].reshape(n, 10)))
    top = np.abs(lam).max(axis=1)
    return lam[:, 0] / np.where(top > 0, top, 1.0)


@student_check("Write the body of my_pseudo_inertia so that it returns the 4 x 4 matrix J.")
def check_pseudo_inertia(func: Callable[[np.ndarray], Any]) -> bool:
    """Check a function that builds the pseudo-inertia matrix ``J`` of one link (exercise 1).

    ``func(pi_j)`` takes the ten standard parameters ``[m, mx, my, mz, Ixx, Iyy, Izz, Ixy,
    Ixz, Iyz]`` of one link (inertia about the link-frame origin) and must return the
    symmetric 4 x 4 matrix ``[[Theta, h], [h^T, m]]`` with ``Theta = tr(I)/2 E - I``. It is
    tried on a point mass, on four random bodies, on ten random numbers and on a set that
    breaks the triangle inequality, and compared entrywise with the stored references to a relative precision of
    ``1e-6`` of the largest entry (so ``float32`` results pass).

    Parameters
    ----------
    func : callable
        ``func(pi_j)`` with ``pi_j`` of shape (10,), returning an array (or nested list) of
        shape (4, 4).

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> check_pseudo_inertia(lambda pi: np.eye(4))
    ✘ wrong J for a point mass of 2 kg at (0.5, 0, 0): largest error 1 in entry (0, 3) (row and column 0-3)
    False
    """
    for case in stored_answers("physical")["pseudo_inertia"]:
        label, pi, ref = case["label"], np.array(case["params"]), np.array(case["J"])
        ok, got = call_answer(func, pi.copy())
        if not ok:
            return _report(False, got)
        ok, J = as_answer_array(got, "J", shape=(4, 4))
        if not ok:
            return _report(False, J)
        err = np.abs(J - ref)
        k = np.unravel_index(np.argmax(err), err.shape)
        if err[k] > 1e-6 * np.abs(ref).max():
            hint = ""
            if np.allclose(J[:3, :3], _inertia3(pi), rtol=1e-6, atol=1e-12):
                hint = "; the upper-left block is Theta = tr(I)/2 E - I, not the inertia I itself"
            elif np.allclose(J[:3, :3], -ref[:3, :3], rtol=1e-6, atol=1e-12):
                hint = "; the upper-left block has the wrong sign: Theta = tr(I)/2 E - I"
            return _report(False, f"wrong J for {label}: largest error {err[k]:.3g} in entry "
                                  f"{tuple(int(i) for i in k)} (row and column 0-3){hint}")
    return _report(True, "J = [[tr(I)/2 eye(3) - I, h], [h^T, m]] for every test body")


def _inertia3(pi: np.ndarray) -> np.ndarray:
    """The 3 x 3 inertia about the origin from ten parameters."""
    return np.array([[pi[4], pi[7], pi[8]], [pi[7], pi[5], pi[9]], [pi[8], pi[9], pi[6]]])


def _conditions(value: Any) -> tuple[bool, Any]:
    """A student's conditions for one link: a name or a collection of names."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple, set, frozenset)):
        return False, f"give the condition(s) of a link as a string or a list of strings, got {type(value).__name__}"
    out = set()
    for c in items:
        if not isinstance(c, str) or c.strip().lower() not in CONDITIONS:
            return False, f"unknown condition {c!r}; use one of {', '.join(repr(x) for x in CONDITIONS)}"
        out.add(c.strip().lower())
    return True, out


@student_check("Fill the dict {link number: condition(s)} with the links that fail and why.")
def check_broken_conditions(pi: Any, answer: Mapping[int, Any]) -> bool:
    """Check which links of a standard parameter vector fail which condition (exercise 2).

    The answer maps every inconsistent link (numbered from 1) to the condition or conditions
    it breaks, among ``"mass"`` (``m <= 0``), ``"positive definite"`` (the inertia about the
    centre of mass has an eigenvalue ``<= 0``) and ``"triangle inequality"`` (its principal
    moments break ``I1 + I2 >= I3``). A link with ``m <= 0`` has no centre of mass: name only
    ``"mass"`` for it. Consistent links are left out. The reference is
    :func:`robidlib.params.consistency_report` with ``tol = 0``.

    Parameters
    ----------
    pi : array_like, shape (10 n,)
        The standard parameters the exercise gives (GUIDE order).
    answer : mapping int -> str or sequence of str
        E.g. ``{2: "triangle inequality", 4: ["positive definite", "triangle inequality"]}``.

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        If ``pi`` is not a finite vector of ``10 n`` numbers (a misuse of the check).

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.params import link_params
    >>> good = link_params(1.0, [0.1, 0, 0], [0.02, 0.03, 0.04, 0, 0, 0])
    >>> bad = link_params(1.0, [0.1, 0, 0], [0.01, 0.01, 0.05, 0, 0, 0])
    >>> check_broken_conditions(np.r_[good, bad], {1: "mass"})
    ✘ link 1 is consistent (leave it out); link 2 fails but is missing from your answer
    False
    """
    rep = consistency_report(pi)
    truth: dict[int, set[str]] = {}
    for j, cond, _ in rep.failures:
        if cond in CONDITIONS:
            truth.setdefault(j, set()).add(cond)
    if answer is None:
        return _report(False, "answer is None: did you forget to assign it?")
    if not isinstance(answer, Mapping):
        return _report(False, f"answer must be a dict {{link number: condition(s)}}, got {type(answer).__name__}")
    n = rep.per_link.size
    given: dict[int, set[str]] = {}
    for key, value in answer.items():
        if isinstance(key, (bool, np.bool_)) or not isinstance(key, (int, np.integer)) or not 1 <= key <= n:
            return _report(False, f"link numbers are integers from 1 to {n}, got {key!r}")
        ok, conds = _conditions(value)
        if not ok:
            return _report(False, conds)
        given[int(key)] = conds
    problems = []
    for j in sorted(set(given) - set(truth)):
        problems.append(f"link {j} is consistent (leave it out)")
    for j in sorted(set(truth) - set(given)):
        problems.append(f"link {j} fails but is missing from your answer")
    for j in sorted(set(truth) & set(given)):
        if given[j] != truth[j]:
            extra, missed = sorted(given[j] - truth[j]), sorted(truth[j] - given[j])
            what = []
            if missed:
                what.append(f"it also breaks {', '.join(missed)}")
            if extra:
                what.append(f"it does not break {', '.join(extra)}")
            if "mass" in truth[j] and extra:
                what.append("a link without positive mass has no centre of mass: name only 'mass'")
            problems.append(f"link {j}: " + "; ".join(what))
    if problems:
        return _report(False, "; ".join(problems))
    if not truth:
        return _report(True, "every link is consistent, and you found no failure")
    listing = "; ".join(f"link {j}: {', '.join(sorted(c))}" for j, c in sorted(truth.items()))
    return _report(True, f"right: {listing}")


@student_check("Solve the bounded problem and pass its standard parameters (one per column of W).")
def check_mass_bound(
    W: np.ndarray,
    y: np.ndarray,
    robot: Any,
    params: Any,
    link: int,
    bounds: Sequence[float],
) -> bool:
    """Check physically consistent least squares with a bound on one link's mass (exercise 3).

    ``params`` (standard parameters, one per column of ``W``: ``10 n`` inertial, then
    ``fv1, fc1, ...``) must (i) give every link a pseudo-inertia ``J >= 0`` (to ``1e-6`` of
    its largest eigenvalue: a solver's tolerance), (ii) keep every friction coefficient
    ``>= 0`` and the mass of ``link`` within ``bounds`` (to ``1e-6`` relative), and (iii) fit
    the data as well as the reference solution of the same problem
    (:func:`robidlib.estimation.physical_ls` with the same bound): a residual within
    ``1e-3`` of the reference's (the regularisation of the null space may differ).

    Parameters
    ----------
    W, y : array_like
        The stacked standard regressor with friction columns and the torques of the
        exercise.
    robot : SerialRobot
    params : array_like, shape (12 n,)
        Your estimate.
    link : int
        The bounded link, from 1.
    bounds : (float, float)
        Lower and upper bound of its mass, kg.

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        If ``robot`` is not a ``SerialRobot``, or ``W``, ``y`` or ``bounds`` are not numbers.
    ValueError
        If ``W``, ``y``, ``link`` or ``bounds`` are not valid (a misuse of the check), or the
        bounded problem itself is infeasible.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib import random_states, regressor, stack
    >>> from robidlib.models import planar_2r
    >>> from robidlib.regressor import friction_regressor
    >>> robot = planar_2r(friction=[[0.2, 0.1], [0.1, 0.05]])
    >>> q, qd, qdd = random_states(robot, 100, rng=0)
    >>> Y = np.concatenate([regressor(robot, q, qd, qdd), friction_regressor(qd)], axis=-1)
    >>> W, y = stack(Y, Y @ np.r_[robot.params, robot.friction.ravel()])
    >>> wrong = np.r_[robot.params, robot.friction.ravel()]
    >>> wrong[10] = 5.0                             # m2 outside [0.5, 2]
    >>> check_mass_bound(W, y, robot, wrong, link=2, bounds=(0.5, 2.0))
    ✘ the mass of link 2 is 5 kg, outside your bounds [0.5, 2] kg
    False
    """
    from ..estimation import physical_ls

    _robot(robot)
    n = robot.n
    if isinstance(link, (bool, np.bool_)) or not isinstance(link, (int, np.integer)) or not 1 <= link <= n:
        raise ValueError(f"link must be an integer from 1 to {n}, got {link!r}")
    lo, hi = (float(b) for b in as_array("bounds", bounds, shape=(2,)))
    if not lo <= hi:
        raise ValueError(f"bounds must be (lower, upper) with lower <= upper, got {bounds!r}")
    W = as_array("W", W, ndim=2)
    if W.size == 0:
        raise ValueError(f"W must have rows and columns, got shape {W.shape}")
    y = as_array("y", y, ndim=1)
    if y.shape != (W.shape[0],):
        raise ValueError(f"y must have shape ({W.shape[0]},) (one per row of W), got {y.shape}")
    if W.shape[1] != 12 * n:
        raise ValueError(f"W must have the {12 * n} columns of the inertial and friction parameters, got {W.shape[1]}")
    ok, x = as_answer_array(params, "params", shape=(W.shape[1],))
    if not ok:
        return _report(False, x)
    eig = _min_rel_eig(x, n)
    bad = np.flatnonzero(eig < -_J_TOL)
    if bad.size:
        return _report(False, f"link(s) {', '.join(str(j + 1) for j in bad)} have J not positive semi-definite "
                              f"(smallest eigenvalue {eig[bad[0]]:.2g} of the largest): not a rigid body")
    if np.any(x[10 * n:] < -1e-9 * max(1.0, np.abs(x[10 * n:]).max())):
        return _report(False, "a friction coefficient is negative: constrain them to be >= 0")
    m = float(x[10 * (link - 1)])
    tol = 1e-6 * max(1.0, abs(lo), abs(hi))
    if not lo - tol <= m <= hi + tol:
        return _report(False, f"the mass of link {link} is {m:.4g} kg, outside your bounds [{lo:g}, {hi:g}] kg")
    ref = physical_ls(W, y, robot, bounds={f"m{link}": (lo, hi)})
    res = float(np.linalg.norm(y - W @ x))
    r0 = ref.info["residual_norm"]
    if res > r0 * (1 + 1e-3):
        return _report(False, f"your residual {res:.6g} is larger than the best consistent fit within the bound "
                              f"({r0:.6g}): minimise the least-squares cost under the constraints")
    return _report(True, f"consistent, m{link} = {m:.4g} kg within [{lo:g}, {hi:g}] kg, and the best fit "
                         f"(residual {res:.6g}, reference {r0:.6g})")


@student_check("Write the body of your estimator so that it returns the standard parameters.")
def check_prior_and_lmi(
    estimator: Callable[[np.ndarray, np.ndarray], Any],
    problems: Sequence[tuple[np.ndarray, np.ndarray]],
    bp: Any,
    robot: Any,
    beta_true: Any,
    beta_prior: Any,
    prior_std: Any,
) -> bool:
    """Check an estimator that combines a prior on the base parameters with the LMIs (exercise 4).

    ``estimator(W, y)`` gets each stacked standard system ``(W, y)`` of ``problems`` and must
    return standard parameters (one per column of ``W``) that (i) are physically consistent
    (every ``J >= 0`` to ``1e-6`` of its largest eigenvalue) and (ii) are at least as accurate
    as ridge regression toward the prior: the parameter error
    ``sqrt(mean(((beta - beta_true) / prior_std)^2))`` of ``bp.beta(params)``, averaged over
    the problems, at most 1.1 times that of ridge (``ridge`` on ``bp.reduce(W)`` in units of
    ``prior_std``, weight 1: the maximum a-posteriori estimate for a Gaussian prior and unit
    noise). The allowance of 10 % covers a different regularisation of the null space.

    Parameters
    ----------
    estimator : callable
        ``estimator(W, y) -> params``.
    problems : sequence of (W, y)
        Stacked standard systems (rows already divided by the noise level).
    bp : BaseParameters
        Base parameters of the columns of ``W``.
    robot : SerialRobot
    beta_true, beta_prior, prior_std : array_like, shape (bp.rank,)
        True base parameters, the prior's, and the prior's standard deviations (> 0).

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        If ``robot`` is not a ``SerialRobot``, ``bp`` not a ``BaseParameters`` or
        ``problems`` not a sequence of ``(W, y)`` pairs of numbers.
    ValueError
        If ``bp`` is not of the robot with friction, ``problems`` is empty or its ``W`` do not
        have ``bp``'s columns, or the vectors do not have ``bp.rank`` finite entries
        (``prior_std`` > 0): misuses of the check.
    """
    from ..estimation import ridge

    from ..base import BaseParameters

    _robot(robot)
    n = robot.n
    if not isinstance(bp, BaseParameters):
        raise TypeError(f"bp must be a BaseParameters object, got {type(bp).__name__}")
    if bp.n_params != 12 * n:
        raise ValueError(f"bp describes {bp.n_params} parameters, but robot {robot.name!r} ({n} joints) has "
                         f"{12 * n} inertial and friction parameters: bp must be the base parameters of robot "
                         "with friction")
    r = int(bp.rank)
    vecs = []
    for name, v in (("beta_true", beta_true), ("beta_prior", beta_prior), ("prior_std", prior_std)):
        a = as_array(name, v, finite=False)
        if a.shape != (r,) or not np.all(np.isfinite(a)):
            raise ValueError(f"{name} must have {r} finite entries (bp.rank), got shape {a.shape}")
        vecs.append(a)
    bt, b0, sd = vecs
    if np.any(sd <= 0):
        raise ValueError("prior_std must be > 0")
    if isinstance(problems, (str, bytes)) or not hasattr(problems, "__len__"):
        raise TypeError(f"problems must be a sequence of (W, y) pairs, got {type(problems).__name__}")
    if len(problems) == 0:
        raise ValueError("problems must hold at least one (W, y) pair")
    checked = []
    for k, pair in enumerate(problems):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise TypeError(f"problems[{k}] must be a pair (W, y), got {type(pair).__name__}")
        W = as_array(f"problems[{k}] W", pair[0], ndim=2)
        y = as_array(f"problems[{k}] y", pair[1], shape=(W.shape[0],))
        if W.shape[1] != bp.n_params:
            raise ValueError(f"problems[{k}] W must have {bp.n_params} columns (bp's parameters), got {W.shape[1]}")
        checked.append((W, y))
    problems = checked

    def err(beta):
        return float(np.sqrt(np.mean(((beta - bt) / sd) ** 2)))

    yours, theirs = [], []
    for k, (W, y) in enumerate(problems):
        ok, got = call_answer(estimator, W, y)
        if not ok:
            return _report(False, got)
        ok, x = as_answer_array(got, "the estimate", shape=(W.shape[1],))
        if not ok:
            return _report(False, x + " (standard parameters, one per column of W)")
        eig = _min_rel_eig(x, n)
        if np.any(eig < -_J_TOL):
            j = int(np.argmin(eig))
            return _report(False, f"problem {k + 1}: link {j + 1} has J not positive semi-definite (smallest "
                                  f"eigenvalue {eig[j]:.2g} of the largest): keep the LMIs")
        Wb = bp.reduce(W)
        rd = b0 + sd * ridge(Wb * sd, y - Wb @ b0, 1.0).params
        yours.append(err(bp.beta(x)))
        theirs.append(err(rd))
    e1, e0 = float(np.mean(yours)), float(np.mean(theirs))
    if e1 > 1.1 * e0:
        return _report(False, f"consistent, but a parameter error of {e1:.3g} prior standard deviations against "
                              f"{e0:.3g} for ridge: use the prior's information too")
    return _report(True, f"consistent on all {len(problems)} problems, parameter error {e1:.3g} prior standard "
                         f"deviations (ridge: {e0:.3g})")
