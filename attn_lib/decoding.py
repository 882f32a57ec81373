"""Decoding one token at a time with a KV cache: the new query meets the cached keys and values.

A decoder writes its output one position at a time. At step t the new token's query q_t attends to the keys and
values of every position up to t; the keys and values of positions 0 .. t-1 do not change when a token is added
(they depend on their own positions only, under the causal mask), so they are kept, the *KV cache*, and only the
new token's k_t and v_t are computed and appended. One step then equals the last row of full causal attention
over positions 0 .. t, with no mask at all: every cached position is earlier than the new one.
"""

from __future__ import annotations

import numpy as np

from ._checks import InputValueError, as_float_array, batch_shape, check_size
from .attention import attention


def _one_row(x, name: str, layout: str) -> np.ndarray:
    arr = as_float_array(x, name, layout=layout)
    if arr.shape[-2] != 1:
        raise InputValueError(f"{name} must hold the new token alone, one row {layout}; got shape {arr.shape} "
                              f"({arr.shape[-2]} rows)")
    return arr


def _cache(x, name: str, width: int, width_name: str, layout: str) -> np.ndarray:
    arr = as_float_array(x, name, layout=layout)
    if arr.shape[-1] != width:
        raise InputValueError(f"{name} has width {arr.shape[-1]} but the new token's {width_name} has {width}: "
                              f"expected {name} {layout}; got shape {arr.shape}")
    return arr


def _append(cache: np.ndarray, row: np.ndarray) -> np.ndarray:
    """cache (..., t, d) with row (..., 1, d) appended as position t, batch axes broadcast: (..., t + 1, d)."""
    batch = batch_shape(cache=cache, row=row)
    cache = np.broadcast_to(cache, (*batch, *cache.shape[-2:]))
    row = np.broadcast_to(row, (*batch, *row.shape[-2:]))
    return np.concatenate([cache, row], axis=-2)


def decode_step(q, k, v, K_cache, V_cache, scale=None):
    """One decoding step: append the new token's key and value to the cache, and attend from its query.

    Parameters
    ----------
    q : array_like, shape (..., 1, d_k)
        The new token's query.
    k : array_like, shape (..., 1, d_k)
    v : array_like, shape (..., 1, d_v)
        The new token's key and value, appended to the cache as the latest position.
    K_cache : array_like, shape (..., t, d_k)
    V_cache : array_like, shape (..., t, d_v)
        Keys and values of the t earlier positions (t may be 0, at the first step).
    scale : float, optional
        Multiplies q K^T; defaults to ``1 / sqrt(d_k)``.

    Returns
    -------
    output : numpy.ndarray, shape (..., 1, d_v)
        The new token's row of causal attention over positions 0 .. t.
    K_cache, V_cache : numpy.ndarray, shapes (..., t + 1, d_k) and (..., t + 1, d_v)
        The caches with the new token appended.

    Raises
    ------
    ValueError, TypeError
        If q, k or v holds more than one row, a cache's width differs from the new token's, the caches hold
        different numbers of positions, or as :func:`attn_lib.attention`.

    Examples
    --------
    >>> from attn_lib import attention, causal_mask
    >>> rng = np.random.default_rng(0)
    >>> Q, K, V = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2))
    >>> K_cache, V_cache = np.zeros((0, 3)), np.zeros((0, 2))
    >>> rows = []
    >>> for t in range(4):
    ...     out, K_cache, V_cache = decode_step(Q[t:t + 1], K[t:t + 1], V[t:t + 1], K_cache, V_cache)
    ...     rows.append(out)
    >>> bool(np.allclose(np.concatenate(rows), attention(Q, K, V, mask=causal_mask(4))))
    True
    """
    q = _one_row(q, "q", "(..., 1, d_k)")
    k = _one_row(k, "k", "(..., 1, d_k)")
    v = _one_row(v, "v", "(..., 1, d_v)")
    K_cache = _cache(K_cache, "K_cache", k.shape[-1], "key k", "(..., t, d_k)")
    V_cache = _cache(V_cache, "V_cache", v.shape[-1], "value v", "(..., t, d_v)")
    if K_cache.shape[-2] != V_cache.shape[-2]:
        raise InputValueError(f"K_cache holds {K_cache.shape[-2]} positions but V_cache {V_cache.shape[-2]}: each "
                              f"cached key needs its value (K_cache {K_cache.shape}, V_cache {V_cache.shape})")
    K_cache, V_cache = _append(K_cache, k), _append(V_cache, v)  # (..., t + 1, d_k), (..., t + 1, d_v)
    # No mask: every cached position is earlier than the new one, which the causal mask lets it see.
    output = attention(q, K_cache, V_cache, scale=scale)  # (..., 1, t + 1) x (..., t + 1, d_v) -> (..., 1, d_v)
    return output, K_cache, V_cache


def kv_cache_numbers(n, d_k=64, d_v=None, heads=8, layers=6):
    """Numbers a KV cache holds after ``n`` positions: a key and a value per position, head and layer.

    ``layers * heads * n * (d_k + d_v)``, which is ``2 * layers * heads * n * d_k`` when d_v = d_k (the default).

    Examples
    --------
    >>> kv_cache_numbers(1000)  # the base model's decoder (6 layers, 8 heads of 64) after 1000 tokens
    6144000
    """
    n = check_size(n, "n")
    d_k = check_size(d_k, "d_k", minimum=1)
    d_v = d_k if d_v is None else check_size(d_v, "d_v", minimum=1)
    heads = check_size(heads, "heads", minimum=1)
    layers = check_size(layers, "layers", minimum=1)
    return layers * heads * n * (d_k + d_v)
