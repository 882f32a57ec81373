"""The class at a glance (tools/nbgrader_class.py): on a simulated class of 41 written into nbgrader's gradebook
through its own API (planted scores and mistakes, one submission whose autograde did not finish), the page and the CSV
count every planted mistake exactly, and the share right, difficulty and discrimination agree with numpy's own
computation; on the real autograded round of tests/nbgrader_feedback_round.py, they agree with the answers handed in."""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import nbgrader_class  # noqa: E402  (tools/nbgrader_class.py)
import nbgrader_course as course  # noqa: E402  (tools/nbgrader_course.py)
from nbgrader_run import COURSE_ID, run_nbgrader  # noqa: E402

NAME = "02-scores"
CLASS = 40


def planted(student: int, problem: int) -> str | None:
    """The mistake student ``student`` makes on problem ``problem`` (1-based), or None (right): each problem its
    own rate, two mistakes each, and students 0 to 9 right more often (so the problems discriminate)."""
    turn = (student * 7 + problem * 3) % (problem + 3)
    if student < 10 and turn < 2:
        return None
    return f"slip-{problem}-a" if turn == 0 else f"slip-{problem}-b" if turn == 1 else None


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    from nbgrader.api import Gradebook

    root = tmp_path_factory.mktemp("class")
    course.write_course(root, [NAME])
    run_nbgrader(root, "generate_assignment", NAME, "--force")  # the gradebook's assignment, notebook and cells
    released = nbformat.read(root / "release" / NAME / f"{NAME}.ipynb", as_version=4)
    checks = [c.metadata.nbgrader.grade_id for c in released.cells
              if c.metadata.get("nbgrader", {}).get("grade_id", "").endswith("-check")]
    url = f"sqlite:///{root / 'gradebook.db'}"
    students = [f"s{i:02d}" for i in range(CLASS)] + ["unfinished"]
    points = {}
    with Gradebook(url, COURSE_ID) as gradebook:
        for student in students:
            gradebook.add_student(student)
            gradebook.add_submission(NAME, student)
            nb = nbformat.v4.new_notebook()
            for k, check in enumerate(checks, 1):
                grade = gradebook.find_grade(check, NAME, NAME, student)
                points[check] = grade.max_score
                cell = nbformat.v4.new_code_cell("", metadata={"nbgrader": {"grade_id": check, "grade": True}})
                if student != "unfinished":  # its autograde stopped before any score
                    mistake = planted(int(student[1:]), k)
                    grade.auto_score, grade.needs_manual_grade = (0.0 if mistake else grade.max_score), False
                    if mistake:
                        cell.outputs = [nbformat.v4.new_output(
                            "error", ename="CheckFailed", evalue=f"Not yet: because.\n(mistake id: {mistake})",
                            traceback=[f"Not yet: the reason of {mistake}.", "Hint: a hint."])]
                nb.cells.append(cell)
            folder = root / "autograded" / student / NAME
            folder.mkdir(parents=True)
            nbformat.write(nb, folder / f"{NAME}.ipynb")
        gradebook.db.commit()
    html_path, csv_path = nbgrader_class.write(root, [NAME], url, root / "class")
    with open(csv_path, encoding="utf-8") as stream:
        table = {row["problem"]: row for row in csv.DictReader(stream)}
    return dict(checks=checks, points=points, table=table, page=html_path.read_text(encoding="utf-8"))


def test_the_class_is_simulated_with_enough_students_and_problems(simulated):
    assert CLASS >= 40 and len(simulated["checks"]) >= 5


def test_every_planted_mistake_is_counted_exactly(simulated):
    for k, check in enumerate(simulated["checks"], 1):
        row = simulated["table"][check.removesuffix("-check")]
        made = [planted(i, k) for i in range(CLASS)]
        counts = {m: made.count(m) for m in set(made) - {None}}
        written = dict(part.split(": ") for part in row["mistakes"].split("; ")) if row["mistakes"] else {}
        assert {m: int(n) for m, n in written.items()} == counts, check
        assert int(row["right"]) == made.count(None) and int(row["students"]) == CLASS
        for mistake, count in counts.items():
            assert f"<b>{mistake}</b>, {count} student" in simulated["page"]
            assert f"the reason of {mistake}." in simulated["page"]


def test_share_right_difficulty_and_discrimination_agree_with_numpy(simulated):
    checks, points = simulated["checks"], simulated["points"]
    right = np.array([[planted(i, k) is None for k in range(1, len(checks) + 1)] for i in range(CLASS)])
    scores = right * np.array([points[c] for c in checks])
    for k, check in enumerate(checks):
        row = simulated["table"][check.removesuffix("-check")]
        assert float(row["share_right"]) == pytest.approx(right[:, k].mean(), abs=5e-4)
        assert float(row["difficulty"]) == pytest.approx(scores[:, k].mean() / points[check], abs=5e-4)
        rest = scores.sum(axis=1) - scores[:, k]
        if right[:, k].all() or not right[:, k].any():
            assert row["discrimination"] == "n/a"
        else:  # the point-biserial correlation is Pearson's r with a 0/1 variable
            assert float(row["discrimination"]) == pytest.approx(np.corrcoef(right[:, k], rest)[0, 1], abs=5e-4)


def test_a_submission_whose_autograde_did_not_finish_is_named_and_not_counted(simulated):
    page = simulated["page"]
    assert "unfinished 02-scores: autograde did not finish" in page
    assert all(int(row["students"]) == CLASS for row in simulated["table"].values())


def test_the_page_is_one_static_accessible_file(simulated):
    page = simulated["page"]
    assert '<html lang="en">' in page and "<script" not in page.lower() and "<link" not in page.lower()
    assert not re.search(r"(?:src|href)=[\"']?(?:https?:)?//", page)
    assert page.count("<caption>") == 1 and 'scope="col"' in page and 'scope="row"' in page


def test_on_a_real_round_the_page_agrees_with_the_answers_handed_in(tmp_path_factory, tmp_path):
    sys.path.insert(0, str(ROOT / "tests"))
    from nbgrader_feedback_round import STUDENTS, feedback_round

    done = feedback_round(tmp_path_factory)
    _, csv_path = nbgrader_class.write(done.root, [NAME], f"sqlite:///{done.root / 'gradebook.db'}", tmp_path)
    with open(csv_path, encoding="utf-8") as stream:
        table = {row["problem"]: row for row in csv.DictReader(stream)}
    assert set(table) == {check.removesuffix("-check") for check in done.kinds}
    for check, kind in done.kinds.items():  # ada's answer of each kind; bo answers everything right
        row = table[check.removesuffix("-check")]
        assert (int(row["students"]), int(row["right"])) == (len(STUDENTS), 2 if kind == "right" else 1), check
        if kind == "untouched":
            assert row["mistakes"] == "not-answered: 1", row
        elif kind == "wrong":
            assert row["mistakes"].endswith(": 1") and "not-answered" not in row["mistakes"], row
        else:
            assert row["mistakes"] == ""
