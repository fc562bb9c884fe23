"""Estimators of the inertial parameters (least squares, neural, Kalman)."""

from ._estimate import Estimate
from .adaline import Adaline, max_stable_rate
from .adaline import adaline_batch, adaline_online, recursive_least_squares, whiten_rows
from .augmented import AugmentedStateIdentifier, torque_midpoints
from .closed_loop import didim, idim_iv, iv, output_error
from .base_model import robot_base_model, with_finite_differences
from .consistency import WhitenessTest, nees, nees_bounds, whiteness_test
from .kalman import ExtendedKalmanFilter, numerical_jacobian
from .symbolic import SymbolicModel, symbolic_regressor
from .hopfield import HopfieldEstimator, SaturationWarning
from .hopfield import hopfield_batch, hopfield_online
from .log_cholesky import log_cholesky_ls
from .lsq import RidgePath, ols, ridge, ridge_path, sandwich_cov, wls
from .physical import bounded_ls, is_feasible_base, physical_ls, standard_from_base
from .records import load_filter_runs, simulate_identification
from .smoother import iterated_extended_smoother, rts_smoother
from .unscented import UnscentedKalmanFilter, sigma_points

__all__ = [
    "Adaline",
    "AugmentedStateIdentifier",
    "Estimate",
    "ExtendedKalmanFilter",
    "HopfieldEstimator",
    "RidgePath",
    "SaturationWarning",
    "SymbolicModel",
    "UnscentedKalmanFilter",
    "WhitenessTest",
    "adaline_batch",
    "adaline_online",
    "bounded_ls",
    "didim",
    "hopfield_batch",
    "hopfield_online",
    "idim_iv",
    "is_feasible_base",
    "iterated_extended_smoother",
    "iv",
    "load_filter_runs",
    "log_cholesky_ls",
    "max_stable_rate",
    "nees",
    "nees_bounds",
    "numerical_jacobian",
    "ols",
    "output_error",
    "physical_ls",
    "recursive_least_squares",
    "ridge",
    "ridge_path",
    "robot_base_model",
    "rts_smoother",
    "sandwich_cov",
    "sigma_points",
    "simulate_identification",
    "standard_from_base",
    "symbolic_regressor",
    "torque_midpoints",
    "whiten_rows",
    "whiteness_test",
    "with_finite_differences",
    "wls",
]
