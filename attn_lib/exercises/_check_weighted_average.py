"""check_weighted_average: a learner's ``weighted_average(weights, V)``, the last product of attention."""

from __future__ import annotations

import re

import numpy as np

from ._feedback import Feedback, failure
from ._explain import batch_failure
from ._judge import judge
from ._learner_code import code_text
from ._types import BATCH, Case, FunctionProblem, Mistake, Raised


def _rows_summing_to_one(rng, shape):
    e = np.exp(rng.normal(size=shape))
    return e / e.sum(axis=-1, keepdims=True)


def _cases() -> list[Case]:
    rng = np.random.default_rng(5)
    raw = [
        # (label, weights shape (..., n, m), V shape (..., m, d_v), tags)
        ("weights (3, 5) and V (5, 2): n=3, m=5, d_v=2", (3, 5), (5, 2), ()),
        ("weights (4, 4) and V (4, 3): n=m=4, d_v=3", (4, 4), (4, 3), ()),
        ("weights (3, 4) and V (4, 4): n=3, m=d_v=4", (3, 4), (4, 4), ()),
        ("a batch: weights (2, 3, 4) and V (2, 4, 5)", (2, 3, 4), (2, 4, 5), (BATCH,)),
        ("a batch: weights (2, 4, 4) and V (2, 4, 4)", (2, 4, 4), (2, 4, 4), (BATCH,)),
        ("two leading axes: weights (2, 2, 3, 4) and V (2, 2, 4, 5)", (2, 2, 3, 4), (2, 2, 4, 5), (BATCH,)),
    ]
    cases = []
    for label, w_shape, v_shape, tags in raw:
        if len(w_shape) > 3:  # its own generator, so the earlier cases keep their numbers
            rng = np.random.default_rng(45)
        weights = _rows_summing_to_one(rng, w_shape)
        V = rng.normal(size=v_shape)
        cases.append(Case(label, {"weights": weights, "V": V}, weights @ V, tags))
    return cases


def _swap(x):
    return np.swapaxes(x, -1, -2)




def _mistakes() -> list[Mistake]:
    return [
        Mistake("returned-weights", (lambda weights, V: weights,), shape="(..., n, m)",
                product="(..., n, m) x (..., m, d_v) -> (..., n, d_v)", values="V"),
        Mistake("unweighted-mean",
                (lambda weights, V: np.broadcast_to(
                    V.mean(axis=-2, keepdims=True), (*weights.shape[:-1], V.shape[-1])
                ),
                 lambda weights, V: V.mean(axis=-2),
                 lambda weights, V: V.mean(axis=0))),
        Mistake("output-transposed", (lambda weights, V: _swap(weights @ V),)),
        Mistake("v-transposed", (lambda weights, V: weights @ _swap(V), lambda weights, V: weights @ V.T)),
        Mistake("weights-transposed", (lambda weights, V: _swap(weights) @ V, lambda weights, V: weights.T @ V)),
        Mistake("elementwise-product", (lambda weights, V: weights * V,), a="weights", b="V", result="output",
                over="the keys, sum_j weights[i, j] * V[j]", product="(..., n, m) x (..., m, d_v) -> (..., n, d_v)"),
        Mistake("values-first", (lambda weights, V: V @ weights,)),
        Mistake("mean-not-sum", (lambda weights, V: (weights[..., :, :, None] * V[..., None, :, :]).mean(axis=-2),),
                term="output (the weighted value rows)"),
        Mistake("tensordot-on-batch",
                (lambda weights, V: np.tensordot(weights, V, axes=1),
                 lambda weights, V: np.tensordot(weights, V, axes=(-1, 0)))),
        Mistake("np-dot-on-batch",
                (lambda weights, V: np.dot(weights, V), lambda weights, V: np.tensordot(weights, V, axes=(-1, -2)))),
        Mistake("fixed-axis-on-batch",
                (lambda weights, V: (weights[..., :, :, None] * V[..., None, :, :]).sum(axis=1),)),
        Mistake("sum-wrong-axis",
                (lambda weights, V: (weights[..., :, :, None] * V[..., None, :, :]).sum(axis=-3),
                 lambda weights, V: (weights[..., :, :, None] * V[..., None, :, :]).sum(axis=0),
                 lambda weights, V: (weights[..., :, :, None] * V[..., None, :, :]).sum(axis=-1))),
    ]


def check_weighted_average(fn) -> Feedback:
    """Check a learner's ``fn(weights, V) -> output``: weights (..., n, m), V (..., m, d_v), output (..., n, d_v).

    Output row i is ``sum_j weights[i, j] * V[j]``. Cases: n != m, n = m, d_v = m, and two batches (2, n, m).

    Parameters
    ----------
    fn : callable or None

    Returns
    -------
    Feedback

    Examples
    --------
    >>> check_weighted_average(lambda weights, V: weights @ V).passed
    True
    >>> check_weighted_average(lambda weights, V: V.mean(axis=-2)).mistake
    'unweighted-mean'
    """
    return judge(fn, PROBLEM)


def _batch_mistake(attempt, runner) -> Feedback | None:
    """A no-batch answer (right on every 2-D case, wrong on the batch ``attempt``), named after the habit the
    learner's code (comments and strings left out) points to: .T, np.dot, einsum subscripts for two axes, or an
    axis counted from the front; np.dot only when the answer fails on the batch as np.dot does."""
    code = code_text(runner.fn)
    also = f" (On {attempt.case.label}: it {batch_failure(attempt, runner.problem)}.)"
    if ".T" in code:
        return failure("dot-T-on-batch", also=also)
    if re.search(r"np\.dot\(|\.dot\(", code) and _fails_as_np_dot(attempt):  # np.dot or x.dot, not np.tensordot
        return failure("np-dot-on-batch", also=also)
    if "einsum" in code:
        return failure("einsum-2d-only", also=also)
    if "axis=0" in code or "axis=1" in code:
        return failure("fixed-axis-on-batch", also=also)
    return None


def _fails_as_np_dot(attempt) -> bool:
    """Whether the answer's batch result has np.dot's shape (..., n, b, d_v), or raises as np.dot does."""
    inputs = attempt.case.inputs
    try:
        shape = np.dot(inputs["weights"], inputs["V"]).shape
    except ValueError:
        return isinstance(attempt.result, Raised)
    return attempt.array and attempt.result.shape == shape


PROBLEM = FunctionProblem(
    gives=("dot-T-on-batch", "np-dot-on-batch", "einsum-2d-only", "fixed-axis-on-batch"),
    checker="check_weighted_average",
    params=("weights", "V"),
    cases=_cases,
    mistakes=_mistakes,
    passed="Your weighted average is right in all {count} cases, with n != m, d_v != m and a batch axis: output "
    "row i is the value rows weighted by row i of the weights, shape (..., n, d_v).",
    what="output",
    batch_mistake=_batch_mistake,
    hint="Output row i is sum_j weights[i, j] * V[j]: (..., n, m) x (..., m, d_v) -> (..., n, d_v).",
)
