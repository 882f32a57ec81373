"""Drive JupyterLab in headless Chromium: start and stop a server, open a notebook, run it, read an explorer.

Used by the browser tests (conftest.py) and by benchmarks/browser_latency.py. Needs playwright (Python) and a
Chromium at ``CHROMIUM`` (Debian's /usr/bin/chromium; ``playwright install`` cannot download one here).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

# The notebook that shows each explorer, by kind (attn_lib.widgets.EXPLORERS): the factory is ``<kind>_explorer``,
# shown by a cell that is exactly ``<kind>_explorer()``, and its CSS class is ``attn-explorer-<kind>``.
EXPLORER_NOTEBOOKS = {
    "dk": "03-scaling.ipynb",
    "softmax": "04-softmax.ipynb",
    "mask": "06-masking.ipynb",
    "cost": "08-cost-memory-backward.ipynb",
    "replay": "09-attention-that-learns.ipynb",
    "trained": "10-a-trained-model.ipynb",
}
FUNCTIONS = {kind: f"{kind}_explorer" for kind in EXPLORER_NOTEBOOKS}


def notebook_paths():
    """kind -> path of the notebook to open, relative to the server's root (see ``course_files``).

    The course notebook when it exists; otherwise (while it is being written) a generated notebook that imports
    and shows the same explorer, under generated/.
    """
    paths = {}
    for kind, name in EXPLORER_NOTEBOOKS.items():
        real = REPO / "notebooks" / name
        paths[kind] = f"notebooks/{name}" if real.exists() else f"generated/{FUNCTIONS[kind]}.ipynb"
    return paths


def course_files():
    """What the test server's root holds: a copy of notebooks/ and a generated notebook per explorer."""
    files = {f"generated/{function}.ipynb": explorer_notebook(function) for function in FUNCTIONS.values()}
    if (REPO / "notebooks").is_dir():
        files["notebooks"] = REPO / "notebooks"
    return files


def missing_browser_tools():
    """A sentence saying what is missing to run the browser tests, or None when all is there."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright (Python) is not installed"
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        return f"no Chromium at {CHROMIUM} (set CHROMIUM, or apt-get install chromium)"
    return None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def explorer_notebook(function):
    """A minimal notebook (JSON text) that imports and shows one explorer, as the course notebooks do."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    notebook = new_notebook(cells=[
        new_code_cell(f"from attn_lib.widgets import {function}"),
        new_code_cell(f"{function}()"),
    ])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nbformat.writes(notebook)


class Lab:
    """A JupyterLab server on 127.0.0.1 in a temporary root; stop() ends it and removes the root.

    Parameters
    ----------
    files : dict of str -> pathlib.Path or str
        Path in the root -> a file or folder to copy there, or the text to write there. Copies, so that
        JupyterLab's autosave never touches the repository.
    pythonpath : str or pathlib.Path, optional
        A folder put first on the kernels' PYTHONPATH, before the repository (e.g. a git worktree of another
        commit, whose attn_lib the kernels then import).
    """

    def __init__(self, files, timeout=120, pythonpath=None):
        self.root = Path(tempfile.mkdtemp(prefix="attn-lab-"))
        for relative, source in files.items():
            target = self.root / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(source, Path) and source.is_dir():
                shutil.copytree(source, target, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
            elif isinstance(source, Path):
                shutil.copy(source, target)
            else:
                target.write_text(source)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [pythonpath and str(pythonpath), str(REPO),
                                                          env.get("PYTHONPATH")]))
        env["JUPYTER_CONFIG_DIR"] = str(self.root / ".jupyter-config")  # no user settings leak in
        # What Binder and the browser edition set (binder/postBuild, lite/overrides.json): JupyterLab saves the widgets'
        # state with a notebook (it draws them from a saved state whenever the notebook is trusted).
        widgets = self.root / ".jupyter-config/lab/user-settings/@jupyter-widgets/jupyterlab-manager"
        widgets.mkdir(parents=True)
        (widgets / "plugin.jupyterlab-settings").write_text('{"saveState": true}')
        self.log = open(self.root / "server.log", "wb")  # noqa: SIM115 (open while the server runs)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--allow-root", "--ServerApp.ip=127.0.0.1",
             f"--port={self.port}", "--IdentityProvider.token=", "--ServerApp.password=",
             "--LabApp.expose_app_in_browser=True", "--ServerApp.disable_check_xsrf=True", "--LabApp.news_url=None",
             "--ServerApp.port_retries=0", f"--ServerApp.root_dir={self.root}"],
            cwd=self.root, env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"jupyter lab exited with {self.process.returncode}; see {self.root}/server.log")
            try:
                with urllib.request.urlopen(f"{self.url}/api/status", timeout=2) as response:
                    json.load(response)
                break
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"jupyter lab did not answer within {timeout} s") from None
                time.sleep(0.3)

    def stop(self):
        """End the server and its kernels (the whole process group it leads), then remove its root."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=15)
        self.log.close()
        shutil.rmtree(self.root, ignore_errors=True)


def launch_chromium(playwright):
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)


def open_and_run(page, lab, name, timeout_ms=120_000):
    """Open notebook ``name`` in JupyterLab, wait for its kernel, run all cells and wait until all have run."""
    page.goto(f"{lab.url}/lab/tree/{name}?reset", wait_until="domcontentloaded")
    wait_for_idle_kernel(page, name, timeout_ms)
    run_all_cells(page, timeout_ms)


def open_and_run_explorer(page, lab, kind, timeout_ms=120_000):
    """Open the notebook that shows explorer ``kind`` and run what the explorer needs, in a fresh kernel: the
    notebook's first code cell (its imports) and the cell that is exactly ``<kind>_explorer()``. The other cells keep
    their stored outputs: nbval runs every cell of every notebook once per suite, and these tests are about the
    explorer in JupyterLab, not the notebook's other cells a second time. Returns the notebook's path."""
    name = notebook_paths()[kind]
    page.goto(f"{lab.url}/lab/tree/{name}?reset", wait_until="domcontentloaded")
    wait_for_idle_kernel(page, name, timeout_ms)
    assert run_imports_and(page, f"{FUNCTIONS[kind]}()", timeout_ms), \
        f"{name} has no cell that is exactly {FUNCTIONS[kind]}()"
    return name


def run_imports_and(page, source, timeout_ms=120_000):
    """In the open notebook (JupyterLab's or JupyterLite's), run its first code cell (its imports), then the cell
    whose source is exactly ``source``, each to its end, and wait until the kernel is idle. False (nothing run)
    when no cell is ``source``."""
    ran = page.evaluate(
        """async source => {
            const app = window.jupyterapp, notebook = app.shell.currentWidget.content;
            const code = notebook.widgets.map((c, i) => [c, i]).filter(([c]) => c.model.type === 'code');
            const wanted = code.find(([c]) => c.model.sharedModel.getSource().trim() === source);
            if (!wanted) return false;
            for (const index of [code[0][1], wanted[1]]) {
                notebook.deselectAll();
                notebook.activeCellIndex = index;
                await app.commands.execute('notebook:run-cell');  // resolves once the cell has run
            }
            return true;
        }""", source)
    if ran:
        page.wait_for_function(
            "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status === 'idle'",
            timeout=timeout_ms, polling=200)
    return ran


def wait_for_idle_kernel(page, name, timeout_ms):
    """Wait until notebook ``name`` is the current widget, its cells are there and its kernel is idle (JupyterLab
    and JupyterLite alike: both expose ``window.jupyterapp``)."""
    page.wait_for_function(
        """name => {
            const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
            const k = w && w.context && w.context.path === name && w.sessionContext.session
                      && w.sessionContext.session.kernel;
            return k && k.status === 'idle' && w.content.widgets.length > 0;
        }""", arg=name, timeout=timeout_ms)


def run_all_cells(page, timeout_ms):
    """Run All in the current notebook; wait until every code cell has run and the kernel is idle."""
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_function(
        """() => {
            const w = window.jupyterapp.shell.currentWidget;
            const code = w.content.widgets.filter(c => c.model.type === 'code');
            const busy = w.sessionContext.session.kernel.status !== 'idle';
            // a cell JupyterLab has not rendered (out of view, or with its input collapsed) has no prompt node
            const running = c => Boolean(c.promptNode) && c.promptNode.textContent === '[*]:';
            return !busy && code.every(c => c.model.executionCount !== null && !running(c));
        }""", timeout=timeout_ms, polling=200)


def error_outputs(page):
    """Text of every error output (a traceback, or stderr) in the open notebook, except in the cells that are
    meant to raise (tagged ``raises-exception`` or marked ``# NBVAL_RAISES_EXCEPTION``)."""
    return page.evaluate(
        """() => {
            const w = window.jupyterapp.shell.currentWidget;
            const found = [];
            for (const cell of w.content.widgets) {
                if (cell.model.type !== 'code') continue;
                const tags = cell.model.getMetadata('tags') || [];
                const source = cell.model.sharedModel.getSource();
                if (tags.includes('raises-exception') || source.startsWith('# NBVAL_RAISES_EXCEPTION')) continue;
                const outputs = cell.model.outputs;
                for (let i = 0; i < outputs.length; i++) {
                    const o = outputs.get(i).toJSON();
                    if (o.output_type === 'error') found.push(o.ename + ': ' + o.evalue);
                    if (o.output_type === 'stream' && o.name === 'stderr') found.push('stderr: ' + o.text);
                }
            }
            return found;
        }""")


# In-page helpers: a checksum of the explorer's figure pixels, and its readout text.
FIGURE_CANVAS = ".attn-figure canvas"  # the canvas attn_lib/widgets/explorer.js draws on
PAGE_HELPERS = """
window.attnFigureSum = (sel) => {
    const canvas = document.querySelector(sel + ' .attn-figure canvas');
    if (!canvas || canvas.width === 0) return null;
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let a = 1, b = 0;
    for (let i = 0; i < data.length; i += 1) { a = (a + data[i]) % 65521; b = (b + a) % 65521; }
    return b * 65536 + a;
};
window.attnFigureDrawn = (sel) => {  // the canvas is transparent until the first frame is drawn
    const canvas = document.querySelector(sel + ' .attn-figure canvas');
    if (!canvas || canvas.width === 0) return false;
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) return true;
    return false;
};
window.attnReadout = (sel) => {
    const el = document.querySelector(sel + ' .attn-readout');
    return el ? el.textContent : null;
};
"""


def explorer_selector(kind):
    return f".attn-explorer-{kind}"


def wait_for_figure(page, kind, timeout_ms=60_000):
    """Wait until the explorer's canvas shows a drawn figure (a non-blank image); return its checksum."""
    selector = explorer_selector(kind)
    page.wait_for_selector(f"{selector} {FIGURE_CANVAS}", timeout=timeout_ms)
    page.evaluate(PAGE_HELPERS)
    page.wait_for_function("sel => window.attnFigureDrawn(sel)", arg=selector, timeout=timeout_ms, polling=100)
    return page.evaluate("sel => window.attnFigureSum(sel)", selector)


def focus_main_control(page, kind):
    """Put keyboard focus on the explorer's main control (a range input, or the checked radio button of its group);
    return how it moves: "slider" or "radio"."""
    selector = explorer_selector(kind)
    slider = page.locator(f"{selector} .attn-main-control input[type=range]")
    if slider.count():
        slider.first.focus()
        return "slider"
    page.locator(f"{selector} .attn-main-control input[type=radio]:checked").first.focus()
    return "radio"


# The keys that move a main control one step, and to its end (radio buttons of one group: the arrow keys move the
# choice, and wrap around at the ends).
STEP_KEYS = {"slider": ["ArrowRight"], "radio": ["ArrowDown"]}
END_KEYS = {"slider": ["End"], "radio": ["ArrowUp"]}


def main_control_value(page, kind):
    """What the main control shows: a slider's output, or the label of the checked radio button."""
    return page.evaluate(
        """sel => {
            const c = document.querySelector(sel + ' .attn-main-control');
            const output = c.querySelector('output');
            if (output) return output.textContent;
            const radio = c.querySelector('input[type=radio]:checked');
            return radio ? radio.parentElement.textContent.trim() : null;
        }""", explorer_selector(kind))


def key_to_pixels_ms(page, kind, key, timeout_ms=10_000):
    """Press ``key`` (the focus must be on a control); return the milliseconds from the keydown event to the first
    animation frame that shows new figure pixels, and to the first frame whose readout text differs (each None if
    it did not change within ``timeout_ms``; the wait ends when both have changed, whichever comes first).

    The explorer's module draws a frame on its canvas and then fires "attn-paint" on it; at the next animation
    frame the pixels are compared once with those before the press. (Hashing the whole canvas at every frame
    instead would add its own cost to what is measured: four times as much at a device pixel ratio of 2.)
    """
    page.evaluate(
        """([sel, timeout]) => {
            const canvas = document.querySelector(sel + ' .attn-figure canvas');
            const before = window.attnFigureSum(sel), readout = window.attnReadout(sel);
            let pressed = null, text = null, pixels = null, done = false;
            document.addEventListener('keydown', () => { pressed = performance.now(); },
                                      {capture: true, once: true});
            window.attnLatency = new Promise(resolve => {
                const onPaint = () => {
                    if (pressed === null) return;
                    requestAnimationFrame(() => {
                        const now = performance.now();
                        if (text === null && window.attnReadout(sel) !== readout) text = now - pressed;
                        if (pixels === null && window.attnFigureSum(sel) !== before) pixels = now - pressed;
                        if (pixels !== null && text !== null) finish([pixels, text]);
                    });
                };
                const finish = (value) => {
                    if (!done) { done = true; canvas.removeEventListener('attn-paint', onPaint); resolve(value); }
                };
                canvas.addEventListener('attn-paint', onPaint);
                const poll = () => {  // the readout, and the timeout
                    if (done) return;
                    if (pressed !== null) {
                        const now = performance.now();
                        if (text === null && window.attnReadout(sel) !== readout) text = now - pressed;
                        if (pixels !== null && text !== null) { finish([pixels, text]); return; }
                        if (now - pressed > timeout) { finish([pixels, text]); return; }
                    }
                    requestAnimationFrame(poll);
                };
                requestAnimationFrame(poll);
            });
        }""", [explorer_selector(kind), timeout_ms])
    page.keyboard.press(key)
    return tuple(page.evaluate("() => window.attnLatency"))


def wait_until_settled_elsewhere(page, kind, figure, readout, quiet_ms=300, timeout_ms=30_000):
    """Wait until both the figure's pixels and the readout differ from ``figure`` and ``readout`` and have held still
    for ``quiet_ms``; return the settled (figure, readout), which equal the old ones only if the wait timed out.

    A redraw can pass through frames in between (a cleared canvas, a partial image) and a loaded machine can hold one
    of them still for longer than ``quiet_ms``: a frame that returns to the old picture does not end the wait."""
    return tuple(page.evaluate(
        """([sel, oldFigure, oldText, quiet, timeout]) => new Promise(resolve => {
            const start = performance.now();
            let last = [window.attnFigureSum(sel), window.attnReadout(sel)], since = start;
            const poll = () => {
                const now = performance.now(), state = [window.attnFigureSum(sel), window.attnReadout(sel)];
                if (state[0] !== last[0] || state[1] !== last[1]) { last = state; since = now; }
                const away = last[0] !== oldFigure && last[1] !== oldText;
                if ((away && now - since >= quiet) || now - start > timeout) { resolve(last); return; }
                requestAnimationFrame(poll);
            };
            requestAnimationFrame(poll);
        })""", [explorer_selector(kind), figure, readout, quiet_ms, timeout_ms]))


def wait_until_settled(page, kind, quiet_ms=600, timeout_ms=20_000):
    """Wait until the figure's pixels and the readout have not changed for ``quiet_ms``; return the time waited."""
    return page.evaluate(
        """([sel, quiet, timeout]) => new Promise(resolve => {
            const start = performance.now();
            let last = [window.attnFigureSum(sel), window.attnReadout(sel)], since = start;
            const poll = () => {
                const now = performance.now(), state = [window.attnFigureSum(sel), window.attnReadout(sel)];
                if (state[0] !== last[0] || state[1] !== last[1]) { last = state; since = now; }
                if (now - since >= quiet || now - start > timeout) { resolve(since - start); return; }
                requestAnimationFrame(poll);
            };
            requestAnimationFrame(poll);
        })""", [explorer_selector(kind), quiet_ms, timeout_ms])
