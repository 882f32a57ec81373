"""The class at a glance, from an autograded round: per problem, the share of students right, its difficulty and
discrimination, and the mistakes the checkers named with their counts: what to go over in the next lesson.

    python tools/nbgrader_class.py DIR 02-scores [MORE ...] [--db-url URL] [--out FOLDER]

writes FOLDER/class.html (one static page: no script, nothing loaded from outside) and FOLDER/class.csv (default
FOLDER: DIR/class/). DIR is a course written by tools/nbgrader_course.py after ``nbgrader autograde``; URL its
gradebook (default: DIR/gradebook.db). Only submissions the gradebook holds as graded count (a submission whose
autograde did not finish is named, not counted as 0: tools/nbgrader_parallel.py's ``not_graded``).

- **share right**: the students whose check of the problem scored its full points, of those graded;
- **difficulty**: the mean score as a share of the points (classical item difficulty: 1 is easy);
- **discrimination**: the point-biserial correlation of being right on the problem with the score on the rest of
  the assignment (the other problems' points): near 0, the problem does not separate the students who did well
  elsewhere; negative, it favours those who did badly (read its statement again). "n/a" when every student or no
  student was right, or the rest of the scores do not vary;
- **mistakes**: each mistake id a checker gave (the last line of a failed check's error value, written by
  attn_lib.exercises._grading.CheckFailed), with how many students made it and one of its reasons as a learner read
  it.
"""

from __future__ import annotations

import argparse
import csv
import html
import math
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # attn_lib, from a clone not installed
from nbgrader_parallel import nbgrader_api, not_graded  # noqa: E402  (tools/nbgrader_parallel.py)

from attn_lib.exercises._catalogue import current_id  # noqa: E402  (a mistake id merged since: its new id)

MISTAKE = re.compile(r"\(mistake id: ([^)]+)\)\s*$")


@dataclass
class Problem:
    """One graded check of an assignment, over the students graded."""

    assignment: str
    grade_id: str
    points: float
    scores: dict = field(default_factory=dict)  # student -> score
    mistakes: dict = field(default_factory=dict)  # student -> mistake id (a failed check)
    reasons: dict = field(default_factory=dict)  # mistake id -> one reason as the learner read it

    @property
    def right(self) -> list[str]:
        return [s for s, score in self.scores.items() if score >= self.points]

    @property
    def share_right(self) -> float:
        return len(self.right) / len(self.scores) if self.scores else math.nan

    @property
    def difficulty(self) -> float:
        return sum(self.scores.values()) / (self.points * len(self.scores)) if self.scores and self.points else math.nan


def point_biserial(right: list[bool], rest: list[float]) -> float | None:
    """The point-biserial correlation of ``right`` (per student) with ``rest`` (their other points); None when either
    does not vary."""
    n = len(right)
    ones = [r for r, ok in zip(rest, right) if ok]
    zeros = [r for r, ok in zip(rest, right) if not ok]
    if not ones or not zeros:
        return None
    mean = sum(rest) / n
    spread = math.sqrt(sum((r - mean) ** 2 for r in rest) / n)
    if spread == 0:
        return None
    p = len(ones) / n
    return (sum(ones) / len(ones) - sum(zeros) / len(zeros)) / spread * math.sqrt(p * (1 - p))


def read_round(course: Path, assignments: list[str], db_url: str) -> tuple[list[Problem], dict]:
    """Every graded check of ``assignments`` with each graded student's score and mistake; and the submissions left
    out as not graded (pair -> why)."""
    from nbgrader.api import Gradebook

    api = nbgrader_api(course, db_url)
    problems, left_out = [], {}
    with Gradebook(db_url, api.coursedir.course_id) as gradebook:
        for assignment in assignments:
            students = sorted(s.student.id for s in gradebook.find_assignment(assignment).submissions)
            missing = not_graded(course, db_url, [(assignment, s) for s in students])
            left_out.update(missing)
            found: dict[str, Problem] = {}
            for student in students:
                if (assignment, student) in missing:
                    continue
                submission = gradebook.find_submission(assignment, student)
                for notebook in submission.notebooks:
                    path = course / "autograded" / student / assignment / f"{notebook.name}.ipynb"
                    cells = {c.metadata.get("nbgrader", {}).get("grade_id"): c
                             for c in nbformat.read(path, as_version=4).cells} if path.is_file() else {}
                    for grade in notebook.grades:
                        if not grade.cell.name.endswith("-check"):
                            continue
                        problem = found.setdefault(grade.cell.name, Problem(assignment, grade.cell.name,
                                                                            grade.max_score))
                        problem.scores[student] = grade.score
                        for output in cells.get(grade.cell.name, {}).get("outputs", []):
                            said = MISTAKE.search(output.get("evalue", "")) if output.output_type == "error" else None
                            if said and grade.score < grade.max_score:
                                mistake = current_id(said.group(1))  # an id merged since: counted as the new one
                                problem.mistakes[student] = mistake
                                words = " ".join(output.get("traceback", [])).split(": ", 1)[-1]
                                reason = " ".join(words.split()).split(" Hint: ", 1)[0]
                                problem.reasons.setdefault(mistake, reason)
            problems += sorted(found.values(), key=lambda p: int(re.sub(r"\D", "", p.grade_id) or 0))
    return problems, left_out


def rest_scores(problems: list[Problem], problem: Problem, students: list[str]) -> list[float]:
    return [sum(p.scores.get(s, 0.0) for p in problems if p.assignment == problem.assignment and p is not problem)
            for s in students]


def rows(problems: list[Problem]) -> list[dict]:
    """One row per problem: the figures of the page and the CSV."""
    out = []
    for problem in problems:
        students = sorted(problem.scores)
        r = point_biserial([problem.scores[s] >= problem.points for s in students],
                           rest_scores(problems, problem, students))
        counts = Counter(problem.mistakes.values())
        out.append({"assignment": problem.assignment, "problem": problem.grade_id.removesuffix("-check"),
                    "students": len(students), "right": len(problem.right),
                    "share_right": round(problem.share_right, 3), "difficulty": round(problem.difficulty, 3),
                    "discrimination": "n/a" if r is None else round(r, 3),
                    "mistakes": "; ".join(f"{m}: {n}" for m, n in counts.most_common()),
                    "_counts": counts, "_reasons": problem.reasons})
    return out


CSV_FIELDS = ("assignment", "problem", "students", "right", "share_right", "difficulty", "discrimination", "mistakes")

STYLE = """
body { font-family: system-ui, sans-serif; color: #1a1a1a; background: #ffffff; max-width: 70rem; margin: 1.5rem auto;
       padding: 0 1rem; line-height: 1.45; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { border: 1px solid #595959; padding: 0.3rem 0.6rem; text-align: left; vertical-align: top; }
caption { text-align: left; font-weight: bold; margin-bottom: 0.4rem; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
"""


def page(table: list[dict], left_out: dict) -> str:
    """The class page: a table per assignment, then each problem's mistakes."""
    parts = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             "<title>The class at a glance</title>", f"<style>{STYLE}</style>", "</head>", "<body>",
             "<h1>The class at a glance</h1>",
             "<p>Share right: students whose check scored full points. Difficulty: the mean score as a share of the "
             "points (1 is easy). Discrimination: how being right here goes with the score on the rest of the "
             "assignment (point-biserial; near 0 or below, read the problem again).</p>"]
    if left_out:
        parts.append("<p>Not counted, as not graded:</p><ul>" + "".join(
            f"<li>{html.escape(s)} {html.escape(a)}: {html.escape(why)}</li>" for (a, s), why in sorted(left_out.items()))
            + "</ul>")
    by_assignment = defaultdict(list)
    for row in table:
        by_assignment[row["assignment"]].append(row)
    for assignment, found in by_assignment.items():
        parts.append(f"<h2>{html.escape(assignment)}</h2>")
        parts.append(f"<table><caption>{html.escape(assignment)}: each problem over the {found[0]['students']} "
                     "students graded</caption><thead><tr>" + "".join(
                         f'<th scope="col">{c}</th>' for c in ("Problem", "Right", "Share right", "Difficulty",
                                                               "Discrimination", "Mistakes named")) + "</tr></thead><tbody>")
        for row in found:
            parts.append(f'<tr><th scope="row">{html.escape(row["problem"])}</th>'
                         f'<td class="number">{row["right"]} of {row["students"]}</td>'
                         f'<td class="number">{row["share_right"]:.0%}</td><td class="number">{row["difficulty"]:.2f}</td>'
                         f'<td class="number">{row["discrimination"] if row["discrimination"] == "n/a" else format(row["discrimination"], ".2f")}</td>'
                         f'<td>{html.escape(row["mistakes"]) or "none"}</td></tr>')
        parts.append("</tbody></table>")
        for row in found:
            if row["_counts"]:
                parts.append(f"<h3>{html.escape(row['problem'])}: the mistakes named</h3><ul>")
                parts += [f"<li><b>{html.escape(m)}</b>, {n} student{'s' * (n != 1)}: "
                          f"{html.escape(row['_reasons'].get(m, ''))}</li>" for m, n in row["_counts"].most_common()]
                parts.append("</ul>")
    parts += ["</body>", "</html>"]
    return "\n".join(parts) + "\n"


def write(course: Path, assignments: list[str], db_url: str, out: Path) -> tuple[Path, Path]:
    problems, left_out = read_round(course, assignments, db_url)
    table = rows(problems)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "class.csv", "w", newline="", encoding="utf-8") as stream:
        writer = csv.DictWriter(stream, fieldnames=CSV_FIELDS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(table)
    (out / "class.html").write_text(page(table, left_out), encoding="utf-8")
    return out / "class.html", out / "class.csv"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("course", type=Path, help="the course folder, after nbgrader autograde")
    parser.add_argument("assignments", nargs="+", help="assignment names, e.g. 02-scores")
    parser.add_argument("--db-url", help="the gradebook (default: DIR/gradebook.db)")
    parser.add_argument("--out", type=Path, help="where to write class.html and class.csv (default: DIR/class)")
    args = parser.parse_args(argv)
    course = args.course.resolve()
    db_url = args.db_url or f"sqlite:///{course / 'gradebook.db'}"
    try:
        written = write(course, args.assignments, db_url, args.out or course / "class")
    except Exception as error:  # noqa: BLE001  (one sentence for the teacher, not a traceback)
        print(f"error: {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}", file=sys.stderr)
        return 2
    print("wrote " + " and ".join(str(p) for p in written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
