"""The one way every check gives feedback, and the helpers that make untouched stubs safe.

Rules every check follows (see ``robidlib.checks``):

- A check never raises because of the student's *answer*: a template left as ``...``, a
  function whose body is still the stub's ``...``, a function that raises
  ``NotImplementedError`` or returns ``None``, a wrong type, shape, NaN or complex value all
  print ✘ with what to do next. Only a misuse of the check itself (e.g. a negative
  tolerance) raises ``ValueError``/``TypeError``. An untouched stub (a ``...`` answer or an
  empty function) always says "not answered yet" and gives the exercise's hint.
- A check prints one line and returns a :class:`Verdict`: true when the answer is right. It
  acts as a bool (``if``, ``assert``, ``not``, ``== True``) and prints as ``True``/``False``
  in plain Python and doctests, but shows nothing below the check's line in a notebook.
- Lists, tuples and arrays of any real dtype (``float32`` included) are accepted where an
  array is asked for; tolerances match the precision the exercise asks for.
"""

from __future__ import annotations

import dis
import functools
import json
from importlib import resources
from typing import Any, Callable

import numpy as np

OK = "\u2714 "
NO = "\u2718 "


class Verdict:
    """The outcome of a check: true when the answer is right.

    A bool in every use (``if``, ``assert``, ``not``, ``and``, ``int()``, ``== False``) and
    ``True``/``False`` when printed in plain Python, but nothing in a notebook: the check's
    line of feedback is its output, so a check at the end of a cell does not echo ``False``
    under it (IPython asks ``_ipython_display_``, which shows nothing). Compare with ``==``
    or use it as a condition; ``is True`` is never true for it.

    Examples
    --------
    >>> v = Verdict(False)
    >>> v, bool(v), v == False, not v
    (False, False, True, True)
    """

    __slots__ = ("_ok",)

    def __init__(self, ok: Any) -> None:
        self._ok = bool(ok)

    def __bool__(self) -> bool:
        return self._ok

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, Verdict):
            return self._ok == other._ok
        if isinstance(other, (bool, int, np.bool_, np.integer)):
            return self._ok == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._ok)

    def __repr__(self) -> str:
        return repr(self._ok)

    def _ipython_display_(self) -> None:
        """Show nothing: the check has printed its verdict already."""


class Unanswered(NotImplementedError):
    """Raised inside a check when the answer is still the stub (``student_check`` reports it)."""


@functools.lru_cache(maxsize=None)
def stored_answers(module: str) -> dict:
    """The reference data the checks of ``module`` compare answers with.

    Read from ``robidlib/data/checks/<module>.json`` where it is shipped (the student
    edition's robidlib, whose build writes it), else computed by
    :mod:`robidlib.checks.answers` (an instructor's install) and passed through JSON, so both
    give the same lists, floats and strings. Cached per session.
    """
    path = resources.files("robidlib").joinpath("data", "checks", f"{module}.json")
    if path.is_file():
        return json.loads(path.read_text(encoding="utf-8"))
    from . import answers

    return json.loads(json.dumps(answers.compute(module)))


def report(ok: bool, message: str) -> Verdict:
    """Print ``message`` with a tick or a cross and return the :class:`Verdict` ``ok``."""
    print((OK if ok else NO) + message)
    return Verdict(ok)


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


def not_answered(hint: str, what: str = "replace the `...` of the stub") -> Verdict:
    """Report an untouched stub: print ✘ "not answered yet", ``what`` to do and ``hint``."""
    return report(False, f"not answered yet: {what}. {hint}".strip())


# what the compiled body of a function that does nothing consists of (``...``, ``pass``, a
# docstring, comments): CPython 3.10-3.13 opcodes
_EMPTY_OPS = {"RESUME", "NOP", "CACHE", "LOAD_CONST", "RETURN_VALUE", "RETURN_CONST", "POP_TOP"}


def is_untouched(func: Any) -> bool:
    """Whether ``func`` is a stub left as given: a ``def`` whose body only holds ``...``,
    ``pass``, a docstring or comments (it returns ``None`` or ``...`` and does nothing else).
    A lambda is an answer, never a stub."""
    code = getattr(func, "__code__", None)
    if code is None or code.co_name == "<lambda>":
        return False
    try:
        ops = list(dis.get_instructions(code))
    except Exception:  # not a Python function after all
        return False
    return all(i.opname in _EMPTY_OPS for i in ops) and all(
        i.argval is None or i.argval is Ellipsis for i in ops if i.opname in ("LOAD_CONST", "RETURN_CONST"))


def call_answer(func: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[bool, Any]:
    """Call the student's function; return ``(True, result)`` or ``(False, message)``.

    A function left as the stub gave it (:func:`is_untouched`) or raising
    ``NotImplementedError`` raises :class:`Unanswered`, which :func:`student_check` reports
    as "not answered yet" with the exercise's hint. Any other exception and a ``None`` result
    become a message that says what to do, instead of a traceback.
    """
    if not callable(func):
        return False, f"expected a function, got {type(func).__name__} {func!r}"
    name = getattr(func, "__name__", "<lambda>")
    name = "your function" if name == "<lambda>" else f"`{name}`"
    if is_untouched(func):
        raise Unanswered(f"{name} still holds only the stub's `...`")
    try:
        out = func(*args, **kwargs)
    except NotImplementedError as exc:
        raise Unanswered(f"{name} is not written yet (it raises NotImplementedError"
                         + (f": {exc})" if str(exc) else ")")) from None
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


def student_check(hint: str) -> Callable[[Callable[..., bool]], Callable[..., Verdict]]:
    """Decorate a check so that an untouched stub prints ✘ with ``hint`` instead of failing.

    Any argument (positional or keyword) that still holds ``...`` or is a function left as
    the stub (:func:`is_untouched`) reports "not answered yet" with the hint; a
    ``NotImplementedError`` raised anywhere inside the check (typically by the student's
    function, or :class:`Unanswered` from :func:`call_answer`) is reported the same way. The
    check's result is returned as a :class:`Verdict`.
    """

    def decorate(check: Callable[..., bool]) -> Callable[..., Verdict]:
        @functools.wraps(check)
        def wrapper(*args: Any, **kwargs: Any) -> Verdict:
            values = [*args, *kwargs.values()]
            if any(is_template(a) for a in values):
                return not_answered(hint)
            empty = next((a for a in values if callable(a) and is_untouched(a)), None)
            if empty is not None:
                name = getattr(empty, "__name__", "your function")
                return not_answered(hint, f"`{name}` still holds only the stub's `...`")
            try:
                return Verdict(check(*args, **kwargs))
            except Unanswered as exc:
                return not_answered(hint, str(exc))
            except NotImplementedError:
                return not_answered(hint)

        wrapper.student_check_hint = hint  # type: ignore[attr-defined]
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
