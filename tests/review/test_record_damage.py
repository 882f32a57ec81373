"""Nothing earned is lost: a record cut short at any byte keeps every entry before the cut, a field damaged in any
entry costs that entry alone (and the last good copy brings it back), two kernels writing at once keep both their
answers, and every folder of the course reads the same record."""

import copy
import json
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from attn_lib._record.changes import rate_prompt, rate_variant
from attn_lib._record.file import FILE_NAME, SECTIONS, dumps, last_good_path, load, parse, record_path, salvage, update

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def small_record(fresh_course_record):
    """A record with an entry of every kind, two reviews in the logs, written as the course writes it."""
    rate_prompt("02-R1", "Good", T0)
    rate_prompt("02-R1", "Again", T0 + timedelta(days=1))
    rate_variant("03-P2", 4711, True, T0 + timedelta(hours=2))
    rate_variant("03-P2", 12, False, T0 + timedelta(days=3))
    rate_prompt("05-R2", "Easy", T0 + timedelta(days=4))

    def solve(record):
        record["solved"]["02-P2"] = "2026-01-05T10:00:00+00:00"
        record["tried"]["05-P2"] = 2  # two wrong answers, not yet solved
        return True

    update(solve)
    return parse(fresh_course_record.read_text(), "record")


def entries(record):
    return {(section, key): item for section in SECTIONS for key, item in record[section].items()}


def ends(text, record):
    """Where each entry's text ends in ``text`` (the record as dumps writes it)."""
    decoder, out = json.JSONDecoder(), {}
    for section, key in entries(record):
        start = text.index(f'"{key}": ', text.index(f'"{section}": '))
        out[(section, key)] = decoder.raw_decode(text, start + len(f'"{key}": '))[1]
    return out


def test_a_record_cut_short_at_any_byte_keeps_exactly_the_entries_before_the_cut(small_record):
    text = dumps(small_record)
    whole, end = entries(small_record), ends(text, small_record)
    assert len(whole) == 9 and len(text) > 1500
    for k in range(len(text) + 1):
        kept, lost = salvage(text[:k], "record")
        assert entries(kept) == {e: whole[e] for e in whole if end[e] <= k}, k
        assert lost == 0


def test_a_record_cut_short_is_repaired_whole_from_its_last_good_copy_or_keeps_what_it_can(small_record, capsys):
    path = record_path()
    text = dumps(small_record)
    end = ends(text, small_record)
    for k in range(0, len(text), 97):
        path.write_text(text[:k])
        assert load() == small_record, k  # the last good copy holds everything
    for k in range(0, len(text), 97):  # no last good copy: what the cut left is kept
        last_good_path(path).unlink()
        path.write_text(text[:k])
        assert entries(load()) == {e: item for e, item in entries(small_record).items() if end[e] <= k}, k
    said = capsys.readouterr().err.splitlines()
    assert len(said) == 2 * len(range(0, len(text), 97)) and all("Traceback" not in line for line in said)


def leaves(item, path=()):
    """Every field of an entry: (path, value)."""
    if isinstance(item, dict):
        for key, value in item.items():
            yield from leaves(value, (*path, key))
    elif isinstance(item, list):
        for index, value in enumerate(item):
            yield from leaves(value, (*path, index))
    else:
        yield path, item


def damaged(record, section, key, path, value):
    record = copy.deepcopy(record)
    if not path:
        record[section][key] = value
        return record
    target = record[section][key]
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return record


def test_a_field_damaged_in_any_entry_costs_that_entry_alone_and_the_last_good_copy_brings_it_back(small_record,
                                                                                                    capsys):
    path = record_path()
    fields = [(section, key, p) for (section, key), item in entries(small_record).items() for p, _ in leaves(item)]
    assert len(fields) > 40
    for section, key, p in fields:
        bad = damaged(small_record, section, key, p, "not what it was")
        text = json.dumps(bad, indent=2)
        kept, lost = salvage(text, "record")
        assert (entries(kept), lost) == ({e: i for e, i in entries(small_record).items() if e != (section, key)}, 1), \
            (section, key, p)
        path.write_text(text)
        assert load() == small_record, (section, key, p)
    assert capsys.readouterr().err.count("was damaged") == len(fields)


def test_a_number_past_any_float_in_a_card_is_damage_not_a_crash(small_record):
    bad = damaged(small_record, "prompts", "02-R1", ("card", "stability"), 10 ** 400)
    kept, lost = salvage(json.dumps(bad), "record")
    assert lost == 1 and "02-R1" not in kept["prompts"] and "05-R2" in kept["prompts"]


KERNEL = """
import sys
from attn_lib._record.file import update
notebook, count = sys.argv[1], int(sys.argv[2])
for k in range(1, count + 1):
    def change(record, k=k):
        record["solved"][f"{notebook}-P{k}"] = "2026-01-05T09:00:00+00:00"
        return True
    update(change)
"""


def test_two_kernels_writing_at_once_both_keep_every_answer(fresh_course_record):
    count = 150
    kernels = [subprocess.Popen([sys.executable, "-c", KERNEL, notebook, str(count)], cwd=ROOT)
               for notebook in ("02", "03")]
    assert [kernel.wait(timeout=300) for kernel in kernels] == [0, 0]
    solved = load()["solved"]
    assert sorted(solved) == sorted(f"{nb}-P{k}" for nb in ("02", "03") for k in range(1, count + 1))


def test_every_folder_of_the_course_reads_the_same_record(monkeypatch, tmp_path):
    monkeypatch.delenv("ATTN_COURSE_RECORD", raising=False)
    course = tmp_path / "course" / "notebooks"
    (course / "solutions").mkdir(parents=True)
    (course / "00-start-here.ipynb").write_text("{}")
    for here in (course, course / "solutions"):
        monkeypatch.chdir(here)
        assert record_path() == course / FILE_NAME
    elsewhere = tmp_path / "elsewhere" / "deeper"
    elsewhere.mkdir(parents=True)
    monkeypatch.chdir(elsewhere)
    assert record_path() == elsewhere / FILE_NAME  # no course above: here
    (tmp_path / "elsewhere" / FILE_NAME).write_text("{}")
    assert record_path() == tmp_path / "elsewhere" / FILE_NAME  # a record above: that one
