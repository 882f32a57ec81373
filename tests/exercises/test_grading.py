"""assert_correct: a checker's Feedback turned into a passing cell (shown, nothing returned) or a failing one."""

import numpy as np
import pytest

from attn_lib.exercises import CheckFailed, Feedback, assert_correct, check_masked_softmax, check_number
from attn_lib.exercises._grading import WIDTH


def test_a_failed_check_raises_an_assertion_error_carrying_its_feedback():
    wrong = check_masked_softmax(lambda scores, mask: np.where(mask, scores, 0.0))
    with pytest.raises(CheckFailed) as failed:
        assert_correct(wrong)
    assert isinstance(failed.value, AssertionError) and failed.value.feedback is wrong
    text = failed.value.text  # what the learner reads; the error's value adds the mistake's id for the class page
    assert text.startswith("Not yet: ") and " ".join(text.split()) == " ".join(str(wrong).split())
    assert str(failed.value) == f"{text}\n(mistake id: {wrong.mistake})"


@pytest.mark.parametrize("feedback", [
    check_masked_softmax(lambda scores, mask: np.where(mask, scores, 0.0)),
    check_number(None, 8),
    Feedback(False, "A reason of many words, " * 12, "A hint of many words, " * 9, "some-mistake"),
])
def test_the_failure_text_fits_nbgraders_validate_lines_and_is_all_ipython_shows(feedback):
    failed = CheckFailed(feedback)
    lines = failed.text.split("\n")
    assert str(failed) == f"{failed.text}\n(mistake id: {feedback.mistake})"  # the error's value: for the class page
    assert max(map(len, lines)) <= WIDTH <= 80  # `nbgrader validate` cuts its lines at about 88 columns
    assert failed._render_traceback_() == lines  # IPython shows these lines in place of a traceback
    assert " ".join(feedback.reason.split()) in " ".join(lines)


def test_a_missing_answer_is_told_where_to_write_it_not_to_run_the_cell_again():
    missing = check_number(None, 8)
    assert "run this one again" in missing.hint  # the notebook's own hint, for a learner working in it
    text = " ".join(CheckFailed(missing).text.split())
    assert text.startswith("Not answered yet: ") and "run this one again" not in text
    assert "Write your answer in the answer cell above" in text
    assert "stopped with an error" in text  # an answer cell that raised leaves the answer unset, too


def test_a_passed_check_is_shown_and_nothing_is_returned(capsys):
    right = Feedback(True, "Right.")
    assert assert_correct(right) is None  # nbgrader would read a returned value as points
    assert str(right) in capsys.readouterr().out


def test_anything_but_a_feedback_is_refused_by_name():
    with pytest.raises(TypeError, match="feedback: expected the Feedback a checker returns, got bool"):
        assert_correct(True)
