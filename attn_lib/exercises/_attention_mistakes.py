"""What the attention checkers share: check_attention's table of mistakes (each computes the mistaken output on
the same inputs, see ``_judge``), and the structural reasons for any attention-like output (check_attention,
check_chunked_attention)."""

from __future__ import annotations

import numpy as np

from ._compare import fmt, two_numbers
from ._feedback import Feedback, failure
from ._types import Mistake
from ._pieces import (
    SMALL_FILLS,
    SPLIT_SCALE_POWERS,
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


# The template fields of the scale mistakes (no-scaling, divide-by-dk, ...): what this checker returns, and
# where d_k is read.
_SCALE_FIELDS = {"what": "output", "d_k": "Q.shape[-1]"}


def attention_mistakes() -> list[Mistake]:
    return [
        Mistake("global-max", (lambda Q, K, V, mask: global_max_softmax(_w(Q, K, mask)) @ V,),
                strict_nonfinite=True, array="array", example="a row near 0 next to a row near 1000"),
        Mistake("no-scaling", (lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=1.0),), **_SCALE_FIELDS),
        Mistake("divide-by-dk", (lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=_d(Q)),),
                **_SCALE_FIELDS),
        Mistake("power-precedence",
                (lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=2.0 * _d(Q)),
                 lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=_d(Q) / 2))),
        Mistake("split-scale",
                tuple((lambda Q, K, V, mask, p=p: attention_out(Q, K, V, mask, divide_by=_d(Q) ** p))
                      for p in SPLIT_SCALE_POWERS)),
        Mistake("multiply-by-sqrt-dk",
                (lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=1 / np.sqrt(_d(Q))),),
                **_SCALE_FIELDS),
        Mistake("d-model-scaling",
                (lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=np.sqrt(512)),
                 lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=512.0)),
                **_SCALE_FIELDS),
        Mistake("hardcoded-dk", (lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=8.0),), what="output",
                sizes="these inputs have d_k between 3 and 8"),
        Mistake("dk-from-rows",
                (lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=np.sqrt(Q.shape[0])),
                 lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=np.sqrt(K.shape[0])),
                 lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=np.sqrt(Q.shape[1])),
                 lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=np.sqrt(Q.shape[-2])),
                 lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=np.sqrt(K.shape[-2]))),
                what="output"),
        Mistake("scaled-by-dv",
                (lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=np.sqrt(V.shape[-1])),),
                **_SCALE_FIELDS),
        Mistake("scaled-after-softmax",
                (lambda Q, K, V, mask: attention_out(Q, K, V, mask, divide_by=1.0) / np.sqrt(_d(Q)),)),
        Mistake("transpose-batch",
                (lambda Q, K, V, mask: row_softmax(masked_scores(Q @ K.T / np.sqrt(_d(Q)), mask)) @ V,
                 lambda Q, K, V, mask: row_softmax(masked_scores(np.dot(Q, K.T) / np.sqrt(_d(Q)), mask)) @ V)),
        Mistake("axis-1-on-batch",
                (lambda Q, K, V, mask: row_softmax(_w(Q, K, mask), axis=1) @ V,
                 lambda Q, K, V, mask: softmax_from(max_shift(_w(Q, K, mask), axis=1)) @ V)),
        Mistake("softmax-wrong-axis",
                (lambda Q, K, V, mask: row_softmax(_w(Q, K, mask), axis=0) @ V,
                 lambda Q, K, V, mask: row_softmax(_w(Q, K, mask), axis=-2) @ V)),
        Mistake("softmax-whole-matrix", (lambda Q, K, V, mask: softmax_whole(_w(Q, K, mask)) @ V,)),
        Mistake("softmax-no-keepdims",
                (lambda Q, K, V, mask: softmax_no_keepdims(_w(Q, K, mask)) @ V,
                 lambda Q, K, V, mask: softmax_no_keepdims(_w(Q, K, mask), "max") @ V,
                 lambda Q, K, V, mask: softmax_no_keepdims(_w(Q, K, mask), "both") @ V)),
        Mistake("max-wrong-axis",
                (lambda Q, K, V, mask: softmax_from(max_shift(_w(Q, K, mask), axis=0)) @ V,
                 lambda Q, K, V, mask: softmax_from(max_shift(_w(Q, K, mask), axis=-2)) @ V)),
        Mistake("no-division",
                (lambda Q, K, V, mask: np.exp(max_shift(_w(Q, K, mask))) @ V,
                 lambda Q, K, V, mask: np.exp(_w(Q, K, mask)) @ V),
                what="output"),
        Mistake("no-transpose",
                (lambda Q, K, V, mask: row_softmax(masked_scores(Q @ K / np.sqrt(_d(Q)), mask)) @ V,)),
        Mistake("scores-transposed",
                (lambda Q, K, V, mask: row_softmax(masked_scores(K @ transpose_last(Q) / np.sqrt(_d(Q)), mask)) @ V,
                 lambda Q, K, V, mask: row_softmax(
                     masked_scores(K @ transpose_last(Q) / np.sqrt(_d(Q)), _tm(mask))) @ V)),
        Mistake("mixed-queries", (lambda Q, K, V, mask: row_softmax(_w(Q, K, mask)) @ Q,)),
        Mistake("mixed-keys", (lambda Q, K, V, mask: row_softmax(_w(Q, K, mask)) @ K,)),
        Mistake("returned-weights", (lambda Q, K, V, mask: row_softmax(_w(Q, K, mask)),), shape="(n, m)",
                product="(n, m) x (m, d_v) -> (n, d_v)", values="V"),
        Mistake("returned-scores", (lambda Q, K, V, mask: scaled_qk(Q, K), lambda Q, K, V, mask: _w(Q, K, mask))),
        Mistake("output-transposed", (lambda Q, K, V, mask: transpose_last(attention_out(Q, K, V, mask)),)),
        Mistake("mask-after-softmax",
                (lambda Q, K, V, mask: (row_softmax(scaled_qk(Q, K)) * (1.0 if mask is None else mask)) @ V,)),
        Mistake("max-before-mask",
                (lambda Q, K, V, mask: softmax_from(_w(Q, K, mask) - np.max(scaled_qk(Q, K), axis=-1, keepdims=True))
                 @ V,),
                strict_nonfinite=True),
        Mistake("zero-then-renormalise",
                (lambda Q, K, V, mask: _renormalised(Q, K, mask) @ V,
                 lambda Q, K, V, mask: _renormalised(Q, K, mask, 1e-9) @ V,
                 _exp_shift_times_mask),
                strict_nonfinite=True),
        Mistake("mask-on-values",
                tuple((lambda Q, K, V, mask, how=how: _mask_on_values(Q, K, V, mask, how)) for how in ("all", "any",
                                                                                                   "first"))),
        Mistake("mask-zero", (lambda Q, K, V, mask: row_softmax(_w(Q, K, mask, 0.0)) @ V,)),
        Mistake("small-fill",
                tuple((lambda Q, K, V, mask, f=f: row_softmax(_w(Q, K, mask, f)) @ V) for f in SMALL_FILLS)),
        Mistake("inverted-mask", (lambda Q, K, V, mask: row_softmax(_w(Q, K, _inv(mask))) @ V,),
                allowed="keep its score there"),
        Mistake("ignored-mask", (lambda Q, K, V, mask: attention_out(Q, K, V, None),), what="output"),
        Mistake("inf-times-zero",
                (lambda Q, K, V, mask: row_softmax(scaled_qk(Q, K) if mask is None else
                                                   scaled_qk(Q, K) * mask + ~np.asarray(mask) * -np.inf) @ V,),
                strict_nonfinite=True),
        Mistake("mask-added",
                (lambda Q, K, V, mask: row_softmax(scaled_qk(Q, K) + (0 if mask is None else mask)) @ V,
                 lambda Q, K, V, mask: row_softmax(scaled_qk(Q, K) + (0 if mask is None else ~np.asarray(mask))) @ V)),
        Mistake("boolean-index-broadcast",
                (lambda Q, K, V, mask: row_softmax(bool_index_blocked(scaled_qk(Q, K), mask)) @ V,)),
        Mistake("dropped-key",
                (lambda Q, K, V, mask: _dropped_key(Q, K, V, mask),
                 lambda Q, K, V, mask: _dropped_key(Q, K, V, mask, first=True))),
        Mistake("uniform-weights", (_uniform_out, lambda Q, K, V, mask: _uniform_out(Q, K, V, None))),
    ]


def _tm(mask):
    return None if mask is None else transpose_last(mask)


def _inv(mask):
    return None if mask is None else ~mask


# The ids diagnose_output gives.
OUTPUT_DIAGNOSIS = ("wrong-shape", "not-an-average")


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
            return failure("wrong-shape", label=case.label, what="output", got=got.shape, extra=extra,
                           expected=f"(..., n, d_v) = {case.expected.shape}",
                           hint="Follow the shapes: scores (..., n, m), weights (..., n, m), output = weights @ V: "
                           "(..., n, m) x (..., m, d_v).")
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
            return failure("not-an-average", label=case.label, at=list(map(int, at)), value=shown, column=c,
                           low=fmt(low[at]), high=fmt(high[at]))
    return None
