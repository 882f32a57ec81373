"""Mistakes seen in popular published attention code (issue 24), written the way that code writes them, against
every function checker where they can occur: each gets its named id, never only a symptom.

The five mistakes: scaling by the model's width or by d_k instead of sqrt(d_k); a scale that lands on the scores
twice (q multiplied by 1/sqrt(d_k), then the scores divided again) or is split between Q and K unevenly; blocked
scores filled with 0 instead of -inf; a 0/1 mask added instead of a 0/-inf one; heads split by a reshape with no
transpose. A checker whose problem has no place for a mistake (no scale, no mask, no heads to split) is left out of
that column; ``APPLIES`` says which checkers each mistake can occur in."""

import numpy as np
import pytest

from attn_lib.exercises import (check_attention, check_causal_mask, check_chunked_attention, check_cross_attention,
                                check_decode_step, check_dW_q, check_masked_softmax, check_multihead,
                                check_padding_mask, check_scaled_scores, check_split_heads)


def _swap(x):
    return np.swapaxes(x, -1, -2)


def _softmax(scores):
    e = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


# How each published scale is written: (factor on q, what the scores are divided by), given d_k and d_model.
SCALES = {
    "d_model": lambda d_k, d_model: (1.0, np.sqrt(d_model)),  # self.scale = d_model ** -0.5
    "d_k": lambda d_k, d_model: (1.0, d_k),  # scores / self.head_dim
    "q and scores": lambda d_k, d_model: (d_k ** -0.5, np.sqrt(d_k)),  # q = q * self.scale, then / sqrt(d_k) again
    "q only, a quarter": lambda d_k, d_model: (d_k ** -0.25, 1.0),  # q * d_k ** -0.25, k's share forgotten
    "q whole, k a quarter": lambda d_k, d_model: (d_k ** -0.5, d_k ** 0.25),  # q * scale, k * d_k ** -0.25
}
SCALE_IDS = {"d_model": "d-model-scaling", "d_k": "divide-by-dk", "q and scores": "divide-by-dk",
             "q only, a quarter": "split-scale", "q whole, k a quarter": "split-scale"}
# check_dW_q's own id for a gradient that carries 1/d_k: the forward pass's factor applied twice.
OWN_IDS = {("check_dW_q", "d_k"): "scaled-twice", ("check_dW_q", "q and scores"): "scaled-twice"}


def _attend(Q, K, V, scale, mask=None, fill=-np.inf, added=None):
    q_factor, divisor = scale
    scores = (Q * q_factor) @ _swap(K) / divisor  # (..., n, d_k) x (..., d_k, m) -> (..., n, m)
    if added is not None:
        scores = scores + added
    elif mask is not None:
        scores = np.where(mask, scores, fill)
    return _softmax(scores) @ V  # (..., n, m) x (..., m, d_v) -> (..., n, d_v)


def _published_scale(checker, how):
    """The answer to ``checker``'s problem with the scale ``how`` published code uses (d_model = 512 where the
    problem has no d_model of its own, as in code that reads self.d_model)."""
    if checker == "check_scaled_scores":
        def fn(Q, K):
            q_factor, divisor = SCALES[how](Q.shape[-1], 512)
            return (Q * q_factor) @ _swap(K) / divisor
        return check_scaled_scores(fn)
    if checker == "check_attention":
        return check_attention(lambda Q, K, V, mask=None: _attend(Q, K, V, SCALES[how](Q.shape[-1], 512), mask))
    if checker == "check_multihead":
        def fn(X_q, X_kv, W_q, W_k, W_v, W_o):
            scale = SCALES[how](W_q.shape[-1], X_q.shape[-1])
            heads = [_attend(X_q @ W_q[h], X_kv @ W_k[h], X_kv @ W_v[h], scale) for h in range(len(W_q))]
            return np.concatenate(heads, axis=-1) @ W_o  # (n, heads * d_v) x (heads * d_v, d_model)
        return check_multihead(fn)
    if checker == "check_cross_attention":
        return check_cross_attention(lambda X_dec, X_enc, W_q, W_k, W_v: _attend(
            X_dec @ W_q, X_enc @ W_k, X_enc @ W_v, SCALES[how](W_q.shape[-1], X_dec.shape[-1])))
    if checker == "check_decode_step":
        return check_decode_step(lambda q, k, v, K_cache, V_cache: _attend(
            q, np.concatenate([K_cache, k], axis=-2), np.concatenate([V_cache, v], axis=-2),
            SCALES[how](q.shape[-1], 512)))
    if checker == "check_chunked_attention":
        def fn(Q, K, V, chunk_size):
            q_factor, divisor = SCALES[how](Q.shape[-1], 512)
            n = Q.shape[0]
            top, total, out = np.full((n, 1), -np.inf), np.zeros((n, 1)), np.zeros((n, V.shape[-1]))
            for start in range(0, K.shape[0], chunk_size):
                scores = (Q * q_factor) @ K[start:start + chunk_size].T / divisor  # (n, chunk)
                new_top = np.maximum(top, scores.max(axis=-1, keepdims=True))
                e, rescale = np.exp(scores - new_top), np.exp(top - new_top)
                total = total * rescale + e.sum(axis=-1, keepdims=True)
                out = out * rescale + e @ V[start:start + chunk_size]
                top = new_top
            return out / total
        return check_chunked_attention(fn)
    if checker == "check_dW_q":
        def fn(X, K, d_scores):
            q_factor, divisor = SCALES[how](K.shape[-1], X.shape[-1])
            dQ = d_scores @ K * q_factor / divisor  # (..., n, m) x (..., m, d_k) -> (..., n, d_k)
            return np.einsum("...nd,...nk->dk", X, dQ)
        return check_dW_q(fn)
    raise KeyError(checker)


SCALED = ("check_scaled_scores", "check_attention", "check_multihead", "check_cross_attention", "check_decode_step",
          "check_chunked_attention", "check_dW_q")


def _fill_zero(checker):
    if checker == "check_masked_softmax":
        return check_masked_softmax(lambda scores, mask: _softmax(np.where(mask, scores, 0.0)))
    return check_attention(lambda Q, K, V, mask=None: _attend(Q, K, V, (1.0, np.sqrt(Q.shape[-1])), mask, fill=0.0))


def _added_01(checker, inverse=False):
    """scores + mask with a 0/1 mask: the boolean mask itself, or (inverse) 1 where blocked."""
    def as_01(mask):
        return (~np.asarray(mask) if inverse else np.asarray(mask)).astype(float)
    if checker == "check_masked_softmax":
        return check_masked_softmax(lambda scores, mask: _softmax(scores + as_01(mask)))
    if checker == "check_attention":
        return check_attention(lambda Q, K, V, mask=None: _attend(
            Q, K, V, (1.0, np.sqrt(Q.shape[-1])), added=None if mask is None else as_01(mask)))
    if checker == "check_causal_mask":  # a mask built as 0/1 numbers, to be added to the scores
        return check_causal_mask(lambda n, m: np.tril(np.ones((n, m))))
    if checker == "check_padding_mask":
        return check_padding_mask(lambda lengths, m: (np.arange(m) < np.asarray(lengths)[:, None, None]) * 1.0)
    raise KeyError(checker)


def _reshape_no_transpose(checker):
    return check_split_heads(lambda X, heads: X.reshape(heads, X.shape[0], X.shape[1] // heads))


# mistake -> {checker: (how the published code is run, the id it must get)}
TABLE = {
    **{f"scale: {how}": {c: ((lambda c=c, how=how: _published_scale(c, how)), OWN_IDS.get((c, how), SCALE_IDS[how]))
                         for c in SCALED}
       for how in SCALES},
    "blocked scores filled with 0": {c: ((lambda c=c: _fill_zero(c)), "mask-zero")
                                     for c in ("check_masked_softmax", "check_attention")},
    "a 0/1 mask added": {
        **{c: ((lambda c=c: _added_01(c)), "mask-added") for c in ("check_masked_softmax", "check_attention")},
        **{f"{c} (1 where blocked)": ((lambda c=c: _added_01(c, inverse=True)), "mask-added")
           for c in ("check_masked_softmax", "check_attention")},
        "check_causal_mask": ((lambda: _added_01("check_causal_mask")), "not-boolean"),
        "check_padding_mask": ((lambda: _added_01("check_padding_mask")), "not-boolean"),
    },
    "heads split by a reshape, no transpose": {
        "check_split_heads": ((lambda: _reshape_no_transpose("check_split_heads")), "no-transpose")},
}
# Where each mistake can occur (the problems with a scale, a mask to apply or build, heads to split): the table
# must have a row for every one of them.
APPLIES = {
    **{f"scale: {how}": set(SCALED) for how in SCALES},
    "blocked scores filled with 0": {"check_masked_softmax", "check_attention"},
    "a 0/1 mask added": {"check_masked_softmax", "check_attention", "check_causal_mask", "check_padding_mask"},
    "heads split by a reshape, no transpose": {"check_split_heads"},
}
ROWS = [(mistake, checker) for mistake, row in TABLE.items() for checker in row]


def test_the_table_covers_every_checker_where_each_mistake_can_occur():
    for mistake, checkers in APPLIES.items():
        assert checkers <= {c.split(" (")[0] for c in TABLE[mistake]}, mistake


@pytest.mark.parametrize("mistake, checker", ROWS, ids=[f"{m} / {c}" for m, c in ROWS])
def test_a_published_mistake_gets_its_named_id(mistake, checker):
    run, wanted = TABLE[mistake][checker]
    feedback = run()
    assert not feedback.passed and feedback.mistake == wanted, (mistake, checker, feedback)
    assert feedback.reason.strip()
