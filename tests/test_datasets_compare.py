"""Tests of robidlib.datasets.compare_with_published (our TX40 estimates beside FIGAROH's)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from robidlib.datasets import compare_with_published, staubli_tx40_published


def test_rows_follow_the_source_then_ours_in_figaroh_convention():
    pub = staubli_tx40_published()["sources"]["figaroh_essential"]["parameters"]
    names = ["FV5", "FVM6", "IAM6", "ZZ1R", "MY6"]
    values = np.array([1.25, 0.6, 0.01, 1.27, 0.002])
    std = np.array([0.02, 0.01, 0.001, 0.006, 0.004])
    rows = compare_with_published(names, values, np.diag(std**2))
    by = {r["name"]: r for r in rows}
    # every published parameter first, in the source's order, then ours it lacks
    assert [r["name"] for r in rows[: len(pub)]] == list(pub)
    assert [r["name"] for r in rows[len(pub):]] == ["IAM6", "MY6"]
    # FIGAROH's FV5 is ours plus FVM6: the value and the variance follow
    assert by["FV5"]["ours"] == pytest.approx(1.85)
    assert by["FV5"]["ours_std"] == pytest.approx(math.hypot(0.02, 0.01))
    assert by["FV5"]["published"] == pub["FV5"]["wls"] and by["FV5"]["unit"] == "N m s/rad"
    d = by["ZZ1R"]
    assert d["difference"] == pytest.approx(1.27 - pub["ZZ1R"]["wls"])
    assert d["difference_in_std"] == pytest.approx(d["difference"] / 0.006)
    assert d["ours_rel_std"] == pytest.approx(100 * 0.006 / 1.27)
    # parameters only one side holds carry NaN where the other side is missing
    assert math.isnan(by["FS1"]["ours"]) and math.isnan(by["FS1"]["difference_in_std"])
    assert math.isnan(by["IAM6"]["published"]) and by["IAM6"]["unit"] == ""
    # the OLS columns and the base-parameter source
    ols = {r["name"]: r for r in compare_with_published(names, values, np.diag(std**2), "figaroh_base", "ols")}
    base = staubli_tx40_published()["sources"]["figaroh_base"]["parameters"]
    assert ols["MY6"]["published"] == base["MY6"]["ols"]
    assert ols["MY6"]["published_rel_std"] == base["MY6"]["ols_rel_std"]


def test_bad_input():
    cov = np.eye(2)
    with pytest.raises(ValueError, match="unknown source"):
        compare_with_published(["FV1", "FS1"], [1.0, 2.0], cov, source="janot2014")
    with pytest.raises(ValueError, match="method"):
        compare_with_published(["FV1", "FS1"], [1.0, 2.0], cov, method="ridge")
    with pytest.raises(ValueError, match="values"):
        compare_with_published(["FV1", "FS1"], [1.0], cov)
    with pytest.raises(ValueError, match="cov"):
        compare_with_published(["FV1", "FS1"], [1.0, 2.0], np.eye(3))
    with pytest.raises(ValueError, match="finite"):
        compare_with_published(["FV1", "FS1"], [1.0, np.nan], cov)
