"""check_softmax, check_masked_softmax and check_causal_mask against hand-written learner answers."""

import numpy as np
import pytest

import attn_lib
from attn_lib.exercises import check_causal_mask, check_masked_softmax, check_softmax


# ----------------------------------------------------------------------------------------------- softmax


def softmax_right(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def softmax_naive(x):
    return np.exp(x) / np.exp(x).sum(axis=-1, keepdims=True)


def log_softmax(x):
    shifted = x - x.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def infinities_to_zero(x):
    x = np.where(np.isinf(x), 0.0, x)  # "clean" the infinities before exp
    return softmax_right(x)


SOFTMAX_MISTAKES = {
    "naive-overflow": (softmax_naive, "right on small scores"),
    "softmax-wrong-axis": (
        lambda x: np.exp(x - x.max(axis=0)) / np.exp(x - x.max(axis=0)).sum(axis=0),
        "down each column",
    ),
    "softmax-whole-matrix": (lambda x: np.exp(x) / np.sum(np.exp(x)), "whole array"),
    "no-keepdims": (lambda x: np.exp(x - x.max(axis=-1, keepdims=True))
                    / np.exp(x - x.max(axis=-1, keepdims=True)).sum(axis=-1), "lost its axis"),
    "max-wrong-axis": (lambda x: softmax_right(x - x.max(axis=0, keepdims=True)), "each column's maximum"),
    "global-max": (lambda x: np.exp(x - x.max()) / np.exp(x - x.max()).sum(axis=-1, keepdims=True),
                   "whole array instead of each row's own maximum"),
    "subtract-min": (lambda x: np.exp(x - x.min(axis=-1, keepdims=True))
                     / np.exp(x - x.min(axis=-1, keepdims=True)).sum(axis=-1, keepdims=True), "minimum"),
    "no-division": (lambda x: np.exp(x - x.max(axis=-1, keepdims=True)), "without dividing"),
    "wrong-shape": (lambda x: softmax_right(x)[:, :-1], "shape of the scores"),
    "negative-weights": (log_softmax, "none can be negative"),
    "rows-not-one": (lambda x: 1 / (1 + np.exp(-x)), "not 1"),
    "neg-inf-not-zero": (infinities_to_zero, "exp(-inf) = 0"),
    "not-shift-invariant": (lambda x: softmax_right(x ** 3), "Adding 3 to every score"),
    "wrong-values": (lambda x: softmax_right(2 * x), "largest difference"),
}


@pytest.mark.parametrize("fn", [softmax_right, attn_lib.softmax])
def test_right_softmax_passes(fn):
    feedback = check_softmax(fn)
    assert feedback.passed, feedback
    assert "all 5 cases" in feedback.reason


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
    # Their NaNs are the mistake itself, not a second one.
    assert "Also, on" not in check_softmax(SOFTMAX_MISTAKES[mistake][0]).reason


def test_nan_from_fully_masked_columns_is_not_called_an_overflow():
    fn = MASKED_MISTAKES["softmax-wrong-axis"][0]  # axis 0: a column with every key blocked is 0/0
    assert "Also, on" not in check_masked_softmax(fn).reason


# ----------------------------------------------------------------------------------------------- masked softmax


def masked_right(scores, mask):
    return softmax_right(np.where(mask, scores, -np.inf))


def mask_after_inplace(scores, mask):
    weights = softmax_right(scores)
    weights[~mask] = 0.0
    return weights


def masked_then_renormalised(scores, mask):
    weights = softmax_right(scores) * mask
    return weights / weights.sum(axis=-1, keepdims=True)


MASKED_MISTAKES = {
    "mask-after-softmax": (lambda scores, mask: softmax_right(scores) * mask, "after the softmax"),
    "mask-zero": (lambda scores, mask: softmax_right(np.where(mask, scores, 0)), "instead of -inf"),
    "inverted-mask": (lambda scores, mask: softmax_right(np.where(mask, -np.inf, scores)), "wrong way round"),
    "ignored-mask": (lambda scores, mask: softmax_right(scores), "as if there were no mask"),
    "mask-added": (lambda scores, mask: softmax_right(scores + mask), "adds the boolean mask"),
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
        lambda scores, mask: np.exp(np.where(mask, scores, -np.inf) - scores.max(axis=-1, keepdims=True)),
        "without dividing",
    ),
    "naive-overflow": (lambda scores, mask: softmax_naive(np.where(mask, scores, -np.inf)), "right on small"),
    "blocked-not-zero": (lambda scores, mask: softmax_right(np.where(mask, scores, -5.0)), "must be exactly 0"),
    "wrong-values": (lambda scores, mask: masked_right(2 * scores, mask), "largest difference"),
}


@pytest.mark.parametrize("fn", [masked_right, masked_then_renormalised])
def test_right_masked_softmax_passes(fn):
    feedback = check_masked_softmax(fn)
    assert feedback.passed, feedback


def test_masked_softmax_fully_masked_row_nan_is_a_note():
    assert "every key of a row is blocked" in check_masked_softmax(masked_right).reason

    def raises_on_empty_rows(scores, mask):
        if not mask.any(axis=-1).all():
            raise ValueError("a row with every key blocked has no softmax")
        return masked_right(scores, mask)

    feedback = check_masked_softmax(raises_on_empty_rows)
    assert feedback.passed and "every key of a row is blocked" not in feedback.reason


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
    ],
    ids=["set-to-zero-after", "times-mask", "inverted-minus-1e9"],
)
def test_masked_softmax_other_spellings_of_a_mistake(fn, mistake):
    assert check_masked_softmax(fn).mistake == mistake


# ----------------------------------------------------------------------------------------------- causal mask


def causal_right(n, m):
    i = np.arange(n)[:, None]
    j = np.arange(m)[None, :]
    return j <= i


CAUSAL_MISTAKES = {
    "inverted-mask": (lambda n, m: np.triu(np.ones((n, m), dtype=bool), k=1), "inverted"),
    "diagonal-blocked": (lambda n, m: np.tri(n, m, k=-1, dtype=bool), "blocks the diagonal"),
    "upper-triangle": (lambda n, m: np.triu(np.ones((n, m), dtype=bool)), "upper triangle"),
    "bottom-right-aligned": (lambda n, m: np.tri(n, m, k=m - n, dtype=bool), "top-left, like PyTorch's is_causal"),
    "ignores-m": (lambda n, m: np.tri(n, dtype=bool), "ignores m"),
    "shape-transposed": (lambda n, m: np.tri(m, n, dtype=bool), "one row per query"),
    "additive-mask": (lambda n, m: np.where(np.tri(n, m, dtype=bool), 0.0, -np.inf), "additive"),
    "not-boolean": (lambda n, m: np.tril(np.ones((n, m))), "dtype float64, not bool"),
    "wrong-shape": (lambda n, m: np.tri(n, m + 1, dtype=bool), "should be (n, m)"),
    "wrong-pattern": (lambda n, m: np.ones((n, m), dtype=bool), "which should be blocked"),
}


@pytest.mark.parametrize("fn", [causal_right, attn_lib.causal_mask, lambda n, m: np.tri(n, m, dtype=bool)])
def test_right_causal_mask_passes(fn):
    assert check_causal_mask(fn).passed


@pytest.mark.parametrize("mistake", sorted(CAUSAL_MISTAKES))
def test_causal_mask_mistake_is_recognised(mistake):
    fn, phrase = CAUSAL_MISTAKES[mistake]
    feedback = check_causal_mask(fn)
    assert not feedback.passed
    assert feedback.mistake == mistake, feedback
    assert phrase in feedback.reason


def test_causal_mask_mistakes_get_distinct_reasons():
    feedbacks = [check_causal_mask(fn) for fn, _ in CAUSAL_MISTAKES.values()]
    assert len({f.mistake for f in feedbacks}) == len(CAUSAL_MISTAKES)
    assert len({f.reason for f in feedbacks}) == len(CAUSAL_MISTAKES)


def test_additive_mask_with_the_wrong_pattern_says_both():
    feedback = check_causal_mask(lambda n, m: np.where(np.tri(n, m, dtype=bool), -np.inf, 0.0))
    assert feedback.mistake == "additive-mask"
    assert "not the causal one either" in feedback.reason
