"""The helpers of tools/readonly_install.py (the read-only install stage of make test).

The stage itself (``make _readonly``) builds the wheel and runs it as another user; these
tests check the pieces it relies on: the dependency closure read from this venv's metadata,
the copy of a distribution by its RECORD, and the choice of a folder the test user can enter.
"""

import importlib.metadata as md
import os
import stat
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import readonly_install  # noqa: E402


def test_the_closure_follows_requirements_extras_and_markers():
    deps = readonly_install.dependency_closure(["robidlib[physical]"], given={})
    names = set(deps)
    # robidlib's own requirements, what they need, and the extra's solvers
    assert {"robidlib", "numpy", "scipy", "numba", "llvmlite", "sympy", "mpmath", "clarabel", "cvxpy-base"} <= names
    assert "pytest" not in names and "pin" not in names       # nothing the package does not ask for
    without_extra = readonly_install.dependency_closure(["robidlib"], given={})
    assert "clarabel" not in without_extra
    given = readonly_install.dependency_closure(["robidlib"], given={"robidlib": md.distribution("robidlib")})
    assert "robidlib" not in given and "numba" in given


def test_a_missing_distribution_is_a_clear_error():
    with pytest.raises(SystemExit, match="no-such-distribution-xyz .*is not installed"):
        readonly_install.dependency_closure(["no-such-distribution-xyz"], given={})


def test_a_distribution_is_copied_by_its_record(tmp_path):
    dist = md.distribution("threadpoolctl")
    n = readonly_install.copy_distribution(dist, tmp_path, link=False)
    assert n > 0 and (tmp_path / "threadpoolctl.py").is_file()
    assert any(p.name.endswith(".dist-info") for p in tmp_path.iterdir())


def test_the_work_folder_is_one_every_user_can_enter():
    tmp = readonly_install.traversable_tmp()
    assert tmp.is_dir() and os.access(tmp, os.W_OK)
    assert all(os.stat(a).st_mode & stat.S_IXOTH for a in [tmp, *tmp.parents])
