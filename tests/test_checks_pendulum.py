import numpy as np
import pytest

from robidlib import checks
from robidlib.models import Pendulum


def test_coulomb_regressor_check(capsys):
    good = lambda q, qd, qdd: np.column_stack([qdd, np.sin(q), qd, np.sign(qd)])  # noqa: E731
    assert checks.check_coulomb_regressor(good)
    assert "\u2714" in capsys.readouterr().out
    swapped = lambda q, qd, qdd: np.column_stack([np.sin(q), qdd, qd, np.sign(qd)])  # noqa: E731
    assert not checks.check_coulomb_regressor(swapped)
    assert "column 0 should be qdd" in capsys.readouterr().out
    assert not checks.check_coulomb_regressor(lambda q, qd, qdd: np.zeros((len(q), 3)))
    assert not checks.check_coulomb_regressor(lambda q, qd, qdd: 1 / 0)
    with pytest.raises(TypeError, match="func must be a function"):
        checks.check_coulomb_regressor(42)


def test_equivalent_pendulums_check():
    p = Pendulum()
    m2 = 2.0
    l2 = p.m * p.l / m2
    twin = (p.I + p.m * p.l**2 - m2 * l2**2, m2, l2)
    assert checks.check_equivalent_pendulums(p, twin)
    assert checks.check_equivalent_pendulums({"I": p.I, "m": p.m, "l": p.l}, twin)
    assert not checks.check_equivalent_pendulums(p, (p.I, p.m, p.l))          # identical
    assert not checks.check_equivalent_pendulums(p, (0.1, 1.0, 0.25))         # different torques
    assert not checks.check_equivalent_pendulums(p, (-0.1, 2.0, 0.125))       # unphysical
    with pytest.raises(TypeError, match="must be \\(I, m, l\\)"):
        checks.check_equivalent_pendulums(p, (1.0, 2.0))
    with pytest.raises(TypeError, match="missing"):
        checks.check_equivalent_pendulums({"I": 1.0}, p)


def test_sqrt_n_check():
    n = np.array([100, 400, 1600])
    assert checks.check_sqrt_n_scaling(n, 1 / np.sqrt(n))
    assert not checks.check_sqrt_n_scaling(n, 1 / n)
    assert not checks.check_sqrt_n_scaling([100, 100, 100], [1, 1, 1])
    with pytest.raises(TypeError, match="same length"):
        checks.check_sqrt_n_scaling([1, 2, 3], [1, 2])
