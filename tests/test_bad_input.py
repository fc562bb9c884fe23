"""Bad input everywhere: every public callable of robidlib, every argument, every category.

The tables (``tests/bad_input_table*.py``) give each public function, class and method valid
arguments; the sweep (``tests/bad_input_sweep.py``, whose docstring says how a module opts in
or out) substitutes NaN, inf, complex, wrong shapes, empty arrays, wrong types, ``True`` and
bool arrays, negative, zero, absurdly large or small values, unknown names and foreign objects,
one argument at a time. Every case must end in a *clear* error: a ``ValueError`` or
``TypeError`` whose message names the argument and says what was received or expected (an
exercise check reports a bad answer with ✘ instead); nothing may be accepted silently, cast
with a ``ComplexWarning`` or hang. ``python tests/bad_input_sweep.py`` prints the table.

The expensive part (the cases) runs once, one test per table module, so ``pytest -n 2``
spreads it over the workers.
"""

from __future__ import annotations

import pytest

from bad_input_sweep import (E, Pos, classify, classify_answer, not_swept, public_callables, run_case,
                             signature_args, summary, sweep, table)

MODULES = sorted({e.module for e in table()})


@pytest.mark.parametrize("module", MODULES)
def test_valid_calls_of_the_table_succeed(module):
    for entry in table():
        if entry.module == module and entry.check_valid:
            entry.call()                     # a failure here means the table itself is wrong


@pytest.mark.parametrize("module", MODULES)
def test_every_bad_input_gets_a_clear_error(module):
    rows = sweep(module)
    assert rows, f"no case for {module}"
    bad = [f"{r['outcome']}: {r['entry']}({r['arg']}) [{r['category']}] {r['detail']}"
           for r in rows if r["outcome"] != "clear"]
    assert not bad, f"{len(bad)} of {len(rows)} cases are not clear errors:\n" + "\n".join(bad)


def test_the_tables_cover_every_public_callable():
    """A public callable with arguments is in a table or in a NOT_SWEPT (with its reason)."""
    covered = {e.key for e in table()}
    skipped = not_swept()
    missing = [k for k, obj in public_callables().items()
               if k not in covered and k not in skipped and signature_args(obj)]
    assert not missing, ("public callables neither in a bad-input table nor in NOT_SWEPT (see "
                         "tests/bad_input_sweep.py):\n" + "\n".join(missing))
    stale = [k for k in skipped if k not in public_callables()]
    assert not stale, f"NOT_SWEPT names callables that are not public (any more): {stale}"
    both = [k for k in skipped if k in covered]
    assert not both, f"NOT_SWEPT names callables that a table sweeps: {both}"


def test_the_tables_cover_every_argument():
    """Each argument of a swept callable is swept by one of its entries or named in ``unswept``."""
    by_key: dict[str, set[str]] = {}
    for e in table():
        by_key.setdefault(e.key, set()).update(e.swept() | set(e.unswept))
    pub = public_callables()
    missing = [f"{k}({a})" for k, have in by_key.items() if k in pub
               for a in signature_args(pub[k]) if a not in have]
    assert not missing, ("arguments neither swept nor in an entry's `unswept` (with the reason):\n"
                         + "\n".join(missing))
    foreign = sorted(k for k in by_key if k not in pub)
    assert not foreign, f"table entries for callables that are not public: {foreign}"


def test_the_classifier_tells_clear_from_unclear_errors():
    assert classify(ValueError("q must be finite, got 1 NaN"), "q") == "clear"
    assert classify(ValueError("must be finite"), "q") == "unclear"              # does not name q
    assert classify(ValueError("qd must be finite"), "q") == "unclear"           # names another argument
    assert classify(KeyError("q: unknown"), "q") == "unclear"                    # not a ValueError/TypeError
    assert classify(None, "q") == "silent"
    import numpy as np

    assert classify(np.linalg.LinAlgError("Singular matrix q"), "q") == "unclear"   # numpy's bare error


def test_an_answer_is_reported_not_raised():
    assert classify_answer(None, False, "\u2718 d is complex") == "clear"
    assert classify_answer(None, True, "\u2714 fine") == "silent"
    assert classify_answer(ValueError("d"), None, "") == "unclear"
    assert classify_answer(None, False, "") == "unclear"                          # no feedback printed
    from robidlib.checks._report import Verdict

    assert classify_answer(None, Verdict(False), "\u2718 d is complex") == "clear"  # what checks return
    assert classify_answer(None, Verdict(True), "\u2714 fine") == "silent"


def test_a_hang_is_reported_not_waited_for(monkeypatch):
    import time

    import bad_input_sweep

    monkeypatch.setattr(bad_input_sweep, "TIME_LIMIT", 0.2)
    entry = E("x:sleep", lambda seconds: time.sleep(seconds), Pos(0.0), argnames=("seconds",))
    assert run_case(entry, "seconds", 5.0, entry.args[0])[0] == "hang"


def test_a_hang_in_compiled_code_is_ended_by_the_watchdog(monkeypatch):
    """``SIGALRM`` cannot stop a long big-integer power; the watchdog process can."""
    import bad_input_sweep

    if "fork" not in __import__("multiprocessing").get_all_start_methods():
        pytest.skip("no fork on this platform: the sweep runs in-process there")
    monkeypatch.setattr(bad_input_sweep, "TIME_LIMIT", 0.2)
    monkeypatch.setattr(bad_input_sweep, "WATCHDOG_GRACE", 1.0)
    entry = E("x:power", lambda e: 7 ** e, Pos(2.0, extra=(("huge", 10 ** 9),)), argnames=("e",))  # hours
    monkeypatch.setattr(bad_input_sweep, "table", lambda: (entry,))
    rows = bad_input_sweep.sweep("x")
    assert [r["outcome"] for r in rows if r["category"] == "huge"] == ["hang"]
    assert len(rows) == len(entry.cases())                         # the cases after the hang ran too
    assert {r["outcome"] for r in rows if r["category"] in ("negative", "zero")} == {"silent"}


def test_summary_reports_counts_and_percentages():
    rows = [dict(entry="a:f", arg="x", category="nan", outcome="clear", detail=""),
            dict(entry="a:f", arg="x", category="inf", outcome="silent", detail="")]
    text = summary(rows)
    assert "clear 1 (50.0 %)" in text and "silent 1 (50.0 %)" in text
    assert "module a" in text and "silent     1" in text
