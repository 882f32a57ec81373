"""Sets of wrong answers to fresh variants written from the statements alone, by writers who did not read or run
the checkers (data/variant_wrong_answers.json: 770 answers to the 34 problems with variants, seeds 70000-79999,
committed before the catalogue was extended for them; data/variant_wrong_answers_2.json: 384 answers, seeds
80000-89999, written after, and measured once before any change: 349 named, 90.9 %). Each answer comes with the slip
its writer made and the right answer as the writer worked it out. None may pass; every verdict carries a reason; a
copy of the notebook's own answer is named as one; no reason or hint states the answer, or a whole number either side
of a whole answer of 10 or more (unless the statement itself shows that number); at least 90 % of each set is named
(a mistake, not only "how far off").

The share of each set named, per problem:
python -c "import tests.exercises.test_variant_wrong_answers as t; t.report()"
"""

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from attn_lib.exercises._prediction import UNNAMED
from attn_lib.exercises._problem_book import PREDICTIONS

SETS = {name: json.loads((Path(__file__).parent / "data" / name).read_text(encoding="utf-8"))["answers"]
        for name in ("variant_wrong_answers.json", "variant_wrong_answers_2.json")}
ANSWERS = [entry for answers in SETS.values() for entry in answers]
BY_PROBLEM = sorted({a["problem"] for a in ANSWERS})
NAMED_AT_LEAST = 0.90


def verdict(entry):
    answer = entry["answer"]
    if isinstance(answer, dict):  # shapes, as JSON writes tuples
        answer = {name: tuple(shape) for name, shape in answer.items()}
    return PREDICTIONS[entry["problem"]].variant(entry["seed"]).check(answer)


@pytest.mark.parametrize("name", SETS)
def test_each_set_covers_every_problem_with_variants(name):
    assert len(SETS[name]) >= 300
    assert sorted({a["problem"] for a in SETS[name]}) == sorted(pid for pid, p in PREDICTIONS.items() if p.has_variants)


@pytest.mark.parametrize("name", SETS)
def test_at_least_nine_in_ten_of_each_set_are_named(name):
    named = sum(verdict(entry).mistake not in UNNAMED for entry in SETS[name])
    assert named >= NAMED_AT_LEAST * len(SETS[name]), f"{named} of {len(SETS[name])} named"


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


def _neighbours(right) -> set:
    """How a reason could write the integers either side of a whole answer of 10 or more (one step from it;
    below 10 such digits are everywhere in a sentence)."""
    if isinstance(right, bool) or not isinstance(right, (int, float)) or not float(right).is_integer():
        return set()
    return set() if abs(right) < 10 else _number_words(int(right) - 1) | _number_words(int(right) + 1)


@pytest.mark.parametrize("problem", BY_PROBLEM)
def test_no_reason_or_hint_states_the_answer_or_a_whole_number_either_side(problem):
    for entry in (a for a in ANSWERS if a["problem"] == problem):
        variant = PREDICTIONS[problem].variant(entry["seed"])
        right = variant.problem.expected(variant.params)[0]
        feedback = verdict(entry)
        said = f"{feedback.reason} {feedback.hint}"
        shown = set(re.findall(r"[\d][\d,_.]*", variant.text))  # the statement's own numbers are no giveaway
        words = _number_words(right) | _neighbours(right)
        for word in words - _number_words(entry["answer"]) - shown - {"0", "1", "2"}:
            assert not re.search(rf"(?<![\d.,_]){re.escape(word)}(?![\d_]|[.,]\d)", said), (entry, word, said)


def test_a_copy_of_the_notebooks_answer_is_named_as_a_copy():
    copies = [a for a in ANSWERS if a["slip"].startswith("copied the notebook's answer")
              or a["slip"].startswith("copied the notebook's") and "example" not in a["slip"]
              and not re.match(r"copied the notebook's \w+ = ", a["slip"])]  # one of its sizes, not its answer
    assert len(copies) >= 60
    named = Counter(verdict(a).mistake for a in copies)
    assert not set(named) & set(UNNAMED), named


def report():
    """Print the share of each set named, per problem and in all."""
    for name, answers in SETS.items():
        named = Counter()
        for entry in answers:
            named[entry["problem"], verdict(entry).mistake not in UNNAMED] += 1
        print(name)
        for problem in BY_PROBLEM:
            print(f"  {problem}: {named[problem, True]} of {named[problem, True] + named[problem, False]} named")
        total = sum(named[p, True] for p in BY_PROBLEM)
        print(f"  all: {total} of {len(answers)} named ({total / len(answers):.1%})")
