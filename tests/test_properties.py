"""Laws that hold for every input (hypothesis): what softmax and attention must satisfy, whatever the numbers."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attn_lib import attention, softmax

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
