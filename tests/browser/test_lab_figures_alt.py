"""Static figures in JupyterLab carry alt text: axe's image-alt rule finds nothing in two notebooks with figures,
and each figure's <img> holds the alt that attn_lib.plotting.show_figure was given. Every output of those notebooks
(figures, checker verdicts, tracebacks) passes axe's WCAG 2 A and AA rules in JupyterLab's light theme.

Run: python -m pytest tests/browser/test_lab_figures_alt.py -q
"""

import html
import re

import lab_driver
import nbformat
import pytest
from axe_audit import axe_violations, describe

FIGURE_NOTEBOOKS = ["notebooks/00-start-here.ipynb", "notebooks/06-masking.ipynb"]


def stored_alts(path):
    """(cell index, alt text) of every figure the committed notebook shows: the alt of the <img> that
    show_figure stores in a text/html output."""
    nb = nbformat.read(lab_driver.REPO / path, as_version=4)
    return [(i, html.unescape(match.group(1))) for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
            for out in cell.get("outputs", [])
            for match in re.finditer(r'<img alt="([^"]*)" src="data:', out.get("data", {}).get("text/html", ""))]


def scroll_to(page, index):
    """Bring cell ``index`` into view: the notebook renders only the cells near the view."""
    page.evaluate("i => window.jupyterapp.shell.currentWidget.content.scrollToItem(i, 'center')", index)


@pytest.mark.parametrize("path", FIGURE_NOTEBOOKS)
def test_figures_carry_their_alt_text_and_outputs_pass_wcag_in_jupyterlab(lab, page, path):
    figures = stored_alts(path)
    assert figures and all(alt for _, alt in figures), f"{path}: a figure shown without show_figure(..., alt=...)"
    lab_driver.open_and_run(page, lab, path)
    shown = []
    for index, _ in figures:
        scroll_to(page, index)
        page.wait_for_function(
            "i => window.jupyterapp.shell.currentWidget.content.widgets[i].node"
            ".querySelector('.jp-OutputArea-output img') !== null", arg=index, timeout=30_000)
        shown.append(page.evaluate(
            "i => window.jupyterapp.shell.currentWidget.content.widgets[i].node"
            ".querySelector('.jp-OutputArea-output img').getAttribute('alt')", index))
        violations = axe_violations(page, rules=["image-alt"])
        assert not violations, f"{path}, cell {index}:\n{describe(violations)}"
    assert shown == [alt for _, alt in figures]
    cells = page.evaluate("() => window.jupyterapp.shell.currentWidget.content.widgets.length")
    for index in range(0, cells, 2):
        scroll_to(page, index)
        page.wait_for_timeout(100)
        violations = axe_violations(page, context=".jp-OutputArea")
        assert not violations, f"{path}, outputs around cell {index}:\n{describe(violations)}"
