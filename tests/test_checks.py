"""Validation shared by every public function (attn_lib/_checks.py): arrays that are not what they must be get an
error that names the argument, says what was expected and what was received."""

import re

import numpy as np
import pytest

from three_functions import EVERY_QKV, K, Q, V, d_k, d_v, m, n

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


class TensorRequiringGrad:
    """Behaves like a PyTorch tensor with requires_grad=True: numpy cannot read it without a detach."""

    requires_grad = True
    shape = (2, 2)

    def __array__(self, dtype=None, copy=None):
        raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")


ONES = np.ones((2, 2))


@pytest.mark.parametrize("call, name", [
    (lambda t: attention(t, ONES, ONES), "Q"),
    (lambda t: chunked_attention(ONES, t, ONES), "K"),
    (lambda t: attention_backward(ONES, ONES, t, ONES), "V"),
    (lambda t: attention_backward(ONES, ONES, ONES, t), "grad_output"),
    (lambda t: scaled_scores(t, ONES), "Q"),
    (lambda t: softmax(t), "x"),
    (lambda t: attention(ONES, ONES, ONES, mask=t), "mask"),
    (lambda t: padding_mask(t, 4), "lengths"),
    (lambda t: MultiHeadAttention(d_model=2, heads=1, rng=0)(t), "x_q"),
])
def test_a_tensor_that_requires_grad_is_refused_with_how_to_pass_an_array(call, name):
    with pytest.raises(TypeError, match=rf"^{name} is a tensor that requires grad: pass an array, e\.g\. "
                                        rf"{name}\.detach\(\)\.numpy\(\)"):
        call(TensorRequiringGrad())


TIMES = {"durations": np.ones((2, 2), "timedelta64[s]"), "dates and times": np.ones((2, 2)).astype("datetime64[s]")}


@pytest.mark.parametrize("kind", TIMES)
@pytest.mark.parametrize("call, name", [
    (lambda t: attention(t, ONES, ONES), "Q"),
    (lambda t: chunked_attention(ONES, ONES, t), "V"),
    (lambda t: attention_backward(ONES, ONES, ONES, t), "grad_output"),
    (lambda t: softmax(t), "x"),
    (lambda t: MultiHeadAttention(d_model=2, heads=1, rng=0)(t), "x_q"),
    (lambda t: padding_mask(t[0], 4), "lengths"),
])
def test_times_and_durations_are_not_numbers_here(call, name, kind):
    holds = "integers" if name == "lengths" else "real numbers"
    dtype = re.escape(str(TIMES[kind].dtype))
    with pytest.raises(TypeError, match=rf"^{name} must hold {holds}; got {kind} \(dtype {dtype}\)"):
        call(TIMES[kind])


@pytest.mark.parametrize("call, name", [
    (lambda t: attention(ONES, ONES, ONES, scale=t), "scale"),
    (lambda t: chunked_attention(ONES, ONES, ONES, chunk_size=t), "chunk_size"),
    (lambda t: causal_mask(t), "n"),
    (lambda t: attention_cost(t), "n"),
])
@pytest.mark.parametrize("value", [np.timedelta64(2, "s"), np.datetime64(2, "s")], ids=["timedelta", "datetime"])
def test_a_time_or_duration_is_not_a_size_or_a_scale(call, name, value):
    with pytest.raises(TypeError, match=rf"^{name} must be "):
        call(value)


@EVERY_QKV
def test_widths_of_q_and_k_differ(fn):
    with pytest.raises(ValueError, match=r"K has d_k=4 but Q has d_k=5: queries and keys must share their width"):
        fn(Q, K[:, :4], V)


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


def test_check_scale_only_validates_and_leaves_the_default_to_the_equation():
    from attn_lib._checks import check_scale

    assert check_scale(None) is None and check_scale(2) == 2.0
    with pytest.raises(ValueError, match="scale"):
        check_scale(-1.0)
