"""The PDF editions (`make pdf`): every chapter is there, and no solution in the student one.

The text is extracted with pdftotext (Debian's poppler-utils, see README). `make test` builds
the PDFs before the site tests and sets ROBIDLIB_REQUIRE_SITE=1.
"""
from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PDF = ROOT / "_build" / "pdf"
spec = importlib.util.spec_from_file_location("editions", ROOT / "tools" / "editions.py")
editions = importlib.util.module_from_spec(spec)
spec.loader.exec_module(editions)


def _text(name: str) -> str:
    path = PDF / name
    if not path.exists():
        msg = f"no {path}: run `make pdf` first"
        if os.environ.get("ROBIDLIB_REQUIRE_SITE"):
            pytest.fail(msg)
        pytest.skip(msg)
    if not shutil.which("pdftotext"):
        pytest.fail("pdftotext not found: apt-get install -y poppler-utils (see README)")
    return subprocess.run(["pdftotext", "-enc", "UTF-8", str(path), "-"], capture_output=True, text=True, check=True).stdout


def _titles():
    titles = []
    for path in editions.toc_notebooks():
        first = json.loads(path.read_text(encoding="utf-8"))["cells"][0]
        title = re.match(r"#\s+(.+)", "".join(first["source"]))
        titles.append(title.group(1).strip())
    return titles


@pytest.fixture(scope="module", params=["book.pdf", "book-student.pdf"])
def pdf_text(request):
    return request.param, _text(request.param)


def _flat(text: str) -> str:
    # pdftotext breaks lines and hyphenates nowhere in code, but wraps titles and prose
    return re.sub(r"\s+", " ", text)


def test_every_chapter_title_is_in_the_pdf(pdf_text):
    name, text = pdf_text
    flat = _flat(text)
    missing = [t for t in _titles() if re.sub(r"^\d+\.\s*", "", t) not in flat]
    assert not missing, f"{name}: chapter titles missing: {missing}"
    assert "Exercise" in flat


def test_instructor_pdf_has_the_solutions_and_the_student_pdf_none():
    fragments = editions.solution_fragments()
    shown = editions.leaks(_text("book.pdf"), fragments)
    assert shown, "the instructor PDF shows no solution code: the search would find nothing"
    leaked = editions.leaks(_text("book-student.pdf"), fragments)
    assert not leaked, f"solution code in the student PDF: {leaked[:5]}"


def test_code_lines_wrap_instead_of_running_off_the_page():
    # Sphinx's LaTeX writer wraps long verbatim lines, marks each continuation (↪) and a space
    # at the break (␣, a visible space); the widest code line of the book must be in the PDF
    # in full (joined across the break).
    text = _text("book.pdf")
    longest = max((line.strip() for p in editions.toc_notebooks()
                   for c in json.loads(p.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"
                   and "solution" not in c.get("metadata", {}).get("tags", [])
                   and not set(c.get("metadata", {}).get("tags", [])) & {"remove-cell", "remove-input"}
                   for line in "".join(c["source"]).splitlines()), key=len)
    assert editions.squeeze(longest) in editions.squeeze(text).replace("↪", "").replace("␣", ""), longest


@pytest.mark.parametrize("name", ["book", "book-student"])
def test_xelatex_found_every_glyph(name):
    """XeLaTeX logs each character its font lacks ("Missing character: There is no ✔ ... in
    font FreeMono"); the PDF then shows nothing or a box there. `make pdf` keeps the logs."""
    _text(f"{name}.pdf")                    # the PDF exists (else fail or skip as above)
    log = PDF / f"{name}.log"
    assert log.exists(), f"no {log}: `make pdf` copies the XeLaTeX log beside the PDF"
    missing = sorted({line.strip() for line in log.read_text(encoding="utf-8", errors="replace").splitlines()
                      if line.startswith("Missing character")})
    assert not missing, f"{name}.pdf: {len(missing)} kinds of missing glyphs, e.g. {missing[:5]}"


@pytest.mark.parametrize("name", ["book.pdf", "book-student.pdf"])
def test_pdf_is_a4(name):
    _text(name)
    if not shutil.which("pdfinfo"):
        pytest.fail("pdfinfo not found: apt-get install -y poppler-utils (see README)")
    info = subprocess.run(["pdfinfo", str(PDF / name)], capture_output=True, text=True, check=True).stdout
    size = re.search(r"Page size:\s+([\d.]+) x ([\d.]+) pts", info)
    assert size, info
    assert abs(float(size.group(1)) - 595.28) < 1 and abs(float(size.group(2)) - 841.89) < 1, info


def test_the_check_marks_are_in_the_pdf():
    """The checks' ✔ and ✘ of the executed solution cells and stubs reach the text layer."""
    text = _text("book.pdf")
    assert "\u2714" in text


def test_one_citation_style_in_text_and_bibliography(pdf_text):
    """Citations read "[Atkeson et al., 1986]" and the bibliography labels its entries the same
    way (style ``robidlib``, _ext/bookinfo.py), not with alpha labels such as "[AAH86]"."""
    name, text = pdf_text
    start = text.find("BIBLIOGRAPHY")
    assert start > 0, f"{name}: no bibliography"
    end = min((i for i in (text.find("PROOF INDEX", start), text.find("PYTHON MODULE INDEX", start)) if i > 0),
              default=len(text))
    labels = re.findall(r"^\[([^\[\]\n]+)\]", text[start:end], flags=re.M)
    assert len(labels) >= 20, f"{name}: {len(labels)} bibliography labels found"
    odd = [lab for lab in labels if not re.fullmatch(r".+, (\d{4}[a-z]?|n\.d\.)", lab)]
    assert not odd, f"{name}: bibliography labels not in the author-year style: {odd[:5]}"
    # a citation of one work, "[Khalil and Dombre, 2002]", reads as that work's label
    single = set(re.findall(r"\[([A-Z][^\[\],]{0,60}, \d{4}[a-z]?)\]", _flat(text[:start])))
    assert len(single) >= 10, f"{name}: {len(single)} author-year citations found"
    assert single <= set(labels), f"{name}: citations without a matching label: {sorted(single - set(labels))[:5]}"
