"""What the softmax checkers share (check_softmax, check_masked_softmax): the right weights, computed as a learner
would (NaN for a row whose keys are all blocked), and the structural reasons for any softmax-like output."""

from __future__ import annotations

import numpy as np

from ._compare import close, fmt, index, two_numbers
from ._feedback import Feedback, fail
from ._catalogue import FIX_OVERFLOW, failure
from ._pieces import row_softmax


def expected_weights(x):
    """The softmax of each row of x, warnings silenced (an all -inf row gives NaN)."""
    with np.errstate(all="ignore"):
        return row_softmax(x)


def diagnose_weights(attempts, runner, mask_key=None) -> Feedback | None:
    """Structural reasons for softmax-like outputs (..., n, m): the first one that applies."""
    for got, case in ((a.result, a.case) for a in attempts):
        if got.shape != case.expected.shape:
            return fail(
                "wrong-shape",
                f"For {case.label}, the weights should have the shape of the scores, {case.expected.shape}; "
                f"yours have shape {got.shape}.",
                "Softmax keeps the shape: one weight per score. Use keepdims=True in the row max and sum.",
            )
    for got, case in ((a.result, a.case) for a in attempts):
        if (got < -1e-12).any():  # NaN compares False; -inf counts as negative
            at = np.argwhere(got < -1e-12)[0]
            return fail(
                "negative-weights",
                f"For {case.label}, weight {index(at)} is {fmt(got[tuple(at)])}: weights are exponentials "
                "divided by a positive sum, so none can be negative.",
                "Apply np.exp before dividing by the row sum.",
            )
    for got, case in ((a.result, a.case) for a in attempts):
        if got.size and not np.isfinite(got).all():
            bad = index(np.argwhere(~np.isfinite(got))[0])
            return fail(
                "non-finite-output",
                f"For {case.label}, your weights have NaN or inf (first at {bad}).",
                FIX_OVERFLOW,
            )
    # Each row a positive multiple of the right row, the multiples not all equal (whatever constant was
    # subtracted before exp): no division.
    sums = [got.sum(axis=-1) for got in (a.result for a in attempts)]
    if all(
        (s > 0).all() and close(got, case.expected * s[..., None], tol).all()
        for got, case, tol, s in ((a.result, a.case, a.tol, s) for a, s in zip(attempts, sums))
    ) and np.ptp(np.concatenate([s.ravel() for s in sums])) > 1e-3 * np.max(np.concatenate([s.ravel() for s in sums])):
        return failure("no-division", what="weights")
    for got, case, tol in ((a.result, a.case, a.tol) for a in attempts):
        sums = got.sum(axis=-1)
        off = ~close(sums, 1.0, tol)
        if off.any():
            row = np.argwhere(off)[0]
            return fail(
                "rows-not-one",
                f"For {case.label}, row {index(row)} of your weights sums to {two_numbers(sums[tuple(row)], 1.0)[0]}, "
                "not 1. "
                "Each row is one query's distribution over the keys.",
                "Divide each row by its own sum: e / np.sum(e, axis=-1, keepdims=True).",
            )
    for got, case, tol in ((a.result, a.case, a.tol) for a in attempts):
        if mask_key:
            blocked = ~np.broadcast_to(case.inputs[mask_key], got.shape)
        else:
            blocked = np.isneginf(case.inputs["x"])
        wrong = blocked & (got != 0)  # the problem promises exactly 0: compared exactly, not within a tolerance
        if wrong.any():
            at = np.argwhere(wrong)[0]
            what = "a blocked key" if mask_key else "an entry of -inf"
            tiny = close(got[tuple(at)], 0.0, tol)  # 1e-304: a finite floor or fill, not -inf
            return fail(
                "blocked-not-zero" if mask_key else "neg-inf-not-zero",
                f"For {case.label}, weight {index(at)} belongs to {what} but is {fmt(got[tuple(at)])}: "
                "exp(-inf) = 0, so it must be exactly 0."
                + (" Yours is tiny but not 0: somewhere a blocked score became a finite number (a floor such as "
                   "np.maximum(scores - max, -700), or a fill a fixed distance below the row's maximum), and exp "
                   "of any finite number is above 0. The key still takes a share of the row, and a later step "
                   "that tests weight == 0 (or divides by it) sees a key that was never blocked." if tiny else ""),
                "Put -inf in the blocked scores before np.exp, and do not replace it afterwards"
                + (" (no floor, no clip: exp(-inf) = 0 needs no protection)." if tiny else "."),
            )
    return None
