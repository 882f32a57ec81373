"""Time and the review schedule: the clock every function of the review reads, how the record writes a time, and
the schedule, by the fsrs package (FSRS, the scheduler of Anki): nothing here computes an interval.

Every function that reads the time takes ``now``: the real clock, or one a test injects (a timezone-aware datetime
or a function returning one), so tests simulate days.

Two schedulers, both with fsrs's default parameters and without fuzz (the same answers give the same dates,
which the tests and the printed table rely on):

- prompts: fsrs's default learning steps (again in 1 minute, then 10 minutes) before the days-long intervals, as a
  flash card is learned;
- variants of solved problems: no learning steps, since a problem takes minutes to work and its next variant
  belongs on another day (a wrong answer brings it back the next day, a right one days later).

A card is kept in the record as fsrs's own ``Card.to_dict()``; its ``card_id`` is derived from the prompt or
problem id, so the same item has the same card everywhere.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone
from typing import Callable, Union

Now = Union[datetime, Callable[[], datetime], None]


def clock(now: Now = None, name: str = "now") -> Callable[[], datetime]:
    """A function giving the current time in UTC: the real clock for None, a fixed time for a datetime, or the
    callable itself (a test's clock that it moves on). A datetime must say its time zone."""
    if now is None:
        return lambda: datetime.now(timezone.utc)
    if isinstance(now, datetime):
        fixed = utc(now, name)
        return lambda: fixed
    if callable(now):
        return lambda: utc(now(), name)
    raise TypeError(f"{name} must be a timezone-aware datetime, a function returning one, or None (the real clock); "
                    f"got {type(now).__name__} {now!r}")


def utc(moment, name: str = "now") -> datetime:
    """``moment`` in UTC; a naive datetime (no time zone) is refused, since its instant is unknown."""
    if not isinstance(moment, datetime):
        raise TypeError(f"{name} must be a timezone-aware datetime; got {type(moment).__name__} {moment!r}")
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{name} must say its time zone (e.g. datetime.now(timezone.utc)); got the naive {moment!r}")
    return moment.astimezone(timezone.utc)


def stamp(moment: datetime) -> str:
    """How the record writes a time: ISO 8601 in UTC, to the second ("2026-12-01T23:40:05+00:00")."""
    return moment.astimezone(timezone.utc).replace(microsecond=0).isoformat()


def parse_stamp(text: str) -> datetime:
    return utc(datetime.fromisoformat(text), "a time in the record")


PROMPTS, VARIANTS = "prompts", "variants"
RATINGS = ("Again", "Hard", "Good", "Easy")  # fsrs's ratings, as the record writes them


def scheduler(kind: str):
    from fsrs import Scheduler  # fsrs is imported when a schedule is first needed, not with attn_lib

    if kind == PROMPTS:
        return Scheduler(enable_fuzzing=False)
    if kind == VARIANTS:
        return Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)
    raise ValueError(f"kind must be {PROMPTS!r} or {VARIANTS!r}; got {kind!r}")


def card_id(item_id: str) -> int:
    """A stable card id for a prompt or problem id (fsrs's default is the creation time)."""
    return int(hashlib.sha256(item_id.encode("utf-8")).hexdigest()[:12], 16)


def new_card(item_id: str, now: datetime) -> dict:
    from fsrs import Card

    return Card(card_id=card_id(item_id), due=now).to_dict()


def rate(item: dict | None, item_id: str, kind: str, rating: str, now: datetime, **log) -> dict:
    """The record's item (``{"card", "reviews"}``) after a review rated ``rating`` ("Again", "Hard", "Good",
    "Easy") at ``now``; ``item`` None is a first review. ``log`` adds fields to the review's log entry."""
    from fsrs import Card, Rating

    if rating not in RATINGS:
        raise ValueError(f"rating must be one of {RATINGS}; got {rating!r}")
    now = now.replace(microsecond=0)
    card = Card.from_dict(item["card"]) if item else Card.from_dict(new_card(item_id, now))
    card, _ = scheduler(kind).review_card(card, Rating[rating], review_datetime=now)
    reviews = list(item["reviews"]) if item else []
    reviews.append({"at": stamp(now), "rating": rating, "n": len(reviews) + 1, **log})
    return {"card": card.to_dict(), "reviews": reviews}


def due(item: dict) -> datetime:
    return parse_stamp(item["card"]["due"])


def learned(item: dict | None) -> bool:
    """Whether a prompt is learned: its card has left the learning steps for days-long intervals (fsrs's Review
    state) and its last review was not Again."""
    from fsrs import State

    if not item:
        return False
    return item["card"]["state"] == State.Review.value and item["reviews"][-1]["rating"] != "Again"
