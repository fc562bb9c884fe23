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


def test_as_array_refuses_bools_where_numbers_are_meant():
    """``True`` and a bool mask would silently become 1 and 0 (issue 26, item 12)."""
    for bad in (True, np.bool_(False), np.array([True, False]), [True, False], np.ones((2, 2), dtype=bool)):
        with pytest.raises(TypeError, match="q must be numeric array-like, got .*bool"):
            as_array("q", bad)
    with pytest.raises(TypeError, match="q must be numeric"):
        as_array("q", np.array([1.0, True], dtype=object))
    assert as_array("q", np.array([1, 0])).tolist() == [1.0, 0.0]          # integers are numbers


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


def test_as_array_refuses_complex_and_text_arrays_without_casting():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")                      # no ComplexWarning either
        with pytest.raises(TypeError, match=r"q must be real, got a complex array \(dtype complex128\)"):
            as_array("q", np.array([1.0 + 0j, 2.0]))
        with pytest.raises(TypeError, match="q must be real, got a complex array"):
            as_array("q", [1j, 2.0])
    assert as_array("z", [1j], dtype=complex)[0] == 1j       # asked for: kept
    with pytest.raises(TypeError, match=r"x must be numeric array-like, got an array of dtype <U1"):
        as_array("x", ["a", "b"])
    with pytest.raises(TypeError, match="x must be numeric array-like, got list"):
        as_array("x", [[1.0, 2.0], [3.0]])                  # ragged
    with pytest.raises(TypeError, match="x must be numeric array-like, got list holding NoneType None"):
        as_array("x", [None, 1.0])          # None would become NaN
    a = np.ones(3)
    assert as_array("x", a) is a                            # no copy when nothing changes


def test_tolerance_int_flag_text_and_names_checks():
    from robidlib._validate import MIN_REL_TOL, check_flag, check_int, check_names, check_text, check_tolerance

    assert check_tolerance("tol", 1e-8) == 1e-8 and check_tolerance("tol", 0.0, allow_zero=True) == 0.0
    with pytest.raises(ValueError, match=r"tol must be >= 2.22e-14 \(smaller tolerances are below double"):
        check_tolerance("tol", 1e-300)
    assert MIN_REL_TOL == 100 * np.finfo(float).eps
    for bad, exc in ((np.nan, ValueError), (-1e-3, ValueError), ("1e-3", TypeError), (0.0, ValueError)):
        with pytest.raises(exc, match="tol"):
            check_tolerance("tol", bad)
    assert check_int("order", np.int64(4), 1, 20) == 4
    for bad, exc, msg in ((0, ValueError, "order must be >= 1, got 0"), (21, ValueError, "order must be <= 20"),
                          (2.0, TypeError, "order must be an int, got float 2.0"), (True, TypeError, "got bool")):
        with pytest.raises(exc, match=msg):
            check_int("order", bad, 1, 20)
    assert check_flag("per_joint", np.bool_(True)) is True
    with pytest.raises(TypeError, match="per_joint must be True or False, got str 'no'"):
        check_flag("per_joint", "no")
    assert check_text("name", "") == ""
    with pytest.raises(TypeError, match="name must be a string, got int 3"):
        check_text("name", 3)
    with pytest.raises(ValueError, match="name must be a non-empty string"):
        check_text("name", "", allow_empty=False)
    assert check_names("names", ["a", "b"], 2) == ("a", "b")
    for bad, exc, msg in (("ab", TypeError, "got the string 'ab'"), ([1], TypeError, "must hold strings, got int"),
                          (["a"], ValueError, "must have 2 entries, got 1"), (["a", "a"], ValueError, "'a' twice")):
        with pytest.raises(exc, match=msg):
            check_names("names", bad, 2 if exc is ValueError and "entries" in msg else None)
