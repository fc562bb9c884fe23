"""Export an identified, physically consistent model to URDF and MJCF, checked by loading it back.

Only a physically consistent estimate is exported (every link's pseudo-inertia positive
semi-definite, :func:`robidlib.params.is_physically_consistent`): a simulator given anything
else either refuses it or integrates a body that cannot exist. What each format holds:

==============================  =========================  ===================================
identified term                  URDF                        MJCF
==============================  =========================  ===================================
mass, centre of mass, inertia    ``<inertial>``              ``<inertial fullinertia>``
viscous friction ``fv_j``        ``<dynamics damping>``      ``<joint damping>``
Coulomb friction ``fc_j``        ``<dynamics friction>``     ``<joint frictionloss>``
rotor inertia ``Ia_j``           (no place)                  ``<joint armature>``
offsets, coupled-motor terms     (no place)                  (no place)
==============================  =========================  ===================================

The exported chain is the identified one (the URDF's movable joints in ``joints``, other
links merged as in the identification); meshes and the rest of the robot are not copied.

:func:`check_export` loads each file back, robidlib's :meth:`SerialRobot.from_urdf` for the
URDF and MuJoCo's compiler for the MJCF (where ``mujoco`` is installed), computes the inverse
dynamics at seeded random states and compares them with the estimate's own prediction of the
same terms: the largest difference relative to the largest torque.
"""

from __future__ import annotations

import importlib.util
import math
import xml.etree.ElementTree as ET
from typing import Any

import numpy as np

from .._validate import as_array, check_int, check_rng
from ..params import is_physically_consistent, split_link_params
from ..robot import SerialRobot
from .model import DriveModel

__all__ = ["identified_robot", "to_mjcf", "check_export", "mujoco_available"]


def mujoco_available() -> bool:
    """True when the ``mujoco`` package can be imported (a test dependency of robidlib)."""
    return importlib.util.find_spec("mujoco") is not None


def identified_robot(model: DriveModel, x: Any) -> tuple[SerialRobot, np.ndarray]:
    """The robot of a full parameter vector: inertial parameters and joint friction; rotor inertias.

    Parameters
    ----------
    model : DriveModel
    x : array_like, shape (model.p,)
        Parameters in ``model.names`` order (e.g. the physically consistent estimate).

    Returns
    -------
    robot : SerialRobot
        ``model.robot`` with the identified standard parameters and ``[fv, fc]`` (zero for a
        term the model lacks).
    rotor : numpy.ndarray, shape (n,)
        ``Ia_j`` (zeros when the model has no rotor inertias).

    Raises
    ------
    ValueError
        A vector of the wrong length or NaN/inf; a link that is not physically consistent;
        negative friction or rotor inertia.
    TypeError
        ``model`` not a DriveModel.

    Examples
    --------
    >>> from robidlib.models import planar_2r
    >>> model = DriveModel(planar_2r())
    >>> robot, rotor = identified_robot(model, model.pack(friction=[[0.5, 0.1], [0.2, 0.05]], rotor=[0.01, 0.0]))
    >>> robot.friction.tolist(), rotor.tolist()
    ([[0.5, 0.1], [0.2, 0.05]], [0.01, 0.0])
    """
    if not isinstance(model, DriveModel):
        raise TypeError(f"model must be a DriveModel, got {type(model).__name__}")
    x = as_array("x", x, shape=(model.p,))
    n = model.n
    pi = x[: 10 * n]
    ok = is_physically_consistent(pi)
    if not ok:
        raise ValueError("x is not physically consistent (a link's pseudo-inertia is not positive "
                         "semi-definite): such an estimate is never exported")
    idx = {s: k for k, s in enumerate(model.names)}
    fr = np.zeros((n, 2))
    for j in range(n):
        for c, stem in enumerate(("fv", "fc")):
            k = idx.get(f"{stem}{j + 1}")
            if k is not None:
                fr[j, c] = x[k]
    if np.any(fr < 0):
        raise ValueError(f"x holds negative friction {fr.tolist()}: not physical, not exported")
    rotor = np.array([x[idx[f"Ia{j + 1}"]] if f"Ia{j + 1}" in idx else 0.0 for j in range(n)])
    if np.any(rotor < 0):
        raise ValueError(f"x holds negative rotor inertias {rotor.tolist()}: not physical, not exported")
    return model.robot.with_params(pi).with_friction(fr), rotor


def _num(v: float) -> str:
    return repr(float(v))


def _quat(R: np.ndarray) -> np.ndarray:
    """Unit quaternion (w, x, y, z) of a rotation matrix (Shepperd's method)."""
    tr = np.trace(R)
    if tr > 0:
        s = 2.0 * math.sqrt(tr + 1.0)
        q = [0.25 * s, (R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s]
    else:
        i = int(np.argmax(np.diag(R)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2.0 * math.sqrt(1.0 + R[i, i] - R[j, j] - R[k, k])
        q = [0.0] * 4
        q[0] = (R[k, j] - R[j, k]) / s
        q[1 + i] = 0.25 * s
        q[1 + j] = (R[j, i] + R[i, j]) / s
        q[1 + k] = (R[k, i] + R[i, k]) / s
    q = np.array(q)
    return q / np.linalg.norm(q)


def to_mjcf(robot: SerialRobot, rotor: Any = None, *, name: str | None = None) -> str:
    """The robot as an MJCF (MuJoCo XML) model: bodies, inertias, joints with friction and armature.

    Every link is a body at its joint's origin (``pos``, ``quat``); its inertia is given in
    full about the centre of mass (``fullinertia``; the compiler's options that would alter
    it are switched off: ``inertiafromgeom="false"``, ``balanceinertia="false"``, no mass or
    inertia bounds); viscous friction is ``damping``, Coulomb friction ``frictionloss``, the
    rotor inertia ``armature``; joint limits are ``range``. Gravity is the robot's.

    Parameters
    ----------
    robot : SerialRobot
        Physically consistent links with positive masses (MuJoCo refuses massless moving
        bodies).
    rotor : array_like, shape (n,), optional
        Rotor inertias ``Ia_j`` (``armature``); default zeros.
    name : str, optional
        Model name (default ``robot.name``).

    Returns
    -------
    str

    Raises
    ------
    ValueError
        A link with a non-positive mass, not physically consistent, or negative rotor
        inertias.
    TypeError
        ``robot`` not a SerialRobot, ``name`` not a string.

    Examples
    --------
    >>> from robidlib.models import planar_2r
    >>> xml = to_mjcf(planar_2r().with_friction(fv=[0.5, 0.2]), rotor=[0.01, 0.02])
    >>> 'damping="0.5"' in xml and 'armature="0.02"' in xml and "fullinertia" in xml
    True
    """
    if not isinstance(robot, SerialRobot):
        raise TypeError(f"robot must be a SerialRobot, got {type(robot).__name__}")
    n = robot.n
    rot = np.zeros(n) if rotor is None else as_array("rotor", rotor, shape=(n,))
    if np.any(rot < 0):
        raise ValueError(f"rotor must be >= 0, got {rot.tolist()}")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    m, c, Ic = split_link_params(robot.params, about="com")
    if np.any(m <= 0):
        raise ValueError(f"every link needs a positive mass for MuJoCo, got masses {np.asarray(m).tolist()}")
    if not is_physically_consistent(robot.params):
        raise ValueError("the robot's links are not physically consistent: not exported")
    root = ET.Element("mujoco", model=name or robot.name)
    ET.SubElement(root, "compiler", angle="radian", inertiafromgeom="false", balanceinertia="false",
                  boundmass="0", boundinertia="0", autolimits="true")
    ET.SubElement(root, "option", gravity=" ".join(_num(g) for g in robot.gravity))
    parent = ET.SubElement(root, "worldbody")
    for i in range(n):
        T = robot.joint_origins[i]
        body = ET.SubElement(parent, "body", name=robot.link_names[i], pos=" ".join(_num(v) for v in T[:3, 3]),
                             quat=" ".join(_num(v) for v in _quat(T[:3, :3])))
        I = Ic[i]
        ET.SubElement(body, "inertial", pos=" ".join(_num(v) for v in c[i]), mass=_num(m[i]),
                      fullinertia=" ".join(_num(v) for v in (I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2])))
        lo, hi = robot.q_limits[i]
        ET.SubElement(body, "joint", name=robot.joint_names[i],
                      type="slide" if robot.joint_types[i] == "prismatic" else "hinge",
                      axis=" ".join(_num(v) for v in robot.joint_axes[i]), range=f"{_num(lo)} {_num(hi)}",
                      damping=_num(robot.friction[i, 0]), frictionloss=_num(robot.friction[i, 1]),
                      armature=_num(rot[i]))
        parent = body
    ET.indent(root)
    return ET.tostring(root, encoding="unicode") + "\n"


def _states(robot: SerialRobot, samples: int, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """Random states within the limits, every |qd| at least a tenth of its limit (no sign ambiguity)."""
    n = robot.n
    lo, hi = robot.q_limits[:, 0], robot.q_limits[:, 1]
    q = lo + (hi - lo) * (0.05 + 0.9 * rng.random((samples, n)))
    vmax = np.where(np.isfinite(robot.qd_limits), robot.qd_limits, 1.0)
    qd = vmax * (0.1 + 0.9 * rng.random((samples, n))) * rng.choice([-1.0, 1.0], size=(samples, n))
    amax = np.where(np.isfinite(robot.qdd_limits), robot.qdd_limits, 1.0)
    qdd = amax * rng.uniform(-1.0, 1.0, size=(samples, n))
    return q, qd, qdd


def check_export(model: DriveModel, x: Any, urdf: str | None = None, mjcf: str | None = None, *,
                 samples: int = 50, rng: np.random.Generator | int = 0) -> dict:
    """Load exported files back and compare their inverse dynamics with the estimate's.

    Parameters
    ----------
    model : DriveModel
    x : array_like, shape (model.p,)
        The exported estimate (physically consistent).
    urdf, mjcf : str, optional
        The exported texts (:meth:`SerialRobot.to_urdf` of :func:`identified_robot`, and
        :func:`to_mjcf`).
    samples : int, default 50
        Random states (seeded) at which to compare.
    rng : numpy.random.Generator or int, default 0

    Returns
    -------
    dict
        ``{"urdf": {...}, "mjcf": {...}}`` for the files given: ``loaded_with``,
        ``max_abs`` (N m), ``max_rel`` (over the largest torque), ``terms`` (what is
        compared), and for MJCF without ``mujoco`` installed ``loaded_with = None`` and a
        ``reason``.

    Raises
    ------
    ValueError
        A file that does not load, a vector of the wrong length, bad ``samples``.
    TypeError
        Wrong argument types.

    Examples
    --------
    >>> from robidlib.models import planar_2r
    >>> model = DriveModel(planar_2r())
    >>> x = model.pack(friction=[[0.5, 0.1], [0.2, 0.05]], rotor=[0.01, 0.02])
    >>> robot, rotor = identified_robot(model, x)
    >>> out = check_export(model, x, urdf=robot.to_urdf())
    >>> bool(out["urdf"]["max_rel"] < 1e-12)
    True
    """
    if not isinstance(model, DriveModel):
        raise TypeError(f"model must be a DriveModel, got {type(model).__name__}")
    x = as_array("x", x, shape=(model.p,))
    samples = check_int("samples", samples, 1, 10**5)
    gen = check_rng(rng)
    robot, rotor = identified_robot(model, x)
    q, qd, qdd = _states(robot, samples, gen)
    Y = model.regressor(q, qd, qdd)
    idx = {s: k for k, s in enumerate(model.names)}
    rigid_fric = list(range(10 * model.n)) + [idx[s] for s in model.names if s.rstrip("0123456789") in ("fv", "fc")]
    tau_rf = Y[:, :, rigid_fric] @ x[rigid_fric]
    out: dict[str, Any] = {}
    if urdf is not None:
        if not isinstance(urdf, str):
            raise TypeError(f"urdf must be the URDF text, got {type(urdf).__name__}")
        from ..dynamics import inverse_dynamics

        back = SerialRobot.from_urdf(urdf)
        if back.n != model.n:
            raise ValueError(f"the exported URDF has {back.n} joints, the model {model.n}")
        tau = inverse_dynamics(back, q, qd, qdd)
        err = np.abs(tau - tau_rf).max()
        out["urdf"] = {"loaded_with": "robidlib.SerialRobot.from_urdf", "max_abs": float(err),
                       "max_rel": float(err / np.abs(tau_rf).max()), "samples": samples,
                       "terms": "rigid bodies, viscous and Coulomb friction"}
    if mjcf is not None:
        if not isinstance(mjcf, str):
            raise TypeError(f"mjcf must be the MJCF text, got {type(mjcf).__name__}")
        rot_cols = [idx[f"Ia{j + 1}"] for j in range(model.n) if f"Ia{j + 1}" in idx]
        visc = list(range(10 * model.n)) + [idx[s] for s in model.names if s.rstrip("0123456789") == "fv"] + rot_cols
        tau_m = Y[:, :, visc] @ x[visc]
        if not mujoco_available():
            # without MuJoCo the text is still read (robidlib's XML parser: no DTD, no entities)
            # and its hinge and slide joints counted, so that a wrong file is not passed silently
            from ..robot import _parse_xml

            try:
                root = _parse_xml(mjcf)
            except ValueError as exc:
                raise ValueError(f"mjcf is not readable XML: {exc}") from None
            joints = [j for j in root.iter("joint") if j.get("type", "hinge") in ("hinge", "slide")]
            if root.tag != "mujoco" or len(joints) != model.n:
                raise ValueError(f"mjcf must be a <mujoco> model of the model's {model.n} joints, got <{root.tag}> "
                                 f"with {len(joints)} hinge or slide joints")
            out["mjcf"] = {"loaded_with": None, "reason": "mujoco is not installed (pip install mujoco)"}
        else:
            import mujoco

            try:
                mm = mujoco.MjModel.from_xml_string(mjcf)
            except ValueError as exc:
                raise ValueError(f"MuJoCo refuses the exported MJCF: {exc}") from None
            if mm.nv != model.n:
                raise ValueError(f"mjcf must describe the model's {model.n} joints, got a model with {mm.nv} degrees "
                                 "of freedom")
            fl = np.array(mm.dof_frictionloss, dtype=float)
            fc = np.array([x[idx[f"fc{j + 1}"]] if f"fc{j + 1}" in idx else 0.0 for j in range(model.n)])
            mm.dof_frictionloss[:] = 0.0            # a constraint in MuJoCo: checked as a value below
            d = mujoco.MjData(mm)
            tau = np.empty_like(tau_m)
            for k in range(samples):
                d.qpos[:], d.qvel[:], d.qacc[:] = q[k], qd[k], qdd[k]
                mujoco.mj_inverse(mm, d)
                tau[k] = d.qfrc_inverse
            err = np.abs(tau - tau_m).max()
            out["mjcf"] = {"loaded_with": f"mujoco {mujoco.__version__}", "max_abs": float(err),
                           "max_rel": float(err / np.abs(tau_m).max()), "samples": samples,
                           "terms": "rigid bodies, viscous friction (damping), rotor inertia (armature); "
                                    "Coulomb friction compared as the frictionloss values",
                           "frictionloss_max_abs": float(np.abs(fl - fc).max())}
    return out
