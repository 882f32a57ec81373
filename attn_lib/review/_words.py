"""How the review says when something is due: "now", "in 10 minutes", "tomorrow", "in 5 days (Sun 6 Dec)"."""

from __future__ import annotations

from datetime import datetime


def when(due: datetime, now: datetime) -> str:
    seconds = (due - now).total_seconds()
    if seconds <= 0:
        return "now"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"in {max(minutes, 1)} minute{'s' * (max(minutes, 1) != 1)}"
    hours = round(seconds / 3600)
    if hours < 20:
        return f"in {hours} hour{'s' * (hours != 1)}"
    days = (due.date() - now.date()).days
    date = f"{due:%a} {due.day} {due:%b %Y}"
    return "tomorrow" if days <= 1 else f"in {days} days ({date})"


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' * (count != 1)}"
