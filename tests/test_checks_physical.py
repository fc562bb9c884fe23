"""Chapter 5's exercise checks: right answers pass; wrong ones and untouched stubs print ✘."""
import numpy as np
import pytest
from _required import required

import robidlib as rl
from robidlib.checks import physical as checks
from robidlib.estimation import ols, physical_ls
from robidlib.models import planar_2r, redundant_5dof
from robidlib.params import link_params, pseudo_inertia
from robidlib.regressor import friction_regressor

required("cvxpy")

CROSS, TICK = "\u2718", "\u2714"


def _out(capsys):
    return capsys.readouterr().out


# ------------------------------------------------------------------------------- exercise 1
def _inertia_block(pi):
    return np.array([[pi[4], pi[7], pi[8]], [pi[7], pi[5], pi[9]], [pi[8], pi[9], pi[6]]])


def my_J(pi):
    I = _inertia_block(pi)
    J = np.zeros((4, 4))
    J[:3, :3] = 0.5 * np.trace(I) * np.eye(3) - I
    J[:3, 3] = J[3, :3] = pi[1:4]
    J[3, 3] = pi[0]
    return J


def test_pseudo_inertia_right_answers(capsys):
    assert checks.check_pseudo_inertia(my_J)
    assert checks.check_pseudo_inertia(pseudo_inertia)
    assert checks.check_pseudo_inertia(lambda pi: my_J(pi).astype(np.float32))
    assert checks.check_pseudo_inertia(lambda pi: my_J(pi).tolist())
    assert _out(capsys).count(TICK) == 4


def _with_inertia(pi):
    J = my_J(pi)
    J[:3, :3] = _inertia_block(pi)
    return J


def _raises(pi):
    raise KeyError("oops")


def _not_written(pi):
    raise NotImplementedError


@pytest.mark.parametrize("func, message", [
    (lambda pi: np.eye(4), "wrong J for a point mass"),
    (_with_inertia, "not the inertia I itself"),
    (lambda pi: -my_J(pi) + np.diag([0, 0, 0, 2 * pi[0]]) + 0 * pi[0], "wrong J"),
    (lambda pi: my_J(pi)[:3], "shape (4, 4)"),
    (lambda pi: None, "returned None"),
    (lambda pi: my_J(pi) * np.nan, "NaN"),
    (lambda pi: my_J(pi) + 0j, "complex"),
    (lambda pi: ..., "template"),
    (_raises, "raised KeyError"),
    (_not_written, "not written yet"),
    (..., "not answered yet"),
    ("J", "expected a function"),
])
def test_pseudo_inertia_wrong_answers(capsys, func, message):
    assert checks.check_pseudo_inertia(func) == False
    out = _out(capsys)
    assert out.startswith(CROSS) and message in out, out


def test_pseudo_inertia_sign_hint(capsys):
    def flipped(pi):
        J = my_J(pi)
        J[:3, :3] *= -1
        return J

    assert not checks.check_pseudo_inertia(flipped)
    assert "wrong sign" in _out(capsys)


# ------------------------------------------------------------------------------- exercise 2
GOOD = link_params(1.0, [0.1, 0.0, 0.0], [0.02, 0.03, 0.04, 0.0, 0.0, 0.0])
NEG_MASS = np.r_[-1.0, GOOD[1:]]
ROD = link_params(1.0, [0.0, 0.0, 0.2], [0.0, 0.03, 0.03, 0.0, 0.0, 0.0], about="com")  # PD fails only
FLAT = link_params(1.0, [0.1, 0.0, 0.0], [0.01, 0.01, 0.05, 0.0, 0.0, 0.0])  # triangle fails only
BOTH = link_params(1.0, [0.0, 0.0, 0.0], [-0.01, 0.03, 0.04, 0.0, 0.0, 0.0], about="com")
PI = np.r_[GOOD, NEG_MASS, ROD, FLAT, BOTH]
RIGHT = {2: "mass", 3: "positive definite", 4: ["triangle inequality"],
         5: ("positive definite", "triangle inequality")}


def test_broken_conditions_right_answers(capsys):
    assert checks.check_broken_conditions(PI, RIGHT)
    assert checks.check_broken_conditions(PI, {**RIGHT, 5: {"Triangle inequality ", "positive definite"}})
    assert checks.check_broken_conditions(PI, {np.int64(k): v for k, v in RIGHT.items()})
    assert checks.check_broken_conditions(np.r_[GOOD, GOOD], {})
    out = _out(capsys)
    assert out.count(TICK) == 4 and "link 2: mass" in out and "every link is consistent" in out


@pytest.mark.parametrize("answer, message", [
    ({**RIGHT, 1: "mass"}, "link 1 is consistent"),
    ({k: v for k, v in RIGHT.items() if k != 3}, "link 3 fails but is missing"),
    ({**RIGHT, 5: "triangle inequality"}, "it also breaks positive definite"),
    ({**RIGHT, 4: ["triangle inequality", "mass"]}, "it does not break mass"),
    ({**RIGHT, 2: ["mass", "positive definite"]}, "name only 'mass'"),
    ({**RIGHT, 2: "negative mass"}, "unknown condition 'negative mass'"),
    ({**RIGHT, 2: 3}, "as a string or a list"),
    ({**RIGHT, 0: "mass"}, "link numbers are integers from 1 to 5"),
    ({**RIGHT, "2": "mass"}, "link numbers are integers"),
    ({**RIGHT, True: "mass"}, "link numbers are integers"),
    ([(2, "mass")], "must be a dict"),
    (None, "is None"),
    (..., "not answered yet"),
    ({2: ...}, "not answered yet"),
])
def test_broken_conditions_wrong_answers(capsys, answer, message):
    assert checks.check_broken_conditions(PI, answer) == False
    out = _out(capsys)
    assert out.startswith(CROSS) and message in out, out


def test_broken_conditions_misuse_raises():
    with pytest.raises(ValueError, match="pi"):
        checks.check_broken_conditions(np.ones(7), {})


# ------------------------------------------------------------------------------- exercise 3
@pytest.fixture(scope="module")
def planar():
    robot = planar_2r(friction=[[0.2, 0.1], [0.1, 0.05]])
    rng = np.random.default_rng(3)
    q, qd, qdd = rl.random_states(robot, 200, rng=rng)
    q, qd, qdd = 0.05 * q + 0.3, 0.05 * qd, 0.05 * qdd  # a timid experiment
    Y = np.concatenate([rl.regressor(robot, q, qd, qdd), friction_regressor(qd)], axis=-1)
    W, y0 = rl.stack(Y, Y @ np.r_[robot.params, robot.friction.ravel()])
    return robot, W, y0 + 0.05 * np.std(y0) * rng.standard_normal(y0.size)


def test_mass_bound_right_answer(capsys, planar):
    robot, W, y = planar
    ref = physical_ls(W, y, robot, bounds={"m2": (0.9, 1.1)})
    assert checks.check_mass_bound(W, y, robot, ref.params, link=2, bounds=(0.9, 1.1))
    assert checks.check_mass_bound(W, y, robot, ref.params.astype(np.float32).tolist(), 2, (0.9, 1.1))
    assert _out(capsys).count(TICK) == 2


def test_mass_bound_wrong_answers(capsys, planar):
    robot, W, y = planar
    bp = rl.base_parameters(robot, friction=True)
    beta = ols(bp.reduce(W), y).params
    free = physical_ls(W, y, robot)
    truth = np.r_[robot.params, robot.friction.ravel()]
    qr = truth.copy()
    qr[bp.independent] += beta - bp.beta(truth)          # an OLS robot: not consistent here
    neg = free.params.copy()
    neg[-1] = -0.5
    far = physical_ls(W, y, robot, bounds={"m2": (0.5, 0.6)}).params   # a consistent robot, other bound
    cases = [
        (qr, "not positive semi-definite"),
        (neg, "friction coefficient is negative"),
        (far, "outside your bounds"),
        (truth * np.r_[np.ones(10), 1.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, np.ones(4)],
         "is larger than the best consistent fit"),
        (truth[:5], "shape (24,)"),
        (None, "None"),
        (..., "not answered yet"),
    ]
    for params, message in cases:
        assert checks.check_mass_bound(W, y, robot, params, link=2, bounds=(0.9, 1.1)) == False
        out = _out(capsys)
        assert out.startswith(CROSS) and message in out, (message, out)


def test_mass_bound_misuse_raises(planar):
    robot, W, y = planar
    x = np.zeros(W.shape[1])
    with pytest.raises(TypeError, match="robot must be a SerialRobot"):
        checks.check_mass_bound(W, y, "arm", x, 2, (0.9, 1.1))
    with pytest.raises(ValueError, match="link must be an integer from 1 to 2"):
        checks.check_mass_bound(W, y, robot, x, 3, (0.9, 1.1))
    with pytest.raises(ValueError, match="lower <= upper"):
        checks.check_mass_bound(W, y, robot, x, 2, (1.1, 0.9))
    with pytest.raises(ValueError, match="W must have the 24 columns"):
        checks.check_mass_bound(W[:, :20], y, robot, x[:20], 2, (0.9, 1.1))


# ------------------------------------------------------------------------------- exercise 4
@pytest.fixture(scope="module")
def poor_arm():
    cad = redundant_5dof(friction=[[40.0, 15.0], [0.8, 1.0], [0.8, 1.0], [0.5, 0.6], [20.0, 5.0]])
    real = rl.benchmark.perturb_robot(cad, rng=11)
    bp = rl.base_parameters(cad, friction=True, rng=0)
    truth = np.r_[real.params, real.friction.ravel()]
    prior = np.r_[cad.params, cad.friction.ravel()]
    draws = np.array([bp.beta(np.r_[rl.benchmark.perturb_robot(cad, rng=k).params, cad.friction.ravel()])
                      for k in range(100, 160)])
    sd = np.maximum(draws.std(axis=0, ddof=1), 0.05 * np.abs(bp.beta(prior)))  # friction: 5 %
    rng = np.random.default_rng(5)
    mid = cad.q_limits.mean(axis=1)
    problems = []
    for _ in range(2):
        N = 200
        q = mid + 0.05 * rng.uniform(-1, 1, (N, 5)) * np.ptp(cad.q_limits, axis=1)
        qd = 0.1 * rng.uniform(-1, 1, (N, 5)) * cad.qd_limits
        qdd = 0.1 * rng.uniform(-1, 1, (N, 5)) * cad.qdd_limits
        Y = np.concatenate([rl.regressor(real, q, qd, qdd), friction_regressor(qd)], axis=-1)
        tau = Y @ truth
        s = 0.02 * np.sqrt(np.mean(tau**2, axis=0))
        problems.append(rl.stack(Y / s[:, None], (tau + s * rng.standard_normal(tau.shape)) / s))
    return cad, bp, problems, bp.beta(truth), bp.beta(prior), sd, prior


def test_prior_and_lmi(capsys, poor_arm):
    cad, bp, problems, bt, b0, sd, prior = poor_arm
    Bm = np.stack([bp.beta(e) for e in np.eye(bp.n_params)], axis=1)

    def map_lmi(W, y):  # the prior as extra rows of the least-squares problem, then the LMIs
        return physical_ls(np.vstack([W, Bm / sd[:, None]]), np.r_[y, b0 / sd], cad, prior=prior).params

    def lmi_only(W, y):
        return physical_ls(W, y, cad, prior=prior).params

    assert checks.check_prior_and_lmi(map_lmi, problems, bp, cad, bt, b0, sd)
    assert TICK in _out(capsys)
    assert not checks.check_prior_and_lmi(lmi_only, problems, bp, cad, bt, b0, sd)
    assert "use the prior's information too" in _out(capsys)
    # an inconsistent answer: the OLS base parameters put on the independent columns
    def ols_robot(W, y):
        x = prior.copy()
        x[bp.independent] += ols(bp.reduce(W), y).params - bp.beta(prior)
        return x

    assert not checks.check_prior_and_lmi(ols_robot, problems, bp, cad, bt, b0, sd)
    assert "keep the LMIs" in _out(capsys)
    for func, message in ((lambda W, y: None, "returned None"), (lambda W, y: np.ones(3), "shape (60,)"),
                          (..., "not answered yet"), (lambda W, y: _not_written(W), "not written yet")):
        assert not checks.check_prior_and_lmi(func, problems, bp, cad, bt, b0, sd)
        out = _out(capsys)
        assert out.startswith(CROSS) and message in out, out


def test_prior_and_lmi_misuse_raises(poor_arm):
    cad, bp, problems, bt, b0, sd, prior = poor_arm
    f = lambda W, y: prior  # noqa: E731
    with pytest.raises(ValueError, match="problems must hold"):
        checks.check_prior_and_lmi(f, [], bp, cad, bt, b0, sd)
    with pytest.raises(ValueError, match="beta_true must have 30 finite entries"):
        checks.check_prior_and_lmi(f, problems, bp, cad, bt[:3], b0, sd)
    with pytest.raises(ValueError, match="prior_std must be > 0"):
        checks.check_prior_and_lmi(f, problems, bp, cad, bt, b0, 0 * sd)
    with pytest.raises(TypeError, match="robot must be a SerialRobot"):
        checks.check_prior_and_lmi(f, problems, bp, None, bt, b0, sd)


def test_docstring_examples_run():
    import doctest

    result = doctest.testmod(checks, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
