"""check_causal_mask: a learner's causal mask, True where key j <= query i (top-left aligned)."""

from __future__ import annotations

import numpy as np

from ._compare import _Case, _report_problem
from ._feedback import Feedback, _fail, _not_answered
from ._running import _Raised, _blank, _call, _function_problem, _unless_unanswered


def _causal_mistakes():
    """(id, pattern(n, m) -> bool (n, m), reason, hint); compared on the True/False pattern."""
    i_j = lambda n, m: (np.arange(n)[:, None], np.arange(m)[None, :])  # noqa: E731
    return [
        ("inverted-mask", lambda n, m: (lambda i, j: j > i)(*i_j(n, m)),
         "Your mask is inverted: True where key j > query i, that is, where attending is forbidden. In this "
         "course (as in PyTorch's scaled_dot_product_attention) True means 'may attend'.",
         "Return the complement: True where j <= i, e.g. np.tri(n, m, dtype=bool)."),
        ("diagonal-blocked", lambda n, m: (lambda i, j: j < i)(*i_j(n, m)),
         "Your mask blocks the diagonal: query i may not see key i. Causal means no looking ahead, j <= i; "
         "a position may attend to itself (and query 0 would have nothing left to attend to).",
         "Use j <= i (np.tri with k=0), not j < i."),
        ("upper-triangle", lambda n, m: (lambda i, j: j >= i)(*i_j(n, m)),
         "Your mask keeps the upper triangle (j >= i): query i sees itself and the future, which is what the "
         "causal mask must block. Rows are queries, columns keys.",
         "Keep the lower triangle: True where j <= i (np.tril, or np.tri(n, m, dtype=bool))."),
        ("bottom-right-aligned", lambda n, m: (lambda i, j: j <= i + (m - n))(*i_j(n, m)),
         "Your mask is aligned to the bottom-right corner (query i sees keys up to i + m - n). The course "
         "aligns it top-left, like PyTorch's is_causal and attn_lib.causal_mask: query i sees keys 0..i "
         "whatever m is. Both conventions exist (bottom-right suits a decoder whose first m - n keys are "
         "cached), so when n != m you must know which one your library uses: they let different keys through.",
         "Use True where j <= i, with i the query's own index: np.tri(n, m, dtype=bool)."),
    ]


def check_causal_mask(fn) -> Feedback:
    """Check a learner's ``fn(n, m) -> mask``: bool (n, m), True where key j <= query i (top-left aligned).

    Cases (n, m): (4, 4), (3, 5), (5, 3), (1, 1).

    Parameters
    ----------
    fn : callable or None

    Returns
    -------
    Feedback

    Examples
    --------
    >>> check_causal_mask(lambda n, m: np.tri(n, m, dtype=bool)).passed
    True
    >>> check_causal_mask(lambda n, m: np.tri(n, m)).mistake
    'not-boolean'
    """
    return _unless_unanswered(_judge_causal_mask, fn)


def _judge_causal_mask(fn) -> Feedback:
    if _blank(fn):
        return _not_answered()
    problem = _function_problem(fn, "check_causal_mask", "n", "m")
    if problem is not None:
        return problem
    sizes = [(4, 4), (3, 5), (5, 3), (1, 1)]
    outs = []
    for n, m in sizes:
        got = _call(fn, n, m)
        label = f"n={n}, m={m}"
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
    right = [np.tri(n, m, dtype=bool) for n, m in sizes]
    for (n, m), got in zip(sizes, outs):
        if got.shape == (n, m):
            continue
        label = f"n={n}, m={m}"
        if got.shape == (m, n):
            return _fail("shape-transposed", f"For {label} your mask has shape {got.shape}; it should be (n, m) = "
                         f"{(n, m)}: one row per query, one column per key.", "Rows are queries: shape (n, m).")
        if got.shape == (n, n):
            return _fail("ignores-m", f"For {label} your mask has shape {got.shape}: it ignores m. In "
                         "cross-attention there are m keys, so the mask is n x m.",
                         "Build it with both sizes: np.tri(n, m, dtype=bool).")
        return _fail("wrong-shape", f"For {label} your mask has shape {got.shape}; it should be (n, m) = {(n, m)}.",
                     "One row per query, one column per key.")
    if all(g.dtype != np.bool_ for g in outs):
        values = np.concatenate([g.ravel() for g in outs]).astype(float)
        if np.isin(values, (0.0, -np.inf)).all() and np.isneginf(values).any():
            right_pattern = all(((g == 0) == r).all() for g, r in zip(outs, right))
            return _fail(
                "additive-mask",
                "Your mask is additive (0 where allowed, -inf where blocked): a mask to add to the scores. "
                "The course's masks are boolean, True = may attend, and the -inf goes in with np.where."
                + ("" if right_pattern else " Its pattern is not the causal one either: 0 must sit where j <= i."),
                "Return the boolean pattern instead: np.tri(n, m, dtype=bool).",
            )
    patterns = [g.astype(bool) if g.dtype != np.bool_ else g for g in outs]
    if all((p == r).all() for p, r in zip(patterns, right)):
        if all(g.dtype == np.bool_ for g in outs):
            return Feedback(
                True,
                "Your causal mask is right for (n, m) = (4, 4), (3, 5), (5, 3) and (1, 1): True where key j <= "
                "query i, aligned top-left.",
            )
        dtype = next(g.dtype for g in outs if g.dtype != np.bool_)
        return _fail(
            "not-boolean",
            f"Your mask has the right pattern but dtype {dtype}, not bool. A number mask misbehaves: ~ of an "
            "integer 1 is -2, and an array of 0s and 1s used as an index picks rows 0 and 1 instead of "
            "selecting entries.",
            "Make it boolean: np.tri(n, m, dtype=bool), or compare: np.tril(np.ones((n, m))) == 1.",
        )
    for mid, pattern, reason, hint in _causal_mistakes():
        candidates = [pattern(n, m) for n, m in sizes]
        if all((p == c).all() for p, c in zip(patterns, candidates)):
            return _fail(mid, reason, hint)
    for (n, m), p, r in zip(sizes, patterns, right):
        if not (p == r).all():
            i, j = np.argwhere(p != r)[0]
            says = "allows" if p[i, j] else "blocks"
            should = "allowed" if r[i, j] else "blocked"
            return _fail(
                "wrong-pattern",
                f"For n={n}, m={m} your mask {says} query {i} -> key {j}, which should be {should}: query i may "
                f"attend to key j exactly when j <= i.",
                "Compare i and j: np.arange(n)[:, None] >= np.arange(m)[None, :].",
            )
    raise AssertionError("unreachable")  # pragma: no cover
