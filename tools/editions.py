"""Course editions and releases of the book.

The default build is the instructor edition (solutions visible, collapsed). The student
edition removes the cells tagged ``solution`` from the notebooks (nbconvert's
``TagRemovePreprocessor``) and hides every other ``{solution}`` directive in the site
(sphinx-exercise's ``hide_solutions``). Exercise cells tagged ``exercise-stub`` stay: they
hold the skeleton a student completes and the ``robidlib.checks`` call that gives feedback.
In the student notebooks the hidden pin cells (``remove-cell``, ``remove-input``) are
collapsed in JupyterLab (``metadata.jupyter.source_hidden``), the first code cell is the
setup cell that installs robidlib on Colab (a no-op wherever robidlib is installed), the
glued numbers are pasted into the prose and the MyST roles JupyterLab cannot resolve
(citations, ``{doc}``, ``{term}``) become plain text and links (:func:`myst_for_jupyterlab`).

The student edition has its own repository and branch (``repository.student_url``, empty for
the instructor's repository, and ``repository.student_branch`` in ``_config.yml``): the
student site's buttons and clone instructions and the student notebooks' setup cell use only
them, so nothing a student follows leads to a branch with solutions.

The student site is built from a staged copy of the book (``OUT_DIR/src``) whose notebooks
carry the outputs of the instructor build, taken from its execution cache, so nothing runs
twice. (``hide_solutions`` alone cannot be used on the notebooks: sphinx-exercise 1.2 drops
the ``solution-start`` of a gated solution but leaves its ``solution-end`` and the code cells
between them, which breaks the build.)

The student bundle (``OUT_DIR/student-bundle.zip``, unpacked in ``OUT_DIR/bundle``) is
self-contained: the student notebooks, a README for students, ``requirements.txt`` and the
student edition of robidlib as a source package (``pyproject.toml`` and ``robidlib/``, which
the requirements install): robidlib without the instructor-only reference answers of the
checks (``robidlib/checks/answers``), whose results it carries as data instead. The same
folder is the content of the student branch (Binder builds it, Colab's setup cell installs
robidlib from its release tag); unchanged files are shared between releases by git, so the
branch's history grows by what changed, not by a wheel per release.

``make lab`` executes the chapters once into the execution cache when they are not there
(a fresh clone), so that the copies in ``lab/`` show the book's numbers; later runs refresh
the numbers only in prose cells the student has not edited and never touch a code cell.

Usage (the Makefile calls these)::

    python tools/editions.py student-notebooks OUT_DIR   # OUT_DIR/notebooks, no solutions
    python tools/editions.py wheel OUT_DIR               # the robidlib wheel, built off-tree
    python tools/editions.py student-bundle OUT_DIR      # OUT_DIR/bundle + student-bundle.zip
    python tools/editions.py student-source OUT_DIR      # OUT_DIR/src: the book to build
    python tools/editions.py lab-notebooks DIR           # executes if needed, copies, refreshes numbers
    python tools/editions.py setup-cell [--check] NB...  # add/update the Colab setup cell
    python tools/editions.py publish-student-branch DIR  # commit DIR to the student branch
    python tools/editions.py check-release VERSION       # version format, CHANGELOG entry, tag, clean tree
    python tools/editions.py set-version VERSION         # the one place: robidlib/_version.py
    python tools/editions.py release VERSION             # the whole release (make release)
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from datetime import date
from pathlib import Path

import nbformat
import yaml
from nbconvert.preprocessors import ClearOutputPreprocessor, TagRemovePreprocessor

ROOT = Path(__file__).resolve().parents[1]
NAME = "robot-dynamic-identification"
SOLUTION_TAG = "solution"
HIDDEN_TAGS = ("remove-cell", "remove-input")
SETUP_TAG = "robidlib-setup"
SETUP_ID = "robidlib-setup"
STUDENT_BRANCH = "student"
VERSION_FILE = ROOT / "robidlib" / "_version.py"
VERSION_RE = re.compile(r"^\d+\.\d+\.\d+$")
LINE_WIDTH = 88
# What a student needs besides the robidlib wheel (which brings numpy, scipy, sympy,
# matplotlib, threadpoolctl with the bounds of pyproject.toml); taken with their bounds
# from requirements.txt.
# the lab packages and the optional dependencies the chapters use (cvxpy for chapters 5 and 11,
# MuJoCo for chapter 13's export check), and jsonschema's upper bound (a speed pin:
# requirements.txt says why)
LAB_PACKAGES = ("jupyterlab", "jupyterlab-myst", "ipywidgets", "cvxpy-base", "clarabel", "mujoco", "jsonschema")
# Parts of the robidlib source the student edition leaves out (instructor only): the
# recipes of the checks' references, i.e. the exercises' reference solutions.
STUDENT_EXCLUDE = ("checks/answers",)
# Instructor-only blocks of the book's pages (api.md: the exercise checks), dropped from the
# student edition.
INSTRUCTOR_ONLY = re.compile(r"^% instructor-only: start.*?^% instructor-only: end[^\n]*\n?", re.M | re.S)
# Folders of the book that the student edition's staged source copies.
BOOK_DIRS = ("_ext", "images")


# --------------------------------------------------------------------------------------
# Configuration and repository


def book_config(config: Path | None = None) -> dict:
    """The book's ``_config.yml`` as a dict."""
    return yaml.safe_load((config or ROOT / "_config.yml").read_text())


def _provider(url: str, given: str = "") -> str:
    """The forge of ``url``: ``given`` when set, else the one its host names, else ``""``."""
    provider = str(given or "").strip().lower()
    if not provider and url:
        host = url.split("://", 1)[-1].split("/", 1)[0].lower()
        provider = next((p for p in ("github", "gitlab", "bitbucket") if p in host), "")
    return provider


def repository(data: dict) -> dict:
    """Repository settings of a configuration: ``url``, ``branch`` and ``provider`` of the
    book, and ``student_url``, ``student_branch`` and ``student_provider`` of the student
    edition.

    The provider is ``sphinx.config.html_theme_options.repository_provider`` when given,
    else inferred from the host the way sphinx-book-theme does (``github``, ``gitlab``,
    ``bitbucket`` in the host name), else ``""`` (a self-hosted forge without a provider).
    An empty ``student_url`` is the book's repository (then ``student_branch``, default
    ``student``, must keep the students off the branches with solutions).
    """
    repo = data.get("repository") or {}
    url = str(repo.get("url") or "").strip().rstrip("/")
    opts = ((data.get("sphinx") or {}).get("config") or {}).get("html_theme_options") or {}
    provider = _provider(url, opts.get("repository_provider"))
    student_url = str(repo.get("student_url") or "").strip().rstrip("/") or url
    student_provider = _provider(student_url, repo.get("student_provider") or (provider if student_url == url else ""))
    return {"url": url, "branch": str(repo.get("branch") or "main"), "provider": provider,
            "student_url": student_url, "student_branch": str(repo.get("student_branch") or STUDENT_BRANCH),
            "student_provider": student_provider}


def student_tag(version: str) -> str:
    """The tag of a release's student edition (a commit of the student branch)."""
    return f"v{version}-student"


# --------------------------------------------------------------------------------------
# The Colab setup cell


def _literal_lines(text: str, indent: str, width: int = LINE_WIDTH) -> list[str]:
    """``text`` as adjacent string literals, one per line, each line at most ``width``."""
    room = max(20, width - len(indent) - 3)
    pieces, rest = [], text
    while len(rest) > room:
        cut = rest.rfind("/", 0, room) + 1 or room
        pieces.append(rest[:cut])
        rest = rest[cut:]
    pieces.append(rest)
    return [f'{indent}"{p}"' for p in pieces]


def setup_cell_source(url: str, ref: str) -> str:
    """The first code cell of every notebook: installs robidlib from ``url`` at ``ref`` when
    it is missing (Colab, a bare Jupyter server) and does nothing elsewhere."""
    if not url:
        raise ValueError("repository.url is empty in _config.yml: the setup cell needs it")
    spec = _literal_lines(f"robidlib[physical] @ git+{url}@{ref}", " " * 12)
    return "\n".join([
        "# Setup for Colab and other hosted Jupyter services: install robidlib if it is",
        "# missing. Where robidlib is installed already (make lab, Binder, JupyterHub, the",
        "# student bundle) this cell does nothing.",
        "import importlib.util",
        "import subprocess",
        "import sys",
        "",
        'if importlib.util.find_spec("robidlib") is None:',
        "    subprocess.run(",
        '        [sys.executable, "-m", "pip", "install", "--quiet",',
        "         (",
        *spec,
        "         )],",
        "        check=True,",
        "    )",
        "    importlib.invalidate_caches()",
    ])


def default_setup_source(config: Path | None = None, ref: str | None = None) -> str:
    """The setup cell of the chapters (instructor edition): ``repository.url`` at its branch."""
    repo = repository(book_config(config))
    return setup_cell_source(repo["url"], ref or repo["branch"])


def student_setup_source(config: Path | None = None, version: str | None = None) -> str:
    """The setup cell of the student notebooks: the student edition of robidlib from the
    student repository at the release's student tag (``vX.Y.Z-student``, which ``make
    release`` creates on the student branch), never the instructor's branch."""
    repo = repository(book_config(config))
    return setup_cell_source(repo["student_url"], student_tag(version or read_version()))


def ensure_setup_cell(nb: nbformat.NotebookNode, source: str) -> bool:
    """Make the setup cell the first code cell of ``nb`` with ``source`` (idempotent).
    Return whether ``nb`` changed."""
    cells = nb.cells
    found = [i for i, c in enumerate(cells) if SETUP_TAG in c.get("metadata", {}).get("tags", [])]
    first_code = next((i for i, c in enumerate(cells) if c.cell_type == "code"), len(cells))
    if found:
        i = found[0]
        cell = cells[i]
        changed = cell.source != source or i > first_code or len(found) > 1
        for j in reversed(found[1:]):
            del cells[j]
        cell.source = source
        if i > first_code:
            del cells[i]
            cells.insert(first_code, cell)
        return changed
    cell = nbformat.v4.new_code_cell(source, id=SETUP_ID)
    cell.metadata["tags"] = [SETUP_TAG, "remove-cell"]
    cells.insert(first_code, cell)
    return True


def has_setup_cell(nb: nbformat.NotebookNode, source: str | None = None) -> bool:
    code = [c for c in nb.cells if c.cell_type == "code"]
    return bool(code) and SETUP_TAG in code[0].metadata.get("tags", []) and (source is None or code[0].source == source)


# --------------------------------------------------------------------------------------
# Student notebooks


# `{glue:text}`key:fmt`` and `{glue}`key`` roles of the prose (myst-nb); JupyterLab's MyST
# renderer does not know them, so the student notebooks get the values pasted in.
GLUE_ROLE = re.compile(r"\{glue(?::text)?\}`([^`]+)`")
GLUE_MIME = "application/papermill.record/text/plain"


def glue_values(executed: nbformat.NotebookNode) -> dict[str, str]:
    """The ``text/plain`` value of every number glued (``myst_nb.glue``) in an executed notebook."""
    values = {}
    for cell in executed.cells:
        for out in cell.get("outputs", []):
            name = out.get("metadata", {}).get("scrapbook", {}).get("name")
            if name and GLUE_MIME in out.get("data", {}):
                values[name] = out["data"][GLUE_MIME]
    return values


def paste_glue(nb: nbformat.NotebookNode, values: dict[str, str]) -> list[str]:
    """Replace the text glue roles of the markdown cells by their values, formatted as the
    book formats them (myst-nb's own formatter); return the keys that had no value (their
    roles are left as they are)."""
    from myst_nb.core.variables import format_plain_text

    missing = []

    def paste(m: re.Match) -> str:
        key, fmt = m.group(1).rsplit(":", 1) if ":" in m.group(1) else (m.group(1), "s")
        if key not in values:
            missing.append(key)
            return m.group(0)
        return format_plain_text(values[key], fmt)

    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = GLUE_ROLE.sub(paste, cell.source)
    return missing


# MyST roles that JupyterLab's MyST renderer (jupyterlab-myst) cannot resolve in a notebook:
# citations (no bibliography), {doc} (another document) and {term} (the glossary page).
JUPYTERLAB_UNRESOLVED = re.compile(r"\{(cite(?::[a-z]+)?|doc|term)\}`([^`]*)`")
# the roles jupyterlab-myst renders in a student notebook (tests/test_editions.py)
JUPYTERLAB_ROLES = frozenset({"eq", "ref", "numref", "prf:ref", "math", "sub", "sup", "abbr", "kbd"})


def _bookinfo():
    """The book's Sphinx extension (``_ext/bookinfo.py``): one definition of how it cites."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bookinfo", ROOT / "_ext" / "bookinfo.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bibliography(bib: Path = ROOT / "references.bib") -> dict[str, tuple[str, str]]:
    """``key -> (authors, year)`` of ``references.bib`` as the site writes them in a citation
    (``_ext/bookinfo.py`` ``author_year``: one or two last names, else the first one's and
    "et al.")."""
    from pybtex.database import parse_file

    author_year = _bookinfo().author_year
    return {key: author_year(entry) for key, entry in parse_file(str(bib)).entries.items()}


def _citation(role: str, keys: list[str], bib: dict[str, tuple[str, str]]) -> str:
    """A citation written out as the site's author-year style writes it."""
    known = [bib.get(k, (k, "")) for k in keys]
    if role in ("cite:t", "cite:ts"):
        return ", ".join(f"{a} [{y}]" for a, y in known)
    if role == "cite:author":
        return ", ".join(a for a, _ in known)
    if role == "cite:year":
        return "[" + ", ".join(y for _, y in known) + "]"
    body = ", ".join(f"{a}, {y}" if y else a for a, y in known)
    return body if role == "cite:alp" else f"[{body}]"


def myst_for_jupyterlab(nb: nbformat.NotebookNode, bib: dict[str, tuple[str, str]],
                        notebooks: dict[str, str]) -> list[str]:
    """Rewrite, in the markdown cells of a student notebook, the MyST roles JupyterLab cannot
    resolve: citations become the site's author-year text, ``{doc}`` a link to the sibling
    notebook (``notebooks``: name -> title of the chapters beside it) or plain text, ``{term}``
    its text. Return the citation keys ``bib`` does not know."""
    unknown: list[str] = []

    def target_text(content: str) -> tuple[str, str]:
        m = re.match(r"^(.*?)\s*<([^<>]+)>\s*$", content, flags=re.S)
        return (m.group(1).strip(), m.group(2).strip()) if m else ("", content.strip())

    def rewrite(m: re.Match) -> str:
        role, content = m.group(1), m.group(2)
        if role.startswith("cite"):
            keys = [k.strip() for k in content.split(",") if k.strip()]
            unknown.extend(k for k in keys if k not in bib)
            return _citation("cite:p" if role == "cite" else role, keys, bib)
        text, target = target_text(content)
        if role == "term":
            return text or target
        name = target.rsplit("/", 1)[-1].removesuffix(".ipynb").removesuffix(".md")
        if name in notebooks and "/" not in target.lstrip("./"):
            return f"[{text or notebooks[name]}]({name}.ipynb)"
        return text or notebooks.get(name, name.replace("_", " "))

    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = JUPYTERLAB_UNRESOLVED.sub(rewrite, cell.source)
    return unknown


def notebook_titles(paths: list[Path] | None = None) -> dict[str, str]:
    """``name -> title`` (the first heading) of the chapter notebooks."""
    out = {}
    for path in paths if paths is not None else toc_notebooks():
        nb = nbformat.read(path, as_version=4)
        first = next((c.source for c in nb.cells if c.cell_type == "markdown"), "")
        m = re.search(r"^#\s+(.+)$", first, flags=re.M)
        out[path.stem] = m.group(1).strip() if m else path.stem
    return out


def executed_notebook(path: Path, cache: Path = ROOT / "_build" / ".jupyter_cache") -> nbformat.NotebookNode | None:
    """The instructor build's execution of ``path`` from the execution cache, or None."""
    if not cache.exists():
        return None
    from jupyter_cache import get_cache

    try:
        _, executed = get_cache(str(cache)).merge_match_into_notebook(nbformat.read(path, as_version=4))
    except KeyError:
        return None
    return executed


def student_notebook(nb: nbformat.NotebookNode, setup_source: str | None = None,
                     glued: dict[str, str] | None = None,
                     myst: tuple[dict[str, tuple[str, str]], dict[str, str]] | None = None) -> nbformat.NotebookNode:
    """Return a copy of ``nb`` without solution cells and without outputs, its pin cells
    collapsed in JupyterLab, (when ``setup_source`` is given) the setup cell first, (when
    ``glued`` is given) the glued numbers pasted into the prose and (when ``myst`` =
    ``(bibliography, notebook titles)`` is given) the roles JupyterLab cannot resolve
    rewritten (:func:`myst_for_jupyterlab`)."""
    nb = nbformat.from_dict(nb)
    remover = TagRemovePreprocessor(remove_cell_tags={SOLUTION_TAG}, enabled=True)
    nb, _ = remover.preprocess(nb, {})
    nb, _ = ClearOutputPreprocessor().preprocess(nb, {})
    if setup_source is not None:
        ensure_setup_cell(nb, setup_source)
    if myst is not None:
        myst_for_jupyterlab(nb, *myst)
    if glued is not None:
        paste_glue(nb, glued)
    hide_pins(nb)
    return nb


def hide_pins(nb: nbformat.NotebookNode) -> None:
    """Collapse the source of the cells the site hides (JupyterLab: ``jupyter.source_hidden``)."""
    for cell in nb.cells:
        if cell.cell_type == "code" and set(HIDDEN_TAGS) & set(cell.metadata.get("tags", [])):
            cell.metadata.setdefault("jupyter", {})["source_hidden"] = True


def write_student_notebooks(out_dir: Path, setup_source: str | None = None) -> Path:
    """Write the student notebooks (those of ``_toc.yml``) into ``out_dir/notebooks``;
    return that folder. The glued numbers come from the instructor build's execution cache
    (:func:`executed_notebook`); a notebook without an execution keeps its glue roles."""
    setup_source = setup_source if setup_source is not None else student_setup_source()
    nb_dir = out_dir / "notebooks"
    if nb_dir.exists():
        shutil.rmtree(nb_dir)
    nb_dir.mkdir(parents=True)
    paths = toc_notebooks()
    if not paths:
        raise SystemExit("_toc.yml lists no notebook")
    myst = (bibliography(), notebook_titles(paths))
    for path in paths:
        executed = executed_notebook(path)
        glued = glue_values(executed) if executed is not None else None
        nb = student_notebook(nbformat.read(path, as_version=4), setup_source, glued, myst)
        nbformat.write(nb, nb_dir / path.name)
    return nb_dir


# --------------------------------------------------------------------------------------
# make lab: the student's copies in lab/


def _hash(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _fingerprint(nb: nbformat.NotebookNode) -> str:
    return _hash("\x00".join(c.source for c in nb.cells))


def execute_chapters(cache: Path | None = None) -> int:
    """Execute the chapters that are not in the execution cache (``tools/execute_book.py``,
    on every core); return its exit status. A fresh clone has no cache: ``make lab`` needs
    the executions for the numbers of the prose."""
    args = [sys.executable, str(ROOT / "tools" / "execute_book.py")] + (["--cache", str(cache)] if cache else [])
    print("make lab: the numbers of the prose come from running the chapters; those not run yet "
          "run now, once (a few minutes on a fresh clone; later runs reuse them)", flush=True)
    return subprocess.run(args, cwd=ROOT).returncode


def lab_sources(cache: Path = ROOT / "_build" / ".jupyter_cache",
                setup_source: str | None = None) -> dict[str, tuple[nbformat.NotebookNode, dict[str, str]]]:
    """``name -> (student notebook with its glue roles, glued values)`` of every chapter; the
    values come from the execution cache (empty for a chapter that has no execution)."""
    setup_source = setup_source if setup_source is not None else student_setup_source()
    paths = toc_notebooks()
    myst = (bibliography(), notebook_titles(paths))
    out = {}
    for path in paths:
        executed = executed_notebook(path, cache)
        out[path.name] = (student_notebook(nbformat.read(path, as_version=4), setup_source, None, myst),
                          glue_values(executed) if executed is not None else {})
    return out


def sync_lab_notebooks(lab_dir: Path, sources: dict[str, tuple[nbformat.NotebookNode, dict[str, str]]]) -> list[str]:
    """Copy into ``lab_dir`` the student notebooks it lacks, with the glued numbers pasted in,
    and refresh the numbers of the copies it has, in the prose cells the student has not
    edited only. Return the notes for the student.

    Never touched: a code cell, a markdown cell the student edited (each copy records a hash
    of every prose cell as written), a cell the chapter's prose changed (a note says the
    chapter changed). A copy made before this bookkeeping is refreshed only in the cells
    that still hold the raw glue roles exactly as delivered. Before a copy is changed, its
    previous version is kept in ``lab_dir/.before-refresh/``.
    """
    lab_dir.mkdir(parents=True, exist_ok=True)
    notes = []
    for name, (template, values) in sources.items():
        target = lab_dir / name
        pasted = nbformat.from_dict(template)
        missing = sorted(set(paste_glue(pasted, values)))
        fp = _fingerprint(template)
        templates = {c.get("id"): c.source for c in template.cells if c.cell_type == "markdown"}
        fresh = {c.get("id"): c.source for c in pasted.cells if c.cell_type == "markdown"}
        if not target.exists():
            pasted.metadata["robidlib"] = {"made_from": fp, "prose": {
                cid: {"template": _hash(templates[cid]), "text": _hash(fresh[cid])} for cid in fresh if cid}}
            nbformat.write(pasted, target)
            if missing:
                notes.append(f"{target}: {len(missing)} numbers of the prose are not filled in yet (the chapter has "
                             "not run; make lab fills them in once it has)")
            continue
        copy = nbformat.read(target, as_version=4)
        meta = copy.metadata.setdefault("robidlib", {})
        prose = meta.setdefault("prose", {})
        refreshed = edited = 0
        before = nbformat.writes(copy)
        for cell in copy.cells:
            cid = cell.get("id")
            if cell.cell_type != "markdown" or cid not in templates:
                continue
            record = prose.get(cid)
            as_delivered = cell.source == templates[cid] or (record is not None and _hash(cell.source) == record["text"])
            same_prose = cell.source == templates[cid] or (record is not None and record["template"] == _hash(templates[cid]))
            if not as_delivered:
                edited += cell.source != fresh[cid]
                continue
            if not same_prose:
                continue
            if cell.source != fresh[cid]:
                cell.source = fresh[cid]
                refreshed += 1
            prose[cid] = {"template": _hash(templates[cid]), "text": _hash(cell.source)}
        if nbformat.writes(copy) != before:
            backup = lab_dir / ".before-refresh"
            backup.mkdir(exist_ok=True)
            (backup / name).write_text(before, encoding="utf-8")
            nbformat.write(copy, target)
        if refreshed:
            notes.append(f"{target}: numbers filled in or updated in {refreshed} prose cells you had not edited "
                         f"(code cells and cells you edited are kept; the previous copy is in {backup / name})")
        if edited and refreshed:
            notes.append(f"{target}: {edited} prose cells you edited keep their numbers")
        if meta.get("made_from") != fp:
            notes.append(f"note: chapters/{name} changed since your copy {target} was made; it is kept"
                         " (delete or rename it and run make lab again to get the new one)")
    return notes


# --------------------------------------------------------------------------------------
# What a student must never see


def squeeze(text: str) -> str:
    """``text`` without any whitespace: code compares equal however it is wrapped or spaced."""
    return re.sub(r"\s+", "", text)


def _fragments(line: str) -> list[str]:
    code = line.split("  #", 1)[0].strip()
    out = [code]
    m = re.match(r"^(?:return|yield|assert|print\()\s*(.+)$", code)
    if m:
        out.append(m.group(1))
    m = re.match(r"^[\w\s,.\[\]()*]+?(?<![=!<>+\-*/%&|^])=(?!=)\s*(.+)$", code)
    if m:
        out.append(m.group(1))
    return out


def solution_fragments(notebooks: list[Path] | None = None, min_chars: int = 20) -> dict[str, str]:
    """The distinctive code of the solution cells: every line of a cell tagged ``solution``
    (and its right-hand side, its returned expression), without whitespace, at least
    ``min_chars`` long, that no other cell of any chapter shows. Maps each fragment to
    ``"notebook: line"`` for messages."""
    notebooks = notebooks if notebooks is not None else toc_notebooks()
    shown = []
    secret: dict[str, str] = {}
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if SOLUTION_TAG in cell.metadata.get("tags", []):
                if cell.cell_type == "code":
                    for line in cell.source.splitlines():
                        if line.strip().startswith("#"):
                            continue
                        for frag in _fragments(line):
                            if len(squeeze(frag)) >= min_chars:
                                secret.setdefault(squeeze(frag), f"{path.name}: {line.strip()}")
            else:
                shown.append(squeeze(cell.source))
    everything_shown = "\x00".join(shown)
    return {f: where for f, where in secret.items() if f not in everything_shown}


def leaks(text: str, fragments: dict[str, str]) -> list[str]:
    """The solution lines of ``fragments`` that ``text`` contains."""
    flat = squeeze(text)
    return sorted({where for f, where in fragments.items() if f in flat})


# --------------------------------------------------------------------------------------
# The wheel and the student bundle


def build_wheel(out_dir: Path, root: Path = ROOT, package: Path | None = None) -> Path:
    """Build the robidlib wheel into ``out_dir`` from a copy of the package (``root``'s, or
    the source package folder ``package``: a ``pyproject.toml`` beside ``robidlib/``), so
    that no ``build/`` or ``*.egg-info`` is left in the tree. Return the wheel."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("robidlib-*.whl"):
        old.unlink()
    base = package or root
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        for f in ("pyproject.toml", "README.md", "LICENSE"):
            if (base / f).exists():
                shutil.copy2(base / f, src / f)
        shutil.copytree(base / "robidlib", src / "robidlib", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(out_dir), str(src)],
                       check=True)
    wheels = sorted(out_dir.glob("robidlib-*.whl"))
    if len(wheels) != 1:
        raise SystemExit(f"expected one robidlib wheel in {out_dir}, found {[w.name for w in wheels]}")
    return wheels[0]


def write_student_package(dest: Path, root: Path = ROOT) -> Path:
    """Write the student edition of robidlib as a source package into ``dest``
    (``pyproject.toml`` and ``robidlib/``; ``dest`` is created): the package without
    :data:`STUDENT_EXCLUDE` (the recipes of the checks' references), with the references
    themselves as data (``robidlib/data/checks/<module>.json``, computed now by the
    instructor's robidlib). Return ``dest``."""
    from robidlib.checks.answers import write_answers

    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(root / "pyproject.toml", dest / "pyproject.toml")
    excluded = {(root / "robidlib" / e).resolve() for e in STUDENT_EXCLUDE}

    def ignore(folder: str, names: list[str]) -> list[str]:
        return [n for n in names if n in ("__pycache__",) or n.endswith((".pyc", ".egg-info"))
                or (Path(folder) / n).resolve() in excluded]

    if (dest / "robidlib").exists():
        shutil.rmtree(dest / "robidlib")
    shutil.copytree(root / "robidlib", dest / "robidlib", ignore=ignore)
    write_answers(dest / "robidlib" / "data" / "checks")
    return dest


def _requirement_name(line: str) -> str:
    m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", line)
    return m.group(1).lower().replace("_", "-") if m else ""


def student_requirements(requirements: Path = ROOT / "requirements.txt") -> str:
    """``requirements.txt`` of the student bundle: the lab packages with the bounds of the
    book's requirements, and the student robidlib of the bundle (``.``, the folder itself:
    pip builds it from its ``pyproject.toml``; Binder's repo2docker copies the folder first)."""
    wanted = {}
    for line in requirements.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if _requirement_name(line) in LAB_PACKAGES:
            wanted[_requirement_name(line)] = line
    missing = [p for p in LAB_PACKAGES if p not in wanted]
    if missing:
        raise SystemExit(f"requirements.txt lacks the lab packages {missing}")
    return "\n".join([
        "# The lab environment of the student bundle: python -m pip install -r requirements.txt",
        *[wanted[p] for p in LAB_PACKAGES],
        "# the course's helper package robidlib, from this folder",
        ".",
        "",
    ])


def student_readme(version: str) -> str:
    return f"""# Robot Dynamic Parameter Identification: lab notebooks ({version})

The chapters of the course as notebooks, with the exercises but without their solutions.
Everything they need is in this folder: `chapters/` (the notebooks), `requirements.txt` and
the course's helper package `robidlib` (`robidlib/` and `pyproject.toml`, installed by the
requirements).

## Set up (once) and start, in this folder, with Python 3.10 or newer

```bash
python3 -m venv .venv && .venv/bin/python -m pip install -r requirements.txt
.venv/bin/jupyter lab chapters/
```

On Windows: `py -m venv .venv`, `.venv\\Scripts\\python -m pip install -r requirements.txt`,
`.venv\\Scripts\\jupyter lab chapters`. As root (a container, some cloud machines) add
`--allow-root` to the second command; `--no-browser --ip 127.0.0.1 --port 8888` are other
useful options.

## How the exercises work

Run a chapter top to bottom first ("Run" > "Run All Cells"); each takes well under a minute.
The exercises are at the end of each chapter. Under each one a code cell holds a skeleton
(`...` marks what to fill in) and ends with a call to a `robidlib.checks` function. Run as
given, it prints ✘ "not answered yet" and says what to do; complete the skeleton, run the
cell again, and the check prints ✔ when your answer is right, or says what is wrong. A check
never stops the notebook. Collapsed cells (a bar with "...") hold the book's own consistency
checks: they need not be opened.

The notebooks' first code cell installs `robidlib` only where it is missing (Colab, from
this edition's release tag); here it does nothing.
"""


def write_student_bundle(out_dir: Path, version: str | None = None, root: Path = ROOT) -> Path:
    """Assemble ``out_dir/bundle`` (README.md, requirements.txt, the student robidlib as a
    source package, chapters/) from ``out_dir/notebooks`` and zip it into
    ``out_dir/student-bundle.zip``; return the zip."""
    version = version or read_version()
    nb_dir = out_dir / "notebooks"
    notebooks = sorted(nb_dir.glob("*.ipynb"))
    if not notebooks:
        raise SystemExit(f"no student notebooks in {nb_dir}: run `editions.py student-notebooks {out_dir}` first")
    bundle = out_dir / "bundle"
    if bundle.exists():
        shutil.rmtree(bundle)
    (bundle / "chapters").mkdir(parents=True)
    for path in notebooks:
        shutil.copy2(path, bundle / "chapters" / path.name)
    write_student_package(bundle, root)
    (bundle / "requirements.txt").write_text(student_requirements(root / "requirements.txt"))
    (bundle / "README.md").write_text(student_readme(version), encoding="utf-8")
    (bundle / ".gitignore").write_text(".venv/\n.ipynb_checkpoints/\n__pycache__/\nbuild/\n*.egg-info/\n")
    archive = out_dir / "student-bundle.zip"
    top = f"{NAME}-student"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(p for p in bundle.rglob("*") if p.is_file()):
            zf.write(path, f"{top}/{path.relative_to(bundle).as_posix()}")
    return archive


def publish_student_branch(bundle: Path, branch: str = STUDENT_BRANCH, message: str | None = None,
                           repo: Path = ROOT, tag: str = "") -> str:
    """Commit the content of ``bundle`` to the local branch ``branch`` (created when missing,
    its history kept), without touching the work tree, the index or the current branch; with
    ``tag``, create that annotated tag on the commit. Return the commit. The bundle holds
    sources, no wheel: a release adds only the files that changed (git stores each content
    once), so the branch stays small. Push it with ``git push origin <branch> <tag>``."""
    def git(*args, env=None):
        return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True,
                              env=env).stdout.strip()

    big = [p for p in bundle.rglob("*") if p.is_file() and p.suffix in (".whl", ".zip")]
    if big:
        raise SystemExit(f"the student branch takes sources, not archives: {[str(p) for p in big]}")
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, GIT_INDEX_FILE=str(Path(tmp) / "index"))
        git("--work-tree", str(bundle.resolve()), "add", "--all", "--force", ".", env=env)
        tree = git("write-tree", env=env)
    parent = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}"], cwd=repo,
                            capture_output=True, text=True).stdout.strip()
    if parent and git("rev-parse", f"{parent}^{{tree}}") == tree:
        commit = parent
    else:
        args = ["commit-tree", tree, "-m", message or f"Student edition {read_version()}"]
        if parent:
            args += ["-p", parent]
        commit = git(*args)
        git("update-ref", f"refs/heads/{branch}", commit)
    if tag:
        git("tag", "-a", tag, "-m", message or f"Student edition {read_version()}", commit)
    return commit


# --------------------------------------------------------------------------------------
# The student site


def write_student_config(out_dir: Path, config: Path = ROOT / "_config.yml", branch: str | None = None) -> Path:
    """Write the student edition's configuration: the book's, with solutions hidden, no
    execution (the staged notebooks already carry their outputs) and the student edition's
    repository and branch (``repository.student_url``, ``repository.student_branch`` or
    ``branch``) for every button; ``robidlib_edition: student`` tells ``_ext/bookinfo.py``
    to write the student clone instructions and open the branch from the repository button."""
    data = book_config(config)
    info = repository(data)
    data.setdefault("sphinx", {}).setdefault("config", {})["hide_solutions"] = True
    data["sphinx"]["config"]["robidlib_edition"] = "student"
    if info["student_provider"]:
        data["sphinx"]["config"].setdefault("html_theme_options", {})["repository_provider"] = info["student_provider"]
    data["title"] = f"{data.get('title', 'Book')} (student edition)"
    data.setdefault("execute", {})["execute_notebooks"] = "off"
    data["execute"].pop("cache", None)
    repo = data.setdefault("repository", {})
    for key in ("student_url", "student_branch", "student_provider"):
        repo.pop(key, None)
    repo["url"] = info["student_url"]
    repo["branch"] = branch or info["student_branch"]
    repo["path_to_book"] = ""
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / "_config.yml"
    out.write_text("# Generated by tools/editions.py from _config.yml: do not edit.\n" + yaml.safe_dump(data, sort_keys=False))
    return out


def student_page(text: str) -> str:
    """A page of the book without its instructor-only blocks."""
    return INSTRUCTOR_ONLY.sub("", text)


def _toc_entries() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    return [toc["root"]] + [c["file"] for part in toc.get("parts", []) for c in part.get("chapters", [])]


def toc_notebooks() -> list[Path]:
    """The chapter notebooks listed in ``_toc.yml``, in book order."""
    return [ROOT / f"{f}.ipynb" for f in _toc_entries() if (ROOT / f"{f}.ipynb").exists()]


def _book_files() -> list[Path]:
    """The non-notebook files the build reads: pages listed in the TOC, and the bibliography."""
    pages = [ROOT / f"{f}.md" for f in _toc_entries() if (ROOT / f"{f}.md").exists()]
    return pages + [ROOT / "_toc.yml", ROOT / "references.bib"]


def write_student_source(out_dir: Path, cache: Path = ROOT / "_build" / ".jupyter_cache",
                         branch: str | None = None, setup_source: str | None = None) -> Path:
    """Stage the student book in ``out_dir/src``: pages (without instructor-only blocks),
    configuration, and notebooks with the instructor build's outputs (from the execution
    cache) minus the solution cells."""
    from jupyter_cache import get_cache

    setup_source = setup_source if setup_source is not None else student_setup_source()
    src = out_dir / "src"
    if src.exists():
        shutil.rmtree(src)
    (src / "chapters").mkdir(parents=True)
    for f in _book_files():
        if f.suffix == ".md":
            (src / f.name).write_text(student_page(f.read_text(encoding="utf-8")), encoding="utf-8")
        else:
            shutil.copy2(f, src / f.name)
    for d in BOOK_DIRS:
        shutil.copytree(ROOT / d, src / d, ignore=shutil.ignore_patterns("__pycache__"))
    write_student_config(src, branch=branch)
    if not cache.exists():
        raise SystemExit(f"no execution cache at {cache}: build the instructor edition first (make book)")
    jc = get_cache(str(cache))
    for path in toc_notebooks():
        nb = nbformat.read(path, as_version=4)
        try:
            _, executed = jc.merge_match_into_notebook(nb)
        except KeyError:
            raise SystemExit(f"{path.name} has no up-to-date execution in {cache}: run make book first") from None
        remover = TagRemovePreprocessor(remove_cell_tags={SOLUTION_TAG}, enabled=True)
        executed, _ = remover.preprocess(executed, {})
        ensure_setup_cell(executed, setup_source)
        hide_pins(executed)
        nbformat.write(executed, src / "chapters" / path.name)
    return src


# --------------------------------------------------------------------------------------
# Versions and releases


def read_version(version_file: Path | None = None) -> str:
    """The package version, from its one place (``robidlib/_version.py``)."""
    version_file = version_file or VERSION_FILE
    m = re.search(r'__version__\s*=\s*"([^"]+)"', version_file.read_text())
    if not m:
        raise SystemExit(f"no __version__ in {version_file}")
    return m.group(1)


def set_version(version: str, version_file: Path | None = None) -> None:
    """Write ``version`` into ``robidlib/_version.py``."""
    check_version_format(version)
    version_file = version_file or VERSION_FILE
    text = version_file.read_text()
    version_file.write_text(re.sub(r'__version__\s*=\s*"[^"]+"', f'__version__ = "{version}"', text))


def check_version_format(version: str) -> None:
    if not VERSION_RE.match(version or ""):
        raise SystemExit(f"VERSION must look like X.Y.Z (e.g. 0.1.0), got {version!r}")


def check_changelog(version: str, changelog: Path = ROOT / "CHANGELOG.md") -> None:
    """Fail unless ``CHANGELOG.md`` has a ``## [X.Y.Z]`` or ``## X.Y.Z`` heading."""
    check_version_format(version)
    text = changelog.read_text() if changelog.exists() else ""
    if not re.search(rf"^##\s+\[?{re.escape(version)}\]?(\s|$)", text, flags=re.M):
        raise SystemExit(f"CHANGELOG.md has no entry for {version}: add a '## {version} - date' section first")


def _git(*args: str, repo: Path = ROOT, check: bool = True) -> str:
    out = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)
    if check and out.returncode:
        raise SystemExit(f"git {' '.join(args)} failed: {out.stderr.strip()}")
    return out.stdout.strip() if out.returncode == 0 else ""


def git_state(repo: Path = ROOT) -> dict:
    """The commit, whether the tree is clean (no change to tracked files, no untracked file
    outside .gitignore) and the branch."""
    commit = _git("rev-parse", "HEAD", repo=repo, check=False)
    status = _git("status", "--porcelain", repo=repo, check=False)
    return {"commit": commit, "clean": bool(commit) and not status, "status": status,
            "branch": _git("rev-parse", "--abbrev-ref", "HEAD", repo=repo, check=False)}


# The files a release commits ("Release X.Y.Z"): the version, and the CHANGELOG entry the
# instructor writes before `make release` (committed or not).
RELEASE_COMMITS = ("robidlib/_version.py", "CHANGELOG.md")


def _porcelain_path(line: str) -> str:
    path = line[3:].split(" -> ")[-1].strip()
    return path[1:-1] if path.startswith('"') and path.endswith('"') else path


def check_release(version: str, repo: Path = ROOT) -> None:
    """Everything that can be checked before a release writes anything: the version's
    format, its CHANGELOG entry, that neither ``vX.Y.Z`` nor ``vX.Y.Z-student`` exists, and a
    tree clean but for ``CHANGELOG.md`` (which the release commits): a release is the tagged
    commit it was built from, so nothing else may be uncommitted."""
    check_changelog(version, repo / "CHANGELOG.md")
    for tag in (f"v{version}", student_tag(version)):
        if _git("rev-parse", "--verify", "--quiet", f"refs/tags/{tag}", repo=repo, check=False):
            raise SystemExit(f"tag {tag} exists already: releases are not rebuilt under the same version")
    if not _git("rev-parse", "--verify", "--quiet", "HEAD", repo=repo, check=False):
        raise SystemExit(f"{repo} is not a git repository with a commit: a release is a tagged commit")
    status = subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True).stdout
    others = [line for line in status.splitlines() if line.strip() and _porcelain_path(line) not in RELEASE_COMMITS]
    if others:
        raise SystemExit("commit (or stash) these changes first: a release is built from a clean tree, where only "
                         "CHANGELOG.md may be changed (the release commits it with the version):\n  "
                         + "\n  ".join(others))


def lock_header(version: str, state: dict) -> str:
    impl = platform.python_implementation()
    return "\n".join([
        f"# {NAME} {version}: pip freeze of the environment this release was tested in",
        f"# Python {platform.python_version()} ({impl}) on {platform.platform()} ({platform.machine()})",
        f"# git commit {state.get('commit') or 'unknown'}" + ("" if state.get("clean") else " (with local changes)"),
        f"# built {date.today().isoformat()}; install with: pip install -r THIS_FILE, then pip install --no-deps -e .",
        "",
    ])


def write_dist(version: str, dist: Path, state: dict, tag: str = "", root: Path = ROOT) -> list[Path]:
    """Write the release files into ``dist`` from a finished ``make test`` (which builds both
    sites, the student bundle and both PDFs)."""
    build = root / "_build"
    student = build / "student"
    needed = [build / "html" / "index.html", student / "site" / "index.html", student / "student-bundle.zip",
              build / "pdf" / "book.pdf", build / "pdf" / "book-student.pdf"]
    missing = [str(p.relative_to(root)) for p in needed if not p.exists()]
    if missing:
        raise SystemExit(f"release files missing after the tests: {missing}")
    if dist.exists():
        shutil.rmtree(dist)
    dist.mkdir(parents=True)
    stem = f"{NAME}-{version}"
    out = []

    def tar(name: str, parent: Path, folder: str) -> None:
        target = dist / name
        subprocess.run(["tar", "-czf", str(target), "-C", str(parent), folder], check=True)
        out.append(target)

    tar(f"{stem}-site.tar.gz", build, "html")
    tar(f"{stem}-student-site.tar.gz", student, "site")
    for src, name in [(student / "student-bundle.zip", f"{stem}-student-bundle.zip"),
                      (build / "pdf" / "book.pdf", f"{stem}.pdf"),
                      (build / "pdf" / "book-student.pdf", f"{stem}-student.pdf")]:
        shutil.copy2(src, dist / name)
        out.append(dist / name)
    out.append(build_wheel(dist, root))
    freeze = subprocess.run([sys.executable, "-m", "pip", "freeze", "--exclude-editable"], check=True,
                            capture_output=True, text=True).stdout
    lock = dist / f"{stem}-requirements-lock.txt"
    lock.write_text(lock_header(version, state) + freeze)
    out.append(lock)
    manifest = dist / f"{stem}-release.txt"
    manifest.write_text("\n".join([
        f"release {version}", f"commit {state.get('commit')}", f"clean {state.get('clean')}",
        f"tag {tag or '(none: the tree had local changes)'}", f"python {platform.python_version()}",
        f"platform {platform.platform()}", "files:", *[f"  {p.name}" for p in out], ""]))
    out.append(manifest)
    return out


def release(version: str, make: str = "make", dist: Path | None = None, branch: str | None = None,
            root: Path = ROOT) -> int:
    """``make release VERSION=X.Y.Z``: check (:func:`check_release`), clean ``_build``, set
    the version and run every test and the PDFs; on any failure restore the version file and
    write nothing. Then commit the version and the CHANGELOG entry ("Release X.Y.Z"), create
    the annotated tag ``vX.Y.Z``, write ``dist/`` and commit the student bundle to the
    student branch, tagged ``vX.Y.Z-student``."""
    check_release(version, root)
    info = repository(book_config(root / "_config.yml"))
    branch = branch or info["student_branch"]
    state = git_state(root)
    version_file = root / "robidlib" / "_version.py"
    dist = dist or root / "dist"
    old_version_text = version_file.read_text()
    print(f"== release {version} from {state['commit']} on {state['branch']}", flush=True)
    for d in (root / "_build", root / "build"):
        shutil.rmtree(d, ignore_errors=True)
    ok = False
    try:
        set_version(version, version_file)
        # make test runs every test and builds both editions, the student bundle and the PDFs
        print("== release: make test", flush=True)
        subprocess.run([make, "--no-print-directory", "test"], cwd=root, check=True)
        ok = True
    except (subprocess.CalledProcessError, KeyboardInterrupt) as exc:
        print(f"release {version} failed ({exc}); nothing was written", file=sys.stderr)
        return 1
    finally:
        if not ok:
            version_file.write_text(old_version_text)
            print(f"restored {version_file}", file=sys.stderr)
    changed = [f for f in RELEASE_COMMITS if _git("status", "--porcelain", "--", f, repo=root)]
    if changed:
        _git("commit", "-m", f"Release {version}", "--", *changed, repo=root)
    tag = f"v{version}"
    _git("tag", "-a", tag, "-m", f"Release {version}", repo=root)
    state = dict(git_state(root), clean=True)
    files = write_dist(version, dist, state, tag, root)
    s_tag = student_tag(version)
    student = publish_student_branch(root / "_build" / "student" / "bundle", branch, message=f"Student edition {version}",
                                     repo=root, tag=s_tag)
    leftovers = [p for p in ("build",) if (root / p).exists()]
    if leftovers:
        raise SystemExit(f"release left {leftovers} behind")
    print(f"release {version}: {len(files)} files in {dist}")
    for p in files:
        print(f"  {p.name}")
    print(f"tag {tag} on {state['commit'][:12]}; student branch '{branch}' at {student[:12]}, tag {s_tag}")
    if info["student_url"] == info["url"]:
        print(f"publish with:  git push origin {state['branch']} {tag} {branch} {s_tag}")
    else:
        print(f"publish with:  git push origin {state['branch']} {tag}\n"
              f"          and  git push {info['student_url']} {branch} {s_tag}")
    return 0


# --------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    for name in ("student-config", "student-notebooks", "student-source", "wheel", "student-bundle"):
        p = sub.add_parser(name)
        p.add_argument("out_dir", type=Path)
        p.add_argument("--branch", default=None, help="the student branch (default: repository.student_branch)")
    p = sub.add_parser("lab-notebooks")
    p.add_argument("lab_dir", type=Path)
    p.add_argument("--no-execute", action="store_true", help="do not run the chapters missing from the cache")
    p = sub.add_parser("setup-cell")
    p.add_argument("notebooks", type=Path, nargs="+")
    p.add_argument("--check", action="store_true", help="only report notebooks without an up-to-date setup cell")
    p = sub.add_parser("publish-student-branch")
    p.add_argument("bundle", type=Path)
    p.add_argument("--branch", default=None)
    sub.add_parser("check-release").add_argument("version")
    sub.add_parser("set-version").add_argument("version")
    p = sub.add_parser("release")
    p.add_argument("version")
    p.add_argument("--make", default="make")
    p.add_argument("--branch", default=None)
    sub.add_parser("version")
    args = parser.parse_args(argv)
    if args.cmd == "student-config":
        print(write_student_config(args.out_dir, branch=args.branch))
    elif args.cmd == "student-notebooks":
        print(write_student_notebooks(args.out_dir))
    elif args.cmd == "wheel":
        print(build_wheel(args.out_dir))
    elif args.cmd == "student-bundle":
        print(write_student_bundle(args.out_dir))
    elif args.cmd == "student-source":
        print(write_student_source(args.out_dir, branch=args.branch))
    elif args.cmd == "lab-notebooks":
        if not args.no_execute and execute_chapters() != 0:
            print("make lab: some chapters failed to run (see above): their copies keep the glue roles where "
                  "numbers belong until they run", file=sys.stderr)
        for note in sync_lab_notebooks(args.lab_dir, lab_sources()):
            print(note)
    elif args.cmd == "setup-cell":
        source = default_setup_source()
        stale = []
        for path in args.notebooks:
            nb = nbformat.read(path, as_version=4)
            if args.check:
                if not has_setup_cell(nb, source):
                    stale.append(str(path))
            elif ensure_setup_cell(nb, source):
                nbformat.write(nb, path)
                print(f"updated {path}")
        if stale:
            print("no up-to-date setup cell in: " + ", ".join(stale), file=sys.stderr)
            return 1
    elif args.cmd == "publish-student-branch":
        print(publish_student_branch(args.bundle, args.branch or repository(book_config())["student_branch"]))
    elif args.cmd == "check-release":
        check_release(args.version)
    elif args.cmd == "set-version":
        set_version(args.version)
    elif args.cmd == "release":
        return release(args.version, make=args.make, branch=args.branch)
    elif args.cmd == "version":
        print(read_version())
    return 0


if __name__ == "__main__":
    sys.exit(main())
