"""Everything that changes the learner's record: the learner's acts (a notebook reached, a prompt rated, a variant
answered, which attn_lib.review's widgets record) and the checkers' verdicts (a problem checked reaches its
notebook, a problem solved is solved).

``attn_lib.exercises.check`` and every function checker call :func:`note_verdict` / :func:`note_checker` with
their verdict. This must cost nothing a learner notices and break nothing: each fact is written once per kernel
(later verdicts of the same problem return at once), nothing is written while nbgrader executes a notebook, and
any failure (a read-only folder, a record of a newer version) becomes one warning per kernel, never an exception
in a checker cell. A first solve of a problem with variants starts its schedule: the solve counts as a review
rated Good, so a fresh variant comes back some days later in ``review()``; a solve after wrong answers (in this
kernel or an earlier one: the record counts them, under "tried") is rated Hard instead, and its log keeps how many
(``wrong_tries``), so it comes back sooner. Whether a
problem has variants is the checkers' to know (their problem book): ``check`` says it with the verdict, since the
record sits below the checkers and never asks them (see this package's docstring).

``FUNCTION_PROBLEMS`` names, for each function checker, the problem whose checker cell calls it (each function
checker is called by exactly one problem of the course; tests/review/test_checkers_record.py reads the notebooks to
hold this table to them).
"""

from __future__ import annotations

import warnings
from datetime import datetime

from .file import load, record_path, update, writing_allowed
from .schedule import PROMPTS, VARIANTS, Now, clock, rate, stamp

# The function checker -> the problem whose checker cell calls it.
FUNCTION_PROBLEMS = {
    "check_scores": "02-P1",
    "check_scaled_scores": "03-P4",
    "check_softmax": "04-P5",
    "check_temperature_softmax": "04-P7",
    "check_weighted_average": "05-P1",
    "check_masked_softmax": "06-P1",
    "check_causal_mask": "06-P5",
    "check_padding_mask": "06-P6",
    "check_multihead": "07-P1",
    "check_split_heads": "07-P3",
    "check_cross_attention": "07-P5",
    "check_softmax_backward": "08-P3",
    "check_chunked_attention": "08-P6",
    "check_decode_step": "08-P8",
    "check_attention": "08-P10",
    "check_dW_q": "09-P1",
    "check_previous_token": "10-P4",
    "check_weight_times_value": "10-P5",
}

# A variant's verdict rates its card: a right answer is a recall (Good), any other answer a lapse (Again).
VARIANT_RATINGS = {True: "Good", False: "Again"}


def mark_reached(notebook: str, now: datetime) -> dict:
    def change(record: dict) -> bool:
        if notebook in record["reached"]:
            return False
        record["reached"][notebook] = stamp(now)
        return True

    return update(change)


def rate_prompt(prompt_id: str, rating: str, now: datetime) -> dict:
    """Record a review of prompt ``prompt_id`` rated ``rating`` at ``now``; returns its item (card and log)."""

    def change(record: dict) -> bool:
        record["reached"].setdefault(prompt_id[:2], stamp(now))
        record["prompts"][prompt_id] = rate(record["prompts"].get(prompt_id), prompt_id, PROMPTS, rating, now)
        return True

    return update(change)["prompts"][prompt_id]


def prompt_item(prompt_id: str) -> dict | None:
    """The record's item of prompt ``prompt_id`` (its card and log), or None before its first rating."""
    return load()["prompts"].get(prompt_id)


def rated_as(item: dict | None, prompt_id: str, rating: str, now: datetime) -> dict:
    """What rating ``item`` ``rating`` at ``now`` would make of it, recording nothing (a button says when the prompt
    would come back)."""
    return rate(item, prompt_id, PROMPTS, rating, now)


def undo_rating(prompt_id: str, before: dict | None) -> None:
    """Put prompt ``prompt_id``'s item back as it was before its last rating (``before``: None, never rated)."""

    def change(record: dict) -> bool:
        if before is None:
            record["prompts"].pop(prompt_id, None)
        else:
            record["prompts"][prompt_id] = before
        return True

    update(change)


def rate_variant(problem_id: str, seed: int, passed: bool, now: datetime) -> dict:
    """Record an answer to variant ``seed`` of ``problem_id``, rated by its verdict; returns the problem's item."""

    def change(record: dict) -> bool:
        record["reached"].setdefault(problem_id[:2], stamp(now))
        if passed:
            record["solved"].setdefault(problem_id, stamp(now))
        record["variants"][problem_id] = rate(record["variants"].get(problem_id), problem_id, VARIANTS,
                                              VARIANT_RATINGS[bool(passed)], now, seed=seed, passed=bool(passed))
        return True

    return update(change)["variants"][problem_id]


NOT_ANSWERED = "not-answered"  # attn_lib.exercises' mistake id of a placeholder answer
_NOTED: set = set()  # (record path, section, id) written by this kernel
_WARNED: list = []


class RecordWarning(UserWarning):
    """The course record could not be updated; the verdict itself is unaffected."""


def note_verdict(problem_id: str, feedback, seed: int = 0, now: Now = None, *, has_variants: bool) -> None:
    """Record a verdict of ``check(problem_id, ...)``: the notebook is reached; a right answer solves the problem
    (and, the first time, starts the schedule of its variants if ``has_variants``). Never raises."""
    try:
        _note(problem_id, bool(feedback.passed), feedback.mistake != NOT_ANSWERED, seed, now, has_variants)
    except Exception as error:  # noqa: BLE001  (a record that cannot be written must never break a checker)
        _warn_once(error)


def note_checker(checker: str, feedback, now: Now = None) -> None:
    """Record a verdict of the function checker ``checker`` (e.g. "check_softmax") on the problem that calls it."""
    problem_id = FUNCTION_PROBLEMS.get(checker)
    if problem_id is not None:
        note_verdict(problem_id, feedback, 0, now, has_variants=False)  # a function problem has no variants


def note_practice(problem_id: str, seed: int, feedback, now: Now = None) -> None:
    """Record an answer to variant ``seed`` of ``problem_id`` practised on its own (``another(...)``, outside the
    review): rated by its verdict as in review, so a wrong one brings the problem back the next day. A placeholder
    answer records nothing. Never raises."""
    try:
        if feedback.mistake != NOT_ANSWERED and writing_allowed():
            rate_variant(problem_id, seed, bool(feedback.passed), clock(now)())
    except Exception as error:  # noqa: BLE001  (a record that cannot be written must never break a checker)
        _warn_once(error)


def _note(problem_id: str, passed: bool, answered: bool, seed: int, now: Now, has_variants: bool) -> None:
    if not (answered or passed) or not writing_allowed():
        return
    path = str(record_path())
    notebook = problem_id[:2]
    wanted = {(path, "reached", notebook)} | ({(path, "solved", problem_id)} if passed else set())
    # a wrong try at a problem with variants not yet solved is counted in the record, so that its first solve, in
    # this kernel or another, is rated as a solve after wrong tries
    counted = not passed and has_variants and (path, "solved", problem_id) not in _NOTED
    if wanted <= _NOTED and not counted:
        return
    moment = clock(now)()

    def change(record: dict) -> bool:
        changed = False
        if notebook not in record["reached"]:
            record["reached"][notebook] = stamp(moment)
            changed = True
        if counted and problem_id not in record["solved"]:
            record["tried"][problem_id] = record["tried"].get(problem_id, 0) + 1
            changed = True
        if passed and problem_id not in record["solved"]:
            record["solved"][problem_id] = stamp(moment)
            changed = True
        tries = record["tried"].pop(problem_id, 0) if passed else 0
        changed = changed or bool(tries)
        if passed and has_variants and problem_id not in record["variants"]:  # after wrong tries: Hard, not Good
            log = {"seed": seed, "passed": True, **({"wrong_tries": tries} if tries else {})}
            record["variants"][problem_id] = rate(None, problem_id, VARIANTS, "Hard" if tries else "Good", moment,
                                                  **log)
            changed = True
        return changed

    record = update(change)
    _NOTED.update(wanted)
    if problem_id in record["solved"]:
        _NOTED.add((path, "solved", problem_id))


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
