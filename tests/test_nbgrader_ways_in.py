"""A course notebook handed in from every way in is graded by nbgrader's own command line as the release is.

The ways in (the browser edition, Binder or a hub, a laptop: tests/nbgrader_hand_ins.py) change only what the file
carries around the code cells: metadata, cell ids, an output on stderr. nbgrader's autograde first sanitizes a
submission (the course's ``sanitize_preprocessors``: tools/nbgrader_ways_in.py's step that gives a notebook from
another way in the release's ids, then nbgrader's ClearOutput, DeduplicateIds, OverwriteKernelspec,
OverwriteCells, CheckCellMetadata), then executes what it sanitized, reading only the cells' kinds, sources,
nbgrader metadata and tags and the notebook's kernelspec. So:

- every assignment (00 to 10), handed in every way it can be (``WAYS``, the browser edition only where it runs) and
  three ways each (right, untouched, changed), goes through autograde's sanitizing steps alone, in one copy of the
  run's released course, and each way in's sanitized notebook must be the release's in everything execution reads;
  another notebook handed in under an assignment's name is refused with words; --audit reads each way in as the
  release;
- one light assignment (``LIGHT``) is graded with execution from every way in, right, untouched and changed, and on
  a student's own numbers: the same scores and the same words as the release.

benchmarks/ways_in_course.py grades every assignment with execution, from every way in (about 20 minutes).
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import nbformat
import pytest

from attn_lib.exercises._problem_book import PREDICTIONS, student_seed

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tests"))
import nbgrader_audit  # noqa: E402  (tools/nbgrader_audit.py)
import nbgrader_course as course  # noqa: E402  (tools/nbgrader_course.py)
import nbgrader_release as release  # noqa: E402  (tools/nbgrader_release.py)
import nbgrader_ways_in as ways_in  # noqa: E402  (tools/nbgrader_ways_in.py)
from tests.artefacts import copy_of, released_course  # noqa: E402
from nbgrader_hand_ins import (CASES, INSERTED, NAMES, WAYS, answer_value, as_notebook, course_notebook,  # noqa: E402
                               graded, hand_in_another_notebook, hand_in_every_way, points, sanitize, ways_for)

# The assignment graded with execution from every way in: short to run, with a function problem, predictions with
# variants and a choice, and in the browser edition.
LIGHT = "05-weighted-average"


# --- every assignment, every way in, through autograde's sanitizing steps ----------------------------------------------

@pytest.fixture
def sanitized(tmp_path_factory, request):
    """Assignment ``name`` handed in every way, and another notebook under its name (student ``stranger``), each
    through autograde's sanitizing steps (tests/nbgrader_hand_ins.py's sanitize): per student, the sanitized notebook,
    or the error that refused it; the audit's lines; the cells the changed hand-in loses. Made once per assignment,
    in a copy of the run's released course (tests/artefacts.py) of its own."""
    name = request.node.callspec.params["name"]
    made = SANITIZED.get(name)
    if made is None:
        root = copy_of(released_course(tmp_path_factory), tmp_path_factory.mktemp(f"ways-in-{name}") / "course")
        students, plan = hand_in_every_way(root, name)
        hand_in_another_notebook(root, name)
        notebooks = {}
        for student in [*students, "stranger"]:
            try:
                notebooks[student] = sanitize(root, student, name)
            except Exception as error:  # noqa: BLE001 (kept, and asserted on, by the tests)
                notebooks[student] = error
        audit = nbgrader_audit.audit(root)
        made = SANITIZED[name] = dict(notebooks=notebooks, audit=audit, lost=plan["lost"])
    return made


SANITIZED: dict[str, dict] = {}


def what_execution_reads(nb) -> dict:
    """Of a sanitized submission, all that autograde's execution and scoring read: the kernelspec, and each cell's
    kind, source (but the blank end of a line or of the cell, which Python does not read: a released answer cell
    ends where nbgrader cut its solution), nbgrader metadata (but the copy of the cell's kind nbgrader keeps there
    to notice a changed kind), tags, outputs and execution count."""
    def grading(cell):
        return {k: v for k, v in cell.metadata.get("nbgrader", {}).items() if k != "cell_type"} or None

    return {"kernelspec": nb.metadata.get("kernelspec"),
            "cells": [(c.cell_type, "\n".join(line.rstrip() for line in c.source.rstrip().splitlines()), grading(c),
                       c.metadata.get("tags"), c.get("outputs"),
                       c.get("execution_count")) for c in nb.cells]}


@pytest.mark.parametrize("name", NAMES)
def test_every_way_in_reaches_execution_as_the_release_does(sanitized, name):
    notebooks = sanitized["notebooks"]
    for case in CASES:
        release = what_execution_reads(notebooks[f"release-{case}"])
        assert release["cells"] and release["kernelspec"], (case, "the release's hand-in was not sanitized")
        for way in ways_for(name):
            assert what_execution_reads(notebooks[f"{way}-{case}"]) == release, (way, case)


@pytest.mark.parametrize("name", NAMES)
def test_the_changed_hand_in_keeps_every_checker_and_the_learners_cell_in_every_way_in(sanitized, name):
    """The first prediction's answer changed, a cell inserted after it and the last problem's answer cell deleted:
    the sanitized release keeps both problems' checker cells and the inserted cell, and so does every way in."""
    for student in ["release-changed", *(f"{way}-changed" for way in ways_for(name))]:
        cells = sanitized["notebooks"][student].cells
        ids = {c.metadata.get("nbgrader", {}).get("grade_id") for c in cells}
        assert set(sanitized["lost"]) <= ids, student
        assert INSERTED in [c.source for c in cells], student


@pytest.mark.parametrize("name", NAMES)
def test_another_notebook_handed_in_is_refused_with_words_not_a_key_error(sanitized, name):
    refused = sanitized["notebooks"]["stranger"]
    assert isinstance(refused, ways_in.HandInError), refused
    assert f"is not the course's {name} notebook" in str(refused)
    assert "have neither their answer cell nor their checker cell" in str(refused)


@pytest.mark.parametrize("name", NAMES)
def test_the_audit_reads_a_notebook_from_every_way_in_as_the_release(sanitized, name):
    """--audit lists the same learner-written cells of a way in's notebook as of the release with the same answers
    (not every checker cell of a notebook without nbgrader ids), and says why it cannot read another notebook."""
    lines = sanitized["audit"]

    def of(student):
        return [line.split(" ", 2)[2] for line in lines if line.split(" ", 1)[0] == student]

    for case in CASES:
        for way in ways_for(name):
            assert of(f"{way}-{case}") == of(f"release-{case}"), (way, case)
    assert [line for line in lines if line.startswith(f"stranger {name}: not graded") and "is not the course's" in line]


# --- one light assignment graded with execution, from every way in -------------------------------------------------

@pytest.fixture(scope="module")
def light(tmp_path_factory):
    return graded(tmp_path_factory.mktemp("ways-in-light"), LIGHT)


def test_right_answers_from_every_way_in_score_full_marks_as_the_release_does(light):
    release = light["scores"]["release-right"]
    assert release and all(score == possible > 0 for score, possible in release.values()), release
    for way in ways_for(LIGHT):
        assert light["scores"][f"{way}-right"] == release, way


def test_an_untouched_notebook_from_every_way_in_scores_nothing_as_the_release_does(light):
    assert all(score == 0 for score, _ in light["scores"]["release-untouched"].values())
    for way in ways_for(LIGHT):
        assert light["scores"][f"{way}-untouched"] == light["scores"]["release-untouched"], way


def test_a_wrong_answer_an_inserted_cell_and_a_deleted_answer_cost_what_they_cost_the_release(light):
    release = light["scores"]["release-changed"]
    assert {g for g, (score, possible) in release.items() if score < possible} == light["lost"], release
    for way in ways_for(LIGHT):
        assert light["scores"][f"{way}-changed"] == release, way


def test_every_checker_cell_gives_the_releases_words(light):
    for case in CASES:
        release = light["outputs"][f"release-{case}"]
        assert release and all(release.values()), (case, "a checker cell printed nothing")
        for way in ways_for(LIGHT):
            assert light["outputs"][f"{way}-{case}"] == release, (way, case)


def test_another_notebook_handed_in_and_graded_is_refused_with_words(light):
    assert "is not the course's" in light["refused"] and "KeyError" not in light["refused"]


def test_with_student_numbers_every_way_in_is_graded_on_the_students_own_numbers(light):
    assert set(light["own_numbers"]) == set(ways_for(LIGHT)) == set(WAYS), "LIGHT must be in the browser edition"
    for way, own in light["own_numbers"].items():
        assert own["differ"] > 0, (way, "the student's numbers coincide with the notebook's: this proves nothing")
        assert all(score == possible > 0 for score, possible in own["scores"].values()), (way, own)


def test_the_hand_in_table(light):
    """Way in x case -> points for the light assignment, beside the release's (printed; run with -s to see it)."""
    rows = ["| case | release | " + " | ".join(WAYS) + " |", "|---|---|" + "---|" * len(WAYS)]
    for case in CASES:
        release = points(light["scores"][f"release-{case}"])
        rows.append(f"| {case} | {release[0]:g} / {release[1]:g} | " + " | ".join(
            f"{points(light['scores'][f'{way}-{case}'])[0]:g}" for way in WAYS) + " |")
    rows.append("| own numbers | | " + " | ".join(
        f"{points(light['own_numbers'][way]['scores'])[0]:g}" for way in WAYS) + " |")
    print(f"\n{LIGHT}\n" + "\n".join(rows))
    assert len(rows) == 2 + len(CASES) + 1


# --- the preprocessor alone -----------------------------------------------------------------------------------------

def test_a_notebook_with_nbgrader_metadata_passes_unchanged():
    name = NAMES[0]
    released, _ = course.assignment(name, set(NAMES))  # the source notebook: every cell has nbgrader metadata
    released.cells.insert(2, nbformat.v4.new_code_cell(INSERTED))  # a learner's cell, without metadata
    before = copy.deepcopy(released)
    step = ways_in.GiveReleaseMetadata()
    after, _ = step.preprocess(released, {"nbgrader": {"notebook": name, "assignment": name, "student": "s",
                                                       "db_url": "sqlite://"}})
    assert after == before


def given_ids(name: str, nb) -> list:
    """The grade id given to each cell of the handed-in ``nb`` (None: the learner's own)."""
    source, _ = course.assignment(name, set(NAMES))
    ways_in.give_release_metadata(nb, source, name, set(NAMES))
    return [release.grading(c).get("grade_id") for c in nb.cells]


def test_an_inserted_cell_stays_the_learners_and_a_deleted_answer_cell_is_missing_only_itself():
    name = "06-masking"
    nb = as_notebook(course_notebook(name, {}, inserted="problem-1-answer", deleted="problem-2-answer"))
    ids = given_ids(name, nb)
    at = ids.index("problem-1-answer")
    assert ids[at + 1] is None and nb.cells[at + 1].source == INSERTED and ids[at + 2] == "problem-1-check"
    assert "problem-2-answer" not in ids and "problem-2-check" in ids
    assert ids.count(None) == 1


def test_a_locked_cell_the_learner_edited_is_found_in_its_place():
    name = "05-weighted-average"
    nb = nbformat.read(course.NOTEBOOKS / f"{name}.ipynb", as_version=4)
    setup = release.setup_cell(nb)
    nb.cells[setup].source += '\nuse_student_numbers("ada", "05-weighted-average")'
    demo = next(i for i, c in enumerate(nb.cells) if i > setup + 1 and c.cell_type == "code"
                and not course.course_problems.is_problem_heading(nb.cells[i - 1])  # not an answer cell
                and not ways_in.as_released(c, set(NAMES)).startswith("from importlib"))  # not a checker
    nb.cells[demo].source = "print('my own version')"
    ids = given_ids(name, nb)
    assert ids[setup] == f"cell-{setup:03d}" and ids[demo] == f"cell-{demo:03d}" and None not in ids


def test_another_notebook_is_refused_naming_the_problems_it_lacks():
    nb = nbformat.read(course.NOTEBOOKS / "05-weighted-average.ipynb", as_version=4)
    count = len(course.assignment("06-masking", set(NAMES))[1])
    with pytest.raises(ways_in.HandInError, match=rf"not the course's 06-masking notebook: {count} of its {count} "
                                                  rf"problem\(s\) \(problem-1, problem-2, .*problem-{count}\) have "
                                                  "neither their answer cell nor their checker cell"):
        given_ids("06-masking", nb)


def test_every_cell_of_an_untouched_course_notebook_is_recognised():
    stems = set(NAMES)
    for name in NAMES:
        source, _ = course.assignment(name, stems)
        nb = nbformat.read(course.NOTEBOOKS / f"{name}.ipynb", as_version=4)
        given = ways_in.give_release_metadata(nb, source, name, stems)
        assert given == [release.grading(c)["grade_id"] for c in source.cells], name


def test_the_answers_this_module_writes_are_judged_as_meant():
    """Its right answers pass and its wrong ones fail, on the notebook's numbers and on a student's."""
    from attn_lib.exercises import check

    for problem_id, prediction in PREDICTIONS.items():
        own = [student_seed(f"{way}-own-numbers", problem_id[:2]) for way in WAYS] if prediction.has_variants else []
        for seed in (0, *own):
            assert check(problem_id, answer_value(problem_id, seed), seed=seed).passed, (problem_id, seed)
            assert not check(problem_id, answer_value(problem_id, seed, wrong=True), seed=seed).passed
