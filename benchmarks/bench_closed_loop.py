"""Benchmark of the closed-loop estimators on chapter 12's problem: IDIM-IV, DIDIM, output error.

The problem is the chapter's (``robidlib.closed_loop_study.CHAPTER_RECIPE``): the
5-DOF arm with friction under its PD controller at 200 Hz, one period of 5 s, 30 base and
friction parameters, one record at the highest noise level (draw 0, the chapter's record).
Every method starts from least squares on the same IDIM data; IDIM-IV and DIDIM run to their
tolerance, the output error (``scipy.optimize.least_squares``, torque output) to ``--max-nfev``
evaluations. Reported per method: wall-clock and CPU time (median and minimum of the repeats),
closed-loop simulations run (one simulation of ``K`` models at once counts ``K``), iterations,
and the scaled parameter error ``delta_W`` (%) against the truth. A simulation of one model and
one of 40 models together are timed too: the cost unit of every method. The machine is shared:
the load average before and after is recorded, and CPU time is the figure to compare.

Usage::

    python benchmarks/bench_closed_loop.py [--quick] [--max-nfev 40]

``--quick``: one repeat instead of three, output error with 10 evaluations. Writes
``benchmarks/results/bench_closed_loop.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import robidlib  # noqa: E402
from robidlib.closed_loop import idim_data, simulate_closed_loop  # noqa: E402
from robidlib.estimation import didim, idim_iv, ols, output_error  # noqa: E402
from robidlib.closed_loop_study import (CHAPTER_RECIPE, chapter_setup, draw_seeds,  # noqa: E402
                                                   level_sensors, scaled_error)


def _time(fn, repeats: int):
    walls, cpus, out = [], [], None
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    return out, {"wall_median_s": float(np.median(walls)), "wall_min_s": float(np.min(walls)),
                 "cpu_median_s": float(np.median(cpus)), "cpu_min_s": float(np.min(cpus))}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--max-nfev", type=int, default=None)
    args = ap.parse_args(argv)
    repeats = 1 if args.quick else 3
    max_nfev = args.max_nfev or (10 if args.quick else 40)
    load0 = os.getloadavg()
    r = CHAPTER_RECIPE
    s = chapter_setup(r)
    exp, model, truth, scale = s["experiment"], s["model"], s["truth"], s["scale"]
    top = len(r["levels"]) - 1
    rec = simulate_closed_loop(exp, truth, sensors=level_sensors(s["sensors"], r["levels"][top]),
                               rng=draw_seeds(r, top, [0])[0])
    W, y, samples, keep = idim_data(model, rec, cutoff=r["cutoff"], velocity_threshold=s["threshold"])
    yt = rec.tau_meas[samples][keep]
    rows = []
    _, t1 = _time(lambda: simulate_closed_loop(exp, truth), repeats)
    rows.append({"method": "one closed-loop simulation (1 model)", **t1, "simulations": 1})
    _, t40 = _time(lambda: simulate_closed_loop(exp, np.repeat(truth[None], 40, axis=0)), repeats)
    rows.append({"method": "one closed-loop simulation (40 models together)", **t40, "simulations": 40})
    ls, tl = _time(lambda: ols(W, y), repeats)
    rows.append({"method": "least squares", **tl, "simulations": 0, "iterations": 0,
                 "delta_W": scaled_error(ls.params, truth, scale)})
    cases = {
        "IDIM-IV": lambda: idim_iv(exp, W, y, ls.params, samples=samples, keep=keep),
        "DIDIM": lambda: didim(exp, yt, ls.params, samples=samples, keep=keep),
        f"output error (max_nfev={max_nfev})": lambda: output_error(exp, yt, ls.params, samples=samples, keep=keep,
                                                                     max_nfev=max_nfev),
    }
    for name, fn in cases.items():
        est, t = _time(fn, repeats)
        info = est.info
        rows.append({"method": name, **t, "simulations": int(info["simulations"]),
                     "iterations": int(info.get("iterations", info.get("nfev", 0))),
                     "delta_W": scaled_error(est.params, truth, scale)})
    load1 = os.getloadavg()
    print(f"Chapter 12's problem: {truth.size} parameters, {exp.n_samples} samples, {int(keep.sum())} equations; "
          f"load average {load0[0]:.1f} -> {load1[0]:.1f} (shared machine: compare CPU times)")
    print(f"{'method':48s} {'wall med (s)':>12s} {'CPU med (s)':>12s} {'CPU min (s)':>12s} {'sims':>6s} "
          f"{'iter':>5s} {'delta_W %':>10s}")
    for row in rows:
        dw = row.get("delta_W")
        print(f"{row['method']:48s} {row['wall_median_s']:12.2f} {row['cpu_median_s']:12.2f} {row['cpu_min_s']:12.2f} "
              f"{row['simulations']:6d} {row.get('iterations', ''):>5} {'' if dw is None else f'{dw:10.3f}'}")
    out = {"benchmark": "bench_closed_loop", "robidlib": robidlib.__version__, "python": sys.version.split()[0],
           "machine": platform.machine(), "cpu_count": os.cpu_count(), "repeats": repeats,
           "load_before": load0, "load_after": load1, "max_nfev": max_nfev,
           "problem": {"params": int(truth.size), "samples": exp.n_samples, "equations": int(keep.sum())},
           "results": rows}
    path = Path(__file__).resolve().parent / "results" / "bench_closed_loop.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}")
    return out


if __name__ == "__main__":
    main()
