"""Where the test suite's time goes: the seconds of every test (setup, call and teardown) summed per area of the
course, read from pytest's JUnit XML report; the run's wall time and the machine's load average beside them.

Areas: core (attn_lib's modules and their doctests), exercises, review, widgets, minilm, claims, notebooks under
nbval, browser (JupyterLab and the reading copy in Chromium), browser edition (the JupyterLite site, built and run
in Pyodide), nbgrader. Under pytest-xdist the areas' seconds add up to more than the wall time: each worker's
tests are counted.

    python benchmarks/suite_time.py                        # runs README's test command once, then the table
    python benchmarks/suite_time.py --run -- -m "not slow"  # the same with pytest arguments of your own
    python benchmarks/suite_time.py before.xml after.xml   # two reports side by side (before, after)

A run writes its report to build/suite-time/junit-<time>.xml, so that a later run can be compared with it. While it
runs, every process's CPU time is read from /proc once a second (Linux) and summed by kind (Chromium, kernels, pytest's
workers, nbgrader, ...) beside the machine's busy CPU seconds: a run whose machine is busy all the time is made
shorter by doing less work, not by more workers. The target (issue 32): README's test command within 600 s of wall
time on 2 cores at load about 1 (aim: 360 s).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
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
    cpu = suites[0].get("cpu") if suites else None
    return {"seconds": seconds, "counts": counts, "wall": wall, "outcomes": dict(outcomes),
            "load": (suites[0].get("load") if suites else None), "cpu": json.loads(cpu) if cpu else None}


# (what a process's command line contains, its kind): the first that matches names it.
PROCESS_KINDS = [
    ("--type=renderer", "Chromium pages (Pyodide runs here)"),
    ("chromium", "Chromium, other processes"),
    ("ipykernel", "Python kernels"),
    ("nbgrader", "nbgrader"),
    ("jupyter", "Jupyter servers"),
    ("postgres", "PostgreSQL"),
    ("exec(eval(sys.stdin", "pytest workers"),
    ("pytest", "pytest itself"),
    ("node", "Node.js (Playwright's driver, Pyodide under Node)"),
]


def kind_of(command: str) -> str:
    for part, kind in PROCESS_KINDS:
        if part in command:
            return kind
    return "other"


class CpuSampler:
    """Every process's user+system CPU seconds (every process on the machine: another job's too), read from /proc
    every second while a run lasts, summed by kind; and the machine's busy CPU seconds over the run. A process that
    lives less than a second between two reads is missed (its share is in the machine's total)."""

    def __init__(self):
        self.ticks = os.sysconf("SC_CLK_TCK")
        self.before = set(self._pids())
        self.seen: dict[tuple[str, str], list] = {}  # (pid, start time) -> [kind, CPU s at first read, last]
        self.busy_start = self._busy()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    @staticmethod
    def _pids():
        return [p for p in os.listdir("/proc") if p.isdigit()]

    def _busy(self) -> float:
        with open("/proc/stat") as f:
            user, nice, system = f.readline().split()[1:4]
        return (int(user) + int(nice) + int(system)) / self.ticks

    def _read(self):
        for pid in self._pids():
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                key, cpu = (pid, fields[19]), (int(fields[11]) + int(fields[12])) / self.ticks
                if key not in self.seen:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        command = f.read().replace(b"\0", b" ").decode(errors="replace")
                    self.seen[key] = [kind_of(command), cpu if pid in self.before else 0.0, cpu]
                self.seen[key][2] = cpu
            except (OSError, IndexError, ValueError):
                continue

    def _loop(self):
        while not self.stop.wait(1.0):
            self._read()

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()
        self._read()
        self.busy = self._busy() - self.busy_start

    def by_kind(self) -> dict[str, float]:
        totals: dict[str, float] = defaultdict(float)
        for kind, first, last in self.seen.values():
            totals[kind] += last - first
        return {"machine busy": self.busy, **dict(sorted(totals.items(), key=lambda kv: -kv[1]))}


def run_suite(pytest_args: list[str]) -> Path:
    """README's test command's pytest, with a JUnit report written under build/suite-time/."""
    out = ROOT / "build" / "suite-time"
    out.mkdir(parents=True, exist_ok=True)
    report = out / f"junit-{time.strftime('%Y%m%d-%H%M%S')}.xml"
    load = os.getloadavg()
    started = time.perf_counter()
    with CpuSampler() as cpu:
        subprocess.run([sys.executable, "-m", "pytest", "-q", f"--junitxml={report}", *pytest_args], cwd=ROOT)
    wall = time.perf_counter() - started
    tree = ET.parse(report)
    suite = tree.getroot() if tree.getroot().tag == "testsuite" else next(tree.getroot().iter("testsuite"))
    suite.set("load", f"{load[0]:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")
    suite.set("time", f"{wall:.1f}")  # the command's own wall time, collection and workers' start included
    suite.set("cpu", json.dumps({kind: round(seconds, 1) for kind, seconds in cpu.by_kind().items()}))
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


def cpu_table(reports: list[tuple[str, dict]]) -> str:
    """CPU seconds by kind of process, for the reports whose run was sampled; '' if none was."""
    sampled = [(name, report) for name, report in reports if report["cpu"]]
    if not sampled:
        return ""
    kinds = list(dict.fromkeys(kind for _, report in sampled for kind in report["cpu"]))
    rows = ["| CPU seconds | " + " | ".join(name for name, _ in sampled) + " |", "|---|" + "---:|" * len(sampled)]
    for kind in kinds:
        rows.append(f"| {kind} | " + " | ".join(f"{report['cpu'].get(kind, 0):,.0f}" for _, report in sampled) + " |")
    rows.append(f"| the machine's capacity ({os.cpu_count()} cores x wall) | "
                + " | ".join(f"{(os.cpu_count() or 1) * report['wall']:,.0f}" for _, report in sampled) + " |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("reports", nargs="*", type=Path, help="JUnit XML reports to compare (default: run the suite)")
    parser.add_argument("--run", action="store_true", help="run the suite once more and add its report")
    argv = sys.argv[1:] if argv is None else argv
    pytest_args = argv[argv.index("--") + 1:] if "--" in argv else []  # after "--": the run's own pytest arguments
    args = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    paths = list(args.reports)
    if args.run or not paths:
        paths.append(run_suite(pytest_args))
    reports = [(path.stem, read_report(path)) for path in paths]
    print(table(reports))
    if cpu_table(reports):
        print()
        print(cpu_table(reports))
    for name, report in reports:
        outcomes = ", ".join(f"{n} {kind}" for kind, n in sorted(report["outcomes"].items()))
        met = "target met" if report["wall"] <= TARGET_SECONDS else "target missed"
        print(f"{name}: {outcomes}; wall {report['wall']:,.0f} s (<= {TARGET_SECONDS} s: {met}); "
              f"load average {report['load'] or 'not recorded'}; {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
