"""Benchmark of the estimators of the book on the 5-DOF redundant manipulator (chapter 9).

A seeded Monte Carlo on ``robidlib.benchmark.benchmark_study(redundant_5dof())`` (the 5-DOF arm with the
excitations stored in robidlib's package data).  For every noise setting and run, noisy
measurements of the same clean identification experiment are drawn and every method of
``robidlib.benchmark.METHODS`` estimates the 20 base parameters from them, with the same
information (``robidlib.benchmark.METHOD_INPUTS``).  Four axes:

* ``torque``: relative torque noise ``nu`` (per-joint, ``nu`` times each joint's RMS torque)
  at the default position / velocity noise (1e-4 rad or m, 1e-3 per s): every method;
* ``position``: position noise ``sigma_q`` (velocity noise ``10 sigma_q`` per s) at
  ``nu = 2 %``: every method; the regressor-based ones get the filtered, differentiated,
  decimated signals of the study's pipeline, the EKF the raw ones;
* ``homoscedastic``: the torque axis with the same noise standard deviation on every joint
  (same total noise power): LS, WLS (known and estimated weights) and MAP (the weighting
  question only);
* ``ekf_q``: the torque axis for the EKF with the full process noise ``G diag(sigma_tau^2) G^T``
  of chapter 8 instead of its diagonal (``fit_ekf``'s option ``process_noise="full"``), the
  same draws: how much the benchmark's choice of a diagonal ``Q`` matters.

Each estimate is scored by ``delta_beta`` over all and over the essential parameters, the
column-scaled error, the error in prior standard deviations, ``delta_tau`` and the agreement
index on the validation trajectory; the wall-clock time and iterations are recorded
(reported, not ranked).

Usage::

    python benchmarks/bench_methods.py [--quick] [--design]

``--quick``: 3 runs per setting instead of 20 (a smoke test; writes
``bench_methods_quick.json`` and leaves the package data alone).  ``--design``: re-optimise the
two excitations with their recipe (``make_study(redundant_5dof(), seed=2024)``) and store them
in ``robidlib/data/excitations`` first (only when the recipe changes: the stored ones are what
makes the benchmark the same on every machine).  Writes ``benchmarks/results/bench_methods.json``
and its copy ``robidlib/data/bench_methods.json`` (package data, read by
``robidlib.benchmark.load_benchmark``).  robidlib limits BLAS to one thread when imported; the
JSON records the thread pools (threadpoolctl).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import scipy
from threadpoolctl import threadpool_info

import robidlib
from robidlib.benchmark import (BENCHMARK_EXCITATIONS, BENCHMARK_FILE, METHOD_INPUTS, METHODS, ResultTable,
                                benchmark_study, fit_ekf, make_study, summarize)
from robidlib.models import redundant_5dof
from robidlib.trajectories import excitation_cond, limit_margins, save_excitation

#: Relative torque-noise levels (fraction of each joint's RMS torque).
LEVELS = (0.005, 0.01, 0.02, 0.05, 0.1)
#: Position-noise axis (rad or m; the velocity noise is 10 times larger per second), at 2 %.
SIGMA_Q = (1e-4, 1e-3, 3e-3, 1e-2)
POSITION_LEVEL = 0.02
VELOCITY_RATIO = 10.0
HOMOSCEDASTIC_METHODS = ("LS", "WLS", "WLS (estimated)", "MAP")
EKF_FULL_Q = "EKF (full Q)"
#: Seed of the study (robots, trajectories: fixed by benchmark_study) and of the noise.
STUDY_SEED = 2024
NOISE_SEED = 7
RUNS = 20
QUICK_RUNS = 3

COLUMNS = ("axis", "method", "level", "sigma_q", "delta_beta_mean", "delta_beta_ess_mean", "scaled_error_mean",
           "prior_sigma_error_mean", "delta_tau_mean", "time_s_median", "iterations_mean", "failed")


def design() -> None:
    """Re-run the recipe of the stored excitations and store the result."""
    t0 = time.perf_counter()
    study = make_study(redundant_5dof(), seed=STUDY_SEED)
    for name, traj, which in ((BENCHMARK_EXCITATIONS[0], study.excitation, "excitation"),
                              (BENCHMARK_EXCITATIONS[1], study.validation_excitation, "validation_excitation")):
        sampled = traj.evaluate(np.arange(0.0, traj.period, 0.01))
        cad = study.cad
        meta = {
            "recipe": {"function": "robidlib.benchmark.make_study", "robot": "redundant_5dof",
                       "kwargs": {"seed": STUDY_SEED}, "trajectory": which},
            "cond": excitation_cond(cad, traj.evaluate(np.arange(0.0, traj.period, 0.05)), study.base),
            "min_limit_margin": float(np.min(limit_margins(sampled, q_min=cad.q_limits[:, 0], q_max=cad.q_limits[:, 1],
                                                           qd_max=cad.qd_limits, qdd_max=cad.qdd_limits))),
            "made_with": {"robidlib": robidlib.__version__, "numpy": np.__version__, "scipy": scipy.__version__,
                          "python": sys.version.split()[0], "date": time.strftime("%Y-%m-%d")},
        }
        path = save_excitation(traj, name, meta=meta)
        print(f"stored {path} (cond {meta['cond']:.4f}, smallest limit margin {meta['min_limit_margin']:.3g})")
    print(f"designed in {time.perf_counter() - t0:.1f} s")


def _rounded(x, digits: int = 7):
    """Floats to ``digits`` significant digits (the package data stays small; far below any spread)."""
    if isinstance(x, float):
        return float(f"{x:.{digits}g}")
    if isinstance(x, dict):
        return {k: _rounded(v, digits) for k, v in x.items()}
    if isinstance(x, list):
        return [_rounded(v, digits) for v in x]
    return x


def _param_stats(estimates: list[dict], truth: np.ndarray) -> list[dict]:
    """Mean and standard deviation of each parameter's estimate per axis, setting and method."""
    groups: dict[tuple, list] = {}
    for e in estimates:
        groups.setdefault((e["axis"], e["level"], e["sigma_q"], e["method"]), []).append(e["params"])
    out = []
    for (axis, level, sq, method), P in groups.items():
        P = np.array(P, dtype=float)
        ok = np.all(np.isfinite(P), axis=1)
        P = P[ok]
        out.append({"axis": axis, "level": level, "sigma_q": sq, "method": method, "runs": int(P.shape[0]),
                    "mean": P.mean(axis=0).tolist() if P.size else [],
                    "std": P.std(axis=0, ddof=1).tolist() if P.shape[0] > 1 else []})
    return out


def fit_ekf_full_q(problem):
    """The benchmark's EKF with the full process noise of chapter 8 (the ``ekf_q`` axis)."""
    return fit_ekf(dataclasses.replace(problem, options={**problem.options, "ekf": {"process_noise": "full"}}))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_RUNS} runs per setting instead of {RUNS}")
    parser.add_argument("--design", action="store_true", help="re-optimise and store the two excitations first")
    parser.add_argument("--output", type=Path, default=None, help="JSON file to write")
    args = parser.parse_args(argv)
    if args.design:
        design()
    results = Path(__file__).resolve().parent / "results"
    out = args.output or results / ("bench_methods_quick.json" if args.quick else "bench_methods.json")
    runs = QUICK_RUNS if args.quick else RUNS

    t0 = time.perf_counter()
    study = benchmark_study(redundant_5dof())
    print(f"study: {study.base.rank} base parameters ({int(study.essential.sum())} essential), excitation cond "
          f"{study.settings['excitation_cond']:.4f}, built in {time.perf_counter() - t0:.1f} s", flush=True)

    def progress(msg: str) -> None:
        print("  " + msg, flush=True)

    t1 = time.perf_counter()
    rows: list[dict] = []
    estimates: list[dict] = []
    walls: dict[str, float] = {}

    def run(axis: str, levels, sigma_q: float, methods, **kw) -> None:
        ts = time.perf_counter()
        methods = dict(methods) if isinstance(methods, dict) else list(methods)
        raw = study.monte_carlo(levels, runs, NOISE_SEED, methods=methods, sigma_q=sigma_q,
                                sigma_qd=VELOCITY_RATIO * sigma_q, keep_params=True, progress=progress, **kw)
        for r in raw:
            rows.append({"axis": axis, "sigma_q": sigma_q, **r})
        for e in raw.meta["estimates"]:
            estimates.append({"axis": axis, "sigma_q": sigma_q, **e})
        walls[f"{axis} sigma_q={sigma_q:g}"] = time.perf_counter() - ts

    print("torque axis", flush=True)
    run("torque", LEVELS, SIGMA_Q[0], METHODS)
    print("position axis", flush=True)
    # sigma_q = 1e-4 at 2 % is the torque axis' cell: the same draws, stored once
    for sq in SIGMA_Q:
        if sq == SIGMA_Q[0] and POSITION_LEVEL in LEVELS:
            for r in [r for r in rows if r["axis"] == "torque" and r["level"] == POSITION_LEVEL]:
                rows.append({**r, "axis": "position"})
            for e in [e for e in estimates if e["axis"] == "torque" and e["level"] == POSITION_LEVEL]:
                estimates.append({**e, "axis": "position"})
            continue
        run("position", [POSITION_LEVEL], sq, METHODS)
    print("homoscedastic axis", flush=True)
    run("homoscedastic", LEVELS, SIGMA_Q[0], HOMOSCEDASTIC_METHODS, torque_noise="pooled")
    print("EKF with the full process noise", flush=True)
    run("ekf_q", LEVELS, SIGMA_Q[0], {EKF_FULL_Q: fit_ekf_full_q})
    wall = time.perf_counter() - t1

    raw = ResultTable(rows)
    table = summarize(raw, by=("axis", "method", "level", "sigma_q"))
    print()
    print(table.to_markdown(COLUMNS))
    print(f"\n{len(raw)} fits in {wall:.0f} s")

    pools = [{k: p.get(k) for k in ("user_api", "internal_api", "num_threads", "version")} for p in threadpool_info()]
    raw.meta.update({
        "benchmark": "bench_methods",
        "study": "robidlib.benchmark.benchmark_study(redundant_5dof())",
        "study_settings": study.settings,
        "study_seed": STUDY_SEED,
        "noise_seed": NOISE_SEED,
        "levels": list(LEVELS),
        "sigma_q": list(SIGMA_Q),
        "position_level": POSITION_LEVEL,
        "velocity_ratio": VELOCITY_RATIO,
        "homoscedastic_methods": list(HOMOSCEDASTIC_METHODS),
        "ekf_q_method": EKF_FULL_Q,
        "methods": list(METHODS),
        "method_inputs": dict(METHOD_INPUTS),
        "runs": runs,
        "truth": study.truth.tolist(),
        "prior": study.prior.tolist(),
        "prior_std": study.prior_std.tolist(),
        "essential": study.essential.tolist(),
        "column_scale": study.column_scale.tolist(),
        "base_names": list(study.base.base_names),
        "param_stats": _param_stats(estimates, study.truth),
        "wall_s": wall,
        "wall_s_by_axis": walls,
        "machine": {"python": sys.version.split()[0], "numpy": np.__version__, "scipy": scipy.__version__,
                    "robidlib": robidlib.__version__, "platform": platform.platform(),
                    "processor": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
                    "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
                    "blas_threads": pools,
                    "blas_limit": os.environ.get("ROBIDLIB_BLAS_THREADS", "1 (robidlib default)")},
        "date": time.strftime("%Y-%m-%d"),
    })
    text = json.dumps(_rounded(json.loads(raw.to_json(columnar=True, indent=None))), separators=(",", ":"))
    targets = [out] if args.quick or args.output else [out, BENCHMARK_FILE]
    for target in targets:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(".json.tmp")
        tmp.write_text(text + "\n")
        tmp.replace(target)
        print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
