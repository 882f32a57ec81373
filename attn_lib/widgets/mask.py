"""The mask explorer: where the mask goes (before the softmax as -inf, after it, or as a score of 0)."""

from __future__ import annotations

import numpy as np

from .._checks import InputValueError
from ..attention import attention, scaled_scores, softmax
from ..masks import causal_mask, padding_mask
from ..plotting import BLOCKED_MARK, MASKED_COLOR, WEIGHTS_CMAP
from ._explorer import BAR, BROKEN, Explorer, axis, choice, colormap, not_while_grading

MASK_KINDS = (("no mask", "none"), ("causal: key j ≤ query i", "causal"), ("padding: last 2 keys are <pad>",
                                                                           "padding"))
MASK_PLACEMENTS = (
    ("before the softmax: blocked scores = −inf (right)", "before"),
    ("after the softmax: blocked weights set to 0 (wrong)", "after"),
    ("before the softmax: blocked scores = 0, not −inf (wrong)", "zero"),
)
_TOKENS = ("I", "like", "green", "tea", "with", "milk")
_PADDED_TOKENS = ("I", "like", "green", "tea", "<pad>", "<pad>")


def _masked_weights(Q, K, V, mask, placement):
    """Attention weights (n, m) with the mask applied as ``placement`` says ("before", "after" or "zero")."""
    if mask is None or placement == "before":
        _, weights = attention(Q, K, V, mask=mask, return_weights=True)  # (n, m)
    elif placement == "after":
        _, weights = attention(Q, K, V, return_weights=True)  # (n, m)
        weights = weights * mask  # zeroes blocked weights after normalising: rows no longer sum to 1
    else:
        scores = scaled_scores(Q, K)  # (n, d_k) x (d_k, m) -> (n, m)
        weights = softmax(np.where(mask, scores, 0.0))  # 0 is a score like any other: blocked keys get weight
    return np.asarray(weights, float).reshape(Q.shape[0], K.shape[0])


def _cells(where):
    """The x (column j) and y (row i) of the True cells of ``where`` (n, m), for markers (none: no marker)."""
    rows, columns = np.nonzero(where)
    return {"x": columns.astype(float).tolist(), "y": rows.astype(float).tolist()}


@not_while_grading
def mask_explorer(mask="causal", placement="before", seed=0):
    """Choose a mask and where it goes; watch the weights and each row's sum.

    Right: blocked scores become -inf before the softmax, get weight exactly 0, and each row still sums to 1.
    Wrong: zeroing weights after the softmax leaves rows that sum to less than 1 (and the blocked keys
    still shaped the other weights through the denominator); a score of 0 instead of -inf lets blocked keys
    take weight (a leak).

    Parameters
    ----------
    mask : {"none", "causal", "padding"}
        Starting mask.
    placement : {"before", "after", "zero"}
        Starting placement: before the softmax as -inf (right), after the softmax (wrong), or as a score of 0.
    seed : int
        Seed of the example queries and keys.

    Returns
    -------
    Explorer
        Controls ``"placement"`` (main) and ``"mask"``.
    """
    kinds = [value for _, value in MASK_KINDS]
    places = [value for _, value in MASK_PLACEMENTS]
    if mask not in kinds:
        raise InputValueError(f"mask must be one of {kinds}; got {mask!r}")
    if placement not in places:
        raise InputValueError(f"placement must be one of {places}; got {placement!r}")
    n = m = len(_TOKENS)
    d_k = 8
    rng = np.random.default_rng(seed)
    Q = 1.5 * rng.standard_normal((n, d_k))  # (n, d_k)
    K = 1.5 * rng.standard_normal((m, d_k))  # (m, d_k)
    V = rng.standard_normal((m, d_k))  # (m, d_v)
    masks = {"none": None, "causal": causal_mask(n, m), "padding": padding_mask([m - 2], m)[0]}  # (n, m), (1, m)
    table = {}  # every (mask, placement): weights (n, m) and the blocked cells (n, m), computed once
    for kind, mask_array in masks.items():
        blocked = np.zeros((n, m), bool) if mask_array is None else ~np.broadcast_to(mask_array, (n, m))
        for place in places:
            table[kind, place] = (_masked_weights(Q, K, V, mask_array, place), blocked)

    # The heatmap (query 0 at the top, as in a matrix), its colour bar, and the row sums beside it.
    size = (580, 340)
    heat_rect = [72, 26, 348, 268]
    cell = min(heat_rect[2] / m, heat_rect[3] / n)  # px: the smaller side of a cell
    colorbar = {"rect": [428, 26 + 0.05 * 268, 14, 0.9 * 268], "cmap": WEIGHTS_CMAP, "vmin": 0, "vmax": 1,
                "ticks": [[t, f"{t:.1f}"] for t in np.linspace(0, 1, 6)], "label": "weight"}

    def token_axes(tokens):
        return {"x": axis(-0.5, m - 0.5, range(m), tokens), "y": axis(n - 0.5, -0.5, range(n), tokens)}

    figure_panels = [
        {"rect": heat_rect, "title": "weights (× blocked, red square: blocked yet weighted)", **token_axes(_TOKENS),
         "xlabel": "key j (attended to)", "ylabel": "query i (attending)", "ylabelOffset": 40,
         "colorbar": colorbar},
        {"rect": [502, 26, 64, 268], "title": "row sum", "x": axis(0, 1.15, [0, 0.5, 1], ["0", "0.5", "1"]),
         "y": axis(n - 0.5, -0.5, [], []), "xlabel": "sum"},
    ]
    artists = [
        # Grey (masked): blocked and weight exactly 0, the mask worked. A blocked cell with weight > 0 is a leak.
        {"name": "weights", "panel": 0, "type": "cells", "cmap": WEIGHTS_CMAP, "vmin": 0, "vmax": 1,
         "masked": MASKED_COLOR, "xedges": np.arange(m + 1) - 0.5, "yedges": np.arange(n + 1) - 0.5},
        {"name": "crosses", "panel": 0, "type": "markers", "shape": "x", "color": BLOCKED_MARK, "size": 4.5,
         "linewidth": 2},
        {"name": "leaks", "panel": 0, "type": "markers", "shape": "square", "color": BROKEN, "fill": "none",
         "size": round(0.3 * cell, 1), "linewidth": 3.5},
        # Each row's sum as a horizontal bar against a dashed line at 1: a short bar is a broken row.
        {"name": "sums", "panel": 1, "type": "bars", "orientation": "horizontal", "color": BAR,
         "positions": np.arange(n), "width": 0.7},
        {"name": "one", "panel": 1, "type": "line", "color": BROKEN, "width": 2, "dash": [6, 3],
         "x": [1.0, 1.0], "y": [n - 0.5, -0.5]},
    ]
    labels = {value: label for label, value in MASK_KINDS + MASK_PLACEMENTS}

    def frame(placement, mask):
        weights, blocked = table[mask, placement]
        leak = blocked & (weights > 0)
        row_sums = weights.sum(axis=1)
        broken = ~np.isclose(row_sums, 1.0)
        leaked = float(weights[blocked].sum())
        readout = [
            ("mask", labels[mask]),
            ("placement", labels[placement]),
            ("row sums", ", ".join(f"{s:.2f}" for s in row_sums)),
            ("rows not summing to 1", f"{int(broken.sum())} of {n}"),
            ("weight on blocked keys (leak)", f"{leaked:.2f} in {int(leak.sum())} cells"),
        ]
        verdict = "right" if placement == "before" or mask == "none" else "wrong"
        description = (
            f"heatmap of {n}×{m} attention weights, {labels[mask]}, mask {labels[placement].split(':')[0]} "
            f"({verdict}): {int(blocked.sum())} blocked cells, {int(leak.sum())} of them with weight > 0; "
            f"{int(broken.sum())} of {n} rows do not sum to 1."
        )
        measured = {"leaked_weight": leaked, "leak_cells": int(leak.sum()), "broken_rows": int(broken.sum()),
                    **{f"row_sum{i}": float(x) for i, x in enumerate(row_sums)}}
        return {"artists": {"weights": {"values": np.where(blocked & ~leak, np.nan, weights)},
                            "crosses": _cells(blocked), "leaks": _cells(leak), "sums": {"values": row_sums}},
                "panels": {0: token_axes(_PADDED_TOKENS)} if mask == "padding" else {},
                "readout": readout, "description": description, "measured": measured}

    controls = [
        choice("placement", "where the mask goes", places, [label for label, _ in MASK_PLACEMENTS]),
        choice("mask", "mask (which keys are blocked)", kinds, [label for label, _ in MASK_KINDS]),
    ]
    return Explorer("mask", controls, "placement", {"placement": placement, "mask": mask},
                    {"width": size[0], "height": size[1]}, figure_panels, artists, frame,
                    colormaps={WEIGHTS_CMAP: colormap(WEIGHTS_CMAP)})
