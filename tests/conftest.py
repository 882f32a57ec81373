"""What every test under tests/ shares: the interpreter's own scripts on PATH.

nbgrader calls `alembic` (its database migrations) by name, in-process (a new Gradebook) and in its command line; a
suite run as `.venv/bin/python -m pytest`, without an activated environment, would otherwise fail there with
"alembic: not found"."""

import os
import sys
from pathlib import Path

_SCRIPTS = str(Path(sys.executable).parent)
if _SCRIPTS not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = os.pathsep.join([_SCRIPTS, os.environ.get("PATH", "")])
