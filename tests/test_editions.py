"""The student edition and release helpers in tools/editions.py."""
import importlib.util
import zipfile
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("editions", ROOT / "tools" / "editions.py")
editions = importlib.util.module_from_spec(spec)
spec.loader.exec_module(editions)

NOTEBOOKS = sorted((ROOT / "chapters").glob("*.ipynb"))


def _has_tag(cell, tag):
    return tag in cell.metadata.get("tags", [])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_student_notebook_has_prompts_and_stubs_but_no_solutions(path):
    nb = nbformat.read(path, as_version=4)
    student = editions.student_notebook(nb)
    text = "\n".join(c.source for c in student.cells)
    solutions = [c for c in nb.cells if _has_tag(c, "solution")]
    assert solutions, f"{path.name} has no solution cells"
    assert not any(_has_tag(c, "solution") for c in student.cells)
    assert "{solution-start}" not in text and "{solution-end}" not in text
    shown = {line.strip() for c in nb.cells if not _has_tag(c, "solution") for line in c.source.splitlines()}
    secret = {line.strip() for c in solutions for line in c.source.splitlines()} - shown
    leaked = [line for line in secret if len(line) > 20 and line in text]
    assert not leaked, f"solution lines leaked into the student notebook: {leaked[:3]}"
    assert len([line for line in secret if len(line) > 20]) >= 3
    prompts = text.count("```{exercise}")
    assert prompts == "\n".join(c.source for c in nb.cells).count("```{exercise}") >= 3
    assert sum(_has_tag(c, "exercise-stub") for c in student.cells) >= prompts
    assert all(not c.get("outputs") for c in student.cells if c.cell_type == "code")
    assert nb.cells is not student.cells and any(_has_tag(c, "solution") for c in nb.cells)  # input untouched


def test_student_notebooks_zip(tmp_path):
    archive = editions.write_student_notebooks(tmp_path)
    with zipfile.ZipFile(archive) as zf:
        names = sorted(zf.namelist())
    assert names == sorted(f"chapters/{p.name}" for p in editions.toc_notebooks())


def test_student_config_hides_solutions(tmp_path):
    out = editions.write_student_config(tmp_path)
    data = yaml.safe_load(out.read_text())
    original = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert data["sphinx"]["config"]["hide_solutions"] is True
    assert "hide_solutions" not in original["sphinx"]["config"]
    assert data["sphinx"]["extra_extensions"] == original["sphinx"]["extra_extensions"]
    assert data["title"].endswith("(student edition)")


def test_release_checks(tmp_path, monkeypatch):
    changelog = tmp_path / "CHANGELOG.md"
    changelog.write_text("# Changelog\n\n## 1.2.3 - 2026-11-30\n- things\n")
    editions.check_changelog("1.2.3", changelog)
    with pytest.raises(SystemExit, match="no entry for 1.2.4"):
        editions.check_changelog("1.2.4", changelog)
    with pytest.raises(SystemExit, match="X.Y.Z"):
        editions.check_changelog("v1", changelog)
    version_file = tmp_path / "_version.py"
    version_file.write_text('__version__ = "0.1.0"\n')
    monkeypatch.setattr(editions, "VERSION_FILE", version_file)
    editions.set_version("0.2.0")
    assert editions.read_version() == "0.2.0"
    with pytest.raises(SystemExit):
        editions.set_version("0.2")


def test_package_and_changelog_agree():
    import robidlib

    assert editions.read_version() == robidlib.__version__
    editions.check_changelog(robidlib.__version__)
