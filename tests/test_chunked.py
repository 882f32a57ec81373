"""chunked_attention (attn_lib/chunked.py), the online softmax, gives attention's output for every chunk size and any
batch axes, without the n x m scores; extreme inputs are treated as attention treats them."""

import tracemalloc

import numpy as np
import pytest
from attention_by_hand import attention_by_hand
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attn_lib import attention, causal_mask, chunked_attention, padding_mask

finite = st.floats(-30, 30, allow_nan=False, allow_infinity=False)


@st.composite
def broadcast_batch(draw, full):
    """A batch shape that broadcasts to ``full``: some leading axes left out, some of the others set to 1."""
    dropped = draw(st.integers(0, len(full)))
    return tuple(draw(st.sampled_from([size, 1])) for size in full[dropped:])


@st.composite
def problems(draw):
    """Q, K, V and a mask (or None) keeping a key in every row, each with batch axes of its own that broadcast
    together: any argument may bring any batch axis."""
    full = draw(st.sampled_from([(), (2,), (2, 3), (3, 1, 2)]))
    n, m = draw(st.integers(1, 5)), draw(st.integers(1, 7))
    d_k, d_v = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    Q = draw(arrays(np.float64, (*draw(broadcast_batch(full)), n, d_k), elements=finite))
    K = draw(arrays(np.float64, (*draw(broadcast_batch(full)), m, d_k), elements=finite))
    V = draw(arrays(np.float64, (*draw(broadcast_batch(full)), m, d_v), elements=finite))
    mask = None
    if draw(st.booleans()):
        mask_batch = draw(broadcast_batch(full))
        mask = draw(arrays(np.bool_, (*mask_batch, n, m)))
        first = draw(arrays(np.int64, (*mask_batch, n), elements=st.integers(0, m - 1)))
        np.put_along_axis(mask, first[..., None], True, axis=-1)  # no fully masked row
    return Q, K, V, mask


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_chunked_equals_full_attention_for_every_chunk_size(problem):
    Q, K, V, mask = problem
    m = K.shape[-2]
    full = attention(Q, K, V, mask=mask)
    for chunk_size in range(1, m + 2):  # 1 (one key at a time) up to more keys than there are
        chunked = chunked_attention(Q, K, V, mask=mask, chunk_size=chunk_size)
        assert chunked.shape == full.shape
        np.testing.assert_allclose(chunked, full, rtol=0, atol=1e-10, err_msg=f"chunk_size={chunk_size}")


def test_chunked_matches_the_hand_written_loop_with_a_causal_mask():
    rng = np.random.default_rng(11)
    Q, K, V = rng.normal(size=(6, 4)), rng.normal(size=(6, 4)), rng.normal(size=(6, 3))
    expected, _ = attention_by_hand(Q, K, V, mask=causal_mask(6), scale=0.7)
    for chunk_size in (1, 2, 4, 6):
        np.testing.assert_allclose(chunked_attention(Q, K, V, causal_mask(6), 0.7, chunk_size), expected,
                                   rtol=1e-12, atol=1e-14)


def test_a_chunk_whose_keys_are_all_masked_for_a_row_contributes_nothing():
    # Query 0 sees only key 0: with chunk_size=1 every later chunk is fully masked for it.
    rng = np.random.default_rng(12)
    Q, K, V = rng.normal(size=(3, 2)), rng.normal(size=(5, 2)), rng.normal(size=(5, 2))
    mask = causal_mask(3, 5)
    np.testing.assert_allclose(chunked_attention(Q, K, V, mask=mask, chunk_size=1)[0], V[0], rtol=1e-15)
    # The last keys are masked for everyone: the first chunks set the maximum, masked chunks follow.
    np.testing.assert_allclose(chunked_attention(Q, K, V, mask=mask, chunk_size=2), attention(Q, K, V, mask=mask),
                               atol=1e-12)


def test_masks_that_broadcast_over_keys_or_queries():
    rng = np.random.default_rng(13)
    Q, K, V = rng.normal(size=(2, 4, 3)), rng.normal(size=(2, 6, 3)), rng.normal(size=(2, 6, 2))
    key_column = np.array([[True, False, True, True, False, True]])  # (1, m): the same keys for every query
    for mask in (np.ones((4, 1), dtype=bool), key_column, padding_mask([4, 2], 6)):  # (n, 1), (1, m), (b, 1, m)
        np.testing.assert_allclose(chunked_attention(Q, K, V, mask=mask, chunk_size=4),
                                   attention(Q, K, V, mask=mask), atol=1e-12)


def test_float32_stays_float32_and_empty_queries_give_an_empty_output():
    rng = np.random.default_rng(14)
    Q, K, V = (rng.normal(size=s).astype(np.float32) for s in [(3, 4), (7, 4), (7, 2)])
    output = chunked_attention(Q, K, V, chunk_size=3)
    assert output.dtype == np.float32
    np.testing.assert_allclose(output, attention_by_hand(Q, K, V)[0], rtol=1e-5, atol=1e-6)
    assert chunked_attention(np.zeros((0, 4)), K, V).shape == (0, 2)


def test_large_score_gaps_between_chunks_are_rescaled_without_overflow():
    # The first chunk's scores are tiny, the second's huge: the running sums must be rescaled, not overflow.
    Q = np.array([[1.0]])
    K = np.array([[-300.0], [0.0], [700.0], [710.0]])
    V = np.array([[1.0], [2.0], [3.0], [4.0]])
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        np.testing.assert_allclose(chunked_attention(Q, K, V, scale=1.0, chunk_size=2),
                                   attention_by_hand(Q, K, V, scale=1.0)[0], rtol=1e-14)


def test_peak_memory_stays_far_below_the_full_score_matrix():
    n = m = 512
    rng = np.random.default_rng(15)
    Q, K, V = rng.normal(size=(n, 8)), rng.normal(size=(m, 8)), rng.normal(size=(m, 8))
    tracemalloc.start()
    try:
        chunked_attention(Q, K, V, chunk_size=16)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    full_scores = n * m * 8  # bytes of one float64 score matrix
    assert peak < full_scores / 4, f"peak {peak} bytes, the full scores take {full_scores}"


@pytest.mark.parametrize("shapes", [
    ((1, 1), (1, 1), (2, 1, 1)),  # V brings the batch axis
    ((1, 1), (3, 1, 1), (1, 1)),  # K brings it
    ((2, 1, 1), (1, 1), (1, 1)),  # Q brings it
    ((2, 1, 3, 2), (4, 5, 2), (1, 5, 3)),  # each brings some
])
def test_batch_axes_broadcast_whichever_argument_brings_them(shapes):
    rng = np.random.default_rng(16)
    Q, K, V = (rng.normal(size=shape) for shape in shapes)
    full = attention(Q, K, V)
    for chunk_size in (1, 2, 8):
        np.testing.assert_allclose(chunked_attention(Q, K, V, chunk_size=chunk_size), full, atol=1e-12)


@pytest.mark.parametrize("dtype, big", [(np.float32, 3e38), (np.float64, 1.7e308)])
def test_values_near_the_largest_number_give_their_finite_average(dtype, big):
    Q = np.zeros((1, 1), dtype)
    np.testing.assert_allclose(chunked_attention(Q, np.zeros((2, 1), dtype), np.full((2, 1), big, dtype)),
                               [[big]], rtol=1e-6)
    halves = np.concatenate([np.full((500, 1), big, dtype), np.full((500, 1), -big, dtype)])
    for chunk_size in (1, 7, 256, 1000):
        output = chunked_attention(Q, np.zeros((1000, 1), dtype), halves, chunk_size=chunk_size)
        assert np.isfinite(output).all() and abs(float(output[0, 0])) <= 1e-5 * big, chunk_size


@pytest.mark.parametrize("Q, K, scale", [
    (np.full((1, 1), 3e38, np.float32), np.full((1, 1), 1e-3, np.float32), 2.0),  # scaling Q would overflow
    (np.full((1, 1), 1e-3, np.float32), np.full((1, 1), 3e38, np.float32), 2.0),  # scaling K would overflow
    (np.full((1, 2), 1e-30, np.float32), np.full((3, 2), 1e-20, np.float32), 1e-20),  # products underflow
])
def test_extreme_inputs_get_the_same_answer_from_attention_and_chunked_attention(Q, K, scale):
    V = np.arange(K.shape[0], dtype=np.float32)[:, None] + 1.0
    outcomes = []
    for fn in (attention, chunked_attention):
        try:
            outcomes.append(("answer", fn(Q, K, V, scale=scale)))
        except ValueError as error:
            outcomes.append(("error", str(error)))
    (kind_a, a), (kind_c, c) = outcomes
    assert kind_a == kind_c, outcomes
    if kind_a == "answer":
        np.testing.assert_allclose(a, c, rtol=1e-6)
    else:
        assert a == c
