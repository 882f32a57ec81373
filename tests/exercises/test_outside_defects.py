"""Defects found by outside answers (issue 24): each answer below passed, or got a mistake it did not make, or
got only the symptom, before the fix its test names."""

import numpy as np

from attn_lib.exercises import (check_decode_step, check_dW_q, check_masked_softmax, check_scaled_scores,
                                check_softmax, check_weight_times_value, check_weighted_average)


def _floored_softmax(x):
    shifted = np.maximum(x - np.max(x, axis=-1, keepdims=True), -700)  # "no underflow": a floor at -700
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)


def test_a_softmax_that_floors_the_shifted_scores_gives_minus_inf_a_weight_that_is_not_zero():
    feedback = check_softmax(_floored_softmax)
    assert feedback.mistake == "neg-inf-not-zero", feedback
    assert "exactly 0" in feedback.reason


def _fill_700_below_the_max(scores, mask):
    top = np.max(np.where(mask, scores, -np.inf), axis=-1, keepdims=True)
    filled = np.where(mask, scores, top - 700)  # "far enough below": exp(-700) is about 1e-304
    e = np.exp(filled - top)
    return e / e.sum(axis=-1, keepdims=True)


def _masked_floored(scores, mask):
    return _floored_softmax(np.where(mask, scores, -np.inf))


def test_a_fill_700_below_the_rows_maximum_is_not_weight_zero():
    feedback = check_masked_softmax(_fill_700_below_the_max)
    assert feedback.mistake == "blocked-not-zero", feedback
    assert "exactly 0" in feedback.reason


def test_a_masked_softmax_that_floors_the_shifted_scores_is_not_weight_zero():
    assert check_masked_softmax(_masked_floored).mistake == "blocked-not-zero"


def test_lengths_laid_along_the_queries_are_not_told_they_ran_down_the_keys():
    # Both raise numpy's broadcast error; only the second takes the norm over the wrong axis.
    along_queries = check_weight_times_value(lambda weights, V: weights * np.linalg.norm(V, axis=-1)[..., :, None])
    over_keys = check_weight_times_value(lambda weights, V: weights * np.linalg.norm(V, axis=-2)[..., None, :])
    assert over_keys.mistake == "length-over-keys", over_keys
    assert along_queries.mistake == "lengths-along-queries", along_queries


def test_np_dot_in_a_comment_does_not_name_np_dot():
    def einsum_2d(weights, V):
        return np.einsum("nm,md->nd", weights, V)  # the same as np.dot(weights, V)

    feedback = check_weighted_average(einsum_2d)
    assert feedback.mistake == "einsum-2d-only", feedback


def test_subtracting_the_largest_absolute_value_is_not_called_the_minimum_or_mean():
    def abs_max(x):
        e = np.exp(x - np.max(np.abs(x), axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    feedback = check_softmax(abs_max)
    assert feedback.mistake == "subtract-abs-max", feedback
    assert "minimum" not in feedback.reason


def test_d_k_to_the_power_one_half_without_brackets_is_named():
    feedback = check_scaled_scores(lambda Q, K: Q @ np.swapaxes(K, -1, -2) / Q.shape[-1] ** 1 / 2)
    assert feedback.mistake == "power-precedence", feedback


def test_a_key_prepended_but_its_value_appended_is_named():
    def step(q, k, v, K_cache, V_cache):
        K_all = np.concatenate([k, K_cache], axis=-2)  # the new key first
        V_all = np.concatenate([V_cache, v], axis=-2)  # the new value last
        s = q @ np.swapaxes(K_all, -1, -2) / np.sqrt(q.shape[-1])
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True) @ V_all

    assert check_decode_step(step).mistake == "cache-order-mismatch"


def test_a_flipped_sign_in_dW_q_is_named():
    def flipped(X, K, d_scores):
        dQ = d_scores @ K / np.sqrt(K.shape[-1])
        return -np.einsum("...nd,...nk->dk", X, dQ)

    assert check_dW_q(flipped).mistake == "sign-flipped"


def test_np_dot_on_one_row_at_a_time_is_not_told_np_dot_pairs_the_sentences():
    # The batch fails in the loop's assignment, not as np.dot(weights, V) would: the habit is the 2-D loop.
    def rows(weights, V):
        out = np.zeros((weights.shape[0], V.shape[1]))
        for i in range(weights.shape[0]):
            out[i] = weights[i].dot(V)  # one query at a time
        return out

    feedback = check_weighted_average(rows)
    assert feedback.mistake == "no-batch", feedback
