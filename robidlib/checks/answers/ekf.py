"""References of the chapter-8 checks (:mod:`robidlib.checks.ekf`)."""

from __future__ import annotations

import numpy as np

#: The setting of exercise 4 (the hanging 2R arm): posture (rad), torque noise (N m), step (s).
ARM_SETTING = {"q": (-np.pi / 2, 0.0), "sigma_tau": (0.02, 0.01), "dt": 0.02}


def nees_cases() -> list[dict]:
    """Twenty error vectors with covariances, their NEES and three slips."""
    rng = np.random.default_rng(20261206)
    cases = []
    for case in range(20):
        nx = 1 + case % 5
        G = rng.normal(size=(nx, nx))
        P = G @ G.T + 0.1 * np.eye(nx)
        e = rng.normal(size=nx)
        expected = float(e @ np.linalg.solve(P, e))
        cases.append({"e": e, "P": P, "expected": expected,
                      "slips": {"not_inverse": float(e @ P @ e), "square_root": float(np.sqrt(expected)),
                                "diagonal": float(np.sum(e**2 / np.diag(P)))}})
    return cases


def _blocks(C: np.ndarray, dt: float) -> np.ndarray:
    """The (q, qd) block of the process noise that a torque error of covariance ``M^-1 S M^-T``
    (``C``) held over a step ``dt`` adds to ``[q, qd]``."""
    out = np.zeros((4, 4))
    out[:2, :2] = dt**4 / 4 * C
    out[:2, 2:] = out[2:, :2] = dt**3 / 2 * C
    out[2:, 2:] = dt**2 * C
    return out


def arm_process_noise(q=ARM_SETTING["q"], sigma_tau=ARM_SETTING["sigma_tau"], dt=ARM_SETTING["dt"]) -> dict:
    """The (q, qd) block of the 2R arm's process noise at rest at ``q`` and four slips.

    ``q`` (2,) rad, ``sigma_tau`` (2,) N m (>= 0), ``dt`` s (> 0); a ``ValueError`` or
    ``TypeError`` names a bad one.
    """
    from ..._validate import as_array, check_positive
    from ...dynamics import mass_matrix
    from ...models import planar_2r

    qa = as_array("q", q, shape=(2,))
    st = as_array("sigma_tau", sigma_tau, shape=(2,))
    if np.any(st < 0):
        raise ValueError(f"sigma_tau must be >= 0 (standard deviations), got {st}")
    dt = check_positive("dt", dt)
    M = np.asarray(mass_matrix(planar_2r(), qa), dtype=float)
    Minv = np.linalg.inv(M)
    expected = _blocks(Minv @ np.diag(st**2) @ Minv.T, dt)
    diag_only = expected.copy()
    diag_only[:2, 2:] = diag_only[2:, :2] = 0.0
    return {"q": list(q), "sigma_tau": st, "dt": float(dt), "expected": expected,
            "slips": {"no_cross_terms": diag_only, "mass_not_inverse": _blocks(M @ np.diag(st**2) @ M.T, dt),
                      "uncoupled": _blocks(np.diag(np.diag(Minv) ** 2 * st**2), dt),
                      "over_dt2": expected / dt**2, "over_dt": expected / dt}}


def unobservable_at_rest() -> dict:
    """The parameters of a1 qdd + a2 sin q + a3 qd = tau that a pendulum at rest leaves unseen:
    away from q = 0 gravity shows a2; at q = 0 nothing is seen."""
    return {"away_from_zero": ["a1", "a3"], "at_zero": ["a1", "a2", "a3"]}


def compute() -> dict:
    return {"nees": nees_cases(), "arm_process_noise": arm_process_noise(),
            "unobservable_at_rest": unobservable_at_rest()}
