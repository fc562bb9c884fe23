"""Every number the prose states is glued from a computation or is a listed design input.

The scanner is tools/prose_numbers.py (run it on a notebook to see what it flags); the
allowlist of design inputs is the notebook metadata entry ``prose_allowlist``.
"""
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import prose_numbers  # noqa: E402

NOTEBOOKS = sorted((ROOT / "chapters").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_number_of_the_prose_is_glued_or_a_listed_design_input(path):
    findings = prose_numbers.check_notebook(path)
    assert not findings, "\n".join(map(str, findings))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_allowlist_is_short(path):
    allow = nbformat.read(path, as_version=4).metadata.get(prose_numbers.ALLOWLIST_KEY, [])
    assert len(allow) <= 25, f"{path.name}: {len(allow)} allowlisted numbers; glue computed ones"


def _notebook(tmp_path, markdown, allow=None):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(m) for m in markdown]
    for i, c in enumerate(nb.cells):
        c["id"] = f"cell-{i:03d}"
    if allow is not None:
        nb.metadata[prose_numbers.ALLOWLIST_KEY] = allow
    path = tmp_path / "synthetic.ipynb"
    nbformat.write(nb, path)
    return path


def test_a_stale_number_fails(tmp_path):
    path = _notebook(tmp_path, ["The quintic error is 27 % and the cut-off 100 Hz."])
    msgs = [f.message for f in prose_numbers.check_notebook(path)]
    assert len(msgs) == 2 and "'27%'" in msgs[0] and "'100 Hz'" in msgs[1]


def test_glued_and_allowlisted_numbers_pass(tmp_path):
    path = _notebook(
        tmp_path,
        ["The error is {glue:text}`err:.1f` % at $\\Delta t =$ 0.02 s.", "Integers pass: N = 1000, chapter 3."],
        allow=[{"text": "0.02 s", "reason": "sampling period of the seed (design input)"}],
    )
    assert prose_numbers.check_notebook(path) == []


def test_allowlist_entries_need_a_reason_and_a_use(tmp_path):
    path = _notebook(tmp_path, ["A 6 Hz filter."], allow=[{"text": "6 Hz"}, {"text": "7.5 mm", "reason": "seed's ball radius"}])
    msgs = [f.message for f in prose_numbers.check_notebook(path)]
    assert any("needs a 'text' and a non-empty 'reason'" in m for m in msgs)
    assert any("'6 Hz' is not glued" in m for m in msgs)
    assert any("'7.5 mm' matches no number" in m for m in msgs)


def test_allowlist_entry_restricted_to_cells(tmp_path):
    path = _notebook(tmp_path, ["A 6 Hz filter.", "Again 6 Hz."], allow=[{"text": "6 Hz", "reason": "design", "cells": ["cell-000"]}])
    findings = prose_numbers.check_notebook(path)
    assert [f.cell for f in findings] == ["cell-001"]


@pytest.mark.parametrize(
    "src, want",
    [
        ("noise of $10^{-3}$ rad", ["10^{-3} rad"]),
        ("errors of 27 % and $12\\%$", ["27%", "12%"]),
        ("`x = 0.5` in code, {cite:p}`urrea2017`, [a](http://x.org/1.5)", []),
        ("## 3.2 Heading\nN = 1000 samples, chapter 3, UR5, 5-DOF", []),
        ("```python\nx = 0.5\n```", []),
        ("```{exercise} Title 0.5\n:label: ex-1\nbody 2.5 kg\n```", ["0.5", "2.5 kg"]),
        ("$$\nq = 0.5 \\sin t\n$$ (eq-x)", ["0.5"]),
        ("5x larger, 8× and 3-fold, 4 times", ["5x", "8×", "3-fold", "4 times"]),
        ("$\\sigma = 0.05\\,\\mathrm{N\\,m}$", ["0.05 N m"]),
    ],
)
def test_tokens(src, want):
    assert [t.text for t in prose_numbers.tokens(src)] == want
