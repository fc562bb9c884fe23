"""The shared feedback helpers of robidlib.checks: untouched stubs print ✘, never crash."""
import numpy as np
import pytest

from robidlib.checks._report import (Unanswered, Verdict, as_answer_array, call_answer, is_template, is_untouched,
                                     not_answered, report, student_check)


def test_report_prints_tick_or_cross(capsys):
    assert report(True, "fine") == True and capsys.readouterr().out == "\u2714 fine\n"
    assert report(False, "no") == False and capsys.readouterr().out == "\u2718 no\n"


@pytest.mark.parametrize("value, expected", [(..., True), ((1, ..., 2), True), ([[1, ...]], True), ({"a": ...}, True),
                                             (np.array([1, ...], dtype=object), True), ((1, 2), False), (None, False), ("...", False)])
def test_is_template(value, expected):
    assert is_template(value) is expected


def test_not_answered(capsys):
    assert not_answered("Write the regressor.") == False
    assert capsys.readouterr().out.startswith("\u2718 not answered yet")


def test_call_answer_messages():
    def stub(x):
        raise NotImplementedError("write me")

    with pytest.raises(Unanswered, match=r"`stub` is not written yet \(it raises NotImplementedError: write me\)"):
        call_answer(stub, 1)

    def untouched(x):
        """The student's function."""
        ...  # your code here

    with pytest.raises(Unanswered, match="`untouched` still holds only the stub's"):
        call_answer(untouched, 1)
    ok, msg = call_answer(lambda x: None, 1)
    assert not ok and "returned None: did you forget `return`?" in msg
    ok, msg = call_answer(lambda x: 1 / 0, 1)
    assert not ok and "ZeroDivisionError" in msg
    ok, msg = call_answer(lambda x: ..., 1)
    assert not ok and "template" in msg
    assert call_answer(lambda x: 2 * x, 3) == (True, 6)
    ok, msg = call_answer(42)
    assert not ok and "expected a function" in msg


def test_as_answer_array_accepts_lists_and_float32():
    ok, arr = as_answer_array(np.array([1, 2], dtype=np.float32), "x", shape=(2,))
    assert ok and arr.dtype == np.float64
    ok, arr = as_answer_array([[1, 2], [3, 4]], "x", shape=(None, 2))
    assert ok and arr.shape == (2, 2)


@pytest.mark.parametrize("value, words", [(None, "is None"), (..., "template"), ([1, ...], "template"), ([1j, 2], "complex"),
                                          (["a", "b"], "must be numbers"), ([np.nan, 1], "NaN"), ([1, 2, 3], "shape (2,)")])
def test_as_answer_array_refuses_with_a_message(value, words):
    ok, msg = as_answer_array(value, "x", shape=(2,))
    assert not ok and words in msg


def test_student_check_decorator(capsys):
    @student_check("Fill in the three values.")
    def check(answer):
        if callable(answer):
            answer()
        return report(answer == 3, "right" if answer == 3 else "wrong")

    assert check(...) == False and "not answered yet" in capsys.readouterr().out
    assert check(answer=(1, ...)) == False and "Fill in the three values." in capsys.readouterr().out

    def unfinished():
        raise NotImplementedError

    assert check(unfinished) == False and "not answered yet" in capsys.readouterr().out
    assert check(3) == True and "\u2714" in capsys.readouterr().out
    assert check.__name__ == "check"


def _empty(a, b):
    ...  # your code here


def _docstring_only(x):
    """Return twice x."""


def _passes(x):
    pass


def _returns_template(x):
    return ...


def _forgot_return(x):
    y = 2 * x  # noqa: F841


@pytest.mark.parametrize("func, untouched", [(_empty, True), (_docstring_only, True), (_passes, True),
                                             (_returns_template, True), (_forgot_return, False),
                                             (lambda x: None, False), (print, False), (np.sin, False), (42, False)])
def test_is_untouched_recognises_stub_bodies(func, untouched):
    assert is_untouched(func) is untouched


def test_untouched_function_stub_says_not_answered_with_the_hint(capsys):
    @student_check("Write the regressor.")
    def check(func):
        ok, out = call_answer(func, 1.0)
        return report(ok, "fine" if ok else out)

    assert check(_forgot_return) == False
    assert "did you forget `return`?" in capsys.readouterr().out
    for stub in (_docstring_only, _passes, _returns_template):
        assert check(stub) == False
        out = capsys.readouterr().out
        assert out == f"\u2718 not answered yet: `{stub.__name__}` still holds only the stub's `...`. Write the regressor.\n"

    def unfinished(x):
        raise NotImplementedError

    assert check(unfinished) == False
    out = capsys.readouterr().out
    assert "not answered yet" in out and "not written yet" in out and out.rstrip().endswith("Write the regressor.")


def test_verdict_is_a_bool_that_shows_nothing_in_a_notebook():
    yes, no = Verdict(True), Verdict(np.bool_(False))
    assert yes and not no and yes == True and no == False and no != True and yes == Verdict(1)  # noqa: E712
    assert repr(yes) == "True" and repr(no) == "False" and str(no) == "False"
    assert {yes: 1}[True] == 1
    assert (yes is True) is False            # identity with the bool singletons never holds: compare with ==
    assert yes._ipython_display_() is None
    import IPython.core.formatters       # IPython comes with jupyterlab (requirements.txt)

    formatter = IPython.core.formatters.DisplayFormatter()
    assert formatter.format(no) == ({}, {})  # IPython shows nothing for it (the check printed its line)
    assert formatter.format(False)[0]["text/plain"] == "False"


def test_every_check_reports_through_student_check():
    """Every public check of every chapter's module is wrapped by student_check (stubs never raise)."""
    import importlib
    import pkgutil

    import robidlib.checks

    modules = [m.name for m in pkgutil.iter_modules(robidlib.checks.__path__) if not m.name.startswith("_")
               and m.name != "answers"]
    assert len(modules) >= 11
    for name in modules:
        module = importlib.import_module(f"robidlib.checks.{name}")
        checks = [getattr(module, f) for f in module.__all__ if f.startswith("check_")]
        assert checks, name
        for check in checks:
            assert getattr(check, "student_check_hint", ""), f"{name}.{check.__name__} is not wrapped by student_check"
