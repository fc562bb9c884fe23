"""Real identification data of a Staubli TX40 six-axis arm (FIGAROH, Apache-2.0).

The files in ``robidlib/datasets/data/staubli_tx40/`` are copied unchanged from the FIGAROH
project (LAAS-CNRS); their licence is Apache-2.0 (``LICENSE`` and ``NOTICE`` beside them), not
the book's CC BY 4.0. The data card ``README.md`` there gives the provenance, the checksums,
the units and the meaning of every column.

* ``pos_read_data.csv`` -- motor positions (rad, motor side), 45 000 samples at 5 kHz;
* ``curr_data.csv`` -- motor torque signals (N m, motor side), same samples;
* ``T40X_config.yaml`` -- FIGAROH's settings (sampling period, gear ratios, thresholds);
* ``tx40_mdh_modified.urdf`` -- kinematics (modified DH) and CAD inertial values.

Motors and joints. The motor positions are ``q_m = R q`` with ``R = diag(N)`` and, for the
coupled wrist, ``R[5, 4] = N[5]``: motor 6 turns with ``q5 + q6``. Power conservation
(``c . qd_m = tau . qd``) gives the joint torques ``tau = R^T c`` from the motor torques
``c``: ``R^T = diag(N)`` with ``R^T[4, 5] = N[5]`` (motor 6 also drives joint 5), the matrix
FIGAROH writes ``R_tau``. The model's zero differs from the measured one by
``q2 -= pi/2, q3 += pi/2`` (:data:`JOINT_OFFSETS`).
"""

from __future__ import annotations

import hashlib
import math
import os
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..robot import SerialRobot

__all__ = [
    "StaubliTX40",
    "staubli_tx40",
    "staubli_tx40_published",
    "data_dir",
    "verify_files",
    "FILES",
    "JOINT_OFFSETS",
    "to_figaroh_convention",
    "compare_with_published",
]

#: sha256 of every file shipped (data, model, settings, licence texts); checked on load.
FILES: dict[str, str] = {
    "curr_data.csv": "f4592f4ba4db42f5d7625688986be25b575ca34d0504b27979ca6b0276bd3af9",
    "pos_read_data.csv": "5cc1cecc1024ef0e331d0caba06f689456ab789ec3f1e904599c0a8be5c27bc8",
    "T40X_config.yaml": "8b3d8bb5f70ff4f8080b489086af372c36ebb8add57bd8eb44951268c094e35a",
    "tx40_mdh_modified.urdf": "3d00cbd46279c915d594b1bb4610dbac78d1e99ed27f95de70984bde13486074",
    "LICENSE": "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30",
    "NOTICE": "eb89f56775341a131f04161fc991fae4c99bf9192710aff2ace3dae3b5ab1f79",
}

#: Offsets added to the joint positions (after the motor-to-joint transform) so that they
#: match the URDF's zero: ``q2 -= pi/2``, ``q3 += pi/2`` (FIGAROH's calibration of the record).
JOINT_OFFSETS: tuple[float, ...] = (0.0, -math.pi / 2, math.pi / 2, 0.0, 0.0, 0.0)

_PUBLISHED = "published.yaml"


def data_dir() -> Path:
    """Folder of the shipped TX40 files (inside the installed package).

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> sorted(p.name for p in data_dir().glob("*.csv"))
    ['curr_data.csv', 'pos_read_data.csv']
    """
    return Path(str(resources.files("robidlib.datasets") / "data" / "staubli_tx40"))


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _folder(directory: Any) -> Path:
    if directory is None:
        return data_dir()
    if not isinstance(directory, (str, os.PathLike)):
        raise TypeError(f"directory must be a path (str or os.PathLike), got {type(directory).__name__}")
    folder = Path(directory)
    if not folder.is_dir():
        raise FileNotFoundError(f"directory {str(folder)!r} is not a folder; expected the TX40 data folder")
    return folder


def verify_files(directory: str | os.PathLike | None = None) -> dict[str, str]:
    """Check that every TX40 file is present and unchanged (sha256).

    Parameters
    ----------
    directory : str or os.PathLike, optional
        Folder holding the files; default :func:`data_dir`.

    Returns
    -------
    dict
        ``{file name: sha256}`` of the files checked (all equal to :data:`FILES`).

    Raises
    ------
    FileNotFoundError
        If the folder or one of the files is missing (the message names the file).
    ValueError
        If a file's sha256 differs from the expected one (the message names the file and
        gives both hashes).
    TypeError
        If ``directory`` is not a path.

    Examples
    --------
    >>> sorted(verify_files())[:2]
    ['LICENSE', 'NOTICE']
    """
    folder = _folder(directory)
    out = {}
    for name, expected in FILES.items():
        path = folder / name
        if not path.is_file():
            raise FileNotFoundError(
                f"TX40 data file {name!r} is missing from {str(folder)!r}; reinstall robidlib or copy the "
                "original file back (see the data card README.md)"
            )
        got = _sha256(path)
        if got != expected:
            raise ValueError(
                f"TX40 data file {name!r} in {str(folder)!r} has been altered: sha256 {got}, expected "
                f"{expected}; restore the original file (see the data card README.md)"
            )
        out[name] = got
    return out


@dataclass(frozen=True, eq=False)
class StaubliTX40:
    """The TX40 record as it comes, with the model and the transmission.

    Attributes
    ----------
    t : numpy.ndarray, shape (N,)
        Sample times, s (``k * ts``; the files hold no time column).
    q_motor : numpy.ndarray, shape (N, 6)
        Motor positions, rad (motor side).
    tau_motor : numpy.ndarray, shape (N, 6)
        Motor torque signals, N m (motor side).
    robot : SerialRobot
        The URDF model (kinematics and CAD inertial values; no friction).
    gear_ratios : numpy.ndarray, shape (6,)
        ``N`` of the settings: ``[32, 32, 45, -48, 45, 32]``.
    motor_matrix : numpy.ndarray, shape (6, 6)
        ``R`` with ``q_motor = R @ q`` (``R = diag(N)``, ``R[5, 4] = N[5]``).
    torque_matrix : numpy.ndarray, shape (6, 6)
        ``R^T`` with ``tau = R^T @ tau_motor`` (joint torques from motor torques).
    joint_offsets : numpy.ndarray, shape (6,)
        Added to ``R^-1 q_motor`` to obtain the model's joint positions.
    ts : float
        Sampling period, s (0.0002: 5 kHz).
    settings : dict
        The parsed ``T40X_config.yaml``.
    files : dict
        ``{file name: path}`` of the files read.

    Raises
    ------
    TypeError, ValueError
        Fields of the wrong type or shape, NaN/inf, a singular ``motor_matrix``, ``ts`` not
        > 0.
    """

    t: np.ndarray
    q_motor: np.ndarray
    tau_motor: np.ndarray
    robot: SerialRobot
    gear_ratios: np.ndarray
    motor_matrix: np.ndarray
    torque_matrix: np.ndarray
    joint_offsets: np.ndarray
    ts: float
    settings: dict = field(repr=False)
    files: dict = field(repr=False)

    def __post_init__(self) -> None:
        from .._validate import check_fields, check_positive

        if not isinstance(self.robot, SerialRobot) or self.robot.n != 6:
            raise TypeError(f"robot must be the TX40's 6-joint SerialRobot, got {self.robot!r}")
        check_fields(self, t=("N",), q_motor=("N", 6), tau_motor=("N", 6), gear_ratios=(6,),
                     motor_matrix=(6, 6), torque_matrix=(6, 6), joint_offsets=(6,))
        if self.t.size == 0:
            raise ValueError("t must hold at least one sample, got an empty array")
        if np.linalg.matrix_rank(self.motor_matrix) < 6:
            raise ValueError("motor_matrix must be invertible (q_motor = R q)")
        object.__setattr__(self, "ts", check_positive("ts", self.ts))
        for name in ("settings", "files"):
            if not isinstance(getattr(self, name), dict):
                raise TypeError(f"{name} must be a dict, got {type(getattr(self, name)).__name__}")

    @property
    def n_samples(self) -> int:
        """Number of samples N."""
        return int(self.t.size)

    @property
    def identification_settings(self) -> dict:
        """The ``identification`` section of the settings, its one-item lists unpacked."""
        ident = self.settings["identification"]
        return {k: (v[0] if isinstance(v, list) and len(v) == 1 else v) for k, v in ident.items()}

    def q_joint(self) -> np.ndarray:
        """Unfiltered joint positions ``R^-1 q_motor + joint_offsets``, shape (N, 6), rad.

        Examples
        --------
        >>> tx = staubli_tx40()
        >>> bool(np.allclose(tx.q_motor, (tx.q_joint() - tx.joint_offsets) @ tx.motor_matrix.T))
        True
        """
        return np.linalg.solve(self.motor_matrix, self.q_motor.T).T + self.joint_offsets

    def tau_joint(self) -> np.ndarray:
        """Joint torques ``R^T tau_motor``, shape (N, 6), N m."""
        return self.tau_motor @ self.torque_matrix.T


def _read_csv(path: Path, name: str) -> np.ndarray:
    with open(path, encoding="utf-8") as fh:
        header = fh.readline().strip().split(",")
    expected = [f"Joint_{i}" for i in range(1, 7)]
    if header != expected:
        raise ValueError(f"TX40 data file {name!r}: header {header}, expected {expected}")
    return np.loadtxt(path, delimiter=",", skiprows=1, dtype=float)


def _settings(path: Path) -> dict:
    import yaml  # a dependency of robidlib (pyproject)

    with open(path, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def staubli_tx40(directory: str | os.PathLike | None = None, *, verify: bool = True) -> StaubliTX40:
    """Load the TX40 record, its URDF model, the transmission and the settings.

    Parameters
    ----------
    directory : str or os.PathLike, optional
        Folder holding the files (default: the copy shipped with robidlib, :func:`data_dir`).
    verify : bool, default True
        Check every file's sha256 first (:func:`verify_files`); about 20 ms.

    Returns
    -------
    StaubliTX40

    Raises
    ------
    FileNotFoundError
        A missing folder or file (named in the message).
    ValueError
        An altered file (sha256 mismatch, named in the message), or a file whose content does
        not have the expected form.
    TypeError
        If ``directory`` is not a path or ``verify`` not a bool.

    Examples
    --------
    >>> tx = staubli_tx40()
    >>> tx.q_motor.shape, tx.tau_motor.shape, round(1 / tx.ts)
    ((45000, 6), (45000, 6), 5000)
    >>> tx.gear_ratios.tolist()
    [32.0, 32.0, 45.0, -48.0, 45.0, 32.0]
    >>> tx.motor_matrix[5].tolist()       # motor 6 turns with joints 5 and 6
    [0.0, 0.0, 0.0, 0.0, 32.0, 32.0]
    """
    if not isinstance(verify, (bool, np.bool_)):
        raise TypeError(f"verify must be a bool, got {type(verify).__name__}")
    folder = _folder(directory)
    if verify:
        verify_files(folder)
    else:
        for name in FILES:
            if not (folder / name).is_file():
                raise FileNotFoundError(f"TX40 data file {name!r} is missing from {str(folder)!r}")
    settings = _settings(folder / "T40X_config.yaml")
    try:
        ident = settings["identification"]
        rp = ident["robot_params"][0]
        ts = float(ident["processing_params"][0]["ts"])
        gear = np.asarray(rp["N"], dtype=float)
        coupled = bool(ident["problem_params"][0]["has_coupled_wrist"])
    except (KeyError, IndexError, TypeError) as exc:
        raise ValueError(f"TX40 settings file 'T40X_config.yaml' lacks an expected entry: {exc!r}") from None
    if gear.shape != (6,) or not np.all(np.isfinite(gear)) or np.any(gear == 0):
        raise ValueError(f"TX40 settings: N must hold 6 non-zero gear ratios, got {rp['N']!r}")
    q_motor = _read_csv(folder / "pos_read_data.csv", "pos_read_data.csv")
    tau_motor = _read_csv(folder / "curr_data.csv", "curr_data.csv")
    if q_motor.shape != tau_motor.shape or q_motor.ndim != 2 or q_motor.shape[1] != 6:
        raise ValueError(
            f"TX40 data: positions {q_motor.shape} and torques {tau_motor.shape} must both be (N, 6)"
        )
    R = np.diag(gear)
    if coupled:
        R[5, 4] = gear[5]
    robot = SerialRobot.from_urdf(folder / "tx40_mdh_modified.urdf")
    for a in (q_motor, tau_motor, gear, R):
        a.setflags(write=False)
    RT = R.T.copy()
    RT.setflags(write=False)
    offsets = np.array(JOINT_OFFSETS)
    offsets.setflags(write=False)
    t = np.arange(q_motor.shape[0]) * ts
    t.setflags(write=False)
    return StaubliTX40(
        t=t, q_motor=q_motor, tau_motor=tau_motor, robot=robot, gear_ratios=gear, motor_matrix=R,
        torque_matrix=RT, joint_offsets=offsets, ts=ts, settings=settings,
        files={name: str(folder / name) for name in FILES},
    )


def staubli_tx40_published() -> dict:
    """Published identification results of this TX40 record (``published.yaml``).

    Only values we could trace to a public source are stored, each with its citation, the
    table or file it comes from, the units and the parameterisation (see the file's
    ``sources`` and ``not_found`` entries).

    Returns
    -------
    dict
        The parsed YAML: ``sources`` (one entry per source with ``citation``, ``where``,
        ``convention``, ``columns`` and ``parameters``: ``{name: {...}}``) and ``not_found``.

    Examples
    --------
    >>> pub = staubli_tx40_published()
    >>> fig = pub["sources"]["figaroh_base"]
    >>> round(fig["parameters"]["FV1"]["ols"], 3), fig["parameters"]["FV1"]["unit"]
    (8.107, 'N m s/rad')
    """
    import yaml

    with open(data_dir() / _PUBLISHED, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def to_figaroh_convention(
    names: Any, values: Any, cov: Any | None = None
) -> tuple[tuple[str, ...], np.ndarray, np.ndarray | None]:
    """Express coupled-wrist parameters in FIGAROH's parameterisation.

    robidlib models motor 6 physically: ``IAM6 (qdd5 + qdd6)``, ``FVM6 (qd5 + qd6)`` and
    ``FSM6 sign(qd5 + qd6)`` act on joints 5 and 6, beside the per-joint ``IA5 qdd5``,
    ``IA6 qdd6``, ``FV5 qd5``, ``FV6 qd6``. FIGAROH (``add_coupling_TX40``) puts ``qdd6`` and
    ``qd6`` in joint 5's row and ``qdd5`` and ``qd5`` in joint 6's; both models give the same
    torques when ``IA5_F = IA5 + IAM6``, ``IA6_F = IA6 + IAM6``, ``FV5_F = FV5 + FVM6``,
    ``FV6_F = FV6 + FVM6`` (the other parameters are equal). This function applies that linear
    map (and propagates the covariance); names it does not concern pass unchanged.

    Parameters
    ----------
    names : sequence of str
        Parameter names (Khalil style, e.g. ``"IA5"``, ``"FVM6"``).
    values : array_like, shape (p,)
    cov : array_like, shape (p, p), optional

    Returns
    -------
    names : tuple of str
        The same names.
    values : numpy.ndarray, shape (p,)
    cov : numpy.ndarray, shape (p, p) or None

    Raises
    ------
    ValueError
        Shapes that do not match the names, NaN/inf, repeated names.
    TypeError
        ``names`` not a sequence of strings, non-numeric values.

    Examples
    --------
    >>> to_figaroh_convention(["FV5", "FVM6"], [1.25, 0.6])[1].tolist()
    [1.85, 0.6]
    """
    from .._validate import as_array, check_names

    names = check_names("names", names)
    v = as_array("values", values, ndim=1)
    if v.shape != (len(names),):
        raise ValueError(f"values must have shape ({len(names)},) (one per entry of names), got {v.shape}")
    T = np.eye(len(names))
    index = {s: i for i, s in enumerate(names)}
    for joint_name, motor_name in (("IA5", "IAM6"), ("IA6", "IAM6"), ("FV5", "FVM6"), ("FV6", "FVM6")):
        if joint_name in index and motor_name in index:
            T[index[joint_name], index[motor_name]] = 1.0
    C = None
    if cov is not None:
        C = as_array("cov", cov, shape=(len(names), len(names)))
        C = T @ C @ T.T
    return names, T @ v, C


def compare_with_published(
    names: Any,
    values: Any,
    cov: Any,
    source: str = "figaroh_essential",
    method: str = "wls",
) -> tuple[dict, ...]:
    """Side by side: estimates of this record against a published set of ``published.yaml``.

    The estimates are first expressed in the source's coupled-wrist convention
    (:func:`to_figaroh_convention`, covariance propagated); then every parameter that either
    set holds gets one row, the source's parameters first (in its order), then ours that it
    lacks.

    Parameters
    ----------
    names : sequence of str
        Our parameter names (Khalil style, e.g. ``IdentificationResult.essential.names``).
    values : array_like, shape (p,)
    cov : array_like, shape (p, p)
        Their covariance (e.g. ``Estimate.cov``).
    source : str, default "figaroh_essential"
        A key of ``published.yaml``'s ``sources`` (``"figaroh_base"`` or
        ``"figaroh_essential"``).
    method : {"wls", "ols"}, default "wls"
        Which of the source's columns to compare with.

    Returns
    -------
    tuple of dict
        One dict per parameter: ``name``, ``unit`` (the source's, or ``""``),
        ``published`` and ``published_rel_std`` (% ; NaN when the source lacks the
        parameter), ``ours``, ``ours_std`` and ``ours_rel_std`` (%; NaN when we lack it),
        ``difference`` (``ours - published``) and ``difference_in_std``
        (``difference / ours_std``; NaN when either lacks it).

    Raises
    ------
    ValueError
        An unknown ``source`` or ``method``; shapes that do not match ``names``; NaN/inf;
        repeated names.
    TypeError
        ``names`` not a sequence of strings, non-numeric values.

    Examples
    --------
    >>> rows = compare_with_published(["FV1", "FS1"], [8.0, 7.2], [[0.0025, 0], [0, 0.0225]])
    >>> [(r["name"], round(r["published"], 3), round(r["difference_in_std"], 2)) for r in rows[:2]]
    [('ZZ1R', 1.277, nan), ('FV1', 8.028, -0.56)]
    """
    from .._validate import as_array, check_choice, check_names

    sources = staubli_tx40_published()["sources"]
    if source not in sources:
        raise ValueError(f"unknown source {source!r}; expected one of {sorted(sources)}")
    check_choice("method", method, ("wls", "ols"))
    names = check_names("names", names)
    p = len(names)
    v = as_array("values", values, ndim=1)
    if v.shape != (p,):
        raise ValueError(f"values must have shape ({p},) (one per entry of names), got {v.shape}")
    C = as_array("cov", cov, shape=(p, p))
    names, v, C = to_figaroh_convention(names, v, C)
    std = np.sqrt(np.clip(np.diag(C), 0.0, None))
    ours = {s: (float(v[i]), float(std[i])) for i, s in enumerate(names)}
    published = sources[source]["parameters"]
    nan = float("nan")
    rows = []
    for name in list(published) + [s for s in names if s not in published]:
        entry = published.get(name)
        pub, pub_rel = (float(entry[method]), float(entry[f"{method}_rel_std"])) if entry else (nan, nan)
        val, sd = ours.get(name, (nan, nan))
        diff = val - pub
        rows.append({
            "name": name,
            "unit": entry.get("unit", "") if entry else "",
            "published": pub,
            "published_rel_std": pub_rel,
            "ours": val,
            "ours_std": sd,
            "ours_rel_std": 100.0 * sd / abs(val) if val == val and val != 0 else nan,
            "difference": diff,
            "difference_in_std": diff / sd if sd > 0 else nan,
        })
    return tuple(rows)
