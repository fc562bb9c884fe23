"""Ready-made models used by the chapters."""

from .pendulum import Motion, Pendulum
from .planar_2r import planar_2r
from .redundant_5dof import redundant_5dof
from .ur5 import ur5

__all__ = ["Motion", "Pendulum", "planar_2r", "redundant_5dof", "ur5"]
