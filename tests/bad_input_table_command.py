"""Bad-input table of the identification command's modules (``robidlib.identification.config``,
``logs``, ``metric``, ``command``, ``export``, ``report``, ``figaroh``), the new functions of
``preprocess`` and ``validate``, ``robidlib.datasets.tiago``, ``robidlib.book.load_study`` and
``robidlib.plotting.figures.error_distribution`` (see ``bad_input_sweep``).

The objects are small: the planar 2R drive model of ``bad_input_table_identification`` (3 s at
500 Hz, decimated by 5), so that every call takes milliseconds.
"""

from __future__ import annotations

import importlib
import tempfile
from pathlib import Path

import numpy as np

from bad_input_sweep import E, Choice, Flag, Int, Names, NonNeg, Obj, Path_, Pos, Real, Seed, Series, Text, Vec


def _axes():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots()[1]


def _small_run():
    """A 2R arm's synthetic logs (30 s fit, 10 s held out, 100 Hz) and their configuration."""
    from robidlib.identification import DriveModel
    from robidlib.models import planar_2r

    folder = Path(tempfile.mkdtemp(prefix="robidlib_sweep_ident_"))
    robot = planar_2r()
    (folder / "robot.urdf").write_text(robot.to_urdf())
    model = DriveModel(robot)
    x = model.pack(friction=[[0.5, 0.2], [0.3, 0.1]], offsets=[0.1, -0.1], rotor=[0.05, 0.02])
    rng = np.random.default_rng(3)
    fs = 100.0
    for name, seed, dur in (("fit", 1, 30.0), ("check", 2, 10.0)):
        t = np.arange(int(dur * fs)) / fs
        r = np.random.default_rng(seed)
        w = 2 * np.pi * np.array([0.13, 0.29, 0.47])
        A = r.normal(size=(2, 3)) * 0.5
        ph = r.uniform(0, 2 * np.pi, (2, 3))
        arg = w[None, None] * t[:, None, None] + ph[None]
        q = (A[None] * np.sin(arg)).sum(2)
        qd = (A[None] * w * np.cos(arg)).sum(2)
        qdd = -(A[None] * w**2 * np.sin(arg)).sum(2)
        tau = model.torques(q, qd, qdd, x)
        tau = tau + 0.02 * tau.std(0) * rng.normal(size=tau.shape)
        np.savetxt(folder / f"{name}.csv", np.column_stack([t, q, tau]), delimiter=",",
                   header="t,q1,q2,tau1,tau2", comments="", fmt="%.10g")
    names = list(robot.joint_names)
    cfg = {"robot": {"urdf": "robot.urdf", "joints": names},
           "signals": {"time": {"column": "t"}, "position": {"columns": ["q1", "q2"]},
                       "torque": {"columns": ["tau1", "tau2"], "kind": "joint_torque"}},
           "records": [{"name": "fit", "file": "fit.csv"}, {"name": "check", "file": "check.csv", "role": "holdout"}],
           "settings": {"cv_folds": 2}}
    return folder, cfg


def entries(o):  # noqa: C901 - one table
    from robidlib import book
    from robidlib import identification as idf
    from robidlib.models import planar_2r
    from robidlib.plotting import figures as pf

    pre = importlib.import_module("robidlib.identification.preprocess")
    val = importlib.import_module("robidlib.identification.validate")
    metric = importlib.import_module("robidlib.identification.metric")
    logs = importlib.import_module("robidlib.identification.logs")
    fig = importlib.import_module("robidlib.identification.figaroh")
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

    # ------------------------------------------------------------------ book, plotting
    add(E("book:load_study", book.load_study, Text("physical_mc", extra=(("unknown", "no-such-study"),
                                                                          ("unknown", "../escape"))),
          argnames=("name",)))
    errs = {"LS": np.linspace(0.01, 0.2, 30), "WLS": np.linspace(0.02, 0.1, 30)}
    add(E("plotting:error_distribution", pf.error_distribution,
          Obj(errs, extra=(("empty", {}), ("nan", {"LS": [np.nan, 0.1]}), ("negative", {"LS": [-1.0, 0.1]}),
                           ("type", {"LS": "x"}), ("complex", {"LS": [1j, 0.1]}))),
          Obj(_axes()), argnames=("errors", "ax"), kind=Choice("ecdf"), log=Flag(True), reference=Pos(0.05),
          marks=Obj({"LS": 0.1}, extra=(("unknown", {"no-such-method": 0.1}), ("nan", {"LS": np.nan}))),
          unswept={k: "styles the figure; matplotlib checks it" for k in ("label", "reference_label", "colors")}))

    # ------------------------------------------------------------------ preprocess
    add(E("identification.preprocess:decimation_factors", pre.decimation_factors, Int(25, huge=10**12),
          argnames=("total",)))
    add(E("identification.preprocess:motion_bandwidth", pre.motion_bandwidth, Series(q), Pos(500.0),
          argnames=("q", "fs"), energy=Pos(0.99, extra=(("huge", 1.5),)), fmax=Pos(100.0)))
    add(E("identification.preprocess:concatenate", pre.concatenate,
          Obj([data, data], extra=(("empty", []), ("type", [data, 3]))), argnames=("parts",)))
    add(E("identification.preprocess:blocked_folds", pre.blocked_folds, Obj(data), argnames=("data",),
          k=Int(3, huge=10**9), guard=NonNeg(0.1),
          runs=Vec(np.zeros(data.n_samples, int), skip=("nan", "inf", "complex", "bool"),
                   extra=(("type", np.zeros(data.n_samples) + 0.5),))))

    # ------------------------------------------------------------------ validate
    add(E("identification.validate:heldout_error", val.heldout_error, Obj(res), Obj(data),
          argnames=("result", "data"), methods=Names(("ols", "wls"), known=True, skip=("shape",))))
    add(E("identification.validate:predict_full_rate", val.predict_full_rate, Obj(res), Obj(data),
          Vec(res.full_base_vector("wls")[:, None], skip=("shape",),       # columns: any number of vectors
              extra=(("shape", np.r_[res.full_base_vector("wls"), 0.0][:, None]),)),
          argnames=("result", "data", "vectors")))
    add(E("identification.validate:metric_samples", val.metric_samples, Obj(data.full, extra=(("type", data),)),
          argnames=("full",)))
    add(E("identification.validate:blocked_cross_validation", val.blocked_cross_validation, Obj(data),
          argnames=("data",), folds=Int(3, huge=10**9), guard=NonNeg(0.1), method=Choice("wls"),
          base=Obj(res.base, extra=(("foreign", idf.DriveModel(planar_2r(), offset=True).base_parameters()),)),
          span=Choice("moving")))
    cv = val.blocked_cross_validation(data, 3)
    add(E("identification.validate:BlockedCrossValidation", val.BlockedCrossValidation, Choice(cv.method),
          Vec(cv.blocks), Vec(cv.per_fold), Vec(cv.per_fold_joint), Vec(cv.rms_fold_joint), Real(cv.pooled),
          Vec(cv.pooled_joint),
          argnames=("method", "blocks", "per_fold", "per_fold_joint", "rms_fold_joint", "pooled", "pooled_joint")))

    # ------------------------------------------------------------------ metric
    fs = 1 / ts
    add(E("identification.metric:reference_cutoff", metric.reference_cutoff, Pos(fs), argnames=("fs",)))
    add(E("identification.metric:reference_filter", metric.reference_filter, Series(tau), Pos(fs),
          argnames=("x", "fs"), runs=Vec(np.zeros(N, int), skip=("nan", "inf", "complex", "bool"),
                                         extra=(("type", np.zeros(N) + 0.5),))))
    pred = model.torques(q, qd, qdd, x)
    keep = np.ones(q.shape, bool)
    add(E("identification.metric:torque_error", metric.torque_error, Vec(tau), Vec(pred), Pos(fs),
          argnames=("measured", "predicted", "fs"),
          runs=Vec(np.zeros(N, int), skip=("nan", "inf", "complex", "bool"), extra=(("type", np.zeros(N) + 0.5),)),
          keep=Vec(keep, skip=("bool", "nan", "inf", "complex"), extra=(("type", keep.astype(float)),))))

    # ------------------------------------------------------------------ logs
    folder = Path(tempfile.mkdtemp(prefix="robidlib_sweep_logs_"))
    csv = folder / "log.csv"
    np.savetxt(csv, np.column_stack([t, q, tau]), delimiter=",", header="t,q1,q2,tau1,tau2", comments="")
    add(E("identification.logs:read_columns", logs.read_columns,
          Path_(csv), Names(("t", "q1"), known=True, skip=("shape",), alias=("column",)),   # any columns
          argnames=("path", "columns"), delimiter=Text(","),
          what=Text("column")))
    add(E("identification.logs:check_time_stamps", logs.check_time_stamps, Vec(t, extra=(("degenerate", t[::-1]),)),
          argnames=("t",), source=Text("t"), first_row=Int(2, zero_ok=True)))
    add(E("identification.logs:split_at_gaps", logs.split_at_gaps, Vec(t), Pos(0.01), argnames=("t", "gap")))
    add(E("identification.logs:resample_uniform", logs.resample_uniform, Vec(t), Series(q), Pos(500.0),
          argnames=("t", "x", "rate"), order=Int(3, huge=10**9)))
    add(E("identification.logs:detect_saturation", logs.detect_saturation, Series(tau), argnames=("x",),
          min_run=Int(5, huge=10**12), limit=Vec([10.0, 10.0], skip=("inf",), extra=(("negative", [-1.0, 10.0]),))))   # inf: no limit
    rows_ok = dict(skip=("nan", "inf"))     # non-finite rows of a log are dropped and counted (documented)
    add(E("identification.logs:clean_record", logs.clean_record, Text("fit"), Vec(t, **rows_ok), Vec(q, **rows_ok),
          Vec(tau, **rows_ok), Vec(qd, **rows_ok),
          argnames=("name", "t", "position", "torque", "velocity"), gap=Pos(0.05), jitter=NonNeg(0.01),
          rate=Pos(500.0), min_segment=NonNeg(1.0), min_samples=Int(30, huge=10**12), source=Text("log.csv")))
    seg = logs.clean_record("fit", t, q, tau)[0][0]
    add(E("identification.logs:Segment", logs.Segment, Text("fit"), Int(0, zero_ok=True), Vec(seg.t), Vec(seg.position),
          Vec(seg.torque), argnames=("record", "index", "t", "position", "torque"), velocity=Vec(seg.position),
          resampled=Flag(False), rows=Obj((1, seg.n_samples), extra=(("shape", (1,)), ("negative", (-1, 5))))))

    # ------------------------------------------------------------------ figaroh
    add(E("identification.figaroh:prepare_figaroh", fig.prepare_figaroh, Vec(t), Vec(q), Vec(tau), Obj(model),
          Obj(settings), argnames=("t", "q_motor", "signal", "model", "settings"), cutoff_slip=Flag(True),
          differences=Choice("script"), last_acceleration=Flag(False)))
    fdata = fig.prepare_figaroh(t, q, tau, model, settings)
    ff = fig.figaroh_estimates(fdata, res.base)
    add(E("identification.figaroh:figaroh_estimates", fig.figaroh_estimates, Obj(fdata), Obj(res.base, extra=(
        ("foreign", idf.DriveModel(planar_2r(), offset=True).base_parameters()),)), argnames=("data", "base"),
          ratio=Pos(30.0, extra=(("tiny", 0.5),))))
    add(E("identification.figaroh:FigarohFit", fig.FigarohFit, Names(ff.names), Vec(ff.ols), Vec(ff.ols_rel_std),
          Vec(ff.wls), Vec(ff.wls_rel_std), Vec(ff.wls_cov), Vec(ff.sigma_joint, skip=("shape",)),   # the joint count is in no other field
          Names(ff.essential_names), Vec(ff.essential_wls), Vec(ff.essential_rel_std),
          Names(ff.dropped, skip=("shape",)),                  # any number of dropped columns
          argnames=("names", "ols", "ols_rel_std", "wls", "wls_rel_std", "wls_cov", "sigma_joint", "essential_names",
                    "essential_wls", "essential_rel_std", "dropped")))

    # ------------------------------------------------------------------ the command: config
    cfgm = importlib.import_module("robidlib.identification.config")
    cmd = importlib.import_module("robidlib.identification.command")
    exp = importlib.import_module("robidlib.identification.export")
    rep = importlib.import_module("robidlib.identification.report")
    folder, cfg = _small_run()
    (folder / "config.toml").write_text(cfgm.to_toml(cfg))
    out = Path(tempfile.mkdtemp(prefix="robidlib_sweep_out_"))
    add(E("identification.config:unit_factor", cfgm.unit_factor, Choice("position", alias=("quantity",)),
          Choice("deg", alias=("unit",)), argnames=("quantity", "unit")))
    add(E("identification.config:example_config", cfgm.example_config, Choice("tx40", alias=("name",)),
          argnames=("name",)))
    add(E("identification.config:write_example_config", cfgm.write_example_config, Choice("tx40", alias=("name",)),
          Path_(out), argnames=("name", "directory"), overwrite=Flag(True)))   # a missing folder: FileNotFoundError
    add(E("identification.config:load_config", cfgm.load_config,
          Path_(folder / "config.toml"), argnames=("path",)))     # a missing file: FileNotFoundError (documented)
    add(E("identification.config:to_toml", cfgm.to_toml, Obj(cfg), argnames=("config",)))  # any mapping is TOML
    add(E("identification.config:IdentifyConfig.from_dict", cfgm.IdentifyConfig.from_dict,
          Obj(cfg, alias=("top level",), extra=(("unknown", {**cfg, "no_such_table": {}}), ("empty", {}))),
          argnames=("config",), base_dir=Path_(folder), source=Text("<dict>")))

    # ------------------------------------------------------------------ the command: run, write, main
    ident = cmd.identify_robot(cfg, base_dir=folder)
    add(E("identification.command:identify_robot", cmd.identify_robot,
          Obj(cfg, alias=("top level",), skip=("type",),           # a str is the path of a configuration file
              extra=(("type", 3), ("unknown", {**cfg, "no_such_table": {}}), ("empty", {}))), argnames=("config",),
          base_dir=Path_(folder), progress=Flag(False)))
    add(E("identification.command:RobotIdentification.write", ident.write,
          Path_(out / "run", extra=(("type", None),)), argnames=("out",), overwrite=Flag(True)))
    add(E("identification.command:main", cmd.main,
          Obj(["--write-example", "tx40", str(out), "--overwrite"], extra=(("type", [3]),)), argnames=("argv",)))
    add(E("identification.report:render_report", rep.render_report, Obj(ident), argnames=("ident",)))
    add(E("identification.report:result_json", rep.result_json, Obj(ident), argnames=("ident",)))
    add(E("identification.report:figures", rep.figures, Obj(ident), argnames=("ident",)))

    # ------------------------------------------------------------------ the command: export
    xm = ident.model.pack()
    xr = exp.identified_robot(ident.model, xm)
    add(E("identification.export:identified_robot", exp.identified_robot, Obj(ident.model), Vec(xm),
          argnames=("model", "x")))
    add(E("identification.export:to_mjcf", exp.to_mjcf, Obj(xr[0]), argnames=("robot",), rotor=Vec(xr[1]),
          name=Text("arm")))
    add(E("identification.export:check_export", exp.check_export, Obj(ident.model), Vec(xm), argnames=("model", "x"),
          urdf=Text(xr[0].to_urdf(), alias=("URDF",), extra=(("unknown", "<robot/>"),)),
          mjcf=Text(exp.to_mjcf(xr[0], xr[1]), extra=(("unknown", "<mujoco/>"),)), samples=Int(5, huge=10**12),
          rng=Seed(0)))

    # ------------------------------------------------------------------ datasets.tiago
    tg = importlib.import_module("robidlib.datasets.tiago")       # the package's .tiago is the function

    add(E("datasets.tiago:tiago", tg.tiago, directory=Path_(None), verify=Flag(True)))
    add(E("datasets.tiago:verify_tiago_files", tg.verify_tiago_files, directory=Path_(None)))
    add(E("datasets.tiago:tiago_robot", tg.tiago_robot, urdf=Path_(None), inertia_check=Choice("warn")))
    add(E("datasets.tiago:figaroh_to_ours", tg.figaroh_to_ours, Text("Izz14"), argnames=("name",)))
    tmodel = idf.DriveModel(tg.tiago_robot())
    tbp = tmodel.base_parameters(rtol=1e-8)
    tcad = tmodel.pack()
    add(E("datasets.tiago:compare_tiago_with_published", tg.compare_tiago_with_published,
          Obj(tbp, extra=(("foreign", res.base),)), Vec(tbp.beta(tcad)),
          Vec(np.ones(tbp.rank), skip=("inf",)),      # inf: a parameter estimated as zero (documented)
          argnames=("base", "values", "rel_std"), cad=Vec(tcad)))
    # ------------------------------------------------------------------ result and configuration classes
    te = ident.heldout["wls"]
    nanok = dict(skip=("nan",))      # NaN: a ratio with nothing to compare (a joint at rest, no kept mask)
    add(E("identification.metric:TorqueError", metric.TorqueError, Vec(te.per_joint, **nanok), Real(te.overall, **nanok),
          Vec(te.rms, **nanok), Vec(te.per_joint_unfiltered, **nanok), Real(te.overall_unfiltered, **nanok),
          Vec(te.rms_unfiltered, **nanok), Vec(te.per_joint_kept, **nanok), Real(te.overall_kept, **nanok),
          Vec(te.share, **nanok), Int(te.samples, huge=None), Pos(te.cutoff),
          argnames=("per_joint", "overall", "rms", "per_joint_unfiltered", "overall_unfiltered", "rms_unfiltered",
                    "per_joint_kept", "overall_kept", "share", "samples", "cutoff"), definition=Text("relative error")))
    f = data.full
    add(E("identification.preprocess:FullRate", pre.FullRate, Vec(f.t), Vec(f.q), Vec(f.qd), Vec(f.qdd), Vec(f.tau),
          Vec(f.nearest, extra=(("negative", -f.nearest - 1), ("type", f.nearest + 0.5))),
          Vec(f.run, extra=(("negative", -f.run - 1), ("type", f.run + 0.5))), Pos(f.fs),
          argnames=("t", "q", "qd", "qdd", "tau", "nearest", "run", "fs"),
          edge=Vec(np.zeros(f.t.size, bool), skip=("bool", "nan", "inf", "complex"),
                   extra=(("type", np.zeros(f.t.size)),))))
    sc = ident.config.position
    add(E("identification.config:SignalConfig", cfgm.SignalConfig, Names(sc.columns), Names(sc.unit, extra=(
        ("shape", sc.unit[:-1]),)), Vec(sc.sign, extra=(("degenerate", (2.0,) * len(sc.sign)),)),
          argnames=("columns", "unit", "sign"), side=Choice("joint"), kind=Choice("joint_torque"),
          offset=Vec(np.zeros(len(sc.columns)), skip=("empty",))))   # (): no offset, the default
    rc = ident.config.records[0]
    add(E("identification.config:RecordConfig", cfgm.RecordConfig, Text(rc.name, extra=(("empty", ""),)),
          Obj(rc.files, extra=(("empty", {}), ("type", {"position": 3}))), argnames=("name", "files"),
          role=Choice("fit")))
    add(E("identification.config:VerdictThresholds", cfgm.VerdictThresholds,
          **{k.name: Pos(getattr(cfgm.VerdictThresholds(), k.name))
             for k in __import__("dataclasses").fields(cfgm.VerdictThresholds)}))
    rs = ident.config.settings
    add(E("identification.config:RunSettings", cfgm.RunSettings, cutoff=Pos(10.0), filter_order=Int(4, huge=10**6),
          decimation=Obj((2,), extra=(("negative", (-2,)), ("huge", (10**6,)))), trim=Int(5, zero_ok=True),
          velocity_threshold=Obj((0.01, 0.01), extra=(("negative", (-1.0, 0.0)), ("nan", (np.nan, 0.0)))),
          ratio_essential=Pos(30.0, extra=(("tiny", 0.5),)), min_equations_per_parameter=Pos(10.0, extra=(("tiny", 0.5),)),
          holdout_fraction=Pos(0.3, extra=(("huge", 1.5),)), guard=NonNeg(0.1),
          cv_folds=Int(5, zero_ok=True, huge=10**6),      # 0: no cross-validation
          gap=Pos(0.05), jitter=NonNeg(0.01, extra=(("huge", 0.9),)), rate=Pos(100.0), min_segment=NonNeg(1.0),
          velocity_source=Choice("auto"), physical=Flag(True), physical_margin=NonNeg(1e-4),
          check_limits=Flag(True)))
    c = ident.config
    add(E("identification.config:IdentifyConfig", cfgm.IdentifyConfig, Obj(c.urdf), Names(c.joints), Obj(c.position),
          Obj(c.torque), Obj(c.records, extra=(("empty", ()), ("type", (3,)))),
          argnames=("urdf", "joints", "position", "torque", "records"), base_link=Text("base"), tip_link=Text("tip"),
          lock_joints=Names(("a",), skip=("shape",)), gravity=Vec((0.0, 0.0, -9.81)), inertia_check=Choice("refuse"),
          delimiter=Text(",", extra=(("empty", ""),)), time_column=Text("t"),
          time_unit=Choice("s", alias=("time_unit",)), rate=Pos(100.0), velocity=Obj(c.position),
          gear_ratios=Vec((1.0, 1.0), extra=(("zero", (0.0, 1.0)),)), couplings=Obj((), extra=(("shape", ((0, 1),)),)),
          torque_constants=Vec((1.0, 1.0), extra=(("zero", (0.0, 1.0)),)),
          friction=Names(("viscous", "coulomb"), known=True, skip=("shape",)), offset=Flag(True),
          rotor_inertia=Flag(True), coupled_motors=Flag(True), settings=Obj(c.settings), verdict=Obj(c.verdict),
          export_urdf=Flag(True), export_mjcf=Flag(True), source=Text("<dict>")))
    import dataclasses

    ri = {f.name: Obj(getattr(ident, f.name)) for f in dataclasses.fields(ident)}
    add(E("identification.command:RobotIdentification", cmd.RobotIdentification, **ri))
    tgo = tg.tiago()
    add(E("datasets.tiago:Tiago", tg.Tiago, Vec(tgo.t[:50]), Vec(tgo.q[:50]), Vec(tgo.qd[:50]), Vec(tgo.effort[:50]),
          Obj(tgo.robot), Obj(tgo.columns), Obj(tgo.settings), Obj(tgo.files),
          argnames=("t", "q", "qd", "effort", "robot", "columns", "settings", "files")))
    return T


NOT_SWEPT: dict[str, str] = {}
