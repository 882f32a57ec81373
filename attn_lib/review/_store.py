"""Reading and writing the learner's record file: a missing file is an empty record; a file that is not a record
this attn_lib can use is never overwritten.

A corrupt record (not JSON, or not a record's shape) is moved aside to ``<name>.corrupt-<time>`` beside it, kept for
the learner, and the error says where; the next answer starts a new record. A record of another program or of a
newer version is left where it is and refused (RecordError), so nothing is written over it.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from ._atomic import write_atomically
from ._location import record_path, writing_allowed
from ._record import CorruptRecord, dumps, empty, parse


def load(path: Path | None = None) -> dict:
    """The record at ``path`` (default: :func:`record_path`); an empty one when there is no file yet."""
    path = record_path() if path is None else path
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return empty()
    except UnicodeDecodeError:
        text = None
    try:
        if text is None:
            raise CorruptRecord(f"{path} is not UTF-8 text")
        return parse(text, str(path))
    except CorruptRecord as error:
        if not writing_allowed():
            raise
        aside = keep_aside(path)
        raise CorruptRecord(f"{error}. It was moved to {aside.name} beside it, unchanged; the next answer starts a "
                            "new record (import_record can bring back what the old one held, once repaired).") from None


def keep_aside(path: Path) -> Path:
    """Rename ``path`` to a name no file has yet, ``<name>.corrupt-<UTC time>[-k]``, and return that name."""
    when = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    for k in range(1000):
        aside = path.with_name(f"{path.name}.corrupt-{when}" + (f"-{k}" if k else ""))
        if not aside.exists():
            os.replace(path, aside)
            return aside
    raise FileExistsError(f"no free name beside {path} to keep the corrupt record aside")


def save(record: dict, path: Path | None = None) -> bool:
    """Write ``record`` atomically; returns False (and writes nothing) while nbgrader executes a notebook."""
    if not writing_allowed():
        return False
    write_atomically(record_path() if path is None else path, dumps(record))
    return True


def update(change: Callable[[dict], bool], path: Path | None = None) -> dict:
    """Read the record, apply ``change`` (it edits the record and says whether it changed anything), and write it
    back if so. Read fresh each time, so two kernels (two notebooks open) do not undo each other's answers. While
    nbgrader runs a notebook, the record file is neither read nor written (the change goes to an empty record)."""
    if not writing_allowed():  # nbgrader runs the notebook: the change is applied to nothing, no file is read
        record = empty()
        change(record)
        return record
    path = record_path() if path is None else path
    record = load(path)
    if change(record):
        save(record, path)
    return record
