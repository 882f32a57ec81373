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
