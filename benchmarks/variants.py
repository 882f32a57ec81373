"""How the course's problems meet a learner again: per notebook, the problems with variants and those without (and
why), and the time from asking for a variant to its answer box and a verdict.

For every prediction with variants, ``another(id, seed)`` is drawn, its answer box built (ipywidgets, as a notebook
shows it) and a wrong answer judged, for 30 seeds; each problem's median, 90th percentile and worst seed are printed.
Target: a variant appears and is judged within a tenth of a second of the request (<= 100 ms at the 90th percentile
of every problem; the worst seed is printed beside it, since one request in thirty can wait for a busy core). Function problems meet fresh seeded inputs in their checkers on every call: a variant would add nothing.

Run from the repository's top folder: ``python benchmarks/variants.py`` (about 20 s).
"""

from __future__ import annotations

import contextlib
import io
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

import nbformat  # noqa: E402

import problems  # noqa: E402  (tools/problems.py)
from attn_lib.exercises import another  # noqa: E402
from attn_lib.exercises._problem_book import PREDICTIONS  # noqa: E402

TARGET_S = 0.1
SEEDS = range(1, 31)


def per_notebook() -> list[tuple[str, int, int, int]]:
    """(notebook, problems with variants, predictions with one instance, function problems)."""
    rows = []
    for name in problems.numbered_notebooks():
        nb = nbformat.read(problems.NOTEBOOKS / f"{name}.ipynb", as_version=4)
        found = problems.problems(nb, name)
        functions = sum(p.asks_for_a_function for p in found)
        ids = [pid for pid in PREDICTIONS if pid.startswith(name[:2])]
        with_variants = sum(PREDICTIONS[pid].has_variants for pid in ids)
        rows.append((name, with_variants, len(ids) - with_variants, functions))
    return rows


def time_variant(problem_id: str, seed: int) -> float:
    with contextlib.redirect_stdout(io.StringIO()):  # outside a kernel, the box's statement prints its repr
        start = time.perf_counter()
        box = another(problem_id, seed=seed)
        box.widget()  # the answer box a notebook displays
        box.check(1)  # a wrong answer judged
        return time.perf_counter() - start


def main() -> None:
    print(f"load average before: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    import ipywidgets  # noqa: F401  (imported once, as a notebook's first widget does)

    print(f"{'notebook':<30} {'with variants':>13} {'one instance':>12} {'functions':>9}")
    totals = [0, 0, 0]
    for name, variants, single, functions in per_notebook():
        print(f"{name:<30} {variants:>13} {single:>12} {functions:>9}")
        totals = [t + x for t, x in zip(totals, (variants, single, functions))]
    print(f"{'all':<30} {totals[0]:>13} {totals[1]:>12} {totals[2]:>9}")
    print("\nwhy one instance:")
    for pid, prediction in sorted(PREDICTIONS.items()):
        if not prediction.has_variants:
            print(f"  {pid}: {prediction.why_one}")
    print("functions: each checker runs the learner's function on fresh seeded inputs (batch axes, n != m, masks) "
          "on every call; a variant would add nothing.")

    print(f"\n{'problem':<8} {'median ms':>9} {'90 % ms':>8} {'worst ms':>8}   (draw, answer box, a verdict; "
          f"{len(SEEDS)} seeds)")
    p90s, worst = [], []
    for pid in sorted(pid for pid, p in PREDICTIONS.items() if p.has_variants):
        times = sorted(time_variant(pid, seed) for seed in SEEDS)
        p90 = times[int(0.9 * (len(times) - 1))]
        p90s.append((p90, pid))
        worst.append((times[-1], pid))
        print(f"{pid:<8} {statistics.median(times) * 1e3:>9.1f} {p90 * 1e3:>8.1f} {times[-1] * 1e3:>8.1f}")
    slowest, which = max(p90s)
    ratio = slowest / TARGET_S
    print(f"\nworst seed of all: {max(worst)[1]}, {max(worst)[0] * 1e3:.1f} ms")
    print(f"slowest 90th percentile: {which}, {slowest * 1e3:.1f} ms, {ratio:.2f} of the {TARGET_S * 1e3:.0f} ms "
          f"target: {'target met' if ratio <= 1 else 'target missed'}")
    print(f"load average after: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
