"""Multi-head attention as in the paper's section 3.2.2: h heads with their own projections, then W^O."""

from __future__ import annotations

import numpy as np

from ._checks import InputValueError, as_float_array, batch_shape, check_mask, check_rng, check_size
from .attention import attention


def draw_parameters(rng, d_model, heads, d_k, d_v, d_out):
    """Random multi-head parameters with variance 1 / fan_in: W_q, W_k (heads, d_model, d_k), W_v (heads,
    d_model, d_v), W_o (heads * d_v, d_out), drawn from ``rng`` in that order.

    With unit-variance inputs, the components of q and k then have variance about 1 whatever d_k is. The one
    way the course draws them: :class:`MultiHeadAttention` (d_out = d_model) and attn_lib.training (d_out = its
    output classes).
    """
    return {
        "W_q": rng.normal(0.0, d_model**-0.5, size=(heads, d_model, d_k)),
        "W_k": rng.normal(0.0, d_model**-0.5, size=(heads, d_model, d_k)),
        "W_v": rng.normal(0.0, d_model**-0.5, size=(heads, d_model, d_v)),
        "W_o": rng.normal(0.0, (heads * d_v) ** -0.5, size=(heads * d_v, d_out)),
    }


class MultiHeadAttention:
    """Multi-head attention with the paper's projections and no biases.

    ``head_i = attention(x_q W_q[i], x_kv W_k[i], x_kv W_v[i])``; the heads' outputs are concatenated to width
    ``heads * d_v`` and projected back to ``d_model`` by ``W_o``.

    Parameters
    ----------
    d_model : int
        Width of the model's vectors (512 in the base model).
    heads : int
        Number of heads h (8 in the base model).
    d_k, d_v : int, optional
        Width of each head's queries/keys and values; default ``d_model // heads`` (64 in the base model),
        which needs ``heads`` to divide ``d_model``.
    rng : None, int or numpy.random.Generator, optional
        A non-negative integer seed, or a generator, for the weights (None: fresh entropy each time). They are
        drawn from a normal distribution with standard deviation ``1 / sqrt(fan_in)``, so that projections keep
        unit-variance inputs near unit variance.

    Attributes
    ----------
    W_q, W_k : numpy.ndarray, shape (heads, d_model, d_k)
    W_v : numpy.ndarray, shape (heads, d_model, d_v)
    W_o : numpy.ndarray, shape (heads * d_v, d_model)

    Examples
    --------
    >>> mha = MultiHeadAttention(d_model=16, heads=4, rng=0)
    >>> mha(np.ones((3, 16))).shape
    (3, 16)
    >>> mha(np.ones((3, 16)), np.ones((5, 16))).shape  # cross-attention: n = 3 queries, m = 5 keys
    (3, 16)
    """

    def __init__(self, d_model=512, heads=8, d_k=None, d_v=None, rng=None):
        self.d_model = check_size(d_model, "d_model", minimum=1)
        self.heads = check_size(heads, "heads", minimum=1)
        if (d_k is None or d_v is None) and self.d_model % self.heads:
            raise InputValueError(
                f"heads={self.heads} does not divide d_model={self.d_model}: the default per-head width "
                "d_model // heads would drop columns (pass d_k and d_v, or choose heads dividing d_model)"
            )
        self.d_k = self.d_model // self.heads if d_k is None else check_size(d_k, "d_k", minimum=1)
        self.d_v = self.d_model // self.heads if d_v is None else check_size(d_v, "d_v", minimum=1)
        params = draw_parameters(check_rng(rng), self.d_model, self.heads, self.d_k, self.d_v, self.d_model)
        self.W_q, self.W_k, self.W_v, self.W_o = (params[name] for name in ("W_q", "W_k", "W_v", "W_o"))

    def __repr__(self):
        return (
            f"MultiHeadAttention(d_model={self.d_model}, heads={self.heads}, d_k={self.d_k}, d_v={self.d_v})"
        )

    def _inputs(self, x, name):
        x = as_float_array(x, name, layout="(..., n, d_model)")
        if x.shape[-1] != self.d_model:
            raise InputValueError(
                f"{name} has width {x.shape[-1]} but this MultiHeadAttention has d_model={self.d_model}; "
                f"expected shape (..., n, {self.d_model}), got {x.shape}"
            )
        return x

    def __call__(self, x_q, x_kv=None, mask=None, return_weights=False):
        """Attend from ``x_q`` (..., n, d_model) to ``x_kv`` (..., m, d_model); ``x_kv`` defaults to ``x_q``.

        ``mask`` is boolean, broadcastable to (..., n, m), True where the query may attend to the key; it is
        shared by every head. Returns (..., n, d_model), and the weights (..., heads, n, m) with
        ``return_weights=True``.
        """
        x_q = self._inputs(x_q, "x_q")
        x_kv = x_q if x_kv is None else self._inputs(x_kv, "x_kv")
        batch = batch_shape(x_q=x_q, x_kv=x_kv)
        dtype = np.result_type(x_q, x_kv)  # float32 in stays float32 out
        x_q, x_kv = x_q.astype(dtype, copy=False), x_kv.astype(dtype, copy=False)
        W_q, W_k, W_v, W_o = (W.astype(dtype, copy=False) for W in (self.W_q, self.W_k, self.W_v, self.W_o))
        if mask is not None:
            # Checked against (..., n, m) here, so that its errors speak of the caller's shapes, not the heads'.
            mask = check_mask(mask, (*batch, x_q.shape[-2], x_kv.shape[-2]))
            mask = mask[..., None, :, :]  # (..., 1, n or 1, m or 1): the same mask for every head
        per_head_q = x_q[..., None, :, :]  # (..., 1, n, d_model): one copy for every head
        per_head_kv = x_kv[..., None, :, :]  # (..., 1, m, d_model)
        Q = per_head_q @ W_q  # (..., 1, n, d_model) x (h, d_model, d_k) -> (..., h, n, d_k)
        K = per_head_kv @ W_k  # (..., 1, m, d_model) x (h, d_model, d_k) -> (..., h, m, d_k)
        V = per_head_kv @ W_v  # (..., 1, m, d_model) x (h, d_model, d_v) -> (..., h, m, d_v)
        heads_out, weights = attention(Q, K, V, mask=mask, return_weights=True)  # (..., h, n, d_v)
        concat = np.swapaxes(heads_out, -3, -2)  # (..., n, h, d_v)
        concat = concat.reshape(*concat.shape[:-2], self.heads * self.d_v)  # (..., n, h * d_v)
        output = concat @ W_o  # (..., n, h * d_v) x (h * d_v, d_model) -> (..., n, d_model)
        return (output, weights) if return_weights else output
