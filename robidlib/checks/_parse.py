"""A restricted reader of a student's linear combination, such as ``"Izz1 + 0.25*m2"``.

The exercise checks never hand an answer string to ``eval``, ``sympify`` or ``parse_expr``
(which run Python): an instructor may run the checks on submitted notebooks. This reader
knows only the grammar of the answer::

    expr   := term (("+" | "-") term)*
    term   := unary (("*" | "/") unary)*
    unary  := ("+" | "-") unary | power
    power  := atom (("**" | "^") unary)?
    atom   := NUMBER | NAME | "(" expr ")"

with ``NAME`` one of the names the check allows (the chapter's parameter names) and
``NUMBER`` a decimal number (``2``, ``0.25``, ``1e-3``). Anything else -- attribute access,
calls, subscripts, lambdas, comprehensions, strings -- is not even a token. The value is
computed as a linear form ``sum_k c_k name_k + c_0`` in floating point, so a power such as
``9**9**9`` is refused as too large instead of being expanded, and a product of two names is
reported as not linear. Inputs are bounded (:data:`MAX_LENGTH` characters, :data:`MAX_DEPTH`
nested levels), so a reading takes microseconds whatever the input.
"""

from __future__ import annotations

import math
import re
from typing import Iterable

__all__ = ["AnswerError", "MAX_LENGTH", "MAX_DEPTH", "read_linear"]

#: Longest answer string read (characters): ten times the longest combination of the book.
MAX_LENGTH = 2000
#: Deepest nesting of parentheses and signs.
MAX_DEPTH = 40

_TOKEN = re.compile(r"\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
                    r"|(?P<op>\*\*|[-+*/^()]))")


class AnswerError(ValueError):
    """An answer string that is not a readable linear combination (the message says why).

    ``kind`` is ``"unknown"`` (names not allowed; ``names`` lists them), ``"nonlinear"``
    (readable, but not linear in the names) or ``"syntax"`` (anything else).
    """

    def __init__(self, message: str, kind: str = "syntax", names: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.kind, self.names = kind, names


class _Lin:
    """``sum coef[name] * name + const``."""

    __slots__ = ("coef", "const")

    def __init__(self, coef: dict[str, float] | None = None, const: float = 0.0) -> None:
        self.coef = coef or {}
        self.const = const

    @property
    def is_number(self) -> bool:
        return not any(self.coef.values())


def _finite(x: float) -> float:
    if not math.isfinite(x):
        raise AnswerError("a number is too large (or not a number)")
    return x


def _add(a: _Lin, b: _Lin, sign: float) -> _Lin:
    coef = dict(a.coef)
    for k, v in b.coef.items():
        coef[k] = _finite(coef.get(k, 0.0) + sign * v)
    return _Lin(coef, _finite(a.const + sign * b.const))


def _scale(a: _Lin, s: float) -> _Lin:
    return _Lin({k: _finite(v * s) for k, v in a.coef.items()}, _finite(a.const * s))


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos, n = [], 0, len(text)
    while pos < n:
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if m is None:
            bad = text[pos:].lstrip()[:1]
            raise AnswerError(f"unexpected character {bad!r}: use names, numbers, + - * / ** and parentheses")
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


class _Reader:
    def __init__(self, tokens: list[tuple[str, str]], names: frozenset[str]) -> None:
        self.t, self.i, self.names, self.depth = tokens, 0, names, 0

    def peek(self) -> tuple[str, str] | None:
        return self.t[self.i] if self.i < len(self.t) else None

    def take(self) -> tuple[str, str]:
        tok = self.peek()
        if tok is None:
            raise AnswerError("the expression ends too early")
        self.i += 1
        return tok

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise AnswerError(f"nested more than {MAX_DEPTH} levels deep")

    def expr(self) -> _Lin:
        v = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            sign = 1.0 if self.take()[1] == "+" else -1.0
            v = _add(v, self.term(), sign)
        return v

    def term(self) -> _Lin:
        v = self.unary()
        while self.peek() in (("op", "*"), ("op", "/")):
            op = self.take()[1]
            w = self.unary()
            if op == "*":
                if v.is_number:
                    v = _scale(w, v.const)
                elif w.is_number:
                    v = _scale(v, w.const)
                else:
                    raise AnswerError("it multiplies two parameters: not a linear combination", "nonlinear")
            else:
                if not w.is_number:
                    raise AnswerError("it divides by a parameter: not a linear combination", "nonlinear")
                if w.const == 0:
                    raise AnswerError("it divides by zero")
                v = _scale(v, 1.0 / w.const)
        return v

    def unary(self) -> _Lin:
        if self.peek() in (("op", "+"), ("op", "-")):
            sign = 1.0 if self.take()[1] == "+" else -1.0
            self.enter()
            v = _scale(self.unary(), sign)
            self.depth -= 1
            return v
        return self.power()

    def power(self) -> _Lin:
        base = self.atom()
        if self.peek() in (("op", "**"), ("op", "^")):
            self.take()
            self.enter()
            exp = self.unary()
            self.depth -= 1
            if not exp.is_number:
                raise AnswerError("a parameter in an exponent: not a linear combination", "nonlinear")
            e = exp.const
            if base.is_number:
                try:
                    return _Lin(const=_finite(math.pow(base.const, e)))
                except OverflowError:
                    raise AnswerError("a number is too large") from None
                except ValueError:
                    raise AnswerError("a power that is not a real number") from None
            if e == 1.0:
                return base
            if e == 0.0:
                return _Lin(const=1.0)
            raise AnswerError("a parameter raised to a power: not a linear combination", "nonlinear")
        return base

    def atom(self) -> _Lin:
        kind, text = self.take()
        if kind == "num":
            return _Lin(const=_finite(float(text)))
        if kind == "name":
            if text not in self.names:
                raise AnswerError(f"unknown name {text!r}")
            return _Lin({text: 1.0})
        if text == "(":
            self.enter()
            v = self.expr()
            self.depth -= 1
            if self.take() != ("op", ")"):
                raise AnswerError("a parenthesis is not closed")
            return v
        raise AnswerError(f"unexpected {text!r}")


def read_linear(text: str, names: Iterable[str]) -> tuple[dict[str, float], float]:
    """Read ``text`` as a linear combination of ``names``: ``(coefficients, constant)``.

    Parameters
    ----------
    text : str
        E.g. ``"Izz1 + 0.25*m2 - (mx1 + my1)/2"``.
    names : iterable of str
        The names the combination may use.

    Returns
    -------
    coefficients : dict
        ``{name: coefficient}`` of the names that appear (a coefficient may be 0 after
        cancellation).
    constant : float
        The constant term (0 for a proper combination).

    Raises
    ------
    AnswerError
        (a ``ValueError``) Anything but the grammar of the module docstring, a name not in
        ``names``, a product or quotient of names, a name in a power other than 0 or 1, a
        number that overflows, an input longer than :data:`MAX_LENGTH` or nested deeper than
        :data:`MAX_DEPTH`.

    Examples
    --------
    >>> read_linear("Izz1 + 0.25*m2 - 2*(m2 - mx1)/4", ["Izz1", "m2", "mx1"])
    ({'Izz1': 1.0, 'm2': -0.25, 'mx1': 0.5}, 0.0)
    >>> read_linear("__import__('os')", ["m1"])
    Traceback (most recent call last):
    ...
    robidlib.checks._parse.AnswerError: unexpected character "'": use names, numbers, + - * / ** and parentheses
    """
    if not isinstance(text, str):
        raise AnswerError(f"expected a string, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise AnswerError(f"longer than {MAX_LENGTH} characters ({len(text)})")
    tokens = _tokens(text)
    if not tokens:
        raise AnswerError("it is empty")
    allowed = frozenset(names)
    unknown = sorted({tok for kind, tok in tokens if kind == "name" and tok not in allowed})
    if unknown:
        raise AnswerError(f"unknown names {unknown}", "unknown", tuple(unknown))
    reader = _Reader(tokens, allowed)
    v = reader.expr()
    if reader.peek() is not None:
        raise AnswerError(f"unexpected {reader.peek()[1]!r} after a complete expression")
    return dict(v.coef), v.const
