"""Hands a verdict to the learner's record (``attn_lib._record``), which marks the notebook reached and the problem
solved. Loaded only when a checker gives its verdict; whatever goes wrong there, the checker's verdict stands.

The record sits below the checkers and the review alike and imports neither, so imports run one way (the review
imports the checkers, both import the record): a verdict is written here, whether or not the notebook imported
``attn_lib.review``, and what the record cannot ask the checkers (whether a problem has variants) is said with it.
"""

from __future__ import annotations


def record_verdict(feedback, problem_id: str | None = None, checker: str | None = None, seed: int = 0,
                   has_variants: bool = False) -> None:
    """Tell the record about ``feedback`` on ``problem_id`` (a prediction problem; ``has_variants``: whether it has
    variants, whose schedule a first solve starts) or on the problem whose checker cell calls ``checker``. Never
    raises."""
    try:
        from .._record.changes import note_checker, note_verdict
    except Exception:  # noqa: BLE001  (a broken record module must not break a checker)
        return
    if problem_id is not None:
        note_verdict(problem_id, feedback, seed, has_variants=has_variants)
    elif checker is not None:
        note_checker(checker, feedback)


def record_practice(feedback, problem_id: str, seed: int) -> None:
    """Tell the record about ``feedback`` on variant ``seed`` of ``problem_id``, practised with ``another(...)``.
    Never raises."""
    try:
        from .._record.changes import note_practice
    except Exception:  # noqa: BLE001  (a broken record module must not break a checker)
        return
    note_practice(problem_id, seed, feedback)
