"""check_previous_token: the share of attention a head gives the previous token (notebook 10)."""

from __future__ import annotations

import numpy as np

from ._feedback import Feedback
from ._judge import judge
from ._types import BATCH, Case, FunctionProblem, Mistake


def _previous(weights):
    return np.diagonal(weights, offset=-1, axis1=-2, axis2=-1).mean(axis=-1)  # (..., n-1) -> (...)


def _cases():
    rng = np.random.default_rng(10)
    cases = []
    for shape in [(5, 5), (3, 6, 6), (2, 3, 4, 4), (2, 2)]:
        weights = np.exp(rng.normal(scale=1.5, size=shape))
        weights /= weights.sum(axis=-1, keepdims=True)  # rows sum to 1, like softmax output
        cases.append(Case(f"weights of shape {shape}", {"weights": weights}, expected=_previous(weights),
                          tags=(BATCH,) if len(shape) > 2 else ()))
    return cases


def _mistakes():
    n_of = lambda w: w.shape[-1]  # noqa: E731
    return [
        Mistake("next-token", (lambda weights: np.diagonal(weights, offset=1, axis1=-2, axis2=-1).mean(axis=-1),)),
        Mistake("self", (lambda weights: np.diagonal(weights, axis1=-2, axis2=-1).mean(axis=-1),)),
        Mistake("wrapped-first-row",
                (lambda weights: np.mean([weights[..., i, i - 1] for i in range(n_of(weights))], axis=0),)),
        Mistake("dropped-last-query", (lambda weights: _previous(weights[..., :-1, :-1]),)),
        Mistake("divided-by-n", (lambda weights: _previous(weights) * (n_of(weights) - 1) / n_of(weights),)),
        Mistake("sum-not-mean", (lambda weights: np.diagonal(weights, offset=-1, axis1=-2, axis2=-1).sum(axis=-1),)),
    ]


PROBLEM = FunctionProblem(
    checker="check_previous_token", params=("weights",), cases=_cases, mistakes=_mistakes,
    what="previous-token shares",
    passed=("Your function is right on all {count} cases, with batch axes and with n = 2: the mean over queries "
            "i = 1 .. n-1 of weights[..., i, i-1]."),
    hint="For each query i >= 1 take weights[..., i, i-1], then average over those n - 1 queries.",
    forbidden=(),
)


def check_previous_token(fn) -> Feedback:
    """Check ``fn(weights) -> (...)``: the mean over queries i >= 1 of ``weights[..., i, i-1]``, weights (..., n, n).

    Examples
    --------
    >>> check_previous_token(lambda w: np.diagonal(w, -1, -2, -1).mean(-1)).passed
    True
    >>> check_previous_token(lambda w: np.diagonal(w, 1, -2, -1).mean(-1)).mistake
    'next-token'
    """
    return judge(fn, PROBLEM)
