"""Tests of robidlib.trajectories: quintic, via points, Fourier series, limits."""

from __future__ import annotations

import numpy as np
import pytest

from robidlib.trajectories import (
    FourierTrajectory,
    Trajectory,
    check_limits,
    fourier_basis,
    fourier_series,
    limit_margins,
    limits_violation,
    quintic,
    quintic_coefficients,
    quintic_via,
)


def _fd_check(traj: Trajectory, rtol: float):
    """Central finite differences of q (qd) match qd (qdd) in the interior."""
    dt = traj.t[1] - traj.t[0]
    qd_fd = (traj.q[2:] - traj.q[:-2]) / (2 * dt)
    qdd_fd = (traj.qd[2:] - traj.qd[:-2]) / (2 * dt)
    scale_v = np.max(np.abs(traj.qd))
    scale_a = np.max(np.abs(traj.qdd))
    np.testing.assert_allclose(qd_fd, traj.qd[1:-1], atol=rtol * scale_v)
    np.testing.assert_allclose(qdd_fd, traj.qdd[1:-1], atol=rtol * scale_a)


# ----------------------------------------------------------------------------- Trajectory
def test_trajectory_unpacks_as_q_qd_qdd_and_validates():
    t = np.linspace(0, 1, 4)
    z = np.zeros((4, 2))
    traj = Trajectory(t, z, z + 1, z + 2)
    q, qd, qdd = traj
    assert q is traj.q and qdd[0, 0] == 2.0
    assert traj.n_samples == 4 and traj.n_joints == 2
    assert "N=4, n=2" in repr(traj)
    with pytest.raises(ValueError, match=r"qd must have shape \(4, 2\)"):
        Trajectory(t, z, z[:, :1], z)
    with pytest.raises(ValueError, match=r"q must have shape \(4, n\) \(N = 4 from t\)"):
        Trajectory(t, z[:3], z[:3], z[:3])
    with pytest.raises(ValueError, match="qdd must be finite"):
        Trajectory(t, z, z, z + np.nan)


# ----------------------------------------------------------------------------- quintic
def test_quintic_boundary_conditions():
    T = 1.7
    q0, qf = np.array([0.1, -1.0, 2.0]), np.array([1.0, 0.5, 2.0])
    qd0, qdf = np.array([0.3, 0.0, -1.0]), np.array([0.0, -0.2, 0.4])
    qdd0, qddf = np.array([1.0, 0.0, 0.0]), np.array([-2.0, 0.5, 0.0])
    traj = quintic([0.0, T], q0, qf, T, qd0=qd0, qdf=qdf, qdd0=qdd0, qddf=qddf)
    np.testing.assert_allclose(traj.q, [q0, qf], atol=1e-12)
    np.testing.assert_allclose(traj.qd, [qd0, qdf], atol=1e-12)
    np.testing.assert_allclose(traj.qdd, [qdd0, qddf], atol=1e-11)


def test_quintic_rest_to_rest_closed_form_and_derivatives():
    T = 2.0
    t = np.linspace(0, T, 2001)
    traj = quintic(t, [0.0, 1.0], [1.0, -1.0], T)
    s = t / T
    shape = 10 * s**3 - 15 * s**4 + 6 * s**5  # classic minimum-jerk profile
    np.testing.assert_allclose(traj.q[:, 0], shape, atol=1e-12)
    np.testing.assert_allclose(traj.q[:, 1], 1 - 2 * shape, atol=1e-12)
    # peak velocity 15/8 * (qf - q0) / T at mid-time, and it is a polynomial of degree 5
    np.testing.assert_allclose(np.max(np.abs(traj.qd), axis=0), [15 / 16, 15 / 8], rtol=1e-6)
    _fd_check(traj, rtol=1e-5)
    c = quintic_coefficients(0.0, 1.0, T)
    np.testing.assert_allclose(c[:, 0], np.polyfit(t, traj.q[:, 0], 5)[::-1], atol=1e-8)


def test_quintic_scalar_gives_one_joint_and_broadcasts():
    t = np.linspace(0, 1, 11)
    assert quintic(t, 0.0, 1.0, 1.0).q.shape == (11, 1)
    traj = quintic(t, 0.0, [1.0, 2.0, 3.0], 1.0)  # q0 broadcast to 3 joints
    np.testing.assert_allclose(traj.q[:, 1], 2 * traj.q[:, 0], atol=1e-12)


def test_quintic_bad_input():
    t = np.linspace(0, 1, 5)
    with pytest.raises(ValueError, match=r"t must lie in \[0, T\] = \[0, 1\] s, got 1 value"):
        quintic(np.r_[t, 1.5], 0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="T must be > 0"):
        quintic(t, 0.0, 1.0, 0.0)
    with pytest.raises(ValueError, match="one common length n, got lengths q0: 2, qf: 3"):
        quintic(t, [0.0, 0.0], [1.0, 1.0, 1.0], 1.0)
    with pytest.raises(ValueError, match="qd0 must be finite"):
        quintic(t, 0.0, 1.0, 1.0, qd0=np.nan)
    with pytest.raises(ValueError, match="t must be finite"):
        quintic(np.r_[t, np.nan], 0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="t must hold at least one"):
        quintic([], 0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="qf must have 0 or 1 dimension"):
        quintic(t, 0.0, [[1.0]], 1.0)


# ----------------------------------------------------------------------------- quintic_via
def test_quintic_via_passes_through_points_and_is_c2():
    times = np.array([0.0, 1.0, 2.5, 4.0])
    P = np.array([[0.0, 0.0], [1.0, 0.5], [2.0, -0.5], [0.5, 0.0]])
    t = np.linspace(0, 4, 8001)
    traj = quintic_via(t, times, P)
    idx = [np.argmin(np.abs(t - ti)) for ti in times]
    np.testing.assert_allclose(traj.q[idx], P, atol=1e-12)
    # rest at both ends; heuristic velocities: joint 1 slopes 1, 2/3 -> mean 5/6 at via 1;
    # joint 2 changes direction at via 1 (slopes 0.5, -2/3) -> 0
    np.testing.assert_allclose(traj.qd[[idx[0], idx[-1]]], 0.0, atol=1e-12)
    np.testing.assert_allclose(traj.qd[idx[1]], [5 / 6, 0.0], atol=1e-12)
    np.testing.assert_allclose(traj.qdd[idx], 0.0, atol=1e-10)
    _fd_check(traj, rtol=2e-3)  # derivatives consistent (jerk jumps at vias cost O(dt))
    # q, qd, qdd continuous across the interior via points: left and right limits agree
    eps = 1e-9
    left = quintic_via(times[1:-1] - eps, times, P)
    right = quintic_via(times[1:-1] + eps, times, P)
    for a, b in zip(left, right):
        np.testing.assert_allclose(a, b, atol=1e-7)
    # given velocities are honoured
    V = np.array([[0.0, 0.0], [0.2, 0.1], [0.0, -0.3], [0.0, 0.0]])
    traj2 = quintic_via(times, times, P, velocities=V)
    np.testing.assert_allclose(traj2.qd, V, atol=1e-12)
    # one segment is the plain quintic
    np.testing.assert_allclose(quintic_via(t[:100], [0.0, 4.0], [0.0, 1.0]).q,
                               quintic(t[:100], 0.0, 1.0, 4.0).q, atol=1e-13)


def test_quintic_via_bad_input():
    with pytest.raises(ValueError, match="strictly increasing"):
        quintic_via([0.0], [0.0, 1.0, 1.0], [0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="at least 2 via points"):
        quintic_via([0.0], [0.0], [0.0])
    with pytest.raises(ValueError, match=r"positions must have 3 rows"):
        quintic_via([0.0], [0.0, 1.0, 2.0], [0.0, 1.0])
    with pytest.raises(ValueError, match="velocities must have the shape of positions"):
        quintic_via([0.0], [0.0, 1.0], [0.0, 1.0], velocities=[0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"t must lie in \[times\[0\], times\[-1\]\]"):
        quintic_via([2.0], [0.0, 1.0], [0.0, 1.0])
    with pytest.raises(ValueError, match="positions must be finite"):
        quintic_via([0.0], [0.0, 1.0], [0.0, np.nan])


# ----------------------------------------------------------------------------- Fourier
def _ft(seed=0, n=3, L=4, wf=2 * np.pi * 0.2):
    rng = np.random.default_rng(seed)
    return FourierTrajectory(wf, rng.uniform(-0.5, 0.5, (n, L)), rng.uniform(-0.5, 0.5, (n, L)), rng.uniform(-1, 1, n))


def test_fourier_matches_swevers_formula_and_finite_differences():
    ft = _ft()
    t = np.linspace(0.0, ft.period, 5001)
    traj = ft.evaluate(t)
    # direct (loop) evaluation of the Swevers series for one joint
    i = 1
    q_ref = ft.q0[i] + sum(
        ft.a[i, l - 1] / (ft.wf * l) * np.sin(ft.wf * l * t) - ft.b[i, l - 1] / (ft.wf * l) * np.cos(ft.wf * l * t)
        for l in range(1, ft.n_harmonics + 1)
    )
    np.testing.assert_allclose(traj.q[:, i], q_ref, atol=1e-12)
    _fd_check(traj, rtol=1e-5)
    # periodic: state at t = 0 and t = period coincide
    for x in traj:
        np.testing.assert_allclose(x[0], x[-1], atol=1e-10)
    # fourier_series is the same thing
    traj2 = fourier_series(t, ft.wf, ft.a, ft.b, ft.q0)
    np.testing.assert_array_equal(traj2.q, traj.q)


def test_fourier_pack_unpack_roundtrip_and_layout():
    ft = _ft(seed=1, n=2, L=3)
    x = ft.pack()
    assert x.shape == (ft.n_params,) == (2 * (2 * 3 + 1),)
    np.testing.assert_array_equal(x[:3], ft.a[0])  # joint 1's a-coefficients first
    np.testing.assert_array_equal(x[6:9], ft.b[0])
    np.testing.assert_array_equal(x[-2:], ft.q0)
    back = FourierTrajectory.unpack(x, ft.wf, 2, 3)
    for name in ("a", "b", "q0"):
        np.testing.assert_array_equal(getattr(back, name), getattr(ft, name))
    with pytest.raises(ValueError, match=r"x must have length n_joints \* \(2 \* n_harmonics \+ 1\) = 2 \* 7 = 14, got 13"):
        FourierTrajectory.unpack(x[:-1], ft.wf, 2, 3)
    with pytest.raises(ValueError, match="n_harmonics must be >= 1"):
        FourierTrajectory.unpack(x, ft.wf, 2, 0)


def test_fourier_basis_is_the_linear_map_of_the_packed_vector():
    ft = _ft(seed=2, n=3, L=2)
    t = np.linspace(0.0, 7.0, 40)
    Bq, Bqd, Bqdd = fourier_basis(t, ft.wf, 3, 2)
    assert Bq.shape == (40 * 3, ft.n_params)
    traj = ft.evaluate(t)
    x = ft.pack()
    np.testing.assert_allclose(Bq @ x, traj.q.ravel(), atol=1e-12)
    np.testing.assert_allclose(Bqd @ x, traj.qd.ravel(), atol=1e-12)
    np.testing.assert_allclose(Bqdd @ x, traj.qdd.ravel(), atol=1e-12)


def test_fourier_amplitude_bounds_hold_and_are_reached_for_one_harmonic():
    ft = _ft(seed=3)
    traj = ft.evaluate(np.linspace(0, ft.period, 4001))
    bq, bqd, bqdd = ft.amplitude_bounds()
    assert np.all(np.abs(traj.q - ft.q0).max(axis=0) <= bq + 1e-12)
    assert np.all(np.abs(traj.qd).max(axis=0) <= bqd + 1e-12)
    assert np.all(np.abs(traj.qdd).max(axis=0) <= bqdd + 1e-12)
    one = FourierTrajectory(2.0, [[0.3]], [[0.4]], [0.0])  # amplitude 0.5 exactly
    tr = one.evaluate(np.linspace(0, one.period, 100001))
    np.testing.assert_allclose([np.abs(tr.q).max(), np.abs(tr.qd).max(), np.abs(tr.qdd).max()],
                               [x[0] for x in one.amplitude_bounds()], rtol=1e-6)


def test_fourier_bad_input():
    with pytest.raises(ValueError, match=r"b must have the shape of a, \(2, 3\)"):
        FourierTrajectory(1.0, np.zeros((2, 3)), np.zeros((2, 2)), np.zeros(2))
    with pytest.raises(ValueError, match=r"q0 must have one entry per row of a, shape \(2,\)"):
        FourierTrajectory(1.0, np.zeros((2, 3)), np.zeros((2, 3)), np.zeros(3))
    with pytest.raises(ValueError, match="wf must be > 0"):
        fourier_series([0.0], -1.0, [[1.0]], [[1.0]], [0.0])
    with pytest.raises(ValueError, match="a must be finite"):
        fourier_series([0.0], 1.0, [[np.nan]], [[1.0]], [0.0])
    with pytest.raises(ValueError, match="a must have 2 dimension"):
        fourier_series([0.0], 1.0, [1.0], [1.0], [0.0])
    with pytest.raises(TypeError, match="n_joints must be an int"):
        fourier_basis([0.0], 1.0, 1.5, 2)


# ----------------------------------------------------------------------------- limits
def test_limits_margins_violations_and_check():
    t = np.linspace(0, 1, 1001)
    traj = quintic(t, [0.0, 0.0], [1.0, -2.0], 1.0)  # peak |qd| 1.875, 3.75; |qdd| 5.77, 11.55
    m = limit_margins(traj, q_min=-3.0, q_max=[2.0, 0.5], qd_max=3.0)
    np.testing.assert_allclose(m, [3.0, 1.0, 1.0, 0.5, 3.0 - 1.875, 3.0 - 3.75], atol=1e-6)
    v = limits_violation(traj, q_min=[-1.0, -1.5], qd_max=3.0, qdd_max=10.0)
    assert list(v) == ["q_min", "qd_max", "qdd_max"]
    np.testing.assert_allclose(v["q_min"], [0.0, 0.5], atol=1e-12)
    np.testing.assert_allclose(v["qd_max"], [0.0, 0.75], atol=1e-6)
    np.testing.assert_allclose(v["qdd_max"], [0.0, 10 * np.sqrt(3) / 1.5 - 10.0], atol=1e-3)
    check_limits(traj, q_min=-np.inf, q_max=np.inf, qd_max=4.0)  # unlimited positions: passes
    with pytest.raises(ValueError, match=r"the guess violates its limits: joint 2 q goes below q_min=-1.5 by 0.5; "
                                         r"joint 2 \|qd\| exceeds qd_max=3 by 0.75"):
        check_limits(traj, q_min=[-1.0, -1.5], qd_max=3.0, name="the guess")


def test_limits_bad_input():
    traj = quintic(np.linspace(0, 1, 11), [0.0, 0.0], [1.0, 1.0], 1.0)
    with pytest.raises(ValueError, match="no limit given"):
        limit_margins(traj)
    with pytest.raises(ValueError, match=r"q_max must be a scalar or have shape \(2,\)"):
        limit_margins(traj, q_max=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="qd_max must be > 0"):
        limit_margins(traj, qd_max=0.0)
    with pytest.raises(ValueError, match="q_min must be below q_max"):
        limit_margins(traj, q_min=1.0, q_max=[2.0, 0.5])
    with pytest.raises(ValueError, match="q_min must not contain NaN"):
        limit_margins(traj, q_min=np.nan)
    with pytest.raises(TypeError, match="traj must be a robidlib.trajectories.Trajectory"):
        limit_margins((traj.q, traj.qd, traj.qdd), qd_max=1.0)


# ----------------------------------------------------------------------------- excitation design
from robidlib.trajectories import (  # noqa: E402  (kept with the tests that use them)
    ExcitationResult,
    excitation_cond,
    optimize_excitation,
    random_fourier,
)


def _arm(**kw):
    from robidlib.robot import SerialRobot

    return SerialRobot.from_dh(
        "RR", a=[0.0, 0.3], alpha=[0.0, 0.0], d=[0.0, 0.0], gravity=[0.0, -9.81, 0.0], **kw
    )


WF = 2 * np.pi / 4.0


def _guess():
    return FourierTrajectory(WF, a=[[0.3, 0.1], [0.2, 0.1]], b=[[0.0, 0.1], [0.1, 0.0]], q0=[0.0, 0.5])


def test_excitation_cond_matches_the_reduced_stacked_regressor():
    from robidlib.base import base_parameters
    from robidlib.regressor import friction_regressor, regressor, stack

    arm = _arm()
    traj = _guess().evaluate(np.linspace(0.0, 4.0, 60))
    for friction in (False, True):
        bp = base_parameters(arm, friction=friction, rng=0)
        Y = regressor(arm, *traj)
        if friction:
            Y = np.concatenate([Y, friction_regressor(traj.qd)], axis=-1)
        W, _ = stack(Y, np.zeros((60, 2)))
        Wb = bp.reduce(W)
        assert excitation_cond(arm, traj, base=bp, friction=friction, scaling="none") == pytest.approx(
            np.linalg.cond(Wb), rel=1e-10)
        Wn = Wb / np.linalg.norm(Wb, axis=0)
        c_cols = excitation_cond(arm, traj, friction=friction)
        assert c_cols == pytest.approx(np.linalg.cond(Wn), rel=1e-10)
        # equilibration is within sqrt(r) of the best column scaling, so never much worse
        # than the raw matrix and here (mixed units) clearly better
        assert c_cols <= np.sqrt(bp.rank) * np.linalg.cond(Wb)
    # a static arm excites no inertia: singular, reported as 1e16
    still = Trajectory(traj.t, np.full((60, 2), 0.3), np.zeros((60, 2)), np.zeros((60, 2)))
    assert excitation_cond(arm, still) == 1e16


def test_excitation_cond_bad_input():
    from robidlib.base import base_parameters

    arm = _arm()
    traj = _guess().evaluate(np.linspace(0.0, 4.0, 30))
    with pytest.raises(TypeError, match="traj must be a robidlib.trajectories.Trajectory"):
        excitation_cond(arm, (traj.q, traj.qd, traj.qdd))
    with pytest.raises(ValueError, match="traj must have 2 joints"):
        excitation_cond(arm, Trajectory(traj.t, traj.q[:, :1], traj.qd[:, :1], traj.qdd[:, :1]))
    with pytest.raises(ValueError, match="unknown scaling 'rows'"):
        excitation_cond(arm, traj, scaling="rows")
    with pytest.raises(ValueError, match="base must describe the robot's 24 standard parameters .*, got 20"):
        excitation_cond(arm, traj, base=base_parameters(arm, rng=0), friction=True)
    with pytest.raises(TypeError, match="friction must be True or False"):
        excitation_cond(arm, traj, friction="yes")
    with pytest.raises(TypeError, match="robot must be a robidlib.robot.SerialRobot"):
        excitation_cond(object(), traj)


def test_random_fourier_fits_the_limits_and_is_reproducible():
    arm = _arm()
    ft = random_fourier(arm, WF, 3, rng=5, qd_max=[1.0, 1.5], fill=0.7)
    assert (ft.n_joints, ft.n_harmonics) == (2, 3)
    np.testing.assert_array_equal(ft.pack(), random_fourier(arm, WF, 3, rng=5, qd_max=[1.0, 1.5], fill=0.7).pack())
    assert not np.allclose(ft.pack(), random_fourier(arm, WF, 3, rng=6, qd_max=[1.0, 1.5], fill=0.7).pack())
    np.testing.assert_allclose(ft.q0, 0.0)  # centre of the default [-pi, pi]
    traj = ft.evaluate(np.linspace(0.0, ft.period, 3000))
    lim = dict(q_min=arm.q_limits[:, 0], q_max=arm.q_limits[:, 1], qd_max=[1.0, 1.5], qdd_max=arm.qdd_limits)
    margins = limit_margins(traj, **lim)
    assert np.all(margins > 0)
    # the tightest limit is used to the fraction `fill` (on the fine grid, to its resolution)
    used = 1 - np.concatenate([margins[:4] / np.pi, margins[4:6] / [1.0, 1.5], margins[6:] / 10.0])
    assert used.max() == pytest.approx(0.7, abs=2e-3)
    # an explicit generator is consumed, giving new draws
    gen = np.random.default_rng(0)
    assert not np.allclose(random_fourier(arm, WF, 2, gen).pack(), random_fourier(arm, WF, 2, gen).pack())


def test_random_fourier_bad_input():
    arm = _arm()
    with pytest.raises(ValueError, match=r"fill must be in \(0, 1\]"):
        random_fourier(arm, WF, 2, rng=0, fill=1.5)
    with pytest.raises(ValueError, match="every limit is infinite"):
        random_fourier(arm, WF, 2, rng=0, q_min=-np.inf, q_max=np.inf, qd_max=np.inf, qdd_max=np.inf)
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator or an int seed"):
        random_fourier(arm, WF, 2, rng=None)
    with pytest.raises(ValueError, match="qd_max must be > 0"):
        random_fourier(arm, WF, 2, rng=0, qd_max=-1.0)
    with pytest.raises(ValueError, match="n_harmonics must be >= 1"):
        random_fourier(arm, WF, 0, rng=0)


def test_optimize_excitation_improves_cond_within_limits():
    arm = _arm()
    lim = dict(qd_max=[1.0, 1.5], qdd_max=[4.0, 6.0])
    res = optimize_excitation(arm, _guess(), maxiter=40, **lim)
    assert isinstance(res, ExcitationResult)
    assert res.cond < 0.7 * res.cond_initial and res.improvement == pytest.approx(res.cond_initial / res.cond)
    # reported numbers are those of excitation_cond on the evaluation grid
    assert res.cond == pytest.approx(excitation_cond(arm, res.trajectory.evaluate(res.t_eval)), rel=1e-9)
    assert res.cond_initial == pytest.approx(excitation_cond(arm, _guess().evaluate(res.t_eval)), rel=1e-9)
    assert res.history[-1] < res.history[0]
    assert res.start_conds.shape == (1,) and res.best_start == 0
    # limits hold on a grid finer than any used by the optimiser
    fine = res.trajectory.evaluate(np.linspace(0.0, res.trajectory.period, 5001))
    assert np.all(limit_margins(fine, q_min=-np.pi, q_max=np.pi, **lim) >= -1e-9)
    assert res.initial is not res.trajectory and res.trajectory.wf == WF
    assert "cond" in repr(res)


def test_optimize_excitation_multistart_is_reproducible_and_keeps_the_best():
    arm = _arm()
    kw = dict(n_starts=2, rng=11, maxiter=5, friction=True, qd_max=1.5, qdd_max=6.0)
    r1 = optimize_excitation(arm, _guess(), **kw)
    r2 = optimize_excitation(arm, _guess(), **kw)
    np.testing.assert_array_equal(r1.trajectory.pack(), r2.trajectory.pack())
    np.testing.assert_array_equal(r1.start_conds, r2.start_conds)
    assert r1.start_conds.shape == (2,)
    assert r1.cond == r1.start_conds.min() == r1.start_conds[r1.best_start]
    assert r1.base.n_params == 24  # friction columns included
    r3 = optimize_excitation(arm, _guess(), **{**kw, "rng": 12})
    assert not np.array_equal(r3.start_conds[1:], r1.start_conds[1:])


def test_optimize_excitation_contracts_a_result_that_overshoots_between_samples():
    arm = _arm()
    # 4 constraint samples per period and no margin: the optimiser may exceed the limits
    # between them; the result is scaled back onto the limits of the fine grid
    res = optimize_excitation(arm, _guess(), qd_max=1.0, qdd_max=4.0, n_constraint=4, margin=0.0, maxiter=30)
    assert res.info["contraction"] < 1.0
    fine = res.trajectory.evaluate(res.t_eval)
    m = limit_margins(fine, qd_max=1.0, qdd_max=4.0)
    assert np.all(m >= -1e-9) and np.min(m) < 1e-6


def test_optimize_excitation_bad_input():
    arm = _arm()
    with pytest.raises(ValueError, match=r"the initial guess violates its limits: joint 1 \|qd\| exceeds qd_max=0.2"):
        optimize_excitation(arm, _guess(), qd_max=0.2)
    with pytest.raises(ValueError, match="the initial guess violates its limits: joint 2 q exceeds q_max=0.4"):
        optimize_excitation(arm, _guess(), q_max=0.4)
    still = FourierTrajectory(WF, np.zeros((2, 2)), np.zeros((2, 2)), [0.1, 0.2])
    with pytest.raises(ValueError, match="does not excite every base parameter"):
        optimize_excitation(arm, still)
    with pytest.raises(TypeError, match="initial must be a robidlib.trajectories.FourierTrajectory"):
        optimize_excitation(arm, _guess().evaluate(np.linspace(0, 1, 10)))
    with pytest.raises(ValueError, match="initial must have 2 joints"):
        optimize_excitation(arm, FourierTrajectory(WF, [[0.1]], [[0.1]], [0.0]))
    with pytest.raises(ValueError, match="random starts need a seed"):
        optimize_excitation(arm, _guess(), n_starts=2)
    with pytest.raises(ValueError, match=r"margin must be in \[0, 1\)"):
        optimize_excitation(arm, _guess(), margin=1.0)
    with pytest.raises(ValueError, match="unknown scaling"):
        optimize_excitation(arm, _guess(), scaling="rows")
    with pytest.raises(ValueError, match="q_min must be below q_max"):
        optimize_excitation(arm, _guess(), q_min=1.0, q_max=0.0)
    with pytest.raises(TypeError, match="n_starts must be an int"):
        optimize_excitation(arm, _guess(), n_starts=2.0, rng=0)


def test_docstring_examples_run():
    import doctest

    import robidlib.trajectories as mod

    result = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 12 and result.failed == 0


# --- stored excitations -------------------------------------------------------------------

def test_save_and_load_excitation_round_trip(tmp_path):
    from robidlib.trajectories import load_excitation, save_excitation, stored_excitations

    ft = FourierTrajectory(wf=0.7, a=[[0.5, 0.2], [0.1, -0.3]], b=[[0.0, -0.1], [0.2, 0.0]], q0=[0.3, -0.1])
    path = save_excitation(ft, "two-joints_1", meta={"robot": "planar_2r", "cond": 12.5}, directory=tmp_path)
    assert path.name == "two-joints_1.json"
    ft2, meta = load_excitation("two-joints_1", directory=tmp_path)
    assert np.array_equal(ft2.pack(), ft.pack()) and ft2.wf == ft.wf and meta == {"robot": "planar_2r", "cond": 12.5}
    assert stored_excitations(directory=tmp_path) == ["two-joints_1"]


def test_stored_excitation_bad_input(tmp_path):
    from robidlib.trajectories import load_excitation, save_excitation

    ft = FourierTrajectory(wf=0.7, a=[[0.5]], b=[[0.0]], q0=[0.3])
    with pytest.raises(TypeError, match="trajectory must be a FourierTrajectory"):
        save_excitation(np.zeros(3), "x", directory=tmp_path)
    with pytest.raises(ValueError, match="name must be non-empty lower-case"):
        save_excitation(ft, "Bad Name", directory=tmp_path)
    with pytest.raises(TypeError, match="name must be a string"):
        load_excitation(3, directory=tmp_path)
    with pytest.raises(TypeError, match="meta must be a dict"):
        save_excitation(ft, "x", meta=[1], directory=tmp_path)
    with pytest.raises(ValueError, match="JSON-serialisable"):
        save_excitation(ft, "x", meta={"v": float("nan")}, directory=tmp_path)
    with pytest.raises(ValueError, match="no stored excitation 'missing'"):
        load_excitation("missing", directory=tmp_path)
    (tmp_path / "junk.json").write_text('{"format": "other"}')
    with pytest.raises(ValueError, match="is not a stored robidlib excitation"):
        load_excitation("junk", directory=tmp_path)


# --- polynomial excitation (Urrea and Pascal 2017, eq. 39) ----------------------------------

def test_polynomial_trajectory_derivatives_monomials_and_periodic_part():
    from robidlib.trajectories import PolynomialTrajectory

    c = [[0.1, 0.5, -0.3, 0.2, 0.1, -0.05], [0.0, -0.2, 0.4, 0.0, -0.1, 0.02]]
    per = FourierTrajectory(WF, a=[[0.0], [0.3]], b=[[0.0], [0.1]], q0=[0.0, 0.2])
    pt = PolynomialTrajectory(4.0, c, per)
    assert (pt.n_joints, pt.degree, pt.n_params, pt.period) == (2, 5, 12, 4.0)
    t = np.linspace(0.0, 4.0, 4001)
    traj = pt.evaluate(t)
    _fd_check(traj, rtol=1e-5)
    # the paper's monomials in t give the same polynomial part
    a = pt.monomials()
    poly = np.stack([np.polyval(a[i, ::-1], t) for i in range(2)], axis=1)
    np.testing.assert_allclose(poly + per.evaluate(t).q, traj.q, atol=1e-12)
    # pack / with_coefficients round trip keeps the window and the periodic part
    pt2 = pt.with_coefficients(pt.pack())
    np.testing.assert_array_equal(pt2.c, pt.c)
    assert pt2.periodic is per and pt2.T == 4.0


def test_polynomial_basis_is_the_linear_map_of_the_coefficients():
    from robidlib.trajectories import PolynomialTrajectory, polynomial_basis

    rng = np.random.default_rng(3)
    pt = PolynomialTrajectory(2.5, rng.normal(size=(3, 6)))
    t = np.linspace(0.0, 2.5, 17)
    B = polynomial_basis(t, 2.5, 3, 5)
    traj = pt.evaluate(t)
    for Bk, v in zip(B, traj):
        assert Bk.shape == (17 * 3, 18)
        np.testing.assert_allclose(Bk @ pt.pack(), v.ravel(), atol=1e-12)
    # degree 1 has no acceleration
    assert not np.any(polynomial_basis(t, 2.5, 1, 1)[2])


def test_polynomial_trajectory_bad_input():
    from robidlib.trajectories import PolynomialTrajectory, polynomial_basis

    with pytest.raises(ValueError, match="T must be"):
        PolynomialTrajectory(0.0, [[0.0, 1.0]])
    with pytest.raises(ValueError, match="degree d >= 1"):
        PolynomialTrajectory(1.0, [[0.0]])
    with pytest.raises(ValueError, match="c must"):
        PolynomialTrajectory(1.0, [0.0, 1.0])
    with pytest.raises(ValueError):
        PolynomialTrajectory(1.0, [[0.0, np.nan]])
    with pytest.raises(TypeError, match="periodic must be a FourierTrajectory"):
        PolynomialTrajectory(1.0, [[0.0, 1.0]], periodic=np.zeros(3))
    with pytest.raises(ValueError, match="periodic must have 1 joints"):
        PolynomialTrajectory(1.0, [[0.0, 1.0]], periodic=_guess())
    pt = PolynomialTrajectory(1.0, [[0.0, 1.0]])
    with pytest.raises(ValueError, match=r"t must lie in \[0, T\]"):
        pt.evaluate([0.0, 1.5])
    with pytest.raises(ValueError, match="x must have length"):
        pt.with_coefficients([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="degree must be >= 1"):
        polynomial_basis([0.0], 1.0, 1, 0)
    with pytest.raises(TypeError, match="n_joints must be an int"):
        polynomial_basis([0.0], 1.0, 1.0, 2)


def test_random_polynomial_fits_the_limits_keeps_fixed_joints_and_is_reproducible():
    from robidlib.trajectories import random_polynomial

    arm = _arm()
    per = FourierTrajectory(WF, a=[[0.4], [0.0]], b=[[0.0], [0.0]], q0=[0.3, 0.0])
    pt = random_polynomial(arm, 4.0, rng=2, free=[1], periodic=per, fill=0.6)
    np.testing.assert_array_equal(pt.c[0], 0.0)              # joint 1 moves with per only
    np.testing.assert_array_equal(pt.pack(), random_polynomial(arm, 4.0, rng=2, free=[1], periodic=per,
                                                               fill=0.6).pack())
    traj = pt.evaluate(np.linspace(0.0, 4.0, 2000))
    assert np.all(limit_margins(traj, qd_max=arm.qd_limits, qdd_max=arm.qdd_limits) > 0)
    with pytest.raises(ValueError, match=r"fill must be in \(0, 1\]"):
        random_polynomial(arm, 4.0, rng=0, fill=2.0)
    with pytest.raises(ValueError, match="free must hold distinct joint indices"):
        random_polynomial(arm, 4.0, rng=0, free=[0, 2])
    with pytest.raises(ValueError, match="free must be a non-empty sequence"):
        random_polynomial(arm, 4.0, rng=0, free=[])
    with pytest.raises(TypeError, match="rng must be"):
        random_polynomial(arm, 4.0, rng=None)
    fast = FourierTrajectory(WF, a=[[50.0], [0.0]], b=[[0.0], [0.0]], q0=[0.0, 0.0])
    with pytest.raises(ValueError, match="already violates the limits"):
        random_polynomial(arm, 4.0, rng=0, free=[1], periodic=fast)


def test_optimize_polynomial_excitation_improves_cond_within_limits_and_keeps_fixed_joints():
    from robidlib.trajectories import optimize_polynomial_excitation, random_polynomial

    arm = _arm()
    per = FourierTrajectory(WF, a=[[0.6], [0.0]], b=[[0.0], [0.0]], q0=[0.2, 0.0])
    start = random_polynomial(arm, 4.0, rng=1, free=[1], periodic=per)
    res = optimize_polynomial_excitation(arm, start, free=[1], maxiter=30)
    assert res.cond < res.cond_initial
    np.testing.assert_array_equal(res.trajectory.c[0], start.c[0])     # joint 1 untouched
    assert res.trajectory.periodic is per
    traj = res.trajectory.evaluate(res.t_eval)
    assert res.cond == pytest.approx(excitation_cond(arm, traj), rel=1e-9)
    assert np.all(limit_margins(traj, q_min=arm.q_limits[:, 0], q_max=arm.q_limits[:, 1], qd_max=arm.qd_limits,
                                qdd_max=arm.qdd_limits) >= 0)
    assert "polynomial" in repr(res) and res.info["free"] == [1]
    # multi-start: reproducible with a seed, and never worse than its first start alone
    kw = dict(free=[1], maxiter=10, n_starts=2, rng=3)
    r1, r2 = (optimize_polynomial_excitation(arm, start, **kw) for _ in range(2))
    np.testing.assert_array_equal(r1.trajectory.pack(), r2.trajectory.pack())
    assert r1.cond == min(r1.start_conds)


def test_optimize_polynomial_excitation_bad_input():
    from robidlib.trajectories import PolynomialTrajectory, optimize_polynomial_excitation, random_polynomial

    arm = _arm()
    start = random_polynomial(arm, 4.0, rng=1)
    with pytest.raises(TypeError, match="initial must be a robidlib.trajectories.PolynomialTrajectory"):
        optimize_polynomial_excitation(arm, _guess())
    with pytest.raises(ValueError, match="initial must have 2 joints"):
        optimize_polynomial_excitation(arm, PolynomialTrajectory(4.0, [[0.0, 1.0]]))
    with pytest.raises(ValueError, match="the initial guess violates its limits"):
        optimize_polynomial_excitation(arm, start, qd_max=1e-3)
    with pytest.raises(ValueError, match="does not excite every base parameter"):
        optimize_polynomial_excitation(arm, PolynomialTrajectory(4.0, np.zeros((2, 6))))
    with pytest.raises(ValueError, match="need a seed"):
        optimize_polynomial_excitation(arm, start, n_starts=2)
    with pytest.raises(ValueError, match=r"margin must be in \[0, 1\)"):
        optimize_polynomial_excitation(arm, start, margin=1.0)
    with pytest.raises(ValueError, match="scaling"):
        optimize_polynomial_excitation(arm, start, scaling="rows")
    with pytest.raises(ValueError, match="free must hold distinct"):
        optimize_polynomial_excitation(arm, start, free=[5])
    with pytest.raises(TypeError, match="robot must be"):
        optimize_polynomial_excitation(object(), start)


def test_save_and_load_a_polynomial_excitation(tmp_path):
    from robidlib.trajectories import PolynomialTrajectory, load_excitation, save_excitation

    per = FourierTrajectory(WF, a=[[0.0], [0.3]], b=[[0.0], [0.1]], q0=[0.0, 0.2])
    pt = PolynomialTrajectory(4.0, [[0.1, 0.5, -0.3], [0.0, 0.2, 0.1]], per)
    save_excitation(pt, "poly", meta={"cond": 3.0}, directory=tmp_path)
    pt2, meta = load_excitation("poly", directory=tmp_path)
    assert isinstance(pt2, PolynomialTrajectory) and meta == {"cond": 3.0}
    np.testing.assert_array_equal(pt2.c, pt.c)
    np.testing.assert_array_equal(pt2.periodic.pack(), per.pack())
    save_excitation(PolynomialTrajectory(4.0, [[0.0, 1.0]]), "bare", directory=tmp_path)
    assert load_excitation("bare", directory=tmp_path)[0].periodic is None
