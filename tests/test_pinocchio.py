"""Cross-checks against pinocchio (test-only dependencies: pin, example-robot-data).

The UR5 and the Panda URDFs shipped by example-robot-data are loaded by both libraries; on
1000 random states the inverse dynamics, the regressor (columns reordered to pinocchio's
dynamic-parameter order) and the mass matrix agree to 1e-9 relative. Robots built from
modified DH parameters (with prismatic joints) are compared with the same robots written as
URDF and loaded by pinocchio.
"""

import importlib.metadata
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

pin = pytest.importorskip("pinocchio")

from robidlib.dynamics import forward_dynamics, gravity_torques, inverse_dynamics, mass_matrix  # noqa: E402
from robidlib.models.planar_2r import planar_2r  # noqa: E402
from robidlib.models.redundant_5dof import redundant_5dof  # noqa: E402
from robidlib.models.ur5 import ur5  # noqa: E402
from robidlib.params import from_pinocchio_order, to_pinocchio_order  # noqa: E402
from robidlib.regressor import regressor  # noqa: E402
from robidlib.robot import SerialRobot  # noqa: E402

N_SAMPLES = 1000
RTOL = 1e-9


def example_robot_data_file(relative: str) -> Path:
    """Path of a file shipped by example-robot-data (python package or cmeel wheel)."""
    try:
        import example_robot_data

        root = Path(example_robot_data.getModelPath(relative))
        if (root / relative).is_file():
            return root / relative
    except Exception:  # noqa: BLE001 - any failure: fall back to the wheel's file list
        pass
    try:
        files = importlib.metadata.files("example-robot-data") or []
    except importlib.metadata.PackageNotFoundError:
        files = []
    for f in files:
        if str(f).endswith(relative):
            return Path(f.locate())
    pytest.skip(f"example-robot-data file {relative} not found")


UR5_URDF = "ur_description/urdf/ur5_robot.urdf"
PANDA_URDF = "panda_description/urdf/panda.urdf"
FINGERS = ("panda_finger_joint1", "panda_finger_joint2")


def pin_reference(model, q, qd, qdd):
    data = model.createData()
    tau, Y, M, qdd_fd, g = [], [], [], [], []
    for k in range(q.shape[0]):
        tau.append(pin.rnea(model, data, q[k], qd[k], qdd[k]).copy())
        Y.append(pin.computeJointTorqueRegressor(model, data, q[k], qd[k], qdd[k]).copy())
        Mk = pin.crba(model, data, q[k]).copy()
        M.append(np.triu(Mk) + np.triu(Mk, 1).T)
        qdd_fd.append(pin.aba(model, data, q[k], qd[k], tau[-1]).copy())
        g.append(pin.computeGeneralizedGravity(model, data, q[k]).copy())
    return [np.array(x) for x in (tau, Y, M, qdd_fd, g)]


def assert_close(a, b, rtol=RTOL):
    """Per-sample relative agreement: |a - b| <= rtol * max(1, |b|) (max norms)."""
    a, b = np.asarray(a), np.asarray(b)
    axes = tuple(range(1, a.ndim))
    err = np.abs(a - b).max(axis=axes)
    scale = np.maximum(1.0, np.abs(b).max(axis=axes))
    assert np.all(err <= rtol * scale), f"max relative error {np.max(err / scale):.3g}"


def compare(robot, model, rng, n_samples=N_SAMPLES):
    assert robot.n == model.nv == model.nq
    pin_params = np.concatenate([model.inertias[i].toDynamicParameters() for i in range(1, model.njoints)])
    assert np.allclose(to_pinocchio_order(robot.params), pin_params, rtol=1e-12, atol=1e-12)
    assert np.allclose(from_pinocchio_order(pin_params), robot.params, rtol=1e-12, atol=1e-12)
    assert np.allclose(robot.gravity, model.gravity.linear)
    lo, hi = robot.q_limits.T
    q = rng.uniform(lo, hi, (n_samples, robot.n))
    qd = rng.uniform(-1, 1, q.shape) * robot.qd_limits
    qdd = rng.uniform(-1, 1, q.shape) * robot.qdd_limits
    tau_p, Y_p, M_p, qdd_p, g_p = pin_reference(model, q, qd, qdd)
    tau = inverse_dynamics(robot, q, qd, qdd, include_friction=False)
    assert_close(tau, tau_p)
    assert_close(to_pinocchio_order(regressor(robot, q, qd, qdd)), Y_p)
    assert_close(mass_matrix(robot, q), M_p)
    assert_close(gravity_torques(robot, q), g_p)
    assert_close(forward_dynamics(robot, q, qd, tau_p, include_friction=False), qdd_p, rtol=1e-8)


def test_ur5_urdf_agrees_with_pinocchio():
    path = example_robot_data_file(UR5_URDF)
    robot = SerialRobot.from_urdf(path)
    assert robot.joint_names == tuple(pin.buildModelFromUrdf(str(path)).names[1:])
    compare(robot, pin.buildModelFromUrdf(str(path)), np.random.default_rng(0))


def test_panda_urdf_with_locked_fingers_agrees_with_pinocchio():
    path = example_robot_data_file(PANDA_URDF)
    with pytest.raises(ValueError, match="branches at link 'panda_hand'"):
        SerialRobot.from_urdf(path)
    robot = SerialRobot.from_urdf(path, lock_joints=FINGERS)
    assert robot.n == 7 and robot.joint_names[-1] == "panda_joint7"
    full = pin.buildModelFromUrdf(str(path))
    model = pin.buildReducedModel(full, [full.getJointId(j) for j in FINGERS], pin.neutral(full))
    compare(robot, model, np.random.default_rng(1))


def test_panda_urdf_with_tip_link_agrees_with_pinocchio_without_fingers():
    path = example_robot_data_file(PANDA_URDF)
    robot = SerialRobot.from_urdf(path, tip_link="panda_hand")
    tree = ET.parse(path)
    root = tree.getroot()
    for el in list(root):
        if (el.tag == "joint" and el.get("name") in FINGERS) or (el.tag == "link" and el.get("name") in ("panda_leftfinger", "panda_rightfinger")):
            root.remove(el)
    model = pin.buildModelFromXML(ET.tostring(root, encoding="unicode"))
    compare(robot, model, np.random.default_rng(2), n_samples=200)


def dh_robot_as_urdf(name, types, a, alpha, d, theta, mass, com, inertia_diag, limits):
    """URDF text of a modified-DH robot, written independently of robidlib (scipy rotations)."""
    from scipy.spatial.transform import Rotation

    def num(x):
        return repr(float(x))

    lines = [f'<robot name="{name}">', '<link name="base"/>']
    parent = "base"
    for i, t in enumerate(types):
        R = Rotation.from_euler("x", alpha[i]).as_matrix() @ Rotation.from_euler("z", theta[i]).as_matrix()
        xyz = np.array([a[i], 0.0, 0.0]) + d[i] * R[:, 2]
        rpy = Rotation.from_matrix(R).as_euler("xyz")
        Ix, Iy, Iz = inertia_diag[i]
        lines += [
            f'<link name="l{i + 1}"><inertial><origin xyz="{num(com[i][0])} {num(com[i][1])} {num(com[i][2])}"/>'
            f'<mass value="{num(mass[i])}"/><inertia ixx="{num(Ix)}" iyy="{num(Iy)}" izz="{num(Iz)}" ixy="0" ixz="0" iyz="0"/>'
            "</inertial></link>",
            f'<joint name="j{i + 1}" type="{t}"><parent link="{parent}"/><child link="l{i + 1}"/>'
            f'<origin xyz="{num(xyz[0])} {num(xyz[1])} {num(xyz[2])}" rpy="{num(rpy[0])} {num(rpy[1])} {num(rpy[2])}"/>'
            f'<axis xyz="0 0 1"/><limit lower="{num(limits[i][0])}" upper="{num(limits[i][1])}" effort="100" velocity="1"/></joint>',
        ]
        parent = f"l{i + 1}"
    return "\n".join(lines + ["</robot>"])


def test_dh_robot_with_prismatic_joints_agrees_with_its_urdf():
    """redundant_5dof() (modified DH, P-RRR-P) against its documented numbers written as URDF."""
    robot = redundant_5dof()
    urdf = dh_robot_as_urdf(
        "p5", ["prismatic", "revolute", "revolute", "revolute", "prismatic"],
        a=[0.0, 0.0, 0.12, 0.45, 0.0], alpha=[0.0, 0.0, np.pi / 2, 0.0, -np.pi / 2],
        d=[0.30, 0.15, 0.0, 0.0, 0.25], theta=[0.0] * 5,
        mass=[8.0, 4.0, 3.5, 2.0, 0.8],
        com=[[0.0, 0.0, -0.05], [0.05, 0.0, 0.02], [0.20, 0.0, 0.01], [0.0, 0.13, 0.0], [0.0, 0.0, -0.08]],
        inertia_diag=[[0.0417, 0.0417, 0.0533], [0.0120, 0.0150, 0.0100], [0.0028, 0.0620, 0.0610],
                      [0.0160, 0.0016, 0.0160], [0.0085, 0.0085, 0.0003]],
        limits=robot.q_limits,
    )
    model = pin.buildModelFromXML(urdf)
    compare(robot, model, np.random.default_rng(3))
    # and robidlib's own URDF reader gives the same robot
    ours = SerialRobot.from_urdf(urdf)
    assert np.allclose(ours.params, robot.params, atol=1e-12)
    assert np.allclose(ours.joint_origins, robot.joint_origins, atol=1e-12)


@pytest.mark.parametrize("make", [planar_2r, redundant_5dof, ur5])
def test_models_written_as_urdf_agree_with_pinocchio(make):
    robot = make()
    model = pin.buildModelFromXML(robot.to_urdf())
    model.gravity.linear = robot.gravity
    compare(robot, model, np.random.default_rng(4), n_samples=200)
