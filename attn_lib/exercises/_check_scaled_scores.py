"""check_scaled_scores: the learner's Q K^T / sqrt(d_k), with leading batch axes (notebook 03)."""

from __future__ import annotations

import numpy as np

from ._feedback import Feedback
from ._judge import judge
from ._pieces import (FIX_POWER_PRECEDENCE, FIX_SPLIT_SCALE, POWER_PRECEDENCE, SCALED_TWICE, SPLIT_SCALE,
                      SPLIT_SCALE_POWERS, transpose_last)
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


_FIX = "Divide Q K^T by np.sqrt(d_k), with d_k = Q.shape[-1] (the last axis, whatever the batch axes)."
_BATCH_FIX = ("Transpose only the last two axes of K (np.swapaxes), not all of them; or write the sum over "
              "d_k with np.einsum and '...' for the batch axes.")


def _mistakes():
    def by(divisor):
        return lambda Q, K: _qkt(Q, K) / divisor(Q, K)

    return [
        Mistake(
            "transpose-on-batch",
            "Right on 2-D inputs, but on a batch `K.T` reverses every axis: K (2, 5, 9) becomes (9, 5, 2), not "
            "(2, 9, 5), so the product fails or mixes batches. Only the last two axes (m, d_k) swap.",
            _BATCH_FIX,
            variants=(lambda Q, K: Q @ K.T / np.sqrt(Q.shape[-1]),
                      lambda Q, K: np.dot(Q, K.T) / np.sqrt(Q.shape[-1])),
        ),
        Mistake(
            "dk-from-wrong-axis",
            "Right on 2-D inputs, but on a batch your d_k is not the width of a query: Q.shape[1] is n there "
            "(Q is (batch, n, d_k)). d_k is the last axis, Q.shape[-1].",
            _FIX,
            variants=(by(lambda Q, K: np.sqrt(Q.shape[1])), by(lambda Q, K: np.sqrt(K.shape[1]))),
        ),
        Mistake(
            "no-transpose",
            "You multiplied Q by K without transposing it. That only runs when m = d_k, and then entry (i, j) "
            "dots query i with column j of K, not with key j. The scores need K^T: (n, d_k) x (d_k, m) -> (n, m).",
            _BATCH_FIX,
            variants=(lambda Q, K: Q @ K / np.sqrt(Q.shape[-1]),),
        ),
        Mistake(
            "keys-times-queries",
            "You computed K Q^T: shape (m, n), one row per key. The scores have one row per query: Q K^T (n, m).",
            "Put Q first: one row per query.",
            variants=(lambda Q, K: K @ transpose_last(Q) / np.sqrt(Q.shape[-1]),),
        ),
        Mistake(
            "no-scaling",
            "You return Q K^T without the division. With unit-variance components a raw score has variance d_k, "
            "so at d_k = 64 its standard deviation is 8: the softmax then sees scores 8 times too large and its "
            "rows turn nearly one-hot.",
            _FIX,
            variants=(lambda Q, K: _qkt(Q, K),),
        ),
        Mistake(
            "divide-by-dk",
            "You divided by d_k (or scaled both Q and K by 1/sqrt(d_k)). A raw score has variance d_k, so its "
            "standard deviation is sqrt(d_k); dividing by d_k leaves scores of variance 1/d_k, which squeezes "
            "the softmax towards uniform weights as d_k grows." + SCALED_TWICE,
            _FIX,
            variants=(by(lambda Q, K: Q.shape[-1]),),
        ),
        Mistake(
            "sqrt-of-shape",
            "You divided by np.sqrt(Q.shape), the square root of the whole shape tuple: an array of one number "
            "per axis, which numpy then tries to broadcast against the scores. d_k is one number, the last "
            "axis of Q: Q.shape[-1].",
            _FIX,
            variants=(lambda Q, K: _qkt(Q, K) / np.sqrt(Q.shape), lambda Q, K: _qkt(Q, K) / np.sqrt(K.shape)),
        ),
        Mistake("split-scale", SPLIT_SCALE, FIX_SPLIT_SCALE,
                variants=tuple(by(lambda Q, K, p=p: Q.shape[-1] ** p) for p in SPLIT_SCALE_POWERS)),
        Mistake("power-precedence", POWER_PRECEDENCE, FIX_POWER_PRECEDENCE,
                variants=(by(lambda Q, K: 2.0 * Q.shape[-1]), by(lambda Q, K: Q.shape[-1] / 2))),
        Mistake(
            "multiply-by-sqrt-dk",
            "You multiplied by sqrt(d_k) instead of dividing: the scores grow to variance d_k^2 instead of "
            "shrinking to variance 1.",
            _FIX,
            variants=(lambda Q, K: _qkt(Q, K) * np.sqrt(Q.shape[-1]),),
        ),
        Mistake(
            "d-model-scaling",
            "You divided by d_model = 512 (or sqrt(512)), the model's width. Each head's queries and keys are "
            "d_k wide, and a score is a dot product of d_k terms: its standard deviation is sqrt(d_k), the "
            "per-head width, not sqrt(d_model).",
            _FIX,
            variants=(by(lambda Q, K: np.sqrt(512)), by(lambda Q, K: 512.0)),
        ),
        Mistake(
            "hardcoded-dk",
            "Right at d_k = 64 only: you divided by 8 = sqrt(64) as a fixed number. Other heads have other "
            "widths (the checker also tries d_k = 12, 8, 3 and 32); read d_k from the queries.",
            _FIX,
            variants=(by(lambda Q, K: 8.0), by(lambda Q, K: 64.0)),
        ),
        Mistake(
            "rounded-sqrt",
            "You rounded sqrt(d_k) to a whole number (math.isqrt, int(np.sqrt(d_k)), round(d_k ** 0.5) or an integer "
            "division): that is right only when d_k is a perfect square such as 64. At d_k = 8 the standard "
            "deviation of a raw score is sqrt(8) = 2.83, and dividing by 2 or 3 leaves the scores too wide or too "
            "narrow.",
            "Keep the square root a float: np.sqrt(d_k) or d_k ** 0.5, with no int() or round() around it.",
            variants=(by(lambda Q, K: float(int(np.sqrt(Q.shape[-1])))),
                      by(lambda Q, K: float(round(Q.shape[-1] ** 0.5))),
                      by(lambda Q, K: float(np.ceil(np.sqrt(Q.shape[-1]))))),
        ),
        Mistake(
            "dk-from-rows",
            "You divided by sqrt(n) or sqrt(m), the number of queries or keys (Q.shape[0] and len(Q) count the "
            "rows of a 2-D Q, and the batch size on a batch). A score's spread depends on how many products it "
            "adds up, d_k, not on how many positions there are.",
            _FIX,
            variants=(by(lambda Q, K: np.sqrt(Q.shape[-2])), by(lambda Q, K: np.sqrt(K.shape[-2])),
                      by(lambda Q, K: np.sqrt(Q.shape[0])), by(lambda Q, K: np.sqrt(K.shape[0]))),
        ),
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
