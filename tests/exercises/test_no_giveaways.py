"""No wrong-answer reason or hint holds the number asked for (issue 17, "never the answer").

Every check_number / check_count / check_variance call that a prediction's judge makes (attn_lib's problem book:
the notebook's numbers and thirty variants of each problem) is recorded with its arguments; the checker is then driven with each listed mistake value, each of its built-in mistakes, a few numbers far
from any of them, and a string. Whatever it says to a wrong answer (reason and hint) must not contain the expected
value in any rendering a learner could read: 1,000,000 / 1000000 / 1e6 / 1_000_000 / 0.25 / 1/4 / "two", or the
value rounded to two or more significant digits (6.7e9). Every offending (problem, seed, text) is reported at once.
"""

from __future__ import annotations

import ast
import contextlib
import io
import math
import re
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from attn_lib.exercises import check_count, check_number, check_variance
from attn_lib.exercises._answers import CALLS as RECORDED
from attn_lib.exercises._answers import COUNT_EXAMPLES, NUMBER_EXAMPLES
from attn_lib.exercises._problem_book import PREDICTIONS
from attn_lib.exercises._check_count import _count_candidates

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import problems  # noqa: E402  (tools/problems.py)

NOTEBOOKS = [f"{stem}.ipynb" for stem in problems.numbered_notebooks()]
NOTEBOOKS += [f"solutions/{stem}-solutions.ipynb" for stem in problems.numbered_notebooks()
              if (problems.NOTEBOOKS / "solutions" / f"{stem}-solutions.ipynb").exists()]
CHECKERS = ("check_number", "check_count", "check_variance")
WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten",
         11: "eleven", 12: "twelve", 16: "sixteen", 20: "twenty", 0.5: "half", 0.25: "quarter"}

_NUM = r"(?:\d{1,3}(?:,\d{3})+|\d[\d_]*)(?:\.\d+)?(?:[eE][-+]?\d+)?"
# A number, or a fraction / power of two numbers; not part of a name (float32, W_1) nor a fraction with a letter (1/m).
TOKEN = re.compile(rf"(?<![\w.^/])({_NUM})(?:\s*([/^])\s*({_NUM}))?(?![\w.]*[A-Za-z_(])(?!\s*/\s*[A-Za-z(])")


def _value(text: str) -> float:
    return float(text.replace(",", "").replace("_", ""))


def _significant(text: str) -> int | None:
    """Significant digits of a decimal or exponent token; None for a plain integer (compared exactly)."""
    mantissa = re.split(r"[eE]", text.replace(",", "").replace("_", ""))[0]
    if "." not in mantissa and not re.search(r"[eE]", text):
        return None
    return len(mantissa.replace(".", "").lstrip("0")) or 1


def renders(token: str, expected: float) -> bool:
    """Whether ``token`` (a number as written in a text) is a rendering of ``expected``."""
    match = TOKEN.fullmatch(token)
    first, op, second = match.groups()
    if op:
        value = _value(first) / _value(second) if op == "/" else _value(first) ** _value(second)
        return math.isclose(value, abs(expected), rel_tol=1e-9)
    value = _value(first)
    if math.isclose(value, abs(expected), rel_tol=1e-9, abs_tol=0.0):
        return True
    digits = _significant(first)
    return digits is not None and digits >= 2 and value == float(f"{abs(expected):.{digits - 1}e}")


def giveaways(text: str, expected: float) -> list[str]:
    """The renderings of ``expected`` in ``text``."""
    if not math.isfinite(expected) or expected == 0:
        return []
    found = [m.group(0) for m in TOKEN.finditer(text) if renders(m.group(0), expected)]
    word = WORDS.get(abs(expected)) if float(expected).is_integer() or abs(expected) in (0.5, 0.25) else None
    if word and re.search(rf"\b{word}\b", text, re.IGNORECASE):
        found.append(word)
    return found


# ------------------------------------------------------------------------------------ the calls the judges make


SEEDS = (0, *range(1, 31))  # the notebook's numbers and thirty variants of each problem that has them


def checker_calls():
    """(problem and seed, problem title, checker name, positional args, keyword args) for every check_number,
    check_count and check_variance call a prediction's judge makes, on the notebook's numbers and on variants."""
    found = []
    for pid, prediction in sorted(PREDICTIONS.items()):
        for seed in SEEDS if prediction.has_variants else (0,):
            token = RECORDED.set([])
            try:
                prediction.variant(seed).check(None)
                calls = RECORDED.get()
            finally:
                RECORDED.reset(token)
            found += [(f"{pid} seed {seed}", prediction.title, name, list(args), kwargs)
                      for name, args, kwargs in calls if name in CHECKERS]
    return found


CALLS = checker_calls()


# ------------------------------------------------------------------------------------ driving each checker


def _far(expected: float) -> list:
    return [expected * 1.37, expected * 0.61, expected * 13, -expected, "a string"]


def _drive(name: str, args: list, kwargs: dict, built_in_only: bool = False):
    """(expected value, [(answer, feedback), ...]) for the wrong answers tried on one call; ``built_in_only``:
    only the answers whose reason is the library's own (not a notebook's ``mistakes``)."""
    own = [] if built_in_only else [m[0] for m in kwargs.get("mistakes", ())]
    if name == "check_number":
        expected = float(args[1] if len(args) > 1 else kwargs["expected"])
        tried = own + _far(expected)
        return expected, [(a, check_number(a, *args[1:], **kwargs)) for a in tried]
    if name == "check_count":
        quantity, sizes = args[0], dict(zip(("n", "m", "d_k", "d_v", "heads", "layers", "d_model"), args[2:]))
        sizes.update({k: v for k, v in kwargs.items() if k != "mistakes"})
        full = dict(dict(m=None, d_k=64, d_v=None, heads=1, layers=1, d_model=None), **sizes)
        full["m"] = full["n"] if full["m"] is None else full["m"]
        full["d_v"] = full["d_k"] if full["d_v"] is None else full["d_v"]
        expected, built_in = _count_candidates(quantity, *(full[k] for k in ("n", "m", "d_k", "d_v", "heads",
                                                                             "layers", "d_model")))
        tried = [c[1] for c in built_in] + own + _far(expected)
        return float(expected), [(a, check_count(quantity, a, *args[2:], **kwargs)) for a in tried]
    d_k = args[1] if len(args) > 1 else kwargs["d_k"]
    scaled = args[2] if len(args) > 2 else kwargs["scaled"]
    expected = 1.0 if scaled else float(d_k)
    tried = [0.0, 1.0, np.sqrt(d_k), 1 / np.sqrt(d_k), 1 / d_k, float(d_k), float(d_k) ** 2] + _far(expected)
    return expected, [(a, check_variance(a, d_k=d_k, scaled=scaled)) for a in tried]


def test_the_judges_have_checker_calls_to_read():
    assert len({label.split()[0] for label, *_ in CALLS}) >= 6, len(CALLS)


# A reason that places the learner's number against the answer ("twice the answer", "the answer in megabytes") is
# one step from it, whatever numbers it holds.
RELATIVE_TO_ANSWER = re.compile(r"\b(twice|half|double|times|of) the answer\b|\bthe answer (in|times|divided|over)\b",
                                re.IGNORECASE)


def _offending(built_in_only: bool) -> list[str]:
    offending = []
    for rel, heading, name, args, kwargs in CALLS:
        expected, tried = _drive(name, args, kwargs, built_in_only)
        seen = set()
        for answer, feedback in tried:
            if feedback.passed or (built_in_only and any(feedback.mistake == m[1] for m in kwargs.get("mistakes", ()))):
                continue
            parts = [("reason", feedback.reason)]
            if not (built_in_only and name == "check_number"):  # check_number's hint is the notebook's
                parts.append(("hint", feedback.hint))
            for part, text in parts:
                found = giveaways(text, expected) + [m.group(0) for m in RELATIVE_TO_ANSWER.finditer(text)][:1]
                if found and (part, text) not in seen:
                    seen.add((part, text))
                    offending.append(f"{rel} | {heading} | {feedback.mistake} {part} shows {found} "
                                     f"(expected {expected:g}): {' '.join(text.split())}")
    return offending


def test_no_built_in_reason_or_hint_holds_the_expected_value():
    """The library's own words (check_count's and check_variance's mistakes, how far a number is, not a number) on
    every call of the notebooks."""
    offending = _offending(built_in_only=True)
    assert not offending, f"{len(offending)} built-in texts hold the answer:\n" + "\n".join(offending)


def test_no_wrong_answer_reason_or_hint_holds_the_expected_value():
    """The notebooks' own reasons too (their ``mistakes`` and hints): all offenders at once."""
    offending = _offending(built_in_only=False)
    assert not offending, f"{len(offending)} wrong-answer texts hold the answer:\n" + "\n".join(offending)


def test_the_not_a_number_examples_are_no_problems_answer():
    # Issue 17: check_count said "like 64_000_000 or 6.4e7" (02 P3's answer), check_number "like 64 or 0.25"
    # (03 P3's answer).
    expected = {_drive(name, args, kwargs)[0] for _, _, name, args, kwargs in CALLS}
    for examples in (NUMBER_EXAMPLES, COUNT_EXAMPLES):
        assert not [e for e in expected if giveaways(examples, e)], examples
    assert NUMBER_EXAMPLES in check_number("x", 0.25).reason
    assert COUNT_EXAMPLES in check_count("scores", "x", n=1000).reason


@pytest.mark.parametrize("token, expected, rendered", [
    ("1,000,000", 1e6, True), ("1000000", 1e6, True), ("1e6", 1e6, True), ("1_000_000", 1e6, True),
    ("0.25", 0.25, True), ("1/4", 0.25, True), ("6.7e9", np.exp(np.sqrt(512)), True), ("0.17", 1 / 6, True),
    ("0.3", 0.25, False), ("805", 805_306_368, False), ("64", 0.25, False), ("0.2", 1 / 6, False),
    ("2^20", 2**20, True),
])
def test_renderings_of_a_number(token, expected, rendered):
    assert renders(token, expected) is rendered


def test_giveaways_skip_names_and_fractions_with_letters():
    assert giveaways("float32 and W_1 and 1/m", 32) == [] and giveaways("the first two keys", 2) == ["two"]
    assert giveaways("(6, 4) x (4, 4)", 4) == ["4", "4", "4"] and giveaways("d_k = 64 wide", 64) == ["64"]


@pytest.mark.parametrize("text, relative", [
    ("1,610,612,736 is twice the answer: float64 takes 8 bytes", True),
    ("805 is the answer in megabytes", True),
    ("That counts every head; the problem asks for one", False),
])
def test_a_reason_that_places_the_number_against_the_answer_is_caught(text, relative):
    assert bool(RELATIVE_TO_ANSWER.search(text)) is relative
