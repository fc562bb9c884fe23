"""Tests of the Estimate result and of ols (the chapter-1 estimator)."""
import numpy as np
import pytest

from robidlib.estimation import Estimate, ols


def test_ols_matches_lstsq_and_covariance_formula():
    rng = np.random.default_rng(0)
    W = rng.normal(size=(200, 4))
    b = np.array([1.0, -2.0, 0.5, 3.0])
    y = W @ b + rng.normal(0, 0.1, 200)
    est = ols(W, y, names=["a", "b", "c", "d"])
    ref = np.linalg.lstsq(W, y, rcond=None)[0]
    np.testing.assert_allclose(est.params, ref, rtol=1e-12)
    res = y - W @ ref
    s2 = res @ res / (200 - 4)
    np.testing.assert_allclose(est.cov, s2 * np.linalg.inv(W.T @ W), rtol=1e-10)
    np.testing.assert_allclose(est.rel_std, 100 * np.sqrt(np.diag(est.cov)) / np.abs(ref), rtol=1e-12)
    assert est.rank == 4 and est.names == ("a", "b", "c", "d")
    np.testing.assert_allclose(est.cond, np.linalg.cond(W), rtol=1e-10)
    assert isinstance(est, Estimate) and est.method == "ols"
    assert "a" in est.table() and "truth" in est.table(truth=b)


def test_estimate_is_frozen():
    est = ols(np.column_stack([np.ones(4), np.arange(4.0)]), np.array([1.0, 2.0, 3.1, 4.0]))
    with pytest.raises(AttributeError):
        est.rank = 0  # type: ignore[misc]


def test_ols_rank_deficient_names_rank_and_base_parameters():
    W = np.column_stack([np.arange(10.0), 2 * np.arange(10.0), np.ones(10)])
    with pytest.raises(ValueError, match=r"numerical rank 2 < 3.*base parameters"):
        ols(W, np.ones(10))


@pytest.mark.parametrize(
    "W, y, match",
    [
        (np.ones(5), np.ones(5), "W must have 2 dimension"),
        (np.ones((5, 2)), np.ones(4), "W has 5 rows but y has 4"),
        (np.ones((2, 2)), np.ones(2), "more rows than parameters"),
        (np.array([[1.0, np.nan], [0, 1], [1, 1]]), np.ones(3), "W must be finite"),
        (np.eye(3)[:, :2], np.array([1.0, np.inf, 0]), "y must be finite"),
    ],
)
def test_ols_bad_input(W, y, match):
    with pytest.raises(ValueError, match=match):
        ols(W, y)


def test_ols_bad_names_and_types():
    W = np.column_stack([np.ones(4), np.arange(4.0)])
    with pytest.raises(ValueError, match="names must have 2 entries"):
        ols(W, np.ones(4), names=["a"])
    with pytest.raises(TypeError, match="W must be numeric"):
        ols("W", np.ones(4))
    with pytest.raises(ValueError, match="truth must have shape"):
        ols(W, np.arange(4.0)).table(truth=[1.0])


def test_default_rank_tol_matches_numpy_matrix_rank():
    from robidlib.estimation.lsq import default_rank_tol

    rng = np.random.default_rng(3)
    W = rng.normal(size=(40, 5)) @ np.diag([1.0, 1.0, 1.0, 1e-20, 1.0])
    s = np.linalg.svd(W, compute_uv=False)
    tol = default_rank_tol(s, W.shape)
    assert tol == pytest.approx(40 * np.finfo(float).eps * s.max())
    assert int(np.sum(s > tol)) == np.linalg.matrix_rank(W) == 4
    assert default_rank_tol(np.array([]), (0, 0)) == 0.0
