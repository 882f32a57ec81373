"""check_scaled_scores against hand-written learner answers: each wrong one gets its own mistake id, every
right one passes whatever its style."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attn_lib
from attn_lib.exercises._explain import NAIVE_OVERFLOW
from attn_lib.exercises import check_scaled_scores


def swap(K):
    return np.swapaxes(K, -1, -2)


def qkt(Q, K):
    return Q @ swap(K)


def loops(Q, K):
    d_k = Q.shape[-1]
    out = np.zeros(Q.shape[:-1] + (K.shape[-2],))
    for batch in np.ndindex(*Q.shape[:-2]):
        for i in range(Q.shape[-2]):
            for j in range(K.shape[-2]):
                out[batch + (i, j)] = np.dot(Q[batch + (i,)], K[batch + (j,)]) / d_k**0.5
    return out


RIGHT = {
    "divide-after": lambda Q, K: qkt(Q, K) / np.sqrt(Q.shape[-1]),
    "scale-Q-first": lambda Q, K: (Q / np.sqrt(Q.shape[-1])) @ swap(K),
    "scale-K-first": lambda Q, K: Q @ swap(K * K.shape[-1] ** -0.5),
    "sqrt-of-each": lambda Q, K: (Q / Q.shape[-1] ** 0.25) @ swap(K / K.shape[-1] ** 0.25),
    "einsum": lambda Q, K: np.einsum("...nd,...md->...nm", Q, K) / np.sqrt(K.shape[-1]),
    "float32": lambda Q, K: (Q.astype(np.float32) @ swap(K).astype(np.float32)) / np.float32(np.sqrt(Q.shape[-1])),
    "matmul": lambda Q, K: np.matmul(Q, np.moveaxis(K, -1, -2)) * Q.shape[-1] ** -0.5,
    "plain-loops": loops,
}

WRONG = {
    "transpose-on-batch": lambda Q, K: Q @ K.T / np.sqrt(Q.shape[-1]),
    "dk-from-wrong-axis": lambda Q, K: qkt(Q, K) / np.sqrt(Q.shape[1]),
    "no-transpose": lambda Q, K: Q @ K / np.sqrt(Q.shape[-1]),
    "keys-times-queries": lambda Q, K: K @ swap(Q) / np.sqrt(Q.shape[-1]),
    "no-scaling": qkt,
    "divide-by-dk": lambda Q, K: qkt(Q, K) / Q.shape[-1],
    "multiply-by-sqrt-dk": lambda Q, K: qkt(Q, K) * np.sqrt(Q.shape[-1]),
    "d-model-scaling": lambda Q, K: qkt(Q, K) / np.sqrt(512),
    "hardcoded-dk": lambda Q, K: qkt(Q, K) / 8,
    "dk-from-rows": lambda Q, K: qkt(Q, K) / np.sqrt(K.shape[-2]),
    "no-batch": lambda Q, K: Q @ K.transpose(1, 0) / np.sqrt(Q.shape[-1]),
    "wrong-values": lambda Q, K: qkt(Q, K) / np.sqrt(Q.shape[-1] + 1),
}

ALSO = {  # second forms of a named mistake
    "divide-by-dk": (lambda Q, K: (Q / np.sqrt(Q.shape[-1])) @ swap(K / np.sqrt(K.shape[-1]))),
    "d-model-scaling": (lambda Q, K: qkt(Q, K) / 512),
    "dk-from-rows": (lambda Q, K: qkt(Q, K) / np.sqrt(Q.shape[-2])),
}


@pytest.mark.parametrize("name", RIGHT)
def test_right_answers_pass_whatever_their_style(name):
    feedback = check_scaled_scores(RIGHT[name])
    assert feedback.passed, f"{name}: {feedback}"


@pytest.mark.parametrize("mistake", WRONG)
def test_each_wrong_answer_gets_its_own_mistake(mistake):
    feedback = check_scaled_scores(WRONG[mistake])
    assert feedback.mistake == mistake, f"expected {mistake}, got {feedback.mistake}: {feedback}"
    assert not feedback.passed and feedback.reason


@pytest.mark.parametrize("mistake", ALSO)
def test_other_forms_of_a_mistake_get_the_same_id(mistake):
    assert check_scaled_scores(ALSO[mistake]).mistake == mistake


def test_scaling_reasons_speak_of_the_standard_deviation_of_a_score():
    assert "standard deviation is sqrt(d_k)" in check_scaled_scores(WRONG["divide-by-dk"]).reason
    assert "per-head width" in check_scaled_scores(WRONG["d-model-scaling"]).reason


def test_placeholders_and_calls_to_attn_lib_are_named():
    def stub(Q, K):
        raise NotImplementedError

    assert check_scaled_scores(None).mistake == "not-answered"
    assert check_scaled_scores(stub).mistake == "not-answered"
    assert check_scaled_scores(lambda Q, K: attn_lib.scaled_scores(Q, K)).mistake == "used-attn-lib"


@settings(max_examples=15, deadline=None)
@given(st.floats(min_value=0.05, max_value=20.0))
def test_the_division_may_be_shared_between_Q_and_K_in_any_proportion(c):
    # (c Q)(K / (c sqrt(d_k)))^T = Q K^T / sqrt(d_k) for every c > 0: all such answers are right.
    assert check_scaled_scores(lambda Q, K: (c * Q) @ swap(K / (c * np.sqrt(Q.shape[-1])))).passed


def test_the_module_table_lists_every_mistake_id():
    import attn_lib.exercises as exercises
    from attn_lib.exercises._check_scaled_scores import PROBLEM

    for mistake in PROBLEM.mistakes():
        assert mistake.id in exercises.__doc__, mistake.id
    assert (PROBLEM.overflow or NAIVE_OVERFLOW)[0] in exercises.__doc__


@pytest.mark.parametrize("fn", [lambda Q, K: qkt(Q, K) / np.sqrt(Q.shape[0]), lambda Q, K: qkt(Q, K) / np.sqrt(len(Q))],
                         ids=["shape-0", "len"])
def test_dividing_by_the_number_of_rows_is_dk_from_rows(fn):
    feedback = check_scaled_scores(fn)
    assert feedback.mistake == "dk-from-rows", feedback
    assert "Q.shape[1] is n" not in feedback.reason


@pytest.mark.parametrize("fn", [
    lambda Q, K: qkt(Q, K) / math.isqrt(Q.shape[-1]),
    lambda Q, K: qkt(Q, K) / int(np.sqrt(Q.shape[-1])),
    lambda Q, K: qkt(Q, K) / round(Q.shape[-1] ** 0.5),
], ids=["isqrt", "int-sqrt", "round-sqrt"])
def test_a_square_root_rounded_to_a_whole_number_is_named(fn):
    # Issue 17: with only perfect-square widths (64, 16, 9, 4, 25) these passed.
    feedback = check_scaled_scores(fn)
    assert feedback.mistake == "rounded-sqrt", feedback
    assert "perfect square" in feedback.reason


def test_scores_slightly_too_large_cast_to_float16_do_not_pass():
    # Issue 17: a float16 answer widened the tolerance to about 2 %, so scores 1.5 % too large passed.
    feedback = check_scaled_scores(lambda Q, K: (qkt(Q, K) / np.sqrt(Q.shape[-1]) * 1.015).astype(np.float16))
    assert feedback.mistake == "wrong-values", feedback
    rounded = check_scaled_scores(lambda Q, K: (qkt(Q, K) / np.sqrt(Q.shape[-1])).astype(np.float16))
    assert rounded.mistake == "low-precision" and "judged at their precision" in rounded.reason, rounded
