"""check_attention: a learner's softmax(Q K^T / sqrt(d_k)) V, and the classic ways to get it wrong."""

from __future__ import annotations

import numpy as np

from ..attention import attention as _attention
from ._compare import (
    _Case,
    _Mistake,
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
    _FIX_OVERFLOW,
    _OVERFLOW,
    _blocked,
    _out,
    _scaled,
    _softmax,
    _softmax_no_keepdims,
    _softmax_whole,
)
from ._running import (
    _accepts,
    _as_float_result,
    _blank,
    _call,
    _function_problem,
    _signature_text,
    _unless_unanswered,
)


def _attention_cases() -> list[_Case]:
    rng = np.random.default_rng(20170612)  # fixed: the same cases, and the same feedback, on every run
    cases = []

    def add(label, n, m, d_k, d_v, mask=None, tags=(), top=None):
        Q, K, V = rng.normal(size=(n, d_k)), rng.normal(size=(m, d_k)), rng.normal(size=(m, d_v))
        if top is not None:  # rescale the queries so that the largest scaled score is exactly `top`
            Q *= top / (Q @ K.T / np.sqrt(d_k)).max()
        inputs = {"Q": Q, "K": K, "V": V, "mask": mask}
        shapes = f"Q {Q.shape}, K {K.shape}, V {V.shape}"
        cases.append(_Case(f"{shapes}, {label}", inputs, frozenset(tags), _attention(Q, K, V, mask=mask)))

    # Widths avoid 4 (sqrt(4) = 2 would make "unscaled" equal "scores doubled") and 64 (the paper's d_k).
    add("no mask (cross-attention: n != m, d_k != d_v)", 3, 5, 6, 2)
    add("no mask (self-attention: n = m = d_k = d_v)", 5, 5, 5, 5)
    add("no mask, scores as large as 1000", 4, 6, 8, 3, tags=("large",), top=1000.0)
    add("a causal mask", 5, 5, 3, 3, mask=np.tri(5, 5, dtype=bool), tags=("mask",))
    padding = np.broadcast_to(np.arange(6) < 4, (3, 6)).copy()  # the last 2 keys are padding
    add("a padding mask (keys 4 and 5 blocked)", 3, 6, 6, 2, mask=padding, tags=("mask",))
    return cases


def _attention_mistakes() -> list[_Mistake]:
    S = "softmax"
    fix_scale = "Divide the scores by np.sqrt(d_k), with d_k = Q.shape[-1], before the softmax."
    return [
        _Mistake(
            "no-scaling",
            "Your output matches softmax(Q K^T) V: the scores were never divided by sqrt(d_k). A score is a sum of "
            "d_k products, so its spread grows like sqrt(d_k); unscaled, the softmax gets sharper as d_k grows "
            "and its gradients vanish.",
            fix_scale,
            (lambda Q, K, V, mask: _out(Q, K, V, mask, divide_by=1.0),),
        ),
        _Mistake(
            "divide-by-dk",
            "Your output matches softmax(Q K^T / d_k) V: you divided by d_k instead of sqrt(d_k). The variance "
            "of a score is d_k, so its standard deviation, the unit that makes scores comparable, is "
            "sqrt(d_k); dividing by d_k shrinks the scores too much and flattens every row of weights.",
            "Use np.sqrt(d_k), not d_k.",
            (lambda Q, K, V, mask: _out(Q, K, V, mask, divide_by=Q.shape[-1]),),
        ),
        _Mistake(
            "multiply-by-sqrt-dk",
            "Your output matches softmax(Q K^T * sqrt(d_k)) V: the scores were multiplied by sqrt(d_k) instead "
            "of divided by it, which makes them larger still and the softmax sharper.",
            "Divide: scores = Q @ K.T / np.sqrt(d_k).",
            (lambda Q, K, V, mask: _out(Q, K, V, mask, divide_by=1 / np.sqrt(Q.shape[-1])),),
        ),
        _Mistake(
            "d-model-scaling",
            "Your output matches scaling by d_model = 512 (the model's full width) instead of the per-head "
            "sqrt(d_k). Inside one head each dot product has d_k terms, so sqrt(d_k) is its unit; d_model "
            "plays no part in one head's scores.",
            "Read d_k from the queries: d_k = Q.shape[-1], and divide by np.sqrt(d_k).",
            (
                lambda Q, K, V, mask: _out(Q, K, V, mask, divide_by=np.sqrt(512)),
                lambda Q, K, V, mask: _out(Q, K, V, mask, divide_by=512.0),
            ),
        ),
        _Mistake(
            "hardcoded-dk",
            "Your output matches dividing by 8 = sqrt(64): that is right only for the paper's d_k = 64, and "
            "these inputs have d_k between 3 and 8.",
            "Read d_k from the input, d_k = Q.shape[-1], rather than writing a number.",
            (lambda Q, K, V, mask: _out(Q, K, V, mask, divide_by=8.0),),
        ),
        _Mistake(
            "dk-from-rows",
            "Your output matches dividing by sqrt(n) or sqrt(m): d_k was read from the number of rows. "
            "Rows are positions; d_k is the width of a query, the last axis: Q.shape[-1].",
            "Use d_k = Q.shape[-1] (not Q.shape[0] or len(Q)).",
            (
                lambda Q, K, V, mask: _out(Q, K, V, mask, divide_by=np.sqrt(Q.shape[0])),
                lambda Q, K, V, mask: _out(Q, K, V, mask, divide_by=np.sqrt(K.shape[0])),
            ),
        ),
        _Mistake(
            "scaled-by-dv",
            "Your output matches dividing by sqrt(d_v): the scale was read from V. It belongs to the dot "
            "products of queries with keys, which have d_k terms; d_v is the width of the values.",
            "Use d_k = Q.shape[-1].",
            (lambda Q, K, V, mask: _out(Q, K, V, mask, divide_by=np.sqrt(V.shape[-1])),),
        ),
        _Mistake(
            "scaled-after-softmax",
            "Your output matches softmax(Q K^T) V / sqrt(d_k): the division came after the softmax. It must "
            "change the scores, before the softmax; divided weights no longer sum to one, so each output is "
            "no longer an average of value rows.",
            "Divide the scores, then take the softmax, then multiply by V.",
            (
                lambda Q, K, V, mask: _out(Q, K, V, mask, divide_by=1.0) / np.sqrt(Q.shape[-1]),
            ),
        ),
        _Mistake(
            "softmax-wrong-axis",
            "Your weights sum to one down each column (softmax over the queries, axis 0) instead of along each "
            "row. Each query needs its own distribution over the m keys: the softmax runs along the last axis.",
            f"Use axis=-1 in the max and the sum of your {S}, with keepdims=True.",
            (lambda Q, K, V, mask: _softmax(_blocked(_scaled(Q, K), mask), axis=0) @ V,),
        ),
        _Mistake(
            "softmax-whole-matrix",
            "Your output matches a softmax over the whole score matrix at once (a sum with no axis): all n*m "
            "weights together sum to one, so each row sums to far less than one.",
            "Sum each row separately: np.sum(e, axis=-1, keepdims=True).",
            (
                lambda Q, K, V, mask: _softmax_whole(_blocked(_scaled(Q, K), mask)) @ V,
            ),
        ),
        _Mistake(
            "softmax-no-keepdims",
            "A row statistic of your softmax (the sum or the max) lost its axis: np.sum(e, axis=-1) has shape "
            "(n,), and dividing an (n, m) array by it divides column j by the sum of row j. It fails when "
            "n != m and is silently wrong when n == m.",
            "Add keepdims=True, so the sums have shape (n, 1) and each row is divided by its own sum.",
            (
                lambda Q, K, V, mask: _softmax_no_keepdims(_blocked(_scaled(Q, K), mask)) @ V,
                lambda Q, K, V, mask: _softmax_no_keepdims(_blocked(_scaled(Q, K), mask), "max") @ V,
                lambda Q, K, V, mask: _softmax_no_keepdims(_blocked(_scaled(Q, K), mask), "both") @ V,
            ),
        ),
        _Mistake(
            "no-transpose",
            "Your scores multiply Q by K, not by K transposed. Q (n, d_k) times K (m, d_k) only fits when "
            "d_k = m, and then it pairs the wrong numbers. Entry (i, j) of the scores is query i dotted with "
            "key j: Q (n, d_k) x K^T (d_k, m) -> (n, m).",
            "scores = Q @ K.T / np.sqrt(d_k).",
            (lambda Q, K, V, mask: _softmax(_blocked(Q @ K / np.sqrt(Q.shape[-1]), mask)) @ V,),
        ),
        _Mistake(
            "scores-transposed",
            "Your scores are K Q^T, shape (m, n): one row per key instead of one per query. The softmax then "
            "spreads each key over the queries. The scores are Q K^T, (n, m).",
            "scores = Q @ K.T, so row i belongs to query i.",
            (
                lambda Q, K, V, mask: _softmax(_blocked(K @ Q.T / np.sqrt(Q.shape[-1]), mask)) @ V,
                lambda Q, K, V, mask: _softmax(_blocked(K @ Q.T / np.sqrt(Q.shape[-1]), _t(mask))) @ V,
            ),
        ),
        _Mistake(
            "mixed-queries",
            "Your output mixes the rows of Q, not of V. The weights decide who is listened to; V holds what is "
            "heard, so the output is weights @ V, a weighted average of value rows, of width d_v.",
            "Multiply the weights by V: output = weights @ V.",
            (lambda Q, K, V, mask: _softmax(_blocked(_scaled(Q, K), mask)) @ Q,),
        ),
        _Mistake(
            "mixed-keys",
            "Your output mixes the rows of K, not of V. Keys are what queries are compared with; V holds what "
            "is heard, so the output is weights @ V, a weighted average of value rows, of width d_v.",
            "Multiply the weights by V: output = weights @ V.",
            (lambda Q, K, V, mask: _softmax(_blocked(_scaled(Q, K), mask)) @ K,),
        ),
        _Mistake(
            "returned-weights",
            "Your function returns the weights (n, m), not the output. The weights say how much each key is "
            "listened to; the output multiplies them by V: (n, m) x (m, d_v) -> (n, d_v).",
            "Return weights @ V.",
            (lambda Q, K, V, mask: _softmax(_blocked(_scaled(Q, K), mask)),),
        ),
        _Mistake(
            "returned-scores",
            "Your function returns the scaled scores Q K^T / sqrt(d_k), before the softmax and before V.",
            "Take the softmax of each row of the scores, then multiply by V.",
            (lambda Q, K, V, mask: _scaled(Q, K), lambda Q, K, V, mask: _blocked(_scaled(Q, K), mask)),
        ),
        _Mistake(
            "output-transposed",
            "Your output is transposed: (d_v, n) instead of (n, d_v). Each query gets one output row.",
            "Return weights @ V, not its transpose (or V.T @ weights.T).",
            (lambda Q, K, V, mask: _out(Q, K, V, mask).T,),
        ),
        _Mistake(
            "mask-after-softmax",
            "Your function applies the mask after the softmax: blocked weights are 0, but each row now sums "
            "to less than one, and the blocked keys' scores are still in the softmax's denominator, so what "
            "should be hidden (the future, the padding) still changes every weight.",
            "Put -inf in the blocked scores before the softmax: np.where(mask, scores, -np.inf).",
            (lambda Q, K, V, mask: (_softmax(_scaled(Q, K)) * (1.0 if mask is None else mask)) @ V,),
        ),
        _Mistake(
            "mask-zero",
            "Your function sets blocked scores to 0 (or multiplies the scores by the mask) instead of -inf. "
            "exp(0) = 1, so blocked keys still get weight; only -inf gives exp(-inf) = 0 exactly.",
            "Use np.where(mask, scores, -np.inf).",
            (lambda Q, K, V, mask: _softmax(_blocked(_scaled(Q, K), mask, 0.0)) @ V,),
        ),
        _Mistake(
            "inverted-mask",
            "Your function uses the mask the wrong way round: it attends to the blocked keys and blocks the "
            "allowed ones. In this course (as in PyTorch's scaled_dot_product_attention) True means "
            "'may attend'.",
            "Keep the score where the mask is True: np.where(mask, scores, -np.inf).",
            (lambda Q, K, V, mask: _softmax(_blocked(_scaled(Q, K), _inv(mask))) @ V,),
        ),
        _Mistake(
            "ignored-mask",
            "Your output is right without a mask, but the mask changes nothing: blocked keys still get "
            "weight.",
            "Before the softmax, put -inf where the mask is False: np.where(mask, scores, -np.inf).",
            (lambda Q, K, V, mask: _out(Q, K, V, None),),
        ),
        _Mistake(
            "mask-added",
            "Your function adds the boolean mask to the scores: True counts as 1, so allowed keys gain 1 and "
            "blocked keys keep their score. An additive mask holds 0 where allowed and -inf where blocked; "
            "the course's masks are boolean, True = may attend.",
            "Use np.where(mask, scores, -np.inf).",
            (lambda Q, K, V, mask: _softmax(_scaled(Q, K) + (0 if mask is None else mask)) @ V,),
        ),
    ]


def _t(mask):
    return None if mask is None else mask.T


def _inv(mask):
    return None if mask is None else ~mask


def check_attention(fn) -> Feedback:
    """Check a learner's ``fn(Q, K, V, mask=None) -> output`` against :func:`attn_lib.attention`.

    Five seeded cases: cross-attention with n != m and d_k != d_v, a square case, scores as large as 1000, a
    causal mask and a padding mask (``mask`` boolean (n, m), True = may attend). All inputs are 2-D.

    Parameters
    ----------
    fn : callable or None
        ``fn(Q, K, V)`` and ``fn(Q, K, V, mask=mask)`` with Q (n, d_k), K (m, d_k), V (m, d_v), mask (n, m),
        returning the output (n, d_v).

    Returns
    -------
    Feedback
        Passed when every case matches within 1e-5; otherwise the recognised mistake (see the module's table)
        or the first difference.

    Examples
    --------
    >>> def my_attention(Q, K, V, mask=None):
    ...     scores = Q @ K.T / np.sqrt(Q.shape[-1])  # (n, d_k) x (d_k, m) -> (n, m)
    ...     if mask is not None:
    ...         scores = np.where(mask, scores, -np.inf)
    ...     weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    ...     weights /= weights.sum(axis=-1, keepdims=True)
    ...     return weights @ V  # (n, m) x (m, d_v) -> (n, d_v)
    >>> check_attention(my_attention).passed
    True
    >>> check_attention(lambda Q, K, V, mask=None: my_attention(Q, K, V, mask) * 2).mistake
    'not-an-average'
    """
    return _unless_unanswered(_judge_attention, fn)


def _judge_attention(fn) -> Feedback:
    if _blank(fn):
        return _not_answered()
    problem = _function_problem(fn, "check_attention", "Q", "K", "V", define="Q, K, V, mask=None")
    if problem is not None:
        return problem
    takes_mask = _accepts(fn, 0, 0, 0, mask=None) is not False
    cases = _attention_cases()
    results = []
    for case in cases:
        Q, K, V, mask = (case.inputs[k] for k in ("Q", "K", "V", "mask"))
        if mask is None:
            results.append(_as_float_result(_call(fn, Q, K, V)))
        elif takes_mask:
            results.append(_as_float_result(_call(fn, Q, K, V, mask=mask)))
        else:
            results.append(None)  # not callable with a mask: judged on the unmasked cases only
    judged = [i for i, got in enumerate(results) if got is not None]
    if all(_is_right(results[i], cases[i]) for i in judged):
        if not takes_mask:
            return _fail(
                "no-mask-parameter",
                f"Without a mask your function is right on all {len(judged)} cases, but it cannot take a mask: "
                f"it is defined as {_signature_text(fn)}, and check_attention also calls fn(Q, K, V, mask=mask).",
                "Add a parameter mask=None; when a mask is given, put -inf in the blocked scores before the "
                "softmax: np.where(mask, scores, -np.inf).",
            )
        return Feedback(
            True,
            f"Your attention matches softmax(Q K^T / sqrt(d_k)) V on all {len(cases)} cases: n != m, d_k != d_v, "
            "scores as large as 1000, a causal mask and a padding mask." + _fully_masked_note(fn),
        )
    skip = {i for i, got in enumerate(results) if got is None}
    overflow = _overflowed(results, cases, judged)
    mistake, variant = _find_mistake(results, cases, _attention_mistakes(), skip | overflow)
    if mistake:
        return _report_mistake(mistake, variant, results, cases, overflow)
    if _right_but_overflowed(results, cases, overflow, judged):
        i = min(overflow)
        return _fail(
            "naive-softmax-overflow",
            f"Your attention is right on small scores but gives NaN or inf on {cases[i].label}. " + _OVERFLOW,
            _FIX_OVERFLOW,
        )
    return _diagnose_output(results, cases, judged)


def _diagnose_output(results, cases, judged) -> Feedback:
    """Structural reasons for attention-like outputs (n, d_v): the first one that applies."""
    problem, case = _first_problem([results[i] for i in judged], [cases[i] for i in judged])
    if problem is not None:
        return _report_problem(problem, case)
    for i in judged:
        got, case = results[i], cases[i]
        n, d_v = case.expected.shape
        if got.shape != case.expected.shape:
            m, d_k = case.inputs["K"].shape
            extra = ""
            if got.shape == (n, m):
                extra = " That is the shape of the weights, one entry per key; the output mixes value rows."
            elif got.shape == (n, d_k) and d_k != d_v:
                extra = " An output row is a mix of value rows, so it has width d_v, not d_k."
            return _fail(
                "wrong-shape",
                f"For {case.label}, the output should have shape (n, d_v) = {case.expected.shape}; yours has "
                f"shape {got.shape}.{extra}",
                "Follow the shapes: scores (n, m), weights (n, m), output = weights @ V: (n, m) x (m, d_v).",
            )
    for i in judged:
        got, case = results[i], cases[i]
        if _nonfinite(got):
            bad = _index(np.argwhere(~np.isfinite(got))[0])
            return _fail(
                "non-finite-output",
                f"For {case.label}, your output has NaN or inf (first at {bad}); attention of finite inputs is "
                "finite.",
                "Look for exp of large numbers, 0/0 (a row whose weights are all 0), or -inf reaching a product.",
            )
    for i in judged:
        got, case = results[i], cases[i]
        V = case.inputs["V"]
        low, high = V.min(axis=0), V.max(axis=0)  # (d_v,): each output column is an average of V's column
        outside = (got < low - 1e-6) | (got > high + 1e-6)
        if outside.any():
            r, c = np.argwhere(outside)[0]
            return _fail(
                "not-an-average",
                f"For {case.label}, entry [{r}, {c}] of your output is {_fmt(got[r, c])}, outside the range of "
                f"column {c} of V ({_fmt(low[c])} to {_fmt(high[c])}). Each output row is a weighted average "
                "of value rows (weights >= 0 summing to one), so it must lie inside them.",
                "Check that each row of your weights is non-negative and sums to one.",
            )
    for i in judged:
        got, case = results[i], cases[i]
        if not _is_right(got, case):
            return _fail(
                "wrong-values",
                f"For {case.label}, {_first_difference(got, case.expected, 'output')}.",
                "Compute the pieces one at a time (scores, weights, output) and compare each with "
                "attn_lib.scaled_scores, attn_lib.softmax and attn_lib.attention.",
            )
    raise AssertionError("unreachable: a wrong answer with no difference")  # pragma: no cover


def _fully_masked_note(fn) -> str:
    """A note (not a failure) when a row whose keys are all blocked comes back as NaN."""
    rng = np.random.default_rng(1)
    Q, K, V = rng.normal(size=(3, 4)), rng.normal(size=(4, 4)), rng.normal(size=(4, 2))
    mask = np.array([[True, True, False, False], [False, False, False, False], [True, True, True, True]])
    got = _as_float_result(_call(fn, Q, K, V, mask=mask))
    if isinstance(got, np.ndarray) and got.shape == (3, 2) and np.isnan(got[1]).any():
        return (
            "\nOne thing to know: when every key of a query is blocked, your function returns NaN for that row "
            "(all its scores are -inf, and the softmax computes 0/0). attn_lib.attention raises a ValueError "
            "instead; a NaN would spread silently through every later layer."
        )
    return ""
