"""Carrying the record elsewhere: ``export_record(path)`` copies it, ``import_record(path)`` merges one in (each
notebook reached and problem solved kept at its earliest time; per prompt or problem the newer review wins)."""

from __future__ import annotations

from pathlib import Path

from ._atomic import write_atomically
from ._location import record_path
from ._record import dumps, merge, parse
from ._store import load, update


def export_record(path) -> Path:
    """Write the learner's record to ``path`` (a file name; the browser edition's is in its file browser, to
    download). Returns the path written."""
    target = _checked_path(path, "path")
    if target.resolve() == record_path().resolve():
        raise ValueError(f"path must be another file than the record itself; got {target}")
    write_atomically(target, dumps(load()))
    return target


def import_record(path) -> dict:
    """Merge the record in ``path`` (one exported elsewhere) into the learner's record, and return the merged
    record. Importing the same file twice changes nothing the second time."""
    source = _checked_path(path, "path")
    try:
        text = source.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(f"path {source} does not exist: no record to import") from None
    theirs = parse(text, str(source))

    def change(record: dict) -> bool:
        merged = merge(record, theirs)
        if dumps(merged) == dumps(record):
            return False
        record.clear()
        record.update(merged)
        return True

    return update(change)


def _checked_path(path, name: str) -> Path:
    if not isinstance(path, (str, Path)) or not str(path).strip():
        raise TypeError(f"{name} must be a file name (str or pathlib.Path); got {type(path).__name__} {path!r}")
    chosen = Path(path).expanduser()
    if chosen.is_dir():
        raise IsADirectoryError(f"{name} must name a file, not the folder {chosen}")
    return chosen
