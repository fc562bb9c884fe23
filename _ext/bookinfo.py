"""Sphinx extension for the book.

- The book reads its version from robidlib (the one place it is set): Sphinx's
  ``version``/``release`` and the MyST substitution ``{{ version }}``.
- Each page gets each script once: sphinx-thebe 0.3 registers its inline configuration
  script on every read of the environment, and the second copy raises "Identifier
  'THEBE_JS_URL' has already been declared" in the browser.
"""

from __future__ import annotations

from typing import Any


def _set_version(app: Any, config: Any) -> None:
    from robidlib import __version__

    config.version = __version__
    config.release = __version__
    subs = dict(getattr(config, "myst_substitutions", None) or {})
    subs["version"] = __version__
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


def setup(app: Any) -> dict:
    app.connect("config-inited", _set_version)
    app.connect("html-page-context", _dedupe_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
