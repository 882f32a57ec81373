"""Export and import of the record: a round trip keeps everything, and merging obeys its laws (hypothesis):
a record merged with itself is unchanged, merging is commutative and associative, importing twice is importing
once, and per prompt the newer review wins."""

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attn_lib.exercises import check
from attn_lib.review import export_record, import_record, prompts_of
from attn_lib._record.changes import rate_prompt
from attn_lib._record.file import dumps, empty, load, merge, parse, save
from attn_lib._record.schedule import PROMPTS, VARIANTS, rate, stamp

START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
PROMPT_IDS = ("02-R1", "03-R1", "05-R1")
PROBLEM_IDS = ("02-P2", "02-P3", "05-P2")
RATINGS = ("Again", "Hard", "Good", "Easy")

events = st.lists(st.tuples(st.sampled_from(("prompt", "variant", "reached", "wrong")), st.integers(0, 2),
                            st.sampled_from(RATINGS), st.one_of(st.integers(0, 2), st.integers(0, 60 * 24 * 20))),
                  max_size=12)  # often several acts in the same minute


def build(history) -> dict:
    """A record made by a learner's acts (kind, which, rating, minutes after START), in time order."""
    record = empty()
    for kind, which, rating, minutes in sorted(history, key=lambda event: event[3]):
        now = START + timedelta(minutes=minutes)
        if kind == "reached":
            record["reached"].setdefault(PROMPT_IDS[which][:2], stamp(now))
        elif kind == "wrong":  # a wrong answer to a problem not yet solved: counted until its first solve
            key = PROBLEM_IDS[which]
            if key not in record["solved"]:
                record["tried"][key] = record["tried"].get(key, 0) + 1
        elif kind == "prompt":
            key = PROMPT_IDS[which]
            record["prompts"][key] = rate(record["prompts"].get(key), key, PROMPTS, rating, now)
        else:
            key = PROBLEM_IDS[which]
            record["solved"].setdefault(key, stamp(now))
            record["tried"].pop(key, None)
            record["variants"][key] = rate(record["variants"].get(key), key, VARIANTS, rating, now, seed=minutes,
                                           passed=rating != "Again")
    return parse(dumps(record), "built")  # what a file holds


@settings(max_examples=40, deadline=None)
@given(events)
def test_a_record_merged_with_itself_is_unchanged(history):
    record = build(history)
    assert dumps(merge(record, record)) == dumps(record)


@settings(max_examples=40, deadline=None)
@given(events, events, events)
def test_merging_is_commutative_and_associative(a, b, c):
    a, b, c = build(a), build(b), build(c)
    assert dumps(merge(a, b)) == dumps(merge(b, a))
    assert dumps(merge(merge(a, b), c)) == dumps(merge(a, merge(b, c)))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(events, events)
def test_importing_twice_is_importing_once(tmp_path, mine, theirs):
    save(build(mine))
    other = tmp_path / "other.json"
    other.write_text(dumps(build(theirs)))
    once = dumps(import_record(other))
    assert dumps(import_record(other)) == once == dumps(load())
    assert once == dumps(merge(build(mine), build(theirs)))


@settings(max_examples=40, deadline=None)
@given(events, events)
def test_per_item_the_newer_review_wins_and_nothing_is_lost(a, b):
    a, b = build(a), build(b)
    merged = merge(a, b)
    for section in ("prompts", "variants"):
        for key, item in merged[section].items():
            sides = [side[section][key] for side in (a, b) if key in side[section]]
            newest = max(side["card"]["last_review"] for side in sides)
            assert item["card"]["last_review"] == newest
            assert {str(r) for side in sides for r in side["reviews"]} == {str(r) for r in item["reviews"]}
    for section in ("reached", "solved"):
        assert set(merged[section]) == set(a[section]) | set(b[section])
        for key, when in merged[section].items():
            assert when == min(side[section][key] for side in (a, b) if key in side[section])
    # the wrong tries at a problem solved on neither side: the larger count; none once either side has solved it
    unsolved = (set(a["tried"]) | set(b["tried"])) - set(merged["solved"])
    assert merged["tried"] == {key: max(side["tried"].get(key, 0) for side in (a, b)) for key in unsolved}


def test_export_then_import_on_another_machine_keeps_everything_and_says_what_it_merged(monkeypatch, tmp_path,
                                                                                       capsys):
    check("02-P2", 64_000_000)
    prompts_of("03", now=START)
    rate_prompt("03-R1", "Good", START)
    exported = export_record(tmp_path / "carried.json")
    before = load()
    monkeypatch.setenv("ATTN_COURSE_RECORD", str(tmp_path / "laptop" / "attn-course-record.json"))
    assert load() == empty()
    assert import_record(exported) == before
    assert dumps(load()) == dumps(before)
    said = capsys.readouterr().out
    assert said == ("Imported carried.json: 2 notebooks reached, 1 problem solved, 1 prompt with new reviews, "
                    "1 problem with new reviews of its variants.\n")
    import_record(exported)
    assert capsys.readouterr().out == "Imported carried.json: nothing new, your record already held all of it.\n"


def test_export_and_import_name_bad_paths(tmp_path):
    with pytest.raises(TypeError, match="path must be a file name"):
        export_record(42)
    with pytest.raises(FileNotFoundError, match="no record to import"):
        import_record(tmp_path / "absent.json")
    (tmp_path / "foreign.json").write_text('{"hello": 1}')
    with pytest.raises(ValueError, match="foreign.json is not an attention-course record"):
        import_record(tmp_path / "foreign.json")
