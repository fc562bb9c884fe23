"""End-to-end tests of robidlib-identify: a synthetic robot with known parameters, the TX40, TIAGo.

The synthetic robot (three joints: a prismatic lift and two revolute joints, with viscous and
Coulomb friction, offsets and rotor inertias) is simulated along two records of smooth
motion, logged with jittered time stamps, a NaN row and a gap, its torques with white noise:
the command must recover a model whose held-out error is the noise floor (the error of the
true parameters through the same metric), and whose exported URDF and MJCF, loaded back by
robidlib and by MuJoCo, give the same torques as the estimate to 1e-9.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from robidlib.dynamics import inverse_dynamics
from robidlib.identification import (
    DriveModel,
    IdentifyConfig,
    Settings,
    Transmission,
    identify,
    identify_robot,
    load_config,
    prepare,
    split,
    example_config,
    write_example_config,
)
from robidlib.identification.command import main
from robidlib.identification.export import mujoco_available
from robidlib.identification.metric import torque_error
from robidlib.robot import SerialRobot

FS = 200.0          # Hz, the logs' nominal rate
NOISE = 0.02        # relative torque noise (of each joint's torque std)


def synthetic_robot() -> SerialRobot:
    T = np.eye(4)[None].repeat(3, axis=0)
    T[1, :3, 3] = [0.0, 0.0, 0.3]
    T[2, :3, 3] = [0.4, 0.0, 0.0]
    axes = [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [0.0, 1.0, 0.0]]
    rng = np.random.default_rng(5)
    params = []
    for m, L in ((4.0, 0.1), (2.5, 0.4), (1.5, 0.3)):
        c = np.array([L / 2, 0.01, 0.02]) * rng.uniform(0.8, 1.2, 3)
        I_c = np.diag(m * L**2 / 12 * np.array([0.3, 1.0, 1.0]) + 1e-3)
        I_o = I_c + m * (c @ c * np.eye(3) - np.outer(c, c))
        params += [m, *(m * c), I_o[0, 0], I_o[1, 1], I_o[2, 2], I_o[0, 1], I_o[0, 2], I_o[1, 2]]
    return SerialRobot("PRR", T, axes, params, joint_names=["lift", "shoulder", "elbow"],
                       link_names=["carriage", "upper", "fore"], q_limits=[[0.0, 0.5], [-2.0, 2.0], [-2.5, 2.5]],
                       qd_limits=[0.3, 2.0, 2.0], name="synthetic")


def _motion(t, seed):
    rng = np.random.default_rng(seed)
    w = 2 * np.pi * np.array([0.13, 0.27, 0.41, 0.59])
    A = rng.normal(size=(3, 4)) * np.array([[0.03], [0.35], [0.45]]) / np.arange(1, 5)
    ph = rng.uniform(0, 2 * np.pi, (3, 4))
    q = np.sum(A[None] * np.sin(w[None, None] * t[:, None, None] + ph[None]), axis=2) + [0.25, 0.0, 0.3]
    qd = np.sum(A[None] * w * np.cos(w[None, None] * t[:, None, None] + ph[None]), axis=2)
    qdd = -np.sum(A[None] * w**2 * np.sin(w[None, None] * t[:, None, None] + ph[None]), axis=2)
    return q, qd, qdd


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    folder = tmp_path_factory.mktemp("synthetic")
    robot = synthetic_robot()
    (folder / "robot.urdf").write_text(robot.to_urdf())
    model = DriveModel(robot)
    x_true = model.pack(friction=[[2.0, 1.5], [0.8, 0.5], [0.5, 0.3]], offsets=[5.0, -0.2, 0.1],
                        rotor=[0.3, 0.05, 0.02])
    rng = np.random.default_rng(7)
    for name, seed, dur in (("fit", 1, 40.0), ("check", 2, 15.0)):
        t = np.cumsum(np.r_[0.0, rng.uniform(0.8, 1.2, int(dur * FS) - 1)]) / FS   # jittered stamps
        if name == "fit":
            t[4000:] += 0.5                                                       # a 0.5 s gap
        q, qd, qdd = _motion(t, seed)
        tau = model.torques(q, qd, qdd, x_true)
        noisy = tau + NOISE * tau.std(axis=0) * rng.normal(size=tau.shape)
        data = np.column_stack([t * 1e3, np.degrees(q[:, [1, 2]]), 1e3 * q[:, 0], noisy])
        if name == "fit":
            data[1234, 3] = np.nan                                                # a missing cell
        header = "time_ms,shoulder_deg,elbow_deg,lift_mm,F_lift,T_shoulder,T_elbow"
        np.savetxt(folder / f"{name}.csv", data, delimiter=",", header=header, comments="", fmt="%.10g")
    cfg = {
        "robot": {"urdf": "robot.urdf", "joints": ["lift", "shoulder", "elbow"]},
        "signals": {"time": {"column": "time_ms", "unit": "ms"},
                    "position": {"columns": ["lift_mm", "shoulder_deg", "elbow_deg"],
                                 "unit": {"prismatic": "mm", "revolute": "deg"}},
                    "torque": {"columns": ["F_lift", "T_shoulder", "T_elbow"], "kind": "joint_torque"}},
        "records": [{"name": "fit", "file": "fit.csv"}, {"name": "check", "file": "check.csv", "role": "holdout"}],
        "settings": {"cv_folds": 4, "velocity_threshold": [0.01, 0.05, 0.05]},
    }
    ident = identify_robot(cfg, base_dir=folder)
    return folder, cfg, model, x_true, ident


def test_synthetic_data_hygiene_is_reported(synthetic):
    _, _, _, _, ident = synthetic
    fit = ident.records["fit"]["hygiene"]
    assert fit["nan_rows"]["count"] == 1 and fit["nan_rows"]["first"] == [1236]   # file row: header + 1235
    assert len(fit["gaps"]) == 1 and fit["gaps"][0]["row"] == 4002
    assert len(fit["segments"]) == 3 and fit["resampled"] == 3          # split at the NaN row and the gap
    assert ident.records["check"]["role"] == "holdout"
    assert abs(ident.settings.fs - FS) < 0.01 * FS                        # the rate measured, not assumed
    assert ident.settings_source["decimation"].startswith("from the data")


def test_synthetic_recovers_the_true_parameters(synthetic):
    _, _, model, x_true, ident = synthetic
    res = ident.result
    z = (res.wls.params - res.base.beta(x_true)) / res.wls.std
    # the largest of r z-scores below the 0.1 % Bonferroni bound; resampling and filtering add
    # a small bias, hence a margin of one standard deviation
    assert np.abs(z).max() < stats.norm.ppf(1 - 0.001 / (2 * z.size)) + 1.0


def test_synthetic_heldout_error_is_the_noise_floor(synthetic):
    _, _, model, x_true, ident = synthetic
    f = ident.test.full
    floor = torque_error(f.tau, model.regressor(f.q, f.qd, f.qdd) @ x_true, f.fs, runs=f.run)
    for m in ("ols", "wls", "physical"):
        assert ident.heldout[m].overall < 1.2 * floor.overall + 1e-3, (m, ident.heldout[m].overall, floor.overall)
    assert ident.heldout["wls"].overall_unfiltered < 1.05 * floor.overall_unfiltered
    assert ident.verdict["status"] in ("pass", "warn")
    held = next(it for it in ident.verdict["items"] if it["name"].startswith("held-out"))
    assert held["status"] == "pass"
    cv = ident.cv
    assert len(cv["folds"]) == 4 and all(fo["overall"] is not None for fo in cv["folds"])
    assert cv["max"] < 3 * floor.overall + 0.01


def test_synthetic_export_loads_back_and_agrees(synthetic, tmp_path):
    _, _, model, _, ident = synthetic
    paths = ident.write(tmp_path / "out")
    x = ident.result.physical.params
    assert ident.result.physical.info["consistent"]
    rng = np.random.default_rng(3)
    q = rng.uniform([0.05, -1.5, -2.0], [0.45, 1.5, 2.0], (30, 3))
    qd = rng.uniform(0.2, 1.0, (30, 3)) * rng.choice([-1, 1], (30, 3))
    qdd = rng.uniform(-3, 3, (30, 3))
    Y = model.regressor(q, qd, qdd)
    rigid_friction = list(range(30)) + [model.names.index(f"{s}{j}") for j in (1, 2, 3) for s in ("fv", "fc")]
    back = SerialRobot.from_urdf(paths["model.urdf"])
    tau_est = Y[:, :, rigid_friction] @ x[rigid_friction]
    assert np.abs(inverse_dynamics(back, q, qd, qdd) - tau_est).max() <= 1e-9 * np.abs(tau_est).max()
    if not mujoco_available():
        pytest.skip("mujoco is not installed (a test dependency)")
    import mujoco

    mm = mujoco.MjModel.from_xml_path(str(paths["model.xml"]))
    fc = [x[model.names.index(f"fc{j}")] for j in (1, 2, 3)]
    assert np.allclose(mm.dof_frictionloss, fc, rtol=1e-12, atol=0)
    mm.dof_frictionloss[:] = 0.0
    d = mujoco.MjData(mm)
    visc = list(range(30)) + [model.names.index(f"fv{j}") for j in (1, 2, 3)] + list(model.blocks["rotor"])
    tau_m = Y[:, :, visc] @ x[visc]
    for k in range(q.shape[0]):
        d.qpos[:], d.qvel[:], d.qacc[:] = q[k], qd[k], qdd[k]
        mujoco.mj_inverse(mm, d)
        assert np.abs(d.qfrc_inverse - tau_m[k]).max() <= 1e-9 * np.abs(tau_m).max()


def test_outputs_are_complete_self_contained_and_never_overwritten(synthetic, tmp_path):
    folder, _, _, _, ident = synthetic
    out = tmp_path / "run"
    paths = ident.write(out)
    assert set(paths) == {"report.html", "result.json", "config.toml", "versions.txt", "model.urdf", "model.xml"}
    html = paths["report.html"].read_text()
    # one file: every figure a data URI, no request to any host
    assert html.count('src="data:image/png;base64,') >= 4
    assert not re.search(r'(?:src|href)\s*=\s*["\'](?!data:|#)', html)
    assert "<script" not in html and "@import" not in html and "url(" not in html
    for needle in ("Verdict", "Held-out torque fit", "Cross-validation", "Physical consistency certificate",
                   "condition number", "M1R", "relative torque error"):
        assert needle in html, needle
    facts = json.loads(paths["result.json"].read_text())           # strict JSON: no NaN
    assert facts["verdict"]["status"] == ident.verdict["status"]
    assert facts["metric"]["heldout"]["wls"]["overall"] == pytest.approx(ident.heldout["wls"].overall)
    assert facts["versions"]["robidlib"] and facts["export"]["files"] == ["model.urdf", "model.xml"]
    # the written configuration repeats the run exactly
    again = load_config(paths["config.toml"])
    assert again.to_dict() == ident.config.to_dict() | {"settings": again.to_dict()["settings"]}
    st = again.settings                     # every "auto" written out as the value the data gave
    assert (st.cutoff, st.decimation, st.trim) == (ident.settings.cutoff, ident.settings.decimation,
                                                   ident.settings.trim_samples)
    assert st.rate == ident.settings.fs and "auto" not in (st.cutoff, st.decimation, st.trim, st.rate)
    # never overwritten unasked, nothing written when one file exists
    mtime = paths["report.html"].stat().st_mtime_ns
    with pytest.raises(ValueError, match="exist already.*overwrite"):
        ident.write(out)
    assert paths["report.html"].stat().st_mtime_ns == mtime
    ident.write(out, overwrite=True)
    # never into the installed package
    import robidlib

    with pytest.raises(ValueError, match="inside the installed robidlib package"):
        ident.write(Path(robidlib.__file__).parent / "results")


def test_command_line(synthetic, tmp_path, capsys):
    folder, cfg, *_ = synthetic
    from robidlib.identification.config import to_toml

    text = to_toml(cfg).replace('"robot.urdf"', repr(str(folder / "robot.urdf")).replace("'", '"'))
    for n in ("fit", "check"):
        text = text.replace(f'"{n}.csv"', f'"{folder / (n + ".csv")}"')
    conf = tmp_path / "my_arm.toml"
    conf.write_text(text)
    status = main([str(conf), "--out", str(tmp_path / "res"), "--quiet"])
    assert status == 0 and (tmp_path / "res" / "report.html").is_file()
    assert "verdict:" in capsys.readouterr().out
    assert main([str(conf), "--out", str(tmp_path / "res"), "--quiet"]) == 1          # exists: refused
    assert "overwrite" in capsys.readouterr().err
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace("[settings]", "[settings]\ncutof = 10.0"))
    assert main([str(bad), "--out", str(tmp_path / "res2"), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "bad.toml: [settings]: unknown key 'cutof' (did you mean 'cutoff'?)" in err
    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path / "x")])                                          # no config
    assert main(["--write-example", "tx40", str(tmp_path)]) == 0
    assert (tmp_path / "tx40.toml").read_text() == example_config("tx40").read_text()
    assert main(["--write-example", "tx40", str(tmp_path)]) == 1                       # no overwrite
    with pytest.raises(ValueError, match="unknown example"):
        write_example_config("ur10", tmp_path)


def _base_cfg(folder):
    return {
        "robot": {"urdf": str(folder / "robot.urdf"), "joints": ["lift", "shoulder", "elbow"]},
        "signals": {"time": {"column": "time_ms", "unit": "ms"},
                    "position": {"columns": ["lift_mm", "shoulder_deg", "elbow_deg"],
                                 "unit": {"prismatic": "mm", "revolute": "deg"}},
                    "torque": {"columns": ["F_lift", "T_shoulder", "T_elbow"]}},
        "records": [{"name": "fit", "file": str(folder / "check.csv")}],
        "settings": {"cv_folds": 0, "physical": False},
    }


def test_data_errors_name_file_row_and_column(synthetic, tmp_path):
    folder = synthetic[0]
    cfg = _base_cfg(folder)
    cfg["signals"]["torque"]["columns"] = ["F_lift", "T_shoulder", "T_elbw"]
    with pytest.raises(ValueError, match=r"check.csv: \[signals\] column .* 'T_elbw' is not in the header; "
                                         r"closest: \['T_elbow'"):
        identify_robot(cfg)
    # a unit mistake: degrees read as radians put the joints far outside the URDF's limits
    cfg = _base_cfg(folder)
    cfg["signals"]["position"]["unit"] = {"prismatic": "mm", "revolute": "rad"}
    with pytest.raises(ValueError, match=r"column 'shoulder_deg': joint 'shoulder' moves over .* far outside "
                                         r"its URDF limits .* unit \('rad'\)"):
        identify_robot(cfg)
    # decreasing and duplicate stamps: the file and the row
    data = np.loadtxt(folder / "check.csv", delimiter=",", skiprows=1)
    header = (folder / "check.csv").read_text().splitlines()[0]
    data[100, 0] = data[98, 0]
    np.savetxt(tmp_path / "back.csv", data, delimiter=",", header=header, comments="", fmt="%.10g")
    cfg = _base_cfg(folder)
    cfg["records"] = [{"name": "fit", "file": str(tmp_path / "back.csv")}]
    with pytest.raises(ValueError, match=r"back.csv\): time stamps must increase strictly; row 102 goes back"):
        identify_robot(cfg)
    data[100, 0] = data[99, 0]
    np.savetxt(tmp_path / "dup.csv", data, delimiter=",", header=header, comments="", fmt="%.10g")
    cfg["records"] = [{"name": "fit", "file": str(tmp_path / "dup.csv")}]
    with pytest.raises(ValueError, match=r"row 102 repeats the stamp .* of row 101"):
        identify_robot(cfg)


def test_impossible_settings_are_refused_with_the_numbers(synthetic):
    cfg = _base_cfg(synthetic[0])
    cfg["settings"]["decimation"] = [13, 13]
    with pytest.raises(ValueError, match=r"\[settings\] decimation = \[13, 13\] .* leaves about \d+ equations for "
                                         r"\d+ base parameters .* at least 10 per parameter"):
        identify_robot(cfg)
    cfg["settings"]["decimation"] = "auto"
    cfg["settings"]["cutoff"] = 150.0
    with pytest.raises(ValueError, match="not below the Nyquist frequency"):
        identify_robot(cfg)


# --------------------------------------------------------------------------- the real records
@pytest.fixture(scope="module")
def tx40():
    # the estimates and the held-out metric; cross-validation and the consistent estimate are
    # the synthetic tests' and the benchmark's (benchmarks/bench_identify.py runs everything)
    cfg = load_config(example_config("tx40")).replace_settings(cv_folds=0, physical=False)
    return identify_robot(cfg)


def test_tx40_reproduces_chapter_11(tx40):
    """The example configuration gives chapter 11's data and estimates exactly.

    Chapter 11: the record through FIGAROH's settings, fitted on the first 70 % (split with a
    0.1 s guard). The command reads the same files by column name from the configuration.
    """
    from robidlib.datasets import staubli_tx40

    tx = staubli_tx40()
    model = DriveModel(tx.robot, Transmission(tx.motor_matrix))
    settings = Settings.from_figaroh(tx.settings, joint_offsets=tx.joint_offsets)
    train, test = split(prepare(tx.t, tx.q_motor, tx.tau_motor, model, settings), 0.7)
    res = identify(train, base=model.base_parameters())
    assert tx40.result.names == res.names and tx40.train.n_samples == train.n_samples
    # the same data and estimates (the configured rate is exact: no rounding anywhere)
    z = (tx40.result.wls.params - res.wls.params) / res.wls.std
    assert np.abs(z).max() < 1e-9, np.abs(z).max()
    assert tx40.result.essential.names == res.essential.names
    # the metric: every sample, the measured torque through the fixed filter (15.8 % measured;
    # the held-out part ends with 1.3 s at rest, where the Coulomb model follows noise)
    h = tx40.heldout["wls"]
    assert 0.08 < h.overall < 0.25 and h.overall < h.overall_unfiltered
    assert tx40.fitted.overall < 0.07
    assert tx40.verdict["status"] in ("warn", "fail")                  # no consistent model: not exported
    assert "export" in [it["name"] for it in tx40.verdict["items"]]


@pytest.fixture(scope="module")
def tiago_run():
    return identify_robot(example_config("tiago"))


def test_tiago_says_what_the_record_cannot_identify(tiago_run):
    ident = tiago_run
    rec = ident.records["tiago"]["hygiene"]
    assert rec["resampled"] == 1 and 0.05 < rec["step_jitter"] < 0.06      # jittered stamps, resampled
    sig = {s["joint"]: s for s in ident.diagnostics["signal"]}
    weak = {j for j, s in sig.items() if s["too_little"]}
    assert {"arm_5_joint", "arm_6_joint", "arm_7_joint"} <= weak           # the wrist's efforts are noise
    assert not {"arm_2_joint", "arm_3_joint", "arm_4_joint"} & weak
    scale = {s["joint"]: s["scale"] for s in ident.diagnostics["torque_scale"]}
    assert all(0.03 < scale[f"arm_{i}_joint"] < 0.2 for i in (1, 2, 3, 4))  # efforts are not N m
    vel = ident.diagnostics["velocity"]
    assert min(vel["delay_s"]) > 0.1                                      # the measured velocities lag
    items = {it["name"]: it["status"] for it in ident.verdict["items"]}
    assert items["torques against the CAD model"] == "warn" and items["signal per joint"] == "warn"
    assert ident.physical["consistent"] and ident.export["check"]["urdf"]["max_rel"] < 1e-9
    # held out: 23 % (WLS) measured; the cross-validated median lower
    assert 0.1 < ident.heldout["wls"].overall < 0.4 and ident.cv["median"] < ident.heldout["wls"].overall


def test_tiago_against_figaroh(tiago_run):
    from robidlib.datasets import compare_tiago_with_published

    res = tiago_run.result
    rows = compare_tiago_with_published(res.base, res.wls.params, res.wls.rel_std, tiago_run.model.pack())
    assert len(rows) == 44 and all(r["ours"] is not None for r in rows)      # every published one matched
    assert max(r["relation_max_diff"] for r in rows) < 0.01                 # the same regrouping
    assert rows[0]["ours"] == "M1R" and rows[0]["figaroh_rel_std"] < 10 and abs(rows[0]["cad_value"] - 19.14) < 0.01
    assert sum(r["figaroh_rel_std"] > 100 for r in rows) == 43              # FIGAROH identified none else
