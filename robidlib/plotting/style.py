"""One look for every figure of the book.

Figures have an opaque white background, so they stay readable in the theme's dark mode,
a light grid, sizes that suit a book column, and a colour cycle that readers with a colour
vision deficiency can tell apart (Okabe and Ito's palette, ordered like matplotlib's default
so that ``"C0"`` is still blue, ``"C1"`` orange, ``"C2"`` green and ``"C3"`` red).  Chapters
call :func:`use_book_style` once.

The private helpers at the end check the arguments shared by every drawing function of
:mod:`robidlib.plotting` (axes, real arrays, positive sizes).
"""

from __future__ import annotations

from typing import Any

import matplotlib as mpl
import numpy as np
from cycler import cycler
from matplotlib.axes import Axes

from .._validate import as_array

__all__ = ["BOOK_STYLE", "PALETTE", "use_book_style"]

#: The book's colours, by name: Okabe and Ito's colour-blind-safe palette, plus a grey.
#: The colour cycle ``C0, C1, ...`` of :data:`BOOK_STYLE` uses them in this order.
PALETTE: dict[str, str] = {
    "blue": "#0072B2",
    "orange": "#E69F00",
    "green": "#009E73",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
    "sky": "#56B4E9",
    "wine": "#882255",
    "grey": "#7F7F7F",
    "olive": "#999933",
    "yellow": "#F0E442",
}

#: matplotlib rcParams applied by :func:`use_book_style`.
BOOK_STYLE: dict[str, Any] = {
    "figure.figsize": (7.0, 3.6),
    "figure.dpi": 96,
    "savefig.dpi": 150,
    "figure.facecolor": "white",
    "axes.facecolor": "white",
    "savefig.facecolor": "white",
    "savefig.transparent": False,
    "axes.prop_cycle": cycler(color=list(PALETTE.values())),
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "legend.fontsize": 9,
    "legend.frameon": False,
    "lines.linewidth": 1.4,
    "figure.constrained_layout.use": True,
}


def use_book_style(**overrides: Any) -> dict[str, Any]:
    """Apply the book's matplotlib style and return the rcParams that were set.

    Parameters
    ----------
    **overrides
        rcParams to set on top of :data:`BOOK_STYLE`. Their names contain dots, so pass them
        as a dict: ``use_book_style(**{"figure.dpi": 120})``.

    Returns
    -------
    dict
        The rcParams applied.

    Raises
    ------
    ValueError
        If an override names an rcParam that matplotlib does not know.

    Examples
    --------
    >>> from robidlib.plotting import use_book_style
    >>> style = use_book_style()
    >>> style["figure.facecolor"], style["axes.prop_cycle"].by_key()["color"][0]
    ('white', '#0072B2')
    """
    unknown = [k for k in overrides if k not in mpl.rcParams]
    if unknown:
        raise ValueError(f"unknown matplotlib rcParams {unknown}; expected keys of matplotlib.rcParams")
    style = {**BOOK_STYLE, **overrides}
    mpl.rcParams.update(style)
    return style


# ---------------------------------------------------------------------- shared checks
def _real(name: str, x: Any, **kw: Any) -> np.ndarray:
    """:func:`robidlib._validate.as_array` that refuses complex input instead of dropping it."""
    if _has_complex(x):
        raise TypeError(f"{name} must be real, got complex values")
    return as_array(name, x, **kw)


def _has_complex(x: Any) -> bool:
    try:
        return bool(np.iscomplexobj(np.asarray(x)))
    except (TypeError, ValueError):
        return False


def _axes(ax: Any, three_d: bool, **subplot_kw: Any) -> Axes:
    """Return ``ax`` after checking its kind, or a new axes of the right kind."""
    from mpl_toolkits.mplot3d import Axes3D

    if ax is None:
        import matplotlib.pyplot as plt

        fig = plt.figure(**subplot_kw)
        return fig.add_subplot(projection="3d") if three_d else fig.add_subplot()
    if not isinstance(ax, Axes):
        raise TypeError(f"ax must be a matplotlib Axes or None, got {type(ax).__name__}")
    if three_d and not isinstance(ax, Axes3D):
        raise TypeError(
            f"ax must be a 3-D axes (fig.add_subplot(projection='3d')), got a 2-D {type(ax).__name__}; "
            "pass view='xy', 'xz' or 'yz' for a planar drawing on 2-D axes"
        )
    if not three_d and isinstance(ax, Axes3D):
        raise TypeError("ax must be a 2-D axes for this drawing, got a 3-D axes")
    return ax


def _fraction(name: str, value: Any, allow_one: bool = True) -> float:
    """A real number in (0, 1] (or (0, 1) when ``allow_one`` is False)."""
    if isinstance(value, (bool, np.bool_, str, bytes)) or not np.isscalar(value) or np.iscomplexobj(value):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    v = float(value)
    if not (0.0 < v < 1.0 or (allow_one and v == 1.0)):
        raise ValueError(f"{name} must be in (0, 1{']' if allow_one else ')'}, got {v}")
    return v
