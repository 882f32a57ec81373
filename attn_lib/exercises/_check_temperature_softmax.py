"""check_temperature_softmax: the learner's softmax(scores / temperature) along the last axis (notebook 04)."""

from __future__ import annotations

import numpy as np

from ._feedback import Feedback
from ._judge import judge
from ._types import BATCH, LARGE, Case, FunctionProblem, Mistake
from ._pieces import (
    FIX_GLOBAL_MAX,
    GLOBAL_MAX,
    global_max_softmax,
    max_shift,
    row_softmax,
    softmax_from,
    softmax_no_keepdims,
)


def _right(scores, temperature):
    return row_softmax(scores / temperature)  # each row's maximum subtracted inside


def _cases():
    """Temperatures below and above 1 (never 1, where dividing and multiplying agree), n != m, a batch axis, a
    column that wins every row (so a softmax down the columns differs), two cases where scores / T reach
    about 1000: large scores at T = 0.5, and modest scores at T = 0.01, and two rows 1000 apart after dividing by
    T = 0.01 (one maximum for the whole array leaves the lower row 0/0)."""
    rng = np.random.default_rng(4)
    specs = [  # (scores, temperature, label, tags)
        (rng.normal(size=(3, 5)), 0.5, "scores (3, 5) at temperature 0.5", ()),
        (rng.normal(size=(2, 3, 4)) * 2, 3.0, "a batch of scores (2, 3, 4) at temperature 3", (BATCH,)),
        (rng.normal(size=(4, 6)) + np.array([0, 0, 3.0, 0, 0, 0]), 2.0, "scores (4, 6) at temperature 2", ()),
        (500 + rng.normal(size=(2, 4)) * 2, 0.5, "scores near 500 at temperature 0.5 (scores / T near 1000)",
         (LARGE,)),
        (rng.normal(size=(3, 4)) * 3 + 8, 0.01, "scores near 8 at temperature 0.01 (scores / T near 800)",
         (LARGE,)),
        (np.array([[0.0, 1.0, 0.5], [10.0, 11.0, 10.5]]), 0.01,
         "rows [0, 1, 0.5] and [10, 11, 10.5] at temperature 0.01 (scores / T 1000 apart)", (LARGE,)),
        (np.random.default_rng(44).normal(size=(2, 2, 3, 4)) * 2, 0.5,
         "scores with two leading axes (2, 2, 3, 4) at temperature 0.5", (BATCH,)),
    ]
    return [Case(label, {"scores": s, "temperature": t}, expected=_right(s, t), tags=tags,
                 scale=np.abs(s).max() / t)
            for s, t, label, tags in specs]


_FIX = "Divide the scores by the temperature first, then take the stable softmax of each row."


def _whole(s):
    e = np.exp(s - s.max())
    return e / e.sum()


def _unnormalised(scores, temperature):
    s = scores / temperature
    return np.exp(s - s.max(axis=-1, keepdims=True))


def _mistakes():
    return [
        Mistake(
            "global-max",
            GLOBAL_MAX.replace("(here: a row near 0 next to a row near 1000)",
                                "(here: after dividing by T = 0.01, a row near 0 next to a row near 1000)"),
            FIX_GLOBAL_MAX,
            variants=(lambda scores, temperature: global_max_softmax(scores / temperature),
                      lambda scores, temperature: softmax_from(
                          scores / temperature - np.max(scores / temperature, axis=(-2, -1), keepdims=True))),
            strict_nonfinite=True,
        ),
        Mistake(
            "multiplied-by-temperature",
            "You multiplied the scores by the temperature instead of dividing. Then T < 1 flattens the weights "
            "and T > 1 sharpens them, the opposite of a temperature: dividing by a small T widens the gaps "
            "between scores, and the largest takes more weight.",
            _FIX,
            variants=(lambda scores, temperature: row_softmax(scores * temperature),),
        ),
        Mistake(
            "temperature-after-softmax",
            "You applied the temperature to the weights after the softmax. The temperature divides the scores "
            "before the softmax: weights scaled afterwards no longer sum to one, and their ratios do not change.",
            _FIX,
            variants=(lambda scores, temperature: row_softmax(scores) / temperature,
                      lambda scores, temperature: row_softmax(scores) * temperature),
        ),
        Mistake(
            "power-after-softmax",
            "You raised the weights to the power 1 / temperature after the softmax. That does change their "
            "ratios as dividing the scores would (w^(1/T) is proportional to exp(scores / T)), but the rows no "
            "longer sum to one: the normalisation happened before the power.",
            "Divide the scores by the temperature before the softmax, so that its division normalises the "
            "rows last.",
            variants=(lambda scores, temperature: row_softmax(scores) ** (1 / temperature),),
        ),
        Mistake(
            "temperature-ignored",
            "Your weights are the softmax of the scores at temperature 1 whatever the temperature: the "
            "temperature never reaches the scores (dividing a copy, or subtracting it, changes nothing).",
            _FIX,
            variants=(lambda scores, temperature: row_softmax(scores),),
        ),
        Mistake(
            "temperature-squared",
            "You divided the scores by the temperature squared. Softmax at temperature T divides each score by "
            "T once.",
            _FIX,
            variants=(lambda scores, temperature: row_softmax(scores / temperature ** 2),),
        ),
        Mistake(
            "temperature-square-root",
            "You divided the scores by the square root of the temperature. Softmax at temperature T divides each "
            "score by T itself (the square root of d_k is a different division, inside attention's scores).",
            _FIX,
            variants=(lambda scores, temperature: row_softmax(scores / np.sqrt(temperature)),),
        ),
        Mistake(
            "no-keepdims",
            "A row statistic (the sum or the maximum) lost its axis: e.sum(axis=-1) has shape (..., n), and "
            "dividing (..., n, m) by it lines it up with the wrong axis. It fails when n != m and is silently "
            "wrong when n == m.",
            "Add keepdims=True, so the statistic has shape (..., n, 1) and broadcasts along each row.",
            variants=(lambda scores, temperature: softmax_no_keepdims(scores / temperature),
                      lambda scores, temperature: softmax_no_keepdims(scores / temperature, "max"),
                      lambda scores, temperature: softmax_no_keepdims(scores / temperature, "both")),
        ),
        Mistake(
            "softmax-wrong-axis",
            "Your weights sum to one down each column (axis 0 or -2), not along each row: each query shares its "
            "attention among the keys, along the last axis.",
            "Use axis=-1 with keepdims=True for the maximum and the sum.",
            variants=(lambda scores, temperature: row_softmax(scores / temperature, axis=-2),
                      lambda scores, temperature: row_softmax(scores / temperature, axis=0)),
        ),
        Mistake(
            "softmax-whole-array",
            "Your weights sum to one over the whole array, not along each row: each query shares its own "
            "attention among the keys, so every row must sum to one.",
            "Give the maximum and the sum axis=-1 and keepdims=True.",
            variants=(lambda scores, temperature: _whole(scores / temperature),
                      lambda scores, temperature: softmax_from(max_shift(scores / temperature), axis=None)),
        ),
        Mistake(
            "no-division",
            "Your function returns exponentials without dividing each row by its sum: the rows do not sum to "
            "one, so they are not weights.",
            "Divide each row by its sum: e / e.sum(axis=-1, keepdims=True).",
            variants=(_unnormalised, lambda scores, temperature: np.exp(scores / temperature)),
        ),
    ]


PROBLEM = FunctionProblem(
    checker="check_temperature_softmax",
    params=("scores", "temperature"),
    cases=_cases,
    mistakes=_mistakes,
    passed="Your weights match on all {count} cases (temperatures 0.5, 3, 2 and 0.01, a batch axis, scores / T "
           "near 1000, rows 1000 apart): the scores are divided by the temperature before a stable softmax of each "
           "row.",
    what="weights",
    forbidden=("softmax",),
    forbidden_why=(
        "Your function calls attn_lib.softmax, which notebook 04 teaches you to write. This problem asks for the "
        "stable softmax after dividing by the temperature: subtracting each row's maximum of scores / temperature "
        "is part of what is checked."
    ),
    overflow=(
        "naive-overflow",
        "Your function is right on moderate scores, but on {label} it gives NaN or inf: dividing by a small "
        "temperature makes the scores large, and exp of a number above about 709 overflows (inf / inf is NaN). "
        "Subtract each row's maximum after dividing by the temperature; adding a constant to a row changes no "
        "weight.",
        "Subtract each row's maximum after dividing by the temperature, before np.exp.",
    ),
    hint="Divide the scores by the temperature, subtract each row's maximum, exponentiate, divide by the row sum.",
)


def check_temperature_softmax(fn) -> Feedback:
    """Check a learner's ``fn(scores, temperature) -> softmax(scores / temperature)`` along the last axis.

    Seven seeded cases: temperatures 0.5, 3, 2 and 0.01, one and two batch axes, n != m, two cases where
    scores / temperature reach about 1000 (so a softmax without each row's maximum subtracted overflows), and two
    rows 1000 apart after the division (so one maximum for all rows underflows). Calling attn_lib.softmax is
    refused (``used-attn-lib``): the stable softmax is part of the problem. Mistakes: global-max,
    multiplied-by-temperature, temperature-after-softmax, power-after-softmax, temperature-ignored, softmax-wrong-axis,
    softmax-whole-array, no-division, naive-overflow, and the skeleton's no-batch and generic ones.

    Parameters
    ----------
    fn : callable or None
        ``fn(scores, temperature)`` with scores (..., n, m) and a number temperature > 0, returning weights
        (..., n, m).

    Returns
    -------
    Feedback

    Examples
    --------
    >>> def softmax_with_temperature(scores, temperature):
    ...     s = scores / temperature
    ...     e = np.exp(s - s.max(axis=-1, keepdims=True))
    ...     return e / e.sum(axis=-1, keepdims=True)
    >>> check_temperature_softmax(softmax_with_temperature).passed
    True
    >>> def multiplied(scores, temperature):
    ...     return softmax_with_temperature(scores * temperature, 1.0)
    >>> check_temperature_softmax(multiplied).mistake
    'multiplied-by-temperature'
    """
    return judge(fn, PROBLEM)
