"""Key press to new pixels, for every explorer, in JupyterLab and headless Chromium, at device pixel ratio 1 and 2.

For each explorer in ``tests/browser/lab_driver.py``'s ``EXPLORER_NOTEBOOKS``, a notebook that shows it (the
generated two-cell notebook: ``from attn_lib.widgets import K_explorer`` then ``K_explorer()``) is opened in
JupyterLab in Chromium through Playwright, once with a device pixel ratio of 1 and once of 2 (most laptop screens:
ipympl then draws four times the pixels). The main control gets the keyboard focus and is moved one step at a
time: a slider with ArrowRight four times then ArrowLeft four times, radio buttons or toggle buttons by focusing the
next option and pressing Space. For each press the page measures, with requestAnimationFrame, the time from the
keydown event to the first frame whose figure pixels differ, and to the first frame whose readout text differs.

Targets: median key press to new pixels at most 100 ms at ratio 1 and at most 150 ms at ratio 2, every explorer.
The machine's load average is printed before and after: on a busy machine the figures mean little.

Run: python benchmarks/browser_latency.py [--presses N] [--kinds dk,mask] [--ratios 1,2]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "browser"))
import lab_driver

TARGET_MS = {1: 100, 2: 150}


def load():
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def step_key(page, kind, how, i):
    """Put the focus where the i-th step of a back-and-forth walk starts; return the key that makes the step."""
    if how == "slider":
        lab_driver.focus_main_control(page, kind)
        return "ArrowRight" if (i // 4) % 2 == 0 else "ArrowLeft"
    selector = f"{lab_driver.explorer_selector(kind)} .attn-main-control"
    options = page.locator(f"{selector} input[type=radio]" if how == "radio" else f"{selector} button")
    chosen = page.evaluate(
        """([sel, how]) => {
            const items = [...document.querySelectorAll(sel + (how === 'radio' ? ' input[type=radio]' : ' button'))];
            return items.findIndex(x => how === 'radio' ? x.checked : x.classList.contains('mod-active'));
        }""", [selector, how])
    options.nth((chosen + 1) % options.count()).focus()
    return "Space"


def press_series(page, kind, presses):
    """Milliseconds to new pixels and to a new readout for ``presses`` single steps of the main control."""
    how = lab_driver.focus_main_control(page, kind)
    to_pixels, to_readout = [], []
    for i in range(presses):
        lab_driver.wait_until_settled(page, kind, quiet_ms=250)
        key = step_key(page, kind, how, i)
        pixels, readout = lab_driver.key_to_pixels_ms(page, kind, key)
        if pixels is None:
            raise RuntimeError(f"{kind}: press {i} ({key}) changed no pixel within 10 s")
        to_pixels.append(pixels)
        to_readout.append(readout if readout is not None else float("nan"))
    return to_pixels, to_readout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=16, help="timed presses per explorer and ratio")
    parser.add_argument("--kinds", default=",".join(lab_driver.EXPLORER_NOTEBOOKS),
                        help="explorers to measure, by kind, comma-separated (default: all)")
    parser.add_argument("--ratios", default="1,2", help="device pixel ratios, comma-separated")
    args = parser.parse_args()
    kinds = args.kinds.split(",")
    ratios = [int(r) for r in args.ratios.split(",")]
    missing = lab_driver.missing_browser_tools()
    if missing:
        sys.exit(f"cannot run: {missing}")
    from playwright.sync_api import sync_playwright

    print(f"load average before: {load()} ({os.cpu_count()} cores)")
    files = {f"generated/{lab_driver.FUNCTIONS[kind]}.ipynb": lab_driver.explorer_notebook(lab_driver.FUNCTIONS[kind])
             for kind in kinds}
    lab = lab_driver.Lab(files)
    rows = []
    try:
        with sync_playwright() as playwright:
            browser = lab_driver.launch_chromium(playwright)
            for ratio in ratios:
                context = browser.new_context(viewport={"width": 1500, "height": 1100}, device_scale_factor=ratio)
                page = context.new_page()
                for kind in kinds:
                    lab_driver.open_and_run(page, lab, f"generated/{lab_driver.FUNCTIONS[kind]}.ipynb")
                    lab_driver.wait_for_figure(page, kind)
                    press_series(page, kind, 8)  # warm up: fonts, caches, the first diff images
                    pixels, readout = press_series(page, kind, args.presses)
                    rows.append((kind, ratio, pixels, readout))
                    page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")
                context.close()
            browser.close()
    finally:
        lab.stop()

    print(f"load average after: {load()}")
    print(f"{args.presses} single presses of each explorer's main control; ms from keydown to the first frame "
          "that shows it")
    print(f"{'explorer':<18}{'ratio':>6}{'new pixels':>12}{'new readout':>13}{'min':>7}{'max':>7}  target")
    for kind, ratio, pixels, readout in rows:
        median = statistics.median(pixels)
        target = TARGET_MS[ratio] if ratio in TARGET_MS else None
        verdict = "" if target is None else f"<= {target} ms: {'target met' if median <= target else 'target missed'}"
        seen = [ms for ms in readout if ms == ms]  # a readout that never changed is NaN: leave it out, and say so
        text = f"{statistics.median(seen):.0f}" if seen else "n/a"
        if len(seen) < len(readout):
            text += f" ({len(readout) - len(seen)} missing)"
        print(f"{lab_driver.FUNCTIONS[kind]:<18}{ratio:>6}{median:>12.0f}{text:>13}"
              f"{min(pixels):>7.0f}{max(pixels):>7.0f}  {verdict}")


if __name__ == "__main__":
    main()
