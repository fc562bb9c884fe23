"""Line drawings of serial robots: :func:`draw_robot`.

A :class:`~robidlib.robot.SerialRobot` is drawn as a stick figure at one or several
configurations: one straight segment per link (from the origin of its frame to the next
joint), a symbol per joint (a short cylinder along a revolute axis; a rail over the stroke
with a sliding block for a prismatic joint), the link frames as x-y-z triads and a base
plate. The kinematics come from :func:`robidlib.robot.forward_kinematics`; nothing here is
used by the rest of robidlib.

Each artist carries a ``gid`` naming what it shows (``"link"``, ``"revolute"``,
``"prismatic"``, ``"rail"``, ``"frame"``, ``"base"``, ``"label"``, ``"com"``, ``"gravity"``),
so that a test or a chapter can find it again with ``artist.get_gid()``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from matplotlib.axes import Axes
from numpy.typing import ArrayLike

from .._validate import check_choice, check_flag, check_positive
from ..robot import SerialRobot, forward_kinematics
from .style import PALETTE, _axes, _fraction, _real

__all__ = ["draw_robot", "ROBOT_COLORS"]

#: Colours of the robot drawings (links, joint symbols, frame axes x, y, z, base).
ROBOT_COLORS: dict[str, str] = {
    "link": "0.25",
    "revolute": PALETTE["sky"],
    "prismatic": PALETTE["orange"],
    "x": PALETTE["vermillion"],
    "y": PALETTE["green"],
    "z": PALETTE["blue"],
    "base": "0.55",
    "gravity": "0.15",
}

_VIEWS = ("3d", "xy", "xz", "yz")
_PLANES = {"xy": (0, 1, 2), "xz": (0, 2, 1), "yz": (1, 2, 0)}


@dataclass(frozen=True)
class _Chain:
    """World geometry of a robot at K configurations (all arrays lead with K)."""

    T: np.ndarray        # (K, n, 4, 4) link frames
    B: np.ndarray        # (K, n, 3) joint points: the joint frame at q_i = 0
    A: np.ndarray        # (K, n, 3) joint axes (unit)
    U: np.ndarray        # (K, n, 3) unit vector normal to the axis (fixed in the parent link)
    O: np.ndarray        # (K, n, 3) link-frame origins
    rail: np.ndarray     # (n, 2) stroke of each joint along its axis (prismatic: q limits)
    tool: np.ndarray | None   # (K, 3)
    com: np.ndarray      # (K, n, 3), NaN for massless links

    @property
    def segments(self) -> np.ndarray:
        """(K, n or n + 1, 2, 3) start and end of each link's segment."""
        K = self.B.shape[0]
        start = np.concatenate([np.zeros((K, 1, 3)), self.O[:, :-1]], axis=1)
        seg = np.stack([start, self.B], axis=2)
        if self.tool is not None:
            seg = np.concatenate([seg, np.stack([self.O[:, -1], self.tool], axis=1)[:, None]], axis=1)
        return seg


def _chain(robot: SerialRobot, q: np.ndarray, tool: np.ndarray | None) -> _Chain:
    K, n = q.shape
    T = forward_kinematics(robot, q).reshape(K, n, 4, 4)
    parent = np.concatenate([np.broadcast_to(np.eye(4), (K, 1, 4, 4)), T[:, :-1]], axis=1)
    J = parent @ robot.joint_origins
    A = np.einsum("knij,nj->kni", J[..., :3, :3], robot.joint_axes)
    # a unit vector normal to each axis, fixed in the joint frame
    e = robot.joint_axes
    helper = np.eye(3)[np.argmin(np.abs(e), axis=1)]
    u_loc = np.cross(e, helper)
    u_loc /= np.linalg.norm(u_loc, axis=1, keepdims=True)
    U = np.einsum("knij,nj->kni", J[..., :3, :3], u_loc)
    rail = np.where(robot.is_prismatic[:, None], robot.q_limits, 0.0)
    tool_w = None
    if tool is not None:
        tool_w = np.einsum("kij,j->ki", T[:, -1, :3, :3], tool) + T[:, -1, :3, 3]
    P = robot.link_params
    with np.errstate(invalid="ignore", divide="ignore"):
        c = np.where(P[:, :1] > 0, P[:, 1:4] / P[:, :1], np.nan)
    com = np.einsum("knij,nj->kni", T[..., :3, :3], np.nan_to_num(c)) + T[..., :3, 3]
    com[:, np.isnan(c[:, 0])] = np.nan
    return _Chain(T=T, B=J[..., :3, 3], A=A, U=U, O=T[..., :3, 3], rail=rail, tool=tool_w, com=com)


def _check_q(robot: Any, q: Any) -> np.ndarray:
    if not isinstance(robot, SerialRobot):
        raise TypeError(f"robot must be a robidlib.robot.SerialRobot, got {type(robot).__name__}")
    arr = _real("q", q, ndim=(1, 2))
    if arr.shape[-1] != robot.n or arr.size == 0:
        raise ValueError(
            f"q must have shape ({robot.n},) or (K, {robot.n}) with K >= 1 for the {robot.n} joints of "
            f"robot {robot.name!r}, got {arr.shape}"
        )
    return arr.reshape(-1, robot.n)


def _auto_tool(robot: SerialRobot) -> np.ndarray | None:
    """Twice the centre of mass of the last link, or None if it is (nearly) at the origin."""
    m, *first = robot.link_params[-1, :4]
    if m <= 0:
        return None
    end = 2.0 * np.array(first) / m
    reach = np.linalg.norm(robot.joint_origins[:, :3, 3], axis=1).sum() + float(np.sum(np.diff(robot.q_limits[robot.is_prismatic], axis=1)))
    return end if np.linalg.norm(end) > 0.02 * max(reach, np.linalg.norm(end)) else None


def _up(gravity: np.ndarray) -> np.ndarray:
    """The unit vector against gravity (z when there is none)."""
    g = np.linalg.norm(gravity)
    return -np.asarray(gravity) / g if g > 0 else np.array([0.0, 0.0, 1.0])


def _coincident(points: np.ndarray, tol: float) -> list[list[int]]:
    """Indices of the points grouped by position (within tol of the group's first point)."""
    groups: list[list[int]] = []
    for i, p in enumerate(points):
        for g in groups:
            if np.linalg.norm(points[g[0]] - p) <= tol:
                g.append(i)
                break
        else:
            groups.append([i])
    return groups


def _scale(ch: _Chain, com: bool) -> float:
    pts = [np.zeros((1, 3)), ch.B.reshape(-1, 3), ch.O.reshape(-1, 3)]
    for lo in (0, 1):
        pts.append((ch.B + ch.rail[None, :, lo, None] * ch.A).reshape(-1, 3))
    if ch.tool is not None:
        pts.append(ch.tool)
    if com:
        c = ch.com.reshape(-1, 3)
        pts.append(c[~np.isnan(c[:, 0])])
    pts = np.concatenate(pts)
    extent = float(np.max(np.ptp(pts, axis=0)))
    return extent if extent > 1e-9 else 0.5


def draw_robot(
    robot: SerialRobot,
    q: ArrayLike,
    ax: Axes | None = None,
    *,
    frames: bool = True,
    joint_labels: bool | Sequence[str] = False,
    view: str = "3d",
    tool: ArrayLike | str | None = "auto",
    com: bool = False,
    gravity: bool = False,
    frame_size: float | None = None,
    ghost_alpha: float = 0.3,
    elev: float | None = None,
    azim: float | None = None,
) -> Axes:
    """Draw a serial robot as a stick figure at one or several configurations.

    Every link is one straight segment from the origin of its frame to the next joint (the
    base, link 0, from the base origin to joint 1). A revolute joint is a short cylinder
    along its axis; a prismatic joint is a translucent rail over its stroke (its
    ``q_limits``) with a solid block where the joint is, so that sliding joints stand out.
    Link frames are drawn as x (vermillion), y (green) and z (blue) axes.

    Parameters
    ----------
    robot : SerialRobot
        Any robot of robidlib: from modified DH, from a URDF, or a ready model.
    q : array_like, shape (n,) or (K, n)
        Joint positions (rad or m). With K rows the K configurations are drawn together:
        the last one solid, the others as fainter "ghosts" (no frames, labels or centres of
        mass), e.g. a few poses of a motion.
    ax : matplotlib.axes.Axes, optional
        3-D axes (``fig.add_subplot(projection="3d")``) for ``view="3d"``, 2-D axes for a
        planar view; a new figure is made when omitted. Drawing several robots on one axes
        keeps all of them in view.
    frames : bool, default True
        Draw the base frame and the link frames.
    joint_labels : bool or sequence of str, default False
        Write the joint names (``robot.joint_names``) or the given n labels at the joints.
    view : {"3d", "xy", "xz", "yz"}, default "3d"
        A 3-D drawing, or the orthogonal projection onto a coordinate plane of the base
        frame (``"xy"`` for the planar 2R arm, whose plane of motion is x-y).
    tool : array_like, shape (3,), "auto" or None, default "auto"
        Where the last link's segment ends, in the last link frame (m): a tool point; with
        ``"auto"``, twice the link's centre of mass (where a uniform bar would end) when that
        point is off the frame origin; with None, no segment for the last link (a robot
        model has no geometry beyond its last joint).
    com : bool, default False
        Mark the centre of mass of every link that has a mass.
    gravity : bool, default False
        Draw an arrow along ``robot.gravity``.
    frame_size : float, optional
        Length of the frame axes (m); default 15 % of the drawing's extent.
    ghost_alpha : float, default 0.3
        Opacity of the ghost configurations, in (0, 1].
    elev, azim : float, optional
        Viewing angles (degrees) of a 3-D drawing; default 25 and -60 on new axes. The
        base axis against gravity is drawn upwards (y for the planar 2R arm, z usually).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on, with equal scales on all axes.

    Raises
    ------
    TypeError
        If ``robot`` is not a :class:`~robidlib.robot.SerialRobot`, ``q`` is complex or not
        numeric, ``ax`` is not a matplotlib axes of the kind ``view`` needs, ``frames``,
        ``com`` or ``gravity`` is not a bool, or ``joint_labels`` holds non-strings.
    ValueError
        If ``q`` does not have n columns, is empty or holds NaN/inf; for an unknown
        ``view``, a ``tool`` not of shape (3,) nor ``"auto"``, a non-positive ``frame_size``, a
        ``ghost_alpha`` outside (0, 1] or ``joint_labels`` of the wrong length.

    Examples
    --------
    >>> import numpy as np
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from robidlib.models import redundant_5dof
    >>> from robidlib.plotting import draw_robot
    >>> robot = redundant_5dof()
    >>> ax = draw_robot(robot, [0.2, 0.5, 0.4, -0.8, 0.1], joint_labels=True)
    >>> sum(line.get_gid() == "link" for line in ax.lines)   # the base and the five links
    6
    >>> sum(c.get_gid() == "prismatic" for c in ax.collections)   # the lift, the telescope
    2
    >>> ax = draw_robot(robot, np.zeros((3, 5)) + [[0.0], [0.1], [0.2]])   # three ghosts
    """
    qs = _check_q(robot, q)
    view = check_choice("view", view, _VIEWS)
    if isinstance(tool, str):
        check_choice("tool", tool, ("auto",))
        tool_arr = _auto_tool(robot)
    else:
        tool_arr = None if tool is None else _real("tool", tool, shape=(3,))
    fs = None if frame_size is None else check_positive("frame_size", frame_size)
    ghost = _fraction("ghost_alpha", ghost_alpha)
    frames, com, gravity = (check_flag(k, v) for k, v in (("frames", frames), ("com", com), ("gravity", gravity)))
    if isinstance(joint_labels, (bool, np.bool_)):
        names = tuple(robot.joint_names) if joint_labels else None
    elif isinstance(joint_labels, str):
        raise TypeError("joint_labels must be a bool or a sequence of n strings, got a single string")
    else:
        names = tuple(joint_labels)
        bad = [s for s in names if not isinstance(s, str)]
        if bad:
            raise TypeError(f"joint_labels must hold strings, got {type(bad[0]).__name__} {bad[0]!r}")
        if len(names) != robot.n:
            raise ValueError(f"joint_labels must hold {robot.n} labels for robot {robot.name!r}, got {len(names)}")
    angles = []
    for nm, v in (("elev", elev), ("azim", azim)):
        if v is not None and (isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer,
                                                                                      np.floating))
                              or not np.isfinite(v)):
            raise ValueError(f"{nm} must be a finite number of degrees, got {v!r}")
        angles.append(v)
    three_d = view == "3d"
    ax = _axes(ax, three_d, figsize=(5.2, 4.6) if three_d else (5.2, 4.0))
    ch = _chain(robot, qs, tool_arr)
    L = _scale(ch, com)
    size = dict(L=L, frame=0.15 * L if fs is None else fs)
    draw = _Draw3D(ax, size) if three_d else _Draw2D(ax, size, _PLANES[view])
    fresh = not getattr(ax, "_robidlib_drawn", False)
    up = _up(robot.gravity)
    draw.base(up)
    K = qs.shape[0]
    for k in range(K):
        last = k == K - 1
        alpha = 1.0 if last else ghost * (0.5 + 0.5 * k / max(K - 1, 1))
        for seg in ch.segments[k]:
            draw.link(seg, alpha)
        for i in range(robot.n):
            if robot.is_prismatic[i]:
                draw.prismatic(ch.B[k, i], ch.A[k, i], ch.U[k, i], ch.rail[i], qs[k, i], alpha, rail=last)
            else:
                draw.revolute(ch.B[k, i], ch.A[k, i], ch.U[k, i], alpha, solid=last)
        if com and last:
            for c in ch.com[k]:
                if not np.isnan(c[0]):
                    draw.com(c, alpha)
        if last and frames:
            draw.frame(np.eye(4), 0)
            for i in range(robot.n):
                draw.frame(ch.T[k, i], i + 1)
        if last and names is not None:
            for group in _coincident(ch.B[k], 0.02 * L):
                draw.label(ch.B[k, group[0]], ch.U[k, group[0]], ", ".join(names[i] for i in group))
    if gravity:
        g = robot.gravity
        if np.linalg.norm(g) > 0:
            draw.gravity(g / np.linalg.norm(g))
    draw.finish()
    if three_d and (fresh or any(a is not None for a in angles)):
        ax.view_init(elev=25.0 if angles[0] is None else angles[0], azim=-60.0 if angles[1] is None else angles[1],
                     vertical_axis="xyz"[int(np.argmax(up))] if up.max() > 0.99 else "z")
    ax._robidlib_drawn = True
    return ax


# ---------------------------------------------------------------------- 3-D
class _Draw3D:
    def __init__(self, ax: Axes, size: dict[str, float]) -> None:
        self.ax, self.L, self.fl = ax, size["L"], size["frame"]
        self.pts: list[np.ndarray] = []
        # finish() sets the limits from the drawn points; matplotlib's 3-D autoscaling on every
        # artist is not needed, and from an empty view it can overflow (a RuntimeWarning in
        # mplot3d's margin computation on some versions), so it is switched off
        ax.set_autoscale_on(False)

    def _poly(self, faces: list[np.ndarray], gid: str, color: str, alpha: float, edge: str | None = None) -> None:
        from mpl_toolkits.mplot3d.art3d import Poly3DCollection

        pc = Poly3DCollection(faces, facecolor=color, edgecolor=edge or "none", linewidth=0.5, alpha=alpha)
        pc.set_gid(gid)
        self.ax.add_collection3d(pc)
        self.pts.append(np.concatenate(faces))

    def base(self, up: np.ndarray) -> None:
        s = 0.12 * self.L
        e1 = np.cross(up, np.eye(3)[np.argmin(np.abs(up))])
        e1 /= np.linalg.norm(e1)
        e2 = np.cross(up, e1)
        sq = np.array([s * (i * e1 + j * e2) for i, j in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
        self._poly([sq], "base", ROBOT_COLORS["base"], 0.6, edge="0.3")   # a plate normal to gravity
        self.ax.plot([0], [0], [0], "s", color="0.2", ms=4, gid="base")

    def link(self, seg: np.ndarray, alpha: float) -> None:
        self.ax.plot(*seg.T, color=ROBOT_COLORS["link"], lw=3.5, alpha=alpha, solid_capstyle="round", gid="link")
        self.pts.append(seg)

    def revolute(self, p: np.ndarray, a: np.ndarray, u: np.ndarray, alpha: float, solid: bool) -> None:
        if not solid:
            self.ax.plot(*p[:, None], "o", color=ROBOT_COLORS["revolute"], ms=4, alpha=alpha, gid="revolute")
            return
        r, h = 0.035 * self.L, 0.12 * self.L
        v = np.cross(a, u)
        th = np.linspace(0.0, 2 * np.pi, 17)
        ring = p + r * (np.cos(th)[:, None] * u + np.sin(th)[:, None] * v)
        lo, hi = ring - 0.5 * h * a, ring + 0.5 * h * a
        faces = [np.array([lo[j], lo[j + 1], hi[j + 1], hi[j]]) for j in range(16)]
        faces += [lo[:-1], hi[:-1]]
        self._poly(faces, "revolute", ROBOT_COLORS["revolute"], 0.9 * alpha, edge=None)

    def _box(self, p0: np.ndarray, p1: np.ndarray, a: np.ndarray, u: np.ndarray, w: float) -> list[np.ndarray]:
        v = np.cross(a, u)
        c = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
        ring0 = np.array([p0 + 0.5 * w * (i * u + j * v) for i, j in c])
        ring1 = ring0 + (p1 - p0)
        faces = [ring0, ring1]
        faces += [np.array([ring0[j], ring0[(j + 1) % 4], ring1[(j + 1) % 4], ring1[j]]) for j in range(4)]
        return faces

    def prismatic(self, p, a, u, stroke, qi, alpha, rail) -> None:
        if rail:
            faces = self._box(p + stroke[0] * a, p + stroke[1] * a, a, u, 0.045 * self.L)
            self._poly(faces, "rail", ROBOT_COLORS["prismatic"], 0.25, edge=ROBOT_COLORS["prismatic"])
        c, hl = p + qi * a, 0.06 * self.L
        self._poly(self._box(c - hl * a, c + hl * a, a, u, 0.085 * self.L), "prismatic",
                   ROBOT_COLORS["prismatic"], 0.95 * alpha, edge="0.2")

    def com(self, c: np.ndarray, alpha: float) -> None:
        self.ax.plot(*c[:, None], "o", ms=6, mfc="white", mec="k", mew=1.2, alpha=alpha, gid="com")
        self.ax.plot(*c[:, None], ".", ms=3, color="k", alpha=alpha, gid="com")
        self.pts.append(c[None])

    def frame(self, T: np.ndarray, i: int) -> None:
        o = T[:3, 3]
        for k, axis in enumerate("xyz"):
            tip = o + self.fl * T[:3, k]
            self.ax.plot(*np.stack([o, tip]).T, color=ROBOT_COLORS[axis], lw=1.3, gid="frame")
            self.pts.append(tip[None])
            if i == 0:
                self.ax.text(*(o + 1.15 * self.fl * T[:3, k]), axis, color=ROBOT_COLORS[axis], fontsize=8,
                             ha="center", va="center", zorder=100, gid="frame")

    def label(self, p: np.ndarray, u: np.ndarray, text: str) -> None:
        q = p + 0.07 * self.L * u
        self.ax.text(*q, text, fontsize=8, color="0.1", zorder=100, gid="label")

    def gravity(self, g: np.ndarray) -> None:
        P = np.concatenate(self.pts)
        start = np.where(g < 0, P.max(axis=0), P.min(axis=0))   # a corner, the arrow points inwards
        self.ax.quiver(*start, *(0.25 * self.L * g), color=ROBOT_COLORS["gravity"], lw=1.5,
                       arrow_length_ratio=0.3, gid="gravity")
        self.ax.text(*(start + 0.12 * self.L * g + 0.04 * self.L * np.array([1.0, 0, 0])), "$g$",
                     fontsize=9, gid="gravity")
        self.pts.append(np.stack([start, start + 0.25 * self.L * g]))

    def finish(self) -> None:
        ax = self.ax
        P = np.concatenate(self.pts)
        lo, hi = P.min(axis=0), P.max(axis=0)
        old = getattr(ax, "_robidlib_bounds", None)
        if old is not None:
            lo, hi = np.minimum(lo, old[0]), np.maximum(hi, old[1])
        ax._robidlib_bounds = (lo, hi)
        mid, half = (lo + hi) / 2, 0.55 * max(float(np.max(hi - lo)), 1e-3)
        ax.set_xlim(mid[0] - half, mid[0] + half)
        ax.set_ylim(mid[1] - half, mid[1] + half)
        ax.set_zlim(mid[2] - half, mid[2] + half)
        ax.set_box_aspect((1.0, 1.0, 1.0))
        ax.set_xlabel("$x$ (m)", fontsize=8, labelpad=-2)
        ax.set_ylabel("$y$ (m)", fontsize=8, labelpad=-2)
        ax.set_zlabel("$z$ (m)", fontsize=8, labelpad=-2)
        ax.tick_params(labelsize=7, pad=0)


# ---------------------------------------------------------------------- 2-D
class _Draw2D:
    def __init__(self, ax: Axes, size: dict[str, float], plane: tuple[int, int, int]) -> None:
        self.ax, self.L, self.fl = ax, size["L"], size["frame"]
        self.i, self.j, self.k = plane
        self.pts: list[np.ndarray] = []

    def _p(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(x)[..., [self.i, self.j]]

    def _polygon(self, corners: np.ndarray, gid: str, **kw: Any) -> None:
        from matplotlib.patches import Polygon

        self.ax.add_patch(Polygon(corners, closed=True, gid=gid, **kw))
        self.pts.append(corners)

    def _rect(self, p0: np.ndarray, p1: np.ndarray, w: float) -> np.ndarray:
        d = p1 - p0
        n = np.linalg.norm(d)
        t = d / n if n > 1e-12 else np.array([1.0, 0.0])
        nrm = 0.5 * w * np.array([-t[1], t[0]])
        return np.array([p0 + nrm, p1 + nrm, p1 - nrm, p0 - nrm])

    def base(self, up: np.ndarray) -> None:
        s = 0.07 * self.L
        down = -self._p(up)
        if np.linalg.norm(down) < 0.5:     # gravity normal to the plane: the view's vertical
            down = np.array([0.0, -1.0])
        down /= np.linalg.norm(down)
        side = np.array([-down[1], down[0]])
        tri = np.array([[0.0, 0.0], 1.2 * s * down - s * side, 1.2 * s * down + s * side])
        self._polygon(tri, "base", facecolor="white", edgecolor="0.2", lw=1.2, zorder=3)
        gnd = np.array([1.2 * s * down - 1.8 * s * side, 1.2 * s * down + 1.8 * s * side,
                        1.8 * s * down + 1.8 * s * side, 1.8 * s * down - 1.8 * s * side])
        self._polygon(gnd, "base", facecolor="none", edgecolor="0.35", hatch="////", lw=0, zorder=2)
        self.ax.plot(gnd[:2, 0], gnd[:2, 1], color="0.2", lw=1.2, gid="base")

    def link(self, seg: np.ndarray, alpha: float) -> None:
        s = self._p(seg)
        self.ax.plot(s[:, 0], s[:, 1], color=ROBOT_COLORS["link"], lw=4, alpha=alpha,
                     solid_capstyle="round", zorder=2, gid="link")
        self.pts.append(s)

    def revolute(self, p, a, u, alpha, solid) -> None:
        from matplotlib.patches import Circle

        c, r = self._p(p), 0.035 * self.L
        if abs(a[self.k]) > 0.9:       # axis normal to the plane: a pin
            self.ax.add_patch(Circle(c, r, facecolor="white", edgecolor=ROBOT_COLORS["link"], lw=1.5,
                                     alpha=alpha, zorder=4, gid="revolute"))
            self.ax.add_patch(Circle(c, 0.35 * r, facecolor=ROBOT_COLORS["revolute"], edgecolor="none",
                                     alpha=alpha, zorder=5, gid="revolute"))
            self.pts.append(np.stack([c - r, c + r]))
        else:                          # axis in the plane: the axle seen from the side
            a2 = self._p(a)
            h = 0.06 * self.L
            self._polygon(self._rect(c - h * a2, c + h * a2, 2 * r), "revolute",
                          facecolor=ROBOT_COLORS["revolute"], edgecolor="0.2", lw=0.8, alpha=alpha, zorder=4)

    def prismatic(self, p, a, u, stroke, qi, alpha, rail) -> None:
        p2, a2 = self._p(p), self._p(a)
        if np.linalg.norm(a2) < 0.2:   # sliding normal to the plane: a square
            a2, w = self._p(u), 0.08 * self.L
            self._polygon(self._rect(p2 - 0.5 * w * a2, p2 + 0.5 * w * a2, w), "prismatic",
                          facecolor=ROBOT_COLORS["prismatic"], edgecolor="0.2", alpha=alpha, zorder=4)
            return
        if rail:
            self._polygon(self._rect(p2 + stroke[0] * a2, p2 + stroke[1] * a2, 0.045 * self.L), "rail",
                          facecolor=ROBOT_COLORS["prismatic"], edgecolor=ROBOT_COLORS["prismatic"],
                          alpha=0.3, zorder=1)
        c, hl = p2 + qi * a2, 0.06 * self.L * a2 / np.linalg.norm(a2)
        self._polygon(self._rect(c - hl, c + hl, 0.085 * self.L), "prismatic",
                      facecolor=ROBOT_COLORS["prismatic"], edgecolor="0.2", alpha=alpha, zorder=4)

    def com(self, c, alpha) -> None:
        from matplotlib.patches import Circle, Wedge

        c2, r = self._p(c), 0.03 * self.L
        self.ax.add_patch(Circle(c2, r, facecolor="white", edgecolor="k", lw=1.0, alpha=alpha, zorder=6, gid="com"))
        for t0 in (0, 180):
            self.ax.add_patch(Wedge(c2, r, t0, t0 + 90, facecolor="k", alpha=alpha, zorder=6, gid="com"))
        self.pts.append(np.stack([c2 - r, c2 + r]))

    def _arrow(self, o, tip, color, gid, text=None) -> None:
        ann = self.ax.annotate("", xy=tip, xytext=o, arrowprops=dict(arrowstyle="-|>", color=color, lw=1.3,
                                                                     shrinkA=0, shrinkB=0), zorder=7)
        ann.set_gid(gid)
        if text is not None:
            d = tip - o
            self.ax.text(*(o + 1.25 * d), text, color=color, fontsize=8, ha="center", va="center", zorder=8,
                         bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.75), gid=gid)
        self.pts.append(np.stack([o, o + 1.35 * (tip - o)]))

    def frame(self, T: np.ndarray, i: int) -> None:
        o = self._p(T[:3, 3])
        for k, axis in enumerate("xyz"):
            d = self._p(T[:3, k])
            if np.linalg.norm(d) > 0.3:
                self._arrow(o, o + self.fl * d, ROBOT_COLORS[axis], "frame", f"${axis}_{{{i}}}$")

    def label(self, p, u, text) -> None:
        q = self._p(p) + np.array([0.05, 0.05]) * self.L
        self.ax.text(*q, text, fontsize=8, color="0.1", zorder=8, gid="label")
        self.pts.append(q[None])

    def gravity(self, g) -> None:
        g2 = self._p(g)
        if np.linalg.norm(g2) < 0.2:
            return
        P = np.concatenate(self.pts)
        start = np.array([P[:, 0].max() + 0.1 * self.L, P[:, 1].max()])
        self._arrow(start, start + 0.25 * self.L * g2, ROBOT_COLORS["gravity"], "gravity", None)
        self.ax.text(*(start + 0.125 * self.L * g2 + np.array([0.04 * self.L, 0])), "$g$", fontsize=9,
                     va="center", gid="gravity")

    def finish(self) -> None:
        ax = self.ax
        P = np.concatenate(self.pts)
        ax.update_datalim(P)
        ax.set_aspect("equal", adjustable="datalim")
        ax.autoscale_view()
        names = "xyz"
        ax.set_xlabel(f"${names[self.i]}$ (m)")
        ax.set_ylabel(f"${names[self.j]}$ (m)")
