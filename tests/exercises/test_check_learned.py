"""check_learned: each of notebook 09's predictions passes its right option and names every wrong one."""

import pytest

from attn_lib.exercises import check_learned
from attn_lib.exercises._check_learned import _QUESTIONS


@pytest.mark.parametrize("question", sorted(_QUESTIONS))
def test_the_right_option_passes_with_its_reason(question):
    right, reasons, _ = _QUESTIONS[question]
    feedback = check_learned(question, right.upper() + ")")
    assert feedback.passed
    assert reasons[right] in feedback.reason


@pytest.mark.parametrize("question, option", [(q, o) for q in sorted(_QUESTIONS) for o in _QUESTIONS[q][1]
                                              if o != _QUESTIONS[q][0]])
def test_each_wrong_option_gets_its_own_reason(question, option):
    feedback = check_learned(question, option)
    assert not feedback.passed
    assert feedback.mistake == f"chose-{option}"
    assert _QUESTIONS[question][1][option] in feedback.reason


@pytest.mark.parametrize("question", sorted(_QUESTIONS))
def test_every_question_has_distinct_reasons_and_a_hint(question):
    right, reasons, hint = _QUESTIONS[question]
    assert right in reasons and len(reasons) >= 3
    assert len(set(reasons.values())) == len(reasons)
    assert hint


def test_blank_and_unknown_answers():
    assert check_learned("one-head", None).mistake == "not-answered"
    assert check_learned("one-head", "z").mistake == "not-an-option"


def test_an_unknown_question_names_itself():
    with pytest.raises(ValueError, match="^question must be one of"):
        check_learned("no-such-question", "a")


def test_problem_4s_right_reason_gives_the_mechanism_and_no_wrong_reason_says_one_row_one_pattern():
    """Given time one head splits its row in some seeds (notebook 09): "one row can follow one pattern" is false, and
    the mechanism (a split row averages two value rows, which a linear read-out cannot cleanly take apart) is the
    right answer's reason, not a wrong option's."""
    right, reasons, hint = _QUESTIONS["one-head"]
    assert "average of two value rows" in reasons[right] and "linear read-out" in reasons[right]
    assert not any("can follow one pattern" in reason for reason in reasons.values())


def test_the_adam_reason_says_d_k_times_only_for_the_same_gradient_at_the_scores():
    """After one step from the same start the unscaled scores move less than d_k times as far (saturation shrinks
    dS): the reason may say d_k times only for the same gradient at the scores."""
    reasons = _QUESTIONS["adam-at-512"][1]
    assert "d_k times larger" not in reasons["b"]
    assert "d_k times for the same gradient at the scores" in reasons["b"]
    # issue 25: Adam takes out the factor sqrt(d_k) of the gradient at W_q, not the one on the way back to the scores
    assert "removes the first factor, not the second" in reasons["b"] and "advantage is gone" not in reasons["b"]
