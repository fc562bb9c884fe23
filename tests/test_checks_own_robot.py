"""Checks of chapter 13 (robidlib.checks.own_robot): the exercise log, the configuration check,
the signal-to-noise check and the statements about the TIAGo report."""
import copy
from pathlib import Path

import numpy as np
import pytest

import robidlib
from robidlib.checks import own_robot as checks
from robidlib.identification import identify_robot


@pytest.fixture(scope="module")
def log_dir(tmp_path_factory):
    return checks.exercise_log(tmp_path_factory.mktemp("own") / "log")


@pytest.fixture()
def config():
    return {
        "robot": {"urdf": "arm.urdf", "joints": ["shoulder", "elbow"]},
        "signals": {"time": {"column": "stamp", "unit": "ms"},
                    "position": {"columns": ["enc_sh", "enc_el"], "unit": "deg", "side": "motor"},
                    "torque": {"columns": ["cur_sh", "cur_el"], "kind": "motor_current", "unit": "mA",
                               "sign": [1, -1]}},
        "transmission": {"gear_ratios": [120.0, 80.0], "torque_constants": [0.11, 0.07]},
        "records": [{"name": "run1", "file": "run1.csv", "role": "fit"},
                    {"name": "run2", "file": "run2.csv", "role": "holdout"}],
    }


@pytest.fixture(scope="module")
def arm_run(log_dir):
    cfg = {
        "robot": {"urdf": "arm.urdf", "joints": ["shoulder", "elbow"]},
        "signals": {"time": {"column": "stamp", "unit": "ms"},
                    "position": {"columns": ["enc_sh", "enc_el"], "unit": "deg", "side": "motor"},
                    "torque": {"columns": ["cur_sh", "cur_el"], "kind": "motor_current", "unit": "mA",
                               "sign": [1, -1]}},
        "transmission": {"gear_ratios": [120.0, 80.0], "torque_constants": [0.11, 0.07]},
        "records": [{"name": "run1", "file": "run1.csv", "role": "fit"},
                    {"name": "run2", "file": "run2.csv", "role": "holdout"}],
        "settings": {"cv_folds": 0},
    }
    return identify_robot(cfg, base_dir=log_dir)


def test_exercise_log_writes_its_files_with_jittered_stamps_and_refuses_to_overwrite(log_dir):
    assert sorted(p.name for p in log_dir.iterdir()) == sorted(checks.LOG_FILES)
    rows = np.loadtxt(log_dir / "run1.csv", delimiter=",", skiprows=1)
    steps = np.diff(rows[:, 0])
    assert rows.shape[1] == 5 and steps.min() > 0 and steps.std() / np.median(steps) > 0.02
    assert "mA" in (log_dir / "LOG.md").read_text()
    with pytest.raises(ValueError, match="exist already"):
        checks.exercise_log(log_dir)
    assert checks.exercise_log(log_dir, overwrite=True) == log_dir.resolve()
    # the same files again: the log is seeded
    assert np.array_equal(np.loadtxt(log_dir / "run1.csv", delimiter=",", skiprows=1), rows)


def test_exercise_log_bad_input(tmp_path):
    with pytest.raises(TypeError, match="folder must be a path"):
        checks.exercise_log(3)
    with pytest.raises(TypeError, match="overwrite must be True or False"):
        checks.exercise_log(tmp_path, overwrite="yes")
    with pytest.raises(ValueError, match="folder must be a folder of your own, outside the installed robidlib"):
        checks.exercise_log(Path(robidlib.__file__).parent / "data" / "x")


def test_check_config_accepts_the_right_configuration(config, log_dir, capsys):
    assert checks.check_config(config, log_dir)
    assert "✔" in capsys.readouterr().out


@pytest.mark.parametrize("change, says", [
    (lambda c: c["signals"]["torque"].update(sign=[1, 1]), "joint 2: the torques have the opposite sign"),
    (lambda c: c["signals"]["torque"].update(unit="A"), "joint 1: the torques are 1000 times"),
    (lambda c: c["signals"]["position"].update(unit="rad"), "joint 1: the positions are 57.3 times"),
    (lambda c: c["signals"]["position"].update(side="joint"), "the positions are 120 times"),
    (lambda c: c["signals"]["time"].update(unit="s"), r"time steps are 1e\+03 times"),
    (lambda c: c["transmission"].update(torque_constants=[0.07, 0.11]), "joint 1: the torques are"),
    (lambda c: c["records"][1].update(role="fit"), "run2.csv must be held out"),
    (lambda c: c["signals"]["position"].update(sign=[-1, 1]), "joint 1: the positions have the opposite sign"),
    (lambda c: c["records"].pop(), "no record reads run2.csv"),
    (lambda c: c["robot"].update(urdff="x"), "refused: .*unknown key 'urdff'"),
    (lambda c: c["signals"]["torque"].update(columns=["cur_sh", "cur_elbow"]), "cannot be read|refused"),
])
def test_check_config_names_each_mistake(config, log_dir, capsys, change, says):
    bad = copy.deepcopy(config)
    change(bad)
    assert not checks.check_config(bad, log_dir)
    out = capsys.readouterr().out
    assert out.startswith("✘") and __import__("re").search(says, out), out


@pytest.mark.parametrize("answer", [..., None, 3, "no-such-file.toml", [1, 2], {"robot": ...}])
def test_check_config_reports_bad_answers(answer, log_dir, capsys):
    assert not checks.check_config(answer, log_dir)
    assert capsys.readouterr().out.startswith("✘")


def test_check_config_refuses_a_folder_without_the_log(config, tmp_path):
    with pytest.raises(ValueError, match="folder must hold the log's files"):
        checks.check_config(config, tmp_path)
    with pytest.raises(TypeError, match="folder must be"):
        checks.check_config(config, 3)


def test_the_configuration_identifies_the_arm(arm_run):
    # the log's arm is the model that made it: the held-out error at the noise floor
    assert arm_run.heldout["wls"].overall < 0.02 and arm_run.records["run1"]["hygiene"]["resampled"] == 1


def test_check_signal_to_noise(arm_run, capsys):
    tr = arm_run.train
    snr = np.array([np.std(tr.tau[tr.keep[:, j], j]) for j in range(2)]) / arm_run.result.sigma_joint
    assert checks.check_signal_to_noise(snr, arm_run)
    assert checks.check_signal_to_noise(snr.astype(np.float32).tolist(), arm_run) is not None
    assert not checks.check_signal_to_noise(1 / snr, arm_run)
    assert "inverses" in capsys.readouterr().out.splitlines()[-1]
    assert not checks.check_signal_to_noise(snr * 1.01, arm_run)
    for bad in (..., None, "x", [1.0], [np.nan, 1.0], [1j, 1.0]):
        assert not checks.check_signal_to_noise(bad, arm_run)
    with pytest.raises(TypeError, match="ident must be a RobotIdentification"):
        checks.check_signal_to_noise(snr, "x")


def test_check_report_statements(capsys):
    from robidlib.checks._report import stored_answers

    ref = {k: v["true"] for k, v in stored_answers("own_robot")["statements"].items()}
    assert sorted(ref) == ["A", "B", "C", "D"]
    assert checks.check_report_statements(ref)
    for key in ref:
        wrong = dict(ref, **{key: not ref[key]})
        assert not checks.check_report_statements(wrong)
        assert capsys.readouterr().out.splitlines()[-1].startswith(f"✘ statement {key}")
    for bad in (..., None, "x", {"A": 1}, {}, {"A": ..., "B": True, "C": True, "D": True}):
        assert not checks.check_report_statements(bad)
