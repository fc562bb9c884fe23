"""Tests of robidlib.validation: RMS, RSD and agreement indices."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from robidlib.validation import agreement_index, rms_index, rsd_index

O = np.array([1.0, 2.0, 3.0])
P = np.array([1.0, 2.0, 4.0])
INDICES = (rms_index, rsd_index, agreement_index)


def test_hand_computed_small_example():
    # RMS: sqrt(1/3) / (sqrt(21/3) + sqrt(14/3))
    assert rms_index(O, P) == pytest.approx(np.sqrt(1 / 3) / (np.sqrt(7) + np.sqrt(14 / 3)), rel=1e-14)
    # RSD: deviations p' = (-4/3, -1/3, 5/3), o' = (-1, 0, 1), p' - o' = (-1/3, -1/3, 2/3)
    assert rsd_index(O, P) == pytest.approx(np.sqrt(2 / 9) / (np.sqrt(42 / 27) + np.sqrt(2 / 3)), rel=1e-14)
    # AI: o_m = 2, sum (p - o)^2 = 1, sum (|p - 2| + |o - 2|)^2 = 2^2 + 0 + 3^2 = 13
    assert agreement_index(O, P) == pytest.approx(12 / 13, rel=1e-14)
    assert isinstance(rms_index(O, P), float)


def test_perfect_prediction():
    o = np.random.default_rng(0).normal(size=(50, 3))
    np.testing.assert_array_equal(rms_index(o, o), 0.0)
    np.testing.assert_array_equal(rsd_index(o, o), 0.0)
    np.testing.assert_array_equal(agreement_index(o, o), 1.0)
    # RSD ignores an offset, RMS and AI do not
    np.testing.assert_allclose(rsd_index(o, o + 3.0), 0.0, atol=1e-15)
    assert np.all(rms_index(o, o + 3.0) > 0.3)
    assert np.all(agreement_index(o, o + 3.0) < 0.5)


def test_constant_prediction_at_the_mean_and_worst_cases():
    o = np.random.default_rng(1).normal(size=(40, 2)) + [5.0, -1.0]
    p = np.broadcast_to(o.mean(axis=0), o.shape)
    np.testing.assert_allclose(agreement_index(o, p), 0.0, atol=1e-15)
    np.testing.assert_allclose(rsd_index(o, p), 1.0)
    # zero prediction and sign-flipped prediction are the worst for RMS
    np.testing.assert_allclose(rms_index(o, np.zeros_like(o)), 1.0)
    np.testing.assert_allclose(rms_index(o, -2 * o), 1.0)
    np.testing.assert_allclose(rsd_index(o, -0.5 * o), 1.0)


def test_per_joint_columns_and_overall_flattened():
    rng = np.random.default_rng(2)
    o = rng.normal(size=(30, 3)) * [1.0, 10.0, 100.0]
    p = o + rng.normal(size=(30, 3))
    for f in INDICES:
        per = f(o, p)
        assert per.shape == (3,)
        np.testing.assert_allclose(per, [f(o[:, j], p[:, j]) for j in range(3)], rtol=1e-14)
        overall = f(o, p, per_joint=False)
        assert isinstance(overall, float)
        assert overall == pytest.approx(f(o.ravel(), p.ravel()), rel=1e-14)
    # the same absolute noise matters less on the joint with larger torques
    assert rms_index(o, p)[0] > rms_index(o, p)[1] > rms_index(o, p)[2]
    assert agreement_index(o, p)[0] < agreement_index(o, p)[2]


def test_scale_invariance_and_worse_prediction_scores_worse():
    rng = np.random.default_rng(3)
    o = np.sin(np.linspace(0, 10, 200)) + 0.1
    good = o + 0.05 * rng.normal(size=o.size)
    bad = o + 0.5 * rng.normal(size=o.size)
    for f in INDICES:
        for c in (1e-200, 1e3, 1e200):  # squares of 1e-200 and 1e200 would under/overflow
            assert f(c * o, c * good) == pytest.approx(f(o, good), rel=1e-12)
    assert rms_index(o, good) < rms_index(o, bad)
    assert rsd_index(o, good) < rsd_index(o, bad)
    assert agreement_index(o, good) > agreement_index(o, bad)


@settings(max_examples=200, deadline=None)
@given(
    arrays(np.float64, st.integers(2, 20), elements=st.floats(-1e3, 1e3)),
    st.data(),
)
def test_indices_are_bounded_in_0_1(o, data):
    p = data.draw(arrays(np.float64, o.shape, elements=st.floats(-1e3, 1e3)))
    tol = 1e-12
    if np.any(o != 0) or np.any(p != 0):
        assert -tol <= rms_index(o, p) <= 1 + tol
    if np.ptp(o) > 0 or np.ptp(p) > 0:
        assert -tol <= rsd_index(o, p) <= 1 + tol
    if np.ptp(o) > 0:
        assert -tol <= agreement_index(o, p) <= 1 + tol


def test_bad_input():
    with pytest.raises(ValueError, match=r"same shape, got \(3,\) and \(4,\)"):
        rms_index(O, np.r_[P, 1.0])
    with pytest.raises(ValueError, match=r"same shape, got \(3, 2\) and \(2, 3\)"):
        agreement_index(np.ones((3, 2)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="the agreement index is undefined: the observed series is constant"):
        agreement_index(np.full(5, 2.0), np.arange(5.0))
    o = np.column_stack([np.arange(5.0), np.full(5, 1.0)])
    with pytest.raises(ValueError, match="undefined for joint\\(s\\) 2: the observed series is constant"):
        agreement_index(o, o)
    with pytest.raises(ValueError, match="RMS index is undefined: observed and predicted are both identically zero"):
        rms_index(np.zeros(4), np.zeros(4))
    with pytest.raises(ValueError, match="RSD index is undefined for joint\\(s\\) 2: .*both constant"):
        rsd_index(o, o)
    with pytest.raises(ValueError, match="RSD index is undefined: .*both constant"):
        rsd_index(np.full(3, 0.1), np.full(3, 0.1))  # mean(0.1, 0.1, 0.1) != 0.1 in floating point
    assert rsd_index(np.full(3, 0.1), [0.0, 0.1, 0.3]) == pytest.approx(1.0, rel=1e-14)
    for f in INDICES:
        with pytest.raises(ValueError, match="predicted must be finite"):
            f(O, [1.0, np.nan, 2.0])
        with pytest.raises(ValueError, match="observed must be finite"):
            f([np.inf, 1.0, 2.0], O)
        with pytest.raises(ValueError, match="must not be empty"):
            f([], [])
        with pytest.raises(ValueError, match="observed must have 1 or 2 dimension"):
            f(np.ones((2, 2, 2)), np.ones((2, 2, 2)))
        with pytest.raises(TypeError, match="per_joint must be a bool"):
            f(O, P, per_joint="yes")
