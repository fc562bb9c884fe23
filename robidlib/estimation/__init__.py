"""Estimators of the inertial parameters (least squares, neural, Kalman)."""

from ._estimate import Estimate
from .adaline import Adaline, max_stable_rate
from .augmented import AugmentedStateIdentifier, torque_midpoints
from .base_model import robot_base_model, with_finite_differences
from .consistency import WhitenessTest, nees, nees_bounds, whiteness_test
from .kalman import ExtendedKalmanFilter, numerical_jacobian
from .symbolic import SymbolicModel, symbolic_regressor
from .hopfield import HopfieldEstimator, SaturationWarning
from .lsq import ols, ridge, wls
from .records import load_filter_runs, simulate_identification
from .smoother import iterated_extended_smoother, rts_smoother

__all__ = [
    "Adaline",
    "AugmentedStateIdentifier",
    "Estimate",
    "ExtendedKalmanFilter",
    "HopfieldEstimator",
    "SaturationWarning",
    "SymbolicModel",
    "WhitenessTest",
    "max_stable_rate",
    "nees",
    "nees_bounds",
    "iterated_extended_smoother",
    "load_filter_runs",
    "numerical_jacobian",
    "ols",
    "ridge",
    "robot_base_model",
    "rts_smoother",
    "simulate_identification",
    "symbolic_regressor",
    "torque_midpoints",
    "whiteness_test",
    "with_finite_differences",
    "wls",
]
