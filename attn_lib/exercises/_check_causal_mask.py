"""check_causal_mask: a learner's causal mask, True where key j <= query i (top-left aligned)."""

from __future__ import annotations

import numpy as np

from ._catalogue import NOT_CAUSAL_EITHER
from ._feedback import Feedback, failure
from ._judge import judge
from ._types import Case, FunctionProblem, Mistake
from ._pieces import number_mask_trouble

_SIZES = ((4, 4), (3, 5), (5, 3), (1, 1))


def _cases() -> list[Case]:
    return [Case(f"n={n}, m={m}", {"n": n, "m": m}, np.tri(n, m, dtype=bool)) for n, m in _SIZES]


def _ij(n, m):
    return np.arange(n)[:, None], np.arange(m)[None, :]


def _pattern(rule):
    return lambda n, m: rule(*_ij(n, m))


def _mistakes() -> list[Mistake]:
    return [
        Mistake("inverted-mask", (_pattern(lambda i, j: j > i),), allowed="j <= i, the key no later than the query"),
        Mistake("diagonal-blocked", (_pattern(lambda i, j: j < i),)),
        Mistake("upper-triangle", (_pattern(lambda i, j: j >= i),)),
        Mistake("bottom-right-aligned", (lambda n, m: np.tri(n, m, k=m - n, dtype=bool),)),
        Mistake("shape-transposed",
                (lambda n, m: np.tri(m, n, dtype=bool), lambda n, m: np.tri(n, m, dtype=bool).T)),
        Mistake("ignores-m", (lambda n, m: np.tri(n, n, dtype=bool),)),
    ]


def _diagnose(attempts, runner) -> Feedback | None:
    right = [a.case.expected for a in attempts]
    for got, case in ((a.result, a.case) for a in attempts):
        if got.shape != case.expected.shape:
            return failure("wrong-shape", label=case.label, what="mask", expected=f"(n, m) = {case.expected.shape}",
                           got=got.shape, extra="", hint="One row per query, one column per key.")
    if all(g.dtype != np.bool_ for g in (a.result for a in attempts)):
        values = np.concatenate([g.ravel() for g in (a.result for a in attempts)]).astype(float)
        if np.isin(values, (0.0, -np.inf)).all() and np.isneginf(values).any():
            right_pattern = all(((g == 0) == r).all() for g, r in zip((a.result for a in attempts), right))
            return failure("additive-mask", also="" if right_pattern else NOT_CAUSAL_EITHER)
    for got, case in ((a.result, a.case) for a in attempts):
        p, r = got.astype(bool), case.expected
        if not (p == r).all():
            i, j = np.argwhere(p != r)[0]
            says = "allows" if p[i, j] else "blocks"
            should = "allowed" if r[i, j] else "blocked"
            return failure("wrong-pattern", label=case.label, says=says, pair=f"query {i} -> key {j}", should=should,
                           rule="query i may attend to key j exactly when j <= i",
                           compare="the query index i (a column of indices) with the key index j (a row of indices)")
    return None


def _after_pass(attempts, runner) -> Feedback | None:
    try:
        dtype = np.asarray(runner.call(4, 4)).dtype  # a list of Python bools counts as boolean
    except Exception:  # ragged or odd: the cases already judged it right, so do not fail it here
        return None
    if dtype == np.bool_:
        return None
    return failure("not-boolean", dtype=dtype, trouble=number_mask_trouble(dtype))


PROBLEM = FunctionProblem(
    gives=("additive-mask", "wrong-pattern", "not-boolean"),
    checker="check_causal_mask",
    array_only=True,  # 06 P5: "returning a boolean (n, m) array"
    params=("n", "m"),
    cases=_cases,
    mistakes=_mistakes,
    what="mask",
    forbidden=("causal_mask",),
    tools="np.arange and a comparison of the query and key indices, or np.tril",
    passed=(
        "Your causal mask is right for (n, m) = (4, 4), (3, 5), (5, 3) and (1, 1): True where key j <= query i, "
        "aligned top-left."
    ),
    diagnose=_diagnose,
    after_pass=_after_pass,
    convert="array",
    hint="Query i may see key j when j <= i; print your mask for n = 3, m = 4 and check each row.",
)


def check_causal_mask(fn) -> Feedback:
    """Check a learner's ``fn(n, m) -> mask``: bool (n, m), True where key j <= query i (top-left aligned).

    Cases (n, m): (4, 4), (3, 5), (5, 3), (1, 1). Calling attn_lib.causal_mask is named (``used-attn-lib``).

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
    return judge(fn, PROBLEM)
