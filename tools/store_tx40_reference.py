"""Write the stored reference answers of chapter 11's exercise checks.

``robidlib.checks.tx40`` compares the students' answers with the chapter's pipeline on the
Staubli TX40 record; each reference run takes seconds, so the answers for the cut-offs the
exercises suggest and for the other exercises are stored in
``robidlib/data/checks/tx40_reference.json``. This script recomputes and rewrites them
(``robidlib.checks.tx40.compute_reference``); ``tests/test_checks_tx40.py`` checks that the
stored values are what the pipeline computes.

Usage::

    python tools/store_tx40_reference.py
"""

from __future__ import annotations

import json
from pathlib import Path

from robidlib._io import write_text
from robidlib.checks.tx40 import STORED_CUTOFFS, compute_reference

OUT = Path(__file__).resolve().parents[1] / "robidlib" / "data" / "checks" / "tx40_reference.json"


def main() -> int:
    ref = compute_reference(STORED_CUTOFFS)
    write_text(OUT, json.dumps(ref, indent=1, allow_nan=False) + "\n", overwrite=True)   # the shipped file
    print(f"wrote {OUT} (cut-offs {', '.join(ref['cutoffs'])} Hz)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
