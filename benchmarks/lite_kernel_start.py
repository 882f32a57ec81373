"""The browser edition's kernel start, two builds side by side: seconds from opening a notebook to an idle kernel,
and the CPU seconds the browser spent on it, for the site in build/lite and for another build (``--against``, for
instance one built from an earlier commit with ``git worktree`` and ``tools/build_lite.py --out DIR``).

The two sites are opened in turn, a fresh browser context each time (an empty cache: a learner's first visit), so
that both meet the same machine; each figure is the median of ``--runs`` opens. Served from 127.0.0.1, offline
(tests/browser/lite_driver.py). The machine's load average is printed before and after: on a busy machine the
ratio holds better than the seconds.

Run: python tools/build_lite.py --working-tree && python benchmarks/lite_kernel_start.py --against DIR [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import psutil  # the browser's processes' CPU time (psutil comes with ipykernel)

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "browser"))
sys.path.insert(0, str(HERE))
import lab_driver  # noqa: E402
import lite_driver  # noqa: E402
import lite_speed  # noqa: E402  (its targets)


def browser_cpu_seconds() -> float:
    """User and system CPU seconds of every process this one started (Playwright's driver, Chromium's processes)."""
    total = 0.0
    for process in psutil.Process().children(recursive=True):
        try:
            times = process.cpu_times()
        except psutil.Error:  # a process that ended meanwhile
            continue
        total += times.user + times.system
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=lite_driver.SITE, help="a built site (default build/lite)")
    parser.add_argument("--against", type=Path, required=True, help="another built site, to compare with")
    parser.add_argument("--notebook", default="00-start-here.ipynb", help="the notebook opened")
    parser.add_argument("--runs", type=int, default=5, help="opens of each site")
    args = parser.parse_args()
    missing = lab_driver.missing_browser_tools()
    if missing:
        sys.exit(f"cannot run: {missing}")
    sites = {"site": args.site.resolve(), "against": args.against.resolve()}
    for label, folder in sites.items():
        if not (folder / "files" / args.notebook).exists():
            sys.exit(f"--{label} {folder}: no built site with {args.notebook} there")
    from playwright.sync_api import sync_playwright

    print(f"load average before: {', '.join(f'{x:.1f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
    ready = {label: [] for label in sites}
    cpu = {label: [] for label in sites}
    servers = {label: lite_driver.StaticSite(folder) for label, folder in sites.items()}
    try:
        with sync_playwright() as playwright:
            browser = lite_driver.launch_chromium(playwright.chromium)
            for run in range(args.runs):
                for label in (sites if run % 2 == 0 else reversed(list(sites))):
                    offline = lite_driver.Offline(browser)
                    before = browser_cpu_seconds()
                    ready[label].append(lite_driver.open_notebook(offline.page, servers[label].url, args.notebook))
                    time.sleep(0.5)  # the last of the start's work (the first execution reply) counted in both
                    cpu[label].append(browser_cpu_seconds() - before)
                    if offline.refused:
                        sys.exit(f"{sites[label]} asked for outside addresses: {offline.refused}")
                    offline.close()
            browser.close()
    finally:
        for server in servers.values():
            server.stop()
    print(f"load average after: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"\n{args.notebook}, {args.runs} opens each, a fresh browser context each time (medians, [min, max])")
    print(f"{'site':<50}{'kernel ready (s)':>24}{'browser CPU (s)':>24}")
    for label, folder in sites.items():
        r, c = ready[label], cpu[label]
        print(f"{str(folder):<50}{statistics.median(r):>10.1f} [{min(r):4.1f}, {max(r):4.1f}]"
              f"{statistics.median(c):>12.1f} [{min(c):4.1f}, {max(c):4.1f}]")
    target = lite_speed.TARGETS["ready"]
    verdict = "met" if statistics.median(ready["site"]) <= target else "missed"
    print(f"target (benchmarks/lite_speed.py's): kernel ready <= {target} s for the site: {verdict}")
    print(f"ratio site / against: kernel ready "
          f"{statistics.median(ready['site']) / statistics.median(ready['against']):.2f}, browser CPU "
          f"{statistics.median(cpu['site']) / statistics.median(cpu['against']):.2f}")


if __name__ == "__main__":
    main()
