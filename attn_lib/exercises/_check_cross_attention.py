"""check_cross_attention: one head of a decoder's cross-attention sublayer, with its own projections, on a batch."""

from __future__ import annotations

import numpy as np

from ._feedback import Feedback
from ._judge import judge
from ._types import BATCH, Case, FunctionProblem, Mistake
from ._pieces import (FIX_POWER_PRECEDENCE, FIX_SPLIT_SCALE, POWER_PRECEDENCE, SCALED_TWICE, SPLIT_SCALE,
                      SPLIT_SCALE_POWERS, attention_out, row_softmax, scaled_qk)

_ARGS = ("X_dec", "X_enc", "W_q", "W_k", "W_v")


def _head(X_q, X_kv, W_q, W_k, W_v, divide_by=None, mask=None):
    """softmax((X_q W_q)(X_kv W_k)^T / sqrt(d_k)) X_kv W_v for any leading batch axes: (..., n, d_v)."""
    return attention_out(X_q @ W_q, X_kv @ W_k, X_kv @ W_v, mask=mask, divide_by=divide_by)


def _right(X_dec, X_enc, W_q, W_k, W_v):
    return _head(X_dec, X_enc, W_q, W_k, W_v)


def _cases() -> list[Case]:
    rng = np.random.default_rng(17)
    cases = []
    for batch, n, m, d_model, d_k, d_v in (
        ((), 3, 5, 6, 4, 2),
        ((2,), 4, 6, 6, 3, 5),
        ((2, 3), 2, 3, 4, 2, 3),
    ):
        X_dec = rng.normal(size=(*batch, n, d_model))
        X_enc = rng.normal(size=(*batch, m, d_model))
        W_q, W_k = (rng.normal(size=(d_model, d_k)) / np.sqrt(d_model) for _ in range(2))
        W_v = rng.normal(size=(d_model, d_v)) / np.sqrt(d_model)
        inputs = dict(X_dec=X_dec, X_enc=X_enc, W_q=W_q, W_k=W_k, W_v=W_v)
        label = (f"X_dec {X_dec.shape}, X_enc {X_enc.shape} (n={n}, m={m}), d_model={d_model}, d_k={d_k}, "
                 f"d_v={d_v}")
        expected = _right(**inputs)
        cases.append(Case(label, inputs, expected, tags={BATCH} if batch else (),
                          averaged=float(np.abs(X_enc @ W_v).max())))
    return cases


def _causal(n, m, bottom_right=False):
    """top-left: query i sees keys 0..i; bottom-right: the last query sees every key (keys 0..i + m - n)."""
    return np.tri(n, m, k=m - n if bottom_right else 0, dtype=bool)


def _mistakes() -> list[Mistake]:
    return [
        Mistake(
            "values-from-decoder",
            "Your keys come from X_enc, but your values from X_dec, the decoder's own states. The weights "
            "(..., n, m) have one column per source position, so they average m value rows, and those must come "
            "from the same sequence as the keys: the encoder's output X_enc through W_v. With values from X_dec "
            "there are n value rows, which do not fit the m columns of the weights.",
            "Compute V = X_enc @ W_v, like K = X_enc @ W_k.",
            (lambda X_dec, X_enc, W_q, W_k, W_v: attention_out(X_dec @ W_q, X_enc @ W_k, X_dec @ W_v),),  # fails: n != m
        ),
        Mistake(
            "keys-from-decoder",
            "Your values come from X_enc, but your keys from X_dec, the decoder's own states. The scores then "
            "compare each decoder position with the decoder's positions (n x n), while the values have one row "
            "per source position (m): the keys must come from the same sequence as the values, X_enc through W_k, "
            "so the scores are n x m.",
            "Compute K = X_enc @ W_k, like V = X_enc @ W_v.",
            (lambda X_dec, X_enc, W_q, W_k, W_v: attention_out(X_dec @ W_q, X_dec @ W_k, X_enc @ W_v),),  # fails: n != m
        ),
        Mistake(
            "kv-from-decoder",
            "Your keys and values come from X_dec, the decoder's own states: that is self-attention, and the "
            "encoder's output never reaches the decoder. In the cross-attention sublayer only the queries come "
            "from the decoder; the keys and values are the encoder's output X_enc projected by this sublayer's "
            "W_k and W_v, so the scores are n x m, one column per source position.",
            "Compute K = X_enc @ W_k and V = X_enc @ W_v; only Q = X_dec @ W_q comes from the decoder.",
            (
                lambda X_dec, X_enc, W_q, W_k, W_v: _head(X_dec, X_dec, W_q, W_k, W_v),
                lambda X_dec, X_enc, W_q, W_k, W_v: row_softmax(  # and K.T, which fails on a batch
                    (X_dec @ W_q) @ (X_dec @ W_k).T / np.sqrt(W_q.shape[-1])) @ (X_dec @ W_v),
            ),
        ),
        Mistake(
            "queries-from-encoder",
            "Your queries come from X_enc and the keys and values from X_dec: the roles are swapped. The decoder "
            "asks (its n positions give the queries, and the output has one row per query, n rows); the encoder's "
            "output is what is read, so it gives the keys and values.",
            "Q = X_dec @ W_q; K and V from X_enc.",
            (lambda X_dec, X_enc, W_q, W_k, W_v: _head(X_enc, X_dec, W_q, W_k, W_v),),
        ),
        Mistake(
            "shared-projection",
            "Your keys are projected with W_q (or your queries with W_k): one matrix does two jobs. The sublayer "
            "has three projections of its own, W_q for what the decoder asks, W_k for what each source position "
            "offers, W_v for what it passes on; with one shared matrix a query would score highest the source "
            "position that looks most like itself, whatever the model has learned to ask.",
            "Use W_q for the queries, W_k for the keys, W_v for the values.",
            (
                lambda X_dec, X_enc, W_q, W_k, W_v: _head(X_dec, X_enc, W_q, W_q, W_v),
                lambda X_dec, X_enc, W_q, W_k, W_v: _head(X_dec, X_enc, W_k, W_k, W_v),
            ),
        ),
        Mistake(
            "causal-mask",
            "Your cross-attention applies a causal mask, so decoder position i reads only the source positions "
            "up to its own (0 to i, or with the mask aligned to the bottom-right corner 0 to i + m - n). The "
            "causal mask belongs to the decoder's self-attention (it must not see words it has not "
            "written yet); the source sentence is read whole before decoding starts, so every query may attend "
            "to all m encoder positions.",
            "Drop the mask: every decoder query sees every encoder position.",
            tuple((lambda X_dec, X_enc, W_q, W_k, W_v, corner=corner: _head(
                X_dec, X_enc, W_q, W_k, W_v, mask=_causal(X_dec.shape[-2], X_enc.shape[-2], corner)))
                for corner in (False, True)),
        ),
        Mistake(
            "transpose-on-batch",
            "Your function uses K.T, which reverses every axis: on one sentence (m, d_k) it is (d_k, m), but on a "
            "batch (b, m, d_k) it is (d_k, m, b), so the product pairs the wrong axes. The problem promises "
            "leading batch axes.",
            "Swap only the last two axes: np.swapaxes(K, -1, -2) (or K.swapaxes(-1, -2)).",
            (lambda X_dec, X_enc, W_q, W_k, W_v: row_softmax(
                (X_dec @ W_q) @ (X_enc @ W_k).T / np.sqrt(W_q.shape[-1])) @ (X_enc @ W_v),),
        ),
        Mistake(
            "divide-by-dk",
            "Your scores are divided by d_k = W_q.shape[-1] instead of sqrt(d_k). A score is a sum of d_k "
            "products, so its standard deviation, the unit that makes scores comparable, is sqrt(d_k); dividing "
            "by d_k shrinks the scores too much and flattens every row of weights." + SCALED_TWICE,
            "Divide by np.sqrt(d_k), not by d_k (K.shape[-1] is d_k itself).",
            (lambda X_dec, X_enc, W_q, W_k, W_v: _head(X_dec, X_enc, W_q, W_k, W_v,
                                                       divide_by=float(W_q.shape[-1])),),
        ),
        Mistake("power-precedence", POWER_PRECEDENCE, FIX_POWER_PRECEDENCE,
                tuple((lambda X_dec, X_enc, W_q, W_k, W_v, f=f: _head(X_dec, X_enc, W_q, W_k, W_v,
                                                                     divide_by=f(W_q.shape[-1])))
                      for f in (lambda d_k: 2.0 * d_k, lambda d_k: d_k / 2))),
        Mistake("split-scale", SPLIT_SCALE, FIX_SPLIT_SCALE,
                tuple((lambda X_dec, X_enc, W_q, W_k, W_v, p=p: _head(X_dec, X_enc, W_q, W_k, W_v,
                                                                     divide_by=W_q.shape[-1] ** p))
                      for p in SPLIT_SCALE_POWERS)),
        Mistake(
            "scaled-by-dv",
            "Your scores are divided by sqrt(d_v), the width of the values. The scale belongs to the dot products "
            "of queries with keys, which have d_k = W_q.shape[-1] terms; here d_k and d_v differ.",
            "Divide by np.sqrt(W_q.shape[-1]) (or K.shape[-1]).",
            (lambda X_dec, X_enc, W_q, W_k, W_v: _head(X_dec, X_enc, W_q, W_k, W_v,
                                                       divide_by=np.sqrt(W_v.shape[-1])),),
        ),
        Mistake(
            "d-model-scaling",
            "Your scores are divided by sqrt(d_model), the width of the decoder's and encoder's states. The dot "
            "products are taken after the projections, between queries and keys of width d_k = W_q.shape[-1].",
            "Divide by np.sqrt(W_q.shape[-1]).",
            (lambda X_dec, X_enc, W_q, W_k, W_v: _head(X_dec, X_enc, W_q, W_k, W_v,
                                                       divide_by=np.sqrt(X_dec.shape[-1])),),
        ),
        Mistake(
            "no-scaling",
            "Your scores are not divided by sqrt(d_k). Cross-attention is the same equation as self-attention, "
            "softmax(Q K^T / sqrt(d_k)) V; only where Q, K and V come from changes.",
            "Divide the scores by np.sqrt(d_k), d_k = W_q.shape[-1].",
            (lambda X_dec, X_enc, W_q, W_k, W_v: _head(X_dec, X_enc, W_q, W_k, W_v, divide_by=1.0),),
        ),
        Mistake(
            "returned-weights",
            "Your function returns the weights (..., n, m), not the output. The weights say how much each decoder "
            "position listens to each source position; the output is those weights times the values, "
            "(..., n, d_v).",
            "Multiply the weights by V = X_enc @ W_v and return that.",
            (lambda X_dec, X_enc, W_q, W_k, W_v: row_softmax(scaled_qk(X_dec @ W_q, X_enc @ W_k)),),
        ),
        Mistake(
            "softmax-wrong-axis",
            "Your softmax runs over the decoder positions (each column of the weights sums to one) instead of "
            "over the source positions. Each decoder query shares its attention among the m encoder positions: "
            "every row sums to one.",
            "Take the softmax along axis=-1.",
            (lambda X_dec, X_enc, W_q, W_k, W_v: row_softmax(
                scaled_qk(X_dec @ W_q, X_enc @ W_k), axis=-2) @ (X_enc @ W_v),),
        ),
    ]


PROBLEM = FunctionProblem(
    checker="check_cross_attention",
    params=_ARGS,
    cases=_cases,
    mistakes=_mistakes,
    passed="Your cross-attention head is right in all {count} cases (one sentence, a batch of 2 and a batch of "
    "2 x 3, with n != m and d_k != d_v): the queries are the decoder's states through this sublayer's W_q, the keys "
    "and values are the encoder's output through its W_k and W_v, so the weights are (..., n, m) with no mask, "
    "and the output has one row of width d_v per decoder position.",
    what="output",
    forbidden=("MultiHeadAttention",),
    hint="Print the shapes of Q, K, V and the scores for a batch: Q (..., n, d_k) from X_dec, K (..., m, d_k) and "
    "V (..., m, d_v) from X_enc, scores (..., n, m).",
)


def check_cross_attention(fn) -> Feedback:
    """Check a learner's ``fn(X_dec, X_enc, W_q, W_k, W_v) -> output (..., n, d_v)``: one cross-attention head.

    X_dec (..., n, d_model) are the decoder's states, X_enc (..., m, d_model) the encoder's output; W_q and W_k
    are (d_model, d_k), W_v (d_model, d_v), the sublayer's own projections. The output is
    softmax(Q K^T / sqrt(d_k)) V with Q = X_dec W_q, K = X_enc W_k, V = X_enc W_v and no mask. Cases have
    n != m, d_k != d_v, and zero, one and two leading batch axes. attn_lib's ``attention`` and ``softmax`` may be
    called; ``MultiHeadAttention`` may not.

    Parameters
    ----------
    fn : callable or None

    Returns
    -------
    Feedback

    Examples
    --------
    >>> from attn_lib import attention
    >>> check_cross_attention(lambda X_dec, X_enc, W_q, W_k, W_v: attention(
    ...     X_dec @ W_q, X_enc @ W_k, X_enc @ W_v)).passed
    True
    >>> check_cross_attention(lambda X_dec, X_enc, W_q, W_k, W_v: attention(
    ...     X_dec @ W_q, X_dec @ W_k, X_dec @ W_v)).mistake
    'kv-from-decoder'
    """
    return judge(fn, PROBLEM)
