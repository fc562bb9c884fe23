"""Friendly checks of the students' exercise answers, one module per chapter.

Each check prints one line of feedback and returns ``True`` when the answer is right and
``False`` otherwise, so a student can simply run it; solutions in the book wrap it in
``assert``. Malformed answers (not callable, wrong type) raise ``TypeError``.
Chapter-specific checks live in ``robidlib.checks.chNN``; chapter 1's are also importable
from ``robidlib.checks`` directly.
"""

from . import ch01, ch02, ch03, ch04, ch05, ch06, ch07, ch08
from .ch01 import check_coulomb_regressor, check_equivalent_pendulums, check_sqrt_n_scaling

__all__ = ["ch01", "ch02", "ch03", "ch04", "ch05", "ch06", "ch07", "ch08", "check_coulomb_regressor", "check_equivalent_pendulums", "check_sqrt_n_scaling"]
