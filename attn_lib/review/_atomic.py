"""Replace a file's whole text so that a crash at any moment leaves either the old text or the new, never a mix.

The text goes to a temporary file in the same folder, is flushed and fsynced, and ``os.replace`` (atomic on POSIX
and Windows) puts it in place; then the folder is fsynced where the system allows it. In the browser edition
(Pyodide's file system) fsync may be missing or refuse: the replace is still atomic there, so that is skipped.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically; on any failure ``path`` is untouched and the temporary
    file removed, and the error raised."""
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
            stream.flush()
            sync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    sync_folder(folder)


def sync(descriptor: int) -> None:
    """fsync, where the file system has it (Pyodide's may not: skipped there)."""
    fsync = getattr(os, "fsync", None)
    if fsync is None:
        return
    try:
        fsync(descriptor)
    except OSError:
        pass


def sync_folder(folder: Path) -> None:
    """fsync the folder, so the replace itself survives a power cut (POSIX only; skipped where refused)."""
    flag = getattr(os, "O_DIRECTORY", None)
    if flag is None:
        return
    try:
        descriptor = os.open(folder, os.O_RDONLY | flag)
    except OSError:
        return
    try:
        sync(descriptor)
    finally:
        os.close(descriptor)
