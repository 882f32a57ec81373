"""Shown = graded, through nbgrader's command line, on notebook 02 in a course with per-student numbers: five
students in each way in answer right on the numbers their notebook shows them, and autograde's scores equal the
scores predicted from what each notebook showed.

The ways in:
- the common release through nbgrader's exchange (release_assignment, fetch_assignment, submit, collect), run on a
  hub: the kernel knows its user (``JUPYTERHUB_USER``), so the statements show that student's numbers;
- the per-student release (``tools/nbgrader_course.py --per-student``): its statements show the student's numbers
  before anything is run;
- the browser edition's download and a laptop's nbformat 4.4 copy of the course's own notebook: the learner states
  their course id once (``set_student_id``), and the statements then show their numbers.

Among them a copier (answers copied from a classmate, on the copier's own statements) and a learner who never gave
their id (the notebook's numbers): the summary (tools/nbgrader_shown.py) names the second and nobody else, and the
predicted table holds for both. Each learner's kernel is run for real (one kernel per way in, each student in turn,
as each would in their own): what a statement shows is read off the outputs a kernel wrote.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbgrader.api import Gradebook

from attn_lib.exercises._problem_book import PREDICTIONS, student_seed

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import nbgrader_course as course  # noqa: E402  (tools/nbgrader_course.py)
import nbgrader_release as release  # noqa: E402  (tools/nbgrader_release.py)
import nbgrader_shown  # noqa: E402  (tools/nbgrader_shown.py)
from nbgrader_hand_ins import (answer_names, answer_value, course_notebook, released_course,  # noqa: E402
                               saved_by_laptop, saved_by_lite, shown_statements, submit)
from nbgrader_run import grading_env, run_nbgrader, solutions  # noqa: E402  (tools/nbgrader_run.py)
from problems import statement_id  # noqa: E402  (tools/problems.py)

NAME = "02-scores"
COURSE_ID = "attn"
WAYS_IN = {  # five students each; the copier copies the first of their group, the last of "lite" gives no id
    "exchange": ("ada", "bo", "cy", "dee", "eve"),
    "per-student": ("fay", "gus", "hal", "ian", "jo"),
    "lite": ("kim", "lee", "max", "ned", "oli"),
    "laptop": ("pat", "quin", "ray", "sam", "tia"),
}
COPIER, COPIED = "eve", "ada"
NO_ID = "oli"


def statements_shown(nb) -> dict[str, int]:
    """Problem id -> the seed its statement cell shows (read off the output's metadata); none for a cell not run."""
    return {pid: shown["about"]["seed"] for pid, shown in shown_statements(nb).items()}


def run_learners(nb, students, set_up, folder: Path, env: dict) -> dict[str, dict]:
    """Run ``nb``'s setup cell once, then for each student ``set_up(student)`` (the code that student's kernel runs
    first) and every statement cell, in one kernel: student -> the statement cells' outputs, by problem id."""
    setup = nb.cells[release.setup_cell(nb)].source
    cells = [nbformat.v4.new_code_cell(setup)]
    order = []
    for student in students:
        cells.append(nbformat.v4.new_code_cell(set_up(student)))
        for cell in nb.cells:
            if cell.cell_type == "code" and statement_id(cell):
                cells.append(nbformat.v4.new_code_cell(cell.source))
                order.append((student, statement_id(cell), len(cells) - 1))
    runner = nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3",
                                                                           "display_name": "Python 3",
                                                                           "language": "python"}})
    folder.mkdir(parents=True, exist_ok=True)
    NotebookClient(runner, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(folder)}}).execute(env=env)
    shown: dict[str, dict] = {s: {} for s in students}
    for student, pid, index in order:
        shown[student][pid] = runner.cells[index].outputs
    return shown


def with_outputs(nb, outputs: dict[str, list]):
    """``nb`` with each statement cell given the outputs its learner's kernel wrote."""
    for cell in nb.cells:
        if cell.cell_type == "code" and statement_id(cell):
            cell.outputs = outputs[statement_id(cell)]
    return nb


def answers_for(shown: dict[str, int], answer_ids: dict[str, str], right: dict[str, str]) -> dict[str, str]:
    """Answer cell sources by grade id: each prediction answered right on the numbers its statement showed."""
    names = answer_names(NAME)
    return {**right, **{grade_id: f"{names[pid]} = {answer_value(pid, shown[pid])!r}"
                        for grade_id, pid in answer_ids.items()}}


def answer(nb, answered: dict[str, int], answer_ids: dict[str, str], right: dict[str, str]):
    """``nb`` with each answer cell written as :func:`answers_for` gives it."""
    sources = answers_for(answered, answer_ids, right)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in answer_ids:
            cell.source = sources[grade_id]
    return nb


def judged_right(pid: str, answered_seed: int, graded_seed: int) -> bool:
    return PREDICTIONS[pid].variant(graded_seed).check(answer_value(pid, answered_seed)).passed


@pytest.fixture(scope="module")
def round_(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("shown-graded")
    root = released_course(tmp / "course", NAME, student_numbers=True)
    source = nbformat.read(root / "source" / NAME / f"{NAME}.ipynb", as_version=4)
    _, graded = course.assignment(NAME, set(course.course_notebooks()))
    answer_ids = {g.grade_id.replace("-check", "-answer"): g.problem_id for g in graded if g.problem_id}
    right = solutions(source)  # the function problems' answers: the solutions'
    exchange = [f"--Exchange.root={tmp / 'exchange'}", f"--course={COURSE_ID}"]
    (tmp / "exchange").mkdir()
    env = {**os.environ, **grading_env()}
    env.pop("ATTN_COURSE_STUDENT", None)
    env["ATTN_COURSE_RECORD"] = str(tmp / "learners" / "attn-course-record.json")
    shown: dict[str, dict[str, int]] = {}
    answered: dict[str, dict[str, int]] = {}

    # 1. The common release through the exchange, on a hub: each student fetches, runs, answers, submits.
    run_nbgrader(root, "release_assignment", NAME, *exchange)
    group = WAYS_IN["exchange"]
    for student in group:
        home = tmp / "home" / student
        home.mkdir(parents=True)
        run_nbgrader(home, "fetch_assignment", NAME, *exchange, f"--Exchange.cache={tmp / 'cache'}")
    fetched = nbformat.read(tmp / "home" / group[0] / NAME / f"{NAME}.ipynb", as_version=4)
    outputs = run_learners(fetched, group, lambda s: f"import os\nos.environ['JUPYTERHUB_USER'] = {s!r}",
                           tmp / "home", env)
    for student in group:
        path = tmp / "home" / student / NAME / f"{NAME}.ipynb"
        nb = with_outputs(nbformat.read(path, as_version=4), outputs[student])
        shown[student] = statements_shown(nb)
        answered[student] = shown[COPIED if student == COPIER else student]
        nbformat.write(answer(nb, answered[student], answer_ids, right), path)
        run_nbgrader(tmp / "home" / student, "submit", NAME, *exchange, f"--Exchange.cache={tmp / 'cache'}",
                     f"--student={student}")
    run_nbgrader(root, "collect", NAME, *exchange)

    # 2. The per-student release: written by the tool, its statements filled before anything runs.
    group = WAYS_IN["per-student"]
    course.write_per_student(root, [NAME], list(group))
    for student in group:
        nb = nbformat.read(root / course.PER_STUDENT_FOLDER / student / NAME / f"{NAME}.ipynb", as_version=4)
        shown[student] = answered[student] = statements_shown(nb)
        folder = root / "submitted" / student / NAME
        folder.mkdir(parents=True)
        nbformat.write(answer(nb, answered[student], answer_ids, right), folder / f"{NAME}.ipynb")
        (folder / "timestamp.txt").write_text("2026-01-01 12:00:00.000000 UTC", encoding="utf-8")

    # 3 and 4. The course's own notebook, in the browser edition and on a laptop: the learner states their id once.
    own = nbformat.read(course.NOTEBOOKS / f"{NAME}.ipynb", as_version=4)
    for way, save in (("lite", saved_by_lite), ("laptop", saved_by_laptop)):
        group = WAYS_IN[way]
        outputs = run_learners(
            own, group, lambda s: ("from attn_lib.exercises import set_student_id\n"
                                   + (f"set_student_id({s!r})" if s != NO_ID else "set_student_id(None)")),
            tmp / way, env)
        for student in group:
            shown[student] = answered[student] = {pid: outs[0]["metadata"]["attn_course"]["seed"]
                                                  for pid, outs in outputs[student].items()}
            nb = course_notebook(NAME, answers_for(answered[student], answer_ids, right), None, None)
            for cell in nb["cells"]:
                pid = statement_id(nbformat.from_dict({**cell, "source": "".join(cell["source"])}))
                if pid:
                    cell["outputs"] = json.loads(json.dumps(outputs[student][pid]))
            submit(root, student, NAME, save(nb))

    log = run_nbgrader(root, "autograde", NAME, "--force")
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        actual = {s: {g.name: g.score for g in gradebook.find_submission_notebook(NAME, NAME, s).grades}
                  for group in WAYS_IN.values() for s in group}
    return dict(root=root, shown=shown, answered=answered, actual=actual, answer_ids=answer_ids, log=log)


def test_every_way_in_shows_each_student_their_own_numbers_once_they_are_known(round_):
    shown = round_["shown"]
    problems = sorted(round_["answer_ids"].values())
    assert len(problems) == len([p for p in PREDICTIONS.values() if p.id.startswith("02-") and p.has_variants])
    for group in WAYS_IN.values():
        assert len(group) >= 5
        for student in group:
            expected = 0 if student == NO_ID else student_seed(student, NAME)
            assert shown[student] == {pid: expected for pid in problems}, student


def test_autograde_scores_equal_the_scores_predicted_from_what_each_notebook_showed(round_):
    predicted, actual = {}, {}
    for group in WAYS_IN.values():
        for student in group:
            own = student_seed(student, NAME)
            predicted[student] = {grade_id.replace("-answer", "-check"):
                                  float(judged_right(pid, round_["answered"][student][pid], own))
                                  for grade_id, pid in round_["answer_ids"].items()}
            actual[student] = {g: round_["actual"][student][g] for g in predicted[student]}
    assert actual == predicted
    full = len(round_["answer_ids"])
    honest = [s for group in WAYS_IN.values() for s in group if s not in (COPIER, NO_ID)]
    assert all(sum(actual[s].values()) == full for s in honest)  # right on the numbers shown: every point
    assert sum(actual[COPIER].values()) < full and sum(actual[NO_ID].values()) < full  # both lose what differs


def test_the_summary_names_the_learner_who_never_gave_an_id_and_nobody_else(round_):
    lines = nbgrader_shown.shown_numbers(round_["root"])
    assert [line.split()[0] for line in lines] == [NO_ID], lines
    assert "shows the course's numbers" in lines[0] and "set_student_id" in lines[0]


def test_honest_submissions_from_every_way_in_log_no_changed_cell(round_):
    assert "has changed" not in round_["log"], round_["log"][-3000:]
