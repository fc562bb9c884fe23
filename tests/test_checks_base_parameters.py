import numpy as np
import pytest

from robidlib.base import base_parameters
from robidlib.checks import base_parameters as checks
from robidlib.models import planar_2r


def test_base_parameter_answers():
    robot = planar_2r()
    good = ["Izz1 + 1/4*m2", "mx1 + m2/2", "my1", "Izz2", "mx2", "my2"]
    assert checks.check_base_parameters(robot, good)
    # another valid set: a combination of base parameters is also identifiable
    assert checks.check_base_parameters(robot, ["Izz1 + 1/4*m2 + mx2", "mx1 + m2/2", "my1", "Izz2", "mx2", "my2"])
    assert not checks.check_base_parameters(robot, good[:-1])                                  # too few
    assert not checks.check_base_parameters(robot, ["Izz1", "mx1 + m2/2", "my1", "Izz2", "mx2", "my2"])  # not identifiable
    assert not checks.check_base_parameters(robot, ["my1", "my1", "mx1 + m2/2", "Izz2", "mx2", "my2"])   # dependent
    assert not checks.check_base_parameters(robot, ["Izz9", "mx1", "my1", "Izz2", "mx2", "my2"])   # unknown name
    assert not checks.check_base_parameters(robot, ["m2**2", "mx1", "my1", "Izz2", "mx2", "my2"])  # not linear
    with pytest.raises(TypeError, match="answer must be a list"):
        checks.check_base_parameters(robot, "m1 + m2")
    with pytest.raises(TypeError, match="robot must be a SerialRobot"):
        checks.check_base_parameters("robot", good)


def test_null_direction():
    robot = planar_2r()
    bp = base_parameters(robot)
    assert checks.check_null_direction(robot, bp.null_space_direction(0))
    assert not checks.check_null_direction(robot, np.eye(20)[bp.independent[0]])
    assert not checks.check_null_direction(robot, np.zeros(20))
    assert not checks.check_null_direction(robot, np.ones(3))
    with pytest.raises(TypeError, match="d must be a numeric vector"):
        checks.check_null_direction(robot, object())


def test_tolerance():
    robot = planar_2r()
    s = base_parameters(robot, method="svd", rng=0).singular_values
    assert checks.check_tolerance(robot, 1e-8)
    assert not checks.check_tolerance(robot, float(s[2]))
    assert not checks.check_tolerance(robot, -1.0)
    with pytest.raises(TypeError, match="tol must be a number"):
        checks.check_tolerance(robot, "1e-8")
