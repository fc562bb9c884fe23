"""The configuration of ``robidlib-identify``: what a user writes to identify their own arm.

A configuration names the URDF, the joints to identify, the log files and their columns,
units and signs, what the torque signal is (joint torques, motor torques or motor currents
through a :class:`~robidlib.identification.drives.Transmission`), the model's extra terms,
the settings ("auto" = measured from the data) and which records are fitted and which held
out. It is read from TOML (:func:`load_config`; ``tomllib``, or ``tomli`` on Python 3.10) or
given as a dict (:meth:`IdentifyConfig.from_dict`), and checked completely before anything
is computed: an unknown key, a wrong type, an unknown unit or an impossible setting is a
``ValueError`` naming the key and the file. Nothing in a configuration is evaluated: numbers
are numbers (write ``1.5707963267948966``, not ``pi / 2``), paths are paths.

Paths are relative to the configuration file (or to ``base_dir`` for a dict); a path
``"dataset:NAME/FILE"`` names a file of a data set shipped with robidlib
(``robidlib/datasets/data/NAME/FILE``), which the example configurations use.

The schema, with every default (see ``robidlib/identification/examples/*.toml`` for two
complete files)::

    [robot]
    urdf = "my_arm.urdf"
    joints = ["j1", "j2"]          # the identified joints, in the order of the chain
    base_link = "..."              # optional (default: the URDF's root)
    tip_link = "..."               # optional
    lock_joints = [...]            # optional (default: every other movable joint, held at 0)
    gravity = [0.0, 0.0, -9.81]    # optional (default: the URDF's, else this)
    inertia_check = "refuse"       # or "warn": load a CAD inertia no rigid body has, with a warning

    [signals]
    delimiter = ","
    time = { column = "t", unit = "s" }    # or { rate = 5000.0 } for files without a time column
    position = { columns = [...], unit = "rad", side = "joint", sign = [...], offset = [...] }
    velocity = { columns = [...], unit = "rad/s", side = "joint", sign = [...] }   # optional
    torque = { columns = [...], kind = "joint_torque", unit = "N m", sign = [...] }

    [transmission]                 # needed for motor-side signals
    gear_ratios = [...]            # R's diagonal
    couplings = [{ motor = 6, joint = 5, ratio = 32.0 }]   # R[motor, joint], 1-based
    torque_constants = [...]       # N m/A, for kind = "motor_current"

    [model]
    friction = ["viscous", "coulomb"]
    offset = true
    rotor_inertia = true
    coupled_motors = true

    [[records]]                    # one table per record (log)
    name = "run1"
    file = "log.csv"               # or files = { position = "...", velocity = "...", torque = "..." }
    role = "fit"                   # or "holdout"

    [settings]                     # see :class:`RunSettings`
    [verdict]                      # see :class:`VerdictThresholds`
    [export]
    urdf = true
    mjcf = true

Units (case and spaces ignored): time ``s, ms, us, ns``; positions ``rad, deg, mrad``
(revolute) and ``m, mm`` (prismatic); velocities ``rad/s, deg/s, rpm`` and ``m/s, mm/s``;
joint torques ``N m, mN m, N mm`` (revolute) and ``N, mN`` (prismatic); motor torques
``N m, mN m``; motor currents ``A, mA``. A unit may be one string for every joint, a list
(one per joint) or a table ``{ revolute = "deg", prismatic = "mm" }``; the default is SI.
"""

from __future__ import annotations

import difflib
import math
import os
import sys
from dataclasses import asdict, dataclass, field, fields
from importlib import resources
from pathlib import Path
from typing import Any, Mapping, Sequence

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10: the tomli backport (a conditional dependency)
    import tomli as tomllib

__all__ = [
    "IdentifyConfig",
    "RecordConfig",
    "RunSettings",
    "SignalConfig",
    "VerdictThresholds",
    "EXAMPLES",
    "example_config",
    "load_config",
    "to_toml",
    "unit_factor",
    "write_example_config",
]

#: Shipped example configurations: name -> file in ``robidlib/identification/examples``.
EXAMPLES: dict[str, str] = {"tx40": "tx40.toml", "tiago": "tiago.toml"}

_DATASET_PREFIX = "dataset:"

# unit -> factor to SI, per quantity and joint type ("r" revolute, "p" prismatic, "*" both)
_UNITS: dict[str, dict[str, dict[str, float]]] = {
    "time": {"*": {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}},
    "position": {"r": {"rad": 1.0, "deg": math.pi / 180.0, "mrad": 1e-3}, "p": {"m": 1.0, "mm": 1e-3}},
    "velocity": {"r": {"rad/s": 1.0, "deg/s": math.pi / 180.0, "rpm": 2.0 * math.pi / 60.0},
                 "p": {"m/s": 1.0, "mm/s": 1e-3}},
    "joint_torque": {"r": {"nm": 1.0, "mnm": 1e-3, "nmm": 1e-3}, "p": {"n": 1.0, "mn": 1e-3}},
    "motor_torque": {"*": {"nm": 1.0, "mnm": 1e-3, "nmm": 1e-3}},
    "motor_current": {"*": {"a": 1.0, "ma": 1e-3}},
}
_SI = {"position": {"r": "rad", "p": "m"}, "velocity": {"r": "rad/s", "p": "m/s"},
       "joint_torque": {"r": "N m", "p": "N"}, "motor_torque": {"*": "N m"}, "motor_current": {"*": "A"}}
_TORQUE_KINDS = ("joint_torque", "motor_torque", "motor_current")
_SIDES = ("joint", "motor")
_ROLES = ("fit", "holdout")


def _unit_key(unit: str) -> str:
    """'N·m' / 'N.m' / 'Nm' / 'n m' -> 'nm'; 'rad/s' stays."""
    return "".join(ch for ch in unit.lower() if ch not in " ·.*_")


def _fail(where: str, message: str) -> ValueError:
    return ValueError(f"{where}: {message}")


def _check_keys(table: Any, allowed: Sequence[str], required: Sequence[str], where: str) -> dict:
    if not isinstance(table, Mapping):
        raise _fail(where, f"must be a table (key = value pairs), got {type(table).__name__} {table!r}")
    for key in table:
        if not isinstance(key, str) or key not in allowed:
            close = difflib.get_close_matches(str(key), allowed, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise _fail(where, f"unknown key {key!r}{hint}; expected one of {', '.join(allowed)}")
    for key in required:
        if key not in table:
            raise _fail(where, f"the key {key!r} is missing; it is required (expected keys: {', '.join(required)})")
    return dict(table)


def _str(value: Any, where: str, allow_empty: bool = False) -> str:
    if not isinstance(value, str):
        raise _fail(where, f"must be a string, got {type(value).__name__} {value!r}")
    if not value and not allow_empty:
        raise _fail(where, "must be a non-empty string, got ''")
    return value


def _strings(value: Any, where: str, n: int | None = None, unique: bool = True) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise _fail(where, f"must be a list of strings, got {type(value).__name__} {value!r}")
    out = tuple(_str(v, f"{where}[{i}]") for i, v in enumerate(value))
    if n is not None and len(out) != n:
        raise _fail(where, f"must hold {n} entries (one per joint), got {len(out)}: {list(out)}")
    if unique and len(set(out)) != len(out):
        dup = next(v for v in out if out.count(v) > 1)
        raise _fail(where, f"must not repeat an entry, got {dup!r} twice")
    return out


def _number(value: Any, where: str, *, positive: bool = False, nonnegative: bool = False,
            integer: bool = False, minimum: float | None = None, maximum: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _fail(where, f"must be a number, got {type(value).__name__} {value!r}")
    if integer and not isinstance(value, int):
        raise _fail(where, f"must be an integer, got {value!r}")
    v = float(value)
    if not math.isfinite(v):
        raise _fail(where, f"must be finite, got {value!r}")
    if positive and v <= 0:
        raise _fail(where, f"must be > 0, got {value!r}")
    if nonnegative and v < 0:
        raise _fail(where, f"must be >= 0, got {value!r}")
    if minimum is not None and v < minimum:
        raise _fail(where, f"must be >= {minimum:g}, got {value!r}")
    if maximum is not None and v > maximum:
        raise _fail(where, f"must be <= {maximum:g}, got {value!r}")
    return int(value) if integer else v


def _numbers(value: Any, where: str, n: int | None = None, **kw: Any) -> tuple[float, ...]:
    if not isinstance(value, (list, tuple)):
        raise _fail(where, f"must be a list of numbers, got {type(value).__name__} {value!r}")
    out = tuple(_number(v, f"{where}[{i}]", **kw) for i, v in enumerate(value))
    if n is not None and len(out) != n:
        raise _fail(where, f"must hold {n} numbers (one per joint), got {len(out)}")
    return out


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(where, f"must be true or false, got {type(value).__name__} {value!r}")
    return value


def _choice(value: Any, where: str, choices: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise _fail(where, f"unknown value {value!r}; expected one of {', '.join(map(repr, choices))}")
    return value


def _auto_or(value: Any, where: str, convert) -> Any:
    if value == "auto":
        return "auto"
    return convert(value, where)


# ---------------------------------------------------------------------------- sections
@dataclass(frozen=True)
class SignalConfig:
    """How one signal (positions, velocities or torques) is read from the logs.

    Attributes
    ----------
    columns : tuple of str
        One column name per joint (per motor for motor-side signals), in joint order.
    unit : tuple of str
        One unit per joint (see the module docstring); SI when the configuration omits it.
    sign : tuple of float
        +1 or -1 per joint: multiplies the signal after the unit conversion.
    side : {"joint", "motor"}
        Positions and velocities: joint side, or motor side (through the transmission).
    kind : str
        Torques only: ``"joint_torque"``, ``"motor_torque"`` or ``"motor_current"``.
    offset : tuple of float
        Positions only: added to the joint positions (SI) after the motor-to-joint
        transform (the calibration of the model's zero).
    """

    columns: tuple[str, ...]
    unit: tuple[str, ...]
    sign: tuple[float, ...]
    side: str = "joint"
    kind: str = ""
    offset: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        import numpy as np

        from .._validate import as_array, check_choice, check_names

        cols = check_names("columns", self.columns)
        if not cols:
            raise ValueError("columns must name one column per joint, got none")
        n = len(cols)
        if len(check_names("unit", self.unit, unique=False)) != n:
            raise ValueError(f"unit must have one entry per column of columns ({n}), got {len(self.unit)}")
        if isinstance(self.sign, (tuple, list)) and len(self.sign) != n:
            raise ValueError(f"sign must have one entry per column of columns ({n}), got {len(self.sign)}")
        sign = as_array("sign", self.sign, shape=(n,))
        if not all(abs(float(v)) == 1.0 for v in sign):
            raise ValueError(f"sign must be +1 or -1 per joint, got {sign.tolist()}")
        check_choice("side", self.side, _SIDES)
        if self.kind != "":
            check_choice("kind", self.kind, _TORQUE_KINDS)
        if len(self.offset):
            as_array("offset", self.offset, shape=(n,))


@dataclass(frozen=True)
class RecordConfig:
    """One record (a log): its files per signal and its role.

    Attributes
    ----------
    name : str
    files : dict
        ``{"position": path, "torque": path, ...}`` (absolute paths); several signals may
        share one file.
    role : {"fit", "holdout"}
    """

    name: str
    files: dict
    role: str = "fit"

    def __post_init__(self) -> None:
        from .._validate import check_choice, check_text

        check_text("name", self.name, allow_empty=False)
        if not isinstance(self.files, dict) or not self.files or not all(
                isinstance(k, str) and isinstance(v, (str, os.PathLike)) for k, v in self.files.items()):
            raise TypeError(f"files must be a non-empty dict {{signal: path}}, got {self.files!r}")
        check_choice("role", self.role, ("fit", "holdout"))


@dataclass(frozen=True)
class RunSettings:
    """The ``[settings]`` table. ``"auto"`` means: measured or chosen from the data.

    Attributes
    ----------
    cutoff : float or "auto"
        Position low-pass cut-off (Hz). Auto: twice the pass band of the decimation filter
        (flat over the band that is kept), at most 0.4 times the log's rate.
    filter_order : int, default 4
    decimation : tuple of int or "auto"
        Parallel-decimation factors (each 2..13). Auto: the largest total factor whose
        filter (cut-off 0.4 times the decimated rate) passes five times the motion's
        bandwidth (99 % of the velocity energy), with at least ``min_equations_per_parameter``
        equations per base parameter left.
    trim : int or "auto"
        Samples dropped at each end of every segment (filter edges); auto as
        :class:`~robidlib.identification.preprocess.Settings`.
    velocity_threshold : tuple of float or "auto"
        Equations of joint ``j`` with ``|qd_j|`` below it are not fitted (rad/s or m/s);
        auto: 1 % of the URDF's speed limits.
    ratio_essential : float, default 30.0
    min_equations_per_parameter : float, default 10.0
        A setting that leaves fewer fitted equations per base parameter is refused.
    holdout_fraction : float, default 0.3
        When no record has ``role = "holdout"``: the last part of every fitting record (in
        time) held out instead.
    guard : float, default 0.1
        Seconds left out on both sides of every cut (hold-out and cross-validation blocks).
    cv_folds : int, default 5
        Blocked k-fold cross-validation within the fitting records (0: none).
    gap : float or "auto"
        A step between time stamps larger than this (s) splits a record into segments;
        auto: 5 times the median step.
    jitter : float, default 0.01
        Largest relative deviation of a step from the median step that counts as uniform;
        beyond it the record is resampled onto a uniform grid.
    rate : float or "auto"
        Rate of the uniform grid (Hz); auto: one over the median step.
    min_segment : float, default 1.0
        Segments shorter than this (s) are dropped (and reported).
    velocity_source : {"auto", "measured", "differentiated"}
        Auto: the measured velocities when the configuration gives them.
    physical : bool, default True
        Compute the physically consistent estimate (cvxpy and Clarabel).
    physical_margin : float, default 1e-4
        The LMI margin of :func:`~robidlib.estimation.physical_ls` (dimensionless): keeps every
        link strictly inside the consistent set, so that simulators accept the export.
    check_limits : bool, default True
        Refuse positions far outside the URDF's joint limits (the usual sign of a unit
        mistake).
    """

    cutoff: Any = "auto"
    filter_order: int = 4
    decimation: Any = "auto"
    trim: Any = "auto"
    velocity_threshold: Any = "auto"
    ratio_essential: float = 30.0
    min_equations_per_parameter: float = 10.0
    holdout_fraction: float = 0.3
    guard: float = 0.1
    cv_folds: int = 5
    gap: Any = "auto"
    jitter: float = 0.01
    rate: Any = "auto"
    min_segment: float = 1.0
    velocity_source: str = "auto"
    physical: bool = True
    physical_margin: float = 1e-4
    check_limits: bool = True

    def __post_init__(self) -> None:
        # the configuration's own checks, also when the settings are made in Python
        _parse_settings({f.name: getattr(self, f.name) for f in fields(self)}, "settings", None, build=False)


@dataclass(frozen=True)
class VerdictThresholds:
    """The ``[verdict]`` table: thresholds of the pass / warn / fail verdict.

    Attributes
    ----------
    heldout_pass, heldout_fail : float
        Held-out relative torque error (the reference metric, WLS): pass at or below
        ``heldout_pass`` (default 0.10), fail above ``heldout_fail`` (default 0.25).
    cv_spread_warn : float
        Warn when the cross-validation folds' errors spread (max - min) by more than this
        fraction of their median (default 1.0).
    unidentified_warn : float
        Warn when more than this share of the base parameters has a relative standard
        deviation above 100 % (default 0.25).
    signal_to_noise_warn : float
        Warn for a joint whose torque varies less than this many times its WLS error
        standard deviation (default 3.0).
    physical_excess_warn : float
        Warn when the consistent estimate's held-out error exceeds WLS's by more than this
        fraction (default 0.10).
    gravity_scale_warn : float
        Warn when the measured torque's least-squares scale against the CAD model's
        prediction lies outside ``[1/x, x]`` (default 2.0): a unit, gear or sign mistake.
    export_tolerance : float
        Largest relative disagreement between an exported model, loaded back, and the
        estimate (default 1e-6); more fails. A loader diagonalises each inertia: for a body
        on the boundary of consistency (two nearly equal principal moments, a third near zero,
        as the consistent estimate often has) MuJoCo 3.8 does so only to about 1e-8 of the
        largest torque (3.17 to round-off), while an export mistake (a frame, a unit, a
        transposed inertia) shows at 1e-3 or more.
    """

    heldout_pass: float = 0.10
    heldout_fail: float = 0.25
    cv_spread_warn: float = 1.0
    unidentified_warn: float = 0.25
    signal_to_noise_warn: float = 3.0
    physical_excess_warn: float = 0.10
    gravity_scale_warn: float = 2.0
    export_tolerance: float = 1e-6

    def __post_init__(self) -> None:
        from .._validate import check_positive

        for f in fields(self):
            object.__setattr__(self, f.name, check_positive(f.name, getattr(self, f.name)))
        if not self.heldout_pass < self.heldout_fail:
            raise ValueError(f"heldout_pass ({self.heldout_pass:g}) must be below heldout_fail "
                             f"({self.heldout_fail:g})")


@dataclass(frozen=True)
class IdentifyConfig:
    """A complete, checked configuration of ``robidlib-identify``.

    Build it with :func:`load_config` (a TOML file) or :meth:`from_dict` (a dict of the
    same structure); :meth:`to_dict` gives the dict back (paths absolute), which
    :func:`to_toml` writes.

    Attributes
    ----------
    urdf : pathlib.Path
    joints : tuple of str
    base_link, tip_link : str or None
    lock_joints : tuple of str or None
        None: every movable joint of the URDF that is not in ``joints``.
    gravity : tuple of float or None
    inertia_check : {"refuse", "warn"}
        What loading the URDF does with a link inertia no rigid body has (a negative principal
        moment, a broken triangle inequality: CAD files have them): refuse (the default) or
        warn and load it as it is (:meth:`SerialRobot.from_urdf`). The identification does not
        use the URDF's inertias; its report compares them with the estimates.
    delimiter : str
    time_column : str or None
    time_unit : str
    rate : float or None
        Sampling rate of files without a time column (Hz).
    position, velocity, torque : SignalConfig (velocity may be None)
    gear_ratios : tuple of float or None
    couplings : tuple of (int, int, float)
        ``(motor, joint, ratio)``, 0-based.
    torque_constants : tuple of float or None
    friction : tuple of str
    offset, rotor_inertia, coupled_motors : bool
    records : tuple of RecordConfig
    settings : RunSettings
    verdict : VerdictThresholds
    export_urdf, export_mjcf : bool
    source : str
        Where the configuration came from (a file name or ``"<dict>"``), for messages.
    """

    urdf: Path
    joints: tuple[str, ...]
    position: SignalConfig
    torque: SignalConfig
    records: tuple[RecordConfig, ...]
    base_link: str | None = None
    tip_link: str | None = None
    lock_joints: tuple[str, ...] | None = None
    gravity: tuple[float, ...] | None = None
    inertia_check: str = "refuse"
    delimiter: str = ","
    time_column: str | None = None
    time_unit: str = "s"
    rate: float | None = None
    velocity: SignalConfig | None = None
    gear_ratios: tuple[float, ...] | None = None
    couplings: tuple[tuple[int, int, float], ...] = ()
    torque_constants: tuple[float, ...] | None = None
    friction: tuple[str, ...] = ("viscous", "coulomb")
    offset: bool = True
    rotor_inertia: bool = True
    coupled_motors: bool = True
    settings: RunSettings = field(default_factory=RunSettings)
    verdict: VerdictThresholds = field(default_factory=VerdictThresholds)
    export_urdf: bool = True
    export_mjcf: bool = True
    source: str = field(default="<dict>", compare=False)

    def __post_init__(self) -> None:
        import numpy as np

        from .._validate import as_array, check_choice, check_flag, check_names, check_positive, check_text

        if not isinstance(self.urdf, Path):
            raise TypeError(f"urdf must be a pathlib.Path, got {type(self.urdf).__name__}")
        n = len(check_names("joints", self.joints))
        if n == 0:
            raise ValueError("joints must name at least one joint, got none")
        for name, cls, optional in (("position", SignalConfig, False), ("torque", SignalConfig, False),
                                    ("velocity", SignalConfig, True), ("settings", RunSettings, False),
                                    ("verdict", VerdictThresholds, False)):
            v = getattr(self, name)
            if not (isinstance(v, cls) or (optional and v is None)):
                raise TypeError(f"{name} must be a {cls.__name__}{' or None' if optional else ''}, got "
                                f"{type(v).__name__}")
        if (not isinstance(self.records, tuple) or not self.records
                or not all(isinstance(r, RecordConfig) for r in self.records)):
            raise TypeError(f"records must be a non-empty tuple of RecordConfig, got {self.records!r}"[:200])
        for name in ("base_link", "tip_link", "time_column"):
            if getattr(self, name) is not None:
                check_text(name, getattr(self, name), allow_empty=False)
        if self.lock_joints is not None:
            check_names("lock_joints", self.lock_joints)
        for name, k in (("gravity", 3), ("gear_ratios", n), ("torque_constants", n)):
            if getattr(self, name) is not None:
                if name != "gravity" and np.ndim(getattr(self, name)) == 1 and len(getattr(self, name)) != k:
                    raise ValueError(f"{name} must have one entry per joint of joints ({k}), got "
                                     f"{len(getattr(self, name))}")
                a = as_array(name, getattr(self, name), shape=(k,))
                if name != "gravity" and np.any(a == 0):
                    raise ValueError(f"{name} must be non-zero, got {a.tolist()}")
        if not isinstance(self.couplings, tuple) or not all(
                isinstance(c, tuple) and len(c) == 3 for c in self.couplings):
            raise TypeError(f"couplings must be a tuple of (int, int, float) triples, got {self.couplings!r}")
        check_choice("inertia_check", self.inertia_check, ("refuse", "warn"))
        check_text("delimiter", self.delimiter, allow_empty=False)
        check_text("time_unit", self.time_unit)
        try:
            unit_factor("time", self.time_unit)
        except ValueError:
            raise ValueError(f"time_unit must be a unit of time (s, ms, us, ns), got {self.time_unit!r}") from None
        if self.rate is not None:
            check_positive("rate", self.rate)
        for f in check_names("friction", self.friction):
            check_choice("friction", f, ("viscous", "coulomb"))
        for name in ("offset", "rotor_inertia", "coupled_motors", "export_urdf", "export_mjcf"):
            check_flag(name, getattr(self, name))
        check_text("source", self.source)

    @property
    def n(self) -> int:
        """Number of identified joints."""
        return len(self.joints)

    @property
    def motor_side(self) -> bool:
        """True when some signal is on the motor side (a transmission is needed)."""
        return (self.position.side == "motor" or self.torque.kind != "joint_torque"
                or (self.velocity is not None and self.velocity.side == "motor"))

    @classmethod
    def from_dict(cls, config: Mapping[str, Any], base_dir: str | os.PathLike | None = None,
                  source: str = "<dict>") -> "IdentifyConfig":
        """Check a configuration given as a dict (the structure of the TOML file).

        Parameters
        ----------
        config : mapping
            The parsed TOML (nested dicts and lists).
        base_dir : str or os.PathLike, optional
            Folder that relative paths are relative to (default: the current folder).
        source : str, default "<dict>"
            Name used in error messages (the file name for :func:`load_config`).

        Returns
        -------
        IdentifyConfig

        Raises
        ------
        ValueError
            An unknown or missing key, a value of the wrong type, an unknown unit, kind,
            side or role, lengths that do not match the number of joints, an impossible
            setting, a missing file: the message names the file and the key.
        TypeError
            ``config`` not a mapping or ``base_dir`` not a path.

        Examples
        --------
        >>> cfg = IdentifyConfig.from_dict(
        ...     {"robot": {"urdf": "dataset:staubli_tx40/tx40_mdh_modified.urdf",
        ...                "joints": [f"joint_{i}" for i in range(1, 7)]},
        ...      "signals": {"time": {"rate": 5000.0},
        ...                  "position": {"columns": [f"Joint_{i}" for i in range(1, 7)]},
        ...                  "torque": {"columns": [f"Joint_{i}" for i in range(1, 7)]}},
        ...      "records": [{"files": {"position": "dataset:staubli_tx40/pos_read_data.csv",
        ...                             "torque": "dataset:staubli_tx40/curr_data.csv"}}]})
        >>> cfg.n, cfg.torque.kind, cfg.position.unit[0], cfg.settings.cutoff
        (6, 'joint_torque', 'rad', 'auto')
        """
        if not isinstance(config, Mapping):
            raise TypeError(f"config must be a mapping (the parsed TOML), got {type(config).__name__}")
        if base_dir is not None and not isinstance(base_dir, (str, os.PathLike)):
            raise TypeError(f"base_dir must be a path, got {type(base_dir).__name__}")
        if not isinstance(source, str):
            raise TypeError(f"source must be a string, got {type(source).__name__}")
        return _parse(config, Path(base_dir) if base_dir is not None else Path.cwd(), source)

    def to_dict(self) -> dict:
        """The configuration as a dict of the TOML structure, every path absolute."""
        return _unparse(self)

    def replace_settings(self, **changes: Any) -> "IdentifyConfig":
        """A copy with some ``[settings]`` entries changed (checked like the file's).

        Raises
        ------
        ValueError
            An unknown entry or a bad value (named).
        """
        d = self.to_dict()
        d.setdefault("settings", {}).update(changes)
        return IdentifyConfig.from_dict(d, source=self.source)


# ---------------------------------------------------------------------------- parsing
def _path(value: Any, where: str, base: Path, must_exist: bool = True) -> Path:
    text = _str(value, where)
    if text.startswith(_DATASET_PREFIX):
        rel = text[len(_DATASET_PREFIX):]
        parts = Path(rel).parts
        if not parts or ".." in parts or Path(rel).is_absolute():
            raise _fail(where, f"{text!r}: a dataset path is 'dataset:NAME/FILE' inside robidlib's data sets")
        path = Path(str(resources.files("robidlib.datasets") / "data")) / rel
    else:
        path = Path(text).expanduser()
        if not path.is_absolute():
            path = base / path
    if must_exist and not path.is_file():
        raise _fail(where, f"file {text!r} not found (looked for {str(path)!r})")
    return path.resolve()


def _units(value: Any, where: str, quantity: str, types: Sequence[str]) -> tuple[str, ...]:
    n = len(types)
    table = _UNITS[quantity]
    si = _SI.get(quantity, {})

    def one(u: Any, t: str, w: str) -> str:
        u = _str(u, w)
        allowed = table.get("*", table.get(t, {}))
        if _unit_key(u) not in allowed:
            other = table.get("p" if t == "r" else "r", {})
            kind = {"r": "revolute", "p": "prismatic"}[t]
            if _unit_key(u) in other:
                raise _fail(w, f"unit {u!r} is for a {'prismatic' if t == 'r' else 'revolute'} joint, "
                               f"but the joint is {kind}; expected one of {', '.join(allowed)}")
            raise _fail(w, f"unknown unit {u!r}; expected one of {', '.join(allowed)}")
        return u

    if value is None:
        return tuple(si.get("*", si.get(t, "")) for t in types)
    if isinstance(value, str):
        return tuple(one(value, t, where) for t in types)
    if isinstance(value, Mapping):
        d = _check_keys(value, ("revolute", "prismatic"), (), where)
        out = []
        for t in types:
            key = {"r": "revolute", "p": "prismatic"}[t]
            out.append(one(d[key], t, f"{where}.{key}") if key in d else si.get("*", si.get(t, "")))
        return tuple(out)
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise _fail(where, f"must hold {n} units (one per joint), got {len(value)}")
        return tuple(one(u, t, f"{where}[{i}]") for i, (u, t) in enumerate(zip(value, types)))
    raise _fail(where, f"must be a unit string, a list of units or a table, got {type(value).__name__}")


def unit_factor(quantity: str, unit: str) -> float:
    """Factor from ``unit`` to SI for a quantity (``"position"``, ``"joint_torque"``, ...).

    Raises
    ------
    ValueError
        An unknown quantity or unit.

    Examples
    --------
    >>> round(unit_factor("position", "deg"), 10), unit_factor("motor_current", "mA")
    (0.0174532925, 0.001)
    """
    if not isinstance(quantity, str) or quantity not in _UNITS:
        raise ValueError(f"unknown quantity {quantity!r}; expected one of {', '.join(_UNITS)}")
    if not isinstance(unit, str):
        raise TypeError(f"unit must be a string such as 'rad' or 'N m', got {type(unit).__name__} {unit!r}")
    key = _unit_key(unit)
    for table in _UNITS[quantity].values():
        if key in table:
            return table[key]
    raise ValueError(f"unknown {quantity} unit {unit!r}")


def _signs(value: Any, where: str, n: int) -> tuple[float, ...]:
    if value is None:
        return (1.0,) * n
    out = _numbers(value, where, n)
    bad = [v for v in out if v not in (1.0, -1.0)]
    if bad:
        raise _fail(where, f"every sign must be 1 or -1, got {bad[0]!r}")
    return out


def _signal(d: Any, where: str, name: str, n: int, types: Sequence[str]) -> SignalConfig:
    if name == "torque":
        keys = ("columns", "kind", "unit", "sign")
    elif name == "position":
        keys = ("columns", "unit", "sign", "side", "offset")
    else:
        keys = ("columns", "unit", "sign", "side")
    d = _check_keys(d, keys, ("columns",), where)
    columns = _strings(d["columns"], f"{where}.columns", n, unique=False)
    kind = ""
    side = "joint"
    if name == "torque":
        kind = _choice(d.get("kind", "joint_torque"), f"{where}.kind", _TORQUE_KINDS)
        quantity = kind
        if kind != "joint_torque":
            types = ["*"] * n
    else:
        side = _choice(d.get("side", "joint"), f"{where}.side", _SIDES)
        quantity = name
        if side == "motor":
            types = ["r"] * n            # motor shafts turn
    unit = _units(d.get("unit"), f"{where}.unit", quantity, types)
    offset = _numbers(d["offset"], f"{where}.offset", n) if "offset" in d else (0.0,) * n if name == "position" else ()
    return SignalConfig(columns=columns, unit=unit, sign=_signs(d.get("sign"), f"{where}.sign", n), side=side,
                        kind=kind, offset=offset)


def _joint_types(urdf: Path, joints: Sequence[str], where: str) -> list[str]:
    """'r' or 'p' per identified joint, from the URDF (parsed without evaluating anything)."""
    from ..robot import _read_urdf        # robidlib's one URDF parser (nothing in it is evaluated)

    try:
        root = _read_urdf(urdf.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise _fail(where, f"the URDF {str(urdf)!r} cannot be read: {exc}") from None
    types = {}
    for el in root.findall("joint"):
        types[el.get("name")] = el.get("type")
    out = []
    for k, j in enumerate(joints):
        t = types.get(j)
        if t is None:
            close = difflib.get_close_matches(j, [k_ for k_ in types if k_], n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise _fail(f"{where}.joints[{k}]", f"joint {j!r} is not in the URDF {urdf.name!r}{hint}")
        if t not in ("revolute", "continuous", "prismatic"):
            raise _fail(f"{where}.joints[{k}]", f"joint {j!r} of the URDF is {t!r}; only revolute, continuous "
                                                "and prismatic joints can be identified")
        out.append("p" if t == "prismatic" else "r")
    return out


def _parse(cfg: Mapping[str, Any], base: Path, source: str) -> IdentifyConfig:
    top = _check_keys(cfg, ("robot", "signals", "transmission", "model", "records", "settings", "verdict",
                            "export"), ("robot", "signals", "records"), f"{source}: top level")
    w = f"{source}: [robot]"
    robot = _check_keys(top["robot"], ("urdf", "joints", "base_link", "tip_link", "lock_joints", "gravity",
                                          "inertia_check"),
                        ("urdf", "joints"), w)
    urdf = _path(robot["urdf"], f"{w} urdf", base)
    joints = _strings(robot["joints"], f"{w} joints")
    if not joints:
        raise _fail(f"{w} joints", "must name at least one joint")
    n = len(joints)
    types = _joint_types(urdf, joints, w)
    base_link = _str(robot["base_link"], f"{w} base_link") if "base_link" in robot else None
    tip_link = _str(robot["tip_link"], f"{w} tip_link") if "tip_link" in robot else None
    lock = _strings(robot["lock_joints"], f"{w} lock_joints") if "lock_joints" in robot else None
    gravity = _numbers(robot["gravity"], f"{w} gravity", 3) if "gravity" in robot else None
    inertia_check = _choice(robot.get("inertia_check", "refuse"), f"{w} inertia_check", ("refuse", "warn"))

    w = f"{source}: [signals]"
    sig = _check_keys(top["signals"], ("delimiter", "time", "position", "velocity", "torque"),
                      ("time", "position", "torque"), w)
    delimiter = _str(sig.get("delimiter", ","), f"{w} delimiter")
    if len(delimiter) != 1 or delimiter in "\"'\n\r":
        raise _fail(f"{w} delimiter", f"must be one character (e.g. ',' or ';' or '\\t'), got {delimiter!r}")
    tw = f"{w} time"
    tt = _check_keys(sig["time"], ("column", "unit", "rate"), (), tw)
    if ("column" in tt) == ("rate" in tt):
        raise _fail(tw, "give either column = NAME (a time column in every file) or rate = HZ (files "
                        "without time stamps, uniformly sampled), not both or neither")
    time_column = _str(tt["column"], f"{tw}.column") if "column" in tt else None
    time_unit = _units(tt.get("unit", "s"), f"{tw}.unit", "time", ["*"])[0]
    if "rate" in tt and "unit" in tt:
        raise _fail(tw, "unit applies to a time column; with rate = HZ there is no time column")
    rate = _number(tt["rate"], f"{tw}.rate", positive=True) if "rate" in tt else None
    position = _signal(sig["position"], f"{w} position", "position", n, types)
    torque = _signal(sig["torque"], f"{w} torque", "torque", n, types)
    velocity = _signal(sig["velocity"], f"{w} velocity", "velocity", n, types) if "velocity" in sig else None

    w = f"{source}: [transmission]"
    gear = kt = None
    couplings: list[tuple[int, int, float]] = []
    if "transmission" in top:
        tr = _check_keys(top["transmission"], ("gear_ratios", "couplings", "torque_constants"), ("gear_ratios",), w)
        gear = _numbers(tr["gear_ratios"], f"{w} gear_ratios", n)
        if any(g == 0 for g in gear):
            raise _fail(f"{w} gear_ratios", f"must be non-zero (motor k drives joint k), got {list(gear)}")
        cps = tr.get("couplings", [])
        if not isinstance(cps, (list, tuple)):
            raise _fail(f"{w} couplings", f"must be a list of tables {{ motor, joint, ratio }}, got {cps!r}")
        for i, c in enumerate(cps):
            cw = f"{w} couplings[{i}]"
            c = _check_keys(c, ("motor", "joint", "ratio"), ("motor", "joint", "ratio"), cw)
            m = _number(c["motor"], f"{cw}.motor", integer=True, minimum=1, maximum=n) - 1
            j = _number(c["joint"], f"{cw}.joint", integer=True, minimum=1, maximum=n) - 1
            if m == j:
                raise _fail(cw, f"motor {m + 1} driving joint {j + 1} is its gear ratio (gear_ratios), not a coupling")
            couplings.append((m, j, _number(c["ratio"], f"{cw}.ratio")))
        if "torque_constants" in tr:
            kt = _numbers(tr["torque_constants"], f"{w} torque_constants", n, positive=True)
    needs = (position.side == "motor" or torque.kind != "joint_torque"
             or (velocity is not None and velocity.side == "motor"))
    if needs and gear is None:
        raise _fail(f"{source}: [transmission]", "motor-side signals (side = \"motor\" or a motor torque or "
                                                 "current) need [transmission] gear_ratios")
    if torque.kind == "motor_current" and kt is None:
        raise _fail(f"{source}: [transmission] torque_constants", "torque kind \"motor_current\" needs the "
                                                                  "motors' torque constants (N m/A)")
    if torque.kind != "motor_current" and kt is not None:
        raise _fail(f"{source}: [transmission] torque_constants", f"torque constants are only used with "
                                                                  f"kind = \"motor_current\", the torque kind is {torque.kind!r}")

    w = f"{source}: [model]"
    mo = _check_keys(top.get("model", {}), ("friction", "offset", "rotor_inertia", "coupled_motors"), (), w)
    friction = _strings(mo.get("friction", ["viscous", "coulomb"]), f"{w} friction")
    for i, f in enumerate(friction):
        _choice(f, f"{w} friction[{i}]", ("viscous", "coulomb"))
    flags = {k: _bool(mo.get(k, True), f"{w} {k}") for k in ("offset", "rotor_inertia", "coupled_motors")}

    w = f"{source}: [[records]]"
    recs = top["records"]
    if not isinstance(recs, (list, tuple)) or not recs:
        raise _fail(w, "must be a non-empty list of tables [[records]] (one per log)")
    records = []
    names = set()
    for i, r in enumerate(recs):
        rw = f"{source}: records[{i}]"
        r = _check_keys(r, ("name", "file", "files", "role"), (), rw)
        if ("file" in r) == ("files" in r):
            raise _fail(rw, "give either file = PATH (every column in one file) or files = { position = PATH, "
                            "torque = PATH, ... }, not both or neither")
        wanted = ["position", "torque"] + (["velocity"] if velocity is not None else [])
        if "file" in r:
            p = _path(r["file"], f"{rw}.file", base)
            files = {s: p for s in wanted}
        else:
            fd = _check_keys(r["files"], ("position", "velocity", "torque"), tuple(wanted), f"{rw}.files")
            if "velocity" in fd and velocity is None:
                raise _fail(f"{rw}.files.velocity", "a velocity file is given but [signals] has no velocity")
            files = {s: _path(fd[s], f"{rw}.files.{s}", base) for s in wanted}
        name = _str(r.get("name", f"record{i + 1}"), f"{rw}.name")
        if name in names:
            raise _fail(f"{rw}.name", f"record name {name!r} is used twice")
        names.add(name)
        records.append(RecordConfig(name=name, files=files, role=_choice(r.get("role", "fit"), f"{rw}.role", _ROLES)))
    if not any(r.role == "fit" for r in records):
        raise _fail(w, "no record has role = \"fit\": nothing to identify from")

    settings = _parse_settings(top.get("settings", {}), f"{source}: [settings]", n)
    verdict = _parse_verdict(top.get("verdict", {}), f"{source}: [verdict]")
    w = f"{source}: [export]"
    ex = _check_keys(top.get("export", {}), ("urdf", "mjcf"), (), w)
    return IdentifyConfig(
        urdf=urdf, joints=joints, position=position, torque=torque, records=tuple(records), base_link=base_link,
        tip_link=tip_link, lock_joints=lock, gravity=gravity, inertia_check=inertia_check, delimiter=delimiter, time_column=time_column,
        time_unit=time_unit, rate=rate, velocity=velocity, gear_ratios=gear, couplings=tuple(couplings),
        torque_constants=kt, friction=friction, settings=settings, verdict=verdict,
        export_urdf=_bool(ex.get("urdf", True), f"{w} urdf"), export_mjcf=_bool(ex.get("mjcf", True), f"{w} mjcf"),
        source=source, **flags,
    )


def _parse_settings(d: Any, w: str, n: int | None, build: bool = True) -> Any:
    allowed = tuple(f.name for f in fields(RunSettings))
    d = _check_keys(d, allowed, (), w)
    kw: dict[str, Any] = {}
    if "cutoff" in d:
        kw["cutoff"] = _auto_or(d["cutoff"], f"{w} cutoff", lambda v, x: _number(v, x, positive=True))
    if "filter_order" in d:
        kw["filter_order"] = _number(d["filter_order"], f"{w} filter_order", integer=True, minimum=1, maximum=20)
    if "decimation" in d:
        def dec(v, x):
            out = tuple(_number(f, f"{x}[{i}]", integer=True, minimum=2, maximum=13) for i, f in enumerate(v)) \
                if isinstance(v, (list, tuple)) else None
            if out is None:
                raise _fail(x, f"must be \"auto\" or a list of factors such as [10, 10] ([] for none), got {v!r}")
            return out
        kw["decimation"] = _auto_or(d["decimation"], f"{w} decimation", dec)
    if "trim" in d:
        kw["trim"] = _auto_or(d["trim"], f"{w} trim", lambda v, x: _number(v, x, integer=True, minimum=0))
    if "velocity_threshold" in d:
        kw["velocity_threshold"] = _auto_or(d["velocity_threshold"], f"{w} velocity_threshold",
                                            lambda v, x: _numbers(v, x, n, nonnegative=True))
    for key, extra in (("ratio_essential", dict(minimum=1.0 + 1e-12)),
                       ("min_equations_per_parameter", dict(minimum=1.0)),
                       ("guard", dict(nonnegative=True)), ("jitter", dict(nonnegative=True, maximum=0.5)),
                       ("min_segment", dict(nonnegative=True)), ("physical_margin", dict(nonnegative=True))):
        if key in d:
            kw[key] = _number(d[key], f"{w} {key}", **extra)
    if "holdout_fraction" in d:
        v = _number(d["holdout_fraction"], f"{w} holdout_fraction")
        if not 0 < v < 1:
            raise _fail(f"{w} holdout_fraction", f"must be in (0, 1) (a share of every fitting record), got {v!r}")
        kw["holdout_fraction"] = v
    if "cv_folds" in d:
        v = _number(d["cv_folds"], f"{w} cv_folds", integer=True, minimum=0, maximum=50)
        if v == 1:
            raise _fail(f"{w} cv_folds", "must be 0 (no cross-validation) or at least 2, got 1")
        kw["cv_folds"] = v
    if "gap" in d:
        kw["gap"] = _auto_or(d["gap"], f"{w} gap", lambda v, x: _number(v, x, positive=True))
    if "rate" in d:
        kw["rate"] = _auto_or(d["rate"], f"{w} rate", lambda v, x: _number(v, x, positive=True))
    if "velocity_source" in d:
        kw["velocity_source"] = _choice(d["velocity_source"], f"{w} velocity_source",
                                        ("auto", "measured", "differentiated"))
    for key in ("physical", "check_limits"):
        if key in d:
            kw[key] = _bool(d[key], f"{w} {key}")
    return RunSettings(**kw) if build else kw


def _parse_verdict(d: Any, w: str) -> VerdictThresholds:
    allowed = tuple(f.name for f in fields(VerdictThresholds))
    d = _check_keys(d, allowed, (), w)
    kw = {k: _number(v, f"{w} {k}", positive=True) for k, v in d.items()}
    lo, hi = kw.get("heldout_pass", VerdictThresholds.heldout_pass), kw.get("heldout_fail", VerdictThresholds.heldout_fail)
    if not lo < hi:
        raise _fail(w, f"heldout_pass ({lo:g}) must be below heldout_fail ({hi:g})")
    v = VerdictThresholds(**kw)
    if v.gravity_scale_warn <= 1:
        raise _fail(f"{w} gravity_scale_warn", f"must be > 1 (a factor), got {v.gravity_scale_warn:g}")
    return v


def _unparse(c: IdentifyConfig) -> dict:
    def sig(s: SignalConfig | None, name: str) -> dict | None:
        if s is None:
            return None
        out: dict[str, Any] = {"columns": list(s.columns), "unit": list(s.unit), "sign": list(s.sign)}
        if name == "torque":
            out["kind"] = s.kind
        else:
            out["side"] = s.side
        if name == "position":
            out["offset"] = list(s.offset)
        return out

    robot: dict[str, Any] = {"urdf": str(c.urdf), "joints": list(c.joints)}
    for key in ("base_link", "tip_link"):
        if getattr(c, key) is not None:
            robot[key] = getattr(c, key)
    if c.lock_joints is not None:
        robot["lock_joints"] = list(c.lock_joints)
    if c.gravity is not None:
        robot["gravity"] = list(c.gravity)
    if c.inertia_check != "refuse":
        robot["inertia_check"] = c.inertia_check
    time: dict[str, Any] = ({"column": c.time_column, "unit": c.time_unit} if c.time_column is not None
                            else {"rate": c.rate})
    signals = {"delimiter": c.delimiter, "time": time, "position": sig(c.position, "position"),
               "torque": sig(c.torque, "torque")}
    if c.velocity is not None:
        signals["velocity"] = sig(c.velocity, "velocity")
    out: dict[str, Any] = {"robot": robot, "signals": signals}
    if c.gear_ratios is not None:
        tr: dict[str, Any] = {"gear_ratios": list(c.gear_ratios)}
        if c.couplings:
            tr["couplings"] = [{"motor": m + 1, "joint": j + 1, "ratio": r} for m, j, r in c.couplings]
        if c.torque_constants is not None:
            tr["torque_constants"] = list(c.torque_constants)
        out["transmission"] = tr
    out["model"] = {"friction": list(c.friction), "offset": c.offset, "rotor_inertia": c.rotor_inertia,
                    "coupled_motors": c.coupled_motors}
    out["records"] = [{"name": r.name, "files": {k: str(v) for k, v in r.files.items()}, "role": r.role}
                      for r in c.records]
    st = {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(c.settings).items()}
    out["settings"] = st
    out["verdict"] = asdict(c.verdict)
    out["export"] = {"urdf": c.export_urdf, "mjcf": c.export_mjcf}
    return out


# ---------------------------------------------------------------------------- files
def load_config(path: str | os.PathLike) -> IdentifyConfig:
    """Read and check a TOML configuration (see the module docstring for the schema).

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    IdentifyConfig

    Raises
    ------
    FileNotFoundError
        No such file.
    ValueError
        Not valid TOML (with the line), or a configuration error naming the file and the key.
    TypeError
        ``path`` not a path.

    Examples
    --------
    >>> cfg = load_config(example_config("tx40"))
    >>> cfg.joints[:2], cfg.torque.kind, cfg.gear_ratios
    (('joint_1', 'joint_2'), 'motor_torque', (32.0, 32.0, 45.0, -48.0, 45.0, 32.0))
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a path (str or os.PathLike), got {type(path).__name__}")
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"configuration file {str(p)!r} not found")
    with open(p, "rb") as fh:
        try:
            data = tomllib.load(fh)
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"{p.name}: not valid TOML: {exc}") from None
    return IdentifyConfig.from_dict(data, base_dir=p.resolve().parent, source=p.name)


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"TOML cannot hold {v!r} in a configuration")
        return repr(v)
    if isinstance(v, str):
        esc = v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
        return f'"{esc}"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {type(v).__name__} {v!r} as TOML")


def _toml_key(k: str) -> str:
    if k and all(ch.isalnum() or ch in "_-" for ch in k):
        return k
    return _toml_value(k)


def to_toml(config: Mapping[str, Any] | IdentifyConfig) -> str:
    """A configuration as TOML text (:func:`load_config` reads it back to the same config).

    Parameters
    ----------
    config : IdentifyConfig or mapping
        A mapping of the configuration's structure (tables of values, ``records`` a list of
        tables).

    Returns
    -------
    str

    Raises
    ------
    TypeError
        A value TOML cannot hold (None, an object).

    Examples
    --------
    >>> print(to_toml({"model": {"offset": False}, "records": [{"file": "a.csv"}]}).strip())
    [model]
    offset = false
    <BLANKLINE>
    [[records]]
    file = "a.csv"
    """
    d = config.to_dict() if isinstance(config, IdentifyConfig) else config
    if not isinstance(d, Mapping):
        raise TypeError(f"config must be an IdentifyConfig or a mapping, got {type(config).__name__}")
    lines: list[str] = []
    for key, value in d.items():
        if isinstance(value, Mapping):
            lines += [f"[{_toml_key(key)}]"]
            lines += [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items() if v is not None]
            lines.append("")
        elif isinstance(value, (list, tuple)) and value and all(isinstance(x, Mapping) for x in value):
            for item in value:
                lines += [f"[[{_toml_key(key)}]]"]
                lines += [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in item.items() if v is not None]
                lines.append("")
        else:
            lines.insert(0, f"{_toml_key(key)} = {_toml_value(value)}")
    return "\n".join(lines)


def example_config(name: str) -> Path:
    """Path of a shipped example configuration (``"tx40"`` or ``"tiago"``), inside robidlib.

    Read it, or run it (``robidlib-identify --example tx40 --out DIR``); to edit one, copy it
    with :func:`write_example_config` (never edit the installed package).

    Raises
    ------
    ValueError
        An unknown name.

    Examples
    --------
    >>> example_config("tiago").name
    'tiago.toml'
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be the name of an example ({', '.join(map(repr, EXAMPLES))}), got "
                        f"{type(name).__name__} {name!r}")
    if name not in EXAMPLES:
        raise ValueError(f"unknown example name {name!r}; expected one of {', '.join(map(repr, EXAMPLES))}")
    return Path(str(resources.files("robidlib.identification") / "examples" / EXAMPLES[name]))


def write_example_config(name: str, directory: str | os.PathLike, *, overwrite: bool = False) -> Path:
    """Copy a shipped example configuration into a folder of yours, to edit and run.

    Its data paths (``"dataset:..."``) keep pointing at the data shipped with robidlib.

    Parameters
    ----------
    name : {"tx40", "tiago"}
    directory : str or os.PathLike
        An existing folder, outside the installed robidlib package.
    overwrite : bool, default False
        Replace a file of the same name.

    Returns
    -------
    pathlib.Path
        The written file.

    Raises
    ------
    ValueError
        An unknown name, a folder inside the robidlib package, or an existing file without
        ``overwrite``.
    FileNotFoundError
        No such folder.
    TypeError
        ``directory`` not a path or ``overwrite`` not a bool.
    """
    src = example_config(name)
    from ._writers import check_out_dir

    if not isinstance(overwrite, bool):
        raise TypeError(f"overwrite must be True or False, got {type(overwrite).__name__}")
    folder = check_out_dir(directory, create=False)
    dst = folder / src.name
    if dst.exists() and not overwrite:
        raise ValueError(f"{str(dst)!r} exists; pass overwrite=True (--overwrite) to replace it")
    from .._io import write_text

    return write_text(dst, src.read_text(encoding="utf-8"), overwrite=overwrite, name="directory")
