"""Real identification data of a PAL Robotics TIAGo: torso lift and 7-joint arm (FIGAROH, Apache-2.0).

The files in ``robidlib/datasets/data/tiago/`` are copied unchanged from the FIGAROH project
(LAAS-CNRS); their licence is Apache-2.0 (``LICENSE`` and ``NOTICE`` beside them), not the
book's CC BY 4.0. The data card ``README.md`` there gives the provenance, the checksums, the
units and the record's known problems.

Unlike the TX40 record this one is what a user of a research robot usually has: joint-side
signals logged by the robot's middleware at about 100 Hz with **jittered time stamps**,
**measured velocities**, and "effort" signals whose quality differs from joint to joint:

* ``tiago_position.csv``, ``tiago_velocity.csv``, ``tiago_effort.csv`` -- a time column ``t``
  and one column per joint (``- torso_lift_joint_position``, ...), 8 022 rows, 80.2 s;
* ``tiago.urdf`` -- the whole robot with CAD inertial values (no meshes);
* ``tiago_config.yaml`` -- FIGAROH's settings (several entries copied from its TX40 file);
* ``tiago_bp_19_Oct_2024_2320.csv`` -- FIGAROH's published base parameters of this record.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..robot import SerialRobot

__all__ = ["TIAGO_FILES", "TIAGO_JOINTS", "Tiago", "tiago", "tiago_data_dir", "tiago_published", "tiago_robot",
           "verify_tiago_files", "figaroh_to_ours", "compare_tiago_with_published"]

#: sha256 of every file shipped; checked on load.
TIAGO_FILES: dict[str, str] = {
    "tiago_position.csv": "4297a60d434ee89f1f424ad0da8ec65bc00072ac57eb06b94966c0819fc2786d",
    "tiago_velocity.csv": "269f681ca7a9511ac1698bf027ddf601e3fdb49d7d397af4810ec839f136cd69",
    "tiago_effort.csv": "12c635987705efade603426a600f5b315add7f580c720a4b84609dadb9d0a2e9",
    "tiago.urdf": "e5bcd39768d4475d0be8753f103f45e6017d589d4373018001ad5329f65c8d5f",
    "tiago_config.yaml": "a8c5b16d92246d269f94405a0b8fc78b24a5650e0c04808371cc98685357a480",
    "tiago_bp_19_Oct_2024_2320.csv": "7df7fa1a026d085a4514ec926347f0e93d0a09461a57419c33c5912c62ed3415",
    "LICENSE": "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30",
    "NOTICE": "0c9cfbde8d10b361f459cdfaeda92b0dd4a51879805383e505ac6a06fc18b552",
}

#: The identified joints, base to tip: the prismatic torso lift and the seven arm joints.
TIAGO_JOINTS: tuple[str, ...] = ("torso_lift_joint",) + tuple(f"arm_{i}_joint" for i in range(1, 8))

_SIGNALS = {"position": "tiago_position.csv", "velocity": "tiago_velocity.csv", "effort": "tiago_effort.csv"}


def tiago_data_dir() -> Path:
    """Folder of the shipped TIAGo files (inside the installed package).

    Examples
    --------
    >>> sorted(p.name for p in tiago_data_dir().glob("*.csv"))[:2]
    ['tiago_bp_19_Oct_2024_2320.csv', 'tiago_effort.csv']
    """
    return Path(str(resources.files("robidlib.datasets") / "data" / "tiago"))


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _folder(directory: Any) -> Path:
    if directory is None:
        return tiago_data_dir()
    if not isinstance(directory, (str, os.PathLike)):
        raise TypeError(f"directory must be a path (str or os.PathLike), got {type(directory).__name__}")
    folder = Path(directory)
    if not folder.is_dir():
        raise FileNotFoundError(f"directory {str(folder)!r} is not a folder; expected the TIAGo data folder")
    return folder


def verify_tiago_files(directory: str | os.PathLike | None = None) -> dict[str, str]:
    """Check that every TIAGo file is present and unchanged (sha256).

    Parameters
    ----------
    directory : str or os.PathLike, optional
        Folder holding the files; default :func:`tiago_data_dir`.

    Returns
    -------
    dict
        ``{file name: sha256}`` (all equal to :data:`TIAGO_FILES`).

    Raises
    ------
    FileNotFoundError
        A missing folder or file (named).
    ValueError
        An altered file (named, with both hashes).
    TypeError
        ``directory`` not a path.

    Examples
    --------
    >>> verify_tiago_files() == TIAGO_FILES
    True
    """
    folder = _folder(directory)
    out = {}
    for name, expected in TIAGO_FILES.items():
        path = folder / name
        if not path.is_file():
            raise FileNotFoundError(f"TIAGo data file {name!r} is missing from {str(folder)!r}; reinstall robidlib or "
                                    "copy the original file back (see the data card README.md)")
        got = _sha256(path)
        if got != expected:
            raise ValueError(f"TIAGo data file {name!r} in {str(folder)!r} has been altered: sha256 {got}, expected "
                             f"{expected}; restore the original file (see the data card README.md)")
        out[name] = got
    return out


@dataclass(frozen=True, eq=False)
class Tiago:
    """The TIAGo record as it comes, with the model of the identified chain.

    Attributes
    ----------
    t : numpy.ndarray, shape (N,)
        Time stamps, s (jittered: steps of 7.7 to 12.3 ms).
    q, qd, effort : numpy.ndarray, shape (N, 8)
        Positions (m for the torso, rad for the arm), measured velocities (m/s, rad/s) and
        efforts as the robot reports them (N for the torso, N m for the arm, by the source's
        account; see the data card), in :data:`TIAGO_JOINTS` order.
    robot : SerialRobot
        The chain torso + arm of ``tiago.urdf`` (every other movable joint held at zero, the
        links it carries merged into the link they hang from), CAD inertial values.
    columns : dict
        The column names of each file, in joint order (``{"position": [...], ...}``).
    settings : dict
        The parsed ``tiago_config.yaml``.
    files : dict
        ``{file name: path}``.
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    effort: np.ndarray
    robot: SerialRobot
    columns: dict = field(repr=False)
    settings: dict = field(repr=False)
    files: dict = field(repr=False)

    def __post_init__(self) -> None:
        from .._validate import check_fields

        if not isinstance(self.robot, SerialRobot):
            raise TypeError(f"robot must be a SerialRobot, got {type(self.robot).__name__}")
        n = self.robot.n
        dims = check_fields(self, t=("N",), q=("N", n), qd=("N", n), effort=("N", n))
        if dims["N"] == 0:
            raise ValueError("t must hold samples, got an empty array")
        for name in ("columns", "settings", "files"):
            if not isinstance(getattr(self, name), dict):
                raise TypeError(f"{name} must be a dict, got {type(getattr(self, name)).__name__}")

    @property
    def n_samples(self) -> int:
        """Number of samples N."""
        return int(self.t.size)


def _column_names(signal: str) -> list[str]:
    suffix = {"position": "position", "velocity": "velocity", "effort": "effort"}[signal]
    return [f"- {j}_{suffix}" for j in TIAGO_JOINTS]


def _read_csv(path: Path, expected: list[str]) -> np.ndarray:
    with open(path, encoding="utf-8") as fh:
        header = [h.strip() for h in fh.readline().split(",")]
    if header != expected:
        raise ValueError(f"TIAGo data file {path.name!r}: header {header}, expected {expected}")
    return np.loadtxt(path, delimiter=",", skiprows=1, dtype=float, ndmin=2)


def tiago_robot(urdf: str | os.PathLike | None = None, *, inertia_check: str = "warn") -> SerialRobot:
    """The torso-and-arm chain of the TIAGo URDF (every other movable joint locked at zero).

    Parameters
    ----------
    urdf : path, optional
        Another copy of the URDF; default the packaged one.
    inertia_check : {"warn", "refuse"}, default "warn"
        Passed to :meth:`SerialRobot.from_urdf`. The packaged URDF's ``arm_1_link`` has a CAD
        inertia that breaks the triangle inequality (by 2 % of its largest moment), so it loads
        with a warning that says so; "refuse" raises instead.

    Returns
    -------
    SerialRobot

    Raises
    ------
    ValueError, TypeError
        As :meth:`SerialRobot.from_urdf`.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")          # arm_1_link's CAD inertia (see above)
    ...     r = tiago_robot()
    >>> r.n, r.joint_types[:2], round(float(r.link_params[:, 0].sum()), 2)
    (8, ('prismatic', 'revolute'), 19.14)
    """
    from ..robot import _read_urdf

    if urdf is not None and not isinstance(urdf, (str, os.PathLike)):
        raise TypeError(f"urdf must be a path (str or os.PathLike), got {type(urdf).__name__}")
    path = tiago_data_dir() / "tiago.urdf" if urdf is None else Path(urdf)
    if not path.is_file():
        raise FileNotFoundError(f"urdf {str(path)!r} is not a file")
    text = path.read_text(encoding="utf-8")
    root = _read_urdf(text)
    lock = [el.get("name") for el in root.findall("joint")
            if el.get("type") in ("revolute", "continuous", "prismatic") and el.get("name") not in TIAGO_JOINTS]
    return SerialRobot.from_urdf(text, lock_joints=lock, name="tiago", inertia_check=inertia_check)


def tiago(directory: str | os.PathLike | None = None, *, verify: bool = True) -> Tiago:
    """Load the TIAGo record, its torso-and-arm model and FIGAROH's settings.

    Parameters
    ----------
    directory : str or os.PathLike, optional
        Folder holding the files (default: the copy shipped with robidlib).
    verify : bool, default True
        Check every file's sha256 first (:func:`verify_tiago_files`).

    Returns
    -------
    Tiago

    Raises
    ------
    FileNotFoundError
        A missing folder or file (named).
    ValueError
        An altered file (sha256 mismatch), files whose time columns differ or whose headers
        lack a joint.
    TypeError
        ``directory`` not a path or ``verify`` not a bool.

    Examples
    --------
    >>> tg = tiago()
    >>> tg.q.shape, tg.robot.joint_names[0], round(float(np.median(np.diff(tg.t))), 4)
    ((8022, 8), 'torso_lift_joint', 0.01)
    """
    if not isinstance(verify, (bool, np.bool_)):
        raise TypeError(f"verify must be a bool, got {type(verify).__name__}")
    folder = _folder(directory)
    if verify:
        verify_tiago_files(folder)
    else:
        for name in TIAGO_FILES:
            if not (folder / name).is_file():
                raise FileNotFoundError(f"TIAGo data file {name!r} is missing from {str(folder)!r}")
    arrays, columns, t = {}, {}, None
    for sig, fname in _SIGNALS.items():
        cols = _column_names(sig)
        data = _read_csv(folder / fname, ["t"] + cols)
        if t is None:
            t = data[:, 0]
        elif not np.array_equal(t, data[:, 0]):
            raise ValueError(f"TIAGo data file {fname!r}: its time column differs from tiago_position.csv's")
        arrays[sig] = data[:, 1:]
        columns[sig] = cols
    import yaml

    with open(folder / "tiago_config.yaml", encoding="utf-8") as fh:
        settings = yaml.safe_load(fh)
    robot = tiago_robot(folder / "tiago.urdf")
    for a in (t, *arrays.values()):
        a.setflags(write=False)
    return Tiago(t=t, q=arrays["position"], qd=arrays["velocity"], effort=arrays["effort"], robot=robot,
                 columns=columns, settings=settings, files={n: str(folder / n) for n in TIAGO_FILES})


_TERM = re.compile(r"^([+-]?\s*[0-9.eE+-]*)\s*\*?\s*([A-Za-z]+)(\d+)$")


def tiago_published() -> tuple[dict, ...]:
    """FIGAROH's published base parameters of this record (``tiago_bp_19_Oct_2024_2320.csv``).

    Each line of the file holds a base parameter's expression in FIGAROH's standard
    parameters (``m13``, ``Izz14``, ...: pinocchio's body numbers, torso 13, arm 14-20, the
    hand's bodies 21-24), its value and its relative standard deviation in percent.

    Returns
    -------
    tuple of dict
        ``expression``, ``value``, ``rel_std`` (%), ``lead`` (the first, independent standard
        parameter) and ``terms`` (``{name: coefficient}``).

    Examples
    --------
    >>> pub = tiago_published()
    >>> len(pub), pub[0]["lead"], round(pub[0]["value"], 2), round(pub[0]["rel_std"])
    (44, 'm13', 19.02, 7)
    """
    import csv

    out = []
    with open(tiago_data_dir() / "tiago_bp_19_Oct_2024_2320.csv", encoding="utf-8", newline="") as fh:
        for row in csv.reader(fh):
            if not row:
                continue
            expr, value, rel = row[0].strip(), float(row[1]), float(row[2])
            terms: dict[str, float] = {}
            for k, raw in enumerate(expr.replace(" - ", " + -").split(" + ")):
                raw = raw.replace(" ", "")
                m = _TERM.match(raw)
                if m is None:
                    raise ValueError(f"tiago_bp file: cannot read the term {raw!r} of {expr!r}")
                coef = m.group(1).rstrip("*")
                c = 1.0 if coef in ("", "+") else -1.0 if coef == "-" else float(coef)
                terms[m.group(2) + m.group(3)] = terms.get(m.group(2) + m.group(3), 0.0) + c
            lead = next(iter(terms))
            out.append({"expression": expr, "value": value, "rel_std": rel, "lead": lead, "terms": terms})
    return tuple(out)


def figaroh_to_ours(name: str) -> str | None:
    """FIGAROH's name of a TIAGo standard parameter as robidlib's: ``Izz14 -> Izz2``, ``m13 -> m1``.

    Bodies 13-20 are robidlib's links 1-8 (torso, arm 1-7; the same URDF frames); the hand's
    bodies 21-24 are merged into robidlib's link 8 and have no name of their own (None).

    Examples
    --------
    >>> figaroh_to_ours("Izz14"), figaroh_to_ours("mx20"), figaroh_to_ours("m22")
    ('Izz2', 'mx8', None)
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string such as 'Izz14', got {type(name).__name__}")
    m = re.fullmatch(r"([A-Za-z]+)(\d+)", name)
    if m is None:
        raise ValueError(f"name must be a FIGAROH parameter name such as 'Izz14', got {name!r}")
    k = int(m.group(2))
    if 13 <= k <= 20:
        return f"{m.group(1)}{k - 12}"
    return None


_KHALIL_INERTIAL = {"m": "M", "mx": "MX", "my": "MY", "mz": "MZ", "Ixx": "XX", "Iyy": "YY", "Izz": "ZZ",
                    "Ixy": "XY", "Ixz": "XZ", "Iyz": "YZ"}


def _khalil_name(name: str) -> str:
    stem = name.rstrip("0123456789")
    return _KHALIL_INERTIAL[stem] + name[len(stem):]


def compare_tiago_with_published(base: Any, values: Any, rel_std: Any, cad: Any | None = None) -> tuple[dict, ...]:
    """Side by side: base-parameter estimates of this record against FIGAROH's published ones.

    Each published base parameter is matched with ours by its leading (independent)
    standard parameter (:func:`figaroh_to_ours`, then Khalil's name: ``Izz14 -> ZZ2`` or
    ``ZZ2R``); the relations are compared coefficient by coefficient over the standard
    parameters both name (the hand's bodies 21-24 are merged into our link 8, the drive terms
    ``IA``, ``FV``, ... are ours only), so that a difference of kinematics or of model shows.

    Parameters
    ----------
    base : BaseParameters
        Ours, named with Khalil's names (``DriveModel.base_parameters()``).
    values, rel_std : array_like, shape (r,)
        Our estimates and their relative standard deviations (%), in ``base.base_names``
        order (e.g. ``IdentificationResult.wls.params`` and ``.rel_std``).
    cad : array_like, shape (p,), optional
        The CAD parameter vector of the model's columns (``DriveModel.pack()``): adds the CAD
        value of each of our base parameters.

    Returns
    -------
    tuple of dict
        One per published parameter: ``figaroh`` (its lead name), ``expression``,
        ``figaroh_value``, ``figaroh_rel_std``, ``ours`` (our name or None), ``ours_value``,
        ``ours_rel_std``, ``cad_value``, ``relation_max_diff`` (largest difference of a shared
        coefficient), ``relation_only_theirs`` and ``relation_only_ours`` (standard parameters
        in one relation only).

    Raises
    ------
    ValueError
        Shapes that do not match ``base``; NaN in ``values``.
    TypeError
        ``base`` not BaseParameters.

    Examples
    --------
    >>> from robidlib.identification import DriveModel
    >>> model = DriveModel(tiago_robot())
    >>> bp = model.base_parameters(rtol=1e-8)
    >>> cad = model.pack()
    >>> rows = compare_tiago_with_published(bp, bp.beta(cad), np.ones(bp.rank), cad)
    >>> rows[0]["figaroh"], rows[0]["ours"], round(rows[0]["cad_value"], 2)
    ('m13', 'M1R', 19.14)
    """
    from .._validate import as_array
    from ..base import BaseParameters

    if not isinstance(base, BaseParameters):
        raise TypeError(f"base must be BaseParameters, got {type(base).__name__}")
    r = base.rank
    if np.ndim(values) == 1 and np.shape(values)[0] != r:
        raise ValueError(f"values must have shape ({r},) (one entry per base parameter of base), got "
                         f"{np.shape(values)}")
    v = as_array("values", values, shape=(r,))
    rs = as_array("rel_std", rel_std, shape=(r,), finite=False)
    if np.any(np.isnan(rs)):
        raise ValueError("rel_std must not hold NaN (inf is a parameter estimated as zero), got NaN")
    cadv = None if cad is None else base.beta(as_array("cad", cad, shape=(base.n_params,)))
    names = base.base_names
    ours_rel = []
    dep = [base.names[k] for k in base.dependent]
    for i, j in enumerate(base.independent):
        rel = {base.names[j]: 1.0}
        for c, dn in zip(base.K[i], dep):
            if abs(c) > 1e-12:
                rel[dn] = float(c)
        ours_rel.append(rel)
    rows = []
    for pub in tiago_published():
        mine = figaroh_to_ours(pub["lead"])
        k_name = _khalil_name(mine) if mine else None
        idx = next((i for i, nm in enumerate(names) if nm.rstrip("R") == k_name), None) if k_name else None
        row = {"figaroh": pub["lead"], "expression": pub["expression"], "figaroh_value": pub["value"],
               "figaroh_rel_std": pub["rel_std"], "ours": None, "ours_value": float("nan"),
               "ours_rel_std": float("nan"), "cad_value": float("nan"), "relation_max_diff": float("nan"),
               "relation_only_theirs": [], "relation_only_ours": []}
        if idx is not None:
            theirs = {}
            for nm, c in pub["terms"].items():
                o = figaroh_to_ours(nm)
                if o is not None:
                    theirs[_khalil_name(o)] = c
            inertial = {nm: c for nm, c in ours_rel[idx].items() if nm.rstrip("0123456789") in
                        ("M", "MX", "MY", "MZ", "XX", "YY", "ZZ", "XY", "XZ", "YZ")}
            shared = set(theirs) & set(inertial)
            row.update(ours=names[idx], ours_value=float(v[idx]), ours_rel_std=float(rs[idx]),
                       cad_value=float(cadv[idx]) if cadv is not None else float("nan"),
                       relation_max_diff=max((abs(theirs[s] - inertial[s]) for s in shared), default=0.0),
                       relation_only_theirs=sorted(set(theirs) - set(inertial)),
                       relation_only_ours=sorted(set(ours_rel[idx]) - set(theirs)))
        rows.append(row)
    return tuple(rows)
