"""Wrong answers written the way learners write them (issue 24): off-by-one axes, dtype slips, operator
precedence, in-place updates, a forgotten keepdims, a habit that only fits 2-D arrays. Each one whose mistake can
be named gets its id, and a reason in the idea's terms; none is told only a wrong entry or an exception."""

import numpy as np
import pytest

from attn_lib.exercises import (check_attention, check_causal_mask, check_chunked_attention, check_cross_attention,
                                check_decode_step, check_dW_q, check_masked_softmax, check_multihead,
                                check_padding_mask, check_previous_token, check_scaled_scores, check_scores,
                                check_softmax, check_softmax_backward, check_split_heads, check_temperature_softmax,
                                check_weight_times_value, check_weighted_average)



def sw(x):
    return np.swapaxes(x, -1, -2)


def sm(s, axis=-1):
    e = np.exp(s - s.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


S = {}
# --- check_scores
S["scores: Q.T @ K"] = (check_scores, lambda Q, K: sw(Q) @ K)
S["scores: elementwise Q * K"] = (check_scores, lambda Q, K: Q * K)
S["scores: sum over wrong axis of outer"] = (check_scores,
    lambda Q, K: (Q[..., :, None, :] * K[..., None, :, :]).sum(axis=-2))
S["scores: np.inner"] = (check_scores, lambda Q, K: np.inner(Q, K))
S["scores: matmul then transpose"] = (check_scores, lambda Q, K: sw(Q @ sw(K)))
# --- check_scaled_scores
S["scaled: sqrt of m"] = (check_scaled_scores, lambda Q, K: Q @ sw(K) / np.sqrt(K.shape[-2]))
S["scaled: d_k ** 1/2 times"] = (check_scaled_scores, lambda Q, K: Q @ sw(K) * Q.shape[-1] ** -1/2)
S["scaled: int division sqrt"] = (check_scaled_scores, lambda Q, K: Q @ sw(K) / (Q.shape[-1] ** 0.5 // 1))
S["scaled: np.sqrt(Q) elementwise"] = (check_scaled_scores, lambda Q, K: Q @ sw(K) / np.sqrt(Q.shape))
# --- check_softmax
S["softmax: no keepdims max"] = (check_softmax,
    lambda x: np.exp(x - x.max(axis=-1)) / np.exp(x - x.max(axis=-1)).sum(axis=-1))
S["softmax: sum without keepdims"] = (check_softmax,
    lambda x: np.exp(x - x.max(axis=-1, keepdims=True)) / np.exp(x - x.max(axis=-1, keepdims=True)).sum(axis=-1))
S["softmax: log-softmax returned"] = (check_softmax,
    lambda x: (x - x.max(axis=-1, keepdims=True)) - np.log(np.exp(x - x.max(axis=-1, keepdims=True)).sum(axis=-1, keepdims=True)))
S["softmax: exp, then the max subtracted"] = (check_softmax,
    lambda x: (np.exp(x) - np.exp(x).max(axis=-1, keepdims=True)))
S["softmax: divide by max not sum"] = (check_softmax,
    lambda x: np.exp(x - x.max(axis=-1, keepdims=True)) / np.exp(x - x.max(axis=-1, keepdims=True)).max(axis=-1, keepdims=True))
S["softmax: normalize scores not exp"] = (check_softmax, lambda x: x / x.sum(axis=-1, keepdims=True))
S["softmax: sigmoid"] = (check_softmax, lambda x: 1 / (1 + np.exp(-x)))
S["softmax: axis=0 everywhere"] = (check_softmax, lambda x: sm(x, axis=0))
# --- temperature
S["temp: multiplied"] = (check_temperature_softmax, lambda scores, temperature: sm(scores * temperature))
S["temp: added"] = (check_temperature_softmax, lambda scores, temperature: sm(scores + temperature))
S["temp: divided after exp"] = (check_temperature_softmax,
    lambda scores, temperature: (lambda e: e / e.sum(-1, keepdims=True))(np.exp(scores - scores.max(-1, keepdims=True)) / temperature))
S["temp: subtract"] = (check_temperature_softmax, lambda scores, temperature: sm(scores - temperature))
# --- masked softmax
S["masked: where arguments swapped"] = (check_masked_softmax, lambda scores, mask: sm(np.where(mask, -np.inf, scores)))
S["masked: -1e9 times mask added"] = (check_masked_softmax, lambda scores, mask: sm(scores + mask * -1e9))
S["masked: mask applied to exp then divided by old sum"] = (check_masked_softmax,
    lambda scores, mask: (lambda e: e * mask / e.sum(-1, keepdims=True))(np.exp(scores - scores.max(-1, keepdims=True))))
S["masked: fill -inf then no max"] = (check_masked_softmax,
    lambda scores, mask: (lambda e: e / e.sum(-1, keepdims=True))(np.exp(np.where(mask, scores, -np.inf))))
S["masked: fill with min of row"] = (check_masked_softmax,
    lambda scores, mask: sm(np.where(mask, scores, scores.min(-1, keepdims=True))))
# --- weighted average
S["wavg: elementwise"] = (check_weighted_average, lambda weights, V: weights * V)
S["wavg: V @ weights"] = (check_weighted_average, lambda weights, V: V @ weights)
S["wavg: sum over last"] = (check_weighted_average,
    lambda weights, V: (weights[..., :, :, None] * V[..., None, :, :]).sum(axis=-1))
S["wavg: mean not sum"] = (check_weighted_average,
    lambda weights, V: (weights[..., :, :, None] * V[..., None, :, :]).mean(axis=-2))
# --- causal mask
S["causal: np.triu"] = (check_causal_mask, lambda n, m: np.triu(np.ones((n, m), dtype=bool)))
S["causal: tril k=-1"] = (check_causal_mask, lambda n, m: np.tril(np.ones((n, m), dtype=bool), k=-1))
S["causal: square n"] = (check_causal_mask, lambda n, m: np.tril(np.ones((n, n), dtype=bool)))
S["causal: j < i"] = (check_causal_mask, lambda n, m: np.arange(m)[None, :] < np.arange(n)[:, None])
S["causal: ones"] = (check_causal_mask, lambda n, m: np.ones((n, m), dtype=bool))
# --- padding mask
S["padding: <="] = (check_padding_mask, lambda lengths, m: np.arange(m) <= np.asarray(lengths)[:, None, None])
S["padding: (batch, m)"] = (check_padding_mask, lambda lengths, m: np.arange(m) < np.asarray(lengths)[:, None])
S["padding: (batch, m, 1)"] = (check_padding_mask,
    lambda lengths, m: (np.arange(m) < np.asarray(lengths)[:, None])[:, :, None])
S["padding: lengths - 1"] = (check_padding_mask,
    lambda lengths, m: np.arange(m) < np.asarray(lengths)[:, None, None] - 1)
S["padding: >= inverted"] = (check_padding_mask, lambda lengths, m: np.arange(m) >= np.asarray(lengths)[:, None, None])
# --- attention
def att(Q, K, V, mask=None, **kw):
    s = Q @ sw(K) / np.sqrt(Q.shape[-1])
    if mask is not None: s = np.where(mask, s, -np.inf)
    return sm(s) @ V
S["attn: softmax over axis 0"] = (check_attention,
    lambda Q, K, V, mask=None: sm(np.where(True if mask is None else mask, Q @ sw(K) / np.sqrt(Q.shape[-1]), -np.inf), axis=-2) @ V)
S["attn: weights @ K"] = (check_attention,
    lambda Q, K, V, mask=None: sm(np.where(True if mask is None else mask, Q @ sw(K) / np.sqrt(Q.shape[-1]), -np.inf)) @ K)
S["attn: sqrt of d_v"] = (check_attention,
    lambda Q, K, V, mask=None: sm(np.where(True if mask is None else mask, Q @ sw(K) / np.sqrt(V.shape[-1]), -np.inf)) @ V)
# --- split heads
S["split: reshape (n, heads, d_k) transpose(1,2,0)"] = (check_split_heads,
    lambda X, heads: X.reshape(X.shape[0], heads, -1).transpose(1, 2, 0))
S["split: reshape -1 then swap"] = (check_split_heads,
    lambda X, heads: np.swapaxes(X.reshape(heads, X.shape[0], -1), 0, 1))
S["split: heads from rows"] = (check_split_heads, lambda X, heads: np.stack(np.split(X, heads, axis=0)))
S["split: d_k = heads"] = (check_split_heads, lambda X, heads: X.reshape(X.shape[0], -1, heads).transpose(1, 0, 2))
S["split: d_model//heads as int float"] = (check_split_heads,
    lambda X, heads: X.reshape(X.shape[0], heads, X.shape[1] // heads).transpose(1, 0, 2).astype(np.float16))
# --- softmax backward
def sb(scores, weights, d_weights):
    return weights * (d_weights - (d_weights * weights).sum(-1, keepdims=True))
S["bwd: sum over queries"] = (check_softmax_backward,
    lambda scores, weights, d_weights: weights * (d_weights - (d_weights * weights).sum(-2, keepdims=True)))
S["bwd: weights * d_weights only"] = (check_softmax_backward, lambda scores, weights, d_weights: weights * d_weights)
S["bwd: used scores as weights"] = (check_softmax_backward,
    lambda scores, weights, d_weights: scores * (d_weights - (d_weights * scores).sum(-1, keepdims=True)))
S["bwd: weights squared"] = (check_softmax_backward,
    lambda scores, weights, d_weights: weights * d_weights - weights ** 2 * d_weights)
# --- dW_q
S["dW_q: K.T"] = (check_dW_q,
    lambda X, K, d_scores: np.einsum("...nd,...nk->dk", X, d_scores @ K) / np.sqrt(K.shape[-1]))
S["dW_q: d_scores @ K.T wrong"] = (check_dW_q,
    lambda X, K, d_scores: np.einsum("...nd,...nk->dk", X, d_scores @ K / np.sqrt(X.shape[-1])))
S["dW_q: mean over batch"] = (check_dW_q,
    lambda X, K, d_scores: (sw(X) @ (d_scores @ K) / np.sqrt(K.shape[-1])).reshape(-1, X.shape[-1], K.shape[-1]).mean(0))
S["dW_q: only first batch"] = (check_dW_q,
    lambda X, K, d_scores: (sw(X) @ (d_scores @ K) / np.sqrt(K.shape[-1])).reshape(-1, X.shape[-1], K.shape[-1])[0])
S["dW_q: times sqrt"] = (check_dW_q,
    lambda X, K, d_scores: np.einsum("...nd,...nk->dk", X, d_scores @ K) * np.sqrt(K.shape[-1]))
# --- decode step
def step(q, k, v, K_cache, V_cache, K_all=None, V_all=None, div=None):
    K_all = np.concatenate([K_cache, k], -2) if K_all is None else K_all
    V_all = np.concatenate([V_cache, v], -2) if V_all is None else V_all
    s = q @ sw(K_all) / (np.sqrt(q.shape[-1]) if div is None else div)
    return sm(s) @ V_all
S["decode: value prepended key appended"] = (check_decode_step,
    lambda q, k, v, K_cache, V_cache: step(q, k, v, K_cache, V_cache, V_all=np.concatenate([v, V_cache], -2)))
S["decode: appended along axis 0"] = (check_decode_step,
    lambda q, k, v, K_cache, V_cache: step(q, k, v, K_cache, V_cache, K_all=np.concatenate([K_cache, k], 0), V_all=np.concatenate([V_cache, v], 0)))
S["decode: cache only values"] = (check_decode_step,
    lambda q, k, v, K_cache, V_cache: step(q, k, v, K_cache, V_cache, V_all=np.concatenate([V_cache, v], -2) * 0 + np.concatenate([V_cache, v], -2)[..., -1:, :]))
S["decode: k appended twice"] = (check_decode_step,
    lambda q, k, v, K_cache, V_cache: step(q, k, v, K_cache, V_cache, K_all=np.concatenate([K_cache, k, k], -2), V_all=np.concatenate([V_cache, v, v], -2)))
S["decode: d_k ** 1/2"] = (check_decode_step,
    lambda q, k, v, K_cache, V_cache: step(q, k, v, K_cache, V_cache, div=q.shape[-1] ** 1/2))
# --- weight times value
S["wtv: norm without [..., None, :]"] = (check_weight_times_value,
    lambda weights, V: weights * np.linalg.norm(V, axis=-1))
S["wtv: sqrt forgotten"] = (check_weight_times_value, lambda weights, V: weights * (V * V).sum(-1)[..., None, :])
# --- previous token
S["prev: diagonal offset +1"] = (check_previous_token,
    lambda weights: np.mean(np.diagonal(weights, offset=1, axis1=-2, axis2=-1), axis=-1))
S["prev: main diagonal"] = (check_previous_token,
    lambda weights: np.mean(np.diagonal(weights, axis1=-2, axis2=-1), axis=-1))
# --- chunked
def chunked(Q, K, V, chunk_size, fix=None):
    n = Q.shape[0]; mx = np.full((n, 1), -np.inf); tot = np.zeros((n, 1)); acc = np.zeros((n, V.shape[-1]))
    for i in range(0, K.shape[0], chunk_size):
        s = Q @ K[i:i+chunk_size].T / np.sqrt(Q.shape[-1])
        new = np.maximum(mx, s.max(-1, keepdims=True)); c = np.exp(mx - new); e = np.exp(s - new)
        if fix == "c-inverted": c = np.exp(new - mx)
        tot = tot * c + e.sum(-1, keepdims=True); acc = acc * c + e @ V[i:i+chunk_size]; mx = new
    return acc / tot
S["chunk: rescale inverted"] = (check_chunked_attention,
    lambda Q, K, V, chunk_size: chunked(Q, K, V, chunk_size, "c-inverted"))
S["chunk: d_k ** 1/2"] = (check_chunked_attention,
    lambda Q, K, V, chunk_size: chunked(Q * np.sqrt(Q.shape[-1]) / (Q.shape[-1] ** 1/2), K, V, chunk_size))


def _no_div(Q, K, V, chunk_size):
    n = Q.shape[0]; mx = np.full((n, 1), -np.inf); acc = np.zeros((n, V.shape[-1]))
    for i in range(0, K.shape[0], chunk_size):
        s = Q @ K[i:i+chunk_size].T / np.sqrt(Q.shape[-1])
        new = np.maximum(mx, s.max(-1, keepdims=True)); c = np.exp(mx - new)
        acc = acc * c + np.exp(s - new) @ V[i:i+chunk_size]; mx = new
    return acc

# --- more slips: dtypes, in place, axes, habits
S["causal: np.tri with dtype=int"] = (check_causal_mask, lambda n, m: np.tri(n, m, dtype=int))
S["causal: shape (m, n)"] = (check_causal_mask, lambda n, m: np.tril(np.ones((m, n), dtype=bool)))
def _bool_index(scores, mask):
    scores = scores.copy()
    scores[~mask] = -np.inf  # a mask (1, m) or (b, 1, m) does not index scores (n, m)
    return sm(scores)
S["masked: boolean index in place"] = (check_masked_softmax, _bool_index)
S["attn: K.T on a batch"] = (check_attention,
    lambda Q, K, V, mask=None: sm(np.where(True if mask is None else mask, Q @ K.T / np.sqrt(Q.shape[-1]), -np.inf)) @ V)
S["wavg: np.dot"] = (check_weighted_average, lambda weights, V: np.dot(weights, V))
S["dW_q: X.T @ dQ"] = (check_dW_q, lambda X, K, d_scores: X.T @ (d_scores @ K / np.sqrt(K.shape[-1])))
S["dW_q: dQ.T @ X"] = (check_dW_q,
    lambda X, K, d_scores: np.einsum("...nk,...nd->kd", d_scores @ K / np.sqrt(K.shape[-1]), X))
S["bwd: no keepdims"] = (check_softmax_backward,
    lambda scores, weights, d_weights: weights * (d_weights - (d_weights * weights).sum(-1)))
S["bwd: row sum added"] = (check_softmax_backward,
    lambda scores, weights, d_weights: weights * (d_weights + (d_weights * weights).sum(-1, keepdims=True)))
S["temp: power after softmax"] = (check_temperature_softmax,
    lambda scores, temperature: sm(scores) ** (1 / temperature))
S["chunk: no final division"] = (check_chunked_attention,
    lambda Q, K, V, chunk_size: chunked(Q, K, V, chunk_size) * 0 + _no_div(Q, K, V, chunk_size))
S["split: reshape, no move"] = (check_split_heads, lambda X, heads: X.reshape(X.shape[0], heads, X.shape[1] // heads))
S["multihead: concat down the rows"] = (check_multihead,
    lambda X_q, X_kv, W_q, W_k, W_v, W_o: np.concatenate([att(X_q @ W_q[h], X_kv @ W_k[h], X_kv @ W_v[h]) for h in range(len(W_q))], axis=0))
S["multihead: no W_o"] = (check_multihead,
    lambda X_q, X_kv, W_q, W_k, W_v, W_o: np.concatenate([att(X_q @ W_q[h], X_kv @ W_k[h], X_kv @ W_v[h]) for h in range(len(W_q))], axis=-1))
S["cross: keys from the decoder"] = (check_cross_attention,
    lambda X_dec, X_enc, W_q, W_k, W_v: att(X_dec @ W_q, X_dec @ W_k, X_enc @ W_v) if X_dec.shape[-2] == X_enc.shape[-2] else sm((X_dec @ W_q) @ sw(X_dec @ W_k) / np.sqrt(W_q.shape[-1])) @ (X_enc @ W_v))
S["padding: float mask"] = (check_padding_mask,
    lambda lengths, m: (np.arange(m) < np.asarray(lengths)[:, None, None]).astype(np.float32))
S["attn: / d_k ** 1/2 inline"] = (check_attention,
    lambda Q, K, V, mask=None: sm(np.where(True if mask is None else mask, Q @ sw(K) / Q.shape[-1] ** 1/2, -np.inf)) @ V)
S["masked: scores * mask + ~mask * -inf"] = (check_masked_softmax,
    lambda scores, mask: sm(scores * mask + ~mask * -np.inf))


# The id each answer gets: a named mistake for every one (no-batch names the habit of a 2-D-only answer).
EXPECTED = {
    'scores: Q.T @ K': 'queries-transposed',
    'scores: elementwise Q * K': 'elementwise-product',
    'scores: sum over wrong axis of outer': 'summed-over-keys',
    'scores: np.inner': 'dot-on-batch',
    'scores: matmul then transpose': 'keys-times-queries',
    'scaled: sqrt of m': 'dk-from-rows',
    'scaled: d_k ** 1/2 times': 'power-precedence',
    'scaled: int division sqrt': 'rounded-sqrt',
    'scaled: np.sqrt(Q) elementwise': 'sqrt-of-shape',
    'softmax: no keepdims max': 'no-keepdims',
    'softmax: sum without keepdims': 'no-keepdims',
    'softmax: log-softmax returned': 'negative-weights',
    'softmax: exp, then the max subtracted': 'negative-weights',
    'softmax: divide by max not sum': 'no-division',
    'softmax: normalize scores not exp': 'negative-weights',
    'softmax: sigmoid': 'rows-not-one',
    'softmax: axis=0 everywhere': 'softmax-wrong-axis',
    'temp: multiplied': 'multiplied-by-temperature',
    'temp: added': 'temperature-ignored',
    'temp: divided after exp': 'temperature-ignored',
    'temp: subtract': 'temperature-ignored',
    'masked: where arguments swapped': 'inverted-mask',
    'masked: -1e9 times mask added': 'inverted-mask',
    'masked: mask applied to exp then divided by old sum': 'mask-after-softmax',
    'masked: fill -inf then no max': 'naive-overflow',
    'masked: fill with min of row': 'blocked-not-zero',
    'wavg: elementwise': 'elementwise-product',
    'wavg: V @ weights': 'values-first',
    'wavg: sum over last': 'sum-wrong-axis',
    'wavg: mean not sum': 'mean-not-sum',
    'causal: np.triu': 'upper-triangle',
    'causal: tril k=-1': 'diagonal-blocked',
    'causal: square n': 'ignores-m',
    'causal: j < i': 'diagonal-blocked',
    'causal: ones': 'wrong-pattern',
    'padding: <=': 'off-by-one',
    'padding: (batch, m)': 'missing-query-axis',
    'padding: (batch, m, 1)': 'masks-queries',
    'padding: lengths - 1': 'off-by-one',
    'padding: >= inverted': 'inverted-mask',
    'attn: softmax over axis 0': 'softmax-wrong-axis',
    'attn: weights @ K': 'mixed-keys',
    'attn: sqrt of d_v': 'scaled-by-dv',
    'split: reshape (n, heads, d_k) transpose(1,2,0)': 'positions-last',
    'split: reshape -1 then swap': 'no-transpose',
    'split: heads from rows': 'split-positions',
    'split: d_k = heads': 'heads-dk-swapped',
    'split: d_model//heads as int float': 'low-precision',
    'bwd: sum over queries': 'sum-wrong-axis',
    'bwd: weights * d_weights only': 'missing-row-sum',
    'bwd: used scores as weights': 'used-scores',
    'bwd: weights squared': 'diagonal-only',
    'dW_q: K.T': 'einsum-ellipsis-dropped',
    'dW_q: d_scores @ K.T wrong': 'd-model-scaling',
    'dW_q: mean over batch': 'batch-averaged',
    'dW_q: only first batch': 'batch-axes',
    'dW_q: times sqrt': 'multiply-by-sqrt-dk',
    'decode: value prepended key appended': 'cache-order-mismatch',
    'decode: appended along axis 0': 'no-batch',
    'decode: cache only values': 'forgot-cache',
    'decode: k appended twice': 'new-token-twice',
    'decode: d_k ** 1/2': 'power-precedence',
    'wtv: norm without [..., None, :]': 'no-batch',
    'wtv: sqrt forgotten': 'squared-length',
    'prev: diagonal offset +1': 'next-token',
    'prev: main diagonal': 'self',
    'chunk: rescale inverted': 'rescale-inverted',
    'chunk: d_k ** 1/2': 'power-precedence',
    'causal: np.tri with dtype=int': 'not-boolean',
    'causal: shape (m, n)': 'shape-transposed',
    'masked: boolean index in place': 'boolean-index-broadcast',
    'attn: K.T on a batch': 'transpose-batch',
    'wavg: np.dot': 'np-dot-on-batch',
    'dW_q: X.T @ dQ': 'batch-axes',
    'dW_q: dQ.T @ X': 'result-transposed',
    'bwd: no keepdims': 'no-keepdims',
    'bwd: row sum added': 'row-sum-added',
    'temp: power after softmax': 'power-after-softmax',
    'chunk: no final division': 'no-final-division',
    'split: reshape, no move': 'heads-last',
    'multihead: concat down the rows': 'concat-axis-0',
    'multihead: no W_o': 'forgot-w-o',
    'cross: keys from the decoder': 'keys-from-decoder',
    'padding: float mask': 'not-boolean',
    'attn: / d_k ** 1/2 inline': 'power-precedence',
    'masked: scores * mask + ~mask * -inf': 'inf-times-zero',
}
SYMPTOMS = {"wrong-values", "wrong-shape", "exception", "non-finite-output"}


def test_every_answer_has_an_expected_id():
    assert set(EXPECTED) == set(S)


@pytest.mark.parametrize("name", sorted(S))
def test_a_learners_slip_is_named(name):
    checker, fn = S[name]
    feedback = checker(fn)
    assert not feedback.passed, (name, feedback)
    assert feedback.mistake == EXPECTED[name], (name, feedback)
    assert feedback.mistake not in SYMPTOMS and feedback.reason.strip(), (name, feedback)


def _multihead_with(scale):
    def fn(X_q, X_kv, W_q, W_k, W_v, W_o):
        heads = []
        for h in range(len(W_q)):
            Q, K, V = X_q @ W_q[h], X_kv @ W_k[h], X_kv @ W_v[h]
            heads.append(sm(Q @ sw(K) / scale(Q.shape[-1])) @ V)  # (n, m) x (m, d_v) -> (n, d_v)
        return np.concatenate(heads, axis=-1) @ W_o
    return fn


def _cross_with(scale):
    def fn(X_dec, X_enc, W_q, W_k, W_v):
        Q, K, V = X_dec @ W_q, X_enc @ W_k, X_enc @ W_v
        return sm(Q @ sw(K) / scale(Q.shape[-1])) @ V
    return fn


@pytest.mark.parametrize("checker, answer", [
    (check_multihead, _multihead_with(lambda d_k: d_k ** 1/2)),
    (check_multihead, _multihead_with(lambda d_k: 2 * d_k)),
    (check_cross_attention, _cross_with(lambda d_k: d_k ** 1/2)),
], ids=["multihead scale = d_k ** 1/2", "multihead / d_k ** 1/2 inline", "cross-attention scale = d_k ** 1/2"])
def test_d_k_to_the_one_half_without_brackets_is_named_in_the_multi_head_problems_too(checker, answer):
    assert checker(answer).mistake == "power-precedence"
