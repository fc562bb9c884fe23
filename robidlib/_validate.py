"""Private input checks shared by every public function of robidlib.

Each helper converts an argument to a float array, checks its shape and that it is finite,
and raises a ``ValueError`` (or ``TypeError``) whose message names the argument, says what
was received and what was expected.  Nothing is silently reshaped or repaired.
"""

from __future__ import annotations

import numbers
from typing import Any, Sequence

import numpy as np

__all__ = [
    "as_array",
    "as_finite",
    "check_positive",
    "check_nonnegative",
    "check_tolerance",
    "check_int",
    "check_flag",
    "check_text",
    "check_names",
    "check_choice",
    "check_rng",
    "check_fields",
    "check_same_robot",
]

#: Smallest relative tolerance that means something in double precision (100 ulps of 1).
MIN_REL_TOL = 100 * np.finfo(float).eps


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
        If ``x`` cannot be converted to a numeric array, is complex (and ``dtype`` is real),
        or holds booleans (``True``, a bool mask: numbers are meant, and ``True`` would
        silently become 1): nothing is silently cast.
    ValueError
        If the dimensions, shape or finiteness are not as expected.
    """
    if type(x) is np.ndarray and x.dtype == dtype:          # the common case: nothing to convert
        a = x
    else:
        if isinstance(x, (str, bytes)):
            raise TypeError(f"{name} must be numeric array-like, got {type(x).__name__}")
        if isinstance(x, (bool, np.bool_)):
            raise TypeError(f"{name} must be numeric array-like, got the bool {x!r}")
        try:
            raw = np.asarray(x)
        except (TypeError, ValueError) as exc:               # ragged nested sequences
            raise TypeError(f"{name} must be numeric array-like, got {type(x).__name__}: {exc}") from None
        if raw.dtype.kind == "c" and np.dtype(dtype).kind != "c":
            raise TypeError(
                f"{name} must be real, got a complex array (dtype {raw.dtype}); pass its real part "
                "explicitly if the imaginary part is round-off"
            )
        if raw.dtype.kind in "USVMm":
            raise TypeError(f"{name} must be numeric array-like, got an array of dtype {raw.dtype}")
        if raw.dtype.kind == "b":
            raise TypeError(f"{name} must be numeric array-like, got an array of bools (a mask?); "
                            "pass numbers (e.g. mask.astype(float)) if that is what you mean")
        if raw.dtype.kind == "O":                            # None would become NaN, a str a number
            bad = [v for v in raw.flat if not isinstance(v, numbers.Real) or isinstance(v, (bool, np.bool_))][:1]
            if bad:
                bad = bad[0]
                raise TypeError(f"{name} must be numeric array-like, got {type(x).__name__} holding "
                                f"{type(bad).__name__} {bad!r}")
        try:
            a = np.asarray(raw, dtype=dtype)
        except (TypeError, ValueError) as exc:               # objects that are not numbers
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


def check_tolerance(name: str, value: Any, minimum: float = MIN_REL_TOL, allow_zero: bool = False) -> float:
    """A positive tolerance that round-off can meet: ``value >= minimum`` (or exactly 0 if allowed).

    A tolerance below ``minimum`` (default 100 ulps of one, ``2.2e-14``) cannot be reached in
    double precision; it would make an iteration run to its budget or a rank test count
    round-off as information, so it is refused.

    Raises
    ------
    TypeError
        If ``value`` is not a real scalar.
    ValueError
        If it is NaN/inf, negative, zero (unless ``allow_zero``) or below ``minimum``.
    """
    v = check_positive(name, value, allow_zero=allow_zero)
    if 0.0 < v < minimum:
        raise ValueError(
            f"{name} must be >= {minimum:.3g} (smaller tolerances are below double-precision "
            f"round-off), got {v:.3g}"
        )
    return v


def check_int(name: str, value: Any, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as an int after checking it is an integer in ``[minimum, maximum]``.

    Raises
    ------
    TypeError
        If ``value`` is not an integer (a bool or a float is refused, also ``2.0``).
    ValueError
        If it is outside the bounds.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}")
    v = int(value)
    if minimum is not None and v < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {v}")
    if maximum is not None and v > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {v}")
    return v


def check_flag(name: str, value: Any) -> bool:
    """Return ``value`` as a bool after checking it is one (``"no"`` would be truthy)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")
    return bool(value)


def check_text(name: str, value: Any, allow_empty: bool = True) -> str:
    """Return ``value`` after checking it is a string (non-empty unless ``allow_empty``)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {type(value).__name__} {value!r}")
    if not allow_empty and not value:
        raise ValueError(f"{name} must be a non-empty string, got ''")
    return value


def check_names(name: str, value: Any, n: int | None = None, unique: bool = True) -> tuple[str, ...]:
    """A sequence of ``n`` strings (any number if ``n`` is None), distinct when ``unique``.

    Raises
    ------
    TypeError
        If ``value`` is a single string or not a sequence of strings.
    ValueError
        If it has the wrong length or repeats a name.
    """
    if isinstance(value, str):
        raise TypeError(f"{name} must be a sequence of names, got the string {value!r}")
    try:
        out = tuple(value)
    except TypeError:
        raise TypeError(f"{name} must be a sequence of names, got {type(value).__name__}") from None
    bad = [v for v in out if not isinstance(v, str)]
    if bad:
        raise TypeError(f"{name} must hold strings, got {type(bad[0]).__name__} {bad[0]!r}")
    if n is not None and len(out) != n:
        raise ValueError(f"{name} must have {n} entries, got {len(out)}: {out!r}")
    if unique and len(set(out)) != len(out):
        dup = next(v for v in out if out.count(v) > 1)
        raise ValueError(f"{name} must not repeat a name, got {dup!r} twice")
    return out


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


def check_fields(obj: Any, *, finite: bool = True, **specs: Sequence[int | str | None]) -> dict[str, int]:
    """Check the array fields of a (frozen) result dataclass and store them as float arrays.

    Each keyword names a field and gives its shape: an int is a fixed length, a string a
    length shared by every field that uses the same letter (``"N"`` samples, ``"n"`` joints),
    ``None`` any length. A field whose value is None is skipped (an optional field).

    Returns
    -------
    dict
        The lengths bound to the letters.

    Raises
    ------
    TypeError, ValueError
        As :func:`as_array`, or when a length disagrees with the one another field set; the
        message names both fields.
    """
    dims: dict[str, int] = {}
    origin: dict[str, str] = {}
    for name, spec in specs.items():
        value = getattr(obj, name)
        if value is None:
            continue
        a = as_array(name, value, ndim=len(spec), finite=finite)
        for sym, d in zip(spec, a.shape):
            if sym is None:
                continue
            if isinstance(sym, str) and sym not in dims:
                dims[sym], origin[sym] = d, name
                continue
            want = sym if isinstance(sym, int) else dims[sym]
            if d != want:
                shown = ", ".join("any" if s_ is None else str(s_ if isinstance(s_, int) else dims.get(s_, s_))
                                  for s_ in spec)
                why = "" if isinstance(sym, int) else f" ({sym} = {want} from {origin[sym]})"
                raise ValueError(f"{name} must have shape ({shown}){why}, got {a.shape}")
        object.__setattr__(obj, name, a)
    return dims


def check_same_robot(name: str, base: Any, robot: Any) -> None:
    """Refuse base parameters computed for a robot of another structure than ``robot``.

    ``base.robot_id`` (set by :func:`robidlib.base.base_parameters` for a robot; None for a
    matrix ``W``) must equal ``robot.structure_id``: another robot with the same joint count
    has the same parameter names, but not the same regrouping.

    Raises
    ------
    ValueError
        If both are known and differ; the message names ``name`` and the robot.
    """
    rid = getattr(base, "robot_id", None)
    sid = getattr(robot, "structure_id", None)
    if rid is not None and sid is not None and rid != sid:
        raise ValueError(
            f"{name} was computed for another robot (structure {rid}), not for robot "
            f"{getattr(robot, 'name', '')!r} (structure {sid}: other joint axes, frames or gravity); compute "
            "base_parameters(robot) for this one"
        )
