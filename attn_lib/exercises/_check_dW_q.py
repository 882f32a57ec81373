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


_BATCH_AXES = (
    "Right for a single sequence, but not with a batch axis: your code assumes X, K and d_scores are 2-D. On a "
    "3-D array X.T reverses all three axes (it does not swap the last two), and an einsum whose subscripts name "
    "two axes per array refuses a third. W_q's gradient is X^T dQ for each sequence, summed over the batch."
)
_BATCH_AXES_FIX = ("Swap only the last two axes of X (not .T), and sum over the batch; or fold the batch into the "
                   "rows first; or let einsum carry the leading axes with '...' in each operand.")


def _mistakes() -> list[Mistake]:
    return [
        Mistake(
            "no-scale",
            "Your gradient is sqrt(d_k) times too large: the scale was forgotten. The scores are "
            "Q K^T / sqrt(d_k), so the chain rule carries that factor into dQ = d_scores K / sqrt(d_k), and from "
            "there into dW_q = X^T dQ.",
            "Divide d_scores @ K by np.sqrt(d_k), with d_k = K.shape[-1].",
            (_scaled(lambda d_k, d_model: 1.0),),
        ),
        Mistake(
            "scaled-twice",
            "Your gradient carries 1/sqrt(d_k) twice (1/d_k in all): dQ = d_scores @ K / sqrt(d_k) already "
            "carries the forward pass's factor, so dW_q = X^T dQ must not divide again (or dQ was divided by d_k "
            "instead of sqrt(d_k), or Q was scaled by 1/sqrt(d_k) in the forward pass and the scores divided "
            "again). The chain rule carries exactly the forward pass's factor, once.",
            "Divide by np.sqrt(d_k) once, where dQ is formed.",
            (_scaled(lambda d_k, d_model: 1.0 / d_k),),
        ),
        Mistake(
            "multiply-by-sqrt-dk",
            "Your gradient is multiplied by sqrt(d_k) where it should be divided by it: the wrong factor. A "
            "factor that multiplies the scores multiplies their gradient with respect to Q the same way.",
            "The forward pass divides by sqrt(d_k), so the gradient divides by it too.",
            (_scaled(lambda d_k, d_model: np.sqrt(d_k)),),
        ),
        Mistake(
            "d-model-scaling",
            "Your gradient is scaled by 1/sqrt(d_model) (or 1/d_model) instead of 1/sqrt(d_k): the wrong factor. "
            "The scores divide by the square root of the width of a query, d_k = K.shape[-1], not of the model.",
            "Take d_k from K.shape[-1].",
            (_scaled(lambda d_k, d_model: d_model**-0.5), _scaled(lambda d_k, d_model: 1.0 / d_model)),
        ),
        Mistake(
            "split-scale",
            "Your gradient carries d_k ** -0.25 or d_k ** -0.75, not 1/sqrt(d_k): the factor was split between Q "
            "and K (d_k ** -0.25 on each, as some published code does) and the shares do not multiply back to "
            "1/sqrt(d_k). The chain rule carries exactly the factor the forward pass put on the scores, "
            "1/sqrt(d_k), into dQ = d_scores K / sqrt(d_k).",
            "Divide by np.sqrt(d_k) once, where dQ is formed.",
            tuple(_scaled(lambda d_k, d_model, p=p: d_k ** -p) for p in (0.25, 0.75)),
        ),
        Mistake(
            "sign-flipped",
            "Your gradient has the right size and the wrong sign: -X^T dQ. The chain rule through S = Q K^T / "
            "sqrt(d_k) and Q = X W_q carries no minus sign; the minus belongs to the update, W_q -= lr * dW_q, not "
            "to the gradient. With the sign in both places, gradient descent climbs the loss.",
            "Return X^T dQ itself and leave the minus to the update step.",
            (lambda X, K, d_scores: -_right(X, K, d_scores),),
        ),
        Mistake(
            "x-not-transposed",
            "You multiplied X by dQ without transposing X. dW_q has one row per input feature and one column "
            "per query feature, (d_model, d_k): each entry sums, over the positions, X[i, a] times dQ[i, c], which "
            "is X^T dQ. (X @ dQ only runs at all because this X is square.)",
            "Use np.swapaxes(X, -1, -2) @ dQ (or X.T @ dQ for a single sequence), then sum over the batch.",
            (lambda X, K, d_scores: X @ (d_scores @ K / np.sqrt(K.shape[-1])),),
        ),
        Mistake(
            "result-transposed",
            "Your result is (d_k, d_model): dQ^T X, the transpose of dW_q. W_q maps an input row of width "
            "d_model to a query of width d_k, so W_q and its gradient are (d_model, d_k).",
            "Put X first: X^T dQ.",
            (lambda X, K, d_scores: _right(X, K, d_scores).T,),
        ),
        Mistake(
            "d-scores-transposed",
            "You used d_scores^T: its rows are keys and its columns queries. dQ[i] gathers the keys that query i "
            "met, weighted by the gradient of its own row of scores: dQ = d_scores K / sqrt(d_k).",
            "Use d_scores @ K, not np.swapaxes(d_scores, -1, -2) @ K.",
            (lambda X, K, d_scores: _right(X, K, np.swapaxes(d_scores, -1, -2)),),
        ),
        Mistake(
            "batch-not-summed",
            "Your result keeps the batch axis: one gradient per sequence. W_q is shared by every sequence of the "
            "batch, so its gradient is the sum of theirs, a single (d_model, d_k) matrix.",
            "Sum the per-sequence gradients over the leading (batch) axes, or fold the batch into the rows first.",
            (lambda X, K, d_scores: np.swapaxes(X, -1, -2) @ (d_scores @ K / np.sqrt(K.shape[-1])),),
        ),
        Mistake(
            "einsum-ellipsis-dropped",
            "Right for a single sequence, but numpy refuses your einsum on a batch: its inputs carry '...' for the "
            "leading axes and its output does not, and numpy sums an axis away only when the subscripts name it "
            "(it raises \"output has more dimensions than subscripts given\"). W_q's gradient sums over the "
            "batch, so those axes must be named to be summed.",
            "Fold the batch into the rows first (X.reshape(-1, d_model), dQ.reshape(-1, d_k)), or sum the "
            "per-sequence gradients, or name the batch axes with letters in the inputs and leave them out of the "
            "output.",
            (lambda X, K, d_scores: np.einsum("...nd,...nk->dk", X, d_scores @ K) / np.sqrt(K.shape[-1]),),
        ),
        Mistake(
            "batch-axes", _BATCH_AXES, _BATCH_AXES_FIX,
            (lambda X, K, d_scores: X.T @ (d_scores @ K / np.sqrt(K.shape[-1])),
             lambda X, K, d_scores: np.dot(X.T, d_scores @ K / np.sqrt(K.shape[-1])),
             lambda X, K, d_scores: np.einsum("nd,nm,mk->dk", X, d_scores, K) / np.sqrt(K.shape[-1])),
        ),
        Mistake(
            "batch-averaged",
            "Your gradient averages the sequences' gradients instead of adding them. W_q is shared by every "
            "sequence of the batch and the loss adds their terms, so its gradient is the sum of theirs.",
            "Sum over the leading (batch) axes rather than taking their mean.",
            (lambda X, K, d_scores: (np.swapaxes(X, -1, -2) @ (d_scores @ K / np.sqrt(K.shape[-1]))).reshape(
                -1, X.shape[-1], K.shape[-1]).mean(axis=0),),
        ),
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
    no_batch=("batch-axes", _BATCH_AXES, _BATCH_AXES_FIX),
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
