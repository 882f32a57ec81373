"""check_dW_q: the gradient of the loss with respect to W_q, from the gradient that reaches the scores."""

from __future__ import annotations

import numpy as np

from ._feedback import Feedback
from ._judge import judge
from ._types import BATCH, Case, FunctionProblem, Mistake


def _right(X, K, d_scores):
    d_k = K.shape[-1]
    dQ = d_scores @ K / np.sqrt(d_k)  # (..., n, m) x (..., m, d_k) -> (..., n, d_k)
    # X^T dQ with the batch folded into the rows, i.e. summed over the batch: (d_model, B n) x (B n, d_k)
    return X.reshape(-1, X.shape[-1]).T @ dQ.reshape(-1, d_k)


def _cases() -> list[Case]:
    rng = np.random.default_rng(9)
    cases = []
    # (batch, n, d_model, m, d_k): n = d_model in the first (X @ dQ then runs, as the transpose-less code does on
    # a square X), n = m in the second (so d_scores^T fits), d_k, d_model and sqrt of each all different, and a
    # batch of two last.
    for batch, n, d_model, m, d_k in (((), 4, 4, 5, 9), ((), 5, 6, 5, 4), ((2,), 3, 7, 4, 16), ((2, 2), 3, 5, 4, 9)):
        if len(batch) > 1:  # two leading axes, its own generator so the earlier cases keep their numbers
            rng = np.random.default_rng(49)
        X = rng.normal(size=(*batch, n, d_model))
        K = rng.normal(size=(*batch, m, d_k))
        d_scores = rng.normal(size=(*batch, n, m))
        where = f"two leading axes {batch}, " if len(batch) > 1 else f"a batch of {batch[0]}, " if batch else ""
        label = f"{where}n = {n}, d_model = {d_model}, m = {m}, d_k = {d_k}"
        # Each entry sums batch * n * m products of three inputs: float32 rounding grows with that, not with one input.
        scale = np.abs(X).max() * np.abs(K).max() * np.abs(d_scores).max() * X.size / d_model * m
        cases.append(Case(label, {"X": X, "K": K, "d_scores": d_scores}, expected=_right(X, K, d_scores),
                          tags=(BATCH,) if batch else (), scale=float(scale)))
    return cases


def _scaled(factor):
    """The right gradient times ``factor(d_k, d_model)`` / (1/sqrt(d_k)): the same formula, another scale."""
    def variant(X, K, d_scores):
        d_k, d_model = K.shape[-1], X.shape[-1]
        return _right(X, K, d_scores) * np.sqrt(d_k) * factor(d_k, d_model)
    return variant


# The template fields of the scale mistakes (no-scaling, divide-by-dk, ...): what this checker returns, and
# where d_k is read.
_SCALE_FIELDS = {"what": "gradient", "d_k": "K.shape[-1]"}


def _mistakes() -> list[Mistake]:
    return [
        Mistake("no-scale", (_scaled(lambda d_k, d_model: 1.0),)),
        Mistake("scaled-twice", (_scaled(lambda d_k, d_model: 1.0 / d_k),)),
        Mistake("multiply-by-sqrt-dk", (_scaled(lambda d_k, d_model: np.sqrt(d_k)),), **_SCALE_FIELDS),
        Mistake("d-model-scaling",
                (_scaled(lambda d_k, d_model: d_model**-0.5), _scaled(lambda d_k, d_model: 1.0 / d_model)),
                **_SCALE_FIELDS),
        Mistake("split-scale", tuple(_scaled(lambda d_k, d_model, p=p: d_k ** -p) for p in (0.25, 0.75))),
        Mistake("sign-flipped", (lambda X, K, d_scores: -_right(X, K, d_scores),), what="gradient"),
        Mistake("x-not-transposed", (lambda X, K, d_scores: X @ (d_scores @ K / np.sqrt(K.shape[-1])),)),
        Mistake("result-transposed", (lambda X, K, d_scores: _right(X, K, d_scores).T,)),
        Mistake("d-scores-transposed", (lambda X, K, d_scores: _right(X, K, np.swapaxes(d_scores, -1, -2)),)),
        Mistake("batch-not-summed",
                (lambda X, K, d_scores: np.swapaxes(X, -1, -2) @ (d_scores @ K / np.sqrt(K.shape[-1])),)),
        Mistake("einsum-ellipsis-dropped",
                (lambda X, K, d_scores: np.einsum("...nd,...nk->dk", X, d_scores @ K) / np.sqrt(K.shape[-1]),)),
        Mistake("batch-axes",
                (lambda X, K, d_scores: X.T @ (d_scores @ K / np.sqrt(K.shape[-1])),
                 lambda X, K, d_scores: np.dot(X.T, d_scores @ K / np.sqrt(K.shape[-1])),
                 lambda X, K, d_scores: np.einsum("nd,nm,mk->dk", X, d_scores, K) / np.sqrt(K.shape[-1]))),
        Mistake("batch-averaged",
                (lambda X, K, d_scores: (np.swapaxes(X, -1, -2) @ (d_scores @ K / np.sqrt(K.shape[-1]))).reshape(
                -1, X.shape[-1], K.shape[-1]).mean(axis=0),)),
    ]


PROBLEM = FunctionProblem(
    checker="check_dW_q",
    params=("X", "K", "d_scores"),
    cases=_cases,
    mistakes=_mistakes,
    passed="Your dW_q is right on all {count} cases, with and without a batch axis: X^T dQ summed over the "
           "batch, where dQ = d_scores K / sqrt(d_k) carries the forward pass's scale once.",
    what="gradient dW_q",
    result_shape="(d_model, d_k)",
    no_batch=("batch-axes", {}),
    forbidden=("attention_backward",),
    tools="@, np.swapaxes, .reshape or .sum over the batch axes",
    hint="Build it in two steps: dQ (..., n, d_k) from d_scores and K, with the forward pass's scale, then "
         "X^T dQ (d_model, d_k) summed over the batch. Check the shapes after each step.",
)


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
    return judge(fn, PROBLEM)
