"""Plain-numpy pieces of softmax and attention, written the way a learner writes them (a row whose keys are
all blocked gives NaN, as a learner's would); the mistaken variants are built from them. Also the texts
about overflow and division that several checkers share."""

from __future__ import annotations

import numpy as np


def _softmax(x, axis=-1):
    x = x - np.max(x, axis=axis, keepdims=True)  # NaN for a slice that is all -inf, as a learner's would be
    e = np.exp(x)
    return e / np.sum(e, axis=axis, keepdims=True)


def _blocked(scores, mask, fill=-np.inf):
    return scores if mask is None else np.where(mask, scores, fill)


def _scaled(Q, K, divide_by=None):
    d_k = Q.shape[-1]
    return Q @ K.T / (np.sqrt(d_k) if divide_by is None else divide_by)  # (n, d_k) x (d_k, m) -> (n, m)


def _out(Q, K, V, mask=None, divide_by=None):
    return _softmax(_blocked(_scaled(Q, K, divide_by), mask)) @ V  # (n, m) x (m, d_v) -> (n, d_v)


def _softmax_whole(x):
    e = np.exp(x - np.max(x))
    return e / np.sum(e)


def _softmax_no_keepdims(x, which="sum"):
    shifted = x - np.max(x, axis=-1) if which in ("max", "both") else x - np.max(x, axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=-1) if which in ("sum", "both") else e / np.sum(e, axis=-1, keepdims=True)


_NO_DIVISION = (
    "Your function returns exponentials without dividing each row by its sum: the rows do not sum to one, "
    "so they are not weights yet (each row is the right weights times a constant)."
)

_FIX_NO_DIVISION = "Divide each row by its sum: e / np.sum(e, axis=-1, keepdims=True)."

_OVERFLOW = (
    "Exponentials of scores near 1000 overflow: exp(710) is already above the largest float64 "
    "(about 1.8e308), and inf / inf is NaN."
)

_FIX_OVERFLOW = (
    "Subtract each row's maximum before np.exp: x - np.max(x, axis=-1, keepdims=True). Adding a constant to a "
    "row does not change its softmax, and the largest exponent becomes exp(0) = 1."
)


def _softmax_from(shifted, axis=-1):
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=axis is not None)


def _max_shift(x):
    return x - np.max(x, axis=-1, keepdims=True)
