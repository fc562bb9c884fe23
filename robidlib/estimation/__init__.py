"""Estimators of the inertial parameters (least squares, neural, Kalman)."""

from ._estimate import Estimate
from .adaline import Adaline, max_stable_rate
from .augmented import AugmentedStateIdentifier, torque_midpoints
from .base_model import robot_base_model
from .consistency import nees, nees_bounds
from .kalman import ExtendedKalmanFilter, numerical_jacobian
from .symbolic import SymbolicModel, symbolic_regressor
from .hopfield import HopfieldEstimator, SaturationWarning
from .lsq import ols, ridge, wls
from .physical import bounded_ls, is_feasible_base, physical_ls, standard_from_base

__all__ = [
    "Adaline",
    "AugmentedStateIdentifier",
    "Estimate",
    "ExtendedKalmanFilter",
    "HopfieldEstimator",
    "SaturationWarning",
    "SymbolicModel",
    "bounded_ls",
    "is_feasible_base",
    "max_stable_rate",
    "nees",
    "nees_bounds",
    "numerical_jacobian",
    "ols",
    "physical_ls",
    "ridge",
    "robot_base_model",
    "standard_from_base",
    "symbolic_regressor",
    "torque_midpoints",
    "wls",
]
