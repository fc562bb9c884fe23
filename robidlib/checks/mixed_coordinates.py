"""Checks of the exercises of chapter 10 (kinematically consistent data, mixed coordinates).

Every check prints one line of feedback (a tick or a cross and what to do next) and returns
``True`` or ``False``.  It never raises because of the answer: an untouched stub (``...``), a
function that raises or returns ``None``, a list, a ``float32`` array, NaN or a wrong shape all
get a cross with a hint (:mod:`robidlib.checks._report`).  Only a misuse of the check itself
(e.g. a ``system`` that is not a :class:`~robidlib.multibody.MultibodySystem`) raises a
``TypeError``.  Tolerances are those a ``float32`` computation passes.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ..multibody.system import MultibodySystem
from ._report import as_answer_array, call_answer, report, stored_answers, student_check

__all__ = [
    "check_reduced_to_full",
    "check_body_mass_matrix",
    "check_weight_scaling",
    "check_consistent_velocities",
    "check_marker_choice",
]

#: Relative tolerance of the checks: a float32 computation (7 digits) passes it.
RTOL = 1e-5


def _close(got: np.ndarray, want: np.ndarray, rtol: float = RTOL) -> bool:
    """Equal to ``rtol`` relative to the largest entry (absolute for tiny entries)."""
    scale = max(1.0, float(np.abs(want).max(initial=0.0)))
    return bool(np.all(np.abs(got - want) <= rtol * scale))


_HINT_FULL = "write to_full(q_r): keep [O, u, v] and append w = S(u) V q_r"
_HINT_MASS = "write body_mass_matrix(m, inertia) returning the 12 x 12 matrix of the chapter"


@student_check(_HINT_FULL[0].upper() + _HINT_FULL[1:] + ".")
def check_reduced_to_full(func: Callable[[np.ndarray], Any]) -> bool:
    """Check a function that rebuilds ``[O, u, v, w]`` (12,) from the reduced ``[O, u, v]`` (9,).

    The function is called on five random body frames; the first nine coordinates must come
    back unchanged and ``w`` must make ``(u, v, w)`` a right-handed orthonormal frame, to a
    relative ``1e-5``.

    Parameters
    ----------
    func : callable
        ``func(q_reduced)`` taking an array of shape (9,) and returning shape (12,).

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> check_reduced_to_full(lambda q: np.r_[q, q[3:6]])
    ✘ w must make (u, v, w) a right-handed orthonormal frame (w = S(u) V q_r)
    False
    >>> check_reduced_to_full(lambda q: None)
    ✘ your function returned None: did you forget `return`? (write to_full(q_r): keep [O, u, v] and append w = S(u) V q_r)
    False
    """
    for case in stored_answers("mixed_coordinates")["reduced_to_full"]:
        q9, want = np.array(case["reduced"]), np.array(case["full"])
        ok, got = call_answer(func, q9.copy())
        if not ok:
            return report(False, f"{got} ({_HINT_FULL})")
        ok, got = as_answer_array(got, "your result", shape=(12,))
        if not ok:
            return report(False, got + " = [O, u, v, w]")
        if not _close(got[:9], q9):
            return report(False, "the first nine coordinates [O, u, v] must be returned unchanged")
        if _close(got[9:], -want[9:]):
            return report(False, "w has the wrong sign: (u, v, w) must be right-handed")
        if not _close(got[9:], want[9:]):
            return report(False, "w must make (u, v, w) a right-handed orthonormal frame "
                                 "(w = S(u) V q_r)")
    return report(True, "w = u x v rebuilds a right-handed body frame")


@student_check(_HINT_MASS[0].upper() + _HINT_MASS[1:] + ".")
def check_body_mass_matrix(func: Callable[[float, np.ndarray], Any]) -> bool:
    """Check the 12 x 12 mass matrix of a generic rigid body with ``O`` at its centre of mass.

    ``func(mass, inertia)`` gets the mass (kg) and the three principal moments of inertia
    ``[I_xx, I_yy, I_zz]`` about the centre of mass (kg m^2) of three bodies; the answer must
    equal the chapter's matrix (equation ``eq-mc-mass``) to a relative ``1e-5``.

    Parameters
    ----------
    func : callable
        ``func(mass, inertia) -> array of shape (12, 12)``.

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> check_body_mass_matrix(lambda m, inertia: np.eye(12))
    ✘ the block of O must be m I3 (O is the centre of mass)
    False
    """
    for case in stored_answers("mixed_coordinates")["body_mass_matrix"]:
        m, inertia, want = case["mass"], np.array(case["inertia"]), np.array(case["matrix"])
        ok, got = call_answer(func, m, inertia.copy())
        if not ok:
            return report(False, f"{got} ({_HINT_MASS})")
        ok, got = as_answer_array(got, "your mass matrix", shape=(12, 12))
        if not ok:
            return report(False, got)
        if not np.allclose(got[:3, :3], m * np.eye(3), rtol=RTOL, atol=RTOL * m):
            return report(False, "the block of O must be m I3 (O is the centre of mass)")
        if np.allclose(np.diag(got)[3::3], inertia, rtol=1e-3, atol=0.0):
            return report(False, "the blocks of u, v, w are not the moments of inertia: they are "
                                 "second moments, J_u = int a^2 dm")
        # entry by entry to RTOL (float32 passes), zeros to round-off of the largest entry
        if not np.all(np.abs(got - want) <= RTOL * np.abs(want) + 1e-9 * np.abs(want).max()):
            return report(False, "the matrix differs from diag(m I3, J_u I3, J_v I3, J_w I3) for "
                                 f"m = {m} kg, inertia = {inertia.tolist()} kg m^2")
    return report(True, "the generic-rigid-body mass matrix is right (constant and diagonal)")


@student_check("Fill `violations` with the largest topological violation of one NRM-WLS run per weight.")
def check_weight_scaling(weights: Any, violations: Any) -> bool:
    """Check that the topological violation of NRM-WLS shrinks in proportion to the weight.

    The slope of ``log(violation)`` against ``log(weight)`` over the weights ``<= 1e-2`` must
    be between 0.85 and 1.15 (first-order optimality gives ``Phi_T = O(weight)``).

    Parameters
    ----------
    weights : array_like, shape (k,)
        Weights of the tracking rows, at least three different ones ``<= 1e-2``.
    violations : array_like, shape (k,)
        Largest topological violation obtained with each weight.

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> w = np.logspace(-1, -5, 5)
    >>> check_weight_scaling(w, 0.02 * np.sqrt(w))
    ✘ violation ~ weight^0.50 for weights <= 1e-2; expected an exponent near 1 (did you take the topological rows only?)
    False
    """
    ok, w = as_answer_array(weights, "weights", shape=(None,))
    if not ok:
        return report(False, w)
    ok, v = as_answer_array(violations, "violations", shape=(w.size,))
    if not ok:
        return report(False, v + " (one violation per weight)")
    if not (np.all(w > 0) and np.all(v > 0)):
        return report(False, "weights and violations must be positive (a violation of exactly 0 "
                             "means the run did not use the weight)")
    small = w <= 1e-2
    if np.unique(w[small]).size < 3:
        return report(False, "give at least three different weights <= 1e-2, got "
                             f"{np.unique(w[small]).tolist()}")
    slope = float(np.polyfit(np.log10(w[small]), np.log10(v[small]), 1)[0])
    ok = 0.85 <= slope <= 1.15
    return report(ok, f"violation ~ weight^{slope:.2f} for weights <= 1e-2"
                  + (": halving the weight halves the violation" if ok else
                     "; expected an exponent near 1 (did you take the topological rows only?)"))


@student_check("Compute q_a with solve_driven and qd_a by solving [Phi_q; B] qd = [0; rates] per frame.")
def check_consistent_velocities(system: MultibodySystem, q: Any, qd: Any, angle_rates: Any) -> bool:
    """Check a velocity analysis: ``Phi_q(q) qd = 0`` and the angle rates are the prescribed ones.

    ``q`` must be consistent positions (``|Phi(q)|`` below ``1e-5``), ``qd`` must satisfy the
    velocity equations and carry the prescribed rates in its angle coordinates, both to a
    relative ``1e-5``; NaN or infinite entries are refused.

    Parameters
    ----------
    system : MultibodySystem
        The model (given by the chapter).
    q, qd : array_like, shape (n,) or (N, n)
        Positions and the velocities to check.
    angle_rates : array_like, shape (na,) or (N, na)
        The prescribed rates of the angle coordinates.

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        If ``system`` is not a MultibodySystem (a misuse of the check).

    Examples
    --------
    >>> from robidlib.multibody import models
    >>> m = models.simple_chain()
    >>> ref = m.reference_motion(duration=0.02)
    >>> check_consistent_velocities(m.system, ref.q, 0 * ref.qd, ref.phid)
    ✘ the angle rates of qd differ from the prescribed ones by up to 1 (relative): add the driver rows d(theta)/dt = rate
    False
    """
    if not isinstance(system, MultibodySystem):
        raise TypeError(f"system must be a MultibodySystem, got {type(system).__name__}")
    n, na = system.n_coords, len(system.angle_names)
    answers = {}
    for what, value, width in (("q", q, n), ("qd", qd, n), ("angle_rates", angle_rates, na)):
        ok, arr = as_answer_array(value, what)
        if not ok:
            return report(False, arr)
        arr = np.atleast_2d(arr)
        if arr.ndim != 2 or arr.shape[1] != width:
            return report(False, f"{what} must have shape (N, {width}), got {np.shape(value)}")
        answers[what] = arr
    q2, qd2, rates = answers["q"], answers["qd"], answers["angle_rates"]
    if qd2.shape != q2.shape or rates.shape[0] != q2.shape[0]:
        return report(False, f"q, qd and angle_rates must have the same number of frames, got "
                             f"{q2.shape[0]}, {qd2.shape[0]} and {rates.shape[0]}")
    worst_pos = max(float(np.abs(system.phi(qk)).max()) for qk in q2)
    if worst_pos > RTOL:
        return report(False, f"q is not a consistent position (|Phi(q)| up to {worst_pos:.3g}): "
                             "drive the model with the angles (solve_driven) first")
    worst_phi = worst_rate = 0.0
    for k in range(q2.shape[0]):
        scale = max(1.0, float(np.abs(rates[k]).max()), float(np.abs(qd2[k]).max()))
        worst_phi = max(worst_phi, float(np.abs(system.jacobian(q2[k]) @ qd2[k]).max()) / scale)
        worst_rate = max(worst_rate, float(np.abs(qd2[k, system.angle_slice] - rates[k]).max()) / scale)
    if worst_rate > RTOL:
        return report(False, f"the angle rates of qd differ from the prescribed ones by up to "
                             f"{worst_rate:.3g} (relative): add the driver rows d(theta)/dt = rate")
    if worst_phi > RTOL:
        return report(False, f"Phi_q qd = 0 is violated by up to {worst_phi:.3g} (relative): the "
                             "velocities are not consistent with the joints")
    return report(True, f"Phi_q qd = 0 and the angle rates match in all {q2.shape[0]} frame(s): "
                        "the velocities are consistent")


#: The chapter's eight markers of the five-body chain (``study.STUDY_CHAINS["five-8"]``).
_CHAPTER_EIGHT = ("P2", "P3", "P5", "P6", "P8", "P9", "P13", "P15")
#: A choice passes if its tip error is at most this factor times that of the chapter's eight.
TIP_FACTOR = 1.10


def _scenario_cache(_cache: dict = {}) -> tuple:
    """The five-body chain, its reference and perturbed markers (first 0.6 s, 7.5 mm)."""
    if not _cache:
        from ..multibody import study

        sc = study.study_scenario("five", 7.5, duration=0.6)
        _cache["sc"] = sc
        _cache["tip"] = {}
    return _cache["sc"], _cache["tip"]


def _tip_error(names: tuple[str, ...]) -> float:
    from ..multibody import solve_kinematics, study

    sc, tips = _scenario_cache()
    if names not in tips:
        names_all = sc.evaluate.marker_names
        sub = study.marker_subset(sc.evaluate, names)
        idx = [names_all.index(n) for n in names]
        res = solve_kinematics(sub, sc.markers[:, idx], "nrm-wls", q0=sc.reference.q[0],
                               max_iter=200)
        d = sc.evaluate.marker_positions(res.q)[:, -1] - sc.reference.markers[:, -1]
        tips[names] = 1e3 * float(np.linalg.norm(d, axis=-1).mean())
    return tips[names]


@student_check("Set `my_markers` to a list of eight marker names of the five-body chain, e.g. ['P1', ...].")
def check_marker_choice(names: Sequence[str]) -> bool:
    """Check a choice of eight markers of the five-body chain for the whole-model fit.

    The choice must name eight different markers of ``models.five_body_chain()``; the
    topological and tracking equations must determine the coordinates (the stacked
    Jacobian ``[Phi_q; C]`` has full column rank at five instants of the reference motion);
    and NRM-WLS on the chapter's 7.5 mm scenario (first 0.6 s) must place the last marker of
    the chain (P15, tracked or not) within ``1.1`` times the mean error that the chapter's
    eight markers give.

    Parameters
    ----------
    names : sequence of str
        Eight marker names, such as ``["P1", "P4", ...]``.

    Returns
    -------
    bool

    Examples
    --------
    >>> check_marker_choice(["P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8"])
    ✘ not observable: bodies b4 and b5 carry none of your markers, and the rank of [Phi_q; C] is 63 < 65; spread the markers along the chain
    False
    """
    from ..multibody import models, study

    if isinstance(names, str) or not isinstance(names, (list, tuple, np.ndarray)):
        return report(False, f"give a list of eight marker names, got {type(names).__name__} {names!r:.60}")
    names = tuple(str(n) for n in names)
    model = models.five_body_chain()
    system = model.system
    unknown = [n for n in names if n not in system.marker_names]
    if unknown:
        return report(False, f"unknown marker(s) {unknown}: the chain has "
                             f"{system.marker_names[0]}..{system.marker_names[-1]}")
    if len(set(names)) != len(names) or len(names) != 8:
        return report(False, f"choose eight different markers, got {len(set(names))} different of "
                             f"{len(names)}")
    sub = study.marker_subset(system, names)
    ref = model.reference_motion(duration=3.0)
    C = sub.tracking.jacobian(None)
    ranks = [int(np.linalg.matrix_rank(np.vstack([sub.jacobian(qk), C]))) for qk in ref.q[::60]]
    if min(ranks) < system.n_coords:
        bare = [b for b in system.body_names if not any(m.body == b for m in sub.markers)]
        where = (f"{'body' if len(bare) == 1 else 'bodies'} {' and '.join(bare)} "
                 f"carr{'ies' if len(bare) == 1 else 'y'} none of your markers, and " if bare else "")
        return report(False, f"not observable: {where}the rank of [Phi_q; C] is {min(ranks)} < "
                             f"{system.n_coords}; spread the markers along the chain")
    mine, chapter = _tip_error(names), _tip_error(_CHAPTER_EIGHT)
    ok = mine <= TIP_FACTOR * chapter
    return report(ok, f"observable; the last marker P15 is placed {mine:.2f} mm from its reference on "
                      f"average (the chapter's eight: {chapter:.2f} mm)"
                  + ("" if ok else ": track markers that see the end of the chain better"))
