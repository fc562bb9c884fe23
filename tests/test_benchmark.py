"""Tests of robidlib.benchmark: tables, experiments, estimators, comparison and Monte Carlo."""

from __future__ import annotations

import math

import numpy as np
import pytest

from robidlib.base import base_parameters
from robidlib.benchmark import (
    FitResult,
    IdentificationData,
    IdentificationProblem,
    METHODS,
    ResultTable,
    _AugmentedBaseModel,
    add_measurement_noise,
    clean_experiment,
    compare_methods,
    fit_adaline,
    fit_ekf,
    fit_hopfield,
    fit_ls,
    fit_wls,
    load_benchmark,
    make_study,
    monte_carlo,
    perturb_robot,
    prior_std,
    summarize,
)
from robidlib.estimation.ekf import AugmentedStateIdentifier, numerical_jacobian
from robidlib.models import planar_2r
from robidlib.params import is_physically_consistent
from robidlib.regressor import regressor
from robidlib.trajectories import quintic, random_fourier
from robidlib.validation import relative_parameter_error


@pytest.fixture(scope="module")
def setup():
    cad = planar_2r()
    real = perturb_robot(cad, rng=1)
    bp = base_parameters(cad, rng=0)
    ft = random_fourier(cad, 2 * np.pi * 0.5, 3, rng=2, fill=0.9)
    clean = clean_experiment(real, ft.evaluate(np.arange(201) / 100.0))
    val = clean_experiment(real, random_fourier(cad, 2 * np.pi * 0.7, 2, rng=3).evaluate(np.arange(101) / 100.0))
    return {"cad": cad, "real": real, "bp": bp, "clean": clean, "val": val,
            "truth": bp.beta(real.params), "prior": bp.beta(cad.params)}


# ------------------------------------------------------------------------------ table
def test_result_table():
    t = ResultTable([{"method": "LS", "level": 0.01, "err": 1.5, "n": 3},
                     {"method": "WLS", "level": 0.01, "err": float("nan"), "n": 4, "extra": "x"}])
    assert t.columns == ("method", "level", "err", "n", "extra")
    np.testing.assert_array_equal(t.column("n"), [3.0, 4.0])
    assert t.column("method").tolist() == ["LS", "WLS"]
    assert math.isnan(t.column("extra")[0] if isinstance(t.column("extra")[0], float) else float("nan"))
    assert len(t.where(method="LS", level=0.01)) == 1 and len(t.where(method="EKF")) == 0
    md = t.to_markdown(["method", "err"], digits=2).splitlines()
    assert md == ["| method | err |", "|---|---:|", "| LS | 1.5 |", "| WLS | - |"]
    back = ResultTable.from_json(t.to_json())
    assert back.columns == t.columns and math.isnan(back[1]["err"]) and back[0]["err"] == 1.5
    # numpy scalars are stored as Python scalars (JSON-ready)
    assert type(ResultTable([{"a": np.float64(2.0), "b": np.int64(3)}])[0]["b"]) is int


def test_result_table_bad_input():
    with pytest.raises(TypeError, match="rows must be a list of dicts"):
        ResultTable([1, 2])
    t = ResultTable([{"a": 1}])
    with pytest.raises(KeyError, match="unknown column 'b'"):
        t.column("b")
    with pytest.raises(KeyError, match="unknown column 'b'"):
        t.where(b=1)
    with pytest.raises(KeyError, match="unknown column 'b'"):
        t.to_markdown(["b"])
    with pytest.raises(ValueError, match="must be an object with a 'rows' list"):
        ResultTable.from_json("[1, 2]")


class _NaiveTable:
    """The reference semantics of ResultTable's queries: a scan of every row on every call."""

    def __init__(self, rows):
        self.rows = [dict(r) for r in rows]

    @property
    def columns(self):
        seen = {}
        for r in self.rows:
            for k in r:
                seen.setdefault(k, None)
        return tuple(seen)

    def column(self, name):
        values = [r.get(name, float("nan")) for r in self.rows]
        try:
            return np.array(values, dtype=float)
        except (TypeError, ValueError):
            return np.array(values, dtype=object)

    def where(self, **conditions):
        return [r for r in self.rows if all(r.get(k) == v for k, v in conditions.items())]


def _same_column(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    if a.dtype == float:
        np.testing.assert_array_equal(a, b)                 # NaN where NaN
    else:
        assert all(x == y or (x != x and y != y) for x, y in zip(a.tolist(), b.tolist()))


def test_result_table_queries_equal_a_scan_of_every_row():
    """columns, column and where give what a scan of every row gives, also for NaN, None,
    missing keys, 1 / 1.0 / True, lists (unhashable) and conditions on several columns."""
    nan = float("nan")
    rows = [{"m": "LS", "level": 0.01, "x": 1.0, "flag": True, "tags": [1, 2]},
            {"m": "WLS", "level": 0.01, "x": nan, "flag": 1, "extra": None},
            {"m": "LS", "level": 0.02, "x": 3, "flag": False, "tags": [3]},
            {"m": None, "level": nan, "x": 1.0},
            {"level": 0.02, "x": -0.0, "flag": 1.0, "tags": "none"}]
    t, ref = ResultTable(rows), _NaiveTable(rows)
    assert t.columns == ref.columns
    for c in ref.columns:
        for _ in range(2):                                   # built once, then cached
            _same_column(t.column(c), ref.column(c))
    queries = [dict(m="LS"), dict(m=None), dict(m="EKF"), dict(level=0.01), dict(level=nan), dict(level=0.02, m="LS"),
               dict(x=1.0), dict(x=1), dict(x=0.0), dict(x=nan), dict(flag=True), dict(flag=1), dict(flag=0),
               dict(tags=[3]), dict(tags="none"), dict(tags=None), dict(extra=None), dict(x=1.0, m="LS", level=0.01), {}]
    for q in queries:
        assert t.where(**q).rows == ref.where(**q), q
        assert t.where(**q).columns == _NaiveTable(ref.where(**q)).columns, q


def test_result_table_queries_on_the_stored_benchmark():
    """Chapter 9's queries on the stored benchmark: the same rows and columns as a full scan,
    and each column is read once however many queries use it."""
    bench = load_benchmark()
    ref = _NaiveTable(bench.rows)
    assert bench.columns == ref.columns
    for c in ("method", "level", "run", "delta_tau", "status"):
        _same_column(bench.column(c), ref.column(c))
    found = 0
    for axis in sorted(set(bench.column("axis"))):
        for level in sorted(set(bench.where(axis=axis).column("level"))):
            for method in ("LS", "MAP", "EKF"):
                q = dict(axis=axis, level=level, method=method)
                got = bench.where(**q)
                assert got.rows == ref.where(**q), q
                if len(got):
                    _same_column(got.column("delta_tau"), _NaiveTable(got.rows).column("delta_tau"))
                found += len(got)
    assert found > 100
    assert set(bench._index) == {"axis"}                    # one index, built once
    assert bench.where(run=0, method="LS").rows == ref.where(run=0, method="LS")
    assert set(bench._index) == {"axis", "run"}


def test_result_table_is_read_only():
    import copy
    import dataclasses
    import pickle

    t = ResultTable([{"method": "LS", "err": 1.0}, {"method": "WLS", "err": 0.5}], {"note": "x"})
    for change in (lambda: t.rows.append({"method": "EKF"}), lambda: t.rows.__setitem__(0, {}),
                   lambda: t.rows.sort(key=str), lambda: t[0].__setitem__("err", 2.0),
                   lambda: t[0].update(err=2.0), lambda: t[1].pop("err"), lambda: t[1].setdefault("new", 1)):
        with pytest.raises(TypeError, match="a ResultTable is read-only"):
            change()
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.rows = []
    assert t.column("err").tolist() == [1.0, 0.5] and t.columns == ("method", "err")
    a = t.column("err")
    a[0] = 99.0                                              # the caller's copy
    assert t.column("err")[0] == 1.0
    row = dict(t[0])                                         # a copy is an ordinary dict
    row["err"] = 3.0
    assert t[0]["err"] == 1.0
    for again in (copy.deepcopy(t), pickle.loads(pickle.dumps(t))):
        assert again == t and again.columns == t.columns and again.where(method="WLS")[0]["err"] == 0.5
    assert isinstance(t.rows, list) and all(isinstance(r, dict) for r in t)
    assert t.where(method="LS") == ResultTable([{"method": "LS", "err": 1.0}], {"note": "x"})
    with pytest.raises(TypeError, match="unhashable"):
        hash(t)


# ------------------------------------------------------------------------ experiments
def test_perturb_robot_is_physically_consistent_and_seeded(setup):
    cad, real = setup["cad"], setup["real"]
    assert is_physically_consistent(real.params)
    assert not np.allclose(real.params, cad.params)
    np.testing.assert_array_equal(perturb_robot(cad, rng=1).params, real.params)        # seeded
    same = perturb_robot(cad, rng=5, mass=0.0, com=0.0, inertia=0.0, angle=0.0)
    np.testing.assert_allclose(same.params, cad.params, atol=1e-15)
    masses = real.link_params[:, 0] / cad.link_params[:, 0]
    assert np.all(np.abs(masses - 1) <= 0.1)
    with pytest.raises(ValueError, match="mass must be < 1"):
        perturb_robot(cad, rng=0, mass=1.0)
    with pytest.raises(ValueError, match="com must be >= 0"):
        perturb_robot(cad, rng=0, com=-0.01)
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator or an int"):
        perturb_robot(cad, rng=None)
    with pytest.raises(ValueError, match="every link must have a positive mass"):
        perturb_robot(cad.with_params(np.zeros(20)), rng=0)


def test_prior_std(setup):
    sd = prior_std(setup["cad"], setup["bp"], rng=0, n_samples=100)
    assert sd.shape == (6,) and np.all(sd > 0)
    # twice the errors, about twice the spread
    sd2 = prior_std(setup["cad"], setup["bp"], rng=0, n_samples=100, mass=0.2, com=0.02, inertia=0.2, angle=0.2)
    assert np.all(sd2 > 1.3 * sd)
    with pytest.raises(ValueError, match="n_samples must be an integer from 2 to 1e6, got 1"):
        prior_std(setup["cad"], setup["bp"], rng=0, n_samples=1)
    with pytest.raises(ValueError, match="change no base parameter"):
        prior_std(setup["cad"], setup["bp"], rng=0, n_samples=3, mass=0, com=0, inertia=0, angle=0)


def test_clean_experiment_and_noise(setup):
    clean = setup["clean"]
    assert clean.n_joints == 2 and clean.dt == pytest.approx(0.01)
    np.testing.assert_array_equal(clean.tau, clean.tau_true)
    noisy = add_measurement_noise(clean, 0.05, rng=4, sigma_q=2e-4, sigma_qd=[1e-3, 2e-3])
    rms = np.sqrt(np.mean(clean.tau_true**2, axis=0))
    np.testing.assert_allclose(noisy.sigma_tau, 0.05 * rms)
    np.testing.assert_allclose(np.std(noisy.tau - clean.tau_true, axis=0), 0.05 * rms, rtol=0.25)
    np.testing.assert_allclose(noisy.sigma_qd, [1e-3, 2e-3])
    np.testing.assert_array_equal(noisy.q, clean.q)                    # the regressor's motion stays exact
    assert np.std(noisy.q_meas - clean.q) == pytest.approx(2e-4, rel=0.25)
    again = add_measurement_noise(clean, 0.05, rng=4, sigma_q=2e-4, sigma_qd=[1e-3, 2e-3])
    np.testing.assert_array_equal(again.tau, noisy.tau)                # seeded
    with pytest.raises(ValueError, match="level must be >= 0"):
        add_measurement_noise(clean, -0.1, rng=0)
    with pytest.raises(ValueError, match="sigma_q and sigma_qd must be > 0"):
        add_measurement_noise(clean, 0.1, rng=0, sigma_q=0.0)
    with pytest.raises(TypeError, match="data must be an IdentificationData"):
        add_measurement_noise(np.zeros((3, 2)), 0.1, rng=0)


def test_identification_data_and_problem_bad_input(setup):
    c = setup["clean"]
    z = np.zeros(2)
    with pytest.raises(ValueError, match=r"tau must have shape \(201, 2\)"):
        IdentificationData(c.t, c.q, c.qd, c.qdd, c.tau[:-1], c.q, c.qd, z, z, z, c.tau)
    with pytest.raises(ValueError, match="uniformly spaced"):
        t = c.t.copy()
        t[5] += 0.003
        IdentificationData(t, c.q, c.qd, c.qdd, c.tau, c.q, c.qd, z, z, z, c.tau)
    with pytest.raises(ValueError, match="sigma_tau must be >= 0"):
        IdentificationData(c.t, c.q, c.qd, c.qdd, c.tau, c.q, c.qd, -np.ones(2), z, z, c.tau)
    bp, real = setup["bp"], setup["real"]
    with pytest.raises(ValueError, match=r"prior must have shape \(6,\)"):
        IdentificationProblem(real, bp, c, np.zeros(5))
    with pytest.raises(ValueError, match="prior_std must be > 0"):
        IdentificationProblem(real, bp, c, setup["prior"], prior_std=np.zeros(6))
    with pytest.raises(ValueError, match="base must be computed for this robot's rigid-body parameters"):
        IdentificationProblem(real, base_parameters(real, friction=True, rng=0), c, setup["prior"])
    with pytest.raises(TypeError, match="data must be an IdentificationData"):
        IdentificationProblem(real, bp, "data", setup["prior"])


# ------------------------------------------------------------------------ estimators
def test_regressor_methods_agree_with_least_squares(setup):
    data = add_measurement_noise(setup["clean"], 0.02, rng=5)
    problem = IdentificationProblem(setup["real"], setup["bp"], data, setup["prior"])
    ls = fit_ls(problem)
    W = setup["bp"].reduce(regressor(setup["real"], data.q, data.qd, data.qdd)).reshape(-1, 6)
    np.testing.assert_allclose(ls.params, np.linalg.lstsq(W, data.tau.ravel(), rcond=None)[0], rtol=1e-10)
    wls = fit_wls(problem)
    assert wls.iterations == 1 and np.allclose(wls.info["sigma_joint"], data.sigma_tau)
    # weighted (default) networks converge to WLS, unweighted ones to LS
    unweighted = IdentificationProblem(setup["real"], setup["bp"], data, setup["prior"],
                                       options={"adaline": {"weighted": False}, "hopfield": {"weighted": False}})
    for fit, ref in ((fit_adaline(problem), wls), (fit_hopfield(problem), wls),
                     (fit_adaline(unweighted), ls), (fit_hopfield(unweighted), ls)):
        np.testing.assert_allclose(fit.params, ref.params, rtol=1e-5, atol=1e-7 * np.abs(ref.params).max())
        assert fit.iterations > 10
    estimated = IdentificationProblem(setup["real"], setup["bp"], data, setup["prior"],
                                      options={"wls": {"weights": "estimated"}})
    assert fit_wls(estimated).iterations == 2
    # the per-method options are honoured: a looser tolerance stops Adaline earlier
    loose = IdentificationProblem(setup["real"], setup["bp"], data, setup["prior"], options={"adaline": {"tol": 1e-4}})
    assert fit_adaline(loose).iterations < fit_adaline(problem).iterations


def test_fit_ekf_refuses_noise_free_data_and_a_prior_without_spread(setup):
    clean = IdentificationProblem(setup["real"], setup["bp"], setup["clean"], setup["prior"])
    with pytest.raises(ValueError, match=r"fit_ekf needs measurement noise: data.sigma_q must be > 0"):
        fit_ekf(clean)
    noisy = add_measurement_noise(setup["clean"], 0.02, rng=5)
    zero = IdentificationProblem(setup["real"], setup["bp"], noisy, np.zeros(6))
    with pytest.raises(ValueError, match="problem.prior gives a singular mass matrix"):
        fit_ekf(zero)
    # a prior with some zero entries and no spread of its own still works (the floor) ...
    fit = fit_ekf(IdentificationProblem(setup["real"], setup["bp"], noisy, setup["prior"]))
    assert np.all(np.isfinite(fit.params))
    # ... but not with the floor switched off
    no_floor = IdentificationProblem(setup["real"], setup["bp"], noisy, setup["prior"] * [1, 1, 1, 1, 1, 0],
                                     options={"ekf": {"floor": 0.0}})
    with pytest.raises(ValueError, match="fit_ekf needs a prior spread > 0"):
        fit_ekf(no_floor)
    bad = IdentificationProblem(setup["real"], setup["bp"], noisy, setup["prior"], options={"ekf": {"rel": "x"}})
    with pytest.raises(TypeError, match=r"options\['ekf'\]\['rel'\] must be a real scalar, got str"):
        fit_ekf(bad)


def test_ekf_process_model_is_the_augmented_state_identifier(setup):
    """The batched model equals robidlib.estimation.ekf's identifier, and its Jacobian is exact."""
    real, bp, clean = setup["real"], setup["bp"], setup["clean"]

    class Model:
        n_joints, n_params = 2, bp.rank

        @staticmethod
        def regressor(q, qd, qdd):
            return bp.reduce(regressor(real, q, qd, qdd))

    x = np.concatenate([clean.q[50], clean.qd[50], setup["truth"] * 1.1])
    u = clean.tau[50]
    ident = AugmentedStateIdentifier(Model(), 0.02, x0=x, Q=np.zeros(10), R=np.ones(2), P0=np.ones(10),
                                     integrator="rk4")
    model = _AugmentedBaseModel(real, bp, 0.02)
    U = np.tile(u, (3, 1))
    np.testing.assert_allclose(model.transition(x, U), ident.transition(x, u), rtol=1e-12, atol=1e-13)
    F = model.jacobian(x, U)
    np.testing.assert_allclose(F, numerical_jacobian(lambda xx: model._step(xx, U)[0], x), atol=1e-6)
    np.testing.assert_array_equal(model.transition(x, U), model._step(x, U)[0])   # cached after the Jacobian
    # one step of the true model with start / mid / end torques follows the exact motion
    xt = np.concatenate([clean.q[50], clean.qd[50], setup["truth"]])
    x2 = model.transition(xt, clean.tau[50:53])
    np.testing.assert_allclose(x2[:4], np.concatenate([clean.q[52], clean.qd[52]]), atol=1e-6)


def test_compare_methods_rows_scores_and_failures(setup):
    data = add_measurement_noise(setup["clean"], 0.01, rng=6)
    sd = prior_std(setup["cad"], setup["bp"], rng=0, n_samples=100)
    problem = IdentificationProblem(setup["real"], setup["bp"], data, setup["prior"], prior_std=sd)
    table = compare_methods(problem, setup["val"], setup["truth"])
    assert table.column("method").tolist() == list(METHODS)
    assert set(table.column("status")) == {"ok"}
    db = dict(zip(table.column("method"), table.column("delta_beta")))
    dt = dict(zip(table.column("method"), table.column("delta_tau")))
    prior_err = relative_parameter_error(setup["prior"], setup["truth"])
    batch = ("LS", "WLS", "MAP", "Adaline", "Hopfield", "EKF")
    assert all(db[m] < prior_err for m in batch)                      # every batch method learns something
    assert db["Adaline"] == pytest.approx(db["WLS"], rel=1e-3) and db["Hopfield"] == pytest.approx(db["WLS"], rel=1e-3)
    assert dt["LS"] < 1.0 and np.all(table.column("agreement") > 0.99)
    ls = np.array(table.meta["params"]["LS"])
    assert relative_parameter_error(ls, setup["truth"]) == pytest.approx(db["LS"])
    assert table.where(method="EKF")[0]["iterations"] == 100       # 200 intervals, 2 per step

    def broken(problem):
        raise ValueError("no luck")

    def ridge_like(problem):
        return FitResult(problem.prior.copy(), 0)

    t2 = compare_methods(problem, truth=setup["truth"], methods={"LS": fit_ls, "broken": broken, "prior": ridge_like})
    assert t2.column("status").tolist()[1] == "failed: no luck" and math.isnan(t2[1]["delta_beta"])
    assert t2[2]["delta_beta"] == pytest.approx(prior_err)
    with pytest.raises(ValueError, match="no luck"):
        compare_methods(problem, methods={"broken": broken}, catch=False)
    with pytest.raises(TypeError, match="must return a FitResult"):
        compare_methods(problem, methods={"bad": lambda p: p.prior})
    with pytest.raises(ValueError, match="unknown method 'OLS'"):
        compare_methods(problem, methods=["OLS"])
    with pytest.raises(ValueError, match=r"truth must have shape \(6,\)"):
        compare_methods(problem, truth=np.ones(3), methods=["LS"])
    with pytest.raises(TypeError, match="problem must be an IdentificationProblem"):
        compare_methods("problem")


def test_monte_carlo_table_and_reproducibility(setup):
    kw = dict(prior=setup["prior"], truth=setup["truth"], validation=setup["val"], methods=["LS", "WLS"])
    raw = monte_carlo(setup["real"], setup["bp"], setup["clean"], [0.01, 0.05], 3, seed=11, **kw)
    assert len(raw) == 2 * 2 * 3
    summary = summarize(raw)
    assert len(summary) == 4                                        # a row per method and noise level
    assert [(r["method"], r["level"]) for r in summary] == [("LS", 0.01), ("WLS", 0.01), ("LS", 0.05), ("WLS", 0.05)]
    assert all(r["runs"] == 3 and r["failed"] == 0 for r in summary)
    cell = raw.where(method="LS", level=0.05).column("delta_beta")
    assert summary.where(method="LS", level=0.05)[0]["delta_beta_mean"] == pytest.approx(cell.mean())
    assert summary.where(method="LS", level=0.05)[0]["delta_beta_std"] == pytest.approx(cell.std(ddof=1))
    # more noise, larger errors (on average)
    assert (summary.where(method="LS", level=0.05)[0]["delta_tau_mean"]
            > summary.where(method="LS", level=0.01)[0]["delta_tau_mean"])
    # one run, or one level, recomputed alone gives the same numbers
    part = monte_carlo(setup["real"], setup["bp"], setup["clean"], [0.01, 0.05], 3, seed=11, runs=[2], **kw)
    np.testing.assert_allclose(part.column("delta_beta"), raw.where(run=2).column("delta_beta"), rtol=1e-12)
    one = monte_carlo(setup["real"], setup["bp"], setup["clean"], [0.05], 3, seed=11, runs=[1], **kw)
    np.testing.assert_allclose(one.column("delta_tau"), raw.where(run=1, level=0.05).column("delta_tau"), rtol=1e-12)
    other = monte_carlo(setup["real"], setup["bp"], setup["clean"], [0.05], 3, seed=12, runs=[1], **kw)
    assert not np.allclose(other.column("delta_tau"), one.column("delta_tau"))     # another seed, other noise
    # fewer runs for one method
    few = monte_carlo(setup["real"], setup["bp"], setup["clean"], [0.01], {"LS": 3, "WLS": 1}, seed=11, **kw)
    assert few.column("method").tolist() == ["LS", "WLS", "LS", "LS"]


def test_monte_carlo_and_summarize_bad_input(setup):
    kw = dict(prior=setup["prior"], truth=setup["truth"], methods=["LS"])
    args = (setup["real"], setup["bp"], setup["clean"])
    with pytest.raises(ValueError, match="levels must be a non-empty sequence of values >= 0"):
        monte_carlo(*args, [], 2, seed=0, **kw)
    with pytest.raises(ValueError, match="levels must be a non-empty"):
        monte_carlo(*args, [-0.1], 2, seed=0, **kw)
    with pytest.raises(ValueError, match="n_runs must be an integer from 1 to 1e5"):
        monte_carlo(*args, [0.1], 0, seed=0, **kw)
    with pytest.raises(ValueError, match="n_runs names 'EKF'"):
        monte_carlo(*args, [0.1], {"EKF": 2}, seed=0, **kw)
    with pytest.raises(ValueError, match=r"runs must lie in \[0, 2\)"):
        monte_carlo(*args, [0.1], 2, seed=0, runs=[2], **kw)
    with pytest.raises(TypeError, match="seed must be an int"):
        monte_carlo(*args, [0.1], 2, seed=1.5, **kw)
    with pytest.raises(KeyError, match="unknown grouping column 'level'"):
        summarize(ResultTable([{"method": "LS"}]))
    with pytest.raises(TypeError, match="table must be a ResultTable"):
        summarize([{"method": "LS"}])
    # failed runs are counted and left out of the statistics
    t = ResultTable([{"method": "A", "x": 1.0, "status": "ok"}, {"method": "A", "x": float("nan"), "status": "failed: y"}])
    s = summarize(t, by=["method"], values=["x"])
    assert s[0]["failed"] == 1 and s[0]["x_mean"] == 1.0 and math.isnan(s[0]["x_std"])


def test_make_study_is_deterministic():
    a = make_study(planar_2r(), seed=3, duration=2.0, optimize=3, validation_duration=0.5, validation_optimize=2)
    b = make_study(planar_2r(), seed=3, duration=2.0, optimize=3, validation_duration=0.5, validation_optimize=2)
    np.testing.assert_array_equal(a.truth, b.truth)
    np.testing.assert_array_equal(a.train.tau, b.train.tau)
    assert a.settings["seed"] == 3 and a.settings["excitation_cond"] > 1
    problem = a.problem(0.01, rng=0)
    assert isinstance(problem, IdentificationProblem) and problem.prior_std is not None
    raw = a.monte_carlo([0.01], 2, seed=1, methods=["LS"])
    assert len(raw) == 2
    with pytest.raises(ValueError, match="duration must be > 0"):
        make_study(planar_2r(), duration=0.0)
    with pytest.raises(ValueError, match="optimize must be an integer from 0 to 1e6"):
        make_study(planar_2r(), optimize=-1)
    with pytest.raises(TypeError, match="seed must be an int"):
        make_study(planar_2r(), seed="1")


def test_quintic_experiment_with_a_single_method():
    arm = planar_2r()
    clean = clean_experiment(arm, quintic(np.linspace(0, 1, 101), [0, 0], [1, -1], T=1.0))
    bp = base_parameters(arm, rng=0)
    problem = IdentificationProblem(arm, bp, add_measurement_noise(clean, 0.001, rng=0), bp.beta(arm.params))
    assert problem.W.shape == (202, 6) and problem.y.shape == (202,)
    rms = np.sqrt(np.mean(problem.W**2, axis=0))
    assert rms[-1] == 0                                 # planar motion from rest: one column never excited
    np.testing.assert_allclose(problem.column_scale, np.where(rms > 0, rms, 1.0))
    assert problem.option("adaline", "tol", 5) == 5
