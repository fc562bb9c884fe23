"""A missing test requirement fails with its name; no test skips on a missing import."""

import importlib.metadata
import re
import sys
from pathlib import Path

import pytest
from _required import MissingRequirement, example_robot_data_file, example_robot_data_robots, required

TESTS = Path(__file__).resolve().parent


@pytest.mark.parametrize("module, dist", [("pinocchio", "pin"), ("cvxpy", "cvxpy-base"), ("numba", "numba")])
def test_a_missing_requirement_fails_naming_it(monkeypatch, module, dist):
    monkeypatch.setitem(sys.modules, module, None)         # import module -> ImportError
    with pytest.raises(MissingRequirement, match=rf"module '{module}' is missing .*\({dist} in requirements"):
        required(module)


def test_missing_example_robot_data_fails_naming_it(monkeypatch):
    def absent(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "files", absent)
    with pytest.raises(MissingRequirement, match=r"example-robot-data is missing .*requirements-test.txt"):
        example_robot_data_robots()


def test_installed_requirements_are_found():
    assert required("pinocchio").__name__ == "pinocchio"
    assert example_robot_data_file("ur_description/urdf/ur5_robot.urdf").is_file()
    with pytest.raises(MissingRequirement, match="example-robot-data file no/such.urdf"):
        example_robot_data_file("no/such.urdf")


def test_no_test_skips_on_a_missing_import():
    """Every import a test needs is a declared requirement or part of the project: none may
    be skipped with importorskip (use _required.required or a plain import)."""
    offenders = [f"{p.relative_to(TESTS)}:{i}" for p in sorted(TESTS.rglob("*.py")) if p.name != Path(__file__).name
                 for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
                 if re.search(r"\bimportorskip\s*\(", line)]
    assert not offenders, offenders
