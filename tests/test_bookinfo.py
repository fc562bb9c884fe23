"""The book's Sphinx extension: substitutions taken from robidlib and _config.yml."""
import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

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


def test_student_edition_clones_only_the_student_branch_and_sets_up_as_the_bundle_does():
    cfg = _config("https://github.com/course/lab")
    cfg.html_theme_options["repository_branch"] = "student"
    cfg.robidlib_edition = "student"
    bookinfo._set_version(None, cfg)
    clone = cfg.myst_substitutions["clone_command"]
    assert "git clone --branch student --single-branch https://github.com/course/lab lab\ncd lab\n" in clone
    assert "pip install -r requirements.txt" in clone and "jupyter lab chapters/" in clone and "make lab" not in clone


@pytest.mark.parametrize("provider, expected", [("github", "https://h/o/r/tree/student"),
                                                ("gitlab", "https://h/o/r/-/tree/student"),
                                                ("bitbucket", "https://h/o/r/src/student")])
def test_student_repository_button_opens_the_branch(provider, expected):
    app = SimpleNamespace(config=SimpleNamespace(robidlib_edition="student", html_theme_options={
        "repository_url": "https://h/o/r", "repository_branch": "student", "repository_provider": provider}))
    context = {"header_buttons": [{"type": "group", "buttons": [
        {"label": "source-repository-button", "url": "https://h/o/r"},
        {"label": "source-issues-button", "url": "https://h/o/r/issues/new"}]}]}
    bookinfo._repository_button_on_the_branch(app, "intro", "page.html", context, None)
    buttons = context["header_buttons"][0]["buttons"]
    assert buttons[0]["url"] == expected and buttons[1]["url"] == "https://h/o/r/issues/new"
    app.config.robidlib_edition = "instructor"
    context = {"header_buttons": [{"label": "source-repository-button", "url": "https://h/o/r"}]}
    bookinfo._repository_button_on_the_branch(app, "intro", "page.html", context, None)
    assert context["header_buttons"][0]["url"] == "https://h/o/r"


def test_without_a_repository_the_page_still_reads():
    cfg = _config(None)
    bookinfo._set_version(None, cfg)
    assert cfg.myst_substitutions["repository_url"] == "the course repository"
    assert "git clone" not in cfg.myst_substitutions["clone_command"]


def test_pybtex_plugins_are_registered_once_and_found_without_entry_points(monkeypatch):
    import pybtex.plugin

    expected = {key: pybtex.plugin.find_plugin(*key) for key in bookinfo.PYBTEX_PLUGINS}
    bookinfo._register_pybtex_plugins(None)

    def no_scan(**kwargs):
        raise AssertionError(f"entry points scanned for {kwargs}")

    monkeypatch.setattr(pybtex.plugin, "entry_points", no_scan, raising=False)
    for key, klass in expected.items():
        assert pybtex.plugin.find_plugin(*key) is klass
    # a plugin the book does not register is still looked up (and found) the normal way
    monkeypatch.undo()
    assert pybtex.plugin.find_plugin("pybtex.style.formatting", "plain").__name__ == "Style"


# ---- make book: the build waits for tools/execute_book.py (status file, no real waiting) ----

import json  # noqa: E402
import os  # noqa: E402



def _status(path, **kw):
    data = {"pid": os.getpid(), "done": [], "failed": [], "finished": False}
    data.update(kw)
    path.write_text(json.dumps(data))


class _Clock:
    """A fake clock whose sleep runs a callback: the executor's progress, no real waiting."""

    def __init__(self, on_sleep=None):
        self.now, self.sleeps, self.on_sleep = 0.0, 0, on_sleep

    def sleep(self, dt):
        self.now += dt
        self.sleeps += 1
        if self.on_sleep:
            self.on_sleep(self.sleeps)


def _wait(status, nb, clock, **kw):
    return bookinfo.wait_for_execution(status, nb, sleep=clock.sleep, clock=lambda: clock.now, **kw)


def test_the_build_waits_until_the_notebook_is_done(tmp_path):
    nb, status = tmp_path / "ch.ipynb", tmp_path / "status.json"
    _status(status, done=[str(tmp_path / "other.ipynb")])
    clock = _Clock(lambda k: k == 3 and _status(status, done=[str(nb)]))
    assert _wait(status, nb, clock) == "done"
    assert clock.sleeps == 3


def test_a_failed_notebook_stops_the_build(tmp_path):
    nb, status = tmp_path / "ch.ipynb", tmp_path / "status.json"
    _status(status, failed=[str(nb)])
    with pytest.raises(RuntimeError, match="ch.ipynb failed in tools/execute_book.py"):
        _wait(status, nb, _Clock())


def test_a_notebook_the_executor_did_not_run_is_left_to_the_build(tmp_path):
    nb, status = tmp_path / "ch.ipynb", tmp_path / "status.json"
    _status(status, finished=True)
    assert _wait(status, nb, _Clock()) == "not scheduled"


def test_an_executor_that_died_stops_the_build(tmp_path):
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    nb, status = tmp_path / "ch.ipynb", tmp_path / "status.json"
    _status(status, pid=int(dead.stdout))
    with pytest.raises(RuntimeError, match=r"ended before executing ch.ipynb"):
        _wait(status, nb, _Clock())


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_an_executor_that_ended_unreaped_is_not_alive(tmp_path):
    # make runs the executor in the background and reaps it only after the build: a killed
    # executor is a zombie until then, and kill(pid, 0) still succeeds on a zombie
    import subprocess
    import sys
    import time

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        stat = Path(f"/proc/{child.pid}/stat")
        deadline = time.monotonic() + 60
        while stat.read_text().rsplit(")", 1)[1].split()[0] != "Z":
            assert time.monotonic() < deadline, "the child never ended"
            time.sleep(0.01)
        assert bookinfo._alive(child.pid) is False
        nb, status = tmp_path / "ch.ipynb", tmp_path / "status.json"
        _status(status, pid=child.pid)
        with pytest.raises(RuntimeError, match="ended before executing ch.ipynb"):
            _wait(status, nb, _Clock())
    finally:
        child.wait()
    assert bookinfo._alive(os.getpid()) is True


def test_a_missing_or_half_written_status_is_waited_for_with_patience(tmp_path):
    nb, status = tmp_path / "ch.ipynb", tmp_path / "status.json"
    status.write_text('{"pid": ')                     # half written: read again later
    clock = _Clock(lambda k: k == 5 and _status(status, done=[str(nb)]))
    assert _wait(status, nb, clock) == "done"
    status.unlink()
    with pytest.raises(RuntimeError, match="no execution status"):
        _wait(status, nb, _Clock(), patience=1.0)


def test_execute_book_writes_the_status_the_build_reads(tmp_path):
    spec = importlib.util.spec_from_file_location("execute_book", ROOT / "tools" / "execute_book.py")
    execute_book = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(execute_book)
    status, nb = tmp_path / "out" / "status.json", tmp_path / "ch.ipynb"
    execute_book.write_status(status, done=[str(nb)], failed=[], finished=False)
    assert json.loads(status.read_text())["pid"] == os.getpid()
    assert not (tmp_path / "out" / "status.json.tmp").exists()
    assert _wait(status, nb, _Clock()) == "done"
