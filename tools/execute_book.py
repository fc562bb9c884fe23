"""Execute every chapter notebook once, on all cores, into the book's execution cache.

`jupyter-book build` (``execute_notebooks: cache``) then finds every notebook in the cache and
executes nothing; the student edition and the site tests reuse the same execution. This uses
jupyter-cache's own parallel executor (``local-parallel``: one process per core, each notebook
run in its own folder, as the build would), so nothing here re-implements execution.

Usage::

    python tools/execute_book.py [--cache _build/.jupyter_cache] [--timeout SECONDS]

Exits non-zero, with the traceback, when a notebook fails; prints each notebook's execution
time (a report, never a test: times depend on the machine).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from editions import toc_notebooks  # noqa: E402
from zmq_wakeups import install as sliced_zmq_waits  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    config = yaml.safe_load((ROOT / "_config.yml").read_text()).get("execute", {})
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=ROOT / config.get("cache", "_build/.jupyter_cache"))
    parser.add_argument("--timeout", type=int, default=int(config.get("timeout", 180)))
    args = parser.parse_args(argv)

    from jupyter_cache import get_cache
    from jupyter_cache.executors import load_executor

    sliced_zmq_waits()        # a reply zmq.asyncio fails to notice costs a second, not the cell timeout
    cache = get_cache(str(args.cache))
    notebooks = toc_notebooks()
    uris = []
    for path in notebooks:
        record = cache.add_nb_to_project(str(path))
        uris.append(record.uri)
    todo = [r.uri for r in cache.list_unexecuted() if r.uri in uris]
    print(f"execute_book: {len(todo)} of {len(uris)} notebooks need executing (the rest are cached)")
    if todo:
        start = time.perf_counter()
        result = load_executor("local-parallel", cache=cache).run_and_cache(filter_uris=todo, timeout=args.timeout, allow_errors=False)
        wall = time.perf_counter() - start
        failed = list(result.excepted) + list(result.errored)
        for uri in todo:
            rec = cache.get_cached_project_nb(uri) if uri in result.succeeded else None
            if rec is not None:
                print(f"  {Path(uri).name:32s} {rec.data.get('execution_seconds', float('nan')):6.1f} s")
        print(f"execute_book: {len(result.succeeded)} executed in {wall:.0f} s wall time")
        if failed:
            for uri in failed:
                record = cache.get_project_record(uri)
                print(f"\nFAILED {uri}\n{record.traceback or '(no traceback recorded)'}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
