"""Small helpers the chapters use to show results: glued numbers and rendered tables.

A chapter computes a number, then *glues* it (``myst_nb.glue``) so that the prose shows the
computed value through ``{glue:text}`name:.2f``` instead of a literal that the next library
change would make stale. :func:`glue` does that without printing anything, and works where
``myst_nb`` is not installed (a plain Python session, Colab): there it only remembers the value.

Tables are shown rendered (:func:`table` returns an ``IPython.display.Markdown`` object), not as
text with pipes, so that the HTML site, the PDF and JupyterLab all show a real table.

A Monte Carlo too slow to repeat in a chapter's time budget is computed once by a script in
``tools/`` and stored as package data with its recipe (``robidlib/data/studies``);
:func:`load_study` reads it back.
"""

from __future__ import annotations

import json
import math
import numbers
from pathlib import Path
from typing import Any, Sequence

import numpy as np

__all__ = ["glue", "glued", "table", "estimate_table", "load_study", "stored_studies"]

#: Where the stored studies live (package data, written by scripts in ``tools/``).
STUDIES_DIR = Path(__file__).resolve().parent / "data" / "studies"
_STUDY_FORMAT = "robidlib-study/1"

_STORE: dict[str, Any] = {}


def glue(name: str, value: Any) -> Any:
    """Store ``value`` under ``name`` for the book's ``{glue:text}`` roles, display nothing.

    Parameters
    ----------
    name : str
        Key used in the prose, e.g. ``{glue:text}`ls_error:.1f```; letters, digits, ``_``
        and ``-`` only.
    value : object
        The value; numpy scalars are converted to Python numbers so that format specs such as
        ``:.2f`` work.

    Returns
    -------
    object
        ``value`` (converted), so that ``x = glue("x", compute())`` reads naturally.

    Raises
    ------
    TypeError
        If ``name`` is not a string.
    ValueError
        If ``name`` is empty or has other characters, or a number is NaN or infinite (a number
        the prose states must be a number).

    Examples
    --------
    >>> from robidlib.book import glue, glued
    >>> glue("answer", 41.99)
    41.99
    >>> glued("answer")
    41.99
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    if not name or not all(ch.isalnum() or ch in "_-" for ch in name):
        raise ValueError(f"name must be non-empty letters, digits, '_' or '-', got {name!r}")
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, numbers.Number) and not isinstance(value, bool):
        if isinstance(value, complex) or not math.isfinite(float(value)):
            raise ValueError(f"value glued as {name!r} must be a finite real number, got {value!r}")
    _STORE[name] = value
    try:
        from myst_nb import glue as _myst_glue
    except ImportError:  # not building the book: remembering the value is enough
        return value
    _myst_glue(name, value, display=False)
    return value


def glued(name: str) -> Any:
    """Return the value last glued under ``name`` in this session.

    Raises
    ------
    TypeError
        If ``name`` is not a string.
    ValueError
        If nothing was glued under ``name``.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__} {name!r}")
    if name not in _STORE:
        raise ValueError(f"nothing glued under name {name!r}; expected one of {sorted(_STORE)}")
    return _STORE[name]


def _cell(v: Any, fmt: str) -> str:
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        return str(v).replace("|", "\\|")
    return format(v, fmt)


def table(rows: Sequence[Sequence[Any]], headers: Sequence[str], fmt: str | Sequence[str] = ".4g", caption: str | None = None):
    """A rendered Markdown table (shown as a real table in JupyterLab, the site and the PDF).

    Parameters
    ----------
    rows : sequence of sequences
        One sequence of cells per row; numbers are formatted with ``fmt``, anything else with
        ``str``.
    headers : sequence of str
        Column titles (Markdown and inline math allowed).
    fmt : str or sequence of str, default ".4g"
        Format spec for numeric cells, one for all columns or one per column.
    caption : str, optional
        A line of text shown above the table.

    Returns
    -------
    IPython.display.Markdown

    Raises
    ------
    ValueError
        If a row's length differs from the number of headers, or ``fmt`` has the wrong length.
    TypeError
        If ``rows`` is not a sequence of rows, ``headers`` not strings, ``fmt`` not format
        specs, ``caption`` not a string.

    Examples
    --------
    >>> md = table([["a1", 0.0812], ["a2", 2.4991]], ["name", "estimate"], fmt=".3f")
    >>> print(md.data)
    | name | estimate |
    | --- | --- |
    | a1 | 0.081 |
    | a2 | 2.499 |
    """
    from IPython.display import Markdown

    from ._validate import check_names, check_text

    headers = list(check_names("headers", headers, unique=False))
    if isinstance(fmt, str):
        fmts = [fmt] * len(headers)
    else:
        fmts = list(check_names("fmt", fmt, unique=False))
    if len(fmts) != len(headers):
        raise ValueError(f"fmt must be one spec or one per column ({len(headers)}), got {len(fmts)}")
    if caption is not None:
        check_text("caption", caption)
    if isinstance(rows, (str, bytes)) or not hasattr(rows, "__iter__"):
        raise TypeError(f"rows must be a sequence of rows (sequences of cells), got {type(rows).__name__}")
    lines = [] if caption is None else [str(caption), ""]
    lines += ["| " + " | ".join(headers) + " |", "| " + " | ".join("---" for _ in headers) + " |"]
    for k, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not hasattr(row, "__iter__"):
            raise TypeError(f"rows[{k}] must be a sequence of cells, got {type(row).__name__}")
        row = list(row)
        if len(row) != len(headers):
            raise ValueError(f"rows[{k}] has {len(row)} cells, expected {len(headers)} (one per entry of headers)")
        lines.append("| " + " | ".join(_cell(v, f) for v, f in zip(row, fmts)) + " |")
    return Markdown("\n".join(lines))


def estimate_table(est, truth: Sequence[float] | None = None, digits: int = 4, caption: str | None = None):
    """A rendered table of an :class:`robidlib.estimation.Estimate`: name, estimate, std, %sigma.

    Parameters
    ----------
    est : Estimate
        The estimate.
    truth : array_like, shape (p,), optional
        True values, shown in an extra column with the error in standard deviations.
    digits : int, default 4
        Significant digits.
    caption : str, optional
        A line above the table.

    Returns
    -------
    IPython.display.Markdown

    Raises
    ------
    ValueError
        If ``truth`` does not have one finite entry per parameter or ``digits`` is not in
        1..17.
    TypeError
        If ``est`` is not an Estimate, ``truth`` not numbers or ``caption`` not a string.
    """
    from ._validate import as_array, check_text

    if not all(hasattr(est, a) for a in ("params", "std", "rel_std", "names")):
        raise TypeError(f"est must be an Estimate, got {type(est).__name__}")
    if isinstance(digits, bool) or not isinstance(digits, numbers.Integral) or not 1 <= digits <= 17:
        raise ValueError(f"digits must be an integer in 1..17, got {digits!r}")
    if caption is not None:
        check_text("caption", caption)
    g = f".{int(digits)}g"
    p = np.asarray(est.params, dtype=float)
    std = np.asarray(est.std, dtype=float)
    rel = np.asarray(est.rel_std, dtype=float)
    headers = ["parameter", "estimate", "std", "%σ"]
    rows = [[n, p[i], std[i], rel[i]] for i, n in enumerate(est.names)]
    fmts = ["s", g, ".3g", ".3g"]
    if truth is not None:
        t = as_array("truth", truth, ndim=1)
        if t.shape != p.shape:
            raise ValueError(f"truth must have shape {p.shape} (one value per parameter), got {t.shape}")
        headers += ["truth", "error / std"]
        fmts += [g, ".2f"]
        for i, r in enumerate(rows):
            r += [t[i], (p[i] - t[i]) / std[i] if std[i] > 0 else float("nan")]
    return table(rows, headers, fmts, caption)


def stored_studies() -> list[str]:
    """Names of the stored studies (package data), sorted.

    Examples
    --------
    >>> from robidlib.book import stored_studies
    >>> "physical_mc" in stored_studies()
    True
    """
    return sorted(f.stem for f in STUDIES_DIR.glob("*.json"))


def load_study(name: str) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """A stored study: its results as arrays, and its meta data (recipe, versions).

    A study is a seeded Monte Carlo that a chapter relies on but that takes too long to run
    in the chapter; the script that computes it (named in the recipe's docstring, in
    ``tools/``) stores every run, and the chapter recomputes a few runs to check them.

    Parameters
    ----------
    name : str
        The study's name (:func:`stored_studies`), e.g. ``"physical_mc"``.

    Returns
    -------
    results : dict of str to numpy.ndarray
        One array per stored quantity (e.g. ``"poor/LMI/dtau"``, one entry per run).
    meta : dict
        ``"recipe"`` (the study's parameters) and ``"versions"`` of the libraries that ran it.

    Raises
    ------
    TypeError
        If ``name`` is not a string.
    ValueError
        If no study has that name, or the file is not a stored study.

    Examples
    --------
    >>> from robidlib.book import load_study
    >>> results, meta = load_study("physical_mc")
    >>> results["poor/LMI/dtau"].shape == (meta["recipe"]["runs"],)
    True
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    if not name or not all(ch.isalnum() or ch in "_-" for ch in name):
        raise ValueError(f"name must be non-empty letters, digits, '_' or '-', got {name!r}")
    path = STUDIES_DIR / f"{name}.json"
    if not path.is_file():
        raise ValueError(f"name {name!r} is not a stored study; stored: {stored_studies()}")
    doc = json.loads(path.read_text())
    if not isinstance(doc, dict) or doc.get("format") != _STUDY_FORMAT:
        raise ValueError(f"{path} is not a stored study (format {_STUDY_FORMAT!r} expected)")
    return {k: np.asarray(v) for k, v in doc["results"].items()}, doc["meta"]
