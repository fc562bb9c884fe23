"""Bad-input table of ``robidlib.identification`` and ``robidlib.datasets`` (see ``bad_input_sweep``).

The objects are small: a planar 2R drive model, a 3 s record at 500 Hz decimated by 5 (about
250 samples), so that every call takes milliseconds.
"""

from __future__ import annotations

import numpy as np

from bad_input_sweep import E, Batch, Choice, Flag, Func, Int, Names, NonNeg, Obj, Path_, Pos, Seed, Series, Tol, Vec


def entries(o):  # noqa: C901 - one table
    from robidlib import datasets
    from robidlib import identification as idf
    import importlib

    from robidlib.identification import drives, estimate, preprocess
    from robidlib.models import planar_2r, ur5

    tx = importlib.import_module("robidlib.datasets.staubli_tx40")
    model_mod = importlib.import_module("robidlib.identification.model")
    val = importlib.import_module("robidlib.identification.validate")   # the package's .validate is the function
    T = []
    add = T.append
    r2 = planar_2r()
    model = idf.DriveModel(r2, offset=False)
    ts, N = 2e-3, 1500
    t = np.arange(N) * ts
    w = np.array([[1.1, 2.3, 3.7], [1.7, 2.9, 4.3]])
    q = 0.3 * np.stack([np.sin(np.outer(t, w[j])).sum(1) for j in range(2)], 1)
    qd = np.gradient(q, ts, axis=0)
    qdd = np.gradient(qd, ts, axis=0)
    x = model.pack(friction=[[0.5, 0.2], [0.3, 0.1]], rotor=[0.05, 0.02])
    tau = model.torques(q, qd, qdd, x) + 0.01 * np.random.default_rng(0).normal(size=q.shape)
    settings = idf.Settings(ts=ts, cutoff=20.0, decimation=(5,))
    data = idf.prepare(t, q, tau, model, settings)
    res = idf.identify(data)
    v = idf.validate(res, data)
    W, y, joint = data.stack(res.base.independent)
    names = res.base.base_names
    ur5_model = idf.DriveModel(ur5(), offset=False)
    other_bp = ur5_model.base_parameters()
    tr = drives.Transmission(np.array([[50.0, 0.0], [30.0, 30.0]]), torque_constants=[0.4, 0.3])

    # ------------------------------------------------------------------ drives
    add(E("identification:Transmission", drives.Transmission, Vec(tr.motor_matrix, skip=("empty",)),
          argnames=("motor_matrix",), torque_constants=Vec([0.4, 0.3])))
    for meth, nm in (("joint_positions", "q_motor"), ("motor_positions", "q"), ("joint_torques", "signal"),
                     ("motor_signals", "tau")):
        add(E(f"identification:Transmission.{meth}", getattr(tr, meth), Batch(q[:5]), argnames=(nm,)))

    # ------------------------------------------------------------------ model
    add(E("identification:khalil_name", model_mod.khalil_name, Choice("Izz1", alias=("name",)), argnames=("name",)))
    add(E("identification:DriveModel", idf.DriveModel, Obj(r2), argnames=("robot",), transmission=Obj(tr),
          friction=Names(("viscous", "coulomb"), known=True, skip=("shape",)), offset=Flag(True),
          rotor_inertia=Flag(True), coupled_motors=Flag(True)))
    add(E("identification:DriveModel.regressor", model.regressor, Vec(q[:5]), Vec(qd[:5]), Vec(qdd[:5]),
          argnames=("q", "qd", "qdd"), velocity_noise=Vec([1e-3, 1e-3], extra=(("negative", [-1e-3, 1e-3]),))))
    add(E("identification:DriveModel.torques", model.torques, Vec(q[:5]), Vec(qd[:5]), Vec(qdd[:5]), Vec(x),
          argnames=("q", "qd", "qdd", "x")))
    add(E("identification:DriveModel.pack", model.pack, Vec(r2.params), argnames=("params",),
          friction=Vec([[0.5, 0.2], [0.3, 0.1]]), rotor=Vec([0.05, 0.02])))
    add(E("identification:DriveModel.pack(offsets)", idf.DriveModel(r2).pack, offsets=Vec([0.1, -0.1])))
    add(E("identification:DriveModel.pack(motors)", idf.DriveModel(r2, tr).pack, motors=Vec([[0.01, 0.2, 0.3]])))
    add(E("identification:DriveModel.base_parameters", model.base_parameters, Int(40, huge=10**12),
          Seed(0), argnames=("samples", "rng"), rtol=Tol(1e-8, extra=(("huge", 2.0),))))

    # ------------------------------------------------------------------ preprocess
    add(E("identification:Settings", idf.Settings, Pos(ts), argnames=("ts",), cutoff=Pos(20.0),
          filter_order=Int(4, huge=10**6), trim=Int(10, zero_ok=True),   # a trim longer than the record: prepare
          decimation=Vec((5,), skip=("nan", "inf", "complex", "empty")),
          velocity_threshold=Vec([0.01, 0.01], skip=("shape",)), ratio_essential=Pos(30.0),   # length: prepare
          joint_offsets=Vec([0.0, 0.0], skip=("shape",)), window=Vec((0.0, 2.0)),
          min_equations_per_parameter=Pos(10.0, extra=(("tiny", 0.5),)),
          velocity_noise=Vec([1e-3, 1e-3], skip=("shape",),               # a scalar or one per joint: prepare
                             extra=(("negative", [-1e-3, 1e-3]), ("shape", np.zeros((2, 2)))))))
    add(E("identification:Settings.from_figaroh", idf.Settings.from_figaroh, Obj(o["tx40"].settings),
          argnames=("config",), joint_offsets=Vec(np.zeros(6), skip=("shape",)), cutoff=Pos(50.0)))
    add(E("identification:IdentificationData", preprocess.IdentificationData, Vec(data.t), Vec(data.q),
          Vec(data.qd), Vec(data.qdd), Vec(data.tau), Vec(data.Y), Vec(data.keep, skip=("bool", "nan", "inf", "complex")),
          Obj(model), Obj(settings),
          argnames=("t", "q", "qd", "qdd", "tau", "Y", "keep", "model", "settings"), timings=Obj({}),
          full=Obj(data.full)))
    add(E("identification:IdentificationData.stack", data.stack, columns=Vec(res.base.independent),
          use_keep=Flag(True)))
    add(E("identification:IdentificationData.select", data.select, Vec(np.arange(10), skip=("bool",)),
          argnames=("samples",)))
    fmask = np.zeros(data.full.n_samples, bool)
    fmask[:50] = True
    add(E("identification:IdentificationData.select(full_samples)", data.select, np.arange(10), argnames=("samples",),
          full_samples=Vec(fmask, skip=("bool", "nan", "inf", "complex"), extra=(("type", fmask.astype(float)),))))
    add(E("identification:prepare", idf.prepare, Vec(t), Vec(q), Vec(tau), Obj(model), Obj(settings),
          argnames=("t", "q_motor", "signal", "model", "settings"), qd_motor=Vec(qd)))
    add(E("identification:parallel_decimate", idf.parallel_decimate, Series(q), Vec((5,), skip=("nan", "inf",
                                                                                               "complex", "empty")),
          argnames=("x", "factors")))
    add(E("identification:split", idf.split, Obj(data), Pos(0.7), NonNeg(0.1), argnames=("data", "fraction", "guard"),
          span=Choice("decimated")))

    # ------------------------------------------------------------------ estimate
    add(E("identification:joint_sigmas", estimate.joint_sigmas, Vec(W, skip=("shape",)), Vec(y), Vec(joint),
          Int(2, huge=10**12),
          argnames=("W", "y", "joint", "n")))
    add(E("identification:essential_parameters", estimate.essential_parameters, Vec(W), Vec(y),
          Names(names), Pos(30.0), argnames=("W", "y", "names", "ratio")))
    add(E("identification:identify", idf.identify, Obj(data), argnames=("data",),
          base=Obj(res.base, extra=(("foreign", other_bp),)), ratio_essential=Pos(30.0),
          physical=Func(lambda p: None)))
    add(E("identification:physical_estimator", estimate.physical_estimator, reg=NonNeg(1e-6),
          consistency=Choice("full"), margin=NonNeg(0.0), min_mass=NonNeg(0.0, skip=("shape",)),   # or per link
          bounds=Obj({"m1": (0.1, 10.0)}), drives_nonnegative=Flag(True), solver=Choice("CLARABEL"),
          solver_options=Obj({})))
    add(E("identification:IdentificationResult", estimate.IdentificationResult, Obj(res.base), Obj(res.ols),
          Obj(res.wls), Obj(res.essential), Obj(res.essential_ols), Vec(res.essential_index),
          Obj(res.essential_history), Vec(res.sigma_joint), Vec(res.rows_per_joint), Obj(model),
          argnames=("base", "ols", "wls", "essential", "essential_ols", "essential_index", "essential_history",
                    "sigma_joint", "rows_per_joint", "model"), physical=None, timings=Obj({}),
          unswept={"physical": "whatever the physical hook returned (any object, or None)"}))
    add(E("identification:IdentificationResult.estimate", res.estimate, Choice("wls"), argnames=("which",)))
    add(E("identification:IdentificationResult.full_base_vector", res.full_base_vector, Choice("wls"),
          argnames=("which",)))
    add(E("identification:IdentificationResult.predict", res.predict, Obj(data), Choice("wls"),
          argnames=("data", "which")))
    Wf, yf, jf = data.stack()                   # every column of the model, as identify hands the hook
    add(E("identification:PhysicalProblem", estimate.PhysicalProblem, Vec(Wf), Vec(yf), Vec(jf), Vec(res.sigma_joint),
          Obj(model), Obj(res.base), Obj(res.wls), Vec(model.pack()),
          argnames=("W", "y", "joint", "sigma_joint", "model", "base", "wls", "prior")))

    # ------------------------------------------------------------------ validate
    add(E("identification:relative_errors", val.relative_errors, Vec(data.tau), Vec(v.predicted["wls"]),
          argnames=("observed", "predicted"), mask=Vec(data.keep, skip=("bool", "nan", "inf", "complex"))))
    add(E("identification:residual_spectrum", val.residual_spectrum, Series(v.residual("wls")), Pos(100.0),
          argnames=("residual", "fs"), nperseg=Int(32, huge=10**12)))
    add(E("identification:validate", idf.validate, Obj(res), Obj(data), argnames=("result", "data"),
          methods=Names(("ols", "wls"), known=True, skip=("shape",)), use_keep=Flag(True)))
    add(E("identification:Validation", val.Validation, Obj(v.methods), Obj(v.per_joint), Obj(v.overall), Obj(v.rms),
          Obj(v.predicted), Vec(v.observed), Vec(v.keep, skip=("bool", "nan", "inf", "complex")), Vec(v.t),
          argnames=("methods", "per_joint", "overall", "rms", "predicted", "observed", "keep", "t"),
          kept_only=Flag(False)))
    add(E("identification:Validation.residual", v.residual, Choice("wls"), argnames=("method",)))
    add(E("identification:Validation.spectrum", v.spectrum, Choice("wls"), argnames=("method",), fs=Pos(100.0),
          nperseg=Int(32, huge=10**12)))

    # ------------------------------------------------------------------ the pipeline
    add(E("identification:run", idf.run, Vec(t), Vec(q), Vec(tau), Obj(model), Obj(settings),
          argnames=("t", "q_motor", "signal", "model", "settings"), fraction=Pos(0.7), guard=NonNeg(0.1),
          physical=Func(lambda p: None)))
    add(E("identification:PipelineRun", idf.PipelineRun, Obj(data), Obj(data), Obj(data), Obj(res), Obj(v), Obj(v),
          argnames=("data", "train", "test", "result", "training", "validation"), timings=Obj({}),
          heldout=Obj({})))

    # ------------------------------------------------------------------ datasets
    d = o["tx40"]
    add(E("datasets:staubli_tx40", datasets.staubli_tx40, Path_(None), argnames=("directory",),
          verify=Flag(True)))
    add(E("datasets:verify_files", tx.verify_files, Path_(None), argnames=("directory",)))
    pub = tx.staubli_tx40_published()
    src = pub["sources"]["figaroh_essential"]
    nm = tuple(src["parameters"])
    val_ = np.array([src["parameters"][k]["wls"] for k in nm], dtype=float)
    # names the conversion does not concern pass unchanged (documented): unknown names are valid
    add(E("datasets:to_figaroh_convention", tx.to_figaroh_convention, Names(nm), Vec(val_),
          argnames=("names", "values"), cov=Vec(np.diag(np.full(len(nm), 1e-4)))))
    add(E("datasets:compare_with_published", tx.compare_with_published, Names(nm), Vec(val_),
          Vec(np.diag(np.full(len(nm), 1e-4))), argnames=("names", "values", "cov"),
          source=Choice("figaroh_essential"), method=Choice("wls")))
    add(E("datasets:StaubliTX40", tx.StaubliTX40, Vec(d.t[:50]), Vec(d.q_motor[:50]), Vec(d.tau_motor[:50]),
          Obj(d.robot), Vec(d.gear_ratios), Vec(d.motor_matrix), Vec(d.torque_matrix), Vec(d.joint_offsets), Pos(d.ts),
          Obj(d.settings), Obj(d.files),
          argnames=("t", "q_motor", "tau_motor", "robot", "gear_ratios", "motor_matrix", "torque_matrix",
                    "joint_offsets", "ts", "settings", "files")))
    return T


NOT_SWEPT = {}
