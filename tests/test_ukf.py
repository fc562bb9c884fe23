"""The unscented Kalman filter (robidlib.estimation.unscented), checked against theory and filterpy."""

from __future__ import annotations

import numpy as np
import pytest
from filterpy.kalman import MerweScaledSigmaPoints
from filterpy.kalman import UnscentedKalmanFilter as FilterpyUKF

from robidlib.estimation import (AugmentedStateIdentifier, ExtendedKalmanFilter, UnscentedKalmanFilter,
                                 sigma_points, torque_midpoints)

BETA = np.array([0.5, 2.0, 0.1])            # pendulum a qdd + b sin q + c qd = tau


def _pendulum_data(N=300, dt=0.02, seed=13):
    t = dt * np.arange(N)
    w = 2 * np.pi * 0.2
    q = 0.8 * np.sin(w * t) + 0.3 * np.sin(2 * w * t + 0.5)
    qd = 0.8 * w * np.cos(w * t) + 0.6 * w * np.cos(2 * w * t + 0.5)
    qdd = -0.8 * w**2 * np.sin(w * t) - 1.2 * w**2 * np.sin(2 * w * t + 0.5)
    tau = (np.column_stack([qdd, np.sin(q), qd]) @ BETA)[:, None]
    z = q[:, None] + 1e-3 * np.random.default_rng(seed).standard_normal((N, 1))
    return t, tau, z, qd


def _pendulum_identifier(z, qd0, dt=0.02):
    Yb = lambda q, qd, qdd: np.array([[qdd[0], np.sin(q[0]), qd[0]]])   # noqa: E731
    b0 = BETA * [1.1, 0.9, 1.2]
    return AugmentedStateIdentifier(Yb, dt, n=1, p=3, x0=np.r_[z[0, 0], qd0, b0],
                                    Q=np.r_[0.0, 1e-10, 0.0, 0.0, 0.0], R=[1e-6],
                                    P0=np.r_[1e-6, 1e-2, (0.2 * b0) ** 2], integrator="rk4")


# ---------------------------------------------------------------------- sigma points
@pytest.mark.parametrize("alpha, kappa", [(1.0, 0.0), (1e-3, 0.0), (0.5, 1.0), (1.0, -1.0)])
def test_sigma_points_reproduce_mean_and_covariance(alpha, kappa):
    rng = np.random.default_rng(1)
    A = rng.normal(size=(3, 3))
    P = A @ A.T + 0.1 * np.eye(3)
    x = rng.normal(size=3)
    pts, Wm, Wc = sigma_points(x, P, alpha=alpha, kappa=kappa)
    assert pts.shape == (7, 3) and Wm.shape == Wc.shape == (7,)
    assert np.isclose(Wm.sum(), 1.0) and np.allclose(pts[0], x)
    assert np.allclose(Wm @ pts, x, atol=1e-12 / alpha**2)
    D = pts - x
    assert np.allclose((D.T * Wc) @ D, P, rtol=1e-10)
    assert np.allclose(pts[1:4] - x, -(pts[4:] - x))                  # symmetric pairs
    c = alpha**2 * (3 + kappa)                                         # n + lambda
    assert np.isclose(Wc[0] - Wm[0], 1 - alpha**2 + 2.0) and np.allclose(Wm[1:], 0.5 / c)


def test_sigma_points_of_a_singular_covariance():
    P = np.diag([1.0, 0.0, 4.0])                    # one state known exactly
    pts, Wm, Wc = sigma_points([0.0, 1.0, 2.0], P)
    assert np.allclose(pts[:, 1], 1.0)               # the known state never moves
    D = pts - [0.0, 1.0, 2.0]
    assert np.allclose((D.T * Wc) @ D, P, atol=1e-12)


def test_sigma_points_match_filterpy():
    rng = np.random.default_rng(2)
    A = rng.normal(size=(4, 4))
    P, x = A @ A.T + np.eye(4), rng.normal(size=4)
    ref = MerweScaledSigmaPoints(n=4, alpha=0.3, beta=2.0, kappa=0.5)
    pts, Wm, Wc = sigma_points(x, P, alpha=0.3, beta=2.0, kappa=0.5)
    assert np.allclose(pts, ref.sigma_points(x, P), rtol=1e-12, atol=1e-12)
    assert np.allclose(Wm, ref.Wm) and np.allclose(Wc, ref.Wc)


# ---------------------------------------------------------------------- the filter
def test_linear_model_is_the_kalman_filter():
    """For a linear model the unscented transform is exact: the UKF is the Kalman filter."""
    rng = np.random.default_rng(3)
    F = np.array([[1.0, 0.1, 0.0], [0.0, 1.0, 0.1], [0.0, 0.0, 0.95]])
    B = np.array([[0.0], [0.0], [0.1]])
    H = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    Q, R = 1e-4 * np.diag([1.0, 2.0, 3.0]), np.diag([0.01, 0.04])
    x0, P0 = np.array([0.5, -0.2, 0.1]), np.eye(3)
    kf = ExtendedKalmanFilter(lambda x, u: F @ x + B @ u, lambda x: H @ x, lambda x, u: F,
                              lambda x: H, Q, R, x0, P0)
    ukf = UnscentedKalmanFilter(lambda x, u: F @ x + B @ u, lambda x: H @ x, Q, R, x0, P0)
    for _ in range(40):
        u, z = rng.normal(size=1), rng.normal(size=2)
        kf.predict(u)
        ukf.predict(u)
        assert np.allclose(ukf.x, kf.x, rtol=1e-10, atol=1e-12)
        assert np.allclose(ukf.P, kf.P, rtol=1e-9, atol=1e-13)
        kf.update(z)
        ukf.update(z)
        assert np.allclose(ukf.x, kf.x, rtol=1e-10, atol=1e-12)
        assert np.allclose(ukf.P, kf.P, rtol=1e-9, atol=1e-13)
        assert np.allclose(ukf.S, kf.S) and np.allclose(ukf.K, kf.K) and np.isclose(ukf.nis, kf.nis)
    assert ukf.step == 40 and "nx=3" in repr(ukf)


@pytest.mark.parametrize("alpha", [1.0, 0.1])
def test_matches_filterpy_on_a_nonlinear_problem(alpha):
    """Every prior and posterior equals filterpy's (new sigma points before each update)."""
    rng = np.random.default_rng(4)
    dt = 0.1

    def fx(x, u):                                  # a turning target, nonlinear in the heading
        px, py, v, th = x
        return np.array([px + dt * v * np.cos(th), py + dt * v * np.sin(th), v, th + dt * u[0]])

    hx = lambda x: np.array([np.hypot(x[0], x[1]), np.arctan2(x[1], x[0])])  # noqa: E731
    Q, R = np.diag([1e-4, 1e-4, 1e-3, 1e-3]), np.diag([0.05**2, 0.02**2])
    x0, P0 = np.array([5.0, 1.0, 1.0, 0.2]), np.diag([0.5, 0.5, 0.1, 0.05])
    ours = UnscentedKalmanFilter(fx, hx, Q, R, x0, P0, alpha=alpha)
    points = MerweScaledSigmaPoints(n=4, alpha=alpha, beta=2.0, kappa=0.0)
    ref = FilterpyUKF(dim_x=4, dim_z=2, dt=dt, fx=lambda x, dt, u: fx(x, u), hx=hx, points=points)
    ref.x, ref.P, ref.Q, ref.R = x0.copy(), P0.copy(), Q, R
    truth = x0.copy()
    for _ in range(30):
        u = rng.normal(scale=0.3, size=1)
        truth = fx(truth, u)
        z = hx(truth) + rng.normal(scale=[0.05, 0.02])
        ours.predict(u)
        ref.predict(u=u)
        assert np.allclose(ours.x, ref.x, rtol=1e-10, atol=1e-12)
        assert np.allclose(ours.P, ref.P, rtol=1e-9, atol=1e-13)
        # filterpy 2 draws new points from the prior before the update, filterpy 1.4.5 reuses
        # the propagated ones; drawing them here makes both versions the textbook filter
        ref.sigmas_f = points.sigma_points(ref.x, ref.P)
        ours.update(z)
        ref.update(z)
        assert np.allclose(ours.x, ref.x, rtol=1e-10, atol=1e-12)
        assert np.allclose(ours.P, ref.P, rtol=1e-9, atol=1e-13)
        assert np.allclose(ours.y, ref.y) and np.allclose(ours.S, ref.S) and np.allclose(ours.K, ref.K)
    assert np.linalg.norm(ours.x[:2] - truth[:2]) < 0.2


def test_agrees_with_the_ekf_on_the_augmented_pendulum():
    """From a guess within 20 % the UKF ends where the EKF does, within the bands.

    The two filters approximate the same posterior differently during the transient (after
    6 s of a two-harmonic motion the bands differ by up to about a quarter, the estimates by
    up to about two and a half of the EKF's standard deviations); the UKF's band contains
    the truth.
    """
    dt = 0.02
    t, tau, z, qd = _pendulum_data()
    ekf = _pendulum_identifier(z, qd[0])
    ekf.run(t, tau, z, torque="cubic")
    ident = _pendulum_identifier(z, qd[0])
    ukf = UnscentedKalmanFilter(ident.transition, ident.measurement, ident.filter.Q, ident.filter.R,
                                ident.x, ident.P)
    U = np.stack([tau[:-1], torque_midpoints(tau), tau[1:]], axis=1)
    ukf.update(z[0])
    for k in range(1, len(t)):
        ukf.predict(U[k - 1])
        ukf.update(z[k])
    std = np.sqrt(np.diag(ukf.P)[2:])
    assert np.allclose(std, ekf.std, rtol=0.4)                           # the same information
    assert np.all(np.abs(ukf.x[2:] - ekf.params) < 3 * ekf.std)         # the same answer
    assert np.all(np.abs(ukf.x[2:] - BETA) < 3 * std)
    assert dt == ident.dt


def test_reset_restarts_the_filter():
    ukf = UnscentedKalmanFilter(lambda x, u: x, lambda x: x[:1], np.eye(2) * 1e-6, [1e-2], [0.0, 0.0],
                                np.eye(2))
    ukf.predict()
    ukf.update([1.0])
    assert ukf.step == 1 and ukf.x[0] > 0.5 and np.isfinite(ukf.nis)
    ukf.reset([0.0, 1.0], np.diag([2.0, 3.0]))
    assert ukf.step == 0 and np.allclose(ukf.x, [0.0, 1.0]) and np.allclose(ukf.P, np.diag([2.0, 3.0]))


# ---------------------------------------------------------------------- bad input
def _ok(**kw):
    args = dict(f=lambda x, u: x, h=lambda x: x[:1], Q=1e-6 * np.eye(2), R=[[1e-4]], x0=[0.0, 0.0],
                P0=np.eye(2))
    args.update(kw)
    return UnscentedKalmanFilter(**args)


@pytest.mark.parametrize("kw, exc, match", [
    (dict(f=3), TypeError, "f must be callable"),
    (dict(h="h"), TypeError, "h must be callable"),
    (dict(Q=np.eye(3)), ValueError, r"Q must have shape \(2, 2\)"),
    (dict(Q=[[1.0, 0.5], [0.0, 1.0]]), ValueError, "Q must be symmetric"),
    (dict(Q=-np.eye(2)), ValueError, "Q must be positive semi-definite"),
    (dict(R=[[np.nan]]), ValueError, "R must"),
    (dict(x0=[]), ValueError, "x0 must have at least one entry"),
    (dict(x0=[0.0, np.inf]), ValueError, "x0 must"),
    (dict(x0=[1j, 0.0]), TypeError, "x0"),
    (dict(P0=np.ones((2, 3))), ValueError, "P0 must have shape"),
    (dict(alpha=0.0), ValueError, "alpha must be > 0"),
    (dict(alpha=np.nan), ValueError, "alpha must be finite"),
    (dict(beta=-1.0), ValueError, "beta must be >= 0"),
    (dict(kappa=-2.0), ValueError, "kappa must be > -n"),
    (dict(kappa=[1.0]), TypeError, "kappa must be a real scalar"),
    (dict(kappa="1"), TypeError, "kappa must be a real scalar"),
])
def test_bad_construction(kw, exc, match):
    with pytest.raises(exc, match=match):
        _ok(**kw)


def test_bad_measurement_and_model_output():
    ukf = _ok()
    with pytest.raises(ValueError, match="z must have shape"):
        ukf.update([1.0, 2.0])
    with pytest.raises(ValueError, match="z must"):
        ukf.update([np.nan])
    bad_f = _ok(f=lambda x, u: np.r_[x, 0.0])
    with pytest.raises(ValueError, match=r"f\(x, u\) returned shape \(3,\) at step 1"):
        bad_f.predict()
    nan_f = _ok(f=lambda x, u: x * np.nan)
    with pytest.raises(ValueError, match="non-finite"):
        nan_f.predict()
    bad_h = _ok(h=lambda x: x)
    with pytest.raises(ValueError, match=r"h\(x\) returned shape \(2,\)"):
        bad_h.update([0.0])


def test_a_diverging_model_stops_with_the_step_and_no_warning():
    import warnings

    ukf = _ok(f=lambda x, u: x * 1e200, P0=np.eye(2))     # images 1e200: their squares overflow
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="non-finite at step 1"):
            ukf.predict()


def test_zero_measurement_noise_with_an_unobserved_state_is_refused_clearly():
    ukf = _ok(h=lambda x: np.zeros(1), R=[[0.0]])
    with pytest.raises(ValueError, match="innovation covariance S is not positive definite at step 0"):
        ukf.update([0.0])


@pytest.mark.parametrize("args, kw, exc, match", [
    (([], np.eye(0)), {}, ValueError, "x must have at least one entry"),
    (([0.0, 0.0], np.eye(3)), {}, ValueError, r"P must have shape \(2, 2\) to match x"),
    (([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]]), {}, ValueError, "P must be positive semi-definite"),
    (([0.0, np.nan], np.eye(2)), {}, ValueError, "x must"),
    (([0.0, 0.0], "P"), {}, TypeError, "P must be numeric"),
    (([0.0, 0.0], np.eye(2)), dict(alpha=-1.0), ValueError, "alpha must be > 0"),
    (([0.0, 0.0], np.eye(2)), dict(beta=np.inf), ValueError, "beta must be finite"),
    (([0.0, 0.0], np.eye(2)), dict(kappa=-2.0), ValueError, "kappa must be > -n = -2"),
])
def test_bad_sigma_points(args, kw, exc, match):
    with pytest.raises(exc, match=match):
        sigma_points(*args, **kw)
