"""Tests of robidlib.params: names, inertia conversions, frame changes, consistency."""

import numpy as np
import pytest

from robidlib.params import (
    PARAM_FIELDS,
    com_to_origin,
    friction_names,
    from_pinocchio_order,
    inertia_matrix,
    inertia_vector,
    is_physically_consistent,
    link_params,
    origin_to_com,
    param_names,
    split_link_params,
    to_pinocchio_order,
    transform_params,
)
from robidlib.spatial import rpy_to_matrix


def point_cloud(rng, k=40):
    """Point masses and their exact mass, first moment and inertia about the origin."""
    m = rng.uniform(0.1, 1.0, k)
    r = rng.normal(size=(k, 3)) * [0.3, 0.1, 0.2] + [0.2, -0.1, 0.05]
    I = np.einsum("k,kij->ij", m, np.einsum("ki,ki->k", r, r)[:, None, None] * np.eye(3) - np.einsum("ki,kj->kij", r, r))
    return m, r, m.sum(), m @ r, I


def test_names():
    assert param_names(1) == ("m1", "mx1", "my1", "mz1", "Ixx1", "Iyy1", "Izz1", "Ixy1", "Ixz1", "Iyz1")
    names = param_names(3)
    assert len(names) == 30 and names[10] == "m2" and names[-1] == "Iyz3"
    assert PARAM_FIELDS[4:] == ("Ixx", "Iyy", "Izz", "Ixy", "Ixz", "Iyz")
    assert friction_names(2) == ("fv1", "fc1", "fv2", "fc2")
    assert friction_names(2, ("coulomb",), offset=True) == ("fc1", "off1", "fc2", "off2")
    assert friction_names(1, (), offset=True) == ("off1",)


def test_inertia_matrix_vector_round_trip():
    v = np.array([[1.0, 2.0, 3.0, 0.1, -0.2, 0.3], [4.0, 5.0, 6.0, 0.0, 0.5, -0.1]])
    I = inertia_matrix(v)
    assert I.shape == (2, 3, 3)
    assert np.allclose(I, np.swapaxes(I, 1, 2))
    assert I[0, 0, 2] == -0.2 and I[1, 1, 2] == -0.1
    assert np.allclose(inertia_vector(I), v)


def test_parallel_axis_against_point_masses():
    rng = np.random.default_rng(0)
    m, r, M, h, I_O = point_cloud(rng)
    c = h / M
    d = r - c
    I_C = np.einsum("k,kij->ij", m, np.einsum("ki,ki->k", d, d)[:, None, None] * np.eye(3) - np.einsum("ki,kj->kij", d, d))
    assert np.allclose(com_to_origin(M, c, I_C), I_O)
    assert np.allclose(origin_to_com(M, c, I_O), I_C)
    assert np.allclose(com_to_origin(M, c, inertia_vector(I_C)), I_O)  # vector form accepted
    # batched
    assert com_to_origin([M, M], [c, c], [I_C, I_C]).shape == (2, 3, 3)


def test_link_params_and_split_round_trip():
    rng = np.random.default_rng(1)
    m, r, M, h, I_O = point_cloud(rng)
    c = h / M
    pi = link_params(M, c, I_O, about="origin")
    assert np.allclose(pi[:4], [M, *h])
    assert np.allclose(inertia_matrix(pi[4:]), I_O)
    mass, com, I_C = split_link_params(pi)
    assert np.allclose(mass, M) and np.allclose(com, c)
    assert np.allclose(link_params(mass[0], com[0], I_C[0], about="com"), pi)
    _, _, I_O2 = split_link_params(pi, about="origin")
    assert np.allclose(I_O2[0], I_O)
    # zero mass and zero first moment: com reported as 0
    m0, c0, _ = split_link_params(np.r_[pi, np.zeros(10)])
    assert m0[1] == 0 and np.all(c0[1] == 0)


def test_transform_params_against_point_masses():
    rng = np.random.default_rng(2)
    m, r, M, h, I_B = point_cloud(rng)
    R = rpy_to_matrix([0.3, -0.7, 1.1])
    p = np.array([0.4, -0.2, 0.9])
    rA = r @ R.T + p  # the same points in frame A
    IA = np.einsum("k,kij->ij", m, np.einsum("ki,ki->k", rA, rA)[:, None, None] * np.eye(3) - np.einsum("ki,kj->kij", rA, rA))
    piB = link_params(M, h / M, I_B, about="origin")
    piA = transform_params(piB, R, p)
    assert np.allclose(piA, link_params(M, (m @ rA) / M, IA, about="origin"))
    # batched over bodies, and the identity transform changes nothing
    assert np.allclose(transform_params(np.stack([piB, piB]), np.eye(3), np.zeros(3)), piB)


def test_pinocchio_order_is_a_permutation_of_named_fields():
    guide = np.array(["m", "mx", "my", "mz", "Ixx", "Iyy", "Izz", "Ixy", "Ixz", "Iyz"])
    codes = np.arange(20.0)  # two links
    pin = to_pinocchio_order(codes)
    order = [guide[int(k) % 10] for k in pin[:10]]
    assert order == ["m", "mx", "my", "mz", "Ixx", "Ixy", "Iyy", "Ixz", "Iyz", "Izz"]
    assert np.all(pin[10:] >= 10)
    assert np.array_equal(from_pinocchio_order(pin), codes)
    # works along any axis (regressor columns)
    Y = np.arange(60.0).reshape(3, 20)
    assert np.array_equal(to_pinocchio_order(Y, axis=1), np.stack([to_pinocchio_order(row) for row in Y]))


def test_physical_consistency():
    good = link_params(2.0, [0.1, 0.0, 0.05], [0.02, 0.03, 0.04, 0.001, 0.0, 0.0])
    assert is_physically_consistent(good)
    neg_mass = good.copy()
    neg_mass[0] = -1.0
    not_pd = link_params(2.0, [0.1, 0, 0], [0.02, -0.01, 0.04, 0, 0, 0])
    triangle = link_params(1.0, [0.0, 0, 0], [0.01, 0.01, 0.05, 0, 0, 0])
    pi = np.concatenate([good, neg_mass, not_pd, triangle])
    assert not is_physically_consistent(pi)
    assert is_physically_consistent(pi, per_link=True).tolist() == [True, False, False, False]
    # a tolerance makes a barely consistent body fail
    thin = link_params(1.0, [0, 0, 0], [1e-9, 1.0, 1.0, 0, 0, 0])
    assert is_physically_consistent(thin) and not is_physically_consistent(thin, tol=1e-6)


# ---------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: param_names(0), ValueError, "n must be a positive integer"),
        (lambda: param_names(2.0), ValueError, "n must be a positive integer"),
        (lambda: friction_names(2, ("viscous", "stribeck")), ValueError, "unknown friction term 'stribeck'"),
        (lambda: friction_names(2, ("viscous", "viscous")), ValueError, "must not repeat"),
        (lambda: friction_names(2, ()), ValueError, "no column"),
        (lambda: friction_names(2, "viscous"), ValueError, "sequence of names"),
        (lambda: friction_names(2, offset="yes"), TypeError, "offset must be True or False"),
        (lambda: inertia_matrix([1.0, 2.0, 3.0]), ValueError, r"v must have shape \(\.\.\., 6\)"),
        (lambda: inertia_vector([[1, 2, 0], [0, 1, 0], [0, 0, 1]]), ValueError, "I must be symmetric"),
        (lambda: inertia_vector(np.eye(2)), ValueError, "I must have shape"),
        (lambda: com_to_origin(1.0, [0, 0], np.eye(3)), ValueError, "com must have shape"),
        (lambda: com_to_origin([1.0, 2.0], [[0, 0, 0]], np.eye(3)), ValueError, "com must have shape"),
        (lambda: com_to_origin(1.0, [0, 0, 0], np.eye(2)), ValueError, "inertia_com must have shape"),
        (lambda: origin_to_com(np.nan, [0, 0, 0], np.eye(3)), ValueError, "mass must be finite"),
        (lambda: link_params(-1.0, [0, 0, 0], np.eye(3)), ValueError, "mass must be >= 0"),
        (lambda: link_params(1.0, [0, 0, 0], np.eye(3), about="centre"), ValueError, "unknown about"),
        (lambda: split_link_params(np.ones(9)), ValueError, r"pi must have shape \(\.\.\., 10 n\)"),
        (lambda: split_link_params(np.r_[0.0, 1.0, np.zeros(8)]), ValueError, "zero mass but a non-zero first moment"),
        (lambda: transform_params(np.ones(9), np.eye(3), np.zeros(3)), ValueError, "pi must have shape"),
        (lambda: transform_params(np.ones(10), 2 * np.eye(3), np.zeros(3)), ValueError, "R must be a rotation"),
        (lambda: transform_params(np.ones(10), np.eye(3), [np.inf, 0, 0]), ValueError, "p must be finite"),
        (lambda: to_pinocchio_order(np.ones(15)), ValueError, "multiple of 10"),
        (lambda: from_pinocchio_order(3.0), ValueError, "at least one dimension"),
        (lambda: is_physically_consistent(np.ones((2, 10))), ValueError, r"pi must have shape \(10 n,\)"),
        (lambda: is_physically_consistent(np.ones(10), tol=-1.0), ValueError, "tol must be >= 0"),
        (lambda: is_physically_consistent(np.full(10, np.nan)), ValueError, "pi must be finite"),
    ],
)
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_docstring_examples_run():
    import doctest

    import robidlib.params as module

    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
