"""Re-execute every notebook of the course top to bottom in a fresh kernel, in place, after writing the navigation.

The notebooks are committed executed (they must read well on a code host without a kernel, and the test suite
compares the outputs of the cells that print taught facts), so after any change to a notebook or to attn_lib run::

    python tools/build_notebooks.py                  # nav, then every course and solutions notebook
    python tools/build_notebooks.py 03 06            # only the notebooks whose file name starts with 03 or 06

Each notebook runs in its own fresh kernel with its own folder as the working directory (as nbval runs it), and
with a fresh, empty learner's record in a temporary folder (``ATTN_COURSE_RECORD``): its outputs never depend on
the notebooks run before it, and no record is written into notebooks/.
A cell may raise only if it is tagged ``raises-exception`` or starts with ``# NBVAL_RAISES_EXCEPTION``; any other
error stops that notebook, leaves its file as it was, and makes the tool exit 1. The time per notebook and the
total for the course (00-10 and the contents) and for the solutions are printed at the end.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from nbconvert.preprocessors import CoalesceStreamsPreprocessor

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nav  # noqa: E402  (tools/nav.py, beside this file)

RAISES_TAG = "raises-exception"
RAISES_MARKER = "# NBVAL_RAISES_EXCEPTION"


def course_notebooks(notebooks_dir: Path) -> list[Path]:
    """contents.ipynb, then the numbered notebooks in reading order, then review.ipynb."""
    numbered = sorted(p for p in notebooks_dir.glob("*.ipynb") if nav.NUMBERED.match(p.name))
    contents, review = notebooks_dir / nav.CONTENTS, notebooks_dir / nav.REVIEW
    return [contents] * contents.exists() + numbered + [review] * review.exists()


def solutions_notebooks(notebooks_dir: Path) -> list[Path]:
    return sorted((notebooks_dir / "solutions").glob("*-solutions.ipynb"))


def strip_execution_metadata(nb) -> None:
    """Remove each cell's ``metadata.execution`` (kernel timestamps), so a rebuild changes only what ran."""
    for cell in nb.cells:
        cell.metadata.pop("execution", None)


RECORD_VARIABLE = "ATTN_COURSE_RECORD"  # attn_lib.review's record file (see attn_lib/_record/file.py)


@contextmanager
def fresh_record():
    """The kernels started inside see ATTN_COURSE_RECORD naming a file in a new temporary folder."""
    before = os.environ.get(RECORD_VARIABLE)
    with tempfile.TemporaryDirectory(prefix="attn-course-record-") as folder:
        os.environ[RECORD_VARIABLE] = str(Path(folder) / "attn-course-record.json")
        try:
            yield
        finally:
            if before is None:
                os.environ.pop(RECORD_VARIABLE, None)
            else:
                os.environ[RECORD_VARIABLE] = before


def execute(path: Path, kernel_name: str | None, timeout: int) -> float:
    """Execute notebook ``path`` in a fresh kernel and write it back in place. Returns the seconds taken.

    Raises
    ------
    CellExecutionError
        If a cell not marked to raise raises; the file is then left unchanged.
    """
    nb = nbformat.read(path, as_version=4)
    # nbclient honours the raises-exception tag only; give the comment marker the same meaning for this run.
    added = []
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.source.lstrip().startswith(RAISES_MARKER):
            tags = cell.metadata.setdefault("tags", [])
            if RAISES_TAG not in tags:
                tags.append(RAISES_TAG)
                added.append(cell)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name=kernel_name or nb.metadata.get("kernelspec", {}).get("name", "python3"),
        resources={"metadata": {"path": str(path.parent)}},
        record_timing=False,  # and strip_execution_metadata removes the timestamps nbclient still leaves
    )
    start = time.perf_counter()
    with fresh_record():
        client.execute()
    seconds = time.perf_counter() - start
    for cell in added:
        cell.metadata["tags"].remove(RAISES_TAG)
        if not cell.metadata["tags"]:
            del cell.metadata["tags"]
    strip_execution_metadata(nb)
    # A cell's prints stored as one block, as JupyterLab shows them (the reading copy would split them otherwise;
    # nbval joins them too, so the comparison is unchanged).
    nb, _ = CoalesceStreamsPreprocessor().preprocess(nb, {})
    nbformat.write(nb, path)
    return seconds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("prefixes", nargs="*", help="build only notebooks whose file name starts with one of these")
    parser.add_argument("--notebooks", type=Path, default=nav.ROOT / "notebooks", help="the notebooks folder")
    parser.add_argument("--kernel", default=None, help="kernel name (default: the notebook's own, else python3)")
    parser.add_argument("--timeout", type=int, default=600, help="seconds allowed per cell (default 600)")
    parser.add_argument("--no-nav", action="store_true", help="skip writing the navigation first")
    args = parser.parse_args(argv)

    if not args.no_nav:
        for p in nav.write(args.notebooks, nav.load_course()):
            print(f"nav: wrote {p.relative_to(args.notebooks.parent)}")

    groups = {"course": course_notebooks(args.notebooks), "solutions": solutions_notebooks(args.notebooks)}
    if args.prefixes:
        groups = {g: [p for p in ps if p.name.startswith(tuple(args.prefixes))] for g, ps in groups.items()}
    if not any(groups.values()):
        print(f"no notebooks to build in {args.notebooks}", file=sys.stderr)
        return 1

    failed = []
    totals = {}
    counts = {}
    for group, paths in groups.items():
        totals[group] = 0.0
        counts[group] = 0
        for path in paths:
            rel = path.relative_to(args.notebooks.parent)
            if not any(c.cell_type == "code" for c in nbformat.read(path, as_version=4).cells):
                print(f"    -    {rel} (no code cells: nothing to run)")
                continue
            try:
                seconds = execute(path, args.kernel, args.timeout)
            except CellExecutionError as err:
                failed.append(rel)
                print(f"FAILED {rel}: left unchanged\n{err}", file=sys.stderr)
                continue
            totals[group] += seconds
            counts[group] += 1
            print(f"{seconds:7.1f} s  {rel}", flush=True)
    for group in groups:
        if counts[group]:
            print(f"{totals[group]:7.1f} s  total, {group} ({counts[group]} notebooks executed)")
    if failed:
        print(f"{len(failed)} notebook(s) failed: {', '.join(map(str, failed))}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
