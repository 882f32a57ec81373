"""What the tests of every notebook's prediction problems share (tests/exercises/test_predictions_NN.py): the verdict
of an answer, the old checker cells' table as rows, one instance refused by another(), a seed's numbers drawn twice,
variant 0 as the notebook's, and every variant's answer and named mistakes judged."""

from __future__ import annotations

import pytest

from attn_lib.exercises import another, check
from attn_lib.exercises._problem_book import PREDICTIONS

SEEDS = range(1, 51)
SHAPES = ("Q", "K", "V", "scores", "weights", "output")


def verdict(problem_id, answer, seed=0):
    """(passed, mistake id) of ``answer`` to variant ``seed``."""
    feedback = check(problem_id, answer, seed=seed)
    return feedback.passed, feedback.mistake


def judged_as_old(problem_id, answer, mistake):
    """``answer`` gets the verdict the old checker cell gave: passed when ``mistake`` is None, else that id."""
    assert verdict(problem_id, answer) == (mistake is None, mistake)


def rows(old: dict) -> list:
    """The (problem id, answer, mistake) rows of a table of old verdicts, for parametrize."""
    return [(problem_id, answer, mistake) for problem_id, table in old.items() for answer, mistake in table]


def one_instance(problem_id):
    """A problem without variants says why, and another() refuses it."""
    problem = PREDICTIONS[problem_id]
    assert not problem.has_variants and problem.why_one
    with pytest.raises(ValueError, match="one meaningful instance"):
        another(problem_id)


def same_numbers_twice(problem_id, seeds=SEEDS, at_least=5):
    """A seed gives the same numbers (and statement) twice; the variants do differ. (A draw may be taken again: when
    its named mistakes collide, or when its answer is the notebook's own.)"""
    problem = PREDICTIONS[problem_id]
    for seed in seeds:
        assert problem.numbers(seed) == problem.numbers(seed)
        assert problem.variant(seed).text == problem.variant(seed).text
    assert len({repr(problem.numbers(seed)) for seed in seeds}) > at_least


def first_is_notebooks(problem_id, tex=()):
    """Variant 0 is the notebook's numbers, and its statement has every name filled in (``tex``: braces of TeX)."""
    problem = PREDICTIONS[problem_id]
    assert problem.numbers(0) == problem.first
    text = problem.variant(0).text.split("\n\nAnswer with a dict")[0]  # the answer's form, written for shapes
    for braces in tex:
        text = text.replace(braces, "")
    assert "{" not in text


def choices(right, labels="abcd"):
    """The old table of a choice: the right label (in two styles), every other label, a label that is none."""
    return ([(right, None), (right.upper() + ")", None), ("z", "not-an-option"), (None, "not-answered")]
            + [(label, f"chose-{label}") for label in labels if label != right])


def every_variant_names_each_mistake(pid, right_and_mistakes, seeds, at_least=5):
    """Each variant of ``seeds``: the right answer and named mistakes ``right_and_mistakes(pid, params)`` computes
    pass and get their own ids, the statement is filled in, and the seeds draw at least ``at_least`` variants."""
    problem = PREDICTIONS[pid]
    drawn = set()
    for seed in seeds:
        variant = problem.variant(seed)
        right, mistakes = right_and_mistakes(pid, variant.params)
        assert variant.check(right).passed, (pid, seed, variant.params)
        for value, mid in mistakes:
            feedback = variant.check(value)
            assert (feedback.passed, feedback.mistake) == (False, mid), (pid, seed, variant.params, value, mid)
        assert "{{" not in variant.text and "}}" not in variant.text, variant.text  # str.format filled it
        drawn.add(tuple(sorted(variant.params.items())))
    assert len(drawn) >= at_least, f"{pid}: {len(seeds)} seeds drew only {len(drawn)} different variants"


def close(a: float, b: float, rel: float) -> bool:
    return abs(a - b) <= rel * max(abs(a), abs(b))


def apart(right, earlier, later, rel):
    """The rows (value, id) of ``later`` a variant names with their own id: those more than ``rel`` from the answer and
    from every row of another id before them (one that meets an earlier row is named by it, and the variant's numbers
    stay), and the rows left out."""
    kept, left_out = list(earlier), []
    for value, mistake in later:
        if close(value, right, rel) or any(close(value, v, rel) for v, m in kept if m != mistake):
            left_out.append((value, mistake))
        else:
            kept.append((value, mistake))
    return kept[len(earlier):], left_out
