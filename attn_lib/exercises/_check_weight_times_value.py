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
        Mistake("returned-output", (lambda weights, V: weights @ V,)),
        Mistake("length-over-keys", (lambda weights, V: weights * norm(V, axis=-2)[..., None, :],)),
        Mistake("lengths-along-queries", (lambda weights, V: weights * norm(V, axis=-1)[..., :, None],)),
        Mistake("squared-length", (lambda weights, V: weights * (V ** 2).sum(axis=-1)[..., None, :],)),
        Mistake("sum-not-length", (lambda weights, V: weights * V.sum(axis=-1)[..., None, :],)),
        Mistake("l1-length", (lambda weights, V: weights * np.abs(V).sum(axis=-1)[..., None, :],)),
        Mistake("one-length", (lambda weights, V: weights * norm(V),)),
        Mistake("renormalised",
                (lambda weights, V: _weighted_length(weights, V)
                          / _weighted_length(weights, V).sum(axis=-1, keepdims=True),)),
        Mistake("lengths-only",
                (lambda weights, V: np.broadcast_to(norm(V, axis=-1)[..., None, :], weights.shape),)),
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
