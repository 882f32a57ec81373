"""check_count: predicted counts, right and wrong in the classic ways."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_lib import attention_cost
from attn_lib.exercises._check_count import _count_candidates
from attn_lib.exercises import check_count


BASE = dict(n=1000, heads=8, layers=6)  # F5: 48,000,000 scores alive at once, 192 MB in float32
COUNT_MISTAKES = {
    # id: (quantity, answer, sizes, phrase)
    "forgot-heads": ("scores", 6_000_000, BASE, "one head's count"),
    "forgot-layers": ("scores", 8_000_000, BASE, "one layer's count"),
    "forgot-heads-and-layers": ("scores", 1_000_000, BASE, "one head of one layer"),
    "counted-macs": ("scores", 48_000_000 * 64, BASE, "counts multiply-adds"),
    "counted-bytes": ("scores", 192_000_000, BASE, "bytes in float32"),
    "causal-half": ("scores", 1000 * 1001 // 2 * 48, BASE, "causal mask"),
    "square-when-cross": ("scores", 300 * 300, dict(n=300, m=500), "every query meets every key"),
    "forgot-dk": ("score_macs", 1_000_000, dict(n=1000), "counts scores, not multiply-adds"),
    "used-d-model": ("score_macs", 512_000_000, dict(n=1000, d_model=512), "not d_model wide"),
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
    assert _count_candidates("scores", n, m, d_k, d_v, heads, layers, None)[0] == cost.scores  # attn_lib's count
    for quantity, right in [
        ("scores", cost.scores), ("score_macs", cost.score_macs), ("mix_macs", cost.mix_macs),
        ("score_bytes_float32", cost.score_bytes("float32")),
    ]:
        assert check_count(quantity, right, **sizes).passed
        assert not check_count(quantity, 2 * right + 1, **sizes).passed


@pytest.mark.parametrize("wrap", [np.array, lambda v: np.array([v]), lambda v: np.array([[v]]), np.float32, np.int64])
def test_numbers_given_as_numpy_scalars_or_one_element_arrays_are_accepted(wrap):
    assert check_count("score_macs", wrap(64_000_000), n=1000).passed
    assert check_count("score_macs", wrap(1_000_000), n=1000).mistake == "forgot-dk"


def test_arrays_of_several_numbers_are_not_a_number():
    assert check_count("scores", np.array([1.0, 2.0]), n=10).mistake == "not-a-number"


# ----------------------------------------------------------------------------------------------- findings


@pytest.mark.parametrize("answer, words", [(999_999, "999,999"), (32_767, "32,767")])
def test_near_misses_print_the_exact_number_and_a_percentage(answer, words):
    right = 1_000_000 if answer == 999_999 else 32_768
    feedback = check_count("scores", answer, n=1000) if right == 1_000_000 else check_count(
        "projection_weights", answer, n=1, d_k=64)
    assert words in feedback.reason and "%" in feedback.reason and "1 times" not in feedback.reason, feedback


@pytest.mark.parametrize("answer", [183.1, 183.11, 192.0, 0.192, 0.1788])
def test_megabytes_and_gigabytes_rounded_are_not_bytes(answer):
    assert check_count("score_bytes_float32", answer, **BASE).mistake == "not-bytes"


def test_twice_the_bytes_names_both_readings():
    feedback = check_count("score_bytes_float32", 384_000_000, **BASE)
    assert "float64" in feedback.reason and "two arrays" in feedback.reason


def test_d_model_is_named_only_when_the_problem_gives_it():
    assert check_count("score_macs", 512_000_000, n=1000).mistake != "used-d-model"
    feedback = check_count("score_macs", 768_000_000, n=1000, d_model=768)
    assert feedback.mistake == "used-d-model" and "not d_model wide" in feedback.reason


def test_the_authors_own_mistakes_come_before_the_built_in_ones():
    # 1_000_000 is forgot-dk among the built-in ones; the author's table names it first, with its own hint.
    own = [(1_000_000, "one-dot-product", "That counts each score once; each is d_k multiply-adds.", "Times d_k.")]
    feedback = check_count("score_macs", 1_000_000, n=1000, mistakes=own)
    assert (feedback.mistake, feedback.reason, feedback.hint) == ("one-dot-product", own[0][2], "Times d_k.")
    assert check_count("score_macs", 64_000_000, n=1000, mistakes=own).passed


def test_an_own_mistake_without_a_hint_gets_the_quantitys_hint():
    feedback = check_count("scores", 7, n=3, mistakes=[(7, "seven", "Seven is not it.")])
    assert feedback.mistake == "seven"
    assert feedback.hint == check_count("scores", 8, n=3).hint


def test_an_own_mistake_equal_to_the_right_count_is_refused():
    with pytest.raises(ValueError, match="mistakes"):
        check_count("scores", 9, n=3, mistakes=[(9, "right", "no")])
