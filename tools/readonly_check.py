"""What ``tools/readonly_install.py`` runs inside the read-only install, as the other user.

Usage (the driver builds the command)::

    python -I -S tools/readonly_check.py SITE OUT.npz [--no-numba] [--cells NOTEBOOK STOP_ID ...]

``-I -S``: nothing of the interpreter's own site-packages, nothing from the environment's
``PYTHON*`` variables; the read-only ``SITE`` (the robidlib wheel and its dependencies) is
added here, with its ``.pth`` files. ``--no-numba`` makes ``import numba`` fail, as on a
platform without numba wheels. ``--cells NOTEBOOK STOP_ID`` runs the code cells of a chapter
from the first through the cell whose id is ``STOP_ID`` (figures on matplotlib's Agg backend),
pins included: the chapter's own assertions are the test.

The same small job runs every time (regressor, inverse dynamics, base parameters, a short
simulation; UR5); its arrays go to ``OUT.npz`` and one JSON line to stdout says how the
compiled loops ran (numba's cache folder, compiled or not, cache hits) for the driver to judge.
Only the standard library is imported before ``SITE`` is on the path.
"""

from __future__ import annotations

import json
import site
import sys
import time


def main(argv: list[str]) -> int:
    site_dir, out = argv[0], argv[1]
    rest = argv[2:]
    if "--no-numba" in rest:
        sys.modules["numba"] = None  # import numba -> ImportError
        rest.remove("--no-numba")
    site.addsitedir(site_dir)
    cells = []
    if rest[:1] == ["--cells"]:
        cells = [(rest[k], rest[k + 1]) for k in range(1, len(rest), 2)]
    elif rest:
        raise SystemExit(f"unknown arguments {rest}")
    cpu0 = time.process_time()

    import importlib

    import numpy as np

    import robidlib
    import robidlib.dynamics as dyn
    from robidlib import _jit
    from robidlib.base import base_parameters
    from robidlib.models import ur5

    reg = importlib.import_module("robidlib.regressor")  # (robidlib.regressor is the function)
    if not robidlib.__file__.startswith(site_dir):
        raise SystemExit(f"robidlib imported from {robidlib.__file__}, not from {site_dir}")

    r = ur5()
    rng = np.random.default_rng(3)
    lo, hi = r.q_limits.T
    q = rng.uniform(lo, hi, (200, 6))
    qd, qdd = rng.uniform(-1, 1, (2, 200, 6)) * np.array([r.qd_limits, r.qdd_limits])[:, None]
    Y = reg.regressor(r, q, qd, qdd)
    tau = dyn.inverse_dynamics(r, q, qd, qdd, include_friction=False)
    scale = np.abs(tau).max()
    if not np.allclose(Y @ r.params, tau, rtol=1e-12, atol=1e-12 * scale):
        raise SystemExit("regressor @ params differs from inverse_dynamics")
    bp = base_parameters(r, rng=0)
    sim = dyn.simulate(r, np.linspace(0.0, 0.2, 5), q[0], qd[0])
    np.savez(out, Y=Y, tau=tau, independent=bp.independent, K=bp.K, sim=sim.q)

    for notebook, stop in cells:
        _run_cells(notebook, stop)

    numba = sys.modules.get("numba")
    loops = {"regressor": reg._compiled_rows(), "rnea": dyn._compiled_rnea()}
    report = {
        "cache_dir": None if numba is None else (str(_jit.cache_dir()) if _jit.cache_dir() else None),
        "numba_imported": numba is not None,
        "compiled": {k: f is not None and f is not reg._regressor_rows for k, f in loops.items()},
        "cache_hits": {k: int(sum(f.stats.cache_hits.values())) if hasattr(f, "stats") else 0
                       for k, f in loops.items()},
        "cells": [f"{nb}:{stop}" for nb, stop in cells],
        "cpu_s": round(time.process_time() - cpu0, 2),
    }
    print(json.dumps(report))
    return 0


def _run_cells(notebook: str, stop: str) -> None:
    """Execute the code cells of ``notebook`` in order through the cell with id ``stop``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(notebook, encoding="utf-8") as f:
        nb = json.load(f)
    ids = [c.get("id") for c in nb["cells"] if c["cell_type"] == "code"]
    if stop not in ids:
        raise SystemExit(f"{notebook} has no code cell with id {stop!r}: update the cell ids in "
                         "tools/readonly_install.py (CHAPTER_CELLS)")
    namespace = {"__name__": "__main__"}
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        exec(compile(source, f"{notebook} [{cell.get('id')}]", "exec"), namespace)  # noqa: S102
        plt.close("all")
        if cell.get("id") == stop:
            return


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
