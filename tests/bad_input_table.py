"""The table of the bad-input sweep: every public callable of robidlib with valid arguments.

Each argument is wrapped in its kind (see :mod:`bad_input_sweep`); plain values are not swept
(an argument whose bad values are someone else's test, or that has no bad value). The objects
the calls need are built once, small, so that the whole sweep runs in seconds. Not covered:
``robidlib.checks`` (feedback for students, with its own tests) and ``robidlib.plotting``.
"""

from __future__ import annotations

import importlib

import numpy as np
import sympy as sp

from bad_input_sweep import (E, Batch, Choice, Flag, Func, Int, Names, NonNeg, Obj, Path_, Pos, Real,
                             Seed, Series, Text, Tol, Vec)
from robidlib import base, benchmark, dynamics, params, signals, spatial, trajectories, validation
from robidlib.estimation import _estimate, adaline, augmented, base_model, consistency, hopfield
from robidlib.estimation import kalman, lsq, smoother, symbolic, unscented
from robidlib.models import pendulum
from robidlib.models.planar_2r import planar_2r
from robidlib.models.redundant_5dof import redundant_5dof
from robidlib.models.ur5 import ur5
from robidlib.multibody import body as mb_body
from robidlib.multibody import constraints as mb_con
from robidlib.multibody import drivers as mb_drv
from robidlib.multibody import dynamics as mb_dyn
from robidlib.multibody import models as mb_models
from robidlib.multibody import solvers as mb_solvers
from robidlib.multibody import study as mb_study
from robidlib.multibody import system as mb_system
from robidlib.robot import SerialRobot, forward_kinematics

regressor_module = importlib.import_module("robidlib.regressor")   # robidlib.regressor is the function

R2 = planar_2r()
Q2 = np.array([[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]])
QD2 = np.array([[0.2, -0.1], [0.0, 0.3], [-0.5, 0.1]])
QDD2 = np.array([[1.0, 0.5], [-0.2, 0.3], [0.4, -0.6]])
Q1 = Q2[0]


def objects():
    """Objects the entries need (built once, by ``bad_input_sweep.objects``)."""
    o = {}
    o["bp"] = base.base_parameters(R2, rng=0)
    states = base.random_states(R2, 20, rng=1)
    o["states3"] = base.random_states(R2, 30, rng=4)
    Y = regressor_module.regressor(R2, *states)
    tau = dynamics.inverse_dynamics(R2, *states)
    o["W"], o["y"] = regressor_module.stack(o["bp"].reduce(Y), tau)
    rng = np.random.default_rng(0)
    o["Wr"] = rng.normal(size=(20, 3))
    o["yr"] = o["Wr"] @ [1.0, -2.0, 0.5]
    t = np.linspace(0.0, 1.0, 21)
    o["t"] = t
    o["traj"] = trajectories.quintic(t, [0.0, 0.0], [0.5, -0.5], T=1.0)
    o["ft"] = trajectories.FourierTrajectory(2 * np.pi * 0.5, np.array([[0.2, 0.1], [0.1, -0.1]]),
                                             np.array([[0.1, 0.0], [0.0, 0.1]]), np.array([0.1, -0.2]))
    study = benchmark.make_study(R2, seed=1, duration=2.0, optimize=0, validation_optimize=0)
    o["study"] = study
    o["problem"] = study.problem(0.02, rng=0)
    o["clean"] = study.train
    o["table"] = benchmark.ResultTable([{"method": "LS", "err": 1.0}, {"method": "WLS", "err": 0.5}])
    o["est"] = lsq.ols(o["Wr"], o["yr"])
    # Kalman filters
    F = np.array([[1.0, 0.1], [0.0, 1.0]])
    H = np.array([[1.0, 0.0]])
    o["kf"] = lambda: kalman.ExtendedKalmanFilter(lambda x, u: F @ x, lambda x: H @ x, lambda x, u: F,
                                                  lambda x: H, Q=1e-6 * np.eye(2), R=[[1e-4]],
                                                  x0=[0.0, 0.0], P0=np.eye(2))
    o["pend_Yb"] = lambda q, qd, qdd: np.array([[qdd[0], np.sin(q[0]), qd[0]]])
    o["ident"] = lambda: augmented.AugmentedStateIdentifier(
        o["pend_Yb"], 0.02, n=1, p=3, x0=[0.1, 0.0, 1.0, 5.0, 0.1], Q=np.zeros(5), R=[1e-6],
        P0=[0, 0, 1, 1, 1])
    q, qd, qdd = sp.symbols("q qd qdd")
    o["sym_args"] = (sp.Matrix([[qdd, sp.sin(q), qd]]), [q], [qd], [qdd])
    o["sym"] = symbolic.SymbolicModel(*o["sym_args"], names=["a1", "a2", "a3"])
    o["rbm"] = base_model.robot_base_model(R2, o["bp"], friction=["viscous"])
    o["srbm"] = base_model.robot_base_model(R2, o["bp"], symbolic=True, simplify=False)
    rng = np.random.default_rng(1)
    Phi = rng.normal(size=(30, 3))
    o["Phi"], o["tau_h"] = Phi, Phi @ np.array([0.5, -1.0, 2.0])
    o["Phi3"] = rng.normal(size=(20, 1, 2))
    o["tau3"] = np.einsum("knp,p->kn", o["Phi3"], [1.0, 2.0])
    o["hop"] = hopfield.HopfieldEstimator(alpha=5.0, beta=1.0)
    o["ada"] = adaline.Adaline(0.1, epochs=5, rng=0)
    o["pend"] = pendulum.Pendulum()
    # multibody
    chain = mb_models.simple_chain()
    o["chain"] = chain
    o["sys"] = chain.system
    o["ref"] = chain.reference_motion(duration=0.05)
    o["q0"] = o["ref"].q[0]
    o["qd0"] = o["ref"].qd[0]
    o["rb"] = mb_body.RigidBody("b", mass=2.0, com=[0.1, 0.0, 0.0], inertia=np.diag([0.1, 0.2, 0.3]))
    o["qb"] = mb_body.body_coordinates([1.0, 2.0, 3.0], np.eye(3))
    o["sph"] = mb_con.Spherical("ground", [0, 0, 0], "b", [0, 0, -1])
    o["sys1"] = mb_system.MultibodySystem([mb_body.RigidBody("b", mass=1.0)], [o["sph"]])
    o["q1"] = np.r_[0, 0, 1.0, 1, 0, 0, 0, 1, 0, 0, 0, 1]
    o["mcr"] = o["sys"].mcrs[0]
    o["ad"] = mb_con.AngleDriver(o["sys"].angle_names).bind(o["sys"])
    o["tc"] = o["sys"].tracking
    o["link"] = mb_models.Link("l1", "ground", [0, 0, 0], [0, 0, 1], [0.0, 0.0, 0.1], 1.0, [0.01, 0.01, 0.01],
                               [[0.0, 0.0, 0.2]])
    o["kres"] = mb_solvers.solve_kinematics(o["sys"], o["ref"].markers[:2], "nrm-wls")
    o["sens"] = None
    from robidlib.datasets import staubli_tx40

    o["tx40"] = staubli_tx40()
    return o


def entries(o):  # noqa: C901 - one table
    bp, W, y, Wr, yr, t = o["bp"], o["W"], o["y"], o["Wr"], o["yr"], o["t"]
    states3 = o["states3"]
    traj, ft, problem, clean, study = o["traj"], o["ft"], o["problem"], o["clean"], o["study"]
    sys_, ref, q0, qd0 = o["sys"], o["ref"], o["q0"], o["qd0"]
    P = R2.params
    I6 = [1.0, 2.0, 3.0, 0.1, 0.2, 0.3]
    T = []
    add = T.append

    # ------------------------------------------------------------------ spatial
    add(E("spatial:skew", spatial.skew, Vec([1.0, 2.0, 3.0], skip=("empty",)), argnames=("v",)))
    for f in (spatial.rot_x, spatial.rot_y, spatial.rot_z):
        add(E(f"spatial:{f.__name__}", f, Real(0.3, skip=("shape",)), argnames=("angle",)))     # batched
    add(E("spatial:axis_angle", spatial.axis_angle, Vec([0.0, 0.0, 1.0], skip=("empty",)), Real(0.3, skip=("shape",)),
          argnames=("axis", "angle")))
    add(E("spatial:rpy_to_matrix", spatial.rpy_to_matrix, Vec([0.1, 0.2, 0.3], skip=("empty",)), argnames=("rpy",)))
    add(E("spatial:matrix_to_rpy", spatial.matrix_to_rpy, Vec(np.eye(3), skip=("empty",)), argnames=("R",)))
    add(E("spatial:homogeneous", spatial.homogeneous, Vec(np.eye(3), skip=("empty",)),
          Vec([1.0, 2.0, 3.0], skip=("empty",)), argnames=("R", "p")))
    add(E("spatial:inverse_transform", spatial.inverse_transform, Vec(np.eye(4), skip=("empty",)), argnames=("T",)))
    add(E("spatial:dh_transform", spatial.dh_transform, *[Real(v, skip=("shape",)) for v in (0.5, 0.1, 0.2, 0.3)],
          argnames=("a", "alpha", "d", "theta")))
    add(E("spatial:is_rotation", spatial.is_rotation, Vec(np.eye(3), skip=("empty", "nan", "inf")), Tol(1e-9),
          argnames=("R", "tol")))

    # ------------------------------------------------------------------ params
    add(E("params:param_names", params.param_names, Int(2, huge=10**9), argnames=("n",)))       # item 7
    add(E("params:friction_names", params.friction_names, Int(2, huge=10**9), argnames=("n",),
          terms=Names(("viscous", "coulomb"), skip=("shape",)), offset=Flag(False)))
    add(E("params:inertia_matrix", params.inertia_matrix, Vec(I6, skip=("empty",)), argnames=("v",)))
    add(E("params:inertia_vector", params.inertia_vector, Vec(params.inertia_matrix(I6), skip=("empty",)),
          argnames=("I",), tol=Tol(1e-9, skip=("zero",))))   # 0: exactly symmetric
    for f in (params.com_to_origin, params.origin_to_com):
        add(E(f"params:{f.__name__}", f, Vec(2.0), Vec([0.1, 0.0, 0.0]), Vec(np.diag([1.0, 2.0, 3.0])),
              argnames=("mass", "com", f.__code__.co_varnames[2])))
    add(E("params:link_params", params.link_params, Vec(2.0), Vec([0.1, 0.0, 0.0]), Vec(I6),
          argnames=("mass", "com", "inertia"), about=Choice("com")))
    add(E("params:split_link_params", params.split_link_params, Vec(P[:10], alias=("pi",)), argnames=("pi",),
          about=Choice("com")))
    add(E("params:transform_params", params.transform_params, Vec(P[:10]), Vec(np.eye(3)), Vec([0.0, 0.0, 1.0]),
          argnames=("pi", "R", "p")))
    for f in (params.to_pinocchio_order, params.from_pinocchio_order):      # a reordering: NaN may stay
        add(E(f"params:{f.__name__}", f, Vec(P, skip=("nan", "inf")), argnames=("x",),
              axis=Int(-1, zero_ok=True, skip=("negative",))))
    add(E("params:is_physically_consistent", params.is_physically_consistent, Vec(P), argnames=("pi",),
          tol=NonNeg(0.0), per_link=Flag(False)))

    # ------------------------------------------------------------------ robot
    add(E("robot:SerialRobot", SerialRobot, Choice("RR", alias=("joint_types",)),
          Vec(R2.joint_origins), Vec(R2.joint_axes), Vec(P), argnames=("joint_types", "joint_origins",
                                                                      "joint_axes", "params"),
          friction=Vec(np.zeros((2, 2))), gravity=Vec([0.0, 0.0, -9.81]),
          joint_names=Names(("a", "b")), link_names=Names(("l1", "l2")),
          q_limits=Vec(R2.q_limits), qd_limits=Vec(R2.qd_limits, skip=("inf",)),
          qdd_limits=Vec(R2.qdd_limits, skip=("inf",)), tau_limits=Vec([10.0, 10.0], skip=("inf",)),
          name=Text("r")))
    add(E("robot:SerialRobot.with_params", R2.with_params, Vec(P), argnames=("params",)))
    add(E("robot:SerialRobot.with_friction", R2.with_friction, Vec(np.zeros((2, 2))), argnames=("friction",)))
    add(E("robot:SerialRobot.with_friction(fv)", R2.with_friction, fv=Vec([0.1, 0.2]), fc=Vec([0.0, 0.1])))
    add(E("robot:SerialRobot.with_gravity", R2.with_gravity, Vec([0.0, 0.0, -9.81]), argnames=("gravity",)))
    add(E("robot:SerialRobot.with_limits", R2.with_limits, qd=Vec([1.0, 1.0], skip=("inf",), alias=("qd_limits",)),
          q=Vec(R2.q_limits, alias=("q_limits",)), qdd=Vec([5.0, 5.0], skip=("inf",), alias=("qdd_limits",)),
          tau=Vec([5.0, 5.0], skip=("inf",), alias=("tau_limits",))))
    add(E("robot:SerialRobot.from_dh", SerialRobot.from_dh, Choice("RR", alias=("joint_types",)),
          Vec([0.0, 0.5]), Vec([0.0, 0.0]), Vec([0.0, 0.0]), argnames=("joint_types", "a", "alpha", "d"),
          theta=Vec([0.0, 0.0]), mass=Vec([1.0, 1.0]), com=Vec([[0.2, 0, 0], [0.2, 0, 0]]),
          inertia=Vec(np.tile(np.diag([0.1, 0.1, 0.1]), (2, 1, 1))), inertia_about=Choice("com"),
          friction=Vec(np.zeros((2, 2))), gravity=Vec([0, 0, -9.81]), name=Text("dh")))
    urdf = R2.to_urdf()
    laughs = ('<?xml version="1.0"?><!DOCTYPE robot [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;">]>'
              + urdf[urdf.index("<robot"):])
    negative = urdf.replace('ixx="', 'ixx="-', 1)
    add(E("robot:SerialRobot.from_urdf", SerialRobot.from_urdf,
          Obj(urdf, alias=("source", "URDF"), extra=(("hostile", laughs), ("negative", negative))), argnames=("source",),
          base_link=Text(None), tip_link=Text(None), gravity=Vec([0.0, 0.0, -9.81]), name=Text(None),
          inertia_check=Choice("refuse")))
    add(E("robot:SerialRobot.to_urdf", R2.to_urdf, base_link=Text(None)))
    add(E("robot:forward_kinematics", forward_kinematics, Obj(R2), Batch(Q2), argnames=("robot", "q")))

    # ------------------------------------------------------------------ dynamics
    grav = dict(gravity=Vec([0.0, -9.81, 0.0]))
    add(E("dynamics:inverse_dynamics", dynamics.inverse_dynamics, Obj(R2), Batch(Q2), Batch(QD2), Batch(QDD2),
          argnames=("robot", "q", "qd", "qdd"), include_friction=Flag(True), **grav))
    add(E("dynamics:mass_matrix", dynamics.mass_matrix, Obj(R2), Batch(Q2), argnames=("robot", "q")))
    add(E("dynamics:bias_torques", dynamics.bias_torques, Obj(R2), Batch(Q2), Batch(QD2), argnames=("robot", "q", "qd"),
          include_friction=Flag(True), **grav))
    add(E("dynamics:gravity_torques", dynamics.gravity_torques, Obj(R2), Batch(Q2), argnames=("robot", "q"), **grav))
    add(E("dynamics:friction_torques", dynamics.friction_torques, Obj(R2), Batch(QD2), argnames=("robot", "qd")))
    add(E("dynamics:forward_dynamics", dynamics.forward_dynamics, Obj(R2), Batch(Q2), Batch(QD2), Batch(QDD2),
          argnames=("robot", "q", "qd", "tau"), include_friction=Flag(True), **grav))
    add(E("dynamics:kinetic_energy", dynamics.kinetic_energy, Obj(R2), Batch(Q2), Batch(QD2),
          argnames=("robot", "q", "qd")))
    add(E("dynamics:potential_energy", dynamics.potential_energy, Obj(R2), Batch(Q2), argnames=("robot", "q"), **grav))
    ts = np.linspace(0.0, 0.2, 5)
    add(E("dynamics:simulate", dynamics.simulate, Obj(R2), Vec(ts, skip=("shape",), alias=("t",)),
          Vec([0.1, 0.2]), Vec([0.0, 0.0]), Vec(np.zeros((5, 2))),
          argnames=("robot", "t", "q0", "qd0", "torque"), torque_interp=Choice("linear"),
          include_friction=Flag(True), method=Choice("DOP853"), rtol=Tol(1e-6), atol=Pos(1e-8),
          max_step=Pos(0.1, skip=("inf",)), coulomb_smoothing=NonNeg(0.0), **grav))
    add(E("dynamics:simulate(horizon)", dynamics.simulate, R2, Vec([0.0, 1.0], alias=("t", "max_nfev")), [0.1, 0.2],
          [0.0, 0.0], argnames=("robot", "t", "q0", "qd0")))
    add(E("dynamics:SimulationResult", dynamics.SimulationResult, Vec(ts), Vec(np.zeros((5, 2))),
          Vec(np.zeros((5, 2))), Vec(np.zeros((5, 2))), Vec(np.zeros((5, 2))), Int(10, zero_ok=True),
          Text("ok"), argnames=("t", "q", "qd", "qdd", "tau", "nfev", "message")))

    # ------------------------------------------------------------------ regressor
    add(E("regressor:regressor", regressor_module.regressor, Obj(R2), Batch(Q2), Batch(QD2), Batch(QDD2),
          argnames=("robot", "q", "qd", "qdd"), **grav))
    add(E("regressor:regressor(base, out)", regressor_module.regressor, R2, Q2, QD2, QDD2,
          argnames=("robot", "q", "qd", "qdd"), base=Obj(bp), out=Obj(np.empty((3, 2, bp.rank)))))
    add(E("regressor:friction_regressor", regressor_module.friction_regressor, Batch(QD2, skip=("shape",)),
          argnames=("qd",), terms=Names(("viscous", "coulomb"), skip=("shape",)), offset=Flag(False)))
    Yb = bp.reduce(regressor_module.regressor(R2, Q2, QD2, QDD2))
    add(E("regressor:stack", regressor_module.stack, Vec(Yb, skip=("shape",)), Vec(dynamics.inverse_dynamics(R2, Q2, QD2, QDD2)),
          argnames=("Y", "tau")))

    # ------------------------------------------------------------------ base
    add(E("base:base_parameters", base.base_parameters, Obj(R2, alias=("robot_or_W", "robot", "W")),
          argnames=("robot_or_W",), method=Choice("qr"), tol=Tol(1e-8), samples=Int(50), rng=Seed(0, none_ok=True),
          friction=Flag(False)))
    add(E("base:base_parameters(W)", base.base_parameters, Vec(Wr, alias=("robot_or_W", "W"), skip=("shape",)),
          argnames=("robot_or_W",), tol=Tol(1e-8)))
    add(E("base:random_states", base.random_states, Obj(R2), Int(5, huge=10**13), argnames=("robot", "n_samples"),
          rng=Seed(0, none_ok=True)))
    add(E("base:format_relation", base.format_relation, Text("Izz1"), Vec([0.0, 1.0, 0.09]),
          Names(["m1", "Iyy2", "m2"]), argnames=("name", "coeffs", "dep_names"), digits=Int(6)))
    add(E("base:BaseParameters.beta", bp.beta, Vec(P), argnames=("pi",)))
    add(E("base:BaseParameters.reduce", bp.reduce, Vec(regressor_module.regressor(R2, Q2, QD2, QDD2), skip=("empty",)),
          argnames=("W",)))
    add(E("base:BaseParameters.null_space_direction", bp.null_space_direction, Int(0, zero_ok=True), argnames=("k",)))
    add(E("base:BaseParameters", base.BaseParameters, Choice(bp.method), Int(bp.rank), Names(bp.names),
          Vec(bp.independent), Vec(bp.dependent), Vec(bp.K), Vec(bp.V1), Vec(bp.V2), Vec(bp.singular_values),
          Pos(bp.tol), argnames=("method", "rank", "names", "independent", "dependent", "K", "V1", "V2",
                              "singular_values", "tol"), robot_id=Text(bp.robot_id, extra=(("empty", ""),))))

    # ------------------------------------------------------------------ trajectories
    z2 = np.zeros((21, 2))
    add(E("trajectories:Trajectory", trajectories.Trajectory, Vec(t), Vec(z2), Vec(z2), Vec(z2),
          argnames=("t", "q", "qd", "qdd")))
    add(E("trajectories:quintic", trajectories.quintic, Vec(t, skip=("shape",)), Vec([0.0, 0.0]), Vec([0.5, -0.5]),
          Pos(1.0), argnames=("t", "q0", "qf", "T"), qd0=Vec([0.0, 0.0]), qddf=Vec([0.0, 0.0])))
    add(E("trajectories:quintic_coefficients", trajectories.quintic_coefficients, Vec([0.0]), Vec([1.0]), Pos(1.0),
          argnames=("q0", "qf", "T"), qd0=Vec([0.0])))
    add(E("trajectories:quintic_via", trajectories.quintic_via, Vec([0.0, 1.0, 2.0], skip=("shape",)),
          Vec([0.0, 1.0, 3.0]), Vec([0.0, 1.0, 0.0]), argnames=("t", "times", "positions"),
          velocities=Vec([0.0, 0.0, 0.0])))
    add(E("trajectories:FourierTrajectory", trajectories.FourierTrajectory, Pos(ft.wf), Vec(ft.a), Vec(ft.b),
          Vec(ft.q0), argnames=("wf", "a", "b", "q0")))
    add(E("trajectories:FourierTrajectory.unpack", trajectories.FourierTrajectory.unpack, Vec(ft.pack()),
          Pos(ft.wf), Int(2), Int(2), argnames=("x", "wf", "n_joints", "n_harmonics")))
    add(E("trajectories:FourierTrajectory.evaluate", ft.evaluate, Vec(t, skip=("shape",)), argnames=("t",)))
    add(E("trajectories:fourier_series", trajectories.fourier_series, Vec(t, skip=("shape",)), Pos(ft.wf),
          Vec(ft.a), Vec(ft.b), Vec(ft.q0), argnames=("t", "wf", "a", "b", "q0")))
    add(E("trajectories:fourier_basis", trajectories.fourier_basis, Vec(t, skip=("shape",)), Pos(ft.wf), Int(2),
          Int(2, huge=10**9), argnames=("t", "wf", "n_joints", "n_harmonics")))
    lim = {k: Vec(v, skip=("inf",)) for k, v in (("q_min", [-1.0, -1.0]), ("q_max", [1.0, 1.0]),
                                                 ("qd_max", [5.0, 5.0]), ("qdd_max", [50.0, 50.0]))}   # inf: no limit
    add(E("trajectories:limit_margins", trajectories.limit_margins, Obj(traj), argnames=("traj",), **lim))
    add(E("trajectories:limits_violation", trajectories.limits_violation, Obj(traj), argnames=("traj",), **lim))
    add(E("trajectories:check_limits", trajectories.check_limits, Obj(traj), argnames=("traj",), name=Text("x"), **lim))
    add(E("trajectories:random_fourier", trajectories.random_fourier, Obj(R2), Pos(2 * np.pi * 0.5),
          Int(2, huge=10**9), Seed(0), argnames=("robot", "wf", "n_harmonics", "rng"), fill=Pos(0.8),
          n_grid=Int(50, huge=10**12)))
    add(E("trajectories:excitation_cond", trajectories.excitation_cond, Obj(R2), Obj(traj), argnames=("robot", "traj"),
          base=Obj(bp), friction=Flag(False), scaling=Choice("columns")))
    add(E("trajectories:optimize_excitation", trajectories.optimize_excitation, Obj(R2), Obj(ft),
          argnames=("robot", "initial"), base=Obj(bp), scaling=Choice("columns"), n_starts=Int(1, huge=10**9),
          rng=Seed(0, none_ok=True), n_grid=Int(40, huge=10**12), n_constraint=Int(20, huge=10**12), n_eval=Int(20, huge=10**12),
          margin=NonNeg(0.02), maxiter=Int(2), ftol=Tol(1e-6), friction=Flag(False), criterion=Choice("cond")))

    # ------------------------------------------------------------------ signals
    x = np.sin(np.linspace(0, 6, 200))[:, None] * [1.0, 2.0]
    add(E("signals:add_noise", signals.add_noise, Series(x), Vec([0.1, 0.2]), Seed(0), argnames=("x", "std", "rng")))
    add(E("signals:quantize", signals.quantize, Series(x), Pos(0.01), argnames=("x", "resolution")))
    add(E("signals:lowpass", signals.lowpass, Series(x), Pos(5.0), Pos(100.0), argnames=("x", "cutoff", "fs"),
          order=Int(4, huge=10**6)))
    add(E("signals:differentiate", signals.differentiate, Series(x), Pos(0.01), argnames=("x", "dt"),
          method=Choice("savgol"), deriv=Int(1), window=Int(11, huge=10**9), polyorder=Int(3, zero_ok=True)))
    add(E("signals:decimate", signals.decimate, Series(x), Int(2, huge=10**9), argnames=("x", "factor"), fs=Pos(100.0),
          cutoff=Pos(10.0), order=Int(4, huge=10**6)))

    # ------------------------------------------------------------------ estimation
    add(E("estimation:Estimate", _estimate.Estimate, Vec(o["est"].params), Vec(o["est"].cov),
          Vec(o["est"].rel_std, skip=("inf",)), NonNeg(o["est"].residual_std), Int(3, zero_ok=True),
          Pos(o["est"].cond, skip=("inf", "nan")),
          Names(o["est"].names), argnames=("params", "cov", "rel_std", "residual_std", "rank", "cond", "names"),
          method=Text("ols")))
    add(E("estimation:Estimate.table", o["est"].table, truth=Vec([1.0, -2.0, 0.5]), digits=Int(4)))
    add(E("estimation:ols", lsq.ols, Vec(Wr), Vec(yr), argnames=("W", "y")))
    add(E("estimation:wls", lsq.wls, Vec(W), Vec(y), Int(2), argnames=("W", "y", "n_joints"),
          weights=Vec([1.0, 2.0])))
    add(E("estimation:ridge", lsq.ridge, Vec(Wr), Vec(yr), NonNeg(0.1), argnames=("W", "y", "lam"),
          prior=Vec([1.0, 1.0, 1.0])))
    add(E("estimation:ridge_path", lsq.ridge_path, Vec(Wr), Vec(yr), Vec([0.01, 0.1, 1.0, 10.0]),
          argnames=("W", "y", "lams"), prior=Vec([1.0, 1.0, 1.0])))
    path = lsq.ridge_path(Wr, yr, [0.01, 0.1, 1.0, 10.0])
    add(E("estimation:RidgePath.params", path.params, Int(2, zero_ok=True), argnames=("index",)))
    add(E("estimation:default_rank_tol", lsq.default_rank_tol, Vec([3.0, 2.0, 1.0], skip=("shape", "empty")), Vec((20, 3), skip=("nan", "inf", "complex", "empty")),
          argnames=("s", "shape")))
    add(E("estimation:max_stable_rate", adaline.max_stable_rate, Vec(Wr, skip=("shape",)), argnames=("W",)))
    add(E("estimation:Adaline", adaline.Adaline, Pos(0.1), argnames=("learning_rate",), epochs=Int(5),
          mode=Choice("sample"), normalized=Flag(False), shuffle=Flag(True), rng=Seed(0), tol=Tol(1e-9),
          w0=Vec([0.0, 0.0, 0.0], skip=("shape", "empty")), eps=Pos(1e-12), divergence_factor=Pos(1e8)))
    add(E("estimation:Adaline.fit", o["ada"].fit, Vec(Wr, skip=("shape",)), Vec(yr), argnames=("W", "y")))
    ada_fitted = adaline.Adaline(0.1, epochs=5, rng=0).fit(Wr, yr)
    add(E("estimation:Adaline.partial_fit", adaline.Adaline(0.1, rng=0).partial_fit, Vec(Wr[0], skip=("shape",)),
          Vec(yr[0]), argnames=("x_row", "t")))
    add(E("estimation:Adaline.predict", ada_fitted.predict, Vec(Wr, skip=("empty",)), argnames=("W",)))
    add(E("estimation:Adaline.to_estimate", ada_fitted.to_estimate, Vec(Wr), Vec(yr), argnames=("W", "y")))
    hop = o["hop"]
    add(E("estimation:HopfieldEstimator", hopfield.HopfieldEstimator, Pos(5.0, skip=("shape",)), Pos(1.0),
          argnames=("alpha", "beta"), method=Choice("LSODA"), rtol=Tol(1e-6), atol=Pos(1e-9),
          scale=Choice("mean"), check=Flag(True), max_nfev=Int(1000)))
    add(E("estimation:HopfieldEstimator.run", hopfield.HopfieldEstimator(5.0, 1.0).run, Vec(o["Phi"]),
          Vec(o["tau_h"]), Vec((0.0, 5.0), alias=("t_span",)), argnames=("Phi", "tau", "t_span"),
          S0=Vec([0.0, 0.0, 0.0]), t_eval=Vec([0.0, 1.0, 5.0], skip=("shape",))))
    add(E("estimation:HopfieldEstimator.run(horizon)", hopfield.HopfieldEstimator(5.0, 1.0).run, o["Phi"],
          o["tau_h"], Vec((0.0, 5.0), alias=("t_span", "max_nfev")), argnames=("Phi", "tau", "t_span")))
    t3 = np.arange(20) * 0.05
    add(E("estimation:HopfieldEstimator.run_online", hopfield.HopfieldEstimator(4.0, 0.05).run_online,
          Vec(o["Phi3"]), Vec(o["tau3"]), Vec(t3, skip=("shape",)), argnames=("Phi", "tau", "t"),
          forgetting=Pos(0.9), S0=Vec([0.0, 0.0]), t_final=Pos(1.0)))
    add(E("estimation:HopfieldEstimator.energy", hop.energy, Vec([0.1, 0.2, 0.3]), Vec(o["Phi"]), Vec(o["tau_h"]),
          argnames=("S", "Phi", "tau")))
    add(E("estimation:HopfieldEstimator.time_constants", hop.time_constants, Vec(o["Phi"]), argnames=("Phi",),
          S=Vec([0.1, 0.2, 0.3])))
    hop_fit = hopfield.HopfieldEstimator(5.0, 1.0).run(o["Phi"], o["tau_h"], (0.0, 5.0))
    add(E("estimation:HopfieldEstimator.to_estimate", hop_fit.to_estimate, Vec(o["Phi"]), Vec(o["tau_h"]),
          argnames=("Phi", "tau")))
    kf = o["kf"]
    add(E("estimation:ExtendedKalmanFilter", kalman.ExtendedKalmanFilter, Func(lambda x, u: x), Func(lambda x: x[:1]),
          Func(lambda x, u: np.eye(2)), Func(lambda x: np.array([[1.0, 0.0]])), Vec(1e-6 * np.eye(2)),
          Vec([[1e-4]]), Vec([0.0, 0.0]), Vec(np.eye(2)),
          argnames=("f", "h", "F_jac", "H_jac", "Q", "R", "x0", "P0"), record_history=Flag(True)))
    add(E("estimation:ExtendedKalmanFilter.reset", kf().reset, Vec([0.0, 0.0]), Vec(np.eye(2)), argnames=("x0", "P0")))
    add(E("estimation:ExtendedKalmanFilter.update", kf().update, Vec([0.1], alias=("z",)), argnames=("z",)))
    ukf = lambda: unscented.UnscentedKalmanFilter(lambda x, u: x, lambda x: x[:1], 1e-6 * np.eye(2),  # noqa: E731
                                                  [[1e-4]], [0.0, 0.0], np.eye(2))
    add(E("estimation:UnscentedKalmanFilter", unscented.UnscentedKalmanFilter, Func(lambda x, u: x),
          Func(lambda x: x[:1]), Vec(1e-6 * np.eye(2)), Vec([[1e-4]]), Vec([0.0, 0.0]), Vec(np.eye(2)),
          argnames=("f", "h", "Q", "R", "x0", "P0"), alpha=Pos(1.0), beta=NonNeg(2.0), kappa=Real(0.0)))
    add(E("estimation:UnscentedKalmanFilter.reset", ukf().reset, Vec([0.0, 0.0]), Vec(np.eye(2)),
          argnames=("x0", "P0")))
    add(E("estimation:UnscentedKalmanFilter.update", ukf().update, Vec([0.1], alias=("z",)), argnames=("z",)))
    add(E("estimation:sigma_points", unscented.sigma_points, Vec([0.0, 1.0]), Vec(np.eye(2)), argnames=("x", "P"),
          alpha=Pos(1.0), beta=NonNeg(2.0), kappa=Real(0.0)))
    add(E("estimation:numerical_jacobian", kalman.numerical_jacobian, Func(lambda x: x ** 2),
          Vec([1.0, 2.0], skip=("shape",)),
          argnames=("fun", "x"), step=Tol(1e-6)))
    add(E("estimation:AugmentedStateIdentifier", augmented.AugmentedStateIdentifier, Func(o["pend_Yb"]), Pos(0.02),
          argnames=("model", "dt"), x0=Vec([0.1, 0.0, 1.0, 5.0, 0.1]), Q=Vec(np.zeros(5)), R=Vec([1e-6]),
          P0=Vec([0, 0, 1, 1, 1.0]), n=Int(1), p=Int(3), integrator=Choice("euler"), measure=Choice("q"),
          jacobian=Choice("auto"), fd_step=Tol(1e-6), record_history=Flag(True)))
    ident = o["ident"]()
    x5, u1 = np.array([0.1, 0.0, 1.0, 5.0, 0.1]), np.array([0.5])
    for meth, args, nm in (("mass_matrix", (Vec([0.3]), Vec([0.5, 1.0, 0.1])), ("q", "beta")),
                           ("bias", (Vec([0.3]), Vec([0.1]), Vec([0.5, 1.0, 0.1])), ("q", "qd", "beta")),
                           ("forward_dynamics", (Vec([0.3]), Vec([0.1]), Vec([1.0]), Vec([0.5, 1.0, 0.1])),
                            ("q", "qd", "tau", "beta")),
                           ("dynamics", (Vec(x5), Vec(u1)), ("x", "u")),
                           ("transition", (Vec(x5), Vec(u1)), ("x", "u")),
                           ("numerical_transition_jacobian", (Vec(x5), Vec(u1)), ("x", "u")),
                           ("transition_jacobian", (Vec(x5), Vec(u1)), ("x", "u")),
                           ("measurement", (Vec(x5),), ("x",)),
                           ("predict", (Vec(u1),), ("u",)),
                           ("update", (Vec([0.1]),), ("z",))):
        add(E(f"estimation:AugmentedStateIdentifier.{meth}", getattr(o["ident"](), meth), *args, argnames=nm))
    tt = np.arange(5) * 0.02
    add(E("estimation:AugmentedStateIdentifier.run", o["ident"]().run, Vec(tt, skip=("shape",)), Vec(np.zeros((5, 1))),
          Vec(np.full((5, 1), 0.1)), argnames=("t", "tau", "z"), torque=Choice("hold"), keep_cov=Flag(False)))
    add(E("estimation:torque_midpoints", augmented.torque_midpoints, Series(t), argnames=("tau",)))
    add(E("estimation:nees", consistency.nees, Vec([1.0, 2.0]), Vec(np.diag([1.0, 4.0])), argnames=("error", "P")))
    add(E("estimation:nees_bounds", consistency.nees_bounds, Int(5), Int(25), argnames=("n_states", "n_runs"),
          confidence=Pos(0.95)))
    add(E("estimation:SymbolicModel", symbolic.SymbolicModel, *[Obj(a) for a in o["sym_args"]],
          argnames=("Y", "q", "qd", "qdd")))
    sym = o["sym"]
    add(E("estimation:SymbolicModel.regressor", sym.regressor, Batch([0.5]), Batch([1.0]), Batch([2.0]),
          argnames=("q", "qd", "qdd")))
    add(E("estimation:SymbolicModel.affine_terms", sym.affine_terms, Vec([0.5]), Vec([1.0]), argnames=("q", "qd")))
    add(E("estimation:SymbolicModel.regressor_derivatives", sym.regressor_derivatives, Vec([0.5]), Vec([1.0]),
          Vec([2.0]), argnames=("q", "qd", "qdd")))
    add(E("estimation:symbolic_regressor", symbolic.symbolic_regressor, Obj(planar_2r()), argnames=("robot",)))
    add(E("estimation:robot_base_model", base_model.robot_base_model, Obj(R2), Obj(bp), argnames=("robot", "base"),
          friction=Names(["viscous"], skip=("shape",)), symbolic=Flag(False), simplify=Flag(True)))
    add(E("estimation:RobotBaseModel.regressor", o["rbm"].regressor, Batch(Q2), Batch(QD2), Batch(QDD2),
          argnames=("q", "qd", "qdd")))
    add(E("estimation:RobotBaseModel.numeric_regressor", o["rbm"].numeric_regressor, Batch(Q2), Batch(QD2),
          Batch(QDD2), argnames=("q", "qd", "qdd")))
    add(E("estimation:SymbolicRobotBaseModel.regressor_derivatives", o["srbm"].regressor_derivatives, Vec(Q1),
          Vec(QD2[0]), Vec(QDD2[0]), argnames=("q", "qd", "qdd")))
    add(E("estimation:SymbolicRobotBaseModel.affine_terms", o["srbm"].affine_terms, Vec(Q1), Vec(QD2[0]),
          argnames=("q", "qd")))

    # ------------------------------------------------------------------ models
    for f in (planar_2r, redundant_5dof, ur5):
        add(E(f"models:{f.__name__}", f, gravity=Vec([0.0, 0.0, -9.81]), friction=Vec(np.zeros((f().n, 2))),
              name=Text("x")))
    add(E("models:Pendulum", pendulum.Pendulum, I=NonNeg(0.0175), m=Pos(1.0), l=Pos(0.25), b=NonNeg(0.1),
          g=Pos(9.81)))
    pend = o["pend"]
    qs = np.array([0.1, 0.2, 0.3])
    for meth, nm in (("regressor", ("q", "qd", "qdd")), ("torque", ("q", "qd", "qdd")),
                     ("acceleration", ("q", "qd", "tau")), ("energy", ("q", "qd"))):
        add(E(f"models:Pendulum.{meth}", getattr(pend, meth), *[Series(qs) for _ in nm], argnames=nm))
    add(E("models:Pendulum.simulate", pend.simulate, Vec(t, skip=("shape",)), argnames=("t",), torque=Real(0.0),
          q0=Real(0.1), qd0=Real(0.0), rtol=Tol(1e-8), atol=Pos(1e-10)))
    add(E("models:Motion", pendulum.Motion, Vec(t), Vec(t), Vec(t), Vec(t), Vec(t), argnames=("t", "q", "qd", "qdd", "tau")))

    # ------------------------------------------------------------------ validation
    o_ = np.array([[1.0, 2.0], [2.0, 1.0], [3.0, 4.0]])
    p_ = o_ + 0.1
    for f in (validation.rms_index, validation.rsd_index, validation.agreement_index,
              validation.relative_torque_error):
        add(E(f"validation:{f.__name__}", f, Series(o_), Series(p_), argnames=("observed", "predicted"),
              per_joint=Flag(True)))
    add(E("validation:relative_parameter_error", validation.relative_parameter_error, Vec([1.1, 2.0]), Vec([1.0, 2.0]),
          argnames=("estimate", "truth")))
    beta = bp.beta(P)
    add(E("validation:base_to_standard", validation.base_to_standard, Obj(bp), Vec(beta), argnames=("base", "beta")))
    add(E("validation:identified_robot", validation.identified_robot, Obj(R2), Vec(beta), argnames=("robot_or_model", "params"),
          base=Obj(bp)))
    track = trajectories.quintic(np.linspace(0, 0.2, 11), [0.0, 0.0], [0.2, -0.2], T=0.2)
    add(E("validation:simulate_tracking", validation.simulate_tracking, Obj(R2), Vec(beta), Obj(track),
          argnames=("robot_or_model", "params", "trajectory"), base=Obj(bp), feedforward=Vec(beta), bandwidth=Pos(2.0),
          damping=Pos(1.0), substeps=Int(2, huge=10**9), on_failure=Choice("raise")))
    add(E("validation:sensitivity", validation.sensitivity, Obj(R2), Vec(beta), Obj(track),
          argnames=("robot_or_model", "params", "trajectory"), variation=Pos(0.3), steps=Int(2, huge=10**9),
          base=Obj(bp), output=Choice("q"), bandwidth=Pos(2.0), damping=Pos(1.0), substeps=Int(1, huge=10**9)))
    res = validation.simulate_tracking(R2, beta, track, base=bp)
    add(E("validation:TrackingResult", validation.TrackingResult, Vec(res.t), Vec(res.q), Vec(res.qd), Vec(res.tau),
          Vec(res.q_ref), Vec(res.kp), Vec(res.kd), argnames=("t", "q", "qd", "tau", "q_ref", "kp", "kd")))
    sens = validation.sensitivity(R2, beta, track, steps=2, variation=0.3, base=bp)
    add(E("validation:SensitivityResult", validation.SensitivityResult, Names(sens.names), Vec(sens.params),
          Vec(sens.variations), Vec(sens.rms_joint), Vec(sens.rms), Choice(sens.output), Vec(sens.nominal),
          Vec(sens.failed, skip=("nan", "inf", "complex", "bool")), argnames=("names", "params", "variations", "rms_joint",
                                                                   "rms", "output", "nominal", "failed")))
    add(E("validation:SensitivityResult.to_markdown", sens.to_markdown, digits=Int(3), top=Int(2)))

    # ------------------------------------------------------------------ benchmark
    add(E("benchmark:ResultTable", benchmark.ResultTable, Obj([{"a": 1.0}], alias=("rows",)), argnames=("rows",)))
    tab = o["table"]
    add(E("benchmark:ResultTable.column", tab.column, Text("err"), argnames=("name",)))
    add(E("benchmark:ResultTable.to_markdown", tab.to_markdown, columns=Names(["method", "err"], skip=("shape",)),
          digits=Int(3)))
    add(E("benchmark:ResultTable.from_json", benchmark.ResultTable.from_json, Text(tab.to_json()), argnames=("text",)))
    d = clean
    add(E("benchmark:IdentificationData", benchmark.IdentificationData, Vec(d.t), Vec(d.q), Vec(d.qd), Vec(d.qdd),
          Vec(d.tau), Vec(d.q_meas), Vec(d.qd_meas), Vec(d.sigma_tau), Vec(d.sigma_q), Vec(d.sigma_qd), Vec(d.tau_true),
          argnames=("t", "q", "qd", "qdd", "tau", "q_meas", "qd_meas", "sigma_tau", "sigma_q", "sigma_qd", "tau_true")))
    add(E("benchmark:IdentificationProblem", benchmark.IdentificationProblem, Obj(problem.robot), Obj(problem.base),
          Obj(problem.data), Vec(problem.prior), argnames=("robot", "base", "data", "prior"),
          prior_std=Vec(np.abs(problem.prior) * 0.1 + 1e-3), options=Obj({})))
    add(E("benchmark:IdentificationProblem.option", problem.option, Text("ekf"), Text("rel"), None,
          argnames=("method", "key", "default")))
    add(E("benchmark:FitResult", benchmark.FitResult, Vec(problem.prior, skip=("shape",)), Int(1, zero_ok=True),
          argnames=("params", "iterations"), info=Obj({})))
    add(E("benchmark:perturb_robot", benchmark.perturb_robot, Obj(R2), Seed(1), argnames=("robot", "rng"),
          mass=NonNeg(0.1), com=NonNeg(0.01), inertia=NonNeg(0.1), angle=NonNeg(0.1)))
    add(E("benchmark:prior_std", benchmark.prior_std, Obj(R2), Obj(bp), Seed(0), argnames=("robot", "base", "rng"),
          n_samples=Int(20, huge=10**12)))
    add(E("benchmark:clean_experiment", benchmark.clean_experiment, Obj(R2), Obj(traj), argnames=("robot", "trajectory")))
    add(E("benchmark:add_measurement_noise", benchmark.add_measurement_noise, Obj(clean), NonNeg(0.02), Seed(0),
          argnames=("data", "level", "rng"), sigma_q=Vec(1e-4, skip=("shape",)), sigma_qd=Vec(1e-3, skip=("shape",))))
    for f in (benchmark.fit_ls, benchmark.fit_wls, benchmark.fit_adaline, benchmark.fit_hopfield, benchmark.fit_ekf):
        add(E(f"benchmark:{f.__name__}", f, Obj(problem), argnames=("problem",)))
    add(E("benchmark:compare_methods", benchmark.compare_methods, Obj(problem), argnames=("problem",),
          validation=Obj(study.validation), truth=Vec(study.truth), methods=Names(["LS"]), catch=Flag(True)))
    add(E("benchmark:monte_carlo", benchmark.monte_carlo, Obj(R2), Obj(bp), Obj(clean), Vec([0.01], skip=("shape",)),
          Int(1, huge=10**12), Int(0, zero_ok=True), argnames=("robot", "base", "clean", "levels", "n_runs", "seed"),
          prior=Vec(study.prior), truth=Vec(study.truth), methods=Names(["LS"])))
    add(E("benchmark:summarize", benchmark.summarize, Obj(tab), argnames=("table",),
          by=Names(["method"], skip=("shape",)), values=Names(["err"], skip=("shape",))))
    add(E("benchmark:Study.problem", study.problem, NonNeg(0.02), Seed(0), argnames=("level", "rng")))
    add(E("benchmark:make_study", benchmark.make_study, Obj(R2, alias=("cad",)), Int(1, zero_ok=True),
          argnames=("cad", "seed"), duration=Pos(0.5), fs=Pos(50.0), frequency=Pos(0.5), n_harmonics=Int(2, huge=10**9),
          optimize=Int(0, zero_ok=True, huge=10**12), validation_duration=Pos(0.5),
          validation_harmonics=Int(2, huge=10**9), validation_optimize=Int(0, zero_ok=True, huge=10**12)))

    # ------------------------------------------------------------------ multibody
    rb = o["rb"]
    add(E("multibody:RigidBody", mb_body.RigidBody, Text("b"), argnames=("name",), mass=NonNeg(2.0),
          com=Vec([0.1, 0.0, 0.0]), inertia=Vec(np.diag([0.1, 0.2, 0.3]))))
    add(E("multibody:RigidBody.point_matrix", rb.point_matrix, Vec([0.1, 0.0, 0.0], skip=("empty",)), argnames=("local",)))
    add(E("multibody:RigidBody.vector_matrix", rb.vector_matrix, Vec([0.1, 0.0, 0.0], skip=("empty",)), argnames=("local",)))
    add(E("multibody:RigidBody.gravity_force", rb.gravity_force, Vec([0.0, 0.0, -9.81]), argnames=("gravity",)))
    add(E("multibody:point_matrix", mb_body.point_matrix, Vec([0.1, 0.0, 0.0], skip=("empty",)), argnames=("local",)))
    add(E("multibody:vector_matrix", mb_body.vector_matrix, Vec([0.1, 0.0, 0.0], skip=("empty",)), argnames=("local",)))
    add(E("multibody:generic_mass_matrix", mb_body.generic_mass_matrix, NonNeg(2.0), Vec([0.1, 0.0, 0.0]),
          Vec(np.diag([0.1, 0.2, 0.3])), argnames=("mass", "com", "inertia")))
    add(E("multibody:skew", mb_body.skew, Vec([1.0, 2.0, 3.0], skip=("empty",)), argnames=("a",)))
    q9 = mb_body.full_to_reduced(o["qb"])
    add(E("multibody:reduced_to_full", mb_body.reduced_to_full, Vec(q9), argnames=("q_reduced",)))
    add(E("multibody:full_to_reduced", mb_body.full_to_reduced, Vec(o["qb"]), argnames=("q_full",), tol=Tol(1e-8)))
    add(E("multibody:expansion_jacobian", mb_body.expansion_jacobian, Vec(q9), argnames=("q_reduced",)))
    add(E("multibody:body_coordinates", mb_body.body_coordinates, Vec([1.0, 2.0, 3.0]), Vec(np.eye(3)),
          argnames=("origin", "rotation"), tol=Tol(1e-9)))
    add(E("multibody:body_pose", mb_body.body_pose, Vec(o["qb"], alias=("q_body",)), argnames=("q_body",)))
    add(E("multibody:check_body_vectors", mb_body.check_body_vectors, Vec(o["qb"]), argnames=("q_body",),
          tol=Tol(1e-6), name=Text("q_body")))
    add(E("multibody:Spherical", mb_con.Spherical, Text("ground"), Vec([0.0, 0.0, 0.0]), Text("b"), Vec([0.0, 0.0, -1.0]),
          argnames=("body_i", "point_i", "body_j", "point_j")))
    add(E("multibody:Revolute", mb_con.Revolute, Text("ground"), Vec([0.0, 0.0, 0.0]), Vec([0.0, 0.0, 1.0]), Text("b"),
          Vec([0.0, 0.0, 0.0]), Vec([0.0, 0.0, 1.0]), argnames=("body_i", "point_i", "axis_i", "body_j", "point_j", "axis_j")))
    add(E("multibody:MixedCoordinateRelation", mb_con.MixedCoordinateRelation, Text("th"), Text("ground"),
          Vec([1.0, 0.0, 0.0]), Text("b"), Vec([0.0, 1.0, 0.0]), argnames=("angle", "body_i", "s_i", "body_j", "s_j"),
          axis_i=Vec([0.0, 0.0, 1.0]), form=Choice("cos")))
    add(E("multibody:MixedCoordinateRelation.angle_from_vectors", o["mcr"].angle_from_vectors,
          Vec([[1.0, 0.0, 0.0]], skip=("empty",)), Vec([[0.0, 1.0, 0.0]]), argnames=("s_i", "s_j"),
          axis_i=Vec([[0.0, 0.0, 1.0]])))
    add(E("multibody:RigidBodyConstraints", mb_con.RigidBodyConstraints, Names(["b", "c"], skip=("shape",)),
          argnames=("bodies",)))
    add(E("multibody:AngleDriver", mb_con.AngleDriver, Names(list(sys_.angle_names), skip=("shape",)),
          argnames=("angles",)))
    ad = o["ad"]
    add(E("multibody:AngleDriver.phi", ad.phi, Vec(q0), argnames=("q",), p=Vec(ref.theta[0], alias=("angles",))))
    add(E("multibody:AngleDriver.jacobian", ad.jacobian, Vec(q0), argnames=("q",)))
    add(E("multibody:AngleDriver.nu", ad.nu, Vec(np.zeros(3), alias=("angle_rates",)), argnames=("pd",)))
    add(E("multibody:Marker", mb_con.Marker, Text("P"), Text("b"), Vec([0.1, 0.0, 0.0]), argnames=("name", "body", "local")))
    add(E("multibody:TrackedVector", mb_con.TrackedVector, Text("v"), Text("b"), Vec([1.0, 0.0, 0.0]),
          argnames=("name", "body", "local")))
    tc = o["tc"]
    add(E("multibody:MarkerTracking.positions", tc.positions, Vec(q0), argnames=("q",)))
    add(E("multibody:MarkerTracking.phi", tc.phi, Vec(q0), argnames=("q",),
          p=Vec(ref.markers[0].ravel(), alias=("markers",))))
    add(E("multibody:MarkerTracking.jacobian", tc.jacobian, Vec(q0), argnames=("q",)))
    add(E("multibody:perpendicular_vectors", mb_con.perpendicular_vectors, Vec([0.0, 0.0, 1.0]), argnames=("axis",)))
    add(E("multibody:Linear", mb_con.Linear, Vec(np.eye(3, 12), skip=("shape",)), Vec(np.zeros(3)), argnames=("A", "a")))
    add(E("multibody:Linear.point", mb_con.Linear.point, Obj(o["sys1"]), Text("b"), Vec([0.5, 0.0, 0.0]),
          argnames=("system", "body", "local")))
    add(E("multibody:MultibodySystem", mb_system.MultibodySystem, Obj([mb_body.RigidBody("b", mass=1.0)]),
          Obj([o["sph"]]), argnames=("bodies", "joints"), gravity=Vec([0.0, 0.0, -9.81])))
    for meth, args, nm in (("phi", (Vec(q0),), ("q",)), ("jacobian", (Vec(q0),), ("q",)),
                           ("gamma", (Vec(q0), Vec(qd0)), ("q", "qd")),
                           ("hessian", (Vec(q0), Vec(np.zeros(sys_.n_constraints))), ("q", "lam")),
                           ("marker_positions", (Vec(q0),), ("q",)), ("angles", (Vec(q0),), ("q",)),
                           ("body_slice", (Text("link1"),), ("name",)), ("angle_index", (Text(sys_.angle_names[0]),), ("name",)),
                           ("check_coordinates", (Vec(q0),), ("q",))):
        add(E(f"multibody:MultibodySystem.{meth}", getattr(sys_, meth), *args, argnames=nm))
    add(E("multibody:mass_matrix", mb_dyn.mass_matrix, Obj(sys_), argnames=("system",)))
    add(E("multibody:gravity_forces", mb_dyn.gravity_forces, Obj(sys_), argnames=("system",)))
    add(E("multibody:inverse_dynamics", mb_dyn.inverse_dynamics, Obj(sys_), Batch(ref.q), Batch(ref.qdd),
          argnames=("system", "q", "qdd")))
    chain = o["chain"]
    add(E("multibody:Link", mb_models.Link, Text("l1"), Text("ground"), Vec([0.0, 0.0, 0.0]), Vec([0.0, 0.0, 1.0]),
          Vec([0.0, 0.0, 0.1]), Pos(1.0), Vec([0.01, 0.01, 0.01]), argnames=("name", "parent", "joint", "axis", "com",
                                                                           "mass", "inertia"),
          markers=Vec([[0.0, 0.0, 0.2]], skip=("empty",))))
    add(E("multibody:open_chain", mb_models.open_chain, Text("c"), Obj([o["link"]]), argnames=("name", "links"),
          gravity=Vec([0.0, 0.0, -9.81])))
    add(E("multibody:ChainModel.joint_trajectory", chain.joint_trajectory, Vec(t, skip=("shape", "empty")),
          argnames=("t",)))
    add(E("multibody:ChainModel.forward_kinematics", chain.forward_kinematics, Batch([0.1, 0.2, 0.3]), argnames=("phi",),
          phid=Batch([0.0, 0.1, 0.0]), phidd=Batch([0.0, 0.0, 0.1])))
    add(E("multibody:ChainModel.coordinates", chain.coordinates, Batch([0.1, 0.2, 0.3]), argnames=("phi",),
          phid=Batch([0.0, 0.1, 0.0])))
    add(E("multibody:ChainModel.reference_motion", chain.reference_motion, duration=Pos(0.05), rate=Pos(100.0)))
    add(E("multibody:ChainModel.joint_angles", chain.joint_angles, Vec([0.1, 0.2, 0.3], skip=("empty",)),
          argnames=("theta",)))
    add(E("multibody:perturb_markers", mb_models.perturb_markers, Vec(ref.markers, skip=("empty",)), NonNeg(0.01), Seed(0),
          argnames=("markers", "max_perturbation", "rng"), kind=Choice("white"), rate=Pos(100.0),
          max_frequency=Pos(2.0)))
    markers = ref.markers
    add(E("multibody:solve_kinematics", mb_solvers.solve_kinematics, Obj(sys_), Vec(markers, skip=("empty",)),
          Choice("nrm-wls"), argnames=("system", "markers", "method"), weight=Pos(1e-3), tol=Tol(1e-10),
          max_iter=Int(20),
          q0=Vec(q0), objective=Choice("tc"), clock=Choice("wall")))
    add(E("multibody:solve_driven", mb_solvers.solve_driven, Obj(sys_), Vec(ref.theta, skip=("empty",)),
          argnames=("system", "angles"), q0=Vec(q0), tol=Tol(1e-10), max_iter=Int(50),
          method=Choice("ad"), clock=Choice("wall")))
    add(E("multibody:angles_from_markers", mb_solvers.angles_from_markers, Obj(sys_), Vec(markers, skip=("empty",)),
          argnames=("system", "markers")))
    add(E("multibody:pose_from_markers", mb_solvers.pose_from_markers, Obj(sys_), Vec(markers, skip=("empty",)),
          argnames=("system", "markers")))
    add(E("multibody:solve_velocities", mb_solvers.solve_velocities, Obj(sys_), Vec(ref.q), argnames=("system", "q"),
          angle_rates=Vec(ref.phid, alias=("angle_rates",)), weight=Pos(1e-3)))
    add(E("multibody:solve_accelerations", mb_solvers.solve_accelerations, Obj(sys_), Vec(ref.q), Vec(ref.qd),
          argnames=("system", "q", "qd"), angle_accelerations=Vec(ref.phidd), weight=Pos(1e-3)))
    kres = o["kres"]
    add(E("multibody:KinematicsResult", mb_solvers.KinematicsResult, Vec(kres.q, skip=("shape",)),
          Vec(kres.angles, skip=("shape",)),
          Vec(kres.iterations), Vec(kres.time), Vec(kres.phi_norm), Vec(kres.max_violation), Choice(kres.method),
          Pos(kres.tol), argnames=("q", "angles", "iterations", "time", "phi_norm", "max_violation", "method", "tol")))
    # ------------------------------------------------------------------ the rest of the API
    add(E("benchmark:Study", benchmark.Study, Obj(R2), Obj(study.real), Obj(bp), Vec(study.truth), Vec(study.prior),
          Vec(study.prior_std), Obj(study.train), Obj(study.validation), Obj(study.excitation),
          Obj(study.validation_excitation), Obj(study.settings), Obj(study.essential), Vec(study.column_scale),
          Vec(study.wls_std), Obj(study.pipeline),
          argnames=("cad", "real", "base", "truth", "prior", "prior_std", "train", "validation", "excitation",
                    "validation_excitation", "settings", "essential", "column_scale", "wls_std", "pipeline")))
    # the fair benchmark of chapter 9
    pipe = benchmark.MeasurementPipeline()
    add(E("benchmark:MeasurementPipeline", benchmark.MeasurementPipeline, Pos(5.0), Int(2, huge=10**9), NonNeg(0.5),
          Int(4, huge=10**6), argnames=("cutoff", "factor", "trim", "order")))
    add(E("benchmark:MeasurementPipeline.noise_gain", pipe.noise_gain, Pos(100.0), argnames=("fs",)))
    add(E("benchmark:MeasurementPipeline.apply", pipe.apply, Obj(study.train), argnames=("data",)))
    for f in (benchmark.fit_wls_estimated, benchmark.fit_map, benchmark.fit_adaline_budget,
              benchmark.fit_adaline_online, benchmark.fit_hopfield_budget, benchmark.fit_hopfield_online):
        add(E(f"benchmark:{f.__name__}", f, Obj(problem), argnames=("problem",)))
    add(E("benchmark:noise_rng", benchmark.noise_rng, Int(1, zero_ok=True), NonNeg(0.02), Int(0, zero_ok=True),
          argnames=("seed", "level", "run")))
    add(E("benchmark:Study.compare", study.compare, Obj(problem), argnames=("problem",), methods=Names(["LS"])))
    add(E("benchmark:load_benchmark", benchmark.load_benchmark, None, argnames=("path",)))
    add(E("estimation.lsq:sandwich_cov", lsq.sandwich_cov, Vec(o["Wr"]), Vec(o["yr"]), argnames=("W", "y")))
    b3 = np.array([1.0, -2.0, 0.5])
    add(E("validation:scaled_parameter_error", validation.scaled_parameter_error, Vec(b3 + 0.01), Vec(b3),
          Vec([1.0, 2.0, 0.5]), argnames=("estimate", "truth", "scale")))
    add(E("validation:standardized_error", validation.standardized_error, Vec(b3 + 0.01), Vec(b3),
          Vec([0.1, 0.2, 0.3]), argnames=("estimate", "truth", "std")))
    add(E("validation:essential_parameters", validation.essential_parameters, Vec(b3), Vec([0.01, 0.5, 0.1]), argnames=("params", "std"),
          threshold=Pos(10.0)))
    add(E("benchmark:Study.monte_carlo", study.monte_carlo, Vec([0.01], skip=("shape",)), Int(1, huge=10**12),
          Int(0, zero_ok=True), argnames=("levels", "n_runs", "seed"), methods=Names(["LS"])))
    sym_ident = augmented.AugmentedStateIdentifier(
        o["sym"], 0.02, x0=[0.1, 0.0, 1.0, 5.0, 0.1], Q=np.zeros(5), R=[1e-6], P0=[0, 0, 1, 1, 1.0])
    for meth in ("dynamics_jacobian", "analytic_transition_jacobian"):
        add(E(f"estimation:AugmentedStateIdentifier.{meth}", getattr(sym_ident, meth), Vec(x5), Vec(u1),
              argnames=("x", "u")))
    add(E("estimation:RobotBaseModel", base_model.RobotBaseModel, Obj(R2), Obj(bp), Names(("viscous",), skip=("shape",)),
          Flag(False), None, argnames=("robot", "base", "friction", "base_has_friction", "symbolic")))
    add(E("estimation:SymbolicRobotBaseModel", base_model.SymbolicRobotBaseModel, Obj(R2), Obj(bp), (), Flag(False),
          Obj(o["sym"]), argnames=("robot", "base", "friction", "base_has_friction", "symbolic")))
    sph = mb_con.Spherical("ground", [0, 0, 0], "link1", [0, 0, 0])
    add(E("multibody:Constraint.bind", sph.bind, Obj(sys_), argnames=("system",)))
    bound = sph.bind(sys_)
    for meth, args, nm in (("phi", (Vec(q0),), ("q",)), ("jacobian", (Vec(q0),), ("q",)),
                           ("gamma", (Vec(q0), Vec(qd0)), ("q", "qd")),
                           ("hessian", (Vec(q0), Vec(np.zeros(3))), ("q", "lam"))):
        add(E(f"multibody:Constraint.{meth}", getattr(bound, meth), *args, argnames=nm))
    add(E("multibody:AngleDriver.hessian", ad.hessian, Vec(q0), Vec(np.zeros(3)), argnames=("q", "lam")))
    add(E("multibody:AngleDriver.gamma", ad.gamma, Vec(q0), Vec(qd0), argnames=("q", "qd"),
          pdd=Vec(ref.phidd[0], alias=("angle_accelerations",))))
    add(E("multibody:MarkerTracking", mb_con.MarkerTracking, Obj(list(sys_.markers)), argnames=("markers",)))
    add(E("multibody:VectorTracking", mb_con.VectorTracking, Obj([mb_con.TrackedVector("v", "b", [1.0, 0, 0])]),
          argnames=("vectors",)))
    add(E("multibody:MarkerTracking.hessian", tc.hessian, Vec(q0), Vec(np.zeros(tc.n_eq)), argnames=("q", "lam")))
    add(E("multibody:MarkerTracking.nu", tc.nu, Vec(ref.marker_velocities[0], alias=("marker_velocities",)),
          argnames=("pd",)))
    add(E("multibody:MarkerTracking.gamma", tc.gamma, Vec(q0), Vec(qd0), argnames=("q", "qd"),
          pdd=Vec(ref.marker_accelerations[0], alias=("marker_accelerations",))))
    add(E("multibody:Linear.vector", mb_con.Linear.vector, Obj(o["sys1"]), Text("b"), Vec([0.0, 0.0, 1.0]),
          argnames=("system", "body", "local")))
    add(E("multibody:Linear.constant", mb_con.Linear.constant, Obj(o["sys1"]), Vec([0.0, 0.0, 1.0]),
          argnames=("system", "value")))
    idr = mb_dyn.inverse_dynamics(sys_, ref.q[:2], ref.qdd[:2])
    add(E("multibody:InverseDynamicsResult", mb_dyn.InverseDynamicsResult, Vec(idr.torques), Vec(idr.torques_mcr),
          Vec(idr.multipliers), Names(idr.labels), Vec(idr.residual),
          argnames=("torques", "torques_mcr", "multipliers", "labels", "residual")))
    add(E("multibody:ChainModel", mb_models.ChainModel, Text(chain.name), Obj(chain.links), Obj(sys_),
          Vec(chain._amp), Vec(chain._freq), Vec(chain._phase),
          argnames=("name", "links", "system", "amplitudes", "frequencies", "phases")))
    st = ref.state
    add(E("multibody:ChainState", mb_models.ChainState, *[Vec(getattr(st, k)) for k in
                                                          ("rotation", "origin", "velocity", "acceleration",
                                                           "omega", "alpha", "joint_point", "joint_axis")],
          argnames=("rotation", "origin", "velocity", "acceleration", "omega", "alpha", "joint_point", "joint_axis")))
    add(E("multibody:ReferenceMotion", mb_models.ReferenceMotion, *[Vec(getattr(ref, k)) for k in
                                                                    ("t", "phi", "phid", "phidd", "q", "qd", "qdd",
                                                                     "markers", "marker_velocities",
                                                                     "marker_accelerations")], Obj(ref.state),
          argnames=("t", "phi", "phid", "phidd", "q", "qd", "qdd", "markers", "marker_velocities",
                    "marker_accelerations", "state")))
    exc = trajectories.optimize_excitation(R2, ft, base=bp, maxiter=2, n_grid=30, n_constraint=30, n_eval=40)
    add(E("trajectories:ExcitationResult", trajectories.ExcitationResult, Obj(exc.trajectory), Obj(exc.initial),
          Pos(exc.cond_initial), Pos(exc.cond), Vec(exc.history, skip=("shape",)), Vec(exc.start_conds, skip=("shape",)),
          Int(exc.best_start, zero_ok=True), Flag(exc.success), Text(exc.message), Int(exc.nfev, zero_ok=True),
          Choice(exc.scaling), exc.base, Vec(exc.t_eval, skip=("shape",)),
          argnames=("trajectory", "initial", "cond_initial", "cond", "history", "start_conds", "best_start",
                    "success", "message", "nfev", "scaling", "base", "t_eval")))
    # ------------------------------------------------------------------ added on main by the chapter work
    add(E("estimation:whiten_rows", adaline.whiten_rows, Vec(W, skip=("shape",)), Vec(y), Int(2), Vec([0.1, 0.2]),
          argnames=("W", "y", "n_joints", "sigma")))
    add(E("estimation:adaline_batch", adaline.adaline_batch, Vec(W, skip=("shape",)), Vec(y), argnames=("W", "y"),
          n_joints=Int(2), sigma=Vec([0.1, 0.2]), w0=Vec(np.zeros(6)), epochs=Int(50, huge=10**12, zero_ok=True),
          rate=Pos(0.9),
          equilibrate=Flag(False), tol=Tol(1e-10), max_epochs=Int(1000, huge=10**12)))
    Yb3 = bp.reduce(regressor_module.regressor(R2, *states3))
    tau3 = dynamics.inverse_dynamics(R2, *states3, include_friction=False)
    add(E("estimation:adaline_online", adaline.adaline_online, Vec(Yb3), Vec(tau3), argnames=("Y", "tau"),
          sigma=Vec([0.1, 0.2]), rate=Pos(0.5), w0=Vec(np.zeros(6)), passes=Int(1, huge=10**12), eps=Pos(1e-12)))
    add(E("estimation:recursive_least_squares", adaline.recursive_least_squares, Vec(Yb3), Vec(tau3),
          argnames=("Y", "tau"), forgetting=Pos(1.0), sigma=Vec([0.1, 0.2]), w0=Vec(np.zeros(6)), p0=Pos(1e6)))
    add(E("estimation:hopfield_batch", hopfield.hopfield_batch, Vec(o["Phi"], skip=("shape",)), Vec(o["tau_h"]),
          argnames=("Phi", "tau"), alpha=Pos(5.0, skip=("shape",)), beta=Pos(1.0), S0=Vec([0.0, 0.0, 0.0]),
          t_final=Pos(5.0), n_tc=Pos(30.0), scale=Choice("mean"), check=Flag(True)))
    add(E("estimation:hopfield_online", hopfield.hopfield_online, Vec(o["Phi3"]), Vec(o["tau3"]), Vec(t3, skip=("shape",)),
          argnames=("Phi", "tau", "t"), alpha=Pos(4.0, skip=("shape",)), beta=Pos(0.05), window=Int(1),
          forgetting=Pos(1.0), S0=Vec([0.0, 0.0]), scale=Choice("mean"), check=Flag(True)))
    add(E("estimation:FiniteDifferenceModel", base_model.FiniteDifferenceModel, Obj(o["rbm"]), Tol(1e-6),
          argnames=("model", "step")))
    fdm = base_model.with_finite_differences(o["rbm"])
    add(E("estimation:with_finite_differences", base_model.with_finite_differences, Obj(o["rbm"]),
          argnames=("model",), step=Tol(1e-6)))
    for meth, args, nm in (("regressor", (Batch(Q2), Batch(QD2), Batch(QDD2)), ("q", "qd", "qdd")),
                           ("affine_terms", (Vec(Q1), Vec(QD2[0])), ("q", "qd")),
                           ("regressor_derivatives", (Vec(Q1), Vec(QD2[0]), Vec(QDD2[0])), ("q", "qd", "qdd"))):
        add(E(f"estimation:FiniteDifferenceModel.{meth}", getattr(fdm, meth), *args, argnames=nm))
    innov = np.random.default_rng(3).normal(size=(200, 2))
    add(E("estimation:whiteness_test", consistency.whiteness_test, Series(innov), argnames=("innovations",),
          S=Vec(np.tile(np.eye(2), (200, 1, 1))), lags=Int(10, huge=10**9), confidence=Pos(0.95)))
    wt = consistency.whiteness_test(innov, lags=10)
    add(E("estimation:WhitenessTest", consistency.WhitenessTest, Vec(wt.lags), Vec(wt.acf, skip=("shape",)), NonNeg(wt.bound),
          NonNeg(wt.outside), NonNeg(wt.statistic), Int(wt.dof), NonNeg(wt.p_value), Flag(wt.white),
          argnames=("lags", "acf", "bound", "outside", "statistic", "dof", "p_value", "white")))
    I2 = np.tile(np.eye(2), (5, 1, 1))
    add(E("estimation:rts_smoother", smoother.rts_smoother, Vec(np.zeros((5, 2))), Vec(I2), Vec(np.zeros((4, 2))),
          Vec(2 * I2[:4]), Vec(I2[:4]), argnames=("x_filt", "P_filt", "x_pred", "P_pred", "F")))
    Fm, Hm = np.array([[1.0, 0.1], [0.0, 1.0]]), np.array([[1.0, 0.0]])
    add(E("estimation:iterated_extended_smoother", smoother.iterated_extended_smoother,
          Func(lambda x, u: Fm @ x), Func(lambda x, u: Fm), Func(lambda x: Hm @ x), Func(lambda x: Hm),
          Vec(1e-6 * np.eye(2)), Vec([[1e-4]]), Vec([0.0, 0.0]), Vec(np.eye(2)), Vec(np.linspace(0, 1, 6)[:, None]),
          argnames=("f", "F_jac", "h", "H_jac", "Q", "R", "x0", "P0", "z"), iterations=Int(3, huge=10**12),
          tol=Tol(1e-9)))
    smooth_ident = augmented.AugmentedStateIdentifier(o["pend_Yb"], 0.02, n=1, p=3, x0=[0.1, 0.0, 1.0, 5.0, 0.1],
                                                      Q=np.full(5, 1e-8), R=[1e-6], P0=[1e-4, 1e-4, 1, 1, 1])
    add(E("estimation:AugmentedStateIdentifier.smooth", smooth_ident.smooth, Vec(tt, skip=("shape",)),
          Vec(np.zeros((5, 1))), Vec(np.full((5, 1), 0.1)), argnames=("t", "tau", "z"), torque=Choice("hold")))
    pi1 = P[:10]
    add(E("params:pseudo_inertia", params.pseudo_inertia, Vec(pi1, skip=("shape",)), argnames=("pi_j",)))
    add(E("params:pseudo_inertia_params", params.pseudo_inertia_params, Vec(params.pseudo_inertia(pi1)),
          argnames=("J",), tol=Tol(1e-9, skip=("zero",))))
    add(E("params:consistency_report", params.consistency_report, Vec(P), argnames=("pi",), tol=NonNeg(0.0)))
    rep = params.consistency_report(P)
    add(E("params:ConsistencyReport", params.ConsistencyReport, Flag(rep.consistent), Vec(rep.per_link, skip=("nan", "inf", "complex", "bool")),
          Vec(rep.mass), Vec(rep.min_moment, skip=("nan",)), Vec(rep.triangle_margin, skip=("nan",)),
          Vec(rep.min_eig_pseudo), Obj(rep.failures),
          NonNeg(rep.tol), argnames=("consistent", "per_link", "mass", "min_moment", "triangle_margin",
                                     "min_eig_pseudo", "failures", "tol")))
    add(E("params:nearest_consistent", params.nearest_consistent, Vec(P), argnames=("pi",), margin=NonNeg(0.0),
          length=Pos(1.0, skip=("shape",))))
    c_pol = np.array([[0.0, 0.2, -0.1, 0.05], [0.1, -0.2, 0.1, 0.0]])
    add(E("trajectories:PolynomialTrajectory", trajectories.PolynomialTrajectory, Pos(2.0), Vec(c_pol, skip=("shape",)),
          argnames=("T", "c"), periodic=Obj(ft)))
    pt = trajectories.PolynomialTrajectory(2.0, c_pol)
    add(E("trajectories:PolynomialTrajectory.with_coefficients", pt.with_coefficients, Vec(pt.pack()), argnames=("x",)))
    add(E("trajectories:PolynomialTrajectory.evaluate", pt.evaluate, Vec(t, skip=("shape",)), argnames=("t",)))
    add(E("trajectories:polynomial_basis", trajectories.polynomial_basis, Vec(t, skip=("shape",)), Pos(1.0), Int(2),
          Int(3, huge=10**9), argnames=("t", "T", "n_joints", "degree")))
    add(E("trajectories:random_polynomial", trajectories.random_polynomial, Obj(R2), Pos(2.0), Seed(0),
          argnames=("robot", "T", "rng"), degree=Int(3, huge=10**9), fill=Pos(0.8), n_grid=Int(50, huge=10**12)))
    add(E("trajectories:optimize_polynomial_excitation", trajectories.optimize_polynomial_excitation, Obj(R2),
          Obj(trajectories.random_polynomial(R2, 2.0, 0, degree=3, n_grid=50)), argnames=("robot", "initial"),
          base=Obj(bp), scaling=Choice("columns"), n_starts=Int(1, huge=10**9), rng=Seed(0, none_ok=True),
          n_grid=Int(30, huge=10**12), n_constraint=Int(30, huge=10**12), n_eval=Int(40, huge=10**12),
          margin=NonNeg(0.02), maxiter=Int(2), ftol=Tol(1e-6), friction=Flag(False)))
    import tempfile
    store = tempfile.mkdtemp(prefix="robidlib_sweep_")
    trajectories.save_excitation(ft, "sweep", directory=store)
    add(E("trajectories:save_excitation", trajectories.save_excitation, Obj(ft), Text("x"), argnames=("trajectory", "name"),
          meta=Obj({"a": 1}), directory=Path_(store, extra=(("type", None), ("foreign", trajectories.EXCITATION_DIR))),
          overwrite=Flag(True)))
    add(E("trajectories:load_excitation", trajectories.load_excitation, Text("sweep"), argnames=("name",),
          directory=Text(store)))
    add(E("trajectories:stored_excitations", trajectories.stored_excitations, directory=Text(store)))
    # ------------------------------------------------------------------ multibody.drivers
    fcc = mb_drv.classical_system(sys_)
    ars = mb_drv.angular_relations(sys_)
    ar = ars[0].bind(fcc)
    qc0, qcd0 = q0[:fcc.n_coords], qd0[:fcc.n_coords]
    th0, thd0, thdd0 = ref.theta[0, 0], ref.phid[0, 0], ref.phidd[0, 0]
    add(E("multibody.drivers:AngularRelation", mb_drv.AngularRelation, Text("ground"), Vec([1.0, 0.0, 0.0]),
          Text("link1"), Vec([0.0, 1.0, 0.0]), argnames=("body_i", "s_i", "body_j", "s_j"), name=Text("ar")))
    add(E("multibody.drivers:AngularRelation.phi", ar.phi, Vec(qc0), argnames=("q",),
          p=Vec([th0], alias=("angle",))))
    add(E("multibody.drivers:AngularRelation.nu", ar.nu, Vec([thd0], alias=("rate",)), argnames=("pd",),
          p=Vec([th0], alias=("angle",))))
    add(E("multibody.drivers:AngularRelation.gamma", ar.gamma, Vec(qc0), Vec(qcd0), argnames=("q", "qd"),
          pdd=Vec([thdd0], alias=("acceleration",)), pd=Vec([thd0], alias=("rate",)),
          p=Vec([th0], alias=("angle",))))
    add(E("multibody.drivers:classical_system", mb_drv.classical_system, Obj(sys_), argnames=("system",)))
    add(E("multibody.drivers:angular_relations", mb_drv.angular_relations, Obj(sys_), argnames=("system",)))
    ark = mb_drv.solve_angular_relations(fcc, ars, ref.theta[:2], q0=qc0, rates=ref.phid[:2],
                                         accelerations=ref.phidd[:2])
    add(E("multibody.drivers:ARKinematics", mb_drv.ARKinematics, Vec(ark.q), Vec(ark.qd), Vec(ark.qdd),
          Vec(ark.iterations),
          argnames=("q", "qd", "qdd", "iterations")))
    add(E("multibody.drivers:solve_angular_relations", mb_drv.solve_angular_relations, Obj(fcc), Obj(ars),
          Vec(ref.theta[:2]), argnames=("system", "relations", "angles"), q0=Vec(qc0), rates=Vec(ref.phid[:2]),
          accelerations=Vec(ref.phidd[:2]), tol=Tol(1e-10), max_iter=Int(50)))

    # ------------------------------------------------------------------ multibody.study
    mk3 = ref.markers[:3]
    add(E("multibody.study:perturb_coordinates", mb_study.perturb_coordinates, Vec(mk3), NonNeg(0.0075), Seed(0),
          argnames=("markers", "bound", "rng"), kind=Choice("white"), points=Vec([0, 1]), rate=Pos(100.0),
          max_frequency=Pos(2.0)))
    one_case = [("AD", "ad", {})]
    cmp = mb_study.compare_solvers(sys_, mk3, ref.q[:3], one_case)
    add(E("multibody.study:SolverComparison", mb_study.SolverComparison, Obj(cmp.table), argnames=("table",),
          results=Obj(cmp.results)))
    add(E("multibody.study:compare_solvers", mb_study.compare_solvers, Obj(sys_), Vec(mk3), Vec(ref.q[:3]),
          Obj(one_case), argnames=("system", "markers", "reference_q", "cases"), evaluate=Obj(sys_),
          clock=Choice("cpu"), q0=Vec(q0), on_failure=Choice("raise"), rate=Pos(100.0)))
    ind = mb_study.solve_independently(sys_, mk3[:2], "nrm-wls", q0=q0)
    add(E("multibody.study:IndependentFrames", mb_study.IndependentFrames, Vec(ind.q, skip=("shape",)),
          Vec(ind.converged, skip=("bool",)), Vec(ind.iterations), Obj(ind.messages),
          argnames=("q", "converged", "iterations", "messages")))
    add(E("multibody.study:solve_independently", mb_study.solve_independently, Obj(sys_), Vec(mk3[:2]),
          Choice("nrm-wls"), argnames=("system", "markers", "method"), q0=Vec(q0), tol=Tol(1e-10),
          max_iter=Int(20)))
    add(E("multibody.study:rigid_guess", mb_study.rigid_guess, Obj(sys_), Batch(ref.q[:2]), argnames=("system", "q")))
    add(E("multibody.study:marker_subset", mb_study.marker_subset, Obj(sys_),
          Names(list(sys_.marker_names[:2]), skip=("shape",)), argnames=("system", "names")))
    sc = mb_study.study_scenario("simple", 7.5, duration=0.02)
    add(E("multibody.study:Scenario", mb_study.Scenario, Obj(sc.model), Obj(sc.system), Obj(sc.evaluate),
          Obj(sc.reference), Vec(sc.markers), argnames=("model", "system", "evaluate", "reference", "markers")))
    add(E("multibody.study:study_scenario", mb_study.study_scenario, Choice("simple"), NonNeg(7.5),
          argnames=("chain", "level_mm"), kind=Choice("white"),
          points=Names(list(sys_.marker_names[:2]), skip=("shape",)), duration=Pos(0.02), rate=Pos(100.0)))
    mixed = dict(levels_mm=Vec([0.0, 7.5]), cases=Obj(one_case), propagation=Flag(False), duration=Pos(0.02),
                 clock=Choice("cpu"))
    add(E("multibody.study:mixed_study", mb_study.mixed_study, Names(["simple"], skip=("shape",)),
          argnames=("chains",), **mixed))
    tiny = mb_study.mixed_study(["simple"], [0.0, 7.5], one_case, propagation=False, duration=0.02)
    piv = dict(chain=Text("simple"), points=Text("all"), kind=Choice("white"),
               methods=Names(["AD"], skip=("shape",)), levels_mm=Vec([0.0, 7.5], skip=("shape",)))
    add(E("multibody.study:pivot", mb_study.pivot, Obj(tiny), Text("max_violation"), argnames=("table", "value"),
          **piv))
    add(E("multibody.study:level_table", mb_study.level_table, Obj(tiny), Obj([("tip_mm", "tip", ".2f")]),
          argnames=("table", "columns"), **piv))
    add(E("multibody.study:save_mixed_study", mb_study.save_mixed_study, Obj(tiny),
          Path_(f"{store}/mixed_study.json", extra=(("type", None), ("foreign", mb_study.STUDY_FILE))),
          argnames=("table", "path"), overwrite=Flag(True)))
    mb_study.save_mixed_study(tiny, f"{store}/stored_study.json")
    add(E("multibody.study:load_mixed_study", mb_study.load_mixed_study, Text(f"{store}/stored_study.json"),
          argnames=("path",)))
    # ------------------------------------------------------------------ issue 26: every argument
    # the arguments the first table left out, and the foreign objects (another robot's base
    # parameters, a robot with another joint count)
    from robidlib.models.ur5 import ur5 as _ur5

    U5 = _ur5()
    bp_ur5 = base.base_parameters(U5, rng=0)
    bp_3r = base.base_parameters(SerialRobot.from_dh("RRR", a=[0, 0.4, 0.3], alpha=[np.pi / 2, 0, 0], d=[0.1, 0, 0],
                                                     mass=[1.0, 1.0, 1.0], com=np.full((3, 3), 0.05),
                                                     inertia=np.tile([0.01, 0.01, 0.01, 0, 0, 0], (3, 1))), rng=0)
    add(E("params:is_physically_consistent(explain)", params.is_physically_consistent, P, argnames=("pi",),
          explain=Flag(False)))
    lim2 = dict(q_limits=Vec(R2.q_limits), qd_limits=Vec(R2.qd_limits, skip=("inf",)),
                qdd_limits=Vec(R2.qdd_limits, skip=("inf",)), tau_limits=Vec([10.0, 10.0], skip=("inf",)))
    add(E("robot:SerialRobot.from_dh(names)", SerialRobot.from_dh, "RR", [0.0, 0.5], [0.0, 0.0], [0.0, 0.0],
          argnames=("joint_types", "a", "alpha", "d"), joint_names=Names(("a", "b")), link_names=Names(("l1", "l2")),
          **lim2))
    add(E("robot:SerialRobot.from_urdf(lock)", SerialRobot.from_urdf, R2.to_urdf(), argnames=("source",),
          lock_joints=Names((), extra=(("unknown", ("no-such-joint",)), ("type", 3)))))
    add(E("dynamics:simulate(max_nfev)", dynamics.simulate, R2, ts, [0.1, 0.2], [0.0, 0.0],
          argnames=("robot", "t", "q0", "qd0"), max_nfev=Int(200000)))   # a huge cap is no cap: valid
    add(E("base:base_parameters(names)", base.base_parameters, Wr, argnames=("robot_or_W",),
          names=Names(("a", "b", "c"))))
    add(E("trajectories:quintic(boundary)", trajectories.quintic, t, [0.0, 0.0], [0.5, -0.5], 1.0,
          argnames=("t", "q0", "qf", "T"), qdf=Vec([0.0, 0.0]), qdd0=Vec([0.0, 0.0]), qddf=Vec([0.0, 0.0])))
    add(E("trajectories:quintic_coefficients(boundary)", trajectories.quintic_coefficients, [0.0], [1.0], 1.0,
          argnames=("q0", "qf", "T"), qdf=Vec([0.0]), qdd0=Vec([0.0]), qddf=Vec([0.0])))
    add(E("trajectories:quintic_via(accelerations)", trajectories.quintic_via, [0.0, 1.0, 2.0], [0.0, 1.0, 3.0],
          [0.0, 1.0, 0.0], argnames=("t", "times", "positions"), accelerations=Vec([0.0, 0.0, 0.0])))
    lim_kw = {k: Vec(v, skip=("inf",)) for k, v in (("q_min", [-1.0, -1.0]), ("q_max", [1.0, 1.0]),
                                                      ("qd_max", [5.0, 5.0]), ("qdd_max", [50.0, 50.0]))}
    add(E("trajectories:random_fourier(limits)", trajectories.random_fourier, R2, 2 * np.pi * 0.5, 2, 0,
          argnames=("robot", "wf", "n_harmonics", "rng"), n_grid=50, **lim_kw))
    wide = {k: Vec(v, skip=("inf",)) for k, v in (("q_min", [-3.0, -3.0]), ("q_max", [3.0, 3.0]),
                                                    ("qd_max", [50.0, 50.0]), ("qdd_max", [500.0, 500.0]))}
    add(E("trajectories:optimize_excitation(limits)", trajectories.optimize_excitation, R2, ft,
          argnames=("robot", "initial"), base=Obj(bp, extra=(("foreign", bp_ur5), ("foreign", bp_3r))), maxiter=1,
          n_grid=30, n_constraint=20, n_eval=20, **wide))
    add(E("trajectories:random_polynomial(limits)", trajectories.random_polynomial, R2, 2.0, 0,
          argnames=("robot", "T", "rng"), degree=3, n_grid=50, free=Vec([0, 1], skip=("nan", "inf", "complex")),
          periodic=Obj(ft), **lim_kw))
    ipoly = trajectories.random_polynomial(R2, 2.0, 0, degree=3, n_grid=50)
    add(E("trajectories:optimize_polynomial_excitation(limits)", trajectories.optimize_polynomial_excitation, R2,
          ipoly, argnames=("robot", "initial"), maxiter=1, n_grid=30, n_constraint=30, n_eval=40,
          free=Vec([0, 1], skip=("nan", "inf", "complex")), base=Obj(bp, extra=(("foreign", bp_ur5),)), **wide))
    add(E("trajectories:ExcitationResult(info)", trajectories.ExcitationResult, exc.trajectory, exc.initial,
          exc.cond_initial, exc.cond, exc.history, exc.start_conds, exc.best_start, exc.success, exc.message,
          exc.nfev, exc.scaling, Obj(exc.base), argnames=("trajectory", "initial", "cond_initial", "cond", "history",
                                                        "start_conds", "best_start", "success", "message", "nfev",
                                                        "scaling", "base"),
          t_eval=exc.t_eval, info=Obj({})))
    e_ = o["est"]
    add(E("estimation:Estimate(info)", _estimate.Estimate, e_.params, e_.cov, e_.rel_std, e_.residual_std, 3,
          e_.cond, e_.names, argnames=("params", "cov", "rel_std", "residual_std", "rank", "cond", "names"),
          info=Obj({})))
    nm3 = Names(("a", "b", "c"))
    add(E("estimation:ols(names)", lsq.ols, Wr, yr, argnames=("W", "y"), names=nm3))
    add(E("estimation:ridge(names)", lsq.ridge, Wr, yr, 0.1, argnames=("W", "y", "lam"), names=nm3))
    add(E("estimation:wls(names)", lsq.wls, W, y, 2, argnames=("W", "y", "n_joints"), names=Names(bp.base_names)))
    add(E("estimation:sandwich_cov(params)", lsq.sandwich_cov, Wr, yr, argnames=("W", "y"),
          params=Vec([1.0, -2.0, 0.5]), n_joints=Int(2, huge=10**12)))
    add(E("estimation:Adaline.to_estimate(names)", ada_fitted.to_estimate, Wr, yr, argnames=("W", "y"), names=nm3))
    add(E("estimation:HopfieldEstimator(names)", hopfield.HopfieldEstimator, 5.0, 1.0, argnames=("alpha", "beta"),
          names=Names(("a", "b", "c"), skip=("shape",))))   # the count is checked by run (p is not known here)
    add(E("estimation:HopfieldEstimator.to_estimate(names)", hop_fit.to_estimate, o["Phi"], o["tau_h"],
          argnames=("Phi", "tau"), names=nm3))
    add(E("estimation:HopfieldEstimator.run_online(window)", hopfield.HopfieldEstimator(4.0, 0.05).run_online,
          o["Phi3"], o["tau3"], t3, argnames=("Phi", "tau", "t"), window=Int(3)))   # longer than the data: all of it
    add(E("estimation:hopfield_batch(sigma)", hopfield.hopfield_batch, W, y, argnames=("Phi", "tau"), alpha=5.0,
          n_joints=Int(2, huge=10**12), sigma=Vec([0.1, 0.2]), names=Names(bp.base_names)))
    add(E("estimation:hopfield_online(sigma)", hopfield.hopfield_online, Yb3, tau3, t3[:0] if False else
          np.arange(len(tau3)) * 0.05, argnames=("Phi", "tau", "t"), alpha=4.0, beta=0.05, sigma=Vec([0.1, 0.2]),
          names=Names(bp.base_names)))
    for f in (adaline.adaline_batch,):
        add(E("estimation:adaline_batch(names)", f, W, y, argnames=("W", "y"), n_joints=2, sigma=[0.1, 0.2],
              names=Names(bp.base_names)))
    add(E("estimation:adaline_online(names)", adaline.adaline_online, Yb3, tau3, argnames=("Y", "tau"),
          sigma=[0.1, 0.2], names=Names(bp.base_names)))
    add(E("estimation:recursive_least_squares(names)", adaline.recursive_least_squares, Yb3, tau3,
          argnames=("Y", "tau"), sigma=[0.1, 0.2], names=Names(bp.base_names)))
    add(E("estimation:AugmentedStateIdentifier(names)", augmented.AugmentedStateIdentifier, o["pend_Yb"], 0.02,
          argnames=("model", "dt"), x0=[0.1, 0.0, 1.0, 5.0, 0.1], Q=np.zeros(5), R=[1e-6], P0=[0, 0, 1, 1, 1.0], n=1,
          p=3, names=nm3, F_jac=Func(lambda x, u: np.eye(5))))
    nb = bp.rank
    add(E("estimation:AugmentedStateIdentifier(base)", augmented.AugmentedStateIdentifier, R2, 0.02,
          argnames=("model", "dt"), x0=np.r_[0.1, 0.2, 0.0, 0.0, bp.beta(P)], Q=np.zeros(4 + nb),
          R=[1e-6, 1e-6], P0=np.r_[0, 0, 0, 0, np.ones(nb)],
          base=Obj(bp, extra=(("foreign", bp_ur5), ("foreign", bp_3r)))))
    add(E("estimation:SymbolicModel(names)", symbolic.SymbolicModel, *o["sym_args"], argnames=("Y", "q", "qd", "qdd"),
          names=nm3))
    add(E("estimation:RobotBaseModel(symbolic)", base_model.RobotBaseModel, R2, Obj(bp, extra=(("foreign", bp_ur5),)),
          ("viscous",), False, Obj(None, extra=(("type", "sym"),)),
          argnames=("robot", "base", "friction", "base_has_friction", "symbolic")))
    add(E("estimation:SymbolicRobotBaseModel(friction)", base_model.SymbolicRobotBaseModel, R2, bp,
          Names((), extra=(("unknown", ("sticky",)),)), False, o["sym"],
          argnames=("robot", "base", "friction", "base_has_friction", "symbolic")))
    add(E("estimation:iterated_extended_smoother(u)", smoother.iterated_extended_smoother, lambda x, u: Fm @ x,
          lambda x, u: Fm, lambda x: Hm @ x, lambda x: Hm, 1e-6 * np.eye(2), [[1e-4]], [0.0, 0.0], np.eye(2),
          np.linspace(0, 1, 6)[:, None], np.zeros((5, 1)),
          argnames=("f", "F_jac", "h", "H_jac", "Q", "R", "x0", "P0", "z", "u"),
          unswept={"u": "passed unchanged to the user's f and F_jac (any value they accept)"}))
    add(E("validation:sensitivity(names)", validation.sensitivity, R2, beta, track,
          argnames=("robot_or_model", "params", "trajectory"), steps=2, base=Obj(bp, extra=(("foreign", bp_ur5),)),
          names=Names(bp.base_names), scale=Vec(np.abs(beta) + 0.1)))
    add(E("validation:TrackingResult(failed)", validation.TrackingResult, res.t, res.q, res.qd, res.tau, res.q_ref,
          res.kp, res.kd, argnames=("t", "q", "qd", "tau", "q_ref", "kp", "kd"),
          failed=Flag(False, skip=("type",), extra=(("type", "no"),))))
    add(E("validation:SensitivityResult(scale)", validation.SensitivityResult, sens.names, sens.params,
          sens.variations, sens.rms_joint, sens.rms, sens.output, sens.nominal, sens.failed,
          argnames=("names", "params", "variations", "rms_joint", "rms", "output", "nominal", "failed"),
          scale=Vec(np.ones(len(sens.names)))))
    add(E("benchmark:ResultTable(meta)", benchmark.ResultTable, [{"a": 1.0}], argnames=("rows",),
          meta=Obj({}, extra=(("type", [1]),))))
    add(E("benchmark:ResultTable.to_json", tab.to_json, columnar=Flag(False), indent=Int(1, zero_ok=True)))
    add(E("benchmark:IdentificationProblem(pipeline)", benchmark.IdentificationProblem, problem.robot, problem.base,
          problem.data, problem.prior, argnames=("robot", "base", "data", "prior"), pipeline=Obj(pipe)))
    add(E("benchmark:IdentificationProblem(foreign)", benchmark.IdentificationProblem, Obj(problem.robot, extra=(
        ("foreign", U5),)), Obj(problem.base, extra=(("foreign", bp_ur5), ("foreign", bp_3r))), problem.data,
          problem.prior, argnames=("robot", "base", "data", "prior")))
    add(E("benchmark:IdentificationProblem.option(default)", problem.option, "ekf", "rel", None,
          argnames=("method", "key", "default"), unswept={"default": "any value: returned when the option is unset"}))
    add(E("benchmark:add_measurement_noise(torque_noise)", benchmark.add_measurement_noise, clean, 0.02, 0,
          argnames=("data", "level", "rng"), torque_noise=Choice("joint")))
    ess = study.essential
    add(E("benchmark:compare_methods(essential)", benchmark.compare_methods, problem, argnames=("problem",),
          methods=["LS"], essential=Obj(ess, extra=(("unknown", ["no-such-parameter"]),)),
          column_scale=Vec(study.column_scale)))
    mc_kw = dict(prior=study.prior, truth=study.truth, methods=["LS"])
    add(E("benchmark:monte_carlo(options)", benchmark.monte_carlo, R2, Obj(bp, extra=(("foreign", bp_ur5),)), clean,
          [0.01], 1, 0, argnames=("robot", "base", "clean", "levels", "n_runs", "seed"),
          prior_std=Vec(study.prior_std), validation=Obj(study.validation), sigma_q=Vec(1e-4, skip=("shape",)),
          sigma_qd=Vec(1e-3, skip=("shape",)), torque_noise=Choice("joint"), pipeline=Obj(pipe),
          essential=Obj(ess, extra=(("unknown", ["no-such-parameter"]),)), column_scale=Vec(study.column_scale),
          options=Obj({}, extra=(("unknown", {"no-such-method": {}}),)),
          runs=Vec([0], skip=("nan", "inf", "complex"), extra=(("huge", [10**30]),)), keep_params=Flag(False),
          progress=Func(lambda s: None), **mc_kw))
    add(E("benchmark:Study.problem(exact_motion)", study.problem, 0.02, 0, argnames=("level", "rng"),
          exact_motion=Flag(False)))
    add(E("benchmark:make_study(errors)", benchmark.make_study, R2, 1, argnames=("cad", "seed"), duration=0.5, fs=50.0,
          frequency=0.5, n_harmonics=2, optimize=0, validation_duration=0.5, validation_harmonics=2,
          validation_optimize=0, validation_frequency=Pos(0.5),
          errors=Obj(None, extra=(("unknown", {"no-such-error": 0.1}), ("type", [0.1]))),
          excitation=Obj(ft, extra=(("unknown", "no-such-excitation"),)),
          validation_excitation=Obj(ft, extra=(("unknown", "no-such-excitation"),)), pipeline=Obj(pipe),
          essential_level=Pos(0.01), essential_threshold=Pos(10.0)))
    add(E("benchmark:make_study(foreign)", benchmark.make_study, Obj(R2, extra=(("foreign", U5),)), 1,
          argnames=("cad", "seed"), excitation=ft, validation_excitation=ft, duration=0.5, fs=50.0, optimize=0,
          frequency=0.5, n_harmonics=2, validation_frequency=0.5, validation_harmonics=2,
          validation_duration=0.5, validation_optimize=0))
    add(E("benchmark:Study(foreign)", benchmark.Study, Obj(R2, extra=(("foreign", U5),)), study.real,
          Obj(bp, extra=(("foreign", bp_ur5),)), study.truth, study.prior, study.prior_std, study.train,
          study.validation, study.excitation, study.validation_excitation, study.settings, study.essential,
          study.column_scale, study.wls_std, study.pipeline,
          argnames=("cad", "real", "base", "truth", "prior", "prior_std", "train", "validation", "excitation",
                    "validation_excitation", "settings", "essential", "column_scale", "wls_std", "pipeline")))
    add(E("benchmark:benchmark_study", benchmark.benchmark_study, Obj(__import__("robidlib").models.redundant_5dof(),
                                                                      extra=(("foreign", R2), ("foreign", U5))),
          argnames=("cad",), check_valid=False))
    add(E("benchmark:load_benchmark(path)", benchmark.load_benchmark, Path_(None), argnames=("path",)))
    for cls in (mb_con.Spherical,):
        add(E("multibody:Spherical(name)", cls, "ground", [0.0, 0.0, 0.0], "b", [0.0, 0.0, -1.0],
              argnames=("body_i", "point_i", "body_j", "point_j"), name=Text("S")))
    add(E("multibody:Revolute(name)", mb_con.Revolute, "ground", [0.0, 0.0, 0.0], [0.0, 0.0, 1.0], "b",
          [0.0, 0.0, 0.0], [0.0, 0.0, 1.0], argnames=("body_i", "point_i", "axis_i", "body_j", "point_j", "axis_j"),
          name=Text("R")))
    add(E("multibody:MixedCoordinateRelation(name)", mb_con.MixedCoordinateRelation, "th", "ground", [1.0, 0.0, 0.0],
          "b", [0.0, 1.0, 0.0], argnames=("angle", "body_i", "s_i", "body_j", "s_j"), name=Text("M")))
    add(E("multibody:RigidBodyConstraints(name)", mb_con.RigidBodyConstraints, ["b", "c"], argnames=("bodies",),
          name=Text("RB")))
    add(E("multibody:AngleDriver(name)", mb_con.AngleDriver, list(sys_.angle_names), argnames=("angles",),
          name=Text("AD")))
    add(E("multibody:MarkerTracking(name)", mb_con.MarkerTracking, list(sys_.markers), argnames=("markers",),
          name=Text("TC")))
    add(E("multibody:VectorTracking(name)", mb_con.VectorTracking, [mb_con.TrackedVector("v", "b", [1.0, 0, 0])],
          argnames=("vectors",), name=Text("TV")))
    rev = mb_con.Revolute("ground", [0, 0, 0], [0, 0, 1], "b", [0, 0, 0], [0, 0, 1])
    mcr = mb_con.MixedCoordinateRelation("th", "ground", [1.0, 0, 0], "b", [1.0, 0, 0], axis_i=[0, 0, 1.0])
    add(E("multibody:MultibodySystem(angles)", mb_system.MultibodySystem, [mb_body.RigidBody("b", mass=1.0)], [rev],
          argnames=("bodies", "joints"), angles=Obj([mcr]), markers=Obj([mb_con.Marker("P", "b", [0.1, 0, 0])]),
          vectors=Obj([mb_con.TrackedVector("v", "b", [1.0, 0, 0])]),
          angle_names=Names(["th"], extra=(("unknown", ["no-such-angle"]),))))
    add(E("multibody:MultibodySystem.check_coordinates(tol)", sys_.check_coordinates, q0, argnames=("q",),
          name=Text("q"), tol=Tol(1e-6)))
    add(E("multibody:open_chain(motion)", mb_models.open_chain, "c", [o["link"]], argnames=("name", "links"),
          amplitudes=Vec([[0.3]]), frequencies=Vec([0.5]), phases=Vec([[0.0]])))
    add(E("multibody:ChainModel.coordinates(phidd)", chain.coordinates, [0.1, 0.2, 0.3], argnames=("phi",),
          phid=[0.0, 0.1, 0.0], phidd=Batch([0.0, 0.0, 0.1])))
    add(E("multibody:solve_kinematics(vectors)", mb_solvers.solve_kinematics, sys_, markers, argnames=("system", "markers"),
          vectors=Obj(None, extra=(("type", "v"), ("shape", np.zeros((1, 1, 3)))))))
    add(E("multibody:solve_velocities(marker_velocities)", mb_solvers.solve_velocities, sys_, ref.q,
          argnames=("system", "q"), marker_velocities=Vec(ref.marker_velocities)))
    add(E("multibody:solve_accelerations(marker_accelerations)", mb_solvers.solve_accelerations, sys_, ref.q, ref.qd,
          argnames=("system", "q", "qd"), marker_accelerations=Vec(ref.marker_accelerations)))
    add(E("multibody:KinematicsResult(info)", mb_solvers.KinematicsResult, kres.q, kres.angles, kres.iterations,
          kres.time, kres.phi_norm, kres.max_violation, kres.method, kres.tol,
          argnames=("q", "angles", "iterations", "time", "phi_norm", "max_violation", "method", "tol"), info=Obj({})))
    add(E("multibody:Constraint.phi(p)", bound.phi, q0, argnames=("q",), p=None,
          unswept={"p": "the driving data of drivers; a topological constraint (here a spherical joint) has none"}))
    add(E("multibody:Constraint.gamma(pdd)", bound.gamma, q0, qd0, argnames=("q", "qd"), pdd=None,
          unswept={"pdd": "the driving data of drivers; a topological constraint has none"}))
    other_2r = SerialRobot.from_dh("RR", a=[0.0, 0.3], alpha=[np.pi / 2, 0.0], d=[0.2, 0.0], mass=[1.0, 1.0],
                                   com=[[0.1, 0, 0], [0.1, 0, 0]], inertia=np.tile([0.01, 0.01, 0.01, 0, 0, 0], (2, 1)))
    bp_2r = base.base_parameters(other_2r, rng=0)        # another 2-joint robot: same names, other regrouping
    add(E("regressor:regressor(foreign base)", regressor_module.regressor, R2, Q2, QD2, QDD2,
          argnames=("robot", "q", "qd", "qdd"), base=Obj(bp, extra=(("foreign", bp_3r), ("foreign", bp_ur5),
                                                                     ("foreign", bp_2r),
                                                                     ("foreign", base.base_parameters(
                                                                         R2.with_gravity([0, 0, 0]), rng=0))))))
    add(E("base:check_base_of", base.check_base_of, Obj(R2), Obj(bp, extra=(("foreign", bp_2r), ("foreign", bp_ur5))),
          argnames=("robot", "base"), name=Text("base"), friction=Flag(False)))
    add(E("base:BaseParameters.reduce(foreign)", bp.reduce, Vec(regressor_module.regressor(R2, Q2, QD2, QDD2),
                                                                 skip=("empty",), extra=(("foreign",
                                                                         regressor_module.regressor(U5, np.zeros(6),
                                                                                                    np.zeros(6),
                                                                                                    np.zeros(6))),)),
          argnames=("W",)))
    # issue 26's numbered items as cases: degenerate but finite values
    add(E("estimation:nees(asymmetric P)", consistency.nees, [1.0, 2.0], Vec(np.diag([1.0, 4.0]), extra=(
        ("degenerate", np.array([[1.0, 0.5], [0.0, 4.0]])),)), argnames=("error", "P")))                # item 4
    same = np.repeat(markers[:, :1], markers.shape[1], axis=1)
    for f in (mb_solvers.pose_from_markers, mb_solvers.angles_from_markers):                            # item 6
        add(E(f"multibody:{f.__name__}(coincident markers)", f, sys_, Vec(markers, skip=("empty",), extra=(
            ("degenerate", same),)), argnames=("system", "markers")))
    add(E("estimation:Adaline.fit(zero data)", adaline.Adaline(0.1, mode="batch", normalized=True, epochs=3, rng=0).fit,
          Vec(Wr, skip=("shape",), extra=(("degenerate", np.zeros_like(Wr)),)), Vec(yr), argnames=("W", "y")))  # 10
    add(E("signals:lowpass(extreme)", signals.lowpass, x, Pos(5.0, extra=(("tiny", 1e-300), ("tiny", 1e-9))),   # 11
          Pos(100.0, extra=(("huge", 1e300),)), argnames=("x", "cutoff", "fs")))
    add(E("signals:decimate(extreme)", signals.decimate, x, 2, argnames=("x", "factor"),
          fs=Pos(100.0, extra=(("huge", 1e300),)), cutoff=Pos(10.0, extra=(("tiny", 1e-300),))))
    add(E("trajectories:quintic_coefficients(extreme T)", trajectories.quintic_coefficients, [0.0], [1.0],
          Pos(1.0, extra=(("tiny", 1e-300), ("tiny", 1e-160), ("huge", 1e300), ("huge", 1e160))),
          argnames=("q0", "qf", "T")))
    add(E("benchmark:prior_std(sizes)", benchmark.prior_std, U5, bp_ur5, 0, argnames=("robot", "base", "rng"),
          n_samples=5, mass=NonNeg(0.1, extra=(("degenerate", 0.0),)), com=0.0, inertia=0.0, angle=0.0))   # 15
    # ------------------------------------------------------------------ closed loop (chapter 12)
    from robidlib import closed_loop as cl
    from robidlib.estimation import closed_loop as ecl
    from robidlib import closed_loop_study as cls

    cl_model = base_model.robot_base_model(planar_2r(friction=[[0.3, 0.2], [0.1, 0.1]]),
                                           friction=["viscous", "coulomb"])
    cl_ref = trajectories.fourier_series(np.arange(0.0, 0.3, 0.005), np.pi, [[0.3], [0.2]], [[0.0], [0.1]], [0.0, 0.5])
    cl_p = cl_model.params
    cl_ctrl = cl.pd_controller(cl_model, cl_p, cl_ref, bandwidth=6.0)
    cl_exp = cl.ClosedLoopExperiment(cl_model, cl_ref, cl_ctrl)
    cl_sens = cl.Sensors([1e-4, 1e-4], [1e-4, 1e-4], [0.01, 0.01])
    cl_rec = cl.simulate_closed_loop(cl_exp, cl_p)
    cl_two = cl.simulate_closed_loop(cl_exp, np.vstack([cl_p, cl_p]))
    cl_W, cl_y, cl_s, cl_keep = cl.idim_data(cl_model, cl_rec, cutoff=20.0, trim=2)
    add(E("closed_loop:Sensors", cl.Sensors, Vec([1e-4, 1e-4]), Vec([1e-4, 1e-4]), Vec([0.01, 0.01]),
          argnames=("resolution", "sigma_q", "sigma_tau")))
    add(E("closed_loop:Sensors.scaled", cl_sens.scaled, NonNeg(2.0), argnames=("factor",)))
    add(E("closed_loop:Controller", cl.Controller, Choice("pd"), Vec([1.0, 2.0]), Vec([1.0, 2.0]),
          argnames=("kind", "kp", "kd"), velocity_cutoff=Pos(20.0),
          feedforward=Vec(cl_p, skip=("shape",), extra=(("shape", cl_p[None]),))))   # its length: the experiment
    add(E("closed_loop:ClosedLoopExperiment", cl.ClosedLoopExperiment, Obj(cl_model), Obj(cl_ref), Obj(cl_ctrl),
          argnames=("model", "reference", "controller"), substeps=Int(1, huge=10**6)))
    add(E("closed_loop:ClosedLoopRecord", cl.ClosedLoopRecord, Vec(cl_rec.t, skip=("empty",)), Vec(cl_rec.q),
          Vec(cl_rec.qd), Vec(cl_rec.qdd), Vec(cl_rec.tau), Vec(cl_rec.q_meas), Vec(cl_rec.tau_meas),
          argnames=("t", "q", "qd", "qdd", "tau", "q_meas", "tau_meas"), failed=Flag(False)))
    add(E("closed_loop:ClosedLoopRecord.draw", cl_two.draw, Int(1, zero_ok=True, huge=10**6), argnames=("k",)))
    add(E("closed_loop:pd_controller", cl.pd_controller, Obj(cl_model), Vec(cl_p), Obj(cl_ref),
          argnames=("model", "params", "reference"), bandwidth=Pos(6.0), damping=Pos(1.0), feedforward=Flag(False),
          velocity_cutoff=Pos(20.0)))
    add(E("closed_loop:computed_torque_controller", cl.computed_torque_controller, Obj(cl_model), Vec(cl_p),
          argnames=("model", "params"), bandwidth=Pos(6.0), damping=Pos(1.0), velocity_cutoff=Pos(20.0)))
    add(E("closed_loop:simulate_closed_loop", cl.simulate_closed_loop, Obj(cl_exp), Vec(cl_p),
          argnames=("experiment", "params"), sensors=Obj(cl_sens), rng=Seed(0), on_failure=Choice("raise")))
    add(E("closed_loop:idim_data", cl.idim_data, Obj(cl_model), Obj(cl_rec), argnames=("model", "record"),
          cutoff=Pos(20.0), velocity_threshold=Vec([0.0, 0.0], skip=("empty",)), trim=Int(2, huge=10**9),
          order=Int(4, huge=10**6)))
    add(E("closed_loop:mass_and_bias", cl.mass_and_bias, Obj(cl_model), Vec(cl_rec.q[:2]), Vec(cl_rec.qd[:2]),
          Vec(np.vstack([cl_p, cl_p])), argnames=("model", "q", "qd", "params")))
    cl_names = Names(tuple(f"c{i}" for i in range(cl_W.shape[1])))
    add(E("estimation.closed_loop:iv", ecl.iv, Vec(cl_W), Vec(cl_y), Vec(cl_W + 0.01), argnames=("W", "y", "Z"),
          names=cl_names))
    kw = dict(samples=Vec(cl_s, skip=("empty",), extra=(("negative", -cl_s - 1), ("huge", cl_s + 10**6),
                                                        ("type", cl_s + 0.5))),
              keep=Vec(cl_keep, skip=("bool", "nan", "inf", "complex"), extra=(("type", cl_keep.astype(float)),)),
              names=cl_names)
    add(E("estimation.closed_loop:idim_iv", ecl.idim_iv, Obj(cl_exp), Vec(cl_W), Vec(cl_y), Vec(cl_p),
          argnames=("experiment", "W", "y", "params0"), max_iter=Int(2, huge=10**9), tol=Tol(0.05), **kw))
    add(E("estimation.closed_loop:didim", ecl.didim, Obj(cl_exp), Vec(cl_y), Vec(cl_p),
          argnames=("experiment", "y", "params0"), max_iter=Int(2, huge=10**9), tol=Tol(0.05), **kw))
    add(E("estimation.closed_loop:output_error", ecl.output_error, Obj(cl_exp), Vec(cl_y), Vec(cl_p),
          argnames=("experiment", "y", "params0"), max_nfev=Int(2, huge=10**9), ftol=Tol(1e-8),
          output=Choice("torque"), **kw))
    add(E("closed_loop_study:scaled_error", cls.scaled_error, Vec([1.1, 2.0]), Vec([1.0, 2.0]),
          Vec([1.0, 1.0]), argnames=("estimates", "truth", "scale")))
    add(E("closed_loop_study:level_sensors", cls.level_sensors, Obj(cl_sens), NonNeg(2.0),
          argnames=("sensors", "level")))
    add(E("closed_loop_study:draw_seeds", cls.draw_seeds,
          Obj(cls.CHAPTER_RECIPE, extra=(("unknown", {}), ("type", {**cls.CHAPTER_RECIPE, "seed": "x"}))),
          Int(1, zero_ok=True), Vec([0, 1], skip=("empty",),   # no draws: no generators (valid)
              extra=(("negative", [-1, 0]), ("type", [0.5, 1]))),
          argnames=("recipe", "level", "draws")))
    add(E("closed_loop_study:load_closed_loop_study", cls.load_closed_loop_study,
          name=Choice("closed_loop_mc"), path=Path_(None, extra=(("unknown", "/no/such/study.json"),))))
    # log-Cholesky parameters and the D-optimal criterion
    lc = np.linspace(-0.5, 0.5, 10)
    add(E("params:log_cholesky_factor", params.log_cholesky_factor, Vec(lc, skip=("shape",)), argnames=("theta",)))
    add(E("params:log_cholesky_to_params", params.log_cholesky_to_params, Vec(lc, skip=("shape",)),
          argnames=("theta",)))
    add(E("params:params_to_log_cholesky", params.params_to_log_cholesky,
          Vec(params.log_cholesky_to_params(lc), skip=("shape",)), argnames=("pi_j",)))
    add(E("trajectories:excitation_logdet", trajectories.excitation_logdet, Obj(R2), Obj(traj),
          argnames=("robot", "traj"), friction=Flag(False), base=Obj(bp, extra=(("foreign", bp_ur5),))))
    from robidlib.estimation import log_cholesky as elc

    lc_W = regressor_module.regressor(R2, *base.random_states(R2, 40, rng=5)).reshape(-1, 20)
    lc_pi = params.log_cholesky_to_params(np.tile(lc, (2, 1))).ravel()
    add(E("estimation.log_cholesky:log_cholesky_ls", elc.log_cholesky_ls, Vec(lc_W), Vec(lc_W @ lc_pi), Obj(R2),
          argnames=("W", "y", "robot"), prior=Vec(lc_pi), friction=Flag(False), reg=NonNeg(1e-6),
          max_nfev=Int(5, huge=10**9), ftol=Tol(1e-10), start=Vec(lc_pi), x_scale=Choice("jac")))
    return T


#: Public callables the sweep does not call, and why (tests/test_bad_input.py checks that every
#: other public function, class and method is in the table).
NOT_SWEPT = {
    "robidlib.benchmark:ResultTable.where": "keywords are column names, values anything (test_benchmark: unknown column)",
    "robidlib.estimation.augmented:AugmentedStateIdentifier.regressor": "internal per-sample call of the model (checked "
                                                                "through forward_dynamics)",
    "robidlib.estimation.augmented:AugmentedStateIdentifier.measurement_jacobian": "its argument is ignored (H is constant)",
    "robidlib.estimation.kalman:ExtendedKalmanFilter.predict": "u is passed unchanged to the user's f and F_jac",
    "robidlib.multibody.constraints:Constraint": "abstract base class (its subclasses are swept)",
    "robidlib.multibody.constraints:Constraint.nu": "no data for topological constraints (returns zeros)",
    "robidlib.estimation.lsq:RidgePath": "a result object, made (and its inputs checked) by ridge_path",
    "robidlib.estimation.unscented:UnscentedKalmanFilter.predict": "u is passed unchanged to the user's f",
    "robidlib.closed_loop_study:chapter_setup": "the chapter's experiment: its recipe is data (tests/test_closed_loop.py)",
    "robidlib.closed_loop_study:closed_loop_study": "the chapter's Monte Carlo: minutes (tests re-run one draw)",
    "robidlib.closed_loop_study:method_comparison": "four estimators on the chapter's record: minutes",
}
