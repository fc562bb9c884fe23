"""ridge_path: the ridge estimates over a grid of weights from one SVD, GCV and the L-curve."""

import numpy as np
import pytest

from robidlib.estimation import RidgePath, ridge, ridge_path


def _problem(seed=0, r=60, p=4, D=None):
    rng = np.random.default_rng(seed)
    W = rng.normal(size=(r, p)) * np.logspace(0, -3, p)        # one direction barely excited
    b = rng.uniform(0.5, 2.0, p)
    noise = 0.05 * rng.normal(size=(r,) if D is None else (r, D))
    y = (W @ b if D is None else (W @ b)[:, None]) + noise
    return W, y, b * (1 + 0.2 * rng.uniform(-1, 1, p))


LAMS = np.logspace(-8, 2, 41)


def test_every_grid_estimate_is_the_ridge_estimate_and_the_scores_follow_their_definitions():
    W, y, prior = _problem()
    path = ridge_path(W, y, LAMS, prior=prior)
    assert isinstance(path, RidgePath) and path.residual_norm.shape == (LAMS.size,)
    r = W.shape[0]
    for k in (0, 7, 20, 40):
        est = ridge(W, y, LAMS[k], prior=prior)
        b = path.params(k)
        assert np.allclose(b, est.params, rtol=1e-8, atol=1e-10)
        res = np.linalg.norm(W @ est.params - y)
        assert path.residual_norm[k] == pytest.approx(res, rel=1e-8)
        assert path.solution_norm[k] == pytest.approx(np.linalg.norm(est.params - prior), rel=1e-8)
        assert path.dof[k] == pytest.approx(est.info["dof"], rel=1e-12)
        assert path.gcv[k] == pytest.approx((res**2 / r) / (1 - est.info["dof"] / r) ** 2, rel=1e-8)
    assert path.gcv[path.i_gcv] == path.gcv.min()
    assert path.lam_gcv == LAMS[path.i_gcv] and path.lam_lcurve == LAMS[path.i_lcurve]


def test_the_l_curve_corner_is_the_largest_curvature_of_the_log_log_curve():
    W, y, prior = _problem(1)
    path = ridge_path(W, y, LAMS, prior=prior)
    fits = [ridge(W, y, lam, prior=prior).params for lam in LAMS]
    lx = np.log([np.linalg.norm(W @ b - y) for b in fits])
    ly = np.log([np.linalg.norm(b - prior) for b in fits])
    ll = np.log(LAMS)
    dx, dy = np.gradient(lx, ll), np.gradient(ly, ll)
    curv = (dx * np.gradient(dy, ll) - dy * np.gradient(dx, ll)) / (dx**2 + dy**2) ** 1.5
    assert np.allclose(path.curvature, curv, rtol=1e-5, atol=1e-8)
    assert path.i_lcurve == int(np.argmax(curv))
    # the corner leans towards the prior, GCV towards the data, on this problem
    assert path.i_lcurve >= path.i_gcv


def test_many_data_sets_at_once_equal_one_at_a_time():
    W, Y, prior = _problem(2, D=7)
    path = ridge_path(W, Y, LAMS, prior=prior)
    assert path.gcv.shape == (LAMS.size, 7) and path.i_gcv.shape == (7,)
    chosen = path.params(path.i_gcv)
    assert chosen.shape == (W.shape[1], 7)
    for d in range(7):
        one = ridge_path(W, Y[:, d], LAMS, prior=prior)
        assert one.i_gcv == path.i_gcv[d] and one.i_lcurve == path.i_lcurve[d]
        assert np.allclose(one.params(one.i_gcv), chosen[:, d], rtol=1e-12, atol=1e-12)
        assert np.allclose(one.gcv, path.gcv[:, d], rtol=1e-12)
    assert np.allclose(path.params(3)[:, 0], ridge(W, Y[:, 0], LAMS[3], prior=prior).params, rtol=1e-8)


def test_rank_deficient_and_wide_regressors_and_the_default_prior():
    rng = np.random.default_rng(3)
    W = rng.normal(size=(30, 3))
    W = np.c_[W, W[:, 0]]                                     # rank 3 of 4 columns
    y = W @ [1.0, 2.0, 3.0, 4.0] + 0.1 * rng.normal(size=30)
    path = ridge_path(W, y, LAMS)
    for k in (5, 30):
        assert np.allclose(path.params(k), ridge(W, y, LAMS[k]).params, rtol=1e-7, atol=1e-9)
    wide = rng.normal(size=(3, 6))                            # fewer rows than columns
    yw = wide @ np.ones(6)
    pw = ridge_path(wide, yw, LAMS, prior=np.zeros(6))
    assert np.allclose(pw.params(10), ridge(wide, yw, LAMS[10], prior=np.zeros(6)).params, rtol=1e-7, atol=1e-9)
    assert np.all(np.isfinite(pw.gcv)) and np.all(pw.dof < 3)


def test_bad_input_names_the_argument():
    W, y, prior = _problem()
    cases = [
        (dict(lams=[1.0, 2.0]), ValueError, "lams must hold at least 3"),
        (dict(lams=[1.0, 0.0, 2.0]), ValueError, "lams must be > 0"),
        (dict(lams=[1.0, 3.0, 2.0]), ValueError, "lams must be strictly increasing"),
        (dict(lams=[1.0, np.nan, 2.0]), ValueError, "lams"),
        (dict(y=y[:-1]), ValueError, "y has"),
        (dict(y=np.zeros((W.shape[0], 0))), ValueError, "y must hold at least one data set"),
        (dict(y=np.c_[y, y * np.nan]), ValueError, "y"),
        (dict(prior=prior[:-1]), ValueError, "prior must have shape"),
        (dict(W=W[:, :0]), ValueError, "W must have at least one row and one column"),
        (dict(W=W + 1j), (ValueError, TypeError), "W"),
    ]
    for change, exc, message in cases:
        args = dict(W=W, y=y, lams=LAMS, prior=prior) | change
        with pytest.raises(exc, match=message):
            ridge_path(**args)
    with pytest.raises(ValueError, match="has no L-curve"):
        ridge_path(W, W @ prior, LAMS, prior=prior)                 # the prior fits exactly
    path = ridge_path(W, np.c_[y, y], LAMS, prior=prior)
    with pytest.raises(ValueError, match=r"index must lie in \[0, 41\)"):
        path.params(41)
    with pytest.raises(ValueError, match="one entry per data set"):
        path.params([1, 2, 3])
    with pytest.raises(TypeError, match="index must be an int"):
        path.params(1.5)
