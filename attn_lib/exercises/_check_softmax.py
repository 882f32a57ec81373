"""check_softmax: a learner's row-wise softmax (notebook 01)."""

from __future__ import annotations

import numpy as np

from ._compare import close
from ._feedback import Feedback, failure
from ._judge import judge
from ._types import BATCH, LARGE, Case, FunctionProblem, Mistake
from ._weights_diagnosis import WEIGHTS_DIAGNOSIS, diagnose_weights, expected_weights
from ._pieces import (
    global_max_softmax,
    max_shift,
    per_matrix_softmax,
    row_softmax,
    softmax_from,
    softmax_no_keepdims,
    softmax_whole,
    uniform_weights,
)


def _cases() -> list[Case]:
    rng = np.random.default_rng(4)
    neg = rng.normal(size=(3, 4)) * 2
    neg[0, 1] = neg[1, 0] = neg[1, 3] = neg[2, 2] = -np.inf
    levels = np.array([[0.5, -1.0, 2.0, 0.0], [800.0, 790.0, 805.0, 0.0], [-1000.0, -990.0, -1005.0, -995.0]])
    batch_levels = np.stack([rng.normal(size=(2, 4)) * 2, 900 + rng.normal(size=(2, 4)) * 2])
    raw = [
        ("a 4 x 4 array of small scores", rng.normal(size=(4, 4)) * 2, ()),
        ("a 2 x 5 array of small scores", rng.normal(size=(2, 5)) * 2, ()),
        ("a 3 x 4 array with -inf entries (masked)", neg, ()),
        ("a 3 x 4 array of scores near 1000", 1000 + rng.normal(size=(3, 4)) * 2, (LARGE,)),
        ("rows at very different levels ([0.5, -1, 2, 0], [800, 790, 805, 0] and [-1000, -990, -1005, -995])",
         levels, (LARGE,)),
        ("a batch of shape (2, 3, 5): two 3 x 5 arrays", rng.normal(size=(2, 3, 5)) * 2, (BATCH,)),
        ("a single row of 5 scores, shape (5,)", rng.normal(size=5) * 2, (BATCH,)),
        ("a batch of shape (2, 2, 4) whose second array is near 900", batch_levels, (BATCH, LARGE)),
        ("two leading axes, shape (2, 2, 3, 4)", np.random.default_rng(41).normal(size=(2, 2, 3, 4)) * 2, (BATCH,)),
    ]
    return [Case(label, {"x": x}, expected_weights(x), tags, zeros=np.isneginf(x)) for label, x, tags in raw]


def _mistakes() -> list[Mistake]:
    return [
        Mistake("global-max",
                (global_max_softmax, lambda x: softmax_from(x - np.max(x, axis=(-2, -1), keepdims=True))),
                strict_nonfinite=True, array="array", example="a row near 0 next to a row near 1000"),
        Mistake("subtract-abs-max", (lambda x: softmax_from(x - np.max(np.abs(x), axis=-1, keepdims=True)),),
                strict_nonfinite=True),
        Mistake("subtract-min",
                (lambda x: softmax_from(x - np.min(x, axis=-1, keepdims=True)),
                 lambda x: softmax_from(x - np.mean(x, axis=-1, keepdims=True))),
                strict_nonfinite=True),
        Mistake("axis-1-on-batch",
                (lambda x: row_softmax(x, axis=1),
                 lambda x: softmax_from(max_shift(x, axis=1)),
                 lambda x: softmax_from(max_shift(x), axis=1))),
        Mistake("softmax-wrong-axis", (lambda x: row_softmax(x, axis=0), lambda x: row_softmax(x, axis=-2))),
        Mistake("softmax-whole-matrix",
                (softmax_whole,
                 lambda x: softmax_from(x, axis=None),
                 lambda x: softmax_from(max_shift(x), axis=None),
                 per_matrix_softmax)),
        Mistake("no-keepdims",
                (softmax_no_keepdims,
                 lambda x: softmax_no_keepdims(x, "max"),
                 lambda x: softmax_no_keepdims(x, "both"))),
        Mistake("max-wrong-axis",
                (lambda x: softmax_from(x - np.max(x, axis=0, keepdims=True)),
                 lambda x: softmax_from(x - np.max(x, axis=-2, keepdims=True)))),
        Mistake("no-division", (lambda x: np.exp(max_shift(x)), lambda x: np.exp(x)), what="weights"),
        Mistake("uniform-weights", (uniform_weights, lambda x: np.full(x.shape, 1 / x.shape[-1]))),
    ]


def _diagnose(attempts, runner) -> Feedback | None:
    """The weights' structural reasons (shared with check_masked_softmax), then one of softmax's own: the weights
    must not change when a constant is added to every score."""
    found = diagnose_weights(attempts, runner)
    if found is not None:
        return found
    x = attempts[0].case.inputs["x"]
    shifted = runner.call(x + 3.0)
    first = attempts[0].result
    if isinstance(shifted, np.ndarray) and (
        shifted.shape != first.shape or not close(np.asarray(shifted, float), first, attempts[0].tol).all()
    ):
        return failure("not-shift-invariant")
    return None


PROBLEM = FunctionProblem(
    gives=(*WEIGHTS_DIAGNOSIS, "neg-inf-not-zero", "not-shift-invariant"),
    checker="check_softmax",
    params=("x",),
    cases=_cases,
    mistakes=_mistakes,
    what="weights",
    forbidden=("softmax",),
    passed=(
        "Your softmax matches on all {count} cases: each row is non-negative and sums to one, -inf gets weight "
        "0, scores near 1000 do not overflow, and leading batch axes work."
    ),
    diagnose=_diagnose,
    hint="Compare with attn_lib.softmax on the same input, one row at a time.",
)


def check_softmax(fn) -> Feedback:
    """Check a learner's softmax ``fn(x) -> weights`` along the last axis, for x of any number of axes.

    Nine seeded cases: small scores (square and not), -inf entries (which must get weight 0), scores near 1000,
    rows at very different levels (one near -1000), two batches (2, 3, 5) and (2, 2, 4), two leading axes
    (2, 2, 3, 4), and one row of shape (5,). A naive ``exp(x) / sum`` passes the small cases and fails the large ones, and the feedback
    says so. Calling attn_lib.softmax is named (``used-attn-lib``).

    Parameters
    ----------
    fn : callable or None
        ``fn(x)`` with x (..., n, m), returning weights (..., n, m), each row non-negative and summing to one.

    Returns
    -------
    Feedback

    Examples
    --------
    >>> def naive(x):
    ...     e = np.exp(x)
    ...     return e / e.sum(axis=-1, keepdims=True)
    >>> check_softmax(naive).mistake
    'naive-overflow'
    >>> def rows_of_2d(x):
    ...     e = np.exp(x - x.max(axis=1, keepdims=True))
    ...     return e / e.sum(axis=1, keepdims=True)
    >>> check_softmax(rows_of_2d).mistake
    'axis-1-on-batch'
    """
    return judge(fn, PROBLEM)

