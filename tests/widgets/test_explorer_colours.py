"""WCAG 2 AA for what every explorer draws (attn_lib/widgets/explorer.js from each explorer's spec): text 4.5:1
(1.4.3), lines, bars, markers and axes 3:1 (1.4.11), against the white figure and whatever else they are drawn on.

Cells carry numbers in their colour map (read on the readout and the colour bar), so only the marks drawn over them
are measured. Where the texts lie is checked in the browser (tests/browser/test_reading_copy.py).
"""

import re
import sys
from pathlib import Path

import pytest

from attn_lib.plotting import MASKED_COLOR
from attn_lib.widgets import EXPLORERS
from attn_lib.widgets._explorer import MODULE

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from contrast import AA_LARGE, AA_NORMAL, contrast_ratio, over, rgb  # noqa: E402  (tools/contrast.py)

EXTRA_BACKGROUNDS = {"mask": [MASKED_COLOR]}  # the mask explorer's marks sit on blocked (grey) cells


@pytest.fixture(scope="module")
def built():
    return {kind: factory() for kind, factory in EXPLORERS.items()}


def drawn_colours(spec):
    """(what, colour as seen on white) for every artist and legend entry of a spec, except cells' colour maps."""
    found = []
    for panel in spec["panels"]:
        for entry in panel.get("legend", []):
            found.append((f"legend {entry['label']!r}", entry["color"], entry.get("alpha", 1)))
    for artist in spec["artists"]:
        if artist["type"] == "cells":
            continue
        found.append((f"{artist['type']} {artist['name']!r}", artist["color"], artist.get("alpha", 1)))
        if artist.get("fill") not in (None, "none"):
            found.append((f"fill of {artist['name']!r}", artist["fill"], 1))
    return [(what, over(rgb(colour), alpha, "#ffffff")) for what, colour, alpha in found]


@pytest.mark.parametrize("kind", EXPLORERS)
def test_every_mark_of_every_explorer_meets_3_to_1(built, kind):
    failures = [f"{what}: {contrast_ratio(colour, background):.2f}:1 on {background}"
                for what, colour in drawn_colours(built[kind].spec)
                for background in ["#ffffff", *EXTRA_BACKGROUNDS.get(kind, [])]
                if contrast_ratio(colour, background) < AA_LARGE]
    assert not failures, "\n".join(failures)


def test_the_figures_text_and_axes_meet_4_5_and_3_to_1():
    module = MODULE.read_text()
    ink = re.search(r'const INK = "(#[0-9a-f]{6})"', module).group(1)
    spine = re.search(r'const SPINE = "(#[0-9a-f]{6})"', module).group(1)
    assert contrast_ratio(rgb(ink), "#ffffff") >= AA_NORMAL
    assert contrast_ratio(rgb(spine), "#ffffff") >= AA_LARGE
    # every colour the module writes itself is one of these, white, or the focus ring
    written = set(re.findall(r'"(#[0-9a-fA-F]{6})"', module)) | set(re.findall(r"(#[0-9a-fA-F]{6})", module))
    assert written <= {ink, spine, "#ffffff", "#1a5fb4"}, written
    assert contrast_ratio(rgb("#1a5fb4"), "#ffffff") >= AA_LARGE  # the focus ring around a control
