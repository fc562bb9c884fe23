"""Notebook hygiene: listed in the TOC, committed without outputs, python3 kernel, claims pinned
in hidden cells, code lines that fit the page, exercises the student edition can use."""
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "chapters").glob("*.ipynb"))


def _tags(cell):
    return set(cell.metadata.get("tags", []))


def _toc_files():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = {toc["root"]}

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                files.add(node["file"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(toc)
    return files


def test_there_are_notebooks():
    assert NOTEBOOKS, "chapters/ holds no notebook"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_listed_in_toc(path):
    assert f"chapters/{path.stem}" in _toc_files(), f"{path.name} is not in _toc.yml"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    dirty = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and (c.outputs or c.execution_count)]
    assert not dirty, f"{path.name}: code cells {dirty} have outputs; clear them before committing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_python3_kernel_and_valid(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3"
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# ")


HIDDEN = {"remove-cell", "remove-input"}
MAX_LINE = 88


def _code_cells(path):
    nb = nbformat.read(path, as_version=4)
    return [(c.get("id", f"#{i}"), c) for i, c in enumerate(nb.cells) if c.cell_type == "code"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_chapter_pins_its_claims_in_hidden_cells(path):
    """The assertions that pin the chapter's claims run in cells the site does not show."""
    pins = sum(
        line.lstrip().startswith("assert ")
        for _, c in _code_cells(path) if HIDDEN & _tags(c)
        for line in c.source.splitlines()
    )
    assert pins >= 3, f"{path.name} pins fewer than 3 claims in hidden (remove-cell) cells"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_bare_assert_in_a_reader_facing_cell(path):
    bad = [cid for cid, c in _code_cells(path) if not HIDDEN & _tags(c)
           and any(line.lstrip().startswith("assert ") for line in c.source.splitlines())]
    assert not bad, f"{path.name}: cells {bad} show `assert` lines to the reader; move them to a remove-cell cell"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_glue_only_in_hidden_cells(path):
    bad = [cid for cid, c in _code_cells(path) if not HIDDEN & _tags(c) and "glue(" in c.source]
    assert not bad, f"{path.name}: cells {bad} call glue() where the reader sees it; glue in the hidden pin cell"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_code_lines_fit_the_page(path):
    long = [(cid, n + 1) for cid, c in _code_cells(path) for n, line in enumerate(c.source.splitlines()) if len(line) > MAX_LINE]
    assert not long, f"{path.name}: code lines longer than {MAX_LINE} characters (cell, line): {long}"


def test_toc_files_exist():
    for f in _toc_files():
        assert any((ROOT / f"{f}{ext}").exists() for ext in (".md", ".ipynb")), f"_toc.yml lists missing {f}"



@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_exercise_structure_supports_the_student_edition(path):
    """Solutions are whole cells tagged `solution` (removed from the student notebooks),
    and every exercise has an `exercise-stub` code cell that the build does not run."""
    nb = nbformat.read(path, as_version=4)
    inside = False
    exercises, stubs = 0, 0
    for i, cell in enumerate(nb.cells):
        src = cell.source
        if "{solution-start}" in src:
            assert cell.cell_type == "markdown" and src.lstrip().startswith("```{solution-start}"), \
                f"{path.name} cell {i}: the solution must start its own markdown cell"
            inside = True
        if "{exercise}" in src:
            exercises += src.count("```{exercise}")
            assert "solution" not in _tags(cell), f"{path.name} cell {i}: an exercise prompt is tagged solution"
            assert not inside, f"{path.name} cell {i}: an exercise inside a solution"
        if inside:
            assert "solution" in _tags(cell), f"{path.name} cell {i}: solution cell without the `solution` tag"
        elif "solution" in _tags(cell):
            raise AssertionError(f"{path.name} cell {i}: tagged `solution` outside a solution block")
        if "{solution-end}" in src:
            assert src.strip() == "```{solution-end}\n```", f"{path.name} cell {i}: solution-end must be alone"
            inside = False
        if "exercise-stub" in _tags(cell):
            stubs += 1
            assert cell.cell_type == "code" and {"skip-execution", "nbval-skip"} <= _tags(cell), \
                f"{path.name} cell {i}: an exercise stub must be tagged skip-execution and nbval-skip"
            assert "check" in src, f"{path.name} cell {i}: an exercise stub must call a robidlib.checks function"
    assert not inside, f"{path.name}: unterminated solution"
    assert exercises >= 3, f"{path.name} has {exercises} exercises; every chapter has at least three"
    assert stubs >= exercises, f"{path.name}: {exercises} exercises but {stubs} exercise stubs"
