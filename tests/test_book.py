"""robidlib.book: glue without output, rendered tables."""
import numpy as np
import pytest

from robidlib.book import estimate_table, glue, glued, table
from robidlib.estimation import ols


def test_glue_converts_numpy_scalars_and_remembers():
    v = glue("x_value", np.float64(1.25))
    assert type(v) is float and glued("x_value") == 1.25
    assert glue("n-rows", np.int64(3)) == 3 and type(glued("n-rows")) is int


@pytest.mark.parametrize("name, exc", [(3, TypeError), ("", ValueError), ("a b", ValueError), ("x{1}", ValueError)])
def test_glue_bad_names(name, exc):
    with pytest.raises(exc, match="name must"):
        glue(name, 1.0)


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf, 1 + 2j])
def test_glue_refuses_non_numbers(value):
    with pytest.raises(ValueError, match="finite real number"):
        glue("bad", value)


def test_glued_unknown_name():
    with pytest.raises(ValueError, match="nothing glued under name 'never'"):
        glued("never")


def test_table_renders_markdown():
    md = table([["a", 1.23456, "x|y"]], ["n", "v", "s"], fmt=["s", ".2f", "s"], caption="T")
    assert md.data.splitlines() == ["T", "", "| n | v | s |", "| --- | --- | --- |", "| a | 1.23 | x\\|y |"]


def test_table_bad_input():
    with pytest.raises(ValueError, match=r"rows\[0\] has 1 cells, expected 2"):
        table([[1]], ["a", "b"])
    with pytest.raises(ValueError, match="fmt must be one spec or one per column"):
        table([[1, 2]], ["a", "b"], fmt=[".2f"])


def test_estimate_table():
    rng = np.random.default_rng(0)
    W = rng.normal(size=(200, 2))
    est = ols(W, W @ [1.0, 2.0] + rng.normal(0, 0.1, 200), names=["a", "b"])
    md = estimate_table(est, truth=[1.0, 2.0], digits=3).data
    lines = md.splitlines()
    assert lines[0].startswith("| parameter | estimate | std |") and "error / std" in lines[0]
    assert len(lines) == 4 and lines[2].startswith("| a | ") and lines[3].startswith("| b | ")
    with pytest.raises(ValueError, match="truth must have shape"):
        estimate_table(est, truth=[1.0])
    with pytest.raises(ValueError, match="digits must be an integer"):
        estimate_table(est, digits=0)
