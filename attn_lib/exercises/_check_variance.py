"""check_variance: the predicted variance of one score q . k, unscaled or divided by sqrt(d_k)."""

from __future__ import annotations

import numpy as np

from .._checks import check_size
from ._answers import NUMBER_EXAMPLES, NUMBER_UNREAD, how_far, note_answer, read_number, record_call
from ._catalogue import VARIANCES_ADD, entry
from ._compare import fmt
from ._feedback import Feedback, fail, failure, is_blank, not_answered


# The ids check_variance gives (the teacher's table is generated from them).
GIVES = {
    "check_variance": (
        "std-not-variance", "one-when-unscaled", "dk-when-scaled", "inverse-dk", "sqrt-when-scaled",
        "inverse-sqrt-dk", "dk-squared", "mean-not-variance", "wrong-variance", *NUMBER_UNREAD,
    ),
}


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
    note_answer(1.0 if scaled else float(d_k), "to within 10 %")
    if is_blank(answer):
        return not_answered("your predicted variance of one score" + (" divided by sqrt(d_k)" if scaled else
                                                                        ", before any division"))
    value = read_number(answer, examples=NUMBER_EXAMPLES, finite=True)
    if isinstance(value, Feedback):
        return value
    right = 1.0 if scaled else float(d_k)
    if abs(value - right) <= 0.1 * right:
        why = ("dividing by sqrt(d_k) divides the variance by d_k, so the scaled score has variance 1 whatever "
               "d_k is" if scaled else "q . k is a sum of d_k products, each of variance 1, and variances add")
        return Feedback(True, f"{fmt(value)} is right: {why}.")
    r = np.sqrt(d_k)
    candidates = [("mean-not-variance", 0.0, {})]  # (id, value, the fields of its catalogue entry)
    if scaled:
        candidates += [
            ("dk-when-scaled", d_k, {"d_k": d_k}),
            ("sqrt-when-scaled", r, {"value": fmt(r)}),
            ("inverse-dk", 1 / d_k, {"value": fmt(1 / d_k)}),
            ("inverse-sqrt-dk", 1 / r, {"value": fmt(1 / r)}),
        ]
    else:
        candidates += [
            ("std-not-variance", r, {"value": fmt(r)}),
            ("one-when-unscaled", 1.0, {}),
            ("dk-squared", float(d_k) ** 2, {"value": fmt(float(d_k) ** 2), "hint": VARIANCES_ADD}),
            ("inverse-dk", 1 / d_k, {"value": fmt(1 / d_k)}),
        ]
    # The nearest known wrong answer within 10 % (0 only when exactly 0), unless it is also near the right one.
    close = [
        (abs(value - v), mid, fields)
        for mid, v, fields in candidates
        if (value == v if v == 0 else abs(value - v) <= 0.1 * abs(v)) and abs(v - right) > 0.1 * right
    ]
    if close:
        _, mid, fields = min(close, key=lambda c: c[0])
        text, hint = entry(mid, **fields)
        return fail(mid, text if mid == "std-not-variance" else f"{fmt(value)} is not it: {text}", hint)
    return failure("wrong-variance", how_far=how_far(value, right))
