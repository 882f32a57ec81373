"""check_softmax and check_masked_softmax: a learner's row-wise softmax, without and with a mask."""

from __future__ import annotations

import numpy as np

from ._compare import (
    _Case,
    _Mistake,
    _ATOL,
    _RTOL,
    _find_mistake,
    _first_difference,
    _first_problem,
    _fmt,
    _index,
    _is_right,
    _nonfinite,
    _overflowed,
    _right_but_overflowed,
    _report_mistake,
    _report_problem,
)
from ._feedback import Feedback, _fail, _not_answered
from ._pieces import (
    _FIX_NO_DIVISION,
    _FIX_OVERFLOW,
    _NO_DIVISION,
    _OVERFLOW,
    _max_shift,
    _softmax,
    _softmax_from,
    _softmax_no_keepdims,
    _softmax_whole,
)
from ._running import _as_float_result, _blank, _call, _function_problem, _unless_unanswered


def _softmax_cases() -> list[_Case]:
    rng = np.random.default_rng(4)
    neg = rng.normal(size=(3, 4)) * 2
    neg[0, 1] = neg[1, 0] = neg[1, 3] = neg[2, 2] = -np.inf
    levels = np.array([[0.5, -1.0, 2.0, 0.0], [800.0, 790.0, 805.0, 0.0]])
    raw = [
        ("a 4 x 4 array of small scores", rng.normal(size=(4, 4)) * 2, ()),
        ("a 2 x 5 array of small scores", rng.normal(size=(2, 5)) * 2, ()),
        ("a 3 x 4 array with -inf entries (masked)", neg, ()),
        ("a 3 x 4 array of scores near 1000", 1000 + rng.normal(size=(3, 4)) * 2, ("large",)),
        ("rows at very different levels ([0.5, -1, 2, 0] and [800, 790, 805, 0])", levels, ("large",)),
    ]
    out = []
    for label, x, tags in raw:
        with np.errstate(all="ignore"):
            expected = _softmax(x)
        out.append(_Case(label, {"x": x}, frozenset(tags), expected))
    return out


def _softmax_mistakes() -> list[_Mistake]:
    return [
        _Mistake(
            "global-max",
            "Your softmax subtracts the largest entry of the whole array instead of each row's own maximum. "
            "That is allowed in exact arithmetic, but a row far below the overall maximum then has every "
            "exp underflow to 0, and 0/0 gives NaN (see the row [0.5, -1, 2, 0] next to [800, 790, 805, 0]).",
            "Subtract each row's maximum: np.max(x, axis=-1, keepdims=True).",
            (lambda x: _softmax_global_max(x),),
            strict_nonfinite=True,
        ),
        _Mistake(
            "subtract-min",
            "Your softmax subtracts each row's minimum instead of its maximum. The result is the same in exact "
            "arithmetic, but the largest exponent is then exp(max - min): it overflows when a row spans more "
            "than about 709, and a -inf entry makes the minimum -inf (NaN everywhere in its row).",
            "Subtract the maximum, so the largest exponent is exp(0) = 1.",
            (lambda x: _softmax_from(x - np.min(x, axis=-1, keepdims=True)),),
            strict_nonfinite=True,
        ),
        _Mistake(
            "softmax-wrong-axis",
            "Your weights sum to one down each column (axis 0) instead of along each row. Each row is one "
            "query's distribution over the keys, so the softmax runs along the last axis.",
            "Use axis=-1 (with keepdims=True) in both the max and the sum.",
            (lambda x: _softmax(x, axis=0),),
        ),
        _Mistake(
            "softmax-whole-matrix",
            "Your softmax normalises the whole array at once (a sum with no axis): all entries together sum "
            "to one, so each row sums to less than one. Softmax acts on each row separately.",
            "Sum along the rows: np.sum(e, axis=-1, keepdims=True).",
            (_softmax_whole, lambda x: _softmax_from(x, axis=None)),
        ),
        _Mistake(
            "no-keepdims",
            "A row statistic (the sum or the max) lost its axis: np.sum(e, axis=-1) has shape (n,), and an "
            "(n, m) array divided by it has column j divided by the sum of row j. It fails when n != m and is "
            "silently wrong when n == m.",
            "Add keepdims=True, so the statistic has shape (n, 1) and broadcasts along each row.",
            (
                _softmax_no_keepdims,
                lambda x: _softmax_no_keepdims(x, "max"),
                lambda x: _softmax_no_keepdims(x, "both"),
            ),
        ),
        _Mistake(
            "max-wrong-axis",
            "Your softmax subtracts each column's maximum (axis 0) instead of each row's. Adding a constant "
            "to a whole row changes nothing, but a different constant per column changes the weights.",
            "Subtract np.max(x, axis=-1, keepdims=True).",
            (lambda x: _softmax_from(x - np.max(x, axis=0, keepdims=True)),),
        ),
        _Mistake(
            "no-division",
            _NO_DIVISION,
            _FIX_NO_DIVISION,
            (
                lambda x: np.exp(x - np.max(x, axis=-1, keepdims=True)),
                np.exp,
            ),
        ),
    ]


def _softmax_global_max(x):
    return _softmax_from(x - np.max(x))


def check_softmax(fn) -> Feedback:
    """Check a learner's row-wise softmax ``fn(x) -> weights`` (softmax along the last axis).

    Five seeded 2-D cases: small scores (square and not), -inf entries (which must get weight 0), scores near
    1000, and rows at very different levels. A naive ``exp(x) / sum`` passes the small cases and fails the
    large ones, and the feedback says so.

    Parameters
    ----------
    fn : callable or None
        ``fn(x)`` with x (n, m), returning weights (n, m), each row non-negative and summing to one.

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
    """
    return _unless_unanswered(_judge_softmax, fn)


def _judge_softmax(fn) -> Feedback:
    if _blank(fn):
        return _not_answered()
    problem = _function_problem(fn, "check_softmax", "x")
    if problem is not None:
        return problem
    cases = _softmax_cases()
    results = [_as_float_result(_call(fn, case.inputs["x"]), "weights") for case in cases]
    if all(_is_right(got, case) for got, case in zip(results, cases)):
        return Feedback(
            True,
            f"Your softmax matches on all {len(cases)} cases: each row is non-negative and sums to one, -inf "
            "gets weight 0, and scores near 1000 do not overflow.",
        )
    overflow = _overflowed(results, cases)
    mistake, variant = _find_mistake(results, cases, _softmax_mistakes(), overflow)
    if mistake:
        return _report_mistake(mistake, variant, results, cases, overflow)
    if _right_but_overflowed(results, cases, overflow):
        i = min(overflow)
        return _fail(
            "naive-overflow",
            f"Your softmax is right on small scores, but on {cases[i].label} it gives NaN or inf: it does not "
            "subtract each row's maximum first. " + _OVERFLOW,
            _FIX_OVERFLOW,
        )
    return _diagnose_weights(results, cases, fn)


def _diagnose_weights(results, cases, fn, mask_key=None) -> Feedback:
    """Structural reasons for softmax-like outputs (n, m): the first one that applies."""
    problem, case = _first_problem(results, cases)
    if problem is not None:
        return _report_problem(problem, case)
    for got, case in zip(results, cases):
        if got.shape != case.expected.shape:
            return _fail(
                "wrong-shape",
                f"For {case.label}, the weights should have the shape of the scores, {case.expected.shape}; "
                f"yours have shape {got.shape}.",
                "Softmax keeps the shape: one weight per score. Use keepdims=True in the row max and sum.",
            )
    for got, case in zip(results, cases):
        if (got < -1e-12).any():  # NaN compares False; -inf counts as negative
            at = np.argwhere(got < -1e-12)[0]
            return _fail(
                "negative-weights",
                f"For {case.label}, weight {_index(at)} is {_fmt(got[tuple(at)])}: weights are exponentials "
                "divided by a positive sum, so none can be negative.",
                "Apply np.exp before dividing by the row sum.",
            )
    for got, case in zip(results, cases):
        if _nonfinite(got):
            bad = _index(np.argwhere(~np.isfinite(got))[0])
            return _fail(
                "non-finite-output",
                f"For {case.label}, your weights have NaN or inf (first at {bad}).",
                _FIX_OVERFLOW,
            )
    # Each row a positive multiple of the right row, whatever constant was subtracted before exp: no division.
    if all(
        (got.sum(axis=-1) > 0).all()
        and np.allclose(got, case.expected * got.sum(axis=-1, keepdims=True), rtol=_RTOL, atol=_ATOL)
        for got, case in zip(results, cases)
    ):
        return _fail("no-division", _NO_DIVISION, _FIX_NO_DIVISION)
    for got, case in zip(results, cases):
        sums = got.sum(axis=-1)
        if not np.allclose(sums, 1.0, rtol=_RTOL, atol=_ATOL):
            row = int(np.argmax(~np.isclose(sums, 1.0, rtol=_RTOL, atol=_ATOL)))
            return _fail(
                "rows-not-one",
                f"For {case.label}, row {row} of your weights sums to {_fmt(sums[row])}, not 1. Each row is one "
                "query's distribution over the keys.",
                "Divide each row by its own sum: e / np.sum(e, axis=-1, keepdims=True).",
            )
    for got, case in zip(results, cases):
        blocked = ~case.inputs[mask_key] if mask_key else np.isneginf(case.inputs["x"])
        if blocked.any() and not np.allclose(got[blocked], 0.0, atol=_ATOL):
            at = np.argwhere(blocked & ~np.isclose(got, 0.0, atol=_ATOL))[0]
            what = "a blocked key" if mask_key else "an entry of -inf"
            return _fail(
                "blocked-not-zero" if mask_key else "neg-inf-not-zero",
                f"For {case.label}, weight {_index(at)} belongs to {what} but is {_fmt(got[tuple(at)])}: "
                "exp(-inf) = 0, so it must be exactly 0.",
                "Put -inf in the blocked scores before np.exp, and do not replace it afterwards.",
            )
    if mask_key is None:
        x = cases[0].inputs["x"]
        shifted = _as_float_result(_call(fn, x + 3.0), "weights")
        first = results[0]
        if isinstance(shifted, np.ndarray) and (
            shifted.shape != first.shape or not np.allclose(shifted, first, rtol=_RTOL, atol=_ATOL)
        ):
            return _fail(
                "not-shift-invariant",
                "Adding 3 to every score changed your weights. A softmax must not change when a constant is "
                "added to a row: exp(x + c) = exp(c) exp(x), and exp(c) cancels in the division.",
                "Compute exp of the (shifted) scores, and divide by the sum of those same exponentials.",
            )
    for got, case in zip(results, cases):
        if not _is_right(got, case):
            return _fail(
                "wrong-values",
                f"For {case.label}, {_first_difference(got, case.expected, 'weights')}.",
                "Compare with attn_lib.softmax on the same input, one row at a time.",
            )
    raise AssertionError("unreachable: a wrong answer with no difference")  # pragma: no cover


def _masked_cases() -> list[_Case]:
    rng = np.random.default_rng(6)
    scattered = np.array([[True, False, True, False], [False, True, True, True], [True, False, False, False]])
    raw = [
        ("4 x 4 scores with a causal mask", rng.normal(size=(4, 4)) * 2, np.tri(4, 4, dtype=bool), ()),
        ("3 x 5 scores with a padding mask (keys 3 and 4 blocked)", rng.normal(size=(3, 5)) * 2,
         np.broadcast_to(np.arange(5) < 3, (3, 5)).copy(), ()),
        ("3 x 4 scores with a scattered mask", rng.normal(size=(3, 4)) * 2, scattered, ()),
        ("3 x 4 scores near 1000 with a causal mask", 1000 + rng.normal(size=(3, 4)) * 2,
         np.tri(3, 4, dtype=bool), ("large",)),
    ]
    cases = []
    for label, scores, mask, tags in raw:
        expected = _softmax(np.where(mask, scores, -np.inf))
        cases.append(_Case(label, {"scores": scores, "mask": mask}, frozenset(tags), expected))
    return cases


def _masked_mistakes() -> list[_Mistake]:
    fix = "Put -inf in the blocked scores, then take the softmax: softmax(np.where(mask, scores, -np.inf))."
    return [
        _Mistake(
            "mask-after-softmax",
            "Your function masks after the softmax (or forgets to renormalise): blocked weights are 0, but "
            "each row sums to less than one, and the blocked scores are still in the softmax's denominator, "
            "so what should be hidden still changes every weight.",
            fix,
            (lambda scores, mask: _softmax(scores) * mask,),
        ),
        _Mistake(
            "mask-zero",
            "Your function sets blocked scores to 0 (filling 0, or multiplying the scores by the mask) instead "
            "of -inf. exp(0) = 1, so blocked keys still get weight; only -inf gives exp(-inf) = 0 exactly.",
            fix,
            (lambda scores, mask: _softmax(np.where(mask, scores, 0.0)),),
        ),
        _Mistake(
            "inverted-mask",
            "Your function uses the mask the wrong way round: blocked keys get the weight and allowed keys get "
            "0. In this course (as in PyTorch's scaled_dot_product_attention) True means 'may attend'.",
            "Keep the score where the mask is True: np.where(mask, scores, -np.inf).",
            (lambda scores, mask: _softmax(np.where(mask, -np.inf, scores)),),
        ),
        _Mistake(
            "ignored-mask",
            "Your weights are the softmax of the scores as if there were no mask: blocked keys get weight.",
            fix,
            (lambda scores, mask: _softmax(scores),),
        ),
        _Mistake(
            "mask-added",
            "Your function adds the boolean mask to the scores: True counts as 1, so allowed keys gain 1 and "
            "blocked keys keep their score. An additive mask holds 0 where allowed and -inf where blocked; the "
            "course's masks are boolean, True = may attend.",
            fix,
            (lambda scores, mask: _softmax(scores + mask),),
        ),
        _Mistake(
            "softmax-wrong-axis",
            "Your weights sum to one down each column (axis 0) instead of along each row: each query's row is "
            "its distribution over the keys.",
            "Use axis=-1 (with keepdims=True) in the max and the sum.",
            (lambda scores, mask: _softmax(np.where(mask, scores, -np.inf), axis=0),),
        ),
        _Mistake(
            "softmax-whole-matrix",
            "Your function normalises the whole array at once (a sum with no axis), so each row sums to less "
            "than one. Softmax acts on each row separately.",
            "Sum along the rows: np.sum(e, axis=-1, keepdims=True).",
            (lambda scores, mask: _softmax_whole(np.where(mask, scores, -np.inf)),),
        ),
        _Mistake(
            "no-division",
            _NO_DIVISION,
            _FIX_NO_DIVISION,
            (
                lambda scores, mask: np.exp(_max_shift(np.where(mask, scores, -np.inf))),
                lambda scores, mask: np.exp(np.where(mask, scores, -np.inf)),
            ),
        ),
    ]


def check_masked_softmax(fn) -> Feedback:
    """Check a learner's ``fn(scores, mask) -> weights``: the softmax of each row over the keys the mask allows.

    Four seeded cases: a causal mask, a padding mask, a scattered mask, and scores near 1000. Blocked keys
    must get weight exactly 0 and each row must still sum to one.

    Parameters
    ----------
    fn : callable or None
        ``fn(scores, mask)`` with scores (n, m) and mask bool (n, m), True = may attend; returns weights (n, m).

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
    """
    return _unless_unanswered(_judge_masked_softmax, fn)


def _judge_masked_softmax(fn) -> Feedback:
    if _blank(fn):
        return _not_answered()
    problem = _function_problem(fn, "check_masked_softmax", "scores", "mask")
    if problem is not None:
        return problem
    cases = _masked_cases()
    results = [_as_float_result(_call(fn, c.inputs["scores"], c.inputs["mask"]), "weights") for c in cases]
    if all(_is_right(got, case) for got, case in zip(results, cases)):
        note = _fully_masked_weights_note(fn)
        return Feedback(
            True,
            f"Your masked softmax matches on all {len(cases)} cases: blocked keys get weight 0, each row still "
            "sums to one, and scores near 1000 do not overflow." + note,
        )
    overflow = _overflowed(results, cases)
    mistake, variant = _find_mistake(results, cases, _masked_mistakes(), overflow)
    if mistake:
        return _report_mistake(mistake, variant, results, cases, overflow)
    if _right_but_overflowed(results, cases, overflow):
        return _fail(
            "naive-overflow",
            f"Your masked softmax is right on small scores but gives NaN or inf on {cases[min(overflow)].label}. "
            + _OVERFLOW,
            _FIX_OVERFLOW + " Blocked entries are -inf, which the maximum ignores as long as one key is allowed.",
        )
    return _diagnose_weights(results, cases, fn, mask_key="mask")


def _fully_masked_weights_note(fn) -> str:
    scores = np.array([[0.5, 1.0, -0.5], [1.0, 2.0, 0.0]])
    mask = np.array([[True, False, True], [False, False, False]])
    got = _as_float_result(_call(fn, scores, mask), "weights")
    if isinstance(got, np.ndarray) and got.shape == (2, 3) and np.isnan(got[1]).any():
        return (
            "\nOne thing to know: when every key of a row is blocked, your function returns NaN for that row "
            "(all its scores are -inf, and the softmax computes 0/0). attn_lib.softmax raises a ValueError "
            "instead; a NaN would spread silently through every later layer."
        )
    return ""
