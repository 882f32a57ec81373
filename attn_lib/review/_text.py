"""How the review puts things in words: a prompt's short markdown as HTML (code spans, bold, italics and
paragraphs, its TeX kept for MathJax, either as ``$...$`` for JupyterLab's HTMLMath widgets or in Anki's
``\\(...\\)`` / ``\\[...\\]`` form), or as plain text (formulas written out in Unicode, for a widget's plain-text
form: printed outputs carry no TeX); and when something is due: "now", "in 10 minutes", "tomorrow", "in 5 days
(Sun 6 Dec)".
"""

from __future__ import annotations

import html
import re
from datetime import datetime

# Display math, inline math, or a code span: the pieces that markdown rules must not touch.
_PIECE = re.compile(r"\$\$(.+?)\$\$|(?<![\\$])\$(?!\s)(.+?)(?<![\s\\])\$|`([^`]+)`", re.DOTALL)
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ITALIC = re.compile(r"(?<![\w*])[*_](?![\s*_])(.+?)(?<![\s*_])[*_](?![\w*])")


def to_html(markdown: str, math: str = "dollars") -> str:
    """``markdown`` as HTML; ``math`` "dollars" keeps ``$x$`` and ``$$x$$``, "anki" writes ``\\(x\\)`` and
    ``\\[x\\]``. TeX is HTML-escaped (MathJax reads the text the browser decodes)."""
    if math not in ("dollars", "anki"):
        raise ValueError(f"math must be 'dollars' or 'anki'; got {math!r}")
    out, start = [], 0
    for found in _PIECE.finditer(markdown):
        out.append(_prose(markdown[start:found.start()]))
        display, inline, code = found.groups()
        if code is not None:
            out.append(f"<code>{html.escape(code)}</code>")
        elif display is not None:
            tex = html.escape(display)
            out.append(f"$${tex}$$" if math == "dollars" else f"\\[{tex}\\]")
        else:
            tex = html.escape(inline)
            out.append(f"${tex}$" if math == "dollars" else f"\\({tex}\\)")
        start = found.end()
    out.append(_prose(markdown[start:]))
    return "".join(out).strip().replace("\n\n", "<br><br>").replace("\n", " ")


def _prose(text: str) -> str:
    text = html.escape(text)
    text = _BOLD.sub(r"<b>\1</b>", text)
    return _ITALIC.sub(r"<i>\1</i>", text)


# TeX the prompts use, as plain text; whatever other command is left loses its backslash.
_TEX_WORDS = (("^\\top", "ᵀ"), ("\\times", "×"), ("\\cdot", "·"), ("\\neq", "≠"), ("\\le", "≤"), ("\\ge", "≥"),
              ("\\approx", "≈"), ("\\infty", "∞"), ("\\sum", "Σ"), ("\\in", "∈"), ("\\to", "→"), ("\\ldots", "…"),
              ("\\dots", "…"), ("\\,", " "), ("\\;", " "), ("\\!", ""), ("\\{", "{"), ("\\}", "}"))
_FRAC = re.compile(r"\\frac\{([^{}]*)\}\{([^{}]*)\}")
_SQRT = re.compile(r"\\sqrt\{([^{}]*)\}")
_GROUP = re.compile(r"(?<![a-z}])\{([^{}]*)\}")  # a group that is no command's argument
_WRAPPERS = re.compile(r"\\(?:text|operatorname|mathrm|mathbf|mathit|mathbb|left|right)\b")


def to_plain(markdown: str) -> str:
    """``markdown`` as plain text: code marks and emphasis dropped, each formula in Unicode (``$\\sqrt{d_k}$`` ->
    ``√d_k``, ``$QK^\\top$`` -> ``QKᵀ``, ``$\\frac{a}{b}$`` -> ``a/b``)."""
    out, start = [], 0
    for found in _PIECE.finditer(markdown):
        out.append(_BOLD.sub(r"\1", markdown[start:found.start()]))
        display, inline, code = found.groups()
        out.append(code if code is not None else _tex_words(display if display is not None else inline))
        start = found.end()
    out.append(_BOLD.sub(r"\1", markdown[start:]))
    return "".join(out)


def _grouped(text: str) -> str:
    return text if re.fullmatch(r"[\w.^ᵀ√]+", text) else f"({text})"


def _tex_words(tex: str) -> str:
    for command, text in _TEX_WORDS:
        tex = re.sub(re.escape(command) + (r"(?![a-zA-Z])" if command[-1].isalpha() else ""), text, tex)
    tex = _WRAPPERS.sub("", tex)
    while True:  # innermost braces first: d_{model} -> d_model, \sqrt{x} -> √x, \frac{a}{b} -> a/b
        before = tex
        tex = _SQRT.sub(lambda m: f"√{_grouped(m.group(1))}", tex)
        tex = _FRAC.sub(lambda m: f"{_grouped(m.group(1))}/{_grouped(m.group(2))}", tex)
        tex = _GROUP.sub(r"\1", tex)
        if tex == before:
            break
    tex = re.sub(r"\\([a-zA-Z]+)", r"\1", tex).replace("{", "").replace("}", "")
    return re.sub(r"\s+", " ", tex).strip()


# ---------------------------------------------------------------------------------------------------------------
# When something is due, and counts.


def when(due: datetime, now: datetime) -> str:
    seconds = (due - now).total_seconds()
    if seconds <= 0:
        return "now"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"in {max(minutes, 1)} minute{'s' * (max(minutes, 1) != 1)}"
    hours = round(seconds / 3600)
    if hours < 20:
        return f"in {hours} hour{'s' * (hours != 1)}"
    days = (due.date() - now.date()).days
    date = f"{due:%a} {due.day} {due:%b %Y}"
    return "tomorrow" if days <= 1 else f"in {days} days ({date})"


def after(due: datetime, now: datetime) -> str:
    """How long from ``now`` until ``due``, shortly, for a button: "1 min", "10 min", "5 h", "1 day", "4 days"."""
    seconds = max((due - now).total_seconds(), 0)
    if seconds < 3600:
        return f"{max(round(seconds / 60), 1)} min"
    if seconds < 20 * 3600:
        return f"{round(seconds / 3600)} h"
    days = max((due.date() - now.date()).days, 1)
    return f"{days} day{'s' * (days != 1)}"


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' * (count != 1)}"
