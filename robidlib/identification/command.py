"""``robidlib-identify``: from a URDF and raw logs to a validated, physically consistent, exported model.

:func:`identify_robot` runs the whole identification from a configuration
(:mod:`~robidlib.identification.config`) and returns a :class:`RobotIdentification`;
:meth:`RobotIdentification.write` writes ``report.html`` (one self-contained file),
``result.json``, ``config.toml``, ``versions.txt`` and the exported ``model.urdf`` and
``model.xml`` (MJCF). :func:`main` is the command line (``python -m robidlib.identify`` and
the console script ``robidlib-identify``).

The steps, each stated in the report:

1. the URDF's chain (the configured joints; every other movable joint held at zero), the
   transmission and the drive model (:class:`~robidlib.identification.model.DriveModel`);
2. every record read by column name, converted to SI and the model's signs, cleaned
   (:func:`~robidlib.identification.logs.clean_record`: stamps, NaN rows, gaps, jitter,
   saturation) and checked against the URDF's limits (a unit mistake shows there);
3. the settings: what the configuration leaves ``"auto"`` is measured from the data
   (rate, motion bandwidth -> decimation and cut-off), and a setting that leaves too few
   equations per base parameter is refused with the numbers;
4. every segment through the pipeline (:func:`~robidlib.identification.preprocess.prepare`);
   the fitting data and the held-out data (other records, or the last part of each);
5. OLS, WLS, essential and physically consistent estimates
   (:func:`~robidlib.identification.estimate.identify`);
6. the held-out metric (:mod:`~robidlib.identification.metric`) per record and joint, and a
   blocked k-fold cross-validation within the fitting data;
7. diagnostics (what the record identifies, which joints carry signal, whether the torques
   match the CAD model's scale and sign), the export (URDF, MJCF) loaded back and compared,
   and the verdict, each item with its value, threshold and reason.
"""

from __future__ import annotations

import os
import platform
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from .._version import __version__
from ..estimation import ols
from ..robot import SerialRobot
from .config import IdentifyConfig, load_config, to_toml, unit_factor
from .drives import Transmission
from .estimate import IdentificationResult, identify, joint_sigmas, physical_estimator
from .export import check_export, identified_robot, mujoco_available, to_mjcf
from .logs import Segment, clean_record, detect_saturation, read_columns
from .metric import TorqueError, _errors, torque_error
from .model import DriveModel
from .preprocess import (IdentificationData, Settings, blocked_folds, concatenate, decimation_factors,
                         motion_bandwidth, prepare, split)
from .validate import predict_full_rate

__all__ = ["RobotIdentification", "identify_robot", "main"]

#: rank tolerance of the base parameters, relative to the largest singular value at random states
_RANK_RTOL = 1e-8

_OUTPUTS = ("report.html", "result.json", "config.toml", "versions.txt", "model.urdf", "model.xml")


class _Progress:
    """Prints one line per long step (with its duration) when enabled."""

    def __init__(self, enabled: bool | Callable[[str], None]) -> None:
        self.out = enabled if callable(enabled) else (
            (lambda s: print(s, file=sys.stderr, flush=True)) if enabled else None)
        self.t0 = time.perf_counter()
        self.timings: dict[str, float] = {}
        self._step: str | None = None
        self._tic = 0.0

    def __call__(self, step: str) -> None:
        self.done()
        self._step, self._tic = step, time.perf_counter()
        if self.out:
            self.out(f"[robidlib-identify] {step} ...")

    def done(self) -> None:
        if self._step is not None:
            dt = time.perf_counter() - self._tic
            self.timings[self._step] = dt
            if self.out:
                self.out(f"[robidlib-identify]   {dt:.2f} s")
            self._step = None


@dataclass(frozen=True, eq=False)
class RobotIdentification:
    """Everything :func:`identify_robot` found (the facts of ``report.html`` and ``result.json``).

    Attributes
    ----------
    config : IdentifyConfig
    robot : SerialRobot
        The URDF's chain with its CAD values.
    model : DriveModel
    settings : ~robidlib.identification.preprocess.Settings
        The pipeline settings used.
    settings_source : dict
        ``{setting: "config" or "from the data: ..."}``.
    records : dict
        Per record: role, files, the hygiene summary (:func:`clean_record`), saturation.
    train, test : ~robidlib.identification.preprocess.IdentificationData
        The fitted and the held-out data (all records stacked).
    result : ~robidlib.identification.estimate.IdentificationResult
    heldout : dict
        ``{method: TorqueError}`` on all held-out data.
    heldout_records : dict
        ``{record: {method: TorqueError}}``.
    fitted : TorqueError
        The metric of WLS on the fitted data (how much better a model looks on its own data).
    cv : dict
        Blocked k-fold cross-validation: ``folds`` (per fold ``overall`` and ``per_joint``),
        ``median``, ``min``, ``max``, ``k``, ``guard``.
    diagnostics : dict
        ``identifiability``, ``signal``, ``torque_scale``, ``conditioning``, ``velocity``.
    physical : dict
        The consistency certificate (empty when not computed).
    export : dict
        ``urdf`` and ``mjcf`` texts (or None) and ``check`` (the load-back comparison), or a
        ``reason`` why nothing was exported.
    verdict : dict
        ``status`` ("pass", "warn", "fail") and ``items`` (each ``name``, ``status``,
        ``value``, ``threshold``, ``reason``).
    warnings : list of str
        Warnings raised during the run (e.g. a decimation that removes motion).
    timings : dict
        Seconds per step.
    versions : dict
    predictions : dict
        ``{method: (K, n) torques}``: each estimate's prediction at the full rate of the
        held-out data (``test.full``), unfiltered.
    """

    config: IdentifyConfig
    robot: SerialRobot
    model: DriveModel
    settings: Settings
    settings_source: dict
    records: dict
    train: IdentificationData
    test: IdentificationData
    result: IdentificationResult
    heldout: dict
    heldout_records: dict
    fitted: TorqueError
    cv: dict
    diagnostics: dict
    physical: dict
    export: dict
    verdict: dict
    warnings: list = field(default_factory=list)
    timings: dict = field(default_factory=dict)
    versions: dict = field(default_factory=dict)
    predictions: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        from ..robot import SerialRobot
        from .estimate import IdentificationResult
        from .metric import TorqueError
        from .preprocess import IdentificationData, Settings

        for name, cls in (("config", IdentifyConfig), ("robot", SerialRobot), ("model", DriveModel),
                          ("settings", Settings), ("train", IdentificationData), ("test", IdentificationData),
                          ("result", IdentificationResult), ("fitted", TorqueError), ("warnings", list),
                          *((k, dict) for k in ("settings_source", "records", "heldout", "heldout_records", "cv",
                                                "diagnostics", "physical", "export", "verdict", "timings", "versions",
                                                "predictions"))):
            if not isinstance(getattr(self, name), cls):
                raise TypeError(f"{name} must be a {cls.__name__}, got {type(getattr(self, name)).__name__}")

    @property
    def relations(self) -> tuple[str, ...]:
        """The base parameters' relations (``result.base.relations``, formatted once)."""
        cache = self.__dict__.get("_relations")
        if cache is None:
            cache = self.result.base.relations
            object.__setattr__(self, "_relations", cache)
        return cache

    @property
    def methods(self) -> tuple[str, ...]:
        """The estimates evaluated (``ols``, ``wls``, ``essential`` and ``physical`` when computed)."""
        return tuple(self.heldout)

    def to_json(self) -> dict:
        """The facts as plain JSON-able Python (NaN and inf as None)."""
        from .report import result_json

        return result_json(self)

    def repeatable_config(self) -> dict:
        """The configuration with every ``"auto"`` setting replaced by the value the data gave.

        Read back by :func:`~robidlib.identification.config.load_config` (it is what
        ``config.toml`` holds), it repeats this run exactly, also with a later robidlib whose
        rules for ``"auto"`` differ.
        """
        d = self.config.to_dict()
        s = self.settings
        thr = s.velocity_threshold if s.velocity_threshold is not None else 0.01 * self.robot.qd_limits
        d["settings"].update(cutoff=float(s.cutoff), decimation=[int(f) for f in s.decimation],
                             trim=int(s.trim_samples), velocity_threshold=[float(v) for v in thr],
                             rate=float(s.fs))
        return d

    def report_html(self) -> str:
        """The report as one self-contained HTML document (figures embedded)."""
        from .report import render_report

        return render_report(self)

    def write(self, out: str | os.PathLike, *, overwrite: bool = False) -> dict[str, Path]:
        """Write the report, the JSON facts, the configuration, the versions and the export.

        Parameters
        ----------
        out : str or os.PathLike
            Output folder (created if missing), outside the installed robidlib package.
        overwrite : bool, default False
            Replace existing output files; without it nothing is written if any exists.

        Returns
        -------
        dict
            ``{file name: path}`` of the files written.

        Raises
        ------
        ValueError
            A folder inside robidlib, or existing output files without ``overwrite``.
        TypeError
            ``out`` not a path, ``overwrite`` not a bool.
        """
        import json

        from ._writers import check_out_dir, refuse_existing

        if not isinstance(overwrite, bool):
            raise TypeError(f"overwrite must be True or False, got {type(overwrite).__name__}")
        folder = check_out_dir(out, create=True, name="out")
        names = list(_OUTPUTS)
        if self.export.get("urdf") is None:
            names.remove("model.urdf")
        if self.export.get("mjcf") is None:
            names.remove("model.xml")
        paths = {n: folder / n for n in names}
        refuse_existing(list(paths.values()), overwrite)
        texts = {
            "report.html": self.report_html(),
            "result.json": json.dumps(self.to_json(), indent=1, allow_nan=False) + "\n",
            "config.toml": "# the configuration of this run, every path absolute and every setting the data\n"
                           "# chose written out (rate, cut-off, decimation, trim, thresholds): robidlib "
                           f"{__version__}\n# run it again with: robidlib-identify config.toml --out DIR\n\n"
                           + to_toml(self.repeatable_config()),
            "versions.txt": "".join(f"{k} {v}\n" for k, v in self.versions.items()),
            "model.urdf": self.export.get("urdf"),
            "model.xml": self.export.get("mjcf"),
        }
        from .._io import write_text

        for n, p in paths.items():
            write_text(p, texts[n], overwrite=overwrite, name="out")
        return paths


# ---------------------------------------------------------------------------- robot and records
def _load_robot(cfg: IdentifyConfig) -> SerialRobot:
    import re

    text = cfg.urdf.read_text(encoding="utf-8")
    lock = cfg.lock_joints
    if lock is None:
        from ..robot import _read_urdf        # the one URDF parser: no DTD, no entities, no code

        root = _read_urdf(text)
        lock = tuple(el.get("name") for el in root.findall("joint")
                     if el.get("type") in ("revolute", "continuous", "prismatic") and el.get("name") not in cfg.joints)
    try:
        robot = SerialRobot.from_urdf(text, base_link=cfg.base_link, tip_link=cfg.tip_link, lock_joints=lock,
                                      gravity=cfg.gravity, name=re.sub(r"\W+", "_", cfg.urdf.stem) or "robot",
                                      inertia_check=cfg.inertia_check)
    except ValueError as exc:
        raise ValueError(f"{cfg.source}: [robot] urdf {cfg.urdf.name!r}: {exc}") from None
    if tuple(robot.joint_names) != tuple(cfg.joints):
        raise ValueError(
            f"{cfg.source}: [robot] joints: the URDF's chain has the movable joints {list(robot.joint_names)} "
            f"(base to tip), the configuration {list(cfg.joints)}; list the chain's joints in its order "
            "(lock_joints holds others at zero)"
        )
    return robot


def _transmission(cfg: IdentifyConfig) -> Transmission:
    n = cfg.n
    if cfg.gear_ratios is None:
        return Transmission(np.eye(n))
    R = np.diag(np.asarray(cfg.gear_ratios, dtype=float))
    for m, j, r in cfg.couplings:
        R[m, j] = r
    try:
        return Transmission(R, torque_constants=cfg.torque_constants)
    except ValueError as exc:
        raise ValueError(f"{cfg.source}: [transmission]: {exc}") from None


def _read_record(cfg: IdentifyConfig, rec) -> dict:
    """Raw signals of one record in SI units and the model's signs (not yet cleaned)."""
    signals = {"position": cfg.position, "torque": cfg.torque}
    if cfg.velocity is not None:
        signals["velocity"] = cfg.velocity
    wanted: dict[Path, list[str]] = {}
    for s, sc in signals.items():
        wanted.setdefault(rec.files[s], []).extend(sc.columns)
    tables: dict[Path, dict[str, np.ndarray]] = {}
    for path, cols in wanted.items():
        cols = list(dict.fromkeys(cols + ([cfg.time_column] if cfg.time_column else [])))
        what = f"[signals] column (record {rec.name!r})"
        data = read_columns(path, cols, delimiter=cfg.delimiter, what=what)
        tables[path] = {c: data[:, k] for k, c in enumerate(cols)}
    lengths = {p.name: next(iter(tab.values())).size for p, tab in tables.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"record {rec.name!r}: its files hold different numbers of rows {lengths}; one "
                         "record's files must hold the same samples")
    N = next(iter(lengths.values()))
    if cfg.time_column:
        stamps = {p: tab[cfg.time_column] * unit_factor("time", cfg.time_unit) for p, tab in tables.items()}
        first = next(iter(stamps))
        t = stamps[first]
        for p, s in stamps.items():
            if not np.allclose(s, t, rtol=0, atol=1e-9 * max(1.0, float(np.nanmax(np.abs(t)))), equal_nan=True):
                k = int(np.flatnonzero(~np.isclose(s, t, rtol=0, atol=1e-9, equal_nan=True))[0])
                raise ValueError(f"record {rec.name!r}: the time column {cfg.time_column!r} of {p.name!r} differs "
                                 f"from {first.name!r} at row {k + 2} ({s[k]!r} against {t[k]!r}); one record's "
                                 "files must share their time stamps")
    else:
        t = np.arange(N) / cfg.rate
    out = {"t": t, "files": sorted({p.name for p in tables}), "rows": N}
    for s, sc in signals.items():
        tab = tables[rec.files[s]]
        X = np.column_stack([tab[c] for c in sc.columns])
        quantity = sc.kind if s == "torque" else s
        factors = np.array([unit_factor(quantity, u) for u in sc.unit])
        out[s] = X * factors * np.asarray(sc.sign)
    return out


def _check_ranges(cfg: IdentifyConfig, robot: SerialRobot, tr: Transmission, name: str, seg: Segment,
                  file: str) -> None:
    """Unit mistakes show as positions far outside the URDF's limits (or torques far above its efforts)."""
    from ..robot import DEFAULT_LIMITS

    q = seg.position if cfg.position.side == "joint" else tr.joint_positions(seg.position)
    q = q + np.asarray(cfg.position.offset)
    for j in range(robot.n):
        lo, hi = robot.q_limits[j]
        default = DEFAULT_LIMITS[robot.joint_types[j]]["q"]
        if (lo, hi) == tuple(default):
            continue                                           # no limit in the URDF
        span = hi - lo
        a, b = float(q[:, j].min()), float(q[:, j].max())
        if a < lo - 0.5 * span or b > hi + 0.5 * span:
            unit = "m" if robot.joint_types[j] == "prismatic" else "rad"
            raise ValueError(
                f"{cfg.source}: record {name!r} ({file}), column {cfg.position.columns[j]!r}: joint "
                f"{robot.joint_names[j]!r} moves over [{a:.4g}, {b:.4g}] {unit}, far outside its URDF limits "
                f"[{lo:.4g}, {hi:.4g}] {unit}: check [signals] position unit ({cfg.position.unit[j]!r}), side, sign, "
                "offset and the gear ratios (or set [settings] check_limits = false)"
            )


# ---------------------------------------------------------------------------- settings from the data
def _choose_settings(cfg: IdentifyConfig, robot: SerialRobot, n_base: int, fit_segments: list[Segment],
                     q_fit: list[np.ndarray], rate: float) -> tuple[Settings, dict, dict]:
    rs = cfg.settings
    src: dict[str, str] = {"ts": f"from the data: 1 / median step = {rate:.6g} Hz"}
    facts: dict[str, Any] = {"rate": rate}
    bands = []
    for q in q_fit:
        if q.shape[0] >= 256:
            bands.append(motion_bandwidth(q, rate))
    band_j = np.max(bands, axis=0) if bands else np.zeros(robot.n)
    moving = [j for j in range(robot.n) if max(float(np.ptp(q[:, j])) for q in q_fit) > 1e-3]
    band = float(max([band_j[j] for j in moving], default=0.0))
    band = max(band, 0.1)
    facts["motion_bandwidth"] = band
    facts["motion_bandwidth_per_joint"] = band_j.tolist()
    fit_share = 1.0 if any(r.role == "holdout" for r in cfg.records) else 1.0 - rs.holdout_fraction
    n_fit = sum(s.n_samples for s in fit_segments) * fit_share
    need = rs.min_equations_per_parameter * n_base
    if rs.decimation == "auto":
        d_band = max(1, int(np.floor(rate * 0.4 / (5.0 * band))))
        d_rows = max(1, int(np.floor(0.8 * n_fit * robot.n / (1.5 * need))))   # 80 % kept, 1.5x margin
        dec = decimation_factors(min(d_band, d_rows))
        src["decimation"] = (f"from the data: the largest factor whose filter passes 5 x the motion bandwidth "
                             f"({band:.3g} Hz: 99 % of the velocity energy), {d_band}, and that leaves "
                             f"{rs.min_equations_per_parameter:g} x 1.5 equations per base parameter, {d_rows}")
    else:
        dec = tuple(rs.decimation)
        src["decimation"] = "config"
    total = int(np.prod(dec)) if dec else 1
    if rs.cutoff == "auto":
        cutoff = min(0.8 * rate / total, 0.4 * rate)
        src["cutoff"] = "from the data: twice the decimation filter's pass band, at most 0.4 x the rate"
    else:
        cutoff = float(rs.cutoff)
        src["cutoff"] = "config"
        if cutoff >= 0.5 * rate:
            raise ValueError(f"{cfg.source}: [settings] cutoff = {cutoff:g} Hz is not below the Nyquist frequency "
                             f"{0.5 * rate:g} Hz of the logs (rate {rate:g} Hz)")
    kw: dict[str, Any] = dict(ts=1.0 / rate, cutoff=cutoff, filter_order=rs.filter_order, decimation=dec,
                              ratio_essential=rs.ratio_essential,
                              min_equations_per_parameter=rs.min_equations_per_parameter,
                              joint_offsets=np.asarray(cfg.position.offset))
    if rs.trim != "auto":
        kw["trim"] = int(rs.trim)
        src["trim"] = "config"
    else:
        src["trim"] = "ceil(5 fs / cutoff): the filter's start-up transient"
    if rs.velocity_threshold != "auto":
        kw["velocity_threshold"] = np.asarray(rs.velocity_threshold)
        src["velocity_threshold"] = "config"
    else:
        src["velocity_threshold"] = "1 % of the URDF's speed limits"
    settings = Settings(**kw)
    rows = n_fit / total * robot.n
    facts["expected_fit_equations"] = rows
    if rows < need:
        raise ValueError(
            f"{cfg.source}: [settings] decimation = {list(dec)} ({settings.decimated_rate:.4g} Hz) leaves about "
            f"{rows:.0f} equations for {n_base} base parameters ({rows / n_base:.1f} per parameter) in the fitting "
            f"data; at least {rs.min_equations_per_parameter:g} per parameter are needed "
            "(min_equations_per_parameter): decimate less or fit on more data"
        )
    if 0.4 * settings.decimated_rate < band:
        src["decimation"] += (f"; NOTE: its pass band {0.4 * settings.decimated_rate:.3g} Hz lies below the motion "
                              f"bandwidth {band:.3g} Hz")
    return settings, src, facts


# ---------------------------------------------------------------------------- diagnostics
def _torque_scale(model: DriveModel, data: IdentificationData) -> list[dict]:
    """Per joint: the measured torque regressed on the CAD model's rigid-body torque, friction and offset."""
    n = model.n
    rigid = model.blocks["inertial"]
    tau_cad = data.Y[:, :, rigid] @ model.robot.params
    index = {s: k for k, s in enumerate(model.names)}
    out = []
    for j in range(n):
        m = data.keep[:, j]
        y = data.tau[m, j]
        # the model's own friction and offset columns of joint j (its Coulomb sign included)
        cols = [index[f"{s}{j + 1}"] for s in ("fv", "fc", "off") if f"{s}{j + 1}" in index]
        A = np.column_stack([tau_cad[m, j], data.Y[m, j][:, cols]])
        coef, *_ = np.linalg.lstsq(A, y, rcond=None) if m.sum() > 8 else (np.full(A.shape[1], np.nan),)
        cad_std, meas_std = float(np.std(tau_cad[m, j])) if m.any() else 0.0, float(np.std(y)) if m.any() else 0.0
        power = float(np.mean(data.tau[:, j] * data.qd[:, j]))
        out.append({"joint": model.robot.joint_names[j], "scale": float(coef[0]), "cad_std": cad_std,
                    "measured_std": meas_std, "mean_power": power,
                    "informative": bool(cad_std > 0.1 * meas_std and cad_std > 0)})
    return out


def _velocity_check(seg_q: np.ndarray, seg_v: np.ndarray, fs: float) -> dict:
    """Measured velocities against the derivative of the positions: gain and delay."""
    from ..signals import differentiate, lowpass

    n = seg_q.shape[1]
    qd = differentiate(lowpass(seg_q, min(0.2 * fs, 50.0), fs), 1.0 / fs)
    lags, gains = [], []
    L = min(int(0.5 * fs), seg_q.shape[0] // 4)
    for j in range(n):
        a, b = qd[:, j] - qd[:, j].mean(), seg_v[:, j] - seg_v[:, j].mean()
        if np.std(a) == 0 or np.std(b) == 0:
            lags.append(0)
            gains.append(float("nan"))
            continue
        cc = [np.dot(a[L + s: a.size - L + s], b[L: b.size - L]) for s in range(-L, L + 1)]
        lags.append(-(int(np.argmax(cc)) - L))
        gains.append(float(np.dot(a, b) / np.dot(a, a)))
    return {"delay_samples": lags, "delay_s": [lag / fs for lag in lags], "gain": gains}


def _diagnostics(cfg, model, result, train, segments_fit, rate) -> dict:
    v = cfg.verdict
    rel = result.wls.rel_std
    names = result.names
    ident = {
        "well": [n for n, r in zip(names, rel) if r <= 10],
        "poor": [n for n, r in zip(names, rel) if 10 < r <= 100],
        "not_identified": [n for n, r in zip(names, rel) if r > 100],
        "essential": list(result.essential.names),
    }
    sig = []
    for j in range(model.n):
        m = train.keep[:, j]
        spread = float(np.std(train.tau[m, j])) if m.any() else 0.0
        snr = spread / result.sigma_joint[j] if result.sigma_joint[j] > 0 else float("inf")
        sig.append({"joint": model.robot.joint_names[j], "torque_std": spread, "error_std": float(result.sigma_joint[j]),
                    "signal_to_noise": float(snr), "equations": int(result.rows_per_joint[j]),
                    "too_little": bool(snr < v.signal_to_noise_warn)})
    cond = {"ols": float(result.ols.cond), "wls": float(result.wls.cond), "essential": float(result.essential.cond)}
    out = {"identifiability": ident, "signal": sig, "torque_scale": _torque_scale(model, train),
           "conditioning": cond}
    if cfg.velocity is not None:
        seg = max(segments_fit, key=lambda s: s.n_samples)
        q = seg.position if cfg.position.side == "joint" else model.transmission.joint_positions(seg.position)
        vel = seg.velocity if cfg.velocity.side == "joint" else model.transmission.joint_positions(seg.velocity)
        out["velocity"] = _velocity_check(q, vel, rate)
    return out


# ---------------------------------------------------------------------------- cross-validation
def _runs_of(mask: np.ndarray, run: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the True samples and new run labels wherever they leave a hole or change run."""
    idx = np.flatnonzero(mask)
    cont = np.r_[False, (np.diff(idx) == 1) & (run[idx][1:] == run[idx][:-1])]
    return idx, np.cumsum(~cont) - 1


def _cross_validate(result: IdentificationResult, train: IdentificationData, runs: np.ndarray, k: int,
                    guard: float) -> tuple[dict, TorqueError]:
    """Blocked k-fold CV (WLS refitted per fold) and the fitted data's metric, in one full-rate pass."""
    from .preprocess import _fold_blocks

    base, n = result.base, result.model.n
    betas, folds, summary = [], [], {"k": k, "guard": guard, "folds": []}
    if k == 0:
        summary["reason"] = "cv_folds = 0"
    else:
        blocks, near, blocks_f, near_f = _fold_blocks(train, k, guard, runs)
        for i in range(k):
            te, tr = (blocks == i) & ~near, (blocks != i) & ~near
            entry = {"fold": i + 1, "overall": None, "per_joint": None}
            try:
                if not te.any() or not tr.any():
                    raise ValueError(f"no {'held-out' if not te.any() else 'fitting'} sample with guard {guard} s")
                W, y, joint = train.select(tr).stack(base.independent)
                sigma, _ = joint_sigmas(W, y, joint, n)
                s = 1.0 / sigma[joint]
                betas.append(ols(W * s[:, None], y * s).params)
                entry["held_out_time"] = [float(train.t[te].min()), float(train.t[te].max())]
                folds.append((i, (blocks_f == i) & ~near_f))
            except ValueError as exc:
                entry["reason"] = str(exc)
            summary["folds"].append(entry)
    f = train.full
    P = predict_full_rate(result, train, np.column_stack([result.full_base_vector("wls")] + betas))
    usable = ~f.edge
    idx, run = _runs_of(usable, f.run)
    fitted = torque_error(f.tau[idx], P[idx, :, 0], f.fs, runs=run, keep=train.keep[f.nearest[idx]])
    for c, (i, te_full) in enumerate(folds, start=1):
        idx, run = _runs_of(te_full & usable, f.run)
        if idx.size == 0:
            summary["folds"][i]["reason"] = "no full-rate sample outside the records' ends"
            continue
        err = torque_error(f.tau[idx], P[idx, :, c], f.fs, runs=run)
        summary["folds"][i].update(overall=err.overall, per_joint=err.per_joint.tolist(), samples=err.samples)
    vals = np.array([fo["overall"] for fo in summary["folds"] if fo["overall"] is not None])
    if vals.size:
        med = float(np.median(vals))
        summary.update(median=med, min=float(vals.min()), max=float(vals.max()),
                       spread=float((vals.max() - vals.min()) / med) if med > 0 else 0.0)
    elif k:
        summary["reason"] = "; ".join(fo.get("reason", "") for fo in summary["folds"])
    return summary, fitted


# ---------------------------------------------------------------------------- physical, export, verdict
def _physical_certificate(result: IdentificationResult, heldout: dict) -> dict:
    phys = result.physical
    if phys is None:
        return {}
    from ..params import consistency_report

    info = phys.info
    n = result.model.n
    pi = phys.params[: 10 * n]
    rep = consistency_report(pi)
    z = (result.full_base_vector("physical") - result.wls.params) / result.wls.std
    links = []
    for j in range(n):
        p = pi[10 * j: 10 * j + 10]
        links.append({"link": result.model.robot.link_names[j], "mass": float(p[0]),
                      "com": (p[1:4] / p[0]).tolist() if p[0] > 0 else None,
                      "min_eig_J": float(np.asarray(info["min_eig_J"])[j])})
    out = {"status": info.get("status"), "consistent": bool(info.get("consistent")), "solver": info.get("solver"),
           "consistency": info.get("consistency"), "margin": info.get("margin"),
           "residual_excess": float(info["residual_norm"] / info["ols_residual_norm"] - 1.0),
           "max_base_shift_in_wls_std": float(np.max(np.abs(z))),
           "largest_shift": result.names[int(np.argmax(np.abs(z)))],
           "strict": {"consistent": bool(rep.consistent), "failures": [list(f) for f in rep.failures]},
           "links": links}
    if "physical" in heldout and "wls" in heldout:
        out["heldout_ratio_to_wls"] = float(heldout["physical"].overall / heldout["wls"].overall)
    return out


def _export(cfg: IdentifyConfig, model: DriveModel, result: IdentificationResult) -> dict:
    if not (cfg.export_urdf or cfg.export_mjcf):
        return {"urdf": None, "mjcf": None, "reason": "export switched off ([export])"}
    phys = result.physical
    if phys is None:
        return {"urdf": None, "mjcf": None, "reason": "no physically consistent estimate ([settings] physical = "
                                                      "false or not possible): nothing is exported"}
    if not phys.info.get("consistent"):
        return {"urdf": None, "mjcf": None, "reason": "the constrained estimate is not consistent to the solver's "
                                                      "tolerance: nothing is exported"}
    try:
        robot, rotor = identified_robot(model, phys.params)
        urdf = robot.to_urdf() if cfg.export_urdf else None
        mjcf = to_mjcf(robot, rotor) if cfg.export_mjcf else None
        check = check_export(model, phys.params, urdf=urdf, mjcf=mjcf)
    except ValueError as exc:
        return {"urdf": None, "mjcf": None, "reason": f"not exported: {exc}"}
    names = set(model.names)
    lost = [s for s in model.names if s.rstrip("0123456789") in ("off", "Iam", "fvm", "fcm")]
    return {"urdf": urdf, "mjcf": mjcf, "check": check,
            "not_in_urdf": [s for s in model.names if s.startswith("Ia") and not s.startswith("Iam")] + lost,
            "not_in_mjcf": lost, "has_rotor": any(s.startswith("Ia") for s in names)}


def _item(name: str, status: str, value: Any, threshold: str, reason: str) -> dict:
    return {"name": name, "status": status, "value": value, "threshold": threshold, "reason": reason}


def _verdict(cfg, heldout, cv, diag, physical, export, records, warns) -> dict:
    v = cfg.verdict
    items = []
    e = heldout["wls"].overall
    st = "pass" if e <= v.heldout_pass else "warn" if e <= v.heldout_fail else "fail"
    items.append(_item("held-out torque error (WLS)", st, e,
                       f"pass <= {v.heldout_pass:g}, fail > {v.heldout_fail:g}",
                       f"{100 * e:.1f} % relative torque error on the held-out data (every sample, measured "
                       f"torque through the fixed {heldout['wls'].cutoff:g} Hz filter; unfiltered "
                       f"{100 * heldout['wls'].overall_unfiltered:.1f} %)"))
    if cv.get("folds") and "median" in cv:
        sp = cv["spread"]
        items.append(_item("cross-validation spread", "pass" if sp <= v.cv_spread_warn else "warn", sp,
                           f"warn > {v.cv_spread_warn:g}",
                           f"{cv['k']} blocked folds: {100 * cv['min']:.1f} to {100 * cv['max']:.1f} % "
                           f"(median {100 * cv['median']:.1f} %); (max - min) / median = {sp:.2f}"))
    else:
        items.append(_item("cross-validation spread", "warn", None, "k >= 2 folds",
                           cv.get("reason", "no cross-validation")))
    ni = diag["identifiability"]["not_identified"]
    r = len(ni) + len(diag["identifiability"]["well"]) + len(diag["identifiability"]["poor"])
    share = len(ni) / r
    items.append(_item("identifiability", "pass" if share <= v.unidentified_warn else "warn", share,
                       f"warn when more than {v.unidentified_warn:g} of the base parameters have %sigma > 100",
                       f"{len(ni)} of {r} base parameters not identified (relative std > 100 %)"
                       + (f": {', '.join(ni[:12])}{' ...' if len(ni) > 12 else ''}" if ni else "")))
    weak = [s["joint"] for s in diag["signal"] if s["too_little"]]
    items.append(_item("signal per joint", "warn" if weak else "pass",
                       min(s["signal_to_noise"] for s in diag["signal"]),
                       f"warn when a joint's torque std < {v.signal_to_noise_warn:g} x its error std",
                       f"too little signal on {', '.join(weak)}" if weak else "every joint's torque varies well "
                                                                               "above its error"))
    odd = [s for s in diag["torque_scale"] if s["informative"] and
           not (1.0 / v.gravity_scale_warn <= s["scale"] <= v.gravity_scale_warn)]
    items.append(_item("torques against the CAD model", "warn" if odd else "pass",
                       [round(s["scale"], 4) for s in diag["torque_scale"]],
                       f"warn when the measured torque is outside [1/{v.gravity_scale_warn:g}, {v.gravity_scale_warn:g}]"
                       " x the CAD model's rigid-body torque",
                       ("measured = " + ", ".join(f"{s['scale']:.3g} x CAD on {s['joint']}" for s in odd)
                        + ": a unit, gear ratio, torque constant or sign mistake, or efforts that are not joint "
                          "torques; the identified model predicts the signals as logged")
                       if odd else "the torques have the CAD model's scale and sign where it predicts enough torque"))
    if physical:
        ratio = physical.get("heldout_ratio_to_wls", 1.0)
        ok = physical["consistent"] and ratio - 1 <= v.physical_excess_warn
        items.append(_item("physical consistency", "pass" if ok else "warn", ratio - 1,
                           f"warn when the consistent model's held-out error exceeds WLS's by > {v.physical_excess_warn:g}",
                           f"status {physical['status']}, every link consistent: {physical['consistent']}; held-out "
                           f"error {100 * (ratio - 1):+.1f} % relative to WLS; weighted residual "
                           f"+{100 * physical['residual_excess']:.2f} %"))
    else:
        items.append(_item("physical consistency", "warn", None, "a consistent estimate",
                           "no physically consistent estimate was computed"))
    chk = export.get("check", {})
    if export.get("urdf") is None and export.get("mjcf") is None:
        items.append(_item("export", "warn", None, "exported and loaded back", export.get("reason", "")))
    else:
        errs = {k: c["max_rel"] for k, c in chk.items() if c.get("loaded_with")}
        worst = max(errs.values(), default=0.0)
        missing = [k for k, c in chk.items() if not c.get("loaded_with")]
        st = "fail" if worst > v.export_tolerance else "warn" if missing else "pass"
        items.append(_item("export loaded back", st, worst, f"fail > {v.export_tolerance:g}",
                           "; ".join(f"{k.upper()} loaded with {c['loaded_with']}: largest difference "
                                     f"{c['max_rel']:.1e} of the largest torque" if c.get("loaded_with")
                                     else f"{k.upper()} not loaded back: {c.get('reason')}" for k, c in chk.items())))
    sat = sum(len(r.get("saturation", [])) for r in records.values())
    nan = sum(r["hygiene"]["nan_rows"]["count"] for r in records.values())
    dropped = sum(len(r["hygiene"]["dropped_segments"]) for r in records.values())
    total = sum(r["hygiene"]["samples"] for r in records.values())
    bad = sat > 0 or nan > 0.01 * total or dropped > 0 or warns
    items.append(_item("data hygiene", "warn" if bad else "pass", {"saturated_signals": sat, "nan_rows": nan,
                                                                      "dropped_segments": dropped},
                       "warn on saturation, > 1 % NaN rows, dropped segments or pipeline warnings",
                       f"{sat} saturated signal(s), {nan} NaN row(s) of {total}, {dropped} dropped segment(s)"
                       + (f"; {len(warns)} warning(s): {warns[0]}" if warns else "")))
    order = {"pass": 0, "warn": 1, "fail": 2}
    status = max((it["status"] for it in items), key=order.__getitem__)
    return {"status": status, "items": items}


def _versions() -> dict:
    import importlib.metadata as md

    out = {"python": platform.python_version(), "platform": platform.platform(), "robidlib": __version__}
    for pkg in ("numpy", "scipy", "matplotlib", "numba", "cvxpy-base", "clarabel", "mujoco"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            out[pkg] = None
    return out


# ---------------------------------------------------------------------------- the run
def _as_config(config: Any, base_dir: Any) -> IdentifyConfig:
    if isinstance(config, IdentifyConfig):
        return config
    if isinstance(config, Mapping):
        return IdentifyConfig.from_dict(config, base_dir=base_dir)
    if isinstance(config, (str, os.PathLike)):
        return load_config(config)
    raise TypeError(f"config must be an IdentifyConfig, a dict of the TOML structure or the path of a TOML file, "
                    f"got {type(config).__name__}")


def identify_robot(config: IdentifyConfig | Mapping[str, Any] | str | os.PathLike, *,
                   base_dir: str | os.PathLike | None = None,
                   progress: bool | Callable[[str], None] = False) -> RobotIdentification:
    """Identify a robot from a configuration: the Python API of ``robidlib-identify``.

    Parameters
    ----------
    config : IdentifyConfig, mapping or path
        A checked configuration, a dict of the TOML structure (see
        :mod:`~robidlib.identification.config`) or the path of a TOML file.
    base_dir : str or os.PathLike, optional
        For a dict: the folder its relative paths start from (default: the current one).
    progress : bool or callable, default False
        Print one line per step and its duration (to stderr), or pass each line to a callable.

    Returns
    -------
    RobotIdentification
        :meth:`~RobotIdentification.write` writes the report, the JSON facts and the export.

    Raises
    ------
    ValueError
        A configuration error (key and file named), a data error (file, row and column
        named: stamps, missing columns, unit mistakes), an impossible setting (too few
        equations per base parameter, a cut-off above the Nyquist frequency).
    FileNotFoundError
        A missing configuration file.
    TypeError
        ``config`` of another type.

    Examples
    --------
    >>> from robidlib.identification import example_config
    >>> ident = identify_robot(example_config("tx40"))                    # doctest: +SKIP
    >>> ident.verdict["status"], ident.heldout["wls"].overall             # doctest: +SKIP
    """
    if base_dir is not None and not isinstance(base_dir, (str, os.PathLike)):
        raise TypeError(f"base_dir must be a path, got {type(base_dir).__name__}")
    if not (isinstance(progress, bool) or callable(progress)):
        raise TypeError(f"progress must be True, False or a callable taking a line, got {type(progress).__name__}")
    cfg = _as_config(config, base_dir)
    P = _Progress(progress)
    caught: list[str] = []

    P("robot and model")
    robot = _load_robot(cfg)
    tr = _transmission(cfg)
    model = DriveModel(robot, tr, friction=cfg.friction, offset=cfg.offset, rotor_inertia=cfg.rotor_inertia,
                       coupled_motors=cfg.coupled_motors)
    base = model.base_parameters(rtol=_RANK_RTOL)

    P(f"reading {len(cfg.records)} record(s)")
    raw = {rec.name: _read_record(cfg, rec) for rec in cfg.records}
    fit_names = [r.name for r in cfg.records if r.role == "fit"]
    rate = cfg.settings.rate
    if rate == "auto" and cfg.time_column is None:
        rate = cfg.rate                          # files without stamps: the configured rate, exactly
    elif rate == "auto":
        steps = []
        for name in fit_names:
            t = raw[name]["t"]
            d = np.diff(t[np.isfinite(t)])
            steps.append(np.median(d[d > 0]) if np.any(d > 0) else np.nan)
        rate = 1.0 / float(np.nanmedian(steps))
    rs = cfg.settings
    records: dict[str, dict] = {}
    segments: dict[str, list[Segment]] = {}
    use_vel = cfg.velocity is not None and rs.velocity_source != "differentiated"
    if rs.velocity_source == "measured" and cfg.velocity is None:
        raise ValueError(f"{cfg.source}: [settings] velocity_source = \"measured\" needs [signals] velocity")
    for rec in cfg.records:
        r = raw[rec.name]
        src = f"record {rec.name!r} ({', '.join(r['files'])})"
        segs, summary = clean_record(rec.name, r["t"], r["position"], r["torque"], r.get("velocity"),
                                     gap=None if rs.gap == "auto" else rs.gap, jitter=rs.jitter, rate=rate,
                                     min_segment=rs.min_segment, source=src)
        limit = robot.tau_limits if cfg.torque.kind == "joint_torque" else None
        sat = detect_saturation(r["torque"][np.all(np.isfinite(r["torque"]), axis=1)], limit=limit)
        sat = [{**s, "signal": "torque", "column": cfg.torque.columns[s["column"]]} for s in sat]
        if cfg.velocity is not None:
            vs = detect_saturation(r["velocity"][np.all(np.isfinite(r["velocity"]), axis=1)])
            sat += [{**s, "signal": "velocity", "column": cfg.velocity.columns[s["column"]]} for s in vs]
        for s in segs:
            if rs.check_limits:
                _check_ranges(cfg, robot, tr, rec.name, s, ", ".join(r["files"]))
        segments[rec.name] = segs
        records[rec.name] = {"role": rec.role, "files": {k: str(v) for k, v in rec.files.items()},
                             "rows": r["rows"], "hygiene": summary, "saturation": sat}

    P("settings from the data")
    fit_segs = [s for n in fit_names for s in segments[n]]
    joint_q = [(s.position if cfg.position.side == "joint" else tr.joint_positions(s.position)) for s in fit_segs]
    settings, settings_source, facts = _choose_settings(cfg, robot, base.rank, fit_segs, joint_q, rate)
    settings_source["facts"] = facts

    P("filtering, regressor, parallel decimation")
    prepared: dict[str, list[IdentificationData]] = {}
    min_len = 2 * settings.trim_samples + 30 * (int(np.prod(settings.decimation)) if settings.decimation else 1)
    for name, segs in segments.items():
        prepared[name] = []
        for s in segs:
            if s.n_samples < min_len:
                records[name]["hygiene"]["dropped_segments"].append(
                    {"rows": list(s.rows), "duration": s.duration, "samples": s.n_samples,
                     "reason": f"shorter than the {min_len} samples the filters need with these settings"})
                continue
            q_m = s.position if cfg.position.side == "motor" else tr.motor_positions(s.position)
            qd_m = None
            if use_vel:
                qd_m = s.velocity if cfg.velocity.side == "motor" else tr.motor_positions(s.velocity)
            sig = s.torque if cfg.torque.kind != "joint_torque" else tr.motor_signals(s.torque)
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                prepared[name].append(prepare(s.t, q_m, sig, model, settings, qd_motor=qd_m))
            caught += [f"record {name!r}, segment {s.index + 1}: {x.message}" for x in w]
        if not prepared[name]:
            raise ValueError(f"record {name!r}: no segment is long enough for the settings (each needs {min_len} "
                             "samples); lower the decimation or give a longer record")
    has_holdout = any(r.role == "holdout" for r in cfg.records)
    train_parts, test_parts, runs, test_by_record = [], [], [], {}
    for k, rec in enumerate(cfg.records):
        data_r = concatenate(prepared[rec.name])
        if rec.role == "holdout":
            test_parts.append(data_r)
            test_by_record[rec.name] = data_r
            continue
        if has_holdout:
            tr_r = data_r
        else:
            try:
                tr_r, te_r = split(data_r, 1.0 - rs.holdout_fraction, rs.guard, span="record")
            except ValueError as exc:
                raise ValueError(f"{cfg.source}: [settings] holdout_fraction / guard: record {rec.name!r}: {exc}") from None
            test_parts.append(te_r)
            test_by_record[rec.name] = te_r
        train_parts.append(tr_r)
        runs.append(np.full(tr_r.n_samples, k))
    train, test = concatenate(train_parts), concatenate(test_parts)

    P("estimates: OLS, WLS, essential" + (", physically consistent (LMI)" if rs.physical else ""))
    hook = None
    if rs.physical:
        if set(model.friction_terms) != {"viscous", "coulomb"}:
            caught.append("no physically consistent estimate: it needs viscous and Coulomb friction on every joint")
        else:
            hook = physical_estimator(margin=rs.physical_margin)
    try:
        result = identify(train, base=base, physical=hook)
    except ValueError as exc:
        raise ValueError(f"{cfg.source}: {exc}") from None

    P("held-out metric and cross-validation")
    methods = ("ols", "wls", "essential") + (("physical",) if result.physical is not None else ())
    f = test.full
    pred = predict_full_rate(result, test, np.column_stack([result.full_base_vector(m) for m in methods]))
    usable = ~f.edge
    if not usable.any():
        raise ValueError(f"{cfg.source}: the held-out data hold no sample farther than 0.5 s from a record's ends; "
                         "hold out more ([settings] holdout_fraction or a longer holdout record)")

    def metric(sel: np.ndarray) -> dict:
        idx, run = _runs_of(sel & usable, f.run)
        keep = test.keep[f.nearest[idx]]
        return _errors(f.tau[idx], {m: pred[idx, :, i] for i, m in enumerate(methods)}, f.fs, run, keep)

    heldout = metric(np.ones(f.n_samples, dtype=bool))
    heldout_records, start = {}, 0
    for name, d in test_by_record.items():
        sel = np.zeros(f.n_samples, dtype=bool)
        sel[start: start + d.full.n_samples] = True
        start += d.full.n_samples
        if len(test_by_record) == 1:
            heldout_records[name] = heldout          # one held-out record: the same samples
        elif (sel & usable).any():
            heldout_records[name] = metric(sel)
    cv, fitted = _cross_validate(result, train, np.concatenate(runs), rs.cv_folds, rs.guard)

    P("diagnostics, export, verdict")
    diag = _diagnostics(cfg, model, result, train, fit_segs, rate)
    physical = _physical_certificate(result, heldout)
    export = _export(cfg, model, result)
    verdict = _verdict(cfg, heldout, cv, diag, physical, export, records, caught)
    P.done()
    return RobotIdentification(
        config=cfg, robot=robot, model=model, settings=settings, settings_source=settings_source, records=records,
        train=train, test=test, result=result, heldout=heldout, heldout_records=heldout_records, fitted=fitted,
        cv=cv, diagnostics=diag, physical=physical, export=export, verdict=verdict, warnings=caught,
        timings=dict(P.timings), versions=_versions(),
    )


# ---------------------------------------------------------------------------- command line
def main(argv: list[str] | None = None) -> int:
    """The command line: ``robidlib-identify CONFIG.toml --out DIR`` (see ``--help``).

    Returns the exit status: 0 when the run completed with verdict pass or warn, 3 when it
    completed with verdict fail, 1 on an error (configuration, data, settings; the message
    names the key, file, row or column), 2 on a usage error.
    """
    import argparse

    from .config import EXAMPLES, example_config, write_example_config

    if argv is not None and (not isinstance(argv, (list, tuple)) or not all(isinstance(a, str) for a in argv)):
        raise TypeError(f"argv must be a list of strings (the command-line arguments), got {argv!r}")

    ap = argparse.ArgumentParser(
        prog="robidlib-identify",
        description="Identify a robot arm from its URDF and raw logs: a validated, physically consistent "
                    "model, exported to URDF and MJCF, with a self-contained HTML report.")
    ap.add_argument("config", nargs="?", help="the TOML configuration")
    ap.add_argument("--out", metavar="DIR", help="output folder (report.html, result.json, config.toml, ...)")
    ap.add_argument("--overwrite", action="store_true", help="replace existing output files")
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    ap.add_argument("--example", choices=sorted(EXAMPLES), help="run a shipped example configuration")
    ap.add_argument("--write-example", nargs=2, metavar=("NAME", "DIR"),
                    help=f"copy a shipped example configuration ({', '.join(sorted(EXAMPLES))}) into DIR and stop")
    args = ap.parse_args(argv)
    try:
        if args.write_example:
            name, folder = args.write_example
            path = write_example_config(name, folder, overwrite=args.overwrite)
            print(f"wrote {path}")
            return 0
        if (args.config is None) == (args.example is None):
            ap.error("give a CONFIG file or --example NAME (one of them)")
        if not args.out:
            ap.error("--out DIR is required")
        cfg = load_config(example_config(args.example) if args.example else args.config)
        ident = identify_robot(cfg, progress=not args.quiet)
        paths = ident.write(args.out, overwrite=args.overwrite)
    except (ValueError, TypeError, FileNotFoundError) as exc:
        print(f"robidlib-identify: error: {exc}", file=sys.stderr)
        return 1
    h = ident.heldout["wls"]
    print(f"verdict: {ident.verdict['status'].upper()}; held-out torque error (WLS) {100 * h.overall:.2f} % "
          f"(unfiltered {100 * h.overall_unfiltered:.2f} %); report: {paths['report.html']}")
    for it in ident.verdict["items"]:
        if it["status"] != "pass":
            print(f"  {it['status']}: {it['name']}: {it['reason']}")
    return 3 if ident.verdict["status"] == "fail" else 0
