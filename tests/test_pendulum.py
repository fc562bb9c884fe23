import numpy as np
import pytest

from robidlib.models import Motion, Pendulum


def test_params_and_regressor_reproduce_torque():
    p = Pendulum(I=0.02, m=1.5, l=0.3, b=0.2, g=9.81)
    np.testing.assert_allclose(p.params, [0.02 + 1.5 * 0.09, 1.5 * 9.81 * 0.3, 0.2])
    rng = np.random.default_rng(0)
    q, qd, qdd = rng.normal(size=(3, 40))
    Y = p.regressor(q, qd, qdd)
    assert Y.shape == (40, 3)
    np.testing.assert_allclose(Y[:, 1], np.sin(q))
    direct = (p.I + p.m * p.l**2) * qdd + p.m * p.g * p.l * np.sin(q) + p.b * qd
    np.testing.assert_allclose(p.torque(q, qd, qdd), direct, rtol=1e-13)


def test_forward_inverse_roundtrip_and_scalar_input():
    p = Pendulum()
    tau = p.torque(0.3, -0.2, 1.7)
    assert tau.shape == (1,)
    np.testing.assert_allclose(p.acceleration(0.3, -0.2, tau), [1.7], rtol=1e-12)


def test_simulation_matches_small_angle_solution():
    # frictionless small oscillation: q(t) = q0 cos(omega t), omega^2 = m g l / (I + m l^2)
    p = Pendulum(b=0.0)
    t = np.linspace(0, 3, 301)
    m = p.simulate(t, 0.0, q0=1e-4)
    omega = np.sqrt(p.params[1] / p.params[0])
    np.testing.assert_allclose(m.q, 1e-4 * np.cos(omega * t), atol=1e-10)
    assert isinstance(m, Motion)


def test_simulation_conserves_energy_without_friction():
    p = Pendulum(b=0.0)
    t = np.linspace(0, 5, 501)
    m = p.simulate(t, q0=2.0)
    e = p.energy(m.q, m.qd)
    assert np.ptp(e) / abs(e[0]) < 1e-8


def test_simulation_torque_array_and_callable_agree():
    p = Pendulum()
    t = np.linspace(0, 4, 4001)
    u = 0.5 * np.sin(2 * t)
    m1 = p.simulate(t, u)
    m2 = p.simulate(t, lambda tt, q, qd: 0.5 * np.sin(2 * tt))
    np.testing.assert_allclose(m1.q, m2.q, atol=1e-6)
    np.testing.assert_allclose(p.torque(m2.q, m2.qd, m2.qdd), m2.tau, atol=1e-12)


@pytest.mark.parametrize(
    "kwargs, match",
    [({"m": 0.0}, "m must be > 0"), ({"l": -1.0}, "l must be > 0"), ({"I": -0.1}, "I must be >= 0"),
     ({"b": float("nan")}, "b must be finite"), ({"g": 0}, "g must be > 0")],
)
def test_bad_physical_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Pendulum(**kwargs)


def test_bad_inputs():
    p = Pendulum()
    with pytest.raises(ValueError, match="same number of samples"):
        p.regressor(np.zeros(3), np.zeros(4), np.zeros(3))
    with pytest.raises(ValueError, match="qd must be finite"):
        p.regressor(np.zeros(3), [0, np.nan, 0], np.zeros(3))
    with pytest.raises(ValueError, match="q must have 0 or 1 dimension"):
        p.regressor(np.zeros((3, 2)), np.zeros(3), np.zeros(3))
    with pytest.raises(ValueError, match="strictly increasing"):
        p.simulate(np.array([0.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match=r"torque must have shape \(5,\)"):
        p.simulate(np.linspace(0, 1, 5), np.zeros(4))
    with pytest.raises(TypeError, match="torque must be numeric"):
        p.simulate(np.linspace(0, 1, 5), "zero")
    with pytest.raises(ValueError, match="torque returned non-finite"):
        p.simulate(np.linspace(0, 0.1, 5), lambda t, q, qd: np.inf if t > 0.05 else 0.0)


def test_pendulum_simulation_bounds_its_effort():
    p = Pendulum()
    with pytest.raises(ValueError, match="Pendulum.simulate: the ODE solver used up max_nfev"):
        p.simulate(np.array([0.0, 1e7]), torque=0.0, q0=1.0)
    with pytest.raises(ValueError, match="rtol must be >= 2.22e-14"):
        p.simulate(np.linspace(0, 1, 5), rtol=1e-300)
