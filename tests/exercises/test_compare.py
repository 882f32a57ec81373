"""Comparing with the right answer: the tolerance of the answer's dtype, and differences printed so that the
two numbers differ."""

import importlib

import numpy as np
import pytest

from attn_lib.exercises._compare import agreeing_digits, two_numbers
from attn_lib.exercises._judge import judge

from judge_demo import PROBLEM, softmax_rows


def test_float32_right_to_its_rounding_passes():
    assert judge(lambda x: softmax_rows(x.astype(np.float32)), PROBLEM).passed


def test_answer_off_by_more_than_float32_rounding_is_not_right():
    off = judge(lambda x: softmax_rows(x) * (1 + 1e-4 * (np.arange(x.shape[-1]) == 0)), PROBLEM)
    assert off.mistake == "wrong-values"


def test_a_float16_answer_is_judged_at_the_inputs_precision_and_named():
    rounded = judge(lambda x: softmax_rows(x).astype(np.float16), PROBLEM)
    assert rounded.mistake == "low-precision" and "float16" in rounded.reason, rounded
    assert judge(lambda x: softmax_rows(x).astype(np.float16).astype(float), PROBLEM).mistake == "wrong-values"
    off = judge(lambda x: (softmax_rows(x) * 1.015).astype(np.float16), PROBLEM)  # 1.5 % off, within float16's 2 %
    assert off.mistake == "wrong-values", off


def test_digits_agree_and_differ():
    assert agreeing_digits(0.225979, 0.225977) == 5
    assert agreeing_digits(1.0, -1.0) == 0
    a, b = two_numbers(0.28213001, 0.28213012)
    assert a != b and a.startswith("0.282130")


def test_wrong_value_close_to_right_names_rounding():
    feedback = judge(lambda x: softmax_rows(x) * (1 + 3e-4 * (np.arange(x.shape[-1]) == 0)), PROBLEM)
    assert "significant digits" in feedback.reason and "rounding" in feedback.reason


@pytest.mark.parametrize("patched", ["isclose", "allclose", "isfinite", "array_equal"])
def test_a_numpy_function_patched_after_import_does_not_pass_a_wrong_answer(monkeypatch, patched):
    """A learner's cell that rebinds numpy.isclose (or another function a verdict rests on) to always say yes, then
    the graded test cell's reload of the checker's module: the verdicts still use the functions bound when
    attn_lib.exercises was imported."""
    elementwise = patched in ("isclose", "isfinite")  # these answer per entry: all True, in the input's shape
    monkeypatch.setattr(np, patched, lambda a, *args, **kwargs: np.ones(np.shape(a), bool) if elementwise else True)
    count = importlib.reload(importlib.import_module("attn_lib.exercises._check_count")).check_count
    masked = importlib.reload(importlib.import_module("attn_lib.exercises._check_masked_softmax")).check_masked_softmax
    assert not count("scores", 12345, n=4).passed
    assert not masked(lambda scores, mask: np.where(mask, scores, 0.0)).passed
    assert not judge(lambda x: softmax_rows(x) * 1.01, PROBLEM).passed
