"""The ways-in round over the whole course, with execution: every assignment (00 to 10) handed in from every way in
(the browser edition where it runs, Binder or a hub, a laptop) and through the release, right, untouched and
changed, and on a student's own numbers where it has variants, each autograded by nbgrader's own command line.

The suite (tests/test_nbgrader_ways_in.py) runs this for one light assignment and, for every assignment, runs only
autograde's sanitizing steps, which is all the ways in differ in. This script is the whole matrix, as the suite once
ran it: per assignment, the points of each hand-in beside the release's, whether each way in scored and printed
exactly what the release did, and the seconds it took. Target: every way in equals the release on every assignment
(the time is printed, not a target: about 20 minutes on 2 cores).

    python benchmarks/ways_in_course.py [--only 05 06]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tools")]
from nbgrader_hand_ins import CASES, NAMES, WAYS, graded, points, ways_for  # noqa: E402  (tests/nbgrader_hand_ins.py)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", default=None, help="assignments by number prefix (default: all)")
    args = parser.parse_args(argv)
    names = [n for n in NAMES if not args.only or any(n.startswith(p) for p in args.only)]
    print(f"load average {os.getloadavg()[0]:.1f}; {os.cpu_count()} cores; {len(names)} assignment(s)")
    print("| assignment | case | release | " + " | ".join(WAYS) + " | same as the release | s |")
    print("|---|---|---|" + "---|" * len(WAYS) + "---|---:|")
    all_same, started = True, time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ways-in-course-") as folder:
        for name in names:
            start = time.perf_counter()
            result = graded(Path(folder), name)
            seconds = time.perf_counter() - start
            for case in CASES:
                release = result["scores"][f"release-{case}"]
                same = all(result["scores"][f"{w}-{case}"] == release
                           and result["outputs"][f"{w}-{case}"] == result["outputs"][f"release-{case}"]
                           for w in ways_for(name))
                all_same &= same
                cells = [f"{points(result['scores'][f'{w}-{case}'])[0]:g}" if w in ways_for(name) else "not a way in"
                         for w in WAYS]
                print(f"| {name} | {case} | {points(release)[0]:g} / {points(release)[1]:g} | " + " | ".join(cells)
                      + f" | {'yes' if same else 'NO'} | {seconds if case == CASES[0] else 0:.0f} |")
            for way, own in result.get("own_numbers", {}).items():
                full = all(score == possible > 0 for score, possible in own["scores"].values())
                all_same &= full and own["differ"] > 0
                print(f"| {name} | own numbers ({way}) | | " + " | ".join(
                    f"{points(own['scores'])[0]:g}" if w == way else "" for w in WAYS)
                    + f" | {'full marks' if full else 'NOT full marks'} | |")
    print(f"every way in graded as the release on every assignment: {'target met' if all_same else 'target missed'}"
          f" ({time.perf_counter() - started:.0f} s)")
    return 0 if all_same else 1


if __name__ == "__main__":
    sys.exit(main())
