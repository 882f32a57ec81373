"""Where the test suite's time goes: the seconds of every test (setup, call and teardown) summed per area of the
course, read from pytest's JUnit XML report; the run's wall time and the machine's load average beside them.

Areas: core (attn_lib's modules and their doctests), exercises, review, widgets, minilm, claims, notebooks under
nbval, browser (JupyterLab and the reading copy in Chromium), browser edition (the JupyterLite site, built and run
in Pyodide), nbgrader. Under pytest-xdist the areas' seconds add up to more than the wall time: each worker's
tests are counted.

    python benchmarks/suite_time.py                        # runs README's test command once, then the table
    python benchmarks/suite_time.py --run -- -m "not slow"  # the same with pytest arguments of your own
    python benchmarks/suite_time.py before.xml after.xml   # two reports side by side (before, after)

A run writes its report to build/suite-time/junit-<time>.xml, so that a later run can be compared with it. The
target (issue 32): README's test command within 600 s of wall time on 2 cores at load about 1 (aim: 360 s).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 600

# (prefix of the report's classname, area): the first prefix that matches names the area.
AREAS = [
    ("tests.browser.test_lite", "browser edition"),
    ("tests.test_lite_build", "browser edition"),
    ("tests.browser", "browser"),
    ("tests.test_nbgrader", "nbgrader"),
    ("tests.claims", "claims"),
    ("tests.exercises", "exercises"),
    ("tests.review", "review"),
    ("tests.widgets", "widgets"),
    ("tests.minilm", "minilm"),
    ("notebooks", "notebooks (nbval)"),
    ("attn_lib", "core"),
    ("tests", "core"),
]
ORDER = ["core", "exercises", "review", "widgets", "minilm", "claims", "notebooks (nbval)", "browser",
         "browser edition", "nbgrader"]


def area_of(classname: str) -> str:
    for prefix, area in AREAS:
        if classname.startswith(prefix):
            return area
    return "core"


def read_report(path: Path) -> dict:
    """Seconds and counts per area of one JUnit report, its wall time and its outcome counts."""
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    seconds, counts = defaultdict(float), defaultdict(int)
    outcomes = defaultdict(int)
    for case in root.iter("testcase"):
        area = area_of(case.get("classname", ""))
        seconds[area] += float(case.get("time") or 0)
        counts[area] += 1
        kind = next((child.tag for child in case if child.tag in ("failure", "error", "skipped")), "passed")
        outcomes[kind] += 1
    wall = sum(float(s.get("time") or 0) for s in suites)
    return {"seconds": seconds, "counts": counts, "wall": wall, "outcomes": dict(outcomes),
            "load": (suites[0].get("load") if suites else None)}


def run_suite(pytest_args: list[str]) -> Path:
    """README's test command's pytest, with a JUnit report written under build/suite-time/."""
    out = ROOT / "build" / "suite-time"
    out.mkdir(parents=True, exist_ok=True)
    report = out / f"junit-{time.strftime('%Y%m%d-%H%M%S')}.xml"
    load = os.getloadavg()
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pytest", "-q", f"--junitxml={report}", *pytest_args], cwd=ROOT)
    wall = time.perf_counter() - started
    tree = ET.parse(report)
    suite = tree.getroot() if tree.getroot().tag == "testsuite" else next(tree.getroot().iter("testsuite"))
    suite.set("load", f"{load[0]:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")
    suite.set("time", f"{wall:.1f}")  # the command's own wall time, collection and workers' start included
    tree.write(report)
    return report


def table(reports: list[tuple[str, dict]]) -> str:
    head = "| area | " + " | ".join(f"{name}: tests | {name}: s" for name, _ in reports) + " |"
    rows = [head, "|---|" + "---:|---:|" * len(reports)]
    for area in ORDER:
        cells = []
        for _, report in reports:
            cells += [f"{report['counts'].get(area, 0):,}", f"{report['seconds'].get(area, 0.0):,.0f}"]
        rows.append(f"| {area} | " + " | ".join(cells) + " |")
    total = []
    for _, report in reports:
        total += [f"{sum(report['counts'].values()):,}", f"{sum(report['seconds'].values()):,.0f}"]
    rows.append("| all tests, summed | " + " | ".join(total) + " |")
    rows.append("| wall time of the run | " + " | ".join(f" | {report['wall']:,.0f}" for _, report in reports) + " |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("reports", nargs="*", type=Path, help="JUnit XML reports to compare (default: run the suite)")
    parser.add_argument("--run", action="store_true", help="run the suite once more and add its report")
    args, pytest_args = parser.parse_known_args(argv)
    pytest_args = [a for a in pytest_args if a != "--"]
    paths = list(args.reports)
    if args.run or not paths:
        paths.append(run_suite(pytest_args))
    reports = [(path.stem, read_report(path)) for path in paths]
    print(table(reports))
    for name, report in reports:
        outcomes = ", ".join(f"{n} {kind}" for kind, n in sorted(report["outcomes"].items()))
        met = "target met" if report["wall"] <= TARGET_SECONDS else "target missed"
        print(f"{name}: {outcomes}; wall {report['wall']:,.0f} s (<= {TARGET_SECONDS} s: {met}); "
              f"load average {report['load'] or 'not recorded'}; {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
