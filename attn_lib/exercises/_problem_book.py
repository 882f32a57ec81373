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

What a notebook shows follows the same learner: a problem's statement is a cell ``statement("02-P3")`` that writes
the problem's text from its data with the numbers ``check`` judges here (:func:`current_student`), so the two never
differ, and its output carries the problem, the seed and the student, so a notebook handed in says which numbers it
showed. Outside nbgrader the learner is known from, in this order: a kernel's ``use_student_numbers(student,
assignment)``; the course id the learner stated once on this machine with :func:`set_student_id` (kept beside the
record, so every notebook and kernel uses it; in the browser edition, in the browser's storage); on a JupyterHub,
the hub's user name, when the notebook is a per-student course's release (its setup cell calls
``use_student_numbers()``). Nobody known: the notebook's own numbers, as in the reading copy, nbval and the
solutions.
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


# The assignment of each notebook's problems (nbgrader's name for it: the notebook's file stem), from which a student's
# seed is drawn when the kernel knows the student but not the assignment (a stated course id, a hub's user name).
# tests/test_problems.py holds it equal to the course's notebooks (tools/course.toml).
ASSIGNMENTS = {"00": "00-start-here", "01": "01-shapes", "02": "02-scores", "03": "03-scaling", "04": "04-softmax",
               "05": "05-weighted-average", "06": "06-masking", "07": "07-heads-and-cross-attention",
               "08": "08-cost-memory-backward", "09": "09-attention-that-learns", "10": "10-a-trained-model"}
HUB_USER_VARIABLE = "JUPYTERHUB_USER"  # set by JupyterHub in every user's server
STUDENT_ID = re.compile(r"[\w.@+-]+")  # what can name a student's folder in nbgrader's course


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


def current_student(problem_id: str | None = None) -> tuple[str | None, str | None]:
    """(student, assignment) whose numbers ``check`` and ``statement`` use here for ``problem_id``, or (None, None):
    the notebook's own numbers. See the module's docstring for the order in which the learner is found; while
    nbgrader autogrades, the folder it grades in when the course set student numbers, else nobody."""
    chosen = os.environ.get(STUDENT_VARIABLE, "")
    if autograding():
        if not chosen:
            return None, None
        here = Path.cwd()
        return here.parent.name, here.name
    if chosen and chosen != FROM_FOLDER:
        student, _, assignment = chosen.partition("/")
        return (student, assignment) if student and assignment else (None, None)
    assignment = ASSIGNMENTS.get(problem_id[:2]) if isinstance(problem_id, str) else None
    stated = stated_student_id()
    if stated:
        return stated, assignment
    hub_user = os.environ.get(HUB_USER_VARIABLE, "")
    if chosen == FROM_FOLDER and hub_user:
        return hub_user, assignment
    return None, None


def student_id_path() -> Path:
    """The file that keeps the course id a learner stated: ``<record's stem>.student-id.txt`` beside the record."""
    from .._record.file import record_path  # loaded when asked, as the record is (a check loads it only to write)

    record = record_path()
    return record.with_name(f"{record.stem}.student-id.txt")


def stated_student_id() -> str | None:
    """The course id stated with :func:`set_student_id` on this machine (in this browser), or None."""
    try:
        text = student_id_path().read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if STUDENT_ID.fullmatch(text) else None


def set_student_id(student: str | None) -> str | None:
    """State your course id once (the one your teacher grades you under, such as your hub user name): from then on
    every problem with numbers shows, and every check judges, your own numbers, in every notebook of the course on
    this machine. ``set_student_id(None)`` goes back to the notebook's numbers. Returns the id now in use. (No
    example runs here: a stated id is kept beside the learner's record, and would change every check after it.)
    """
    if student is not None and not (isinstance(student, str) and STUDENT_ID.fullmatch(student)):
        raise TypeError("student must be your course id, letters, digits and . @ + - _ (such as 'ada' or "
                        f"'a.lovelace@uni.example'), or None to use the notebook's numbers; got {student!r}")
    from .._record.file import write_atomically, writing_allowed

    path = student_id_path()
    if not writing_allowed():
        return stated_student_id()
    if student is None:
        path.unlink(missing_ok=True)
    else:
        write_atomically(path, student + "\n")
    where = "the notebook's numbers" if student is None else f"{student}'s numbers"
    print(f"From now on the problems with numbers show, and their checks judge, {where}, in every notebook of this "
          "course here. Run a problem's statement cell again to see them.")
    return student


def current_seed(prediction: Prediction) -> int:
    """The seed ``check`` uses for ``prediction`` in this kernel: the student's, or 0 (the notebook's numbers)."""
    student, assignment = current_student(prediction.id)
    if student is None or assignment is None or not prediction.has_variants:
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


def _plain(text: str) -> str:
    """Markdown with TeX, as plain text: ``\\text{model}`` and ``$d_k$`` lose their marks."""
    return re.sub(r"\\(?:text|mathrm)\{([^}]*)\}|[{}$\\]", lambda m: m.group(1) or "", text)


def _show_graded_statement(variant: Variant, student: str) -> None:
    """While nbgrader autogrades a student on their own numbers, show the statement judged above the verdict, so the
    feedback page says which numbers the answer was graded on (whatever the notebook handed in showed)."""
    from IPython.display import display

    text = f"Graded on {student}'s numbers (variant {variant.seed}): {variant.text}"
    display({"text/markdown": text, "text/plain": _plain(text)}, raw=True)


# The mark a statement with a student's own numbers ends with (nbgrader_course's per-student release writes it too).
YOUR_NUMBERS = "*Your numbers: variant {seed}.*"
SHOWN_KEY = "attn_course"  # the output's metadata: {"statement_of": id, "seed": seed, "student": id or None}


def statement(problem_id: str) -> None:
    """Show the statement of prediction problem ``problem_id`` with the numbers ``check`` judges here: the
    notebook's own, or the learner's (see the module's docstring), then a line naming the variant. The output's
    metadata records the problem, the seed and the student, so a saved notebook carries the numbers it showed."""
    prediction = problem(problem_id)
    seed = current_seed(prediction)
    data, metadata = statement_output(problem_id, seed, current_student(problem_id)[0] if seed else None)
    from IPython.display import display

    display(data, raw=True, metadata=metadata)


def statement_output(problem_id: str, seed: int, student: str | None) -> tuple[dict, dict]:
    """The data and metadata of the output ``statement(problem_id)`` shows for variant ``seed`` (0: the notebook's
    numbers) set to ``student``: what a per-student release writes into its statement cells before they are run."""
    text = problem(problem_id).variant(seed).text + (f"\n\n{YOUR_NUMBERS.format(seed=seed)}" if seed else "")
    return ({"text/markdown": text, "text/plain": _plain(text)},
            {SHOWN_KEY: {"statement_of": problem_id, "seed": seed, "student": student}})


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
