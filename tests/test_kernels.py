"""The in-place kernels (attn_lib/_kernels.py): the softmax inside the scores' buffer, masking, overflow of the
scores named by row, and values near the dtype's largest number averaged at a smaller scale."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from three_functions import EVERY_QKV

from attn_lib import attention, chunked_attention, scaled_scores, softmax
from attn_lib._kernels import average_huge_values, mask_inplace, softmax_rows_inplace

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_softmax_rows_inplace_works_in_the_buffer_it_is_given():
    scores = np.array([[1.0, 2.0, 3.0], [0.0, -np.inf, 0.0]])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))  # by hand: softmax itself uses this kernel
    expected = e / e.sum(axis=-1, keepdims=True)
    buffer = scores
    assert softmax_rows_inplace(scores) is buffer
    np.testing.assert_allclose(buffer, expected, rtol=1e-15)


def test_mask_inplace_blocks_in_place_or_grows_to_the_masks_batch_axes():
    scores = np.zeros((2, 3))
    mask = np.array([[True, False, True], [True, True, False]])
    assert mask_inplace(scores, mask) is scores
    assert np.isneginf(scores[~mask]).all() and (scores[mask] == 0).all()
    grown = mask_inplace(np.zeros((2, 3)), np.ones((4, 2, 3), dtype=bool))  # the mask brings a batch axis
    assert grown.shape == (4, 2, 3)


@EVERY_QKV
@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["to +inf", "to -inf"])
def test_scores_that_overflow_raise_instead_of_giving_nan(fn, sign):
    big = np.full((2, 3), 1e200)
    with pytest.raises(ValueError, match=r"the scores of query row 0 overflowed float64"):
        fn(big, sign * big, np.ones((2, 1)))


def test_float32_scores_that_overflow_name_float32():
    big = np.full((2, 3), 1e20, dtype=np.float32)
    with pytest.raises(ValueError, match=r"overflowed float32 \(largest finite value 3.4e\+38\)"):
        attention(big, big, np.ones((2, 1), dtype=np.float32))
    with pytest.raises(ValueError, match=r"overflowed float32"):
        scaled_scores(big, big)


def test_average_huge_values_is_exact_for_powers_of_two_and_names_v_when_the_answer_is_beyond_the_dtype():
    V = np.array([[3e38], [3e38]], np.float32)
    weights = np.array([[0.5, 0.5]], np.float32)
    np.testing.assert_array_equal(average_huge_values(lambda values: weights @ values, V), [[np.float32(3e38)]])
    top = np.finfo(np.float32).max
    overweight = np.array([[1.0, 1.0]], np.float32)  # weights summing to 2: the answer is twice the largest
    with pytest.raises(ValueError, match=r"^V holds values up to 3.4e\+38 in magnitude, so near the largest float32"):
        average_huge_values(lambda values: overweight @ values, np.full((2, 1), top, np.float32))


@FAST
@given(arrays(np.float32, st.tuples(st.integers(1, 40), st.integers(1, 3)),
              elements=st.floats(-1, 1, width=32)),
       st.sampled_from([np.finfo(np.float32).max, 1e38, 1e30]),
       st.integers(1, 40))
def test_values_of_any_size_give_a_finite_output_equal_to_the_float64_average(unit, largest, chunk_size):
    # V fills the float32 range up to ``largest``; the output is the weights' average of its rows, which float64
    # holds exactly enough to compare with: never inf or NaN, in attention and chunked_attention alike.
    m = unit.shape[0]
    V = (unit * np.float32(largest)).astype(np.float32)  # (m, d_v)
    rng = np.random.default_rng(m)
    Q, K = rng.normal(size=(3, 2)).astype(np.float32), rng.normal(size=(m, 2)).astype(np.float32)
    output = attention(Q, K, V)
    scores = Q.astype(np.float64) @ K.T.astype(np.float64) / np.sqrt(2)  # (3, m), computed apart from attn_lib
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    expected = weights @ V.astype(np.float64)  # (3, m) x (m, d_v)
    tolerance = 1e-5 * float(largest)
    for got in (output, attention(Q, K, V), chunked_attention(Q, K, V, chunk_size=chunk_size)):
        assert np.isfinite(got).all()
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=tolerance)


def test_softmax_rows_inplace_names_the_overflowed_row_whichever_block_holds_it():
    scores = np.zeros((3, 400, 1000))  # rows are taken in blocks: this row is far from the first block
    scores[2, 300, 5] = np.inf
    with pytest.raises(ValueError, match=r"^the scores of query row 300 of batch index \(2,\) overflowed float64"):
        softmax_rows_inplace(scores)


def test_softmax_rows_inplace_gives_the_same_weights_in_blocks_and_in_one_pass():
    rng = np.random.default_rng(8)
    scores = rng.normal(size=(2, 700, 900)) * 5  # more entries than one block holds
    expected = np.exp(scores - scores.max(axis=-1, keepdims=True))
    expected /= expected.sum(axis=-1, keepdims=True)
    np.testing.assert_allclose(softmax_rows_inplace(scores), expected, rtol=1e-13)
