import warnings

import numpy as np
import pytest
import sympy as sp
from _required import example_robot_data_file, required

from robidlib.base import BaseParameters, base_parameters, format_relation, random_states
from robidlib.regressor import friction_regressor, regressor, stack
from robidlib.robot import SerialRobot


def planar_rr(L1=0.3):
    """Two revolute joints with parallel z axes, gravity in the plane (along -y)."""
    return SerialRobot.from_dh(
        "RR", a=[0.0, L1], alpha=[0.0, 0.0], d=[0.0, 0.0],
        mass=[2.0, 1.5], com=[[0.15, 0.01, 0.0], [0.12, -0.02, 0.0]],
        inertia=[[0.01, 0.02, 0.03, 0.0, 0.0, 0.0], [0.005, 0.01, 0.02, 0.0, 0.0, 0.0]],
        gravity=[0.0, -9.81, 0.0],
    )


def pendulum_W(n=50):
    rng = np.random.default_rng(0)
    q = rng.uniform(-np.pi, np.pi, n)
    qdd = rng.uniform(-5, 5, n)
    return np.column_stack([qdd, np.zeros(n), qdd, 9.81 * np.sin(q)])


@pytest.mark.parametrize("method", ["qr", "svd"])
def test_overparameterised_pendulum(method):
    W = pendulum_W()
    bp = base_parameters(W, method=method, tol=1e-8, names=["I_O", "m", "mc2", "mc"])
    assert bp.rank == 2 and bp.V1.shape == (4, 2) and bp.V2.shape == (4, 2)
    np.testing.assert_allclose(W @ bp.V2, 0.0, atol=1e-10)
    pi = np.array([0.1, 2.0, 0.5, 1.0])
    np.testing.assert_allclose(bp.reduce(W) @ bp.beta(pi), W @ pi, rtol=1e-12, atol=1e-12)
    if method == "qr":
        assert bp.relations == ("I_O + mc2", "mc")
        np.testing.assert_allclose(bp.beta(pi), [0.6, 1.0])


def test_svd_and_qr_give_same_rank_on_robots_and_reduce_is_exact():
    from robidlib.models import planar_2r, redundant_5dof, ur5

    rng = np.random.default_rng(5)
    for robot in (planar_rr(), planar_2r(), redundant_5dof(), ur5()):
        b_qr = base_parameters(robot, method="qr", rng=1)
        b_svd = base_parameters(robot, method="svd", rng=1)
        assert b_qr.rank == b_svd.rank, robot
        q, qd, qdd = random_states(robot, 30, rng)        # fresh samples, not those of the fit
        W, _ = stack(regressor(robot, q, qd, qdd), np.zeros((30, robot.n)))
        for bp in (b_qr, b_svd):
            lhs = bp.reduce(W) @ bp.beta(robot.params)
            np.testing.assert_allclose(lhs, W @ robot.params, rtol=1e-10, atol=1e-10 * np.abs(W @ robot.params).max())
            assert np.linalg.matrix_rank(bp.reduce(W)) == bp.rank


def test_planar_2r_relations_match_closed_form():
    L1 = 0.3
    bp = base_parameters(planar_rr(L1), method="qr", rng=2)
    assert bp.rank == 6
    # Khalil's closed form for a planar RR arm: Izz1 + L1^2 m2, mx1 + L1 m2, my1, Izz2, mx2, my2
    s = {n: sp.Symbol(n) for n in ("Izz1", "mx1", "my1", "Izz2", "mx2", "my2", "m2")}
    expected = {
        s["Izz1"] + sp.Rational(9, 100) * s["m2"], s["mx1"] + sp.Rational(3, 10) * s["m2"],
        s["my1"], s["Izz2"], s["mx2"], s["my2"],
    }
    assert set(bp.as_sympy()) == expected
    assert "Izz1 + 0.09*m2" in bp.relations
    assert bp.base_names[bp.relations.index("Izz1 + 0.09*m2")] == "Izz1R"


def test_null_space_direction_changes_no_torque():
    robot = planar_rr()
    bp = base_parameters(robot, rng=3)
    q, qd, qdd = random_states(robot, 20, 4)
    Y = regressor(robot, q, qd, qdd)
    for k in range(bp.n_params - bp.rank):
        d = bp.null_space_direction(k)
        np.testing.assert_allclose(Y @ d, 0.0, atol=1e-12)
    with pytest.raises(ValueError, match=r"k must be an integer in \[0, 14\)"):
        bp.null_space_direction(14)


def test_friction_columns_add_two_per_joint():
    from robidlib.models import ur5

    robot = ur5()
    b0 = base_parameters(robot, rng=0)
    b1 = base_parameters(robot, rng=0, friction=True)
    assert b1.rank == b0.rank + 2 * robot.n
    assert b1.names[-2:] == ("fv6", "fc6")
    assert friction_regressor(np.ones((2, 6))).shape == (2, 6, 12)


def _erd_urdf(relative):
    """Path of a URDF shipped by example-robot-data (a test requirement: missing fails)."""
    return str(example_robot_data_file(relative))


def test_ur5_rank_matches_pinocchio():
    pin = required("pinocchio")
    urdf = _erd_urdf("ur_description/urdf/ur5_robot.urdf")
    model = pin.buildModelFromUrdf(urdf)
    data = model.createData()
    rng = np.random.default_rng(0)
    rows = []
    for _ in range(150):
        q = rng.uniform(-np.pi, np.pi, model.nq)
        v, a = rng.uniform(-2, 2, (2, model.nv))
        rows.append(pin.computeJointTorqueRegressor(model, data, q, v, a).copy())
    W = np.vstack(rows)
    s = np.linalg.svd(W, compute_uv=False)
    rank_pin = int(np.sum(s > max(W.shape) * np.finfo(float).eps * s[0]))
    robot = SerialRobot.from_urdf(urdf)
    assert robot.n == model.nv == 6
    assert base_parameters(robot, rng=0).rank == rank_pin


def test_random_states_within_limits_and_reproducible():
    robot = planar_rr()
    q, qd, qdd = random_states(robot, 200, 9)
    assert q.shape == qd.shape == qdd.shape == (200, 2)
    assert np.all(q >= robot.q_limits[:, 0]) and np.all(q <= robot.q_limits[:, 1])
    assert np.all(np.abs(qd) <= robot.qd_limits) and np.all(np.abs(qdd) <= robot.qdd_limits)
    np.testing.assert_array_equal(q, random_states(robot, 200, np.random.default_rng(9))[0])
    with pytest.raises(ValueError, match="n_samples must be an integer from 1 to 1e\\+07, got 0"):
        random_states(robot, 0)
    with pytest.raises(ValueError, match="n_samples must be an integer from 1 to 1e\\+07, got 10000000000000"):
        random_states(robot, 10**13)                 # 146 TB: refused before numpy tries
    with pytest.raises(TypeError, match="robot must be a SerialRobot"):
        random_states(np.eye(2), 5)
    with pytest.raises(TypeError, match="rng must be"):
        random_states(robot, 5, rng="seed")


def test_random_states_replace_infinite_limits_by_the_documented_defaults():
    from robidlib.models import ur5
    from robidlib.robot import DEFAULT_LIMITS

    robot = ur5().with_limits(qd=[np.inf, 1.0, np.inf, 1.0, 1.0, 1.0], qdd=[np.inf] * 6)
    q, qd, qdd = random_states(robot, 500, rng=3)
    assert np.all(np.isfinite(qd)) and np.all(np.isfinite(qdd))
    bound = DEFAULT_LIMITS["revolute"]
    assert np.abs(qd[:, 0]).max() <= bound["qd"] and np.abs(qd[:, 0]).max() > 0.9 * bound["qd"]
    assert np.abs(qd[:, 1]).max() <= 1.0 and np.abs(qdd).max() <= bound["qdd"]
    # and the base parameters of such a robot (the issue: "qd must be finite" about nothing passed)
    assert base_parameters(robot, rng=0).rank == base_parameters(ur5(), rng=0).rank


def test_base_parameters_refuses_a_tolerance_below_round_off():
    with pytest.raises(ValueError, match=r"tol must be >= eps \* s_max = .* \(the round-off level of W"):
        base_parameters(planar_rr(), tol=1e-300)
    for bad in (-1e-6, np.nan, np.inf):
        with pytest.raises(ValueError, match="tol must be"):
            base_parameters(planar_rr(), tol=bad)


def test_format_relation():
    assert format_relation("a", [1.0, -0.5, 0.123456789], ["b", "c", "d"]) == "a + b - 0.5*c + 0.123457*d"
    # one decimal format for every coefficient: a simple fraction is not written as one
    assert format_relation("a", [0.0144, 0.2169, 1 / 3], ["b", "c", "d"], digits=4) == \
        "a + 0.0144*b + 0.2169*c + 0.3333*d"
    with pytest.raises(ValueError, match="coeffs has 1 entries but dep_names has 2"):
        format_relation("a", [1.0], ["b", "c"])


def test_bad_inputs():
    W = pendulum_W()
    with pytest.raises(ValueError, match="unknown method 'lu'"):
        base_parameters(W, method="lu")
    with pytest.raises(ValueError, match="tol must be > 0"):
        base_parameters(W, tol=0.0)
    with pytest.raises(ValueError, match="W must have 2 dimension"):
        base_parameters(np.ones(5))
    with pytest.raises(ValueError, match="W must not be empty"):
        base_parameters(np.ones((0, 3)))
    with pytest.raises(ValueError, match="W must be finite"):
        base_parameters(np.array([[1.0, np.nan], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="names must have 4 entries"):
        base_parameters(W, names=["a"])
    with pytest.raises(ValueError, match="rank 0"):
        base_parameters(np.zeros((5, 2)))
    with pytest.raises(ValueError, match="names must not be given with a robot"):
        base_parameters(planar_rr(), names=["x"])
    with pytest.raises(ValueError, match="friction=True needs a robot"):
        base_parameters(W, friction=True)
    with pytest.raises(TypeError, match="W must be numeric"):
        base_parameters("W")
    bp = base_parameters(W)
    with pytest.raises(ValueError, match=r"pi must have shape \(4,\)"):
        bp.beta(np.ones(3))
    with pytest.raises(ValueError, match="W must have 4 columns"):
        bp.reduce(np.ones((3, 5)))


def test_too_few_samples_warns_with_the_numbers():
    robot = planar_rr()
    with pytest.warns(UserWarning, match=r"W has 6 rows for 20 parameters: its rank cannot exceed 6"):
        bp = base_parameters(robot, samples=3, rng=0)
    assert bp.rank <= 6
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert base_parameters(robot, rng=0).rank == 6
    assert isinstance(bp, BaseParameters)


@pytest.mark.parametrize(
    "relative, kwargs",
    [("ur_description/urdf/ur5_robot.urdf", {}), ("panda_description/urdf/panda.urdf", {"tip_link": "panda_hand"})],
    ids=["ur5-urdf", "panda-urdf"],
)
def test_svd_and_qr_ranks_agree_on_urdf_robots(relative, kwargs):
    robot = SerialRobot.from_urdf(_erd_urdf(relative), **kwargs)
    b_qr = base_parameters(robot, method="qr", rng=0)
    b_svd = base_parameters(robot, method="svd", rng=0)
    assert b_qr.rank == b_svd.rank
    q, qd, qdd = random_states(robot, 20, 1)
    Y = regressor(robot, q, qd, qdd)
    np.testing.assert_allclose(b_qr.reduce(Y) @ b_qr.beta(robot.params), Y @ robot.params, atol=1e-9)
    if robot.n == 7:
        assert b_qr.rank == 43  # 7 revolute joints, vertical first axis (cf. Panda identification papers)


def test_base_parameters_refuse_another_robot_with_the_same_joint_count():
    """Issue 26, item 5: base parameters carry the structure of their robot (``robot_id``)."""
    from robidlib.base import check_base_of
    from robidlib.models import planar_2r

    arm = planar_2r()
    bp = base_parameters(arm, rng=0)
    assert bp.robot_id == arm.structure_id
    assert arm.with_params(2 * arm.params).structure_id == arm.structure_id          # parameters: same robot
    assert SerialRobot.from_urdf(arm.to_urdf()).structure_id == arm.structure_id     # round-off: same robot
    other = SerialRobot.from_dh("RR", a=[0.0, 0.3], alpha=[np.pi / 2, 0.0], d=[0.2, 0.0], mass=[1.0, 1.0],
                                com=[[0.1, 0, 0], [0.1, 0, 0]], inertia=np.tile([0.01, 0.01, 0.01, 0, 0, 0], (2, 1)))
    assert other.param_names == arm.param_names and other.structure_id != arm.structure_id
    z = np.zeros(2)
    for robot in (other, arm.with_gravity([0.0, 0.0, -9.81])):        # another geometry; gravity along the axes
        with pytest.raises(ValueError, match="base was computed for another robot"):
            regressor(robot, z, z, z, base=bp)
        with pytest.raises(ValueError, match="base was computed for another robot"):
            check_base_of(robot, bp)
    assert regressor(arm.with_gravity(2 * arm.gravity), z, z, z, base=bp).shape == (2, bp.rank)   # same direction
    W = regressor(arm, *random_states(arm, 30, rng=1)).reshape(-1, 20)
    assert base_parameters(W).robot_id is None                  # from a matrix: no robot to check
    with pytest.raises(TypeError, match="robot_id"):
        BaseParameters(**{**{f: getattr(bp, f) for f in ("method", "rank", "names", "independent", "dependent",
                                                          "K", "V1", "V2", "singular_values", "tol")}, "robot_id": 3})
