"""Plain-numpy pieces of softmax and attention, written the way a learner writes them (a row whose keys are all
blocked gives NaN, as a learner's would), for any leading batch axes; the mistaken variants are built from them.
Also the notes several checkers add to a verdict (a finite fill, a mask of numbers); the mistakes' own words
are the catalogue's (``_data/_mistakes.py``)."""

from __future__ import annotations

import numpy as np

from ._catalogue import NUMBER_MASK_TROUBLE


def row_softmax(x, axis=-1):
    x = x - np.max(x, axis=axis, keepdims=True)  # NaN for a slice that is all -inf, as a learner's would be
    e = np.exp(x)
    return e / np.sum(e, axis=axis, keepdims=True)


def softmax_from(shifted, axis=-1):
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=axis is not None)


def max_shift(x, axis=-1):
    return x - np.max(x, axis=axis, keepdims=True)


def softmax_whole(x):
    """One softmax over each whole (n, m) matrix (or the whole array): a sum with no axis."""
    e = np.exp(x - np.max(x))
    return e / np.sum(e)


def softmax_no_keepdims(x, which="sum"):
    """A row statistic without keepdims: (..., n, m) combined with (..., n), aligned with the wrong axis."""
    shifted = x - np.max(x, axis=-1) if which in ("max", "both") else max_shift(x)
    e = np.exp(shifted)
    return e / np.sum(e, axis=-1) if which in ("sum", "both") else e / np.sum(e, axis=-1, keepdims=True)


def global_max_softmax(x):
    """Softmax with one maximum shared by every row: right in exact arithmetic, 0/0 for rows far below it."""
    return softmax_from(x - np.max(x))


def uniform_weights(x):
    allowed = np.isfinite(x)
    return allowed / allowed.sum(axis=-1, keepdims=True)


def per_matrix_softmax(x):
    """One softmax over each whole (n, m) matrix of a batch."""
    e = np.exp(x - np.max(x, axis=(-2, -1), keepdims=True))
    return e / np.sum(e, axis=(-2, -1), keepdims=True)


def transpose_last(x):
    return np.swapaxes(x, -1, -2)


def masked_scores(scores, mask, fill=-np.inf):
    return scores if mask is None else np.where(mask, scores, fill)


def scaled_qk(Q, K, divide_by=None):
    d_k = Q.shape[-1]
    return Q @ transpose_last(K) / (np.sqrt(d_k) if divide_by is None else divide_by)  # (..., n, d_k) x (..., d_k, m)


def attention_out(Q, K, V, mask=None, divide_by=None):
    return row_softmax(masked_scores(scaled_qk(Q, K, divide_by), mask)) @ V  # (..., n, m) x (..., m, d_v) -> (..., n, d_v)


def bool_index_blocked(scores, mask, fill=-np.inf):
    """scores[~mask] = fill: fails (IndexError) when the mask only broadcasts to the scores' shape."""
    scores = np.array(scores, dtype=float)
    if mask is not None:
        scores[~np.asarray(mask)] = fill
    return scores


def keys_allowed(mask, shape):
    """(..., m): the keys that no query may see blocked, for masks that block whole keys (padding)."""
    return np.broadcast_to(mask, shape).all(axis=-2)


# Published code sometimes splits the scale between Q and K, d_k ** -0.25 on each (their product is 1/sqrt(d_k)).
# Kept on one side only, or the whole factor on Q and a share on K too, the scores end up divided by d_k ** 0.25
# or d_k ** 0.75: the powers a learner's scores are then divided by.
SPLIT_SCALE_POWERS = (0.25, 0.75)


SMALL_FILLS = (-10.0, -20.0, -30.0, -50.0, -100.0, -1e3, -1e4)


FINITE_FILL_NOTE = (
    "\nOne thing to know: your function fills the blocked scores with a finite number (such as -1e9), not -inf. "
    "That gives the same weights while a row keeps one allowed key, but a row whose keys are all blocked then "
    "does not come back as NaN or an error: its weights still sum to one, so they go to keys it must not see "
    "(notebook 06 works out how much each gets), and {what}"
)


def number_mask_trouble(dtype) -> str:
    """What goes wrong with a mask of numbers of ``dtype`` where a boolean one is expected (not-boolean's
    ``trouble``; the words are the catalogue's)."""
    return NUMBER_MASK_TROUBLE["float" if np.dtype(dtype).kind == "f" else "integer"]
