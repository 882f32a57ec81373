"""Every prediction problem of the course by its id, and the three calls a notebook makes: ``check``, ``another`` and
``use_student_numbers``.

A checker cell reads ``check("02-P3", answer)``: it names the problem and the learner's answer, nothing a learner
could read the answer from; the expected answer is computed here from the problem's numbers. Under it, the verdict
tells a learner who wants to meet the problem again to call ``another("02-P3")``: a fresh variant, its statement
with its numbers and its seed, an answer box (ipywidgets, where a front end shows them) and ``.check(answer)``,
judged by the same judge with the same reasons.

Per-student numbers (the nbgrader edition written with ``tools/nbgrader_course.py DIR --student-numbers``): a
student's seed follows from their id and the assignment (:func:`student_seed`). Their released notebook's setup cell
calls ``use_student_numbers("<id>", "<assignment>")``; when nbgrader autogrades, that cell is the source's,
``use_student_numbers()``, and the id is read from the folder nbgrader runs the notebook in
(``autograded/<student>/<assignment>``), so every student is graded on the numbers they saw. A course written
without it calls nothing, and everyone is graded on the notebook's numbers.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import random
import re
from pathlib import Path

from .._platform import autograding
from ._data import (_predictions_00, _predictions_01, _predictions_02, _predictions_03, _predictions_04,
                    _predictions_05, _predictions_06, _predictions_07, _predictions_08, _predictions_09,
                    _predictions_10)
from ._feedback import NOT_ANSWERED, Feedback
from ._prediction import Prediction, Variant, checked_seed
from ._record_verdict import record_verdict

MODULES = (_predictions_00, _predictions_01, _predictions_02, _predictions_03, _predictions_04, _predictions_05,
           _predictions_06, _predictions_07, _predictions_08, _predictions_09, _predictions_10)
PREDICTIONS: dict[str, Prediction] = {}
for _module in MODULES:
    for _problem in _module.PROBLEMS:
        if _problem.id in PREDICTIONS:
            raise ValueError(f"two prediction problems have the id {_problem.id}")
        PREDICTIONS[_problem.id] = _problem

# The seeds another() draws from when none is given: at most five digits, easy to read out to a teacher.
FRESH_SEEDS = (1, 99_999)
# Where use_student_numbers keeps the student of this kernel ("<student>/<assignment>"): an environment variable, since
# nbgrader's test cells reload this module (a module-level value would be lost).
STUDENT_VARIABLE = "ATTN_COURSE_STUDENT"


def problem(problem_id: str) -> Prediction:
    """The prediction problem ``problem_id`` ("02-P3"), or a ValueError that lists the known ids."""
    if not isinstance(problem_id, str):
        raise TypeError(f"problem_id must be a string such as '02-P3'; got {type(problem_id).__name__} "
                        f"{problem_id!r}")
    try:
        return PREDICTIONS[problem_id]
    except KeyError:
        raise ValueError(f"problem_id {problem_id!r} is not a prediction problem of the course; known ids: "
                         f"{', '.join(sorted(PREDICTIONS))}") from None


def student_seed(student: str, assignment: str) -> int:
    """The seed of a student's numbers for an assignment: the same on every machine, different between students."""
    digest = hashlib.sha256(f"{student}/{assignment}".encode("utf-8")).hexdigest()
    return int(digest[:12], 16) % (FRESH_SEEDS[1] - FRESH_SEEDS[0] + 1) + FRESH_SEEDS[0]


# What use_student_numbers() without a student sets: "while nbgrader autogrades, the student of the folder".
FROM_FOLDER = "@autograde-folder"


def use_student_numbers(student: str | None = None, assignment: str | None = None) -> str | None:
    """Make this kernel's ``check`` calls use ``student``'s numbers for ``assignment``; returns the student used.

    Without a student (the setup cell of a course written with per-student numbers), the student is the one whose
    folder nbgrader autogrades (``autograded/<student>/<assignment>``), and outside autograding nobody (the
    notebook's own numbers). While nbgrader autogrades, the folder decides whatever a cell named: a learner's cell
    cannot take another student's numbers.
    """
    if student is None:
        os.environ[STUDENT_VARIABLE] = FROM_FOLDER
        return current_student()[0]
    if not (isinstance(student, str) and student and isinstance(assignment, str) and assignment):
        raise TypeError(f"student and assignment must be non-empty strings; got {student!r}, {assignment!r}")
    os.environ[STUDENT_VARIABLE] = f"{student}/{assignment}"
    return student


def current_student() -> tuple[str | None, str | None]:
    """(student, assignment) whose numbers ``check`` uses here, or (None, None): the notebook's own numbers.

    Nobody unless use_student_numbers was called; while nbgrader autogrades, the folder it grades in; elsewhere the
    student named."""
    chosen = os.environ.get(STUDENT_VARIABLE, "")
    if not chosen:
        return None, None
    if autograding():
        here = Path.cwd()
        return here.parent.name, here.name
    student, _, assignment = chosen.partition("/")
    return (student, assignment) if chosen != FROM_FOLDER and student and assignment else (None, None)


def current_seed(prediction: Prediction) -> int:
    """The seed ``check`` uses for ``prediction`` in this kernel: the student's, or 0 (the notebook's numbers)."""
    student, assignment = current_student()
    if student is None or not prediction.has_variants:
        return 0
    return student_seed(student, assignment)


def _again(prediction: Prediction) -> str:
    if not prediction.has_variants:
        return ""
    return f'Meet it again with other numbers: another("{prediction.id}").'


def check(problem_id: str, answer, seed: int | None = None) -> Feedback:
    """Judge ``answer`` to the prediction problem ``problem_id``.

    Parameters
    ----------
    problem_id : str
        "NN-PK", as the problem's checker cell names it.
    answer :
        The learner's number, choice or shapes; None or ``...`` means not answered yet.
    seed : int, optional
        The variant judged; by default the numbers this copy of the notebook shows (the notebook's own, or a
        student's in a per-student release).

    Returns
    -------
    Feedback
        The judge's verdict, reason and hint; for a problem with variants, ``again`` names the call that poses
        another.

    Examples
    --------
    >>> check("02-P2", 64_000_000).passed
    True
    >>> check("02-P2", 1_000_000).mistake
    'forgot-dk'
    """
    prediction = problem(problem_id)
    chosen = current_seed(prediction) if seed is None else checked_seed(seed)
    variant = prediction.variant(chosen)
    feedback = variant.check(answer)
    reason = feedback.reason
    if feedback.mistake == NOT_ANSWERED and prediction.kind == "number" and variant.precision:
        reason = f"{reason.rstrip('.')}: a number, judged {variant.precision}."  # what a right answer must meet
    feedback = Feedback(feedback.passed, reason, feedback.hint, feedback.mistake, again=_again(prediction))
    if seed is None and chosen and autograding():
        _show_graded_statement(variant, current_student()[0])
    record_verdict(feedback, problem_id=problem_id, seed=chosen,  # the learner's record: reached, solved
                   has_variants=prediction.has_variants)
    return feedback


def _show_graded_statement(variant: Variant, student: str) -> None:
    """While nbgrader autogrades a student on their own numbers, show the statement judged above the verdict, so the
    feedback page says which numbers the answer was graded on (whatever the notebook handed in showed)."""
    from IPython.display import display

    text = f"Graded on {student}'s numbers (variant {variant.seed}): {variant.text}"
    plain = re.sub(r"\\(?:text|mathrm)\{([^}]*)\}|[{}$\\]", lambda m: m.group(1) or "", text)
    display({"text/markdown": text, "text/plain": plain}, raw=True)


def another(problem_id: str, seed: int | None = None) -> Variant:
    """A fresh variant of the prediction problem ``problem_id``: its statement with new numbers, its seed, an answer
    box, and ``.check(answer)``. Each answer checked is practice the learner's record keeps, rated by its verdict as
    in ``review()`` (right: Good; wrong: Again, so the problem comes back the next day).

    Parameters
    ----------
    problem_id : str
        "NN-PK".
    seed : int, optional
        The variant to show again (as a variant prints it); by default a new one.

    Examples
    --------
    >>> v = another("02-P3", seed=7)
    >>> v.seed, v.problem.id
    (7, '02-P3')
    >>> v.check(None).verdict
    'Not answered yet'
    """
    prediction = problem(problem_id)
    if not prediction.has_variants:
        raise ValueError(f"{problem_id} has one meaningful instance and no variants: {prediction.why_one}")
    if seed is None:
        seed = random.SystemRandom().randint(*FRESH_SEEDS)
    return dataclasses.replace(prediction.variant(checked_seed(seed)), practice=True)
