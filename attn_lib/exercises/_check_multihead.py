"""check_multihead: multi-head attention assembled by the learner from single-head pieces, with W^O."""

from __future__ import annotations

import numpy as np

from ._feedback import Feedback
from ._judge import judge
from ._types import Case, FunctionProblem, Mistake
from ._pieces import (FIX_POWER_PRECEDENCE, FIX_SPLIT_SCALE, POWER_PRECEDENCE, SCALED_TWICE, SPLIT_SCALE,
                      SPLIT_SCALE_POWERS, row_softmax)

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


def _mistakes() -> list[Mistake]:
    return [
        Mistake(
            "returned-weights",
            "Your function returns the heads' attention weights stacked, (heads, n, m), not the output. The "
            "weights say how much each query listens to each key; each head's output multiplies them by its "
            "values, (n, m) x (m, d_v) -> (n, d_v), and the heads side by side go through W^O.",
            "In each head, multiply the weights by V_h = X_kv @ W_v[h]; then concatenate and apply W_o.",
            (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _heads(X_q, X_kv, W_q, W_k, W_v, weights=True),
             lambda X_q, X_kv, W_q, W_k, W_v, W_o: _concat(_heads(X_q, X_kv, W_q, W_k, W_v, weights=True))),
        ),
        Mistake(
            "forgot-w-o",
            "Your function returns the concatenated heads, (n, heads * d_v), without the output projection. "
            "Concatenating only puts the heads side by side; W^O, (heads * d_v, d_model), mixes what the heads "
            "found and brings the width back to d_model, so the next layer gets vectors of the width it expects.",
            "After joining the heads side by side, multiply by W_o (heads * d_v, d_model).",
            (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _concat(_heads(X_q, X_kv, W_q, W_k, W_v)),),
        ),
        Mistake(
            "returned-heads",
            "Your function returns the heads' outputs stacked, (heads, n, d_v): one output per head, not yet "
            "one per position. Multi-head attention puts the heads side by side for each position, "
            "(n, heads * d_v), and maps that with W^O to (n, d_model).",
            "Concatenate along the last axis, then multiply by W_o.",
            (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _heads(X_q, X_kv, W_q, W_k, W_v),),
        ),
        Mistake(
            "concat-wrong-axis",
            "Your heads are put together in the wrong order. Position i's row of the concatenation must be "
            "[head 0's output row i, head 1's output row i, ...]: the heads side by side along the last axis. "
            "Stacking them to (heads, n, d_v) and reshaping straight to (n, heads * d_v), or interleaving "
            "their columns, gives the right shape but mixes positions or columns, and W^O then reads the "
            "wrong numbers.",
            "Join the heads side by side along the last axis: each position keeps its row, (n, heads * d_v).",
            (
                lambda X_q, X_kv, W_q, W_k, W_v, W_o: (
                    _heads(X_q, X_kv, W_q, W_k, W_v).reshape(X_q.shape[0], -1) @ W_o
                ),
                lambda X_q, X_kv, W_q, W_k, W_v, W_o: (
                    np.stack(list(_heads(X_q, X_kv, W_q, W_k, W_v)), axis=-1).reshape(X_q.shape[0], -1) @ W_o
                ),
            ),
        ),
        Mistake(
            "concat-axis-0",
            "You concatenated the heads along axis 0, down the rows: (heads * n, d_v), one block of n rows per "
            "head, which W_o (heads * d_v, d_model) cannot multiply. The concatenation runs along the other axis: "
            "each position keeps one row holding every head's output side by side, (n, heads * d_v).",
            "np.concatenate(heads, axis=-1): along the last axis, the width.",
            (lambda X_q, X_kv, W_q, W_k, W_v, W_o: (  # stacked down the rows: fails at W_o
                np.concatenate(list(_heads(X_q, X_kv, W_q, W_k, W_v)), axis=0) @ W_o),
             lambda X_q, X_kv, W_q, W_k, W_v, W_o: np.concatenate(list(_heads(X_q, X_kv, W_q, W_k, W_v)), axis=0)),
        ),
        Mistake(
            "shared-projection",
            "All your heads use the same projection (head 0's), so they compute the same thing h times. Each "
            "head has its own W_q[h], W_k[h] and W_v[h]: that is what lets different heads attend to "
            "different positions.",
            "Inside the loop over h, use W_q[h], W_k[h] and W_v[h].",
            tuple(
                (lambda share: lambda X_q, X_kv, W_q, W_k, W_v, W_o: _concat(
                    _heads(X_q, X_kv, W_q, W_k, W_v, share=share)) @ W_o)(share)
                for share in (("q", "k", "v"), ("q",), ("k",), ("v",), ("q", "k"))
            ),
        ),
        Mistake(
            "last-head-only",
            "Every one of your heads uses the last head's projections W_q[-1], W_k[-1], W_v[-1]: a loop variable "
            "read after its loop ended (or one set of weights kept from the last pass) gives h copies of one "
            "head. Each head has its own projections.",
            "Inside the loop over h, use W_q[h], W_k[h] and W_v[h] of that same pass.",
            (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _concat(
                [_head(X_q, X_kv, W_q[-1], W_k[-1], W_v[-1])] * W_q.shape[0]) @ W_o,),
        ),
        Mistake(
            "heads-summed",
            "You added the heads' outputs instead of concatenating them. A sum of (n, d_v) outputs throws away "
            "which head found what; the concatenation keeps each head in its own columns, (n, heads * d_v), "
            "and W^O learns how to combine them.",
            "Put the heads side by side along the last axis instead of adding them, then apply W_o.",
            (
                lambda X_q, X_kv, W_q, W_k, W_v, W_o: _heads(X_q, X_kv, W_q, W_k, W_v).sum(axis=0),
                lambda X_q, X_kv, W_q, W_k, W_v, W_o: _heads(X_q, X_kv, W_q, W_k, W_v).mean(axis=0),
                lambda X_q, X_kv, W_q, W_k, W_v, W_o: (
                    _heads(X_q, X_kv, W_q, W_k, W_v).sum(axis=0) @ W_o[: W_v.shape[-1]]
                ),
            ),
        ),
        Mistake(
            "w-o-transposed",
            "You multiplied by W_o transposed. W_o is (heads * d_v, d_model): its rows meet the concatenated "
            "heads, so it goes on the right as it is, (n, heads * d_v) x (heads * d_v, d_model).",
            "Use concat @ W_o, without .T.",
            (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _concat(_heads(X_q, X_kv, W_q, W_k, W_v)) @ W_o.T,),
        ),
        Mistake(
            "self-attention-on-kv",
            "Your queries come from X_kv too, so every head is self-attention on the sequence read: one output row "
            "per key position, (m, d_model). In cross-attention only the keys and values come from X_kv; the "
            "queries ask from the sequence being written, X_q, so the output has one row per query, (n, d_model). "
            "(On the self-attention case, where X_q is X_kv, your answer is right.)",
            "Each head's queries are projected from X_q; only its keys and values come from X_kv.",
            (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _right(X_kv, X_kv, W_q, W_k, W_v, W_o),),
        ),
        Mistake(
            "queries-from-kv",
            "Your queries come from X_kv and the keys and values from X_q: the roles are swapped. The queries "
            "ask, so they come from the sequence being written (X_q, n positions); keys and values come from the "
            "sequence read (X_kv, m positions). The output has one row per query: (n, d_model).",
            "Queries come from X_q; keys and values come from X_kv.",
            (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _right(X_kv, X_q, W_q, W_k, W_v, W_o),),
        ),
        Mistake(
            "kv-from-queries",
            "Your keys and values come from X_q instead of X_kv: every head attends to the queries' own sequence. "
            "In cross-attention the queries ask (X_q), and the keys and values come from the sequence read "
            "(X_kv, m positions).",
            "Keys and values come from X_kv.",
            (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _right(X_q, X_q, W_q, W_k, W_v, W_o),),
        ),
        Mistake(
            "values-from-queries",
            "Your keys come from X_kv but your values from X_q. The weights (n, m) have one column per key, "
            "so they average m value rows, and those come from the same sequence as the keys: V_h = X_kv @ "
            "W_v[h], (m, d_v). With values from X_q there are n value rows, which fit the weights only when "
            "n = m (the self-attention case), where your answer is right.",
            "Project the values from X_kv, like the keys: V_h = X_kv @ W_v[h].",
            (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _concat(_heads(X_q, X_kv, W_q, W_k, W_v, X_v=X_q)) @ W_o,),
        ),
        Mistake(
            "keys-from-queries",
            "Your values come from X_kv but your keys from X_q. The scores then compare each query with the "
            "queries' own sequence, (n, n), while the values have one row per position of X_kv (m): keys and "
            "values come from the same sequence read, X_kv, so the scores are (n, m). (On the self-attention "
            "case, where X_q is X_kv, your answer is right.)",
            "Project the keys from X_kv, like the values: K_h = X_kv @ W_k[h].",
            (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _concat(_heads(X_q, X_kv, W_q, W_k, W_v, X_k=X_q)) @ W_o,),
        ),
        Mistake(
            "divide-by-dk",
            "Your heads divide their scores by d_k = W_q.shape[-1] instead of sqrt(d_k). A score is a sum of "
            "d_k products, so its standard deviation, the unit that makes scores comparable, is sqrt(d_k); "
            "dividing by d_k shrinks the scores too much and flattens every head's weights." + SCALED_TWICE,
            "Divide each head's scores by np.sqrt(W_q.shape[-1]), not by W_q.shape[-1].",
            (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _concat(
                _heads(X_q, X_kv, W_q, W_k, W_v, scale=float(W_q.shape[-1]))) @ W_o,),
        ),
        Mistake("power-precedence", POWER_PRECEDENCE, FIX_POWER_PRECEDENCE,
                tuple((lambda X_q, X_kv, W_q, W_k, W_v, W_o, f=f: _concat(
                    _heads(X_q, X_kv, W_q, W_k, W_v, scale=f(W_q.shape[-1]))) @ W_o)
                      for f in (lambda d_k: 2.0 * d_k, lambda d_k: d_k / 2))),
        Mistake("split-scale", SPLIT_SCALE, FIX_SPLIT_SCALE,
                tuple((lambda X_q, X_kv, W_q, W_k, W_v, W_o, p=p: _concat(
                    _heads(X_q, X_kv, W_q, W_k, W_v, scale=float(W_q.shape[-1]) ** p)) @ W_o)
                      for p in SPLIT_SCALE_POWERS)),
        Mistake(
            "scaled-by-dv",
            "Your heads divide their scores by sqrt(d_v), the width of the values. The scale belongs to the dot "
            "products of queries with keys, which have d_k = W_q.shape[-1] terms.",
            "Take the scale from the queries' width, W_q.shape[-1].",
            (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _concat(
                _heads(X_q, X_kv, W_q, W_k, W_v, scale=np.sqrt(W_v.shape[-1]))) @ W_o,),
        ),
        Mistake(
            "d-model-scaling",
            "Your scores are divided by sqrt(d_model) instead of sqrt(d_k). Each head compares queries and keys "
            "of width d_k = W_q.shape[-1], so sqrt(d_k) is the size of one of its scores.",
            "Divide each head's scores by np.sqrt(W_q.shape[-1]).",
            (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _concat(
                _heads(X_q, X_kv, W_q, W_k, W_v, scale=np.sqrt(X_q.shape[-1]))) @ W_o,),
        ),
        Mistake(
            "dk-from-d-model",
            "Your heads divide their scores by the square root of d_model / heads. d_k is the width of one "
            "head's queries, W_q's last axis, not d_model / heads; in this case they differ. (The paper "
            "chooses d_k = d_model / heads, 64 = 512 / 8, but the equation needs the width the dot products "
            "actually have.)",
            "Read d_k from W_q.shape[-1].",
            tuple(
                (lambda split: lambda X_q, X_kv, W_q, W_k, W_v, W_o: _concat(_heads(
                    X_q, X_kv, W_q, W_k, W_v, scale=np.sqrt(split(X_q.shape[-1], W_q.shape[0])))) @ W_o)(split)
                for split in (np.floor_divide, np.true_divide)
            ),
        ),
        Mistake(
            "no-scaling",
            "Your heads do not divide their scores by sqrt(d_k). Each head is the single-head equation, "
            "softmax(Q K^T / sqrt(d_k)) V, on its own projections.",
            "Divide each head's scores by np.sqrt(d_k), d_k = W_q.shape[-1].",
            (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _concat(
                _heads(X_q, X_kv, W_q, W_k, W_v, scale=1.0)) @ W_o,),
        ),
        Mistake(
            "softmax-wrong-axis",
            "Your heads take the softmax over the queries (each column sums to one) instead of over the keys. "
            "Each query shares its attention among the m keys: every row of a head's weights sums to one.",
            "Use axis=-1 in the softmax.",
            (lambda X_q, X_kv, W_q, W_k, W_v, W_o: _concat(
                _heads(X_q, X_kv, W_q, W_k, W_v, axis=-2)) @ W_o,),
        ),
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
