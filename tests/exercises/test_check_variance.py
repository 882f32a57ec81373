"""check_variance: a predicted variance, right within 10 % and wrong in the classic ways."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_lib.exercises import check_variance


VARIANCE_MISTAKES = {
    "std-not-variance": (8.0, False, "standard deviation"),
    "one-when-unscaled": (1.0, False, "variances of independent terms add"),
    "dk-squared": (4096, False, "do not multiply"),
    "inverse-dk": (1 / 64, False, "spreads more, not less"),
    "mean-not-variance": (0, False, "is the mean"),
    "dk-when-scaled": (64, True, "variance before the division"),
    "sqrt-when-scaled": (8, True, "divided by the square"),
    "inverse-sqrt-dk": (0.125, True, "1/sqrt(d_k)"),
    "wrong-variance": (20, False, "too small"),
    "not-a-number": ("64", False, "should be a number"),
}


@pytest.mark.parametrize("answer, scaled", [(64, False), (60.0, False), (np.float32(66.5), False), (1, True),
                                            (0.93, True)])
def test_right_variance_passes_within_ten_percent(answer, scaled):
    assert check_variance(answer, d_k=64, scaled=scaled).passed


@pytest.mark.parametrize("answer, scaled", [(57.0, False), (71.0, False), (1.2, True)])
def test_variance_more_than_ten_percent_off_fails(answer, scaled):
    assert not check_variance(answer, d_k=64, scaled=scaled).passed


@pytest.mark.parametrize("mistake", sorted(VARIANCE_MISTAKES))
def test_variance_mistake_is_recognised(mistake):
    answer, scaled, phrase = VARIANCE_MISTAKES[mistake]
    feedback = check_variance(answer, d_k=64, scaled=scaled)
    assert not feedback.passed
    assert feedback.mistake == mistake, feedback
    assert phrase in feedback.reason


def test_variance_mistakes_get_distinct_reasons():
    feedbacks = [check_variance(a, d_k=64, scaled=s) for a, s, _ in VARIANCE_MISTAKES.values()]
    assert len({f.mistake for f in feedbacks}) == len(VARIANCE_MISTAKES)
    assert len({f.reason for f in feedbacks}) == len(VARIANCE_MISTAKES)


def test_variance_inverse_dk_when_scaled_has_its_own_reason():
    feedback = check_variance(1 / 64, d_k=64, scaled=True)
    assert feedback.mistake == "inverse-dk" and "one time too many" in feedback.reason


@settings(max_examples=40, deadline=None)
@given(d_k=st.integers(1, 1024), scaled=st.booleans(), factor=st.floats(0.905, 1.095))
def test_variance_accepts_any_answer_within_ten_percent(d_k, scaled, factor):
    right = 1.0 if scaled else float(d_k)
    assert check_variance(right * factor, d_k=d_k, scaled=scaled).passed


def test_variance_bad_arguments_raise():
    with pytest.raises(ValueError, match="d_k must be at least 1"):
        check_variance(1.0, d_k=0, scaled=True)
    with pytest.raises(TypeError, match="scaled must be True or False"):
        check_variance(1.0, d_k=64, scaled="yes")


@pytest.mark.parametrize("wrap", [np.array, lambda v: np.array([v]), lambda v: np.array([[v]]), np.float32, np.int64])
def test_numbers_given_as_numpy_scalars_or_one_element_arrays_are_accepted(wrap):
    assert check_variance(wrap(64), d_k=64, scaled=False).passed


def test_arrays_of_several_numbers_are_not_a_number():
    assert check_variance(np.array([1.0, 2.0]), d_k=4, scaled=True).mistake == "not-a-number"


# ----------------------------------------------------------------------------------------------- findings


@pytest.mark.parametrize("answer, scaled", [(48 ** 0.5, False), (1.0, False), (48 ** 2, False), (1 / 48, False),
                                            (0, False), (20, False), (48, True), (48 ** 0.5, True), (1 / 48, True),
                                            (48 ** -0.5, True)])
def test_a_wrong_answer_is_explained_without_the_right_value(answer, scaled):
    feedback = check_variance(answer, d_k=48, scaled=scaled)  # the unscaled variance is 48, the scaled one 1
    assert not feedback.passed
    text = feedback.reason + " " + feedback.hint
    if scaled:
        assert "leaves 1" not in text and "= 1." not in text, text
    else:
        assert "48" not in text.replace(f"{48 ** 0.5:.4g}", "").replace(f"{48 ** 2:.4g}", ""), text
