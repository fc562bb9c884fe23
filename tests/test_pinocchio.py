"""Cross-checks against pinocchio (test-only dependencies: pin, example-robot-data).

The UR5 and the Panda URDFs shipped by example-robot-data are loaded by both libraries; on
1000 random states the inverse dynamics, the regressor (columns reordered to pinocchio's
dynamic-parameter order) and the mass matrix agree to 1e-9 relative. Robots built from
modified DH parameters (with prismatic joints) are compared with the same robots written as
URDF and loaded by pinocchio.
"""

import xml.etree.ElementTree as ET

import numpy as np
import pytest
from _required import example_robot_data_file, example_robot_data_robots, required

pin = required("pinocchio")

from robidlib.dynamics import _inverse_dynamics_numpy, forward_dynamics, gravity_torques, inverse_dynamics, mass_matrix  # noqa: E402
from robidlib.models.planar_2r import planar_2r  # noqa: E402
from robidlib.models.redundant_5dof import redundant_5dof  # noqa: E402
from robidlib.models.ur5 import ur5  # noqa: E402
from robidlib.params import from_pinocchio_order, to_pinocchio_order  # noqa: E402
from robidlib.regressor import regressor  # noqa: E402
from robidlib.robot import SerialRobot  # noqa: E402

N_SAMPLES = 1000
RTOL = 1e-9


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


# ----------------------------------------------------------------------------- every URDF
ERD_ROBOTS = example_robot_data_robots()
ERD_URDFS = sorted(str(p.relative_to(ERD_ROBOTS)) for p in ERD_ROBOTS.rglob("*.urdf"))


def _longest_chain(model, urdf_root):
    """Tip link and the joints to lock (pinocchio ids) for the longest chain of a tree.

    Mimic joints (which robidlib does not model) end a chain and are locked.
    """
    joints = {el.get("name"): el for el in urdf_root.findall("joint")}
    mimic = {j for j in range(1, model.njoints) if joints[model.names[j]].find("mimic") is not None}
    depth = {0: 0}
    for j in range(1, model.njoints):
        parent = depth[model.parents[j]]
        depth[j] = -1 if parent < 0 or j in mimic else parent + 1
    leaf = max(range(1, model.njoints), key=lambda j: (depth[j], -j))
    path, j = set(), leaf
    while j:
        path.add(j)
        j = model.parents[j]
    locked = [j for j in range(1, model.njoints) if j not in path]
    return joints[model.names[leaf]].find("child").get("link"), locked


def _pin_configuration(model, q):
    """pinocchio's configuration of joint angles q: (cos, sin) for a continuous joint."""
    out = np.empty((q.shape[0], model.nq))
    for k, j in enumerate(model.joints[1:]):
        if j.nq == 2:
            out[:, j.idx_q], out[:, j.idx_q + 1] = np.cos(q[:, k]), np.sin(q[:, k])
        else:
            out[:, j.idx_q] = q[:, k]
    return out


@pytest.mark.parametrize("relative", ERD_URDFS)
def test_every_example_robot_data_urdf_that_pinocchio_loads(relative):
    """robidlib loads what pinocchio loads (a tree: its longest chain, the other joints locked at
    0, as pinocchio's reduced model), with the same inverse dynamics without friction."""
    from robidlib.base import random_states

    path = str(ERD_ROBOTS / relative)
    try:
        full = pin.buildModelFromUrdf(path)
    except Exception:  # noqa: BLE001 - pinocchio refuses the file: so must robidlib, clearly
        with pytest.raises(ValueError, match="URDF"):
            SerialRobot.from_urdf(path)
        return
    if full.nv == 0:
        with pytest.raises(ValueError, match="no movable joint"):
            SerialRobot.from_urdf(path)
        return
    def load(**kw):
        """The file's chain; a file with an inertia no rigid body has (9 of the 69: icub, pr2,
        romeo, the allegro hands, ...) is refused by default and read with inertia_check="warn"."""
        try:
            return SerialRobot.from_urdf(path, **kw)
        except ValueError as exc:
            if "no rigid body has this inertia" not in str(exc):
                raise
            with pytest.warns(UserWarning, match="no rigid body has this inertia"):
                return SerialRobot.from_urdf(path, inertia_check="warn", **kw)

    try:
        robot, locked = load(), []
    except ValueError as exc:
        assert "branches at link" in str(exc) or "mimic" in str(exc), str(exc)
        tip, locked = _longest_chain(full, ET.parse(path).getroot())
        robot = load(tip_link=tip, lock_joints=[full.names[j] for j in locked])
    # the full model with the locked joints held at q = qd = qdd = 0 moves as the chain does
    chain = [j for j in range(1, full.njoints) if j not in locked]
    assert robot.joint_names == tuple(full.names[j] for j in chain)
    q, qd, qdd = random_states(robot, 50, rng=0)
    Q, V, A = np.zeros((50, full.njoints - 1)), np.zeros((50, full.nv)), np.zeros((50, full.nv))
    iv = [full.joints[j].idx_v for j in chain]
    Q[:, [j - 1 for j in chain]], V[:, iv], A[:, iv] = q, qd, qdd
    data = full.createData()
    qp = _pin_configuration(full, Q)
    tau_p = np.array([pin.rnea(full, data, qp[k], V[k], A[k])[iv] for k in range(50)])
    assert_close(inverse_dynamics(robot, q, qd, qdd, include_friction=False), tau_p)


# ----------------------------------------------------------------------------- random robots
def _random_robot(rng):
    """A random serial robot: 1-7 joints of both types, any axes and poses, consistent inertias."""
    from robidlib.params import link_params
    from scipy.spatial.transform import Rotation

    n = int(rng.integers(1, 8))
    types = list(rng.choice(["revolute", "prismatic"], size=n, p=[0.75, 0.25]))
    origins = np.tile(np.eye(4), (n, 1, 1))
    origins[:, :3, :3] = Rotation.random(n, random_state=rng).as_matrix()
    origins[:, :3, 3] = rng.uniform(-0.5, 0.5, (n, 3))
    axes = rng.normal(size=(n, 3))
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    links = []
    for _ in range(n):
        principal = rng.uniform(0.01, 1.0, 3)
        principal[2] = rng.uniform(abs(principal[0] - principal[1]), principal[0] + principal[1])
        R = Rotation.random(random_state=rng).as_matrix()
        links.append(link_params(rng.uniform(0.1, 10.0), rng.uniform(-0.2, 0.2, 3), R @ np.diag(principal) @ R.T))
    gravity = rng.normal(size=3) * 5
    return SerialRobot(types, origins, axes, np.concatenate(links), gravity=gravity)


def _pinocchio_model(robot):
    """The same robot built joint by joint in pinocchio (no URDF, so no rounding of the poses)."""
    model = pin.Model()
    parent = 0
    for i in range(robot.n):
        make = pin.JointModelRevoluteUnaligned if robot.joint_types[i] == "revolute" else pin.JointModelPrismaticUnaligned
        T = robot.joint_origins[i]
        parent = model.addJoint(parent, make(*robot.joint_axes[i]), pin.SE3(T[:3, :3], T[:3, 3]), f"j{i}")
        inertia = pin.Inertia.FromDynamicParameters(to_pinocchio_order(robot.link_params[i]))
        model.appendBodyToJoint(parent, inertia, pin.SE3.Identity())
    model.gravity.linear = robot.gravity
    return model


def test_core_dynamics_agree_with_pinocchio_to_1e_13_on_200_random_robots():
    """Inverse dynamics (the compiled loop and the numpy reference), regressor and mass matrix
    of 200 random robots agree with pinocchio to 1e-13 relative per sample (round-off of a few
    hundred operations on numbers of order one)."""
    rng = np.random.default_rng(2024)
    for _ in range(200):
        robot = _random_robot(rng)
        model = _pinocchio_model(robot)
        q = rng.uniform(-np.pi, np.pi, (10, robot.n))
        qd, qdd = rng.uniform(-2, 2, q.shape), rng.uniform(-10, 10, q.shape)
        tau_p, Y_p, M_p, _, _ = pin_reference(model, q, qd, qdd)
        assert_close(inverse_dynamics(robot, q, qd, qdd, include_friction=False), tau_p, rtol=1e-13)
        # ... and the numpy version, the reference of the compiled loop (tests/test_dynamics.py)
        assert_close(_inverse_dynamics_numpy(robot, q, qd, qdd, robot.gravity), tau_p, rtol=1e-13)
        Y_p = np.reshape(Y_p, (q.shape[0], robot.n, 10 * robot.n))       # (N, 10) for one joint
        assert_close(to_pinocchio_order(regressor(robot, q, qd, qdd)), Y_p, rtol=1e-13)
        assert_close(mass_matrix(robot, q), np.reshape(M_p, (q.shape[0], robot.n, robot.n)), rtol=1e-13)
