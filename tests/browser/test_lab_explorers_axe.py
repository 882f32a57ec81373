"""The explorers in JupyterLab under axe's WCAG 2 A and AA rules: no violation. Every control is a native input
with a label (a range input, a group of radio buttons under its legend, a text field), and the figure is a canvas
whose accessible name is its one-line description (tests/browser/test_reading_copy.py audits every explorer again
in the reading copy, where no kernel is needed).

Run: python -m pytest tests/browser/test_lab_explorers_axe.py -q
"""

import lab_driver
import pytest
from axe_audit import axe_violations, describe

# Two explorers, one with a slider and a choice, one with several sliders, in the minimal notebooks lab_driver
# generates (an import and the call), to keep the test short.
KINDS = ["dk", "softmax"]


@pytest.mark.parametrize("kind", KINDS)
def test_an_explorer_in_jupyterlab_has_no_wcag_violation_and_names_every_control(lab, page, kind):
    lab_driver.open_and_run(page, lab, f"generated/{lab_driver.FUNCTIONS[kind]}.ipynb")
    lab_driver.wait_for_figure(page, kind)
    selector = lab_driver.explorer_selector(kind)
    violations = axe_violations(page, context=selector)
    assert not violations, f"{kind} explorer: WCAG violations:\n{describe(violations)}"
    # What a screen reader has to go on: each range input's label and the value it announces; the figure's name.
    announced = page.evaluate("""sel => Array.from(document.querySelectorAll(sel + ' input[type=range]')).map(i => [
        i.labels.length ? i.labels[0].textContent : null, i.getAttribute('aria-valuetext')])""", selector)
    assert announced and all(label and value for label, value in announced), announced
    name = page.evaluate("sel => document.querySelector(sel + ' .attn-figure canvas').getAttribute('aria-label')",
                         selector)
    assert page.locator(f"{selector} .attn-description").inner_text() == f"Figure: {name}"
    assert page.errors == []
