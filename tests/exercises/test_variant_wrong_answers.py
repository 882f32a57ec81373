"""A set of wrong answers to fresh variants written from the statements alone, by a writer who did not read or run
the checkers (data/variant_wrong_answers.json: 770 answers to the 34 problems with variants, seeds 70000-79999, each
with the slip its writer made and the right answer as the writer worked it out). None may pass; every verdict
carries a reason; a copy of the notebook's own answer is named as one; no reason or hint states the answer (unless
the statement itself shows that number).

The share of these answers whose mistake is named (not only "how far off"):
python -c "import tests.exercises.test_variant_wrong_answers as t; t.report()"
"""

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from attn_lib.exercises._prediction import UNNAMED
from attn_lib.exercises._problem_book import PREDICTIONS

DATA = json.loads((Path(__file__).parent / "data" / "variant_wrong_answers.json").read_text(encoding="utf-8"))
ANSWERS = DATA["answers"]
BY_PROBLEM = sorted({a["problem"] for a in ANSWERS})


def verdict(entry):
    answer = entry["answer"]
    if isinstance(answer, dict):  # shapes, as JSON writes tuples
        answer = {name: tuple(shape) for name, shape in answer.items()}
    return PREDICTIONS[entry["problem"]].variant(entry["seed"]).check(answer)


def test_the_set_covers_every_problem_with_variants():
    assert len(ANSWERS) >= 600
    assert BY_PROBLEM == sorted(pid for pid, p in PREDICTIONS.items() if p.has_variants)


@pytest.mark.parametrize("problem", BY_PROBLEM)
def test_no_wrong_answer_passes_and_each_gets_a_reason(problem):
    for entry in (a for a in ANSWERS if a["problem"] == problem):
        feedback = verdict(entry)
        assert not feedback.passed, entry
        assert feedback.mistake and len(feedback.reason) > 20, entry


def _number_words(value) -> set:
    """How a reason could write the number ``value``: 1234567, 1,234,567, 1_234_567, 1.23457e+06."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return set()
    words = {f"{value:.6g}"}
    if float(value).is_integer():
        words |= {str(int(value)), f"{int(value):,}", f"{int(value):_}"}
    return words


@pytest.mark.parametrize("problem", BY_PROBLEM)
def test_no_reason_or_hint_states_the_answer(problem):
    for entry in (a for a in ANSWERS if a["problem"] == problem):
        variant = PREDICTIONS[problem].variant(entry["seed"])
        right = variant.problem.expected(variant.params)[0]
        feedback = verdict(entry)
        said = f"{feedback.reason} {feedback.hint}"
        shown = set(re.findall(r"[\d][\d,_.]*", variant.text))  # the statement's own numbers are no giveaway
        for word in _number_words(right) - _number_words(entry["answer"]) - shown - {"0", "1", "2"}:
            assert not re.search(rf"(?<![\d.,_]){re.escape(word)}(?![\d_]|[.,]\d)", said), (entry, word, said)


def test_a_copy_of_the_notebooks_answer_is_named_as_a_copy():
    copies = [a for a in ANSWERS if a["slip"].startswith("copied the notebook's answer")
              or a["slip"].startswith("copied the notebook's") and "example" not in a["slip"]]
    assert len(copies) >= 60
    named = Counter(verdict(a).mistake for a in copies)
    assert not set(named) & set(UNNAMED), named


def report():
    """Print the share of the set named, per problem and in all."""
    named = Counter()
    for entry in ANSWERS:
        named[entry["problem"], verdict(entry).mistake not in UNNAMED] += 1
    for problem in BY_PROBLEM:
        print(f"{problem}: {named[problem, True]} of {named[problem, True] + named[problem, False]} named")
    total = sum(named[p, True] for p in BY_PROBLEM)
    print(f"all: {total} of {len(ANSWERS)} named ({total / len(ANSWERS):.1%})")
