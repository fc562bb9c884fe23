"""Tests of the built site (_build/html). `make test` builds it first and sets
ROBIDLIB_REQUIRE_SITE=1, so a missing build fails there instead of being skipped."""
import os
from pathlib import Path

import pytest

SITE = Path(__file__).resolve().parents[2] / "_build" / "html"


@pytest.fixture(scope="session")
def site() -> Path:
    if not (SITE / "index.html").exists():
        msg = f"no built site at {SITE}: run `make book` first"
        if os.environ.get("ROBIDLIB_REQUIRE_SITE"):
            pytest.fail(msg)
        pytest.skip(msg)
    return SITE
