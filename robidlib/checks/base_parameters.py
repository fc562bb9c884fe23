"""Checks of the exercises of chapter 2 (full and base inertial parameters)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import sympy as sp

from ..base import base_parameters, random_states
from ..regressor import regressor
from ._report import report as _report

__all__ = ["check_base_parameters", "check_null_direction", "check_tolerance"]


def _robot(robot: Any) -> None:
    if not (hasattr(robot, "param_names") and hasattr(robot, "n")):
        raise TypeError(f"robot must be a SerialRobot, got {type(robot).__name__}")


def check_base_parameters(robot: Any, answer: Sequence[str | sp.Expr]) -> bool:
    """Check a set of base parameters written as linear combinations of standard parameters.

    Any valid set is accepted, not only the one :func:`robidlib.base.base_parameters` prints:
    the answer is right when it has as many entries as the rank, its entries are linearly
    independent, and each entry is unaffected by every null-space direction of the regressor
    (so it is identifiable).

    Parameters
    ----------
    robot : SerialRobot
    answer : sequence of str or sympy expressions
        E.g. ``["m1 + m2", "mx2", "my2", "Izz2"]``, using the robot's parameter names.

    Returns
    -------
    bool
    """
    _robot(robot)
    if isinstance(answer, (str, bytes)) or not isinstance(answer, Sequence):
        raise TypeError("answer must be a list of expressions such as ['m1 + m2', 'Izz2']")
    names = list(robot.param_names)
    symbols = {n: sp.Symbol(n) for n in names}
    rows = []
    for item in answer:
        try:
            expr = sp.sympify(item, locals=symbols) if isinstance(item, str) else sp.sympify(item)
        except (sp.SympifyError, SyntaxError, TypeError) as exc:
            raise TypeError(f"cannot read {item!r} as an expression: {exc}") from None
        unknown = sorted(str(s) for s in expr.free_symbols if str(s) not in symbols)
        if unknown:
            return _report(False, f"{item!r} uses unknown names {unknown}; use {names[:3]}...")
        if not expr.is_polynomial(*symbols.values()) or sp.Poly(expr, *symbols.values()).total_degree() > 1:
            return _report(False, f"{item!r} is not a linear combination of standard parameters")
        rows.append([float(expr.coeff(symbols[n])) for n in names])
    bp = base_parameters(robot, method="svd", rng=0)
    C = np.array(rows, dtype=float).reshape(len(rows), len(names))
    if C.shape[0] != bp.rank:
        return _report(False, f"you gave {C.shape[0]} base parameters; this robot has {bp.rank}")
    if np.linalg.matrix_rank(C, tol=1e-9) < bp.rank:
        return _report(False, "your base parameters are not linearly independent")
    leak = np.abs(C @ bp.V2).max(axis=1) if bp.V2.size else np.zeros(len(rows))
    scale = np.maximum(1.0, np.abs(C).max(axis=1))
    bad = [str(answer[i]) for i in np.flatnonzero(leak > 1e-8 * scale)]
    if bad:
        return _report(False, f"not identifiable (changed by a null-space direction): {bad}")
    return _report(True, f"a valid set of {bp.rank} base parameters")


def check_null_direction(robot: Any, d: Any) -> bool:
    """Check a parameter change ``d`` that changes no torque of ``robot`` for any motion.

    Parameters
    ----------
    robot : SerialRobot
    d : array_like, shape (10 n,)

    Returns
    -------
    bool
    """
    _robot(robot)
    try:
        d = np.asarray(d, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"d must be a numeric vector, got {type(d).__name__}") from None
    p = len(robot.param_names)
    if d.shape != (p,):
        return _report(False, f"d must have shape ({p},), one entry per standard parameter; got {d.shape}")
    if not np.all(np.isfinite(d)) or np.abs(d).max() == 0:
        return _report(False, "d must be finite and not zero")
    q, qd, qdd = random_states(robot, 50, rng=12345)
    dtau = regressor(robot, q, qd, qdd) @ d
    scale = np.abs(regressor(robot, q, qd, qdd)).max() * np.abs(d).max()
    worst = float(np.abs(dtau).max())
    ok = worst <= 1e-9 * scale
    return _report(ok, "no torque changes: d is in the null space" if ok else
                   f"d changes the torques by up to {worst:.3g}: it is not in the null space")


def check_tolerance(robot: Any, tol: float) -> bool:
    """Check a rank tolerance chosen from a singular-value plot of ``robot``'s regressor.

    The tolerance is right when it gives the robot's number of base parameters on the
    default random states of :func:`robidlib.base.base_parameters`.

    Returns
    -------
    bool
    """
    _robot(robot)
    if isinstance(tol, bool) or not isinstance(tol, (int, float, np.floating, np.integer)):
        raise TypeError(f"tol must be a number, got {type(tol).__name__}")
    if not np.isfinite(tol) or tol <= 0:
        return _report(False, f"a tolerance must be positive and finite, got {tol}")
    ref = base_parameters(robot, method="svd", rng=0)
    r = int(np.count_nonzero(ref.singular_values > tol))
    ok = r == ref.rank
    return _report(ok, f"tolerance {tol:.3g} gives rank {r}" + ("" if ok else f", but the robot has {ref.rank} base parameters"))
