"""check_scores: the learner's Q K^T for queries and keys with leading batch axes (notebook 02)."""

from __future__ import annotations

import numpy as np

from ._feedback import Feedback
from ._judge import judge
from ._pieces import transpose_last
from ._types import BATCH, Case, FunctionProblem, Mistake


def _cases():
    """2-D with n != m; m = d_k (where Q @ K runs); one and two leading batch axes; a batch of one with
    m = d_k, where Q @ K.T runs and gives a wrong shape instead of raising."""
    rng = np.random.default_rng(2)
    shapes = [  # (Q shape, K shape, label)
        ((3, 4), (5, 4), "Q (3, 4) and K (5, 4): n = 3 queries, m = 5 keys, d_k = 4"),
        ((4, 3), (3, 3), "Q (4, 3) and K (3, 3): m = d_k = 3"),
        ((2, 3, 4), (2, 5, 4), "a batch: Q (2, 3, 4) and K (2, 5, 4)"),
        ((1, 4, 3), (1, 3, 3), "a batch of one with m = d_k: Q (1, 4, 3) and K (1, 3, 3)"),
        ((2, 3, 4, 6), (2, 3, 5, 6), "two batch axes: Q (2, 3, 4, 6) and K (2, 3, 5, 6)"),
    ]
    cases = []
    for q_shape, k_shape, label in shapes:
        Q, K = rng.normal(size=q_shape), rng.normal(size=k_shape)
        tags = {BATCH} if len(q_shape) > 2 else set()
        cases.append(Case(label, {"Q": Q, "K": K}, expected=Q @ transpose_last(K), tags=tags))  # (..., n, d_k) x (..., d_k, m)
    return cases


def _mistakes():
    return [
        Mistake("transpose-on-batch", (lambda Q, K: Q @ K.T, lambda Q, K: np.matmul(Q, np.transpose(K)))),
        Mistake("dot-on-batch", (lambda Q, K: np.dot(Q, transpose_last(K)), lambda Q, K: np.dot(Q, K.T))),
        Mistake("no-transpose", (lambda Q, K: Q @ K, lambda Q, K: np.einsum("...ij,...jk->...ik", Q, K))),
        Mistake("queries-transposed", (lambda Q, K: np.swapaxes(Q, -1, -2) @ K,)),
        Mistake("elementwise-product", (lambda Q, K: Q * K, lambda Q, K: np.sum(Q * K, axis=-1)), a="Q", b="K",
                result="scores", over="the d_k features of one query and one key",
                product="(n, d_k) x (d_k, m) -> (n, m)"),
        Mistake("summed-over-keys", (lambda Q, K: (Q[..., :, None, :] * K[..., None, :, :]).sum(axis=-2),)),
        Mistake("keys-times-queries",
                (lambda Q, K: K @ np.swapaxes(Q, -1, -2),
                 lambda Q, K: np.swapaxes(Q @ transpose_last(K), -1, -2))),
        Mistake("scaled-too-early",
                (lambda Q, K: Q @ transpose_last(K) / np.sqrt(Q.shape[-1]),
                 lambda Q, K: Q @ transpose_last(K) / Q.shape[-1])),
    ]


PROBLEM = FunctionProblem(
    checker="check_scores",
    params=("Q", "K"),
    cases=_cases,
    mistakes=_mistakes,
    passed="Your scores match on all {count} cases, 2-D and batched, with n != m: entry (..., i, j) is query i "
           "dotted with key j.",
    what="scores",
    forbidden=("scaled_scores", "attention"),
    tools="@ and np.swapaxes, or np.einsum",
    hint="Entry (i, j) is query i . key j: Q (..., n, d_k) times K transposed on its last two axes, "
         "(..., d_k, m).",
)


def check_scores(fn) -> Feedback:
    """Check a learner's ``fn(Q, K) -> Q K^T`` (unscaled) for Q (..., n, d_k) and K (..., m, d_k).

    Five seeded cases: 2-D with n != m, one with m = d_k (where ``Q @ K`` runs without error), one and two leading batch
    axes, a batch of one where ``Q @ K.T`` runs. Mistakes: transpose-on-batch (``K.T`` reverses the batch axes too),
    dot-on-batch (``np.dot`` pairs every batch with every other), no-transpose, keys-times-queries (K Q^T),
    scaled-too-early (divided by sqrt(d_k), the next notebook's step), and the skeleton's no-batch (right in 2-D
    only) and generic ones.

    Parameters
    ----------
    fn : callable or None
        ``fn(Q, K)`` returning the scores (..., n, m).

    Returns
    -------
    Feedback

    Examples
    --------
    >>> check_scores(lambda Q, K: Q @ np.swapaxes(K, -1, -2)).passed
    True
    >>> check_scores(lambda Q, K: Q @ K.T).mistake
    'transpose-on-batch'
    """
    return judge(fn, PROBLEM)
