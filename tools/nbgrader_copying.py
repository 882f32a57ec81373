"""Answers copied between students of a course with per-student numbers: an answer right for a classmate's numbers
and wrong for the student's own, reported per pair of students. Part of ``python tools/nbgrader_course.py DIR
--audit``.

Each prediction problem with variants sets each student their own numbers (``student_seed(student, assignment)``),
so its answer tells students apart, unless two students' numbers give the same answer: such a problem is named as
one that cannot show copying between them (02-P4's answer is 1 for everyone). A learner's answer is read from their
answer cell without running it: the value the last ``answer = ...`` (``answers = ...`` for shapes) gives, written as
a number, arithmetic (``4 * 10**6``), a string or a dict of shapes. An answer computed by code is not read, and
counts for nothing here.
"""

from __future__ import annotations

import ast
import re
import sys
from collections import defaultdict
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from nbgrader_release import SOURCE_STUDENT_NUMBERS  # noqa: E402  (tools/nbgrader_release.py)

from attn_lib.exercises._prediction import read_answer  # noqa: E402
from attn_lib.exercises._problem_book import PREDICTIONS, student_seed  # noqa: E402

CHECK_CALL = re.compile(r'check\("(\d\d-P\d+)", answers?\)')


def answers(nb) -> dict[str, object]:
    """Problem id -> the learner's answer, for each prediction whose answer cell (the code cell before its checker
    cell) gives a value that can be read without running it."""
    found = {}
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    for answer_cell, checker in zip(code, code[1:]):
        match = CHECK_CALL.search(checker.source)
        if not match or match.group(1) not in PREDICTIONS:
            continue
        problem = PREDICTIONS[match.group(1)]
        value = _assigned(answer_cell.source, "answers" if problem.kind == "shapes" else "answer", problem.kind)
        if value is not None:
            found[problem.id] = value
    return found


def _assigned(source: str, name: str, kind: str):
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    values = [node.value for node in tree.body if isinstance(node, ast.Assign)
              and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)]
    if not values:
        return None
    text = ast.get_source_segment(source, values[-1]) or ""
    value = read_answer(text, "shapes" if kind == "shapes" else "number" if kind == "number" else "choice")
    if value is None or value is ... or (kind == "number" and isinstance(value, str)):  # a number it cannot read
        return None
    return value


def _right(problem_id: str, seed: int, answer) -> bool:
    try:
        return bool(PREDICTIONS[problem_id].variant(seed).check(answer).passed)
    except Exception:  # noqa: BLE001  (an answer a checker cannot take is no evidence of copying)
        return False


def copying(directory: Path) -> list[str]:
    """One line per (student, classmate, assignment) whose answers are right for the classmate's numbers and wrong for
    the student's own, naming the problems (a student's classmates with the most such answers first: one answer
    may be right for several classmates' numbers); one line per problem whose answer is the same for two students who
    both answered it alike, which therefore cannot show copying between them. Nothing for a course that gives
    everyone the notebook's numbers (its source's setup cell does not call ``use_student_numbers()``)."""
    lines = []
    for source in sorted((directory / "source").glob("*/*.ipynb")):
        name = source.parent.name
        if not any(SOURCE_STUDENT_NUMBERS in c.source for c in nbformat.read(source, as_version=4).cells
                   if c.cell_type == "code"):
            continue
        given = {path.parent.parent.name: answers(nbformat.read(path, as_version=4))
                 for path in sorted((directory / "submitted").glob(f"*/{name}/{source.name}"))}
        seeds = {student: student_seed(student, name) for student in given}
        copied, alike = defaultdict(list), set()
        for student, theirs in given.items():
            for classmate in given:
                if classmate == student:
                    continue
                for problem_id, answer in theirs.items():
                    if not PREDICTIONS[problem_id].has_variants:
                        continue
                    own, other = _right(problem_id, seeds[student], answer), _right(problem_id, seeds[classmate], answer)
                    if other and not own:
                        copied[student, classmate].append(problem_id)
                    elif other and own and given[classmate].get(problem_id) is not None:
                        alike.add(problem_id)
        for (student, classmate), problems in sorted(copied.items(), key=lambda kv: (kv[0][0], -len(kv[1]), kv[0][1])):
            lines.append(f"{student} {name}: {len(problems)} answer{'s' * (len(problems) != 1)} right for "
                         f"{classmate}'s numbers and wrong for {student}'s own ({', '.join(sorted(problems))})")
        for problem_id in sorted(alike):
            lines.append(f"{name} {problem_id}: the same answer is right for two students' numbers, so it cannot "
                         "show copying between them")
    return lines
