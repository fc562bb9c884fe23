"""References of the chapter-3 checks (:mod:`robidlib.checks.least_squares`)."""

from __future__ import annotations

import numpy as np


def _problem(rng: np.random.Generator, m: int, p: int, cond: float, noise: float) -> tuple[np.ndarray, np.ndarray]:
    """``W`` (m x p) with singular values from 1 down to ``1/cond`` and ``y = W 1 + noise``."""
    U, _ = np.linalg.qr(rng.standard_normal((m, p)))
    V, _ = np.linalg.qr(rng.standard_normal((p, p)))
    W = (U * np.logspace(0, -np.log10(cond), p)) @ V.T
    return W, W @ np.ones(p) + noise * rng.standard_normal(m)


def augmented_qr() -> list[dict]:
    """A well-conditioned problem and one with cond(W) = 1e7: data, solution, residual norm."""
    rng = np.random.default_rng(20261203)
    cases = []
    for label, (m, p, cond, noise, tol) in {
        "a well-conditioned problem": (40, 4, 10.0, 0.1, 1e-10),
        "cond(W) = 1e7": (120, 6, 1e7, 1e-6, 1e-6),
    }.items():
        W, y = _problem(rng, m, p, cond, noise)
        b, *_ = np.linalg.lstsq(W, y, rcond=None)
        cases.append({"label": label, "W": W, "y": y, "cond": cond, "tol": tol, "b": b,
                      "rnorm": float(np.linalg.norm(y - W @ b))})
    return cases


def rel_std() -> list[dict]:
    """Two problems, their relative standard deviations (%) and three slips."""
    rng = np.random.default_rng(20261204)
    cases = []
    for m, p in ((12, 3), (60, 5)):
        W = rng.standard_normal((m, p)) * np.logspace(0, 1, p)
        b_true = rng.uniform(0.5, 2.0, p)
        y = W @ b_true + 0.3 * rng.standard_normal(m)
        b, *_ = np.linalg.lstsq(W, y, rcond=None)
        res = y - W @ b
        dof = m - p
        _, s, Vt = np.linalg.svd(W, full_matrices=False)
        var = (res @ res) / dof * np.sum((Vt.T / s) ** 2, axis=1)
        expected = 100 * np.sqrt(var) / np.abs(b)
        cases.append({"W": W, "y": y, "expected": expected,
                      "slips": {"fraction": expected / 100, "rows": expected * np.sqrt(dof / m),
                                "variance": 100 * var / np.abs(b)}})
    return cases


def joint_sigmas() -> list[dict]:
    """Two stacked multi-joint problems, the per-joint sigmas and three slips."""
    rng = np.random.default_rng(20261205)
    cases = []
    for n, N, p, sig in ((2, 40, 5, (1.0, 0.1)), (3, 30, 4, (0.2, 2.0, 0.5))):
        W = rng.standard_normal((N * n, p))
        y = W @ rng.uniform(-1, 1, p) + np.tile(sig, N) * rng.standard_normal(N * n)
        b, *_ = np.linalg.lstsq(W, y, rcond=None)
        ss = np.sum((y - W @ b).reshape(N, n) ** 2, axis=0)
        expected = np.sqrt(ss / (N - p))
        cases.append({"W": W, "y": y, "n": n, "expected": expected,
                      "slips": {"variance": expected**2, "rows": np.sqrt(ss / N), "rows_minus_one": np.sqrt(ss / (N - 1))}})
    return cases


def compute() -> dict:
    return {"augmented_qr": augmented_qr(), "rel_std": rel_std(), "joint_sigmas": joint_sigmas()}
