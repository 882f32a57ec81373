"""The review prompts (attn_lib/review/_prompts.py): their ids, their count per notebook, their TeX, and their form
as prompts (a question that does not hold its answer, short, and no number the notebook does not state)."""

from __future__ import annotations

import dataclasses
import re
import sys
from collections import Counter
from pathlib import Path

import nbformat
import pytest

from attn_lib.review._prompts import PROMPTS, Prompt

ROOT = Path(__file__).resolve().parent.parent.parent
NOTEBOOKS = ROOT / "notebooks"
sys.path.insert(0, str(ROOT / "tools"))
import build_html  # noqa: E402  (tools/build_html.py: the course's TeX renderer, latex2mathml)

COURSE = [f"{i:02d}" for i in range(11)]
ID = re.compile(r"^(\d\d)-R([1-9]\d*)$")
YES_NO = re.compile(r"^(is|are|does|do|did|can|could|should|would|will|has|have|was|were)\b", re.IGNORECASE)
NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?![\d,])|(?<![\w.,])\d{2,}(?:\.\d+)?(?![\w,])")
UNICODE_MATH = re.compile(r"[√×≠ᵀ≈≤≥−∞Σ∂⊙]")
BY_ID = {p.id: p for p in PROMPTS}


def notebook_path(number: str) -> Path:
    found = sorted(NOTEBOOKS.glob(f"{number}-*.ipynb"))
    assert len(found) == 1, f"expected one notebook notebooks/{number}-*.ipynb, found {[p.name for p in found]}"
    return found[0]


def first_clause(answer: str) -> str:
    """The answer up to its first ':', ';', ',' or ' (' outside code and formulas."""
    inside = None
    for i, char in enumerate(answer):
        if char in "`$":
            inside = None if inside == char else (inside or char)
        elif inside is None and (answer[i:i + 2] in (": ", "; ", ", ", " (")):
            return answer[:i]
    return answer


def giveaway(prompt: Prompt) -> str | None:
    """What of the answer the question already says: the whole answer, or its first clause (the part a learner
    must retrieve); None if neither is in the question. Compared without case, spacing or the final stop."""
    def norm(text):
        return " ".join(text.lower().split()).rstrip(".")
    question = norm(prompt.question)
    first = first_clause(prompt.answer)
    for part in (prompt.answer, first):
        if norm(part) and norm(part) in question:
            return part
    return None


def dollar_signs_outside_code(markdown: str) -> int:
    return build_html.CODE_SPAN.sub("", markdown).count("$")


# --- the ids and the count per notebook ---------------------------------------------------------------------------


def test_prompt_is_the_contracts_frozen_record():
    assert [f.name for f in dataclasses.fields(Prompt)] == ["id", "question", "answer"]
    prompt = PROMPTS[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        prompt.answer = "x"
    assert Prompt("07-R3", "q?", "a").notebook == "07"


def test_ids_are_unique_and_of_the_form_NN_RK():
    bad = [p.id for p in PROMPTS if not ID.match(p.id)]
    assert not bad, f"ids must read NN-RK (notebook NN, prompt K from 1): {bad}"
    twice = [i for i, n in Counter(p.id for p in PROMPTS).items() if n > 1]
    assert not twice, f"ids used twice: {twice}"


def test_the_prompts_are_listed_in_the_notebooks_reading_order():
    """Within a notebook, K need not follow the order: an id is stable forever, so a new prompt takes the next free
    K wherever it sits, and no K is reused (tests/test_ids_given.py holds every id given to its meaning)."""
    numbers = [p.notebook for p in PROMPTS]
    assert numbers == sorted(numbers), f"PROMPTS must be in notebook order: {numbers}"


@pytest.mark.parametrize("number", COURSE)
def test_every_notebook_has_three_to_six_prompts(number):
    count = sum(p.notebook == number for p in PROMPTS)
    assert 3 <= count <= 6, f"notebook {number} has {count} prompts; the course asks for three to six"


def test_every_prompt_belongs_to_a_notebook_that_exists():
    for number in sorted({p.notebook for p in PROMPTS}):
        notebook_path(number)
    assert sorted({p.notebook for p in PROMPTS}) == COURSE


# --- the TeX ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("prompt", PROMPTS, ids=lambda p: p.id)
def test_tex_is_balanced_and_renders_with_the_courses_renderer(prompt):
    for part in (prompt.question, prompt.answer):
        found = build_html.formulas(part)
        assert dollar_signs_outside_code(part) == 2 * len(found), f"{prompt.id}: an unpaired $ in {part!r}"
        for tex in found:
            depth = 0
            for char in tex:
                depth += {"{": 1, "}": -1}.get(char, 0)
                assert depth >= 0, f"{prompt.id}: a }} closes nothing in ${tex}$"
            assert depth == 0, f"{prompt.id}: an unclosed {{ in ${tex}$"
            assert "<math" in build_html.mathml(tex)
        page = build_html.markdown_to_html(part)
        assert page.count("<math") == len(found), f"{prompt.id}: {len(found)} formulas, but the page shows " \
                                                  f"{page.count('<math')}: {part!r}"
        assert not UNICODE_MATH.search(build_html.FORMULA.sub("", part)), (
            f"{prompt.id}: mathematics outside $...$ (write it in TeX, as the notebooks do): {part!r}")


def test_the_tex_check_catches_an_unpaired_dollar():
    part = "the width $d_k and $n$"
    assert dollar_signs_outside_code(part) != 2 * len(build_html.formulas(part))
    code = "`a $ in code` and $d_k$"
    assert dollar_signs_outside_code(code) == 2 * len(build_html.formulas(code))


# --- the form of a prompt -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("prompt", PROMPTS, ids=lambda p: p.id)
def test_a_prompt_is_an_open_question_that_does_not_hold_its_answer(prompt):
    assert prompt.question.rstrip().endswith("?"), f"{prompt.id}: the question should end with '?'"
    assert not YES_NO.match(prompt.question), f"{prompt.id}: a yes/no question: {prompt.question!r}"
    found = giveaway(prompt)
    assert found is None, f"{prompt.id}: the question already holds the answer {found!r}"


def test_the_giveaway_check_catches_a_question_that_holds_its_answer():
    assert first_clause("`(batch, 1, m)`: it blocks, then $a, b$.") == "`(batch, 1, m)`"
    assert giveaway(Prompt("00-R9", "Why is the softmax row-wise?", "Row-wise: each query on its own.")) == "Row-wise"
    assert giveaway(Prompt("00-R9", "What does $QK^\\top$ hold?", "$QK^\\top$.")) == "$QK^\\top$."
    assert giveaway(Prompt("00-R9", "What holds the scores?", "$QK^\\top$: one per pair.")) is None


@pytest.mark.parametrize("prompt", PROMPTS, ids=lambda p: p.id)
def test_a_prompt_is_short_enough_to_answer_in_seconds(prompt):
    # Quantum Country's median review took about 6 seconds: a question read at a glance, an answer of one clause
    # or two. Bounds in words (a formula counts as its words).
    assert len(prompt.question.split()) <= 35, f"{prompt.id}: a question of {len(prompt.question.split())} words"
    assert len(prompt.answer.split()) <= 30, f"{prompt.id}: an answer of {len(prompt.answer.split())} words"
    for part in (prompt.question, prompt.answer):
        assert part == part.strip() and "  " not in part and "\n" not in part, f"{prompt.id}: stray spacing {part!r}"


@pytest.mark.parametrize("prompt", PROMPTS, ids=lambda p: p.id)
def test_every_number_an_answer_states_is_stated_in_its_notebook(prompt):
    # A prompt's facts are the notebook's: a number of two digits or more in the answer is in the notebook's
    # markdown or in a stored output (with or without its thousands separators).
    nb = nbformat.read(notebook_path(prompt.notebook), as_version=4)
    text = "\n".join(cell.source for cell in nb.cells)
    text += "\n".join(out.get("text", "") + str(out.get("data", {}).get("text/plain", ""))
                      for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", []))
    plain = text.replace(",", "").replace("{}", "")
    missing = [n for n in NUMBER.findall(build_html.CODE_SPAN.sub("", prompt.answer))
               if n.replace(",", "") not in plain]
    assert not missing, f"{prompt.id}: the notebook does not state {missing}"


def test_the_number_pattern_reads_thousands_and_skips_single_digits_and_names():
    assert NUMBER.findall("$512 \\times 64$ (32,768 weights), 64,000,000 at $n = 1000$, 1e-5, d_k = 8, W_q") == [
        "512", "64", "32,768", "64,000,000", "1000"]


# The prompts each notebook had when the ids were first given. An id is never withdrawn or given to another idea (the
# learner's record and the Anki notes are keyed by it): a prompt may be reworded, and new ones take the next K.
FIRST_GIVEN = {"00": 4, "01": 5, "02": 5, "03": 5, "04": 5, "05": 5, "06": 6, "07": 6, "08": 6, "09": 4, "10": 5}


def test_no_id_once_given_is_withdrawn():
    gone = [f"{nb}-R{k}" for nb, count in FIRST_GIVEN.items() for k in range(1, count + 1)
            if f"{nb}-R{k}" not in BY_ID]
    assert not gone, f"ids withdrawn (keep them, reworded, or the learners' records lose them): {gone}"
