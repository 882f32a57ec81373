"""check_attention against hand-written learner answers: each right-but-unusual answer must pass; a missing mask
parameter, a fully masked row, an exception and a call of attn_lib.attention get their own words. (The mistakes
are tested in test_attention_mistakes.py.)
"""

import math

import numpy as np
import pytest

import attn_lib
from attn_lib.exercises import check_attention

from attention_styles import kt, right_attention, row_softmax


def einsum_attention(Q, K, V, mask=None):
    scores = np.einsum("...nd,...md->...nm", Q, K) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    return np.einsum("...nm,...md->...nd", row_softmax(scores), V)


def scale_queries_first(Q, K, V, mask=None):
    Q = Q / Q.shape[-1] ** 0.5
    scores = np.matmul(Q, K.swapaxes(-2, -1))
    return row_softmax(scores if mask is None else np.where(mask, scores, -np.inf)) @ V


def scale_keys_first(Q, K, V, mask=None):
    scores = Q @ kt(K * (1 / np.sqrt(K.shape[-1])))
    return row_softmax(np.where(mask, scores, -np.inf) if mask is not None else scores) @ V


def float32_attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(a, dtype=np.float32) for a in (Q, K, V))
    return right_attention(Q, K, V, mask)


def fill_minus_1e9(Q, K, V, mask=None):
    scores = Q @ kt(K) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -1e9)
    return row_softmax(scores) @ V


def boolean_index_broadcast(Q, K, V, mask=None):
    scores = Q @ kt(K) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores[~np.broadcast_to(mask, scores.shape)] = -np.inf
    return row_softmax(scores) @ V


def logsumexp_attention(Q, K, V, mask=None):
    scores = Q @ kt(K) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    top = scores.max(axis=-1, keepdims=True)
    log_weights = scores - top - np.log(np.exp(scores - top).sum(axis=-1, keepdims=True))
    return np.exp(log_weights) @ V


def loops_attention(Q, K, V, mask=None):
    """Plain Python loops over every batch index, query and key."""
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    n, m, d_k, d_v = Q.shape[-2], K.shape[-2], Q.shape[-1], V.shape[-1]
    Q = np.broadcast_to(Q, batch + (n, d_k))
    K = np.broadcast_to(K, batch + (m, d_k))
    V = np.broadcast_to(V, batch + (m, d_v))
    allowed = np.ones(batch + (n, m), dtype=bool) if mask is None else np.broadcast_to(mask, batch + (n, m))
    out = np.zeros(batch + (n, d_v))
    for b in np.ndindex(batch):
        for i in range(n):
            scores = [sum(Q[b][i, t] * K[b][j, t] for t in range(d_k)) / math.sqrt(d_k) if allowed[b][i, j]
                      else -math.inf for j in range(m)]
            top = max(scores)
            exps = [math.exp(s - top) for s in scores]
            total = sum(exps)
            for j in range(m):
                out[b][i] += exps[j] / total * V[b][j]
    return out


def transpose_with_axes(Q, K, V, mask=None):
    axes = list(range(K.ndim))
    axes[-1], axes[-2] = axes[-2], axes[-1]
    scores = Q @ K.transpose(axes) / np.sqrt(Q.shape[-1])
    return row_softmax(scores if mask is None else np.where(mask, scores, -np.inf)) @ V


def additive_mask_inside(Q, K, V, mask=None):
    scores = Q @ np.moveaxis(K, -1, -2) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores + np.where(mask, 0.0, -np.inf)
    return row_softmax(scores) @ V


def dk_from_keys(Q, K, V, mask=None):
    d_k = K.shape[-1]
    scores = np.matmul(Q, kt(K)) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(np.logical_not(mask), -np.inf, scores)
    weights = np.exp(scores - np.amax(scores, axis=-1, keepdims=True))
    return np.divide(weights, np.sum(weights, axis=-1, keepdims=True)) @ V


def mask_none_keyword_only(Q, K, V, *, mask=None):
    return right_attention(Q, K, V, mask)


def masked_fill_finfo(Q, K, V, mask=None):
    scores = Q @ kt(K) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, np.finfo(scores.dtype).min)
    return row_softmax(scores) @ V


def weights_then_tensordot_free(Q, K, V, mask=None):
    scores = (Q[..., :, None, :] * K[..., None, :, :]).sum(axis=-1) / np.sqrt(Q.shape[-1])  # broadcast products
    weights = row_softmax(scores if mask is None else np.where(mask, scores, -np.inf))
    return (weights[..., :, :, None] * V[..., None, :, :]).sum(axis=-2)


def uses_attn_lib_softmax(Q, K, V, mask=None):
    scores = attn_lib.scaled_scores(Q, K)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    return attn_lib.softmax(scores) @ V


def nan_to_num_fully_masked(Q, K, V, mask=None):
    return np.nan_to_num(right_attention(Q, K, V, mask))


ATTENTION_RIGHT = [right_attention, einsum_attention, scale_queries_first, scale_keys_first, float32_attention,
                   fill_minus_1e9, boolean_index_broadcast, logsumexp_attention, loops_attention,
                   transpose_with_axes, additive_mask_inside, dk_from_keys, mask_none_keyword_only,
                   masked_fill_finfo, weights_then_tensordot_free, uses_attn_lib_softmax, nan_to_num_fully_masked]


@pytest.mark.parametrize("fn", ATTENTION_RIGHT, ids=lambda f: f.__name__)
def test_right_but_unusual_attention_passes(fn):
    feedback = check_attention(fn)
    assert feedback.passed, feedback
    assert feedback.mistake is None
    assert "all 15 cases" in feedback.reason


def test_attention_without_mask_parameter_gets_a_clear_reason():
    def no_mask(Q, K, V):
        return right_attention(Q, K, V)

    feedback = check_attention(no_mask)
    assert feedback.mistake == "no-mask-parameter"
    assert "mask=..." in feedback.reason and "no_mask(Q, K, V)" in feedback.reason
    assert "mask=None" in feedback.hint


def test_attention_without_mask_parameter_and_wrong_reports_the_wrong_part():
    def no_mask_no_scale(Q, K, V):
        return row_softmax(Q @ kt(K)) @ V

    assert check_attention(no_mask_no_scale).mistake == "no-scaling"


def test_attention_fully_masked_row_nan_is_a_note_not_a_failure():
    feedback = check_attention(right_attention)  # -inf everywhere in a row: 0/0
    assert feedback.passed
    assert "every key of a query is blocked" in feedback.reason
    assert "every key of a query is blocked" not in check_attention(nan_to_num_fully_masked).reason


def test_attention_learner_exception_names_exception_and_line():
    def typo(Q, K, V, mask=None):
        scores = Q @ kt(K) / np.sqrt(d_k)  # noqa: F821  (the learner forgot to define d_k)
        return row_softmax(scores) @ V

    feedback = check_attention(typo)
    assert feedback.mistake == "exception"
    assert "NameError" in feedback.reason and "d_k" in feedback.reason
    assert "test_check_attention.py" in feedback.reason
    assert "scores = Q @ kt(K) / np.sqrt(d_k)" in feedback.reason
    assert "Traceback" not in repr(feedback)


def test_attention_forbidden_call_is_restored_afterwards():
    original = attn_lib.attention
    check_attention(lambda Q, K, V, mask=None: attn_lib.attention(Q, K, V, mask=mask))
    assert attn_lib.attention is original


def test_float32_einsum_passes_where_cancellation_makes_the_output_small():
    # On the case with every score near -30000, one float32 rounding of a score moves the weights by about 1e-3
    # (relative), and the output, small by cancellation, by about 1e-3 too: right to float32's rounding.
    def float32_einsum(Q, K, V, mask=None):
        Q, K, V = (np.asarray(a, dtype=np.float32) for a in (Q, K, V))
        scores = np.einsum("...nd,...md->...nm", Q, K) / np.float32(np.sqrt(Q.shape[-1]))
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        return (e / e.sum(axis=-1, keepdims=True)) @ V

    feedback = check_attention(float32_einsum)
    assert feedback.passed, feedback


def test_attention_slightly_too_large_cast_to_float16_does_not_pass():
    # Issue 17: judged at the answer's dtype, a float16 output 1.5 % too large passed (float16's 2 % tolerance).
    feedback = check_attention(lambda Q, K, V, mask=None: (right_attention(Q, K, V, mask) * 1.015).astype(np.float16))
    assert not feedback.passed and feedback.mistake != "low-precision", feedback
    rounded = check_attention(lambda Q, K, V, mask=None: right_attention(Q, K, V, mask).astype(np.float16))
    assert rounded.mistake == "low-precision", rounded


def test_a_finite_fill_passes_with_a_note_on_fully_blocked_rows():
    # The review (08 P10): -inf answers got a note about fully blocked rows, a -1e9 fill none.
    def fill_minus_1e9(Q, K, V, mask=None):
        scores = Q @ kt(K) / np.sqrt(Q.shape[-1])
        return row_softmax(scores if mask is None else np.where(mask, scores, -1e9)) @ V

    feedback = check_attention(fill_minus_1e9)
    assert feedback.passed and "finite number" in feedback.reason and "must not see" in feedback.reason, feedback


def test_a_returned_tuple_gets_a_hint():
    # The review (08 P8, P10): returned-tuple failed with an empty hint.
    def with_weights(Q, K, V, mask=None):
        scores = Q @ kt(K) / np.sqrt(Q.shape[-1])
        weights = row_softmax(scores if mask is None else np.where(mask, scores, -np.inf))
        return weights @ V, weights

    feedback = check_attention(with_weights)
    assert feedback.mistake == "returned-tuple" and "return a, b" in feedback.hint, feedback


def test_exponentials_zeroed_by_the_mask_are_zero_then_renormalise_not_max_before_mask():
    # As in check_masked_softmax (review 06 P1): no -inf anywhere, so not "puts -inf in the blocked scores".
    def exp_times_mask(Q, K, V, mask=None):
        scores = Q @ kt(K) / np.sqrt(Q.shape[-1])
        e = np.exp(scores - scores.max(axis=-1, keepdims=True)) * (1.0 if mask is None else mask)
        return e / e.sum(axis=-1, keepdims=True) @ V

    feedback = check_attention(exp_times_mask)
    assert feedback.mistake == "zero-then-renormalise", feedback
