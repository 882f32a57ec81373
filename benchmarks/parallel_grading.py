"""How much faster a class is autograded by tools/nbgrader_parallel.py's workers on one PostgreSQL gradebook than by
nbgrader's own serial autograde on SQLite, and whether the two agree (targets: a speed-up of at least 1.5 with two
workers on two idle cores; every score and every reason identical).

One assignment (05-weighted-average) is released by tools/nbgrader_course.py's course and handed in by a simulated
class (tools/nbgrader_run.py's ``hand_in_class``: one learner right everywhere, one untouched, one wrong everywhere,
the others a seeded mix of the three per problem). The class is graded twice, in one run: ``nbgrader autograde``
on SQLite (one process, one learner after another), then the tool with two workers on a PostgreSQL 15 server
started from a temporary folder (tools/throwaway_postgres.py; Debian's ``postgresql`` package). Then every graded
cell's score and reason (the error its checker raised) is compared, cell by cell.

Printed: both wall times and CPU times (of every process the run started: nbgrader, the workers, the kernels),
each per learner; the speed-up; the parallel run's CPU over the serial run's (what the workers cost beyond the
grading itself, and so the speed-up two idle cores would give: on a machine other work keeps busy, the wall times
say little, the CPU times much more); whether every score and reason is identical; and the arithmetic for a class of
300 and 3,000 at the measured CPU seconds per learner (one worker per idle core: on one machine, or a job each on a
cluster), with the load average before and after.

Run: python benchmarks/parallel_grading.py [--learners 40]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import nbgrader_course as course  # noqa: E402  (tools/nbgrader_course.py)
from nbgrader_run import WRONG_05, hand_in_class, run_nbgrader, verdicts  # noqa: E402  (tools/nbgrader_run.py)
from throwaway_postgres import ThrowawayPostgres  # noqa: E402

NAME = "05-weighted-average"
WORKERS = 2
TARGET_SPEEDUP = 1.5
CLASSES = (300, 3000)
WORKER_COUNTS = (1, 2, 16, 64)


def load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def timed(run) -> tuple[float, float, object]:
    """Wall seconds, CPU seconds of the processes it started (nbgrader, its workers, their kernels), its result."""
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    result = run()
    wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime), result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learners", type=int, default=40, help="the simulated class's size (default 40)")
    learners = parser.parse_args().learners
    print(f"load average before: {load()}")
    with tempfile.TemporaryDirectory(prefix="attn-grading-") as folder, ThrowawayPostgres() as server:
        serial = Path(folder) / "serial"
        course.write_course(serial, [NAME])
        run_nbgrader(serial, "generate_assignment", NAME, "--force")
        hand_in_class(serial, NAME, WRONG_05, learners)
        in_parallel = Path(folder) / "parallel"
        shutil.copytree(serial, in_parallel)
        (in_parallel / "gradebook.db").unlink()
        url = server.create_database("gradebook")

        serial_s, serial_cpu, _ = timed(lambda: run_nbgrader(serial, "autograde", NAME, "--force"))
        results = Path(folder) / "results.json"
        command = [sys.executable, str(ROOT / "tools" / "nbgrader_parallel.py"), str(in_parallel), NAME,
                   "--db-url", url, "--workers", str(WORKERS), "--list", "0", "--results", str(results)]
        parallel_s, parallel_cpu, ran = timed(lambda: subprocess.run(command, capture_output=True, text=True))
        if ran.returncode != 0:
            print(ran.stdout + ran.stderr)
            return 1
        before = verdicts(serial, NAME, f"sqlite:///{serial / 'gradebook.db'}")
        after = verdicts(in_parallel, NAME, url)
        per_submission = sum(r["cpu_seconds"] for r in json.loads(results.read_text(encoding="utf-8")))

    differing = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    cells = len(before)
    speedup = serial_s / parallel_s
    print(f"{learners} learners of {NAME}, {cells} graded cells")
    print(f"{'run':<44} {'wall s':>7} {'wall s/learner':>14} {'CPU s':>7} {'CPU s/learner':>13}")
    for run, wall, cpu in (("nbgrader autograde, serial, SQLite", serial_s, serial_cpu),
                           (f"nbgrader_parallel.py, {WORKERS} workers, PostgreSQL", parallel_s, parallel_cpu)):
        print(f"{run:<44} {wall:>7.1f} {wall / learners:>14.2f} {cpu:>7.1f} {cpu / learners:>13.2f}")
    print(f"speed-up with {WORKERS} workers: {speedup:.2f}x (target >= {TARGET_SPEEDUP}x on {WORKERS} idle cores): "
          f"{'target met' if speedup >= TARGET_SPEEDUP else 'target missed'}")
    # CPU seconds do not grow with the machine's load as wall seconds do: what the parallel run costs beyond the
    # serial one, and so what N idle cores would give.
    print(f"CPU seconds, parallel over serial: {parallel_cpu / serial_cpu:.2f}x; on {WORKERS} idle cores that is a "
          f"speed-up of at most {WORKERS * serial_cpu / parallel_cpu:.2f}x")
    same = not differing and cells == learners * len(WRONG_05)
    print(f"every score and reason identical ({cells} cells compared, {len(differing)} differ): "
          f"{'target met' if same else 'target missed'}")
    for key in differing[:5]:
        print(f"  differs: {key}: serial {before.get(key)!r} / parallel {after.get(key)!r}")
    # Each learner costs a worker its submission's CPU seconds (the kernel's run and nbgrader's work around it); the
    # rest of the parallel run's CPU is paid once (the gradebook prepared, each worker's start, the summary).
    per_worker = per_submission / learners
    print(f"per learner, in a worker: {per_worker:.2f} CPU s; once per run: {parallel_cpu - per_submission:.1f} CPU s")
    print(f"arithmetic at {per_worker:.2f} CPU s per learner (one worker per idle core; minutes, the once-per-run "
          "cost left out):")
    print(f"{'learners':>9} " + " ".join(f"{f'{w} workers':>11}" for w in WORKER_COUNTS))
    for size in CLASSES:
        print(f"{size:>9} " + " ".join(f"{size * per_worker / w / 60:>11.1f}" for w in WORKER_COUNTS))
    print(f"load average after: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
