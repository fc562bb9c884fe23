"""Import a declared test requirement, or fail with the requirement's name.

pinocchio (``pin``), example-robot-data, cvxpy (``cvxpy-base``), numba and playwright are
installed in every venv `make test` uses (requirements.txt, requirements-test.txt, the
lowest-versions venv included): a test that needs one must fail when it is missing, never
skip. ``pytest.importorskip`` would turn a broken environment into a quiet skip.
"""

from __future__ import annotations

import importlib
import importlib.metadata
from pathlib import Path
from types import ModuleType

# module -> (distribution, the requirement file that declares it)
REQUIREMENTS = {
    "pinocchio": ("pin", "requirements-test.txt"),
    "cvxpy": ("cvxpy-base", "requirements.txt"),
    "numba": ("numba", "requirements.txt"),
    "playwright.sync_api": ("playwright", "requirements-test.txt"),
}


class MissingRequirement(ImportError):
    """A declared requirement of the test environment is not installed."""


def _message(what: str, dist: str, where: str, exc: BaseException | None = None) -> str:
    cause = f" ({type(exc).__name__}: {exc})" if exc is not None else ""
    return (f"{what} is missing{cause}: it is a declared requirement ({dist} in {where}); "
            "install the test environment with `make .venv/.installed-test`")


def required(module: str) -> ModuleType:
    """Import ``module`` (a key of :data:`REQUIREMENTS`); raise MissingRequirement if absent."""
    dist, where = REQUIREMENTS[module]
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingRequirement(_message(f"module {module!r}", dist, where, exc)) from exc


def example_robot_data_robots() -> Path:
    """The ``robots`` folder of example-robot-data (6.x ships data only, no Python module)."""
    where = "requirements-test.txt"
    try:
        files = importlib.metadata.files("example-robot-data") or []
    except importlib.metadata.PackageNotFoundError as exc:
        raise MissingRequirement(_message("example-robot-data", "example-robot-data", where, exc)) from exc
    for f in files:
        parts = Path(str(f)).parts
        if "robots" in parts and str(f).endswith(".urdf"):
            p = Path(f.locate())
            while p.name != "robots":
                p = p.parent
            return p
    raise MissingRequirement(_message("example-robot-data's robots folder (no URDF in its file list)",
                                      "example-robot-data", where))


def example_robot_data_file(relative: str) -> Path:
    """A file of example-robot-data by its path under ``robots/``, e.g. ``ur_description/urdf/ur5_robot.urdf``."""
    path = example_robot_data_robots() / relative
    if not path.is_file():
        raise MissingRequirement(_message(f"example-robot-data file {relative}", "example-robot-data",
                                          "requirements-test.txt"))
    return path
