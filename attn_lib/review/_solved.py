"""What the checkers tell the learner's record: a problem checked (its notebook is reached) and a problem solved.

``attn_lib.exercises.check`` and every function checker call :func:`note_verdict` / :func:`note_checker` with
their verdict. This must cost nothing a learner notices and break nothing: each fact is written once per kernel
(later verdicts of the same problem return at once), nothing is written while nbgrader executes a notebook, and
any failure (a read-only folder, a record of a newer version) becomes one warning per kernel, never an exception
in a checker cell. A first solve of a problem with variants starts its schedule: the solve counts as a review
rated Good, so a fresh variant comes back some days later in ``review()``.
"""

from __future__ import annotations

import warnings

from ._clock import Now, clock, stamp
from ._course import FUNCTION_PROBLEMS, has_variants
from ._location import record_path, writing_allowed
from ._schedule import VARIANTS, rate
from ._store import update

NOT_ANSWERED = "not-answered"  # attn_lib.exercises' mistake id of a placeholder answer
_NOTED: set = set()  # (record path, section, id) written by this kernel
_WARNED: list = []


class RecordWarning(UserWarning):
    """The course record could not be updated; the verdict itself is unaffected."""


def note_verdict(problem_id: str, feedback, seed: int = 0, now: Now = None) -> None:
    """Record a verdict of ``check(problem_id, ...)``: the notebook is reached; a right answer solves the problem.
    Never raises."""
    try:
        _note(problem_id, bool(feedback.passed), feedback.mistake != NOT_ANSWERED, seed, now)
    except Exception as error:  # noqa: BLE001  (a record that cannot be written must never break a checker)
        _warn_once(error)


def note_checker(checker: str, feedback, now: Now = None) -> None:
    """Record a verdict of the function checker ``checker`` (e.g. "check_softmax") on the problem that calls it."""
    problem_id = FUNCTION_PROBLEMS.get(checker)
    if problem_id is not None:
        note_verdict(problem_id, feedback, 0, now)


def _note(problem_id: str, passed: bool, answered: bool, seed: int, now: Now) -> None:
    if not (answered or passed) or not writing_allowed():
        return
    path = str(record_path())
    notebook = problem_id[:2]
    wanted = {(path, "reached", notebook)} | ({(path, "solved", problem_id)} if passed else set())
    if wanted <= _NOTED:
        return
    moment = clock(now)()

    def change(record: dict) -> bool:
        changed = False
        if notebook not in record["reached"]:
            record["reached"][notebook] = stamp(moment)
            changed = True
        if passed and problem_id not in record["solved"]:
            record["solved"][problem_id] = stamp(moment)
            changed = True
        if passed and has_variants(problem_id) and problem_id not in record["variants"]:
            record["variants"][problem_id] = rate(None, problem_id, VARIANTS, "Good", moment, seed=seed, passed=True)
            changed = True
        return changed

    update(change)
    _NOTED.update(wanted)


def _warn_once(error: Exception) -> None:
    if _WARNED:
        return
    _WARNED.append(error)
    try:
        where = record_path()
    except Exception:  # noqa: BLE001
        where = "the course record"
    warnings.warn(f"Your answers are judged as before, but the course record could not be updated ({where}): "
                  f"{error}", RecordWarning, stacklevel=3)
