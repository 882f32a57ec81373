"""What every explorer's tests share: the ends of a control, a frame that is finite, labelled and complete, and
every frame an explorer sends checked so."""

import math

import numpy as np

ARTIST_NUMBERS = ("values", "edges", "positions", "x", "y", "xedges", "yedges")


def control_ends(control):
    """The first and last value a control can take (a text field has none)."""
    return (control.options[0], control.options[-1]) if control.options else ()


def artist_numbers(artist):
    """Every number an artist of a frame (or of the spec) draws, flattened; a masked cell (None) as NaN."""
    numbers = []
    for key in ARTIST_NUMBERS:
        if key in artist:
            numbers.append(np.asarray(artist[key], dtype=float).ravel())
    return np.concatenate(numbers) if numbers else np.zeros(0)


def assert_finite_labelled_frame(explorer, frame):
    """Every panel titled and labelled, every artist's numbers finite (cells may be masked), every artist of the
    spec drawn with numbers (markers may mark nothing), a readout and a description."""
    spec = explorer.spec
    assert spec["panels"], "the figure has no panels"
    for index, base in enumerate(spec["panels"]):
        panel = {**base, **frame.get("panels", {}).get(str(index), frame.get("panels", {}).get(index, {}))}
        assert panel["title"] and panel["xlabel"], f"panel {index} lacks a title or an x label"
        assert panel.get("ylabel") or not panel["y"]["ticks"], f"panel {panel['title']!r} has y ticks but no label"
        for name in ("x", "y"):
            low, high = panel[name]["min"], panel[name]["max"]
            assert math.isfinite(low) and math.isfinite(high) and low != high, (panel["title"], name)
            if panel[name]["log"]:
                assert low > 0 and high > 0, f"panel {panel['title']!r}: a log axis from {low} to {high}"
    for artist in spec["artists"]:
        drawn = {**artist, **frame["artists"].get(artist["name"], {})}
        numbers = artist_numbers(drawn)
        finite = numbers[~np.isnan(numbers)] if artist["type"] == "cells" else numbers
        assert numbers.size or artist["type"] == "markers", f"artist {artist['name']!r} draws no numbers"
        assert np.all(np.isfinite(finite)), f"artist {artist['name']!r} draws a number that is not finite"
    assert frame["readout"] and all(label and value for label, value in frame["readout"])
    assert frame["description"]


def assert_every_sent_frame_finite_and_labelled(explorer):
    """The frames sent when the explorer is made, then those sent after each control is moved to each of its ends,
    all finite and labelled; each control reaches the end it is moved to."""
    for frame in explorer.frames.values():
        assert_finite_labelled_frame(explorer, frame)
    checked = set(explorer.frames)
    for control in explorer.controls.values():
        for end in control_ends(control):
            control.value = end
            assert control.value == end
            for key in explorer.sent.keys() - checked:  # the frames sent after the move
                assert_finite_labelled_frame(explorer, explorer.sent[key])
            checked |= explorer.sent.keys()
