"""The stored studies (robidlib/data/studies) are what their recipes give, and load_study reads them.

A study is a seeded Monte Carlo too slow for a chapter's time budget: a script in tools/
computes it once and stores every run. Here a few runs of each recipe are recomputed and
compared with the stored ones (the chapters do the same with their own code).
"""

from __future__ import annotations

import importlib.util
import json
import pathlib

import numpy as np
import pytest

from robidlib import book
from robidlib.book import load_study, stored_studies

ROOT = pathlib.Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("store_physical_mc", ROOT / "tools" / "store_physical_mc.py")
physical_mc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(physical_mc)


def test_the_physical_study_is_stored_with_the_tool_s_recipe():
    assert "physical_mc" in stored_studies()
    results, meta = load_study("physical_mc")
    recipe = meta["recipe"]
    assert recipe == physical_mc.RECIPE, "run python tools/store_physical_mc.py --overwrite"
    R = recipe["runs"]
    for kind in ("rich", "poor"):
        for m in recipe["methods"]:
            assert results[f"{kind}/{m}/dtau"].shape == (R,) and results[f"{kind}/{m}/z2"].shape == (30,)
        assert results[f"{kind}/LMI/min_moment"].shape == (R, 5) and results[f"{kind}/LMI, margin/thickness"].shape == (R, 5)
        assert results[f"{kind}/ols_feasible"].dtype == bool


def test_rerunning_a_few_runs_of_the_recipe_gives_the_stored_values():
    results, meta = load_study("physical_mc")
    recipe = meta["recipe"]
    ctx = physical_mc.setup(recipe)
    for kind, k in (("rich", 0), ("poor", 1)):
        run = physical_mc.one_run(ctx, kind, recipe["seed"] + k, recipe)
        for m in recipe["methods"]:
            for q in ("dbeta", "dtau"):
                # stored to 7 digits; the LMIs solved to Clarabel's tolerance (relative 1e-8 of an
                # objective of order one): the errors agree to far better than 1e-3
                assert run[f"{m}/{q}"] == pytest.approx(results[f"{kind}/{m}/{q}"][k], rel=1e-3), (kind, m, q)
        assert run["ols_feasible"] == results[f"{kind}/ols_feasible"][k]


def test_load_study_refuses_bad_names_and_files(tmp_path, monkeypatch):
    with pytest.raises(TypeError, match="name must be a string"):
        load_study(3)
    with pytest.raises(ValueError, match="name must be non-empty"):
        load_study("../x")
    with pytest.raises(ValueError, match="is not a stored study; stored:"):
        load_study("no_such_study")
    (tmp_path / "odd.json").write_text(json.dumps({"format": "something else"}))
    monkeypatch.setattr(book, "STUDIES_DIR", tmp_path)
    with pytest.raises(ValueError, match="is not a stored study"):
        load_study("odd")
    (tmp_path / "ok.json").write_text(json.dumps({"format": "robidlib-study/1", "meta": {"recipe": {}},
                                                  "results": {"a": [1.0, 2.0]}}))
    results, meta = load_study("ok")
    assert np.array_equal(results["a"], [1.0, 2.0]) and meta == {"recipe": {}}
    assert stored_studies() == ["odd", "ok"]


def test_the_tool_never_overwrites_unasked(tmp_path, capsys):
    out = tmp_path / "study.json"
    out.write_text("keep")
    assert physical_mc.main(["--runs", "1", "--out", str(out)]) == 1
    assert out.read_text() == "keep" and "--overwrite" in capsys.readouterr().err
