"""Validation indices comparing a model's predictions with observations.

Three dimensionless indices, each in ``[0, 1]``, computed per joint (columns of an
``(N, n)`` array) or overall (all entries pooled into one series):

* :func:`rms_index` -- normalised residual root mean square: Theil's inequality
  coefficient ``U1`` :cite:`theil1958,bliemel1973`; 0 = perfect.
* :func:`rsd_index` -- normalised residual standard deviation: the same coefficient
  applied to the deviations from the means; 0 = perfect up to a constant offset.
* :func:`agreement_index` -- Willmott's index of agreement ``d`` :cite:`willmott1981`;
  1 = perfect agreement, 0 = no agreement.

The numerators are the usual residual RMS and residual standard deviation (in the
unit of the signal); dividing by the sum of the two signals' RMS (standard deviations)
makes the index dimensionless and bounded by 1 (triangle inequality), so joints with
torques of different sizes can be compared in one table.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._validate import as_array

__all__ = ["rms_index", "rsd_index", "agreement_index"]


def _pair(observed: Any, predicted: Any, per_joint: bool) -> tuple[np.ndarray, np.ndarray, bool]:
    """Check the two series; return them as (N, m) columns and whether to return a scalar."""
    if not isinstance(per_joint, (bool, np.bool_)):
        raise TypeError(f"per_joint must be a bool, got {type(per_joint).__name__}")
    o = as_array("observed", observed, ndim=(1, 2))
    p = as_array("predicted", predicted, ndim=(1, 2))
    if o.shape != p.shape:
        raise ValueError(f"observed and predicted must have the same shape, got {o.shape} and {p.shape}")
    if o.size == 0:
        raise ValueError(f"observed and predicted must not be empty, got shape {o.shape}")
    scalar = o.ndim == 1 or not per_joint
    if scalar:
        return o.reshape(-1, 1), p.reshape(-1, 1), True
    return o, p, False


def _scaled(o: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Divide both by the largest magnitude per column, so squares neither under- nor overflow.

    Every index is invariant to a common scaling of ``o`` and ``p`` (column by column).
    """
    scale = np.maximum(np.abs(o).max(axis=0), np.abs(p).max(axis=0))
    scale = np.where(scale > 0, scale, 1.0)
    return o / scale, p / scale


def _out(values: np.ndarray, scalar: bool) -> float | np.ndarray:
    return float(values[0]) if scalar else values


def _undefined(name: str, bad: np.ndarray, scalar: bool, why: str) -> None:
    if np.any(bad):
        where = "" if scalar else f" for joint(s) {', '.join(str(j + 1) for j in np.flatnonzero(bad))}"
        raise ValueError(f"{name} is undefined{where}: {why}")


def _theil(o: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    num = np.sqrt(np.mean((p - o) ** 2, axis=0))
    den = np.sqrt(np.mean(p**2, axis=0)) + np.sqrt(np.mean(o**2, axis=0))
    return num, den


def rms_index(observed: np.ndarray, predicted: np.ndarray, per_joint: bool = True) -> float | np.ndarray:
    """Normalised residual root mean square (Theil's ``U1``), in ``[0, 1]``.

    For observations ``o_k`` and predictions ``p_k``, ``k = 1..N``
    :cite:`theil1958,bliemel1973`::

        RMS = sqrt(mean((p - o)^2)) / ( sqrt(mean(p^2)) + sqrt(mean(o^2)) )

    ``0`` means a perfect prediction; ``1`` is reached when ``p = -c o`` (``c >= 0``),
    e.g. a prediction identically zero.  The index is scale-free (multiplying both
    series by a constant leaves it unchanged) but, unlike :func:`rsd_index`, it counts
    a constant offset as an error.

    Parameters
    ----------
    observed, predicted : array_like, shape (N,) or (N, n)
        Measured and predicted series (e.g. joint torques or positions), same shape.
    per_joint : bool, default True
        For 2-D input, one index per column (joint); ``False`` pools every entry into
        one series (flattened) and returns one number.

    Returns
    -------
    float or numpy.ndarray, shape (n,)
        A float for 1-D input or ``per_joint=False``; one value per joint otherwise.

    Raises
    ------
    ValueError
        If the shapes differ, the input is empty or not finite, or both series of a
        joint are identically zero (0/0).
    TypeError
        If ``per_joint`` is not a bool.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.validation import rms_index
    >>> o = np.array([1.0, 2.0, 3.0])
    >>> rms_index(o, o), rms_index(o, np.zeros(3)), round(rms_index(o, [1.0, 2.0, 4.0]), 4)
    (0.0, 1.0, 0.1201)
    """
    o, p, scalar = _pair(observed, predicted, per_joint)
    num, den = _theil(*_scaled(o, p))
    _undefined("the RMS index", den == 0, scalar, "observed and predicted are both identically zero")
    return _out(num / den, scalar)


def rsd_index(observed: np.ndarray, predicted: np.ndarray, per_joint: bool = True) -> float | np.ndarray:
    """Normalised residual standard deviation, in ``[0, 1]``.

    Theil's ``U1`` (:func:`rms_index`) applied to the deviations from the means
    ``o' = o - mean(o)``, ``p' = p - mean(p)`` :cite:`theil1958,bliemel1973`::

        RSD = std(p - o) / ( std(p) + std(o) )

    (population standard deviations, ``ddof = 0``).  The numerator is the standard
    deviation of the residual, so a constant offset between prediction and observation
    is *not* counted: ``0`` means perfect up to an offset, ``1`` is reached when
    ``p' = -c o'`` (``c >= 0``), e.g. a constant prediction.

    Parameters
    ----------
    observed, predicted : array_like, shape (N,) or (N, n)
        Measured and predicted series, same shape.
    per_joint : bool, default True
        For 2-D input, one index per column; ``False`` pools every entry (deviations
        from the mean of all entries).

    Returns
    -------
    float or numpy.ndarray, shape (n,)
        A float for 1-D input or ``per_joint=False``; one value per joint otherwise.

    Raises
    ------
    ValueError
        If the shapes differ, the input is empty or not finite, or both series of a
        joint are constant (0/0).
    TypeError
        If ``per_joint`` is not a bool.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.validation import rsd_index
    >>> o = np.array([1.0, 2.0, 3.0])
    >>> rsd_index(o, o + 5.0), rsd_index(o, np.full(3, 2.0)), round(rsd_index(o, [1.0, 2.0, 4.0]), 4)
    (0.0, 1.0, 0.2284)
    """
    o, p, scalar = _pair(observed, predicted, per_joint)
    # deviations from the means; shifting by the first sample first makes the deviations
    # of a constant series exactly zero (mean(0.1, 0.1, 0.1) != 0.1 in floating point)
    do, dp = o - o[0], p - p[0]
    num, den = _theil(*_scaled(do - do.mean(axis=0), dp - dp.mean(axis=0)))
    _undefined("the RSD index", den == 0, scalar, "observed and predicted are both constant")
    return _out(num / den, scalar)


def agreement_index(observed: np.ndarray, predicted: np.ndarray, per_joint: bool = True) -> float | np.ndarray:
    """Willmott's index of agreement ``d``, in ``[0, 1]``.

    With ``o_m`` the mean of the observations :cite:`willmott1981`::

        d = 1 - sum (p - o)^2 / sum (|p - o_m| + |o - o_m|)^2

    ``1`` is perfect agreement; ``0`` is no agreement, e.g. a constant prediction equal
    to the observed mean (the "model" that knows only the mean).  The denominator, the
    "potential error", bounds the numerator, so ``0 <= d <= 1``.

    Parameters
    ----------
    observed, predicted : array_like, shape (N,) or (N, n)
        Measured and predicted series, same shape.
    per_joint : bool, default True
        For 2-D input, one index per column (with that column's mean ``o_m``);
        ``False`` pools every entry (one mean for all).

    Returns
    -------
    float or numpy.ndarray, shape (n,)
        A float for 1-D input or ``per_joint=False``; one value per joint otherwise.

    Raises
    ------
    ValueError
        If the shapes differ, the input is empty or not finite, or the observed series
        of a joint is constant: then ``d`` is 0 whatever the prediction (or 0/0), so it
        is undefined.
    TypeError
        If ``per_joint`` is not a bool.

    Examples
    --------
    >>> import numpy as np
    >>> from robidlib.validation import agreement_index
    >>> o = np.array([1.0, 2.0, 3.0])
    >>> agreement_index(o, o), agreement_index(o, np.full(3, 2.0)), round(agreement_index(o, [1.0, 2.0, 4.0]), 4)
    (1.0, 0.0, 0.9231)
    """
    o, p, scalar = _pair(observed, predicted, per_joint)
    constant = np.all(o == o[0], axis=0)
    _undefined("the agreement index", constant, scalar, "the observed series is constant")
    # d is invariant to a common shift and scaling: work with deviations from o_m
    om = o.mean(axis=0)
    o, p = _scaled(o - om, p - om)
    num = np.sum((p - o) ** 2, axis=0)
    den = np.sum((np.abs(p) + np.abs(o)) ** 2, axis=0)
    return _out(1.0 - num / den, scalar)
