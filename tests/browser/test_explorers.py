"""Each explorer in its notebook, in JupyterLab in headless Chromium, moved with the keyboard.

Run: python -m pytest tests/browser -q
"""

import json

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
    assert page.locator(f"{lab_driver.explorer_selector(kind)} .attn-figure canvas").count() >= 1
    # The still image stored for a reader without a kernel gives way to the live explorer once the cell has run.
    shown_stills = page.evaluate("() => Array.from(document.querySelectorAll('.attn-still'))"
                                 ".filter(e => e.offsetParent !== null).length")
    assert shown_stills == 0, f"{shown_stills} still image(s) shown beside the live {kind} explorer"

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
