"""check_attention's table of mistakes against hand-written learner answers.

Each wrong answer below is written the way a learner writes it, independently of the checker's own table of
mistakes, so a checker that recognises nothing fails these tests.
"""

import numpy as np
import pytest

import attn_lib
from attn_lib.exercises import check_attention

from attention_styles import kt, right_attention, row_softmax


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


# ----------------------------------------------------------------------------------------------- findings


@pytest.mark.parametrize("fill", [-320.0, -1000.0, -1e4])
def test_any_finite_fill_a_learner_types_is_small_fill(fill):
    assert check_attention(learner(fill=fill)).mistake == "small-fill"


def test_maximum_of_the_unmasked_scores_is_max_before_mask():
    def max_before(Q, K, V, mask=None):
        scores = Q @ kt(K) / np.sqrt(Q.shape[-1])
        blocked = scores if mask is None else np.where(mask, scores, -np.inf)
        e = np.exp(blocked - scores.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True) @ V

    assert check_attention(max_before).mistake == "max-before-mask"
