import numpy as np
import pytest

from robidlib._validate import as_array, check_choice, check_positive, check_rng


def test_as_array_accepts_and_checks_shape():
    a = as_array("x", [[1, 2], [3, 4]], ndim=2, shape=(None, 2))
    assert a.dtype == float and a.shape == (2, 2)
    with pytest.raises(ValueError, match=r"x must have shape \(any, 3\), got \(2, 2\)"):
        as_array("x", a, shape=(None, 3))
    with pytest.raises(ValueError, match="1 NaN or infinite entry"):
        as_array("x", [1.0, np.nan])
    with pytest.raises(TypeError, match="x must be numeric"):
        as_array("x", "abc")
    assert np.isnan(as_array("x", [np.nan], finite=False)[0])


def test_scalar_checks():
    assert check_positive("lam", 2) == 2.0
    assert check_positive("lam", 0, allow_zero=True) == 0.0
    for bad, exc in ((0, ValueError), (-1, ValueError), (np.inf, ValueError), ("1", TypeError), ([1, 2], TypeError), (True, TypeError)):
        with pytest.raises(exc):
            check_positive("lam", bad)
    assert check_choice("method", "qr", ("qr", "svd")) == "qr"
    with pytest.raises(ValueError, match="unknown method 'lu'; expected one of 'qr', 'svd'"):
        check_choice("method", "lu", ("qr", "svd"))


def test_check_rng_requires_seed():
    g = np.random.default_rng(1)
    assert check_rng(g) is g
    assert check_rng(5).integers(1000) == np.random.default_rng(5).integers(1000)
    with pytest.raises(TypeError, match="default_rng"):
        check_rng(None)
