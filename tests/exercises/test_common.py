"""Feedback, and what every checker does with blanks, errors and odd return values.

The mistakes each checker recognises are tested in test_check_attention.py, test_check_softmax.py and
test_check_predictions.py.
"""

import linecache
import warnings

import numpy as np
import pytest

from attn_lib.exercises import (
    Feedback,
    check_attention,
    check_causal_mask,
    check_chunked_attention,
    check_count,
    check_masked_softmax,
    check_shapes,
    check_softmax,
    check_split_heads,
    check_variance,
)

# Each function checker with the number of arguments it passes to the learner's function.
FUNCTION_CHECKERS = {
    "check_attention": (check_attention, 3),
    "check_softmax": (check_softmax, 1),
    "check_masked_softmax": (check_masked_softmax, 2),
    "check_causal_mask": (check_causal_mask, 2),
    "check_split_heads": (check_split_heads, 2),
    "check_chunked_attention": (check_chunked_attention, 4),
}
ANSWER_CHECKERS = {
    "check_shapes": lambda answer: check_shapes(answer, n=3, m=5, d_k=4, d_v=2),
    "check_count": lambda answer: check_count("scores", answer, n=10),
    "check_variance": lambda answer: check_variance(answer, d_k=64, scaled=False),
}


# ----------------------------------------------------------------------------------------------- Feedback


def test_feedback_text_repr_has_verdict_reason_and_hint():
    fb = Feedback(False, "The rows sum to 2.", "Divide by the row sum.", "rows-not-one")
    assert repr(fb) == "Not yet: The rows sum to 2.\nHint: Divide by the row sum."
    assert str(fb) == repr(fb)
    assert not fb and bool(Feedback(True, "Right."))
    assert repr(Feedback(True, "Right.")) == "Correct: Right."
    assert repr(Feedback(False, "Nothing yet.", "", "not-answered")) == "Not answered yet: Nothing yet."


def test_feedback_html_has_verdict_reason_hint_in_details_and_escapes():
    fb = Feedback(False, "weights < 0 at [1, 2]", "Use np.exp & divide.", "negative-weights")
    page = fb._repr_html_()
    assert "Not yet" in page
    assert "weights &lt; 0 at [1, 2]" in page
    assert "<details" in page and "<summary" in page and "Use np.exp &amp; divide." in page
    assert "weights < 0" not in page  # a raw '<' from the reason never reaches the HTML
    assert "Correct" in Feedback(True, "Right.")._repr_html_()
    assert "<details" not in Feedback(True, "Right.")._repr_html_()  # no empty hint box


def test_feedback_html_never_fixes_the_text_colour():
    # Readable in light and dark themes: text inherits the theme's colour; only the verdict is coloured.
    page = Feedback(False, "reason", "hint", "x")._repr_html_()
    for style in page.split('style="')[1:]:
        declarations = style.split('"')[0]
        if "color:" in declarations.replace("background", ""):
            assert "font-weight: bold" in declarations  # the verdict line alone


def test_feedback_text_wraps_long_reasons_without_splitting_shapes():
    reason = "word " * 30 + "has shape (3, 5, 7) and entry [12, 4]" + " word" * 30
    lines = repr(Feedback(False, reason)).splitlines()
    assert max(len(line) for line in lines) <= 100
    assert any("(3, 5, 7)" in line for line in lines) and any("[12, 4]" in line for line in lines)


def test_checkers_are_deterministic():
    def no_scale(Q, K, V, mask=None):
        s = Q @ K.T
        if mask is not None:
            s = np.where(mask, s, -np.inf)
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True) @ V

    assert repr(check_attention(no_scale)) == repr(check_attention(no_scale))


# ----------------------------------------------------------------------------------------------- blanks


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
    assert feedback.mistake == "not-answered" and "placeholder" in feedback.reason


@pytest.mark.parametrize("name", sorted(ANSWER_CHECKERS))
@pytest.mark.parametrize("blank", [None, ...])
def test_blank_answers_are_not_answered_yet(name, blank):
    feedback = ANSWER_CHECKERS[name](blank)
    assert feedback.mistake == "not-answered" and not feedback.passed


# ----------------------------------------------------------------------------------------------- learner errors


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
    assert "test_common.py: return args[0] / total if isinstance" in feedback.reason


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


def test_exception_hint_fits_the_exception():
    def shapes_clash(x):
        return x @ np.ones((7, 2))

    def undefined_name(x):
        return x / row_total  # noqa: F821

    assert "shapes that do not fit" in check_softmax(shapes_clash).hint
    assert "Define that name" in check_softmax(undefined_name).hint


# ----------------------------------------------------------------------------------------------- running safely


def learner_that_exits(*args, **kwargs):
    raise SystemExit(1)


@pytest.mark.parametrize("name", sorted(FUNCTION_CHECKERS))
def test_system_exit_in_learner_code_becomes_feedback(name):
    checker, _ = FUNCTION_CHECKERS[name]
    feedback = checker(learner_that_exits)
    assert feedback.mistake == "exit" and "SystemExit" in feedback.reason


@pytest.mark.parametrize("name", sorted(FUNCTION_CHECKERS))
def test_endless_learner_code_is_stopped(name, monkeypatch):
    from attn_lib.exercises import _judge

    monkeypatch.setattr(_judge, "TIME_LIMIT", 0.2)  # 10 s in the notebooks
    checker, _ = FUNCTION_CHECKERS[name]

    def forever(*args, **kwargs):
        while True:
            pass

    feedback = checker(forever)
    assert feedback.mistake == "too-slow"
    assert "still running after" in feedback.reason


def test_memory_check_works_when_tracemalloc_is_already_tracing():
    import tracemalloc

    def whole(Q, K, V, chunk_size):
        scores = Q @ K.T / np.sqrt(Q.shape[-1])
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True) @ V

    tracemalloc.start()
    try:
        assert check_chunked_attention(whole).mistake == "full-score-matrix"
        assert tracemalloc.is_tracing()
    finally:
        tracemalloc.stop()


def test_the_module_table_lists_every_mistake_id_of_every_function_checker():
    import attn_lib.exercises as exercises
    from attn_lib.exercises import _check_attention, _check_causal_mask, _check_chunked, _check_softmax
    from attn_lib.exercises import _check_split_heads

    problems = [_check_attention._ATTENTION, _check_softmax._SOFTMAX, _check_softmax._MASKED,
                _check_causal_mask._CAUSAL, _check_split_heads._SPLIT, _check_chunked._CHUNKED]
    table = exercises.__doc__
    for problem in problems:
        for mistake in problem.mistakes():
            assert mistake.id in table, (problem.checker, mistake.id)
        assert problem.overflow[0] in table
