"""The solver study of Goncalves et al. (2025): scenarios, a comparison table, stored results.

* :func:`perturb_coordinates` - the paper's perturbations: every coordinate of the chosen
  markers displaced by at most ``bound`` (so a marker by at most ``bound * sqrt(3)``), white
  (independent per frame) or smooth (slow, soft-tissue-like artefacts).
* :data:`SOLVER_CASES` and :func:`compare_solvers` - every solver on the same markers, one
  row per solver: time per frame, iterations, ``||Phi||``, the largest topological
  violation, the distance to the *reference* markers and the joint-angle error.
* :func:`solve_independently` - every frame solved from the same initial guess (the
  "parallel" strategy of the paper), recording the frames that fail instead of raising.
* :func:`marker_subset` - the same model tracking fewer markers (the 8 against 9
  reference points of the paper's five-bar chain).
* :func:`study_scenario`, :func:`mixed_study`, :func:`load_mixed_study` - the scenarios of
  chapter 10, the recipe of its stored table (``robidlib/data/multibody/mixed_study.json``)
  and its loader.  Regenerate the table with ``python -m robidlib.multibody.study``.

Times are measured, never asserted: they depend on the machine, its load and the BLAS
kernel.  The accuracy columns are deterministic given the seeds.
"""

from __future__ import annotations

import os
import platform
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from .._validate import (as_array, check_choice, check_fields, check_flag, check_names,
                         check_nonnegative, check_positive, check_rng, check_text)
from ..benchmark import ColumnError, ResultTable
from ..signals import lowpass
from . import models
from .solvers import METHODS, KinematicsResult, solve_kinematics
from .system import MultibodySystem

__all__ = [
    "perturb_coordinates",
    "SOLVER_CASES",
    "SolverComparison",
    "compare_solvers",
    "IndependentFrames",
    "solve_independently",
    "rigid_guess",
    "marker_subset",
    "STUDY_CHAINS",
    "STUDY_LEVELS_MM",
    "Scenario",
    "study_scenario",
    "mixed_study",
    "pivot",
    "level_table",
    "PROPAGATION_POINTS",
    "PROPAGATION_CASES",
    "save_mixed_study",
    "load_mixed_study",
    "STUDY_FILE",
]

#: Where the stored study lives (robidlib package data).
STUDY_FILE = Path(__file__).resolve().parents[1] / "data" / "multibody" / "mixed_study.json"


def perturb_coordinates(markers: Any, bound: float, rng: Any, *, kind: str = "white",
                        points: Sequence[int] | None = None, rate: float = 100.0,
                        max_frequency: float = 2.0) -> np.ndarray:
    """Displace every coordinate of the chosen markers by at most ``bound`` (the paper's scenarios).

    ``kind="white"``: each coordinate of each marker in each frame is uniform in
    ``[-bound, bound]`` (a marker moves by at most ``bound * sqrt(3)``: 7.5 mm per coordinate
    is 13 mm at most, 30 mm is 52 mm).  ``kind="smooth"``: each coordinate is a sum of three
    sinusoids (frequencies uniform in ``[0.2, max_frequency]`` Hz) scaled so that its largest
    absolute value over the trial is exactly ``bound``: a slow artefact that moves with the
    motion, like soft tissue, which a low-pass filter cannot remove.

    Parameters
    ----------
    markers : array_like, shape (N, n_markers, 3)
        Reference marker positions (m).
    bound : float
        Largest displacement per coordinate (m), >= 0.
    rng : numpy.random.Generator or int
    kind : {"white", "smooth"}, default "white"
    points : sequence of int, optional
        Indices of the markers to perturb (default all); the others are left unchanged.
    rate : float, default 100
        Sampling rate (Hz), for ``kind="smooth"``.
    max_frequency : float, default 2
        Highest artefact frequency (Hz) for ``kind="smooth"``, > 0.2.

    Returns
    -------
    numpy.ndarray, shape (N, n_markers, 3)

    Raises
    ------
    ValueError
        Wrong shapes, negative or non-finite bound, an unknown kind, indices out of range or
        repeated, a rate that is not positive or ``max_frequency <= 0.2`` (checked for both
        kinds).
    TypeError
        If ``rng`` is not a Generator or an int seed.

    Examples
    --------
    >>> import numpy as np
    >>> ref = np.zeros((200, 4, 3))
    >>> x = perturb_coordinates(ref, 0.0075, rng=1, points=[1, 3])
    >>> bool(np.abs(x).max() <= 0.0075), bool(np.all(x[:, [0, 2]] == 0))
    (True, True)
    >>> s = perturb_coordinates(ref, 0.0075, rng=1, kind="smooth")
    >>> float(np.abs(s).max(axis=0).min().round(6))          # every coordinate reaches the bound
    0.0075
    """
    x = as_array("markers", markers, ndim=3)
    if x.shape[-1] != 3 or x.shape[0] == 0:
        raise ValueError(f"markers must have shape (N, n_markers, 3) with N >= 1, got {x.shape}")
    N, nm, _ = x.shape
    a = check_nonnegative("bound", bound)
    kind = check_choice("kind", kind, ("white", "smooth"))
    gen = check_rng(rng)
    rate = check_positive("rate", rate)
    fmax = check_positive("max_frequency", max_frequency)
    if fmax <= 0.2:
        raise ValueError(f"max_frequency must be > 0.2 Hz, got {fmax}")
    if points is None:
        idx = np.arange(nm)
    else:
        idx = np.asarray(points)
        if idx.ndim != 1 or idx.size == 0 or idx.dtype.kind not in "iu":
            raise ValueError(f"points must be a non-empty sequence of marker indices, got {points!r}")
        if idx.min() < 0 or idx.max() >= nm or np.unique(idx).size != idx.size:
            raise ValueError(f"points must be distinct indices in 0..{nm - 1}, got {idx.tolist()}")
    out = x.copy()
    k = idx.size
    if kind == "white":
        out[:, idx] += gen.uniform(-a, a, (N, k, 3))
        return out
    t = np.arange(N) / rate
    f = gen.uniform(0.2, fmax, (k, 3, 3))
    amp = gen.uniform(0.2, 1.0, (k, 3, 3))
    ph = gen.uniform(0.0, 2 * np.pi, (k, 3, 3))
    d = np.sum(amp * np.sin(2 * np.pi * f * t[:, None, None, None] + ph), axis=-1)   # (N, k, 3)
    out[:, idx] += a * d / np.abs(d).max(axis=0)
    return out


#: The solvers of the comparison: ``(label, method, options)`` for :func:`solve_kinematics`.
#: Newton methods get ``max_iter=200``: with large residuals Gauss-Newton converges linearly.
SOLVER_CASES: tuple[tuple[str, str, dict], ...] = (
    ("AD", "ad", {"tol": 1e-10}),
    ("NRM-LS 1e-6", "nrm-ls", {"tol": 1e-6, "max_iter": 200}),
    ("NRM-LS 1e-10", "nrm-ls", {"tol": 1e-10, "max_iter": 200}),
    ("NRM-WLS 1e-6", "nrm-wls", {"tol": 1e-6, "max_iter": 200}),
    ("NRM-WLS 1e-10", "nrm-wls", {"tol": 1e-10, "max_iter": 200}),
    ("SQP", "slsqp", {"tol": 1e-10}),
    ("IP-like", "trust-constr", {"tol": 1e-10}),
    ("MO-TC", "goal-attainment", {"tol": 1e-10, "objective": "tc"}),
    ("MO-ED", "goal-attainment", {"tol": 1e-10, "objective": "distance"}),
)


_NUMBERS = ("ms_per_frame", "iterations", "phi_norm", "max_violation", "distance_mm",
            "max_distance_mm", "tip_mm", "angle_rms_deg")


@dataclass(frozen=True, eq=False)
class SolverComparison:
    """The result of :func:`compare_solvers`.

    Attributes
    ----------
    table : ResultTable
        One row per solver: ``method``, ``frames``, ``ms_per_frame`` (median over the
        frames, of the chosen clock), ``norm_time`` (``ms_per_frame`` over the fastest row's),
        ``iterations`` (mean per frame), ``phi_norm`` (mean ``||Phi||`` of all the equations
        the method uses, unweighted), ``max_violation`` (largest topological ``|Phi_k|``),
        ``distance_mm`` (mean distance of the evaluation points to their reference),
        ``max_distance_mm``, ``tip_mm`` (mean distance of the last evaluation point) and
        ``angle_rms_deg`` (RMS error of the angle coordinates); ``failed`` is empty, or the
        message of a solver that did not converge (``on_failure="record"``).
    results : dict
        Label -> :class:`KinematicsResult`.
    """

    table: ResultTable
    results: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.table, ResultTable):
            raise TypeError(f"table must be a ResultTable, got {type(self.table).__name__}")
        if not isinstance(self.results, dict):
            raise TypeError(f"results must be a dict (label -> KinematicsResult), got "
                            f"{type(self.results).__name__}")
        bad = [k for k, v in self.results.items() if not isinstance(v, KinematicsResult)]
        if bad:
            raise TypeError(f"results must map labels to KinematicsResult, got "
                            f"{type(self.results[bad[0]]).__name__} for {bad[0]!r}")


def _cases(cases: Any) -> tuple[tuple[str, str, dict], ...]:
    if isinstance(cases, (str, bytes)) or not isinstance(cases, Sequence) or not cases:
        raise TypeError("cases must be a non-empty sequence of (label, method, options) tuples")
    out, seen = [], set()
    for c in cases:
        if not (isinstance(c, (tuple, list)) and len(c) == 3 and isinstance(c[0], str)
                and isinstance(c[2], Mapping)):
            raise TypeError(f"every case must be (label: str, method: str, options: dict), got {c!r}")
        label, method, options = c
        check_choice("method", method, METHODS)
        if "lowpass_hz" in options:
            check_positive("lowpass_hz", options["lowpass_hz"])
        if label in seen:
            raise ValueError(f"case labels must be unique, got {label!r} twice")
        seen.add(label)
        out.append((label, method, dict(options)))
    return tuple(out)


def _markers(system: MultibodySystem, markers: Any) -> np.ndarray:
    """Markers of shape (N >= 1, n_markers of system, 3)."""
    x = as_array("markers", markers, ndim=3)
    nm = len(system.marker_names)
    if x.shape[0] == 0 or x.shape[1:] != (nm, 3):
        raise ValueError(f"markers must have shape (N, {nm}, 3) with N >= 1 - the markers "
                         f"{system.marker_names} in every frame - got {x.shape}")
    return x


def compare_solvers(system: MultibodySystem, markers: Any, reference_q: Any,
                    cases: Sequence[tuple[str, str, dict]] = SOLVER_CASES, *,
                    evaluate: MultibodySystem | None = None, clock: str = "cpu",
                    q0: Any = None, on_failure: str = "raise", rate: float = 100.0) -> SolverComparison:
    """Run every solver on the same markers and tabulate cost, consistency and accuracy.

    Every case gets the same information: the measured markers, the model, the same first
    guess (the body-by-body marker fit of the first frame unless ``q0`` is given) and
    warm starts from its own previous frame.

    Parameters
    ----------
    system : MultibodySystem
        The model and the markers it tracks.
    markers : array_like, shape (N, n_markers, 3)
        Measured (perturbed) markers, in the order of ``system.marker_names``.
    reference_q : array_like, shape (N, n)
        The true coordinates, used only to score accuracy.
    cases : sequence of (label, method, options), default SOLVER_CASES
        ``options`` are keyword arguments of :func:`solve_kinematics`, plus ``lowpass_hz``:
        filter the markers first (zero-lag Butterworth, :func:`robidlib.signals.lowpass`,
        order 4) with this cut-off (Hz), e.g. ``("AD + 6 Hz", "ad", {"lowpass_hz": 6.0})``.
    evaluate : MultibodySystem, optional
        A system with the same coordinates whose markers are the points where accuracy is
        measured (default ``system``): to compare models that track different markers on
        the same points.
    clock : {"cpu", "wall"}, default "cpu"
        How each frame is timed (CPU time of this process, or wall-clock time).
    q0 : array_like, shape (n,), optional
        First guess for frame 0 (required if a body has fewer than three markers).
    on_failure : {"raise", "record"}, default "raise"
        What to do when a solver does not converge in some frame: raise its ``ValueError``,
        or record a row whose ``failed`` column holds the message (numbers NaN) and go on.
    rate : float, default 100
        Sampling rate of the markers (Hz), for the ``lowpass_hz`` option.

    Returns
    -------
    SolverComparison

    Raises
    ------
    TypeError
        If a system is not a MultibodySystem or the cases are malformed.
    ValueError
        Wrong shapes, unknown methods, duplicate labels, an ``evaluate`` system with other
        coordinates, or a solver that fails (its message names the frame).

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.multibody import models
    >>> m = models.simple_chain()
    >>> ref = m.reference_motion(duration=0.05)
    >>> noisy = perturb_coordinates(ref.markers, 0.0075, rng=0)
    >>> cmp = compare_solvers(m.system, noisy, ref.q, [("AD", "ad", {}), ("WLS", "nrm-wls", {})])
    >>> [r["method"] for r in cmp.table], cmp.table.where(method="AD")[0]["max_violation"] < 1e-12
    (['AD', 'WLS'], True)
    """
    if not isinstance(system, MultibodySystem):
        raise TypeError(f"system must be a MultibodySystem, got {type(system).__name__}")
    ev = system if evaluate is None else evaluate
    if not isinstance(ev, MultibodySystem):
        raise TypeError(f"evaluate must be a MultibodySystem, got {type(ev).__name__}")
    if ev.n_coords != system.n_coords or ev.tracking is None:
        raise ValueError(f"evaluate must have markers and the {system.n_coords} coordinates of "
                         f"system, got {ev.n_coords} coordinates")
    cases = _cases(cases)
    check_choice("clock", clock, ("cpu", "wall"))
    check_choice("on_failure", on_failure, ("raise", "record"))
    rate = check_positive("rate", rate)
    x = _markers(system, markers)
    Q = as_array("reference_q", reference_q, shape=(x.shape[0], system.n_coords))
    P_ref = ev.marker_positions(Q)
    rows, results = [], {}
    for label, method, options in cases:
        options = dict(options)
        cutoff = options.pop("lowpass_hz", None)
        xin = x if cutoff is None else lowpass(x, cutoff, rate)
        try:
            res = solve_kinematics(system, xin, method, clock=clock, q0=q0, **options)
        except ValueError as exc:
            if on_failure == "raise" or "did not converge" not in str(exc):
                raise
            rows.append({"method": label, "frames": int(x.shape[0]), "failed": str(exc)})
            continue
        results[label] = res
        d = 1e3 * np.linalg.norm(ev.marker_positions(res.q) - P_ref, axis=-1)
        err = np.degrees(res.angles - Q[:, system.angle_slice])
        rows.append({"method": label, "frames": int(x.shape[0]),
                     "ms_per_frame": 1e3 * float(np.median(res.time)),
                     "iterations": float(res.iterations.mean()),
                     "phi_norm": float(res.phi_norm.mean()),
                     "max_violation": float(res.max_violation.max()),
                     "distance_mm": float(d.mean()), "max_distance_mm": float(d.max()),
                     "tip_mm": float(d[:, -1].mean()),
                     "angle_rms_deg": float(np.sqrt(np.mean(err**2))) if err.size else 0.0})
    timed = [r["ms_per_frame"] for r in rows if "failed" not in r]
    fastest = min(timed) if timed else float("nan")
    for r in rows:
        if "failed" in r:
            r.update({k: float("nan") for k in _NUMBERS})
        else:
            r["failed"] = ""
        r["norm_time"] = r["ms_per_frame"] / fastest if fastest > 0 else float("nan")
    meta = {"clock": clock, "frames": int(x.shape[0]), "evaluation_points": list(ev.marker_names)}
    return SolverComparison(ResultTable(rows, meta), results)


@dataclass(frozen=True, eq=False)
class IndependentFrames:
    """Frames solved independently from one initial guess (:func:`solve_independently`).

    Attributes
    ----------
    q : numpy.ndarray, shape (N, n)
        Solutions; NaN in the frames that failed.
    converged : numpy.ndarray of bool, shape (N,)
    iterations : numpy.ndarray of int, shape (N,)
        Iterations of the converged frames (0 where a frame failed).
    messages : tuple of str
        The solver's message for every failed frame (``"frame k: ..."``).
    """

    q: np.ndarray
    converged: np.ndarray
    iterations: np.ndarray
    messages: tuple

    def __post_init__(self) -> None:
        d = check_fields(self, finite=False, q=("N", None))
        N = d["N"]
        if N < 1 or self.q.shape[1] < 1:
            raise ValueError(f"q must have shape (N, n) with N, n >= 1, got {self.q.shape}")
        ok = self.converged
        if isinstance(ok, (str, bytes)):
            raise TypeError(f"converged must be an array of bool, got {type(ok).__name__}")
        ok = np.asarray(ok)
        if ok.shape != (N,) or ok.dtype != bool:
            raise ValueError(f"converged must be {N} bools (one per frame of q), got dtype "
                             f"{ok.dtype} and shape {ok.shape}")
        it = self.iterations
        if isinstance(it, (str, bytes)) or np.iscomplexobj(it):
            raise TypeError(f"iterations must be integers, got {type(it).__name__}")
        it = np.asarray(it)
        if it.shape != (N,) or it.dtype.kind not in "iu" or np.any(it < 0) or np.any(it[~ok] != 0):
            raise ValueError(f"iterations must be {N} integers >= 0 (one per frame, 0 where a "
                             f"frame failed), got dtype {it.dtype} and shape {it.shape}")
        if np.isinf(self.q).any() or not np.isfinite(self.q[ok]).all() or not np.isnan(self.q[~ok]).all():
            raise ValueError("q must be finite in the converged frames and NaN in the failed ones, "
                             "got infinite entries or NaN in a converged frame")
        msgs = self.messages
        if not isinstance(msgs, tuple) or not all(isinstance(m, str) for m in msgs):
            raise TypeError(f"messages must be a tuple of str, got {type(msgs).__name__} {msgs!r:.60}")
        if len(msgs) != int(np.count_nonzero(~ok)):
            raise ValueError(f"messages must hold one message per failed frame "
                             f"({np.count_nonzero(~ok)}), got {len(msgs)}")
        object.__setattr__(self, "converged", ok)
        object.__setattr__(self, "iterations", it)


def rigid_guess(system: MultibodySystem, q: Any) -> np.ndarray:
    """``q`` with every body frame replaced by the nearest rotation (an exactly rigid guess).

    A solution of NRM-WLS violates the rigid-body constraints slightly (by about the weight
    times the marker residual); the solvers accept only initial guesses whose body vectors
    are unit and orthogonal.  The nearest rotation of ``[u, v, w]`` (polar decomposition by
    SVD) fixes that; origins and angles are kept.

    Parameters
    ----------
    system : MultibodySystem
    q : array_like, shape (n,) or (N, n)

    Returns
    -------
    numpy.ndarray
        Same shape as ``q``.

    Raises
    ------
    TypeError
        If ``system`` is not a MultibodySystem.
    ValueError
        Wrong shape or non-finite values.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.multibody import models
    >>> m = models.simple_chain()
    >>> q = m.zero_coordinates() + 1e-4                   # body vectors no longer unit
    >>> bool(np.abs(m.system.phi(rigid_guess(m.system, q))[:18]).max() < 1e-12)
    True
    """
    if not isinstance(system, MultibodySystem):
        raise TypeError(f"system must be a MultibodySystem, got {type(system).__name__}")
    a = as_array("q", q, ndim=(1, 2))
    if a.shape[-1] != system.n_coords:
        raise ValueError(f"q must have shape (..., {system.n_coords}), got {a.shape}")
    out = a.copy()
    for b in system.body_names:
        sl = system.body_slice(b)
        vec = out[..., sl][..., 3:].reshape(*a.shape[:-1], 3, 3)          # rows u, v, w
        U, _, Vt = np.linalg.svd(np.swapaxes(vec, -1, -2))               # columns u, v, w
        R = U @ Vt
        out[..., sl.start + 3:sl.stop] = np.swapaxes(R, -1, -2).reshape(*a.shape[:-1], 9)
    return out


def solve_independently(system: MultibodySystem, markers: Any, method: str = "slsqp", *,
                        q0: Any, **options: Any) -> IndependentFrames:
    """Solve every frame on its own, from a given initial guess (the paper's parallel strategy).

    Without the previous frame as a starting point each frame is a separate problem, as when
    the frames are distributed over parallel workers; a solver that does not converge in a
    frame is recorded instead of stopping the analysis.  The guess is one pose for every
    frame (``q0`` of shape ``(n,)``, e.g. the initial position, as in the paper) or one per
    frame (shape ``(N, n)``, e.g. the NRM-WLS solution, the remedy the paper proposes; made
    exactly rigid by :func:`rigid_guess`).

    Parameters
    ----------
    system : MultibodySystem
    markers : array_like, shape (N, n_markers, 3)
    method : str, default "slsqp"
        A method of :func:`solve_kinematics` other than ``"ad"``.
    q0 : array_like, shape (n,) or (N, n)
        The initial guess of every frame, or one per frame.
    **options
        Further keyword arguments of :func:`solve_kinematics` (``tol``, ``max_iter``, ...).

    Returns
    -------
    IndependentFrames

    Raises
    ------
    TypeError
        If ``system`` is not a MultibodySystem.
    ValueError
        Wrong shapes, ``method="ad"`` or an unknown method, invalid ``q0`` or options (only
        a frame that does not converge is recorded; bad input is raised).

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.multibody import models
    >>> m = models.simple_chain()
    >>> ref = m.reference_motion(duration=0.05)
    >>> out = solve_independently(m.system, ref.markers, "nrm-wls", q0=m.zero_coordinates())
    >>> bool(out.converged.all()), bool(np.allclose(out.q, ref.q, atol=1e-8))
    (True, True)
    """
    if not isinstance(system, MultibodySystem):
        raise TypeError(f"system must be a MultibodySystem, got {type(system).__name__}")
    method = check_choice("method", method, tuple(m for m in METHODS if m != "ad"))
    x = _markers(system, markers)
    N = x.shape[0]
    guess = as_array("q0", q0, ndim=(1, 2))
    if guess.shape not in ((system.n_coords,), (N, system.n_coords)):
        raise ValueError(f"q0 must have shape ({system.n_coords},) or ({N}, {system.n_coords}), "
                         f"got {guess.shape}")
    if guess.ndim == 1:
        guess = np.broadcast_to(system.check_coordinates(guess, "q0"), (N, system.n_coords))
    else:
        guess = rigid_guess(system, guess)
    Q = np.full((N, system.n_coords), np.nan)
    ok = np.zeros(N, dtype=bool)
    its = np.zeros(N, dtype=int)
    messages = []
    for k in range(N):
        try:
            res = solve_kinematics(system, x[k:k + 1], method, q0=guess[k], **options)
        except ValueError as exc:
            if not str(exc).startswith("frame "):          # bad input, not a failed frame
                raise
            messages.append(f"frame {k}: {str(exc).split(': ', 1)[-1]}")
            continue
        Q[k], ok[k], its[k] = res.q[0], True, res.iterations[0]
    return IndependentFrames(Q, ok, its, tuple(messages))


def marker_subset(system: MultibodySystem, names: Sequence[str]) -> MultibodySystem:
    """The same model (bodies, joints, MCRs) tracking only the markers ``names``.

    Parameters
    ----------
    system : MultibodySystem
    names : sequence of str
        Marker names of ``system``, in the order wanted.

    Returns
    -------
    MultibodySystem

    Raises
    ------
    TypeError
        If ``system`` is not a MultibodySystem, or a name is not a string.
    ValueError
        Unknown, repeated or no marker names (also a single string).

    Examples
    --------
    >>> from robidlib.multibody import models
    >>> sub = marker_subset(models.five_body_chain().system, ["P2", "P8", "P15"])
    >>> sub.marker_names, sub.n_coords
    (('P2', 'P8', 'P15'), 65)
    """
    if not isinstance(system, MultibodySystem):
        raise TypeError(f"system must be a MultibodySystem, got {type(system).__name__}")
    if isinstance(names, str) or not isinstance(names, Sequence) or not names:
        raise ValueError(f"names must be a non-empty sequence of marker names, got {names!r}")
    if not all(isinstance(n, str) for n in names):
        bad = next(n for n in names if not isinstance(n, str))
        raise TypeError(f"names must hold marker names (str), got {type(bad).__name__} {bad!r}")
    lookup = {m.name: m for m in system.markers}
    unknown = [n for n in names if n not in lookup]
    if unknown:
        raise ValueError(f"unknown marker(s) {unknown}; expected names of {system.marker_names}")
    if len(set(names)) != len(names):
        raise ValueError(f"names must be distinct, got {list(names)}")
    joints = system.topological[1:len(system.topological) - len(system.mcrs)]
    return MultibodySystem(system.bodies, joints, system.mcrs, markers=[lookup[n] for n in names],
                           vectors=system.vectors, gravity=system.gravity)


# -- the study of chapter 10 ------------------------------------------------------------------
#: Seed of every perturbation of the study.
STUDY_SEED = 2025
#: Bounds per coordinate (mm) of the study: the paper's P0, P7.5 and P30.
STUDY_LEVELS_MM = (0.0, 7.5, 30.0)
#: The models of the study: chain -> tracked markers (``None``: all of them).  ``"five-9"``
#: keeps nine markers of the five-body chain (one on the roll body b4), ``"five-8"`` drops
#: that one (b4 is then seen only through b5), like the paper's 9 and 8 reference points.
STUDY_CHAINS: dict[str, tuple[str, tuple[str, ...] | None]] = {
    "simple": ("simple", None),
    "five": ("five", None),
    "five-9": ("five", ("P2", "P3", "P5", "P6", "P8", "P9", "P11", "P13", "P15")),
    "five-8": ("five", ("P2", "P3", "P5", "P6", "P8", "P9", "P13", "P15")),
}


@dataclass(frozen=True, eq=False)
class Scenario:
    """One scenario of the study.

    Attributes
    ----------
    model : models.ChainModel
    system : MultibodySystem
        The tracking model (all markers, or a subset).
    evaluate : MultibodySystem
        The model with all markers, where accuracy is scored.
    reference : models.ReferenceMotion
    markers : numpy.ndarray, shape (N, n_tracked, 3)
        The perturbed markers the solvers get.
    """

    model: Any
    system: MultibodySystem
    evaluate: MultibodySystem
    reference: Any
    markers: np.ndarray

    def __post_init__(self) -> None:
        if not isinstance(self.model, models.ChainModel):
            raise TypeError(f"model must be a ChainModel, got {type(self.model).__name__}")
        for name in ("system", "evaluate"):
            if not isinstance(getattr(self, name), MultibodySystem):
                raise TypeError(f"{name} must be a MultibodySystem, got {type(getattr(self, name)).__name__}")
        if self.evaluate.n_coords != self.system.n_coords:
            raise ValueError(f"evaluate must have the {self.system.n_coords} coordinates of system, "
                             f"got {self.evaluate.n_coords}")
        if not isinstance(self.reference, models.ReferenceMotion):
            raise TypeError(f"reference must be a ReferenceMotion, got {type(self.reference).__name__}")
        x = as_array("markers", self.markers, ndim=3)
        want = (len(self.reference.t), len(self.system.marker_names), 3)
        if x.shape != want:
            raise ValueError(f"markers must have shape {want} (frames of reference, markers of "
                             f"system, xyz), got {x.shape}")
        object.__setattr__(self, "markers", x)


def study_scenario(chain: str, level_mm: float, *, kind: str = "white",
                   points: Sequence[str] | None = None, duration: float = 3.0,
                   rate: float = 100.0) -> Scenario:
    """A scenario of chapter 10: model, reference motion and perturbed markers.

    The perturbation (:func:`perturb_coordinates`) is drawn for *all* markers of the chain
    from a generator seeded with ``(STUDY_SEED, chain model, level, kind)``, then the tracked
    subset is taken, so that ``"five"``, ``"five-9"`` and ``"five-8"`` see the same
    perturbed markers.

    Parameters
    ----------
    chain : {"simple", "five", "five-9", "five-8"}
    level_mm : float
        Bound per coordinate (mm), >= 0.
    kind : {"white", "smooth"}, default "white"
    points : sequence of str, optional
        Names of the markers to perturb (default all), e.g. ``["P4", "P9"]``.
    duration : float, default 3.0
        Length of the trial (s); the paper analyses 3 s.
    rate : float, default 100.0
        Sampling rate (Hz); the paper samples at 100 Hz.

    Returns
    -------
    Scenario

    Raises
    ------
    ValueError
        Unknown chain, kind or marker names; negative level.

    Examples
    --------
    >>> sc = study_scenario("five-8", 7.5, duration=0.1)
    >>> sc.system.marker_names[-1], sc.markers.shape, sc.evaluate.marker_names[-1]
    ('P15', (11, 8, 3), 'P15')
    """
    chain = check_choice("chain", chain, tuple(STUDY_CHAINS))
    level = check_nonnegative("level_mm", level_mm)
    kind = check_choice("kind", kind, ("white", "smooth"))
    base, subset = STUDY_CHAINS[chain]
    model = models.simple_chain() if base == "simple" else models.five_body_chain()
    ref = model.reference_motion(duration=duration, rate=rate)
    names = model.system.marker_names
    idx = None
    if points is not None:
        points = check_names("points", points)
        unknown = [p for p in points if p not in names]
        if unknown or not len(points):
            raise ValueError(f"points must name markers of {names}, got {list(points)}")
        idx = [names.index(p) for p in points]
    seed = [STUDY_SEED, 0 if base == "simple" else 1, int(round(10 * level)),
            0 if kind == "white" else 1]
    x = perturb_coordinates(ref.markers, 1e-3 * level, np.random.default_rng(seed), kind=kind,
                            points=idx, rate=rate)
    if subset is None:
        return Scenario(model, model.system, model.system, ref, x)
    system = marker_subset(model.system, subset)
    return Scenario(model, system, model.system, ref, x[:, [names.index(n) for n in subset]])


def _machine() -> dict:
    info = {"python": platform.python_version(), "platform": platform.platform(),
            "processor": platform.processor() or platform.machine()}
    try:
        info["load_average"] = [round(v, 2) for v in os.getloadavg()]
        info["cpus"] = os.cpu_count()
    except (AttributeError, OSError):  # pragma: no cover - not on every platform
        pass
    try:
        from threadpoolctl import threadpool_info
        info["blas_threads"] = sorted({p["num_threads"] for p in threadpool_info()})
    except ImportError:  # pragma: no cover
        pass
    return info


#: The error-propagation test of the paper (its section 4.3): only two markers perturbed.
PROPAGATION_POINTS = ("P4", "P9")
#: The pipelines of that test (the paper shows AD, filtered AD, NRM-WLS and MO-ED).
#: AD also on markers low-pass filtered at 6 Hz (the gait-analysis habit) and 3 Hz.
PROPAGATION_CASES: tuple[tuple[str, str, dict], ...] = (
    ("AD", "ad", {"tol": 1e-10}),
    ("AD + 6 Hz", "ad", {"tol": 1e-10, "lowpass_hz": 6.0}),
    ("AD + 3 Hz", "ad", {"tol": 1e-10, "lowpass_hz": 3.0}),
    ("NRM-WLS 1e-10", "nrm-wls", {"tol": 1e-10, "max_iter": 200}),
    ("SQP", "slsqp", {"tol": 1e-10}),
    ("MO-ED", "goal-attainment", {"tol": 1e-10, "objective": "distance"}),
)


def mixed_study(chains: Sequence[str] | None = None, levels_mm: Sequence[float] = STUDY_LEVELS_MM,
                cases: Sequence[tuple[str, str, dict]] = SOLVER_CASES, *,
                propagation: bool = True, duration: float = 3.0, clock: str = "cpu") -> ResultTable:
    """The recipe of the stored study: every solver, chain and level of chapter 10.

    Part 1, all markers perturbed (white, :func:`perturb_coordinates`): every case of
    ``cases`` on every chain of ``chains`` at every level.  AD is skipped for the marker
    subsets (it needs three markers on every body); the subsets start from the reference pose
    of the first frame (their bodies with fewer than three markers have no marker-only pose).
    Part 2 (``propagation=True``), the paper's error-propagation test: only
    :data:`PROPAGATION_POINTS` of the five-body chain perturbed, white and smooth, at the
    non-zero levels, with the cases :data:`PROPAGATION_CASES`.

    Parameters
    ----------
    chains : sequence of str, optional
        Keys of :data:`STUDY_CHAINS` (default all).
    levels_mm : sequence of float, default STUDY_LEVELS_MM
    cases : sequence, default SOLVER_CASES
    propagation : bool, default True
        Add part 2.
    duration : float, default 3.0
        Length of each trial (s), at 100 Hz.
    clock : {"cpu", "wall"}, default "cpu"

    Returns
    -------
    ResultTable
        The rows of :func:`compare_solvers` with ``chain``, ``level_mm``, ``kind`` and
        ``points`` columns; ``meta`` holds the recipe, the versions and the machine the times
        were measured on.

    Raises
    ------
    TypeError
        Chains that are not a sequence of names, levels that are not real numbers, malformed
        cases, a ``propagation`` that is not a bool.
    ValueError
        Unknown, repeated or no chains, negative, repeated or no levels, bad cases, duration
        or clock.
    """
    import scipy

    from .._version import __version__

    chains = tuple(STUDY_CHAINS) if chains is None else check_names("chains", chains)
    if not chains:
        raise ValueError("chains must name at least one chain, got an empty sequence")
    for c in chains:
        check_choice("chains", c, tuple(STUDY_CHAINS))
    lv = as_array("levels_mm", levels_mm, ndim=1)
    if lv.size == 0 or np.any(lv < 0) or np.unique(lv).size != lv.size:
        raise ValueError(f"levels_mm must be distinct levels >= 0 (at least one), got {lv.tolist()}")
    levels = [float(v) for v in lv]
    cases = _cases(cases)
    propagation = check_flag("propagation", propagation)
    duration = check_positive("duration", duration)
    clock = check_choice("clock", clock, ("cpu", "wall"))
    rows, t0 = [], time.perf_counter()
    meta = {"study": "mixed_study", "recipe": {
        "function": "robidlib.multibody.study.mixed_study", "chains": list(chains),
        "levels_mm": levels, "duration": duration, "rate": 100.0, "seed": STUDY_SEED,
        "cases": [[lab, m, opt] for lab, m, opt in cases], "propagation": bool(propagation),
        "propagation_points": list(PROPAGATION_POINTS),
        "propagation_cases": [[lab, m, opt] for lab, m, opt in PROPAGATION_CASES]},
        "versions": {"robidlib": __version__, "numpy": np.__version__, "scipy": scipy.__version__},
        "machine": _machine(), "clock": clock}

    def run(chain, level, kind, points, use):
        sc = study_scenario(chain, level, kind=kind, duration=duration,
                            points=None if points == "all" else points.split(","))
        subset = STUDY_CHAINS[chain][1] is not None
        use = [c for c in use if not (subset and c[1] == "ad")]
        cmp = compare_solvers(sc.system, sc.markers, sc.reference.q, use, evaluate=sc.evaluate,
                              clock=clock, q0=sc.reference.q[0] if subset else None,
                              on_failure="record")
        rows.extend({"chain": chain, "level_mm": level, "kind": kind, "points": points, **r}
                    for r in cmp.table)

    for chain in chains:
        for level in levels:
            run(chain, level, "white", "all", cases)
    if propagation:
        prop = list(PROPAGATION_CASES)
        for kind in ("white", "smooth"):
            for level in (lv for lv in levels if lv > 0):
                run("five", level, kind, ",".join(PROPAGATION_POINTS), prop)
    meta["run_seconds"] = round(time.perf_counter() - t0, 1)
    return ResultTable(rows, meta)


def pivot(table: ResultTable, value: str, *, chain: str, points: str = "all", kind: str = "white",
          methods: Sequence[str] | None = None,
          levels_mm: Sequence[float] | None = None) -> tuple[list[str], list[list[Any]]]:
    """One column of the study as a methods x levels table (like the paper's Tables 1 and 2).

    Parameters
    ----------
    table : ResultTable
        The study (:func:`load_mixed_study`) or rows of the same columns.
    value : str
        The column to show, e.g. ``"max_violation"``.
    chain : str
        Which model (a key of :data:`STUDY_CHAINS`).
    points : str, default "all"
        Which markers were perturbed: ``"all"`` or ``"P4,P9"``.
    kind : {"white", "smooth"}, default "white"
    methods : sequence of str, optional
        Rows, in this order (default: the methods of the selection in table order).
    levels_mm : sequence of float, optional
        Columns (default: the levels of the selection in table order).

    Returns
    -------
    headers : list of str
        ``["method", "0 mm", "7.5 mm", ...]``.
    rows : list of list
        ``[method, value at each level]`` (NaN where a combination is missing), ready for
        ``robidlib.book.table(rows, headers)``.

    Raises
    ------
    KeyError
        If ``value`` is not a column of the table (a
        :class:`robidlib.benchmark.ColumnError`, also a ``ValueError``).
    TypeError
        If ``table`` is not a ResultTable, or the names are not strings.
    ValueError
        If no row matches ``chain``, ``points`` and ``kind``, an unknown ``kind``, or empty or
        non-finite ``methods`` / ``levels_mm``.

    Examples
    --------
    >>> headers, rows = pivot(load_mixed_study(), "max_violation", chain="simple", methods=["AD"])
    >>> headers, rows[0][0], bool(max(rows[0][1:]) < 1e-12)
    (['method', '0 mm', '7.5 mm', '30 mm'], 'AD', True)
    """
    if not isinstance(table, ResultTable):
        raise TypeError(f"table must be a ResultTable, got {type(table).__name__}")
    check_text("value", value)
    if value not in table.columns:
        raise ColumnError(f"unknown column {value!r}; expected one of the table's {table.columns}")
    check_text("chain", chain)
    check_text("points", points)
    check_choice("kind", kind, ("white", "smooth"))
    if methods is not None:
        methods = check_names("methods", methods)
        if not methods:
            raise ValueError("methods must name at least one method, got an empty sequence")
    if levels_mm is not None:
        lv = as_array("levels_mm", levels_mm, ndim=1)
        if lv.size == 0:
            raise ValueError("levels_mm must hold at least one level, got an empty sequence")
        levels_mm = [float(v) for v in lv]
    sub = [r for r in table if r.get("chain") == chain and r.get("points") == points
           and r.get("kind") == kind]
    if not sub:
        raise ValueError(f"no row of chain {chain!r} with points {points!r} and kind {kind!r}; "
                         f"the table has chains {sorted({str(r.get('chain')) for r in table})}")
    if methods is None:
        methods = list(dict.fromkeys(r["method"] for r in sub))
    if levels_mm is None:
        levels_mm = list(dict.fromkeys(r["level_mm"] for r in sub))
    rows = []
    for m in methods:
        row: list[Any] = [m]
        for lv in levels_mm:
            hit = [r[value] for r in sub if r["method"] == m and r["level_mm"] == lv]
            row.append(hit[0] if hit else float("nan"))
        rows.append(row)
    return ["method"] + [f"{lv:g} mm" for lv in levels_mm], rows


def level_table(table: ResultTable, columns: Sequence[tuple[str, str, str]], *, chain: str,
                points: str = "all", kind: str = "white", methods: Sequence[str] | None = None,
                levels_mm: Sequence[float] | None = None) -> tuple[list[list[Any]], list[str], list[str]]:
    """Several columns of :func:`pivot` side by side: rows, headers and formats for a table.

    Parameters
    ----------
    table : ResultTable
    columns : sequence of (value, label, fmt)
        The study column, its label in the headers and its format spec (e.g. ``".1e"``).
    chain, points, kind, methods, levels_mm
        As for :func:`pivot`.

    Returns
    -------
    rows, headers, fmts
        ``robidlib.book.table(rows, headers, fmts)`` renders it.

    Raises
    ------
    KeyError, TypeError, ValueError
        As :func:`pivot`; ``ValueError`` also for an empty ``columns``, ``TypeError`` for
        columns that are not ``(value, label, fmt)`` string triples.

    Examples
    --------
    >>> rows, headers, fmts = level_table(load_mixed_study(), [("tip_mm", "tip (mm)", ".2f")],
    ...                                   chain="five", methods=["SQP"], levels_mm=[7.5])
    >>> headers, fmts
    (['method', 'tip (mm), 7.5 mm'], ['s', '.2f'])
    """
    if isinstance(columns, str) or not isinstance(columns, Sequence) or not columns:
        raise ValueError(f"columns must be a non-empty sequence of (value, label, fmt) tuples, "
                         f"got {columns!r:.60}")
    for c in columns:
        if not (isinstance(c, (tuple, list)) and len(c) == 3 and all(isinstance(v, str) for v in c)):
            raise TypeError(f"columns must hold (value, label, fmt) tuples of str, got {c!r:.60}")
    headers, fmts, rows = ["method"], ["s"], None
    for value, label, fmt in columns:
        h, r = pivot(table, value, chain=chain, points=points, kind=kind, methods=methods,
                     levels_mm=levels_mm)
        rows = [[x[0]] for x in r] if rows is None else rows
        for row, x in zip(rows, r):
            row.extend(x[1:])
        headers += [f"{label}, {lv}" for lv in h[1:]]
        fmts += [fmt] * (len(h) - 1)
    return rows, headers, fmts


def _path(path: Any) -> Path:
    if path is None:
        return STUDY_FILE
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__} {path!r}")
    return Path(path)


def save_mixed_study(table: ResultTable, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
    """Write the study table as JSON to ``path``.

    Nothing is written into the installed robidlib package (the stored study is made in the
    project's source tree by ``python -m robidlib.multibody.study``, which passes the
    package-data file and ``overwrite=True``), no folder is created and no file replaced
    unasked (see :mod:`robidlib._io`).

    Parameters
    ----------
    table : ResultTable
        A table written by :func:`mixed_study`.
    path : str or os.PathLike
        The file to write; its folder must exist.
    overwrite : bool, default False
        Replace an existing file.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    TypeError
        If ``table`` is not a ResultTable, ``path`` is not a path or ``overwrite`` not a bool.
    ValueError
        If the table was not made by :func:`mixed_study`, or ``path`` is inside the installed
        robidlib package.
    FileExistsError
        If ``path`` exists and ``overwrite`` is False.
    FileNotFoundError
        If the folder of ``path`` does not exist.
    """
    from .._io import write_text

    if not isinstance(table, ResultTable):
        raise TypeError(f"table must be a ResultTable, got {type(table).__name__}")
    if table.meta.get("study") != "mixed_study":
        raise ValueError("table was not made by mixed_study (meta['study'] != 'mixed_study')")
    return write_text(path, table.to_json() + "\n", overwrite=overwrite)


def load_mixed_study(path: Any = None) -> ResultTable:
    """The stored study of chapter 10 (robidlib package data, written by :func:`mixed_study`).

    Parameters
    ----------
    path : path-like, optional
        Another file written by :func:`save_mixed_study`.

    Returns
    -------
    ResultTable

    Raises
    ------
    TypeError
        If ``path`` is not a path.
    ValueError
        If the file is missing or is not a study table.

    Examples
    --------
    >>> study = load_mixed_study()
    >>> study.meta["recipe"]["levels_mm"], sorted(set(study.column("chain")))
    ([0.0, 7.5, 30.0], ['five', 'five-8', 'five-9', 'simple'])
    """
    p = _path(path)
    if not p.is_file():
        raise ValueError(f"no study table at {p}: run `python -m robidlib.multibody.study`")
    table = ResultTable.from_json(p.read_text(encoding="utf-8"))
    if table.meta.get("study") != "mixed_study":
        raise ValueError(f"{p} is not a table written by robidlib.multibody.study.mixed_study")
    return table


if __name__ == "__main__":  # pragma: no cover - the recipe of the stored table
    study = mixed_study()
    print(study.to_markdown(["chain", "level_mm", "method", "ms_per_frame", "iterations",
                             "max_violation", "distance_mm", "tip_mm", "angle_rms_deg"]))
    # the recipe of the shipped file: run from the project's source tree, it replaces that file
    print("written to", save_mixed_study(study, STUDY_FILE, overwrite=True), f"({study.meta['run_seconds']} s)")
