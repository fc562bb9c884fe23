"""The modules of robidlib depend on each other one way (GUIDE section 2).

Every relative import of every module (also the ones inside functions) is read with ``ast``
and checked against the layer order of the GUIDE's module table: a module may import its
own layer or lower ones, never a higher one, and nothing outside ``checks`` imports
``plotting``. A module that is not in the table is reported so the table is kept up to date.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1] / "robidlib"

#: Layers from the bottom up (GUIDE section 2); a module may import only its layer or lower.
LAYERS = [
    {"_validate", "_version", "_threads", "_ode", "_lazy", "_jit", "_io"},
    {"spatial"},
    {"params"},
    {"robot"},
    {"dynamics"},
    {"regressor"},
    {"base"},
    {"trajectories"},
    {"signals"},
    {"closed_loop"},
    {"estimation"},
    {"validation"},
    {"benchmark"},
    {"multibody"},
    {"models", "datasets"},
    {"identification", "identify"},
    {"closed_loop_study"},
    {"plotting", "book"},
    {"checks"},
]
RANK = {name: k for k, layer in enumerate(LAYERS) for name in layer}


def _top_module(path: pathlib.Path) -> str:
    """First component below robidlib of a module file: ``estimation/kalman.py`` -> ``estimation``."""
    return path.relative_to(ROOT).with_suffix("").parts[0]


def _imports(path: pathlib.Path, source: str | None = None) -> set[str]:
    """Top-level robidlib modules imported by the file (relative and absolute imports)."""
    package = list(path.relative_to(ROOT.parent).with_suffix("").parts)[:-1]
    source = path.read_text(encoding="utf-8") if source is None else source
    found = set()
    for node in ast.walk(ast.parse(source)):
        targets = []
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - node.level + 1]
            if node.module:
                targets.append(base + node.module.split("."))
            else:
                targets += [base + [alias.name] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "robidlib":
            targets.append(node.module.split("."))
        elif isinstance(node, ast.Import):
            targets += [a.name.split(".") for a in node.names if a.name.split(".")[0] == "robidlib"]
        for t in targets:
            if len(t) > 1:
                found.add(t[1])
    return found


FILES = sorted(p for p in ROOT.rglob("*.py") if p.name != "__init__.py" or p.parent != ROOT)


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_imports_point_down(path):
    me = _top_module(path)
    assert me in RANK, f"{me} is not in the layer table of tests/test_layers.py (GUIDE section 2)"
    for other in _imports(path) - {me}:
        assert other in RANK, f"{path.name} imports robidlib.{other}, which the layer table lacks"
        assert RANK[other] <= RANK[me], (
            f"robidlib/{path.relative_to(ROOT)} ({me}) imports robidlib.{other}, a higher layer"
        )


def test_the_robot_model_does_not_import_the_dynamics():
    assert "dynamics" not in _imports(ROOT / "robot.py")


def test_the_layer_check_sees_lazy_and_absolute_imports():
    lazy = "import numpy\ndef f():\n    from .dynamics import inverse_dynamics\n"
    assert _imports(ROOT / "robot.py", lazy) == {"dynamics"}
    assert _imports(ROOT / "estimation" / "x.py", "from ..base import base_parameters\n") == {"base"}
    assert _imports(ROOT / "estimation" / "x.py", "from . import lsq\n") == {"estimation"}
    assert _imports(ROOT / "x.py", "import robidlib.plotting as p\n") == {"plotting"}


def test_heavy_modules_load_on_first_use():
    # a kernel that imports robidlib's core does not pay for scipy.signal, sympy or the
    # other chapters' checks; the lazy modules still load on first access
    import subprocess
    import sys

    code = (
        "import sys, robidlib, robidlib.checks\n"
        "from robidlib.base import base_parameters\n"
        "heavy = ('sympy', 'scipy.signal', 'numba', 'robidlib.benchmark', 'robidlib.multibody', "
        "'robidlib.checks.tx40')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
        "print(robidlib.multibody.__name__, robidlib.checks.tx40.__name__)\n"
        "from robidlib import signals\n"
        "print(signals.__name__, 'signals' in dir(robidlib))\n"
        "try:\n    robidlib.no_such_module\nexcept AttributeError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == [
        "[]",
        "robidlib.multibody robidlib.checks.tx40",
        "robidlib.signals True",
        "module 'robidlib' has no attribute 'no_such_module'",
    ]
