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


# --- the suite on every core: units, tiers and order (pytest-xdist) -----------------------------------------------------
# xdist hands each worker whole units; a unit is a file (--dist loadfile: a notebook's cells share one kernel under
# nbval, a module's fixtures are made once), except in the files of SPLIT_BY_PARAMETER, whose parametrized tests are
# independent per parameter: there each parameter is a unit of its own (the browser edition runs each notebook on
# whichever worker is free; a ways-in assignment's tests stay together), and the file's other tests are one unit.
# The heavy units start first, browser units (Chromium: several busy threads) alternating with the others (one busy
# process each), so that the two kinds share the cores rather than two browsers crowding them; xdist's own
# reordering, by number of tests, is turned off. The slowest tier (browsers, nbgrader, the claims ledger, the
# notebooks under nbval) carries the mark `slow`: `-m "not slow"` is the inner loop.

REPO = Path(__file__).resolve().parent
# (node id prefix, slow tier?, weight: heavier starts earlier; 0 = light, after every heavy unit)
TIERS = [
    ("tests/browser/test_lite.py::test_notebook_runs_whole_offline_with_its_stored_outputs_and_its_explorer_answers"
     "[09-", True, 110),  # the longest single test: 09 trains its models in Pyodide
    ("tests/browser/test_lite", True, 100),
    ("tests/browser/", True, 90),
    ("tests/test_nbgrader_parallel", True, 90),  # the longest of the others: a class graded twice
    ("tests/test_nbgrader_", True, 80),
    ("notebooks/09-", True, 70),  # the notebooks that train and read a real model start before the others
    ("notebooks/10-", True, 70),
    ("tests/claims/", True, 50),
    ("notebooks/", True, 20),
]
BROWSER = "tests/browser/"
SPLIT_BY_PARAMETER = {"tests/browser/test_lite.py", "tests/test_nbgrader_ways_in.py"}


def unit_of(nodeid: str) -> str:
    """The unit of work a test belongs to, from its node id (all that xdist's scheduler sees)."""
    path, _, rest = nodeid.partition("::")
    if path in SPLIT_BY_PARAMETER and rest.endswith("]") and "[" in rest:
        return f"{path}::[{rest.split('[', 1)[1]}"
    return path


def _tier(item) -> tuple[bool, int]:
    for prefix, slow, weight in TIERS:
        if item.nodeid.startswith(prefix):
            return slow, weight
    return False, 0


def pytest_itemcollected(item):
    # The mark goes on as each test is collected, so that every later hook sees it whatever its order (-m's
    # deselection among them).
    slow, weight = _tier(item)
    if slow:
        item.add_marker(pytest.mark.slow)
    item.stash[_WEIGHT] = weight


_WEIGHT = pytest.StashKey[int]()


def pytest_collection_modifyitems(config, items):
    """Order the units: heavy browser and heavy other units alternately, each kind heaviest first, then the light
    units as collected; a unit's tests keep their order."""
    units: dict[str, list] = {}
    for item in items:
        units.setdefault(unit_of(item.nodeid), []).append(item)
    weight = {unit: max(item.stash.get(_WEIGHT, 0) for item in tests) for unit, tests in units.items()}
    heavy = sorted((unit for unit in units if weight[unit]), key=lambda unit: -weight[unit])  # stable
    browser = [unit for unit in heavy if unit.startswith(BROWSER)]
    other = [unit for unit in heavy if not unit.startswith(BROWSER)]
    order = [unit for pair in itertools.zip_longest(browser, other) for unit in pair if unit is not None]
    order += [unit for unit in units if not weight[unit]]
    items[:] = [item for unit in order for item in units[unit]]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """--dist loadfile with the units of ``unit_of``, in the collection's order (heaviest first)."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class CourseUnits(LoadFileScheduling):
        def _split_scope(self, nodeid):
            return unit_of(nodeid)

    config.option.loadscopereorder = False
    return CourseUnits(config, log)


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
