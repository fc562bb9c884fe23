import matplotlib as mpl
import pytest

from robidlib.plotting import BOOK_STYLE, use_book_style


def test_style_sets_opaque_backgrounds():
    applied = use_book_style(**{"figure.dpi": 80})
    assert mpl.rcParams["figure.facecolor"] == "white"
    assert mpl.rcParams["savefig.transparent"] is False
    assert applied["figure.dpi"] == 80 and BOOK_STYLE["figure.dpi"] == 96


def test_unknown_rcparam_is_refused():
    with pytest.raises(ValueError, match="unknown matplotlib rcParams"):
        use_book_style(**{"figure.not_a_param": 1})
