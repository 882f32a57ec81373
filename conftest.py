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


# --- the suite on every core: tiers (pytest-xdist, --dist loadfile) -------------------------------------------------
# Each file runs whole on one worker (a notebook's cells share one kernel under nbval, a module's fixtures are made
# once), in xdist's order: files with more tests first. Splitting the browser edition's notebook runs over both
# workers and starting heavy units first was tried (2026-12-06) and gained nothing measurable: the machine is busy
# all the time (97 % of both cores, over half of it in Chromium), so an order only moves the same work around, and
# runs of one commit varied by 15 % on that shared machine. The slowest tier (browsers, nbgrader, the claims ledger,
# the notebooks under nbval) carries the mark `slow`: `-m "not slow"` is the inner loop.

SLOW = ("tests/browser/", "tests/test_nbgrader_", "tests/claims/", "notebooks/")


def pytest_itemcollected(item):
    # The mark goes on as each test is collected, so that every later hook sees it whatever its order (-m's
    # deselection among them).
    if item.nodeid.startswith(SLOW):
        item.add_marker(pytest.mark.slow)


# --- artefacts made once per run (tests/artefacts.py) ------------------------------------------------------------------

@pytest.fixture(scope="session")
def reading_copy_of_the_course(tmp_path_factory):
    """The static reading copy of the committed notebooks (tools/build_html.py), built once per run for every test
    that reads it: (its folder, the files build() said it wrote, relative to it). Tests that change it copy it."""
    from tests.artefacts import reading_copy

    return reading_copy(tmp_path_factory)


@pytest.fixture(scope="session")
def lite_site_of_the_course(tmp_path_factory):
    """The browser edition of the committed course, stamped tests/artefacts.py's SITE_VERSION, built once per run
    for every test that serves it (ATTN_LITE_SITE=DIR: a site already built there)."""
    from tests.artefacts import SITE_VERSION, lite_site

    built = os.environ.get("ATTN_LITE_SITE")
    return Path(built) if built else lite_site(tmp_path_factory, SITE_VERSION)
