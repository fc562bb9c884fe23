"""robidlib.identification.figaroh: FIGAROH's processing of a record, choice by choice."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from robidlib.identification import DriveModel, Settings, Transmission, prepare
from robidlib.identification.figaroh import FigarohFit, figaroh_estimates, prepare_figaroh
from robidlib.models import planar_2r

TS = 2e-4


@pytest.fixture(scope="module")
def record():
    """A planar 2R arm with friction, offsets and rotors: 5 s at 5 kHz, torques with noise."""
    model = DriveModel(planar_2r())
    t = np.arange(25000) * TS
    w = np.array([[1.1, 2.3, 3.7], [1.7, 2.9, 4.3]])
    q = np.stack([np.sin(np.outer(t, w[j])).sum(1) for j in range(2)], 1) * 0.3
    qd = np.gradient(q, TS, axis=0)
    qdd = np.gradient(qd, TS, axis=0)
    x = model.pack(friction=[[0.5, 0.2], [0.3, 0.1]], offsets=[0.1, -0.05], rotor=[0.05, 0.02])
    tau = model.torques(q, qd, qdd, x) + 0.01 * np.random.default_rng(0).standard_normal(q.shape)
    return model, t, q, tau, x


def test_the_robidlib_choices_give_prepare_exactly(record):
    model, t, q, tau, _ = record
    s = Settings(ts=TS, cutoff=20.0)
    a = prepare_figaroh(t, q, tau, model, s, cutoff_slip=False, differences="central",
                        last_acceleration=True)
    b = prepare(t, q, tau, model, s)
    assert np.array_equal(a.t, b.t) and np.array_equal(a.keep, b.keep)
    for name in ("Y", "tau", "q", "qd", "qdd"):
        x, y = getattr(a, name), getattr(b, name)
        assert np.allclose(x, y, rtol=0, atol=1e-10 * np.abs(y).max()), name


def test_script_differences_pair_joint_i_with_rows_2i_samples_later(record):
    model, t, q, tau, _ = record
    s = Settings(ts=TS, cutoff=20.0, decimation=(), trim=20, velocity_threshold=[0.0, 0.0])
    d = prepare_figaroh(t, q, tau, model, s, cutoff_slip=False, last_acceleration=True)
    # the script's signals: filter, trim 20, forward differences, central differences of those
    from robidlib.signals import lowpass

    qf = lowpass(q, 20.0, 1 / TS)[20:-20]
    qdf = np.diff(qf, axis=0) / TS
    qddf = np.gradient(qdf, axis=0, edge_order=1) / TS
    L = qf.shape[0]
    qf, qdf, qddf = qf[:L - 2], qdf[:L - 2], qddf[:L - 2]
    Y = model.regressor(qf, qdf, qddf)
    assert d.n_samples == L - 4                   # the last joint's rows run out 2 n samples early
    M = L - 4
    assert np.allclose(d.Y[:, 0], Y[:M, 0], atol=1e-9 * np.abs(Y).max())
    assert np.allclose(d.Y[:, 1], Y[2:M + 2, 1], atol=1e-9 * np.abs(Y).max())       # 2 later
    assert np.allclose(d.tau, tau[20:-20][:M])                                        # not shifted


def test_the_last_joint_without_acceleration_has_no_rotor_column(record):
    model, t, q, tau, _ = record
    s = Settings(ts=TS, cutoff=20.0)
    d = prepare_figaroh(t, q, tau, model, s)
    ia2 = model.names.index("Ia2")
    assert np.abs(d.Y[:, 1, ia2]).max() == 0.0
    assert np.abs(d.Y[:, 0, model.names.index("Ia1")]).max() > 0.1
    base = model.base_parameters()
    fit = figaroh_estimates(d, base)
    assert "IA2" in fit.dropped and "IA2" not in fit.names


def test_the_slipped_filter_cuts_at_a_quarter(record):
    model, t, _, _, _ = record
    s = Settings(ts=TS, cutoff=400.0, decimation=(), trim=200)
    f_lo, f_hi = 40.0, 250.0                     # below and above 400 / 4 = 100 Hz
    q = np.column_stack([np.sin(2 * np.pi * f_lo * t), np.sin(2 * np.pi * f_hi * t)])
    d = prepare_figaroh(t, q, np.zeros_like(q), model, s, differences="central")
    core = slice(500, -500)
    gain = np.abs(d.q[core]).max(axis=0)
    assert gain[0] > 0.9 and gain[1] < 0.05


def test_estimates_recover_the_truth_and_the_essential_loop(record):
    model, t, q, tau, x = record
    base = model.base_parameters()
    noisy = tau + 0.5 * np.random.default_rng(1).standard_normal(tau.shape)
    d = prepare(t, q, noisy, model, Settings(ts=TS))
    fit = figaroh_estimates(d, base)
    assert isinstance(fit, FigarohFit) and fit.dropped == ()
    beta = base.beta(x)
    z = (fit.wls - beta) / np.sqrt(np.diag(fit.wls_cov))
    assert np.abs(z).max() < 5                    # the truth within 5 standard deviations
    # white noise of 0.5 N m, decimated to 1 % of its band: about 0.05 N m left
    assert np.all(fit.sigma_joint > 0.02) and np.all(fit.sigma_joint < 0.1)
    keep_all = figaroh_estimates(d, base, ratio=1e12)
    assert keep_all.essential_names == fit.names
    few = figaroh_estimates(d, base, ratio=1.5)
    assert 1 <= len(few.essential_names) < len(fit.names)
    assert few.essential_rel_std.max() < 1.5 * few.essential_rel_std.min() or len(few.essential_names) == 1


def test_figaroh_bad_input(record):
    model, t, q, tau, _ = record
    s = Settings(ts=TS)
    with pytest.raises(TypeError, match="model must be a DriveModel"):
        prepare_figaroh(t, q, tau, "robot", s)
    with pytest.raises(TypeError, match="settings must be Settings"):
        prepare_figaroh(t, q, tau, model, {"ts": TS})
    with pytest.raises(TypeError, match="cutoff_slip"):
        prepare_figaroh(t, q, tau, model, s, cutoff_slip="yes")
    with pytest.raises(ValueError, match="differences"):
        prepare_figaroh(t, q, tau, model, s, differences="backward")
    with pytest.raises(TypeError, match="last_acceleration"):
        prepare_figaroh(t, q, tau, model, s, last_acceleration=1)
    with pytest.raises(ValueError, match="must match the model"):
        prepare_figaroh(t, q[:, :1], tau, model, s)
    bad = q.copy()
    bad[5, 0] = np.nan
    with pytest.raises(ValueError, match="q_motor"):
        prepare_figaroh(t, bad, tau, model, s)
    with pytest.raises(ValueError, match="uniformly spaced"):
        prepare_figaroh(t * 1.01, q, tau, model, s)
    with pytest.raises(ValueError, match="too few"):
        prepare_figaroh(t[:30], q[:30], tau[:30], model, Settings(ts=TS, trim=20))
    base = model.base_parameters()
    d = prepare(t, q, tau, model, s)
    with pytest.raises(TypeError, match="data must be IdentificationData"):
        figaroh_estimates("data", base)
    with pytest.raises(TypeError, match="base must be BaseParameters"):
        figaroh_estimates(d, "base")
    other = DriveModel(planar_2r(), rotor_inertia=False).base_parameters()
    with pytest.raises(ValueError, match="base must be the BaseParameters of the model"):
        figaroh_estimates(d, other)
    for ratio, err in ((1.0, ValueError), (float("nan"), ValueError), ("30", TypeError), (True, TypeError)):
        with pytest.raises(err, match="ratio"):
            figaroh_estimates(d, base, ratio=ratio)
    none_kept = replace(d, keep=d.keep & np.array([True, False]))
    with pytest.raises(ValueError):
        figaroh_estimates(none_kept, base)


def test_the_tx40_emulation_reproduces_figaroh_s_published_values():
    from robidlib.datasets import staubli_tx40, staubli_tx40_published

    tx = staubli_tx40()
    model = DriveModel(tx.robot, Transmission(tx.motor_matrix))
    settings = Settings.from_figaroh(tx.settings, joint_offsets=tx.joint_offsets)
    fit = figaroh_estimates(prepare_figaroh(tx.t, tx.q_motor, tx.tau_motor, model, settings),
                            model.base_parameters())
    pub = staubli_tx40_published()["sources"]
    base, ess = pub["figaroh_base"]["parameters"], pub["figaroh_essential"]["parameters"]
    assert set(fit.names) == set(base) and fit.dropped == ("IA6",)
    sd = np.sqrt(np.diag(fit.wls_cov))
    for m in ("ols", "wls"):
        z = [(getattr(fit, m)[i] - base[nm][m]) / sd[i] for i, nm in enumerate(fit.names)]
        assert np.abs(z).max() < 0.05, m
    assert set(fit.essential_names) == set(ess)
