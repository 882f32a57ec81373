"""Comparing with the right answer: the tolerance of the answer's dtype, and differences printed so that the
two numbers differ."""

import numpy as np

from attn_lib.exercises._compare import agreeing_digits, two_numbers
from attn_lib.exercises._judge import judge

from judge_demo import PROBLEM, softmax_rows


def test_float32_right_to_its_rounding_passes():
    assert judge(lambda x: softmax_rows(x.astype(np.float32)), PROBLEM).passed


def test_answer_off_by_more_than_float32_rounding_is_not_right():
    off = judge(lambda x: softmax_rows(x) * (1 + 1e-4 * (np.arange(x.shape[-1]) == 0)), PROBLEM)
    assert off.mistake == "wrong-values"


def test_float16_answer_gets_float16_tolerance_and_float64_does_not():
    assert judge(lambda x: softmax_rows(x).astype(np.float16), PROBLEM).passed
    assert not judge(lambda x: softmax_rows(x).astype(np.float16).astype(float), PROBLEM).passed


def test_digits_agree_and_differ():
    assert agreeing_digits(0.225979, 0.225977) == 5
    assert agreeing_digits(1.0, -1.0) == 0
    a, b = two_numbers(0.28213001, 0.28213012)
    assert a != b and a.startswith("0.282130")


def test_wrong_value_close_to_right_names_rounding():
    feedback = judge(lambda x: softmax_rows(x) * (1 + 3e-4 * (np.arange(x.shape[-1]) == 0)), PROBLEM)
    assert "significant digits" in feedback.reason and "rounding" in feedback.reason
