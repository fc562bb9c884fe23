"""Compute the Monte Carlo of chapter 5 (physically consistent identification) and store it.

    python tools/store_physical_mc.py [--runs 200] [--overwrite]

Chapter 5 compares four estimators on two simulated experiments of the 5-DOF arm: ordinary
least squares, ridge toward the CAD values in units of their spread, least squares under the
pseudo-inertia LMIs (``physical_ls``), and the same with a margin (half the CAD model's
thinnest link, see :func:`thickness`). One run is
one noise draw of one experiment; each run solves two semidefinite programs and a feasibility
problem, about 0.2 s of CPU, so the 2 x 200 runs take over a minute: too slow to repeat in the
chapter, which loads the stored result (``robidlib.book.load_study("physical_mc")``) and
recomputes a few runs with its own code to check that they agree with what is stored.
``tests/test_stored_studies.py`` re-runs a few runs of this recipe as well.

Everything below repeats the chapter's set-up exactly (the CAD model and the "real" robot,
the CAD spread, the two excitations, the noise, the validation motion, the two error
measures); the chapter's live check fails if the two drift apart.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import scipy

import robidlib
from robidlib.base import base_parameters
from robidlib.benchmark import perturb_robot
from robidlib.estimation import is_feasible_base, ols, physical_ls, ridge
from robidlib.models import redundant_5dof
from robidlib.params import consistency_report, pseudo_inertia
from robidlib.regressor import friction_regressor, regressor, stack
from robidlib.trajectories import load_excitation, random_fourier
from robidlib.validation import relative_torque_error

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "robidlib" / "data" / "studies" / "physical_mc.json"

#: The study, as data (written beside the results).
RECIPE: dict[str, Any] = {
    "chapter": "05_physical_consistency",
    "friction": [[40.0, 15.0], [0.8, 1.0], [0.8, 1.0], [0.5, 0.6], [20.0, 5.0]],  # catalogue
    "real_seed": 2024,            # the "real" robot: a manufactured CAD robot
    "spread_seed": 1,             # 200 more manufactured robots give the CAD spread
    "n_spread": 200,
    "t": [0.0, 5.0, 0.01],        # one period of 5 s at 100 Hz
    "rich": "redundant_5dof_friction",                              # stored excitation
    "poor": {"f0": 0.2, "harmonics": 5, "rng": 3, "fill": 0.1},     # random_fourier
    "validation": {"f0": 0.25, "harmonics": 4, "rng": 7, "fill": 0.8, "samples": 101, "dt": 0.04},
    "nu": 0.02,                   # torque noise, fraction of each joint's RMS torque
    "margin_fraction": 0.5,       # the fourth estimator's margin: this times the CAD's thickness
    "seed": 100,                  # run k uses the noise seed seed + k
    "runs": 200,
    "methods": ["OLS", "ridge toward CAD", "LMI", "LMI, margin"],
}


def thickness(pi: np.ndarray, prior: np.ndarray, n: int) -> np.ndarray:
    """Per link, the smallest eigenvalue of ``D^-1 J D^-1``: what ``physical_ls``'s margin bounds.

    ``J`` is the pseudo-inertia of the link, ``D = diag(sqrt(M L^2) (three times), sqrt(M))``
    with the prior's mass ``M`` and ``M L^2 = tr(I_O) / 2`` (``physical_ls``'s scales): the
    mean squared distance of the link's mass from any plane, in units of ``L^2 M / m``.
    """
    out = np.empty(n)
    for j in range(n):
        pj, p0 = pi[10 * j: 10 * j + 10], prior[10 * j: 10 * j + 10]
        d = 1.0 / np.sqrt(np.r_[[p0[4:7].sum() / 2] * 3, p0[0]])
        out[j] = np.linalg.eigvalsh(d[:, None] * pseudo_inertia(pj) * d[None, :])[0]
    return out


def setup(recipe: dict[str, Any]) -> dict[str, Any]:
    """The chapter's robots, spread, excitations and validation motion (its first cells)."""
    cad = redundant_5dof(friction=recipe["friction"])
    n = cad.n

    def manufactured(rng):
        robot = perturb_robot(cad, rng)
        return robot.with_friction(cad.friction * rng.uniform(0.7, 1.3, (n, 2)))

    real = manufactured(np.random.default_rng(recipe["real_seed"]))
    bp = base_parameters(cad, friction=True, rng=0)
    pi_cad = np.r_[cad.params, cad.friction.ravel()]
    pi_true = np.r_[real.params, real.friction.ravel()]
    spread = np.random.default_rng(recipe["spread_seed"])
    draws = [manufactured(spread) for _ in range(recipe["n_spread"])]
    sd_cad = np.std([bp.beta(np.r_[r.params, r.friction.ravel()]) for r in draws], axis=0, ddof=1)
    t = np.arange(*recipe["t"])
    rich_ft, _ = load_excitation(recipe["rich"])
    pf = recipe["poor"]
    poor_ft = random_fourier(cad, 2 * np.pi * pf["f0"], pf["harmonics"], rng=pf["rng"], fill=pf["fill"])
    vf = recipe["validation"]
    val_ft = random_fourier(cad, 2 * np.pi * vf["f0"], vf["harmonics"], rng=vf["rng"], fill=vf["fill"])
    val = val_ft.evaluate(np.arange(vf["samples"]) * vf["dt"])
    Y_val = np.concatenate([regressor(real, val.q, val.qd, val.qdd), friction_regressor(val.qd)], axis=-1)
    margin = recipe["margin_fraction"] * thickness(pi_cad, pi_cad, n).min()
    return dict(cad=cad, real=real, bp=bp, pi_cad=pi_cad, pi_true=pi_true, sd_cad=sd_cad, margin=margin,
                beta_cad=bp.beta(pi_cad), beta_true=bp.beta(pi_true),
                traj={"rich": rich_ft.evaluate(t), "poor": poor_ft.evaluate(t)},
                Y_val=Y_val, tau_val=Y_val @ pi_true)


def experiment(ctx: dict[str, Any], traj: Any, seed: int, nu: float) -> tuple[np.ndarray, np.ndarray]:
    """The stacked standard system, each joint's rows divided by its noise level."""
    Y = np.concatenate([regressor(ctx["real"], traj.q, traj.qd, traj.qdd), friction_regressor(traj.qd)], axis=-1)
    tau = Y @ ctx["pi_true"]
    sigma = nu * np.sqrt(np.mean(tau**2, axis=0))
    tau_meas = tau + sigma * np.random.default_rng(seed).standard_normal(tau.shape)
    return stack(Y / sigma[:, None], tau_meas / sigma)


def one_run(ctx: dict[str, Any], kind: str, seed: int, recipe: dict[str, Any]) -> dict[str, Any]:
    """Every estimator on one noise draw of one experiment, and what the chapter reports."""
    bp, cad, pi_cad, sd = ctx["bp"], ctx["cad"], ctx["pi_cad"], ctx["sd_cad"]
    W, y = experiment(ctx, ctx["traj"][kind], seed, recipe["nu"])
    Wb = bp.reduce(W)
    b_ols = ols(Wb, y).params
    b_ridge = ctx["beta_cad"] + sd * ridge(Wb * sd, y - Wb @ ctx["beta_cad"], 1.0).params
    lmi = physical_ls(W, y, cad, prior=pi_cad, bp=bp)
    lmi_m = physical_ls(W, y, cad, prior=pi_cad, bp=bp, margin=ctx["margin"])
    n = cad.n

    def d_beta(beta):
        return float(np.sqrt(np.mean(((beta - ctx["beta_true"]) / sd) ** 2)))

    def d_tau(beta):
        return float(np.mean(relative_torque_error(ctx["tau_val"], bp.reduce(ctx["Y_val"]) @ beta)))

    out: dict[str, Any] = {}
    for name, beta in zip(recipe["methods"], (b_ols, b_ridge, lmi.info["beta"], lmi_m.info["beta"])):
        out[f"{name}/dbeta"] = d_beta(beta)
        out[f"{name}/dtau"] = d_tau(beta)
        out[f"{name}/z2"] = (((beta - ctx["beta_true"]) / sd) ** 2).tolist()
    out["ols_feasible"] = bool(is_feasible_base(b_ols, bp, cad))
    for name, e in (("LMI", lmi), ("LMI, margin", lmi_m)):
        rep = consistency_report(e.params[: 10 * n])
        out[f"{name}/res_ratio"] = float(e.info["residual_norm"] / e.info["ols_residual_norm"])
        out[f"{name}/min_moment"] = rep.min_moment.tolist()
        out[f"{name}/triangle"] = rep.triangle_margin.tolist()
        out[f"{name}/thickness"] = thickness(e.params, pi_cad, n).tolist()
    return out


def _round(x: Any) -> Any:
    """Seven significant digits: far below every Monte Carlo spread, and a small file."""
    if isinstance(x, float):
        return float(f"{x:.7g}")
    if isinstance(x, list):
        return [_round(v) for v in x]
    return x


def compute(recipe: dict[str, Any]) -> dict[str, Any]:
    """Every run of the recipe: ``{"rich/OLS/dbeta": [...], ...}`` (lists, one entry per run)."""
    ctx = setup(recipe)
    results: dict[str, Any] = {}
    for kind in ("rich", "poor"):
        runs = [one_run(ctx, kind, recipe["seed"] + k, recipe) for k in range(recipe["runs"])]
        for key in runs[0]:
            vals = [r[key] for r in runs]
            if key.endswith("/z2"):        # per-parameter mean squared error (in CAD spreads)
                results[f"{kind}/{key}"] = _round(np.mean(vals, axis=0).tolist())
            else:
                results[f"{kind}/{key}"] = _round(vals) if not isinstance(vals[0], bool) else vals
    return results


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=RECIPE["runs"], help="runs per experiment")
    ap.add_argument("--overwrite", action="store_true", help="replace the stored file")
    ap.add_argument("--out", type=Path, default=OUT, help="where to write (default: the package data)")
    args = ap.parse_args(argv)
    if args.out.exists() and not args.overwrite:
        print(f"{args.out} exists: pass --overwrite to replace it", file=sys.stderr)
        return 1
    recipe = dict(RECIPE, runs=args.runs)
    doc = {"format": "robidlib-study/1", "name": "physical_mc",
           "meta": {"recipe": recipe, "versions": {"robidlib": robidlib.__version__, "numpy": np.__version__,
                                                    "scipy": scipy.__version__}},
           "results": compute(recipe)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e3:.0f} kB, {recipe['runs']} runs per experiment)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
