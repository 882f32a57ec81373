"""What the attention checkers share: check_attention's table of mistakes (each computes the mistaken output on
the same inputs, see ``_judge``), and the structural reasons for any attention-like output (check_attention,
check_chunked_attention)."""

from __future__ import annotations

import numpy as np

from ._compare import fmt, two_numbers
from ._feedback import Feedback, fail
from ._types import Mistake
from ._pieces import (
    AXIS_1,
    BOOL_INDEX,
    FIX_BOOL_INDEX,
    FIX_GLOBAL_MAX,
    FIX_MAX_BEFORE_MASK,
    GLOBAL_MAX,
    MASK_ADDED,
    POWER_PRECEDENCE,
    FIX_POWER_PRECEDENCE,
    INF_TIMES_ZERO,
    FIX_INF_TIMES_ZERO,
    MAX_BEFORE_MASK,
    SCALED_TWICE,
    SMALL_FILL,
    SMALL_FILLS,
    SPLIT_SCALE,
    SPLIT_SCALE_POWERS,
    FIX_SPLIT_SCALE,
    UNIFORM,
    masked_scores,
    bool_index_blocked,
    global_max_softmax,
    keys_allowed,
    max_shift,
    attention_out,
    scaled_qk,
    row_softmax,
    softmax_from,
    softmax_no_keepdims,
    softmax_whole,
    transpose_last,
)


def _w(Q, K, mask, fill=-np.inf, divide_by=None):
    """The blocked scaled scores."""
    return masked_scores(scaled_qk(Q, K, divide_by), mask, fill)


def _d(Q):
    return Q.shape[-1]


def _uniform_out(Q, K, V, mask):
    allowed = np.ones(scaled_qk(Q, K).shape) if mask is None else np.broadcast_to(mask, scaled_qk(Q, K).shape)
    return (allowed / allowed.sum(axis=-1, keepdims=True)) @ V


def _renormalised(Q, K, mask, eps=0.0):
    w = row_softmax(scaled_qk(Q, K)) * (1.0 if mask is None else mask)
    return w / (w.sum(axis=-1, keepdims=True) + eps)


def _exp_shift_times_mask(Q, K, V, mask):
    s = scaled_qk(Q, K)
    e = np.exp(s - np.max(s, axis=-1, keepdims=True)) * (1.0 if mask is None else mask)  # no -inf anywhere
    return e / e.sum(axis=-1, keepdims=True) @ V


def _mask_on_values(Q, K, V, mask, how):
    if mask is None:
        return attention_out(Q, K, V)
    full = np.broadcast_to(mask, scaled_qk(Q, K).shape)
    keys = {"all": keys_allowed(mask, full.shape), "any": full.any(axis=-2), "first": full[..., 0, :]}[how]
    return row_softmax(scaled_qk(Q, K)) @ (V * keys[..., :, None])


def _drop(x, axis, first):
    return None if x is None else (np.delete(x, 0 if first else -1, axis=axis) if np.shape(x)[axis] > 1 else x)


def _dropped_key(Q, K, V, mask, first=False):
    return attention_out(Q, _drop(K, -2, first), _drop(V, -2, first), _drop(mask, -1, first))


def attention_mistakes() -> list[Mistake]:
    fix_scale = "Divide the scores by np.sqrt(d_k), with d_k = Q.shape[-1], before the softmax."
    return [
        Mistake("global-max", GLOBAL_MAX, FIX_GLOBAL_MAX,
                (lambda Q, K, V, mask: global_max_softmax(_w(Q, K, mask)) @ V,), strict_nonfinite=True),
        Mistake(
            "no-scaling",
            "Your output matches softmax(Q K^T) V: the scores were never divided by sqrt(d_k). A score is a sum of "
            "d_k products, so its spread grows like sqrt(d_k); unscaled, the softmax gets sharper as d_k grows "
            "and its gradients vanish.",
            fix_scale,
            (lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=1.0),),
        ),
        Mistake(
            "divide-by-dk",
            "Your output matches softmax(Q K^T / d_k) V: you divided by d_k instead of sqrt(d_k). The variance "
            "of a score is d_k, so its standard deviation, the unit that makes scores comparable, is "
            "sqrt(d_k); dividing by d_k shrinks the scores too much and flattens every row of weights."
            + SCALED_TWICE,
            "Use np.sqrt(d_k), not d_k.",
            (lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=_d(Q)),),
        ),
        Mistake("power-precedence", POWER_PRECEDENCE, FIX_POWER_PRECEDENCE,
                (lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=2.0 * _d(Q)),
                 lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=_d(Q) / 2))),
        Mistake("split-scale", SPLIT_SCALE, FIX_SPLIT_SCALE,
                tuple((lambda Q, K, V, mask, p=p: attention_out(Q, K, V, mask, divide_by=_d(Q) ** p))
                      for p in SPLIT_SCALE_POWERS)),
        Mistake(
            "multiply-by-sqrt-dk",
            "Your output matches softmax(Q K^T * sqrt(d_k)) V: the scores were multiplied by sqrt(d_k) instead "
            "of divided by it, which makes them larger still and the softmax sharper.",
            "Divide: scores = Q @ K^T / np.sqrt(d_k).",
            (lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=1 / np.sqrt(_d(Q))),),
        ),
        Mistake(
            "d-model-scaling",
            "Your output matches scaling by d_model = 512 (the model's full width) instead of the per-head "
            "sqrt(d_k). Inside one head each dot product has d_k terms, so sqrt(d_k) is its unit; d_model "
            "plays no part in one head's scores.",
            "Read d_k from the queries: d_k = Q.shape[-1], and divide by np.sqrt(d_k).",
            (
                lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=np.sqrt(512)),
                lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=512.0),
            ),
        ),
        Mistake(
            "hardcoded-dk",
            "Your output matches dividing by 8 = sqrt(64): that is right only for the paper's d_k = 64, and "
            "these inputs have d_k between 3 and 8.",
            "Read d_k from the input, d_k = Q.shape[-1], rather than writing a number.",
            (lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=8.0),),
        ),
        Mistake(
            "dk-from-rows",
            "Your output matches dividing by the square root of another axis's length (the number of rows n or "
            "m, or on a batch the batch size): d_k was read from the wrong axis. d_k is the width of a query, "
            "the last axis: Q.shape[-1].",
            "Use d_k = Q.shape[-1] (not Q.shape[0], Q.shape[1] or len(Q)).",
            (
                lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=np.sqrt(Q.shape[0])),
                lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=np.sqrt(K.shape[0])),
                lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=np.sqrt(Q.shape[1])),
                lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=np.sqrt(Q.shape[-2])),
                lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=np.sqrt(K.shape[-2])),
            ),
        ),
        Mistake(
            "scaled-by-dv",
            "Your output matches dividing by sqrt(d_v): the scale was read from V. It belongs to the dot "
            "products of queries with keys, which have d_k terms; d_v is the width of the values.",
            "Use d_k = Q.shape[-1].",
            (lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=np.sqrt(V.shape[-1])),),
        ),
        Mistake(
            "scaled-after-softmax",
            "Your output matches softmax(Q K^T) V / sqrt(d_k): the division came after the softmax. It must "
            "change the scores, before the softmax; divided weights no longer sum to one, so each output is "
            "no longer an average of value rows.",
            "Divide the scores, then take the softmax, then multiply by V.",
            (lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=1.0) / np.sqrt(_d(Q)),),
        ),
        Mistake(
            "transpose-batch",
            "Your function transposes K with .T (or np.transpose(K)), which reverses every axis: on a batch "
            "K (b, m, d_k) it gives (d_k, m, b), not (b, d_k, m), so Q @ K.T fails (or pairs the wrong "
            "numbers). It is right only for 2-D inputs, and the problem promises leading batch axes.",
            "Swap only the last two axes: np.swapaxes(K, -1, -2) (or K.swapaxes(-1, -2)), or np.einsum("
            "'...nd,...md->...nm', Q, K).",
            (lambda Q, K, V, mask: row_softmax(masked_scores(Q @ K.T / np.sqrt(_d(Q)), mask)) @ V,
             lambda Q, K, V, mask: row_softmax(masked_scores(np.dot(Q, K.T) / np.sqrt(_d(Q)), mask)) @ V),
        ),
        Mistake(
            "axis-1-on-batch",
            AXIS_1,
            "Use axis=-1 (with keepdims=True) in the max and the sum of your softmax.",
            (lambda Q, K, V, mask: row_softmax(_w(Q, K, mask), axis=1) @ V,
             lambda Q, K, V, mask: softmax_from(max_shift(_w(Q, K, mask), axis=1)) @ V),
        ),
        Mistake(
            "softmax-wrong-axis",
            "Your weights sum to one down each column (softmax over the queries) instead of along each row. "
            "Each query needs its own distribution over the m keys: the softmax runs along the last axis.",
            "Use axis=-1 in the max and the sum of your softmax, with keepdims=True.",
            (lambda Q, K, V, mask: row_softmax(_w(Q, K, mask), axis=0) @ V,
             lambda Q, K, V, mask: row_softmax(_w(Q, K, mask), axis=-2) @ V),
        ),
        Mistake(
            "softmax-whole-matrix",
            "Your output matches a softmax over the whole score matrix at once (a sum with no axis): all n*m "
            "weights together sum to one, so each row sums to far less than one.",
            "Sum each row separately: np.sum(e, axis=-1, keepdims=True).",
            (lambda Q, K, V, mask: softmax_whole(_w(Q, K, mask)) @ V,),
        ),
        Mistake(
            "softmax-no-keepdims",
            "A row statistic of your softmax (the sum or the max) lost its axis: np.sum(e, axis=-1) has shape "
            "(n,), and dividing an (n, m) array by it divides column j by the sum of row j. It fails when "
            "n != m and is silently wrong when n == m.",
            "Add keepdims=True, so the sums have shape (n, 1) and each row is divided by its own sum.",
            (
                lambda Q, K, V, mask: softmax_no_keepdims(_w(Q, K, mask)) @ V,
                lambda Q, K, V, mask: softmax_no_keepdims(_w(Q, K, mask), "max") @ V,
                lambda Q, K, V, mask: softmax_no_keepdims(_w(Q, K, mask), "both") @ V,
            ),
        ),
        Mistake(
            "max-wrong-axis",
            "Your softmax subtracts each column's maximum instead of each row's. One constant per row changes "
            "nothing, but a different constant for each key of a row changes the weights.",
            "Subtract np.max(scores, axis=-1, keepdims=True).",
            (lambda Q, K, V, mask: softmax_from(max_shift(_w(Q, K, mask), axis=0)) @ V,
             lambda Q, K, V, mask: softmax_from(max_shift(_w(Q, K, mask), axis=-2)) @ V),
        ),
        Mistake(
            "no-division",
            "Your output mixes the value rows with exponentials that were never divided by their row sum: the "
            "weights do not sum to one, so the output is not an average of value rows.",
            "Divide each row of exponentials by its sum before multiplying by V.",
            (lambda Q, K, V, mask: np.exp(max_shift(_w(Q, K, mask))) @ V,
             lambda Q, K, V, mask: np.exp(_w(Q, K, mask)) @ V),
        ),
        Mistake(
            "no-transpose",
            "Your scores multiply Q by K, not by K transposed. Q (n, d_k) times K (m, d_k) only fits when "
            "d_k = m, and then it pairs the wrong numbers. Entry (i, j) of the scores is query i dotted with "
            "key j: Q (n, d_k) x K^T (d_k, m) -> (n, m).",
            "scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k).",
            (lambda Q, K, V, mask: row_softmax(masked_scores(Q @ K / np.sqrt(_d(Q)), mask)) @ V,),
        ),
        Mistake(
            "scores-transposed",
            "Your scores are K Q^T, shape (m, n): one row per key instead of one per query. The softmax then "
            "spreads each key over the queries. The scores are Q K^T, (n, m).",
            "scores = Q @ K^T, so row i belongs to query i.",
            (
                lambda Q, K, V, mask: row_softmax(masked_scores(K @ transpose_last(Q) / np.sqrt(_d(Q)), mask)) @ V,
                lambda Q, K, V, mask: row_softmax(masked_scores(K @ transpose_last(Q) / np.sqrt(_d(Q)), _tm(mask))) @ V,
            ),
        ),
        Mistake(
            "mixed-queries",
            "Your output mixes the rows of Q, not of V. The weights decide who is listened to; V holds what is "
            "heard, so the output is weights @ V, a weighted average of value rows, of width d_v.",
            "Multiply the weights by V: output = weights @ V.",
            (lambda Q, K, V, mask: row_softmax(_w(Q, K, mask)) @ Q,),
        ),
        Mistake(
            "mixed-keys",
            "Your output mixes the rows of K, not of V. Keys are what queries are compared with; V holds what "
            "is heard, so the output is weights @ V, a weighted average of value rows, of width d_v.",
            "Multiply the weights by V: output = weights @ V.",
            (lambda Q, K, V, mask: row_softmax(_w(Q, K, mask)) @ K,),
        ),
        Mistake(
            "returned-weights",
            "Your function returns the weights (n, m), not the output. The weights say how much each key is "
            "listened to; the output multiplies them by V: (n, m) x (m, d_v) -> (n, d_v).",
            "Return weights @ V.",
            (lambda Q, K, V, mask: row_softmax(_w(Q, K, mask)),),
        ),
        Mistake(
            "returned-scores",
            "Your function returns the scaled scores Q K^T / sqrt(d_k), before the softmax and before V.",
            "Take the softmax of each row of the scores, then multiply by V.",
            (lambda Q, K, V, mask: scaled_qk(Q, K), lambda Q, K, V, mask: _w(Q, K, mask)),
        ),
        Mistake(
            "output-transposed",
            "Your output is transposed: (d_v, n) instead of (n, d_v). Each query gets one output row.",
            "Return weights @ V, not its transpose (or V^T @ weights^T).",
            (lambda Q, K, V, mask: transpose_last(attention_out(Q, K, V, mask)),),
        ),
        Mistake(
            "mask-after-softmax",
            "Your function applies the mask after the softmax: blocked weights are 0, but each row now sums "
            "to less than one, and the blocked keys' scores are still in the softmax's denominator, so what "
            "should be hidden (the future, the padding) still changes every weight.",
            "Put -inf in the blocked scores before the softmax: np.where(mask, scores, -np.inf).",
            (lambda Q, K, V, mask: (row_softmax(scaled_qk(Q, K)) * (1.0 if mask is None else mask)) @ V,),
        ),
        Mistake("max-before-mask", MAX_BEFORE_MASK, FIX_MAX_BEFORE_MASK,
                (lambda Q, K, V, mask: softmax_from(_w(Q, K, mask) - np.max(scaled_qk(Q, K), axis=-1, keepdims=True))
                 @ V,),
                strict_nonfinite=True),
        Mistake(
            "zero-then-renormalise",
            "Your function removes the blocked keys after the softmax (or the exponentials) of all the scores "
            "(zeroing their weights) "
            "and then divides by the new row sum. That is right only while no blocked score is far above the "
            "allowed ones: here the blocked keys score 1000 more, so the allowed weights underflow to 0 and the "
            "division is 0/0 (NaN) or by a tiny number.",
            "Put -inf in the blocked scores before the softmax: np.where(mask, scores, -np.inf).",
            (lambda Q, K, V, mask: _renormalised(Q, K, mask) @ V,
             lambda Q, K, V, mask: _renormalised(Q, K, mask, 1e-9) @ V, _exp_shift_times_mask),
            strict_nonfinite=True,
        ),
        Mistake(
            "mask-on-values",
            "Your function applies the mask to V (zeroing the value rows of blocked keys) instead of to the "
            "scores. The blocked keys still take their share of the weights, which now multiply zeros, so each "
            "output is pulled towards 0 rather than averaged over the allowed keys.",
            "Mask the scores before the softmax: np.where(mask, scores, -np.inf); leave V as it is.",
            tuple((lambda Q, K, V, mask, how=how: _mask_on_values(Q, K, V, mask, how)) for how in ("all", "any",
                                                                                                   "first")),
        ),
        Mistake(
            "mask-zero",
            "Your function sets blocked scores to 0 (or multiplies the scores by the mask) instead of -inf. "
            "exp(0) = 1, so blocked keys still get weight; only -inf gives exp(-inf) = 0 exactly.",
            "Use np.where(mask, scores, -np.inf).",
            (lambda Q, K, V, mask: row_softmax(_w(Q, K, mask, 0.0)) @ V,),
        ),
        Mistake(
            "small-fill",
            SMALL_FILL,
            "Use np.where(mask, scores, -np.inf).",
            tuple((lambda Q, K, V, mask, f=f: row_softmax(_w(Q, K, mask, f)) @ V) for f in SMALL_FILLS),
        ),
        Mistake(
            "inverted-mask",
            "Your function uses the mask the wrong way round: it attends to the blocked keys and blocks the "
            "allowed ones. In this course (as in PyTorch's scaled_dot_product_attention) True means "
            "'may attend'.",
            "Keep the score where the mask is True: np.where(mask, scores, -np.inf).",
            (lambda Q, K, V, mask: row_softmax(_w(Q, K, _inv(mask))) @ V,),
        ),
        Mistake(
            "ignored-mask",
            "Your output is right without a mask, but the mask changes nothing: blocked keys still get "
            "weight.",
            "Before the softmax, put -inf where the mask is False: np.where(mask, scores, -np.inf).",
            (lambda Q, K, V, mask: attention_out(Q, K, V, None),),
        ),
        Mistake("inf-times-zero", INF_TIMES_ZERO, FIX_INF_TIMES_ZERO,
                (lambda Q, K, V, mask: row_softmax(scaled_qk(Q, K) if mask is None else
                                                   scaled_qk(Q, K) * mask + ~np.asarray(mask) * -np.inf) @ V,),
                strict_nonfinite=True),
        Mistake(
            "mask-added",
            MASK_ADDED,
            "Use np.where(mask, scores, -np.inf).",
            (lambda Q, K, V, mask: row_softmax(scaled_qk(Q, K) + (0 if mask is None else mask)) @ V,
             lambda Q, K, V, mask: row_softmax(scaled_qk(Q, K) + (0 if mask is None else ~np.asarray(mask))) @ V),
        ),
        Mistake(
            "boolean-index-broadcast",
            BOOL_INDEX,
            FIX_BOOL_INDEX,
            (lambda Q, K, V, mask: row_softmax(bool_index_blocked(scaled_qk(Q, K), mask)) @ V,),
        ),
        Mistake(
            "dropped-key",
            "Your output matches attention that leaves out one key (the last or the first): a slice such as "
            "K[:-1], range(m - 1) or range(1, m) stops one short. Every one of the m keys must take part.",
            "Use all keys: K[..., :, :] and range(m), not range(m - 1).",
            (lambda Q, K, V, mask: _dropped_key(Q, K, V, mask),
             lambda Q, K, V, mask: _dropped_key(Q, K, V, mask, first=True)),
        ),
        Mistake("uniform-weights", UNIFORM, "Weights = softmax of the scaled scores, then output = weights @ V.",
                (_uniform_out, lambda Q, K, V, mask: _uniform_out(Q, K, V, None))),
    ]


def _tm(mask):
    return None if mask is None else transpose_last(mask)


def _inv(mask):
    return None if mask is None else ~mask


def diagnose_output(attempts, runner) -> Feedback | None:
    """Structural reasons for attention-like outputs (..., n, d_v): the first one that applies."""
    for got, case in ((a.result, a.case) for a in attempts):
        if got.shape != case.expected.shape:
            n, d_v = case.expected.shape[-2:]
            m, d_k = case.inputs["K"].shape[-2:]
            extra = ""
            if got.shape[-2:] == (n, m):
                extra = " That is the shape of the weights, one entry per key; the output mixes value rows."
            elif got.shape[-2:] == (n, d_k) and d_k != d_v:
                extra = " An output row is a mix of value rows, so it has width d_v, not d_k."
            return fail(
                "wrong-shape",
                f"For {case.label}, the output should have shape (..., n, d_v) = {case.expected.shape}; yours has "
                f"shape {got.shape}.{extra}",
                "Follow the shapes: scores (..., n, m), weights (..., n, m), output = weights @ V: "
                "(..., n, m) x (..., m, d_v).",
            )
    for got in (a.result for a in attempts):
        if got.size and not np.isfinite(got).all():
            return None  # the generic non-finite reason
    for got, case, (rtol, atol) in ((a.result, a.case, a.tol) for a in attempts):
        V = case.inputs["V"]
        low = np.broadcast_to(V.min(axis=-2, keepdims=True), got.shape)  # each output column averages V's
        high = np.broadcast_to(V.max(axis=-2, keepdims=True), got.shape)
        # Rounding (of the answer's dtype, or a step in float16) may step just outside: 0.1 % of the range is not
        # a sign of weights that do not sum to one.
        slack = atol + np.maximum(rtol * np.maximum(np.abs(low), np.abs(high)), 1e-3 * (high - low))
        outside = (got < low - slack) | (got > high + slack)
        if outside.any():
            at = tuple(np.argwhere(outside)[0])
            c = at[-1]
            bound = low[at] if got[at] < low[at] else high[at]
            shown, _ = two_numbers(got[at], bound)
            return fail(
                "not-an-average",
                f"For {case.label}, entry {list(map(int, at))} of your output is {shown}, outside the range "
                f"of column {c} of V ({fmt(low[at])} to {fmt(high[at])}). Each output row is a weighted average "
                "of value rows (weights >= 0 summing to one), so it must lie inside them.",
                "Check that each row of your weights is non-negative and sums to one.",
            )
    return None
