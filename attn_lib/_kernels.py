"""The in-place steps that make attention fast, shared by attention, chunked_attention and attention_backward.

The scores are the one large array attention needs (n x m per head). These steps turn them into weights inside
that same buffer, so that no second n x m array is ever made, and they turn the rare overflow into either an
error that names its row or the right answer computed at a smaller scale.
"""

from __future__ import annotations

import math

import numpy as np

from ._checks import InputValueError


def mask_inplace(scores, mask):
    """Set the blocked scores to -inf, so that the softmax gives them weight exactly 0.

    ``mask`` is boolean, broadcastable to the scores' shape, True where the query may attend. Returns the scores:
    the same buffer, or a new one when the mask brings batch axes that the scores lack.
    """
    if mask is None:
        return scores
    shape = np.broadcast_shapes(mask.shape, scores.shape)
    if shape != scores.shape:
        scores = np.broadcast_to(scores, shape).copy()
    np.copyto(scores, -np.inf, where=~mask)
    return scores


def overflow_error(bad_rows, dtype):
    """ValueError for rows of scores that overflowed; ``bad_rows`` is bool (..., n, 1), True where one did."""
    where = tuple(int(i) for i in np.argwhere(bad_rows)[0][:-1])
    batch, row = where[:-1], where[-1]
    at = f"query row {row}" + (f" of batch index {batch}" if batch else "")
    return ValueError(
        f"the scores of {at} overflowed {np.dtype(dtype)} (largest finite value {np.finfo(dtype).max:.3g}): "
        "Q, K or scale is too large for scale * Q K^T to be computed in it; rescale Q or K (or pass a smaller "
        "scale)"
    )


def exp_shifted_inplace(scores, shift):
    """exp(scores - shift) in the scores' own buffer; blocked scores (-inf) become exactly 0."""
    with np.errstate(over="ignore"):  # a gap to the shift beyond the dtype becomes -inf, whose exp is 0: right
        scores -= shift
    np.exp(scores, out=scores)
    return scores


def softmax_rows_inplace(scores):
    """The softmax of each row of scores (..., n, m), computed in their own buffer.

    Subtracting the row's largest score changes no weight and keeps exp from overflowing. Every row must keep at
    least one key (the mask check sees to it), so a row whose largest score is not finite can only come from
    an overflow of the product, and raises ValueError naming the row instead of giving NaN.

    The rows are taken a block at a time, a quarter of a megabyte each, so that the five passes over a block
    (largest score, subtract, exp, sum, divide) find it in the processor's cache instead of reading memory five
    times.
    """
    if not (scores.flags.c_contiguous and scores.size):  # a strided view (softmax along another axis): at once
        _softmax_rows(scores, scores.shape, 0)
        return scores
    rows = scores.reshape(-1, scores.shape[-1])  # (every row of every batch entry, m): a view
    block = max(1, _BLOCK_ENTRIES // scores.shape[-1])
    for start in range(0, rows.shape[0], block):
        _softmax_rows(rows[start:start + block], scores.shape, start)
    return scores


_BLOCK_ENTRIES = 1 << 16  # entries of the scores per block: 256 kB in float32, well inside a core's cache


def _softmax_rows(rows, shape, first_row):
    """Softmax of ``rows`` in place; they start at row ``first_row`` of scores of ``shape`` (to name a bad row)."""
    peak = np.max(rows, axis=-1, keepdims=True)
    if not np.isfinite(peak).all():
        bad = np.zeros(math.prod(shape[:-1]), bool)
        bad[first_row + int(np.flatnonzero(~np.isfinite(peak.ravel()))[0])] = True
        raise overflow_error(bad.reshape(*shape[:-1], 1), rows.dtype)
    exp_shifted_inplace(rows, peak)
    rows *= 1.0 / np.sum(rows, axis=-1, keepdims=True)  # one division per row, not per entry


def average_huge_values(weighted_sum, V, total_weight=1):
    """``weighted_sum(V)`` for values so near the dtype's largest number that a partial sum overflowed.

    ``weighted_sum`` sums the rows of its argument with non-negative weights whose total is at most
    ``total_weight``. V is divided by a power of two large enough that no partial sum can overflow, and the
    result multiplied back: powers of two only move the exponent, so both steps are exact except for entries so
    small that dividing them loses bits (they are far below the huge values that made this necessary). If the
    answer itself is beyond the dtype's range, a ValueError names V; never an inf or a NaN.
    """
    exponent = int(np.ceil(np.log2(max(total_weight, 1)))) + 2
    with np.errstate(over="ignore", invalid="ignore"):
        output = weighted_sum(V * 2.0**-exponent)
        output *= 2.0**exponent
    if not np.isfinite(output).all():
        largest = float(np.max(np.abs(V)))
        raise InputValueError(
            f"V holds values up to {largest:.3g} in magnitude, so near the largest {V.dtype} "
            f"({np.finfo(V.dtype).max:.3g}) that their weighted average rounds beyond it; rescale V"
        )
    return output
