"""Tests of robidlib.identification.physical_estimator: physical_ls through identify's hook.

Three groups: a simulated planar arm with known parameters (the hook must give a consistent
robot whose base parameters are those of WLS, in the model's column order, with its bounds),
bad input, and the real Staubli TX40 (its WLS estimate has no consistent realisation: the
constraints are active and the consistent model must still predict the held-out part).
"""

from __future__ import annotations

import numpy as np
import pytest

from robidlib.datasets import staubli_tx40
from robidlib.estimation import Estimate
from robidlib.identification import (
    DriveModel,
    PhysicalProblem,
    Settings,
    Transmission,
    identify,
    physical_estimator,
    prepare,
    run,
    validate,
)
from robidlib.models import planar_2r
from robidlib.params import consistency_report


def _record(noise=0.02, seed=0, offset=True):
    model = DriveModel(planar_2r(), offset=offset)
    ts = 2e-4
    t = np.arange(25000) * ts
    w = np.array([[1.1, 2.3, 3.7], [1.7, 2.9, 4.3]])
    q = np.stack([np.sin(np.outer(t, w[j])).sum(1) for j in range(2)], 1) * 0.3
    qd = np.gradient(q, ts, axis=0)
    qdd = np.gradient(qd, ts, axis=0)
    kw = dict(friction=[[0.5, 0.2], [0.3, 0.1]], rotor=[0.05, 0.02])
    if offset:
        kw["offsets"] = [0.1, -0.05]
    x = model.pack(**kw)
    tau = model.torques(q, qd, qdd, x) + noise * np.random.default_rng(seed).normal(size=q.shape)
    return model, prepare(t, q, tau, model, Settings(ts=ts)), x


@pytest.fixture(scope="module")
def planar():
    model, data, x = _record()
    return model, data, x, identify(data, physical=physical_estimator())


def test_hook_gives_a_consistent_robot_with_the_wls_base_parameters(planar):
    model, data, x, res = planar
    est = res.estimate("physical")
    assert isinstance(est, Estimate) and est.method == "physical_ls"
    assert est.info["status"] == "optimal" and est.info["consistent"]
    assert est.names == model.names and est.params.shape == (model.p,)
    assert np.all(np.isnan(est.rel_std))
    # the model's own order: friction and rotor values sit at their names
    for name in ("fv1", "fc2", "Ia1", "off2"):
        k = model.names.index(name)
        assert abs(est.params[k] - x[k]) < 0.05 * max(abs(x[k]), 0.1), name
    # rich data and a consistent truth: the constraints are inactive, beta is the WLS estimate
    # to the solver's tolerance (a small fraction of the estimates' standard deviations)
    assert np.allclose(res.full_base_vector("physical"), res.wls.params, atol=0.05 * res.wls.std.min())
    assert np.array_equal(est.info["beta"], res.full_base_vector("physical"))
    assert est.info["base"] is res.base
    # every link a possible rigid body (strictly: the planar arm's links have volume)
    assert consistency_report(est.params[:20]).consistent
    # predictions: the standard parameters and the base ones give the same torques
    assert np.allclose(res.predict(data, "physical"), data.Y @ est.params, atol=1e-9 * np.abs(data.tau).max())
    v = validate(res, data, methods=("wls", "physical"))
    assert abs(v.overall["physical"] - v.overall["wls"]) < 1e-3 * v.overall["wls"] + 1e-9


def test_bounds_reach_the_drive_parameters():
    model, data, _ = _record(offset=False)
    res = identify(data, physical=physical_estimator(bounds={"Ia2": (0.0, 0.0), "fc1": (0.0, 0.1)}))
    est = res.physical
    k_ia2, k_fc1 = model.names.index("Ia2"), model.names.index("fc1")
    assert abs(est.params[k_ia2]) < 1e-6 and est.params[k_fc1] <= 0.1 + 1e-6
    assert est.info["upper"][k_ia2] == 0.0 and est.info["upper"][k_fc1] == 0.1
    # the defaults: rotor inertias and friction >= 0, in the model's order
    assert est.info["lower"][model.names.index("Ia1")] == 0.0
    assert est.info["lower"][model.names.index("fv2")] == 0.0
    # a bound the true values violate costs fit: the residual grows beyond least squares'
    assert est.info["residual_norm"] > 1.01 * est.info["ols_residual_norm"]


def test_run_validates_the_physical_estimate():
    model = DriveModel(planar_2r(), offset=False)
    ts = 2e-4
    t = np.arange(30000) * ts
    q = 0.3 * np.column_stack([np.sin(1.3 * t) + np.sin(3.1 * t), np.sin(1.9 * t) + np.sin(4.3 * t)])
    qd = np.gradient(q, ts, axis=0)
    x = model.pack(friction=[[0.5, 0.2], [0.3, 0.1]], rotor=[0.05, 0.02])
    tau = model.torques(q, qd, np.gradient(qd, ts, axis=0), x)
    tau = tau + 0.01 * np.random.default_rng(3).normal(size=tau.shape)
    out = run(t, q, tau, model, Settings(ts=ts), physical=physical_estimator())
    assert "physical" in out.validation.overall and "physical" in out.training.overall
    assert out.validation.overall["physical"] < 0.05
    plain = run(t, q, tau, model, Settings(ts=ts))
    assert "physical" not in plain.validation.overall


def test_bad_input(planar):
    model, data, _, res = planar
    for kw, exc, match in (
        (dict(reg=-1.0), ValueError, "reg"),
        (dict(margin=-0.1), ValueError, "margin"),
        (dict(consistency="strict"), ValueError, "consistency"),
        (dict(drives_nonnegative=1), TypeError, "drives_nonnegative"),
        (dict(bounds=[("Ia1", 0, 1)]), TypeError, "bounds"),
    ):
        with pytest.raises(exc, match=match):
            physical_estimator(**kw)
    with pytest.raises(TypeError, match="PhysicalProblem"):
        physical_estimator()((data.Y, data.tau))
    with pytest.raises(ValueError, match="unknown parameter"):
        identify(data, physical=physical_estimator(bounds={"Ia9": (0.0, 1.0)}))
    viscous = DriveModel(planar_2r(), friction=("viscous",))
    t = np.arange(20000) * 2e-4
    q = 0.3 * np.column_stack([np.sin(1.3 * t), np.sin(1.9 * t)])
    d2 = prepare(t, q, np.sin(np.outer(t, [1.0, 2.0])), viscous, Settings(ts=2e-4))
    with pytest.raises(ValueError, match="fc1"):
        identify(d2, physical=physical_estimator())
    # 'physical' is only an estimate when the hook returned one
    plain = identify(data)
    with pytest.raises(ValueError, match="no physical hook"):
        plain.estimate("physical")
    other = identify(data, physical=lambda pb: np.linalg.lstsq(pb.W, pb.y, rcond=None)[0])
    with pytest.raises(ValueError, match="ndarray"):
        other.predict(data, "physical")
    with pytest.raises(ValueError, match="unknown estimate"):
        validate(plain, data, methods=("physics",))


def test_the_hook_sees_a_physical_problem(planar):
    model, data, _, _ = planar
    seen = {}

    def spy(problem):
        seen["p"] = problem
        return physical_estimator()(problem)

    res = identify(data, physical=spy)
    assert isinstance(seen["p"], PhysicalProblem)
    assert np.allclose(res.physical.info["prior"], model.pack())


# --------------------------------------------------------------------------- the real TX40
@pytest.fixture(scope="module")
def tx40():
    tx = staubli_tx40()
    model = DriveModel(tx.robot, Transmission(tx.motor_matrix))
    settings = Settings.from_figaroh(tx.settings, joint_offsets=tx.joint_offsets)
    return model, run(tx.t, tx.q_motor, tx.tau_motor, model, settings, physical=physical_estimator())


def test_tx40_consistent_model_predicts_as_well_as_wls(tx40):
    """Measured: the WLS estimate of the TX40's first 70 % has no consistent realisation (the
    constrained weighted residual is 0.56 % larger than least squares'); the consistent model
    predicts the held-out part with 6.4 % error, as WLS does, and its largest base-parameter
    change is 2.9 WLS standard deviations (XY4, a product of inertia of the wrist). Bounds:
    the error within 5 % of WLS's (relative), every change within 5 standard deviations."""
    model, out = tx40
    est = out.result.physical
    assert est.info["status"] == "optimal" and est.info["consistent"]
    assert est.info["residual_norm"] > (1 + 1e-6) * est.info["ols_residual_norm"]
    v = out.validation
    assert abs(v.overall["physical"] - v.overall["wls"]) < 0.05 * v.overall["wls"]
    wls = out.result.wls
    z = (out.result.full_base_vector("physical") - wls.params) / wls.std
    assert np.abs(z).max() < 5.0
    drives = np.r_[model.blocks["rotor"], model.blocks["coupled"]]
    assert np.all(est.params[drives] >= -1e-9)
    assert np.all(est.params[model.blocks["inertial"][::10]] >= -1e-9)     # masses
