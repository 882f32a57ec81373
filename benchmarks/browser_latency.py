"""Key press to new pixels: the d_k explorer in JupyterLab in headless Chromium (target: median <= 150 ms).

Starts JupyterLab on a free port of 127.0.0.1 with a generated notebook (``explorer = dk_explorer(); explorer``),
opens it in Chromium through Playwright, focuses the d_k slider and presses arrow keys. For each press the page
measures, with requestAnimationFrame, the time from the keydown event to the first frame whose figure pixels differ
(and to the first frame whose readout text differs). The same presses are then timed with blitting switched off
(every change a full redraw, as ``draw_idle`` alone would do), and the ratio is printed.

Backlog: ten presses sent as fast as Playwright types them (d_k from 1 to 1024); the kernel counts its updates,
and the time from the last keydown to the final figure is compared with one press's median.

Run: python benchmarks/browser_latency.py [--presses N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "browser"))
import lab_driver

NOTEBOOK = "dk.ipynb"


def notebook_text():
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    notebook = new_notebook(cells=[new_code_cell("from attn_lib.widgets import dk_explorer"),
                                   new_code_cell("explorer = dk_explorer()\nexplorer")])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nbformat.writes(notebook)


def kernel(page, code):
    """Run ``code`` in the notebook's kernel (not as a cell) and return what it printed."""
    return page.evaluate(
        """async code => {
            const k = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
            let out = '';
            const future = k.requestExecute({code, silent: false, store_history: false});
            future.onIOPub = msg => { if (msg.header.msg_type === 'stream') out += msg.content.text; };
            await future.done;
            return out;
        }""", code)


def press_series(page, presses):
    """Latencies (ms) of ``presses`` single presses, back and forth between d_k = 64 and 1024 (start at 64)."""
    to_pixels, to_readout = [], []
    for i in range(presses):
        key = "ArrowRight" if (i // 4) % 2 == 0 else "ArrowLeft"
        lab_driver.wait_until_settled(page, "dk", quiet_ms=250)
        pixels, readout = lab_driver.key_to_pixels_ms(page, "dk", key)
        if pixels is None:
            raise RuntimeError(f"press {i} ({key}) changed no pixel within 10 s")
        to_pixels.append(pixels)
        to_readout.append(readout if readout is not None else float("nan"))
    return to_pixels, to_readout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=16, help="timed presses per mode (a multiple of 8)")
    args = parser.parse_args()
    if args.presses % 8:
        parser.error("--presses must be a multiple of 8 (four steps up from d_k = 64, four back)")
    missing = lab_driver.missing_browser_tools()
    if missing:
        sys.exit(f"cannot run: {missing}")
    from playwright.sync_api import sync_playwright

    lab = lab_driver.Lab({NOTEBOOK: notebook_text()})
    try:
        with sync_playwright() as playwright:
            browser = lab_driver.launch_chromium(playwright)
            page = browser.new_page(viewport={"width": 1500, "height": 1100})
            lab_driver.open_and_run(page, lab, NOTEBOOK)
            lab_driver.wait_for_figure(page, "dk")
            lab_driver.focus_main_control(page, "dk")
            press_series(page, 8)  # warm up (fonts, caches, the first diff images); back at d_k = 64

            rows = {}
            for mode, blit in (("blit (default)", True), ("full redraw", False)):
                kernel(page, f"explorer.blit = {blit}")
                lab_driver.focus_main_control(page, "dk")
                rows[mode] = press_series(page, args.presses)
            kernel(page, "explorer.blit = True")

            # Backlog: 10 presses at once, from d_k = 1 to 1024.
            lab_driver.focus_main_control(page, "dk")
            page.keyboard.press("Home")
            page.wait_for_function("s => window.attnReadout(s).startsWith('d_k: 1 ')", arg=".attn-explorer-dk")
            lab_driver.wait_until_settled(page, "dk", quiet_ms=400)
            before = int(kernel(page, "print(explorer.updates)"))
            page.evaluate("""() => { window.attnKeys = [];
                document.addEventListener('keydown', () => window.attnKeys.push(performance.now()), {capture: true});
            }""")
            started = time.perf_counter()
            for _ in range(10):
                page.keyboard.press("ArrowRight")
            typed = time.perf_counter() - started
            page.wait_for_function("s => window.attnReadout(s).startsWith('d_k: 1024 ')", arg=".attn-explorer-dk",
                                   timeout=30_000)
            settle_started = page.evaluate("() => performance.now()")
            waited = lab_driver.wait_until_settled(page, "dk", quiet_ms=600)
            last_change = settle_started + waited
            last_key = page.evaluate("() => window.attnKeys[window.attnKeys.length - 1]")
            after = int(kernel(page, "print(explorer.updates)"))
            browser.close()
    finally:
        lab.stop()

    print(f"d_k explorer in JupyterLab + headless Chromium, {args.presses} single presses per mode "
          "(median ms from keydown to the first frame that shows it)")
    print(f"{'mode':<16}{'new pixels':>12}{'new readout':>13}{'min':>7}{'max':>7}")
    for mode, (pixels, readout) in rows.items():
        print(f"{mode:<16}{statistics.median(pixels):>12.0f}{statistics.median(readout):>13.0f}"
              f"{min(pixels):>7.0f}{max(pixels):>7.0f}")
    blit_median = statistics.median(rows["blit (default)"][0])
    full_median = statistics.median(rows["full redraw"][0])
    print(f"full redraw / blit: {full_median / blit_median:.2f}; target <= 150 ms: "
          f"{'met' if blit_median <= 150 else 'NOT met'} (median {blit_median:.0f} ms)")
    print(f"backlog: 10 presses typed in {typed * 1000:.0f} ms; {after - before} kernel updates for them (ipywidgets "
          "sends only the latest value while one is in flight); "
          f"last keydown to final figure {last_change - last_key:.0f} ms = "
          f"{(last_change - last_key) / blit_median:.1f} x one press's median")


if __name__ == "__main__":
    main()
