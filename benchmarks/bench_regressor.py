"""Benchmark of the batched regressor and inverse dynamics against pinocchio, per sample.

robidlib computes ``regressor`` and ``inverse_dynamics`` for N samples in one vectorised call
(numpy, loop over joints only); pinocchio's ``computeJointTorqueRegressor`` and ``rnea`` are
C++ but called once per sample from a Python loop, which is how a notebook would use them.
Both run on the same UR5 (robidlib.models.ur5 written as URDF for pinocchio), in the same
process, interleaved, and the minimum over the repeats is reported (the machine is shared).
The outputs are compared: they must agree to 1e-10 (relative to max(1, |reference|)).

Target (issue 3): at N = 1e4 the batched regressor is at least as fast per sample as the
pinocchio loop. Wall-clock and CPU times are both reported; the target is judged on the CPU
time of the process, which other processes on the shared machine disturb much less.

Usage::

    python benchmarks/bench_regressor.py [--quick]

``--quick`` runs N = 1e3 and 1e4 with fewer repeats. For N = 1e5 pinocchio is timed on its
first 20 000 samples (its cost per sample does not depend on N); the table says so.
Writes ``benchmarks/results/bench_regressor.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

from robidlib.dynamics import inverse_dynamics
from robidlib.models.ur5 import ur5
from robidlib.params import to_pinocchio_order
from robidlib.regressor import regressor

EXACT = 1e-10
PIN_MAX_SAMPLES = 20_000


def _system_time() -> float:
    try:
        import resource
    except ImportError:  # not on Unix: no user / system split
        return 0.0
    return resource.getrusage(resource.RUSAGE_SELF).ru_stime


def _best(f, repeat):
    """Minimum wall and CPU (user + system) time of ``repeat`` calls (after a warm-up), and the
    system part of the fastest call."""
    out = f()
    wall, cpu, sys_ = [], [], []
    for _ in range(repeat):
        s0, c0, w0 = _system_time(), time.process_time(), time.perf_counter()
        f()
        w1, c1, s1 = time.perf_counter(), time.process_time(), _system_time()
        wall.append(w1 - w0)
        cpu.append(c1 - c0)
        sys_.append(s1 - s0)
    k = int(np.argmin(cpu))
    return out, min(wall), cpu[k], sys_[k]


def _rel_err(a, b):
    axes = tuple(range(1, a.ndim))
    return float(np.max(np.abs(a - b).max(axis=axes) / np.maximum(1.0, np.abs(b).max(axis=axes))))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N = 1e3, 1e4 and fewer repeats")
    args = parser.parse_args(argv)
    try:
        import pinocchio as pin
    except ImportError:
        print("pinocchio is not installed (pip install -r requirements-test.txt); nothing to compare")
        return 1

    robot = ur5()
    model = pin.buildModelFromXML(robot.to_urdf())
    model.gravity.linear = robot.gravity
    data = model.createData()
    rng = np.random.default_rng(20240)
    sizes = [1_000, 10_000] if args.quick else [1_000, 10_000, 100_000]
    repeat = 3 if args.quick else 5

    rows = []
    for N in sizes:
        lo, hi = robot.q_limits.T
        q = rng.uniform(lo, hi, (N, robot.n))
        qd = rng.uniform(-1, 1, q.shape) * robot.qd_limits
        qdd = rng.uniform(-1, 1, q.shape) * robot.qdd_limits
        Np = min(N, PIN_MAX_SAMPLES)

        def pin_regressor():
            Y = np.empty((Np, robot.n, 10 * robot.n))
            for k in range(Np):
                Y[k] = pin.computeJointTorqueRegressor(model, data, q[k], qd[k], qdd[k])
            return Y

        def pin_rnea():
            tau = np.empty((Np, robot.n))
            for k in range(Np):
                tau[k] = pin.rnea(model, data, q[k], qd[k], qdd[k])
            return tau

        reps = repeat if N <= 10_000 else max(2, repeat // 2)
        best = {k: (np.inf, np.inf, np.inf) for k in ("reg", "id", "pin_reg", "pin_id")}
        outs = {}
        for _ in range(reps):  # interleave the four so that a busy period hits all of them
            for key, f, r in (
                ("reg", lambda: regressor(robot, q, qd, qdd), 1),
                ("pin_reg", pin_regressor, 1),
                ("id", lambda: inverse_dynamics(robot, q, qd, qdd), 1),
                ("pin_id", pin_rnea, 1),
            ):
                outs[key], w, c, sy = _best(f, r)
                best[key] = (min(best[key][0], w),) + (min(best[key][1:], (c, sy)))
        err_reg = _rel_err(to_pinocchio_order(outs["reg"][:Np]), outs["pin_reg"])
        err_id = _rel_err(outs["id"][:Np], outs["pin_id"])
        us = {k: 1e6 * v[0] / (Np if k.startswith("pin") else N) for k, v in best.items()}
        cpu_us = {k: 1e6 * v[1] / (Np if k.startswith("pin") else N) for k, v in best.items()}
        sys_us = {k: 1e6 * v[2] / (Np if k.startswith("pin") else N) for k, v in best.items()}
        rows.append(
            dict(N=N, pin_samples=Np, repeats=reps, us_per_sample=us, cpu_us_per_sample=cpu_us,
                 system_cpu_us_per_sample=sys_us,
                 ratio_regressor=us["pin_reg"] / us["reg"], ratio_inverse_dynamics=us["pin_id"] / us["id"],
                 max_rel_err_regressor=err_reg, max_rel_err_inverse_dynamics=err_id)
        )

    def table(key, title):
        head = (f"{'N':>7} | {'regressor us/sample':^29} | {'inverse dynamics us/sample':^29} | {'max rel. error':^17}\n"
                f"{'':>7} | {'robidlib':>9} {'pin loop':>9} {'ratio':>9} | {'robidlib':>9} {'pin loop':>9} {'ratio':>9} |"
                f" {'Y':>8} {'tau':>8}")
        print(title)
        print(head)
        print("-" * len(head.splitlines()[1]))
        for r in rows:
            u = r[key]
            note = f"  (pinocchio timed on {r['pin_samples']} samples)" if r["pin_samples"] < r["N"] else ""
            print(f"{r['N']:>7} | {u['reg']:9.2f} {u['pin_reg']:9.2f} {u['pin_reg'] / u['reg']:9.2f} | "
                  f"{u['id']:9.2f} {u['pin_id']:9.2f} {u['pin_id'] / u['id']:9.2f} | "
                  f"{r['max_rel_err_regressor']:8.1e} {r['max_rel_err_inverse_dynamics']:8.1e}{note}")
        print()

    print("UR5 (6 joints; regressor 6 x 60 per sample); ratio = pinocchio time / robidlib time (> 1: robidlib faster)\n")
    table("us_per_sample", "wall-clock time (minimum over the repeats)")
    table("cpu_us_per_sample", "CPU time of the process, user + system (robust to other processes on the machine)")
    print("system (kernel) part of robidlib's regressor CPU time, mostly the fresh zeroed pages of the "
          "(N, 6, 60) output: " + ", ".join(f"N = {r['N']}: {r['system_cpu_us_per_sample']['reg']:.2f} us/sample"
                                             for r in rows) + "\n")
    for r in rows:
        r["cpu_ratio_regressor"] = r["cpu_us_per_sample"]["pin_reg"] / r["cpu_us_per_sample"]["reg"]
        r["cpu_ratio_inverse_dynamics"] = r["cpu_us_per_sample"]["pin_id"] / r["cpu_us_per_sample"]["id"]

    exact = all(max(r["max_rel_err_regressor"], r["max_rel_err_inverse_dynamics"]) <= EXACT for r in rows)
    at_1e4 = [r for r in rows if r["N"] == 10_000][0]
    target = at_1e4["cpu_ratio_regressor"] >= 1.0
    print(f"exact to {EXACT:g}: {'yes' if exact else 'NO'};  target (regressor at N = 1e4 at least as fast as the "
          f"pinocchio loop, CPU time): {'met' if target else 'NOT met'} (ratio {at_1e4['cpu_ratio_regressor']:.2f}; "
          f"wall-clock ratio {at_1e4['ratio_regressor']:.2f})")

    import scipy

    result = dict(
        benchmark="bench_regressor",
        description=__doc__.splitlines()[0],
        quick=args.quick,
        machine=dict(platform=platform.platform(), processor=platform.processor(), cpus=os.cpu_count(),
                     load_average=list(os.getloadavg()) if hasattr(os, "getloadavg") else None),
        versions=dict(python=sys.version.split()[0], numpy=np.__version__, scipy=scipy.__version__,
                      pinocchio=pin.__version__),
        blas_threads={k: os.environ.get(k) for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")},
        exact_tolerance=EXACT,
        exact=exact,
        target_met=target,
        rows=rows,
    )
    out = Path(__file__).resolve().parent / "results" / "bench_regressor.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out.relative_to(Path.cwd()) if out.is_relative_to(Path.cwd()) else out}")
    return 0 if exact else 1


if __name__ == "__main__":
    sys.exit(main())
