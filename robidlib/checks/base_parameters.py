"""Checks of the exercises of chapter 2 (full and base inertial parameters).

Every check prints one line, ✔ or ✘ with what to do next, and returns ``True`` or ``False``.
An untouched stub (an answer still holding ``...``, ``None``, a wrong type or shape) is
reported, never raised; only a misuse of the check itself (e.g. not passing a robot)
raises (see :mod:`robidlib.checks._report`).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import sympy as sp

from ..base import base_parameters, random_states
from ..regressor import regressor
from ._parse import AnswerError, read_linear
from ._report import Unanswered, as_answer_array, report as _report, student_check

__all__ = ["check_base_parameters", "check_null_direction", "check_tolerance", "check_svd_qr_map"]


def _shown(item: Any, limit: int = 60) -> str:
    """A short repr of an answer entry (a long one is cut)."""
    r = repr(item)
    return r if len(r) <= limit else r[:limit] + "...'"


def _robot(robot: Any) -> None:
    if not (hasattr(robot, "param_names") and hasattr(robot, "n")):
        raise TypeError(f"robot must be a SerialRobot, got {type(robot).__name__}")


@student_check("Write the base parameters as a list of strings, one linear combination each.")
def check_base_parameters(robot: Any, answer: Sequence[str | sp.Expr]) -> bool:
    """Check a set of base parameters written as linear combinations of standard parameters.

    Any valid set is accepted, not only the one :func:`robidlib.base.base_parameters` prints:
    the answer is right when it has as many entries as the rank, its entries are linearly
    independent, and each entry is unaffected by every null-space direction of the regressor
    (so it is identifiable). Coefficients are compared to a relative precision of ``1e-8``.

    Parameters
    ----------
    robot : SerialRobot
    answer : sequence of str or sympy expressions
        One linear combination per base parameter, written with the robot's parameter names
        (``robot.param_names``) and numeric coefficients, such as ``"Izz1 + 0.09*m3"``.
        Strings are read with a restricted grammar (names, numbers, ``+ - * / **`` and
        parentheses; :mod:`robidlib.checks._parse`), never evaluated as Python.

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        If ``robot`` is not a robot.

    Examples
    --------
    >>> from robidlib.models import planar_2r
    >>> check_base_parameters(planar_2r(), ["Izz1", "Izz2"])
    ✘ you gave 2 base parameters; this robot has 6
    False
    """
    _robot(robot)
    if answer is None:
        return _report(False, "answer is None: did you forget to assign it?")
    if isinstance(answer, (str, bytes)) or not isinstance(answer, (Sequence, np.ndarray)):
        return _report(False, "answer must be a list of expressions such as ['m1 + m2', 'Izz2'], "
                              f"got {type(answer).__name__}")
    names = list(robot.param_names)
    symbols = {n: sp.Symbol(n) for n in names}
    if len(answer) > 10 * len(names):
        return _report(False, f"you gave {len(answer)} entries; this robot has {len(names)} standard parameters")
    rows = []
    for item in answer:
        shown = _shown(item)
        if isinstance(item, str):
            try:                                 # a restricted grammar: an answer string never runs code
                coef, const = read_linear(item, names)
            except AnswerError as exc:
                if exc.kind == "unknown":
                    return _report(False, f"{shown} uses unknown names {list(exc.names)}; use {names[:3]}...")
                if exc.kind == "nonlinear":
                    return _report(False, f"{shown} is not a linear combination of standard parameters ({exc})")
                return _report(False, f"cannot read {shown} as a linear combination of the parameter names: "
                                      f"{exc}; write e.g. 'm1 + 2*m2'")
            row = [coef.get(n, 0.0) for n in names]
        elif isinstance(item, sp.Expr):          # a sympy expression the student built
            unknown = sorted(str(s_) for s_ in item.free_symbols if str(s_) not in symbols)
            if unknown:
                return _report(False, f"{shown} uses unknown names {unknown}; use {names[:3]}...")
            if not item.is_polynomial(*symbols.values()) or sp.Poly(item, *symbols.values()).total_degree() > 1:
                return _report(False, f"{shown} is not a linear combination of standard parameters")
            try:
                row = [float(item.coeff(symbols[n])) for n in names]
                const = float(item.subs({v: 0 for v in symbols.values()}))
            except TypeError:
                return _report(False, f"{shown} has a coefficient that is not a real number")
        else:
            return _report(False, f"each entry must be a string such as 'm1 + 2*m2' (or a sympy expression), "
                                  f"got {type(item).__name__} {shown}")
        if const != 0:
            return _report(False, f"{shown} has a constant term; base parameters are linear combinations")
        rows.append(row)
    bp = base_parameters(robot, method="svd", rng=0)
    C = np.array(rows, dtype=float).reshape(len(rows), len(names))
    if C.shape[0] != bp.rank:
        return _report(False, f"you gave {C.shape[0]} base parameters; this robot has {bp.rank}")
    if not np.all(np.isfinite(C)):
        return _report(False, "a coefficient is NaN or infinite")
    if np.linalg.matrix_rank(C, tol=1e-9 * max(1.0, float(np.abs(C).max()))) < bp.rank:
        return _report(False, "your base parameters are not linearly independent")
    leak = np.abs(C @ bp.V2).max(axis=1) if bp.V2.size else np.zeros(len(rows))
    scale = np.maximum(1.0, np.abs(C).max(axis=1))
    bad = [str(answer[i]) for i in np.flatnonzero(leak > 1e-8 * scale)]
    if bad:
        return _report(False, f"not identifiable (changed by a null-space direction): {bad}")
    return _report(True, f"a valid set of {bp.rank} base parameters")


@student_check("Set the entries of the parameter change so that no torque changes.")
def check_null_direction(robot: Any, d: Any) -> bool:
    """Check a parameter change ``d`` that changes no torque of ``robot`` for any motion.

    The torque change ``Y d`` on 50 random states must be below ``1e-9`` of the torque scale
    ``max|Y| max|d|``.

    Parameters
    ----------
    robot : SerialRobot
    d : array_like, shape (p,)
        One entry per standard parameter (``robot.param_names``).

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        If ``robot`` is not a robot.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.models import planar_2r
    >>> check_null_direction(planar_2r(), np.zeros(20))
    ✘ not answered yet: d is zero, as in the stub (a null-space direction changes some parameter). Set the entries of the parameter change so that no torque changes.
    False
    """
    _robot(robot)
    p = len(robot.param_names)
    ok, d = as_answer_array(d, "d", shape=(p,))
    if not ok:
        return _report(False, d + " (one entry per standard parameter)")
    if np.abs(d).max() == 0:
        raise Unanswered("d is zero, as in the stub (a null-space direction changes some parameter)")
    q, qd, qdd = random_states(robot, 50, rng=12345)
    Y = regressor(robot, q, qd, qdd)
    dtau = Y @ d
    scale = np.abs(Y).max() * np.abs(d).max()
    worst = float(np.abs(dtau).max())
    ok = worst <= 1e-9 * scale
    return _report(ok, "no torque changes: d is in the null space" if ok else
                   f"d changes the torques by up to {worst:.3g}: it is not in the null space")


#: Random state sets (seeds of :func:`robidlib.base.base_parameters`) on which a tolerance
#: must give the right rank with a margin.
TOLERANCE_SEEDS = (0, 1, 2, 3, 4)
#: Margin below the smallest genuine singular value of any of those state sets: that value
#: moves by a few tens of percent from one set of states to another (more with noise).
TOLERANCE_MARGIN = 10.0


@student_check("Read a tolerance off your plot and assign it (a positive number).")
def check_tolerance(robot: Any, tol: Any) -> bool:
    """Check a rank tolerance chosen from a singular-value plot of ``robot``'s regressor.

    A tolerance is right when it separates the genuine singular values from the round-off
    ones *with a margin on both sides*, not merely on one data set:

    * it must be at least the round-off level of the SVD, ``max(Nn, p) eps s_max`` (the
      default of :func:`robidlib.base.base_parameters` and of ``numpy.linalg.matrix_rank``),
      on every one of the random state sets ``TOLERANCE_SEEDS``: the singular values below
      that level are rounding errors, and a tolerance among them decides the rank by chance
      (another BLAS kernel, another answer);
    * it must be at most the smallest genuine singular value (the ``r``-th) of any of those
      state sets divided by ``TOLERANCE_MARGIN``: that value changes with the states, so a
      tolerance just below it loses a base parameter on other data.

    Any tolerance between the two is accepted (the gap of a noise-free regressor is wide);
    the message says which bound a rejected one violates.

    Parameters
    ----------
    robot : SerialRobot
    tol : float
        The tolerance, in the units of the singular values.

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        If ``robot`` is not a robot.

    Examples
    --------
    >>> from robidlib.models import planar_2r
    >>> check_tolerance(planar_2r(), 1e3)
    ✘ tolerance 1e+03 gives rank 0, but the robot has 6 base parameters
    False
    """
    _robot(robot)
    if isinstance(tol, (str, bytes, bool)):
        return _report(False, f"tol must be a number, got {type(tol).__name__} {tol!r}")
    ok, t = as_answer_array(tol, "tol", shape=())
    if not ok:
        return _report(False, t)
    t = float(t)
    if t <= 0:
        return _report(False, f"a tolerance must be positive, got {t:g}")
    refs = [base_parameters(robot, method="svd", rng=seed) for seed in TOLERANCE_SEEDS]
    rank = refs[0].rank
    r = int(np.count_nonzero(refs[0].singular_values > t))
    if r != rank:
        return _report(False, f"tolerance {t:.3g} gives rank {r}, but the robot has {rank} base parameters")
    round_off = max(bp.tol for bp in refs)            # max(Nn, p) eps s_max of each state set
    smallest = min(float(bp.singular_values[rank - 1]) for bp in refs)
    if t < round_off:
        return _report(False, f"tolerance {t:.3g} gives rank {r} here, but it lies below the round-off level "
                              f"of the SVD ({round_off:.2g} = max(Nn, p) eps s_max): among rounding errors "
                              "the rank is decided by chance; choose a larger one")
    if t > smallest / TOLERANCE_MARGIN:
        return _report(False, f"tolerance {t:.3g} gives rank {r} here, but it is within a factor of "
                              f"{TOLERANCE_MARGIN:g} of the smallest genuine singular value ({smallest:.3g} on "
                              f"{len(refs)} sets of random states): other data would lose a base parameter; "
                              "choose a smaller one")
    return _report(True, f"tolerance {t:.3g} gives rank {r}, with a margin on both sides "
                         f"(round-off level {round_off:.2g}, genuine singular values from {smallest:.3g})")


@student_check("Compute the r x r matrix B from the two BaseParameters objects.")
def check_svd_qr_map(bp_svd: Any, bp_qr: Any, B: Any) -> bool:
    """Check the matrix ``B`` with ``bp_svd.beta(pi) == B @ bp_qr.beta(pi)`` for every ``pi``.

    Both arguments must come from :func:`robidlib.base.base_parameters` for the same
    regressor (same parameter names and rank), one with ``method="svd"``, one with
    ``method="qr"``. The identity is tested on 20 random parameter vectors to a relative
    precision of ``1e-6``.

    Parameters
    ----------
    bp_svd, bp_qr : BaseParameters
        The SVD and the QR base parameters of one robot or regressor.
    B : array_like, shape (r, r)
        The answer.

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        If ``bp_svd`` or ``bp_qr`` is not a BaseParameters object.
    ValueError
        If they are not an SVD and a QR result of the same parameters.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.base import base_parameters
    >>> from robidlib.models import planar_2r
    >>> arm = planar_2r()
    >>> bp_svd, bp_qr = base_parameters(arm, method="svd"), base_parameters(arm)
    >>> check_svd_qr_map(bp_svd, bp_qr, np.eye(5))
    ✘ B must have shape (6, 6), got (5, 5)
    False
    """
    for name, bp in (("bp_svd", bp_svd), ("bp_qr", bp_qr)):
        if not all(hasattr(bp, a) for a in ("beta", "rank", "names", "method")):
            raise TypeError(f"{name} must be a BaseParameters object, got {type(bp).__name__}")
    if (bp_svd.method, bp_qr.method) != ("svd", "qr"):
        raise ValueError(f"give the SVD result first and the QR result second, got methods "
                         f"{bp_svd.method!r} and {bp_qr.method!r}")
    if tuple(bp_svd.names) != tuple(bp_qr.names) or bp_svd.rank != bp_qr.rank:
        raise ValueError("bp_svd and bp_qr must describe the same parameters with the same rank")
    r = bp_qr.rank
    ok, Bm = as_answer_array(B, "B", shape=(r, r))
    if not ok:
        return _report(False, Bm)
    pis = np.random.default_rng(3).normal(size=(20, len(bp_qr.names)))
    lhs = np.array([bp_svd.beta(x) for x in pis])
    rhs = np.array([Bm @ bp_qr.beta(x) for x in pis])
    err = float(np.abs(lhs - rhs).max() / max(np.abs(lhs).max(), 1e-300))
    if err > 1e-6:
        return _report(False, f"B beta_qr differs from beta_svd by {err:.2g} (relative): "
                              "compare the two maps on a parameter vector with a single non-zero entry")
    cond = float(np.linalg.cond(Bm))
    return _report(True, f"beta_svd = B beta_qr for every pi; B is invertible (cond {cond:.3g})")
