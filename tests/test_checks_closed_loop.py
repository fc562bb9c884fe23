"""Chapter 12's exercise checks: right answers pass; wrong ones and untouched stubs print ✘."""
import numpy as np
import pytest

from robidlib.checks import closed_loop as checks
from robidlib.closed_loop import ClosedLoopExperiment, idim_data, pd_controller, simulate_closed_loop
from robidlib.estimation import robot_base_model
from robidlib.models import planar_2r
from robidlib.trajectories import fourier_series

CROSS, TICK = "\u2718", "\u2714"


@pytest.fixture(scope="module")
def exp():
    model = robot_base_model(planar_2r())
    ref = fourier_series(np.arange(0.0, 0.5, 0.005), np.pi, [[0.3], [0.2]], [[0.0], [0.1]], [0.0, 0.5])
    e = ClosedLoopExperiment(model, ref, pd_controller(model, model.params, ref, bandwidth=8.0))
    W, y, s, keep = idim_data(model, simulate_closed_loop(e, model.params), cutoff=20.0, trim=2)
    return e, model, s, keep


def test_instruments(exp, capsys):
    e, model, s, keep = exp
    p = 1.1 * model.params
    rec = simulate_closed_loop(e, p)
    Z = model.regressor(rec.q[s], rec.qd[s], rec.qdd[s])[keep]
    assert checks.check_instruments(Z, e, p, s, keep)
    assert checks.check_instruments(Z.astype(np.float32).tolist(), e, p, s, keep)
    rec0 = simulate_closed_loop(e, model.params)
    wrong = model.regressor(rec0.q[s], rec0.qd[s], rec0.qdd[s])[keep]
    assert not checks.check_instruments(wrong, e, p, s, keep)
    assert not checks.check_instruments(..., e, p, s, keep)
    assert not checks.check_instruments(Z[:-1], e, p, s, keep)
    assert not checks.check_instruments(np.full_like(Z, np.nan), e, p, s, keep)
    out = capsys.readouterr().out
    assert out.count(TICK) == 2 and out.count(CROSS) == 4 and "simulation" in out
    with pytest.raises(TypeError, match="experiment"):
        checks.check_instruments(Z, "e", p, s, keep)


def test_bias_sign(capsys):
    names = ["a", "b", "c"]
    rng = np.random.default_rng(0)
    E = np.array([1.0, 2.0, 3.0]) + rng.normal(0, 0.01, (40, 3)) + [0.1, -0.1, 0.0]
    study = {"1/ls": E}
    meta = {"names": names, "truth": [1.0, 2.0, 3.0], "recipe": {"levels": [0.0, 1.0]}}
    assert checks.check_bias_sign("a", "+", study, meta)
    assert checks.check_bias_sign("b", "-", study, meta)
    assert not checks.check_bias_sign("a", "-", study, meta)
    assert not checks.check_bias_sign("c", "+", study, meta)          # no bias to predict
    assert not checks.check_bias_sign("z", "+", study, meta)
    assert not checks.check_bias_sign("a", "up", study, meta)
    assert not checks.check_bias_sign(..., "+", study, meta)
    out = capsys.readouterr().out
    assert out.count(TICK) == 2 and out.count(CROSS) == 5
    with pytest.raises(TypeError, match="meta"):
        checks.check_bias_sign("a", "+", study, {})


def test_method_choice(capsys):
    assert checks.check_method_choice({"A": "didim", "B": "iv", "C": "neither"})
    assert checks.check_method_choice({"A": "DIDIM", "B": "IV", "C": "Neither"})
    assert not checks.check_method_choice({"A": "iv", "B": "iv", "C": "neither"})
    assert not checks.check_method_choice({"A": "didim", "B": "iv", "C": "iv"})
    assert not checks.check_method_choice({"A": ..., "B": ..., "C": ...})
    assert not checks.check_method_choice(["didim", "iv", "neither"])
    assert not checks.check_method_choice({"A": "didim", "B": 3, "C": "neither"})
    out = capsys.readouterr().out
    assert out.count(TICK) == 2 and out.count(CROSS) == 5
