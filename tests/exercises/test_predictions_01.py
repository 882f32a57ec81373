"""Notebook 01's prediction problems as data (issue 24): the notebook's numbers judge as the old checker cells did,
and every variant's right answer (computed here, from its numbers) passes while each named mistake gets its id."""

from __future__ import annotations

from collections import Counter

import pytest

from attn_lib.exercises import check
from attn_lib.exercises._problem_book import PREDICTIONS
from prediction_checks import (choices, first_is_notebooks, judged_as_old, one_instance, rows, same_numbers_twice,
                               verdict)

SEEDS = range(1, 51)
SIX = ("Q", "K", "V", "scores", "weights", "output")
NOTEBOOKS_SHAPES = {"Q": (6, 4), "K": (6, 4), "V": (6, 3), "scores": (6, 6), "weights": (6, 6), "output": (6, 3)}




# The old checker cells, by hand from the notebook before the move: each answer and the id it got (None: passed).
OLD = {
    "01-P1": [(NOTEBOOKS_SHAPES, None),
              ({**NOTEBOOKS_SHAPES, "Q": (4, 6)}, "q-transposed"),
              ({**NOTEBOOKS_SHAPES, "Q": (6, 3)}, "q-width-dv"),
              ({**NOTEBOOKS_SHAPES, "K": (4, 6)}, "k-transposed"),
              ({**NOTEBOOKS_SHAPES, "V": (6, 4)}, "v-width-dk"),
              ({**NOTEBOOKS_SHAPES, "V": (3, 6)}, "v-transposed"),
              ({**NOTEBOOKS_SHAPES, "scores": (6, 4)}, "scores-width-dk"),
              ({**NOTEBOOKS_SHAPES, "weights": (6, 3)}, "weights-width-dv"),
              ({**NOTEBOOKS_SHAPES, "output": (6, 6)}, "output-is-weights"),
              ({**NOTEBOOKS_SHAPES, "output": (6, 4)}, "output-width-dk"),
              ({name: None for name in SIX}, "not-answered")],
    "01-P2": choices("b"),
    "01-P3": [(49_152, None), (768 * 64.0, None), (768 * 96, "eight-heads"), (512 * 64, "base-model"),
              (768 * 768, "all-heads"), (12 * 768 * 64, "all-heads"), (3 * 768 * 64, "three-projections"),
              (64 * 64, "dk-squared"), (768 + 64, "added-not-multiplied"), (768 * 64 + 64, "with-bias"),
              (64, "head-width"), (49_153, "wrong-count"), ("49152", "not-a-number"), (None, "not-answered")],
    "01-P4": [(122_880, None), (122_880.0, None), (147_456, "dv-as-dk"), (73_728, "all-dv-or-forgot-w_k"),
              (49_152, "w_q-only"), (98_304, "forgot-w_v"), (1_474_560, "all-heads"), (10_240, "dk-rows"),
              (1_572_864, "widths-multiplied"), (160, "widths-only"), (123_040, "with-bias"), (122_881, "wrong-number"),
              (None, "not-answered")],
    "01-P5": choices("b"),
    "01-P6": choices("a"),
    "01-P7": choices("c", "abc"),
}


@pytest.mark.parametrize("problem_id, answer, mistake", rows(OLD))
def test_the_notebooks_numbers_judge_as_the_old_cell_did(problem_id, answer, mistake):
    judged_as_old(problem_id, answer, mistake)


@pytest.mark.parametrize("problem_id", ["01-P2", "01-P5", "01-P6", "01-P7"])
def test_a_choice_whose_right_option_never_moves_has_one_instance(problem_id):
    assert PREDICTIONS[problem_id].kind == "choice"
    one_instance(problem_id)


@pytest.mark.parametrize("seed", SEEDS)
def test_every_variant_of_the_six_shapes_judges_its_own_numbers(seed):
    p = PREDICTIONS["01-P1"].numbers(seed)
    n, d_k, d_v = p["n"], p["d_k"], p["d_v"]
    assert len({n, d_k, d_v}) == 3
    right = {"Q": (n, d_k), "K": (n, d_k), "V": (n, d_v), "scores": (n, n), "weights": (n, n), "output": (n, d_v)}
    assert verdict("01-P1", right, seed) == (True, None)
    for name, shape, mistake in [
            ("Q", (d_k, n), "q-transposed"), ("Q", (n, d_v), "q-width-dv"), ("K", (d_k, n), "k-transposed"),
            ("K", (n, d_v), "k-width-dv"), ("V", (n, d_k), "v-width-dk"), ("V", (d_v, n), "v-transposed"),
            ("scores", (n, d_k), "scores-width-dk"), ("scores", (n, d_v), "scores-width-dv"),
            ("weights", (n, d_k), "weights-width-dk"), ("output", (n, d_k), "output-width-dk"),
            ("output", (n, n), "output-is-weights"), ("output", (d_v, n), "output-transposed")]:
        assert verdict("01-P1", {**right, name: shape}, seed) == (False, mistake), (name, shape)


@pytest.mark.parametrize("seed", SEEDS)
def test_every_variant_of_one_heads_w_q_judges_its_own_numbers(seed):
    p = PREDICTIONS["01-P3"].numbers(seed)
    d_model, heads = p["d_model"], p["heads"]
    assert d_model % heads == 0 and d_model % 8 == 0 and d_model != 512 and heads != 8
    d_k = d_model // heads
    assert verdict("01-P3", d_model * d_k, seed) == (True, None)
    named = [(d_model * (d_model // 8), "eight-heads"), (512 * 64, "base-model"), (d_model * d_model, "all-heads"),
             (3 * d_model * d_k, "three-projections"), (d_k * d_k, "dk-squared"),
             (d_model + d_k, "added-not-multiplied"), (d_model * d_k + d_k, "with-bias")]
    assert len({value for value, _ in named} | {d_model * d_k}) == len(named) + 1
    for value, mistake in named:
        assert verdict("01-P3", value, seed) == (False, mistake), value
    text = check("01-P3", d_model * (d_model // 8), seed=seed).reason
    assert f"{d_model * d_k:,}" not in text and str(d_model * d_k) not in text
    # added later, each named where it is a number of its own: where the heads are 64 wide, as the base model's,
    # 512 x d_k is the base model's W_q and d_model x 64 the answer; one model (128 wide, 4 heads) has 512 x d_k
    # = d_model x d_model, named all-heads as before
    added = [(d_k, "head-width"), (512 * d_k, "base-d-model"), (d_model * 64, "base-head-width")]
    taken = {value for value, _ in named} | {d_model * d_k}
    for value, mistake in added:
        if value not in taken:
            assert verdict("01-P3", value, seed) == (False, mistake), value
            assert str(d_model * d_k) not in check("01-P3", value, seed=seed).reason
        elif value != d_model * d_k:
            assert verdict("01-P3", value, seed)[1] in {m for v, m in named if v == value}, value


def test_the_added_mistakes_of_one_heads_w_q_are_named_in_most_variants():
    seen = Counter()
    for seed in SEEDS:
        p = PREDICTIONS["01-P3"].numbers(seed)
        d_k = p["d_model"] // p["heads"]
        added = [(d_k, "head-width"), (512 * d_k, "base-d-model"), (p["d_model"] * 64, "base-head-width")]
        for value, mistake in added:
            seen[verdict("01-P3", value, seed)[1] == mistake, mistake] += 1
    assert all(seen[True, mistake] >= 25 for mistake in ("head-width", "base-d-model", "base-head-width")), seen


@pytest.mark.parametrize("seed", SEEDS)
def test_every_variant_of_the_three_projections_judges_its_own_numbers(seed):
    p = PREDICTIONS["01-P4"].numbers(seed)
    d_model, heads, d_k, d_v = p["d_model"], p["heads"], p["d_k"], p["d_v"]
    assert d_v < d_k and d_model == heads * d_k
    right = 2 * d_model * d_k + d_model * d_v
    assert verdict("01-P4", right, seed) == (True, None)
    named = [(3 * d_model * d_k, "dv-as-dk"), (3 * d_model * d_v, "all-dv-or-forgot-w_k"), (d_model * d_k, "w_q-only"),
             (2 * d_model * d_k, "forgot-w_v"), (heads * right, "all-heads"), (2 * d_k * d_k + d_k * d_v, "dk-rows")]
    # added later: W_k left out, or d_v wide, meets all-dv-or-forgot-w_k, and forgot-w_v, when d_v = d_k / 2
    if 2 * d_v != d_k:
        named += [(d_model * (d_k + d_v), "forgot-w_k"), (d_model * (d_k + 2 * d_v), "w_k-width-dv")]
    named += [(d_model * d_k * d_v, "widths-multiplied"), (2 * d_k + d_v, "widths-only"),
              (right + 2 * d_k + d_v, "with-bias")]
    assert len({value for value, _ in named} | {right}) == len(named) + 1
    for value, mistake in named:
        feedback = check("01-P4", value, seed=seed)
        assert (feedback.passed, feedback.mistake) == (False, mistake), value
        assert f"{right:,}" not in feedback.reason + feedback.hint and str(right) not in feedback.reason
    if 2 * d_v == d_k:  # the one count named by both its readings
        assert "leaves W_k out" in check("01-P4", 3 * d_model * d_v, seed=seed).reason
        assert verdict("01-P4", d_model * (d_k + 2 * d_v), seed) == (False, "forgot-w_v")
    else:
        assert "leaves W_k out" not in check("01-P4", 3 * d_model * d_v, seed=seed).reason


@pytest.mark.parametrize("problem_id", ["01-P1", "01-P3", "01-P4"])
def test_a_seed_gives_the_same_numbers_twice(problem_id):
    same_numbers_twice(problem_id, SEEDS, at_least=10)


@pytest.mark.parametrize("problem_id", [f"01-P{k}" for k in range(1, 8)])
def test_the_first_variant_is_the_notebooks(problem_id):
    first_is_notebooks(problem_id, tex=("{\\text{model}}",))
