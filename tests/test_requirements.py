"""The lower bounds of the requirement files are the versions the lowest-versions pass tests.

`make test` (test-lowest) installs constraints-lowest.txt into a Python 3.10 venv and runs the
unit tests there; this test keeps that file equal to the lower bounds that requirements.txt,
requirements-test.txt and pyproject.toml state, so a bound cannot be raised or lowered
without the pass testing it.
"""
import re
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10 (the lowest-versions pass): pytest brings tomli
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def _requirements(path):
    reqs = []
    for line in (ROOT / path).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith(("-e", "-r", "-c", "--")):
            continue
        reqs.append(Requirement(line))
    return reqs


def _lower_bound(req):
    lows = [s.version for s in req.specifier if s.operator == ">="]
    assert len(lows) == 1, f"{req}: every requirement has exactly one lower bound (>=)"
    uppers = [s for s in req.specifier if s.operator == "<"]
    assert uppers, f"{req}: every requirement has an upper bound below the next major version"
    return lows[0]


def _constraints():
    pins = {}
    for line in (ROOT / "constraints-lowest.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"constraints-lowest.txt: {line!r} is not a == pin"
            pins[canonicalize_name(name)] = version.strip()
    return pins


def test_constraints_equal_the_lower_bounds():
    pins = _constraints()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = _requirements("requirements.txt") + _requirements("requirements-test.txt")
    reqs += [Requirement(r) for r in project["dependencies"]]
    for extra in project.get("optional-dependencies", {}).values():
        reqs += [Requirement(r) for r in extra]
    seen = set()
    for req in reqs:
        name = canonicalize_name(req.name)
        seen.add(name)
        assert name in pins, f"{req.name} has no pin in constraints-lowest.txt"
        assert Version(pins[name]) == Version(_lower_bound(req)), f"{req}: constraints-lowest.txt pins {pins[name]}"
    assert not set(pins) - seen, f"constraints-lowest.txt pins packages nothing requires: {sorted(set(pins) - seen)}"


def test_python_floor_is_the_lowest_pass_python():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == ">=3.10"
    assert "find-python 3.10" in (ROOT / "Makefile").read_text()
    assert re.search(r"Python 3\.10\+", (ROOT / "README.md").read_text())
