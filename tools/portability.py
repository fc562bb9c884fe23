"""Helpers of the portability passes of `make test` (see the Makefile and README).

Usage::

    python tools/portability.py default-kernel        # the OpenBLAS kernel this CPU gets
    python tools/portability.py plan                  # which kernel each SIMD family is tested on
    python tools/portability.py kernel-for FAMILY     # that kernel (empty, and why, when it is not)
    python tools/portability.py kernels-for-pass PASS # the kernels a pass forces (main, newest, lowest)
    python tools/portability.py check-kernel NAME DEFAULT  # fail unless NAME moved every BLAS off DEFAULT
    python tools/portability.py find-python 3.10      # path of that Python (or a fallback)
    python tools/portability.py find-python newest    # the newest final CPython on this machine
    python tools/portability.py check-lowest FILE     # installed versions equal FILE's pins
    python tools/portability.py versions              # Python and the main packages' versions

OpenBLAS picks its kernels for the CPU it runs on; ``OPENBLAS_CORETYPE`` forces another one,
so that round-off differs as it would on another machine. Kernels of one SIMD family share
their inner loops, so the passes run one kernel per family the CPU supports: SSE (Prescott,
every x86-64), AVX (Sandybridge: Sandy and Ivy Bridge, AMD Bulldozer, VMs without AVX2), AVX2
(Haswell: Haswell to Comet Lake, AMD Zen), AVX-512 (SkylakeX). The family of the default
kernel is covered by the normal pass and is not run again. The families ride on the three
environments of the portability passes, one each (:func:`kernels_for_pass`): the main venv,
the newest versions and the lowest versions; each runs the unit tests and every notebook.
"""

from __future__ import annotations

import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

#: The SIMD families of the portability passes: stage name -> (family, kernel forced, CPU flag).
#: ``arm`` is the one family of a 64-bit ARM CPU (its generic kernel).
FAMILIES = {
    "sse": ("SSE", "Prescott", "sse3"),
    "avx": ("AVX", "Sandybridge", "avx"),
    "avx2": ("AVX2", "Haswell", "avx2"),
    "avx512": ("AVX-512", "SkylakeX", "avx512f"),
    "arm": ("ARMv8", "ARMV8", None),
}
#: The family of every kernel OpenBLAS reports (``threadpoolctl``'s ``architecture``, lower
#: case); a build without the forced kernel falls back to its generic one (``Katmai``).
KERNEL_FAMILY = {
    **dict.fromkeys(["katmai", "coppermine", "northwood", "prescott", "core2", "penryn", "dunnington",
                     "nehalem", "atom", "opteron", "opteron_sse3", "barcelona", "bobcat", "nano",
                     "banias", "athlon"], "sse"),
    **dict.fromkeys(["sandybridge", "bulldozer", "piledriver", "steamroller"], "avx"),
    **dict.fromkeys(["haswell", "excavator", "zen"], "avx2"),
    **dict.fromkeys(["skylakex", "cooperlake", "sapphirerapids"], "avx512"),
    **dict.fromkeys(["armv8", "cortexa53", "cortexa55", "cortexa57", "cortexa72", "cortexa73", "neoversen1",
                     "neoversen2", "neoversev1", "thunderx", "thunderx2t99", "tsv110", "emag8180", "falkor",
                     "a64fx", "armv8sve"], "arm"),
}


def _blas() -> list[dict]:
    import numpy  # noqa: F401  (load the libraries first)
    import scipy.linalg  # noqa: F401
    from threadpoolctl import threadpool_info

    return [i for i in threadpool_info() if i["user_api"] == "blas"]


def default_kernels() -> set[str]:
    """The kernels the BLAS libraries of numpy and scipy run by default (they may differ)."""
    return {str(i.get("architecture")) for i in _blas()}


def default_kernel() -> str:
    archs = default_kernels()
    return sorted(archs)[0] if archs else "unknown"


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    m = re.search(r"^flags\s*:\s*(.*)$", text, re.M)
    flags = set(m.group(1).split()) if m else set()
    if "pni" in flags:
        flags.add("sse3")  # Linux calls SSE3 "pni"
    return flags


def _is_x86(machine: str) -> bool:
    return machine.lower() in {"x86_64", "amd64"}


def kernel_for(family: str, *, flags: set[str] | None = None, defaults: set[str] | None = None,
               machine: str | None = None) -> tuple[str | None, str]:
    """The kernel the pass of ``family`` forces, or None, and a sentence saying why.

    ``flags`` (CPU flags), ``defaults`` (the default kernels) and ``machine`` default to this
    machine's; tests pass others.
    """
    if family not in FAMILIES:
        raise SystemExit(f"unknown family {family!r}; expected one of {', '.join(FAMILIES)}")
    name, kernel, flag = FAMILIES[family]
    machine = platform.machine() if machine is None else machine
    defaults = default_kernels() if defaults is None else defaults
    covered = {KERNEL_FAMILY.get(d.lower()) for d in defaults}
    if family == "arm":
        if machine.lower() not in {"aarch64", "arm64"}:
            return None, f"{name}: not run, the CPU is {machine}, not 64-bit ARM"
        lowered = {d.lower() for d in defaults}
        kernel = "ARMV8" if "armv8" not in lowered else "CORTEXA57"
        return kernel, f"{name}: {kernel} (the default is {', '.join(sorted(defaults))})"
    if not _is_x86(machine):
        return None, f"{name}: not run, the CPU is {machine}, not x86-64"
    flags = _cpu_flags() if flags is None else flags
    if flags and flag not in flags:
        return None, f"{name}: not run, the CPU lacks {flag}"
    if family in covered:
        return None, (f"{name}: not run again, the default kernel {', '.join(sorted(defaults))} "
                      "is of this family (the normal pass runs it)")
    return kernel, f"{name}: {kernel}"


def plan(**kw) -> list[tuple[str, str | None, str]]:
    """``(family, kernel or None, reason)`` for every family."""
    return [(f, *kernel_for(f, **kw)) for f in FAMILIES]


#: The environments the family kernels ride on, in the order they are given one: the main
#: venv, the newest versions, the lowest versions (each runs the unit tests and notebooks).
PASSES = ("main", "newest", "lowest")


def kernels_for_pass(name: str, **kw) -> tuple[list[str], str]:
    """The kernels the pass ``name`` forces (in turn), and a sentence saying so.

    The families to test (:func:`plan`) go to :data:`PASSES` in order, one each; should there
    be more families than passes, the main venv runs the rest too. A pass left without one
    runs the default kernel (``[]``): the lowest and newest passes still test their
    versions; the main one has nothing to add to the normal pass.
    """
    if name not in PASSES:
        raise SystemExit(f"unknown pass {name!r}; expected one of {', '.join(PASSES)}")
    rows = [(f, k) for f, k, _ in plan(**kw) if k]
    mine = rows[PASSES.index(name):PASSES.index(name) + 1]
    if name == "main":
        mine += rows[len(PASSES):]
    if not mine:
        return [], f"{name}: the default kernel (no other SIMD family left for this pass)"
    names = ", ".join(f"{k} ({FAMILIES[f][0]})" for f, k in mine)
    return [k for _, k in mine], f"{name}: OPENBLAS_CORETYPE={names}"


def check_kernel(name: str, default: str) -> None:
    """Fail unless OPENBLAS_CORETYPE=name moved every BLAS library off the default kernel.

    OpenBLAS reports the kernel it runs; a build that lacks ``name`` falls back to its generic
    one (reported e.g. as ``Katmai``), which is still another kernel than the default.
    ``default`` may list several kernels separated by commas (numpy's and scipy's).
    """
    libs = _blas()
    runs = {Path(i["filepath"]).name: str(i.get("architecture")) for i in libs}
    olds = {d.strip().lower() for d in default.split(",")}
    same = [lib for lib, arch in runs.items() if arch.lower() in olds]
    if not libs or same:
        raise SystemExit(f"OPENBLAS_CORETYPE={name} did not change the kernel of {same or 'any BLAS library'} (default {default})")
    print(f"   OPENBLAS_CORETYPE={name}: the BLAS libraries run {runs} (default {default})")


def _version_of(exe: str) -> tuple[int, int, int] | None:
    """``(major, minor, micro)`` of a final, GIL-enabled CPython that can create venvs, else None."""
    probe = ("import sys, sysconfig, venv; "
             "ok = sys.implementation.name == 'cpython' and sys.version_info.releaselevel == 'final' "
             "and not sysconfig.get_config_var('Py_GIL_DISABLED'); "
             "print(*sys.version_info[:3]) if ok else None")
    try:
        out = subprocess.run([exe, "-c", probe], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    parts = out.stdout.split()
    return tuple(int(p) for p in parts) if out.returncode == 0 and len(parts) == 3 else None


def _candidates(version: str) -> list[str]:
    """Interpreters named pythonX.Y on PATH, in pyenv and in the usual places."""
    if version == "newest":
        names = sorted({p.name for d in _path_dirs() for p in Path(d).glob("python3.*")
                        if re.fullmatch(r"python3\.\d+", p.name)}
                       | {f"python{m.group(1)}" for p in Path.home().glob(".pyenv/versions/*")
                          if (m := re.fullmatch(r"(3\.\d+)\.\d+", p.name))})
    else:
        names = [f"python{version}"]
    found = []
    for exe in names:
        which = shutil.which(exe)
        found += [which] if which else []
        ver = exe[len("python"):]
        found += sorted(str(p) for p in Path.home().glob(f".pyenv/versions/{ver}*/bin/{exe}"))
        found += [f"/usr/bin/{exe}", f"/usr/local/bin/{exe}"]
    return [c for c in dict.fromkeys(found) if c and Path(c).exists()]


def _path_dirs() -> list[str]:
    import os

    return [d for d in os.environ.get("PATH", "").split(os.pathsep) if d and Path(d).is_dir()]


def find_python(version: str) -> str:
    """The interpreter of ``version`` ("3.10"), or the newest final CPython ("newest").

    Looked for on PATH, in pyenv and in /usr/bin, /usr/local/bin; each candidate must run
    and create venvs. Without one, this interpreter, with a warning.
    """
    found = [(v, c) for c in _candidates(version) if (v := _version_of(c))]
    if version != "newest":
        found = [(v, c) for v, c in found if f"{v[0]}.{v[1]}" == version]
    if found:
        return max(found, key=lambda vc: vc[0])[1] if version == "newest" else found[0][1]
    what = "no newer Python found" if version == "newest" else f"Python {version} not found"
    print(f"warning: {what}; the pass runs on {sys.version.split()[0]}", file=sys.stderr)
    return sys.executable


def check_lowest(path: str) -> None:
    from importlib.metadata import PackageNotFoundError, version

    wrong = []
    n = 0
    for line in Path(path).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, _, want = line.partition("==")
        n += 1
        try:
            have = version(name.strip())
        except PackageNotFoundError:
            wrong.append(f"{name.strip()} not installed (want {want})")
            continue
        if have != want.strip():
            wrong.append(f"{name.strip()} {have} (want {want.strip()})")
    if wrong:
        raise SystemExit("the lowest-versions venv does not hold the lowest versions: " + "; ".join(wrong))
    print(f"   {n} packages at their lowest supported versions ({path})")


def versions() -> str:
    """One line: this Python and the versions of the packages whose numerics the book uses."""
    from importlib.metadata import PackageNotFoundError, version

    parts = [f"Python {platform.python_version()}"]
    for name in ("numpy", "scipy", "threadpoolctl", "numba", "sympy", "cvxpy-base", "clarabel", "pin"):
        try:
            parts.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            parts.append(f"{name} (not installed)")
    return ", ".join(parts)


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    cmd, args = argv[0], argv[1:]
    if cmd == "default-kernel":
        print(",".join(sorted(default_kernels())) or "unknown")
    elif cmd == "kernel-for":
        kernel, why = kernel_for(args[0])
        print(f"   {why}", file=sys.stderr)
        print(kernel or "")
    elif cmd == "plan":
        for family, kernel, why in plan():
            print(f"   {why}")
    elif cmd == "kernels-for-pass":
        kernels, why = kernels_for_pass(args[0])
        print(f"   {why}", file=sys.stderr)
        print(" ".join(kernels))
    elif cmd == "check-kernel":
        check_kernel(args[0], args[1])
    elif cmd == "find-python":
        print(find_python(args[0]))
    elif cmd == "check-lowest":
        check_lowest(args[0])
    elif cmd == "versions":
        print(f"   {versions()}")
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
