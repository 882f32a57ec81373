"""The review prompts of the course, in notebook order (a placeholder of three: reviewnb's file replaces it)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Prompt:
    id: str        # "NN-RK", e.g. "03-R2": notebook NN, prompt K; stable forever (Anki note guid derives from it)
    question: str  # markdown with $...$ TeX in the course's notation, answerable from memory in seconds
    answer: str    # short markdown answer

    @property
    def notebook(self) -> str:
        return self.id[:2]


PROMPTS: tuple[Prompt, ...] = (
    Prompt("02-R1", "What is the shape of the scores $QK^\\top$ for $Q$ of shape $(n, d_k)$ and $K$ of shape "
                    "$(m, d_k)$?", "$(n, m)$: one score per query and key."),
    Prompt("03-R1", "Why divide the scores by $\\sqrt{d_k}$?",
           "Their variance grows as $d_k$; the division brings it back to 1, so the softmax does not saturate."),
    Prompt("05-R1", "Each output row is what kind of combination of the rows of $V$?",
           "A weighted average: weights $\\ge 0$ that sum to 1."),
)
