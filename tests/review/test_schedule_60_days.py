"""The review schedule over 60 simulated days (tools/review_schedule.py's run, its clock injected): a prompt rated
well moves out to longer and longer intervals, one missed comes back sooner; the same for the variants of a solved
problem answered right or wrong. The table is printed as the evidence (pytest -s shows it)."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import review_schedule  # noqa: E402


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ATTN_COURSE_RECORD", str(tmp_path_factory.mktemp("schedule") / "record.json"))
        items, rows = review_schedule.simulate(60)
    print("\n" + review_schedule.table(items, rows))
    return items, rows


def review_days(rows, item):
    return [day for day, entries in rows if item in entries]


def gaps(days):
    return [b - a for a, b in zip(days, days[1:])]


def test_a_prompt_rated_good_or_easy_moves_out_to_longer_intervals(run):
    items, rows = run
    easy, good = items[0], items[1]
    for item in (easy, good):
        steps = gaps(review_days(rows, item))
        assert len(steps) >= 1 and all(b > a for a, b in zip(steps, steps[1:])), (item, steps)
        assert max(steps) >= 7, (item, steps)
    assert len(review_days(rows, easy)) <= len(review_days(rows, good))  # Easy goes out at least as fast
    last_due_good = [entries[good][1] for _, entries in rows if good in entries][-1]
    assert last_due_good - review_days(rows, good)[-1] >= 30  # two months in, a month or more away


def test_a_prompt_rated_again_comes_back_sooner(run):
    items, rows = run
    good, again = items[1], items[2]
    assert review_days(rows, again) == list(range(61))  # every day: it never leaves the short steps
    assert all(entries[again][1] <= day + 1 for day, entries in rows if again in entries)
    reviews = {item: sum(len(entries[item][0]) for _, entries in rows if item in entries) for item in items}
    assert reviews[again] > 10 * reviews[good]


def test_variants_of_a_problem_answered_right_move_out_and_wrong_come_back_the_next_day(run):
    items, rows = run
    right, wrong = items[-2], items[-1]
    steps = gaps(review_days(rows, right))
    assert all(b > a for a, b in zip(steps, steps[1:])) and max(steps) >= 7, steps
    assert review_days(rows, wrong) == [0] + list(range(2, 61))
    assert all(entries[wrong][1] == day + 1 for day, entries in rows if wrong in entries and day > 0)
