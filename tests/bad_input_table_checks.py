"""Bad-input table of ``robidlib.checks`` (see ``bad_input_sweep``).

A check's contract has two sides: a bad *answer* (kind :class:`Answer`) is reported, ✘ and
``False``, never raised (the student's notebook keeps running); bad *data* the chapter gives
the check (a robot, a regressor, a tolerance) is a misuse of the check and raises a clear
``ValueError``/``TypeError`` like every other function.
"""

from __future__ import annotations

import numpy as np

from pathlib import Path

from bad_input_sweep import E, Answer, Choice, Flag, Int, Names, NonNeg, Obj, Path_, Pos, Real, Vec

#: Answer strings a check must never execute (category "hostile"): code, attribute access,
#: a lambda, a number with a billion digits, a very long input and a very deep one.
HOSTILE = (
    "__import__('os').system('echo pwned')",
    "m1.__class__.__base__.__subclasses__()",
    "(lambda: 1)()",
    "9**9**9",
    "m1*" * 20000 + "m1",
    "(" * 5000 + "m1" + ")" * 5000,
    "m1; import os",
    "exec('1')",
    "[m1 for m1 in range(10**9)]",
    "m1 if 1 else m2",
    "1e999999*m1",
    "m1\x00",
)


def entries(o):  # noqa: C901 - one table
    import robidlib as rl
    from robidlib.checks import (adaline, base_parameters as bpc, ekf, excitation, hopfield, least_squares,
                                 mixed_coordinates as mc, pendulum, physical, tx40, validation)
    from robidlib.models import Pendulum, planar_2r
    from robidlib.params import link_params, pseudo_inertia

    T = []
    add = T.append
    fn = lambda v: Answer(v, like="func")  # noqa: E731
    rng = np.random.default_rng(0)
    W = rng.normal(size=(40, 3))
    y = W @ [1.0, -1.0, 0.5] + 0.01 * rng.normal(size=40)
    r2 = planar_2r()

    # ------------------------------------------------------------------ chapter 1: pendulum
    add(E("checks.pendulum:check_coulomb_regressor", pendulum.check_coulomb_regressor,
          fn(lambda q, qd, qdd: np.column_stack([qdd, np.sin(q), qd, np.sign(qd)])), argnames=("func",)))
    p = Pendulum()
    add(E("checks.pendulum:check_equivalent_pendulums", pendulum.check_equivalent_pendulums,
          Obj(p, extra=(("negative", (-1.0, 1.0, 0.25)), ("nan", (np.nan, 1.0, 0.25)))),
          Answer((0.0175, 2.0, 0.25)), argnames=("p1", "p2"), g=Pos(9.81)))
    add(E("checks.pendulum:check_sqrt_n_scaling", pendulum.check_sqrt_n_scaling, Answer([100, 200, 400]),
          Answer([1.0, 0.7, 0.5]), argnames=("n_samples", "std"), tol=Pos(0.1)))
    add(E("checks.pendulum:check_excitation_design", pendulum.check_excitation_design,
          fn(lambda t: (0.5 * np.sin(2 * t), np.cos(2 * t), -2 * np.sin(2 * t))), argnames=("motion",),
          q_max=Pos(0.5), target=Pos(2.0), qd_max=Pos(3.0), qdd_max=Pos(15.0)))

    # ------------------------------------------------------------------ chapter 2: base parameters
    good = ["Izz1 + 0.25*m2", "mx1 + 0.5*m2", "my1", "Izz2", "mx2", "my2"]
    hostile = tuple(("hostile", [h] + good[1:]) for h in HOSTILE) + (("hostile", HOSTILE[0]),)
    add(E("checks.base_parameters:check_base_parameters", bpc.check_base_parameters, Obj(r2),
          Answer(good, like="any", extra=hostile + (("unknown", ["no_such_name"] + good[1:]),
                                                     ("shape", good[:-1]), ("empty", []))),
          argnames=("robot", "answer")))
    bp = o["bp"]
    add(E("checks.base_parameters:check_null_direction", bpc.check_null_direction, Obj(r2),
          Answer(bp.null_space_direction(0)), argnames=("robot", "d")))
    add(E("checks.base_parameters:check_tolerance", bpc.check_tolerance, Obj(r2), Answer(1e-6, like="scalar"),
          argnames=("robot", "tol")))
    bp_svd = rl.base_parameters(r2, method="svd", rng=0)
    B = np.linalg.lstsq(np.stack([bp.beta(e) for e in np.eye(20)], 1).T,
                        np.stack([bp_svd.beta(e) for e in np.eye(20)], 1).T, rcond=None)[0].T
    add(E("checks.base_parameters:check_svd_qr_map", bpc.check_svd_qr_map, Obj(bp_svd), Obj(bp), Answer(B),
          argnames=("bp_svd", "bp_qr", "B")))

    # ------------------------------------------------------------------ chapter 3: least squares
    add(E("checks.least_squares:check_augmented_qr", least_squares.check_augmented_qr,
          fn(lambda W_, y_: (np.linalg.lstsq(W_, y_, rcond=None)[0], 1.0)), argnames=("func",)))
    add(E("checks.least_squares:check_rel_std", least_squares.check_rel_std,
          fn(lambda W_, y_: np.ones(W_.shape[1])), argnames=("func",)))
    add(E("checks.least_squares:check_joint_sigmas", least_squares.check_joint_sigmas,
          fn(lambda W_, y_, n: np.ones(n)), argnames=("func",)))
    add(E("checks.least_squares:check_experiment_duration", least_squares.check_experiment_duration,
          Answer(500.0, like="scalar"), Pos(1e-2), Pos(1e-4), Pos(5.0),
          argnames=("duration", "lam_rich", "lam_poor", "t_rich")))

    # ------------------------------------------------------------------ chapter 4: excitation
    add(E("checks.excitation:check_map_estimate", excitation.check_map_estimate,
          fn(lambda W_, y_, s, b0, ps: b0), argnames=("func",)))
    add(E("checks.excitation:check_gcv", excitation.check_gcv, fn(lambda W_, y_, mu, b0: 1.0), argnames=("func",)))
    add(E("checks.excitation:check_telescope_inertia", excitation.check_telescope_inertia, fn(lambda q5: 1.0),
          argnames=("func",)))

    # ------------------------------------------------------------------ chapter 5: physical consistency
    add(E("checks.physical:check_pseudo_inertia", physical.check_pseudo_inertia, fn(pseudo_inertia),
          argnames=("func",)))
    good_link = link_params(1.0, [0.1, 0, 0], [0.02, 0.03, 0.04, 0, 0, 0])
    bad_link = link_params(1.0, [0.1, 0, 0], [0.01, 0.01, 0.05, 0, 0, 0])
    add(E("checks.physical:check_broken_conditions", physical.check_broken_conditions, Vec(np.r_[good_link, bad_link]),
          Answer({2: "triangle inequality"}, like="any", extra=(("unknown", {2: "no such condition"}),
                                                              ("type", {"2": "mass"}), ("bool", {True: "mass"}))),
          argnames=("pi", "answer")))
    rf = planar_2r(friction=[[0.2, 0.1], [0.1, 0.05]])
    from robidlib.regressor import friction_regressor

    q, qd, qdd = rl.random_states(rf, 60, rng=3)
    Yf = np.concatenate([rl.regressor(rf, q, qd, qdd), friction_regressor(qd)], axis=-1)
    truth = np.r_[rf.params, rf.friction.ravel()]
    Wf, yf = rl.stack(Yf, Yf @ truth)
    add(E("checks.physical:check_mass_bound", physical.check_mass_bound, Vec(Wf), Vec(yf), Obj(rf),
          Answer(truth), Int(2, huge=10**12), Vec((0.9, 1.1)),
          argnames=("W", "y", "robot", "params", "link", "bounds")))
    bpf = rl.base_parameters(rf, friction=True, rng=0)
    bt = bpf.beta(truth)
    add(E("checks.physical:check_prior_and_lmi", physical.check_prior_and_lmi, fn(lambda W_, y_: truth),
          Obj([(Wf, yf)], extra=(("empty", []), ("shape", [(Wf[:, :5], yf)]))),
          Obj(bpf, extra=(("foreign", bp),)), Obj(rf, extra=(("foreign", rl.models.ur5()),)),
          Vec(bt), Vec(bt), Vec(0.1 * np.abs(bt) + 0.01),
          argnames=("estimator", "problems", "bp", "robot", "beta_true", "beta_prior", "prior_std")))

    # ------------------------------------------------------------------ chapter 6: Adaline
    add(E("checks.adaline:check_stable_rate", adaline.check_stable_rate, Vec(W, skip=("shape",)),
          Answer(0.05, like="scalar"),
          argnames=("W", "rate")))
    add(E("checks.adaline:check_delta_rule_epoch", adaline.check_delta_rule_epoch,
          fn(lambda w, W_, d, gamma: w + gamma * W_.T @ (d - W_ @ w)), argnames=("func",)))
    add(E("checks.adaline:check_epoch_prediction", adaline.check_epoch_prediction, Vec(W),
          Answer(100, like="scalar"), argnames=("W", "epochs"), tol=Pos(1e-6)))
    add(E("checks.adaline:check_early_stopping", adaline.check_early_stopping, Answer(3, like="scalar"), Vec(W),
          Vec(y), Vec([0.9, -0.9, 0.4]), Vec([1.0, -1.0, 0.5]), argnames=("epochs", "W", "y", "w0", "truth"),
          rate=Pos(0.9)))

    # ------------------------------------------------------------------ chapter 7: Hopfield
    Phi = rng.normal(size=(30, 3)) * [1.0, 0.5, 2.0]
    tau = Phi @ np.array([0.3, -1.0, 0.7])
    add(E("checks.hopfield:check_hopfield_connections", hopfield.check_hopfield_connections,
          Answer(-Phi.T @ Phi / 30), Answer(Phi.T @ tau / 30), Vec(Phi, skip=("shape",)), Vec(tau),
          argnames=("W", "I", "Phi", "tau")))   # a Phi with one more column is another problem: the answer is wrong
    add(E("checks.hopfield:check_slowest_time_constant", hopfield.check_slowest_time_constant,
          Answer(4.0, like="scalar"), Vec(Phi), Pos(2.0), Pos(4.0), argnames=("value", "Phi", "alpha", "beta")))
    tt = np.linspace(0.0, 6.0, 61)
    S = np.where(tt[:, None] < 3.2, [1.0, 2.0], [1.5, 2.0])
    add(E("checks.hopfield:check_tracking", hopfield.check_tracking, Answer(tt), Answer(S), Real(3.0),
          Vec([1.5, 2.0], skip=("shape",)), argnames=("t", "S", "t_change", "theta_after"), settle=Pos(1.5), tol=Pos(0.05)))
    Ns = 60
    ts_ = np.arange(Ns) * 0.05
    Phi3 = rng.normal(size=(Ns, 1, 2))
    theta = np.where(ts_[:, None] < 1.5, [1.0, 2.0], [1.5, 2.0])
    tau3 = np.einsum("knp,kp->kn", Phi3, theta)
    add(E("checks.hopfield:check_window_design", hopfield.check_window_design, Answer(0.05, like="scalar"),
          Answer(10, like="scalar"), Vec(Phi3), Vec(tau3), Vec(ts_), Pos(4.0, skip=("shape",)), Real(1.5),
          Vec([1.5, 2.0]),
          argnames=("beta", "window", "Phi", "tau", "t", "alpha", "t_change", "theta_after"),
          settle=Pos(1.0), tol=Pos(0.05)))

    # ------------------------------------------------------------------ chapter 8: EKF
    dts = [0.04, 0.02, 0.01, 0.005]
    add(E("checks.ekf:check_euler_bias_order", ekf.check_euler_bias_order, Answer(dts),
          Answer([3e-2 * h / 0.04 for h in dts]), argnames=("dts", "biases")))
    add(E("checks.ekf:check_unobservable_at_rest", ekf.check_unobservable_at_rest,
          Answer(["a3", "a1"], like="any", extra=(("unknown", ["zz"]), ("type", [3]))), argnames=("names",),
          q0=Real(0.5)))
    add(E("checks.ekf:check_nees_function", ekf.check_nees_function,
          fn(lambda e, P: float(np.asarray(e) @ np.linalg.solve(P, e))), argnames=("func",)))
    add(E("checks.ekf:check_arm_process_noise", ekf.check_arm_process_noise, Answer(np.zeros((12, 12))),
          argnames=("Q",), q=Vec((-np.pi / 2, 0.0)), sigma_tau=Vec((0.02, 0.01)), dt=Pos(0.02)))

    # ------------------------------------------------------------------ chapter 9: validation
    add(E("checks.validation:check_agreement_index", validation.check_agreement_index,
          fn(rl.validation.agreement_index), argnames=("func",)))
    add(E("checks.validation:check_parameter_error", validation.check_parameter_error,
          fn(rl.validation.relative_parameter_error), argnames=("func",)))
    add(E("checks.validation:check_prior_method", validation.check_prior_method, fn(rl.benchmark.fit_ls),
          Obj(o["problem"]), argnames=("func", "problem")))

    # ------------------------------------------------------------------ chapter 10: mixed coordinates
    add(E("checks.mixed_coordinates:check_reduced_to_full", mc.check_reduced_to_full,
          fn(lambda qr: np.r_[qr, np.cross(qr[3:6], qr[6:9])]), argnames=("func",)))
    add(E("checks.mixed_coordinates:check_body_mass_matrix", mc.check_body_mass_matrix,
          fn(lambda m, inertia: np.eye(12)), argnames=("func",)))
    w = np.logspace(-2, -6, 5)
    add(E("checks.mixed_coordinates:check_weight_scaling", mc.check_weight_scaling, Answer(w), Answer(0.01 * w),
          argnames=("weights", "violations")))
    sys_, ref = o["sys"], o["ref"]
    add(E("checks.mixed_coordinates:check_consistent_velocities", mc.check_consistent_velocities, Obj(sys_),
          Answer(ref.q), Answer(ref.qd), Answer(ref.phid), argnames=("system", "q", "qd", "angle_rates")))
    add(E("checks.mixed_coordinates:check_marker_choice", mc.check_marker_choice,
          Answer(["P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8"], like="any",
                 extra=(("unknown", ["Q1"] * 8), ("shape", ["P1"]), ("type", [1] * 8))), argnames=("names",)))

    # ------------------------------------------------------------------ chapter 11: the TX40
    add(E("checks.tx40:compute_reference", tx40.compute_reference,
          Vec((100.0,), skip=("shape",), extra=(("negative", (-1.0, 100.0)), ("huge", (1e9, 100.0)))),
          argnames=("cutoffs",), check_valid=False))
    n61 = np.zeros(61)
    add(E("checks.tx40:check_cutoff_estimates", tx40.check_cutoff_estimates, Answer(20.0, like="scalar",
                                                                                   extra=(("negative", -5.0),
                                                                                          ("huge", 1e9))),
          Answer(n61), argnames=("cutoff", "wls_params")))
    add(E("checks.tx40:check_without_rotors", tx40.check_without_rotors, Answer(0.1, like="scalar"),
          argnames=("held_out_error",)))
    add(E("checks.tx40:check_static_torques", tx40.check_static_torques, Answer(np.zeros(6)), argnames=("predicted",)))
    add(E("checks.tx40:check_joint5_critique", tx40.check_joint5_critique, Answer(1.0, like="scalar"),
          Answer(0.2, like="scalar"), argnames=("error_ratio", "torque_ratio")))

    # ------------------------------------------------------------------ chapter 12: closed loop
    from robidlib import closed_loop as cl
    from robidlib import closed_loop_study as cls
    from robidlib import trajectories
    from robidlib.estimation import base_model
    from robidlib.checks import closed_loop as clc

    cl_model = base_model.robot_base_model(planar_2r(friction=[[0.3, 0.2], [0.1, 0.1]]),
                                           friction=["viscous", "coulomb"])
    cl_ref = trajectories.fourier_series(np.arange(0.0, 0.3, 0.005), np.pi, [[0.3], [0.2]], [[0.0], [0.1]], [0.0, 0.5])
    cl_exp = cl.ClosedLoopExperiment(cl_model, cl_ref, cl.pd_controller(cl_model, cl_model.params, cl_ref,
                                                                        bandwidth=6.0))
    cl_rec = cl.simulate_closed_loop(cl_exp, cl_model.params)
    _, _, cl_s, cl_keep = cl.idim_data(cl_model, cl_rec, cutoff=20.0, trim=2)
    cl_Z = np.asarray(cl_model.regressor(cl_rec.q[cl_s], cl_rec.qd[cl_s], cl_rec.qdd[cl_s]))[cl_keep]
    add(E("checks.closed_loop:check_instruments", clc.check_instruments, Answer(cl_Z), Obj(cl_exp),
          Vec(cl_model.params), Vec(cl_s, skip=("empty",), extra=(("negative", -cl_s - 1), ("huge", cl_s + 10**6),
                                                                 ("type", cl_s + 0.5))),
          Vec(cl_keep, skip=("bool", "nan", "inf", "complex"), extra=(("type", cl_keep.astype(float)),)),
          argnames=("Z", "experiment", "params", "samples", "keep")))
    study, meta = cls.load_closed_loop_study()
    add(E("checks.closed_loop:check_bias_sign", clc.check_bias_sign,
          Answer(meta["names"][0], like="any", extra=(("unknown", "no_such_parameter"),)),
          Answer("+", like="any", extra=(("unknown", "up"),)),
          Obj(study, extra=(("unknown", {}), ("type", {k: "x" for k in study}))),
          Obj(meta, extra=(("unknown", {}),)), argnames=("name", "sign", "study", "meta")))
    add(E("checks.closed_loop:check_method_choice", clc.check_method_choice,
          Answer(dict(clc.SCENARIOS), like="any", extra=(("unknown", {"A": "ekf", "B": "iv", "C": "iv"}),
                                                          ("empty", {}))), argnames=("choices",)))

    # ------------------------------------------------------------------ the reference answers
    from robidlib.checks import answers
    from robidlib.checks.answers import ekf as ekf_answers, tx40 as tx40_answers
    import tempfile

    add(E("checks.answers:compute", answers.compute, Choice("pendulum", alias=("module",)), argnames=("module",)))
    out = tempfile.mkdtemp(prefix="robidlib_sweep_answers_")
    add(E("checks.answers:write_answers", answers.write_answers,
          Path_(out, extra=(("type", None), ("foreign", str(Path(answers.__file__).parents[2] / "data" / "checks")))),
          argnames=("folder",), modules=Names(("pendulum",), known=True, skip=("shape",)), overwrite=Flag(True)))
    add(E("checks.answers.tx40:compute_reference", tx40_answers.compute_reference,
          Vec((100.0,), skip=("shape",), extra=(("negative", (-1.0, 100.0)), ("huge", (1e9, 100.0)))),
          argnames=("cutoffs",), check_valid=False))
    add(E("checks.answers.tx40:at_cutoff", tx40_answers.at_cutoff, Pos(100.0, extra=(("huge", 1e9),)),
          argnames=("cutoff",), check_valid=False))       # a reference run: seconds (test_checks_tx40)
    add(E("checks.answers.ekf:arm_process_noise", ekf_answers.arm_process_noise, q=Vec((-np.pi / 2, 0.0)),
          sigma_tau=Vec((0.02, 0.01), extra=(("negative", (-0.02, 0.01)),)),
          dt=Pos(0.02)))

    # ------------------------------------------------------------------ chapter 13: your own robot
    import tempfile

    import robidlib
    from robidlib.checks import own_robot
    from robidlib.identification import identify_robot

    own_dir = own_robot.exercise_log(Path(tempfile.mkdtemp()) / "own-log")
    own_cfg = {"robot": {"urdf": "arm.urdf", "joints": ["shoulder", "elbow"]},
               "signals": {"time": {"column": "stamp", "unit": "ms"},
                           "position": {"columns": ["enc_sh", "enc_el"], "unit": "deg", "side": "motor"},
                           "torque": {"columns": ["cur_sh", "cur_el"], "kind": "motor_current", "unit": "mA",
                                      "sign": [1, -1]}},
               "transmission": {"gear_ratios": [120.0, 80.0], "torque_constants": [0.11, 0.07]},
               "records": [{"name": "run1", "file": "run1.csv", "role": "fit"},
                           {"name": "run2", "file": "run2.csv", "role": "holdout"}],
               "settings": {"cv_folds": 0, "physical": False}}
    own_run = identify_robot(own_cfg, base_dir=own_dir)
    add(E("checks.own_robot:exercise_log", own_robot.exercise_log,
          Path_(own_dir, extra=(("foreign", Path(robidlib.__file__).parent / "data" / "own-log"),)),
          argnames=("folder",), overwrite=Flag(True)))
    add(E("checks.own_robot:check_config", own_robot.check_config,
          Answer(own_cfg, like="any", extra=(("unknown", {**own_cfg, "robots": {}}),
                                             ("type", [own_cfg]))),
          Path_(own_dir, extra=(("empty", tempfile.mkdtemp()),)), argnames=("config", "folder")))
    add(E("checks.own_robot:check_signal_to_noise", own_robot.check_signal_to_noise, Answer(np.ones(2)),
          Obj(own_run), argnames=("snr", "ident")))
    add(E("checks.own_robot:check_report_statements", own_robot.check_report_statements,
          Answer({"A": False, "B": False, "C": True, "D": True}, like="any",
                 extra=(("type", {"A": 1, "B": 0, "C": 1, "D": 1}), ("unknown", {"E": True}))),
          argnames=("answers",)))
    return T


NOT_SWEPT: dict[str, str] = {}
