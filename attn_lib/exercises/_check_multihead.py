"""check_multihead: multi-head attention assembled by the learner from single-head pieces, with W^O."""

from __future__ import annotations

import numpy as np

from ._feedback import Feedback
from ._judge import judge
from ._types import Case, FunctionProblem, Mistake
from ._pieces import SPLIT_SCALE_POWERS, row_softmax

_ARGS = ("X_q", "X_kv", "W_q", "W_k", "W_v", "W_o")


def _head(X_q, X_kv, W_q, W_k, W_v, scale=None, axis=-1, X_k=None, X_v=None, weights=False):
    """One head's output (or, with ``weights``, its weights); ``X_k``, ``X_v`` replace X_kv for the keys, values."""
    X_k, X_v = (X_kv if X is None else X for X in (X_k, X_v))
    Q, K, V = X_q @ W_q, X_k @ W_k, X_v @ W_v  # (n, d_k), (m, d_k), (m, d_v)
    scores = Q @ K.T / (np.sqrt(W_q.shape[-1]) if scale is None else scale)  # (n, d_k) x (d_k, m) -> (n, m)
    w = row_softmax(scores, axis=axis)
    return w if weights else w @ V  # (n, m) x (m, d_v) -> (n, d_v)


def _heads(X_q, X_kv, W_q, W_k, W_v, share=(), **kw):
    """(heads, n, d_v): every head's output; ``share`` names the projections all heads take from head 0."""
    pick = lambda W, name, h: W[0] if name in share else W[h]  # noqa: E731
    return np.stack([_head(X_q, X_kv, pick(W_q, "q", h), pick(W_k, "k", h), pick(W_v, "v", h), **kw)
                     for h in range(W_q.shape[0])])


def _concat(heads):
    return np.concatenate(list(heads), axis=-1)  # (heads, n, d_v) -> (n, heads * d_v)


def _right(X_q, X_kv, W_q, W_k, W_v, W_o):
    return _concat(_heads(X_q, X_kv, W_q, W_k, W_v)) @ W_o  # (n, heads * d_v) x (heads * d_v, d_model)


def _cases() -> list[Case]:
    rng = np.random.default_rng(7)
    cases = []
    for n, m, d_model, heads, d_k, d_v, self_attention in (
        (3, 5, 6, 2, 4, 2, False),
        (4, 4, 8, 4, 2, 2, True),
        (2, 3, 5, 3, 3, 2, False),
    ):
        X_q = rng.normal(size=(n, d_model))
        X_kv = X_q if self_attention else rng.normal(size=(m, d_model))
        W_q = rng.normal(size=(heads, d_model, d_k)) / np.sqrt(d_model)
        W_k = rng.normal(size=(heads, d_model, d_k)) / np.sqrt(d_model)
        W_v = rng.normal(size=(heads, d_model, d_v)) / np.sqrt(d_model)
        W_o = rng.normal(size=(heads * d_v, d_model)) / np.sqrt(heads * d_v)
        inputs = dict(X_q=X_q, X_kv=X_kv, W_q=W_q, W_k=W_k, W_v=W_v, W_o=W_o)
        kind = "self-attention, X_q = X_kv" if self_attention else "cross-attention"
        label = (f"{kind}: n={n}, m={m}, d_model={d_model}, heads={heads}, d_k={d_k}, d_v={d_v}, "
                 f"W_o {W_o.shape}")
        cases.append(Case(label, inputs, _right(**inputs)))
    return cases


# The template fields of the scale mistakes (no-scaling, divide-by-dk, ...): what this checker returns, and
# where d_k is read.
_SCALE_FIELDS = {"what": "output", "d_k": "W_q.shape[-1]"}


def _mistakes() -> list[Mistake]:
    return [
        Mistake("returned-weights",
                (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _heads(X_q, X_kv, W_q, W_k, W_v, weights=True),
                 lambda X_q, X_kv, W_q, W_k, W_v, W_o: _concat(_heads(X_q, X_kv, W_q, W_k, W_v, weights=True))),
                shape="of every head, (heads, n, m)",
                product="(n, m) x (m, d_v) -> (n, d_v) in each head, the heads side by side then through W^O",
                values="V_h = X_kv @ W_v[h], in each head"),
        Mistake("forgot-w-o", (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _concat(_heads(X_q, X_kv, W_q, W_k, W_v)),)),
        Mistake("returned-heads", (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _heads(X_q, X_kv, W_q, W_k, W_v),)),
        Mistake("concat-wrong-axis",
                (lambda X_q, X_kv, W_q, W_k, W_v, W_o: (
                    _heads(X_q, X_kv, W_q, W_k, W_v).reshape(X_q.shape[0], -1) @ W_o
                ),
                 lambda X_q, X_kv, W_q, W_k, W_v, W_o: (
                    np.stack(list(_heads(X_q, X_kv, W_q, W_k, W_v)), axis=-1).reshape(X_q.shape[0], -1) @ W_o
                ))),
        Mistake("concat-axis-0",
                (lambda X_q, X_kv, W_q, W_k, W_v, W_o: (  # stacked down the rows: fails at W_o
                np.concatenate(list(_heads(X_q, X_kv, W_q, W_k, W_v)), axis=0) @ W_o),
                 lambda X_q, X_kv, W_q, W_k, W_v, W_o: np.concatenate(list(_heads(X_q, X_kv, W_q, W_k, W_v)), axis=0))),
        Mistake("shared-projection",
                tuple(
                (lambda share: lambda X_q, X_kv, W_q, W_k, W_v, W_o: _concat(
                    _heads(X_q, X_kv, W_q, W_k, W_v, share=share)) @ W_o)(share)
                for share in (("q", "k", "v"), ("q",), ("k",), ("v",), ("q", "k"))
            ),
                which="every head uses head 0's projections"),
        Mistake("last-head-only",
                (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _concat(
                [_head(X_q, X_kv, W_q[-1], W_k[-1], W_v[-1])] * W_q.shape[0]) @ W_o,)),
        Mistake("heads-summed",
                (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _heads(X_q, X_kv, W_q, W_k, W_v).sum(axis=0),
                 lambda X_q, X_kv, W_q, W_k, W_v, W_o: _heads(X_q, X_kv, W_q, W_k, W_v).mean(axis=0),
                 lambda X_q, X_kv, W_q, W_k, W_v, W_o: (
                    _heads(X_q, X_kv, W_q, W_k, W_v).sum(axis=0) @ W_o[: W_v.shape[-1]]
                ))),
        Mistake("w-o-transposed",
                (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _concat(_heads(X_q, X_kv, W_q, W_k, W_v)) @ W_o.T,)),
        Mistake("self-attention-on-kv",
                (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _right(X_kv, X_kv, W_q, W_k, W_v, W_o),)),
        Mistake("queries-from-kv", (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _right(X_kv, X_q, W_q, W_k, W_v, W_o),)),
        Mistake("kv-from-queries", (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _right(X_q, X_q, W_q, W_k, W_v, W_o),)),
        Mistake("values-from-queries",
                (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _concat(_heads(X_q, X_kv, W_q, W_k, W_v, X_v=X_q)) @ W_o,)),
        Mistake("keys-from-queries",
                (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _concat(_heads(X_q, X_kv, W_q, W_k, W_v, X_k=X_q)) @ W_o,)),
        Mistake("divide-by-dk",
                (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _concat(
                _heads(X_q, X_kv, W_q, W_k, W_v, scale=float(W_q.shape[-1]))) @ W_o,),
                **_SCALE_FIELDS),
        Mistake("power-precedence",
                tuple((lambda X_q, X_kv, W_q, W_k, W_v, W_o, f=f: _concat(
                    _heads(X_q, X_kv, W_q, W_k, W_v, scale=f(W_q.shape[-1]))) @ W_o)
                      for f in (lambda d_k: 2.0 * d_k, lambda d_k: d_k / 2))),
        Mistake("split-scale",
                tuple((lambda X_q, X_kv, W_q, W_k, W_v, W_o, p=p: _concat(
                    _heads(X_q, X_kv, W_q, W_k, W_v, scale=float(W_q.shape[-1]) ** p)) @ W_o)
                      for p in SPLIT_SCALE_POWERS)),
        Mistake("scaled-by-dv",
                (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _concat(
                _heads(X_q, X_kv, W_q, W_k, W_v, scale=np.sqrt(W_v.shape[-1]))) @ W_o,),
                **_SCALE_FIELDS),
        Mistake("d-model-scaling",
                (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _concat(
                _heads(X_q, X_kv, W_q, W_k, W_v, scale=np.sqrt(X_q.shape[-1]))) @ W_o,),
                **_SCALE_FIELDS),
        Mistake("dk-from-d-model",
                tuple(
                (lambda split: lambda X_q, X_kv, W_q, W_k, W_v, W_o: _concat(_heads(
                    X_q, X_kv, W_q, W_k, W_v, scale=np.sqrt(split(X_q.shape[-1], W_q.shape[0])))) @ W_o)(split)
                for split in (np.floor_divide, np.true_divide)
            )),
        Mistake("no-scaling",
                (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _concat(
                _heads(X_q, X_kv, W_q, W_k, W_v, scale=1.0)) @ W_o,),
                **_SCALE_FIELDS),
        Mistake("softmax-wrong-axis",
                (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _concat(
                _heads(X_q, X_kv, W_q, W_k, W_v, axis=-2)) @ W_o,)),
    ]


def check_multihead(fn) -> Feedback:
    """Check a learner's ``fn(X_q, X_kv, W_q, W_k, W_v, W_o) -> output (n, d_model)``.

    X_q (n, d_model) gives the queries, X_kv (m, d_model) the keys and values; W_q and W_k are
    (heads, d_model, d_k), W_v (heads, d_model, d_v), W_o (heads * d_v, d_model). Head h is
    softmax(Q_h K_h^T / sqrt(d_k)) V_h with Q_h = X_q @ W_q[h], K_h = X_kv @ W_k[h], V_h = X_kv @ W_v[h]; the
    heads' outputs are concatenated in order along the last axis and multiplied by W_o. Cases have n != m,
    d_k != d_v and heads * d_v != d_model, and one self-attention case.

    Parameters
    ----------
    fn : callable or None

    Returns
    -------
    Feedback

    Examples
    --------
    >>> from attn_lib import attention
    >>> def mha(X_q, X_kv, W_q, W_k, W_v, W_o):
    ...     heads = [attention(X_q @ W_q[h], X_kv @ W_k[h], X_kv @ W_v[h]) for h in range(len(W_q))]
    ...     return np.concatenate(heads, axis=-1) @ W_o
    >>> check_multihead(mha).passed
    True
    """
    return judge(fn, PROBLEM)


PROBLEM = FunctionProblem(
    checker="check_multihead",
    params=_ARGS,
    cases=_cases,
    mistakes=_mistakes,
    passed="Your multi-head attention is right in all {count} cases (cross-attention with n != m, d_k != d_v and "
    "heads * d_v != d_model, and self-attention): each head on its own projections, the heads concatenated in "
    "order along the last axis, then W^O.",
    what="output",
    forbidden=("MultiHeadAttention",),
    tools="attn_lib.attention or your own attention for each head, np.concatenate, @",
    hint="Check one head at a time against attn_lib.attention on that head's projections; each head gives "
    "(n, d_v), side by side (n, heads * d_v), times W_o (heads * d_v, d_model).",
)
