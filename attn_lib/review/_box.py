"""The widgets the review is built from (ipywidgets is imported here, and this module only when a widget is made).

A :class:`SummaryBox` is a VBox whose plain-text form is a summary in words (what a static view of the notebook or
nbval shows), not the widget tree. Shown in a notebook it is two outputs, as attn_lib.widgets' explorers are: a
still (its summary as HTML, formulas in Unicode) and then the live widget; :data:`STILL_STYLE` shows the live
widget while its kernel is connected and the still wherever the widget cannot run (the notebook opened before its
cells run, no kernel, the static reading copy). Every control has a visible label and a tooltip, and is a real
button or text field: Tab reaches it, Enter or Space works it.
"""

from __future__ import annotations

import html

import ipywidgets as widgets

from ._text import to_html

RATING_TIPS = {
    "Again": "Again: I did not recall it",
    "Hard": "Hard: I recalled it with effort",
    "Good": "Good: I recalled it",
    "Easy": "Easy: I recalled it at once",
}
HIDDEN, SHOWN = "none", ""

# The still hides while a connected review widget is in the same output area; otherwise the output after the still
# (the widget's placeholder, "Loading widget...", its text form) hides. Browsers without :has() show both.
_LIVE = ".attn-review:not(.jupyter-widgets-disconnected)"
STILL_STYLE = (
    "<style>"
    f".jp-OutputArea:has({_LIVE}) > .jp-OutputArea-child:has(.attn-review-still) {{ display: none; }} "
    f".jp-OutputArea-child:has(.attn-review-still) + .jp-OutputArea-child:not(:has({_LIVE})) {{ display: none; }}"
    "</style>"
)


class SummaryBox(widgets.VBox):
    """A VBox shown in words where widgets are not: ``summary`` is its plain text, ``still`` (HTML) and
    ``still_text`` the output shown before it (see the module's docstring)."""

    def __init__(self, children=(), summary: str = "", still: str = "", still_text: str = "", **kwargs):
        super().__init__(children, **kwargs)
        self.summary, self.still, self.still_text = summary, still, still_text
        self.add_class("attn-review")

    def __repr__(self) -> str:
        return self.summary

    def _repr_mimebundle_(self, **kwargs):
        data = super()._repr_mimebundle_(**kwargs)
        data["text/plain"] = self.summary
        return data

    def still_bundle(self) -> dict:
        return {"text/html": f'<div class="attn-review-still">{self.still}</div>{STILL_STYLE}',
                "text/plain": self.still_text}

    def _ipython_display_(self):
        from IPython.display import display

        display(self.still_bundle(), raw=True)
        display(self._repr_mimebundle_(), raw=True)


def math_text(markdown: str, prefix: str = "") -> widgets.HTMLMath:
    return widgets.HTMLMath(value=prefix + to_html(markdown))


def status() -> widgets.HTML:
    return widgets.HTML(value="")


def said(text: str) -> str:
    """A status line's HTML: announced by a screen reader when it appears (role "alert": it answers the learner's
    own act), empty when there is nothing to say."""
    return f'<span role="alert">{html.escape(text)}</span>' if text else ""


def show(widget, shown: bool = True) -> None:
    widget.layout.display = SHOWN if shown else HIDDEN


class RecallCard:
    """One prompt: its question, a "Show answer" button, then the answer and the four rating buttons, each saying
    when the prompt comes back if chosen (``intervals``: rating -> "4 days"). ``on_rate(rating)`` is called once, at
    the first rating, and returns the status line; with ``on_undo``, an "Undo rating" button then calls it and lets
    the prompt be rated again. ``rated``: the prompt was rated before and is not due: the line that says so, and no
    rating buttons."""

    def __init__(self, prompt, number_label: str, on_rate, intervals: dict | None = None, on_undo=None,
                 rated: str = ""):
        self.prompt = prompt
        label = number_label.rstrip(".:")
        self.question = math_text(prompt.question, f"<b>{number_label}</b> ")
        self.reveal = widgets.Button(description="Show answer", tooltip=f"Show the answer to {label}")
        self.answer = math_text(prompt.answer, "<b>Answer:</b> ")
        self.ask = widgets.Label(value="How well did you recall it?", layout=widgets.Layout(width="auto", flex="0 0 auto"))
        self.ratings = {name: widgets.Button(description=f"{name} ({intervals[name]})" if intervals else name,
                                             tooltip=f"{tip}; it comes back in {intervals[name]}" if intervals else tip)
                        for name, tip in RATING_TIPS.items()}
        self.rating_row = widgets.HBox([self.ask, *self.ratings.values()])
        self.undo = widgets.Button(description="Undo rating", tooltip=f"Undo the rating of {label} and rate it again")
        self.status = status()
        self.rated = None
        self._on_undo = on_undo
        show(self.answer, False)
        show(self.rating_row, False)
        show(self.undo, False)
        self.reveal.on_click(self._reveal)
        for name, button in self.ratings.items():
            button.on_click(lambda _button, name=name: self._rate(name, on_rate))
        self.undo.on_click(self._undo)
        if rated:
            self.rated = "before"
            for button in self.ratings.values():
                button.disabled = True
            self.status.value = said(rated)
        self.box = widgets.VBox([self.question, self.reveal, self.answer, self.rating_row, self.undo, self.status])

    def _reveal(self, _button=None):
        show(self.answer)
        show(self.rating_row, self.rated != "before")
        self.reveal.disabled = True
        self.reveal.description = "Answer shown"
        if self.rated != "before":
            self.ratings["Again"].focus()  # keyboard users go on from where the answer appeared

    def _rate(self, name: str, on_rate):
        if self.rated is not None:
            return
        self.rated = name
        for button in self.ratings.values():
            button.disabled = True
        self.status.value = said(on_rate(name))
        if self._on_undo is not None:
            show(self.undo)

    def _undo(self, _button=None):
        if self.rated in (None, "before"):
            return
        self._on_undo()
        self.rated = None
        for button in self.ratings.values():
            button.disabled = False
        show(self.undo, False)
        self.status.value = said("Your rating is undone: rate it again.")
        self.ratings["Again"].focus()
