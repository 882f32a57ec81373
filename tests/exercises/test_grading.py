"""assert_correct: a checker's Feedback turned into a passing cell (shown, nothing returned) or a failing one."""

import numpy as np
import pytest

from attn_lib.exercises import CheckFailed, Feedback, assert_correct, check_masked_softmax


def test_a_failed_check_raises_an_assertion_error_carrying_its_feedback():
    wrong = check_masked_softmax(lambda scores, mask: np.where(mask, scores, 0.0))
    with pytest.raises(CheckFailed) as failed:
        assert_correct(wrong)
    assert isinstance(failed.value, AssertionError) and failed.value.feedback is wrong
    assert str(failed.value) == str(wrong) and wrong.reason.split()[0] in str(failed.value)


def test_a_passed_check_is_shown_and_nothing_is_returned(capsys):
    right = Feedback(True, "Right.")
    assert assert_correct(right) is None  # nbgrader would read a returned value as points
    assert str(right) in capsys.readouterr().out


def test_anything_but_a_feedback_is_refused_by_name():
    with pytest.raises(TypeError, match="feedback: expected the Feedback a checker returns, got bool"):
        assert_correct(True)
