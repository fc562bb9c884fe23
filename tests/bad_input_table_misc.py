"""Bad-input table of ``robidlib.plotting``, ``robidlib.book``, ``robidlib.estimation.records``
and ``robidlib.estimation.physical`` (see ``bad_input_sweep``).

Plotting arguments that only style a figure (labels, colours, markers, sizes of a figure) are
handed to matplotlib, which checks them: they are listed in ``unswept`` with that reason.
"""

from __future__ import annotations

import tempfile

import numpy as np

from bad_input_sweep import E, Choice, Flag, Int, Names, NonNeg, Obj, Path_, Pos, Real, Text, Tol, Vec

_MPL = "styles the figure; matplotlib checks it"


def _axes():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots()[1]


def entries(o):  # noqa: C901 - one table
    from robidlib import book
    from robidlib.estimation import physical, records
    from robidlib.plotting import figures, robots, schematics, style

    T = []
    add = T.append
    style_kw = {k: _MPL for k in ("label", "color", "marker", "band_label", "reference_label", "xlabel", "ylabel",
                                  "colors", "figsize", "symbol", "measured_label", "units", "alpha", "width")}
    mean, cov = np.array([1.0, 2.0]), np.array([[0.2, 0.05], [0.05, 0.1]])

    # ------------------------------------------------------------------ plotting
    add(E("plotting:ellipse_points", figures.ellipse_points, Vec(mean), Vec(cov), argnames=("mean", "cov"),
          n_std=Pos(1.0), n_points=Int(50, huge=10**12), dims=Obj((0, 1), extra=(("shape", (0, 0)),
                                                                               ("unknown", (0, 7))))))
    add(E("plotting:confidence_ellipse", figures.confidence_ellipse, Vec(mean), Vec(cov), Obj(_axes()),
          argnames=("mean", "cov", "ax"), level=Pos(0.9), n_points=Int(50, huge=10**12),
          dims=Obj((0, 1), extra=(("unknown", (0, 7)),)), unswept={"n_std": "given instead of level: swept in "
                                                                   "ellipse_points"}))
    s = np.array([3.0, 1.0, 1e-3, 1e-12])
    add(E("plotting:singular_values", figures.singular_values, Vec(s), Obj(_axes()), argnames=("s", "ax"), tol=Tol(1e-6),
          relative=Flag(False), unswept=style_kw))
    x = np.linspace(0, 1, 20)
    add(E("plotting:estimate_band", figures.estimate_band, Vec(x), Vec(np.sin(x)), Vec(0.1 + 0 * x), Obj(_axes()),
          argnames=("x", "mean", "std", "ax"), n_std=Pos(3.0), unswept=style_kw))
    P = np.column_stack([np.sin(x), np.cos(x)])
    add(E("plotting:parameter_history", figures.parameter_history, Vec(x), Vec(P), Vec(0.1 + 0 * P),
          argnames=("t", "params", "std"), select=Vec([0, 1], skip=("nan", "inf", "complex", "empty")),
          names=Names(["a", "b"]), truth=Vec([0.5, 0.5]), reference=Vec([0.4, 0.6]), n_std=Pos(3.0), span=Pos(1.0),
          span_min=NonNeg(0.0), ncols=Int(2, huge=10**9),
          unswept={**style_kw, "axes": "matplotlib Axes: one per parameter (the count is swept through select)"}))
    add(E("plotting:grouped_bars", figures.grouped_bars, Obj({"LS": [1.0, 2.0], "WLS": [1.5, 1.0]}), Names(["a", "b"]),
          Obj(_axes()), argnames=("values", "names", "ax"), log=Flag(False), unswept=style_kw))
    est = o["est"]
    add(E("plotting:estimate_errorbars", figures.estimate_errorbars, Obj({"LS": est}), Vec([1.0, -2.0, 0.5]),
          Obj(_axes()), argnames=("estimates", "truth", "ax"), names=Names(["a", "b", "c"]), n_std=Pos(2.0),
          scale=Vec([1.0, 1.0, 1.0])))
    add(E("plotting:measured_vs_predicted", figures.measured_vs_predicted, Vec(x), Vec(P), Vec(P + 0.01),
          argnames=("t", "measured", "predicted"), unswept={**style_kw, "axes": "matplotlib Axes: one per joint"}))
    from robidlib.models import planar_2r

    R2 = planar_2r()
    add(E("plotting:draw_robot", robots.draw_robot, Obj(R2), Vec([0.3, -0.5]), argnames=("robot", "q"),
          frames=Flag(True), joint_labels=Names(["a", "b"]), view=Choice("3d"), tool=Vec([0.1, 0.0, 0.0]),
          com=Flag(False), gravity=Flag(False), frame_size=Pos(0.1), ghost_alpha=Pos(0.3), elev=Real(20.0),
          azim=Real(30.0), unswept={"ax": "a matplotlib 3-D Axes; swept through view (2-D axes with '3d')"}))
    add(E("plotting:pendulum_sketch", schematics.pendulum_sketch, Obj(_axes()), Real(0.6), argnames=("ax", "q"),
          labels=Flag(True), torque=Flag(True)))
    add(E("plotting:adaline_schematic", schematics.adaline_schematic, Obj(_axes()), argnames=("ax",),
          inputs=Names(["a", "b"], skip=("shape",)), weights=Names(["w1", "w2"]), bias=Flag(False),
          output=Text("y"), target=Text("d"), error=Text("e"), caption=Text("c")))

    # ------------------------------------------------------------------ book
    add(E("book:glue", book.glue, Text("sweep_value"), Real(1.5, skip=("shape", "type", "bool")),
          argnames=("name", "value")))
    book.glue("sweep_value", 1.5)
    add(E("book:glued", book.glued, Text("sweep_value", extra=(("unknown", "never-glued"),)), argnames=("name",)))
    add(E("book:table", book.table, Obj([[1.0, 2.0]], extra=(("shape", [[1.0]]),)), Names(["a", "b"]),
          argnames=("rows", "headers"), fmt=Text(".4g"), caption=Text("c")))
    add(E("book:estimate_table", book.estimate_table, Obj(est), argnames=("est",), truth=Vec([1.0, -2.0, 0.5]),
          digits=Int(4, huge=10**9), caption=Text("c")))

    # ------------------------------------------------------------------ estimation.records
    store = tempfile.mkdtemp(prefix="robidlib_sweep_records_")
    runs = records.load_filter_runs("redundant_5dof_ekf")
    records.save_filter_runs(runs, "sweep", directory=store)
    add(E("estimation.records:save_filter_runs", records.save_filter_runs, Obj(runs, extra=(
        ("unknown", {k: v for k, v in runs.items() if k != "runs"}),)), Text("sweep_copy"), argnames=("result", "name"),
          directory=Path_(store, extra=(("type", None), ("foreign", records.RUNS_DIR))), overwrite=Flag(True)))
    add(E("estimation.records:load_filter_runs", records.load_filter_runs, Text("sweep", extra=(
        ("unknown", "no-such-record"),)), argnames=("name",), directory=Path_(store)))
    add(E("estimation.records:stored_filter_runs", records.stored_filter_runs, directory=Path_(store)))
    from robidlib.trajectories import FourierTrajectory

    ft = FourierTrajectory(2 * np.pi * 0.5, np.array([[0.2, 0.1], [0.1, -0.1]]), np.array([[0.1, 0.0], [0.0, 0.1]]),
                           np.array([0.1, -0.2]))
    add(E("estimation.records:simulate_identification", records.simulate_identification, Obj(planar_2r()), Obj(ft),
          argnames=("robot", "excitation"), duration=Pos(0.2), dt=Pos(0.02), sigma_q=Pos(1e-3), cad_error=NonNeg(0.1),
          p0_rel=NonNeg(0.25), p0_floor=NonNeg(0.002), qd_noise=NonNeg(1e-8), seed=Int(7, zero_ok=True),
          settings=Obj((("euler", "hold"),), extra=(("unknown", (("leapfrog", "hold"),)),)),
          every=Int(5)))   # a huge stride keeps the first and last samples: valid

    # ------------------------------------------------------------------ estimation.physical
    r2 = planar_2r(friction=[[0.2, 0.1], [0.1, 0.05]])
    import robidlib as rl
    from robidlib.regressor import friction_regressor

    q, qd, qdd = rl.random_states(r2, 40, rng=3)
    Yf = np.concatenate([rl.regressor(r2, q, qd, qdd), friction_regressor(qd)], axis=-1)
    truth = np.r_[r2.params, r2.friction.ravel()]
    Wf, yf = rl.stack(Yf, Yf @ truth)
    bpf = rl.base_parameters(r2, friction=True, rng=0)
    other_bp = o["bp"]
    ur5 = rl.models.ur5()
    per_link = dict(skip=("shape",), extra=(("shape", [0.0, 0.0, 0.0]),))     # a scalar or one per link
    common = dict(prior=Vec(truth), min_mass=NonNeg(0.0, **per_link), bounds=Obj({"m1": (0.1, 10.0)}, extra=(
        ("unknown", {"no_such": (0.0, 1.0)}), ("negative", {"m1": (2.0, 1.0)}), ("nan", {"m1": (np.nan, 1.0)}))),
                  bp=Obj(bpf, extra=(("foreign", other_bp),)))
    add(E("estimation.physical:physical_ls", physical.physical_ls, Vec(Wf), Vec(yf),
          Obj(r2, extra=(("foreign", ur5),)), argnames=("W", "y", "robot"), reg=NonNeg(1e-6),
          reg_space=Choice("null"), friction=Flag(True), consistency=Choice("full"), extra_names=Names(()),
          margin=NonNeg(0.0), solver=Choice("CLARABEL"), solver_options=Obj({}, extra=(("unknown", {"no_such": 1}),)),
          **common))
    add(E("estimation.physical:physical_ls(min_mass)", physical.physical_ls, Wf, yf, r2, argnames=("W", "y", "robot"),
          min_mass=NonNeg(0.0, skip=("shape",), extra=(("huge", 1e300), ("huge", 1e30), ("huge", 1e200),
                                                       ("huge", [1e300, 0.0])))))
    add(E("estimation.physical:bounded_ls", physical.bounded_ls, Vec(Wf), Vec(yf), Obj(r2, extra=(("foreign", ur5),)),
          argnames=("W", "y", "robot"), reg=NonNeg(1e-6), reg_space=Choice("null"), friction=Flag(True),
          extra_names=Names(()), rel_bound=Pos(0.5), **common))
    beta = bpf.beta(truth)
    ph = dict(consistency=Choice("full"), margin=NonNeg(0.0), min_mass=NonNeg(0.0, **per_link),
              bounds=common["bounds"], solver=Choice("CLARABEL"), solver_options=Obj({}))
    add(E("estimation.physical:standard_from_base", physical.standard_from_base, Vec(beta),
          Obj(bpf, extra=(("foreign", other_bp),)), Obj(r2, extra=(("foreign", ur5),)), argnames=("beta", "bp", "robot"),
          prior=Vec(truth), **ph))
    add(E("estimation.physical:is_feasible_base", physical.is_feasible_base, Vec(beta),
          Obj(bpf, extra=(("foreign", other_bp),)), Obj(r2, extra=(("foreign", ur5),)), argnames=("beta", "bp", "robot"),
          **ph))
    return T


NOT_SWEPT = {
    "robidlib.plotting.style:use_book_style": "**overrides are matplotlib rcParams (unknown keys: test_plotting)",
}
