"""Friendly checks of the students' exercise answers, one module per chapter.

The modules are named after the chapter's topic, not its number, so that a new chapter
never renames them: ``pendulum`` (chapter 1), ``base_parameters`` (2), ``least_squares`` (3),
``excitation`` (4), ``physical`` (5), ``adaline`` (6), ``hopfield`` (7), ``ekf`` (8), ``validation`` (9),
``mixed_coordinates`` (10), ``tx40`` (11), ``closed_loop`` (12), ``own_robot`` (13).

Each check prints one line of feedback and returns a verdict that is true when the answer
is right and false otherwise (``robidlib.checks._report.Verdict``: a bool in ``if``,
``assert`` and ``==``, shown as nothing under the check's line in a notebook), so a student
can simply run it. An untouched stub says "not answered yet" with a hint. The checks compare
answers with stored references (``robidlib/data/checks``), never with a reference solution in
their code: the recipes of the references (``robidlib.checks.answers``) are instructor-only
and not part of the student edition. Chapter 1's checks are also importable
from ``robidlib.checks`` directly. The other chapters' modules are imported on first use
(``from robidlib.checks import hopfield``), so a chapter does not import the others' libraries.
"""

from .._lazy import lazy_submodules
from . import pendulum
from .pendulum import (
    check_coulomb_regressor,
    check_equivalent_pendulums,
    check_excitation_design,
    check_sqrt_n_scaling,
)

__all__ = [
    "adaline",
    "base_parameters",
    "closed_loop",
    "ekf",
    "excitation",
    "hopfield",
    "least_squares",
    "mixed_coordinates",
    "own_robot",
    "pendulum",
    "physical",
    "tx40",
    "validation",
    "check_coulomb_regressor",
    "check_equivalent_pendulums",
    "check_sqrt_n_scaling",
    "check_excitation_design",
]

_LAZY_MODULES = ("adaline", "base_parameters", "closed_loop", "ekf", "excitation", "hopfield", "least_squares",
                 "mixed_coordinates", "own_robot", "physical", "tx40", "validation")

__getattr__, __dir__ = lazy_submodules(__name__, _LAZY_MODULES, globals())
