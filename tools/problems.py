"""What "a problem" is in a course notebook, defined once for the tools and the tests that read problems.

A problem is a markdown cell whose heading names a problem ("### Problem 3: ...", in a learner notebook and in its
solutions notebook alike: ``FORM``), then, for a prediction whose numbers change with the learner, its statement cell
``statement("NN-PK")`` (attn_lib writes the statement from the problem's data with the numbers the check judges),
then the answer cell, then the checker cell ``check_...(...)``. It asks for a
function when its answer cell defines one (``def ...`` at the top of the cell); otherwise it asks for a prediction
(a number, a shape, a choice). The numbered notebooks are the ones tools/nav.py lists from course.toml.

Every problem says what kind of thinking it asks for, as one tag on its heading cell (``KINDS``):
``problem-transfer`` (the idea under a changed condition, or code the learner writes or repairs),
``problem-computation`` (a number from a formula just taught, with the numbers given) or ``problem-recall`` (a fact
or a shape read off what was taught). The course asks mostly for transfer; tests/test_problems.py holds the bounds.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
sys.path.insert(0, str(Path(__file__).resolve().parent))
import nav  # noqa: E402  (tools/nav.py)

STATEMENT = re.compile(r'^statement\(\s*"(\d\d-P\d+)"\s*\)\s*$')  # a problem's statement cell, whole
HEADING = re.compile(r"^#+\s*.*\b(problem|exercise)s?\b", re.IGNORECASE | re.MULTILINE)
# The one form of a problem's heading, the first line of its cell, in every notebook and solutions notebook
# (tests/test_problems.py holds them to it; HEADING finds any heading that names a problem, so that none is missed).
FORM = re.compile(r"### Problem (\d+): \S")


KINDS = ("transfer", "computation", "recall")
KIND_TAG = "problem-{}"


class ProblemShapeError(ValueError):
    """A problem heading that is not followed by an answer cell and a checker cell (a statement cell before them)."""


@dataclass
class Problem:
    heading: str  # the first line of the problem's cell, without its "#"s
    index: int  # the heading cell's index in its notebook
    answer: nbformat.NotebookNode
    checker: nbformat.NotebookNode

    heading_cell: nbformat.NotebookNode | None = None
    statement: nbformat.NotebookNode | None = None  # the statement cell, for a problem that has one

    @property
    def answer_index(self) -> int:
        return self.index + 1 + (self.statement is not None)

    @property
    def checker_index(self) -> int:
        return self.answer_index + 1

    @property
    def statement_of(self) -> str | None:
        """The problem id its statement cell states, or None."""
        return statement_id(self.statement) if self.statement is not None else None

    @property
    def asks_for_a_function(self) -> bool:
        return asks_for_a_function(self.answer)

    @property
    def kinds(self) -> list[str]:
        """The kinds named by the heading cell's ``problem-<kind>`` tags (exactly one when the cell is tagged right)."""
        tags = (self.heading_cell.metadata.get("tags", []) if self.heading_cell is not None else [])
        return [kind for kind in KINDS if KIND_TAG.format(kind) in tags]


def is_problem_heading(cell) -> bool:
    return cell.cell_type == "markdown" and bool(HEADING.search(cell.source))


def statement_id(cell) -> str | None:
    """The problem id of a statement cell (``statement("NN-PK")``), or None for any other cell."""
    match = STATEMENT.match(cell.source.strip()) if cell.cell_type == "code" else None
    return match.group(1) if match else None


def python_source(source: str) -> str:
    """A code cell's source with IPython magics and shell escapes blanked, so that ast can parse it."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


def asks_for_a_function(answer_cell) -> bool:
    """Whether a problem's answer cell defines a function (the learner writes it) rather than a value."""
    try:
        body = ast.parse(python_source(answer_cell.source)).body
    except SyntaxError:
        return False
    return any(isinstance(node, ast.FunctionDef) for node in body)


def problems(nb, where: str) -> list[Problem]:
    """Every problem of ``nb``: its heading cell with the answer cell and the checker cell under it.

    Raises
    ------
    ProblemShapeError
        When a heading is not followed by two code cells; the message starts with ``where``.
    """
    found = []
    for i, cell in enumerate(nb.cells):
        if is_problem_heading(cell):
            heading = cell.source.strip().splitlines()[0].lstrip("#").strip()
            stated = i + 1 < len(nb.cells) and statement_id(nb.cells[i + 1]) is not None
            pair = nb.cells[i + 1 + stated:i + 3 + stated]
            if len(pair) < 2 or any(c.cell_type != "code" for c in pair):
                raise ProblemShapeError(f"{where}: {heading!r} should be followed by an answer cell and a checker "
                                        "cell")
            found.append(Problem(heading, i, *pair, heading_cell=cell,
                                 statement=nb.cells[i + 1] if stated else None))
    return found


def numbered_notebooks(notebooks: Path = NOTEBOOKS) -> list[str]:
    """The course's numbered notebooks (00 to 10), by stem, in reading order, as tools/nav.py lists them."""
    return [entry.stem for entry in nav.course_entries(notebooks, nav.load_course())]


def output_follows(nb, problem: Problem) -> bool:
    """Whether a code cell with output follows ``problem``'s checker before the next heading: usually the cell that
    measures a prediction's answer, which a learner who runs ahead can read before answering."""
    for cell in nb.cells[problem.checker_index + 1:]:
        if cell.cell_type == "markdown" and cell.source.lstrip().startswith("#"):
            return False
        if cell.cell_type == "code" and cell.get("outputs"):
            return True
    return False
