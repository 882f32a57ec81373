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


def test_show_figure_sends_the_png_with_its_alt_text_and_closes_the_figure(monkeypatch):
    import base64

    import IPython.display

    from attn_lib.plotting import show_figure

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda *args, **kwargs: shown.append((args, kwargs)))
    fig, ax = plt.subplots(figsize=(2, 1))
    ax.plot([0, 1])
    show_figure(fig, alt='a "rising" line & nothing else')
    (bundle,), kwargs = shown[0]
    assert kwargs == {"raw": True, "metadata": {"image/png": {"alt": 'a "rising" line & nothing else'}}}
    assert base64.b64decode(bundle["image/png"]).startswith(b"\x89PNG")
    assert bundle["text/html"] == ('<img alt="a &quot;rising&quot; line &amp; nothing else" '
                                   f'src="data:image/png;base64,{bundle["image/png"]}">')
    assert bundle["text/plain"] == repr(fig)
    assert not plt.fignum_exists(fig.number)
    with pytest.raises(ValueError, match="alt must be a non-empty description"):
        show_figure(plt.figure(), alt=" ")
    plt.close("all")
