"""Ids are stable forever: every problem id ("02-P7") and review prompt id ("02-R5") the course has given is in the
ledger, tests/ids_given.toml, with what it means, and keeps that meaning.

The learner's record, the schedule of variants and nbgrader's gradebooks (its cell labels ``problem-K``) all key by
id; a renumbering once made a learner's solved "twice as long" count for "a batch of heads". So an id given once
is never taken back nor given to another problem or prompt: a new problem or prompt takes the next free K of its
notebook and a new line of the ledger. A problem means its heading's words (``### Problem K: <title>``, the
prediction's ``title``); a prompt means its question.
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
LEDGER = ROOT / "tests" / "ids_given.toml"
sys.path.insert(0, str(ROOT / "tools"))
import problems  # noqa: E402  (tools/problems.py)

PROBLEM_ID, PROMPT_ID = re.compile(r"\d\d-P[1-9]\d*"), re.compile(r"\d\d-R[1-9]\d*")
HEADING = re.compile(r"(?:problem|exercise)\s+(\d+)\s*:\s*(.*)", re.IGNORECASE)


def ids_given_now() -> tuple[dict[str, str], dict[str, str]]:
    """(problems, prompts) the course gives now: id -> its meaning.

    The one place this test reads attn_lib: the problem book's predictions and the review's prompts (the public
    list). Function problems are read off the notebooks' headings, as nbgrader labels them (every heading, so a
    prediction's heading is held to its ``title`` too; tests/review/test_checkers_record.py holds the record's
    table of function problems to the same headings).
    """
    from attn_lib.exercises._problem_book import PREDICTIONS
    from attn_lib.review import PROMPTS

    given = {p.id: p.title for p in PREDICTIONS.values()}
    for name in problems.numbered_notebooks():
        nb = nbformat.read(problems.NOTEBOOKS / f"{name}.ipynb", as_version=4)
        for problem in problems.problems(nb, name):
            number, title = HEADING.match(problem.heading).groups()
            problem_id = f"{name[:2]}-P{number}"
            if given.get(problem_id, title) != title:
                given[problem_id] = f"{given[problem_id]} | {name}.ipynb's heading: {title}"
            else:
                given[problem_id] = title
    return given, {p.id: p.question for p in PROMPTS}


def ledger() -> dict:
    with LEDGER.open("rb") as f:
        return tomllib.load(f)


def toml_line(given_id: str, meaning: str) -> str:
    """The ledger's line for ``given_id``: a literal string where it can be one, else a basic (escaped) one."""
    literal = "'" not in meaning and not any(c in meaning for c in "\n\r\t")
    value = f"'{meaning}'" if literal else json.dumps(meaning, ensure_ascii=False)
    return f'"{given_id}" = {value}'


def _compare(section: str, once: dict[str, str], now: dict[str, str]) -> list[str]:
    wrong = []
    for given_id, meaning in once.items():
        if given_id not in now:
            wrong.append(f"{given_id} ({meaning!r}) is given no more. An id is never taken back: restore it; a "
                         f"problem or prompt truly removed moves its line to [retired], and its K is never reused")
        elif now[given_id] != meaning:
            wrong.append(f"{given_id} meant {meaning!r}; now it means {now[given_id]!r}. If it still asks the same "
                         f"thing in other words, write the new words in tests/ids_given.toml [{section}]; if it "
                         f"asks something else, give back {given_id} its meaning and give the new one the next free "
                         f"K of its notebook")
    return wrong


def test_every_id_once_given_is_still_given_with_the_same_meaning():
    once = ledger()
    problems_now, prompts_now = ids_given_now()
    wrong = _compare("problems", once["problems"], problems_now) + _compare("prompts", once["prompts"], prompts_now)
    assert not wrong, "ids are stable forever (tests/ids_given.toml):\n" + "\n".join(wrong)


def test_every_id_given_is_in_the_ledger():
    once = ledger()
    problems_now, prompts_now = ids_given_now()
    missing = [(section, toml_line(i, meaning)) for section, now in (("problems", problems_now),
                                                                      ("prompts", prompts_now))
               for i, meaning in now.items() if i not in once[section] and i not in once["retired"]]
    assert not missing, ("ids given that tests/ids_given.toml does not hold: add it to the ledger, each line under "
                         "its section:\n" + "\n".join(f"[{section}] {line}" for section, line in missing))


def test_a_retired_id_is_never_given_again():
    once = ledger()
    problems_now, prompts_now = ids_given_now()
    reused = [f"{i} (retired: {once['retired'][i]!r}) is given again, as {now[i]!r}: take the next free K instead"
              for now in (problems_now, prompts_now) for i in once["retired"] if i in now]
    assert not reused, "\n".join(reused)


def test_the_ledger_reads_as_ids_and_meanings():
    once = ledger()
    assert set(once) == {"problems", "prompts", "retired", "before_the_ledger"}, sorted(once)
    bad = [i for i in once["problems"] if not PROBLEM_ID.fullmatch(i)]
    bad += [i for i in once["prompts"] if not PROMPT_ID.fullmatch(i)]
    bad += [i for i in once["retired"] if not (PROBLEM_ID.fullmatch(i) or PROMPT_ID.fullmatch(i))]
    assert not bad, f"not an id NN-PK or NN-RK: {bad}"
    twice = set(once["retired"]) & (set(once["problems"]) | set(once["prompts"]))
    assert not twice, f"retired and given at once: {sorted(twice)}"
    empty = [i for section in ("problems", "prompts", "retired") for i, m in once[section].items() if not m.strip()]
    assert not empty, f"ids without a meaning: {empty}"
    earlier = once["before_the_ledger"]
    assert set(earlier) <= set(once["problems"]) | set(once["prompts"]), set(earlier) - set(once["problems"])
    assert all(isinstance(m, list) and m and all(isinstance(s, str) for s in m) for m in earlier.values())


def test_the_ledger_names_the_id_whose_meaning_changed_and_the_id_to_add():
    once = {"02-P7": "twice as long", "07-P3": "split the columns into heads"}
    now = {"02-P7": "a batch of heads", "07-P3": "split the columns into heads"}
    (changed,) = _compare("problems", once, now)
    assert changed.startswith("02-P7 meant 'twice as long'; now it means 'a batch of heads'")
    (gone,) = _compare("problems", once, {"02-P7": "twice as long"})
    assert gone.startswith("07-P3 ('split the columns into heads') is given no more")
    assert toml_line("05-R6", "Why $\\sqrt{d_k}$?") == "\"05-R6\" = 'Why $\\sqrt{d_k}$?'"
    assert toml_line("05-R7", "the learner's row") == '"05-R7" = "the learner\'s row"'
    for line in (toml_line("05-R6", "Why $\\sqrt{d_k}$?"), toml_line("05-R7", "the learner's \"row\"\n")):
        key, value = next(iter(tomllib.loads(line).items()))
        assert toml_line(key, value) == line
