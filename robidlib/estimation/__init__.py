"""Estimators of the inertial parameters (least squares, neural, Kalman)."""

from ._estimate import Estimate
from .adaline import Adaline, max_stable_rate
from .augmented import AugmentedStateIdentifier, torque_midpoints
from .base_model import robot_base_model
from .consistency import nees, nees_bounds
from .kalman import ExtendedKalmanFilter, numerical_jacobian
from .symbolic import SymbolicModel, symbolic_regressor
from .hopfield import HopfieldEstimator, SaturationWarning
from .lsq import ols, ridge, sandwich_cov, wls

__all__ = [
    "Adaline",
    "AugmentedStateIdentifier",
    "Estimate",
    "ExtendedKalmanFilter",
    "HopfieldEstimator",
    "SaturationWarning",
    "SymbolicModel",
    "max_stable_rate",
    "nees",
    "nees_bounds",
    "numerical_jacobian",
    "ols",
    "ridge",
    "robot_base_model",
    "sandwich_cov",
    "symbolic_regressor",
    "torque_midpoints",
    "wls",
]
