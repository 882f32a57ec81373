"""Write the navigation lines of every notebook, and notebooks/contents.ipynb, from tools/course.toml.

Each course notebook (notebooks/NN-name.ipynb, and contents.ipynb) gets a markdown cell at the top and one at the
bottom, tagged "nav", linking previous | contents | next; the order comes from the numbered file names. The review
notebook (review.ipynb) links back to the contents. Each
solutions notebook (notebooks/solutions/NN-name-solutions.ipynb) links back to its learner notebook and to the
contents. Only those markdown cells are inserted or rewritten: code cells and their outputs are left as they are,
and a notebook whose navigation is already right is not written at all (running the tool twice changes nothing).
contents.ipynb is written whole, but its one code cell (the learner's progress) keeps the outputs
tools/build_notebooks.py stored while its source stays the same.

Usage::

    python tools/nav.py            # insert or rewrite the navigation cells, regenerate contents.ipynb
    python tools/nav.py --check    # change nothing; exit 1 and name the stale notebooks if any
"""

from __future__ import annotations

import argparse
import copy
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    try:
        import tomli as tomllib
    except ModuleNotFoundError:
        raise ModuleNotFoundError(
            "tools/nav.py reads tools/course.toml: it needs Python 3.11+ (tomllib) or, on 3.10, `pip install tomli`"
        ) from None

ROOT = Path(__file__).resolve().parent.parent
COURSE_FILE = Path(__file__).resolve().parent / "course.toml"
NAV_TAG = "nav"
CONTENTS = "contents.ipynb"
REVIEW = "review.ipynb"  # the review session: due prompts and variants of solved problems (attn_lib.review)
NUMBERED = re.compile(r"^(\d\d)-[a-z0-9-]+\.ipynb$")
SOLUTION = re.compile(r"^(\d\d-[a-z0-9-]+)-solutions\.ipynb$")
BINDER_URL = "https://mybinder.org/v2/gh/{slug}/{ref}?urlpath=lab/tree/notebooks/{path}"

# Equation 1 of the paper, displayed at the top of both contents pages, in the course's notation (TeX).
EQUATION_1 = r"$$\operatorname{Attention}(Q, K, V) = \operatorname{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right) V$$"


@dataclass(frozen=True)
class Entry:
    """One numbered notebook of the course: its file name (``02-scores.ipynb``) and its course.toml record."""

    name: str
    title: str
    teaches: str
    facts: tuple

    @property
    def stem(self) -> str:
        return self.name[: -len(".ipynb")]

    @property
    def number(self) -> str:
        return self.name[:2]

    @property
    def label(self) -> str:
        return f"{self.number} {self.title}"


def load_course(course_file: Path = COURSE_FILE) -> dict:
    """The parsed course.toml (repository slug and ref, one record per notebook, one line per fact)."""
    with open(course_file, "rb") as f:
        return tomllib.load(f)


def binder_url(course: dict, path: str) -> str:
    """The Binder link that opens ``notebooks/<path>`` in JupyterLab, for the repository named in course.toml."""
    repo = course["repository"]
    return BINDER_URL.format(slug=repo["slug"], ref=repo.get("ref", "HEAD"), path=path)


def course_entries(notebooks_dir: Path, course: dict) -> list[Entry]:
    """The numbered notebooks present in ``notebooks_dir``, in reading order, with their course.toml records.

    Raises
    ------
    ValueError
        If a numbered notebook has no record in course.toml, or a record is missing a field.
    """
    records = course.get("notebooks", {})
    entries = []
    for path in sorted(notebooks_dir.glob("*.ipynb")):
        if not NUMBERED.match(path.name):
            continue
        record = records.get(path.stem)
        if record is None:
            raise ValueError(
                f"notebook {path.name} has no entry in {COURSE_FILE.name}: expected a table "
                f"[notebooks.{path.stem}] with title, teaches and facts; found entries for {sorted(records)}"
            )
        missing = {"title", "teaches", "facts"} - set(record)
        if missing:
            raise ValueError(f"[notebooks.{path.stem}] in {COURSE_FILE.name} lacks {sorted(missing)}")
        entries.append(Entry(path.name, record["title"], record["teaches"], tuple(record["facts"])))
    return entries


# ---------------------------------------------------------------------------------------------------------------
# The navigation lines


def nav_line(entries: list[Entry], name: str) -> str:
    """The markdown navigation line of course notebook ``name`` (a numbered notebook or contents.ipynb)."""
    names = [e.name for e in entries]
    parts = []
    if name == REVIEW:
        return f"**Review** | [Contents]({CONTENTS})"
    if name == CONTENTS:
        if entries:
            parts.append(f"Start: [{entries[0].label} →]({entries[0].name})")
        return "**Contents** | " + " | ".join(parts) if parts else "**Contents**"
    i = names.index(name)
    if i > 0:
        parts.append(f"[← {entries[i - 1].label}]({entries[i - 1].name})")
    parts.append(f"[Contents]({CONTENTS})")
    if i + 1 < len(entries):
        parts.append(f"[{entries[i + 1].label} →]({entries[i + 1].name})")
    return " | ".join(parts)


def solution_nav_line(entries: list[Entry], name: str) -> str:
    """The navigation line of a solutions notebook: back to its learner notebook, and the contents."""
    match = SOLUTION.match(name)
    if match is None:
        raise ValueError(
            f"solutions notebook names end in -solutions.ipynb, like 03-scaling-solutions.ipynb; got {name!r}")
    learner = match.group(1) + ".ipynb"
    by_name = {e.name: e for e in entries}
    if learner not in by_name:
        raise ValueError(f"solutions notebook {name} has no learner notebook notebooks/{learner}")
    entry = by_name[learner]
    return (f"**Teacher's solutions** | [← back to {entry.label}](../{learner}) | [Contents](../{CONTENTS})")


def is_nav(cell) -> bool:
    return NAV_TAG in cell.get("metadata", {}).get("tags", [])


def _nav_cell(line: str, cell_id: str, old=None, with_ids: bool = True):
    cell = copy.deepcopy(old) if old is not None else nbformat.v4.new_markdown_cell()
    cell.source = line
    cell.metadata["tags"] = [NAV_TAG] + [t for t in cell.metadata.get("tags", []) if t != NAV_TAG]
    cell.metadata.pop("editable", None)
    if with_ids:
        cell["id"] = cell.get("id") if old is not None and "id" in old else cell_id
    else:
        cell.pop("id", None)
    return cell


def with_nav(nb, line: str):
    """A copy of notebook ``nb`` with exactly one nav cell at the top and one at the bottom, both holding ``line``.

    Every other cell, its outputs and execution count included, is kept as it was and in the same order.
    """
    nb = copy.deepcopy(nb)
    with_ids = (nb.nbformat, nb.nbformat_minor) >= (4, 5)
    old = [c for c in nb.cells if is_nav(c)]
    body = [c for c in nb.cells if not is_nav(c)]
    top_old = old[0] if old else None
    bottom_old = old[-1] if len(old) > 1 else None
    top = _nav_cell(line, "nav-top", top_old, with_ids)
    bottom = _nav_cell(line, "nav-bottom", bottom_old, with_ids)
    if with_ids and top.get("id") == bottom.get("id"):
        bottom["id"] = "nav-bottom"
    nb.cells = [top] + body + [bottom]
    return nb


# ---------------------------------------------------------------------------------------------------------------
# The contents notebook


def contents_notebook(entries: list[Entry], course: dict, solutions: list[str], review: bool = True):
    """notebooks/contents.ipynb: the course map, generated whole; its one code cell shows the learner's progress.
    ``review``: whether the course has the review notebook (then the progress section links to it)."""
    nb = nbformat.v4.new_notebook()
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    line = nav_line(entries, CONTENTS)
    facts_text = course.get("facts", {})
    where = {}
    for e in entries:
        for f in e.facts:
            where.setdefault(f, []).append(e.number)

    intro = (
        "# Attention, one line at a time: contents\n"
        "\n"
        f"{EQUATION_1}\n"
        "\n"
        "The course reads this line one piece at a time, carrying the shapes along. Each notebook runs on its own "
        "from top to bottom (Run > Run All Cells, or Shift+Enter cell by cell), builds its piece in plain numpy, "
        "then checks that `attn_lib` gives the same numbers. Problems follow every idea: write your answer where the "
        "cell says so, run the checker cell beneath it, and read its reason.\n"
        "\n"
        "The links in the first column open a notebook here; the Binder links open it in a fresh JupyterLab "
        "in your browser, nothing to install (the first start can take a few minutes)."
    )
    rows = ["| notebook | what it teaches | facts | run online |", "|---|---|---|---|"]
    for e in entries:
        facts = ", ".join(e.facts) if e.facts else "overview"
        rows.append(f"| [{e.label}]({e.name}) | {e.teaches} | {facts} | [Binder]({binder_url(course, e.name)}) |")
    table = "## The notebooks\n\n" + "\n".join(rows)

    fact_rows = ["| fact | in short | taught in |", "|---|---|---|"]
    for f in sorted(facts_text, key=lambda k: int(k[1:])):
        fact_rows.append(f"| {f} | {facts_text[f]} | {', '.join(where.get(f, [])) or '—'} |")
    facts_md = (
        "## The facts\n\n"
        "Every fact is a computation in its notebook, printed beside the sentence that states it, so you can change "
        "the inputs and argue with it.\n\n" + "\n".join(fact_rows)
    )
    teachers = (
        "## For teachers\n\n"
        "The worked solutions are in the folder `solutions/`, kept apart from the learner's notebooks"
        + (": " + ", ".join(f"[{s}](solutions/{s})" for s in solutions) if solutions else "")
        + ". The teacher's guide (`docs/teachers-guide.md` in the repository) gives the time each notebook takes, "
        "the problems to set, the mistakes to expect, and how to run the course for a class."
    )
    cells = [
        _nav_cell(line, "nav-top"),
        nbformat.v4.new_markdown_cell(intro),
        nbformat.v4.new_markdown_cell(table),
        nbformat.v4.new_markdown_cell(PROGRESS_TEXT + REVIEW_TEXT * review),
        nbformat.v4.new_code_cell(PROGRESS_CODE),
        nbformat.v4.new_markdown_cell(facts_md),
        nbformat.v4.new_markdown_cell(teachers),
        _nav_cell(line, "nav-bottom"),
    ]
    for i, cell in enumerate(cells[1:-1], start=1):
        cell["id"] = f"contents-{i}"
    nb.cells = cells
    return nb


# The learner's progress, a code cell on both contents pages (attn_lib.review reads the learner's course record).
PROGRESS_TEXT = (
    "## Your progress\n\n"
    "Run the cell below to see, for each notebook, the problems you have solved and the review prompts you have "
    "learned, as your course record holds them."
)
REVIEW_TEXT = (
    f" The [review notebook]({REVIEW}) brings back the prompts that are due, with fresh variants of the problems you "
    "have solved, and says where your record is kept and how to move it."
)
PROGRESS_CODE = "from attn_lib.review import progress\n\nprogress()"


def with_stored_outputs(nb, stored):
    """``nb`` with the outputs and execution counts of ``stored``'s code cells that have the same id and source, and
    the language details its kernel wrote (tools/build_notebooks.py executes the contents too)."""
    kept = {c.get("id"): c for c in (stored.cells if stored is not None else []) if c.cell_type == "code"}
    if stored is not None and stored.metadata.get("language_info", {}).get("name") == "python":
        nb.metadata["language_info"] = copy.deepcopy(stored.metadata["language_info"])
    for cell in nb.cells:
        old = kept.get(cell.get("id"))
        if cell.cell_type == "code" and old is not None and old.source == cell.source:
            cell.outputs = copy.deepcopy(old.outputs)
            cell.execution_count = old.execution_count
            cell.metadata = copy.deepcopy(old.metadata)
    return nb


# ---------------------------------------------------------------------------------------------------------------
# The browser edition's pages (tools/build_lite.py writes them into the site; nothing here is committed)


def lite_url(course: dict) -> str:
    """The browser edition's contents page as GitHub Pages publishes it for the repository named in course.toml."""
    owner, name = course["repository"]["slug"].split("/")
    return f"https://{owner}.github.io/{name}/lab/index.html?path={CONTENTS}"


def runs_in_browser(course: dict, entry: Entry) -> bool:
    """Whether notebook ``entry`` is part of the browser edition (course.toml: ``browser = false`` keeps it out)."""
    return course["notebooks"][entry.stem].get("browser", True)


def _local_install(course: dict) -> str:
    return course.get("lite", {}).get("local_install", f"https://github.com/{course['repository']['slug']}")


def _pyodide_notebook():
    """An empty notebook for the browser edition's kernel (JupyterLite's Pyodide kernel is named "python")."""
    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": {"display_name": "Python (Pyodide)", "language": "python", "name": "python"},
                   "language_info": {"name": "python"}}
    return nb


def lite_contents_notebook(entries: list[Entry], course: dict):
    """contents.ipynb of the browser edition: which notebooks run here, where the others run, and what happens to
    a learner's edits (they stay in this browser), how to download a notebook or all their work, how to reset one,
    and what happens when the course changes a notebook they edited."""
    nb = _pyodide_notebook()
    line = nav_line(entries, CONTENTS)
    here = [e for e in entries if runs_in_browser(course, e)]
    away = [e for e in entries if not runs_in_browser(course, e)]
    intro = (
        "# Attention, one line at a time: in your browser\n"
        "\n"
        f"{EQUATION_1}\n"
        "\n"
        "This is the browser edition of the course: the same notebooks as the JupyterLab course, run by Python "
        "inside this browser tab (Pyodide), with nothing to install and no server. The first visit loads 36 to 48 "
        "MB once (as measured); after that the notebooks open from the browser's cache. Open a notebook below, then "
        "Run > Run All Cells, or Shift+Enter cell by cell."
    )
    rows = ["| notebook | what it teaches | runs |", "|---|---|---|"]
    for e in entries:
        if runs_in_browser(course, e):
            rows.append(f"| [{e.label}]({e.name}) | {e.teaches} | here, in this browser |")
        else:
            rows.append(f"| {e.label} | {e.teaches} | not here: [on Binder]({binder_url(course, e.name)}) "
                        f"or [on your own machine]({_local_install(course)}) |")
    table = ("## The notebooks\n\n"
             f"{len(here)} of the {len(entries)} notebooks run in this browser.\n\n" + "\n".join(rows))
    elsewhere = ""
    if away:
        elsewhere = "\n\n" + "\n".join(
            f"{e.label} is not part of this edition. {course['notebooks'][e.stem].get('browser_reason', '')} "
            f"Run it [on Binder]({binder_url(course, e.name)}) (nothing to install) or "
            f"[on your own machine]({_local_install(course)}) (two commands)." for e in away)
    edits = (
        "## Your edits stay in this browser\n\n"
        "Your edits are saved in this browser's storage, on this computer only: another browser, another computer "
        "or a private window starts from the course's notebooks again, and clearing the site's data in the browser "
        "deletes your work.\n\n"
        "- **Download a notebook** (to keep it, or to hand it in): right-click it in the file browser on the left, "
        "then Download; or File > Download while it is open.\n"
        "- **Download all your work**: File > Download All My Work gives one zip file of every notebook and file "
        "you changed or made here.\n"
        "- **Reset a notebook** to the course's version: right-click in the open notebook, then Reset Notebook to "
        "the Course's Version (it offers to download your copy first).\n"
        "- **When the course changes** a notebook you have edited, opening it tells you so and offers three ways "
        "on: keep yours, take the new version (yours is kept under another name), or compare the two side by "
        "side.\n"
        "- **A fresh start** of the Python in a notebook: Kernel > Restart Kernel, then Run > Run All Cells.\n"
        "- **Your course record**, `attn-course-record.json` beside the notebooks (the problems you solved, the "
        "prompts you reviewed), is kept in this browser's storage too. To take it to another browser or to JupyterLab, "
        f"download it, or export and import it as the [review notebook]({REVIEW}) shows."
        + elsewhere
    )
    cells = [_nav_cell(line, "nav-top"), nbformat.v4.new_markdown_cell(intro), nbformat.v4.new_markdown_cell(table),
             nbformat.v4.new_markdown_cell(PROGRESS_TEXT + REVIEW_TEXT), nbformat.v4.new_code_cell(PROGRESS_CODE),
             nbformat.v4.new_markdown_cell(edits), _nav_cell(line, "nav-bottom")]
    for i, cell in enumerate(cells[1:-1], start=1):
        cell["id"] = f"lite-contents-{i}"
    nb.cells = cells
    return nb


def lite_away_notebook(entries: list[Entry], course: dict, entry: Entry):
    """The page that stands in the browser edition for a notebook that does not run there: where to run it."""
    nb = _pyodide_notebook()
    line = nav_line(entries, entry.name)
    body = (
        f"# {entry.label}: not in the browser edition\n\n"
        f"{entry.teaches}\n\n"
        f"{course['notebooks'][entry.stem].get('browser_reason', '')} It runs in JupyterLab:\n\n"
        f"- [on Binder]({binder_url(course, entry.name)}): nothing to install; the first start can take a few "
        "minutes, and Binder deletes the session (and your edits) when it idles;\n"
        f"- [on your own machine]({_local_install(course)}): two commands, Python 3.10 to 3.13."
    )
    cells = [_nav_cell(line, "nav-top"), nbformat.v4.new_markdown_cell(body), _nav_cell(line, "nav-bottom")]
    cells[1]["id"] = "lite-away-1"
    nb.cells = cells
    return nb


def lite_pages(entries: list[Entry], course: dict) -> dict[str, str]:
    """File name -> nbformat JSON of the pages the browser edition generates: its contents page, and one page for
    each notebook that does not run in the browser (so that the navigation links of its neighbours still land)."""
    pages = {CONTENTS: nbformat.writes(lite_contents_notebook(entries, course)) + "\n"}
    for e in entries:
        if not runs_in_browser(course, e):
            pages[e.name] = nbformat.writes(lite_away_notebook(entries, course, e)) + "\n"
    return pages


# ---------------------------------------------------------------------------------------------------------------
# Driving it


def planned(notebooks_dir: Path, course: dict) -> dict[Path, str]:
    """Every notebook the tool manages, mapped to the text it should hold (nbformat JSON)."""
    entries = course_entries(notebooks_dir, course)
    solutions_dir = notebooks_dir / "solutions"
    solutions = sorted(p.name for p in solutions_dir.glob("*.ipynb")) if solutions_dir.is_dir() else []
    out = {}
    review = notebooks_dir / REVIEW
    contents = contents_notebook(entries, course, solutions, review=review.exists())
    stored = notebooks_dir / CONTENTS
    if stored.exists():
        contents = with_stored_outputs(contents, nbformat.read(stored, as_version=nbformat.NO_CONVERT))
    out[notebooks_dir / CONTENTS] = nbformat.writes(contents) + "\n"
    if review.exists():
        nb = nbformat.read(review, as_version=nbformat.NO_CONVERT)
        out[review] = nbformat.writes(with_nav(nb, nav_line(entries, REVIEW))) + "\n"
    for e in entries:
        path = notebooks_dir / e.name
        nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
        out[path] = nbformat.writes(with_nav(nb, nav_line(entries, e.name))) + "\n"
    for name in solutions:
        path = solutions_dir / name
        nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
        out[path] = nbformat.writes(with_nav(nb, solution_nav_line(entries, name))) + "\n"
    return out


def stale(notebooks_dir: Path, course: dict, plan: dict | None = None) -> list[Path]:
    """The notebooks whose navigation (or, for contents.ipynb, whose whole text) is not what the tool would write."""
    plan = planned(notebooks_dir, course) if plan is None else plan
    result = []
    for path, text in plan.items():
        if not path.exists():
            result.append(path)
            continue
        current = nbformat.read(path, as_version=nbformat.NO_CONVERT)
        if current != nbformat.reads(text, as_version=nbformat.NO_CONVERT):
            result.append(path)
    return result


def write(notebooks_dir: Path, course: dict) -> list[Path]:
    """Insert or rewrite the navigation; write only the notebooks that change. Returns the paths written."""
    plan = planned(notebooks_dir, course)
    written = stale(notebooks_dir, course, plan)
    for path in written:
        path.write_text(plan[path], encoding="utf-8")
    return written


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if any navigation is stale")
    parser.add_argument("--notebooks", type=Path, default=ROOT / "notebooks", help="the notebooks folder")
    parser.add_argument("--course", type=Path, default=COURSE_FILE, help="the course map (course.toml)")
    args = parser.parse_args(argv)
    course = load_course(args.course)
    try:
        if args.check:
            paths = stale(args.notebooks, course)
            for p in paths:
                print(f"stale navigation: {p.relative_to(args.notebooks.parent)}  (run: python tools/nav.py)")
            if not paths:
                print("navigation up to date")
            return 1 if paths else 0
        paths = write(args.notebooks, course)
    except ValueError as err:
        print(f"tools/nav.py: {err}", file=sys.stderr)
        return 2
    for p in paths:
        print(f"wrote {p.relative_to(args.notebooks.parent)}")
    if not paths:
        print("navigation up to date; nothing written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
