"""Estimators of the inertial parameters (least squares, neural, Kalman)."""

from ._estimate import Estimate
from .adaline import Adaline, max_stable_rate
from .ekf import AugmentedStateIdentifier, ExtendedKalmanFilter, numerical_jacobian
from .hopfield import HopfieldEstimator, SaturationWarning
from .lsq import ols, ridge, wls

__all__ = [
    "Adaline",
    "AugmentedStateIdentifier",
    "Estimate",
    "ExtendedKalmanFilter",
    "HopfieldEstimator",
    "SaturationWarning",
    "max_stable_rate",
    "numerical_jacobian",
    "ols",
    "ridge",
    "wls",
]
