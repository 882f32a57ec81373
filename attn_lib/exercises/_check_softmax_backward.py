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
        Mistake(
            "missing-row-sum",
            "Your dS is P * dP: the row-sum term is missing. Every weight of a row depends on every score of "
            "that row (they share one denominator), so the Jacobian dp_j/ds_k = p_j (delta_jk - p_k) has "
            "off-diagonal entries -p_j p_k. Summed over j they give the term -p_k * sum_j dP_j p_j: you kept "
            "only the delta_jk part.",
            "Subtract each row's sum of dP * P from dP before multiplying by P.",
            (lambda scores, weights, d_weights: weights * d_weights,),
        ),
        Mistake(
            "diagonal-only",
            "Your dS is dP * P * (1 - P): it uses only the diagonal of the softmax's Jacobian, dp_k/ds_k = "
            "p_k (1 - p_k). Raising score k also lowers every other weight of the row, by p_j p_k each; those "
            "off-diagonal entries add -p_k * sum_{j != k} dP_j p_j, which your answer leaves out.",
            "Apply the whole Jacobian: dS_k = sum_j dP_j p_j (delta_jk - p_k) = p_k (dP_k - sum_j dP_j p_j).",
            (lambda scores, weights, d_weights: d_weights * weights * (1 - weights),),
        ),
        Mistake(
            "missing-outer-weights",
            "Your dS is dP - rowsum(dP * P), without the factor P in front. Every entry of the softmax's Jacobian "
            "carries the weight it differentiates, dp_j/ds_k = p_j (delta_jk - p_k), so dS_k = p_k (dP_k - "
            "sum_j dP_j p_j): a key with almost no weight passes almost no gradient back to its score.",
            "Multiply the whole bracket by the weights P, entry by entry.",
            (lambda scores, weights, d_weights: d_weights - np.sum(d_weights * weights, axis=-1, keepdims=True),),
        ),
        Mistake(
            "row-sum-without-weights",
            "Your row-sum term sums dP alone, without weighting it by P. The term comes from "
            "sum_j dP_j dp_j/ds_k with dp_j/ds_k = -p_j p_k for j != k: each dP_j is weighted by its own p_j.",
            "The row term is the weighted average of dP: weigh each entry by its P before summing the row.",
            (lambda scores, weights, d_weights: weights * (d_weights - d_weights.sum(axis=-1, keepdims=True)),),
        ),
        Mistake(
            "sum-wrong-axis",
            "Your row-sum term is summed over the queries (down each column) instead of over the keys of one "
            "row. The softmax acts on each row separately: score s_ik only moves the weights of row i, so the "
            "sum runs over the m keys of that row, axis=-1.",
            "The row term sums over the keys: the last axis.",
            (
                lambda scores, weights, d_weights: weights * (
                    d_weights - np.sum(d_weights * weights, axis=-2, keepdims=True)),
                lambda scores, weights, d_weights: weights * (
                    d_weights - np.sum(d_weights * weights, axis=0, keepdims=True)),
            ),
        ),
        Mistake(
            "fixed-axis-on-batch",
            "Your function is right on 2-D inputs but sums over the wrong axis when a batch axis comes first: "
            "axis=1 is the key axis of an (n, m) array but the query axis of a (b, n, m) one. Count axes from "
            "the end so the same code works with any number of leading axes.",
            "Use axis=-1 for the row sum.",
            (lambda scores, weights, d_weights: weights * (
                d_weights - np.sum(d_weights * weights, axis=1, keepdims=True)),),
        ),
        Mistake(
            "no-keepdims",
            "Your row sums lost their axis (no keepdims=True), so numpy lines the (..., n) sums up with the key "
            "axis: key j gets row j's sum instead of its own row's. It runs only when n = m, and is then wrong.",
            "Keep the summed axis (keepdims=True), so the row term has shape (..., n, 1) and broadcasts along its row.",
            (lambda scores, weights, d_weights: weights * (d_weights - np.sum(d_weights * weights, axis=-1)),),
        ),
        Mistake(
            "used-scores",
            "Your formula uses the scores S where it needs the weights P = softmax(S). The softmax's Jacobian "
            "is written in its outputs, dp_j/ds_k = p_j (delta_jk - p_k): that is why the forward pass keeps the "
            "n x m weights for the backward pass.",
            "The softmax's Jacobian is written with the weights P, not the scores.",
            (
                lambda scores, weights, d_weights: scores * (
                    d_weights - np.sum(d_weights * scores, axis=-1, keepdims=True)),
                lambda scores, weights, d_weights: scores * (
                    d_weights - np.sum(d_weights * weights, axis=-1, keepdims=True)),
                lambda scores, weights, d_weights: weights * (
                    d_weights - np.sum(d_weights * scores, axis=-1, keepdims=True)),
                lambda scores, weights, d_weights: scores * d_weights,
            ),
        ),
        Mistake(
            "sign-flipped",
            "Your dS has the wrong sign: P * (rowsum(dP * P) - dP). Raising score k raises its own weight "
            "(dp_k/ds_k = p_k (1 - p_k) > 0), so dS_k has the sign of dP_k minus the row's weighted average of dP.",
            "Check the order of the subtraction: dP minus the row's weighted average, not the other way round.",
            (lambda scores, weights, d_weights: weights * (
                np.sum(d_weights * weights, axis=-1, keepdims=True) - d_weights),),
        ),
        Mistake(
            "row-sum-added",
            "Your dS adds the row-sum term where it subtracts it: P * (dP + rowsum(dP * P)). Raising one score "
            "takes weight from every other key of its row (dp_j/ds_k = -p_j p_k for j != k), so the row's "
            "weighted average of dP comes off: dS = P * (dP - rowsum(dP * P)).",
            "Subtract the row's weighted average of dP: dP - np.sum(dP * P, axis=-1, keepdims=True).",
            (lambda scores, weights, d_weights: weights * (
                d_weights + np.sum(d_weights * weights, axis=-1, keepdims=True)),),
        ),
        Mistake(
            "returned-d-weights",
            "Your function returns dP unchanged: it does not go back through the softmax at all. dS is what "
            "the loss's change looks like one step earlier, after the softmax's Jacobian.",
            "dP is what you receive; dS, the gradient with respect to the scores, goes through the softmax's "
            "Jacobian.",
            (lambda scores, weights, d_weights: d_weights,),
        ),
        Mistake(
            "mean-not-sum",
            "Your row term is the mean of dP * P over the row, not its sum. The weights of a row already sum to "
            "one, so the weighted average of dP is the plain sum of dP * P; dividing by m as well makes it m "
            "times too small.",
            "Sum dP * P over the row; do not divide by the number of keys.",
            (lambda scores, weights, d_weights: weights * (
                d_weights - np.mean(d_weights * weights, axis=-1, keepdims=True)),),
        ),
        Mistake(
            "sum-whole-array",
            "Your row term sums dP * P over the whole array, not over each row. Score s_ik only moves the "
            "weights of its own row i, so each row gets its own sum over its m keys.",
            "Give the sum the key axis (the last one), with keepdims=True.",
            (lambda scores, weights, d_weights: weights * (d_weights - np.sum(d_weights * weights)),),
        ),
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
