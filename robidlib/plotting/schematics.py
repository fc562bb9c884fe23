"""Schematic drawings of the chapters: the pendulum and the Adaline neuron.

Both draw on plain 2-D axes with the axis lines switched off, in the book's colours. Every
artist has a ``gid`` (``"rod"``, ``"angle"``, ``"node"``, ...) so that tests can find it.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Arc, Circle, Polygon, Rectangle, Wedge

from .._validate import check_flag
from .style import PALETTE, _axes, _real

__all__ = ["pendulum_sketch", "adaline_schematic"]


def _text(ax: Axes, xy: Any, s: str, gid: str, **kw: Any) -> None:
    kw.setdefault("fontsize", 12)
    t = ax.text(*xy, s, gid=gid, **kw)
    t.set_math_fontfamily("cm")   # Computer Modern, as the book's formulas: l and I differ


def _arrow(ax: Axes, tail: Any, head: Any, gid: str, color: str = "0.15", **kw: Any) -> None:
    props = dict(arrowstyle="-|>", color=color, lw=1.3, shrinkA=0, shrinkB=0, mutation_scale=12)
    props.update(kw)
    ann = ax.annotate("", xy=head, xytext=tail, arrowprops=props)
    ann.set_gid(gid)


def pendulum_sketch(
    ax: Axes | None = None,
    q: float = 0.6,
    *,
    labels: bool = True,
    torque: bool = True,
) -> Axes:
    """Sketch of the single pendulum of chapter 1.

    A body hangs from a pivot (a joint axis normal to the page): a rod and a disc whose
    centre of mass lies at the distance ``l`` from the pivot. The angle ``q`` is measured
    from the downward vertical, the weight ``m g`` acts at the centre of mass, ``I`` is the
    moment of inertia about the centre of mass and ``tau`` the joint torque, as in the model
    ``(I + m l^2) qdd + m g l sin q + b qd = tau`` (:class:`robidlib.models.Pendulum`).

    Parameters
    ----------
    ax : matplotlib.axes.Axes, optional
        2-D axes to draw on (a new figure when omitted).
    q : float, default 0.6
        Angle of the drawing, rad, from the downward vertical (counter-clockwise positive).
    labels : bool, default True
        Write the symbols ``q``, ``l``, ``m``, ``I``, ``m g`` and ``tau``.
    torque : bool, default True
        Draw the joint torque as a curved arrow around the pivot.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    TypeError
        If ``q`` is not a real number, ``labels`` or ``torque`` not a bool, or ``ax`` is not
        a 2-D matplotlib axes.
    ValueError
        If ``q`` is NaN/inf or outside ``[-pi/2, pi/2]`` (the drawing shows a hanging
        pendulum).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from robidlib.plotting import pendulum_sketch
    >>> ax = pendulum_sketch(q=0.5)
    >>> sorted(t.get_text() for t in ax.texts if t.get_text())
    ['$I$', '$\\\\tau$', '$l$', '$m$', '$m\\\\,g$', '$q$']
    """
    qv = _real("q", q, ndim=0)
    qf = float(qv)
    labels, torque = check_flag("labels", labels), check_flag("torque", torque)
    if abs(qf) > np.pi / 2:
        raise ValueError(f"q must be within [-pi/2, pi/2] rad for this sketch, got {qf}")
    ax = _axes(ax, False, figsize=(3.6, 3.8))
    d = np.array([np.sin(qf), -np.cos(qf)])       # along the rod
    nrm = np.array([np.cos(qf), np.sin(qf)])      # normal to the rod (towards larger q)
    l, r_disc, w = 1.0, 0.16, 0.05
    com = l * d
    ink, body = "0.15", PALETTE["sky"]
    # support and pivot
    ax.add_patch(Rectangle((-0.35, 0.12), 0.7, 0.09, facecolor="none", edgecolor="0.35", hatch="////",
                           lw=0, gid="support"))
    ax.plot([-0.35, 0.35], [0.12, 0.12], color=ink, lw=1.4, gid="support")
    ax.add_patch(Polygon([[0, 0], [-0.1, 0.12], [0.1, 0.12]], closed=True, facecolor="white", edgecolor=ink,
                         lw=1.2, gid="support"))
    # the downward vertical and the angle
    ax.plot([0, 0], [0, -1.35], ls="--", lw=0.9, color="0.45", gid="vertical")
    # rod and disc
    ax.add_patch(Polygon([w * nrm, w * nrm + (l - r_disc) * d, -w * nrm + (l - r_disc) * d, -w * nrm],
                         closed=True, facecolor=body, edgecolor=ink, lw=1.0, gid="rod"))
    ax.add_patch(Circle(com, r_disc, facecolor=body, edgecolor=ink, lw=1.0, gid="rod"))
    ax.add_patch(Circle((0, 0), 0.045, facecolor="white", edgecolor=ink, lw=1.4, zorder=5, gid="pivot"))
    # centre-of-mass symbol
    rc = 0.055
    ax.add_patch(Circle(com, rc, facecolor="white", edgecolor="k", lw=1.0, zorder=6, gid="com"))
    for t0 in (0, 180):
        ax.add_patch(Wedge(com, rc, t0, t0 + 90, facecolor="k", zorder=6, gid="com"))
    # angle q from the downward vertical
    ra = 0.42
    lo, hi = sorted((-90.0, -90.0 + np.degrees(qf)))
    ax.add_patch(Arc((0, 0), 2 * ra, 2 * ra, theta1=lo, theta2=hi, color=PALETTE["vermillion"], lw=1.3,
                     gid="angle"))
    tip = ra * d
    _arrow(ax, tip - 0.06 * np.sign(qf or 1) * nrm, tip, "angle", color=PALETTE["vermillion"])
    # weight at the centre of mass
    _arrow(ax, com, com + np.array([0.0, -0.45]), "gravity")
    # distance l: a dimension line beside the rod
    off = 0.2 * nrm
    ax.annotate("", xy=off + com, xytext=off, arrowprops=dict(arrowstyle="<|-|>", color="0.3", lw=0.9,
                                                               shrinkA=0, shrinkB=0, mutation_scale=9),
                ).set_gid("length")
    for end in (np.zeros(2), com):
        ax.plot(*np.stack([end - 0.05 * nrm, end + 1.25 * off]).T, color="0.3", lw=0.6, gid="length")
    if torque:
        ax.add_patch(Arc((0, 0), 0.26, 0.26, theta1=200, theta2=340, color=PALETTE["green"], lw=1.4,
                         gid="torque"))
        a = np.radians(340)
        _arrow(ax, 0.13 * np.array([np.cos(a - 0.3), np.sin(a - 0.3)]), 0.13 * np.array([np.cos(a), np.sin(a)]),
               "torque", color=PALETTE["green"])
    if labels:
        mid = ra + 0.1
        am = np.radians(-90.0 + np.degrees(qf) / 2)
        _text(ax, mid * np.array([np.cos(am), np.sin(am)]), "$q$", "angle", color=PALETTE["vermillion"],
              ha="center", va="center")
        _text(ax, 0.5 * com + 1.6 * off, "$l$", "length", ha="center", va="center")
        side = -(r_disc + 0.08) * nrm
        _text(ax, com + side + np.array([0, 0.06]), "$m$", "com", ha="center", va="center")
        _text(ax, com + side - np.array([0, 0.08]), "$I$", "com", ha="center", va="center")
        _text(ax, com + np.array([0.06, -0.4]), "$m\\,g$", "gravity", ha="left", va="center")
        if torque:
            _text(ax, (-0.2, -0.1), "$\\tau$", "torque", color=PALETTE["green"], ha="right", va="center")
    ax.set_xlim(-0.75, 0.95)
    ax.set_ylim(-1.55, 0.28)
    ax.set_aspect("equal")
    ax.axis("off")
    return ax


def adaline_schematic(
    ax: Axes | None = None,
    *,
    inputs: Sequence[str] = ("$x_1$", "$x_2$", "$\\vdots$", "$x_p$"),
    weights: Sequence[str] | None = None,
    bias: bool = False,
    output: str = "$y = x^{\\!\\top}\\! w$",
    target: str = "measured torque $d$",
    error: str = "error $e = d - y$\nadapts $w$ (delta rule)",
    caption: str | None = "inputs: one regressor row",
) -> Axes:
    """Schematic of the Adaline neuron: inputs, weights, summing node, output and error.

    The inputs are one row of the regressor, the weights the (base) parameters, the output
    the predicted torque; the error against the measured torque drives the delta rule.

    Parameters
    ----------
    ax : matplotlib.axes.Axes, optional
        2-D axes to draw on (a new figure when omitted).
    inputs : sequence of str
        Labels of the inputs from top to bottom; an entry ``"$\\vdots$"`` or ``"..."`` stands
        for the inputs left out and gets no arrow.
    weights : sequence of str, optional
        One label per input (``""`` for none); default ``$w_1$``, ``$w_2$``, ... numbered
        like the inputs, the last one ``$w_p$`` when the last input is ``$x_p$``.
    bias : bool, default False
        Add the constant input ``x_0 = 1`` with weight ``w_0`` on top (a torque offset).
    output, target, error : str
        Labels of the output arrow, of the desired signal and of the error feedback.
    caption : str or None, default "inputs: one regressor row"
        A note under the inputs.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    TypeError
        If a label is not a string, ``bias`` not a bool, or ``ax`` is not a 2-D matplotlib
        axes.
    ValueError
        If ``inputs`` is empty or ``weights`` does not have one label per input.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from robidlib.plotting import adaline_schematic
    >>> ax = adaline_schematic(bias=True)
    >>> [t.get_text() for t in ax.texts if t.get_gid() == "weight"]
    ['$w_0$', '$w_1$', '$w_2$', '$w_p$']
    """
    inputs = _labels("inputs", inputs)
    if not inputs:
        raise ValueError("inputs must hold at least one label, got an empty sequence")
    gap = [s.strip() in ("$\\vdots$", "...", "$\\dots$") for s in inputs]
    if weights is None:
        weights, k = [], 0
        for s, is_gap in zip(inputs, gap):
            k += not is_gap
            weights.append("" if is_gap else ("$w_p$" if s == "$x_p$" else f"$w_{k}$"))
    weights = _labels("weights", weights)
    if len(weights) != len(inputs):
        raise ValueError(f"weights must hold one label per input ({len(inputs)}), got {len(weights)}")
    for name, s in (("output", output), ("target", target), ("error", error)):
        if not isinstance(s, str):
            raise TypeError(f"{name} must be a string, got {type(s).__name__}")
    if caption is not None and not isinstance(caption, str):
        raise TypeError(f"caption must be a string or None, got {type(caption).__name__}")
    bias = check_flag("bias", bias)
    if bias:
        inputs, weights, gap = ["$x_0 = 1$", *inputs], ["$w_0$", *weights], [False, *gap]
    ax = _axes(ax, False, figsize=(6.5, 2.8))
    node = (0.5, 0.5)
    cmp_ = (0.86, 0.5)
    ys = np.linspace(0.88, 0.12, len(inputs)) if len(inputs) > 1 else np.array([0.5])
    circle = dict(boxstyle="circle,pad=0.3", fc="white", ec="0.15", lw=1.2)
    for y, s, wlab, is_gap in zip(ys, inputs, weights, gap):
        _text(ax, (0.09, y), s, "input", ha="right", va="center")
        if is_gap:
            continue
        _arrow(ax, (0.1, y), node, "input", color="0.35", shrinkB=14)
        t = 0.42
        xw, yw = 0.1 + t * (node[0] - 0.1), y + t * (node[1] - y)
        _text(ax, (xw, yw + 0.035), wlab, "weight", color=PALETTE["blue"], ha="center", va="bottom", fontsize=10)
    _text(ax, node, "$\\Sigma$", "node", ha="center", va="center", fontsize=14, bbox=circle)
    _arrow(ax, node, cmp_, "output", shrinkA=14, shrinkB=9)
    _text(ax, (0.68, 0.54), output, "output", ha="center", va="bottom", fontsize=10)
    _text(ax, cmp_, "$+$", "node", ha="center", va="center", fontsize=9, bbox=circle)
    _text(ax, (cmp_[0] - 0.045, cmp_[1] - 0.09), "$-$", "node", ha="center", va="center", fontsize=9)
    _arrow(ax, (cmp_[0], 0.84), cmp_, "target", shrinkB=9)
    _text(ax, (cmp_[0], 0.87), target, "target", ha="center", va="bottom", fontsize=9)
    red = PALETTE["vermillion"]
    _arrow(ax, (cmp_[0], cmp_[1] - 0.02), (0.3, 0.27), "error", color=red, shrinkA=9,
           connectionstyle="arc3,rad=-0.35")
    _text(ax, (0.6, 0.33), error, "error", ha="center", va="center", fontsize=9, color=red)
    if caption:
        _text(ax, (0.0, -0.02), caption, "caption", ha="left", va="top", fontsize=9, color="0.35")
    ax.set_xlim(-0.05, 1.02)
    ax.set_ylim(-0.1, 1.0)
    ax.axis("off")
    return ax


def _labels(name: str, labels: Any) -> list[str]:
    if isinstance(labels, str) or not isinstance(labels, Sequence):
        raise TypeError(f"{name} must be a sequence of strings, got {type(labels).__name__}")
    bad = [s for s in labels if not isinstance(s, str)]
    if bad:
        raise TypeError(f"{name} must be a sequence of strings, got {bad[0]!r} among them")
    return list(labels)
