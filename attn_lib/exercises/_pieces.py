"""Plain-numpy pieces of softmax and attention, written the way a learner writes them (a row whose keys are all
blocked gives NaN, as a learner's would), for any leading batch axes; the mistaken variants are built from them.
Also the texts about overflow and division that several checkers share."""

from __future__ import annotations

import numpy as np


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
SPLIT_SCALE = (
    "Your scores are divided by d_k ** 0.25 or d_k ** 0.75, not by d_k ** 0.5: the factor 1/sqrt(d_k) was split "
    "between Q and K (d_k ** -0.25 on each, as some published code does), and the shares do not multiply back "
    "to 1/sqrt(d_k): only one side got its share, or Q got the whole factor and K a share too. Scaling Q alone "
    "by 1/sqrt(d_k) is fine; what counts is that the scores Q K^T end up divided by sqrt(d_k), exactly once."
)
FIX_SPLIT_SCALE = ("Scale in one place: divide Q K^T by np.sqrt(d_k), or Q alone by np.sqrt(d_k), or both Q and "
                   "K by d_k ** 0.25.")
# Said of a division by d_k: the same numbers come from scaling Q (or the scores) by 1/sqrt(d_k) twice.
SCALED_TWICE = (" The same numbers come from scaling twice: Q multiplied by 1/sqrt(d_k) (a scale applied to q, "
                "as in much published code) and then the scores divided by sqrt(d_k) again.")

# A 0/1 mask added to the scores (the boolean mask itself, or its inverse, 1 where blocked): what it does.
MASK_ADDED = (
    "Your function adds the boolean mask to the scores (True counts as 1), or its inverse (1 where blocked): a "
    "0/1 mask added moves every score by at most 1, so blocked keys keep nearly the weight they had. An "
    "additive mask holds 0 where allowed and -inf where blocked, so that exp(-inf) = 0; the course's masks are "
    "boolean, True = may attend."
)

# scores * mask + ~mask * -inf: 0 x -inf is NaN on every allowed key.
INF_TIMES_ZERO = (
    "Your function builds the masked scores with a product, scores * mask + (~mask) * -inf (or the like): on an "
    "allowed key that is score + 0 x (-inf), and 0 x inf is NaN in floating point, so every row with an allowed "
    "key turns to NaN. -inf can only be put in place, never multiplied in."
)
FIX_INF_TIMES_ZERO = "Use np.where(mask, scores, -np.inf): it picks the score or -inf, and multiplies nothing."

# d_k ** 1/2 without brackets is (d_k ** 1) / 2: written inline, the scores are divided by 2 d_k; computed first as
# a scale (scale = d_k ** 1/2), they are divided by d_k / 2.
POWER_PRECEDENCE = (
    "Your scores are divided by 2 d_k (or by d_k / 2): `d_k ** 1/2` reads as (d_k ** 1) / 2, because ** binds "
    "tighter than /. Inline, `scores / d_k ** 1/2` divides by d_k and then by 2; computed first, `scale = d_k ** "
    "1/2` is d_k / 2. The square root is d_k ** 0.5, or d_k ** (1/2) with the exponent in brackets."
)
FIX_POWER_PRECEDENCE = "Write np.sqrt(d_k), or d_k ** 0.5."

OVERFLOW = (
    "Exponentials of scores near 1000 overflow: exp(710) is already above the largest float64 "
    "(about 1.8e308), and inf / inf is NaN."
)

FIX_OVERFLOW = (
    "Subtract each row's maximum before np.exp: x - np.max(x, axis=-1, keepdims=True). Adding a constant to a "
    "row does not change its softmax, and the largest exponent becomes exp(0) = 1."
)

NO_DIVISION = (
    "Your function returns exponentials without dividing each row by its sum: the rows do not sum to one, "
    "so they are not weights yet (each row is the right weights times a constant)."
)

FIX_NO_DIVISION = "Divide each row by its sum: e / np.sum(e, axis=-1, keepdims=True)."

SMALL_FILLS = (-10.0, -20.0, -30.0, -50.0, -100.0, -1e3, -1e4)

SMALL_FILL = (
    "Your function fills blocked scores with a small finite number (like -10) instead of -inf. exp(-10) is "
    "about 4.5e-5, not 0, so blocked keys keep some weight; and in a row whose allowed scores are below the "
    "fill, the blocked keys take almost all of it. -inf gives exp(-inf) = 0 exactly (a huge fill such as -1e9 "
    "works too, except on a row whose keys are all blocked)."
)

AXIS_1 = (
    "Your function uses axis=1, which is the last axis only for a 2-D array: on a batch (b, n, m) axis 1 runs "
    "over the queries, so the weights sum to one down the columns of each matrix. Count axes from the end: "
    "axis=-1 is each row of keys, whatever the number of leading axes."
)

UNIFORM = (
    "Your weights are uniform: every allowed key gets the same weight 1/m, whatever its score, so each output "
    "is a plain average. The weights must follow the scores: exp(score) / sum of exp(scores) along the row."
)

GLOBAL_MAX = (
    "Your function subtracts one maximum shared by all queries (the largest score of the whole array) instead "
    "of each row's own maximum. That is exact in theory, but a row whose scores are all far below the overall "
    "maximum then has every exponential underflow to 0, and 0/0 gives NaN (here: a row near 0 next to a row "
    "near 1000)."
)

FIX_GLOBAL_MAX = "Subtract each row's own maximum: np.max(x, axis=-1, keepdims=True)."

MAX_BEFORE_MASK = (
    "Your function puts -inf in the blocked scores but takes each row's maximum from the scores before the mask. "
    "The maximum must come from the masked scores: here a blocked key scores 1000 more than the allowed ones, "
    "so it becomes the maximum, every allowed exponential underflows to 0, and the row is 0/0 (NaN)."
)

FIX_MAX_BEFORE_MASK = "Take the maximum of the masked scores, after -inf is in place."

FINITE_FILL_NOTE = (
    "\nOne thing to know: your function fills the blocked scores with a finite number (such as -1e9), not -inf. "
    "That gives the same weights while a row keeps one allowed key, but a row whose keys are all blocked then "
    "does not come back as NaN or an error: its weights still sum to one, so they go to keys it must not see "
    "(notebook 06 works out how much each gets), and {what}"
)

BOOL_INDEX = (
    "Your function sets blocked scores with boolean indexing (scores[~mask] = -np.inf). That needs the mask to "
    "have exactly the scores' shape, so it fails on a mask that only broadcasts to it, such as a padding mask "
    "of shape (..., 1, m) or a causal mask (n, m) shared by a batch; the problem allows those."
)

FIX_BOOL_INDEX = "Use np.where instead of boolean indexing: it broadcasts the mask to the scores' shape."


def number_mask_trouble(dtype) -> str:
    """What goes wrong with a mask of numbers of ``dtype`` where a boolean one is expected."""
    added = ("; and 0s and 1s added to the scores, as if they were an additive mask, move each score by at most 1, "
             "so blocked keys keep their weight (an additive mask holds 0 and -inf)")
    if np.dtype(dtype).kind == "f":
        return ("~mask on floats raises TypeError (invert is defined for integers and booleans only), and a float "
                "array used as an index raises IndexError" + added)
    return "~ of an integer 1 is -2, and an array of 0s and 1s used as an index picks rows 0 and 1 instead of " \
           "selecting entries" + added
