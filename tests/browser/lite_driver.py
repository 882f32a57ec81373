"""Drive the browser edition (the JupyterLite site that tools/build_lite.py writes) in headless Chromium, offline.

Used by tests/browser/test_lite.py and benchmarks/lite_speed.py. The site is served from 127.0.0.1 by a static file
server in a thread; every request the page makes to any other address is refused and recorded (``Offline.refused``),
both by the browser's resolver (no name resolves but 127.0.0.1) and by Playwright's router.
"""

from __future__ import annotations

import http.server
import json
import mimetypes
import re
import socketserver
import sys
import threading
import time
from pathlib import Path

import lab_driver

REPO = lab_driver.REPO
SITE = REPO / "build" / "lite"
# No name resolves to anything but 127.0.0.1, so nothing can leave the machine even past the router.
OFFLINE_ARGS = [*lab_driver.CHROMIUM_ARGS, "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"]


def build_site(site: Path = SITE) -> Path:
    """Build the site with the project's tool (into build/lite), unless ATTN_LITE_SITE names a built one."""
    sys.path.insert(0, str(REPO / "tools"))
    import build_lite

    build_lite.build(out=site, working_tree=True)
    return site


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".wasm": "application/wasm",
                      ".mjs": "text/javascript", ".whl": "application/zip"}

    def __init__(self, request, client_address, server):
        super().__init__(request, client_address, server, directory=str(server.root))

    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    root = None  # the folder served, read by each request's handler

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a page that left before its file came
            super().handle_error(request, client_address)


class StaticSite:
    """The built site served on 127.0.0.1 (any free port) by a thread; ``serve(other)`` serves another build at the
    same origin (so the browser's storage of the first is kept, as when a teacher republishes); ``stop()`` ends it."""

    def __init__(self, site: Path = SITE):
        mimetypes.add_type("application/wasm", ".wasm")
        self.server = _Server(("127.0.0.1", 0), _Handler)
        self.serve(site)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def root(self) -> Path:
        """The site's folder, now served."""
        return self.server.root

    def serve(self, site: Path):
        self.server.root = Path(site)

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def launch_chromium(browser_type):
    """Chromium, offline; ``browser_type`` is ``playwright.chromium`` (or a launched browser's ``browser_type``)."""
    return browser_type.launch(executable_path=lab_driver.CHROMIUM, args=OFFLINE_ARGS, headless=True)


class Offline:
    """A browser context whose every request outside 127.0.0.1 is refused and recorded in ``refused``."""

    def __init__(self, browser, device_scale_factor=1):
        self.refused = []
        self.context = browser.new_context(viewport={"width": 1500, "height": 1100},
                                           device_scale_factor=device_scale_factor)
        # (service workers stay allowed: JupyterLite's serves the kernel's view of the files; the resolver rules
        # above keep its requests on 127.0.0.1 too)

        self.context.route("**/*", self._route)
        self.bytes_loaded = 0  # response bodies received by the page (what a learner's first visit downloads)
        self.context.on("requestfinished", self._count)
        self.page = self.context.new_page()
        self.page.errors = []
        self.page.on("pageerror", lambda error: self.page.errors.append(f"uncaught: {error}"))

    def _route(self, route):
        url = route.request.url
        if re.match(r"^(https?|wss?)://127\.0\.0\.1(:\d+)?/", url) or url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            self.refused.append(url)
            route.abort("blockedbyclient")

    def _count(self, request):
        try:
            self.bytes_loaded += max(0, request.sizes()["responseBodySize"])
        except Exception:  # noqa: BLE001 (a request whose sizes are gone with its page counts nothing)
            pass

    def close(self):
        self.context.close()


# The Pyodide kernel's worker (a script of the kernel's extension) replaced by an empty one: comlink's first call
# never answers, so the kernel stays "starting" and loads nothing; every other worker starts as usual.
_NO_KERNEL_JS = """
(() => {
  const Real = window.Worker;
  window.Worker = function (url, options) {
    const empty = URL.createObjectURL(new Blob([""], { type: "text/javascript" }));
    return new Real(String(url).includes("/pyodide-kernel-extension/") ? empty : url, options);
  };
  window.Worker.prototype = Real.prototype;
})();
"""


def without_kernels(context):
    """Pages of ``context`` open notebooks as a learner's do, but start no Pyodide kernel: for the tests of the
    front end alone (a saved copy's dialogs), which each kernel's start (about 30 CPU s on two cores, Pyodide and
    the kernel's packages loaded and imported) would only slow down. test_lite.py starts a kernel in every
    notebook."""
    context.add_init_script(_NO_KERNEL_JS)


def open_notebook(page, site_url, name, timeout_ms=120_000):
    """Open notebook ``name`` of the site in JupyterLite; wait until its kernel is idle. Returns the seconds from
    the navigation to a ready kernel (Pyodide loaded, the kernel's packages imported)."""
    start = time.monotonic()
    page.goto(f"{site_url}/lab/index.html?path={name}", wait_until="domcontentloaded")
    lab_driver.wait_for_idle_kernel(page, name, timeout_ms)
    return time.monotonic() - start


def run_all(page, timeout_ms=300_000):
    """Run All in the open notebook; wait until every code cell has run. Returns the seconds it took."""
    start = time.monotonic()
    lab_driver.run_all_cells(page, timeout_ms)
    return time.monotonic() - start


def cell_outputs(page):
    """Every code cell of the open notebook: (tags, outputs as nbformat JSON), in order."""
    return page.evaluate(
        """() => {
            const w = window.jupyterapp.shell.currentWidget;
            return w.content.widgets.filter(c => c.model.type === 'code').map(c => {
                const outputs = [];
                for (let i = 0; i < c.model.outputs.length; i++) outputs.push(c.model.outputs.get(i).toJSON());
                return [c.model.getMetadata('tags') || [], outputs];
            });
        }""")


def stored_outputs(path: Path):
    """The same as ``cell_outputs``, read from a notebook file."""
    cells = json.loads(path.read_text())["cells"]
    return [[c.get("metadata", {}).get("tags", []), c.get("outputs", [])] for c in cells if c["cell_type"] == "code"]


def scroll_to_explorer(page, kind, timeout_ms=30_000):
    """Bring the cell that shows explorer ``kind`` (source ``<kind>_explorer()``) into view: JupyterLab renders only
    the cells near the view of a long notebook (08), and hides the others."""
    page.evaluate(
        """async source => {
            const w = window.jupyterapp.shell.currentWidget;
            const index = w.content.widgets.findIndex(c => c.model.sharedModel.getSource().trim() === source);
            await w.content.scrollToItem(index, 'center');
        }""", f"{lab_driver.FUNCTIONS[kind]}()")
    page.wait_for_function(
        "sel => { const e = document.querySelector(sel); return e && e.offsetParent !== null; }",
        arg=lab_driver.explorer_selector(kind), timeout=timeout_ms)
