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


def test_student_bundle_has_every_chapter_readme_requirements_and_the_student_robidlib():
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
    assert {top + "pyproject.toml", top + "robidlib/__init__.py", top + "robidlib/data/checks/pendulum.json"} <= set(names)
    assert not [n for n in names if n.endswith((".whl", ".zip")) or "/checks/answers/" in n]


def test_student_site_launch_buttons_open_the_student_branch(student_site):
    html = (student_site / "chapters" / "01_pendulum.html").read_text(encoding="utf-8")
    assert "/v2/gh/" in html and "/student?urlpath=lab/tree/chapters/01_pendulum.ipynb" in html
    assert "/blob/student/chapters/01_pendulum.ipynb" in html          # Colab (GitHub)
    assert "/blob/main/chapters/01_pendulum.ipynb" not in html


# ---------------------------------------------------------------------------------------
# Nothing a student follows leads to a solution (issue 30)

def _editions():
    import importlib.util

    spec = importlib.util.spec_from_file_location("editions", ROOT / "tools" / "editions.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _repo_forms(url):
    """The ways a page can name the repository at ``url``: itself, URL-encoded, its org/repo path."""
    from urllib.parse import quote

    path = url.split("://", 1)[-1].split("/", 1)[-1].strip("/")
    return {url, quote(url, safe=""), path, quote(path, safe="")}


def _branch_markers(branch):
    return (f"/tree/{branch}", f"/src/{branch}", f"/blob/{branch}/", f"/{branch}?urlpath=", f"branch={branch}",
            f"/{branch}/")


def test_no_link_button_or_instruction_of_the_student_site_leads_to_a_branch_with_solutions(student_site):
    editions = _editions()
    info = editions.repository(editions.book_config())
    sb = info["student_branch"]
    same = info["student_url"] == info["url"]
    instructor = _repo_forms(info["url"])
    problems, seen_buttons, clones = [], set(), 0
    for page in sorted(p for p in student_site.rglob("*.html") if "_static" not in p.parts):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        where = page.relative_to(student_site)
        for a in soup.find_all("a", href=True):
            href = a["href"]
            if not any(form in href for form in instructor):
                continue
            seen_buttons.add(href.split("?")[0].rsplit("/", 1)[0])
            if not same:
                problems.append(f"{where}: {href} (the instructor repository)")
            elif "/issues" in href:
                continue                      # the issue tracker: no branch, no file
            elif not any(m in href for m in _branch_markers(sb)) or "/main" in href or "branch=main" in href:
                problems.append(f"{where}: {href} (not on the student branch {sb!r})")
        for pre in soup.find_all("pre"):
            text = pre.get_text()
            if "git clone" in text:
                clones += 1
                for line in (ln for ln in text.splitlines() if "git clone" in ln):
                    if f"--branch {sb}" not in line or "--single-branch" not in line or info["student_url"] not in line:
                        problems.append(f"{where}: {line.strip()!r} (clone only the student branch of the student repository)")
            if "make lab" in text:
                problems.append(f"{where}: `make lab` needs the instructor repository (with the solutions)")
            if "git+" in text and "@main" in text:
                problems.append(f"{where}: installs from @main")
    assert clones >= 1, "the student site tells no one how to get the notebooks"
    assert not problems, "\n".join(problems[:20])
    if same:
        assert seen_buttons, "no repository or launch button found to check"


def test_student_intro_promises_no_solution(student_site):
    text = _text(BeautifulSoup((student_site / "intro.html").read_text(encoding="utf-8"), "html.parser"))
    assert "solution" not in text.lower(), "the student site's intro mentions solutions"
    assert "robidlib.checks" in text


def _student_notebooks():
    nb_dir = STUDENT / "notebooks"
    if not nb_dir.exists():
        if os.environ.get("ROBIDLIB_REQUIRE_SITE"):
            pytest.fail(f"{nb_dir} missing: run `make student` first")
        pytest.skip("run `make student` first")
    return sorted(nb_dir.glob("*.ipynb")) + sorted((STUDENT / "src" / "chapters").glob("*.ipynb"))


def test_student_notebooks_install_the_student_release_and_show_numbers_and_plain_myst():
    import nbformat

    editions = _editions()
    setup = editions.student_setup_source()
    info = editions.repository(editions.book_config())
    assert info["student_url"] in editions.squeeze(setup).replace('""', "")
    assert f"@{editions.student_tag(editions.read_version())}" in editions.squeeze(setup).replace('""', "")
    for path in _student_notebooks():
        nb = nbformat.read(path, as_version=4)
        assert editions.has_setup_cell(nb, setup), f"{path}: its setup cell is not the student edition's"
        if path.parent.name == "notebooks":       # the JupyterLab edition (the site's copy is Sphinx's input)
            text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
            raw = [r for r in ("{glue", "{cite", "{doc}", "{term}") if r in text]
            assert not raw, f"{path.name}: raw MyST JupyterLab would show: {raw}"
