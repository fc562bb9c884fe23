"""Tests of robidlib.plotting: the book style, robot drawings, schematics and figures.

Figures are drawn with the Agg backend and inspected through their artists (each carries a
gid saying what it shows); the geometry is compared with the forward kinematics.
"""

import doctest
import math
import subprocess
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.image as mpimg  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.patches import Arc, Circle  # noqa: E402
from scipy.stats import chi2  # noqa: E402

import robidlib.plotting as rp  # noqa: E402
from robidlib.estimation import ols  # noqa: E402
from robidlib.models import planar_2r, redundant_5dof, ur5  # noqa: E402
from robidlib.plotting import (  # noqa: E402
    BOOK_STYLE,
    PALETTE,
    adaline_schematic,
    confidence_ellipse,
    draw_robot,
    ellipse_points,
    estimate_band,
    estimate_errorbars,
    grouped_bars,
    measured_vs_predicted,
    parameter_history,
    pendulum_sketch,
    singular_values,
    use_book_style,
)
from robidlib.robot import SerialRobot, forward_kinematics  # noqa: E402

TX40_URDF = Path(__file__).parent / "data" / "staubli_tx40" / "tx40_mdh_modified.urdf"


def tx40():
    return SerialRobot.from_urdf(TX40_URDF)


ROBOTS = {"planar_2r": planar_2r, "redundant_5dof": redundant_5dof, "ur5": ur5, "tx40": tx40}


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def gid(artists, name):
    return [a for a in artists if a.get_gid() == name]


def random_q(robot, k, seed=0):
    lo, hi = robot.q_limits.T
    lo, hi = np.maximum(lo, -np.pi), np.minimum(hi, np.pi)
    return np.random.default_rng(seed).uniform(lo, hi, size=(k, robot.n))


def joint_points(robot, q):
    """Independent of the drawing code: where each joint sits on its parent link."""
    T = forward_kinematics(robot, q)
    O = T[:, :3, 3].copy()
    for i in np.flatnonzero(robot.is_prismatic):
        O[i] -= q[i] * T[i, :3, :3] @ robot.joint_axes[i]   # undo the slide along the axis
    return O


# ---------------------------------------------------------------------- style
def test_style_sets_opaque_backgrounds():
    applied = use_book_style(**{"figure.dpi": 80})
    assert matplotlib.rcParams["figure.facecolor"] == "white"
    assert matplotlib.rcParams["savefig.transparent"] is False
    assert applied["figure.dpi"] == 80 and BOOK_STYLE["figure.dpi"] == 96


def test_style_uses_the_colour_blind_safe_cycle_in_the_default_order():
    use_book_style()
    cycle = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    assert cycle[:4] == [PALETTE["blue"], PALETTE["orange"], PALETTE["green"], PALETTE["vermillion"]]
    assert len(set(cycle)) == len(cycle) >= 10     # the chapters use up to C8


def test_unknown_rcparam_is_refused():
    with pytest.raises(ValueError, match="unknown matplotlib rcParams"):
        use_book_style(**{"figure.not_a_param": 1})


@pytest.mark.parametrize("module", ["style", "robots", "schematics", "figures"])
def test_doctests_run(module):
    mod = getattr(rp, module)
    result = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_the_core_never_imports_plotting():
    code = (
        "import importlib, pkgutil, sys, robidlib\n"
        "def walk(pkg):\n"
        "    for m in pkgutil.iter_modules(pkg.__path__, pkg.__name__ + '.'):\n"
        "        if m.name != 'robidlib.plotting':\n"
        "            mod = importlib.import_module(m.name)\n"
        "            if m.ispkg:\n"
        "                walk(mod)\n"
        "walk(robidlib)\n"
        "assert 'robidlib.checks.mixed_coordinates' in sys.modules and 'robidlib.multibody.models' in sys.modules\n"
        "bad = sorted(k for k in sys.modules if k.startswith('robidlib.plotting') or k == 'matplotlib.pyplot')\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


# ---------------------------------------------------------------------- draw_robot, 3-D
@pytest.mark.parametrize("name", list(ROBOTS))
def test_one_segment_per_link_along_the_kinematic_chain(name):
    robot = ROBOTS[name]()
    q = random_q(robot, 1, seed=1)[0]
    ax = draw_robot(robot, q, tool=None)
    links = gid(ax.lines, "link")
    assert len(links) == robot.n                      # the base and links 1..n-1 end at a joint
    B = joint_points(robot, q)
    O = forward_kinematics(robot, q)[:, :3, 3]
    starts = np.vstack([np.zeros(3), O[:-1]])
    for k, line in enumerate(links):
        xyz = np.array(line.get_data_3d()).T
        np.testing.assert_allclose(xyz, [starts[k], B[k]], atol=1e-12)


def test_tx40_from_its_urdf_is_drawn_with_its_published_dimensions():
    robot = tx40()
    ax = draw_robot(robot, np.zeros(6), tool=None)
    ends = np.array([np.array(line.get_data_3d()).T[1] for line in gid(ax.lines, "link")])
    # shoulder 0.320 m above the base, arm 0.225 m with a 0.035 m offset, forearm 0.225 m
    np.testing.assert_allclose(ends[0], [0, 0, 0.32], atol=1e-12)
    np.testing.assert_allclose(ends[2], [0.225, 0.035, 0.32], atol=1e-12)
    np.testing.assert_allclose(ends[3], [0.225, 0.035, 0.545], atol=1e-12)
    assert len(gid(ax.collections, "revolute")) == 6 and not gid(ax.collections, "prismatic")


def test_the_last_link_ends_at_the_tool_or_twice_its_centre_of_mass():
    robot = planar_2r()
    q = np.array([0.4, 0.7])
    T = forward_kinematics(robot, q)
    ax = draw_robot(robot, q, tool=[0.3, 0.0, 0.0])
    last = np.array(gid(ax.lines, "link")[-1].get_data_3d()).T
    np.testing.assert_allclose(last, [T[1, :3, 3], T[1, :3, :3] @ [0.3, 0, 0] + T[1, :3, 3]], atol=1e-12)
    ax = draw_robot(robot, q)                            # "auto": the forearm's CoM is at 0.17 m
    last = np.array(gid(ax.lines, "link")[-1].get_data_3d()).T
    assert len(gid(ax.lines, "link")) == 3
    np.testing.assert_allclose(last[1], T[1, :3, :3] @ [0.34, 0, 0] + T[1, :3, 3], atol=1e-12)


def test_frames_drawn_when_asked_and_absent_otherwise():
    robot = ur5()
    q = random_q(robot, 1, seed=2)[0]
    ax = draw_robot(robot, q, frame_size=0.1)
    frame_lines = [a for a in gid(ax.lines, "frame")]
    assert len(frame_lines) == 3 * (robot.n + 1)          # base frame and n link frames
    T = forward_kinematics(robot, q)
    for i in range(robot.n):
        for k in range(3):
            xyz = np.array(frame_lines[3 * (i + 1) + k].get_data_3d()).T
            np.testing.assert_allclose(xyz[1] - xyz[0], 0.1 * T[i, :3, k], atol=1e-12)
    ax = draw_robot(robot, q, frames=False)
    assert not gid(ax.lines, "frame") and not gid(ax.texts, "frame")


def test_prismatic_joints_are_drawn_as_a_rail_and_a_sliding_block():
    robot = redundant_5dof()
    q = np.array([0.35, 0.0, 0.3, -0.6, 0.15])     # yaw 0: both sliding axes lie in the x-z plane
    ax = draw_robot(robot, q)
    blocks, rails = gid(ax.collections, "prismatic"), gid(ax.collections, "rail")
    assert len(blocks) == len(rails) == 2 and len(gid(ax.collections, "revolute")) == 3
    ax.figure.canvas.draw()                       # project: the blocks cover an area on screen
    for block in blocks:
        areas = [abs(np.sum(x * np.roll(y, 1) - np.roll(x, 1) * y)) / 2
                 for x, y in (pth.vertices[:4].T for pth in block.get_paths())]
        assert len(areas) == 6 and max(areas) > 1e-6 * np.ptp(ax.get_xlim()) ** 2
    ax = draw_robot(robot, q, view="xz")
    blocks, rails = gid(ax.patches, "prismatic"), gid(ax.patches, "rail")
    T = forward_kinematics(robot, q)
    B = joint_points(robot, q)
    for block, rail, i in zip(blocks, rails, (0, 4)):
        axis = (T[i, :3, :3] @ robot.joint_axes[i])[[0, 2]]
        np.testing.assert_allclose(np.linalg.norm(axis), 1.0, atol=1e-12)
        corners = block.get_xy()[:4]
        np.testing.assert_allclose(corners.mean(axis=0), T[i, [0, 2], 3], atol=1e-12)   # block at the joint
        along = (rail.get_xy()[:4] - B[i, [0, 2]]) @ axis
        np.testing.assert_allclose([along.min(), along.max()], robot.q_limits[i], atol=1e-12)   # the stroke


def test_a_batch_of_configurations_is_drawn_with_ghosts():
    robot = redundant_5dof()
    qs = random_q(robot, 3, seed=3)
    ax = draw_robot(robot, qs, tool=None, ghost_alpha=0.4)
    links = gid(ax.lines, "link")
    assert len(links) == 3 * robot.n
    alphas = [line.get_alpha() for line in links]
    assert all(a < 1 for a in alphas[: 2 * robot.n]) and all(a == 1 for a in alphas[2 * robot.n:])
    for k in range(3):
        ends = np.array([np.array(line.get_data_3d()).T[1] for line in links[k * robot.n:(k + 1) * robot.n]])
        np.testing.assert_allclose(ends, joint_points(robot, qs[k]), atol=1e-12)
    assert len(gid(ax.lines, "frame")) == 3 * (robot.n + 1)    # frames of the solid pose only
    assert len(gid(ax.collections, "prismatic")) == 3 * 2       # blocks of every pose


def test_equal_aspect_and_two_robots_on_one_axes():
    ax = draw_robot(ur5(), np.zeros(6))
    spans = [np.ptp(lim) for lim in (ax.get_xlim(), ax.get_ylim(), ax.get_zlim())]
    np.testing.assert_allclose(spans, spans[0])
    np.testing.assert_allclose(ax.get_box_aspect() / ax.get_box_aspect()[0], 1.0)
    far = SerialRobot("R", [np.eye(4)], [[0, 0, 1]]).with_params(np.r_[1.0, 3.0, 0, 0, np.zeros(6)])
    draw_robot(far, [0.0], ax)                      # reaches to x = 6 m (auto tool)
    assert ax.get_xlim()[1] >= 6.0 and ax.get_xlim()[0] <= -0.81


def test_joint_labels_group_coincident_joints():
    ax = draw_robot(ur5(), np.zeros(6), joint_labels=True)
    texts = [t.get_text() for t in gid(ax.texts, "label")]
    assert "shoulder_pan, shoulder_lift" in texts and "elbow" in texts
    ax = draw_robot(planar_2r(), [0.1, 0.2], joint_labels=["$q_1$", "$q_2$"])
    assert [t.get_text() for t in gid(ax.texts, "label")] == ["$q_1$", "$q_2$"]


def test_centres_of_mass_and_gravity_are_drawn_when_asked():
    robot = redundant_5dof()
    q = np.full(5, 0.1)
    ax = draw_robot(robot, q, com=True, gravity=True)
    marks = gid(ax.lines, "com")[::2]
    T = forward_kinematics(robot, q)
    P = robot.link_params
    for i, m in enumerate(marks):
        c = T[i, :3, :3] @ (P[i, 1:4] / P[i, 0]) + T[i, :3, 3]
        np.testing.assert_allclose(np.array(m.get_data_3d()).ravel(), c, atol=1e-12)
    assert len(marks) == 5 and gid(ax.collections, "gravity")
    ax = draw_robot(robot, q)
    assert not gid(ax.lines, "com") and not gid(ax.collections, "gravity")


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (dict(q=[0.1, 0.2, 0.3]), ValueError, r"q must have shape \(2,\) or \(K, 2\)"),
        (dict(q=[0.1, np.nan]), ValueError, "finite"),
        (dict(q=[0.1 + 1j, 0.2]), TypeError, "real"),
        (dict(q=np.array([0.1, 0.2], dtype=complex)), TypeError, "real"),
        (dict(q="0.1 0.2"), TypeError, "numeric"),
        (dict(q=np.zeros((0, 2))), ValueError, "K >= 1"),
        (dict(q=np.zeros((2, 2, 2))), ValueError, "dimension"),
        (dict(view="top"), ValueError, "unknown view"),
        (dict(tool=[0.1, 0.2]), ValueError, r"tool must have shape \(3,\)"),
        (dict(tool="tip"), ValueError, "unknown tool"),
        (dict(frame_size=0.0), ValueError, "frame_size must be > 0"),
        (dict(ghost_alpha=1.5), ValueError, "ghost_alpha"),
        (dict(joint_labels=["a"]), ValueError, "joint_labels must hold 2 labels"),
        (dict(joint_labels="ab"), TypeError, "joint_labels"),
        (dict(elev=np.nan), ValueError, "elev"),
        (dict(azim="left"), ValueError, "azim"),
    ],
)
def test_bad_input_is_refused(kwargs, error, match):
    kw = dict(q=[0.1, 0.2])
    kw.update(kwargs)
    with pytest.raises(error, match=match):
        draw_robot(planar_2r(), **kw)


def test_not_a_robot_and_wrong_axes_are_refused():
    with pytest.raises(TypeError, match="robot must be a robidlib.robot.SerialRobot"):
        draw_robot("ur5", np.zeros(6))
    fig = plt.figure()
    flat, deep = fig.add_subplot(121), fig.add_subplot(122, projection="3d")
    with pytest.raises(TypeError, match="3-D axes"):
        draw_robot(planar_2r(), [0, 0], flat)
    with pytest.raises(TypeError, match="2-D axes"):
        draw_robot(planar_2r(), [0, 0], deep, view="xy")
    with pytest.raises(TypeError, match="matplotlib Axes"):
        draw_robot(planar_2r(), [0, 0], ax=fig)


# ---------------------------------------------------------------------- draw_robot, planar
def test_planar_view_projects_the_chain_and_draws_pins():
    robot = planar_2r()
    q = np.array([0.6, 0.9])
    ax = draw_robot(robot, q, view="xy", tool=None, com=True, gravity=True)
    links = gid(ax.lines, "link")
    B = joint_points(robot, q)
    np.testing.assert_allclose([line.get_xydata()[1] for line in links], B[:, :2], atol=1e-12)
    pins = [p for p in gid(ax.patches, "revolute") if isinstance(p, Circle)]
    centres = np.array([p.center for p in pins])
    for b in B[:, :2]:
        assert np.min(np.linalg.norm(centres - b, axis=1)) < 1e-12     # both joints are pins
    assert ax.get_aspect() == 1.0
    labels = [t.get_text() for t in gid(ax.texts, "frame") if t.get_text()]
    assert labels == ["$x_{0}$", "$y_{0}$", "$x_{1}$", "$y_{1}$", "$x_{2}$", "$y_{2}$"]   # z is off-plane
    assert gid(ax.texts, "gravity") and gid(ax.patches, "com")


def test_side_view_of_the_5dof_arm_keeps_its_prismatic_joints_visible():
    ax = draw_robot(redundant_5dof(), np.full(5, 0.1), view="xz")
    assert len(gid(ax.patches, "prismatic")) == 2 and len(gid(ax.patches, "rail")) == 2
    assert ax.get_xlabel() == "$x$ (m)" and ax.get_ylabel() == "$z$ (m)"


# ---------------------------------------------------------------------- schematics
def test_pendulum_sketch_shows_the_angle_from_the_downward_vertical():
    q = 0.5
    ax = pendulum_sketch(q=q)
    com = [p for p in gid(ax.patches, "com") if isinstance(p, Circle)][0]
    np.testing.assert_allclose(com.center, [math.sin(q), -math.cos(q)], atol=1e-12)
    arc = [p for p in gid(ax.patches, "angle") if isinstance(p, Arc)][0]
    assert math.isclose(arc.theta2 - arc.theta1, math.degrees(q)) and math.isclose(arc.theta1, -90.0)
    vertical = gid(ax.lines, "vertical")[0].get_xydata()
    assert np.all(vertical[:, 0] == 0) and vertical[1, 1] < vertical[0, 1]
    assert {t.get_gid() for t in ax.texts if t.get_text()} >= {"angle", "length", "com", "gravity", "torque"}
    ax = pendulum_sketch(q=-0.3, labels=False, torque=False)
    assert not [t for t in ax.texts if t.get_text()] and not gid(ax.patches, "torque")


@pytest.mark.parametrize(
    ("q", "error", "match"),
    [(2.0, ValueError, "within"), (np.nan, ValueError, "finite"), (0.3j, TypeError, "real"), ([0.1, 0.2], ValueError, "dimension")],
)
def test_pendulum_sketch_refuses_bad_angles(q, error, match):
    with pytest.raises(error, match=match):
        pendulum_sketch(q=q)


def test_adaline_schematic_draws_one_weighted_arrow_per_input():
    ax = adaline_schematic()
    arrows = [a for a in ax.texts if a.get_gid() == "input" and not a.get_text()]
    assert len(arrows) == 3                                  # x1, x2, xp; the dots have none
    assert [t.get_text() for t in gid(ax.texts, "weight")] == ["$w_1$", "$w_2$", "$w_p$"]
    ax = adaline_schematic(inputs=["$q$", "$\\dot q$"], weights=["$a$", "$b$"], bias=True, caption=None)
    assert [t.get_text() for t in gid(ax.texts, "input") if t.get_text()] == ["$x_0 = 1$", "$q$", "$\\dot q$"]
    assert not gid(ax.texts, "caption") and gid(ax.texts, "error") and gid(ax.texts, "target")


def test_adaline_schematic_refuses_bad_labels():
    with pytest.raises(ValueError, match="at least one"):
        adaline_schematic(inputs=[])
    with pytest.raises(ValueError, match="one label per input"):
        adaline_schematic(inputs=["a", "b"], weights=["w"])
    with pytest.raises(TypeError, match="sequence of strings"):
        adaline_schematic(inputs="x1 x2")
    with pytest.raises(TypeError, match="sequence of strings"):
        adaline_schematic(inputs=["a", 2])
    with pytest.raises(TypeError, match="output must be a string"):
        adaline_schematic(output=3)


# ---------------------------------------------------------------------- ellipses
def test_ellipse_points_lie_on_the_mahalanobis_contour():
    C = np.array([[2.0, -0.9], [-0.9, 0.7]])
    xy = ellipse_points([3.0, 1.0], C, n_std=1.5, n_points=64)
    d = xy - [3.0, 1.0]
    np.testing.assert_allclose(np.einsum("ki,ij,kj->k", d, np.linalg.inv(C), d), 2.25, rtol=1e-12)
    np.testing.assert_allclose(xy[0], xy[-1])
    big = np.diag([9.0, 2.0, 5.0])
    big[0, 2] = big[2, 0] = 1.0
    np.testing.assert_allclose(ellipse_points([1, 2, 3], big, dims=(0, 2)),
                               ellipse_points([1, 3], [[9, 1], [1, 5]]), atol=1e-12)
    flat = ellipse_points([0, 0], [[1.0, 1.0], [1.0, 1.0]])           # singular: a segment
    np.testing.assert_allclose(flat[:, 0], flat[:, 1], atol=1e-12)


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        (([0, 0], [[1, 0.5], [0.4, 1]]), {}, ValueError, "symmetric"),
        (([0, 0], [[1, 2], [2, 1]]), {}, ValueError, "positive semi-definite"),
        (([0, 0], np.eye(3)), {}, ValueError, r"cov must have shape \(2, 2\)"),
        (([0, 0, 0], np.eye(3)), {}, ValueError, "dims"),
        (([0, np.inf], np.eye(2)), {}, ValueError, "finite"),
        (([0, 0], np.eye(2) * (1 + 1j)), {}, TypeError, "real"),
        (([0, 0], np.eye(2)), dict(n_std=-1.0), ValueError, "n_std"),
        (([0, 0], np.eye(2)), dict(n_points=2), ValueError, "n_points"),
        (([0, 0], np.eye(2)), dict(n_points=10.0), TypeError, "n_points"),
        (([0, 0, 0], np.eye(3)), dict(dims=(0, 0)), ValueError, "dims"),
        (([0, 0, 0], np.eye(3)), dict(dims=(0, 5)), ValueError, "out of range"),
    ],
)
def test_ellipse_points_bad_input(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        ellipse_points(*args, **kwargs)


def test_confidence_ellipse_radius_is_the_chi2_quantile():
    C = np.array([[0.3, 0.1], [0.1, 0.2]])
    for level in (0.5, 0.95, 0.99):
        xy = confidence_ellipse([0, 0], C, level=level).get_xydata()
        r2 = np.einsum("ki,ij,kj->k", xy, np.linalg.inv(C), xy)
        np.testing.assert_allclose(r2, chi2.ppf(level, 2), rtol=1e-10)
    line = confidence_ellipse([1, 1], C, n_std=2.0, color="C3", label="2 sigma")
    assert line.get_label() == "2 sigma" and line.get_gid() == "ellipse"
    with pytest.raises(ValueError, match="either level or n_std"):
        confidence_ellipse([0, 0], C, level=0.9, n_std=2.0)
    with pytest.raises(ValueError, match="level must be in"):
        confidence_ellipse([0, 0], C, level=1.0)


# ---------------------------------------------------------------------- singular values
def test_singular_values_show_the_tolerance_and_the_rank():
    s = np.array([10.0, 2.0, 1e-4, 1e-12, 0.0])
    ax = singular_values(s, tol=1e-8, label="W")
    filled, hollow, zeros = gid(ax.lines, "singular_values")
    np.testing.assert_allclose(filled.get_ydata(), [10.0, 2.0, 1e-4])
    np.testing.assert_allclose(hollow.get_xdata(), [4]) and np.testing.assert_allclose(zeros.get_xdata(), [5])
    assert hollow.get_markerfacecolor() == "none"
    assert gid(ax.lines, "tol")[0].get_ydata()[0] == 1e-8
    assert gid(ax.lines, "rank")[0].get_xdata()[0] == 3.5 and gid(ax.texts, "rank")[0].get_text() == "rank 3"
    ax = singular_values(s, tol=1e-8, relative=True)
    assert gid(ax.lines, "tol")[0].get_ydata()[0] == pytest.approx(1e-9)
    assert ax.get_yscale() == "log"


@pytest.mark.parametrize(
    ("s", "kwargs", "error", "match"),
    [
        ([1.0, 2.0], {}, ValueError, "non-increasing"),
        ([1.0, -1e-3], {}, ValueError, ">= 0"),
        ([], {}, ValueError, "at least one"),
        ([0.0, 0.0], {}, ValueError, "all zero"),
        ([1.0, np.nan], {}, ValueError, "finite"),
        ([[1.0, 0.5]], {}, ValueError, "dimension"),
        ([1.0 + 0j, 0.5j], {}, TypeError, "real"),
        ([1.0, 0.5], dict(tol=0.0), ValueError, "tol must be > 0"),
    ],
)
def test_singular_values_bad_input(s, kwargs, error, match):
    with pytest.raises(error, match=match):
        singular_values(s, **kwargs)


# ---------------------------------------------------------------------- estimates over time
def test_estimate_band_spans_n_std():
    t = np.linspace(0, 1, 11)
    line, band = estimate_band(t, 2 * t, 0.1 + t, n_std=2.0, label="EKF")
    verts = band.get_paths()[0].vertices
    assert np.allclose(line.get_ydata(), 2 * t) and line.get_label() == "EKF"
    assert verts[:, 1].max() == pytest.approx(2.0 + 2 * 1.1) and verts[:, 1].min() == pytest.approx(-0.2)
    with pytest.raises(ValueError, match="std must be >= 0"):
        estimate_band(t, t, -t)
    with pytest.raises(ValueError, match=r"mean must have shape \(11,\)"):
        estimate_band(t, t[:5], t)
    with pytest.raises(ValueError, match="alpha"):
        estimate_band(t, t, t, alpha=0.0)


def test_parameter_history_panels_truth_reference_and_overlay():
    t = np.linspace(0, 10, 101)
    truth = np.where((t < 5)[:, None], [1.0, 2.0, 3.0], [1.0, 2.5, 3.0])
    est = truth + 0.1 * np.exp(-t)[:, None]
    axes = parameter_history(t, est, 0.05 * np.ones_like(est), truth=truth, reference=[1.0, 2.2, 3.0],
                             names=["a", "b", "c"], units=["kg", "N", "m"], select=[1, 2], label="EKF", span=0.2)
    assert len(axes) == 2 and [a.get_title() for a in axes] == ["b", "c"] and axes[0].get_ylabel() == "N"
    for ax, i in zip(axes, (1, 2)):
        np.testing.assert_allclose(gid(ax.lines, "estimate")[0].get_ydata(), est[:, i])
        np.testing.assert_allclose(gid(ax.lines, "truth")[0].get_ydata(), truth[:, i])
        assert gid(ax.lines, "reference") and gid(ax.collections, "band")
    assert axes[0].get_ylim() == pytest.approx((2.0 - 0.5, 2.5 + 0.5))
    zero = parameter_history(t, est - truth, truth=np.zeros(3), span=0.2, span_min=0.05, ncols=2,
                             figsize=(6.0, 4.0))
    assert tuple(zero[0].figure.get_size_inches()) == (6.0, 4.0) and zero[0].get_gridspec().ncols == 2
    assert all(ax.get_ylim() == pytest.approx((-0.05, 0.05)) for ax in zero)
    parameter_history(t, est + 0.2, axes=axes, select=[1, 2], label="Euler")   # overlay, no band
    assert len(gid(axes[0].lines, "estimate")) == 2 and len(gid(axes[0].collections, "band")) == 1
    assert [txt.get_text() for txt in axes[0].get_legend().get_texts()][:2] == ["EKF", "truth"]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (dict(params=np.ones((5, 2))), ValueError, "one row per time sample"),
        (dict(std=-np.ones((10, 2))), ValueError, "std must be >= 0"),
        (dict(select=[2]), ValueError, "select"),
        (dict(select=[]), ValueError, "select"),
        (dict(select=[0.5]), TypeError, "integer indices"),
        (dict(truth=[1.0, 2.0, 3.0]), ValueError, "truth must have shape"),
        (dict(span=0.1), ValueError, "span needs truth"),
        (dict(truth=[1.0, 2.0], span=0.1, span_min=-1.0), ValueError, "span_min must be >= 0"),
        (dict(names=["a"]), ValueError, "names must hold 2"),
        (dict(axes=[None]), ValueError, "axes must hold 2"),
        (dict(params=np.ones((10, 2)) * 1j), TypeError, "real"),
    ],
)
def test_parameter_history_bad_input(kwargs, error, match):
    kw = dict(t=np.arange(10.0), params=np.ones((10, 2)))
    kw.update(kwargs)
    with pytest.raises(error, match=match):
        parameter_history(**kw)


# ---------------------------------------------------------------------- per-parameter comparisons
def test_grouped_bars_one_bar_per_parameter_and_method():
    vals = {"OLS": [0.3, 0.02, 0.5], "WLS": [0.1, 0.02, 0.2]}
    ax = grouped_bars(vals, ["m", "mx", "Izz"], log=True, ylabel="RMS error")
    assert [c.get_label() for c in ax.containers] == ["OLS", "WLS"]
    for c, v in zip(ax.containers, vals.values()):
        np.testing.assert_allclose([b.get_height() for b in c], v)
    xs = [b.get_x() + b.get_width() / 2 for c in ax.containers for b in c]
    np.testing.assert_allclose(sorted(xs), [-0.2, 0.2, 0.8, 1.2, 1.8, 2.2])
    assert ax.get_yscale() == "log" and [t.get_text() for t in ax.get_xticklabels()] == ["m", "mx", "Izz"]
    with pytest.raises(ValueError, match="> 0 on a log scale"):
        grouped_bars({"a": [0.0, 1.0]}, ["p", "q"], log=True)
    with pytest.raises(TypeError, match="mapping"):
        grouped_bars([[1.0, 2.0]], ["p", "q"])
    with pytest.raises(ValueError, match=r"must have shape \(2,\)"):
        grouped_bars({"a": [1.0, 2.0, 3.0]}, ["p", "q"])
    with pytest.raises(ValueError, match="at least one method"):
        grouped_bars({}, ["p"])
    with pytest.raises(ValueError, match="colors must hold 1"):
        grouped_bars({"a": [1.0]}, ["p"], colors=["C0", "C1"])


def test_estimate_errorbars_relative_to_the_truth():
    rng = np.random.default_rng(4)
    W = rng.normal(size=(100, 3))
    beta = np.array([2.0, -1.0, 0.5])
    est = ols(W, W @ beta + 0.1 * rng.normal(size=100), names=["a", "b", "c"])
    pair = (beta * 1.1, np.full(3, 0.01))
    ax = estimate_errorbars({"OLS": est, "guess": pair}, beta, n_std=3.0)
    pts = gid(ax.lines, "estimate")
    np.testing.assert_allclose(pts[0].get_ydata(), 100 * (est.params - beta) / np.abs(beta))
    np.testing.assert_allclose(pts[1].get_ydata(), 10.0 * np.sign(beta))
    segs = ax.containers[1].lines[2][0].get_segments()
    np.testing.assert_allclose([np.ptp(s[:, 1]) for s in segs], 100 * 2 * 3 * 0.01 / np.abs(beta))
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "c"] and gid(ax.lines, "truth")
    with pytest.raises(ValueError, match="give scale"):
        estimate_errorbars({"OLS": est}, [2.0, 0.0, 0.5])
    ax = estimate_errorbars({"OLS": est}, [2.0, 0.0, 0.5], scale=0.5)
    with pytest.raises(TypeError, match="Estimate or a pair"):
        estimate_errorbars({"OLS": est.params}, beta)
    with pytest.raises(ValueError, match="scale must be > 0"):
        estimate_errorbars({"OLS": est}, beta, scale=[1.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="std must be >= 0"):
        estimate_errorbars({"x": (beta, -np.ones(3))}, beta)


def test_measured_vs_predicted_one_panel_per_joint():
    t = np.linspace(0, 1, 50)
    tau = np.column_stack([np.sin(t), np.cos(t), t])
    axes = measured_vs_predicted(t, tau + 0.01, {"LS": tau, "CAD": 0.9 * tau}, units=["N", "N m", "N m"])
    assert len(axes) == 3 and axes[0].get_ylabel() == "$\\tau_{1}$ (N)"
    for j, ax in enumerate(axes):
        np.testing.assert_allclose(gid(ax.lines, "measured")[0].get_ydata(), tau[:, j] + 0.01)
        np.testing.assert_allclose(gid(ax.lines, "predicted")[1].get_ydata(), 0.9 * tau[:, j])
    axes = measured_vs_predicted(t, tau[:, 0], tau[:, 0])         # one joint, one model
    assert len(axes) == 1 and gid(axes[0].lines, "predicted")[0].get_label() == "model"
    with pytest.raises(ValueError, match="shape of measured"):
        measured_vs_predicted(t, tau, tau[:, :2])
    with pytest.raises(ValueError, match="one row per time sample"):
        measured_vs_predicted(t[:10], tau, tau)
    with pytest.raises(ValueError, match="units must hold 3"):
        measured_vs_predicted(t, tau, tau, units=["N"])


# ---------------------------------------------------------------------- rendering
def test_every_figure_renders_to_an_opaque_png(tmp_path):
    use_book_style()
    fig = plt.figure(figsize=(12, 6))
    draw_robot(tx40(), random_q(tx40(), 3, seed=5), fig.add_subplot(231, projection="3d"), joint_labels=True)
    draw_robot(planar_2r(), [0.5, 0.5], fig.add_subplot(232), view="xy", com=True, gravity=True)
    pendulum_sketch(fig.add_subplot(233))
    adaline_schematic(fig.add_subplot(234), bias=True)
    singular_values([3.0, 1.0, 1e-12], fig.add_subplot(235), tol=1e-9)
    confidence_ellipse([0, 0], np.eye(2), fig.add_subplot(236))
    path = tmp_path / "all.png"
    fig.savefig(path)
    img = mpimg.imread(path)
    assert img.shape[2] == 3 or np.all(img[..., 3] == 1.0)          # no transparent pixel (dark mode)
    assert np.all(img[0, 0, :3] == 1.0)                             # white background
