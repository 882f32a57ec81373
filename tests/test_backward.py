"""attention_backward against central finite differences of attention, with masks and broadcast batch axes."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from three_functions import K, Q, V, d_k, d_v, n

from attn_lib import attention, attention_backward, causal_mask

STEP = 1e-6


def finite_difference_gradients(Q, K, V, grad_output, mask=None, scale=None):
    """d(sum(attention(Q, K, V) * grad_output)) / d(each entry of Q, K and V), by central differences."""
    def loss(q, k, v):
        return float(np.sum(attention(q, k, v, mask=mask, scale=scale) * grad_output))

    grads = []
    for which in range(3):
        inputs = [Q.copy(), K.copy(), V.copy()]
        grad = np.zeros_like(inputs[which])
        for index in np.ndindex(*grad.shape):
            plus = [a.copy() for a in inputs]
            minus = [a.copy() for a in inputs]
            plus[which][index] += STEP
            minus[which][index] -= STEP
            grad[index] = (loss(*plus) - loss(*minus)) / (2 * STEP)
        grads.append(grad)
    return grads


def assert_matches_finite_differences(Q, K, V, grad_output, mask=None, scale=None):
    got = attention_backward(Q, K, V, grad_output, mask=mask, scale=scale)
    expected = finite_difference_gradients(Q, K, V, grad_output, mask=mask, scale=scale)
    for name, g, e, x in zip(("dQ", "dK", "dV"), got, expected, (Q, K, V)):
        assert g.shape == x.shape, name
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-7, err_msg=name)


def test_gradients_match_finite_differences_without_a_mask():
    rng = np.random.default_rng(21)
    Q, K, V = rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), rng.normal(size=(5, 2))
    assert_matches_finite_differences(Q, K, V, rng.normal(size=(3, 2)))


def test_gradients_with_a_causal_mask_and_a_given_scale():
    rng = np.random.default_rng(22)
    Q, K, V = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    assert_matches_finite_differences(Q, K, V, rng.normal(size=(4, 3)), mask=causal_mask(4), scale=0.8)


def test_gradients_with_broadcast_batch_axes_are_summed_back_to_each_input():
    rng = np.random.default_rng(23)
    Q = rng.normal(size=(2, 1, 3, 2))  # (2, 1, n, d_k)
    K = rng.normal(size=(3, 4, 2))  # (3, m, d_k): broadcasts over the first axis
    V = rng.normal(size=(4, 2))  # (m, d_v): shared by all six batch entries
    mask = np.ones((3, 1, 4), dtype=bool)  # (3, 1, m): per entry of K's batch axis, for every query
    mask[0, 0, 3] = mask[2, 0, 0] = False
    grad_output = rng.normal(size=(2, 3, 3, 2))  # the output's broadcast shape
    assert_matches_finite_differences(Q, K, V, grad_output, mask=mask)


def test_dv_is_the_weights_transposed_times_the_gradient():
    rng = np.random.default_rng(24)
    Q, K, V = rng.normal(size=(3, 2)), rng.normal(size=(4, 2)), rng.normal(size=(4, 2))
    grad_output = rng.normal(size=(3, 2))
    _, weights = attention(Q, K, V, return_weights=True)
    _, _, dV = attention_backward(Q, K, V, grad_output)
    for j in range(4):
        for c in range(2):
            assert dV[j, c] == pytest.approx(sum(weights[i, j] * grad_output[i, c] for i in range(3)), rel=1e-12)


def test_masked_keys_get_no_gradient():
    rng = np.random.default_rng(25)
    Q, K, V = rng.normal(size=(3, 2)), rng.normal(size=(4, 2)), rng.normal(size=(4, 2))
    keep = np.array([[True, True, False, True]])  # key 2 blocked for every query
    _, dK, dV = attention_backward(Q, K, V, rng.normal(size=(3, 2)), mask=keep)
    assert (dK[2] == 0).all() and (dV[2] == 0).all()
    assert (dK[[0, 1, 3]] != 0).any()


def test_no_queries_give_a_zero_gradient_for_keys_and_values():
    rng = np.random.default_rng(27)
    K, V = rng.normal(size=(4, 2)), rng.normal(size=(4, 3))
    dQ, dK, dV = attention_backward(np.zeros((0, 2)), K, V, np.zeros((0, 3)))
    assert dQ.shape == (0, 2)
    assert (dK == 0).all() and dK.shape == (4, 2) and (dV == 0).all() and dV.shape == (4, 3)


def test_float32_gradients_stay_float32():
    rng = np.random.default_rng(26)
    Q, K, V = (rng.normal(size=s).astype(np.float32) for s in [(3, 2), (4, 2), (4, 2)])
    grads = attention_backward(Q, K, V, np.ones((3, 2), dtype=np.float32))
    assert [g.dtype for g in grads] == [np.float32] * 3


small = st.floats(-3, 3, allow_nan=False, allow_infinity=False)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 3), st.integers(1, 4), st.integers(1, 3), st.integers(1, 2), st.data())
def test_gradients_match_finite_differences_for_random_shapes_and_masks(n, m, d_k, d_v, data):
    Q = data.draw(arrays(np.float64, (n, d_k), elements=small))
    K = data.draw(arrays(np.float64, (m, d_k), elements=small))
    V = data.draw(arrays(np.float64, (m, d_v), elements=small))
    grad_output = data.draw(arrays(np.float64, (n, d_v), elements=small))
    mask = data.draw(arrays(np.bool_, (n, m)))
    mask[:, 0] = True  # every query keeps key 0
    assert_matches_finite_differences(Q, K, V, grad_output, mask=mask)


def test_a_gradient_that_overflows_the_working_dtype_is_refused_naming_grad_output():
    Q, K, V = np.ones((1, 1), np.float32), np.ones((2, 1), np.float32), np.ones((2, 1), np.float32)
    with pytest.raises(ValueError, match=r"grad_output .*1e\+300.* float32"):
        attention_backward(Q, K, V, np.full((1, 1), 1e300))  # float64 1e300 is inf in float32


def test_gradients_that_overflow_raise_instead_of_coming_back_non_finite():
    Q, K = np.ones((1, 1), np.float32), np.array([[0.0], [1.0]], np.float32)
    V = np.array([[3e38], [-3e38]], np.float32)
    # the true dQ is about 3e41, beyond float32: an error that names dQ, never an inf or a NaN
    with pytest.raises(ValueError, match=r"^dQ overflowed float32"):
        attention_backward(Q, K, V, np.full((1, 1), 1e3, np.float32))


@pytest.mark.parametrize("bad, word", [(np.nan, "NaN"), (np.inf, "an infinite value")])
def test_nan_or_inf_in_grad_output(bad, word):
    grad = np.ones((n, d_v))
    grad[2, 0] = bad
    with pytest.raises(ValueError, match=rf"grad_output contains {word} at index \(2, 0\)"):
        attention_backward(Q, K, V, grad)


@pytest.mark.parametrize("shape", [(n, d_v + 1), (n + 1, d_v), (2, n, d_v), (d_v, n)])
def test_gradient_of_the_wrong_shape(shape):
    got = ", ".join(map(str, shape))
    with pytest.raises(ValueError, match=rf"grad_output must have the output's shape \(3, 2\) \(\.\.\., n, d_v\); "
                                          rf"got \({got}\)"):
        attention_backward(Q, K, V, np.ones(shape))


def test_gradient_with_one_dimension():
    expected = r"grad_output must have at least 2 dimensions \(\.\.\., n, d_v\); got shape \(6,\)"
    with pytest.raises(ValueError, match=expected):
        attention_backward(Q, K, V, np.ones(n * d_v))


def test_gradient_of_the_broadcast_output_shape_is_required():
    # Q (2, n, d_k) with K, V unbatched gives an output (2, n, d_v): a gradient (n, d_v) is not enough.
    with pytest.raises(ValueError, match=r"grad_output must have the output's shape \(2, 3, 2\)"):
        attention_backward(np.ones((2, n, d_k)), K, V, np.ones((n, d_v)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 5), m=st.integers(1, 5), masked=st.booleans())
def test_the_weights_of_the_forward_pass_give_the_same_gradients(seed, n, m, masked):
    """attention_backward(..., weights=P) with P from the forward pass is the recomputing backward pass."""
    rng = np.random.default_rng(seed)
    Q, K, V = rng.normal(size=(2, n, 3)), rng.normal(size=(2, m, 3)), rng.normal(size=(2, m, 4))
    grad = rng.normal(size=(2, n, 4))
    mask = causal_mask(n, m) | (np.arange(m) == 0) if masked else None
    _, P = attention(Q, K, V, mask=mask, return_weights=True)
    given_weights = attention_backward(Q, K, V, grad, mask=mask, weights=P)
    recomputed = attention_backward(Q, K, V, grad, mask=mask)
    for a, b in zip(given_weights, recomputed):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_the_weights_given_are_used_as_given():
    """Uniform weights in place of the softmax's: dV is P^T dO with those weights, not the real ones."""
    P = np.full((n, K.shape[0]), 1.0 / K.shape[0])
    grad = np.ones((n, d_v))
    _, _, dV = attention_backward(Q, K, V, grad, weights=P)
    np.testing.assert_allclose(dV, P.T @ grad)


@pytest.mark.parametrize("weights, words", [
    (np.ones((2, 2)), "(n, m)"),
    (np.full((n, K.shape[0]), 0.5), "sums to"),
    (-np.ones((n, K.shape[0])) / K.shape[0], "non-negative"),
])
def test_weights_that_are_not_the_forward_pass_s_are_refused_by_name(weights, words):
    with pytest.raises(ValueError, match="weights") as raised:
        attention_backward(Q, K, V, np.ones((n, d_v)), weights=weights)
    assert words in str(raised.value)
