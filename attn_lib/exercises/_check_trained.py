"""Checkers for notebook 10: the attention line inside a trained model (all-MiniLM-L6-v2)."""

from __future__ import annotations

import math

import numpy as np

from ._check_answers import check_choice, check_number
from ._feedback import Feedback
from ._judge import Case, FunctionProblem, Mistake, judge


def _distinct(mistakes, expected, rel):
    """The mistakes whose value an answer could not reach while also being right (measured inputs vary)."""
    return [m for m in mistakes if abs(m[0] - expected) > rel * max(abs(expected), abs(m[0]))]


def check_footnote4_variance(answer, var_q, var_k, d_k=32) -> Feedback:
    """Footnote 4 with components of variance var_q and var_k: the variance of q . k is d_k var_q var_k.

    Examples
    --------
    >>> check_footnote4_variance(32 * 1.04 * 1.26, var_q=1.04, var_k=1.26).passed
    True
    >>> check_footnote4_variance(32, var_q=1.04, var_k=1.26).mistake
    'unit-variance'
    """
    expected = d_k * var_q * var_k
    rel = 0.05
    mistakes = _distinct([
        (float(d_k), "unit-variance",
         f"{d_k} is d_k: footnote 4's answer for components of variance exactly 1. Here they have variances "
         f"{var_q:.2f} and {var_k:.2f}; each product q_t k_t then has variance {var_q:.2f} x {var_k:.2f}.",
         "Variance of a product of independent, mean-0 numbers: the product of their variances."),
        (var_q * var_k, "forgot-dk",
         "That is the variance of one product q_t k_t (or of a scaled score); q . k adds d_k such products, "
         "and variances of independent terms add.", "Multiply by the number of products."),
        (math.sqrt(d_k) * var_q * var_k, "sqrt-dk",
         "You multiplied by sqrt(d_k): that is how the standard deviation grows. Variances of independent terms "
         "add, so the variance grows with d_k itself.", "Variances add; standard deviations do not."),
        (d_k * (var_q + var_k), "added-variances",
         "You added the two variances; for independent, mean-0 factors the variance of a product is the product "
         "of the variances.", "E[(q k)^2] = E[q^2] E[k^2] when q and k are independent."),
        (d_k * math.sqrt(var_q * var_k), "standard-deviations",
         "You used standard deviations where variances belong.", "var(q_t k_t) = var(q_t) var(k_t)."),
    ], expected, rel)
    return check_number(
        answer, expected, rel=rel, mistakes=mistakes, what="the predicted variance",
        explain=(f"If the components were independent with mean 0, each product would have variance "
                 f"{var_q:.2f} x {var_k:.2f} and the d_k = {d_k} products would add: {expected:.1f}. The "
                 "measurement below tests that prediction."),
        hint="Each product q_t k_t has variance var(q) var(k); q . k adds d_k of them.",
    )


WHY_REASONS = {
    "a": "The components do have variance close to 1: the cell above printed it. Footnote 4 needs more than "
         "that: it needs the d_k products to be independent.",
    "b": "Right: W_q and W_k were trained so that a query and the keys it should find point the same way. Then "
         "the d_k products q_t k_t tend to share a sign and add up, instead of cancelling as independent "
         "products would.",
    "c": "float32 rounds each product to about 7 digits; that changes a score by around 1e-6, not its variance "
         "by a factor of 8.",
    "d": "There is no padding here: one sentence, every token real, and the variances were taken over its "
         "tokens only.",
}


def check_why_scores_grow(answer) -> Feedback:
    """Why do trained scores break footnote 4's prediction? One of "a" to "d" (see the notebook).

    Examples
    --------
    >>> check_why_scores_grow("b").passed
    True
    >>> check_why_scores_grow("a").mistake
    'chose-a'
    """
    return check_choice(answer, "b", WHY_REASONS,
                        hint="Footnote 4 assumes two things about the components. Which one did training change?")


def check_unscaled_row(answer, gap=1.0, d_k=32) -> Feedback:
    """A row of two keys whose scaled scores differ by ``gap``: its larger weight once the division is removed.

    Examples
    --------
    >>> check_unscaled_row(1 / (1 + np.exp(-np.sqrt(32)))).passed
    True
    >>> check_unscaled_row(0.73).mistake
    'unchanged'
    """
    sigmoid = lambda x: 1.0 / (1.0 + math.exp(-x))  # noqa: E731 (the larger of two weights whose scores differ by x)
    expected = sigmoid(gap * math.sqrt(d_k))
    mistakes = [
        (sigmoid(gap), "unchanged",
         f"{sigmoid(gap):.3f} is the weight with the division. Removing it multiplies every score, so the gap "
         f"between the two scores, by sqrt(d_k) = {math.sqrt(d_k):.2f}.",
         "Softmax of two scores depends only on their gap: the larger weight is 1 / (1 + exp(-gap))."),
        (sigmoid(gap / math.sqrt(d_k)), "divided-again",
         f"You divided the gap by sqrt(d_k) once more; removing the division does the opposite: the unscaled gap "
         f"is {gap:g} x sqrt(d_k).", "Scaled score = unscaled / sqrt(d_k), so unscaled = scaled x sqrt(d_k)."),
        (sigmoid(gap * d_k), "times-dk",
         f"You multiplied the gap by d_k = {d_k}; the division was by sqrt(d_k) = {math.sqrt(d_k):.2f}. (An answer "
         "of exactly 1 would also mean a one-hot row, which two finite scores never give.)",
         "Multiply the gap by sqrt(d_k), then take 1 / (1 + exp(-gap))."),
        (0.5, "equal-weights", "Two different scores never get equal weights.",
         "Softmax of two scores depends only on their gap."),
    ]
    rel = 0.002
    return check_number(
        answer, expected, rel=rel, mistakes=_distinct(mistakes, expected, rel), what="the larger weight",
        explain=(f"Without the division the gap is {gap:g} x sqrt({d_k}) = {gap * math.sqrt(d_k):.2f}, and the "
                 f"larger weight is 1 / (1 + exp(-{gap * math.sqrt(d_k):.2f})) = {expected:.4f}: a row that was "
                 f"{sigmoid(gap):.2f} / {1 - sigmoid(gap):.2f} becomes nearly one-hot."),
        hint="Softmax of two scores depends only on their gap: the larger weight is 1 / (1 + exp(-gap)).",
    )


# ------------------------------------------------------------------------------ a function: previous-token share


def _previous(weights):
    return np.diagonal(weights, offset=-1, axis1=-2, axis2=-1).mean(axis=-1)  # (..., n-1) -> (...)


def _share_cases():
    rng = np.random.default_rng(10)
    cases = []
    for shape in [(5, 5), (3, 6, 6), (2, 3, 4, 4), (2, 2)]:
        weights = np.exp(rng.normal(scale=1.5, size=shape))
        weights /= weights.sum(axis=-1, keepdims=True)  # rows sum to 1, like softmax output
        cases.append(Case(f"weights of shape {shape}", {"weights": weights}, expected=_previous(weights),
                          tags=("batch",) if len(shape) > 2 else ()))
    return cases


def _share_mistakes():
    n_of = lambda w: w.shape[-1]  # noqa: E731
    return [
        Mistake("next-token",
                "You took the key just after each query (weights[i, i+1]). In weights[..., i, j] the row i is the "
                "query and the column j the key; the previous token of query i is key i - 1.",
                "np.diagonal(weights, offset=-1, axis1=-2, axis2=-1) holds weights[i, i-1] for i = 1 .. n-1.",
                variants=(lambda weights: np.diagonal(weights, offset=1, axis1=-2, axis2=-1).mean(axis=-1),)),
        Mistake("self",
                "You took each query's weight on itself (the main diagonal), not on the token before it.",
                "Use offset=-1: the diagonal just below the main one.",
                variants=(lambda weights: np.diagonal(weights, axis1=-2, axis2=-1).mean(axis=-1),)),
        Mistake("wrapped-first-row",
                "You included query 0, whose 'previous token' weights[0, -1] wraps round to the last key. The "
                "first token has no previous token: average over queries 1 .. n-1 only.",
                "Start at i = 1; np.diagonal with offset=-1 does that for you.",
                variants=(lambda weights: np.mean([weights[..., i, i - 1] for i in range(n_of(weights))], axis=0),)),
        Mistake("divided-by-n",
                "You added the n - 1 weights on previous tokens but divided by n; only n - 1 queries have a previous "
                "token, so a head that always attends to the previous token would score (n - 1) / n, not 1.",
                "Take the mean of the n - 1 entries.",
                variants=(lambda weights: _previous(weights) * (n_of(weights) - 1) / n_of(weights),)),
        Mistake("sum-not-mean",
                "You returned the sum of the weights on previous tokens; the share is their mean, between 0 and 1.",
                "Divide by the number of queries that have a previous token, n - 1.",
                variants=(lambda weights: np.diagonal(weights, offset=-1, axis1=-2, axis2=-1).sum(axis=-1),)),
    ]


PREVIOUS_TOKEN = FunctionProblem(
    checker="check_previous_token", params=("weights",), cases=_share_cases, mistakes=_share_mistakes,
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
    return judge(fn, PREVIOUS_TOKEN)
