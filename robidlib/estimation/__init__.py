"""Estimators of the inertial parameters (least squares, neural, Kalman)."""

from ._estimate import Estimate
from .adaline import Adaline, max_stable_rate
from .adaline import adaline_batch, adaline_online, recursive_least_squares, whiten_rows
from .augmented import AugmentedStateIdentifier, torque_midpoints
from .base_model import robot_base_model
from .consistency import nees, nees_bounds
from .kalman import ExtendedKalmanFilter, numerical_jacobian
from .symbolic import SymbolicModel, symbolic_regressor
from .hopfield import HopfieldEstimator, SaturationWarning
from .hopfield import hopfield_batch, hopfield_online
from .lsq import ols, ridge, wls
from .physical import bounded_ls, is_feasible_base, physical_ls, standard_from_base

__all__ = [
    "Adaline",
    "adaline_batch",
    "adaline_online",
    "AugmentedStateIdentifier",
    "Estimate",
    "ExtendedKalmanFilter",
    "HopfieldEstimator",
    "hopfield_batch",
    "hopfield_online",
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
    "recursive_least_squares",
    "ridge",
    "robot_base_model",
    "standard_from_base",
    "symbolic_regressor",
    "torque_midpoints",
    "whiten_rows",
    "wls",
]
