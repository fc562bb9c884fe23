"""fit_ekf's options: the samples it sees (window) and its process noise (process_noise)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from robidlib.benchmark import MeasurementPipeline, fit_ekf, make_study
from robidlib.models import planar_2r


@pytest.fixture(scope="module")
def problem():
    study = make_study(planar_2r(), seed=1, duration=2.0, optimize=0, validation_optimize=0)
    return study.problem(0.01, rng=0)


def test_the_ekf_sees_the_pipeline_s_window_by_default(problem):
    N = problem.data.t.size
    k = int(round(problem.pipeline.trim / problem.data.dt))
    default = fit_ekf(problem)
    assert default.iterations == (N - 2 * k - 1) // 2            # two samples per filter step
    record = fit_ekf(replace(problem, options={"ekf": {"window": "record"}}))
    assert record.iterations == (N - 1) // 2
    # without a pipeline the regressor methods see the whole record, and so does the EKF
    exact = fit_ekf(replace(problem, pipeline=None))
    assert exact.iterations == record.iterations
    assert np.allclose(exact.params, record.params)
    # a pipeline that trims (almost) everything is refused, for the EKF as for the others
    short = replace(problem, pipeline=MeasurementPipeline(trim=0.99))
    with pytest.raises(ValueError, match="the pipeline keeps 2 samples"):
        fit_ekf(short)


def test_full_and_diagonal_process_noise(problem):
    diag = fit_ekf(problem)
    same = fit_ekf(replace(problem, options={"ekf": {"process_noise": "diagonal"}}))
    assert np.array_equal(diag.params, same.params)               # the default is diagonal
    full = fit_ekf(replace(problem, options={"ekf": {"process_noise": "full"}}))
    assert full.iterations == diag.iterations and np.all(np.isfinite(full.params))
    assert not np.allclose(full.params, diag.params, rtol=1e-9, atol=0)
    # both end near the truth the problem was drawn from: within its prior spread
    truth = make_study(planar_2r(), seed=1, duration=2.0, optimize=0, validation_optimize=0).truth
    for fit in (diag, full):
        assert np.all(np.abs(fit.params - truth) < 3 * problem.prior_std)


def test_ekf_options_bad_input(problem):
    for key, value in (("process_noise", "dense"), ("window", "all"), ("process_noise", 1)):
        with pytest.raises(ValueError, match=rf"options\['ekf'\]\['{key}'\]"):
            fit_ekf(replace(problem, options={"ekf": {key: value}}))
