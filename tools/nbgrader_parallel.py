"""Autograde a class in parallel: N worker processes, one gradebook on a PostgreSQL server.

Usage, on one machine (prepare, grade with N workers, summarise)::

    python tools/nbgrader_parallel.py DIR 05-weighted-average [MORE ...] --db-url URL --workers 4 [--students S ...]

and on a cluster, each worker a job that reaches the same database and sees DIR on shared storage::

    python tools/nbgrader_parallel.py DIR 05-weighted-average --db-url URL --prepare          # once, first
    python tools/nbgrader_parallel.py DIR 05-weighted-average --db-url URL --share K/N        # job K of N (1..N)
    python tools/nbgrader_parallel.py DIR 05-weighted-average --db-url URL --summary          # once, last

DIR is a course written by tools/nbgrader_course.py, its submissions under DIR/submitted/<student>/<assignment>/ as
``nbgrader collect`` (or the hub's exchange) leaves them. URL is a SQLAlchemy URL, e.g.
``postgresql+psycopg2://grader@db.example.org:5432/attention``; the same URL goes into the teacher's
~/.jupyter/nbgrader_config.py (``c.CourseDirectory.db_url``; the course's own config is rewritten by
``nbgrader_course.py --force``) so that ``nbgrader generate_feedback``, ``export`` and the formgrader read it.

Why the steps are in this order: nbgrader's gradebook can be shared by processes, but not every write of
``nbgrader autograde`` is safe to run twice at once. Measured with PostgreSQL 15 and nbgrader 0.9.6:

- two autogrades that open an empty database both create its tables, and one fails with ``duplicate key value
  violates unique constraint "pg_type_typname_nsp_index"``; the course's row and a new student's are created the
  same way on first use (nbgrader's code looks for the row, then inserts it), so two workers can race for them too;
- two autogrades of the same student's submission both insert it, and one fails with ``duplicate key value violates
  unique constraint "submitted_assignment_assignment_id_student_id_key"`` (running plain ``nbgrader autograde A``
  twice does exactly this).

So ``--prepare`` (run by the one-machine form first) makes every row that more than one worker would create: the
tables, the course, each assignment with its notebooks and graded cells (``generate_assignment`` into a scratch
release folder, unless the gradebook has the assignment already) and every student; then each (assignment,
student) pair is graded by exactly one worker (``--share K/N`` takes every N-th pair of the sorted list, starting at
the K-th), and a worker only adds that submission's rows. A worker grades its pairs one after another in one
process, through nbgrader's own API (``NbGraderAPI.autograde``, what the formgrader calls), so nbgrader's start-up
is paid once per worker; it prints one JSON line per pair. A submission nbgrader cannot grade is a failure with its
reason; a wrong answer is not a failure, it is a score.

The summary names the students graded, each failure and its reason (nbgrader's own words; its log of each
submission is kept in DIR/grading-logs/<assignment>/<student>.log), the wall time, and the scores: each student's
total (when the class is at most --list students) and how the totals are spread. Whether a submission is graded is
read from the gradebook: one whose worker died mid-grade (nbgrader writes the autograded notebook before it runs
it) has graded cells without a score, and is named, never counted as 0. A run of the one-machine form (and
--prepare) holds a PostgreSQL advisory lock on the gradebook: a second run beside it is refused with a sentence. A
--db-url the workers cannot share (an SQLite file, ``postgres://``, a server that does not answer) gets one line.
A gradebook that holds submissions of an assignment as another version of the course released it (other graded
cells, points or locked cells than DIR/source/) is refused with a sentence before anything is graded.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from nbgrader_release import held_by_another_version  # noqa: E402  (tools/nbgrader_release.py: the graded form)
from nbgrader_run import grading_env  # noqa: E402  (tools/nbgrader_run.py: the kernels' environment)

CONFIG_FILE = "nbgrader_config.py"
LOG_FOLDER = "grading-logs"  # under DIR: each worker's nbgrader log when the one-machine form runs them


class GradingError(ValueError):
    """The course folder, the assignments or the arguments cannot be graded as asked."""


@dataclass
class Graded:
    """One (assignment, student) pair as a worker left it."""

    assignment: str
    student: str
    ok: bool
    reason: str  # why nbgrader could not grade it; "" when ok
    seconds: float  # wall time of its autograde
    cpu_seconds: float = 0.0  # CPU time of its autograde: the worker's and its kernel's


def check_db_url(url: str) -> None:
    """A gradebook URL the workers can share, and a server that answers; else one sentence saying what is expected."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, SQLAlchemyError

    expected = "expected postgresql+psycopg2://USER@HOST:PORT/DATABASE"
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise GradingError(f"--db-url: {expected}; got {url!r}, which is not a database URL") from None
    scheme = parsed.drivername
    if scheme == "postgres" or scheme.startswith("postgres+"):
        raise GradingError(f"--db-url: {expected}; got {scheme}://..., a name SQLAlchemy no longer reads: write "
                           "postgresql:// instead")
    if scheme.startswith("sqlite"):
        raise GradingError(f"--db-url: {expected}; got an SQLite gradebook, which takes one writer at a time: its "
                           "workers would fail. Grade serially with nbgrader autograde, or use PostgreSQL")
    if not scheme.startswith("postgresql"):
        raise GradingError(f"--db-url: {expected}; got {scheme}://...")
    try:
        with create_engine(parsed).connect() as connection:
            connection.execute(text("SELECT 1"))
    except (SQLAlchemyError, ImportError) as error:
        first = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
        raise GradingError(f"--db-url: cannot open the gradebook at {parsed.render_as_string(hide_password=True)}: "
                           f"{first}") from None


class run_lock:
    """Held for a run of the one-machine form (and --prepare): a PostgreSQL advisory lock on the gradebook's
    database, so that a second run on a gradebook in use is refused with a sentence instead of regrading everything
    beside the first. Released when the run ends, or when its process dies (the server drops the session)."""

    KEY = 0x617474_6E67  # "attng": this tool's lock, one per database

    def __init__(self, url: str):
        self.url = url

    def __enter__(self):
        from sqlalchemy import create_engine, text

        self.connection = create_engine(self.url).connect()
        if not self.connection.execute(text(f"SELECT pg_try_advisory_lock({self.KEY})")).scalar():
            self.connection.close()
            raise GradingError("the gradebook is in use by another run of tools/nbgrader_parallel.py (one that is "
                               "grading now): wait until it ends, then run this again")
        return self

    def __exit__(self, *exc):
        self.connection.close()  # the session's advisory locks end with it
        return False


def parse_share(text: str) -> tuple[int, int]:
    """'K/N' -> (K, N), 1 <= K <= N."""
    try:
        k, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise GradingError(f"--share: expected K/N with whole numbers, e.g. 3/40; got {text!r}") from None
    if not 1 <= k <= n:
        raise GradingError(f"--share: expected 1 <= K <= N; got K={k}, N={n}")
    return k, n


def submitted_students(course: Path, assignments: list[str], only: list[str] | None = None) -> list[tuple[str, str]]:
    """Every (assignment, student) pair with a submission folder, sorted; ``only`` keeps those students (each must
    have handed in at least one of the assignments)."""
    pairs = sorted((a, folder.parent.name) for a in assignments for folder in (course / "submitted").glob(f"*/{a}")
                   if folder.is_dir())
    if only is not None:
        unknown = sorted(set(only) - {s for _, s in pairs})
        if unknown:
            raise GradingError(f"--students: no submission of {', '.join(assignments)} under "
                               f"{course / 'submitted'} for {', '.join(unknown)}")
        pairs = [(a, s) for a, s in pairs if s in set(only)]
    return pairs


def check_course(course: Path, assignments: list[str]) -> None:
    if not (course / CONFIG_FILE).is_file():
        raise GradingError(f"course folder: expected {course / CONFIG_FILE} (tools/nbgrader_course.py writes it); "
                           "it is not there")
    missing = [a for a in assignments if not (course / "source" / a).is_dir()]
    if missing:
        raise GradingError(f"assignments: expected each under {course / 'source'}; not there: {', '.join(missing)}")


def nbgrader_api(course: Path, db_url: str):
    """nbgrader's API on the course's own config, with the gradebook at ``db_url``."""
    from nbgrader.apps import NbGraderAPI
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader(CONFIG_FILE, path=str(course)).load_config()
    config.CourseDirectory.root = str(course)
    config.CourseDirectory.db_url = db_url
    return NbGraderAPI(config=config)


def prepare(course: Path, assignments: list[str], db_url: str, students: list[str]) -> list[str]:
    """Create, from this one process, every gradebook row that two workers would race to create: the tables and the
    course (opening the gradebook), each assignment with its notebooks and graded cells, and every student. Return
    the assignments that had to be generated."""
    from nbgrader.api import Gradebook, MissingEntry

    api = nbgrader_api(course, db_url)
    generated = []
    with Gradebook(db_url, api.coursedir.course_id) as gradebook:
        for assignment in assignments:
            try:
                notebook = gradebook.find_notebook(assignment, assignment)
            except MissingEntry:
                generated.append(assignment)
                continue
            source = nbformat.read(course / "source" / assignment / f"{assignment}.ipynb", as_version=4)
            held = held_by_another_version(notebook, source, assignment)
            if held and notebook.submissions:
                raise GradingError(
                    f"--db-url: the gradebook {held} (not the version in {course / 'source'}). Grading now would mix "
                    "the two versions' checkers and points. Grade into a new database, or with the course version that "
                    "made this gradebook; nothing was graded")
            if held:  # no submission yet: the gradebook takes this version's cells
                generated.append(assignment)
        for student in students:
            gradebook.update_or_create_student(student)
    for assignment in generated:
        # generate_assignment writes the assignment's rows; its released copy goes to a scratch folder, so that
        # the teacher's release/ is left as it is.
        with tempfile.TemporaryDirectory(prefix="release-") as scratch:
            api.coursedir.release_directory = scratch
            result = api.generate_assignment(assignment, force=True, create=True)
            api.coursedir.release_directory = "release"
        if not result["success"]:
            raise GradingError(f"generate_assignment {assignment} failed:\n{result.get('log', '')}"
                               f"{result.get('error', '')}")
    return generated


def failure_reason(result: dict) -> str:
    """nbgrader's own words for a failed autograde: its first specific ERROR entry of the log (of a logged traceback,
    its last line: the exception), else the exception's last line."""
    general = ("There was an error processing", "Please see the")
    entries, current = [], None
    for line in result.get("log", "").splitlines():
        if line.startswith("[") and "] " in line:
            current = [line.split("] ", 1)[0][1:], [line.split("] ", 1)[1]]]
            entries.append(current)
        elif current is not None:
            current[1].append(line)
    for level, lines in entries:
        text = [line.strip() for line in lines if line.strip()]
        if level == "ERROR" and text and not text[0].startswith(general):
            return text[-1] if text[0].startswith("Traceback") else text[0]
    lines = [line for line in result.get("error", "").strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "nbgrader reported a failure and no reason"


def cpu_seconds() -> float:
    """CPU seconds of this process and of its children that have ended (each kernel ends with its submission)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def submission_log(course: Path, assignment: str, student: str) -> Path:
    """Where nbgrader's log of one submission's autograde is kept: DIR/grading-logs/<assignment>/<student>.log."""
    return course / LOG_FOLDER / assignment / f"{student}.log"


def grade_share(course: Path, pairs: list[tuple[str, str]], db_url: str, out=sys.stdout) -> list[Graded]:
    """Autograde ``pairs`` one after another in this process, printing one JSON line per pair to ``out``."""
    os.environ.update(grading_env())  # the graded kernels import this repository's attn_lib
    os.environ.pop("ATTN_COURSE_STUDENT", None)
    api = nbgrader_api(course, db_url)
    done = []
    for assignment, student in pairs:
        start, cpu = time.perf_counter(), cpu_seconds()
        result = api.autograde(assignment, student, force=True, create=False)
        log = submission_log(course, assignment, student)
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(result.get("log", "") + result.get("error", ""), encoding="utf-8")
        graded = Graded(assignment, student, bool(result["success"]),
                        "" if result["success"] else f"{failure_reason(result)} (nbgrader's log: {log})",
                        time.perf_counter() - start, cpu_seconds() - cpu)
        print(json.dumps(asdict(graded)), file=out, flush=True)
        done.append(graded)
    return done


def run_workers(course: Path, assignments: list[str], db_url: str, workers: int, pairs: list[tuple[str, str]],
                students: list[str] | None) -> list[Graded]:
    """Start ``workers`` copies of this script with ``--share K/N``, follow their JSON lines with a progress bar, and
    return every pair's result. Each worker's nbgrader log goes to DIR/grading-logs/worker-K.log."""
    from tqdm import tqdm

    logs = course / LOG_FOLDER
    logs.mkdir(exist_ok=True)
    lines: queue.Queue = queue.Queue()
    processes = []
    for k in range(1, workers + 1):
        command = [sys.executable, str(Path(__file__).resolve()), str(course), *assignments, "--db-url", db_url,
                   "--share", f"{k}/{workers}"]
        if students is not None:
            command += ["--students", *students]
        log = open(logs / f"worker-{k}.log", "w", encoding="utf-8")
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True)
        processes.append((k, process, log))

        def follow(stream=process.stdout, k=k):
            for line in stream:
                lines.put((k, line))
            lines.put((k, None))

        threading.Thread(target=follow, daemon=True).start()

    results, running = [], workers
    with tqdm(total=len(pairs), unit="submission", desc=f"autograde, {workers} workers") as bar:
        while running:
            k, line = lines.get()
            if line is None:
                running -= 1
                continue
            try:
                graded = Graded(**json.loads(line))
            except (json.JSONDecodeError, TypeError):
                continue  # a line that is not a result (a kernel or library printing to stdout)
            results.append(graded)
            bar.update(1)
            if not graded.ok:
                bar.write(f"failed: {graded.student} {graded.assignment}: {graded.reason}")
    for k, process, log in processes:
        process.wait()
        log.close()
    seen = {(g.assignment, g.student) for g in results}
    for k, process, _ in processes:  # a worker that died mid-share: its remaining pairs are failures, with why
        share = pairs[k - 1::workers]
        for assignment, student in share:
            if (assignment, student) not in seen:
                results.append(Graded(assignment, student, False, f"worker {k} stopped (exit code "
                                      f"{process.returncode}) before grading it; see {logs / f'worker-{k}.log'}", 0.0))
    return sorted(results, key=lambda g: (g.assignment, g.student))


def totals(course: Path, db_url: str, pairs: list[tuple[str, str]],
           ungraded: dict | None = None) -> dict[str, tuple[float, float, list[str]]]:
    """Each student's total score and total possible over the pairs graded, read from the gradebook, and the
    assignments of theirs not graded (``ungraded``: :func:`not_graded`'s answer): never counted as 0."""
    from nbgrader.api import Gradebook

    ungraded = not_graded(course, db_url, pairs) if ungraded is None else ungraded
    api = nbgrader_api(course, db_url)
    found: dict[str, list] = {}
    with Gradebook(db_url, api.coursedir.course_id) as gradebook:
        for assignment, student in pairs:
            scored = found.setdefault(student, [0.0, 0.0, []])
            if (assignment, student) in ungraded:
                scored[2].append(assignment)
                continue
            submission = gradebook.find_submission(assignment, student)
            scored[0] += submission.score
            scored[1] += submission.max_score
    return {s: (scored, possible, missing) for s, (scored, possible, missing) in found.items()}


def not_graded(course: Path, db_url: str, pairs: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """The pairs the gradebook does not hold as graded, each with why: no autograde of it at all, or one that did not
    finish (a graded cell nbgrader scores by its tests has no score: its worker stopped mid-grade). Read from the
    gradebook alone, not from the files a stopped autograde leaves behind."""
    from nbgrader.api import Gradebook, MissingEntry

    api = nbgrader_api(course, db_url)
    found = {}
    with Gradebook(db_url, api.coursedir.course_id) as gradebook:
        for assignment, student in pairs:
            try:
                submission = gradebook.find_submission(assignment, student)
            except MissingEntry:
                found[assignment, student] = "not graded: the gradebook holds no autograde of it"
                continue
            pending = 0
            for notebook in submission.notebooks:
                answered_by_hand = {cell.name for cell in notebook.notebook.solution_cells}
                pending += sum(grade.auto_score is None and grade.manual_score is None
                               and grade.cell.name not in answered_by_hand for grade in notebook.grades)
            if pending:
                found[assignment, student] = (f"autograde did not finish: {pending} graded cell"
                                              f"{'s' * (pending != 1)} without a score (its worker stopped "
                                              "mid-grade); run the tool again to grade it")
    return found


def write_grades(path: Path, course: Path, db_url: str, pairs: list[tuple[str, str]], missing: dict) -> None:
    """Each student's score per assignment as a CSV (student, one column per assignment, total, possible): "not
    graded" where the gradebook holds no finished autograde, never 0; total and possible over what was graded."""
    import csv

    from nbgrader.api import Gradebook

    assignments = sorted({a for a, _ in pairs})
    api = nbgrader_api(course, db_url)
    table: dict[str, dict] = {}
    with Gradebook(db_url, api.coursedir.course_id) as gradebook:
        for assignment, student in pairs:
            row = table.setdefault(student, {"student": student, "total": 0.0, "possible": 0.0})
            if (assignment, student) in missing:
                row[assignment] = "not graded"
                continue
            submission = gradebook.find_submission(assignment, student)
            row[assignment] = f"{submission.score:g}"
            row["total"] += submission.score
            row["possible"] += submission.max_score
    with open(path, "w", newline="", encoding="utf-8") as stream:
        writer = csv.DictWriter(stream, fieldnames=["student", *assignments, "total", "possible"], restval="")
        writer.writeheader()
        writer.writerows({**row, "total": f"{row['total']:g}", "possible": f"{row['possible']:g}"}
                         for _, row in sorted(table.items()))


def summary(results: list[Graded] | None, scores: dict[str, tuple[float, float]], seconds: float | None,
            workers: int | None, listed: int) -> str:
    """The end-of-run report: counts, failures with their reasons, time, each student's total (up to ``listed``
    students) and the spread of totals (tenths of the points possible)."""
    out = []
    if results is not None:
        failed = [g for g in results if not g.ok]
        students = sorted({g.student for g in results})
        out.append(f"graded {len(results) - len(failed)} of {len(results)} submissions ({len(students)} students)"
                   + (f" with {workers} workers" if workers else ""))
        if seconds is not None:
            busy, cpu, count = sum(g.seconds for g in results), sum(g.cpu_seconds for g in results), len(results)
            out.append(f"wall time {seconds:.1f} s; per submission, in a worker: {busy / max(count, 1):.1f} s, "
                       f"of which CPU {cpu / max(count, 1):.1f} s")
        for g in failed:
            out.append(f"  FAILED {g.student} {g.assignment}: {g.reason}")
    if scores:
        if len(scores) <= listed:
            out.append("totals (an assignment not graded counts for nothing, not 0):")
            out += [f"  {s:<24} " + (f"{scored:g} / {possible:g}" if possible else "not graded")
                    + (f"; not graded: {', '.join(missing)}" if missing and possible else "")
                    for s, (scored, possible, missing) in sorted(scores.items())]
        whole = [(scored, possible) for scored, possible, missing in scores.values() if possible and not missing]
        bands = Counter(min(int(10 * scored / possible), 9) for scored, possible in whole)
        out.append(f"spread of totals of the {len(whole)} students graded in full (share of the points possible: "
                   "students):")
        out += [f"  {10 * b:>3}-{10 * b + 10:<3}% {bands[b]:>5} {'#' * round(40 * bands[b] / max(len(whole), 1))}"
                for b in range(10)]
    return "\n".join(out)


def shown_summary(course: Path, pairs: list[tuple[str, str]]) -> str:
    """The submissions of ``pairs`` that show other numbers than they are graded on (tools/nbgrader_shown.py), each
    in one sentence, or one line saying there are none."""
    import nbgrader_shown  # noqa: PLC0415  (tools/nbgrader_shown.py)

    lines = nbgrader_shown.shown_numbers(course, sorted({a for a, _ in pairs}), sorted({s for _, s in pairs}))
    if not lines:
        return "numbers: every submission graded shows the numbers it is graded on"
    return "\n".join(["numbers shown are not the numbers graded (read each before trusting its points):",
                      *(f"  {line}" for line in lines)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("course", type=Path, help="the course folder (tools/nbgrader_course.py wrote it)")
    parser.add_argument("assignments", nargs="+", help="assignment names, e.g. 05-weighted-average")
    parser.add_argument("--db-url", required=True, help="the gradebook's SQLAlchemy URL (postgresql+psycopg2://...)")
    parser.add_argument("--students", nargs="+", help="grade only these students (default: every submission)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--workers", type=int, default=2, help="worker processes on this machine (default 2)")
    mode.add_argument("--prepare", action="store_true", help="only create the gradebook's shared rows (once, first)")
    mode.add_argument("--share", help="K/N: grade only the K-th of N shares (a cluster job); run --prepare first")
    mode.add_argument("--summary", action="store_true", help="only print the summary from the gradebook")
    parser.add_argument("--list", type=int, default=50, help="list each student's total up to this many students")
    parser.add_argument("--results", type=Path, help="also write every submission's result to this JSON file")
    parser.add_argument("--grades", type=Path, help="also write each student's score per assignment to this CSV "
                                                     "file, \"not graded\" where the gradebook holds no finished "
                                                     "autograde (never 0)")
    args = parser.parse_args(argv)

    course = args.course.resolve()
    try:
        check_db_url(args.db_url)
        check_course(course, args.assignments)
        if args.workers < 1:
            raise GradingError(f"--workers: expected at least 1; got {args.workers}")
        pairs = submitted_students(course, args.assignments, args.students)
        if not pairs:
            raise GradingError(f"no submissions of {', '.join(args.assignments)} under {course / 'submitted'}")
        if args.share:
            k, n = parse_share(args.share)
            grade_share(course, pairs[k - 1::n], args.db_url)
            return 0
        if args.summary:
            missing = not_graded(course, args.db_url, pairs)
            results = [Graded(a, s, (a, s) not in missing, missing.get((a, s), ""), 0.0) for a, s in pairs]
            print(summary(results, totals(course, args.db_url, pairs, missing), None, None, args.list))
            print(shown_summary(course, pairs))
            if args.grades:
                write_grades(args.grades, course, args.db_url, pairs, missing)
            return 1 if missing else 0
        with run_lock(args.db_url):
            students = sorted({s for _, s in pairs})
            generated = prepare(course, args.assignments, args.db_url, students)
            print(f"gradebook ready: {len(students)} students"
                  + (f"; generated {', '.join(generated)}" if generated else ""))
            if args.prepare:
                return 0
            start = time.perf_counter()
            results = run_workers(course, args.assignments, args.db_url, args.workers, pairs, args.students)
            seconds = time.perf_counter() - start
            missing = not_graded(course, args.db_url, pairs)
            results = [g if g.ok is ((g.assignment, g.student) not in missing) else  # the gradebook has the last word
                       Graded(g.assignment, g.student, False, g.reason or missing[g.assignment, g.student], g.seconds,
                              g.cpu_seconds) for g in results]
            print(summary(results, totals(course, args.db_url, pairs, missing), seconds, args.workers, args.list))
            print(shown_summary(course, pairs))
        if args.results:
            args.results.write_text(json.dumps([asdict(g) for g in results], indent=1), encoding="utf-8")
        if args.grades:
            write_grades(args.grades, course, args.db_url, pairs, missing)
        return 1 if any(not g.ok for g in results) else 0
    except GradingError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
