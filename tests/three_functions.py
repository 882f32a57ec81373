"""attention, chunked_attention and attention_backward called alike, so that a test of what they share (the
validation of Q, K, V, mask and scale; the handling of overflow) runs on all three. Small inputs to start from."""

import numpy as np
import pytest

from attn_lib import attention, attention_backward, chunked_attention

rng = np.random.default_rng(3)
n, m, d_k, d_v = 3, 4, 5, 2
Q, K, V = rng.normal(size=(n, d_k)), rng.normal(size=(m, d_k)), rng.normal(size=(m, d_v))


def run_attention(Q, K, V, **kw):
    return attention(Q, K, V, **kw)


def run_chunked(Q, K, V, **kw):
    return chunked_attention(Q, K, V, chunk_size=2, **kw)


def run_backward(Q, K, V, **kw):
    # A gradient of the output's shape where that shape exists, so that only the error under test can arise.
    try:
        batch = np.broadcast_shapes(np.shape(Q)[:-2], np.shape(K)[:-2], np.shape(V)[:-2])
        grad = np.ones(batch + (np.shape(Q)[-2], np.shape(V)[-1]))
    except (ValueError, IndexError):
        grad = np.ones((n, d_v))
    return attention_backward(Q, K, V, grad, **kw)


EVERY_QKV = pytest.mark.parametrize("fn", [run_attention, run_chunked, run_backward],
                                    ids=["attention", "chunked_attention", "attention_backward"])
