"""Serial robots: joints, geometry, inertial and friction parameters, limits.

One kinematic description serves every algorithm of robidlib. Joint ``i`` (1-based in the
text, 0-based in arrays) connects link ``i-1`` (the base is link 0) to link ``i`` and carries

* a fixed homogeneous transform ``joint_origins[i]`` (4x4): the pose of the joint frame in
  the parent link frame when ``q_i = 0``;
* a unit axis ``joint_axes[i]`` expressed in the joint frame (= child link frame);
* a type, ``"revolute"`` (rotation ``q_i`` in rad about the axis) or ``"prismatic"``
  (translation ``q_i`` in m along the axis).

The pose of link ``i`` in link ``i-1`` is therefore
``joint_origins[i] @ Rot(axis_i, q_i)`` or ``joint_origins[i] @ Trans(axis_i q_i)``.
Modified Denavit-Hartenberg parameters (:meth:`SerialRobot.from_dh`) and URDF joints
(:meth:`SerialRobot.from_urdf`) both map onto it.

Inertial parameters are the GUIDE's standard parameters (see :mod:`robidlib.params`):
per link ``[m, mx, my, mz, Ixx, Iyy, Izz, Ixy, Ixz, Iyz]``, inertia about the link frame
origin, in the link frame. Friction per joint is ``[fv, fc]`` (viscous N m s/rad or N s/m,
Coulomb N m or N) giving the joint torque ``tau_f = fv qd + fc sign(qd)``.
"""

from __future__ import annotations

import math
import os
import sys
import xml.etree.ElementTree as ET
from typing import Any, Iterable, Sequence

import numpy as np
from numpy.typing import ArrayLike

from ._validate import as_array, check_choice
from .params import (
    _WRENCH_BASIS,
    inertia_matrix,
    link_params as _link_params,
    param_names as _param_names,
    friction_names as _friction_names,
    split_link_params,
    transform_params,
)
from .spatial import dh_transform, homogeneous, is_rotation, matrix_to_rpy, rpy_to_matrix

__all__ = ["SerialRobot", "forward_kinematics", "JOINT_TYPES", "DEFAULT_LIMITS", "INERTIA_RTOL"]

#: The joint types of a :class:`SerialRobot`.
JOINT_TYPES: tuple[str, ...] = ("revolute", "prismatic")

#: Default limits used when none are given (per joint type).
#: ``q``: position range (rad or m); ``qd``: speed bound (rad/s or m/s);
#: ``qdd``: acceleration bound (rad/s^2 or m/s^2); ``tau``: torque/force bound (N m or N).
#: They are deliberately moderate so that random states and excitation trajectories drawn
#: within them stay physically plausible for a tabletop arm; models override them.
DEFAULT_LIMITS: dict[str, dict[str, Any]] = {
    "revolute": {"q": (-math.pi, math.pi), "qd": 2.0, "qdd": 10.0, "tau": math.inf},
    "prismatic": {"q": (-0.5, 0.5), "qd": 0.5, "qdd": 5.0, "tau": math.inf},
}

_TYPE_LETTERS = {"R": "revolute", "P": "prismatic"}


def _parse_joint_types(joint_types: Any) -> tuple[str, ...]:
    if isinstance(joint_types, str):
        if not joint_types or any(ch not in _TYPE_LETTERS for ch in joint_types.upper()):
            raise ValueError(
                f"joint_types given as a string must contain only the letters R and P, got {joint_types!r}"
            )
        return tuple(_TYPE_LETTERS[ch] for ch in joint_types.upper())
    try:
        types = tuple(joint_types)
    except TypeError:
        raise TypeError(f"joint_types must be a string like 'RRP' or a sequence of names, got {type(joint_types).__name__}") from None
    if not types:
        raise ValueError("joint_types must name at least one joint, got an empty sequence")
    for t in types:
        if t not in JOINT_TYPES:
            raise ValueError(f"unknown joint type {t!r} in joint_types; expected 'revolute' or 'prismatic'")
    return types


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=float)  # own copy
    a.setflags(write=False)
    return a


def _names(name: str, value: Any, n: int, default: Sequence[str]) -> tuple[str, ...]:
    if value is None:
        return tuple(default)
    if isinstance(value, str):
        raise ValueError(f"{name} must be a sequence of {n} strings, got the string {value!r}")
    value = tuple(value)
    if len(value) != n or not all(isinstance(v, str) and v for v in value):
        raise ValueError(f"{name} must be a sequence of {n} non-empty strings, got {value!r}")
    if len(set(value)) != n:
        raise ValueError(f"{name} must not contain duplicates, got {value!r}")
    return value


class SerialRobot:
    """A fixed-base serial chain of revolute and prismatic joints.

    Instances are immutable: every ``with_*`` method returns a new robot, and the array
    attributes are read-only.

    Parameters
    ----------
    joint_types : str or sequence of str
        ``"revolute"`` / ``"prismatic"`` per joint, or a string of letters such as ``"RRP"``.
    joint_origins : array_like, shape (n, 4, 4)
        Pose of each joint frame in its parent link frame at ``q = 0``.
    joint_axes : array_like, shape (n, 3)
        Unit joint axes in the joint (child link) frames; norms must be within 1e-6 of one
        (they are then normalised to remove round-off).
    params : array_like, shape (10 n,), optional
        Standard inertial parameters (GUIDE order, inertia about the link origin). Default:
        all zero (a kinematic model; its mass matrix is singular).
    friction : array_like, shape (n, 2), optional
        ``[fv, fc]`` per joint, default zeros. Negative values are refused.
    gravity : array_like, shape (3,), default (0, 0, -9.81)
        Gravitational acceleration in the base frame, m/s^2.
    joint_names, link_names : sequence of str, optional
        Default ``("q1", ..., "qn")`` and ``("link1", ..., "linkn")``.
    q_limits : array_like, shape (n, 2), optional
        Position bounds ``[lower, upper]`` per joint; default from :data:`DEFAULT_LIMITS`
        (revolute ``[-pi, pi]`` rad, prismatic ``[-0.5, 0.5]`` m).
    qd_limits, qdd_limits, tau_limits : array_like, shape (n,), optional
        Symmetric bounds on ``|qd|``, ``|qdd|`` and ``|tau|``; defaults: revolute 2 rad/s, 10 rad/s^2;
        prismatic 0.5 m/s, 5 m/s^2; torque unbounded (``inf``).
    name : str, default "robot"

    Attributes
    ----------
    n : int
        Number of joints.
    params : numpy.ndarray, shape (10 n,)
    link_params : numpy.ndarray, shape (n, 10)
    param_names, friction_names : tuple of str
    gravity, friction, q_limits, qd_limits, qdd_limits, tau_limits : numpy.ndarray
    joint_origins, joint_axes : numpy.ndarray

    Raises
    ------
    ValueError
        Inconsistent numbers of joints, non-rigid origins, non-unit or zero axes, NaN/inf,
        negative friction, empty or reversed limits.

    Examples
    --------
    >>> import numpy as np
    >>> T = np.eye(4)[None].repeat(2, axis=0); T[1, 0, 3] = 0.5   # second joint 0.5 m along x
    >>> robot = SerialRobot("RR", T, [[0, 0, 1], [0, 0, 1]], name="two-link")
    >>> robot.n, robot.joint_types, robot.param_names[:2]
    (2, ('revolute', 'revolute'), ('m1', 'mx1'))
    """

    __slots__ = (
        "_n", "_types", "_origins", "_axes", "_params", "_friction", "_gravity", "_joint_names",
        "_link_names", "_q_limits", "_qd_limits", "_qdd_limits", "_tau_limits", "_name",
        "_kin",
    )

    def __init__(
        self,
        joint_types: str | Sequence[str],
        joint_origins: ArrayLike,
        joint_axes: ArrayLike,
        params: ArrayLike | None = None,
        *,
        friction: ArrayLike | None = None,
        gravity: ArrayLike = (0.0, 0.0, -9.81),
        joint_names: Sequence[str] | None = None,
        link_names: Sequence[str] | None = None,
        q_limits: ArrayLike | None = None,
        qd_limits: ArrayLike | None = None,
        qdd_limits: ArrayLike | None = None,
        tau_limits: ArrayLike | None = None,
        name: str = "robot",
    ) -> None:
        types = _parse_joint_types(joint_types)
        n = len(types)
        set_ = object.__setattr__
        set_(self, "_n", n)
        set_(self, "_types", types)

        T = as_array("joint_origins", joint_origins, shape=(n, 4, 4))
        if not np.allclose(T[:, 3, :], [0.0, 0.0, 0.0, 1.0], rtol=0.0, atol=1e-12):
            raise ValueError("joint_origins must be homogeneous transforms (last row [0, 0, 0, 1])")
        bad = np.flatnonzero(~is_rotation(T[:, :3, :3], tol=1e-9))
        if bad.size:
            raise ValueError(
                f"joint_origins[{bad[0]}] has a rotation part that is not a rotation matrix "
                "(orthonormal to 1e-9 with determinant +1)"
            )
        axes = as_array("joint_axes", joint_axes, shape=(n, 3))
        norms = np.linalg.norm(axes, axis=1)
        bad = np.flatnonzero(np.abs(norms - 1.0) > 1e-6)
        if bad.size:
            raise ValueError(
                f"joint_axes[{bad[0]}] must be a unit vector (norm 1 within 1e-6), got norm {norms[bad[0]]:.9g}"
            )
        set_(self, "_origins", _readonly(T))
        set_(self, "_axes", _readonly(axes / norms[:, None]))

        if params is None:
            params = np.zeros(10 * n)
        set_(self, "_params", _readonly(as_array("params", params, shape=(10 * n,))))
        if friction is None:
            friction = np.zeros((n, 2))
        fr = as_array("friction", friction, shape=(n, 2))
        if np.any(fr < 0):
            raise ValueError(f"friction coefficients [fv, fc] must be >= 0, got {fr.tolist()}")
        set_(self, "_friction", _readonly(fr))
        set_(self, "_gravity", _readonly(as_array("gravity", gravity, shape=(3,))))
        set_(self, "_joint_names", _names("joint_names", joint_names, n, [f"q{i}" for i in range(1, n + 1)]))
        set_(self, "_link_names", _names("link_names", link_names, n, [f"link{i}" for i in range(1, n + 1)]))

        dflt = [DEFAULT_LIMITS[t] for t in types]
        ql = np.array([d["q"] for d in dflt]) if q_limits is None else as_array("q_limits", q_limits, shape=(n, 2))
        if np.any(ql[:, 0] >= ql[:, 1]):
            raise ValueError(f"q_limits must have lower < upper for every joint, got {ql.tolist()}")
        set_(self, "_q_limits", _readonly(ql))
        for key, value in (("qd", qd_limits), ("qdd", qdd_limits), ("tau", tau_limits)):
            arg = f"{key}_limits"
            lim = (
                np.array([d[key] for d in dflt], dtype=float)
                if value is None
                else as_array(arg, value, shape=(n,), finite=False)
            )
            if np.any(np.isnan(lim)) or np.any(lim <= 0):
                raise ValueError(f"{arg} must be > 0 (inf allowed), got {lim.tolist()}")
            set_(self, f"_{arg}", _readonly(lim))
        if not isinstance(name, str):
            raise TypeError(f"name must be a string, got {type(name).__name__}")
        set_(self, "_name", name)
        set_(self, "_kin", _KinematicConstants(self))

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError(f"SerialRobot is immutable; use with_params / with_friction / ... to change {key!r}")

    # ------------------------------------------------------------------ attributes
    n = property(lambda self: self._n, doc="Number of joints.")
    name = property(lambda self: self._name, doc="Robot name.")
    joint_types = property(lambda self: self._types, doc="'revolute' / 'prismatic' per joint.")
    joint_names = property(lambda self: self._joint_names, doc="Joint names.")
    link_names = property(lambda self: self._link_names, doc="Names of the moving links.")
    joint_origins = property(lambda self: self._origins, doc="(n, 4, 4) joint frames in parent link frames at q = 0.")
    joint_axes = property(lambda self: self._axes, doc="(n, 3) unit joint axes in the joint frames.")
    params = property(lambda self: self._params, doc="(10 n,) standard parameters, GUIDE order.")
    link_params = property(lambda self: self._params.reshape(self._n, 10), doc="(n, 10) parameters per link.")
    friction = property(lambda self: self._friction, doc="(n, 2) friction [fv, fc] per joint.")
    gravity = property(lambda self: self._gravity, doc="(3,) gravity in the base frame, m/s^2.")
    q_limits = property(lambda self: self._q_limits, doc="(n, 2) position bounds.")
    qd_limits = property(lambda self: self._qd_limits, doc="(n,) speed bounds.")
    qdd_limits = property(lambda self: self._qdd_limits, doc="(n,) acceleration bounds.")
    tau_limits = property(lambda self: self._tau_limits, doc="(n,) torque / force bounds.")

    @property
    def param_names(self) -> tuple[str, ...]:
        """Names of :attr:`params`: ``m1, mx1, ..., Iyz1, m2, ...``."""
        return _param_names(self._n)

    @property
    def friction_names(self) -> tuple[str, ...]:
        """Names of ``friction.ravel()``: ``fv1, fc1, fv2, fc2, ...``."""
        return _friction_names(self._n)

    @property
    def structure_id(self) -> str:
        """A fingerprint of what decides the regressor's columns: joint types, axes, frames, gravity.

        Two robots with the same kinematic structure and the same direction of gravity share
        it, whatever their inertial and friction parameters, limits and names (so
        ``robot.with_params(...)`` keeps it); the base parameters computed for one of them
        (:func:`robidlib.base.base_parameters`) hold it, and the functions that take both a
        robot and its base parameters refuse base parameters of another robot. Numbers are
        rounded to 1e-9 (m, rad), so round-off (a URDF written and read back) does not change
        it.
        """
        import hashlib

        g = self._gravity
        gn = float(np.linalg.norm(g))
        parts = [
            np.array([self._n], dtype=float),
            np.array([t == "prismatic" for t in self._types], dtype=float),
            np.round(self._axes, 9), np.round(self._origins, 9),
            np.round(g / gn, 9) if gn > 0 else np.zeros(3),
        ]
        data = np.concatenate([np.ravel(a) for a in parts]) + 0.0       # + 0.0: -0.0 -> 0.0
        return hashlib.sha256(data.tobytes()).hexdigest()[:16]

    @property
    def is_prismatic(self) -> np.ndarray:
        """Boolean mask of the prismatic joints, shape (n,)."""
        return np.array([t == "prismatic" for t in self._types])

    def __repr__(self) -> str:
        letters = "".join("R" if t == "revolute" else "P" for t in self._types)
        return f"SerialRobot(name={self._name!r}, n={self._n}, joints={letters!r}, gravity={self._gravity.tolist()})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SerialRobot):
            return NotImplemented
        return all(
            (np.array_equal(getattr(self, k), getattr(other, k)) if isinstance(getattr(self, k), np.ndarray)
             else getattr(self, k) == getattr(other, k))
            for k in ("_types", "_origins", "_axes", "_params", "_friction", "_gravity", "_joint_names",
                      "_link_names", "_q_limits", "_qd_limits", "_qdd_limits", "_tau_limits", "_name")
        )

    __hash__ = None  # type: ignore[assignment]

    # ------------------------------------------------------------------ copies
    def _replace(self, **changes: Any) -> "SerialRobot":
        kw = dict(
            joint_types=self._types, joint_origins=self._origins, joint_axes=self._axes,
            params=self._params, friction=self._friction, gravity=self._gravity,
            joint_names=self._joint_names, link_names=self._link_names, q_limits=self._q_limits,
            qd_limits=self._qd_limits, qdd_limits=self._qdd_limits, tau_limits=self._tau_limits,
            name=self._name,
        )
        kw.update(changes)
        return SerialRobot(**kw)

    def with_params(self, params: ArrayLike) -> "SerialRobot":
        """A copy with other standard parameters.

        Parameters
        ----------
        params : array_like, shape (10 n,)

        Returns
        -------
        SerialRobot

        Raises
        ------
        ValueError
            Wrong shape or NaN/inf.

        Examples
        --------
        >>> from robidlib.models.planar_2r import planar_2r
        >>> r = planar_2r()
        >>> float(r.with_params(2 * r.params).params[0]) == 2 * float(r.params[0])
        True
        """
        return self._replace(params=params)

    def with_friction(
        self, friction: ArrayLike | None = None, *, fv: ArrayLike | None = None, fc: ArrayLike | None = None
    ) -> "SerialRobot":
        """A copy with other friction coefficients.

        Give either ``friction`` (shape ``(n, 2)``, or a scalar 0 to remove friction) or the
        keywords ``fv`` / ``fc`` (scalar or shape ``(n,)``; the one not given is kept).

        Parameters
        ----------
        friction : array_like, shape (n, 2), or 0, optional
            ``[fv, fc]`` per joint.
        fv, fc : float or array_like, shape (n,), optional
            Viscous (N m s/rad or N s/m) and Coulomb (N m or N) coefficients, >= 0.

        Returns
        -------
        SerialRobot

        Raises
        ------
        ValueError
            Wrong shape, negative or NaN/inf coefficients, or both ways of giving friction.

        Examples
        --------
        >>> from robidlib.models.planar_2r import planar_2r
        >>> planar_2r().with_friction(fv=[0.5, 0.3]).friction.tolist()
        [[0.5, 0.0], [0.3, 0.0]]
        """
        if friction is not None and (fv is not None or fc is not None):
            raise ValueError("give either friction or fv/fc, not both")
        if friction is not None:
            fr = as_array("friction", friction)
            if fr.ndim == 0:
                if fr != 0:
                    raise ValueError(
                        f"friction must have shape ({self._n}, 2); the only scalar accepted is 0, got {float(fr)}"
                    )
                fr = np.zeros((self._n, 2))
            return self._replace(friction=fr)
        if fv is None and fc is None:
            raise ValueError("with_friction needs friction, fv or fc")
        fr = np.array(self._friction)
        for col, (key, val) in enumerate((("fv", fv), ("fc", fc))):
            if val is not None:
                v = as_array(key, val)
                if v.ndim == 0:
                    v = np.full(self._n, float(v))
                if v.shape != (self._n,):
                    raise ValueError(f"{key} must be a scalar or have shape ({self._n},), got {v.shape}")
                fr[:, col] = v
        return self._replace(friction=fr)

    def with_gravity(self, gravity: ArrayLike) -> "SerialRobot":
        """A copy with another gravity vector.

        Parameters
        ----------
        gravity : array_like, shape (3,)
            Gravitational acceleration in the base frame, m/s^2.

        Returns
        -------
        SerialRobot

        Raises
        ------
        ValueError
            Wrong shape or NaN/inf.

        Examples
        --------
        >>> from robidlib.models.planar_2r import planar_2r
        >>> planar_2r().with_gravity([0, 0, 0]).gravity.tolist()
        [0.0, 0.0, 0.0]
        """
        return self._replace(gravity=gravity)

    def with_limits(
        self,
        q: ArrayLike | None = None,
        qd: ArrayLike | None = None,
        qdd: ArrayLike | None = None,
        tau: ArrayLike | None = None,
    ) -> "SerialRobot":
        """A copy with other joint limits (those not given are kept).

        Parameters
        ----------
        q : array_like, shape (n, 2), optional
            ``[lower, upper]`` per joint (rad or m).
        qd, qdd, tau : array_like, shape (n,), optional
            Bounds on ``|qd|``, ``|qdd|``, ``|tau|`` (> 0, ``inf`` allowed).

        Returns
        -------
        SerialRobot

        Raises
        ------
        ValueError
            Wrong shapes, NaN, empty ranges or non-positive bounds.

        Examples
        --------
        >>> from robidlib.models.planar_2r import planar_2r
        >>> planar_2r().with_limits(qd=[1.0, 1.5]).qd_limits.tolist()
        [1.0, 1.5]
        """
        changes = {}
        for key, val in (("q_limits", q), ("qd_limits", qd), ("qdd_limits", qdd), ("tau_limits", tau)):
            if val is not None:
                changes[key] = val
        return self._replace(**changes)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_dh(
        cls,
        joint_types: str | Sequence[str],
        a: ArrayLike,
        alpha: ArrayLike,
        d: ArrayLike,
        theta: ArrayLike | None = None,
        *,
        mass: ArrayLike | None = None,
        com: ArrayLike | None = None,
        inertia: ArrayLike | None = None,
        inertia_about: str = "com",
        friction: ArrayLike | None = None,
        gravity: ArrayLike = (0.0, 0.0, -9.81),
        joint_names: Sequence[str] | None = None,
        link_names: Sequence[str] | None = None,
        q_limits: ArrayLike | None = None,
        qd_limits: ArrayLike | None = None,
        qdd_limits: ArrayLike | None = None,
        tau_limits: ArrayLike | None = None,
        name: str = "dh_robot",
    ) -> "SerialRobot":
        """A robot from modified Denavit-Hartenberg parameters (Craig / Khalil).

        Frame ``i`` sits on joint ``i``'s axis ``z_i``; its pose in frame ``i-1`` is
        ``RotX(alpha_{i-1}) TransX(a_{i-1}) RotZ(theta_i + q_i) TransZ(d_i)`` for a revolute
        joint and ``RotX(alpha_{i-1}) TransX(a_{i-1}) RotZ(theta_i) TransZ(d_i + q_i)`` for a
        prismatic one. Row ``i`` of each array describes joint / link ``i``.

        Parameters
        ----------
        joint_types : str or sequence of str
            e.g. ``"PRRRP"`` or ``["prismatic", "revolute", ...]``.
        a, alpha : array_like, shape (n,)
            ``a_{i-1}`` (m) and ``alpha_{i-1}`` (rad): length and twist of the previous link.
        d, theta : array_like, shape (n,)
            ``d_i`` (m) and ``theta_i`` (rad): offsets added to ``q_i`` (``theta`` default 0).
        mass : array_like, shape (n,), optional
            Link masses, kg (default: all inertial parameters zero).
        com : array_like, shape (n, 3), optional
            Centres of mass in the link frames, m (default zeros).
        inertia : array_like, shape (n, 3, 3) or (n, 6), optional
            Inertia tensors in the link frames (kg m^2), as matrices or as
            ``[Ixx, Iyy, Izz, Ixy, Ixz, Iyz]``; default zeros.
        inertia_about : {'com', 'origin'}, default 'com'
            Whether ``inertia`` is about the centre of mass or about the link-frame origin.
        friction, gravity, joint_names, link_names, q_limits, qd_limits, qdd_limits, tau_limits, name
            As in :class:`SerialRobot`.

        Returns
        -------
        SerialRobot

        Raises
        ------
        ValueError
            Arrays whose lengths differ from the number of joint types, NaN/inf, negative
            masses, inertia given without a mass.

        Examples
        --------
        >>> import numpy as np
        >>> r = SerialRobot.from_dh("RP", a=[0, 0.3], alpha=[0, np.pi / 2], d=[0, 0.1],
        ...                         mass=[1.0, 0.5], com=[[0.15, 0, 0], [0, 0, -0.05]],
        ...                         inertia=np.zeros((2, 6)))
        >>> r.joint_types, r.params[:2].tolist()
        (('revolute', 'prismatic'), [1.0, 0.15])
        """
        types = _parse_joint_types(joint_types)
        n = len(types)
        a = as_array("a", a, shape=(n,))
        alpha = as_array("alpha", alpha, shape=(n,))
        d = as_array("d", d, shape=(n,))
        theta = np.zeros(n) if theta is None else as_array("theta", theta, shape=(n,))
        origins = dh_transform(a, alpha, d, theta)
        axes = np.tile([0.0, 0.0, 1.0], (n, 1))
        if mass is None:
            if com is not None or inertia is not None:
                raise ValueError("com / inertia given without mass; give mass too")
            params = np.zeros(10 * n)
        else:
            m = as_array("mass", mass, shape=(n,))
            c = np.zeros((n, 3)) if com is None else as_array("com", com, shape=(n, 3))
            I = np.zeros((n, 3, 3)) if inertia is None else as_array("inertia", inertia)
            if I.shape not in ((n, 3, 3), (n, 6)):
                raise ValueError(f"inertia must have shape ({n}, 3, 3) or ({n}, 6), got {I.shape}")
            check_choice("inertia_about", inertia_about, ("com", "origin"))
            params = _link_params(m, c, I, about=inertia_about).ravel()
        return cls(
            types, origins, axes, params, friction=friction, gravity=gravity,
            joint_names=joint_names, link_names=link_names, q_limits=q_limits,
            qd_limits=qd_limits, qdd_limits=qdd_limits, tau_limits=tau_limits, name=name,
        )

    @classmethod
    def from_urdf(
        cls,
        source: str | os.PathLike,
        *,
        base_link: str | None = None,
        tip_link: str | None = None,
        lock_joints: Iterable[str] = (),
        gravity: ArrayLike | None = None,
        name: str | None = None,
        inertia_check: str = "refuse",
    ) -> "SerialRobot":
        """A robot from a URDF file or string (parsed with the standard library).

        The chain starts at ``base_link`` (default: the URDF's root link, which is held
        fixed) and follows the movable joints (``revolute``, ``continuous``, ``prismatic``) in
        order. Links attached by ``fixed`` joints (and joints listed in ``lock_joints``, held
        at ``q = 0``) are merged into the moving link they hang from, their inertia moved to
        that link's frame with :func:`robidlib.params.transform_params`; links fixed to the
        base are ignored (they do not move). Link frames are the URDF link frames, so the
        parameters agree with pinocchio's for the same file.

        ``<dynamics damping=... friction=...>`` become the viscous and Coulomb coefficients
        ``[fv, fc]``; ``<limit lower upper velocity effort>`` become ``q_limits``,
        ``qd_limits``, ``tau_limits``. Continuous joints, and the all-zero
        ``<limit lower="0" upper="0" .../>`` that exporters write for "no position limit"
        (pinocchio loads it and enforces nothing), get the range of :data:`DEFAULT_LIMITS`;
        so do a missing or zero ``velocity`` / ``effort`` and the acceleration bound. The
        extensions written by :meth:`to_urdf` are read back: an ``acceleration`` attribute of
        ``<limit>``, the largest finite double as an infinite limit, and the gravity of a
        ``<robidlib gravity="x y z"/>`` element.

        Parameters
        ----------
        source : str or os.PathLike
            Path of a ``.urdf`` file, or the XML text itself (a string starting with ``<``).
        base_link : str, optional
            Link that is the fixed base (default: the root link).
        tip_link : str, optional
            Last link of the chain. Needed when the tree branches after the arm (e.g. the two
            fingers of a gripper): movable joints beyond ``tip_link`` are dropped together with
            the links they carry; links fixed to ``tip_link`` are kept.
        lock_joints : iterable of str
            Movable joints to treat as fixed at ``q = 0`` (their links are merged).
        gravity : array_like, shape (3,), optional
            Gravity in the base-link frame. Default: the file's ``<robidlib gravity>`` if it
            has one, else ``(0, 0, -9.81)``.
        name : str, optional
            Default: the URDF robot name.
        inertia_check : {"refuse", "warn"}, default "refuse"
            What to do with a moving link whose ``<inertia>`` no rigid body has: a negative
            principal moment (not positive semi-definite: the mass matrix may be indefinite and
            forward dynamics accelerate against the torque) or principal moments breaking the
            triangle inequality ``I1 + I2 >= I3``, beyond a relative tolerance
            ``robidlib.robot.INERTIA_RTOL`` of the largest moment (the rounding of the file's decimals).
            ``"refuse"`` raises a ``ValueError`` naming the link; ``"warn"`` loads the file as
            it is with a ``UserWarning`` (a vendor's CAD export, used as a prior). Links fixed
            to the base are not read.

        Returns
        -------
        SerialRobot

        Raises
        ------
        ValueError
            Malformed XML or URDF (missing or duplicate names, unknown link, bad numbers, a
            negative limit, ``lower >= upper`` other than the all-zero "no limit"), a DTD or
            an entity declaration (refused explicitly: URDF needs none, and entities can
            expand without bound), a ``floating`` or ``planar`` joint, a link with two movable
            branches (the message names the link and the branches), a zero or non-unit axis, a
            mimic joint in the chain, an unknown ``base_link`` / ``tip_link`` / ``lock_joints``
            entry, no movable joint, or an inertia that no rigid body has (see
            ``inertia_check``).
        TypeError
            ``source`` neither a path nor URDF text, ``lock_joints`` not joint names.

        Examples
        --------
        >>> urdf = '''<robot name="pendulum">
        ...   <link name="base"/>
        ...   <link name="rod"><inertial><origin xyz="0 0 -0.5"/><mass value="1.0"/>
        ...     <inertia ixx="0.02" iyy="0.02" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
        ...   <joint name="hinge" type="revolute"><parent link="base"/><child link="rod"/>
        ...     <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="10" velocity="5"/></joint>
        ... </robot>'''
        >>> r = SerialRobot.from_urdf(urdf)
        >>> r.n, r.joint_names, round(float(r.params[5]), 3)   # Iyy about the hinge = 0.02 + 1 * 0.5**2
        (1, ('hinge',), 0.27)
        """
        return _from_urdf(cls, source, base_link, tip_link, lock_joints, gravity, name, inertia_check)

    def to_urdf(self, base_link: str | None = None) -> str:
        """The robot as URDF text, which :meth:`from_urdf` reads back into the same robot.

        Joint origins become ``xyz``/``rpy``, inertia is written about the centre of mass (a
        link with zero mass and zero first moment keeps its inertia, with the centre of mass
        at the link origin), friction ``[fv, fc]`` becomes ``<dynamics damping friction>``.
        Names are XML-escaped, so any name the constructor accepts survives.

        URDF has no place for three things robidlib keeps; they are written so that other
        URDF readers (pinocchio, ROS) ignore them and :meth:`from_urdf` restores them:

        * an infinite speed or torque limit (URDF requires a number) is written as the
          largest finite double, ``1.7976931348623157e+308``, which is read back as ``inf``;
        * the acceleration bound is an extra ``acceleration`` attribute of ``<limit>``;
        * the gravity vector is a top-level ``<robidlib gravity="x y z"/>`` element.

        Names, joint types, limits, friction and gravity come back exactly; the inertial
        parameters and the joint rotations come back to round-off (they pass through the
        centre of mass and roll-pitch-yaw angles), i.e. to about ``1e-15`` relative.

        Parameters
        ----------
        base_link : str, optional
            Name of the fixed base link; default ``"base_link"`` (with ``_`` appended until it
            differs from every link name).

        Returns
        -------
        str

        Raises
        ------
        ValueError
            If ``base_link`` is empty or clashes with a link name, a link has a negative mass
            or a zero mass with a non-zero first moment (its centre of mass is undefined), or
            a name holds a character that XML 1.0 cannot represent (a control character).
        TypeError
            If ``base_link`` is not a string.

        Examples
        --------
        >>> import numpy as np
        >>> from robidlib.models.planar_2r import planar_2r
        >>> r = planar_2r().with_gravity([0.0, -9.81, 0.0])
        >>> r2 = SerialRobot.from_urdf(r.to_urdf())
        >>> bool(np.allclose(r2.params, r.params)), r2.joint_names == r.joint_names
        (True, True)
        >>> r2.gravity.tolist()                       # restored from the robidlib element
        [0.0, -9.81, 0.0]
        """
        if base_link is None:
            base_link = "base_link"
            while base_link in self._link_names:
                base_link += "_"
        elif not isinstance(base_link, str):
            raise TypeError(f"base_link must be a string, got {type(base_link).__name__}")
        elif not base_link or base_link in self._link_names:
            raise ValueError(
                f"base_link must be a non-empty name that differs from the link names "
                f"{list(self._link_names)}, got {base_link!r}"
            )
        for label, names in (("name", (self._name,)), ("base_link", (base_link,)),
                             ("joint_names", self._joint_names), ("link_names", self._link_names)):
            for k, text in enumerate(names):
                bad = next((ch for ch in text if _xml_illegal(ch)), None)
                if bad is not None:
                    where = label if label in ("name", "base_link") else f"{label}[{k}]"
                    raise ValueError(
                        f"{where} = {text!r} holds the character {bad!r}, which XML 1.0 (and so "
                        "URDF) cannot represent; rename it"
                    )
        m = self._params.reshape(self._n, 10)[:, 0]
        bad = np.flatnonzero(m < 0)
        if bad.size:
            raise ValueError(
                f"link {self._link_names[bad[0]]!r} has the mass {m[bad[0]]!r} < 0, which URDF cannot hold"
            )
        try:
            m, c, Ic = split_link_params(self._params, about="com")
        except ValueError:
            h = self._params.reshape(self._n, 10)[:, 1:4]
            k = int(np.flatnonzero((m == 0) & np.any(h != 0, axis=1))[0])
            raise ValueError(
                f"link {self._link_names[k]!r} has zero mass but the first moment {h[k].tolist()}: "
                "its centre of mass is undefined, so URDF cannot hold it"
            ) from None
        with np.errstate(over="ignore", invalid="ignore"):
            finite = np.isfinite(c).all(axis=1) & np.isfinite(Ic).all(axis=(1, 2))
        if not finite.all():
            k = int(np.flatnonzero(~finite)[0])
            raise ValueError(
                f"link {self._link_names[k]!r}: its centre of mass or inertia about it overflows "
                f"(mass {m[k]!r}, first moment {self._params[10 * k + 1:10 * k + 4].tolist()}), so URDF "
                "cannot hold it"
            )

        def num(x: float) -> str:
            x = float(x)
            return repr(_URDF_INF if x == math.inf else x)

        def vec(v: Any) -> str:
            return " ".join(num(x) for x in v)

        root = ET.Element("robot", name=self._name)
        ET.SubElement(root, "robidlib", gravity=vec(self._gravity))
        ET.SubElement(root, "link", name=base_link)
        parent = base_link
        for i in range(self._n):
            link = ET.SubElement(root, "link", name=self._link_names[i])
            inertial = ET.SubElement(link, "inertial")
            ET.SubElement(inertial, "origin", xyz=vec(c[i]), rpy="0 0 0")
            ET.SubElement(inertial, "mass", value=num(m[i]))
            I = Ic[i]
            ET.SubElement(inertial, "inertia", ixx=num(I[0, 0]), iyy=num(I[1, 1]), izz=num(I[2, 2]),
                          ixy=num(I[0, 1]), ixz=num(I[0, 2]), iyz=num(I[1, 2]))
            T = self._origins[i]
            joint = ET.SubElement(root, "joint", name=self._joint_names[i], type=self._types[i])
            ET.SubElement(joint, "parent", link=parent)
            ET.SubElement(joint, "child", link=self._link_names[i])
            ET.SubElement(joint, "origin", xyz=vec(T[:3, 3]), rpy=vec(matrix_to_rpy(T[:3, :3])))
            ET.SubElement(joint, "axis", xyz=vec(self._axes[i]))
            lo, hi = self._q_limits[i]
            ET.SubElement(joint, "limit", lower=num(lo), upper=num(hi), velocity=num(self._qd_limits[i]),
                          effort=num(self._tau_limits[i]), acceleration=num(self._qdd_limits[i]))
            ET.SubElement(joint, "dynamics", damping=num(self._friction[i, 0]), friction=num(self._friction[i, 1]))
            parent = self._link_names[i]
        ET.indent(root)
        return ET.tostring(root, encoding="unicode") + "\n"


#: An infinite limit in URDF text: the largest finite double, which every URDF reader parses.
_URDF_INF = sys.float_info.max


def _xml_illegal(ch: str) -> bool:
    """True for a character that XML 1.0 cannot hold, not even escaped."""
    o = ord(ch)
    return (o < 0x20 and ch not in "\t\n\r") or 0xD800 <= o <= 0xDFFF or o in (0xFFFE, 0xFFFF)


class _KinematicConstants:
    """Per-joint constants used by the batched algorithms (computed once per robot).

    For a revolute joint the rotation of link i in link i-1 is, by Rodrigues' formula,
    ``R = R0 Rot(e, q) = R0 + sin(q) R0 K + (1 - cos(q)) R0 K^2`` with ``K = skew(e)``: a fixed
    linear combination of three constant matrices ``R0, RK, RK2``. Rotating a batch of
    vectors therefore needs no per-sample matrix: one product with a constant matrix and two
    scalings by ``sin(q)`` and ``1 - cos(q)``. ``Tc = [R0.T; RK.T; RK2.T]`` (9, 3) maps column
    vectors to the child frame (``R.T v``), ``Tp = [R0; RK; RK2]`` to the parent frame (``R v``).
    For a prismatic joint ``R = R0`` and the origin moves: ``p = p0 + q R0 e``.
    """

    __slots__ = ("R0", "RK", "RK2", "Tc", "Tp", "p0", "Px", "Ex", "axis", "prismatic", "R0e", "G", "Gpi")

    def __init__(self, robot: SerialRobot) -> None:
        T, e = robot._origins, robot._axes
        n = robot._n

        def skew(v):
            S = np.zeros(v.shape[:-1] + (3, 3))
            S[..., 0, 1], S[..., 0, 2], S[..., 1, 2] = -v[..., 2], v[..., 1], -v[..., 0]
            return S - np.swapaxes(S, -1, -2)

        K = skew(e)
        self.R0 = T[:, :3, :3].copy()
        self.RK = self.R0 @ K
        self.RK2 = self.RK @ K
        tr = lambda M: np.swapaxes(M, 1, 2)  # noqa: E731
        self.Tc = np.concatenate([tr(self.R0), tr(self.RK), tr(self.RK2)], axis=1)
        self.Tp = np.concatenate([self.R0, self.RK, self.RK2], axis=1)
        self.p0 = T[:, :3, 3].copy()
        self.Px = skew(self.p0)  # Px @ v == cross(p0, v)
        self.Ex = K              # Ex @ v == cross(e, v)
        self.axis = e.copy()
        self.prismatic = np.array([t == "prismatic" for t in robot._types])
        self.R0e = np.einsum("nij,nj->ni", self.R0, e)
        P = robot._params.reshape(n, 10)
        # spatial inertia about the link origin, twist order (linear, angular)
        H = skew(P[:, 1:4])
        G = np.zeros((n, 6, 6))
        G[:, :3, :3] = P[:, 0, None, None] * np.eye(3)
        G[:, :3, 3:], G[:, 3:, :3], G[:, 3:, 3:] = -H, H, inertia_matrix(P[:, 4:10])
        self.G = G
        # link wrench [f; n] = Gpi[j] @ features (see robidlib.params._wrench_basis)
        # rows ordered (component, {f, n}) so that the wrench reshapes to (3, 2, C)
        self.Gpi = np.einsum("fkl,jl->jkf", _WRENCH_BASIS, P)[:, [0, 3, 1, 4, 2, 5]]


def _joint_array(robot: SerialRobot, name: str, x: Any) -> tuple[np.ndarray, bool]:
    """Check a joint-space array: (n,) -> ((1, n), True) or (N, n) -> ((N, n), False)."""
    if not isinstance(robot, SerialRobot):
        raise TypeError(f"robot must be a SerialRobot, got {type(robot).__name__}")
    arr = as_array(name, x, ndim=(1, 2))
    if arr.shape[-1] != robot.n:
        raise ValueError(
            f"{name} must have shape ({robot.n},) or (N, {robot.n}) for the {robot.n} joints of "
            f"robot {robot.name!r}, got {arr.shape}"
        )
    if arr.ndim == 1:
        return arr[None, :], True
    return arr, False


def _joint_rotations(robot: SerialRobot, q: np.ndarray, i: int) -> tuple[np.ndarray, np.ndarray]:
    """Rotation (N, 3, 3) and origin (N, 3) of link i in link i-1 for the samples q (N, n)."""
    k = robot._kin
    N = q.shape[0]
    if k.prismatic[i]:
        return np.broadcast_to(k.R0[i], (N, 3, 3)), k.p0[i] + q[:, i, None] * k.R0e[i]
    s, c1 = np.sin(q[:, i])[:, None, None], (1.0 - np.cos(q[:, i]))[:, None, None]
    return k.R0[i] + s * k.RK[i] + c1 * k.RK2[i], np.broadcast_to(k.p0[i], (N, 3))


def forward_kinematics(robot: SerialRobot, q: ArrayLike) -> np.ndarray:
    """Poses of all link frames in the base frame.

    Parameters
    ----------
    robot : SerialRobot
    q : array_like, shape (n,) or (N, n)
        Joint positions (rad or m).

    Returns
    -------
    numpy.ndarray, shape (n, 4, 4) or (N, n, 4, 4)
        ``T[k, i]`` is the pose of link ``i`` for sample ``k``.

    Raises
    ------
    ValueError
        Wrong shape (joint count not matching the robot) or NaN/inf.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.models.planar_2r import planar_2r
    >>> r = planar_2r()
    >>> T = forward_kinematics(r, [0.0, np.pi / 2])
    >>> T.shape, bool(np.allclose(T[1, :3, 3], [r.joint_origins[1, 0, 3], 0, 0]))
    ((2, 4, 4), True)
    """
    q, single = _joint_array(robot, "q", q)
    N = q.shape[0]
    out = np.empty((N, robot.n, 4, 4))
    R, p = np.broadcast_to(np.eye(3), (N, 3, 3)), np.zeros((N, 3))
    for i in range(robot.n):
        Ri, pi = _joint_rotations(robot, q, i)
        p = p + np.einsum("nij,nj->ni", R, pi)
        R = R @ Ri
        out[:, i] = homogeneous(R, p)
    return out[0] if single else out


# ---------------------------------------------------------------------- URDF
_MOVABLE = {"revolute": "revolute", "continuous": "revolute", "prismatic": "prismatic"}
_KNOWN_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar")


def _floats(text: str | None, k: int, what: str, default: Sequence[float] | None = None) -> np.ndarray:
    if text is None:
        if default is None:
            raise ValueError(f"URDF: {what} is missing")
        return np.array(default, dtype=float)
    try:
        vals = np.array([float(t) for t in text.split()], dtype=float)
    except ValueError:
        raise ValueError(f"URDF: {what} must be {k} number(s), got {text!r}") from None
    if vals.size != k or not np.all(np.isfinite(vals)):
        raise ValueError(f"URDF: {what} must be {k} finite number(s), got {text!r}")
    return vals


def _origin(elem: ET.Element | None, what: str) -> np.ndarray:
    if elem is None:
        return np.eye(4)
    xyz = _floats(elem.get("xyz"), 3, f"{what} <origin xyz>", (0.0, 0.0, 0.0))
    rpy = _floats(elem.get("rpy"), 3, f"{what} <origin rpy>", (0.0, 0.0, 0.0))
    return homogeneous(rpy_to_matrix(rpy), xyz)


class _Refused(Exception):
    """A DTD or an entity met by the parser (raised from its handlers, turned into a ValueError)."""


def _parse_xml(text: str) -> ET.Element:
    """An element tree from XML text, refusing any DTD and entity declaration explicitly.

    URDF needs neither; a DTD can declare entities that expand to gigabytes ("billion laughs")
    or read files ("external entities"). Rather than rely on the protections of the expat
    library the system has, the parser stops at the first ``<!DOCTYPE``, entity declaration or
    external reference (Python's own ``xml.etree`` would expand internal entities).
    """
    import xml.parsers.expat

    parser = xml.parsers.expat.ParserCreate()
    builder = ET.TreeBuilder()

    def refuse(what: str):
        def handler(*args: Any) -> None:
            raise _Refused(what)
        return handler

    parser.StartDoctypeDeclHandler = refuse("a DTD (<!DOCTYPE ...>)")
    parser.EntityDeclHandler = refuse("an entity declaration")
    parser.UnparsedEntityDeclHandler = refuse("an entity declaration")
    parser.ExternalEntityRefHandler = refuse("an external entity")
    parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartElementHandler = builder.start
    parser.EndElementHandler = builder.end
    parser.CharacterDataHandler = builder.data
    parser.buffer_text = True
    try:
        parser.Parse(text, True)
    except _Refused as exc:
        raise ValueError(f"source must be a URDF without DTD or entities; it holds {exc} (refused: "
                         "entities can expand without bound or read other files)") from None
    except xml.parsers.expat.ExpatError as exc:
        raise ValueError(f"source is not well-formed XML: {exc}") from None
    return builder.close()


def _read_urdf(source: Any) -> ET.Element:
    if isinstance(source, os.PathLike):
        source = os.fspath(source)
    if not isinstance(source, str):
        raise TypeError(f"source must be a path or URDF text, got {type(source).__name__}")
    if source.lstrip().startswith("<"):
        text = source
    else:
        if not os.path.isfile(source):
            raise ValueError(f"source must be a URDF file or the XML text itself; got {source!r}: no URDF file there")
        with open(source, encoding="utf-8") as fh:
            text = fh.read()
    root = _parse_xml(text)
    if root.tag != "robot":
        raise ValueError(f"URDF root element must be <robot>, got <{root.tag}>")
    return root


def _link_inertial(link: ET.Element, check: str = "refuse") -> np.ndarray:
    lname = link.get("name")
    inertial = link.find("inertial")
    if inertial is None:
        return np.zeros(10)
    what = f"link {lname!r} <inertial>"
    mass_el = inertial.find("mass")
    if mass_el is None:
        raise ValueError(f"URDF: {what} has no <mass>")
    m = _floats(mass_el.get("value"), 1, f"{what} <mass value>")[0]
    if m < 0:
        raise ValueError(f"URDF: {what} has a negative mass {m}")
    T = _origin(inertial.find("origin"), what)
    ie = inertial.find("inertia")
    if ie is None:
        raise ValueError(f"URDF: {what} has no <inertia>")
    vals = [
        _floats(ie.get(k), 1, f"{what} <inertia {k}>")[0] for k in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")
    ]
    _check_inertia(lname, inertia_matrix(vals), check)
    Ic = T[:3, :3] @ inertia_matrix(vals) @ T[:3, :3].T
    return _link_params(m, T[:3, 3], Ic, about="com")


#: Relative tolerance of the inertia checks of from_urdf: the decimals a URDF prints (five
#: significant digits or more) round the principal moments by less than this share of the largest.
INERTIA_RTOL = 1e-5


def _check_inertia(lname: str | None, I: np.ndarray, check: str) -> None:
    """Refuse (or warn about) a rotational inertia no rigid body has: a negative principal moment
    (the mass matrix may then be indefinite) or principal moments that break the triangle
    inequalities ``I1 + I2 >= I3`` (for every ordering)."""
    lam = np.linalg.eigvalsh(0.5 * (I + I.T))
    tol = INERTIA_RTOL * max(float(np.abs(lam).max()), 0.0)
    problems = []
    if lam[0] < -tol:
        problems.append(f"a negative principal moment {lam[0]:.6g} kg m^2 (principal moments "
                        f"{', '.join(f'{v:.6g}' for v in lam)}): the inertia is not positive semi-definite")
    elif lam[0] + lam[1] < lam[2] - tol:
        problems.append(f"principal moments {', '.join(f'{v:.6g}' for v in lam)} kg m^2 that break the triangle "
                        f"inequality I1 + I2 >= I3 by {lam[2] - lam[0] - lam[1]:.3g} "
                        f"({(lam[2] - lam[0] - lam[1]) / lam[2]:.2%} of I3)")
    if not problems:
        return
    msg = (f"URDF: link {lname!r} has {problems[0]}; no rigid body has this inertia (tolerance "
           f"{INERTIA_RTOL:g} of the largest moment)")
    if check == "refuse":
        raise ValueError(msg + "; correct the file, or load it with inertia_check='warn' to use it as it is")
    import warnings

    warnings.warn(msg + "; loaded as it is (inertia_check='warn')", UserWarning, stacklevel=5)


def _limit_value(lim: ET.Element, key: str, joint: str, default: float) -> float:
    """A speed, effort or acceleration bound of ``<limit>``: missing or 0 -> default, DBL_MAX -> inf."""
    v = _floats(lim.get(key), 1, f"joint {joint!r} <limit {key}>", (0.0,))[0]
    if v < 0:
        raise ValueError(f"URDF: joint {joint!r} has <limit {key}={v}>; expected a bound >= 0 (0: none given)")
    if v == 0:
        return default
    return math.inf if v >= _URDF_INF else v


def _file_gravity(root: ET.Element) -> np.ndarray:
    """Gravity of the ``<robidlib gravity="x y z"/>`` element written by to_urdf, else the default."""
    el = root.find("robidlib")
    if el is None or el.get("gravity") is None:
        return np.array([0.0, 0.0, -9.81])
    return _floats(el.get("gravity"), 3, "<robidlib gravity>")


def _from_urdf(cls, source, base_link, tip_link, lock_joints, gravity, name, inertia_check) -> SerialRobot:
    check_choice("inertia_check", inertia_check, ("refuse", "warn"))
    root = _read_urdf(source)
    links: dict[str, ET.Element] = {}
    for el in root.findall("link"):
        lname = el.get("name")
        if not lname:
            raise ValueError("URDF: a <link> has no name")
        if lname in links:
            raise ValueError(f"URDF: link {lname!r} is defined twice")
        links[lname] = el
    joints: dict[str, dict[str, Any]] = {}
    children: dict[str, list[str]] = {k: [] for k in links}
    parent_of: dict[str, str] = {}
    for el in root.findall("joint"):
        jname = el.get("name")
        if not jname:
            raise ValueError("URDF: a <joint> has no name")
        if jname in joints:
            raise ValueError(f"URDF: joint {jname!r} is defined twice")
        jtype = el.get("type")
        if jtype not in _KNOWN_TYPES:
            raise ValueError(f"URDF: joint {jname!r} has unknown type {jtype!r}; expected one of {_KNOWN_TYPES}")
        ends = {}
        for tag in ("parent", "child"):
            e = el.find(tag)
            if e is None or not e.get("link"):
                raise ValueError(f"URDF: joint {jname!r} has no <{tag} link=...>")
            if e.get("link") not in links:
                raise ValueError(f"URDF: joint {jname!r} refers to the missing link {e.get('link')!r} ({tag})")
            ends[tag] = e.get("link")
        if ends["child"] in parent_of:
            raise ValueError(
                f"URDF: link {ends['child']!r} is the child of two joints ({parent_of[ends['child']]!r} and {jname!r})"
            )
        parent_of[ends["child"]] = jname
        joints[jname] = dict(el=el, type=jtype, parent=ends["parent"], child=ends["child"])
        children[ends["parent"]].append(jname)

    if not links:
        raise ValueError("URDF: the robot has no <link>; expected at least one (is it an unexpanded xacro file?)")
    roots = [k for k in links if k not in parent_of]
    if len(roots) != 1:
        if not roots:
            raise ValueError("URDF: the joints form a cycle (no root link)")
        raise ValueError(f"URDF: the links do not form one tree; root links {roots}")
    if base_link is None:
        base_link = roots[0]
    elif base_link not in links:
        raise ValueError(f"base_link {base_link!r} is not a link of the URDF")
    if tip_link is not None and tip_link not in links:
        raise ValueError(f"tip_link {tip_link!r} is not a link of the URDF")
    if isinstance(lock_joints, str):
        lock_joints = (lock_joints,)
    try:
        locked = set(lock_joints)
    except TypeError:
        raise TypeError(f"lock_joints must be joint names (an iterable of str), got {type(lock_joints).__name__}") from None
    bad = [jn for jn in locked if not isinstance(jn, str)]
    if bad:
        raise TypeError(f"lock_joints must hold joint names (str), got {type(bad[0]).__name__} {bad[0]!r}")
    for jn in locked:
        if jn not in joints or joints[jn]["type"] not in _MOVABLE:
            raise ValueError(f"lock_joints entry {jn!r} is not a revolute, continuous or prismatic joint of the URDF")

    def movable(jn: str) -> bool:
        return joints[jn]["type"] != "fixed" and jn not in locked

    # links below which a movable joint hangs: children before parents (an explicit stack, no
    # recursion: a chain of thousands of fixed joints, as exporters write, is fine)
    below: dict[str, bool] = {}
    order, todo = [], [roots[0]]
    while todo:
        link = todo.pop()
        order.append(link)
        todo.extend(joints[j]["child"] for j in children[link])
    for link in reversed(order):
        below[link] = any(movable(j) or below[joints[j]["child"]] for j in children[link])

    def has_movable(link: str) -> bool:
        return below[link]

    path: set[str] = set()
    if tip_link is not None:
        node = tip_link
        while node != base_link:
            if node not in parent_of:
                raise ValueError(f"tip_link {tip_link!r} is not below base_link {base_link!r}")
            path.add(node)
            node = joints[parent_of[node]]["parent"]

    bodies: list[list[tuple[str, np.ndarray]]] = [[]]
    chain: list[tuple[str, np.ndarray]] = []

    def check_joint(jn: str) -> None:
        j = joints[jn]
        if j["type"] in ("floating", "planar"):
            raise ValueError(
                f"URDF: joint {jn!r} is {j['type']}; robidlib models fixed-base chains of revolute and prismatic joints"
            )
        if j["el"].find("mimic") is not None:
            raise ValueError(f"URDF: joint {jn!r} is a mimic joint, which is not supported; pass it in lock_joints")

    # iterative depth-first walk: (link, body index, pose of link in body frame, beyond tip)
    stack: list[tuple[str, int, np.ndarray, bool]] = [(base_link, 0, np.eye(4), False)]
    while stack:
        link, body, T, beyond = stack.pop()
        bodies[body].append((link, T))
        cont: list[str] = []
        for jn in children[link]:
            j = joints[jn]
            Tj = T @ _origin(j["el"].find("origin"), f"joint {jn!r}")
            if beyond or (tip_link is not None and link == tip_link):
                if not movable(jn):
                    stack.append((j["child"], body, Tj, True))
                continue  # movable joints beyond the tip are dropped with their links
            on_path = j["child"] in path if tip_link is not None else (movable(jn) or has_movable(j["child"]))
            if on_path:
                cont.append(jn)
            elif movable(jn) or has_movable(j["child"]):
                cont.append(jn)  # a second movable branch off the path: reported below
            else:
                stack.append((j["child"], body, Tj, False))
        if len(cont) > 1:
            branches = ", ".join(f"joint {jn!r} -> link {joints[jn]['child']!r}" for jn in cont)
            raise ValueError(
                f"URDF: the tree branches at link {link!r} into several chains with movable joints "
                f"({branches}); choose one with tip_link=... or fix the others with lock_joints=[...]"
            )
        if cont:
            jn = cont[0]
            j = joints[jn]
            Tj = T @ _origin(j["el"].find("origin"), f"joint {jn!r}")
            if movable(jn):
                check_joint(jn)
                chain.append((jn, Tj))
                bodies.append([])
                stack.append((j["child"], len(bodies) - 1, np.eye(4), False))
            else:
                stack.append((j["child"], body, Tj, False))

    if not chain:
        raise ValueError(f"URDF: no movable joint below base_link {base_link!r}")
    n = len(chain)
    types, origins, axes, fric = [], [], [], []
    ql, qdl, qddl, taul = [], [], [], []
    for jn, Tj in chain:
        j = joints[jn]
        el = j["el"]
        jt = _MOVABLE[j["type"]]
        types.append(jt)
        origins.append(Tj)
        ax_el = el.find("axis")
        ax = _floats(None if ax_el is None else ax_el.get("xyz"), 3, f"joint {jn!r} <axis xyz>", (1.0, 0.0, 0.0))
        nrm = np.linalg.norm(ax)
        if nrm == 0.0:
            raise ValueError(f"URDF: joint {jn!r} has a zero axis")
        if abs(nrm - 1.0) > 1e-6:
            raise ValueError(f"URDF: joint {jn!r} axis must be a unit vector (within 1e-6), got {ax.tolist()} of norm {nrm:.9g}")
        axes.append(ax / nrm)
        dflt = DEFAULT_LIMITS[jt]
        lim = el.find("limit")
        lo, hi = dflt["q"]
        vel, eff, acc = dflt["qd"], dflt["tau"], dflt["qdd"]
        if lim is not None:
            if j["type"] != "continuous" and lim.get("lower") is not None and lim.get("upper") is not None:
                lo_, hi_ = (_floats(lim.get(k), 1, f"joint {jn!r} <limit {k}>")[0] for k in ("lower", "upper"))
                if not lo_ == hi_ == 0.0:              # all zero: an exporter's "no limit"
                    if not lo_ < hi_:
                        raise ValueError(
                            f"URDF: joint {jn!r} has <limit lower={lo_}> not below upper={hi_} "
                            "(only the all-zero lower = upper = 0 means 'no position limit')"
                        )
                    lo, hi = lo_, hi_
            vel, eff, acc = (_limit_value(lim, key, jn, d) for key, d in
                             (("velocity", vel), ("effort", eff), ("acceleration", acc)))
        ql.append((lo, hi))
        qdl.append(vel)
        qddl.append(acc)
        taul.append(eff)
        dyn = el.find("dynamics")
        fv = fc = 0.0
        if dyn is not None:
            fv = _floats(dyn.get("damping"), 1, f"joint {jn!r} <dynamics damping>", (0.0,))[0]
            fc = _floats(dyn.get("friction"), 1, f"joint {jn!r} <dynamics friction>", (0.0,))[0]
        fric.append((fv, fc))

    params = np.zeros((n, 10))
    for k in range(1, n + 1):
        for link, T in bodies[k]:
            params[k - 1] += transform_params(_link_inertial(links[link], inertia_check), T[:3, :3], T[:3, 3])
    return cls(
        types,
        np.array(origins),
        np.array(axes),
        params.ravel(),
        friction=np.array(fric),
        gravity=_file_gravity(root) if gravity is None else gravity,
        joint_names=[jn for jn, _ in chain],
        link_names=[joints[jn]["child"] for jn, _ in chain],
        q_limits=np.array(ql),
        qd_limits=np.array(qdl),
        qdd_limits=np.array(qddl),
        tau_limits=np.array(taul),
        name=root.get("name", "robot") if name is None else name,
    )
