"""Write an nbgrader course from the course notebooks and their solutions.

Usage::

    python tools/nbgrader_course.py DIR [--only 06 ...] [--force]
    python tools/nbgrader_course.py --summary
    python tools/nbgrader_course.py DIR --audit
    python tools/nbgrader_course.py DIR --student-numbers [--only 05 ...] [--force]
    python tools/nbgrader_course.py DIR --per-student S1 S2 ... [--only 05 ...]

writes ``DIR/nbgrader_config.py`` and one assignment per learner notebook, ``DIR/source/<name>/<name>.ipynb``
(00 to 10; contents.ipynb is a map, not an assignment), then prints the points per notebook. A DIR that already
holds a course (its nbgrader_config.py) is refused unless ``--force``, which rewrites the config (keeping the old
one as nbgrader_config.py.bak when it differs) and the course's notebooks under source/, keeps the gradebook and
every submission, and names any assignment under source/ that is no longer a course notebook. It writes nothing
when the course's gradebook (DIR/gradebook.db) holds submissions of an assignment this version of the course grades
otherwise (other graded cells, points or locked cells), and says so: those stay with the version that wrote them.
``--summary``
prints the points of the notebooks as they are and writes nothing. ``--audit`` lists the code cells a learner
wrote in the collected submissions (DIR/submitted/: answer cells and inserted cells) that touch the grading
machinery (tools/nbgrader_audit.py), and, in a course with per-student numbers, each answer right for a classmate's
numbers and wrong for the student's own (tools/nbgrader_copying.py); the teacher reads those. From DIR
the teacher runs nbgrader as usual (``nbgrader generate_assignment 06-masking``, ``nbgrader autograde
06-masking``, ``nbgrader generate_feedback 06-masking``); docs/teachers-guide.md, "Grading with nbgrader", gives
the whole round.

Every problem of a notebook (a ``### Problem`` cell, its answer cell, its checker cell, as tools/problems.py
defines it; tests/test_course_structure.py holds the notebooks to that shape) becomes two graded cells, so a new
problem is graded without changing this file (tools/nbgrader_release.py writes each cell as the release has it):

- the answer cell, a solution cell: the learner's placeholder, then the answer from notebooks/solutions/ between
  ``### BEGIN SOLUTION`` and ``### END SOLUTION``. The course's config sets ``ClearSolutions.code_stub`` to nothing,
  so the released cell is the learner notebook's cell as it is.
- the checker cell, a locked test cell: ``assert_correct(check_...(...))`` for a function problem (2 points) and
  ``assert_correct(check("NN-PK", answer))`` for a prediction (1 point), with the checker's module and
  ``assert_correct``'s reloaded from attn_lib's files (a cell that rebinds ``check_...`` in the notebook or in
  ``attn_lib.exercises`` changes nothing; code that patches deeper still can, see tools/nbgrader_audit.py), which
  raises the checker's reason and hint when the answer is wrong or missing. Every test is visible and gives its
  reason on Validate: no checker cell holds its answer (a prediction's answer is computed by attn_lib from the
  problem's numbers, by its id), so nothing needs hiding, and the feedback shows reasons, never an expected answer.
  A checker cell that is not one checker call is refused.

Per-student numbers: written with ``--student-numbers``, the course gives each student their own numbers, which
follow from their id and the assignment (``attn_lib.exercises._problem_book.student_seed``). The source notebook's
setup cell then ends with ``use_student_numbers()``, which, while nbgrader autogrades, reads the student from the
folder it runs in (``autograded/<student>/<assignment>``). After ``nbgrader generate_assignment``,
``--per-student S1 S2 ...`` writes each student's own released notebook to
``DIR/release-per-student/<student>/<name>/<name>.ipynb``, its setup cell naming the student and the statement of
every prediction with variants showing the student's numbers (those statement cells are left unlocked, so that the
student's copy, and the feedback made from it, keep the student's numbers). The teacher hands each student their
folder (the hub's home folders, a learning platform); ``nbgrader autograde`` then grades each student on the numbers
they saw.

Every other cell is locked (read-only). Links to another course notebook point at that assignment's folder
(``../<name>/<name>.ipynb``, where nbgrader's fetch puts it); the link to contents.ipynb is dropped; a file under
notebooks/ that the prose links to or shows is copied beside the notebook (the notebooks have none today: notebook
10's model files come from attn_lib's cache).

A learner may hand in the course's own notebook instead of the release (from the browser edition, Binder, a hub or
their machine: it has no nbgrader metadata). The course's config runs tools/nbgrader_ways_in.py's step first in
``nbgrader autograde``, which gives such a notebook the release's metadata, so that it is graded as the release
handed in with the same answers.

The machine that autogrades needs the course's requirements and attn_lib installed (``pip install -r
requirements-teacher.txt`` from the repository), and notebook 10 needs the model's files: run ``python -m
attn_lib.minilm`` once on that machine (and on the learners' hub) so that grading does not download them.
"""

from __future__ import annotations

import argparse
import copy
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import nbformat

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
SOLUTIONS = NOTEBOOKS / "solutions"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))
from attn_lib.exercises._problem_book import PREDICTIONS, statement_output, student_seed  # noqa: E402
import problems as course_problems  # noqa: E402  (tools/problems.py: what a problem is)
from problems import Problem, ProblemShapeError  # noqa: E402
from nbgrader_release import (  # noqa: E402  (tools/nbgrader_release.py: what each cell becomes in the release)
    SOURCE_STUDENT_NUMBERS, STUDENT_NUMBERS, CourseError, checker_call, course_notebooks, held_by_another_version,
    nbgrader_meta, relink, setup_cell, solution_source, test_source)

COURSE_ID = "attention-course"
PROBLEM_NUMBER = re.compile(r"^(?:problem|exercise)\s+(\d+)", re.IGNORECASE)
PER_STUDENT_FOLDER = "release-per-student"
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

# Seconds per cell. The slowest cell of any notebook takes about 14 s on an idle two-core machine (09's training of one
# and two heads); 120 s leaves a wide margin for a loaded machine and costs a learner's endless loop in a top-level cell
# 2 minutes, not 10. A learner's function that loops is stopped by its checker after 10 s.
c.Execute.timeout = 120
# A cell that runs past that is interrupted and fails; the notebook's other cells still run and are scored.
c.Execute.interrupt_on_timeout = True

# A graded cell the learner deleted is put back from the source notebook and run (nbgrader's default drops it, and
# its points with it, without a word in the log).
c.OverwriteCells.add_missing_cells = True

# The feedback pages (generate_feedback) are the course's own template (tools/feedback_page/): the score, each
# problem's verdict and the checker's reason and hint in place of the test cell's code, and nothing loaded from
# outside the page (nbgrader's template loads MathJax from a CDN, and the classic one jQuery and require.js).
c.HTMLExporter.extra_template_basedirs = [{tools!r}]
c.HTMLExporter.template_name = "feedback_page"

# A course notebook handed in from another way in (the browser edition, Binder, a hub, a laptop) has no nbgrader
# metadata: the course's first sanitizing step gives its cells the release's (tools/nbgrader_ways_in.py), so that it
# is graded as the release handed in with the same answers. nbgrader's own steps follow, as by default.
import sys  # noqa: E402

from nbgrader.converters import Autograde  # noqa: E402

sys.path.insert(0, {tools!r})
try:
    from nbgrader_ways_in import GiveReleaseMetadata  # noqa: E402  (the course's tools/nbgrader_ways_in.py)
except ImportError as error:  # the repository moved: the release still grades, a course notebook would not
    print(f"nbgrader_config.py: {{error}}; a course notebook handed in from the browser edition, Binder, a hub or a "
          f"laptop cannot be graded until tools/nbgrader_ways_in.py imports from {tools!r} (write the course again "
          "with tools/nbgrader_course.py DIR --force)", file=sys.stderr)
else:
    nbgraders_own = Autograde.class_traits()["sanitize_preprocessors"].default()
    c.Autograde.sanitize_preprocessors = [GiveReleaseMetadata, *nbgraders_own]


# They write the markdown's formulas as MathML, which a browser draws with no network, as the course's reading copy
# does (tools/build_html.py, with latex2mathml); without it the TeX is shown as it is written.
try:
    import build_html  # noqa: F401  (the course's tools/build_html.py)
except ImportError:  # the repository moved, or latex2mathml is not installed
    pass
else:
    c.HTMLExporter.filters = {{"markdown2html": "build_html.markdown_to_html"}}
'''


@dataclass
class Graded:
    """One graded problem of an assignment."""

    heading: str
    grade_id: str
    checker: str
    points: int
    problem_id: str | None = None  # a prediction's id ("05-P2"); None for a function problem


@dataclass
class Role:
    """What an answer or checker cell of the learner notebook becomes in the source notebook."""

    grade_id: str
    source: str
    points: int | None = None  # a test cell's points; None for an answer (solution) cell


def problems(nb, where: str) -> list[Problem]:
    """Every problem of ``nb`` (tools/problems.py), a malformed one refused as a CourseError."""
    try:
        return course_problems.problems(nb, where)
    except ProblemShapeError as error:
        raise CourseError(str(error)) from None


class Paired(NamedTuple):
    """One problem as the learner notebook sets it and as the solutions notebook answers it."""

    learner: Problem
    solved: Problem


def paired_problems(name: str, learner, solved) -> list[Paired]:
    """The learner's problems beside the solutions notebook's, checked to be the same problems in the same order."""
    set_ = problems(learner, f"notebooks/{name}.ipynb")
    answered = problems(solved, f"notebooks/solutions/{name}-solutions.ipynb")
    for k, problem in enumerate(set_):
        solution = answered[k] if k < len(answered) else None
        if solution is None or solution.heading != problem.heading:
            found = solution.heading if solution else "nothing"
            raise CourseError(f"{name}: problem {k + 1} is {problem.heading!r} in the learner notebook but "
                              f"{found!r} in notebooks/solutions/{name}-solutions.ipynb")
        # The graded cell runs the learner notebook's call; the solutions may word its arguments differently (10's
        # solutions name n), but must call the same checker.
        where = f"{name}, {problem.heading!r}"
        if checker_call(solution.checker, where + " (solutions)")[0] != checker_call(problem.checker, where)[0]:
            raise CourseError(f"{where}: the learner notebook and the solutions notebook call different checkers")
    if len(answered) > len(set_):
        raise CourseError(f"{name}: the solutions notebook has {len(answered) - len(set_)} problem(s) more, from "
                          f"{answered[len(set_)].heading!r}")
    return [Paired(*pair) for pair in zip(set_, answered)]


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


def assignment(name: str, stems: set[str], learner=None, solved=None, student_numbers: bool = False
               ) -> tuple[nbformat.NotebookNode, list[Graded]]:
    """The source notebook of one assignment, and its graded problems; ``learner`` and ``solved`` default to
    notebooks/NAME.ipynb and notebooks/solutions/NAME-solutions.ipynb. With ``student_numbers``, its setup cell
    makes every check use the numbers of the student being graded."""
    learner = learner or nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    solution_path = SOLUTIONS / f"{name}-solutions.ipynb"
    found = problems(learner, f"notebooks/{name}.ipynb")
    if found and solved is None and not solution_path.exists():
        raise CourseError(f"{name}: it sets {len(found)} problem(s) but {solution_path.relative_to(ROOT)} is missing")
    if found and solved is None:
        solved = nbformat.read(solution_path, as_version=4)
    pairs = paired_problems(name, learner, solved) if found else []

    nb = nbformat.v4.new_notebook(metadata=learner.metadata)
    graded, roles = [], {}  # roles: the index of an answer or checker cell in the learner notebook -> its Role
    statements = {}  # the index of a prediction's statement cell -> its problem id
    used_ids = set()
    for k, (problem, solution) in enumerate(pairs):
        number = PROBLEM_NUMBER.match(problem.heading)
        label = f"problem-{number.group(1) if number else k + 1}"
        if label in used_ids:
            raise CourseError(f"{name}: two problems are numbered {label!r}")
        used_ids.add(label)
        checker, call, problem_id = checker_call(problem.checker, f"{name}, {problem.heading!r}")
        function = problem.asks_for_a_function
        points = 2 if function else 1
        roles[problem.answer_index] = Role(f"{label}-answer", solution_source(problem.answer.source,
                                                                           solution.answer.source))
        roles[problem.checker_index] = Role(f"{label}-check", test_source(checker, call), points)
        graded.append(Graded(problem.heading, f"{label}-check", checker, points, problem_id))
        if problem_id is not None:
            statements[problem.index + (problem.statement is not None)] = problem_id

    setup = setup_cell(learner)
    for i, cell in enumerate(learner.cells):
        role = roles.get(i)
        metadata = {k: v for k, v in cell.metadata.items() if k not in ("jupyter", "collapsed", "execution")}
        if role is None:
            source = relink(cell.source, stems) if cell.cell_type == "markdown" else cell.source
            if i == setup and student_numbers and any(g.problem_id for g in graded):
                source = f"{source.rstrip()}\n{SOURCE_STUDENT_NUMBERS}"
            metadata["nbgrader"] = nbgrader_meta(f"cell-{i:03d}")
            if i in statements:
                metadata["attn_course"] = {"statement_of": statements[i]}
        elif role.points is None:
            source = role.source
            metadata["nbgrader"] = nbgrader_meta(role.grade_id, solution=True, locked=False)
        else:
            source = role.source
            metadata["nbgrader"] = nbgrader_meta(role.grade_id, grade=True, points=role.points)
        if cell.cell_type == "code":
            new = nbformat.v4.new_code_cell(source, metadata=metadata)
        else:
            new = nbformat.v4.new_markdown_cell(source, metadata=metadata)
            if cell.get("attachments"):
                new.attachments = cell.attachments
        nb.cells.append(new)
    return nb, graded


def per_student(source, name: str, student: str):
    """A student's released notebook: the released notebook ``source`` (nbgrader's release/NAME/NAME.ipynb) with
    the setup cell naming the student and each prediction with variants stated with the student's numbers: its
    statement cell (``statement("NN-PK")``, which every prediction with variants has: tests/test_problems.py) stays
    locked and is given the output it shows when run (nbgrader's checksum of a locked cell covers its source, not
    its outputs)."""
    nb = copy.deepcopy(source)
    for cell in nb.cells:
        problem_id = cell.metadata.get("attn_course", {}).get("statement_of")
        if cell.cell_type == "code" and problem_id:
            data, metadata = statement_output(problem_id, student_seed(student, name), student)
            cell.outputs = [nbformat.v4.new_output("display_data", data=data, metadata=metadata)]
        elif cell.cell_type == "code" and SOURCE_STUDENT_NUMBERS in cell.source:
            named = STUDENT_NUMBERS.format(args=f"{student!r}, {name!r}")
            cell.source = cell.source.replace(SOURCE_STUDENT_NUMBERS, named)
    return nb


def write_per_student(directory: Path, names: list[str], students: list[str]) -> list[Path]:
    """Each student's released notebooks under DIR/release-per-student/<student>/<name>/, made from nbgrader's
    release/<name>/ (run ``nbgrader generate_assignment`` first)."""
    bad = [s for s in students if not re.fullmatch(r"[\w.@+-]+", s)]
    if bad:
        raise CourseError(f"--per-student: {', '.join(map(repr, bad))} cannot name a folder; expected student ids "
                          "made of letters, digits and . @ + - _")
    written = []
    for name in names:
        released = directory / "release" / name / f"{name}.ipynb"
        if not released.is_file():
            raise CourseError(f"{released} is missing: run `nbgrader generate_assignment {name}` in {directory} first")
        source = nbformat.read(released, as_version=4)
        if not any(SOURCE_STUDENT_NUMBERS in c.source for c in source.cells if c.cell_type == "code"):
            raise CourseError(f"{released} sets everyone the notebook's numbers: write the course with "
                              "--student-numbers (and --force), generate the assignment again, then --per-student")
        in_headings = sorted(pid for c in source.cells if c.cell_type == "markdown"
                             for pid in [c.metadata.get("attn_course", {}).get("statement_of")]
                             if pid in PREDICTIONS and PREDICTIONS[pid].has_variants)
        if in_headings:  # a release generated before statement cells: its headings would show the notebook's numbers
            raise CourseError(f"{released} states {', '.join(in_headings)} in their headings, as a release generated "
                              "before statement cells does, so it cannot show a student their own numbers: generate "
                              "the assignment again (nbgrader generate_assignment NAME --force), then --per-student")
        for student in students:
            folder = directory / PER_STUDENT_FOLDER / student / name
            folder.mkdir(parents=True, exist_ok=True)
            for extra in released.parent.iterdir():
                if extra.is_file() and extra.name != released.name:
                    shutil.copyfile(extra, folder / extra.name)
            nbformat.write(per_student(source, name, student), folder / f"{name}.ipynb")
            written.append(folder / f"{name}.ipynb")
    return written


CONFIG_FILE = "nbgrader_config.py"
BACKUP_FILE = "nbgrader_config.py.bak"
# What a course folder may hold that a teacher or nbgrader made, named when DIR is refused.
KEPT = ("gradebook.db", "release", "submitted", "autograded", "feedback")


def check_folder(directory: Path, force: bool) -> None:
    """Refuse a DIR that is a file, or that already holds a course and ``force`` is not given."""
    if directory.exists() and not directory.is_dir():
        raise CourseError(f"{directory}: it is a file, not a folder; give the course folder to write")
    if (directory / CONFIG_FILE).exists() and not force:
        held = [CONFIG_FILE, *(n for n in KEPT if (directory / n).exists())]
        raise CourseError(f"{directory} already holds an nbgrader course ({', '.join(held)}); --force rewrites its "
                          f"{CONFIG_FILE} (the old one kept as {BACKUP_FILE}) and the course's notebooks under "
                          "source/, and keeps the gradebook and the submissions")


def check_gradebook(directory: Path, built: dict) -> None:
    """Refuse to write an assignment over the one the course's gradebook (DIR/gradebook.db) holds submissions of,
    when this version of the course grades it otherwise (other graded cells, points or locked cells): nbgrader would
    grade those submissions again on this version's checkers, or refuse with a traceback."""
    gradebook_file = directory / "gradebook.db"
    if not gradebook_file.is_file():
        return
    with gradebook_file.open("rb") as file:
        if file.read(16) != b"SQLite format 3\0":
            return  # a file that is no database: nbgrader itself refuses it
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(f"sqlite:///{gradebook_file}", COURSE_ID) as gradebook:
        for name, (nb, _) in built.items():
            try:
                notebook = gradebook.find_notebook(name, name)
            except MissingEntry:
                continue
            held = held_by_another_version(notebook, nb, name)
            if held and notebook.submissions:
                raise CourseError(
                    f"{gradebook_file} {held}. Writing this version over it would grade them again on other checkers "
                    "or points. Write this version into a new course folder (it gets its own gradebook), or keep "
                    "grading these with the version that wrote this course; nothing was written")


def stale_assignments(directory: Path, stems: set[str]) -> list[str]:
    """The folders under DIR/source/ that are not course notebooks (left in place: the teacher's, or a renamed
    notebook's)."""
    source = directory / "source"
    return sorted(p.name for p in source.iterdir() if p.is_dir() and p.name not in stems) if source.is_dir() else []


def write_course(directory: Path, names: list[str] | None = None, force: bool = False,
                 student_numbers: bool = False) -> dict[str, list[Graded]]:
    """Write the course at ``directory`` (its config and source/<name>/<name>.ipynb); return the graded problems.

    Raises
    ------
    CourseError
        When ``directory`` is a file, or already holds a course and ``force`` is false, or a notebook does not fit,
        or its gradebook holds submissions of an assignment that this version grades otherwise.
    """
    check_folder(directory, force)
    stems = set(course_notebooks())
    names = names or sorted(stems)
    built = {name: assignment(name, stems, student_numbers=student_numbers) for name in names}  # checked first
    check_gradebook(directory, built)
    directory.mkdir(parents=True, exist_ok=True)
    tools = str(Path(__file__).resolve().parent)  # the config imports build_html and finds feedback_page/ here
    config, config_text = directory / CONFIG_FILE, CONFIG.format(course_id=COURSE_ID, tools=tools)
    if config.exists() and config.read_text(encoding="utf-8") != config_text:
        shutil.copyfile(config, directory / BACKUP_FILE)
    config.write_text(config_text, encoding="utf-8")
    for name, (nb, _) in built.items():
        folder = directory / "source" / name
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, folder / f"{name}.ipynb")
        for path in local_files(nb, name):
            (folder / path.relative_to(NOTEBOOKS)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, folder / path.relative_to(NOTEBOOKS))
    return {name: graded for name, (_, graded) in built.items()}


def selected(only: list[str] | None, names: list[str]) -> list[str]:
    """The notebooks ``--only`` names (number prefixes or whole names); every value must name one."""
    if not only:
        return names
    unknown = [o for o in only if not any(n == o or n.startswith(f"{o}-") for n in names)]
    if unknown:
        raise CourseError(f"--only: {', '.join(unknown)} names no course notebook; expected a number prefix "
                          f"({', '.join(n[:2] for n in names)}) or a whole name")
    return [n for n in names if any(n == o or n.startswith(f"{o}-") for o in only)]


def summary(course: dict[str, list[Graded]]) -> str:
    """A markdown table: per notebook, the problems answered by a function and the others, and the points."""
    lines = ["| notebook | write a function (2 points) | predict (1 point) | points |",
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
    parser.add_argument("--force", action="store_true",
                        help="write into a folder that already holds the course (keeps gradebook and submissions)")
    parser.add_argument("--summary", action="store_true", help="print the points per notebook; write nothing")
    parser.add_argument("--student-numbers", action="store_true",
                        help="write the course so that each student is set and graded on numbers of their own")
    parser.add_argument("--per-student", nargs="+", metavar="STUDENT",
                        help="write each student's released notebooks with their own numbers under "
                             f"DIR/{PER_STUDENT_FOLDER}/ (after nbgrader generate_assignment); write nothing else")
    parser.add_argument("--audit", action="store_true",
                        help="list the learner-written cells of DIR/submitted/ that touch the checkers, the "
                             "answers copied from a classmate's numbers, and the submissions that show other "
                             "numbers than they are graded on; write nothing")
    args = parser.parse_args(argv)
    if args.directory is None and not args.summary:
        parser.error("give the course folder DIR (or --summary)")
    try:
        if args.audit:
            import nbgrader_audit  # noqa: PLC0415  (tools/nbgrader_audit.py)

            import nbgrader_copying  # noqa: PLC0415  (tools/nbgrader_copying.py)

            found = nbgrader_audit.audit(args.directory)
            print("\n".join(found) if found else "no cell a learner wrote touches the checkers")
            copied = nbgrader_copying.copying(args.directory)
            print("\n".join(copied) if copied else "no answer is right for a classmate's numbers and wrong for the "
                  "student's own (a course with per-student numbers; one without cannot tell)")
            import nbgrader_shown  # noqa: PLC0415  (tools/nbgrader_shown.py)

            shown = nbgrader_shown.shown_numbers(args.directory)
            print("\n".join(shown) if shown else "every submission shows the numbers it is graded on")
            return 0
        names = selected(args.only, course_notebooks())
        if args.per_student:
            written = write_per_student(args.directory, names, args.per_student)
            print(f"wrote {len(written)} notebook(s) for {len(args.per_student)} student(s) under "
                  f"{args.directory / PER_STUDENT_FOLDER}")
            return 0
        if args.summary:
            stems = set(course_notebooks())
            course = {name: assignment(name, stems)[1] for name in names}
        else:
            config = args.directory / CONFIG_FILE
            old_config = config.read_text(encoding="utf-8") if config.is_file() else None
            course = write_course(args.directory, names, force=args.force, student_numbers=args.student_numbers)
            if old_config is not None and old_config != config.read_text(encoding="utf-8"):
                print(f"your edited {CONFIG_FILE} is now {args.directory / BACKUP_FILE} and no longer in effect: "
                      f"copy the settings you need back into {config}")
    except (CourseError, FileNotFoundError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if not args.summary:
        print(f"wrote {args.directory / CONFIG_FILE} and {len(course)} assignment(s) under {args.directory / 'source'}")
        stale = stale_assignments(args.directory, set(course_notebooks()))
        if stale:
            print(f"left in place under {args.directory / 'source'}, not course notebooks: {', '.join(stale)}")
    print(summary(course))
    return 0


if __name__ == "__main__":
    sys.exit(main())
