"""A prompt's short markdown as HTML: code spans, bold, italics and paragraphs, its TeX kept for MathJax, either
as ``$...$`` (JupyterLab's HTMLMath widgets) or in Anki's ``\\(...\\)`` / ``\\[...\\]`` form."""

from __future__ import annotations

import html
import re

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
