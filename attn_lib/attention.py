"""The attention equation, softmax(Q K^T / sqrt(d_k)) V, and its two pieces.

Shapes everywhere: Q (..., n, d_k), K (..., m, d_k), V (..., m, d_v); scores and weights (..., n, m);
output (..., n, d_v). Leading batch axes broadcast.
"""

from __future__ import annotations

import numpy as np

from ._checks import InputTypeError, InputValueError, as_array, check_mask, check_qkv, check_scale
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
    x = as_array(x, "x")
    if x.dtype == object or np.issubdtype(x.dtype, np.complexfloating) or not np.issubdtype(x.dtype, np.number):
        raise InputTypeError(f"x must hold real numbers; got dtype {x.dtype}")
    x = x.astype(np.float32 if x.dtype == np.float32 else np.float64, copy=False)
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise InputTypeError(f"axis must be an integer; got {type(axis).__name__} {axis!r}")
    if not -max(x.ndim, 1) <= axis < max(x.ndim, 1):
        raise InputValueError(f"axis {axis} is out of range for x with {x.ndim} dimension(s) (shape {x.shape})")
    if x.ndim == 0:
        raise InputValueError("x must have at least 1 dimension; got a scalar")
    if np.isnan(x).any():
        where = tuple(int(i) for i in np.argwhere(np.isnan(x))[0])
        raise InputValueError(f"x contains NaN at index {where}: softmax of NaN is undefined")
    if np.isposinf(x).any():
        where = tuple(int(i) for i in np.argwhere(np.isposinf(x))[0])
        raise InputValueError(f"x contains +inf at index {where}: only -inf (a masked entry) is allowed")
    if x.size == 0:
        return x.copy()
    peak = np.max(x, axis=axis, keepdims=True)
    if np.isneginf(peak).any():
        where = np.argwhere(np.isneginf(peak))[0]
        where[axis] = -1
        index = ", ".join(":" if i == (axis % x.ndim) else str(int(j)) for i, j in enumerate(where))
        raise InputValueError(
            f"every entry of x[{index}] is -inf (masked): a slice along axis {axis} with nothing left "
            "to attend to has no softmax"
        )
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
    scale = check_scale(scale, Q.shape[-1])
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
    Q, K, V, batch = check_qkv(Q, K, V)
    scale = check_scale(scale, Q.shape[-1])
    if mask is not None:
        mask = check_mask(mask, (*batch, Q.shape[-2], K.shape[-2]))
    # The equation, one line per step. Scaling K (m x d_k) costs less than scaling the scores (n x m); the
    # softmax works inside the scores' buffer. Overflows are not warned of here: they are found and handled.
    with np.errstate(over="ignore", invalid="ignore"):
        scores = Q @ np.swapaxes(K * scale, -1, -2)  # (..., n, d_k) x (..., d_k, m) -> (..., n, m)
        weights = softmax_rows_inplace(mask_inplace(scores, mask))  # (..., n, m); blocked keys get weight 0
        output = weights @ V  # (..., n, m) x (..., m, d_v) -> (..., n, d_v)
    if not np.isfinite(output).all():  # values near the dtype's largest number overflowed a partial sum
        output = average_huge_values(lambda values: weights @ values, V)
    return (output, weights) if return_weights else output
