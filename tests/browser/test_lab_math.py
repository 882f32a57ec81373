"""JupyterLab typesets the notebooks' TeX offline with the MathJax 3 it bundles (@jupyterlab/mathjax-extension),
with assistive MathML for screen readers: the first cell of 00 (Equation 1, displayed, and the note on notation)
shows each of its formulas as a MathJax container holding a MathML copy, no "$" left, and nothing is requested
from outside the server.

Run: python -m pytest tests/browser/test_lab_math.py -q
"""

import json
import os
import re
import sys
from pathlib import Path

import lab_driver
import nbformat

sys.path.insert(0, str(lab_driver.REPO / "tools"))
import build_html  # noqa: E402

NOTEBOOK = "notebooks/00-start-here.ipynb"
SHOT = os.environ.get("ATTN_LAB_MATH_SHOT")  # a path: save a screenshot of the cell there (to look at)


def test_jupyterlab_typesets_the_formulas_of_00_with_its_bundled_mathjax(lab, page):
    outside = []

    def refuse_outside(route):
        if route.request.url.startswith((lab.url, "data:", "blob:", "about:")):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", refuse_outside)
    nb = nbformat.read(lab_driver.REPO / NOTEBOOK, as_version=4)
    index, cell = next((i, c) for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and "$$" in c.source)
    expected = build_html.formulas(cell.source)
    page.goto(f"{lab.url}/lab/tree/{NOTEBOOK}?reset", wait_until="domcontentloaded")
    page.wait_for_function(
        "i => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
        " return w && w.content && w.content.widgets.length > i; }", arg=index, timeout=120_000)
    page.evaluate("i => window.jupyterapp.shell.currentWidget.content.scrollToItem(i, 'start')", index)
    selector = f".jp-Notebook .jp-Cell:nth-child({index + 1}) .jp-RenderedMarkdown"
    page.wait_for_function(
        "([sel, n]) => { const e = document.querySelector(sel);"
        " return e && e.querySelectorAll('mjx-container').length >= n; }", arg=[selector, len(expected)],
        timeout=60_000)
    found = page.evaluate("""sel => {
        const e = document.querySelector(sel);
        const containers = Array.from(e.querySelectorAll('mjx-container'));
        const copy = e.cloneNode(true);
        copy.querySelectorAll('mjx-container').forEach(m => m.remove());
        return {count: containers.length,
                assistive: containers.filter(m => m.querySelector('mjx-assistive-mml math')).length,
                display: containers.filter(m => m.getAttribute('display') === 'true').length,
                drawn: containers.filter(m => m.getBoundingClientRect().width > 0).length,
                text: copy.textContent};
    }""", selector)
    if SHOT:
        page.locator(selector).screenshot(path=SHOT)
    assert found["count"] == len(expected), found
    assert found["assistive"] == found["drawn"] == len(expected), found
    assert found["display"] == len(re.findall(r"\$\$", cell.source)) // 2
    assert "$" not in found["text"] and "\\sqrt" not in found["text"]
    assert outside == [], f"JupyterLab asked for files outside the server: {outside}"


def test_the_math_renderer_is_the_bundled_mathjax_3():
    """JupyterLab's third-party licences name the mathjax-full it bundles (3.2.2 with JupyterLab 4.6)."""
    licences = Path(sys.prefix) / "share" / "jupyter" / "lab" / "static" / "third-party-licenses.json"
    packages = {p["name"]: p["versionInfo"] for p in json.loads(licences.read_text())["packages"]}
    assert packages["mathjax-full"].startswith("3.") and "@jupyterlab/mathjax-extension" in packages
