"""Sphinx extension for the book.

- The book reads its version from robidlib (the one place it is set): Sphinx's
  ``version``/``release`` and the MyST substitution ``{{ version }}``; the substitutions
  ``{{ repository_url }}`` and ``{{ clone_command }}`` (a code block) come from
  ``repository.url`` in ``_config.yml``. The student edition (``robidlib_edition =
  "student"``, set by ``tools/editions.py`` in the student site's configuration, whose
  repository is the student edition's) clones only the student branch
  (``--single-branch``) and sets the lab up as the student bundle's README does; its
  repository button opens the student branch, not the repository's default branch.
- Each page gets each script once: sphinx-thebe 0.3 registers its inline configuration
  script on every read of the environment, and the second copy raises "Identifier
  'THEBE_JS_URL' has already been declared" in the browser.
- Launch buttons follow the repository provider: Colab (and Deepnote) open notebooks from
  GitHub only, so for any other provider (GitLab, Bitbucket, a self-hosted forge) their
  buttons are dropped instead of sphinx-book-theme warning "Provider gitlab not supported on
  colab" on every page (which fails the ``-W`` build). Binder and JupyterHub work with any
  git URL. The provider is ``html_theme_options.repository_provider`` when set, else
  inferred from the host of ``repository_url``.
- The bibliography labels entries by author and year (style ``robidlib``), as the
  citations read, instead of pybtex's alpha labels: one citation style in the site and PDFs.
- pybtex looks its plugins up in the installed distributions' entry points on every call,
  and sphinxcontrib-bibtex asks for the plain-text backend once per citation: about 10 ms
  each in the test venv (190 distributions), 2-3 s of every build. The plugins the
  citations use are registered once at start-up through pybtex's ``register_plugin`` (the
  very classes the entry points name), so each later lookup is a dictionary access.
- ``make book`` executes the notebooks (``tools/execute_book.py``) and builds the book at
  the same time. With ``ROBIDLIB_EXECUTION_STATUS`` set to the executor's status file, the
  build waits, before reading a chapter notebook, until the executor has put it in the cache
  (so it is never executed twice), and stops with the executor's verdict when it failed.
  Without the variable (``jupyter-book build .`` by hand) nothing waits.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Callable

AWAIT_ENV = "ROBIDLIB_EXECUTION_STATUS"


def _clone_command(url: str) -> str:
    """The shell lines that clone the course repository at ``url`` and open the labs."""
    folder = url.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git") or "course"
    return f"```bash\ngit clone {url}\ncd {folder}\nmake lab\n```"


def _student_clone_command(url: str, branch: str) -> str:
    """The shell lines that clone only the student branch at ``url`` and open the labs as the
    student bundle's README does (the student branch holds the bundle)."""
    folder = url.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git") or "course"
    return (f"```bash\ngit clone --branch {branch} --single-branch {url} {folder}\ncd {folder}\n"
            "python3 -m venv .venv && .venv/bin/python -m pip install -r requirements.txt\n"
            ".venv/bin/jupyter lab chapters/\n```")


def _set_version(app: Any, config: Any) -> None:
    from robidlib import __version__

    config.version = __version__
    config.release = __version__
    subs = dict(getattr(config, "myst_substitutions", None) or {})
    subs["version"] = __version__
    # the repository of _config.yml (`repository.url`), so that an instructor's copy of the
    # book tells students to clone the instructor's repository, not a placeholder
    opts = getattr(config, "html_theme_options", None) or {}
    url = opts.get("repository_url") or ""
    subs["repository_url"] = url or "the course repository"
    if getattr(config, "robidlib_edition", "instructor") == "student":
        subs["clone_command"] = _student_clone_command(url, opts.get("repository_branch") or "student") if url \
            else "```bash\npython3 -m venv .venv && .venv/bin/python -m pip install -r requirements.txt\n```"
    else:
        subs["clone_command"] = _clone_command(url) if url else "```bash\nmake lab\n```"
    config.myst_substitutions = subs


def _script_key(js: Any) -> tuple:
    attrs = getattr(js, "attributes", {}) or {}
    # inline scripts come with filename None or "" depending on who registered them
    return (getattr(js, "filename", str(js)) or "", tuple(sorted((k, str(v)) for k, v in attrs.items())))


def _dedupe_scripts(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    seen: set = set()
    unique = []
    for js in context.get("script_files", []):
        key = _script_key(js)
        if key not in seen:
            seen.add(key)
            unique.append(js)
    context["script_files"] = unique


GITHUB_ONLY_BUTTONS = ("colab_url", "deepnote_url")


def repository_provider(theme_options: dict) -> str:
    """The provider of the book's repository: ``repository_provider`` when given, else the
    one the host names (``github``, ``gitlab``, ``bitbucket``), else ``""``."""
    provider = str(theme_options.get("repository_provider") or "").strip().lower()
    url = str(theme_options.get("repository_url") or "")
    if not provider and url:
        host = url.split("://", 1)[-1].split("/", 1)[0].lower()
        provider = next((p for p in ("github", "gitlab", "bitbucket") if p in host), "")
    return provider


def _launch_buttons_for_provider(app: Any, config: Any) -> None:
    opts = dict(getattr(config, "html_theme_options", None) or {})
    buttons = dict(opts.get("launch_buttons") or {})
    if not opts.get("repository_url") or repository_provider(opts) == "github":
        return
    dropped = [k for k in GITHUB_ONLY_BUTTONS if buttons.pop(k, None)]
    if dropped:
        from sphinx.util import logging

        logging.getLogger(__name__).info(
            f"bookinfo: no {', '.join(k[:-4] for k in dropped)} button: the repository is not on GitHub")
        opts["launch_buttons"] = buttons
        config.html_theme_options = opts


def branch_url(url: str, branch: str, provider: str) -> str:
    """The web page of ``branch`` of the repository at ``url`` (GitHub, GitLab, Bitbucket)."""
    url = url.rstrip("/")
    return {"gitlab": f"{url}/-/tree/{branch}", "bitbucket": f"{url}/src/{branch}"}.get(provider, f"{url}/tree/{branch}")


def _repository_button_on_the_branch(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """Student edition: the repository button opens the student branch (a bare repository
    URL opens the default branch, which holds the solutions when both share a repository)."""
    if getattr(app.config, "robidlib_edition", "instructor") != "student":
        return
    opts = getattr(app.config, "html_theme_options", None) or {}
    url, branch = str(opts.get("repository_url") or "").rstrip("/"), opts.get("repository_branch") or "student"
    if not url:
        return
    target = branch_url(url, branch, repository_provider(opts))

    def visit(buttons: list) -> None:
        for button in buttons:
            if button.get("label") == "source-repository-button" and str(button.get("url", "")).rstrip("/") == url:
                button["url"] = target
            visit(button.get("buttons") or [])

    visit(context.get("header_buttons") or [])


MARKS = "✓✔✕✖✗✘"


def _unicode_marks_in_latex(app: Any) -> None:
    """Under XeLaTeX keep the checks' ✔ and ✘ as Unicode characters (the FreeFont fonts have
    them). Sphinx 7 maps them to ``\\(\\pmb{\\checkmark}\\)`` in highlighted code and
    outputs, which breaks inside the ``sphinxVerbatim`` of a cell output."""
    if getattr(app.builder, "format", "") != "latex" or app.config.latex_engine not in ("xelatex", "lualatex"):
        return
    from sphinx.util import texescape

    for table in ("_tex_hlescape_map", "_tex_escape_map", "_tex_hlescape_map_without_unicode"):
        for ch in MARKS:
            getattr(texescape, table, {}).pop(ord(ch), None)


def author_year(entry: Any) -> tuple[str, str]:
    """``(authors, year)`` of a pybtex entry as the book cites it (sphinxcontrib-bibtex's
    author-year style: one or two last names, else the first one's and "et al.")."""
    from pybtex.backends.plaintext import Backend
    from pybtex.richtext import Text

    # render(Backend()) rather than render_as("text"): render_as looks the backend up through
    # the entry points of every installed distribution, each time (0.1-0.4 s a name)
    plain = Backend()
    people = entry.persons.get("author") or entry.persons.get("editor") or []
    names = [Text.from_latex(" ".join(p.prelast_names + p.last_names)).render(plain) for p in people]
    others = any(n.lower() == "others" for n in names)
    names = [n for n in names if n.lower() != "others"]
    if not names:
        authors = Text.from_latex(entry.fields.get("organization", entry.fields.get("title", ""))).render(plain)
    elif len(names) == 1 and not others:
        authors = names[0]
    elif len(names) == 2 and not others:
        authors = f"{names[0]} and {names[1]}"
    else:
        authors = f"{names[0]} et al."
    return authors, str(entry.fields.get("year", "n.d."))


BIBLIOGRAPHY_STYLE = "robidlib"


def _author_year_styles() -> None:
    """Register the bibliography style ``robidlib`` (``bibtex_default_style``): pybtex's alpha
    style with author-year labels ("Atkeson et al., 1986"; "a", "b" on equal ones), the
    same text the citations show, in the site and both PDFs, instead of alpha labels
    ("AAH86") beside author-year citations."""
    import pybtex.plugin
    from pybtex.style.formatting.alpha import Style as AlphaStyle
    from pybtex.style.labels import BaseLabelStyle

    class AuthorYearLabels(BaseLabelStyle):
        def format_labels(self, sorted_entries):
            labels = [", ".join(author_year(entry)) for entry in sorted_entries]
            counts = {label: labels.count(label) for label in labels}
            seen: dict[str, int] = {}
            for label in labels:
                if counts[label] > 1:
                    seen[label] = seen.get(label, 0) + 1
                    yield label + "abcdefghijklmnopqrstuvwxyz"[seen[label] - 1]
                else:
                    yield label

    class AuthorYearStyle(AlphaStyle):
        default_label_style = "robidlib_author_year"

    pybtex.plugin.register_plugin("pybtex.style.labels", "robidlib_author_year", AuthorYearLabels, force=True)
    pybtex.plugin.register_plugin("pybtex.style.formatting", BIBLIOGRAPHY_STYLE, AuthorYearStyle, force=True)


# (group, name) of the pybtex plugins sphinxcontrib-bibtex looks up per citation
PYBTEX_PLUGINS = (("pybtex.backends", "plaintext"), ("pybtex.backends", "docutils"))


def _register_pybtex_plugins(app: Any) -> None:
    import pybtex.plugin

    for group, name in PYBTEX_PLUGINS:
        pybtex.plugin.register_plugin(group, name, pybtex.plugin.find_plugin(group, name), force=True)


def _read_status(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):    # not written yet (the executor writes it atomically)
        return None


def _alive(pid: int) -> bool:
    """Whether process ``pid`` still runs. An executor that ended but is not yet reaped by
    the shell (which waits for it only after the build) is a zombie: not alive."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:   # Linux: the state field follows the parenthesised command name
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state != "Z"


def wait_for_execution(status_path: Path, notebook: Path, *, poll: float = 0.2, patience: float = 120.0,
                       sleep: Callable[[float], None] = time.sleep,
                       clock: Callable[[], float] = time.monotonic) -> str:
    """Block until the executor's status file says ``notebook`` is done; return why it stopped.

    Returns ``"done"`` when the notebook was executed (or found in the cache) by the executor,
    ``"not scheduled"`` when the executor finished without it (the build's own cache lookup
    then applies). Raises ``RuntimeError`` when the notebook failed, when the executor ended
    without finishing its status, or when no status file appeared within ``patience`` seconds.
    """
    target = os.path.realpath(notebook)
    start = clock()
    while True:
        status = _read_status(status_path)
        if status is None:
            if clock() - start > patience:
                raise RuntimeError(f"no execution status in {status_path} after {patience:.0f} s "
                                   "(is tools/execute_book.py running?)")
        else:
            if target in {os.path.realpath(p) for p in status.get("done", [])}:
                return "done"
            if target in {os.path.realpath(p) for p in status.get("failed", [])}:
                raise RuntimeError(f"{Path(target).name} failed in tools/execute_book.py "
                                   "(its traceback is printed with the executor's output)")
            if status.get("finished"):
                return "not scheduled"
            if not _alive(int(status.get("pid", 0))):
                raise RuntimeError(f"tools/execute_book.py (pid {status.get('pid')}) ended before "
                                   f"executing {Path(target).name}")
        sleep(poll)


def _await_execution(app: Any, docname: str, source: list) -> None:
    status = os.environ.get(AWAIT_ENV)
    path = Path(str(app.env.doc2path(docname)))
    if status and path.suffix == ".ipynb":
        wait_for_execution(Path(status), path)


def setup(app: Any) -> dict:
    # "instructor" (the book) or "student" (the student site: tools/editions.py sets it)
    app.add_config_value("robidlib_edition", "instructor", "env")
    _author_year_styles()
    app.connect("html-page-context", _repository_button_on_the_branch, priority=950)
    app.connect("builder-inited", _register_pybtex_plugins)
    app.connect("source-read", _await_execution)
    app.connect("builder-inited", _unicode_marks_in_latex)
    app.connect("config-inited", _set_version)
    app.connect("config-inited", _launch_buttons_for_provider)
    app.connect("html-page-context", _dedupe_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
