"""Notebook 07's prediction problems as data (issue 24): the notebook's numbers judge as the old checker cells did,
and every variant's right answer (computed here, from its numbers) passes while each named mistake gets its id."""

from __future__ import annotations

import numpy as np
import pytest

from attn_lib import MultiHeadAttention, causal_mask
from attn_lib.exercises._problem_book import PREDICTIONS
from prediction_checks import first_is_notebooks, judged_as_old, one_instance, rows, same_numbers_twice, verdict

SEEDS = range(1, 51)


# The old checker cells (before the move), value by value: what each accepted and each mistake it named. In the old
# 07 P2 the d_k mistake, 8 x 64 x 512, equals the square W^O, 512 x 512, and the cell named it square-w-o.
OLD = {
    "07-P2": [(131_072, None), (131_072.0, None), (131_584, "with-bias"), (262_144, "square-w-o"),
              (16_384, "one-head"), (256, "concat-width"), (131_073, "wrong-number"), (None, "not-answered"),
              # named since the learners' slips: 256 x 256, 256 + 512, four 512 x 512 projections
              (65_536, "square-of-concat"), (768, "added-not-multiplied"), (1_048_576, "four-projections")],
    "07-P4": [("B", None), ("b", None), ("A", "chose-A"), ("C", "chose-C"), ("D", "chose-D"), ("E", "not-an-option")],
    # Named since the learners' slips: 3 (one more output changes). The swapped rows are 0 and 1, so the tokens before
    # them number 0 (all-change's number) and the tokens after them are the answer.
    "07-P6": [(4, None), (6, "still-equivariant"), (0, "all-change"), (2, "counted-the-moved"), (5, "one-changes"),
              (3, "next-changes"), (1, "wrong-number"), (None, "not-answered")],
}


@pytest.mark.parametrize("problem_id,answer,mistake", rows(OLD))
def test_the_notebooks_numbers_judge_as_the_old_cell(problem_id, answer, mistake):
    judged_as_old(problem_id, answer, mistake)


def test_07_p4_has_one_instance():
    one_instance("07-P4")


@pytest.mark.parametrize("seed", SEEDS)
def test_07_p2_variants(seed):
    p = PREDICTIONS["07-P2"].numbers(seed)
    d_model, heads, d_k, d_v = p["d_model"], p["heads"], p["d_k"], p["d_v"]
    assert d_v != d_model // heads and d_k != d_v
    model = MultiHeadAttention(d_model=d_model, heads=heads, d_k=d_k, d_v=d_v, rng=0)
    assert model.W_o.size == heads * d_v * d_model
    assert verdict("07-P2", model.W_o.size, seed) == (True, None)
    assert verdict("07-P2", model.W_o.size + d_model, seed) == (False, "with-bias")
    assert verdict("07-P2", d_model * d_model, seed) == (False, "square-w-o")
    assert verdict("07-P2", heads * d_k * d_model, seed) == (False, "used-dk")
    assert verdict("07-P2", d_v * d_model, seed) == (False, "one-head")
    assert verdict("07-P2", heads * d_v, seed) == (False, "concat-width")


def first_of_each(right, rows):
    """The rows (value, id) a verdict names: a value that meets the answer, or a row before it, is not its own."""
    kept = []
    for value, mistake in rows:
        if value != right and all(value != v for v, _ in kept):
            kept.append((value, mistake))
    return kept


def p2_mistakes(d_model, heads, d_k, d_v):
    """07-P2's named mistakes (value, id), in the judge's order: of two equal values, the first names it."""
    width = heads * d_v
    return [(width * d_model + d_model, "with-bias"), (d_model * d_model, "square-w-o"),
            (heads * d_k * d_model, "used-dk"), (d_v * d_model, "one-head"), (width, "concat-width"),
            (width * width, "square-of-concat"), (width + d_model, "added-not-multiplied"),
            (4 * d_model * d_model, "four-projections")]


def p6_mistakes(n, first):
    """07-P6's named mistakes (value, id), in the judge's order."""
    return [(n, "still-equivariant"), (0, "all-change"), (2, "counted-the-moved"), (n - 1, "one-changes"),
            (first, "only-before"), (n - first - 2, "only-after"), (n - 3, "next-changes")]


@pytest.mark.parametrize("pid,at_least", [
    ("07-P2", {"square-of-concat": 30, "added-not-multiplied": 50, "four-projections": 30}),
    ("07-P6", {"only-before": 25, "only-after": 25, "next-changes": 25}),
])
def test_the_learners_slips_are_named_on_most_variants(pid, at_least):
    """Each slip named since the learners' wrong answers gets its own id on most of the 50 variants (it gives way
    only where its number is the answer, or a mistake listed before it)."""
    named = {}
    for seed in SEEDS:
        p = PREDICTIONS[pid].numbers(seed)
        if pid == "07-P2":
            right = p["heads"] * p["d_v"] * p["d_model"]
            rows = p2_mistakes(p["d_model"], p["heads"], p["d_k"], p["d_v"])
        else:
            right, rows = p["n"] - 2, p6_mistakes(p["n"], p["first_row"])
        for value, mistake in first_of_each(right, rows):
            assert verdict(pid, value, seed) == (False, mistake), (seed, value, mistake)
            named[mistake] = named.get(mistake, 0) + 1
    short = {mistake: named.get(mistake, 0) for mistake, n in at_least.items() if named.get(mistake, 0) < n}
    assert not short, (short, named)


def unchanged_after_swap(n, first):
    """Tokens whose output row is the same after rows first and first + 1 of X swap places, under a causal mask."""
    mha = MultiHeadAttention(d_model=16, heads=2, rng=0)
    X = np.random.default_rng(n * 100 + first).normal(size=(n, 16))
    swap = np.arange(n)
    swap[[first, first + 1]] = swap[[first + 1, first]]
    before = mha(X, mask=causal_mask(n))
    after = mha(X[swap], mask=causal_mask(n))[swap]  # back in token order (the swap undoes itself)
    return int((np.abs(after - before).max(axis=1) < 1e-9).sum())


@pytest.mark.parametrize("seed", SEEDS)
def test_07_p6_variants(seed):
    p = PREDICTIONS["07-P6"].numbers(seed)
    n, first = p["n"], p["first_row"]
    assert p["second_row"] == first + 1
    answer = unchanged_after_swap(n, first)
    assert answer == n - 2
    assert verdict("07-P6", answer, seed) == (True, None)
    assert verdict("07-P6", n, seed) == (False, "still-equivariant")
    assert verdict("07-P6", 0, seed) == (False, "all-change")
    assert verdict("07-P6", 2, seed) == (False, "counted-the-moved")
    assert verdict("07-P6", n - 1, seed) == (False, "one-changes")


@pytest.mark.parametrize("problem_id", ["07-P2", "07-P6"])
def test_a_seed_gives_the_same_numbers_twice(problem_id):
    same_numbers_twice(problem_id, SEEDS, at_least=5)


@pytest.mark.parametrize("problem_id", ["07-P2", "07-P4", "07-P6"])
def test_the_first_variant_is_the_notebooks(problem_id):
    first_is_notebooks(problem_id, tex=("{\\text{model}}",))
