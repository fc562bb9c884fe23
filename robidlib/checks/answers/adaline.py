"""References of the chapter-6 checks (:mod:`robidlib.checks.adaline`)."""

from __future__ import annotations

import numpy as np


def delta_rule_epoch() -> dict:
    """Small random data, one epoch of the delta rule from ``w0`` and three slips."""
    rng = np.random.default_rng(20261201)
    N, p = 12, 3
    W = rng.normal(size=(N, p))
    d = rng.normal(size=N)
    w0 = rng.normal(size=p)
    gamma = 0.05
    expected = w0.copy()
    for x, dk in zip(W, d):
        expected = expected + gamma * (dk - x @ expected) * x
    wrong_sign = w0.copy()
    for x, dk in zip(W, d):
        wrong_sign = wrong_sign - gamma * (dk - x @ wrong_sign) * x
    return {"W": W, "d": d, "w0": w0, "gamma": gamma, "expected": expected,
            "slips": {"batch": w0 + gamma * W.T @ (d - W @ w0), "batch_mean": w0 + gamma * W.T @ (d - W @ w0) / N,
                      "wrong_sign": wrong_sign}}


def compute() -> dict:
    return {"delta_rule_epoch": delta_rule_epoch()}
