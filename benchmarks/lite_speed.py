"""The browser edition's speed, offline in headless Chromium from a cold cache: kernel ready, Run All per notebook,
and each explorer's key press to new pixels at device pixel ratio 1 and 2.

Each notebook is opened in a fresh browser context (an empty cache: the first visit of a learner), served from
127.0.0.1 with every other address refused (tests/browser/lite_driver.py); "kernel ready" is from the navigation to
an idle Pyodide kernel, "Run All" from the command to the last cell done. Explorer latency is measured as in
benchmarks/browser_latency.py (median of single presses of the main control, keydown to the first frame showing
new pixels), in the notebook that shows the explorer, after its Run All.

Targets (issue 18, two cores, cold cache): kernel ready <= 15 s, Run All <= 60 s, explorer <= 50 ms at ratio 1 and
<= 80 ms at ratio 2. The machine's load average is printed: on a busy machine the figures mean little.

Run: python tools/build_lite.py --working-tree && python benchmarks/lite_speed.py [--notebooks 00,03] [--presses 8]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "browser"))
sys.path.insert(0, str(HERE))
import browser_latency  # noqa: E402  (press_series: the same measurement as for JupyterLab)
import lab_driver  # noqa: E402
import lite_driver  # noqa: E402

TARGETS = {"ready": 15, "run_all": 60, "ms": {1: 50, 2: 80}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebooks", default="", help="numbers, comma-separated (default: every notebook of the "
                                                        "edition)")
    parser.add_argument("--presses", type=int, default=8,
                        help="timed presses per explorer and ratio (a multiple of 8 ends where it began)")
    parser.add_argument("--ratios", default="1,2", help="device pixel ratios, comma-separated")
    args = parser.parse_args()
    missing = lab_driver.missing_browser_tools()
    if missing:
        sys.exit(f"cannot run: {missing}")
    if not (lite_driver.SITE / "jupyter-lite.json").exists():
        sys.exit("no site in build/lite: run python tools/build_lite.py --working-tree first")
    names = sorted(p.name for p in (lite_driver.SITE / "files").glob("[0-9][0-9]-*.ipynb")
                   if any(c["cell_type"] == "code" for c in json.loads(p.read_text())["cells"]))
    if args.notebooks:
        names = [n for n in names if n[:2] in args.notebooks.split(",")]
    ratios = [int(r) for r in args.ratios.split(",")]
    kinds = {name: kind for kind, name in lab_driver.EXPLORER_NOTEBOOKS.items()}
    from playwright.sync_api import sync_playwright

    print(f"load average before: {', '.join(f'{x:.1f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
    site = lite_driver.StaticSite()
    rows, latency = [], []
    try:
        with sync_playwright() as playwright:
            browser = lite_driver.launch_chromium(playwright.chromium)
            for name in names:
                for ratio in (ratios if name in kinds else ratios[:1]):
                    offline = lite_driver.Offline(browser, device_scale_factor=ratio)  # a cold cache each time
                    ready = lite_driver.open_notebook(offline.page, site.url, name)
                    run_all = lite_driver.run_all(offline.page, timeout_ms=600_000)
                    if ratio == ratios[0]:
                        rows.append((name, ready, run_all, offline.bytes_loaded / 1e6, len(offline.refused)))
                    if name in kinds:
                        kind = kinds[name]
                        lite_driver.scroll_to_explorer(offline.page, kind)
                        lab_driver.wait_for_figure(offline.page, kind)
                        browser_latency.press_series(offline.page, kind, 8)  # warm up: there and back
                        pixels, _ = browser_latency.press_series(offline.page, kind, args.presses)
                        latency.append((kind, ratio, pixels))
                    offline.close()
            browser.close()
    finally:
        site.stop()

    print(f"load average after: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print("\nnotebook                              kernel ready (s)   Run All (s)   loaded (MB)   refused requests")
    for name, ready, run_all, loaded, refused in rows:
        flag = "" if ready <= TARGETS["ready"] and run_all <= TARGETS["run_all"] else "   (over target)"
        print(f"{name:<38}{ready:>16.1f}{run_all:>14.1f}{loaded:>14.1f}{refused:>19}{flag}")
    print(f"targets: kernel ready <= {TARGETS['ready']} s, Run All <= {TARGETS['run_all']} s")
    print(f"\n{args.presses} single presses each; ms from keydown to the first frame with new pixels")
    print(f"{'explorer':<18}{'ratio':>6}{'median':>8}{'min':>6}{'max':>6}  target")
    for kind, ratio, pixels in latency:
        median = statistics.median(pixels)
        target = TARGETS["ms"].get(ratio)
        verdict = "" if target is None else f"<= {target} ms: {'met' if median <= target else 'missed'}"
        print(f"{lab_driver.FUNCTIONS[kind]:<18}{ratio:>6}{median:>8.0f}{min(pixels):>6.0f}{max(pixels):>6.0f}  "
              f"{verdict}")


if __name__ == "__main__":
    main()
