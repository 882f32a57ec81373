"""Running nbgrader on a course written by tools/nbgrader_course.py, for the tests and the benchmark: nbgrader's
command line in the course folder, a learner's simulated hand-in, and the solutions read back from a source
notebook."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from nbgrader_course import BEGIN_SOLUTION, END_SOLUTION, ROOT  # noqa: E402

# nbgrader calls `alembic` (its database migrations) by name, in its command line and when a Gradebook creates a
# database in this process: the running interpreter's scripts go first on PATH, so that a suite run as
# `.venv/bin/python -m pytest`, without an activated environment, finds it.
_SCRIPTS = str(Path(sys.executable).parent)
if _SCRIPTS not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = os.pathsep.join([_SCRIPTS, os.environ.get("PATH", "")])


def run_nbgrader(course: Path, *args: str, env: dict | None = None) -> str:
    """Run ``python -m nbgrader ARGS`` in the course folder, with this repository's attn_lib importable by the
    kernels; return its log, or raise RuntimeError with it when nbgrader fails."""
    env = {**os.environ, **(env or {})}
    env.pop("ATTN_COURSE_STUDENT", None)  # a student chosen in this process is not the graded kernels' business
    # nbgrader calls alembic by name: this interpreter's scripts first, activated environment or not.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    result = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env, capture_output=True,
                            text=True)
    if result.returncode != 0:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    return result.stdout + result.stderr


def solutions(source) -> dict[str, str]:
    """The code between the solution markers of every answer cell of a source notebook, by grade_id."""
    found = {}
    for cell in source.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution"):
            found[meta["grade_id"]] = cell.source.split(BEGIN_SOLUTION + "\n", 1)[1].split("\n" + END_SOLUTION)[0]
    return found


def hand_in(course: Path, student: str, name: str, answers: dict[str, str], inserted: dict[str, str] | None = None,
            deleted: frozenset[str] = frozenset(), released: Path | None = None) -> Path:
    """Put a learner's submission where ``nbgrader collect`` would: the released notebook of assignment ``name``
    with the cells named in ``answers`` (grade_id -> source; answer cells, or any cell a test tampers with)
    replaced, a new code cell without nbgrader metadata after each cell named in ``inserted`` (grade_id ->
    source), and the cells named in ``deleted`` left out, under submitted/STUDENT/NAME/. ``released``: the notebook
    the learner was given, when it is not nbgrader's release (a per-student release, a copy from another way in)."""
    released = nbformat.read(released or course / "release" / name / f"{name}.ipynb", as_version=4)
    cells = []
    for cell in released.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in deleted:
            continue
        if grade_id in answers:
            cell.source = answers[grade_id]
        cells.append(cell)
        if grade_id in (inserted or {}):
            cells.append(nbformat.v4.new_code_cell(inserted[grade_id]))
    released.cells = cells
    folder = course / "submitted" / student / name
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(released, folder / f"{name}.ipynb")
    (folder / "timestamp.txt").write_text("2026-01-01 12:00:00.000000 UTC", encoding="utf-8")
    return folder
