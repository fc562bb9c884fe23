"""Tests of robidlib.multibody.study and of the goal-attainment (MO) solver."""

from __future__ import annotations

import numpy as np
import pytest

from robidlib.benchmark import ResultTable
from robidlib.multibody import models, solve_kinematics
from robidlib.multibody.study import (PROPAGATION_CASES, PROPAGATION_POINTS, SOLVER_CASES,
                                      STUDY_CHAINS, STUDY_LEVELS_MM, compare_solvers, level_table,
                                      load_mixed_study, marker_subset, mixed_study,
                                      perturb_coordinates, pivot, rigid_guess, save_mixed_study,
                                      solve_independently, study_scenario)

SIMPLE = models.simple_chain()
FIVE = models.five_body_chain()
REF = SIMPLE.reference_motion(duration=0.2)                 # 21 frames
NOISY = perturb_coordinates(REF.markers, 0.0075, rng=3)


# -- perturbations ------------------------------------------------------------------------------
def test_white_perturbation_is_uniform_per_coordinate():
    ref = np.zeros((4000, 2, 3))
    x = perturb_coordinates(ref, 0.0075, rng=np.random.default_rng(1))
    assert np.abs(x).max() <= 0.0075
    # uniform on [-a, a]: standard deviation a / sqrt(3), within 5 % for 24 000 draws
    assert abs(x.std() / (0.0075 / np.sqrt(3)) - 1) < 0.05
    norms = np.linalg.norm(x, axis=-1)
    assert norms.max() <= 0.0075 * np.sqrt(3) and norms.max() > 0.0075   # beyond a: a box, not a ball
    np.testing.assert_array_equal(x, perturb_coordinates(ref, 0.0075, rng=np.random.default_rng(1)))


def test_smooth_perturbation_reaches_the_bound_and_is_slow():
    ref = np.zeros((301, 3, 3))
    x = perturb_coordinates(ref, 0.03, rng=2, kind="smooth", points=[0, 2])
    np.testing.assert_allclose(np.abs(x[:, [0, 2]]).max(axis=0), 0.03, rtol=1e-12)
    assert np.all(x[:, 1] == 0)
    # nothing above max_frequency = 2 Hz: 99 % of the power below 2.5 Hz (window leakage)
    spec = np.abs(np.fft.rfft(x[:, 0, 0] - x[:, 0, 0].mean())) ** 2
    f = np.fft.rfftfreq(301, d=0.01)
    assert spec[f <= 2.5].sum() > 0.99 * spec.sum()


def test_perturbation_bad_input():
    ref = np.zeros((5, 2, 3))
    with pytest.raises(ValueError, match="bound"):
        perturb_coordinates(ref, -1.0, rng=0)
    with pytest.raises(ValueError, match="finite"):
        perturb_coordinates(ref, np.nan, rng=0)
    with pytest.raises(ValueError, match="markers must have shape"):
        perturb_coordinates(np.zeros((5, 2, 2)), 0.01, rng=0)
    with pytest.raises(ValueError, match="3 dimension"):
        perturb_coordinates(np.zeros((5, 6)), 0.01, rng=0)
    with pytest.raises(ValueError, match="kind"):
        perturb_coordinates(ref, 0.01, rng=0, kind="pink")
    with pytest.raises(ValueError, match="points"):
        perturb_coordinates(ref, 0.01, rng=0, points=[2])
    with pytest.raises(ValueError, match="points"):
        perturb_coordinates(ref, 0.01, rng=0, points=[0, 0])
    with pytest.raises(ValueError, match="points"):
        perturb_coordinates(ref, 0.01, rng=0, points=[0.5])
    with pytest.raises(ValueError, match="max_frequency"):
        perturb_coordinates(ref, 0.01, rng=0, kind="smooth", max_frequency=0.1)
    with pytest.raises(TypeError, match="rng"):
        perturb_coordinates(ref, 0.01, rng=None)


# -- compare_solvers -----------------------------------------------------------------------------
def test_compare_solvers_table():
    cases = [("AD", "ad", {}), ("WLS", "nrm-wls", {}), ("LS", "nrm-ls", {}), ("MO", "goal-attainment", {})]
    cmp = compare_solvers(SIMPLE.system, NOISY, REF.q, cases, clock="wall")
    assert isinstance(cmp.table, ResultTable) and [r["method"] for r in cmp.table] == ["AD", "WLS", "LS", "MO"]
    rows = {r["method"]: r for r in cmp.table}
    for r in rows.values():
        assert r["frames"] == 21 and r["failed"] == "" and r["norm_time"] >= 1.0
    assert min(r["norm_time"] for r in rows.values()) == 1.0
    # the columns are what they say: recompute the WLS ones
    wls = cmp.results["WLS"]
    d = 1e3 * np.linalg.norm(SIMPLE.system.marker_positions(wls.q) - REF.markers, axis=-1)
    assert rows["WLS"]["distance_mm"] == pytest.approx(d.mean()) and rows["WLS"]["tip_mm"] == pytest.approx(d[:, -1].mean())
    assert rows["WLS"]["max_violation"] == pytest.approx(wls.max_violation.max())
    assert rows["WLS"]["iterations"] == pytest.approx(wls.iterations.mean())
    err = np.degrees(wls.angles - REF.theta)
    assert rows["WLS"]["angle_rms_deg"] == pytest.approx(np.sqrt(np.mean(err**2)))
    # the paper's findings on this small case
    assert rows["LS"]["max_violation"] > 30 * rows["WLS"]["max_violation"]
    assert rows["MO"]["max_violation"] < 1e-9 and rows["AD"]["max_violation"] < 1e-12
    assert rows["AD"]["distance_mm"] > rows["WLS"]["distance_mm"]
    assert cmp.table.meta["clock"] == "wall"


def test_compare_solvers_records_or_raises_a_failure():
    cases = [("WLS", "nrm-wls", {}), ("short", "nrm-ls", {"max_iter": 1})]
    cmp = compare_solvers(SIMPLE.system, NOISY, REF.q, cases, on_failure="record")
    row = cmp.table.where(method="short")[0]
    assert "did not converge" in row["failed"] and np.isnan(row["distance_mm"]) and "short" not in cmp.results
    with pytest.raises(ValueError, match="did not converge"):
        compare_solvers(SIMPLE.system, NOISY, REF.q, cases)


def test_compare_solvers_evaluates_on_other_points():
    sc = study_scenario("five-8", 7.5, duration=0.1)
    cmp = compare_solvers(sc.system, sc.markers, sc.reference.q, [("WLS", "nrm-wls", {})],
                          evaluate=sc.evaluate, q0=sc.reference.q[0])
    assert cmp.table.meta["evaluation_points"][-1] == "P15"
    res = cmp.results["WLS"]
    d = 1e3 * np.linalg.norm(sc.evaluate.marker_positions(res.q)[:, -1] - sc.reference.markers[:, -1], axis=-1)
    assert cmp.table[0]["tip_mm"] == pytest.approx(d.mean())


def test_compare_solvers_bad_input():
    with pytest.raises(TypeError, match="system must be a MultibodySystem"):
        compare_solvers(SIMPLE, NOISY, REF.q)
    with pytest.raises(TypeError, match="evaluate must be a MultibodySystem"):
        compare_solvers(SIMPLE.system, NOISY, REF.q, evaluate="all")
    with pytest.raises(ValueError, match="evaluate must have"):
        compare_solvers(SIMPLE.system, NOISY, REF.q, evaluate=FIVE.system)
    with pytest.raises(TypeError, match="cases"):
        compare_solvers(SIMPLE.system, NOISY, REF.q, [])
    with pytest.raises(TypeError, match="every case"):
        compare_solvers(SIMPLE.system, NOISY, REF.q, [("WLS", "nrm-wls")])
    with pytest.raises(ValueError, match="method"):
        compare_solvers(SIMPLE.system, NOISY, REF.q, [("X", "newton", {})])
    with pytest.raises(ValueError, match="unique"):
        compare_solvers(SIMPLE.system, NOISY, REF.q, [("X", "ad", {}), ("X", "nrm-ls", {})])
    with pytest.raises(ValueError, match="reference_q must have shape"):
        compare_solvers(SIMPLE.system, NOISY, REF.q[:5])
    with pytest.raises(ValueError, match="finite"):
        compare_solvers(SIMPLE.system, NOISY * np.nan, REF.q)
    with pytest.raises(ValueError, match="clock"):
        compare_solvers(SIMPLE.system, NOISY, REF.q, clock="sundial")
    with pytest.raises(ValueError, match="on_failure"):
        compare_solvers(SIMPLE.system, NOISY, REF.q, on_failure="ignore")


# -- independent frames, marker subsets, scenarios -------------------------------------------------
def test_solve_independently_matches_the_warm_started_solution_and_records_failures():
    wls = solve_kinematics(SIMPLE.system, NOISY, "nrm-wls")
    out = solve_independently(SIMPLE.system, NOISY, "nrm-wls", q0=SIMPLE.zero_coordinates())
    assert out.converged.all() and not out.messages
    np.testing.assert_allclose(out.q, wls.q, atol=1e-8)
    bad = solve_independently(SIMPLE.system, NOISY[:3], "nrm-wls", q0=SIMPLE.zero_coordinates(), max_iter=1)
    assert not bad.converged.any() and np.isnan(bad.q).all() and len(bad.messages) == 3
    assert bad.messages[2].startswith("frame 2:") and np.all(bad.iterations == 0)
    with pytest.raises(ValueError, match="method"):
        solve_independently(SIMPLE.system, NOISY, "ad", q0=SIMPLE.zero_coordinates())
    with pytest.raises(ValueError, match="q0"):
        solve_independently(SIMPLE.system, NOISY, q0=np.zeros(5))
    with pytest.raises(TypeError, match="system must be a MultibodySystem"):
        solve_independently(None, NOISY, q0=SIMPLE.zero_coordinates())


def test_marker_subset():
    sub = marker_subset(FIVE.system, ["P15", "P2"])
    assert sub.marker_names == ("P15", "P2") and sub.n_constraints == FIVE.system.n_constraints
    q = FIVE.zero_coordinates()
    np.testing.assert_allclose(sub.marker_positions(q), FIVE.system.marker_positions(q)[[14, 1]])
    np.testing.assert_allclose(sub.jacobian(q), FIVE.system.jacobian(q))
    with pytest.raises(ValueError, match="unknown marker"):
        marker_subset(FIVE.system, ["P16"])
    with pytest.raises(ValueError, match="distinct"):
        marker_subset(FIVE.system, ["P1", "P1"])
    with pytest.raises(ValueError, match="non-empty"):
        marker_subset(FIVE.system, [])
    with pytest.raises(ValueError, match="non-empty"):
        marker_subset(FIVE.system, "P1")
    with pytest.raises(TypeError, match="system must be a MultibodySystem"):
        marker_subset(FIVE, ["P1"])


def test_study_scenarios_share_their_perturbations():
    full = study_scenario("five", 30.0, duration=0.1)
    for chain in ("five-9", "five-8"):
        sub = study_scenario(chain, 30.0, duration=0.1)
        idx = [full.system.marker_names.index(n) for n in sub.system.marker_names]
        np.testing.assert_array_equal(sub.markers, full.markers[:, idx])
    # different levels and kinds draw different perturbations; level 0 is the reference
    assert not np.allclose(study_scenario("five", 7.5, duration=0.1).markers, full.markers / 4)
    np.testing.assert_array_equal(study_scenario("simple", 0.0, duration=0.1).markers,
                                  study_scenario("simple", 0.0, duration=0.1).reference.markers)
    only = study_scenario("five", 7.5, kind="smooth", points=["P4", "P9"], duration=0.5)
    moved = np.abs(only.markers - only.reference.markers).max(axis=(0, 2))
    assert set(np.flatnonzero(moved > 0)) == {3, 8} and np.allclose(moved[[3, 8]], 0.0075)
    with pytest.raises(ValueError, match="chain"):
        study_scenario("six", 7.5)
    with pytest.raises(ValueError, match="level_mm"):
        study_scenario("five", -1.0)
    with pytest.raises(ValueError, match="points"):
        study_scenario("five", 7.5, points=["P99"])


# -- the stored study --------------------------------------------------------------------------
def test_stored_study_has_every_chain_level_and_method():
    study = load_mixed_study()
    assert study.meta["recipe"]["levels_mm"] == list(STUDY_LEVELS_MM)
    assert study.meta["recipe"]["cases"] == [[lab, m, opt] for lab, m, opt in SOLVER_CASES]
    for chain, (_, subset) in STUDY_CHAINS.items():
        for level in STUDY_LEVELS_MM:
            rows = study.where(chain=chain, level_mm=level, points="all", kind="white")
            expected = [lab for lab, m, _ in SOLVER_CASES if not (subset and m == "ad")]
            assert [r["method"] for r in rows] == expected
    for kind in ("white", "smooth"):
        for level in STUDY_LEVELS_MM[1:]:
            rows = study.where(chain="five", level_mm=level, points=",".join(PROPAGATION_POINTS), kind=kind)
            assert [r["method"] for r in rows] == [c[0] for c in PROPAGATION_CASES]
    assert {"machine", "versions", "run_seconds"} <= set(study.meta)
    # the full chains converge everywhere; failures are recorded, never silent
    for r in study:
        assert (r["failed"] == "") == np.isfinite(r["distance_mm"])
        if r["chain"] in ("simple", "five"):
            assert r["failed"] == "", (r["chain"], r["level_mm"], r["method"], r["failed"])


def test_stored_study_is_reproduced_by_its_recipe():
    """Re-run the recipe for the simple chain at 7.5 mm (the fast solvers and SQP): the
    accuracy columns are deterministic given the seeds (round-off changes them by far less
    than 1e-6 relative for the Newton methods; SQP stops at ftol = 1e-10 on the objective, so
    its positions move by up to ~1e-6 m between BLAS kernels: 1e-3 relative of ~2 mm)."""
    stored = load_mixed_study().where(chain="simple", level_mm=7.5, points="all")
    cases = [c for c in SOLVER_CASES if c[0] in ("AD", "NRM-LS 1e-10", "NRM-WLS 1e-10", "SQP")]
    again = mixed_study(["simple"], [7.5], cases, propagation=False)
    for r in again:
        s = stored.where(method=r["method"])[0]
        rtol = 1e-3 if r["method"] == "SQP" else 1e-6
        for col in ("distance_mm", "tip_mm", "angle_rms_deg", "max_distance_mm"):
            assert r[col] == pytest.approx(s[col], rel=rtol), (r["method"], col)
        if r["method"].startswith("NRM-LS"):
            assert r["max_violation"] == pytest.approx(s["max_violation"], rel=1e-6)
        else:
            assert r["max_violation"] < 1e-9 or r["method"].startswith("NRM-WLS")


def test_rigid_guess_and_per_frame_guesses():
    wls = solve_kinematics(SIMPLE.system, NOISY, "nrm-wls")
    rigid = rigid_guess(SIMPLE.system, wls.q)
    assert np.abs(rigid - wls.q).max() < 1e-4                    # a small correction ...
    for qk in rigid:                                             # ... to exactly rigid bodies
        assert np.abs(SIMPLE.system.phi(qk)[:18]).max() < 1e-12
    np.testing.assert_array_equal(rigid[:, SIMPLE.system.angle_slice], wls.q[:, SIMPLE.system.angle_slice])
    with pytest.raises(ValueError, match="q0"):                   # WLS violates rigidity: refused as is
        solve_kinematics(SIMPLE.system, NOISY[:1], "slsqp", q0=wls.q[0] + 1e-4)
    out = solve_independently(SIMPLE.system, NOISY, "slsqp", q0=wls.q)   # one guess per frame
    assert out.converged.all()
    # SLSQP stops at ftol = 1e-10 on the objective (m^2): positions to about 1e-5 m
    np.testing.assert_allclose(SIMPLE.system.marker_positions(out.q), SIMPLE.system.marker_positions(wls.q),
                               atol=1e-4)
    with pytest.raises(ValueError, match="q0 must have shape"):
        solve_independently(SIMPLE.system, NOISY, "slsqp", q0=wls.q[:3])
    with pytest.raises(ValueError, match="q must have shape"):
        rigid_guess(SIMPLE.system, np.zeros(5))
    with pytest.raises(ValueError, match="finite"):
        rigid_guess(SIMPLE.system, np.full(39, np.nan))
    with pytest.raises(TypeError, match="system must be a MultibodySystem"):
        rigid_guess("simple", wls.q)


def test_level_table():
    study = load_mixed_study()
    rows, headers, fmts = level_table(study, [("tip_mm", "tip", ".2f"), ("iterations", "it", ".1f")],
                                      chain="five", points="P4,P9", kind="smooth")
    assert headers == ["method", "tip, 7.5 mm", "tip, 30 mm", "it, 7.5 mm", "it, 30 mm"]
    assert fmts == ["s", ".2f", ".2f", ".1f", ".1f"] and [r[0] for r in rows] == [c[0] for c in PROPAGATION_CASES]
    want = study.where(chain="five", points="P4,P9", kind="smooth", level_mm=30.0, method="MO-ED")[0]
    assert rows[-1][2] == want["tip_mm"] and rows[-1][4] == want["iterations"]
    with pytest.raises(ValueError, match="columns"):
        level_table(study, [], chain="five")
    with pytest.raises(ValueError, match="no row"):
        level_table(study, [("tip_mm", "tip", ".2f")], chain="five", points="P1")


def test_pivot_and_save_load_round_trip(tmp_path):
    study = load_mixed_study()
    headers, rows = pivot(study, "max_violation", chain="simple", methods=["AD", "SQP"])
    assert headers == ["method", "0 mm", "7.5 mm", "30 mm"] and [r[0] for r in rows] == ["AD", "SQP"]
    assert rows[1][2] == study.where(chain="simple", level_mm=7.5, method="SQP")[0]["max_violation"]
    path = save_mixed_study(study, tmp_path / "s.json")
    again = load_mixed_study(path)
    assert len(again) == len(study) and again.meta["recipe"] == study.meta["recipe"]
    with pytest.raises(ValueError, match="no study table"):
        load_mixed_study(tmp_path / "missing.json")
    with pytest.raises(ValueError, match="not made by mixed_study"):
        save_mixed_study(ResultTable([{"a": 1}]), tmp_path / "x.json")
    with pytest.raises(TypeError, match="ResultTable"):
        save_mixed_study([{"a": 1}], tmp_path / "x.json")
    (tmp_path / "other.json").write_text(ResultTable([{"a": 1}], {"study": "other"}).to_json())
    with pytest.raises(ValueError, match="not a table written"):
        load_mixed_study(tmp_path / "other.json")
    with pytest.raises(KeyError, match="unknown column"):
        pivot(study, "speed", chain="simple")
    with pytest.raises(ValueError, match="chain"):
        pivot(study, "tip_mm", chain="six")


def test_mixed_study_bad_input():
    with pytest.raises(ValueError, match="chain"):
        mixed_study(["six"])
    with pytest.raises(ValueError, match="levels_mm"):
        mixed_study(["simple"], [-1.0])
    with pytest.raises(TypeError, match="cases"):
        mixed_study(["simple"], [7.5], [])


def test_compare_solvers_prefilters_the_markers():
    from robidlib.signals import lowpass

    ref = SIMPLE.reference_motion(duration=0.5)
    x = perturb_coordinates(ref.markers, 0.0075, rng=5)
    cmp = compare_solvers(SIMPLE.system, x, ref.q, [("AD + 6 Hz", "ad", {"lowpass_hz": 6.0})])
    direct = solve_kinematics(SIMPLE.system, lowpass(x, 6.0, 100.0), "ad")
    np.testing.assert_allclose(cmp.results["AD + 6 Hz"].q, direct.q, atol=1e-12)
    with pytest.raises(ValueError, match="lowpass_hz"):
        compare_solvers(SIMPLE.system, x, ref.q, [("AD", "ad", {"lowpass_hz": -6.0})])
    with pytest.raises(ValueError, match="rate"):
        compare_solvers(SIMPLE.system, x, ref.q, [("AD", "ad", {})], rate=0.0)
