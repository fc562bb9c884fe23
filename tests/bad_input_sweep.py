"""The bad-input sweep of robidlib's public API: a table of calls and the bad values to try.

Every entry of :data:`TABLE` is one public function, class or method with *valid* arguments.
Each argument is wrapped in a kind (``Batch``, ``Vec``, ``Pos``, ``Choice``, ...) that says
which bad values make it invalid; the sweep substitutes them one argument at a time and
classifies what the call does:

* ``clear``: a ``ValueError`` or ``TypeError`` whose message names the argument and says what
  was received or expected (``got``, ``expected``, ``must``, ``unknown``, ...);
* ``unclear``: any other exception, or a message that does not name the argument;
* ``silent``: no exception: the bad value was accepted;
* ``hang``: no answer within :data:`TIME_LIMIT` seconds.

Each call may grow the address space by :data:`MEMORY_LIMIT` at most (a MemoryError, not the
operating system's OOM killer, ends an absurd allocation: it counts as ``unclear``).

``tests/test_bad_input.py`` runs it per module; ``python tests/bad_input_sweep.py`` prints
the percentages per module and category.
"""

from __future__ import annotations

import dataclasses
import os
import re
import signal
import warnings
from functools import lru_cache
from typing import Any, Callable

import numpy as np

try:
    import resource
except ImportError:  # pragma: no cover - not on Unix: no memory guard
    resource = None

#: Seconds one call may take before it counts as a hang.
TIME_LIMIT = 20.0

#: Categories of bad input.
CATEGORIES = ("nan", "inf", "complex", "shape", "empty", "type", "negative", "zero", "huge", "unknown")


# ---------------------------------------------------------------------- argument kinds
@dataclasses.dataclass
class Arg:
    """A valid value and the bad values of its kind: ``bad() -> [(category, value), ...]``."""

    value: Any
    skip: tuple[str, ...] = ()          # categories that are valid for this argument
    alias: tuple[str, ...] = ()         # other names an error message may use for it

    def bad(self) -> list[tuple[str, Any]]:
        return [(c, v) for c, v in self._bad() if c not in self.skip]

    def _bad(self) -> list[tuple[str, Any]]:
        return []


def _with(a: np.ndarray, value: Any) -> np.ndarray:
    out = np.array(a, dtype=complex if isinstance(value, complex) else float, copy=True)
    out.flat[0] = value
    return out


class Vec(Arg):
    """A numeric array of a fixed shape."""

    def _bad(self):
        a = np.asarray(self.value, dtype=float)
        grown = np.concatenate([a, a[..., :1]], axis=-1) if a.ndim else np.array([a, a])
        return [("nan", _with(a, np.nan)), ("inf", _with(a, np.inf)),
                ("complex", a + 1j if a.size else np.zeros(a.shape, complex)), ("shape", grown),
                ("empty", np.zeros((0,) + a.shape[1:])), ("type", "x")]


class Batch(Vec):
    """Joint-space samples ``(n,)`` or ``(N, n)``: an empty batch ``(0, n)`` is valid."""

    def _bad(self):
        out = [(c, v) for c, v in super()._bad() if c != "empty"]
        return out + [("shape", np.asarray(self.value, dtype=float)[None, None])]


class Series(Vec):
    """Samples along axis 0 of any length (``(N,)`` or ``(N, m)``): too many dimensions is bad."""

    def _bad(self):
        a = np.asarray(self.value, dtype=float)
        return [(c, v) for c, v in super()._bad() if c != "shape"] + [("shape", a[None, None, None])]


class Real(Arg):
    """A finite real scalar."""

    def _bad(self):
        v = float(self.value)
        return [("nan", np.nan), ("inf", np.inf), ("complex", complex(v, 1.0)), ("type", "1"),
                ("shape", [v, v])]


class Pos(Real):
    """A positive real scalar."""

    def _bad(self):
        return super()._bad() + [("negative", -abs(float(self.value)) - 1.0), ("zero", 0.0)]


class NonNeg(Real):
    """A real scalar >= 0."""

    def _bad(self):
        return super()._bad() + [("negative", -abs(float(self.value)) - 1.0)]


class Int(Arg):
    """An integer >= 1 (``huge``: a value that would take forever must be refused)."""

    def __init__(self, value, huge=None, zero_ok=False, **kw):
        super().__init__(value, **kw)
        self.huge, self.zero_ok = huge, zero_ok

    def _bad(self):
        out = [("negative", -1), ("type", 1.5), ("type", "3"), ("nan", np.nan)]
        if not self.zero_ok:
            out.append(("zero", 0))
        if self.huge is not None:
            out.append(("huge", self.huge))
        return out


class Choice(Arg):
    """One of a set of names."""

    def _bad(self):
        return [("unknown", "no-such-choice"), ("type", 3)]


class Flag(Arg):
    """A bool."""

    def _bad(self):
        return [("type", "yes"), ("type", 2)]


class Text(Arg):
    """A string (a name)."""

    def _bad(self):
        return [("type", 3)]


class Names(Arg):
    """A sequence of names of a fixed length."""

    def _bad(self):
        v = list(self.value)
        return [("shape", v[:-1]), ("type", [3] * len(v)), ("type", "abc")]


class Obj(Arg):
    """An object of a robidlib class (a robot, base parameters, a trajectory, ...)."""

    def _bad(self):
        return [("type", "x"), ("type", 3)]


class Func(Arg):
    """A callable."""

    def _bad(self):
        return [("type", 3)]


class Seed(Arg):
    """A numpy Generator or an int seed."""

    def _bad(self):
        return [("type", "seed"), ("type", 1.5)]


class Tol(Pos):
    """A positive tolerance: also a uselessly small one (below round-off) must be refused."""

    def _bad(self):
        return super()._bad() + [("huge", 1e-300)]


# ---------------------------------------------------------------------- entries
@dataclasses.dataclass
class Entry:
    """One public callable with valid arguments (positional ``args``, keyword ``kwargs``)."""

    name: str
    fn: Callable[..., Any]
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)
    arg_names: tuple[str, ...] = ()     # names of the positional arguments, for the messages

    @property
    def module(self) -> str:
        return self.name.split(":")[0]

    def values(self) -> tuple[tuple, dict]:
        unwrap = lambda v: v.value if isinstance(v, Arg) else v  # noqa: E731
        return tuple(unwrap(a) for a in self.args), {k: unwrap(v) for k, v in self.kwargs.items()}

    def cases(self) -> list[tuple[str, str, Any, Arg]]:
        """(argument name, category, bad value, its Arg) for every substitution."""
        out = []
        for i, a in enumerate(self.args):
            if isinstance(a, Arg):
                out += [(self.arg_names[i], c, v, a) for c, v in a.bad()]
        for k, a in self.kwargs.items():
            if isinstance(a, Arg):
                out += [(k, c, v, a) for c, v in a.bad()]
        return out

    def call(self, arg: str | None = None, value: Any = None) -> Any:
        args, kwargs = self.values()
        if arg is not None:
            if arg in kwargs:
                kwargs[arg] = value
            else:
                args = list(args)
                args[self.arg_names.index(arg)] = value
        return self.fn(*args, **kwargs)


def E(label: str, fn: Callable, /, *args: Any, argnames: tuple[str, ...] = (), **kwargs: Any) -> Entry:
    """An entry ``module:callable``; ``argnames`` names the positional ``args``."""
    if len(argnames) != len(args):
        raise ValueError(f"{label}: give the names of the {len(args)} positional arguments")
    return Entry(label, fn, args, kwargs, argnames)


# ---------------------------------------------------------------------- running
class _Timeout(Exception):
    pass


def _alarm(signum, frame):  # pragma: no cover - only on a hang
    raise _Timeout()


_WORDS = re.compile(r"got|expected|must|unknown|received|should|needs?|\bnot\b|cannot|only|invalid|"
                    r"at least|at most|outside|between|instead|deficient", re.I)


def classify(exc: BaseException | None, arg: str, aliases: tuple[str, ...] = ()) -> str:
    if exc is None:
        return "silent"
    if isinstance(exc, _Timeout):
        return "hang"
    if not isinstance(exc, (ValueError, TypeError)) or isinstance(exc, np.linalg.LinAlgError):
        return "unclear"
    msg = str(exc)
    named = any(re.search(rf"(?<![A-Za-z0-9_]){re.escape(a)}(?![A-Za-z0-9_])", msg) for a in (arg,) + aliases)
    return "clear" if named and _WORDS.search(msg) else "unclear"


#: Address space a case may add (bytes): an absurd size must fail as MemoryError, not make
#: the operating system kill a process of the machine.
MEMORY_LIMIT = 4 * 2**30


def _address_space() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def run_case(entry: Entry, arg: str, value: Any, spec: Arg) -> tuple[str, str]:
    """Outcome and a short detail (exception type and message) of one substitution."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, TIME_LIMIT)
    limits = None
    if resource is not None and os.path.exists("/proc/self/statm"):
        limits = resource.getrlimit(resource.RLIMIT_AS)
        cap = _address_space() + MEMORY_LIMIT
        if limits[1] == resource.RLIM_INFINITY or cap < limits[1]:
            resource.setrlimit(resource.RLIMIT_AS, (cap, limits[1]))
    exc: BaseException | None = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            warnings.simplefilter("error", np.exceptions.ComplexWarning)
            entry.call(arg, value)
    except BaseException as e:  # noqa: BLE001 - the sweep records every exception
        if isinstance(e, KeyboardInterrupt):
            raise
        exc = e
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        if limits is not None:
            resource.setrlimit(resource.RLIMIT_AS, limits)
    detail = "" if exc is None else f"{type(exc).__name__}: {str(exc)[:160]}"
    return classify(exc, arg, spec.alias), detail


@lru_cache(maxsize=None)
def table() -> tuple[Entry, ...]:
    from bad_input_table import build

    return tuple(build())


def sweep(module: str | None = None) -> list[dict[str, str]]:
    """Run every case (of one module): rows with entry, arg, category, outcome, detail."""
    rows = []
    for entry in table():
        if module is not None and entry.module != module:
            continue
        for arg, cat, value, spec in entry.cases():
            outcome, detail = run_case(entry, arg, value, spec)
            rows.append(dict(entry=entry.name, arg=arg, category=cat, outcome=outcome, detail=detail))
    return rows


def summary(rows: list[dict[str, str]]) -> str:
    from collections import Counter

    lines = []
    total = Counter(r["outcome"] for r in rows)
    n = len(rows)
    lines.append(f"{n} cases over {len({r['entry'] for r in rows})} callables: "
                 + ", ".join(f"{k} {v} ({100 * v / n:.1f} %)" for k, v in total.most_common()))
    for key in ("category",):
        groups = sorted({r[key] for r in rows})
        for g in groups:
            sub = [r for r in rows if r[key] == g]
            c = Counter(r["outcome"] for r in sub)
            lines.append(f"  {key} {g:9s} {len(sub):5d} cases, clear {100 * c['clear'] / len(sub):5.1f} %"
                         + "".join(f", {k} {v}" for k, v in c.items() if k != "clear"))
    mods = sorted({r["entry"].split(":")[0] for r in rows})
    for m in mods:
        sub = [r for r in rows if r["entry"].split(":")[0] == m]
        c = Counter(r["outcome"] for r in sub)
        lines.append(f"  module {m:28s} {len(sub):5d} cases, clear {100 * c['clear'] / len(sub):5.1f} %")
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover
    import json
    import sys

    rows = sweep(sys.argv[1] if len(sys.argv) > 1 else None)
    print(summary(rows))
    for r in rows:
        if r["outcome"] != "clear":
            print(f"{r['outcome']:8s} {r['entry']}({r['arg']}) [{r['category']}]: {r['detail']}")
    with open("/tmp/bad_input_sweep.json", "w") as fh:
        json.dump(rows, fh, indent=0)
