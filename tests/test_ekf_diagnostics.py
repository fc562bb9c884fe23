"""Tests of the filter diagnostics that need no truth (innovations, NIS, whiteness), of the
off-line smoothers (Rauch-Tung-Striebel, iterated extended smoother) and of the
finite-difference model that makes the augmented EKF fast for the 5-DOF arm."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from scipy.optimize import least_squares

from robidlib.estimation import (
    AugmentedStateIdentifier,
    ExtendedKalmanFilter,
    iterated_extended_smoother,
    robot_base_model,
    rts_smoother,
    whiteness_test,
    with_finite_differences,
)
from robidlib.estimation import base_model, consistency, smoother


@pytest.mark.parametrize("module", [smoother, consistency, base_model])
def test_doctests_run(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


# ---------------------------------------------------------------------- a linear-Gaussian case
def _linear_case(seed=3, N=25):
    rng = np.random.default_rng(seed)
    nx, nz = 3, 2
    F = np.eye(nx) + 0.1 * rng.normal(size=(nx, nx))
    B = rng.normal(size=(nx, 1))
    H = rng.normal(size=(nz, nx))
    G = rng.normal(size=(nx, nx))
    Q = 0.01 * G @ G.T + 1e-4 * np.eye(nx)
    R = np.diag([0.04, 0.09])
    m0, P0 = rng.normal(size=nx), np.diag([1.0, 0.5, 2.0])
    u = rng.normal(size=(N - 1, 1))
    x = rng.multivariate_normal(m0, P0)
    z = np.empty((N, nz))
    for k in range(N):
        if k:
            x = F @ x + B @ u[k - 1] + rng.multivariate_normal(np.zeros(nx), Q)
        z[k] = H @ x + rng.multivariate_normal(np.zeros(nz), R)
    return dict(F=F, B=B, H=H, Q=Q, R=R, m0=m0, P0=P0, u=u, z=z)


def _filter_with_priors(c):
    F, B, H = c["F"], c["B"], c["H"]
    kf = ExtendedKalmanFilter(lambda x, u: F @ x + B @ u, lambda x: H @ x, lambda x, u: F, lambda x: H,
                              c["Q"], c["R"], c["m0"], c["P0"], record_history=False)
    N, nx = c["z"].shape[0], F.shape[0]
    xf, Pf = np.empty((N, nx)), np.empty((N, nx, nx))
    xp, Pp, Fs = np.empty((N - 1, nx)), np.empty((N - 1, nx, nx)), np.empty((N - 1, nx, nx))
    assert np.isnan(kf.F).all()                         # no prediction yet
    for k in range(N):
        if k:
            kf.predict(c["u"][k - 1])
            xp[k - 1], Pp[k - 1], Fs[k - 1] = kf.x, kf.P, kf.F
        kf.update(c["z"][k])
        xf[k], Pf[k] = kf.x, kf.P
    return xf, Pf, xp, Pp, Fs


def _batch_posterior(c):
    """Mean and covariance of the whole trajectory from one weighted least-squares solve."""
    F, B, H, Q, R, P0, z, u = (c[k] for k in ("F", "B", "H", "Q", "R", "P0", "z", "u"))
    N, nx = z.shape[0], F.shape[0]
    Wq, Wr, W0 = (np.linalg.inv(np.linalg.cholesky(M)) for M in (Q, R, P0))
    rows, rhs = [], []

    def block(pairs, width):
        row = np.zeros((width, N * nx))
        for k, M in pairs:
            row[:, k * nx:(k + 1) * nx] = M
        return row

    rows.append(block([(0, W0)], nx))
    rhs.append(W0 @ c["m0"])
    for k in range(N - 1):
        rows.append(block([(k + 1, Wq), (k, -Wq @ F)], nx))
        rhs.append(Wq @ B @ u[k])
    for k in range(N):
        rows.append(block([(k, Wr @ H)], H.shape[0]))
        rhs.append(Wr @ z[k])
    A, b = np.vstack(rows), np.concatenate(rhs)
    info = A.T @ A
    mean = np.linalg.solve(info, A.T @ b)
    cov = np.linalg.inv(info)
    return mean.reshape(N, nx), np.array([cov[k * nx:(k + 1) * nx, k * nx:(k + 1) * nx] for k in range(N)])


def test_rts_smoother_equals_the_batch_posterior_of_a_linear_gaussian_model():
    c = _linear_case()
    xs, Ps = rts_smoother(*_filter_with_priors(c))
    mean, cov = _batch_posterior(c)
    # both are exact; the batch information matrix has a condition number ~1e4, so agreement
    # to ~1e-9 relative is what double precision guarantees
    assert np.allclose(xs, mean, rtol=1e-8, atol=1e-9)
    assert np.allclose(Ps, cov, rtol=1e-8, atol=1e-10)
    xf, Pf = _filter_with_priors(c)[:2]
    assert np.allclose(xs[-1], xf[-1]) and np.allclose(Ps[-1], Pf[-1])   # the last one is the filter's
    # smoothing never loses information: P_smooth <= P_filt
    assert all(np.linalg.eigvalsh(Pf[k] - Ps[k]).min() > -1e-12 for k in range(len(Ps)))


def test_iterated_smoother_of_a_linear_model_is_the_rts_smoother():
    c = _linear_case(seed=5)
    F, B, H = c["F"], c["B"], c["H"]
    out = iterated_extended_smoother(lambda x, u: F @ x + B @ u, lambda x, u: F, lambda x: H @ x,
                                     lambda x: H, c["Q"], c["R"], c["m0"], c["P0"], c["z"], list(c["u"]))
    xs, Ps = rts_smoother(*_filter_with_priors(c))
    assert out["passes"] == 2 and out["converged"]
    assert np.allclose(out["x"], xs, rtol=1e-9, atol=1e-10) and np.allclose(out["P"], Ps, rtol=1e-9, atol=1e-12)
    assert np.allclose(out["x_filt"], _filter_with_priors(c)[0])


def _nonlinear_case(seed=11, N=60, dt=0.05):
    """Pendulum with an unknown stiffness b: x = [q, qd, b], Euler, the angle measured."""
    rng = np.random.default_rng(seed)

    def f(x, u):
        return np.array([x[0] + dt * x[1], x[1] + dt * (u - x[2] * np.sin(x[0]) - 0.2 * x[1]), x[2]])

    def F(x, u):
        return np.array([[1.0, dt, 0.0],
                         [-dt * x[2] * np.cos(x[0]), 1.0 - 0.2 * dt, -dt * np.sin(x[0])],
                         [0.0, 0.0, 1.0]])

    H = np.array([[1.0, 0.0, 0.0]])
    Q = np.diag([1e-6, 1e-4, 1e-6])
    R = np.array([[1e-3]])
    u = 3.0 * np.sin(1.7 * dt * np.arange(N - 1))
    x = np.array([0.3, 0.0, 9.0])
    z = np.empty((N, 1))
    for k in range(N):
        if k:
            x = f(x, u[k - 1]) + rng.multivariate_normal(np.zeros(3), Q)
        z[k] = H @ x + rng.normal(0.0, np.sqrt(R[0, 0]))
    return f, F, H, Q, R, u, z


def test_iterated_smoother_converges_to_the_batch_map_estimate():
    f, F, H, Q, R, u, z = _nonlinear_case()
    x0, P0 = np.array([0.3, 0.0, 5.0]), np.diag([1e-2, 1.0, 9.0])      # a poor guess of b = 9
    out = iterated_extended_smoother(f, F, lambda x: H @ x, lambda x: H, Q, R, x0, P0, z, list(u),
                                     iterations=30, tol=1e-8)
    assert out["converged"]
    N = z.shape[0]
    Wq, Wr, W0 = (np.linalg.inv(np.linalg.cholesky(M)) for M in (Q, R, P0))

    def residuals(v):
        X = v.reshape(N, 3)
        r = [W0 @ (X[0] - x0)]
        r += [Wq @ (X[k + 1] - f(X[k], u[k])) for k in range(N - 1)]
        r += [Wr @ (z[k] - H @ X[k]) for k in range(N)]
        return np.concatenate(r)

    ref = least_squares(residuals, out["x_filt"].ravel(), xtol=1e-14, ftol=1e-14, gtol=1e-14).x.reshape(N, 3)
    sd = np.sqrt(np.diagonal(out["P"], axis1=1, axis2=2))
    # the same minimum: the difference is a tiny fraction of the posterior standard deviation
    assert np.max(np.abs(out["x"] - ref) / sd) < 1e-4
    # the plain EKF + RTS (one pass) is not yet there
    one = iterated_extended_smoother(f, F, lambda x: H @ x, lambda x: H, Q, R, x0, P0, z, list(u), iterations=1)
    assert one["passes"] == 1 and not one["converged"] and one["change"] == []
    assert np.max(np.abs(one["x"] - ref) / sd) > 1e-3


def test_smoother_bad_input():
    c = _linear_case()
    xf, Pf, xp, Pp, Fs = _filter_with_priors(c)
    with pytest.raises(ValueError, match="P_filt"):
        rts_smoother(xf, Pf[:-1], xp, Pp, Fs)
    with pytest.raises(ValueError, match="x_pred"):
        rts_smoother(xf, Pf, xp[:-1], Pp, Fs)
    with pytest.raises(ValueError, match="F"):
        rts_smoother(xf, Pf, xp, Pp, Fs[:, :2])
    bad = xf.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="x_filt"):
        rts_smoother(bad, Pf, xp, Pp, Fs)
    with pytest.raises(ValueError, match="P_pred\\[2\\] is not positive definite"):
        Pz = Pp.copy()
        Pz[2] = 0.0
        rts_smoother(xf, Pf, xp, Pz, Fs)
    with pytest.raises(ValueError, match="at least one sample"):
        rts_smoother(np.zeros((0, 3)), np.zeros((0, 3, 3)), np.zeros((0, 3)), np.zeros((0, 3, 3)),
                     np.zeros((0, 3, 3)))
    F, B, H = c["F"], c["B"], c["H"]
    args = (lambda x, u: F @ x + B @ u, lambda x, u: F, lambda x: H @ x, lambda x: H, c["Q"], c["R"], c["m0"],
            c["P0"], c["z"], list(c["u"]))
    with pytest.raises(ValueError, match="iterations must be a positive integer"):
        iterated_extended_smoother(*args, iterations=0)
    with pytest.raises(ValueError, match="tol"):
        iterated_extended_smoother(*args, tol=-1.0)
    with pytest.raises(ValueError, match="u must hold N - 1"):
        iterated_extended_smoother(*args[:-1], list(c["u"])[:-1])
    with pytest.raises(ValueError, match="at least two samples"):
        iterated_extended_smoother(*args[:-2], c["z"][:1], [])
    with pytest.raises(TypeError, match="f must be callable"):
        iterated_extended_smoother(None, *args[1:])
    with pytest.raises(ValueError, match="Q must"):
        iterated_extended_smoother(*args[:4], -c["Q"], *args[5:])


# ---------------------------------------------------------------------- whiteness
def test_whiteness_test_rejects_at_its_level_and_detects_correlation():
    rejected = [not whiteness_test(np.random.default_rng(s).standard_normal(500)).white for s in range(200)]
    # 5 % level: 10 of 200 expected; a binomial(200, 0.05) stays within [2, 20] with prob. > 0.99
    assert 2 <= sum(rejected) <= 20
    rng = np.random.default_rng(1)
    e = rng.standard_normal(1000)
    ar = np.empty_like(e)
    ar[0] = e[0]
    for k in range(1, e.size):
        ar[k] = 0.5 * ar[k - 1] + e[k]
    res = whiteness_test(ar, lags=10)
    assert not res.white and res.p_value < 1e-6
    assert abs(res.acf[0, 0] - 0.5) < 4 / np.sqrt(e.size)          # rho(1) of an AR(1) is its pole
    assert res.outside > 0.2 and res.dof == 10 and res.lags.tolist() == list(range(1, 11))
    assert np.isclose(res.bound, 1.959964 / np.sqrt(e.size), rtol=1e-6)


def test_whiteness_test_normalises_with_the_innovation_covariance():
    rng = np.random.default_rng(2)
    N = 800
    sig = np.exp(rng.uniform(-3, 3, size=N))               # wildly varying, honestly reported variances
    nu = rng.standard_normal((N, 2))
    Lc = np.array([[1.0, 0.0], [0.8, 0.6]])
    S = sig[:, None, None] * (Lc @ Lc.T)
    y = np.sqrt(sig)[:, None] * (nu @ Lc.T)
    full = whiteness_test(y, S)
    ref = whiteness_test(nu)
    assert np.allclose(full.acf, ref.acf) and np.isclose(full.statistic, ref.statistic)
    assert full.dof == 2 * 20
    diag = whiteness_test(y[:, :1], sig[:, None])
    assert np.allclose(diag.acf, whiteness_test(nu[:, :1]).acf)


def test_whiteness_test_bad_input():
    e = np.random.default_rng(0).standard_normal(100)
    with pytest.raises(ValueError, match="lags"):
        whiteness_test(e, lags=60)
    with pytest.raises(ValueError, match="lags"):
        whiteness_test(e, lags=0)
    with pytest.raises(ValueError, match="confidence"):
        whiteness_test(e, confidence=1.5)
    with pytest.raises(ValueError, match="constant"):
        whiteness_test(np.ones(100))
    with pytest.raises(ValueError, match="at least 4 samples"):
        whiteness_test([1.0, 2.0])
    with pytest.raises(ValueError, match="innovations"):
        whiteness_test(np.r_[e[:-1], np.inf])
    with pytest.raises(ValueError, match="S must have shape"):
        whiteness_test(e, np.ones((99, 1)))
    with pytest.raises(ValueError, match="S must have shape"):
        whiteness_test(e, np.ones((100, 2, 2)))
    with pytest.raises(ValueError, match="positive variances"):
        whiteness_test(e, -np.ones((100, 1)))
    with pytest.raises(ValueError, match="positive definite"):
        whiteness_test(e, np.zeros((100, 1, 1)))


# ---------------------------------------------------------------------- the identifier's diagnostics
BETA = np.array([0.45, 3.9, 0.15])


def _pendulum_record(N=300, dt=0.02, sigma=1e-3, seed=4):
    t = dt * np.arange(N)
    w = 2 * np.pi * 0.3
    q = 0.8 * np.sin(w * t) + 0.3 * np.sin(2 * w * t + 0.5)
    qd = 0.8 * w * np.cos(w * t) + 0.6 * w * np.cos(2 * w * t + 0.5)
    qdd = -0.8 * w**2 * np.sin(w * t) - 1.2 * w**2 * np.sin(2 * w * t + 0.5)
    tau = (np.column_stack([qdd, np.sin(q), qd]) @ BETA)[:, None]
    z = q[:, None] + sigma * np.random.default_rng(seed).standard_normal((N, 1))
    return t, q, qd, tau, z


def _pendulum_identifier(dt=0.02, integrator="rk4", Q_beta=(0.0, 0.0, 0.0), sigma=1e-3, x0=None):
    Yb = lambda q, qd, qdd: np.array([[qdd[0], np.sin(q[0]), qd[0]]])   # noqa: E731
    b0 = BETA * [1.1, 0.9, 1.2]
    w = 2 * np.pi * 0.3                                  # the record's q(0) and qd(0), see below
    x0 = np.r_[0.3 * np.sin(0.5), 0.8 * w + 0.6 * w * np.cos(0.5), b0] if x0 is None else x0
    return AugmentedStateIdentifier(Yb, dt, n=1, p=3, x0=x0, Q=np.r_[0.0, 1e-10, Q_beta], R=[sigma**2],
                                    P0=np.r_[sigma**2, 1e-2, (0.2 * b0) ** 2], integrator=integrator)


def test_run_returns_innovations_their_covariances_and_nis():
    t, q, qd, tau, z = _pendulum_record()
    ident = _pendulum_identifier()
    out = ident.run(t, tau, z, torque="cubic")
    N = t.size
    assert out["innovation"].shape == (N, 1) and out["innovation_cov"].shape == (N, 1, 1)
    assert out["nis"].shape == (N,)
    assert np.allclose(out["nis"], out["innovation"][:, 0] ** 2 / out["innovation_cov"][:, 0, 0])
    # the last update's values are the filter's attributes
    assert np.allclose(out["innovation"][-1], ident.filter.y) and np.isclose(out["nis"][-1], ident.filter.nis)
    # a model that matches the data: innovations white, NIS averaging ~1 (nz = 1)
    from robidlib.estimation import nees_bounds

    lo, hi = nees_bounds(1, N - 50)
    assert lo < out["nis"][50:].mean() < hi
    assert whiteness_test(out["innovation"][50:], out["innovation_cov"][50:]).white


def test_euler_model_error_shows_in_the_innovations():
    t, q, qd, tau, z = _pendulum_record(N=500)
    euler = _pendulum_identifier(integrator="euler").run(t, tau, z)
    res = whiteness_test(euler["innovation"][50:], euler["innovation_cov"][50:])
    assert not res.white


def test_smooth_constant_parameters_and_a_step_change():
    t, q, qd, tau, z = _pendulum_record(N=400)
    out = _pendulum_identifier().smooth(t, tau, z, torque="cubic")
    assert np.allclose(out["params_smooth"], out["params"][-1], rtol=1e-7)   # Q_beta = 0: a constant
    assert np.all(out["std_smooth"] <= out["std"] * (1 + 1e-9))
    assert out["x_pred"].shape == (399, 5) and out["F"].shape == (399, 5, 5) and out["P"].shape == (400, 5, 5)
    # a stiffness that drifts as the random walk the filter assumes (Q_beta on b only): the
    # smoother, which uses the whole record, tracks it better than the filter (5 seeds gave
    # error ratios 0.37-0.65; the bound 0.8 leaves room for other draws)
    rng = np.random.default_rng(0)
    sd = 3e-3 * BETA[1]
    b_t = BETA[1] + np.cumsum(np.r_[0.0, sd * rng.standard_normal(t.size - 1)])
    tau2 = tau + (np.sin(q) * (b_t - BETA[1]))[:, None]
    out2 = _pendulum_identifier(Q_beta=np.r_[0.0, sd**2, 0.0]).smooth(t, tau2, z, torque="cubic")
    err_f = np.sqrt(np.mean((out2["params"][50:, 1] - b_t[50:]) ** 2))
    err_s = np.sqrt(np.mean((out2["params_smooth"][50:, 1] - b_t[50:]) ** 2))
    assert err_s < 0.8 * err_f


def test_smooth_bad_input():
    t, q, qd, tau, z = _pendulum_record(N=20)
    ident = _pendulum_identifier()
    with pytest.raises(ValueError, match="at least two samples"):
        ident.smooth(t[:1], tau[:1], z[:1])
    with pytest.raises(ValueError, match="torque"):
        ident.smooth(t, tau, z, torque="linear")
    with pytest.raises(ValueError, match="z"):
        ident.smooth(t, tau, z[:-1])


# ---------------------------------------------------------------------- finite-difference model
def test_finite_difference_model_gives_the_numerical_jacobian_of_the_step_for_the_5dof_arm():
    from robidlib.models import redundant_5dof

    robot = redundant_5dof(friction=[[40, 0], [0.8, 0], [0.8, 0], [0.5, 0], [20, 0]])
    model = robot_base_model(robot, friction=["viscous"])
    fd = with_finite_differences(model)
    assert fd.n_joints == 5 and fd.n_params == model.n_params and fd.param_names == model.param_names
    assert np.array_equal(fd.params, model.params)
    rng = np.random.default_rng(8)
    q, qd, qdd = rng.uniform(-1, 1, (3, 5))
    Yh, D, dYh_dq, dD_dq, dYh_dqd = fd.affine_terms(q, qd)
    assert np.allclose(Yh + np.tensordot(qdd, D, axes=1), model.regressor(q, qd, qdd), atol=1e-12)
    # derivatives against independent central differences of the regressor with another step
    h = 1e-6
    for i in range(5):
        e = np.eye(5)[i]
        num = (model.regressor(q + h * e, qd, qdd) - model.regressor(q - h * e, qd, qdd)) / (2 * h)
        assert np.allclose(fd.regressor_derivatives(q, qd, qdd)[0][:, :, i], num, atol=1e-6)
        num_v = (model.regressor(q, qd + h * e, qdd) - model.regressor(q, qd - h * e, qdd)) / (2 * h)
        assert np.allclose(fd.regressor_derivatives(q, qd, qdd)[1][:, :, i], num_v, atol=1e-6)
    x = np.r_[q, qd, model.params]
    u = np.array([150.0, 2.0, 10.0, 1.0, 5.0])
    for integrator in ("euler", "rk4"):
        ident = AugmentedStateIdentifier(fd, 0.02, x0=x, Q=np.zeros(x.size), R=np.ones(5), P0=np.eye(x.size),
                                         integrator=integrator)
        assert ident.jacobian == "analytic"
        Fa = ident.analytic_transition_jacobian(x, u)
        Fn = ident.numerical_transition_jacobian(x, u)
        assert np.allclose(Fa, Fn, rtol=1e-5, atol=1e-6)
        ref = AugmentedStateIdentifier(model, 0.02, x0=x, Q=np.zeros(x.size), R=np.ones(5), P0=np.eye(x.size),
                                       integrator=integrator)
        assert np.allclose(ident.transition(x, u), ref.transition(x, u), rtol=1e-12, atol=1e-12)


def test_with_finite_differences_bad_input():
    from robidlib.models import planar_2r

    model = robot_base_model(planar_2r())
    with pytest.raises(TypeError, match="batched regressor"):
        with_finite_differences(lambda q, qd, qdd: None)
    with pytest.raises(ValueError, match="step"):
        with_finite_differences(model, step=0.0)

    class Odd:
        n_joints, n_params = 2.0, 6

        def regressor(self, q, qd, qdd):
            return np.zeros((len(q), 2, 6))

    with pytest.raises(ValueError, match="n_joints must be a positive integer"):
        with_finite_differences(Odd())
    fd = with_finite_differences(model)
    with pytest.raises(ValueError, match="q"):
        fd.affine_terms([0.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="qd"):
        fd.affine_terms([0.0, 0.0], [np.nan, 0.0])
    with pytest.raises(ValueError, match="qdd"):
        fd.regressor_derivatives([0.0, 0.0], [0.0, 0.0], [0.0])
