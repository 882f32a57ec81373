"""Every test starts with a fresh, empty learner's record (attn_lib.review) in a temporary folder, so that no test
writes into notebooks/ or the repository, and no test sees another's answers."""

import itertools

import pytest

_COUNT = itertools.count()


@pytest.fixture(autouse=True)
def fresh_course_record(monkeypatch, tmp_path_factory):
    """``ATTN_COURSE_RECORD`` names a new file (not yet written) for this test; the test may read it from there."""
    folder = tmp_path_factory.getbasetemp() / "course-records"
    folder.mkdir(exist_ok=True)
    path = folder / f"record-{next(_COUNT)}.json"
    monkeypatch.setenv("ATTN_COURSE_RECORD", str(path))
    return path
