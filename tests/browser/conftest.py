"""Fixtures for the browser tests: one JupyterLab server and one headless Chromium for the whole session.

The tests skip when Playwright or Chromium is missing, unless the environment variable CI is set: then they fail,
so that CI cannot pass without having run them.
"""

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import lab_driver


def require_browser():
    missing = lab_driver.missing_browser_tools()
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but the browser tests cannot run: {missing}")
        pytest.skip(missing)


@pytest.fixture(scope="session")
def lab(tmp_path_factory):
    require_browser()
    # Notebook 10's model files, fetched once per run before any explorer opens: a first fetch reports on stderr,
    # which the explorers' tests count as an error (run serially, the minilm tests and nbval fetched them first).
    from filelock import FileLock

    from attn_lib.minilm.sources import fetch
    from tests.artefacts import run_folder

    with FileLock(str(run_folder(tmp_path_factory) / "minilm-files.lock")):
        fetch(None, "auto")
    server = lab_driver.Lab(lab_driver.course_files())
    yield server
    server.stop()


@pytest.fixture(scope="session")
def chromium():
    """The session's one headless Chromium: static pages (the reading copy) use it alone, JupyterLab's tests through
    ``browser``. Playwright's sync API runs one instance per thread, so a second ``sync_playwright()`` would fail."""
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = lab_driver.launch_chromium(playwright)
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def browser(lab, chromium):
    """Chromium with the session's JupyterLab server running."""
    return chromium


@pytest.fixture
def page(browser):
    """A fresh page that records console errors and uncaught page errors in ``page.errors``."""
    context = browser.new_context(viewport={"width": 1500, "height": 1100})
    new_page = context.new_page()
    new_page.errors = []
    new_page.on("console", lambda message: message.type == "error" and new_page.errors.append(message.text))
    new_page.on("pageerror", lambda error: new_page.errors.append(f"uncaught: {error}"))
    yield new_page
    context.close()
