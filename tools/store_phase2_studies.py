"""Studies for issue 31's sections of chapters 4 and 5 (phase 2), stored with their recipes.

    python tools/store_phase2_studies.py logchol [--overwrite]    # chapter 5: log-Cholesky vs the LMI
    python tools/store_phase2_studies.py dopt [--overwrite]       # chapter 4: D-optimal vs cond designs

``logchol``: chapter 5's set-up (the 5-DOF arm with catalogue friction, the "real" robot a
manufactured CAD robot of seed 2024, the rich stored excitation and the poor random one, 2 %
torque noise, rows weighted by the known noise) fitted by ``physical_ls`` (the LMI, Clarabel)
and by ``log_cholesky_ls`` from the CAD prior and from several manufactured robots as starts:
result (base parameters, relative residual), CPU time, iterations, convergence, and the
smallest eigenvalue of each link's scaled pseudo-inertia (where the LMI solution sits on the
boundary, the log-Cholesky fit can only approach it). Written to
``robidlib/data/studies/logchol_vs_lmi.json``.

``dopt``: for each condition-number design of chapter 4 stored by ``tools/store_excitations.py``
(``optimize_excitation`` recipes), the same recipe (same starts, same options) with
``criterion="logdet"``; the two designs of each recipe are compared on the error of the least
squares estimate of the base parameters over seeded noise draws (torque noise of 2 % of each
joint's RMS torque on the condition-number design, the same absolute noise on both). The
designs are stored as excitations ``<name>_dopt`` (``robidlib/data/excitations``), the
comparison in ``robidlib/data/studies/dopt_vs_cond.json``.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path

import numpy as np
import scipy

import robidlib

ROOT = Path(__file__).resolve().parents[1]
STUDIES = ROOT / "robidlib" / "data" / "studies"

LOGCHOL_RECIPE = {
    "chapter": "05_physical_consistency",
    "friction": [[40.0, 15.0], [0.8, 1.0], [0.8, 1.0], [0.5, 0.6], [20.0, 5.0]],
    "real_seed": 2024, "t": [0.0, 5.0, 0.01], "rich": "redundant_5dof_friction",
    "poor": {"f0": 0.2, "harmonics": 5, "rng": 3, "fill": 0.1}, "nu": 0.02, "noise_seed": 100,
    "starts": {"seed": 7, "count": 4}, "reg": 1e-6, "max_nfev": 300,
}

DOPT_RECIPE = {"chapter": "04_excitation", "designs": ["planar_2r_fourier", "redundant_5dof_fourier"],
               "nu": 0.02, "draws": 500, "seed": 31, "n_eval": 500}


def _write(name: str, meta: dict, results: dict, overwrite: bool) -> Path:
    path = STUDIES / f"{name}.json"
    if path.exists() and not overwrite:
        raise SystemExit(f"{path} exists; pass --overwrite to replace it")
    meta["versions"] = {"robidlib": robidlib.__version__, "numpy": np.__version__, "scipy": scipy.__version__,
                        "python": sys.version.split()[0]}
    doc = {"format": "robidlib-study/1", "name": name, "meta": meta,
           "results": {k: np.asarray(v).tolist() for k, v in results.items()}}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, separators=(",", ":")) + "\n", encoding="utf-8")
    return path


def logchol(overwrite: bool) -> None:
    from robidlib.base import base_parameters
    from robidlib.benchmark import perturb_robot
    from robidlib.estimation import log_cholesky_ls, physical_ls
    from robidlib.models import redundant_5dof
    from robidlib.params import pseudo_inertia
    from robidlib.regressor import friction_regressor, regressor, stack
    from robidlib.trajectories import load_excitation, random_fourier

    r = LOGCHOL_RECIPE
    cad = redundant_5dof(friction=r["friction"])
    n = cad.n

    def manufactured(rng):
        robot = perturb_robot(cad, rng)
        return robot.with_friction(cad.friction * rng.uniform(0.7, 1.3, (n, 2)))

    real = manufactured(np.random.default_rng(r["real_seed"]))
    bp = base_parameters(cad, friction=True, rng=0)
    pi_cad = np.r_[cad.params, cad.friction.ravel()]
    pi_true = np.r_[real.params, real.friction.ravel()]
    t = np.arange(*r["t"])
    rich = load_excitation(r["rich"])[0].evaluate(t)
    pr = r["poor"]
    poor = random_fourier(cad, 2 * np.pi * pr["f0"], pr["harmonics"], rng=pr["rng"], fill=pr["fill"]).evaluate(t)
    gen = np.random.default_rng(r["starts"]["seed"])
    starts = {"CAD": pi_cad}
    for k in range(r["starts"]["count"]):
        m = manufactured(gen)
        starts[f"manufactured {k + 1}"] = np.r_[m.params, m.friction.ravel()]
    results, meta = {}, {"recipe": r, "names": list(bp.base_names), "beta_true": bp.beta(pi_true).tolist(),
                         "runs": {}}
    for exp_name, traj in (("rich", rich), ("poor", poor)):
        Y = np.concatenate([regressor(real, traj.q, traj.qd, traj.qdd), friction_regressor(traj.qd)], axis=-1)
        tau = Y @ pi_true
        sigma = r["nu"] * np.sqrt(np.mean(tau**2, axis=0))
        tau_m = tau + sigma * np.random.default_rng(r["noise_seed"]).standard_normal(tau.shape)
        W, y = stack(Y / sigma[:, None], tau_m / sigma)
        c0 = time.process_time()
        lmi = physical_ls(W, y, cad, prior=pi_cad, bp=bp, reg=r["reg"])
        t_lmi = time.process_time() - c0
        J = pseudo_inertia(lmi.params[: 10 * n].reshape(n, 10))
        lam = np.linalg.eigvalsh(J)
        results[f"{exp_name}/lmi/beta"] = bp.beta(lmi.params)
        results[f"{exp_name}/lmi/min_eig_rel"] = lam[:, 0] / lam[:, -1]
        meta["runs"][f"{exp_name}/lmi"] = {"cpu_seconds": t_lmi, "residual_norm": float(np.linalg.norm(W @ lmi.params - y)),
                                           "status": str(lmi.info.get("status"))}
        for s_name, x0 in starts.items():
            c0 = time.process_time()
            try:
                est = log_cholesky_ls(W, y, cad, prior=pi_cad, start=x0, reg=r["reg"], max_nfev=r["max_nfev"])
                ok = True
            except ValueError as exc:  # a start the map cannot represent
                ok, msg = False, str(exc)
            dt = time.process_time() - c0
            key = f"{exp_name}/logchol/{s_name}"
            if ok:
                results[f"{key}/beta"] = bp.beta(est.params)
                Jl = np.linalg.eigvalsh(pseudo_inertia(est.params[: 10 * n].reshape(n, 10)))
                results[f"{key}/min_eig_rel"] = Jl[:, 0] / Jl[:, -1]
                meta["runs"][key] = {"cpu_seconds": dt, "nfev": est.info["nfev"], "status": est.info["status"],
                                     "success": est.info["success"], "message": est.info["message"],
                                     "residual_norm": est.info["residual_norm"],
                                     "max_theta": float(np.abs(est.info["theta"]).max())}
            else:
                meta["runs"][key] = {"cpu_seconds": dt, "error": msg}
            print(key, meta["runs"][key])
        print(exp_name, "lmi", meta["runs"][f"{exp_name}/lmi"])
    print("wrote", _write("logchol_vs_lmi", meta, results, overwrite))


def dopt(overwrite: bool) -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    import store_excitations as se
    from robidlib.estimation import ols
    from robidlib.regressor import friction_regressor, regressor
    from robidlib.trajectories import excitation_cond, excitation_logdet, load_excitation, save_excitation

    r = DOPT_RECIPE
    results, meta = {}, {"recipe": r, "designs": {}}
    for name in r["designs"]:
        recipe = copy.deepcopy(se.RECIPES[name])
        recipe["options"] = dict(recipe["options"], criterion="logdet")
        c0 = time.process_time()
        res, robot, base = se.run_recipe(recipe)
        t_opt = time.process_time() - c0
        friction = recipe["options"].get("friction", False)
        cond_traj, _ = load_excitation(name)
        wf = res.trajectory.wf
        t = np.linspace(0.0, 2 * np.pi / wf, r["n_eval"], endpoint=False)
        designs = {"cond": cond_traj.evaluate(t), "logdet": res.trajectory.evaluate(t)}
        beta_true = base.beta(np.r_[robot.params, robot.friction.ravel()] if friction else robot.params)
        sig = D = None
        for kind, tr in designs.items():
            Y = regressor(robot, tr.q, tr.qd, tr.qdd)
            if friction:
                Y = np.concatenate([Y, friction_regressor(tr.qd)], axis=-1)
            Wb = base.reduce(Y)
            tau = Wb @ beta_true
            if sig is None:                     # the same absolute noise (and error weights) on both designs
                sig = r["nu"] * np.sqrt(np.mean(tau**2, axis=0))
                D = np.sqrt(np.mean(Wb.reshape(-1, base.rank) ** 2, axis=0))
            gen = np.random.default_rng([r["seed"], r["designs"].index(name)])
            W = Wb.reshape(-1, base.rank)
            errs = []
            for _ in range(r["draws"]):
                y = (tau + sig * gen.standard_normal(tau.shape)).ravel()
                errs.append(ols(W, y).params - beta_true)
            errs = np.array(errs)
            results[f"{name}/{kind}/errors"] = errs
            meta["designs"][f"{name}/{kind}"] = {
                "cond": excitation_cond(robot, tr, base, friction=friction),
                "logdet": excitation_logdet(robot, tr, base, friction=friction),
                # delta_W of chapter 12: each parameter weighted by the RMS of its column on the
                # condition-number design, RMS over the draws (%)
                "rms_delta_W": float(np.sqrt(np.mean(np.sum((D * errs) ** 2, axis=1)) / np.sum((D * beta_true) ** 2))
                                     * 100),
            }
        meta["designs"][f"{name}/logdet"]["cpu_seconds"] = t_opt
        meta["designs"][f"{name}/logdet"]["success"] = res.success
        save_excitation(res.trajectory, f"{name}_dopt",
                        meta={"recipe": recipe, "criterion": "logdet", "cond": res.cond,
                              "logdet": res.info["logdet"], "logdet_initial": res.info["logdet_initial"]},
                        directory=ROOT / "robidlib" / "data" / "excitations", overwrite=overwrite)
        print(name, meta["designs"][f"{name}/cond"], meta["designs"][f"{name}/logdet"])
    print("wrote", _write("dopt_vs_cond", meta, results, overwrite))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("study", choices=("logchol", "dopt"))
    ap.add_argument("--overwrite", action="store_true")
    a = ap.parse_args()
    (logchol if a.study == "logchol" else dopt)(a.overwrite)
