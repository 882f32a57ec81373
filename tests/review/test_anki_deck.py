"""The Anki deck, read back from the .apkg genanki writes (a zip holding a SQLite collection): one note per prompt,
its guid from the prompt id (the same on a re-export, so Anki updates instead of duplicating), its formulas in
Anki's \\( \\) form, and the deck and note type ids stable."""

import json
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from attn_lib.review import PROMPTS
from attn_lib.review._anki import DECK_NAME, MODEL_NAME, note_guid, stable_id, write_deck
from attn_lib.review._text import to_html

ROOT = Path(__file__).resolve().parents[2]


def read_deck(path: Path, folder: Path) -> dict:
    with zipfile.ZipFile(path) as package:
        package.extract("collection.anki2", folder)
    connection = sqlite3.connect(folder / "collection.anki2")
    try:
        notes = connection.execute("select guid, mid, flds, tags from notes order by id").fetchall()
        decks, models = connection.execute("select decks, models from col").fetchone()
        cards = connection.execute("select count(*) from cards").fetchone()[0]
    finally:
        connection.close()
    return {"notes": notes, "decks": json.loads(decks), "models": json.loads(models), "cards": cards}


@pytest.fixture(scope="module")
def two_exports(tmp_path_factory):
    folder = tmp_path_factory.mktemp("anki")
    first = subprocess.run([sys.executable, "-m", "attn_lib.review", "--anki", str(folder / "first.apkg")],
                           capture_output=True, text=True, cwd=ROOT, env={**__import__("os").environ,
                                                                          "PYTHONPATH": str(ROOT)})
    assert first.returncode == 0, first.stderr
    assert f"wrote {len(PROMPTS)} prompts" in first.stdout
    write_deck(folder / "second.apkg")
    return (read_deck(folder / "first.apkg", folder / "a"), read_deck(folder / "second.apkg", folder / "b"))


def test_one_note_per_prompt_with_its_question_answer_and_id(two_exports):
    deck = two_exports[0]
    assert len(deck["notes"]) == len(PROMPTS) == deck["cards"]
    for (guid, _mid, fields, tags), prompt in zip(deck["notes"], PROMPTS):
        question, answer, prompt_id = fields.split("\x1f")
        assert prompt_id == prompt.id and guid == note_guid(prompt.id)
        assert question == to_html(prompt.question, math="anki") and answer == to_html(prompt.answer, math="anki")
        assert f"notebook-{prompt.notebook}" in tags.split()
        for text, source in ((question, prompt.question), (answer, prompt.answer)):
            assert "$" not in text  # every formula in Anki's MathJax form
            assert text.count("\\(") == text.count("\\)") == source.count("$") // 2 - source.count("$$")


def test_a_re_export_keeps_every_guid_and_the_deck_and_note_type_ids(two_exports):
    first, second = two_exports
    assert [n[0] for n in first["notes"]] == [n[0] for n in second["notes"]]
    assert len({n[0] for n in first["notes"]}) == len(PROMPTS)  # no two prompts share a note
    for deck in two_exports:
        assert str(stable_id(DECK_NAME)) in deck["decks"] and deck["decks"][str(stable_id(DECK_NAME))]["name"] == DECK_NAME
        assert str(stable_id(MODEL_NAME)) in deck["models"]
        assert {n[1] for n in deck["notes"]} == {stable_id(MODEL_NAME)}


def test_formulas_become_anki_mathjax_and_html_is_escaped():
    assert to_html("Shape of $QK^\\top$ when $n < m$?", math="anki") == "Shape of \\(QK^\\top\\) when \\(n &lt; m\\)?"
    assert to_html("$$\\frac{a}{b}$$ and `x < y` and **bold**", math="anki") == (
        "\\[\\frac{a}{b}\\] and <code>x &lt; y</code> and <b>bold</b>")
    assert to_html("costs $5 and $6", math="dollars") == "costs $5 and $6"  # "$5 and $" is no formula: no space rule
    with pytest.raises(ValueError, match="math must be"):
        to_html("x", math="latex")


def test_the_deck_file_must_be_an_apkg(tmp_path):
    with pytest.raises(ValueError, match="FILE must end in .apkg"):
        write_deck(tmp_path / "deck.zip")
