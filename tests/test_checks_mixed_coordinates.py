import numpy as np
import pytest

from robidlib.checks import mixed_coordinates
from robidlib.multibody import models, solve_velocities


def test_reduced_to_full(capsys):
    good = lambda q: np.r_[q, np.cross(q[3:6], q[6:9])]  # noqa: E731
    assert mixed_coordinates.check_reduced_to_full(good)
    assert "\u2714" in capsys.readouterr().out
    assert not mixed_coordinates.check_reduced_to_full(lambda q: np.r_[q, np.cross(q[6:9], q[3:6])])
    assert "wrong sign" in capsys.readouterr().out
    assert not mixed_coordinates.check_reduced_to_full(lambda q: np.r_[q, q[3:6]])
    assert "cross product" in capsys.readouterr().out
    assert not mixed_coordinates.check_reduced_to_full(lambda q: np.r_[q[:6], q[3:6], np.cross(q[3:6], q[6:9])])
    assert "unchanged" in capsys.readouterr().out
    assert not mixed_coordinates.check_reduced_to_full(lambda q: np.cross(q[3:6], q[6:9]))        # shape (3,)
    assert "shape (12,)" in capsys.readouterr().out
    assert not mixed_coordinates.check_reduced_to_full(lambda q: 1 / 0)
    assert "ZeroDivisionError" in capsys.readouterr().out
    with pytest.raises(TypeError, match="func must be a function"):
        mixed_coordinates.check_reduced_to_full(np.zeros(9))


def _mass(m, inertia):
    J = (np.sum(inertia) - 2 * np.asarray(inertia)) / 2
    return np.diag(np.repeat(np.r_[m, J], 3))


def test_body_mass_matrix(capsys):
    assert mixed_coordinates.check_body_mass_matrix(_mass)
    # the moments of inertia instead of the second moments: a typical mistake
    assert not mixed_coordinates.check_body_mass_matrix(lambda m, I: np.diag(np.repeat(np.r_[m, I], 3)))
    assert "second moments" in capsys.readouterr().out
    assert not mixed_coordinates.check_body_mass_matrix(lambda m, I: _mass(1.0, I))             # wrong mass
    assert "m I3" in capsys.readouterr().out
    assert not mixed_coordinates.check_body_mass_matrix(lambda m, I: _mass(m, I[::-1]))           # axes swapped
    assert "differs" in capsys.readouterr().out
    assert not mixed_coordinates.check_body_mass_matrix(lambda m, I: np.eye(9))
    assert "(12, 12)" in capsys.readouterr().out
    assert not mixed_coordinates.check_body_mass_matrix(lambda m, I: I["xx"])
    with pytest.raises(TypeError, match="func must be a function"):
        mixed_coordinates.check_body_mass_matrix("diag")


def test_weight_scaling(capsys):
    w = np.logspace(0, -6, 7)
    assert mixed_coordinates.check_weight_scaling(w, 0.01 * w)
    # saturating at the weight 1 end is fine: only weights <= 1e-2 count
    v = 0.01 * w / (1 + 5 * w)
    assert mixed_coordinates.check_weight_scaling(w, v)
    assert not mixed_coordinates.check_weight_scaling(w, 0.01 * np.sqrt(w))
    assert "expected an exponent near 1" in capsys.readouterr().out
    assert not mixed_coordinates.check_weight_scaling([1.0, 0.1, 0.01], [1e-3, 1e-4, 1e-5])    # too few small weights
    assert not mixed_coordinates.check_weight_scaling(w, np.r_[0.0, 0.01 * w[1:]])              # zero violation
    assert not mixed_coordinates.check_weight_scaling(w, np.r_[np.nan, 0.01 * w[1:]])
    with pytest.raises(TypeError, match="same length"):
        mixed_coordinates.check_weight_scaling(w, w[:3])
    with pytest.raises(TypeError, match="numeric sequences"):
        mixed_coordinates.check_weight_scaling(["a", "b", "c"], [1, 2, 3])


def test_consistent_velocities(capsys):
    m = models.simple_chain()
    ref = m.reference_motion(duration=0.03)
    qd = solve_velocities(m.system, ref.q, angle_rates=ref.phid)
    assert mixed_coordinates.check_consistent_velocities(m.system, ref.q, qd, ref.phid)
    assert mixed_coordinates.check_consistent_velocities(m.system, ref.q[1], ref.qd[1], ref.phid[1])   # one frame
    bad = qd.copy()
    bad[:, 0] += 0.1                                  # moves O of the first body off its joint
    assert not mixed_coordinates.check_consistent_velocities(m.system, ref.q, bad, ref.phid)
    assert "Phi_q qd = 0 is violated" in capsys.readouterr().out
    assert not mixed_coordinates.check_consistent_velocities(m.system, ref.q, qd, 2 * ref.phid)
    assert "angle rates" in capsys.readouterr().out
    assert not mixed_coordinates.check_consistent_velocities(m.system, ref.q, qd[:, :-1], ref.phid)
    assert not mixed_coordinates.check_consistent_velocities(m.system, ref.q, qd, ref.phid[:, :2])
    assert not mixed_coordinates.check_consistent_velocities(m.system, ref.q[:, :5], qd, ref.phid)
    nan = qd.copy()
    nan[0, 0] = np.nan
    assert not mixed_coordinates.check_consistent_velocities(m.system, ref.q, nan, ref.phid)
    with pytest.raises(TypeError, match="system must be a MultibodySystem"):
        mixed_coordinates.check_consistent_velocities(m, ref.q, qd, ref.phid)
    with pytest.raises(TypeError, match="numeric arrays"):
        mixed_coordinates.check_consistent_velocities(m.system, ref.q, "qd", ref.phid)
