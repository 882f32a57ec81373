"""The judging skeleton: blanks, signatures, right answers, the same words on every run."""

import numpy as np
import pytest

from attn_lib.exercises import check_attention
from attn_lib.exercises._judge import judge

from judge_demo import FUNCTION_CHECKERS, PROBLEM, softmax_rows


def test_right_answer_passes():
    assert judge(softmax_rows, PROBLEM).passed


def test_not_implemented_and_blank_are_not_answered():
    def stub(x):
        raise NotImplementedError

    assert judge(stub, PROBLEM).mistake == "not-answered"
    assert judge(None, PROBLEM).mistake == "not-answered"
    assert judge(..., PROBLEM).mistake == "not-answered"


@pytest.mark.parametrize("fn, mistake", [(3, "not-callable"), (lambda: 1, "wrong-signature")])
def test_odd_answers(fn, mistake):
    assert judge(fn, PROBLEM).mistake == mistake


@pytest.mark.parametrize("name", sorted(FUNCTION_CHECKERS))
def test_none_is_not_answered_yet(name):
    checker, _ = FUNCTION_CHECKERS[name]
    feedback = checker(None)
    assert not feedback.passed
    assert feedback.mistake == "not-answered"
    assert repr(feedback).startswith("Not answered yet:")


@pytest.mark.parametrize("name", sorted(FUNCTION_CHECKERS))
def test_not_implemented_is_not_answered_yet(name):
    checker, arity = FUNCTION_CHECKERS[name]
    stubs = {
        1: lambda a: (_ for _ in ()).throw(NotImplementedError),
        2: lambda a, b: (_ for _ in ()).throw(NotImplementedError),
        3: lambda a, b, c, mask=None: (_ for _ in ()).throw(NotImplementedError),
        4: lambda a, b, c, d: (_ for _ in ()).throw(NotImplementedError),
    }
    feedback = checker(stubs[arity])
    assert feedback.mistake == "not-answered" and "This cell checks your function" in feedback.reason


@pytest.mark.parametrize("name", sorted(FUNCTION_CHECKERS))
def test_not_callable_is_explained(name):
    checker, _ = FUNCTION_CHECKERS[name]
    feedback = checker(np.zeros((3, 3)))
    assert feedback.mistake == "not-callable"
    assert f"{name}(my_function)" in feedback.reason


@pytest.mark.parametrize("name", sorted(FUNCTION_CHECKERS))
def test_wrong_number_of_parameters_is_explained(name):
    checker, _ = FUNCTION_CHECKERS[name]

    def five(a, b, c, d, e):
        return a

    feedback = checker(five)
    assert feedback.mistake == "wrong-signature"
    assert "five(a, b, c, d, e)" in feedback.reason


def test_checkers_are_deterministic():
    def no_scale(Q, K, V, mask=None):
        s = Q @ K.T
        if mask is not None:
            s = np.where(mask, s, -np.inf)
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True) @ V

    assert repr(check_attention(no_scale)) == repr(check_attention(no_scale))


def test_a_float16_answer_with_another_mistake_is_told_both_and_the_dtype_once():
    """The coarse dtype is a second cause: named once, after a structural reason or inside a difference."""
    from attn_lib.exercises import check_softmax

    def half_no_division(x):  # no division, cast to float16: its rows do not sum to one, plus the cast
        return np.exp(x - x.max(axis=-1, keepdims=True)).astype(np.float16)

    def half_and_off(x):  # far from the right weights, in float16: a wrong answer plus the cast
        e = np.exp(2 * (x - x.max(axis=-1, keepdims=True)))
        return (e / e.sum(axis=-1, keepdims=True)).astype(np.float16)

    for fn in (half_no_division, half_and_off):
        feedback = check_softmax(fn)
        assert not feedback.passed and feedback.mistake != "low-precision", feedback
        assert feedback.reason.count("float16") == 1, feedback.reason


def test_a_float16_answer_wrong_on_the_batch_too_is_told_the_dtype_once():
    """No scaling, K.T on a batch, and a float16 result: three causes, the dtype said once."""
    from attn_lib.exercises import check_attention

    def three_mistakes(Q, K, V, mask=None):
        s = Q @ K.T
        if mask is not None:
            s = np.where(mask, s, -np.inf)
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        return ((e / e.sum(axis=-1, keepdims=True)) @ V).astype(np.float16)

    feedback = check_attention(three_mistakes)
    assert not feedback.passed
    assert feedback.reason.count("float16") == 1, feedback.reason
