"""The release of the nbgrader course, cell by cell: what each cell of a course notebook becomes in it (its source
and its nbgrader metadata), and how a notebook's nbgrader metadata is read back.

tools/nbgrader_course.py writes the course's assignments with it, tools/nbgrader_ways_in.py recognises the cells of a
course notebook handed in from another way in by it, and tools/nbgrader_audit.py reads with it which cells nbgrader
restores; it imports none of them.
"""

from __future__ import annotations

import ast
import re
import sys
import textwrap
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))
import attn_lib.exercises  # noqa: E402  (the checkers a test cell may call)
from attn_lib.exercises._problem_book import PREDICTIONS  # noqa: E402  (the prediction problems)
import problems as course_problems  # noqa: E402  (tools/problems.py: what a problem is)

# Checkers whose arguments are the expected answer itself: a checker cell never calls them (the problem book does).
ANSWER_IN_ARGUMENTS = {"check_number", "check_choice", "check_count", "check_variance", "check_shapes",
                       "check_learned", "check_footnote4_variance", "check_why_scores_grow", "check_unscaled_row",
                       "check_weights_beyond_parameters"}
PREDICTION_CHECK = "check"  # check("NN-PK", answer): attn_lib computes the answer from the problem's numbers
BEGIN_SOLUTION, END_SOLUTION = "### BEGIN SOLUTION", "### END SOLUTION"
STUDENT_NUMBERS = ("from attn_lib.exercises import use_student_numbers\n"
                   "use_student_numbers({args})  # the numbers this copy's problems are set and graded on")
SOURCE_STUDENT_NUMBERS = STUDENT_NUMBERS.format(args="")  # the source's: the student nbgrader grades
# The checker and assert_correct reloaded from attn_lib's files: a name rebound in the notebook or in attn_lib.exercises
# (the module a learner's cell would patch) changes nothing.
GRADER_IMPORT = ("from importlib import import_module, reload  # the course's own checker, reloaded from attn_lib\n"
                 "{checker} = reload(import_module(\"{module}\")).{checker}\n"
                 "assert_correct = reload(import_module(\"attn_lib.exercises._grading\")).assert_correct")
# A prediction's answer variable, and the line that empties it after its check.
ANSWER = "answer"
ANSWER_RESET = f"    {ANSWER} = None  # the next problem's check reads that problem's answer, never this one's"
# Before a notebook's first prediction nothing has assigned ``answer``: an answer cell that raised then reads as not
# answered, not as a NameError whose traceback shows the test cell's source.
ANSWER_DEFAULT = f'{ANSWER} = globals().get("{ANSWER}")  # None when the answer cell stopped before it assigned'
NOTEBOOK_LINK = re.compile(r"\]\(([\w.-]+)\.ipynb\)")


class CourseError(ValueError):
    """The learner notebook and its solutions notebook do not fit together as a graded assignment, or the course
    folder cannot be written."""


def course_notebooks() -> list[str]:
    """The learner notebooks, 00 to 10, by stem (tools/nav.py's numbered notebooks)."""
    return course_problems.numbered_notebooks()


def checker_call(cell, where: str) -> tuple[str, str, str | None]:
    """The checker's name, the source of its call and the prediction's id (None for a function problem), from a
    checker cell that is one ``check_...(...)`` call (a function problem) or one ``check("NN-PK", answer)`` call."""
    try:
        tree = ast.parse(cell.source)
    except SyntaxError as error:
        raise CourseError(f"{where}: the checker cell does not parse: {error}") from None
    body = tree.body
    call = body[0].value if len(body) == 1 and isinstance(body[0], ast.Expr) else None
    name = call.func.id if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) else None
    if name is None or not (name == PREDICTION_CHECK or name.startswith("check_")):
        raise CourseError(f"{where}: the checker cell should be one call check_...(...) or check(\"NN-PK\", "
                          f"answer), not {cell.source[:80]!r}")
    if name not in attn_lib.exercises.__all__:
        raise CourseError(f"{where}: {name} is not a checker of attn_lib.exercises")
    if name in ANSWER_IN_ARGUMENTS:
        raise CourseError(f"{where}: the checker cell calls {name} with the problem's numbers, where a learner reads "
                          "the answer off it; register the problem in attn_lib/exercises/_data/_predictions_NN.py and "
                          "call check(\"NN-PK\", answer)")
    problem_id = None
    if name == PREDICTION_CHECK:
        problem_id = call.args[0].value if call.args and isinstance(call.args[0], ast.Constant) else None
        if problem_id not in PREDICTIONS:
            raise CourseError(f"{where}: check({problem_id!r}, ...) names no prediction problem of attn_lib")
    return name, ast.get_source_segment(cell.source, call), problem_id


def nbgrader_meta(grade_id: str, *, grade=False, solution=False, locked=True, points=None) -> dict:
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3, "solution": solution,
            "task": False}
    if points is not None:
        meta["points"] = points
    return meta


def solution_source(placeholder: str, solution: str) -> str:
    return "\n".join([placeholder.rstrip(), BEGIN_SOLUTION, solution.rstrip(), END_SOLUTION])


def test_source(checker: str, call_source: str) -> str:
    """A test cell's source; a call that reads ``answer`` is wrapped so that ``answer`` is None after it whatever
    happens: an answer cell that raises before it assigns then reads as not answered at the next problem, instead
    of leaving that problem's check to judge the previous problem's answer."""
    module = getattr(attn_lib.exercises, checker).__module__  # where the checker is defined, not re-exported
    check = f"assert_correct({call_source})"
    if any(isinstance(node, ast.Name) and node.id == ANSWER for node in ast.walk(ast.parse(call_source))):
        check = "\n".join([ANSWER_DEFAULT, "try:", textwrap.indent(check, "    "), "finally:", ANSWER_RESET])
    return "\n".join([GRADER_IMPORT.format(checker=checker, module=module), check])


def relink(source: str, stems: set[str]) -> str:
    """Links between course notebooks, rewritten for assignments that sit side by side; contents' link dropped."""
    source = re.sub(r"\s*\|\s*\[[^\]]*\]\(contents\.ipynb\)|\[[^\]]*\]\(contents\.ipynb\)\s*\|?\s*", "", source)

    def target(match):
        stem = match.group(1)
        if stem not in stems:
            raise CourseError(f"a link points at {stem}.ipynb, which is not an assignment of the course")
        return f"](../{stem}/{stem}.ipynb)"

    return NOTEBOOK_LINK.sub(target, source).strip()


def setup_cell(nb) -> int:
    """The index of the notebook's setup cell: the first code cell that imports from attn_lib.exercises."""
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and "from attn_lib.exercises import" in cell.source:
            return i
    return -1


def grading(cell) -> dict:
    """A cell's nbgrader metadata (grade_id, locked, solution, grade, points), empty when it has none."""
    return cell.metadata.get("nbgrader", {})


def has_release_metadata(nb) -> bool:
    """Whether any cell of ``nb`` carries nbgrader metadata (the release, or a per-student release)."""
    return any("nbgrader" in cell.metadata for cell in nb.cells)


def locked_ids(source_notebook: Path) -> set[str]:
    """The grade_ids of the cells nbgrader restores from the source notebook (locked, not solution cells)."""
    if not source_notebook.is_file():
        return set()
    ids = set()
    for cell in nbformat.read(source_notebook, as_version=4).cells:
        meta = grading(cell)
        if meta.get("locked") and not meta.get("solution"):
            ids.add(meta["grade_id"])
    return ids


def graded_form(nb) -> dict:
    """What a gradebook keeps of a released notebook and grades by: each graded cell's points, and the source of
    each cell nbgrader restores before grading (locked, not a solution), by grade_id."""
    points, locked = {}, {}
    for cell in nb.cells:
        meta = grading(cell)
        if meta.get("grade"):
            points[meta["grade_id"]] = float(meta["points"])
        if meta.get("locked") and not meta.get("solution"):
            locked[meta["grade_id"]] = cell.source
    return {"points": points, "locked": locked}


def gradebook_form(notebook) -> dict:
    """:func:`graded_form` of a notebook as a gradebook holds it (an ``nbgrader.api.Notebook`` row)."""
    return {"points": {c.name: float(c.max_score) for c in notebook.grade_cells},
            "locked": {c.name: c.source for c in notebook.source_cells if c.locked}}


def version_differences(held: dict, course: dict) -> list[str]:
    """How the graded form a gradebook holds differs from the course's (:func:`graded_form`), one phrase each: empty
    when the gradebook was made from this version of the notebook."""
    found = []
    for grade_id in sorted(held["points"].keys() | course["points"].keys()):
        there, here = held["points"].get(grade_id), course["points"].get(grade_id)
        if there is None:
            found.append(f"{grade_id} is graded in this version and not in the gradebook's")
        elif here is None:
            found.append(f"{grade_id} is graded in the gradebook's version and not in this one")
        elif there != here:
            found.append(f"{grade_id} is worth {there:g} points in the gradebook's version and {here:g} in this one")
    for grade_id in sorted(held["locked"].keys() & course["locked"].keys()):
        if held["locked"][grade_id] != course["locked"][grade_id]:
            found.append(f"the locked cell {grade_id} reads differently")
    for grade_id in sorted(held["locked"].keys() ^ course["locked"].keys()):
        where = "the gradebook's" if grade_id in held["locked"] else "this"
        found.append(f"the locked cell {grade_id} is in {where} version only")
    return found


def held_by_another_version(notebook, nb, name: str) -> str:
    """'' when a gradebook's row of assignment ``name`` (an ``nbgrader.api.Notebook``) holds the graded form of
    ``nb``, this version's source notebook; otherwise what it holds, in words ("holds 2 submissions of 02-scores
    from another version of the course: problem-2-check is worth 3 points ... (and 1 more differences)")."""
    found = version_differences(gradebook_form(notebook), graded_form(nb))
    if not found:
        return ""
    held = len(notebook.submissions)
    more = f" (and {len(found) - 1} more differences)" if len(found) > 1 else ""
    return (f"holds {held} submission{'s' * (held != 1)} of {name} from another version of the course: "
            f"{found[0]}{more}")
