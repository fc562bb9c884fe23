"""No solution anywhere a student can reach.

Each solution cell of the instructor notebooks (tagged ``solution``) gives its distinctive
code lines (tools/editions.py ``solution_fragments``: lines no other cell shows, and their
right-hand sides, compared without whitespace). None may appear in the student site (every
page, and the notebooks its download button serves), the student notebooks, or the student
bundle. The instructor site must show them, which proves the search finds what it looks for.
(The checks' docstrings are tested in tests/test_editions.py, the student PDF in test_pdf.py.)
"""
from __future__ import annotations

import importlib.util
import json
import os
import zipfile
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[2]
STUDENT = ROOT / "_build" / "student"
spec = importlib.util.spec_from_file_location("editions", ROOT / "tools" / "editions.py")
editions = importlib.util.module_from_spec(spec)
spec.loader.exec_module(editions)


def _require(path: Path) -> Path:
    if not path.exists():
        msg = f"{path} missing: run `make student` first"
        if os.environ.get("ROBIDLIB_REQUIRE_SITE"):
            pytest.fail(msg)
        pytest.skip(msg)
    return path


@pytest.fixture(scope="module")
def fragments():
    found = editions.solution_fragments()
    assert len(found) >= 10
    return found


def _notebook_text(raw: str) -> str:
    nb = json.loads(raw)
    parts = []
    for cell in nb.get("cells", []):
        parts.append("".join(cell.get("source", [])))
        for out in cell.get("outputs", []):
            parts.append("".join(out.get("text", [])))
            for value in (out.get("data") or {}).values():
                if isinstance(value, (str, list)):
                    parts.append("".join(value))
    return "\n".join(parts)


def _site_texts(site: Path):
    for path in sorted(site.rglob("*")):
        if not path.is_file() or "_static" in path.parts:
            continue
        if path.suffix == ".html":
            yield path, BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser").get_text("\n")
        elif path.suffix == ".ipynb":
            yield path, _notebook_text(path.read_text(encoding="utf-8"))
        elif path.suffix in (".md", ".txt", ".py"):
            yield path, path.read_text(encoding="utf-8", errors="replace")


def test_instructor_site_shows_the_solutions(site, fragments):
    text = "\n".join(t for _, t in _site_texts(site / "chapters"))
    shown = editions.leaks(text, fragments)
    # most solution lines are on the instructor pages (a few are in collapsed output-less cells)
    assert len(shown) >= len({w for w in fragments.values()}) // 2


def test_student_site_has_no_solution_code(fragments):
    site = _require(STUDENT / "site" / "index.html").parent
    leaked = {}
    for path, text in _site_texts(site):
        found = editions.leaks(text, fragments)
        if found:
            leaked[str(path.relative_to(site))] = found[:3]
    assert not leaked, f"solution code in the student site: {leaked}"
    assert not (site / "api.html").read_text(encoding="utf-8").count("robidlib.checks."), \
        "the student site documents robidlib.checks (its docstrings are for instructors)"


def test_student_notebooks_and_bundle_have_no_solution_code(fragments):
    nb_dir = _require(STUDENT / "notebooks")
    leaked = {p.name: editions.leaks(_notebook_text(p.read_text(encoding="utf-8")), fragments)
              for p in sorted(nb_dir.glob("*.ipynb"))}
    assert leaked and not any(leaked.values()), f"solution code in the student notebooks: {leaked}"
    with zipfile.ZipFile(_require(STUDENT / "student-bundle.zip")) as zf:
        for name in zf.namelist():
            raw = zf.read(name)
            if name.endswith(".ipynb"):
                text = _notebook_text(raw.decode())
            elif name.endswith((".md", ".txt")):
                text = raw.decode()
            elif name.endswith(".whl"):
                import io

                with zipfile.ZipFile(io.BytesIO(raw)) as wheel:
                    text = "\n".join(wheel.read(n).decode(errors="replace") for n in wheel.namelist()
                                     if not n.endswith(".py"))   # data and metadata; checks' code is not a solution text
            else:
                continue
            assert not editions.leaks(text, fragments), f"solution code in the bundle's {name}"
