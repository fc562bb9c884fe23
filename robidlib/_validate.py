"""Private input checks shared by every public function of robidlib.

Each helper converts an argument to a float array, checks its shape and that it is finite,
and raises a ``ValueError`` (or ``TypeError``) whose message names the argument, says what
was received and what was expected.  Nothing is silently reshaped or repaired.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

__all__ = [
    "as_array",
    "as_finite",
    "check_positive",
    "check_nonnegative",
    "check_choice",
    "check_rng",
]


def _shape_str(shape: Sequence[int | None]) -> str:
    return "(" + ", ".join("any" if s is None else str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def as_array(
    name: str,
    x: Any,
    ndim: int | Sequence[int] | None = None,
    shape: Sequence[int | None] | None = None,
    finite: bool = True,
    dtype: type = float,
) -> np.ndarray:
    """Convert ``x`` to a float array and check its dimensions, shape and finiteness.

    Parameters
    ----------
    name : str
        Argument name used in error messages.
    x : array_like
        The value to check.
    ndim : int or sequence of int, optional
        Allowed numbers of dimensions.
    shape : sequence of int or None, optional
        Expected shape; ``None`` entries match any length.
    finite : bool, default True
        Reject NaN and infinite entries.
    dtype : type, default float
        Target dtype (``float`` or ``complex``).

    Returns
    -------
    numpy.ndarray
        The converted array (a new array only when a conversion was needed).

    Raises
    ------
    TypeError
        If ``x`` cannot be converted to a numeric array.
    ValueError
        If the dimensions, shape or finiteness are not as expected.
    """
    if isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be numeric array-like, got {type(x).__name__}")
    try:
        a = np.asarray(x, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be numeric array-like, got {type(x).__name__}: {exc}") from None
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if a.ndim not in allowed:
            raise ValueError(
                f"{name} must have {' or '.join(map(str, allowed))} dimension(s), "
                f"got shape {a.shape}"
            )
    if shape is not None:
        if a.ndim != len(shape) or any(s is not None and s != d for s, d in zip(shape, a.shape)):
            raise ValueError(f"{name} must have shape {_shape_str(shape)}, got {a.shape}")
    if finite and a.size and not np.all(np.isfinite(a)):
        bad = int(np.size(a) - np.count_nonzero(np.isfinite(a)))
        raise ValueError(f"{name} must be finite, got {bad} NaN or infinite entr{'y' if bad == 1 else 'ies'}")
    return a


def as_finite(name: str, x: Any) -> np.ndarray:
    """Shorthand for :func:`as_array` with only the finiteness check."""
    return as_array(name, x)


def check_positive(name: str, value: Any, allow_zero: bool = False) -> float:
    """Return ``value`` as a float after checking it is finite and positive.

    Raises
    ------
    TypeError
        If ``value`` is not a real scalar.
    ValueError
        If it is NaN/inf, negative, or zero when ``allow_zero`` is False.
    """
    if isinstance(value, (bool, np.bool_, str, bytes)) or (not np.isscalar(value) and np.ndim(value) != 0):
        raise TypeError(f"{name} must be a real scalar, got {type(value).__name__}")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real scalar, got {type(value).__name__}") from None
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite, got {v}")
    if v < 0 or (v == 0 and not allow_zero):
        raise ValueError(f"{name} must be {'>= 0' if allow_zero else '> 0'}, got {v}")
    return v


def check_nonnegative(name: str, value: Any) -> float:
    """Return ``value`` as a float after checking it is finite and >= 0."""
    return check_positive(name, value, allow_zero=True)


def check_choice(name: str, value: Any, choices: Sequence[str]) -> str:
    """Check that ``value`` is one of ``choices`` (strings) and return it."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"unknown {name} {value!r}; expected one of {', '.join(map(repr, choices))}")
    return value


def check_rng(rng: Any, name: str = "rng") -> np.random.Generator:
    """Return a ``numpy.random.Generator``: ``rng`` itself, or one seeded with the int ``rng``.

    ``None`` is refused so that every random draw in the book is reproducible.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        return np.random.default_rng(int(rng))
    raise TypeError(
        f"{name} must be a numpy.random.Generator or an int seed, got {type(rng).__name__}; "
        "use numpy.random.default_rng(seed) so that results are reproducible"
    )
