"""Nothing is due before its notebook is reached: a notebook is reached when its prompts are shown or rated, or one
of its problems is checked (a placeholder answer is no check)."""

from datetime import datetime, timedelta, timezone

from attn_lib.exercises import check
from attn_lib.review import PROMPTS, prompts_of, review
from attn_lib._record.file import load
from attn_lib.review._course import due_items
from attn_lib.review._sessions import NOTHING_REACHED

START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)


def due_notebooks(days: int) -> set:
    return {item.notebook for day in range(days) for item in due_items(load(), START + timedelta(days=day))}


def test_with_nothing_reached_nothing_is_due_for_60_days():
    check("03-P1", None)  # a placeholder answer: the cell was run, nothing was checked
    assert load()["reached"] == {}
    assert due_notebooks(60) == set()
    assert repr(review(now=START)) == NOTHING_REACHED


def test_only_the_notebooks_reached_come_due():
    check("02-P2", 1_000_000)  # a wrong answer still reaches notebook 02
    prompts_of("05", now=START)
    assert set(load()["reached"]) == {"02", "05"}
    assert due_notebooks(60) == {"02", "05"}
    due_ids = {item.id for day in range(60) for item in due_items(load(), START + timedelta(days=day))}
    assert due_ids == {p.id for p in PROMPTS if p.notebook in ("02", "05")}  # every prompt there, none elsewhere


def test_a_prompt_of_a_reached_notebook_is_due_at_once_until_it_is_rated():
    prompts_of("03", now=START)
    items = due_items(load(), START)
    assert [i.id for i in items] == [p.id for p in PROMPTS if p.notebook == "03"] and all(i.new for i in items)
    box = review(now=START)
    for _ in box.items:  # each in turn: rated, the session goes on to the next
        box.current.card.reveal.click()
        box.current.card.ratings["Easy"].click()
    assert "Done: " in box.children[0].value
    assert due_items(load(), START + timedelta(days=1)) == []
    assert "Nothing is due now. The next review is due in" in repr(review(now=START + timedelta(days=1)))
