"""Parallel autograde (tools/nbgrader_parallel.py) against a real PostgreSQL server, checked against nbgrader's own
serial autograde on SQLite: a class of seven simulated learners of 05 (all right, all untouched, all wrong, and
mixes) gets the same score and the same reason in every graded cell either way.

PostgreSQL is Debian's (``apt-get install postgresql``; .ci/run installs it), started from a temporary folder for
the session by tools/throwaway_postgres.py. Without it these tests skip on a laptop and fail in CI (CI set)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import nbgrader_course as course  # noqa: E402  (tools/nbgrader_course.py)
import nbgrader_parallel as parallel  # noqa: E402  (tools/nbgrader_parallel.py)
from nbgrader_run import WRONG_05, hand_in, hand_in_class, run_nbgrader, verdicts  # noqa: E402
from throwaway_postgres import PostgresMissing, ThrowawayPostgres  # noqa: E402

NAME = "05-weighted-average"
CLASS = 7
TOOL = ROOT / "tools" / "nbgrader_parallel.py"


@pytest.fixture(scope="session")
def postgres():
    """One PostgreSQL server for the session, in a temporary folder, stopped and removed at the end."""
    try:
        import psycopg2  # noqa: F401  (requirements-teacher.txt)
        server = ThrowawayPostgres().start()
    except (PostgresMissing, ImportError) as missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but PostgreSQL cannot be started: {missing}")
        pytest.skip(str(missing))
    yield server
    server.stop()


def run_tool(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def graded(tmp_path_factory, postgres):
    """The same class graded twice: nbgrader's serial autograde on SQLite, and the tool's two workers on PostgreSQL."""
    serial = tmp_path_factory.mktemp("serial")
    course.write_course(serial, [NAME])
    run_nbgrader(serial, "generate_assignment", NAME, "--force")
    kinds = hand_in_class(serial, NAME, WRONG_05, CLASS)
    in_parallel = tmp_path_factory.mktemp("parallel") / "course"
    shutil.copytree(serial, in_parallel)
    (in_parallel / "gradebook.db").unlink()  # the parallel run's gradebook is PostgreSQL's, and starts empty

    run_nbgrader(serial, "autograde", NAME, "--force")
    url = postgres.create_database("parallel")
    ran = run_tool(str(in_parallel), NAME, "--db-url", url, "--workers", "2")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    return dict(kinds=kinds, ran=ran, serial=verdicts(serial, NAME, f"sqlite:///{serial / 'gradebook.db'}"),
                parallel=verdicts(in_parallel, NAME, url))


def points(grade_id: str) -> int:
    """05's points: 2 for its function problem (problem 1), 1 for each prediction."""
    return 2 if grade_id == "problem-1-check" else 1


def test_every_score_and_reason_matches_the_serial_sqlite_autograde(graded):
    serial, parallel_ = graded["serial"], graded["parallel"]
    assert len(serial) == CLASS * len(WRONG_05)
    assert parallel_ == serial


def test_right_answers_score_and_wrong_or_untouched_ones_give_a_reason(graded):
    for student, kinds in graded["kinds"].items():
        for answer_id, kind in kinds.items():
            score, reason = graded["parallel"][student, answer_id.replace("-answer", "-check")]
            if kind == "right":
                assert score == points(answer_id.replace("-answer", "-check")), (student, answer_id, reason)
            else:
                assert score == 0 and reason.startswith("CheckFailed: "), (student, answer_id, kind, reason)
    mixes = {tuple(k.values()) for k in graded["kinds"].values()}
    assert len(mixes) == CLASS  # no two learners answered alike


def test_the_summary_names_every_student_with_their_total(graded):
    printed = graded["ran"].stdout
    assert f"graded {CLASS} of {CLASS} submissions ({CLASS} students) with 2 workers" in printed
    assert "FAILED" not in printed
    for student, kinds in graded["kinds"].items():
        total = sum(points(g.replace("-answer", "-check")) for g, kind in kinds.items() if kind == "right")
        assert f"  {student:<24} {total} / 7\n" in printed + "\n", student
    bands = re.findall(r"^ +\d+-\d+ *% +(\d+)", printed.split("spread of totals", 1)[1], re.MULTILINE)
    assert len(bands) == 10 and sum(map(int, bands)) == CLASS
    # one course's numbers for everyone (05 has no per-student numbers), and each hand-in shows them
    assert "numbers: every submission graded shows the numbers it is graded on" in printed


def test_a_submission_nbgrader_cannot_read_is_a_failure_with_its_reason(tmp_path, postgres):
    course.write_course(tmp_path, [NAME])
    run_nbgrader(tmp_path, "generate_assignment", NAME, "--force")
    hand_in(tmp_path, "ada", NAME, {})
    broken = hand_in(tmp_path, "bo", NAME, {}) / f"{NAME}.ipynb"
    broken.write_text("{ this is not a notebook", encoding="utf-8")
    ran = run_tool(str(tmp_path), NAME, "--db-url", postgres.create_database("broken"), "--workers", "2")
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "graded 1 of 2 submissions (2 students) with 2 workers" in ran.stdout
    failed = [line for line in ran.stdout.splitlines() if line.startswith("  FAILED")]
    assert len(failed) == 1 and failed[0].startswith(f"  FAILED bo {NAME}: ") and len(failed[0]) > 40, failed
    assert "  ada                      0 / 7" in ran.stdout
    assert f"  bo {NAME}: the notebook handed in cannot be read" in ran.stdout  # and no traceback for it


def test_a_worker_grades_only_its_share_and_needs_the_prepared_gradebook(tmp_path, postgres):
    course.write_course(tmp_path, [NAME])
    for student in ("ada", "bo", "cy"):
        hand_in(tmp_path, student, NAME, {}, released=tmp_path / "source" / NAME / f"{NAME}.ipynb")
    url = postgres.create_database("shares")
    unprepared = run_tool(str(tmp_path), NAME, "--db-url", url, "--share", "2/2")
    assert unprepared.returncode == 0
    assert '"student": "bo", "ok": false' in unprepared.stdout and "No student with ID 'bo'" in unprepared.stdout
    assert "ada" not in unprepared.stdout and "cy" not in unprepared.stdout
    prepared = run_tool(str(tmp_path), NAME, "--db-url", url, "--prepare")
    assert prepared.returncode == 0 and f"3 students; generated {NAME}" in prepared.stdout, prepared.stderr
    assert not (tmp_path / "release").exists()  # the scratch release is not the teacher's
    share = run_tool(str(tmp_path), NAME, "--db-url", url, "--share", "1/2")
    assert [line.split('"student": "')[1].split('"')[0] for line in share.stdout.splitlines()] == ["ada", "cy"]
    assert share.stdout.count('"ok": true') == 2
    halfway = run_tool(str(tmp_path), NAME, "--db-url", url, "--summary")
    assert halfway.returncode == 1 and "graded 2 of 3 submissions (3 students)" in halfway.stdout
    assert f"  FAILED bo {NAME}: not graded: the gradebook holds no autograde of it" in halfway.stdout
    assert "  bo                       not graded" in halfway.stdout  # never a 0
    run_tool(str(tmp_path), NAME, "--db-url", url, "--share", "2/2")
    done = run_tool(str(tmp_path), NAME, "--db-url", url, "--summary")
    assert done.returncode == 0 and "graded 3 of 3 submissions (3 students)" in done.stdout, done.stdout
    assert "  ada                      7 / 7" in done.stdout  # the source notebook handed in: every answer right


# A learner's answer that keeps the kernel busy for a while: long enough to stop its worker mid-grade.
SLOW = "import time\ntime.sleep(6)\nanswer = 3"


def test_a_worker_killed_mid_grade_leaves_no_grade_called_done_and_a_second_run_resumes_while_a_third_is_refused(
        tmp_path, postgres):
    course.write_course(tmp_path, [NAME])
    hand_in(tmp_path, "ada", NAME, {}, released=tmp_path / "source" / NAME / f"{NAME}.ipynb")
    hand_in(tmp_path, "bo", NAME, {"problem-2-answer": SLOW}, released=tmp_path / "source" / NAME / f"{NAME}.ipynb")
    url = postgres.create_database("killed")
    assert run_tool(str(tmp_path), NAME, "--db-url", url, "--prepare").returncode == 0
    worker = subprocess.Popen([sys.executable, str(TOOL), str(tmp_path), NAME, "--db-url", url, "--share", "1/1"],
                              stdout=subprocess.PIPE, text=True, start_new_session=True)
    started = time.monotonic()
    while not list((tmp_path / "autograded" / "bo" / NAME).glob("*.ipynb")):  # bo's kernel is running its cells
        assert worker.poll() is None and time.monotonic() - started < 240, "the worker never reached bo"
        time.sleep(0.1)
    time.sleep(2)
    os.killpg(worker.pid, signal.SIGKILL)  # the worker and bo's kernel, mid-grade
    worker.wait()
    assert '"student": "ada", "ok": true' in worker.stdout.read()

    after = run_tool(str(tmp_path), NAME, "--db-url", url, "--summary", "--grades", str(tmp_path / "grades.csv"))
    assert after.returncode == 1 and "graded 1 of 2 submissions" in after.stdout, after.stdout
    assert f"  FAILED bo {NAME}: autograde did not finish" in after.stdout and "run the tool again" in after.stdout
    assert "  bo                       not graded" in after.stdout and "  ada                      7 / 7" in after.stdout
    assert (tmp_path / "grades.csv").read_text().splitlines() == [f"student,{NAME},total,possible", f"ada,7,7,7",
                                                                  "bo,not graded,0,0"]  # never a 0 for bo's 05

    resumed = subprocess.Popen([sys.executable, str(TOOL), str(tmp_path), NAME, "--db-url", url, "--workers", "1"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while not (tmp_path / "grading-logs" / "worker-1.log").exists():  # past --prepare: its lock is held, it grades
        assert resumed.poll() is None and time.monotonic() - started < 400, resumed.communicate()
        time.sleep(0.1)
    second = run_tool(str(tmp_path), NAME, "--db-url", url, "--workers", "1")  # while the first grades
    out, err = resumed.communicate(timeout=400)
    assert resumed.returncode == 0 and "graded 2 of 2 submissions" in out, out + err
    assert second.returncode == 2 and "in use by another run" in second.stderr, second.stdout + second.stderr
    assert second.stderr.count("\n") == 1  # one sentence, no traceback
    done = run_tool(str(tmp_path), NAME, "--db-url", url, "--summary")
    assert done.returncode == 0 and "graded 2 of 2 submissions" in done.stdout and "FAILED" not in done.stdout
    assert re.search(r"^  bo +\d+ / 7$", done.stdout, re.MULTILINE), done.stdout  # a score now, not "not graded"
    logs = sorted(p.name for p in (tmp_path / "grading-logs" / NAME).glob("*.log"))
    assert logs == ["ada.log", "bo.log"] and "Autograding" in (tmp_path / "grading-logs" / NAME / "bo.log").read_text()


@pytest.mark.parametrize("url, words", [
    ("postgres://grader@localhost/x", "postgresql:// instead"),
    ("sqlite:///gradebook.db", "one writer at a time"),
    ("not a url", "not a database URL"),
    ("postgresql+psycopg2://nobody@127.0.0.1:1/none", "cannot open the gradebook at"),
])
def test_a_gradebook_url_the_workers_cannot_share_gets_one_sentence(tmp_path, url, words):
    ran = run_tool(str(tmp_path), NAME, "--db-url", url)
    assert ran.returncode == 2 and ran.stdout == "" and words in ran.stderr, ran.stderr
    assert ran.stderr.startswith("error: --db-url: expected postgresql+psycopg2://") or "cannot open" in ran.stderr
    assert ran.stderr.count("\n") == 1 and "Traceback" not in ran.stderr


@pytest.mark.parametrize("log, reason", [
    ("[INFO] Sanitizing\n[ERROR] Traceback (most recent call last):\n  File \"x.py\", line 1\n"
     "ValueError: this notebook is of another assignment\n[ERROR] There was an error processing",
     "ValueError: this notebook is of another assignment"),
    ("[ERROR] Notebook JSON is invalid: 'cells' is a required property\n", "Notebook JSON is invalid: 'cells' is a "
                                                                             "required property"),
])
def test_a_failures_reason_is_nbgraders_own_words_never_a_traceback_header(log, reason):
    assert parallel.failure_reason({"log": log, "error": "Traceback (most recent call last):\n  ...\nOSError: x"}) \
        == reason


@pytest.mark.parametrize("share, words", [("3", "K/N"), ("0/2", "1 <= K <= N"), ("3/2", "K=3, N=2"),
                                          ("a/b", "whole numbers")])
def test_a_share_that_is_not_k_of_n_is_refused(share, words):
    with pytest.raises(parallel.GradingError, match="--share") as refused:
        parallel.parse_share(share)
    assert words in str(refused.value)


def test_a_student_without_a_submission_is_refused_by_name(tmp_path):
    course.write_course(tmp_path, [NAME])
    hand_in(tmp_path, "ada", NAME, {}, released=tmp_path / "source" / NAME / f"{NAME}.ipynb")
    with pytest.raises(parallel.GradingError, match="--students: no submission .* for eve, zed"):
        parallel.submitted_students(tmp_path, [NAME], ["ada", "zed", "eve"])
    assert parallel.submitted_students(tmp_path, [NAME], ["ada"]) == [(NAME, "ada")]
