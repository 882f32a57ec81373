"""The browser edition's speed, offline in headless Chromium from a cold cache: kernel ready, Run All per notebook,
and each explorer's key press to new pixels at device pixel ratio 1 and 2.

Each notebook is opened in a fresh browser context (an empty cache: the first visit of a learner), served from
127.0.0.1 with every other address refused (tests/browser/lite_driver.py); "kernel ready" is from the navigation to
an idle Pyodide kernel, "Run All" from the command to the last cell done. The explorers are measured as
benchmarks/browser_latency.py measures them in JupyterLab, in the notebook that shows each (the edition holds 00 to
09: not 10's trained explorer), after its Run All: single presses of the main control, keydown to the first
animation frame after the figure is painted with new pixels (a move whose frame is in the page: no kernel), and for
softmax and cost two sliders moved in one task, the second position off the page's cross (a move that waits for the
Pyodide kernel), from the second slider's input event to the frame after the paint.

Targets (two cores, cold cache): kernel ready <= 15 s, Run All <= 60 s; the median key press in the page <= 16 ms
and a move that needs the kernel <= 33 ms, at ratio 1 and 2. The machine's 1-minute load average is printed on each
explorer's row: on a busy machine the figures mean little.

Run: python tools/build_lite.py --working-tree [--out DIR] && python benchmarks/lite_speed.py [--site DIR]
     [--notebooks 00,03] [--presses 24] [--moves 20]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "browser"))
sys.path.insert(0, str(HERE))
import browser_latency  # noqa: E402  (the same measurements as in JupyterLab)
import lab_driver  # noqa: E402
import lite_driver  # noqa: E402

TARGETS = {"ready": 15, "run_all": 60, "in_page_ms": browser_latency.IN_PAGE_MS,
           "needs_kernel_ms": browser_latency.NEEDS_KERNEL_MS}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebooks", default="", help="numbers, comma-separated (default: every notebook of the "
                                                        "edition)")
    parser.add_argument("--presses", type=int, default=24,
                        help="timed presses per explorer and ratio (a multiple of 8 ends where it began)")
    parser.add_argument("--moves", type=int, default=20, help="timed moves that need the kernel per explorer and ratio")
    parser.add_argument("--site", type=Path, default=lite_driver.SITE, help="the built site (default: build/lite)")
    parser.add_argument("--ratios", default="1,2", help="device pixel ratios, comma-separated")
    args = parser.parse_args()
    missing = lab_driver.missing_browser_tools()
    if missing:
        sys.exit(f"cannot run: {missing}")
    if not (args.site / "jupyter-lite.json").exists():
        sys.exit(f"no site in {args.site}: run python tools/build_lite.py --working-tree --out {args.site} first")
    names = sorted(p.name for p in (args.site / "files").glob("[0-9][0-9]-*.ipynb")
                   if any(c["cell_type"] == "code" for c in json.loads(p.read_text())["cells"]))
    if args.notebooks:
        names = [n for n in names if n[:2] in args.notebooks.split(",")]
    ratios = [int(r) for r in args.ratios.split(",")]
    kinds = {name: kind for kind, name in lab_driver.EXPLORER_NOTEBOOKS.items()}
    from playwright.sync_api import sync_playwright

    print(f"load average before: {', '.join(f'{x:.1f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
    site = lite_driver.StaticSite(args.site)
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
                        pixels, note = browser_latency.press_series(offline.page, kind, args.presses)
                        latency.append((kind, ratio, "key press (in the page)", pixels, note,
                                        TARGETS["in_page_ms"], browser_latency.load()))
                        moves = browser_latency.kernel_moves(offline.page, kind, args.moves, timeout_ms=10_000)
                        if moves:
                            label, times, note = moves
                            latency.append((kind, ratio, label, times, note, TARGETS["needs_kernel_ms"],
                                            browser_latency.load()))
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
    print(f"\n{args.presses} single presses of the main control, {args.moves} moves that need the kernel; ms from the "
          "input to the first animation frame after the paint. load: 1-minute load average")
    print(f"{'explorer':<18}{'ratio':>6}  {'move':<36}{'median':>8}{'min':>6}{'max':>6}  {'target':<8}{'load':>5}  "
          "verdict")
    for kind, ratio, move, times, note, target, avg in latency:
        print(f"{lab_driver.FUNCTIONS[kind]:<18}{ratio:>6}  {move:<36}{browser_latency.spread(times)}  "
              f"{'<= ' + str(target):<8}{avg:>5}  {browser_latency.verdict(times, target, note)}")


if __name__ == "__main__":
    main()
