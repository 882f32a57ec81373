"""Findings of the outside learner answers (issue 17) that cut across checkers: the one rule of what a function
problem may call, stated whenever a call is refused; masks of numbers; a single-number answer; an empty range."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attn_lib
from attn_lib.exercises import (check_attention, check_causal_mask, check_chunked_attention, check_dW_q,
                                check_masked_softmax, check_multihead, check_padding_mask, check_previous_token,
                                check_scaled_scores, check_scores, check_softmax, check_softmax_backward,
                                check_split_heads, check_temperature_softmax, check_weighted_average)
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
    # Issue 17: the NaN of a mean over range(1, n - 1) at n = 2 got a hint about exp of large numbers first. That
    # loop is now named for what it does (the checker's own mistake); a mean over another empty slice, which no
    # mistake describes, gets the empty-range hint.
    assert check_previous_token(_previous_short_range).mistake == "dropped-last-query"
    feedback = check_previous_token(lambda w: np.diagonal(w, -1, -2, -1)[..., 50:].mean(-1))
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


# ----------------------------------------------------------------- more learner answers, right in unusual styles

def _swap(a):
    return np.swapaxes(a, -1, -2)


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def _heads(X_q, X_kv, W_q, W_k, W_v):
    return [attn_lib.attention(X_q @ W_q[h], X_kv @ W_k[h], X_kv @ W_v[h]) for h in range(len(W_q))]


UNUSUAL_RIGHT = {
    "scores einsum ...ij,...kj": (check_scores, lambda Q, K: np.einsum("...ij,...kj->...ik", Q, K)),
    "scores broadcast and sum": (check_scores, lambda Q, K: (Q[..., :, None, :] * K[..., None, :, :]).sum(-1)),
    "scores np.vectorize": (check_scores, lambda Q, K: np.vectorize(lambda q, k: q @ k.T,
                                                                    signature="(n,d),(m,d)->(n,m)")(Q, K)),
    "softmax apply_along_axis": (check_softmax, lambda x: np.apply_along_axis(
        lambda r: np.exp(r - r.max()) / np.exp(r - r.max()).sum(), -1, x)),
    "softmax np.divide": (check_softmax, lambda x: np.divide(np.exp(x - np.max(x, axis=-1, keepdims=True)), np.sum(
        np.exp(x - np.max(x, axis=-1, keepdims=True)), axis=-1, keepdims=True))),
    "attention finfo.min fill": (check_attention, lambda Q, K, V, mask=None: _softmax(
        np.where(mask, Q @ _swap(K) / np.sqrt(Q.shape[-1]), np.finfo(float).min) if mask is not None
        else Q @ _swap(K) / np.sqrt(Q.shape[-1])) @ V),
    "attention additive log-mask": (check_attention, lambda Q, K, V, mask=None: _softmax(
        Q @ _swap(K) / np.sqrt(Q.shape[-1]) + (np.where(mask, 0.0, -np.inf) if mask is not None else 0.0)) @ V),
    "attention with attn_lib.softmax and scaled_scores": (check_attention, lambda Q, K, V, mask=None: attn_lib.softmax(
        attn_lib.scaled_scores(Q, K) if mask is None else np.where(mask, attn_lib.scaled_scores(Q, K), -np.inf)) @ V),
    "causal greater_equal.outer": (check_causal_mask, lambda n, m: np.greater_equal.outer(np.arange(n), np.arange(m))),
    "causal not triu": (check_causal_mask, lambda n, m: ~np.triu(np.ones((n, m), dtype=bool), k=1)),
    "causal array from a list of bools": (check_causal_mask,
                                          lambda n, m: np.array([[j <= i for j in range(m)] for i in range(n)])),
    "padding less.outer": (check_padding_mask, lambda lengths, m: np.less.outer(np.arange(m), lengths).T[:, None, :]),
    "padding reshape": (check_padding_mask, lambda lengths, m: np.arange(m)[None, None, :] < np.reshape(lengths,
                                                                                                       (-1, 1, 1))),
    "weighted np.vectorize dot": (check_weighted_average, lambda w, V: np.vectorize(
        np.dot, signature="(n,m),(m,d)->(n,d)")(w, V)),
    "split hsplit": (check_split_heads, lambda X, h: np.array(np.hsplit(X, h))),
    "split X.T reshape": (check_split_heads, lambda X, h: X.T.reshape(h, -1, X.shape[0]).transpose(0, 2, 1)),
    "temperature times 1/T": (check_temperature_softmax, lambda s, T: (lambda z: np.exp(z - z.max(-1, keepdims=True))
                              / np.exp(z - z.max(-1, keepdims=True)).sum(-1, keepdims=True))(s * (1 / T))),
    "backward einsum Jacobian": (check_softmax_backward, lambda S, P, dP: np.einsum(
        "...ij,...ijk->...ik", dP, np.einsum("...ij,jk->...ijk", P, np.eye(P.shape[-1]))
        - P[..., :, :, None] * P[..., :, None, :])),
    "dW_q tensordot over the leading axes": (check_dW_q, lambda X, K, d: np.tensordot(
        X, d @ K / np.sqrt(K.shape[-1]), axes=(list(range(X.ndim - 1)), list(range(X.ndim - 1))))),
    "multihead W_o split per head": (check_multihead, lambda X_q, X_kv, W_q, W_k, W_v, W_o: sum(
        out @ W_o[h * W_v.shape[-1]:(h + 1) * W_v.shape[-1]]
        for h, out in enumerate(_heads(X_q, X_kv, W_q, W_k, W_v)))),
    "multihead hstack": (check_multihead, lambda *a: np.hstack(_heads(*a[:5])) @ a[5]),
}


@pytest.mark.parametrize("name", sorted(UNUSUAL_RIGHT))
def test_right_answers_in_unusual_styles_pass(name):
    checker, fn = UNUSUAL_RIGHT[name]
    feedback = checker(fn)
    assert feedback.passed, feedback


# ----------------------------------------------------------------- more learner answers, wrong, each named

MORE_WRONG = {
    "softmax minus the row mean": (check_softmax, lambda x: np.exp(x - x.mean(-1, keepdims=True))
                                   / np.exp(x - x.mean(-1, keepdims=True)).sum(-1, keepdims=True), "subtract-min"),
    "softmax sum with no axis": (check_softmax, lambda x: np.exp(x - x.max(-1, keepdims=True))
                                 / np.exp(x - x.max(-1, keepdims=True)).sum(), "softmax-whole-matrix"),
    "sigmoid for softmax": (check_softmax, lambda x: 1 / (1 + np.exp(-x)), "rows-not-one"),
    "scores by np.inner on a batch": (check_scores, lambda Q, K: np.inner(Q, K), "dot-on-batch"),
    "attention zeroed then renormalised": (check_attention, lambda Q, K, V, mask=None: (lambda w: (
        w / w.sum(-1, keepdims=True)) @ V)(_softmax(Q @ _swap(K) / np.sqrt(Q.shape[-1])) * (
            mask if mask is not None else 1)), "zero-then-renormalise"),
    "causal strict lower triangle": (check_causal_mask, lambda n, m: np.tril(np.ones((n, m), bool), -1),
                                     "diagonal-blocked"),
    "padding j <= length": (check_padding_mask, lambda L, m: (np.arange(m) <= np.asarray(L)[:, None])[:, None, :],
                            "off-by-one"),
    "padding longest length for all": (check_padding_mask, lambda L, m: (np.arange(m) < max(L))[None, None, :].repeat(
        len(L), 0), "same-length-for-all"),
    "weighted V^T weights^T": (check_weighted_average, lambda w, V: _swap(V) @ _swap(w), "output-transposed"),
    "temperature as a power of the weights": (check_temperature_softmax, lambda s, T: _softmax(s) ** (1 / T),
                                              "power-after-softmax"),
    "backward P * dP": (check_softmax_backward, lambda S, P, dP: P * dP, "missing-row-sum"),
    "dW_q einsum with '...' only in the inputs": (check_dW_q, lambda X, K, d: np.einsum(
        "...nd,...nk->dk", X, d @ K) / np.sqrt(K.shape[-1]), "einsum-ellipsis-dropped"),
    "dW_q mean over the batch": (check_dW_q, lambda X, K, d: (_swap(X) @ (d @ K) / np.sqrt(K.shape[-1])).mean(
        axis=tuple(range(X.ndim - 2))), "batch-averaged"),
    "multihead mean of heads": (check_multihead, lambda *a: np.mean(_heads(*a[:5]), 0), "heads-summed"),
}


@pytest.mark.parametrize("name", sorted(MORE_WRONG))
def test_wrong_answers_in_other_styles_are_named(name):
    checker, fn, mistake = MORE_WRONG[name]
    feedback = checker(fn)
    assert feedback.mistake == mistake, feedback


# ----------------------------------------------------------------- laws: every answer of a family is right

@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_a_weighted_average_that_visits_the_keys_in_any_order_is_right(seed):
    # sum_j w[i, j] V[j] does not depend on the order of the keys: permuting the columns of the weights and the
    # rows of V together gives the same output.
    def permuted(weights, V):
        order = np.random.default_rng(seed).permutation(V.shape[-2])
        return weights[..., order] @ V[..., order, :]

    assert check_weighted_average(permuted).passed


@settings(max_examples=12, deadline=None)
@given(st.floats(-50, 50))
def test_a_softmax_of_rows_shifted_by_any_constant_is_right(c):
    # Adding a constant to a row changes no weight (F9): the shift may be any number that keeps the exps finite.
    def shifted(x):
        y = x - x.max(-1, keepdims=True) + c
        y = np.where(np.isneginf(x), -np.inf, y)
        e = np.exp(y)
        return e / e.sum(-1, keepdims=True)

    assert check_softmax(shifted).passed


@settings(max_examples=10, deadline=None)
@given(st.permutations(range(4)))
def test_multihead_heads_computed_in_any_order_then_concatenated_in_order_is_right(order):
    def any_order(X_q, X_kv, W_q, W_k, W_v, W_o):
        heads = len(W_q)
        outs = {}
        for h in [h for h in order if h < heads] + list(range(4, heads)):
            outs[h] = attn_lib.attention(X_q @ W_q[h], X_kv @ W_k[h], X_kv @ W_v[h])
        return np.concatenate([outs[h] for h in range(heads)], axis=-1) @ W_o

    assert check_multihead(any_order).passed


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 6))
def test_a_causal_mask_built_from_any_offset_comparison_is_right(k):
    # j <= i is (i + k) - j >= k for every k: the same pattern written with shifted indices.
    assert check_causal_mask(lambda n, m: (np.arange(n)[:, None] + k) - np.arange(m)[None, :] >= k).passed


def test_scores_computed_in_float16_throughout_are_named_low_precision():
    feedback = check_scores(lambda Q, K: Q.astype(np.float16) @ _swap(K.astype(np.float16)))
    assert feedback.mistake == "low-precision", feedback


def test_a_softmax_computed_in_float16_is_told_it_is_float16_beside_its_other_trouble():
    feedback = check_softmax(lambda x: _softmax(x.astype(np.float16)))
    assert not feedback.passed and "float16, which keeps about 3 significant digits" in feedback.reason, feedback
