"""Tests of robidlib.checks.mixed_coordinates (chapter 10's exercises).

Every check accepts right answers as lists and float32, says "not answered yet" for an
untouched stub, never raises because of the answer (None, exceptions, NaN, wrong shapes get a
cross with a hint), and holds no solution code in its docstring.
"""

import inspect

import numpy as np
import pytest

from robidlib.checks import mixed_coordinates as mc
from robidlib.multibody import models, solve_driven, solve_velocities

CROSS, TICK = "\u2718", "\u2714"


def _good_full(q):
    q = np.asarray(q)
    return np.r_[q, np.cross(q[3:6], q[6:9])]


def _mass(m, inertia):
    J = (np.sum(inertia) - 2 * np.asarray(inertia)) / 2
    return np.diag(np.repeat(np.r_[m, J], 3))


def _out(capsys):
    return capsys.readouterr().out


def test_reduced_to_full(capsys):
    assert mc.check_reduced_to_full(_good_full) and TICK in _out(capsys)
    assert mc.check_reduced_to_full(lambda q: _good_full(q).astype(np.float32))        # float32
    assert mc.check_reduced_to_full(lambda q: list(_good_full(q)))                      # a list
    assert not mc.check_reduced_to_full(lambda q: np.r_[q, np.cross(q[6:9], q[3:6])])
    assert "wrong sign" in _out(capsys)
    assert not mc.check_reduced_to_full(lambda q: np.r_[q, q[3:6]])
    assert "right-handed orthonormal" in _out(capsys)
    assert not mc.check_reduced_to_full(lambda q: np.r_[q[:6], q[3:6], np.cross(q[3:6], q[6:9])])
    assert "unchanged" in _out(capsys)
    assert not mc.check_reduced_to_full(lambda q: np.cross(q[3:6], q[6:9]))
    assert "shape (12,)" in _out(capsys)
    assert not mc.check_reduced_to_full(lambda q: 1 / 0)
    assert "ZeroDivisionError" in _out(capsys)
    assert not mc.check_reduced_to_full(lambda q: None)
    assert "forget `return`" in _out(capsys)
    assert not mc.check_reduced_to_full(lambda q: np.full(12, np.nan))
    assert "NaN" in _out(capsys)
    assert not mc.check_reduced_to_full(lambda q: _good_full(q) + 0j)
    assert "complex" in _out(capsys)
    assert not mc.check_reduced_to_full(np.zeros(9))
    assert "expected a function" in _out(capsys)


def test_stubs_print_a_cross_with_a_hint(capsys):
    """The stubs as delivered: `...` bodies, `...` values, NotImplementedError."""

    def to_full(q_r):
        ...  # your code

    def body_mass_matrix(m, inertia):
        raise NotImplementedError

    assert not mc.check_reduced_to_full(to_full)
    assert "not answered yet" in _out(capsys)
    assert not mc.check_body_mass_matrix(body_mass_matrix)
    assert "not written yet" in _out(capsys)
    assert not mc.check_weight_scaling(np.logspace(0, -6, 7), ...)
    assert "not answered yet" in _out(capsys)
    m = models.simple_chain()
    ref = m.reference_motion(duration=0.02)
    assert not mc.check_consistent_velocities(m.system, ..., ..., ref.phid)
    assert "not answered yet" in _out(capsys)
    assert not mc.check_marker_choice([..., ..., ...])
    assert "not answered yet" in _out(capsys)
    assert not mc.check_marker_choice(...)
    assert "not answered yet" in _out(capsys)


def test_body_mass_matrix(capsys):
    assert mc.check_body_mass_matrix(_mass)
    assert mc.check_body_mass_matrix(lambda m, i: _mass(m, i).astype(np.float32))
    assert mc.check_body_mass_matrix(lambda m, i: _mass(m, i).tolist())
    # the moments of inertia instead of the second moments: a typical mistake
    assert not mc.check_body_mass_matrix(lambda m, i: np.diag(np.repeat(np.r_[m, i], 3)))
    assert "second moments" in _out(capsys)
    assert not mc.check_body_mass_matrix(lambda m, i: _mass(1.0, i))
    assert "m I3" in _out(capsys)
    assert not mc.check_body_mass_matrix(lambda m, i: _mass(m, i[::-1]))
    assert "differs" in _out(capsys)
    assert not mc.check_body_mass_matrix(lambda m, i: np.eye(9))
    assert "(12, 12)" in _out(capsys)
    assert not mc.check_body_mass_matrix(lambda m, i: i["xx"])
    assert "raised" in _out(capsys)
    assert not mc.check_body_mass_matrix(lambda m, i: None)
    assert "forget `return`" in _out(capsys)


def test_weight_scaling(capsys):
    w = np.logspace(0, -6, 7)
    assert mc.check_weight_scaling(w, 0.01 * w)
    assert mc.check_weight_scaling(list(w), list(0.01 * w))
    assert mc.check_weight_scaling(w.astype(np.float32), (0.01 * w).astype(np.float32))
    assert mc.check_weight_scaling(w, 0.01 * w / (1 + 5 * w))       # saturation near w = 1 is fine
    assert not mc.check_weight_scaling(w, 0.01 * np.sqrt(w))
    assert "expected an exponent near 1" in _out(capsys)
    assert not mc.check_weight_scaling([1.0, 0.1, 0.01], [1e-3, 1e-4, 1e-5])
    assert "at least three" in _out(capsys)
    assert not mc.check_weight_scaling(w, np.r_[0.0, 0.01 * w[1:]])
    assert "positive" in _out(capsys)
    assert not mc.check_weight_scaling(w, np.r_[np.nan, 0.01 * w[1:]])
    assert "NaN" in _out(capsys)
    assert not mc.check_weight_scaling(w, w[:3])                      # an answer's fault: no raise
    assert "shape" in _out(capsys)
    assert not mc.check_weight_scaling(["a", "b", "c"], [1, 2, 3])
    assert "numbers" in _out(capsys)
    assert not mc.check_weight_scaling(w, None)
    assert "None" in _out(capsys)


@pytest.fixture(scope="module")
def motion():
    m = models.simple_chain()
    ref = m.reference_motion(duration=0.03)
    return m, ref, solve_velocities(m.system, ref.q, angle_rates=ref.phid)


def test_consistent_velocities(capsys, motion):
    m, ref, qd = motion
    assert mc.check_consistent_velocities(m.system, ref.q, qd, ref.phid)
    assert mc.check_consistent_velocities(m.system, ref.q[1], ref.qd[1], ref.phid[1])       # one frame
    assert mc.check_consistent_velocities(m.system, ref.q.tolist(), qd.tolist(), ref.phid.tolist())
    # float32 answers (positions from the driven analysis, velocities by hand in float32)
    q32 = solve_driven(m.system, ref.theta, q0=m.zero_coordinates()).q.astype(np.float32)
    assert mc.check_consistent_velocities(m.system, q32, qd.astype(np.float32), ref.phid)
    bad = qd.copy()
    bad[:, 0] += 0.1                                  # moves O of the first body off its joint
    assert not mc.check_consistent_velocities(m.system, ref.q, bad, ref.phid)
    assert "Phi_q qd = 0 is violated" in _out(capsys)
    assert not mc.check_consistent_velocities(m.system, ref.q, qd, 2 * ref.phid)
    assert "angle rates" in _out(capsys)
    assert not mc.check_consistent_velocities(m.system, ref.q + 0.01, qd, ref.phid)
    assert "not a consistent position" in _out(capsys)
    assert not mc.check_consistent_velocities(m.system, ref.q, qd[:, :-1], ref.phid)
    assert not mc.check_consistent_velocities(m.system, ref.q, qd, ref.phid[:, :2])
    assert not mc.check_consistent_velocities(m.system, ref.q[:, :5], qd, ref.phid)
    assert not mc.check_consistent_velocities(m.system, ref.q, qd[:2], ref.phid)
    assert "same number of frames" in _out(capsys)
    nan = qd.copy()
    nan[0, 0] = np.nan
    assert not mc.check_consistent_velocities(m.system, ref.q, nan, ref.phid)
    assert "NaN" in _out(capsys)
    # issue 15: NaN angle rates used to pass (max(0, nan) is 0); NaN and inf are refused now
    rates = ref.phid.copy()
    rates[1, 2] = np.nan
    assert not mc.check_consistent_velocities(m.system, ref.q, qd, rates)
    assert "NaN" in _out(capsys)
    assert not mc.check_consistent_velocities(m.system, ref.q, qd, np.full_like(rates, np.inf))
    assert not mc.check_consistent_velocities(m.system, ref.q, "qd", ref.phid)
    assert not mc.check_consistent_velocities(m.system, ref.q, None, ref.phid)
    assert "None" in _out(capsys)
    with pytest.raises(TypeError, match="system must be a MultibodySystem"):   # a misuse, not an answer
        mc.check_consistent_velocities(m, ref.q, qd, ref.phid)


def test_marker_choice(capsys):
    assert mc.check_marker_choice(["P3", "P6", "P9", "P10", "P11", "P13", "P14", "P15"])
    assert "observable" in _out(capsys)
    assert mc.check_marker_choice(("P2", "P3", "P5", "P6", "P8", "P9", "P13", "P15"))   # the chapter's
    assert not mc.check_marker_choice(["P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8"])
    assert "not observable" in _out(capsys)
    # observable, but without the markers that see the end of the chain
    assert not mc.check_marker_choice(["P1", "P2", "P4", "P5", "P7", "P8", "P10", "P13"])
    assert "end of the chain" in _out(capsys)
    assert not mc.check_marker_choice(["P1", "P2"])
    assert "eight different" in _out(capsys)
    assert not mc.check_marker_choice(["P1"] * 8)
    assert "eight different" in _out(capsys)
    assert not mc.check_marker_choice(["P1", "P2", "P3", "P4", "P5", "P6", "P7", "P99"])
    assert "unknown marker" in _out(capsys)
    assert not mc.check_marker_choice("P1 P2")
    assert "list of eight" in _out(capsys)
    assert not mc.check_marker_choice(None)


def test_no_solution_code_in_the_docstrings():
    """Students read the checks with help(): no working answer in any docstring."""
    for name in mc.__all__:
        doc = inspect.getdoc(getattr(mc, name)) or ""
        for leak in ("np.cross", "np.repeat", "np.sum(", "solve_velocities", "linalg.solve",
                     "np.diag(np.repeat", "P13\", \"P14\", \"P15"):
            assert leak not in doc, f"{name}'s docstring shows {leak!r}"
