"""The browser edition (tools/build_lite.py), offline in headless Chromium: every notebook runs whole, its text
outputs are the stored ones but for named version differences, every explorer answers a key press.

The site is built once per run (conftest.py's lite_site_of_the_course; ATTN_LITE_SITE=DIR uses a site already built
there), served
from 127.0.0.1, and every request to any other address is refused and fails the test that made it.

Run: python -m pytest tests/browser/test_lite.py -q
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import lab_driver
import lite_driver
import pytest
from conftest import require_browser

sys.path.insert(0, str(lab_driver.REPO / "tools"))
import nav  # noqa: E402

COURSE = nav.load_course()
ENTRIES = nav.course_entries(lab_driver.REPO / "notebooks", COURSE)
IN_BROWSER = [e.name for e in ENTRIES if nav.runs_in_browser(COURSE, e)]
AWAY = [e.name for e in ENTRIES if not nav.runs_in_browser(COURSE, e)]
EXPLORER_OF = {name: kind for kind, name in lab_driver.EXPLORER_NOTEBOOKS.items() if name in IN_BROWSER}
ANYWIDGET_AFTER = IN_BROWSER[0]  # the notebook whose kernel, after its Run All, also shows a minimal anywidget


@pytest.fixture(scope="session")
def site(lite_site_of_the_course):
    require_browser()
    server = lite_driver.StaticSite(lite_site_of_the_course)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def lite_browser(chromium):
    """A second headless Chromium, from the session's Playwright, whose resolver knows 127.0.0.1 only (the
    JupyterLab tests' one resolves names as usual)."""
    browser = lite_driver.launch_chromium(chromium.browser_type)
    yield browser
    browser.close()


@pytest.fixture
def offline(lite_browser):
    context = lite_driver.Offline(lite_browser)
    yield context
    context.close()


# ---------------------------------------------------------------------------------------------------------------
# The normaliser: what the browser's versions print differently, each difference named. Applied to the stored
# CPython outputs and to the browser's alike, after the suite's own nbval sanitizer (tests/nbval_sanitize.cfg).

VERSION_DIFFERENCES = [
    # (name, pattern, replacement) for each difference that the browser's versions (numpy 2.0.2, matplotlib 3.8.4,
    # Python 3.12) print differently from the CPython run the notebooks store. None today: every nbval-checked
    # output of 00-09 matched as stored (the notebooks print formatted numbers, not numpy reprs, and matplotlib's
    # "<Figure size WxH with N Axes>" reads the same). Add a named entry here when a version change makes one differ.
]


def nbval_sanitizers():
    """The (regex, replacement) pairs of tests/nbval_sanitize.cfg, as nbval reads them."""
    pairs, regex = [], None
    for line in (lab_driver.REPO / "tests" / "nbval_sanitize.cfg").read_text().splitlines():
        if line.startswith("regex:"):
            regex = line[len("regex:"):].strip()
        elif line.startswith("replace:") and regex is not None:
            pairs.append((re.compile(regex), line[len("replace:"):].strip()))
            regex = None
    return pairs


SANITIZERS = nbval_sanitizers()


def normalise(text: str) -> str:
    for pattern, replacement in SANITIZERS:
        text = pattern.sub(replacement, text)
    for _, pattern, replacement in VERSION_DIFFERENCES:
        text = pattern.sub(replacement, text)
    return text


def compared(outputs) -> list[str]:
    """The texts nbval compares in a cell's outputs: streams, and the text/plain and text/html of results and
    displays (never an image, never a widget view), each normalised."""
    texts = []
    for output in outputs:
        kind = output.get("output_type")
        if kind == "stream":
            text = output["text"]
            texts.append(f"{output['name']}: " + normalise("".join(text) if isinstance(text, list) else text))
        elif kind in ("execute_result", "display_data"):
            data = output.get("data", {})
            if "application/vnd.jupyter.widget-view+json" in data:
                continue
            for mime in ("text/plain", "text/html"):
                if mime in data:
                    value = data[mime]
                    texts.append(f"{mime}: " + normalise("".join(value) if isinstance(value, list) else value))
        elif kind == "error":
            texts.append(f"error: {output['ename']}")
    return texts


def nbval_checked(tags) -> bool:
    return not ({"nbval-ignore-output", "nbval-skip", "raises-exception"} & set(tags))


# ---------------------------------------------------------------------------------------------------------------


def test_site_serves_everything_itself(site):
    """jupyter-lite.json names no outside URL and turns the PyPI fallback off; every wheel matches the lock."""
    sys.path.insert(0, str(lab_driver.REPO / "tools"))
    import build_lite

    root = site.root
    assert build_lite.check_site(root) == []
    assert (root / "favicon.ico").read_bytes()[:4] == b"\x00\x00\x01\x00"  # an icon where a browser asks for one
    names = sorted(p.name for p in (root / "files").glob("*.ipynb"))
    assert names == sorted([*IN_BROWSER, *AWAY, "contents.ipynb", nav.REVIEW])
    # What the kernel's worker installs one by one when it starts (its initKernel's list, and micropip and piplite
    # before it), the site has Pyodide load at once: each is in the kernel's loadPyodideOptions and in the lock.
    worker = "".join(p.read_text() for p in (root / "extensions").rglob("*.js") if "async initKernel" in p.read_text())
    listed = re.search(r"async initKernel\(\w+\)\{.{0,300}?=(\[\"[^\]]*\])", worker, re.S)  # its first list of names
    assert listed, "the kernel's worker has no initKernel list of the packages it installs (a new kernel version?)"
    installs = {"micropip", "piplite", *json.loads(listed.group(1))}
    config = json.loads((root / "jupyter-lite.json").read_text())["jupyter-config-data"]
    preloaded = config["litePluginSettings"][build_lite.KERNEL_PLUGIN]["loadPyodideOptions"]["packages"]
    assert installs <= set(preloaded), f"the kernel installs {sorted(installs - set(preloaded))} itself"
    for name in AWAY:  # a page saying where it runs, with no code to fail
        cells = json.loads((root / "files" / name).read_text())["cells"]
        assert all(c["cell_type"] == "markdown" for c in cells)
        text = "".join("".join(c["source"]) for c in cells)
        assert "mybinder.org" in text and "two commands" in text
    for name in [*IN_BROWSER, nav.REVIEW]:  # the course's notebooks as committed, each stamped with the course version
        site_nb = json.loads((root / "files" / name).read_text(encoding="utf-8"))
        stamp = site_nb["metadata"].pop("attn_course")
        committed = json.loads((lab_driver.REPO / "notebooks" / name).read_text(encoding="utf-8"))
        committed["metadata"].update(build_lite.LITE_KERNEL_METADATA)  # the browser's kernel, so opening is no edit
        assert site_nb == committed, name
        assert stamp["fingerprint"] == build_lite.fingerprint(committed) and stamp["version"], name


@pytest.mark.parametrize("name", [*IN_BROWSER, nav.REVIEW])
def test_notebook_runs_whole_offline_with_its_stored_outputs_and_its_explorer_answers(site, offline, name):
    """Opening it marks nothing modified; Run All goes to the end (past the deliberate errors), no error output
    elsewhere, the nbval-checked text outputs equal the stored ones (normalised), no request leaves 127.0.0.1; the
    notebook's explorer, if it has one, answers a key press with new pixels and a new readout; after the first
    notebook, a minimal anywidget renders in a cell added to it. (One Run All per notebook: 09's takes minutes.)"""
    page = offline.page
    lite_driver.open_notebook(page, site.url, name)
    assert not page.evaluate("() => window.jupyterapp.shell.currentWidget.context.model.dirty"), \
        "opened, not edited, and marked modified"
    lite_driver.run_all(page)
    assert lab_driver.error_outputs(page) == []
    got = lite_driver.cell_outputs(page)
    stored = lite_driver.stored_outputs(lab_driver.REPO / "notebooks" / name)
    assert len(got) == len(stored)
    for index, ((tags, outputs), (_, stored_cell)) in enumerate(zip(got, stored)):
        if "raises-exception" in tags:  # the deliberate error is shown, and Run All went on past it
            assert any(o.get("output_type") == "error" for o in outputs), f"code cell {index} raised nothing"
        elif nbval_checked(tags):
            assert compared(outputs) == compared(stored_cell), f"{name}, code cell {index}"
    if name in EXPLORER_OF:
        explorer_answers_a_key_press(page, EXPLORER_OF[name])
    if name == ANYWIDGET_AFTER:  # in this kernel rather than a kernel of its own (a start costs about 30 CPU s)
        an_anywidget_renders(page)
    assert lab_driver.error_outputs(page) == []
    assert offline.refused == [], f"requests outside 127.0.0.1: {offline.refused}"
    assert page.errors == []


def explorer_answers_a_key_press(page, kind):
    """One step (an arrow key on a slider: JupyterLab 4.4's cell-navigation shortcuts took the arrows from widgets
    until lite/overrides.json), then the end: each time new pixels and a new readout."""
    selector = lab_driver.explorer_selector(kind)
    lite_driver.scroll_to_explorer(page, kind)
    lab_driver.wait_for_figure(page, kind)
    how = lab_driver.focus_main_control(page, kind)
    for keys in (lab_driver.STEP_KEYS[how], lab_driver.END_KEYS[how]):
        lab_driver.wait_until_settled(page, kind, quiet_ms=300)
        figure = page.evaluate("s => window.attnFigureSum(s)", selector)
        readout = page.evaluate("s => window.attnReadout(s)", selector)
        value = lab_driver.main_control_value(page, kind)
        for key in keys:
            page.keyboard.press(key)
        page.wait_for_function(
            "([sel, sum, text]) => window.attnFigureSum(sel) !== sum && window.attnReadout(sel) !== text",
            arg=[selector, figure, readout], timeout=30_000, polling=50)
        assert lab_driver.main_control_value(page, kind) != value, f"{keys} did not move the {kind} explorer"


# A minimal anywidget: its front end one ES module, inline in `_esm`, that writes the model's text into its element.
# It renders only if the site's lock has anywidget (the kernel) and the site has anywidget's extension (the front
# end), of one version: without the extension, the view says "No version of module anywidget is registered".
ANYWIDGET_CELL = """import anywidget, traitlets

class Hello(anywidget.AnyWidget):
    _esm = '''export default { render({ model, el }) {
        el.className = "attn-anywidget-probe";
        el.textContent = model.get("text");
    } };'''
    text = traitlets.Unicode("written by an ES module").tag(sync=True)

Hello()"""


def an_anywidget_renders(page, timeout_ms=60_000):
    """Add ANYWIDGET_CELL at the end of the open notebook, run it, and wait for its view: the module's text in the
    cell's output, and no error there."""
    page.evaluate(
        """async source => {
            const app = window.jupyterapp, notebook = app.shell.currentWidget.content;
            notebook.deselectAll();
            notebook.activeCellIndex = notebook.widgets.length - 1;
            await app.commands.execute('notebook:insert-cell-below');
            notebook.activeCell.model.sharedModel.setSource(source);
            await app.commands.execute('notebook:run-cell');
        }""", ANYWIDGET_CELL)
    shown = page.wait_for_function(
        """() => {
            const cell = window.jupyterapp.shell.currentWidget.content.activeCell;
            const probe = cell.node.querySelector('.jp-OutputArea .attn-anywidget-probe');
            if (probe) return probe.textContent;
            const failed = cell.node.querySelector('.jp-OutputArea .jupyter-widgets-error-widget');
            if (failed && failed.classList.contains('icon-error')) failed.parentElement.click();  // shows why
            if (failed && failed.classList.contains('text-error')) return failed.textContent;
            for (let i = 0; i < cell.model.outputs.length; i++) {
                const output = cell.model.outputs.get(i).toJSON();
                if (output.output_type === 'error') return `${output.ename}: ${output.evalue}`;
            }
            return false;
        }""", timeout=timeout_ms, polling=200).json_value()
    assert shown == "written by an ES module", f"the anywidget did not render: {shown!r}"


# Python run under Node in the site's own Pyodide, with the site's attn_lib wheel: one start of Pyodide for every
# program below (a start costs several CPU seconds), each program in a namespace of its own, in the order given;
# each program's last expression is a JSON string, and a program that raises gives {"error": its traceback}.
PYODIDE_JS = """
const fs = require("fs");
const path = require("path");
const [dir, programs] = process.argv.slice(2);
const { loadPyodide } = require(path.join(dir, "pyodide.js"));
(async () => {
  const py = await loadPyodide({ indexURL: dir + "/", stdout: () => {}, stderr: () => {} });
  await py.loadPackage(["attn-lib", "numpy"], { messageCallback: () => {}, errorCallback: () => {} });
  const results = [];
  for (const file of JSON.parse(fs.readFileSync(programs, "utf8"))) {
    try {
      results.push(JSON.parse(py.runPython(fs.readFileSync(file, "utf8"), { globals: py.globals.get("dict")() })));
    } catch (error) {
      results.push({ error: String(error) });
    }
  }
  process.stdout.write(JSON.stringify(results));
})();
"""

# The compiled bytecode the site carries beside its wheels (tools/build_lite.py, bytecode_wheels): an import in the
# browser's Python compiles none of the modules a notebook's first cells load, and still compiles a module the site
# carries no bytecode for (fontTools.agl: matplotlib's dependency, imported by no notebook). First: nothing imported
# yet.
COMPILED_AT_IMPORT = """
import importlib.machinery, json
compiled = []
source_to_code = importlib.machinery.SourceFileLoader.source_to_code
def counting(self, data, path, **kwargs):
    compiled.append(path)
    return source_to_code(self, data, path, **kwargs)
importlib.machinery.SourceFileLoader.source_to_code = counting
import numpy, matplotlib.pyplot, attn_lib, attn_lib.exercises, attn_lib.review, attn_lib.training
first_cells = list(compiled)
import fontTools.agl
importlib.machinery.SourceFileLoader.source_to_code = source_to_code
json.dumps({"first_cells": first_cells, "then": compiled[len(first_cells):]})
"""

# A variant's seed gives the same numbers in the browser's Python as in CPython (random.Random seeded with a string),
# so a teacher can see what a learner saw.
VARIANTS = """
import json
from attn_lib.exercises._problem_book import PREDICTIONS
json.dumps({pid: [[p.variant(seed).text, p.variant(seed).check(1).mistake] for seed in range(12)]
            for pid, p in PREDICTIONS.items() if p.has_variants})
"""

# The checkers' time limit in the browser's own Python: Pyodide has no signals, so the runner keeps the limit with a
# trace function (attn_lib.exercises._running). Last: it shortens the limit.
TIME_LIMIT = """
import json, sys, time
import numpy as np
from attn_lib.exercises import _running, check_softmax
_running.TIME_LIMIT = 0.5
def forever(x):
    while True:
        pass
def right(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
start = time.monotonic()
stopped = check_softmax(forever)
json.dumps({"platform": sys.platform, "signals": _running.SIGNALS, "mistake": stopped.mistake,
            "seconds": time.monotonic() - start, "right": check_softmax(right).passed,
            "tracer_left": sys.gettrace() is not None})
"""

# A course id stated once in the browser's Python (set_student_id, kept beside the record) gives that student's
# numbers to the statements and checks of every notebook, as in CPython.
STATED_ID = """
import json, os
os.environ["ATTN_COURSE_RECORD"] = "/home/pyodide/course/attn-course-record.json"
from attn_lib.exercises import set_student_id
from attn_lib.exercises._problem_book import PREDICTIONS, current_seed, statement_output
before = current_seed(PREDICTIONS["02-P3"])
set_student_id("ada")
after = {pid: current_seed(PREDICTIONS[pid]) for pid in ("02-P3", "05-P2")}
shown = statement_output("02-P3", after["02-P3"], "ada")[0]["text/markdown"]
json.dumps({"before": before, "after": after, "kept": os.listdir("/home/pyodide/course"), "shown": shown})
"""

PROGRAMS = {"compiled": COMPILED_AT_IMPORT, "variants": VARIANTS, "time limit": TIME_LIMIT, "stated id": STATED_ID}


@pytest.fixture(scope="module")
def in_browsers_python(site, tmp_path_factory):
    """name -> what each program of PROGRAMS gives in the site's Pyodide under Node."""
    import shutil
    import subprocess

    node = shutil.which("node")
    assert node, "Node.js runs the site's Pyodide here: apt-get install nodejs (.ci/run does)"
    folder = tmp_path_factory.mktemp("browsers-python")
    (folder / "run.js").write_text(PYODIDE_JS)
    files = []
    for index, code in enumerate(PROGRAMS.values()):
        files.append(str(folder / f"program-{index}.py"))
        Path(files[-1]).write_text(code)
    (folder / "programs.json").write_text(json.dumps(files))
    done = subprocess.run([node, str(folder / "run.js"), str(site.root / "static" / "pyodide"),
                           str(folder / "programs.json")], capture_output=True, text=True, timeout=300, check=True)
    return dict(zip(PROGRAMS, json.loads(done.stdout)))


def test_a_notebooks_imports_take_the_sites_bytecode_and_compile_nothing(in_browsers_python):
    result = in_browsers_python["compiled"]
    assert "error" not in result, result
    assert result["first_cells"] == [], result["first_cells"][:5]
    assert result["then"] and all("/fontTools/" in path for path in result["then"]), result["then"]


def test_a_variants_seed_gives_the_same_numbers_and_verdicts_in_the_browsers_python(in_browsers_python):
    from attn_lib.exercises._problem_book import PREDICTIONS

    in_browser = in_browsers_python["variants"]
    here = {pid: [[p.variant(seed).text, p.variant(seed).check(1).mistake] for seed in range(12)]
            for pid, p in PREDICTIONS.items() if p.has_variants}
    assert len(here) >= 20 and in_browser == here


def test_the_checkers_stop_an_endless_loop_in_the_browsers_python(in_browsers_python):
    result = in_browsers_python["time limit"]
    assert result.get("platform") == "emscripten" and result["signals"] is False, result
    assert result["mistake"] == "too-slow" and result["seconds"] < 30, result
    assert result["right"] and not result["tracer_left"], result


def test_a_stated_course_id_sets_the_numbers_in_the_browsers_python(in_browsers_python):
    from attn_lib.exercises._problem_book import PREDICTIONS, student_seed

    result = in_browsers_python["stated id"]
    assert "error" not in result, result
    ada = {pid: student_seed("ada", name) for pid, name in (("02-P3", "02-scores"), ("05-P2", "05-weighted-average"))}
    assert result["before"] == 0 and result["after"] == ada
    assert "attn-course-record.student-id.txt" in result["kept"]
    assert PREDICTIONS["02-P3"].variant(ada["02-P3"]).text in result["shown"]
