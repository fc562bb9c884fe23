"""Compute the optimised excitations the chapters rely on, once, and store them as package data.

An optimised excitation is the result of a truncated SLSQP run whose last digits (and, for a
non-convex problem, sometimes its local optimum) depend on the CPU, the BLAS kernel and the
library versions. The chapters therefore load the stored trajectories
(``robidlib.trajectories.load_excitation``) instead of re-optimising. Each stored file carries
its recipe in ``meta["recipe"]``; ``tests/test_stored_excitations.py`` re-runs every recipe
with :func:`run_recipe` and checks that it still reaches a trajectory at least as good, within
the limits.

Usage::

    python tools/store_excitations.py            # (re)compute and store every recipe
    python tools/store_excitations.py NAME ...   # only these
"""

from __future__ import annotations

import copy
import sys
from typing import Any

import numpy as np
import scipy

import robidlib
from robidlib import models
from robidlib.base import base_parameters
from robidlib.trajectories import (
    EXCITATION_DIR,
    FourierTrajectory,
    PolynomialTrajectory,
    excitation_cond,
    optimize_excitation,
    optimize_polynomial_excitation,
    random_polynomial,
    save_excitation,
)

#: Chapter 3/4's planar arm with friction (N m s/rad, N m per joint).
PLANAR_FRICTION = [[0.3, 0.4], [0.15, 0.2]]

_T2 = 5.0
_T5 = 10.0
_WF5 = 2 * np.pi / _T5


def _fourier(wf: float, a: Any, b: Any, q0: Any) -> dict:
    return {"kind": "fourier", "wf": float(wf), "a": np.asarray(a, float).tolist(),
            "b": np.asarray(b, float).tolist(), "q0": np.asarray(q0, float).tolist()}


def paper_sinusoids() -> dict:
    """The fixed sinusoids of the prismatic joints (lift, telescope) of the 5-DOF arm.

    Lift: 0.2 m amplitude about the middle of its 0.5 m stroke, period T/2; telescope: 0.08 m
    about the middle of its 0.2 m stroke, period T/3 (the paper drives both with sinusoids
    and gives no numbers; these use most of each stroke within the speed limits).
    """
    a, b, q0 = np.zeros((5, 3)), np.zeros((5, 3)), np.zeros(5)
    a[0, 1], q0[0] = 0.2 * _WF5 * 2, 0.25      # q1 = 0.25 + 0.2 sin(2 wf t)
    a[4, 2], q0[4] = 0.08 * _WF5 * 3, 0.10     # q5 = 0.10 + 0.08 sin(3 wf t)
    return _fourier(_WF5, a, b, q0)


#: name -> recipe (JSON data: robot, base parameters, start, optimiser and its options).
#: The two 5-DOF designs that chapter 4 compares run until SLSQP's convergence test stops them
#: (``maxiter`` 1000, far more than they need): with at most 100 iterations the polynomial
#: design stopped short (``success: false``, cond 12.5; converged, its best start reaches 9.4
#: after about 250 iterations), and a comparison of designs must compare converged ones.
RECIPES: dict[str, dict] = {
    "planar_2r_fourier": {
        "chapter": "04_excitation",
        "function": "optimize_excitation",
        "robot": {"model": "planar_2r", "kwargs": {"friction": PLANAR_FRICTION}},
        "base": {"friction": True, "rng": 0},
        # one sinusoid of 0.8 rad/s velocity amplitude per joint, period 5 s, 4 harmonics
        "initial": _fourier(2 * np.pi / _T2, [[0.8, 0, 0, 0], [0.8, 0, 0, 0]], np.zeros((2, 4)), [0.0, 0.0]),
        "options": {"friction": True, "maxiter": 60},
    },
    "redundant_5dof_fourier": {
        "chapter": "04_excitation",
        "function": "optimize_excitation",
        "robot": {"model": "redundant_5dof", "kwargs": {}},
        "base": {"friction": False, "rng": 0},
        # start: the paper's sinusoids on the prismatic joints, small sinusoids on the others
        "initial": {"kind": "fourier_from_paper", "revolute_velocity": 0.3},
        "options": {"maxiter": 1000, "n_starts": 3, "rng": 4},
    },
    "redundant_5dof_paper": {
        "chapter": "04_excitation",
        "function": "optimize_polynomial_excitation",
        "robot": {"model": "redundant_5dof", "kwargs": {}},
        "base": {"friction": False, "rng": 0},
        # the paper's eq. 39: a quintic per revolute joint (2, 3, 4), sinusoids on 1 and 5
        "initial": {"kind": "random_polynomial", "T": _T5, "degree": 5, "free": [1, 2, 3], "rng": 0},
        "options": {"free": [1, 2, 3], "maxiter": 1000, "n_starts": 3, "rng": 4},
    },
}


def robot_of(recipe: dict) -> Any:
    """The robot a recipe names (a factory of ``robidlib.models`` and its arguments)."""
    spec = recipe["robot"]
    return getattr(models, spec["model"])(**spec["kwargs"])


def _trajectory(doc: dict, robot: Any) -> Any:
    kind = doc["kind"]
    if kind == "fourier":
        return FourierTrajectory(doc["wf"], doc["a"], doc["b"], doc["q0"])
    per = _trajectory(paper_sinusoids(), robot)
    if kind == "fourier_from_paper":
        # the sinusoids of the prismatic joints plus one harmonic per revolute joint
        a = per.a.copy()
        a[1:4, 0] = doc["revolute_velocity"]
        q0 = per.q0.copy()
        return FourierTrajectory(per.wf, a, per.b, q0)
    if kind == "random_polynomial":
        return random_polynomial(robot, doc["T"], doc["rng"], degree=doc["degree"], free=doc["free"],
                                 periodic=per)
    raise ValueError(f"unknown initial trajectory kind {kind!r}")


def run_recipe(recipe: dict):
    """Run a recipe: ``(ExcitationResult, robot, base)``."""
    robot = robot_of(recipe)
    base = base_parameters(robot, **recipe["base"])
    initial = _trajectory(recipe["initial"], robot)
    options = dict(recipe["options"])
    if recipe["function"] == "optimize_excitation":
        res = optimize_excitation(robot, initial, base=base, **options)
    elif recipe["function"] == "optimize_polynomial_excitation":
        res = optimize_polynomial_excitation(robot, initial, base=base, **options)
    else:
        raise ValueError(f"unknown optimiser {recipe['function']!r}")
    return res, robot, base


def store(name: str) -> dict:
    """Run the recipe ``name`` and store the result; return the meta data written."""
    recipe = copy.deepcopy(RECIPES[name])
    res, robot, base = run_recipe(recipe)
    friction = recipe["options"].get("friction", False)
    meta = {
        "recipe": recipe,
        "robot": robot.name,
        "cond": res.cond,
        "cond_initial": res.cond_initial,
        "scaling": res.scaling,
        "n_eval": int(res.t_eval.size),
        "history": [float(h) for h in res.history],
        "start_conds": [float(c) for c in res.start_conds],
        "best_start": int(res.best_start),
        "success": res.success,
        "contraction": float(res.info["contraction"]),
        "versions": {"robidlib": robidlib.__version__, "numpy": np.__version__, "scipy": scipy.__version__},
    }
    # what the chapters recompute from the stored coefficients: the same number on the same grid
    assert abs(excitation_cond(robot, res.trajectory.evaluate(res.t_eval), base, friction=friction)
               / res.cond - 1) < 1e-9
    # the shipped file, in the project's source tree: named and replaced explicitly
    save_excitation(res.trajectory, name, meta=meta, directory=EXCITATION_DIR, overwrite=True)
    return meta


def main(argv: list[str]) -> int:
    names = argv or list(RECIPES)
    for name in names:
        meta = store(name)
        print(f"{name}: cond {meta['cond_initial']:.4g} -> {meta['cond']:.4g} "
              f"(start {meta['best_start']} of {len(meta['start_conds'])}, success={meta['success']})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
