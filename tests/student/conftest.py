"""The student bundle, unpacked and installed as its README says, once per test session.

`make student` writes _build/student/student-bundle.zip. The first test worker to get here
unpacks it into _build/student/try/ and runs the README's set-up command there (a fresh venv
from the wheel and requirements.txt in the bundle, nothing from this repository); the other
workers wait on a lock and reuse it. `make test` sets ROBIDLIB_REQUIRE_SITE=1, so a missing
bundle fails instead of being skipped.
"""
from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STUDENT = ROOT / "_build" / "student"
ARCHIVE = STUDENT / "student-bundle.zip"
TRY = STUDENT / "try"


def _setup_command(readme: str) -> str:
    block = re.search(r"```bash\n(.*?)```", readme, re.S)
    assert block, "the student README has no ```bash block with the set-up commands"
    return block.group(1).strip().splitlines()[0]


@pytest.fixture(scope="session")
def bundle() -> Path:
    """The unpacked bundle folder, with .venv installed by the README's first command."""
    if not ARCHIVE.exists():
        msg = f"no student bundle at {ARCHIVE}: run `make student` first"
        if os.environ.get("ROBIDLIB_REQUIRE_SITE"):
            pytest.fail(msg)
        pytest.skip(msg)
    STUDENT.mkdir(parents=True, exist_ok=True)
    with open(STUDENT / ".try.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp = TRY / ".installed"
        if not stamp.exists() or stamp.read_text() != str(ARCHIVE.stat().st_mtime_ns):
            shutil.rmtree(TRY, ignore_errors=True)
            TRY.mkdir(parents=True)
            with zipfile.ZipFile(ARCHIVE) as zf:
                zf.extractall(TRY)
            folder = next(p for p in TRY.iterdir() if p.is_dir())
            command = _setup_command((folder / "README.md").read_text(encoding="utf-8"))
            env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHONPATH"))}
            # the student's own python3, not this test venv's
            env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                          if not p.startswith(str(ROOT)))
            done = subprocess.run(["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True)
            assert done.returncode == 0, f"`{command}` failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
            stamp.write_text(str(ARCHIVE.stat().st_mtime_ns))
        return next(p for p in TRY.iterdir() if p.is_dir())
