"""plotting.error_distribution: the errors of many Monte Carlo draws, per method."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from robidlib.plotting import error_distribution  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def gid(artists, name):
    return [a for a in artists if a.get_gid() == name]


def test_ecdf_one_step_curve_per_method_with_reference_and_mark():
    errs = {"GCV": [0.3, 0.01, 2.0, 0.05], "L-curve": [0.06, 0.07, 0.05]}
    ax = error_distribution(errs, reference=0.12, reference_label="prior", marks={"GCV": 0.01},
                            label="relative error")
    curves = gid(ax.get_lines(), "ecdf")
    assert [c.get_label() for c in curves] == ["GCV", "L-curve"]
    x, y = curves[0].get_data()
    np.testing.assert_allclose(x[1:], [0.01, 0.05, 0.3, 2.0])
    np.testing.assert_allclose(y, [0.0, 0.25, 0.5, 0.75, 1.0])
    ref = gid(ax.get_lines(), "reference")
    assert len(ref) == 1 and ref[0].get_xdata()[0] == 0.12 and ref[0].get_label() == "prior"
    mark = gid(ax.get_lines(), "mark")
    assert len(mark) == 1 and mark[0].get_ydata()[0] == 0.25       # a quarter of the draws <= 0.01
    assert ax.get_xscale() == "log" and ax.get_xlabel() == "relative error"


def test_ecdf_of_several_groups_uses_one_line_style_per_group():
    errs = {"rich": {"OLS": [1.0, 2.0], "LMI": [1.1, 1.9]}, "poor": {"OLS": [30.0, 40.0], "LMI": [2.0, 3.0]}}
    ax = error_distribution(errs)
    curves = gid(ax.get_lines(), "ecdf")
    assert [c.get_label() for c in curves] == ["OLS, rich", "LMI, rich", "OLS, poor", "LMI, poor"]
    assert [c.get_linestyle() for c in curves] == ["-", "-", "--", "--"]
    assert curves[0].get_color() == curves[2].get_color() != curves[1].get_color()


def test_boxes_side_by_side_per_group():
    errs = {"rich": {"OLS": [1.0, 2.0, 3.0], "LMI": [1.1, 1.9, 2.5]},
            "poor": {"OLS": [30.0, 40.0, 35.0], "LMI": [2.0, 3.0, 2.5]}}
    ax = error_distribution(errs, kind="box", label="error (%)", reference=10.0)
    boxes = gid(ax.patches, "box")
    assert len(boxes) == 4
    assert [t.get_text() for t in ax.get_xticklabels()] == ["OLS", "LMI"]
    assert ax.get_yscale() == "log" and ax.get_ylabel() == "error (%)"
    assert gid(ax.get_lines(), "reference")[0].get_ydata()[0] == 10.0
    assert sorted(ax.get_legend_handles_labels()[1]) == ["poor", "rich"]
    flat = error_distribution({"a": [1.0, 2.0], "b": [0.0, 1.0]}, kind="box", log=False)
    assert len(gid(flat.patches, "box")) == 2 and flat.get_yscale() == "linear"


def test_bad_input_names_the_argument():
    good = {"a": [0.1, 0.2]}
    cases = [
        (dict(errors=[[0.1]]), TypeError, "errors must be a mapping"),
        (dict(errors={}), ValueError, "at least one method"),
        (dict(errors={"a": []}), ValueError, "must hold at least one value"),
        (dict(errors={"a": [0.1, np.nan]}), ValueError, "finite"),
        (dict(errors={"a": [0.1, 1j]}), TypeError, "must be real"),
        (dict(errors={"a": [0.0, 1.0]}), ValueError, "> 0 on a log scale"),
        (dict(errors={"g": {"a": [1.0]}, "b": [1.0]}), TypeError, "not a mix"),
        (dict(errors={"g": {}}), ValueError, "at least one method"),
        (dict(errors=good, kind="violin"), ValueError, "kind must be"),
        (dict(errors=good, log="yes"), TypeError, "log must be a bool"),
        (dict(errors=good, reference=-1.0), ValueError, "reference must be > 0"),
        (dict(errors=good, marks={"b": 0.1}), ValueError, "marks names 'b'"),
        (dict(errors=good, marks=[0.1]), TypeError, "marks must be a mapping"),
        (dict(errors=good, kind="box", marks={"a": 0.1}), ValueError, "ECDF curves only"),
        (dict(errors={"g": good}, marks={"a": 0.1}), ValueError, "flat errors"),
        (dict(errors=good, colors=["r", "b"]), ValueError, "colors must hold 1"),
        (dict(errors=good, ax="axes"), TypeError, "ax must be a matplotlib Axes"),
    ]
    for kwargs, exc, message in cases:
        with pytest.raises(exc, match=message):
            error_distribution(**kwargs)
