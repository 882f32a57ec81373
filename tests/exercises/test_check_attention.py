"""check_attention, check_chunked_attention and check_split_heads against hand-written learner answers.

Each wrong answer below is written the way a learner writes it, independently of the checker's own table of
mistakes, so a checker that recognises nothing fails these tests.
"""

import numpy as np
import pytest

import attn_lib
from attn_lib.exercises import check_attention, check_chunked_attention, check_split_heads


# ----------------------------------------------------------------------------------------------- attention


def row_softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def right_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)  # (n, d_k) x (d_k, m) -> (n, m)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = row_softmax(scores)
    return weights @ V  # (n, m) x (m, d_v) -> (n, d_v)


def learner(scores_fn=None, fill=-np.inf, after=None, softmax=row_softmax, mix=None, invert=False):
    """Build an attention function a learner might write, with one piece changed."""

    def fn(Q, K, V, mask=None):
        scores = scores_fn(Q, K) if scores_fn else Q @ K.T / np.sqrt(Q.shape[-1])
        if mask is not None and after is None:
            scores = np.where(~mask if invert else mask, scores, fill)
        weights = softmax(scores)
        if mask is not None and after is not None:
            weights = after(weights, mask)
        return mix(weights, Q, K, V) if mix else weights @ V

    return fn


def scores_times_mask(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores * mask
    return row_softmax(scores) @ V


def inverted_large_negative(Q, K, V, mask=None):
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores[mask] = -1e9  # blocks the allowed keys
    return row_softmax(scores) @ V


def naive_softmax(x):
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def squared_weights(Q, K, V, mask=None):
    w = row_softmax(np.where(mask, Q @ K.T / np.sqrt(Q.shape[-1]), -np.inf) if mask is not None
                    else Q @ K.T / np.sqrt(Q.shape[-1])) ** 2
    return (w / w.sum(axis=-1, keepdims=True)) @ V


ATTENTION_MISTAKES = {
    "no-scaling": (learner(lambda Q, K: Q @ K.T), "never divided by sqrt(d_k)"),
    "divide-by-dk": (learner(lambda Q, K: Q @ K.T / Q.shape[-1]), "instead of sqrt(d_k)"),
    "multiply-by-sqrt-dk": (learner(lambda Q, K: Q @ K.T * np.sqrt(Q.shape[-1])), "multiplied by sqrt(d_k)"),
    "d-model-scaling": (learner(lambda Q, K: Q @ K.T / np.sqrt(512)), "d_model = 512"),
    "hardcoded-dk": (learner(lambda Q, K: Q @ K.T / 8), "8 = sqrt(64)"),
    "dk-from-rows": (learner(lambda Q, K: Q @ K.T / np.sqrt(Q.shape[0])), "read from the number of rows"),
    "scaled-by-dv": (
        lambda Q, K, V, mask=None: learner(lambda q, k: q @ k.T / np.sqrt(V.shape[1]))(Q, K, V, mask),
        "read from V",
    ),
    "scaled-after-softmax": (
        learner(lambda Q, K: Q @ K.T, mix=lambda w, Q, K, V: w / np.sqrt(Q.shape[-1]) @ V),
        "after the softmax",
    ),
    "softmax-wrong-axis": (
        learner(softmax=lambda x: np.exp(x - x.max(axis=0)) / np.exp(x - x.max(axis=0)).sum(axis=0)),
        "down each column",
    ),
    "softmax-whole-matrix": (learner(softmax=lambda x: np.exp(x) / np.exp(x).sum()), "whole score matrix"),
    "softmax-no-keepdims": (
        learner(softmax=lambda x: np.exp(x - x.max(axis=-1, keepdims=True))
                / np.exp(x - x.max(axis=-1, keepdims=True)).sum(axis=-1)),
        "lost its axis",
    ),
    "no-transpose": (learner(lambda Q, K: Q @ K / np.sqrt(Q.shape[-1])), "not by K transposed"),
    "scores-transposed": (learner(lambda Q, K: K @ Q.T / np.sqrt(Q.shape[-1])), "K Q^T"),
    "mixed-queries": (learner(mix=lambda w, Q, K, V: w @ Q), "rows of Q"),
    "mixed-keys": (learner(mix=lambda w, Q, K, V: w @ K), "rows of K"),
    "returned-weights": (learner(mix=lambda w, Q, K, V: w), "returns the weights"),
    "returned-scores": (lambda Q, K, V, mask=None: Q @ K.T / np.sqrt(Q.shape[-1]), "scaled scores"),
    "output-transposed": (learner(mix=lambda w, Q, K, V: (w @ V).T), "transposed"),
    "mask-after-softmax": (learner(after=lambda w, mask: w * mask), "after the softmax"),
    "mask-zero": (learner(fill=0.0), "instead of -inf"),
    "inverted-mask": (learner(invert=True), "wrong way round"),
    "ignored-mask": (lambda Q, K, V, mask=None: right_attention(Q, K, V), "the mask changes nothing"),
    "mask-added": (
        lambda Q, K, V, mask=None: row_softmax(Q @ K.T / np.sqrt(Q.shape[-1]) + (0 if mask is None else mask)) @ V,
        "adds the boolean mask",
    ),
    "naive-softmax-overflow": (learner(softmax=naive_softmax), "right on small scores"),
    "wrong-shape": (lambda Q, K, V, mask=None: right_attention(Q, K, V, mask)[None], "should have shape"),
    "non-finite-output": (
        # row 0 of a causal mask has one allowed key: "averaging over the other keys" divides by 0
        lambda Q, K, V, mask=None: right_attention(Q, K, V, mask) / (mask.sum(axis=1, keepdims=True) - 1)
        * (mask.sum(axis=1, keepdims=True) - 1) if mask is not None else right_attention(Q, K, V),
        "NaN or inf",
    ),
    "not-an-average": (lambda Q, K, V, mask=None: 2 * right_attention(Q, K, V, mask), "weighted average"),
    "wrong-values": (squared_weights, "largest difference"),
}


def test_right_attention_passes_and_attn_lib_too():
    for fn in (right_attention, attn_lib.attention):
        feedback = check_attention(fn)
        assert feedback.passed, feedback
        assert feedback.mistake is None
        assert "all 5 cases" in feedback.reason


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


@pytest.mark.parametrize("fn", [scores_times_mask, inverted_large_negative], ids=["times-mask", "minus-1e9"])
def test_attention_other_spellings_of_a_mistake(fn):
    expected = {"scores_times_mask": "mask-zero", "inverted_large_negative": "inverted-mask"}[fn.__name__]
    assert check_attention(fn).mistake == expected


def test_attention_masking_with_large_negative_number_passes():
    def fill_minus_1e9(Q, K, V, mask=None):
        scores = Q @ K.T / np.sqrt(Q.shape[-1])
        if mask is not None:
            scores = np.where(mask, scores, -1e9)
        return row_softmax(scores) @ V

    assert check_attention(fill_minus_1e9).passed


def test_attention_two_mistakes_names_the_first_and_mentions_overflow():
    feedback = check_attention(learner(lambda Q, K: Q @ K.T, softmax=naive_softmax))
    assert feedback.mistake == "no-scaling"
    assert "Also, on Q (4, 8), K (6, 8), V (6, 3), no mask, scores as large as 1000 your answer has NaN" in (
        feedback.reason
    )


def test_attention_without_mask_parameter_gets_a_clear_reason():
    def no_mask(Q, K, V):
        return right_attention(Q, K, V)

    feedback = check_attention(no_mask)
    assert feedback.mistake == "no-mask-parameter"
    assert "mask=mask" in feedback.reason and "no_mask(Q, K, V)" in feedback.reason
    assert "mask=None" in feedback.hint


def test_attention_without_mask_parameter_and_wrong_reports_the_wrong_part():
    def no_mask_no_scale(Q, K, V):
        return row_softmax(Q @ K.T) @ V

    assert check_attention(no_mask_no_scale).mistake == "no-scaling"


def test_attention_fully_masked_row_nan_is_a_note_not_a_failure():
    feedback = check_attention(right_attention)  # -inf everywhere in a row: 0/0
    assert feedback.passed
    assert "every key of a query is blocked" in feedback.reason
    assert "every key of a query is blocked" not in check_attention(attn_lib.attention).reason


def test_attention_learner_exception_names_exception_and_line():
    def typo(Q, K, V, mask=None):
        scores = Q @ K.T / np.sqrt(d_k)  # noqa: F821  (the learner forgot to define d_k)
        return row_softmax(scores) @ V

    feedback = check_attention(typo)
    assert feedback.mistake == "exception"
    assert "NameError" in feedback.reason and "d_k" in feedback.reason
    assert "test_check_attention.py" in feedback.reason
    assert "scores = Q @ K.T / np.sqrt(d_k)" in feedback.reason
    assert "Traceback" not in repr(feedback)


# ----------------------------------------------------------------------------------------------- chunked


def chunked(rescale_sum=True, rescale_out=True, divide=True, running_max=True, scale=True, whole_chunks=False,
            correction_power=1):
    """An online-softmax loop as a learner writes it, with one piece switched off."""

    def fn(Q, K, V, chunk_size):
        n, d_k = Q.shape
        m = K.shape[0]
        run_max = np.full((n, 1), -np.inf)
        run_sum = np.zeros((n, 1))
        run_out = np.zeros((n, V.shape[1]))
        starts = [k * chunk_size for k in range(m // chunk_size)] if whole_chunks else range(0, m, chunk_size)
        for start in starts:
            k_chunk, v_chunk = K[start:start + chunk_size], V[start:start + chunk_size]
            s = Q @ k_chunk.T / (np.sqrt(d_k) if scale else 1.0)
            if running_max:
                new_max = np.maximum(run_max, s.max(axis=1, keepdims=True))
                p = np.exp(s - new_max)
            else:
                new_max = run_max
                p = np.exp(s)
            corr = np.exp(correction_power * (run_max - new_max)) if running_max else 1.0
            run_sum = (run_sum * corr if rescale_sum else run_sum) + p.sum(axis=1, keepdims=True)
            run_out = (run_out * corr if rescale_out else run_out) + p @ v_chunk
            run_max = new_max
        return run_out / run_sum if divide else run_out

    return fn


def chunk_average(Q, K, V, chunk_size):
    outs = []
    for start in range(0, K.shape[0], chunk_size):
        outs.append(right_attention(Q, K[start:start + chunk_size], V[start:start + chunk_size]))
    return np.mean(outs, axis=0)


CHUNKED_MISTAKES = {
    "no-rescale": (chunked(rescale_sum=False, rescale_out=False), "exp(old_max - new_max)"),
    "rescale-sum-only": (chunked(rescale_out=False), "but not the running sum of value rows"),
    "rescale-output-only": (chunked(rescale_sum=False), "but not the running sum of exponentials"),
    "no-final-division": (chunked(divide=False), "never divided"),
    "chunk-average": (chunk_average, "normalises each chunk separately"),
    "drops-last-chunk": (chunked(whole_chunks=True), "drops the last"),
    "no-scaling": (chunked(scale=False), "never divided by sqrt(d_k)"),
    "no-running-max": (chunked(running_max=False), "without subtracting a running maximum"),
    "wrong-combination": (chunked(correction_power=2), "right when one chunk holds every key"),
    "wrong-shape": (lambda Q, K, V, chunk_size: chunked()(Q, K, V, chunk_size).T, "should have shape"),
}


def test_right_chunked_attention_passes():
    assert check_chunked_attention(chunked()).passed
    assert check_chunked_attention(attn_lib.chunked_attention).passed  # chunk_size passed by keyword


@pytest.mark.parametrize("mistake", sorted(CHUNKED_MISTAKES))
def test_chunked_mistake_is_recognised(mistake):
    fn, phrase = CHUNKED_MISTAKES[mistake]
    feedback = check_chunked_attention(fn)
    assert not feedback.passed
    assert feedback.mistake == mistake, feedback
    assert phrase in feedback.reason


def test_chunked_mistakes_get_distinct_reasons():
    feedbacks = [check_chunked_attention(fn) for fn, _ in CHUNKED_MISTAKES.values()]
    assert len({f.mistake for f in feedbacks}) == len(CHUNKED_MISTAKES)
    assert len({f.reason for f in feedbacks}) == len(CHUNKED_MISTAKES)


def test_chunked_positional_chunk_parameter_with_another_name():
    def fn(Q, K, V, size):
        return chunked()(Q, K, V, size)

    assert check_chunked_attention(fn).passed


# ----------------------------------------------------------------------------------------------- split heads


def split_right(X, heads):
    n, d_model = X.shape
    d_k = d_model // heads
    return X.reshape(n, heads, d_k).transpose(1, 0, 2)  # (n, heads, d_k) -> (heads, n, d_k)


def split_by_slicing(X, heads):
    d_k = X.shape[1] // heads
    return np.stack([X[:, h * d_k:(h + 1) * d_k] for h in range(heads)])


SPLIT_MISTAKES = {
    "no-transpose": (lambda X, heads: X.reshape(heads, X.shape[0], X.shape[1] // heads), "straight to"),
    "heads-last": (lambda X, heads: X.reshape(X.shape[0], heads, -1), "heads axis is not first"),
    "full-width": (lambda X, heads: np.stack([X] * heads), "d_model wide"),
    "interleaved-columns": (
        lambda X, heads: X.reshape(X.shape[0], -1, heads).transpose(2, 0, 1),
        "every heads-th column",
    ),
    "positions-last": (lambda X, heads: split_right(X, heads).transpose(0, 2, 1), "(heads, d_k, n)"),
    "wrong-shape": (lambda X, heads: X.reshape(heads, -1), "should have shape (heads, n, d_k)"),
    "wrong-values": (lambda X, heads: split_right(X, heads)[::-1], "should be X["),
}


@pytest.mark.parametrize("fn", [split_right, split_by_slicing])
def test_right_split_passes(fn):
    assert check_split_heads(fn).passed


@pytest.mark.parametrize("mistake", sorted(SPLIT_MISTAKES))
def test_split_mistake_is_recognised(mistake):
    fn, phrase = SPLIT_MISTAKES[mistake]
    feedback = check_split_heads(fn)
    assert not feedback.passed
    assert feedback.mistake == mistake, feedback
    assert phrase in feedback.reason


def test_split_mistakes_get_distinct_reasons():
    feedbacks = [check_split_heads(fn) for fn, _ in SPLIT_MISTAKES.values()]
    assert len({f.mistake for f in feedbacks}) == len(SPLIT_MISTAKES)
    assert len({f.reason for f in feedbacks}) == len(SPLIT_MISTAKES)


def test_split_wrong_values_names_the_source_entry():
    feedback = check_split_heads(SPLIT_MISTAKES["wrong-values"][0])
    assert "(that is X[" in feedback.reason
