"""Compute the Monte Carlo of chapter 12 (closed-loop data) and store it as package data.

    python tools/store_closed_loop.py [--draws 60] [--overwrite]
    python tools/store_closed_loop.py --methods [--overwrite]     # the four methods on one record

The study (``robidlib.closed_loop_study.closed_loop_study`` with its recipe
``CHAPTER_RECIPE``): for each noise level, seeded closed-loop records of the 5-DOF arm under
its PD controller, each identified by least squares, IDIM-IV and DIDIM on the same record.
Every level simulates all draws together and so do the iterations, but the whole study still
takes minutes: chapter 12 loads the stored result
(``robidlib.closed_loop_study.load_closed_loop_study``) and recomputes a few draws
to check it; ``tests/test_closed_loop.py`` re-runs one draw of the recipe against the file.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import scipy

import robidlib
from robidlib.closed_loop_study import closed_loop_study, method_comparison

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "robidlib" / "data" / "studies" / "closed_loop_mc.json"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=None, help="draws per level (default: the recipe's)")
    ap.add_argument("--out", type=Path, default=OUT, help="where to write (default: the package data)")
    ap.add_argument("--overwrite", action="store_true", help="replace an existing file")
    ap.add_argument("--methods", action="store_true",
                    help="store the four-method comparison on one record (closed_loop_methods.json) instead")
    args = ap.parse_args(argv)
    if args.methods and args.out == OUT:
        args.out = OUT.with_name("closed_loop_methods.json")
    if args.out.exists() and not args.overwrite:
        print(f"{args.out} exists; pass --overwrite to replace it", file=sys.stderr)
        return 1
    if args.methods:
        results, meta = method_comparison()
        meta["cpu_seconds_total"] = float(sum(meta["cpu_seconds"].values()))
    else:
        results, meta = closed_loop_study(draws=args.draws)
    meta["versions"] = {"robidlib": robidlib.__version__, "numpy": np.__version__, "scipy": scipy.__version__,
                        "python": sys.version.split()[0]}
    doc = {"format": "robidlib-study/1", "name": args.out.stem, "meta": meta,
           "results": {k: np.round(v, 10).tolist() for k, v in results.items()}}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
