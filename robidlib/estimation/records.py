"""Stored runs of the augmented-state EKF: a recipe, and its result kept as package data.

The source paper identifies its 5-DOF arm with an EKF discretised by Euler's method at
``dt = 0.02 s`` and shows the evolution of every parameter estimate (:cite:t:`urrea2017`,
sec. 4.4 and Fig. 6).  :func:`simulate_identification` is that experiment in a reusable
form: a robot driven along an excitation, its exact joint torques, joint positions measured
with white noise, a "CAD" initial guess with random errors, and one
:class:`~robidlib.estimation.augmented.AugmentedStateIdentifier` run per (integrator, torque
interpolation) setting.  For the 5-DOF arm (``nx = 30``) the runs take several seconds, so
chapter 8 loads a stored result (:func:`load_filter_runs`) whose recipe is stored with it;
the unit tests re-run the recipe and compare.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .._validate import as_array, check_positive
from .augmented import AugmentedStateIdentifier
from .base_model import robot_base_model, with_finite_differences

__all__ = ["simulate_identification", "save_filter_runs", "load_filter_runs", "stored_filter_runs"]

#: Where the stored runs live (package data).
RUNS_DIR = Path(__file__).resolve().parents[1] / "data" / "filter_runs"
_FORMAT = "robidlib-filter-runs/1"
_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789_-")


def simulate_identification(
    robot: Any,
    excitation: Any,
    *,
    duration: float,
    dt: float = 0.02,
    sigma_q: float = 1e-3,
    cad_error: float = 0.1,
    p0_rel: float = 0.25,
    p0_floor: float = 0.002,
    qd_noise: float = 1e-8,
    seed: int = 7,
    settings: Sequence[tuple[str, str]] = (("euler", "hold"), ("rk4", "cubic")),
    every: int = 5,
) -> dict[str, Any]:
    """Identify a robot's base parameters with the augmented EKF from simulated noisy positions.

    The recipe, step by step:

    1. ``t = dt * arange(round(duration / dt))``; ``q, qd, qdd`` from ``excitation`` and the
       exact torques ``tau`` from the inverse dynamics of ``robot``;
    2. with ``rng = default_rng(seed)``: measured positions ``z = q + sigma_q * N(0, 1)``, then
       a "CAD" robot whose standard parameters carry relative errors ``cad_error * N(0, 1)``
       (zero parameters stay zero); its base parameters are the initial guess ``beta0``;
    3. for each ``(integrator, torque)`` of ``settings`` an
       :class:`~robidlib.estimation.augmented.AugmentedStateIdentifier` on
       ``with_finite_differences(robot_base_model(robot))`` with
       ``x0 = [z_0, (z_1 - z_0) / dt, beta0]``,
       ``P0 = diag(sigma_q^2, 0.1^2, (p0_rel |beta0| + p0_floor)^2)``,
       ``Q = diag(0, qd_noise, 0)`` and ``R = sigma_q^2 I`` runs over the record.

    Parameters
    ----------
    robot : SerialRobot
        The "real" robot (its base parameters are the truth).
    excitation : FourierTrajectory
        The motion (one row of coefficients per joint of ``robot``).
    duration : float
        Length of the record (s).
    dt : float, default 0.02
        Sampling period and filter step (s); the source paper's value.
    sigma_q : float, default 1e-3
        Standard deviation of the position noise (rad or m).
    cad_error : float, default 0.1
        Relative standard deviation of the errors of the initial guess.
    p0_rel, p0_floor : float
        Initial standard deviation of each parameter, ``p0_rel |beta0_i| + p0_floor``.
    qd_noise : float, default 1e-8
        Process-noise variance on the velocities (per step).
    seed : int, default 7
        Seed of the noise and of the initial guess.
    settings : sequence of (str, str)
        ``(integrator, torque)`` pairs, ``integrator`` in ``{"euler", "rk4"}``, ``torque`` in
        ``{"hold", "cubic"}`` (see :meth:`AugmentedStateIdentifier.run`).
    every : int, default 5
        Keep every ``every``-th sample of the histories (and the last one).

    Returns
    -------
    dict
        ``"meta"`` (the recipe: every argument above, the excitation's coefficients, the
        robot's name, its parameter names), ``"names"``, ``"truth"`` (p,), ``"beta0"`` (p,),
        ``"t"`` (K,) the kept times, and ``"runs"``: for each setting, labelled
        ``"<integrator>, <torque>"``, a dict with ``"params"``, ``"std"`` (K, p) and
        ``"final"``, ``"final_std"`` (p,).

    Raises
    ------
    ValueError
        On a bad duration, step, noise level, setting or ``every``, an excitation with
        another number of joints than ``robot``, or a failing filter (with its step).
    TypeError
        If ``robot`` is not a SerialRobot, ``excitation`` has no ``evaluate`` method, or
        ``settings`` is not a sequence of pairs.

    Examples
    --------
    >>> from robidlib.models import planar_2r
    >>> from robidlib.trajectories import FourierTrajectory
    >>> exc = FourierTrajectory(wf=1.2, a=[[0.6, 0.3], [0.8, -0.4]], b=[[0.2, -0.3], [-0.3, 0.2]],
    ...                         q0=[-1.5, 0.0])
    >>> out = simulate_identification(planar_2r(), exc, duration=2.0, settings=[("rk4", "cubic")])
    >>> list(out["runs"]), out["runs"]["rk4, cubic"]["params"].shape
    (['rk4, cubic'], (21, 6))
    """
    from ..base import base_parameters
    from ..dynamics import inverse_dynamics
    from ..robot import SerialRobot

    if not isinstance(robot, SerialRobot):
        raise TypeError(f"robot must be a SerialRobot, got {type(robot).__name__}")
    if not callable(getattr(excitation, "evaluate", None)):
        raise TypeError(f"excitation must be a trajectory with evaluate(t), got {type(excitation).__name__}")
    duration = check_positive("duration", duration)
    dt = check_positive("dt", dt)
    sigma_q = check_positive("sigma_q", sigma_q)
    cad_error = check_positive("cad_error", cad_error, allow_zero=True)
    p0_rel = check_positive("p0_rel", p0_rel)
    p0_floor = check_positive("p0_floor", p0_floor, allow_zero=True)
    qd_noise = check_positive("qd_noise", qd_noise, allow_zero=True)
    for label, v, low in (("seed", seed, 0), ("every", every, 1)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < low:
            raise ValueError(f"{label} must be an integer >= {low}, got {v!r}")
    if isinstance(settings, (str, bytes)) or not hasattr(settings, "__iter__"):
        raise TypeError(f"settings must be a sequence of (integrator, torque) pairs, got {type(settings).__name__}")
    if any(isinstance(s, (str, bytes)) or not hasattr(s, "__iter__") for s in settings):
        raise TypeError(f"settings must hold (integrator, torque) pairs, got {settings!r}")
    settings = [tuple(s) for s in settings]
    if not settings or any(len(s) != 2 or s[0] not in ("euler", "rk4") or s[1] not in ("hold", "cubic")
                           for s in settings):
        raise ValueError(f"settings must be (integrator, torque) pairs from {{euler, rk4}} x {{hold, cubic}}, "
                         f"got {settings!r}")
    N = int(round(duration / dt))
    if N < 3:
        raise ValueError(f"duration / dt must give at least 3 samples, got {N}")
    t = dt * np.arange(N)
    q, qd, qdd = (np.asarray(v, dtype=float) for v in excitation.evaluate(t))
    n = robot.n
    if q.shape != (N, n):
        raise ValueError(f"the excitation must move the robot's {n} joints, got positions of shape {q.shape}")
    tau = inverse_dynamics(robot, q, qd, qdd)
    rng = np.random.default_rng(seed)
    z = q + sigma_q * rng.standard_normal(q.shape)
    base = base_parameters(robot)
    exact = robot_base_model(robot, base)
    cad = robot.with_params(robot.params * (1.0 + cad_error * rng.standard_normal(robot.params.size)))
    beta0 = robot_base_model(cad, base).params
    model = with_finite_differences(exact)
    p = exact.n_params
    P0 = np.r_[np.full(n, sigma_q**2), np.full(n, 0.1**2), (p0_rel * np.abs(beta0) + p0_floor) ** 2]
    Q = np.r_[np.zeros(n), np.full(n, qd_noise), np.zeros(p)]
    keep = np.unique(np.r_[np.arange(0, N, every), N - 1])
    runs = {}
    for integrator, torque in settings:
        ident = AugmentedStateIdentifier(model, dt, x0=np.r_[z[0], (z[1] - z[0]) / dt, beta0], Q=Q,
                                         R=np.full(n, sigma_q**2), P0=P0, integrator=integrator,
                                         record_history=False)
        h = ident.run(t, tau, z, torque=torque)
        runs[f"{integrator}, {torque}"] = {
            "params": h["params"][keep], "std": h["std"][keep],
            "final": h["params"][-1].copy(), "final_std": h["std"][-1].copy(),
        }
    meta = {
        "recipe": "robidlib.estimation.records.simulate_identification",
        "robot": getattr(robot, "name", ""),
        "excitation": {"wf": float(excitation.wf), "a": np.asarray(excitation.a).tolist(),
                       "b": np.asarray(excitation.b).tolist(), "q0": np.asarray(excitation.q0).tolist()},
        "duration": duration, "dt": dt, "sigma_q": sigma_q, "cad_error": cad_error, "p0_rel": p0_rel,
        "p0_floor": p0_floor, "qd_noise": qd_noise, "seed": int(seed),
        "settings": [list(s) for s in settings], "every": int(every),
    }
    return {"meta": meta, "names": tuple(exact.param_names), "truth": exact.params.copy(), "beta0": beta0,
            "t": t[keep], "runs": runs}


def _folder(directory: Any) -> Path:
    if directory is None:
        return Path(RUNS_DIR)
    if isinstance(directory, bool) or not isinstance(directory, (str, os.PathLike)):
        raise TypeError(f"directory must be a path (str or os.PathLike), got {type(directory).__name__} {directory!r}")
    return Path(directory)


def _path(name: str, directory: Any) -> Path:
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    if not name or not set(name) <= _NAME_CHARS:
        raise ValueError(f"name must be non-empty lower-case letters, digits, '_' or '-', got {name!r}")
    return _folder(directory) / f"{name}.json"


def save_filter_runs(
    result: dict[str, Any], name: str, *, directory: str | os.PathLike, overwrite: bool = False
) -> Path:
    """Store the result of :func:`simulate_identification` as JSON and return the path.

    The file is ``directory/name.json``. Nothing is written into the installed robidlib
    package (the stored runs are made in the project's source tree by
    ``tools/store_filter_runs.py``), no folder is created and no file replaced unasked (see
    :mod:`robidlib._io`).

    Parameters
    ----------
    result : dict
        As returned by :func:`simulate_identification`.
    name : str
        File stem (lower-case letters, digits, ``_``, ``-``).
    directory : str or os.PathLike
        An existing folder to write to (no default: robidlib writes only where you say).
    overwrite : bool, default False
        Replace an existing ``name.json``.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    TypeError
        If ``result`` is not a dict, ``name`` not a string, ``directory`` not a path or
        ``overwrite`` not a bool.
    ValueError
        If ``result`` lacks a key of :func:`simulate_identification`'s result, holds
        non-finite numbers, ``name`` is not a valid file stem, or ``directory`` is inside
        the installed robidlib package.
    FileExistsError
        If the file exists and ``overwrite`` is False.
    FileNotFoundError
        If ``directory`` does not exist.
    """
    from .._io import destination, write_text

    if not isinstance(result, dict):
        raise TypeError(f"result must be the dict of simulate_identification, got {type(result).__name__}")
    missing = {"meta", "names", "truth", "beta0", "t", "runs"} - set(result)
    if missing:
        raise ValueError(f"result lacks {sorted(missing)} (expected the output of simulate_identification)")
    destination(directory, "directory")           # given, a path, not inside the installed package
    path = _path(name, directory)
    try:
        doc = {
            "format": _FORMAT, "name": name, "meta": result["meta"], "names": list(result["names"]),
            "truth": as_array("result['truth']", result["truth"], ndim=1).tolist(),
            "beta0": as_array("result['beta0']", result["beta0"], ndim=1).tolist(),
            "t": as_array("result['t']", result["t"], ndim=1).tolist(),
            "runs": {label: {k: as_array(f"result['runs'][{label!r}][{k!r}]", v).tolist() for k, v in run.items()}
                     for label, run in result["runs"].items()},
        }
        text = json.dumps(doc, allow_nan=False)
    except (TypeError, ValueError, AttributeError) as exc:
        raise ValueError(f"result must hold JSON-serialisable finite data as simulate_identification returns "
                         f"it: {exc}") from None
    return write_text(path, text + "\n", overwrite=overwrite)


def load_filter_runs(name: str, *, directory: Any = None) -> dict[str, Any]:
    """Load stored filter runs: the same dict as :func:`simulate_identification` returns.

    Parameters
    ----------
    name : str
        File stem (see :func:`stored_filter_runs`).
    directory : path-like, optional
        Default robidlib's package data.

    Returns
    -------
    dict
        ``"meta"``, ``"names"`` (tuple), ``"truth"``, ``"beta0"``, ``"t"`` and ``"runs"``
        (arrays).

    Raises
    ------
    ValueError
        If no such record is stored (the message lists those that are) or the file is not one.
    TypeError
        If ``name`` is not a string or ``directory`` not a path.

    Examples
    --------
    >>> from robidlib.estimation.records import load_filter_runs
    >>> runs = load_filter_runs("redundant_5dof_ekf")
    >>> runs["meta"]["dt"], sorted(runs["runs"])
    (0.02, ['euler, hold', 'rk4, cubic'])
    """
    path = _path(name, directory)
    if not path.exists():
        raise ValueError(f"name {name!r} is not a stored filter record in {path.parent}; expected one of "
                         f"{stored_filter_runs(directory=directory)}")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        if doc.get("format") != _FORMAT:
            raise KeyError("format")
        out = {
            "meta": doc["meta"], "names": tuple(doc["names"]),
            "truth": as_array("truth", doc["truth"], ndim=1), "beta0": as_array("beta0", doc["beta0"], ndim=1),
            "t": as_array("t", doc["t"], ndim=1),
            "runs": {label: {k: np.asarray(v, dtype=float) for k, v in run.items()}
                     for label, run in doc["runs"].items()},
        }
    except (KeyError, TypeError, ValueError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path} is not a stored filter record ({exc})") from None
    return out


def stored_filter_runs(*, directory: Any = None) -> list[str]:
    """Names of the stored filter records (sorted).

    Examples
    --------
    >>> from robidlib.estimation.records import stored_filter_runs
    >>> "redundant_5dof_ekf" in stored_filter_runs()
    True
    """
    d = _folder(directory)
    return sorted(p.stem for p in d.glob("*.json")) if d.is_dir() else []
