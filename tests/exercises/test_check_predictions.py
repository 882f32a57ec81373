"""check_shapes, check_count and check_variance: predicted numbers, right and wrong in the classic ways."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_lib import attention_cost
from attn_lib.exercises import check_count, check_shapes, check_variance

# ----------------------------------------------------------------------------------------------- shapes

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


# ----------------------------------------------------------------------------------------------- counts

BASE = dict(n=1000, heads=8, layers=6)  # F5: 48,000,000 scores alive at once, 192 MB in float32
COUNT_MISTAKES = {
    # id: (quantity, answer, sizes, phrase)
    "forgot-heads": ("scores", 6_000_000, BASE, "one head's count"),
    "forgot-layers": ("scores", 8_000_000, BASE, "one layer's count"),
    "forgot-heads-and-layers": ("scores", 1_000_000, BASE, "one head of one layer"),
    "counted-macs": ("scores", 48_000_000 * 64, BASE, "counts multiply-adds"),
    "counted-bytes": ("scores", 192_000_000, BASE, "bytes in float32"),
    "causal-half": ("scores", 1000 * 1001 // 2 * 48, BASE, "causal mask"),
    "square-when-cross": ("scores", 300 * 300, dict(n=300, m=500), "n x m pairs"),
    "forgot-dk": ("score_macs", 1_000_000, dict(n=1000), "counts scores, not multiply-adds"),
    "used-d-model": ("score_macs", 512_000_000, dict(n=1000), "not d_model = 512"),
    "counted-flops": ("score_macs", 128_000_000, dict(n=1000), "counts once"),
    "used-dv": ("score_macs", 32_000_000, dict(n=1000, d_v=32), "d_v is the width of the values"),
    "forgot-m": ("mix_macs", 1000 * 32, dict(n=1000, d_v=32), "counts output entries"),
    "forgot-dv": ("mix_macs", 1_000_000, dict(n=1000, d_v=32), "counts weights"),
    "used-dk": ("mix_macs", 64_000_000, dict(n=1000, d_v=32), "not d_k"),
    "float64-bytes": ("score_bytes_float32", 384_000_000, BASE, "float64"),
    "float16-bytes": ("score_bytes_float32", 96_000_000, BASE, "float16"),
    "counted-scores": ("score_bytes_float32", 48_000_000, BASE, "number of scores"),
    "bits": ("score_bytes_float32", 48_000_000 * 32, BASE, "that is bits"),
    "not-bytes": ("score_bytes_float32", 192, BASE, "megabytes"),
    "all-heads": ("projection_weights", 512 * 512, dict(n=1, heads=8), "one head's W_q"),
    "three-projections": ("projection_weights", 3 * 32768, dict(n=1), "W_q, W_k and W_v"),
    "dk-squared": ("projection_weights", 64 * 64, dict(n=1), "d_model rows"),
    "added-not-multiplied": ("projection_weights", 512 + 64, dict(n=1), "the sizes multiply"),
    "with-bias": ("projection_weights", 32768 + 64, dict(n=1), "no bias"),
    "wrong-count": ("scores", 12_345, dict(n=1000), "too small"),
    "not-a-number": ("scores", "one million", dict(n=1000), "should be a number"),
}


@pytest.mark.parametrize(
    "quantity, answer, sizes",
    [
        ("scores", 48_000_000, BASE),
        ("scores", 4.8e7, BASE),
        ("scores", np.array(48_000_000), BASE),
        ("score_macs", 64_000_000, dict(n=1000)),
        ("score_macs", 512_000_000, dict(n=1000, heads=8)),  # F5: eight heads
        ("mix_macs", 32_000_000, dict(n=1000, d_v=32)),
        ("score_bytes_float32", 192_000_000, BASE),
        ("projection_weights", 32_768, dict(n=1)),  # F2
        ("scores", 150_000, dict(n=300, m=500)),
    ],
)
def test_right_counts_pass(quantity, answer, sizes):
    feedback = check_count(quantity, answer, **sizes)
    assert feedback.passed, feedback


@pytest.mark.parametrize("mistake", sorted(COUNT_MISTAKES))
def test_count_mistake_is_recognised(mistake):
    quantity, answer, sizes, phrase = COUNT_MISTAKES[mistake]
    feedback = check_count(quantity, answer, **sizes)
    assert not feedback.passed
    assert feedback.mistake == mistake, feedback
    assert phrase in feedback.reason


def test_count_mistakes_get_distinct_reasons():
    feedbacks = [check_count(q, a, **s) for q, a, s, _ in COUNT_MISTAKES.values()]
    assert len({f.mistake for f in feedbacks}) == len(COUNT_MISTAKES)
    assert len({f.reason for f in feedbacks}) == len(COUNT_MISTAKES)


def test_count_not_answered_and_bad_quantity():
    assert check_count("scores", None, n=10).mistake == "not-answered"
    assert check_count("scores", ..., n=10).mistake == "not-answered"
    with pytest.raises(ValueError, match="quantity must be one of"):
        check_count("flops", 1, n=10)
    with pytest.raises(ValueError, match="heads must be at least 1"):
        check_count("scores", 1, n=10, heads=0)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 3000), m=st.integers(1, 3000), d_k=st.integers(1, 128), d_v=st.integers(1, 128),
    heads=st.integers(1, 16), layers=st.integers(1, 12),
)
def test_counts_agree_with_attention_cost_and_double_is_wrong(n, m, d_k, d_v, heads, layers):
    cost = attention_cost(n, m, d_k=d_k, d_v=d_v, heads=heads, layers=layers)
    sizes = dict(n=n, m=m, d_k=d_k, d_v=d_v, heads=heads, layers=layers)
    for quantity, right in [
        ("scores", cost.scores), ("score_macs", cost.score_macs), ("mix_macs", cost.mix_macs),
        ("score_bytes_float32", cost.score_bytes("float32")),
    ]:
        assert check_count(quantity, right, **sizes).passed
        assert not check_count(quantity, 2 * right + 1, **sizes).passed


# ----------------------------------------------------------------------------------------------- variance

VARIANCE_MISTAKES = {
    "std-not-variance": (8.0, False, "standard deviation"),
    "one-when-unscaled": (1.0, False, "add their variances"),
    "dk-squared": (4096, False, "do not multiply"),
    "inverse-dk": (1 / 64, False, "spreads more, not less"),
    "mean-not-variance": (0, False, "is the mean"),
    "dk-when-scaled": (64, True, "variance before the division"),
    "sqrt-when-scaled": (8, True, "divides it by the square"),
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
    assert feedback.mistake == "inverse-dk" and "once too often" in feedback.reason


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


# ----------------------------------------------------------------------------------------------- array answers


@pytest.mark.parametrize("wrap", [np.array, lambda v: np.array([v]), lambda v: np.array([[v]]), np.float32, np.int64])
def test_numbers_given_as_numpy_scalars_or_one_element_arrays_are_accepted(wrap):
    assert check_count("score_macs", wrap(64_000_000), n=1000).passed
    assert check_variance(wrap(64), d_k=64, scaled=False).passed
    assert check_count("score_macs", wrap(1_000_000), n=1000).mistake == "forgot-dk"


def test_arrays_of_several_numbers_are_not_a_number():
    assert check_count("scores", np.array([1.0, 2.0]), n=10).mistake == "not-a-number"
    assert check_variance(np.array([1.0, 2.0]), d_k=4, scaled=True).mistake == "not-a-number"


def test_shapes_given_with_numpy_integers_and_0d_arrays_are_accepted():
    answers = {"scores": (np.int64(3), np.array(5)), "output": np.array([3, 2])}
    assert check_shapes(answers, n=3, m=5, d_k=4, d_v=2).passed
