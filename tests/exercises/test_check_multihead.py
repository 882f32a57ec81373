"""check_multihead: each hand-written wrong answer gets its own mistake; unusual right answers pass."""

import numpy as np
import pytest

from attn_lib import MultiHeadAttention, attention
from attn_lib.exercises import check_multihead


def softmax_rows(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def head(X_q, X_kv, W_q, W_k, W_v, scale=None, axis=-1):
    Q, K, V = X_q @ W_q, X_kv @ W_k, X_kv @ W_v
    scale = np.sqrt(W_q.shape[-1], dtype=W_q.dtype) if scale is None else scale  # keeps float32 inputs float32
    return softmax_rows(Q @ K.T / scale, axis=axis) @ V


def loop_heads(X_q, X_kv, W_q, W_k, W_v, **kw):
    return [head(X_q, X_kv, W_q[h], W_k[h], W_v[h], **kw) for h in range(len(W_q))]


def batched(X_q, X_kv, W_q, W_k, W_v, W_o):
    Q = np.einsum("nd,hdk->hnk", X_q, W_q)
    K = np.einsum("md,hdk->hmk", X_kv, W_k)
    V = np.einsum("md,hdv->hmv", X_kv, W_v)
    out = attention(Q, K, V)  # (heads, n, d_v)
    return out.transpose(1, 0, 2).reshape(X_q.shape[0], -1) @ W_o


def split_w_o(X_q, X_kv, W_q, W_k, W_v, W_o):
    d_v = W_v.shape[-1]
    return sum(o @ W_o[h * d_v:(h + 1) * d_v] for h, o in enumerate(loop_heads(X_q, X_kv, W_q, W_k, W_v)))


def wide_projection(X_q, X_kv, W_q, W_k, W_v, W_o):
    heads, d_model, d_k = W_q.shape
    n, m = X_q.shape[0], X_kv.shape[0]
    Q = (X_q @ np.concatenate(list(W_q), axis=1)).reshape(n, heads, d_k).swapaxes(0, 1)
    K = (X_kv @ np.concatenate(list(W_k), axis=1)).reshape(m, heads, d_k).swapaxes(0, 1)
    V = (X_kv @ np.concatenate(list(W_v), axis=1)).reshape(m, heads, -1).swapaxes(0, 1)
    out = softmax_rows(Q @ K.swapaxes(-1, -2) / np.sqrt(d_k)) @ V
    return np.hstack(list(out)) @ W_o


RIGHT = {
    "loop and concatenate": lambda *a: np.concatenate(loop_heads(*a[:5]), axis=-1) @ a[5],
    "attention per head, hstack": lambda X_q, X_kv, W_q, W_k, W_v, W_o: np.hstack(
        [attention(X_q @ W_q[h], X_kv @ W_k[h], X_kv @ W_v[h]) for h in range(len(W_q))]) @ W_o,
    "einsum and batched attention": batched,
    "W_o split into row blocks, summed": split_w_o,
    "one wide projection split into heads": wide_projection,
    "float32": lambda *a: (np.concatenate(loop_heads(*[x.astype(np.float32) for x in a[:5]]), axis=-1)
                           @ a[5].astype(np.float32)),
}

WRONG = [
    ("forgot-w-o", lambda *a: np.concatenate(loop_heads(*a[:5]), axis=-1)),
    ("returned-heads", lambda *a: np.stack(loop_heads(*a[:5]))),
    ("concat-wrong-axis", lambda *a: np.stack(loop_heads(*a[:5])).reshape(a[0].shape[0], -1) @ a[5]),
    ("concat-wrong-axis", lambda *a: np.stack(loop_heads(*a[:5]), axis=-1).reshape(a[0].shape[0], -1) @ a[5]),
    ("shared-projection", lambda X_q, X_kv, W_q, W_k, W_v, W_o: np.concatenate(
        [head(X_q, X_kv, W_q[0], W_k[0], W_v[0]) for _ in range(len(W_q))], axis=-1) @ W_o),
    ("shared-projection", lambda X_q, X_kv, W_q, W_k, W_v, W_o: np.concatenate(
        [head(X_q, X_kv, W_q[0], W_k[h], W_v[h]) for h in range(len(W_q))], axis=-1) @ W_o),
    ("heads-summed", lambda *a: sum(loop_heads(*a[:5]))),
    ("heads-summed", lambda *a: sum(loop_heads(*a[:5])) @ a[5][: a[4].shape[-1]]),
    ("w-o-transposed", lambda *a: np.concatenate(loop_heads(*a[:5]), axis=-1) @ a[5].T),
    ("queries-from-kv", lambda X_q, X_kv, W_q, W_k, W_v, W_o: np.concatenate(
        loop_heads(X_kv, X_q, W_q, W_k, W_v), axis=-1) @ W_o),
    ("d-model-scaling", lambda *a: np.concatenate(loop_heads(*a[:5], scale=np.sqrt(a[0].shape[1])), axis=-1) @ a[5]),
    ("no-scaling", lambda *a: np.concatenate(loop_heads(*a[:5], scale=1.0), axis=-1) @ a[5]),
    ("softmax-wrong-axis", lambda *a: np.concatenate(loop_heads(*a[:5], axis=0), axis=-1) @ a[5]),
    ("used-attn-lib", lambda X_q, X_kv, W_q, W_k, W_v, W_o: MultiHeadAttention(X_q.shape[1], len(W_q))(X_q, X_kv)),
    ("concat-axis-0", lambda *a: np.concatenate(loop_heads(*a[:5]), axis=0) @ a[5]),  # fails at W_o
    ("exception", lambda *a: a[2][len(a[2])]),  # one head too many: IndexError
    ("wrong-values", lambda *a: np.concatenate(loop_heads(*a[:5]), axis=-1) @ a[5] * 1.01),
    ("wrong-signature", lambda X, W_q, W_k, W_v, W_o: X),
]


@pytest.mark.parametrize("name", RIGHT)
def test_right_answers_pass(name):
    fb = check_multihead(RIGHT[name])
    assert fb.passed, (name, fb)


@pytest.mark.parametrize("mistake, fn", WRONG, ids=[f"{i}-{m}" for i, (m, _) in enumerate(WRONG)])
def test_each_wrong_answer_gets_its_own_mistake(mistake, fn):
    fb = check_multihead(fn)
    assert not fb.passed
    assert fb.mistake == mistake, fb


def test_placeholders_are_not_answered():
    def stub(X_q, X_kv, W_q, W_k, W_v, W_o):
        raise NotImplementedError

    assert check_multihead(None).mistake == "not-answered"
    assert check_multihead(stub).mistake == "not-answered"


# ----------------------------------------------------------------------------------------------- findings


def last_head_everywhere(X_q, X_kv, W_q, W_k, W_v, W_o):
    outs = []
    for h in range(len(W_q)):
        w_q, w_k, w_v = W_q[h], W_k[h], W_v[h]
        outs.append(None)
    return np.concatenate([head(X_q, X_kv, w_q, w_k, w_v) for _ in outs], axis=-1) @ W_o  # the loop's last h


@pytest.mark.parametrize("fn, mistake", [
    (last_head_everywhere, "last-head-only"),
    (lambda X_q, X_kv, W_q, W_k, W_v, W_o: np.concatenate(loop_heads(X_q, X_q, W_q, W_k, W_v), axis=-1) @ W_o,
     "kv-from-queries"),
    (lambda X_q, X_kv, W_q, W_k, W_v, W_o: np.concatenate(loop_heads(X_q, X_kv, W_q, W_k, W_v), axis=0) @ W_o,
     "concat-axis-0"),
    (lambda X_q, X_kv, W_q, W_k, W_v, W_o: np.concatenate(
        loop_heads(X_q, X_kv, W_q, W_k, W_v, scale=np.sqrt(W_v.shape[-1])), axis=-1) @ W_o, "scaled-by-dv"),
])
def test_more_multihead_mistakes_are_named(fn, mistake):
    assert check_multihead(fn).mistake == mistake


@pytest.mark.parametrize("split", [lambda a, b: a // b, lambda a, b: a / b], ids=["//", "/"])
def test_dk_read_from_d_model_over_heads_is_dk_from_d_model(split):
    def scale_from_d_model(X_q, X_kv, W_q, W_k, W_v, W_o):
        d_k = split(X_q.shape[-1], W_q.shape[0])  # right only when heads * d_k == d_model
        outs = []
        for h in range(W_q.shape[0]):
            scores = (X_q @ W_q[h]) @ (X_kv @ W_k[h]).T / np.sqrt(d_k)
            e = np.exp(scores - scores.max(axis=-1, keepdims=True))
            outs.append(e / e.sum(axis=-1, keepdims=True) @ (X_kv @ W_v[h]))
        return np.concatenate(outs, axis=-1) @ W_o

    feedback = check_multihead(scale_from_d_model)
    assert feedback.mistake == "dk-from-d-model", feedback
    assert "W_q's last axis" in feedback.reason


def test_self_attention_on_X_kv_alone_is_named_not_only_a_shape():
    # Issue 17: queries, keys and values all from X_kv got only a wrong-shape message.
    feedback = check_multihead(lambda X_q, X_kv, W_q, W_k, W_v, W_o: np.concatenate(
        loop_heads(X_kv, X_kv, W_q, W_k, W_v), axis=-1) @ W_o)
    assert feedback.mistake == "self-attention-on-kv" and "queries come from X_kv too" in feedback.reason, feedback


def test_heads_concatenated_down_the_rows_are_named_as_the_wrong_axis():
    # Issue 17: np.concatenate(heads, axis=0) was told it "mixes positions".
    for fn in (lambda *a: np.concatenate(loop_heads(*a[:5]), axis=0) @ a[5],
               lambda *a: np.concatenate(loop_heads(*a[:5]), axis=0)):
        feedback = check_multihead(fn)
        assert feedback.mistake == "concat-axis-0" and "along axis 0" in feedback.reason, feedback
        assert "mixes positions" not in feedback.reason


# ------------------------------------------------------------------------------- learner review (07 P1)


def heads_with(X_q, X_kv, W_q, W_k, W_v, X_k=None, X_v=None, scale=None):
    X_k, X_v = (X_kv if X is None else X for X in (X_k, X_v))
    outs = []
    for h in range(len(W_q)):
        scores = (X_q @ W_q[h]) @ (X_k @ W_k[h]).T / (np.sqrt(W_q.shape[-1]) if scale is None else scale)
        outs.append(softmax_rows(scores) @ (X_v @ W_v[h]))
    return np.concatenate(outs, axis=-1)


@pytest.mark.parametrize("fn, mistake, words", [
    (lambda X_q, X_kv, W_q, W_k, W_v, W_o: np.stack(
        [softmax_rows((X_q @ W_q[h]) @ (X_kv @ W_k[h]).T / np.sqrt(W_q.shape[-1])) for h in range(len(W_q))]),
     "returned-weights", "(heads, n, m)"),
    (lambda *a: heads_with(*a[:5], X_v=a[0]) @ a[5], "values-from-queries", "values from X_q"),
    (lambda *a: heads_with(*a[:5], X_k=a[0]) @ a[5], "keys-from-queries", "keys from X_q"),
    (lambda *a: heads_with(*a[:5], scale=a[2].shape[-1]) @ a[5], "divide-by-dk", "instead of sqrt(d_k)"),
], ids=["stacked weights", "values from X_q", "keys from X_q", "divided by d_k"])
def test_review_07_p1_mistakes_are_named(fn, mistake, words):
    # The review: stacked weights got only wrong-shape, values from X_q a raw matmul exception, d_k wrong-values.
    feedback = check_multihead(fn)
    assert feedback.mistake == mistake and words in feedback.reason and feedback.hint, feedback
