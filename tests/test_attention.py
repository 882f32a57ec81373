"""softmax, scaled_scores and attention (attn_lib/attention.py) against loops written out by hand; dtypes, batch axes,
empty queries, huge values, their errors, and the laws they obey whatever the numbers (hypothesis)."""

import math

import numpy as np
import pytest
from attention_by_hand import attention_by_hand, batched, scores_by_hand, softmax_row_by_hand
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from three_functions import K, Q

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
    output = attention(Q, K, V)
    scores = Q.astype(np.float64) @ K.T.astype(np.float64) / np.sqrt(3)  # (4, 50), computed apart from attn_lib
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    expected = weights @ V.astype(np.float64)  # (4, 50) x (50, 2): no overflow in float64
    assert np.isfinite(output).all()
    np.testing.assert_allclose(output, expected, rtol=1e-4, atol=1e-5 * np.finfo(np.float32).max)


def test_softmax_of_a_ragged_list_names_x():
    with pytest.raises(ValueError, match=r"^x must be a rectangular array; could not build one"):
        softmax([[1.0, 2.0], [3.0]])


# Errors


def test_scaled_scores_widths_differ():
    with pytest.raises(ValueError, match=r"K has d_k=32 but Q has d_k=64"):
        scaled_scores(np.ones((2, 64)), np.ones((3, 32)))


def test_scaled_scores_bad_scale():
    with pytest.raises(ValueError, match=r"scale must be a positive finite number; got -2.0"):
        scaled_scores(Q, K, scale=-2.0)


def test_softmax_all_minus_inf_slice_says_every_entry_is_masked_and_where():
    x = np.zeros((3, 4))
    x[1] = -np.inf
    with pytest.raises(ValueError, match=r"every entry of x\[1, :\] is -inf \(masked\)"):
        softmax(x)
    with pytest.raises(ValueError, match=r"every entry of x\[:, 2\] is -inf"):
        softmax(np.where(np.arange(3)[None, :] == 2, -np.inf, 0.0) * np.ones((4, 1)), axis=0)


def test_softmax_nan_and_plus_inf():
    with pytest.raises(ValueError, match=r"x contains NaN at index \(0, 2\): softmax of NaN is undefined"):
        softmax([[0.0, 1.0, np.nan]])
    with pytest.raises(ValueError, match=r"x contains \+inf at index \(1,\)"):
        softmax([0.0, np.inf])


def test_softmax_bad_dtype_and_axis():
    with pytest.raises(TypeError, match=r"x must hold real numbers; got dtype complex128"):
        softmax(np.ones(3, dtype=complex))
    with pytest.raises(TypeError, match=r"x must hold real numbers; got dtype <U1"):
        softmax(["a", "b"])
    with pytest.raises(ValueError, match=r"axis 2 is out of range for x with 2 dimension"):
        softmax(np.ones((2, 3)), axis=2)
    with pytest.raises(TypeError, match=r"axis must be an integer; got float 1.0"):
        softmax(np.ones((2, 3)), axis=1.0)
    with pytest.raises(ValueError, match=r"x must have at least 1 dimension; got a scalar"):
        softmax(3.0)


# Laws that hold for every input (hypothesis): what softmax and attention must satisfy, whatever the numbers.

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
finite = st.floats(-20, 20, allow_nan=False, allow_infinity=False, width=64)


@st.composite
def qkv(draw, max_n=5, max_m=6, max_d=4, batch=False):
    """Q (..., n, d_k), K (..., m, d_k), V (..., m, d_v) with small entries; optional batch axis that broadcasts."""
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(1, max_m))
    d_k = draw(st.integers(1, max_d))
    d_v = draw(st.integers(1, max_d))
    b = (draw(st.integers(1, 3)),) if batch else ()
    Q = draw(arrays(np.float64, (*b, n, d_k), elements=finite))
    K = draw(arrays(np.float64, (*b, m, d_k), elements=finite))
    V = draw(arrays(np.float64, (m, d_v), elements=finite))  # no batch axis: broadcasts against Q and K's
    return Q, K, V


@st.composite
def masks_for(draw, shape):
    """A boolean mask of ``shape`` (..., n, m) in which every query row keeps at least one key."""
    mask = draw(arrays(np.bool_, shape))
    keep = draw(arrays(np.int64, shape[:-1], elements=st.integers(0, shape[-1] - 1)))
    np.put_along_axis(mask, keep[..., None], True, axis=-1)
    return mask


@FAST
@given(arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 7)),
              elements=st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False)))
def test_softmax_rows_are_nonnegative_and_sum_to_one_even_for_huge_scores(scores):
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        weights = softmax(scores)
    assert (weights >= 0).all()
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, rtol=1e-13)


@FAST
@given(arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 7)), elements=finite),
       arrays(np.float64, 4, elements=st.floats(-1e3, 1e3)))
def test_adding_a_constant_to_a_score_row_changes_nothing(scores, constants):
    shifted = scores + constants[: scores.shape[0], None]  # a different constant for each row
    np.testing.assert_allclose(softmax(shifted), softmax(scores), rtol=1e-9, atol=1e-12)


@FAST
@given(qkv(), arrays(np.float64, 4, elements=finite))
def test_adding_one_vector_to_every_key_changes_nothing(inputs, u):
    # q_i . (k_j + u) = q_i . k_j + q_i . u: the same constant added along score row i.
    Q, K, V = inputs
    u = u[: K.shape[-1]]
    np.testing.assert_allclose(attention(Q, K + u, V), attention(Q, K, V), rtol=1e-7, atol=1e-9)


@FAST
@given(qkv(batch=True), st.randoms(use_true_random=False))
def test_permuting_keys_and_values_together_changes_nothing(inputs, random):
    Q, K, V = inputs
    order = list(range(K.shape[-2]))
    random.shuffle(order)
    output, weights = attention(Q, K, V, return_weights=True)
    permuted_output, permuted_weights = attention(Q, K[..., order, :], V[order], return_weights=True)
    np.testing.assert_allclose(permuted_output, output, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(permuted_weights, weights[..., order], rtol=1e-10, atol=1e-300)


@FAST
@given(qkv(batch=True).flatmap(lambda x: st.tuples(st.just(x), masks_for(x[0].shape[:-1] + (x[1].shape[-2],)))))
def test_weights_are_a_distribution_over_the_allowed_keys(drawn):
    (Q, K, V), mask = drawn
    _, weights = attention(Q, K, V, mask=mask, return_weights=True)
    assert (weights >= 0).all()
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, rtol=1e-12)
    assert (weights[~mask] == 0.0).all()  # exactly zero, not just small


@FAST
@given(qkv(batch=True).flatmap(lambda x: st.tuples(st.just(x), masks_for(x[0].shape[:-1] + (x[1].shape[-2],)))))
def test_each_output_row_lies_in_the_convex_hull_of_the_allowed_value_rows(drawn):
    (Q, K, V), mask = drawn
    output, weights = attention(Q, K, V, mask=mask, return_weights=True)
    V_b = np.broadcast_to(V, mask.shape[:-2] + V.shape)
    for index in np.ndindex(*mask.shape[:-1]):  # every (batch, query row)
        allowed = V_b[index[:-1]][mask[index]]  # (allowed keys, d_v)
        row = output[index]
        tol = 1e-9 * (1 + np.abs(allowed).max())
        assert (row >= allowed.min(axis=0) - tol).all() and (row <= allowed.max(axis=0) + tol).all()
        # ...and it is the combination given by the weights, summed by hand.
        combination = sum(w * v for w, v in zip(weights[index], V_b[index[:-1]]))
        np.testing.assert_allclose(row, combination, rtol=1e-10, atol=tol)


@FAST
@given(qkv(), st.floats(1e-3, 1e3))
def test_scale_only_multiplies_the_scores(inputs, scale):
    Q, K, V = inputs
    np.testing.assert_allclose(attention(Q, K, V, scale=scale), attention(Q * scale, K, V, scale=1.0),
                               rtol=1e-8, atol=1e-9)
