"""The built site is complete and self-contained for math."""
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def _pages(site):
    return sorted(site.rglob("*.html"))


def test_every_toc_entry_was_built(site):
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]] + [c["file"] for part in toc["parts"] for c in part["chapters"]]
    for f in files:
        assert (site / f"{f}.html").exists(), f"{f}.html missing from the built site"


def test_mathjax_is_served_from_the_site(site):
    pages = [p for p in _pages(site) if "_static" not in p.parts]
    assert pages
    srcs = set()
    for page in pages:
        html = page.read_text(encoding="utf-8")
        found = re.findall(r'<script[^>]+src="([^"]*mathjax[^"]*)"', html, flags=re.I)
        if "chapters" in page.parts or page.name == "intro.html":
            assert found, f"{page.relative_to(site)} loads no MathJax"
        for src in found:
            assert not src.startswith(("http:", "https:", "//")), f"{page.name} loads MathJax from {src}"
            target = (page.parent / src.split("?")[0]).resolve()
            assert target.is_file(), f"{page.relative_to(site)} references missing {src}"
            srcs.add(src.split("?")[0].split("/")[-1])
    assert srcs == {"tex-chtml.js"}
    # the fonts MathJax CHTML loads at run time are there too
    assert any((site / "_static" / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2").glob("*.woff"))


def test_chapter_one_has_its_figures(site):
    html = (site / "chapters" / "01_pendulum.html").read_text(encoding="utf-8")
    assert html.count("<img") >= 4


def test_no_page_loads_scripts_or_styles_from_outside_the_site(site):
    external = re.compile(r'<(?:script|link)\b[^>]*\b(?:src|href)="((?:https?:)?//[^"]+)"', re.I)
    for page in _pages(site):
        html = page.read_text(encoding="utf-8")
        hits = [u for u in external.findall(html) if not u.endswith((".html", "/"))]
        # <link rel=...> to external *pages* (e.g. licence) are fine; scripts and styles are not
        hits = [u for u in hits if re.search(r"\.(js|css|mjs)(\?|$)", u)]
        assert not hits, f"{page.relative_to(site)} loads {hits}"
