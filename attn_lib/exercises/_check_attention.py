"""check_attention: a learner's softmax(Q K^T / sqrt(d_k)) V, and the classic ways to get it wrong."""

from __future__ import annotations

import dataclasses

import numpy as np

from ..attention import attention as _attention
from ._attention_mistakes import OUTPUT_DIAGNOSIS, attention_mistakes, diagnose_output
from ._feedback import Feedback
from ._judge import judge
from ._types import BATCH, BROADCAST, LARGE, Case, FunctionProblem
from ._learner_code import fills_blocked, zeroed_before_max
from ._pieces import FINITE_FILL_NOTE, scaled_qk


def _cases() -> list[Case]:
    rng = np.random.default_rng(20170612)  # fixed: the same cases, and the same feedback, on every run
    cases = []

    def add(label, q, k, v, mask=None, tags=(), top=None, levels=False, offset=None):
        Q, K, V = rng.normal(size=q), rng.normal(size=k), rng.normal(size=v)
        if offset is not None:  # a last column that adds `offset` (one per key) to every scaled score
            Q[..., -1] = 1.0
            K[..., -1] = np.asarray(offset) * np.sqrt(q[-1])
        if top is not None:  # rescale the queries so that the largest scaled score is exactly `top`
            Q *= top / scaled_qk(Q, K).max()
        if levels:  # query 0 near 0, the other queries near 1000
            Q[1:] *= 1000.0 / scaled_qk(Q[1:], K).max()
        scores = scaled_qk(Q, K)
        shapes = f"Q {Q.shape}, K {K.shape}, V {V.shape}"
        if mask is not None:
            shapes += f", mask {mask.shape}"
        tags = set(tags)
        if mask is not None and np.shape(mask) != scores.shape:
            tags.add(BROADCAST)
        inputs = {"Q": Q, "K": K, "V": V, "mask": mask}
        expected = _attention(Q, K, V, mask=mask)
        cases.append(Case(f"{shapes} ({label})", inputs, expected, tags, scale=np.abs(scores).max(),
                          averaged=np.abs(V).max()))

    # Widths avoid 4 (sqrt(4) = 2 would make "unscaled" equal "scores doubled") and 64 (the paper's d_k).
    add("cross-attention: n != m, d_k != d_v", (3, 6), (5, 6), (5, 2))
    add("self-attention: n = m = d_k = d_v", (5, 5), (5, 5), (5, 5))
    add("scores as large as 1000", (4, 8), (6, 8), (6, 3), tags=(LARGE,), top=1000.0)
    add("query 0 near 0, queries 1 and 2 near 1000", (3, 5), (6, 5), (6, 2), tags=(LARGE,), levels=True)
    add("a causal mask", (5, 3), (5, 3), (5, 3), mask=np.tri(5, 5, dtype=bool))
    add("a padding mask: keys 4 and 5 blocked", (3, 6), (6, 6), (6, 2),
        mask=np.broadcast_to(np.arange(6) < 4, (3, 6)).copy())
    add("a padding mask, every score near -300", (3, 6), (5, 6), (5, 2),
        mask=np.broadcast_to(np.arange(5) < 3, (3, 5)).copy(), offset=-300.0)
    add("a padding mask whose blocked keys 3 and 4 score 1000 more than the others", (3, 6), (5, 6), (5, 2),
        mask=np.broadcast_to(np.arange(5) < 3, (3, 5)).copy(), offset=[0, 0, 0, 1000.0, 1000.0])
    add("a padding mask (1, 6) that broadcasts: keys 4 and 5 blocked", (4, 5), (6, 5), (6, 3),
        mask=(np.arange(6) < 4)[None, :])
    add("a batch of 2", (2, 3, 7), (2, 5, 7), (2, 5, 3), tags=(BATCH,))
    add("two batch axes", (2, 2, 3, 5), (2, 2, 4, 5), (2, 2, 4, 3), tags=(BATCH,))
    add("a batch of 2 with padding masks of lengths 3 and 5", (2, 3, 6), (2, 5, 6), (2, 5, 2),
        mask=(np.arange(5) < np.array([3, 5])[:, None])[:, None, :], tags=(BATCH,))
    add("a batch of 2 sharing one causal mask", (2, 4, 3), (2, 4, 3), (2, 4, 2), mask=np.tri(4, 4, dtype=bool),
        tags=(BATCH,))
    add("a padding mask, every score near -30000: below any finite fill", (3, 6), (5, 6), (5, 2),
        mask=np.broadcast_to(np.arange(5) < 3, (3, 5)).copy(), offset=-30000.0, tags=(LARGE,))
    # Scores exactly [0, 0, 744.5, 744.5], keys 2 and 3 blocked: exp(-744.5) is the smallest float64, so a maximum
    # taken before masking still gives weights 1/2, 1/2, while a softmax of all scores, renormalised, gives 0/0.
    Q, K, V = np.zeros((2, 3)), np.zeros((4, 3)), rng.normal(size=(4, 2))
    Q[:, -1], K[:, -1] = 1.0, np.array([0.0, 0.0, 744.5, 744.5]) * np.sqrt(3)
    mask = np.array([[True, True, False, False]] * 2)
    cases.append(Case("Q (2, 3), K (4, 3), V (4, 2), mask (2, 4) (scores [0, 0, 744.5, 744.5], keys 2 and 3 "
                      "blocked)", {"Q": Q, "K": K, "V": V, "mask": mask}, _attention(Q, K, V, mask=mask),
                      scale=744.5, averaged=np.abs(V).max()))
    return cases


def _after_pass(attempts, runner) -> str:
    """A note (not a failure) when a row whose keys are all blocked comes back as NaN."""
    rng = np.random.default_rng(1)
    Q, K, V = rng.normal(size=(3, 5)), rng.normal(size=(4, 5)), rng.normal(size=(4, 2))
    mask = np.array([[True, True, False, False], [False, False, False, False], [True, True, True, True]])
    got = runner.call(Q, K, V, mask=mask)
    if isinstance(got, np.ndarray) and got.shape == (3, 2) and np.isnan(np.asarray(got, float)[1]).any():
        return (
            "\nOne thing to know: when every key of a query is blocked, your function returns NaN for that row "
            "(all its scores are -inf, and the softmax computes 0/0). attn_lib.attention raises a ValueError "
            "instead; a NaN would spread silently through every later layer."
        )
    if isinstance(got, np.ndarray) and got.shape == (3, 2) and np.allclose(np.asarray(got, float)[1], V.mean(axis=0)):
        return FINITE_FILL_NOTE.format(what="that query's output is an average of value rows it must not see.")
    return ""


PROBLEM = FunctionProblem(
    gives=OUTPUT_DIAGNOSIS,
    checker="check_attention",
    params=("Q", "K", "V"),
    optional=("mask",),
    cases=_cases,
    mistakes=attention_mistakes,
    what="output",
    forbidden=("attention", "chunked_attention"),
    passed=(
        "Your attention matches softmax(Q K^T / sqrt(d_k)) V on all {count} cases: n != m, d_k != d_v, scores as "
        "large as 1000, causal and padding masks (also masks that broadcast), and one or two leading batch axes."
    ),
    overflow=("naive-softmax-overflow", {}),
    diagnose=diagnose_output,
    after_pass=_after_pass,
    hint=(
        "Compute the pieces one at a time (scores, weights, output) and compare each with attn_lib.scaled_scores, "
        "attn_lib.softmax and attn_lib.attention."
    ),
)


# exp(scores - max) zeroed by the mask gives max-before-mask's numbers: code that fills no blocked score is told
# the mistake it made (see _learner_code.zeroed_before_max).
_ZEROED = dataclasses.replace(PROBLEM, mistakes=lambda: zeroed_before_max(attention_mistakes()))


def check_attention(fn) -> Feedback:
    """Check a learner's ``fn(Q, K, V, mask=None) -> output`` against :func:`attn_lib.attention`.

    Fifteen seeded cases: cross-attention with n != m and d_k != d_v, a square case, scores as large as 1000,
    queries near 0 beside queries near 1000, a causal mask, a padding mask, one with scores near -300, one whose
    blocked keys score 1000 more, a mask (1, m) that broadcasts, a batch of 2, two batch axes, and batches with
    masks (2, 1, m) and (n, m) that broadcast over them (``mask`` boolean, True = may attend), and scores near
    -30000 (below any finite fill a learner types), and blocked keys 744.5 above the allowed ones. Calling
    attn_lib.attention is named (``used-attn-lib``).

    Parameters
    ----------
    fn : callable or None
        ``fn(Q, K, V)`` and ``fn(Q, K, V, mask=mask)`` with Q (..., n, d_k), K (..., m, d_k), V (..., m, d_v),
        mask broadcastable to (..., n, m), returning the output (..., n, d_v).

    Returns
    -------
    Feedback
        Passed when every case matches to the precision of the answer's dtype; otherwise the recognised
        mistake (see the module's table) or the first difference.

    Examples
    --------
    >>> def my_attention(Q, K, V, mask=None):
    ...     scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])  # (..., n, d_k) x (..., d_k, m)
    ...     if mask is not None:
    ...         scores = np.where(mask, scores, -np.inf)
    ...     weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    ...     weights /= weights.sum(axis=-1, keepdims=True)
    ...     return weights @ V  # (..., n, m) x (..., m, d_v) -> (..., n, d_v)
    >>> check_attention(my_attention).passed
    True
    >>> check_attention(lambda Q, K, V, mask=None: my_attention(Q, K, V, mask) * 2).mistake
    'not-an-average'
    """
    return judge(fn, PROBLEM if fills_blocked(fn) else _ZEROED)
