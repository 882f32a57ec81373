"""The d_k explorer: why the scores are divided by sqrt(d_k).

Move d_k and watch the spread of the scores q·k grow with it, and one softmax row turn nearly one-hot; switch to
scaled scores and the spread stays the same whatever d_k.
"""

from __future__ import annotations

import math

import numpy as np

from .._checks import InputValueError
from ..attention import softmax
from ._explorer import (BAR, THEORY, Explorer, axis, choice, entropy_nats, largest_jacobian_entry, not_while_grading,
                        panels, significant, slider, three_figures)

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

    # Fixed axes and bins per mode, so that the spread is seen to grow with d_k (and only the bars move).
    # Unscaled: 64 bins of 4 score units over +-128 (4 standard deviations at d_k = 1024); scaled: 50 bins of 0.2.
    modes = {False: {"edges": np.linspace(-128, 128, 65), "top": 1.0, "xlabel": "score q·k (unscaled)"},
             True: {"edges": np.linspace(-5, 5, 51), "top": 0.25, "xlabel": "score q·k / √d_k"}}
    size = (680, 290)
    hist_rect, row_rect = panels(size, ncols=2, width_ratios=(1.5, 1.0))

    def hist_axes(scaled):
        edges = modes[scaled]["edges"]
        return {"x": axis(edges[0], edges[-1]), "y": axis(0, modes[scaled]["top"]),
                "xlabel": modes[scaled]["xlabel"], "ylabel": f"share of scores per bin of {edges[1] - edges[0]:g}"}

    figure_panels = [
        {"rect": hist_rect, "title": f"{pairs} sampled scores", **hist_axes(False),
         "legend": [{"label": "sampled scores", "color": BAR, "alpha": 0.75, "kind": "patch"},
                    {"label": "normal curve, theory's variance", "color": THEORY, "kind": "line"}]},
        {"rect": row_rect, "title": "one query's weights", "x": axis(-0.5, keys - 0.5), "y": axis(0, 1.02),
         "xlabel": f"key j (of {keys})", "ylabel": "weight (row sums to 1)"},
    ]
    artists = [
        {"name": "hist", "panel": 0, "type": "stairs", "color": BAR, "alpha": 0.75},
        {"name": "curve", "panel": 0, "type": "line", "color": THEORY, "width": 2},
        {"name": "row", "panel": 1, "type": "stairs", "color": BAR, "edges": np.arange(keys + 1) - 0.5},
    ]

    def frame(d_k, scaled):
        p = DK_VALUES.index(d_k)
        scale = 1.0 / math.sqrt(d_k) if scaled else 1.0
        sample = pair_scores[:, p] * scale
        edges = modes[scaled]["edges"]
        counts, _ = np.histogram(sample, bins=edges)  # scores beyond the axis are left out
        theory = 1.0 if scaled else float(d_k)
        sd = math.sqrt(theory)
        x = np.linspace(edges[0], edges[-1], 201)
        width = edges[1] - edges[0]
        density = width * np.exp(-0.5 * (x / sd) ** 2) / (sd * math.sqrt(2 * math.pi))
        weights = softmax(row_scores[:, p] * scale)
        variance = float(sample.var())
        largest = float(weights.max())
        entropy = float(entropy_nats(weights))
        gradient = largest_jacobian_entry(weights)
        mode = "q·k / √d_k" if scaled else "q·k"
        readout = [
            ("d_k", f"{d_k} components"),
            (f"measured variance of {mode}", three_figures(variance)),
            ("theory", f"{theory:g}" + (" (whatever d_k)" if scaled else " (= d_k)")),
            ("largest weight in the row", f"{largest:.3f} (of 1)"),
            ("entropy of the row", f"{entropy:.2f} nats (uniform: {math.log(keys):.2f})"),
            ("largest |∂weight/∂score|", f"{significant(gradient)} (at most 0.25)"),
        ]
        description = (
            f"histogram of {pairs} scores {mode} at d_k = {d_k}: measured variance {three_figures(variance)}, theory "
            f"{theory:g}, with the normal curve; one query's softmax over {keys} keys has largest weight "
            f"{largest:.3f} and entropy {entropy:.2f} nats."
        )
        measured = {"variance": variance, "theory": theory, "largest_weight": largest, "entropy": entropy,
                    "largest_jacobian_entry": gradient}
        return {"artists": {"hist": {"values": counts / pairs, "edges": edges}, "curve": {"x": x, "y": density},
                            "row": {"values": weights}},
                "panels": {0: hist_axes(scaled)} if scaled else {},
                "readout": readout, "description": description, "measured": measured}

    controls = [
        slider("d_k", "d_k (components per query and key)", DK_VALUES),
        choice("scaled", "scores shown", (False, True), ("unscaled: q·k", "scaled: q·k / √d_k"),
               tooltips=("scores as dot products", "scores divided by √d_k")),
    ]
    return Explorer("dk", controls, "d_k", {"d_k": d_k, "scaled": bool(scaled)}, {"width": size[0], "height": size[1]},
                    figure_panels, artists, frame)
