"""Chapter 2's exercise checks: right answers pass, wrong ones and untouched stubs print ✘."""
import numpy as np
import pytest

from robidlib.base import base_parameters
from robidlib.checks import base_parameters as checks
from robidlib.models import planar_2r, redundant_5dof

CROSS, TICK = "\u2718", "\u2714"
GOOD = ["Izz1 + 1/4*m2", "mx1 + m2/2", "my1", "Izz2", "mx2", "my2"]


def test_base_parameter_answers(capsys):
    robot = planar_2r()
    assert checks.check_base_parameters(robot, GOOD)
    assert checks.check_base_parameters(robot, tuple(GOOD))
    assert checks.check_base_parameters(robot, ["Izz1 + 0.25*m2", "mx1 + 0.5*m2", "my1", "Izz2", "mx2", "my2"])
    # another valid set: a combination of base parameters is also identifiable
    assert checks.check_base_parameters(robot, ["Izz1 + 1/4*m2 + mx2", "mx1 + m2/2", "my1", "Izz2", "mx2", "my2"])
    assert TICK in capsys.readouterr().out


@pytest.mark.parametrize("answer, message", [
    (GOOD[:-1], "you gave 5 base parameters"),
    (["Izz1", "mx1 + m2/2", "my1", "Izz2", "mx2", "my2"], "not identifiable"),
    (["my1", "my1", "mx1 + m2/2", "Izz2", "mx2", "my2"], "not linearly independent"),
    (["Izz9", "mx1", "my1", "Izz2", "mx2", "my2"], "unknown names"),
    (["m2**2", "mx1", "my1", "Izz2", "mx2", "my2"], "not a linear combination"),
    (["Izz1 + 1/4*m2 + 3", "mx1 + m2/2", "my1", "Izz2", "mx2", "my2"], "constant term"),
    (["Izz1 +* m2", "mx1", "my1", "Izz2", "mx2", "my2"], "cannot read"),
    ("m1 + m2", "must be a list"),
    (None, "is None"),
    ([...], "not answered yet"),
    (..., "not answered yet"),
])
def test_base_parameter_wrong_answers_print_a_cross(capsys, answer, message):
    assert checks.check_base_parameters(planar_2r(), answer) == False
    out = capsys.readouterr().out
    assert out.startswith(CROSS) and message in out


def test_base_parameters_misuse_raises():
    with pytest.raises(TypeError, match="robot must be a SerialRobot"):
        checks.check_base_parameters("robot", GOOD)


def test_null_direction(capsys):
    robot = planar_2r()
    bp = base_parameters(robot)
    d = bp.null_space_direction(0)
    assert checks.check_null_direction(robot, d)
    assert checks.check_null_direction(robot, d.astype(np.float32))
    assert checks.check_null_direction(robot, d.tolist())
    capsys.readouterr()
    assert not checks.check_null_direction(robot, np.eye(20)[bp.independent[0]])
    assert "not in the null space" in capsys.readouterr().out
    for bad, message in ((np.zeros(20), "d is zero"), (np.ones(3), "shape (20,)"), (object(), "numbers"),
                         (np.full(20, np.nan), "NaN"), (None, "None"), (..., "not answered yet")):
        assert not checks.check_null_direction(robot, bad)
        out = capsys.readouterr().out
        assert out.startswith(CROSS) and message in out, out
    with pytest.raises(TypeError, match="robot must be a SerialRobot"):
        checks.check_null_direction(None, d)


def test_tolerance(capsys):
    robot = planar_2r()
    s = base_parameters(robot, method="svd", rng=0).singular_values
    assert checks.check_tolerance(robot, 1e-8)
    assert checks.check_tolerance(robot, np.float32(1e-8))
    assert checks.check_tolerance(robot, [1e-8][0])
    capsys.readouterr()
    assert not checks.check_tolerance(robot, float(s[2]))
    assert "but the robot has 6" in capsys.readouterr().out
    # inside the gap of this data set, but at its edges: rejected with the reason
    assert s[6] < 1e-13 < s[5] and not checks.check_tolerance(robot, 1e-13)
    assert "below the round-off level" in capsys.readouterr().out
    assert not checks.check_tolerance(robot, 0.9 * float(s[5]))
    assert "within a factor of 10 of the smallest genuine singular value" in capsys.readouterr().out
    # the geometric mean of the gap's edges, the solution's choice, is accepted with its margins
    assert checks.check_tolerance(robot, float(np.sqrt(s[5] * s[6])))
    assert "with a margin on both sides" in capsys.readouterr().out
    for bad in (-1.0, 0.0, np.inf, np.nan, "1e-8", None, ..., [1e-8, 1e-9]):
        assert not checks.check_tolerance(robot, bad)
        assert capsys.readouterr().out.startswith(CROSS)
    with pytest.raises(TypeError, match="robot must be a SerialRobot"):
        checks.check_tolerance(42, 1e-8)


def test_tolerance_of_the_chapter_robot_is_not_accepted_across_its_whole_gap(capsys):
    """Chapter 2's exercise: the 5-DOF arm's gap spans 15 decades; its edges are rejected."""
    robot = redundant_5dof()
    s = base_parameters(robot, method="svd", rng=0).singular_values
    assert s[19] / s[20] > 1e14
    for tol, ok in ((3 * float(s[20]), False), (1e-12, False), (1e-9, True), (1e-3, True),
                    (0.5 * float(s[19]), False)):
        assert checks.check_tolerance(robot, tol) == ok, tol
    capsys.readouterr()


def _map(bp_svd, bp_qr):
    return bp_svd.V1[bp_qr.independent, :].T


def test_svd_qr_map(capsys):
    robot = planar_2r()
    bp_svd, bp_qr = base_parameters(robot, method="svd", rng=0), base_parameters(robot, rng=0)
    B = _map(bp_svd, bp_qr)
    assert checks.check_svd_qr_map(bp_svd, bp_qr, B)
    assert checks.check_svd_qr_map(bp_svd, bp_qr, B.tolist())
    assert TICK in capsys.readouterr().out
    for bad in (np.eye(6), B.T if not np.allclose(B, B.T) else 2 * B, np.zeros((5, 5)), None, ..., B * np.nan):
        assert not checks.check_svd_qr_map(bp_svd, bp_qr, bad)
        assert capsys.readouterr().out.startswith(CROSS)


def test_svd_qr_map_misuse_raises():
    robot = planar_2r()
    bp_svd, bp_qr = base_parameters(robot, method="svd", rng=0), base_parameters(robot, rng=0)
    with pytest.raises(ValueError, match="SVD result first"):
        checks.check_svd_qr_map(bp_qr, bp_svd, np.eye(6))
    with pytest.raises(TypeError, match="BaseParameters"):
        checks.check_svd_qr_map("svd", bp_qr, np.eye(6))
    other = base_parameters(np.eye(6), method="svd")
    with pytest.raises(ValueError, match="same parameters"):
        checks.check_svd_qr_map(other, bp_qr, np.eye(6))


def test_docstrings_hold_no_solution_code():
    """The PR exercise's answer and the solution of the map must not be in help()."""
    for f in (checks.check_base_parameters, checks.check_null_direction, checks.check_tolerance,
              checks.check_svd_qr_map):
        doc = f.__doc__
        assert "m1 + m2\", \"mx2" not in doc and "V1[" not in doc and ".independent" not in doc


def test_doctests_run():
    import doctest

    result = doctest.testmod(checks, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 4 and result.failed == 0


# ----------------------------------------------------------------- answers are read, never run
HOSTILE = [
    "__import__('os').system('touch {marker}')",          # code
    "m1.__class__.__base__.__subclasses__()",              # attribute access
    "(lambda: m1)()",                                      # a lambda
    "m1 if 1 else m2",
    "[m1 for m1 in range(10**9)]",                         # a comprehension that would not end
    "exec('import os')",
    "m1; import os",
    "9**9**9",                                             # a number with 370 million digits
    "(10**16)**16**16 * m1",
    "m1*" * 20000 + "m1",                                  # very long
    "(" * 5000 + "m1" + ")" * 5000,                        # very deep
    "-" * 3000 + "m1",
    "m1 + '1'",
    "m1\x00",
    "1e999999*m1",
    "",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_a_hostile_answer_is_refused_without_running_it(text, tmp_path, capsys):
    """Refused, and at once: a reader that evaluated ``9**9**9`` would not return (the sweep's
    watchdog, tests/bad_input_sweep.py, reports such a hang)."""
    marker = tmp_path / "pwned"
    answer = [text.format(marker=marker) if "{marker}" in text else text] + GOOD[1:]
    assert checks.check_base_parameters(planar_2r(), answer) == False  # noqa: E712 (a Verdict)
    assert not marker.exists()
    out = capsys.readouterr().out
    assert out.startswith(CROSS) and len(out) < 400, out


def test_the_reader_knows_only_the_grammar():
    from robidlib.checks._parse import MAX_DEPTH, AnswerError, read_linear

    names = ["m1", "m2", "Izz1"]
    assert read_linear("Izz1 + 0.25*m2 - 2*(m2 - m1)/4", names) == ({"Izz1": 1.0, "m2": -0.25, "m1": 0.5}, 0.0)
    assert read_linear("2^2*m1 + m2**1 + 3*m1**0", names) == ({"m1": 4.0, "m2": 1.0}, 3.0)
    assert read_linear("-(-(m1))", names) == ({"m1": 1.0}, 0.0)
    assert read_linear("1.5e-3*m1", names)[0] == {"m1": 1.5e-3}
    for text, kind in (("m1*m2", "nonlinear"), ("m1/m2", "nonlinear"), ("m1**2", "nonlinear"), ("2**m1", "nonlinear"),
                       ("m3", "unknown"), ("__import__", "unknown"), ("m1 +", "syntax"), ("(m1", "syntax"),
                       ("m1)", "syntax"), ("m1/0", "syntax"), ("(-8)**(1/3)*m1", "syntax"), ("9**9**9", "syntax"),
                       ("m1.real", "syntax"), ("m1[0]", "syntax"), ("'m1'", "syntax"), ("m1 m2", "syntax"),
                       ("(" * (MAX_DEPTH + 1) + "m1" + ")" * (MAX_DEPTH + 1), "syntax")):
        with pytest.raises(AnswerError) as info:
            read_linear(text, names)
        assert info.value.kind == kind, (text, info.value)
    assert read_linear("(" * MAX_DEPTH + "m1" + ")" * MAX_DEPTH, names) == ({"m1": 1.0}, 0.0)


def test_sympy_expressions_are_still_accepted():
    import sympy as sp

    m2, izz1, mx1, my1, izz2, mx2, my2 = sp.symbols("m2 Izz1 mx1 my1 Izz2 mx2 my2")
    answer = [izz1 + m2 / 4, mx1 + m2 / 2, my1, izz2, mx2, my2]
    assert checks.check_base_parameters(planar_2r(), answer)
    assert not checks.check_base_parameters(planar_2r(), [izz1 + 1] + answer[1:])
    assert not checks.check_base_parameters(planar_2r(), [3] + answer[1:])
