"""Figures of the book: one look, robot drawings and the chapters' recurring plots.

Chapters show only the lesson; the figure code they would otherwise repeat lives here, as
the support module of Labbe's Kalman-filter book keeps its plotting apart. This package
imports the rest of robidlib, never the other way round: the core computes, this draws.

* :mod:`robidlib.plotting.style`: :func:`use_book_style` (one look, colour-blind-safe
  palette, opaque backgrounds for the dark theme), :data:`PALETTE`.
* :mod:`robidlib.plotting.robots`: :func:`draw_robot`, a stick figure of any
  :class:`~robidlib.robot.SerialRobot` in 3-D or in a coordinate plane.
* :mod:`robidlib.plotting.schematics`: :func:`pendulum_sketch`, :func:`adaline_schematic`.
* :mod:`robidlib.plotting.figures`: :func:`confidence_ellipse`, :func:`singular_values`,
  :func:`estimate_band`, :func:`parameter_history`, :func:`grouped_bars`,
  :func:`estimate_errorbars`, :func:`measured_vs_predicted`,
  :func:`error_distribution`.

Every drawing function takes an optional ``ax`` and returns the axes it drew on; artists
carry a ``gid`` saying what they show (``"link"``, ``"truth"``, ``"band"``, ...).
"""

from .figures import (
    confidence_ellipse,
    ellipse_points,
    error_distribution,
    estimate_band,
    estimate_errorbars,
    grouped_bars,
    measured_vs_predicted,
    parameter_history,
    singular_values,
)
from .robots import ROBOT_COLORS, draw_robot
from .schematics import adaline_schematic, pendulum_sketch
from .style import BOOK_STYLE, PALETTE, use_book_style

__all__ = [
    "BOOK_STYLE",
    "PALETTE",
    "ROBOT_COLORS",
    "adaline_schematic",
    "confidence_ellipse",
    "draw_robot",
    "ellipse_points",
    "error_distribution",
    "estimate_band",
    "estimate_errorbars",
    "grouped_bars",
    "measured_vs_predicted",
    "parameter_history",
    "pendulum_sketch",
    "singular_values",
    "use_book_style",
]
