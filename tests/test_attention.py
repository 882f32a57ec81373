"""softmax, scaled_scores and attention against loops written out by hand; dtypes, batch axes, empty queries."""

import math

import numpy as np
import pytest
from attention_by_hand import attention_by_hand, batched, scores_by_hand, softmax_row_by_hand

from attn_lib import attention, scaled_scores, softmax

rng = np.random.default_rng(20260101)


def test_softmax_matches_exp_over_sum_written_out():
    scores = rng.normal(size=(4, 6)) * 3  # (n, m)
    expected = np.array([[math.exp(x) / sum(math.exp(y) for y in row) for x in row] for row in scores.tolist()])
    np.testing.assert_allclose(softmax(scores), expected, rtol=1e-13, atol=0)


def test_softmax_along_axis_0_normalises_columns():
    x = rng.normal(size=(3, 5))
    weights = softmax(x, axis=0)
    for j in range(5):
        column = x[:, j].tolist()
        expected = [math.exp(v) / sum(math.exp(u) for u in column) for v in column]
        np.testing.assert_allclose(weights[:, j], expected, rtol=1e-13)


def test_softmax_of_minus_inf_is_exactly_zero_and_the_rest_renormalises():
    weights = softmax([[0.0, -np.inf, math.log(3.0)], [-np.inf, 2.0, -np.inf]])
    assert weights[0, 1] == 0.0 and weights[1, 0] == 0.0 and weights[1, 2] == 0.0
    np.testing.assert_allclose(weights[0], [0.25, 0.0, 0.75], rtol=1e-15)
    assert weights[1, 1] == 1.0


@pytest.mark.parametrize(
    "row, expected",
    [
        ([1e308, -1e308], [1.0, 0.0]),
        ([-1e308, -1e308], [0.5, 0.5]),
        ([1e308, 1e308, -1e308], [0.5, 0.5, 0.0]),
        ([1000.0, 999.0], [1 / (1 + math.exp(-1)), math.exp(-1) / (1 + math.exp(-1))]),
    ],
)
def test_softmax_of_huge_finite_scores_does_not_overflow(row, expected):
    # An overflow that numpy reported (not one the library handles on purpose) would raise FloatingPointError.
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        weights = softmax(row)
    np.testing.assert_allclose(weights, expected, rtol=1e-15)


def test_softmax_float32_stays_float32_and_ints_become_float64():
    assert softmax(np.zeros((2, 3), dtype=np.float32)).dtype == np.float32
    weights = softmax([[1, 2, 3]])
    assert weights.dtype == np.float64
    np.testing.assert_allclose(weights[0], softmax_row_by_hand([1.0, 2.0, 3.0]), rtol=1e-15)


def test_scaled_scores_match_the_triple_loop_with_default_and_given_scale():
    Q, K = rng.normal(size=(3, 5)), rng.normal(size=(4, 5))  # (n, d_k), (m, d_k)
    np.testing.assert_allclose(scaled_scores(Q, K), scores_by_hand(Q, K, 1 / math.sqrt(5)), rtol=1e-13)
    np.testing.assert_allclose(scaled_scores(Q, K, scale=0.3), scores_by_hand(Q, K, 0.3), rtol=1e-13)


def test_scaled_scores_entry_is_one_dot_product():
    Q = [[1.0, 2.0, 3.0, 4.0]]  # one query, d_k = 4, so the default scale is 1/2
    K = [[1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0]]
    assert scaled_scores(Q, K).tolist() == [[0.5, 5.0]]


def test_attention_matches_loops_written_out_by_hand():
    Q, K, V = rng.normal(size=(4, 3)), rng.normal(size=(6, 3)), rng.normal(size=(6, 2))  # n=4, m=6, d_k=3, d_v=2
    output, weights = attention(Q, K, V, return_weights=True)
    expected_output, expected_weights = attention_by_hand(Q, K, V)
    assert output.shape == (4, 2) and weights.shape == (4, 6)
    np.testing.assert_allclose(weights, expected_weights, rtol=1e-12)
    np.testing.assert_allclose(output, expected_output, rtol=1e-12, atol=1e-14)


def test_attention_is_stable_when_the_scores_are_large():
    # Scores near 850: exp would overflow without subtracting each row's maximum first.
    Q = np.array([[30.0, 0.0], [-30.0, 1.0]])
    K = np.array([[40.0, 0.0], [39.0, 0.0], [0.0, 3.0]])
    V = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
    output, weights = attention(Q, K, V, return_weights=True)
    expected_output, expected_weights = attention_by_hand(Q, K, V)
    np.testing.assert_allclose(weights, expected_weights, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(output, expected_output, rtol=1e-12)


def test_attention_with_given_scale_and_d_k_different_from_d_v():
    Q, K, V = rng.normal(size=(2, 7)), rng.normal(size=(3, 7)), rng.normal(size=(3, 5))
    np.testing.assert_allclose(attention(Q, K, V, scale=2.5), attention_by_hand(Q, K, V, scale=2.5)[0], rtol=1e-12)


def test_attention_broadcasts_leading_batch_axes():
    Q = rng.normal(size=(2, 1, 3, 4))  # (2, 1, n, d_k)
    K = rng.normal(size=(5, 5, 4))  # (5, m, d_k)
    V = rng.normal(size=(5, 2))  # (m, d_v): shared by every batch entry
    output = attention(Q, K, V)
    assert output.shape == (2, 5, 3, 2)
    allowed = np.ones((3, 5), dtype=bool)
    (expected,) = batched(lambda q, k, v, a: attention_by_hand(q, k, v, a)[:1], Q, K, V, allowed,
                          core_ndims=(2, 2, 2, 2))
    np.testing.assert_allclose(output, expected, rtol=1e-12, atol=1e-14)


def test_float32_in_stays_float32_out_and_agrees_with_float64():
    Q, K, V = (rng.normal(size=shape).astype(np.float32) for shape in [(3, 8), (5, 8), (5, 4)])
    output, weights = attention(Q, K, V, return_weights=True)
    assert output.dtype == np.float32 and weights.dtype == np.float32
    assert scaled_scores(Q, K).dtype == np.float32
    np.testing.assert_allclose(output, attention_by_hand(Q, K, V)[0], rtol=1e-5, atol=1e-6)


def test_lists_and_integer_arrays_are_computed_in_float64():
    Q = [[1, 0], [0, 1]]
    K = np.array([[1, 0], [1, 1], [0, 2]])  # integer array
    V = [[1, 2], [3, 4], [5, 6]]
    output = attention(Q, K, V)
    assert output.dtype == np.float64
    np.testing.assert_allclose(output, attention_by_hand(Q, K, V)[0], rtol=1e-14)


def test_no_queries_gives_an_empty_output():
    output, weights = attention(np.zeros((0, 4)), rng.normal(size=(3, 4)), rng.normal(size=(3, 2)),
                                return_weights=True)
    assert output.shape == (0, 2) and weights.shape == (0, 3)
    assert attention(np.zeros((2, 0, 4)), np.ones((3, 4)), np.ones((3, 5))).shape == (2, 0, 5)


def test_identical_keys_give_the_plain_average_of_the_values():
    V = rng.normal(size=(4, 3))
    output = attention(rng.normal(size=(2, 5)), np.ones((4, 5)), V)
    np.testing.assert_allclose(output, np.broadcast_to(V.mean(axis=0), (2, 3)), rtol=1e-13)


# Values near the dtype's largest number: the output is a weighted average of the values, so it is representable
# whenever they are; it must come back finite and right, never inf or NaN.


@pytest.mark.parametrize("dtype, big", [(np.float32, 3e38), (np.float64, 1.7e308)])
@pytest.mark.parametrize("return_weights", [False, True])
def test_values_near_the_largest_number_give_their_finite_average(dtype, big, return_weights):
    Q, K = np.zeros((1, 1), dtype), np.zeros((2, 1), dtype)
    same = attention(Q, K, np.full((2, 1), big, dtype), return_weights=return_weights)
    same = same[0] if return_weights else same
    np.testing.assert_allclose(same, [[big]], rtol=1e-6)
    halves = np.concatenate([np.full((500, 1), big, dtype), np.full((500, 1), -big, dtype)])
    cancelled = attention(Q, np.zeros((1000, 1), dtype), halves, return_weights=return_weights)
    cancelled = cancelled[0] if return_weights else cancelled
    assert np.isfinite(cancelled).all() and abs(float(cancelled[0, 0])) <= 1e-5 * big


def test_huge_values_agree_with_the_average_computed_in_a_wider_dtype():
    rng = np.random.default_rng(5)
    Q, K = rng.normal(size=(4, 3)).astype(np.float32), rng.normal(size=(50, 3)).astype(np.float32)
    V = (rng.uniform(-1, 1, size=(50, 2)) * np.finfo(np.float32).max).astype(np.float32)
    output, weights = attention(Q, K, V, return_weights=True)
    expected = weights.astype(np.float64) @ V.astype(np.float64)  # (4, 50) x (50, 2): no overflow in float64
    assert np.isfinite(output).all()
    np.testing.assert_allclose(output, expected, rtol=1e-4, atol=1e-5 * np.finfo(np.float32).max)


def test_softmax_of_a_ragged_list_names_x():
    with pytest.raises(ValueError, match=r"^x must be a rectangular array; could not build one"):
        softmax([[1.0, 2.0], [3.0]])
