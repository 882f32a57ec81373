"""The learner's course record in the browser edition (attn_lib.review): written by the browser's Python beside the
notebooks, kept in the browser's storage across a reload of the page and across a rebuild of the site served at the
same origin, and read back by the contents page's progress.

The run's site (built once, conftest.py) is copied into a folder of this test's own (the rebuild replaces it with
another copy, as a teacher republishes), served from 127.0.0.1, offline.

Run: python -m pytest tests/browser/test_lite_record.py -q
"""

from __future__ import annotations

import base64
import json
import re
import shutil
import sys

import lab_driver
import lite_driver
import pytest
from conftest import require_browser

sys.path.insert(0, str(lab_driver.REPO / "tools"))
sys.path.insert(0, str(lab_driver.REPO))
import nav  # noqa: E402
from tests.artefacts import copy_of  # noqa: E402

RECORD = "attn-course-record.json"


@pytest.fixture(scope="module")
def own_site(tmp_path_factory, lite_site_of_the_course):
    """A copy of the run's site (conftest.py), served from a folder of this module's own."""
    require_browser()
    folder = copy_of(lite_site_of_the_course, tmp_path_factory.mktemp("lite-record") / "site")
    server = lite_driver.StaticSite(folder)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def offline_browser(chromium):
    browser = lite_driver.launch_chromium(chromium.browser_type)
    yield browser
    browser.close()


def scroll_to_cell(page, source: str):
    """Bring the code cell whose source is ``source`` into view (JupyterLab renders only the cells near the view)."""
    page.evaluate(
        """async source => {
            const w = window.jupyterapp.shell.currentWidget;
            const index = w.content.widgets.findIndex(c => c.model.sharedModel.getSource().trim() === source);
            await w.content.scrollToItem(index, 'center');
        }""", source)


def stored_record(page) -> dict | None:
    """The record file as the browser's storage holds it (JupyterLite's contents, the file browser's view), or None."""
    found = page.evaluate(
        """async name => {
            try {
                const model = await window.jupyterapp.serviceManager.contents.get(name, {content: true});
                return [model.format, model.content];
            } catch (error) {
                return null;
            }
        }""", RECORD)
    if found is None:
        return None
    form, content = found
    if form == "base64":  # how JupyterLite hands back a file the kernel wrote
        content = base64.b64decode(content).decode("utf-8")
    return content if form == "json" else json.loads(content)


def progress_row(page, notebook: str) -> list[str]:
    """The contents page's progress row of ``notebook``, after Run All: its cells, split on runs of spaces."""
    lite_driver.run_all(page)
    texts = [str(out.get("data", {}).get("text/plain", "")) for _, outputs in lite_driver.cell_outputs(page)
             for out in outputs]
    table = next((t for t in texts if t.startswith("Your progress")), None)
    assert table is not None, f"the contents page printed no progress: {texts}"
    row = next(line for line in table.splitlines() if line.startswith(f"{notebook} "))
    return re.split(r"\s{2,}", row.strip())


def test_the_record_survives_a_reload_and_a_rebuild_of_the_site(own_site, offline_browser, lite_site_of_the_course):
    offline = lite_driver.Offline(offline_browser)
    page = offline.page
    try:
        lite_driver.open_notebook(page, own_site.url, "00-start-here.ipynb")
        assert stored_record(page) is None, "a fresh browser should start with no record"
        # the imports and prompts_of("00") (test_lite.py runs the whole notebook)
        assert lab_driver.run_imports_and(page, 'prompts_of("00")'), 'no cell of 00 is prompts_of("00")'
        scroll_to_cell(page, 'prompts_of("00")')
        page.get_by_role("button", name="Show answer", exact=True).first.click()
        page.get_by_role("button", name=re.compile(r"^Good \(")).first.click()  # "Good (10 min)": when it comes back
        page.get_by_text("Recorded: Good").first.wait_for(timeout=30_000)

        record = stored_record(page)
        assert record is not None, f"no {RECORD} beside the notebooks in the browser's storage"
        assert record["format"] == "attn-course-record" and "00-R1" in record["prompts"], record
        rated = record["prompts"]["00-R1"]

        # a new page load of the site, as a reload is (reloading 00 would start a kernel only to leave it)
        lite_driver.open_notebook(page, own_site.url, nav.CONTENTS)
        assert stored_record(page)["prompts"]["00-R1"] == rated, "the reload changed the record"
        row = progress_row(page, "00")
        assert row[1] == "yes", f"after a reload, progress should show notebook 00 reached: {row}"

        # The site rebuilt and republished in the same folder, at the same origin: another build's files.
        shutil.rmtree(own_site.root)
        copy_of(lite_site_of_the_course, own_site.root)
        lite_driver.open_notebook(page, own_site.url, nav.CONTENTS)
        assert stored_record(page)["prompts"]["00-R1"] == rated, "the rebuild of the site lost the record"
        row = progress_row(page, "00")
        assert row[1] == "yes", f"after a rebuild, progress should show notebook 00 reached: {row}"
        assert offline.refused == [], f"the page asked for outside addresses: {offline.refused}"
    finally:
        offline.close()
