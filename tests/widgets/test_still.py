"""The still image an explorer stores before its live widget (attn_lib/widgets/_explorer.py): what a learner sees
where the widget cannot run (a notebook opened before running it, no kernel, the static reading copy).

Tested without a browser: the still's pixels against the live canvas's, its HTML and text, which of the two outputs
the style rule hides in each state JupyterLab can be in (the selectors run on the same DOM shape, with soupsieve, a
CSS selector engine that knows :has()), and the WCAG contrast of every colour the still shows. The browser tests
(tests/browser/) run the rule in JupyterLab.
"""

import html
import io
import re
import sys
from pathlib import Path

import matplotlib.colors as mcolors
import numpy as np
import pytest
from bs4 import BeautifulSoup
from matplotlib.collections import PathCollection
from matplotlib.patches import Patch
from matplotlib.text import Text
from PIL import Image

from attn_lib.plotting import MASKED_COLOR
from attn_lib.widgets import EXPLORERS, dk_explorer, mask_explorer
from attn_lib.widgets._explorer import STILL_STYLE

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from contrast import AA_LARGE, AA_NORMAL, contrast_ratio, over  # noqa: E402  (tools/contrast.py)


@pytest.fixture(scope="module")
def built():
    return {kind: factory() for kind, factory in EXPLORERS.items()}


def decode(png):
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


@pytest.mark.parametrize("kind", EXPLORERS)
def test_the_still_is_the_live_figure_moving_artists_included(kind):
    explorer = EXPLORERS[kind]()  # drawn for the first time by the still: its layout must settle as the canvas's
    still = decode(explorer.still_png())
    canvas = explorer.figure.canvas
    canvas.draw()  # what the browser's first draw shows: background, then the animated artists on top
    live = np.asarray(canvas.get_renderer().buffer_rgba())[..., :3]
    assert still.shape == live.shape == (round(explorer.figure.bbox.height), round(explorer.figure.bbox.width), 3)
    np.testing.assert_array_equal(still, live)
    animated, explorer._animated = explorer._animated, []
    try:
        without = decode(explorer.still_png())  # what a plain savefig shows: the moving artists left out
    finally:
        explorer._animated = animated
    assert not np.array_equal(without, live)


def test_drawing_the_still_leaves_the_live_canvas_and_its_blitting_alone():
    explorer = dk_explorer()
    canvas = explorer.figure.canvas
    explorer.still_png()
    assert explorer._background is None  # no background kept from the still's renderer
    canvas.draw()
    before = np.asarray(canvas.get_renderer().buffer_rgba()).copy()
    explorer.still_png()
    np.testing.assert_array_equal(before, np.asarray(canvas.get_renderer().buffer_rgba()))
    explorer.controls["d_k"].value = 1024  # blitted over the kept background
    blitted = np.asarray(canvas.get_renderer().buffer_rgba()).copy()
    assert explorer.blits == 1
    canvas.draw()
    np.testing.assert_array_equal(blitted, np.asarray(canvas.get_renderer().buffer_rgba()))
    np.testing.assert_array_equal(decode(explorer.still_png()), blitted[..., :3])  # the still follows the controls


@pytest.mark.parametrize("kind", EXPLORERS)
def test_the_still_carries_its_description_as_alt_text_and_caption_and_a_prompt(built, kind):
    explorer = built[kind]
    bundle = explorer.still_bundle()
    assert sorted(bundle) == ["text/html", "text/plain"]  # no bare image/png: JupyterLab would show it without alt
    page = bundle["text/html"]
    assert page.endswith(STILL_STYLE)
    figure = BeautifulSoup(page, "html.parser").figure
    assert figure["class"] == ["attn-still", f"attn-still-{kind}"]
    assert "attn-explorer" not in page.replace(STILL_STYLE, "")  # the browser tests' selectors find only the widget
    image = figure.img
    assert image["alt"] == explorer.description
    assert image["src"].startswith("data:image/png;base64,")
    assert (int(image["width"]), int(image["height"])) == (round(explorer.figure.bbox.width),
                                                           round(explorer.figure.bbox.height))
    caption = figure.figcaption.get_text()
    main = explorer.controls[explorer.main_control].description
    others = [c.description for name, c in explorer.controls.items() if name != explorer.main_control]
    controls = "; ".join([main, *others])
    prompt = f"A still image of the explorer as first shown. Run this cell to use its controls: {controls}."
    assert caption == f"Figure: {explorer.description}{prompt}"
    assert bundle["text/plain"] == f"{prompt}\nFigure: {explorer.description}"
    assert html.escape(explorer.description, quote=False) in page


# --- which output shows: the style rule on JupyterLab's output area ------------------------------------------------

STILL = '<figure class="attn-still attn-still-dk"><img alt="a histogram" src="data:image/png;base64,AAAA"></figure>'
WIDGET_STATES = {  # what the widget output holds, by state -> does the live widget show (else the still)?
    "a live explorer": ('<div class="lm-Widget widget-vbox attn-explorer attn-explorer-dk"><div class="widget-hbox">'
                        '</div></div>', True),
    "an explorer restored from saved state, no kernel": (
        '<div class="lm-Widget widget-vbox attn-explorer attn-explorer-dk jupyter-widgets-disconnected">'
        '<div class="widget-hbox jupyter-widgets-disconnected"></div></div>', False),
    "a model that is gone": ('<div class="jupyter-widgets">Error displaying widget: model not found</div>', False),
    "a widget still loading": ("<div>Loading widget...</div>", False),
    "the text form (an untrusted notebook, or the reading copy without widget state)": (
        "<pre>dk_explorer: histogram of 5000 scores</pre>", False),
    "the reading copy's placeholder for the HTML widget manager": (
        '<div class="jupyter-widgets jp-OutputArea-output"><script type="application/vnd.jupyter.widget-view+json">'
        "{}</script></div>", False),
}


def output_area(*outputs):
    children = "".join(f'<div class="jp-OutputArea-child" id="out{i}"><div class="jp-OutputArea-prompt"></div>'
                       f'<div class="jp-OutputArea-output">{content}</div></div>' for i, content in enumerate(outputs))
    return f'<div class="jp-OutputArea">{children}</div>'


def hidden(page):
    """The ids of the output area children that STILL_STYLE hides (display: none) in ``page``."""
    rules = re.findall(r"([^{}]+)\{\s*display:\s*none;\s*\}", STILL_STYLE.removeprefix("<style>"))
    assert len(rules) == 2
    soup = BeautifulSoup(page, "html.parser")
    return {element["id"] for rule in rules for element in soup.select(rule.strip())}


@pytest.mark.parametrize("state", WIDGET_STATES)
def test_the_style_shows_the_live_widget_where_it_runs_and_the_still_everywhere_else(state):
    widget, live = WIDGET_STATES[state]
    assert hidden(output_area(STILL + STILL_STYLE, widget)) == ({"out0"} if live else {"out1"})


def test_the_style_leaves_other_outputs_alone():
    live = WIDGET_STATES["a live explorer"][0]
    assert hidden(output_area("<pre>a print</pre>", '<img alt="a figure" src="x.png">', live)) == set()
    gone = WIDGET_STATES["a model that is gone"][0]
    assert hidden(output_area(STILL + STILL_STYLE, live, "<pre>between</pre>", STILL + STILL_STYLE, live)) == {
        "out0", "out3"}  # two explorers in one cell, both live
    assert hidden(output_area(STILL + STILL_STYLE, gone, "<pre>between</pre>", STILL + STILL_STYLE, gone)) == {
        "out1", "out4"}  # both gone: both stills show


def test_an_explorer_is_displayed_as_its_still_then_its_widget(monkeypatch):
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda data, raw: shown.append((data, raw)))
    explorer = mask_explorer()
    explorer._ipython_display_()
    (still, raw_still), (live, raw_live) = shown
    assert raw_still and raw_live
    assert still["text/html"].startswith('<figure class="attn-still attn-still-mask"')
    assert live["text/plain"] == repr(explorer) and "application/vnd.jupyter.widget-view+json" in live


# --- colours: WCAG 2 AA on the still (and the live figure, which is the same image) --------------------------------

EXTRA_BACKGROUNDS = {"mask": [MASKED_COLOR]}  # the mask explorer's marks sit on blocked (grey) cells


def as_rgb(colour, alpha=None):
    """An (r, g, b) of 0-255 integers of a matplotlib colour, a translucent one laid over the white figure."""
    r, g, b, a = mcolors.to_rgba(colour)
    a = a if alpha is None else alpha * a
    return over(tuple(round(255 * c) for c in (r, g, b)), a, "#ffffff")


def shown_colours(explorer):
    """(what, colour, minimum ratio) for every text, line, bar, marker and spine the figure draws, in colours that
    are not data (heatmaps' colormaps carry numbers, read on their colorbar)."""
    found = []
    for text in explorer.figure.findobj(Text):
        if text.get_visible() and text.get_text().strip():
            found.append((f"text {text.get_text()!r}", as_rgb(text.get_color(), text.get_alpha()), AA_NORMAL))
    for ax in explorer.figure.axes:
        if ax.get_label() == "<colorbar>":
            continue
        found += [(f"spine {name}", as_rgb(spine.get_edgecolor()), AA_LARGE)
                  for name, spine in ax.spines.items() if spine.get_visible()]
        for line in ax.lines:
            found.append((f"line {line.get_label()!r}", as_rgb(line.get_color(), line.get_alpha()), AA_LARGE))
        for patch in ax.patches:
            if isinstance(patch, Patch) and patch.get_visible():
                colour = patch.get_facecolor() if patch.get_fill() else patch.get_edgecolor()
                found.append((f"{type(patch).__name__}", as_rgb(colour), AA_LARGE))
        for collection in ax.collections:
            if isinstance(collection, PathCollection):
                for colour in [*collection.get_facecolors(), *collection.get_edgecolors()]:
                    if colour[3] > 0:
                        found.append(("marker", as_rgb(colour), AA_LARGE))
    return found


@pytest.mark.parametrize("kind", EXPLORERS)
def test_every_colour_of_the_still_meets_wcag_aa_contrast(built, kind):
    """Text 4.5:1 (1.4.3), lines, bars, markers and axes 3:1 (1.4.11), against the white figure and whatever else
    they are drawn on. Grid lines are left out: the ticks carry the same information."""
    explorer = built[kind]
    for control in explorer.controls.values():  # every mark the explorer can draw, at each end of each control
        if hasattr(control, "options") and isinstance(control.options[0], tuple):
            control.value = control.options[-1][1]
    explorer.still_png()
    failures = [f"{what}: {contrast_ratio(colour, background):.3f}:1 on {background} (needs {least}:1)"
                for what, colour, least in shown_colours(explorer)
                for background in ["#ffffff", *EXTRA_BACKGROUNDS.get(kind, [])]
                if not what.startswith("text") or background == "#ffffff"
                if contrast_ratio(colour, background) < least]
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("kind", EXPLORERS)
def test_every_title_label_and_legend_lies_inside_the_still(kind):
    """The d_k explorer's right title ("one query's weights (16 keys)") ran 10 pixels past the figure's edge."""
    explorer = EXPLORERS[kind]()
    explorer.still_png()  # lays the figure out
    renderer = explorer.figure.canvas.get_renderer()
    width, height = explorer.figure.bbox.size
    outside = []
    for ax in explorer.figure.axes:
        legend = ax.get_legend()
        texts = [ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label, *ax.texts,
                 *(legend.get_texts() if legend else [])]
        for text in texts:
            if text.get_visible() and text.get_text().strip():
                box = text.get_window_extent(renderer)
                if box.x0 < 0 or box.y0 < 0 or box.x1 > width or box.y1 > height:
                    outside.append(f"{text.get_text()!r} at x {box.x0:.0f}-{box.x1:.0f}, y {box.y0:.0f}-{box.y1:.0f}")
    assert not outside, f"outside the {width:.0f} x {height:.0f} figure: " + "; ".join(outside)
