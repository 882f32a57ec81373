"""docs/teachers-guide.md against the notebooks it describes: its minutes follow its own rule
(tools/notebook_minutes.py), its table of problems names as many problems, and the checkers, each notebook has, and
its table of points is what ``tools/nbgrader_course.py --summary`` prints."""

from __future__ import annotations

import itertools
import re
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import nbgrader_course  # noqa: E402  (tools/nbgrader_course.py)
import notebook_minutes  # noqa: E402
import problems  # noqa: E402  (tools/problems.py)

GUIDE = (ROOT / "docs" / "teachers-guide.md").read_text(encoding="utf-8")
NOTEBOOKS = notebook_minutes.paths()  # the numbered notebooks, as tools/nav.py lists them


def guide_rows() -> dict[str, list[str]]:
    """The rows of the table "How long each notebook takes", keyed by the notebook's two-digit number."""
    section = GUIDE.split("## How long each notebook takes", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and re.fullmatch(r"\d\d .*", cells[0]):
            rows[cells[0][:2]] = cells
    return rows


def test_the_guide_has_a_row_for_every_notebook():
    assert sorted(guide_rows()) == [p.name[:2] for p in NOTEBOOKS]


def test_the_minutes_in_the_guide_follow_its_rule():
    computed = notebook_minutes.rounded_minutes()
    in_guide = {number: int(cells[1]) for number, cells in guide_rows().items()}
    assert in_guide == computed, (f"docs/teachers-guide.md's minutes {in_guide} are not the rule's {computed}: copy "
                                  "them from `python tools/notebook_minutes.py` into its table")
    total = re.search(r"About (\d+) minutes in all", GUIDE)
    assert total and int(total.group(1)) == sum(computed.values()), (
        f"docs/teachers-guide.md: write 'About {sum(computed.values())} minutes in all'")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:2])
def test_the_guide_lists_each_problem_and_its_checkers(path):
    nb = nbformat.read(path, as_version=4)
    problems = [c for c in nb.cells if c.cell_type == "markdown" and c.source.startswith("### Problem")]
    # a problem's number is its id's K, stable forever: in reading order, not necessarily 1, 2, 3 (a new problem
    # takes the next free K wherever it sits)
    in_notebook = [int(re.match(r"### Problem (\d+)", c.source).group(1)) for c in problems]
    checkers = {m for c in nb.cells if c.cell_type == "code" for m in re.findall(r"\b(check_\w+)\(", c.source)}
    listed = guide_rows()[path.name[:2]][2]
    numbers = [int(n) for n in re.findall(r"(?:^|; )(\d+) ", listed)]
    assert numbers == in_notebook, (
        f"docs/teachers-guide.md's row for {path.name[:2]} lists problems {numbers}; {path.name} has "
        f"{in_notebook}, in that order: add a '<number> <what it asks> (`check_...`)' entry for each: {listed}")
    named = set(re.findall(r"`(check_\w+)`", listed))
    assert named <= checkers, f"the guide names checkers {sorted(named - checkers)} that {path.name} does not call"


def test_the_guides_points_table_is_what_summary_prints(capsys):
    assert nbgrader_course.main(["--summary"]) == 0
    printed = capsys.readouterr().out.strip()
    section = GUIDE.split("## Grading with nbgrader", 1)[1].split("\n## ", 1)[0]
    after = section.split("`python ~/REPO/tools/nbgrader_course.py --summary` prints this table:", 1)[1].strip()
    table = list(itertools.takewhile(lambda line: line.startswith("|"), after.splitlines()))
    assert "\n".join(table) == printed, ("docs/teachers-guide.md's points table is not what "
                                         "`python tools/nbgrader_course.py --summary` prints: paste its output")


def grading_section() -> str:
    return " ".join(GUIDE.split("## Grading with nbgrader", 1)[1].split("\n## ", 1)[0].split())


def test_the_guides_timeout_per_cell_is_the_configs():
    timeout = re.search(r"c\.Execute\.timeout = (\d+)", nbgrader_course.CONFIG).group(1)
    assert f"{timeout} s per cell" in grading_section()


def test_the_guides_nbgrader_pin_for_the_hub_image_is_requirements_teachers():
    pin = next(line for line in (ROOT / "requirements-teacher.txt").read_text(encoding="utf-8").splitlines()
               if line.startswith("nbgrader"))
    assert f'python -m pip install "{pin}"' in grading_section()


def test_the_guides_count_of_predictions_measured_after_their_checker_is_the_notebooks():
    followed, predictions, in_06 = 0, 0, []
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        for problem in problems.problems(nb, path.name):
            if problem.asks_for_a_function:
                continue
            predictions += 1
            followed += problems.output_follows(nb, problem)
            if path.name.startswith("06-"):  # the guide says: printed by the code cell right after the checker
                after = nb.cells[problem.index + 3]
                in_06.append(after.cell_type == "code" and bool(after.outputs))
    words = {3: "three"}
    assert in_06 and all(in_06)
    text = grading_section()
    assert f"in 06 each of the {words.get(len(in_06), len(in_06))} predictions" in text
    assert f"{followed} of the {predictions} predictions have a code cell with output after the checker" in text, (
        f"docs/teachers-guide.md, section \"Grading with nbgrader\": write 'across the course {followed} of the "
        f"{predictions} predictions have a code cell with output after the checker'")


def test_the_rule_reads_long_code_cells_longer(tmp_path):
    """Read-throughs of 09 took 70-90 minutes where a rule blind to the length of code cells gave 55: the rule
    counts lines of code (neither blank nor only a comment) at 14 a minute, beside half a minute per cell."""
    def notebook(source):
        path = tmp_path / f"{len(source)}.ipynb"
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
        nbformat.write(nb, path)
        return notebook_minutes.minutes(path)

    short, counts_short = notebook("x = 1")
    long, counts_long = notebook("\n".join(["# a comment", ""] + [f"x{i} = {i}" for i in range(40)]))
    assert counts_short["lines of code"] == 1 and counts_long["lines of code"] == 40
    assert long - short == pytest.approx(39 / notebook_minutes.LINES_A_MINUTE)


def test_the_rule_counts_a_function_problem_by_its_worked_answer_and_every_review_prompt():
    """An expert's read-through came to 900-1,000 minutes where a rule giving every function problem 10 minutes and
    the review prompts none gave 790: 08's chunked attention alone took about 25."""
    from attn_lib.review._prompts import PROMPTS

    path = next(p for p in NOTEBOOKS if p.name.startswith("08"))
    lines = notebook_minutes.worked_lines(path)
    chunked = next(n for heading, n in lines.items() if "chunks" in heading)
    assert chunked >= 3 * min(lines.values()) and 6 + chunked >= 20
    total, counts = notebook_minutes.minutes(path)
    assert counts["review prompts"] == sum(p.id.startswith("08-") for p in PROMPTS) >= 4
    assert counts["function problems"] == 4 and counts["lines of worked functions"] < sum(lines.values())  # Problem
    # 9's worked answer defines a function, but the learner's notebook asks for a number there


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:2])
def test_the_guide_marks_exactly_the_problems_with_variants(path):
    from attn_lib.exercises._problem_book import PREDICTIONS

    number = path.name[:2]
    listed = guide_rows()[number][2]
    marked = {f"{number}-P{n}" for n, words in re.findall(r"(?:^|; )(\d+) ([^;]*)", listed) if "(variants)" in words}
    expected = {pid for pid, p in PREDICTIONS.items() if pid.startswith(number) and p.has_variants}
    assert marked == expected, (f"docs/teachers-guide.md's row for {number}: mark with '(variants)' exactly "
                                f"{sorted(expected)}; it marks {sorted(marked)}")


def test_the_guides_sessions_add_up_the_minutes_of_their_notebooks():
    """"00 to 02 (the line, shapes, scores: 110)": each session's minutes are its notebooks' (the table's)."""
    minutes = {number: int(cells[1]) for number, cells in guide_rows().items()}
    sentence = " ".join(GUIDE.split("minutes in all, in", 1)[1].split("\n\n", 1)[0].split())
    sessions = re.findall(r"(\d\d)(?: (to|and) (\d\d))? \([^:()]*: (\d+)", sentence)
    covered = []
    for first, joint, last, said in sessions:
        numbers = ([f"{n:02d}" for n in range(int(first), int(last) + 1)] if joint == "to" else
                   [first, last] if joint else [first])
        covered += numbers
        assert int(said) == sum(minutes[n] for n in numbers), (
            f"docs/teachers-guide.md: the session {first}{f' {joint} {last}' if joint else ''} takes "
            f"{sum(minutes[n] for n in numbers)} minutes by the table, not {said}")
    assert covered == sorted(minutes), f"the sessions cover {covered}, the notebooks are {sorted(minutes)}"


def test_the_guides_autograde_table_has_every_notebook_with_its_points():
    """The measured table of "How long autograding takes": one row per assignment, with the points the course
    gives it today (a measurement goes stale; its points and rows must not)."""
    points = {name: sum(g.points for g in graded) for name, graded in
              ((name, nbgrader_course.assignment(name, set(nbgrader_course.course_notebooks()))[1])
               for name in nbgrader_course.course_notebooks())}
    section = GUIDE.split("### How long autograding takes", 1)[1]
    rows = dict(re.findall(r"^(\d\d-[\w-]+)\s+[\d.]+\s+[\d.-]*\s+[\d.]+\s+(\d+)/\d+", section, re.MULTILINE))
    assert rows == {name: str(p) for name, p in points.items()}, (
        "docs/teachers-guide.md's autograde table: run `python benchmarks/grading_cost.py` and paste its table")
