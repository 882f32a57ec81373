"""Write an nbgrader course from the course notebooks and their solutions.

Usage::

    python tools/nbgrader_course.py DIR [--only 06 ...]
    python tools/nbgrader_course.py --summary
    python tools/nbgrader_course.py DIR --audit

writes ``DIR/nbgrader_config.py`` and one assignment per learner notebook, ``DIR/source/<name>/<name>.ipynb``
(00 to 10; contents.ipynb is a map, not an assignment), then prints the points per notebook. ``--summary`` prints
the points of the notebooks as they are and writes nothing. ``--audit`` lists the answer cells of the collected
submissions (DIR/submitted/) whose code touches the grading machinery (a checker's name, attn_lib.exercises,
Feedback, sys, builtins, ...): the autograder cannot see such tampering; the teacher reads those cells. From DIR
the teacher runs nbgrader as usual (``nbgrader generate_assignment 06-masking``, ``nbgrader autograde
06-masking``, ``nbgrader generate_feedback 06-masking``); docs/teachers-guide.md, "Grading with nbgrader", gives
the whole round.

Every problem of a notebook (a ``### Problem`` cell, its answer cell, its checker cell; tests/test_course_structure.py
holds the notebooks to that shape) becomes two graded cells, so a new problem is graded without changing this file:

- the answer cell, a solution cell: the learner's placeholder, then the answer from notebooks/solutions/ between
  ``### BEGIN SOLUTION`` and ``### END SOLUTION``. The course's config sets ``ClearSolutions.code_stub`` to nothing,
  so the released cell is the learner notebook's cell as it is.
- the checker cell, a locked test cell: ``assert_correct(check_...(...))`` with the checker imported afresh (an
  answer cell that rebinds ``check_...`` changes nothing), which raises the checker's reason and hint when the
  answer is wrong or missing. A problem that asks for a function keeps its call visible, so the learner gets the
  checker's feedback while working, and is worth 2 points. Any other problem (a prediction: a number, a shape, a
  choice) is worth 1 point and its call sits between ``### BEGIN HIDDEN TESTS`` and ``### END HIDDEN TESTS``: the
  released cell says it is graded on hand-in, and shows neither the expected answer (``check_number`` and
  ``check_choice`` hold it in their arguments) nor a checker a learner could call until a guess is right. So is any
  call the notebook collapses or that carries a ``mistakes=`` list.

Every other cell is locked (read-only). Links to another course notebook point at that assignment's folder
(``../<name>/<name>.ipynb``, where nbgrader's fetch puts it); the link to contents.ipynb is dropped; a file under
notebooks/ that the prose links to or shows is copied beside the notebook (the notebooks have none today: notebook
10's model files come from attn_lib's cache).

The machine that autogrades needs the course's requirements and attn_lib installed (``pip install -r
requirements-teacher.txt`` from the repository), and notebook 10 needs the model's files: run ``python -m
attn_lib.minilm`` once on that machine (and on the learners' hub) so that grading does not download them.
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
SOLUTIONS = NOTEBOOKS / "solutions"
sys.path.insert(0, str(ROOT))
import attn_lib.exercises  # noqa: E402  (the checkers a test cell may call)

COURSE_ID = "attention-course"
# A problem's heading, as tests/test_course_structure.py finds it ("### Problem 3: ..." in a learner notebook,
# "## Problem 3: ..." in its solutions notebook).
PROBLEM = re.compile(r"^#+\s*.*\b(problem|exercise)s?\b", re.IGNORECASE | re.MULTILINE)
PROBLEM_NUMBER = re.compile(r"^(?:problem|exercise)\s+(\d+)", re.IGNORECASE)
# Checkers whose arguments are the expected answer itself.
ANSWER_IN_ARGUMENTS = {"check_number", "check_choice"}
BEGIN_SOLUTION, END_SOLUTION = "### BEGIN SOLUTION", "### END SOLUTION"
BEGIN_HIDDEN, END_HIDDEN = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
HIDDEN_NOTE = "# Checked when you hand the notebook in; the checker's reason comes back with your feedback."
GRADER_IMPORT = "from attn_lib.exercises import assert_correct, {checker}  # the course's own checker, imported afresh"
NOTEBOOK_LINK = re.compile(r"\]\(([\w.-]+)\.ipynb\)")
LINK_TARGET = re.compile(r"\]\(([^)\s]+)\)")  # a markdown link's or image's target
URL = re.compile(r"^[a-z][\w+.-]*:", re.IGNORECASE)

CONFIG = '''\
"""nbgrader's configuration for the attention course; written by tools/nbgrader_course.py."""

import os

c = get_config()  # noqa: F821  (nbgrader's config loader provides it)

c.CourseDirectory.course_id = "{course_id}"
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))

# An answer cell holds the learner's placeholder above its solution region: the region becomes nothing, so the
# released cell is the placeholder the course's own notebook shows (not nbgrader's `raise NotImplementedError()`).
c.ClearSolutions.code_stub = {{"python": ""}}

# Seconds per cell: notebook 09 trains small models, 10 reads a trained one; explorers run headless.
c.Execute.timeout = 600
# A cell that runs past that is interrupted and fails; the notebook's other cells still run and are scored.
c.Execute.interrupt_on_timeout = True
'''


class CourseError(ValueError):
    """The learner notebook and its solutions notebook do not fit together as a graded assignment."""


@dataclass
class Problem:
    heading: str  # the first line of the problem's cell, without its "#"s
    index: int  # the heading cell's index in its notebook
    answer: nbformat.NotebookNode
    checker: nbformat.NotebookNode


@dataclass
class Graded:
    """One graded problem of an assignment."""

    heading: str
    grade_id: str
    checker: str
    points: int
    hidden: bool


def course_notebooks() -> list[str]:
    """The learner notebooks, 00 to 10, by stem."""
    return sorted(p.stem for p in NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))


def problems(nb, where: str) -> list[Problem]:
    """Every "### Problem" of ``nb`` with the answer cell and the checker cell under it."""
    found = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown" and PROBLEM.search(cell.source):
            heading = cell.source.strip().splitlines()[0].lstrip("#").strip()
            pair = nb.cells[i + 1:i + 3]
            if len(pair) < 2 or any(c.cell_type != "code" for c in pair):
                raise CourseError(f"{where}: {heading!r} should be followed by an answer cell and a checker cell")
            found.append(Problem(heading, i, *pair))
    return found


def checker_call(cell, where: str) -> tuple[str, str]:
    """The checker's name and the source of its call, from a checker cell that is one ``check_...(...)`` call."""
    try:
        tree = ast.parse(cell.source)
    except SyntaxError as error:
        raise CourseError(f"{where}: the checker cell does not parse: {error}") from None
    body = tree.body
    call = body[0].value if len(body) == 1 and isinstance(body[0], ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id.startswith("check_")):
        raise CourseError(f"{where}: the checker cell should be one call check_...(...), not {cell.source[:80]!r}")
    if call.func.id not in attn_lib.exercises.__all__:
        raise CourseError(f"{where}: {call.func.id} is not a checker of attn_lib.exercises")
    return call.func.id, ast.get_source_segment(cell.source, call)


def hidden_check(name: str, call_source: str, cell, asks_for_function: bool) -> bool:
    """Whether a checker call is graded out of sight: every problem not answered by a function (a visible checker
    could be called again and again until a prediction is right), and any call that shows the expected answer (the
    notebook collapses it, or its arguments are the answer)."""
    call = ast.parse(call_source).body[0].value
    collapsed = cell.metadata.get("jupyter", {}).get("source_hidden", False)
    shows_answer = collapsed or name in ANSWER_IN_ARGUMENTS or any(k.arg == "mistakes" for k in call.keywords)
    return shows_answer or not asks_for_function


def asks_for_a_function(cell) -> bool:
    return any(isinstance(node, ast.FunctionDef) for node in ast.parse(cell.source).body)


def paired_problems(name: str, learner, solved) -> list[tuple[Problem, Problem]]:
    """The learner's problems beside the solutions notebook's, checked to be the same problems in the same order."""
    mine = problems(learner, f"notebooks/{name}.ipynb")
    theirs = problems(solved, f"notebooks/solutions/{name}-solutions.ipynb")
    for k, ours in enumerate(mine):
        other = theirs[k] if k < len(theirs) else None
        if other is None or other.heading != ours.heading:
            found = other.heading if other else "nothing"
            raise CourseError(f"{name}: problem {k + 1} is {ours.heading!r} in the learner notebook but {found!r} "
                              f"in notebooks/solutions/{name}-solutions.ipynb")
        # The graded cell runs the learner notebook's call; the solutions may word its arguments differently (10's
        # solutions name n), but must call the same checker.
        where = f"{name}, {ours.heading!r}"
        if checker_call(other.checker, where + " (solutions)")[0] != checker_call(ours.checker, where)[0]:
            raise CourseError(f"{where}: the learner notebook and the solutions notebook call different checkers")
    if len(theirs) > len(mine):
        raise CourseError(f"{name}: the solutions notebook has {len(theirs) - len(mine)} problem(s) more, from "
                          f"{theirs[len(mine)].heading!r}")
    return list(zip(mine, theirs))


def nbgrader_meta(grade_id: str, *, grade=False, solution=False, locked=True, points=None) -> dict:
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3, "solution": solution,
            "task": False}
    if points is not None:
        meta["points"] = points
    return meta


def solution_source(placeholder: str, solution: str) -> str:
    return "\n".join([placeholder.rstrip(), BEGIN_SOLUTION, solution.rstrip(), END_SOLUTION])


def test_source(checker: str, call_source: str, hidden: bool) -> str:
    lines = [GRADER_IMPORT.format(checker=checker), f"assert_correct({call_source})"]
    return "\n".join([HIDDEN_NOTE, BEGIN_HIDDEN, *lines, END_HIDDEN] if hidden else lines)


def relink(source: str, stems: set[str]) -> str:
    """Links between course notebooks, rewritten for assignments that sit side by side; contents' link dropped."""
    source = re.sub(r"\s*\|\s*\[[^\]]*\]\(contents\.ipynb\)|\[[^\]]*\]\(contents\.ipynb\)\s*\|?\s*", "", source)

    def target(match):
        stem = match.group(1)
        if stem not in stems:
            raise CourseError(f"a link points at {stem}.ipynb, which is not an assignment of the course")
        return f"](../{stem}/{stem}.ipynb)"

    return NOTEBOOK_LINK.sub(target, source).strip()


def local_files(nb, where: str) -> list[Path]:
    """Files under notebooks/ that the markdown of ``nb`` links to or shows; they are copied beside the assignment."""
    found = []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        for target in LINK_TARGET.findall(cell.source):
            file = target.split("#")[0]
            if not file or URL.match(target) or file.endswith(".ipynb"):
                continue  # an anchor, a URL, a notebook (relink handles those; a solutions notebook never travels)
            path = (NOTEBOOKS / file).resolve()
            if not path.is_file() or NOTEBOOKS not in path.parents:
                raise CourseError(f"{where}: it links to {target}, which is not a file under notebooks/")
            found.append(path)
    return found


def assignment(name: str, stems: set[str], learner=None, solved=None) -> tuple[nbformat.NotebookNode, list[Graded]]:
    """The source notebook of one assignment, and its graded problems; ``learner`` and ``solved`` default to
    notebooks/NAME.ipynb and notebooks/solutions/NAME-solutions.ipynb."""
    learner = learner or nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    solution_path = SOLUTIONS / f"{name}-solutions.ipynb"
    found = problems(learner, f"notebooks/{name}.ipynb")
    if found and solved is None and not solution_path.exists():
        raise CourseError(f"{name}: it sets {len(found)} problem(s) but {solution_path.relative_to(ROOT)} is missing")
    if found and solved is None:
        solved = nbformat.read(solution_path, as_version=4)
    pairs = paired_problems(name, learner, solved) if found else []

    nb = nbformat.v4.new_notebook(metadata=learner.metadata)
    graded, roles = [], {}
    used_ids = set()
    for k, (ours, theirs) in enumerate(pairs):
        number = PROBLEM_NUMBER.match(ours.heading)
        label = f"problem-{number.group(1) if number else k + 1}"
        if label in used_ids:
            raise CourseError(f"{name}: two problems are numbered {label!r}")
        used_ids.add(label)
        where = f"{name}, {ours.heading!r}"
        checker, call = checker_call(ours.checker, where)
        function = asks_for_a_function(ours.answer)
        hidden = hidden_check(checker, call, ours.checker, function)
        points = 2 if function else 1
        roles[ours.index + 1] = ("answer", label, solution_source(ours.answer.source, theirs.answer.source))
        roles[ours.index + 2] = ("test", label, test_source(checker, call, hidden), points)
        graded.append(Graded(ours.heading, f"{label}-check", checker, points, hidden))

    for i, cell in enumerate(learner.cells):
        role = roles.get(i)
        metadata = {k: v for k, v in cell.metadata.items() if k not in ("jupyter", "collapsed", "execution")}
        if role is None:
            source = relink(cell.source, stems) if cell.cell_type == "markdown" else cell.source
            metadata["nbgrader"] = nbgrader_meta(f"cell-{i:03d}")
        elif role[0] == "answer":
            source = role[2]
            metadata["nbgrader"] = nbgrader_meta(f"{role[1]}-answer", solution=True, locked=False)
        else:
            source = role[2]
            metadata["nbgrader"] = nbgrader_meta(f"{role[1]}-check", grade=True, points=role[3])
        if cell.cell_type == "code":
            new = nbformat.v4.new_code_cell(source, metadata=metadata)
        else:
            new = nbformat.v4.new_markdown_cell(source, metadata=metadata)
            if cell.get("attachments"):
                new.attachments = cell.attachments
        nb.cells.append(new)
    return nb, graded


CONFIG_FILE = "nbgrader_config.py"


def write_course(directory: Path, names: list[str] | None = None) -> dict[str, list[Graded]]:
    """Write the course at ``directory`` (its config and source/<name>/<name>.ipynb); return the graded problems."""
    stems = set(course_notebooks())
    names = names or sorted(stems)
    built = {name: assignment(name, stems) for name in names}  # every check before anything is written
    directory.mkdir(parents=True, exist_ok=True)
    (directory / CONFIG_FILE).write_text(CONFIG.format(course_id=COURSE_ID), encoding="utf-8")
    for name, (nb, _) in built.items():
        folder = directory / "source" / name
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, folder / f"{name}.ipynb")
        for path in local_files(nb, name):
            (folder / path.relative_to(NOTEBOOKS)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, folder / path.relative_to(NOTEBOOKS))
    return {name: graded for name, (_, graded) in built.items()}


def run_nbgrader(course: Path, *args: str, env: dict | None = None) -> str:
    """Run ``python -m nbgrader ARGS`` in the course folder, with this repository's attn_lib importable by the
    kernels; return its log, or raise RuntimeError with it when nbgrader fails."""
    import os
    import subprocess

    env = {**os.environ, **(env or {})}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    result = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env, capture_output=True,
                            text=True)
    if result.returncode != 0:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    return result.stdout + result.stderr


def solutions(source) -> dict[str, str]:
    """The code between the solution markers of every answer cell of a source notebook, by grade_id."""
    found = {}
    for cell in source.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution"):
            found[meta["grade_id"]] = cell.source.split(BEGIN_SOLUTION + "\n", 1)[1].split("\n" + END_SOLUTION)[0]
    return found


def hand_in(course: Path, student: str, name: str, answers: dict[str, str]) -> Path:
    """Put a learner's submission where ``nbgrader collect`` would: the released notebook of assignment ``name``
    with the cells named in ``answers`` (grade_id -> source; answer cells, or any cell a test tampers with)
    replaced, under submitted/STUDENT/NAME/."""
    released = nbformat.read(course / "release" / name / f"{name}.ipynb", as_version=4)
    for cell in released.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            cell.source = answers[grade_id]
    folder = course / "submitted" / student / name
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(released, folder / f"{name}.ipynb")
    (folder / "timestamp.txt").write_text("2026-01-01 12:00:00.000000 UTC", encoding="utf-8")
    return folder


# What an answer cell has no business touching: the grading machinery (a checker, its Feedback, assert_correct),
# and the ways to reach past a name into modules or the namespace.
SUSPECT_NAMES = {"exercises", "Feedback", "CheckFailed", "assert_correct", "builtins", "__builtins__", "sys",
                 "importlib", "globals", "setattr", "get_ipython", "exec", "eval"}


def suspicious(source: str) -> list[str]:
    """What in an answer cell's code reaches for the grading machinery: checker names, attn_lib.exercises,
    Feedback, module and namespace surgery (sorted, each once)."""
    try:
        tree = ast.parse("\n".join("" if ln.lstrip().startswith(("%", "!")) else ln for ln in source.splitlines()))
    except SyntaxError:
        return ["does not parse"]
    found = set()
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            module = getattr(node, "module", None) or ""
            names = [*module.split("."), *(part for a in node.names for part in a.name.split("."))]
        found |= {n for n in names if n in SUSPECT_NAMES or n.startswith("check_")}
    return sorted(found)


def audit(directory: Path) -> list[str]:
    """One line per answer cell of a collected submission (DIR/submitted/STUDENT/ASSIGNMENT/*.ipynb) whose code
    reaches for the grading machinery; a teacher reads those cells before trusting their points."""
    lines = []
    for path in sorted((directory / "submitted").glob("*/*/*.ipynb")):
        student, name = path.parent.parent.name, path.parent.name
        for cell in nbformat.read(path, as_version=4).cells:
            meta = cell.metadata.get("nbgrader", {})
            found = suspicious(cell.source) if meta.get("solution") and cell.cell_type == "code" else []
            if found:
                lines.append(f"{student} {name} {meta.get('grade_id')}: {', '.join(found)}")
    return lines


def summary(course: dict[str, list[Graded]]) -> str:
    """A markdown table: per notebook, the problems answered by a function and the others, and the points."""
    lines = ["| notebook | write a function (2 points, visible test) | predict (1 point, hidden test) | points |",
             "|---|---|---|---|"]
    rows = [*course.items(), ("all", [g for graded in course.values() for g in graded])]
    for name, graded in rows:
        code = sum(g.points == 2 for g in graded)
        lines.append(f"| {name} | {code} | {len(graded) - code} | {sum(g.points for g in graded)} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("directory", type=Path, nargs="?", help="the course folder to write (created if missing)")
    parser.add_argument("--only", nargs="+", metavar="NN", help="only these notebooks (number prefixes or names)")
    parser.add_argument("--summary", action="store_true", help="print the points per notebook; write nothing")
    parser.add_argument("--audit", action="store_true",
                        help="list the answer cells of DIR/submitted/ that touch the checkers; write nothing")
    args = parser.parse_args(argv)
    if args.directory is None and not args.summary:
        parser.error("give the course folder DIR (or --summary)")
    if args.audit:
        found = audit(args.directory)
        print("\n".join(found) if found else "no answer cell touches the checkers")
        return 0
    names = course_notebooks()
    if args.only:
        names = [n for n in names if any(n == o or n.startswith(f"{o}-") for o in args.only)]
        if len(names) == 0:
            parser.error(f"no notebook matches {args.only}")
    try:
        if args.summary:
            stems = set(course_notebooks())
            course = {name: assignment(name, stems)[1] for name in names}
        else:
            course = write_course(args.directory, names)
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if not args.summary:
        print(f"wrote {args.directory / CONFIG_FILE} and {len(course)} assignment(s) under {args.directory / 'source'}")
    print(summary(course))
    return 0


if __name__ == "__main__":
    sys.exit(main())
