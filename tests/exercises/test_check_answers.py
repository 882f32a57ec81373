"""check_number and check_choice: passing, named mistakes, how far off, blanks, and authors' bad arguments."""

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from attn_lib.exercises import check_choice, check_number


# ------------------------------------------------------------------------------------------- check_number


@pytest.mark.parametrize("answer", [64, 64.0, 63, 66.5, np.float32(64), np.int64(64), np.array(64.0),
                                    np.array([64.0]), np.array([[64]])])
def test_number_within_rel_passes_in_every_numeric_form(answer):
    feedback = check_number(answer, 64, explain="d_k products, variances add.")
    assert feedback.passed
    assert feedback.reason == "d_k products, variances add."


def test_number_abs_tol_passes_near_zero():
    assert check_number(0.004, 0.0, abs_tol=0.01).passed
    assert not check_number(0.02, 0.0, abs_tol=0.01).passed


@pytest.mark.parametrize("blank", [None, ...])
def test_number_blank_is_not_answered(blank):
    feedback = check_number(blank, 3, what="your count")
    assert feedback.mistake == "not-answered" and "your count" in feedback.reason


@pytest.mark.parametrize("answer", ["64", [64], {"a": 1}, True, np.array([1.0, 2.0]), 3 + 1j])
def test_number_non_number_says_a_number_is_wanted(answer):
    feedback = check_number(answer, 64)
    assert feedback.mistake == "not-a-number"
    assert "should be a number" in feedback.reason


@pytest.mark.parametrize("answer, named", [("0.87", "quotes"), ((0.87,), "tuple"), ([0.87], "list")])
def test_number_hint_names_what_wraps_the_number(answer, named):
    assert named in check_number(answer, 0.87).hint


def test_number_named_mistake_gets_its_id_reason_and_own_hint():
    mistakes = [(8, "std-not-variance", "8 is the standard deviation.", "Square it."),
                (1, "one", "1 is one product's variance.")]
    feedback = check_number(8.1, 64, mistakes=mistakes, hint="general")
    assert (feedback.mistake, feedback.reason, feedback.hint) == ("std-not-variance", "8 is the standard deviation.",
                                                                  "Square it.")
    feedback = check_number(1, 64, mistakes=mistakes, hint="general")
    assert (feedback.mistake, feedback.hint) == ("one", "general")


@pytest.mark.parametrize("answer, words", [
    (256, "between 3 and 10 times too large"), (16, "between 3 and 10 times too small"),
    (70, "is not it."), (-64, "wrong sign"), (64_000, "more than 1,000 times"),
])
def test_number_unmatched_wrong_says_how_far_without_the_expected_value(answer, words):
    feedback = check_number(answer, 64, hint="Variances add.")
    assert feedback.mistake == "wrong-number"
    assert words in feedback.reason
    assert "4 times" not in feedback.reason  # a band, not the factor that leads back to the answer
    assert "64 " not in feedback.reason.replace("64,000", "") and "64." not in feedback.reason
    assert feedback.hint == "Variances add."


def test_number_close_wrong_answer_is_printed_with_enough_digits_to_differ():
    feedback = check_number(0.28211, 0.28213, rel=1e-6)
    assert "0.28211" in feedback.reason and not feedback.passed


@given(st.floats(1e-3, 1e6), st.floats(0.001, 0.5))
def test_number_passes_exactly_inside_the_relative_tolerance(expected, rel):
    assert check_number(expected * (1 + rel * 0.99), expected, rel=rel).passed
    assert not check_number(expected * (1 + rel * 1.01), expected, rel=rel).passed


def test_number_infinite_expected_is_compared_exactly():
    assert check_number(float("inf"), float("inf")).passed
    assert not check_number(1e308, float("inf")).passed


@pytest.mark.parametrize("kwargs, error, word", [
    ({"expected": "64"}, TypeError, "expected"),
    ({"expected": 64, "rel": -1}, ValueError, "rel"),
    ({"expected": 64, "abs_tol": float("nan")}, ValueError, "abs_tol"),
    ({"expected": 64, "mistakes": [(8, "x")]}, TypeError, "mistakes[0]"),
    ({"expected": 64, "mistakes": "oops"}, TypeError, "mistakes"),
    ({"expected": 64, "mistakes": [(65, "x", "too close")]}, ValueError, "mistakes[0]"),
    ({"expected": 64, "explain": 3}, TypeError, "explain"),
    ({"expected": 64, "hint": None}, TypeError, "hint"),
])
def test_number_author_errors_name_the_argument(kwargs, error, word):
    with pytest.raises(error, match=word.replace("[", r"\[").replace("]", r"\]")):
        check_number(1, **kwargs)


# ------------------------------------------------------------------------------------------- check_choice

REASONS = {"a": "Each row sums to one.", "b": "Columns need not sum to one.", "c": "Nothing sums to one."}


@pytest.mark.parametrize("answer", ["a", "A", " a ", "a)", "A.", "(a)", "a )"])
def test_choice_right_passes_with_its_reason(answer):
    feedback = check_choice(answer, "a", REASONS)
    assert feedback.passed and feedback.reason == REASONS["a"]


@pytest.mark.parametrize("answer, label", [("b", "b"), ("C.", "c"), (" c) ", "c")])
def test_choice_wrong_option_gets_its_own_id_reason_and_hint(answer, label):
    feedback = check_choice(answer, "a", REASONS, hint="Think of one query.")
    assert (feedback.mistake, feedback.reason, feedback.hint) == (f"chose-{label}", REASONS[label],
                                                                  "Think of one query.")


@pytest.mark.parametrize("answer", ["d", "ab", 3, ["a"]])
def test_choice_not_an_option_lists_the_options(answer):
    feedback = check_choice(answer, "a", REASONS)
    assert feedback.mistake == "not-an-option" and "a, b, c" in feedback.reason


@pytest.mark.parametrize("blank", [None, ..., "", "  "])
def test_choice_blank_is_not_answered(blank):
    assert check_choice(blank, "a", REASONS).mistake == "not-answered"


def test_choice_numeric_labels_accept_ints():
    assert check_choice(2, "2", {"1": "No.", "2": "Yes."}).passed


@pytest.mark.parametrize("args, error", [(("a", "z", REASONS), ValueError), (("a", "a", {}), TypeError),
                                         (("a", "a", {"a": 1}), TypeError), (("a", "a", {"a": "x", "A": "y"}),
                                                                             ValueError)])
def test_choice_author_errors(args, error):
    with pytest.raises(error):
        check_choice(*args)


@pytest.mark.parametrize("answer, passed, mistake", [
    (11.09, True, None), (11.0898, True, None), (11.1, False, "too-few-decimals"), (11.08, False, "wrong-number"),
])
def test_a_number_asked_to_two_decimals_is_judged_to_two_decimals(answer, passed, mistake):
    # Issue 17: 04 P4 asks for ln(65504) "to two decimals", but rel=0.001 passed 11.1.
    feedback = check_number(answer, np.log(65504), decimals=2, explain="ln(65504).")
    assert feedback.passed is passed and feedback.mistake == mistake, feedback
    if mistake == "too-few-decimals":
        assert "asks for 2" in feedback.reason and "11.09" not in feedback.reason


@pytest.mark.parametrize("answer", ["C: NaN in every entry", "c) NaN in every entry", "(C) NaN",
                                    "C. NaN in every entry"])
def test_a_choice_written_as_its_label_and_the_options_text_is_read_as_the_label(answer):
    # A learner review: copying the option's line was "not an option".
    reasons = {"A": "Wrong: a.", "B": "Wrong: b.", "C": "Right: every entry is NaN."}
    assert check_choice(answer, "C", reasons).passed
    assert check_choice(answer.replace("C", "B", 1).replace("c", "b", 1), "C", reasons).mistake == "chose-B"


def test_a_sentence_that_only_starts_like_a_label_is_not_an_option():
    reasons = {"a": "Wrong.", "b": "Right."}
    assert check_choice("about half", "b", reasons).mistake == "not-an-option"


@settings(max_examples=40, deadline=None)
@given(expected=st.integers(1, 3000), value=st.integers(1, 3000))
def test_a_how_far_reason_never_narrows_a_whole_number_answer_to_a_handful(expected, value):
    """Every whole number the reason leaves open (those that would get the same words) counts: at least HANDFUL of
    them, unless the reason says nothing of the size at all."""
    from attn_lib.exercises._answers import HANDFUL, how_far

    assume(value != expected)
    said = how_far(value, expected)
    if said.endswith("is not it."):
        return
    open_answers = sum(how_far(value, x) == said for x in range(1, 12_001) if x != value)
    assert open_answers >= HANDFUL, (value, expected, said, open_answers)
