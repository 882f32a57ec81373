"""One entry of the catalogue of mistakes (``_data/_mistakes.py``): a mistake's reason and hint, and the idea it
belongs to.

The bottom of the package: it imports nothing of it, so that the catalogue's data can import :class:`Entry`.
"""

from __future__ import annotations

import string
from dataclasses import dataclass

# The ideas a mistake belongs to (the teacher's table groups ids by them).
IDEAS = frozenset({
    "shapes", "scores", "scaling", "softmax", "mask", "average", "attention", "heads", "cost", "backward",
    "decoding", "positions", "counting", "training", "generic",
})


@dataclass(frozen=True)
class Entry:
    """One mistake: its ``reason`` and ``hint`` (``str.format`` templates, their fields filled by the checker) and
    the ``idea`` it belongs to (one of :data:`IDEAS`)."""

    reason: str
    hint: str
    idea: str

    def __post_init__(self):
        if self.idea not in IDEAS:
            raise ValueError(f"idea: expected one of {sorted(IDEAS)}, got {self.idea!r}")

    @property
    def fields(self) -> frozenset:
        """The names of the template fields the reason and the hint need."""
        return frozenset(name for text in (self.reason, self.hint)
                         for _, name, _, _ in string.Formatter().parse(text) if name)
