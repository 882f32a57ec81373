"""How long nbgrader takes to autograde one learner's whole course (target: at most 5 minutes on two cores).

A course is written by tools/nbgrader_course.py in a temporary folder and released; one learner hands in the
solutions of every notebook (as notebooks/solutions/ answers them); then each assignment is autograded on its own,
as a teacher grades one assignment at a time. Printed: the wall time of each ``nbgrader autograde`` (the
notebook's run in a fresh kernel plus nbgrader's own start, about 4 s here) and the points scored out of the
points possible, which must be full marks; then the totals and the load average.

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

TARGET_SECONDS = 300
STUDENT = "learner"


def load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> int:
    print(f"load average before: {load()}")
    with tempfile.TemporaryDirectory(prefix="attn-course-") as folder:
        root = Path(folder)
        course.write_course(root)
        course.run_nbgrader(root, "generate_assignment", "*", "--force")
        names = course.course_notebooks()
        for name in names:
            source = nbformat.read(root / "source" / name / f"{name}.ipynb", as_version=4)
            course.hand_in(root, STUDENT, name, course.solutions(source))

        times = {}
        for name in names:
            start = time.perf_counter()
            course.run_nbgrader(root, "autograde", name, "--force")
            times[name] = time.perf_counter() - start

        with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
            points = {name: (gradebook.find_submission_notebook(name, name, STUDENT).score,
                             gradebook.find_submission_notebook(name, name, STUDENT).max_score) for name in names}

    print(f"{'notebook':<32} {'autograde s':>11} {'points':>8}")
    for name in names:
        scored, possible = points[name]
        print(f"{name:<32} {times[name]:>11.1f} {scored:>4g}/{possible:<3g}")
    total = sum(times.values())
    scored, possible = (sum(p[i] for p in points.values()) for i in (0, 1))
    print(f"{'all':<32} {total:>11.1f} {scored:>4g}/{possible:<3g}")
    print(f"one learner's whole course: {total:.0f} s (target <= {TARGET_SECONDS} s): "
          f"{'target met' if total <= TARGET_SECONDS else 'target missed'}")
    print(f"the solutions score {scored:g} of {possible:g} points: "
          f"{'target met' if scored == possible else 'target missed'}")
    print(f"load average after: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
