"""Why a wrong answer is wrong: the mistake table, overflow, and a hint that fits the exception."""

import numpy as np

from attn_lib.exercises import check_softmax
from attn_lib.exercises._judge import judge

from judge_demo import PROBLEM


def test_mistake_table_and_overflow():
    assert judge(lambda x: np.exp(x - x.max(axis=-1, keepdims=True)), PROBLEM).mistake == "no-division"
    assert judge(lambda x: np.exp(x) / np.exp(x).sum(axis=-1, keepdims=True), PROBLEM).mistake == "naive-overflow"


def test_exception_hint_fits_the_exception():
    def shapes_clash(x):
        return x @ np.ones((7, 2))

    def undefined_name(x):
        return x / row_total  # noqa: F821

    assert "shapes that do not fit" in check_softmax(shapes_clash).hint
    assert "Define that name" in check_softmax(undefined_name).hint


def test_a_batch_safe_wrong_shape_gets_no_note_about_batches():
    from attn_lib.exercises import check_softmax_backward, check_weighted_average

    swapped = check_softmax_backward(
        lambda S, P, dP: np.swapaxes(P * (dP - (dP * P).sum(-1, keepdims=True)), -1, -2))
    summed = check_weighted_average(lambda weights, V: (weights @ V).sum(-1, keepdims=True))
    for feedback in (swapped, summed):
        assert feedback.mistake == "wrong-shape", feedback
        assert "Also, on" not in feedback.reason


def test_the_batch_note_names_only_what_the_problem_has():
    def axis1_no_division(x):  # 2-D only (axis=1) and no division: the note on the batch must not speak of K
        return np.exp(x - x.max(axis=1, keepdims=True)) * 2

    feedback = check_softmax(axis1_no_division)
    assert feedback.mistake == "no-division" and "Also, on" in feedback.reason  # the note is there
    assert "swapaxes(K" not in feedback.reason and "masks" not in feedback.reason
