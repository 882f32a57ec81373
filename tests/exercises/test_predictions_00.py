"""Notebook 00's prediction problems as data (issue 24): the notebook's numbers judge as the old checker cells did,
and every variant's right answer (computed here, from its numbers) passes while each named mistake gets its id."""

from __future__ import annotations

import pytest

from attn_lib.exercises import check
from attn_lib.exercises._problem_book import PREDICTIONS
from prediction_checks import first_is_notebooks, judged_as_old, one_instance, rows, same_numbers_twice, verdict

SEEDS = range(1, 51)



# The old checker cells, by hand from the notebook before the move: each answer and the id it got (None: passed).
OLD = {
    "00-P1": [("b", None), ("B", None), (" b) ", None), ("a", "chose-a"), ("c", "chose-c"), ("d", "chose-d"),
              ("e", "not-an-option"), (None, "not-answered")],
    "00-P2": [({"weights": (6, 6), "output": (6, 5)}, None),
              ({"weights": ("n", "m"), "output": ("n", "d_v")}, None),
              ({"weights": (6, 3), "output": (6, 5)}, "weights-width-dk"),
              ({"weights": (6, 5), "output": (6, 5)}, "weights-width-dv"),
              ({"weights": (6, 6), "output": (6, 3)}, "output-width-dk"),
              ({"weights": (6, 6), "output": (6, 6)}, "output-is-weights"),
              ({"weights": (6, 6), "output": (5, 6)}, "output-transposed"),
              ({"weights": (6, 6), "output": (6, 2)}, "wrong-shape"),
              ({"weights": None, "output": None}, "not-answered"),
              ({"weights": (6, 6)}, "not-answered")],
}


@pytest.mark.parametrize("problem_id, answer, mistake", rows(OLD))
def test_the_notebooks_numbers_judge_as_the_old_cell_did(problem_id, answer, mistake):
    judged_as_old(problem_id, answer, mistake)


def test_who_hears_the_animal_has_one_instance():
    one_instance("00-P1")


@pytest.mark.parametrize("seed", SEEDS)
def test_every_variant_of_the_shapes_judges_its_own_numbers(seed):
    p = PREDICTIONS["00-P2"].numbers(seed)
    n, d_k, d_v = p["n"], p["d_k"], p["d_v"]
    assert len({n, d_k, d_v}) == 3 and d_v != 2  # every wrong shape is a shape of its own; d_v is a new width
    right = {"weights": (n, n), "output": (n, d_v)}
    assert verdict("00-P2", right, seed) == (True, None)
    for name, shape, mistake in [("weights", (n, d_k), "weights-width-dk"), ("weights", (n, d_v), "weights-width-dv"),
                                 ("output", (n, d_k), "output-width-dk"), ("output", (n, n), "output-is-weights"),
                                 ("output", (d_v, n), "output-transposed")]:
        assert verdict("00-P2", {**right, name: shape}, seed) == (False, mistake), (name, shape)
    # the notebook's numbers are no answer to a variant
    if (n, d_v) != (6, 5):
        assert not check("00-P2", OLD["00-P2"][0][0], seed=seed).passed


def test_a_seed_gives_the_same_numbers_twice():
    same_numbers_twice("00-P2", SEEDS, at_least=20)


@pytest.mark.parametrize("problem_id", ["00-P1", "00-P2"])
def test_the_first_variant_is_the_notebooks(problem_id):
    first_is_notebooks(problem_id)


def test_the_shapes_statement_has_the_notebooks_numbers():
    assert PREDICTIONS["00-P2"].first == {"n": 6, "d_k": 3, "d_v": 5}
    assert "6 words" in PREDICTIONS["00-P2"].variant(0).text


def test_the_shapes_not_answered_text_names_the_two_shapes_asked():
    said = check("00-P2", None).reason
    assert "weights, output" in said and "Q, K, V" not in said
