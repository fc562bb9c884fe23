"""Former home of the Kalman-filter code, kept so that existing imports keep working.

The code now lives in one module per concern:

* :mod:`robidlib.estimation.kalman`: the generic :class:`ExtendedKalmanFilter` and
  :func:`numerical_jacobian`;
* :mod:`robidlib.estimation.augmented`: the parameters-as-states identifier
  :class:`AugmentedStateIdentifier` and :func:`torque_midpoints`;
* :mod:`robidlib.estimation.consistency`: :func:`nees` and :func:`nees_bounds`;
* :mod:`robidlib.estimation.symbolic`: :func:`symbolic_regressor` and :class:`SymbolicModel`;
* :mod:`robidlib.estimation.base_model`: :func:`robot_base_model` (a serial robot wired for
  the identifier).

``from robidlib.estimation.ekf import X`` still works for every name listed here; new code
imports from :mod:`robidlib.estimation` or from the module above.
"""

from .augmented import AugmentedStateIdentifier, torque_midpoints
from .base_model import RobotBaseModel, SymbolicRobotBaseModel, robot_base_model
from .consistency import nees, nees_bounds
from .kalman import ExtendedKalmanFilter, numerical_jacobian
from .symbolic import SymbolicModel, symbolic_regressor

__all__ = [
    "ExtendedKalmanFilter",
    "AugmentedStateIdentifier",
    "numerical_jacobian",
    "symbolic_regressor",
    "SymbolicModel",
    "RobotBaseModel",
    "SymbolicRobotBaseModel",
    "robot_base_model",
    "torque_midpoints",
    "nees",
    "nees_bounds",
]
