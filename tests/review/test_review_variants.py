"""Variants of solved problems in review: a fresh variant, judged by the same checker as check(); its verdict rates
it (right: Good, the next in days; wrong: Again, the next day), and a placeholder answer rates nothing."""

import html
from datetime import datetime, timedelta, timezone

import pytest

from attn_lib.exercises import check
from attn_lib.exercises._problem_book import PREDICTIONS
from attn_lib.review import review
from attn_lib._record.file import load
from attn_lib.review._course import due_items

NOW = datetime.now(timezone.utc).replace(microsecond=0)


def session_with_variant(problem_id: str):
    """A session three days after ``problem_id`` was solved: its variant is due, the only item."""
    assert check(problem_id, PREDICTIONS[problem_id].expected(PREDICTIONS[problem_id].first)[0]).passed
    later = NOW + timedelta(days=3)
    items = [(i.kind, i.id) for i in due_items(load(), later)]
    assert ("variant", problem_id) in items
    box = review(now=later)
    while box.items[len(box.done)].kind != "variant":  # prompts first, if the notebook has due ones
        box.current.card.reveal.click()
        box.current.card.ratings["Good"].click()
    return box, later


def answer(body, text: str):
    body.answer_box.fields[0].value = text  # as typed, then Enter
    return body.answer_box.verdict


@pytest.mark.parametrize("problem_id", ["02-P2", "05-P2", "08-P1"])
def test_a_variant_is_judged_by_the_same_checker_as_check(problem_id):
    box, later = session_with_variant(problem_id)
    body = box.current
    variant = body.variant
    assert variant.problem.id == problem_id and variant.seed != 0
    right = variant.problem.expected(variant.params)[0]
    verdict = answer(body, repr(right))
    same = check(problem_id, right, seed=variant.seed)
    assert (verdict.passed, verdict.reason, verdict.mistake) == (True, same.reason, same.mistake)
    assert "worked out" not in body.after.value  # a right answer is not told it again
    item = load()["variants"][problem_id]
    assert item["reviews"][-1]["rating"] == "Good" and item["reviews"][-1]["seed"] == variant.seed
    assert datetime.fromisoformat(item["card"]["due"]) > later + timedelta(days=3)


def test_a_wrong_variant_rates_again_and_comes_back_the_next_day():
    box, later = session_with_variant("02-P2")
    body = box.current
    assert answer(body, "") is None or answer(body, "").verdict == "Not answered yet"
    assert load()["variants"]["02-P2"]["reviews"][-1]["rating"] == "Good"  # only the solve in the notebook so far
    wrong = "1"
    verdict = answer(body, wrong)
    same = check("02-P2", 1, seed=body.variant.seed)
    assert not verdict.passed and (verdict.reason, verdict.mistake) == (same.reason, same.mistake)
    right = body.variant.check(body.variant.problem.expected(body.variant.params)[0])
    assert right.passed and right.reason in html.unescape(body.after.value)  # after answering: the answer, worked out
    assert 'role="alert"' in body.after.value
    item = load()["variants"]["02-P2"]
    assert item["reviews"][-1]["rating"] == "Again"
    assert datetime.fromisoformat(item["card"]["due"]) == later + timedelta(days=1)
    position = len(box.done)
    body.next_button.click()
    assert box.children[1] is not body and (f"Review {position + 1} of" in box.children[0].value
                                            or "Done: " in box.children[0].value)
    body.check_button.click()  # a second verdict on the same variant rates nothing more
    assert len(load()["variants"]["02-P2"]["reviews"]) == 2


def test_practice_with_another_is_recorded_as_a_review_of_the_problems_variants():
    from attn_lib.exercises import another

    variant = another("05-P2", seed=31)
    assert variant.check(None).mistake == "not-answered" and "05-P2" not in load()["variants"]  # nothing to record
    assert not variant.check(-1).passed
    item = load()["variants"]["05-P2"]
    assert [(r["rating"], r["seed"], r["passed"]) for r in item["reviews"]] == [("Again", 31, False)]
    right = variant.problem.expected(variant.params)[0]
    assert variant.check(right).passed
    record = load()
    assert [r["rating"] for r in record["variants"]["05-P2"]["reviews"]] == ["Again", "Good"]
    assert "05-P2" in record["solved"] and "05" in record["reached"]
