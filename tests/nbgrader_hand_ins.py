"""A course notebook as each way in saves it, and the hand-ins of the ways-in round, shared by
tests/test_nbgrader_ways_in.py (every assignment through nbgrader's sanitizing steps, one light assignment graded
with execution) and benchmarks/ways_in_course.py (every assignment graded with execution, as the suite once did).

The ways in (``WAYS``): the browser edition, Binder or a hub, a laptop. Each saves the repository notebook with
what it carries around the code cells (metadata, cell ids, an output on stderr); the learner's edits are the same
in each. Each is handed in three ways (``CASES``): with the right answers (the solutions'), untouched, and changed
(the first prediction answered wrong, a cell inserted after its answer cell, the last problem's answer cell
deleted).
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook

from attn_lib.exercises._problem_book import PREDICTIONS, student_seed

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import nav  # noqa: E402  (tools/nav.py)
import nbgrader_audit  # noqa: E402  (tools/nbgrader_audit.py)
import nbgrader_course as course  # noqa: E402  (tools/nbgrader_course.py)
import nbgrader_release as release  # noqa: E402  (tools/nbgrader_release.py)
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
    at = {g.grade_id.replace("-check", "-answer"): p.answer_index for g, p in zip(graded, found, strict=True)}
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



def shown_statements(nb) -> dict[str, dict]:
    """Problem id -> {"text": the markdown its statement cell shows, "about": the output's attn_course metadata (the
    problem, the seed, the student)}; no entry for a statement cell never run."""
    return {o.metadata["attn_course"]["statement_of"]: {"text": o.data["text/markdown"],
                                                         "about": dict(o.metadata["attn_course"])}
            for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
            if "attn_course" in o.get("metadata", {})}


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


def hand_in_every_way(root: Path, name: str) -> tuple[list[str], dict]:
    """Assignment ``name``, released in the course at ``root``, handed in three ways (``CASES``) through the release
    (students release-CASE) and through every way in to it (students WAY-CASE); return the students and the plan."""
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
    return students, plan


def hand_in_another_notebook(root: Path, name: str, student: str = "stranger") -> None:
    """The next course notebook handed in under the name ``name``."""
    other = NAMES[(NAMES.index(name) + 1) % len(NAMES)]
    submit(root, student, name, json.loads((course.NOTEBOOKS / f"{other}.ipynb").read_text(encoding="utf-8")))


def graded(folder: Path, name: str) -> dict:
    """Assignment ``name`` handed in every way and autograded, with execution, in a course of its own under
    ``folder``: scores and checker outputs per student, the refusal of another notebook, the audit's lines; and,
    when the assignment has variants, one way in's notebook graded on a student's own numbers in a second course
    written ``--student-numbers``."""
    root = released_course(folder / name / "shared", name)
    source = nbformat.read(root / "source" / name / f"{name}.ipynb", as_version=4)
    students, plan = hand_in_every_way(root, name)
    log = run_nbgrader(root, "autograde", name, "--force")
    # Another notebook handed in under this name: refused with words, not a KeyError.
    hand_in_another_notebook(root, name)
    try:
        run_nbgrader(root, "autograde", name, "--student", "stranger", "--force")
        refused = ""
    except RuntimeError as error:
        refused = str(error)
    result = dict(log=log, lost=plan["lost"], scores=scores(root, name, students), refused=refused,
                  outputs={s: check_outputs(root, s, name) for s in students}, audit=nbgrader_audit.audit(root))

    variants = any(PREDICTIONS[g.problem_id].has_variants for g in course.assignment(name, set(NAMES))[1]
                   if g.problem_id)
    if variants:
        numbers = released_course(folder / name / "student-numbers", name, student_numbers=True)
        result["own_numbers"] = {}
        for way in ways_for(name):
            student = f"{way}-own-numbers"
            nb, differ = own_numbers_notebook(name, student, source)
            submit(numbers, student, name, WAYS[way](nb))
            result["own_numbers"][way] = dict(student=student, differ=differ)
        run_nbgrader(numbers, "autograde", name, "--force")
        for way, own in result["own_numbers"].items():
            own["scores"] = scores(numbers, name, [own["student"]])[own["student"]]
    return result


def points(grades: dict[str, tuple[float, float]]) -> tuple[float, float]:
    return sum(s for s, _ in grades.values()), sum(m for _, m in grades.values())


def sanitize(root: Path, student: str, name: str):
    """Student ``student``'s submission of ``name`` put through what ``nbgrader autograde`` runs before it executes
    anything: the course's sanitizing steps (``Autograde.sanitize_preprocessors`` as the course's nbgrader_config.py
    leaves them, nbgrader's own classes, with the course's gradebook), in this process. Returns the notebook."""
    from nbgrader.converters import Autograde
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader(course.CONFIG_FILE, path=str(root)).load_config()
    steps = Autograde(config=config).sanitize_preprocessors
    nb = nbformat.read(root / "submitted" / student / name / f"{name}.ipynb", as_version=4)
    resources = {"unique_key": name, "output_files_dir": f"{name}_files", "nbgrader": {
        "student": student, "assignment": name, "notebook": name, "db_url": f"sqlite:///{root / 'gradebook.db'}"}}
    for step in steps:
        nb, resources = step(config=config).preprocess(nb, resources)
    return nb
