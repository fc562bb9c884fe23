"""Writers never write into the installed package and never replace or create anything unasked.

Every writer of robidlib goes through ``robidlib._io.write_text``; these tests check the rules
on each writer (``save_excitation``, ``save_filter_runs``, ``save_mixed_study``): it writes
where told, refuses to replace an existing file unless ``overwrite=True``, refuses a missing
folder, has no default destination, and refuses the installed package (simulated, and for
real on a copy of the package laid out as an install). A scan of the source checks that no
other module opens a file for writing.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import robidlib
from robidlib import _io
from robidlib.benchmark import ResultTable
from robidlib.estimation import records
from robidlib.multibody import study
from robidlib.trajectories import EXCITATION_DIR, FourierTrajectory, load_excitation, save_excitation

PKG = Path(robidlib.__file__).resolve().parent
FT = FourierTrajectory(wf=1.0, a=[[0.5, 0.2]], b=[[0.0, -0.1]], q0=[0.3])


def _runs():
    return records.load_filter_runs("redundant_5dof_ekf")


def _table():
    return ResultTable([{"chain": "simple", "value": 1.0}], meta={"study": "mixed_study"})


# each writer as (write(folder, **kw) -> path, the shipped folder of its kind)
WRITERS = {
    "save_excitation": (lambda d, **kw: save_excitation(FT, "demo", directory=d, **kw), EXCITATION_DIR),
    "save_filter_runs": (lambda d, **kw: records.save_filter_runs(_runs(), "demo", directory=d, **kw),
                         records.RUNS_DIR),
    "save_mixed_study": (lambda d, **kw: study.save_mixed_study(_table(), Path(d) / "demo.json", **kw),
                         study.STUDY_FILE.parent),
}


@pytest.mark.parametrize("writer", WRITERS)
def test_a_writer_writes_where_told_and_never_replaces_unasked(writer, tmp_path):
    write, _ = WRITERS[writer]
    path = write(tmp_path)
    assert path.parent == tmp_path and path.is_file()
    first = path.read_text(encoding="utf-8")
    path.write_text("changed by hand", encoding="utf-8")
    with pytest.raises(FileExistsError, match="overwrite=True"):
        write(tmp_path)
    assert path.read_text(encoding="utf-8") == "changed by hand"          # untouched
    assert write(tmp_path, overwrite=True) == path
    assert path.read_text(encoding="utf-8") == first
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]      # no temporary file left
    with pytest.raises(TypeError, match="overwrite"):
        write(tmp_path, overwrite="yes")


@pytest.mark.parametrize("writer", WRITERS)
def test_a_writer_creates_no_folder(writer, tmp_path):
    write, _ = WRITERS[writer]
    with pytest.raises(FileNotFoundError, match="does not exist; create it first"):
        write(tmp_path / "missing" / "deeper")
    assert list(tmp_path.iterdir()) == []


def test_writers_have_no_default_destination():
    with pytest.raises(TypeError, match="directory"):
        save_excitation(FT, "demo")                                      # noqa - the argument is required
    with pytest.raises(TypeError, match="directory"):
        save_excitation(FT, "demo", directory=None)
    with pytest.raises(TypeError, match="directory"):
        records.save_filter_runs(_runs(), "demo", directory=None)
    with pytest.raises(TypeError, match="path"):
        study.save_mixed_study(_table(), None)


@pytest.mark.parametrize("writer", WRITERS)
def test_a_writer_refuses_the_installed_package(writer, monkeypatch):
    """As installed (no source tree around it), the package folder is refused, overwrite or not."""
    write, shipped = WRITERS[writer]
    before = {p: p.stat().st_mtime_ns for p in shipped.iterdir()}
    monkeypatch.setattr(_io, "is_source_checkout", lambda pkg=None: False)
    for kw in ({}, {"overwrite": True}):
        with pytest.raises(ValueError, match="inside the installed robidlib package"):
            write(shipped, **kw)
    assert {p: p.stat().st_mtime_ns for p in shipped.iterdir()} == before


def test_a_link_into_the_package_is_the_package(tmp_path, monkeypatch):
    monkeypatch.setattr(_io, "is_source_checkout", lambda pkg=None: False)
    link = tmp_path / "shortcut"
    link.symlink_to(EXCITATION_DIR, target_is_directory=True)
    with pytest.raises(ValueError, match="installed robidlib package"):
        save_excitation(FT, "demo", directory=link, overwrite=True)


def test_the_source_tree_is_where_the_recipes_write(monkeypatch, tmp_path):
    """In the project's repository the recipes replace the shipped files, explicitly."""
    assert _io.is_source_checkout()                     # the tests run on the repository
    fake = tmp_path / "robidlib"
    fake.mkdir()
    assert not _io.is_source_checkout(fake)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "robidlib"\n')
    assert _io.is_source_checkout(fake)


def test_an_installed_copy_refuses_writes_into_itself_and_still_reads_its_data(tmp_path):
    """A copy of the package laid out as an install (site-packages, no pyproject.toml beside it)."""
    site = tmp_path / "site-packages"
    shutil.copytree(PKG, site / "robidlib", ignore=shutil.ignore_patterns("__pycache__", "datasets"))
    shutil.copytree(PKG / "datasets", site / "robidlib" / "datasets",
                    ignore=shutil.ignore_patterns("__pycache__", "data"))
    code = r"""
import sys
import robidlib
from robidlib.trajectories import EXCITATION_DIR, FourierTrajectory, load_excitation, save_excitation
assert robidlib.__file__.startswith(sys.argv[1]), robidlib.__file__
traj, meta = load_excitation("planar_2r_fourier")          # the shipped data still load
ft = FourierTrajectory(wf=1.0, a=[[0.5, 0.2]], b=[[0.0, -0.1]], q0=[0.3])
try:
    save_excitation(ft, "planar_2r_fourier", directory=EXCITATION_DIR, overwrite=True)
except ValueError as exc:
    print("refused:", exc)
"""
    env = {**os.environ, "PYTHONPATH": str(site), "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    out = subprocess.run([sys.executable, "-c", code, str(site)], capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "refused:" in out.stdout and "installed robidlib package" in out.stdout
    shipped = site / "robidlib" / "data" / "excitations" / "planar_2r_fourier.json"
    assert shipped.read_bytes() == (EXCITATION_DIR / "planar_2r_fourier.json").read_bytes()


def test_write_text_rules(tmp_path):
    p = _io.write_text(tmp_path / "a.txt", "one")
    assert p.read_text() == "one"
    with pytest.raises(FileExistsError):
        _io.write_text(p, "two")
    assert _io.write_text(str(p), "two", overwrite=True).read_text() == "two"
    with pytest.raises(ValueError, match="is a folder"):
        _io.write_text(tmp_path, "x", overwrite=True)
    for bad, exc in ((3, TypeError), (b"a.txt", TypeError), (True, TypeError), ("", ValueError), (None, TypeError)):
        with pytest.raises(exc, match="path"):
            _io.write_text(bad, "x")
    with pytest.raises(TypeError, match="text"):
        _io.write_text(tmp_path / "b.txt", b"bytes")


def test_a_failed_write_leaves_no_file(tmp_path, monkeypatch):
    real_open = open

    def failing_open(path, mode="r", *a, **kw):
        fh = real_open(path, mode, *a, **kw)
        if "x" in mode:
            def write(_):
                raise OSError("disk full")
            fh.write = write
        return fh

    monkeypatch.setattr("builtins.open", failing_open)
    for overwrite in (False, True):
        with pytest.raises(OSError, match="disk full"):
            _io.write_text(tmp_path / "c.txt", "x", overwrite=overwrite)
        assert list(tmp_path.iterdir()) == []


def test_readers_of_shipped_data_keep_working():
    traj, meta = load_excitation("planar_2r_fourier")
    assert isinstance(traj, FourierTrajectory) and "recipe" in meta
    assert "redundant_5dof_ekf" in records.stored_filter_runs()
    assert study.load_mixed_study().meta["study"] == "mixed_study"


# --------------------------------------------------------------------------- nothing else writes
_WRITE_ATTRS = {"write_text", "write_bytes", "mkdir", "makedirs", "tofile", "to_csv", "savefig", "touch",
                "symlink_to", "hardlink_to"}
_MODULE_ATTRS = {"os": {"replace", "rename", "remove", "unlink", "makedirs", "mkdir", "rmdir", "link", "symlink"},
                 "shutil": {"copy", "copy2", "copyfile", "copytree", "move", "rmtree"},
                 "np": {"save", "savez", "savez_compressed", "savetxt"}, "numpy": {"save", "savez", "savetxt"},
                 "json": {"dump"}, "pickle": {"dump"}, "yaml": {"dump", "safe_dump"}}


def _writes(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Attribute):
            base = f.value.id if isinstance(f.value, ast.Name) else None
            if f.attr in _WRITE_ATTRS or f.attr in _MODULE_ATTRS.get(base, ()):
                lines.append(node.lineno)
                continue
        is_open = (isinstance(f, ast.Name) and f.id == "open") or (isinstance(f, ast.Attribute) and f.attr == "open")
        if is_open:
            path_method = isinstance(f, ast.Attribute) and not (isinstance(f.value, ast.Name)
                                                                 and f.value.id in ("io", "codecs", "gzip"))
            k = 0 if path_method else 1                   # Path.open(mode) or open(file, mode)
            mode = node.args[k] if len(node.args) > k else next((kw.value for kw in node.keywords
                                                                  if kw.arg == "mode"), None)
            if isinstance(mode, ast.Constant) and isinstance(mode.value, str) and set(mode.value) & set("wax+"):
                lines.append(node.lineno)
            elif mode is not None and not isinstance(mode, ast.Constant):
                lines.append(node.lineno)                 # a computed mode: could write
    return lines


#: Modules that may write outside ``robidlib._io`` (path relative to the package -> why). A
#: writer of the user's results goes through ``_io.write_text``; only machinery that writes
#: where no caller chooses (e.g. a compiler cache in the user's cache folder, never the
#: package) belongs here, with the reason.
ALLOWED_WRITERS: dict[str, str] = {
    # numba's compilation cache: _jit creates its folder (never inside the installed package,
    # private to the user when in a shared temporary folder; tests/test_jit.py and make test's
    # read-only stage check where it goes) and probes it with a temporary file; it writes no
    # user file.
    "_jit.py": "numba's cache folder (tests/test_jit.py, the read-only install stage)",
}


def test_no_module_but_io_writes_files():
    found = []
    for path in sorted(PKG.rglob("*.py")):
        rel = str(path.relative_to(PKG))
        if rel == "_io.py" or rel in ALLOWED_WRITERS:
            continue
        lines = _writes(ast.parse(path.read_text(encoding="utf-8")))
        found += [f"{path.relative_to(PKG.parent)}:{n}" for n in lines]
    assert not found, ("these lines write files; write through robidlib._io.write_text (where the caller says, "
                       "never into the installed package, never replacing unasked):\n" + "\n".join(found))


def test_the_scan_finds_writes():
    src = ("open(p, 'w')\nPath(p).write_text('x')\nnp.save(p, a)\njson.dump(d, fh)\nos.makedirs(p)\n"
           "p.open('a')\nopen(p)\nopen(p, 'rb')\n'x'.replace('a', 'b')\n")
    assert _writes(ast.parse(src)) == [1, 2, 3, 4, 5, 6]


def test_make_folder_creates_only_outside_the_installed_package(tmp_path, monkeypatch):
    made = _io.make_folder(tmp_path / "out" / "deeper")
    assert made.is_dir() and _io.make_folder(made) == made             # an existing folder is fine
    (tmp_path / "f").write_text("x")
    with pytest.raises(ValueError, match="not a folder"):
        _io.make_folder(tmp_path / "f")
    with pytest.raises(TypeError, match="out"):
        _io.make_folder(3, "out")
    monkeypatch.setattr(_io, "is_source_checkout", lambda pkg=None: False)
    with pytest.raises(ValueError, match="installed robidlib package"):
        _io.make_folder(PKG / "new_folder")
    assert not (PKG / "new_folder").exists()
