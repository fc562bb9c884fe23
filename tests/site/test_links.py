"""Link check of the built site: every internal link and anchor resolves.

One mechanism for the whole site (documented in README.md): a static crawl of every HTML
page with BeautifulSoup. External links (http, https, mailto) are not followed: CI has no
network, and the browser test proves that no page *loads* anything from outside.
"""
from urllib.parse import unquote, urlparse

from bs4 import BeautifulSoup


def _ids(path, cache):
    if path not in cache:
        soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
        cache[path] = {t.get("id") for t in soup.find_all(id=True)} | {t.get("name") for t in soup.find_all(attrs={"name": True})}
    return cache[path]


def test_no_broken_internal_link_or_anchor(site):
    pages = [p for p in site.rglob("*.html") if "_static" not in p.parts]
    cache: dict = {}
    broken = []
    checked = 0
    for page in pages:
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for a in soup.find_all("a", href=True):
            href = a["href"]
            url = urlparse(href)
            if url.scheme or href.startswith("//") or href.startswith("javascript:"):
                continue
            target = page if not url.path else (page.parent / unquote(url.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            checked += 1
            if not target.exists():
                broken.append(f"{page.relative_to(site)}: {href} (no file)")
            elif url.fragment and target.suffix == ".html" and unquote(url.fragment) not in _ids(target, cache):
                broken.append(f"{page.relative_to(site)}: {href} (no anchor)")
    assert checked > 100
    assert not broken, "\n".join(broken[:20])
