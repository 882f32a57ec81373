"""No test writes a learner's record (attn_lib.review) into notebooks/ or the repository: ``ATTN_COURSE_RECORD``
names a file in pytest's temporary folder for every test. Each test of tests/review starts with a fresh, empty
record of its own; elsewhere a test module shares one (the checkers write a problem's record once per file, and a
write is fsynced: one file per test would cost the checkers' tests a write, and a disk flush, per test)."""

import itertools
from pathlib import Path

import pytest

REVIEW_TESTS = Path(__file__).resolve().parent / "review"
_COUNT = itertools.count()


@pytest.fixture(autouse=True)
def fresh_course_record(request, monkeypatch, tmp_path_factory):
    """The record file of this test (not yet written for a test of tests/review); the test may read it there."""
    folder = tmp_path_factory.getbasetemp() / "course-records"
    folder.mkdir(exist_ok=True)
    if REVIEW_TESTS in request.path.parents:
        path = folder / f"record-{next(_COUNT)}.json"
    else:
        path = folder / f"{request.path.stem}-{abs(hash(str(request.path)))}.json"
    monkeypatch.setenv("ATTN_COURSE_RECORD", str(path))
    return path
