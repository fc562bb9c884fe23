"""References of the chapter-1 checks (:mod:`robidlib.checks.pendulum`)."""

from __future__ import annotations

import numpy as np


def coulomb_regressor() -> dict:
    """25 random states and the four columns [qdd, sin q, qd, sign(qd)] of the regressor."""
    rng = np.random.default_rng(20261130)
    q, qd, qdd = rng.uniform(-2.0, 2.0, size=(3, 25))
    return {"q": q, "qd": qd, "qdd": qdd, "columns": [qdd, np.sin(q), qd, np.sign(qd)],
            "names": ["qdd", "sin q", "qd", "sign(qd)"]}


def compute() -> dict:
    return {"coulomb_regressor": coulomb_regressor()}
