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


_BATCH_FIX = ("Transpose only the last two axes of K (np.swapaxes), not all of them; or write the sum over "
              "d_k with np.einsum and '...' for the batch axes.")


def _mistakes():
    return [
        Mistake(
            "transpose-on-batch",
            "Right on 2-D inputs, but on a batch `K.T` reverses every axis: K (2, 5, 4) becomes (4, 5, 2), not "
            "(2, 4, 5), so the batch axis ends up last and the product fails or mixes batches. Each key row must "
            "meet each query row within its own batch: only the last two axes (m, d_k) swap.",
            _BATCH_FIX,
            variants=(lambda Q, K: Q @ K.T, lambda Q, K: np.matmul(Q, np.transpose(K))),
        ),
        Mistake(
            "dot-on-batch",
            "Right on 2-D inputs, but on a batch np.dot (or np.tensordot) pairs every batch of Q with every batch "
            "of K: the result has the batch axes twice. Within a batch, query i meets key j; batches do not meet.",
            "Use the @ operator (np.matmul), which treats the leading axes as a batch.",
            variants=(lambda Q, K: np.dot(Q, transpose_last(K)), lambda Q, K: np.dot(Q, K.T)),
        ),
        Mistake(
            "no-transpose",
            "You multiplied Q by K without transposing it. Q (n, d_k) times K (m, d_k) only runs when m = d_k, "
            "and then entry (i, j) dots query i with column j of K, not with key j. The scores need K^T "
            "(d_k, m): (n, d_k) x (d_k, m) -> (n, m).",
            _BATCH_FIX,
            variants=(lambda Q, K: Q @ K, lambda Q, K: np.einsum("...ij,...jk->...ik", Q, K)),
        ),
        Mistake(
            "queries-transposed",
            "You transposed Q instead of K: Q^T K pairs the columns of Q (its d_k features) with the rows of K, "
            "and only runs when n = m. Each score dots one query row with one key row, so the rows of Q stay "
            "rows and K is the one turned on its side: (n, d_k) x (d_k, m) -> (n, m).",
            "Transpose K, not Q: swap the last two axes of K, and keep Q as it is.",
            variants=(lambda Q, K: np.swapaxes(Q, -1, -2) @ K,),
        ),
        Mistake(
            "elementwise-product",
            "You multiplied Q and K entry by entry (Q * K), which needs the two to have the same shape and pairs "
            "query i with key i only. A score is a dot product of one query with one key, for every pair: a "
            "matrix product, (n, d_k) x (d_k, m) -> (n, m).",
            "Use the matrix product @ with K transposed, not *.",
            variants=(lambda Q, K: Q * K, lambda Q, K: np.sum(Q * K, axis=-1)),
        ),
        Mistake(
            "summed-over-keys",
            "You formed every product Q[i, c] K[j, c] (a broadcast of shape (n, m, d_k)) but summed over the keys "
            "(axis -2) instead of over the d_k features. A score adds up the d_k products of one query with "
            "one key, so the sum runs over the last axis and leaves (n, m).",
            "Sum the broadcast products over axis=-1, the d_k axis.",
            variants=(lambda Q, K: (Q[..., :, None, :] * K[..., None, :, :]).sum(axis=-2),),
        ),
        Mistake(
            "keys-times-queries",
            "You computed K Q^T: shape (m, n), one row per key. The scores have one row per query and one "
            "column per key, Q K^T (n, m), so that row i is query i's score for every key.",
            "Put Q first: one row per query.",
            variants=(lambda Q, K: K @ np.swapaxes(Q, -1, -2), lambda Q, K: np.swapaxes(Q @ transpose_last(K), -1, -2)),
        ),
        Mistake(
            "scaled-too-early",
            "You divided the scores (by sqrt(d_k), or by d_k). Scaling is the next step (notebook 03); this "
            "function returns the raw dot products Q K^T, entry (i, j) = query i . key j.",
            "This problem asks for the raw dot products: leave out the division.",
            variants=(lambda Q, K: Q @ transpose_last(K) / np.sqrt(Q.shape[-1]), lambda Q, K: Q @ transpose_last(K) / Q.shape[-1]),
        ),
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
