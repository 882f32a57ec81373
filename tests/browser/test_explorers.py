"""Each explorer in its notebook, in JupyterLab in headless Chromium, moved with the keyboard.

Run: python -m pytest tests/browser -q
"""

import json
from pathlib import Path

import lab_driver
import pytest
from lab_driver import FUNCTIONS, notebook_paths

KINDS = list(FUNCTIONS)


def state(page, kind):
    selector = lab_driver.explorer_selector(kind)
    return (page.evaluate("s => window.attnFigureSum(s)", selector),
            page.evaluate("s => window.attnReadout(s)", selector),
            lab_driver.main_control_value(page, kind))


@pytest.mark.parametrize("kind", KINDS)
def test_explorer_moves_with_the_keyboard_and_redraws(lab, page, kind):
    path = notebook_paths()[kind]
    if path.startswith("notebooks/"):
        cells = json.loads((lab_driver.REPO / path).read_text())["cells"]
        sources = ["".join(cell["source"]).strip() for cell in cells if cell["cell_type"] == "code"]
        assert f"{FUNCTIONS[kind]}()" in sources, f"{path} has no cell that is exactly {FUNCTIONS[kind]}()"
    lab_driver.open_and_run_explorer(page, lab, kind)
    assert lab_driver.error_outputs(page) == []
    lab_driver.wait_for_figure(page, kind)
    assert page.locator(f"{lab_driver.explorer_selector(kind)} {lab_driver.FIGURE_CANVAS}").count() == 1
    assert visible_stills(page) == 0, f"a still image shown beside the drawn {kind} explorer"

    how = lab_driver.focus_main_control(page, kind)
    for keys in (lab_driver.STEP_KEYS[how], lab_driver.END_KEYS[how]):
        lab_driver.wait_until_settled(page, kind, quiet_ms=300)
        figure, readout, value = state(page, kind)
        for key in keys:
            page.keyboard.press(key)
        new_figure, new_readout = lab_driver.wait_until_settled_elsewhere(page, kind, figure, readout)
        new_value = lab_driver.main_control_value(page, kind)
        assert new_value != value, f"{keys} did not move the {kind} explorer's main control"
        assert new_figure != figure, f"{keys} moved the {kind} explorer's control; its figure did not change"
        assert new_readout != readout, f"{keys} moved the {kind} explorer's control; its readout did not change"

    assert lab_driver.error_outputs(page) == []
    assert page.errors == []


def test_quick_key_presses_end_on_the_last_value(lab, page):
    """Ten presses as fast as the keyboard sends them: the figure settles on d_k = 1024, no update is lost."""
    lab_driver.open_and_run_explorer(page, lab, "dk")
    lab_driver.wait_for_figure(page, "dk")
    lab_driver.focus_main_control(page, "dk")
    page.keyboard.press("Home")
    page.wait_for_function("s => window.attnReadout(s).startsWith('d_k: 1 ')", arg=".attn-explorer-dk")
    lab_driver.wait_until_settled(page, "dk", quiet_ms=300)
    figure_at_1 = state(page, "dk")[0]
    for _ in range(10):
        page.keyboard.press("ArrowRight")
    page.wait_for_function("s => window.attnReadout(s).startsWith('d_k: 1024 ')", arg=".attn-explorer-dk",
                           timeout=30_000)
    lab_driver.wait_until_settled(page, "dk", quiet_ms=500)
    figure, readout, value = state(page, "dk")
    assert value == "1024" and figure != figure_at_1
    # The settled figure is the one the kernel draws for d_k = 1024 (a fresh press of End changes nothing).
    page.keyboard.press("End")
    lab_driver.wait_until_settled(page, "dk", quiet_ms=500)
    assert state(page, "dk") == (figure, readout, value)
    assert page.errors == []


def visible_stills(page):
    return page.evaluate("() => Array.from(document.querySelectorAll('.attn-still'))"
                         ".filter(e => e.offsetParent !== null).length")


def scroll_to_explorer(page, kind):
    index = page.evaluate("""source => window.jupyterapp.shell.currentWidget.content.widgets
        .findIndex(c => c.model.sharedModel.getSource().trim() === source)""", f"{FUNCTIONS[kind]}()")
    page.evaluate("i => window.jupyterapp.shell.currentWidget.content.scrollToItem(i, 'center')", index)


def test_an_untrusted_notebook_opened_before_it_is_run_shows_the_still(lab, page):
    """A fresh copy of a notebook is untrusted: JupyterLab draws no widget, and the still stands in for it (with the
    widget's text form under it: JupyterLab leaves the still's style rule out of an untrusted notebook's HTML);
    once the cell runs, the drawn explorer replaces the still."""
    name = notebook_paths()["dk"]
    page.goto(f"{lab.url}/lab/tree/{name}?reset", wait_until="domcontentloaded")
    lab_driver.wait_for_idle_kernel(page, name, 120_000)
    scroll_to_explorer(page, "dk")
    page.wait_for_selector(".attn-still-dk img", state="visible", timeout=30_000)
    assert page.locator(".attn-explorer-dk").count() == 0 and visible_stills(page) == 1
    assert run_imports_and_explorer(page, "dk")
    lab_driver.wait_for_figure(page, "dk")
    assert visible_stills(page) == 0
    assert page.errors == []


def run_imports_and_explorer(page, kind):
    return lab_driver.run_imports_and(page, f"{FUNCTIONS[kind]}()")


@pytest.mark.parametrize("kind", ["dk", "mask"])
def test_an_explorer_moves_in_a_trusted_notebook_opened_before_it_is_run(lab, page, kind):
    """In a trusted notebook (Binder's image trusts the course's), JupyterLab draws the explorer from the state saved
    with the notebook: before any cell runs, its main control moves it, with no kernel behind the model."""
    from nbformat import read, write
    from nbformat.sign import NotebookNotary

    name = f"trusted/{kind}-{Path(notebook_paths()[kind]).name}"
    copy = read(lab_driver.REPO / notebook_paths()[kind], as_version=4)
    copy.metadata["attn_test"] = "a trusted copy"  # its own signature: the course's notebooks stay untrusted
    NotebookNotary().sign(copy)  # the data folder the test's JupyterLab reads too
    (lab.root / name).parent.mkdir(exist_ok=True)
    write(copy, lab.root / name)
    page.goto(f"{lab.url}/lab/tree/{name}?reset", wait_until="domcontentloaded")
    lab_driver.wait_for_idle_kernel(page, name, 120_000)
    scroll_to_explorer(page, kind)
    lab_driver.wait_for_figure(page, kind)  # no cell is run by this test: the kernel has made no widget
    assert visible_stills(page) == 0
    how = lab_driver.focus_main_control(page, kind)
    figure, readout, value = state(page, kind)
    for key in lab_driver.END_KEYS[how]:
        page.keyboard.press(key)
    new_figure, new_readout = lab_driver.wait_until_settled_elsewhere(page, kind, figure, readout)
    assert lab_driver.main_control_value(page, kind) != value
    assert new_figure != figure and new_readout != readout
    assert page.locator(f"{lab_driver.explorer_selector(kind)} .attn-status").inner_text() == ""
    assert page.errors == []
