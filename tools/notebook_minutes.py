"""Print the planning minutes of the teacher's guide, computed from the notebooks by the guide's stated rule.

Usage (from the repository's top folder)::

    python tools/notebook_minutes.py

The rule: prose at 120 words a minute (the words of every markdown cell but the navigation), half a minute per
code cell (not counting a problem's answer and checker cells, nor an explorer's cell), 3.5 minutes per prediction
problem (the guide says 3 to 4), 10 per problem that asks for a function (its answer cell raises
NotImplementedError), 5 per explorer. Each notebook's minutes are rounded to 5; sessions add the rounded minutes.
"""

from __future__ import annotations

import json
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
SESSIONS = (("00", "01", "02"), ("03", "04"), ("05", "06"), ("07", "08"), ("09",), ("10",))


def minutes(path: Path) -> tuple[float, dict]:
    """The rule's minutes for one notebook, unrounded, and the counts they come from."""
    cells = [c for c in json.loads(path.read_text())["cells"] if "nav" not in c.get("metadata", {}).get("tags", [])]
    counts = {"words": 0, "code cells": 0, "prediction problems": 0, "function problems": 0, "explorers": 0}
    not_plain = set()  # indices of the answer and checker cells of problems, and of explorer cells
    for i, cell in enumerate(cells):
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            counts["words"] += len(source.split())
            if source.startswith("### Problem"):
                function = "NotImplementedError" in "".join(cells[i + 1]["source"])
                counts["function problems" if function else "prediction problems"] += 1
                not_plain |= {i + 1, i + 2}
        elif "_explorer(" in source:
            counts["explorers"] += 1
            not_plain.add(i)
    counts["code cells"] = sum(1 for i, c in enumerate(cells) if c["cell_type"] == "code" and i not in not_plain)
    total = (counts["words"] / 120 + 0.5 * counts["code cells"] + 3.5 * counts["prediction problems"]
             + 10 * counts["function problems"] + 5 * counts["explorers"])
    return total, counts


def rounded_minutes(notebooks: Path = NOTEBOOKS) -> dict[str, int]:
    """Each notebook's minutes by the rule, rounded to 5, keyed by its two-digit number."""
    return {path.name[:2]: 5 * round(minutes(path)[0] / 5)
            for path in sorted(notebooks.glob("[0-9][0-9]-*.ipynb"))}


def main() -> None:
    rounded = rounded_minutes()
    for path in sorted(NOTEBOOKS.glob("[0-9][0-9]-*.ipynb")):
        total, counts = minutes(path)
        print(f"{path.stem:<36} {total:5.1f} -> {rounded[path.name[:2]]:3d} min  "
              + ", ".join(f"{value} {name}" for name, value in counts.items()))
    print(f"in all: {sum(rounded.values())} min")
    for session in SESSIONS:
        print(f"session {' to '.join(dict.fromkeys((session[0], session[-1])))}: {sum(rounded[n] for n in session)} min")


if __name__ == "__main__":
    main()
