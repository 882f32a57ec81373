"""Print the planning minutes of the teacher's guide, computed from the notebooks by the guide's stated rule.

Usage (from the repository's top folder)::

    python tools/notebook_minutes.py

The rule: prose at 120 words a minute (the words of every markdown cell but the navigation), half a minute per
code cell to run it and read its output, plus a minute per 20 lines of code to read the code itself (lines that are
neither blank nor only a comment; neither counts a problem's answer and checker cells, nor an explorer's cell), 3.5
minutes per prediction problem (the guide says 3 to 4), 10 per problem that asks for a function (its answer cell
defines one; what a problem is and when it asks for a function is tools/problems.py's), 5 per explorer. Each
notebook's minutes are rounded to 5; sessions add the rounded minutes.

The lines of code were added when read-throughs of 09 took 70 to 90 minutes against the 55 the rule gave: a cell
of thirty lines (a training loop, a backward pass) takes longer to read than a cell of one, and 09 has the most.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
import problems  # noqa: E402  (tools/problems.py)

NOTEBOOKS = problems.NOTEBOOKS
SESSIONS = (("00", "01", "02"), ("03", "04"), ("05", "06"), ("07",), ("08",), ("09",), ("10",))


def lines_of_code(source: str) -> int:
    """The lines of a code cell a reader reads as code: neither blank nor only a comment."""
    return sum(1 for line in source.splitlines() if line.strip() and not line.lstrip().startswith("#"))


def minutes(path: Path) -> tuple[float, dict]:
    """The rule's minutes for one notebook, unrounded, and the counts they come from."""
    nb = nbformat.read(path, as_version=4)
    nb.cells = [c for c in nb.cells if "nav" not in c.metadata.get("tags", [])]
    counts = {"words": 0, "code cells": 0, "lines of code": 0, "prediction problems": 0, "function problems": 0,
              "explorers": 0}
    not_plain = set()  # indices of the answer and checker cells of problems, and of explorer cells
    for problem in problems.problems(nb, path.name):
        counts["function problems" if problem.asks_for_a_function else "prediction problems"] += 1
        not_plain |= {problem.index + 1, problem.index + 2}
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            counts["words"] += len(cell.source.split())
        elif "_explorer(" in cell.source:
            counts["explorers"] += 1
            not_plain.add(i)
    plain = [c for i, c in enumerate(nb.cells) if c.cell_type == "code" and i not in not_plain]
    counts["code cells"] = len(plain)
    counts["lines of code"] = sum(lines_of_code(c.source) for c in plain)
    total = (counts["words"] / 120 + 0.5 * counts["code cells"] + counts["lines of code"] / 20
             + 3.5 * counts["prediction problems"] + 10 * counts["function problems"] + 5 * counts["explorers"])
    return total, counts


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
