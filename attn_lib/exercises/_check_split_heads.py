"""check_split_heads: a learner's split of (n, d_model) into (heads, n, d_k)."""

from __future__ import annotations

import numpy as np

from ._compare import close, fmt
from ._feedback import Feedback, failure
from ._judge import judge
from ._types import Case, FunctionProblem, Mistake


_FRACTION = 0.25


def _cases() -> list[Case]:
    cases = []
    for n, d_model, heads in ((5, 12, 3), (4, 8, 2), (3, 8, 4)):
        # X[i, c] = 100 i + c + 0.25: every number says which position and column it came from, and none is whole
        # (a split into an integer array, or one that rounds, cannot pass).
        X = 100.0 * np.arange(n)[:, None] + np.arange(d_model)[None, :] + _FRACTION
        d_k = d_model // heads
        expected = X.reshape(n, heads, d_k).transpose(1, 0, 2)  # (n, heads, d_k) -> (heads, n, d_k)
        label = f"X of shape (n, d_model) = {X.shape} with heads={heads} (d_k = {d_k})"
        cases.append(Case(label, {"X": X, "heads": heads}, expected))
    return cases


def _mistakes() -> list[Mistake]:
    def dk(X, heads):
        return X.shape[1] // heads

    return [
        Mistake("no-transpose",
                (lambda X, heads: X.reshape(heads, X.shape[0], dk(X, heads)),
                 lambda X, heads: np.swapaxes(X.reshape(heads, X.shape[0], dk(X, heads)), 0, 1))),
        Mistake("heads-last", (lambda X, heads: X.reshape(X.shape[0], heads, dk(X, heads)),)),
        Mistake("full-width", (lambda X, heads: np.broadcast_to(X, (heads, *X.shape)),)),
        Mistake("interleaved-columns",
                (lambda X, heads: X.reshape(X.shape[0], dk(X, heads), heads).transpose(2, 0, 1),)),
        Mistake("heads-dk-swapped",
                (lambda X, heads: X.reshape(X.shape[0], dk(X, heads), heads).transpose(1, 0, 2),
                 lambda X, heads: X.reshape(X.shape[0], heads, dk(X, heads)).transpose(2, 0, 1))),
        Mistake("positions-last", (lambda X, heads: X.reshape(X.shape[0], heads, dk(X, heads)).transpose(1, 2, 0),)),
        Mistake("split-positions",
                (lambda X, heads: np.stack(np.split(X, heads, axis=0)),
                 lambda X, heads: np.array(np.split(X, heads, axis=0)))),
    ]


def _diagnose(attempts, runner) -> Feedback | None:
    for got, case in ((a.result, a.case) for a in attempts):
        if got.shape != case.expected.shape:
            return failure("wrong-shape", label=case.label, what="result",
                           expected=f"(heads, n, d_k) = {case.expected.shape}",
                           got=got.shape, extra="", hint="A reshape to (n, heads, d_k) cuts each row into heads "
                           "pieces; then the heads axis goes first.")
    if all(np.array_equal(got, np.trunc(got)) and (np.abs(got - case.expected) < 1).all()
           for got, case in ((a.result, a.case) for a in attempts)):
        return failure("integer-heads", value=fmt(attempts[0].case.expected[0, 0, 0]),
                       yours=fmt(attempts[0].result[0, 0, 0]))
    for got, case, tol in ((a.result, a.case, a.tol) for a in attempts):
        wrong = ~close(got, case.expected, tol)
        if wrong.any():
            h, i, c = np.argwhere(wrong)[0]
            d_k = case.expected.shape[-1]
            value = got[h, i, c]
            source = ""
            whole = float(value) - _FRACTION
            if whole.is_integer() and 0 <= whole < 100 * case.inputs["X"].shape[0]:
                source = f" (that is X[{int(whole) // 100}, {int(whole) % 100}])"
            return failure(
                "wrong-values", label=case.label, hint="Head h, position i is X[i, h*d_k:(h+1)*d_k].",
                difference=f"entry [{h}, {i}, {c}] (head {h}, position {i}) is {fmt(value)}{source}; it should be "
                f"X[{i}, {h * d_k + c}] = {fmt(case.expected[h, i, c])}",
            )
    return None


PROBLEM = FunctionProblem(
    gives=("integer-heads",),
    checker="check_split_heads",
    params=("X", "heads"),
    cases=_cases,
    mistakes=_mistakes,
    what="heads",
    array_only=True,  # 07 P4: "Return an array (heads, n, d_k)"
    passed=(
        "Your split is right in all {count} cases: shape (heads, n, d_k), and head h holds columns h*d_k to "
        "(h+1)*d_k of every position, in order."
    ),
    diagnose=_diagnose,
    hint="Head h, position i is X[i, h*d_k:(h+1)*d_k].",
)


def check_split_heads(fn) -> Feedback:
    """Check a learner's ``fn(X, heads) -> (heads, n, d_k)`` with X (n, d_model) and d_k = d_model // heads.

    Head h must hold columns h*d_k:(h+1)*d_k of every row of X, in order of position.

    Parameters
    ----------
    fn : callable or None

    Returns
    -------
    Feedback

    Examples
    --------
    >>> check_split_heads(lambda X, heads: X.reshape(X.shape[0], heads, -1).transpose(1, 0, 2)).passed
    True
    >>> check_split_heads(lambda X, heads: X.reshape(heads, X.shape[0], -1)).mistake
    'no-transpose'
    """
    return judge(fn, PROBLEM)
