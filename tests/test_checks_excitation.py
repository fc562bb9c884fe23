"""Tests of robidlib.checks.excitation (exercise checks of chapter 4)."""

from __future__ import annotations

import doctest
import inspect

import numpy as np
import pytest

from robidlib.checks import excitation
from robidlib.dynamics import mass_matrix
from robidlib.estimation import ridge
from robidlib.models import redundant_5dof

CHECK, CROSS = "\u2714", "\u2718"


# ----------------------------------------------------------------------------- MAP
def _map(W, y, sigma, prior, prior_std):
    P = np.asarray(prior_std, dtype=float)
    return ridge(W * P, y, sigma**2, prior=np.asarray(prior) / P).params * P


def test_map_accepts_right_answers_as_float32_and_lists(capsys):
    assert excitation.check_map_estimate(_map)
    assert CHECK in capsys.readouterr().out
    assert excitation.check_map_estimate(lambda *a: _map(*a).tolist())
    # float32 carries 7 digits: inside the 1e-6 the checks ask for
    assert excitation.check_map_estimate(lambda *a: _map(*a).astype(np.float32))


def test_map_names_the_usual_mistakes(capsys):
    assert not excitation.check_map_estimate(lambda W, y, s, b0, p: _map(W, y, 1.0, b0, p))
    assert "noise level is missing" in capsys.readouterr().out
    assert not excitation.check_map_estimate(lambda W, y, s, b0, p: _map(W, y, s, b0, 1 / p))
    assert "weak prior" in capsys.readouterr().out
    assert not excitation.check_map_estimate(lambda W, y, s, b0, p: _map(W, y, s, b0, np.sqrt(p)))
    assert "its square" in capsys.readouterr().out
    # plain ridge with mu = sigma^2 and no prior spread: not unit-free, and wrong
    assert not excitation.check_map_estimate(lambda W, y, s, b0, p: ridge(W, y, s**2, prior=b0).params)
    assert "wrong estimate" in capsys.readouterr().out
    assert not excitation.check_map_estimate(lambda W, y, s, b0, p: np.zeros(W.shape[1] + 1))
    assert "shape" in capsys.readouterr().out


def test_map_unit_invariance_is_checked(capsys):
    # right on the fixed-unit problems but unit-dependent: caught by the invariance test
    calls = []

    def sneaky(W, y, s, b0, p):
        calls.append(1)
        return _map(W, y, s, b0, p) if len(calls) <= 3 else _map(W, y, s, b0, p) * 1.01

    assert not excitation.check_map_estimate(sneaky)
    assert "units" in capsys.readouterr().out


# ----------------------------------------------------------------------------- GCV
def _gcv(W, y, mu, prior):
    est = ridge(W, y, mu, prior=prior)
    m = W.shape[0]
    return float(np.sum((y - W @ est.params) ** 2) / m / (1 - est.info["dof"] / m) ** 2)


def test_gcv_right_and_wrong(capsys):
    assert excitation.check_gcv(_gcv)
    assert CHECK in capsys.readouterr().out
    assert excitation.check_gcv(lambda *a: [_gcv(*a)][0])

    def df_p(W, y, mu, prior):
        est = ridge(W, y, mu, prior=prior)
        m, p = W.shape
        return np.sum((y - W @ est.params) ** 2) / m / (1 - p / m) ** 2

    assert not excitation.check_gcv(df_p)
    assert "effective number" in capsys.readouterr().out

    def no_square(W, y, mu, prior):
        est = ridge(W, y, mu, prior=prior)
        m = W.shape[0]
        return np.sum((y - W @ est.params) ** 2) / m / (1 - est.info["dof"] / m)

    assert not excitation.check_gcv(no_square)
    assert "square the denominator" in capsys.readouterr().out
    assert not excitation.check_gcv(lambda W, y, mu, prior: m_times(W, y, mu, prior))
    assert "number of rows" in capsys.readouterr().out
    assert not excitation.check_gcv(lambda *a: 0.0)
    assert "wrong GCV" in capsys.readouterr().out


def m_times(W, y, mu, prior):
    return _gcv(W, y, mu, prior) * W.shape[0]


# ----------------------------------------------------------------------------- telescope
def _elbow(q5):
    return mass_matrix(redundant_5dof(), np.array([0.25, 0.0, 0.3, 0.5, q5]))[3, 3]


def test_telescope_inertia(capsys):
    assert excitation.check_telescope_inertia(_elbow)
    out = capsys.readouterr().out
    assert CHECK in out and "grows by a factor" in out
    assert excitation.check_telescope_inertia(lambda q5: [float(_elbow(q5))][0])
    assert not excitation.check_telescope_inertia(
        lambda q5: mass_matrix(redundant_5dof(), np.array([0.25, 0.0, 0.3, 0.5, q5])))
    assert "not the whole matrix" in capsys.readouterr().out
    assert not excitation.check_telescope_inertia(
        lambda q5: mass_matrix(redundant_5dof(), np.array([0.25, 0.0, 0.3, 0.5, q5]))[2, 2])
    assert "joint 3" in capsys.readouterr().out
    assert not excitation.check_telescope_inertia(lambda q5: 1.0)
    assert "wrong value" in capsys.readouterr().out


def test_float32_answers_pass_where_the_precision_allows(capsys):
    # a float32 value has a relative precision of 6e-8, inside the 1e-6 of the checks
    assert excitation.check_telescope_inertia(lambda q5: np.float32(_elbow(q5)))
    assert excitation.check_gcv(lambda *a: np.float32(_gcv(*a)))


# ----------------------------------------------------------------------------- untouched stubs
@pytest.mark.parametrize("name", excitation.__all__)
def test_untouched_stubs_print_a_cross_and_never_raise(name, capsys):
    check = getattr(excitation, name)

    def stub(*args):
        ...  # the student's body, untouched

    def unfinished(*args):
        raise NotImplementedError

    assert check(stub) == False
    assert "not answered yet" in capsys.readouterr().out
    assert check(unfinished) == False
    assert CROSS + " not answered yet: `unfinished` is not written yet" in capsys.readouterr().out
    assert check(...) == False
    assert "not answered yet" in capsys.readouterr().out
    assert check(42) == False
    assert "pass your function itself" in capsys.readouterr().out
    assert check(lambda *a: 1 / 0) == False
    assert "ZeroDivisionError" in capsys.readouterr().out


def test_docstrings_hold_no_solution_code():
    for name in excitation.__all__:
        doc = inspect.getdoc(getattr(excitation, name))
        for word in (" ridge(", "svd(", "mass_matrix(", "linalg.", "norm("):
            assert word not in doc, f"{name}'s docstring shows solution code ({word})"


def test_docstring_examples_run():
    result = doctest.testmod(excitation, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 3 and result.failed == 0
