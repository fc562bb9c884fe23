"""Tests of robidlib.checks.tx40 (the exercises of chapter 11, the Staubli TX40).

Each check is tried with the answer computed independently here through the public pipeline
(it must print ✔), with plausible mistakes (✘ with a hint), and with what an untouched or
malformed stub passes (✘, never an exception).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from robidlib.checks import tx40 as checks
from robidlib.datasets import staubli_tx40
from robidlib.identification import DriveModel, Settings, Transmission, identify, prepare, split, validate


@pytest.fixture(scope="module")
def pipeline():
    tx = staubli_tx40()
    model = DriveModel(tx.robot, Transmission(tx.motor_matrix))
    base = model.base_parameters()

    def fit(cutoff=100.0):
        settings = Settings.from_figaroh(tx.settings, joint_offsets=tx.joint_offsets, cutoff=cutoff)
        data = prepare(tx.t, tx.q_motor, tx.tau_motor, model, settings)
        train, test = split(data, 0.7)
        return data, train, test, identify(train, base=base)

    return tx, model, base, fit()


def _last_line(capsys):
    return capsys.readouterr().out.strip().splitlines()[-1]


def test_cutoff_estimates(pipeline, capsys):
    tx, model, base, (data, train, test, res) = pipeline
    settings = Settings.from_figaroh(tx.settings, joint_offsets=tx.joint_offsets, cutoff=20.0)
    d20 = prepare(tx.t, tx.q_motor, tx.tau_motor, model, settings)
    r20 = identify(split(d20, 0.7)[0], base=base)
    assert checks.check_cutoff_estimates(20.0, r20.wls.params)
    out = _last_line(capsys)
    assert out.startswith("✔") and "100 Hz" in out and "held-out error" in out
    # a list of float32 values is an answer too (their rounding is far below 0.05 std)
    assert checks.check_cutoff_estimates(20, r20.wls.params.astype(np.float32).tolist())
    capsys.readouterr()
    # the 100 Hz estimates passed for 20 Hz: the check says which mistake it is
    assert not checks.check_cutoff_estimates(20.0, res.wls.params)
    assert "estimates at 100 Hz" in _last_line(capsys)
    # OLS instead of WLS: some parameter differs by more than the tolerance
    assert not checks.check_cutoff_estimates(20.0, r20.ols.params)
    assert "standard deviations" in _last_line(capsys)
    # and the chapter's own cut-off is accepted
    assert checks.check_cutoff_estimates(100.0, res.wls.params)
    capsys.readouterr()


@pytest.mark.parametrize(
    "cutoff, params, message",
    [
        (..., [0.0] * 61, "not answered"),
        (20.0, ..., "not answered"),
        (0.0, [0.0] * 61, "cut-off"),
        (2500.0, [0.0] * 61, "cut-off"),
        ("20", [0.0] * 61, "cut-off"),
        (np.nan, [0.0] * 61, "cut-off"),
        (20.0, [0.0] * 60, "shape"),
        (20.0, None, "None"),
        (20.0, [1j] * 61, "complex"),
        (20.0, [np.nan] * 61, "NaN"),
    ],
)
def test_cutoff_estimates_bad_answers(cutoff, params, message, capsys):
    assert checks.check_cutoff_estimates(cutoff, params) == False
    out = _last_line(capsys)
    assert out.startswith("✘") and message in out


def test_without_rotors(pipeline, capsys):
    tx, model, base, (data, train, test, res) = pipeline
    reduced = DriveModel(tx.robot, Transmission(tx.motor_matrix), rotor_inertia=False, coupled_motors=False)
    settings = Settings.from_figaroh(tx.settings, joint_offsets=tx.joint_offsets)
    d2 = prepare(tx.t, tx.q_motor, tx.tau_motor, reduced, settings)       # a fresh run, not a column pick
    tr2, te2 = split(d2, 0.7)
    err = validate(identify(tr2), te2, use_keep=True).overall["wls"]
    assert checks.check_without_rotors(err)
    out = _last_line(capsys)
    assert out.startswith("✔") and "joint 5" in out
    assert checks.check_without_rotors(np.float32(err))
    capsys.readouterr()
    assert not checks.check_without_rotors(100 * err)
    assert "percent" in _last_line(capsys)
    full = validate(res, test, use_keep=True).overall["wls"]
    assert not checks.check_without_rotors(full)
    assert "full model" in _last_line(capsys)
    # the column pick of the chapter's data gives the same model
    cols = np.r_[model.blocks["inertial"], model.blocks["friction"]]
    picked = replace(data, Y=data.Y[:, :, cols], model=reduced)
    tr3, te3 = split(picked, 0.7)
    assert validate(identify(tr3), te3, use_keep=True).overall["wls"] == pytest.approx(err, rel=1e-9)
    for bad in (..., None, "0.1", [0.1, 0.2], np.inf, 1j):
        assert checks.check_without_rotors(bad) == False
        assert _last_line(capsys).startswith("✘")


def test_static_torques(pipeline, capsys):
    tx, model, base, (data, train, test, res) = pipeline
    Yb = base.reduce(model.regressor(np.zeros(6), np.zeros(6), np.zeros(6)))
    pred = Yb @ res.wls.params
    assert checks.check_static_torques(pred)
    out = _last_line(capsys)
    assert out.startswith("✔") and "stick-friction band" in out
    assert checks.check_static_torques(pred.tolist())
    capsys.readouterr()
    # forgetting the offsets (gravity alone) is refused with the joint it shows on
    off = np.zeros(res.base.rank)
    for j in range(6):
        off[res.names.index(f"OFF{j + 1}")] = res.wls.params[res.names.index(f"OFF{j + 1}")]
    assert not checks.check_static_torques(Yb @ (res.wls.params - off))
    assert "joint" in _last_line(capsys)
    for bad, message in ((..., "not answered"), ([0.0] * 5, "shape"), (None, "None"), ([np.nan] * 6, "NaN"),
                         (["a"] * 6, "numbers")):
        assert checks.check_static_torques(bad) == False
        assert message in _last_line(capsys)


def test_joint5_critique(pipeline, capsys):
    tx, model, base, (data, train, test, res) = pipeline
    fitted, held = validate(res, train, use_keep=True), validate(res, test, use_keep=True)
    m_f, m_h = train.keep[:, 4], test.keep[:, 4]
    err_ratio = held.rms["wls"][4] / fitted.rms["wls"][4]
    torque_ratio = np.sqrt(np.mean(test.tau[m_h, 4] ** 2)) / np.sqrt(np.mean(train.tau[m_f, 4] ** 2))
    assert checks.check_joint5_critique(err_ratio, torque_ratio)
    assert _last_line(capsys).startswith("✔")
    # the ratio of the relative errors is not what is asked
    rel_ratio = held.per_joint["wls"][4] / fitted.per_joint["wls"][4]
    assert not checks.check_joint5_critique(rel_ratio, torque_ratio)
    assert "error_ratio" in _last_line(capsys)
    # every sample instead of the kept equations changes the torque ratio
    all_ratio = np.sqrt(np.mean(test.tau[:, 4] ** 2)) / np.sqrt(np.mean(train.tau[:, 4] ** 2))
    assert abs(all_ratio - torque_ratio) > 0.02 * torque_ratio
    assert not checks.check_joint5_critique(err_ratio, all_ratio)
    assert "torque_ratio" in _last_line(capsys)
    for a, b in ((..., 1.0), (1.0, ...), ("1", 0.2), (1.0, None), (1.0, [0.2])):
        assert checks.check_joint5_critique(a, b) == False
        assert _last_line(capsys).startswith("✘")


def test_stored_references_are_what_the_pipeline_computes():
    """The stored answers (robidlib/data/checks/tx40_reference.json) against a fresh run.

    The stored values stand in for the pipeline in the checks, so they must agree with a
    fresh run far inside each check's tolerance: a fiftieth of it (then no answer's verdict
    moves by more than 2 % of the tolerance). The checks accept WLS estimates within 0.05 of
    their standard deviations, held-out errors within 0.5 %, static torques within 0.1 of
    their standard deviations and the joint-5 ratios within 2 %. A fresh run differs from
    the stored one by round-off only, amplified by the filters, the Coulomb columns' slope
    1/(sqrt(2 pi) s) at zero velocity and the WLS conditioning (cond ~ 2e3): measured
    5e-7 standard deviations and 2e-8 relative between scipy 1.17 and 1.18 (Python 3.11 and
    3.13, numpy 2.4 and 2.5), thousands of times below these tolerances; a change of the
    pipeline (e.g. the exact sign instead of its expectation: 0.05 standard deviations)
    exceeds them."""
    share = 1 / 50
    stored = checks._stored()
    fresh = checks.compute_reference()
    assert stored["names"] == fresh["names"] and set(stored["cutoffs"]) == {f"{c:g}" for c in checks.STORED_CUTOFFS}
    for key, ref in fresh["cutoffs"].items():
        got = stored["cutoffs"][key]
        std = np.asarray(ref["std"])
        assert np.max(np.abs(np.asarray(got["wls"]) - ref["wls"]) / std) < share * 0.05, key
        # the std divides every z of the check: a relative change r moves z = 0.05 by 0.05 r
        assert np.allclose(got["std"], std, rtol=share, atol=0.0), key
        assert got["held_out"] == pytest.approx(ref["held_out"], rel=share * 0.005), key
    tolerances = {"without_rotors": dict(rtol=share * 0.005), "joint5": dict(rtol=share * 0.02)}
    for group in ("without_rotors", "joint5"):
        for name, value in fresh[group].items():
            assert np.allclose(stored[group][name], value, atol=0.0, **tolerances[group]), (group, name)
    static, ref = stored["static"], fresh["static"]
    std = np.asarray(ref["std"])
    assert np.all(np.abs(np.subtract(static["predicted"], ref["predicted"])) < share * 0.1 * std)
    assert np.allclose(static["std"], std, rtol=share, atol=0.0)
    # the stick-friction bands are the estimates FS_j (+ FSM6 on joints 5 and 6): as the estimates
    names, at100 = fresh["names"], fresh["cutoffs"]["100"]
    std_fs = np.array([at100["std"][names.index(f"FS{j + 1}")] for j in range(6)])
    std_fs[4:] += at100["std"][names.index("FSM6")]
    assert np.all(np.abs(np.subtract(static["band"], ref["band"])) < share * 0.05 * std_fs)
    # means of the raw record's torques over a few hundred samples: round-off (~1e-13) only
    for name in ("measured_start", "measured_end"):
        assert np.allclose(static[name], ref[name], rtol=1e-9, atol=0.0), name
    with pytest.raises(ValueError, match="include 100"):
        checks.compute_reference((10.0, 20.0))
    with pytest.raises(ValueError, match="2500"):
        checks.compute_reference((100.0, 3000.0))


def test_a_cutoff_that_is_not_stored_is_computed(pipeline, capsys):
    tx, model, base, _ = pipeline
    assert 30.0 not in checks.STORED_CUTOFFS
    settings = Settings.from_figaroh(tx.settings, joint_offsets=tx.joint_offsets, cutoff=30.0)
    d30 = prepare(tx.t, tx.q_motor, tx.tau_motor, model, settings)
    r30 = identify(split(d30, 0.7)[0], base=base)
    assert checks.check_cutoff_estimates(30.0, r30.wls.params)
    assert _last_line(capsys).startswith("✔")


def test_registered():
    import robidlib.checks as all_checks

    assert all_checks.tx40 is checks
    assert checks.FRACTION == 0.7
