"""Execute every chapter notebook once, on all cores, into the book's execution cache.

`jupyter-book build` (``execute_notebooks: cache``) then finds every notebook in the cache and
executes nothing; the student edition and the site tests reuse the same execution. Each
notebook is run by jupyter-cache's own parallel worker (``local-parallel``: one process per
core, the notebook run in its own folder, as the build would, and cached by the worker), so
nothing here re-implements execution. Only the schedule is ours: one notebook at a time per
process, in book order (jupyter-cache's ``Pool.map`` hands out pairs, which left a core idle
for the last notebook), and a status file that says which notebooks are done.

With ``--status FILE`` the build can start beside the execution (``make book`` does): the
book's extension (``_ext/bookinfo.py``) reads the file and holds the build at each chapter
until its notebook is in the cache, so Sphinx reads the API reference and the pages while the
notebooks run.

Usage::

    python tools/execute_book.py [--cache _build/.jupyter_cache] [--timeout SECONDS] [--status FILE]

Exits non-zero, with the traceback, when a notebook fails; prints each notebook's execution
time (a report, never a test: times depend on the machine).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from editions import toc_notebooks  # noqa: E402
from zmq_wakeups import install as sliced_zmq_waits  # noqa: E402


def write_status(path: Path | None, *, done: list[str], failed: list[str], finished: bool) -> None:
    """Write the execution status (read by ``_ext/bookinfo.py``) atomically to ``path``.

    ``done`` and ``failed`` hold notebook paths; ``finished`` says no notebook is left to run.
    """
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"pid": os.getpid(), "done": done, "failed": failed, "finished": finished}))
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    config = yaml.safe_load((ROOT / "_config.yml").read_text()).get("execute", {})
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=ROOT / config.get("cache", "_build/.jupyter_cache"))
    parser.add_argument("--timeout", type=int, default=int(config.get("timeout", 180)))
    parser.add_argument("--status", type=Path, default=None, help="JSON file: which notebooks are done")
    args = parser.parse_args(argv)
    done: list[str] = []
    failed: list[str] = []
    write_status(args.status, done=done, failed=failed, finished=False)
    try:
        return _execute(args, done, failed)
    finally:
        write_status(args.status, done=done, failed=failed, finished=True)


def _execute(args: argparse.Namespace, done: list[str], failed: list[str]) -> int:
    import multiprocessing

    from jupyter_cache import get_cache
    from jupyter_cache.cache.db import NbProjectRecord
    from jupyter_cache.executors.basic import ExecutionWorkerLocalMProc, ProcessData

    sliced_zmq_waits()        # a reply zmq.asyncio fails to notice costs 50 ms, not the cell timeout
    cache = get_cache(str(args.cache))
    records = [cache.add_nb_to_project(str(path)) for path in toc_notebooks()]
    unexecuted = {r.uri for r in cache.list_unexecuted()}
    todo = [r for r in records if r.uri in unexecuted]          # in book order
    done.extend(r.uri for r in records if r.uri not in unexecuted)   # the caller's lists
    write_status(args.status, done=done, failed=failed, finished=False)
    print(f"execute_book: {len(todo)} of {len(records)} notebooks need executing (the rest are cached)",
          flush=True)
    if not todo:
        return 0
    NbProjectRecord.remove_tracebacks([r.pk for r in todo], cache.db)
    jobs = [ProcessData(r.pk, r.uri, cache, args.timeout, False) for r in todo]
    start = time.perf_counter()
    with multiprocessing.Pool(min(len(jobs), os.cpu_count() or 1)) as pool:
        for code, uri in pool.imap_unordered(ExecutionWorkerLocalMProc(), jobs, chunksize=1):
            (done if code == 0 else failed).append(uri)
            write_status(args.status, done=done, failed=failed, finished=False)
            rec = cache.get_cached_project_nb(uri) if code == 0 else None
            seconds = rec.data.get("execution_seconds", float("nan")) if rec is not None else float("nan")
            print(f"  {Path(uri).name:32s} {seconds:6.1f} s{'' if code == 0 else '  FAILED'}", flush=True)
    wall = time.perf_counter() - start
    print(f"execute_book: {len(todo) - len(failed)} executed in {wall:.0f} s wall time", flush=True)
    for uri in failed:
        record = cache.get_project_record(uri)
        print(f"\nFAILED {uri}\n{record.traceback or '(no traceback recorded)'}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
