"""The backward pass of attention, written by hand: why the weights (n x m) must be kept."""

from __future__ import annotations

import math

import numpy as np

from ._checks import InputValueError, as_float_array, check_attention_args
from ._kernels import mask_inplace, softmax_rows_inplace


def _sum_to_shape(grad, shape):
    """Sum a gradient over the batch axes that broadcasting added or stretched, back to ``shape``."""
    extra = grad.ndim - len(shape)
    if extra:
        grad = grad.sum(axis=tuple(range(extra)))
    stretched = tuple(i for i, size in enumerate(shape) if size == 1 and grad.shape[i] != 1)
    if stretched:
        grad = grad.sum(axis=stretched, keepdims=True)
    return grad


def attention_backward(Q, K, V, grad_output, mask=None, scale=None, *, weights=None):
    """Gradients of a loss with respect to Q, K and V, given its gradient with respect to the output.

    With S = scale * Q K^T (masked entries -inf), P = softmax(S) row by row and O = P V:

    - dV = P^T dO
    - dP = dO V^T
    - dS = P * (dP - rowsum(dP * P))   (the softmax's Jacobian, applied row by row)
    - dQ = scale * dS K,  dK = scale * dS^T Q

    Every line needs P, the n x m weights of the forward pass: that is why training keeps them. Pass them as
    ``weights`` and they are used as given; without it they are recomputed from Q, K, mask and scale.

    Parameters
    ----------
    Q : array_like, shape (..., n, d_k)
    K : array_like, shape (..., m, d_k)
    V : array_like, shape (..., m, d_v)
    grad_output : array_like, shape (..., n, d_v)
        Gradient of the loss with respect to ``attention(Q, K, V, mask, scale)``, of the output's shape.
    mask : array_like of bool, optional
        As in :func:`attention`.
    scale : float, optional
        As in :func:`attention`.
    weights : array_like, shape (..., n, m), optional
        P from the forward pass, ``attention(Q, K, V, mask, scale, return_weights=True)[1]``: the backward pass
        then does not compute the scores and the softmax again. Each row must be non-negative and sum to one.

    Returns
    -------
    dQ, dK, dV : numpy.ndarray
        The shapes of Q, K and V.

    Raises
    ------
    ValueError, TypeError
        As :func:`attention`, and for a ``grad_output`` whose shape is not the output's.

    Examples
    --------
    >>> dQ, dK, dV = attention_backward(np.ones((2, 3)), np.ones((4, 3)), np.ones((4, 5)), np.ones((2, 5)))
    >>> dQ.shape, dK.shape, dV.shape
    ((2, 3), (4, 3), (4, 5))
    """
    Q, K, V, mask, scale, batch = check_attention_args(Q, K, V, mask, scale)
    if scale is None:
        scale = 1.0 / math.sqrt(Q.shape[-1])  # 1 / sqrt(d_k)
    if weights is not None:
        weights = _check_weights(weights, (*batch, Q.shape[-2], K.shape[-2]), Q.dtype)
        batch = weights.shape[:-2]
    out_shape = (*batch, Q.shape[-2], V.shape[-1])
    grad_output = as_float_array(grad_output, "grad_output", layout="(..., n, d_v)")
    if grad_output.shape != out_shape:
        raise InputValueError(
            f"grad_output must have the output's shape {out_shape} (..., n, d_v); got {grad_output.shape}"
        )
    _check_fits(grad_output, Q.dtype)
    grad_output = grad_output.astype(Q.dtype, copy=False)
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported below, naming the gradient
        if weights is None:  # P, as the forward pass computed it
            scores = Q @ np.swapaxes(K * scale, -1, -2)  # (..., n, d_k) x (..., d_k, m) -> (..., n, m)
            weights = softmax_rows_inplace(mask_inplace(scores, mask))  # P (..., n, m)
        d_scores, dV = backward_from_weights(weights, V, grad_output)
        dQ = scale * (d_scores @ K)  # (..., n, m) x (..., m, d_k) -> (..., n, d_k)
        dK = scale * (np.swapaxes(d_scores, -1, -2) @ Q)  # (..., m, n) x (..., n, d_k) -> (..., m, d_k)
    gradients = {"dQ": dQ, "dK": dK, "dV": dV}
    for name, gradient in gradients.items():
        if not np.isfinite(gradient).all():
            raise InputValueError(
                f"{name} overflowed {Q.dtype} (largest finite value {np.finfo(Q.dtype).max:.3g}): grad_output "
                "times V, or the gradient itself, is too large to represent; rescale grad_output or V"
            )
    return _sum_to_shape(dQ, Q.shape), _sum_to_shape(dK, K.shape), _sum_to_shape(dV, V.shape)


def backward_from_weights(weights, V, grad_output):
    """The backward pass through ``weights @ V`` and the softmax, from the weights P kept by the forward pass.

    Returns ``(d_scores, dV)``: dV = P^T G, and dS = P * (dP - rowsum(dP * P)) with dP = G V^T, the softmax's
    Jacobian applied row by row (its row sum comes from the shared denominator). ``weights`` (..., n, m), ``V``
    (..., m, d_v) and ``grad_output`` (..., n, d_v) are used as they are: :func:`attention_backward` checks them,
    and attn_lib.training calls this on the arrays of its own forward pass.

    Examples
    --------
    >>> d_scores, dV = backward_from_weights(np.full((2, 4), 0.25), np.ones((4, 3)), np.ones((2, 3)))
    >>> d_scores.shape, dV.shape, float(abs(d_scores).max())  # equal value rows: no score moves the output
    ((2, 4), (4, 3), 0.0)
    """
    dV = np.swapaxes(weights, -1, -2) @ grad_output  # (..., m, n) x (..., n, d_v) -> (..., m, d_v)
    d_weights = grad_output @ np.swapaxes(V, -1, -2)  # (..., n, d_v) x (..., d_v, m) -> (..., n, m)
    d_scores = weights * (d_weights - np.sum(d_weights * weights, axis=-1, keepdims=True))  # (..., n, m)
    return d_scores, dV


def _check_weights(weights, scores_shape, dtype):
    """``weights`` as a float array of ``dtype`` whose shape broadcasts with the scores' (..., n, m), each row
    non-negative and summing to one."""
    weights = as_float_array(weights, "weights", layout="(..., n, m)")
    if weights.shape[-2:] != tuple(scores_shape[-2:]):
        raise InputValueError(f"weights must have the scores' last two axes (n, m) = {tuple(scores_shape[-2:])}; "
                              f"got shape {weights.shape}")
    try:
        np.broadcast_shapes(weights.shape, scores_shape)
    except ValueError:
        raise InputValueError(f"weights of shape {weights.shape} do not broadcast with the scores' shape "
                              f"{tuple(scores_shape)}") from None
    sums, atol = weights.sum(axis=-1), 1e-3 if dtype == np.float32 else 1e-6
    off = ~np.isclose(sums, 1.0, rtol=0, atol=atol) | (weights < 0).any(axis=-1)  # (..., n)
    if off.any():
        row = tuple(int(i) for i in np.argwhere(off)[0])
        raise InputValueError(f"weights must be softmax rows (non-negative, each summing to one); row {row} sums "
                              f"to {float(sums[row]):.6g}")
    return weights.astype(dtype, copy=False)


def _check_fits(grad_output, dtype):
    """Raise ValueError if ``grad_output`` has entries beyond the largest number of the working ``dtype``."""
    largest = np.finfo(dtype).max
    too_big = np.abs(grad_output) > largest
    if too_big.any():
        where = tuple(int(i) for i in np.argwhere(too_big)[0])
        raise InputValueError(
            f"grad_output holds {grad_output[where]:.3g} at index {where}, beyond the largest {np.dtype(dtype)} "
            f"({largest:.3g}), the dtype of Q, K and V it is computed in: it would overflow to inf; "
            "rescale grad_output or pass Q, K and V in float64"
        )
