"""check_attention against hand-written learner answers.

Each wrong answer below is written the way a learner writes it, independently of the checker's own table of
mistakes, so a checker that recognises nothing fails these tests; each right-but-unusual answer must pass.
"""

import math

import numpy as np
import pytest

import attn_lib
from attn_lib.exercises import check_attention


def kt(K):
    return np.swapaxes(K, -1, -2)  # (..., m, d_k) -> (..., d_k, m)


def row_softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def right_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ kt(K) / np.sqrt(d_k)  # (..., n, d_k) x (..., d_k, m) -> (..., n, m)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = row_softmax(scores)
    return weights @ V  # (..., n, m) x (..., m, d_v) -> (..., n, d_v)


# ----------------------------------------------------------------------------------------------- right answers


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
    assert "all 13 cases" in feedback.reason


# ----------------------------------------------------------------------------------------------- wrong answers


def learner(scores_fn=None, fill=-np.inf, after=None, softmax=row_softmax, mix=None, invert=False):
    """Build an attention function a learner might write, with one piece changed."""

    def fn(Q, K, V, mask=None):
        scores = scores_fn(Q, K) if scores_fn else Q @ kt(K) / np.sqrt(Q.shape[-1])
        if mask is not None and after is None:
            scores = np.where(~mask if invert else mask, scores, fill)
        weights = softmax(scores)
        if mask is not None and after is not None:
            weights = after(weights, mask)
        return mix(weights, Q, K, V) if mix else weights @ V

    return fn


def scores_times_mask(Q, K, V, mask=None):
    scores = Q @ kt(K) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores * mask
    return row_softmax(scores) @ V


def inverted_large_negative(Q, K, V, mask=None):
    scores = Q @ kt(K) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, -1e9, scores)  # blocks the allowed keys
    return row_softmax(scores) @ V


def naive_softmax(x):
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def squared_weights(Q, K, V, mask=None):
    scores = Q @ kt(K) / np.sqrt(Q.shape[-1])
    w = row_softmax(np.where(mask, scores, -np.inf) if mask is not None else scores) ** 2
    return (w / w.sum(axis=-1, keepdims=True)) @ V


def dot_T(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])  # .T reverses every axis of a batch
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    return row_softmax(scores) @ V


def bool_index(Q, K, V, mask=None):
    scores = Q @ kt(K) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores[~mask] = -np.inf  # needs mask.shape == scores.shape
    return row_softmax(scores) @ V


def mask_on_values(Q, K, V, mask=None):
    weights = row_softmax(Q @ kt(K) / np.sqrt(Q.shape[-1]))
    if mask is not None:
        keys = np.broadcast_to(mask, weights.shape).all(axis=-2)  # keys that every query may see
        V = V * keys[..., :, None]
    return weights @ V


def drop_last_key(Q, K, V, mask=None):
    m = K.shape[-2]
    return right_attention(Q, K[..., : m - 1, :], V[..., : m - 1, :], None if mask is None else mask[..., : m - 1])


def global_max_softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum(axis=-1, keepdims=True)


def softmax_axis1(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


ATTENTION_MISTAKES = {
    "no-scaling": (learner(lambda Q, K: Q @ kt(K)), "never divided by sqrt(d_k)"),
    "divide-by-dk": (learner(lambda Q, K: Q @ kt(K) / Q.shape[-1]), "instead of sqrt(d_k)"),
    "multiply-by-sqrt-dk": (learner(lambda Q, K: Q @ kt(K) * np.sqrt(Q.shape[-1])), "multiplied by sqrt(d_k)"),
    "d-model-scaling": (learner(lambda Q, K: Q @ kt(K) / np.sqrt(512)), "d_model = 512"),
    "hardcoded-dk": (learner(lambda Q, K: Q @ kt(K) / 8), "8 = sqrt(64)"),
    "dk-from-rows": (learner(lambda Q, K: Q @ kt(K) / np.sqrt(Q.shape[0])), "read from the wrong axis"),
    "scaled-by-dv": (
        lambda Q, K, V, mask=None: learner(lambda q, k: q @ kt(k) / np.sqrt(V.shape[-1]))(Q, K, V, mask),
        "read from V",
    ),
    "scaled-after-softmax": (
        learner(lambda Q, K: Q @ kt(K), mix=lambda w, Q, K, V: w / np.sqrt(Q.shape[-1]) @ V),
        "after the softmax",
    ),
    "transpose-batch": (dot_T, "reverses every axis"),
    "axis-1-on-batch": (learner(softmax=softmax_axis1), "axis=1"),
    "softmax-wrong-axis": (
        learner(softmax=lambda x: np.exp(x - x.max(axis=-2, keepdims=True))
                / np.exp(x - x.max(axis=-2, keepdims=True)).sum(axis=-2, keepdims=True)),
        "down each column",
    ),
    "softmax-whole-matrix": (learner(softmax=lambda x: np.exp(x - x.max()) / np.exp(x - x.max()).sum()),
                             "whole score matrix"),
    "softmax-no-keepdims": (
        learner(softmax=lambda x: np.exp(x - x.max(axis=-1, keepdims=True))
                / np.exp(x - x.max(axis=-1, keepdims=True)).sum(axis=-1)),
        "lost its axis",
    ),
    "max-wrong-axis": (
        learner(softmax=lambda x: np.exp(x - x.max(axis=-2, keepdims=True))
                / np.exp(x - x.max(axis=-2, keepdims=True)).sum(axis=-1, keepdims=True)),
        "each column's maximum",
    ),
    "no-division": (learner(softmax=lambda x: np.exp(x - x.max(axis=-1, keepdims=True))), "never divided"),
    "global-max": (learner(softmax=global_max_softmax), "one maximum shared by all queries"),
    "no-transpose": (learner(lambda Q, K: Q @ K / np.sqrt(Q.shape[-1])), "not by K transposed"),
    "scores-transposed": (learner(lambda Q, K: K @ kt(Q) / np.sqrt(Q.shape[-1])), "K Q^T"),
    "mixed-queries": (learner(mix=lambda w, Q, K, V: w @ Q), "rows of Q"),
    "mixed-keys": (learner(mix=lambda w, Q, K, V: w @ K), "rows of K"),
    "returned-weights": (learner(mix=lambda w, Q, K, V: w), "returns the weights"),
    "returned-scores": (lambda Q, K, V, mask=None: Q @ kt(K) / np.sqrt(Q.shape[-1]), "scaled scores"),
    "output-transposed": (learner(mix=lambda w, Q, K, V: kt(w @ V)), "transposed"),
    "mask-after-softmax": (learner(after=lambda w, mask: w * mask), "after the softmax"),
    "mask-on-values": (mask_on_values, "applies the mask to V"),
    "zero-then-renormalise": (learner(after=lambda w, mask: w * mask / (w * mask).sum(axis=-1, keepdims=True)),
                              "no blocked score is far above"),
    "mask-zero": (learner(fill=0.0), "instead of -inf"),
    "small-fill": (learner(fill=-10.0), "small finite number"),
    "inverted-mask": (learner(invert=True), "wrong way round"),
    "ignored-mask": (lambda Q, K, V, mask=None: right_attention(Q, K, V), "the mask changes nothing"),
    "mask-added": (
        lambda Q, K, V, mask=None: row_softmax(Q @ kt(K) / np.sqrt(Q.shape[-1]) + (0 if mask is None else mask))
        @ V,
        "adds the boolean mask",
    ),
    "boolean-index-broadcast": (bool_index, "boolean indexing"),
    "dropped-key": (drop_last_key, "leaves out one key"),
    "uniform-weights": (lambda Q, K, V, mask=None: learner(lambda q, k: 0 * (q @ kt(k)))(Q, K, V, mask), "uniform"),
    "naive-softmax-overflow": (learner(softmax=naive_softmax), "right on small scores"),
    "no-batch": (lambda Q, K, V, mask=None: np.stack([right_attention(q, k, v, mask) for q, k, v in zip(Q, K, V)])
                 if Q.ndim > 2 else right_attention(Q, K, V, mask), "leading (batch) axes"),
    "used-attn-lib": (lambda Q, K, V, mask=None: attn_lib.attention(Q, K, V, mask=mask), "attn_lib.attention"),
    "wrong-shape": (lambda Q, K, V, mask=None: right_attention(Q, K, V, mask)[None], "should have shape"),
    "non-finite-output": (
        # "average over the other keys": divides by 0 where a query has one allowed key
        lambda Q, K, V, mask=None: right_attention(Q, K, V, mask) / (np.sum(np.broadcast_to(
            mask, (Q @ kt(K)).shape), axis=-1)[..., None] - 1) * (np.sum(np.broadcast_to(
                mask, (Q @ kt(K)).shape), axis=-1)[..., None] - 1) if mask is not None else right_attention(Q, K, V),
        "NaN or inf",
    ),
    "not-an-average": (lambda Q, K, V, mask=None: 2 * right_attention(Q, K, V, mask), "weighted average"),
    "wrong-values": (squared_weights, "largest difference"),
}


@pytest.mark.parametrize("mistake", sorted(ATTENTION_MISTAKES))
def test_attention_mistake_is_recognised(mistake):
    fn, phrase = ATTENTION_MISTAKES[mistake]
    feedback = check_attention(fn)
    assert not feedback.passed
    assert feedback.mistake == mistake, feedback
    assert phrase in feedback.reason
    assert feedback.hint


def test_attention_mistakes_get_distinct_reasons():
    feedbacks = [check_attention(fn) for fn, _ in ATTENTION_MISTAKES.values()]
    assert len({f.mistake for f in feedbacks}) == len(ATTENTION_MISTAKES)
    assert len({f.reason for f in feedbacks}) == len(ATTENTION_MISTAKES)


@pytest.mark.parametrize(
    "fn, expected",
    [
        (scores_times_mask, "mask-zero"),
        (inverted_large_negative, "inverted-mask"),
        (learner(fill=-100.0), "small-fill"),
        (learner(softmax=lambda x: np.exp(x - x.max(axis=1, keepdims=True))
                 / np.exp(x - x.max(axis=1, keepdims=True)).sum(axis=-1, keepdims=True)), "axis-1-on-batch"),
        (learner(lambda Q, K: np.dot(Q, K.T) / np.sqrt(Q.shape[-1])), "transpose-batch"),
        (learner(lambda Q, K: Q @ np.transpose(K) / np.sqrt(Q.shape[-1])), "transpose-batch"),
        (learner(lambda Q, K: Q @ kt(K) / np.sqrt(Q.shape[1])), "dk-from-rows"),  # Q.shape[1] is n on a batch
        (lambda Q, K, V, mask=None: right_attention(Q, K[..., 1:, :], V[..., 1:, :],
                                                    None if mask is None else mask[..., 1:]), "dropped-key"),
        (lambda Q, K, V, mask=None: np.broadcast_to(V.mean(axis=-2, keepdims=True), Q.shape[:-1] + V.shape[-1:]),
         "uniform-weights"),
    ],
    ids=["times-mask", "minus-1e9-inverted", "fill-minus-100", "max-axis-1", "np-dot-T", "np-transpose",
         "shape-1", "drop-first-key", "mean-of-V"],
)
def test_attention_other_spellings_of_a_mistake(fn, expected):
    assert check_attention(fn).mistake == expected


def test_attention_two_mistakes_names_the_first_and_mentions_overflow():
    feedback = check_attention(learner(lambda Q, K: Q @ kt(K), softmax=naive_softmax))
    assert feedback.mistake == "no-scaling"
    assert "Also, on Q (4, 8), K (6, 8), V (6, 3) (scores as large as 1000) your answer has NaN" in feedback.reason


def test_2d_only_answer_with_another_mistake_names_that_mistake_and_the_batch():
    feedback = check_attention(learner(lambda Q, K: Q @ K.T))  # .T and no scaling
    assert feedback.mistake == "no-scaling"
    assert "Also, on" in feedback.reason and "batch" in feedback.reason


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
    check_attention(ATTENTION_MISTAKES["used-attn-lib"][0])
    assert attn_lib.attention is original
