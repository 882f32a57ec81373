"""``progress()``: per notebook, problems solved of problems and prompts learned of prompts, as an HTML table
(with a caption and header cells for screen readers) and as plain text."""

from __future__ import annotations

import html
from dataclasses import dataclass

from ._clock import Now, clock
from ._course import NOTEBOOKS, problems_of, prompts_of_notebook
from ._queue import due_items
from ._schedule import learned
from ._store import load

COLUMNS = ("Notebook", "Reached", "Problems solved", "Prompts learned", "Due now")
LEARNED = "learned: recalled on a review days after the first (fsrs's Review state)"


@dataclass(frozen=True)
class Row:
    notebook: str
    reached: bool
    solved: int
    problems: int
    learned: int
    prompts: int
    due: int

    def cells(self) -> tuple:
        return (self.notebook, "yes" if self.reached else "not yet", f"{self.solved} of {self.problems}",
                f"{self.learned} of {self.prompts}", str(self.due))


@dataclass(frozen=True)
class Progress:
    rows: tuple

    @property
    def total(self) -> Row:
        return Row("all", all(r.reached for r in self.rows), sum(r.solved for r in self.rows),
                   sum(r.problems for r in self.rows), sum(r.learned for r in self.rows),
                   sum(r.prompts for r in self.rows), sum(r.due for r in self.rows))

    def __repr__(self) -> str:
        table = [COLUMNS] + [row.cells() for row in (*self.rows, self.total)]
        widths = [max(len(line[k]) for line in table) for k in range(len(COLUMNS))]
        lines = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in table]
        return "\n".join(["Your progress through the course", *lines, f"({LEARNED})"])

    def _repr_html_(self) -> str:
        head = "".join(f'<th scope="col">{html.escape(c)}</th>' for c in COLUMNS)
        body = "".join(
            f'<tr><th scope="row">{html.escape(row.cells()[0])}</th>'
            + "".join(f"<td>{html.escape(cell)}</td>" for cell in row.cells()[1:]) + "</tr>"
            for row in (*self.rows, self.total))
        return (f'<table class="attn-progress"><caption>Your progress through the course ({html.escape(LEARNED)})'
                f"</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")


def progress(now: Now = None) -> Progress:
    """The learner's progress per notebook, from their record: problems solved of problems, prompts learned of
    prompts, and how many reviews are due ``now`` (a timezone-aware datetime or a clock; None: the real clock)."""
    record = load()
    moment = clock(now)()
    due = [item.notebook for item in due_items(record, moment)]
    rows = []
    for notebook in NOTEBOOKS:
        problems = problems_of(notebook)
        prompts = prompts_of_notebook(notebook)
        rows.append(Row(notebook, notebook in record["reached"], sum(p in record["solved"] for p in problems),
                        len(problems), sum(learned(record["prompts"].get(p.id)) for p in prompts), len(prompts),
                        due.count(notebook)))
    return Progress(tuple(rows))
