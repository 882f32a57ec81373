"""``prompts_of("05")``: the review prompts at the end of notebook 05, each answered from memory and rated, which
starts its schedule in the learner's record."""

from __future__ import annotations

import html

from ._actions import mark_reached, rate_prompt
from ._clock import Now, clock
from ._course import checked_notebook, prompts_of_notebook
from ._markup import to_plain
from ._schedule import due
from ._words import when


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
    mark_reached(notebook, time())
    from ._box import RecallCard, SummaryBox, math_text

    def recorder(prompt):
        def on_rate(rating: str) -> str:
            moment = time()
            item = rate_prompt(prompt.id, rating, moment)
            return f"Recorded: {rating}. It comes back {when(due(item), moment)}."
        return on_rate

    cards = [RecallCard(prompt, f"{k}.", recorder(prompt)) for k, prompt in enumerate(prompts, 1)]
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
