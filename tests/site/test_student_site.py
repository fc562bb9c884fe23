"""The student edition (`make student`): prompts and stubs, no solutions."""
import os
import re
import zipfile
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[2]
STUDENT = ROOT / "_build" / "student"


@pytest.fixture(scope="module")
def student_site():
    site = STUDENT / "site"
    if not (site / "index.html").exists():
        msg = f"no student edition at {site}: run `make student` first"
        if os.environ.get("ROBIDLIB_REQUIRE_SITE"):
            pytest.fail(msg)
        pytest.skip(msg)
    return site


def _chapters(site):
    return sorted((site / "chapters").glob("*.html"))


def _text(soup):
    return re.sub(r"\s+", " ", soup.get_text(" "))


def test_student_pages_have_prompts_but_no_solutions(site, student_site):
    pages = _chapters(student_site)
    assert pages
    for page in pages:
        inst = BeautifulSoup((site / "chapters" / page.name).read_text(encoding="utf-8"), "html.parser")
        stud = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        n_ex = len(inst.select(".exercise.admonition"))
        assert n_ex >= 3, f"{page.name}: the instructor edition shows {n_ex} exercises"
        assert len(stud.select(".exercise.admonition")) == n_ex, f"{page.name}: exercise prompts missing"
        assert len(inst.select(".solution")) >= n_ex
        assert not stud.select(".solution"), f"{page.name}: a solution is visible in the student edition"
        assert not stud.select(".tag_solution"), f"{page.name}: solution code in the student edition"
        assert len(stud.select(".tag_exercise-stub")) >= n_ex
        # no text of a solution survives (unless the page also shows it elsewhere), and every
        # prompt's text does
        stud_text = _text(stud)
        solution_lines = {
            line.strip() for sol in inst.select(".solution, .tag_solution")
            for line in sol.get_text("\n").splitlines() if len(line.strip()) > 30
        }
        for sol in inst.select(".solution, .tag_solution"):
            sol.decompose()
        elsewhere = _text(inst)
        secret = [line for line in solution_lines if re.sub(r"\s+", " ", line) not in elsewhere]
        assert secret, f"{page.name}: no distinctive solution text found to check"
        leaked = [line for line in secret if re.sub(r"\s+", " ", line) in stud_text]
        assert not leaked, f"{page.name}: solution text in the student edition: {leaked[:2]}"
        inst = BeautifulSoup((site / "chapters" / page.name).read_text(encoding="utf-8"), "html.parser")
        for ex in inst.select(".exercise.admonition"):
            assert _text(ex).strip()[:60] in stud_text


def test_student_bundle_has_every_chapter_readme_requirements_and_wheel():
    archive = STUDENT / "student-bundle.zip"
    if not archive.exists():
        if os.environ.get("ROBIDLIB_REQUIRE_SITE"):
            pytest.fail(f"{archive} missing: run `make student`")
        pytest.skip("run `make student` first")
    with zipfile.ZipFile(archive) as zf:
        names = zf.namelist()
    import yaml
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    listed = [c["file"] for part in toc["parts"] for c in part["chapters"] if c["file"].startswith("chapters/")]
    top = "robot-dynamic-identification-student/"
    assert sorted(n for n in names if n.endswith(".ipynb")) == sorted(f"{top}{f}.ipynb" for f in listed)
    assert {top + "README.md", top + "requirements.txt"} <= set(names)
    assert len([n for n in names if n.startswith(top + "robidlib-") and n.endswith(".whl")]) == 1


def test_student_site_launch_buttons_open_the_student_branch(student_site):
    html = (student_site / "chapters" / "01_pendulum.html").read_text(encoding="utf-8")
    assert "/v2/gh/" in html and "/student?urlpath=lab/tree/chapters/01_pendulum.ipynb" in html
    assert "/blob/student/chapters/01_pendulum.ipynb" in html          # Colab (GitHub)
    assert "/blob/main/chapters/01_pendulum.ipynb" not in html
