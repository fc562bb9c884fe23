"""The shared feedback helpers of robidlib.checks: untouched stubs print ✘, never crash."""
import numpy as np
import pytest

from robidlib.checks._report import as_answer_array, call_answer, is_template, not_answered, report, student_check


def test_report_prints_tick_or_cross(capsys):
    assert report(True, "fine") is True and capsys.readouterr().out == "\u2714 fine\n"
    assert report(False, "no") is False and capsys.readouterr().out == "\u2718 no\n"


@pytest.mark.parametrize("value, expected", [(..., True), ((1, ..., 2), True), ([[1, ...]], True), ({"a": ...}, True),
                                             (np.array([1, ...], dtype=object), True), ((1, 2), False), (None, False), ("...", False)])
def test_is_template(value, expected):
    assert is_template(value) is expected


def test_not_answered(capsys):
    assert not_answered("Write the regressor.") is False
    assert capsys.readouterr().out.startswith("\u2718 not answered yet")


def test_call_answer_messages():
    def stub(x):
        raise NotImplementedError("write me")

    assert call_answer(stub, 1) == (False, "your function is not written yet (write me): complete its body")
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

    assert check(...) is False and "not answered yet" in capsys.readouterr().out
    assert check(answer=(1, ...)) is False and "Fill in the three values." in capsys.readouterr().out

    def unfinished():
        raise NotImplementedError

    assert check(unfinished) is False and "not answered yet" in capsys.readouterr().out
    assert check(3) is True and "\u2714" in capsys.readouterr().out
    assert check.__name__ == "check"
