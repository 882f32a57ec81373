"""The d_k explorer: why the scores are divided by sqrt(d_k).

Move d_k and watch the spread of the scores q·k grow with it, and one softmax row turn nearly one-hot; switch to
scaled scores and the spread stays the same whatever d_k.
"""

from __future__ import annotations

import math

import ipywidgets as widgets
import numpy as np

from .._checks import InputValueError
from ..attention import softmax
from ._explorer import (BAR, THEORY, WIDE, Explorer, entropy_nats, largest_jacobian_entry, live_figure,
                        not_while_grading, readout_rows, significant, three_figures)

DK_VALUES = tuple(2**p for p in range(11))  # 1, 2, 4, ..., 1024


@not_while_grading
def dk_explorer(d_k=64, scaled=False, pairs=5000, keys=16, seed=0):
    """Move d_k and watch the spread of the scores q·k and the sharpness of one softmax row.

    Queries and keys have independent components of mean 0 and variance 1, so an unscaled score q·k has
    variance d_k and a scaled one, q·k / sqrt(d_k), variance 1. Unscaled, a large d_k makes the softmax
    nearly one-hot and its gradient tiny.

    Parameters
    ----------
    d_k : int
        Starting width of queries and keys, a power of two from 1 to 1024.
    scaled : bool
        Start with the scores divided by sqrt(d_k).
    pairs : int
        Sampled (q, k) pairs in the histogram.
    keys : int
        Keys in the softmax row (one query against ``keys`` keys).
    seed : int
        Seed of every sample; the same seed gives the same figure.

    Returns
    -------
    Explorer
        Controls ``"d_k"`` (main) and ``"scaled"``.
    """
    if d_k not in DK_VALUES:
        raise InputValueError(f"d_k must be a power of two from 1 to 1024; got {d_k!r}")
    for name, value, least in (("pairs", pairs, 100), ("keys", keys, 2)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise InputValueError(f"{name} must be an integer of at least {least}; got {value!r}")
    rng = np.random.default_rng(seed)
    top = DK_VALUES[-1]
    # Sample the widest queries and keys once; the scores for a smaller d_k use the first d_k components.
    # Summing the products block by block ([0,1), [1,2), [2,4), ..., [512,1024)) and accumulating gives the score
    # at every power of two without keeping the (pairs, 1024) arrays.
    starts = [0] + list(DK_VALUES[:-1])
    Q = rng.standard_normal((pairs, top), dtype=np.float32)  # (pairs, 1024)
    K = rng.standard_normal((pairs, top), dtype=np.float32)  # (pairs, 1024)
    blocks = np.add.reduceat((Q * K).astype(np.float64), starts, axis=1)  # (pairs, 11)
    pair_scores = np.cumsum(blocks, axis=1)  # (pairs, 11): column p holds q·k over the first 2**p components
    del Q, K, blocks
    q = rng.standard_normal(top)  # (1024,)
    K_row = rng.standard_normal((keys, top))  # (keys, 1024)
    row_blocks = np.add.reduceat(K_row * q, starts, axis=1)  # (keys, 1024) * (1024,) -> (keys, 11)
    row_scores = np.cumsum(row_blocks, axis=1)  # (keys, 11)

    fig, (ax_hist, ax_row) = live_figure((6.8, 2.9), ncols=2, width_ratios=(1.5, 1.0))
    # Fixed axes and bins per mode, so that the spread is seen to grow with d_k (and only the bars move).
    # Unscaled: 64 bins of 4 score units over +-128 (4 standard deviations at d_k = 1024); scaled: 50 bins of 0.2.
    modes = {False: {"edges": np.linspace(-128, 128, 65), "top": 1.0, "xlabel": "score q·k (unscaled)"},
             True: {"edges": np.linspace(-5, 5, 51), "top": 0.25, "xlabel": "score q·k / √d_k"}}
    hist = ax_hist.stairs(np.zeros(64), modes[False]["edges"], fill=True, color=BAR, alpha=0.75,
                          label="sampled scores")
    (curve,) = ax_hist.plot([], [], color=THEORY, lw=2, label="normal curve, theory's variance")
    ax_hist.set_title(f"{pairs} sampled scores")
    ax_hist.legend(loc="upper left", fontsize=8, frameon=False)
    row = ax_row.stairs(np.zeros(keys), np.arange(keys + 1) - 0.5, fill=True, color=BAR)
    ax_row.set_xlim(-0.5, keys - 0.5)
    ax_row.set_ylim(0, 1.02)
    ax_row.set_xlabel(f"key j (of {keys})")
    ax_row.set_ylabel("weight (row sums to 1)")
    ax_row.set_title("one query's weights")  # longer, it ran past the figure's right edge

    def set_mode(scaled):
        edges = modes[scaled]["edges"]
        ax_hist.set_xlim(edges[0], edges[-1])
        ax_hist.set_ylim(0, modes[scaled]["top"])
        ax_hist.set_xlabel(modes[scaled]["xlabel"])
        ax_hist.set_ylabel(f"share of scores per bin of {edges[1] - edges[0]:g}")

    set_mode(False)

    d_k_control = widgets.SelectionSlider(options=DK_VALUES, value=d_k, continuous_update=False,
                                          description="d_k (components per query and key)", style=WIDE,
                                          layout=widgets.Layout(width="36em"))
    scaled_control = widgets.ToggleButtons(options=[("unscaled: q·k", False), ("scaled: q·k / √d_k", True)],
                                           value=bool(scaled), description="scores shown", style=WIDE,
                                           tooltips=["scores as dot products", "scores divided by √d_k"])
    state = {"scaled": False}

    def update(d_k, scaled):
        p = DK_VALUES.index(d_k)
        scale = 1.0 / math.sqrt(d_k) if scaled else 1.0
        sample = pair_scores[:, p] * scale
        edges = modes[scaled]["edges"]
        counts, _ = np.histogram(sample, bins=edges)  # scores beyond the axis are left out
        hist.set_data(counts / pairs, edges)
        full_redraw = state["scaled"] != scaled
        if full_redraw:
            set_mode(scaled)
            state["scaled"] = scaled
        theory = 1.0 if scaled else float(d_k)
        sd = math.sqrt(theory)
        x = np.linspace(edges[0], edges[-1], 401)
        width = edges[1] - edges[0]
        curve.set_data(x, width * np.exp(-0.5 * (x / sd) ** 2) / (sd * math.sqrt(2 * math.pi)))
        weights = softmax(row_scores[:, p] * scale)
        row.set_data(weights)
        variance = float(sample.var())
        largest = float(weights.max())
        entropy = float(entropy_nats(weights))
        gradient = largest_jacobian_entry(weights)
        mode = "q·k / √d_k" if scaled else "q·k"
        readout = readout_rows([
            ("d_k", f"{d_k} components"),
            (f"measured variance of {mode}", three_figures(variance)),
            ("theory", f"{theory:g}" + (" (whatever d_k)" if scaled else " (= d_k)")),
            ("largest weight in the row", f"{largest:.3f} (of 1)"),
            ("entropy of the row", f"{entropy:.2f} nats (uniform: {math.log(keys):.2f})"),
            ("largest |∂weight/∂score|", f"{significant(gradient)} (at most 0.25)"),
        ])
        description = (
            f"histogram of {pairs} scores {mode} at d_k = {d_k}: measured variance {three_figures(variance)}, theory "
            f"{theory:g}, with the normal curve; one query's softmax over {keys} keys has largest weight "
            f"{largest:.3f} and entropy {entropy:.2f} nats."
        )
        measured = {"variance": variance, "theory": theory, "largest_weight": largest, "entropy": entropy,
                    "largest_jacobian_entry": gradient}
        return readout, description, full_redraw, measured

    return Explorer("dk", {"d_k": d_k_control, "scaled": scaled_control}, "d_k", fig, update,
                    animated=(hist, curve, row))
