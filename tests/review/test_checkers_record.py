"""What the checkers tell the record: a right check() or a passing function checker solves its problem, a wrong
one reaches its notebook, a placeholder does nothing; nbgrader's runs write nothing; the table of function
problems matches the notebooks' checker cells."""

import sys
from datetime import datetime, timezone
from pathlib import Path

import nbformat
import numpy as np
import pytest

from attn_lib._record.changes import FUNCTION_PROBLEMS, rate_prompt
from attn_lib._record.file import load
from attn_lib.exercises import check, check_softmax
from attn_lib.exercises._problem_book import PREDICTIONS
from attn_lib.review import prompts_of
from attn_lib.review._course import problems_of

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import problems as notebook_problems  # noqa: E402  (tools/problems.py)

NOW = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_a_right_check_solves_the_problem_and_starts_its_variants_schedule():
    check("02-P2", 64_000_000)
    record = load()
    assert set(record["solved"]) == {"02-P2"} and set(record["reached"]) == {"02"}
    assert record["variants"]["02-P2"]["reviews"][0]["rating"] == "Good"


def test_a_passing_function_checker_solves_its_notebooks_problem(fresh_course_record):
    assert not check_softmax(lambda x: np.exp(x) / np.exp(x).sum()).passed
    assert set(load()["reached"]) == {"04"} and load()["solved"] == {}
    assert check_softmax(softmax).passed
    assert set(load()["solved"]) == {"04-P5"} and load()["variants"] == {}  # a function problem has no variants


def test_a_placeholder_answer_writes_nothing(fresh_course_record):
    check("03-P1", None)
    check_softmax(None)
    assert not fresh_course_record.exists()


def test_a_problem_solved_again_is_not_written_again(fresh_course_record):
    check("02-P2", 64_000_000)
    written = fresh_course_record.stat().st_mtime_ns, fresh_course_record.read_text()
    for _ in range(3):
        check("02-P2", 64_000_000)
        check("02-P2", 1)
    assert (fresh_course_record.stat().st_mtime_ns, fresh_course_record.read_text()) == written


@pytest.mark.parametrize("value", ["autograde", "validate"])
def test_nothing_is_written_while_nbgrader_runs_a_notebook(monkeypatch, fresh_course_record, value):
    monkeypatch.setenv("NBGRADER_EXECUTION", value)
    assert check("02-P2", 64_000_000).passed
    assert check_softmax(softmax).passed
    box = prompts_of("02", now=NOW)
    box.cards[0].reveal.click()
    box.cards[0].ratings["Good"].click()
    rate_prompt("02-R1", "Good", NOW)
    assert not fresh_course_record.exists()


def test_under_nbgrader_a_record_that_is_not_ours_does_not_break_the_prompts(monkeypatch, fresh_course_record):
    fresh_course_record.write_text("a student's own notes")
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    prompts_of("02", now=NOW).cards[0].reveal.click()
    assert check("02-P2", 64_000_000).passed
    assert fresh_course_record.read_text() == "a student's own notes"


def test_the_table_of_function_problems_is_the_notebooks_checker_cells():
    found, predictions = {}, set()
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for problem in notebook_problems.problems(nb, str(path)):
            # a problem's K is its heading's number, not its place: a new problem takes the next free K wherever
            # it sits (CONTRIBUTING.md, "Ids are stable forever")
            number = notebook_problems.FORM.match(problem.heading_cell.source).group(1)
            problem_id = f"{path.name[:2]}-P{number}"
            call = problem.checker.source.strip().splitlines()[-1]
            if problem.asks_for_a_function:
                found[call.split("(")[0].strip()] = problem_id
            else:
                assert call.startswith(f'check("{problem_id}"'), (problem_id, call)
                predictions.add(problem_id)
    assert found == FUNCTION_PROBLEMS
    assert predictions == set(PREDICTIONS)
    every = {p for notebook in (f"{n:02d}" for n in range(11)) for p in problems_of(notebook)}
    assert every == predictions | set(FUNCTION_PROBLEMS.values())


def test_a_solve_after_wrong_tries_is_recorded_as_one():
    assert not check("03-P2", 1).passed and not check("03-P2", 2).passed
    variant = PREDICTIONS["03-P2"].variant(0)
    assert check("03-P2", variant.problem.expected(variant.params)[0]).passed
    first = load()["variants"]["03-P2"]["reviews"][0]
    assert (first["rating"], first["wrong_tries"]) == ("Hard", 2)
    assert check("02-P2", 64_000_000).passed  # right at once: Good, no count
    first = load()["variants"]["02-P2"]["reviews"][0]
    assert first["rating"] == "Good" and "wrong_tries" not in first
    assert load()["tried"] == {}  # a first solve takes its count out of the record


def test_wrong_tries_in_an_earlier_kernel_count_at_the_solve_and_later_ones_are_not_written(monkeypatch):
    from attn_lib._record import changes

    variant = PREDICTIONS["03-P2"].variant(0)
    right = variant.problem.expected(variant.params)[0]
    assert not check("03-P2", 1).passed
    assert load()["tried"] == {"03-P2": 1}
    monkeypatch.setattr(changes, "_NOTED", set())  # the notebook closed, its kernel gone: a new kernel
    assert not check("03-P2", 2).passed and not check("03-P2", 3).passed
    assert load()["tried"] == {"03-P2": 3}
    monkeypatch.setattr(changes, "_NOTED", set())
    assert check("03-P2", right).passed
    record = load()
    assert record["tried"] == {} and "03-P2" in record["solved"]
    first = record["variants"]["03-P2"]["reviews"][0]
    assert (first["rating"], first["wrong_tries"]) == ("Hard", 3)
    monkeypatch.setattr(changes, "_NOTED", set())
    assert not check("03-P2", 4).passed  # after the first solve a wrong answer counts for nothing
    assert load()["tried"] == {} and len(load()["variants"]["03-P2"]["reviews"]) == 1
