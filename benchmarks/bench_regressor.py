"""Benchmark of the batched regressor and inverse dynamics against pinocchio, per sample.

robidlib computes ``regressor`` and ``inverse_dynamics`` for N samples in one call, each in a
loop over the samples compiled by numba (robidlib._jit); pinocchio's
``computeJointTorqueRegressor`` and ``rnea`` are C++ but called once per sample from a Python
loop, which is how a notebook would use them. The compilation (or loading numba's cache)
happens in the warm-up call, outside the timings.
Both run on the same UR5 (robidlib.models.ur5 written as URDF for pinocchio), in the same
process, with BLAS limited to one thread (threadpoolctl), interleaved round by round; the
median over the rounds is reported (the minimum too), because the machine is shared.

Each comparison gives both sides the same job:

* ``regressor``: a fresh (N, 6, 60) array per call on both sides;
* ``regressor, out=``: both write into an array allocated once and reused (robidlib's
  ``out=``, the loop's ``Y[k] = ...``): no page faults for a new large array;
* ``base regressor``: what identification needs, the 36 base columns (QR): robidlib's
  ``regressor(..., base=bp)`` (only those columns are computed) against the loop followed
  by taking the same columns of pinocchio's regressor (one gather);
* ``inverse dynamics``: fresh output on both sides;
* ``inverse dyn., numpy``: the readable numpy version that the compiled loop replaced (kept as
  the tests' reference and for installs without numba), against the same loop.

The outputs are compared: they must agree to 1e-12 (relative to max(1, |reference|)).
Targets, CPU time of the process (user + system; it is disturbed much less than the wall
clock by other processes on the machine): the regressor at least 2x the pinocchio loop at
N = 1e4 and at least 1.5x at N = 1e5 (issue 15); inverse dynamics at least 3x the ``rnea``
loop at N = 1e4 and 1e5 (issue 26).

Usage::

    python benchmarks/bench_regressor.py [--quick] [--rounds R]

``--quick`` runs N = 1e3 and 1e4 with 3 rounds. Writes ``benchmarks/results/bench_regressor.json``.
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
from threadpoolctl import threadpool_info, threadpool_limits

from robidlib.base import base_parameters
from robidlib.dynamics import _inverse_dynamics_numpy, inverse_dynamics
from robidlib.models.ur5 import ur5
from robidlib.params import from_pinocchio_order
from robidlib.regressor import regressor

EXACT = 1e-12
#: case -> {N: least CPU ratio}
TARGETS = {
    **{case: {10_000: 2.0, 100_000: 1.5} for case in ("regressor", "regressor, out=", "base regressor")},
    "inverse dynamics": {10_000: 3.0, 100_000: 3.0},
}


def _cpu_times():
    """(user + system CPU time, system part) of this process, s."""
    try:
        import resource
    except ImportError:  # not on Unix: no user / system split
        return time.process_time(), 0.0
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime, r.ru_stime


def _timed(f):
    """Result, wall, CPU and system CPU time of one call."""
    c0, s0 = _cpu_times()
    w0 = time.perf_counter()
    out = f()
    w1 = time.perf_counter()
    c1, s1 = _cpu_times()
    return out, w1 - w0, c1 - c0, s1 - s0


def _rel_err(a, b):
    axes = tuple(range(1, a.ndim))
    return float(np.max(np.abs(a - b).max(axis=axes) / np.maximum(1.0, np.abs(b).max(axis=axes))))


def _cases(robot, model, data, bp, pin, q, qd, qdd):
    """name -> (function, pinocchio side?) for one N; buffers allocated once for the out= pair."""
    N, n = q.shape
    pin_base = from_pinocchio_order(np.arange(10 * n)).astype(int)[bp.independent]  # pinocchio's columns
    Y_out = np.empty((N, n, 10 * n))
    Y_pin = np.empty((N, n, 10 * n))

    def pin_loop(Y):
        for k in range(N):
            Y[k] = pin.computeJointTorqueRegressor(model, data, q[k], qd[k], qdd[k])
        return Y

    def pin_rnea():
        tau = np.empty((N, n))
        for k in range(N):
            tau[k] = pin.rnea(model, data, q[k], qd[k], qdd[k])
        return tau

    return {
        "regressor": (lambda: regressor(robot, q, qd, qdd),
                      lambda: pin_loop(np.empty((N, n, 10 * n)))),
        "regressor, out=": (lambda: regressor(robot, q, qd, qdd, out=Y_out), lambda: pin_loop(Y_pin)),
        "base regressor": (lambda: regressor(robot, q, qd, qdd, base=bp),
                           lambda: pin_loop(np.empty((N, n, 10 * n)))[:, :, pin_base]),
        "inverse dynamics": (lambda: inverse_dynamics(robot, q, qd, qdd, include_friction=False), pin_rnea),
        "inverse dyn., numpy": (lambda: _inverse_dynamics_numpy(robot, q, qd, qdd, robot.gravity), pin_rnea),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N = 1e3, 1e4 and 3 rounds")
    parser.add_argument("--rounds", type=int, default=None, help="measurement rounds (default 7; 3 with --quick)")
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
    bp = base_parameters(robot, rng=0)
    rng = np.random.default_rng(20240)
    sizes = [1_000, 10_000] if args.quick else [1_000, 10_000, 100_000]
    rounds = args.rounds or (3 if args.quick else 7)
    load_before = list(os.getloadavg()) if hasattr(os, "getloadavg") else None

    rows = []
    with threadpool_limits(limits=1):
        blas = [{k: d.get(k) for k in ("internal_api", "version", "num_threads", "architecture")}
                for d in threadpool_info()]
        for N in sizes:
            lo, hi = robot.q_limits.T
            q = rng.uniform(lo, hi, (N, robot.n))
            qd = rng.uniform(-1, 1, q.shape) * robot.qd_limits
            qdd = rng.uniform(-1, 1, q.shape) * robot.qdd_limits
            cases = _cases(robot, model, data, bp, pin, q, qd, qdd)
            times = {(c, side): [] for c in cases for side in ("robidlib", "pinocchio")}
            outs = {}
            for name, (ours, theirs) in cases.items():          # warm-up, and the outputs
                outs[name] = (ours(), theirs())
            for _ in range(rounds):  # interleaved: a busy period of the machine hits every case
                for name, (ours, theirs) in cases.items():
                    for side, f in (("robidlib", ours), ("pinocchio", theirs)):
                        times[(name, side)].append(_timed(f)[1:])
            errors = {
                "regressor": _rel_err(outs["regressor"][0], from_pinocchio_order(outs["regressor"][1])),
                "regressor, out=": _rel_err(outs["regressor, out="][0], from_pinocchio_order(outs["regressor, out="][1])),
                "base regressor": _rel_err(outs["base regressor"][0], outs["base regressor"][1]),
                "inverse dynamics": _rel_err(outs["inverse dynamics"][0], outs["inverse dynamics"][1]),
                "inverse dyn., numpy": _rel_err(outs["inverse dyn., numpy"][0], outs["inverse dyn., numpy"][1]),
            }
            row = dict(N=N, rounds=rounds, cases={})
            for name in cases:
                entry = {}
                for side in ("robidlib", "pinocchio"):
                    t = np.array(times[(name, side)]) / N * 1e6            # (rounds, 3) us/sample
                    entry[side] = dict(
                        wall_median=float(np.median(t[:, 0])), cpu_median=float(np.median(t[:, 1])),
                        cpu_min=float(t[:, 1].min()), system_median=float(np.median(t[:, 2])),
                    )
                entry["cpu_ratio_median"] = entry["pinocchio"]["cpu_median"] / entry["robidlib"]["cpu_median"]
                entry["wall_ratio_median"] = entry["pinocchio"]["wall_median"] / entry["robidlib"]["wall_median"]
                entry["max_rel_err"] = errors[name]
                row["cases"][name] = entry
            rows.append(row)
    load_after = list(os.getloadavg()) if hasattr(os, "getloadavg") else None

    print(f"UR5 (6 joints; regressor 6 x 60 per sample, base regressor 6 x {bp.rank}); one BLAS thread; "
          f"median of {rounds} interleaved rounds\nratio = pinocchio time / robidlib time (> 1: robidlib faster); "
          f"load average before {load_before}, after {load_after}\n")
    head = (f"{'N':>7} {'case':<19} | {'CPU us/sample':^31} | {'wall':>6} | {'system us/sample':^19} | {'max err':>8}\n"
            f"{'':>7} {'':<19} | {'robidlib':>9} {'pin loop':>9} {'ratio':>9} | {'ratio':>6} | "
            f"{'robidlib':>9} {'pin loop':>9} |")
    print(head)
    print("-" * len(head.splitlines()[1]))
    for r in rows:
        for name, e in r["cases"].items():
            print(f"{r['N']:>7} {name:<19} | {e['robidlib']['cpu_median']:9.2f} {e['pinocchio']['cpu_median']:9.2f} "
                  f"{e['cpu_ratio_median']:9.2f} | {e['wall_ratio_median']:6.2f} | "
                  f"{e['robidlib']['system_median']:9.2f} {e['pinocchio']['system_median']:9.2f} | "
                  f"{e['max_rel_err']:8.1e}")
    print()
    exact = all(e["max_rel_err"] <= EXACT for r in rows for e in r["cases"].values())
    verdicts = {}
    for r in rows:
        for name, by_n in TARGETS.items():
            if r["N"] in by_n:
                ratio = r["cases"][name]["cpu_ratio_median"]
                verdicts[f"{name} at N = {r['N']}"] = dict(ratio=ratio, target=by_n[r["N"]],
                                                         met=bool(ratio >= by_n[r["N"]]))
    print(f"exact to {EXACT:g}: {'yes' if exact else 'NO'}")
    for k, v in verdicts.items():
        print(f"target {v['target']:g}x, {k}: {'met' if v['met'] else 'NOT met'} (CPU ratio {v['ratio']:.2f})")

    import scipy

    result = dict(
        benchmark="bench_regressor",
        description=__doc__.splitlines()[0],
        quick=args.quick,
        machine=dict(platform=platform.platform(), processor=platform.processor(), cpus=os.cpu_count(),
                     load_average_before=load_before, load_average_after=load_after),
        versions=dict(python=sys.version.split()[0], numpy=np.__version__, scipy=scipy.__version__,
                      pinocchio=pin.__version__),
        blas_threads=dict(limit=1, via="threadpoolctl.threadpool_limits(limits=1)", libraries=blas,
                          environment={k: os.environ.get(k) for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                                                      "MKL_NUM_THREADS", "ROBIDLIB_BLAS_THREADS")}),
        statistic="median over interleaved rounds of the CPU time per call (minimum also given)",
        exact_tolerance=EXACT,
        exact=exact,
        targets=verdicts,
        rows=rows,
    )
    out = Path(__file__).resolve().parent / "results" / "bench_regressor.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out.relative_to(Path.cwd()) if out.is_relative_to(Path.cwd()) else out}")
    return 0 if exact else 1


if __name__ == "__main__":
    sys.exit(main())
