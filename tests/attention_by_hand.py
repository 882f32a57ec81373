"""Attention written out by hand with Python loops and math.exp: the reference the core is tested against.

Nothing here calls attn_lib or a numpy matrix product, so a bug in the library cannot hide in its reference.
Every function works on 2-D inputs, Q (n, d_k), K (m, d_k), V (m, d_v); ``batched`` loops over leading axes.
"""

from __future__ import annotations

import itertools
import math

import numpy as np


def scores_by_hand(Q, K, scale):
    """scale * Q K^T with a triple loop: scores[i][j] = scale * sum_k Q[i][k] K[j][k]. Returns (n, m)."""
    n, d_k = len(Q), len(Q[0])
    m = len(K)
    scores = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            total = 0.0
            for k in range(d_k):
                total += float(Q[i][k]) * float(K[j][k])
            scores[i, j] = scale * total
    return scores


def softmax_row_by_hand(row, allowed=None):
    """Softmax of one row: subtract the largest allowed entry, exponentiate with math.exp, divide by the sum.

    Entries where ``allowed`` is False get weight 0 and take no part in the maximum or the sum.
    """
    allowed = [True] * len(row) if allowed is None else list(allowed)
    peak = max(float(x) for x, ok in zip(row, allowed) if ok)
    exps = [math.exp(float(x) - peak) if ok else 0.0 for x, ok in zip(row, allowed)]
    total = sum(exps)
    return [e / total for e in exps]


def attention_by_hand(Q, K, V, mask=None, scale=None):
    """softmax(scale * Q K^T) V for 2-D inputs, every step a loop. Returns (output (n, d_v), weights (n, m))."""
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    n, d_k = Q.shape
    m, d_v = V.shape
    scale = 1.0 / math.sqrt(d_k) if scale is None else scale
    scores = scores_by_hand(Q, K, scale)
    allowed = np.ones((n, m), dtype=bool) if mask is None else np.broadcast_to(mask, (n, m))
    weights = np.zeros((n, m))
    output = np.zeros((n, d_v))
    for i in range(n):
        weights[i] = softmax_row_by_hand(scores[i], allowed[i])
        for c in range(d_v):
            output[i, c] = sum(weights[i, j] * V[j, c] for j in range(m))
    return output, weights


def batched(fn, *arrays, core_ndims):
    """Apply a 2-D function over broadcast leading axes.

    ``arrays`` are broadcast on their leading axes (each keeps its last ``core_ndims[k]`` axes); ``fn`` returns a
    tuple of 2-D arrays, which are stacked back under the batch shape.
    """
    batch = np.broadcast_shapes(*(np.shape(a)[: np.ndim(a) - c] for a, c in zip(arrays, core_ndims)))
    expanded = [np.broadcast_to(a, batch + np.shape(a)[np.ndim(a) - c:]) for a, c in zip(arrays, core_ndims)]
    results = None
    for index in itertools.product(*(range(s) for s in batch)):
        out = fn(*(a[index] for a in expanded))
        if results is None:
            results = [np.zeros(batch + r.shape) for r in out]
        for r, o in zip(results, out):
            r[index] = o
    return tuple(results)
