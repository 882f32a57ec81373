"""attn_lib.decoding: one decoding step with a KV cache equals the last row of full causal attention."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_lib import attention, causal_mask, decode_step, kv_cache_numbers


def decode_all(Q, K, V):
    """Every row of Q, K, V (..., T, d) decoded one step at a time from an empty cache."""
    K_cache, V_cache = K[..., :0, :], V[..., :0, :]
    rows = []
    for t in range(Q.shape[-2]):
        out, K_cache, V_cache = decode_step(Q[..., t:t + 1, :], K[..., t:t + 1, :], V[..., t:t + 1, :],
                                            K_cache, V_cache)
        rows.append(out)
    return np.concatenate(rows, axis=-2), K_cache, V_cache


@settings(max_examples=40, deadline=None)
@given(T=st.integers(1, 7), d_k=st.integers(1, 6), d_v=st.integers(1, 5),
       batch=st.sampled_from([(), (2,), (2, 3)]), seed=st.integers(0, 2**16))
def test_decoding_step_by_step_equals_full_causal_attention(T, d_k, d_v, batch, seed):
    rng = np.random.default_rng(seed)
    Q, K = rng.normal(size=(*batch, T, d_k)), rng.normal(size=(*batch, T, d_k))
    V = rng.normal(size=(*batch, T, d_v))
    rows, K_cache, V_cache = decode_all(Q, K, V)
    np.testing.assert_allclose(rows, attention(Q, K, V, mask=causal_mask(T)), rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(K_cache, K)  # the cache holds every key, in position order
    np.testing.assert_array_equal(V_cache, V)


def test_first_step_attends_to_its_own_value_alone():
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(1, 4)), rng.normal(size=(1, 4)), rng.normal(size=(1, 3))
    out, K_cache, V_cache = decode_step(q, k, v, np.zeros((0, 4)), np.zeros((0, 3)))
    np.testing.assert_array_equal(out, v)
    assert K_cache.shape == (1, 4) and V_cache.shape == (1, 3)


def test_a_cache_without_batch_axes_broadcasts_against_a_batched_token():
    rng = np.random.default_rng(1)
    q, k, v = rng.normal(size=(2, 1, 4)), rng.normal(size=(2, 1, 4)), rng.normal(size=(2, 1, 3))
    K_cache, V_cache = rng.normal(size=(3, 4)), rng.normal(size=(3, 3))
    out, K_all, V_all = decode_step(q, k, v, K_cache, V_cache)
    assert out.shape == (2, 1, 3) and K_all.shape == (2, 4, 4) and V_all.shape == (2, 4, 3)
    np.testing.assert_allclose(out[1], attention(q[1], np.vstack([K_cache, k[1]]), np.vstack([V_cache, v[1]])))


@pytest.mark.parametrize("change, message", [
    (dict(q=np.ones((2, 4))), r"q must hold the new token alone, one row \(\.\.\., 1, d_k\); got shape \(2, 4\)"),
    (dict(v=np.ones((3, 3))), r"v must hold the new token alone.*got shape \(3, 3\)"),
    (dict(K_cache=np.ones((2, 5))), r"K_cache has width 5 but the new token's key k has 4.*got shape \(2, 5\)"),
    (dict(V_cache=np.ones((2, 2))), r"V_cache has width 2 but the new token's value v has 3"),
    (dict(V_cache=np.ones((1, 3))), r"K_cache holds 2 positions but V_cache 1"),
])
def test_bad_shapes_are_named(change, message):
    args = dict(q=np.ones((1, 4)), k=np.ones((1, 4)), v=np.ones((1, 3)), K_cache=np.ones((2, 4)),
                V_cache=np.ones((2, 3)))
    args.update(change)
    with pytest.raises(ValueError, match=message):
        decode_step(**args)


def test_cache_size_is_two_layers_heads_n_dk():
    assert kv_cache_numbers(1000) == 2 * 6 * 8 * 1000 * 64
    assert kv_cache_numbers(10, d_k=4, d_v=2, heads=3, layers=2) == 2 * 3 * 10 * (4 + 2)
    assert kv_cache_numbers(0) == 0
    with pytest.raises(ValueError, match="heads must be at least 1"):
        kv_cache_numbers(10, heads=0)
    with pytest.raises(TypeError, match="n must be an integer"):
        kv_cache_numbers(1.5)
