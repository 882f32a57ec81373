"""Notebook 04's prediction problems as data (issue 24): the notebook's numbers judge as the old checker cells did,
and every variant's right answer (computed here, from its numbers) passes while each named mistake gets its id."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attn_lib.exercises import check
from attn_lib.exercises._problem_book import PREDICTIONS
from prediction_checks import (choices, first_is_notebooks, judged_as_old, one_instance, rows, same_numbers_twice,
                               verdict)

SEEDS = range(1, 51)
BAND_EDGES = (1.5, 3, 10, 50, 100, 1000)  # "between 1.5 and 3 times too large", "by 10 % to 50 %", ...
WITH_VARIANTS = ["04-P1", "04-P3", "04-P6"]



def largest_weight(row, temperature=1.0) -> float:
    z = np.asarray(row, dtype=float) / temperature
    e = np.exp(z - z.max())
    return float((e / e.sum()).max())


# The old checker cells, by hand from the notebook before the move: each answer and the id it got (None: passed).
OLD = {
    "04-P1": [(5, None), (5.0, None), (3, "rows-sum"), (1, "whole-array"), (15, "every-entry"), (4, "wrong-number"),
              (None, "not-answered")],
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
              (1.0, "one-hot"), (0.9, "wrong-number"), (None, "not-answered")],
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


@pytest.mark.parametrize("problem_id", WITH_VARIANTS)
def test_a_seed_gives_the_same_numbers_twice(problem_id):
    same_numbers_twice(problem_id, SEEDS, at_least=10)


@pytest.mark.parametrize("problem_id", WITH_VARIANTS + ["04-P2", "04-P4"])
def test_the_first_variant_is_the_notebooks(problem_id):
    first_is_notebooks(problem_id)


def test_why_float16_has_one_instance_gives_no_threshold_away():
    why = PREDICTIONS["04-P4"].why_one
    assert "ln(" not in why and "11." not in why and "log" not in why
