"""Ready multibody models: spatial open chains of revolute joints with markers.

Each model is described at its *zero configuration*, in global coordinates: joint centres,
joint axes, centres of mass, principal moments of inertia and marker positions.  Every body
gets a generic-rigid-body frame with ``O`` at its centre of mass and ``u, v, w`` along the
global ``x, y, z`` axes at the zero configuration (principal axes, so the mass matrix is
diagonal).  Joint ``k`` rotates body ``k`` about its axis by the joint angle ``phi_k``; its
mixed coordinate is ``theta_k = phi_k + pi/2`` (MCR in ``cos`` form with ``s_i`` perpendicular
to the axis and ``s_j = axis x s_i``), which keeps ``theta`` in ``(0, pi)`` for
``|phi| < pi/2``.

* :func:`simple_chain` - a 3-body spatial arm (vertical yaw joint, two parallel pitch joints),
  markers ``P1..P9`` (three per body).
* :func:`five_body_chain` - a 5-body spatial arm (yaw, pitch, pitch, roll, pitch), markers
  ``P1..P15`` (three per body, the minimum for a marker-only pose estimate of each body).

:meth:`ChainModel.reference_motion` gives the exact reference (3 s at 100 Hz by default):
joint angles, mixed coordinates with their first and second derivatives, and marker
trajectories; :func:`perturb_markers` adds reproducible marker perturbations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
from scipy.spatial.transform import Rotation

from .._validate import as_array, check_choice, check_fields, check_positive, check_rng, check_text
from .body import GROUND, RigidBody
from .constraints import Marker, MixedCoordinateRelation, Revolute, perpendicular_vectors
from .system import MultibodySystem

__all__ = [
    "Link",
    "ChainModel",
    "ChainState",
    "ReferenceMotion",
    "open_chain",
    "simple_chain",
    "five_body_chain",
    "perturb_markers",
]


@dataclass(frozen=True)
class Link:
    """One body of an open chain, described at the zero configuration in global coordinates.

    Parameters
    ----------
    name : str
        Body name.
    parent : str
        ``"ground"`` or the name of an earlier link.
    joint : array_like, shape (3,)
        Centre of the revolute joint that connects the link to its parent (m).
    axis : array_like, shape (3,)
        Unit joint axis.
    com : array_like, shape (3,)
        Centre of mass (m); also the origin ``O`` of the body frame.
    mass : float
        Mass (kg).
    inertia : array_like, shape (3,)
        Principal moments of inertia about the CoM along global ``x, y, z`` (kg m^2).
    markers : array_like, shape (k, 3)
        Marker positions (m).

    Raises
    ------
    ValueError, TypeError
        Empty or non-string names, vectors that are not finite 3-vectors, a non-unit axis, a
        mass that is not > 0, negative principal moments.
    """

    name: str
    parent: str
    joint: Any
    axis: Any
    com: Any
    mass: float
    inertia: Any
    markers: Any = field(default_factory=lambda: np.zeros((0, 3)))

    def __post_init__(self) -> None:
        check_text("name", self.name, allow_empty=False)
        check_text("parent", self.parent, allow_empty=False)
        check_fields(self, joint=(3,), axis=(3,), com=(3,), inertia=(3,), markers=(None, 3))
        object.__setattr__(self, "mass", check_positive("mass", self.mass))
        if np.any(self.inertia < 0):
            raise ValueError(f"inertia must hold principal moments >= 0, got {self.inertia.tolist()}")
        if abs(np.linalg.norm(self.axis) - 1.0) > 1e-6:
            raise ValueError(f"axis must be a unit vector, got norm {np.linalg.norm(self.axis):.6g}")


@dataclass(frozen=True)
class ChainState:
    """Kinematics of every body of a chain, batched over frames (``N`` frames, ``nb`` bodies).

    Attributes
    ----------
    rotation : (N, nb, 3, 3)   columns ``u, v, w``
    origin, velocity, acceleration : (N, nb, 3)   of ``O`` (the centre of mass)
    omega, alpha : (N, nb, 3)   angular velocity and acceleration
    joint_point, joint_axis : (N, nb, 3)   joint centres and axes in global coordinates
    """

    rotation: np.ndarray
    origin: np.ndarray
    velocity: np.ndarray
    acceleration: np.ndarray
    omega: np.ndarray
    alpha: np.ndarray
    joint_point: np.ndarray
    joint_axis: np.ndarray

    def __post_init__(self) -> None:
        v = ("N", "nb", 3)
        check_fields(self, rotation=("N", "nb", 3, 3), origin=v, velocity=v, acceleration=v, omega=v,
                     alpha=v, joint_point=v, joint_axis=v)


@dataclass(frozen=True)
class ReferenceMotion:
    """Exact reference motion of a chain model.

    Attributes
    ----------
    t : (N,)  time (s)
    phi, phid, phidd : (N, na)  joint angles (rad) and derivatives
    q, qd, qdd : (N, n)  mixed fully Cartesian coordinates and derivatives
    markers, marker_velocities, marker_accelerations : (N, n_markers, 3)
    state : ChainState
    """

    t: np.ndarray
    phi: np.ndarray
    phid: np.ndarray
    phidd: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    markers: np.ndarray
    marker_velocities: np.ndarray
    marker_accelerations: np.ndarray
    state: ChainState

    def __post_init__(self) -> None:
        mk = ("N", "k", 3)
        check_fields(self, t=("N",), phi=("N", "na"), phid=("N", "na"), phidd=("N", "na"), q=("N", "n"),
                     qd=("N", "n"), qdd=("N", "n"), markers=mk, marker_velocities=mk, marker_accelerations=mk)
        if not isinstance(self.state, ChainState):
            raise TypeError(f"state must be a ChainState, got {type(self.state).__name__}")

    @property
    def theta(self) -> np.ndarray:
        """Mixed (MCR) angle coordinates ``(N, na)``."""
        return self.q[:, -self.phi.shape[1]:]


class ChainModel:
    """An open chain of revolute joints: its :class:`MultibodySystem` and exact kinematics.

    Build one with :func:`open_chain` (or :func:`simple_chain`, :func:`five_body_chain`).

    Attributes
    ----------
    name : str
    links : tuple of Link
    system : MultibodySystem
    angle_offsets : numpy.ndarray, shape (na,)
        ``theta = phi + angle_offsets`` (``pi/2`` for every joint).
    """

    def __init__(self, name: str, links: Sequence[Link], system: MultibodySystem,
                 amplitudes: np.ndarray, frequencies: np.ndarray, phases: np.ndarray) -> None:
        self.name = check_text("name", name)
        if isinstance(links, (str, bytes)) or not hasattr(links, "__iter__"):
            raise TypeError(f"links must be a sequence of Link, got {type(links).__name__}")
        self.links = tuple(links)
        if not self.links or not all(isinstance(lk, Link) for lk in self.links):
            raise TypeError(f"links must be a non-empty sequence of Link, got {links!r:.80}")
        if not isinstance(system, MultibodySystem):
            raise TypeError(f"system must be a MultibodySystem, got {type(system).__name__}")
        na = len(self.links)
        amplitudes = as_array("amplitudes", amplitudes, ndim=2)
        if amplitudes.shape[0] != na:
            raise ValueError(f"amplitudes must have shape ({na}, H) (one row per link), got {amplitudes.shape}")
        frequencies = as_array("frequencies", frequencies, shape=(na,))
        phases = as_array("phases", phases, ndim=2)
        if phases.shape != amplitudes.shape:
            raise ValueError(f"phases must have the shape of amplitudes, {amplitudes.shape}, got {phases.shape}")
        self.system = system
        self.angle_offsets = np.full(len(self.links), np.pi / 2)
        self._parents = [-1 if lk.parent == GROUND else [x.name for x in self.links].index(lk.parent)
                         for lk in self.links]
        self._amp, self._freq, self._phase = amplitudes, frequencies, phases

    def __repr__(self) -> str:
        return f"ChainModel({self.name!r}, bodies={len(self.links)}, markers={len(self.system.markers)})"

    # ---------------------------------------------------------------------------------------
    def joint_trajectory(self, t: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Reference joint angles and derivatives at times ``t``.

        ``phi_k(t) = sum_h A_kh sin(2 pi h f_k t + psi_kh)`` (two harmonics per joint).

        Parameters
        ----------
        t : array_like, shape (N,)

        Returns
        -------
        phi, phid, phidd : numpy.ndarray, shape (N, na)

        Examples
        --------
        >>> phi, phid, phidd = simple_chain().joint_trajectory([0.0, 0.5])
        >>> phi.shape
        (2, 3)
        """
        t = as_array("t", t, ndim=1)
        h = np.arange(1, self._amp.shape[1] + 1)
        w = 2 * np.pi * self._freq[:, None] * h                     # (na, H)
        arg = t[:, None, None] * w + self._phase                    # (N, na, H)
        phi = np.sum(self._amp * np.sin(arg), axis=-1)
        phid = np.sum(self._amp * w * np.cos(arg), axis=-1)
        phidd = np.sum(-self._amp * w**2 * np.sin(arg), axis=-1)
        return phi, phid, phidd

    def forward_kinematics(self, phi: Any, phid: Any = None, phidd: Any = None) -> ChainState:
        """Body poses, velocities and accelerations from joint angles (recursive, batched).

        Parameters
        ----------
        phi : array_like, shape (N, na) or (na,)
        phid, phidd : array_like, same shape, optional (zero by default)

        Returns
        -------
        ChainState

        Raises
        ------
        ValueError
            If the shapes do not match the number of joints.

        Examples
        --------
        >>> import numpy as np
        >>> st = simple_chain().forward_kinematics([0.0, 0.0, 0.0], phid=[1.0, 0.0, 0.0])
        >>> st.omega[0, 2]                      # yaw rate carried to the last body
        array([0., 0., 1.])
        """
        na = len(self.links)
        phi = np.atleast_2d(as_array("phi", phi, ndim=(1, 2)))
        if phi.shape[1] != na:
            raise ValueError(f"phi must have shape (N, {na}), got {phi.shape}")
        phid = np.zeros_like(phi) if phid is None else np.atleast_2d(as_array("phid", phid, shape=None))
        phidd = np.zeros_like(phi) if phidd is None else np.atleast_2d(as_array("phidd", phidd))
        for nm, arr in (("phid", phid), ("phidd", phidd)):
            if arr.shape != phi.shape:
                raise ValueError(f"{nm} must have shape {phi.shape}, got {arr.shape}")
        N = phi.shape[0]
        R = np.empty((N, na, 3, 3))
        O, v, a, w, al, pj, zj = (np.empty((N, na, 3)) for _ in range(7))
        zero = np.zeros((N, 3))
        for k, link in enumerate(self.links):
            p = self._parents[k]
            axis = np.asarray(link.axis, float)
            joint, com = np.asarray(link.joint, float), np.asarray(link.com, float)
            if p < 0:
                Rp, Op, vp, ap, wp, alp = np.broadcast_to(np.eye(3), (N, 3, 3)), zero, zero, zero, zero, zero
                jp_local = joint
            else:
                Rp, Op, vp, ap, wp, alp = R[:, p], O[:, p], v[:, p], a[:, p], w[:, p], al[:, p]
                jp_local = joint - np.asarray(self.links[p].com, float)
            R[:, k] = Rp @ Rotation.from_rotvec(phi[:, k, None] * axis).as_matrix()
            pj[:, k] = Op + Rp @ jp_local
            zj[:, k] = Rp @ axis
            r1 = pj[:, k] - Op
            r2 = R[:, k] @ (com - joint)
            O[:, k] = pj[:, k] + r2
            w[:, k] = wp + zj[:, k] * phid[:, k, None]
            al[:, k] = alp + zj[:, k] * phidd[:, k, None] + np.cross(wp, zj[:, k]) * phid[:, k, None]
            v[:, k] = vp + np.cross(wp, r1) + np.cross(w[:, k], r2)
            a[:, k] = (ap + np.cross(alp, r1) + np.cross(wp, np.cross(wp, r1))
                       + np.cross(al[:, k], r2) + np.cross(w[:, k], np.cross(w[:, k], r2)))
        return ChainState(R, O, v, a, w, al, pj, zj)

    def coordinates(self, phi: Any, phid: Any = None, phidd: Any = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Mixed fully Cartesian coordinates ``q, qd, qdd`` ``(N, n)`` from joint angles.

        ``u_dot = omega x u`` and ``u_ddot = alpha x u + omega x (omega x u)`` for each body
        vector; the angle coordinates are ``theta = phi + angle_offsets``.

        Parameters
        ----------
        phi : array_like, shape (N, na) or (na,)
        phid, phidd : array_like, same shape, optional

        Returns
        -------
        q, qd, qdd : numpy.ndarray, shape (N, n)

        Examples
        --------
        >>> import numpy as np
        >>> m = simple_chain()
        >>> q, qd, qdd = m.coordinates([0.1, 0.2, 0.3])
        >>> bool(np.abs(m.system.phi(q[0])).max() < 1e-12), q.shape
        (True, (1, 39))
        """
        s = self.forward_kinematics(phi, phid, phidd)
        N, nb = s.origin.shape[:2]
        phi = np.atleast_2d(np.asarray(phi, float))
        phid = np.zeros_like(phi) if phid is None else np.atleast_2d(np.asarray(phid, float))
        phidd = np.zeros_like(phi) if phidd is None else np.atleast_2d(np.asarray(phidd, float))
        vec = np.swapaxes(s.rotation, -1, -2)                                   # (N, nb, 3[uvw], 3)
        om, al = s.omega[:, :, None, :], s.alpha[:, :, None, :]
        vec_d = np.cross(om, vec)
        vec_dd = np.cross(al, vec) + np.cross(om, vec_d)
        q = np.concatenate([np.concatenate([s.origin[:, :, None], vec], 2).reshape(N, 12 * nb),
                            phi + self.angle_offsets], axis=1)
        qd = np.concatenate([np.concatenate([s.velocity[:, :, None], vec_d], 2).reshape(N, 12 * nb),
                             phid], axis=1)
        qdd = np.concatenate([np.concatenate([s.acceleration[:, :, None], vec_dd], 2).reshape(N, 12 * nb),
                              phidd], axis=1)
        return q, qd, qdd

    def reference_motion(self, duration: float = 3.0, rate: float = 100.0) -> ReferenceMotion:
        """The exact reference motion sampled at ``rate`` Hz for ``duration`` s (both ends).

        Parameters
        ----------
        duration : float, default 3.0
            Length in seconds.
        rate : float, default 100.0
            Sampling rate in Hz (``N = round(duration * rate) + 1`` samples).

        Returns
        -------
        ReferenceMotion

        Raises
        ------
        ValueError
            If ``duration`` or ``rate`` is not positive.

        Examples
        --------
        >>> ref = simple_chain().reference_motion()
        >>> ref.markers.shape, ref.q.shape
        ((301, 9, 3), (301, 39))
        """
        duration = check_positive("duration", duration)
        rate = check_positive("rate", rate)
        t = np.arange(int(round(duration * rate)) + 1) / rate
        phi, phid, phidd = self.joint_trajectory(t)
        q, qd, qdd = self.coordinates(phi, phid, phidd)
        tr = self.system.tracking
        return ReferenceMotion(t, phi, phid, phidd, q, qd, qdd, tr.positions(q), tr.positions(qd),
                               tr.positions(qdd), self.forward_kinematics(phi, phid, phidd))

    def zero_coordinates(self) -> np.ndarray:
        """Coordinates ``q`` (n,) of the zero configuration (all ``phi = 0``).

        Examples
        --------
        >>> simple_chain().zero_coordinates()[-3:]          # theta = phi + pi/2
        array([1.57079633, 1.57079633, 1.57079633])
        """
        return self.coordinates(np.zeros(len(self.links)))[0][0]

    def joint_angles(self, theta: Any) -> np.ndarray:
        """Joint angles ``phi = theta - angle_offsets`` from mixed (MCR) angles.

        Examples
        --------
        >>> import numpy as np
        >>> simple_chain().joint_angles(np.full(3, np.pi / 2))
        array([0., 0., 0.])
        """
        theta = as_array("theta", theta)
        na = self.angle_offsets.shape[0]
        if theta.ndim == 0 or theta.shape[-1] != na:
            raise ValueError(f"theta must have shape (..., {na}) (one MCR angle per joint), got {theta.shape}")
        return theta - self.angle_offsets

    def serial_robot_data(self) -> dict:
        """Arguments of the equivalent serial robot (``robidlib.robot.SerialRobot(**data)``).

        Link frame ``k`` has its origin at joint ``k`` and the orientation of body ``k`` (equal
        to the global axes at the zero configuration); its joint coordinate is ``phi_k``.
        Inertial parameters follow the book convention
        ``[m, mx, my, mz, Ixx, Iyy, Izz, Ixy, Ixz, Iyz]`` about the link origin (products of
        inertia as tensor entries).

        Returns
        -------
        dict
            ``joint_types``, ``joint_origins`` (n, 4, 4), ``joint_axes`` (n, 3), ``params``
            (10 n,), ``gravity`` (3,), ``link_names``.

        Raises
        ------
        ValueError
            If the chain is not serial (a link whose parent is not the previous link).

        Examples
        --------
        >>> data = simple_chain().serial_robot_data()
        >>> data["joint_types"], data["params"].shape
        ('RRR', (30,))
        """
        for k, p in enumerate(self._parents):
            if p != k - 1:
                raise ValueError(f"link {self.links[k].name!r} is not attached to the previous "
                                 "link; only serial chains have an equivalent SerialRobot")
        n = len(self.links)
        origins = np.repeat(np.eye(4)[None], n, axis=0)
        params = np.empty((n, 10))
        prev = np.zeros(3)
        for k, lk in enumerate(self.links):
            joint = np.asarray(lk.joint, float)
            origins[k, :3, 3] = joint - prev
            prev = joint
            c = np.asarray(lk.com, float) - joint
            m = float(lk.mass)
            I_o = np.diag(np.asarray(lk.inertia, float)) + m * (c @ c * np.eye(3) - np.outer(c, c))
            params[k] = [m, *(m * c), I_o[0, 0], I_o[1, 1], I_o[2, 2], I_o[0, 1], I_o[0, 2], I_o[1, 2]]
        return {"joint_types": "R" * n, "joint_origins": origins,
                "joint_axes": np.array([lk.axis for lk in self.links], float),
                "params": params.ravel(), "gravity": self.system.gravity.copy(),
                "link_names": [lk.name for lk in self.links]}


def open_chain(name: str, links: Sequence[Link], gravity: Any = (0.0, 0.0, -9.81),
               amplitudes: Any = None, frequencies: Any = None, phases: Any = None) -> ChainModel:
    """Build a :class:`ChainModel` (system, joints, MCRs, markers) from a list of links.

    Parameters
    ----------
    name : str
    links : sequence of Link
        Parents must come before their children.
    gravity : array_like, shape (3,)
    amplitudes : array_like, shape (na, H), optional
        Amplitudes (rad) of the reference joint motion harmonics (default 0.5 and 0.2 rad).
    frequencies : array_like, shape (na,), optional
        Fundamental frequency of each joint (Hz, default 0.5).
    phases : array_like, shape (na, H), optional
        Phases (rad, default 0).

    Returns
    -------
    ChainModel

    Raises
    ------
    ValueError
        Unknown or later parent, axis not unit, or joint amplitudes that can reach
        ``|phi| >= pi/2`` (where ``theta = phi + pi/2`` leaves ``(0, pi)``).

    Examples
    --------
    >>> pendulum = Link("rod", "ground", joint=[0, 0, 0], axis=[0, 1, 0], com=[0, 0, -0.5],
    ...                 mass=1.0, inertia=[0.02, 0.02, 0.001],
    ...                 markers=[[0.05, 0, -0.3], [0, 0.05, -0.6], [0, -0.05, -0.9]])
    >>> model = open_chain("pendulum", [pendulum], amplitudes=[[0.8]])
    >>> model.system.n_dof, model.system.marker_names
    (1, ('P1', 'P2', 'P3'))
    """
    check_text("name", name)
    if isinstance(links, (str, bytes)) or not hasattr(links, "__iter__"):
        raise TypeError(f"links must be a sequence of Link, got {type(links).__name__}")
    links = tuple(links)
    for lk in links:
        if not isinstance(lk, Link):
            raise TypeError(f"links must hold Link objects, got {type(lk).__name__}")
    names = [lk.name for lk in links]
    bodies, joints, mcrs, markers = [], [], [], []
    for k, lk in enumerate(links):
        if lk.parent != GROUND and lk.parent not in names[:k]:
            raise ValueError(f"link {lk.name!r}: parent {lk.parent!r} must be 'ground' or an "
                             f"earlier link of {names[:k]}")
        com = as_array("com", lk.com, shape=(3,))
        joint = as_array("joint", lk.joint, shape=(3,))
        inertia = as_array("inertia", lk.inertia, shape=(3,))
        bodies.append(RigidBody(lk.name, lk.mass, np.zeros(3), np.diag(inertia)))
        # body frames: O at the CoM, axes = global axes at the zero configuration
        parent_origin = (np.zeros(3) if lk.parent == GROUND
                         else np.asarray(links[names.index(lk.parent)].com, float))
        joints.append(Revolute(lk.parent, joint - parent_origin, lk.axis, lk.name, joint - com,
                               lk.axis, name=f"R{k + 1}"))
        e1, e2 = perpendicular_vectors(lk.axis)
        mcrs.append(MixedCoordinateRelation(f"theta{k + 1}", lk.parent, e1, lk.name, e2,
                                            axis_i=lk.axis, form="cos", name=f"MCR{k + 1}"))
        for p in as_array("markers", lk.markers, ndim=2):
            markers.append(Marker(f"P{len(markers) + 1}", lk.name, p - com))
    system = MultibodySystem(bodies, joints, mcrs, markers=markers, gravity=gravity)
    na = len(links)
    amp = np.tile([0.5, 0.2], (na, 1)) if amplitudes is None else as_array("amplitudes", amplitudes, ndim=2)
    freq = np.full(na, 0.5) if frequencies is None else as_array("frequencies", frequencies, shape=(na,))
    if amp.shape[0] != na:
        raise ValueError(f"amplitudes must have shape ({na}, H) (one row per link), got {amp.shape}")
    ph = np.zeros_like(amp) if phases is None else as_array("phases", phases, ndim=2)
    if ph.shape != amp.shape:
        raise ValueError(f"phases must have the shape of amplitudes, {amp.shape}, got {ph.shape}")
    if np.abs(amp).sum(axis=1).max() >= np.pi / 2:
        raise ValueError("amplitudes: sum of |A| per joint must stay below pi/2 so that theta = "
                         f"phi + pi/2 stays in (0, pi), got {np.abs(amp).sum(axis=1).max():.3g}")
    return ChainModel(name, links, system, amp, freq, ph)


def simple_chain() -> ChainModel:
    """A simple spatial open chain: 3 bodies, revolute joints yaw-pitch-pitch, markers P1..P9.

    Geometry at the zero configuration (m): ``link1`` a vertical column 0.30 long on the
    ground, joint about ``z`` at the origin; ``link2`` an arm 0.40 long along ``x``, joint about
    ``y`` at (0, 0, 0.30); ``link3`` a forearm 0.35 long along ``x``, joint about ``y`` at
    (0.40, 0, 0.30).  Three non-collinear markers per body; total mass 6.5 kg.

    Returns
    -------
    ChainModel

    Examples
    --------
    >>> model = simple_chain()
    >>> model.system.n_coords, model.system.n_dof, model.system.marker_names[-1]
    (39, 3, 'P9')
    """
    links = [
        Link("link1", GROUND, [0, 0, 0], [0, 0, 1], [0.0, 0.01, 0.15], 2.0, [0.016, 0.015, 0.004],
             [[0.04, 0.0, 0.08], [-0.03, 0.04, 0.18], [0.0, -0.04, 0.26]]),
        Link("link2", "link1", [0, 0, 0.30], [0, 1, 0], [0.20, 0.0, 0.31], 2.5, [0.003, 0.036, 0.035],
             [[0.08, 0.04, 0.30], [0.22, -0.04, 0.33], [0.34, 0.0, 0.27]]),
        Link("link3", "link2", [0.40, 0, 0.30], [0, 1, 0], [0.57, 0.0, 0.29], 2.0, [0.002, 0.022, 0.021],
             [[0.47, 0.035, 0.30], [0.60, -0.035, 0.32], [0.72, 0.0, 0.27]]),
    ]
    return open_chain("simple spatial chain", links,
                      amplitudes=[[0.6, 0.2], [0.5, 0.25], [0.7, 0.2]],
                      frequencies=[0.4, 0.55, 0.7], phases=[[0.0, 0.5], [0.3, 1.0], [0.8, 0.2]])


def five_body_chain() -> ChainModel:
    """A five-body spatial open chain: joints yaw-pitch-pitch-roll-pitch, markers P1..P15.

    Geometry at the zero configuration (m): ``b1`` vertical 0.25 (joint ``z`` at the origin),
    ``b2`` 0.35 along ``x`` (joint ``y`` at (0, 0, 0.25)), ``b3`` 0.30 along ``x`` (joint ``y`` at
    (0.35, 0, 0.25)), ``b4`` 0.10 along ``x`` (joint ``x`` at (0.65, 0, 0.25)), ``b5`` 0.15 along
    ``x`` (joint ``y`` at (0.75, 0, 0.25)).  Three non-collinear markers per body.

    Returns
    -------
    ChainModel

    Examples
    --------
    >>> five_body_chain().system.n_coords
    65
    """
    links = [
        Link("b1", GROUND, [0, 0, 0], [0, 0, 1], [0.0, 0.0, 0.125], 3.0, [0.018, 0.017, 0.006],
             [[0.04, 0.0, 0.05], [-0.03, 0.04, 0.12], [0.0, -0.04, 0.21]]),
        Link("b2", "b1", [0, 0, 0.25], [0, 1, 0], [0.175, 0.0, 0.26], 2.5, [0.003, 0.028, 0.027],
             [[0.06, 0.04, 0.26], [0.18, -0.04, 0.28], [0.31, 0.0, 0.22]]),
        Link("b3", "b2", [0.35, 0, 0.25], [0, 1, 0], [0.50, 0.0, 0.24], 1.8, [0.002, 0.015, 0.0145],
             [[0.40, 0.035, 0.26], [0.52, -0.035, 0.27], [0.62, 0.0, 0.22]]),
        Link("b4", "b3", [0.65, 0, 0.25], [1, 0, 0], [0.70, 0.0, 0.25], 0.6, [0.0006, 0.0007, 0.0008],
             [[0.67, 0.04, 0.26], [0.71, -0.03, 0.29], [0.73, 0.01, 0.21]]),
        Link("b5", "b4", [0.75, 0, 0.25], [0, 1, 0], [0.83, 0.0, 0.25], 0.5, [0.0004, 0.0012, 0.0011],
             [[0.78, 0.03, 0.27], [0.84, -0.03, 0.23], [0.89, 0.0, 0.26]]),
    ]
    return open_chain("five-body spatial chain", links,
                      amplitudes=[[0.6, 0.2], [0.5, 0.2], [0.6, 0.25], [0.7, 0.2], [0.6, 0.3]],
                      frequencies=[0.35, 0.5, 0.6, 0.45, 0.8],
                      phases=[[0.0, 0.4], [0.5, 1.2], [1.0, 0.0], [0.2, 0.7], [1.5, 0.3]])


def perturb_markers(markers: Any, max_perturbation: Any, rng: Any, kind: str = "white",
                    rate: float = 100.0, max_frequency: float = 2.0) -> np.ndarray:
    """Add reproducible perturbations of bounded size to marker trajectories.

    ``kind="white"``: an independent displacement per frame and marker, uniformly distributed
    in a ball of radius ``max_perturbation`` (measurement noise).
    ``kind="smooth"``: a low-frequency displacement per marker (three random sinusoids per
    coordinate, frequencies in ``[0.2, max_frequency]`` Hz) scaled so that its largest norm
    over the trial is exactly ``max_perturbation`` (soft-tissue-like artefact).

    Parameters
    ----------
    markers : array_like, shape (N, n_markers, 3)
        Reference marker positions (m).
    max_perturbation : float or array_like, shape (n_markers,)
        Largest displacement (m) of every marker, or one value per marker (e.g. larger on
        two points of the chain); zero leaves a marker unchanged.
    rng : numpy.random.Generator or int
        Random generator (or seed).
    kind : {"white", "smooth"}, default "white"
    rate : float, default 100
        Sampling rate (Hz), used by ``kind="smooth"``.
    max_frequency : float, default 2
        Highest artefact frequency (Hz) for ``kind="smooth"``.

    Returns
    -------
    numpy.ndarray, shape (N, n_markers, 3)
        Perturbed markers (a new array).

    Raises
    ------
    ValueError
        Wrong shapes, negative or non-finite perturbations, unknown ``kind``.
    TypeError
        If ``rng`` is not a Generator or int seed.

    Examples
    --------
    >>> import numpy as np
    >>> ref = np.zeros((5, 2, 3))
    >>> noisy = perturb_markers(ref, [0.0075, 0.013], rng=1)
    >>> bool(np.all(np.linalg.norm(noisy, axis=-1) <= [0.0075, 0.013]))
    True
    """
    x = as_array("markers", markers, ndim=3)
    if x.shape[-1] != 3:
        raise ValueError(f"markers must have shape (N, n_markers, 3), got {x.shape}")
    N, nm, _ = x.shape
    r = as_array("max_perturbation", max_perturbation, ndim=(0, 1))
    r = np.broadcast_to(r, (nm,)) if r.ndim == 0 else r
    if r.shape != (nm,):
        raise ValueError(f"max_perturbation must be a scalar or have shape ({nm},), got {r.shape}")
    if np.any(r < 0):
        raise ValueError(f"max_perturbation must be >= 0, got {r.min()}")
    kind = check_choice("kind", kind, ("white", "smooth"))
    rate = check_positive("rate", rate)
    max_frequency = check_positive("max_frequency", max_frequency)
    gen = check_rng(rng)
    if kind == "white":
        d = gen.standard_normal((N, nm, 3))
        d /= np.linalg.norm(d, axis=-1, keepdims=True)
        radius = r * gen.random((N, nm)) ** (1.0 / 3.0)                # uniform in the ball
        return x + d * radius[..., None]
    rate = check_positive("rate", rate)
    fmax = check_positive("max_frequency", max_frequency)
    if fmax <= 0.2:
        raise ValueError(f"max_frequency must be > 0.2 Hz, got {fmax}")
    t = np.arange(N) / rate
    f = gen.uniform(0.2, fmax, (nm, 3, 3))
    amp = gen.uniform(0.2, 1.0, (nm, 3, 3))
    ph = gen.uniform(0, 2 * np.pi, (nm, 3, 3))
    d = np.sum(amp * np.sin(2 * np.pi * f * t[:, None, None, None] + ph), axis=-1)   # (N, nm, 3)
    peak = np.linalg.norm(d, axis=-1).max(axis=0)
    return x + d * (r / peak)[None, :, None]
