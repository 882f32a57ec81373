"""The catalogue of mistakes as the checkers read it: :func:`entry` gives a mistake id's reason and hint with its
fields filled in, and an id not in :data:`CATALOGUE` is refused (a ``ValueError`` naming it), the way an unknown case
tag is.

The words are data, in ``_data/_mistakes.py`` (every id once, with its reason, hint and idea); this module is the
only one of the logic that imports it, and passes on the texts a checker quotes besides an entry.
"""

from __future__ import annotations

from ._data._mistakes import (  # noqa: F401  (the texts checkers quote, passed on)
    ALIASES, CATALOGUE, EXACT_ZERO, FINITE_FLOOR, NOT_CAUSAL_EITHER, NUMBER_MASK_TROUBLE, OVERFLOW, VARIANCES_ADD)


def _where(mistake_id: str) -> str:
    return (f"mistake {mistake_id!r} is not in the catalogue: add it to CATALOGUE in "
            "attn_lib/exercises/_data/_mistakes.py (its reason, hint and idea), then run "
            "python tools/mistake_table.py --write")


def entry(mistake_id: str, **fields) -> tuple[str, str]:
    """The (reason, hint) of ``mistake_id`` with its template fields filled in from ``fields``.

    Raises ValueError for an id not in :data:`CATALOGUE`, a field the entry needs and is not given, or one it
    does not have (a misspelt field cannot leave a template unfilled)."""
    if mistake_id not in CATALOGUE:
        raise ValueError(_where(mistake_id))
    found = CATALOGUE[mistake_id]
    missing, extra = found.fields - set(fields), set(fields) - found.fields
    if missing or extra:
        raise ValueError(f"mistake {mistake_id!r}: its reason and hint need the fields {sorted(found.fields)}; "
                         f"missing {sorted(missing)}, not used {sorted(extra)}")
    return found.reason.format(**fields), found.hint.format(**fields)


def current_id(mistake_id: str) -> str:
    """The id that names ``mistake_id``'s mistake now: itself, or the id it was merged into (``ALIASES``), for what
    was written before the merge (a gradebook's failed checks, read by the class's page)."""
    return ALIASES.get(mistake_id, mistake_id)
