"""One look for every figure of the book.

Figures have an opaque white background, so they stay readable in the theme's dark mode,
a light grid, and sizes that suit a book column.  Chapters call :func:`use_book_style` once.
"""

from __future__ import annotations

from typing import Any

import matplotlib as mpl

__all__ = ["BOOK_STYLE", "use_book_style"]

#: matplotlib rcParams applied by :func:`use_book_style`.
BOOK_STYLE: dict[str, Any] = {
    "figure.figsize": (7.0, 3.6),
    "figure.dpi": 96,
    "savefig.dpi": 150,
    "figure.facecolor": "white",
    "axes.facecolor": "white",
    "savefig.facecolor": "white",
    "savefig.transparent": False,
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
        rcParams to set on top of :data:`BOOK_STYLE`, with dots written as underscores is
        *not* supported: pass them as a dict, e.g. ``use_book_style(**{"figure.dpi": 120})``.

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
    >>> style["figure.facecolor"]
    'white'
    """
    unknown = [k for k in overrides if k not in mpl.rcParams]
    if unknown:
        raise ValueError(f"unknown matplotlib rcParams {unknown}; expected keys of matplotlib.rcParams")
    style = {**BOOK_STYLE, **overrides}
    mpl.rcParams.update(style)
    return style
