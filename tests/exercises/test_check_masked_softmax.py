"""check_masked_softmax against tables of hand-written learner answers: every wrong answer gets its own mistake id,
every right-but-unusual answer passes."""

import math

import numpy as np
import pytest

import attn_lib
from attn_lib.exercises import check_masked_softmax

from softmax_styles import softmax_float32, softmax_logsumexp, softmax_naive, softmax_right


def masked_right(scores, mask):
    return softmax_right(np.where(mask, scores, -np.inf))


def masked_minus_1e9(scores, mask):
    return softmax_right(np.where(mask, scores, -1e9))


def masked_bool_index_broadcast(scores, mask):
    s = np.array(scores, dtype=float)
    s[~np.broadcast_to(mask, s.shape)] = -np.inf
    return softmax_right(s)


def masked_float32(scores, mask):
    return softmax_float32(np.where(mask, scores, -np.inf))


def masked_logsumexp(scores, mask):
    s = np.where(mask, scores, -np.inf)
    m = s.max(axis=-1, keepdims=True)
    return np.exp(s - m - np.log(np.exp(s - m).sum(axis=-1, keepdims=True)))


def masked_exp_times_mask(scores, mask):
    # exp of the scores shifted by the max over allowed keys, zeroed where blocked, divided by the allowed sum
    s = np.where(mask, scores, -np.inf)
    e = np.exp(scores - s.max(axis=-1, keepdims=True)) * mask
    return e / e.sum(axis=-1, keepdims=True)


def masked_loops(scores, mask):
    scores = np.asarray(scores, dtype=float)
    mask = np.broadcast_to(mask, scores.shape)
    out = np.zeros_like(scores)
    for idx in np.ndindex(scores.shape[:-1]):
        allowed = [j for j in range(scores.shape[-1]) if mask[idx][j]]
        biggest = max(scores[idx][j] for j in allowed)
        total = sum(math.exp(scores[idx][j] - biggest) for j in allowed)
        for j in allowed:
            out[idx][j] = math.exp(scores[idx][j] - biggest) / total
    return out


def masked_nan_to_num(scores, mask):
    s = np.where(mask, scores, -np.inf)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return np.nan_to_num(e / e.sum(axis=-1, keepdims=True))


def masked_uses_own_softmax(scores, mask):
    return softmax_logsumexp(np.where(np.logical_not(mask), -np.inf, scores))


def masked_using_attn_lib_softmax(scores, mask):
    return attn_lib.softmax(np.where(mask, scores, -np.inf))


def masked_finfo_min(scores, mask):
    return softmax_right(np.where(mask, scores, np.finfo(np.float64).min))


MASKED_RIGHT = [masked_right, masked_minus_1e9, masked_bool_index_broadcast, masked_float32, masked_logsumexp,
                masked_loops, masked_nan_to_num, masked_uses_own_softmax,
                masked_using_attn_lib_softmax, masked_finfo_min]


@pytest.mark.parametrize("fn", MASKED_RIGHT, ids=lambda f: f.__name__)
def test_right_but_unusual_masked_softmax_passes(fn):
    feedback = check_masked_softmax(fn)
    assert feedback.passed, feedback


def mask_after_inplace(scores, mask):
    weights = softmax_right(scores)
    weights[~np.broadcast_to(mask, weights.shape)] = 0.0
    return weights


def zero_then_renormalise(scores, mask):
    weights = softmax_right(scores) * mask
    return weights / weights.sum(axis=-1, keepdims=True)


def bool_index(scores, mask):
    s = scores.copy()
    s[~mask] = -np.inf
    return softmax_right(s)


MASKED_MISTAKES = {
    "zero-then-renormalise": (zero_then_renormalise, "no blocked score is far above"),
    "mask-after-softmax": (lambda scores, mask: softmax_right(scores) * mask, "after the softmax"),
    "mask-zero": (lambda scores, mask: softmax_right(np.where(mask, scores, 0)), "instead of -inf"),
    "small-fill": (lambda scores, mask: softmax_right(np.where(mask, scores, -10)), "small finite number"),
    "inverted-mask": (lambda scores, mask: softmax_right(np.where(mask, -np.inf, scores)), "wrong way round"),
    "ignored-mask": (lambda scores, mask: softmax_right(scores), "as if there were no mask"),
    "mask-added": (lambda scores, mask: softmax_right(scores + mask), "adds the boolean mask"),
    "boolean-index-broadcast": (bool_index, "broadcasts"),
    "global-max": (lambda scores, mask: np.exp(np.where(mask, scores, -np.inf) - scores.max())
                   / np.exp(np.where(mask, scores, -np.inf) - scores.max()).sum(axis=-1, keepdims=True),
                   "one maximum shared"),
    "axis-1-on-batch": (lambda scores, mask: softmax_axis1(np.where(mask, scores, -np.inf)), "axis=1"),
    "softmax-wrong-axis": (
        lambda scores, mask: np.exp(np.where(mask, scores, -np.inf) - np.where(mask, scores, -np.inf).max(axis=0))
        / np.exp(np.where(mask, scores, -np.inf) - np.where(mask, scores, -np.inf).max(axis=0)).sum(axis=0),
        "down each column",
    ),
    "softmax-whole-matrix": (
        lambda scores, mask: np.exp(np.where(mask, scores, -np.inf) - scores.max())
        / np.exp(np.where(mask, scores, -np.inf) - scores.max()).sum(),
        "whole array",
    ),
    "no-division": (
        lambda scores, mask: np.exp(np.where(mask, scores, -np.inf)
                                    - np.where(mask, scores, -np.inf).max(axis=-1, keepdims=True)),
        "without dividing",
    ),
    "uniform-weights": (lambda scores, mask: np.broadcast_to(mask, scores.shape)
                        / np.broadcast_to(mask, scores.shape).sum(axis=-1, keepdims=True), "uniform"),
    "naive-overflow": (lambda scores, mask: softmax_naive(np.where(mask, scores, -np.inf)), "right on small"),
    "blocked-not-zero": (lambda scores, mask: softmax_right(np.where(mask, scores, -5.0)) + 0 * scores,
                         "must be exactly 0"),
    "wrong-values": (lambda scores, mask: masked_right(2 * scores, mask), "largest difference"),
}


def softmax_axis1(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("mistake", sorted(MASKED_MISTAKES))
def test_masked_softmax_mistake_is_recognised(mistake):
    fn, phrase = MASKED_MISTAKES[mistake]
    feedback = check_masked_softmax(fn)
    assert not feedback.passed
    assert feedback.mistake == mistake, feedback
    assert phrase in feedback.reason


def test_masked_softmax_mistakes_get_distinct_reasons():
    feedbacks = [check_masked_softmax(fn) for fn, _ in MASKED_MISTAKES.values()]
    assert len({f.mistake for f in feedbacks}) == len(MASKED_MISTAKES)
    assert len({f.reason for f in feedbacks}) == len(MASKED_MISTAKES)


@pytest.mark.parametrize(
    "fn, mistake",
    [
        (mask_after_inplace, "mask-after-softmax"),  # not renormalising: the same numbers
        (lambda scores, mask: softmax_right(scores * mask), "mask-zero"),  # multiplying = filling 0
        (lambda scores, mask: softmax_right(np.where(mask, -1e9, scores)), "inverted-mask"),
        (lambda scores, mask: softmax_right(np.where(mask, scores, -100.0)), "small-fill"),
        (lambda scores, mask: softmax_right(np.where(mask, scores, -20)), "small-fill"),
        (lambda scores, mask: (lambda w: w / (w.sum(axis=-1, keepdims=True) + 1e-9))(softmax_right(scores) * mask),
         "zero-then-renormalise"),
        (masked_exp_times_mask, "zero-then-renormalise"),  # inf x 0 where a blocked score is 1000
    ],
    ids=["set-to-zero-after", "times-mask", "inverted-minus-1e9", "fill-minus-100", "fill-minus-20",
         "renormalise-with-eps", "exp-times-mask"],
)
def test_masked_softmax_other_spellings_of_a_mistake(fn, mistake):
    assert check_masked_softmax(fn).mistake == mistake


def test_masked_softmax_fully_masked_row_nan_is_a_note():
    assert "every key of a row is blocked" in check_masked_softmax(masked_right).reason

    def raises_on_empty_rows(scores, mask):
        if not np.broadcast_to(mask, np.shape(scores)).any(axis=-1).all():
            raise ValueError("a row with every key blocked has no softmax")
        return masked_right(scores, mask)

    feedback = check_masked_softmax(raises_on_empty_rows)
    assert feedback.passed and "every key of a row is blocked" not in feedback.reason


def test_nan_from_fully_masked_columns_is_not_called_an_overflow():
    fn = MASKED_MISTAKES["softmax-wrong-axis"][0]  # axis 0: a column with every key blocked is 0/0
    assert "Also, on" not in check_masked_softmax(fn).reason


def test_masked_softmax_calling_attention_is_told_to_write_it():
    def via_attention(scores, mask):
        # weights from attention with one-hot values: Q K^T reproduces the scores when Q = scores, K = I
        m = scores.shape[-1]
        return attn_lib.attention(scores * np.sqrt(m), np.eye(m), np.eye(m), mask=mask)

    assert check_masked_softmax(via_attention).mistake == "used-attn-lib"


# ----------------------------------------------------------------------------------------------- findings


@pytest.mark.parametrize("fill", [-320.0, -500.0, -1000.0, -1e4])
def test_any_finite_fill_a_learner_types_is_small_fill(fill):
    feedback = check_masked_softmax(lambda scores, mask: softmax_right(np.where(mask, scores, fill)))
    assert feedback.mistake == "small-fill", feedback


def test_finfo_min_and_minus_1e9_fills_still_pass():
    assert check_masked_softmax(lambda scores, mask: softmax_right(np.where(mask, scores, -1e9))).passed
    assert check_masked_softmax(lambda scores, mask: softmax_right(
        np.where(mask, scores, np.finfo(np.float64).min))).passed


def shift_by_allowed(statistic):
    def fn(scores, mask):
        allowed = np.where(mask, scores, np.nan)
        e = np.where(mask, np.exp(scores - statistic(allowed, axis=-1, keepdims=True)), 0.0)
        return e / e.sum(axis=-1, keepdims=True)

    return fn


@pytest.mark.parametrize("fn", [shift_by_allowed(np.nanmin), shift_by_allowed(np.nanmean),
                                lambda scores, mask: (lambda x: (lambda e: e / e.sum(axis=-1, keepdims=True))(
                                    np.exp(x - x.min(axis=-1, keepdims=True))))(np.where(mask, scores, -np.inf))],
                         ids=["allowed-min", "allowed-mean", "min-with-inf"])
def test_subtracting_the_row_minimum_or_mean_is_subtract_min(fn):
    feedback = check_masked_softmax(fn)
    assert feedback.mistake == "subtract-min", feedback


def test_maximum_of_the_unmasked_scores_is_max_before_mask():
    def max_before(scores, mask):
        e = np.exp(np.where(mask, scores, -np.inf) - scores.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    feedback = check_masked_softmax(max_before)
    assert feedback.mistake == "max-before-mask", feedback
    assert "maximum" in feedback.reason


def test_a_loop_over_one_batch_axis_is_no_batch():
    def rows_of_2d(x):  # axis=1: right on 2-D only
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def one_batch_axis(scores, mask):
        if scores.ndim == 2:
            return rows_of_2d(np.where(mask, scores, -np.inf))
        mask = np.broadcast_to(mask, scores.shape)
        return np.array([rows_of_2d(np.where(m, s, -np.inf)) for s, m in zip(scores, mask)])

    feedback = check_masked_softmax(one_batch_axis)
    assert feedback.mistake == "no-batch", feedback
    assert "two leading axes" in feedback.reason


def test_a_numpy_masked_array_is_masked_array():
    def masked_array_softmax(scores, mask):
        x = np.ma.masked_array(scores, mask=~np.broadcast_to(mask, scores.shape))
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    feedback = check_masked_softmax(masked_array_softmax)
    assert feedback.mistake == "masked-array", feedback
    assert "print as --" in feedback.reason


# ------------------------------------------------------------------------------- learner review (06 P1)


def exp_shift_times_mask(scores, mask):
    e = np.exp(scores - scores.max(axis=-1, keepdims=True)) * mask  # no -inf anywhere
    return e / e.sum(axis=-1, keepdims=True)


def test_exponentials_zeroed_by_the_mask_are_zero_then_renormalise_not_max_before_mask():
    # The review: this was told it "puts -inf in the blocked scores", a mistake it does not make.
    feedback = check_masked_softmax(exp_shift_times_mask)
    assert feedback.mistake == "zero-then-renormalise", feedback
    assert "-inf in the blocked scores but" not in feedback.reason


def test_an_inverted_mask_through_attn_lib_softmax_is_inverted_mask():
    # The review: attn_lib.softmax raising on the row the inverted mask empties gave a generic exception.
    feedback = check_masked_softmax(lambda scores, mask: attn_lib.softmax(np.where(~mask, scores, -np.inf)))
    assert feedback.mistake == "inverted-mask", feedback


def fill_minus_1e9(scores, mask):
    x = np.where(mask, scores, -1e9)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_a_finite_fill_passes_with_a_note_on_fully_blocked_rows():
    # The review: -inf answers got a note about fully blocked rows, a -1e9 fill none.
    feedback = check_masked_softmax(fill_minus_1e9)
    assert feedback.passed and "finite number" in feedback.reason and "must not see" in feedback.reason, feedback
    assert "1/" not in feedback.reason and "evenly" not in feedback.reason  # 06 P3 asks for that weight


def test_exponentials_zeroed_with_np_where_are_zero_then_renormalise():
    def where_zeroed(scores, mask):
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        e = np.where(mask, e, 0.0)  # zeroes the exponentials; fills no score
        return e / e.sum(axis=-1, keepdims=True)

    assert check_masked_softmax(where_zeroed).mistake == "zero-then-renormalise"


def max_before_inf(scores, mask):
    e = np.exp(np.where(mask, scores, -np.inf) - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def max_before_float_inf(scores, mask):
    x = scores.copy()
    x[~np.broadcast_to(mask, x.shape)] = float("-inf")
    e = np.exp(x - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def max_before_1e9(scores, mask):
    e = np.exp(np.where(mask, scores, -1e9) - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("fn", [max_before_inf, max_before_float_inf, max_before_1e9])
def test_a_maximum_before_the_mask_with_a_fill_in_the_code_is_max_before_mask(fn):
    # The same numbers as exp(scores - max) * mask renormalised: a fill value in the code decides.
    assert check_masked_softmax(fn).mistake == "max-before-mask"
