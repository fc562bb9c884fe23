"""The one way every check gives feedback, and the helpers that make untouched stubs safe.

Rules every check follows (see ``robidlib.checks``):

- A check never raises because of the student's *answer*: a template left as ``...``, a
  function that raises ``NotImplementedError`` or returns ``None``, a wrong type, shape, NaN or
  complex value all print ✘ with what to do next and return ``False``. Only a misuse of the
  check itself (e.g. a negative tolerance) raises ``ValueError``/``TypeError``.
- Lists, tuples and arrays of any real dtype (``float32`` included) are accepted where an
  array is asked for; tolerances match the precision the exercise asks for.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

OK = "\u2714 "
NO = "\u2718 "


def report(ok: bool, message: str) -> bool:
    """Print ``message`` with a tick or a cross and return ``ok``."""
    print((OK if ok else NO) + message)
    return bool(ok)


def is_template(value: Any) -> bool:
    """Whether ``value`` still holds the stub's placeholder ``...`` (anywhere inside it)."""
    if value is Ellipsis:
        return True
    if isinstance(value, dict):
        return any(is_template(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(is_template(v) for v in value)
    if isinstance(value, np.ndarray) and value.dtype == object:
        return any(is_template(v) for v in value.ravel())
    return False


def not_answered(hint: str) -> bool:
    """Report an untouched stub: print ✘ with ``hint`` and return False."""
    return report(False, f"not answered yet: replace the `...` of the stub. {hint}".strip())


def call_answer(func: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[bool, Any]:
    """Call the student's function; return ``(True, result)`` or ``(False, message)``.

    ``NotImplementedError`` (an unfinished stub), any other exception and a ``None`` result
    become a message that says what to do, instead of a traceback.
    """
    if not callable(func):
        return False, f"expected a function, got {type(func).__name__} {func!r}"
    try:
        out = func(*args, **kwargs)
    except NotImplementedError as exc:
        return False, f"your function is not written yet ({str(exc) or 'NotImplementedError'}): complete its body"
    except Exception as exc:  # the student's code failed: tell them how
        return False, f"your function raised {type(exc).__name__}: {exc}"
    if out is None:
        return False, "your function returned None: did you forget `return`?"
    if is_template(out):
        return False, "your function returns the template `...`: compute the value instead"
    return True, out


def as_answer_array(value: Any, what: str, shape: tuple[int | None, ...] | None = None) -> tuple[bool, Any]:
    """Convert an answer to a float64 array; return ``(True, array)`` or ``(False, message)``.

    Accepts lists, tuples and arrays of any real dtype; refuses the template, ``None``,
    non-numeric and complex values, NaN/inf, and a shape other than ``shape`` (``None``
    entries match any length).
    """
    if value is None:
        return False, f"{what} is None: did you forget to assign it (or to `return` it)?"
    if is_template(value):
        return False, f"{what} still holds the template `...`: replace it with your answer"
    try:
        raw = np.asarray(value)
    except Exception as exc:  # ragged lists and the like
        return False, f"{what} is not an array of numbers ({exc})"
    if raw.dtype.kind in "USb":  # text ("0.1") and booleans are not numeric answers
        kind = "booleans" if raw.dtype.kind == "b" else "text"
        return False, f"{what} must be numbers, not {kind}: got {type(value).__name__} {value!r}"
    if np.iscomplexobj(raw):
        return False, f"{what} is complex; a real value is expected"
    try:
        arr = raw.astype(np.float64)
    except (TypeError, ValueError):
        return False, f"{what} must be numbers, got {raw.dtype} values"
    if shape is not None and (arr.ndim != len(shape) or any(s is not None and s != d for s, d in zip(shape, arr.shape))):
        want = "(" + ", ".join("N" if s is None else str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
        return False, f"{what} must have shape {want}, got {arr.shape}"
    if not np.all(np.isfinite(arr)):
        return False, f"{what} contains NaN or infinite values"
    return True, arr


def student_check(hint: str) -> Callable[[Callable[..., bool]], Callable[..., bool]]:
    """Decorate a check so that an untouched stub prints ✘ with ``hint`` instead of failing.

    Any argument (positional or keyword) that still holds ``...`` reports "not answered yet"
    with the hint; a ``NotImplementedError`` raised anywhere inside the check (typically by the
    student's function) is reported the same way.
    """

    def decorate(check: Callable[..., bool]) -> Callable[..., bool]:
        @functools.wraps(check)
        def wrapper(*args: Any, **kwargs: Any) -> bool:
            if any(is_template(a) for a in args) or any(is_template(v) for v in kwargs.values()):
                return not_answered(hint)
            try:
                return check(*args, **kwargs)
            except NotImplementedError:
                return not_answered(hint)

        return wrapper

    return decorate


def data_number(name: str, value: Any, positive: bool = False) -> float:
    """A number the chapter gives a check (not the student's answer): a real finite scalar.

    A bool, a string, a complex number or an array is a misuse of the check: ``TypeError``;
    NaN, inf or (with ``positive``) a value <= 0: ``ValueError``. The message names ``name``.
    """
    from .._validate import as_array

    if isinstance(value, (bool, np.bool_, str, bytes)):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    v = as_array(name, value)
    if v.ndim != 0:
        raise TypeError(f"{name} must be a real number, got an array of shape {v.shape}")
    v = float(v)
    if positive and not v > 0:
        raise ValueError(f"{name} must be > 0, got {v}")
    return v
