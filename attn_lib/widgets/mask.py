"""The mask explorer: where the mask goes (before the softmax as -inf, after it, or as a score of 0)."""

from __future__ import annotations

import ipywidgets as widgets
import matplotlib as mpl
import numpy as np

from .._checks import InputValueError
from ..attention import attention, scaled_scores, softmax
from ..masks import causal_mask, padding_mask
from ..plotting import BLOCKED_MARK, MASKED_COLOR, WEIGHTS_CMAP
from ._explorer import BAR, BROKEN, WIDE, Explorer, live_figure, not_while_grading, readout_rows

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

    fig, (ax, ax_sum) = live_figure((5.8, 3.4), ncols=2, width_ratios=(6, 1.3))
    cmap = mpl.colormaps[WEIGHTS_CMAP].with_extremes(bad=MASKED_COLOR)
    # One coloured quadrilateral per cell (not an image, which is resampled to the screen's pixels at every draw).
    image = ax.pcolormesh(np.arange(m + 1) - 0.5, np.arange(n + 1) - 0.5, np.zeros((n, m)), cmap=cmap, vmin=0,
                          vmax=1)
    ax.set_xlim(-0.5, m - 0.5)
    ax.set_ylim(n - 0.5, -0.5)  # query 0 at the top, as in a matrix
    fig.colorbar(image, ax=ax, label="weight", shrink=0.9, pad=0.02)
    ax.set_xticks(range(m), _TOKENS)
    ax.set_yticks(range(n), _TOKENS)
    ax.set_xlabel("key j (attended to)")
    ax.set_ylabel("query i (attending)")
    ax.spines[:].set_visible(False)
    ax.set_title("weights (× blocked, red square: blocked yet weighted)", fontsize=9)
    # Markers, not one text per cell: two collections draw in a fraction of the time of 36 texts.
    crosses = ax.scatter([], [], marker="x", s=40, color=BLOCKED_MARK, linewidths=1.5)
    leaks = ax.scatter([], [], marker="s", s=330, facecolors="none", edgecolors=BROKEN, linewidths=2.5)
    # Each row's sum as a horizontal bar against a dashed line at 1: a short bar is a broken row.
    sums = list(ax_sum.barh(range(n), np.ones(n), height=0.7, color=BAR))
    ax_sum.axvline(1.0, color=BROKEN, lw=1.5, ls="--")
    ax_sum.set_xlim(0, 1.15)
    ax_sum.set_ylim(n - 0.5, -0.5)
    ax_sum.set_xticks([0, 0.5, 1], ["0", "0.5", "1"])
    ax_sum.set_yticks([])
    ax_sum.set_xlabel("sum")
    ax_sum.set_title("row sum", fontsize=9)

    kind_control = widgets.RadioButtons(options=MASK_KINDS, value=mask, description="mask (which keys are blocked)",
                                        style=WIDE)
    place_control = widgets.RadioButtons(options=MASK_PLACEMENTS, value=placement,
                                         description="where the mask goes", style=WIDE,
                                         layout=widgets.Layout(width="34em"))
    labels = {value: label for label, value in MASK_KINDS + MASK_PLACEMENTS}

    state = {"tokens": _TOKENS}

    def update(placement, mask):
        weights, blocked = table[mask, placement]
        tokens = _PADDED_TOKENS if mask == "padding" else _TOKENS
        full_redraw = tokens != state["tokens"]  # new tick labels: the background changes
        if full_redraw:
            ax.set_xticks(range(m), tokens)
            ax.set_yticks(range(n), tokens)
            state["tokens"] = tokens
        # Grey: blocked and weight exactly 0 (the mask worked). A blocked cell with weight > 0 is a leak.
        leak = blocked & (weights > 0)
        image.set_array(np.ma.masked_array(weights, blocked & ~leak))
        crosses.set_offsets(np.argwhere(blocked)[:, ::-1].reshape(-1, 2))  # (row i, column j) -> (x = j, y = i)
        leaks.set_offsets(np.argwhere(leak)[:, ::-1].reshape(-1, 2))
        row_sums = weights.sum(axis=1)
        broken = ~np.isclose(row_sums, 1.0)
        for bar, row_sum in zip(sums, row_sums):
            bar.set_width(row_sum)
        leaked = float(weights[blocked].sum())
        readout = readout_rows([
            ("mask", labels[mask]),
            ("placement", labels[placement]),
            ("row sums", ", ".join(f"{s:.2f}" for s in row_sums)),
            ("rows not summing to 1", f"{int(broken.sum())} of {n}"),
            ("weight on blocked keys (leak)", f"{leaked:.2f} in {int(leak.sum())} cells"),
        ])
        verdict = "right" if placement == "before" or mask == "none" else "wrong"
        description = (
            f"heatmap of {n}×{m} attention weights, {labels[mask]}, mask {labels[placement].split(':')[0]} "
            f"({verdict}): {int(blocked.sum())} blocked cells, {int(leak.sum())} of them with weight > 0; "
            f"{int(broken.sum())} of {n} rows do not sum to 1."
        )
        measured = {"leaked_weight": leaked, "leak_cells": int(leak.sum()), "broken_rows": int(broken.sum()),
                    **{f"row_sum{i}": float(x) for i, x in enumerate(row_sums)}}
        return readout, description, full_redraw, measured

    return Explorer("mask", {"placement": place_control, "mask": kind_control}, "placement", fig, update,
                    animated=[image, crosses, leaks, *sums])
