"""The course's figure style and the weights heatmap (attn_lib/plotting.py)."""

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

from attn_lib import causal_mask, softmax
from attn_lib.plotting import STYLE, equation_figure, show_weights, use_style


def test_use_style_sets_the_course_style():
    with matplotlib.rc_context():
        use_style()
        for key, value in STYLE.items():
            assert matplotlib.rcParams[key] == matplotlib.rcParams.validate[key](value), key


def test_show_weights_draws_every_cell_and_greys_the_blocked_ones():
    weights = softmax(np.where(causal_mask(3, 4), np.arange(12.0).reshape(3, 4), -np.inf))  # (3, 4)
    image = show_weights(weights, mask=causal_mask(3, 4), key_labels=list("abcd"), query_labels=list("xyz"))
    ax = image.axes
    shown = image.get_array()
    assert shown.shape == (3, 4)
    np.testing.assert_array_equal(np.ma.getmaskarray(shown), ~causal_mask(3, 4))  # blocked cells: the grey "bad"
    assert [t.get_text() for t in ax.get_xticklabels()] == list("abcd")
    crosses = [t for t in ax.texts if t.get_text() == "×"]
    numbers = [t for t in ax.texts if t.get_text() != "×"]
    assert len(crosses) == int((~causal_mask(3, 4)).sum()) and len(numbers) == int(causal_mask(3, 4).sum())
    assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title()
    plt.close(ax.figure)


def test_show_weights_refuses_weights_that_are_not_a_matrix():
    with pytest.raises(ValueError, match=r"^weights must be 2-D \(n, m\); got shape \(3,\)"):
        show_weights(np.ones(3))


def test_equation_figure_labels_its_four_pieces():
    fig = equation_figure()
    labels = [text for text in fig.axes[0].texts if ":" in text.get_text()]
    assert len(labels) == 4
    plt.close(fig)
