"""The course's figure style and the weights heatmap (attn_lib/plotting.py)."""

import os
import re
import sys
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from matplotlib.colors import to_rgb

from attn_lib import causal_mask, softmax
from attn_lib.plotting import BLOCKED_MARK, MASKED_COLOR, STYLE, equation_figure, ink_on, show_weights, use_style

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from contrast import AA_NORMAL, contrast_ratio  # noqa: E402  (tools/contrast.py)


def rgb255(colour):
    return tuple(round(255 * c) for c in to_rgb(colour))


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


@pytest.fixture
def kernel_display(monkeypatch):
    """Pretend to be in a Jupyter kernel; collect what show_figure displays."""
    import IPython.display

    from attn_lib import plotting

    shown = []
    monkeypatch.setattr(plotting, "_in_kernel", lambda: True)
    monkeypatch.setattr(IPython.display, "display", lambda *args, **kwargs: shown.append((args, kwargs)))
    return shown


def test_show_figure_sends_the_png_once_inside_html_with_its_alt_text_and_closes_the_figure(kernel_display):
    import base64

    from attn_lib.plotting import show_figure

    fig, ax = plt.subplots(figsize=(2, 1))
    ax.plot([0, 1])
    show_figure(fig, alt='a "rising" line & nothing else')
    (bundle,), kwargs = kernel_display[0]
    assert kwargs == {"raw": True}
    assert set(bundle) == {"text/html", "text/plain"}, "the PNG must be stored once, inside the HTML"
    match = re.fullmatch(r'<img alt="a &quot;rising&quot; line &amp; nothing else" '
                         r'src="data:image/png;base64,([A-Za-z0-9+/=]+)">', bundle["text/html"])
    assert match and base64.b64decode(match.group(1)).startswith(b"\x89PNG")
    assert bundle["text/plain"] == repr(fig)
    assert not plt.fignum_exists(fig.number)


@pytest.mark.parametrize("execution, drawn", [("autograde", False), ("validate", True), (None, True)])
def test_while_nbgrader_autogrades_a_figure_is_its_alt_text_undrawn_and_closed(kernel_display, monkeypatch,
                                                                                execution, drawn):
    """nbgrader autograde (NBGRADER_EXECUTION=autograde) gets the alt text as the figure's output and nothing is
    rendered; nbgrader validate and a learner's kernel get the figure."""
    from attn_lib.plotting import show_figure

    if execution:
        monkeypatch.setenv("NBGRADER_EXECUTION", execution)
    else:
        monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    fig, ax = plt.subplots(figsize=(2, 1))
    ax.plot([0, 1])
    draws = []
    fig.canvas.mpl_connect("draw_event", draws.append)
    show_figure(fig, alt="a rising line")
    (bundle,), kwargs = kernel_display[0]
    assert kwargs == {"raw": True} and not plt.fignum_exists(fig.number)
    if drawn:
        assert "text/html" in bundle and draws
    else:
        assert bundle == {"text/plain": "Figure, not drawn while grading: a rising line"} and draws == []
    with pytest.raises(ValueError, match="alt must be a non-empty"):  # its arguments are checked all the same
        show_figure(plt.figure(), alt=" ")
    plt.close("all")


def test_show_figure_outside_a_kernel_is_plt_show_and_prints_nothing(monkeypatch, capsys):
    from attn_lib import plotting

    calls = []
    monkeypatch.setattr(plotting.plt, "show", lambda *args, **kwargs: calls.append(args))
    fig = plt.figure()
    plotting.show_figure(fig, alt="an empty figure")
    assert calls == [()] and capsys.readouterr().out == ""
    plt.close(fig)


def test_show_figure_in_plain_python_prints_no_bundle(tmp_path):
    # A fresh interpreter, IPython importable but not running: nothing on stdout (no base64 dump).
    import subprocess
    import sys

    code = ("import matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot as plt\n"
            "from attn_lib.plotting import show_figure\n"
            "plt.plot([0, 1]); show_figure(alt='a line'); print('done')\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=tmp_path)
    assert result.stdout == "done\n"


def test_show_figure_names_a_wrong_fig():
    from attn_lib.plotting import show_figure

    fig, ax = plt.subplots()
    with pytest.raises(TypeError, match=r"^fig must be a matplotlib.figure.Figure \(pass ax.figure for an Axes\); "
                                        r"got Axes$"):
        show_figure(ax, alt="x")
    with pytest.raises(TypeError, match=r"^fig must be a matplotlib.figure.Figure; got str$"):
        show_figure("figure", alt="x")
    plt.close(fig)


@pytest.mark.parametrize("alt", [None, 3, b"bytes"])
def test_show_figure_refuses_an_alt_that_is_not_text(alt):
    from attn_lib.plotting import show_figure

    with pytest.raises(TypeError, match=rf"^alt must be a str describing the figure; got {type(alt).__name__} "):
        show_figure(plt.figure(), alt=alt)
    plt.close("all")


@pytest.mark.parametrize("alt", ["", " ", "\n\t"])
def test_show_figure_refuses_an_empty_alt(alt):
    from attn_lib.plotting import show_figure

    with pytest.raises(ValueError, match="^alt must be a non-empty description of the figure; got "):
        show_figure(plt.figure(), alt=alt)
    plt.close("all")


def test_in_kernel_only_when_ipython_runs_with_a_kernel(monkeypatch):
    # plain python: no shell; a terminal IPython: a shell without a kernel; a Jupyter kernel: a shell with one
    import types

    import IPython

    from attn_lib.plotting import _in_kernel

    for shell, expected in ((None, False), (types.SimpleNamespace(), False),
                            (types.SimpleNamespace(kernel=object()), True)):
        monkeypatch.setattr(IPython, "get_ipython", lambda shell=shell: shell)
        assert _in_kernel() is expected, shell


# --- WCAG 2 AA contrast of the figures' text (1.4.3: 4.5:1 for text under 18 pt) -----------------------------------


@given(st.tuples(*[st.floats(0, 1)] * 3))
def test_ink_on_any_colour_reaches_aa_contrast_and_is_the_better_of_black_and_white(colour):
    ink = ink_on(colour)
    cell = rgb255(colour)
    assert contrast_ratio(rgb255(ink), cell) >= 4.58 - 1e-9  # the square root of 21: the worst colour's best ink
    other = "white" if ink == "black" else "black"
    assert contrast_ratio(rgb255(ink), cell) >= contrast_ratio(rgb255(other), cell)


def test_every_number_written_on_a_weights_heatmap_reaches_aa_contrast():
    """Before, white text went on every cell below 0.55: 3.4:1 on viridis' green-blue near the middle."""
    weights = np.linspace(0, 1, 121).reshape(11, 11)
    image = show_weights(weights, mask=~np.eye(11, dtype=bool) | (weights < 2))
    numbers = [t for t in image.axes.texts if t.get_text() != "×"]
    assert len(numbers) == 121
    for text in numbers:
        i, j = (round(v) for v in text.get_position()[::-1])
        cell = rgb255(image.cmap(image.norm(weights[i, j]))[:3])
        assert contrast_ratio(rgb255(text.get_color()), cell) >= AA_NORMAL, (weights[i, j], text.get_color())
    plt.close(image.axes.figure)


def test_the_cross_on_a_blocked_cell_reaches_aa_contrast():
    image = show_weights(softmax(np.where(causal_mask(3, 3), 0.0, -np.inf)), mask=causal_mask(3, 3))
    crosses = [t for t in image.axes.texts if t.get_text() == "×"]
    assert crosses and {t.get_color() for t in crosses} == {BLOCKED_MARK}
    assert contrast_ratio(rgb255(BLOCKED_MARK), rgb255(MASKED_COLOR)) >= AA_NORMAL
    plt.close(image.axes.figure)


def test_every_text_of_the_equation_figure_reaches_aa_contrast_on_white():
    """The labels are 11 pt: Okabe-Ito's vermilion, green and purple were 3.1-3.9:1 on white."""
    fig = equation_figure()
    texts = [t for t in fig.axes[0].texts if t.get_text().strip()]
    assert len(texts) >= 10
    for text in texts:
        assert contrast_ratio(rgb255(text.get_color()), "#ffffff") >= AA_NORMAL, text.get_text()
    plt.close(fig)
