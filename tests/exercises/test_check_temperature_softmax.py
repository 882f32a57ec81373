"""check_temperature_softmax against hand-written learner answers: each wrong one gets its own mistake id, every
right one passes whatever its style."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attn_lib
from attn_lib.exercises._explain import NAIVE_OVERFLOW
from attn_lib.exercises import check_temperature_softmax


def stable(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def naive(x):
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def log_sum_exp(scores, temperature):
    s = scores / temperature
    top = s.max(axis=-1, keepdims=True)
    return np.exp(s - top - np.log(np.exp(s - top).sum(axis=-1, keepdims=True)))


def row_loop(scores, temperature):
    out = np.empty_like(scores, dtype=float)
    for idx in np.ndindex(*scores.shape[:-1]):
        row = [x / temperature for x in scores[idx]]
        top = max(row)
        exps = [np.exp(x - top) for x in row]
        out[idx] = [e / sum(exps) for e in exps]
    return out


def renormalised_power(scores, temperature):  # softmax(s)^(1/T), renormalised, equals softmax(s / T)
    w = stable(scores) ** (1 / temperature)
    return w / w.sum(axis=-1, keepdims=True)


RIGHT = {
    "divide-then-stable": lambda scores, temperature: stable(scores / temperature),
    "shift-then-divide": lambda scores, temperature: naive((scores - scores.max(-1, keepdims=True)) / temperature),
    "log-sum-exp": log_sum_exp,
    "row-loop": row_loop,
    "float32": lambda scores, temperature: stable((scores / temperature).astype(np.float32)),
    "renormalised-power": renormalised_power,
}

WRONG = {
    "multiplied-by-temperature": lambda scores, temperature: stable(scores * temperature),
    "temperature-after-softmax": lambda scores, temperature: stable(scores) / temperature,
    "temperature-ignored": lambda scores, temperature: stable(scores),
    "softmax-wrong-axis": lambda scores, temperature: stable(scores / temperature, axis=-2),
    "softmax-whole-array": lambda scores, temperature: stable((scores / temperature).ravel()).reshape(scores.shape),
    "no-division": lambda scores, temperature: np.exp(scores / temperature - (scores / temperature).max(-1, keepdims=True)),
    "naive-overflow": lambda scores, temperature: naive(scores / temperature),
    "no-batch": lambda scores, temperature: stable(scores / temperature, axis=1),
    "wrong-values": lambda scores, temperature: stable(scores / (temperature + 0.5)),
}

ALSO = {
    "temperature-after-softmax": lambda scores, temperature: stable(scores) * temperature,
    "temperature-ignored": lambda scores, temperature: stable(scores - temperature),
}


@pytest.mark.parametrize("name", RIGHT)
def test_right_answers_pass_whatever_their_style(name):
    feedback = check_temperature_softmax(RIGHT[name])
    assert feedback.passed, f"{name}: {feedback}"


@pytest.mark.parametrize("mistake", WRONG)
def test_each_wrong_answer_gets_its_own_mistake(mistake):
    feedback = check_temperature_softmax(WRONG[mistake])
    assert feedback.mistake == mistake, f"expected {mistake}, got {feedback.mistake}: {feedback}"
    assert not feedback.passed and feedback.reason


@pytest.mark.parametrize("mistake", ALSO)
def test_other_forms_of_a_mistake_get_the_same_id(mistake):
    assert check_temperature_softmax(ALSO[mistake]).mistake == mistake


def test_overflow_reason_names_the_small_temperature():
    assert "small temperature" in check_temperature_softmax(WRONG["naive-overflow"]).reason


def test_placeholders_and_calls_to_attn_lib_are_named():
    def stub(scores, temperature):
        raise NotImplementedError

    assert check_temperature_softmax(None).mistake == "not-answered"
    assert check_temperature_softmax(stub).mistake == "not-answered"
    assert check_temperature_softmax(lambda s, t: attn_lib.softmax(s / t)).mistake == "used-attn-lib"
    assert check_temperature_softmax(lambda scores: scores).mistake == "wrong-signature"


@settings(max_examples=15, deadline=None)
@given(st.floats(min_value=-1000.0, max_value=1000.0))
def test_a_constant_added_to_the_scores_first_changes_nothing(c):
    # Shift invariance: softmax((scores + c) / T) = softmax(scores / T) for every constant c.
    assert check_temperature_softmax(lambda scores, temperature: stable((scores + c) / temperature)).passed


def test_the_module_table_lists_every_mistake_id():
    import attn_lib.exercises as exercises
    from attn_lib.exercises._check_temperature_softmax import PROBLEM

    for mistake in PROBLEM.mistakes():
        assert mistake.id in exercises.__doc__, mistake.id
    assert (PROBLEM.overflow or NAIVE_OVERFLOW)[0] in exercises.__doc__


# ----------------------------------------------------------------------------------------------- findings


@pytest.mark.parametrize("fn", [
    lambda scores, temperature: (lambda e: e / e.sum(axis=-1, keepdims=True))(
        np.exp(scores / temperature - (scores / temperature).max())),  # one maximum for the whole array
    lambda scores, temperature: (lambda s: (lambda e: e / e.sum(axis=-1, keepdims=True))(
        np.exp(s - s.max(axis=(-2, -1), keepdims=True))))(scores / temperature),  # one maximum per matrix
])
def test_one_maximum_for_all_rows_is_global_max(fn):
    feedback = check_temperature_softmax(fn)
    assert feedback.mistake == "global-max", feedback
    assert "each row's own maximum" in feedback.hint


def test_row_maximum_then_one_sum_for_the_whole_array_is_softmax_whole_array():
    def whole_sum(scores, temperature):
        s = scores / temperature
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        return e / e.sum()

    assert check_temperature_softmax(whole_sum).mistake == "softmax-whole-array"


def test_calling_attn_lib_softmax_says_the_stable_softmax_is_part_of_the_problem():
    feedback = check_temperature_softmax(lambda scores, temperature: attn_lib.softmax(scores / temperature))
    assert feedback.mistake == "used-attn-lib"
    assert "the function this problem asks you to write" not in feedback.reason
    assert "temperature" in feedback.reason


@pytest.mark.parametrize("fn, mistake", [
    (lambda scores, temperature: stable(scores / temperature ** 2), "temperature-squared"),
    (lambda scores, temperature: stable(scores / np.sqrt(temperature)), "temperature-square-root"),
    (lambda scores, temperature: (lambda e: e / e.sum(axis=-1))(
        np.exp(scores / temperature - (scores / temperature).max(axis=-1, keepdims=True))), "no-keepdims"),
])
def test_more_temperature_mistakes_are_named(fn, mistake):
    assert check_temperature_softmax(fn).mistake == mistake


def test_a_loop_over_one_batch_axis_is_no_batch():
    def rows_of_2d(x):  # axis=1: right on 2-D only
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    feedback = check_temperature_softmax(
        lambda s, t: rows_of_2d(s / t) if s.ndim == 2 else np.array([rows_of_2d(m / t) for m in s]))
    assert feedback.mistake == "no-batch", feedback
    assert "two leading axes" in feedback.reason


def test_weights_raised_to_one_over_t_are_power_after_softmax():
    feedback = check_temperature_softmax(lambda scores, t: stable(scores) ** (1 / t))
    assert feedback.mistake == "power-after-softmax", feedback
    assert "ratios do not change" not in feedback.reason and "no longer sum to one" in feedback.reason
