"""``review()``: a review session, one item at a time: the prompts that are due (answered from memory, then rated)
mixed with fresh variants of problems already solved (answered, and judged by the problem's own checker; the
verdict rates the variant: right is Good, wrong is Again)."""

from __future__ import annotations

import html

from ._actions import rate_prompt, rate_variant
from ._clock import Now, clock
from ._prompts import PROMPTS
from ._queue import due_items, next_due
from ._schedule import due
from ._store import load
from ._words import plural, when

NOTHING_REACHED = ("Nothing to review yet: a notebook's prompts join the review once you reach it (run its review "
                   "prompts at its end, or check one of its problems).")


def review(now: Now = None):
    """The review session widget for what is due ``now`` (a timezone-aware datetime, or a function returning one;
    None: the real clock). With nothing due it says when the next item is."""
    time = clock(now)
    start = time()
    record = load()
    items = due_items(record, start)
    from ._box import SummaryBox, status

    said = summary(record, items, start)
    box = SummaryBox(summary=said, still=f"<p>{html.escape(said)}</p>",
                     still_text="Your review session: run this cell to answer what is due.")
    box.items, box.done = items, []
    header, box.status = status(), status()
    prompts = {prompt.id: prompt for prompt in PROMPTS}

    def finish(note: str = ""):
        later = next_due(load(), time())
        after = f" The next is due {when(later, time())}." if later else ""
        header.value = f"<b>Done: {plural(len(box.done), 'item')} reviewed.</b>{after}"
        box.children = [header, box.status]
        box.status.value = note

    def go(index: int, note: str = ""):
        box.status.value = note
        if index >= len(items):
            finish(note)
            return
        item = items[index]
        where = f"{'prompt' if item.kind == 'prompt' else 'problem ' + item.id} from notebook {item.notebook}"
        header.value = f"<b>Review {index + 1} of {len(items)}</b>: a {where}{' (new)' if item.new else ''}"
        body = (prompt_view(prompts[item.id], index) if item.kind == "prompt" else variant_view(item.id, index))
        box.current = body
        box.children = [header, body, box.status]
        if index:  # the control just used is gone: keyboard focus goes on to the new item's first control
            (body.card.reveal if item.kind == "prompt" else body.answer_box.fields[0]).focus()

    def prompt_view(prompt, index):
        from ._box import RecallCard

        def on_rate(rating: str) -> str:
            moment = time()
            entry = rate_prompt(prompt.id, rating, moment)
            box.done.append((prompt.id, rating))
            go(index + 1, f"{prompt.id}: {rating}, back {when(due(entry), moment)}.")
            return ""

        card = RecallCard(prompt, "Question:", on_rate)
        body = card.box
        body.card = card
        return body

    def variant_view(problem_id, index):
        import ipywidgets as widgets

        from ..exercises import another

        variant = another(problem_id)
        answer_box = variant.widget()
        button = next(child for child in answer_box.children if isinstance(child, widgets.Button))
        after = status()
        onward = widgets.Button(description="Next", tooltip="Go on to the next review item")
        onward.layout.display = "none"
        rated = []

        def on_verdict(_=None):
            verdict = answer_box.verdict
            if rated or verdict is None or verdict.verdict == "Not answered yet":
                return
            moment = time()
            rated.append(verdict.passed)
            entry = rate_variant(problem_id, variant.seed, verdict.passed, moment)
            box.done.append((problem_id, "right" if verdict.passed else "not yet"))
            after.value = (f"Recorded as {'right' if verdict.passed else 'not yet right'}: another variant comes "
                           f"{when(due(entry), moment)}.")
            onward.layout.display = ""
            onward.focus()

        button.on_click(on_verdict)  # after the box's own handler, which sets its verdict
        for field in answer_box.fields:
            field.observe(on_verdict, names="value")
        onward.on_click(lambda _b: go(index + 1))
        body = widgets.VBox([answer_box, after, onward])
        body.variant, body.answer_box, body.check_button, body.next_button = variant, answer_box, button, onward
        return body

    if items:
        go(0)
    else:
        header.value = summary(record, items, start)
        box.children = [header]
    box.go = go
    return box


def summary(record: dict, items: list, now) -> str:
    """The session in words: what is due, or when the next item is."""
    if not record["reached"]:
        return NOTHING_REACHED
    if not items:
        later = next_due(record, now)
        return f"Nothing is due now.{f' The next review is due {when(later, now)}.' if later else ''}"
    prompts = [i for i in items if i.kind == "prompt"]
    variants = [i for i in items if i.kind == "variant"]
    notebooks = sorted({i.notebook for i in prompts})
    parts = []
    if prompts:
        parts.append(f"{plural(len(prompts), 'prompt')} (notebook{'s' * (len(notebooks) > 1)} {', '.join(notebooks)})")
    if variants:
        parts.append(f"{plural(len(variants), 'problem')} to solve again with new numbers "
                     f"({', '.join(i.id for i in variants)})")
    return f"Review: {len(items)} due now: {' and '.join(parts)}. Run the cell to answer them."
