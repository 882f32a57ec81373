"""check_variance: the predicted variance of one score q . k, unscaled or divided by sqrt(d_k)."""

from __future__ import annotations

import numpy as np

from .._checks import check_size
from ._answers import NUMBER_EXAMPLES, as_number, how_far, record_call
from ._compare import fmt
from ._feedback import Feedback, fail, failure, is_blank, not_answered


def check_variance(answer, d_k, scaled) -> Feedback:
    """Check a predicted variance of one score q . k whose 2 d_k components are independent, mean 0, variance 1.

    Unscaled the variance is d_k (the d_k products each have variance 1, and variances add); divided by
    sqrt(d_k) it is 1. Answers within 10 % pass (an estimate from samples is fine).

    Parameters
    ----------
    answer : number or None
    d_k : int
        Length of the vectors, at least 1.
    scaled : bool
        Whether the score was divided by sqrt(d_k).

    Returns
    -------
    Feedback

    Examples
    --------
    >>> check_variance(1.0, d_k=64, scaled=True).passed
    True
    >>> check_variance(64, d_k=64, scaled=True).mistake
    'dk-when-scaled'
    """
    record_call("check_variance", (answer, d_k, scaled), {})
    d_k = check_size(d_k, "d_k", minimum=1)
    if not isinstance(scaled, (bool, np.bool_)):
        raise TypeError(f"scaled must be True or False; got {type(scaled).__name__} {scaled!r}")
    if is_blank(answer):
        return not_answered("your predicted variance of one score" + (" divided by sqrt(d_k)" if scaled else
                                                                        ", before any division"))
    value = as_number(answer, finite=True)
    if value is None:
        return failure("not-a-number", what="Your answer", examples=NUMBER_EXAMPLES,
                       got=f"{type(answer).__name__} {answer!r}")
    right = 1.0 if scaled else float(d_k)
    rule = "Variances of independent terms add. What is the variance of one product q_i k_i, and how many are there?"
    if abs(value - right) <= 0.1 * right:
        why = ("dividing by sqrt(d_k) divides the variance by d_k, so the scaled score has variance 1 whatever "
               "d_k is" if scaled else "q . k is a sum of d_k products, each of variance 1, and variances add")
        return Feedback(True, f"{fmt(value)} is right: {why}.")
    r = np.sqrt(d_k)
    candidates = [
        ("mean-not-variance", 0.0, "0 is the mean of a score; the question asks for its variance (the spread).",
         "The mean is 0, but the spread is not: each product q_i k_i has variance 1."),
    ]
    if scaled:
        candidates += [
            ("dk-when-scaled", d_k, f"{d_k} = d_k is the variance before the division; dividing a score by a "
             "number divides its variance by that number squared.", "Var(a X) = a^2 Var(X)."),
            ("sqrt-when-scaled", r, f"{fmt(r)} = sqrt(d_k) would be the variance if dividing a score by a number "
             "divided its variance by the same number; a variance is in squared units, so it is divided by the "
             "square.", "Var(a X) = a^2 Var(X)."),
            ("inverse-dk", 1 / d_k, f"1/d_k = {fmt(1 / d_k)} divides the variance by d_k one time too many: "
             "the division applies to the unscaled score, whose variance is not 1.", rule),
            ("inverse-sqrt-dk", 1 / r, f"{fmt(1 / r)} = 1/sqrt(d_k) mixes up the score and its variance: a "
             "variance is in squared units, and it starts from the unscaled score's.", "Var(a X) = a^2 Var(X)."),
        ]
    else:
        candidates += [
            ("std-not-variance", r, f"{fmt(r)} is sqrt(d_k), the standard deviation of one score, a spread in "
             "the scores' own units; the question asks for the variance, the spread that adds up over "
             "independent terms.", rule),
            ("one-when-unscaled", 1.0, "1 is the variance of one product q_i k_i, or of the score after the "
             "division by sqrt(d_k); the unscaled score is a sum of products, and variances of independent "
             "terms add.", rule),
            ("dk-squared", float(d_k) ** 2, f"{fmt(float(d_k) ** 2)} = d_k^2: variances of independent terms "
             "add; they do not multiply, and the sum of d_k terms is not squared.", rule),
            ("inverse-dk", 1 / d_k, f"1/d_k = {fmt(1 / d_k)}: a sum of more terms spreads more, not less.",
             rule),
        ]
    # The nearest known wrong answer within 10 % (0 only when exactly 0), unless it is also near the right one.
    close = [
        (abs(value - v), mid, text, hint)
        for mid, v, text, hint in candidates
        if (value == v if v == 0 else abs(value - v) <= 0.1 * abs(v)) and abs(v - right) > 0.1 * right
    ]
    if close:
        _, mid, text, hint = min(close, key=lambda c: c[0])
        return fail(mid, text if mid == "std-not-variance" else f"{fmt(value)} is not it: {text}", hint)
    return fail("wrong-variance", how_far(value, right), rule)
