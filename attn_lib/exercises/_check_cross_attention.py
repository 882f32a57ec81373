"""check_cross_attention: one head of a decoder's cross-attention sublayer, with its own projections, on a batch."""

from __future__ import annotations

import numpy as np

from ._feedback import Feedback
from ._judge import judge
from ._types import BATCH, Case, FunctionProblem, Mistake
from ._pieces import SPLIT_SCALE_POWERS, attention_out, row_softmax, scaled_qk

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


# The template fields of the scale mistakes (no-scaling, divide-by-dk, ...): what this checker returns, and
# where d_k is read.
_SCALE_FIELDS = {"what": "output", "d_k": "W_q.shape[-1]"}


def _mistakes() -> list[Mistake]:
    return [
        Mistake("values-from-decoder",
                (lambda X_dec, X_enc, W_q, W_k, W_v: attention_out(X_dec @ W_q, X_enc @ W_k, X_dec @ W_v),)),
        Mistake("keys-from-decoder",
                (lambda X_dec, X_enc, W_q, W_k, W_v: attention_out(X_dec @ W_q, X_dec @ W_k, X_enc @ W_v),)),
        Mistake("kv-from-decoder",
                (lambda X_dec, X_enc, W_q, W_k, W_v: _head(X_dec, X_dec, W_q, W_k, W_v),
                 lambda X_dec, X_enc, W_q, W_k, W_v: row_softmax(  # and K.T, which fails on a batch
                    (X_dec @ W_q) @ (X_dec @ W_k).T / np.sqrt(W_q.shape[-1])) @ (X_dec @ W_v))),
        Mistake("queries-from-encoder", (lambda X_dec, X_enc, W_q, W_k, W_v: _head(X_enc, X_dec, W_q, W_k, W_v),)),
        Mistake("shared-projection",
                (lambda X_dec, X_enc, W_q, W_k, W_v: _head(X_dec, X_enc, W_q, W_q, W_v),
                 lambda X_dec, X_enc, W_q, W_k, W_v: _head(X_dec, X_enc, W_k, W_k, W_v)),
                which="the keys are projected with W_q (or the queries with W_k)"),
        Mistake("causal-mask",
                tuple((lambda X_dec, X_enc, W_q, W_k, W_v, corner=corner: _head(
                X_dec, X_enc, W_q, W_k, W_v, mask=_causal(X_dec.shape[-2], X_enc.shape[-2], corner)))
                for corner in (False, True))),
        Mistake("transpose-on-batch",
                (lambda X_dec, X_enc, W_q, W_k, W_v: row_softmax(
                (X_dec @ W_q) @ (X_enc @ W_k).T / np.sqrt(W_q.shape[-1])) @ (X_enc @ W_v),)),
        Mistake("divide-by-dk",
                (lambda X_dec, X_enc, W_q, W_k, W_v: _head(X_dec, X_enc, W_q, W_k, W_v,
                                                       divide_by=float(W_q.shape[-1])),),
                **_SCALE_FIELDS),
        Mistake("power-precedence",
                tuple((lambda X_dec, X_enc, W_q, W_k, W_v, f=f: _head(X_dec, X_enc, W_q, W_k, W_v,
                                                                     divide_by=f(W_q.shape[-1])))
                      for f in (lambda d_k: 2.0 * d_k, lambda d_k: d_k / 2))),
        Mistake("split-scale",
                tuple((lambda X_dec, X_enc, W_q, W_k, W_v, p=p: _head(X_dec, X_enc, W_q, W_k, W_v,
                                                                     divide_by=W_q.shape[-1] ** p))
                      for p in SPLIT_SCALE_POWERS)),
        Mistake("scaled-by-dv",
                (lambda X_dec, X_enc, W_q, W_k, W_v: _head(X_dec, X_enc, W_q, W_k, W_v,
                                                       divide_by=np.sqrt(W_v.shape[-1])),),
                **_SCALE_FIELDS),
        Mistake("d-model-scaling",
                (lambda X_dec, X_enc, W_q, W_k, W_v: _head(X_dec, X_enc, W_q, W_k, W_v,
                                                       divide_by=np.sqrt(X_dec.shape[-1])),),
                **_SCALE_FIELDS),
        Mistake("no-scaling",
                (lambda X_dec, X_enc, W_q, W_k, W_v: _head(X_dec, X_enc, W_q, W_k, W_v, divide_by=1.0),),
                **_SCALE_FIELDS),
        Mistake("returned-weights",
                (lambda X_dec, X_enc, W_q, W_k, W_v: row_softmax(scaled_qk(X_dec @ W_q, X_enc @ W_k)),),
                shape="(..., n, m)", product="(..., n, d_v)", values="V = X_enc @ W_v"),
        Mistake("softmax-wrong-axis",
                (lambda X_dec, X_enc, W_q, W_k, W_v: row_softmax(
                scaled_qk(X_dec @ W_q, X_enc @ W_k), axis=-2) @ (X_enc @ W_v),)),
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
