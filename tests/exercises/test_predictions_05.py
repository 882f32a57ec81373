"""Notebook 05's prediction problems as data (issue 24): the notebook's numbers judge as the old checker cells did,
and every variant's right answer (computed here, from its numbers) passes while each named mistake gets its id."""

from __future__ import annotations


import pytest

from attn_lib.exercises._problem_book import PREDICTIONS
from prediction_checks import SEEDS, first_is_notebooks, judged_as_old, one_instance, rows, same_numbers_twice, verdict

# The old checker cells (before the move), value by value: what each accepted and each mistake it named.
OLD = {
    "05-P2": [(5, None), (5.0, None), (5 + 1e-10, None), (6, "summed-values"), (2, "plain-mean"), (8, "sum-of-sizes"),
              (None, "not-answered"), ("5", "not-a-number"),
              # named since the learners' slips (the range -1 to 5 is the summed values, 2 both the middle value and
              # the mean, and -1's size is below 5, so dropped-sign is not listed)
              (4.999, "just-below"), (4.9, "just-below"), (4.999999, "just-below"), (-1, "smallest-value"),
              (1, "weights-bound"), (4.5, "wrong-number"), (3, "wrong-number")],
    "05-P3": [("C", None), ("c", None), ("A", "chose-A"), ("B", "chose-B"), ("D", "chose-D"), ("E", "not-an-option"),
              (None, "not-answered")],
    "05-P4": [(1, None), (1.0, None), (4, "summed-values"), (3, "one-hot"), (0.25, "the-weight"),
              (None, "not-answered"),
              # named since the learners' slips (the first key's value, 3, is the largest: one-hot names it)
              (0, "zero-output"), (4 / 3, "divided-by-m-minus-one"), (0.8, "divided-by-m-plus-one"),
              (2, "skipped-zeros"), (0.5, "median"), (1.5, "midrange"), (0.75, "wrong-number")],
    "05-P6": [("A", None), ("B", "chose-B"), ("C", "chose-C"), ("D", "chose-D"), ("E", "not-an-option")],
}


@pytest.mark.parametrize("problem_id,answer,mistake", rows(OLD))
def test_the_notebooks_numbers_judge_as_the_old_cell(problem_id, answer, mistake):
    judged_as_old(problem_id, answer, mistake)


def test_05_p5_the_notebooks_numbers_judge_as_the_old_cell():
    right = {"Q": (4, 3), "K": (6, 3), "V": (6, 2), "scores": (4, 6), "weights": (4, 6), "output": (4, 2)}
    assert verdict("05-P5", right) == (True, None)
    assert verdict("05-P5", {**right, "Q": ("n", "d_k")}) == (True, None)
    for name, shape, mistake in [("Q", (3, 4), "q-transposed"), ("K", (4, 3), "k-rows-n"), ("V", (6, 3), "v-width-dk"),
                                 ("scores", (6, 4), "scores-transposed"), ("weights", (4, 4), "weights-square"),
                                 ("output", (4, 3), "output-width-dk"), ("output", (4, 6), "output-is-weights")]:
        assert verdict("05-P5", {**right, name: shape}) == (False, mistake)
    assert verdict("05-P5", {**right, "V": None}) == (False, "not-answered")


@pytest.mark.parametrize("seed", SEEDS)
def test_05_p2_variants(seed):
    p = PREDICTIONS["05-P2"].numbers(seed)
    values = [p["a"], p["b"], p["c"]]
    assert min(values) < 0 < max(values) and len(set(values)) == 3
    assert verdict("05-P2", max(values), seed) == (True, None)
    assert verdict("05-P2", sum(values), seed) == (False, "summed-values")
    assert verdict("05-P2", sum(values) / 3, seed) == (False, "plain-mean")
    assert verdict("05-P2", sum(abs(v) for v in values), seed) == (False, "sum-of-sizes")
    assert not verdict("05-P2", max(values) - 1e-3, seed)[0]  # the number itself, not one just below it
    top, low = max(values), min(values)
    for below in (top - 0.1, top - 1e-3, top - 1e-6, top - 1e-8):
        assert verdict("05-P2", below, seed) == (False, "just-below"), below
    assert verdict("05-P2", top - 0.3, seed)[1] != "just-below"


def p2_mistakes(values):
    """05-P2's named mistakes (value, id), in the judge's order: of two equal values, the first names it."""
    top, low, middle = max(values), min(values), sorted(values)[1]
    return ([(sum(values), "summed-values"), (sum(values) / 3, "plain-mean"), (sum(abs(v) for v in values),
             "sum-of-sizes"), (low, "smallest-value")] + ([(-low, "dropped-sign")] if -low > top else [])
            + [(1, "weights-bound"), (top - low, "range-width"), (middle, "middle-value")])


def first_of_each(right, rows, tol=1e-9):
    """The rows (value, id) a verdict names: a value that meets the answer, or a row before it, is not its own."""
    kept = []
    for value, mistake in rows:
        if abs(value - right) > tol and all(abs(value - v) > tol for v, _ in kept):
            kept.append((value, mistake))
    return kept


def p4_mistakes(values):
    """05-P4's named mistakes (value, id), in the judge's order."""
    m, total, ranked = len(values), sum(values), sorted(values)
    return [(total, "summed-values"), (max(values), "one-hot"), (1 / m, "the-weight"), (0, "zero-output"),
            (values[0], "first-key"), (total / (m - 1), "divided-by-m-minus-one"),
            (total / (m + 1), "divided-by-m-plus-one"), (total / sum(v != 0 for v in values), "skipped-zeros"),
            ((ranked[(m - 1) // 2] + ranked[m // 2]) / 2, "median"), ((ranked[0] + ranked[-1]) / 2, "midrange")]


@pytest.mark.parametrize("pid,table,at_least", [
    ("05-P2", p2_mistakes, {"smallest-value": 45, "dropped-sign": 10, "weights-bound": 40, "range-width": 40,
                            "middle-value": 25}),
    ("05-P4", p4_mistakes, {"zero-output": 50, "first-key": 12, "divided-by-m-minus-one": 50,
                            "divided-by-m-plus-one": 50, "skipped-zeros": 8, "median": 15, "midrange": 20}),
])
def test_the_learners_slips_are_named_on_most_variants(pid, table, at_least):
    """Each slip named since the learners' wrong answers gets its own id on most of the 50 variants (it gives way
    only where its number is the answer, or a mistake listed before it)."""
    named = {}
    for seed in SEEDS:
        p = PREDICTIONS[pid].numbers(seed)
        values = p["values"] if pid == "05-P4" else (p["a"], p["b"], p["c"])
        right = sum(values) / len(values) if pid == "05-P4" else max(values)
        for value, mistake in first_of_each(right, table(values)):
            assert verdict(pid, value, seed) == (False, mistake), (seed, value, mistake)
            named[mistake] = named.get(mistake, 0) + 1
    short = {mistake: named.get(mistake, 0) for mistake, n in at_least.items() if named.get(mistake, 0) < n}
    assert not short, (short, named)


def inside_triangle(point):
    x, y = point
    return x >= 0 and y >= 0 and x + y <= 1


@pytest.mark.parametrize("seed", SEEDS)
def test_05_p3_variants(seed):
    p = PREDICTIONS["05-P3"].numbers(seed)
    right = [letter for letter in "ABCD" if inside_triangle(p[letter])]
    assert len(right) == 1
    outside = [p[letter] for letter in "ABCD" if letter not in right]
    # the three ways out of the triangle, in every variant: a negative coordinate, past a corner, past the long edge
    assert sum(min(pt) < 0 for pt in outside) == 1
    assert sum(max(pt) > 1 for pt in outside) == 1
    assert sum(min(pt) >= 0 and max(pt) <= 1 and sum(pt) > 1 for pt in outside) == 1
    assert verdict("05-P3", right[0], seed) == (True, None)
    for letter in "ABCD":
        if letter != right[0]:
            assert verdict("05-P3", letter, seed) == (False, f"chose-{letter}")


@pytest.mark.parametrize("seed", SEEDS)
def test_05_p4_variants(seed):
    p = PREDICTIONS["05-P4"].numbers(seed)
    values = p["values"]
    assert len(values) == p["m"] and p["listed"].replace(" and ", ", ").split(", ") == [str(v) for v in values]
    assert verdict("05-P4", sum(values) / len(values), seed) == (True, None)
    assert verdict("05-P4", sum(values), seed) == (False, "summed-values")
    assert verdict("05-P4", max(values), seed) == (False, "one-hot")
    assert verdict("05-P4", 1 / len(values), seed) == (False, "the-weight")


@pytest.mark.parametrize("seed", SEEDS)
def test_05_p5_variants(seed):
    p = PREDICTIONS["05-P5"].numbers(seed)
    n, m, d_k, d_v = p["n"], p["m"], p["d_k"], p["d_v"]
    assert n != m and d_k != d_v
    right = {"Q": (n, d_k), "K": (m, d_k), "V": (m, d_v), "scores": (n, m), "weights": (n, m), "output": (n, d_v)}
    assert verdict("05-P5", right, seed) == (True, None)
    for name, shape, mistake in [("Q", (d_k, n), "q-transposed"), ("Q", (m, d_k), "q-rows-m"),
                                 ("K", (n, d_k), "k-rows-n"), ("K", (m, d_v), "k-width-dv"),
                                 ("V", (m, d_k), "v-width-dk"), ("V", (n, d_v), "v-rows-n"),
                                 ("scores", (m, n), "scores-transposed"), ("scores", (n, d_k), "scores-width-dk"),
                                 ("weights", (n, n), "weights-square"), ("weights", (n, d_v), "weights-width-dv"),
                                 ("output", (n, d_k), "output-width-dk"), ("output", (n, m), "output-is-weights"),
                                 ("output", (m, d_v), "output-rows-m")]:
        assert verdict("05-P5", {**right, name: shape}, seed) == (False, mistake), (name, shape)


@pytest.mark.parametrize("seed", SEEDS)
def test_05_p6_variants(seed):
    p = PREDICTIONS["05-P6"].numbers(seed)
    in_square = [letter for letter in "ABC" if all(0 <= c <= 1 for c in p[letter])]
    assert len(in_square) == 1 and not inside_triangle(p[in_square[0]])  # reachable by two heads, not by one
    outside = [p[letter] for letter in "ABC" if letter != in_square[0]]
    assert sum(min(pt) < 0 for pt in outside) == 1 and sum(max(pt) > 1 for pt in outside) == 1
    assert verdict("05-P6", in_square[0], seed) == (True, None)
    for letter in "ABCD":
        if letter != in_square[0]:
            assert verdict("05-P6", letter, seed) == (False, f"chose-{letter}")


@pytest.mark.parametrize("problem_id", ["05-P2", "05-P3", "05-P4", "05-P5", "05-P6"])
def test_a_seed_gives_the_same_numbers_twice(problem_id):
    same_numbers_twice(problem_id)


@pytest.mark.parametrize("problem_id", ["05-P2", "05-P3", "05-P4", "05-P5", "05-P6"])
def test_the_first_variant_is_the_notebooks(problem_id):
    first_is_notebooks(problem_id, tex=("{-9}",))
