"""Kernel-side cost of one change of each explorer's main control (target: at most 30 ms).

An explorer is made, its figure drawn once and its canvas put in the state the browser leaves it in (ipympl
stops keeping a PNG copy of the figure once its view says "initialized"). Then the main control is stepped through
its values, and each change is timed from setting the value to the diff image being handed to the comm: the
readout, the artists, the blit and the PNG diff. For comparison, the same change with a full redraw (what
``draw_idle`` makes the kernel do when the browser asks for it) is timed too.

Run: python benchmarks/widget_update.py [--repeats N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path

import ipywidgets as widgets

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def control_values(control):
    """Every value of a selection control; 15 steps of a numeric slider from min to max."""
    if isinstance(control, (widgets.SelectionSlider, widgets.ToggleButtons, widgets.RadioButtons)):
        return [option[1] if isinstance(option, tuple) else option for option in control.options]
    if isinstance(control, widgets.FloatLogSlider):
        return [control.base ** (control.min + (control.max - control.min) * i / 14) for i in range(15)]
    return [control.min + (control.max - control.min) * i / 14 for i in range(15)]


def time_changes(explorer, repeats, full):
    """Median milliseconds of one change of the main control (blitted, or with a full redraw)."""
    control = explorer.controls[explorer.main_control]
    values = control_values(control)
    canvas = explorer.figure.canvas
    explorer.blit = not full
    times = []
    for r in range(repeats):
        for value in values[::1 if r % 2 == 0 else -1]:
            if control.value == value:
                continue
            start = time.perf_counter()
            control.value = value
            if full:
                canvas.draw()  # the kernel's answer to the browser's draw request after draw_idle()
            times.append(time.perf_counter() - start)
    explorer.blit = True
    return 1000 * statistics.median(times), len(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="passes over the main control's values")
    args = parser.parse_args()
    warnings.simplefilter("error")
    from attn_lib.widgets import EXPLORERS

    print(f"{'explorer':<18}{'control':<13}{'changes':>8}{'blit ms':>9}{'full ms':>9}{'full/blit':>10}  <= 30 ms?")
    for kind, factory in EXPLORERS.items():
        explorer = factory()
        canvas = explorer.figure.canvas
        canvas.draw()  # the browser's first draw request
        canvas.syncing_data_url = False  # what the view's "initialized" message does
        time_changes(explorer, 1, full=False)  # warm caches (fonts, paths)
        blit, changes = time_changes(explorer, args.repeats, full=False)
        full, _ = time_changes(explorer, 1, full=True)
        verdict = "yes" if blit <= 30 else "NO"
        print(f"{kind + '_explorer':<18}{explorer.main_control:<13}{changes:>8}{blit:>9.1f}{full:>9.1f}"
              f"{full / blit:>10.1f}  {verdict}")


if __name__ == "__main__":
    main()
