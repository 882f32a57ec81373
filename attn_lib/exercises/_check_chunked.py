"""check_chunked_attention: a learner's attention over chunks of keys with the online softmax."""

from __future__ import annotations

import numpy as np

from ..attention import attention as _attention
from ._check_attention import _diagnose_output
from ._compare import (
    _Case,
    _Mistake,
    _find_mistake,
    _first_difference,
    _first_problem,
    _is_right,
    _overflowed,
    _right_but_overflowed,
    _report_mistake,
    _report_problem,
)
from ._feedback import Feedback, _fail, _not_answered
from ._pieces import _OVERFLOW, _out
from ._running import _accepts, _as_float_result, _blank, _call, _function_problem, _unless_unanswered


def _online(Q, K, V, chunk_size, rescale_sum=True, rescale_out=True, divide=True, use_running_max=True,
            drop_last=False, divide_by=None):
    """The online softmax over chunks of keys, with switches that turn off one piece each (mistaken variants)."""
    n, m = Q.shape[0], K.shape[0]
    d_k = Q.shape[1]
    scale = np.sqrt(d_k) if divide_by is None else divide_by
    running_max = np.full((n, 1), -np.inf)
    running_sum = np.zeros((n, 1))
    running_out = np.zeros((n, V.shape[1]))
    stop = (m // chunk_size) * chunk_size if drop_last else m
    for start in range(0, stop, chunk_size):
        keys = slice(start, min(start + chunk_size, m))
        scores = Q @ K[keys].T / scale  # (n, d_k) x (d_k, c) -> (n, c)
        if use_running_max:
            new_max = np.maximum(running_max, scores.max(axis=-1, keepdims=True))
        else:  # each chunk against its own maximum, never brought to a common one
            new_max = scores.max(axis=-1, keepdims=True)
        correction = np.exp(running_max - new_max)
        e = np.exp(scores - new_max)  # (n, c)
        running_sum = (running_sum * correction if rescale_sum else running_sum) + e.sum(axis=-1, keepdims=True)
        running_out = (running_out * correction if rescale_out else running_out) + e @ V[keys]  # (n, c) x (c, d_v)
        running_max = new_max
    return running_out / running_sum if divide else running_out


def _chunk_average(Q, K, V, chunk_size, average=True):
    outs = [_out(Q, K[s:s + chunk_size], V[s:s + chunk_size]) for s in range(0, K.shape[0], chunk_size)]
    return np.mean(outs, axis=0) if average else np.sum(outs, axis=0)


def _chunked_cases() -> list[_Case]:
    rng = np.random.default_rng(15)
    Q, K, V = rng.normal(size=(3, 4)) * 1.5, rng.normal(size=(7, 4)) * 1.5, rng.normal(size=(7, 2))
    expected = _attention(Q, K, V)
    cases = []
    for c in (1, 2, 3, 7, 10):
        label = f"Q {Q.shape}, K {K.shape}, V {V.shape} with chunk_size={c}"
        tags = ("one-chunk",) if c >= K.shape[0] else ()
        cases.append(_Case(label, {"Q": Q, "K": K, "V": V, "chunk_size": c}, frozenset(tags), expected))
    Q2, K2, V2 = rng.normal(size=(2, 4)), rng.normal(size=(6, 4)), rng.normal(size=(6, 3))
    Q2 *= 1000.0 / (Q2 @ K2.T / 2.0).max()
    label = f"Q {Q2.shape}, K {K2.shape}, V {V2.shape} with chunk_size=2 and scores as large as 1000"
    cases.append(_Case(label, {"Q": Q2, "K": K2, "V": V2, "chunk_size": 2}, frozenset({"large"}),
                       _attention(Q2, K2, V2)))
    return cases


def _chunked_mistakes() -> list[_Mistake]:
    return [
        _Mistake(
            "no-rescale",
            "When a chunk raises the running maximum, your old running sums are not multiplied by "
            "exp(old_max - new_max). They stay measured against the old maximum while the new terms use the "
            "new one, so the early chunks count too much. With one chunk (chunk_size >= m) nothing needs "
            "rescaling, which is why that case is right.",
            "Before adding a chunk: correction = np.exp(running_max - new_max); running_sum = running_sum * "
            "correction + ...; running_out = running_out * correction + ....",
            (
                lambda Q, K, V, chunk_size: _online(Q, K, V, chunk_size, rescale_sum=False, rescale_out=False),
                lambda Q, K, V, chunk_size: _online(Q, K, V, chunk_size, rescale_sum=False, rescale_out=False,
                                                    use_running_max=False),
            ),
        ),
        _Mistake(
            "rescale-sum-only",
            "You rescale the running sum of exponentials when the maximum changes, but not the running sum of "
            "value rows. Both are sums of exp(score - running_max) terms, so both need the factor "
            "exp(old_max - new_max).",
            "Multiply running_out by the same correction as running_sum.",
            (lambda Q, K, V, chunk_size: _online(Q, K, V, chunk_size, rescale_out=False),),
        ),
        _Mistake(
            "rescale-output-only",
            "You rescale the running sum of value rows when the maximum changes, but not the running sum of "
            "exponentials (the denominator). Both need the factor exp(old_max - new_max).",
            "Multiply running_sum by the same correction as running_out.",
            (lambda Q, K, V, chunk_size: _online(Q, K, V, chunk_size, rescale_sum=False),),
        ),
        _Mistake(
            "no-final-division",
            "Your output is the running sum of exp(score - max) times value rows, never divided by the running "
            "sum of exponentials: the weights do not sum to one.",
            "Return running_out / running_sum at the end.",
            (lambda Q, K, V, chunk_size: _online(Q, K, V, chunk_size, divide=False),),
        ),
        _Mistake(
            "chunk-average",
            "Your function normalises each chunk separately (a softmax over the chunk's keys) and then averages "
            "(or adds) the chunk outputs. A chunk whose scores are all small then counts as much as one with "
            "the best key; the weights must be normalised over all m keys together. With one chunk it is right.",
            "Keep unnormalised sums across chunks (with a running maximum) and divide once, at the end.",
            (
                _chunk_average,
                lambda Q, K, V, chunk_size: _chunk_average(Q, K, V, chunk_size, average=False),
            ),
        ),
        _Mistake(
            "drops-last-chunk",
            "Your loop drops the last, shorter chunk when chunk_size does not divide m (and does nothing when "
            "chunk_size > m): some keys are never seen.",
            "Loop over for start in range(0, m, chunk_size) and slice K[start:start + chunk_size]; numpy "
            "shortens the last slice by itself.",
            (lambda Q, K, V, chunk_size: _online(Q, K, V, chunk_size, drop_last=True),),
        ),
        _Mistake(
            "no-scaling",
            "Your chunked output matches softmax(Q K^T) V: the scores were never divided by sqrt(d_k).",
            "Divide each chunk's scores by np.sqrt(d_k), with d_k = Q.shape[-1].",
            (lambda Q, K, V, chunk_size: _online(Q, K, V, chunk_size, divide_by=1.0),),
        ),
    ]


def check_chunked_attention(fn) -> Feedback:
    """Check a learner's ``fn(Q, K, V, chunk_size) -> output`` (the online softmax) against attention.

    Chunk sizes 1, 2, 3, 7 (= m) and 10 (> m) on Q (3, 4), K (7, 4), V (7, 2), and scores as large as 1000.
    ``chunk_size`` is passed by keyword when ``fn`` has a parameter of that name, else as the fourth argument.

    Parameters
    ----------
    fn : callable or None

    Returns
    -------
    Feedback

    Examples
    --------
    >>> import attn_lib
    >>> check_chunked_attention(attn_lib.chunked_attention).passed
    True
    """
    return _unless_unanswered(_judge_chunked_attention, fn)


def _judge_chunked_attention(fn) -> Feedback:
    if _blank(fn):
        return _not_answered()
    problem = _function_problem(fn, "check_chunked_attention", "Q", "K", "V", "chunk_size")
    if problem is not None:
        return problem
    by_keyword = _accepts(fn, 0, 0, 0, chunk_size=1) is True
    cases = _chunked_cases()
    results = []
    for case in cases:
        Q, K, V, c = (case.inputs[k] for k in ("Q", "K", "V", "chunk_size"))
        got = _call(fn, Q, K, V, chunk_size=c) if by_keyword else _call(fn, Q, K, V, c)
        results.append(_as_float_result(got))
    if all(_is_right(got, case) for got, case in zip(results, cases)):
        return Feedback(
            True,
            "Your chunked attention gives the same output as attention for chunk sizes 1, 2, 3, 7 (= m) and "
            "10 (> m), and with scores as large as 1000.",
        )
    overflow = _overflowed(results, cases)
    mistake, variant = _find_mistake(results, cases, _chunked_mistakes(), overflow)
    if mistake:
        return _report_mistake(mistake, variant, results, cases, overflow)
    if _right_but_overflowed(results, cases, overflow):
        return _fail(
            "no-running-max",
            f"Your chunked attention is right on small scores but gives NaN or inf on {cases[min(overflow)].label}"
            ": the exponentials are taken without subtracting a running maximum. " + _OVERFLOW,
            "Keep running_max, the largest score seen so far for each query; take exp(scores - new_max), and "
            "rescale the old sums by exp(old_max - new_max) when it grows.",
        )
    problem, case = _first_problem(results, cases)
    if problem is not None:
        return _report_problem(problem, case)
    small = [i for i, c in enumerate(cases) if "large" not in c.tags]
    wrong = [i for i in small if not _is_right(results[i], cases[i])]
    one_chunk_right = all(_is_right(results[i], cases[i]) for i in small if "one-chunk" in cases[i].tags)
    if one_chunk_right and wrong and all(results[i].shape == cases[i].expected.shape for i in wrong):
        sizes = ", ".join(str(cases[i].inputs["chunk_size"]) for i in wrong)
        case = cases[wrong[0]]
        return _fail(
            "wrong-combination",
            f"Your output is right when one chunk holds every key, but wrong for chunk_size {sizes}: the "
            f"mistake is in how chunks are combined. For {case.label}, "
            f"{_first_difference(results[wrong[0]], case.expected, 'output')}.",
            "After each chunk, running_sum and running_out must equal the sums over all keys so far, measured "
            "against the current running maximum.",
        )
    return _diagnose_output(results, cases, list(range(len(cases))))
