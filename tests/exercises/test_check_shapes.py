"""check_shapes: predicted shapes, right and wrong in the classic ways."""

import numpy as np
import pytest

from attn_lib.exercises import check_shapes


# n, m, d_k, d_v all different, so that every confusion gives a different shape.
SIZES = dict(n=3, m=5, d_k=4, d_v=2)
RIGHT_SHAPES = {"Q": (3, 4), "K": (5, 4), "V": (5, 2), "scores": (3, 5), "weights": (3, 5), "output": (3, 2)}

SHAPE_MISTAKES = {
    "q-transposed": ("Q", (4, 3), "one query per row"),
    "q-rows-m": ("Q", (5, 4), "one row per query"),
    "q-width-dv": ("Q", (3, 2), "share the keys' width d_k"),
    "k-transposed": ("K", (4, 5), "K^T, of shape (d_k, m)"),
    "k-rows-n": ("K", (3, 4), "one row per key: m rows"),
    "k-width-dv": ("K", (5, 2), "so they are d_k wide"),
    "v-transposed": ("V", (2, 5), "one value per row"),
    "v-rows-n": ("V", (3, 2), "one value for each key"),
    "v-width-dk": ("V", (5, 4), "V has width d_v"),
    "scores-transposed": ("scores", (5, 3), "not (m, n)"),
    "scores-square": ("scores", (3, 3), "n x n would be self-attention"),
    "scores-width-dk": ("scores", (3, 4), "summed away"),
    "scores-width-dv": ("scores", (3, 2), "knows nothing about d_v"),
    "weights-transposed": ("weights", (5, 3), "not (m, n)"),
    "weights-square": ("weights", (5, 5), "m x m would be self-attention"),
    "weights-width-dk": ("weights", (3, 4), "summed away"),
    "weights-width-dv": ("weights", (3, 2), "a row of weights has one entry per key: length m"),
    "output-width-dk": ("output", (3, 4), "so it has width d_v, not d_k"),
    "output-is-weights": ("output", (3, 5), "shape of the weights"),
    "output-rows-m": ("output", (5, 2), "one output row per query"),
    "output-transposed": ("output", (2, 3), "not (d_v, n)"),
    "wrong-shape": ("output", (7, 7), "one output row per query, a mix of value rows"),
    "not-a-shape": ("output", "n by d_v", "is not a shape"),
}


def test_right_shapes_pass_as_numbers_and_as_names():
    assert check_shapes(RIGHT_SHAPES, **SIZES).passed
    named = {"Q": ("n", "d_k"), "K": ["m", "d_k"], "output": ("n", "d_v"), "weights": np.array([3, 5])}
    feedback = check_shapes(named, **SIZES)
    assert feedback.passed, feedback
    assert "All 4 shapes are right" in feedback.reason


@pytest.mark.parametrize("mistake", sorted(SHAPE_MISTAKES))
def test_shape_mistake_is_recognised(mistake):
    name, shape, phrase = SHAPE_MISTAKES[mistake]
    feedback = check_shapes({**RIGHT_SHAPES, name: shape}, **SIZES)
    assert not feedback.passed
    assert feedback.mistake == mistake, feedback
    assert phrase.lower() in feedback.reason.lower()
    assert "1 of 6 shapes is not right" in feedback.reason


def test_shape_mistakes_get_distinct_reasons():
    reasons = {check_shapes({name: shape}, **SIZES).reason for name, shape, _ in SHAPE_MISTAKES.values()}
    ids = {check_shapes({name: shape}, **SIZES).mistake for name, shape, _ in SHAPE_MISTAKES.values()}
    assert len(ids) == len(SHAPE_MISTAKES)
    assert len(reasons) == len(SHAPE_MISTAKES)


def test_several_wrong_shapes_are_all_listed():
    feedback = check_shapes({"Q": (3, 4), "scores": (5, 3), "output": (3, 4)}, **SIZES)
    assert feedback.mistake == "scores-transposed"  # the first wrong one, in the order of the equation
    assert "2 of 3 shapes are not right (Q is right)" in feedback.reason
    assert "- scores:" in feedback.reason and "- output:" in feedback.reason


@pytest.mark.parametrize("answers", [None, ..., {}, {"Q": None}, {"Q": ..., "K": None}])
def test_shapes_not_answered(answers):
    feedback = check_shapes(answers, **SIZES)
    assert feedback.mistake == "not-answered" and feedback.verdict == "Not answered yet"


def test_shapes_partly_answered_names_the_blanks():
    feedback = check_shapes({"Q": (3, 4), "scores": None}, **SIZES)
    assert feedback.mistake == "not-answered" and "scores" in feedback.reason


def test_shapes_answer_that_is_not_a_dict():
    feedback = check_shapes([(3, 4)], **SIZES)
    assert feedback.mistake == "not-a-shape" and "expects a dict" in feedback.reason


def test_shapes_unknown_name():
    feedback = check_shapes({"score": (3, 5)}, **SIZES)
    assert feedback.mistake == "unknown-name" and "'score'" in feedback.reason


def test_shapes_bad_sizes_raise_naming_the_argument():
    with pytest.raises(ValueError, match="n must be non-negative"):
        check_shapes({"Q": (3, 4)}, n=-1, m=5, d_k=4, d_v=2)


def test_shapes_given_with_numpy_integers_and_0d_arrays_are_accepted():
    answers = {"scores": (np.int64(3), np.array(5)), "output": np.array([3, 2])}
    assert check_shapes(answers, n=3, m=5, d_k=4, d_v=2).passed


@pytest.mark.parametrize("name, shape, noun", [("scores", (3, 2), "scores"), ("weights", (3, 4), "weight")])
def test_width_reasons_name_the_array_judged(name, shape, noun):
    reason = check_shapes({name: shape}, **SIZES).reason.split(f"{name}:")[1]
    other = "weight" if noun == "scores" else "score"
    assert noun in reason and other not in reason.replace("weights", ""), reason


def test_a_wrong_shape_is_explained_without_the_right_shape():
    for name, shape, _ in SHAPE_MISTAKES.values():
        reason = check_shapes({name: shape}, **SIZES).reason
        assert str(RIGHT_SHAPES[name]) not in reason, reason


def test_a_shape_the_problem_asks_for_but_deleted_from_the_answers_is_not_answered():
    # A learner review: deleting the "output" line passed as "All 5 shapes are right".
    asks = ("Q", "K", "V", "scores", "weights", "output")
    answers = {"Q": (6, 4), "K": (6, 4), "V": (6, 3), "scores": (6, 6), "weights": (6, 6)}
    feedback = check_shapes(answers, n=6, m=6, d_k=4, d_v=3, asks=asks)
    assert not feedback.passed and feedback.mistake == "not-answered" and "output" in feedback.reason
    assert check_shapes({**answers, "output": (6, 3)}, n=6, m=6, d_k=4, d_v=3, asks=asks).passed
    assert check_shapes(answers, n=6, m=6, d_k=4, d_v=3).passed  # without asks, the shapes given are judged


def test_asks_must_name_shapes():
    with pytest.raises(ValueError, match="asks must name some of Q, K, V"):
        check_shapes({"Q": (6, 4)}, n=6, m=6, d_k=4, d_v=3, asks=("Q", "queries"))
