"""Chapter 1's exercise checks: right answers pass, wrong ones and untouched stubs print ✘."""
import numpy as np
import pytest

from robidlib import checks
from robidlib.checks import pendulum as pc
from robidlib.models import Pendulum

CROSS, TICK = "\u2718", "\u2714"


def _good_coulomb(q, qd, qdd):
    return np.column_stack([qdd, np.sin(q), qd, np.sign(qd)])


def test_coulomb_regressor_check(capsys):
    assert checks.check_coulomb_regressor(_good_coulomb)
    assert TICK in capsys.readouterr().out
    # float32 and nested lists are accepted
    assert pc.check_coulomb_regressor(lambda q, qd, qdd: _good_coulomb(q, qd, qdd).astype(np.float32))
    assert pc.check_coulomb_regressor(lambda q, qd, qdd: _good_coulomb(q, qd, qdd).tolist())
    capsys.readouterr()
    swapped = lambda q, qd, qdd: np.column_stack([np.sin(q), qdd, qd, np.sign(qd)])  # noqa: E731
    assert not pc.check_coulomb_regressor(swapped)
    assert "column 0 should be qdd (it holds sin q" in capsys.readouterr().out


@pytest.mark.parametrize("answer, message", [
    (lambda q, qd, qdd: np.zeros((len(q), 3)), "shape (25, 4)"),
    (lambda q, qd, qdd: 1 / 0, "ZeroDivisionError"),
    (lambda q, qd, qdd: None, "did you forget `return`?"),
    (lambda q, qd, qdd: np.full((len(q), 4), np.nan), "NaN"),
    (lambda q, qd, qdd: _good_coulomb(q, qd, qdd) + 0j, "complex"),
    (42, "expected a function"),
    (..., "not answered yet"),
])
def test_coulomb_regressor_wrong_answers_print_a_cross(capsys, answer, message):
    assert pc.check_coulomb_regressor(answer) == False
    out = capsys.readouterr().out
    assert out.startswith(CROSS) and message in out


def test_coulomb_stub_with_an_empty_body_is_reported():
    def regressor_coulomb(q, qd, qdd):
        """the stub as delivered"""
        ...

    assert pc.check_coulomb_regressor(regressor_coulomb) == False


def _twin(p, m2=2.0):
    l2 = p.m * p.l / m2
    return (p.I + p.m * p.l**2 - m2 * l2**2, m2, l2)


def test_equivalent_pendulums_check(capsys):
    p = Pendulum()
    twin = _twin(p)
    assert checks.check_equivalent_pendulums(p, twin)
    assert pc.check_equivalent_pendulums({"I": p.I, "m": p.m, "l": p.l}, list(twin))
    assert pc.check_equivalent_pendulums(p, np.array(twin, dtype=np.float32))   # 7 digits suffice
    assert pc.check_equivalent_pendulums(p, tuple(float(f"{v:.5g}") for v in twin))  # 5 digits
    capsys.readouterr()
    assert not pc.check_equivalent_pendulums(p, (p.I, p.m, p.l))                     # identical
    assert "same pendulum" in capsys.readouterr().out
    assert not pc.check_equivalent_pendulums(p, (0.1, 1.0, 0.25))                    # other torques
    assert "I + m l^2" in capsys.readouterr().out
    assert not pc.check_equivalent_pendulums(p, (-0.1, 2.0, 0.125))                  # unphysical
    assert "not physical" in capsys.readouterr().out


@pytest.mark.parametrize("answer", [
    (np.inf, 1.0, 0.25), (np.nan, 1.0, 0.25), (0.0, np.inf, 0.0), (1.0, 2.0), None, (..., ..., ...),
    "0.1, 1, 0.2", {"I": 1.0}, (1 + 1j, 1.0, 0.25),
])
def test_equivalent_pendulums_bad_answers_print_a_cross(capsys, answer):
    assert pc.check_equivalent_pendulums(Pendulum(), answer) == False
    assert capsys.readouterr().out.startswith(CROSS)


def test_equivalent_pendulums_misuse_raises():
    with pytest.raises(ValueError, match="p1 must be a physical pendulum"):
        pc.check_equivalent_pendulums((1.0, -2.0, 0.1), _twin(Pendulum()))
    with pytest.raises(ValueError, match="g must be a positive"):
        pc.check_equivalent_pendulums(Pendulum(), _twin(Pendulum()), g=np.nan)


def test_sqrt_n_check(capsys):
    n = np.array([100, 400, 1600])
    assert checks.check_sqrt_n_scaling(n, 1 / np.sqrt(n))
    assert pc.check_sqrt_n_scaling(n.tolist(), list((1 / np.sqrt(n)).astype(np.float32)))
    capsys.readouterr()
    assert not pc.check_sqrt_n_scaling(n, 1 / n)
    assert "should be close to -1/2" in capsys.readouterr().out
    for bad in ([100, 100, 100], [1, 2]):
        assert not pc.check_sqrt_n_scaling(bad, [1, 1, 1])
        assert capsys.readouterr().out.startswith(CROSS)
    for stds in (..., None, [1.0, np.nan, 2.0]):
        assert not pc.check_sqrt_n_scaling(n, stds)
        assert capsys.readouterr().out.startswith(CROSS)
    with pytest.raises(ValueError, match="tol must be"):
        pc.check_sqrt_n_scaling(n, 1 / np.sqrt(n), tol=-1)


def _two_sines(t):
    q = 0.25 * np.sin(2 * t) + 0.25 * np.sin(6 * t)
    qd = 0.5 * np.cos(2 * t) + 1.5 * np.cos(6 * t)
    qdd = -1.0 * np.sin(2 * t) - 9.0 * np.sin(6 * t)
    return q, qd, qdd


def _one_sine(t):
    return 0.5 * np.sin(2 * t), np.cos(2 * t), -2.0 * np.sin(2 * t)


def test_excitation_design(capsys):
    assert pc.check_excitation_design(_two_sines)
    assert TICK in capsys.readouterr().out
    assert pc.check_excitation_design(lambda t: [x.astype(np.float32).tolist() for x in _two_sines(t)])
    capsys.readouterr()
    assert not pc.check_excitation_design(_one_sine)                       # the chapter's first motion
    assert "each must be at most 2 %" in capsys.readouterr().out
    big = lambda t: tuple(2 * x for x in _two_sines(t))                     # noqa: E731
    assert not pc.check_excitation_design(big)
    assert "beyond the limit" in capsys.readouterr().out
    wrong_qd = lambda t: (_two_sines(t)[0], 2 * _two_sines(t)[1], _two_sines(t)[2])  # noqa: E731
    assert not pc.check_excitation_design(wrong_qd)
    assert "qd is not the time derivative" in capsys.readouterr().out
    still = lambda t: (0 * t, 0 * t, 0 * t)                                 # noqa: E731
    assert not pc.check_excitation_design(still)
    assert "rank deficient" in capsys.readouterr().out


def _shaken(t):
    """Two sines plus a 0.1 rad vibration at 95 rad/s: 900 rad/s^2 that no drive delivers."""
    q, qd, qdd = _two_sines(t)
    q, qd, qdd = 0.8 * q, 0.8 * qd, 0.8 * qdd
    return (q + 0.1 * np.sin(95 * t), qd + 9.5 * np.cos(95 * t), qdd - 902.5 * np.sin(95 * t))


def test_excitation_design_rejects_motions_beyond_the_drive(capsys):
    # the vibration makes every standard deviation tiny: only the limits can reject it
    assert pc.check_excitation_design(_shaken, qd_max=100.0, qdd_max=1000.0)
    capsys.readouterr()
    assert not pc.check_excitation_design(_shaken)
    out = capsys.readouterr().out
    assert out.startswith(CROSS) and "velocity reaches" in out
    assert not pc.check_excitation_design(_shaken, qd_max=100.0)
    out = capsys.readouterr().out
    assert "acceleration reaches 910 rad/s^2, beyond the limit of 15 rad/s^2" in out
    fast = lambda t: (0.5 * np.sin(8 * t), 4.0 * np.cos(8 * t), -32.0 * np.sin(8 * t))  # noqa: E731
    assert not pc.check_excitation_design(fast)
    assert "velocity reaches 4 rad/s, beyond the limit of 3 rad/s" in capsys.readouterr().out
    # the solution's kind of design stays within every limit
    assert pc.check_excitation_design(_two_sines)


@pytest.mark.parametrize("answer", [..., None, 3, lambda t: None, lambda t: (t, t), lambda t: (t, t, t[:5]),
                                    lambda t: (t * np.nan, t, t)])
def test_excitation_design_bad_answers_print_a_cross(capsys, answer):
    assert pc.check_excitation_design(answer) == False
    assert capsys.readouterr().out.startswith(CROSS)


def test_excitation_design_misuse_raises():
    with pytest.raises(ValueError, match="q_max must be"):
        pc.check_excitation_design(_two_sines, q_max=0)
    with pytest.raises(ValueError, match="target must be"):
        pc.check_excitation_design(_two_sines, target=np.inf)
    for name in ("qd_max", "qdd_max"):
        for bad in (0.0, -1.0, np.nan, "3"):
            with pytest.raises(ValueError, match=f"{name} must be a positive finite number, got"):
                pc.check_excitation_design(_two_sines, **{name: bad})


def test_docstrings_hold_no_solution_code():
    for f in (pc.check_coulomb_regressor, pc.check_equivalent_pendulums, pc.check_sqrt_n_scaling,
              pc.check_excitation_design):
        doc = f.__doc__
        assert "column_stack" not in doc and "sign(qd)])" not in doc and "0.25 * np.sin" not in doc


def test_doctests_run():
    import doctest

    result = doctest.testmod(pc, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 4 and result.failed == 0
