"""tools/problems.py: what a problem is, and whether it asks for a function, against the notebooks' placeholders."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import problems  # noqa: E402  (tools/problems.py)


@pytest.mark.parametrize("name", problems.numbered_notebooks())
def test_exactly_the_function_problems_have_a_stub_that_raises_not_implemented(name):
    nb = nbformat.read(problems.NOTEBOOKS / f"{name}.ipynb", as_version=4)
    for problem in problems.problems(nb, name):
        stub = "raise NotImplementedError" in problem.answer.source
        assert stub == problem.asks_for_a_function, (name, problem.heading)


@pytest.mark.parametrize("source, expected", [
    ("def f(x):\n    raise NotImplementedError", True),
    ("import numpy as np\n\ndef f(x):\n    return x", True),
    ("answer = None  # your answer here", False),
    ("answer = (lambda x: x)", False),
    ("%time x = 1\ndef f(x):\n    return x", True),
    ("def broken(:", False),
])
def test_asks_for_a_function_when_the_answer_cell_defines_one(source, expected):
    assert problems.asks_for_a_function(nbformat.v4.new_code_cell(source)) is expected


def test_a_heading_without_its_two_code_cells_is_refused_by_name():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("### Problem 1: one"),
                                         nbformat.v4.new_code_cell("answer = None")])
    with pytest.raises(problems.ProblemShapeError, match="here: 'Problem 1: one' should be followed"):
        problems.problems(nb, "here")


def _problem_then(*after):
    """A notebook of one prediction problem, then the cells ``after`` (("code", has_output) or ("markdown", text))."""
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    cells = [md("### Problem 1: a guess"), code("answer = None"), code("check_number(answer, 2)")]
    for kind, what in after:
        cell = code("print(2)") if kind == "code" else md(what)
        if kind == "code" and what:
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="2\n")]
        cells.append(cell)
    nb = nbformat.v4.new_notebook(cells=cells)
    return nb, problems.problems(nb, "test")[0]


@pytest.mark.parametrize("after, follows", [
    ([("code", True)], True),
    ([("markdown", "Prose first."), ("code", False), ("code", True)], True),
    ([("markdown", "## The next idea"), ("code", True)], False),
    ([("code", False)], False),
    ([], False),
])
def test_a_code_cell_with_output_before_the_next_heading_follows_the_checker(after, follows):
    assert problems.output_follows(*_problem_then(*after)) is follows
