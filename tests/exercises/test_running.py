"""Running the learner's code safely: exceptions with the learner's line, SystemExit, the time limit, the guard
against calling attn_lib's own function, odd return values, warnings and inputs kept to the learner's call."""

import functools
import linecache
import signal
import sys
import time
import types
import warnings

import numpy as np
import pytest

import attn_lib
from attn_lib import softmax as renamed_softmax
from attn_lib import exercises
from attn_lib.exercises import _running, check_attention, check_masked_softmax, check_softmax
from attn_lib.exercises._judge import judge

from judge_demo import FUNCTION_CHECKERS, PROBLEM, softmax_rows


# ----------------------------------------------------------------------------------- attn_lib's own function


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


def test_forbidden_call_inside_a_callable_object_is_found():
    class Softmaxer:
        def __call__(self, x):
            return renamed_softmax(x)

    assert judge(Softmaxer(), PROBLEM).mistake == "used-attn-lib"


class _Holder:
    def softmax(self, x):
        return attn_lib.softmax(x)


def _decorated(f):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        return f(*args, **kwargs)
    return wrapper


# Every function checker that forbids an attn_lib function, given that function itself (my_softmax = softmax).
_ORIGINALS = [
    (exercises.check_softmax, "softmax"), (exercises.check_temperature_softmax, "softmax"),
    (exercises.check_attention, "attention"), (exercises.check_masked_softmax, "attention"),
    (exercises.check_chunked_attention, "chunked_attention"), (exercises.check_causal_mask, "causal_mask"),
    (exercises.check_padding_mask, "padding_mask"), (exercises.check_scaled_scores, "scaled_scores"),
    (exercises.check_scores, "scaled_scores"), (exercises.check_dW_q, "attention_backward"),
    (exercises.check_multihead, "MultiHeadAttention"),
]


@pytest.mark.parametrize("wrap", [lambda f: f, functools.partial, _decorated], ids=["itself", "partial", "wraps"])
@pytest.mark.parametrize("checker, name", _ORIGINALS, ids=[f"{c.__name__}-{n}" for c, n in _ORIGINALS])
def test_attn_libs_own_function_passed_as_the_answer_is_named(checker, name, wrap):
    feedback = checker(wrap(getattr(attn_lib, name)))
    assert feedback.mistake == "used-attn-lib" and f"attn_lib.{name}" in feedback.reason + feedback.hint


def test_attn_libs_function_as_a_bound_method_is_unwrapped():
    method = types.MethodType(attn_lib.softmax, object())
    assert _running.forbidden_original(method, PROBLEM) == "softmax"
    assert _running.forbidden_original(_Holder().softmax, PROBLEM) is None  # calls it: caught when it runs
    assert judge(_Holder().softmax, PROBLEM).mistake == "used-attn-lib"


# ------------------------------------------------------------------------------------- time limit and exit


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


def test_a_timer_the_caller_armed_keeps_running_with_its_handler():
    def outer(signum, frame):
        raise AssertionError("the caller's alarm must not ring during the check")

    before = signal.signal(signal.SIGALRM, outer)
    try:
        signal.setitimer(signal.ITIMER_REAL, 100, 50)
        assert judge(softmax_rows, PROBLEM).passed
        left, interval = signal.getitimer(signal.ITIMER_REAL)
        assert 90 < left <= 100 and interval == 50
        assert signal.getsignal(signal.SIGALRM) is outer
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)


def test_the_callers_timer_due_during_the_check_rings_after_it():
    rang = []
    before = signal.signal(signal.SIGALRM, lambda signum, frame: rang.append(signum))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        judge(lambda x: (time.sleep(0.1), softmax_rows(x))[1], PROBLEM)
        time.sleep(0.05)
        assert rang == [signal.SIGALRM]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)


def test_a_traced_call_is_charged_a_fraction_of_its_time():
    import tracemalloc

    def slowish(x):  # 0.4 s per call, 2 cases: 0.8 s, over the 0.5 s budget untraced
        time.sleep(0.4)
        return softmax_rows(x)

    assert judge(slowish, PROBLEM).mistake == "too-slow"
    tracemalloc.start()
    try:
        assert judge(slowish, PROBLEM).passed  # charged 0.8 s / TRACED_DISCOUNT
    finally:
        tracemalloc.stop()


def test_a_right_answer_passes_outside_the_main_thread():
    import threading

    out = []
    thread = threading.Thread(target=lambda: out.append(judge(softmax_rows, PROBLEM)))
    thread.start()
    thread.join()
    assert out[0].passed


def _forever(x):
    while True:
        pass


def test_an_endless_loop_is_stopped_outside_the_main_thread(monkeypatch):
    """Signals reach only the main thread: elsewhere the limit is kept by a trace function."""
    import threading

    monkeypatch.setattr(_running, "TIME_LIMIT", 0.2)
    out = []
    thread = threading.Thread(target=lambda: out.append(judge(_forever, PROBLEM)))
    thread.start()
    thread.join(timeout=30)
    assert not thread.is_alive() and out[0].mistake == "too-slow"


def test_an_endless_loop_is_stopped_where_there_are_no_signals(monkeypatch):
    """As in the browser (Pyodide has no signals): the trace function keeps the time limit."""
    monkeypatch.setattr(_running, "SIGNALS", False)
    monkeypatch.setattr(_running, "TIME_LIMIT", 0.2)
    old = signal.getsignal(signal.SIGALRM)
    feedback = judge(_forever, PROBLEM)
    assert feedback.mistake == "too-slow", feedback
    assert signal.getsignal(signal.SIGALRM) is old and sys.gettrace() is None  # nothing left behind
    assert judge(softmax_rows, PROBLEM).passed


def test_the_browser_is_known_to_have_no_signals():
    assert _running.signals_work(in_browser=True) is False
    assert _running.signals_work(in_browser=False) is hasattr(signal, "setitimer") is _running.SIGNALS


def test_time_spent_in_the_checker_itself_is_not_counted():
    """The checker's own work (here its cases, 0.6 s: more than the 0.5 s limit) is not the learner's; the learner's
    calls (0.05 s each, 0.1 s in all) are, with a margin no load on a shared machine closes."""
    import dataclasses
    import time as _time

    def slow_cases():
        _time.sleep(0.6)
        return PROBLEM.cases()

    def a_little_slow(x):
        _time.sleep(0.05)
        return softmax_rows(x)

    assert judge(a_little_slow, dataclasses.replace(PROBLEM, cases=slow_cases)).passed


def test_module_timer_constant():
    assert _running.TIME_LIMIT == 10.0


def test_system_exit_becomes_feedback():
    feedback = judge(lambda x: sys.exit("stop"), PROBLEM)
    assert feedback.mistake == "exit" and "SystemExit" in feedback.reason


def learner_that_exits(*args, **kwargs):
    raise SystemExit(1)


@pytest.mark.parametrize("name", sorted(FUNCTION_CHECKERS))
def test_system_exit_in_learner_code_becomes_feedback(name):
    checker, _ = FUNCTION_CHECKERS[name]
    feedback = checker(learner_that_exits)
    assert feedback.mistake == "exit" and "SystemExit" in feedback.reason


@pytest.mark.parametrize("name", sorted(FUNCTION_CHECKERS))
def test_endless_learner_code_is_stopped(name, monkeypatch):
    monkeypatch.setattr(_running, "TIME_LIMIT", 0.2)  # 10 s in the notebooks
    checker, _ = FUNCTION_CHECKERS[name]

    def forever(*args, **kwargs):
        while True:
            pass

    feedback = checker(forever)
    assert feedback.mistake == "too-slow"
    assert "still running after" in feedback.reason


# ------------------------------------------------------------------------------------------ learner errors


def learner_that_divides_by_zero(*args, **kwargs):
    total = 0
    return args[0] / total if isinstance(args[0], int) else 1 // total


@pytest.mark.parametrize("name", sorted(FUNCTION_CHECKERS))
def test_learner_exception_becomes_feedback_with_its_line(name):
    checker, _ = FUNCTION_CHECKERS[name]
    feedback = checker(learner_that_divides_by_zero)
    assert not feedback.passed
    assert feedback.mistake == "exception"
    assert "ZeroDivisionError" in feedback.reason
    assert "test_running.py: return args[0] / total if isinstance" in feedback.reason


def test_exception_in_a_notebook_cell_is_reported_as_a_line_of_the_cell():
    # ipykernel compiles each cell under a file name like /tmp/ipykernel_<pid>/<hash>.py and caches its source.
    filename = "/tmp/ipykernel_4242/123456789.py"
    source = "def my_softmax(x):\n    e = np.exp(x)\n    return e / e.sum(axis=2)\n"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"np": np}
    try:
        exec(compile(source, filename, "exec"), namespace)
        feedback = check_softmax(namespace["my_softmax"])
    finally:
        linecache.cache.pop(filename, None)
    assert feedback.mistake == "exception"
    assert "AxisError" in feedback.reason
    assert "line 3 of your cell: return e / e.sum(axis=2)" in feedback.reason
    assert "ipykernel" not in feedback.reason  # the cell's file name changes from run to run


def test_exception_deep_inside_numpy_points_at_the_learner_line():
    def bad_matmul(Q, K, V, mask=None):
        scores = np.matmul(Q, V)  # the learner multiplies the wrong pair
        return scores @ V

    feedback = check_attention(bad_matmul)
    assert "scores = np.matmul(Q, V)" in feedback.reason
    assert "numpy" not in feedback.reason.split("(line")[1]


# ---------------------------------------------------------------------------- odd returns, warnings, inputs


@pytest.mark.parametrize("fn, mistake", [(lambda x: None, "returned-none"), (lambda x: (x, x), "returned-tuple"),
                                         (lambda x: "text", "not-an-array"), (lambda x: x[9], "exception")])
def test_odd_answers(fn, mistake):
    assert judge(fn, PROBLEM).mistake == mistake


@pytest.mark.parametrize(
    "fn, mistake",
    [
        (lambda x: None, "returned-none"),
        (lambda x: (x, x), "returned-tuple"),
        (lambda x: "weights", "not-an-array"),
    ],
)
def test_odd_return_values_are_explained(fn, mistake):
    assert check_softmax(fn).mistake == mistake


def test_learner_warnings_do_not_leak_into_the_notebook():
    def naive(x):
        return np.exp(x) / np.exp(x).sum(axis=-1, keepdims=True)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert check_softmax(naive).mistake == "naive-overflow"
    assert caught == []


def test_learner_cannot_change_the_checkers_inputs():
    def scribbles(x):
        out = np.exp(x - x.max(axis=-1, keepdims=True))
        out /= out.sum(axis=-1, keepdims=True)
        x[...] = 0.0  # modifies its input in place
        return out

    assert check_softmax(scribbles).passed
    assert check_softmax(scribbles).passed


def test_an_answer_that_changes_its_input_in_place_passes_with_a_note():
    def masked_in_place(scores, mask):
        np.putmask(scores, ~np.broadcast_to(mask, scores.shape), -np.inf)  # changes the caller's scores
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    feedback = check_masked_softmax(masked_in_place)
    assert feedback.passed, feedback
    assert "changed the array passed as `scores` (in place)" in feedback.reason


def test_an_answer_that_leaves_its_inputs_alone_gets_no_note():
    def masked_copy(scores, mask):
        scores = np.where(mask, scores, -np.inf)  # a new array: the caller's scores stay as they were
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    feedback = check_masked_softmax(masked_copy)
    assert feedback.passed and "in place" not in feedback.reason, feedback


def test_what_the_learners_function_writes_to_stderr_is_shown_on_stdout_and_a_right_function_passes(capsys):
    def chatty_softmax(x):
        print("debugging: rows of", x.shape[-1], file=sys.stderr)
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    stderr = sys.stderr
    feedback = check_softmax(chatty_softmax)
    out, err = capsys.readouterr()
    assert feedback.passed, feedback
    assert "debugging: rows of" in out and err == ""
    assert sys.stderr is stderr  # the redirection ends with the check


def test_an_attn_lib_input_error_is_described_as_the_builtin_it_is():
    from attn_lib._checks import InputValueError
    from attn_lib.exercises._running import Raised

    assert Raised(InputValueError("mask blocks every key")).describe() == "ValueError: mask blocks every key"
    assert Raised(KeyError("x")).describe() == "KeyError: 'x'"
