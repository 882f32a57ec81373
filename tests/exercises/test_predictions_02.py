"""Notebook 02's prediction problems as data (attn_lib/exercises/_data/_predictions_02.py): the notebook's numbers
with their right answer and each named mistake written by hand, and every drawn variant judged against formulas
written here, not taken from the module."""

from __future__ import annotations

import pytest

from attn_lib.exercises import check
from attn_lib.exercises._problem_book import PREDICTIONS
from prediction_checks import every_variant_names_each_mistake, first_is_notebooks, same_numbers_twice, verdict

SEEDS = range(1, 51)

# The notebook's numbers (batch 8, n 12, m 20, d_k 16), by hand: (answer, mistake id; None when it passes).
NOTEBOOK = {
    "02-P8": [(1920, None), (1920.0, None), (240, "forgot-batch"), (15_360, "batch-members-meet"),
              (30_720, "counted-macs"), (1152, "square-queries"), (3200, "square-keys"), (1921, "wrong-number"),
              ("1920", "not-a-number"), (None, "not-answered")],
}


@pytest.mark.parametrize("problem_id, answer, mistake",
                         [(pid, answer, mistake) for pid, table in NOTEBOOK.items() for answer, mistake in table])
def test_the_notebooks_numbers(problem_id, answer, mistake):
    assert verdict(problem_id, answer) == (mistake is None, mistake)


def _scores_of_a_batch(pid, p):
    batch, n, m, d_k = p["batch"], p["n"], p["m"], p["d_k"]
    return batch * n * m, [(n * m, "forgot-batch"), (batch * batch * n * m, "batch-members-meet"),
                           (batch * n * m * d_k, "counted-macs"), (batch * n * n, "square-queries"),
                           (batch * m * m, "square-keys")]


def test_every_variant_of_the_scores_of_a_batch_names_each_mistake():
    every_variant_names_each_mistake("02-P8", _scores_of_a_batch, SEEDS, at_least=20)


@pytest.mark.parametrize("seed", SEEDS)
def test_no_reason_gives_the_answer_away(seed):
    p = PREDICTIONS["02-P8"].numbers(seed)
    right, mistakes = _scores_of_a_batch("02-P8", p)
    assert p["n"] != p["m"] and p["batch"] > 1
    for value, _ in mistakes:
        feedback = check("02-P8", value, seed=seed)
        assert f"{right:,}" not in feedback.reason + feedback.hint and str(right) not in feedback.reason


def test_a_seed_gives_the_same_numbers_twice():
    same_numbers_twice("02-P8", SEEDS, at_least=20)


def test_the_first_variant_is_the_notebooks():
    first_is_notebooks("02-P8")
