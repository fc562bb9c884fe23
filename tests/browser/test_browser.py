"""Browser test of the built site (`make test-browser`).

Playwright drives Debian's Chromium (`apt-get install -y chromium`) against `_build/html`
served on 127.0.0.1. Every page is visited; each must load with no console error, with every
image loaded and described (non-empty alt text), with its math typeset by the MathJax copy
served from the site, with solutions collapsed, and without a single request leaving
127.0.0.1. A screenshot of each chapter goes to `_build/screenshots/`, plus one of chapter 1
in the theme's dark mode, whose figures must stay opaque.
"""

from __future__ import annotations

import functools
import http.server
import os
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "_build" / "html"
SHOTS = ROOT / "_build" / "screenshots"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic"]

import playwright.sync_api as pw_api  # noqa: E402  (requirements-test.txt: missing fails)


def _pages():
    skip = {"_static", "_sources", "reports", "_images"}
    return sorted(p.relative_to(SITE).as_posix() for p in SITE.rglob("*.html") if not skip & set(p.relative_to(SITE).parts))


@pytest.fixture(scope="module")
def server():
    if not (SITE / "index.html").exists():
        msg = f"no built site at {SITE}: run `make book` first"
        if os.environ.get("ROBIDLIB_REQUIRE_SITE"):
            pytest.fail(msg)
        pytest.skip(msg)
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):  # keep the test output readable
            pass

    handler = functools.partial(Quiet, directory=str(SITE))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: install it with `apt-get install -y chromium`")
    with pw_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


def _visit(context, url):
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("response", lambda r: errors.append(f"HTTP {r.status} for {r.url}") if r.status >= 400 else None)
    page.goto(url, wait_until="networkidle")
    page.evaluate("async () => { if (window.MathJax && MathJax.startup) { await MathJax.startup.promise; } }")
    return page, errors


IMAGES_JS = """() => Array.from(document.images).map(i => ({src: i.getAttribute('src'), ok: i.complete && i.naturalWidth > 0, alt: (i.getAttribute('alt') || '').trim()}))"""
SOLUTIONS_JS = """() => Array.from(document.querySelectorAll('.solution.dropdown')).map(s => {
    const body = s.querySelector('section, .admonition-content, div:not(.admonition-title)');
    return body ? body.offsetParent !== null && body.getBoundingClientRect().height > 0 : false; })"""


def test_every_page(server, browser):
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    requests: list[str] = []
    failed: list[str] = []
    context.on("request", lambda r: requests.append(r.url))
    context.on("response", lambda r: failed.append(f"HTTP {r.status} {r.url}") if r.status >= 400 else None)
    pages = _pages()
    assert "index.html" in pages and any(p.startswith("chapters/") for p in pages)
    problems = []
    for rel in pages:
        page, errors = _visit(context, f"{server}/{rel}")
        if errors:
            problems.append(f"{rel}: console errors {errors[:3]}")
        for img in page.evaluate(IMAGES_JS):
            if not img["ok"]:
                problems.append(f"{rel}: image {img['src']} did not load")
            if not img["alt"]:
                problems.append(f"{rel}: image {img['src']} has no alt text")
        has_math = page.evaluate("() => document.querySelectorAll('.math, span.math, div.math').length")
        if has_math:
            typeset = page.evaluate("() => document.querySelectorAll('mjx-container').length")
            if typeset < has_math:
                problems.append(f"{rel}: {has_math} math elements but {typeset} typeset")
        text = page.evaluate("() => document.querySelector('main, article, body').innerText")
        for raw in ("$$", "\\(", "\\["):
            if raw in text:
                problems.append(f"{rel}: raw LaTeX {raw!r} visible")
        visible = page.evaluate(SOLUTIONS_JS)
        if any(visible):
            problems.append(f"{rel}: {sum(visible)} solution(s) open by default")
        if rel.startswith("chapters/"):
            page.screenshot(path=str(SHOTS / (Path(rel).stem + ".png")), full_page=False)
        page.close()
    outside = sorted({u for u in requests if urlparse(u).scheme in ("http", "https", "ws", "wss")
                      and urlparse(u).hostname != "127.0.0.1"})
    assert not outside, f"requests left 127.0.0.1: {outside[:10]}"
    assert not failed, f"failed requests: {failed[:10]}"
    assert not problems, "\n".join(problems)
    context.close()


def test_chapter_in_dark_mode_keeps_figures_readable(server, browser):
    context = browser.new_context(color_scheme="dark", viewport={"width": 1280, "height": 900})
    page, errors = _visit(context, f"{server}/chapters/01_pendulum.html")
    assert page.evaluate("() => document.documentElement.dataset.theme") == "dark"
    page.locator(".cell_output img").first.scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "dark-01_pendulum.png"))
    alphas = page.evaluate("""() => Array.from(document.querySelectorAll('.cell_output img')).map(img => {
        const c = document.createElement('canvas'); c.width = img.naturalWidth; c.height = img.naturalHeight;
        const g = c.getContext('2d'); g.drawImage(img, 0, 0);
        const d = g.getImageData(0, 0, c.width, c.height).data; let min = 255;
        for (let k = 3; k < d.length; k += 4 * 97) { min = Math.min(min, d[k]); }
        return min; })""")
    assert alphas and min(alphas) == 255, f"figures with transparent pixels in dark mode: {alphas}"
    assert not errors
    context.close()
