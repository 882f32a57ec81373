"""check_padding_mask: a learner's padding mask, True for the first ``lengths[b]`` keys of sequence b."""

from __future__ import annotations

import sys

import numpy as np

from .. import masks as _masks
from ._compare import _Case, _report_problem
from ._feedback import Feedback, _fail, _not_answered
from ._running import _Raised, _blank, _call, _function_problem, _unless_unanswered

_CASES = [([3, 5, 1], 5), ([2], 3), ([4, 2], 6), ([1, 6, 3, 6], 6)]


def _keys_kept(lengths, m, keep):
    """(batch, m): True where ``keep(j, length)`` for key j of each sequence."""
    j = np.arange(m)[None, :]
    return keep(j, np.asarray(lengths)[:, None])


def _pattern_mistakes():
    """(id, pattern(lengths, m) -> bool (batch, m), reason, hint), compared key by key."""
    return [
        ("inverted-mask", lambda L, m: _keys_kept(L, m, lambda j, n: j >= n),
         "Your mask is inverted: True on the padding keys and False on the real ones. In this course (as in "
         "PyTorch's scaled_dot_product_attention) True means 'may attend', so the real keys are True.",
         "Return the complement: np.arange(m) < lengths[:, None]."),
        ("off-by-one", lambda L, m: _keys_kept(L, m, lambda j, n: j <= n),
         "Your mask keeps one key too many: key j = lengths[b] is the first padding position (keys are counted "
         "from 0), and you let it through. A sequence of length 3 owns keys 0, 1 and 2.",
         "Use a strict comparison: j < lengths[b]."),
        ("off-by-one", lambda L, m: _keys_kept(L, m, lambda j, n: j < n - 1),
         "Your mask keeps one key too few: it blocks key lengths[b] - 1, the last real word. A sequence of "
         "length 3 owns keys 0, 1 and 2 (keys are counted from 0).",
         "Keep key j exactly when j < lengths[b]."),
        ("same-length-for-all", lambda L, m: _keys_kept([L[0]] * len(L), m, lambda j, n: j < n),
         "Your mask uses the first sequence's length for every sequence of the batch. Each sequence b was "
         "padded by its own amount, so row b of the mask must keep its own lengths[b] keys.",
         "Compare with every length at once: np.arange(m)[None, :] < lengths[:, None] gives (batch, m)."),
        ("same-length-for-all", lambda L, m: _keys_kept([max(L)] * len(L), m, lambda j, n: j < n),
         "Your mask uses the longest length for every sequence of the batch, so the padding of the shorter "
         "sequences is let through. Each sequence b keeps its own lengths[b] keys.",
         "Compare with every length at once: np.arange(m)[None, :] < lengths[:, None] gives (batch, m)."),
    ]


def check_padding_mask(fn) -> Feedback:
    """Check a learner's ``fn(lengths, m) -> mask``: bool (batch, 1, m), True where key j < lengths[b].

    ``lengths`` is a 1-D integer array (batch,). The axis of length 1 broadcasts over the n queries, so the mask
    combines with scores (batch, n, m) and with a causal mask (n, m). Cases: lengths [3, 5, 1] with m = 5 (one
    sequence unpadded), [2] with m = 3, [4, 2] with m = 6, [1, 6, 3, 6] with m = 6.

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
    return _unless_unanswered(_judge_padding_mask, fn)


def _calls_library(fn) -> bool:
    code = getattr(fn, "__code__", None)
    names = set(code.co_names) if code is not None else set()
    space = getattr(fn, "__globals__", {})
    package = sys.modules[__name__.split('.')[0]]
    direct = any(space.get(name) is _masks.padding_mask for name in names)
    through_module = "padding_mask" in names and any(space.get(name) in (_masks, package) for name in names)
    return direct or through_module


def _judge_padding_mask(fn) -> Feedback:
    if _blank(fn):
        return _not_answered()
    problem = _function_problem(fn, "check_padding_mask", "lengths", "m")
    if problem is not None:
        return problem
    if _calls_library(fn):
        return _fail(
            "used-attn-lib",
            "Your function calls attn_lib's padding_mask, the function this problem asks you to write. It would "
            "pass, and teach nothing: build the mask yourself from the lengths.",
            "Compare key positions with lengths: np.arange(m) < lengths[:, None], then add the query axis.",
        )
    outs = []
    for lengths, m in _CASES:
        label = f"lengths={lengths}, m={m}"
        got = _call(fn, np.array(lengths), m)
        if isinstance(got, _Raised):
            return _report_problem(got, _Case(label, {}))
        if got is None:
            return _fail("returned-none", f"Your function returned None for {label}: is a `return` missing?")
        try:
            got = np.asarray(got)
        except (TypeError, ValueError):
            return _fail("not-an-array", f"Your function returned {type(got).__name__}, not an array.")
        if not (got.dtype == np.bool_ or np.issubdtype(got.dtype, np.number)):
            return _fail("not-an-array", f"For {label} your function returned an array of {got.dtype}.")
        outs.append(got)
    right = [_keys_kept(lengths, m, lambda j, n: j < n) for lengths, m in _CASES]  # (batch, m) each
    flat = []  # the learner's (batch, m) pattern, when the shape allows reading one
    for (lengths, m), got in zip(_CASES, outs):
        batch = len(lengths)
        if got.shape in ((batch, 1, m), (batch, m), (batch, m, 1)):
            flat.append(got.reshape(batch, m))
        else:
            label = f"lengths={lengths}, m={m}"
            return _fail(
                "wrong-shape",
                f"For {label} your mask has shape {got.shape}; it should be (batch, 1, m) = {(batch, 1, m)}: one "
                "row of m keys per sequence, and an axis of length 1 that broadcasts over the queries.",
                "np.arange(m) < lengths[:, None] is (batch, m); add the query axis with [:, None, :].",
            )
    if all(g.dtype != np.bool_ for g in outs):
        values = np.concatenate([g.ravel() for g in outs]).astype(float)
        if np.isin(values, (0.0, -np.inf)).all() and np.isneginf(values).any():
            return _fail(
                "additive-mask",
                "Your mask is additive (0 where allowed, -inf where blocked): a mask to add to the scores. The "
                "course's masks are boolean, True = may attend; the -inf goes in with np.where(mask, scores, "
                "-np.inf).",
                "Return the boolean pattern: np.arange(m) < lengths[:, None], with the query axis added.",
            )
    patterns = [f.astype(bool) for f in flat]
    if all((p == r).all() for p, r in zip(patterns, right)):
        kinds = {"query-axis" if g.shape == (len(L), 1, m) else "none" if g.shape == (len(L), m) else "keys"
                 for (L, m), g in zip(_CASES, outs)}
        if "none" in kinds:
            shape = next(g.shape for g in outs if g.ndim == 2)
            return _fail(
                "missing-query-axis",
                f"Your pattern is right, but the mask is (batch, m), {shape}, with no axis for the queries. "
                "Against scores (batch, n, m), numpy lines up the last axes: your batch axis meets the n "
                "queries, so sequence b's mask would be used for query b (or the shapes fail to broadcast).",
                "Add an axis of length 1 for the queries: mask[:, None, :] has shape (batch, 1, m).",
            )
        if "keys" in kinds:
            shape = next(g.shape for g in outs if g.ndim == 3 and g.shape[1] != 1)
            return _fail(
                "masks-queries",
                f"Your pattern is right, but the mask is (batch, m, 1), {shape}: it runs along the query axis. "
                "Against scores (batch, n, m) it would block query rows, not key columns, and a padding position "
                "would still be attended to.",
                "Put the axis of length 1 in the middle: shape (batch, 1, m), mask[:, None, :].",
            )
        if any(g.dtype != np.bool_ for g in outs):
            dtype = next(g.dtype for g in outs if g.dtype != np.bool_)
            return _fail(
                "not-boolean",
                f"Your mask has the right pattern but dtype {dtype}, not bool. np.where(mask, scores, -np.inf) "
                "would still work, but ~mask of an integer 1 is -2, and a mask of 0s and 1s used as an index picks "
                "rows 0 and 1 instead of selecting entries.",
                "Make it boolean: compare, np.arange(m) < lengths[:, None], rather than casting to int.",
            )
        return Feedback(
            True,
            "Your padding mask is right in all 4 cases: shape (batch, 1, m), True for the first lengths[b] keys of "
            "sequence b, including a sequence with no padding and one of length 1.",
        )
    for mid, pattern, reason, hint in _pattern_mistakes():
        candidates = [pattern(lengths, m) for lengths, m in _CASES]
        if all((p == c).all() for p, c in zip(patterns, candidates)):
            return _fail(mid, reason, hint)
    for (lengths, m), p, r in zip(_CASES, patterns, right):
        if not (p == r).all():
            b, j = np.argwhere(p != r)[0]
            says = "keeps" if p[b, j] else "blocks"
            should = "kept" if r[b, j] else "blocked"
            return _fail(
                "wrong-pattern",
                f"For lengths={lengths}, m={m} your mask {says} key {j} of sequence {b} (length {lengths[b]}), "
                f"which should be {should}: sequence b keeps key j exactly when j < lengths[b].",
                "Compare key positions with the lengths: np.arange(m)[None, :] < lengths[:, None].",
            )
    raise AssertionError("unreachable")  # pragma: no cover
