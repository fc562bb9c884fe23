"""A student notebook in a real JupyterLab (`make test-browser`).

The test starts JupyterLab from the course environment (the one `make lab` uses, with
jupyterlab-myst) on 127.0.0.1 with a random token and no browser (`--allow-root` when run as
root, as `make lab` does), opens chapter 1 of the student edition
(_build/student/notebooks, written by `make student`) in Debian's Chromium through
Playwright, runs every cell ("Run All") and checks what a student sees: no cell raised, every
exercise stub printed ✘, the MyST markup is rendered (an exercise box with its title,
typeset math, citations and cross-references resolved, no raw ``:::``, ```` ```{ ```` or
``{cite`` text), and no request left 127.0.0.1. A screenshot goes to
_build/screenshots/jupyterlab-01_pendulum.png.
"""
from __future__ import annotations

import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "_build" / "student" / "notebooks" / "01_pendulum.ipynb"
SHOTS = ROOT / "_build" / "screenshots"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic"]

import playwright.sync_api as pw_api  # noqa: E402  (requirements-test.txt: missing fails)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def jupyterlab(tmp_path_factory):
    if not NOTEBOOK.exists():
        msg = f"no student notebook at {NOTEBOOK}: run `make student` first"
        if os.environ.get("ROBIDLIB_REQUIRE_SITE"):
            pytest.fail(msg)
        pytest.skip(msg)
    work = tmp_path_factory.mktemp("lab")
    shutil.copy2(NOTEBOOK, work / NOTEBOOK.name)
    port, token = _free_port(), secrets.token_hex(16)
    state = tmp_path_factory.mktemp("jupyter-state")
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(state / "runtime"), JUPYTERLAB_SETTINGS_DIR=str(state / "settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(state / "workspaces"), JUPYTER_CONFIG_DIR=str(state / "config"))
    cmd = [str(Path(sys.executable).with_name("jupyter")), "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
           f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={work}", "--LabApp.expose_app_in_browser=True",
           "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    if hasattr(os, "getuid") and os.getuid() == 0:
        cmd.append("--allow-root")
    # every cell in the page (JupyterLab 4 otherwise renders only the cells near the viewport)
    settings = state / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    (settings / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    log = open(state / "server.log", "w")
    proc = subprocess.Popen(cmd, cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            if proc.poll() is not None:
                pytest.fail(f"JupyterLab exited: {(state / 'server.log').read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2):
                    break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("JupyterLab did not answer within 120 s")
        yield base, token, work
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


CELLS_JS = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const cells = panel.content.model.cells;
  const out = [];
  for (let i = 0; i < cells.length; i++) {
    const c = cells.get(i);
    const j = c.toJSON();
    out.push({type: j.cell_type, count: j.execution_count ?? null, tags: (j.metadata.tags || []),
              outputs: (j.outputs || []).map(o => ({type: o.output_type, name: o.ename || o.name || '',
                                                      text: [].concat(o.text || []).join('')}))});
  }
  return out;
}"""

BUSY_JS = """() => { const p = window.jupyterapp.shell.currentWidget;
  const k = p && p.sessionContext && p.sessionContext.session && p.sessionContext.session.kernel;
  return k ? k.status : 'none'; }"""


def test_student_notebook_in_jupyterlab(jupyterlab):
    base, token, work = jupyterlab
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: install it with `apt-get install -y chromium`")
    requests: list[str] = []
    with pw_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        context.on("request", lambda r: requests.append(r.url))
        page = context.new_page()
        page_errors: list[str] = []
        page.on("pageerror", lambda e: page_errors.append(str(e)))
        page.goto(f"{base}/lab/tree/{NOTEBOOK.name}?token={token}", wait_until="domcontentloaded")
        page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
                               " && window.jupyterapp.shell.currentWidget.content"
                               " && window.jupyterapp.shell.currentWidget.content.model", timeout=120_000)
        page.wait_for_function(f"() => ({BUSY_JS})() === 'idle'", timeout=120_000)
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        # Run All stops at the first error; done when the kernel stays idle (or all ran)
        deadline, idle = time.monotonic() + 600, 0
        while time.monotonic() < deadline:
            time.sleep(2)
            cells = page.evaluate(CELLS_JS)
            idle = idle + 1 if page.evaluate(BUSY_JS) == "idle" else 0
            if all(c["count"] is not None for c in cells if c["type"] == "code") or idle >= 5:
                break
        else:
            pytest.fail("Run All did not finish within 600 s")
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:render-all-markdown')")
        page.wait_for_timeout(2000)
        page.evaluate("async () => { if (window.MathJax && MathJax.startup) { await MathJax.startup.promise; } }")
        # the first exercise, for the screenshot
        SHOTS.mkdir(parents=True, exist_ok=True)
        # jupyterlab-myst renders each markdown cell into a `.myst` widget, an {exercise} into
        # an <aside class="myst-exercise"> titled "Exercise N (title)", math with KaTeX
        exercise = page.locator(".jp-MarkdownCell .myst aside.myst-exercise", has_text="Coulomb friction").first
        exercise.scroll_into_view_if_needed(timeout=20_000)
        page.screenshot(path=str(SHOTS / "jupyterlab-01_pendulum.png"))
        markdown = page.evaluate("() => Array.from(document.querySelectorAll('.jp-MarkdownCell .myst'))"
                                 ".map(e => e.innerText)")
        exercise_title = exercise.locator(".myst-exercise-title").inner_text()
        exercise_text = exercise.inner_text()
        math = page.evaluate("() => document.querySelectorAll('.jp-MarkdownCell .myst .katex').length")
        browser.close()

    problems = []
    errors = [(i, o["name"]) for i, c in enumerate(cells) for o in c["outputs"] if o["type"] == "error"]
    if errors:
        problems.append(f"cells raised in JupyterLab (cell index, exception): {errors}")
    not_run = [i for i, c in enumerate(cells) if c["type"] == "code" and c["count"] is None]
    if not_run:
        problems.append(f"Run All did not reach cells {not_run}")
    stubs = [c for c in cells if "exercise-stub" in c["tags"]]
    silent = [i for i, c in enumerate(cells) if "exercise-stub" in c["tags"]
              and "\u2718" not in "".join(o["text"] for o in c["outputs"])]
    if len(stubs) < 3 or silent:
        problems.append(f"{len(stubs)} stubs; cells {silent} did not print ✘")
    text = "\n".join(markdown)
    # the student notebooks carry the glued numbers pasted in (tools/editions.py paste_glue)
    raw = [s for s in (":::", "```{", "{cite", "{eq}`", "{ref}`", "{doc}`", "{term}`", ":label:", "{glue", "glue:text")
           if s in text]
    if not markdown or "Coulomb friction" not in text or raw:
        problems.append(f"raw MyST markup visible in JupyterLab: {raw}")
    if not re.fullmatch(r"Exercise \d+ \(Coulomb friction\)", exercise_title.strip()) or "```" in exercise_text:
        problems.append(f"the exercise directive is not rendered as an exercise box: {exercise_text[:200]!r}")
    if math <= 10:
        problems.append(f"only {math} typeset formulas in the markdown cells")
    outside = sorted({u for u in requests if urlparse(u).scheme in ("http", "https", "ws", "wss")
                      and urlparse(u).hostname != "127.0.0.1"})
    if outside:
        problems.append(f"JupyterLab requests left 127.0.0.1: {outside[:10]}")
    if page_errors:
        problems.append(f"page errors: {page_errors[:5]}")
    assert not problems, "\n".join(problems)
