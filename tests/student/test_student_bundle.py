"""The student bundle works on its own, as a student would use it.

The bundle (`make student`: _build/student/student-bundle.zip) is unpacked and installed by
the command of its README into a fresh venv (conftest.py). Every student notebook then runs
top to bottom from the unpacked folder, in that venv's kernel, with the exercise stubs
untouched ("Run All"): no cell may raise, every stub must print ✘ with a hint, and no file of
this repository is within reach (the kernel's working folder is the bundle's chapters/, and
robidlib comes from the wheel). This is the only execution of the student notebooks in
`make test`; run it with `-n 2` (two notebooks at a time).
"""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
CROSS = "\u2718"
NOTEBOOKS = sorted(p.name for p in (ROOT / "chapters").glob("*.ipynb"))

# Runs inside the bundle's venv: nbclient comes with its JupyterLab, the kernel is its Python.
# tools/zmq_wakeups.py first: a reply zmq.asyncio fails to notice must not stall a notebook
# for the whole cell timeout (seen after a widget cell in one notebook of most runs)
RUNNER = (ROOT / "tools" / "zmq_wakeups.py").read_text(encoding="utf-8").replace(
    'if __name__ == "__main__":', "if True:") + r"""
import json, pathlib, sys
import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
path, out = sys.argv[1], sys.argv[2]
nb = nbformat.read(path, as_version=4)
# nbclient skips cells tagged skip-execution by default; a student runs every cell
client = NotebookClient(nb, timeout=300, kernel_name="python3", skip_cells_with_tag="no-such-tag",
                        resources={"metadata": {"path": str(pathlib.Path(path).parent)}})
error = ""
try:
    client.execute()
except CellExecutionError as exc:
    error = str(exc)
nbformat.write(nb, out)
print(json.dumps({"error": error}))
"""


def test_bundle_holds_what_the_readme_promises(bundle):
    names = {p.name for p in bundle.iterdir()}
    assert {"README.md", "requirements.txt", "chapters", "pyproject.toml", "robidlib"} <= names
    assert not list(bundle.glob("*.whl"))
    assert "." in (bundle / "requirements.txt").read_text().splitlines()
    assert sorted(p.name for p in (bundle / "chapters").glob("*.ipynb")) == NOTEBOOKS
    # robidlib in the venv is the one installed from the bundle, not this repository's (from
    # chapters/, where the notebooks run)
    where = subprocess.run([str(bundle / ".venv" / "bin" / "python"), "-c",
                            "import robidlib, jupyterlab_myst; print(robidlib.__file__)"],
                           capture_output=True, text=True, check=True, cwd=bundle / "chapters").stdout.strip()
    assert str(bundle / ".venv") in where and str(ROOT / "robidlib") not in where
    installed = Path(where).parent
    assert not (installed / "checks" / "answers").exists(), "the reference answers are in the student's robidlib"
    assert (installed / "data" / "checks" / "pendulum.json").exists()


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_student_notebook_runs_with_every_stub_unanswered(bundle, name, tmp_path):
    path = bundle / "chapters" / name
    nb = nbformat.read(path, as_version=4)
    assert not any("solution" in c.metadata.get("tags", []) for c in nb.cells), f"{name} holds solution cells"
    out = tmp_path / name
    done = subprocess.run([str(bundle / ".venv" / "bin" / "python"), "-c", RUNNER, str(path), str(out)],
                          capture_output=True, text=True, cwd=path.parent, timeout=900)
    assert done.returncode == 0, done.stderr[-4000:]
    error = json.loads(done.stdout.strip().splitlines()[-1])["error"]
    assert not error, f"{name}: a cell raised when run as a student would:\n{error[-4000:]}"
    executed = nbformat.read(out, as_version=4)
    stubs = [c for c in executed.cells if "exercise-stub" in c.metadata.get("tags", [])]
    assert len(stubs) >= 3, f"{name}: {len(stubs)} exercise stubs"

    def stdout(cell):
        return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")

    silent = [c.get("id") for c in stubs if CROSS not in stdout(c)]
    assert not silent, f"{name}: untouched stubs {silent} did not print {CROSS} (every check must say what to do next)"
    # an untouched stub is "not answered yet", with the exercise's hint (not "did you forget
    # `return`?"), and nothing (no `False`) appears under the check's line
    unanswered = [c.get("id") for c in stubs if "not answered yet" not in stdout(c) or "forget `return`" in stdout(c)]
    assert not unanswered, f"{name}: untouched stubs {unanswered} do not say 'not answered yet'"
    hintless = [c.get("id") for c in stubs if not re.search(r"not answered yet: [^\n]*\. \S", stdout(c))]
    assert not hintless, f"{name}: untouched stubs {hintless} give no hint"
    echoed = [c.get("id") for c in stubs if any(o.get("output_type") == "execute_result" for o in c.get("outputs", []))]
    assert not echoed, f"{name}: stubs {echoed} show a value (e.g. False) under the check's line"
