"""Tests of robidlib.estimation.physical: LMI-constrained (physical_ls) and box-bounded
(bounded_ls) least squares over the standard parameters.

The claims: on rich data whose least-squares base parameters are realisable by a consistent
robot, physical_ls gives the least-squares base parameters (it costs nothing); on poor data
its robot is consistent (every pseudo-inertia J >= 0 to 1e-9 of its norm) while the OLS one
is not, and its residual is within a few percent of OLS; "semi" imposes only m >= 0 and a
PSD inertia about the centre of mass; a box (bounded_ls) keeps its bounds but cannot make
the robot consistent. No assertion on iteration counts or times (portability).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from _required import required

import robidlib as rl
from robidlib.estimation import bounded_ls, ols, physical_ls
from robidlib.models import redundant_5dof, ur5
from robidlib.params import consistency_report, is_physically_consistent, pseudo_inertia
from robidlib.regressor import friction_regressor

required("cvxpy")

MODELS = {"ur5": ur5, "redundant_5dof": redundant_5dof}


def _robot(name):
    base = MODELS[name]()
    return base.with_friction(np.tile([1.0, 2.0], (base.n, 1)))


def _truth(robot):
    return np.r_[robot.params, robot.friction.ravel()]


def _system(robot, q, qd, qdd, noise, rng):
    Y = np.concatenate([rl.regressor(robot, q, qd, qdd), friction_regressor(qd)], axis=-1)
    W, y0 = rl.stack(Y, Y @ _truth(robot))
    return W, y0 + noise * np.std(y0) * rng.normal(size=y0.size)


@pytest.fixture(scope="module", params=sorted(MODELS))
def setup(request):
    robot = _robot(request.param)
    bp = rl.base_parameters(robot, friction=True)
    rng = np.random.default_rng(7)
    # rich: random states over the whole workspace
    W, y = _system(robot, *rl.random_states(robot, 600, rng=1), noise=3e-4, rng=rng)
    # poor: 300 samples within 10 % of the ranges around the middle pose, 2 % noise
    N = 300
    mid = robot.q_limits.mean(axis=1)
    q = mid + 0.1 * rng.uniform(-1, 1, (N, robot.n)) * np.ptp(robot.q_limits, axis=1)
    qd = 0.1 * rng.uniform(-1, 1, (N, robot.n)) * robot.qd_limits
    qdd = 0.1 * rng.uniform(-1, 1, (N, robot.n)) * robot.qdd_limits
    Wp, yp = _system(robot, q, qd, qdd, noise=2e-2, rng=rng)
    return dict(robot=robot, bp=bp, rich=(W, y), poor=(Wp, yp))


def _qr_realisation(bp, beta, truth):
    """A standard set with base parameters beta: the truth moved on the independent columns."""
    pi = truth.copy()
    pi[bp.independent] += beta - bp.beta(truth)
    return pi


def _min_rel_eig(params, n):
    lam = np.linalg.eigvalsh(pseudo_inertia(params[: 10 * n].reshape(n, 10)))
    return lam[:, 0] / np.abs(lam).max(axis=1)


def _nearest_ls(W, y, prior, scale):
    """The least-squares standard solution nearest the prior in the scaled metric (the limit
    of ridge toward the prior as its weight goes to 0)."""
    d, *_ = np.linalg.lstsq(W * scale[None, :], y - W @ prior, rcond=None)
    return prior + scale * d


# ----------------------------------------------------------------------------- rich data
def test_equals_ols_on_rich_data_when_ols_is_consistent(setup):
    robot, bp = setup["robot"], setup["bp"]
    W, y = setup["rich"]
    n = robot.n
    ref = ols(bp.reduce(W), y)
    est = physical_ls(W, y, robot, bp=bp)
    S = est.info["scale"]
    x_ls = _nearest_ls(W, y, _truth(robot), S)
    # the premise: the least-squares solution (nearest the prior) is a consistent robot
    assert is_physically_consistent(x_ls[: 10 * n]) and np.all(x_ls[10 * n:] >= 0)
    assert est.method == "physical_ls" and est.info["status"] == "optimal"
    np.testing.assert_allclose(est.info["beta"], ref.params, rtol=1e-6, atol=1e-7 * np.abs(ref.params).max())
    np.testing.assert_allclose(est.params / S, x_ls / S, rtol=0, atol=1e-6)
    assert est.info["residual_norm"] == pytest.approx(est.info["ols_residual_norm"], rel=1e-9)
    assert est.info["ols_residual_norm"] == pytest.approx(np.linalg.norm(y - bp.reduce(W) @ ref.params), rel=1e-9)
    assert est.info["consistent"]


def test_noise_free_data_and_the_robot_as_prior_give_back_the_robot(setup):
    """The regulariser picks, among the sets the data cannot tell apart, the prior itself."""
    robot, bp = setup["robot"], setup["bp"]
    W, _ = setup["rich"]
    truth = _truth(robot)
    est = physical_ls(W, W @ truth, robot, bp=bp)
    np.testing.assert_allclose(est.params / est.info["scale"], truth / est.info["scale"], rtol=0, atol=1e-6)


def test_regulariser_picks_the_realisation_closest_to_the_prior(setup):
    robot, bp = setup["robot"], setup["bp"]
    W, _ = setup["rich"]
    n = robot.n
    truth = _truth(robot)
    y = W @ truth
    cad = rl.benchmark.perturb_robot(robot, rng=3, mass=0.02, com=0.002, inertia=0.02, angle=0.02)
    prior = np.r_[cad.params, robot.friction.ravel()]
    est = physical_ls(W, y, robot, prior=prior, bp=bp)
    S = est.info["scale"]
    x_ls = _nearest_ls(W, y, prior, S)
    assert is_physically_consistent(x_ls[: 10 * n])  # the premise
    assert np.linalg.norm((x_ls - truth) / S) > 1e-2  # a different standard set than the truth...
    np.testing.assert_allclose(bp.beta(x_ls), bp.beta(truth), rtol=1e-9, atol=1e-12)  # ...same torques
    np.testing.assert_allclose(est.params / S, x_ls / S, rtol=0, atol=1e-6)
    np.testing.assert_allclose(est.info["beta"], bp.beta(truth), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("setup", ["redundant_5dof"], indirect=True)
def test_when_the_nearest_realisation_is_inconsistent_the_fit_moves_by_at_most_reg(setup):
    """A CAD prior whose nearest realisation of the true torques is not a possible robot: the
    result is consistent and, by optimality against the (consistent) truth, its squared
    residual is at most reg ||y||^2 times the truth's mean squared scaled null-space
    deviation from the prior."""
    robot, bp = setup["robot"], setup["bp"]
    assert robot.name == "redundant_5dof"       # the construction below is for the 5-DOF arm
    W, _ = setup["rich"]
    n = robot.n
    truth = _truth(robot)
    y = W @ truth
    cad = rl.benchmark.perturb_robot(robot, rng=3, mass=0.05, com=0.005, inertia=0.05, angle=0.05)
    prior = np.r_[cad.params, robot.friction.ravel()]
    reg = 1e-6
    est = physical_ls(W, y, robot, prior=prior, bp=bp, reg=reg)
    S = est.info["scale"]
    assert not is_physically_consistent(_nearest_ls(W, y, prior, S)[: 10 * n])
    assert est.info["consistent"]
    Q, _ = np.linalg.qr(bp.V2 / S[:, None])
    q_truth = np.sum((Q.T @ ((truth - prior) / S)) ** 2) / Q.shape[1]
    assert est.info["relative_residual"] ** 2 <= reg * q_truth * (1 + 1e-6) + 1e-14
    assert est.info["relative_residual"] > 1e-9  # the fit did move


# ----------------------------------------------------------------------------- poor data
def test_poor_data_gives_a_consistent_robot_close_to_the_ols_fit(setup):
    robot, bp = setup["robot"], setup["bp"]
    W, y = setup["poor"]
    n = robot.n
    ref = ols(bp.reduce(W), y)
    assert not is_physically_consistent(_qr_realisation(bp, ref.params, _truth(robot))[: 10 * n])
    est = physical_ls(W, y, robot, bp=bp)
    assert np.all(_min_rel_eig(est.params, n) >= -1e-9)
    assert np.all(est.info["min_eig_J"] >= -1e-9)
    ratio = est.info["residual_norm"] / est.info["ols_residual_norm"]
    assert 1.0 + 1e-5 < ratio < 1.05  # the constraints are active, and cost little
    assert est.info["residual_norm"] == pytest.approx(np.linalg.norm(y - W @ est.params), rel=1e-12)
    # the result simulates: a positive definite mass matrix along the data
    M = rl.mass_matrix(robot.with_params(est.params[: 10 * n]), np.tile(robot.q_limits.mean(axis=1), (5, 1)))
    assert np.all(np.linalg.eigvalsh(M)[:, 0] > 0)


def test_semi_imposes_positive_mass_and_psd_inertia_only(setup):
    robot, bp = setup["robot"], setup["bp"]
    W, y = setup["poor"]
    n = robot.n
    full = physical_ls(W, y, robot, bp=bp, reg=0.0)
    semi = physical_ls(W, y, robot, bp=bp, reg=0.0, consistency="semi")
    assert semi.info["consistency"] == "semi"
    rep = semi.info["report"]
    P = semi.params[: 10 * n].reshape(n, 10)
    assert np.all(P[:, 0] >= -1e-9 * P[:, 0].max())
    assert np.all(rep.min_moment >= -1e-9 * np.abs(P[:, 4:7]).max())
    # semi is a relaxation of full: it fits at least as well (to the solver's tolerance)
    assert semi.info["residual_norm"] <= full.info["residual_norm"] * (1 + 1e-6)
    # and here it uses the freedom: some link breaks the triangle inequality
    assert {cond for _, cond, _ in rep.failures} == {"triangle inequality", "pseudo-inertia"}
    assert not semi.info["consistent"] and full.info["consistent"]


def test_margin_min_mass_and_named_bounds(setup):
    robot, bp = setup["robot"], setup["bp"]
    W, y = setup["poor"]
    n = robot.n
    est = physical_ls(W, y, robot, bp=bp, margin=1e-3, min_mass=0.5, bounds={f"m{n}": (1.0, 1.2)})
    m = est.params[0: 10 * n: 10]
    assert np.all(m >= 0.5 - 1e-7) and 1.0 - 1e-7 <= m[-1] <= 1.2 + 1e-7
    assert is_physically_consistent(est.params[: 10 * n], tol=1e-9)
    assert np.all(est.info["min_eig_J"] > 0)
    assert est.info["margin"] == 1e-3


def test_friction_is_non_negative_unless_the_bounds_free_it(setup):
    robot, bp = setup["robot"], setup["bp"]
    q, qd, qdd = rl.random_states(robot, 400, rng=5)
    Y = np.concatenate([rl.regressor(robot, q, qd, qdd), friction_regressor(qd)], axis=-1)
    truth = _truth(robot)
    truth[10 * robot.n + 1] = -1.5  # a "negative Coulomb friction" (e.g. a torque offset)
    W, y = rl.stack(Y, Y @ truth)
    est = physical_ls(W, y, robot, bp=bp)
    assert est.params[10 * robot.n + 1] == pytest.approx(0.0, abs=1e-6)
    assert est.info["residual_norm"] > 10 * est.info["ols_residual_norm"]
    free = physical_ls(W, y, robot, bp=bp, bounds={"fc1": (-np.inf, np.inf)})
    assert free.params[10 * robot.n + 1] == pytest.approx(-1.5, rel=1e-6)


def test_extra_columns_rotor_inertias():
    robot = _robot("redundant_5dof")
    n = robot.n
    q, qd, qdd = rl.random_states(robot, 400, rng=2)
    Y = np.concatenate([rl.regressor(robot, q, qd, qdd), friction_regressor(qd), qdd[:, :, None] * np.eye(n)], -1)
    rotor = np.full(n, 0.05)
    W, y = rl.stack(Y, Y @ np.r_[_truth(robot), rotor])
    names = tuple(f"Ia{j + 1}" for j in range(n))
    bounds = {nm: (0.0, np.inf) for nm in names}
    est = physical_ls(W, y, robot, extra_names=names, bounds=bounds)
    assert est.names[-n:] == names and est.params.shape == (12 * n + n,)
    assert np.all(est.params[-n:] >= -1e-9)
    assert est.info["residual_norm"] <= 1e-6 * np.linalg.norm(y)
    bp = est.info["base"]  # from W itself: the rotor inertias regroup with the link inertias
    assert bp.n_params == 13 * n and est.info["beta"].shape == (bp.rank,)
    np.testing.assert_allclose(W @ est.params, y, atol=1e-6 * np.abs(y).max())


def test_reg_space_all_pulls_toward_the_prior(setup):
    robot, bp = setup["robot"], setup["bp"]
    W, y = setup["poor"]
    prior = _truth(robot)
    null = physical_ls(W, y, robot, bp=bp, reg=1e-4)
    full = physical_ls(W, y, robot, bp=bp, reg=1e-4, reg_space="all")
    S = null.info["scale"]
    assert np.linalg.norm((full.params - prior) / S) < np.linalg.norm((null.params - prior) / S)
    assert full.info["residual_norm"] >= null.info["residual_norm"] * (1 - 1e-6)
    assert full.info["reg_space"] == "all"


def test_estimate_fields(setup):
    robot, bp = setup["robot"], setup["bp"]
    W, y = setup["rich"]
    est = physical_ls(W, y, robot, bp=bp)
    p = 12 * robot.n
    assert est.params.shape == (p,) and est.names == robot.param_names + robot.friction_names
    assert est.cov.shape == (p, p) and np.all(np.isnan(est.cov)) and np.all(np.isnan(est.rel_std))
    assert est.rank == bp.rank and est.cond == np.inf
    r = W.shape[0]
    assert est.residual_std == pytest.approx(est.info["residual_norm"] / np.sqrt(r - est.rank))
    for key in ("status", "iterations", "solve_time", "setup_time", "time", "objective", "solver",
                "beta", "residual", "relative_residual", "report", "consistent", "scale", "prior"):
        assert key in est.info
    assert est.info["solver"] == "CLARABEL" and est.info["residual"].shape == (r,)
    assert "physical_ls" in repr(est)


# ----------------------------------------------------------------------------- failures
def test_infeasible_bounds_name_the_solver_status(setup):
    robot, bp = setup["robot"], setup["bp"]
    W, y = setup["rich"]
    # J >= 0 implies Ixx >= 0 (the inertia about the origin is PSD): no such link exists
    with pytest.raises(ValueError, match=r"no parameter vector: solver CLARABEL status 'infeasible"):
        physical_ls(W, y, robot, bp=bp, bounds={"Ixx2": (-np.inf, -1.0)})


def test_solver_stopped_early_raises_not_a_partial_result(setup):
    robot, bp = setup["robot"], setup["bp"]
    W, y = setup["poor"]
    with pytest.raises(RuntimeError, match="status"):
        physical_ls(W, y, robot, bp=bp, solver_options={"max_iter": 2})


def test_missing_cvxpy_gives_an_import_error_naming_the_packages(setup, monkeypatch):
    robot, bp = setup["robot"], setup["bp"]
    W, y = setup["rich"]
    monkeypatch.setitem(sys.modules, "cvxpy", None)
    with pytest.raises(ImportError, match=r"cvxpy-base.*clarabel"):
        physical_ls(W, y, robot, bp=bp)
    # the box-bounded alternative needs scipy only
    assert bounded_ls(W, y, robot, bp=bp).info["status"] > 0


def test_robidlib_does_not_import_cvxpy():
    code = "import sys, robidlib, robidlib.estimation; print('cvxpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ----------------------------------------------------------------------------- bounded QP
def test_bounded_ls_keeps_its_box_but_not_consistency(setup):
    robot, bp = setup["robot"], setup["bp"]
    W, y = setup["poor"]
    n = robot.n
    est = bounded_ls(W, y, robot, bp=bp, rel_bound=0.5)
    lo, hi = est.info["lower"], est.info["upper"]
    assert np.all(est.params >= lo - 1e-12) and np.all(est.params <= hi + 1e-12)
    P = est.params[: 10 * n].reshape(n, 10)
    assert np.all(P[:, 0] >= 0) and np.all(P[:, 4:7] >= 0) and np.all(est.params[10 * n:] >= 0)
    S = est.info["scale"][: 10 * n]
    assert np.all(np.abs(est.params[: 10 * n] - _truth(robot)[: 10 * n]) <= 0.5 * S * (1 + 1e-9))
    assert len(est.info["active"]) > 0 and est.method == "bounded_ls"
    # on these poor data the box leaves some link inconsistent, the LMI does not
    assert not est.info["consistent"]
    assert physical_ls(W, y, robot, bp=bp).info["consistent"]


def test_bounded_ls_equals_ols_when_no_bound_is_active(setup):
    robot, bp = setup["robot"], setup["bp"]
    W, y = setup["rich"]
    ref = ols(bp.reduce(W), y)
    est = bounded_ls(W, y, robot, bp=bp)
    assert est.info["active"] == ()
    np.testing.assert_allclose(est.info["beta"], ref.params, rtol=1e-8, atol=1e-9 * np.abs(ref.params).max())


# ----------------------------------------------------------------------------- bad input
@pytest.fixture(scope="module")
def small():
    robot = _robot("redundant_5dof")
    W, y = _system(robot, *rl.random_states(robot, 60, rng=0), noise=1e-3, rng=np.random.default_rng(0))
    return robot, W, y


BAD = [
    (lambda r, W, y: dict(W=W[0]), ValueError, "W must have 2 dimension"),
    (lambda r, W, y: dict(y=y[:-1]), ValueError, "W has .* rows but y has"),
    (lambda r, W, y: dict(W=np.where(np.arange(W.size).reshape(W.shape) == 3, np.nan, W)), ValueError, "W must be finite"),
    (lambda r, W, y: dict(y=np.r_[np.inf, y[1:]]), ValueError, "y must be finite"),
    (lambda r, W, y: dict(W=W + 0j), TypeError, "W must be real"),
    (lambda r, W, y: dict(y=y * (1 + 1j)), TypeError, "y must be real"),
    (lambda r, W, y: dict(W=W[:, :50]), ValueError, "W must have 60 columns"),
    (lambda r, W, y: dict(friction=False), ValueError, r"W must have 50 columns .* got 60"),
    (lambda r, W, y: dict(W=W[:0], y=y[:0]), ValueError, "at least one row"),
    (lambda r, W, y: dict(y=0 * y), ValueError, "y must not be all zero"),
    (lambda r, W, y: dict(W=0 * W), ValueError, "W has rank 0"),
    (lambda r, W, y: dict(robot="ur5"), TypeError, "robot must be a SerialRobot"),
    (lambda r, W, y: dict(reg_space="base"), ValueError, "unknown reg_space 'base'"),
    (lambda r, W, y: dict(reg=-1e-3), ValueError, "reg must be >= 0"),
    (lambda r, W, y: dict(reg=np.nan), ValueError, "reg must be finite"),
    (lambda r, W, y: dict(reg="small"), TypeError, "reg must be a real scalar"),
    (lambda r, W, y: dict(min_mass=-1.0), ValueError, "min_mass must be >= 0"),
    (lambda r, W, y: dict(min_mass=[1.0, 2.0]), ValueError, r"min_mass must be a scalar or have shape \(5,\)"),
    (lambda r, W, y: dict(bounds={"m9": (0, 1)}), ValueError, "unknown parameter 'm9'"),
    (lambda r, W, y: dict(bounds={"m1": (2.0, 1.0)}), ValueError, "infeasible bounds: m1"),
    (lambda r, W, y: dict(bounds={"m1": (1.0,)}), ValueError, r"bounds\['m1'\] must have shape \(2,\)"),
    (lambda r, W, y: dict(bounds={"m1": (np.nan, 1.0)}), ValueError, "must not be NaN"),
    (lambda r, W, y: dict(bounds=[("m1", 0, 1)]), TypeError, "bounds must be a mapping"),
    (lambda r, W, y: dict(min_mass=3.0, bounds={"m5": (0.0, 1.0)}), ValueError, "infeasible bounds: m5"),
    (lambda r, W, y: dict(extra_names="Ia1"), TypeError, "extra_names must be a sequence of str"),
    (lambda r, W, y: dict(extra_names=("m1",), W=np.column_stack([W, W[:, 0]])), ValueError, "extra_names must be new"),
    (lambda r, W, y: dict(prior=np.ones(5)), ValueError, r"prior must have shape \(60,\)"),
    (lambda r, W, y: dict(prior=np.full(60, np.nan)), ValueError, "prior must be finite"),
    (lambda r, W, y: dict(friction="yes"), TypeError, "friction must be True or False"),
    (lambda r, W, y: dict(bp=rl.base_parameters(r)), ValueError, "bp must be a BaseParameters of the 60 columns"),
]
# arguments of physical_ls that bounded_ls does not have
BAD_PHYSICAL_ONLY = [
    (lambda r, W, y: dict(consistency="strict"), ValueError, "unknown consistency 'strict'"),
    (lambda r, W, y: dict(margin=-1.0), ValueError, "margin must be >= 0"),
]


@pytest.mark.parametrize(
    "fn, change, exc, match",
    [(physical_ls, *case) for case in BAD + BAD_PHYSICAL_ONLY] + [(bounded_ls, *case) for case in BAD],
)
def test_bad_input(small, fn, change, exc, match):
    robot, W, y = small
    kw = dict(W=W, y=y, robot=robot)
    kw.update(change(robot, W, y))
    with pytest.raises(exc, match=match):
        fn(kw.pop("W"), kw.pop("y"), kw.pop("robot"), **kw)


@pytest.mark.parametrize(
    "kw, exc, match",
    [
        (dict(solver="NOSUCH"), ValueError, "unknown or uninstalled solver 'NOSUCH'"),
        (dict(solver=3), TypeError, "solver must be a cvxpy solver name"),
        (dict(solver_options=[("max_iter", 3)]), TypeError, "solver_options must be a mapping"),
    ],
)
def test_bad_solver_arguments(small, kw, exc, match):
    robot, W, y = small
    with pytest.raises(exc, match=match):
        physical_ls(W, y, robot, **kw)


def test_bounded_ls_bad_rel_bound(small):
    robot, W, y = small
    with pytest.raises(ValueError, match="rel_bound must be > 0"):
        bounded_ls(W, y, robot, rel_bound=-0.1)
    with pytest.raises(ValueError, match="infeasible bounds"):
        bounded_ls(W, y, robot, rel_bound=0.1, min_mass=100.0)


def test_rank_deficient_and_few_rows_still_solve(small):
    """Standard regressors are rank deficient; fewer rows than columns is allowed too."""
    robot, W, y = small
    est = physical_ls(W[:40], y[:40], robot)
    assert est.rank <= 40 and est.info["status"] == "optimal" and est.info["consistent"]


def test_docstring_examples_run():
    import doctest

    import robidlib.estimation.physical as module

    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


# ----------------------------------------------------------------------------- base -> standard
from robidlib.estimation import is_feasible_base, standard_from_base  # noqa: E402


def _nearest_realisation(bp, beta, prior, scale):
    """The standard set with base parameters beta nearest the prior in the scaled metric."""
    Bm = np.stack([bp.beta(e) for e in np.eye(bp.n_params)], axis=1)
    d, *_ = np.linalg.lstsq(Bm * scale[None, :], beta - Bm @ prior, rcond=None)
    return prior + scale * d


def test_standard_from_base_is_the_nearest_realisation_when_that_is_consistent(setup):
    robot, bp = setup["robot"], setup["bp"]
    n = robot.n
    truth = _truth(robot)
    cad = rl.benchmark.perturb_robot(robot, rng=3, mass=0.02, com=0.002, inertia=0.02, angle=0.02)
    prior = np.r_[cad.params, robot.friction.ravel()]
    beta = bp.beta(truth)
    est = standard_from_base(beta, bp, robot, prior=prior)
    S = est.info["scale"]
    x_near = _nearest_realisation(bp, beta, prior, S)
    assert is_physically_consistent(x_near[: 10 * n])  # the premise: the constraints are inactive
    assert est.method == "standard_from_base" and est.info["status"] == "optimal" and est.info["consistent"]
    # equality to the solver's tolerance (1e-8), parameters to its square root
    np.testing.assert_allclose(est.info["beta"], beta, rtol=1e-7, atol=1e-9 * np.abs(beta).max())
    assert est.info["beta_error"] < 1e-7
    np.testing.assert_allclose(est.params / S, x_near / S, rtol=0, atol=1e-4)
    # the robot's own prior gives the robot back
    own = standard_from_base(beta, bp, robot)
    np.testing.assert_allclose(own.params / S, truth / S, rtol=0, atol=1e-4)
    assert own.info["distance"] < 1e-4


def test_standard_from_base_agrees_with_physical_ls_and_repairs_ols(setup):
    """physical_ls's params are the realisation of its own base parameters nearest the prior;
    the OLS base parameters of poor data have no consistent realisation at all."""
    robot, bp = setup["robot"], setup["bp"]
    W, y = setup["poor"]
    est = physical_ls(W, y, robot, bp=bp)
    again = standard_from_base(est.info["beta"], bp, robot)
    S = est.info["scale"]
    np.testing.assert_allclose(again.params / S, est.params / S, rtol=0, atol=1e-3)
    assert again.info["consistent"]
    beta_ols = ols(bp.reduce(W), y).params
    assert not is_feasible_base(beta_ols, bp, robot)
    with pytest.raises(ValueError, match="beta is not physically feasible.*status 'infeasible"):
        standard_from_base(beta_ols, bp, robot)


def test_semi_feasibility_certifies_less_than_full(setup):
    """With reg=0, if the semi LMI fits strictly better, its base parameters are semi- but not
    fully feasible (otherwise the full problem could reach the same residual)."""
    robot, bp = setup["robot"], setup["bp"]
    W, y = setup["poor"]
    full = physical_ls(W, y, robot, bp=bp, reg=0.0)
    # a margin keeps the semi result strictly inside its cone (not on the boundary, where
    # feasibility is a question of round-off)
    semi = physical_ls(W, y, robot, bp=bp, reg=0.0, consistency="semi", margin=1e-4)
    # the premise: on these data the semi LMI fits strictly better (the triangle inequalities
    # of the full LMI are active); were it not, the test would prove nothing
    assert semi.info["residual_norm"] < full.info["residual_norm"] * (1 - 1e-6)
    beta = semi.info["beta"]
    assert is_feasible_base(beta, bp, robot, consistency="semi")
    assert not is_feasible_base(beta, bp, robot)
    inside = physical_ls(W, y, robot, bp=bp, reg=0.0, margin=1e-4)  # strictly inside the full cone
    assert is_feasible_base(inside.info["beta"], bp, robot)


def test_standard_from_base_bounds_margin_and_friction(setup):
    robot, bp = setup["robot"], setup["bp"]
    n = robot.n
    truth = _truth(robot)
    beta = bp.beta(truth)
    m_last = truth[10 * (n - 1)]
    est = standard_from_base(beta, bp, robot, margin=1e-3, min_mass=0.05,
                             bounds={f"m{n}": (m_last * 0.9, m_last * 1.1)})
    m = est.params[0: 10 * n: 10]
    assert np.all(m >= 0.05 - 1e-7) and m_last * 0.9 - 1e-7 <= m[-1] <= m_last * 1.1 + 1e-7
    assert np.all(est.info["min_eig_J"] > 0) and est.info["report"].consistent
    # a negative Coulomb coefficient is not a friction: infeasible unless the bound is freed
    bad = truth.copy()
    bad[10 * n + 1] = -0.5
    assert not is_feasible_base(bp.beta(bad), bp, robot)
    assert is_feasible_base(bp.beta(bad), bp, robot, bounds={"fc1": (-np.inf, np.inf)})
    # a friction coefficient is a base parameter of its own: a bound that excludes it is infeasible
    with pytest.raises(ValueError, match="not physically feasible"):
        standard_from_base(beta, bp, robot, bounds={"fv1": (2 * truth[10 * n], np.inf)})


def test_standard_from_base_without_friction_columns():
    robot = MODELS["redundant_5dof"]()
    bp = rl.base_parameters(robot, rng=0)
    est = standard_from_base(bp.beta(robot.params), bp, robot)
    assert est.params.shape == (50,) and est.names == robot.param_names and est.info["consistent"]


@pytest.fixture(scope="module")
def base_case():
    robot = _robot("redundant_5dof")
    bp = rl.base_parameters(robot, friction=True, rng=0)
    return robot, bp, bp.beta(_truth(robot))


BAD_BASE = [
    (lambda r, bp, b: dict(beta=b[:-1]), ValueError, r"beta must have shape \(30,\)"),
    (lambda r, bp, b: dict(beta=np.r_[np.nan, b[1:]]), ValueError, "beta must be finite"),
    (lambda r, bp, b: dict(beta=b + 0j), TypeError, "beta must be real"),
    (lambda r, bp, b: dict(bp="qr"), TypeError, "bp must be a BaseParameters"),
    (lambda r, bp, b: dict(robot="ur5"), TypeError, "robot must be a SerialRobot"),
    (lambda r, bp, b: dict(robot=ur5()), ValueError, "bp must be computed for this robot"),
    (lambda r, bp, b: dict(consistency="strict"), ValueError, "unknown consistency 'strict'"),
    (lambda r, bp, b: dict(margin=-1.0), ValueError, "margin must be >= 0"),
    (lambda r, bp, b: dict(min_mass=-1.0), ValueError, "min_mass must be >= 0"),
    (lambda r, bp, b: dict(bounds={"m9": (0, 1)}), ValueError, "unknown parameter 'm9'"),
    (lambda r, bp, b: dict(bounds={"m1": (2.0, 1.0)}), ValueError, "infeasible bounds: m1"),
    (lambda r, bp, b: dict(bounds=[("m1", 0, 1)]), TypeError, "bounds must be a mapping"),
    (lambda r, bp, b: dict(solver="NOSUCH"), ValueError, "unknown or uninstalled solver"),
    (lambda r, bp, b: dict(solver_options=3), TypeError, "solver_options must be a mapping"),
]
# the prior is an argument of standard_from_base only
BAD_BASE_PRIOR = [
    (lambda r, bp, b: dict(prior=np.ones(3)), ValueError, r"prior must have shape \(60,\)"),
    (lambda r, bp, b: dict(prior=np.full(60, np.inf)), ValueError, "prior must be finite"),
]


@pytest.mark.parametrize(
    "fn, change, exc, match",
    [(standard_from_base, *case) for case in BAD_BASE + BAD_BASE_PRIOR]
    + [(is_feasible_base, *case) for case in BAD_BASE],
)
def test_standard_from_base_bad_input(base_case, fn, change, exc, match):
    robot, bp, beta = base_case
    kw = dict(beta=beta, bp=bp, robot=robot)
    kw.update(change(robot, bp, beta))
    with pytest.raises(exc, match=match):
        fn(kw.pop("beta"), kw.pop("bp"), kw.pop("robot"), **kw)


# ----------------------------------------------------------------------------- stored excitation
def test_stored_rich_excitation_of_the_chapter_is_reproducible():
    """The rich excitation of chapter 5 (package data): re-running its recipe reaches a
    condition number at least as good (SLSQP may stop elsewhere on another BLAS: allow 10 %),
    and the stored trajectory keeps the joint limits."""
    from robidlib.trajectories import (excitation_cond, limit_margins, load_excitation,
                                       optimize_excitation, random_fourier)

    ft, meta = load_excitation("redundant_5dof_friction")
    rec = meta["recipe"]
    robot = redundant_5dof(friction=rec["friction"])
    bp = rl.base_parameters(robot, friction=True, rng=0)
    t = np.linspace(0.0, ft.period, meta["n_eval"], endpoint=False)
    stored = excitation_cond(robot, ft.evaluate(t), base=bp, friction=True)
    assert stored == pytest.approx(meta["cond"], rel=1e-6)
    lim = dict(q_min=robot.q_limits[:, 0], q_max=robot.q_limits[:, 1], qd_max=robot.qd_limits,
               qdd_max=robot.qdd_limits)
    assert np.all(limit_margins(ft.evaluate(t), **lim) > 0)
    ini, opt = rec["initial"], rec["optimize"]
    guess = random_fourier(robot, 2 * np.pi * ini["frequency_hz"], ini["n_harmonics"], rng=ini["rng"],
                           fill=ini["fill"])
    res = optimize_excitation(robot, guess, base=bp, friction=opt["friction"], maxiter=opt["maxiter"],
                              rng=opt["rng"])
    assert res.cond <= 1.1 * meta["cond"]
    assert res.cond < 0.5 * res.cond_initial


def test_standard_from_base_stopped_early_raises(base_case):
    robot, bp, beta = base_case
    with pytest.raises(RuntimeError, match="status"):
        standard_from_base(beta * 1.1, bp, robot, solver_options={"max_iter": 2})
