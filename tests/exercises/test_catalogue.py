"""The catalogue of mistakes (attn_lib/exercises/_data/_mistakes.py, read through _catalogue.py): every id a
checker gives is in it, once, with its words; no checker writes its own; every entry is used; an unknown id is
refused; every template is filled.

What the tests of this folder produce is held too: conftest.py records every Feedback they make, and refuses an
unfilled template field or an id that is neither in the catalogue nor a problem's own."""

import ast
import functools
import re
import string
import sys
from pathlib import Path

import pytest

import attn_lib.exercises as exercises
from attn_lib.exercises._answers import CALLS
from attn_lib.exercises._catalogue import CATALOGUE, entry
from attn_lib.exercises._entry import IDEAS, Entry
from attn_lib.exercises._feedback import failure
from attn_lib.exercises._judge import EVERY_FUNCTION_CHECKER
from attn_lib.exercises._problem_book import PREDICTIONS
from attn_lib.exercises._types import Bad, Mistake
from conftest import UNFILLED

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import mistake_table  # noqa: E402  (tools/mistake_table.py)

PACKAGE = Path(exercises.__file__).parent
MODULES = {path.relative_to(PACKAGE).with_suffix("").as_posix(): ast.parse(path.read_text(encoding="utf-8"))
           for path in sorted(PACKAGE.rglob("*.py"))}  # the logic and its data (_data/)
GIVERS = ("Mistake", "fail", "failure", "Bad", "entry")  # the calls whose first argument is a mistake id


def _calls(names=GIVERS):
    for module, tree in MODULES.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in names and node.args:
                yield module, node


def _literal(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def test_every_id_written_in_the_package_is_in_the_catalogue():
    written = {(module, _literal(node.args[0])) for module, node in _calls() if _literal(node.args[0])}
    unknown = sorted((module, i) for module, i in written if i not in CATALOGUE)
    assert not unknown, f"ids not in _data/_mistakes.py's CATALOGUE: {unknown}"


def test_every_declared_id_is_in_the_catalogue():
    declared = {i for ids in mistake_table.rows().values() for i in ids} | set(EVERY_FUNCTION_CHECKER)
    unknown = sorted(i for i in declared if i not in mistake_table.PATTERNS
                     and mistake_table.catalogue_id(i) not in CATALOGUE)
    assert not unknown, f"ids a checker declares that are not in the catalogue: {unknown}"


def test_no_checker_writes_the_words_of_a_catalogue_id():
    """No Mistake(...) gets a reason or a hint (only variants, flags and template fields), and no fail(...) is
    given a catalogue id with words of its own: failure(id, **fields) takes them from the catalogue."""
    wrong = []
    for module, node in _calls(("Mistake",)):
        texts = [a for a in node.args[1:] if isinstance(a, (ast.Constant, ast.JoinedStr, ast.BinOp, ast.Name))]
        if texts or any(k.arg in ("reason", "hint") for k in node.keywords):
            wrong.append((module, node.lineno))
    for module, node in _calls(("fail",)):
        if _literal(node.args[0]) in CATALOGUE:
            wrong.append((module, node.lineno))
    for module, node in _calls(("Feedback",)):  # a failing verdict made by hand, outside fail and failure
        if module != "_feedback" and isinstance(node.args[0], ast.Constant) and node.args[0].value is False:
            wrong.append((module, node.lineno))
    assert not wrong, f"reasons written outside the catalogue at {wrong}"


def test_mistake_takes_no_reason():
    with pytest.raises(TypeError):
        Mistake("no-scaling", "my own reason", "my own hint", what="output", d_k="Q.shape[-1]")


def test_every_catalogue_entry_is_given_by_some_checker():
    given = {mistake_table.catalogue_id(i) for ids in mistake_table.rows().values() for i in ids}
    given |= set(EVERY_FUNCTION_CHECKER)
    dead = sorted(set(CATALOGUE) - given)
    assert not dead, f"catalogue entries no checker gives (delete them, or declare who gives them): {dead}"


def test_an_unknown_id_is_refused_with_where_to_add_it():
    for make in (lambda: entry("softmax-sideways"), lambda: failure("softmax-sideways"),
                 lambda: Mistake("softmax-sideways", (lambda x: x,)), lambda: Bad("softmax-sideways", {})):
        with pytest.raises(ValueError, match="softmax-sideways.*_data/_mistakes.py"):
            make()


def test_a_missing_or_misspelt_field_is_refused():
    with pytest.raises(ValueError, match="missing \\['d_k'\\]"):
        entry("no-scaling", what="output")
    with pytest.raises(ValueError, match="not used \\['d_kk'\\]"):
        entry("no-scaling", what="output", d_k="Q.shape[-1]", d_kk="x")


def test_an_entry_names_one_of_the_ideas():
    assert {e.idea for e in CATALOGUE.values()} <= IDEAS
    with pytest.raises(ValueError, match="idea"):
        Entry("a reason", "a hint", "vibes")


def test_every_template_is_filled_by_the_fields_it_names():
    """Each entry filled with its own field names as values: no brace is left, and each field shows."""
    for mistake_id, found in CATALOGUE.items():
        specs = {name: spec for text in (found.reason, found.hint)
                 for _, name, spec, _ in string.Formatter().parse(text) if name}
        fields = {name: 1234 if specs[name] else f"<{name}>" for name in found.fields}  # "{nm:,}" takes a number
        reason, hint = entry(mistake_id, **fields)
        for text in (reason, hint):
            assert not UNFILLED.search(text), (mistake_id, text)
        assert all(f"<{name}>" in reason + hint for name in fields if not specs[name]), mistake_id


def _catalogue_words(mistake_id: str, reason: str) -> bool:
    """Whether ``reason`` is the catalogue's reason for ``mistake_id`` with some fields filled in (a built-in
    checker, such as check_footnote4_variance, passes catalogue rows to check_number)."""
    if mistake_id not in CATALOGUE:
        return False
    parts = string.Formatter().parse(CATALOGUE[mistake_id].reason)
    pattern = "".join(re.escape(literal) + (".*?" if name else "") for literal, name, _, _ in parts)
    return re.fullmatch(pattern, reason, re.S) is not None


@functools.lru_cache(maxsize=1)  # a pure function of the problem book, asked by two tests and conftest.py
def _local_ids() -> dict[str, set]:
    """The ids prediction problems define in their own tables (mistakes= of check_number / check_count), by
    problem, recorded from the calls their judges make on forty variants, for a far answer and for one just below
    the right one (a table may list a mistake only on the variants where it stands apart, or only for answers near
    the right one)."""
    found = {}
    for problem_id, problem in PREDICTIONS.items():
        for seed in range(40 if problem.has_variants else 1):
            variant = problem.variant(seed)
            right = problem.expected(variant.params)[0]
            near = [right - 1e-3] if isinstance(right, (int, float)) and not isinstance(right, bool) else []
            calls = []
            token = CALLS.set(calls)
            try:
                for answer in (12345.678, *near):
                    variant.check(answer)
            finally:
                CALLS.reset(token)
            for _, _, kwargs in calls:
                for row in kwargs.get("mistakes") or ():
                    ids = [x for x in row if isinstance(x, str)]
                    if ids and not _catalogue_words(ids[0], ids[1] if len(ids) > 1 else ""):
                        found.setdefault(ids[0], set()).add(problem_id)
    return found


# A prediction problem's own id that equals a catalogue id names the same mistake, with the problem's numbers in
# its reason (the catalogue's idea in parentheses): the learner meets one meaning per id.
SAME_IDEA = {
    "missing-row-sum": {"08-P4"}, "diagonal-only": {"08-P4"}, "returned-d-weights": {"08-P4"},
    "row-sum-without-weights": {"08-P4"},  # backward
    "multiplied-by-temperature": {"04-P6"}, "temperature-ignored": {"04-P6"},
    "temperature-after-softmax": {"04-P6"}, "power-after-softmax": {"04-P6"},  # softmax
    "all-heads": {"01-P4"}, "with-bias": {"07-P2", "01-P4"}, "used-dk": {"07-P2"}, "bits": {"02-P6"},
    "forgot-heads": {"02-P6", "08-P5"}, "forgot-layers": {"02-P6", "08-P5"},
    "counted-flops": {"02-P3"}, "forgot-dk": {"02-P3"},
    "causal-half": {"08-P5"}, "counted-bytes": {"08-P5", "08-P7"}, "one-head": {"07-P2"},  # counting
    "added-not-multiplied": {"07-P2"},  # counting
    "std-not-variance": {"03-P2"}, "added-variances": {"03-P2", "03-P3"}, "sqrt-dk": {"03-P2"},  # scaling
    "dk-squared": {"03-P2", "02-P2"},  # counting
    "not-bytes": {"02-P6"},  # counting
    "rounded-too-coarsely": {"04-P6", "06-P3", "08-P2"},  # generic: a variant's check names it for every problem
    "more-for-times": {"08-P1"},  # generic
}


def test_a_problems_own_id_reuses_a_catalogue_id_only_for_the_same_mistake():
    local = _local_ids()
    assert len(local) > 50, "the recorder found too few prediction ids: is CALLS still recorded?"
    clashes = {i: problems for i, problems in local.items() if i in CATALOGUE}
    assert set(clashes) == set(SAME_IDEA), (
        f"prediction ids equal to catalogue ids: {sorted(clashes)}; an id names one mistake everywhere: rename "
        "the problem's id, or list it in SAME_IDEA when it is the catalogue's mistake")
    for i, problem in SAME_IDEA.items():  # noqa: B007
        assert clashes[i] == problem, (i, clashes[i])


def test_a_merged_id_lives_on_as_an_alias_of_the_id_that_names_its_mistake_now():
    from attn_lib.exercises._catalogue import ALIASES, current_id

    local = _local_ids()
    for old, new in ALIASES.items():
        assert new in CATALOGUE and old not in CATALOGUE and old not in local, (old, new)
        assert current_id(old) == new and current_id(new) == new
    # 08-P1's increase for a factor is named as 02-P7's and every variant's is
    assert "08-P1" in local["more-for-times"] and current_id("increase-not-factor") == "more-for-times"
