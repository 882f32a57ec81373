"""A learner's nbgrader feedback page (the course's template, tools/feedback_page/) in headless Chromium: it asks
for nothing but itself (no CDN, no fonts, not even a file beside it), logs no error, passes axe's WCAG 2 A and AA
rules (contrast, labels, headings), and its table of problems leads, from the keyboard, to each problem's check.

The page comes from tests/nbgrader_feedback_round.py (notebook 02, per-student numbers, ada's mixed answers);
tests/test_nbgrader_feedback.py checks what it says.

Run: python -m pytest tests/browser/test_feedback_page.py -q
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from axe_audit import axe_violations, describe

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from nbgrader_feedback_round import feedback_round  # noqa: E402  (tests/nbgrader_feedback_round.py)


@pytest.fixture(scope="module")
def feedback_page(chromium, tmp_path_factory):
    """ada's page, opened with every request but the page's own refused and recorded in ``page.asked``."""
    address = feedback_round(tmp_path_factory).page("ada").as_uri()
    context = chromium.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    page.asked, page.errors = [], []

    def only_itself(route):
        if route.request.url in (address, "about:blank") or route.request.url.startswith("data:"):
            route.continue_()
        else:
            page.asked.append(route.request.url)
            route.abort()

    page.route("**/*", only_itself)
    page.on("console", lambda message: message.type == "error" and page.errors.append(message.text))
    page.on("pageerror", lambda error: page.errors.append(f"uncaught: {error}"))
    page.goto(address, wait_until="load")
    yield page
    context.close()


def test_the_page_asks_for_nothing_but_itself(feedback_page):
    assert feedback_page.asked == [] and feedback_page.errors == []


def test_the_page_passes_axe_wcag_aa(feedback_page):
    violations = axe_violations(feedback_page)
    assert not violations, describe(violations)


def test_the_table_of_problems_leads_to_each_check_from_the_keyboard(feedback_page):
    checks = feedback_page.locator("section.fb-check")
    links = feedback_page.locator("table.fb-summary a")
    assert checks.count() == links.count() == 7
    feedback_page.keyboard.press("Tab")  # the first focusable element is the first problem's link
    focused = feedback_page.evaluate("document.activeElement.getAttribute('href')")
    assert focused == "#problem-1-check"
    feedback_page.keyboard.press("Enter")
    feedback_page.wait_for_function("location.hash === '#problem-1-check'")
    heading = feedback_page.locator("#problem-1-check h3")
    assert heading.is_visible() and "Not yet" in heading.inner_text()


def test_the_teachers_class_page_of_the_round_passes_axe_wcag_aa_and_asks_for_nothing(chromium, tmp_path_factory,
                                                                                      tmp_path):
    """tools/nbgrader_class.py's page of the same round: static, and WCAG 2 A and AA by axe."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
    import nbgrader_class

    root = feedback_round(tmp_path_factory).root
    written, _ = nbgrader_class.write(root, ["02-scores"], f"sqlite:///{root / 'gradebook.db'}", tmp_path)
    context = chromium.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    asked = []
    page.route("**/*", lambda route: route.continue_() if route.request.url == written.as_uri()
               else (asked.append(route.request.url), route.abort()))
    page.goto(written.as_uri(), wait_until="load")
    violations = axe_violations(page)
    context.close()
    assert asked == [] and not violations, describe(violations)
