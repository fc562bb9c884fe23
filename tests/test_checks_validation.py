"""Tests of the chapter-9 exercise checks (validation and comparison of methods)."""

import doctest

import numpy as np
import pytest

from robidlib.benchmark import FitResult, fit_ls, fit_map, make_study
from robidlib.checks import validation
from robidlib.checks.validation import check_agreement_index, check_parameter_error, check_prior_method
from robidlib.estimation.lsq import ridge
from robidlib.models import planar_2r
from robidlib.validation import agreement_index, relative_parameter_error


def test_doctests_run():
    result = doctest.testmod(validation, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


# ---------------------------------------------------------------------- agreement index
def test_agreement_index_right_and_common_mistakes(capsys):
    assert check_agreement_index(lambda o, p: agreement_index(o, p))
    assert "\u2714" in capsys.readouterr().out

    def squared_sum(o, p):               # forgot the absolute values
        om = o.mean()
        return 1 - np.sum((p - o) ** 2) / np.sum(((p - om) + (o - om)) ** 2)

    assert not check_agreement_index(squared_sum)
    assert "absolute values" in capsys.readouterr().out

    def one_minus(o, p):
        return 1 - agreement_index(o, p)

    assert not check_agreement_index(one_minus)
    assert "1 - d" in capsys.readouterr().out
    def r_squared(o, p):                 # r^2 is not d (and is undefined for a constant p)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.corrcoef(o, p)[0, 1] ** 2

    assert not check_agreement_index(r_squared)
    assert "\u2718" in capsys.readouterr().out
    assert not check_agreement_index(lambda o, p: [1.0, 2.0])
    assert "must be one number" in capsys.readouterr().out
    assert not check_agreement_index(lambda o, p: 1 / 0)
    assert "ZeroDivisionError" in capsys.readouterr().out
    # float32 and one-element lists are fine answers
    assert check_agreement_index(lambda o, p: np.float32(agreement_index(o, p)))
    assert check_agreement_index(lambda o, p: [agreement_index(o, p)])
    assert "\u2714" in capsys.readouterr().out


def test_agreement_index_unanswered_and_malformed_answers_print_a_cross(capsys):
    def stub(o, p):
        """Willmott's d."""
        ...  # your code here

    assert not check_agreement_index(stub)
    assert "not answered yet" in capsys.readouterr().out

    def not_yet(o, p):
        raise NotImplementedError

    assert not check_agreement_index(not_yet)
    assert "not written yet" in capsys.readouterr().out
    assert not check_agreement_index(...)
    assert "not answered yet" in capsys.readouterr().out
    assert not check_agreement_index(0.5)
    assert "expected a function" in capsys.readouterr().out
    assert not check_agreement_index(lambda o, p: complex(1, 1))
    assert "complex" in capsys.readouterr().out
    assert not check_agreement_index(lambda o, p: float("nan"))
    assert "NaN" in capsys.readouterr().out


# ---------------------------------------------------------------------- parameter error
def test_parameter_error_right_and_common_mistakes(capsys):
    assert check_parameter_error(relative_parameter_error)
    assert "\u2714" in capsys.readouterr().out
    assert not check_parameter_error(lambda e, b: relative_parameter_error(e, b) / 100)
    assert "multiply by 100" in capsys.readouterr().out
    assert not check_parameter_error(lambda e, b: relative_parameter_error(e, b) / 2)
    assert "factor 2/p" in capsys.readouterr().out

    def plain_relative(e, b):            # divides by |b|: breaks for a zero true value
        return 100 * np.mean(np.abs(e - b) / np.abs(b))

    with np.errstate(divide="ignore", invalid="ignore"):
        assert not check_parameter_error(plain_relative)
    assert "\u2718" in capsys.readouterr().out

    def nan_for_zeros(e, b):             # 0/0 for an exact zero
        with np.errstate(invalid="ignore"):
            return 100 * 2 * np.mean(np.abs(e - b) / (np.abs(b) + np.abs(e)))

    assert not check_parameter_error(nan_for_zeros)
    assert "NaN" in capsys.readouterr().out
    assert check_parameter_error(lambda e, b: np.float32(relative_parameter_error(e, b)))   # float32 precision
    assert "\u2714" in capsys.readouterr().out


def test_parameter_error_unanswered_prints_a_cross(capsys):
    assert not check_parameter_error(lambda e, b: None)
    assert "did you forget `return`?" in capsys.readouterr().out
    assert not check_parameter_error("delta")
    assert "expected a function" in capsys.readouterr().out


# ------------------------------------------------------------------------- prior method
@pytest.fixture(scope="module")
def problem():
    return make_study(planar_2r(), seed=2, duration=2.0, optimize=0, validation_duration=0.5).problem(0.05, rng=1)


def _ridge(lam):
    def fit(problem):
        D = problem.column_scale
        est = ridge(problem.W / D, problem.y, lam=lam, prior=problem.prior * D)
        return FitResult(est.params / D, 1)
    return fit


def test_prior_method_right_and_wrong(problem, capsys):
    assert check_prior_method(_ridge(10.0), problem)
    assert "\u2714" in capsys.readouterr().out
    assert not check_prior_method(fit_ls, problem)                        # ignores the prior
    assert "ignores the prior" in capsys.readouterr().out
    assert not check_prior_method(_ridge(1e9), problem)                    # ignores the data
    assert "regularise less" in capsys.readouterr().out
    assert not check_prior_method(lambda p: p.prior, problem)
    assert "must return a FitResult" in capsys.readouterr().out
    assert not check_prior_method(lambda p: FitResult(np.ones(3), 1), problem)
    assert "params must have shape (6,)" in capsys.readouterr().out
    assert not check_prior_method(lambda p: FitResult(np.full(6, np.nan), 1), problem)
    assert "NaN" in capsys.readouterr().out
    assert not check_prior_method(lambda p: FitResult(p.prior, -1), problem)
    assert "iterations must be" in capsys.readouterr().out      # FitResult itself refuses -1 now

    def mutates(p):
        p.prior[:] = 0.0
        return fit_ls(p)

    fresh = make_study(planar_2r(), seed=2, duration=2.0, optimize=0, validation_duration=0.5).problem(0.05, rng=1)
    assert not check_prior_method(mutates, fresh)
    assert "changed problem.prior" in capsys.readouterr().out
    rng = np.random.default_rng()

    def random(p):                       # unseeded: not reproducible
        return FitResult(np.linalg.lstsq(p.W, p.y, rcond=None)[0] + 1e-3 * rng.normal(size=p.base.rank), 1)

    assert not check_prior_method(random, problem)
    assert "different results" in capsys.readouterr().out


def test_prior_method_unanswered_and_misuse(problem, capsys):
    def stub(problem):
        """Ridge regression towards problem.prior on column-scaled data; returns a FitResult."""
        ...  # your code here

    assert not check_prior_method(stub, problem)
    assert "not answered yet" in capsys.readouterr().out
    assert not check_prior_method(None, problem)
    assert "expected a function" in capsys.readouterr().out
    assert not check_prior_method(..., problem)
    assert "not answered yet" in capsys.readouterr().out
    # with the book's pipeline (filtered, decimated motion) the checks still work
    assert check_prior_method(fit_map, problem) and not check_prior_method(fit_ls, problem)
    exact = make_study(planar_2r(), seed=2, duration=2.0, optimize=0, validation_duration=0.5,
                       pipeline=None).problem(0.05, rng=1)
    assert check_prior_method(_ridge(10.0), exact)
    capsys.readouterr()
    with pytest.raises(TypeError, match="problem must be an IdentificationProblem"):
        check_prior_method(_ridge(1.0), {"W": np.eye(2)})
