"""The report of ``robidlib-identify``: one self-contained HTML file, and the same facts as JSON.

:func:`render_report` writes HTML with inline CSS and every figure embedded as a PNG data
URI: the file opens anywhere, offline, and requests nothing from any host. The figures are
drawn with matplotlib's object interface (``matplotlib.figure.Figure`` and the Agg canvas),
so the report changes no global matplotlib state. :func:`result_json` gives the facts for
scripts (NaN and infinity as ``null``).
"""

from __future__ import annotations

import base64
import html
import io
import math
from typing import Any

import numpy as np

from .metric import DEFINITION

__all__ = ["render_report", "result_json", "figures"]

_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;max-width:1100px;margin:2em auto;
padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.6em 0;font-size:.88em}th,td{border:1px solid #ddd;padding:.25em .5em;
text-align:right;vertical-align:top}th{background:#f4f4f4}td.l,th.l{text-align:left}
.pass{background:#d9f2d9}.warn{background:#fff1c2}.fail{background:#f8d0d0}
.badge{display:inline-block;padding:.2em .8em;border-radius:.3em;font-weight:bold;font-size:1.2em}
.def{font-size:.85em;color:#444;background:#f7f7f7;padding:.5em;border-left:3px solid #999}
pre{background:#f7f7f7;padding:.6em;overflow-x:auto;font-size:.8em}img{max-width:100%}
.scroll{max-height:28em;overflow-y:auto}code{font-size:.9em}
"""


# ---------------------------------------------------------------------------- helpers
def _num(v: Any, fmt: str = ".4g") -> str:
    if v is None:
        return "&ndash;"
    try:
        x = float(v)
    except (TypeError, ValueError):
        return html.escape(str(v))
    if not math.isfinite(x):
        return "&ndash;" if math.isnan(x) else ("&infin;" if x > 0 else "&minus;&infin;")
    return format(x, fmt)


def _pct(v: Any, fmt: str = ".2f") -> str:
    return "&ndash;" if v is None or (isinstance(v, float) and not math.isfinite(v)) else format(100 * float(v), fmt)


def _table(header: list[str], rows: list[list[Any]], left: int = 1, cls: list[str] | None = None) -> str:
    h = "".join(f'<th class="{"l" if i < left else ""}">{c}</th>' for i, c in enumerate(header))
    body = []
    for k, r in enumerate(rows):
        c = f' class="{cls[k]}"' if cls else ""
        body.append(f"<tr{c}>" + "".join(f'<td class="{"l" if i < left else ""}">{x}</td>'
                                          for i, x in enumerate(r)) + "</tr>")
    return f"<table><tr>{h}</tr>{''.join(body)}</table>"


def _esc(s: Any) -> str:
    return html.escape(str(s))


def _png(fig) -> str:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    buf = io.BytesIO()
    canvas.print_figure(buf, format="png", dpi=80)      # into memory: no file is written
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _thin(n: int, most: int = 2500) -> slice:
    return slice(None, None, max(1, int(np.ceil(n / most))))


def _units(ident) -> list[str]:
    return ["N" if t == "prismatic" else "N m" for t in ident.robot.joint_types]


# ---------------------------------------------------------------------------- figures
def figures(ident) -> dict:
    """The report's figures as matplotlib ``Figure`` objects (no pyplot, no global state).

    Returns
    -------
    dict
        ``heldout`` (measured and predicted held-out torques per joint, through the
        reference filter), ``spectrum`` (residual and torque spectra), ``relstd`` (relative
        standard deviations of the base parameters), ``cv`` (cross-validation folds),
        ``data`` (the records: positions and torques, held-out parts shaded).
    """
    from matplotlib.figure import Figure
    import scipy.signal

    from .command import RobotIdentification

    if not isinstance(ident, RobotIdentification):
        raise TypeError(f"ident must be a RobotIdentification, got {type(ident).__name__}")

    from .metric import reference_filter
    from .validate import predict_full_rate

    res, model, n = ident.result, ident.model, ident.model.n
    names = ident.robot.joint_names
    units = _units(ident)
    out = {}
    # held-out fit per joint
    f = ident.test.full
    methods = [m for m in ("wls", "physical") if m in ident.heldout]
    if all(m in ident.predictions for m in methods):
        pred = np.stack([ident.predictions[m] for m in methods], axis=-1)
    else:
        pred = predict_full_rate(res, ident.test, np.column_stack([res.full_base_vector(m) for m in methods]))
    meas = reference_filter(f.tau, f.fs, f.run)
    filt = reference_filter(pred.reshape(f.n_samples, -1), f.fs, f.run).reshape(pred.shape)
    tt = np.arange(f.n_samples) / f.fs
    sl = _thin(f.n_samples)
    height = 1.2 + 1.35 * n
    fig = Figure(layout="none", figsize=(9.0, height))
    fig.subplots_adjust(left=0.1, right=0.98, bottom=0.55 / height, top=1 - 0.45 / height, hspace=0.12)
    axs = fig.subplots(n, 1, sharex=True, squeeze=False)[:, 0]
    for j, ax in enumerate(axs):
        ax.plot(tt[sl], meas[sl, j], color="0.55", lw=1.6, label="measured, F[tau]")
        for i, m in enumerate(methods):
            name = "consistent" if m == "physical" else m.upper()
            ax.plot(tt[sl], filt[sl, j, i], lw=0.9, ls="-" if i == 0 else "--", label=f"{name}, F[tau_hat]")
        e = ident.heldout["wls"].per_joint[j]
        ax.set_ylabel(f"{names[j]}\n({units[j]})", fontsize=7)
        ax.text(0.995, 0.95, f"WLS {_pct(e, '.1f')} %", transform=ax.transAxes, ha="right", va="top", fontsize=7)
        ax.tick_params(labelsize=7)
    axs[0].legend(fontsize=7, ncol=3, loc="lower left", bbox_to_anchor=(0, 1.0))
    axs[-1].set_xlabel("time in the held-out data (s; records and segments one after the other)", fontsize=8)
    out["heldout"] = fig
    # residual spectrum
    r = f.tau - pred[:, :, 0]
    nper = int(min(f.n_samples, max(256, 4.0 * f.fs)))
    fr, Pr = scipy.signal.welch(r, fs=f.fs, nperseg=nper, axis=0)
    _, Pt = scipy.signal.welch(f.tau, fs=f.fs, nperseg=nper, axis=0)
    fig = Figure(layout="none", figsize=(9.0, 3.2))
    fig.subplots_adjust(left=0.09, right=0.98, bottom=0.15, top=0.96)
    ax = fig.subplots()
    keep = np.flatnonzero(fr > 0)
    keep = np.unique(np.geomspace(keep[0], keep[-1], min(keep.size, 1500)).astype(int))   # log-spaced points
    ax.loglog(fr[keep], Pt[keep].sum(1), color="0.6", label="measured torque")
    ax.loglog(fr[keep], Pr[keep].sum(1), label="WLS residual (unfiltered)")
    ax.axvline(ident.heldout["wls"].cutoff, color="C3", lw=0.8, label="reference filter F")
    ax.axvline(0.4 * ident.settings.decimated_rate, color="C2", lw=0.8, ls="--", label="decimation pass band")
    ax.set_xlabel("frequency (Hz)", fontsize=8)
    ax.set_ylabel("PSD summed over joints", fontsize=8)
    ax.legend(fontsize=7)
    ax.tick_params(labelsize=7)
    out["spectrum"] = fig
    # relative standard deviations
    rs = res.wls.rel_std
    order = np.argsort(rs)
    fig = Figure(layout="none", figsize=(9.0, 3.6))
    fig.subplots_adjust(left=0.08, right=0.99, bottom=0.3, top=0.97)
    ax = fig.subplots()
    ax.semilogy(np.arange(rs.size), np.maximum(res.ols.rel_std[order], 1e-3), "o", ms=3, label="OLS")
    ax.semilogy(np.arange(rs.size), np.maximum(rs[order], 1e-3), "s", ms=3, mfc="none", label="WLS")
    for lvl in (10, 100):
        ax.axhline(lvl, color="0.6", lw=0.8)
    ax.set_xticks(np.arange(rs.size), [res.names[i] for i in order], rotation=90, fontsize=5 if rs.size > 60 else 6)
    ax.set_ylabel("relative std (%)", fontsize=8)
    ax.legend(fontsize=7)
    out["relstd"] = fig
    # cross-validation
    folds = [fo for fo in ident.cv.get("folds", []) if fo.get("overall") is not None]
    if folds:
        fig = Figure(layout="none", figsize=(9.0, 3.2))
        fig.subplots_adjust(left=0.08, right=0.99, bottom=0.2, top=0.97)
        ax = fig.subplots()
        for fo in folds:
            ax.plot(np.arange(n), 100 * np.asarray(fo["per_joint"]), "o-", ms=3, lw=0.7, alpha=0.7,
                    label=f"fold {fo['fold']}: {100 * fo['overall']:.1f} %")
        ax.plot(np.arange(n), 100 * ident.heldout["wls"].per_joint, "k^", ms=6,
                label=f"held out: {100 * ident.heldout['wls'].overall:.1f} %")
        ax.set_xticks(np.arange(n), names, fontsize=7, rotation=30)
        ax.set_ylabel("relative error (%)", fontsize=8)
        ax.set_yscale("log")
        ax.legend(fontsize=6, ncol=3)
        out["cv"] = fig
    # the data
    fig = Figure(layout="none", figsize=(9.0, 4.2))
    fig.subplots_adjust(left=0.08, right=0.99, bottom=0.12, top=0.98, hspace=0.08)
    axs = fig.subplots(2, 1, sharex=True)
    offset = 0.0
    for part, shade in ((ident.train, False), (ident.test, True)):
        fp = part.full
        for run in np.unique(fp.run):
            m = fp.run == run
            tp = fp.t[m] - fp.t[m][0] + offset
            s2 = _thin(tp.size, 1500)
            for j in range(n):
                axs[0].plot(tp[s2], fp.q[m][s2, j], lw=0.6, color=f"C{j % 10}")
                axs[1].plot(tp[s2], fp.tau[m][s2, j], lw=0.4, color=f"C{j % 10}")
            if shade:
                for ax in axs:
                    ax.axvspan(tp[0], tp[-1], color="0.85", zorder=0)
            offset = tp[-1] + 0.02 * max(tp[-1], 1.0)
    axs[0].set_ylabel("joint position", fontsize=8)
    axs[1].set_ylabel("joint torque", fontsize=8)
    axs[1].set_xlabel("time, fitted data then held-out data (shaded), gaps removed (s)", fontsize=8)
    for ax in axs:
        ax.tick_params(labelsize=7)
    out["data"] = fig
    return out


# ---------------------------------------------------------------------------- JSON
def _clean(v: Any) -> Any:
    if isinstance(v, dict):
        return {str(k): _clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    if isinstance(v, np.ndarray):
        return _clean(v.tolist())
    if isinstance(v, (np.bool_, bool)):
        return bool(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v) if math.isfinite(float(v)) else None
    if v is None or isinstance(v, (int, str)):
        return v
    return str(v)


def _estimate(est) -> dict:
    return {"names": list(est.names), "values": est.params, "std": np.sqrt(np.clip(np.diag(est.cov), 0, None)),
            "rel_std_percent": est.rel_std, "cond": est.cond, "residual_std": est.residual_std}


def result_json(ident) -> dict:
    """The facts of a :class:`~robidlib.identification.command.RobotIdentification` as JSON-able data.

    Raises
    ------
    TypeError
        ``ident`` not a RobotIdentification.
    """
    from .command import RobotIdentification

    if not isinstance(ident, RobotIdentification):
        raise TypeError(f"ident must be a RobotIdentification, got {type(ident).__name__}")
    res = ident.result
    s = ident.settings
    est = {m: _estimate(res.estimate(m)) for m in ("ols", "wls", "essential")}
    if res.physical is not None:
        est["physical"] = {"standard_names": list(ident.model.names), "standard_values": res.physical.params,
                           "base_names": list(res.names), "base_values": res.full_base_vector("physical")}
    out = {
        "robidlib_identify": 1,
        "verdict": ident.verdict,
        "robot": {"urdf": str(ident.config.urdf), "name": ident.robot.name, "joints": list(ident.robot.joint_names),
                  "joint_types": list(ident.robot.joint_types), "gravity": ident.robot.gravity},
        "records": ident.records,
        "settings": {"rate": s.fs, "cutoff": s.cutoff, "filter_order": s.filter_order, "trim": s.trim_samples,
                     "decimation": list(s.decimation), "decimated_rate": s.decimated_rate,
                     "velocity_threshold": (s.velocity_threshold if s.velocity_threshold is not None
                                            else 0.01 * ident.robot.qd_limits),
                     "ratio_essential": s.ratio_essential,
                     "min_equations_per_parameter": s.min_equations_per_parameter,
                     "source": ident.settings_source},
        "model": {"columns": list(ident.model.names), "khalil_names": list(ident.model.khalil_names),
                  "blocks": {k: len(v) for k, v in ident.model.blocks.items()},
                  "base_parameters": [{"name": n, "relation": r} for n, r in zip(res.names, ident.relations)]},
        "data": {"fitted_samples": ident.train.n_samples, "heldout_samples": ident.test.n_samples,
                 "equations_per_joint": res.rows_per_joint, "equations_per_base_parameter":
                     float(res.rows_per_joint.sum() / res.base.rank)},
        "estimates": est,
        "sigma_joint": res.sigma_joint,
        "metric": {"definition": DEFINITION,
                   "heldout": {m: e.as_dict() for m, e in ident.heldout.items()},
                   "heldout_per_record": {r: {m: e.as_dict() for m, e in d.items()}
                                          for r, d in ident.heldout_records.items()},
                   "fitted_wls": ident.fitted.as_dict()},
        "cross_validation": ident.cv,
        "diagnostics": ident.diagnostics,
        "physical": ident.physical,
        "export": {k: v for k, v in ident.export.items() if k not in ("urdf", "mjcf")} |
                  {"files": [f for f, k in (("model.urdf", "urdf"), ("model.xml", "mjcf"))
                             if ident.export.get(k) is not None]},
        "warnings": ident.warnings,
        "timings": ident.timings,
        "versions": ident.versions,
    }
    return _clean(out)


# ---------------------------------------------------------------------------- HTML
def render_report(ident) -> str:
    """The report of a run as one self-contained HTML document (figures as data URIs).

    Parameters
    ----------
    ident : RobotIdentification

    Returns
    -------
    str
    """
    from .command import RobotIdentification

    if not isinstance(ident, RobotIdentification):
        raise TypeError(f"ident must be a RobotIdentification, got {type(ident).__name__}")
    figs = {k: _png(f) for k, f in figures(ident).items()}
    res, model, robot = ident.result, ident.model, ident.robot
    n, names, units = model.n, robot.joint_names, _units(ident)
    v = ident.verdict
    H: list[str] = []
    add = H.append
    add(f"<h1>Identification of {_esc(robot.name)}</h1>")
    add(f"<p>robidlib-identify {_esc(ident.versions.get('robidlib'))}, configuration "
        f"<code>{_esc(ident.config.source)}</code>, URDF <code>{_esc(ident.config.urdf.name)}</code>, "
        f"{n} joints ({', '.join(_esc(j) for j in names)}).</p>")
    add(f'<p>Verdict: <span class="badge {v["status"]}">{v["status"].upper()}</span></p>')
    add(_table(["check", "status", "value", "threshold", "reason"],
               [[_esc(it["name"]), it["status"], _esc(_short(it["value"])), _esc(it["threshold"]), _esc(it["reason"])]
                for it in v["items"]], left=1, cls=[it["status"] for it in v["items"]]))

    # 1. data
    add("<h2>1. Data</h2>")
    rows = []
    for name, r in ident.records.items():
        hy = r["hygiene"]
        rows.append([_esc(name), r["role"], _esc(", ".join(sorted({p.split('/')[-1] for p in r["files"].values()}))),
                     hy["samples"], _num(hy["duration"], ".2f"), _num(1 / hy["median_step"], ".5g"),
                     f"{_num(1e3 * hy['step_min'], '.3g')}&ndash;{_num(1e3 * hy['step_max'], '.3g')}",
                     _pct(hy["step_jitter"], ".2g"), len(hy["segments"]), hy["resampled"], len(hy["gaps"]),
                     hy["nan_rows"]["count"], len(hy["dropped_segments"]), len(r["saturation"])])
    add(_table(["record", "role", "files", "rows", "duration (s)", "rate (Hz)", "steps (ms)", "jitter (% of step)",
                "segments", "resampled", "gaps", "NaN rows", "dropped segments", "saturated"], rows))
    add(f'<p class="def">Hygiene: stamps must increase strictly (a duplicate or decreasing stamp is an error naming '
        f'the row); NaN rows are dropped and split the record; a step larger than the gap threshold splits it into '
        f'segments, never interpolated across; a segment whose steps deviate from the uniform step by more than '
        f'{_pct(ident.config.settings.jitter, ".3g")} % is resampled onto the uniform grid of '
        f'{_num(ident.settings.fs, ".6g")} Hz, positions and velocities by cubic spline interpolation '
        f'(not-a-knot), torques and currents linearly; segments shorter than '
        f'{_num(ident.config.settings.min_segment)} s are dropped.</p>')
    for name, r in ident.records.items():
        hy = r["hygiene"]
        if hy["gaps"]:
            add(f"<p>{_esc(name)}: gaps at rows " + ", ".join(f"{g['row']} ({_num(g['step'], '.3g')} s)"
                                                              for g in hy["gaps"][:10]) + ".</p>")
        for d in hy["dropped_segments"]:
            add(f"<p>{_esc(name)}: rows {d['rows'][0]}&ndash;{d['rows'][1]} dropped: {_esc(d['reason'])}.</p>")
        for s_ in r["saturation"]:
            add(f"<p>{_esc(name)}: {s_['signal']} column <code>{_esc(s_['column'])}</code> holds "
                f"{_num(s_['value'])} for {s_['samples']} samples (longest run {s_['longest_run']})"
                f"{' at its URDF limit' if s_['at_limit'] else ''}: possibly saturated.</p>")
    add(f'<img alt="the records" src="{figs["data"]}">')

    # 2. settings
    add("<h2>2. Settings</h2>")
    st = ident.settings
    src = ident.settings_source
    thr = st.velocity_threshold if st.velocity_threshold is not None else 0.01 * robot.qd_limits
    add(_table(["setting", "value", "from"], [
        ["sampling rate (Hz)", _num(st.fs, ".6g"), _esc(src["ts"])],
        ["position low-pass cut-off (Hz)", _num(st.cutoff), _esc(src["cutoff"])],
        ["Butterworth order (forward-backward)", st.filter_order, "config or default"],
        ["samples trimmed at segment ends", st.trim_samples, _esc(src["trim"])],
        ["decimation factors", _esc(list(st.decimation)), _esc(src["decimation"])],
        ["decimated rate (Hz)", _num(st.decimated_rate, ".4g"), "rate / total factor"],
        ["velocity thresholds", _esc(np.round(thr, 4).tolist()), _esc(src["velocity_threshold"])],
        ["essential ratio", _num(st.ratio_essential), "config or default"],
        ["motion bandwidth (Hz, 99 % of the velocity energy)", _num(src["facts"]["motion_bandwidth"], ".3g"),
         "measured on the fitting records"],
        ["velocities", "measured (low-passed)" if (ident.config.velocity is not None
                                                  and ident.config.settings.velocity_source != "differentiated")
         else "central differences of the low-passed positions", "config"],
    ]))

    # 3. model
    add("<h2>3. Model and base parameters</h2>")
    add(f"<p>{model.p} columns: " + ", ".join(f"{k} {len(c)}" for k, c in model.blocks.items())
        + f"; {res.base.rank} base parameters by QR regrouping (Khalil's names; the suffix R marks a parameter "
          "that absorbs others).</p>")
    add('<div class="scroll">' + _table(["base parameter", "relation"],
                                        [[f"<code>{_esc(a)}</code>", f"<code>{_esc(b)}</code>"]
                                         for a, b in zip(res.names, ident.relations)], left=2) + "</div>")

    # 4. estimates
    add("<h2>4. Estimates</h2>")
    add(_table(["", "OLS", "WLS", "essential (WLS)"], [
        ["condition number of the (weighted) base regressor", _num(res.ols.cond), _num(res.wls.cond),
         _num(res.essential.cond)],
        ["parameters", res.ols.params.size, res.wls.params.size, res.essential.params.size],
        ["fitted equations", int(res.rows_per_joint.sum()), "", ""],
        ["equations per base parameter", _num(res.rows_per_joint.sum() / res.base.rank, ".1f"), "", ""]]))
    add("<p>WLS weights (per-joint error std): " + ", ".join(
        f"{_esc(j)} {_num(s, '.3g')} {u}" for j, s, u in zip(names, res.sigma_joint, units)) + ".</p>")
    ess = dict(zip(res.essential.names, res.essential.params))
    phys = res.full_base_vector("physical") if res.physical is not None else None
    rows = []
    for i, nm in enumerate(res.names):
        rows.append([f"<code>{_esc(nm)}</code>", _num(res.ols.params[i]), _num(res.wls.params[i]),
                     _num(res.wls.std[i], ".3g"), _num(res.wls.rel_std[i], ".3g"),
                     _num(ess.get(nm)) if nm in ess else "", _num(phys[i]) if phys is not None else ""])
    cls = ["fail" if r > 100 else "warn" if r > 10 else "" for r in res.wls.rel_std]
    add('<div class="scroll">' + _table(["base parameter", "OLS", "WLS", "WLS std", "%&sigma;", "essential",
                                         "consistent"], rows, cls=cls) + "</div>")
    idn = ident.diagnostics["identifiability"]
    add(f"<p>What the record identifies: {len(idn['well'])} base parameters to better than 10 %, "
        f"{len(idn['poor'])} between 10 and 100 %, and {len(idn['not_identified'])} <b>not at all</b> "
        f"(relative standard deviation above 100 %: zero lies within one standard deviation)"
        + (": " + ", ".join(f"<code>{_esc(x)}</code>" for x in idn["not_identified"]) if idn["not_identified"] else "")
        + f". The essential set ({len(idn['essential'])} parameters, ratio {_num(st.ratio_essential)}): "
        + ", ".join(f"<code>{_esc(x)}</code>" for x in idn["essential"]) + ".</p>")
    add(f'<img alt="relative standard deviations" src="{figs["relstd"]}">')

    # 5. held-out
    add("<h2>5. Held-out torque fit</h2>")
    add(f'<p class="def"><b>The metric.</b> {_esc(DEFINITION)}</p>')
    rows = [[m.upper(), _pct(e.overall), _pct(e.overall_unfiltered), _pct(e.overall_kept)]
            for m, e in ident.heldout.items()]
    rows.append(["WLS on the fitted data", _pct(ident.fitted.overall), _pct(ident.fitted.overall_unfiltered),
                 _pct(ident.fitted.overall_kept)])
    add(_table(["estimate", "held-out error (%)", "unfiltered (%)", "kept equations only, unfiltered (%)"], rows))
    for rec, d in ident.heldout_records.items():
        e = d["wls"]
        add(f"<p>Held-out data of record <b>{_esc(rec)}</b> ({e.samples} samples), WLS:</p>")
        add(_table(["joint", "error (%)", "unfiltered (%)", "rms of F[residual]", "rms unfiltered",
                    "share of the overall denominator"],
                   [[_esc(names[j]), _pct(e.per_joint[j], ".1f"), _pct(e.per_joint_unfiltered[j], ".1f"),
                     f"{_num(e.rms[j], '.3g')} {units[j]}", f"{_num(e.rms_unfiltered[j], '.3g')} {units[j]}",
                     _pct(e.share[j], ".1f")] for j in range(n)]))
    add(f'<img alt="held-out torque fit per joint" src="{figs["heldout"]}">')
    add("<p>Residual spectrum: peaks follow unmodelled dynamics, broad-band error comes from noise and velocity "
        "reversals (friction).</p>")
    add(f'<img alt="residual spectrum" src="{figs["spectrum"]}">')

    # 6. cross-validation
    add("<h2>6. Cross-validation</h2>")
    cv = ident.cv
    if cv.get("folds"):
        add(f"<p>Blocked {cv['k']}-fold cross-validation within the fitted data: every record cut into {cv['k']} "
            f"blocks of equal duration, each held out once (guard {_num(cv['guard'])} s at every cut), WLS refitted "
            "on the rest, the same metric.</p>")
        add(_table(["fold", "held-out time (s)", "error (%)"] + [_esc(j) for j in names],
                   [[fo["fold"], (f"{_num(fo['held_out_time'][0], '.2f')}&ndash;{_num(fo['held_out_time'][1], '.2f')}"
                                  if fo.get("held_out_time") else ""), _pct(fo["overall"])]
                    + [_pct(x, ".1f") for x in (fo["per_joint"] or [None] * n)] for fo in cv["folds"]]))
        if "median" in cv:
            add(f"<p>Median {_pct(cv['median'])} %, range {_pct(cv['min'])} to {_pct(cv['max'])} %.</p>")
        if "cv" in figs:
            add(f'<img alt="cross-validation" src="{figs["cv"]}">')
    else:
        add(f"<p>No cross-validation: {_esc(cv.get('reason', ''))}.</p>")

    # 7. physical consistency
    add("<h2>7. Physical consistency certificate</h2>")
    ph = ident.physical
    if ph:
        add(f"<p>Least squares over the standard parameters with every link's pseudo-inertia positive "
            f"semi-definite (LMI, {_esc(ph['consistency'])}, margin {_num(ph['margin'])}; solver "
            f"{_esc(ph['solver'])}, status <b>{_esc(ph['status'])}</b>); among the parameter sets the data cannot "
            f"tell apart, the one closest to the URDF's CAD values. Every link consistent: "
            f"<b>{ph['consistent']}</b>. Weighted residual {_pct(ph['residual_excess'], '+.2f')} % above "
            f"least squares'; the base parameters move by at most {_num(ph['max_base_shift_in_wls_std'], '.2f')} "
            f"WLS standard deviations (<code>{_esc(ph['largest_shift'])}</code>).</p>")
        add(_table(["link", "mass (kg)", "centre of mass (m, link frame)", "min eig(J) / max |eig(J)|"],
                   [[_esc(lk["link"]), _num(lk["mass"]), _esc(np.round(lk["com"], 4).tolist()) if lk["com"] else "",
                     _num(lk["min_eig_J"], ".3g")] for lk in ph["links"]]))
        add("<p>Only the base parameters are identified: these masses and inertias are one consistent "
            "realisation, not measurements of each link.</p>")
    else:
        add("<p>Not computed.</p>")

    # 8. diagnostics
    add("<h2>8. Diagnostics</h2>")
    add(_table(["joint", "torque std", "WLS error std", "signal / error", "fitted equations", "torque / CAD torque",
                "mean power &tau;&middot;q&#775;"],
               [[_esc(s["joint"]), _num(s["torque_std"], ".3g"), _num(s["error_std"], ".3g"),
                 _num(s["signal_to_noise"], ".3g"), s["equations"], _num(c["scale"], ".3g")
                 + ("" if c["informative"] else " (CAD torque too small to tell)"), _num(c["mean_power"], ".3g")]
                for s, c in zip(ident.diagnostics["signal"], ident.diagnostics["torque_scale"])],
               cls=["warn" if s["too_little"] else "" for s in ident.diagnostics["signal"]]))
    add("<p>Torque / CAD torque: the least-squares factor of the measured torque on the CAD model's rigid-body "
        "torque (with viscous and Coulomb friction and an offset beside it), near 1 when the logged signal is the "
        "joint torque in the configured units and signs. A negative mean power means the logged torque opposes "
        "the motion on average, impossible for a drive working against friction: check the sign.</p>")
    vel = ident.diagnostics.get("velocity")
    if vel:
        add(_table(["joint", "measured / differentiated (gain)", "delay of the measured velocity (ms)"],
                   [[_esc(names[j]), _num(vel["gain"][j], ".3g"), _num(1e3 * vel["delay_s"][j], ".3g")]
                    for j in range(n)]))

    # 9. export
    add("<h2>9. Export</h2>")
    ex = ident.export
    if ex.get("urdf") is None and ex.get("mjcf") is None:
        add(f"<p>Nothing exported: {_esc(ex.get('reason', ''))}</p>")
    else:
        add("<p><code>model.urdf</code> and <code>model.xml</code> (MJCF) hold the physically consistent estimate: "
            "masses, centres of mass and inertias, viscous and Coulomb friction (URDF <code>damping</code>/"
            "<code>friction</code>; MJCF <code>damping</code>/<code>frictionloss</code>) and, in MJCF only, the "
            "rotor inertias (<code>armature</code>). Not exported (no place in the formats): "
            + (", ".join(f"<code>{_esc(x)}</code>" for x in ex.get("not_in_mjcf", [])) or "nothing")
            + " (and the rotor inertias in URDF). The chain only: no meshes, other links merged as "
              "identified.</p>")
        scale = next((it for it in v["items"] if it["name"].startswith("torques against")), None)
        if scale is not None and scale["status"] != "pass":
            add("<p><b>Read the export with the warning on the torques' scale above:</b> the model reproduces "
                "the logged signals, so where they are not the joint torques in the configured units its masses "
                "and inertias are scaled (or signed) alike, and a simulator driven with real torques would "
                "not behave like the robot.</p>")
        add(_table(["file", "loaded back with", "largest difference / largest torque", "compared"],
                   [[k.upper(), _esc(c.get("loaded_with") or c.get("reason")), _num(c.get("max_rel"), ".2e"),
                     _esc(c.get("terms", ""))] for k, c in ex.get("check", {}).items()]))

    # 10. reproduce
    add("<h2>10. Reproduce</h2>")
    add("<p><code>config.toml</code> beside this report holds the configuration with every setting explicit; "
        "<code>result.json</code> the facts of this report; <code>versions.txt</code> the versions:</p>")
    add(_table(["package", "version"], [[_esc(k), _esc(x)] for k, x in ident.versions.items()]))
    add("<p>Time per step (s): " + ", ".join(f"{_esc(k)} {_num(x, '.2f')}" for k, x in ident.timings.items())
        + ".</p>")
    if ident.warnings:
        add("<p>Warnings:</p><ul>" + "".join(f"<li>{_esc(w)}</li>" for w in ident.warnings) + "</ul>")
    body = "\n".join(H)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>robidlib-identify: {_esc(robot.name)}</title><style>{_CSS}</style></head>"
            f"<body>\n{body}\n</body></html>\n")


def _short(v: Any) -> str:
    if isinstance(v, float):
        return format(v, ".3g")
    if isinstance(v, dict):
        return ", ".join(f"{k} {x}" for k, x in v.items())
    if isinstance(v, list):
        return ", ".join(format(x, ".3g") if isinstance(x, float) else str(x) for x in v)
    return "" if v is None else str(v)
