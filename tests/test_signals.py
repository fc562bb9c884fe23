"""Tests of robidlib.signals: noise, quantisation, zero-phase filtering, derivatives, decimation."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.signal

from robidlib.signals import add_noise, decimate, differentiate, lowpass, quantize

FS = 1000.0


# ----------------------------------------------------------------------------- add_noise
def test_add_noise_per_column_std_and_reproducible():
    x = np.tile([1.0, -2.0, 3.0], (20000, 1))
    std = np.array([0.0, 0.5, 2.0])
    y = add_noise(x, std, np.random.default_rng(1))
    assert y.shape == x.shape and y is not x
    np.testing.assert_array_equal(y[:, 0], x[:, 0])  # std 0: untouched
    np.testing.assert_allclose((y - x).std(axis=0)[1:], std[1:], rtol=0.03)
    np.testing.assert_allclose((y - x).mean(axis=0)[1:], 0.0, atol=0.05)
    # an int seed and the equivalent generator give the same draw; the input is unchanged
    np.testing.assert_array_equal(add_noise(x, std, 7), add_noise(x, std, np.random.default_rng(7)))
    np.testing.assert_array_equal(x[:, 1], -2.0)


def test_add_noise_scalar_std_on_1d_and_2d():
    y1 = add_noise(np.zeros(50000), 0.3, rng=2)
    assert y1.shape == (50000,)
    np.testing.assert_allclose(y1.std(), 0.3, rtol=0.02)
    y2 = add_noise(np.zeros((30000, 2)), 0.3, rng=3)
    np.testing.assert_allclose(y2.std(axis=0), [0.3, 0.3], rtol=0.03)


def test_add_noise_bad_input():
    x = np.zeros((10, 2))
    with pytest.raises(ValueError, match="std must be >= 0"):
        add_noise(x, -0.1, rng=0)
    with pytest.raises(ValueError, match=r"std must be a scalar or have shape \(2,\)"):
        add_noise(x, [0.1, 0.2, 0.3], rng=0)
    with pytest.raises(ValueError, match="std must be a scalar when x is 1-D"):
        add_noise(np.zeros(10), [0.1], rng=0)
    with pytest.raises(ValueError, match="std must be finite"):
        add_noise(x, [0.1, np.nan], rng=0)
    with pytest.raises(ValueError, match="x must be finite"):
        add_noise(np.array([0.0, np.inf]), 0.1, rng=0)
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        add_noise(x, 0.1, rng=None)
    with pytest.raises(ValueError, match="x must have 1 or 2 dimension"):
        add_noise(np.zeros((2, 2, 2)), 0.1, rng=0)


# ----------------------------------------------------------------------------- quantize
def test_quantize_rounds_to_nearest_multiple():
    res = 2 * np.pi / 4096  # 4096-count encoder
    rng = np.random.default_rng(4)
    x = rng.uniform(-3, 3, size=(5000, 2))
    q = quantize(x, res)
    k = q / res
    np.testing.assert_allclose(k, np.round(k), atol=1e-9)  # multiples of the resolution
    assert np.max(np.abs(q - x)) <= res / 2 + 1e-15
    # uniform quantisation noise: std res / sqrt(12)
    np.testing.assert_allclose(np.std(q - x), res / np.sqrt(12), rtol=0.05)
    np.testing.assert_array_equal(quantize([0.0, 0.24, 0.26, -0.74], 0.5), [0.0, 0.0, 0.5, -0.5])


def test_quantize_bad_input():
    with pytest.raises(ValueError, match="resolution must be > 0"):
        quantize([1.0], 0.0)
    with pytest.raises(ValueError, match="resolution must be finite"):
        quantize([1.0], np.nan)
    with pytest.raises(ValueError, match="x must be finite"):
        quantize([np.nan], 0.1)


# ----------------------------------------------------------------------------- lowpass
def test_lowpass_zero_phase_lag_on_a_sine():
    t = np.arange(0, 4, 1 / FS)
    clean = np.sin(2 * np.pi * 2.0 * t)
    noisy = add_noise(clean, 0.2, rng=5)
    y = lowpass(noisy, cutoff=10.0, fs=FS)
    inner = slice(500, -500)
    # cross-correlation peaks at lag 0
    a, b = y[inner] - y[inner].mean(), clean[inner] - clean[inner].mean()
    xc = scipy.signal.correlate(a, b, mode="full")
    lags = scipy.signal.correlation_lags(a.size, b.size, mode="full")
    assert lags[np.argmax(xc)] == 0
    # on the noise-free sine the peaks of the filtered and clean signals coincide
    y_clean = lowpass(clean, cutoff=10.0, fs=FS)
    pk_f, _ = scipy.signal.find_peaks(y_clean[inner], height=0.5, distance=300)
    pk_c, _ = scipy.signal.find_peaks(clean[inner], height=0.5, distance=300)
    assert pk_f.size == pk_c.size > 0
    np.testing.assert_array_equal(pk_f, pk_c)
    # a causal (one-pass) filter of the same design lags by many samples: the test can fail
    sos = scipy.signal.butter(4, 10.0, fs=FS, output="sos")
    causal = scipy.signal.sosfilt(sos, clean)
    pk_causal, _ = scipy.signal.find_peaks(causal[inner], height=0.5, distance=300)
    assert np.min(pk_causal - pk_c) >= 10


def test_lowpass_attenuation_and_columns_independent():
    t = np.arange(0, 2, 1 / FS)
    x = np.column_stack([np.sin(2 * np.pi * 1 * t), np.sin(2 * np.pi * 100 * t)])
    y = lowpass(x, cutoff=10.0, fs=FS, order=4)
    inner = slice(200, -200)
    np.testing.assert_allclose(y[inner, 0], x[inner, 0], atol=1e-3)  # pass band
    # 100 Hz: |H|^2 = 1 / (1 + (100/10)^8) ~ 1e-8 once the edge transients have decayed
    assert np.max(np.abs(y[800:-800, 1])) < 1e-7
    np.testing.assert_allclose(lowpass(x[:, 0], 10.0, FS), y[:, 0], rtol=1e-12)
    # batched regressor (N, n, p)
    Y = np.stack([x, 2 * x], axis=2)
    np.testing.assert_allclose(lowpass(Y, 10.0, FS)[:, :, 1], 2 * y, rtol=1e-10, atol=1e-14)
    # at the cut-off the forward-backward filter passes |H|^2 = 1/2
    fc = np.sin(2 * np.pi * 10.0 * t)
    np.testing.assert_allclose(np.max(np.abs(lowpass(fc, 10.0, FS)[inner])), 0.5, rtol=0.02)


def test_lowpass_bad_input():
    x = np.zeros(200)
    with pytest.raises(ValueError, match=r"Nyquist frequency fs/2 = 500 Hz \(fs = 1000 Hz\), got cutoff = 600 Hz"):
        lowpass(x, 600.0, FS)
    with pytest.raises(ValueError, match="Nyquist"):
        lowpass(x, 500.0, FS)
    with pytest.raises(ValueError, match="cutoff must be > 0"):
        lowpass(x, -1.0, FS)
    with pytest.raises(ValueError, match="fs must be > 0"):
        lowpass(x, 1.0, 0.0)
    with pytest.raises(TypeError, match="order must be an int"):
        lowpass(x, 1.0, FS, order=2.5)
    with pytest.raises(ValueError, match="x must be finite"):
        lowpass(np.r_[x, np.nan], 10.0, FS)
    # too short: scipy's edge padding needs 3 * (2 * sections + 1) + 1 samples (order 4: 16)
    np.testing.assert_allclose(lowpass(np.ones(16), 10.0, FS), 1.0)
    with pytest.raises(ValueError, match="x has 15 samples.*needs at least 16"):
        lowpass(np.ones(15), 10.0, FS)


# ----------------------------------------------------------------------------- differentiate
def test_differentiate_central_against_analytic():
    dt = 1e-3
    t = np.arange(0, 1, dt)
    x = np.column_stack([np.sin(2 * np.pi * t), np.cos(3 * t)])
    v = differentiate(x, dt)
    v_true = np.column_stack([2 * np.pi * np.cos(2 * np.pi * t), -3 * np.sin(3 * t)])
    np.testing.assert_allclose(v, v_true, atol=1e-3)  # O(dt^2) error
    a = differentiate(x, dt, deriv=2)
    a_true = np.column_stack([-(2 * np.pi) ** 2 * np.sin(2 * np.pi * t), -9 * np.cos(3 * t)])
    np.testing.assert_allclose(a[2:-2], a_true[2:-2], atol=1e-2)
    np.testing.assert_allclose(differentiate(x[:, 0], dt), v[:, 0], rtol=1e-12)


def test_differentiate_savgol_smooths_noise():
    dt = 1e-3
    t = np.arange(0, 2, dt)
    q = np.sin(2 * np.pi * t)
    qn = add_noise(q, 1e-4, rng=6)
    v_true = 2 * np.pi * np.cos(2 * np.pi * t)
    err_c = np.std(differentiate(qn, dt) - v_true)
    v_sg = differentiate(qn, dt, method="savgol", window=51, polyorder=3)
    err_sg = np.std(v_sg - v_true)
    assert err_sg < 0.2 * err_c
    # exact on polynomials up to polyorder, including the ends (mode="interp")
    x = 1 + t - 0.5 * t**2 + 0.1 * t**3
    np.testing.assert_allclose(differentiate(x, dt, method="savgol", deriv=2), -1 + 0.6 * t, atol=1e-6)


def test_differentiate_bad_input():
    x = np.zeros(20)
    with pytest.raises(ValueError, match="unknown method 'spline'"):
        differentiate(x, 0.01, method="spline")
    with pytest.raises(ValueError, match="dt must be > 0"):
        differentiate(x, 0.0)
    with pytest.raises(ValueError, match="deriv must be 1 or 2"):
        differentiate(x, 0.01, deriv=3)
    with pytest.raises(ValueError, match="only used by method='savgol'"):
        differentiate(x, 0.01, window=5)
    with pytest.raises(ValueError, match="at least 3 samples"):
        differentiate(np.zeros(2), 0.01)
    with pytest.raises(ValueError, match="window must be odd"):
        differentiate(x, 0.01, method="savgol", window=10)
    with pytest.raises(ValueError, match="window must be <= the number of samples 20"):
        differentiate(x, 0.01, method="savgol", window=21)
    with pytest.raises(ValueError, match="polyorder must satisfy"):
        differentiate(x, 0.01, method="savgol", window=5, polyorder=5)
    with pytest.raises(ValueError, match="polyorder must satisfy"):
        differentiate(x, 0.01, method="savgol", deriv=2, window=5, polyorder=1)
    with pytest.raises(ValueError, match="x must be finite"):
        differentiate(np.r_[x, np.nan], 0.01)


# ----------------------------------------------------------------------------- decimate
def test_decimate_filters_then_keeps_every_kth_sample():
    t = np.arange(0, 2, 1 / FS)
    slow = np.sin(2 * np.pi * 3 * t)
    x = np.column_stack([slow + 0.3 * np.sin(2 * np.pi * 180 * t), -slow])
    xd = decimate(x, 10, fs=FS)
    assert xd.shape == (200, 2)
    np.testing.assert_allclose(xd, lowpass(x, 0.8 * FS / 20, FS)[::10], rtol=1e-12)
    np.testing.assert_allclose(xd[5:-5, 0], slow[::10][5:-5], atol=1e-3)  # no aliasing of 180 Hz
    # plain subsampling aliases the 180 Hz ripple (to 20 Hz at 100 Hz): the filter matters
    assert np.max(np.abs(x[::10, 0] - slow[::10])) > 0.1
    # ceil(N / k) samples; explicit cut-off; fs omitted = normalised frequencies
    assert decimate(np.zeros(205), 10).shape == (21,)
    np.testing.assert_allclose(decimate(x, 4, fs=FS, cutoff=50.0), lowpass(x, 50.0, FS)[::4])
    np.testing.assert_allclose(decimate(x, 4), lowpass(x, 0.1, 1.0)[::4])
    np.testing.assert_array_equal(decimate(x, 1), x)


def test_decimate_parallel_filtering_keeps_linear_relation():
    rng = np.random.default_rng(8)
    Y = rng.normal(size=(400, 2, 3)).cumsum(axis=0)  # batched regressor (N, n, p)
    b = np.array([1.0, -2.0, 0.5])
    tau = Y @ b
    Yd, taud = decimate(Y, 5, fs=FS), decimate(tau, 5, fs=FS)
    np.testing.assert_allclose(Yd @ b, taud, rtol=1e-9, atol=1e-9)


def test_decimate_bad_input():
    x = np.zeros(300)
    with pytest.raises(ValueError, match=r"decimated Nyquist frequency fs/\(2\*factor\) = 50 Hz"):
        decimate(x, 10, fs=FS, cutoff=60.0)
    with pytest.raises(ValueError, match="needs the sampling frequency fs"):
        decimate(x, 10, cutoff=0.01)
    with pytest.raises(ValueError, match="factor must be >= 1"):
        decimate(x, 0)
    with pytest.raises(TypeError, match="factor must be an int"):
        decimate(x, 2.0)
    with pytest.raises(ValueError, match="x must be finite"):
        decimate(np.r_[x, np.inf], 2)


def test_filter_order_is_bounded_instead_of_hanging():
    from robidlib.signals import MAX_ORDER, decimate, lowpass

    x = np.sin(np.linspace(0, 10, 500))
    assert lowpass(x, 5.0, 100.0, order=MAX_ORDER).shape == x.shape
    for bad in (10**6, MAX_ORDER + 1):
        with pytest.raises(ValueError, match=f"order must be <= {MAX_ORDER}, got {bad}"):
            lowpass(x, 5.0, 100.0, order=bad)
        with pytest.raises(ValueError, match=f"order must be <= {MAX_ORDER}"):
            decimate(x, 1, order=bad)              # also when no filter would be applied
    with pytest.raises(TypeError, match="order must be an int, got float"):
        lowpass(x, 5.0, 100.0, order=4.0)
