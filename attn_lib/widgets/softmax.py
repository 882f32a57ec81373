"""The softmax explorer: one row of scores, its weights, and a temperature that sharpens or flattens them."""

from __future__ import annotations

import math

import numpy as np

from .._checks import InputValueError
from ..attention import softmax
from ._explorer import BAR, Explorer, axis, entropy_nats, not_while_grading, panels, slider

SOFTMAX_SCORES = (2.0, 1.0, 0.5, -0.5, -1.5)
# The temperature's positions: 10**e for e from -1 to 1 in steps of 0.05 (41, evenly spaced on a log scale), rounded
# so that 0.1, 1.0 and 10.0 are exactly positions; a score's: -5 to 5 in steps of 0.1 (101), each of one decimal.
TEMPERATURES = tuple(round(10 ** (k / 20 - 1), 10) for k in range(41))
SCORE_VALUES = tuple(round(k / 10, 1) for k in range(-50, 51))
ZERO_LINE = "#444444"  # the axis colour: the line at score 0


@not_while_grading
def softmax_explorer(scores=SOFTMAX_SCORES, temperature=1.0):
    """Move a temperature T and the scores of one row; watch ``softmax(scores / T)``.

    Parameters
    ----------
    scores : sequence of float, shape (m,)
        The starting row of scores, each between -5 and 5; from 2 to 8 of them.
    temperature : float
        Starting temperature, from 0.1 to 10.

    Returns
    -------
    Explorer
        Controls ``"temperature"`` (main) and ``"s0"``, ``"s1"``, ... (one per score). A starting value between two
        positions of its slider starts at the nearer one.
    """
    scores = np.asarray(scores, dtype=float)
    if scores.ndim != 1 or not 2 <= scores.size <= 8:
        raise InputValueError(f"scores must be a row of 2 to 8 numbers (m,); got shape {scores.shape}")
    if not np.all(np.abs(scores) <= 5):
        raise InputValueError(f"scores must each lie between -5 and 5; got {scores.tolist()}")
    if not 0.1 <= temperature <= 10:
        raise InputValueError(f"temperature must lie between 0.1 and 10; got {temperature!r}")
    m = scores.size
    controls = [slider("temperature", "temperature T (no unit; divides the scores)", TEMPERATURES,
                       [f"{t:.2f}" for t in TEMPERATURES])]
    controls += [slider(f"s{j}", f"score s{j} (no unit)", SCORE_VALUES, [f"{s:.1f}" for s in SCORE_VALUES])
                 for j in range(m)]
    start = {"temperature": float(temperature), **{f"s{j}": float(s) for j, s in enumerate(scores)}}

    size = (660, 280)
    scores_rect, weights_rect = panels(size, ncols=2)
    keys = axis(-0.5, m - 0.5, ticks=range(m))
    edges = np.arange(m + 1) - 0.5
    figure_panels = [
        {"rect": scores_rect, "title": "scores", "x": keys, "y": axis(-5.5, 5.5, ticks=(-4, -2, 0, 2, 4)),
         "xlabel": "key j", "ylabel": "score s_j (no unit)"},
        {"rect": weights_rect, "title": "weights = softmax(s / T)", "x": keys,
         "y": axis(0, 1.02, ticks=(0, 0.2, 0.4, 0.6, 0.8, 1.0)), "xlabel": "key j", "ylabel": "weight (row sums to 1)"},
    ]
    artists = [
        {"name": "zero", "panel": 0, "type": "line", "color": ZERO_LINE, "width": 0.8, "x": [-0.5, m - 0.5],
         "y": [0, 0]},
        {"name": "scores", "panel": 0, "type": "stairs", "color": BAR, "edges": edges, "baseline": 0},
        {"name": "weights", "panel": 1, "type": "stairs", "color": BAR, "edges": edges},
    ]

    def frame(temperature, **values):
        row = np.array([values[f"s{j}"] for j in range(m)])
        seen = row / temperature
        weights = softmax(seen)
        largest, winner = float(weights.max()), int(weights.argmax())
        entropy = float(entropy_nats(weights))
        readout = [
            ("temperature T", f"{temperature:.2f}"),
            ("scores / T", ", ".join(f"{x:.2f}" for x in seen)),
            ("weights", ", ".join(f"{w:.3f}" for w in weights)),
            ("sum of the weights", f"{weights.sum():.3f}"),
            ("largest weight", f"{largest:.3f} (key {winner})"),
            ("entropy", f"{entropy:.2f} nats (uniform: {math.log(m):.2f}, one-hot: 0)"),
        ]
        description = (
            f"bars of the {m} scores and of their softmax weights at T = {temperature:.2f}: "
            f"{', '.join(f'{w:.2f}' for w in weights)}; largest weight {largest:.3f} on key {winner}, "
            f"entropy {entropy:.2f} nats."
        )
        measured = {"largest_weight": largest, "entropy": entropy, "weight_sum": float(weights.sum()),
                    **{f"w{j}": float(w) for j, w in enumerate(weights)}}
        return {"artists": {"scores": {"values": row}, "weights": {"values": weights}},
                "readout": readout, "description": description, "measured": measured}

    return Explorer("softmax", controls, "temperature", start, {"width": size[0], "height": size[1]},
                    figure_panels, artists, frame)
