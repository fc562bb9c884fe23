"""Helpers of the portability passes of `make test` (see the Makefile and README).

Usage::

    python tools/portability.py default-kernel        # the OpenBLAS kernel this CPU gets
    python tools/portability.py second-kernel         # another kernel this CPU supports
    python tools/portability.py check-kernel NAME DEFAULT  # fail unless NAME moved every BLAS off DEFAULT
    python tools/portability.py find-python 3.10      # path of that Python (or a fallback)
    python tools/portability.py check-lowest FILE     # installed versions equal FILE's pins
"""

from __future__ import annotations

import platform
import re
import shutil
import sys
from pathlib import Path

# OpenBLAS x86-64 kernels, with the CPU flag each needs (Prescott: SSE3, on every x86-64).
X86_KERNELS = [("Prescott", "sse3"), ("Sandybridge", "avx"), ("Haswell", "avx2"), ("SkylakeX", "avx512f")]


def _blas() -> list[dict]:
    import numpy  # noqa: F401  (load the libraries first)
    import scipy.linalg  # noqa: F401
    from threadpoolctl import threadpool_info

    return [i for i in threadpool_info() if i["user_api"] == "blas"]


def default_kernel() -> str:
    archs = {str(i.get("architecture")) for i in _blas()}
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


def second_kernel() -> str:
    current = default_kernel().lower()
    machine = platform.machine().lower()
    if machine in {"x86_64", "amd64"}:
        flags = _cpu_flags()
        for name, flag in X86_KERNELS:
            if name.lower() != current and (flag in flags or not flags):
                return name
    if machine in {"aarch64", "arm64"}:
        return "ARMV8" if current != "armv8" else "CORTEXA57"
    raise SystemExit(f"no second OpenBLAS kernel known for {machine} (default {current})")


def check_kernel(name: str, default: str) -> None:
    """Fail unless OPENBLAS_CORETYPE=name moved every BLAS library off the default kernel.

    OpenBLAS reports the kernel it runs; a build that lacks ``name`` falls back to its generic
    one (reported e.g. as ``Katmai``), which is still another kernel than the default.
    """
    libs = _blas()
    runs = {Path(i["filepath"]).name: str(i.get("architecture")) for i in libs}
    same = [lib for lib, arch in runs.items() if arch.lower() == default.lower()]
    if not libs or same:
        raise SystemExit(f"OPENBLAS_CORETYPE={name} did not change the kernel of {same or 'any BLAS library'} (default {default})")
    print(f"   OPENBLAS_CORETYPE={name}: the BLAS libraries run {runs} (default {default})")


def find_python(version: str) -> str:
    """The interpreter of ``version``: on PATH, in pyenv, or (with a warning) this one."""
    exe = f"python{version}"
    found = shutil.which(exe)
    candidates = [found] if found else []
    candidates += sorted(str(p) for p in Path.home().glob(f".pyenv/versions/{version}*/bin/{exe}"))
    candidates += [f"/usr/bin/{exe}", f"/usr/local/bin/{exe}"]
    import subprocess

    for c in candidates:
        if c and Path(c).exists():
            ok = subprocess.run([c, "-c", "import venv, sys; print(sys.version)"], capture_output=True, text=True)
            if ok.returncode == 0:
                return c
    print(f"warning: Python {version} not found; the lowest-versions pass runs on {sys.version.split()[0]}", file=sys.stderr)
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


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    cmd, args = argv[0], argv[1:]
    if cmd == "default-kernel":
        print(default_kernel())
    elif cmd == "second-kernel":
        print(second_kernel())
    elif cmd == "check-kernel":
        check_kernel(args[0], args[1])
    elif cmd == "find-python":
        print(find_python(args[0]))
    elif cmd == "check-lowest":
        check_lowest(args[0])
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
