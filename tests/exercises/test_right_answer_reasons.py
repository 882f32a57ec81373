"""A right answer gets a reason in the terms of the idea, never a bare tick (issue 17, "No bare ticks")."""

import re

import pytest

from attn_lib.exercises import check_count, check_number, check_shapes, check_variance

BARE = re.compile(r"^[\d,.e+-]+ is right\.?$|^All \d+ shapes are right \([^)]*\)\.?$")


@pytest.mark.parametrize("quantity, answer, sizes, product", [
    ("scores", 48_000_000, dict(n=1000, heads=8, layers=6), "n x m x heads x layers = 1,000 x 1,000 x 8 x 6"),
    ("scores", 150_000, dict(n=300, m=500), "n x m = 300 x 500 = 150,000"),
    ("score_macs", 64_000_000, dict(n=1000), "n x m x d_k = 1,000 x 1,000 x 64 = 64,000,000"),
    ("score_macs", 192_000_000, dict(n=500, heads=12, d_model=768), "n x m x d_k x heads = 500 x 500 x 64 x 12"),
    ("mix_macs", 32_000_000, dict(n=1000, d_v=32), "n x m x d_v = 1,000 x 1,000 x 32"),
    ("score_bytes_float32", 192_000_000, dict(n=1000, heads=8, layers=6), "x 8 x 6 x 4 = 192,000,000"),
    ("projection_weights", 49_152, dict(n=1, heads=12, d_model=768), "768 x 64 = 49,152"),
])
def test_a_right_count_says_the_product_that_gives_it(quantity, answer, sizes, product):
    feedback = check_count(quantity, answer, **sizes)
    assert feedback.passed and product in feedback.reason, feedback
    assert not BARE.match(feedback.reason)


def test_right_shapes_say_which_axis_each_comes_from():
    shapes = dict(Q=(7, 64), K=(11, 64), V=(11, 32), scores=(7, 11), weights=(7, 11), output=(7, 32))
    feedback = check_shapes(shapes, n=7, m=11, d_k=64, d_v=32)
    assert feedback.passed and not BARE.match(feedback.reason)
    reason = " ".join(feedback.reason.split())
    for phrase in ("Q (7, 64): its rows are the n = 7 queries", "K (11, 64): its rows are the m = 11 keys",
                   "V (11, 32): one value row per key", "scores (7, 11): one row per query (n = 7) and one column "
                   "per key (m = 11)", "weights (7, 11): the softmax keeps", "output (7, 32): one row per query"):
        assert phrase in reason, phrase
    only_some = check_shapes({"V": (11, 32)}, n=7, m=11, d_k=64, d_v=32)
    assert only_some.passed and "V (11, 32)" in only_some.reason and "Q (" not in only_some.reason


@pytest.mark.parametrize("kwargs, phrase", [
    (dict(rel=0.1), "within 10 % of the value computed from the problem's numbers"),
    (dict(rel=0), "exactly the value computed from the problem's numbers"),
    (dict(rel=0, abs_tol=0.01), "within 0.01 of"),
])
def test_check_number_without_an_explanation_still_says_what_it_judged(kwargs, phrase):
    feedback = check_number(0.251, 0.251, **kwargs)
    assert feedback.passed and phrase in feedback.reason and not BARE.match(feedback.reason)


def test_a_right_variance_says_why():
    assert "variances add" in check_variance(64, d_k=64, scaled=False).reason
    assert "whatever d_k is" in check_variance(1, d_k=64, scaled=True).reason
