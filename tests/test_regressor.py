"""Tests of robidlib.regressor: the batched regressor, friction columns, stacking."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robidlib.dynamics as dyn
from robidlib.dynamics import inverse_dynamics
from robidlib.models.planar_2r import planar_2r
from robidlib.models.redundant_5dof import redundant_5dof
from robidlib.models.ur5 import ur5
from robidlib.params import friction_names
from robidlib.regressor import friction_regressor, regressor, stack

MODELS = {"planar_2r": planar_2r(), "redundant_5dof": redundant_5dof(), "ur5": ur5()}
SEEDS = st.integers(0, 2**32 - 1)


def random_state(robot, rng, N):
    lo, hi = robot.q_limits.T
    return (
        rng.uniform(lo, hi, (N, robot.n)),
        rng.uniform(-1, 1, (N, robot.n)) * robot.qd_limits,
        rng.uniform(-1, 1, (N, robot.n)) * robot.qdd_limits,
    )


@pytest.mark.parametrize("name", list(MODELS))
def test_regressor_times_params_is_inverse_dynamics(name):
    r = MODELS[name]
    q, qd, qdd = random_state(r, np.random.default_rng(0), 200)
    Y = regressor(r, q, qd, qdd)
    assert Y.shape == (200, r.n, 10 * r.n)
    tau = inverse_dynamics(r, q, qd, qdd, include_friction=False)
    assert np.allclose(Y @ r.params, tau, rtol=1e-10, atol=1e-10)
    assert np.allclose(regressor(r, q[5], qd[5], qdd[5]), Y[5])
    # link j cannot move joint i > j: the block below the diagonal is zero
    for i in range(r.n):
        assert np.all(Y[:, i, : 10 * i] == 0)


@pytest.mark.parametrize("name", list(MODELS))
@given(seed=SEEDS)
@settings(max_examples=25, deadline=None)
def test_regressor_is_linear_in_the_parameters(name, seed):
    """Y does not depend on the parameters, and Y @ pi is the RNEA of any parameter vector."""
    rng = np.random.default_rng(seed)
    r = MODELS[name]
    q, qd, qdd = random_state(r, rng, 4)
    Y = regressor(r, q, qd, qdd)
    p1, p2 = rng.normal(size=(2, 10 * r.n))
    a, b = rng.normal(size=2)
    r1, r2, r12 = r.with_params(p1), r.with_params(p2), r.with_params(a * p1 + b * p2)
    assert np.array_equal(regressor(r1, q, qd, qdd), Y)
    t1 = inverse_dynamics(r1, q, qd, qdd, include_friction=False)
    t2 = inverse_dynamics(r2, q, qd, qdd, include_friction=False)
    t12 = inverse_dynamics(r12, q, qd, qdd, include_friction=False)
    scale = 1.0 + np.abs(t1).max() + np.abs(t2).max()
    assert np.allclose(Y @ p1, t1, rtol=1e-10, atol=1e-10 * scale)
    assert np.allclose(t12, a * t1 + b * t2, rtol=1e-9, atol=1e-9 * scale * (1 + abs(a) + abs(b)))


def test_regressor_chunks_and_gravity(monkeypatch):
    r = MODELS["redundant_5dof"]
    q, qd, qdd = random_state(r, np.random.default_rng(1), 17)
    Y = regressor(r, q, qd, qdd)
    monkeypatch.setattr(dyn, "_CHUNK", 4)
    assert np.allclose(regressor(r, q, qd, qdd), Y, rtol=1e-13, atol=1e-13)
    g = np.array([1.0, -2.0, -9.0])
    assert np.allclose(regressor(r, q, qd, qdd, gravity=g) @ r.params, inverse_dynamics(r.with_gravity(g), q, qd, qdd))
    # the gravity columns: with qd = qdd = 0, Y is linear in g
    Z = np.zeros_like(q)
    assert np.allclose(regressor(r, q, Z, Z, gravity=2 * g), 2 * regressor(r, q, Z, Z, gravity=g))


@pytest.mark.parametrize("name", ["planar_2r", "redundant_5dof", "ur5"])
@pytest.mark.parametrize("method", ["qr", "svd"])
def test_base_regressor_equals_the_reduced_full_regressor(name, method, monkeypatch):
    from robidlib.base import base_parameters

    r = MODELS[name]
    bp = base_parameters(r, method=method, rng=0)
    q, qd, qdd = random_state(r, np.random.default_rng(5), 23)
    Yb = regressor(r, q, qd, qdd, base=bp)
    assert Yb.shape == (23, r.n, bp.rank) and Yb.flags.c_contiguous
    np.testing.assert_allclose(Yb, bp.reduce(regressor(r, q, qd, qdd)), rtol=1e-13, atol=1e-13)
    monkeypatch.setattr(dyn, "_CHUNK", 5)                  # several chunks, a short last one
    np.testing.assert_allclose(regressor(r, q, qd, qdd, base=bp), Yb, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(regressor(r, q[0], qd[0], qdd[0], base=bp), Yb[0], rtol=1e-13, atol=1e-13)


def test_regressor_writes_into_out_entirely():
    from robidlib.base import base_parameters

    r = MODELS["ur5"]
    q, qd, qdd = random_state(r, np.random.default_rng(6), 9)
    Y = regressor(r, q, qd, qdd)
    out = np.full_like(Y, np.nan)                          # stale content must not survive
    assert regressor(r, q, qd, qdd, out=out) is out
    np.testing.assert_array_equal(out, Y)
    bp = base_parameters(r, rng=0)
    outb = np.full((9, r.n, bp.rank), np.nan)
    regressor(r, q, qd, qdd, base=bp, out=outb)
    np.testing.assert_allclose(outb, bp.reduce(Y), rtol=1e-13, atol=1e-13)
    with pytest.raises(ValueError, match=r"out must be a writeable C-contiguous array of shape \(9, 6, 60\), got shape \(9, 6, 59\)"):
        regressor(r, q, qd, qdd, out=np.empty((9, 6, 59)))
    with pytest.raises(ValueError, match="not C-contiguous"):
        regressor(r, q, qd, qdd, out=np.empty((60, 6, 9)).transpose(2, 1, 0))
    with pytest.raises(TypeError, match="out must be a float64 numpy array, got ndarray float32"):
        regressor(r, q, qd, qdd, out=np.empty((9, 6, 60), dtype=np.float32))
    with pytest.raises(ValueError, match="base must be computed for this robot's 60 rigid-body parameters"):
        regressor(r, q, qd, qdd, base=base_parameters(r, friction=True, rng=0))
    with pytest.raises(TypeError, match="base must be a BaseParameters"):
        regressor(r, q, qd, qdd, base="qr")


@pytest.mark.parametrize("name", list(MODELS))
def test_compiled_loop_is_the_python_loop(name):
    """The readable Python of the loop is what numba compiles: same numbers, uncompiled."""
    import importlib

    reg = importlib.import_module("robidlib.regressor")     # the module (robidlib.regressor is the function)
    r = MODELS[name]                                        # redundant_5dof: prismatic joints too
    q, qd, qdd = random_state(r, np.random.default_rng(7), 6)
    plain = np.full((6, r.n, 10 * r.n), np.nan)
    reg._regressor_rows(q, qd, qdd, *reg._robot_arrays(r, r.gravity), plain)
    np.testing.assert_allclose(regressor(r, q, qd, qdd), plain, rtol=1e-13, atol=1e-13)


UNCOMPILED = {  # how a process runs without numba's JIT: (environment, first lines of the code)
    "NUMBA_DISABLE_JIT=1": ({"NUMBA_DISABLE_JIT": "1"}, ""),
    "numba missing": ({}, "import sys\nsys.modules['numba'] = None   # import numba -> ImportError\n"),
}


@pytest.mark.parametrize("case", list(UNCOMPILED))
def test_without_numba_the_same_numbers(case, tmp_path):
    """With numba disabled or missing, a fresh process runs the plain Python of the regressor
    loop and the numpy inverse dynamics (numba is never imported) and gets what the compiled
    loops give here: the regressor, inverse dynamics, base parameters and a simulation."""
    import os
    import subprocess
    import sys

    from robidlib.base import base_parameters
    from robidlib.dynamics import simulate

    r = MODELS["redundant_5dof"]                            # prismatic joints too
    q, qd, qdd = random_state(r, np.random.default_rng(9), 40)
    np.savez(tmp_path / "state.npz", q=q, qd=qd, qdd=qdd)
    env, prelude = UNCOMPILED[case]
    code = prelude + (
        "import importlib, sys\n"
        "import numpy as np\n"
        "import robidlib.dynamics as dyn\n"
        "from robidlib.base import base_parameters\n"
        "from robidlib.models.redundant_5dof import redundant_5dof\n"
        "reg = importlib.import_module('robidlib.regressor')\n"
        "r, s = redundant_5dof(), np.load(sys.argv[1])\n"
        "bp = base_parameters(r, rng=0)\n"
        "sim = dyn.simulate(r, np.linspace(0, 0.5, 6), s['q'][0], s['qd'][0])\n"
        "np.savez(sys.argv[2], Y=reg.regressor(r, s['q'], s['qd'], s['qdd']),\n"
        "         tau=dyn.inverse_dynamics(r, s['q'], s['qd'], s['qdd']), ind=bp.independent, K=bp.K,\n"
        "         sim=sim.q)\n"
        "assert reg._compiled_rows() is reg._regressor_rows and dyn._compiled_rnea() is None\n"
        "assert sys.modules.get('numba') is None, 'numba was imported'\n"
    )
    clean = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "state.npz"), str(tmp_path / "out.npz")],
                          env={**clean, **env}, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    got = np.load(tmp_path / "out.npz")
    np.testing.assert_allclose(got["Y"], regressor(r, q, qd, qdd), rtol=1e-13, atol=1e-13)
    scale = np.abs(got["tau"]).max()
    np.testing.assert_allclose(got["tau"], inverse_dynamics(r, q, qd, qdd), rtol=1e-13, atol=1e-13 * scale)
    bp = base_parameters(r, rng=0)
    assert got["ind"].tolist() == bp.independent.tolist()
    np.testing.assert_allclose(got["K"], bp.K, rtol=1e-9, atol=1e-9)    # lstsq on cond ~1e2-1e3 columns
    # the simulation (DOP853, rtol 1e-9): the two right-hand sides differ by round-off only
    sim = simulate(r, np.linspace(0, 0.5, 6), q[0], qd[0])
    np.testing.assert_allclose(got["sim"], sim.q, rtol=1e-8, atol=1e-8)


def test_regressor_takes_any_memory_layout():
    """Read-only, Fortran-ordered, strided and integer inputs give the same regressor."""
    r = MODELS["ur5"]
    q, qd, qdd = random_state(r, np.random.default_rng(8), 12)
    Y = regressor(r, q, qd, qdd)
    ro = q.copy()
    ro.flags.writeable = False
    np.testing.assert_array_equal(regressor(r, ro, np.asfortranarray(qd), qdd), Y)
    wide = np.zeros((12, 2 * r.n))
    wide[:, ::2] = qdd
    np.testing.assert_array_equal(regressor(r, q, qd, wide[:, ::2]), Y)
    qi = np.round(q).astype(int)
    np.testing.assert_array_equal(regressor(r, qi, qd, qdd), regressor(r, qi.astype(float), qd, qdd))
    g = r.gravity.copy()
    g.flags.writeable = False
    np.testing.assert_array_equal(regressor(r, q, qd, qdd, gravity=g), Y)


def test_friction_regressor_columns_and_names():
    qd = np.array([[0.5, -2.0, 0.0], [-1.0, 3.0, 0.2]])
    F = friction_regressor(qd)
    assert F.shape == (2, 3, 6)
    assert np.array_equal(F[0], [[0.5, 1, 0, 0, 0, 0], [0, 0, -2, -1, 0, 0], [0, 0, 0, 0, 0, 0]])
    Fo = friction_regressor(qd, terms=("coulomb", "viscous"), offset=True)
    assert Fo.shape == (2, 3, 9)
    assert np.array_equal(Fo[1, 1, 3:6], [1.0, 3.0, 1.0])
    assert friction_names(3, ("coulomb", "viscous"), offset=True)[3:6] == ("fc2", "fv2", "off2")
    assert np.array_equal(friction_regressor(qd[0]), F[0])
    assert np.array_equal(friction_regressor(qd, terms=(), offset=True)[0], np.eye(3))


def test_friction_regressor_completes_the_model():
    fr = np.array([[0.4, 0.3], [0.2, 0.1]])
    r = planar_2r(friction=fr)
    q, qd, qdd = random_state(r, np.random.default_rng(2), 50)
    W = np.concatenate([regressor(r, q, qd, qdd), friction_regressor(qd)], axis=2)
    theta = np.r_[r.params, r.friction.ravel()]
    assert np.allclose(W @ theta, inverse_dynamics(r, q, qd, qdd))
    assert r.friction_names == friction_names(2)


def test_stack_is_sample_major():
    rng = np.random.default_rng(3)
    Y = rng.normal(size=(4, 3, 5))
    tau = rng.normal(size=(4, 3))
    W, y = stack(Y, tau)
    assert W.shape == (12, 5) and y.shape == (12,)
    for k in range(4):
        for j in range(3):
            assert np.array_equal(W[k * 3 + j], Y[k, j]) and y[k * 3 + j] == tau[k, j]
    pi = rng.normal(size=5)
    assert np.allclose(W @ pi, (Y @ pi).ravel())
    W1, y1 = stack(Y[0], tau[0])
    assert np.array_equal(W1, Y[0]) and np.array_equal(y1, tau[0])


# ---------------------------------------------------------------------- bad input
R2 = MODELS["planar_2r"]
Z = np.zeros(2)


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: regressor(R2, np.zeros(3), np.zeros(3), np.zeros(3)), ValueError, r"q must have shape \(2,\) or \(N, 2\)"),
        (lambda: regressor(R2, Z, Z, np.zeros((3, 2))), ValueError, "qdd must have the same shape as q"),
        (lambda: regressor(R2, Z, [0, np.inf], Z), ValueError, "qd must be finite"),
        (lambda: regressor(R2, Z, Z, Z, gravity=[0, 0]), ValueError, "gravity must have shape"),
        (lambda: regressor(R2, np.zeros((1, 1, 2)), Z, Z), ValueError, "q must have 1 or 2 dimension"),
        (lambda: regressor("R2", Z, Z, Z), TypeError, "robot must be a SerialRobot"),
        (lambda: friction_regressor(Z, terms=("viscous", "stiction")), ValueError, "unknown friction term 'stiction'"),
        (lambda: friction_regressor(Z, terms=()), ValueError, "no column"),
        (lambda: friction_regressor(Z, terms=("viscous", "viscous")), ValueError, "must not repeat"),
        (lambda: friction_regressor([np.nan, 0]), ValueError, "qd must be finite"),
        (lambda: friction_regressor(np.zeros((2, 0))), ValueError, "at least one joint"),
        (lambda: friction_regressor(np.zeros((2, 2, 2))), ValueError, "qd must have 1 or 2 dimension"),
        (lambda: friction_regressor(Z, offset=1), TypeError, "offset must be True or False"),
        (lambda: stack(np.zeros((4, 2, 3)), np.zeros((4, 3))), ValueError, r"tau must have shape \(4, 2\)"),
        (lambda: stack(np.zeros(3), np.zeros(3)), ValueError, "Y must have 2 or 3 dimension"),
        (lambda: stack(np.zeros((4, 2, 3)), np.full((4, 2), np.nan)), ValueError, "tau must be finite"),
    ],
)
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_docstring_examples_run():
    import doctest

    import importlib

    module = importlib.import_module("robidlib.regressor")  # robidlib.regressor is also a function
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
