"""``scipy.integrate.solve_ivp`` with a budget: a clear error instead of an endless integration.

An adaptive solver asked for a horizon of a million seconds, or for a tolerance it cannot
meet, does not fail: it keeps stepping. Every simulation of robidlib therefore counts the
evaluations of its right-hand side and stops with a ``ValueError`` that names the time span,
the tolerances and the budget ``max_nfev`` once the count exceeds it. A solver that gives
up by itself (``sol.success`` False) is reported the same way.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
from scipy.integrate import solve_ivp

from ._validate import check_int

#: Default budget of right-hand-side evaluations of one simulation: about 10 s of a 6-joint
#: robot's dynamics, and more than ten times what the book's longest simulation needs.
MAX_NFEV = 200_000


class _Exhausted(Exception):
    def __init__(self, t: float) -> None:
        self.t = t


class OdeBudget:
    """Counts right-hand-side evaluations over one or several ``solve_ivp`` calls.

    Parameters
    ----------
    who : str
        What is simulated, for the messages (e.g. ``"simulate"``).
    max_nfev : int
        Largest total number of evaluations (>= 1).
    """

    def __init__(self, who: str, max_nfev: Any = MAX_NFEV) -> None:
        self.who = who
        self.max_nfev = check_int("max_nfev", max_nfev, 1)
        self.nfev = 0

    def solve(self, fun: Callable, t_span: Sequence[float], y0: Any, **kwargs: Any):
        """``solve_ivp(fun, t_span, y0, **kwargs)``, counted; a ``ValueError`` on failure."""

        def counted(t: float, y: np.ndarray) -> np.ndarray:
            self.nfev += 1
            if self.nfev > self.max_nfev:
                raise _Exhausted(t)
            return fun(t, y)

        t0, t1 = float(t_span[0]), float(t_span[1])
        tols = f"rtol = {kwargs.get('rtol', 1e-3):g}, atol = {kwargs.get('atol', 1e-6):g}"
        try:
            sol = solve_ivp(counted, (t0, t1), y0, **kwargs)
        except _Exhausted as stop:
            raise ValueError(
                f"{self.who}: the ODE solver used up max_nfev = {self.max_nfev} evaluations and "
                f"stopped at t = {stop.t:.6g} of the time span [{t0:.6g}, {t1:.6g}] ({tols}); "
                "shorten the time span, loosen the tolerances, or raise max_nfev"
            ) from None
        if not sol.success:
            raise ValueError(
                f"{self.who}: the ODE solver failed on [{t0:.6g}, {t1:.6g}] with {tols}: "
                f"{sol.message} (tolerances too tight for double precision, or a solution that "
                "blows up)"
            )
        return sol
