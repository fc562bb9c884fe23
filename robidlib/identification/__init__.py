"""A reusable identification pipeline: from raw logs of a real arm to validated parameters.

The steps, each a module of one concern:

=====================  ==================================================================
:mod:`.drives`          :class:`Transmission`: gear ratios, coupled motors, torque constants
:mod:`.model`           :class:`DriveModel`: rigid bodies, friction, offsets, rotor inertias,
                        coupled-motor terms; Khalil's names; base parameters by QR regrouping
:mod:`.logs`            reading CSV logs; data hygiene (:func:`~.logs.clean_record`: stamps,
                        NaN rows, gaps, resampling of jittered stamps, saturation)
:mod:`.preprocess`      :class:`Settings` (defaults that follow the rate), :func:`prepare`
                        (filter, differentiate or measured velocities, regressor at the full
                        rate, parallel decimation, zero-velocity equations flagged),
                        :func:`split` (fit / held-out in time), :func:`blocked_folds`,
                        :func:`concatenate` (several records)
:mod:`.estimate`        :func:`identify`: OLS, WLS with per-joint weights, essential
                        parameters, a hook for a physically consistent estimator
                        (:func:`physical_estimator`)
:mod:`.metric`          the held-out metric, defined once (:func:`~.metric.torque_error`)
:mod:`.validate`        :func:`heldout_error` (the metric), :func:`validate` (errors in the
                        pipeline's decimated domain), residual spectrum;
                        :func:`blocked_cross_validation` (each block held out once)
:mod:`.figaroh`         :func:`~.figaroh.prepare_figaroh`, :func:`~.figaroh.figaroh_estimates`:
                        FIGAROH's processing of a record, choice by choice (chapter 11)
:mod:`.config`,         ``robidlib-identify`` (``python -m robidlib.identify``): a TOML
:mod:`.command`,        configuration, the whole run (:func:`identify_robot`), the report
:mod:`.export`,         (``report.html``, ``result.json``) and the URDF/MJCF export checked
:mod:`.report`          by loading it back
=====================  ==================================================================

On another robot, write a configuration (URDF, log columns, units, transmission) and run
``robidlib-identify my_arm.toml --out results/`` (see :mod:`.config`), or, in Python, with
logs of motor positions and currents::

    robot = SerialRobot.from_urdf("my_arm.urdf")
    model = DriveModel(robot, Transmission(R, torque_constants=kt))
    out = run(t, q_motor, currents, model, Settings(ts=0.001))
    out.heldout["wls"].overall             # the held-out metric (metric.torque_error)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from numpy.typing import ArrayLike

from .command import RobotIdentification, identify_robot
from .config import IdentifyConfig, example_config, load_config, write_example_config
from .drives import Transmission
from .estimate import (
    IdentificationResult,
    PhysicalProblem,
    essential_parameters,
    identify,
    joint_sigmas,
    physical_estimator,
)
from .metric import TorqueError, torque_error
from .model import DriveModel, khalil_name
from .preprocess import (
    FullRate,
    IdentificationData,
    Settings,
    blocked_folds,
    concatenate,
    decimation_factors,
    motion_bandwidth,
    parallel_decimate,
    prepare,
    split,
)
from .validate import (
    BlockedCrossValidation,
    Validation,
    blocked_cross_validation,
    heldout_error,
    predict_full_rate,
    relative_errors,
    residual_spectrum,
    validate,
)

__all__ = [
    "BlockedCrossValidation",
    "DriveModel",
    "IdentifyConfig",
    "RobotIdentification",
    "FullRate",
    "IdentificationData",
    "IdentificationResult",
    "PhysicalProblem",
    "PipelineRun",
    "Settings",
    "TorqueError",
    "Transmission",
    "Validation",
    "blocked_folds",
    "concatenate",
    "decimation_factors",
    "essential_parameters",
    "example_config",
    "heldout_error",
    "identify",
    "identify_robot",
    "joint_sigmas",
    "khalil_name",
    "load_config",
    "motion_bandwidth",
    "parallel_decimate",
    "physical_estimator",
    "predict_full_rate",
    "prepare",
    "relative_errors",
    "residual_spectrum",
    "run",
    "blocked_cross_validation",
    "split",
    "torque_error",
    "validate",
    "write_example_config",
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
        Errors of the estimates on ``train`` and on ``test`` in the pipeline's decimated domain
        (every sample; :func:`validate`).
    heldout : dict
        ``{method: TorqueError}``: the held-out metric on ``test`` (:func:`heldout_error`):
        against the measured torques through the fixed reference filter, independent of the
        settings.
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
    heldout: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, cls in (("data", IdentificationData), ("train", IdentificationData), ("test", IdentificationData),
                          ("result", IdentificationResult), ("training", Validation), ("validation", Validation),
                          ("timings", dict), ("heldout", dict)):
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
    >>> bool(out.validation.overall["wls"] < 1e-3), bool(out.heldout["wls"].overall < 1e-3)
    (True, True)
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
    heldout = heldout_error(result, test, methods)
    timings["validate"] = time.perf_counter() - tic
    return PipelineRun(data=data, train=train, test=test, result=result, training=training,
                       validation=validation, heldout=heldout, timings=timings)
