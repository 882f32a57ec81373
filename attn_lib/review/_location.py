"""Where the learner's record lives, and whether this kernel may write it.

The record is ``attn-course-record.json`` in the working directory (a notebook's kernel runs in the notebooks'
folder, so the record sits beside the notebooks), unless the environment variable ``ATTN_COURSE_RECORD`` names
another file (a full path; a relative one is read from the working directory). The tests and
tools/build_notebooks.py point it at a temporary file. While nbgrader runs a notebook (``NBGRADER_EXECUTION`` set:
autograding or validating), nothing is written: the student's record is not the grader's.
"""

from __future__ import annotations

import os
from pathlib import Path

FILE_NAME = "attn-course-record.json"
VARIABLE = "ATTN_COURSE_RECORD"
NBGRADER_VARIABLE = "NBGRADER_EXECUTION"


def record_path() -> Path:
    """The learner's record file: ``$ATTN_COURSE_RECORD`` if set, else ``attn-course-record.json`` here."""
    chosen = os.environ.get(VARIABLE, "").strip()
    path = Path(chosen).expanduser() if chosen else Path(FILE_NAME)
    path = path if path.is_absolute() else Path.cwd() / path
    if path.is_dir():
        raise IsADirectoryError(f"{VARIABLE} must name a file for the course record; got the folder {path}")
    return path


def writing_allowed() -> bool:
    """False while nbgrader executes a notebook (``NBGRADER_EXECUTION`` set)."""
    return not os.environ.get(NBGRADER_VARIABLE)
