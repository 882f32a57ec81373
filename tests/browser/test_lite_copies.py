"""A learner's saved copy in the browser edition knows when it is old (lite/learner-copies), tested in headless
Chromium against two builds of the site served at the same origin, as when a teacher republishes.

Build 1 (course version "2026-12-01 aaaa111") is the site a learner works on: they edit and save 03, 04, 05 and 06
(05 through the notebook's own editor and Ctrl+S, the others through the contents API a save goes through), and
open and save 01 without editing it. Build 2 ("2026-12-02 bbbb222") changes a markdown cell of 01, 03, 04 and 05.
The same browser context (its IndexedDB) then opens build 2: 03 is kept, 04 taken new, 05 compared, 06 (not changed
on the site) and 01 (not edited) are never flagged; then Download All My Work and Reset Notebook.

The tests run in file order and share the module's one learner. Screenshots of each dialog go to ATTN_LITE_SCREENS
(a folder) when it is set.

Run: python -m pytest tests/browser/test_lite_copies.py -q   (two builds and one browser session: minutes)
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
import zipfile
from pathlib import Path

import lab_driver
import lite_driver
import nbformat
import pytest
from conftest import require_browser

sys.path.insert(0, str(lab_driver.REPO))
from tests.artefacts import SITE_VERSION, lite_site  # noqa: E402

OLD, NEW = SITE_VERSION, "2026-12-02 bbbb222"
ADDED = "A sentence the teacher added in build 2."
EDIT = "# my edit, made on build 1"
CHANGED_ON_SITE = ["01-shapes.ipynb", "03-scaling.ipynb", "04-softmax.ipynb", "05-weighted-average.ipynb"]
EDITED = ["03-scaling.ipynb", "04-softmax.ipynb", "05-weighted-average.ipynb", "06-masking.ipynb"]
TIMEOUT_MS = 300_000  # a page of the site on two busy cores, its kernel starting beside it


def changed_notebooks(dest: Path) -> Path:
    """A copy of notebooks/ in which the first markdown cell after the navigation line of each CHANGED_ON_SITE
    notebook says one sentence more."""
    shutil.copytree(lab_driver.REPO / "notebooks", dest)
    for name in CHANGED_ON_SITE:
        path = dest / name
        nb = json.loads(path.read_text(encoding="utf-8"))
        cell = [c for c in nb["cells"] if c["cell_type"] == "markdown"][1]
        cell["source"] = "".join(cell["source"]) + f"\n\n{ADDED}\n"
        path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return dest


@pytest.fixture(scope="module")
def sites(tmp_path_factory, lite_site_of_the_course):
    """Build 1 (the run's site, stamped OLD: conftest.py) and build 2, and one server for both (serving build 1
    first)."""
    require_browser()
    root = tmp_path_factory.mktemp("lite-copies")
    first = lite_site_of_the_course
    second = lite_site(tmp_path_factory, NEW, notebooks=changed_notebooks(root / "notebooks-2"))
    server = lite_driver.StaticSite(first)
    yield {"server": server, "first": first, "second": second}
    server.stop()


@pytest.fixture(scope="module")
def learner(chromium, sites):
    """One learner's browser (an offline context: its storage lasts the module), having worked on build 1; the
    server then serves build 2."""
    browser = lite_driver.launch_chromium(chromium.browser_type)
    context = lite_driver.Offline(browser)
    lite_driver.without_kernels(context.context)  # the copies' dialogs need no kernel
    page = context.page
    page.refused = context.refused  # requests outside 127.0.0.1 (none: the zip library is the site's own file)
    page.on("dialog", lambda dialog: dialog.accept())  # a "leave the page?" prompt between notebooks
    server = sites["server"]
    opened(page, server.url, "05-weighted-average.ipynb")
    # an edit typed into the first code cell, saved with the keyboard
    page.evaluate("""async () => {
        const w = window.jupyterapp.shell.currentWidget;
        const index = w.content.widgets.findIndex(c => c.model.type === 'code');
        w.content.activeCellIndex = index;
        w.content.mode = 'edit';
    }""")
    page.keyboard.press("Control+Home")
    page.keyboard.type(EDIT + "\n")
    page.keyboard.press("Control+s")
    page.wait_for_function(
        "() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=TIMEOUT_MS)
    for name in EDITED:
        if name != "05-weighted-average.ipynb":
            save_with_edit(page, name)
    save_untouched(page, "01-shapes.ipynb")
    server.serve(sites["second"])
    yield page
    context.close()
    browser.close()


# ---------------------------------------------------------------------------------------------------------------
# Helpers


def opened(page, url, name):
    """Open ``name`` by its URL; wait until the copy check has decided or its dialog is up. Returns the verdict
    (None while a dialog asks)."""
    page.goto(f"{url}/lab/index.html?path={name}", wait_until="domcontentloaded")
    return checked(page, name)


def open_in_place(page, name):
    """Open ``name`` in the running page (the command a double click in the file browser runs)."""
    page.evaluate("name => { window.jupyterapp.commands.execute('docmanager:open', {path: name}); }", name)
    return checked(page, name)


def checked(page, name):
    page.wait_for_function(
        """name => {
            if (document.querySelector('dialog.attn-lite-dialog')) return true;
            const app = window.jupyterapp;
            const w = app && app.shell.currentWidget;
            return !!(w && w.context && w.context.path === name && w.node.dataset.attnCopy);
        }""", arg=name, timeout=TIMEOUT_MS)
    return page.evaluate("""name => document.querySelector('dialog.attn-lite-dialog') ? null
        : window.jupyterapp.shell.currentWidget.node.dataset.attnCopy""", name)


def save_with_edit(page, name):
    """Save ``name`` as a learner's edit would: the site's notebook, its first code cell with EDIT on top."""
    page.evaluate("""async ([name, edit]) => {
        const contents = window.jupyterapp.serviceManager.contents;
        const model = await contents.get(name, {content: true});
        const cell = model.content.cells.find(c => c.cell_type === 'code');
        const source = Array.isArray(cell.source) ? cell.source.join('') : cell.source;
        cell.source = edit + '\\n' + source;
        await contents.save(name, {type: 'notebook', format: 'json', content: model.content});
    }""", [name, EDIT])


def save_untouched(page, name):
    """Save ``name`` unchanged, as JupyterLab's autosave does after a learner only ran its cells."""
    page.evaluate("""async name => {
        const contents = window.jupyterapp.serviceManager.contents;
        const model = await contents.get(name, {content: true});
        await contents.save(name, {type: 'notebook', format: 'json', content: model.content});
    }""", name)


def text_of(page, name):
    """Every cell's source of the notebook ``name`` as the browser now shows it (its saved copy if any)."""
    return page.evaluate("""async name => {
        const model = await window.jupyterapp.serviceManager.contents.get(name, {content: true});
        return model.content.cells.map(c => Array.isArray(c.source) ? c.source.join('') : c.source).join('\\n');
    }""", name)


def open_text(page):
    """Every cell's source of the notebook on screen (its model, as shown)."""
    return page.evaluate("""() => window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells
        .map(c => c.getSource()).join('\\n')""")


def saved_paths(page):
    return page.evaluate("""async () => {
        const root = await window.jupyterapp.serviceManager.contents.get('', {content: true});
        return root.content.map(item => item.path).sort();
    }""")


def dialog(page):
    return page.locator("dialog.attn-lite-dialog")


def screenshot(page, name):
    folder = os.environ.get("ATTN_LITE_SCREENS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"))


def assert_accessible(page, title, focused):
    """The dialog (modal, on screen) is named by its title and described by its body, each button has a name, and the focus is on
    the button ``focused``, inside the dialog."""
    page.wait_for_function("() => document.querySelector('dialog.attn-lite-dialog').contains(document.activeElement)",
                           timeout=30_000)
    state = page.evaluate("""() => {
        const d = document.querySelector('dialog.attn-lite-dialog');
        const named = id => { const e = id && document.getElementById(id); return e ? e.textContent.trim() : null; };
        const name = e => e.getAttribute('aria-label') || e.textContent.trim() || e.getAttribute('title');
        return {
            modal: d.getAttribute('aria-modal'), label: d.getAttribute('aria-label'),
            body: named(d.getAttribute('aria-describedby')),
            buttons: [...d.querySelectorAll('.jp-Dialog-footer button')].map(name),
            focus: d.contains(document.activeElement) ? name(document.activeElement) : null,
        };
    }""")
    assert state["modal"] == "true" and dialog(page).is_visible(), state
    assert state["label"] == title, state
    assert state["body"], state
    assert all(state["buttons"]), state
    assert state["focus"] == focused, state
    return state


# ---------------------------------------------------------------------------------------------------------------


def test_the_site_stamps_each_notebook_with_its_course_version(sites):
    for name in CHANGED_ON_SITE + ["06-masking.ipynb"]:
        first = json.loads((sites["first"] / "files" / name).read_text())["metadata"]["attn_course"]
        second = json.loads((sites["second"] / "files" / name).read_text())["metadata"]["attn_course"]
        assert (first["version"], second["version"]) == (OLD, NEW)
        assert (first["fingerprint"] == second["fingerprint"]) == (name not in CHANGED_ON_SITE), name


def test_an_edit_made_on_build_1_survives_is_flagged_and_kept_when_asked(learner, sites):
    page = learner
    assert opened(page, sites["server"].url, "03-scaling.ipynb") is None  # the dialog asks
    state = assert_accessible(page, "A newer version of this notebook", "Keep mine")
    assert state["buttons"] == ["Keep mine", "Compare", "Take the new version"]
    body = dialog(page).inner_text()
    for words in ("03-scaling.ipynb", OLD, NEW, "with your edits", f"03-scaling (my copy, {OLD}).ipynb",
                  "03-scaling (course version 2026-12-02 bbbb222).ipynb"):
        assert words in body, words
    screenshot(page, "1-a-newer-version")
    # the keyboard: Tab goes round the dialog's controls and stays inside it; Enter on the focused one chooses it
    visited = []
    for _ in range(6):
        page.keyboard.press("Tab")
        visited.append(page.evaluate("""() => {
            const e = document.activeElement;
            return document.querySelector('dialog.attn-lite-dialog').contains(e)
                && (e.getAttribute('aria-label') || e.textContent.trim() || e.getAttribute('title'));
        }"""))
        if visited[-1] == "Keep mine":
            break
    assert visited[-1] == "Keep mine" and all(visited), visited
    assert {"Compare", "Take the new version"} <= set(visited), visited
    page.keyboard.press("Enter")
    dialog(page).wait_for(state="detached")
    assert EDIT in open_text(page) and ADDED not in open_text(page)
    assert opened(page, sites["server"].url, "03-scaling.ipynb") == "kept"  # not asked a second time
    assert EDIT in open_text(page)


def test_take_the_new_version_keeps_mine_under_another_name_and_opens_the_sites(learner):
    page = learner
    assert open_in_place(page, "04-softmax.ipynb") is None
    dialog(page).get_by_role("button", name="Take the new version").click()
    dialog(page).wait_for(state="detached")
    page.wait_for_function(
        "added => window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells"
        ".some(c => c.getSource().includes(added))", arg=ADDED, timeout=TIMEOUT_MS)
    assert EDIT not in open_text(page)
    copy = "04-softmax (my copy, 2026-12-01 aaaa111).ipynb"
    assert copy in saved_paths(page)
    assert EDIT in text_of(page, copy) and ADDED not in text_of(page, copy)
    assert ADDED in text_of(page, "04-softmax.ipynb")  # the site's file, no saved copy in front of it
    screenshot(page, "2-took-the-new-version")


def test_compare_opens_the_sites_version_beside_mine_and_leaves_mine_unchanged(learner):
    page = learner
    before = text_of(page, "05-weighted-average.ipynb")
    assert open_in_place(page, "05-weighted-average.ipynb") is None
    assert f"from course version {OLD}" in dialog(page).inner_text()  # the stamp outlived JupyterLab's own save
    dialog(page).get_by_role("button", name="Compare").click()
    dialog(page).wait_for(state="detached")
    beside = "05-weighted-average (course version 2026-12-02 bbbb222).ipynb"
    page.wait_for_function(
        """beside => [...window.jupyterapp.shell.widgets('main')].some(w => w.context && w.context.path === beside
                     && w.context.isReady)""", arg=beside, timeout=TIMEOUT_MS)
    shown = page.evaluate("""() => [...window.jupyterapp.shell.widgets('main')]
        .filter(w => w.context && w.isVisible).map(w => w.context.path).sort()""")
    assert shown == sorted(["05-weighted-average.ipynb", beside])  # both on screen, side by side
    assert ADDED in text_of(page, beside) and EDIT not in text_of(page, beside)
    assert text_of(page, "05-weighted-average.ipynb") == before and EDIT in before
    screenshot(page, "3-compare-side-by-side")


def test_a_notebook_the_learner_did_not_edit_is_never_flagged(learner, sites):
    page = learner
    url = sites["server"].url
    assert opened(page, url, "06-masking.ipynb") == "current"  # edited, but the site did not change it
    assert EDIT in open_text(page)
    assert opened(page, url, "07-heads-and-cross-attention.ipynb") == "not-saved"  # never saved
    # saved without an edit (outputs only), changed on the site: the site's new version, with no question
    assert opened(page, url, "01-shapes.ipynb") == "untouched"
    page.wait_for_function(
        "added => window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells"
        ".some(c => c.getSource().includes(added))", arg=ADDED, timeout=TIMEOUT_MS)
    assert "01-shapes.ipynb" in saved_paths(page)  # listed still: the site's own file


def test_download_all_my_work_gives_one_zip_of_exactly_the_changed_notebooks(learner):
    page = learner
    page.get_by_role("menuitem", name="File").click()
    with page.expect_download() as caught:
        page.get_by_role("menuitem", name="Download All My Work").click()
    download = caught.value
    assert download.suggested_filename.startswith("my-work-") and download.suggested_filename.endswith(".zip")
    with zipfile.ZipFile(io.BytesIO(Path(download.path()).read_bytes())) as archive:
        names = sorted(archive.namelist())
        notebooks = {name: nbformat.reads(archive.read(name).decode("utf-8"), as_version=4) for name in names}
    # 03 kept, 04's copy of mine, 05 and 06 edited; not 04 (now the site's), 01 (not edited), 05's course version
    assert names == sorted(["03-scaling.ipynb", "04-softmax (my copy, 2026-12-01 aaaa111).ipynb",
                            "05-weighted-average.ipynb", "06-masking.ipynb"])
    for name, nb in notebooks.items():
        nbformat.validate(nb)
        assert any(EDIT in cell.source for cell in nb.cells), name


def test_reset_from_the_notebooks_menu_offers_a_download_and_brings_back_the_course_version(learner, sites):
    page = learner
    assert opened(page, sites["server"].url, "06-masking.ipynb") == "current"
    assert EDIT in open_text(page)
    page.locator(".jp-NotebookPanel:visible .jp-Notebook .jp-Cell").first.click(button="right")
    page.get_by_role("menuitem", name="Reset Notebook to the Course's Version…").click()
    dialog(page).wait_for()
    state = assert_accessible(page, "Reset this notebook?", "Download mine, then reset")
    assert state["buttons"] == ["Cancel", "Download mine, then reset", "Reset"]
    assert "06-masking.ipynb" in dialog(page).inner_text() and NEW in dialog(page).inner_text()
    screenshot(page, "4-reset")
    with page.expect_download() as caught:
        dialog(page).get_by_role("button", name="Download mine, then reset").click()
    mine = nbformat.reads(Path(caught.value.path()).read_text(encoding="utf-8"), as_version=4)
    assert caught.value.suggested_filename == "06-masking.ipynb"
    assert any(EDIT in cell.source for cell in mine.cells)
    page.wait_for_function(
        "edit => !window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells"
        ".some(c => c.getSource().includes(edit))", arg=EDIT, timeout=TIMEOUT_MS)
    site = json.loads((sites["second"] / "files" / "06-masking.ipynb").read_text())
    assert text_of(page, "06-masking.ipynb") == "\n".join("".join(c["source"]) for c in site["cells"])
    assert page.errors == [] and page.refused == []
