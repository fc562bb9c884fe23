"""Measurement models and signal processing for identification data.

Time series follow the GUIDE: shape ``(N,)`` or ``(N, n)`` with time along axis 0
(``lowpass``, ``decimate`` and ``quantize`` also accept a batched regressor
``(N, n, p)``).  Every function returns a new array and leaves its input untouched.

* :func:`add_noise` -- additive white Gaussian noise, one standard deviation per column.
* :func:`quantize` -- encoder quantisation to a resolution.
* :func:`lowpass` -- zero-phase Butterworth low-pass filter (forward-backward).
* :func:`differentiate` -- central differences or a Savitzky-Golay derivative.
* :func:`decimate` -- low-pass then keep every ``factor``-th sample (parallel filtering).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.signal

from ._validate import as_array, check_choice, check_int, check_positive, check_rng

__all__ = ["add_noise", "quantize", "lowpass", "differentiate", "decimate"]


#: Highest Butterworth order: far above what filtering measurements needs; higher orders give
#: poles so close to the unit circle that the sections lose their accuracy (and 10**6 would hang).
MAX_ORDER = 20

#: Lowest cut-off of :func:`lowpass` as a share of the Nyquist frequency: the zero-phase
#: Butterworth filter's gain at DC is off by 1e-7 there (orders 4 to 12) and by 1e-4 ten times lower.
MIN_RELATIVE_CUTOFF = 1e-5


def _check_int(name: str, value: Any, minimum: int, maximum: int | None = None) -> int:
    return check_int(name, value, minimum, maximum)


def _series(name: str, x: Any, ndim=(1, 2)) -> np.ndarray:
    a = as_array(name, x, ndim=ndim)
    if a.shape[0] == 0:
        raise ValueError(f"{name} must hold at least one sample along axis 0, got shape {a.shape}")
    return a


def add_noise(x: np.ndarray, std: float | np.ndarray, rng: np.random.Generator | int) -> np.ndarray:
    """Return ``x`` plus white Gaussian noise of standard deviation ``std``.

    Parameters
    ----------
    x : array_like, shape (N,) or (N, n)
        Noise-free signal.
    std : float or array_like, shape (n,)
        Noise standard deviation, ``>= 0``: one value for every entry, or one per column
        of a 2-D ``x`` (broadcast along the samples).  ``0`` leaves that column unchanged.
    rng : numpy.random.Generator or int
        Random generator, or an int seed for a new one (``None`` is refused so that
        every draw is reproducible).

    Returns
    -------
    numpy.ndarray
        New array, same shape as ``x``.

    Raises
    ------
    ValueError
        If ``x`` or ``std`` is not finite, ``std`` is negative or its length differs
        from the number of columns of ``x``.
    TypeError
        If ``rng`` is neither a Generator nor an int.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.signals import add_noise
    >>> x = np.zeros((10000, 2))
    >>> noisy = add_noise(x, [0.1, 2.0], rng=0)
    >>> np.round(noisy.std(axis=0), 1)
    array([0.1, 2. ])
    """
    x = _series("x", x)
    s = as_array("std", std, ndim=(0, 1))
    if s.ndim == 1:
        if x.ndim == 1:
            raise ValueError(f"std must be a scalar when x is 1-D, got shape {s.shape}")
        if s.shape[0] != x.shape[1]:
            raise ValueError(
                f"std must be a scalar or have shape ({x.shape[1]},) (one per column of x), got shape {s.shape}"
            )
    if np.any(s < 0):
        raise ValueError(f"std must be >= 0, got {s}")
    gen = check_rng(rng)
    return x + s * gen.standard_normal(x.shape)


def quantize(x: np.ndarray, resolution: float) -> np.ndarray:
    """Round ``x`` to the nearest multiple of ``resolution`` (an encoder's quantisation).

    An incremental encoder with ``c`` counts per revolution measures a revolute joint
    with ``resolution = 2 pi / c`` rad.  The quantisation error is at most
    ``resolution / 2`` and, for a moving joint, behaves like uniform noise of standard
    deviation ``resolution / sqrt(12)``.  Exact ties are rounded to the even multiple
    (``numpy.round``).

    Parameters
    ----------
    x : array_like, shape (N,), (N, n) or (N, n, p)
        Signal.
    resolution : float
        Quantisation step, ``> 0``, in the unit of ``x``.

    Returns
    -------
    numpy.ndarray
        New array of the same shape.

    Raises
    ------
    ValueError
        If ``x`` is not finite or ``resolution`` is not a finite positive number.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.signals import quantize
    >>> quantize(np.array([0.0, 0.26, 0.74, -0.3]), 0.5)
    array([ 0. ,  0.5,  0.5, -0.5])
    """
    x = _series("x", x, ndim=(1, 2, 3))
    res = check_positive("resolution", resolution)
    return np.round(x / res) * res


def _filtfilt_min_samples(sos: np.ndarray) -> int:
    """Fewest samples ``scipy.signal.sosfiltfilt`` accepts with its default padding."""
    ntaps = 2 * sos.shape[0] + 1 - min(int(np.sum(sos[:, 2] == 0)), int(np.sum(sos[:, 5] == 0)))
    return 3 * ntaps + 1


def lowpass(x: np.ndarray, cutoff: float, fs: float, order: int = 4) -> np.ndarray:
    """Zero-phase Butterworth low-pass filter along axis 0.

    The Butterworth filter of the given ``order`` is designed as second-order sections
    (``scipy.signal.butter(output="sos")``) and applied forward then backward
    (``scipy.signal.sosfiltfilt``): the phase shifts cancel, so the filtered signal has
    no time lag, and the magnitude response is squared (``-6 dB`` at ``cutoff``, slope
    ``2 * order`` times 20 dB/decade).  A zero lag matters for identification: a lagged
    position would be paired with the torque of another instant.

    Parameters
    ----------
    x : array_like, shape (N,), (N, n) or (N, n, p)
        Signal sampled at ``fs``, time along axis 0.
    cutoff : float
        Cut-off frequency in Hz, ``0 < cutoff < fs / 2``.
    fs : float
        Sampling frequency in Hz, ``> 0``.
    order : int, default 4
        Order of the Butterworth filter, 1 to 20 (the effective order is doubled by the
        forward-backward pass).

    Returns
    -------
    numpy.ndarray
        Filtered signal, same shape as ``x``.

    Raises
    ------
    ValueError
        If ``cutoff`` is not below the Nyquist frequency ``fs / 2`` (the message gives
        both) or below :data:`MIN_RELATIVE_CUTOFF` (1e-5) of it, where the filter is no longer
        accurate in double precision, a value is not finite/positive, or ``x`` is too short
        for the filter's edge padding.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.signals import lowpass
    >>> fs = 1000.0
    >>> t = np.arange(0, 2, 1 / fs)
    >>> slow, fast = np.sin(2 * np.pi * 1 * t), 0.5 * np.sin(2 * np.pi * 200 * t)
    >>> y = lowpass(slow + fast, cutoff=20.0, fs=fs)
    >>> bool(np.max(np.abs(y - slow)[100:-100]) < 1e-3)
    True
    """
    x = _series("x", x, ndim=(1, 2, 3))
    fs = check_positive("fs", fs)
    cutoff = check_positive("cutoff", cutoff)
    order = _check_int("order", order, 1, MAX_ORDER)
    nyquist = fs / 2
    if cutoff >= nyquist:
        raise ValueError(
            f"cutoff must be below the Nyquist frequency fs/2 = {nyquist:g} Hz (fs = {fs:g} Hz), "
            f"got cutoff = {cutoff:g} Hz"
        )
    if cutoff < MIN_RELATIVE_CUTOFF * nyquist:
        raise ValueError(
            f"cutoff must be at least {MIN_RELATIVE_CUTOFF:g} of the Nyquist frequency fs/2 = {nyquist:g} Hz "
            f"(fs = {fs:g} Hz; below, the filter's pass band is off by more than 1e-7 in double precision), "
            f"got cutoff = {cutoff:g} Hz"
        )
    sos = scipy.signal.butter(order, cutoff, btype="low", fs=fs, output="sos")
    need = _filtfilt_min_samples(sos)
    if x.shape[0] < need:
        raise ValueError(
            f"x has {x.shape[0]} samples along axis 0; a zero-phase Butterworth filter of order "
            f"{order} needs at least {need}"
        )
    return scipy.signal.sosfiltfilt(sos, x, axis=0)


def differentiate(
    x: np.ndarray,
    dt: float,
    method: str = "central",
    deriv: int = 1,
    window: int | None = None,
    polyorder: int | None = None,
) -> np.ndarray:
    """Time derivative of a sampled signal along axis 0.

    ``method="central"`` uses second-order central differences (``numpy.gradient`` with
    second-order one-sided differences at both ends), applied ``deriv`` times.  Central
    differences amplify noise (the gain grows with frequency): low-pass the signal first
    (:func:`lowpass`) or use ``method="savgol"``, which fits a polynomial of degree
    ``polyorder`` over a sliding window of ``window`` samples by least squares and
    differentiates it analytically :cite:`savitzky1964`
    (``scipy.signal.savgol_filter`` with ``deriv``; ends handled by ``mode="interp"``).

    Parameters
    ----------
    x : array_like, shape (N,) or (N, n)
        Signal sampled every ``dt`` seconds.
    dt : float
        Sampling period in s, ``> 0``.
    method : {"central", "savgol"}, default "central"
        Differentiation scheme.
    deriv : {1, 2}, default 1
        Order of the derivative (velocity from position: 1; acceleration: 2).
    window : int, optional
        Savitzky-Golay window length (odd, ``> polyorder``, ``<= N``); default 11.
        Only for ``method="savgol"``.
    polyorder : int, optional
        Savitzky-Golay polynomial degree (``>= deriv``); default 3.  Only for
        ``method="savgol"``.

    Returns
    -------
    numpy.ndarray
        The derivative, same shape as ``x``, in the unit of ``x`` per ``s**deriv``.

    Raises
    ------
    ValueError
        On an unknown ``method``, ``deriv`` not 1 or 2, too few samples, an invalid
        window/polyorder, or a window/polyorder given with ``method="central"``.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.signals import differentiate
    >>> t = np.linspace(0.0, 1.0, 101)
    >>> v = differentiate(t**2, dt=0.01)          # exact for a parabola
    >>> bool(np.allclose(v, 2 * t))
    True
    >>> a = differentiate(t**3, dt=0.01, method="savgol", deriv=2, window=7, polyorder=3)
    >>> bool(np.allclose(a, 6 * t))
    True
    """
    x = _series("x", x)
    dt = check_positive("dt", dt)
    check_choice("method", method, ("central", "savgol"))
    deriv = _check_int("deriv", deriv, 1)
    if deriv > 2:
        raise ValueError(f"deriv must be 1 or 2, got {deriv}")
    N = x.shape[0]
    if method == "central":
        if window is not None or polyorder is not None:
            raise ValueError(
                f"window and polyorder are only used by method='savgol', got window={window!r}, "
                f"polyorder={polyorder!r} with method='central'"
            )
        if N < 3:
            raise ValueError(f"x must have at least 3 samples for central differences, got {N}")
        out = x
        for _ in range(deriv):
            out = np.gradient(out, dt, axis=0, edge_order=2)
        return out
    window = 11 if window is None else _check_int("window", window, 1)
    polyorder = 3 if polyorder is None else _check_int("polyorder", polyorder, 0)
    if window % 2 == 0:
        raise ValueError(f"window must be odd, got {window}")
    if window > N:
        raise ValueError(f"window must be <= the number of samples {N}, got {window}")
    if not deriv <= polyorder < window:
        raise ValueError(
            f"polyorder must satisfy deriv ({deriv}) <= polyorder < window ({window}), got {polyorder}"
        )
    return scipy.signal.savgol_filter(
        x, window_length=window, polyorder=polyorder, deriv=deriv, delta=dt, axis=0, mode="interp"
    )


def decimate(
    x: np.ndarray,
    factor: int,
    fs: float | None = None,
    cutoff: float | None = None,
    order: int = 4,
) -> np.ndarray:
    """Low-pass filter then keep every ``factor``-th sample (parallel filtering).

    In identification practice the torques are low-pass filtered and resampled *with
    the same filter* as the columns of the regressor -- "parallel filtering"
    :cite:`khalil2002`.  The filter removes the high-frequency
    content (noise, unmodelled dynamics) that the rigid model cannot explain and that
    would alias when the rate is reduced; applying it identically to ``y`` and to ``W``
    keeps the linear relation ``y = W b`` intact.  Call ``decimate`` on both the
    measured torques and the regressor (batched ``(N, n, p)`` or per-sample columns).

    The filter is :func:`lowpass` (zero-phase Butterworth of ``order``); by default its
    cut-off is ``0.8`` times the new Nyquist frequency, ``0.8 * fs / (2 * factor)``, as
    in the classic ``decimate`` routines.  The new sampling rate is ``fs / factor`` and
    the kept samples are ``x[::factor]`` (the first one is kept), so the matching time
    vector is ``t[::factor]``.

    Parameters
    ----------
    x : array_like, shape (N,), (N, n) or (N, n, p)
        Signal sampled at ``fs``, time along axis 0.
    factor : int
        Decimation factor ``k >= 1`` (``1`` only filters when ``cutoff`` is given,
        otherwise returns a copy).
    fs : float, optional
        Sampling frequency in Hz.  When omitted, frequencies are in cycles per sample
        (``fs = 1``) and ``cutoff`` must be omitted too.
    cutoff : float, optional
        Cut-off in Hz, ``0 < cutoff < fs / (2 * factor)`` (below the *new* Nyquist
        frequency, otherwise the kept samples alias); needs ``fs``.
    order : int, default 4
        Butterworth order, 1 to 20.

    Returns
    -------
    numpy.ndarray
        Shape ``(ceil(N / factor), ...)``.

    Raises
    ------
    ValueError
        If ``cutoff`` is given without ``fs``, or is not below the new Nyquist frequency
        (the message gives both) or below :data:`MIN_RELATIVE_CUTOFF` of it, or on bad
        ``factor``/``x``.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.signals import decimate
    >>> fs = 1000.0
    >>> t = np.arange(0, 1, 1 / fs)
    >>> x = np.sin(2 * np.pi * 2 * t) + 0.2 * np.sin(2 * np.pi * 300 * t)
    >>> xd = decimate(x, 10, fs=fs)               # 100 Hz, the 300 Hz ripple removed
    >>> xd.shape
    (100,)
    >>> bool(np.max(np.abs(xd - np.sin(2 * np.pi * 2 * t[::10]))[5:-5]) < 1e-3)
    True
    """
    x = _series("x", x, ndim=(1, 2, 3))
    factor = _check_int("factor", factor, 1)
    order = _check_int("order", order, 1, MAX_ORDER)
    if fs is None:
        if cutoff is not None:
            raise ValueError(f"cutoff={cutoff!r} is in Hz and needs the sampling frequency fs; got fs=None")
        fs_ = 1.0
    else:
        fs_ = check_positive("fs", fs)
    new_nyquist = fs_ / (2 * factor)
    if cutoff is None:
        if factor == 1:
            return x.copy()
        fc = 0.8 * new_nyquist
    else:
        fc = check_positive("cutoff", cutoff)
        if fc >= new_nyquist:
            raise ValueError(
                f"cutoff must be below the decimated Nyquist frequency fs/(2*factor) = {new_nyquist:g} Hz "
                f"(fs = {fs_:g} Hz, factor = {factor}) to avoid aliasing, got cutoff = {fc:g} Hz"
            )
    return lowpass(x, fc, fs_, order=order)[::factor]
