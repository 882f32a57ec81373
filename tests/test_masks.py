"""causal_mask and padding_mask against their definitions, and masked attention against the hand-written loop."""

import numpy as np
import pytest
from attention_by_hand import attention_by_hand, batched

from attn_lib import attention, causal_mask, padding_mask

rng = np.random.default_rng(7)


@pytest.mark.parametrize("n, m", [(1, 1), (4, 4), (3, 5), (5, 3), (0, 2), (2, 0)])
def test_causal_mask_is_true_exactly_where_key_is_not_after_query(n, m):
    mask = causal_mask(n, m)
    assert mask.dtype == np.bool_ and mask.shape == (n, m)
    for i in range(n):
        for j in range(m):
            assert mask[i, j] == (j <= i), (i, j)


def test_causal_mask_m_defaults_to_n():
    assert causal_mask(3).tolist() == [[True, False, False], [True, True, False], [True, True, True]]


def test_padding_mask_keeps_the_first_lengths_keys_of_each_sequence():
    lengths = [2, 0, 4, 1]
    mask = padding_mask(lengths, 4)
    assert mask.dtype == np.bool_ and mask.shape == (4, 1, 4)
    for b, length in enumerate(lengths):
        assert mask[b, 0].tolist() == [j < length for j in range(4)]


def test_padding_mask_accepts_numpy_integers_and_an_empty_batch():
    assert padding_mask(np.array([3, 1], dtype=np.int32), 3).shape == (2, 1, 3)
    assert padding_mask([], 5).shape == (0, 1, 5)


def test_causal_attention_matches_the_loop_and_ignores_future_values():
    n = 5
    Q, K, V = rng.normal(size=(n, 3)), rng.normal(size=(n, 3)), rng.normal(size=(n, 2))
    mask = causal_mask(n)
    output, weights = attention(Q, K, V, mask=mask, return_weights=True)
    expected_output, expected_weights = attention_by_hand(Q, K, V, mask=mask)
    np.testing.assert_allclose(weights, expected_weights, rtol=1e-12)
    np.testing.assert_allclose(output, expected_output, rtol=1e-12, atol=1e-14)
    assert (weights[~mask] == 0.0).all()
    # Changing a value that query i may not see leaves row i unchanged.
    V_changed = V.copy()
    V_changed[3] += 100.0
    changed = attention(Q, K, V_changed, mask=mask)
    np.testing.assert_array_equal(changed[:3], output[:3])
    assert not np.allclose(changed[3:], output[3:])


def test_first_query_of_a_causal_mask_copies_the_first_value():
    V = rng.normal(size=(4, 3))
    output = attention(rng.normal(size=(4, 2)), rng.normal(size=(4, 2)), V, mask=causal_mask(4))
    np.testing.assert_allclose(output[0], V[0], rtol=1e-15)


def test_padding_mask_broadcasts_over_queries_and_matches_the_loop():
    lengths = [3, 1]
    Q, K, V = rng.normal(size=(2, 4, 3)), rng.normal(size=(2, 5, 3)), rng.normal(size=(2, 5, 2))
    mask = padding_mask(lengths, 5)  # (batch, 1, m)
    output, weights = attention(Q, K, V, mask=mask, return_weights=True)
    expected_output, expected_weights = batched(
        lambda q, k, v, a: attention_by_hand(q, k, v, mask=a), Q, K, V, mask, core_ndims=(2, 2, 2, 2)
    )
    np.testing.assert_allclose(weights, expected_weights, rtol=1e-12)
    np.testing.assert_allclose(output, expected_output, rtol=1e-12, atol=1e-14)
    assert (weights[0, :, 3:] == 0).all() and (weights[1, :, 1:] == 0).all()
    np.testing.assert_allclose(output[1], np.broadcast_to(V[1, 0], (4, 2)), rtol=1e-15)


def test_mask_with_more_batch_axes_than_the_inputs_broadcasts_the_output():
    Q, K, V = rng.normal(size=(3, 2)), rng.normal(size=(4, 2)), rng.normal(size=(4, 2))
    masks = np.stack([causal_mask(3, 4), np.ones((3, 4), dtype=bool)])  # (2, n, m)
    output = attention(Q, K, V, mask=masks)
    assert output.shape == (2, 3, 2)
    np.testing.assert_allclose(output[0], attention_by_hand(Q, K, V, mask=masks[0])[0], rtol=1e-12)
    np.testing.assert_allclose(output[1], attention_by_hand(Q, K, V)[0], rtol=1e-12)


def test_key_column_mask_of_shape_1_by_m_blocks_that_key_for_every_query():
    Q, K, V = rng.normal(size=(3, 2)), rng.normal(size=(4, 2)), rng.normal(size=(4, 2))
    keep = np.array([[True, False, True, True]])  # (1, m)
    np.testing.assert_allclose(attention(Q, K, V, mask=keep), attention(Q, K[[0, 2, 3]], V[[0, 2, 3]]), rtol=1e-13)


def test_unsigned_lengths_too_large_are_reported_with_their_real_value():
    with pytest.raises(ValueError, match=r"lengths\[0\] = 18446744073709551615 is outside 0..m = 0..4"):
        padding_mask(np.array([2**64 - 1], dtype=np.uint64), 4)
    np.testing.assert_array_equal(padding_mask(np.array([3], dtype=np.uint8), 4), padding_mask([3], 4))


def test_padding_mask_bad_lengths():
    with pytest.raises(ValueError, match=r"lengths\[1\] = 5 is outside 0..m = 0..4"):
        padding_mask([2, 5], 4)
    with pytest.raises(ValueError, match=r"lengths\[0\] = -1 is outside"):
        padding_mask([-1], 4)
    with pytest.raises(TypeError, match=r"lengths must hold integers; got dtype float64"):
        padding_mask([1.5], 4)
    with pytest.raises(ValueError, match=r"lengths must be a 1-D sequence of ints \(batch,\); got shape \(\)"):
        padding_mask(3, 4)
