"""Tests of robidlib.identification: transmission, drive model, decimation, estimates, validation.

Three groups:

* unit tests and bad input of every stage;
* a closed-loop simulation of a 3-DOF arm with known parameters, geared motors (one of
  them coupled to two joints), quantised motor encoders and noisy currents with offsets: the
  pipeline must recover the base parameters within the uncertainty it states;
* the real Staubli TX40 record: the identified model must predict the held-out part.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.signal
from scipy import stats

from robidlib.base import random_states
from robidlib.datasets import staubli_tx40, staubli_tx40_published, to_figaroh_convention
from robidlib.dynamics import inverse_dynamics, mass_matrix
from robidlib.identification import (
    DriveModel,
    IdentificationData,
    PhysicalProblem,
    Settings,
    Transmission,
    essential_parameters,
    identify,
    joint_sigmas,
    khalil_name,
    parallel_decimate,
    prepare,
    relative_errors,
    residual_spectrum,
    run,
    split,
    validate,
)
from robidlib.identification.preprocess import _decimate_regressor, _velocity_noise_gain
from robidlib.models import planar_2r
from robidlib.robot import SerialRobot


# --------------------------------------------------------------------------- transmission
def coupled_3() -> np.ndarray:
    R = np.diag([50.0, 50.0, 30.0])
    R[2, 1] = 30.0            # motor 3 turns with q2 + q3 (a parallelogram or wrist coupling)
    return R


def test_transmission_round_trips_and_couples():
    kt = np.array([0.4, 0.4, 0.25])
    tr = Transmission(coupled_3(), torque_constants=kt)
    assert tr.coupled.tolist() == [False, False, True]
    assert np.allclose(tr.motor_rows[2], [0, 1, 1]) and np.allclose(tr.gear_ratios, [50, 50, 30])
    rng = np.random.default_rng(0)
    q, tau = rng.normal(size=(2, 20, 3))
    assert np.allclose(tr.joint_positions(tr.motor_positions(q)), q, atol=1e-13)
    assert np.allclose(tr.joint_torques(tr.motor_signals(tau)), tau, atol=1e-12)
    # a current in motor 3 loads joints 2 and 3 with K_t N
    assert np.allclose(tr.joint_torques([0.0, 0.0, 1.0]), [0.0, 7.5, 7.5])
    assert np.allclose(tr.torque_matrix, tr.motor_matrix.T)
    # one sample in, one sample out
    assert tr.joint_positions([50.0, 50.0, 60.0]).shape == (3,)


@pytest.mark.parametrize(
    "R, kt, exc, match",
    [
        (np.ones((2, 3)), None, ValueError, "square"),
        (np.array([[1.0, 0.0], [1.0, 0.0]]), None, ValueError, "non-zero gear ratios"),
        (np.array([[1.0, 2.0], [0.5, 1.0]]), None, ValueError, "invertible"),
        (np.array([[np.nan, 0.0], [0.0, 1.0]]), None, ValueError, "finite"),
        (np.eye(2), [1.0, -1.0], ValueError, "torque_constants"),
        (np.eye(2), [1.0], ValueError, "torque_constants"),
        ("eye", None, TypeError, "motor_matrix"),
    ],
)
def test_transmission_bad_input(R, kt, exc, match):
    with pytest.raises(exc, match=match):
        Transmission(R, torque_constants=kt)


def test_transmission_bad_signals():
    tr = Transmission(np.eye(2))
    with pytest.raises(ValueError, match="q_motor"):
        tr.joint_positions(np.zeros((5, 3)))
    with pytest.raises(ValueError, match="finite"):
        tr.joint_torques([np.inf, 0.0])
    with pytest.raises(AttributeError):
        tr.n = 3


# --------------------------------------------------------------------------- drive model
def arm3() -> SerialRobot:
    """A 3-DOF spatial arm (vertical joint 1, two parallel horizontal joints)."""
    return SerialRobot.from_dh(
        "RRR", a=[0, 0, 0.4], alpha=[0, -np.pi / 2, 0], d=[0, 0, 0],
        mass=[6.0, 4.0, 2.5], com=[[0, 0.02, -0.05], [0.2, 0.01, 0.05], [0.15, -0.01, 0.02]],
        inertia=[[0.05, 0.05, 0.04, 0.001, 0.002, 0.001], [0.01, 0.06, 0.06, 0.001, 0.003, 0.0],
                 [0.004, 0.03, 0.03, 0.0, 0.001, 0.0]],
        qd_limits=[2.0, 2.0, 2.5], qdd_limits=[10.0, 10.0, 12.0], name="arm3",
    )


def test_drive_model_columns_are_the_drive_torques():
    tr = Transmission(coupled_3())
    model = DriveModel(arm3(), tr)
    assert model.names[30:33] == ("fv1", "fc1", "off1") and model.names[-3:] == ("Iam3", "fvm3", "fcm3")
    assert model.khalil_names[-3:] == ("IAM3", "FVM3", "FSM3") and model.p == 30 + 9 + 3 + 3
    fr, off, rotor, motors = [[1.5, 2.0], [1.2, 1.8], [0.4, 0.6]], [0.1, -0.2, 0.3], [0.3, 0.2, 0.05], [[0.09, 0.3, 0.5]]
    x = model.pack(friction=fr, offsets=off, rotor=rotor, motors=motors)
    q, qd, qdd = random_states(model.robot, 40, 1)
    r = tr.motor_rows[2]
    v, a = qd @ r, qdd @ r
    expected = (inverse_dynamics(model.robot, q, qd, qdd, include_friction=False)
                + np.array(fr)[:, 0] * qd + np.array(fr)[:, 1] * np.sign(qd) + off + np.array(rotor) * qdd
                + (0.09 * a + 0.3 * v + 0.5 * np.sign(v))[:, None] * r)
    assert np.allclose(model.torques(q, qd, qdd, x), expected, atol=1e-10)
    # the structure mask covers every non-zero entry
    Y = model.regressor(q, qd, qdd)
    assert not np.any(Y[:, ~model.structure()])
    # no coupled motor, no motor columns; options remove blocks
    m2 = DriveModel(arm3(), offset=False, rotor_inertia=False, friction=("viscous",))
    assert m2.p == 30 + 3 and m2.names[30:] == ("fv1", "fv2", "fv3")
    assert DriveModel(arm3(), tr, coupled_motors=False).p == 42


def test_drive_model_base_parameters_follow_khalil():
    bp = DriveModel(arm3(), Transmission(coupled_3())).base_parameters()
    names = bp.base_names
    assert names[:2] == ("ZZ1R", "MX2R") and "IA1" not in names and "FV1" in names
    assert "FVM3" in names and "FSM3" in names and "IA3" in names
    rel = dict(zip(names, bp.relations))
    # IA1 regroups into ZZ1 (the same column); motor 3 turns with q2 + q3 about an axis parallel
    # to joints 2 and 3, exactly like link 3: IAM3 regroups into ZZ3 (on the TX40 wrist, axes 5
    # and 6 are perpendicular and IAM6 stays a base parameter)
    assert "IA1" in rel["ZZ1R"] and "IAM3" in rel["ZZ3R"] and "IAM3" not in names


def test_khalil_names_and_bad_model_input():
    assert khalil_name("Ixy3") == "XY3" and khalil_name("off2") == "OFF2" and khalil_name("m1") == "M1"
    for bad in ("Izz", "foo1", 3):
        with pytest.raises(ValueError, match="name"):
            khalil_name(bad)
    with pytest.raises(TypeError, match="robot"):
        DriveModel("arm")
    with pytest.raises(ValueError, match="transmission has 2 motors"):
        DriveModel(arm3(), Transmission(np.eye(2)))
    with pytest.raises(TypeError, match="transmission"):
        DriveModel(arm3(), np.eye(3))
    with pytest.raises(ValueError, match="friction term"):
        DriveModel(arm3(), friction=("stribeck",))
    with pytest.raises(TypeError, match="offset"):
        DriveModel(arm3(), offset=1)
    model = DriveModel(arm3(), offset=False, rotor_inertia=False)
    with pytest.raises(ValueError, match="offset"):
        model.pack(offsets=[0, 0, 0])
    with pytest.raises(ValueError, match="rotor"):
        model.pack(rotor=[0, 0, 0])
    with pytest.raises(ValueError, match="coupled motor"):
        model.pack(motors=[[0, 0, 0]])
    with pytest.raises(ValueError, match="friction"):
        model.pack(friction=np.zeros((2, 2)))
    with pytest.raises(ValueError, match="shape"):
        model.regressor(np.zeros((4, 3)), np.zeros((4, 3)), np.zeros((5, 3)))


def test_coulomb_columns_of_measured_velocities_are_the_expected_sign():
    from scipy.special import erf

    tr = Transmission(coupled_3())
    model = DriveModel(arm3(), tr)
    q, qd, qdd = random_states(model.robot, 30, 3)
    noise = np.array([0.01, 0.02, 0.05])
    Y = model.regressor(q, qd, qdd, velocity_noise=noise)
    fc = [model.names.index(f"fc{j + 1}") for j in range(3)]
    assert np.allclose(Y[:, [0, 1, 2], fc], erf(qd / (np.sqrt(2) * noise)), rtol=1e-14, atol=0)
    # the coupled motor 3 turns with q2 + q3: its velocity r_3 . qd is compared with noise[2]
    v = qd @ tr.motor_rows[2]
    assert np.allclose(Y[:, 2, model.names.index("fcm3")], erf(v / (np.sqrt(2) * 0.05)), rtol=1e-14, atol=0)
    # only the Coulomb columns change; a scalar is the same noise for every joint
    other = np.setdiff1d(np.arange(model.p), fc + [model.names.index("fcm3")])
    assert np.array_equal(Y[:, :, other], model.regressor(q, qd, qdd)[:, :, other])
    assert np.array_equal(model.regressor(q, qd, qdd, velocity_noise=0.02),
                          model.regressor(q, qd, qdd, velocity_noise=[0.02] * 3))
    # a joint at rest: round-off (1e-12 rad/s) flips the exact sign, not the expected one
    rest = np.array([[1e-12, -1e-12, 0.0], [-1e-12, 1e-12, 0.0]])
    exact = model.regressor(np.zeros((2, 3)), rest, np.zeros((2, 3)))[:, [0, 1, 2], fc]
    smooth = model.regressor(np.zeros((2, 3)), rest, np.zeros((2, 3)), velocity_noise=noise)[:, [0, 1, 2], fc]
    assert np.array_equal(np.abs(exact[:, :2]), np.ones((2, 2))) and np.abs(smooth).max() < 1e-9
    for bad, exc in ((-0.01, ValueError), ([0.01, 0.02], ValueError), ([0.01, np.nan, 0.02], ValueError),
                     ("small", TypeError), (1j, TypeError)):
        with pytest.raises(exc, match="velocity_noise"):
            model.regressor(q, qd, qdd, velocity_noise=bad)


# --------------------------------------------------------------------------- decimation
def test_parallel_decimation_equals_decimating_each_column():
    model = DriveModel(arm3(), Transmission(coupled_3()))
    t = np.arange(6000) * 2e-4
    rng = np.random.default_rng(2)
    q = np.column_stack([np.sin(2.1 * t + 0.3), 0.5 * np.cos(3.3 * t), np.sin(1.7 * t) ** 2])
    qd, qdd = np.gradient(q, 2e-4, axis=0), np.gradient(np.gradient(q, 2e-4, axis=0), 2e-4, axis=0)
    Y = model.regressor(q, qd, qdd) + 1e-3 * rng.normal(size=(6000, 3, model.p))
    Yd = parallel_decimate(Y, (10, 10))
    for i in range(3):
        for c in (0, 17, 33, model.p - 1):
            col = Y[:, i, c]
            for f in (10, 10):
                col = scipy.signal.decimate(col, f, zero_phase=True)
            assert np.allclose(Yd[:, i, c], col, rtol=1e-12, atol=1e-12)
    # only the structurally non-zero pairs: the same result
    Yr = model.regressor(q, qd, qdd)
    assert np.allclose(_decimate_regressor(Yr, model.structure(), (10, 10)), parallel_decimate(Yr, (10, 10)),
                       rtol=1e-12, atol=1e-12)
    assert parallel_decimate(Y, ()).shape == Y.shape
    for bad, exc in (((1,), ValueError), ((14,), ValueError), ((2.0,), TypeError)):
        with pytest.raises(exc, match="factors"):
            parallel_decimate(Y, bad)
    with pytest.raises(ValueError, match="samples"):
        parallel_decimate(np.zeros((10, 2)), (10,))
    with pytest.raises(ValueError, match="finite"):
        parallel_decimate(np.full((100, 2), np.nan), (2,))


# --------------------------------------------------------------------------- settings, prepare, split
@pytest.mark.parametrize(
    "kw, exc, match",
    [
        (dict(ts=0.0), ValueError, "ts"),
        (dict(ts=1e-3, cutoff=600.0), ValueError, "Nyquist"),
        (dict(ts=1e-3, decimation=10), TypeError, "decimation"),
        (dict(ts=1e-3, decimation=(20,)), ValueError, "13"),
        (dict(ts=1e-3, trim=2.5), TypeError, "trim"),
        (dict(ts=1e-3, ratio_essential=1.0), ValueError, "ratio_essential"),
        (dict(ts=1e-3, velocity_threshold=[-1.0, 0.1]), ValueError, "velocity_threshold"),
        (dict(ts=1e-3, window=(2.0, 1.0)), ValueError, "window"),
        (dict(ts=1e-3, joint_offsets=[np.nan]), ValueError, "joint_offsets"),
        (dict(ts=1e-3, min_equations_per_parameter=0.5), ValueError, "min_equations_per_parameter"),
        (dict(ts=1e-3, min_equations_per_parameter=np.nan), ValueError, "min_equations_per_parameter"),
        (dict(ts=1e-3, velocity_noise=-1e-3), ValueError, "velocity_noise"),
        (dict(ts=1e-3, velocity_noise=[[1e-3]]), ValueError, "velocity_noise"),
        (dict(ts=1e-3, velocity_noise=[np.inf, 1e-3]), ValueError, "velocity_noise"),
        (dict(ts=1e-3, velocity_noise="1e-3"), TypeError, "velocity_noise"),
    ],
)
def test_settings_bad_input(kw, exc, match):
    with pytest.raises(exc, match=match):
        Settings(**kw)


def test_settings_defaults_and_figaroh():
    s = Settings(ts=1e-3, cutoff=40.0)
    assert s.trim_samples == 125 and s.decimated_rate == 50.0 and s.decimation == (5, 4)
    # the defaults follow the sampling rate (issue 25: they used to assume a 5 kHz log, so a
    # 100 Hz log was decimated to 1 Hz without a word): at least 50 Hz after decimation
    for ts, cutoff, dec, rate in ((2e-4, 100.0, (10, 10), 50.0), (1e-3, 100.0, (5, 4), 50.0),
                                  (0.01, 20.0, (2,), 50.0), (0.04, 5.0, (), 25.0)):
        d = Settings(ts=ts)
        assert (d.cutoff, d.decimation) == (cutoff, dec) and abs(d.decimated_rate - rate) < 1e-9
    f = Settings.from_figaroh(staubli_tx40().settings, window=(0.0, 8.0))
    assert f.trim == 20 and f.decimation == (10, 10) and f.window == (0.0, 8.0)
    with pytest.raises(ValueError, match="processing_params"):
        Settings.from_figaroh({"identification": {"robot_params": [{}]}})
    with pytest.raises(ValueError, match="mapping"):
        Settings.from_figaroh([1, 2])


def _smooth_record(n_samples=20000, ts=2e-4):
    model = DriveModel(planar_2r(), offset=False)
    t = np.arange(n_samples) * ts
    q = 0.3 * np.column_stack([np.sin(1.3 * t) + np.sin(3.1 * t), np.sin(1.9 * t) + np.sin(4.3 * t)])
    qd = np.gradient(q, ts, axis=0)
    qdd = np.gradient(qd, ts, axis=0)
    x = model.pack(friction=[[0.5, 0.2], [0.3, 0.1]], rotor=[0.05, 0.02])
    return model, t, q, model.torques(q, qd, qdd, x), x


def test_prepare_keeps_the_linear_relation_and_flags_zero_velocity():
    model, t, q, tau, x = _smooth_record()
    s = Settings(ts=2e-4, velocity_threshold=[0.05, 0.05])
    data = prepare(t, q, tau, model, s)
    assert isinstance(data, IdentificationData) and data.Y.shape[1:] == (2, model.p)
    assert data.t.size == data.tau.shape[0] and np.allclose(np.diff(data.t), 0.02)
    # parallel decimation keeps tau = Y x, away from the zero-velocity (Coulomb) samples
    err = np.abs(data.Y @ x - data.tau)[data.keep]
    assert err.max() < 1e-3 * np.abs(data.tau).max()
    assert np.array_equal(data.keep, np.abs(data.qd) >= 0.05) and not data.keep.all()
    assert set(data.timings) == {"filter", "regressor", "decimate"}
    W, y, joint = data.stack()
    assert W.shape == (data.keep.sum(), model.p) and np.array_equal(np.bincount(joint), data.keep.sum(0))
    # the chunked regressor of prepare equals the unchunked one, decimated as a whole
    from robidlib.signals import differentiate, lowpass
    qf = lowpass(q, s.cutoff, s.fs, order=s.filter_order)
    qdf = differentiate(qf, s.ts)
    keep = slice(s.trim_samples, t.size - s.trim_samples)
    Yfull = model.regressor(qf[keep], qdf[keep], differentiate(qdf, s.ts)[keep],
                            velocity_noise=data.settings.velocity_noise)
    assert t[keep].size > 4096                       # more than one chunk
    assert np.allclose(data.Y, parallel_decimate(Yfull, s.decimation), rtol=1e-12, atol=1e-12)
    # a window crops the record
    w = prepare(t, q, tau, model, Settings(ts=2e-4, window=(1.0, 3.0)))
    assert w.t[0] >= 1.0 and w.t[-1] <= 3.0


def test_prepare_measures_the_velocity_noise():
    """The velocity noise prepare measures is that of the record's position quantisation.

    A smooth motion quantised in steps of d has a uniform position error of std d/sqrt(12),
    white while the motion crosses many steps per sample; through the filter and the
    differentiator it becomes the velocity error that prepare estimates from q - lowpass(q).
    The estimate is a model (white noise), not a bound: it must match the actual error within
    a factor 1.5 (measured: 0.78 and 1.09 of it here, where the first joint crosses only an
    eighth of a step per sample; 0.71 to 1.05 on the TX40's motion written with five
    significant digits as its record is)."""
    from robidlib.signals import differentiate, lowpass

    model, t, q, tau, _ = _smooth_record()
    s = Settings(ts=2e-4)
    step = np.array([1e-3, 2e-4])
    quantised = np.round(q / step) * step
    data = prepare(t, quantised, tau, model, s)
    noise = data.settings.velocity_noise
    sl = slice(s.trim_samples, t.size - s.trim_samples)

    def velocity(x):
        return differentiate(lowpass(x, s.cutoff, s.fs, order=s.filter_order), s.ts)[sl]

    # the gain: white noise of unit variance leaves this RMS in the velocities; the ratio's
    # sample std over 1e5 samples scatters by 1.5 % (20 seeds), so 5 % is over 3 sigma
    white = np.random.default_rng(7).normal(size=100_000)
    assert abs(differentiate(lowpass(white, s.cutoff, s.fs), s.ts).std() / _velocity_noise_gain(s) - 1) < 0.05
    actual = (velocity(quantised) - velocity(q)).std(axis=0)
    assert np.all(noise < 1.5 * actual) and np.all(noise > actual / 1.5)
    # quantised 5x finer, 5x less noise (the white-noise model is linear in the step)
    finer = prepare(t, np.round(q / (step / 5)) * (step / 5), tau, model, s).settings.velocity_noise
    assert np.allclose(finer * 5, noise, rtol=0.2)
    # a noise-free record gets the noise of a 32-bit count per turn: far above round-off
    exact = prepare(t, q, tau, model, s).settings.velocity_noise
    assert np.allclose(exact, 2 * np.pi / 2**32 / np.sqrt(12) * _velocity_noise_gain(s), rtol=1e-12)
    assert np.all(exact > 1e-8)
    # a given value is used as it is; a scalar for every joint
    assert np.array_equal(prepare(t, q, tau, model, Settings(ts=2e-4, velocity_noise=0.0)).settings.velocity_noise,
                          [0.0, 0.0])
    given = prepare(t, q, tau, model, Settings(ts=2e-4, velocity_noise=[1e-3, 2e-3]))
    assert np.array_equal(given.settings.velocity_noise, [1e-3, 2e-3])


def test_prepare_bad_input():
    model, t, q, tau, _ = _smooth_record(3000)
    s = Settings(ts=2e-4)
    with pytest.raises(ValueError, match="uniformly spaced"):
        prepare(t * 1.5, q, tau, model, s)
    with pytest.raises(ValueError, match="match"):
        prepare(t, q[:, :1], tau, model, s)
    with pytest.raises(ValueError, match="finite"):
        prepare(t, np.where(q > 0.5, np.nan, q), tau, model, s)
    with pytest.raises(ValueError, match="joint_offsets"):
        prepare(t, q, tau, model, Settings(ts=2e-4, joint_offsets=[0.0, 0.0, 0.0]))
    with pytest.raises(ValueError, match="velocity_noise"):
        prepare(t, q, tau, model, Settings(ts=2e-4, velocity_noise=[1e-3, 1e-3, 1e-3]))
    with pytest.raises(ValueError, match="too few"):
        prepare(t[:100], q[:100], tau[:100], model, s)
    with pytest.raises(TypeError, match="model"):
        prepare(t, q, tau, planar_2r(), s)
    with pytest.raises(TypeError, match="settings"):
        prepare(t, q, tau, model, {"ts": 2e-4})


def test_split_in_time():
    model, t, q, tau, _ = _smooth_record()
    data = prepare(t, q, tau, model, Settings(ts=2e-4))
    train, test = split(data, 0.6, guard=0.1)
    assert train.t.max() < test.t.min() - 0.19
    assert train.n_samples + test.n_samples < data.n_samples
    for bad, exc in ((1.0, ValueError), (0.0, ValueError), ("half", TypeError)):
        with pytest.raises(exc, match="fraction"):
            split(data, bad)
    with pytest.raises(ValueError, match="guard"):
        split(data, 0.5, guard=-1.0)
    with pytest.raises(ValueError, match="without samples"):
        split(data, 0.5, guard=100.0)
    with pytest.raises(TypeError, match="IdentificationData"):
        split((t, q), 0.5)


# --------------------------------------------------------------------------- estimators
def test_joint_sigmas_and_essential_parameters():
    rng = np.random.default_rng(4)
    W = rng.normal(size=(3000, 3))
    joint = np.tile([0, 1, 2], 1000)
    sig = np.array([0.1, 0.5, 2.0])
    y = W @ [1.0, -1.0, 0.5] + sig[joint] * rng.normal(size=3000)
    s, rows = joint_sigmas(W, y, joint, 3)
    assert np.allclose(s, sig, rtol=0.1) and rows.tolist() == [1000] * 3
    with pytest.raises(ValueError, match="joint 3 has no equation"):
        joint_sigmas(W[:20], y[:20], np.where(joint[:20] == 2, 0, joint[:20]), 3)
    with pytest.raises(ValueError, match="no residual"):
        joint_sigmas(W[:6], y[:6], joint[:6], 3)
    # a column that hardly matters is removed first; the ratio criterion holds at the end
    W2 = np.column_stack([W, 1e-3 * rng.normal(size=3000)])
    idx, est, hist = essential_parameters(W2, W2 @ [1.0, -1.0, 0.5, 0.1] + rng.normal(size=3000), ("a", "b", "c", "d"), 30.0)
    assert hist[0]["name"] == "d" and 3 not in idx
    assert est.rel_std.max() < 30.0 * est.rel_std.min()


def test_identify_physical_hook_and_bad_input():
    model, t, q, tau, x = _smooth_record(25000)
    rng = np.random.default_rng(5)
    data = prepare(t, q, tau + 0.01 * rng.normal(size=tau.shape), model, Settings(ts=2e-4))
    seen = {}

    def hook(problem: PhysicalProblem):
        seen["problem"] = problem
        sol, *_ = np.linalg.lstsq(problem.W, problem.y, rcond=None)   # min-norm standard parameters
        return sol

    res = identify(data, physical=hook)
    p = seen["problem"]
    assert p.W.shape == (data.keep.sum(), model.p) and p.model is model and p.prior.shape == (model.p,)
    # the hook's standard parameters give the same base parameters as WLS
    assert np.allclose(res.base.beta(res.physical), res.wls.params, rtol=1e-6, atol=1e-9)
    assert np.allclose(res.wls.params, res.base.beta(x), atol=5 * res.wls.std.max())
    with pytest.raises(TypeError, match="physical"):
        identify(data, physical=3)
    with pytest.raises(TypeError, match="IdentificationData"):
        identify((t, q))
    with pytest.raises(ValueError, match="ratio_essential"):
        identify(data, ratio_essential=0.5)
    with pytest.raises(ValueError, match="unknown estimate"):
        res.estimate("ridge")


def test_validation_helpers():
    o = np.array([[1.0, 2.0], [3.0, -2.0]])
    per, tot = relative_errors(o, o * [1.1, 1.0])
    assert np.allclose(per, [0.1, 0.0]) and 0 < tot < 0.1
    with pytest.raises(ValueError, match="no torque"):
        relative_errors(np.zeros((2, 2)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="shape"):
        relative_errors(o, o[:1])
    with pytest.raises(ValueError, match="mask"):
        relative_errors(o, o, mask=np.ones(3, bool))
    with pytest.raises(ValueError, match="8 samples"):
        residual_spectrum(np.zeros((4, 1)), 50.0)
    with pytest.raises(ValueError, match="fs"):
        residual_spectrum(np.zeros((40, 1)), -1.0)


# --------------------------------------------------------------------------- closed-loop simulation
H = 2e-3            # sampling period and integration step of the simulated controller, s


def simulate_arm(K: int = 3, seed: int = 0, T: float = 8.0):
    """K closed-loop experiments of ``arm3`` with geared, coupled drives and noisy sensors.

    Plant: ``(M(q) + M_a) qdd + h(q, qd) + friction = u`` with the rotor inertias
    ``M_a = diag(IA) + IAM3 r3 r3^T`` and the joint and motor-3 friction of the DriveModel;
    control: PD (6 Hz, critically damped) plus a feed-forward from a model 10 % off,
    evaluated at every RK4 stage (a continuous-time controller, so that the torque sampled
    at ``t_k`` is the one acting at ``t_k``). Sensors: motor encoders with 16384 counts per
    revolution, currents ``u`` mapped through ``R^-T / K_t`` plus a constant offset and white
    noise.
    """
    robot = arm3()
    kt = np.array([0.4, 0.4, 0.25])
    tr = Transmission(coupled_3(), torque_constants=kt)
    model = DriveModel(robot, tr)
    fr = np.array([[1.5, 2.0], [1.2, 1.8], [0.4, 0.6]])
    rotor = np.array([0.3, 0.25, 0.0])            # joint 3 has no rotor of its own: motor 3 is IAM3
    motors = np.array([[0.09, 0.3, 0.5]])
    off_current = np.array([0.02, -0.03, 0.01])   # A
    x = model.pack(friction=fr, offsets=(kt * off_current) @ tr.motor_matrix, rotor=rotor, motors=motors)
    r3 = tr.motor_rows[2]
    Ma = np.diag(rotor) + motors[0, 0] * np.outer(r3, r3)
    rng = np.random.default_rng(seed)
    n, nh = 3, 5
    w = 2 * np.pi / T * 2 * np.arange(1, nh + 1)
    amp = np.array([0.35, 0.3, 0.35])[None, :, None] / np.sqrt(np.arange(1, nh + 1))
    A, B = rng.normal(size=(2, K, n, nh)) * amp
    q0 = np.array([0.0, -0.6, 1.0])
    N = int(round(T / H))
    tt = np.arange(2 * N + 1) * H / 2               # reference on half steps (RK4 stages)
    s, c = np.sin(np.outer(tt, w)), np.cos(np.outer(tt, w))
    qr = np.einsum("th,knh->ktn", s, A) + np.einsum("th,knh->ktn", c, B) - B.sum(-1)[:, None] + q0
    qdr = np.einsum("th,knh->ktn", c * w, A) - np.einsum("th,knh->ktn", s * w, B)
    qddr = -np.einsum("th,knh->ktn", s * w**2, A) - np.einsum("th,knh->ktn", c * w**2, B)
    ff = robot.with_params(robot.params * 1.1)
    tau_ff = inverse_dynamics(ff, qr.reshape(-1, n), qdr.reshape(-1, n), qddr.reshape(-1, n),
                              include_friction=False).reshape(qr.shape) + qddr @ Ma.T
    mbar = np.diag(mass_matrix(robot, q0) + Ma)
    wb = 2 * np.pi * 6.0
    kp, kd = mbar * wb**2, 2 * mbar * wb
    eye = np.eye(n)

    def control(i, q, qd):
        return tau_ff[:, i] + kp * (qr[:, i] - q) + kd * (qdr[:, i] - qd)

    def accel(q, qd, u):
        # one batched inverse-dynamics call: bias h(q, qd), gravity g(q) and the columns of M(q)
        Qs = np.repeat(q, n + 2, axis=0)
        V = np.zeros((K, n + 2, n))
        V[:, 0] = qd
        Acc = np.zeros((K, n + 2, n))
        Acc[:, 2:] = eye
        T_ = inverse_dynamics(robot, Qs, V.reshape(-1, n), Acc.reshape(-1, n), include_friction=False)
        T_ = T_.reshape(K, n + 2, n)
        M = np.swapaxes(T_[:, 2:] - T_[:, 1:2], 1, 2) + Ma
        v = qd @ r3
        f = fr[:, 0] * qd + fr[:, 1] * np.sign(qd) + (motors[0, 1] * v + motors[0, 2] * np.sign(v))[:, None] * r3
        return np.linalg.solve(M, (u - T_[:, 0] - f)[..., None])[..., 0]

    Q, U = np.empty((K, N, n)), np.empty((K, N, n))
    q, qd = qr[:, 0].copy(), qdr[:, 0].copy()
    for i in range(N):
        a, b, e = 2 * i, 2 * i + 1, 2 * i + 2
        Q[:, i], U[:, i] = q, control(a, q, qd)
        k1 = accel(q, qd, U[:, i])
        q2, v2 = q + H / 2 * qd, qd + H / 2 * k1
        k2 = accel(q2, v2, control(b, q2, v2))
        q3, v3 = q + H / 2 * v2, qd + H / 2 * k2
        k3 = accel(q3, v3, control(b, q3, v3))
        q4, v4 = q + H * v3, qd + H * k3
        k4 = accel(q4, v4, control(e, q4, v4))
        q = q + H / 6 * (qd + 2 * v2 + 2 * v3 + v4)
        qd = qd + H / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    res = 2 * np.pi / 16384
    q_motor = np.round(tr.motor_positions(Q.reshape(-1, n)) / res).reshape(Q.shape) * res
    currents = (tr.motor_signals(U.reshape(-1, n)).reshape(U.shape) + off_current
                + rng.normal(size=U.shape) * np.array([0.02, 0.02, 0.03]))
    return np.arange(N) * H, q_motor, currents, model, x


@pytest.fixture(scope="module")
def simulated():
    t, q_motor, currents, model, x = simulate_arm()
    settings = Settings(ts=H, cutoff=40.0, decimation=(5, 2), velocity_threshold=np.full(3, 0.05))
    base = model.base_parameters()
    results = [identify(prepare(t, q_motor[k], currents[k], model, settings), base=base)
               for k in range(q_motor.shape[0])]
    return results, base.beta(x), model, x


# Least squares states cov = s^2 (W'W)^-1, which assumes white errors. After parallel decimation
# the current noise is band-limited to the decimation filter's pass band, 0.8 of the final
# Nyquist frequency: its spectrum at the low frequencies of the regressor is 1/0.8 times its
# average, so the variance of the estimates is 1.25 times the stated one.
BAND = 1.0 / 0.8


@pytest.mark.parametrize("method", ["ols", "wls"])
def test_simulated_arm_recovers_base_parameters_within_their_uncertainty(simulated, method):
    results, beta, model, _ = simulated
    r = beta.size
    chi2 = []
    z_max = 0.0
    for res in results:
        est = res.estimate(method)
        d = est.params - beta
        chi2.append(d @ np.linalg.solve(est.cov, d) / BAND)
        z_max = max(z_max, float(np.max(np.abs(d / est.std))) / np.sqrt(BAND))
    K = len(results)
    # the sum over K independent experiments is chi-square with K r degrees of freedom: inside
    # its central 99.8 % (too large: biased or over-confident; too small: over-cautious std)
    lo, hi = stats.chi2.ppf([0.001, 0.999], K * r)
    assert lo < np.sum(chi2) < hi, (chi2, lo, hi)
    # no single parameter beyond the Bonferroni bound of K r two-sided z-tests at 0.1 %
    assert z_max < stats.norm.ppf(1 - 0.001 / (2 * K * r))
    # the coupled motor's friction is among the identified parameters
    assert {"FVM3", "FSM3"} <= set(results[0].names)


def test_simulated_arm_essential_and_validation(simulated):
    results, beta, model, x = simulated
    res = results[0]
    ess = res.essential
    assert ess.rel_std.max() < 30.0 * ess.rel_std.min()
    assert len(res.essential_history) == res.base.rank - ess.params.size
    # the essential estimates are *not* tested against their standard deviations: the removed
    # parameters are small but not zero here, so the reduced model is biased by construction
    # (its stds say how repeatable it is, not how far from the truth)
    # the simulated currents' noise dominates the validation error: it equals the noise level
    t, q_motor, currents, model2, _ = simulate_arm(K=1, seed=7, T=4.0)
    settings = Settings(ts=H, cutoff=40.0, decimation=(5, 2), velocity_threshold=np.full(3, 0.05))
    v = validate(res, prepare(t, q_motor[0], currents[0], model2, settings))
    assert v.overall["wls"] < 0.05 and v.overall["essential"] < 0.05
    assert np.all(v.rms["wls"] < 2.0 * res.sigma_joint)


# --------------------------------------------------------------------------- the real TX40
@pytest.fixture(scope="module")
def tx40_run():
    tx = staubli_tx40()
    model = DriveModel(tx.robot, Transmission(tx.motor_matrix))
    settings = Settings.from_figaroh(tx.settings, joint_offsets=tx.joint_offsets)
    return run(tx.t, tx.q_motor, tx.tau_motor, model, settings, fraction=0.7), model, settings


def test_tx40_predicts_the_held_out_part(tx40_run):
    """Fit on the first 70 % of the record, predict the rest.

    Kept equations in the decimated domain (the chapter's figures; measured, WLS): 6.4 %
    overall on the held-out part, 4.9 % on the fitted part; per joint 6, 5, 7, 9, 51 and
    15 %. Joint 5 barely moves in the held-out part (its torque rms is 1.9 N m there, 10 N m
    in the fitted part), so its relative error is large for the same absolute error: the
    held-out rms errors are within 1.4 times the fitted ones on every joint. The held-out
    metric of issue 25 (every sample, against the measured torque through the fixed 10 Hz
    filter) is 15.7 % (WLS; the fitted part 4.6 %): the held-out part ends with 1.3 s at rest
    where the viscous-plus-Coulomb model follows the sign of velocities that are noise, and
    all samples count. The bounds (10 % kept, 20 % for the metric, 12 % and 20 % on joints
    1-3) leave room for changes of the pipeline's numerics (filter implementation, solver,
    the dead band of the Coulomb sign), not for a broken model: dropping the rotor inertias
    and the coupled-wrist terms breaks them (tested below).
    """
    out, model, _ = tx40_run
    kept = {"fit": validate(out.result, out.train, use_keep=True), "test": validate(out.result, out.test, use_keep=True)}
    v, tr = kept["test"], kept["fit"]
    assert v.kept_only and not out.validation.kept_only
    assert tr.overall["wls"] < 0.07
    assert v.overall["wls"] < 0.10 and v.overall["ols"] < 0.10 and v.overall["essential"] < 0.10
    assert np.all(v.per_joint["wls"][:4] < 0.12)
    assert np.all(v.rms["wls"] < 2.0 * tr.rms["wls"])
    # every sample counts more error than the kept ones, in both domains
    assert out.validation.overall["wls"] > 1.5 * v.overall["wls"]
    h = out.heldout["wls"]
    assert h.overall < 0.20 and np.all(h.per_joint[:3] < 0.20)
    assert h.overall < h.overall_unfiltered            # F removes noise, not signal
    assert h.samples == int((~out.test.full.edge).sum()) and h.cutoff == 10.0
    assert abs(h.share.sum() - 1) < 1e-12 and h.share[1] > 0.5   # joint 2 dominates the overall
    f, P = v.spectrum("wls")
    assert P.shape == (f.size, 6) and f[-1] == pytest.approx(25.0)


def test_tx40_without_rotor_inertias_predicts_worse(tx40_run):
    """Measured: without rotor inertias and motor-6 terms the errors double (fitted 9.9 %,
    held-out 17.6 %, joint 5 fitted 43 %; kept equations)."""
    out, model, settings = tx40_run
    tx = staubli_tx40()
    no_rotor = run(tx.t, tx.q_motor, tx.tau_motor, DriveModel(tx.robot, Transmission(tx.motor_matrix),
                                                               rotor_inertia=False, coupled_motors=False),
                   settings, fraction=0.7)
    kept = lambda o, d: validate(o.result, d, use_keep=True).overall["wls"]  # noqa: E731
    assert kept(no_rotor, no_rotor.train) > 1.5 * kept(out, out.train)
    assert kept(no_rotor, no_rotor.test) > 1.5 * kept(out, out.test)
    assert no_rotor.heldout["wls"].overall > 1.1 * out.heldout["wls"].overall


def test_tx40_estimates_are_well_conditioned_and_essential(tx40_run):
    out, model, settings = tx40_run
    res = out.result
    assert res.base.rank == 61 and res.names[:2] == ("ZZ1R", "MX2R")
    assert 500 < res.ols.cond < 2000 and res.essential.cond < res.wls.cond
    ess = res.essential
    assert ess.rel_std.max() < settings.ratio_essential * ess.rel_std.min()
    # the last removal was needed: with it back the ratio was not met
    assert res.essential_history[-1]["ratio"] >= settings.ratio_essential
    assert {"ZZ1R", "MX2R", "FV1", "FS1", "FVM6"} <= set(ess.names)
    # joint 6 has no rotor of its own (motor 6 is IAM6): IA6 is zero within its uncertainty
    i = res.names.index("IA6")
    assert abs(res.ols.params[i]) < 3 * res.ols.std[i]


def test_tx40_full_record_agrees_with_figaroh(tx40_run):
    """Our pipeline on FIGAROH's settings and the whole record against FIGAROH's published
    base-parameter estimates (an independent implementation: pinocchio regressor, its own QR,
    ``filtfilt`` instead of second-order sections, other per-joint WLS weights).

    Measured: once expressed in FIGAROH's coupled-wrist convention, all 60 of its base
    parameters are within 2.4 (OLS) and 2.7 (WLS) of our standard deviations, median 0.34.
    The bound is 3 standard deviations; the test fails if a regrouping, a column, the
    coupling or the weighting goes wrong (the differences would then be many sigmas).
    """
    out, model, settings = tx40_run
    res = identify(out.data, base=out.result.base)
    pub = staubli_tx40_published()["sources"]["figaroh_base"]["parameters"]
    assert len(pub) == 60
    for method in ("ols", "wls"):
        est = res.estimate(method)
        names, x, C = to_figaroh_convention(res.names, est.params, est.cov)
        std = np.sqrt(np.diag(C))
        for name, entry in pub.items():
            i = names.index(name)
            assert abs(x[i] - entry[method]) < 3 * std[i], (method, name, x[i], entry[method], std[i])
    # FIGAROH's essential set is ours but for one parameter: it keeps FV6_F = FV6 + FVM6 where we
    # keep IAM6 (our FV6 alone is small: joint 6's friction is mostly motor 6's)
    ours = set(res.essential.names)
    theirs = set(staubli_tx40_published()["sources"]["figaroh_essential"]["parameters"])
    assert len(ours ^ theirs) <= 4


def test_data_and_result_accessors_bad_input():
    model, t, q, tau, x = _smooth_record(25000)
    data = prepare(t, q, tau + 0.01 * np.random.default_rng(6).normal(size=tau.shape), model, Settings(ts=2e-4))
    with pytest.raises(ValueError, match="columns"):
        data.stack(columns=[model.p])
    with pytest.raises(ValueError, match="columns"):
        data.stack(columns=[])
    with pytest.raises(ValueError, match="mask"):
        data.select(np.ones(3, dtype=bool))
    with pytest.raises(ValueError, match="no sample"):
        data.select(np.zeros(data.n_samples, dtype=bool))
    W, y, joint = data.stack(use_keep=False)
    assert W.shape[0] == data.n_samples * model.n
    res = identify(data)
    # predictions: the essential vector puts zeros at the removed parameters
    full = res.full_base_vector("essential")
    assert full.size == res.base.rank and np.count_nonzero(full) == res.essential.params.size
    assert np.allclose(res.predict(data, "ols"), res.base.reduce(data.Y) @ res.ols.params)
    other = prepare(t, q, tau, DriveModel(planar_2r()), Settings(ts=2e-4))     # with offsets: 30 columns
    with pytest.raises(ValueError, match="columns"):
        res.predict(other)
    with pytest.raises(TypeError, match="IdentificationResult"):
        validate(None, data)
    with pytest.raises(TypeError, match="IdentificationData"):
        validate(res, None)
    with pytest.raises(ValueError, match="unknown estimate"):
        validate(res, data, methods=("lms",))
    v = validate(res, data, use_keep=False)
    f, P = v.spectrum("ols", nperseg=64)
    assert f.size == 33 and P.shape == (33, 2) and np.allclose(v.residual("ols"), data.tau - v.predicted["ols"])
    with pytest.raises(ValueError, match="base"):
        identify(data, base=DriveModel(planar_2r()).base_parameters())
