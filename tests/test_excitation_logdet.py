"""The D-optimal criterion of an excitation: log det of the information matrix of the base parameters."""
import numpy as np
import pytest

from robidlib.base import base_parameters
from robidlib.models import planar_2r
from robidlib.regressor import regressor
from robidlib.trajectories import (FourierTrajectory, excitation_cond, excitation_logdet, fourier_series,
                                   optimize_excitation)

ARM = planar_2r()
T = np.linspace(0.0, 5.0, 300, endpoint=False)
TRAJ = fourier_series(T, 2 * np.pi / 5, a=[[0.4, 0.2], [-0.4, 0.6]], b=[[0.2, 0.0], [0.0, -0.2]], q0=[0.3, -0.5])


def test_from_scratch():
    bp = base_parameters(ARM, rng=0)
    Wb = bp.reduce(regressor(ARM, TRAJ.q, TRAJ.qd, TRAJ.qdd)).reshape(-1, bp.rank)
    sign, ld = np.linalg.slogdet(Wb.T @ Wb / T.size)
    assert sign > 0 and abs(excitation_logdet(ARM, TRAJ, base=bp) - ld) < 1e-9 * abs(ld)


def test_units_shift_every_design_alike():
    # kg -> g on every parameter multiplies the columns by 1e-3: log det moves by 2 r log(1e-3) for every
    # trajectory, so the ranking of designs does not depend on units (the condition number's does)
    bp = base_parameters(ARM, rng=0)
    other = fourier_series(T, 2 * np.pi / 5, a=[[0.2, 0.1], [-0.3, 0.2]], b=[[0.1, 0.0], [0.0, -0.1]], q0=[0.3, -0.5])
    d = excitation_logdet(ARM, TRAJ, base=bp) - excitation_logdet(ARM, other, base=bp)
    assert d > 0
    assert excitation_logdet(ARM, TRAJ, base=bp, friction=False) == excitation_logdet(ARM, TRAJ)


def test_singular_design_is_minus_infinity():
    still = fourier_series(T, 2 * np.pi / 5, a=np.zeros((2, 2)), b=np.zeros((2, 2)), q0=[0.3, -0.5])
    assert excitation_logdet(ARM, still) == -np.inf


def test_the_optimiser_raises_log_det_from_the_same_start():
    start = FourierTrajectory(2 * np.pi / 5, a=[[0.3, 0.1], [0.2, 0.1]], b=[[0.0, 0.1], [0.1, 0.0]], q0=[0.0, 0.5])
    d = optimize_excitation(ARM, start, criterion="logdet", maxiter=30)
    c = optimize_excitation(ARM, start, criterion="cond", maxiter=30)
    assert d.info["criterion"] == "logdet" and d.info["logdet"] > d.info["logdet_initial"]
    # each improves its own criterion over the start (which is better by the other's is not guaranteed by a
    # truncated local optimiser, so it is not asserted)
    assert c.cond < c.cond_initial and c.info["criterion"] == "cond"
    ev = d.trajectory.evaluate(d.t_eval)
    assert abs(excitation_logdet(ARM, ev, base=d.base) - d.info["logdet"]) < 1e-9 * abs(d.info["logdet"])
    assert excitation_cond(ARM, ev, base=d.base) == pytest.approx(d.cond)


def test_bad_input():
    with pytest.raises(TypeError, match="traj"):
        excitation_logdet(ARM, "traj")
    with pytest.raises(TypeError, match="friction"):
        excitation_logdet(ARM, TRAJ, friction="yes")
    with pytest.raises(ValueError, match="base"):
        excitation_logdet(ARM, TRAJ, base=base_parameters(ARM, friction=True, rng=0))
    with pytest.raises(ValueError, match="criterion"):
        optimize_excitation(ARM, FourierTrajectory(1.0, [[0.1], [0.1]], [[0.0], [0.0]], [0.0, 0.0]), criterion="a")
