"""The identification model of an arm with its drives: rigid bodies, friction, rotors.

The joint torques of an arm driven through a :class:`~robidlib.identification.drives.Transmission`
are linear in one parameter vector ``x`` (Khalil and Dombre's drive model)::

    tau = Y(q, qd, qdd) pi                                   rigid bodies, 10 per link
        + FV_j qd_j + FS_j sign(qd_j) + OFF_j                 friction and offset, per joint
        + IA_j qdd_j                                          rotor inertia, per joint
        + sum over coupled motors k of r_k (IAM_k (r_k . qdd) + FVM_k (r_k . qd)
                                            + FSM_k sign(r_k . qd))

(``r_k`` as in :mod:`~robidlib.identification.drives`). ``OFF_j`` absorbs a constant offset of
the current or torque signal. For an uncoupled motor the motor terms coincide with the joint
terms, so only coupled motors get their own columns; on the TX40 these are motor 6's
``IAM6, FVM6, FSM6``, acting on ``qdd5 + qdd6`` and ``qd5 + qd6`` in joints 5 and 6.
On measured velocities the sign becomes its expectation under the velocity noise
(``velocity_noise`` of :meth:`DriveModel.regressor`), so that round-off never decides it.

Column order (the parameter vector): the ``10 n`` standard parameters of the GUIDE
(``m1, mx1, ..., Iyz6``), then per joint ``fv_j, fc_j, off_j``, then ``Ia_1 ... Ia_n``, then per
coupled motor ``Iam_k, fvm_k, fcm_k``. :attr:`DriveModel.khalil_names` names the same columns
as Khalil does (``M1, MX1, ..., ZZ6, FV1, FS1, OFF1, IA1, IAM6, FVM6, FSM6``), so that the
base parameters of QR regrouping read ``ZZ1R, MX2R, FV1, ...``.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import scipy.special
from numpy.typing import ArrayLike

from .._validate import as_array, check_int, check_positive, check_rng, check_tolerance
from ..base import BaseParameters, base_parameters, random_states
from ..regressor import regressor as _rigid_regressor
from ..robot import SerialRobot
from .drives import Transmission

__all__ = ["DriveModel", "khalil_name"]

_KHALIL = {"m": "M", "mx": "MX", "my": "MY", "mz": "MZ", "Ixx": "XX", "Iyy": "YY", "Izz": "ZZ",
           "Ixy": "XY", "Ixz": "XZ", "Iyz": "YZ", "fv": "FV", "fc": "FS", "off": "OFF", "Ia": "IA",
           "Iam": "IAM", "fvm": "FVM", "fcm": "FSM"}


def khalil_name(name: str) -> str:
    """Khalil's name of a parameter named by robidlib: ``Izz1 -> ZZ1``, ``fc2 -> FS2``, ``Iam6 -> IAM6``.

    Parameters
    ----------
    name : str
        A robidlib name: a standard parameter (``m1``, ``mx1``, ..., ``Iyz1``), a friction,
        offset or rotor name of :class:`DriveModel` (``fv1, fc1, off1, Ia1, Iam6, fvm6, fcm6``).

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If the name is not of that form.

    Examples
    --------
    >>> [khalil_name(s) for s in ("Izz1", "mx2", "fc3", "Ia4", "fcm6")]
    ['ZZ1', 'MX2', 'FS3', 'IA4', 'FSM6']
    """
    if not isinstance(name, str):
        raise ValueError(f"name must be a string such as 'Izz1', got {name!r}")
    stem = name.rstrip("0123456789")
    digits = name[len(stem):]
    if not digits or stem not in _KHALIL:
        raise ValueError(f"unknown parameter name {name!r}; expected e.g. 'm1', 'Izz2', 'fv3', 'Ia4' or 'Iam6'")
    return _KHALIL[stem] + digits


def _velocity_noise(velocity_noise: ArrayLike, n: int) -> np.ndarray:
    """``velocity_noise`` as an array (n,) of finite, non-negative standard deviations."""
    if np.ndim(velocity_noise) == 0:
        s = np.full(n, float(as_array("velocity_noise", velocity_noise)))
    else:
        s = as_array("velocity_noise", velocity_noise, shape=(n,))
    if np.any(s < 0):
        raise ValueError(f"velocity_noise must be >= 0 (a standard deviation, rad/s or m/s), got {s.tolist()}")
    return s


def _coulomb_sign(v: np.ndarray, noise: np.ndarray | float) -> np.ndarray:
    """``erf(v / (sqrt(2) noise))`` where ``noise > 0``, ``sign(v)`` where it is 0.

    With Gaussian noise of standard deviation ``noise`` on a measured velocity ``v`` (and no
    preference for either sign), the true velocity is positive with probability
    ``Phi(v / noise)``, so its expected sign is ``2 Phi(v / noise) - 1 = erf(v / (sqrt(2) noise))``.

    >>> _coulomb_sign(np.array([3e-3, -1e-12, 0.0, -1e-3]), 1e-3).round(4).tolist()
    [0.9973, -0.0, 0.0, -0.6827]
    """
    noise = np.asarray(noise, dtype=float)
    scale = np.sqrt(2.0) * np.where(noise > 0, noise, 1.0)
    return np.where(noise > 0, scipy.special.erf(v / scale), np.sign(v))


class DriveModel:
    """Regressor of an arm with friction, offsets, rotor inertias and coupled motors.

    Parameters
    ----------
    robot : SerialRobot
        Kinematics and gravity (its inertial parameters are only used by :meth:`pack`).
    transmission : Transmission, optional
        Default: one motor per joint with gear ratio 1 (no coupling).
    friction : sequence of {'viscous', 'coulomb'}, default ('viscous', 'coulomb')
        Joint friction terms.
    offset : bool, default True
        A constant torque offset per joint.
    rotor_inertia : bool, default True
        A rotor inertia ``IA_j`` per joint (acting on ``qdd_j``).
    coupled_motors : bool, default True
        ``IAM_k, FVM_k, FSM_k`` for every coupled motor of the transmission (Coulomb only
        when ``'coulomb'`` is in ``friction``, viscous only when ``'viscous'`` is).

    Attributes
    ----------
    robot, transmission
    n : int
    p : int
        Number of columns.
    names, khalil_names : tuple of str
        Column names (robidlib's and Khalil's).
    blocks : dict
        ``{"inertial", "friction", "rotor", "coupled"}`` -> index arrays of the columns.

    Raises
    ------
    ValueError
        A transmission of another size than the robot, an unknown friction term.
    TypeError
        ``robot`` not a SerialRobot or ``transmission`` not a Transmission.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.models import planar_2r
    >>> R = np.diag([50.0, 30.0]); R[1, 0] = 30.0          # motor 2 turns with q1 + q2
    >>> model = DriveModel(planar_2r(), Transmission(R))
    >>> model.p, model.khalil_names[20:23], model.khalil_names[-3:]
    (31, ('FV1', 'FS1', 'OFF1'), ('IAM2', 'FVM2', 'FSM2'))
    """

    def __init__(
        self,
        robot: SerialRobot,
        transmission: Transmission | None = None,
        *,
        friction: Sequence[str] = ("viscous", "coulomb"),
        offset: bool = True,
        rotor_inertia: bool = True,
        coupled_motors: bool = True,
    ) -> None:
        if not isinstance(robot, SerialRobot):
            raise TypeError(f"robot must be a SerialRobot, got {type(robot).__name__}")
        n = robot.n
        if transmission is None:
            transmission = Transmission(np.eye(n))
        if not isinstance(transmission, Transmission):
            raise TypeError(f"transmission must be a Transmission, got {type(transmission).__name__}")
        if transmission.n != n:
            raise ValueError(f"transmission has {transmission.n} motors but the robot has {n} joints")
        if isinstance(friction, str):
            friction = (friction,)
        terms = tuple(friction)
        for term in terms:
            if term not in ("viscous", "coulomb"):
                raise ValueError(f"unknown friction term {term!r}; expected 'viscous' and/or 'coulomb'")
        if len(set(terms)) != len(terms):
            raise ValueError(f"friction terms must not repeat, got {terms}")
        for name, flag in (("offset", offset), ("rotor_inertia", rotor_inertia), ("coupled_motors", coupled_motors)):
            if not isinstance(flag, (bool, np.bool_)):
                raise TypeError(f"{name} must be a bool, got {type(flag).__name__}")
        self.robot = robot
        self.transmission = transmission
        self.friction_terms = terms
        self.offset = bool(offset)
        self.rotor_inertia = bool(rotor_inertia)
        self.coupled_indices = np.flatnonzero(transmission.coupled) if coupled_motors else np.zeros(0, int)
        names = list(robot.param_names)
        blocks: dict[str, list[int]] = {"inertial": list(range(10 * n)), "friction": [], "rotor": [], "coupled": []}
        per_joint = [("fv" if t == "viscous" else "fc") for t in terms] + (["off"] if self.offset else [])
        for j in range(n):
            for stem in per_joint:
                blocks["friction"].append(len(names))
                names.append(f"{stem}{j + 1}")
        if self.rotor_inertia:
            for j in range(n):
                blocks["rotor"].append(len(names))
                names.append(f"Ia{j + 1}")
        motor_terms = ["Iam"] + [("fvm" if t == "viscous" else "fcm") for t in terms]
        for k in self.coupled_indices:
            for stem in motor_terms:
                blocks["coupled"].append(len(names))
                names.append(f"{stem}{k + 1}")
        self.names = tuple(names)
        self.khalil_names = tuple(khalil_name(s) for s in names)
        self.blocks = {k: np.array(v, dtype=int) for k, v in blocks.items()}
        self._per_joint = per_joint
        self._motor_terms = motor_terms

    @property
    def n(self) -> int:
        """Number of joints."""
        return self.robot.n

    @property
    def p(self) -> int:
        """Number of columns of the regressor."""
        return len(self.names)

    def __repr__(self) -> str:
        return (
            f"DriveModel(robot={self.robot.name!r}, p={self.p}, friction={self.friction_terms}, "
            f"offset={self.offset}, rotor_inertia={self.rotor_inertia}, "
            f"coupled_motors={(self.coupled_indices + 1).tolist()})"
        )

    def structure(self) -> np.ndarray:
        """Which columns can be non-zero in which joint's row, shape (n, p), bool.

        Link ``j``'s ten columns reach the joints ``i <= j`` (a serial chain); a joint's
        friction, offset and rotor columns only its own row; a coupled motor's columns the
        joints it turns with. Used to filter only the columns that can be non-zero.
        """
        n, S = self.n, np.zeros((self.n, self.p), dtype=bool)
        for j in range(n):
            S[: j + 1, 10 * j: 10 * j + 10] = True
        k = len(self._per_joint)
        for j in range(n):
            S[j, self.blocks["friction"][k * j: k * j + k]] = True
            if self.rotor_inertia:
                S[j, self.blocks["rotor"][j]] = True
        m = len(self._motor_terms)
        for c, motor in enumerate(self.coupled_indices):
            rows = self.transmission.motor_rows[motor] != 0
            S[np.ix_(rows, self.blocks["coupled"][m * c: m * c + m])] = True
        return S

    def regressor(
        self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, *, velocity_noise: ArrayLike = 0.0
    ) -> np.ndarray:
        """The model's regressor: ``regressor(q, qd, qdd) @ x`` is the joint torque.

        Parameters
        ----------
        q, qd, qdd : array_like, shape (N, n) or (n,)
        velocity_noise : float or array_like, shape (n,), default 0
            Standard deviation ``s`` (rad/s or m/s) of the noise of measured velocities. The
            Coulomb columns are then ``erf(v / (sqrt(2) s))`` instead of ``sign(v)``: the
            expected sign of the true velocity given the measured ``v`` and Gaussian noise
            (equal to the sign beyond ``3 s``, continuous through zero, so that round-off
            cannot flip it at a joint at rest). Joint ``j``'s velocity uses ``s[j]``, a
            coupled motor ``k``'s velocity ``r_k . qd`` (in joint-``k`` units) ``s[k]``.
            0 gives the exact sign (``sign(0) = 0``), for exact velocities;
            :func:`~robidlib.identification.preprocess.prepare` measures ``s`` on the record.

        Returns
        -------
        numpy.ndarray, shape (N, n, p) or (n, p)

        Raises
        ------
        ValueError
            Shapes that do not match each other or the robot, NaN/inf, a negative
            ``velocity_noise`` or one of the wrong shape.

        Examples
        --------
        >>> import numpy as np
        >>> from robidlib.models import planar_2r
        >>> model = DriveModel(planar_2r())
        >>> Y = model.regressor(np.zeros(2), [1.0, -2.0], [0.5, 0.0])
        >>> Y.shape, float(Y[1, model.names.index("fc2")]), float(Y[0, model.names.index("Ia1")])
        ((2, 28), -1.0, 0.5)
        >>> Y = model.regressor(np.zeros(2), [1.0, -1e-12], np.zeros(2), velocity_noise=1e-3)
        >>> float(Y[0, model.names.index("fc1")]), bool(abs(Y[1, model.names.index("fc2")]) < 1e-6)
        (1.0, True)
        """
        Yr = _rigid_regressor(self.robot, q, qd, qdd)          # validates the shapes
        noise = _velocity_noise(velocity_noise, self.n)
        single = Yr.ndim == 2
        Yr = Yr[None] if single else Yr
        qd2 = np.atleast_2d(np.asarray(qd, dtype=float))
        qdd2 = np.atleast_2d(np.asarray(qdd, dtype=float))
        N, n = qd2.shape
        Y = np.zeros((N, n, self.p))
        Y[:, :, : 10 * n] = Yr
        cols = {"fv": qd2, "fc": _coulomb_sign(qd2, noise), "off": np.ones_like(qd2)}
        k = len(self._per_joint)
        idx = np.arange(n)
        for c, stem in enumerate(self._per_joint):
            Y[:, idx, self.blocks["friction"][c::k]] = cols[stem]
        if self.rotor_inertia:
            Y[:, idx, self.blocks["rotor"]] = qdd2
        m = len(self._motor_terms)
        for c, motor in enumerate(self.coupled_indices):
            r = self.transmission.motor_rows[motor]
            v, a = qd2 @ r, qdd2 @ r
            values = {"Iam": a, "fvm": v, "fcm": _coulomb_sign(v, noise[motor])}
            for t, stem in enumerate(self._motor_terms):
                Y[:, :, self.blocks["coupled"][m * c + t]] = values[stem][:, None] * r
        return Y[0] if single else Y

    def pack(
        self,
        params: ArrayLike | None = None,
        *,
        friction: ArrayLike | None = None,
        offsets: ArrayLike | None = None,
        rotor: ArrayLike | None = None,
        motors: ArrayLike | None = None,
    ) -> np.ndarray:
        """Assemble a parameter vector in the model's column order.

        Parameters
        ----------
        params : array_like, shape (10 n,), optional
            Standard inertial parameters (default ``robot.params``).
        friction : array_like, shape (n, len(friction_terms)), optional
            Joint friction per joint, in the order of ``friction_terms`` (default zeros).
        offsets : array_like, shape (n,), optional
        rotor : array_like, shape (n,), optional
            ``IA_j``.
        motors : array_like, shape (number of coupled motors, len(friction_terms) + 1), optional
            ``[IAM_k, FVM_k, FSM_k]`` per coupled motor (terms as in ``friction_terms``).

        Returns
        -------
        numpy.ndarray, shape (p,)

        Raises
        ------
        ValueError
            Wrong shapes, NaN/inf, or a value given for a block the model does not have.

        Examples
        --------
        >>> from robidlib.models import planar_2r
        >>> model = DriveModel(planar_2r())
        >>> x = model.pack(friction=[[0.5, 0.1], [0.2, 0.05]], rotor=[0.01, 0.02])
        >>> float(x[model.names.index("fc2")]), float(x[model.names.index("Ia2")])
        (0.05, 0.02)
        """
        n, k = self.n, len(self.friction_terms)
        x = np.zeros(self.p)
        x[: 10 * n] = self.robot.params if params is None else as_array("params", params, shape=(10 * n,))
        fr_cols = [c for c, s in enumerate(self._per_joint) if s in ("fv", "fc")]
        off_col = self._per_joint.index("off") if self.offset else None
        width = len(self._per_joint)
        fb = self.blocks["friction"].reshape(n, width) if width else np.zeros((n, 0), int)
        if friction is not None:
            fr = as_array("friction", friction, shape=(n, k))
            x[fb[:, fr_cols]] = fr
        if offsets is not None:
            if off_col is None:
                raise ValueError("offsets given but the model has no offset columns (offset=False)")
            x[fb[:, off_col]] = as_array("offsets", offsets, shape=(n,))
        if rotor is not None:
            if not self.rotor_inertia:
                raise ValueError("rotor given but the model has no rotor-inertia columns (rotor_inertia=False)")
            x[self.blocks["rotor"]] = as_array("rotor", rotor, shape=(n,))
        if motors is not None:
            nm = len(self.coupled_indices)
            if nm == 0:
                raise ValueError("motors given but the model has no coupled motor")
            x[self.blocks["coupled"]] = as_array("motors", motors, shape=(nm, k + 1)).ravel()
        return x

    def base_parameters(self, samples: int | None = None, rng: np.random.Generator | int = 0, *,
                        rtol: float | None = None) -> BaseParameters:
        """Base parameters by QR regrouping, from random states (a property of the model).

        The regressor is stacked over ``samples`` random states within the robot's limits
        (:func:`robidlib.base.random_states`) and :func:`robidlib.base.base_parameters`
        chooses the independent columns in column order: link 1 first, so that parameters of
        the later links (and the drive terms, which come after every link) regroup into those
        before them. Which ones regroup depends on the link frames. In modified
        Denavit-Hartenberg frames (``z_j`` along joint ``j``'s axis, ``x_j`` along the common
        normal) the result is Khalil's rules: ``YY_j, MZ_j, M_j`` regroup into the previous
        links' parameters and the rotor inertia ``IA1`` into ``ZZ1`` (a rotor turns about the
        joint axis, ``z_1``). With other frames, such as a URDF whose first joint turns about
        its link frame's ``y`` axis, the same physics regroups other names (``IA1`` then joins
        the ``YY1`` column): read ``relations`` rather than assuming the modified-DH names.
        Names are :attr:`khalil_names` (``ZZ1R, MX2R, FV1, ...``).

        Parameters
        ----------
        samples : int, optional
            Number of random states (default ``max(50, 2 p)``).
        rng : numpy.random.Generator or int, default 0
        rtol : float, optional
            Rank tolerance relative to the largest singular value of the stacked regressor
            (default: :func:`robidlib.base.base_parameters`'s round-off level,
            ``max(rows, p) * eps``). A URDF whose angles are rounded (``rpy="1.5708 ..."``)
            breaks exact regroupings by round-off-sized amounts that this default counts as
            rank; ``rtol=1e-8`` treats them as the dependencies they are (``robidlib-identify``
            uses it).

        Returns
        -------
        BaseParameters

        Raises
        ------
        ValueError
            A number of samples outside ``[1, 1e7]``, an ``rtol`` outside ``(0, 1)``.
        TypeError
            ``samples`` not an int, ``rng`` neither a Generator nor an int.

        Examples
        --------
        >>> from robidlib.models import planar_2r
        >>> bp = DriveModel(planar_2r()).base_parameters()
        >>> bp.rank, bp.base_names[:3]
        (13, ('MX1R', 'MY1', 'ZZ1R'))
        """
        samples = max(50, 2 * self.p) if samples is None else check_int("samples", samples, 1, 10**7)
        tol = None
        if rtol is not None:
            rtol = check_tolerance("rtol", rtol)
            if rtol >= 1:
                raise ValueError(f"rtol must be in (0, 1) (a fraction of the largest singular value), got {rtol}")
        q, qd, qdd = random_states(self.robot, samples, check_rng(rng))
        W = self.regressor(q, qd, qdd).reshape(-1, self.p)
        if rtol is not None:
            tol = rtol * float(np.linalg.norm(W, 2))
        return base_parameters(W, names=self.khalil_names, tol=tol)

    def torques(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, x: ArrayLike) -> np.ndarray:
        """Joint torques ``regressor(q, qd, qdd) @ x``, shape (N, n) or (n,).

        Raises
        ------
        ValueError
            Wrong shapes or NaN/inf.
        """
        x = as_array("x", x, shape=(self.p,))
        return self.regressor(q, qd, qdd) @ x
