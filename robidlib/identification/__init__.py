"""A reusable identification pipeline: from raw logs of a real arm to validated parameters.

The steps, each a module of one concern:

=====================  ==================================================================
:mod:`.drives`          :class:`Transmission`: gear ratios, coupled motors, torque constants
:mod:`.model`           :class:`DriveModel`: rigid bodies, friction, offsets, rotor inertias,
                        coupled-motor terms; Khalil's names; base parameters by QR regrouping
:mod:`.preprocess`      :class:`Settings`, :func:`prepare` (filter, differentiate, regressor at
                        the full rate, parallel decimation, zero-velocity equations flagged),
                        :func:`split` (fit / held-out in time)
:mod:`.estimate`        :func:`identify`: OLS, WLS with per-joint weights, essential
                        parameters, a hook for a physically consistent estimator
                        (:func:`physical_estimator`)
:mod:`.validate`        :func:`validate`: held-out relative torque errors, residual spectrum;
                        :func:`blocked_cross_validation` (each block held out once)
:mod:`.figaroh`         :func:`~.figaroh.prepare_figaroh`, :func:`~.figaroh.figaroh_estimates`:
                        FIGAROH's processing of a record, choice by choice (chapter 11)
=====================  ==================================================================

On another robot, with a URDF and logs of motor positions and currents::

    robot = SerialRobot.from_urdf("my_arm.urdf")
    model = DriveModel(robot, Transmission(R, torque_constants=kt))
    out = run(t, q_motor, currents, model, Settings(ts=0.001, cutoff=50.0, decimation=(5, 4)))
    out.validation.overall["wls"]          # held-out relative torque error
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from numpy.typing import ArrayLike

from .drives import Transmission
from .estimate import (
    IdentificationResult,
    PhysicalProblem,
    essential_parameters,
    identify,
    joint_sigmas,
    physical_estimator,
)
from .model import DriveModel, khalil_name
from .preprocess import IdentificationData, Settings, parallel_decimate, prepare, split
from .validate import (
    BlockedCrossValidation,
    Validation,
    blocked_cross_validation,
    relative_errors,
    residual_spectrum,
    validate,
)

__all__ = [
    "BlockedCrossValidation",
    "DriveModel",
    "IdentificationData",
    "IdentificationResult",
    "PhysicalProblem",
    "PipelineRun",
    "Settings",
    "Transmission",
    "Validation",
    "essential_parameters",
    "identify",
    "joint_sigmas",
    "khalil_name",
    "parallel_decimate",
    "physical_estimator",
    "prepare",
    "relative_errors",
    "residual_spectrum",
    "run",
    "blocked_cross_validation",
    "split",
    "validate",
]


@dataclass(frozen=True, eq=False)
class PipelineRun:
    """Everything :func:`run` computed.

    Attributes
    ----------
    data, train, test : ~robidlib.identification.preprocess.IdentificationData
        The whole decimated record and its two parts.
    result : IdentificationResult
        Fitted on ``train``.
    training, validation : Validation
        Errors of the estimates on ``train`` and on ``test``.
    timings : dict
        Seconds per stage: ``filter``, ``regressor``, ``decimate``, ``base``, ``ols``,
        ``wls``, ``essential`` (and ``physical``), ``validate``.

    Raises
    ------
    TypeError
        A field of the wrong type.
    """

    data: IdentificationData
    train: IdentificationData
    test: IdentificationData
    result: IdentificationResult
    training: Validation
    validation: Validation
    timings: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, cls in (("data", IdentificationData), ("train", IdentificationData), ("test", IdentificationData),
                          ("result", IdentificationResult), ("training", Validation), ("validation", Validation),
                          ("timings", dict)):
            if not isinstance(getattr(self, name), cls):
                raise TypeError(f"{name} must be {cls.__name__}, got {type(getattr(self, name)).__name__}")


def run(
    t: ArrayLike,
    q_motor: ArrayLike,
    signal: ArrayLike,
    model: DriveModel,
    settings: Settings,
    *,
    fraction: float = 0.7,
    guard: float = 0.1,
    physical: Callable[[PhysicalProblem], Any] | None = None,
) -> PipelineRun:
    """The whole pipeline: prepare, split in time, identify on the first part, validate.

    Parameters
    ----------
    t, q_motor, signal, model, settings
        As in :func:`prepare`.
    fraction, guard
        As in :func:`split`.
    physical : callable, optional
        As in :func:`identify` (e.g. :func:`physical_estimator`); when it returns an
        estimate that :meth:`IdentificationResult.estimate` accepts as ``"physical"``, the
        training and held-out errors include it.

    Returns
    -------
    PipelineRun

    Raises
    ------
    ValueError, TypeError
        As the stages do.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.models import planar_2r
    >>> model = DriveModel(planar_2r(), offset=False)
    >>> t = np.arange(30000) * 2e-4
    >>> q = 0.3 * np.column_stack([np.sin(1.3 * t) + np.sin(3.1 * t), np.sin(1.9 * t) + np.sin(4.3 * t)])
    >>> qd = np.gradient(q, 2e-4, axis=0)
    >>> x = model.pack(friction=[[0.5, 0.2], [0.3, 0.1]], rotor=[0.05, 0.02])
    >>> tau = model.torques(q, qd, np.gradient(qd, 2e-4, axis=0), x)
    >>> out = run(t, q, tau, model, Settings(ts=2e-4))
    >>> bool(out.validation.overall["wls"] < 1e-3)
    True
    """
    timings: dict[str, float] = {}
    data = prepare(t, q_motor, signal, model, settings)
    timings.update(data.timings)
    tic = time.perf_counter()
    base = model.base_parameters()
    timings["base"] = time.perf_counter() - tic
    train, test = split(data, fraction, guard)
    result = identify(train, base=base, physical=physical)
    timings.update(result.timings)
    tic = time.perf_counter()
    methods = ("ols", "wls", "essential")
    try:
        result.estimate("physical")
        methods += ("physical",)
    except ValueError:
        pass
    training = validate(result, train, methods)
    validation = validate(result, test, methods)
    timings["validate"] = time.perf_counter() - tic
    return PipelineRun(data=data, train=train, test=test, result=result, training=training,
                       validation=validation, timings=timings)
