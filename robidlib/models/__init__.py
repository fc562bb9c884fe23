"""Ready-made models used by the chapters."""

from .pendulum import Motion, Pendulum

__all__ = ["Motion", "Pendulum"]
