"""Tests of robidlib.checks.least_squares (exercise checks of chapter 3)."""

from __future__ import annotations

import doctest
import inspect

import numpy as np
import pytest
import scipy.linalg

from robidlib.checks import least_squares
from robidlib.estimation.lsq import ols, wls

CHECK, CROSS = "\u2714", "\u2718"


# ----------------------------------------------------------------------------- augmented QR
def _qr_solve(W, y):
    p = W.shape[1]
    R = scipy.linalg.qr(np.column_stack([W, y]), mode="r")[0]
    return scipy.linalg.solve_triangular(R[:p, :p], R[:p, p]), R[p, p]  # sign of R[p, p] is free


def test_augmented_qr_accepts_a_right_answer(capsys):
    assert least_squares.check_augmented_qr(_qr_solve)
    assert CHECK in capsys.readouterr().out
    # any backward-stable solver with the residual norm passes too, also as lists
    def lstsq_lists(W, y):
        b = np.linalg.lstsq(W, y, rcond=None)[0]
        return list(b), float(np.linalg.norm(y - W @ b))

    assert least_squares.check_augmented_qr(lstsq_lists)


def test_augmented_qr_rejects_the_normal_equations_and_wrong_answers(capsys):
    def normal(W, y):
        b = np.linalg.solve(W.T @ W, W.T @ y)
        return b, np.linalg.norm(y - W @ b)

    assert not least_squares.check_augmented_qr(normal)
    assert "normal equations" in capsys.readouterr().out
    assert not least_squares.check_augmented_qr(lambda W, y: _qr_solve(W, y)[0])       # no residual
    assert "pair (b, rnorm)" in capsys.readouterr().out
    assert not least_squares.check_augmented_qr(lambda W, y: (_qr_solve(W, y)[0], 0.0))
    assert "rnorm should be" in capsys.readouterr().out
    assert not least_squares.check_augmented_qr(lambda W, y: (_qr_solve(W, y)[0][:-1], 1.0))
    assert "b must have shape" in capsys.readouterr().out
    assert not least_squares.check_augmented_qr(lambda W, y: (_qr_solve(W, y)[0], "x"))
    assert "rnorm must be numbers" in capsys.readouterr().out
    assert not least_squares.check_augmented_qr(lambda W, y: 1 / 0)
    assert "ZeroDivisionError" in capsys.readouterr().out
    assert not least_squares.check_augmented_qr(lambda W, y: (np.full(W.shape[1], np.nan), 1.0))
    assert "NaN" in capsys.readouterr().out


# ----------------------------------------------------------------------------- %sigma
def _rel_std(W, y):
    return ols(W, y).rel_std


def test_rel_std_accepts_the_estimator_float32_and_lists(capsys):
    assert least_squares.check_rel_std(_rel_std)
    assert CHECK in capsys.readouterr().out
    # four significant digits are asked for: a float32 answer passes, a list too
    assert least_squares.check_rel_std(lambda W, y: _rel_std(W, y).astype(np.float32))
    assert least_squares.check_rel_std(lambda W, y: _rel_std(W, y).tolist())
    # ... but an answer off in the third digit does not
    assert not least_squares.check_rel_std(lambda W, y: _rel_std(W, y) * 1.002)


def test_rel_std_names_common_mistakes(capsys):
    assert not least_squares.check_rel_std(lambda W, y: _rel_std(W, y) / 100)
    assert "percent" in capsys.readouterr().out

    def by_r(W, y):  # divides by the rows Nn instead of Nn - r
        m, p = W.shape
        return _rel_std(W, y) * np.sqrt((m - p) / m)

    assert not least_squares.check_rel_std(by_r)
    assert "Nn - r" in capsys.readouterr().out

    def no_sqrt(W, y):
        est = ols(W, y)
        return 100 * np.diag(est.cov) / np.abs(est.params)

    assert not least_squares.check_rel_std(no_sqrt)
    assert "square root" in capsys.readouterr().out
    assert not least_squares.check_rel_std(lambda W, y: np.ones(W.shape[1]))
    assert "expected" in capsys.readouterr().out
    assert not least_squares.check_rel_std(lambda W, y: np.ones(W.shape[1] + 1))
    assert "shape" in capsys.readouterr().out
    assert not least_squares.check_rel_std(lambda W, y: _rel_std(W, y) + 0j)
    assert "complex" in capsys.readouterr().out


# ----------------------------------------------------------------------------- per-joint sigmas
def _sigmas(W, y, n_joints):
    return wls(W, y, n_joints=n_joints).info["sigma_joint"]


def test_joint_sigmas_agree_with_wls_and_catch_mistakes(capsys):
    assert least_squares.check_joint_sigmas(_sigmas)
    assert CHECK in capsys.readouterr().out
    assert least_squares.check_joint_sigmas(lambda W, y, n: _sigmas(W, y, n).astype(np.float32))
    capsys.readouterr()
    assert not least_squares.check_joint_sigmas(lambda W, y, n: _sigmas(W, y, n) ** 2)
    assert "standard deviations" in capsys.readouterr().out

    def by_rows(W, y, n):
        b = np.linalg.lstsq(W, y, rcond=None)[0]
        res = (y - W @ b).reshape(-1, n)
        return np.sqrt(np.mean(res**2, axis=0))

    assert not least_squares.check_joint_sigmas(by_rows)
    assert "N - r" in capsys.readouterr().out

    def joint_major(W, y, n):  # reads the rows as if they were joint-major
        b = np.linalg.lstsq(W, y, rcond=None)[0]
        res = (y - W @ b).reshape(n, -1)
        return np.sqrt(np.sum(res**2, axis=1) / (res.shape[1] - W.shape[1]))

    assert not least_squares.check_joint_sigmas(joint_major)
    assert not least_squares.check_joint_sigmas(lambda W, y, n: np.ones(n + 1))
    assert "shape" in capsys.readouterr().out


# ----------------------------------------------------------------------------- duration
def test_experiment_duration_right_and_typical_mistakes(capsys):
    lam_r, lam_p, T = 6.0e-2, 3.2e-8, 5.0
    right = T * lam_r / lam_p
    assert least_squares.check_experiment_duration(right, lam_r, lam_p, T)
    assert "days of continuous motion" in capsys.readouterr().out
    assert least_squares.check_experiment_duration(np.float32(right), lam_r, lam_p, T)
    assert least_squares.check_experiment_duration([right * 1.005], lam_r, lam_p, T) == False  # shape ()
    capsys.readouterr()
    assert not least_squares.check_experiment_duration(T * np.sqrt(lam_r / lam_p), lam_r, lam_p, T)
    assert "square root" in capsys.readouterr().out
    assert not least_squares.check_experiment_duration(T * lam_p / lam_r, lam_r, lam_p, T)
    assert "upside down" in capsys.readouterr().out
    assert not least_squares.check_experiment_duration(2 * right, lam_r, lam_p, T)
    out = capsys.readouterr().out
    assert "too long" in out and f"{right:.4g}" not in out       # the answer is not given away
    assert not least_squares.check_experiment_duration(-1.0, lam_r, lam_p, T)
    assert "too short" in capsys.readouterr().out
    with pytest.raises(ValueError, match="lam_poor must be > 0"):
        least_squares.check_experiment_duration(1.0, lam_r, 0.0, T)
    with pytest.raises(TypeError, match="t_rich must be a real number"):
        least_squares.check_experiment_duration(1.0, lam_r, lam_p, "five")


# ----------------------------------------------------------------------------- untouched stubs
STUB_CALLS = {
    "check_augmented_qr": lambda c, f: c(f),
    "check_rel_std": lambda c, f: c(f),
    "check_joint_sigmas": lambda c, f: c(f),
}


@pytest.mark.parametrize("name", sorted(STUB_CALLS))
def test_untouched_stub_functions_print_a_cross_and_never_raise(name, capsys):
    check = getattr(least_squares, name)

    def stub(*args):
        ...  # the student's body, untouched

    def unfinished(*args):
        raise NotImplementedError

    assert STUB_CALLS[name](check, stub) == False
    assert "not answered yet" in capsys.readouterr().out
    assert STUB_CALLS[name](check, unfinished) == False
    assert CROSS + " not answered yet: `unfinished` is not written yet" in capsys.readouterr().out
    assert STUB_CALLS[name](check, ...) == False
    assert "not answered yet" in capsys.readouterr().out
    assert STUB_CALLS[name](check, "solve") == False          # not a function: a message
    assert "pass your function itself" in capsys.readouterr().out


def test_untouched_duration_stub(capsys):
    assert least_squares.check_experiment_duration(..., 1e-2, 1e-4, 5.0) == False
    assert "not answered yet" in capsys.readouterr().out
    assert least_squares.check_experiment_duration(None, 1e-2, 1e-4, 5.0) == False
    assert "did you forget" in capsys.readouterr().out


def test_docstrings_hold_no_solution_code():
    # students read these with help() and Shift-Tab: no lstsq / svd / qr calls in them
    for name in least_squares.__all__:
        doc = inspect.getdoc(getattr(least_squares, name))
        for word in ("lstsq", "svd(", "linalg.qr", "solve_triangular", "inv(", "linalg.solve"):
            assert word not in doc, f"{name}'s docstring shows solution code ({word})"


def test_docstring_examples_run():
    result = doctest.testmod(least_squares, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 5 and result.failed == 0
