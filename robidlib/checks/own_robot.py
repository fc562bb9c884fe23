"""Checks of the exercises of chapter 13 (your own robot: ``robidlib-identify``).

Every check prints one line, ✔ or ✘ with what to do next, and returns ``True`` or ``False``.
An untouched stub (an answer still holding ``...``) is reported, never raised; only a misuse
of the check itself (the chapter's data of the wrong kind) raises (see
:mod:`robidlib.checks._report`).

:func:`exercise_log` writes the log of the configuration exercise: a small geared arm's URDF,
two CSV records and the log's data card ``LOG.md``, which says everything a configuration
needs. :func:`check_config` reads the records as a configuration says and compares the joint
positions and torques it gives with those the log was made from: any configuration that
reads the log right passes, whatever its optional settings.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from ._report import as_answer_array, report as _report, stored_answers, student_check

__all__ = ["exercise_log", "check_config", "check_signal_to_noise", "check_report_statements", "LOG_FILES"]

#: The files :func:`exercise_log` writes.
LOG_FILES = ("arm.urdf", "run1.csv", "run2.csv", "LOG.md")

# the arm of the log: planar_2r (chapter 2) behind two geared motors driven by currents
_GEAR = (120.0, 80.0)
_KT = (0.11, 0.07)           # N m/A
_SIGN = (1.0, -1.0)          # motor 2's current is logged with the opposite sign of its torque
_RATE = 250.0                # Hz, nominal
_DURATION = 24.0             # s per record
_SEEDS = (20261301, 20261302)

_CARD = """# Log card: the two-joint test arm

Files: `arm.urdf` (the arm; its joints `shoulder` and `elbow`, base to tip),
`run1.csv` and `run2.csv` (two runs of the same kind of excitation, one after the other).

Each CSV file has a header line and the columns

| column | content | unit |
| --- | --- | --- |
| `stamp` | time stamp of the controller, jittered around {rate:g} Hz | ms |
| `enc_sh`, `enc_el` | motor encoder angles of the shoulder and elbow motors | deg, motor side |
| `cur_sh`, `cur_el` | motor currents of the shoulder and elbow motors | mA |

Drives: gear ratio {g1:g} (shoulder) and {g2:g} (elbow), no coupling; torque constants
{k1:g} N m/A and {k2:g} N m/A. The elbow's current sensor is mounted reversed: its current
has the opposite sign of the torque it produces. The encoders read zero at the URDF's zero.
Run 1 is for fitting, run 2 is held out to validate.
"""


def _log_signals(seed: int) -> dict:
    """The log's truth (joint side, SI) and what the files hold, for one record."""
    from ..identification.drives import Transmission
    from ..identification.model import DriveModel
    from ..models import planar_2r

    rng = np.random.default_rng(seed)
    arm = planar_2r()
    tr = Transmission(np.diag(_GEAR), torque_constants=np.asarray(_KT))
    model = DriveModel(arm, tr)
    x = model.pack(friction=np.array([[0.8, 0.5], [0.4, 0.3]]), offsets=[0.05, -0.02], rotor=[0.02, 0.01])
    n = int(_DURATION * _RATE)
    t = np.cumsum(np.r_[0.0, (1.0 + 0.1 * rng.uniform(-1, 1, n - 1)) / _RATE])
    w = 2 * np.pi * np.array([0.15, 0.35, 0.6, 0.95])
    A = rng.normal(size=(2, 4)) * 0.7 / np.arange(1, 5)
    ph = rng.uniform(0, 2 * np.pi, size=(2, 4))
    arg = t[:, None, None] * w + ph                          # (N, 2, 4)
    q = np.sum(A * np.sin(arg), axis=2) + [0.3, -0.6]
    qd = np.sum(A * w * np.cos(arg), axis=2)
    qdd = -np.sum(A * w**2 * np.sin(arg), axis=2)
    tau = model.torques(q, qd, qdd, x)
    step = 360.0 / 2**16                                     # 16-bit motor encoders, deg
    enc = np.round(np.degrees(tr.motor_positions(q)) / step) * step
    cur = 1e3 * tr.motor_signals(tau) * _SIGN + 5.0 * rng.normal(size=tau.shape)   # mA
    return {"t": t, "q": q, "tau": tau, "enc": enc, "cur": cur}


def exercise_log(folder: str | os.PathLike, *, overwrite: bool = False) -> Path:
    """Write the log of the configuration exercise (chapter 13) into ``folder``.

    The files are :data:`LOG_FILES`: the arm's URDF, two records and the data card
    ``LOG.md`` that describes them (columns, units, gears, torque constants, signs).

    Parameters
    ----------
    folder : str or os.PathLike
        Output folder (created if missing), outside the installed robidlib package.
    overwrite : bool, default False
        Replace existing files; without it nothing is written if any exists.

    Returns
    -------
    pathlib.Path
        The folder.

    Raises
    ------
    TypeError
        ``folder`` not a path, ``overwrite`` not a bool.
    ValueError
        A folder inside robidlib, or existing files without ``overwrite``.

    Examples
    --------
    >>> import tempfile
    >>> d = exercise_log(tempfile.mkdtemp())
    >>> sorted(p.name for p in d.iterdir())
    ['LOG.md', 'arm.urdf', 'run1.csv', 'run2.csv']
    """
    from .._io import write_text
    from ..identification._writers import check_out_dir, refuse_existing
    from ..models import planar_2r

    if not isinstance(folder, (str, os.PathLike)):
        raise TypeError(f"folder must be a path (str or os.PathLike), got {type(folder).__name__}")
    if not isinstance(overwrite, (bool, np.bool_)):
        raise TypeError(f"overwrite must be True or False, got {type(overwrite).__name__}")
    try:
        out = check_out_dir(folder, create=True, name="folder")
    except ValueError as exc:
        raise ValueError(f"folder must be a folder of your own, outside the installed robidlib package, got "
                         f"{str(folder)!r} ({exc})") from None
    overwrite = bool(overwrite)
    refuse_existing([out / f for f in LOG_FILES], overwrite)
    write_text(out / "arm.urdf", planar_2r().to_urdf(), overwrite=overwrite, name="folder")
    for k, seed in enumerate(_SEEDS):
        s = _log_signals(seed)
        table = np.column_stack([1e3 * s["t"], s["enc"], s["cur"]])
        text = "stamp,enc_sh,enc_el,cur_sh,cur_el\n" + "".join(",".join(f"{v:.10g}" for v in row) + "\n"
                                                                for row in table)
        write_text(out / f"run{k + 1}.csv", text, overwrite=overwrite, name="folder")
    write_text(out / "LOG.md", _CARD.format(rate=_RATE, g1=_GEAR[0], g2=_GEAR[1], k1=_KT[0], k2=_KT[1]),
               overwrite=overwrite, name="folder")
    return out


def _joint_signals(cfg: Any, rec: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Time, joint positions and joint torques of one record, read as the configuration says."""
    from ..identification.command import _read_record, _transmission

    raw = _read_record(cfg, rec)
    tr = _transmission(cfg)
    q = raw["position"] if cfg.position.side == "joint" else tr.joint_positions(raw["position"])
    q = q + np.asarray(cfg.position.offset)
    tau = raw["torque"] if cfg.torque.kind == "joint_torque" else tr.joint_torques(raw["torque"])
    return np.asarray(raw["t"]), q, tau


@student_check("Read LOG.md: write a dict with the tables robot, signals, transmission and records "
               "(see robidlib.identification.config for the keys); base_dir is the log's folder.")
def check_config(config: Any, folder: str | os.PathLike) -> bool:
    """Check a configuration of the exercise log (exercise 1 of chapter 13).

    The configuration (a dict of the TOML structure, or the path of a TOML file) is checked
    by :class:`~robidlib.identification.config.IdentifyConfig` (relative paths start in
    ``folder``); then each record is read as it says, turned into joint positions (rad) and
    joint torques (N m) and compared with the signals the log was made from: positions to
    twice the encoders' resolution, torques to the current noise, time stamps to a
    microsecond. ``run1`` must be fitted and ``run2`` held out.

    Parameters
    ----------
    config : dict or path
        The student's configuration.
    folder : str or os.PathLike
        The folder :func:`exercise_log` wrote.

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        ``folder`` not a path.
    ValueError
        ``folder`` without the log's files.

    Examples
    --------
    >>> check_config(..., "log")
    ✘ not answered yet: replace the `...` of the stub. Read LOG.md: write a dict with the tables robot, signals, transmission and records (see robidlib.identification.config for the keys); base_dir is the log's folder.
    False
    """
    from ..identification.config import IdentifyConfig, load_config

    if not isinstance(folder, (str, os.PathLike)):
        raise TypeError(f"folder must be the log's folder (a path), got {type(folder).__name__}")
    base = Path(folder)
    missing = [f for f in LOG_FILES if not (base / f).is_file()]
    if missing:
        raise ValueError(f"folder must hold the log's files (write them with exercise_log(folder)), got "
                         f"{str(base)!r}, which lacks {missing}")
    try:
        if isinstance(config, Mapping):
            cfg = IdentifyConfig.from_dict(config, base_dir=base, source="your configuration")
        elif isinstance(config, (str, os.PathLike)):
            cfg = load_config(config)
        else:
            return _report(False, f"give the configuration as a dict (or a TOML file's path), got "
                                  f"{type(config).__name__}")
    except (ValueError, TypeError, FileNotFoundError) as exc:
        return _report(False, f"the configuration is refused: {exc}")
    roles = {r.name: r.role for r in cfg.records}
    files = {r.name: {Path(p).name for p in r.files.values()} for r in cfg.records}
    for name, want, role in (("run1.csv", "fit", "fitted"), ("run2.csv", "holdout", "held out")):
        recs = [k for k, f in files.items() if f == {name}]
        if not recs:
            return _report(False, f"no record reads {name} alone: one [[records]] table per run")
        if roles[recs[0]] != want:
            return _report(False, f"{name} must be {role}: role = {want!r} (LOG.md's last line)")
    for rec in cfg.records:
        truth = _log_signals(_SEEDS[int(Path(next(iter(rec.files.values()))).stem[-1]) - 1])
        try:
            t, q, tau = _joint_signals(cfg, rec)
        except (ValueError, TypeError) as exc:
            return _report(False, f"record {rec.name!r} cannot be read: {exc}")
        if t.shape != truth["t"].shape or np.abs(t - truth["t"]).max() > 1e-6:
            ratio = np.median(np.diff(t)) / np.median(np.diff(truth["t"]))
            return _report(False, f"record {rec.name!r}: its time steps are {ratio:.3g} times the log's: check the "
                                  "time column and its unit")
        for j in range(2):
            ok_q = np.abs(q[:, j] - truth["q"][:, j]).max() < 2 * 2 * np.pi / 2**16 / _GEAR[j] + 1e-9
            if not ok_q:
                g = np.dot(q[:, j], truth["q"][:, j]) / np.dot(truth["q"][:, j], truth["q"][:, j])
                if abs(g + 1) < 0.05:
                    return _report(False, f"record {rec.name!r}, joint {j + 1}: the positions have the opposite sign "
                                          "of the joint angles: check the position signs")
                return _report(False, f"record {rec.name!r}, joint {j + 1}: the positions are {g:.4g} times the "
                                      "joint angles: check the position unit, side and the gear ratios")
            err = np.sqrt(np.mean((tau[:, j] - truth["tau"][:, j]) ** 2))
            if not err < 0.02 * _GEAR[j] * _KT[j]:                 # 4 x the noise of 5 mA
                g = np.dot(tau[:, j], truth["tau"][:, j]) / np.dot(truth["tau"][:, j], truth["tau"][:, j])
                if abs(g + 1) < 0.05:
                    return _report(False, f"record {rec.name!r}, joint {j + 1}: the torques have the opposite sign "
                                          "of the joint torques: check the torque signs")
                return _report(False, f"record {rec.name!r}, joint {j + 1}: the torques are {g:.4g} times the joint "
                                      "torques: check the torque kind and unit, the torque constants, gears and signs")
    return _report(True, "your configuration reads both runs right: joint positions and torques as the log was "
                         "made; run it with identify_robot(config, base_dir=folder)")


@student_check("For each joint: the std of the fitted torque over its kept equations "
               "(ident.train.tau, ident.train.keep) over the WLS error std ident.result.sigma_joint.")
def check_signal_to_noise(snr: Any, ident: Any) -> bool:
    """Check the per-joint signal-to-noise ratios of an identification (exercise 2 of chapter 13).

    For joint ``j``: the standard deviation of the fitted torque over the equations the fit
    kept, divided by the standard deviation of the WLS error of that joint. Compared to
    ``1e-6`` relative.

    Parameters
    ----------
    snr : array_like, shape (n,)
        The student's ratios.
    ident : robidlib.identification.RobotIdentification
        The identification they were computed from.

    Returns
    -------
    bool

    Raises
    ------
    TypeError
        ``ident`` not a RobotIdentification.

    Examples
    --------
    >>> check_signal_to_noise(..., None)
    ✘ not answered yet: replace the `...` of the stub. For each joint: the std of the fitted torque over its kept equations (ident.train.tau, ident.train.keep) over the WLS error std ident.result.sigma_joint.
    False
    """
    from ..identification.command import RobotIdentification

    if not isinstance(ident, RobotIdentification):
        raise TypeError(f"ident must be a RobotIdentification (identify_robot), got {type(ident).__name__}")
    n = ident.model.n
    ok, s = as_answer_array(snr, "snr", shape=(n,))
    if not ok:
        return _report(False, s)
    tr, sig = ident.train, np.asarray(ident.result.sigma_joint)
    ref = np.array([np.std(tr.tau[tr.keep[:, j], j]) for j in range(n)]) / sig
    if np.allclose(s, 1 / ref, rtol=1e-6):
        return _report(False, "these are the inverses: the torque's spread goes on top, the error's below")
    every = np.array([np.std(tr.tau[:, j]) for j in range(n)]) / sig
    if np.allclose(s, every, rtol=1e-6) and not np.allclose(every, ref, rtol=1e-6):
        return _report(False, "use only the equations the fit kept (ident.train.keep[:, j]) for the torque's spread")
    bad = np.flatnonzero(~np.isclose(s, ref, rtol=1e-6, atol=0))
    if bad.size:
        j = int(bad[0])
        return _report(False, f"joint {j + 1} ({ident.robot.joint_names[j]}): {s[j]:.4g}, expected a different "
                              "value: the std of its kept fitted torques over its WLS error std")
    weak = [ident.robot.joint_names[j] for j in np.flatnonzero(ref < 3)]
    return _report(True, f"signal-to-noise {ref.min():.2g} to {ref.max():.2g}; below 3: {', '.join(weak) or 'none'}")


@student_check("Answer with a dict {'A': ..., 'B': ..., 'C': ..., 'D': ...}, each True or False.")
def check_report_statements(answers: Any) -> bool:
    """Check the true/false answers to the statements about the TIAGo report (exercise 3 of chapter 13).

    Parameters
    ----------
    answers : dict
        ``{"A": bool, "B": bool, "C": bool, "D": bool}``.

    Returns
    -------
    bool

    Examples
    --------
    >>> check_report_statements({"A": 1})
    ✘ statement A: answer True or False, got 1
    False
    """
    ref = stored_answers("own_robot")["statements"]
    if not isinstance(answers, Mapping):
        return _report(False, f"give a dict {{'A': ..., 'B': ..., ...}}, got {type(answers).__name__}")
    for key in sorted(ref):
        got = answers.get(key)
        if not isinstance(got, (bool, np.bool_)):
            return _report(False, f"statement {key}: answer True or False, got {got!r}")
        if bool(got) != ref[key]["true"]:
            return _report(False, f"statement {key}: {ref[key]['hint']}")
    return _report(True, "all four right: " + "; ".join(f"{k}: {ref[k]['why']}" for k in sorted(ref)))
