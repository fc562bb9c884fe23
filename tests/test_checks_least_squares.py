"""Tests of robidlib.checks.least_squares (exercise checks of chapter 3)."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
import scipy.linalg

from robidlib.checks import least_squares
from robidlib.estimation.lsq import ols, wls


# ----------------------------------------------------------------------------- augmented QR
def _qr_solve(W, y):
    p = W.shape[1]
    R = scipy.linalg.qr(np.column_stack([W, y]), mode="r")[0]
    return scipy.linalg.solve_triangular(R[:p, :p], R[:p, p]), R[p, p]  # sign of R[p, p] is free


def test_augmented_qr_accepts_a_right_answer(capsys):
    assert least_squares.check_augmented_qr(_qr_solve)
    assert "\u2714" in capsys.readouterr().out
    # any backward-stable solver with the residual norm passes too
    assert least_squares.check_augmented_qr(lambda W, y: (np.linalg.lstsq(W, y, rcond=None)[0],
                                                 np.linalg.norm(y - W @ np.linalg.lstsq(W, y, rcond=None)[0])))


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
    assert not least_squares.check_augmented_qr(lambda W, y: 1 / 0)
    assert "ZeroDivisionError" in capsys.readouterr().out
    assert not least_squares.check_augmented_qr(lambda W, y: (np.full(W.shape[1], np.nan), 1.0))
    with pytest.raises(TypeError, match="func must be a function of"):
        least_squares.check_augmented_qr("solve")


# ----------------------------------------------------------------------------- %sigma
def _rel_std(W, y):
    return ols(W, y).rel_std


def test_rel_std_accepts_the_estimator_and_names_common_mistakes(capsys):
    assert least_squares.check_rel_std(_rel_std)
    assert "\u2714" in capsys.readouterr().out
    assert not least_squares.check_rel_std(lambda W, y: _rel_std(W, y) / 100)
    assert "percent" in capsys.readouterr().out

    def by_r(W, y):  # divides by r instead of r - p
        m, p = W.shape
        return _rel_std(W, y) * np.sqrt((m - p) / m)

    assert not least_squares.check_rel_std(by_r)
    assert "r - p" in capsys.readouterr().out

    def no_sqrt(W, y):
        est = ols(W, y)
        return 100 * np.diag(est.cov) / np.abs(est.params)

    assert not least_squares.check_rel_std(no_sqrt)
    assert "square root" in capsys.readouterr().out
    assert not least_squares.check_rel_std(lambda W, y: np.ones(W.shape[1]))
    assert "expected" in capsys.readouterr().out
    assert not least_squares.check_rel_std(lambda W, y: np.ones(W.shape[1] + 1))
    with pytest.raises(TypeError, match="func must be a function"):
        least_squares.check_rel_std(None)


# ----------------------------------------------------------------------------- per-joint sigmas
def _sigmas(W, y, n_joints):
    return wls(W, y, n_joints=n_joints).info["sigma_joint"]


def test_joint_sigmas_agree_with_wls_and_catch_mistakes(capsys):
    assert least_squares.check_joint_sigmas(_sigmas)
    assert "\u2714" in capsys.readouterr().out
    assert not least_squares.check_joint_sigmas(lambda W, y, n: _sigmas(W, y, n) ** 2)
    assert "standard deviations" in capsys.readouterr().out

    def by_rows(W, y, n):
        b = np.linalg.lstsq(W, y, rcond=None)[0]
        res = (y - W @ b).reshape(-1, n)
        return np.sqrt(np.mean(res**2, axis=0))

    assert not least_squares.check_joint_sigmas(by_rows)
    assert "r_j - c" in capsys.readouterr().out

    def joint_major(W, y, n):  # reads the rows as if they were joint-major
        b = np.linalg.lstsq(W, y, rcond=None)[0]
        res = (y - W @ b).reshape(n, -1)
        return np.sqrt(np.sum(res**2, axis=1) / (res.shape[1] - W.shape[1]))

    assert not least_squares.check_joint_sigmas(joint_major)
    assert not least_squares.check_joint_sigmas(lambda W, y, n: np.ones(n + 1))
    assert "shape" in capsys.readouterr().out
    with pytest.raises(TypeError, match="func must be a function"):
        least_squares.check_joint_sigmas(3)


def test_docstring_examples_run():
    result = doctest.testmod(least_squares, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 6 and result.failed == 0
