"""Notebook 08's own promises, checked on its stored learner and solutions notebooks (no kernel is started).

- No cell prints a bare verdict ("...: True", "(between 2.5 and 6: False)"): a check is said as numbers in a
  sentence, with its bound inside it (issue 17).
- Every problem's heading carries exactly one kind tag, and at least 60 % of the problems ask for transfer.
- No wrong-answer reason or hint of a `check_number` problem holds the number asked for, or says how the learner's
  number relates to "the answer" (twice the answer, the answer in megabytes).
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import problems  # noqa: E402  (tools/problems.py)

NOTEBOOKS = {
    "learner": ROOT / "notebooks" / "08-cost-memory-backward.ipynb",
    "solutions": ROOT / "notebooks" / "solutions" / "08-cost-memory-backward-solutions.ipynb",
}
KINDS = {"problem-transfer", "problem-computation", "problem-recall"}
BARE_VERDICT = re.compile(r"(:\s*|\()(True|False)\)?\s*$|\[(True|False)(, (True|False))*\]")


def load(which):
    return nbformat.read(NOTEBOOKS[which], as_version=4)


def printed_lines(cell):
    text = "".join(o.get("text", "") or o.get("data", {}).get("text/plain", "") for o in cell.get("outputs", []))
    return text.splitlines()


@pytest.mark.parametrize("which", NOTEBOOKS)
def test_no_cell_prints_a_bare_true_or_false(which):
    found = [line for cell in load(which).cells if cell.cell_type == "code" for line in printed_lines(cell)
             if BARE_VERDICT.search(line)]
    assert not found, f"08 ({which}) prints verdicts without their numbers: {found}"


def test_the_bare_verdict_pattern_catches_what_issue_17_found():
    assert BARE_VERDICT.search("n  128 ->  256: time 0.3 ms -> 0.7 ms, x2.7  (between 2.5 and 6: False)")
    assert BARE_VERDICT.search("max abs difference below 1e-12: True")
    assert BARE_VERDICT.search("same as attention_backward: [True, True, True]")
    assert not BARE_VERDICT.search("at n = 1024 the chunked peak is 18 % of the full one, below a quarter")


@pytest.mark.parametrize("which", NOTEBOOKS)
def test_every_problem_heading_carries_one_kind_and_most_ask_for_transfer(which):
    nb = load(which)
    kinds = []
    for problem in problems.problems(nb, which):
        tags = KINDS & set(nb.cells[problem.index].metadata.get("tags", []))
        assert len(tags) == 1, f"{problem.heading!r} carries {sorted(tags)}; it needs exactly one of {sorted(KINDS)}"
        kinds.append(tags.pop())
    assert kinds.count("problem-transfer") >= 0.6 * len(kinds), kinds
    assert kinds.count("problem-recall") <= 1, kinds


def number_problems(nb):
    """(expected, [reason or hint texts of wrong answers]) for every check_number call of ``nb``."""
    found = []
    for cell in nb.cells:
        if cell.cell_type != "code" or "check_number(" not in cell.source:
            continue
        for node in ast.walk(ast.parse(problems.python_source(cell.source))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "check_number":
                expected = eval(compile(ast.Expression(node.args[1]), "<expected>", "eval"), {"__builtins__": {}})
                keywords = {k.arg: k.value for k in node.keywords}
                texts = [ast.literal_eval(keywords["hint"])] if "hint" in keywords else []
                for mistake in keywords.get("mistakes", ast.List(elts=[])).elts:
                    texts += [ast.literal_eval(part) for part in mistake.elts[2:]]
                found.append((expected, texts))
    return found


def spellings(number):
    """How a reason could write ``number``: 805306368, 805,306,368, 0.25."""
    if float(number).is_integer():
        return {f"{int(number)}", f"{int(number):,}"}
    return {f"{number:g}"}


@pytest.mark.parametrize("which", NOTEBOOKS)
def test_no_wrong_answer_reason_or_hint_holds_the_answer(which):
    checked = number_problems(load(which))
    assert len(checked) >= 5
    for expected, texts in checked:
        for text in texts:
            assert "the answer" not in text, (expected, text)
            if expected == 0:
                continue  # 0 is in every number; the reasons of that problem name no result at all
            for spelling in spellings(expected):
                assert not re.search(rf"(?<![\d.,]){re.escape(spelling)}(?![\d,]|\.\d)", text), (expected, text)
