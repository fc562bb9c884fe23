"""Tests of robidlib.multibody.models: chain models, reference motion, marker perturbations."""

from __future__ import annotations

import numpy as np
import pytest

from robidlib.multibody import models
from robidlib.multibody.models import Link, open_chain, perturb_markers

MODELS = {"simple": models.simple_chain(), "five": models.five_body_chain()}


@pytest.mark.parametrize("name", list(MODELS))
def test_reference_motion_is_consistent_with_the_model(name):
    model = MODELS[name]
    s = model.system
    ref = model.reference_motion()
    nb = len(model.links)
    assert ref.t.shape == (301,) and ref.t[-1] == pytest.approx(3.0)
    assert ref.markers.shape == (301, 3 * nb, 3) and s.marker_names[0] == "P1"
    assert s.n_dof == nb
    # theta = phi + pi/2 stays inside (0, pi), away from the MCR singularities
    assert 0.1 < ref.theta.min() and ref.theta.max() < np.pi - 0.1
    for k in range(0, 301, 37):
        assert np.abs(s.phi(ref.q[k])).max() < 1e-13
        J = s.jacobian(ref.q[k])
        assert np.abs(J @ ref.qd[k]).max() < 1e-12
        np.testing.assert_allclose(J @ ref.qdd[k], s.gamma(ref.q[k], ref.qd[k]), atol=1e-11)
    # analytic derivatives agree with finite differences of the positions
    fine = model.reference_motion(duration=0.05, rate=10000.0)
    qd_fd = np.gradient(fine.q, fine.t, axis=0)[1:-1]
    np.testing.assert_allclose(qd_fd, fine.qd[1:-1], atol=1e-5)
    qdd_fd = np.gradient(fine.qd, fine.t, axis=0)[1:-1]
    np.testing.assert_allclose(qdd_fd, fine.qdd[1:-1], atol=1e-4)
    np.testing.assert_allclose(np.gradient(fine.markers, fine.t, axis=0)[1:-1],
                               fine.marker_velocities[1:-1], atol=1e-5)


def test_zero_configuration_and_serial_robot_data():
    model = MODELS["simple"]
    q0 = model.zero_coordinates()
    np.testing.assert_allclose(q0[:3], model.links[0].com)
    np.testing.assert_allclose(model.joint_angles(q0[-3:]), 0.0)
    data = model.serial_robot_data()
    np.testing.assert_allclose(data["joint_origins"][1, :3, 3], [0, 0, 0.30])
    p = data["params"].reshape(3, 10)
    np.testing.assert_allclose(p[:, 0], [2.0, 2.5, 2.0])
    np.testing.assert_allclose(p[1, 1:4], 2.5 * np.array([0.20, 0.0, 0.01]))       # m * c
    # parallel axis: Iyy about the joint of link2 = Iyy_c + m (cx^2 + cz^2)
    assert p[1, 5] == pytest.approx(0.036 + 2.5 * (0.2**2 + 0.01**2))


def test_perturb_markers_is_bounded_and_reproducible():
    ref = MODELS["simple"].reference_motion(duration=1.0).markers
    radius = np.full(9, 0.0075)
    radius[[4, 8]] = 0.013                     # two points of the chain perturbed more
    radius[0] = 0.0
    a = perturb_markers(ref, radius, rng=3)
    b = perturb_markers(ref, radius, np.random.default_rng(3))
    np.testing.assert_array_equal(a, b)
    d = np.linalg.norm(a - ref, axis=-1)
    assert np.all(d <= radius + 1e-15)
    assert d[:, 4].max() > 0.0075 and d[:, 1].max() > 0.8 * 0.0075    # the balls are used
    np.testing.assert_array_equal(d[:, 0], 0.0)
    assert not np.array_equal(a, perturb_markers(ref, radius, rng=4))
    # smooth (soft-tissue-like) artefacts reach exactly the maximum and vary slowly
    s = perturb_markers(ref, 0.03, rng=5, kind="smooth", rate=100.0)
    ds = np.linalg.norm(s - ref, axis=-1)
    np.testing.assert_allclose(ds.max(axis=0), 0.03)
    assert np.abs(np.diff(s - ref, axis=0)).max() < 0.1 * 0.03
    assert np.abs(np.diff(a - ref, axis=0)).max() > 0.5 * 0.0075


def test_bad_model_input():
    ref = np.zeros((4, 2, 3))
    with pytest.raises(ValueError, match=r"max_perturbation must be a scalar or have shape \(2,\)"):
        perturb_markers(ref, [0.01, 0.01, 0.01], rng=0)
    with pytest.raises(ValueError, match="max_perturbation must be >= 0"):
        perturb_markers(ref, -0.01, rng=0)
    with pytest.raises(ValueError, match="markers must have shape"):
        perturb_markers(np.zeros((4, 2, 2)), 0.01, rng=0)
    with pytest.raises(TypeError, match="rng"):
        perturb_markers(ref, 0.01, rng=None)
    with pytest.raises(ValueError, match="unknown kind"):
        perturb_markers(ref, 0.01, rng=0, kind="pink")
    lk = Link("a", "nowhere", [0, 0, 0], [0, 0, 1], [0, 0, 0.1], 1.0, [0.01, 0.01, 0.01],
              [[0.1, 0, 0], [0, 0.1, 0], [0, 0, 0.2]])
    with pytest.raises(ValueError, match="parent 'nowhere'"):
        open_chain("bad", [lk])
    ok = Link("a", "ground", [0, 0, 0], [0, 0, 1], [0, 0, 0.1], 1.0, [0.01, 0.01, 0.01],
              [[0.1, 0, 0], [0, 0.1, 0], [0, 0, 0.2]])
    with pytest.raises(ValueError, match="amplitudes"):
        open_chain("bad", [ok], amplitudes=[[1.2, 0.5]])
    with pytest.raises(ValueError, match="duration must be > 0"):
        MODELS["simple"].reference_motion(duration=0.0)
    with pytest.raises(ValueError, match=r"phi must have shape \(N, 3\)"):
        MODELS["simple"].forward_kinematics(np.zeros((2, 4)))
