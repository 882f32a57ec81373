"""Running nbgrader on a course written by tools/nbgrader_course.py, for the tests and the benchmark: nbgrader's
command line in the course folder, a learner's simulated hand-in, and the solutions read back from a source
notebook."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from nbgrader_course import COURSE_ID, ROOT  # noqa: E402  (tools/nbgrader_course.py)
from nbgrader_release import BEGIN_SOLUTION, END_SOLUTION  # noqa: E402  (tools/nbgrader_release.py)

# nbgrader calls `alembic` (its database migrations) by name, in its command line and when a Gradebook creates a
# database in this process: the running interpreter's scripts go first on PATH, so that a suite run as
# `.venv/bin/python -m pytest`, without an activated environment, finds it.
_SCRIPTS = str(Path(sys.executable).parent)
if _SCRIPTS not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = os.pathsep.join([_SCRIPTS, os.environ.get("PATH", "")])


def grading_env(env: dict | None = None) -> dict[str, str]:
    """PATH and PYTHONPATH for nbgrader and the kernels it starts, on top of ``env`` (default: this process's):
    this interpreter's scripts first on PATH (nbgrader calls alembic by name, activated environment or not), and
    this repository first on PYTHONPATH (the kernels import its attn_lib)."""
    env = os.environ if env is None else env
    return {"PATH": os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
            "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)}


def run_nbgrader(course: Path, *args: str, env: dict | None = None) -> str:
    """Run ``python -m nbgrader ARGS`` in the course folder, with this repository's attn_lib importable by the
    kernels; return its log, or raise RuntimeError with it when nbgrader fails."""
    env = {**os.environ, **(env or {})}
    env.pop("ATTN_COURSE_STUDENT", None)  # a student chosen in this process is not the graded kernels' business
    env.update(grading_env(env))
    result = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env, capture_output=True,
                            text=True)
    if result.returncode != 0:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    return result.stdout + result.stderr


def solutions(source) -> dict[str, str]:
    """The code between the solution markers of every answer cell of a source notebook, by grade_id."""
    found = {}
    for cell in source.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution"):
            found[meta["grade_id"]] = cell.source.split(BEGIN_SOLUTION + "\n", 1)[1].split("\n" + END_SOLUTION)[0]
    return found


def hand_in(course: Path, student: str, name: str, answers: dict[str, str], inserted: dict[str, str] | None = None,
            deleted: frozenset[str] = frozenset(), released: Path | None = None) -> Path:
    """Put a learner's submission where ``nbgrader collect`` would: the released notebook of assignment ``name``
    with the cells named in ``answers`` (grade_id -> source; answer cells, or any cell a test tampers with)
    replaced, a new code cell without nbgrader metadata after each cell named in ``inserted`` (grade_id ->
    source), and the cells named in ``deleted`` left out, under submitted/STUDENT/NAME/. ``released``: the notebook
    the learner was given, when it is not nbgrader's release (a per-student release, a copy from another way in)."""
    released = nbformat.read(released or course / "release" / name / f"{name}.ipynb", as_version=4)
    cells = []
    for cell in released.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in deleted:
            continue
        if grade_id in answers:
            cell.source = answers[grade_id]
        cells.append(cell)
        if grade_id in (inserted or {}):
            cells.append(nbformat.v4.new_code_cell(inserted[grade_id]))
    released.cells = cells
    folder = course / "submitted" / student / name
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(released, folder / f"{name}.ipynb")
    (folder / "timestamp.txt").write_text("2026-01-01 12:00:00.000000 UTC", encoding="utf-8")
    return folder


# A wrong answer to each problem of 05-weighted-average, by grade_id: each one a mistake its checker names.
WRONG_05 = {
    "problem-1-answer": "def weighted_average(weights, V):\n    return weights  # the weights, not what they mix",
    "problem-2-answer": "answer = 3",
    "problem-3-answer": 'answer = "B"',
    "problem-4-answer": "answer = 1.5",
    "problem-5-answer": ('answers = {"Q": (4, 3), "K": (6, 3), "V": (6, 2), "scores": (6, 4), "weights": (6, 4),'
                         ' "output": (4, 2)}'),
    "problem-6-answer": 'answer = "B"',
}
KINDS = ("right", "wrong", "untouched")


def hand_in_class(course: Path, name: str, wrong: dict[str, str], count: int) -> dict[str, dict[str, str]]:
    """Hand in ``count`` simulated learners' submissions of assignment ``name`` (released already): learner-000
    answers every problem right, learner-001 leaves every answer cell as released, learner-002 answers every problem
    as ``wrong`` has it (grade_id -> source), and each further learner draws right, wrong or untouched for each
    problem from its own seed. Return each learner's kind of answer by grade_id."""
    import random

    right = solutions(nbformat.read(course / "source" / name / f"{name}.ipynb", as_version=4))
    if set(wrong) != set(right):
        raise ValueError(f"wrong: expected an answer for each of {sorted(right)}; got {sorted(wrong)}")
    chosen = {}
    for i in range(count):
        student = f"learner-{i:03d}"
        draw = random.Random(i)
        kinds = {g: KINDS[i] if i < len(KINDS) else draw.choice(KINDS) for g in sorted(right)}
        answers = {g: right[g] if kind == "right" else wrong[g] for g, kind in kinds.items() if kind != "untouched"}
        hand_in(course, student, name, answers)
        chosen[student] = kinds
    return chosen


def verdicts(course: Path, name: str, db_url: str) -> dict[tuple[str, str], tuple[float, str]]:
    """What autograde recorded for assignment ``name`` (one notebook of the same name): (student, grade_id) ->
    (score from the gradebook at ``db_url``, the graded cell's reason: the error it raised, ``ename: evalue``, or
    its printed output) for every graded cell of every autograded submission."""
    from nbgrader.api import Gradebook

    found = {}
    with Gradebook(db_url, COURSE_ID) as gradebook:
        for folder in sorted((course / "autograded").glob(f"*/{name}")):
            student = folder.parent.name
            scores = {g.name: g.score for g in gradebook.find_submission_notebook(name, name, student).grades}
            graded = nbformat.read(folder / f"{name}.ipynb", as_version=4)
            for cell in graded.cells:
                grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
                if grade_id in scores:
                    said = [f"{o['ename']}: {o['evalue']}" if o.output_type == "error" else o.get("text", "")
                            for o in cell.get("outputs", [])]
                    found[student, grade_id] = (scores[grade_id], "\n".join(said))
    return found
