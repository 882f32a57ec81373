"""Notebook 09's prediction problems as data (attn_lib/exercises/_data/_predictions_09.py): three choices about what the
notebook's training measured, one instance each, judged by check_learned as the old checker cells were."""

import pytest

from attn_lib.exercises import another, check
from attn_lib.exercises._check_learned import check_learned
from attn_lib.exercises._problem_book import PREDICTIONS

# problem -> (the old cell's question, the right option, the wrong options): written by hand from the old cells
OLD = {"09-P2": ("duplicate-key", "c", "abd"), "09-P3": ("adam-at-512", "b", "ac"), "09-P4": ("one-head", "b", "ac")}


@pytest.mark.parametrize("pid", sorted(OLD))
def test_judges_as_the_old_cell(pid):
    question, right, wrong = OLD[pid]
    for answer in [right, right.upper(), f"{right})", f" {right}. ", *wrong, "e", "", None, 3, "ab"]:
        new, old = check(pid, answer), check_learned(question, answer)
        assert (new.passed, new.mistake, new.reason, new.hint) == (old.passed, old.mistake, old.reason, old.hint), \
            (pid, answer)
    assert check(pid, right).passed
    for option in wrong:
        assert check(pid, option).mistake == f"chose-{option}"


@pytest.mark.parametrize("pid", sorted(OLD))
def test_one_instance_each(pid):
    problem = PREDICTIONS[pid]
    assert problem.kind == "choice" and not problem.has_variants and problem.why_one
    with pytest.raises(ValueError, match="one meaningful instance"):
        another(pid)
    assert check(pid, OLD[pid][1]).again == ""
    assert problem.numbers(0) == problem.numbers(0) == {}


@pytest.mark.parametrize("pid", sorted(OLD))
def test_the_statement_lists_every_option_the_checker_knows(pid):
    text = PREDICTIONS[pid].variant(0).text
    _, right, wrong = OLD[pid]
    for option in right + wrong:
        assert f"- ({option}) " in text
    assert "- (e)" not in text and "{{" not in text
