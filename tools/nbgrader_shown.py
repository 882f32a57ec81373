"""The numbers each submission showed, against the numbers it is graded on: one sentence per submission that shows
other numbers than its student's own, or that is not the assignment's notebook at all. Part of
``python tools/nbgrader_course.py DIR --audit`` and of the summary of ``tools/nbgrader_parallel.py``.

In a course with per-student numbers (its source's setup cell calls ``use_student_numbers()``), autograde grades each
student on their own numbers (``student_seed(student, assignment)``), whatever the notebook handed in shows. A
notebook made from the student's own release shows those numbers: each statement with variants is the variant's
text and ends with "*Your numbers: variant N.*". Every other submission is named, with what it showed:
- the course's numbers (the common release, the browser edition, Binder, a copy of the course's own notebook);
- a classmate's numbers (their release handed in, or a setup cell that names them);
- numbers that are nobody's in the class (a statement edited by hand, or a variant another student was not set).
In a course without per-student numbers everyone is graded on the course's numbers, and a submission that shows a
student's own numbers is named. A submission whose checker cells name another notebook's problems is named as that
notebook. Nothing is changed: the teacher reads the sentence and decides (a fresh hand-in, or grading by hand).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from nbgrader_release import SOURCE_STUDENT_NUMBERS  # noqa: E402  (tools/nbgrader_release.py)
import problems as course_problems  # noqa: E402  (tools/problems.py: a problem's heading, answer and checker cells)

from attn_lib.exercises._problem_book import PREDICTIONS, student_seed  # noqa: E402
from attn_lib.exercises._problem_book import YOUR_NUMBERS as YOUR_NUMBERS_TEXT  # noqa: E402  (its own name here)

# The end of a statement shown with a student's numbers, as the problem book writes it, its seed read back.
YOUR_NUMBERS = re.compile(re.escape(YOUR_NUMBERS_TEXT).replace(re.escape("{seed}"), r"(\d+)"))
NAMED_STUDENT = re.compile(r"use_student_numbers\(\s*(['\"])(.+?)\1\s*,")
CHECKED = re.compile(r'\bcheck\(\s*"(\d\d-P\d+)"')


def _flat(text: str) -> str:
    return " ".join(text.split())


def statements(nb) -> dict[str, str | None]:
    """Problem id -> the text of its statement as ``nb`` shows it, for each prediction of ``nb`` with variants: the
    output of its statement cell (None when that cell shows nothing: never run), or its heading cell's text."""
    found = {}
    for problem in course_problems.problems(nb, "submission"):
        match = CHECKED.search(problem.checker.source)
        if match and match.group(1) in PREDICTIONS and PREDICTIONS[match.group(1)].has_variants:
            if problem.statement is None:
                found[match.group(1)] = problem.heading_cell.source
            else:
                found[match.group(1)] = next((str(o["data"]["text/markdown"]) for o in problem.statement.get(
                    "outputs", []) if "text/markdown" in o.get("data", {})), None)
    return found


def per_student(source) -> bool:
    """Whether the course sets each student their own numbers (its setup cell calls ``use_student_numbers()``)."""
    return any(SOURCE_STUDENT_NUMBERS in c.source for c in source.cells if c.cell_type == "code")


def _whose(seed: int, name: str, students: list[str]) -> str | None:
    return next((s for s in students if student_seed(s, name) == seed), None)


def shown(nb, source, name: str, student: str, classmates: list[str]) -> str | None:
    """What ``nb`` (``student``'s submission of assignment ``name``, whose source notebook is ``source``) shows, when
    that is not the numbers it is graded on: one sentence, or None."""
    try:
        own_problems = set(statements(source))
        theirs = statements(nb)
    except course_problems.ProblemShapeError:
        theirs = None
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    other = sorted({pid[:2] for pid in CHECKED.findall(code)} - {name[:2]})
    if other and not {pid for pid in CHECKED.findall(code) if pid[:2] == name[:2]}:
        return (f"{student} {name}: the notebook handed in is notebook {', '.join(other)}'s (its checker cells name "
                f"{', '.join(sorted(set(CHECKED.findall(code))))}), not {name}'s: its answers are not this "
                f"assignment's; ask {student} to hand in {name}.ipynb")
    if theirs is None:
        return (f"{student} {name}: its problems are not laid out as {name}'s (a heading without its answer and "
                "checker cells under it): read it before trusting its points")
    named = {m.group(2) for m in NAMED_STUDENT.finditer(code)}
    if not per_student(source):
        set_own = sorted(pid for pid, text in theirs.items() if text and YOUR_NUMBERS.search(text))
        if set_own:
            return (f"{student} {name}: shows a student's own numbers ({', '.join(set_own)}), but this course grades "
                    "everyone on the course's numbers: its answers to those are judged on numbers it did not show")
        return None
    own = student_seed(student, name)
    kinds: dict[str, list[str]] = {}
    source_text = statements(source)
    for pid in sorted(own_problems):
        if pid not in theirs:
            continue
        text = theirs[pid]
        course_text = source_text[pid] if source_text[pid] is not None else PREDICTIONS[pid].variant(0).text
        match = None if text is None else YOUR_NUMBERS.search(text)
        if text is None:
            kind = "no statement (its statement cell never ran)"
        elif match is None:
            kind = ("the course's numbers" if _flat(text) == _flat(course_text) else "numbers edited by hand")
        else:
            seed = int(match.group(1))
            variant_text = PREDICTIONS[pid].variant(seed).text
            if _flat(variant_text) not in _flat(text):
                kind = "numbers edited by hand"
            elif seed == own:
                continue
            else:
                classmate = _whose(seed, name, [c for c in classmates if c != student])
                kind = f"{classmate}'s numbers" if classmate else f"variant {seed}, set to no one in this class"
        kinds.setdefault(kind, []).append(pid)
    others = sorted(named - {student})
    setup = (f"its setup cell names {', '.join(others)}, so its checks judged {' and '.join(others)}'s numbers while "
             f"{student} worked (nbgrader puts the course's setup cell back before grading)") if others else ""
    if not kinds:
        return f"{student} {name}: {setup}; it shows {student}'s own numbers and is graded on them" if setup else None
    parts = [f"{kind} ({', '.join(pids)})" if len(kinds) > 1 or len(pids) < len(own_problems) else kind
             for kind, pids in kinds.items()]
    count = sum(len(pids) for pids in kinds.values())
    return (f"{student} {name}: graded on {student}'s own numbers, but it shows {' and '.join(parts)}: "
            f"{count} problem{'s' * (count != 1)} judged on numbers {student} was not shown"
            + (f"; {setup}" if setup else "")
            + f". Give {student} their own release to answer again (python tools/nbgrader_course.py DIR --only "
              f"{name[:2]} --per-student {student} writes it)"
            + (f", or ask {student} to state their id once in the notebook they use (set_student_id(\"{student}\")), "
               "run the statement cells again and answer again"
               if {"the course's numbers", "no statement (its statement cell never ran)"} & set(kinds) else "")
            + ", or grade those problems by hand")


def shown_numbers(directory: Path, names: list[str] | None = None, students: list[str] | None = None) -> list[str]:
    """One sentence per submission under DIR/submitted/ (of the assignments ``names``, default all; of
    ``students``, default all) that shows other numbers than it is graded on, or is another notebook."""
    lines = []
    for source_path in sorted((directory / "source").glob("*/*.ipynb")):
        name = source_path.parent.name
        if names is not None and name not in names:
            continue
        source = nbformat.read(source_path, as_version=4)
        handed = sorted((directory / "submitted").glob(f"*/{name}/{source_path.name}"))
        classmates = [path.parent.parent.name for path in handed]
        for path in handed:
            student = path.parent.parent.name
            if students is not None and student not in students:
                continue
            try:
                nb = nbformat.read(path, as_version=4)
            except Exception as error:  # noqa: BLE001  (nbgrader names an unreadable notebook itself)
                lines.append(f"{student} {name}: the notebook handed in cannot be read ({type(error).__name__})")
                continue
            line = shown(nb, source, name, student, classmates)
            if line:
                lines.append(line)
    return lines
