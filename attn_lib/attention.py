"""The attention equation, softmax(Q K^T / sqrt(d_k)) V, and its two pieces.

Shapes everywhere: Q (..., n, d_k), K (..., m, d_k), V (..., m, d_v); scores and weights (..., n, m);
output (..., n, d_v). Leading batch axes broadcast.
"""

from __future__ import annotations

import math

import numpy as np

from ._checks import check_attention_args, check_qkv, check_scale, check_softmax_input
from ._kernels import average_huge_values, mask_inplace, overflow_error, softmax_rows_inplace


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
    x, axis = check_softmax_input(x, axis)
    if x.size == 0:
        return x.copy()
    weights = x.copy()
    softmax_rows_inplace(np.moveaxis(weights, axis, -1))  # a view whose last axis is ``axis``
    return weights


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
    Q, K, _, _ = check_qkv(Q, K)
    scale = check_scale(scale)
    if scale is None:
        scale = 1.0 / math.sqrt(Q.shape[-1])  # 1 / sqrt(d_k)
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported below, with its row
        scores = Q @ np.swapaxes(K * scale, -1, -2)  # (..., n, d_k) x (..., d_k, m) -> (..., n, m)
    if not np.isfinite(scores).all():
        raise overflow_error(~np.isfinite(scores).all(axis=-1, keepdims=True), scores.dtype)
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
        dtype (the error names the row), or values so near the dtype's largest number that their weighted
        average is beyond it (the error names V).
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
    Q, K, V, mask, scale, _ = check_attention_args(Q, K, V, mask, scale)
    if scale is None:
        scale = 1.0 / math.sqrt(Q.shape[-1])  # 1 / sqrt(d_k)
    # softmax(scale Q K^T) V, one line per step, done in place where numpy allows:
    #     scores  = scale Q K^T           (scaling K, m x d_k, costs less than scaling the n x m scores)
    #     weights = softmax(scores)       with blocked scores set to -inf first: weight exactly 0
    #     output  = weights V
    # (scaled_scores and softmax above are these steps with their checks; the softmax here works inside the
    # scores' buffer.) Overflows are not warned of here: they are found and handled below.
    with np.errstate(over="ignore", invalid="ignore"):
        scores = Q @ np.swapaxes(K * scale, -1, -2)  # (..., n, d_k) x (..., d_k, m) -> (..., n, m)
        weights = softmax_rows_inplace(mask_inplace(scores, mask))  # (..., n, m); blocked keys get weight 0
        output = weights @ V  # (..., n, m) x (..., m, d_v) -> (..., n, d_v)
    if not np.isfinite(output).all():  # values near the dtype's largest number overflowed a partial sum
        output = average_huge_values(lambda values: weights @ values, V)
    return (output, weights) if return_weights else output
