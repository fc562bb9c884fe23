"""The bad-input sweep of robidlib's public API: every public callable, every argument.

What is swept
-------------
:func:`public_callables` walks the ``robidlib`` package (``pkgutil.walk_packages``): every
module whose dotted name has no part starting with ``_``; in each, the names of ``__all__``
(or, without ``__all__``, every name not starting with ``_``) that are callables *defined
there* or re-exported from a private module (``robidlib.estimation.Estimate``); for each
class, the public functions, class methods and static methods of its body.
Exception and warning classes are left out (they take any message). A new module therefore
opts in by being public and opts out by a leading underscore (``robidlib/_jit.py``); a name
stays out of the sweep by a leading underscore or by not being in ``__all__``.

The tables (``tests/bad_input_table*.py``, one per area: every file of that name is read)
give each public callable valid arguments, each argument wrapped in a kind (``Vec``,
``Batch``, ``Real``, ``Pos``, ``Int``, ``Choice``, ``Obj``, ``Answer`` ...) that says which
bad values make it invalid. A table file defines ``entries(o)`` (``o``: the shared objects of
:func:`objects`, built once) returning :class:`Entry` objects, and may define ``NOT_SWEPT``,
a dict ``"module:qualname" -> reason`` for callables it does not call (no argument, or an
argument with no bad value). ``tests/test_bad_input.py`` fails when a public callable is
neither in a table nor in a ``NOT_SWEPT``, and when an argument of a swept callable's
signature is neither swept by one of its entries nor named in an entry's ``unswept`` (with
the reason). So a new public function, class or method is reported the day it lands, with the
list of what it needs. A callable with no required argument needs no entry: it is swept
automatically on its defaults (:func:`auto_entries`).

The bad values (one argument at a time; categories in :data:`CATEGORIES`): NaN and inf,
complex, wrong shapes, empty arrays, wrong types (a string, a list of strings, another
object), ``True`` and bool arrays where numbers are meant, negative and zero values, sizes so
large they would hang or exhaust memory, tolerances below round-off, unknown names, and
*foreign* objects (another robot's base parameters, a robot with another joint count...),
hostile answer strings, and *degenerate* but finite values (an asymmetric covariance,
coinciding markers, all-zero data).

How a case is judged
--------------------
* ``clear``: a ``ValueError`` or ``TypeError`` whose message names the argument (or one of
  its aliases) and says what was received or expected (``got``, ``expected``, ``must``,
  ``unknown``, ...). For an exercise check's *answer* (kind :class:`Answer`) the contract is
  the opposite: the check must not raise, it prints ✘ and returns ``False``; that is clear.
* ``unclear``: any other exception (a ``LinAlgError``, ``KeyError``, ``MemoryError``, a
  message that does not name the argument), or a check that raises on an answer.
* ``silent``: no exception: the bad value was accepted (for an answer: the check said ✔).
* ``hang``: no answer within :data:`TIME_LIMIT` seconds (a ``SIGALRM`` ends Python code; a
  watchdog process ends a call stuck in compiled code, see :func:`sweep`).

Each call may grow the address space by :data:`MEMORY_LIMIT` at most (a MemoryError, not the
operating system's OOM killer, ends an absurd allocation: it counts as ``unclear``), and runs
robidlib as if installed (``robidlib._io.is_source_checkout`` says no), so that a writer given
the package's own folder must refuse it.

``tests/test_bad_input.py`` runs it per module; ``python tests/bad_input_sweep.py [module]
[--json FILE]`` prints the table: counts per outcome, per category and per module, and every
case that is not clear.
"""

from __future__ import annotations

import contextlib
import dataclasses
import glob
import importlib
import inspect
import io
import os
import pkgutil
import re
import signal
import sys
import time
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

import numpy as np

try:
    import resource
except ImportError:  # pragma: no cover - not on Unix: no memory guard
    resource = None

#: Seconds one call may take before it counts as a hang.
TIME_LIMIT = 20.0

#: Seconds the watchdog waits beyond ``TIME_LIMIT`` before it ends a case stuck in compiled code.
WATCHDOG_GRACE = 10.0

#: Categories of bad input.
CATEGORIES = ("nan", "inf", "complex", "shape", "empty", "type", "bool", "negative", "zero", "huge", "tiny",
              "unknown", "foreign", "hostile", "degenerate")

OUTCOMES = ("clear", "unclear", "silent", "hang")


# ---------------------------------------------------------------------- argument kinds
@dataclasses.dataclass
class Arg:
    """A valid value and the bad values of its kind: ``bad() -> [(category, value), ...]``.

    ``skip``: categories that are valid for this argument; ``alias``: other names an error
    message may use for it; ``extra``: more ``(category, value)`` pairs for this entry only
    (e.g. ``("foreign", base parameters of another robot)``).
    """

    value: Any
    skip: tuple[str, ...] = ()
    alias: tuple[str, ...] = ()
    extra: tuple[tuple[str, Any], ...] = ()

    def bad(self) -> list[tuple[str, Any]]:
        return [(c, v) for c, v in list(self._bad()) + list(self.extra) if c not in self.skip]

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
        out = [("nan", _with(a, np.nan)), ("inf", _with(a, np.inf)),
               ("complex", a + 1j if a.size else np.zeros(a.shape, complex)), ("shape", grown),
               ("empty", np.zeros((0,) + a.shape[1:])), ("type", "x")]
        if a.size:
            out.append(("bool", np.ones(a.shape, dtype=bool)))
        return out


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
                ("shape", [v, v]), ("bool", True)]


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
        out = [("negative", -1), ("type", 1.5), ("type", "3"), ("nan", np.nan), ("bool", True)]
        if not self.zero_ok:
            out.append(("zero", 0))
        if self.huge is not None:
            out.append(("huge", self.huge))
        return out


class Choice(Arg):
    """One of a set of names."""

    def _bad(self):
        return [("unknown", "no-such-choice"), ("type", 3), ("bool", True)]


class Flag(Arg):
    """A bool."""

    def _bad(self):
        return [("type", "yes"), ("type", 2)]


class Text(Arg):
    """A string (a name)."""

    def _bad(self):
        return [("type", 3)]


class Names(Arg):
    """A sequence of names of a fixed length (``known``: each must be a known name)."""

    def __init__(self, value, known=False, **kw):
        super().__init__(value, **kw)
        self.known = known

    def _bad(self):
        v = list(self.value)
        out = [("shape", v[:-1]), ("type", [3] * len(v)), ("type", "abc")] if v else [("type", [3]), ("type", "abc")]
        if self.known and v:
            out.append(("unknown", ["no-such-name"] + v[1:]))
        return out


class Obj(Arg):
    """An object of a robidlib class (a robot, base parameters, a trajectory, ...)."""

    def _bad(self):
        return [("type", "x"), ("type", 3)]


class Func(Arg):
    """A callable."""

    def _bad(self):
        return [("type", 3)]


class Seed(Arg):
    """A numpy Generator or an int seed (``none_ok``: None is valid, a default seed)."""

    def __init__(self, value, none_ok=False, **kw):
        super().__init__(value, **kw)
        self.none_ok = none_ok

    def _bad(self):
        return [("type", "seed"), ("type", 1.5), ("bool", True)] + ([] if self.none_ok else [("type", None)])


class Tol(Pos):
    """A positive tolerance: also a uselessly small one (below round-off) must be refused."""

    def _bad(self):
        return super()._bad() + [("tiny", 1e-300)]


class Path_(Arg):
    """A file or folder path (str or os.PathLike)."""

    def _bad(self):
        return [("type", 3), ("type", b"bytes"), ("bool", True)]


class Answer(Arg):
    """A student's answer to an exercise check: a bad answer is *reported* (✘, ``False``), never raised.

    ``like``: ``"array"`` (numbers of the value's shape), ``"scalar"``, ``"func"`` (a function
    the check calls) or ``"any"`` (only the generic bad answers); ``extra`` adds wrong answers
    of the right type.
    """

    def __init__(self, value, like="array", **kw):
        super().__init__(value, **kw)
        self.like = like

    def _bad(self):
        out = [("type", None), ("type", "x"), ("type", object())]
        if self.like == "array":
            a = np.asarray(self.value, dtype=float)
            out += [("nan", _with(a, np.nan)), ("inf", _with(a, np.inf)),
                    ("complex", a + 1j if a.size else np.zeros(a.shape, complex)),
                    ("shape", np.concatenate([a.ravel(), [0.0]])), ("empty", np.zeros(0)),
                    ("bool", np.ones(a.shape, dtype=bool))]
        elif self.like == "scalar":
            out += [("nan", np.nan), ("inf", np.inf), ("complex", 1 + 1j), ("bool", True), ("shape", [1.0, 2.0])]
        elif self.like == "func":
            def raises(*a, **k):
                raise RuntimeError("the student's function failed")

            def returns_nan(*a, **k):
                return np.nan

            out += [("type", 3), ("type", raises), ("nan", returns_nan), ("type", lambda *a, **k: None)]
        return out


# ---------------------------------------------------------------------- entries
@dataclasses.dataclass
class Entry:
    """One public callable with valid arguments (positional ``args``, keyword ``kwargs``).

    ``unswept``: arguments of the signature that this entry does not sweep, with the reason
    (checked by ``tests/test_bad_input.py``: every argument is swept or has a reason).
    ``check_valid``: whether the test of the table makes the valid call (False for a call that
    takes minutes: only its bad cases, which must fail at once, are run).
    """

    name: str
    fn: Callable[..., Any]
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)
    arg_names: tuple[str, ...] = ()     # names of the positional arguments, for the messages
    unswept: dict[str, str] = dataclasses.field(default_factory=dict)
    check_valid: bool = True

    @property
    def module(self) -> str:
        return self.name.split(":")[0]

    @property
    def key(self) -> str:
        return callable_key(self.fn)

    def values(self) -> tuple[tuple, dict]:
        unwrap = lambda v: v.value if isinstance(v, Arg) else v  # noqa: E731
        return tuple(unwrap(a) for a in self.args), {k: unwrap(v) for k, v in self.kwargs.items()}

    def swept(self) -> set[str]:
        """Names of the arguments this entry sweeps."""
        out = {self.arg_names[i] for i, a in enumerate(self.args) if isinstance(a, Arg)}
        return out | {k for k, a in self.kwargs.items() if isinstance(a, Arg)}

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


def E(label: str, fn: Callable, /, *args: Any, argnames: tuple[str, ...] = (), unswept: dict | None = None,
      check_valid: bool = True, **kwargs: Any) -> Entry:
    """An entry ``module:callable``; ``argnames`` names the positional ``args``."""
    if len(argnames) != len(args):
        raise ValueError(f"{label}: give the names of the {len(args)} positional arguments")
    return Entry(label, fn, args, kwargs, argnames, dict(unswept or {}), check_valid)


# ---------------------------------------------------------------------- discovery
def callable_key(fn: Any) -> str:
    """``module:qualname`` of the function, class or method ``fn`` (bound methods included)."""
    f = fn.__func__ if inspect.ismethod(fn) else fn
    return f"{f.__module__}:{f.__qualname__}"


def _public_modules(package: str = "robidlib") -> list[str]:
    pkg = importlib.import_module(package)
    out = [package]
    for m in pkgutil.walk_packages(pkg.__path__, package + "."):
        if not any(part.startswith("_") for part in m.name.split(".")[1:]):
            out.append(m.name)
    return sorted(out)


@lru_cache(maxsize=None)
def public_callables(package: str = "robidlib") -> dict[str, Any]:
    """``{"module:qualname": object}`` of every public function, class and method (see the module doc)."""
    out: dict[str, Any] = {}
    for name in _public_modules(package):
        mod = importlib.import_module(name)
        names = getattr(mod, "__all__", None)
        if names is None:
            names = [n for n in vars(mod) if not n.startswith("_")]
        for n in names:
            obj = getattr(mod, n, None)
            home = getattr(obj, "__module__", None) or ""
            private_home = home.startswith(package + ".") and any(p.startswith("_") for p in home.split(".")[1:])
            if obj is None or not callable(obj) or (home != mod.__name__ and not private_home):
                continue                                # defined elsewhere (swept there) or not ours
            if inspect.isclass(obj) and issubclass(obj, BaseException):
                continue                                # exceptions and warnings take any message
            out[f"{home}:{obj.__qualname__}"] = obj     # a public re-export of a private module's name
            if inspect.isclass(obj):
                for k, v in vars(obj).items():
                    f = v.__func__ if isinstance(v, (classmethod, staticmethod)) else v
                    if not k.startswith("_") and inspect.isfunction(f):
                        out[f"{home}:{obj.__qualname__}.{k}"] = getattr(obj, k)
    return out


def signature_args(obj: Any) -> list[str]:
    """Names of the arguments a caller passes (no ``self``/``cls``, ``*args``/``**kw`` or ``_private``)."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return []
    out = [p.name for p in sig.parameters.values()
           if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and not p.name.startswith("_")]
    if out and out[0] in ("self", "cls") and not inspect.isclass(obj):
        out = out[1:]
    return out


def auto_entries(covered: set[str]) -> list[Entry]:
    """Entries for public callables with no required argument and no table entry: swept on defaults."""
    out = []
    for key, obj in public_callables().items():
        if key in covered or inspect.isclass(obj) or "." in key.split(":")[1]:
            continue
        try:
            sig = inspect.signature(obj)
        except (TypeError, ValueError):
            continue
        required = [p for p in sig.parameters.values() if p.default is p.empty
                    and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        if required or not signature_args(obj):
            continue                                    # needs a table entry, or has nothing to sweep
        kw = {}
        for p in sig.parameters.values():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            d = p.default
            if isinstance(d, bool):
                kw[p.name] = Flag(d)
            elif isinstance(d, (int, np.integer)):
                kw[p.name] = Int(d, zero_ok=d == 0)
            elif isinstance(d, float):
                kw[p.name] = Real(d)
            else:
                kw[p.name] = d
        out.append(Entry(key.split(":")[0].replace("robidlib.", "") + ":" + key.split(":")[1] + " (auto)", obj,
                         (), kw, ()))
    return out


# ---------------------------------------------------------------------- running
class _Timeout(Exception):
    pass


def _alarm(signum, frame):  # pragma: no cover - only on a hang
    raise _Timeout()


_WORDS = re.compile(r"got|expected|must|unknown|received|should|needs?|\bnot\b|cannot|only|invalid|"
                    r"at least|at most|outside|between|instead|deficient|refus", re.I)


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


def classify_answer(exc: BaseException | None, result: Any, printed: str) -> str:
    """An exercise check given a bad answer: clear when it prints ✘ and returns False."""
    if isinstance(exc, _Timeout):
        return "hang"
    if exc is not None:
        return "unclear"
    verdict = isinstance(result, (bool, np.bool_)) or type(result).__name__ == "Verdict"   # checks return a Verdict
    if verdict and not result and "\u2718" in printed:
        return "clear"
    return "silent" if verdict and result else "unclear"


#: Address space a case may add (bytes): an absurd size must fail as MemoryError, not make
#: the operating system kill a process of the machine.
MEMORY_LIMIT = 4 * 2**30


def _address_space() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _close_figures() -> None:
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None:
        plt.close("all")


def _installed(pkg: Any = None) -> bool:
    return False


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
    result = None
    out = io.StringIO()
    from robidlib import _io

    in_tree = _io.is_source_checkout
    _io.is_source_checkout = _installed     # run as an installed package: no case may write into it
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(out):
            warnings.simplefilter("ignore")
            warnings.simplefilter("error", np.exceptions.ComplexWarning)
            result = entry.call(arg, value)
    except BaseException as e:  # noqa: BLE001 - the sweep records every exception (Clarabel's panic too)
        if isinstance(e, KeyboardInterrupt):
            raise
        exc = e
    finally:
        _io.is_source_checkout = in_tree
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        if limits is not None:
            resource.setrlimit(resource.RLIMIT_AS, limits)
        _close_figures()
    if isinstance(spec, Answer):
        outcome = classify_answer(exc, result, out.getvalue())
        detail = out.getvalue().strip()[:160] if exc is None else f"{type(exc).__name__}: {str(exc)[:160]}"
        return outcome, detail
    detail = "" if exc is None else f"{type(exc).__name__}: {str(exc)[:160]}"
    return classify(exc, arg, spec.alias), detail


# ---------------------------------------------------------------------- the tables
TESTS = Path(__file__).resolve().parent


def table_modules() -> list[Any]:
    """The table files ``tests/bad_input_table*.py`` (imported)."""
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))
    names = sorted(Path(p).stem for p in glob.glob(str(TESTS / "bad_input_table*.py")))
    return [importlib.import_module(n) for n in names]


@lru_cache(maxsize=None)
def objects() -> dict[str, Any]:
    """The objects the entries share (built once): ``bad_input_table.objects()``."""
    import bad_input_table

    return bad_input_table.objects()


@lru_cache(maxsize=None)
def table() -> tuple[Entry, ...]:
    """Every entry of every table file, then the automatic entries."""
    o = objects()
    out: list[Entry] = []
    for mod in table_modules():
        out += list(mod.entries(o))
    out += auto_entries({e.key for e in out} | set(not_swept()))
    return tuple(out)


def not_swept() -> dict[str, str]:
    """``NOT_SWEPT`` of every table file merged."""
    out: dict[str, str] = {}
    for mod in table_modules():
        out.update(getattr(mod, "NOT_SWEPT", {}))
    return out


def _cases(module: str | None) -> list[tuple[Entry, str, str, Any, Arg]]:
    return [(e, arg, cat, value, spec) for e in table() if module is None or e.module == module
            for arg, cat, value, spec in e.cases()]


def _row(case, outcome, detail) -> dict[str, str]:
    e, arg, cat = case[:3]
    return dict(entry=e.name, arg=arg, category=cat, outcome=outcome, detail=detail)


def _worker(conn, cases, start) -> None:  # pragma: no cover - runs in the forked child
    for i in range(start, len(cases)):
        conn.send(("start", i))
        e, arg, cat, value, spec = cases[i]
        conn.send(("done", i) + run_case(e, arg, value, spec))
    conn.send(("end",))
    conn.close()


def sweep(module: str | None = None, isolate: bool | None = None) -> list[dict[str, str]]:
    """Run every case (of one module): rows with entry, arg, category, outcome, detail.

    With ``isolate`` (default where ``fork`` exists) the cases run in a forked child that a
    watchdog ends when one case has not answered within ``TIME_LIMIT + WATCHDOG_GRACE`` s (a call stuck
    in compiled code, which ``SIGALRM`` cannot interrupt): the case counts as a hang and a new
    child goes on with the next case. A child that dies counts its case as unclear.
    """
    cases = _cases(module)
    if isolate is None:
        import multiprocessing as mp

        isolate = "fork" in mp.get_all_start_methods()
    if not isolate:
        return [_row(c, *run_case(c[0], c[1], c[3], c[4])) for c in cases]
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    rows: list[dict[str, str] | None] = [None] * len(cases)
    start = 0
    while start < len(cases):
        recv, send = ctx.Pipe(duplex=False)
        sys.stdout.flush()
        sys.stderr.flush()
        child = ctx.Process(target=_worker, args=(send, cases, start), daemon=True)
        child.start()
        send.close()
        current, start = start, len(cases)
        while True:
            if not recv.poll(TIME_LIMIT + WATCHDOG_GRACE):
                rows[current] = _row(cases[current], "hang",
                                     f"no answer in {TIME_LIMIT + WATCHDOG_GRACE:.0f} s (ended by the watchdog)")
                child.kill()
                start = current + 1
                break
            try:
                msg = recv.recv()
            except EOFError:
                rows[current] = _row(cases[current], "unclear", f"the process died (exit code {child.exitcode})")
                start = current + 1
                break
            if msg[0] == "start":
                current = msg[1]
            elif msg[0] == "done":
                rows[msg[1]] = _row(cases[msg[1]], msg[2], msg[3])
            else:
                break
        child.join(5)
        recv.close()
    return [r for r in rows if r is not None]


def summary(rows: list[dict[str, str]]) -> str:
    """The sweep's table: counts per outcome overall, per category and per module."""
    from collections import Counter

    def counts(sub):
        c = Counter(r["outcome"] for r in sub)
        return "  ".join(f"{k} {c[k]:5d}" for k in OUTCOMES) + f"  clear {100 * c['clear'] / max(len(sub), 1):5.1f} %"

    lines = []
    total = Counter(r["outcome"] for r in rows)
    n = len(rows)
    lines.append(f"{n} cases over {len({r['entry'] for r in rows})} entries: "
                 + ", ".join(f"{k} {v} ({100 * v / n:.1f} %)" for k, v in total.most_common()))
    for g in sorted({r["category"] for r in rows}):
        sub = [r for r in rows if r["category"] == g]
        lines.append(f"  category {g:26s} {len(sub):5d} cases: {counts(sub)}")
    for m in sorted({r["entry"].split(":")[0] for r in rows}):
        sub = [r for r in rows if r["entry"].split(":")[0] == m]
        lines.append(f"  module {m:28s} {len(sub):5d} cases: {counts(sub)}")
    return "\n".join(lines)


def _main() -> None:  # pragma: no cover - the command line
    import argparse
    import json

    parser = argparse.ArgumentParser(description="robidlib's bad-input sweep")
    parser.add_argument("module", nargs="?", help="only this table module (e.g. 'params')")
    parser.add_argument("--json", help="write every row to this file")
    parser.add_argument("--quiet", action="store_true", help="only the table, not every case that is not clear")
    ns = parser.parse_args()
    t0, c0 = time.perf_counter(), time.process_time()
    table()
    t1, c1 = time.perf_counter(), time.process_time()
    rows = sweep(ns.module)
    t2, c2 = time.perf_counter(), time.process_time()
    if resource is not None:
        ch = resource.getrusage(resource.RUSAGE_CHILDREN)
        child_cpu = ch.ru_utime + ch.ru_stime
    else:
        child_cpu = 0.0
    print(summary(rows))
    print(f"set-up {t1 - t0:.1f} s wall ({c1 - c0:.1f} s CPU); cases {t2 - t1:.1f} s wall "
          f"({c2 - c1 + child_cpu:.1f} s CPU, children included)")
    if not ns.quiet:
        for r in rows:
            if r["outcome"] != "clear":
                print(f"{r['outcome']:8s} {r['entry']}({r['arg']}) [{r['category']}]: {r['detail']}")
    if ns.json:
        with open(ns.json, "w") as fh:
            json.dump(rows, fh, indent=0)


if __name__ == "__main__":  # pragma: no cover
    # run as the module the tables import (``from bad_input_sweep import Answer``), not as __main__,
    # so that the tables' kinds are this module's classes
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bad_input_sweep

    bad_input_sweep._main()
