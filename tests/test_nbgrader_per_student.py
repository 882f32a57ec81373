"""Per-student numbers in the nbgrader edition, through nbgrader's own command line: three students of notebook 02
(every prediction of 02, all with variants) get their own released notebooks, hand them in, and are autograded on the
numbers each saw."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from attn_lib.exercises._problem_book import PREDICTIONS, student_seed

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import nbgrader_course as course  # noqa: E402  (tools/nbgrader_course.py)
from nbgrader_run import hand_in, run_nbgrader  # noqa: E402  (tools/nbgrader_run.py)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from nbgrader_hand_ins import shown_statements  # noqa: E402  (tests/nbgrader_hand_ins.py)

NAME = "02-scores"
STUDENTS = ("ada", "bo", "cy")
PREDICTIONS_02 = [pid for pid in PREDICTIONS if pid.startswith(f"{NAME[:2]}-")]  # the problem book's, not a count


def expected(problem_id: str, seed: int) -> float:
    """The answer of one variant, as its judge expects it."""
    prediction = PREDICTIONS[problem_id]
    return prediction.expected(prediction.numbers(seed))[0]


def ids_of(nb) -> dict[str, str]:
    """grade_id of each prediction's answer cell -> its problem id, read off the checker cells."""
    found, cells = {}, nb.cells
    for answer, check in zip(cells, cells[1:]):
        match = re.search(r'check\("(\d\d-P\d+)", answers?\)', check.source)
        grade_id = answer.metadata.get("nbgrader", {}).get("grade_id", "")
        if match and grade_id.endswith("-answer"):
            found[grade_id] = match.group(1)
    return found


@pytest.fixture(scope="module")
def per_student(tmp_path_factory):
    root = tmp_path_factory.mktemp("per-student")
    course.write_course(root, [NAME], student_numbers=True)
    run_nbgrader(root, "generate_assignment", NAME, "--force")
    command = [sys.executable, str(ROOT / "tools" / "nbgrader_course.py"), str(root), "--only", "02",
               "--per-student", *STUDENTS]  # the course above was written as --student-numbers writes it
    printed = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    released = {s: nbformat.read(root / course.PER_STUDENT_FOLDER / s / NAME / f"{NAME}.ipynb", as_version=4)
                for s in STUDENTS}
    problems = ids_of(released["ada"])
    seeds = {s: student_seed(s, NAME) for s in STUDENTS}
    right = {s: {g: f"answer = {expected(pid, seeds[s])!r}" for g, pid in problems.items()} for s in STUDENTS}
    # bo answers with ada's numbers, and edits his setup cell to name ada; cy gets one problem wrong on purpose (one
    # more than the answer).
    wrong_one = next(iter(problems))
    setup = next(c for c in released["bo"].cells if "use_student_numbers(" in c.source)
    answers = {"ada": right["ada"],
               "bo": {**right["ada"], setup.metadata.nbgrader.grade_id: setup.source.replace("'bo'", "'ada'")},
               "cy": {**right["cy"], wrong_one: f"answer = {expected(problems[wrong_one], seeds['cy']) + 1!r}"}}
    for student in STUDENTS:
        hand_in(root, student, NAME, answers[student],
                released=root / course.PER_STUDENT_FOLDER / student / NAME / f"{NAME}.ipynb")
    graded_log = run_nbgrader(root, "autograde", NAME, "--force")
    run_nbgrader(root, "generate_feedback", NAME, "--force")
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        scores = {s: {g.name: g.score for g in gradebook.find_submission_notebook(NAME, NAME, s).grades}
                  for s in STUDENTS}
    return dict(root=root, printed=printed, released=released, problems=problems, seeds=seeds, scores=scores,
                wrong_one=wrong_one, log=graded_log, setup_id=setup.metadata.nbgrader.grade_id)


def test_each_student_is_released_their_own_numbers(per_student):
    released, problems = per_student["released"], per_student["problems"]
    assert len(problems) == len(PREDICTIONS_02) and f"for {len(STUDENTS)} student(s)" in per_student["printed"]
    assert len(set(per_student["seeds"].values())) == len(STUDENTS)
    statements = {}
    for student, nb in released.items():
        text = "\n".join(c.source for c in nb.cells)
        assert f"use_student_numbers({student!r}, {NAME!r})" in text
        shown = shown_statements(nb)  # each statement cell shows the student's numbers before it is run
        seed = per_student["seeds"][student]
        for pid in problems.values():
            assert PREDICTIONS[pid].variant(seed).text in shown[pid]["text"], (student, pid)
            assert shown[pid]["about"] == {"statement_of": pid, "seed": seed, "student": student}
        statements[student] = [shown[pid]["text"] for pid in sorted(shown)]
    assert statements["ada"] != statements["bo"] != statements["cy"]


def run_statements(path: Path, seed: int = 0, student: str | None = None) -> Path:
    """The notebook at ``path`` as a learner's kernel leaves it after running its statement cells: each shows
    variant ``seed`` (0: the notebook's numbers, what a laptop shows a learner who never stated an id)."""
    from attn_lib.exercises._problem_book import statement_output

    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        match = re.fullmatch(r'statement\("(\d\d-P\d+)"\)', cell.source.strip()) if cell.cell_type == "code" else None
        if match:
            data, metadata = statement_output(match.group(1), seed, student)
            cell.outputs = [nbformat.v4.new_output("display_data", data=data, metadata=metadata)]
    out = path.with_name(f"run-{path.name}")
    nbformat.write(nb, out)
    return out


def test_autograde_grades_each_student_on_the_numbers_they_saw(per_student):
    scores, problems = per_student["scores"], per_student["problems"]
    checks = {g.replace("-answer", "-check") for g in problems}
    assert {g for g, score in scores["ada"].items() if score > 0} >= checks
    assert {g for g in checks if scores["cy"][g] == 0} == {per_student["wrong_one"].replace("-answer", "-check")}
    seeds = per_student["seeds"]
    differs = {g.replace("-answer", "-check") for g, pid in problems.items()
               if expected(pid, seeds["ada"]) != expected(pid, seeds["bo"])}
    assert differs and {g for g in checks if scores["bo"][g] == 0} == differs


def test_the_audit_reports_the_copier_per_pair_and_the_problems_that_cannot_tell(per_student):
    import nbgrader_copying  # noqa: PLC0415  (tools/nbgrader_copying.py)

    problems, seeds = per_student["problems"], per_student["seeds"]
    lines = nbgrader_copying.copying(per_student["root"])
    copies = [line for line in lines if "and wrong for" in line]
    expected_lines = []  # bo handed in ada's answers: right for the numbers of each classmate whose answer is ada's
    for classmate in ("ada", "cy"):
        matched = sorted(pid for pid in problems.values() if expected(pid, seeds[classmate]) == expected(pid, seeds["ada"])
                         != expected(pid, seeds["bo"]))
        if matched:
            expected_lines.append((len(matched), f"bo {NAME}: {len(matched)} answer{'s' * (len(matched) != 1)} right "
                                                 f"for {classmate}'s numbers and wrong for bo's own ({', '.join(matched)})"))
    assert copies == [line for _, line in sorted(expected_lines, key=lambda x: -x[0])] and copies[0].count(",") >= 2
    assert not any(line.startswith(("ada ", "cy ")) for line in copies)  # the honest ones are named nowhere
    wrong_pid = problems[per_student["wrong_one"]]
    handed = {pid: {"ada": expected(pid, seeds["ada"]), "bo": expected(pid, seeds["ada"]),
                    "cy": expected(pid, seeds["cy"]) + (1 if pid == wrong_pid else 0)} for pid in problems.values()}
    same = sorted(pid for pid in problems.values()  # an answer right for its student and for a classmate alike
                  if any(handed[pid][s] == expected(pid, seeds[s]) == expected(pid, seeds[t])
                         for s in STUDENTS for t in STUDENTS if s != t))
    assert same == sorted(line.split()[1].rstrip(":") for line in lines if "cannot show copying" in line)
    printed = subprocess.run([sys.executable, str(ROOT / "tools" / "nbgrader_course.py"), str(per_student["root"]),
                              "--audit"], capture_output=True, text=True, check=True).stdout
    assert copies[0] in printed


def test_an_honest_submission_logs_no_changed_cell_and_a_setup_cell_naming_another_student_does(per_student):
    changed = re.findall(r"'checksum' for cell (\S+) has changed", per_student["log"])
    assert changed == [per_student["setup_id"]], per_student["log"][-3000:]  # bo's alone, of three submissions
    student_of_warning = per_student["log"].split("has changed")[0].rsplit("Autograding", 1)[1]
    assert "/bo/" in student_of_warning, student_of_warning


def test_each_students_feedback_gives_the_reason_for_their_own_numbers(per_student):
    root, problems, seeds = per_student["root"], per_student["problems"], per_student["seeds"]
    wrong = per_student["wrong_one"]
    pid = problems[wrong]
    reason = PREDICTIONS[pid].variant(seeds["cy"]).check(expected(pid, seeds["cy"]) + 1).reason
    page = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", (root / "feedback" / "cy" / NAME / f"{NAME}.html")
                                         .read_text(encoding="utf-8"))).split())
    assert " ".join(reason.split()[:8]) in page, reason
    # above each verdict, the statement with the numbers it was graded on: cy's own, whatever the notebook showed
    assert page.count(f"Graded on cy's numbers (variant {seeds['cy']}):") == len(problems), page[:2000]
    words = re.sub(r"[$\\{}]", "", PREDICTIONS[pid].variant(seeds["cy"]).text).split()[:10]
    assert " ".join(words) in re.sub(r"[$\\{}]", "", page), words


def test_no_students_expected_answer_is_in_anothers_feedback(per_student):
    root, problems, seeds = per_student["root"], per_student["problems"], per_student["seeds"]
    for student in ("ada", "cy"):
        page = html.unescape((root / "feedback" / student / NAME / f"{NAME}.html").read_text(encoding="utf-8"))
        for other in set(STUDENTS) - {student, "bo"}:  # bo's own answer cells hold ada's numbers by design
            for pid in problems.values():
                theirs, own = expected(pid, seeds[other]), expected(pid, seeds[student])
                # (the notebook's own answer is printed by the cell that measures it, in every copy)
                if theirs not in (own, expected(pid, 0)) and float(theirs).is_integer() and theirs > 100:
                    # a whole number of the page, not digits inside a longer one ("150" is in "1500")
                    for written in (f"{int(theirs):,}", str(int(theirs))):
                        assert not re.search(rf"(?<![\d,.]){re.escape(written)}(?![\d]|,\d)", page), (
                            student, other, pid)


def test_a_course_written_without_student_numbers_grades_everyone_on_the_notebooks(tmp_path):
    """The per-student step refuses a release that would grade on the notebook's numbers; the shared course's
    autograde (tests/test_nbgrader_course.py) grades the solutions full marks whatever the student's folder."""
    course.write_course(tmp_path, [NAME])
    release = tmp_path / "release" / NAME
    release.mkdir(parents=True)
    (release / f"{NAME}.ipynb").write_text((tmp_path / "source" / NAME / f"{NAME}.ipynb").read_text())
    with pytest.raises(course.CourseError, match="write the course with --student-numbers"):
        course.write_per_student(tmp_path, [NAME], ["ada"])


def test_a_release_that_states_its_problems_in_their_headings_is_refused(tmp_path):
    """A release generated before statement cells (a prediction's statement in its heading cell, which carried the
    problem's id) would show every student the notebook's numbers: the per-student step names its problems."""
    course.write_course(tmp_path, [NAME], student_numbers=True)
    release = tmp_path / "release" / NAME
    release.mkdir(parents=True)
    nb = nbformat.read(tmp_path / "source" / NAME / f"{NAME}.ipynb", as_version=4)
    statement = next(i for i, c in enumerate(nb.cells) if c.metadata.get("attn_course", {}).get("statement_of"))
    pid = nb.cells[statement].metadata.attn_course.statement_of
    nb.cells[statement - 1].metadata["attn_course"] = {"statement_of": pid}  # its heading, in the old shape
    nb.cells[statement - 1].source += "\n\n" + PREDICTIONS[pid].variant(0).text
    del nb.cells[statement]
    nbformat.write(nb, release / f"{NAME}.ipynb")
    with pytest.raises(course.CourseError, match=rf"states {pid} in their headings.*generate the assignment again"):
        course.write_per_student(tmp_path, [NAME], ["ada"])


def test_a_student_id_that_cannot_name_a_folder_is_refused(tmp_path):
    with pytest.raises(course.CourseError, match="cannot name a folder"):
        course.write_per_student(tmp_path, [NAME], ["../eve"])


def test_every_submission_that_shows_other_numbers_than_it_is_graded_on_is_named(per_student, tmp_path):
    """tools/nbgrader_shown.py, on the round above (bo's setup cell names ada) and on hand-ins from the other ways in,
    put beside them in a copy of the course (no autograde needed: it reads what was handed in)."""
    import nbgrader_shown  # noqa: PLC0415  (tools/nbgrader_shown.py)

    root = per_student["root"]
    lines = nbgrader_shown.shown_numbers(root)
    assert len(lines) == 1 and lines[0].startswith(f"bo {NAME}: its setup cell names ada, so its checks judged "
                                                   "ada's numbers") and "graded on them" in lines[0], lines
    copy = tmp_path / "course"
    for folder in ("source", "release", course.PER_STUDENT_FOLDER, "submitted"):
        shutil.copytree(root / folder, copy / folder)
    own = {s: copy / course.PER_STUDENT_FOLDER / s / NAME / f"{NAME}.ipynb" for s in STUDENTS}
    edited = nbformat.read(own["cy"], as_version=4)
    statement = next(c for c in edited.cells if c.metadata.get("attn_course", {}).get("statement_of") == "02-P2")
    shown = statement.outputs[0].data  # what the statement cell shows, edited in the file
    shown["text/markdown"] = re.sub(r"d_k = (\d+)", lambda m: f"d_k = {int(m.group(1)) * 2}", shown["text/markdown"],
                                    count=1)
    nbformat.write(edited, tmp_path / "edited.ipynb")
    common = copy / "release" / NAME / f"{NAME}.ipynb"
    hand_in(copy, "dee", NAME, {}, released=run_statements(common))  # the common release run on a laptop, no id
    hand_in(copy, "ian", NAME, {})  # the common release handed in with its statement cells never run
    hand_in(copy, "eve", NAME, {}, released=own["ada"])  # a classmate's release
    hand_in(copy, "fay", NAME, {}, released=tmp_path / "edited.ipynb")  # cy's release with 02-P2's d_k edited
    hand_in(copy, "gus", NAME, {}, released=ROOT / "notebooks" / f"{NAME}.ipynb")  # the browser edition's download
    hand_in(copy, "hal", NAME, {}, released=ROOT / "notebooks" / "03-scaling.ipynb")  # another notebook
    found = {line.split()[0]: line for line in nbgrader_shown.shown_numbers(copy)}
    assert sorted(found) == ["bo", "dee", "eve", "fay", "gus", "hal", "ian"]
    count = len(PREDICTIONS_02)
    assert f"shows the course's numbers: {count} problems judged on numbers dee was not shown" in found["dee"]
    assert "--only 02 --per-student dee" in found["dee"] and found["gus"].replace("gus", "dee") == found["dee"]
    assert f"shows ada's numbers: {count} problems judged on numbers eve was not shown" in found["eve"]
    # fay was given cy's release and edited one statement: cy's numbers in all but 02-P2, edited numbers there
    others = ", ".join(sorted(set(PREDICTIONS_02) - {"02-P2"}))
    assert f"shows numbers edited by hand (02-P2) and cy's numbers ({others}): {count} problems" in found["fay"]
    assert f"shows no statement (its statement cell never ran): {count} problems judged" in found["ian"]
    assert "the notebook handed in is notebook 03's" in found["hal"] and "hand in 02-scores.ipynb" in found["hal"]
    assert all(line.count("02-scores") >= 1 and "Traceback" not in line for line in found.values())
