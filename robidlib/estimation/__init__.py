"""Estimators of the inertial parameters (least squares, neural, Kalman)."""

from ._estimate import Estimate
from .lsq import ols

__all__ = ["Estimate", "ols"]
