"""Tests of the error measures for identifiable parameters and of absolute sensitivity steps."""

import warnings

import numpy as np
import pytest

from robidlib.models import planar_2r
from robidlib.trajectories import quintic
from robidlib.validation import (
    essential_parameters,
    relative_parameter_error,
    scaled_parameter_error,
    sensitivity,
    standardized_error,
)


def test_scaled_error_weights_parameters_by_their_columns():
    b = np.array([10.0, 0.001])
    e = np.array([10.1, -0.001])                 # a sign flip of a negligible parameter
    assert relative_parameter_error(e, b) > 50   # delta_beta: half the parameters "wrong"
    assert scaled_parameter_error(e, b, [1.0, 1.0]) == pytest.approx(100 * np.hypot(0.1, 0.002) / np.hypot(10, 0.001))
    # invariant to units: multiplying a parameter by c and its column by 1/c changes nothing
    c = np.array([1.0, 1e3])
    assert scaled_parameter_error(e * c, b * c, [1.0, 1.0] / c) == pytest.approx(scaled_parameter_error(e, b, [1.0, 1.0]))
    many = scaled_parameter_error(np.stack([b, e]), b, [1.0, 1.0])
    assert many.shape == (2,) and many[0] == 0.0


def test_standardized_error_and_essential_parameters():
    b = np.array([1.0, 2.0, 0.0])
    s = np.array([0.1, 1.0, 0.5])
    assert standardized_error(b, b, s) == 0.0
    assert standardized_error(b + s, b, s) == pytest.approx(1.0)
    np.testing.assert_allclose(standardized_error(np.stack([b, b + 2 * s]), b, s), [0.0, 2.0])
    assert essential_parameters(b, s).tolist() == [False, False, False]      # 10 %, 50 %, zero value
    assert essential_parameters(b, s, threshold=11.0).tolist() == [True, False, False]


def test_metric_bad_input():
    with pytest.raises(ValueError, match="scale must be > 0"):
        scaled_parameter_error([1.0, 2.0], [1.0, 2.0], [1.0, 0.0])
    with pytest.raises(ValueError, match="the scaled truth D b is zero"):
        scaled_parameter_error([1.0, 2.0], [0.0, 0.0], [1.0, 1.0])
    with pytest.raises(ValueError, match=r"estimate must have 2 parameters"):
        scaled_parameter_error([1.0], [1.0, 2.0], [1.0, 1.0])
    with pytest.raises(ValueError, match=r"scale must have shape \(2,\)"):
        scaled_parameter_error([1.0, 2.0], [1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="std must be > 0"):
        standardized_error([1.0], [1.0], [-1.0])
    with pytest.raises(ValueError, match="must be finite"):
        standardized_error([np.nan], [1.0], [1.0])
    with pytest.raises(ValueError, match="truth must hold at least one parameter"):
        standardized_error(np.zeros(0), np.zeros(0), np.zeros(0))
    with pytest.raises(ValueError, match="std must be >= 0"):
        essential_parameters([1.0], [-0.1])
    with pytest.raises(ValueError, match="threshold must be > 0"):
        essential_parameters([1.0], [0.1], threshold=0.0)
    with pytest.raises(ValueError, match=r"std must have shape \(2,\)"):
        essential_parameters([1.0, 2.0], [0.1])


def test_sensitivity_with_absolute_steps():
    arm = planar_2r()
    ref = quintic(np.linspace(0.0, 1.0, 51), [0.0, 0.0], [0.5, -0.5], T=1.0)
    P = arm.params.copy()
    scale = np.full(P.size, 0.01)
    res = sensitivity(arm, P, ref, variation=3.0, steps=[-3.0, 0.0, 3.0], output="tau", scale=scale)
    assert res.scale is not None and res.rms.shape == (P.size, 3) and np.all(res.rms[:, 1] == 0.0)
    zero = np.flatnonzero(P == 0)
    moved = [i for i in zero if res.rms[i, 2] > 0]
    assert moved                                      # a zero parameter can be varied absolutely
    rel = sensitivity(arm, P, ref, steps=[-0.5, 0.0, 0.5], output="tau")
    assert np.all(rel.rms[zero] == 0.0) and rel.scale is None
    assert "+3 σ" in res.to_markdown() and "+50 %" in rel.to_markdown()
    # the simulated form works with absolute steps too
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        sim = sensitivity(arm, P, ref, variation=1.0, steps=[-1.0, 1.0], scale=np.full(P.size, 0.05))
    assert sim.rms.shape == (P.size, 2)
    with pytest.raises(ValueError, match="variation must be in \\(0, 1\\]"):
        sensitivity(arm, P, ref, variation=3.0, output="tau")
    with pytest.raises(ValueError, match="scale must be > 0"):
        sensitivity(arm, P, ref, variation=3.0, output="tau", scale=np.zeros(P.size))
    with pytest.raises(ValueError, match=r"scale must have shape \(20,\)"):
        sensitivity(arm, P, ref, variation=3.0, output="tau", scale=[1.0])
