"""The answer every checker gives: a verdict, a reason and a hint, shown as text and as HTML."""

from __future__ import annotations

import html
import re
import textwrap
from dataclasses import dataclass

from ._catalogue import entry


NOT_ANSWERED = "not-answered"

_WIDTH = 100  # columns of the plain-text repr

# The verdict's colour, its border, and (at opacity TINT_ALPHA) the block's background. Each passes WCAG AA for
# normal text (4.5:1) on white and on its own tint; on JupyterLab's dark theme (#111) they reach 3.3:1, AA for
# large text, which the verdict line is (14 pt bold). The word and the mark say the verdict without the colour.
VERDICT_COLOURS = {"Correct": "#247b3d", "Not yet": "#c7302b"}
VERDICT_MARKS = {"Correct": "&#10004;", "Not yet": "&#10008;"}
# A checker cell run before its answer is written shows one line, no verdict box: what the cell checks and what to
# do (the stored learner notebooks show it for every problem).
WAITING_MARK = "&#9998;"
TINT_ALPHA = 0x1A / 0xFF


@dataclass(frozen=True, repr=False)
class Feedback:
    """A checker's answer: a verdict, the reason for it, and a hint.

    Parameters
    ----------
    passed : bool
        True when the answer is right. ``bool(feedback)`` is ``passed``.
    reason : str
        What is right or wrong, and why, in the course's terms.
    hint : str
        What to try next; may be empty.
    mistake : str or None
        Short id of the recognised mistake (see the module's table), ``"not-answered"``, or None.
    again : str
        For a problem with variants: the call that poses it again with other numbers; may be empty.

    Examples
    --------
    >>> fb = Feedback(False, "The rows sum to 2.", "Divide by the row sum.", "rows-not-one")
    >>> print(fb)
    Not yet: The rows sum to 2.
    Hint: Divide by the row sum.
    >>> bool(fb)
    False
    """

    passed: bool
    reason: str
    hint: str = ""
    mistake: str | None = None
    again: str = ""

    @property
    def verdict(self) -> str:
        """The short verdict line: "Correct", "Not yet" or "Not answered yet"."""
        if self.passed:
            return "Correct"
        return "Not answered yet" if self.mistake == NOT_ANSWERED else "Not yet"

    def __bool__(self) -> bool:
        return bool(self.passed)

    def __repr__(self) -> str:
        if self.mistake == NOT_ANSWERED:  # a prompt, not a verdict: one paragraph, what the cell is for
            return "\n".join(wrap(" ".join(part for part in (f"{self.verdict}:", self.reason, self.hint) if part)))
        lines = wrap(f"{self.verdict}: {self.reason}")
        if self.hint:
            lines += wrap(f"Hint: {self.hint}")
        if self.again:
            lines += wrap(self.again)
        return "\n".join(lines)

    __str__ = __repr__

    def _repr_html_(self) -> str:
        # Text keeps the theme's own colour; only the verdict and a translucent tint carry colour, so the
        # block reads on JupyterLab's light and dark themes alike (see VERDICT_COLOURS).
        if self.mistake == NOT_ANSWERED:  # one quiet line saying what the cell is for, in the theme's colours
            prompt = html.escape(" ".join(part for part in (self.reason, self.hint) if part))
            return (f'<div class="attn-feedback attn-waiting" style="font-style: italic; margin: 0.3em 0;">'
                    f'{WAITING_MARK} {prompt}</div>')
        colour, mark = VERDICT_COLOURS[self.verdict], VERDICT_MARKS[self.verdict]
        reason = html.escape(self.reason).replace("\n", "<br>")
        parts = [
            f'<div class="attn-feedback" style="border-left: 4px solid {colour}; '
            f'background: {colour}{round(TINT_ALPHA * 255):02x}; padding: 0.4em 0.8em; margin: 0.3em 0;">',
            f'<div style="font-weight: bold; font-size: 14pt; color: {colour};">{mark} {self.verdict}</div>',
            f'<div style="margin-top: 0.2em;">{reason}</div>',
        ]
        if self.hint:
            hint = html.escape(self.hint).replace("\n", "<br>")
            parts.append(
                '<details style="margin-top: 0.3em;"><summary style="cursor: pointer;">Hint</summary>'
                f'<div style="margin-top: 0.2em;">{hint}</div></details>'
            )
        if self.again:
            parts.append(f'<div style="margin-top: 0.3em; font-size: 90%;">{html.escape(self.again)}</div>')
        parts.append("</div>")
        return "".join(parts)


# Indices, shapes, comparisons and sizes stay on one line: "[0, 1]", "(n, d_k)", "j <= i", "n = 6".
_UNBREAKABLE = re.compile(r"\[[^\[\]]{0,40}\]|\([^()]{0,40}\)|\w+ (?:<=|>=|!=|==|<|>|=) [\w.]+")


def wrap(text: str, width: int = _WIDTH) -> list[str]:
    text = _UNBREAKABLE.sub(lambda match: match.group(0).replace(" ", "\0"), text)
    return [line.replace("\0", " ") for line in wrap_paragraphs(text, width)]


def wrap_paragraphs(text: str, width: int = _WIDTH) -> list[str]:
    lines = []
    for paragraph in text.split("\n"):
        indent = "  " if paragraph.startswith("- ") else ""
        lines.extend(
            textwrap.wrap(
                paragraph, width=width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False
            )
            or [""]
        )
    return lines


def is_blank(answer) -> bool:
    """Whether the learner's answer is still the placeholder: None or ``...``."""
    return answer is None or answer is Ellipsis


def not_answered(what: str = "your function") -> Feedback:
    """The prompt of a checker cell whose answer is still a placeholder; ``what`` says what the cell checks."""
    return failure(NOT_ANSWERED, what=what)


def fail(mistake: str, reason: str, hint: str = "") -> Feedback:
    return Feedback(False, reason, hint, mistake)


def failure(mistake_id: str, also: str = "", **fields) -> Feedback:
    """A failing Feedback for ``mistake_id``, its reason and hint from the catalogue with ``fields`` filled in
    (``also``: a note the checker measured, appended to the reason)."""
    reason, hint = entry(mistake_id, **fields)
    return Feedback(False, reason + also, hint, mistake_id)
