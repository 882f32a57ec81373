"""Validation shared by every public function (attn_lib/_checks.py): arrays that are not what they must be get an
error that names the argument, says what was expected and what was received."""

import re

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
    with pytest.raises(TypeError, match=rf"^{name} must hold {holds}; got {kind} \(dtype {re.escape(str(TIMES[kind].dtype))}\)"):
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
