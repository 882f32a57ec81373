"""The record file: where it is, its format, the files it refuses (another program's, a newer version's), each named
in the error and never written over, and a damaged one, repaired with everything that can still be read and kept
aside as it was."""

import json
import warnings
from datetime import datetime, timezone
from pathlib import Path

import pytest

from attn_lib._record import changes
from attn_lib._record.file import CorruptRecord, ForeignRecord, NewerRecord, load, parse
from attn_lib.exercises import check
from attn_lib.exercises._problem_book import PREDICTIONS
from attn_lib.review import RecordError, prompts_of, record_path

NOW = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)


def right_answer(problem_id):
    problem = PREDICTIONS[problem_id]
    return problem.expected(problem.numbers(0))[0]


def test_the_record_is_the_file_named_by_the_variable_else_the_one_in_the_working_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("ATTN_COURSE_RECORD", str(tmp_path / "mine.json"))
    assert record_path() == tmp_path / "mine.json"
    monkeypatch.delenv("ATTN_COURSE_RECORD")
    monkeypatch.chdir(tmp_path)
    assert record_path() == tmp_path / "attn-course-record.json"
    monkeypatch.setenv("ATTN_COURSE_RECORD", str(tmp_path))
    with pytest.raises(IsADirectoryError, match="ATTN_COURSE_RECORD must name a file"):
        record_path()


def test_a_first_answer_writes_a_versioned_readable_record(fresh_course_record):
    assert not fresh_course_record.exists()
    assert check("02-P2", 64_000_000).passed
    data = json.loads(fresh_course_record.read_text())
    assert (data["format"], data["version"]) == ("attn-course-record", 1)
    assert set(data["solved"]) == {"02-P2"} and set(data["reached"]) == {"02"}
    assert fresh_course_record.read_text().count("\n") > 10  # indented, one fact a line: readable


@pytest.mark.parametrize("text, error", [
    ('{"format": "something-else", "version": 1}', ForeignRecord),
    ('[1, 2, 3]', ForeignRecord),
    ('{"format": "attn-course-record", "version": 2, "solved": {}}', NewerRecord),
])
def test_a_record_not_ours_or_of_a_newer_version_is_refused_by_name_and_left_alone(fresh_course_record, text, error):
    fresh_course_record.write_text(text)
    with pytest.raises(error, match=str(fresh_course_record)):
        prompts_of("02", now=NOW)
    assert fresh_course_record.read_text() == text
    assert issubclass(error, RecordError)


@pytest.mark.parametrize("text, kept", [
    ('{"format": "attn-course-record", "version": 1, "solved": {"02-P2": "yesterday", '
     '"02-P3": "2026-01-05T09:00:00+00:00"}}', {"02-P3"}),
    ('{"format": "attn-course-record", "version": 1, "prompts": {"02-R1": {"card": {}}}}', set()),
    ('{"format": "attn-course-record", "version": 1, "solved": {"02-P2": "2026-01-05T09:00:00+00:00", "02-P3": "2026-',
     {"02-P2"}),  # cut short
    ('', set()),
    ('{"format": "attn-course-record", "version": 1, "solved": {"02-P2": "2026-01-05T09:00:00+00:00"}}\udcff', None),
])
def test_a_damaged_record_keeps_what_can_be_read_and_sets_the_file_aside_with_one_sentence(fresh_course_record,
                                                                                          capsys, text, kept):
    if kept is None:  # a byte that is not UTF-8 at the end
        fresh_course_record.write_bytes(text[:-1].encode() + b"\xff")
        kept = {"02-P2"}
    else:
        fresh_course_record.write_text(text)
    before = fresh_course_record.read_bytes()
    record = load()
    assert set(record["solved"]) == kept
    aside = [p for p in fresh_course_record.parent.iterdir() if p.name.startswith(fresh_course_record.name + ".corrupt-")]
    assert len(aside) == 1 and aside[0].read_bytes() == before
    said = capsys.readouterr().err
    assert said.count("\n") == 1 and "Traceback" not in said
    assert str(fresh_course_record) in said and aside[0].name in said and "damaged" in said
    assert load() == record and capsys.readouterr().err == ""  # repaired on disk: read again, nothing to say
    assert check("03-P1", right_answer("03-P1")).passed  # the next answer is recorded beside what was kept
    assert set(load()["solved"]) == kept | {"03-P1"}


def test_the_answer_that_meets_the_damage_is_recorded(fresh_course_record, capsys):
    assert check("02-P2", 64_000_000).passed
    fresh_course_record.write_text(fresh_course_record.read_text().replace('"02": "', '"02": "not a time '))
    assert check("04-P1", right_answer("04-P1")).passed  # the answer that meets the damage
    record = load()
    assert record["solved"].keys() == {"02-P2", "04-P1"}  # 02-P2's entry was whole: kept
    assert record["reached"].keys() == {"02", "04"}  # 02's damaged time: brought back from the last good copy
    said = capsys.readouterr().err
    assert "last good copy" in said and "1 entry that could not be read was left out" in said


def test_a_second_damaged_record_gets_its_own_name_beside_the_first(fresh_course_record, capsys):
    for text in ("not json", "still not json"):
        fresh_course_record.write_text(text)
        load()
    kept = sorted(p.read_text() for p in fresh_course_record.parent.iterdir() if ".corrupt-" in p.name
                  and p.name.startswith(fresh_course_record.name))
    assert kept == ["not json", "still not json"]
    assert capsys.readouterr().err.count("was damaged") == 2  # one sentence each


def test_a_record_that_cannot_be_written_never_breaks_a_checker_and_warns_once(monkeypatch, fresh_course_record):
    fresh_course_record.write_text('{"format": "another-program"}')
    monkeypatch.setattr(changes, "_WARNED", [])
    with pytest.warns(changes.RecordWarning, match="another-program|not an attention-course record") as warned:
        right = check("02-P2", 64_000_000)
    assert right.passed and len(warned) == 1 and str(fresh_course_record) in str(warned[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not check("02-P2", 1_000_000).passed  # the second failure is silent: one warning a kernel
        assert check("03-P1", None).mistake == "not-answered"
    assert fresh_course_record.read_text() == '{"format": "another-program"}'


def test_a_folder_that_cannot_be_made_never_breaks_a_checker(monkeypatch, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("ATTN_COURSE_RECORD", str(blocker / "sub" / "record.json"))  # a folder inside a file
    monkeypatch.setattr(changes, "_WARNED", [])
    with pytest.warns(changes.RecordWarning):
        assert check("02-P2", 64_000_000).passed


def test_parse_names_the_file_and_what_is_wrong():
    with pytest.raises(CorruptRecord, match=r"some/where\.json: \"solved\" -> 'P2': not a problem id"):
        parse('{"format": "attn-course-record", "version": 1, "solved": {"P2": "2026-01-05T09:00:00+00:00"}}',
              "some/where.json")
    with pytest.raises(CorruptRecord, match="version 'one'"):
        parse('{"format": "attn-course-record", "version": "one"}', "x.json")


def test_a_naive_time_is_refused_naming_now():
    with pytest.raises(ValueError, match="now must say its time zone"):
        prompts_of("02", now=datetime(2026, 1, 5, 9, 0))
    with pytest.raises(TypeError, match="now must be a timezone-aware datetime"):
        prompts_of("02", now="2026-01-05")
