"""check_dW_q: the gradient of the loss with respect to W_q, from the gradient that reaches the scores."""

from __future__ import annotations

import numpy as np

from ._compare import _Case, _Mistake, _find_mistake, _first_problem, _fmt, _is_right, _report_problem
from ._feedback import Feedback, _fail, _not_answered
from ._running import _as_float_result, _blank, _call, _function_problem, _unless_unanswered

_SHAPES = "X (..., n, d_model), K (..., m, d_k), d_scores (..., n, m)"


def _right(X, K, d_scores):
    d_k = K.shape[-1]
    dQ = d_scores @ K / np.sqrt(d_k)  # (..., n, m) x (..., m, d_k) -> (..., n, d_k)
    # X^T dQ with the batch folded into the rows, i.e. summed over the batch: (d_model, B n) x (B n, d_k)
    return X.reshape(-1, X.shape[-1]).T @ dQ.reshape(-1, d_k)


def _dW_q_cases() -> list[_Case]:
    rng = np.random.default_rng(9)
    cases = []
    # (batch, n, d_model, m, d_k): n = d_model in the first (X @ dQ then runs, as the transpose-less code does on
    # a square X), n = m in the second (so d_scores^T fits), d_k, d_model and sqrt of each all different, and a
    # batch of two last.
    for batch, n, d_model, m, d_k in (((), 4, 4, 5, 9), ((), 5, 6, 5, 4), ((2,), 3, 7, 4, 16)):
        X = rng.normal(size=(*batch, n, d_model))
        K = rng.normal(size=(*batch, m, d_k))
        d_scores = rng.normal(size=(*batch, n, m))
        where = f"a batch of {batch[0]}, " if batch else ""
        label = f"{where}n = {n}, d_model = {d_model}, m = {m}, d_k = {d_k}"
        tags = frozenset({"batch"} if batch else ())
        cases.append(_Case(label, {"X": X, "K": K, "d_scores": d_scores}, tags, _right(X, K, d_scores)))
    return cases


def _scaled(factor):
    """The right gradient times ``factor(d_k, d_model)`` / (1/sqrt(d_k)): the same formula, another scale."""
    def variant(X, K, d_scores):
        d_k, d_model = K.shape[-1], X.shape[-1]
        return _right(X, K, d_scores) * np.sqrt(d_k) * factor(d_k, d_model)
    return variant


def _dW_q_mistakes() -> list[_Mistake]:
    return [
        _Mistake(
            "no-scale",
            "Your gradient is sqrt(d_k) times too large: the scale was forgotten. The scores are "
            "Q K^T / sqrt(d_k), so the chain rule carries that factor into dQ = d_scores K / sqrt(d_k), and from "
            "there into dW_q = X^T dQ.",
            "Divide d_scores @ K by np.sqrt(d_k), with d_k = K.shape[-1].",
            (_scaled(lambda d_k, d_model: 1.0),),
        ),
        _Mistake(
            "divide-by-dk",
            "Your gradient is divided by d_k where the forward pass divides by sqrt(d_k): the wrong factor. The "
            "chain rule carries exactly the forward pass's factor, 1/sqrt(d_k), into dQ.",
            "Use np.sqrt(d_k), not d_k.",
            (_scaled(lambda d_k, d_model: 1.0 / d_k),),
        ),
        _Mistake(
            "multiply-by-sqrt-dk",
            "Your gradient is multiplied by sqrt(d_k) where it should be divided by it: the wrong factor. A "
            "factor that multiplies the scores multiplies their gradient with respect to Q the same way.",
            "dQ = d_scores @ K / np.sqrt(d_k).",
            (_scaled(lambda d_k, d_model: np.sqrt(d_k)),),
        ),
        _Mistake(
            "d-model-scaling",
            "Your gradient is scaled by 1/sqrt(d_model) (or 1/d_model) instead of 1/sqrt(d_k): the wrong factor. "
            "The scores divide by the square root of the width of a query, d_k = K.shape[-1], not of the model.",
            "Take d_k from K.shape[-1].",
            (_scaled(lambda d_k, d_model: d_model**-0.5), _scaled(lambda d_k, d_model: 1.0 / d_model)),
        ),
        _Mistake(
            "x-not-transposed",
            "You multiplied X by dQ without transposing X. dW_q has one row per input feature and one column "
            "per query feature, (d_model, d_k): each entry sums, over the positions, X[i, a] times dQ[i, c], which "
            "is X^T dQ. (X @ dQ only runs at all because this X is square.)",
            "Use np.swapaxes(X, -1, -2) @ dQ (or X.T @ dQ for a single sequence), then sum over the batch.",
            (lambda X, K, d_scores: X @ (d_scores @ K / np.sqrt(K.shape[-1])),),
        ),
        _Mistake(
            "result-transposed",
            "Your result is (d_k, d_model): dQ^T X, the transpose of dW_q. W_q maps an input row of width "
            "d_model to a query of width d_k, so W_q and its gradient are (d_model, d_k).",
            "Put X first: X^T dQ.",
            (lambda X, K, d_scores: _right(X, K, d_scores).T,),
        ),
        _Mistake(
            "d-scores-transposed",
            "You used d_scores^T: its rows are keys and its columns queries. dQ[i] gathers the keys that query i "
            "met, weighted by the gradient of its own row of scores: dQ = d_scores K / sqrt(d_k).",
            "Use d_scores @ K, not np.swapaxes(d_scores, -1, -2) @ K.",
            (lambda X, K, d_scores: _right(X, K, np.swapaxes(d_scores, -1, -2)),),
        ),
        _Mistake(
            "batch-not-summed",
            "Your result keeps the batch axis: one gradient per sequence. W_q is shared by every sequence of the "
            "batch, so its gradient is the sum of theirs, a single (d_model, d_k) matrix.",
            "Sum over the leading axes: (np.swapaxes(X, -1, -2) @ dQ).sum(axis=0) for one batch axis, or fold the "
            "batch into the rows first: X.reshape(-1, d_model).T @ dQ.reshape(-1, d_k).",
            (lambda X, K, d_scores: np.swapaxes(X, -1, -2) @ (d_scores @ K / np.sqrt(K.shape[-1])),),
        ),
    ]


def check_dW_q(fn) -> Feedback:
    """Check a learner's ``fn(X, K, d_scores) -> dL/dW_q`` for scores = (X W_q) K^T / sqrt(d_k).

    X (..., n, d_model), K (..., m, d_k), d_scores = dL/dscores (..., n, m); W_q (d_model, d_k) is shared by
    every sequence of the batch, so the answer is X^T (d_scores K) / sqrt(d_k) summed over the leading axes.

    Parameters
    ----------
    fn : callable or None

    Returns
    -------
    Feedback

    Examples
    --------
    >>> def fold(A):  # (..., rows, width) -> (rows of the whole batch, width)
    ...     return A.reshape(-1, A.shape[-1])
    >>> check_dW_q(lambda X, K, d_scores: fold(X).T @ fold(d_scores @ K / np.sqrt(K.shape[-1]))).passed
    True
    >>> check_dW_q(lambda X, K, d_scores: fold(X).T @ fold(d_scores @ K)).mistake
    'no-scale'
    """
    return _unless_unanswered(_judge_dW_q, fn)


def _judge_dW_q(fn) -> Feedback:
    if _blank(fn):
        return _not_answered()
    problem = _function_problem(fn, "check_dW_q", "X", "K", "d_scores")
    if problem is not None:
        return problem
    cases = _dW_q_cases()
    results = [_as_float_result(_call(fn, c.inputs["X"], c.inputs["K"], c.inputs["d_scores"]), "gradient dW_q")
               for c in cases]
    if all(_is_right(got, case) for got, case in zip(results, cases)):
        return Feedback(
            True,
            "Your dW_q is right in all 3 cases, with and without a batch axis: X^T dQ summed over the batch, where "
            "dQ = d_scores K / sqrt(d_k) carries the forward pass's scale.",
        )
    mistake, _ = _find_mistake(results, cases, _dW_q_mistakes())
    if mistake:
        return _fail(mistake.id, mistake.reason, mistake.hint)
    flat = [i for i, c in enumerate(cases) if "batch" not in c.tags]
    if all(_is_right(results[i], cases[i]) for i in flat):
        batched = cases[-1]
        return _fail(
            "batch-axes",
            f"Right for a single sequence, but not on {batched.label}. With a batch axis, X.T reverses all three "
            "axes (it does not swap the last two), and W_q's gradient is the sum over the sequences.",
            "Use np.swapaxes(X, -1, -2) (or einsum) and sum over the batch axis.",
        )
    problem, case = _first_problem(results, cases)
    if problem is not None:
        return _report_problem(problem, case)
    for got, case in zip(results, cases):
        if got.shape != case.expected.shape:
            return _fail(
                "wrong-shape",
                f"On {case.label}, dW_q should have W_q's shape (d_model, d_k) = {case.expected.shape}; yours has "
                f"shape {got.shape}.",
                "dQ = d_scores @ K / sqrt(d_k) is (..., n, d_k); X^T dQ is (d_model, d_k) once the batch is summed.",
            )
    for got, case in zip(results, cases):
        if not _is_right(got, case):
            where = tuple(np.argwhere(~np.isclose(got, case.expected, rtol=1e-5, atol=1e-6))[0])
            return _fail(
                "wrong-values",
                f"On {case.label}, entry {list(map(int, where))} of your dW_q is {_fmt(got[where])} where it should "
                f"be {_fmt(case.expected[where])}, and the difference is not one of the usual mistakes (a missing "
                "or wrong scale, a missing transpose, the batch left unsummed).",
                "Build it in two steps: dQ = d_scores @ K / np.sqrt(d_k), then X^T dQ summed over the batch.",
            )
    raise AssertionError("unreachable")  # pragma: no cover
