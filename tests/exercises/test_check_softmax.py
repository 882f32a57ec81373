"""check_softmax against tables of hand-written learner answers: every wrong answer gets its own mistake id, every
right-but-unusual answer passes."""

import math

import numpy as np
import pytest

import attn_lib
from attn_lib.exercises import check_softmax

from softmax_styles import softmax_float32, softmax_logsumexp, softmax_naive, softmax_right


def softmax_loops(x):
    x = np.asarray(x, dtype=float)
    out = np.empty_like(x)
    for idx in np.ndindex(x.shape[:-1]):
        row = x[idx]
        biggest = max(row)
        exps = [math.exp(v - biggest) for v in row]
        total = sum(exps)
        out[idx] = [v / total for v in exps]
    return out


def softmax_reshape_2d(x):
    flat = x.reshape(-1, x.shape[-1])
    e = np.exp(flat - flat.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).reshape(x.shape)


def softmax_apply_along_axis(x):
    def one(row):
        e = np.exp(row - row.max())
        return e / e.sum()

    return np.apply_along_axis(one, -1, x)


def softmax_none_indexing(x):
    e = np.exp(x - x.max(axis=-1)[..., None])
    return e / e.sum(axis=-1)[..., None]


def softmax_moveaxis(x):
    xt = np.moveaxis(x, -1, 0)  # keys first
    e = np.exp(xt - xt.max(axis=0))
    return np.moveaxis(e / e.sum(axis=0), 0, -1)


def softmax_divide_by_max_exp(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    total = np.add.reduce(e, axis=-1, keepdims=True)
    return np.divide(e, total)


def softmax_tanh_free_log(x):
    # log-softmax then exp: exp(x - logsumexp(x))
    from numpy import logaddexp

    lse = logaddexp.reduce(x, axis=-1, keepdims=True)
    return np.exp(x - lse)


def softmax_inplace_copy(x):
    y = np.array(x, dtype=float, copy=True)
    y -= y.max(axis=-1, keepdims=True)
    np.exp(y, out=y)
    y /= y.sum(axis=-1, keepdims=True)
    return y


def softmax_returns_list(x):
    return softmax_right(x).tolist()


def softmax_float16_small_safe(x):  # float64 compute, float32 result
    return softmax_right(x).astype(np.float32)


SOFTMAX_RIGHT = [softmax_right, softmax_logsumexp, softmax_float32, softmax_loops, softmax_reshape_2d,
                 softmax_apply_along_axis, softmax_none_indexing, softmax_moveaxis, softmax_divide_by_max_exp,
                 softmax_tanh_free_log, softmax_inplace_copy, softmax_returns_list, softmax_float16_small_safe]


@pytest.mark.parametrize("fn", SOFTMAX_RIGHT, ids=lambda f: f.__name__)
def test_right_but_unusual_softmax_passes(fn):
    feedback = check_softmax(fn)
    assert feedback.passed, feedback
    assert "all 9 cases" in feedback.reason


def log_softmax(x):
    shifted = x - x.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def infinities_to_zero(x):
    x = np.where(np.isinf(x), 0.0, x)  # "clean" the infinities before exp
    return softmax_right(x)


def rows_loop_2d(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):  # assumes x is 2-D: on a batch x[i] is a whole matrix
        e = np.exp(x[i] - x[i].max())
        out[i] = e / e.sum()
    return out


def axis1(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


SOFTMAX_MISTAKES = {
    "naive-overflow": (softmax_naive, "right on small scores"),
    "softmax-wrong-axis": (
        lambda x: np.exp(x - x.max(axis=0)) / np.exp(x - x.max(axis=0)).sum(axis=0),
        "down each column",
    ),
    "softmax-whole-matrix": (lambda x: np.exp(x - x.max()) / np.sum(np.exp(x - x.max())), "whole array"),
    "no-keepdims": (lambda x: np.exp(x - x.max(axis=-1, keepdims=True))
                    / np.exp(x - x.max(axis=-1, keepdims=True)).sum(axis=-1), "lost its axis"),
    "max-wrong-axis": (lambda x: np.exp(x - x.max(axis=0, keepdims=True))
                       / np.exp(x - x.max(axis=0, keepdims=True)).sum(axis=-1, keepdims=True),
                       "each column's maximum"),
    "global-max": (lambda x: np.exp(x - x.max()) / np.exp(x - x.max()).sum(axis=-1, keepdims=True),
                   "one maximum shared by all queries"),
    "subtract-min": (lambda x: np.exp(x - x.min(axis=-1, keepdims=True))
                     / np.exp(x - x.min(axis=-1, keepdims=True)).sum(axis=-1, keepdims=True), "minimum"),
    "no-division": (lambda x: np.exp(x - x.max(axis=-1, keepdims=True)), "without dividing"),
    "axis-1-on-batch": (axis1, "axis=1"),
    "uniform-weights": (lambda x: np.ones_like(x) / x.shape[-1], "uniform"),
    "no-batch": (rows_loop_2d, "leading (batch) axes"),
    "used-attn-lib": (lambda x: attn_lib.softmax(x), "attn_lib.softmax"),
    "wrong-shape": (lambda x: softmax_right(x)[..., :-1], "shape of the scores"),
    "negative-weights": (log_softmax, "none can be negative"),
    "rows-not-one": (lambda x: 1 / (1 + np.exp(-x)), "not 1"),
    "neg-inf-not-zero": (infinities_to_zero, "exp(-inf) = 0"),
    "not-shift-invariant": (lambda x: softmax_right(x ** 3), "Adding 3 to every score"),
    "wrong-values": (lambda x: softmax_right(2 * x), "largest difference"),
}


@pytest.mark.parametrize("mistake", sorted(SOFTMAX_MISTAKES))
def test_softmax_mistake_is_recognised(mistake):
    fn, phrase = SOFTMAX_MISTAKES[mistake]
    feedback = check_softmax(fn)
    assert not feedback.passed
    assert feedback.mistake == mistake, feedback
    assert phrase in feedback.reason


def test_softmax_mistakes_get_distinct_reasons():
    feedbacks = [check_softmax(fn) for fn, _ in SOFTMAX_MISTAKES.values()]
    assert len({f.mistake for f in feedbacks}) == len(SOFTMAX_MISTAKES)
    assert len({f.reason for f in feedbacks}) == len(SOFTMAX_MISTAKES)


@pytest.mark.parametrize(
    "fn, mistake",
    [
        (lambda x: np.exp(x - x.max(axis=1, keepdims=True)) / np.exp(x - x.max(axis=1, keepdims=True)).sum(
            axis=-1, keepdims=True), "axis-1-on-batch"),  # max along axis 1, sum along -1
        (lambda x: np.exp(x - x.max(axis=-2, keepdims=True)) / np.exp(x - x.max(axis=-2, keepdims=True)).sum(
            axis=-2, keepdims=True), "softmax-wrong-axis"),
        (lambda x: np.exp(x), "no-division"),
        (lambda x: softmax_right(x) * 1.001, "rows-not-one"),
        (lambda x: np.exp(x - x.max(axis=-1, keepdims=True)) / np.exp(x).sum(axis=-1, keepdims=True),
         "wrong-values"),  # divides by the unshifted sum: exp(-max) too small, and inf on large scores
    ],
    ids=["max-axis-1", "axis-minus-2", "bare-exp", "almost-one", "mixed-shift"],
)
def test_softmax_other_spellings(fn, mistake):
    feedback = check_softmax(fn)
    assert not feedback.passed
    if mistake != "wrong-values":
        assert feedback.mistake == mistake, feedback


def test_naive_softmax_feedback_says_small_cases_pass_and_large_fail():
    feedback = check_softmax(softmax_naive)
    assert "right on small scores" in feedback.reason and "near 1000" in feedback.reason
    assert "maximum" in feedback.hint


def test_naive_softmax_over_wrong_axis_names_the_axis_and_the_overflow():
    feedback = check_softmax(lambda x: np.exp(x) / np.exp(x).sum(axis=0))
    assert feedback.mistake == "softmax-wrong-axis"
    assert "Also, on a 3 x 4 array of scores near 1000 your answer has NaN or inf" in feedback.reason


@pytest.mark.parametrize("mistake", ["global-max", "subtract-min"])
def test_numerical_mistakes_get_no_second_overflow_note(mistake):
    assert "Also, on" not in check_softmax(SOFTMAX_MISTAKES[mistake][0]).reason


def test_float32_softmax_that_is_wrong_says_how_many_digits_agree():
    def nudged(x):  # float32, weight 0 of each row raised by 0.01 %, then renormalised
        w = softmax_float32(x)
        w[..., 0] *= np.float32(1.0001)
        return w / w.sum(axis=-1, keepdims=True)

    feedback = check_softmax(nudged)
    assert not feedback.passed
    assert "significant digits" in feedback.reason and "rounding" in feedback.reason


def test_wrong_value_is_printed_with_digits_that_differ():
    def nudged(x):
        w = softmax_right(x) * (1 + 3e-4 * (np.arange(x.shape[-1]) == 0))
        return w / w.sum(axis=-1, keepdims=True)

    feedback = check_softmax(nudged)
    reason = feedback.reason
    got, want = reason.split(" of your weights is ")[1].split(" where it should be ")
    assert got != want.split(";")[0]


# ----------------------------------------------------------------------------------------------- findings


def test_row_maximum_then_one_sum_for_the_whole_array_is_softmax_whole_matrix():
    def whole_sum(x):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum()

    assert check_softmax(whole_sum).mistake == "softmax-whole-matrix"


def test_one_maximum_per_matrix_is_global_max_not_overflow():
    def per_matrix(x):
        e = np.exp(x - x.max(axis=(-2, -1), keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    assert check_softmax(per_matrix).mistake == "global-max"


def _rows_of_2d(x):  # a 2-D softmax written with axis=1
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_a_loop_over_one_batch_axis_is_no_batch():
    # 1-D, 2-D, or exactly one leading axis: wrong with two leading axes, which the problem promises.
    def one_batch_axis(x):
        if x.ndim == 1:
            return _rows_of_2d(x[None])[0]
        return _rows_of_2d(x) if x.ndim == 2 else np.array([_rows_of_2d(m) for m in x])

    feedback = check_softmax(one_batch_axis)
    assert feedback.mistake == "no-batch", feedback
    assert "two leading axes" in feedback.reason


def test_a_numpy_masked_array_is_masked_array():
    def masked_array_softmax(x):
        x = np.ma.masked_invalid(x)  # -inf entries masked: they print as --, but hold other numbers
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    feedback = check_softmax(masked_array_softmax)
    assert feedback.mistake == "masked-array", feedback
    assert "blocked weights 0" in feedback.reason
