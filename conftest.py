"""The test suite never writes a learner's record (attn_lib.review) into the repository.

Before anything runs, ``ATTN_COURSE_RECORD`` names a file in a temporary folder (doctests, tests and the
subprocesses they start); each notebook nbval runs gets a fresh record of its own when its kernel starts, as
tools/build_notebooks.py gives each one, so its outputs do not depend on the notebooks run before it.
Each test of tests/ gets a record of its own too (:func:`fresh_course_record`): a fresh, empty one in tests/review; a
record shared by its test module elsewhere (the checkers write a problem's record once per file, and a write is
fsynced: one file per test would cost the checkers' tests a disk flush per test). This fixture lives here, not in
tests/conftest.py, because --doctest-modules imports every conftest.py under tests/ as a module named conftest.
"""

import itertools
import os
import shutil
import tempfile
from pathlib import Path

import pytest

RECORD_VARIABLE = "ATTN_COURSE_RECORD"
_FOLDER: list = []


def pytest_configure(config):
    folder = Path(tempfile.mkdtemp(prefix="attn-course-record-"))
    _FOLDER.append(folder)
    os.environ[RECORD_VARIABLE] = str(folder / "session.json")
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    # nbval starts a notebook's kernel while its first cell is set up, after this hook: the kernel inherits this.
    if item.path.suffix == ".ipynb" and _FOLDER:
        os.environ[RECORD_VARIABLE] = str(_FOLDER[0] / f"{item.path.stem}.json")


TESTS = Path(__file__).resolve().parent / "tests"
REVIEW_TESTS = TESTS / "review"
_COUNT = itertools.count()


@pytest.fixture(autouse=True)
def fresh_course_record(request, monkeypatch, tmp_path_factory):
    """The record file of this test of tests/ (not yet written for a test of tests/review); the test may read it
    there. Notebooks and doctests keep the record pytest_configure and pytest_runtest_setup chose."""
    if TESTS not in request.path.parents:
        return None
    folder = tmp_path_factory.getbasetemp() / "course-records"
    folder.mkdir(exist_ok=True)
    if REVIEW_TESTS in request.path.parents:
        path = folder / f"record-{next(_COUNT)}.json"
    else:
        path = folder / f"{request.path.stem}-{abs(hash(str(request.path)))}.json"
    monkeypatch.setenv("ATTN_COURSE_RECORD", str(path))
    return path
