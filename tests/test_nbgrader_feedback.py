"""The feedback page a learner gets back (nbgrader generate_feedback with the course's template,
tools/feedback_page/): for each problem the verdict, the points and the checker's reason and hint; no expected
answer, no test cell's code, no other student's numbers; nothing loaded from outside the page.

The round (tests/nbgrader_feedback_round.py): notebook 02 with per-student numbers, ada's answers right, wrong and
untouched, bo's all right. tests/browser/test_feedback_page.py opens the same page in Chromium."""

from __future__ import annotations

import html
import re

import numpy as np
import pytest
from nbgrader.api import Gradebook

from attn_lib.exercises import check_scores
from attn_lib.exercises._grading import CheckFailed
from attn_lib.exercises._problem_book import PREDICTIONS, check, student_seed
from nbgrader_feedback_round import NAME, KEYS_FIRST, expected, feedback_round
import nbgrader_course as course  # noqa: E402  (tools/nbgrader_course.py, on the path through the round's module)

EXTERNAL = re.compile(r"""(?:src|href|action|poster|data)\s*=\s*["']?\s*(?:https?:)?//|url\(\s*["']?\s*(?:https?:)?//|"""
                      r"""@import""", re.IGNORECASE)


def words(text: str) -> str:
    """Text with tags dropped, entities decoded and white space made single spaces (none before a comma)."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", text)).split()).replace(" ,", ",")


@pytest.fixture(scope="module")
def ada(tmp_path_factory):
    done = feedback_round(tmp_path_factory)
    page = done.page("ada").read_text(encoding="utf-8")
    with Gradebook(f"sqlite:///{done.root / 'gradebook.db'}", course.COURSE_ID) as gradebook:
        scores = {g.name: (g.score, g.max_score)
                  for g in gradebook.find_submission_notebook(NAME, NAME, "ada").grades if g.name.endswith("-check")}
    return dict(round=done, page=page, scores=scores)


def section(page: str, grade_id: str) -> str:
    match = re.search(rf'<section [^>]*id="{grade_id}".*?</section>', page, re.DOTALL)
    assert match, f"no section for {grade_id}"
    return match.group(0)


def checker_says(done, grade_id: str, kind: str) -> str:
    """What the checker says to ada's answer, computed here: the message of the CheckFailed the graded cell raises
    for a wrong or missing answer, the feedback's text for a right one."""
    pid = done.problems[grade_id]
    if pid is None:
        namespace = {"np": np}
        exec(KEYS_FIRST, namespace)
        feedback = check_scores(namespace["scores"])
    else:
        answer = {"right": expected(pid, "ada"), "wrong": expected(pid, "ada") + 7, "untouched": None}[kind]
        feedback = check(pid, answer, seed=student_seed("ada", NAME))  # as the graded cell calls it
    assert feedback.passed == (kind == "right"), (grade_id, kind)
    return CheckFailed(feedback).text if kind != "right" else feedback.reason


def test_the_page_loads_nothing_from_outside(ada):
    page = ada["page"]
    assert not EXTERNAL.findall(page)
    assert "<script" not in page.lower() and "<link" not in page.lower() and "<iframe" not in page.lower()
    assert "mathjax" not in page.lower()


def test_each_problem_has_its_verdict_points_and_the_checkers_reason_and_hint(ada):
    done, page, scores = ada["round"], ada["page"], ada["scores"]
    assert set(scores) == set(done.kinds)
    for grade_id, kind in done.kinds.items():
        score, possible = scores[grade_id]
        assert (score == possible) == (kind == "right"), (grade_id, kind, score)
        said = words(section(page, grade_id))
        verdict = "Right" if kind == "right" else "Not yet"
        points = f"{score:g} of {possible:g} point{'' if possible == 1 else 's'}"
        assert f": {verdict}, {points}" in said, (grade_id, said[:200])
        assert words(checker_says(done, grade_id, kind)) in said, (grade_id, said)
        if kind == "wrong":
            assert "Hint: " in said
    summary = words(page.split('<table class="fb-summary">', 1)[1].split("</table>", 1)[0])
    total, most = sum(s for s, _ in scores.values()), sum(m for _, m in scores.values())
    assert f"Score: {total:g} of {most:g} points" in words(page)
    for grade_id in done.kinds:
        assert f'href="#{grade_id}"' in page
    assert summary.count("Not yet") == sum(k != "right" for k in done.kinds.values())
    assert summary.count("Right") == sum(k == "right" for k in done.kinds.values())


def test_no_expected_answer_of_hers_or_anothers_is_on_the_page(ada):
    """The expected answers of the problems ada did not get right, and every answer of bo's numbers, are nowhere on
    her page (the numbers of notebook 02 itself, which its cells print, are not the students')."""
    done, page = ada["round"], html.unescape(ada["page"])
    secret = {(student, grade_id): expected(pid, student) for grade_id, pid in done.problems.items() if pid
              for student in ("ada", "bo") if student == "bo" or done.kinds[grade_id] != "right"}
    own = {expected(pid, "ada") for grade_id, pid in done.problems.items() if pid and done.kinds[grade_id] == "right"}
    checked = 0
    for (student, grade_id), value in secret.items():
        notebooks_own = PREDICTIONS[done.problems[grade_id]]
        if value in own or value == notebooks_own.expected(notebooks_own.numbers(0))[0] or value < 1000:
            continue  # printed by the notebook's own cells or by ada's own right answer, or too short to be telling
        checked += 1
        for shown in {f"{int(value):,}", str(int(value)), repr(value), f"{value:.4g}", f"{value:.3e}"}:
            # a whole number on the page, not the tail of a longer one (3,072,000,000 holds 72,000,000)
            assert not re.search(rf"(?<![\d,.]){re.escape(shown)}(?![\d,]|\.\d)", page), (student, grade_id, shown)
    assert checked >= 4  # 02-P2, P3, P6 of ada's wrong or untouched answers and of bo's


def test_no_test_code_and_no_solution_is_on_the_page(ada):
    page = html.unescape(ada["page"])
    for plumbing in ("assert_correct", "import_module", "reload(", "BEGIN SOLUTION", "BEGIN HIDDEN", "_problem_book"):
        assert plumbing not in page, plumbing
    assert page.count('class="fb-label">Your answer<') == len(ada["round"].kinds)
