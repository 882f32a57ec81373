"""F16 as laws: without positions attention is permutation-equivariant; a causal mask or added positions break it.

Notebook 07 shows these on one sequence per seed; here they hold for any sizes and any permutation (hypothesis).
(Reordering the keys and values alone changes nothing: tests/test_attention.py.)
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_lib import MultiHeadAttention, attention, causal_mask


@st.composite
def sequence_and_order(draw, max_n=7):
    n = draw(st.integers(1, max_n))
    seed = draw(st.integers(0, 2**32 - 1))
    order = np.array(draw(st.permutations(range(n))), dtype=int)
    return np.random.default_rng(seed), n, order


@settings(max_examples=60, deadline=None)
@given(sequence_and_order(), st.integers(1, 5), st.integers(1, 4))
def test_self_attention_outputs_permute_with_the_rows_of_X(case, d_k, d_v):
    rng, n, order = case
    Q, K = rng.normal(size=(2, n, d_k))
    V = rng.normal(size=(n, d_v))
    np.testing.assert_allclose(attention(Q[order], K[order], V[order]), attention(Q, K, V)[order], atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(sequence_and_order(max_n=6))
def test_multi_head_attention_is_permutation_equivariant_without_positions(case):
    rng, n, order = case
    mha = MultiHeadAttention(d_model=8, heads=2, rng=rng)
    X = rng.normal(size=(n, 8))
    np.testing.assert_allclose(mha(X[order]), mha(X)[order], atol=1e-12)


def test_added_positions_break_equivariance():
    rng = np.random.default_rng(0)
    mha = MultiHeadAttention(d_model=16, heads=2, rng=rng)
    X, P = rng.normal(size=(2, 6, 16))
    order = np.array([3, 0, 5, 1, 4, 2])
    assert np.abs(mha(X[order] + P) - mha(X + P)[order]).max() > 0.1


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 7), st.integers(0, 2**32 - 1))
def test_a_causal_mask_keeps_outputs_after_a_swap_of_the_first_two_tokens_and_changes_theirs(n, seed):
    """07 Problem 6: queries 2..n-1 see the same set of tokens after the swap; the two swapped tokens do not."""
    rng = np.random.default_rng(seed)
    mha = MultiHeadAttention(d_model=8, heads=2, rng=rng)
    X = rng.normal(size=(n, 8))
    swap = np.r_[1, 0, 2:n]
    before = mha(X, mask=causal_mask(n))
    after = mha(X[swap], mask=causal_mask(n))[swap]  # back in token order
    np.testing.assert_allclose(after[2:], before[2:], atol=1e-12)
    assert np.abs(after[:2] - before[:2]).max() > 1e-6
