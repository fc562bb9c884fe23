"""Benchmark of physically consistent least squares (robidlib.estimation.physical_ls).

Solve time, solver iterations and fit of ``physical_ls`` (LMI ``J >= 0`` per link, and the
"semi" 6x6 LMI), of the box-bounded alternative ``bounded_ls`` and of OLS on the base
parameters, for the 5-DOF arm and the UR5 with 2 000 and 20 000 samples, on two kinds of data:

* ``rich``: random states over the whole workspace (``robidlib.random_states``);
* ``poor``: states within 10 % of the ranges around the middle pose (OLS gives a robot that
  cannot exist, so the constraints are active).

Torques are the robot's own (with viscous and Coulomb friction) plus 1 % Gaussian noise, seeded.
Every method gets the same stacked standard regressor ``W`` (with the friction columns) and
torques ``y``; OLS gets ``bp.reduce(W)``. Times are wall-clock per call (median and minimum of
the repeats, after one warm-up call) and CPU time; ``physical_ls`` is timed with the base
parameters given (``bp=``) and as a user calls it (``bp`` computed inside), the latter being
the target. The one-off ``import cvxpy`` is reported apart.

Target (issue 19): UR5, 2 000 samples, ``physical_ls`` in <= 1 s (median) on this machine.
The machine is shared: the load average before and after is recorded.

Usage::

    python benchmarks/bench_physical.py [--quick]

``--quick``: 2 repeats instead of 5. Writes ``benchmarks/results/bench_physical.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

# Small dense problems (a QR of 120 000 x 73 at most, a 100-variable SDP): one BLAS thread
# unless the caller chose otherwise; must precede numpy. threadpoolctl, when installed, checks
# and enforces it for the BLAS numpy and scipy actually loaded.
BLAS_ENV = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
for _var in BLAS_ENV:
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import scipy  # noqa: E402

import robidlib as rl  # noqa: E402
from robidlib.estimation import bounded_ls, ols, physical_ls  # noqa: E402
from robidlib.models import redundant_5dof, ur5  # noqa: E402
from robidlib.regressor import friction_regressor  # noqa: E402

TARGET_S = 1.0
NOISE = 0.01
SIZES = (2000, 20000)
MODELS = (("5-DOF arm", redundant_5dof), ("UR5", ur5))


def _data(robot, N, kind, seed):
    rng = np.random.default_rng(seed)
    if kind == "rich":
        q, qd, qdd = rl.random_states(robot, N, rng=rng)
    else:
        mid = robot.q_limits.mean(axis=1)
        q = mid + 0.1 * rng.uniform(-1, 1, (N, robot.n)) * np.ptp(robot.q_limits, axis=1)
        qd = 0.1 * rng.uniform(-1, 1, (N, robot.n)) * robot.qd_limits
        qdd = 0.1 * rng.uniform(-1, 1, (N, robot.n)) * robot.qdd_limits
    Y = np.concatenate([rl.regressor(robot, q, qd, qdd), friction_regressor(qd)], axis=-1)
    W, y0 = rl.stack(Y, Y @ np.r_[robot.params, robot.friction.ravel()])
    return W, y0 + NOISE * np.std(y0) * rng.normal(size=y0.size)


def _time(f, repeat):
    out = f()  # warm-up
    wall, cpu = [], []
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        out = f()
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    return out, float(np.median(wall)), float(np.min(wall)), float(np.median(cpu))


def bench_case(name, make, N, kind, repeat, seed):
    base = make()
    robot = base.with_friction(np.tile([1.0, 2.0], (base.n, 1)))
    bp = rl.base_parameters(robot, friction=True)
    W, y = _data(robot, N, kind, seed)
    Wb = bp.reduce(W)
    rows = []

    def row(label, f):
        est, med, mn, cpu = _time(f, repeat)
        info = est.info
        res = float(np.linalg.norm(y - W @ est.params)) if est.params.size == W.shape[1] else float(
            np.linalg.norm(y - Wb @ est.params))
        rows.append({
            "method": label, "median_s": med, "min_s": mn, "cpu_s": cpu, "repeats": repeat,
            "solve_s": info.get("solve_time"), "setup_s": info.get("setup_time"),
            "iterations": info.get("iterations"), "status": info.get("status"),
            "residual_norm": res,
            "consistent": info.get("consistent"),
            "min_eig_J": None if "min_eig_J" not in info else float(np.min(info["min_eig_J"])),
        })

    row("OLS (base)", lambda: ols(Wb, y))
    row("physical_ls full", lambda: physical_ls(W, y, robot, bp=bp))
    row("physical_ls full, bp inside", lambda: physical_ls(W, y, robot))
    row("physical_ls semi", lambda: physical_ls(W, y, robot, bp=bp, consistency="semi"))
    row("bounded_ls (box)", lambda: bounded_ls(W, y, robot, bp=bp))
    row("bounded_ls (box, +-50 %)", lambda: bounded_ls(W, y, robot, bp=bp, rel_bound=0.5))
    ref = rows[0]["residual_norm"]
    for r in rows:
        r["residual_over_ols"] = r["residual_norm"] / ref
    ols_consistent = bool(rl.params.is_physically_consistent(
        _realisation(bp, ols(Wb, y).params, np.r_[robot.params, robot.friction.ravel()])[: 10 * robot.n]))
    return {"robot": name, "samples": N, "rows_of_W": int(W.shape[0]), "columns": int(W.shape[1]),
            "data": kind, "base_parameters": int(bp.rank), "ols_realisation_consistent": ols_consistent,
            "results": rows}


def _realisation(bp, beta, truth):
    pi = truth.copy()
    pi[bp.independent] += beta - bp.beta(truth)
    return pi


def print_table(res):
    print(f"\n{res['robot']}, {res['samples']} samples ({res['rows_of_W']} x {res['columns']}), "
          f"{res['data']} data; OLS robot (QR realisation) consistent: {res['ols_realisation_consistent']}")
    head = (f"{'method':<29}{'median s':>10}{'min s':>9}{'cpu s':>8}{'solve s':>9}{'setup s':>9}"
            f"{'iter':>6}{'res/OLS':>10}{'consistent':>12}{'min eig J':>11}")
    print(head)
    print("-" * len(head))
    for r in res["results"]:
        f = (lambda v, fmt: format(v, fmt) if v is not None else "-")
        print(f"{r['method']:<29}{r['median_s']:10.4f}{r['min_s']:9.4f}{r['cpu_s']:8.3f}"
              f"{f(r['solve_s'], '9.4f'):>9}{f(r['setup_s'], '9.4f'):>9}{f(r['iterations'], 'd'):>6}"
              f"{r['residual_over_ols']:10.5f}{str(r['consistent']) if r['consistent'] is not None else '-':>12}"
              f"{f(r['min_eig_J'], '11.2e'):>11}")


def _threads():
    try:
        from threadpoolctl import threadpool_info, threadpool_limits
    except ImportError:
        return None, "threadpoolctl not installed; BLAS threads from the environment only"
    limiter = threadpool_limits(limits=1, user_api="blas")
    info = [{k: d.get(k) for k in ("internal_api", "num_threads", "version", "architecture")}
            for d in threadpool_info()]
    return limiter, info


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="2 repeats instead of 5")
    args = parser.parse_args(argv)
    repeat = 2 if args.quick else 5
    _limiter, pools = _threads()
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    import cvxpy  # noqa: F401  (timed: the one-off cost of the first physical_ls)
    import_s = time.perf_counter() - t0
    results = []
    seed = 190
    for name, make in MODELS:
        for N in SIZES:
            for kind in ("rich", "poor"):
                seed += 1
                res = bench_case(name, make, N, kind, repeat, seed)
                print_table(res)
                results.append(res)
    load_after = os.getloadavg()
    target = [r for r in results if r["robot"] == "UR5" and r["samples"] == 2000]
    worst = max(next(x for x in r["results"] if x["method"] == "physical_ls full, bp inside")["median_s"]
                for r in target)
    ok = worst <= TARGET_S
    print(f"\none-off import cvxpy: {import_s:.2f} s (not included above)")
    print(f"load average (1, 5, 15 min) before {tuple(round(v, 2) for v in load_before)}, "
          f"after {tuple(round(v, 2) for v in load_after)} on {os.cpu_count()} CPUs")
    print(f"target: UR5, 2000 samples, physical_ls (bp inside) median <= {TARGET_S:g} s: "
          f"{worst:.3f} s -> {'PASS' if ok else 'FAIL'}")

    import clarabel
    out = {
        "benchmark": "bench_physical",
        "quick": args.quick,
        "noise_relative_std": NOISE,
        "target_s": TARGET_S,
        "target_worst_median_s": worst,
        "target_met": bool(ok),
        "cvxpy_import_s": import_s,
        "results": results,
        "machine": {"python": sys.version.split()[0], "numpy": np.__version__,
                    "scipy": scipy.__version__, "cvxpy": cvxpy.__version__,
                    "clarabel": getattr(clarabel, "__version__", None),
                    "platform": platform.platform(), "cpu_count": os.cpu_count(),
                    "load_average_before": load_before, "load_average_after": load_after,
                    "blas_threads": {v: os.environ.get(v) for v in BLAS_ENV},
                    "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE"),
                    "threadpools": pools},
    }
    path = Path(__file__).resolve().parent / "results" / "bench_physical.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(out, indent=2))
    print(f"wrote {path}")
    return out


if __name__ == "__main__":
    main()
