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
    # closed forms of a few operations: 1e-12 is far above their round-off (a few ulps on any
    # CPU or BLAS) and far below any mistake in a formula
    assert rms_index(O, P) == pytest.approx(np.sqrt(1 / 3) / (np.sqrt(7) + np.sqrt(14 / 3)), rel=1e-12)
    # RSD: deviations p' = (-4/3, -1/3, 5/3), o' = (-1, 0, 1), p' - o' = (-1/3, -1/3, 2/3)
    assert rsd_index(O, P) == pytest.approx(np.sqrt(2 / 9) / (np.sqrt(42 / 27) + np.sqrt(2 / 3)), rel=1e-12)
    # AI: o_m = 2, sum (p - o)^2 = 1, sum (|p - 2| + |o - 2|)^2 = 2^2 + 0 + 3^2 = 13
    assert agreement_index(O, P) == pytest.approx(12 / 13, rel=1e-12)
    assert isinstance(rms_index(O, P), float)


def test_perfect_prediction():
    o = np.random.default_rng(0).normal(size=(50, 3))
    np.testing.assert_array_equal(rms_index(o, o), 0.0)
    np.testing.assert_array_equal(rsd_index(o, o), 0.0)
    np.testing.assert_array_equal(agreement_index(o, o), 1.0)
    # RSD ignores an offset, RMS and AI do not
    np.testing.assert_allclose(rsd_index(o, o + 3.0), 0.0, atol=1e-12)
    assert np.all(rms_index(o, o + 3.0) > 0.3)
    assert np.all(agreement_index(o, o + 3.0) < 0.5)


def test_constant_prediction_at_the_mean_and_worst_cases():
    o = np.random.default_rng(1).normal(size=(40, 2)) + [5.0, -1.0]
    p = np.broadcast_to(o.mean(axis=0), o.shape)
    np.testing.assert_allclose(agreement_index(o, p), 0.0, atol=1e-12)
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
        np.testing.assert_allclose(per, [f(o[:, j], p[:, j]) for j in range(3)], rtol=1e-12)
        overall = f(o, p, per_joint=False)
        assert isinstance(overall, float)
        assert overall == pytest.approx(f(o.ravel(), p.ravel()), rel=1e-12)
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
    assert rsd_index(np.full(3, 0.1), [0.0, 0.1, 0.3]) == pytest.approx(1.0, rel=1e-12)
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


# ------------------------------------------------------------------ errors against the truth
from types import SimpleNamespace  # noqa: E402

from robidlib.base import base_parameters  # noqa: E402
from robidlib.dynamics import inverse_dynamics, mass_matrix, simulate  # noqa: E402
from robidlib.models import planar_2r  # noqa: E402
from robidlib.regressor import friction_regressor, regressor  # noqa: E402
from robidlib.trajectories import Trajectory, quintic  # noqa: E402
from robidlib.validation import (  # noqa: E402
    base_to_standard,
    identified_robot,
    relative_parameter_error,
    relative_torque_error,
    sensitivity,
    simulate_tracking,
)


def test_relative_parameter_error_hand_computed_and_bounds():
    # terms: |1.2 - 1| / 2.2, |0 - 2| / 2 = 1, zero-zero = 0, |-1 - 1| / 2 = 1
    e = relative_parameter_error([1.2, 0.0, 0.0, -1.0], [1.0, 2.0, 0.0, 1.0])
    assert e == pytest.approx(100 * 2 / 4 * (0.2 / 2.2 + 1 + 0 + 1), rel=1e-12)
    assert relative_parameter_error([3.0, -2.0], [3.0, -2.0]) == 0.0
    rng = np.random.default_rng(5)
    b = rng.normal(size=8)
    E = rng.normal(size=(50, 8)) * 10
    many = relative_parameter_error(E, b)
    assert many.shape == (50,)
    assert np.all((many >= 0) & (many <= 200))
    assert many[3] == pytest.approx(relative_parameter_error(E[3], b), rel=1e-12)   # row by row
    # symmetric in estimate and truth, and a sign error costs the maximum
    assert relative_parameter_error([1.0, 2.0], [1.5, 1.0]) == pytest.approx(relative_parameter_error([1.5, 1.0], [1.0, 2.0]))
    assert relative_parameter_error(-b, b) == pytest.approx(200.0)


def test_relative_parameter_error_bad_input():
    with pytest.raises(ValueError, match=r"estimate must have 3 parameters .* got shape \(2,\)"):
        relative_parameter_error([1.0, 2.0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="estimate must be finite"):
        relative_parameter_error([np.nan, 1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="truth must hold at least one"):
        relative_parameter_error(np.empty(0), np.empty(0))
    with pytest.raises(ValueError, match="truth must have 1 dimension"):
        relative_parameter_error([1.0], [[1.0]])


def test_relative_torque_error():
    o = np.array([[3.0, 1.0], [4.0, -1.0]])
    p = np.array([[3.0, 1.1], [4.5, -1.0]])
    np.testing.assert_allclose(relative_torque_error(o, p), [10.0, 100 * 0.1 / np.sqrt(2)], rtol=1e-12)
    pooled = relative_torque_error(o, p, per_joint=False)
    assert pooled == pytest.approx(100 * np.sqrt(0.25 + 0.01) / np.sqrt(27.0), rel=1e-12)
    assert relative_torque_error(o[:, 0], np.zeros(2)) == pytest.approx(100.0)
    assert relative_torque_error(1e-200 * o, 1e-200 * p)[0] == pytest.approx(10.0)
    with pytest.raises(ValueError, match=r"same shape, got \(2, 2\) and \(2,\)"):
        relative_torque_error(o, p[:, 0])
    with pytest.raises(ValueError, match="undefined for joint\\(s\\) 2: the observed series is identically zero"):
        relative_torque_error(np.column_stack([o[:, 0], [0.0, 0.0]]), p)
    with pytest.raises(TypeError, match="per_joint must be a bool"):
        relative_torque_error(o, p, per_joint=1)


# --------------------------------------------------------------------- identified models
@pytest.fixture(scope="module")
def arm():
    return planar_2r()


@pytest.fixture(scope="module")
def states():
    rng = np.random.default_rng(11)
    return rng.uniform(-1.5, 1.5, size=(3, 40, 2))


@pytest.mark.parametrize("method", ["qr", "svd"])
def test_base_to_standard_reproduces_the_base_model(arm, states, method):
    bp = base_parameters(arm, method=method, rng=0)
    beta = bp.beta(arm.params) * np.linspace(0.5, 1.5, bp.rank)        # any base parameters
    pi = base_to_standard(bp, beta)
    np.testing.assert_allclose(bp.beta(pi), beta, rtol=1e-12, atol=1e-14)
    Y = regressor(arm, *states)
    np.testing.assert_allclose(Y @ pi, bp.reduce(Y) @ beta, rtol=1e-10, atol=1e-12)
    batch = base_to_standard(bp, np.stack([beta, 2 * beta]))
    np.testing.assert_allclose(batch[1], 2 * pi, rtol=1e-12, atol=1e-14)
    with pytest.raises(ValueError, match=f"beta must have {bp.rank} entries"):
        base_to_standard(bp, beta[:-1])
    with pytest.raises(TypeError, match="base must be a BaseParameters"):
        base_to_standard(np.eye(3), beta)


def test_identified_robot_has_the_dynamics_of_the_base_parameters(arm, states):
    bp = base_parameters(arm, rng=0)
    beta = bp.beta(arm.params)
    twin = identified_robot(arm, beta, base=bp)
    assert not np.allclose(twin.params, arm.params)                # other standard parameters...
    np.testing.assert_allclose(inverse_dynamics(twin, *states), inverse_dynamics(arm.with_friction(0), *states),
                               rtol=1e-10, atol=1e-10)             # ...same torques
    np.testing.assert_allclose(mass_matrix(twin, states[0]), mass_matrix(arm, states[0]), rtol=1e-10, atol=1e-12)
    # the robot's own friction is not kept: the identified model has none
    rough = arm.with_friction([[0.3, 0.2], [0.1, 0.05]])
    assert np.all(identified_robot(rough, beta, base=bp).friction == 0)
    # standard parameters with friction columns
    std = np.concatenate([arm.params, [0.3, 0.2, 0.1, 0.05]])
    np.testing.assert_allclose(identified_robot(arm, std).friction, [[0.3, 0.2], [0.1, 0.05]])
    # base parameters computed with friction columns
    bpf = base_parameters(rough, friction=True, rng=0)
    twin_f = identified_robot(rough, bpf.beta(std), base=bpf)
    np.testing.assert_allclose(inverse_dynamics(twin_f, *states), inverse_dynamics(rough, *states), rtol=1e-10, atol=1e-10)
    # a model object with extra viscous friction terms (as robidlib.estimation.ekf.robot_base_model)
    model = SimpleNamespace(robot=arm, base=bp, friction=("viscous",))
    twin_v = identified_robot(model, np.concatenate([beta, [0.3, 0.1]]))
    np.testing.assert_allclose(twin_v.friction, [[0.3, 0.0], [0.1, 0.0]])


def test_identified_robot_bad_input(arm):
    bp = base_parameters(arm, rng=0)
    beta = bp.beta(arm.params)
    with pytest.raises(ValueError, match=r"params must hold 6 entries \(6 base parameters\), got 5"):
        identified_robot(arm, beta[:5], base=bp)
    with pytest.raises(ValueError, match="params must hold the 20 standard parameters"):
        identified_robot(arm, beta)
    with pytest.raises(ValueError, match="identified friction coefficients must be >= 0"):
        identified_robot(arm, np.concatenate([arm.params, [-0.1, 0.0, 0.0, 0.0]]))
    other = base_parameters(np.random.default_rng(0).normal(size=(30, 4)))
    with pytest.raises(ValueError, match="base was computed for other parameters"):
        identified_robot(arm, np.ones(other.rank), base=other)
    with pytest.raises(TypeError, match="robot_or_model must be a SerialRobot"):
        identified_robot("arm", beta, base=bp)
    with pytest.raises(ValueError, match="base must not be given with a model object"):
        identified_robot(SimpleNamespace(robot=arm, base=bp), beta, base=bp)
    with pytest.raises(ValueError, match="unknown friction term"):
        identified_robot(SimpleNamespace(robot=arm, base=bp, friction=("stiction",)), beta)
    with pytest.raises(ValueError, match="params must be finite"):
        identified_robot(arm, np.r_[beta[:-1], np.inf], base=bp)


# -------------------------------------------------------------------- tracking simulation
@pytest.fixture(scope="module")
def reference():
    return quintic(np.linspace(0.0, 1.0, 51), [0.0, 0.0], [0.6, -0.4], T=1.0)


def test_simulate_tracking_matches_an_adaptive_integration(arm):
    """Fixed-step batched RK4 against scipy's DOP853 with the same controller."""
    amp, w = np.array([0.6, -0.4]), np.array([3.0, 5.0])

    def ref(t):
        t = np.asarray(t, dtype=float)[..., None]
        return amp * np.sin(w * t), amp * w * np.cos(w * t), -amp * w**2 * np.sin(w * t)

    t = np.linspace(0.0, 1.0, 51)
    traj = Trajectory(t, *ref(t))
    res = simulate_tracking(arm, arm.params * 1.1, traj, feedforward=arm.params, substeps=4)

    def controller(ti, q, qd):
        qr, qdr, qddr = ref(ti)
        return inverse_dynamics(arm, qr, qdr, qddr) + res.kp * (qr - q) + res.kd * (qdr - qd)

    sim = simulate(arm.with_params(arm.params * 1.1), t, traj.q[0], traj.qd[0], controller, rtol=1e-9, atol=1e-11)
    assert np.abs(sim.q - traj.q).max() > 1e-2                       # the wrong feed-forward shows
    np.testing.assert_allclose(res.q, sim.q, atol=5e-7)
    np.testing.assert_allclose(res.tau, sim.tau, atol=1e-4 * np.abs(sim.tau).max())


def test_simulate_tracking_batch_is_consistent(arm, reference):
    bp = base_parameters(arm, rng=0)
    beta = bp.beta(arm.params)
    P = np.stack([beta, beta * 1.3, beta])
    res = simulate_tracking(arm, P, reference, base=bp)
    assert res.q.shape == (3, 51, 2) and res.tau.shape == (3, 51, 2)
    np.testing.assert_array_equal(res.q[0], res.q[2])                 # same parameters, same motion
    one = simulate_tracking(arm, beta * 1.3, reference, base=bp, feedforward=beta)
    assert one.q.shape == (51, 2)
    np.testing.assert_allclose(one.q, res.q[1], rtol=1e-12, atol=1e-14)
    err = np.abs(res.q - reference.q).max(axis=(1, 2))
    assert err[0] < 1e-4 < 1e-2 < err[1]
    # a stiffer controller tracks the wrong model better
    stiff = simulate_tracking(arm, P[:2], reference, base=bp, bandwidth=6.0)
    assert np.abs(stiff.q[1] - reference.q).max() < 0.5 * err[1]


def test_simulate_tracking_bad_input(arm, reference):
    with pytest.raises(ValueError, match="bandwidth must be > 0"):
        simulate_tracking(arm, arm.params, reference, bandwidth=0.0)
    with pytest.raises(ValueError, match="damping must be > 0"):
        simulate_tracking(arm, arm.params, reference, damping=-1.0)
    with pytest.raises(ValueError, match="substeps must be >= 1, got 0"):
        simulate_tracking(arm, arm.params, reference, substeps=0)
    with pytest.raises(ValueError, match="substeps must be <= 1000, got 1000000000"):
        simulate_tracking(arm, arm.params, reference, substeps=10**9)        # would run for hours
    with pytest.raises(ValueError, match=r"feedforward must have shape \(20,\)"):
        simulate_tracking(arm, arm.params, reference, feedforward=arm.params[:3])
    uneven = Trajectory(np.r_[0.0, 0.1, 0.3], np.zeros((3, 2)), np.zeros((3, 2)), np.zeros((3, 2)))
    with pytest.raises(ValueError, match="uniformly spaced"):
        simulate_tracking(arm, arm.params, uneven)
    three = Trajectory(np.r_[0.0, 0.1, 0.2], np.zeros((3, 3)), np.zeros((3, 3)), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="trajectory must have 2 joints"):
        simulate_tracking(arm, arm.params, three)
    with pytest.raises(TypeError, match="trajectory must have t, q, qd and qdd"):
        simulate_tracking(arm, arm.params, np.zeros((3, 2)))
    with pytest.raises(ValueError, match="singular mass matrix"):
        simulate_tracking(arm, np.zeros(20), reference, feedforward=arm.params)
    # a model 100 times lighter than the controller's: the loop is too stiff for one RK4 step per sample
    with pytest.raises(ValueError, match=r"model\(s\) \[0\] blew up .* increase substeps \(now 1\)"):
        simulate_tracking(arm, 0.01 * arm.params, reference, feedforward=arm.params, substeps=1)


# -------------------------------------------------------------------------- sensitivity
def test_sensitivity_zero_when_unchanged_and_growing_with_the_variation(arm, reference):
    bp = base_parameters(arm, rng=0)
    beta = bp.beta(arm.params)
    res = sensitivity(arm, beta, reference, variation=0.5, steps=[-0.5, -0.25, 0.0, 0.25, 0.5], base=bp,
                      output="q")
    assert res.rms.shape == (bp.rank, 5) and res.rms_joint.shape == (bp.rank, 5, 2)
    assert res.names == bp.base_names and res.output == "q"
    np.testing.assert_array_equal(res.rms[:, 2], 0.0)                 # 0 %: the nominal model
    nonzero = np.abs(beta) > 0
    assert np.all(res.rms[nonzero][:, [0, 4]] > res.rms[nonzero][:, [1, 3]])   # 50 % moves more than 25 %
    np.testing.assert_allclose(res.rms, res.rms_joint.mean(axis=2))
    np.testing.assert_allclose(res.nominal, simulate_tracking(arm, beta, reference, base=bp).q, rtol=1e-12, atol=1e-14)
    assert res.ranking()[0] == bp.base_names[int(np.argmax(res.max_rms))]
    md = res.to_markdown(top=3)
    assert md.count("\n") == 4 and "+50 %" in md


def test_sensitivity_of_the_torques_is_nearly_linear(arm, reference):
    res = sensitivity(arm, arm.params, reference, variation=0.2, steps=5, output="tau")
    np.testing.assert_allclose(res.variations, [-0.2, -0.1, 0.0, 0.1, 0.2])
    zero = arm.params == 0
    np.testing.assert_array_equal(res.rms[zero], 0.0)                 # a zero cannot vary relatively
    big = res.max_rms > 1e-3
    ratio = res.rms[big][:, 4] / res.rms[big][:, 3]
    np.testing.assert_allclose(ratio, 2.0, rtol=0.15)                 # twice the variation, ~twice the index
    # Theil's U1 of tau + s b_i Y_i against tau, by hand, for the parameter that matters most
    i = int(np.argmax(res.max_rms))
    tau0 = regressor(arm, *reference) @ arm.params
    tau1 = tau0 + 0.2 * arm.params[i] * regressor(arm, *reference)[..., i]
    np.testing.assert_allclose(res.rms_joint[i, 4], rms_index(tau0, tau1), rtol=1e-12)
    res2 = sensitivity(arm, arm.params, reference, steps=3, output="tau", names=[f"x{k}" for k in range(20)])
    assert res2.names[0] == "x0" and res2.variations.tolist() == [-0.5, 0.0, 0.5]


def test_sensitivity_bad_input(arm, reference):
    for bad in (0.0, -0.1, 1.5):
        with pytest.raises(ValueError, match="variation must be"):
            sensitivity(arm, arm.params, reference, variation=bad, output="tau")
    with pytest.raises(ValueError, match="variation must be finite"):
        sensitivity(arm, arm.params, reference, variation=np.nan, output="tau")
    with pytest.raises(ValueError, match=r"steps must lie within \[-variation, variation\] = \[-0.5, 0.5\]"):
        sensitivity(arm, arm.params, reference, steps=[0.0, 0.6], output="tau")
    with pytest.raises(ValueError, match="steps must be an int from 2 to 1000"):
        sensitivity(arm, arm.params, reference, steps=1, output="tau")
    with pytest.raises(ValueError, match="steps must be an int from 2 to 1000 .*, got 6000000000"):
        sensitivity(arm, arm.params, reference, steps=6 * 10**9, output="tau")
    with pytest.raises(ValueError, match="steps must hold 1 to 1000 variations, got 0"):
        sensitivity(arm, arm.params, reference, steps=[], output="tau")
    with pytest.raises(TypeError, match="steps must be an int >= 2 or an array"):
        sensitivity(arm, arm.params, reference, steps=True, output="tau")
    with pytest.raises(ValueError, match="unknown output 'qdd'"):
        sensitivity(arm, arm.params, reference, output="qdd")
    with pytest.raises(ValueError, match="names must have 20 entries"):
        sensitivity(arm, arm.params, reference, output="tau", names=["a", "b"])
    with pytest.raises(ValueError, match="params must hold the 20 standard parameters"):
        sensitivity(arm, arm.params[:6], reference, output="tau")


def test_failed_models_are_flagged_not_fatal(arm, reference):
    bp = base_parameters(arm, rng=0)
    beta = bp.beta(arm.params)
    broken = beta.copy()
    broken[bp.base_names.index("Izz2")] = 0.0                 # no inertia about joint 2: M indefinite
    res = simulate_tracking(arm, np.stack([beta, broken, 1.1 * beta]), reference, base=bp, on_failure="nan")
    np.testing.assert_array_equal(res.failed, [False, True, False])
    assert np.all(np.isnan(res.q[1, -1])) and np.all(np.isfinite(res.q[1, 0]))      # NaN once it blew up
    assert np.all(np.isfinite(res.q[[0, 2]]))
    alone = simulate_tracking(arm, np.stack([beta, 1.1 * beta]), reference, base=bp)
    np.testing.assert_allclose(res.q[[0, 2]], alone.q, rtol=1e-12, atol=1e-14)     # the others go on
    assert not np.any(alone.failed)
    with pytest.raises(ValueError, match=r"model\(s\) \[1\] blew up .* not positive definite"):
        simulate_tracking(arm, np.stack([beta, broken]), reference, base=bp)
    with pytest.raises(ValueError, match="unknown on_failure 'skip'"):
        simulate_tracking(arm, beta, reference, base=bp, on_failure="skip")
    # in a sensitivity analysis: -100 % of an inertia gives no robot; flagged, warned, NaN
    with pytest.warns(RuntimeWarning, match=r"2 varied model\(s\) could not be simulated .*Izz1R -100 %, Izz2 -100 %"):
        sens = sensitivity(arm, beta, reference, variation=1.0, steps=[-1.0, 0.0], base=bp)
    assert sens.failed.sum() == 2 and np.all(np.isnan(sens.rms[sens.failed]))
    assert sens.max_rms[bp.base_names.index("Izz2")] == 0.0           # only the unchanged model ran
    assert sens.ranking()[0] == "mx2" and "failed" in sens.to_markdown()
    with pytest.raises(ValueError, match="the nominal model itself cannot be simulated"):
        sensitivity(arm, 0.0 * beta, reference, base=bp)                # no inertia at all: M = 0
