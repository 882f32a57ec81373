"""The ledger of the course's measured claims: each sentence of a notebook that rests on random draws, on training
or on a choice of sizes, with the measurement that backs it.

A notebook's claims live in ``tests/claims/claims_NN.py``, one ``register(Claim(...))`` each. The notebook cell
that computes a claim carries the cell tag ``claim-<id>``. ``test_ledger.py`` re-runs every claim's ``check`` on
:data:`HELD_OUT_SEEDS`, seeds no notebook uses, and over what the sentence generalises across (``over``), and
asserts what the sentence says; it also holds each sentence to its notebook's markdown and each tag to a claim.

A check draws everything it needs from the seeds it is given (initial parameters, batches, queries and keys), so
a sentence that says more than the runs show fails on seeds its author never saw.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

# Seeds no notebook uses: the notebooks draw with default_rng(0) to (10), 100 + s for s in 0-4, and 10,000 + s;
# 09's training derives its initial parameters from 100 + seed, so these give 111-122 there, unused too.
HELD_OUT_SEEDS = (11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22)


@dataclass(frozen=True)
class Claim:
    """One measured sentence of a notebook.

    Attributes
    ----------
    id : str
        ``"09-adam-512"``: the notebook's number, then a name; the cell computing it is tagged ``claim-<id>``.
    notebook : str
        The notebook's file stem, ``"09-attention-that-learns"``.
    sentence : str
        An exact substring of a markdown cell of that notebook: the sentence the claim backs.
    condition : str
        In words, the conditions the sentence states, e.g. ``"d_k = 512, plain GD, lr 0.5"``.
    check : callable
        ``check(seeds)`` runs the measurement on the given seeds (and over the conditions in ``over``) and asserts
        what the sentence says.
    over : str
        What the check generalises across, in words (``"m in 10, 30, 100"``); ``""`` if nothing.
    """

    id: str
    notebook: str
    sentence: str
    condition: str
    check: Callable[[Sequence[int]], None]
    over: str = ""


CLAIMS: list[Claim] = []


def register(claim: Claim) -> Claim:
    """Add ``claim`` to :data:`CLAIMS` and return it (test_ledger holds the ids unique)."""
    CLAIMS.append(claim)
    return claim
