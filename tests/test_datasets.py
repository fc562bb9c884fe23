"""Tests of robidlib.datasets: the Staubli TX40 record, its checksums, model and transmission."""

from __future__ import annotations

import fnmatch
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from _required import required

from robidlib.datasets import (
    JOINT_OFFSETS,
    data_dir,
    staubli_tx40,
    staubli_tx40_published,
    to_figaroh_convention,
    verify_files,
)
from robidlib.datasets.staubli_tx40 import FILES
from robidlib.dynamics import inverse_dynamics
from robidlib.identification import DriveModel, Transmission
from robidlib.robot import SerialRobot, forward_kinematics

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def tx():
    return staubli_tx40()


def test_files_are_verified_and_shapes_are_right(tx):
    assert verify_files() == FILES
    assert tx.q_motor.shape == tx.tau_motor.shape == (45000, 6)
    assert tx.ts == 0.0002 and tx.n_samples == 45000
    assert np.allclose(np.diff(tx.t), tx.ts) and tx.t[0] == 0.0
    assert np.all(np.isfinite(tx.q_motor)) and np.all(np.isfinite(tx.tau_motor))
    # the arrays handed out cannot be changed in place
    with pytest.raises(ValueError):
        tx.q_motor[0, 0] = 1.0
    assert set(tx.files) == set(FILES)


def test_every_shipped_file_is_package_data():
    """pyproject's package-data glob covers every file of the data folder (so the wheel has them)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: pytest brings tomli
        import tomli as tomllib
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    globs = package_data.get("robidlib.datasets", [])
    assert globs, "pyproject.toml must list the datasets' package data"
    shipped = {p.relative_to(data_dir().parents[1]).as_posix() for p in data_dir().iterdir()}
    assert {"data/staubli_tx40/" + name for name in FILES} | {"data/staubli_tx40/README.md",
                                                              "data/staubli_tx40/published.yaml"} <= shipped
    for rel in shipped:
        assert any(fnmatch.fnmatch(rel, g) for g in globs), rel


def _copy(tmp_path: Path) -> Path:
    dst = tmp_path / "tx40"
    shutil.copytree(data_dir(), dst)
    for p in dst.iterdir():
        p.chmod(0o644)
    return dst


def test_missing_and_altered_files_are_named(tmp_path):
    folder = _copy(tmp_path)
    assert staubli_tx40(folder).q_motor.shape == (45000, 6)   # an intact copy loads
    data = (folder / "curr_data.csv").read_bytes()
    (folder / "curr_data.csv").write_bytes(data.replace(b"-0.0029698", b"-0.0029699", 1))
    with pytest.raises(ValueError, match=r"'curr_data.csv'.*altered.*sha256"):
        staubli_tx40(folder)
    with pytest.raises(ValueError, match="curr_data.csv"):
        verify_files(folder)
    # without verification the altered file loads (and differs)
    assert staubli_tx40(folder, verify=False).tau_motor[0, 0] == pytest.approx(-0.0029699)
    (folder / "curr_data.csv").write_bytes(data)              # restored: loads again
    assert staubli_tx40(folder).tau_motor[0, 0] == pytest.approx(-0.0029698)
    (folder / "tx40_mdh_modified.urdf").unlink()
    with pytest.raises(FileNotFoundError, match="tx40_mdh_modified.urdf"):
        staubli_tx40(folder)
    with pytest.raises(FileNotFoundError, match="tx40_mdh_modified.urdf"):
        staubli_tx40(folder, verify=False)


def test_bad_arguments(tmp_path):
    with pytest.raises(TypeError, match="directory"):
        staubli_tx40(3)
    with pytest.raises(FileNotFoundError, match="not a folder"):
        staubli_tx40(tmp_path / "nowhere")
    with pytest.raises(TypeError, match="verify"):
        staubli_tx40(verify="yes")
    with pytest.raises(FileNotFoundError, match="missing"):
        verify_files(tmp_path)     # an empty folder


def test_urdf_is_the_modified_dh_tx40(tx):
    r = tx.robot
    assert isinstance(r, SerialRobot) and r.n == 6 and r.joint_types == ("revolute",) * 6
    # Khalil's modified DH of the TX40: d3 = 0.225, r3 = 0.035, r4 = 0.225 (base height 0.32);
    # the URDF adds a pi offset about z6
    dh = SerialRobot.from_dh("RRRRRR", a=[0, 0, 0.225, 0, 0, 0],
                             alpha=[0, -np.pi / 2, 0, np.pi / 2, -np.pi / 2, np.pi / 2],
                             d=[0.32, 0, 0.035, 0.225, 0, 0], theta=[0, 0, 0, 0, 0, np.pi])
    assert np.allclose(r.joint_origins, dh.joint_origins, atol=1e-9)
    # at the model's zero the upper arm is horizontal and the forearm vertical; at the
    # encoders' zero (q = JOINT_OFFSETS) the arm stands straight up (the TX40's candle pose)
    T = forward_kinematics(r, np.zeros(6))
    assert np.allclose(T[4, :3, 3], [0.225, 0.035, 0.32 + 0.225], atol=1e-9)
    T = forward_kinematics(r, np.array(JOINT_OFFSETS))
    assert np.allclose(T[4, :3, 3], [0.0, 0.035, 0.32 + 0.225 + 0.225], atol=1e-9)
    # CAD masses of the URDF
    assert np.allclose(r.link_params[:, 0], [10.5, 3.6, 4.07, 3.62, 1.02, 0.2])
    assert np.allclose(r.gravity, [0, 0, -9.81])


def test_urdf_dynamics_agree_with_pinocchio(tx):
    pin = required("pinocchio")
    model = pin.buildModelFromUrdf(tx.files["tx40_mdh_modified.urdf"])
    data = model.createData()
    rng = np.random.default_rng(3)
    for _ in range(5):
        q, qd, qdd = rng.uniform(-1, 1, (3, 6))
        ours = inverse_dynamics(tx.robot, q, qd, qdd)
        theirs = pin.rnea(model, data, q, qd, qdd)
        assert np.allclose(ours, theirs, rtol=1e-9, atol=1e-9)


def test_motor_to_joint_transform_and_coupling(tx):
    R = tx.motor_matrix
    assert np.array_equal(np.diag(R), tx.gear_ratios) and tx.gear_ratios.tolist() == [32, 32, 45, -48, 45, 32]
    off = R - np.diag(np.diag(R))
    assert np.count_nonzero(off) == 1 and off[5, 4] == 32.0        # motor 6 turns with joint 5
    assert np.array_equal(tx.torque_matrix, R.T)                     # power conservation
    q = tx.q_joint()
    assert np.allclose(q - np.array(JOINT_OFFSETS), np.linalg.solve(R, tx.q_motor.T).T)
    tr = Transmission(R)
    assert np.allclose(tr.motor_positions(tr.joint_positions(tx.q_motor)), tx.q_motor, atol=1e-12)
    assert np.allclose(tr.joint_torques(tx.tau_motor), tx.tau_joint())
    # moving joint 5 alone turns motors 5 and 6; a torque on motor 6 loads joints 5 and 6
    assert np.allclose(tr.motor_positions(np.eye(6)[4]), [0, 0, 0, 0, 45, 32])
    assert np.allclose(tr.joint_torques(np.eye(6)[5]), [0, 0, 0, 0, 32, 32])
    # power is conserved: c . qd_motor == tau . qd
    rng = np.random.default_rng(0)
    qd, c = rng.normal(size=(2, 50, 6))
    assert np.allclose(np.sum(c * tr.motor_positions(qd), 1), np.sum(tr.joint_torques(c) * qd, 1))
    # the record starts at rest, near the URDF's zero after the calibration offsets
    assert np.all(np.abs(q[0]) < 1e-3)


def test_settings_are_figaroh_s(tx):
    ident = tx.identification_settings
    assert ident["processing_params"]["ts"] == 0.0002
    assert ident["robot_params"]["ratio_essential"] == 30.0
    # FIGAROH's zero-velocity thresholds are 1 % of the TX40's joint speed limits in deg/s,
    # which the URDF truncates to 3 decimals in rad/s
    dq = np.array(ident["robot_params"]["dq_lim_def"])
    assert np.allclose(dq, 0.01 * np.deg2rad([287, 287, 430, 410, 320, 700]), rtol=1e-6)
    assert np.allclose(dq, 0.01 * tx.robot.qd_limits, rtol=1e-3)


def _khalil_symbols(expr: str) -> sp.Expr:
    table = {"Ixx": "XX", "Iyy": "YY", "Izz": "ZZ", "Ixy": "XY", "Ixz": "XZ", "Iyz": "YZ", "mx": "MX",
             "my": "MY", "mz": "MZ", "m": "M", "fv": "FV", "fs": "FS", "off": "OFF", "Ia": "IA",
             "Iam": "IAM", "fvm": "FVM", "fsm": "FSM"}
    out = sp.sympify(expr)
    subs = {}
    for s in out.free_symbols:
        stem = str(s).rstrip("0123456789")
        subs[s] = sp.Symbol(table[stem] + str(s)[len(stem):])
    return out.subs(subs)


def test_published_values_have_sources_and_match_our_regrouping(tx):
    pub = staubli_tx40_published()
    assert set(pub["sources"]) == {"figaroh_base", "figaroh_essential"}
    assert pub["not_found"]
    bp = DriveModel(tx.robot, Transmission(tx.motor_matrix)).base_parameters()
    ours = dict(zip(bp.base_names, bp.as_sympy()))
    for key, src in pub["sources"].items():
        assert src["citation"] and src["where"] and src["columns"]
        for name, entry in src["parameters"].items():
            assert name in ours, name                       # every published name is one of ours
            assert entry["unit"] and entry["ols_rel_std"] > 0 and entry["wls_rel_std"] > 0
            # FIGAROH's regrouping equals ours to its printed digits (5 significant)
            diff = sp.expand(_khalil_symbols(entry["relation"]) - ours[name])
            coeffs = [abs(float(c)) for c in sp.Poly(diff, *diff.free_symbols).coeffs()] if diff.free_symbols else []
            assert all(c < 5e-5 for c in coeffs), (name, diff)
    # the essential set is a subset of the base set
    assert set(pub["sources"]["figaroh_essential"]["parameters"]) <= set(pub["sources"]["figaroh_base"]["parameters"])


def test_to_figaroh_convention():
    names = ("IA5", "IA6", "FV5", "FV6", "IAM6", "FVM6", "FSM6")
    x = np.array([0.04, 0.0, 1.25, 0.05, 0.01, 0.6, 2.0])
    C = np.diag(np.arange(1.0, 8.0))
    n2, y, C2 = to_figaroh_convention(names, x, C)
    assert n2 == names
    assert np.allclose(y, [0.05, 0.01, 1.85, 0.65, 0.01, 0.6, 2.0])
    assert np.isclose(C2[0, 0], 1.0 + 5.0) and np.isclose(C2[0, 4], 5.0) and np.isclose(C2[2, 3], 6.0)
    # names it does not concern pass unchanged; no covariance -> None
    assert to_figaroh_convention(["ZZ1R"], [1.2])[1].tolist() == [1.2]
    assert to_figaroh_convention(["ZZ1R"], [1.2])[2] is None
    with pytest.raises(ValueError, match="values"):
        to_figaroh_convention(["A", "B"], [1.0])
    with pytest.raises(ValueError, match="cov"):
        to_figaroh_convention(["A"], [1.0], np.eye(2))
    with pytest.raises(ValueError, match="finite"):
        to_figaroh_convention(["A"], [np.nan])
