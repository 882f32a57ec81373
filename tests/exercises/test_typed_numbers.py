"""Every way a learner writes a number is read, and whatever they write gets a sentence, never a traceback: the
number problems of the course (every one, on the notebook's numbers and a variant), the answer box's reader, and the
reasons of what Python made of a number written with commas."""

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from attn_lib.exercises import another, check
from attn_lib.exercises._answers import NUMBER_UNREAD, read_number
from attn_lib.exercises._feedback import Feedback
from attn_lib.exercises._prediction import read_answer
from attn_lib.exercises._problem_book import PREDICTIONS

NUMBER_PROBLEMS = sorted(pid for pid, p in PREDICTIONS.items() if p.kind == "number")


def seeds(pid):
    """The notebook's numbers, and a variant where the problem has variants."""
    return (0, 7) if PREDICTIONS[pid].has_variants else (0,)


def expected(pid, seed):
    variant = PREDICTIONS[pid].variant(seed)
    return variant, variant.problem.expected(variant.params)[0]


def test_the_course_has_number_problems_to_read():
    assert len(NUMBER_PROBLEMS) >= 20


@pytest.mark.parametrize("pid", NUMBER_PROBLEMS)
def test_the_right_number_passes_however_it_is_written(pid):
    for seed in seeds(pid):
        variant, right = expected(pid, seed)
        forms = [Decimal(repr(float(right))), np.float64(right)]
        if float(right).is_integer():
            forms += [int(right), np.int64(int(right)), Fraction(int(right))]
            typed = [f"{int(right):,}", f"{int(right):_}"]
        else:
            typed = [repr(float(right))]
        for answer in forms:
            assert variant.check(answer).passed, (pid, seed, answer)
        for text in typed:
            assert variant.check_text(text).passed, (pid, seed, text)


UNREAD = [  # (answer, the id it gets, words its reason or hint holds)
    (10 ** 400, "beyond-float", "401 digits"),
    (-(2 ** 1024), "beyond-float", "309 digits"),
    (Fraction(10 ** 400, 7), "beyond-float", "400 digits"),
    (Decimal("1e400"), "beyond-float", "401 digits"),
    ((8, 0, 0), "commas-made-a-tuple", "8,000,000"),
    ((262, 144), "commas-made-a-tuple", "262_144"),
    ((3, 5), "commas-made-a-tuple", "decimal point"),
    ("262,144", "not-a-number", "quotes"),
    ([64], "not-a-number", "list"),
]


@pytest.mark.parametrize("pid", NUMBER_PROBLEMS)
def test_an_answer_that_is_no_float_gets_a_sentence_in_every_number_problem_and_every_way_in(pid):
    for seed in seeds(pid):
        variant, _ = expected(pid, seed)
        for answer, mistake, words in UNREAD:
            ways = [variant.check(answer), check(pid, answer, seed=np.int64(seed))]
            if seed:
                ways.append(another(pid, seed=np.int64(seed)).check(answer))
            for feedback in ways:
                assert (feedback.passed, feedback.mistake) == (False, mistake), (pid, seed, answer)
                assert words in feedback.reason + feedback.hint, (pid, seed, answer)


def test_a_tuple_of_commas_is_named_with_the_number_written_the_python_way():
    feedback = read_number((8, 0, 0))
    assert "8,000,000 is the tuple (8, 0, 0)" in feedback.reason and "comma" in feedback.reason
    assert feedback.hint == "Write one number, without commas: 8_000_000 or 8000000."
    # 0,125 (a decimal comma) is no thousands: named as a tuple of numbers, with no number made of it
    assert read_number((0, 125)).mistake == "commas-made-a-tuple" and "8" not in read_number((0, 125)).hint
    for not_commas in [(8.5, 1), (True, 0), (1, 2, 3, 4, 5, 6, 7), ()]:
        assert read_number(not_commas).mistake == "not-a-number", not_commas


@pytest.mark.parametrize("answer", [Decimal("NaN"), Decimal("sNaN"), Decimal("-Infinity"), np.float32("inf")])
def test_a_decimal_or_float_that_is_no_finite_number_is_judged_not_raised(answer):
    value = read_number(answer)
    assert not isinstance(value, Feedback)  # nan and inf are numbers: the checker says they are not the answer
    assert read_number(answer, finite=True).mistake == "not-a-number"


@settings(max_examples=200, deadline=None)
@given(n=st.integers(min_value=-(10 ** 30), max_value=10 ** 30))
def test_a_whole_number_typed_as_the_course_prints_it_is_read_as_that_number(n):
    assert read_answer(f"{n:,}", "number") == n
    assert read_answer(f"{n:_}", "number") == n
    assert read_answer(f"{n:,}".replace("-", "\u2212"), "number") == n
    assert read_answer(f"{n:,}".replace(",", "\u202f"), "number") == n


@settings(max_examples=200, deadline=None)
@given(x=st.floats(min_value=-1e12, max_value=1e12, allow_nan=False))
def test_a_decimal_number_with_separators_or_as_a_percentage_is_read(x):
    assert read_answer(f"{x:,.3f}", "number") == pytest.approx(round(x, 3), rel=1e-12, abs=1e-9)
    assert read_answer(f"{x:.6g} %", "number") == pytest.approx(float(f"{x:.6g}") / 100, rel=1e-12, abs=1e-15)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="0123456789,._ -+*/^%()e\u2212\u00d7", max_size=14))
def test_whatever_is_typed_in_a_number_box_gets_a_verdict_not_a_traceback(text):
    read = read_answer(text, "number")
    assert read is None or isinstance(read, (int, float, str))
    if read is not None:
        assert isinstance(another("02-P2", seed=3).check_text(text), Feedback)
