"""check_masked_softmax: a learner's softmax of each row over the keys a mask allows."""

from __future__ import annotations

import dataclasses

import numpy as np

from ..attention import softmax as _attn_lib_softmax

from ._weights_diagnosis import WEIGHTS_DIAGNOSIS, diagnose_weights, expected_weights
from ._feedback import Feedback
from ._judge import judge
from ._types import BATCH, BROADCAST, LARGE, Case, FunctionProblem, Mistake
from ._learner_code import fills_blocked, zeroed_before_max
from ._pieces import (
    FINITE_FILL_NOTE,
    SMALL_FILLS,
    bool_index_blocked,
    global_max_softmax,
    max_shift,
    per_matrix_softmax,
    row_softmax,
    softmax_from,
    softmax_whole,
    uniform_weights,
)
from ._running import Raised


def _cases() -> list[Case]:
    rng = np.random.default_rng(6)
    scattered = np.array([[True, False, True, False], [False, True, True, True], [True, False, False, False]])
    levels = rng.normal(size=(3, 4)) * 2
    levels[1:] += 1000.0  # query 0 near 0, queries 1 and 2 near 1000
    dominant = rng.normal(size=(3, 5)) * 2
    dominant[:2, 3:] = 1000.0  # blocked keys 3 and 4 hold by far the largest scores of rows 0 and 1
    lengths = np.array([3, 5])
    spread = np.array([[0.5, 2.0, -1.0, 3.0], [-1000.0, 1000.0, 1.5, -2.0], [1000.0, 0.5, -1000.0, 1.0]])
    raw = [
        ("4 x 4 scores with a causal mask", rng.normal(size=(4, 4)) * 2, np.tri(4, 4, dtype=bool), ()),
        ("3 x 5 scores with a padding mask (keys 3 and 4 blocked)", rng.normal(size=(3, 5)) * 2,
         np.broadcast_to(np.arange(5) < 3, (3, 5)).copy(), ()),
        ("3 x 4 scores with a scattered mask", rng.normal(size=(3, 4)) * 2, scattered, ()),
        ("3 x 4 scores near -300 with a causal mask", rng.normal(size=(3, 4)) * 2 - 300, np.tri(3, 4, dtype=bool),
         ()),
        ("3 x 4 scores with a causal mask, query 0 near 0 and queries 1, 2 near 1000", levels,
         np.tri(3, 4, dtype=bool), (LARGE,)),
        ("3 x 5 scores whose blocked keys 3 and 4 score 1000, far above the allowed ones", dominant,
         np.broadcast_to(np.arange(5) < 3, (3, 5)).copy(), ()),
        ("scores (4, 6) with a padding mask of shape (1, 6) that broadcasts (keys 4 and 5 blocked)",
         rng.normal(size=(4, 6)) * 2, (np.arange(6) < 4)[None, :], (BROADCAST,)),
        ("a batch of scores (2, 3, 5) with a padding mask (2, 1, 5) (lengths 3 and 5)",
         rng.normal(size=(2, 3, 5)) * 2, (np.arange(5) < lengths[:, None])[:, None, :], (BATCH, BROADCAST)),
        ("a batch of scores (2, 4, 4) sharing one causal mask (4, 4)", rng.normal(size=(2, 4, 4)) * 2,
         np.tri(4, 4, dtype=bool), (BATCH, BROADCAST)),
        ("3 x 5 scores near -30000 with a padding mask (keys 3 and 4 blocked): far below any finite fill",
         rng.normal(size=(3, 5)) * 2 - 30000, np.broadcast_to(np.arange(5) < 3, (3, 5)).copy(), (LARGE,)),
        ("3 x 4 scores with a causal mask whose allowed scores span 2000 (-1000 to 1000)", spread,
         np.tri(3, 4, dtype=bool), (LARGE,)),
        ("2 x 4 scores [0, 0, 744.5, 744.5] with keys 2 and 3 blocked (exp(-744.5) is the smallest float64)",
         np.array([[0.0, 0.0, 744.5, 744.5]] * 2), np.array([[True, True, False, False]] * 2), ()),
        ("two leading axes: scores (2, 2, 3, 4) sharing one causal mask (3, 4)",
         np.random.default_rng(46).normal(size=(2, 2, 3, 4)) * 2, np.tri(3, 4, dtype=bool), (BATCH, BROADCAST)),
    ]
    return [
        Case(label, {"scores": s, "mask": mask}, expected_weights(np.where(mask, s, -np.inf)), tags, zeros=~mask)
        for label, s, mask, tags in raw
    ]


def _masked(scores, mask, fill=-np.inf):
    return np.where(mask, scores, fill)


def _allowed_mean(scores, mask):
    allowed = np.broadcast_to(mask, np.shape(scores))
    return np.sum(np.where(allowed, scores, 0.0), axis=-1, keepdims=True) / np.sum(allowed, axis=-1, keepdims=True)


def _renormalised(scores, mask, eps=0.0):
    w = row_softmax(scores) * mask
    return w / (w.sum(axis=-1, keepdims=True) + eps)


def _exp_times_mask(scores, mask):
    e = np.exp(scores - np.max(_masked(scores, mask), axis=-1, keepdims=True)) * mask  # inf x 0 where blocked
    return e / e.sum(axis=-1, keepdims=True)


def _exp_shift_times_mask(scores, mask):
    e = np.exp(scores - np.max(scores, axis=-1, keepdims=True)) * mask  # no -inf anywhere: zeroed, renormalised
    return e / e.sum(axis=-1, keepdims=True)


def _inverted_raising(scores, mask):
    """The inverted mask through attn_lib.softmax, which raises on a row whose keys are all blocked."""
    return _attn_lib_softmax(np.where(mask, -np.inf, scores))


def _mistakes() -> list[Mistake]:
    fix = "Put -inf in the blocked scores before the softmax (np.where broadcasts the mask): exp(-inf) = 0."
    return [
        Mistake("max-before-mask",
                (lambda scores, mask: softmax_from(_masked(scores, mask) - np.max(scores, axis=-1, keepdims=True)),),
                strict_nonfinite=True),
        Mistake("zero-then-renormalise",
                (_renormalised,
                 lambda scores, mask: _renormalised(scores, mask, 1e-9),
                 lambda scores, mask: _renormalised(scores, mask, 1e-12),
                 _exp_times_mask,
                 _exp_shift_times_mask),
                strict_nonfinite=True),
        Mistake("mask-after-softmax", (lambda scores, mask: row_softmax(scores) * mask,)),
        Mistake("inf-times-zero", (lambda scores, mask: row_softmax(scores * mask + ~mask * -np.inf),),
                strict_nonfinite=True),
        Mistake("mask-zero", (lambda scores, mask: row_softmax(_masked(scores, mask, 0.0)),)),
        Mistake("small-fill",
                tuple((lambda scores, mask, f=f: row_softmax(_masked(scores, mask, f))) for f in SMALL_FILLS)),
        Mistake("inverted-mask",
                (lambda scores, mask: row_softmax(np.where(mask, -np.inf, scores)), _inverted_raising),
                allowed="keep its score there"),
        Mistake("ignored-mask", (lambda scores, mask: row_softmax(scores),), what="weights"),
        Mistake("mask-added",
                (lambda scores, mask: row_softmax(scores + mask), lambda scores, mask: row_softmax(scores + ~mask))),
        Mistake("boolean-index-broadcast", (lambda scores, mask: row_softmax(bool_index_blocked(scores, mask)),)),
        Mistake("global-max",
                (lambda scores, mask: global_max_softmax(_masked(scores, mask)),
                 lambda scores, mask: softmax_from(_masked(scores, mask) - np.max(scores))),
                strict_nonfinite=True, array="array", example="a row near 0 next to a row near 1000"),
        Mistake("subtract-min",
                (lambda scores, mask: softmax_from(_masked(scores, mask) - np.min(
                _masked(scores, mask, np.inf), axis=-1, keepdims=True)),
                 lambda scores, mask: softmax_from(_masked(scores, mask) - _allowed_mean(scores, mask)),
                 lambda scores, mask: softmax_from(_masked(scores, mask) - np.min(
                 _masked(scores, mask), axis=-1, keepdims=True))),
                strict_nonfinite=True),
        Mistake("axis-1-on-batch",
                (lambda scores, mask: row_softmax(_masked(scores, mask), axis=1),
                 lambda scores, mask: softmax_from(max_shift(_masked(scores, mask), axis=1)))),
        Mistake("softmax-wrong-axis",
                (lambda scores, mask: row_softmax(_masked(scores, mask), axis=0),
                 lambda scores, mask: row_softmax(_masked(scores, mask), axis=-2))),
        Mistake("softmax-whole-matrix",
                (lambda scores, mask: softmax_whole(_masked(scores, mask)),
                 lambda scores, mask: per_matrix_softmax(_masked(scores, mask)),
                 lambda scores, mask: softmax_from(_masked(scores, mask) - np.max(scores), axis=None))),
        Mistake("max-wrong-axis",
                (lambda scores, mask: softmax_from(max_shift(_masked(scores, mask), axis=0)),
                 lambda scores, mask: softmax_from(max_shift(_masked(scores, mask), axis=-2)))),
        Mistake("no-division",
                (lambda scores, mask: np.exp(max_shift(_masked(scores, mask))),
                 lambda scores, mask: np.exp(_masked(scores, mask))),
                what="weights"),
        Mistake("uniform-weights",
                (lambda scores, mask: uniform_weights(_masked(scores, mask)),
                 lambda scores, mask: np.full(scores.shape, 1 / scores.shape[-1]))),
    ]


def _after_pass(attempts, runner) -> str:
    scores = np.array([[0.5, 1.0, -0.5], [1.0, 2.0, 0.0]])
    mask = np.array([[True, False, True], [False, False, False]])
    got = runner.call(scores, mask)
    if isinstance(got, Raised):
        return ""
    got = np.asarray(got, dtype=float) if isinstance(got, np.ndarray) else None
    if got is not None and got.shape == (2, 3) and np.isnan(got[1]).any():
        return (
            "\nOne thing to know: when every key of a row is blocked, your function returns NaN for that row "
            "(all its scores are -inf, and the softmax computes 0/0). attn_lib.softmax raises a ValueError "
            "instead; a NaN would spread silently through every later layer."
        )
    if got is not None and got.shape == (2, 3) and np.allclose(got[1], 1 / 3):  # a finite fill: spread evenly
        return FINITE_FILL_NOTE.format(what="nothing downstream can tell that row was empty.")
    return ""


PROBLEM = FunctionProblem(
    gives=(*WEIGHTS_DIAGNOSIS, "blocked-not-zero"),
    checker="check_masked_softmax",
    params=("scores", "mask"),
    cases=_cases,
    mistakes=_mistakes,
    what="weights",
    forbidden=("attention",),
    passed=(
        "Your masked softmax matches on all {count} cases: blocked keys get weight exactly 0, each row still sums to "
        "one, a blocked score of 1000 changes nothing, scores near 1000 or -30000 do not overflow or underflow, "
        "and masks that broadcast over a batch work."
    ),
    overflow=("naive-overflow", {"what": "masked softmax", "when": ""}),
    diagnose=lambda attempts, runner: diagnose_weights(attempts, runner, mask_key="mask"),
    after_pass=_after_pass,
    hint="Compare one row at a time with attn_lib.softmax of the same row, its blocked scores set to -inf.",
)


def _zeroed_first() -> list[Mistake]:
    """The table with zero-then-renormalise before max-before-mask (see ``_learner_code.fills_blocked``)."""
    return zeroed_before_max(_mistakes())


# A maximum taken before the mask and exp(scores - max) zeroed by the mask give the same numbers on every input;
# only the code tells them apart: the first fills the blocked scores (-inf, np.where, a fill such as -1e9).
_ZEROED = dataclasses.replace(PROBLEM, mistakes=_zeroed_first)
def check_masked_softmax(fn) -> Feedback:
    """Check a learner's ``fn(scores, mask) -> weights``: the softmax of each row over the keys the mask allows.

    Twelve seeded cases: a causal, a padding and a scattered mask; scores near -300 (below a fill of -100); queries
    near 0 and near 1000 in one array; a blocked score of 1000 that dominates its row (zero-then-renormalise gives
    0/0 there); masks (1, 6), (2, 1, 5) and (4, 4) that broadcast to scores (4, 6), (2, 3, 5) and (2, 4, 4); scores
    near -30000 (below any finite fill a learner types, down to -1e4); allowed scores spanning 2000 (subtracting
    a row's minimum overflows); blocked keys 744.5 above the allowed ones (a maximum taken before masking
    still gives the right weights there, a softmax of all scores renormalised does not). Blocked keys must get
    weight exactly 0 and each row must still sum to one.

    Parameters
    ----------
    fn : callable or None
        ``fn(scores, mask)`` with scores (..., n, m) and a boolean mask that broadcasts to it, True = may
        attend; returns weights (..., n, m).

    Returns
    -------
    Feedback

    Examples
    --------
    >>> def after(scores, mask):
    ...     e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    ...     return e / e.sum(axis=-1, keepdims=True) * mask
    >>> check_masked_softmax(after).mistake
    'mask-after-softmax'
    >>> def renormalised(scores, mask):
    ...     w = after(scores, mask)
    ...     return w / w.sum(axis=-1, keepdims=True)
    >>> check_masked_softmax(renormalised).mistake
    'zero-then-renormalise'
    """
    return judge(fn, PROBLEM if fills_blocked(fn) else _ZEROED)
