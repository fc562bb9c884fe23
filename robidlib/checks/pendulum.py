"""Checks of the exercises of chapter 1 (the single pendulum)."""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

import numpy as np

__all__ = [
    "check_coulomb_regressor",
    "check_equivalent_pendulums",
    "check_sqrt_n_scaling",
]

from ._report import report as _report


def check_coulomb_regressor(func: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]) -> bool:
    """Check a pendulum regressor extended with Coulomb friction (chapter 1, exercise 1).

    The expected columns are ``[qdd, sin q, qd, sign(qd)]`` for the parameters
    ``[I + m l^2, m g l, b, fc]``.

    Parameters
    ----------
    func : callable
        ``func(q, qd, qdd)`` taking arrays of shape (N,) and returning shape (N, 4).

    Returns
    -------
    bool
        Whether the answer is right (a message says what is wrong otherwise).

    Raises
    ------
    TypeError
        If ``func`` is not callable.
    """
    if not callable(func):
        raise TypeError(f"func must be a function of (q, qd, qdd), got {type(func).__name__}")
    rng = np.random.default_rng(20261130)
    q, qd, qdd = rng.uniform(-2.0, 2.0, size=(3, 25))
    expected = np.column_stack([qdd, np.sin(q), qd, np.sign(qd)])
    try:
        got = np.asarray(func(q, qd, qdd), dtype=float)
    except Exception as exc:  # the student's code failed: tell them how
        return _report(False, f"your function raised {type(exc).__name__}: {exc}")
    if got.shape != expected.shape:
        return _report(False, f"the regressor must have shape (N, 4) = {expected.shape}, got {got.shape}")
    names = ["qdd", "sin q", "qd", "sign(qd)"]
    for j, name in enumerate(names):
        if not np.allclose(got[:, j], expected[:, j], atol=1e-12):
            return _report(False, f"column {j} should be {name}")
    return _report(True, "the regressor [qdd, sin q, qd, sign(qd)] is right")


def _pendulum_tuple(p: Mapping[str, float] | Sequence[float], which: str) -> tuple[float, float, float]:
    if isinstance(p, Mapping):
        try:
            vals = (p["I"], p["m"], p["l"])
        except KeyError as exc:
            raise TypeError(f"{which} must have keys 'I', 'm', 'l'; missing {exc}") from None
    elif hasattr(p, "I") and hasattr(p, "m") and hasattr(p, "l"):
        vals = (p.I, p.m, p.l)
    else:
        vals = tuple(p)
        if len(vals) != 3:
            raise TypeError(f"{which} must be (I, m, l), a dict with those keys, or a Pendulum; got {p!r}")
    return tuple(float(v) for v in vals)  # type: ignore[return-value]


def check_equivalent_pendulums(p1, p2, g: float = 9.81) -> bool:
    """Check two physically valid pendulums that produce identical torques (chapter 1, ex. 2).

    Parameters
    ----------
    p1, p2 : (I, m, l), dict with keys I, m, l, or Pendulum
        Centroidal inertia (kg m^2), mass (kg) and centre-of-mass distance (m).
    g : float, default 9.81
        Gravitational acceleration (m/s^2).

    Returns
    -------
    bool
        True when both are physical (I >= 0, m > 0, l > 0), differ, and give the same torque
        on random motions.
    """
    a = _pendulum_tuple(p1, "p1")
    b = _pendulum_tuple(p2, "p2")
    for name, (I, m, l) in (("p1", a), ("p2", b)):
        if not (I >= 0 and m > 0 and l > 0):
            return _report(False, f"{name} = (I={I}, m={m}, l={l}) is not physical: need I >= 0, m > 0, l > 0")
    if np.allclose(a, b, rtol=1e-9, atol=0):
        return _report(False, "the two pendulums are the same: change m and l, then adjust I")
    rng = np.random.default_rng(7)
    q, qd, qdd = rng.uniform(-3.0, 3.0, size=(3, 50))

    def tau(I: float, m: float, l: float) -> np.ndarray:
        return (I + m * l**2) * qdd + m * g * l * np.sin(q)

    t1, t2 = tau(*a), tau(*b)
    if not np.allclose(t1, t2, rtol=1e-8, atol=1e-10):
        err = float(np.max(np.abs(t1 - t2)))
        return _report(False, f"the torques differ (max difference {err:.3g} N m): keep I + m l^2 and m l equal")
    return _report(True, "different masses and lengths, identical torques: only I + m l^2 and m g l are identifiable")


def check_sqrt_n_scaling(n_samples: Sequence[float], std: Sequence[float], tol: float = 0.1) -> bool:
    """Check that standard deviations fall like ``1/sqrt(N)`` (chapter 1, exercise 3).

    Parameters
    ----------
    n_samples : sequence of float
        Numbers of samples N (at least three distinct, positive).
    std : sequence of float
        Standard deviation of one parameter estimate for each N (positive).
    tol : float, default 0.1
        Accepted distance of the log-log slope from -1/2.

    Returns
    -------
    bool
    """
    n = np.asarray(n_samples, dtype=float)
    s = np.asarray(std, dtype=float)
    if n.ndim != 1 or s.shape != n.shape:
        raise TypeError(f"n_samples and std must be 1-D of the same length, got shapes {n.shape} and {s.shape}")
    if n.size < 3 or np.unique(n).size < 3 or np.any(n <= 0) or np.any(s <= 0):
        return _report(False, "give at least three distinct positive N and positive standard deviations")
    slope = float(np.polyfit(np.log(n), np.log(s), 1)[0])
    ok = abs(slope + 0.5) <= tol
    return _report(ok, f"log-log slope {slope:.3f} " + ("is close to -1/2" if ok else "should be close to -1/2"))
