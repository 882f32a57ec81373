"""Feedback: its text and HTML, and a blank answer (None, ...) that is not answered yet."""

import html
import sys
from pathlib import Path

import pytest

from attn_lib.exercises import (Feedback, check_attention, check_choice, check_count, check_number, check_scores,
                                check_shapes, check_variance)
from attn_lib.exercises._feedback import TINT_ALPHA, VERDICT_COLOURS

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from contrast import AA_LARGE, AA_NORMAL, contrast_ratio, over  # noqa: E402  (tools/contrast.py)


ANSWER_CHECKERS = {
    "check_shapes": lambda answer: check_shapes(answer, n=3, m=5, d_k=4, d_v=2),
    "check_count": lambda answer: check_count("scores", answer, n=10),
    "check_variance": lambda answer: check_variance(answer, d_k=64, scaled=False),
}


def test_feedback_text_repr_has_verdict_reason_and_hint():
    fb = Feedback(False, "The rows sum to 2.", "Divide by the row sum.", "rows-not-one")
    assert repr(fb) == "Not yet: The rows sum to 2.\nHint: Divide by the row sum."
    assert str(fb) == repr(fb)
    assert not fb and bool(Feedback(True, "Right."))
    assert repr(Feedback(True, "Right.")) == "Correct: Right."
    assert repr(Feedback(False, "Nothing yet.", "", "not-answered")) == "Not answered yet: Nothing yet."


def test_feedback_html_has_verdict_reason_hint_in_details_and_escapes():
    fb = Feedback(False, "weights < 0 at [1, 2]", "Use np.exp & divide.", "negative-weights")
    page = fb._repr_html_()
    assert "Not yet" in page
    assert "weights &lt; 0 at [1, 2]" in page
    assert "<details" in page and "<summary" in page and "Use np.exp &amp; divide." in page
    assert "weights < 0" not in page  # a raw '<' from the reason never reaches the HTML
    assert "Correct" in Feedback(True, "Right.")._repr_html_()
    assert "<details" not in Feedback(True, "Right.")._repr_html_()  # no empty hint box


def test_feedback_html_never_fixes_the_text_colour():
    # Readable in light and dark themes: text inherits the theme's colour; only the verdict is coloured.
    page = Feedback(False, "reason", "hint", "x")._repr_html_()
    for style in page.split('style="')[1:]:
        declarations = style.split('"')[0]
        if "color:" in declarations.replace("background", ""):
            assert "font-weight: bold" in declarations  # the verdict line alone


@pytest.mark.parametrize("verdict", sorted(VERDICT_COLOURS))
def test_verdict_colours_pass_wcag_aa_on_light_and_large_text_aa_on_dark(verdict):
    colour = VERDICT_COLOURS[verdict]
    for page in ("#ffffff", "#111111"):  # JupyterLab's light and dark backgrounds (--jp-layout-color0)
        tinted = over(colour, TINT_ALPHA, page)
        needed = AA_NORMAL if page == "#ffffff" else AA_LARGE
        assert contrast_ratio(colour, page) >= needed and contrast_ratio(colour, tinted) >= needed, (verdict, page)
    html = Feedback(verdict == "Correct", "reason", "", None if verdict == "Correct" else "x")._repr_html_()
    # the dark theme's 3:1 holds only for large text: the verdict line is 14 pt bold
    assert f"font-weight: bold; font-size: 14pt; color: {colour};" in html
    assert f"background: {colour}{round(TINT_ALPHA * 255):02x};" in html


def test_feedback_text_wraps_long_reasons_without_splitting_shapes():
    reason = "word " * 30 + "has shape (3, 5, 7) and entry [12, 4]" + " word" * 30
    lines = repr(Feedback(False, reason)).splitlines()
    assert max(len(line) for line in lines) <= 100
    assert any("(3, 5, 7)" in line for line in lines) and any("[12, 4]" in line for line in lines)


@pytest.mark.parametrize("name", sorted(ANSWER_CHECKERS))
@pytest.mark.parametrize("blank", [None, ...])
def test_blank_answers_are_not_answered_yet(name, blank):
    feedback = ANSWER_CHECKERS[name](blank)
    assert feedback.mistake == "not-answered" and not feedback.passed


def _my_attention(Q, K, V, mask=None):
    raise NotImplementedError


@pytest.mark.parametrize("feedback, checks", [
    (check_count("score_macs", None, n=10), "your count of the multiply-adds that make the scores, Q K^T"),
    (check_count("projection_weights", ..., n=1), "your count of the numbers in one head's W_q"),
    (check_shapes({"Q": None, "output": None}, n=3, m=5, d_k=4, d_v=2), "your predicted shapes of Q, output"),
    (check_variance(None, d_k=64, scaled=True), "your predicted variance of one score divided by sqrt(d_k)"),
    (check_choice(None, "a", {"a": "x", "b": "y"}), "your choice among the options a, b"),
    (check_number(None, 3, what="your predicted ratio"), "your predicted ratio"),
    (check_attention(_my_attention), "your function _my_attention(Q, K, V, mask=None), which returns the output"),
    (check_scores(None), "your function fn(Q, K), which returns the scores"),
])
def test_not_answered_is_a_one_line_prompt_saying_what_the_cell_checks_not_a_verdict_box(feedback, checks):
    assert feedback.mistake == "not-answered" and feedback.verdict == "Not answered yet"
    text = " ".join(repr(feedback).split())
    assert text.startswith(f"Not answered yet: This cell checks {checks}. Write your answer in the cell above")
    assert "\nHint" not in repr(feedback)  # one paragraph, not a verdict, a reason and a hint
    page = feedback._repr_html_()
    assert page.count("<div") == 1 and "border-left" not in page and "font-weight: bold" not in page
    assert "<details" not in page and "Not answered yet" not in page
    assert f"This cell checks {html.escape(checks)}" in page
