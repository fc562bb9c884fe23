"""References of the chapter-10 checks (:mod:`robidlib.checks.mixed_coordinates`)."""

from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation


def reduced_to_full() -> list[dict]:
    """Five random body frames: the reduced ``[O, u, v]`` and the full ``[O, u, v, w]``."""
    from ...multibody.body import reduced_to_full

    rng = np.random.default_rng(20250806)
    R = Rotation.random(5, random_state=rng).as_matrix()
    O = rng.uniform(-1.0, 1.0, (5, 3))
    cases = []
    for k in range(5):
        q9 = np.r_[O[k], R[k, :, 0], R[k, :, 1]]
        cases.append({"reduced": q9, "full": reduced_to_full(q9)})
    return cases


def body_mass_matrix() -> list[dict]:
    """Three bodies (mass, principal moments about the centre of mass) and their 12 x 12 mass matrix."""
    from ...multibody.body import generic_mass_matrix

    bodies = [(2.0, [0.016, 0.015, 0.004]), (2.5, [0.003, 0.036, 0.035]), (0.6, [0.0006, 0.0007, 0.0008])]
    return [{"mass": m, "inertia": inertia, "matrix": generic_mass_matrix(m, np.zeros(3), np.diag(inertia))}
            for m, inertia in bodies]


def compute() -> dict:
    return {"reduced_to_full": reduced_to_full(), "body_mass_matrix": body_mass_matrix()}
