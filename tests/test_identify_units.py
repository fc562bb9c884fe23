"""Unit tests of robidlib-identify's parts: configuration, logs and hygiene, the metric, the new
pipeline helpers (several records, folds, decimation, bandwidth, measured velocities), the
export, and the TIAGo data set. Each with its bad input."""

from __future__ import annotations

import math
import shutil
import warnings

import numpy as np
import pytest

from robidlib.datasets import (TIAGO_FILES, compare_tiago_with_published, figaroh_to_ours, tiago, tiago_data_dir,
                               tiago_published, tiago_robot, verify_tiago_files)
from robidlib.identification import (DriveModel, IdentifyConfig, Settings, blocked_folds, concatenate,
                                     decimation_factors, example_config, heldout_error, identify, load_config,
                                     motion_bandwidth, predict_full_rate, prepare, split, torque_error)
from robidlib.identification.config import to_toml, unit_factor
from robidlib.identification.export import check_export, identified_robot, to_mjcf
from robidlib.identification.logs import (check_time_stamps, clean_record, detect_saturation, read_columns,
                                          resample_uniform, split_at_gaps)
from robidlib.identification.metric import reference_cutoff, reference_filter
from robidlib.models import planar_2r

TX40 = "dataset:staubli_tx40/"


def tx40_dict(**changes):
    cfg = {"robot": {"urdf": TX40 + "tx40_mdh_modified.urdf", "joints": [f"joint_{i}" for i in range(1, 7)]},
           "signals": {"time": {"rate": 5000.0},
                       "position": {"columns": [f"Joint_{i}" for i in range(1, 7)], "side": "motor"},
                       "torque": {"columns": [f"Joint_{i}" for i in range(1, 7)], "kind": "motor_torque"}},
           "transmission": {"gear_ratios": [32, 32, 45, -48, 45, 32], "couplings": [{"motor": 6, "joint": 5,
                                                                                      "ratio": 32}]},
           "records": [{"files": {"position": TX40 + "pos_read_data.csv", "torque": TX40 + "curr_data.csv"}}]}
    for path, value in changes.items():
        node = cfg
        keys = path.split(".")
        for k in keys[:-1]:
            node = node[int(k)] if isinstance(node, list) else node[k]
        if value is None:
            del node[keys[-1]]
        else:
            node[keys[-1]] = value
    return cfg


# --------------------------------------------------------------------------- configuration
def test_config_reads_the_examples_and_round_trips(tmp_path):
    for name in ("tx40", "tiago"):
        cfg = load_config(example_config(name))
        f = tmp_path / f"{name}.toml"
        f.write_text(to_toml(cfg))
        again = load_config(f)
        assert again.to_dict() == cfg.to_dict() and again == IdentifyConfig.from_dict(cfg.to_dict())
    cfg = load_config(example_config("tx40"))
    assert cfg.motor_side and cfg.couplings == ((5, 4, 32.0),) and cfg.position.offset[1] == -math.pi / 2
    assert cfg.settings.decimation == (10, 10) and cfg.settings.trim == 20
    tg = load_config(example_config("tiago"))
    assert tg.velocity is not None and tg.torque.sign[3:5] == (-1.0, -1.0) and tg.position.unit[:2] == ("m", "rad")
    assert cfg.replace_settings(cv_folds=0).settings.cv_folds == 0


@pytest.mark.parametrize("change, match", [
    ({"settngs": {}}, r"top level: unknown key 'settngs' \(did you mean 'settings'\?\)"),
    ({"robot.joint": ["a"]}, r"\[robot\]: unknown key 'joint' \(did you mean 'joints'\?\)"),
    ({"robot.joints": None}, r"\[robot\]: the key 'joints' is missing"),
    ({"robot.joints": ["joint_1", "joint_7"]}, r"joints\[1\]: joint 'joint_7' is not in the URDF"),
    ({"robot.urdf": "nowhere.urdf"}, r"urdf: file 'nowhere.urdf' not found"),
    ({"robot.inertia_check": "ignore"}, r"inertia_check: unknown value 'ignore'"),
    ({"robot.urdf": "dataset:../x.urdf"}, r"a dataset path is 'dataset:NAME/FILE'"),
    ({"signals.position.columns": ["Joint_1"]}, r"position.columns: must hold 6 entries"),
    ({"signals.position.unit": "degree"}, r"position.unit: unknown unit 'degree'; expected one of rad, deg"),
    ({"signals.position.unit": "mm"}, r"unit 'mm' is for a prismatic joint"),
    ({"signals.position.side": "rotor"}, r"position.side: unknown value 'rotor'"),
    ({"signals.position.sign": [1, 1, 1, 1, 1, 2]}, r"position.sign: every sign must be 1 or -1, got 2"),
    ({"signals.torque.kind": "current"}, r"torque.kind: unknown value 'current'"),
    ({"signals.torque.kind": "motor_current"}, r"motor_current.* needs the motors' torque constants"),
    ({"signals.time": {"rate": 5000.0, "column": "t"}}, r"give either column = NAME .* or rate = HZ"),
    ({"signals.time": {"rate": -1.0}}, r"time.rate: must be > 0"),
    ({"signals.delimiter": ";;"}, r"delimiter: must be one character"),
    ({"transmission": None}, r"motor-side signals .* need \[transmission\] gear_ratios"),
    ({"transmission.gear_ratios": [32, 0, 45, -48, 45, 32]}, r"gear_ratios: must be non-zero"),
    ({"transmission.couplings": [{"motor": 6, "joint": 6, "ratio": 1.0}]}, r"is its gear ratio .* not a coupling"),
    ({"transmission.couplings": [{"motor": 7, "joint": 5, "ratio": 1.0}]}, r"couplings\[0\].motor: must be <= 6"),
    ({"transmission.torque_constants": [1.0] * 6}, r"only used with kind = \"motor_current\""),
    ({"model": {"friction": ["dry"]}}, r"friction\[0\]: unknown value 'dry'"),
    ({"model": {"offset": "yes"}}, r"\[model\] offset: must be true or false"),
    ({"records": []}, r"must be a non-empty list"),
    ({"records.0.role": "test"}, r"role: unknown value 'test'; expected one of 'fit', 'holdout'"),
    ({"records.0.file": "x.csv"}, r"give either file = PATH .* or files = "),
    ({"records.0.files": {"position": TX40 + "pos_read_data.csv"}}, r"files: the key 'torque' is missing"),
    ({"settings": {"cutoff": -5.0}}, r"\[settings\] cutoff: must be > 0"),
    ({"settings": {"decimation": [20]}}, r"decimation\[0\]: must be <= 13"),
    ({"settings": {"decimation": 10}}, r"decimation: must be \"auto\" or a list of factors"),
    ({"settings": {"cv_folds": 1}}, r"cv_folds: must be 0 .* or at least 2"),
    ({"settings": {"holdout_fraction": 1.0}}, r"holdout_fraction: must be in \(0, 1\)"),
    ({"settings": {"velocity_threshold": [0.1] * 5}}, r"velocity_threshold: must hold 6 numbers"),
    ({"settings": {"filter_order": 4.0}}, r"filter_order: must be an integer"),
    ({"verdict": {"heldout_pass": 0.3}}, r"heldout_pass \(0.3\) must be below heldout_fail"),
])
def test_config_errors_name_the_key(change, match):
    with pytest.raises(ValueError, match=match):
        IdentifyConfig.from_dict(tx40_dict(**change), source="my.toml")


def test_config_files_and_types(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[robot\nurdf = 1")
    with pytest.raises(ValueError, match="bad.toml: not valid TOML"):
        load_config(bad)
    with pytest.raises(FileNotFoundError, match="not found"):
        load_config(tmp_path / "none.toml")
    with pytest.raises(TypeError, match="path"):
        load_config(3)
    with pytest.raises(TypeError, match="config must be a mapping"):
        IdentifyConfig.from_dict([1])
    with pytest.raises(TypeError, match="base_dir"):
        IdentifyConfig.from_dict({}, base_dir=3)
    with pytest.raises(ValueError, match="unknown example name 'ur10'"):
        example_config("ur10")
    with pytest.raises(TypeError, match="name"):
        example_config(3)
    assert unit_factor("position", "deg") == math.pi / 180 and unit_factor("joint_torque", "N·m") == 1.0
    with pytest.raises(ValueError, match="unknown quantity"):
        unit_factor("mass", "kg")
    with pytest.raises(ValueError, match="unit 'inch'"):
        unit_factor("position", "inch")
    with pytest.raises(TypeError, match="unit"):
        unit_factor("position", 3)
    with pytest.raises(TypeError, match="TOML"):
        to_toml({"a": {"b": None, "c": object()}})
    # nothing is evaluated: an expression is a string, refused where a number is expected
    with pytest.raises(ValueError, match=r"offset\[1\]: must be a number, got str '-pi/2'"):
        IdentifyConfig.from_dict(tx40_dict(**{"signals.position.offset": [0, "-pi/2", 0, 0, 0, 0]}))


# --------------------------------------------------------------------------- logs and hygiene
def test_read_columns(tmp_path):
    f = tmp_path / "log.csv"
    f.write_text("t;q1;tau1\n0.0;0.1;1.0\n0.01;;2.0\n0.02;0.3;nan\n")
    d = read_columns(f, ["t", "tau1"], delimiter=";")
    assert d.shape == (3, 2) and np.isnan(d[2, 1]) and d[1, 1] == 2.0
    with pytest.raises(ValueError, match=r"log.csv: column 'tau2' is not in the header; closest: \['tau1'"):
        read_columns(f, ["tau2"], delimiter=";")
    f.write_text("t,q1\n0.0,0.1\n0.01,abc\n")
    with pytest.raises(ValueError, match=r"log.csv: row 3, column 'q1': 'abc' is not a number"):
        read_columns(f, ["q1"])
    f.write_text("")
    with pytest.raises(ValueError, match="empty"):
        read_columns(f, ["t"])
    f.write_text("t,t\n1,2\n")
    with pytest.raises(ValueError, match="appears 2 times"):
        read_columns(f, ["t"])
    with pytest.raises(FileNotFoundError):
        read_columns(tmp_path / "none.csv", ["t"])
    with pytest.raises(TypeError, match="columns"):
        read_columns(f, "t")
    with pytest.raises(ValueError, match="delimiter"):
        read_columns(f, ["t"], delimiter=", ")


def test_time_stamps_and_gaps():
    assert check_time_stamps([0.0, 0.1, 0.2]).tolist() == [0.0, 0.1, 0.2]
    with pytest.raises(ValueError, match=r"f.csv: time stamps must increase strictly; row 5 goes back in time "
                                         r"from the stamp 0.2 s of row 4 \(to 0.15 s\)"):
        check_time_stamps([0.0, 0.1, 0.2, 0.15], "f.csv")
    with pytest.raises(ValueError, match="row 4 repeats the stamp 0.1 s of row 3 .2 duplicate"):
        check_time_stamps([0.0, 0.1, 0.1, 0.1], "f.csv")
    with pytest.raises(ValueError, match="at least 2"):
        check_time_stamps([0.0])
    with pytest.raises(ValueError, match="finite"):
        check_time_stamps([0.0, np.nan])
    with pytest.raises(TypeError, match="source"):
        check_time_stamps([0.0, 1.0], 3)
    assert split_at_gaps(np.r_[0:1:0.1, 5:6:0.1], 0.5) == [slice(0, 10), slice(10, 20)]
    with pytest.raises(ValueError, match="gap"):
        split_at_gaps([0.0, 1.0], 0.0)


def test_resample_uniform_is_accurate_on_smooth_signals():
    rng = np.random.default_rng(0)
    t = np.cumsum(np.r_[0.0, rng.uniform(0.0077, 0.0123, 999)])
    x = np.column_stack([np.sin(2 * np.pi * 0.5 * t), np.cos(2 * np.pi * 1.3 * t)])
    tu, xu = resample_uniform(t, x, 100.0)
    assert np.allclose(np.diff(tu), 0.01) and tu[-1] <= t[-1]
    exact = np.column_stack([np.sin(2 * np.pi * 0.5 * tu), np.cos(2 * np.pi * 1.3 * tu)])
    assert np.abs(xu - exact).max() < 1e-6                  # cubic: (h/T)^4-small
    _, xl = resample_uniform(t, x, 100.0, order=1)
    assert 1e-5 < np.abs(xl - exact).max() < 1e-2           # linear: (h/T)^2-small
    with pytest.raises(ValueError, match="order must be 1"):
        resample_uniform(t, x, 100.0, order=2)
    with pytest.raises(ValueError, match="rate"):
        resample_uniform(t, x, -1.0)
    with pytest.raises(ValueError, match="x must have one row per time stamp"):
        resample_uniform(t, x[:-1], 100.0)


def test_detect_saturation():
    x = np.sin(np.linspace(0, 20, 2000))[:, None] * [1.0, 1.0, 0.0]
    x[:, 1] = np.clip(x[:, 1], -0.5, 0.5)
    flags = detect_saturation(x)
    assert {f["column"] for f in flags} == {1} and all(f["longest_run"] >= 5 for f in flags)
    at = detect_saturation(x, limit=[0.99, np.inf, np.inf])
    assert any(f["column"] == 0 and f["at_limit"] for f in at)
    with pytest.raises(ValueError, match="limit"):
        detect_saturation(x, limit=[1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="x must be finite"):
        detect_saturation(np.full((3, 1), np.nan))


def test_clean_record_splits_resamples_and_reports():
    rng = np.random.default_rng(1)
    t = np.cumsum(np.r_[0.0, rng.uniform(0.009, 0.011, 2999)])
    t[1500:] += 1.0                                                          # a gap
    q = np.sin(t)[:, None] * [1.0, 2.0]
    tau = np.cos(t)[:, None] * [1.0, 1.0]
    q[700, 1] = np.nan                                                       # a NaN row
    segs, info = clean_record("run", t, q, tau, gap=0.1, rate=100.0, min_segment=0.5)
    assert len(segs) == 3 and info["nan_rows"] == {"count": 1, "first": [702]}
    assert [g["row"] for g in info["gaps"]] == [1502] and info["resampled"] == 3
    assert all(np.allclose(np.diff(s.t), 0.01) for s in segs)
    assert np.abs(segs[0].position[:, 0] - np.sin(segs[0].t)).max() < 1e-6
    # steps within the jitter tolerance keep their samples, on the uniform grid
    tu = np.arange(1000) * 0.01 * (1 + 1e-4)
    segs, info = clean_record("u", tu, np.sin(tu)[:, None], np.sin(tu)[:, None], jitter=0.01)
    assert info["resampled"] == 0 and segs[0].n_samples == 1000
    # short segments are dropped and said why
    segs, info = clean_record("s", t, q, tau, gap=0.1, min_segment=10.0)
    assert len(segs) == 1 and len(info["dropped_segments"]) == 2
    with pytest.raises(ValueError, match=r"run.csv: time stamps must increase strictly; row 12 repeats"):
        bad = t.copy()
        bad[10] = bad[9]
        clean_record("r", bad, q, tau, source="run.csv")
    with pytest.raises(ValueError, match="no segment"):
        clean_record("r", t, q, tau, min_segment=100.0)
    with pytest.raises(ValueError, match="torque must have shape"):
        clean_record("r", t, q, tau[:, :1])
    with pytest.raises(TypeError, match="name"):
        clean_record(3, t, q, tau)


# --------------------------------------------------------------------------- the metric
def test_reference_filter_is_fixed_and_never_crosses_runs():
    assert reference_cutoff(5000.0) == 10.0 and reference_cutoff(20.0) == 8.0
    x = np.r_[np.zeros(500), np.ones(500)][:, None]
    runs = np.r_[np.zeros(500, int), np.ones(500, int)]
    y = reference_filter(x, 500.0, runs)
    assert np.allclose(y, x, atol=1e-12)                      # each run constant: nothing leaks across
    assert np.abs(reference_filter(x, 500.0) - x).max() > 0.1  # one run: the step is smoothed
    with pytest.raises(ValueError, match="runs must be integer labels"):
        reference_filter(x, 500.0, runs[:-1])
    with pytest.raises(ValueError, match="fs"):
        reference_filter(x, 0.0)


def test_torque_error_variants():
    rng = np.random.default_rng(2)
    t = np.arange(4000) / 400.0
    tau = np.column_stack([np.sin(t), 10 * np.cos(0.5 * t)])
    noisy = tau + 0.1 * rng.normal(size=tau.shape)
    keep = np.abs(np.cos(t))[:, None] * [1, 1] > 0.2
    e = torque_error(noisy, tau, 400.0, keep=keep)
    assert e.overall < 0.3 * e.overall_unfiltered and 0 < e.overall_kept < 1
    assert e.share[1] > 0.9 and abs(e.share.sum() - 1) < 1e-12       # joint 2 dominates the overall
    assert e.samples == 4000 and e.cutoff == 10.0 and "fixed" in e.definition
    d = e.as_dict()
    assert set(d) >= {"per_joint", "overall", "overall_unfiltered", "overall_kept", "definition"}
    assert math.isnan(torque_error(noisy, tau, 400.0).overall_kept)
    with pytest.raises(ValueError, match="predicted must have shape"):
        torque_error(noisy, tau[:, :1], 400.0)
    with pytest.raises(ValueError, match="no torque"):
        torque_error(np.zeros((10, 2)), np.zeros((10, 2)), 400.0)
    with pytest.raises(ValueError, match="keep must be a boolean mask"):
        torque_error(noisy, tau, 400.0, keep=keep[:, :1])


# --------------------------------------------------------------------------- pipeline helpers
def _record(n=20000, ts=2e-4, seed=0):
    model = DriveModel(planar_2r(), offset=False)
    t = np.arange(n) * ts
    w = np.array([[1.1, 2.3, 3.7], [1.7, 2.9, 4.3]])
    ph = np.random.default_rng(seed).uniform(0, 6, (2, 3))
    q = np.stack([np.sin(np.outer(t, w[j]) + ph[j]).sum(1) for j in range(2)], 1) * 0.3
    qd = np.stack([(w[j] * np.cos(np.outer(t, w[j]) + ph[j])).sum(1) for j in range(2)], 1) * 0.3
    qdd = np.stack([(-w[j] ** 2 * np.sin(np.outer(t, w[j]) + ph[j])).sum(1) for j in range(2)], 1) * 0.3
    x = model.pack(friction=[[0.5, 0.2], [0.3, 0.1]], rotor=[0.05, 0.02])
    return model, t, q, qd, model.torques(q, qd, qdd, x), x


def test_measured_velocities_replace_the_derivative():
    model, t, q, qd, tau, x = _record()
    s = Settings(ts=2e-4)
    a = prepare(t, q, tau, model, s)
    b = prepare(t, q, tau, model, s, qd_motor=qd)
    inner = ~a.full.edge
    assert np.abs(b.full.qd - a.full.qd)[inner].max() < 1e-3 * np.abs(qd).max()    # the same motion
    assert not np.array_equal(a.full.qd, b.full.qd)                         # but from the measurement
    late = prepare(t, q, tau, model, s, qd_motor=np.roll(qd, 250, axis=0))   # a delayed measurement
    e = {k: heldout_error(identify(d), d, ("wls",))["wls"].overall for k, d in (("ok", b), ("late", late))}
    assert e["late"] > 10 * e["ok"]
    with pytest.raises(ValueError, match="qd_motor must have shape"):
        prepare(t, q, tau, model, s, qd_motor=qd[:, :1])


def test_full_rate_data_follow_split_and_concatenate():
    model, t, q, qd, tau, x = _record()
    data = prepare(t, q, tau, model, Settings(ts=2e-4))
    assert data.full.n_samples == 20000 and data.full.edge.sum() == 2 * 2500      # 0.5 s at each end
    train, test = split(data, 0.6, guard=0.1, span="record")
    assert train.full.t.max() < test.full.t.min() - 0.19                   # the guard holds at full rate
    assert abs(test.full.t.min() - (0.6 * 4.0 + 0.1)) < 1e-9                # cut in the record's own time
    assert np.all(np.abs(test.full.t - test.t[test.full.nearest]) < 0.07)   # trimmed ends included
    both = concatenate([train, test])
    assert both.n_samples == train.n_samples + test.n_samples and both.full.run.max() == 1
    # the prediction of the true parameters at the full rate is the measured torque
    res = identify(train)
    p = predict_full_rate(res, test, res.base.beta(x))
    inner = ~test.full.edge
    assert np.abs(p - test.full.tau)[inner].max() < 1e-3 * np.abs(test.full.tau).max()
    with pytest.raises(ValueError, match="another model"):
        concatenate([train, prepare(t, q, tau, DriveModel(planar_2r(), offset=False), Settings(ts=2e-4))])
    with pytest.raises(TypeError, match="parts"):
        concatenate(train)
    with pytest.raises(ValueError, match="vectors must have"):
        predict_full_rate(res, test, np.ones(3))
    with pytest.raises(ValueError, match="methods must name estimates"):
        heldout_error(res, test, ("lms",))


def test_blocked_folds():
    model, t, q, qd, tau, x = _record()
    data = prepare(t, q, tau, model, Settings(ts=2e-4))
    folds = blocked_folds(data, 5, guard=0.1)
    assert len(folds) == 5
    tests = [te.t for _, te in folds]
    assert all(np.ptp(tt) < 0.25 * np.ptp(data.t) for tt in tests)       # contiguous blocks
    for (tr, te) in folds:
        assert np.min(np.abs(tr.t[:, None] - te.t[None, :])) > 0.19        # guard on both sides
    with pytest.raises(ValueError, match="k must be >= 2"):
        blocked_folds(data, 1)
    with pytest.raises(ValueError, match="fold .* has no"):
        blocked_folds(data, 40, guard=1.0)
    with pytest.raises(ValueError, match="runs must be integer labels"):
        blocked_folds(data, 3, runs=np.zeros(3))


def test_decimation_and_bandwidth_follow_the_data():
    assert decimation_factors(100) == (10, 10) and decimation_factors(11) == (11,) and decimation_factors(200) == (8, 5, 5)
    with pytest.raises(ValueError, match="total must be >= 1"):
        decimation_factors(0)
    with pytest.raises(TypeError, match="total"):
        decimation_factors(2.5)
    t = np.arange(40000) / 100.0
    q = np.column_stack([np.sin(2 * np.pi * 0.2 * t), np.sin(2 * np.pi * 2.0 * t)])
    band = motion_bandwidth(q, 100.0)
    assert abs(band[0] - 0.2) < 0.11 and abs(band[1] - 2.0) < 0.11      # two bins of 0.05 Hz
    with pytest.raises(ValueError, match="energy must be in"):
        motion_bandwidth(q, 100.0, energy=1.5)
    with pytest.raises(ValueError, match="at least 64"):
        motion_bandwidth(q[:10], 100.0)
    # a decimation that removes motion is said, and too few equations refused
    model = DriveModel(planar_2r(), offset=False)
    qq = 0.3 * np.column_stack([np.sin(2 * np.pi * 0.6 * t), np.cos(2 * np.pi * 0.9 * t)])
    qd_ = np.gradient(qq, 0.01, axis=0)
    tau = model.torques(qq, qd_, np.gradient(qd_, 0.01, axis=0), model.pack(rotor=[0.1, 0.1]))
    with pytest.warns(UserWarning, match="removes motion the torques contain"):
        data = prepare(t, qq, tau, model, Settings(ts=0.01, cutoff=10.0, decimation=(10, 10)))
    with pytest.raises(ValueError, match=r"holds \d+ fitted equations for \d+ base parameters .* at least 10"):
        identify(data.select(np.arange(30)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        prepare(t, qq, tau, model, Settings(ts=0.01))          # the default decimation (2,) keeps it


# --------------------------------------------------------------------------- export
def test_export_refuses_what_is_not_physical():
    model = DriveModel(planar_2r())
    x = model.pack(friction=[[0.5, 0.1], [0.2, 0.05]], rotor=[0.01, 0.02])
    robot, rotor = identified_robot(model, x)
    xml = to_mjcf(robot, rotor)
    assert xml.count("<body") == 2 and 'armature="0.02"' in xml
    out = check_export(model, x, urdf=robot.to_urdf(), mjcf=xml, samples=10, rng=1)
    assert out["urdf"]["max_rel"] < 1e-12
    bad = x.copy()
    bad[4] = -1.0                                              # a negative moment of inertia
    with pytest.raises(ValueError, match="not physically consistent"):
        identified_robot(model, bad)
    neg = x.copy()
    neg[model.names.index("fv1")] = -0.1
    with pytest.raises(ValueError, match="negative friction"):
        identified_robot(model, neg)
    with pytest.raises(ValueError, match="positive mass"):
        to_mjcf(robot.with_params(np.zeros(20)))
    with pytest.raises(ValueError, match="rotor must be >= 0"):
        to_mjcf(robot, [-1.0, 0.0])
    with pytest.raises(TypeError, match="robot"):
        to_mjcf("robot")
    with pytest.raises(ValueError, match="x must have shape"):
        check_export(model, x[:-1])
    with pytest.raises(TypeError, match="urdf"):
        check_export(model, x, urdf=3)


# --------------------------------------------------------------------------- the TIAGo data set
def test_tiago_files_model_and_published_values(tmp_path):
    assert verify_tiago_files() == TIAGO_FILES
    tg = tiago()
    assert tg.q.shape == tg.qd.shape == tg.effort.shape == (8022, 8) and tg.robot.n == 8
    d = np.diff(tg.t)
    assert 0.0075 < d.min() < d.max() < 0.0125 and abs(np.median(d) - 0.01) < 1e-4   # jittered stamps
    assert np.abs(tg.effort[:, 5:]).max() < 0.03                             # barely any wrist signal
    assert abs(tg.robot.link_params[:, 0].sum() - 19.137) < 1e-3
    with pytest.raises(ValueError):
        tg.q[0, 0] = 1.0
    pub = tiago_published()
    assert len(pub) == 44 and pub[0]["terms"]["m24"] == 1.0 and pub[7]["lead"] == "mx15"
    assert figaroh_to_ours("Izz14") == "Izz2" and figaroh_to_ours("m21") is None
    with pytest.raises(ValueError, match="name must be a FIGAROH parameter name"):
        figaroh_to_ours("Izz")
    folder = tmp_path / "tiago"
    shutil.copytree(tiago_data_dir(), folder)
    for p in folder.iterdir():
        p.chmod(0o644)
    raw = (folder / "tiago_effort.csv").read_bytes()
    (folder / "tiago_effort.csv").write_bytes(raw.replace(b"1.675", b"1.676", 1))
    with pytest.raises(ValueError, match=r"'tiago_effort.csv'.*altered.*sha256"):
        tiago(folder)
    assert tiago(folder, verify=False).effort[0, 0] == 1.676
    (folder / "tiago_effort.csv").write_bytes(raw)
    (folder / "tiago.urdf").unlink()
    with pytest.raises(FileNotFoundError, match="tiago.urdf"):
        tiago(folder)
    with pytest.raises(TypeError, match="directory"):
        tiago(3)
    with pytest.raises(TypeError, match="verify"):
        tiago(verify="yes")
    with pytest.raises(TypeError, match="urdf"):
        tiago_robot(3)
    with pytest.raises(ValueError, match="arm_1_link.*triangle inequality"):
        tiago_robot(inertia_check="refuse")
    with pytest.raises(ValueError, match="inertia_check"):
        tiago_robot(inertia_check="ignore")
    with pytest.warns(UserWarning, match="arm_1_link"):
        model = DriveModel(tiago_robot())
    bp = model.base_parameters(rtol=1e-8)
    with pytest.raises(TypeError, match="base"):
        compare_tiago_with_published("bp", np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match="values must have shape"):
        compare_tiago_with_published(bp, np.ones(3), np.ones(3))


def test_the_heldout_metric_does_not_move_with_the_settings():
    """Issue 25: the error in the pipeline's own domain moves with its settings, the metric not.

    The same noisy record through two settings (cut-off 100 Hz and decimation to 50 Hz, or
    20 Hz and 12.5 Hz): the decimated-domain error of ``validate`` follows the decimation
    filter (a narrower filter removes more noise from the very torque it compares with), the
    held-out metric stays at the noise floor of the fixed reference filter.
    """
    model, t, q, qd, tau, x = _record(n=40000)
    noisy = tau + 0.05 * tau.std(axis=0) * np.random.default_rng(4).normal(size=tau.shape)
    out = {}
    for name, s in (("wide", Settings(ts=2e-4, cutoff=100.0, decimation=(10, 10))),
                    ("narrow", Settings(ts=2e-4, cutoff=20.0, decimation=(10, 10, 4)))):
        train, test = split(prepare(t, q, noisy, model, s), 0.7, span="record")
        res = identify(train)
        from robidlib.identification import validate

        out[name] = (validate(res, test, ("wls",)).overall["wls"], heldout_error(res, test, ("wls",))["wls"].overall)
    own = out["wide"][0] / out["narrow"][0]
    metric = out["wide"][1] / out["narrow"][1]
    assert own > 1.5                       # the pipeline's own error flatters the narrow filter
    assert abs(metric - 1) < 0.1           # the metric does not move


def test_check_export_reads_an_mjcf_without_mujoco(monkeypatch):
    """Without MuJoCo the MJCF is still parsed and its joints counted: a wrong file is an error."""
    import robidlib.identification.export as export

    monkeypatch.setattr(export, "mujoco_available", lambda: False)
    model = DriveModel(planar_2r())
    x = model.pack()
    robot, rotor = identified_robot(model, x)
    out = check_export(model, x, mjcf=to_mjcf(robot, rotor))
    assert out["mjcf"]["loaded_with"] is None and "mujoco" in out["mjcf"]["reason"]
    with pytest.raises(ValueError, match=r"mjcf must be a <mujoco> model of the model's 2 joints, got <mujoco> with 0"):
        check_export(model, x, mjcf="<mujoco/>")
    with pytest.raises(ValueError, match="mjcf is not readable XML"):
        check_export(model, x, mjcf="<mujoco>")
