"""MultiHeadAttention against a per-head loop written by hand: project, attend, concatenate the heads, apply W_o."""

import numpy as np
import pytest
from attention_by_hand import attention_by_hand

from attn_lib import MultiHeadAttention, causal_mask


def multihead_by_hand(mha, x_q, x_kv, mask=None):
    """Each head with explicit loops, then the heads' outputs side by side, then W_o. 2-D inputs only."""
    n = x_q.shape[0]
    heads_out = []
    for h in range(mha.heads):
        Q = np.array([[sum(x_q[i, c] * mha.W_q[h, c, k] for c in range(mha.d_model)) for k in range(mha.d_k)]
                      for i in range(n)])
        K = np.array([[sum(x_kv[j, c] * mha.W_k[h, c, k] for c in range(mha.d_model)) for k in range(mha.d_k)]
                      for j in range(x_kv.shape[0])])
        V = np.array([[sum(x_kv[j, c] * mha.W_v[h, c, k] for c in range(mha.d_model)) for k in range(mha.d_v)]
                      for j in range(x_kv.shape[0])])
        heads_out.append(attention_by_hand(Q, K, V, mask=mask)[0])  # (n, d_v)
    concat = [[value for head in heads_out for value in head[i]] for i in range(n)]  # (n, heads * d_v)
    width = mha.heads * mha.d_v
    return np.array([[sum(concat[i][c] * mha.W_o[c, o] for c in range(width)) for o in range(mha.d_model)]
                     for i in range(n)])


def test_weight_shapes_and_default_widths_follow_the_paper():
    mha = MultiHeadAttention()  # the base model: d_model = 512, 8 heads
    assert (mha.d_model, mha.heads, mha.d_k, mha.d_v) == (512, 8, 64, 64)
    assert mha.W_q.shape == mha.W_k.shape == (8, 512, 64)
    assert mha.W_v.shape == (8, 512, 64)
    assert mha.W_o.shape == (512, 512)
    assert mha.W_q[0].size == 32_768  # one head's query projection


def test_explicit_d_k_and_d_v_give_their_own_shapes():
    mha = MultiHeadAttention(d_model=12, heads=3, d_k=2, d_v=5, rng=0)
    assert mha.W_q.shape == mha.W_k.shape == (3, 12, 2)
    assert mha.W_v.shape == (3, 12, 5)
    assert mha.W_o.shape == (15, 12)
    # With both widths given, heads need not divide d_model.
    assert MultiHeadAttention(d_model=10, heads=3, d_k=4, d_v=4, rng=0).W_o.shape == (12, 10)


def test_the_same_seed_gives_the_same_weights():
    a, b = MultiHeadAttention(8, 2, rng=5), MultiHeadAttention(8, 2, rng=np.random.default_rng(5))
    np.testing.assert_array_equal(a.W_q, b.W_q)
    assert not np.array_equal(a.W_q, MultiHeadAttention(8, 2, rng=6).W_q)


def test_self_attention_matches_the_per_head_loop():
    mha = MultiHeadAttention(d_model=6, heads=3, rng=1)
    x = np.random.default_rng(2).normal(size=(4, 6))
    output = mha(x)
    assert output.shape == (4, 6)
    np.testing.assert_allclose(output, multihead_by_hand(mha, x, x), rtol=1e-11, atol=1e-13)


def test_cross_attention_with_n_not_equal_to_m_and_unequal_head_widths():
    mha = MultiHeadAttention(d_model=4, heads=2, d_k=3, d_v=1, rng=3)
    rng = np.random.default_rng(4)
    x_q, x_kv = rng.normal(size=(2, 4)), rng.normal(size=(5, 4))  # n = 2 queries, m = 5 keys
    output, weights = mha(x_q, x_kv, return_weights=True)
    assert output.shape == (2, 4) and weights.shape == (2, 2, 5)  # (n, d_model), (heads, n, m)
    np.testing.assert_allclose(output, multihead_by_hand(mha, x_q, x_kv), rtol=1e-11, atol=1e-13)


def test_one_mask_is_shared_by_every_head():
    mha = MultiHeadAttention(d_model=6, heads=2, rng=7)
    x = np.random.default_rng(8).normal(size=(4, 6))
    mask = causal_mask(4)
    output, weights = mha(x, mask=mask, return_weights=True)
    for h in range(2):
        assert (weights[h][~mask] == 0).all()
    np.testing.assert_allclose(output, multihead_by_hand(mha, x, x, mask=mask), rtol=1e-11, atol=1e-13)


def test_batched_inputs_with_a_padding_mask_match_each_sequence_alone():
    mha = MultiHeadAttention(d_model=4, heads=2, rng=9)
    x = np.random.default_rng(10).normal(size=(2, 3, 4))  # (batch, n, d_model)
    mask = np.array([[[True, True, False]], [[True, True, True]]])  # (batch, 1, m)
    output = mha(x, mask=mask)
    assert output.shape == (2, 3, 4)
    for b in range(2):
        np.testing.assert_allclose(output[b], multihead_by_hand(mha, x[b], x[b], mask=mask[b]), rtol=1e-11,
                                   atol=1e-13)


@pytest.mark.parametrize("dtype, expected", [(np.float32, np.float32), (np.float64, np.float64), (int, np.float64)])
def test_output_dtype_follows_the_input(dtype, expected):
    mha = MultiHeadAttention(d_model=4, heads=2, rng=0)
    assert mha(np.ones((3, 4), dtype=dtype)).dtype == expected


def test_repr_names_the_sizes():
    assert repr(MultiHeadAttention(8, 2, rng=0)) == "MultiHeadAttention(d_model=8, heads=2, d_k=4, d_v=4)"


@pytest.mark.parametrize("rng, error", [("abc", TypeError), (1.5, TypeError), (-1, ValueError), (True, TypeError)])
def test_rng_that_is_not_a_seed_or_a_generator_is_refused_naming_rng(rng, error):
    with pytest.raises(error, match=r"^rng must be None, a non-negative integer seed or a numpy.random.Generator; got"):
        MultiHeadAttention(d_model=8, heads=2, rng=rng)


def test_rng_accepts_a_seed_a_numpy_integer_and_a_generator():
    by_seed = MultiHeadAttention(d_model=8, heads=2, rng=3)
    np.testing.assert_array_equal(MultiHeadAttention(d_model=8, heads=2, rng=np.int64(3)).W_q, by_seed.W_q)
    np.testing.assert_array_equal(MultiHeadAttention(d_model=8, heads=2, rng=np.random.default_rng(3)).W_q,
                                  by_seed.W_q)


def test_heads_not_dividing_d_model():
    with pytest.raises(ValueError, match=r"heads=3 does not divide d_model=10"):
        MultiHeadAttention(d_model=10, heads=3)


@pytest.mark.parametrize("x_q, x_kv, name, width, shape", [
    (np.ones((3, 8)), None, "x_q", 8, r"\(3, 8\)"),
    (np.ones((3, 16)), np.ones((4, 12)), "x_kv", 12, r"\(4, 12\)"),
])
def test_wrong_input_width_to_multihead(x_q, x_kv, name, width, shape):
    mha = MultiHeadAttention(d_model=16, heads=4, rng=0)
    with pytest.raises(ValueError, match=rf"{name} has width {width} but this MultiHeadAttention has d_model=16; "
                                          rf"expected shape \(\.\.\., n, 16\), got {shape}"):
        mha(x_q, x_kv)


def test_multihead_mask_errors_speak_of_the_callers_shapes():
    mha = MultiHeadAttention(d_model=8, heads=2, rng=0)
    with pytest.raises(ValueError, match=r"mask of shape \(2, 2\) does not broadcast to the scores' shape \(3, 4\)"):
        mha(np.ones((3, 8)), np.ones((4, 8)), mask=np.ones((2, 2), dtype=bool))
    with pytest.raises(ValueError, match=r"mask blocks every key for query row 0"):
        mha(np.ones((3, 8)), mask=~causal_mask(3).T)
    expected = r"batch axes do not broadcast: x_q has batch shape \(2,\), x_kv has batch shape \(3,\)"
    with pytest.raises(ValueError, match=expected):
        mha(np.ones((2, 3, 8)), np.ones((3, 4, 8)))


def test_the_model_and_training_draw_their_parameters_one_way():
    from attn_lib.training import init_parameters

    model = MultiHeadAttention(d_model=12, heads=3, d_k=4, d_v=5, rng=7)
    trained = init_parameters(np.random.default_rng(7), d_model=12, heads=3, d_k=4, d_v=5)
    for name in ("W_q", "W_k", "W_v"):
        np.testing.assert_array_equal(getattr(model, name), trained[name])
    assert model.W_o.shape == (15, 12) and trained["W_o"].shape == (15, 10)
