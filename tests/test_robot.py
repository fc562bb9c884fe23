"""Tests of robidlib.robot: SerialRobot, from_dh, from_urdf, to_urdf, forward kinematics."""

import warnings

import numpy as np
import pytest
from _required import required

from robidlib.models.planar_2r import planar_2r
from robidlib.models.redundant_5dof import redundant_5dof
from robidlib.models.ur5 import ur5
from robidlib.params import link_params
from robidlib.robot import DEFAULT_LIMITS, SerialRobot, forward_kinematics
from robidlib.spatial import dh_transform, homogeneous, rpy_to_matrix

# A small tree: world -(fixed)- base -(revolute)- l1 -(continuous)- l2 -(prismatic)- l3,
# with a sensor fixed to l2 and a tool fixed to l3 (both carry mass), and a camera fixed to
# the base (ignored: it does not move).
URDF = """<?xml version="1.0"?>
<robot name="tree">
  <link name="world"/>
  <link name="base"><inertial><mass value="5"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="camera"><inertial><mass value="0.3"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="l1"><inertial><origin xyz="0.1 0 0.05" rpy="0.2 0 0"/><mass value="2.0"/>
    <inertia ixx="0.02" iyy="0.03" izz="0.025" ixy="0.001" ixz="0" iyz="-0.002"/></inertial></link>
  <link name="l2"><inertial><origin xyz="0.2 0.01 0"/><mass value="1.5"/>
    <inertia ixx="0.01" iyy="0.02" izz="0.02" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="sensor"><inertial><origin xyz="0 0 0.02"/><mass value="0.4"/>
    <inertia ixx="0.001" iyy="0.001" izz="0.0005" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="l3"><inertial><origin xyz="0 0 -0.1"/><mass value="0.8"/>
    <inertia ixx="0.005" iyy="0.005" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="tool"><inertial><origin xyz="0.01 0 0.03" rpy="0 0.3 0"/><mass value="0.5"/>
    <inertia ixx="0.002" iyy="0.003" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="fix_world" type="fixed"><parent link="world"/><child link="base"/><origin xyz="0 0 0.5"/></joint>
  <joint name="fix_cam" type="fixed"><parent link="base"/><child link="camera"/><origin xyz="0.3 0 0"/></joint>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>
    <origin xyz="0 0 0.1" rpy="0 0 0.3"/><axis xyz="0 0 1"/>
    <limit lower="-2" upper="2" effort="50" velocity="1.5"/><dynamics damping="0.5" friction="0.2"/></joint>
  <joint name="j2" type="continuous"><parent link="l1"/><child link="l2"/>
    <origin xyz="0.3 0 0" rpy="1.5707963267948966 0 0"/><axis xyz="0 0.6 0.8"/></joint>
  <joint name="fix_sensor" type="fixed"><parent link="l2"/><child link="sensor"/><origin xyz="0.1 0 0.05" rpy="0 0 1"/></joint>
  <joint name="j3" type="prismatic"><parent link="l2"/><child link="l3"/>
    <origin xyz="0.4 0 0" rpy="0 -0.4 0"/><axis xyz="1 0 0"/>
    <limit lower="0" upper="0.3" effort="100" velocity="0.2"/></joint>
  <joint name="fix_tool" type="fixed"><parent link="l3"/><child link="tool"/><origin xyz="0 0 0.2" rpy="0.5 0 0"/></joint>
</robot>
"""


def world_coms(urdf_links, q):
    """Mass-weighted CoM of the moving links computed by composing the URDF transforms by hand."""
    T = {"base": homogeneous(np.eye(3), [0, 0, 0.5])}

    def rev(axis, angle):
        from robidlib.spatial import axis_angle

        return homogeneous(axis_angle(axis, angle), np.zeros(3))

    T["l1"] = T["base"] @ homogeneous(rpy_to_matrix([0, 0, 0.3]), [0, 0, 0.1]) @ rev([0, 0, 1], q[0])
    T["l2"] = T["l1"] @ homogeneous(rpy_to_matrix([np.pi / 2, 0, 0]), [0.3, 0, 0]) @ rev([0, 0.6, 0.8], q[1])
    T["sensor"] = T["l2"] @ homogeneous(rpy_to_matrix([0, 0, 1]), [0.1, 0, 0.05])
    T["l3"] = T["l2"] @ homogeneous(rpy_to_matrix([0, -0.4, 0]), [0.4, 0, 0]) @ homogeneous(np.eye(3), [q[2], 0, 0])
    T["tool"] = T["l3"] @ homogeneous(rpy_to_matrix([0.5, 0, 0]), [0, 0, 0.2])
    return {k: T[k][:3, :3] @ c + T[k][:3, 3] for k, c in urdf_links.items()}


def test_from_urdf_chain_limits_friction():
    r = SerialRobot.from_urdf(URDF)
    assert r.name == "tree" and r.n == 3
    assert r.joint_names == ("j1", "j2", "j3")
    assert r.link_names == ("l1", "l2", "l3")
    assert r.joint_types == ("revolute", "revolute", "prismatic")
    assert np.allclose(r.q_limits, [[-2, 2], DEFAULT_LIMITS["revolute"]["q"], [0, 0.3]])
    assert np.allclose(r.qd_limits, [1.5, DEFAULT_LIMITS["revolute"]["qd"], 0.2])
    assert np.allclose(r.tau_limits, [50, np.inf, 100])
    assert np.allclose(r.friction, [[0.5, 0.2], [0, 0], [0, 0]])
    assert np.allclose(r.joint_axes[1], [0, 0.6, 0.8])
    # fixed bodies are merged: sensor into l2, tool into l3; base and camera ignored
    assert np.allclose(r.link_params[:, 0], [2.0, 1.5 + 0.4, 0.8 + 0.5])


def test_from_urdf_merged_bodies_have_the_right_centre_of_mass():
    r = SerialRobot.from_urdf(URDF)
    rng = np.random.default_rng(0)
    for q in rng.uniform([-2, -3, 0], [2, 3, 0.3], size=(5, 3)):
        coms = world_coms(
            {"l1": np.array([0.1, 0, 0.05]), "l2": np.array([0.2, 0.01, 0]), "sensor": np.array([0, 0, 0.02]),
             "l3": np.array([0, 0, -0.1]), "tool": np.array([0.01, 0, 0.03])}, q)
        T = forward_kinematics(r, q)
        P = r.link_params
        for i, parts in enumerate([("l1",), ("l2", "sensor"), ("l3", "tool")]):
            masses = {"l1": 2.0, "l2": 1.5, "sensor": 0.4, "l3": 0.8, "tool": 0.5}
            expected = sum(masses[k] * coms[k] for k in parts) / sum(masses[k] for k in parts)
            got = T[i, :3, :3] @ (P[i, 1:4] / P[i, 0]) + T[i, :3, 3]
            assert np.allclose(got, expected)


def test_from_urdf_inertial_rpy_rotates_the_inertia():
    # a rod along its inertial x axis, turned by yaw = 90 deg: along the link y axis
    urdf = """<robot name="r"><link name="b"/>
      <link name="a"><inertial><origin xyz="0 0 0" rpy="0 0 1.5707963267948966"/><mass value="1"/>
      <inertia ixx="0.001" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <joint name="j" type="revolute"><parent link="b"/><child link="a"/><axis xyz="0 0 1"/>
      <limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>"""
    r = SerialRobot.from_urdf(urdf)
    assert np.allclose(r.params[4:7], [0.1, 0.001, 0.1])


def test_from_urdf_file_path_and_options(tmp_path):
    path = tmp_path / "tree.urdf"
    path.write_text(URDF)
    r = SerialRobot.from_urdf(path, gravity=[0, 0, -1.62], name="moon")
    assert r.name == "moon" and np.allclose(r.gravity, [0, 0, -1.62])
    assert SerialRobot.from_urdf(str(path)) == SerialRobot.from_urdf(URDF)
    # tip_link: stop at l2 (the prismatic joint and its links are dropped, the sensor kept)
    r2 = SerialRobot.from_urdf(URDF, tip_link="l2")
    assert r2.joint_names == ("j1", "j2") and np.isclose(r2.link_params[1, 0], 1.9)
    # lock_joints: j2 held at 0, l2 (+ sensor, l3, tool) merged into l1
    r3 = SerialRobot.from_urdf(URDF, lock_joints=["j2"])
    assert r3.joint_names == ("j1", "j3") and np.isclose(r3.link_params[0, 0], 2.0 + 1.9)
    # base_link: start the chain at l1
    r4 = SerialRobot.from_urdf(URDF, base_link="l1")
    assert r4.joint_names == ("j2", "j3")


@pytest.mark.parametrize("make", [planar_2r, redundant_5dof, ur5])
def test_to_urdf_round_trip(make):
    r = make(friction=None).with_friction(fv=0.1, fc=0.2)
    r2 = SerialRobot.from_urdf(r.to_urdf(), gravity=r.gravity, name=r.name)
    assert np.allclose(r2.params, r.params, atol=1e-12)
    assert np.allclose(r2.joint_origins, r.joint_origins, atol=1e-12)
    assert np.allclose(r2.joint_axes, r.joint_axes)
    assert r2.joint_types == r.joint_types and r2.joint_names == r.joint_names
    assert np.allclose(r2.friction, r.friction)
    assert np.allclose(r2.q_limits, r.q_limits) and np.allclose(r2.qd_limits, r.qd_limits)


def test_from_dh_matches_dh_transforms():
    a, alpha, d, theta = [0.0, 0.3, 0.2], [0.0, np.pi / 2, -0.4], [0.1, 0.0, 0.05], [0.0, 0.2, -0.1]
    r = SerialRobot.from_dh("RPR", a, alpha, d, theta)
    assert r.joint_types == ("revolute", "prismatic", "revolute")
    assert np.allclose(r.joint_origins, dh_transform(a, alpha, d, theta))
    assert np.allclose(r.joint_axes, [[0, 0, 1]] * 3)
    assert np.all(r.params == 0)
    # forward kinematics = product of DH transforms with theta + q (R) or d + q (P)
    q = np.array([0.4, 0.15, -0.7])
    T = np.eye(4)
    for i, typ in enumerate(r.joint_types):
        T = T @ dh_transform(a[i], alpha[i], d[i] + (q[i] if typ == "prismatic" else 0), theta[i] + (q[i] if typ == "revolute" else 0))
    assert np.allclose(forward_kinematics(r, q)[-1], T)


def test_from_dh_inertia_about_com_or_origin():
    m, c = [2.0], [[0.1, 0.2, 0.0]]
    Ic = np.array([[0.01, 0.02, 0.03, 0.001, 0.0, 0.0]])
    r1 = SerialRobot.from_dh("R", [0], [0], [0], mass=m, com=c, inertia=Ic)
    assert np.allclose(r1.params, link_params(2.0, c[0], Ic[0]))
    r2 = SerialRobot.from_dh("R", [0], [0], [0], mass=m, com=c, inertia=r1.params[4:][None], inertia_about="origin")
    assert np.allclose(r2.params, r1.params)


def test_forward_kinematics_planar_2r():
    r = planar_2r()
    rng = np.random.default_rng(1)
    q = rng.uniform(-3, 3, (20, 2))
    T = forward_kinematics(r, q)
    assert T.shape == (20, 2, 4, 4)
    l1 = 0.5
    assert np.allclose(T[:, 1, 0, 3], l1 * np.cos(q[:, 0]))
    assert np.allclose(T[:, 1, 1, 3], l1 * np.sin(q[:, 0]))
    assert np.allclose(np.arctan2(T[:, 1, 1, 0], T[:, 1, 0, 0]), np.angle(np.exp(1j * q.sum(axis=1))))
    assert forward_kinematics(r, q[0]).shape == (2, 4, 4)


def test_immutability_and_copies():
    r = planar_2r()
    with pytest.raises(AttributeError, match="immutable"):
        r.gravity = [0, 0, 0]
    with pytest.raises(ValueError):
        r.params[0] = 3.0  # read-only array
    r2 = r.with_params(2 * r.params)
    assert np.allclose(r2.params, 2 * r.params) and np.allclose(r.params, planar_2r().params)
    r3 = r.with_friction([[0.1, 0.2], [0.3, 0.4]])
    assert np.allclose(r3.friction, [[0.1, 0.2], [0.3, 0.4]]) and np.all(r.friction == 0)
    assert np.allclose(r3.with_friction(fc=0.5).friction, [[0.1, 0.5], [0.3, 0.5]])
    assert np.all(r3.with_friction(0).friction == 0)
    assert np.allclose(r.with_gravity([0, 0, -9.81]).gravity, [0, 0, -9.81])
    r4 = r.with_limits(q=[[-1, 1], [-2, 2]], qdd=[1.0, 2.0])
    assert np.allclose(r4.q_limits, [[-1, 1], [-2, 2]]) and np.allclose(r4.qdd_limits, [1, 2])
    assert np.allclose(r4.qd_limits, r.qd_limits)
    assert r == planar_2r() and r != r2
    assert "planar_2r" in repr(r) and "RR" in repr(r)
    assert r.friction_names == ("fv1", "fc1", "fv2", "fc2")
    assert r.is_prismatic.tolist() == [False, False]


def test_default_limits():
    r = SerialRobot.from_dh("RP", [0, 0], [0, 0], [0, 0])
    assert np.allclose(r.q_limits, [[-np.pi, np.pi], [-0.5, 0.5]])
    assert np.allclose(r.qd_limits, [2.0, 0.5]) and np.allclose(r.qdd_limits, [10.0, 5.0])
    assert np.all(np.isinf(r.tau_limits))


# ---------------------------------------------------------------------- bad input
T2 = np.stack([np.eye(4), np.eye(4)])
Z2 = [[0, 0, 1], [0, 0, 1]]


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(joint_types="RX", joint_origins=T2, joint_axes=Z2), ValueError, "only the letters R and P"),
        (dict(joint_types=["revolute", "ball"], joint_origins=T2, joint_axes=Z2), ValueError, "unknown joint type 'ball'"),
        (dict(joint_types=[], joint_origins=T2, joint_axes=Z2), ValueError, "at least one joint"),
        (dict(joint_types="RR", joint_origins=np.eye(4), joint_axes=Z2), ValueError, r"joint_origins must have shape \(2, 4, 4\)"),
        (dict(joint_types="RR", joint_origins=2 * T2, joint_axes=Z2), ValueError, "homogeneous"),
        (dict(joint_types="RR", joint_origins=T2 * [[[1], [1], [-1], [1]]], joint_axes=Z2), ValueError, "not a rotation"),
        (dict(joint_types="RR", joint_origins=T2, joint_axes=[[0, 0, 1]]), ValueError, r"joint_axes must have shape \(2, 3\)"),
        (dict(joint_types="RR", joint_origins=T2, joint_axes=[[0, 0, 1], [0, 0, 0]]), ValueError, r"joint_axes\[1\] must be a unit vector"),
        (dict(joint_types="RR", joint_origins=T2, joint_axes=[[0, 0, 1.1], [0, 0, 1]]), ValueError, r"joint_axes\[0\] must be a unit"),
        (dict(joint_types="RR", joint_origins=T2, joint_axes=Z2, params=np.ones(10)), ValueError, r"params must have shape \(20,\)"),
        (dict(joint_types="RR", joint_origins=T2, joint_axes=Z2, params=np.full(20, np.nan)), ValueError, "params must be finite"),
        (dict(joint_types="RR", joint_origins=T2, joint_axes=Z2, friction=-np.ones((2, 2))), ValueError, "must be >= 0"),
        (dict(joint_types="RR", joint_origins=T2, joint_axes=Z2, friction=np.ones(2)), ValueError, r"friction must have shape \(2, 2\)"),
        (dict(joint_types="RR", joint_origins=T2, joint_axes=Z2, gravity=[0, 9.81]), ValueError, "gravity must have shape"),
        (dict(joint_types="RR", joint_origins=T2, joint_axes=Z2, joint_names=["a", "a"]), ValueError, "duplicates"),
        (dict(joint_types="RR", joint_origins=T2, joint_axes=Z2, joint_names="ab"), ValueError, "sequence of 2 strings"),
        (dict(joint_types="RR", joint_origins=T2, joint_axes=Z2, q_limits=[[1, 0], [0, 1]]), ValueError, "lower < upper"),
        (dict(joint_types="RR", joint_origins=T2, joint_axes=Z2, qd_limits=[1, 0]), ValueError, "qd_limits must be > 0"),
        (dict(joint_types="RR", joint_origins=T2, joint_axes=Z2, tau_limits=[1, np.nan]), ValueError, "tau_limits must be > 0"),
        (dict(joint_types="RR", joint_origins=T2, joint_axes=Z2, name=3), TypeError, "name must be a string"),
    ],
)
def test_constructor_bad_input(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        SerialRobot(**kwargs)


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: SerialRobot.from_dh("RR", [0], [0, 0], [0, 0]), ValueError, r"a must have shape \(2,\)"),
        (lambda: SerialRobot.from_dh("RR", [0, 0], [0, 0], [0, np.nan]), ValueError, "d must be finite"),
        (lambda: SerialRobot.from_dh("RR", [0, 0], [0, 0], [0, 0], com=np.zeros((2, 3))), ValueError, "without mass"),
        (lambda: SerialRobot.from_dh("RR", [0, 0], [0, 0], [0, 0], mass=[1, 1], inertia=np.zeros((2, 4))), ValueError, "inertia must have shape"),
        (lambda: SerialRobot.from_dh("RR", [0, 0], [0, 0], [0, 0], mass=[1, -1]), ValueError, "mass must be >= 0"),
        (lambda: SerialRobot.from_dh("RR", [0, 0], [0, 0], [0, 0], mass=[1, 1], inertia_about="tip"), ValueError, "unknown inertia_about"),
        (lambda: planar_2r().with_params(np.ones(10)), ValueError, r"params must have shape \(20,\)"),
        (lambda: planar_2r().with_friction(np.ones(3)), ValueError, r"friction must have shape \(2, 2\)"),
        (lambda: planar_2r().with_friction(1.0), ValueError, "the only scalar accepted is 0"),
        (lambda: planar_2r().with_friction([[0, 0], [0, 0]], fv=1.0), ValueError, "not both"),
        (lambda: planar_2r().with_friction(fv=[1.0, 2.0, 3.0]), ValueError, r"fv must be a scalar or have shape \(2,\)"),
        (lambda: planar_2r().with_friction(), ValueError, "needs friction"),
        (lambda: planar_2r().with_gravity([np.inf, 0, 0]), ValueError, "gravity must be finite"),
        (lambda: planar_2r().with_limits(qd=[1.0]), ValueError, r"qd_limits must have shape \(2,\)"),
        (lambda: planar_2r().to_urdf(base_link="forearm"), ValueError, "base_link must be a non-empty name that differs"),
        (lambda: forward_kinematics(planar_2r(), np.zeros(3)), ValueError, r"q must have shape \(2,\) or \(N, 2\)"),
        (lambda: forward_kinematics(planar_2r(), np.zeros((2, 2, 2))), ValueError, "q must have 1 or 2 dimension"),
        (lambda: forward_kinematics(planar_2r(), [np.nan, 0]), ValueError, "q must be finite"),
        (lambda: forward_kinematics("robot", [0, 0]), TypeError, "robot must be a SerialRobot"),
    ],
)
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def _replace(old, new):
    assert old in URDF
    return URDF.replace(old, new)


@pytest.mark.parametrize(
    "source, kwargs, exc, match",
    [
        ("<robot><link name='a'>", {}, ValueError, "not well-formed XML"),
        ("<model name='x'/>", {}, ValueError, "root element must be <robot>"),
        ("/no/such/file.urdf", {}, ValueError, "no URDF file"),
        (42, {}, TypeError, "source must be a path or URDF text"),
        (_replace('<child link="l3"/>', '<child link="l9"/>'), {}, ValueError, "missing link 'l9'"),
        (_replace('type="continuous"', 'type="floating"'), {}, ValueError, "joint 'j2' is floating"),
        (_replace('type="continuous"', 'type="planar"'), {}, ValueError, "joint 'j2' is planar"),
        (_replace('type="continuous"', 'type="spherical"'), {}, ValueError, "unknown type 'spherical'"),
        (_replace('<axis xyz="0 0.6 0.8"/>', '<axis xyz="0 1 1"/>'), {}, ValueError, "joint 'j2' axis must be a unit vector"),
        (_replace('<axis xyz="0 0.6 0.8"/>', '<axis xyz="0 0 0"/>'), {}, ValueError, "joint 'j2' has a zero axis"),
        (_replace('<axis xyz="0 0.6 0.8"/>', '<axis xyz="0 0.6"/>'), {}, ValueError, "<axis xyz> must be 3"),
        (_replace('<origin xyz="0.3 0 0" rpy', '<origin xyz="0.3 zero 0" rpy'), {}, ValueError, "joint 'j2' <origin xyz>"),
        (_replace('<mass value="2.0"/>', '<mass value="-2.0"/>'), {}, ValueError, "negative mass"),
        (_replace('<mass value="2.0"/>', ''), {}, ValueError, "link 'l1' <inertial> has no <mass>"),
        (_replace('<link name="camera">', '<link name="l1">'), {}, ValueError, "link 'l1' is defined twice"),
        (_replace('name="j3"', 'name="j2"'), {}, ValueError, "joint 'j2' is defined twice"),
        (_replace('<parent link="l2"/><child link="l3"/>', '<parent link="l3"/><child link="l2"/>'), {}, ValueError, "child of two joints"),
        (_replace('<link name="world"/>', '<link name="world"/><link name="orphan"/>'), {}, ValueError, "do not form one tree"),
        (_replace('<limit lower="-2" upper="2"', '<limit lower="2" upper="-2"'), {}, ValueError, "not below upper"),
        (_replace('<joint name="fix_cam" type="fixed">', '<joint name="fix_cam" type="revolute">'), {}, ValueError,
         r"branches at link 'base'.*joint 'fix_cam' -> link 'camera'.*joint 'j1' -> link 'l1'"),
        (_replace('<axis xyz="1 0 0"/>', '<axis xyz="1 0 0"/><mimic joint="j1"/>'), {}, ValueError, "mimic joint"),
        (URDF, {"base_link": "nowhere"}, ValueError, "base_link 'nowhere' is not a link"),
        (URDF, {"tip_link": "nowhere"}, ValueError, "tip_link 'nowhere' is not a link"),
        (URDF, {"base_link": "l2", "tip_link": "l1"}, ValueError, "is not below base_link"),
        (URDF, {"lock_joints": ["fix_tool"]}, ValueError, "lock_joints entry 'fix_tool'"),
        (URDF, {"base_link": "tool"}, ValueError, "no movable joint"),
    ],
)
def test_from_urdf_bad_input(source, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        SerialRobot.from_urdf(source, **kwargs)


def test_branching_tree_can_be_resolved():
    """A gripper with two fingers branches; tip_link or lock_joints choose the chain."""
    fingers = """
  <link name="f1"><inertial><mass value="0.05"/><inertia ixx="1e-5" iyy="1e-5" izz="1e-5" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="f2"><inertial><mass value="0.05"/><inertia ixx="1e-5" iyy="1e-5" izz="1e-5" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="g1" type="prismatic"><parent link="tool"/><child link="f1"/><axis xyz="0 1 0"/><limit lower="0" upper="0.04" effort="10" velocity="0.1"/></joint>
  <joint name="g2" type="prismatic"><parent link="tool"/><child link="f2"/><axis xyz="0 -1 0"/><limit lower="0" upper="0.04" effort="10" velocity="0.1"/></joint>
</robot>"""
    urdf = URDF.replace("</robot>", fingers)
    with pytest.raises(ValueError, match=r"branches at link 'tool'.*'g1'.*'g2'"):
        SerialRobot.from_urdf(urdf)
    r_tip = SerialRobot.from_urdf(urdf, tip_link="tool")
    assert r_tip.joint_names == ("j1", "j2", "j3") and np.isclose(r_tip.link_params[2, 0], 1.3)
    r_lock = SerialRobot.from_urdf(urdf, lock_joints=("g1", "g2"))
    assert r_lock.joint_names == ("j1", "j2", "j3") and np.isclose(r_lock.link_params[2, 0], 1.4)


def test_docstring_examples_run():
    import doctest

    import robidlib.robot as module

    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


# ----------------------------------------------------------------------------- URDF round trip
from hypothesis import HealthCheck, event, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra.numpy import arrays  # noqa: E402

_PRINTABLE = st.characters(blacklist_categories=("Cc", "Cs"))   # anything but control characters


def _unit(v):
    v = np.asarray(v, dtype=float)
    n = np.linalg.norm(v)
    return v / n if n > 1e-3 else np.array([0.0, 0.0, 1.0])


@st.composite
def any_robot(draw):
    """A robot the constructor accepts: any types, poses, axes, names, limits, friction, gravity,
    and any finite parameters (negative masses and a zero mass with a first moment included)."""
    n = draw(st.integers(1, 4))
    fl = st.floats(-1e3, 1e3, allow_nan=False)
    # names of any characters, XML's special ones included; one robot in ten also control ones
    text = (st.text(min_size=1, max_size=8) if draw(st.integers(0, 9)) == 0
            else st.text(_PRINTABLE, min_size=1, max_size=8))
    types = draw(st.lists(st.sampled_from(["revolute", "prismatic"]), min_size=n, max_size=n))
    rpy = draw(arrays(float, (n, 3), elements=st.floats(-4, 4)))
    xyz = draw(arrays(float, (n, 3), elements=fl))
    origins = np.array([homogeneous(rpy_to_matrix(a), b) for a, b in zip(rpy, xyz)])
    axes = np.array([_unit(a) for a in draw(arrays(float, (n, 3), elements=st.floats(-1, 1)))])
    params = draw(arrays(float, (10 * n,), elements=fl))
    for i in range(n):      # mostly positive masses; zero (with or without a first moment), negative
        kind = draw(st.sampled_from(["positive"] * 12 + ["zero", "zero mass and moment", "negative"]))
        params[10 * i] = {"positive": abs(params[10 * i]) + 1e-3, "negative": -abs(params[10 * i]) - 1e-3}.get(kind, 0.0)
        if kind == "zero mass and moment":
            params[10 * i + 1:10 * i + 4] = 0.0
    lo = draw(arrays(float, (n,), elements=st.floats(-10, 9)))
    width = draw(arrays(float, (n,), elements=st.floats(1e-3, 10)))
    pos_or_inf = st.one_of(st.floats(1e-6, 1e6), st.just(np.inf))
    kw = dict(
        friction=draw(arrays(float, (n, 2), elements=st.floats(0, 1e3))),
        gravity=draw(arrays(float, (3,), elements=st.floats(-20, 20))),
        joint_names=draw(st.lists(text, min_size=n, max_size=n, unique=True)),
        link_names=draw(st.lists(text, min_size=n, max_size=n, unique=True)),
        q_limits=np.column_stack([lo, lo + width]),
        qd_limits=draw(arrays(float, (n,), elements=pos_or_inf)),
        qdd_limits=draw(arrays(float, (n,), elements=pos_or_inf)),
        tau_limits=draw(arrays(float, (n,), elements=pos_or_inf)),
        name=draw(st.text(_PRINTABLE, max_size=8)),
    )
    return SerialRobot(types, origins, axes, params, **kw)


def _urdf_refusal(r):
    """What to_urdf must refuse (a fragment of its message), or None."""
    P = r.link_params
    for text in (r.name, *r.joint_names, *r.link_names):
        if any((ord(ch) < 0x20 and ch not in "\t\n\r") or ord(ch) in (0xFFFE, 0xFFFF) for ch in text):
            return "cannot represent"
    if np.any(P[:, 0] < 0):
        return "< 0, which URDF cannot hold"
    if np.any((P[:, 0] == 0) & np.any(P[:, 1:4] != 0, axis=1)):
        return "zero mass but the first moment"
    return None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_robot())
def test_to_urdf_round_trips_every_robot_the_constructor_accepts(r):
    refusal = _urdf_refusal(r)
    event("refused" if refusal else "round trip")
    if refusal is not None:
        with pytest.raises(ValueError, match=refusal):
            r.to_urdf()
        return
    # the constructor accepts any parameters; a URDF of a body no rigid body can be is read back
    # only when asked (inertia_check="warn"), with the warning
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        r2 = SerialRobot.from_urdf(r.to_urdf(), inertia_check="warn")
    # exactly: everything URDF writes as a number of its own, names, types, limits, gravity
    for key in ("name", "joint_types", "joint_names", "link_names", "q_limits", "qd_limits",
                "qdd_limits", "tau_limits", "friction", "gravity"):
        a, b = getattr(r2, key), getattr(r, key)
        assert (np.array_equal(a, b) if isinstance(b, np.ndarray) else a == b), key
    # to round-off: the axes (normalised again), the rotations (through roll-pitch-yaw) and the
    # inertial parameters (through the centre of mass: round-off relative to m |c|^2 = |h|^2 / m)
    np.testing.assert_allclose(r2.joint_axes, r.joint_axes, rtol=0, atol=1e-15)
    np.testing.assert_allclose(r2.joint_origins[:, :3, :3], r.joint_origins[:, :3, :3], rtol=0, atol=1e-14)
    np.testing.assert_array_equal(r2.joint_origins[:, :, 3], r.joint_origins[:, :, 3])
    P, P2 = r.link_params, r2.link_params
    m = P[:, 0]
    shift = np.divide((P[:, 1:4] ** 2).sum(axis=1), m, out=np.zeros_like(m), where=m > 0)
    scale = np.abs(P).max(axis=1) + shift
    assert np.all(np.abs(P2 - P).max(axis=1) <= 1e-13 * scale)


def test_to_urdf_escapes_names_and_writes_infinite_limits_that_parsers_read():
    r = planar_2r().with_limits(qd=[np.inf, 2.0], tau=[np.inf, np.inf], qdd=[np.inf, 3.0])
    r = SerialRobot(r.joint_types, r.joint_origins, r.joint_axes, r.params,
                    joint_names=['a"b', "c<d&e"], link_names=["l'1", "l>2"], name="arm & <co>",
                    qd_limits=r.qd_limits, qdd_limits=r.qdd_limits, tau_limits=r.tau_limits)
    text = r.to_urdf()
    assert "inf" not in text and "1.7976931348623157e+308" in text
    r2 = SerialRobot.from_urdf(text)
    assert r2.joint_names == r.joint_names and r2.link_names == r.link_names and r2.name == r.name
    assert np.array_equal(r2.qd_limits, r.qd_limits) and np.array_equal(r2.tau_limits, r.tau_limits)
    assert np.array_equal(r2.qdd_limits, r.qdd_limits)
    # the default base link steps aside from a link called base_link
    r3 = SerialRobot(r.joint_types, r.joint_origins, r.joint_axes, r.params, link_names=["base_link", "x"])
    assert SerialRobot.from_urdf(r3.to_urdf()).link_names == ("base_link", "x")
    with pytest.raises(ValueError, match=r"joint_names\[0\] = 'a\\x01' holds the character"):
        SerialRobot(r.joint_types, r.joint_origins, r.joint_axes, joint_names=["a\x01", "b"]).to_urdf()
    with pytest.raises(TypeError, match="base_link must be a string, got int"):
        r.to_urdf(base_link=3)


def test_to_urdf_is_read_by_pinocchio_with_the_same_limits():
    pin = required("pinocchio")
    r = planar_2r().with_limits(qd=[np.inf, 2.0], tau=[np.inf, 5.0])
    model = pin.buildModelFromXML(r.to_urdf())
    assert model.velocityLimit[1] == 2.0 and model.effortLimit[1] == 5.0
    assert model.velocityLimit[0] > 1e300 and np.isfinite(model.velocityLimit[0])


def test_from_urdf_all_zero_position_limit_means_no_limit():
    base = URDF_ZERO_LIMIT.format(lower=0, upper=0)
    r = SerialRobot.from_urdf(base)
    assert r.q_limits.tolist() == [list(DEFAULT_LIMITS["revolute"]["q"])]
    assert r.qd_limits[0] == DEFAULT_LIMITS["revolute"]["qd"]       # velocity="0": none given
    with pytest.raises(ValueError, match=r"lower=1.0> not below upper=1.0 \(only the all-zero"):
        SerialRobot.from_urdf(URDF_ZERO_LIMIT.format(lower=1, upper=1))
    with pytest.raises(ValueError, match=r"<limit velocity=-1.0>; expected a bound >= 0"):
        SerialRobot.from_urdf(base.replace('velocity="0"', 'velocity="-1"'))
    with pytest.raises(ValueError, match="the robot has no <link>"):
        SerialRobot.from_urdf('<robot name="empty"></robot>')


URDF_ZERO_LIMIT = """<robot name="p"><link name="b"/><link name="l"><inertial><mass value="1"/>
<inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
<joint name="j" type="revolute"><parent link="b"/><child link="l"/><axis xyz="1 0 0"/>
<limit lower="{lower}" upper="{upper}" effort="0" velocity="0"/></joint></robot>"""


# --------------------------------------------------------------------------- URDF: safe parsing
_PENDULUM_LINKS = """<link name="base"/><link name="rod"><inertial><origin xyz="0 0 -0.5"/><mass value="1.0"/>
  <inertia ixx="0.02" iyy="0.02" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="hinge" type="revolute"><parent link="base"/><child link="rod"/><axis xyz="0 1 0"/>
  <limit lower="-3" upper="3" effort="10" velocity="5"/></joint>"""


@pytest.mark.parametrize("prolog, what", [
    ('<!DOCTYPE robot [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
     '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>', "DTD"),                      # "billion laughs"
    ('<!DOCTYPE robot [<!ENTITY secret SYSTEM "file:///etc/passwd">]>', "DTD"),     # an external entity
    ('<!DOCTYPE robot SYSTEM "http://example.org/robot.dtd">', "DTD"),             # an external DTD
    ("<!DOCTYPE robot>", "DTD"),
])
def test_from_urdf_refuses_dtds_and_entities(prolog, what, tmp_path):
    text = f'<?xml version="1.0"?>{prolog}<robot name="r">{_PENDULUM_LINKS}</robot>'
    with pytest.raises(ValueError, match=f"without DTD or entities; it holds .*{what}"):
        SerialRobot.from_urdf(text)
    path = tmp_path / "r.urdf"
    path.write_text(text)
    with pytest.raises(ValueError, match="without DTD or entities"):
        SerialRobot.from_urdf(path)
    assert SerialRobot.from_urdf(f'<robot name="r">{_PENDULUM_LINKS}</robot>').n == 1


def test_from_urdf_refuses_an_entity_reference_without_declaration():
    with pytest.raises(ValueError, match="not well-formed"):
        SerialRobot.from_urdf('<robot name="&lol;">' + _PENDULUM_LINKS + "</robot>")


@pytest.mark.parametrize("where", ["before", "after"])
def test_from_urdf_reads_a_chain_of_thousands_of_fixed_joints(where):
    """No recursion: exporters write long chains of fixed frames (5000 here; recursion ended at ~1000)."""
    k = 5000
    links = "".join(f'<link name="f{i}"/>' for i in range(k))
    fixed = "".join(f'<joint name="j{i}" type="fixed"><parent link="f{i}"/><child link="f{i + 1}"/>'
                    f'<origin xyz="0 0 0.001"/></joint>' for i in range(k - 1))
    mass = '<inertial><mass value="0.001"/><inertia ixx="1e-6" iyy="1e-6" izz="1e-6" ixy="0" ixz="0" iyz="0"/></inertial>'
    if where == "before":        # the fixed chain carries the arm: base -> f0 ... f4999 -> hinge -> rod
        text = (f'<robot name="r"><link name="base"/>{links}<link name="rod">{mass}</link>'
                f'<joint name="b" type="fixed"><parent link="base"/><child link="f0"/></joint>{fixed}'
                f'<joint name="hinge" type="revolute"><parent link="f{k - 1}"/><child link="rod"/>'
                f'<axis xyz="0 0 1"/></joint></robot>')
    else:                        # the fixed chain hangs from the moving link: its masses are merged
        links = "".join(f'<link name="f{i}">{mass}</link>' for i in range(k))
        text = (f'<robot name="r"><link name="base"/>{links}'
                f'<joint name="hinge" type="revolute"><parent link="base"/><child link="f0"/>'
                f'<axis xyz="0 0 1"/></joint>{fixed}</robot>')
    r = SerialRobot.from_urdf(text)
    assert r.n == 1 and r.joint_names == ("hinge",)
    assert r.params[0] == pytest.approx(0.001 if where == "before" else 0.001 * k)
    if where == "before":
        assert r.joint_origins[0, 2, 3] == pytest.approx(0.001 * (k - 1))


def _one_link(ixx, iyy, izz, ixy=0.0, ixz=0.0, iyz=0.0, name="rod"):
    return (f'<robot name="r"><link name="base"/><link name="{name}"><inertial><mass value="1.0"/>'
            f'<inertia ixx="{ixx}" iyy="{iyy}" izz="{izz}" ixy="{ixy}" ixz="{ixz}" iyz="{iyz}"/></inertial></link>'
            f'<joint name="hinge" type="revolute"><parent link="base"/><child link="{name}"/><axis xyz="0 0 1"/>'
            f'</joint></robot>')


@pytest.mark.parametrize("inertia, match", [
    ((-0.01, 0.02, 0.02), "negative principal moment -0.01"),
    ((0.01, 0.01, 0.05), "break the triangle inequality I1 \\+ I2 >= I3 by 0.03"),
    ((0.02, 0.02, 0.02, 0.03, 0.0, 0.0), "negative principal moment"),        # through the products
])
def test_from_urdf_refuses_an_inertia_no_body_has_and_names_the_link(inertia, match):
    text = _one_link(*inertia, name="forearm")
    with pytest.raises(ValueError, match=f"link 'forearm' has .*{match}.*inertia_check='warn'"):
        SerialRobot.from_urdf(text)
    with pytest.warns(UserWarning, match=f"link 'forearm' has .*{match}"):
        r = SerialRobot.from_urdf(text, inertia_check="warn")
    assert r.n == 1                                    # loaded as it is
    with pytest.raises(ValueError, match="inertia_check"):
        SerialRobot.from_urdf(text, inertia_check="ignore")


def test_from_urdf_accepts_bodies_at_the_limits():
    for inertia in ((0.0, 0.0, 0.0), (0.01, 0.01, 0.02), (0.0, 0.01, 0.01),      # point, disk, rod
                    (0.01, 0.01, 0.0200001)):                                  # a disk, rounded (5e-6)
        SerialRobot.from_urdf(_one_link(*inertia))
    with pytest.raises(ValueError, match="triangle"):
        SerialRobot.from_urdf(_one_link(0.01, 0.01, 0.0201))


def test_from_urdf_does_not_read_links_fixed_to_the_base():
    """A negative inertia on a link that never moves (TIAGo's antennas) changes no torque."""
    text = _one_link(0.02, 0.02, 0.001).replace(
        "</robot>", '<link name="antenna"><inertial><mass value="1e-6"/><inertia ixx="-3e-8" iyy="3e-8" izz="9e-8" '
                    'ixy="0" ixz="0" iyz="0"/></inertial></link><joint name="a" type="fixed"><parent link="base"/>'
                    '<child link="antenna"/></joint></robot>')
    assert SerialRobot.from_urdf(text).n == 1
