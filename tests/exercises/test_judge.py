"""The shared judging skeleton: safe running, dtype-aware tolerance, mistake matching, diagnosis."""

import signal
import sys

import numpy as np
import pytest

import attn_lib
from attn_lib import softmax as renamed_softmax
from attn_lib.exercises import _judge
from attn_lib.exercises._judge import Case, FunctionProblem, Mistake, agreeing_digits, judge, two_numbers


def _softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _cases():
    rng = np.random.default_rng(0)
    x, big = rng.normal(size=(3, 4)), 1000 + rng.normal(size=(2, 5))
    return [Case("small", {"x": x}, _softmax(x)), Case("large", {"x": big}, _softmax(big), tags={"large"})]


def _mistakes():
    return [Mistake("no-division", "not divided", "divide",
                    (lambda x: np.exp(x - x.max(axis=-1, keepdims=True)),))]


PROBLEM = FunctionProblem("check_demo", ("x",), _cases, _mistakes, "right on {count}", what="weights",
                          forbidden=("softmax",), time_limit=0.5)


def test_right_answer_passes_and_float32_right_to_its_rounding_passes():
    assert judge(_softmax, PROBLEM).passed
    assert judge(lambda x: _softmax(x.astype(np.float32)), PROBLEM).passed


def test_answer_off_by_more_than_float32_rounding_is_not_right():
    assert judge(lambda x: _softmax(x) * (1 + 1e-4 * (np.arange(x.shape[-1]) == 0)), PROBLEM).mistake == "wrong-values"


def test_float16_answer_gets_float16_tolerance_and_float64_does_not():
    assert judge(lambda x: _softmax(x).astype(np.float16), PROBLEM).passed
    assert not judge(lambda x: _softmax(x).astype(np.float16).astype(float), PROBLEM).passed


def test_mistake_table_and_overflow():
    assert judge(lambda x: np.exp(x - x.max(axis=-1, keepdims=True)), PROBLEM).mistake == "no-division"
    assert judge(lambda x: np.exp(x) / np.exp(x).sum(axis=-1, keepdims=True), PROBLEM).mistake == "naive-overflow"


@pytest.mark.parametrize("fn", [lambda x: renamed_softmax(x), lambda x: attn_lib.softmax(x),
                                lambda x: sys.modules["attn_lib.attention"].softmax(x)])
def test_calling_the_forbidden_function_under_any_name_is_named_and_then_restored(fn):
    original = sys.modules["attn_lib.attention"].softmax
    assert judge(fn, PROBLEM).mistake == "used-attn-lib"
    assert attn_lib.softmax is original and renamed_softmax is original
    assert sys.modules["attn_lib.attention"].softmax is original


def test_forbidden_functions_restored_even_when_the_learner_raises():
    def boom(x):
        renamed_softmax(x)
        raise KeyError("boom")

    assert judge(boom, PROBLEM).mistake == "used-attn-lib"
    assert globals()["renamed_softmax"] is attn_lib.softmax


def test_endless_loop_gets_too_slow_and_the_alarm_is_restored():
    def forever(x):
        while True:
            try:
                pass
            except Exception:  # a learner's broad except cannot swallow the time limit
                pass

    before = signal.getsignal(signal.SIGALRM)
    assert judge(forever, PROBLEM).mistake == "too-slow"
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_system_exit_becomes_feedback():
    feedback = judge(lambda x: sys.exit("stop"), PROBLEM)
    assert feedback.mistake == "exit" and "SystemExit" in feedback.reason


def test_not_implemented_and_blank_are_not_answered():
    def stub(x):
        raise NotImplementedError

    assert judge(stub, PROBLEM).mistake == "not-answered"
    assert judge(None, PROBLEM).mistake == "not-answered"
    assert judge(..., PROBLEM).mistake == "not-answered"


@pytest.mark.parametrize("fn, mistake", [(3, "not-callable"), (lambda: 1, "wrong-signature"),
                                         (lambda x: None, "returned-none"), (lambda x: (x, x), "returned-tuple"),
                                         (lambda x: "text", "not-an-array"), (lambda x: x[9], "exception")])
def test_odd_answers(fn, mistake):
    assert judge(fn, PROBLEM).mistake == mistake


def test_digits_agree_and_differ():
    assert agreeing_digits(0.225979, 0.225977) == 5
    assert agreeing_digits(1.0, -1.0) == 0
    a, b = two_numbers(0.28213001, 0.28213012)
    assert a != b and a.startswith("0.282130")


def test_wrong_value_close_to_right_names_rounding():
    feedback = judge(lambda x: _softmax(x) * (1 + 3e-4 * (np.arange(x.shape[-1]) == 0)), PROBLEM)
    assert "significant digits" in feedback.reason and "rounding" in feedback.reason


def test_time_limit_is_skipped_outside_the_main_thread():
    import threading

    out = []
    thread = threading.Thread(target=lambda: out.append(judge(_softmax, PROBLEM)))
    thread.start()
    thread.join()
    assert out[0].passed


def test_module_timer_constant():
    assert _judge.TIME_LIMIT == 10.0


def test_forbidden_call_inside_a_callable_object_is_found():
    class Softmaxer:
        def __call__(self, x):
            return renamed_softmax(x)

    assert judge(Softmaxer(), PROBLEM).mistake == "used-attn-lib"


def test_time_spent_in_the_checker_itself_is_not_counted():
    import time as _time

    def slowish(x):  # 0.2 s per call, 2 cases: 0.4 s of a 0.5 s budget
        _time.sleep(0.2)
        return _softmax(x)

    assert judge(slowish, PROBLEM).passed
