"""Tests of the goal-attainment (multi-objective, MO) solver of robidlib.multibody.solvers."""

from __future__ import annotations

import numpy as np
import pytest

from robidlib.multibody import models, solve_kinematics

SIMPLE = models.simple_chain()
REF = SIMPLE.reference_motion(duration=0.2)                 # 21 frames
# markers displaced by up to 7.5 mm in each coordinate (the paper's P7.5 scenario)
NOISY = REF.markers + np.random.default_rng(3).uniform(-0.0075, 0.0075, REF.markers.shape)


@pytest.mark.parametrize("objective,atol", [("tc", 1e-8), ("distance", 1e-8)])
def test_goal_attainment_reproduces_the_unperturbed_reference(objective, atol):
    res = solve_kinematics(SIMPLE.system, REF.markers[:5], "goal-attainment", objective=objective)
    # gamma, the largest residual (m), is minimised to ftol = 1e-10: positions to ~1e-10 m
    assert np.abs(res.q - REF.q[:5]).max() < atol
    assert res.max_violation.max() < 1e-9 and res.method == "goal-attainment"
    assert res.info["objective"] == objective


def test_goal_attainment_is_a_minimax_fit():
    """MO-TC makes the largest coordinate residual, MO-ED the largest distance, no larger than
    any other consistent fit (here SQP's least-squares fit), frame by frame."""
    s = SIMPLE.system
    sqp = solve_kinematics(s, NOISY, "slsqp")
    tc = solve_kinematics(s, NOISY, "goal-attainment", objective="tc")
    ed = solve_kinematics(s, NOISY, "goal-attainment", objective="distance")
    for res in (tc, ed):
        assert res.max_violation.max() < 1e-9
    r = {k: s.marker_positions(v.q) - NOISY for k, v in (("sqp", sqp), ("tc", tc), ("ed", ed))}
    slack = 1e-6                                   # the optimisers stop at ftol 1e-10
    assert np.all(np.abs(r["tc"]).max(axis=(1, 2)) <= np.abs(r["sqp"]).max(axis=(1, 2)) + slack)
    dist = {k: np.linalg.norm(v, axis=-1).max(axis=1) for k, v in r.items()}
    assert np.all(dist["ed"] <= dist["sqp"] + slack)
    # ... while the least-squares fit has the smaller sum of squares
    assert np.all(np.sum(r["sqp"] ** 2, axis=(1, 2)) <= np.sum(r["ed"] ** 2, axis=(1, 2)) + slack)


def test_goal_attainment_non_convergence_names_the_frame():
    with pytest.raises(ValueError, match="frame 0: goal-attainment did not converge"):
        solve_kinematics(SIMPLE.system, NOISY[:2], "goal-attainment", max_iter=1)
