"""check_chunked_attention against hand-written learner answers: wrong ones get their own id, right ones pass."""

import math
import time

import numpy as np
import pytest

import attn_lib
from attn_lib.exercises import check_chunked_attention


def full_attention(Q, K, V):
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) @ V


def chunked(rescale_sum=True, rescale_out=True, divide=True, running_max=True, scale=True, whole_chunks=False,
            correction_power=1, update_max=True, shared_max=False, dtype=float, stop_short=0, start_max=-np.inf,
            range_stop=0):
    """An online-softmax loop as a learner writes it, with one piece switched off."""

    def fn(Q, K, V, chunk_size):
        Q, K, V = (np.asarray(a, dtype=dtype) for a in (Q, K, V))
        n, d_k = Q.shape
        m = K.shape[0]
        run_max = np.full((n, 1), start_max, dtype=dtype)
        run_sum = np.zeros((n, 1), dtype=dtype)
        run_out = np.zeros((n, V.shape[1]), dtype=dtype)
        starts = ([k * chunk_size for k in range(m // chunk_size)] if whole_chunks
                  else range(0, m - range_stop, chunk_size))
        for start in starts:
            k_chunk = K[start:start + chunk_size - stop_short]
            v_chunk = V[start:start + chunk_size - stop_short]
            s = Q @ k_chunk.T / (np.sqrt(d_k) if scale else 1.0)
            chunk_max = s.max(axis=1, keepdims=True) if not shared_max else np.full((n, 1), s.max())
            if running_max:
                new_max = np.maximum(run_max, chunk_max) if (update_max or start == 0) else run_max
                p = np.exp(s - new_max)
            else:
                new_max = run_max
                p = np.exp(s)
            corr = np.exp(correction_power * (run_max - new_max)) if running_max else 1.0
            run_sum = (run_sum * corr if rescale_sum else run_sum) + p.sum(axis=1, keepdims=True)
            run_out = (run_out * corr if rescale_out else run_out) + p @ v_chunk
            run_max = new_max
        return run_out / run_sum if divide else run_out

    return fn


def chunk_average(Q, K, V, chunk_size):
    outs = []
    for start in range(0, K.shape[0], chunk_size):
        outs.append(full_attention(Q, K[start:start + chunk_size], V[start:start + chunk_size]))
    return np.mean(outs, axis=0)


def lse_merge(Q, K, V, chunk_size):
    """Each chunk's own softmax output and log-sum-exp, merged with weights exp(lse_chunk - lse_total)."""
    outs, lses = [], []
    for start in range(0, K.shape[0], chunk_size):
        s = Q @ K[start:start + chunk_size].T / np.sqrt(Q.shape[1])
        mx = s.max(axis=1, keepdims=True)
        e = np.exp(s - mx)
        total = e.sum(axis=1, keepdims=True)
        outs.append(e @ V[start:start + chunk_size] / total)
        lses.append(mx + np.log(total))
    lses = np.concatenate(lses, axis=1)  # (n, chunks)
    top = lses.max(axis=1, keepdims=True)
    w = np.exp(lses - top)
    w /= w.sum(axis=1, keepdims=True)
    return sum(w[:, [c]] * o for c, o in enumerate(outs))


def two_pass(Q, K, V, chunk_size):
    """First pass: each query's maximum over all chunks; second pass: sums against that fixed maximum."""
    n, m = Q.shape[0], K.shape[0]
    mx = np.full((n, 1), -np.inf)
    for start in range(0, m, chunk_size):
        s = Q @ K[start:start + chunk_size].T / np.sqrt(Q.shape[1])
        mx = np.maximum(mx, s.max(axis=1, keepdims=True))
    total, out = np.zeros((n, 1)), np.zeros((n, V.shape[1]))
    for start in range(0, m, chunk_size):
        e = np.exp(Q @ K[start:start + chunk_size].T / np.sqrt(Q.shape[1]) - mx)
        total += e.sum(axis=1, keepdims=True)
        out += e @ V[start:start + chunk_size]
    return out / total


def per_query_loops(Q, K, V, chunk_size):
    """Plain Python over queries, numpy over each chunk of keys."""
    out = np.zeros((Q.shape[0], V.shape[1]))
    for i, q in enumerate(Q):
        best, total, acc = -np.inf, 0.0, np.zeros(V.shape[1])
        for start in range(0, K.shape[0], chunk_size):
            s = K[start:start + chunk_size] @ q / np.sqrt(Q.shape[1])
            new = max(best, s.max())
            e = np.exp(s - new)
            total = total * np.exp(best - new) + e.sum()
            acc = acc * np.exp(best - new) + e @ V[start:start + chunk_size]
            best = new
        out[i] = acc / total
    return out


def chunked_scaled_queries(Q, K, V, chunk_size):
    return chunked()(Q / np.sqrt(Q.shape[1]) * np.sqrt(Q.shape[1]), K, V, chunk_size)


def chunked_logaddexp(Q, K, V, chunk_size):
    """Running log of the sum instead of running max and sum."""
    n = Q.shape[0]
    log_total = np.full((n, 1), -np.inf)
    out = np.zeros((n, V.shape[1]))
    for start in range(0, K.shape[0], chunk_size):
        s = Q @ K[start:start + chunk_size].T / np.sqrt(Q.shape[1])
        chunk_lse = np.logaddexp.reduce(s, axis=1, keepdims=True)
        new_total = np.logaddexp(log_total, chunk_lse)
        out = out * np.exp(log_total - new_total) + np.exp(s - new_total) @ V[start:start + chunk_size]
        log_total = new_total
    return out


def chunked_with_keyword_name(Q, K, V, mask=None, chunk_size=3):
    """attn_lib's own order of parameters: chunk_size must come by keyword."""
    return chunked()(Q, K, V, chunk_size)


CHUNKED_RIGHT = [chunked(), chunked(dtype=np.float32), lse_merge, two_pass, per_query_loops, chunked_scaled_queries,
                 chunked_logaddexp, chunked_with_keyword_name]


@pytest.mark.parametrize("fn", CHUNKED_RIGHT, ids=["online", "float32", "lse-merge", "two-pass", "loops",
                                                   "scaled-queries", "logaddexp", "keyword"])
def test_right_but_unusual_chunked_attention_passes(fn):
    feedback = check_chunked_attention(fn)
    assert feedback.passed, feedback


def full_matrix_then_chunks(Q, K, V, chunk_size):
    scores = Q @ K.T / np.sqrt(Q.shape[1])  # the whole (n, m) matrix, then "chunks" of it
    out = np.zeros((Q.shape[0], V.shape[1]))
    mx = scores.max(axis=1, keepdims=True)
    total = np.zeros((Q.shape[0], 1))
    for start in range(0, K.shape[0], chunk_size):
        e = np.exp(scores[:, start:start + chunk_size] - mx)
        total += e.sum(axis=1, keepdims=True)
        out += e @ V[start:start + chunk_size]
    return out / total


CHUNKED_MISTAKES = {
    "no-rescale": (chunked(rescale_sum=False, rescale_out=False), "exp(old_max - new_max)"),
    "rescale-sum-only": (chunked(rescale_out=False), "but not the running sum of value rows"),
    "rescale-output-only": (chunked(rescale_sum=False), "but not the running sum of exponentials"),
    "no-final-division": (chunked(divide=False), "never divided"),
    "chunk-average": (chunk_average, "normalises each chunk separately"),
    "drops-last-chunk": (chunked(whole_chunks=True), "drops the last"),
    "dropped-key": (chunked(stop_short=1), "leaves out one key"),
    "loop-stops-short": (chunked(range_stop=1), "key m - 1 is never seen"),
    "max-starts-at-zero": (chunked(start_max=0.0), "starts at 0 instead of -inf"),
    "no-scaling": (chunked(scale=False), "never divided by sqrt(d_k)"),
    "no-running-max": (chunked(running_max=False), "without subtracting a running maximum"),
    "max-never-updated": (chunked(update_max=False), "never updated"),
    "global-max": (chunked(shared_max=True), "shared by all queries"),
    "wrong-combination": (chunked(correction_power=2), "right when one chunk holds every key"),
    "wrong-shape": (lambda Q, K, V, chunk_size: chunked()(Q, K, V, chunk_size).T, "should have shape"),
    "full-score-matrix": (full_matrix_then_chunks, "whole score matrix"),
    "used-attn-lib": (lambda Q, K, V, chunk_size: attn_lib.chunked_attention(Q, K, V, chunk_size=chunk_size),
                      "attn_lib.chunked_attention"),
    "uniform-weights": (lambda Q, K, V, chunk_size: np.tile(V.mean(axis=0), (Q.shape[0], 1)), "uniform"),
}


@pytest.mark.parametrize("mistake", sorted(CHUNKED_MISTAKES))
def test_chunked_mistake_is_recognised(mistake):
    fn, phrase = CHUNKED_MISTAKES[mistake]
    feedback = check_chunked_attention(fn)
    assert not feedback.passed
    assert feedback.mistake == mistake, feedback
    assert phrase in feedback.reason


def test_chunked_mistakes_get_distinct_reasons():
    feedbacks = [check_chunked_attention(fn) for fn, _ in CHUNKED_MISTAKES.values()]
    assert len({f.mistake for f in feedbacks}) == len(CHUNKED_MISTAKES)
    assert len({f.reason for f in feedbacks}) == len(CHUNKED_MISTAKES)


def test_chunked_positional_chunk_parameter_with_another_name():
    def fn(Q, K, V, size):
        return chunked()(Q, K, V, size)

    assert check_chunked_attention(fn).passed


def test_whole_matrix_softmax_is_told_it_is_not_chunked():
    feedback = check_chunked_attention(lambda Q, K, V, chunk_size: full_attention(Q, K, V))
    assert feedback.mistake == "full-score-matrix"
    assert "gives the right output" in feedback.reason


def test_full_matrix_feedback_is_deterministic():
    assert repr(check_chunked_attention(full_matrix_then_chunks)) == repr(check_chunked_attention(
        full_matrix_then_chunks))


def test_memory_check_works_when_tracemalloc_is_already_tracing():
    import tracemalloc

    def whole(Q, K, V, chunk_size):
        scores = Q @ K.T / np.sqrt(Q.shape[-1])
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True) @ V

    tracemalloc.start()
    try:
        assert check_chunked_attention(whole).mistake == "full-score-matrix"
        assert tracemalloc.is_tracing()
    finally:
        tracemalloc.stop()


def full_rows(Q, K, V, chunk_size):
    """One query at a time, each with its whole row of m scores: no key is ever taken chunk_size at a time."""
    out = np.zeros((Q.shape[0], V.shape[1]))
    for i in range(Q.shape[0]):
        s = K @ Q[i] / np.sqrt(Q.shape[1])
        e = np.exp(s - s.max())
        out[i] = e @ V / e.sum()
    return out


def test_whole_rows_of_scores_one_query_at_a_time_are_not_chunked():
    feedback = check_chunked_attention(full_rows)
    assert feedback.mistake == "keys-not-chunked", feedback
    assert "chunk_size" in feedback.reason


def chunk_max_as_new_max(Q, K, V, chunk_size):
    """Rescales by exp(old - new) as it should, but new is the chunk's own maximum: it can fall."""
    n = Q.shape[0]
    run_max, run_sum, run_out = np.full((n, 1), -np.inf), np.zeros((n, 1)), np.zeros((n, V.shape[1]))
    for start in range(0, K.shape[0], chunk_size):
        s = Q @ K[start:start + chunk_size].T / np.sqrt(Q.shape[1])
        new_max = s.max(axis=1, keepdims=True)  # not np.maximum(run_max, ...)
        corr = np.exp(run_max - new_max)
        p = np.exp(s - new_max)
        run_sum = run_sum * corr + p.sum(axis=1, keepdims=True)
        run_out = run_out * corr + p @ V[start:start + chunk_size]
        run_max = new_max
    return run_out / run_sum


def test_the_chunk_maximum_taken_as_the_new_maximum_is_max_not_running():
    feedback = check_chunked_attention(chunk_max_as_new_max)
    assert feedback.mistake == "max-not-running", feedback
    assert "fall" in feedback.reason


def test_dividing_by_d_k_is_divide_by_dk():
    def by_dk(Q, K, V, chunk_size):
        return chunked()(Q / np.sqrt(Q.shape[1]), K, V, chunk_size)  # scores divided by sqrt(d_k) twice = d_k

    assert check_chunked_attention(by_dk).mistake == "divide-by-dk"


@pytest.mark.parametrize("dtype", [float, np.float32])
def test_whole_rows_after_converting_the_inputs_are_not_chunked(dtype):
    # np.asarray(K, dtype=...) hands back a plain array, whatever K was: the check must not rely on K's type.
    def converted_rows(Q, K, V, chunk_size):
        Q, K, V = (np.asarray(a, dtype=dtype) for a in (Q, K, V))
        return full_rows(Q, K, V, chunk_size)

    feedback = check_chunked_attention(converted_rows)
    assert feedback.mistake == "keys-not-chunked", feedback


def test_an_index_of_all_m_keys_split_into_chunks_is_right():
    # np.array_split(np.arange(m), ...) holds m integers, as much as a row of m scores, and is a right answer.
    def split_index(Q, K, V, chunk_size):
        n, m = Q.shape[0], K.shape[0]
        run_max, run_sum, run_out = np.full((n, 1), -np.inf), np.zeros((n, 1)), np.zeros((n, V.shape[1]))
        for keys in np.array_split(np.arange(m), max(1, -(-m // chunk_size))):
            s = Q @ K[keys].T / np.sqrt(Q.shape[1])  # (n, c)
            new_max = np.maximum(run_max, s.max(axis=1, keepdims=True))
            corr, p = np.exp(run_max - new_max), np.exp(s - new_max)
            run_sum = run_sum * corr + p.sum(axis=1, keepdims=True)
            run_out = run_out * corr + p @ V[keys]
            run_max = new_max
        return run_out / run_sum

    feedback = check_chunked_attention(split_index)
    assert feedback.passed, feedback


def pure_python(Q, K, V, chunk_size):
    """Plain Python over queries, keys and coordinates: slow, but chunked and right."""
    n, d_k = Q.shape
    m, d_v = V.shape
    out = []
    for i in range(n):
        best, total, acc = -math.inf, 0.0, [0.0] * d_v
        for start in range(0, m, chunk_size):
            for j in range(start, min(start + chunk_size, m)):
                s = sum(Q[i][t] * K[j][t] for t in range(d_k)) / math.sqrt(d_k)
                new = max(best, s)
                corr = math.exp(best - new) if best > -math.inf else 0.0
                e = math.exp(s - new)
                total = total * corr + e
                acc = [a * corr + e * V[j][k] for k, a in enumerate(acc)]
                best = new
        out.append([a / total for a in acc])
    return np.array(out)


def test_a_plain_python_loop_passes_the_memory_checks_in_time_and_on_a_machine_three_times_slower(monkeypatch):
    """It passes, and three times what the time limit charges for the loop (its calls, less tracemalloc's overhead,
    as the runner counts them) is still within the limit: a machine three times slower passes. Counted in CPU
    seconds of this process, not by the clock, so that the load of other processes on a shared machine does not
    count."""
    from attn_lib.exercises import _running

    charged, run = [], _running.Runner._run

    def counted(self, args, kwargs):
        start = time.process_time()
        try:
            return run(self, args, kwargs)
        finally:
            charged.append((time.process_time() - start) / getattr(self, "_discount", 1.0))

    monkeypatch.setattr(_running.Runner, "_run", counted)
    feedback = check_chunked_attention(pure_python)
    assert feedback.passed, feedback
    assert charged and 3 * sum(charged) < _running.TIME_LIMIT, f"{sum(charged):.1f} CPU s charged"


def test_too_slow_on_the_memory_checks_names_their_inputs(monkeypatch):
    from attn_lib.exercises import _running

    monkeypatch.setattr(_running, "TIME_LIMIT", 0.5)  # 10 s in the notebooks

    def endless_on_long_inputs(Q, K, V, chunk_size):
        while K.shape[0] > 100:
            pass
        return chunked()(Q, K, V, chunk_size)

    feedback = check_chunked_attention(endless_on_long_inputs)
    assert feedback.mistake == "too-slow", feedback
    assert "memory checks' inputs" in feedback.reason and "few dozen" not in feedback.reason
    assert "traced" in feedback.reason


def test_a_loop_that_stops_one_key_short_is_not_told_the_chunks_are_combined_wrongly():
    # Issue 17: range(0, m - 1, chunk_size) drops the last key except when one chunk holds them all; it was
    # diagnosed as wrong-combination.
    feedback = check_chunked_attention(chunked(range_stop=1))
    assert feedback.mistake == "loop-stops-short" and "range(0, m - 1, chunk_size)" in feedback.reason, feedback
    assert "combined" not in feedback.reason


def test_a_running_maximum_that_starts_at_zero_is_named_on_scores_far_below_zero():
    # Issue 17: no case had every score of a query below about -745, so a maximum started at 0 passed.
    feedback = check_chunked_attention(chunked(start_max=0.0))
    assert feedback.mistake == "max-starts-at-zero" and "-1000" in feedback.reason, feedback
    assert check_chunked_attention(chunked()).passed


def test_scaling_by_sqrt_d_v_is_scaled_by_dv():
    # The review (08 P6): the scale read from V got a generic wrong-values.
    def by_dv(Q, K, V, chunk_size):
        return chunked()(Q * np.sqrt(Q.shape[1]) / np.sqrt(V.shape[1]), K, V, chunk_size)  # scores / sqrt(d_v)

    feedback = check_chunked_attention(by_dv)
    assert feedback.mistake == "scaled-by-dv" and "sqrt(d_v)" in feedback.reason, feedback
