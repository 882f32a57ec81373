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

A rebuild changes only what changed: rebuilding an unchanged notebook on the same machine leaves its file
byte-identical. The kernel's timestamps are stripped, and the widgets' model ids, which the kernel draws at random,
are renamed ``<notebook>-0001``, ``<notebook>-0002``, ... in order of first appearance (``normalise_widget_ids``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
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


WIDGET_STATE = "application/vnd.jupyter.widget-state+json"  # in nb.metadata.widgets: every model's state, by id
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"  # in an output: {"model_id": ..., ...}, the widget shown
MODEL_REFERENCE = "IPY_MODEL_"  # a string value "IPY_MODEL_<id>" in a state names another model (a child, a layout)


def _strings(value):
    """Every string inside ``value`` (JSON), keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _widget_views(value):
    """Every model id a widget-view output names inside ``value`` (outputs, or an Output widget's state)."""
    if isinstance(value, dict):
        view = value.get(WIDGET_VIEW)
        if isinstance(view, dict) and isinstance(view.get("model_id"), str):
            yield view["model_id"]
        for item in value.values():
            yield from _widget_views(item)
    elif isinstance(value, list):
        for item in value:
            yield from _widget_views(item)


def widget_ids_in_order(nb) -> list[str]:
    """The notebook's widget model ids in order of first appearance.

    Read the cells' outputs first, top to bottom, then each model's state in the order its id was first met
    (a box, then its children and layout, ...). Models that no output reaches (a widget made but not shown, or
    shown in an output since cleared) follow, each time starting from one that no other unmet model names, the
    first by the digest of what it holds (its state, with every id it names replaced by that model's digest). The
    order depends on what the notebook shows and holds, never on the ids' values nor on the order the state was
    stored in, so two runs that make the same widgets give the same list.
    """
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    outputs = [cell.get("outputs", []) for cell in nb.cells]
    referenced = {text.removeprefix(MODEL_REFERENCE)
                  for text in _strings(list(state.values())) if text.startswith(MODEL_REFERENCE)}
    known = set(state) | set(_widget_views(outputs)) | referenced
    if not known:
        return []
    # the longest first, so that an id that begins another is never matched inside it
    anywhere = re.compile("|".join(re.escape(i) for i in sorted(known, key=lambda i: (-len(i), i))))
    text = {model_id: json.dumps(model, sort_keys=True) for model_id, model in state.items()}
    names = {model_id: anywhere.findall(model_text) for model_id, model_text in text.items()}
    # What each model holds, as a digest of its state with every id it names replaced by that model's digest;
    # refined until it separates no more models (Weisfeiler-Lehman), so references that loop back are fine.
    digest = {model_id: "" for model_id in state}
    for _ in range(len(state)):
        refined = {model_id: hashlib.sha256((digest[model_id] + anywhere.sub(
            lambda m: digest.get(m.group(), "-"), model_text)).encode("utf-8")).hexdigest()
            for model_id, model_text in text.items()}
        separates_more = len(set(refined.values())) > len(set(digest.values()))
        digest = refined
        if not separates_more:
            break

    order: list[str] = []
    met: set[str] = set()

    def meet(model_id: str) -> None:
        if model_id not in met:
            met.add(model_id)
            order.append(model_id)

    for model_id in anywhere.findall(json.dumps(outputs, sort_keys=True)):
        meet(model_id)
    done = 0
    while True:
        while done < len(order):  # each model met so far, in turn: the ids its state names
            for model_id in names.get(order[done], []):
                meet(model_id)
            done += 1
        unmet = [model_id for model_id in state if model_id not in met]
        if not unmet:
            return order
        named = {other for model_id in unmet for other in names[model_id]}
        meet(min(unmet, key=lambda model_id: (model_id in named, digest[model_id])))


def normalise_widget_ids(nb, stem: str) -> dict[str, str]:
    """Rename the widget model ids, in place, to ``<stem>-0001``, ``<stem>-0002``, ... in order of first appearance.

    The kernel draws a fresh random id (a uuid) for every widget it opens, so without this every rebuild would
    rewrite the whole widget state. The renaming covers every place an id is written: the keys of
    ``metadata.widgets``' state, the ``IPY_MODEL_<id>`` references inside the states, and the ``model_id`` of each
    widget-view output (including those held inside an Output widget's state), so the views still find their
    models. Returns the renaming, old id -> new id.
    """
    order = widget_ids_in_order(nb)
    if not order:
        return {}
    renamed = {old: f"{stem}-{n:04d}" for n, old in enumerate(order, start=1)}
    anywhere = re.compile("|".join(re.escape(i) for i in sorted(renamed, key=lambda i: (-len(i), i))))

    def rename(value):
        if isinstance(value, str):
            return anywhere.sub(lambda m: renamed[m.group()], value)
        if isinstance(value, list):
            return [rename(v) for v in value]
        if isinstance(value, dict):
            return type(value)((rename(k), rename(v)) for k, v in value.items())
        return value

    for cell in nb.cells:
        if "outputs" in cell:
            cell.outputs = nbformat.from_dict(rename(cell.outputs))
    widgets = nb.metadata.get("widgets", {}).get(WIDGET_STATE)
    if widgets is not None:
        widgets["state"] = nbformat.from_dict(
            {renamed[k]: rename(v) for k, v in sorted(widgets["state"].items(), key=lambda kv: renamed[kv[0]])})
    return renamed


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
    normalise_widget_ids(nb, path.stem)
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
