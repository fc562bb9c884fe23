"""Tests of robidlib.params: names, inertia conversions, frame changes, consistency."""

import numpy as np
import pytest
from _required import required

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


# ------------------------------------------------------- pseudo-inertia and consistency report
from robidlib.params import (  # noqa: E402  (new helpers, tested below)
    CONSISTENCY_CONDITIONS,
    consistency_report,
    nearest_consistent,
    pseudo_inertia,
    pseudo_inertia_params,
)


def random_rotation(rng):
    Q, R = np.linalg.qr(rng.normal(size=(3, 3)))
    Q = Q * np.sign(np.diag(R))
    return Q if np.linalg.det(Q) > 0 else -Q


def random_body(rng, flat=False):
    """A consistent body: mass, centre of mass, principal second moments s >= 0 (so the
    principal moments s2 + s3, s1 + s3, s1 + s2 satisfy the triangle inequalities), rotated."""
    m = rng.uniform(0.1, 10.0)
    c = rng.normal(size=3) * 0.3
    s = rng.uniform(0.0, 0.05, 3) * m
    if flat:
        s[rng.integers(3)] = 0.0  # a flat body: on the boundary of J >= 0
    moments = np.array([s[1] + s[2], s[0] + s[2], s[0] + s[1]])
    R = random_rotation(rng)
    return link_params(m, c, R @ np.diag(moments) @ R.T)


def test_pseudo_inertia_is_the_second_moment_matrix_of_point_masses():
    rng = np.random.default_rng(11)
    m, r, M, h, I = point_cloud(rng)
    pi = np.r_[M, h, inertia_vector(I)]
    rh = np.column_stack([r, np.ones(len(m))])
    expected = np.einsum("k,ki,kj->ij", m, rh, rh)
    np.testing.assert_allclose(pseudo_inertia(pi), expected, rtol=1e-12, atol=1e-12)
    # batched, and inverted
    P = np.stack([pi, 2 * pi])
    np.testing.assert_allclose(pseudo_inertia(P)[1], 2 * expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(pseudo_inertia_params(pseudo_inertia(P)), P, rtol=1e-12, atol=1e-14)


def test_pseudo_inertia_is_psd_for_every_consistent_random_body():
    rng = np.random.default_rng(2024)
    for k in range(300):
        pi = random_body(rng, flat=(k % 5 == 0))
        J = pseudo_inertia(pi)
        lam = np.linalg.eigvalsh(J)
        assert lam[0] >= -1e-12 * np.abs(lam).max()
        rep = consistency_report(pi)
        if k % 5:  # strictly inside: every condition holds
            assert rep and rep.failures == () and lam[0] > 0
        else:  # flat: J is singular but still PSD, and the triangle inequality is an equality
            assert abs(rep.triangle_margin[0]) <= 1e-12 * pi[4:7].sum()
            assert "pseudo-inertia" not in {cond for _, cond, _ in rep.failures}


def test_pseudo_inertia_psd_is_equivalent_to_mass_and_triangle_inequality():
    """Random, mostly inconsistent bodies: J >= 0 exactly when m >= 0 and the principal moments
    about the centre of mass satisfy the triangle inequalities (Wensing et al.)."""
    rng = np.random.default_rng(5)
    agree = 0
    for _ in range(500):
        pi = random_body(rng) + rng.normal(size=10) * np.r_[0.5, 0.1, 0.1, 0.1, [0.02] * 6]
        if pi[0] < 0:  # a negative mass is a negative diagonal entry of J
            assert np.linalg.eigvalsh(pseudo_inertia(pi))[0] < 0
            continue
        if pi[0] < 1e-3:
            continue
        rep = consistency_report(pi)
        lam_min = np.linalg.eigvalsh(pseudo_inertia(pi))[0]
        tri = rep.triangle_margin[0]
        if abs(tri) < 1e-9 or abs(lam_min) < 1e-9:
            continue  # too close to the boundary for the sign to be meaningful
        assert (lam_min > 0) == (tri > 0)
        agree += 1
    assert agree > 300


def test_counterexamples_fail_and_the_report_names_link_and_condition():
    good = link_params(2.0, [0.1, 0.0, 0.05], [0.02, 0.03, 0.04, 0.001, 0.0, 0.0])
    negative_mass = good.copy()
    negative_mass[0] = -0.5
    triangle = link_params(1.0, [0.0, 0, 0], [0.01, 0.01, 0.05, 0, 0, 0])  # 0.01 + 0.01 < 0.05
    # valid-looking: positive mass, and the inertia about the origin is positive definite and
    # satisfies the triangle inequalities; but the centre of mass (1 m away) is too far for
    # such a small inertia, so the inertia about the centre of mass is not positive definite
    looks_valid = np.r_[1.0, 1.0, 0.0, 0.0, 0.1, 0.1, 0.1, 0.0, 0.0, 0.0]
    Io = inertia_matrix(looks_valid[4:])
    assert np.linalg.eigvalsh(Io).min() > 0 and looks_valid[0] > 0
    for body in (negative_mass, triangle, looks_valid):
        assert np.linalg.eigvalsh(pseudo_inertia(body))[0] < -1e-3
    rep = consistency_report(np.concatenate([good, negative_mass, triangle, looks_valid]))
    assert not rep and rep.per_link.tolist() == [True, False, False, False]
    named = {(j, cond) for j, cond, _ in rep.failures}
    assert named == {
        (2, "mass"), (2, "pseudo-inertia"),
        (3, "triangle inequality"), (3, "pseudo-inertia"),
        (4, "positive definite"), (4, "triangle inequality"), (4, "pseudo-inertia"),
    }
    assert {cond for _, cond in named} <= set(CONSISTENCY_CONDITIONS)
    assert "link 2: mass: m = -0.5 kg" in rep.reason and "link 4" in str(rep)
    assert np.isnan(rep.min_moment[1]) and rep.min_moment[3] < 0
    assert rep.min_eig_pseudo[0] > 0 and np.all(rep.min_eig_pseudo[1:] < 0)
    assert "all 1 link(s) pass" in str(consistency_report(good))


def test_report_agrees_with_is_physically_consistent():
    rng = np.random.default_rng(8)
    for tol in (0.0, 1e-6, 1e-3):
        for _ in range(50):
            pi = np.concatenate([random_body(rng) + rng.normal(size=10) * 0.01 for _ in range(3)])
            rep = is_physically_consistent(pi, tol=tol, explain=True)
            assert bool(rep) == is_physically_consistent(pi, tol=tol)
            assert rep.per_link.tolist() == is_physically_consistent(pi, tol=tol, per_link=True).tolist()
            assert rep.tol == tol and (rep.failures == ()) == bool(rep)


def _scaled_distance(a, b, L):
    d = np.r_[1.0 / L, 1.0 / L, 1.0 / L, 1.0]
    return np.linalg.norm(d[:, None] * (pseudo_inertia(a) - pseudo_inertia(b)) * d[None, :])


def test_nearest_consistent_projects_and_is_nearest():
    rng = np.random.default_rng(3)
    good = random_body(rng)
    bad = [
        np.r_[-0.2, good[1:]],
        link_params(1.0, [0.1, 0, 0], [0.01, 0.01, 0.05, 0, 0, 0]),
        np.r_[1.0, 1.0, 0.0, 0.0, 0.1, 0.1, 0.1, 0.0, 0.0, 0.0],
    ]
    pi = np.concatenate([good] + bad)
    L = np.array([0.3, 0.2, 0.2, 0.5])
    out = nearest_consistent(pi, margin=1e-6, length=L)
    assert is_physically_consistent(out)
    np.testing.assert_array_equal(out[:10], good)  # consistent links are not touched
    out0 = nearest_consistent(pi, length=L)  # margin 0: on the boundary of J >= 0
    for j in range(1, 4):
        pj, qj = pi[10 * j: 10 * j + 10], out0[10 * j: 10 * j + 10]
        lam = np.linalg.eigvalsh(pseudo_inertia(qj))
        assert lam[0] >= -1e-12 * lam[-1] and abs(lam[0]) <= 1e-9 * lam[-1]
        best = _scaled_distance(pj, qj, L[j])
        # no consistent body near the projection is closer in the scaled metric
        d = np.r_[[L[j]] * 3, 1.0]
        Jq = pseudo_inertia(qj) / d[:, None] / d[None, :]
        tried = 0
        for _ in range(300):
            E = rng.normal(size=(4, 4))
            Jc = Jq + 1e-2 * np.linalg.eigvalsh(Jq)[-1] * (E + E.T)
            if np.linalg.eigvalsh(Jc)[0] >= 0:
                tried += 1
                cand = pseudo_inertia_params(Jc * d[:, None] * d[None, :])
                assert _scaled_distance(pj, cand, L[j]) >= best - 1e-12
        assert tried >= 20
    # the metric depends on the length scale: a different L gives a different projection
    assert not np.allclose(nearest_consistent(pi, length=1.0), out0)


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: pseudo_inertia(np.ones(9)), ValueError, r"pi_j must have shape \(10,\)"),
        (lambda: pseudo_inertia(np.ones(20)), ValueError, "of one link, got"),
        (lambda: pseudo_inertia(np.full(10, np.inf)), ValueError, "pi_j must be finite"),
        (lambda: pseudo_inertia(np.ones(10) * 1j), TypeError, "pi_j must be real"),
        (lambda: pseudo_inertia("m"), TypeError, "pi_j must be numeric"),
        (lambda: pseudo_inertia_params(np.eye(3)), ValueError, r"J must have shape \(4, 4\)"),
        (lambda: pseudo_inertia_params(np.triu(np.ones((4, 4)))), ValueError, "J must be symmetric"),
        (lambda: pseudo_inertia_params(np.eye(4), tol=-1), ValueError, "tol must be >= 0"),
        (lambda: consistency_report(np.ones(10), tol=-1e-3), ValueError, "tol must be >= 0"),
        (lambda: consistency_report(np.ones(10), tol=np.nan), ValueError, "tol must be finite"),
        (lambda: consistency_report(np.ones((2, 10))), ValueError, r"pi must have shape \(10 n,\)"),
        (lambda: consistency_report(np.ones(12)), ValueError, "10 n"),
        (lambda: consistency_report(np.ones(10) + 0j), TypeError, "pi must be real"),
        (lambda: consistency_report([]), ValueError, "n >= 1 links"),
        (lambda: nearest_consistent(np.ones(10), margin=-1.0), ValueError, "margin must be >= 0"),
        (lambda: nearest_consistent(np.ones(10), length=0.0), ValueError, "length must be > 0"),
        (lambda: nearest_consistent(np.ones(20), length=[1.0, 2.0, 3.0]), ValueError, r"length must be a scalar or have shape \(2,\)"),
        (lambda: nearest_consistent(np.ones(10), length=np.nan), ValueError, "length must be finite"),
        (lambda: nearest_consistent(np.ones(10) * 1j), TypeError, "pi must be real"),
        (lambda: nearest_consistent(np.full(10, np.nan)), ValueError, "pi must be finite"),
    ],
)
def test_bad_input_of_consistency_helpers(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_nearest_consistent_matches_a_semidefinite_program():
    """The eigenvalue clipping is the solution of min ||D (J' - J) D||_F s.t. J' >= 0."""
    cp = required("cvxpy")
    bad = link_params(1.0, [0.1, 0, 0], [0.01, 0.01, 0.05, 0.004, 0, 0])
    L = 0.25
    d = np.r_[1 / L, 1 / L, 1 / L, 1.0]
    X = cp.Variable((4, 4), PSD=True)
    target = d[:, None] * pseudo_inertia(bad) * d[None, :]
    cp.Problem(cp.Minimize(cp.sum_squares(X - target))).solve(solver="CLARABEL")
    expected = pseudo_inertia_params(((X.value + X.value.T) / 2) / d[:, None] / d[None, :])
    np.testing.assert_allclose(nearest_consistent(bad, length=L), expected, atol=1e-6)
