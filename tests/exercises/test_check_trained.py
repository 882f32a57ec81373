"""The checkers of notebook 10: each known mistake gets its own id, and right answers of any style pass."""

import math

import numpy as np
import pytest

from attn_lib.exercises import check_footnote4_variance, check_previous_token, check_unscaled_row, check_why_scores_grow


@pytest.mark.parametrize("answer, mistake", [
    (32, "unit-variance"), (1.04 * 1.26, "forgot-dk"), (math.sqrt(32) * 1.04 * 1.26, "sqrt-dk"),
    (32 * (1.04 + 1.26), "added-variances"), (32 * math.sqrt(1.04 * 1.26), "standard-deviations"),
    (346.5, "wrong-number"),
])
def test_footnote4_variance_mistakes(answer, mistake):
    assert check_footnote4_variance(answer, var_q=1.04, var_k=1.26).mistake == mistake


def test_footnote4_variance_accepts_a_rounded_answer_and_drops_mistakes_that_coincide():
    assert check_footnote4_variance(42, var_q=1.04, var_k=1.26).passed
    # components of variance 1: the "unit-variance" answer is the right one, and must pass
    assert check_footnote4_variance(32, var_q=1.0, var_k=1.0).passed
    assert check_footnote4_variance(64 * 0.5 * 2.0, var_q=0.5, var_k=2.0, d_k=64).passed


@pytest.mark.parametrize("answer, mistake", [("a", "chose-a"), ("C", "chose-c"), ("d)", "chose-d"),
                                             ("e", "not-an-option")])
def test_why_scores_grow_gives_each_option_its_reason(answer, mistake):
    feedback = check_why_scores_grow(answer)
    assert feedback.mistake == mistake and feedback.reason


def test_why_scores_grow_right():
    assert check_why_scores_grow(" b ").passed


@pytest.mark.parametrize("answer, mistake", [(1 / (1 + math.exp(-1)), "unchanged"),
                                             (1 / (1 + math.exp(-1 / math.sqrt(32))), "divided-again"),
                                             (1.0, "times-dk"), (0.5, "equal-weights"), (0.9, "wrong-number")])
def test_unscaled_row_mistakes(answer, mistake):
    assert check_unscaled_row(answer).mistake == mistake


def test_unscaled_row_right_to_three_decimals():
    assert check_unscaled_row(0.9965).passed and check_unscaled_row(0.997).passed
    assert check_unscaled_row(1 / (1 + math.exp(-2 * 8)), gap=2.0, d_k=64).passed  # sigmoid(2 * 64) coincides


def previous_loop(weights):
    weights = np.asarray(weights)
    n = weights.shape[-1]
    return sum(weights[..., i, i - 1] for i in range(1, n)) / (n - 1)


@pytest.mark.parametrize("fn", [
    lambda w: np.diagonal(w, offset=-1, axis1=-2, axis2=-1).mean(axis=-1),
    previous_loop,
    lambda w: (w * np.eye(w.shape[-1], k=-1)).sum(axis=(-2, -1)) / (w.shape[-1] - 1),
    lambda w: np.float32(1.0) * np.diagonal(w, -1, -2, -1).astype(np.float32).mean(-1),
])
def test_previous_token_right_answers(fn):
    assert check_previous_token(fn).passed


@pytest.mark.parametrize("fn, mistake", [
    (lambda w: np.diagonal(w, offset=1, axis1=-2, axis2=-1).mean(axis=-1), "next-token"),
    (lambda w: np.diagonal(w, axis1=-2, axis2=-1).mean(axis=-1), "self"),
    (lambda w: np.mean([w[..., i, i - 1] for i in range(w.shape[-1])], axis=0), "wrapped-first-row"),
    (lambda w: np.diagonal(w, -1, -2, -1).sum(-1) / w.shape[-1], "divided-by-n"),
    (lambda w: np.diagonal(w, -1, -2, -1).sum(-1), "sum-not-mean"),
    (lambda w: np.diagonal(w, -1, -2, -1), "wrong-shape"),
    (None, "not-answered"),
])
def test_previous_token_mistakes(fn, mistake):
    assert check_previous_token(fn).mistake == mistake


def test_the_module_table_lists_every_mistake_id_of_the_previous_token_checker():
    import attn_lib.exercises as exercises
    from attn_lib.exercises._check_trained import PREVIOUS_TOKEN

    for mistake in PREVIOUS_TOKEN.mistakes():
        assert mistake.id in exercises.__doc__, mistake.id


def test_a_2d_only_previous_token_share_is_no_batch():
    feedback = check_previous_token(lambda w: np.diag(w, k=-1).mean())  # np.diag takes 2-D arrays only
    assert feedback.mistake == "no-batch", feedback
    assert "(3, 6, 6)" in feedback.reason
