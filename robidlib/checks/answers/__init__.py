"""Reference answers of the exercise checks: instructor only, never in the student edition.

A check compares an answer with reference values: a function answer is called on fixed
inputs and its outputs compared with the reference outputs (and with those of the common
slips, which get their own hint). This subpackage computes those references, one module per
check module (``compute() -> dict`` of inputs and expected outputs), so it holds the
exercises' reference solutions. The checks never show them: they read the references through
:func:`robidlib.checks._report.stored_answers`, which loads
``robidlib/data/checks/<module>.json`` where it is shipped and otherwise computes it here.

The student edition's robidlib (``tools/editions.py``, the student bundle and branch) leaves
this subpackage out and ships the JSON files instead, written when the bundle is built
(:func:`write_answers`): ``check_coulomb_regressor??`` in a student's JupyterLab shows how
the answer is compared, not the answer. ``tests/test_checks_answers.py`` checks both ways
give the same references; ``tests/site`` scans the student bundle for solution code.

The TX40 checks (chapter 11) keep their slow references in the committed package data
``robidlib/data/checks/tx40_reference.json``; :mod:`.tx40` is their recipe
(``tools/store_tx40_reference.py``).
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import numpy as np

#: Check modules whose references are computed here and shipped as JSON in the student edition.
MODULES = ("pendulum", "least_squares", "excitation", "physical", "adaline", "ekf", "validation",
           "mixed_coordinates", "own_robot")


def _jsonable(value: Any) -> Any:
    """``value`` with numpy arrays and scalars turned into lists and floats (JSON-ready)."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    if isinstance(value, (np.floating, float)):
        return float(value)
    if isinstance(value, (np.integer, np.bool_)):
        return value.item()
    return value


def compute(module: str) -> dict:
    """The references of the checks of ``module`` (a name of :data:`MODULES`), JSON-ready."""
    if module not in MODULES:
        raise ValueError(f"module must be one of {MODULES}, got {module!r}")
    return _jsonable(importlib.import_module(f"{__name__}.{module}").compute())


def write_answers(folder: str | Path, modules: tuple[str, ...] = MODULES, overwrite: bool = False) -> list[Path]:
    """Write ``<module>.json`` for each of ``modules`` into ``folder`` (the ``data/checks``
    folder of a student package being built; created if missing); return the files.

    Refuses a folder inside the installed robidlib (a writer never writes into the package)
    and, unless ``overwrite``, an existing file.
    """
    from ..._io import destination, make_folder, write_text

    if not isinstance(overwrite, bool):
        raise TypeError(f"overwrite must be True or False, got {type(overwrite).__name__} {overwrite!r}")
    if isinstance(modules, str) or not all(isinstance(m, str) for m in modules):
        raise TypeError(f"modules must be a sequence of names among {MODULES}, got {modules!r}")
    destination(folder, "folder")                           # a str or os.PathLike, not empty
    folder = Path(folder)
    package = Path(__file__).resolve().parents[2]
    if folder.resolve() == package or package in folder.resolve().parents:
        raise ValueError(f"folder must be outside the installed robidlib ({package}), got {folder}")
    unknown = [m for m in modules if m not in MODULES]
    if unknown:
        raise ValueError(f"modules must be among {MODULES}, got {unknown}")
    existing = [folder / f"{m}.json" for m in modules if (folder / f"{m}.json").exists()]
    if existing and not overwrite:
        raise FileExistsError(f"{existing[0]} exists: pass overwrite=True to replace it")
    make_folder(folder, "folder")
    out = []
    for module in modules:
        path = folder / f"{module}.json"
        write_text(path, json.dumps(compute(module), separators=(",", ":")), overwrite=overwrite, name="folder")
        out.append(path)
    return out
