"""The read-only install test of ``make test`` (stage ``_readonly``; issue 26).

A JupyterHub image or a system-wide install gives the user a package folder they cannot
write and often a home they cannot write either. This script builds the robidlib wheel,
installs it with its dependencies into a fresh folder that the test user cannot write, and
runs ``tools/readonly_check.py`` there as that user, with a home that is read-only or missing:

* **cold**: read-only home, a fresh temporary directory: numba's cache must go to the user's
  private ``robidlib-<uid>`` folder there; the small job (regressor, inverse dynamics, base
  parameters, a simulation) and the key cells of chapters 2 and 11 (the identification
  pipeline on the TX40 record, with the chapter's own assertions) must run;
* **warm**: the same again: both compiled loops must load from that cache;
* **planted**: no home at all, and a ``robidlib-<uid>`` folder in the temporary directory
  that others can write (as another user could plant it): it must be refused and the loops
  compiled in memory;
* **NUMBA_DISABLE_JIT=1** and **numba missing**: the uncompiled paths;

every run giving the same numbers as the cold one, and nothing written into the install or
the home. Running as root (CI), the test user is ``nobody`` (uid 65534, through ``setpriv``)
and the install is linked from this venv's files, owned by root; otherwise the user is you,
with the install copied and made read-only (``chmod a-w``).

The interpreter is one the test user can run, of this venv's Python version (the venv's own
may sit in a home the test user cannot enter, e.g. ``/root/.pyenv``), started with ``-I -S``:
only the install folder is on its path. The dependencies come from this venv (the files each
distribution's RECORD lists, hard-linked where possible), not from the network.

Usage::

    python tools/readonly_install.py [--keep]       # --keep: leave the folder for a look
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from editions import build_wheel  # noqa: E402

#: The chapter cells run in the cold run: (notebook, id of the last cell run). Chapter 2: the
#: planar arm, its base parameters and twin, the UR5's rank; chapter 11: the TX40 record
#: through the drive model, base parameters, filtering, decimation, identification (OLS, WLS,
#: essential, physically consistent) and validation on the held-out part.
CHAPTER_CELLS = [("02_base_parameters.ipynb", "cell-009-pin"), ("11_staubli_tx40.ipynb", "cell-046-pin")]

#: Installed beside robidlib's own dependencies: the optional solvers chapter 11 uses, and
#: IPython (robidlib.book's tables), as in any Jupyter image.
EXTRA = ["robidlib[physical]", "ipython"]

NOBODY = 65534


def dependency_closure(requirements: list[str], given: dict[str, md.Distribution]) -> dict[str, md.Distribution]:
    """This venv's distributions needed by ``requirements`` (markers and extras honoured);
    ``given``: distributions installed otherwise (read for their requirements, not returned)."""
    found: dict[str, md.Distribution] = {}
    todo = [Requirement(r) for r in requirements]
    done: set[tuple[str, frozenset]] = set()
    while todo:
        req = todo.pop()
        key = canonicalize_name(req.name)
        if (key, frozenset(req.extras)) in done:
            continue
        done.add((key, frozenset(req.extras)))
        dist = given.get(key) or found.get(key)
        if dist is None:
            try:
                dist = found[key] = md.distribution(req.name)
            except md.PackageNotFoundError:
                raise SystemExit(f"{req.name} (needed by the install) is not installed in {sys.prefix}") from None
        for text in dist.requires or []:
            sub = Requirement(text)
            if sub.marker is None or any(sub.marker.evaluate({"extra": e}) for e in {"", *req.extras}):
                todo.append(sub)
    return found


def copy_distribution(dist: md.Distribution, target: Path, link: bool) -> int:
    """Copy (or hard-link) the files of ``dist`` listed in its RECORD into ``target``."""
    files = dist.files
    if files is None:
        raise SystemExit(f"{dist.metadata['Name']} has no RECORD: cannot tell its files")
    n = 0
    for rel in files:
        if rel.parts[0] == "..":  # scripts in bin/: not needed
            continue
        src = Path(dist.locate_file(rel))
        if not src.is_file():
            continue
        dst = target / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if dst.exists():
            continue
        if link:
            try:
                os.link(src, dst)
                n += 1
                continue
            except OSError:  # another file system: copy
                pass
        shutil.copy2(src, dst)
        n += 1
    return n


def traversable_tmp() -> Path:
    """A temporary directory whose every ancestor others may enter (for the test user)."""
    for cand in (tempfile.gettempdir(), "/tmp", "/var/tmp", "/dev/shm"):
        p = Path(cand).resolve()
        if p.is_dir() and os.access(p, os.W_OK) and all(os.stat(a).st_mode & stat.S_IXOTH for a in [p, *p.parents]):
            return p
    raise SystemExit("no temporary directory that another user can enter (checked $TMPDIR, /tmp, /var/tmp, /dev/shm)")


def find_python(run_as: list[str]) -> str:
    """An interpreter of this Python version that the test user can run: a system-wide one
    first, this venv's base interpreter last (it may live in a home the user cannot enter)."""
    want = f"{sys.version_info[0]}.{sys.version_info[1]}"
    cands = [f"/usr/bin/python{want}", f"/usr/local/bin/python{want}", shutil.which(f"python{want}") or "",
             os.path.realpath(getattr(sys, "_base_executable", sys.executable))]
    for c in dict.fromkeys(c for c in cands if c):
        try:
            done = subprocess.run([*run_as, c, "-I", "-S", "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                                  capture_output=True, text=True, timeout=60)
        except OSError:
            continue
        if done.returncode == 0 and done.stdout.strip() == want:
            return c
    raise SystemExit(f"no Python {want} that the test user can run (tried {cands}); install python{want} "
                     "system-wide (e.g. Debian's python3) or run make test as a user who can run this venv's")


def snapshot(folder: Path) -> dict[str, tuple[int, int, int]]:
    """Every path below ``folder``: size, modification time and mode."""
    out = {}
    for p in folder.rglob("*"):
        st = p.lstat()
        out[str(p.relative_to(folder))] = (st.st_size, st.st_mtime_ns, st.st_mode)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args(argv)
    t0, cpu0 = time.perf_counter(), _children_cpu()
    as_root = hasattr(os, "geteuid") and os.geteuid() == 0
    if as_root:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            raise SystemExit("running as root, the test needs setpriv (util-linux) to run as another user")
        run_as = [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
        uid = NOBODY
    else:
        run_as, uid = [], os.getuid()

    work = Path(tempfile.mkdtemp(prefix="robidlib-readonly-", dir=traversable_tmp()))
    work.chmod(0o755)
    try:
        return _run(work, run_as, uid, as_root, t0, cpu0)
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            if not as_root:  # give ourselves back the write permission removed below
                for p in [work, *work.rglob("*")]:
                    if p.is_dir() and not p.is_symlink():
                        p.chmod(p.stat().st_mode | stat.S_IWUSR)
            shutil.rmtree(work)


def _run(work: Path, run_as: list[str], uid: int, as_root: bool, t0: float, cpu0: float) -> int:
    # -- the install: the wheel, then the dependencies from this venv
    wheel = build_wheel(work / "wheel")
    site_dir = work / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--no-compile",
                    "--target", str(site_dir), str(wheel)], check=True)
    ours = md.PathDistribution(next(site_dir.glob("robidlib-*.dist-info")))
    deps = dependency_closure(EXTRA, given={"robidlib": ours})
    files = sum(copy_distribution(d, site_dir, link=as_root) for d in deps.values())
    chapters = work / "chapters"
    chapters.mkdir()
    for nb, _ in CHAPTER_CELLS:
        shutil.copy2(ROOT / "chapters" / nb, chapters / nb)
    shutil.copy2(ROOT / "tools" / "readonly_check.py", work / "readonly_check.py")
    home = work / "home"
    home.mkdir()
    out = work / "out"
    out.mkdir()
    tmps = {name: work / name for name in ("tmp-cold", "tmp-planted", "tmp-other")}
    for t in tmps.values():
        t.mkdir()
        t.chmod(0o1777)                                   # like /tmp
    planted = tmps["tmp-planted"] / f"robidlib-{uid}"
    planted.mkdir()
    planted.chmod(0o777)                                  # "created by someone else", writable by all
    if as_root:
        os.chown(out, NOBODY, NOBODY)
    else:                                                 # read-only for ourselves too
        for p in [site_dir, *site_dir.rglob("*"), home, chapters, *chapters.iterdir()]:
            if not p.is_symlink():
                p.chmod(p.stat().st_mode & ~0o222)
    python = find_python(run_as)
    print(f"read-only install: robidlib {wheel.name} and {len(deps)} distributions ({files} files, "
          f"{'linked' if as_root else 'copied'}) in {site_dir}, {time.perf_counter() - t0:.1f} s wall, "
          f"{_children_cpu() - cpu0:.1f} s CPU; running {python} as uid {uid}")
    before_site, before_home = snapshot(site_dir), snapshot(home)

    base_env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "MPLBACKEND": "Agg", "HOME": str(home)}
    cells = ["--cells"] + [x for nb, stop in CHAPTER_CELLS for x in (str(chapters / nb), stop)]
    runs = [  # name, environment, extra arguments
        ("cold", {"TMPDIR": str(tmps["tmp-cold"])}, cells),
        ("warm", {"TMPDIR": str(tmps["tmp-cold"])}, []),
        ("planted", {"TMPDIR": str(tmps["tmp-planted"]), "HOME": "/nonexistent"}, []),
        ("NUMBA_DISABLE_JIT=1", {"TMPDIR": str(tmps["tmp-other"]), "NUMBA_DISABLE_JIT": "1"}, []),
        ("numba missing", {"TMPDIR": str(tmps["tmp-other"])}, ["--no-numba"]),
    ]
    reports, failures = {}, []
    for name, env, extra in runs:
        npz = out / f"{name.split('=')[0].replace(' ', '_')}.npz"
        cmd = [*run_as, python, "-I", "-S", str(work / "readonly_check.py"), str(site_dir), str(npz), *extra]
        done = subprocess.run(cmd, env={**base_env, **env}, cwd=home, capture_output=True, text=True)
        if done.returncode != 0:
            print(done.stdout[-3000:], done.stderr[-6000:], sep="\n")
            raise SystemExit(f"read-only install: the {name!r} run failed (exit {done.returncode})")
        reports[name] = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"  {name:<20} {reports[name]}")

    # -- where the compiled loops went
    cold_cache = tmps["tmp-cold"] / f"robidlib-{uid}" / "numba"
    expect = {
        "cold": dict(cache_dir=str(cold_cache), compiled=True, hits=0),
        "warm": dict(cache_dir=str(cold_cache), compiled=True, hits=1),
        "planted": dict(cache_dir=None, compiled=True, hits=0),
        "NUMBA_DISABLE_JIT=1": dict(cache_dir=None, compiled=False, hits=0),
        "numba missing": dict(cache_dir=None, compiled=False, hits=0),
    }
    for name, e in expect.items():
        rep = reports[name]
        if rep["cache_dir"] != e["cache_dir"]:
            failures.append(f"{name}: numba's cache in {rep['cache_dir']}, expected {e['cache_dir']}")
        if set(rep["compiled"].values()) != {e["compiled"]}:
            failures.append(f"{name}: compiled {rep['compiled']}, expected {e['compiled']} for both loops")
        if set(rep["cache_hits"].values()) != {e["hits"]}:
            failures.append(f"{name}: cache hits {rep['cache_hits']}, expected {e['hits']} for both loops")
    if reports["NUMBA_DISABLE_JIT=1"]["numba_imported"]:
        failures.append("NUMBA_DISABLE_JIT=1: numba was imported")
    cached = sorted(p.name.split("-")[0] for p in cold_cache.rglob("*.nbi"))
    if cached != ["dynamics._rnea_rows", "regressor._regressor_rows"]:
        failures.append(f"cold: the cache in {cold_cache} holds {cached}")
    if any(planted.iterdir()):
        failures.append(f"planted: something was written into the refused folder {planted}")

    # -- the same numbers every way
    ref = np.load(out / "cold.npz")
    for name in expect:
        if name == "cold":
            continue
        got = np.load(out / f"{name.split('=')[0].replace(' ', '_')}.npz")
        checks = {
            "regressor": np.allclose(got["Y"], ref["Y"], rtol=1e-13, atol=1e-13),
            "inverse dynamics": np.allclose(got["tau"], ref["tau"], rtol=1e-13, atol=1e-13 * np.abs(ref["tau"]).max()),
            "base columns": np.array_equal(got["independent"], ref["independent"]),
            "base relations K": np.allclose(got["K"], ref["K"], rtol=1e-9, atol=1e-9),
            "simulation": np.allclose(got["sim"], ref["sim"], rtol=1e-8, atol=1e-8),   # solver rtol 1e-9
        }
        failures += [f"{name}: {what} differs from the cold run" for what, ok in checks.items() if not ok]

    # -- nothing written into the install or the home
    for label, folder, before in (("install", site_dir, before_site), ("home", home, before_home)):
        after = snapshot(folder)
        changed = sorted(k for k in after if before.get(k) != after[k]) + sorted(set(before) - set(after))
        if changed:
            failures.append(f"the {label} changed: {changed[:5]}{' ...' if len(changed) > 5 else ''}")

    cpu = _children_cpu() - cpu0
    print(f"read-only install: {len(runs)} runs, {time.perf_counter() - t0:.1f} s wall, {cpu:.1f} s CPU "
          "(this process's children, wheel build included)")
    if failures:
        print("read-only install FAILED:\n  " + "\n  ".join(failures))
        return 1
    print("read-only install: every run passed (same numbers; cache where expected; install and home untouched)")
    return 0


def _children_cpu() -> float:
    try:
        import resource
    except ImportError:
        return 0.0
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    s = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime + s.ru_utime + s.ru_stime


if __name__ == "__main__":
    sys.exit(main())
