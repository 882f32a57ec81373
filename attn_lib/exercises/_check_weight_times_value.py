"""check_weight_times_value: each key's weight times the length of its value row (notebook 10)."""

from __future__ import annotations

import numpy as np

from ._feedback import Feedback
from ._judge import judge
from ._types import BATCH, Case, FunctionProblem, Mistake


def _weighted_length(weights, V):
    return weights * np.linalg.norm(V, axis=-1)[..., None, :]  # (..., n, m) * (..., 1, m) -> (..., n, m)


def _cases():
    rng = np.random.default_rng(19)
    cases = []
    for n, m, d_v, batch in [(3, 5, 4, ()), (4, 6, 3, (2,)), (2, 3, 7, (2, 3)), (5, 4, 2, ())]:
        scores = rng.normal(scale=1.5, size=(*batch, n, m))
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights /= weights.sum(axis=-1, keepdims=True)  # rows sum to 1, like softmax output
        V = rng.normal(size=(*batch, m, d_v))
        V[..., 0, :] *= 0.05  # a key with a short value row, like [CLS] in the parking head
        cases.append(Case(f"weights {weights.shape} and V {V.shape}", {"weights": weights, "V": V},
                          expected=_weighted_length(weights, V), tags=(BATCH,) if batch else ()))
    return cases


def _mistakes():
    norm = np.linalg.norm
    return [
        Mistake("returned-output",
                "You returned weights @ V, the head's output (n, d_v). The problem asks for one number per (query, "
                "key) pair: each weight times the length of that key's value row, (..., n, m).",
                "Take the length of each value row, np.linalg.norm(V, axis=-1), and multiply each column of the "
                "weights by its key's length.",
                variants=(lambda weights, V: weights @ V,)),
        Mistake("length-over-keys",
                "You took the norm over axis -2, down the keys, which gives one length per component of the value "
                "rows; each key's value row is a row of V, so its length runs along axis -1.",
                "np.linalg.norm(V, axis=-1) gives one length per key, (..., m).",
                variants=(lambda weights, V: weights * norm(V, axis=-2)[..., None, :],)),
        Mistake("lengths-along-queries",
                "You took each value row's length (axis -1, right), but laid the lengths down a column, "
                "[..., :, None], one per row of the weights: the rows of the weights are the queries, and a key's "
                "length belongs to its column, so it multiplies weights[..., i, j] for every query i. (numpy "
                "refuses the product whenever n != m; where n = m it would multiply by the wrong key's length.)",
                "Put the new axis in front of the keys: np.linalg.norm(V, axis=-1)[..., None, :], shape (..., 1, m).",
                variants=(lambda weights, V: weights * norm(V, axis=-1)[..., :, None],)),
        Mistake("squared-length",
                "You multiplied by the squared length of each value row; the length is its square root.",
                "np.linalg.norm(V, axis=-1) is the length sqrt(sum of squares).",
                variants=(lambda weights, V: weights * (V ** 2).sum(axis=-1)[..., None, :],)),
        Mistake("sum-not-length",
                "You multiplied by the sum of each value row's components; positive and negative components cancel "
                "there, and a length does not.", "np.linalg.norm(V, axis=-1) is the length of each row.",
                variants=(lambda weights, V: weights * V.sum(axis=-1)[..., None, :],)),
        Mistake("l1-length",
                "You multiplied by the sum of the absolute values of each value row; the length of a vector is "
                "the square root of the sum of squares.", "np.linalg.norm(V, axis=-1).",
                variants=(lambda weights, V: weights * np.abs(V).sum(axis=-1)[..., None, :],)),
        Mistake("one-length",
                "You multiplied every weight by one number, the norm of the whole of V; each key has its own value "
                "row, and its own length.", "np.linalg.norm(V, axis=-1) gives one length per key (per batch "
                "entry).",
                variants=(lambda weights, V: weights * norm(V),)),
        Mistake("renormalised",
                "You divided each row by its sum, which gives each key's share of the row; the problem asks for the "
                "weight times the length itself, whose row sums say how much the head adds.",
                "Leave out the division by the row sum.",
                variants=(lambda weights, V: _weighted_length(weights, V)
                          / _weighted_length(weights, V).sum(axis=-1, keepdims=True),)),
        Mistake("lengths-only",
                "You returned each key's value length for every query, without the weights; a key adds its value row "
                "in proportion to its weight.", "Multiply the lengths by the weights.",
                variants=(lambda weights, V: np.broadcast_to(norm(V, axis=-1)[..., None, :], weights.shape),)),
    ]


PROBLEM = FunctionProblem(
    checker="check_weight_times_value", params=("weights", "V"), cases=_cases, mistakes=_mistakes,
    what="weights times value lengths",
    passed=("Your function is right on all {count} cases, with batch axes and n != m != d_v: entry (i, j) is "
            "weights[..., i, j] x |V[..., j, :]|, the most that key j can add to query i's output row. A large "
            "weight on a short value row adds far less than the weight suggests."),
    hint="np.linalg.norm(V, axis=-1) gives each key's length (..., m); put a query axis in front of it and "
         "multiply the weights (..., n, m) by it.",
    forbidden=(),
)


def check_weight_times_value(fn) -> Feedback:
    """Check ``fn(weights, V) -> (..., n, m)``: ``weights[..., i, j] * |V[..., j, :]|``, weights (..., n, m),
    V (..., m, d_v).

    Examples
    --------
    >>> check_weight_times_value(lambda w, V: w * np.linalg.norm(V, axis=-1)[..., None, :]).passed
    True
    >>> check_weight_times_value(lambda w, V: w @ V).mistake
    'returned-output'
    """
    return judge(fn, PROBLEM)
