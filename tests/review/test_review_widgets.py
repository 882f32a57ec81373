"""The widgets: every control labelled (a description and a tooltip) and a real button or text field (keyboard:
Tab, Enter); the plain text a static view shows lists the questions, never the answers; progress() as an
accessible table and as text; bad arguments named."""

import html
import json
import re
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import ipywidgets as widgets
import nbformat
import pytest

from attn_lib.exercises import check
from attn_lib.review import PROMPTS, progress, prompts_of, review
from attn_lib._record.file import load
from attn_lib.review._box import STILL_STYLE
from attn_lib.review._text import to_plain

NOW = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import problems as notebook_problems  # noqa: E402  (tools/problems.py)


def problems_in(name: str) -> int:
    """How many problems notebook ``name`` asks (its "### Problem K:" headings), read off the notebook."""
    nb = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
    return len(notebook_problems.problems(nb, name))


def controls(widget):
    found = []
    if isinstance(widget, (widgets.Button, widgets.Text)):
        found.append(widget)
    for child in getattr(widget, "children", ()):
        found += controls(child)
    return found


def test_every_control_of_the_prompts_has_a_label_and_a_tooltip():
    box = prompts_of("02", now=NOW)
    buttons = controls(box)
    assert buttons and all(isinstance(b, widgets.Button) for b in buttons)
    assert all(b.description.strip() and b.tooltip.strip() for b in buttons)
    names = [b.description for b in controls(box.cards[0].box)]
    assert names[0] == "Show answer" and names[-1] == "Undo rating"
    assert [re.sub(r" \(.*\)$", "", name) for name in names[1:-1]] == ["Again", "Hard", "Good", "Easy"]


def test_the_answer_and_ratings_appear_only_after_show_answer_and_a_rating_is_recorded_once():
    box = prompts_of("02", now=NOW)
    card = box.cards[0]
    assert card.answer.layout.display == "none" and card.rating_row.layout.display == "none"
    card.reveal.click()
    assert card.answer.layout.display == "" and card.rating_row.layout.display == "" and card.reveal.disabled
    card.ratings["Good"].click()
    card.ratings["Again"].click()  # disabled after the first: nothing more is recorded
    item = load()["prompts"][card.prompt.id]
    assert [r["rating"] for r in item["reviews"]] == ["Good"]
    assert card.status.value == '<span role="alert">Recorded: Good. It comes back in 10 minutes.</span>'


MINUTES = {"min": 1, "h": 60, "day": 24 * 60, "days": 24 * 60}


@pytest.mark.parametrize("rating", ["Again", "Hard", "Good", "Easy"])
def test_each_rating_button_says_when_the_prompt_comes_back_and_the_record_agrees(rating):
    card = prompts_of("03", now=NOW).cards[1]
    amount, unit = re.fullmatch(rf"{rating} \((\d+) (min|h|days?)\)", card.ratings[rating].description).groups()
    assert f"it comes back in {amount} {unit}" in card.ratings[rating].tooltip
    card.reveal.click()
    card.ratings[rating].click()
    due = datetime.fromisoformat(load()["prompts"][card.prompt.id]["card"]["due"])
    said = (due - NOW).total_seconds() / 60
    assert abs(said - int(amount) * MINUTES[unit]) <= (1 if unit == "min" else 0.5 * MINUTES[unit]), (said, amount, unit)


def test_a_prompt_rated_and_not_yet_due_is_not_rated_again_when_its_prompts_are_shown_again():
    card = prompts_of("04", now=NOW).cards[0]
    card.reveal.click()
    card.ratings["Easy"].click()
    again = prompts_of("04", now=NOW + timedelta(hours=1)).cards[0]
    assert all(button.disabled for button in again.ratings.values())
    assert "You rated it Easy before: it comes back" in again.status.value and "review()" in again.status.value
    again.reveal.click()
    assert again.rating_row.layout.display == "none"
    again.ratings["Again"].click()  # disabled: a click does nothing
    assert [r["rating"] for r in load()["prompts"][again.prompt.id]["reviews"]] == ["Easy"]


def test_the_last_rating_can_be_undone_and_the_prompt_rated_again():
    card = prompts_of("06", now=NOW).cards[2]
    card.reveal.click()
    assert card.undo.layout.display == "none"
    card.ratings["Again"].click()
    assert card.undo.layout.display == "" and card.prompt.id in load()["prompts"]
    card.undo.click()
    assert card.prompt.id not in load()["prompts"]  # as it was: never rated
    assert not any(button.disabled for button in card.ratings.values()) and "undone" in card.status.value
    card.ratings["Good"].click()
    assert [r["rating"] for r in load()["prompts"][card.prompt.id]["reviews"]] == ["Good"]


def test_in_review_the_status_line_names_its_review_in_the_sessions_words_and_its_rating_can_be_undone():
    prompts_of("02", now=NOW)  # reached: its prompts are due at once
    box = review(now=NOW)
    first = box.current.card
    first.reveal.click()
    first.ratings["Good"].click()
    assert "Review 1 recorded: Good; that prompt comes back" in box.status.value and "02-R" not in box.status.value
    assert 'role="alert"' in box.status.value and "Review 2 of" in box.children[0].value
    undo = box.children[-1]
    assert undo.description == "Undo rating" and undo.tooltip
    undo.click()
    assert first.prompt.id not in load()["prompts"] and box.current.card.prompt.id == first.prompt.id
    assert "Review 1 of" in box.children[0].value and "undone" in box.status.value and box.done == []


def test_the_plain_text_lists_the_questions_in_plain_words_and_no_answer():
    box = prompts_of("05", now=NOW)
    bundle = box._repr_mimebundle_()
    text = bundle["text/plain"]
    assert "application/vnd.jupyter.widget-view+json" in bundle and text == repr(box)
    prompts = [p for p in PROMPTS if p.notebook == "05"]
    assert all(to_plain(p.question) in text for p in prompts)
    assert not any(to_plain(p.answer) in text for p in prompts)


@pytest.mark.parametrize("notebook", sorted({p.notebook for p in PROMPTS}))
def test_printed_prompts_carry_no_tex(notebook):
    text = repr(prompts_of(notebook, now=NOW))
    assert not re.search(r"\\(?:sqrt|frac|top|operatorname|text|times|cdot)\b|\$[^$\n]+\$|[{}]", text), text


def test_formulas_in_plain_text():
    assert to_plain(r"$\frac{QK^\top}{\sqrt{d_k}}$ with $d_{\text{model}} = 512$ and `K.T`, **not** $n \times m$") == (
        "QKᵀ/√d_k with d_model = 512 and K.T, not n × m")
    assert to_plain(r"$\sqrt{d_{\text{model}}}$, $\operatorname{softmax}(x)_i \le 1$, $\frac{a + b}{2}$") == (
        "√d_model, softmax(x)_i ≤ 1, (a + b)/2")


def test_the_session_says_what_is_due_or_when_the_next_is():
    now = datetime.now(timezone.utc)  # check() records on the real clock
    prompts_of("02", now=now)
    check("02-P2", 64_000_000)
    box = review(now=now)
    assert repr(box).startswith("Review: ") and "02-P2" not in repr(box)  # the variant is not due yet
    assert all(b.description.strip() and b.tooltip.strip() for b in controls(box))
    while len(box.done) < len(box.items):
        box.current.card.reveal.click()
        box.current.card.ratings["Easy"].click()
    assert repr(review(now=now)).startswith("Nothing is due now. The next review is due in 2 days")
    later = review(now=now + timedelta(days=2, minutes=1))
    assert "1 problem to solve again with new numbers (02-P2)" in repr(later)
    assert all(c.description.strip() and c.tooltip.strip() for c in controls(later) if isinstance(c, widgets.Button))
    assert all(c.description.strip() for c in controls(later) if isinstance(c, widgets.Text))


def test_progress_counts_problems_solved_and_prompts_learned_per_notebook():
    check("02-P2", 64_000_000)
    check("02-P3", None)
    box = prompts_of("02", now=NOW)
    for card in box.cards:
        card.reveal.click()
        card.ratings["Easy"].click()  # Easy leaves the learning steps at once: learned
    shown = progress(now=NOW)
    row = shown.rows[2]
    prompts_02 = sum(p.notebook == "02" for p in PROMPTS)
    problems_02 = problems_in("02-scores")
    assert (row.notebook, row.reached, row.solved, row.learned, row.prompts) == ("02", True, 1, prompts_02, prompts_02)
    assert row.problems == problems_02 and shown.rows[3].reached is False
    text = repr(shown)
    assert f"1 of {problems_02}" in text and f"{prompts_02} of {prompts_02}" in text
    html = shown._repr_html_()
    assert "<caption>" in html and html.count('scope="col"') == 5 and html.count('scope="row"') == 12
    total = shown.total.cells()
    assert total[:2] == ("all", f"1 of {len(shown.rows)}")  # notebooks reached, counted: not "not yet"
    assert "fsrs" not in text and "Review state" not in html and "later day" in text  # the learner's words


@pytest.mark.parametrize("bad", ["5", "11", 11, None, "05-R1"])
def test_prompts_of_names_a_bad_notebook(bad):
    with pytest.raises(ValueError, match=r"notebook must be a notebook's number, \"00\" to \"10\"; got"):
        prompts_of(bad, now=NOW)


def test_the_review_loads_no_widget_library_until_a_widget_is_made_and_the_checkers_none_at_all():
    code = ("import sys, json; import attn_lib.review; from attn_lib.exercises import check; "
            "check('02-P2', 64_000_000); check('02-P3', 1); print(json.dumps(sorted(sys.modules)))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                            env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    loaded = {name.split(".")[0] for name in json.loads(result.stdout)}
    assert "fsrs" in loaded  # the solve started a schedule
    assert not loaded & {"ipywidgets", "IPython", "matplotlib", "genanki"}
    assert result.stderr == ""


def test_shown_in_a_notebook_a_still_with_the_questions_comes_before_the_widget(monkeypatch):
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda data, raw: shown.append((data, raw)))
    box = prompts_of("05", now=NOW)
    box._ipython_display_()
    (still, raw_still), (live, raw_live) = shown
    assert raw_still and raw_live and live == box._repr_mimebundle_()
    page = still["text/html"]
    assert page.startswith('<div class="attn-review-still">') and page.endswith(STILL_STYLE)
    prompts = [p for p in PROMPTS if p.notebook == "05"]
    assert all(html.escape(to_plain(p.question)) in page for p in prompts)
    assert not any(html.escape(to_plain(p.answer)) in page for p in prompts)
    assert "attn-review " not in page.replace(STILL_STYLE, "") and "attn-review" in box._dom_classes


OUTPUTS = {  # what the widget's output holds -> does the live widget show (else the still)?
    "a live review widget": ('<div class="lm-Widget widget-vbox attn-review"></div>', True),
    "restored from saved state, no kernel": (
        '<div class="lm-Widget widget-vbox attn-review jupyter-widgets-disconnected"></div>', False),
    "the reading copy's placeholder": ('<div class="jupyter-widgets"><script type="application/vnd.jupyter.widget-'
                                       'view+json">{}</script></div>', False),
    "a widget still loading": ("<div>Loading widget...</div>", False),
}


@pytest.mark.parametrize("state", OUTPUTS)
def test_the_style_shows_the_live_widget_where_it_runs_and_the_still_everywhere_else(state):
    from bs4 import BeautifulSoup

    widget, live = OUTPUTS[state]
    still = prompts_of("05", now=NOW).still_bundle()["text/html"]
    page = BeautifulSoup('<div class="jp-OutputArea">' + "".join(
        f'<div class="jp-OutputArea-child" id="out{k}"><div class="jp-OutputArea-output">{content}</div></div>'
        for k, content in enumerate((still, widget))) + "</div>", "html.parser")
    rules = re.findall(r"([^{}]+)\{\s*display:\s*none;\s*\}", STILL_STYLE.removeprefix("<style>"))
    hidden = {element["id"] for rule in rules for element in page.select(rule.strip())}
    assert hidden == ({"out0"} if live else {"out1"})
