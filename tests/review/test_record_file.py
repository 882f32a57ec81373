"""The record file: where it is, its format, and the files it refuses (another program's, a newer version's, a
corrupt one), each named in the error and never written over; a corrupt one is kept aside."""

import json
import warnings
from datetime import datetime, timezone
from pathlib import Path

import pytest

from attn_lib._record import changes
from attn_lib._record.file import CorruptRecord, ForeignRecord, NewerRecord, load, parse
from attn_lib.exercises import check
from attn_lib.review import RecordError, prompts_of, record_path

NOW = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)


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


@pytest.mark.parametrize("text", [
    '{"format": "attn-course-record", "version": 1, "solved": {"02-P2": "yesterday"}}',
    '{"format": "attn-course-record", "version": 1, "prompts": {"02-R1": {"card": {}}}}',
    '{"format": "attn-course-record", "version": 1, "solved": {"02-P2": "2026-01-05T09:00:00+00:00"',  # cut short
    '',
])
def test_a_corrupt_record_is_kept_aside_unchanged_and_the_error_says_where(fresh_course_record, text):
    fresh_course_record.write_text(text)
    with pytest.raises(CorruptRecord) as raised:
        load()
    aside = [p for p in fresh_course_record.parent.iterdir() if p.name.startswith(fresh_course_record.name + ".corrupt-")]
    assert len(aside) == 1 and aside[0].read_text() == text
    assert str(fresh_course_record) in str(raised.value) and aside[0].name in str(raised.value)
    assert not fresh_course_record.exists()
    prompts_of("02", now=NOW)  # the next act starts a new record; the old one is still aside
    assert set(load()["reached"]) == {"02"} and aside[0].read_text() == text


def test_a_second_corrupt_record_gets_its_own_name_beside_the_first(fresh_course_record):
    for text in ("not json", "still not json"):
        fresh_course_record.write_text(text)
        with pytest.raises(CorruptRecord):
            load()
    kept = sorted(p.read_text() for p in fresh_course_record.parent.iterdir() if ".corrupt-" in p.name
                  and p.name.startswith(fresh_course_record.name))
    assert kept == ["not json", "still not json"]


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
