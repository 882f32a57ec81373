"""Findings of the outside learner answers (issue 17) that cut across checkers: the one rule of what a function
problem may call, stated whenever a call is refused; masks of numbers; a single-number answer; an empty range."""

import numpy as np
import pytest

import attn_lib
from attn_lib.exercises import (check_attention, check_causal_mask, check_chunked_attention, check_dW_q,
                                check_masked_softmax, check_multihead, check_padding_mask, check_previous_token,
                                check_scaled_scores, check_scores, check_softmax, check_temperature_softmax)
from attn_lib.exercises._running import CALL_RULE

REFUSED = {
    "check_scores": (check_scores, lambda Q, K: attn_lib.scaled_scores(Q, K) * np.sqrt(Q.shape[-1])),
    "check_scaled_scores": (check_scaled_scores, lambda Q, K: attn_lib.scaled_scores(Q, K)),
    "check_softmax": (check_softmax, lambda x: attn_lib.softmax(x)),
    "check_temperature_softmax": (check_temperature_softmax, lambda scores, t: attn_lib.softmax(scores / t)),
    "check_masked_softmax": (check_masked_softmax, lambda scores, mask: attn_lib.attention(
        scores[..., None] * 0 + 1, scores[..., None] * 0 + 1, scores[..., None], mask=mask)),
    "check_causal_mask": (check_causal_mask, lambda n, m: attn_lib.causal_mask(n, m)),
    "check_padding_mask": (check_padding_mask, lambda lengths, m: attn_lib.padding_mask(lengths, m)),
    "check_attention": (check_attention, lambda Q, K, V, mask=None: attn_lib.attention(Q, K, V, mask=mask)),
    "check_chunked_attention": (check_chunked_attention, lambda Q, K, V, chunk_size: attn_lib.attention(Q, K, V)),
    "check_multihead": (check_multihead, lambda X_q, X_kv, W_q, W_k, W_v, W_o: attn_lib.MultiHeadAttention(
        X_q.shape[-1], len(W_q))(X_q, X_kv)),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_every_refused_call_states_the_one_rule_and_what_it_refuses_here(name):
    # Issue 17: 04 P7 refused attn_lib.softmax without saying so, while 06 P1 accepted it.
    checker, fn = REFUSED[name]
    feedback = checker(fn)
    assert feedback.mistake == "used-attn-lib", feedback
    reason = " ".join(feedback.reason.split())
    assert CALL_RULE in reason and "here that is attn_lib." in reason, reason


@pytest.mark.parametrize("checker, fn", [
    (check_causal_mask, lambda n, m: attn_lib.causal_mask(n, m)),
    (check_padding_mask, lambda lengths, m: attn_lib.padding_mask(lengths, m)),
])
def test_a_mask_problems_hint_names_mask_tools_not_the_softmaxs(checker, fn):
    hint = checker(fn).hint
    assert "np.exp" not in hint and "np.arange" in hint, hint


def test_attn_lib_softmax_is_allowed_where_the_rule_allows_it():
    def masked(scores, mask):
        return attn_lib.softmax(np.where(mask, scores, -np.inf))

    assert check_masked_softmax(masked).passed


@pytest.mark.parametrize("checker, fn", [
    (check_causal_mask, lambda n, m: np.tri(n, m)),
    (check_padding_mask, lambda lengths, m: (np.arange(m) < np.asarray(lengths)[:, None, None]).astype(float)),
])
def test_a_float_mask_is_told_what_a_float_mask_does(checker, fn):
    # Issue 17: a float mask was told "~ of an integer 1 is -2".
    feedback = checker(fn)
    assert feedback.mistake == "not-boolean" and "integer 1 is -2" not in feedback.reason, feedback
    assert "~mask on floats raises TypeError" in feedback.reason


def test_an_integer_mask_is_still_told_what_an_integer_mask_does():
    assert "integer 1 is -2" in check_causal_mask(lambda n, m: np.tri(n, m, dtype=int)).reason


def _previous_short_range(weights):
    n = weights.shape[-1]
    return np.mean([weights[..., i, i - 1] for i in range(1, n - 1)], axis=0)  # empty at n = 2


def test_a_nan_from_an_empty_range_gets_a_hint_about_an_empty_range_not_overflow():
    # Issue 17: the NaN of a mean over range(1, n - 1) at n = 2 got a hint about exp of large numbers first.
    feedback = check_previous_token(_previous_short_range)
    assert feedback.mistake == "non-finite-output", feedback
    assert feedback.hint.startswith("Look for 0/0: a mean or a division over nothing (an empty range")
    assert "first at []" not in feedback.reason and "(nan)" in feedback.reason


def test_a_single_wrong_number_is_not_described_as_entry_brackets():
    # Issue 17: a 0-d result was described as "entry [] of your ...".
    feedback = check_previous_token(lambda w: np.diagonal(w, -1, -2, -1).mean(-1) * 1.1)
    assert feedback.mistake == "wrong-values" and "entry []" not in feedback.reason, feedback
    assert "where it should be" in feedback.reason


def test_dW_q_exception_hint_is_its_own():
    def broken(X, K, d_scores):
        return X.reshape(-1, X.shape[-1]).T @ (d_scores @ K)[..., :1].reshape(-1, K.shape[-1])

    hint = check_dW_q(broken).hint
    assert "d_scores (..., n, m)" in hint and "V (..., m, d_v)" not in hint
