"""The course's prompts as an Anki deck (``python -m attn_lib.review --anki FILE``), written with genanki.

Its deck id, note type id and every note's guid derive from fixed names and the prompt ids, so a deck written again
(after prompts are reworded) updates the notes a learner imported instead of adding copies. Formulas are in
Anki's MathJax form, ``\\(...\\)`` inline and ``\\[...\\]`` displayed. genanki is imported only here.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from ._prompts import PROMPTS
from ._text import to_html

DECK_NAME = "Attention course (softmax(QK^T / sqrt(d_k)) V)"
MODEL_NAME = "Attention course prompt"
FIELDS = ("Question", "Answer", "Prompt id")
CSS = ".card { font-family: sans-serif; font-size: 20px; text-align: left; color: black; background: white; }\n" \
      ".nightMode .card { color: white; background: #1e1e1e; }\ncode { font-size: 90%; }\n"


def stable_id(name: str) -> int:
    """An Anki id for ``name``, the same on every run, in the range genanki asks for (2**30 to 2**31)."""
    return (1 << 30) + int(hashlib.sha256(name.encode("utf-8")).hexdigest()[:8], 16) % (1 << 30)


def note_guid(prompt_id: str) -> str:
    import genanki

    return genanki.guid_for("attn-course-prompt", prompt_id)


def deck(prompts=PROMPTS):
    try:
        import genanki
    except ImportError:
        raise SystemExit("The Anki export needs genanki: pip install genanki (it is in requirements-dev.txt)") from None
    model = genanki.Model(
        stable_id(MODEL_NAME), MODEL_NAME, fields=[{"name": name} for name in FIELDS],
        templates=[{"name": "Recall", "qfmt": "{{Question}}",
                    "afmt": "{{FrontSide}}<hr id=answer>{{Answer}}"}],
        css=CSS)
    built = genanki.Deck(stable_id(DECK_NAME), DECK_NAME,
                         description="Review prompts of the attention course, one idea each, answered from memory.")
    for prompt in prompts:
        built.add_note(genanki.Note(
            model=model, guid=note_guid(prompt.id),
            fields=[to_html(prompt.question, math="anki"), to_html(prompt.answer, math="anki"), prompt.id],
            tags=["attention-course", f"notebook-{prompt.notebook}"]))
    return built


def write_deck(path, prompts=PROMPTS) -> Path:
    """Write every prompt to the Anki package ``path`` (.apkg); returns the path."""
    import genanki

    path = Path(path)
    if path.suffix != ".apkg":
        raise ValueError(f"FILE must end in .apkg (Anki imports that); got {path}")
    path.parent.mkdir(parents=True, exist_ok=True)
    genanki.Package(deck(prompts)).write_to_file(str(path))
    return path
