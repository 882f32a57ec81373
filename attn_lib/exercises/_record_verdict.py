"""Hands a verdict to the learner's record (attn_lib.review), which marks the notebook reached and the problem
solved. Loaded only when a checker gives its verdict; whatever goes wrong there, the checker's verdict stands."""

from __future__ import annotations


def record_verdict(feedback, problem_id: str | None = None, checker: str | None = None, seed: int = 0) -> None:
    """Tell the record about ``feedback`` on ``problem_id`` (a prediction problem) or on the problem whose checker
    cell calls ``checker``. Never raises."""
    try:
        from ..review._solved import note_checker, note_verdict
    except Exception:  # noqa: BLE001  (a broken review package must not break a checker)
        return
    if problem_id is not None:
        note_verdict(problem_id, feedback, seed)
    elif checker is not None:
        note_checker(checker, feedback)
