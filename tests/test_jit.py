"""Tests of robidlib._jit: where numba's cache goes, and the fallbacks when it cannot go anywhere.

The policy (module docstring of robidlib._jit): NUMBA_CACHE_DIR, else the user's cache folder,
else a private folder in the temporary directory, else an in-memory compile; never the installed
package. The read-only install itself (a wheel installed read-only, run by another user whose
home is read-only) is tested by ``tools/readonly_install.py`` (``make test``'s ``_readonly``).
"""

import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from _required import required

from robidlib import _jit

ROBIDLIB = Path(_jit.__file__).resolve().parent


def _add(x, out):
    """A small loop for numba (defined in a source file, so that it can be cached)."""
    for i in range(x.shape[0]):
        out[i] = x[i] + 1.0


SIG = "void(f8[::1], f8[::1])"


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """A clean decision for this test (and again for whatever runs after it)."""
    for var in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME", "NUMBA_DISABLE_JIT"):
        monkeypatch.delenv(var, raising=False)
    if "numba" in sys.modules:  # numba's own setting of the folder, read at its import
        monkeypatch.setattr(sys.modules["numba"].config, "CACHE_DIR", "")
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("HOME", str(blocker / "home"))  # nothing can be created below a file
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    decide = _jit.cache_dir          # (a test may replace it)
    decide.cache_clear()
    yield tmp_path
    decide.cache_clear()


def test_numba_cache_dir_comes_first(fresh, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(fresh / "numba-cache"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(fresh / "xdg"))
    assert _jit.cache_dir() == fresh / "numba-cache"
    assert (fresh / "numba-cache").is_dir() and not (fresh / "xdg").exists()


def test_numba_setting_counts_when_the_variable_is_not_set(fresh, monkeypatch):
    import numba

    monkeypatch.setattr(numba.config, "CACHE_DIR", str(fresh / "from-config"))
    assert _jit.cache_dir() == fresh / "from-config"


def test_user_cache_folder_next(fresh, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(fresh / "xdg"))
    assert _jit.cache_dir() == fresh / "xdg" / "robidlib" / "numba"
    _jit.cache_dir.cache_clear()
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(fresh / "home"))
    expected = fresh / "home" / (".cache" if sys.platform != "darwin" else "Library/Caches")
    assert _jit.cache_dir() == expected / "robidlib" / "numba"


def test_a_relative_xdg_cache_home_is_ignored(fresh, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    monkeypatch.setenv("HOME", str(fresh / "home"))
    expected = fresh / "home" / (".cache" if sys.platform != "darwin" else "Library/Caches")
    assert _jit.cache_dir() == expected / "robidlib" / "numba"


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX owners and modes")
def test_private_temporary_folder_when_nothing_else_is_writable(fresh, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(fresh / "a-file" / "cache"))   # unusable too
    monkeypatch.setenv("XDG_CACHE_HOME", str(fresh / "a-file" / "xdg"))
    got = _jit.cache_dir()
    parent = fresh / "tmp" / f"robidlib-{os.getuid()}"
    assert got == parent / "numba"
    assert stat.S_IMODE(os.lstat(parent).st_mode) == 0o700
    _jit.cache_dir.cache_clear()
    assert _jit.cache_dir() == got                       # an existing private folder is reused


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX owners and modes")
@pytest.mark.parametrize("plant", ["writable by others", "a file", "a link"])
def test_a_planted_temporary_folder_is_refused(fresh, plant):
    """Another user could have created robidlib-<uid> to feed us a pickled cache: refused, and
    the function is compiled in memory instead."""
    parent = fresh / "tmp" / f"robidlib-{os.getuid()}"
    if plant == "writable by others":
        parent.mkdir()
        parent.chmod(0o777)
    elif plant == "a file":
        parent.write_text("")
    else:
        (fresh / "elsewhere").mkdir(mode=0o700)
        parent.symlink_to(fresh / "elsewhere")
    assert _jit.cache_dir() is None
    assert not (fresh / "elsewhere" / "numba").exists()


def test_compiled_caches_in_the_chosen_folder_only(fresh, monkeypatch):
    required("numba")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(fresh / "cache"))
    f = _jit.compiled(_add, SIG)
    out = np.zeros(3)
    f(np.arange(3.0), out)
    assert out.tolist() == [1.0, 2.0, 3.0]
    files = sorted(p.name for p in (fresh / "cache").rglob("*") if p.is_file())
    assert any(n.startswith("test_jit._add-") and n.endswith(".nbi") for n in files), files
    assert any(n.endswith(".nbc") for n in files), files
    with pytest.raises(TypeError):                       # one signature only: nothing else compiles
        f(np.arange(3), out)


def test_compiled_in_memory_without_a_folder(fresh, monkeypatch):
    required("numba")
    monkeypatch.setattr(_jit, "cache_dir", lambda: None)
    f = _jit.compiled(_add, SIG)
    out = np.zeros(2)
    f(np.ones(2), out)
    assert out.tolist() == [2.0, 2.0]
    assert not any(fresh.rglob("*.nbi"))


def test_compiled_in_memory_when_the_cache_fails(fresh, monkeypatch):
    """numba's cache internals changed, or the disk is full: compile without a cache."""
    required("numba")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(fresh / "cache"))

    def broken(root):
        raise AttributeError("numba.core.caching changed")

    monkeypatch.setattr(_jit, "_function_cache", broken)
    f = _jit.compiled(_add, SIG)
    out = np.zeros(1)
    f(np.zeros(1), out)
    assert out.tolist() == [1.0]


def test_disabled_or_missing_numba_gives_none(monkeypatch):
    monkeypatch.setenv("NUMBA_DISABLE_JIT", "1")
    assert not _jit.jit_enabled()
    assert _jit.compiled(_add, SIG) is None
    monkeypatch.setenv("NUMBA_DISABLE_JIT", "0")
    monkeypatch.setitem(sys.modules, "numba", None)      # import numba -> ImportError
    assert not _jit.jit_enabled()
    assert _jit.compiled(_add, SIG) is None


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: _jit.compiled("not a function", SIG), TypeError, "func must be a Python function, got str"),
        (lambda: _jit.compiled(len, SIG), TypeError, "func must be a Python function, got builtin_function"),
        (lambda: _jit.compiled(_add, None), TypeError, "signature must be a numba signature string, got NoneType"),
    ],
)
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def _run(code: str, **env: str) -> str:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "XDG_"))}
    done = subprocess.run([sys.executable, "-c", code], env={**base, **env}, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_robidlib_loops_cache_in_the_user_folder_and_never_in_the_package(tmp_path):
    """A fresh process compiles the regressor and inverse dynamics into $XDG_CACHE_HOME; the
    next one loads them from there; nothing is written beside the installed modules."""
    required("numba")
    code = (
        "import numpy as np, importlib\n"
        "from robidlib import _jit\n"
        "from robidlib.models import ur5\n"
        "from robidlib.dynamics import inverse_dynamics, _compiled_rnea\n"
        "reg = importlib.import_module('robidlib.regressor')\n"
        "r, q = ur5(), np.zeros((2, 6))\n"
        "reg.regressor(r, q, q, q); inverse_dynamics(r, q, q, q)\n"
        "hits = sum(f.stats.cache_hits.total() for f in (reg._compiled_rows(), _compiled_rnea()))\n"
        "print(_jit.cache_dir(), hits)\n"
    )
    before = {p: p.stat().st_mtime_ns for p in ROBIDLIB.rglob("*")}
    folder = tmp_path / "xdg" / "robidlib" / "numba"
    assert _run(code, XDG_CACHE_HOME=str(tmp_path / "xdg")).split() == [str(folder), "0"]
    names = sorted(p.name.split("-")[0] for p in folder.rglob("*.nbi"))
    assert names == ["dynamics._rnea_rows", "regressor._regressor_rows"]
    assert _run(code, XDG_CACHE_HOME=str(tmp_path / "xdg")).split() == [str(folder), "2"]
    after = {p: p.stat().st_mtime_ns for p in ROBIDLIB.rglob("*")}
    new = [str(p) for p in after if p not in before or after[p] != before[p]]
    assert not [p for p in new if p.endswith((".nbi", ".nbc"))], new
