"""Notebook 04's prediction problems as data (issue 24): the notebook's numbers judge as the old checker cells did,
and every variant's right answer (computed here, from its numbers) passes while each named mistake gets its id."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from attn_lib.exercises import check
from attn_lib.exercises._problem_book import PREDICTIONS
from prediction_checks import (apart, choices, close, first_is_notebooks, judged_as_old, one_instance, rows,
                               same_numbers_twice, verdict)

SEEDS = range(1, 51)
BAND_EDGES = (1.5, 3, 10, 50, 100, 1000)  # "between 1.5 and 3 times too large", "by 10 % to 50 %", ...
WITH_VARIANTS = ["04-P1", "04-P3", "04-P6"]



def largest_weight(row, temperature=1.0) -> float:
    z = np.asarray(row, dtype=float) / temperature
    e = np.exp(z - z.max())
    return float((e / e.sum()).max())


def named_as_listed(problem_id, seed, right, earlier, later, rel, seen):
    """Each row of ``later`` kept apart gets its own id (counted in ``seen``); one left out gets an earlier row's id,
    or passes when it is within the tolerance of the answer."""
    kept, left_out = apart(right, earlier, later, rel)
    for value, mistake in kept:
        feedback = check(problem_id, value, seed=seed)
        assert (feedback.passed, feedback.mistake) == (False, mistake), (value, mistake)
        assert f"{right:.3f}" not in feedback.reason + feedback.hint
        seen[mistake] += 1
    for value, mistake in left_out:
        passed, named = verdict(problem_id, value, seed)
        assert passed if close(value, right, rel) else named in {m for _, m in earlier + kept}, (value, mistake)


# The old checker cells, by hand from the notebook before the move: each answer and the id it got (None: passed).
OLD = {
    "04-P1": [(5, None), (5.0, None), (3, "rows-sum"), (1, "whole-array"), (15, "every-entry"), (4, "wrong-number"),
              (8, "rows-and-columns"), (5 / 3, "per-row"), (None, "not-answered")],
    "04-P2": choices("a"),
    "04-P3": choices("a"),
    "04-P4": [(11.09, None), (11.08, None), (math.log(65504), None), (11, "whole-number"), (11.0, "whole-number"),
              (12, "rounded-up"), (11.1, "one-decimal"), (65504, "largest-not-log"),
              (math.log(np.finfo(np.float32).max), "float32-threshold"),
              (math.log(np.finfo(np.float64).max), "float64-threshold"), (math.log2(65504), "log2"),
              (math.log10(65504), "log10"), (10.5, "wrong-number"), (None, "not-answered")],
    "04-P6": [(0.867, None), (math.exp(4) / (1 + math.exp(2) + math.exp(4)), None),
              (math.exp(1) / (1 + math.exp(0.5) + math.exp(1)), "multiplied-by-temperature"),
              (math.exp(2) / (1 + math.exp(1) + math.exp(2)), "temperature-ignored"),
              (2 * math.exp(2) / (1 + math.exp(1) + math.exp(2)), "temperature-after-softmax"),
              (1.0, "one-hot"), (0.93, "wrong-number"), (0.9, "rounded-too-coarsely"), (0.87, None),
              ((math.exp(2) / (1 + math.exp(1) + math.exp(2))) ** 2, "power-after-softmax"), (0.5, "no-exponential"),
              (2, "index-not-weight"), (math.exp(2) / (1 + math.exp(2) + math.exp(4)), "middle-weight"),
              (None, "not-answered")],
}


@pytest.mark.parametrize("problem_id, answer, mistake", rows(OLD))
def test_the_notebooks_numbers_judge_as_the_old_cell_did(problem_id, answer, mistake):
    judged_as_old(problem_id, answer, mistake)


@pytest.mark.parametrize("problem_id", ["04-P2", "04-P4"])
def test_a_problem_with_one_meaningful_instance_says_why(problem_id):
    one_instance(problem_id)


def test_the_float16_reasons_say_what_float16_itself_prints():
    with np.errstate(over="ignore"):
        exp_11 = float(np.exp(np.float16(11)))  # 59872 in float16, not float64's 59874
        stored = float(np.float16(11.09))  # 11.09375
        overflows = np.isinf(np.exp(np.float16(11.09)))
        exp_12 = float(np.exp(np.float16(12)))
    assert overflows and stored > math.log(65504) and np.isinf(exp_12)
    whole = check("04-P4", 11).reason
    assert f"{exp_11:.0f}" in whole and "59874" not in whole
    assert str(exp_12) in check("04-P4", 12).reason
    right = check("04-P4", 11.09).reason
    assert f"{exp_11:.0f}" in right and str(stored) in right and "overflows" in right


@pytest.mark.parametrize("seed", SEEDS)
def test_every_variant_down_the_columns_judges_its_own_numbers(seed):
    p = PREDICTIONS["04-P1"].numbers(seed)
    n, m = p["n"], p["m"]
    assert n != m and min(n, m) > 1 and p["entries"] == n * m
    assert m not in BAND_EDGES  # a far-off answer's reason prints the bands' edges
    weights = np.exp(np.zeros((n, m)))
    weights = weights / weights.sum(axis=0, keepdims=True)  # axis=0: each column sums to one
    assert verdict("04-P1", weights.sum(), seed) == (True, None)
    for value, mistake in [(n, "rows-sum"), (1, "whole-array"), (n * m, "every-entry")]:
        assert verdict("04-P1", value, seed) == (False, mistake), value


def test_the_variants_down_the_columns_name_rows_and_columns_and_a_share_per_row():
    """n + m (both kinds of line summing to one) and m / n (the total shared among the rows): named where they stay
    apart; m / n is n itself at n = 2, m = 4 and n = 3, m = 9, where rows-sum names it."""
    seen = Counter()
    for seed in SEEDS:
        p = PREDICTIONS["04-P1"].numbers(seed)
        n, m = p["n"], p["m"]
        earlier = [(n, "rows-sum"), (1, "whole-array"), (n * m, "every-entry")]
        later = [(n + m, "rows-and-columns"), (m / n, "per-row")]
        kept, left_out = apart(m, earlier, later, 0.01)
        assert [mistake for _, mistake in left_out] == (["per-row"] if m == n * n else [])
        named_as_listed("04-P1", seed, m, earlier, later, 0.01, seen)
    assert seen["rows-and-columns"] == len(SEEDS) and seen["per-row"] >= 30, seen


@pytest.mark.parametrize("seed", SEEDS)
def test_every_variant_of_shifted_or_stretched_scores_judges_its_own_numbers(seed):
    p = PREDICTIONS["04-P3"].numbers(seed)
    rows = {name: np.array([float(s) for s in p[name].split(",")]) for name in "ABC"}
    assert len(set(rows["A"])) == 3
    weights = {name: np.exp(row - row.max()) / np.exp(row - row.max()).sum() for name, row in rows.items()}
    same_as_a = [name for name in "BC" if np.allclose(weights[name], weights["A"], rtol=1e-12, atol=0)]
    assert len(same_as_a) == 1  # one row is a shift of A, the other a stretch (its weights sharper)
    right = {"B": "a", "C": "b"}[same_as_a[0]]
    stretched = "C" if same_as_a[0] == "B" else "B"
    assert weights[stretched].max() > weights["A"].max()
    assert verdict("04-P3", right, seed) == (True, None)
    for label in "abcd":
        if label != right:
            assert verdict("04-P3", label, seed) == (False, f"chose-{label}")


def test_the_shift_is_b_in_some_variants_and_c_in_others():
    right = [check("04-P3", "a", seed=seed).passed for seed in SEEDS]
    assert any(right) and not all(right)


@pytest.mark.parametrize("seed", SEEDS)
def test_every_variant_of_a_temperature_judges_its_own_numbers(seed):
    p = PREDICTIONS["04-P6"].numbers(seed)
    row, t = (p["s0"], p["s1"], p["s2"]), p["T"]
    assert t < 1 and len(set(row)) == 3
    right = largest_weight(row, t)
    assert right <= 0.95 and abs(right - largest_weight([1, 2, 3], 0.5)) > 0.01  # not one-hot, not the notebook's
    assert verdict("04-P6", right, seed) == (True, None)
    for value, mistake in [(largest_weight(np.multiply(row, t)), "multiplied-by-temperature"),
                           (largest_weight(row), "temperature-ignored"),
                           (largest_weight(row) / t, "temperature-after-softmax"), (1.0, "one-hot")]:
        feedback = check("04-P6", value, seed=seed)
        assert (feedback.passed, feedback.mistake) == (False, mistake), value
        assert f"{right:.3f}" not in feedback.reason + feedback.hint


def test_the_variants_of_a_temperature_name_the_other_slips_of_a_softmax_row():
    """Powers of the T = 1 weights, the scores' own shares, the index of the largest, the middle weight, and the weight
    rounded coarser than the 1 % it is judged to: each named where it stays apart from the answer and the mistakes
    before it (a rounding within 1 % passes)."""
    seen = Counter()
    for seed in SEEDS:
        p = PREDICTIONS["04-P6"].numbers(seed)
        row, t = (p["s0"], p["s1"], p["s2"]), p["T"]
        right = largest_weight(row, t)
        z = np.divide(row, t)
        weights = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
        at_one = largest_weight(row)
        earlier = [(largest_weight(np.multiply(row, t)), "multiplied-by-temperature"),
                   (at_one, "temperature-ignored"), (at_one / t, "temperature-after-softmax"), (1.0, "one-hot")]
        later = [(at_one ** (1 / t), "power-after-softmax"), (max(row) / sum(row), "no-exponential"),
                 (int(np.argmax(row)), "index-not-weight"), (float(weights[1]), "middle-weight"),
                 (round(right, 1), "rounded-too-coarsely"), (round(right, 2), "rounded-too-coarsely")]
        named_as_listed("04-P6", seed, right, earlier, later, 0.01, seen)
        assert verdict("04-P6", round(right, 3), seed) == (True, None)
    assert min(seen.values()) >= 10 and len(seen) == 5, seen


@pytest.mark.parametrize("problem_id", WITH_VARIANTS)
def test_a_seed_gives_the_same_numbers_twice(problem_id):
    same_numbers_twice(problem_id, SEEDS, at_least=10)


@pytest.mark.parametrize("problem_id", WITH_VARIANTS + ["04-P2", "04-P4"])
def test_the_first_variant_is_the_notebooks(problem_id):
    first_is_notebooks(problem_id)


def test_why_float16_has_one_instance_gives_no_threshold_away():
    why = PREDICTIONS["04-P4"].why_one
    assert "ln(" not in why and "11." not in why and "log" not in why
