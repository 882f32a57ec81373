"""One round of nbgrader feedback, shared by tests/test_nbgrader_feedback.py (what the page says and holds) and
tests/browser/test_feedback_page.py (how it looks and what it loads): notebook 02 written with per-student numbers,
released to two learners, handed in, autograded and given feedback through nbgrader's own command line.

ada answers problem 1 (a function) with K Q^T, problems 2 and 6 with a number that is not hers,
leaves problems 3 and 7 as released and answers 4 and 5 right; bo answers everything right on his own numbers. Each problem
added to 02 later gets ada's answers again in that order (``ADA``). The round runs once per test run, shared by the
run's workers (tests/artefacts.py; it takes about a minute), in pytest's temporary folder."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import nbgrader_course as course  # noqa: E402  (tools/nbgrader_course.py)
from nbgrader_run import hand_in, run_nbgrader, solutions  # noqa: E402  (tools/nbgrader_run.py)

from attn_lib.exercises._problem_book import PREDICTIONS, student_seed  # noqa: E402

NAME = "02-scores"
STUDENTS = ("ada", "bo")
KEYS_FIRST = "def scores(Q, K):\n    return K @ np.swapaxes(Q, -1, -2)  # K Q^T: one row per key"


@dataclass(frozen=True)
class Round:
    root: Path
    problems: dict  # grade_id of each check -> the prediction's id, or None for the function problem
    answers: dict  # student -> {answer cell's grade_id: source}
    kinds: dict  # ada's answer to each problem, by check grade_id: "right", "wrong" or "untouched"

    def page(self, student: str) -> Path:
        return self.root / "feedback" / student / NAME / f"{NAME}.html"


def expected(problem_id: str, student: str):
    """The answer a student's variant of a prediction expects."""
    prediction = PREDICTIONS[problem_id]
    return prediction.expected(prediction.numbers(student_seed(student, NAME)))[0]


# ada's answer to each problem of 02 in order (problem 1 is the function problem), again from the first for any later
# problem: every kind of answer on the page, and a wrong one on a function and on a prediction.
ADA = ("wrong", "wrong", "untouched", "right", "right", "wrong", "untouched")


def feedback_round(tmp_path_factory) -> Round:
    """The round, made once per run for all the run's workers."""
    from tests.artefacts import made_once

    folder, made = made_once(tmp_path_factory, "feedback-round", [ROOT / "notebooks", ROOT / "attn_lib",
                                                                 ROOT / "tools"], play_round)
    return Round(folder, **made)


def play_round(root: Path) -> dict:
    _, graded = course.assignment(NAME, set(course.course_notebooks()), student_numbers=True)
    problems = {g.grade_id: g.problem_id for g in graded}
    course.write_course(root, [NAME], student_numbers=True)
    run_nbgrader(root, "generate_assignment", NAME, "--force")
    subprocess.run([sys.executable, str(ROOT / "tools" / "nbgrader_course.py"), str(root), "--only", NAME[:2],
                    "--per-student", *STUDENTS], check=True, capture_output=True)
    solution = solutions(nbformat.read(root / "source" / NAME / f"{NAME}.ipynb", as_version=4))
    checks = sorted(problems, key=lambda check: int(check.split("-")[1]))
    kinds = {check: ADA[i % len(ADA)] for i, check in enumerate(checks)}

    def answer(student: str, check: str, kind: str) -> str:
        pid = problems[check]
        if pid is None:
            return solution[check.replace("-check", "-answer")] if kind == "right" else KEYS_FIRST
        value = expected(pid, student)
        return f"answer = {value!r}" if kind == "right" else f"answer = {value + 7!r}"

    answers = {"ada": {c.replace("-check", "-answer"): answer("ada", c, k) for c, k in kinds.items() if k != "untouched"},
               "bo": {c.replace("-check", "-answer"): answer("bo", c, "right") for c in kinds}}
    for student in STUDENTS:
        hand_in(root, student, NAME, answers[student],
                released=root / course.PER_STUDENT_FOLDER / student / NAME / f"{NAME}.ipynb")
    run_nbgrader(root, "autograde", NAME, "--force")
    run_nbgrader(root, "generate_feedback", NAME, "--force")
    return dict(problems=problems, answers=answers, kinds=kinds)
