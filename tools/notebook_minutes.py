"""Print the planning minutes of the teacher's guide, computed from the notebooks by the guide's stated rule.

Usage (from the repository's top folder)::

    python tools/notebook_minutes.py

The rule: prose at 120 words a minute (the words of every markdown cell but the navigation), half a minute per
code cell to run it and read its output, plus a minute per 14 lines of code to read the code itself (lines that are
neither blank nor only a comment; neither counts a problem's answer and checker cells, nor an explorer's cell), 3.5
minutes per prediction problem (the guide says 3 to 4), 6 minutes per problem that asks for a function plus a minute
per line of code of its worked answer (the answer cell of the solutions notebook: a three-line softmax is 9 minutes,
a seventeen-line chunked attention 23), 5 per explorer, and a minute and a half per review prompt of the notebook
(recall, check, rate). Each notebook's minutes are rounded to 5; sessions add the rounded minutes.

The lines of code were added when read-throughs of 09 took 70 to 90 minutes against the 55 the rule gave: a cell
of thirty lines (a training loop, a backward pass) takes longer to read than a cell of one, and 09 has the most.
They were read at 20 a minute until a learner's read-through of 03 and 09 (2026-12-07) spent about twice that on
the code of both, checking printed tables against the prose: 14 a minute brings 03 and 09 within the expert's
estimates (70 to 80, 105 to 120), short of that learner's 80 and 150. The
function problems' lines and the review prompts were added when an expert's read-through of the course came to 900
to 1,000 minutes against the 790 the rule gave (08's chunked attention alone about 25 minutes, against 10), the
prompts left out altogether.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import problems  # noqa: E402  (tools/problems.py)

from attn_lib.review import _prompts  # noqa: E402  (the review prompts, by notebook)

NOTEBOOKS = problems.NOTEBOOKS
LINES_A_MINUTE = 14  # lines of code a reader reads (and checks against the output) in a minute
SESSIONS = (("00", "01", "02"), ("03", "04"), ("05", "06"), ("07",), ("08",), ("09",), ("10",))


def lines_of_code(source: str) -> int:
    """The lines of a code cell a reader reads as code: neither blank nor only a comment."""
    return sum(1 for line in source.splitlines() if line.strip() and not line.lstrip().startswith("#"))


def minutes(path: Path) -> tuple[float, dict]:
    """The rule's minutes for one notebook, unrounded, and the counts they come from."""
    nb = nbformat.read(path, as_version=4)
    nb.cells = [c for c in nb.cells if "nav" not in c.metadata.get("tags", [])]
    counts = {"words": 0, "code cells": 0, "lines of code": 0, "prediction problems": 0, "function problems": 0,
              "lines of worked functions": 0, "explorers": 0, "review prompts": 0}
    not_plain = set()  # indices of the answer and checker cells of problems, and of explorer cells
    for problem in problems.problems(nb, path.name):
        counts["function problems" if problem.asks_for_a_function else "prediction problems"] += 1
        not_plain |= {problem.answer_index, problem.checker_index}
        if problem.statement is not None:  # read as prose: the statement it shows
            not_plain.add(problem.index + 1)
            counts["words"] += sum(len(str(o.get("data", {}).get("text/markdown", "")).split())
                                   for o in problem.statement.get("outputs", []))
    asks = {problem.heading for problem in problems.problems(nb, path.name) if problem.asks_for_a_function}
    if asks:
        counts["lines of worked functions"] = sum(lines for heading, lines in worked_lines(path).items()
                                                  if heading in asks)
    counts["review prompts"] = sum(1 for prompt in _prompts.PROMPTS if prompt.id.startswith(f"{path.name[:2]}-"))
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            counts["words"] += len(cell.source.split())
        elif "_explorer(" in cell.source:
            counts["explorers"] += 1
            not_plain.add(i)
    plain = [c for i, c in enumerate(nb.cells) if c.cell_type == "code" and i not in not_plain]
    counts["code cells"] = len(plain)
    counts["lines of code"] = sum(lines_of_code(c.source) for c in plain)
    total = (counts["words"] / 120 + 0.5 * counts["code cells"] + counts["lines of code"] / LINES_A_MINUTE
             + 3.5 * counts["prediction problems"] + 6 * counts["function problems"]
             + counts["lines of worked functions"] + 5 * counts["explorers"] + 1.5 * counts["review prompts"])
    return total, counts


def worked_lines(path: Path) -> dict[str, int]:
    """Each problem's heading -> the lines of code of its worked answer (the answer cell of the notebook's solutions
    notebook, notebooks/solutions/<stem>-solutions.ipynb), for each problem whose worked answer defines a function (a
    prediction's may too: the learner notebook says which problems ask for one)."""
    solutions = path.parent / "solutions" / f"{path.stem}-solutions.ipynb"
    nb = nbformat.read(solutions, as_version=4)
    return {problem.heading: lines_of_code(nb.cells[problem.answer_index].source)
            for problem in problems.problems(nb, solutions.name) if problem.asks_for_a_function}


def paths(notebooks: Path = NOTEBOOKS) -> list[Path]:
    """The numbered notebooks, as tools/nav.py lists them."""
    return [notebooks / f"{stem}.ipynb" for stem in problems.numbered_notebooks(notebooks)]


def rounded_minutes(notebooks: Path = NOTEBOOKS) -> dict[str, int]:
    """Each notebook's minutes by the rule, rounded to 5, keyed by its two-digit number."""
    return {path.name[:2]: 5 * round(minutes(path)[0] / 5) for path in paths(notebooks)}


def main() -> None:
    rounded = rounded_minutes()
    for path in paths():
        total, counts = minutes(path)
        print(f"{path.stem:<36} {total:5.1f} -> {rounded[path.name[:2]]:3d} min  "
              + ", ".join(f"{value} {name}" for name, value in counts.items()))
    print(f"in all: {sum(rounded.values())} min")
    for session in SESSIONS:
        name = " to ".join(dict.fromkeys((session[0], session[-1])))
        print(f"session {name}: {sum(rounded[n] for n in session)} min")


if __name__ == "__main__":
    main()
