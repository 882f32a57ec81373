"""check_weighted_average: a learner's ``weighted_average(weights, V)``, the last product of attention."""

from __future__ import annotations

import re

import numpy as np

from ._feedback import Feedback, fail
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


_DOT_T = (
    "Your function is right on 2-D inputs but not with a batch axis in front. `.T` reverses every axis of an "
    "array: on weights (b, n, m) it gives (m, n, b), not a batch of transposed matrices. Shapes are "
    "(..., n, m) and (..., m, d_v): write the code for the last two axes only."
)
_FIXED_AXIS = (
    "Your function is right on 2-D inputs but not with a batch axis in front: an axis counted from the front "
    "(axis=0 or axis=1) moves when a batch axis is added. On (b, n, m) weights, axis=1 is the query axis, not "
    "the key axis."
)
_FIX_FIXED_AXIS = (
    "Count axes from the end: axis=-1 is the key axis of the weights, axis=-2 the key axis of V. np.matmul treats "
    "leading axes as a batch."
)
_NP_DOT = (
    "Your function is right on 2-D inputs but not with a batch axis in front: np.dot (like np.tensordot) does not "
    "treat leading axes as a batch. On weights (b, n, m) and V (b, m, d_v) it pairs every sentence's weights "
    "with every sentence's values, giving (b, n, b, d_v)."
)
_TENSORDOT = (
    "Your function is right on 2-D inputs but not with a batch axis in front: np.tensordot(weights, V, axes=1) "
    "(or axes=(-1, 0)) pairs the weights' last axis, the keys, with V's first axis. On 2-D inputs that is V's "
    "key axis; on a batch V is (b, m, d_v) and its first axis is the batch b, so the keys meet the batch (and "
    "tensordot keeps no batch of its own: with the right axes it pairs every sentence with every other)."
)
_FIX_NP_DOT = "Use np.matmul (the @ operator), which multiplies the last two axes and treats the others as a batch."


def _mistakes() -> list[Mistake]:
    return [
        Mistake(
            "returned-weights",
            "Your function returns the weights themselves, (..., n, m). The weights only say how much each "
            "query listens to each key; the output is what it hears: the value rows mixed by those weights, "
            "(..., n, m) x (..., m, d_v) -> (..., n, d_v).",
            "The output mixes the value rows: multiply the weights by V.",
            (lambda weights, V: weights,),
        ),
        Mistake(
            "unweighted-mean",
            "Your output is the plain mean of the value rows, the same for every query: the weights are never "
            "used. That is what attention gives only when every weight in a row is 1/m (a query that scores "
            "every key alike); in general each query listens to the keys in its own proportions.",
            "Weight each value row j by weights[..., i, j] and add them: output[i] = sum_j weights[i, j] * V[j].",
            (
                lambda weights, V: np.broadcast_to(
                    V.mean(axis=-2, keepdims=True), (*weights.shape[:-1], V.shape[-1])
                ),
                lambda weights, V: V.mean(axis=-2),
                lambda weights, V: V.mean(axis=0),
            ),
        ),
        Mistake(
            "output-transposed",
            "Your output is transposed, (..., d_v, n): one row per value component and one column per query (V^T "
            "weights^T, say). Output row i belongs to query i: (..., n, m) x (..., m, d_v) -> (..., n, d_v).",
            "Put the weights first and V second, without transposing either.",
            (lambda weights, V: _swap(weights @ V),),
        ),
        Mistake(
            "v-transposed",
            "You multiplied the weights by V transposed. V has one row per key, (m, d_v), and the weights have "
            "one column per key, so they meet V as it is: (n, m) x (m, d_v). With V transposed, the output's "
            "columns mix the wrong numbers, and the product only runs at all when d_v = m.",
            "V keeps its shape (m, d_v): one value row per key; do not transpose it.",
            (lambda weights, V: weights @ _swap(V), lambda weights, V: weights @ V.T),
        ),
        Mistake(
            "weights-transposed",
            "You transposed the weights: row i of your result mixes the values with column i of the weights, "
            "that is, with how much every query listens to key i. Row i of the output must use row i of the "
            "weights, query i's own weights over the m keys.",
            "The weights keep their shape (n, m): one row per query; do not transpose them.",
            (lambda weights, V: _swap(weights) @ V, lambda weights, V: weights.T @ V),
        ),
        Mistake(
            "elementwise-product",
            "You multiplied the weights and V entry by entry (weights * V), which needs the two to have the same "
            "shape and never adds anything up. Output row i is a sum over the keys, sum_j weights[i, j] * V[j]: "
            "a matrix product, (..., n, m) x (..., m, d_v) -> (..., n, d_v).",
            "Use a matrix product (np.matmul, the @ operator), which adds up the products over the keys.",
            (lambda weights, V: weights * V,),
        ),
        Mistake(
            "values-first",
            "You multiplied V by the weights, V @ weights: (m, d_v) x (n, m) only runs when d_v = n, and then it "
            "mixes value components with queries. The weights come first, one row per query, and V second, one "
            "row per key: (n, m) x (m, d_v).",
            "Put the weights first (one row per query) and V second (one row per key).",
            (lambda weights, V: V @ weights,),
        ),
        Mistake(
            "mean-not-sum",
            "Your output is the weighted sum divided by m: you averaged the weighted value rows (np.mean over the "
            "keys) instead of adding them. The weights of a row already sum to one, so their weighted sum is "
            "already an average; dividing again shrinks every output towards 0.",
            "Add the weighted value rows up over the keys (np.sum, or a matrix product); do not take the mean.",
            (lambda weights, V: (weights[..., :, :, None] * V[..., None, :, :]).mean(axis=-2),),
        ),
        Mistake(
            "tensordot-on-batch",
            _TENSORDOT,
            _FIX_NP_DOT,
            (lambda weights, V: np.tensordot(weights, V, axes=1),
             lambda weights, V: np.tensordot(weights, V, axes=(-1, 0))),
        ),
        Mistake(
            "np-dot-on-batch",
            _NP_DOT,
            _FIX_NP_DOT,
            (lambda weights, V: np.dot(weights, V), lambda weights, V: np.tensordot(weights, V, axes=(-1, -2))),
        ),
        Mistake(
            "fixed-axis-on-batch",
            _FIXED_AXIS,
            _FIX_FIXED_AXIS,
            (lambda weights, V: (weights[..., :, :, None] * V[..., None, :, :]).sum(axis=1),),
        ),
        Mistake(
            "sum-wrong-axis",
            "You multiplied each weight by its value row and then summed over the wrong axis (the queries, or "
            "the value components) instead of over the keys. Output row i is a sum over keys j: output[i] = sum_j weights[i, j] * V[j], so the sum runs "
            "along the weights' last axis (length m) and one row per query remains.",
            "Sum over the key axis, the one that weights and V share (m).",
            (
                lambda weights, V: (weights[..., :, :, None] * V[..., None, :, :]).sum(axis=-3),
                lambda weights, V: (weights[..., :, :, None] * V[..., None, :, :]).sum(axis=0),
                lambda weights, V: (weights[..., :, :, None] * V[..., None, :, :]).sum(axis=-1),
            ),
        ),
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
        return fail("dot-T-on-batch", _DOT_T + also, "Use np.swapaxes(x, -1, -2) instead of x.T, or a "
                    "product that treats leading axes as a batch.")
    if re.search(r"np\.dot\(|\.dot\(", code) and _fails_as_np_dot(attempt):  # np.dot or x.dot, not np.tensordot
        return fail("np-dot-on-batch", _NP_DOT + also, _FIX_NP_DOT)
    if "einsum" in code:
        return fail("einsum-2d-only", "Your function is right on 2-D inputs but not with a batch axis in front: "
                    "its einsum subscripts name exactly two axes per array." + also,
                    "Let einsum carry the leading axes: np.einsum('...nm,...md->...nd', weights, V).")
    if "axis=0" in code or "axis=1" in code:
        return fail("fixed-axis-on-batch", _FIXED_AXIS + also, _FIX_FIXED_AXIS)
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
