"""The time every function of the review reads: the real clock, or one a test injects (``now=``)."""

from __future__ import annotations

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
