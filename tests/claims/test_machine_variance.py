"""Cells whose printed figures move with last-bit differences, the kind two machines' BLAS kernels make.

Another machine's arithmetic differs from this one's in the last bits of some products; a chaotic training run
(notebook 09's unscaled head at d_k = 512, its one head by step 1,000) turns that into other step counts. This
test makes such differences here: it runs a notebook's code cells with every normal draw nudged by one unit in the
last place (``np.nextafter``, up and then down) and compares each cell's printed text with its stored output.
Threads are no substitute: numpy's BLAS is pinned to one thread during training (attn_lib.training), and two
threads moved no count of 09 when tried.

A cell whose print moves must (1) be tagged ``nbval-ignore-output``, so strict nbval does not fail on another
machine, (2) be covered by a claim (a ``claim-*`` tag: its sentence re-run on held-out seeds), and (3) have no
count or range that moved repeated in the notebook's prose ("3 of 5", "0.00-0.25").
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent.parent / "notebooks"
CHECKED = ("03-scaling", "09-attention-that-learns")  # the notebooks whose measured claims this ledger holds
SKIPPED = re.compile(r"explorer\(")  # widgets need a running kernel and print no figures


def nudged_rng(direction):
    """np.random.default_rng whose generators return every normal draw one unit in the last place away."""

    class Nudged(np.random.Generator):
        def normal(self, *args, **kwargs):
            return np.nextafter(super().normal(*args, **kwargs), direction * np.inf)

        def standard_normal(self, *args, **kwargs):
            return np.nextafter(super().standard_normal(*args, **kwargs), direction * np.inf)

    def default_rng(seed=None):
        return seed if isinstance(seed, np.random.Generator) else Nudged(np.random.PCG64(seed))

    return default_rng


def _cells(stem):
    return json.loads((NOTEBOOKS / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]


def _source(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _stored_print(cell):
    """The stored stdout of a cell that prints and displays nothing else; None for any other cell."""
    outputs = cell.get("outputs", [])
    if not outputs or any(o["output_type"] != "stream" for o in outputs):
        return None
    text = "".join("".join(o["text"]) for o in outputs if o.get("name") == "stdout")
    return text or None


def run_printing(stem, direction):
    """{cell index: printed text} of the notebook's printing cells, run top to bottom with nudged draws."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    printed, namespace = {}, {"__name__": "__main__"}
    real = np.random.default_rng
    here = os.getcwd()
    np.random.default_rng = nudged_rng(direction)
    try:
        os.chdir(NOTEBOOKS)  # as nbval runs it
        for index, cell in enumerate(_cells(stem)):
            if cell["cell_type"] != "code" or SKIPPED.search(_source(cell)):
                continue
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(_source(cell), f"{stem} cell {index}", "exec"), namespace)
            plt.close("all")
            printed[index] = out.getvalue()
    finally:
        np.random.default_rng = real
        os.chdir(here)
    return printed


@functools.lru_cache(maxsize=None)
def moved_cells(stem):
    """{cell index: (stored text, [nudged texts])} for each printing cell whose text a nudge changed."""
    cells = _cells(stem)
    runs = [run_printing(stem, direction) for direction in (1, -1)]
    moved = {}
    for index, cell in enumerate(cells):
        stored = _stored_print(cell)
        if stored is None or index not in runs[0]:
            continue
        texts = [run[index] for run in runs]
        if any(text != stored for text in texts):
            moved[index] = (stored, texts)
    return moved


FIGURE = r"\d[\d,]*(?:\.\d+)?"
COUNT = re.compile(rf"\b(\d+) of (?:the )?(\d+)\b")
RANGE = re.compile(rf"(?<![\w.]){FIGURE}-{FIGURE}(?![\w.])")


def _figures(text):
    return {f"{a} of {b}" for a, b in COUNT.findall(text)} | set(RANGE.findall(text))


def moved_figures(stored, nudged):
    """The counts ("3 of 5") and ranges ("35-59") of the stored lines that changed, which the nudged run prints
    nowhere: prose quoting one would have nothing beside it on that machine."""
    changed = [line for line, other in zip(stored.splitlines(), nudged.splitlines()) if line != other]
    return set().union(*map(_figures, changed)) - _figures(nudged)


def _prose(stem):
    text = "\n".join(_source(c) for c in _cells(stem) if c["cell_type"] == "markdown")
    return re.sub(r"\b(\d+) of the (\d+)\b", r"\1 of \2", re.sub(r"\s+", " ", text))


@pytest.mark.claims
@pytest.mark.parametrize("stem", CHECKED)
def test_a_cell_whose_print_moves_with_the_last_bit_is_unchecked_covered_and_unrepeated(stem):
    cells = _cells(stem)
    prose = _prose(stem)
    for index, (stored, nudged) in moved_cells(stem).items():
        tags = set(cells[index].get("metadata", {}).get("tags", []))
        assert "nbval-ignore-output" in tags, (
            f"{stem} cell {index} prints other figures when its draws move by one ulp, so strict nbval would fail "
            f"on another machine: tag it nbval-ignore-output (and cover it by a claim), or print what is robust")
        assert any(t.startswith("claim-") for t in tags), (
            f"{stem} cell {index} moves with the last bit: register the sentences it backs in tests/claims")
        for text in nudged:
            repeated = {f for f in moved_figures(stored, text) if re.search(rf"(?<![\w.]){re.escape(f)}(?![\w.])",
                                                                             prose)}
            assert not repeated, (f"{stem}: the prose repeats {sorted(repeated)}, which cell {index} prints and "
                                  f"which moves with the last bit of its draws; state what holds on every machine")


@pytest.mark.claims
def test_the_nudge_finds_the_chaotic_runs_of_09():
    # the unscaled head at d_k = 512 (the sweep) and the one head by step 1,000 are known to move (issue 25)
    moved = moved_cells("09-attention-that-learns")
    sources = {index: _source(_cells("09-attention-that-learns")[index]) for index in moved}
    assert any("plain = sweep(" in s for s in sources.values()), sorted(moved)
    assert any("one head, {label}" in s or "one_head.kept" in s for s in sources.values()), sorted(moved)


def test_moved_figures_names_the_counts_and_ranges_that_changed():
    stored = "faster in 3 of 5 seeds at d_k = 512; its steps: 35-59\nsame line"
    nudged = "faster in 1 of 5 seeds at d_k = 512; its steps: 37-54\nsame line"
    assert moved_figures(stored, nudged) == {"3 of 5", "35-59"}
    assert moved_figures("both right 0.00-0.25 (5 seeds)", "both right 0.00-0.15 (5 seeds)") == {"0.00-0.25"}
    assert moved_figures("a 1,000-2,000 b", "a 1,000-2,000 b") == set()
    # a count that moved on one line but is still printed on another stays quotable
    assert moved_figures("two: 2 of 5\none: 2 of 5", "two: 2 of 5\none: 4 of 5") == set()


@pytest.mark.claims
def test_start_here_names_the_notebooks_whose_figures_move():
    # 00 promises that every number comes out the same each time: it must say where another machine differs
    start = _prose("00-start-here")
    assert "comes out the same each time on your machine" in start
    for stem in CHECKED:
        if moved_cells(stem):
            assert f"in {stem[:2]} can come out differently" in start, stem
