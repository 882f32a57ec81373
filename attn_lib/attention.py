"""The attention equation, softmax(Q K^T / sqrt(d_k)) V, and its two pieces.

Shapes everywhere: Q (..., n, d_k), K (..., m, d_k), V (..., m, d_v); scores and weights (..., n, m);
output (..., n, d_v). Leading batch axes broadcast.
"""

from __future__ import annotations

import numpy as np

from ._checks import as_float_array, batch_shape, check_mask, check_scale


def softmax(x, axis=-1):
    """Numerically stable softmax along ``axis``.

    Subtracting each slice's maximum first changes nothing (adding a constant to a row leaves its softmax
    unchanged) and keeps ``exp`` from overflowing, whatever the size of the scores.

    Parameters
    ----------
    x : array_like
        Real scores of any shape. Entries equal to ``-inf`` (masked) get weight exactly 0.
    axis : int
        The axis along which the weights sum to one; -1 (each row) for attention scores (..., n, m).

    Returns
    -------
    numpy.ndarray
        Same shape as ``x``; float32 if ``x`` is float32, else float64.

    Raises
    ------
    ValueError
        If ``x`` contains NaN or ``+inf``, if ``axis`` is out of range, or if a slice along ``axis`` is entirely
        ``-inf`` (every entry masked: it has no softmax).
    TypeError
        If ``x`` is not real-valued.

    Examples
    --------
    >>> softmax([[0.0, 0.0], [0.0, np.log(3.0)]]).round(2)
    array([[0.5 , 0.5 ],
           [0.25, 0.75]])
    """
    x = np.asarray(x)
    if x.dtype == object or np.issubdtype(x.dtype, np.complexfloating) or not np.issubdtype(x.dtype, np.number):
        raise TypeError(f"x must hold real numbers; got dtype {x.dtype}")
    x = x.astype(np.float32 if x.dtype == np.float32 else np.float64, copy=False)
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"axis must be an integer; got {type(axis).__name__} {axis!r}")
    if not -max(x.ndim, 1) <= axis < max(x.ndim, 1):
        raise ValueError(f"axis {axis} is out of range for x with {x.ndim} dimension(s) (shape {x.shape})")
    if x.ndim == 0:
        raise ValueError("x must have at least 1 dimension; got a scalar")
    if np.isnan(x).any():
        where = tuple(int(i) for i in np.argwhere(np.isnan(x))[0])
        raise ValueError(f"x contains NaN at index {where}: softmax of NaN is undefined")
    if np.isposinf(x).any():
        where = tuple(int(i) for i in np.argwhere(np.isposinf(x))[0])
        raise ValueError(f"x contains +inf at index {where}: only -inf (a masked entry) is allowed")
    if x.size == 0:
        return x.copy()
    peak = np.max(x, axis=axis, keepdims=True)
    if np.isneginf(peak).any():
        where = np.argwhere(np.isneginf(peak))[0]
        where[axis] = -1
        index = ", ".join(":" if i == (axis % x.ndim) else str(int(j)) for i, j in enumerate(where))
        raise ValueError(
            f"every entry of x[{index}] is -inf (masked): a slice along axis {axis} with nothing left "
            "to attend to has no softmax"
        )
    with np.errstate(over="ignore"):  # e.g. -1e308 - 1e308 overflows to -inf, whose exp is the right weight, 0
        out = x - peak
    np.exp(out, out=out)
    out /= np.sum(out, axis=axis, keepdims=True)
    return out


def _check_qkv(Q, K, V=None):
    """Validate Q, K (and V); return them as float arrays of one dtype, with the batch shape."""
    Q = as_float_array(Q, "Q", layout="(..., n, d_k)")
    K = as_float_array(K, "K", layout="(..., m, d_k)")
    if K.shape[-1] != Q.shape[-1]:
        raise ValueError(
            f"K has d_k={K.shape[-1]} but Q has d_k={Q.shape[-1]}: queries and keys must share their width "
            f"(Q {Q.shape} is (..., n, d_k), K {K.shape} is (..., m, d_k))"
        )
    if Q.shape[-1] == 0:
        raise ValueError(
            f"Q and K have d_k=0 (Q {Q.shape}, K {K.shape}): each query and key needs at least one component"
        )
    if K.shape[-2] == 0:
        raise ValueError(f"K has no keys (m=0, shape {K.shape}): each query needs at least one key to attend to")
    arrays = {"Q": Q, "K": K}
    if V is not None:
        V = as_float_array(V, "V", layout="(..., m, d_v)")
        if V.shape[-2] != K.shape[-2]:
            raise ValueError(
                f"V has {V.shape[-2]} rows but K has m={K.shape[-2]}: each key needs exactly one value "
                f"(K {K.shape} is (..., m, d_k), V {V.shape} is (..., m, d_v))"
            )
        arrays["V"] = V
    batch = batch_shape(**arrays)
    dtype = np.result_type(*arrays.values())
    Q, K = Q.astype(dtype, copy=False), K.astype(dtype, copy=False)
    if V is not None:
        V = V.astype(dtype, copy=False)
    return Q, K, V, batch


def _scores(Q, K, scale, mask):
    """Scaled, masked scores (..., n, m) from validated inputs; masked entries are -inf.

    Entries may be infinite or NaN if Q K^T overflows the dtype: callers check (see ``_overflow_error``).
    """
    # Scaling Q (n x d_k) is cheaper than scaling the scores (n x m); a Python float keeps float32 as float32.
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported by the caller, with its row
        scores = (Q * scale) @ np.swapaxes(K, -1, -2)  # (..., n, d_k) x (..., d_k, m) -> (..., n, m)
    if mask is not None:
        if mask.ndim > scores.ndim or np.broadcast_shapes(mask.shape, scores.shape) != scores.shape:
            scores = np.broadcast_to(scores, np.broadcast_shapes(mask.shape, scores.shape)).copy()
        np.copyto(scores, -np.inf, where=~mask)
    return scores


def _overflow_error(bad_rows, dtype):
    """ValueError for rows of scores that Q K^T overflowed; ``bad_rows`` is bool (..., n, 1), True where it did."""
    where = tuple(int(i) for i in np.argwhere(bad_rows)[0][:-1])
    batch, row = where[:-1], where[-1]
    at = f"query row {row}" + (f" of batch index {batch}" if batch else "")
    return ValueError(
        f"the scores of {at} overflowed {np.dtype(dtype)} (largest finite value {np.finfo(dtype).max:.3g}): "
        "scale * Q K^T is too large to represent; rescale Q or K (or pass a smaller scale)"
    )


def _exp_rows_inplace(scores):
    """exp(scores - row maximum) in the scores' own buffer (no n x m copy); returns it and the row sums (..., n, 1).

    Every row must keep at least one unmasked key (``check_mask`` ensures it); a row whose maximum is not
    finite can then only come from an overflow of Q K^T, and raises ValueError instead of giving NaN.
    """
    peak = np.max(scores, axis=-1, keepdims=True)  # (..., n, 1)
    if not np.isfinite(peak).all():
        raise _overflow_error(~np.isfinite(peak), scores.dtype)
    with np.errstate(over="ignore"):  # a huge gap to the peak overflows to -inf, whose exp is 0: right
        scores -= peak  # stable: the largest score of each row becomes 0
    np.exp(scores, out=scores)  # masked entries: exp(-inf) = 0 exactly
    return scores, np.sum(scores, axis=-1, keepdims=True)


def _softmax_rows_inplace(scores):
    """Softmax of each row of validated scores (..., n, m), in the scores' own buffer (no n x m copy)."""
    scores, row_sums = _exp_rows_inplace(scores)
    scores *= 1.0 / row_sums  # (..., n, 1): one division per row, not per entry
    return scores


def _scores_shape(Q, K, batch):
    return (*batch, Q.shape[-2], K.shape[-2])


def scaled_scores(Q, K, scale=None):
    """Scores ``scale * Q K^T``: entry (i, j) is how well query i matches key j.

    Parameters
    ----------
    Q : array_like, shape (..., n, d_k)
    K : array_like, shape (..., m, d_k)
    scale : float, optional
        Multiplies Q K^T; defaults to ``1 / sqrt(d_k)``, the standard deviation of one unscaled score when the
        components of queries and keys have unit variance.

    Returns
    -------
    numpy.ndarray, shape (..., n, m)

    Raises
    ------
    ValueError, TypeError
        If the widths differ, an input has fewer than 2 axes or non-finite entries, ``scale`` is invalid, or
        scale * Q K^T overflows the dtype.

    Examples
    --------
    >>> scaled_scores(np.ones((2, 4)), np.ones((3, 4))).shape
    (2, 3)
    """
    Q, K, _, batch = _check_qkv(Q, K)
    scale = check_scale(scale, Q.shape[-1])
    scores = _scores(Q, K, scale, None)
    if not np.isfinite(scores).all():
        raise _overflow_error(~np.isfinite(scores).all(axis=-1, keepdims=True), scores.dtype)
    return scores


def attention(Q, K, V, mask=None, scale=None, return_weights=False):
    """Scaled dot-product attention, ``softmax(Q K^T / sqrt(d_k)) V`` (Equation 1 of the paper).

    Parameters
    ----------
    Q : array_like, shape (..., n, d_k)
        Queries, one row per position that asks.
    K : array_like, shape (..., m, d_k)
        Keys, one row per position that can be attended to.
    V : array_like, shape (..., m, d_v)
        Values, mixed by the weights.
    mask : array_like of bool, optional
        Broadcastable to (..., n, m); True where the query may attend to the key (as in PyTorch's
        ``scaled_dot_product_attention``). Blocked scores become -inf before the softmax.
    scale : float, optional
        Multiplies Q K^T; defaults to ``1 / sqrt(d_k)``.
    return_weights : bool
        Also return the weights (..., n, m).

    Returns
    -------
    output : numpy.ndarray, shape (..., n, d_v)
    weights : numpy.ndarray, shape (..., n, m)
        Only with ``return_weights=True``. Each row is non-negative and sums to one.

    Raises
    ------
    ValueError
        Mismatched widths or lengths, batch axes that do not broadcast, non-finite input, no keys, a mask of
        the wrong shape, a query row whose keys are all masked, an invalid ``scale``, scores that overflow the
        dtype (the error names the row).
    TypeError
        Non-numeric or complex input, or a mask that is not boolean.

    Examples
    --------
    >>> Q = K = V = np.eye(2)
    >>> causal = np.array([[True, False], [True, True]])  # query 0 may not see key 1
    >>> attention(Q, K, V, mask=causal, scale=np.log(2.0)).round(3)
    array([[1.   , 0.   ],
           [0.333, 0.667]])
    """
    Q, K, V, batch = _check_qkv(Q, K, V)
    scale = check_scale(scale, Q.shape[-1])
    if mask is not None:
        mask = check_mask(mask, _scores_shape(Q, K, batch))
    scores = _scores(Q, K, scale, mask)  # (..., n, m)
    if return_weights:
        weights = _softmax_rows_inplace(scores)  # (..., n, m)
        return weights @ V, weights  # (..., n, m) x (..., m, d_v) -> (..., n, d_v)
    # Without the weights to return, normalise the output (n x d_v) instead of the weights (n x m): the same
    # numbers, one pass over the n x m buffer fewer.
    unnormalised, row_sums = _exp_rows_inplace(scores)  # (..., n, m), (..., n, 1)
    output = unnormalised @ V  # (..., n, m) x (..., m, d_v) -> (..., n, d_v)
    output *= 1.0 / row_sums
    return output
