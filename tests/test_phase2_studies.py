"""The stored studies for issue 31's chapter-4 and chapter-5 sections (tools/store_phase2_studies.py).

They are package data with their recipes; the chapters that will use them re-check a few runs.
Here: each file holds the tool's recipe, and its central claims hold on the stored data.
"""
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import store_phase2_studies as tool  # noqa: E402

STUDIES = ROOT / "robidlib" / "data" / "studies"


def _load(name):
    doc = json.loads((STUDIES / f"{name}.json").read_text())
    assert doc["format"] == "robidlib-study/1"
    return {k: np.asarray(v) for k, v in doc["results"].items()}, doc["meta"]


def test_log_cholesky_versus_the_lmi():
    res, meta = _load("logchol_vs_lmi")
    assert meta["recipe"] == tool.LOGCHOL_RECIPE
    runs = meta["runs"]
    for exp in ("rich", "poor"):
        lmi = runs[f"{exp}/lmi"]["residual_norm"]
        fits = [v for k, v in runs.items() if k.startswith(f"{exp}/logchol/") and "residual_norm" in v]
        assert fits
        # the LMI solves the convex problem: no log-Cholesky fit reaches a smaller residual
        assert all(f["residual_norm"] >= lmi * (1 - 1e-6) for f in fits)
        # every log-Cholesky body has finite coordinates (consistent by construction; its
        # smallest eigenvalue may be at round-off, as the LMI's)
        assert all(np.isfinite(f["max_theta"]) for f in fits)
        # rows weighted by the noise: every start ends within the noise of the optimum, its
        # squared residual above the LMI's by less than the number of base parameters (what
        # the true parameters cost on average)
        assert all(f["residual_norm"] ** 2 - lmi ** 2 < len(meta["names"]) for f in fits)
    # on the poor data the LMI solution has links on the boundary (J singular to the solver's
    # tolerance ~1e-8) ...
    assert np.sum(res["poor/lmi/min_eig_rel"] < 1e-6) >= 1
    # ... and the Jacobian-scaled log-Cholesky fit follows it there from every start
    assert all(res[k].min() < 1e-5 for k in res if k.startswith("poor/logchol/") and k.endswith("/min_eig_rel"))


def test_d_optimal_designs_have_more_information_from_the_same_starts():
    from robidlib.trajectories import load_excitation

    res, meta = _load("dopt_vs_cond")
    assert meta["recipe"] == tool.DOPT_RECIPE
    for name in meta["recipe"]["designs"]:
        c, d = meta["designs"][f"{name}/cond"], meta["designs"][f"{name}/logdet"]
        assert d["logdet"] > c["logdet"] and c["cond"] < d["cond"]      # each wins its own criterion
        assert res[f"{name}/cond/errors"].shape == res[f"{name}/logdet/errors"].shape
        assert res[f"{name}/cond/errors"].shape[0] == meta["recipe"]["draws"]
        traj, tmeta = load_excitation(f"{name}_dopt")
        assert tmeta["criterion"] == "logdet" and abs(tmeta["logdet"] - d["logdet"]) < 0.5
