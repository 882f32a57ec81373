"""check_padding_mask: a learner's padding mask, True for the first ``lengths[b]`` keys of sequence b."""

from __future__ import annotations

import numpy as np

from ._feedback import Feedback, failure
from ._judge import judge
from ._types import Case, FunctionProblem, Mistake
from ._pieces import number_mask_trouble

_SIZES = [([3, 5, 1], 5), ([2], 3), ([4, 2], 6), ([1, 6, 3, 6], 6), ([0, 4, 2], 4)]  # 06 P6: a length may be 0


def _keys(lengths, m, keep):
    """(batch, m): ``keep(j, length)`` for key j of each sequence."""
    return keep(np.arange(m)[None, :], np.asarray(lengths)[:, None])


def _right(lengths, m):
    return _keys(lengths, m, lambda j, n: j < n)[:, None, :]  # (batch, 1, m)


def _cases() -> list[Case]:
    return [Case(f"lengths={lengths}, m={m}", {"lengths": np.array(lengths), "m": m}, _right(lengths, m))
            for lengths, m in _SIZES]


def _pattern(keep):
    """A mistaken pattern, in the right shape (batch, 1, m)."""
    return lambda lengths, m: _keys(lengths, m, keep)[:, None, :]


def _mistakes() -> list[Mistake]:
    return [
        Mistake("inverted-mask", (_pattern(lambda j, n: j >= n),), allowed="j < lengths[b], the real keys"),
        Mistake("off-by-one", (_pattern(lambda j, n: j <= n), _pattern(lambda j, n: j < n - 1))),
        Mistake("same-length-for-all",
                (lambda lengths, m: _right([lengths[0]] * len(lengths), m),
                 lambda lengths, m: _right([max(lengths)] * len(lengths), m),
                 lambda lengths, m: _right([min(lengths)] * len(lengths), m))),
        Mistake("missing-query-axis", (lambda lengths, m: _right(lengths, m)[:, 0, :],)),
        Mistake("masks-queries", (lambda lengths, m: _right(lengths, m)[:, 0, :, None],)),
        Mistake("additive-mask", (lambda lengths, m: np.where(_right(lengths, m), 0.0, -np.inf),),
                strict_nonfinite=True),
    ]


def _diagnose(attempts, runner):
    for got, case in ((a.result, a.case) for a in attempts):
        if got.shape == case.expected.shape and not (got.astype(bool) == case.expected).all():
            b, _, j = np.argwhere(got.astype(bool) != case.expected)[0]
            lengths = case.inputs["lengths"]
            says, should = ("keeps", "blocked") if got[b, 0, j] else ("blocks", "kept")
            return failure("wrong-pattern", label=case.label, says=says,
                           pair=f"key {j} of sequence {b} (length {lengths[b]})", should=should,
                           rule="sequence b keeps key j exactly when j < lengths[b]",
                           compare="the key positions 0 .. m-1 with each sequence's length")
    return None


def _after_pass(attempts, runner):
    out = np.asarray(runner.call(np.array(_SIZES[0][0]), _SIZES[0][1]))
    if out.dtype == np.bool_:
        return None
    return failure("not-boolean", dtype=out.dtype, trouble=number_mask_trouble(out.dtype))


PROBLEM = FunctionProblem(
    gives=("wrong-pattern", "not-boolean"),
    checker="check_padding_mask",
    array_only=True,  # 06 P6: "Return a boolean array of shape (batch, 1, m)"
    params=("lengths", "m"),
    cases=_cases,
    mistakes=_mistakes,
    passed="Your padding mask is right in all {count} cases: shape (batch, 1, m), True for the first lengths[b] "
    "keys of sequence b, including a sequence with no padding, one of length 1 and one of length 0 (all padding).",
    what="mask",
    forbidden=("padding_mask",),
    tools="np.arange(m) compared with the lengths, and a new axis for the queries",
    diagnose=_diagnose,
    after_pass=_after_pass,
    convert="array",
    hint="One row of m keys per sequence, and an axis of length 1 for the queries: shape (batch, 1, m).",
)


def check_padding_mask(fn) -> Feedback:
    """Check a learner's ``fn(lengths, m) -> mask``: bool (batch, 1, m), True where key j < lengths[b].

    ``lengths`` is a 1-D integer array (batch,). The axis of length 1 broadcasts over the n queries, so the mask
    combines with scores (batch, n, m) and with a causal mask (n, m). Cases: lengths [3, 5, 1] with m = 5 (one
    sequence unpadded), [2] with m = 3, [4, 2] with m = 6, [1, 6, 3, 6] with m = 6, [0, 4, 2] with m = 4 (a
    sentence that is all padding).

    Parameters
    ----------
    fn : callable or None

    Returns
    -------
    Feedback

    Examples
    --------
    >>> check_padding_mask(lambda lengths, m: (np.arange(m) < lengths[:, None])[:, None, :]).passed
    True
    >>> check_padding_mask(lambda lengths, m: np.arange(m) < lengths[:, None]).mistake
    'missing-query-axis'
    """
    return judge(fn, PROBLEM)
