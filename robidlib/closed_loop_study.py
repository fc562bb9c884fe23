"""Chapter 12's experiment and its Monte Carlo: least squares, IDIM-IV and DIDIM on the same draws.

:func:`chapter_setup` builds the experiment of chapter 12 from a recipe (a dict of plain
data): the 5-DOF arm with friction, its base model, the stored excitation as the reference,
a PD controller, the sensors. :func:`closed_loop_study` runs the seeded Monte Carlo of the
chapter: for each noise level, ``draws`` closed-loop records, each identified by least
squares, IDIM-IV and DIDIM; every method sees the same records. All draws of a level are
simulated together, and so are the iterations of IV and DIDIM (one batched simulation of
the ``draws`` current estimates per iteration), which is what makes the study affordable.
It takes minutes, so the chapter loads the stored result (:func:`load_closed_loop_study`,
package data ``robidlib/data/studies/closed_loop_mc.json``, written by
``tools/store_closed_loop.py``) and recomputes a few draws to check it.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from ._validate import check_int

__all__ = ["CHAPTER_RECIPE", "chapter_setup", "closed_loop_study", "draw_seeds", "level_sensors",
           "load_closed_loop_study", "method_comparison",
           "scaled_error"]

#: Where the stored study lives (package data; the format of ``robidlib.book``'s studies).
STUDY_FILE = Path(__file__).resolve().parent / "data" / "studies" / "closed_loop_mc.json"
_FORMAT = "robidlib-study/1"

#: The chapter's experiment and study, as data.
CHAPTER_RECIPE: dict[str, Any] = {
    "chapter": "12_closed_loop",
    "friction": [[40.0, 15.0], [0.8, 1.0], [0.8, 1.0], [0.5, 0.6], [20.0, 5.0]],   # catalogue values
    "excitation": "redundant_5dof_friction",   # stored excitation: the reference (one period, 5 s)
    "dt": 0.005,                               # 200 Hz controller and record
    "bandwidth": 5.0,                          # PD closed-loop bandwidth, Hz
    "damping": 1.0,
    "velocity_cutoff": 20.0,                   # the drives' velocity filter, Hz
    "resolution": [1e-6, 1e-5, 1e-5, 1e-5, 1e-6],   # encoders at the joints (m, rad)
    "sigma_q": [2e-6, 1e-5, 1e-5, 1e-5, 2e-6],      # position noise at level 1 (m, rad)
    "sigma_tau_fraction": 0.01,                # torque noise: this times each joint's RMS torque
    "cutoff": 30.0,                            # position low-pass of the IDIM pipeline, Hz
    "threshold_fraction": 0.05,                # equations dropped below this times the peak speed
    "levels": [0.0, 50.0, 100.0],              # noise levels (multiples of sigma_q)
    "draws": 40,
    "iv_iterations": 4,
    "didim_iterations": 4,
    "seed": 12,                                # draw d of level i: default_rng([seed, i, d])
}


def chapter_setup(recipe: dict[str, Any] | None = None) -> dict[str, Any]:
    """The chapter's robot, model, reference, controller, experiment and sensors.

    Parameters
    ----------
    recipe : dict, optional
        Default :data:`CHAPTER_RECIPE`.

    Returns
    -------
    dict
        ``"robot"``, ``"base"``, ``"model"`` (base parameters and friction),
        ``"truth"`` (the model's parameters), ``"reference"``, ``"controller"``,
        ``"experiment"``, ``"sensors"`` (level 1), ``"threshold"`` (per joint),
        ``"scale"`` (the RMS of each column of the exact regressor: the weights of
        :func:`scaled_error`), ``"exact"`` (the noise-free record).

    Raises
    ------
    TypeError
        If ``recipe`` is not a dict.
    KeyError
        If it lacks a key of :data:`CHAPTER_RECIPE`.

    Examples
    --------
    >>> s = chapter_setup()
    >>> s["experiment"].n_params, s["experiment"].n_samples
    (30, 1000)
    """
    from .base import base_parameters
    from .closed_loop import ClosedLoopExperiment, Sensors, pd_controller, simulate_closed_loop
    from .models import redundant_5dof
    from .trajectories import load_excitation
    from .estimation.base_model import robot_base_model

    r = CHAPTER_RECIPE if recipe is None else recipe
    if not isinstance(r, dict):
        raise TypeError(f"recipe must be a dict, got {type(r).__name__}")
    robot = redundant_5dof(friction=r["friction"])
    base = base_parameters(robot, friction=True, rng=0)
    model = robot_base_model(robot, base)
    ft, _ = load_excitation(r["excitation"])
    t = r["dt"] * np.arange(int(round(ft.period / r["dt"])))
    reference = ft.evaluate(t)
    truth = model.params
    controller = pd_controller(model, truth, reference, bandwidth=r["bandwidth"], damping=r["damping"],
                               velocity_cutoff=r["velocity_cutoff"])
    experiment = ClosedLoopExperiment(model, reference, controller)
    exact = simulate_closed_loop(experiment, truth)
    rms = np.sqrt(np.mean(exact.tau**2, axis=0))
    sensors = Sensors(np.array(r["resolution"], float), np.array(r["sigma_q"], float), r["sigma_tau_fraction"] * rms)
    Y = np.asarray(model.regressor(exact.q, exact.qd, exact.qdd)).reshape(-1, truth.size)
    return {"robot": robot, "base": base, "model": model, "truth": truth, "reference": reference,
            "controller": controller, "experiment": experiment, "sensors": sensors, "exact": exact,
            "threshold": r["threshold_fraction"] * np.abs(reference.qd).max(axis=0),
            "scale": np.sqrt(np.mean(Y**2, axis=0))}


def scaled_error(estimates: Any, truth: Any, scale: Any) -> np.ndarray:
    """``100 ||D (b - b_true)|| / ||D b_true||`` per row: the error weighted by each parameter's effect on the torques.

    Parameters
    ----------
    estimates : array_like, shape (p,) or (K, p)
    truth, scale : array_like, shape (p,)
        ``scale`` is ``D``, e.g. the RMS of each regressor column.

    Returns
    -------
    float or numpy.ndarray, shape (K,)

    Raises
    ------
    ValueError
        Shapes that do not match, NaN/inf.

    Examples
    --------
    >>> round(float(scaled_error([1.1, 2.0], [1.0, 2.0], [1.0, 0.0])), 9)
    10.0
    """
    from ._validate import as_array

    E = as_array("estimates", estimates, ndim=(1, 2))
    if E.size == 0:
        raise ValueError(f"estimates must not be empty, got shape {E.shape}")
    t, d = as_array("truth", truth, ndim=1), as_array("scale", scale, ndim=1)
    for name, v in (("truth", t), ("scale", d)):
        if v.size != E.shape[-1]:
            raise ValueError(f"{name} must have {E.shape[-1]} entries (the last axis of estimates), got {v.shape}; "
                             "estimates, truth and scale must describe the same parameters")
    den = np.linalg.norm(d * t)
    if den == 0:
        raise ValueError("scale * truth must not be zero (the error is relative to it)")
    out = 100.0 * np.linalg.norm(d * (E - t), axis=-1) / den
    return float(out) if E.ndim == 1 else out


def level_sensors(sensors: Any, level: float) -> Any:
    """The study's sensors at a noise level: the position noise times ``level``, resolution and torque noise kept.

    Examples
    --------
    >>> from robidlib.closed_loop import Sensors
    >>> level_sensors(Sensors([1e-5], [1e-5], [0.1]), 10.0).sigma_q.tolist()
    [0.0001]
    """
    from ._validate import check_nonnegative
    from .closed_loop import Sensors

    if not isinstance(sensors, Sensors):
        raise TypeError(f"sensors must be a Sensors, got {type(sensors).__name__}")
    return Sensors(sensors.resolution.copy(), check_nonnegative("level", level) * sensors.sigma_q,
                   sensors.sigma_tau.copy())


def draw_seeds(recipe: dict[str, Any], level: int, draws: Any) -> list[np.random.Generator]:
    """The noise generators of the study's draws ``draws`` at level index ``level``: one per draw,
    ``numpy.random.default_rng([seed, level, draw])``, so any draw can be recomputed alone.

    Examples
    --------
    >>> g = draw_seeds(CHAPTER_RECIPE, 1, [0, 5])
    >>> len(g), float(g[0].random()) == float(draw_seeds(CHAPTER_RECIPE, 1, [0])[0].random())
    (2, True)
    """
    from collections.abc import Mapping

    seed = recipe.get("seed") if isinstance(recipe, Mapping) else None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"recipe must be a study recipe (a dict with an int 'seed', e.g. CHAPTER_RECIPE), got "
                        f"{type(recipe).__name__}" + (f" with seed {seed!r}" if isinstance(recipe, Mapping) else ""))
    level = check_int("level", level, 0)
    if isinstance(draws, (str, bytes)) or np.ndim(draws) != 1:
        raise TypeError(f"draws must be a sequence of draw indices (ints >= 0), got {type(draws).__name__}")
    return [np.random.default_rng([int(seed), level, check_int("draws", d, 0)]) for d in draws]


def _iterate(experiment: Any, W: list, y: list, samples: np.ndarray, keeps: list, B0: np.ndarray,
             iterations: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """IV or DIDIM iterations for many draws at once: estimates (D, p) and history (iterations + 1, D, p)."""
    from .closed_loop import simulate_closed_loop
    from .estimation.closed_loop import _iv_solve

    B = B0.copy()
    hist = [B.copy()]
    for _ in range(iterations):
        rec = simulate_closed_loop(experiment, B, on_failure="nan")
        B[rec.failed] = np.nan            # a draw whose estimate cannot be simulated: stopped, reported as NaN
        fin = lambda a: np.nan_to_num(a[:, samples]).reshape(-1, experiment.n_joints)   # noqa: E731
        Y = np.asarray(experiment.model.regressor(fin(rec.q), fin(rec.qd), fin(rec.qdd)))
        Y = Y.reshape(B.shape[0], samples.size, experiment.n_joints, -1)
        for d in range(B.shape[0]):
            if rec.failed[d]:
                continue
            Z = Y[d][keeps[d]]
            if kind == "iv":
                B[d] = _iv_solve(W[d], y[d], Z)[0]
            else:
                B[d] = np.linalg.lstsq(Z, y[d], rcond=None)[0]
        hist.append(B.copy())
    return B, np.array(hist)


def closed_loop_study(recipe: dict[str, Any] | None = None, *, draws: int | None = None,
                      levels: Any = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The Monte Carlo of chapter 12: LS, IDIM-IV and DIDIM over seeded closed-loop records.

    For each noise level ``L`` (the sensors' position noise times ``L``, the torque noise
    and the encoder resolution kept: :func:`level_sensors`),
    ``draws`` records of the experiment are simulated, draw ``d`` of level ``i`` with the
    generator of :func:`draw_seeds`; each is reduced to IDIM data (:func:`robidlib.closed_loop.idim_data`) and
    identified by ordinary least squares, then by ``iv_iterations`` IDIM-IV iterations and
    ``didim_iterations`` DIDIM iterations, both started from the least-squares estimate.

    Parameters
    ----------
    recipe : dict, optional
        Default :data:`CHAPTER_RECIPE`.
    draws : int, optional
        Override the recipe's number of draws (a quick check of a few).
    levels : sequence of float, optional
        Override the recipe's levels.

    Returns
    -------
    results : dict of str to numpy.ndarray
        ``"<level index>/<method>"`` (``method`` in ``ls``, ``iv``, ``didim``) the estimates
        ``(draws, p)``; ``"<level index>/iv_history"`` and ``"/didim_history"`` the iterates
        ``(iterations + 1, draws, p)``.
    meta : dict
        ``"recipe"`` (with the overrides), ``"truth"``, ``"scale"``, ``"names"``,
        ``"cpu_seconds"``.

    Raises
    ------
    ValueError, TypeError
        Bad ``draws`` or ``levels``.

    Examples
    --------
    >>> res, meta = closed_loop_study(draws=1, levels=[0.0])   # doctest: +SKIP
    """
    from .closed_loop import idim_data, simulate_closed_loop
    from .estimation.lsq import ols

    r = dict(CHAPTER_RECIPE if recipe is None else recipe)
    if draws is not None:
        r["draws"] = check_int("draws", draws, 1, 10000)
    if levels is not None:
        lv = np.asarray(levels, dtype=float)
        if lv.ndim != 1 or lv.size == 0 or np.any(~np.isfinite(lv)) or np.any(lv < 0):
            raise ValueError(f"levels must be a non-empty sequence of finite values >= 0, got {levels!r}")
        r["levels"] = lv.tolist()
    s = chapter_setup(r)
    exp, model, truth = s["experiment"], s["model"], s["truth"]
    D = r["draws"]
    out: dict[str, np.ndarray] = {}
    t0 = time.process_time()
    for i, level in enumerate(r["levels"]):
        rec = simulate_closed_loop(exp, np.repeat(truth[None], D, axis=0), sensors=level_sensors(s["sensors"], level),
                                   rng=draw_seeds(r, i, range(D)))
        W, y, keeps, B = [], [], [], []
        samples = None
        for d in range(D):
            Wd, yd, samples, kd = idim_data(model, rec.draw(d), cutoff=r["cutoff"], velocity_threshold=s["threshold"])
            W.append(Wd)
            y.append(yd)
            keeps.append(kd)
            B.append(ols(Wd, yd).params)
        B = np.array(B)
        out[f"{i}/ls"] = B
        ys = [rec.tau_meas[d][samples][keeps[d]] for d in range(D)]
        out[f"{i}/iv"], out[f"{i}/iv_history"] = _iterate(exp, W, y, samples, keeps, B, r["iv_iterations"], "iv")
        out[f"{i}/didim"], out[f"{i}/didim_history"] = _iterate(exp, W, ys, samples, keeps, B,
                                                                r["didim_iterations"], "didim")
    meta = {"recipe": r, "truth": truth.tolist(), "scale": s["scale"].tolist(), "names": list(model.param_names),
            "cpu_seconds": time.process_time() - t0}
    return out, meta


def load_closed_loop_study(path: Any = None, name: str = "closed_loop_mc") -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The stored Monte Carlo of chapter 12 (package data written by ``tools/store_closed_loop.py``).

    Parameters
    ----------
    path : str or os.PathLike, optional
        Another file in the same format (default the package data).
    name : {"closed_loop_mc", "closed_loop_methods"}, default "closed_loop_mc"
        Which stored file: the Monte Carlo (:func:`closed_loop_study`) or the comparison of
        the four methods on one record (:func:`method_comparison`).

    Returns
    -------
    results : dict of str to numpy.ndarray
    meta : dict
        As :func:`closed_loop_study`, plus ``"versions"``.

    Raises
    ------
    TypeError
        If ``path`` is not a path.
    ValueError
        If the file is missing or not a stored study.

    Examples
    --------
    >>> res, meta = load_closed_loop_study()
    >>> res["0/ls"].shape == (meta["recipe"]["draws"], len(meta["names"]))
    True
    """
    import os

    from ._validate import check_choice

    check_choice("name", name, ("closed_loop_mc", "closed_loop_methods"))
    if path is None:
        p = STUDY_FILE.with_name(f"{name}.json")
    elif isinstance(path, (str, os.PathLike)):
        p = Path(path)
    else:
        raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
    if not p.is_file():
        raise ValueError(f"path {str(p)!r} is not a stored study: run tools/store_closed_loop.py")
    doc = json.loads(p.read_text(encoding="utf-8"))
    if not isinstance(doc, dict) or doc.get("format") != _FORMAT:
        raise ValueError(f"path {str(p)!r} is not a stored study (format {_FORMAT!r} expected)")
    return {k: np.asarray(v, dtype=float) for k, v in doc["results"].items()}, doc["meta"]


def method_comparison(recipe: dict[str, Any] | None = None, *, level: int = -1, draw: int = 0,
                      max_nfev: int = 40) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """LS, IDIM-IV, DIDIM and closed-loop output error on one record of the study, with their cost.

    The record is draw ``draw`` of level index ``level`` of :func:`closed_loop_study` (the
    same noise). IDIM-IV and DIDIM run to their tolerances (:func:`~robidlib.estimation.idim_iv`,
    :func:`~robidlib.estimation.didim`), the output error
    (:func:`~robidlib.estimation.output_error`, torque output) up to ``max_nfev`` evaluations;
    all start from least squares.

    Parameters
    ----------
    recipe : dict, optional
        Default :data:`CHAPTER_RECIPE`.
    level : int, default -1
        Index into the recipe's levels (negative counts from the end).
    draw : int, default 0
    max_nfev : int, default 40

    Returns
    -------
    results : dict of str to numpy.ndarray
        ``"<method>/params"``, ``"<method>/std"`` (``ls``, ``iv``, ``didim``, ``oe``);
        ``"<method>/residual"`` the norm of the torque residual of the *simulated* model
        (``||y - tau_s(b)||``, the output-error criterion) for every method.
    meta : dict
        ``"recipe"``, ``"level"``, ``"draw"``, ``"cpu_seconds"``, ``"simulations"``,
        ``"iterations"`` per method, the output error's ``"oe_message"``.

    Raises
    ------
    ValueError, TypeError
        Bad ``level``, ``draw`` or ``max_nfev``.

    Examples
    --------
    >>> res, meta = method_comparison(max_nfev=2)   # doctest: +SKIP
    """
    from .closed_loop import idim_data, simulate_closed_loop
    from .estimation.closed_loop import didim, idim_iv, output_error
    from .estimation.lsq import ols

    r = dict(CHAPTER_RECIPE if recipe is None else recipe)
    levels = list(r["levels"])
    li = check_int("level", level, -len(levels), len(levels) - 1) % len(levels)
    d = check_int("draw", draw, 0)
    s = chapter_setup(r)
    exp, model, truth = s["experiment"], s["model"], s["truth"]
    rec = simulate_closed_loop(exp, truth, sensors=level_sensors(s["sensors"], levels[li]),
                               rng=draw_seeds(r, li, [d])[0])
    W, y, samples, keep = idim_data(model, rec, cutoff=r["cutoff"], velocity_threshold=s["threshold"])
    yt = rec.tau_meas[samples][keep]
    t0 = time.process_time()
    ls = ols(W, y, names=model.param_names)
    t_ls = time.process_time() - t0
    ests = {"ls": ls,
            "iv": idim_iv(exp, W, y, ls.params, samples=samples, keep=keep, names=model.param_names),
            "didim": didim(exp, yt, ls.params, samples=samples, keep=keep, names=model.param_names),
            "oe": output_error(exp, yt, ls.params, samples=samples, keep=keep, max_nfev=max_nfev,
                               names=model.param_names)}
    B = np.array([e.params for e in ests.values()])
    sims = simulate_closed_loop(exp, B, on_failure="nan")
    out: dict[str, np.ndarray] = {}
    for k, (m, e) in enumerate(ests.items()):
        out[f"{m}/params"] = e.params
        out[f"{m}/std"] = e.std
        out[f"{m}/residual"] = np.array(float(np.linalg.norm(yt - sims.tau[k][samples][keep])))
    meta = {"recipe": r, "level": li, "draw": d, "max_nfev": max_nfev,
            "cpu_seconds": {"ls": t_ls, **{m: float(ests[m].info["cpu_seconds"]) for m in ("iv", "didim", "oe")}},
            "simulations": {"ls": 0, **{m: int(ests[m].info["simulations"]) for m in ("iv", "didim", "oe")}},
            "iterations": {"iv": int(ests["iv"].info["iterations"]), "didim": int(ests["didim"].info["iterations"]),
                           "oe": int(ests["oe"].info["nfev"])},
            "converged": {"iv": bool(ests["iv"].info["converged"]), "didim": bool(ests["didim"].info["converged"]),
                          "oe": int(ests["oe"].info["status"]) > 0},
            "oe_message": ests["oe"].info["message"], "names": list(model.param_names), "truth": truth.tolist()}
    return out, meta
