"""attention_cost: the paper's numbers at n = m = 1000, and counts equal to what real arrays hold on small cases."""

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attn_lib import AttentionCost, MultiHeadAttention, attention, attention_cost


def test_one_head_at_n_1000_holds_a_million_scores_and_64_million_multiply_adds():
    cost = attention_cost(1000, d_k=64, heads=1)
    assert cost.scores == 1_000_000
    assert cost.score_macs == 64_000_000
    assert cost.mix_macs == 64_000_000  # d_v defaults to d_k
    assert cost.macs == 128_000_000


def test_eight_heads_spend_512_million_multiply_adds_on_the_scores():
    assert attention_cost(1000, d_k=64, heads=8).score_macs == 512_000_000


def test_six_layers_of_eight_heads_keep_48_million_scores_in_192_mb_of_float32():
    cost = attention_cost(1000, d_k=64, heads=8, layers=6)
    assert cost.scores == 48_000_000
    assert cost.score_bytes("float32") == 192_000_000
    assert cost.score_bytes(np.float64) == 384_000_000


def test_defaults_m_is_n_and_d_v_is_d_k_and_the_result_is_frozen():
    cost = attention_cost(10)
    assert isinstance(cost, AttentionCost)
    assert (cost.n, cost.m, cost.d_k, cost.d_v, cost.heads, cost.layers) == (10, 10, 64, 64, 8, 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        cost.scores = 0


def test_cross_attention_counts_are_not_square():
    cost = attention_cost(3, m=5, d_k=4, d_v=2, heads=1)
    assert (cost.scores, cost.score_macs, cost.mix_macs) == (15, 60, 30)


def test_zero_queries_cost_nothing():
    assert attention_cost(0, m=7).scores == 0 and attention_cost(0, m=7).macs == 0


def multiply_adds_by_loop(Q, K, weights, V):
    """Run both products as loops over the actual arrays, counting each multiply-add as it is done."""
    n, d_k = Q.shape
    m, d_v = V.shape
    score_macs = mix_macs = 0
    scores = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            for k in range(d_k):
                scores[i, j] += Q[i, k] * K[j, k]
                score_macs += 1
    output = np.zeros((n, d_v))
    for i in range(n):
        for c in range(d_v):
            for j in range(m):
                output[i, c] += weights[i, j] * V[j, c]
                mix_macs += 1
    np.testing.assert_allclose(scores, Q @ K.T, rtol=1e-12, atol=1e-12)  # the loops did the real products
    np.testing.assert_allclose(output, weights @ V, rtol=1e-12, atol=1e-12)
    return score_macs, mix_macs


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 5), st.integers(1, 5), st.integers(1, 4), st.integers(1, 4), st.integers(1, 3))
def test_counts_equal_what_the_arrays_of_one_layer_hold(n, m, d_k, d_v, heads):
    rng = np.random.default_rng(0)
    Q = rng.normal(size=(heads, n, d_k))
    K = rng.normal(size=(heads, m, d_k))
    V = rng.normal(size=(heads, m, d_v))
    _, weights = attention(Q, K, V, return_weights=True)
    cost = attention_cost(n, m=m, d_k=d_k, d_v=d_v, heads=heads)
    assert cost.scores == weights.size
    assert cost.score_bytes("float32") == weights.astype(np.float32).nbytes
    per_head = [multiply_adds_by_loop(Q[h], K[h], weights[h], V[h]) for h in range(heads)]
    assert cost.score_macs == sum(s for s, _ in per_head)
    assert cost.mix_macs == sum(x for _, x in per_head)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 4), st.integers(1, 4), st.sampled_from([1, 2, 4]), st.integers(1, 3))
def test_scores_of_a_stack_of_layers_equal_the_weights_a_forward_pass_keeps(n, m, heads, layers):
    d_model = 8
    rng = np.random.default_rng(1)
    x_q, x_kv = rng.normal(size=(n, d_model)), rng.normal(size=(m, d_model))
    kept = []
    for layer in range(layers):  # cross-attention layers: every layer keeps its (heads, n, m) weights
        x_q, weights = MultiHeadAttention(d_model, heads, rng=layer)(x_q, x_kv, return_weights=True)
        kept.append(weights)
    d_k = d_model // heads
    cost = attention_cost(n, m=m, d_k=d_k, heads=heads, layers=layers)
    assert cost.scores == sum(w.size for w in kept)
    assert cost.score_bytes("float64") == sum(w.nbytes for w in kept)


def test_score_macs_match_the_flops_einsum_counts_for_q_k_transpose():
    # np.einsum_path reports the naive FLOP count of the contraction: one multiply and one add per term.
    n, m, d_k = 6, 5, 3
    Q, K = np.ones((n, d_k)), np.ones((m, d_k))
    report = np.einsum_path("ik,jk->ij", Q, K, optimize="greedy")[1]
    naive = next(line for line in report.splitlines() if "Naive FLOP count" in line)  # "...:  1.800e+02"
    flops = float(naive.split(":")[1])
    assert attention_cost(n, m=m, d_k=d_k, heads=1).score_macs * 2 == flops


# --- timing: the ratios 08 prints must not depend on how many cores the BLAS spreads over -------------------------


def _blas_threads():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    return [pool["num_threads"] for pool in threadpoolctl.threadpool_info() if pool["user_api"] == "blas"]


def test_best_time_runs_the_function_with_one_blas_thread_and_restores_the_pool():
    from attn_lib.cost import best_time

    before = _blas_threads()
    seen = []
    best_time(lambda: seen.append(_blas_threads()), repeats=2)
    assert seen and all(threads == [1] * len(before) for threads in seen), seen
    assert _blas_threads() == before


def test_one_blas_thread_is_a_context_that_limits_the_pool():
    from attn_lib.cost import one_blas_thread

    before = _blas_threads()
    with one_blas_thread():
        assert _blas_threads() == [1] * len(before)
    assert _blas_threads() == before


def test_best_time_keeps_the_fastest_call():
    import time

    from attn_lib.cost import best_time

    delays = iter([0.05, 0.0, 0.0])
    assert best_time(lambda: time.sleep(next(delays)), repeats=3) < 0.04


def test_best_time_rejects_a_repeat_count_below_one():
    from attn_lib.cost import best_time

    with pytest.raises(ValueError, match="repeats must be at least 1"):
        best_time(lambda: None, repeats=0)


def test_the_counts_follow_from_the_sizes_and_cannot_disagree_with_them():
    """scores, score_macs and mix_macs are derived from n, m, d_k, d_v, heads and layers, not stored beside them."""
    cost = AttentionCost(n=3, m=5, d_k=4, d_v=2, heads=2, layers=3)
    assert (cost.scores, cost.score_macs, cost.mix_macs) == (3 * 5 * 2 * 3, 3 * 5 * 2 * 3 * 4, 3 * 5 * 2 * 3 * 2)
    assert cost == attention_cost(3, 5, d_k=4, d_v=2, heads=2, layers=3)
    with pytest.raises(TypeError):
        AttentionCost(n=3, m=5, d_k=4, d_v=2, heads=2, layers=3, scores=1)
