"""Sphinx extension for the book.

- The book reads its version from robidlib (the one place it is set): Sphinx's
  ``version``/``release`` and the MyST substitution ``{{ version }}``; the substitutions
  ``{{ repository_url }}`` and ``{{ clone_command }}`` (a code block) come from
  ``repository.url`` in ``_config.yml``.
- Each page gets each script once: sphinx-thebe 0.3 registers its inline configuration
  script on every read of the environment, and the second copy raises "Identifier
  'THEBE_JS_URL' has already been declared" in the browser.
"""

from __future__ import annotations

from typing import Any


def _clone_command(url: str) -> str:
    """The shell lines that clone the course repository at ``url`` and open the labs."""
    folder = url.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git") or "course"
    return f"```bash\ngit clone {url}\ncd {folder}\nmake lab\n```"


def _set_version(app: Any, config: Any) -> None:
    from robidlib import __version__

    config.version = __version__
    config.release = __version__
    subs = dict(getattr(config, "myst_substitutions", None) or {})
    subs["version"] = __version__
    # the repository of _config.yml (`repository.url`), so that an instructor's copy of the
    # book tells students to clone the instructor's repository, not a placeholder
    url = (getattr(config, "html_theme_options", None) or {}).get("repository_url") or ""
    subs["repository_url"] = url or "the course repository"
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


def setup(app: Any) -> dict:
    app.connect("config-inited", _set_version)
    app.connect("html-page-context", _dedupe_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
