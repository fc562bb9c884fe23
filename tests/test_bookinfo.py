"""The book's Sphinx extension: substitutions taken from robidlib and _config.yml."""
import sys
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "_ext"))

import bookinfo  # noqa: E402


def _config(url):
    return SimpleNamespace(myst_substitutions={"other": "kept"},
                           html_theme_options={"repository_url": url} if url is not None else {})


def test_clone_command_uses_the_configured_repository():
    cfg = _config("https://gitlab.example.org/course/robot-id.git")
    bookinfo._set_version(None, cfg)
    subs = cfg.myst_substitutions
    assert subs["other"] == "kept" and subs["version"] == cfg.version
    assert subs["repository_url"] == "https://gitlab.example.org/course/robot-id.git"
    assert "git clone https://gitlab.example.org/course/robot-id.git\ncd robot-id\nmake lab" in subs["clone_command"]
    assert subs["clone_command"].startswith("```bash\n") and subs["clone_command"].endswith("\n```")


def test_without_a_repository_the_page_still_reads():
    cfg = _config(None)
    bookinfo._set_version(None, cfg)
    assert cfg.myst_substitutions["repository_url"] == "the course repository"
    assert "git clone" not in cfg.myst_substitutions["clone_command"]
