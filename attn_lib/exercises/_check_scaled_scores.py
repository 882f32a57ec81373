"""check_scaled_scores: the learner's Q K^T / sqrt(d_k), with leading batch axes (notebook 03)."""

from __future__ import annotations

import numpy as np

from ._feedback import Feedback
from ._judge import judge
from ._pieces import SPLIT_SCALE_POWERS, transpose_last
from ._types import BATCH, Case, FunctionProblem, Mistake


def _qkt(Q, K):
    return Q @ transpose_last(K)  # (..., n, d_k) x (..., d_k, m) -> (..., n, m)


def _cases():
    """d_k = 64 (one head of the base model), then widths that are not perfect squares, 12, 8, 3 and 32 (so a
    hard-coded 8 fails, and so does a square root rounded to a whole number), n != m everywhere except where
    m = d_k (so Q @ K runs), one and two leading batch axes, and a batch of one where Q @ K.T runs."""
    rng = np.random.default_rng(3)
    shapes = [  # (Q shape, K shape, label)
        ((3, 64), (5, 64), "Q (3, 64) and K (5, 64): one head of the base model, d_k = 64"),
        ((4, 12), (7, 12), "Q (4, 12) and K (7, 12): d_k = 12"),
        ((2, 3, 8), (2, 5, 8), "a batch: Q (2, 3, 8) and K (2, 5, 8), d_k = 8"),
        ((5, 3), (3, 3), "Q (5, 3) and K (3, 3): m = d_k = 3"),
        ((1, 6, 3), (1, 3, 3), "a batch of one with m = d_k: Q (1, 6, 3) and K (1, 3, 3)"),
        ((2, 2, 3, 32), (2, 2, 6, 32), "two batch axes: Q (2, 2, 3, 32) and K (2, 2, 6, 32), d_k = 32"),
    ]
    cases = []
    for q_shape, k_shape, label in shapes:
        Q, K = rng.normal(size=q_shape), rng.normal(size=k_shape)
        d_k = q_shape[-1]
        tags = {BATCH} if len(q_shape) > 2 else set()
        cases.append(Case(label, {"Q": Q, "K": K}, expected=_qkt(Q, K) / np.sqrt(d_k), tags=tags))
    return cases


# The template fields of the scale mistakes (no-scaling, divide-by-dk, ...): what this checker returns, and
# where d_k is read.
_SCALE_FIELDS = {"what": "answer", "d_k": "Q.shape[-1]"}


def _mistakes():
    def by(divisor):
        return lambda Q, K: _qkt(Q, K) / divisor(Q, K)

    return [
        Mistake("transpose-on-batch",
                (lambda Q, K: Q @ K.T / np.sqrt(Q.shape[-1]),
                 lambda Q, K: np.dot(Q, K.T) / np.sqrt(Q.shape[-1]))),
        Mistake("dk-from-wrong-axis", (by(lambda Q, K: np.sqrt(Q.shape[1])), by(lambda Q, K: np.sqrt(K.shape[1])))),
        Mistake("no-transpose", (lambda Q, K: Q @ K / np.sqrt(Q.shape[-1]),)),
        Mistake("keys-times-queries", (lambda Q, K: K @ transpose_last(Q) / np.sqrt(Q.shape[-1]),)),
        Mistake("no-scaling", (lambda Q, K: _qkt(Q, K),), **_SCALE_FIELDS),
        Mistake("divide-by-dk", (by(lambda Q, K: Q.shape[-1]),), **_SCALE_FIELDS),
        Mistake("sqrt-of-shape",
                (lambda Q, K: _qkt(Q, K) / np.sqrt(Q.shape), lambda Q, K: _qkt(Q, K) / np.sqrt(K.shape))),
        Mistake("split-scale", tuple(by(lambda Q, K, p=p: Q.shape[-1] ** p) for p in SPLIT_SCALE_POWERS)),
        Mistake("power-precedence", (by(lambda Q, K: 2.0 * Q.shape[-1]), by(lambda Q, K: Q.shape[-1] / 2))),
        Mistake("multiply-by-sqrt-dk", (lambda Q, K: _qkt(Q, K) * np.sqrt(Q.shape[-1]),), **_SCALE_FIELDS),
        Mistake("d-model-scaling", (by(lambda Q, K: np.sqrt(512)), by(lambda Q, K: 512.0)), **_SCALE_FIELDS),
        Mistake("hardcoded-dk", (by(lambda Q, K: 8.0), by(lambda Q, K: 64.0)), what="answer",
                sizes="the checker also tries d_k = 12, 8, 3 and 32"),
        Mistake("rounded-sqrt",
                (by(lambda Q, K: float(int(np.sqrt(Q.shape[-1])))),
                 by(lambda Q, K: float(round(Q.shape[-1] ** 0.5))),
                 by(lambda Q, K: float(np.ceil(np.sqrt(Q.shape[-1])))))),
        Mistake("dk-from-rows",
                (by(lambda Q, K: np.sqrt(Q.shape[-2])),
                 by(lambda Q, K: np.sqrt(K.shape[-2])),
                 by(lambda Q, K: np.sqrt(Q.shape[0])),
                 by(lambda Q, K: np.sqrt(K.shape[0]))),
                what="answer"),
    ]


PROBLEM = FunctionProblem(
    checker="check_scaled_scores",
    params=("Q", "K"),
    cases=_cases,
    mistakes=_mistakes,
    passed="Your scaled scores match on all {count} cases (d_k = 64, 12, 8, 3 and 32; n != m; batched): "
           "Q K^T divided by sqrt(d_k), the standard deviation of one raw score.",
    what="scaled scores",
    forbidden=("scaled_scores", "attention"),
    tools="@, np.swapaxes and np.sqrt, or np.einsum",
    hint="Q K^T (transpose the last two axes of K), divided by the square root of the queries' width Q.shape[-1].",
)


def check_scaled_scores(fn) -> Feedback:
    """Check a learner's ``fn(Q, K) -> Q K^T / sqrt(d_k)`` for Q (..., n, d_k) and K (..., m, d_k).

    Six seeded cases: d_k = 64, 12, 8, 3 and 32 (widths that are not perfect squares), n != m (except where
    m = d_k, so that ``Q @ K`` runs), one and two leading batch axes, a batch of one where ``Q @ K.T`` runs.
    Mistakes: transpose-on-batch, dk-from-wrong-axis (``Q.shape[1]`` on a batch), no-transpose,
    keys-times-queries, no-scaling, divide-by-dk, multiply-by-sqrt-dk, d-model-scaling (512 or sqrt(512)),
    hardcoded-dk (8 or 64), rounded-sqrt (math.isqrt, int(np.sqrt(d_k)), round(d_k ** 0.5)), dk-from-rows
    (sqrt(n) or sqrt(m)), and the skeleton's no-batch and generic ones.

    Parameters
    ----------
    fn : callable or None
        ``fn(Q, K)`` returning the scaled scores (..., n, m).

    Returns
    -------
    Feedback

    Examples
    --------
    >>> check_scaled_scores(lambda Q, K: Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])).passed
    True
    >>> check_scaled_scores(lambda Q, K: Q @ np.swapaxes(K, -1, -2) / Q.shape[-1]).mistake
    'divide-by-dk'
    """
    return judge(fn, PROBLEM)
