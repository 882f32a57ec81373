"""Notebook 06's prediction problems as data (issue 24): the notebook's numbers judge as the old checker cells did,
and every variant's right answer (computed here, from its numbers) passes while each named mistake gets its id."""

from __future__ import annotations

import numpy as np
import pytest

from attn_lib import causal_mask, softmax
from attn_lib.exercises._problem_book import PREDICTIONS
from prediction_checks import first_is_notebooks, judged_as_old, one_instance, rows, same_numbers_twice, verdict

SEEDS = range(1, 51)


# The old checker cells (before the move), value by value: what each accepted and each mistake it named.
OLD = {
    "06-P2": [("C", None), ("c)", None), ("A", "chose-A"), ("B", "chose-B"), ("D", "chose-D"), ("E", "not-an-option"),
              (None, "not-answered")],
    # Within 1 % since the learner review: 0.17 and a truncated 0.16 no longer pass for 1/6.
    "06-P3": [(1 / 6, None), (0.1667, None), (0.167, None), (0.17, "wrong-number"), (0.16, "wrong-number"),
              (0, "like-inf"), (1, "one-key"), (0.2, "wrong-number"),
              (float("nan"), "wrong-number"), (None, "not-answered")],
    "06-P4": [(2, None), (2.0, None), (1, "first-row-only"), (0, "padding-ignored"), (4, "counted-real"),
              (3, "wrong-number"), (None, "not-answered")],
}


@pytest.mark.parametrize("problem_id,answer,mistake", rows(OLD))
def test_the_notebooks_numbers_judge_as_the_old_cell(problem_id, answer, mistake):
    judged_as_old(problem_id, answer, mistake)


def test_06_p2_has_one_instance():
    one_instance("06-P2")


@pytest.mark.parametrize("seed", SEEDS)
def test_06_p3_variants(seed):
    m = PREDICTIONS["06-P3"].numbers(seed)["m"]
    filled = softmax(np.full(m, -1e9))  # every key blocked, filled with -1e9; attn_lib's stable softmax
    assert verdict("06-P3", float(filled[0]), seed) == (True, None)
    assert verdict("06-P3", 1 / m, seed) == (True, None)
    assert verdict("06-P3", 0, seed) == (False, "like-inf")
    assert verdict("06-P3", 1, seed) == (False, "one-key")


@pytest.mark.parametrize("seed", SEEDS)
def test_06_p4_variants(seed):
    p = PREDICTIONS["06-P4"].numbers(seed)
    m, pad = p["m"], p["pad"]
    real = np.arange(m) >= pad  # (m,): the first pad positions are padding
    empty_rows = int((~(causal_mask(m) & real).any(axis=1)).sum())
    assert 2 <= empty_rows < m  # more than the first row, and not every row
    assert verdict("06-P4", empty_rows, seed) == (True, None)
    assert verdict("06-P4", 1, seed) == (False, "first-row-only")
    assert verdict("06-P4", 0, seed) == (False, "padding-ignored")
    assert verdict("06-P4", int(real.sum()), seed) == (False, "counted-real")


@pytest.mark.parametrize("problem_id", ["06-P3", "06-P4"])
def test_a_seed_gives_the_same_numbers_twice(problem_id):
    same_numbers_twice(problem_id, SEEDS, at_least=3)


@pytest.mark.parametrize("problem_id", ["06-P2", "06-P3", "06-P4"])
def test_the_first_variant_is_the_notebooks(problem_id):
    first_is_notebooks(problem_id, tex=())


def test_06_p3_says_which_softmax():
    text = PREDICTIONS["06-P3"].variant(0).text
    assert "stable softmax" in text and "maximum" in text
