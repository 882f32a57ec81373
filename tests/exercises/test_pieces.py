"""The learner-style pieces the mistaken variants are built from: they behave as a learner's code would."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attn_lib import softmax
from attn_lib.exercises._pieces import (
    bool_index_blocked,
    global_max_softmax,
    attention_out,
    row_softmax,
    softmax_whole,
    uniform_weights,
)


@settings(max_examples=30, deadline=None)
@given(arrays(float, st.tuples(st.integers(1, 3), st.integers(1, 4), st.integers(1, 5)),
              elements=st.floats(-50, 50)))
def test_softmax_agrees_with_attn_lib_on_any_batch(x):
    np.testing.assert_allclose(row_softmax(x), softmax(x), rtol=1e-12, atol=1e-15)


def test_a_row_whose_keys_are_all_blocked_gives_nan_as_a_learners_would():
    with np.errstate(invalid="ignore"):
        weights = row_softmax(np.array([[0.0, 1.0], [-np.inf, -np.inf]]))
    assert np.isfinite(weights[0]).all() and np.isnan(weights[1]).all()


def test_one_maximum_for_the_whole_array_underflows_a_row_far_below_it():
    with np.errstate(invalid="ignore"):
        weights = global_max_softmax(np.array([[0.0, 1.0], [1000.0, 1001.0]]))
    assert np.isnan(weights[0]).all() and np.isfinite(weights[1]).all()


def test_whole_array_softmax_sums_to_one_over_everything_and_uniform_ignores_scores():
    x = np.array([[0.0, 1.0, 2.0], [3.0, -np.inf, 1.0]])
    assert np.isclose(softmax_whole(np.where(np.isfinite(x), x, 0.0)).sum(), 1.0)
    np.testing.assert_allclose(uniform_weights(x), [[1 / 3] * 3, [0.5, 0.0, 0.5]])


def test_boolean_indexing_fails_on_a_mask_that_only_broadcasts():
    scores = np.zeros((2, 3))
    with pytest.raises(IndexError):
        bool_index_blocked(scores, np.array([[True, True, False]]))
    assert np.isneginf(bool_index_blocked(scores, np.array([[True, True, False]] * 2))[:, 2]).all()


def test_attention_piece_matches_the_equation_on_a_batch():
    rng = np.random.default_rng(0)
    Q, K, V = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 5, 4)), rng.normal(size=(2, 5, 2))
    scores = Q @ np.swapaxes(K, -1, -2) / 2.0  # d_k = 4
    np.testing.assert_allclose(attention_out(Q, K, V), softmax(scores) @ V)
