"""Benchmark of the estimators of the book on the 5-DOF redundant manipulator (chapter 7).

A seeded Monte Carlo: for every relative torque-noise level and run, noisy measurements of the
same clean identification experiment (``robidlib.benchmark.make_study(redundant_5dof())``)
are drawn, and LS, WLS, Adaline, Hopfield and the EKF estimate the 20 base parameters from
them.  Each estimate is scored by the relative parameter error ``delta_beta`` (%), the
relative torque error ``delta_tau`` (%) and the agreement index on a separate validation
trajectory, the wall-clock time of the fit and its number of iterations.

The chapter loads the JSON written here (a full run takes minutes, mostly the EKF) and
recomputes a few runs to check that the file still matches the code.

Usage::

    python benchmarks/bench_methods.py [--quick]

``--quick``: 3 runs per noise level instead of 20 (for a smoke test; does not overwrite the
full results unless ``--output`` says so).  Writes ``benchmarks/results/bench_methods.json``
(``bench_methods_quick.json`` with ``--quick``).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

# Small dense problems (2505 x 20 least squares, 30-state filter): a multi-threaded BLAS only
# adds synchronisation (an SVD took 0.9 s instead of 1 ms on the busy 2-core machine).  Use one
# BLAS thread unless the caller chose otherwise; must precede numpy.
BLAS_ENV = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
for _var in BLAS_ENV:
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import scipy  # noqa: E402

import robidlib  # noqa: E402
from robidlib.benchmark import make_study, summarize  # noqa: E402
from robidlib.models import redundant_5dof  # noqa: E402

#: Relative torque-noise levels (fraction of each joint's RMS torque).
LEVELS = (0.005, 0.01, 0.02, 0.05, 0.1)
#: Seed of the study (robots, trajectories) and of the noise.
STUDY_SEED = 2024
NOISE_SEED = 7
RUNS = 20
QUICK_RUNS = 3

COLUMNS = ("method", "level", "delta_beta_mean", "delta_beta_std", "delta_tau_mean", "delta_tau_std",
           "agreement_mean", "time_s_median", "iterations_mean", "runs", "failed")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_RUNS} runs per level instead of {RUNS}")
    parser.add_argument("--output", type=Path, default=None, help="JSON file to write")
    args = parser.parse_args(argv)
    results = Path(__file__).resolve().parent / "results"
    out = args.output or results / ("bench_methods_quick.json" if args.quick else "bench_methods.json")
    runs = QUICK_RUNS if args.quick else RUNS

    t0 = time.perf_counter()
    study = make_study(redundant_5dof(), seed=STUDY_SEED)
    print(f"study: {study.base.rank} base parameters, excitation cond {study.settings['excitation_cond']:.1f}, "
          f"built in {time.perf_counter() - t0:.1f} s")
    t1 = time.perf_counter()
    raw = study.monte_carlo(LEVELS, runs, NOISE_SEED, progress=lambda msg: print("  " + msg, flush=True))
    wall = time.perf_counter() - t1
    table = summarize(raw)
    print()
    print(table.to_markdown(COLUMNS))
    print(f"\n{len(raw)} fits in {wall:.0f} s")

    raw.meta.update({
        "benchmark": "bench_methods",
        "study_settings": study.settings,
        "study_seed": STUDY_SEED,
        "noise_seed": NOISE_SEED,
        "levels": list(LEVELS),
        "runs": runs,
        "truth": study.truth.tolist(),
        "prior": study.prior.tolist(),
        "base_names": list(study.base.base_names),
        "summary": table.rows,
        "wall_s": wall,
        "machine": {"python": sys.version.split()[0], "numpy": np.__version__, "scipy": scipy.__version__,
                    "robidlib": robidlib.__version__, "platform": platform.platform(),
                    "processor": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
                    "blas_threads": {k: os.environ.get(k) for k in BLAS_ENV}},
        "date": time.strftime("%Y-%m-%d"),
    })
    raw.meta.pop("params", None)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".json.tmp")
    tmp.write_text(raw.to_json() + "\n")
    tmp.replace(out)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
