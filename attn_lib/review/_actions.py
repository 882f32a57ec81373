"""The learner's acts that change the record: reaching a notebook, rating a prompt, answering a variant."""

from __future__ import annotations

from datetime import datetime

from ._clock import stamp
from ._schedule import PROMPTS, VARIANTS, rate
from ._store import update

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
