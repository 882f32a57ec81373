"""The learner's own code: which traceback frames are the learner's (not attn_lib's, numpy's or the standard
library's), the learner's line where an exception happened, and a function's signature as text."""

from __future__ import annotations

import inspect
import os
import sysconfig
import traceback

import numpy as np


# ------------------------------------------------------------------------------------------- the learner's code


def _library_dirs() -> tuple[str, ...]:
    # Frames anywhere in attn_lib (this package's parent) are not the learner's code.
    attn_lib_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    dirs = {attn_lib_dir, os.path.dirname(os.path.abspath(np.__file__))}
    for key in ("stdlib", "platstdlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            dirs.add(os.path.abspath(path))
    return tuple(sorted(d + os.sep for d in dirs))


_LIBRARY_DIRS = _library_dirs()


def _is_library(filename: str) -> bool:
    if filename.startswith(("<frozen", "<__array_function__")):
        return True
    path = os.path.abspath(filename)
    if f"{os.sep}site-packages{os.sep}" in path or f"{os.sep}dist-packages{os.sep}" in path:
        return True
    return path.startswith(_LIBRARY_DIRS)


def _learner_line(exc: BaseException) -> str:
    """'line N of your cell: <code>' for the last traceback frame in the learner's code, or ''."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not _is_library(f.filename)]
    if not frames:
        return ""
    frame = frames[-1]
    name = frame.filename
    if "ipykernel_" in name or name.startswith("<ipython-input"):
        where = "your cell"
    elif name.startswith("<"):
        where = "your code"
    else:
        where = os.path.basename(name)
    code = (frame.line or "").strip()
    return f"line {frame.lineno} of {where}" + (f": {code}" if code else "")


def _signature_text(fn) -> str:
    try:
        return f"{getattr(fn, '__name__', 'your function')}{inspect.signature(fn)}"
    except (TypeError, ValueError):
        return "your function"
