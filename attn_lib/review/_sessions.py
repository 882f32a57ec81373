"""The two widgets a learner answers in: ``prompts_of("05")``, the review prompts at the end of notebook 05, each
answered from memory and rated, which starts its schedule in the learner's record; and ``review()``, a review
session, one item at a time: the prompts that are due (answered from memory, then rated) mixed with fresh variants
of problems already solved (answered, and judged by the problem's own checker; the verdict rates the variant: right
is Good, wrong is Again). The widgets' pieces are in ``_box.py``, imported (with ipywidgets) only when one is made.
"""

from __future__ import annotations

import dataclasses
import html

from .._record.changes import mark_reached, prompt_item, rate_prompt, rate_variant, rated_as, undo_rating
from .._record.file import load
from .._record.schedule import RATINGS, Now, clock, due
from ._course import checked_notebook, due_items, next_due, prompts_of_notebook
from ._prompts import PROMPTS
from ._text import after, plural, to_plain, when


def prompts_of(notebook, now: Now = None):
    """The review prompts of ``notebook`` ("05") as a widget: for each, its question, a "Show answer" button, then
    Again / Hard / Good / Easy buttons that record a first review in the learner's record (so the prompt's schedule
    starts). Showing it marks the notebook reached: its prompts join ``review()``. Its plain text lists the
    questions (formulas in Unicode, not TeX), never the answers.

    ``now``: a timezone-aware datetime or a function returning one (a test's clock); None: the real clock.
    """
    notebook = checked_notebook(notebook)
    prompts = prompts_of_notebook(notebook)
    if not prompts:
        raise ValueError(f"notebook {notebook} has no review prompts")
    time = clock(now)
    record = mark_reached(notebook, time())
    from ._box import RecallCard, SummaryBox, math_text

    def card(prompt, label: str):
        moment = time()
        item = record["prompts"].get(prompt.id)
        if item is not None and due(item) > moment:  # rated before, not due yet: review() brings it back
            last = item["reviews"][-1]["rating"] if item["reviews"] else "rated"
            return RecallCard(prompt, label, None, rated=f"You rated it {last} before: it comes back "
                                                         f"{when(due(item), moment)}, in review().")
        before = []

        def on_rate(rating: str) -> str:
            before[:] = [prompt_item(prompt.id)]
            at = time()
            return f"Recorded: {rating}. It comes back {when(due(rate_prompt(prompt.id, rating, at)), at)}."

        return RecallCard(prompt, label, on_rate, intervals=intervals(item, prompt.id, moment),
                          on_undo=lambda: undo_rating(prompt.id, before[0]))

    cards = [card(prompt, f"{k}.") for k, prompt in enumerate(prompts, 1)]
    intro = math_text(f"**Review prompts of notebook {notebook}.** Answer each from memory, then show the answer and "
                      "rate your recall: the rating schedules its next review (`review()`).")
    lines = [f"Review prompts of notebook {notebook} (answer from memory, then rate your recall):"]
    lines += [f"{k}. {to_plain(prompt.question)}" for k, prompt in enumerate(prompts, 1)]
    still = (f"<p><b>Review prompts of notebook {notebook}.</b> Answer each from memory; run this cell to show "
             "the answers and rate your recall.</p><ol>"
             + "".join(f"<li>{html.escape(to_plain(prompt.question))}</li>" for prompt in prompts) + "</ol>")
    box = SummaryBox([intro, *(card.box for card in cards)], summary="\n".join(lines), still=still,
                     still_text=f"Review prompts of notebook {notebook}: run this cell to answer them here.")
    box.cards = cards
    return box


NOTHING_REACHED = ("Nothing to review yet: a notebook's prompts join the review once you reach it (run its review "
                   "prompts at its end, or check one of its problems).")


def review(now: Now = None):
    """The review session widget for what is due ``now`` (a timezone-aware datetime, or a function returning one;
    None: the real clock). With nothing due it says when the next item is."""
    time = clock(now)
    start = time()
    record = load()
    items = due_items(record, start)
    from ._box import SummaryBox, said, status

    told = summary(record, items, start)
    box = SummaryBox(summary=told, still=f"<p>{html.escape(told)}</p>",
                     still_text="Your review session: run this cell to answer what is due.")
    box.items, box.done, box.undo = items, [], None
    header, box.status = status(), status()
    prompts = {prompt.id: prompt for prompt in PROMPTS}

    def finish(note: str = ""):
        later = next_due(load(), time())
        next_one = f" The next is due {when(later, time())}." if later else ""
        header.value = f"<b>Done: {plural(len(box.done), 'item')} reviewed.</b>{next_one}"
        box.children = [header, box.status, *([box.undo] if box.undo is not None else [])]
        box.status.value = said(note)

    def go(index: int, note: str = "", undo=None):
        box.status.value = said(note)
        box.undo = undo
        if index >= len(items):
            finish(note)
            return
        item = items[index]
        where = f"{'prompt' if item.kind == 'prompt' else 'problem ' + item.id} from notebook {item.notebook}"
        header.value = f"<b>Review {index + 1} of {len(items)}</b>: a {where}{' (new)' if item.new else ''}"
        body = (prompt_view(prompts[item.id], index) if item.kind == "prompt" else variant_view(item.id, index))
        box.current = body
        box.children = [header, body, box.status, *([undo] if undo is not None else [])]
        if index:  # the control just used is gone: keyboard focus goes on to the new item's first control
            (body.card.reveal if item.kind == "prompt" else body.answer_box.fields[0]).focus()

    def prompt_view(prompt, index):
        import ipywidgets as widgets

        from ._box import RecallCard

        before = prompt_item(prompt.id)

        def on_rate(rating: str) -> str:
            moment = time()
            entry = rate_prompt(prompt.id, rating, moment)
            box.done.append((prompt.id, rating))
            undo = widgets.Button(description="Undo rating", tooltip=f"Undo the rating of review {index + 1} and "
                                                                     "answer it again")

            def back(_button=None):
                undo_rating(prompt.id, before)
                box.done.pop()
                go(index, f"The rating of review {index + 1} is undone: rate it again.")

            undo.on_click(back)
            go(index + 1, f"Review {index + 1} recorded: {rating}; that prompt comes back {when(due(entry), moment)}.",
               undo)
            return ""

        card = RecallCard(prompt, "Question:", on_rate, intervals=intervals(before, prompt.id, time()))
        body = card.box
        body.card = card
        return body

    def variant_view(problem_id, index):
        import ipywidgets as widgets

        from ..exercises import another

        variant = dataclasses.replace(another(problem_id), practice=False)  # review records it itself, as rated
        answer_box = variant.widget()
        button = next(child for child in answer_box.children if isinstance(child, widgets.Button))
        after_it = status()
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
            said_now = (f"Recorded as {'right' if verdict.passed else 'not yet right'}: another variant comes "
                        f"{when(due(entry), moment)}.")
            if not verdict.passed:  # review teaches: after the learner's answer, the right one and its working
                right = variant.check(variant.problem.expected(variant.params)[0])
                said_now += f" The right answer, worked out: {right.reason}"
            after_it.value = said(said_now)
            onward.layout.display = ""
            onward.focus()

        button.on_click(on_verdict)  # after the box's own handler, which sets its verdict
        for field in answer_box.fields:
            field.observe(on_verdict, names="value")
        onward.on_click(lambda _b: go(index + 1))
        body = widgets.VBox([answer_box, after_it, onward])
        body.variant, body.answer_box, body.check_button, body.next_button = variant, answer_box, button, onward
        body.after = after_it
        return body

    if items:
        go(0)
    else:
        header.value = summary(record, items, start)
        box.children = [header]
    box.go = go
    return box


def intervals(item: dict | None, prompt_id: str, now) -> dict:
    """For each rating, how long until the prompt would come back if rated so now ("10 min", "4 days")."""
    return {rating: after(due(rated_as(item, prompt_id, rating, now)), now) for rating in RATINGS}


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
