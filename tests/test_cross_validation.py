"""robidlib.identification.blocked_cross_validation: every block of a record held out once."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from robidlib.identification import (BlockedCrossValidation, DriveModel, Settings,
                                     blocked_cross_validation, identify, prepare, validate)
from robidlib.models import planar_2r

TS = 2e-4


@pytest.fixture(scope="module")
def data():
    """A planar 2R arm, 10 s at 5 kHz: still for 1 s, moving, still for the last 1 s."""
    model = DriveModel(planar_2r(), offset=False)
    t = np.arange(50000) * TS
    w = np.array([[1.1, 2.3, 3.7], [1.7, 2.9, 4.3]])
    env = np.clip(np.minimum(t - 1.0, 9.0 - t), 0.0, 0.5) / 0.5       # ramps in and out
    q = np.stack([np.sin(np.outer(t, w[j])).sum(1) for j in range(2)], 1) * 0.3 * env[:, None]
    qd = np.gradient(q, TS, axis=0)
    qdd = np.gradient(qd, TS, axis=0)
    x = model.pack(friction=[[0.5, 0.2], [0.3, 0.1]], rotor=[0.05, 0.02])
    tau = model.torques(q, qd, qdd, x) + 0.05 * np.random.default_rng(0).standard_normal(q.shape)
    return prepare(t, q, tau, model, Settings(ts=TS))


def test_blocks_cover_the_motion_and_each_fold_is_a_held_out_validation(data):
    cv = blocked_cross_validation(data, 4)
    assert isinstance(cv, BlockedCrossValidation) and cv.method == "wls"
    moving = np.any(data.keep, axis=1)
    assert cv.blocks.shape == (4, 2) and np.allclose(cv.blocks[1:, 0], cv.blocks[:-1, 1])
    assert cv.blocks[0, 0] == data.t[moving][0] and cv.blocks[-1, 1] > data.t[moving][-1]
    assert np.allclose(np.diff(cv.blocks, axis=1), np.diff(cv.blocks, axis=1)[0])
    # fold 2 by hand: fitted outside the block and its 0.1 s guards, validated inside
    lo, hi = cv.blocks[1]
    fit = data.select((data.t < lo - 0.1) | (data.t >= hi + 0.1))
    test = data.select((data.t >= lo) & (data.t < hi))
    v = validate(identify(fit), test, ("wls",))
    assert cv.per_fold[1] == pytest.approx(v.overall["wls"], rel=1e-12)
    assert np.allclose(cv.per_fold_joint[1], v.per_joint["wls"], rtol=1e-12)
    assert np.allclose(cv.rms_fold_joint[1], v.rms["wls"], rtol=1e-12)
    assert cv.mean == pytest.approx(cv.per_fold.mean())
    # the model is right and the noise small: every held-out error is small
    assert cv.pooled < 0.05 and np.all(cv.per_fold < 0.05)
    assert min(cv.per_fold) <= cv.pooled <= max(cv.per_fold) * 1.5


def test_span_record_and_other_methods(data):
    cv = blocked_cross_validation(data, 3, span="record", method="ols", guard=0.0)
    assert cv.blocks[0, 0] == data.t[0] and cv.method == "ols"
    base = data.model.base_parameters()
    again = blocked_cross_validation(data, 3, span="record", method="ols", guard=0.0, base=base)
    assert np.allclose(again.per_fold, cv.per_fold, rtol=1e-12)
    ess = blocked_cross_validation(data, 3, method="essential")
    assert np.all(np.isfinite(ess.per_fold))


def test_blocked_cross_validation_bad_input(data):
    with pytest.raises(TypeError, match="data must be IdentificationData"):
        blocked_cross_validation("data")
    for folds, err in ((2.0, TypeError), (True, TypeError), ("5", TypeError)):
        with pytest.raises(err, match="folds must be an int"):
            blocked_cross_validation(data, folds)
    for folds in (1, 0, -3, 10**6):
        with pytest.raises(ValueError, match="folds must be in"):
            blocked_cross_validation(data, folds)
    for guard in (-0.1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="guard"):
            blocked_cross_validation(data, guard=guard)
    with pytest.raises(ValueError, match="method"):
        blocked_cross_validation(data, method="physical")
    with pytest.raises(ValueError, match="span"):
        blocked_cross_validation(data, span="all")
    with pytest.raises(TypeError, match="base must be BaseParameters"):
        blocked_cross_validation(data, base="qr")
    # a block in which joint 2 has no kept equation
    lo, hi = blocked_cross_validation(data, 4).blocks[1]
    keep = data.keep.copy()
    keep[(data.t >= lo) & (data.t < hi), 1] = False
    with pytest.raises(ValueError, match=r"block 2 of 4 .* no kept equation of joint\(s\) \[2\]"):
        blocked_cross_validation(replace(data, keep=keep), 4)
    with pytest.raises(ValueError, match="no kept equation"):
        blocked_cross_validation(replace(data, keep=np.zeros_like(data.keep)), 2)
    with pytest.raises(ValueError, match="leaves a part empty"):
        blocked_cross_validation(data, 2, guard=20.0)
