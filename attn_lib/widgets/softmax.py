"""The softmax explorer: one row of scores, its weights, and a temperature that sharpens or flattens them."""

from __future__ import annotations

import math

import ipywidgets as widgets
import numpy as np

from .._checks import InputValueError
from ..attention import softmax
from ._explorer import BAR, WIDE, Explorer, entropy_nats, live_figure, not_while_grading, readout_rows

SOFTMAX_SCORES = (2.0, 1.0, 0.5, -0.5, -1.5)


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
        Controls ``"temperature"`` (main) and ``"s0"``, ``"s1"``, ... (one per score).
    """
    scores = np.asarray(scores, dtype=float)
    if scores.ndim != 1 or not 2 <= scores.size <= 8:
        raise InputValueError(f"scores must be a row of 2 to 8 numbers (m,); got shape {scores.shape}")
    if not np.all(np.abs(scores) <= 5):
        raise InputValueError(f"scores must each lie between -5 and 5; got {scores.tolist()}")
    if not 0.1 <= temperature <= 10:
        raise InputValueError(f"temperature must lie between 0.1 and 10; got {temperature!r}")
    m = scores.size
    temperature_control = widgets.FloatLogSlider(value=temperature, base=10, min=-1, max=1, step=0.05,
                                                 continuous_update=False, readout_format=".2f",
                                                 description="temperature T (no unit; divides the scores)",
                                                 style=WIDE, layout=widgets.Layout(width="40em"))
    controls = {"temperature": temperature_control}
    for j, s in enumerate(scores):
        controls[f"s{j}"] = widgets.FloatSlider(value=float(s), min=-5, max=5, step=0.1, continuous_update=False,
                                                description=f"score s{j} (no unit)", style=WIDE,
                                                layout=widgets.Layout(width="22em"), readout_format=".1f")

    fig, (ax_scores, ax_weights) = live_figure((6.6, 2.8), ncols=2)
    edges = np.arange(m + 1) - 0.5
    score_bars = ax_scores.stairs(np.zeros(m), edges, fill=True, color=BAR, baseline=0)
    ax_scores.axhline(0, color="#444444", lw=0.8)
    ax_scores.set_xlim(-0.5, m - 0.5)
    ax_scores.set_ylim(-5.5, 5.5)
    ax_scores.set_xticks(range(m))
    ax_scores.set_xlabel("key j")
    ax_scores.set_ylabel("score s_j (no unit)")
    ax_scores.set_title("scores")
    weight_bars = ax_weights.stairs(np.zeros(m), edges, fill=True, color=BAR)
    ax_weights.set_xlim(-0.5, m - 0.5)
    ax_weights.set_xticks(range(m))
    ax_weights.set_ylim(0, 1.02)
    ax_weights.set_xlabel("key j")
    ax_weights.set_ylabel("weight (row sums to 1)")
    ax_weights.set_title("weights = softmax(s / T)")

    def update(temperature, **values):
        row = np.array([values[f"s{j}"] for j in range(m)])
        seen = row / temperature
        weights = softmax(seen)
        score_bars.set_data(row)
        weight_bars.set_data(weights)
        largest, winner = float(weights.max()), int(weights.argmax())
        entropy = float(entropy_nats(weights))
        readout = readout_rows([
            ("temperature T", f"{temperature:.2f}"),
            ("scores / T", ", ".join(f"{x:.2f}" for x in seen)),
            ("weights", ", ".join(f"{w:.3f}" for w in weights)),
            ("sum of the weights", f"{weights.sum():.3f}"),
            ("largest weight", f"{largest:.3f} (key {winner})"),
            ("entropy", f"{entropy:.2f} nats (uniform: {math.log(m):.2f}, one-hot: 0)"),
        ])
        description = (
            f"bars of the {m} scores and of their softmax weights at T = {temperature:.2f}: "
            f"{', '.join(f'{w:.2f}' for w in weights)}; largest weight {largest:.3f} on key {winner}, "
            f"entropy {entropy:.2f} nats."
        )
        measured = {"largest_weight": largest, "entropy": entropy, "weight_sum": float(weights.sum()),
                    **{f"w{j}": float(w) for j, w in enumerate(weights)}}
        return readout, description, False, measured

    return Explorer("softmax", controls, "temperature", fig, update, animated=(score_bars, weight_bars))
