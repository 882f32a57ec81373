"""The course as the review counts it, and what the learner's record says of it: each notebook's problems and
prompts, what is due for review at a given time, and ``progress()``.

The problems are every prediction problem (attn_lib.exercises' problem book) and every function-writing problem, by
the checker its notebook calls (the record's ``FUNCTION_PROBLEMS``).

Due are the prompts whose card is due, the prompts of reached notebooks never rated yet (new), and the problems
solved whose variants' card is due, never anything of a notebook the learner has not reached; in order of due time
(new prompts count as due now), so prompts and problems come mixed.

``progress()``: per notebook, problems solved of problems and prompts learned of prompts, as an HTML table (with a
caption and header cells for screen readers) and as plain text.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from datetime import datetime

from .._record.changes import FUNCTION_PROBLEMS
from .._record.file import load
from .._record.schedule import Now, clock, due, learned
from ._prompts import PROMPTS

NOTEBOOKS = tuple(f"{n:02d}" for n in range(11))


def predictions() -> dict:
    from ..exercises._problem_book import PREDICTIONS

    return PREDICTIONS


def problems_of(notebook: str) -> list[str]:
    """The ids of notebook ``notebook``'s problems, in order."""
    ids = [i for i in list(predictions()) + list(FUNCTION_PROBLEMS.values()) if i[:2] == notebook]
    return sorted(ids, key=lambda i: int(i.split("-P")[1]))


def has_variants(problem_id: str) -> bool:
    prediction = predictions().get(problem_id)
    return prediction is not None and prediction.has_variants


def prompts_of_notebook(notebook: str) -> list:
    return [prompt for prompt in PROMPTS if prompt.notebook == notebook]


def checked_notebook(notebook, name: str = "notebook") -> str:
    """``notebook`` as "05"; an int 5 is accepted. Anything else is refused, naming the notebooks."""
    if isinstance(notebook, int) and not isinstance(notebook, bool):
        notebook = f"{notebook:02d}"
    if not isinstance(notebook, str) or notebook not in NOTEBOOKS:
        raise ValueError(f"{name} must be a notebook's number, \"00\" to \"10\"; got {notebook!r}")
    return notebook


# ---------------------------------------------------------------------------------------------------------------
# What is due.


@dataclass(frozen=True)
class Item:
    kind: str  # "prompt" or "variant"
    id: str  # "05-R1" or "05-P2"
    due: datetime  # when it became due (a new prompt: now)
    new: bool = False

    @property
    def notebook(self) -> str:
        return self.id[:2]


def due_items(record: dict, now: datetime) -> list[Item]:
    """Everything due at ``now``, oldest first."""
    reached = set(record["reached"])
    items = []
    for prompt in PROMPTS:
        if prompt.notebook not in reached:
            continue
        item = record["prompts"].get(prompt.id)
        if item is None:
            items.append(Item("prompt", prompt.id, now, new=True))
        elif due(item) <= now:
            items.append(Item("prompt", prompt.id, due(item)))
    for problem_id, item in record["variants"].items():
        if problem_id[:2] in reached and has_variants(problem_id) and due(item) <= now:
            items.append(Item("variant", problem_id, due(item)))
    return sorted(items, key=lambda i: (i.due, i.id))


def next_due(record: dict, now: datetime) -> datetime | None:
    """When the next item falls due after ``now`` (None: nothing is scheduled)."""
    reached = set(record["reached"])
    known = {prompt.id for prompt in PROMPTS}
    times = [due(item) for key, item in record["prompts"].items() if key in known and key[:2] in reached]
    times += [due(item) for key, item in record["variants"].items() if key[:2] in reached and has_variants(key)]
    later = [t for t in times if t > now]
    return min(later) if later else None


# ---------------------------------------------------------------------------------------------------------------
# The learner's progress.

COLUMNS = ("Notebook", "Reached", "Problems solved", "Prompts learned", "Due now")
LEARNED = "a prompt is learned once you recalled it again on a later day, and did not miss it on its last review"


@dataclass(frozen=True)
class Row:
    notebook: str
    reached: bool | int  # the "all" row: how many notebooks are reached
    solved: int
    problems: int
    learned: int
    prompts: int
    due: int

    notebooks: int = 1  # how many notebooks the row counts (the "all" row: every one, reached counted)

    def cells(self) -> tuple:
        reached = (("yes" if self.reached else "not yet") if self.notebooks == 1
                   else f"{self.reached} of {self.notebooks}")
        return (self.notebook, reached, f"{self.solved} of {self.problems}", f"{self.learned} of {self.prompts}",
                str(self.due))


@dataclass(frozen=True)
class Progress:
    rows: tuple

    @property
    def total(self) -> Row:
        return Row("all", sum(bool(r.reached) for r in self.rows), sum(r.solved for r in self.rows),
                   sum(r.problems for r in self.rows), sum(r.learned for r in self.rows),
                   sum(r.prompts for r in self.rows), sum(r.due for r in self.rows), notebooks=len(self.rows))

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
    due_in = [item.notebook for item in due_items(record, moment)]  # the notebook of each item due
    rows = []
    for notebook in NOTEBOOKS:
        problems = problems_of(notebook)
        prompts = prompts_of_notebook(notebook)
        rows.append(Row(notebook, notebook in record["reached"], sum(p in record["solved"] for p in problems),
                        len(problems), sum(learned(record["prompts"].get(p.id)) for p in prompts), len(prompts),
                        due_in.count(notebook)))
    return Progress(tuple(rows))
