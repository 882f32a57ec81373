"""check_softmax_backward: a learner's backward pass through the row-wise softmax, dS from dP."""

from __future__ import annotations

import numpy as np

from ._feedback import Feedback
from ._judge import judge
from ._types import BATCH, Case, FunctionProblem, Mistake
from ._pieces import row_softmax

_ARGS = ("scores", "weights", "d_weights")


def _right(scores, weights, d_weights):
    return weights * (d_weights - np.sum(d_weights * weights, axis=-1, keepdims=True))  # (..., n, m)


def _cases() -> list[Case]:
    rng = np.random.default_rng(8)
    cases = []
    for label, shape in (
        ("scores (3, 5): n=3, m=5", (3, 5)),
        ("scores (4, 4): n=m=4", (4, 4)),
        ("a batch: scores (2, 3, 4)", (2, 3, 4)),
        ("a batch: scores (2, 4, 4)", (2, 4, 4)),
        ("two leading axes: scores (2, 2, 3, 4)", (2, 2, 3, 4)),
    ):
        if len(shape) > 3:  # its own generator, so the earlier cases keep their numbers
            rng = np.random.default_rng(48)
        scores = 1.5 * rng.normal(size=shape) + 0.5
        weights = row_softmax(scores)
        d_weights = rng.normal(size=shape)
        tags = frozenset({BATCH}) if len(shape) > 2 else frozenset()
        inputs = dict(scores=scores, weights=weights, d_weights=d_weights)
        cases.append(Case(label, inputs, _right(**inputs), tags))
    return cases


def _mistakes() -> list[Mistake]:
    return [
        Mistake("missing-row-sum", (lambda scores, weights, d_weights: weights * d_weights,)),
        Mistake("diagonal-only", (lambda scores, weights, d_weights: d_weights * weights * (1 - weights),)),
        Mistake("missing-outer-weights",
                (lambda scores, weights, d_weights: d_weights - np.sum(d_weights * weights, axis=-1, keepdims=True),)),
        Mistake("row-sum-without-weights",
                (lambda scores, weights, d_weights: weights * (d_weights - d_weights.sum(axis=-1, keepdims=True)),)),
        Mistake("sum-wrong-axis",
                (lambda scores, weights, d_weights: weights * (
                    d_weights - np.sum(d_weights * weights, axis=-2, keepdims=True)),
                 lambda scores, weights, d_weights: weights * (
                    d_weights - np.sum(d_weights * weights, axis=0, keepdims=True)))),
        Mistake("fixed-axis-on-batch",
                (lambda scores, weights, d_weights: weights * (
                d_weights - np.sum(d_weights * weights, axis=1, keepdims=True)),)),
        Mistake("no-keepdims",
                (lambda scores, weights, d_weights: weights * (d_weights - np.sum(d_weights * weights, axis=-1)),)),
        Mistake("used-scores",
                (lambda scores, weights, d_weights: scores * (
                    d_weights - np.sum(d_weights * scores, axis=-1, keepdims=True)),
                 lambda scores, weights, d_weights: scores * (
                    d_weights - np.sum(d_weights * weights, axis=-1, keepdims=True)),
                 lambda scores, weights, d_weights: weights * (
                    d_weights - np.sum(d_weights * scores, axis=-1, keepdims=True)),
                 lambda scores, weights, d_weights: scores * d_weights)),
        Mistake("sign-flipped",
                (lambda scores, weights, d_weights: weights * (
                np.sum(d_weights * weights, axis=-1, keepdims=True) - d_weights),),
                what="dS"),
        Mistake("row-sum-added",
                (lambda scores, weights, d_weights: weights * (
                d_weights + np.sum(d_weights * weights, axis=-1, keepdims=True)),)),
        Mistake("returned-d-weights", (lambda scores, weights, d_weights: d_weights,)),
        Mistake("mean-not-sum",
                (lambda scores, weights, d_weights: weights * (
                d_weights - np.mean(d_weights * weights, axis=-1, keepdims=True)),),
                term="row term (dP * P over the row)"),
        Mistake("sum-whole-array",
                (lambda scores, weights, d_weights: weights * (d_weights - np.sum(d_weights * weights)),)),
    ]


def check_softmax_backward(fn) -> Feedback:
    """Check a learner's ``fn(scores, weights, d_weights) -> d_scores``, the softmax's backward pass.

    ``weights = softmax(scores)`` row by row, ``d_weights`` is dL/dP; the answer is dL/dS =
    P * (dP - rowsum(dP * P)), shapes (..., n, m). Cases: n != m, n = m, and two batches.

    Parameters
    ----------
    fn : callable or None

    Returns
    -------
    Feedback

    Examples
    --------
    >>> check_softmax_backward(lambda S, P, dP: P * (dP - (dP * P).sum(axis=-1, keepdims=True))).passed
    True
    >>> check_softmax_backward(lambda S, P, dP: P * dP).mistake
    'missing-row-sum'
    """
    return judge(fn, PROBLEM)


PROBLEM = FunctionProblem(
    checker="check_softmax_backward",
    params=_ARGS,
    cases=_cases,
    mistakes=_mistakes,
    passed="Your backward pass is right in all {count} cases, with n != m and a batch axis: dS = P * (dP - "
    "rowsum(dP * P)), the softmax's Jacobian applied to each row.",
    what="dS",
    hint="For one row, build the Jacobian J = np.diag(p) - np.outer(p, p) and compare your row of dS with "
    "dP_row @ J. dS has the shape of the scores, (..., n, m).",
)
