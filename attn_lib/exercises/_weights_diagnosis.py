"""What the softmax checkers share (check_softmax, check_masked_softmax): the right weights, computed as a learner
would (NaN for a row whose keys are all blocked), and the structural reasons for any softmax-like output."""

from __future__ import annotations

import numpy as np

from ._compare import close, fmt, index, two_numbers
from ._feedback import Feedback, failure
from ._catalogue import FINITE_FLOOR
from ._pieces import row_softmax


def expected_weights(x):
    """The softmax of each row of x, warnings silenced (an all -inf row gives NaN)."""
    with np.errstate(all="ignore"):
        return row_softmax(x)


# The ids diagnose_weights gives, whatever the mask (with mask_key also blocked-not-zero, without neg-inf-not-zero).
WEIGHTS_DIAGNOSIS = ("wrong-shape", "negative-weights", "non-finite-output", "no-division", "rows-not-one")


def diagnose_weights(attempts, runner, mask_key=None) -> Feedback | None:
    """Structural reasons for softmax-like outputs (..., n, m): the first one that applies."""
    for got, case in ((a.result, a.case) for a in attempts):
        if got.shape != case.expected.shape:
            return failure("wrong-shape", label=case.label, what="weights", expected=case.expected.shape,
                           got=got.shape, extra=" Softmax keeps the shape of the scores: one weight per score.",
                           hint="Use keepdims=True in the row max and sum.")
    for got, case in ((a.result, a.case) for a in attempts):
        if (got < -1e-12).any():  # NaN compares False; -inf counts as negative
            at = np.argwhere(got < -1e-12)[0]
            return failure("negative-weights", label=case.label, at=index(at), value=fmt(got[tuple(at)]))
    for got, case in ((a.result, a.case) for a in attempts):
        if got.size and not np.isfinite(got).all():
            bad = index(np.argwhere(~np.isfinite(got))[0])
            return failure("non-finite-output", label=case.label, what="weights", where=f"first at {bad}", extra="")
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
            return failure("rows-not-one", label=case.label, row=index(row),
                           total=two_numbers(sums[tuple(row)], 1.0)[0])
    for got, case, tol in ((a.result, a.case, a.tol) for a in attempts):
        if mask_key:
            blocked = ~np.broadcast_to(case.inputs[mask_key], got.shape)
        else:
            blocked = np.isneginf(case.inputs["x"])
        wrong = blocked & (got != 0)  # the problem promises exactly 0: compared exactly, not within a tolerance
        if wrong.any():
            at = np.argwhere(wrong)[0]
            tiny = close(got[tuple(at)], 0.0, tol)  # 1e-304: a finite floor or fill, not -inf
            return failure("blocked-not-zero" if mask_key else "neg-inf-not-zero", label=case.label, at=index(at),
                           value=fmt(got[tuple(at)]), tiny=FINITE_FLOOR if tiny else "",
                           no_floor=" (no floor, no clip: exp(-inf) = 0 needs no protection)." if tiny else ".")
    return None
