"""What autograding costs a teacher per learner, per assignment, in CPU seconds, as tools/nbgrader_parallel.py's
workers grade (one submission after another in one process, each in a fresh kernel); what is paid once; and what a
learner's endless loop costs. The teachers' guide ("How long grading takes") takes its table from this.

In a temporary folder: the whole course is written (tools/nbgrader_course.py) and released by nbgrader's
generate_assignment, with one more assignment of a single empty code cell (what a submission costs before any of a
notebook's own cells: nbgrader's steps and a fresh kernel); LEARNERS learners hand in the solutions of every
notebook; one more learner hands in 02 with an endless loop in its first answer cell (the course's per-cell timeout
stops it). Then one worker grades every submission through the tool's own functions (``prepare``, then
``grade_share``) on an SQLite gradebook, as each worker does on PostgreSQL: CPU seconds are the worker's and the
kernels' it started, per submission.

Printed: once per course (writing and releasing the course), once per grading run (``prepare``: the gradebook's
rows and the workers' start); per assignment, the CPU seconds per learner (mean, and the spread over the learners),
what is left beyond the empty notebook's cost (the notebook's own cells), and the lowest points a learner got (the
solutions must score full marks); the whole course per learner (target: at most 300 CPU seconds); the endless loop's
cost beside the course's timeout; the load average before and after. CPU seconds hardly move with the load; wall
times do, and are printed only for the loop.

Notebook 10 reads the trained model's files: fetch them first with ``python -m attn_lib.minilm``.

Run: python benchmarks/grading_cost.py [--learners 3] [--only 02 05]
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import warnings
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import nbgrader_course as course  # noqa: E402  (tools/nbgrader_course.py)
import nbgrader_parallel as parallel  # noqa: E402  (tools/nbgrader_parallel.py)
import nbgrader_release as release  # noqa: E402  (tools/nbgrader_release.py)
from nbgrader_run import hand_in, run_nbgrader, solutions  # noqa: E402  (tools/nbgrader_run.py)

TARGET_CPU_SECONDS = 300  # one learner's whole course, in a worker
EMPTY = "zz-empty"  # sorts after the course's notebooks
LOOPING = "looping"  # the learner whose answer cell never ends
LOOPED = "02-scores"
ENDLESS = "while True:\n    pass"


def load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def write_empty_assignment(root: Path) -> None:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "", metadata={"nbgrader": release.nbgrader_meta("cell-000")})])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    (root / "source" / EMPTY).mkdir(parents=True)
    nbformat.write(nb, root / "source" / EMPTY / f"{EMPTY}.ipynb")


def timeout_seconds(root: Path) -> float:
    """The course's per-cell timeout (``c.Execute.timeout`` in its nbgrader_config.py)."""
    for line in (root / course.CONFIG_FILE).read_text(encoding="utf-8").splitlines():
        if line.startswith("c.Execute.timeout"):
            return float(line.split("=", 1)[1].split("#")[0])
    raise ValueError("the course's config sets no c.Execute.timeout")


def points(root: Path, url: str, pairs: list[tuple[str, str]]) -> dict[tuple[str, str], tuple[float, float]]:
    """(score, max score) of each graded (assignment, student) pair, from the gradebook."""
    from nbgrader.api import Gradebook, MissingEntry

    found = {}
    with Gradebook(url, course.COURSE_ID) as gradebook:
        for assignment, student in pairs:
            try:
                submission = gradebook.find_submission(assignment, student)
            except MissingEntry:
                continue
            found[(assignment, student)] = (submission.score, submission.max_score)
    return found


def spread(values: list[float]) -> str:
    return f"{min(values):.1f}-{max(values):.1f}" if len(values) > 1 else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learners", type=int, default=3, help="learners who hand in every notebook (default 3)")
    parser.add_argument("--only", nargs="+", metavar="NN", help="only these notebooks (number prefixes)")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message=".*not in session.*")  # nbgrader's own SQLAlchemy use, on every submission
    print(f"load average before: {load()}")
    with tempfile.TemporaryDirectory(prefix="attn-grading-") as folder:
        root = Path(folder)
        names = course.selected(args.only, course.course_notebooks())
        start = parallel.cpu_seconds()
        course.write_course(root, names)
        write_empty_assignment(root)
        run_nbgrader(root, "generate_assignment", "*", "--force")
        once_per_course = parallel.cpu_seconds() - start

        learners = [f"learner-{k}" for k in range(1, args.learners + 1)]
        for name in names:
            answers = solutions(nbformat.read(root / "source" / name / f"{name}.ipynb", as_version=4))
            for learner in learners:
                hand_in(root, learner, name, answers)
        for learner in learners:
            hand_in(root, learner, EMPTY, {})
        if LOOPED in names:
            source = nbformat.read(root / "source" / LOOPED / f"{LOOPED}.ipynb", as_version=4)
            answers = solutions(source)
            answers[next(iter(answers))] = ENDLESS
            hand_in(root, LOOPING, LOOPED, answers)

        url = f"sqlite:///{root / 'gradebook.db'}"
        assignments = [*names, EMPTY]
        pairs = parallel.submitted_students(root, assignments)
        start = parallel.cpu_seconds()
        parallel.prepare(root, assignments, url, sorted({s for _, s in pairs}))
        once_per_run = parallel.cpu_seconds() - start
        graded = parallel.grade_share(root, pairs, url, out=io.StringIO())
        scores = points(root, url, [(a, s) for a, s in pairs if a != EMPTY])
        timeout = timeout_seconds(root)
        answer_cells = {name: sum(1 for c in nbformat.read(root / "source" / name / f"{name}.ipynb", as_version=4).cells
                                  if release.grading(c).get("solution")) for name in names}

    by_pair = {(g.assignment, g.student): g for g in graded}
    failed = [g for g in graded if not g.ok]
    empty = statistics.mean(by_pair[(EMPTY, s)].cpu_seconds for s in learners)
    print(f"once per course (write the course, release it with generate_assignment): {once_per_course:.1f} CPU s")
    print(f"once per grading run (prepare: the gradebook's rows, nbgrader's start): {once_per_run:.1f} CPU s")
    print(f"an empty notebook (nbgrader's steps and a fresh kernel), per submission: {empty:.1f} CPU s")
    print(f"{'notebook':<32} {'CPU s/learner':>13} {'spread':>10} {'beyond empty':>12} {'lowest points':>13}")
    whole = [0.0] * len(learners)
    lowest = {}
    for name in names:
        seconds = [by_pair[(name, s)].cpu_seconds for s in learners]
        whole = [w + s for w, s in zip(whole, seconds)]
        got = [scores[(name, s)] for s in learners if (name, s) in scores]
        lowest[name] = (min(g[0] for g in got), got[0][1]) if len(got) == len(learners) else (0.0, float("nan"))
        print(f"{name:<32} {statistics.mean(seconds):>13.1f} {spread(seconds):>10} "
              f"{statistics.mean(seconds) - empty:>12.1f} {f'{lowest[name][0]:g}/{lowest[name][1]:g}':>13}")
    scored, possible = (sum(p[i] for p in lowest.values()) for i in (0, 1))
    print(f"{'all':<32} {statistics.mean(whole):>13.1f} {spread(whole):>10} "
          f"{statistics.mean(whole) - len(names) * empty:>12.1f} {f'{scored:g}/{possible:g}':>13}")
    print(f"one learner's whole course: {statistics.mean(whole):.0f} CPU s (target <= {TARGET_CPU_SECONDS}): "
          f"{'target met' if statistics.mean(whole) <= TARGET_CPU_SECONDS else 'target missed'}")
    print(f"the solutions score {scored:g} of {possible:g} points for every learner: "
          f"{'target met' if scored == possible else 'target missed'}")
    if (LOOPED, LOOPING) in by_pair:
        loop = by_pair[(LOOPED, LOOPING)]
        print(f"an endless loop in {LOOPED}'s first answer cell: {loop.seconds:.0f} s of a worker's time "
              f"({loop.cpu_seconds:.0f} CPU s; the course's timeout per cell is {timeout:.0f} s), then the rest of "
              f"the notebook is graded: {scores[(LOOPED, LOOPING)][0]:g} of {scores[(LOOPED, LOOPING)][1]:g} points")
    most = max(answer_cells, key=answer_cells.get)
    print(f"the worst case: every answer cell an endless loop, {answer_cells[most]} x {timeout:.0f} s = "
          f"{answer_cells[most] * timeout / 60:.0f} minutes for {most}'s ({sum(answer_cells.values())} answer cells "
          f"in the course), and {timeout:.0f} s more for each looping cell a learner inserts")
    for g in failed:
        print(f"FAILED {g.assignment} {g.student}: {g.reason}")
    print(f"load average after: {load()}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
