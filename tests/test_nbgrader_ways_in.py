"""A course notebook handed in from every way in is autograded by nbgrader's own command line as the release is.

For every assignment (00 to 10) one course folder holds, as students of one ``nbgrader autograde``, the release and
the course notebook as each way in saves it (``WAYS``: the browser edition, Binder or a hub, a laptop), each handed
in three ways: with the right answers (the solutions'), untouched, and changed (the first prediction answered wrong,
a cell inserted after its answer cell, the last problem's answer cell deleted). Each way in must score, problem by
problem, what the release scores with the same hand-in, and its checker cells must print the same words. A second
course, written ``--student-numbers``, grades one course notebook from a way in per assignment, answered right on
the student's own numbers. Each assignment has its own course folders, so ``-k 05-weighted`` runs one alone.
``python -m pytest tests/test_nbgrader_ways_in.py -q -s`` prints the hand-in table (way in x assignment -> points,
beside the release's). The whole module took 13.5 minutes on two cores at load 1 to 3 (31 at load 4 to 9); 09 is a
quarter of it.
"""

from __future__ import annotations

import ast
import copy
import json
import sys
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from attn_lib.exercises._problem_book import PREDICTIONS, student_seed

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import nav  # noqa: E402  (tools/nav.py)
import nbgrader_audit  # noqa: E402  (tools/nbgrader_audit.py)
import nbgrader_course as course  # noqa: E402  (tools/nbgrader_course.py)
import nbgrader_release as release  # noqa: E402  (tools/nbgrader_release.py)
import nbgrader_ways_in as ways_in  # noqa: E402  (tools/nbgrader_ways_in.py)
from nbgrader_run import hand_in, run_nbgrader, solutions  # noqa: E402  (tools/nbgrader_run.py)

NAMES = course.course_notebooks()
CASES = ("right", "untouched", "changed")
INSERTED = 'my_note = "worked this one out on paper first"\nprint(my_note)'


# --- each way in, as it saves the repository notebook ---------------------------------------------------------------

def as_notebook(nb: dict):
    """A notebook's JSON as nbformat reads it."""
    return nbformat.reads(json.dumps(nb), as_version=4)


def saved_by_lite(nb: dict) -> dict:
    """The browser edition (tools/build_lite.py copies notebooks/NN-*.ipynb into the site as committed; JupyterLite 0.6,
    JupyterLab 4.4, the Pyodide kernel): the learner runs every cell and File > Download saves JupyterLab's model:
    nbformat 4.5 with cell ids, the Pyodide kernelspec and language_info, every source one string, every cell
    "trusted", execution counts from this run, and the kernel's first-run note on stderr under the setup cell."""
    nb["metadata"]["kernelspec"] = {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}
    nb["metadata"]["language_info"] = {
        "codemirror_mode": {"name": "python", "version": 3}, "file_extension": ".py", "mimetype": "text/x-python",
        "name": "python", "nbconvert_exporter": "python", "pygments_lexer": "ipython3", "version": "3.12.7"}
    count = 0
    for cell in nb["cells"]:
        cell["source"] = "".join(cell["source"])
        cell["metadata"]["trusted"] = True
        if cell["cell_type"] == "code":
            count += 1
            cell["execution_count"] = count
    setup = release.setup_cell(as_notebook(nb))
    nb["cells"][setup]["outputs"].insert(0, {"output_type": "stream", "name": "stderr", "text": (
        "Matplotlib is building the font cache; this may take a moment.\n")})
    return nb


def saved_by_hub(nb: dict) -> dict:
    """Binder or a JupyterHub: the repository notebook as committed (nbformat 4.5, kernelspec python3, its stored
    outputs), opened in JupyterLab 4 and saved with the learner's edits."""
    return nb


def saved_by_laptop(nb: dict) -> dict:
    """A learner's own machine with an older Jupyter: nbformat 4.4 (no cell ids) and the kernel of the learner's own
    environment, which the grading machine does not have."""
    nb["nbformat_minor"] = 4
    for cell in nb["cells"]:
        cell.pop("id", None)
    nb["metadata"]["kernelspec"] = {"name": "attn-course", "display_name": "Python (attn-course)",
                                    "language": "python"}
    nb["metadata"]["language_info"]["version"] = "3.10.12"
    return nb


WAYS = {"lite": saved_by_lite, "hub": saved_by_hub, "laptop": saved_by_laptop}


def ways_for(name: str) -> list[str]:
    """The ways in to notebook ``name``: the browser edition only for the notebooks it holds (course.toml)."""
    entry = next(e for e in nav.course_entries(course.NOTEBOOKS, nav.load_course()) if e.stem == name)
    return [way for way in WAYS if way != "lite" or nav.runs_in_browser(nav.load_course(), entry)]


# --- the hand-ins ---------------------------------------------------------------------------------------------------

def answer_names(name: str) -> dict[str, str]:
    """The variable each prediction's checker reads (``answer`` or ``answers``), by the problem's id."""
    learner = nbformat.read(course.NOTEBOOKS / f"{name}.ipynb", as_version=4)
    found = {}
    for problem in course.problems(learner, name):
        _, call, problem_id = release.checker_call(problem.checker, name)
        if problem_id:
            found[problem_id] = ast.parse(call).body[0].value.args[1].id
    return found


# The shape of each array a shapes prediction asks for, in the sizes check_shapes reads (n, m, d_k, d_v).
SHAPES = {"Q": ("n", "d_k"), "K": ("m", "d_k"), "V": ("m", "d_v"), "scores": ("n", "m"), "weights": ("n", "m"),
          "output": ("n", "d_v")}


def answer_value(problem_id: str, seed: int = 0, wrong: bool = False):
    """The answer to prediction ``problem_id`` on variant ``seed``'s numbers, as a learner writes it; with ``wrong``, a
    wrong one (another option, other sizes, another number)."""
    prediction = PREDICTIONS[problem_id]
    right = prediction.expected(prediction.numbers(seed))[0]
    if prediction.kind == "shapes":
        sizes = dict(zip(("n", "m", "d_k", "d_v"), (n + wrong for n in right)))
        return {name: tuple(sizes[d] for d in SHAPES[name]) for name in prediction.asks}
    if not wrong:
        return right
    if prediction.kind == "choice":
        other = "a" if right.lower() != "a" else "b"
        return other.upper() if right.isupper() else other
    return right * 2 + 1


def edits(name: str, source) -> dict[str, dict]:
    """Per case: the answer cells' new sources by grade id, the answer cell a cell is inserted after, the answer
    cell deleted."""
    right = solutions(source)
    _, graded = course.assignment(name, set(NAMES))
    first = next(g for g in graded if g.problem_id)
    last = graded[-1]
    assert first.grade_id != last.grade_id, f"{name}: the changed hand-in needs two problems"
    first_answer, last_answer = (g.grade_id.replace("-check", "-answer") for g in (first, last))
    mistaken = f"{right[first_answer]}\n{answer_names(name)[first.problem_id]} = " \
               f"{answer_value(first.problem_id, wrong=True)!r}"
    return {"right": dict(answers=right, inserted=None, deleted=None),
            "untouched": dict(answers={}, inserted=None, deleted=None),
            "changed": dict(answers={**right, first_answer: mistaken}, inserted=first_answer, deleted=last_answer),
            "lost": {first.grade_id, last.grade_id}}


def submit(root: Path, student: str, name: str, nb: dict) -> None:
    folder = root / "submitted" / student / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.ipynb").write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (folder / "timestamp.txt").write_text("2026-01-01 12:00:00.000000 UTC", encoding="utf-8")


def course_notebook(name: str, answers: dict[str, str], inserted: str | None, deleted: str | None) -> dict:
    """The repository notebook NAME with a learner's edits, as JSON: answer cells found as tools/problems.py finds
    them, each named by the grade id the release gives it (problem N's answer cell is problem-N-answer)."""
    nb = json.loads((course.NOTEBOOKS / f"{name}.ipynb").read_text(encoding="utf-8"))
    _, graded = course.assignment(name, set(NAMES))
    found = course.problems(as_notebook(nb), name)
    at = {g.grade_id.replace("-check", "-answer"): p.index + 1 for g, p in zip(graded, found, strict=True)}
    for grade_id, text in answers.items():
        cell = nb["cells"][at[grade_id]]
        cell["source"], cell["outputs"], cell["execution_count"] = text.splitlines(keepends=True), [], None
    cells = []
    for i, cell in enumerate(nb["cells"]):
        if deleted is not None and i == at[deleted]:
            continue
        cells.append(cell)
        if inserted is not None and i == at[inserted]:
            new = nbformat.v4.new_code_cell(INSERTED)
            cells.append({**new, "id": f"learner-{i}", "source": INSERTED.splitlines(keepends=True)})
    nb["cells"] = cells
    return nb


# --- grading --------------------------------------------------------------------------------------------------------

def check_outputs(root: Path, student: str, name: str) -> dict[str, list]:
    """What each checker cell printed in the graded notebook, by grade id."""
    nb = nbformat.read(root / "autograded" / student / name / f"{name}.ipynb", as_version=4)
    return {release.grading(c)["grade_id"]: [{k: v for k, v in o.items() if k != "execution_count"}
                                               for o in c.outputs]
            for c in nb.cells if release.grading(c).get("grade")}


def scores(root: Path, name: str, students) -> dict[str, dict[str, tuple[float, float]]]:
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        return {s: {g.name: (g.score, g.max_score) for g in gradebook.find_submission_notebook(name, name, s).grades}
                for s in students}


@pytest.fixture(scope="module")
def courses(tmp_path_factory):
    """Where each assignment's two courses are written (one folder per assignment, so that any one assignment's
    tests run alone), and their results, filled per assignment."""
    return dict(folder=tmp_path_factory.mktemp("ways-in"), results={})


def released_course(folder: Path, name: str, student_numbers: bool = False) -> Path:
    """Assignment ``name`` written as a course at ``folder`` and released by nbgrader."""
    course.write_course(folder, [name], student_numbers=student_numbers)
    run_nbgrader(folder, "generate_assignment", name, "--force")
    return folder


def own_numbers_notebook(name: str, student: str, source) -> tuple[dict, int]:
    """The course notebook answered right on ``student``'s numbers (the solutions' answer cells, each prediction with
    variants then given the student's answer); and how many answers differ from the notebook's own."""
    right = solutions(source)
    _, graded = course.assignment(name, set(NAMES))
    answers, differ = dict(right), 0
    for g in graded:
        prediction = PREDICTIONS.get(g.problem_id)
        if prediction is not None and prediction.has_variants:
            own = answer_value(g.problem_id, student_seed(student, name))
            differ += own != answer_value(g.problem_id)
            grade_id = g.grade_id.replace("-check", "-answer")
            answers[grade_id] = f"{right[grade_id]}\n{answer_names(name)[g.problem_id]} = {own!r}"
    nb = course_notebook(name, answers, None, None)
    # The learner ends the setup cell with the lines of their per-student copy's (docs/teachers-guide.md); grading puts
    # the course's setup cell back, which reads the student from the folder nbgrader grades in.
    setup = release.setup_cell(as_notebook(nb))
    own_lines = release.STUDENT_NUMBERS.format(args=f"{student!r}, {name!r}")
    nb["cells"][setup]["source"] += ["\n", *own_lines.splitlines(keepends=True)]
    return nb, differ


def graded(courses, name: str) -> dict:
    """Assignment ``name`` handed in every way, autograded once in each course (computed once per module)."""
    if name in courses["results"]:
        return courses["results"][name]
    root = released_course(courses["folder"] / name / "shared", name)
    source = nbformat.read(root / "source" / name / f"{name}.ipynb", as_version=4)
    plan = edits(name, source)
    students = []
    for case in CASES:
        hand_in(root, f"release-{case}", name, plan[case]["answers"],
                inserted={plan[case]["inserted"]: INSERTED} if plan[case]["inserted"] else None,
                deleted=frozenset({plan[case]["deleted"]} - {None}))
        students.append(f"release-{case}")
        for way in ways_for(name):
            submit(root, f"{way}-{case}", name, WAYS[way](course_notebook(name, **plan[case])))
            students.append(f"{way}-{case}")
    log = run_nbgrader(root, "autograde", name, "--force")
    # Another notebook handed in under this name: refused with words, not a KeyError.
    other = NAMES[(NAMES.index(name) + 1) % len(NAMES)]
    stranger = json.loads((course.NOTEBOOKS / f"{other}.ipynb").read_text(encoding="utf-8"))
    submit(root, "stranger", name, stranger)
    with pytest.raises(RuntimeError) as refused:
        run_nbgrader(root, "autograde", name, "--student", "stranger", "--force")
    result = dict(log=log, lost=plan["lost"], scores=scores(root, name, students), refused=str(refused.value),
                  outputs={s: check_outputs(root, s, name) for s in students}, audit=nbgrader_audit.audit(root))

    variants = any(PREDICTIONS[g.problem_id].has_variants for g in course.assignment(name, set(NAMES))[1]
                   if g.problem_id)
    if variants:
        numbers = released_course(courses["folder"] / name / "student-numbers", name, student_numbers=True)
        way = ways_for(name)[NAMES.index(name) % len(ways_for(name))]
        student = f"{way}-own-numbers"
        nb, differ = own_numbers_notebook(name, student, source)
        submit(numbers, student, name, WAYS[way](nb))
        run_nbgrader(numbers, "autograde", name, "--force")
        result["own_numbers"] = dict(student=student, differ=differ, scores=scores(numbers, name, [student])[student])
    courses["results"][name] = result
    return result


def points(grades: dict[str, tuple[float, float]]) -> tuple[float, float]:
    return sum(s for s, _ in grades.values()), sum(m for _, m in grades.values())


# --- the tests ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_right_answers_from_every_way_in_score_full_marks_as_the_release_does(courses, name):
    result = graded(courses, name)
    release = result["scores"]["release-right"]
    assert release and all(score == possible > 0 for score, possible in release.values()), release
    for way in ways_for(name):
        assert result["scores"][f"{way}-right"] == release, way


@pytest.mark.parametrize("name", NAMES)
def test_an_untouched_notebook_from_every_way_in_scores_nothing_as_the_release_does(courses, name):
    result = graded(courses, name)
    assert all(score == 0 for score, _ in result["scores"]["release-untouched"].values())
    for way in ways_for(name):
        assert result["scores"][f"{way}-untouched"] == result["scores"]["release-untouched"], way


@pytest.mark.parametrize("name", NAMES)
def test_a_wrong_answer_an_inserted_cell_and_a_deleted_answer_cost_what_they_cost_the_release(courses, name):
    result = graded(courses, name)
    release = result["scores"]["release-changed"]
    assert {g for g, (score, possible) in release.items() if score < possible} == result["lost"], release
    for way in ways_for(name):
        assert result["scores"][f"{way}-changed"] == release, way


@pytest.mark.parametrize("name", NAMES)
def test_every_checker_cell_gives_the_releases_words(courses, name):
    result = graded(courses, name)
    for case in CASES:
        release = result["outputs"][f"release-{case}"]
        assert release and all(release.values()), (case, "a checker cell printed nothing")
        for way in ways_for(name):
            assert result["outputs"][f"{way}-{case}"] == release, (way, case)


@pytest.mark.parametrize("name", NAMES)
def test_another_notebook_handed_in_is_refused_with_words_not_a_key_error(courses, name):
    refused = graded(courses, name)["refused"]
    assert "is not the course's" in refused and "have neither their answer cell nor their checker cell" in refused
    assert "KeyError" not in refused


@pytest.mark.parametrize("name", NAMES)
def test_the_audit_reads_a_notebook_from_every_way_in_as_the_release(courses, name):
    """--audit lists the same learner-written cells of a way in's notebook as of the release with the same answers
    (not every checker cell of a notebook without nbgrader ids), and says why it cannot read another notebook."""
    lines = graded(courses, name)["audit"]

    def of(student):
        return [line.split(" ", 1)[1] for line in lines if line.split(" ", 1)[0] == student]

    for case in CASES:
        for way in ways_for(name):
            assert of(f"{way}-{case}") == of(f"release-{case}"), (way, case)
    assert [line for line in of("stranger") if "not graded" in line and "is not the course's" in line]


@pytest.mark.parametrize("name", [n for n in NAMES if any(
    PREDICTIONS[p].has_variants for p in PREDICTIONS if p.startswith(n[:2]))])
def test_with_student_numbers_a_way_in_notebook_is_graded_on_the_students_own_numbers(courses, name):
    own = graded(courses, name)["own_numbers"]
    assert own["differ"] > 0, "the student's numbers coincide with the notebook's: this proves nothing"
    assert all(score == possible > 0 for score, possible in own["scores"].values()), own


def test_the_hand_in_table(courses):
    """Way in x assignment -> points, beside the release's (printed; run with -s to see it)."""
    rows = ["| assignment | case | release | " + " | ".join(WAYS) + " |", "|---|---|---|" + "---|" * len(WAYS)]
    for name in NAMES:
        result = graded(courses, name)
        for case in CASES:
            cells = [f"{points(result['scores'][f'release-{case}'])[0]:g} / "
                     f"{points(result['scores'][f'release-{case}'])[1]:g}"]
            for way in WAYS:
                grades = result["scores"].get(f"{way}-{case}")
                cells.append(f"{points(grades)[0]:g}" if grades else "not a way in")
            rows.append(f"| {name} | {case} | " + " | ".join(cells) + " |")
        own = result.get("own_numbers")
        if own:
            rows.append(f"| {name} | own numbers ({own['student']}) | | " + " | ".join(
                f"{points(own['scores'])[0]:g}" if own["student"].startswith(w) else "" for w in WAYS) + " |")
    print("\n" + "\n".join(rows))
    assert len(rows) > 2 + len(NAMES) * len(CASES) - 1


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
        for seed in (0, student_seed("hub-own-numbers", problem_id[:2])) if prediction.has_variants else (0,):
            assert check(problem_id, answer_value(problem_id, seed), seed=seed).passed, (problem_id, seed)
            assert not check(problem_id, answer_value(problem_id, seed, wrong=True), seed=seed).passed
