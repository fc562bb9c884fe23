"""Stored EKF runs (robidlib/data/filter_runs): the recipe re-run gives the stored result, the
store round-trips, bad input is refused."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from robidlib.estimation import records
from robidlib.estimation.records import load_filter_runs, save_filter_runs, simulate_identification, stored_filter_runs
from robidlib.models import planar_2r, redundant_5dof
from robidlib.trajectories import FourierTrajectory


def test_doctests_run():
    result = doctest.testmod(records, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def _rerun(stored):
    meta = stored["meta"]
    assert meta["recipe"] == "robidlib.estimation.records.simulate_identification"
    robot = {"redundant_5dof": redundant_5dof}[meta["robot"]]()
    exc = FourierTrajectory(**meta["excitation"])
    kw = {k: meta[k] for k in ("duration", "dt", "sigma_q", "cad_error", "p0_rel", "p0_floor", "qd_noise",
                               "seed", "every")}
    return simulate_identification(robot, exc, settings=[tuple(s) for s in meta["settings"]], **kw)


def test_stored_5dof_runs_are_what_the_recipe_gives():
    stored = load_filter_runs("redundant_5dof_ekf")
    fresh = _rerun(stored)
    assert fresh["names"] == stored["names"]
    assert np.allclose(fresh["truth"], stored["truth"], rtol=1e-12, atol=1e-15)
    assert np.allclose(fresh["beta0"], stored["beta0"], rtol=1e-12, atol=1e-15)
    assert np.allclose(fresh["t"], stored["t"])
    for label, run in stored["runs"].items():
        new = fresh["runs"][label]
        # a recursion of 500 steps on another BLAS kernel moves the last digits only: ask for
        # agreement to a thousandth of the filter's own standard deviation
        assert np.all(np.abs(new["final"] - run["final"]) < 1e-3 * run["final_std"])
        assert np.allclose(new["final_std"], run["final_std"], rtol=1e-6)
        assert np.all(np.abs(new["params"] - run["params"]) < 1e-3 * run["std"] + 1e-12)


def test_stored_5dof_runs_show_the_euler_bias():
    """What chapter 8 says of them: RK4 ends inside its bands, Euler far outside."""
    stored = load_filter_runs("redundant_5dof_ekf")
    rk4, euler = stored["runs"]["rk4, cubic"], stored["runs"]["euler, hold"]
    assert np.all(np.abs(rk4["final"] - stored["truth"]) < 3 * rk4["final_std"])
    assert np.max(np.abs(euler["final"] - stored["truth"]) / euler["final_std"]) > 10


def test_save_and_load_round_trip(tmp_path):
    exc = FourierTrajectory(wf=1.2, a=[[0.6, 0.3], [0.8, -0.4]], b=[[0.2, -0.3], [-0.3, 0.2]], q0=[-1.5, 0.0])
    out = simulate_identification(planar_2r(), exc, duration=1.0, settings=[("euler", "hold")], every=10)
    assert out["t"].tolist() == pytest.approx([0.0, 0.2, 0.4, 0.6, 0.8, 0.98])
    path = save_filter_runs(out, "demo", directory=tmp_path)
    assert path.name == "demo.json" and stored_filter_runs(directory=tmp_path) == ["demo"]
    back = load_filter_runs("demo", directory=tmp_path)
    assert back["names"] == out["names"] and back["meta"] == out["meta"]
    assert np.array_equal(back["runs"]["euler, hold"]["final"], out["runs"]["euler, hold"]["final"])
    assert stored_filter_runs(directory=tmp_path / "nothing") == []


def test_bad_input(tmp_path):
    exc = FourierTrajectory(wf=1.2, a=[[0.6, 0.3], [0.8, -0.4]], b=[[0.2, -0.3], [-0.3, 0.2]], q0=[-1.5, 0.0])
    arm = planar_2r()
    with pytest.raises(TypeError, match="excitation"):
        simulate_identification(arm, None, duration=1.0)
    with pytest.raises(ValueError, match="duration"):
        simulate_identification(arm, exc, duration=-1.0)
    with pytest.raises(ValueError, match="at least 3 samples"):
        simulate_identification(arm, exc, duration=0.03)
    with pytest.raises(ValueError, match="sigma_q"):
        simulate_identification(arm, exc, duration=1.0, sigma_q=0.0)
    with pytest.raises(ValueError, match="settings"):
        simulate_identification(arm, exc, duration=1.0, settings=[("rk45", "hold")])
    with pytest.raises(ValueError, match="settings"):
        simulate_identification(arm, exc, duration=1.0, settings=[])
    with pytest.raises(ValueError, match="every"):
        simulate_identification(arm, exc, duration=1.0, every=0)
    with pytest.raises(ValueError, match="seed"):
        simulate_identification(arm, exc, duration=1.0, seed=1.5)
    one_joint = FourierTrajectory(wf=1.2, a=[[0.6, 0.3]], b=[[0.2, -0.3]], q0=[0.0])
    with pytest.raises(ValueError, match="2 joints"):
        simulate_identification(arm, one_joint, duration=1.0)
    with pytest.raises(ValueError, match="name 'nope' is not a stored filter record"):
        load_filter_runs("nope", directory=tmp_path)
    with pytest.raises(ValueError, match="name must be"):
        load_filter_runs("Bad Name")
    with pytest.raises(TypeError, match="name must be a string"):
        load_filter_runs(3)
    (tmp_path / "junk.json").write_text('{"format": "other"}')
    with pytest.raises(ValueError, match="not a stored filter record"):
        load_filter_runs("junk", directory=tmp_path)
    with pytest.raises(TypeError, match="result must be"):
        save_filter_runs([], "x", directory=tmp_path)
    with pytest.raises(ValueError, match="lacks"):
        save_filter_runs({"meta": {}}, "x", directory=tmp_path)
    out = simulate_identification(arm, exc, duration=0.2, settings=[("euler", "hold")])
    out["truth"] = out["truth"] * np.nan
    with pytest.raises(ValueError, match="finite"):
        save_filter_runs(out, "x", directory=tmp_path)
