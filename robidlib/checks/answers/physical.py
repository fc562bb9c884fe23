"""References of the chapter-5 checks (:mod:`robidlib.checks.physical`)."""

from __future__ import annotations

import numpy as np


def pseudo_inertia() -> list[dict]:
    """Ten-parameter sets (bodies, a point mass, impossible sets) and their pseudo-inertia J."""
    from ...params import link_params, pseudo_inertia

    rng = np.random.default_rng(20260519)
    links = [("a point mass of 2 kg at (0.5, 0, 0)", link_params(2.0, [0.5, 0.0, 0.0], np.zeros(6)))]
    for k in range(1, 5):
        m = rng.uniform(0.5, 5.0)
        c = rng.uniform(-0.3, 0.3, 3)
        d = rng.uniform(0.01, 0.1, 3)
        links.append((f"random body {k}", link_params(m, c, [d[1] + d[2], d[0] + d[2], d[0] + d[1], 0.0, 0.0, 0.0])))
    links.append(("ten random numbers", rng.uniform(-1.0, 1.0, 10)))     # J is defined for any ten numbers
    links.append(("a set that breaks the triangle inequality",
                  link_params(1.0, [0.1, 0.0, 0.0], [0.01, 0.01, 0.05, 0.0, 0.0, 0.0])))
    return [{"label": label, "params": pi, "J": pseudo_inertia(pi)} for label, pi in links]


def compute() -> dict:
    return {"pseudo_inertia": pseudo_inertia()}
