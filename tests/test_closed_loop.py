"""Closed-loop experiments and the estimators for them: IV, IDIM-IV, DIDIM, output error.

The claims: the simulation is exact where it must be (the recorded torque is the model's
torque at the recorded state); on exact closed-loop data every estimator returns the truth;
with exact regressors (no position noise: the loop injects nothing) IV agrees with least
squares; IV removes the bias of least squares on an errors-in-variables problem; and every
argument is checked.
"""
import numpy as np
import pytest

from robidlib.closed_loop import (ClosedLoopExperiment, ClosedLoopRecord, Controller, Sensors,
                                  computed_torque_controller, idim_data, mass_and_bias, pd_controller,
                                  simulate_closed_loop)
from robidlib.dynamics import forward_dynamics, mass_matrix
from robidlib.estimation import didim, idim_iv, iv, ols, output_error, robot_base_model
from robidlib.models import planar_2r
from robidlib.trajectories import fourier_series

FRICTION = [[0.3, 0.2], [0.1, 0.1]]


@pytest.fixture(scope="module")
def setup():
    arm = planar_2r(friction=FRICTION)
    model = robot_base_model(arm, friction=["viscous", "coulomb"])
    t = np.arange(0.0, 2.0, 0.005)
    ref = fourier_series(t, np.pi, [[0.6, 0.3], [0.5, -0.4]], [[0.2, 0.1], [-0.3, 0.2]], [0.2, 0.6])
    ctrl = pd_controller(model, model.params, ref, bandwidth=6.0)
    exp = ClosedLoopExperiment(model, ref, ctrl)
    return arm, model, ref, exp


def test_the_plant_is_the_robot(setup):
    arm, model, ref, exp = setup
    rec = simulate_closed_loop(exp, model.params)
    # the recorded torque is the model's torque at the recorded state, to round-off
    tau = np.einsum("njp,p->nj", model.regressor(rec.q, rec.qd, rec.qdd), model.params)
    assert np.allclose(tau, rec.tau, atol=1e-9 * np.abs(rec.tau).max())
    # and the recorded acceleration is the robot's forward dynamics (robidlib.dynamics)
    assert np.allclose(forward_dynamics(arm, rec.q, rec.qd, rec.tau), rec.qdd, atol=1e-8)
    # the mass matrix from the base parameters is the robot's
    M, _ = mass_and_bias(model, rec.q[:5], rec.qd[:5], np.repeat(model.params[None], 5, axis=0))
    assert np.allclose(M, mass_matrix(arm, rec.q[:5]), atol=1e-12)
    # the PD loop tracks the reference (a few degrees at most) and the sensors are exact
    assert np.abs(rec.q - ref.q).max() < 0.05
    assert np.array_equal(rec.q_meas, rec.q) and np.array_equal(rec.tau_meas, rec.tau)


def test_many_models_together_equal_one_by_one(setup):
    _, model, _, exp = setup
    P = np.vstack([model.params, 1.1 * model.params])
    both = simulate_closed_loop(exp, P)
    for k in range(2):
        one = simulate_closed_loop(exp, P[k])
        assert np.allclose(both.q[k], one.q, atol=1e-12) and np.allclose(both.tau[k], one.tau, atol=1e-9)
    assert both.draw(1).q.shape == one.q.shape and both.n_draws == 2


def test_a_faster_plant_gives_the_same_motion_with_more_substeps(setup):
    _, model, ref, exp = setup
    fine = ClosedLoopExperiment(model, ref, exp.controller, substeps=4)
    a, b = simulate_closed_loop(exp, model.params), simulate_closed_loop(fine, model.params)
    # RK4 at 5 ms against 1.25 ms: the same motion to far below the loop's tracking error (the
    # Coulomb term switches inside steps, so the error is first order there, not fourth)
    assert np.abs(a.q - b.q).max() < 0.01 * np.abs(a.q - ref.q).max()


def test_sensors(setup):
    _, model, _, exp = setup
    s = Sensors([1e-3, 1e-3], [0.0, 0.0], [0.0, 0.0])
    rec = simulate_closed_loop(exp, model.params, sensors=s)
    steps = rec.q_meas / 1e-3
    assert np.allclose(steps, np.round(steps), atol=1e-9)
    assert np.abs(rec.q_meas - rec.q).max() <= 0.5e-3 + 1e-12
    noisy = Sensors([0.0, 0.0], [1e-3, 1e-3], [0.1, 0.1])
    a = simulate_closed_loop(exp, model.params, sensors=noisy, rng=1)
    b = simulate_closed_loop(exp, model.params, sensors=noisy, rng=1)
    assert np.array_equal(a.q_meas, b.q_meas)                      # seeded
    e = a.tau_meas - a.tau
    assert abs(e.std() / 0.1 - 1) < 0.1                            # the torque noise asked for
    assert noisy.scaled(2.0).sigma_q.tolist() == [2e-3, 2e-3]
    # the noise enters the loop: the motion differs from the exact one
    assert np.abs(a.q - simulate_closed_loop(exp, model.params).q).max() > 1e-6


def test_computed_torque_tracks_better_than_pd_with_the_same_bandwidth(setup):
    _, model, ref, exp = setup
    ct = ClosedLoopExperiment(model, ref, computed_torque_controller(model, model.params, bandwidth=6.0))
    e_ct = np.abs(simulate_closed_loop(ct, model.params).q - ref.q).max()
    e_pd = np.abs(simulate_closed_loop(exp, model.params).q - ref.q).max()
    assert e_ct < 0.2 * e_pd


def test_exact_closed_loop_data_every_estimator_returns_the_truth(setup):
    _, model, _, exp = setup
    truth = model.params
    rec = simulate_closed_loop(exp, truth)
    s = np.arange(0, exp.n_samples)
    W = model.regressor(rec.q, rec.qd, rec.qdd).reshape(-1, truth.size)
    y = rec.tau.reshape(-1)
    start = truth * (1 + 0.1 * np.cos(np.arange(truth.size)))      # 10 % off
    tol = 1e-6 * np.abs(truth).max()
    assert np.allclose(ols(W, y).params, truth, atol=tol)
    e_iv = idim_iv(exp, W, y, start, samples=s)
    assert e_iv.info["converged"] and np.allclose(e_iv.params, truth, atol=tol)
    # DIDIM's fixed point is the truth: started there, it stays (to round-off)
    e_d = didim(exp, y, truth, samples=s, max_iter=1)
    assert np.allclose(e_d.params, truth, atol=tol)
    # from 10 % off, its steps (the motion's sensitivity neglected) lower the simulated torque's
    # residual at once, then approach the truth only slowly under this soft loop (6 Hz): a
    # property of the method, which the chapter's stiffer loop hides
    e_d = didim(exp, y, start, samples=s, tol=1e-6, max_iter=5)
    norms = e_d.info["residual_norms"]
    assert norms[1] < 0.5 * norms[0]
    assert np.abs(e_d.params - truth).max() < np.abs(start - truth).max()
    # output error, with the exact sensitivity, goes from 10 % off to within 1 % of the largest
    # parameter (the Coulomb switches of the simulation make its criterion non-smooth, and
    # the trust region stops short of the exact solution)
    e_oe = output_error(exp, rec.tau[::4].reshape(-1), start, samples=s[::4], max_nfev=100)
    assert np.allclose(e_oe.params, truth, atol=1e-2 * np.abs(truth).max())
    assert np.abs(e_oe.params - truth).max() < 0.1 * np.abs(start - truth).max()


def test_with_exact_regressors_iv_agrees_with_least_squares(setup):
    # no position noise: the loop injects nothing, W is exact (open loop in effect); only the
    # torque measurement is noisy: both estimators are unbiased and IV's instruments are
    # almost W itself, so they agree to a small fraction of a standard deviation
    _, model, _, exp = setup
    truth = model.params
    rec = simulate_closed_loop(exp, truth, sensors=Sensors([0.0, 0.0], [0.0, 0.0], [0.05, 0.05]), rng=3)
    W = model.regressor(rec.q, rec.qd, rec.qdd).reshape(-1, truth.size)
    y = rec.tau_meas.reshape(-1)
    e_ls = ols(W, y)
    e_iv = idim_iv(exp, W, y, e_ls.params)
    assert np.max(np.abs(e_iv.params - e_ls.params) / e_ls.std) < 0.05
    assert np.all(e_iv.std >= e_ls.std * (1 - 1e-6))                 # IV never has less variance
    assert np.array_equal(iv(W, y, W).params.round(10), e_ls.params.round(10))   # Z = W is least squares


def test_iv_removes_an_errors_in_variables_bias():
    rng = np.random.default_rng(0)
    lam = []
    for _ in range(50):                                              # 50 seeded draws
        x = rng.normal(size=(2000, 1))
        xm = x + 0.7 * rng.normal(size=(2000, 1))                    # noisy regressor
        y = 2.0 * x[:, 0] + 0.1 * rng.normal(size=2000)
        lam.append((ols(xm, y).params[0], iv(xm, y, x).params[0]))
    ls, ivs = np.array(lam).T
    # least squares is attenuated by 1 / (1 + 0.49): 1.34, far outside its spread; IV is not
    assert abs(ls.mean() - 2.0 / 1.49) < 5 * ls.std() / np.sqrt(50)
    assert abs(ivs.mean() - 2.0) < 5 * ivs.std() / np.sqrt(50)


def test_idim_data_drops_the_equations_near_reversals(setup):
    _, model, ref, exp = setup
    rec = simulate_closed_loop(exp, model.params)
    W, y, s, keep = idim_data(model, rec, cutoff=20.0)
    assert W.shape == (keep.sum(), model.n_params) and keep.all()
    thr = 0.05 * np.abs(ref.qd).max(axis=0)
    W2, y2, s2, keep2 = idim_data(model, rec, cutoff=20.0, velocity_threshold=thr)
    assert 0 < (~keep2).sum() < 0.2 * keep2.size and W2.shape[0] == keep2.sum()
    # exact positions through the pipeline: a small, non-zero error (filter, differences,
    # zero-order hold, the Coulomb switches): within 5 % of the largest parameter
    e = ols(W2, y2).params
    assert np.abs(e - model.params).max() < 0.05 * np.abs(model.params).max()


# ------------------------------------------------------------------------- bad input
def _raises(exc, match, f, *a, **k):
    with pytest.raises(exc, match=match):
        f(*a, **k)


def test_bad_input(setup):
    arm, model, ref, exp = setup
    p = model.params
    _raises(ValueError, "sigma_q", Sensors, [1e-3], [-1.0], [0.0])
    _raises(ValueError, "sigma_tau", Sensors, [1e-3, 1e-3], [0.0, 0.0], [np.nan, 0.0])
    _raises(ValueError, "sigma_q", Sensors, [1e-3, 1e-3], [0.0], [0.0, 0.0])
    _raises(TypeError, "resolution", Sensors, "x", [0.0], [0.0])
    _raises(ValueError, "factor", Sensors([0.0], [1.0], [1.0]).scaled, -1.0)
    _raises(ValueError, "kind", Controller, "pid", [1.0], [1.0])
    _raises(ValueError, "kp", Controller, "pd", [0.0], [1.0])
    _raises(ValueError, "kd", Controller, "pd", [1.0], [1.0, 2.0])
    _raises(ValueError, "feedforward", Controller, "computed_torque", [1.0], [1.0])
    _raises(TypeError, "model", ClosedLoopExperiment, "model", ref, exp.controller)
    _raises(TypeError, "reference", ClosedLoopExperiment, model, np.zeros(3), exp.controller)
    _raises(TypeError, "controller", ClosedLoopExperiment, model, ref, "pd")
    _raises(ValueError, "controller", ClosedLoopExperiment, model, ref, Controller("pd", [1.0] * 3, [1.0] * 3))
    _raises(ValueError, "feedforward", ClosedLoopExperiment, model, ref, Controller("pd", [1.0] * 2, [1.0] * 2, [1.0]))
    _raises(ValueError, "substeps", ClosedLoopExperiment, model, ref, exp.controller, 0)
    _raises(ValueError, "bandwidth", pd_controller, model, p, ref, bandwidth=-1.0)
    _raises(ValueError, "params", pd_controller, model, p[:3], ref)
    _raises(TypeError, "feedforward", pd_controller, model, p, ref, feedforward="yes")
    _raises(ValueError, "damping", computed_torque_controller, model, p, damping=0.0)
    _raises(ValueError, "params", computed_torque_controller, model, p[:-1])
    _raises(TypeError, "model", computed_torque_controller, "model", p)
    _raises(TypeError, "experiment", simulate_closed_loop, "exp", p)
    _raises(ValueError, "params", simulate_closed_loop, exp, p[:-1])
    _raises(ValueError, "params", simulate_closed_loop, exp, np.r_[p[:-1], np.nan])
    _raises(ValueError, "rng", simulate_closed_loop, exp, p, sensors=Sensors([0.0] * 2, [1e-3] * 2, [0.0] * 2))
    _raises(TypeError, "sensors", simulate_closed_loop, exp, p, sensors="exact")
    _raises(ValueError, "sensors", simulate_closed_loop, exp, p, sensors=Sensors([0.0], [0.0], [0.0]))
    _raises(TypeError, "rng", simulate_closed_loop, exp, p, sensors=Sensors([0.0] * 2, [1e-3] * 2, [0.0] * 2),
            rng="seed")
    _raises(ValueError, "params", simulate_closed_loop, exp, -p)        # no positive mass matrix
    rec = simulate_closed_loop(exp, p)
    _raises(ValueError, "cutoff", idim_data, model, rec, cutoff=150.0)
    _raises(ValueError, "velocity_threshold", idim_data, model, rec, cutoff=10.0, velocity_threshold=[-1.0, 0.0])
    _raises(ValueError, "trim", idim_data, model, rec, cutoff=10.0, trim=300)
    _raises(TypeError, "record", idim_data, model, "rec", cutoff=10.0)
    two = simulate_closed_loop(exp, np.vstack([p, p]))
    _raises(ValueError, "record", idim_data, model, two, cutoff=10.0)
    _raises(ValueError, "k", two.draw, 2)
    _raises(ValueError, "q", ClosedLoopRecord, rec.t, rec.q[:-1], rec.qd, rec.qdd, rec.tau, rec.q_meas, rec.tau_meas)
    _raises(ValueError, "params", mass_and_bias, model, rec.q[:2], rec.qd[:2], p[None])
    W, y, s, keep = idim_data(model, rec, cutoff=20.0)
    _raises(ValueError, "Z", iv, W, y, W[:, :-1])
    _raises(ValueError, "Z", iv, W, y, np.zeros_like(W))
    _raises(ValueError, "W", iv, W[:-1], y, W)
    _raises(TypeError, "experiment", idim_iv, "exp", W, y, p, samples=s, keep=keep)
    _raises(ValueError, "W", idim_iv, exp, W[:-2], y[:-2], p, samples=s, keep=keep)
    _raises(ValueError, "samples", idim_iv, exp, W, y, p, samples=s + 10_000, keep=keep)
    _raises(ValueError, "keep", idim_iv, exp, W, y, p, samples=s, keep=keep[:-1])
    _raises(ValueError, "params0", idim_iv, exp, W, y, p[:-1], samples=s, keep=keep)
    _raises(ValueError, "tol", idim_iv, exp, W, y, p, samples=s, keep=keep, tol=1e-300)
    _raises(ValueError, "max_iter", idim_iv, exp, W, y, p, samples=s, keep=keep, max_iter=0)
    _raises(ValueError, "y", didim, exp, y[:-1], p, samples=s, keep=keep)
    _raises(ValueError, "params0", didim, exp, y, -p, samples=s, keep=keep)      # cannot be simulated
    _raises(ValueError, "output", output_error, exp, y, p, samples=s, keep=keep, output="velocity")
    _raises(ValueError, "max_nfev", output_error, exp, y, p, samples=s, keep=keep, max_nfev=0)
    _raises(ValueError, "names", didim, exp, y, p, samples=s, keep=keep, names=["a"])


def test_the_stored_study_is_the_recipe():
    # one draw of the stored Monte Carlo, recomputed: the same least-squares estimate
    from robidlib.closed_loop_study import (chapter_setup, draw_seeds, level_sensors,
                                                       load_closed_loop_study)

    study, meta = load_closed_loop_study()
    r = meta["recipe"]
    s = chapter_setup(r)
    top = len(r["levels"]) - 1
    rec = simulate_closed_loop(s["experiment"], s["truth"], sensors=level_sensors(s["sensors"], r["levels"][top]),
                               rng=draw_seeds(r, top, [1])[0])
    W, y, _, _ = idim_data(s["model"], rec, cutoff=r["cutoff"], velocity_threshold=s["threshold"])
    assert np.allclose(ols(W, y).params, study[f"{top}/ls"][1], rtol=1e-6, atol=1e-9 * np.abs(s["truth"]).max())
    assert np.allclose(meta["truth"], s["truth"])
    comp, cmeta = load_closed_loop_study(name="closed_loop_methods")
    assert cmeta["level"] == top and cmeta["draw"] == 0
    assert set(cmeta["simulations"]) == {"ls", "iv", "didim", "oe"}
