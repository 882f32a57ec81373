"""The test suite never writes a learner's record (attn_lib.review) into the repository.

Before anything runs, ``ATTN_COURSE_RECORD`` names a file in a temporary folder (doctests, tests and the
subprocesses they start); each notebook nbval runs gets a fresh record of its own when its kernel starts, as
tools/build_notebooks.py gives each one, so its outputs do not depend on the notebooks run before it.
tests/conftest.py gives every test of tests/ a fresh record too.
"""

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
