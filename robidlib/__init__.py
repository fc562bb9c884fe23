"""robidlib: the helper package of the open textbook *Robot Dynamic Parameter Identification*.

The most used names are importable from the top level::

    import robidlib as rl
    robot = rl.models.ur5()
    Y = rl.regressor(robot, q, qd, qdd)          # (N, n, 10 n)
    bp = rl.base_parameters(robot)               # base parameters by QR regrouping
    est = rl.ols(*rl.stack(bp.reduce(Y), tau))   # least squares

Modules: ``robot``, ``spatial``, ``params``, ``dynamics``, ``regressor``, ``base``,
``trajectories``, ``signals``, ``estimation``, ``validation``, ``benchmark``, ``multibody``, ``models``,
``datasets`` (real data: the Staubli TX40), ``identification`` (the reusable pipeline from raw
logs to validated estimates), ``plotting``, ``checks``.

The modules a chapter may not need (``benchmark``, ``checks``, ``datasets``, ``identification``,
``multibody``, ``signals``, ``validation``, ``plotting``) are imported on first use, as
``robidlib.multibody`` or ``from robidlib import multibody``: they would cost every kernel
that imports robidlib about half a second (``scipy.signal``, the exercise checks, sympy).

Importing robidlib limits BLAS to one thread, so every machine prints the same numbers;
set ``ROBIDLIB_BLAS_THREADS`` (an integer, or ``off``) before the import to change that.

Note: the attribute ``robidlib.regressor`` is the *function* of the same name; import other
names of that module with ``from robidlib.regressor import stack``.
"""

from ._version import __version__
from ._lazy import lazy_submodules
from ._threads import _apply_default, limit_blas_threads

_apply_default()  # one BLAS thread unless ROBIDLIB_BLAS_THREADS says otherwise (see _threads)

from . import estimation, models, params, spatial, trajectories
from .base import BaseParameters, base_parameters, random_states
from .dynamics import forward_dynamics, inverse_dynamics, mass_matrix, simulate
from .estimation import Estimate, ols, ridge, wls
from .regressor import friction_regressor, regressor, stack
from .robot import SerialRobot
from .trajectories import excitation_cond, optimize_excitation

__all__ = [
    "__version__",
    "BaseParameters",
    "Estimate",
    "SerialRobot",
    "base_parameters",
    "benchmark",
    "checks",
    "datasets",
    "estimation",
    "excitation_cond",
    "forward_dynamics",
    "friction_regressor",
    "identification",
    "inverse_dynamics",
    "limit_blas_threads",
    "mass_matrix",
    "models",
    "multibody",
    "ols",
    "optimize_excitation",
    "params",
    "random_states",
    "regressor",
    "ridge",
    "signals",
    "simulate",
    "spatial",
    "stack",
    "trajectories",
    "validation",
    "wls",
]

# imported on first access (PEP 562), see the module docstring
_LAZY_MODULES = ("benchmark", "checks", "datasets", "identification", "multibody", "plotting", "signals",
                 "validation")

__getattr__, __dir__ = lazy_submodules(__name__, _LAZY_MODULES, globals())
