"""check_temperature_softmax: the learner's softmax(scores / temperature) along the last axis (notebook 04)."""

from __future__ import annotations

import numpy as np

from ._feedback import Feedback
from ._judge import judge
from ._types import BATCH, LARGE, Case, FunctionProblem, Mistake
from ._pieces import global_max_softmax, max_shift, row_softmax, softmax_from, softmax_no_keepdims


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


def _whole(s):
    e = np.exp(s - s.max())
    return e / e.sum()


def _unnormalised(scores, temperature):
    s = scores / temperature
    return np.exp(s - s.max(axis=-1, keepdims=True))


def _mistakes():
    return [
        Mistake("global-max",
                (lambda scores, temperature: global_max_softmax(scores / temperature),
                 lambda scores, temperature: softmax_from(
                          scores / temperature - np.max(scores / temperature, axis=(-2, -1), keepdims=True))),
                strict_nonfinite=True, array="array",
                example="after dividing by T = 0.01, a row near 0 next to a row near 1000"),
        Mistake("multiplied-by-temperature", (lambda scores, temperature: row_softmax(scores * temperature),)),
        Mistake("temperature-after-softmax",
                (lambda scores, temperature: row_softmax(scores) / temperature,
                 lambda scores, temperature: row_softmax(scores) * temperature)),
        Mistake("power-after-softmax", (lambda scores, temperature: row_softmax(scores) ** (1 / temperature),)),
        Mistake("temperature-ignored", (lambda scores, temperature: row_softmax(scores),)),
        Mistake("temperature-squared", (lambda scores, temperature: row_softmax(scores / temperature ** 2),)),
        Mistake("temperature-square-root",
                (lambda scores, temperature: row_softmax(scores / np.sqrt(temperature)),)),
        Mistake("no-keepdims",
                (lambda scores, temperature: softmax_no_keepdims(scores / temperature),
                 lambda scores, temperature: softmax_no_keepdims(scores / temperature, "max"),
                 lambda scores, temperature: softmax_no_keepdims(scores / temperature, "both"))),
        Mistake("softmax-wrong-axis",
                (lambda scores, temperature: row_softmax(scores / temperature, axis=-2),
                 lambda scores, temperature: row_softmax(scores / temperature, axis=0))),
        Mistake("softmax-whole-array",
                (lambda scores, temperature: _whole(scores / temperature),
                 lambda scores, temperature: softmax_from(max_shift(scores / temperature), axis=None))),
        Mistake("no-division", (_unnormalised, lambda scores, temperature: np.exp(scores / temperature)),
                what="weights"),
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
    overflow=("naive-overflow", {"what": "function", "when": " after dividing by the temperature (a small temperature "
                                                            "makes the scores large)"}),
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
