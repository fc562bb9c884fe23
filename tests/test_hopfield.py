"""Tests of robidlib.estimation.hopfield (Abe's Hopfield network as an LS solver)."""

from __future__ import annotations

import doctest
import warnings

import numpy as np
import pytest

import robidlib.estimation.hopfield as hopfield_module
from robidlib.estimation.hopfield import HopfieldEstimator, SaturationWarning
from robidlib.estimation.lsq import ols


def _problem(seed: int, r: int = 120, p: int = 4, noise: float = 0.05):
    rng = np.random.default_rng(seed)
    Phi = rng.normal(size=(r, p)) * rng.uniform(0.5, 2.0, size=p)
    b = rng.uniform(-3.0, 3.0, size=p)
    tau = Phi @ b + noise * rng.normal(size=r)
    return Phi, tau, b


def _settle_time(net: HopfieldEstimator, Phi: np.ndarray, S: np.ndarray, factor: float = 30.0) -> float:
    return factor * float(net.time_constants(Phi, S)[0])


def test_doctests_run():
    result = doctest.testmod(hopfield_module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_batch_equilibrium_is_lstsq(seed):
    Phi, tau, _ = _problem(seed)
    b_ls = np.linalg.lstsq(Phi, tau, rcond=None)[0]
    net = HopfieldEstimator(alpha=5.0, beta=2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SaturationWarning)               # no saturation expected here
        net.run(Phi, tau, (0.0, _settle_time(net, Phi, b_ls)))
    assert np.linalg.norm(net.params - b_ls) / np.linalg.norm(b_ls) < 1e-6
    assert np.allclose(net.W, -(Phi.T @ Phi) / Phi.shape[0])            # sign convention W = -Phi'Phi / r
    assert np.allclose(net.I, Phi.T @ tau / Phi.shape[0])


@pytest.mark.parametrize("method", ["Radau", "BDF", "RK45"])
def test_other_solvers_reach_the_same_equilibrium(method):
    Phi, tau, _ = _problem(3)
    b_ls = np.linalg.lstsq(Phi, tau, rcond=None)[0]
    net = HopfieldEstimator(alpha=5.0, beta=2.0, method=method)
    net.run(Phi, tau, (0.0, _settle_time(net, Phi, b_ls)))
    assert np.linalg.norm(net.params - b_ls) / np.linalg.norm(b_ls) < 1e-6


def test_states_stay_inside_the_box_and_energy_decreases():
    Phi, tau, _ = _problem(4)
    b_ls = np.linalg.lstsq(Phi, tau, rcond=None)[0]
    alpha = np.abs(b_ls) * 1.2 + 0.1                                    # per-parameter bounds, tight
    net = HopfieldEstimator(alpha=alpha, beta=0.5)
    net.run(Phi, tau, (0.0, _settle_time(net, Phi, b_ls)), S0=-0.9 * alpha * np.sign(b_ls))
    S = net.history["S"]
    assert np.all(np.abs(S) < alpha)
    E = net.history["energy"]
    assert np.all(np.diff(E) <= 1e-12 * (1.0 + np.abs(E[:-1])))
    # the energy is the LS cost minus a constant: E(S) = ||tau - Phi S||^2/(2r) - ||tau||^2/(2r)
    r = Phi.shape[0]
    assert net.energy(S[5]) == pytest.approx(
        (np.sum((tau - Phi @ S[5]) ** 2) - tau @ tau) / (2 * r), rel=1e-10
    )
    assert np.allclose(net.energy(S[:3]), [net.energy(s) for s in S[:3]])


def test_alpha_too_small_warns_naming_the_saturating_parameter():
    Phi, tau, _ = _problem(5)
    b_ls = np.linalg.lstsq(Phi, tau, rcond=None)[0]
    alpha = np.abs(b_ls) + 1.0
    alpha[2] = 0.5 * abs(b_ls[2])                                       # cannot contain parameter 3
    net = HopfieldEstimator(alpha=alpha, beta=1.0, names=["a", "b", "c", "d"])
    with pytest.warns(SaturationWarning, match=r"outside \]-alpha, alpha\[ for c \(") as rec:
        net.run(Phi, tau, (0.0, 50.0))
    messages = " ".join(str(w.message) for w in rec)
    assert "for a (" not in messages and "for b (" not in messages and "d (" not in messages
    S = net.history["S"]
    assert np.all(np.abs(S) <= alpha)                                   # the box still holds
    assert abs(S[-1, 2]) > 0.99 * alpha[2]                              # parameter c is pinned at the wall


def test_near_saturation_warns():
    Phi, tau, _ = _problem(6)
    b_ls = np.linalg.lstsq(Phi, tau, rcond=None)[0]
    alpha = np.abs(b_ls) + 1.0
    alpha[1] = abs(b_ls[1]) * 1.005                                     # LS inside, but within 1 % of alpha
    net = HopfieldEstimator(alpha=alpha, beta=1.0)
    with pytest.warns(SaturationWarning, match=r"within 1 % of \+-alpha \(saturating\) for p2 "):
        net.run(Phi, tau, (0.0, 200.0))


def test_time_constants_match_the_linear_regime():
    rng = np.random.default_rng(7)
    phi = rng.normal(size=(50, 1))
    tau = 0.01 * phi[:, 0]                                              # S* = 0.01 << alpha: linear neuron
    net = HopfieldEstimator(alpha=100.0, beta=50.0)                     # gain 2
    tc = float(net.time_constants(phi)[0])
    assert tc == pytest.approx(1.0 / (2.0 * np.mean(phi**2)), rel=1e-12)
    net.run(phi, tau, (0.0, 3 * tc), t_eval=[tc, 3 * tc])
    S = net.history["S"][:, 0]
    assert S[0] == pytest.approx(0.01 * (1 - np.exp(-1.0)), rel=1e-4)
    assert S[1] == pytest.approx(0.01 * (1 - np.exp(-3.0)), rel=1e-4)


def test_sum_scaling_has_same_equilibrium_and_faster_time_constants():
    Phi, tau, _ = _problem(8)
    b_ls = np.linalg.lstsq(Phi, tau, rcond=None)[0]
    mean = HopfieldEstimator(alpha=5.0, beta=2.0)
    total = HopfieldEstimator(alpha=5.0, beta=2.0, scale="sum")
    assert np.allclose(mean.time_constants(Phi), Phi.shape[0] * total.time_constants(Phi))
    total.run(Phi, tau, (0.0, _settle_time(total, Phi, b_ls)))
    assert np.linalg.norm(total.params - b_ls) / np.linalg.norm(b_ls) < 1e-6
    assert np.allclose(total.W, -Phi.T @ Phi)


def test_to_estimate_agrees_with_ols():
    Phi, tau, _ = _problem(9)
    b_ls = np.linalg.lstsq(Phi, tau, rcond=None)[0]
    net = HopfieldEstimator(alpha=5.0, beta=2.0)
    net.run(Phi, tau, (0.0, _settle_time(net, Phi, b_ls)))
    est, ref = net.to_estimate(Phi, tau), ols(Phi, tau)
    assert est.method == "hopfield"
    assert np.allclose(est.params, ref.params, rtol=1e-6)
    assert np.allclose(est.cov, ref.cov, rtol=1e-6)


def _stream(seed: int, N: int = 240, dt: float = 0.05, t_step: float = 6.0):
    rng = np.random.default_rng(seed)
    t = np.arange(N) * dt
    Phi = rng.normal(size=(N, 2, 3))                                    # 2 joints, 3 parameters per sample
    before, after = np.array([1.0, -0.5, 2.0]), np.array([1.6, -0.5, 2.0])   # a payload changes parameter 1
    truth = np.where((t < t_step)[:, None], before, after)
    tau = np.einsum("knp,kp->kn", Phi, truth)
    return t, Phi, tau, before, after, t_step


@pytest.mark.parametrize("memory", [{"forgetting": 0.9}, {"window": 15}])
def test_online_tracks_a_step_change(memory):
    t, Phi, tau, before, after, t_step = _stream(10)
    net = HopfieldEstimator(alpha=4.0, beta=0.05).run_online(Phi, tau, t, **memory)
    h = net.history
    assert h["t"].shape == t.shape and h["S"].shape == (t.size, 3)
    k_before = np.searchsorted(t, t_step) - 1                           # last sample before the change
    assert np.allclose(h["S"][k_before], before, atol=1e-3)
    assert np.allclose(net.params, after, atol=1e-3)
    assert np.all(np.abs(h["S"]) < 4.0)
    assert np.array_equal(h["S"][0], np.zeros(3))


def test_online_without_forgetting_converges_and_t_final_extends():
    rng = np.random.default_rng(11)
    t = np.arange(60) * 0.1
    Phi = rng.normal(size=(60, 3))                                      # (N, p): one row per sample
    b = np.array([0.3, -1.2, 0.8])
    net = HopfieldEstimator(alpha=3.0, beta=0.2).run_online(Phi, Phi @ b, t, t_final=t[-1] + 5.0)
    assert net.history["t"][-1] == pytest.approx(t[-1] + 5.0)
    assert net.history["S"].shape == (61, 3)
    assert np.allclose(net.params, b, atol=1e-6)
    assert np.allclose(net.W, -(Phi.T @ Phi) / 60)


def test_online_saturation_warning():
    t, Phi, tau, _, _, _ = _stream(12, N=80)
    with pytest.warns(SaturationWarning, match="p3"):
        HopfieldEstimator(alpha=1.8, beta=0.05).run_online(Phi, tau, t, forgetting=0.9)


# ---------------------------------------------------------------------- bad input
@pytest.mark.parametrize("alpha", [0.0, -1.0, np.nan, [1.0, 0.0, 2.0], [[1.0]]])
def test_bad_alpha(alpha):
    with pytest.raises(ValueError, match="alpha"):
        HopfieldEstimator(alpha=alpha, beta=1.0)


@pytest.mark.parametrize("beta", [0.0, -2.0, np.inf])
def test_bad_beta(beta):
    with pytest.raises(ValueError, match="beta"):
        HopfieldEstimator(alpha=1.0, beta=beta)


def test_bad_names_and_options():
    with pytest.raises(ValueError, match="method"):
        HopfieldEstimator(1.0, 1.0, method="Euler")
    with pytest.raises(ValueError, match="scale"):
        HopfieldEstimator(1.0, 1.0, scale="max")


def test_bad_batch_data():
    Phi, tau, _ = _problem(13)
    net = HopfieldEstimator(alpha=5.0, beta=1.0)
    bad = Phi.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="Phi must be finite"):
        net.run(bad, tau, (0, 1))
    with pytest.raises(ValueError, match="tau must be finite"):
        net.run(Phi, np.where(np.arange(tau.size) == 2, np.inf, tau), (0, 1))
    with pytest.raises(ValueError, match="rows"):
        net.run(Phi, tau[:-1], (0, 1))
    with pytest.raises(ValueError, match="t_span"):
        net.run(Phi, tau, (1.0, 0.0))
    with pytest.raises(ValueError, match=r"alpha must be a scalar or have shape \(4,\)"):
        HopfieldEstimator(alpha=[1.0, 2.0], beta=1.0).run(Phi, tau, (0, 1))
    with pytest.raises(ValueError, match="S0"):
        net.run(Phi, tau, (0, 1), S0=[0.0, 5.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="names"):
        HopfieldEstimator(5.0, 1.0, names=["a"]).run(Phi, tau, (0, 1))
    with pytest.raises(RuntimeError, match="run"):
        net.params
    with pytest.raises(ValueError, match="Phi and tau"):
        net.energy(np.zeros(4))


def test_bad_online_data():
    t, Phi, tau, _, _, _ = _stream(14, N=20)
    net = HopfieldEstimator(alpha=4.0, beta=0.1)
    with pytest.raises(ValueError, match="increasing"):
        net.run_online(Phi, tau, t[::-1])
    with pytest.raises(ValueError, match="tau must have shape"):
        net.run_online(Phi, tau[:, :1], t)
    with pytest.raises(ValueError, match=r"t must have shape \(20,\)"):
        net.run_online(Phi, tau, t[:-1])
    with pytest.raises(ValueError, match="forgetting"):
        net.run_online(Phi, tau, t, forgetting=0.0)
    with pytest.raises(ValueError, match="forgetting"):
        net.run_online(Phi, tau, t, forgetting=1.5)
    with pytest.raises(ValueError, match="window"):
        net.run_online(Phi, tau, t, window=0)
    with pytest.raises(ValueError, match="not both"):
        net.run_online(Phi, tau, t, window=5, forgetting=0.9)
    with pytest.raises(ValueError, match="t_final"):
        net.run_online(Phi, tau, t, t_final=t[-1])
    bad = Phi.copy()
    bad[3, 1, 2] = np.nan
    with pytest.raises(ValueError, match="Phi must be finite"):
        net.run_online(bad, tau, t)


def test_a_time_span_the_solver_cannot_finish_is_refused_clearly():
    rng = np.random.default_rng(3)
    Phi = rng.normal(size=(30, 3))
    tau = Phi @ np.array([0.5, -1.0, 2.0])
    net = HopfieldEstimator(alpha=5.0, beta=1e-3, method="RK45", max_nfev=500)
    with pytest.raises(ValueError, match=r"HopfieldEstimator.run: the ODE solver used up max_nfev = 500"):
        net.run(Phi, tau, (0.0, 1e9))
    with pytest.raises(ValueError, match=r"t_eval must hold at least one time within t_span"):
        HopfieldEstimator(alpha=5.0, beta=1.0).run(Phi, tau, (0.0, 1.0), t_eval=[])
    with pytest.raises(TypeError, match="check must be True or False"):
        HopfieldEstimator(alpha=5.0, beta=1.0, check="no")
