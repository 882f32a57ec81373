"""How long nbgrader takes to autograde one learner's whole course (target: at most 5 minutes on two cores), and
what that means for a class.

A course is written by tools/nbgrader_course.py in a temporary folder and released, with one more assignment of a
single empty code cell; one learner hands in the solutions of every notebook (as notebooks/solutions/ answers them)
and the empty one; then each assignment is autograded on its own, as a teacher grades one assignment at a time.

The empty assignment's autograde is nbgrader's own cost: its start, the gradebook, a fresh kernel. One ``nbgrader
autograde ASSIGNMENT`` grades every submission of the class in one process, so that cost is paid once per assignment
and each further learner costs the rest (the notebook's own run). Printed per notebook: the wall time of its
autograde, the same minus the empty assignment's (the notebook's own run), the estimate for a class of 30 (start-up
+ 30 x own run: a lower bound, since nbgrader starts a fresh kernel for each submission and the empty assignment's
time counts that once; 30 x the autograde time is an upper one), and the points scored out of the points possible,
which must be full marks; then the totals and the load average.

Notebook 10 reads the trained model's files: fetch them first with ``python -m attn_lib.minilm``.

Run: python benchmarks/autograde_course.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import nbgrader_course as course  # noqa: E402  (tools/nbgrader_course.py)
import nbgrader_release as release  # noqa: E402  (tools/nbgrader_release.py)
from nbgrader_run import hand_in, run_nbgrader, solutions  # noqa: E402  (tools/nbgrader_run.py)

TARGET_SECONDS = 300
STUDENT = "learner"
CLASS = 30
EMPTY = "zz-empty"  # sorts after the course's notebooks


def load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def write_empty_assignment(root: Path) -> None:
    """An assignment of one empty code cell, to time what nbgrader's autograde costs beyond a notebook's run."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "", metadata={"nbgrader": release.nbgrader_meta("cell-000")})])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    (root / "source" / EMPTY).mkdir(parents=True)
    nbformat.write(nb, root / "source" / EMPTY / f"{EMPTY}.ipynb")


def autograde_seconds(root: Path, name: str) -> float:
    start = time.perf_counter()
    run_nbgrader(root, "autograde", name, "--force")
    return time.perf_counter() - start


def main() -> int:
    print(f"load average before: {load()}")
    with tempfile.TemporaryDirectory(prefix="attn-course-") as folder:
        root = Path(folder)
        course.write_course(root)
        write_empty_assignment(root)
        run_nbgrader(root, "generate_assignment", "*", "--force")
        names = course.course_notebooks()
        for name in names:
            source = nbformat.read(root / "source" / name / f"{name}.ipynb", as_version=4)
            hand_in(root, STUDENT, name, solutions(source))
        hand_in(root, STUDENT, EMPTY, {})

        startup = autograde_seconds(root, EMPTY)
        times = {name: autograde_seconds(root, name) for name in names}

        with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
            points = {name: (gradebook.find_submission_notebook(name, name, STUDENT).score,
                             gradebook.find_submission_notebook(name, name, STUDENT).max_score) for name in names}

    own = {name: max(t - startup, 0.0) for name, t in times.items()}
    print(f"nbgrader's own start-up (autograde of one empty cell): {startup:.1f} s")
    print(f"{'notebook':<32} {'autograde s':>11} {'own run s':>9} {f'class of {CLASS} min':>15} {'points':>8}")
    for name in names:
        scored, possible = points[name]
        print(f"{name:<32} {times[name]:>11.1f} {own[name]:>9.1f} {(startup + CLASS * own[name]) / 60:>15.1f} "
              f"{scored:>4g}/{possible:<3g}")
    total, total_own = sum(times.values()), sum(own.values())
    scored, possible = (sum(p[i] for p in points.values()) for i in (0, 1))
    class_minutes = (len(names) * startup + CLASS * total_own) / 60
    print(f"{'all':<32} {total:>11.1f} {total_own:>9.1f} {class_minutes:>15.1f} {scored:>4g}/{possible:<3g}")
    print(f"nbgrader's start-up is {100 * len(names) * startup / total:.0f}% of one learner's whole course")
    print(f"one learner's whole course: {total:.0f} s (target <= {TARGET_SECONDS} s): "
          f"{'target met' if total <= TARGET_SECONDS else 'target missed'}")
    print(f"the solutions score {scored:g} of {possible:g} points: "
          f"{'target met' if scored == possible else 'target missed'}")
    print(f"load average after: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
