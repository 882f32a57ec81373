"""check_chunked_attention: a learner's attention over chunks of keys with the online softmax."""

from __future__ import annotations

import tracemalloc

import numpy as np

from ..attention import attention as _attention
from ._attention_mistakes import OUTPUT_DIAGNOSIS, diagnose_output
from ._compare import allclose, first_difference
from ._feedback import Feedback, failure
from ._judge import judge
from ._types import LARGE, ONE_CHUNK, Case, FunctionProblem, Mistake
from ._pieces import SPLIT_SCALE_POWERS, attention_out


def _online(Q, K, V, chunk_size, rescale_sum=True, rescale_out=True, divide=True, use_running_max=True,
            drop_last=False, divide_by=None, update_max=True, shared_max=False, start_max=-np.inf, stop_short=False,
            inverted=False):
    """The online softmax over chunks of keys, with switches that turn off one piece each (mistaken variants)."""
    m = K.shape[0]
    n, d_k = Q.shape
    scale = np.sqrt(d_k) if divide_by is None else divide_by
    running_max = np.full((n, 1), start_max)
    running_sum = np.zeros((n, 1))
    running_out = np.zeros((n, V.shape[1]))
    stop = (m // chunk_size) * chunk_size if drop_last else m - 1 if stop_short else m
    for start in range(0, stop, chunk_size):
        part = slice(start, min(start + chunk_size, m))
        scores = Q @ K[part].T / scale  # (n, d_k) x (d_k, c) -> (n, c)
        chunk_max = scores.max(axis=-1, keepdims=True)
        if shared_max:  # one maximum for every query
            chunk_max = np.full_like(chunk_max, scores.max())
        if not use_running_max:  # each chunk against its own maximum, never brought to a common one
            new_max = chunk_max
        elif not update_max and start > 0:  # the first chunk's maximum, kept for ever
            new_max = running_max
        else:
            new_max = np.maximum(running_max, chunk_max)
        correction = np.exp(new_max - running_max) if inverted else np.exp(running_max - new_max)
        e = np.exp(scores - new_max)  # (n, c)
        running_sum = (running_sum * correction if rescale_sum else running_sum) + e.sum(axis=-1, keepdims=True)
        running_out = (running_out * correction if rescale_out else running_out) + e @ V[part]  # (n, c) x (c, d_v)
        running_max = new_max
    return running_out / running_sum if divide else running_out


def _chunk_average(Q, K, V, chunk_size, average=True):
    outs = [attention_out(Q, K[s:s + chunk_size], V[s:s + chunk_size]) for s in range(0, K.shape[0], chunk_size)]
    return np.mean(outs, axis=0) if average else np.sum(outs, axis=0)


def _level_keys(K, offsets, d_k):
    """K with one extra column that adds ``offsets[j]`` to every query's scaled score with key j."""
    return np.concatenate([K, np.asarray(offsets, float)[:, None] * np.sqrt(d_k)], axis=1)


def _cases() -> list[Case]:
    rng = np.random.default_rng(15)
    cases = []

    def add(label, Q, K, V, c, tags=()):
        scale = np.abs(Q @ K.T / np.sqrt(Q.shape[1])).max()
        cases.append(Case(f"Q {Q.shape}, K {K.shape}, V {V.shape} with chunk_size={c} ({label})" if label else
                          f"Q {Q.shape}, K {K.shape}, V {V.shape} with chunk_size={c}",
                          {"Q": Q, "K": K, "V": V, "chunk_size": c}, _attention(Q, K, V), tags, scale))

    Q, K, V = rng.normal(size=(3, 5)) * 1.5, rng.normal(size=(7, 5)) * 1.5, rng.normal(size=(7, 2))
    for c in (1, 2, 3, 7, 10):
        add("", Q, K, V, c, (ONE_CHUNK,) if c >= K.shape[0] else ())
    # Scores as large as 1000.
    Q2, K2, V2 = rng.normal(size=(2, 5)), rng.normal(size=(6, 5)), rng.normal(size=(6, 3))
    Q2 *= 1000.0 / (Q2 @ K2.T / np.sqrt(5)).max()
    add("scores as large as 1000", Q2, K2, V2, 2, (LARGE,))
    # A later chunk's scores 900 above the first chunk's: the running maximum must grow.
    d = 6
    Q3 = np.concatenate([rng.normal(size=(3, d - 1)), np.ones((3, 1))], axis=1)
    K3 = _level_keys(rng.normal(size=(8, d - 1)), [0.0] * 4 + [900.0] * 4, d)
    add("keys 4 to 7 score about 900 more than keys 0 to 3", Q3, K3, rng.normal(size=(8, 2)), 4, (LARGE,))
    # Query 0 near 0, query 1 near 1000: each query needs its own maximum.
    Q4 = np.concatenate([rng.normal(size=(2, d - 1)), np.array([[0.0], [1.0]])], axis=1)
    K4 = _level_keys(rng.normal(size=(6, d - 1)), [1000.0] * 6, d)
    add("query 0 scores near 0, query 1 near 1000", Q4, K4, rng.normal(size=(6, 3)), 2, (LARGE,))
    # Every score near -1000: exp(score) underflows to 0 unless the running maximum starts at -inf.
    Q5 = np.concatenate([rng.normal(size=(3, d - 1)), np.ones((3, 1))], axis=1)
    K5 = _level_keys(rng.normal(size=(7, d - 1)), [-1000.0] * 7, d)
    add("every score near -1000", Q5, K5, rng.normal(size=(7, 2)), 3, (LARGE,))
    return cases


# The template fields of the scale mistakes (no-scaling, divide-by-dk, ...): what this checker returns, and
# where d_k is read.
_SCALE_FIELDS = {"what": "chunked output", "d_k": "Q.shape[-1]"}


def _mistakes() -> list[Mistake]:
    return [
        Mistake("global-max", (lambda Q, K, V, chunk_size: _online(Q, K, V, chunk_size, shared_max=True),),
                strict_nonfinite=True, array="chunk", example="query 0 near 0, query 1 near 1000"),
        Mistake("max-not-running",
                (lambda Q, K, V, chunk_size: _online(Q, K, V, chunk_size, use_running_max=False),),
                strict_nonfinite=True),
        Mistake("max-never-updated", (lambda Q, K, V, chunk_size: _online(Q, K, V, chunk_size, update_max=False),),
                strict_nonfinite=True),
        Mistake("max-starts-at-zero", (lambda Q, K, V, chunk_size: _online(Q, K, V, chunk_size, start_max=0.0),),
                strict_nonfinite=True),
        Mistake("rescale-inverted", (lambda Q, K, V, chunk_size: _online(Q, K, V, chunk_size, inverted=True),),
                strict_nonfinite=True),
        Mistake("no-rescale",
                (lambda Q, K, V, chunk_size: _online(Q, K, V, chunk_size, rescale_sum=False, rescale_out=False),
                 lambda Q, K, V, chunk_size: _online(Q, K, V, chunk_size, rescale_sum=False, rescale_out=False,
                                                    use_running_max=False))),
        Mistake("rescale-sum-only", (lambda Q, K, V, chunk_size: _online(Q, K, V, chunk_size, rescale_out=False),)),
        Mistake("rescale-output-only",
                (lambda Q, K, V, chunk_size: _online(Q, K, V, chunk_size, rescale_sum=False),)),
        Mistake("no-final-division", (lambda Q, K, V, chunk_size: _online(Q, K, V, chunk_size, divide=False),)),
        Mistake("chunk-average",
                (_chunk_average,
                 lambda Q, K, V, chunk_size: _chunk_average(Q, K, V, chunk_size, average=False))),
        Mistake("drops-last-chunk", (lambda Q, K, V, chunk_size: _online(Q, K, V, chunk_size, drop_last=True),)),
        Mistake("loop-stops-short", (lambda Q, K, V, chunk_size: _online(Q, K, V, chunk_size, stop_short=True),)),
        Mistake("dropped-key",
                (lambda Q, K, V, chunk_size: attention_out(Q, K[:-1], V[:-1]),
                 lambda Q, K, V, chunk_size: attention_out(Q, K[1:], V[1:]),
                 lambda Q, K, V, chunk_size: attention_out(Q, K[_short(K.shape[0], chunk_size)], V[_short(K.shape[0], chunk_size)]))),
        Mistake("no-scaling", (lambda Q, K, V, chunk_size: _online(Q, K, V, chunk_size, divide_by=1.0),),
                **_SCALE_FIELDS),
        Mistake("divide-by-dk", (lambda Q, K, V, chunk_size: _online(Q, K, V, chunk_size, divide_by=Q.shape[1]),),
                **_SCALE_FIELDS),
        Mistake("power-precedence",
                (lambda Q, K, V, chunk_size: _online(Q, K, V, chunk_size, divide_by=2.0 * Q.shape[-1]),
                 lambda Q, K, V, chunk_size: _online(Q, K, V, chunk_size, divide_by=Q.shape[-1] / 2))),
        Mistake("split-scale",
                tuple((lambda Q, K, V, chunk_size, p=p: _online(Q, K, V, chunk_size, divide_by=Q.shape[-1] ** p))
                      for p in SPLIT_SCALE_POWERS)),
        Mistake("d-model-scaling",
                (lambda Q, K, V, chunk_size: _online(Q, K, V, chunk_size, divide_by=np.sqrt(512)),
                 lambda Q, K, V, chunk_size: _online(Q, K, V, chunk_size, divide_by=512.0)),
                **_SCALE_FIELDS),
        Mistake("scaled-by-dv",
                (lambda Q, K, V, chunk_size: _online(Q, K, V, chunk_size, divide_by=np.sqrt(V.shape[1])),),
                **_SCALE_FIELDS),
        Mistake("uniform-weights",
                (lambda Q, K, V, chunk_size: np.broadcast_to(V.mean(axis=0), (Q.shape[0], V.shape[1])),)),
    ]


def _short(m, chunk_size):
    """The keys that K[start:start + chunk_size - 1] keeps: the last key of every full chunk dropped."""
    return np.array([j for j in range(m) if j % chunk_size != chunk_size - 1], dtype=int)


def _diagnose(attempts, runner) -> Feedback | None:
    small = [a for a in attempts if LARGE not in a.case.tags]
    wrong = [a for a in small if not a.right]
    one_chunk_right = all(a.right for a in small if ONE_CHUNK in a.case.tags)
    if one_chunk_right and wrong and all(a.result.shape == a.case.expected.shape for a in wrong):
        sizes = ", ".join(str(a.case.inputs["chunk_size"]) for a in wrong)
        first = wrong[0]
        return failure(
            "wrong-combination", sizes=sizes, label=first.case.label,
            difference=first_difference(first.result, first.case.expected, first.tol, 'output'))
    return diagnose_output(attempts, runner)


# The memory checks' inputs are small enough for a plain-Python loop (d_k = d_v = 1 or 3), large enough that a
# row of m scores, or the whole (n, m) matrix, dwarfs what a chunked answer holds at once.
_FULL_SHAPE = (32, 1024, 32)  # n, m, chunk_size: the (n, m) scores dwarf everything else
_ROW_SHAPE = (2, 20_000, 256)  # n, m, chunk_size: one row of m scores dwarfs a chunk of n x chunk_size
_WIDTHS = (1, 2)  # d_k = d_v: copies of Q, K, V grow with it, a row of scores does not
AFTER_PASS_INPUTS = (f"the memory checks' inputs (Q ({_FULL_SHAPE[0]}, 1), K ({_FULL_SHAPE[1]}, 1), and Q "
                     f"({_ROW_SHAPE[0]}, 2), K ({_ROW_SHAPE[1]:,}, 2))")


def _inputs(n, m, width):
    rng = np.random.default_rng(3)
    return rng.normal(size=(n, width)), rng.normal(size=(m, width)), rng.normal(size=(m, width))


def _peak(runner, Q, K, V, c) -> tuple:
    """The learner's output, and the peak memory (bytes, tracemalloc) of the learner's own call (the runner
    measures around the learner's function alone, not its own copies and comparisons of the inputs)."""
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    try:
        out = runner.call_inputs({"Q": Q, "K": K, "V": V, "chunk_size": c})
        peak = runner.peak
    finally:
        if not was_tracing:
            tracemalloc.stop()
    return out, peak


def _memory_check(runner) -> Feedback | None:
    """Fails an answer whose peak memory reaches most of the whole (n, m) score matrix in float32 (after one
    float64 copy of the inputs, which an answer may make)."""
    n, m, c = _FULL_SHAPE
    Q, K, V = _inputs(n, m, 1)
    out, peak = _peak(runner, Q, K, V, c)
    if peak - (Q.nbytes + K.nbytes + V.nbytes) < 0.75 * n * m * 4:
        return None
    right = isinstance(out, np.ndarray) and out.shape == (n, 1) and allclose(
        np.asarray(out, float), _attention(Q, K, V), rtol=1e-3, atol=1e-5)
    return failure("full-score-matrix", right="gives the right output, but it " if right else "", n=n, m=m, c=c,
                   nm=n * m, nm_kb=n * m * 8 / 1e3, nc=n * c, nc_kb=n * c * 8 / 1e3)


def _chunks_check(runner) -> Feedback | None:
    """Fails an answer that computes a whole row of m scores at once (one query against all keys): its peak
    memory, extrapolated to inputs of width 0 (copies of Q, K and V shrink with the width, a row of scores does
    not), reaches one and a half rows of m float64 numbers, as the row, its shifted copy and its exponentials do.
    Conversions of the inputs cannot hide it. The line sits above one row on purpose: an index of all m keys
    (np.arange(m), for np.array_split) is a right answer of exactly that size, and memory cannot tell them apart,
    so a single row updated wholly in place goes unseen rather than a right answer being refused."""
    n, m, c = _ROW_SHAPE
    peaks = [_peak(runner, *_inputs(n, m, width), c)[1] for width in _WIDTHS]
    (w1, p1), (w2, p2) = zip(_WIDTHS, peaks)
    per_width = (p2 - p1) / (w2 - w1)
    if p1 - per_width * w1 < 1.5 * m * 8:
        return None
    return failure("keys-not-chunked", n=n, width=w2, m=m, c=c, m_kb=m * 8 / 1e3)


def _after_pass(attempts, runner) -> Feedback | None:
    memory = _memory_check(runner)  # a failing Feedback is falsy: test for None
    return memory if memory is not None else _chunks_check(runner)


PROBLEM = FunctionProblem(
    gives=(*OUTPUT_DIAGNOSIS, "wrong-combination", "full-score-matrix", "keys-not-chunked"),
    checker="check_chunked_attention",
    params=("Q", "K", "V", "chunk_size"),
    by_name=("chunk_size",),
    cases=_cases,
    mistakes=_mistakes,
    what="output",
    forbidden=("attention", "chunked_attention"),
    passed=(
        "Your chunked attention gives the same output as attention for chunk sizes 1, 2, 3, 7 (= m) and 10 "
        "(> m), with scores as large as 1000, a later chunk 900 above the first, queries at very different "
        "levels, and every score near -1000; it never holds the whole (n, m) score matrix, and it takes the keys "
        "chunk_size at a time."
    ),
    overflow=("no-running-max", {}),
    diagnose=_diagnose,
    after_pass=_after_pass,
    after_pass_inputs=AFTER_PASS_INPUTS,
    hint="Run your loop by hand on a few keys and compare running_out / running_sum with attention after each chunk.",
)


def check_chunked_attention(fn) -> Feedback:
    """Check a learner's ``fn(Q, K, V, chunk_size) -> output`` (the online softmax) against attention.

    Chunk sizes 1, 2, 3, 7 (= m) and 10 (> m) on Q (3, 5), K (7, 5), V (7, 2); scores as large as 1000; a later
    chunk whose scores are 900 above the first chunk's; a query near 0 beside a query near 1000; every score near
    -1000 (a running maximum that starts at 0 gives 0 / 0 there). Once all are
    right, the peak memory (tracemalloc) on Q (32, 1), K (1024, 1) with chunk_size 32 must stay well below
    the whole (n, m) score matrix, and on Q (2, d), K (20000, d) with chunk_size 256 below half a row of m
    float64 scores (``keys-not-chunked``: one query's whole row of scores), whatever copies of the inputs the
    answer makes (measured at d = 1 and 2, extrapolated to d = 0), counting only the learner's own call. These
    runs have their own time limit, charged 1/4 of their traced time (tracemalloc slows Python code).
    ``chunk_size`` is passed by keyword when ``fn`` has a parameter of that name, else as the fourth argument.
    Calling attn_lib.attention or attn_lib.chunked_attention is named.

    Parameters
    ----------
    fn : callable or None

    Returns
    -------
    Feedback

    Examples
    --------
    >>> def whole_matrix(Q, K, V, chunk_size):
    ...     scores = Q @ K.T / np.sqrt(Q.shape[-1])  # (n, m) all at once: not chunked
    ...     w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    ...     return (w / w.sum(axis=-1, keepdims=True)) @ V
    >>> check_chunked_attention(whole_matrix).mistake
    'full-score-matrix'
    """
    return judge(fn, PROBLEM)
