"""What is due for review at a given time: prompts and variants of solved problems, never anything of a notebook
the learner has not reached.

Due are the prompts whose card is due, the prompts of reached notebooks never rated yet (new), and the problems
solved whose variants' card is due; in order of due time (new prompts count as due now), so prompts and
problems come mixed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ._course import has_variants
from ._prompts import PROMPTS
from ._schedule import due


@dataclass(frozen=True)
class Item:
    kind: str  # "prompt" or "variant"
    id: str  # "05-R1" or "05-P2"
    due: datetime  # when it became due (a new prompt: now)
    new: bool = False

    @property
    def notebook(self) -> str:
        return self.id[:2]


def due_items(record: dict, now: datetime) -> list[Item]:
    """Everything due at ``now``, oldest first."""
    reached = set(record["reached"])
    items = []
    for prompt in PROMPTS:
        if prompt.notebook not in reached:
            continue
        item = record["prompts"].get(prompt.id)
        if item is None:
            items.append(Item("prompt", prompt.id, now, new=True))
        elif due(item) <= now:
            items.append(Item("prompt", prompt.id, due(item)))
    for problem_id, item in record["variants"].items():
        if problem_id[:2] in reached and has_variants(problem_id) and due(item) <= now:
            items.append(Item("variant", problem_id, due(item)))
    return sorted(items, key=lambda i: (i.due, i.id))


def next_due(record: dict, now: datetime) -> datetime | None:
    """When the next item falls due after ``now`` (None: nothing is scheduled)."""
    reached = set(record["reached"])
    known = {prompt.id for prompt in PROMPTS}
    times = [due(item) for key, item in record["prompts"].items() if key in known and key[:2] in reached]
    times += [due(item) for key, item in record["variants"].items() if key[:2] in reached and has_variants(key)]
    later = [t for t in times if t > now]
    return min(later) if later else None
