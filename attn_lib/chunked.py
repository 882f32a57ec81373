"""Attention over chunks of keys with the online softmax: the n x m scores are never held whole."""

from __future__ import annotations

import math

import numpy as np

from ._checks import batch_shape, check_attention_args, check_size
from ._kernels import average_huge_values, exp_shifted_inplace, mask_inplace, overflow_error


def chunked_attention(Q, K, V, mask=None, scale=None, chunk_size=256):
    """The same output as :func:`attention`, computed ``chunk_size`` keys at a time.

    For each query row it keeps a running maximum of the scores seen so far, a running sum of their
    exponentials and a running weighted sum of values. When a new chunk raises the maximum, the old sums are
    multiplied by ``exp(old_max - new_max)``, so at the end ``output = running_values / running_sum`` is exactly
    softmax(scores) V. Memory: (..., n, chunk_size) for one chunk's scores instead of (..., n, m).

    Parameters
    ----------
    Q : array_like, shape (..., n, d_k)
    K : array_like, shape (..., m, d_k)
    V : array_like, shape (..., m, d_v)
    mask : array_like of bool, optional
        Broadcastable to (..., n, m); True where the query may attend to the key.
    scale : float, optional
        Multiplies Q K^T; defaults to ``1 / sqrt(d_k)``.
    chunk_size : int
        Keys per chunk, at least 1.

    Returns
    -------
    numpy.ndarray, shape (..., n, d_v)

    Raises
    ------
    ValueError, TypeError
        As :func:`attention` (scores that overflow the dtype included), and for a ``chunk_size`` below 1.

    Examples
    --------
    >>> from attn_lib import attention
    >>> rng = np.random.default_rng(0)
    >>> Q, K, V = rng.normal(size=(5, 4)), rng.normal(size=(9, 4)), rng.normal(size=(9, 3))
    >>> bool(np.allclose(chunked_attention(Q, K, V, chunk_size=2), attention(Q, K, V)))
    True
    """
    Q, K, V, mask, scale, _ = check_attention_args(Q, K, V, mask, scale)
    if scale is None:
        scale = 1.0 / math.sqrt(Q.shape[-1])  # 1 / sqrt(d_k)
    chunk_size = check_size(chunk_size, "chunk_size", minimum=1)
    with np.errstate(over="ignore", invalid="ignore"):  # overflows are found below, as attention finds them
        output = _online_attention(Q, K, V, mask, scale, chunk_size)  # (..., n, d_v)
    if not np.isfinite(output).all():  # values near the dtype's largest number overflowed a running sum
        output = average_huge_values(lambda values: _online_attention(Q, K, values, mask, scale, chunk_size), V,
                                     total_weight=K.shape[-2])
    return output


def _online_attention(Q, K, V, mask, scale, chunk_size):
    """softmax(scale Q K^T) V, with the scores of ``chunk_size`` keys alive at a time (see chunked_attention)."""
    n, m, d_v, dtype = Q.shape[-2], K.shape[-2], V.shape[-1], Q.dtype
    # The running maximum and sum depend on the scores only; the running output takes V's batch axes too.
    score_batch = batch_shape(Q=Q, K=K) if mask is None else batch_shape(Q=Q, K=K, mask=mask)
    running_max = np.full((*score_batch, n, 1), -np.inf, dtype=dtype)  # largest score seen so far, per query
    running_sum = np.zeros((*score_batch, n, 1), dtype=dtype)  # sum of exp(score - running_max)
    running_out = np.zeros((*batch_shape(scores=running_sum, V=V), n, d_v), dtype=dtype)  # sum of exp(...) * value
    for start in range(0, m, chunk_size):
        keys = slice(start, min(start + chunk_size, m))
        # A mask of shape (..., n or 1, 1) broadcasts over the keys: it has no key axis to slice.
        chunk_mask = mask if mask is None or mask.shape[-1] == 1 else mask[..., keys]
        # K is scaled as attention scales it (a chunk at a time), so that both treat extreme inputs alike.
        scores = Q @ np.swapaxes(K[..., keys, :] * scale, -1, -2)  # (..., n, d_k) x (..., d_k, c) -> (..., n, c)
        scores = mask_inplace(scores, chunk_mask)
        chunk_max = np.max(scores, axis=-1, keepdims=True)  # (..., n, 1)
        if np.isnan(chunk_max).any() or np.isposinf(chunk_max).any():
            raise overflow_error(np.isnan(chunk_max) | np.isposinf(chunk_max), dtype)
        new_max = np.maximum(running_max, chunk_max)
        # A row whose keys so far are all masked still has max -inf; shift it by 0 so that no -inf - -inf appears.
        shift = np.where(np.isneginf(new_max), 0.0, new_max).astype(dtype, copy=False)
        correction = np.exp(running_max - shift)  # (..., n, 1): rescales the old sums to the new maximum
        exp_shifted_inplace(scores, shift)  # (..., n, c): unnormalised weights of this chunk
        running_sum *= correction
        running_sum += np.sum(scores, axis=-1, keepdims=True)
        running_out *= correction
        running_out += scores @ V[..., keys, :]  # (..., n, c) x (..., c, d_v) -> (..., n, d_v)
        running_max = new_max
        del scores  # before the next chunk's scores exist (a mask with extra batch axes briefly makes a copy)
    if not (running_sum > 0).all():  # every score of the row overflowed to -inf (a masked row raised earlier)
        raise overflow_error(~(running_sum > 0), dtype)
    running_out /= running_sum
    return running_out
