"""Every bad input gets a clear error naming the argument, what was expected and what was received."""

import numpy as np
import pytest

from attn_lib import (
    MultiHeadAttention,
    attention,
    attention_backward,
    attention_cost,
    causal_mask,
    chunked_attention,
    padding_mask,
    scaled_scores,
    softmax,
)

rng = np.random.default_rng(3)
n, m, d_k, d_v = 3, 4, 5, 2
Q, K, V = rng.normal(size=(n, d_k)), rng.normal(size=(m, d_k)), rng.normal(size=(m, d_v))


def run_attention(Q, K, V, **kw):
    return attention(Q, K, V, **kw)


def run_chunked(Q, K, V, **kw):
    return chunked_attention(Q, K, V, chunk_size=2, **kw)


def run_backward(Q, K, V, **kw):
    # A gradient of the output's shape where that shape exists, so that only the error under test can arise.
    try:
        batch = np.broadcast_shapes(np.shape(Q)[:-2], np.shape(K)[:-2], np.shape(V)[:-2])
        grad = np.ones(batch + (np.shape(Q)[-2], np.shape(V)[-1]))
    except (ValueError, IndexError):
        grad = np.ones((n, d_v))
    return attention_backward(Q, K, V, grad, **kw)


# The three functions that take Q, K, V validate them the same way.
EVERY_QKV = pytest.mark.parametrize("fn", [run_attention, run_chunked, run_backward],
                                    ids=["attention", "chunked_attention", "attention_backward"])


@EVERY_QKV
def test_widths_of_q_and_k_differ(fn):
    with pytest.raises(ValueError, match=r"K has d_k=4 but Q has d_k=5: queries and keys must share their width"):
        fn(Q, K[:, :4], V)


def test_scaled_scores_widths_differ():
    with pytest.raises(ValueError, match=r"K has d_k=32 but Q has d_k=64"):
        scaled_scores(np.ones((2, 64)), np.ones((3, 32)))


@EVERY_QKV
def test_lengths_of_k_and_v_differ(fn):
    with pytest.raises(ValueError, match=r"V has 3 rows but K has m=4: each key needs exactly one value"):
        fn(Q, K, V[:3])


@EVERY_QKV
@pytest.mark.parametrize("which", ["Q", "K", "V"])
def test_fewer_than_two_dimensions(fn, which):
    args = {"Q": Q, "K": K, "V": V}
    args[which] = args[which][0]  # a single row: 1-D
    expected = rf"{which} must have at least 2 dimensions .*got shape \(\d+,\) \(1 dimension\)"
    with pytest.raises(ValueError, match=expected):
        fn(args["Q"], args["K"], args["V"])


@EVERY_QKV
def test_batch_axes_that_do_not_broadcast(fn):
    expected = r"batch axes do not broadcast: Q has batch shape \(2,\), K has batch shape \(3,\)"
    with pytest.raises(ValueError, match=expected):
        fn(np.ones((2, n, d_k)), np.ones((3, m, d_k)), V)


@EVERY_QKV
@pytest.mark.parametrize("shape", [(n, m + 1), (n + 1, m), (2, n, m, 1), (m, n)])
def test_mask_of_the_wrong_shape(fn, shape):
    with pytest.raises(ValueError, match=rf"mask of shape \({shape[0]}, .*does not broadcast to the scores' shape"):
        fn(Q, K, V, mask=np.ones(shape, dtype=bool))


@EVERY_QKV
def test_mask_with_one_dimension(fn):
    expected = r"mask must have at least 2 dimensions \(\.\.\., n, m\) with n=3, m=4; got shape \(4,\)"
    with pytest.raises(ValueError, match=expected):
        fn(Q, K, V, mask=np.ones(m, dtype=bool))


@EVERY_QKV
@pytest.mark.parametrize("mask", [np.ones((n, m)), np.zeros((n, m), dtype=int),
                                  np.where(causal_mask(n, m), 0.0, -np.inf)])  # the last: an additive mask
def test_mask_that_is_not_boolean(fn, mask):
    expected = r"mask must be boolean, True where the query may attend .*got dtype (float64|int64)"
    with pytest.raises(TypeError, match=expected):
        fn(Q, K, V, mask=mask)


@EVERY_QKV
@pytest.mark.parametrize("which", ["Q", "K", "V"])
@pytest.mark.parametrize("bad, word", [(np.nan, "NaN"), (np.inf, "an infinite value"), (-np.inf, "an infinite value")])
def test_nan_or_inf_in_any_input(fn, which, bad, word):
    args = {"Q": Q.copy(), "K": K.copy(), "V": V.copy()}
    args[which][1, 1] = bad
    with pytest.raises(ValueError, match=rf"{which} contains {word} at index \(1, 1\): every entry must be finite"):
        fn(args["Q"], args["K"], args["V"])


@pytest.mark.parametrize("bad, word", [(np.nan, "NaN"), (np.inf, "an infinite value")])
def test_nan_or_inf_in_grad_output(bad, word):
    grad = np.ones((n, d_v))
    grad[2, 0] = bad
    with pytest.raises(ValueError, match=rf"grad_output contains {word} at index \(2, 0\)"):
        attention_backward(Q, K, V, grad)


@EVERY_QKV
def test_fully_masked_query_row_names_the_row(fn):
    mask = np.ones((n, m), dtype=bool)
    mask[1] = False
    with pytest.raises(ValueError, match=r"mask blocks every key for query row 1: .*at least one key"):
        fn(Q, K, V, mask=mask)


def test_fully_masked_query_row_names_its_batch_index():
    mask = np.ones((2, n, m), dtype=bool)
    mask[1, 2] = False
    with pytest.raises(ValueError, match=r"mask blocks every key for query row 2 of batch index \(1,\)"):
        attention(Q, K, V, mask=mask)


def test_padding_mask_of_length_zero_blocks_every_query_row():
    with pytest.raises(ValueError, match=r"mask blocks every key for every query row of batch index \(1,\)"):
        attention(np.ones((2, n, d_k)), np.ones((2, m, d_k)), np.ones((2, m, d_v)), mask=padding_mask([2, 0], m))


@EVERY_QKV
def test_no_keys(fn):
    with pytest.raises(ValueError, match=r"K has no keys \(m=0, shape \(0, 5\)\)"):
        fn(Q, np.zeros((0, d_k)), np.zeros((0, d_v)))


@EVERY_QKV
def test_zero_width_queries_and_keys(fn):
    with pytest.raises(ValueError, match=r"Q and K have d_k=0"):
        fn(np.zeros((n, 0)), np.zeros((m, 0)), V)


@EVERY_QKV
@pytest.mark.parametrize("which", ["Q", "K", "V"])
@pytest.mark.parametrize(
    "make, dtype_text",
    [
        (lambda a: a.astype(str), r"dtype <U\d+"),
        (lambda a: a.astype(object), "dtype object"),
        (lambda a: a.astype(complex), "complex dtype complex128"),
        (lambda a: a > 0, "a boolean array"),
    ],
    ids=["str", "object", "complex", "bool"],
)
def test_non_numeric_or_complex_dtypes(fn, which, make, dtype_text):
    args = {"Q": Q, "K": K, "V": V}
    args[which] = make(args[which])
    with pytest.raises(TypeError, match=rf"{which} must hold real numbers; got {dtype_text}"):
        fn(args["Q"], args["K"], args["V"])


def test_ragged_nested_list():
    with pytest.raises(ValueError, match=r"Q must be a rectangular array"):
        attention([[1.0, 2.0], [3.0]], K, V)


@EVERY_QKV
@pytest.mark.parametrize("scale, error, shown", [
    (0, ValueError, "0.0"), (-1, ValueError, "-1.0"), (np.nan, ValueError, "nan"), (np.inf, ValueError, "inf"),
    ("a", TypeError, "str 'a'"), (True, TypeError, "bool True"), ([1.0], TypeError, r"list \[1.0\]"),
])
def test_scale_that_is_not_a_positive_finite_number(fn, scale, error, shown):
    with pytest.raises(error, match=rf"scale must be a positive finite number; got {shown}"):
        fn(Q, K, V, scale=scale)


def test_scaled_scores_bad_scale():
    with pytest.raises(ValueError, match=r"scale must be a positive finite number; got -2.0"):
        scaled_scores(Q, K, scale=-2.0)


@EVERY_QKV
@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["to +inf", "to -inf"])
def test_scores_that_overflow_raise_instead_of_giving_nan(fn, sign):
    big = np.full((2, 3), 1e200)
    with pytest.raises(ValueError, match=r"the scores of query row 0 overflowed float64"):
        fn(big, sign * big, np.ones((2, 1)))


def test_float32_scores_that_overflow_name_float32():
    big = np.full((2, 3), 1e20, dtype=np.float32)
    with pytest.raises(ValueError, match=r"overflowed float32 \(largest finite value 3.4e\+38\)"):
        attention(big, big, np.ones((2, 1), dtype=np.float32))
    with pytest.raises(ValueError, match=r"overflowed float32"):
        scaled_scores(big, big)


# softmax


def test_softmax_all_minus_inf_slice_says_every_entry_is_masked_and_where():
    x = np.zeros((3, 4))
    x[1] = -np.inf
    with pytest.raises(ValueError, match=r"every entry of x\[1, :\] is -inf \(masked\)"):
        softmax(x)
    with pytest.raises(ValueError, match=r"every entry of x\[:, 2\] is -inf"):
        softmax(np.where(np.arange(3)[None, :] == 2, -np.inf, 0.0) * np.ones((4, 1)), axis=0)


def test_softmax_nan_and_plus_inf():
    with pytest.raises(ValueError, match=r"x contains NaN at index \(0, 2\): softmax of NaN is undefined"):
        softmax([[0.0, 1.0, np.nan]])
    with pytest.raises(ValueError, match=r"x contains \+inf at index \(1,\)"):
        softmax([0.0, np.inf])


def test_softmax_bad_dtype_and_axis():
    with pytest.raises(TypeError, match=r"x must hold real numbers; got dtype complex128"):
        softmax(np.ones(3, dtype=complex))
    with pytest.raises(TypeError, match=r"x must hold real numbers; got dtype <U1"):
        softmax(["a", "b"])
    with pytest.raises(ValueError, match=r"axis 2 is out of range for x with 2 dimension"):
        softmax(np.ones((2, 3)), axis=2)
    with pytest.raises(TypeError, match=r"axis must be an integer; got float 1.0"):
        softmax(np.ones((2, 3)), axis=1.0)
    with pytest.raises(ValueError, match=r"x must have at least 1 dimension; got a scalar"):
        softmax(3.0)


# sizes


@pytest.mark.parametrize("call, name, value", [
    (lambda: causal_mask(-1), "n", -1),
    (lambda: causal_mask(2, -3), "m", -3),
    (lambda: padding_mask([1, 2], -1), "m", -1),
    (lambda: attention_cost(-5), "n", -5),
    (lambda: attention_cost(4, m=-1), "m", -1),
    (lambda: attention_cost(4, d_k=-64), "d_k", -64),
    (lambda: attention_cost(4, d_v=-2), "d_v", -2),
])
def test_negative_size(call, name, value):
    with pytest.raises(ValueError, match=rf"^{name} must be non-negative; got {value}$"):
        call()


@pytest.mark.parametrize("call, name", [
    (lambda: attention_cost(4, heads=0), "heads"),
    (lambda: attention_cost(4, layers=0), "layers"),
    (lambda: chunked_attention(Q, K, V, chunk_size=0), "chunk_size"),
    (lambda: chunked_attention(Q, K, V, chunk_size=-3), "chunk_size"),
    (lambda: MultiHeadAttention(d_model=0), "d_model"),
    (lambda: MultiHeadAttention(d_model=8, heads=0), "heads"),
])
def test_size_below_one(call, name):
    with pytest.raises(ValueError, match=rf"^{name} must be at least 1; got -?\d+$"):
        call()


@pytest.mark.parametrize("call, name, shown", [
    (lambda: causal_mask(2.5), "n", "float 2.5"),
    (lambda: causal_mask(True), "n", "bool True"),
    (lambda: attention_cost("1000"), "n", "str '1000'"),
    (lambda: chunked_attention(Q, K, V, chunk_size=2.0), "chunk_size", "float 2.0"),
])
def test_size_that_is_not_an_integer(call, name, shown):
    with pytest.raises(TypeError, match=rf"{name} must be an integer; got {shown}"):
        call()


def test_padding_mask_bad_lengths():
    with pytest.raises(ValueError, match=r"lengths\[1\] = 5 is outside 0..m = 0..4"):
        padding_mask([2, 5], 4)
    with pytest.raises(ValueError, match=r"lengths\[0\] = -1 is outside"):
        padding_mask([-1], 4)
    with pytest.raises(TypeError, match=r"lengths must hold integers; got dtype float64"):
        padding_mask([1.5], 4)
    with pytest.raises(ValueError, match=r"lengths must be a 1-D sequence of ints \(batch,\); got shape \(\)"):
        padding_mask(3, 4)


# multi-head


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


# backward


@pytest.mark.parametrize("shape", [(n, d_v + 1), (n + 1, d_v), (2, n, d_v), (d_v, n)])
def test_gradient_of_the_wrong_shape(shape):
    got = ", ".join(map(str, shape))
    with pytest.raises(ValueError, match=rf"grad_output must have the output's shape \(3, 2\) \(\.\.\., n, d_v\); "
                                          rf"got \({got}\)"):
        attention_backward(Q, K, V, np.ones(shape))


def test_gradient_with_one_dimension():
    expected = r"grad_output must have at least 2 dimensions \(\.\.\., n, d_v\); got shape \(6,\)"
    with pytest.raises(ValueError, match=expected):
        attention_backward(Q, K, V, np.ones(n * d_v))


def test_gradient_of_the_broadcast_output_shape_is_required():
    # Q (2, n, d_k) with K, V unbatched gives an output (2, n, d_v): a gradient (n, d_v) is not enough.
    with pytest.raises(ValueError, match=r"grad_output must have the output's shape \(2, 3, 2\)"):
        attention_backward(np.ones((2, n, d_k)), K, V, np.ones((n, d_v)))
