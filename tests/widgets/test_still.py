"""The still an explorer stores before its widget (attn_lib/widgets/_still.py): what a learner sees where JupyterLab
draws no widget (an untrusted notebook: a fresh clone, Binder, a download, before it is run).

Tested without a browser: the still's HTML and text, its pixels against the frame it draws, and which of the two
outputs the style rule hides in each state JupyterLab can be in (the selectors run on the same DOM shape, with
soupsieve, a CSS selector engine that knows :has()). The browser tests (tests/browser/) run the rule in JupyterLab.
"""

import io
import re

import numpy as np
import pytest
from bs4 import BeautifulSoup
from PIL import Image

from attn_lib.widgets import EXPLORERS, dk_explorer, mask_explorer
from attn_lib.widgets._still import STILL_STYLE, still_bundle, still_png


@pytest.fixture(scope="module")
def built():
    return {kind: factory() for kind, factory in EXPLORERS.items()}


def decode(png):
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


@pytest.mark.parametrize("kind", EXPLORERS)
def test_the_still_carries_its_description_as_alt_text_and_caption_and_a_prompt(built, kind):
    explorer = built[kind]
    bundle = still_bundle(explorer)
    assert sorted(bundle) == ["text/html", "text/plain"]  # no bare image/png: JupyterLab would show it without alt
    page = bundle["text/html"]
    assert page.endswith(STILL_STYLE)
    figure = BeautifulSoup(page, "html.parser").figure
    assert figure["class"] == ["attn-still", f"attn-still-{kind}"]
    assert "attn-explorer" not in page.replace(STILL_STYLE, "")  # the browser tests' selectors find only the widget
    image = figure.img
    assert image["alt"] == explorer.description
    assert image["src"].startswith("data:image/png;base64,")
    size = (explorer.spec["figure"]["width"], explorer.spec["figure"]["height"])
    assert (int(image["width"]), int(image["height"])) == size
    main = explorer.controls[explorer.main_control].label
    others = [c.label for name, c in explorer.controls.items() if name != explorer.main_control]
    prompt = f"A still image of the explorer as first shown. Run this cell to use its controls: {'; '.join([main, *others])}."
    assert figure.figcaption.get_text() == f"Figure: {explorer.description}{prompt}"
    assert bundle["text/plain"] == f"{prompt}\nFigure: {explorer.description}"


def test_the_still_draws_the_frame_it_is_given():
    """The d_k explorer's still at two settings: the figure's size, and different pixels where the frames differ."""
    explorer = dk_explorer()
    first = decode(still_png(explorer.spec, explorer.frame_at(d_k=64, scaled=False)))
    wide = decode(still_png(explorer.spec, explorer.frame_at(d_k=1024, scaled=False)))
    again = decode(still_png(explorer.spec, explorer.frame_at(d_k=64, scaled=False)))
    assert first.shape == (explorer.spec["figure"]["height"], explorer.spec["figure"]["width"], 3)
    assert np.array_equal(first, again) and not np.array_equal(first, wide)


def test_an_explorer_is_displayed_as_its_still_then_its_widget(monkeypatch):
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda data, raw: shown.append((data, raw)))
    explorer = mask_explorer()
    explorer._ipython_display_()
    (still, raw_still), (live, raw_live) = shown
    assert raw_still and raw_live
    assert still["text/html"].startswith('<figure class="attn-still attn-still-mask"')
    assert live["text/plain"] == repr(explorer) and "application/vnd.jupyter.widget-view+json" in live


# --- which output shows: the style rule on JupyterLab's output area ------------------------------------------------

STILL = '<figure class="attn-still attn-still-dk"><img alt="a histogram" src="data:image/png;base64,AAAA"></figure>'
WIDGET_STATES = {  # what the widget output holds, by state -> is the explorer drawn (else the still shows)?
    "a drawn explorer (a running kernel, or a trusted notebook's saved state)": (
        '<div class="lm-Widget"><div class="attn-explorer attn-explorer-dk"><div class="attn-controls"></div>'
        '</div></div>', True),
    "a model that is gone": ('<div class="jupyter-widgets">Error displaying widget: model not found</div>', False),
    "a widget still loading": ("<div>Loading widget...</div>", False),
    "the text form (an untrusted notebook)": ("<pre>dk_explorer: histogram of 5000 scores</pre>", False),
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
def test_the_style_shows_the_explorer_where_it_is_drawn_and_the_still_everywhere_else(state):
    widget, drawn = WIDGET_STATES[state]
    assert hidden(output_area(STILL + STILL_STYLE, widget)) == ({"out0"} if drawn else {"out1"})


def test_the_style_leaves_other_outputs_alone():
    drawn = WIDGET_STATES["a drawn explorer (a running kernel, or a trusted notebook's saved state)"][0]
    assert hidden(output_area("<pre>a print</pre>", '<img alt="a figure" src="x.png">', drawn)) == set()
    gone = WIDGET_STATES["a model that is gone"][0]
    assert hidden(output_area(STILL + STILL_STYLE, drawn, "<pre>between</pre>", STILL + STILL_STYLE, drawn)) == {
        "out0", "out3"}  # two explorers in one cell, both drawn
    assert hidden(output_area(STILL + STILL_STYLE, gone, "<pre>between</pre>", STILL + STILL_STYLE, gone)) == {
        "out1", "out4"}  # both gone: both stills show
