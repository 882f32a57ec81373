"""check_cross_attention: each hand-written wrong answer gets its own mistake; unusual right answers pass."""

import numpy as np
import pytest

from attn_lib import MultiHeadAttention, attention, causal_mask, softmax
from attn_lib.exercises import check_cross_attention


def rows_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def head(Q, K, V, scale=None, axis=-1, mask=None):
    scores = Q @ np.swapaxes(K, -1, -2) / (np.sqrt(Q.shape[-1]) if scale is None else scale)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    return rows_softmax(scores, axis=axis) @ V


def einsum_head(X_dec, X_enc, W_q, W_k, W_v):
    Q = np.einsum("...nd,dk->...nk", X_dec, W_q)
    K = np.einsum("...md,dk->...mk", X_enc, W_k)
    V = np.einsum("...md,dv->...mv", X_enc, W_v)
    scores = np.einsum("...nk,...mk->...nm", Q, K) / np.sqrt(K.shape[-1])
    return np.einsum("...nm,...mv->...nv", softmax(scores), V)


def float32_head(X_dec, X_enc, W_q, W_k, W_v):
    f = [x.astype(np.float32) for x in (X_dec, X_enc, W_q, W_k, W_v)]
    return head(f[0] @ f[2], f[1] @ f[3], f[1] @ f[4])


RIGHT = {
    "attn_lib attention": lambda X_dec, X_enc, W_q, W_k, W_v: attention(X_dec @ W_q, X_enc @ W_k, X_enc @ W_v),
    "swapaxes by hand": lambda X_dec, X_enc, W_q, W_k, W_v: head(X_dec @ W_q, X_enc @ W_k, X_enc @ W_v),
    "einsum throughout": einsum_head,
    "matmul with transpose of the last two axes": lambda X_dec, X_enc, W_q, W_k, W_v: softmax(
        np.matmul(X_dec @ W_q, np.moveaxis(X_enc @ W_k, -1, -2)) / W_k.shape[1] ** 0.5) @ (X_enc @ W_v),
    "float32": float32_head,
}


@pytest.mark.parametrize("name", RIGHT)
def test_right_answers_pass_with_a_reason(name):
    feedback = check_cross_attention(RIGHT[name])
    assert feedback.passed, (name, str(feedback))
    assert "encoder's output" in feedback.reason and "(..., n, m)" in feedback.reason


def kv_from_decoder_2d(X_dec, X_enc, W_q, W_k, W_v):
    """The bug 07 shows: the cross-attention built from the self-attention's inputs, and K.T."""
    Q, K, V = X_dec @ W_q, X_dec @ W_k, X_dec @ W_v
    return softmax(Q @ K.T / np.sqrt(K.shape[-1])) @ V


WRONG = [
    ("kv-from-decoder", lambda X_dec, X_enc, W_q, W_k, W_v: attention(X_dec @ W_q, X_dec @ W_k, X_dec @ W_v)),
    ("kv-from-decoder", kv_from_decoder_2d),
    ("queries-from-encoder", lambda X_dec, X_enc, W_q, W_k, W_v: attention(X_enc @ W_q, X_dec @ W_k,
                                                                           X_dec @ W_v)),
    ("shared-projection", lambda X_dec, X_enc, W_q, W_k, W_v: attention(X_dec @ W_q, X_enc @ W_q, X_enc @ W_v)),
    ("causal-mask", lambda X_dec, X_enc, W_q, W_k, W_v: attention(
        X_dec @ W_q, X_enc @ W_k, X_enc @ W_v, mask=causal_mask(X_dec.shape[-2], X_enc.shape[-2]))),
    ("transpose-on-batch", lambda X_dec, X_enc, W_q, W_k, W_v: softmax(
        (X_dec @ W_q) @ (X_enc @ W_k).T / np.sqrt(W_k.shape[1])) @ (X_enc @ W_v)),
    ("scaled-by-dv", lambda X_dec, X_enc, W_q, W_k, W_v: head(X_dec @ W_q, X_enc @ W_k, X_enc @ W_v,
                                                              scale=np.sqrt(W_v.shape[1]))),
    ("d-model-scaling", lambda X_dec, X_enc, W_q, W_k, W_v: head(X_dec @ W_q, X_enc @ W_k, X_enc @ W_v,
                                                                 scale=np.sqrt(X_dec.shape[-1]))),
    ("no-scaling", lambda X_dec, X_enc, W_q, W_k, W_v: head(X_dec @ W_q, X_enc @ W_k, X_enc @ W_v, scale=1.0)),
    ("returned-weights", lambda X_dec, X_enc, W_q, W_k, W_v: attention(
        X_dec @ W_q, X_enc @ W_k, X_enc @ W_v, return_weights=True)[1]),
    ("softmax-wrong-axis", lambda X_dec, X_enc, W_q, W_k, W_v: head(X_dec @ W_q, X_enc @ W_k, X_enc @ W_v,
                                                                    axis=-2)),
    ("used-attn-lib", lambda X_dec, X_enc, W_q, W_k, W_v: MultiHeadAttention(X_dec.shape[-1], 1)(X_dec, X_enc)),
    ("wrong-signature", lambda X_dec, X_enc: X_dec),
]


@pytest.mark.parametrize("expected, fn", WRONG, ids=[f"{i}-{m}" for i, (m, _) in enumerate(WRONG)])
def test_each_wrong_answer_gets_its_own_reason(expected, fn):
    feedback = check_cross_attention(fn)
    assert not feedback.passed
    assert feedback.mistake == expected, str(feedback)


def test_placeholder_is_not_answered():
    def stub(X_dec, X_enc, W_q, W_k, W_v):
        raise NotImplementedError

    assert check_cross_attention(stub).verdict == "Not answered yet"
    assert check_cross_attention(None).verdict == "Not answered yet"


def test_the_same_answer_gets_the_same_words():
    assert str(check_cross_attention(kv_from_decoder_2d)) == str(check_cross_attention(kv_from_decoder_2d))


# ------------------------------------------------------------------------------- learner review (07 P5)


@pytest.mark.parametrize("fn, mistake, words", [
    (lambda X_dec, X_enc, W_q, W_k, W_v: head(X_dec @ W_q, X_enc @ W_k, X_enc @ W_v, scale=W_k.shape[-1]),
     "divide-by-dk", "instead of sqrt(d_k)"),
    (lambda X_dec, X_enc, W_q, W_k, W_v: head(X_dec @ W_q, X_enc @ W_k, X_enc @ W_v, mask=np.tri(
        X_dec.shape[-2], X_enc.shape[-2], k=X_enc.shape[-2] - X_dec.shape[-2], dtype=bool)),
     "causal-mask", "bottom-right"),
    (lambda X_dec, X_enc, W_q, W_k, W_v: head(X_dec @ W_q, X_enc @ W_k, X_dec @ W_v),
     "values-from-decoder", "Your keys come from X_enc, but your values from X_dec"),
    (lambda X_dec, X_enc, W_q, W_k, W_v: head(X_dec @ W_q, X_dec @ W_k, X_enc @ W_v),
     "keys-from-decoder", "Your values come from X_enc, but your keys from X_dec"),
], ids=["divided by d_k", "bottom-right causal mask", "values from X_dec", "keys from X_dec"])
def test_review_07_p5_mistakes_are_named(fn, mistake, words):
    # The review: d_k and the bottom-right mask got wrong-values; values alone from X_dec were told "keys and values".
    feedback = check_cross_attention(fn)
    assert feedback.mistake == mistake and words in feedback.reason, str(feedback)
    assert "keys and values come from X_dec" not in feedback.reason
