"""Key press to new pixels, for every explorer in JupyterLab and headless Chromium, beside today's explorer.

Two JupyterLab servers run side by side: one whose kernels import attn_lib from this working tree (the explorers
drawn in the browser by attn_lib/widgets/explorer.js from numbers the kernel sent), and one whose kernels import it
from a git worktree of ``--against`` (default 970f614: "today's explorer", matplotlib figures drawn in the kernel and
sent as PNGs by ipympl, which the course no longer installs: without it only this tree is measured), made with
``git worktree add --detach`` in a temporary folder and removed at the end. For each explorer in
``tests/browser/lab_driver.py``'s ``EXPLORER_NOTEBOOKS`` and each device pixel ratio (1, and 2 as on most laptop
screens), the generated two-cell notebook that shows it (``from attn_lib.widgets import K_explorer`` then
``K_explorer()``) is opened and run in each server in turn, and measured:

- "in the page": single presses of the main control, a slider with ArrowRight four times then ArrowLeft four times,
  radio buttons one option on (the new explorers: ArrowDown on the checked one, a native radio group; today's:
  ipywidgets' radio buttons are Tab stops, so the next one is focused and Space checks it). Each press is timed
  from the keydown event to the first animation frame after the figure was painted with new pixels
  (``lab_driver.key_to_pixels_ms``: explorer.js fires "attn-paint" on its canvas after it paints; today's ipympl
  canvas has its ``drawImage`` watched, which fires the same event). Every move of a new explorer's main control
  is drawn from the page; every move of today's waits for the kernel's PNG. Before each press the figure, the
  readout and the kernel are left to settle (the kernel idle: the frames a move sends after it have arrived).
- "needs the kernel" (the new explorers only): softmax and cost, two sliders other than the main one moved in one
  JavaScript task (``input.value`` set and an "input" event dispatched on each, as a drag does), so that the second
  position is off the cross of positions the page holds; timed from the second dispatch to the first animation
  frame after the new frame is painted. The trained explorer, a new sentence typed in its own-sentence box: from
  the keydown of Enter to the first frame after the paint (the kernel runs the model on it).

With ``--proxy-ms 100``, each explorer is also opened through a local TCP proxy (asyncio, in this script) between
Chromium and the server that holds each chunk for half that time in each direction, in order: every HTTP and
websocket round trip gains 100 ms, as on Binder's network.

Targets: the median at most 16 ms from a key press to the changed pixels for a move in the page (with or without the
proxy), at most 33 ms for a move that needs the kernel (without the proxy; through it the row is for information:
a move that needs the kernel waits a round trip or more). Today's explorer is printed beside, without a target. The
machine's 1-minute load average is printed on each row (the targets are for a quiet machine: about 1 on 2 cores).

Run: python benchmarks/browser_latency.py [--presses 24] [--moves 20] [--kinds dk,mask] [--ratios 1,2]
     [--against 970f614] [--proxy-ms 100]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "browser"))
import lab_driver  # noqa: E402

IN_PAGE_MS = 16  # target: a move whose frame is in the page
NEEDS_KERNEL_MS = 33  # target: a move that waits for the kernel (no proxy)
AGAINST = "970f614"  # today's explorer: ipympl, the last commit before the explorers moved to the browser
SENTENCES = ("a bird sang in the old tree", "my brother reads a book every night", "the train left before we came",
             "rain fell on the quiet town all day", "he painted the door a bright green", "two cats slept by the fire")


def load():
    """The 1-minute load average, as printed beside each figure."""
    return f"{os.getloadavg()[0]:.1f}"


# --- today's explorer (ipympl), as lab_driver drove it at 970f614 -------------------------------------------------

# ipympl puts every image on its visible canvas (the first canvas of the figure widget, which has class attn-figure)
# with drawImage: watched here, it fires the "attn-paint" event that explorer.js fires, so that
# lab_driver.key_to_pixels_ms times both alike. False if that canvas is not ipympl's.
OLD_PAINT_EVENT = """
sel => {
    const canvas = document.querySelector(sel + ' .jupyter-matplotlib-canvas-div canvas');
    if (!canvas || document.querySelector(sel + ' .attn-figure canvas') !== canvas) return false;
    const context = canvas.getContext('2d');
    if (!context.attnWatched) {
        const draw = context.drawImage.bind(context);
        context.drawImage = (...args) => { draw(...args); canvas.dispatchEvent(new Event('attn-paint')); };
        context.attnWatched = true;
    }
    return true;
}
"""


def old_focus_main_control(page, kind):
    """Keyboard focus on today's main control (a noUi slider handle, the checked radio button, or the pressed toggle
    button); return how it moves: "slider", "radio" or "buttons"."""
    selector = f"{lab_driver.explorer_selector(kind)} .attn-main-control"
    for how, item in (("slider", ".noUi-handle"), ("radio", "input[type=radio]:checked"),
                      ("buttons", "button.mod-active")):
        found = page.locator(f"{selector} {item}")
        if found.count():
            found.first.focus()
            return how
    raise RuntimeError(f"{kind}: no main control found")


def old_step_key(page, kind, how):
    """Focus the option after the chosen one of today's radio or toggle buttons (each a Tab stop); Space checks it."""
    selector = f"{lab_driver.explorer_selector(kind)} .attn-main-control"
    item = " input[type=radio]" if how == "radio" else " button"
    chosen = page.evaluate(
        """([sel, item]) => [...document.querySelectorAll(sel + item)].findIndex(
               x => x.type === 'radio' ? x.checked : x.classList.contains('mod-active'))""", [selector, item])
    options = page.locator(selector + item)
    options.nth((chosen + 1) % options.count()).focus()
    return "Space"


# --- the measurements ---------------------------------------------------------------------------------------------

def settle(page, kind, quiet_ms=250, timeout_ms=20_000):
    """Wait until the figure's pixels and the readout have held still, and the kernel has been idle, for
    ``quiet_ms`` (the frames a move sends after it have arrived and been read)."""
    page.evaluate(
        """([sel, quiet, timeout]) => new Promise(resolve => {
            const session = window.jupyterapp.shell.currentWidget.sessionContext.session;
            const start = performance.now();
            let last = null, since = start;
            const poll = () => {
                const now = performance.now();
                const state = [window.attnFigureSum(sel), window.attnReadout(sel), session.kernel.status].join('|');
                if (state !== last || session.kernel.status !== 'idle') { last = state; since = now; }
                if (now - since >= quiet || now - start > timeout) { resolve(); return; }
                requestAnimationFrame(poll);
            };
            requestAnimationFrame(poll);
        })""", [lab_driver.explorer_selector(kind), quiet_ms, timeout_ms])


def press_series(page, kind, presses, old=False, timeout_ms=5_000):
    """Milliseconds from keydown to new pixels for ``presses`` single steps of the main control, after 8 untimed
    (fonts, caches; there and back): a slider four steps right then four left, radio buttons one option on. ``old``:
    today's explorer (ipympl). Returns (the times, None), or (those timed so far, a note) when a press changed no
    pixel within ``timeout_ms`` (the series ends there)."""
    if old and not page.evaluate(OLD_PAINT_EVENT, lab_driver.explorer_selector(kind)):
        raise RuntimeError(f"{kind}: the figure's canvas is not ipympl's (is --against an ipympl commit?)")
    focus = old_focus_main_control if old else lab_driver.focus_main_control
    times = []
    for i in range(8 + presses):
        settle(page, kind)
        how = focus(page, kind)
        if how == "slider":
            key = "ArrowRight" if (i // 4) % 2 == 0 else "ArrowLeft"
        else:
            key = old_step_key(page, kind, how) if old else lab_driver.STEP_KEYS[how][0]
        pixels, _ = lab_driver.key_to_pixels_ms(page, kind, key, timeout_ms)
        if pixels is None:
            return times, f"press {i + 1} ({key}) changed no pixel within {timeout_ms / 1000:g} s (series ended)"
        if i >= 8:
            times.append(pixels)
    return times, None


# Two sliders other than the main one moved in one task: the first position is on the page's cross (painted at
# once), the second is not. Returns [ms from the second dispatch to the frame after the paint, whether it waited].
TWO_SLIDERS = """
([sel, a, b, timeout]) => new Promise(resolve => {
    const root = document.querySelector(sel), canvas = root.querySelector('.attn-figure canvas');
    const sliders = [...root.querySelectorAll('.attn-control:not(.attn-main-control) input[type=range]')];
    const step = input => {  // one step on, turning back at either end (a walk that seldom comes back)
        const v = Number(input.value);
        if (!input.attnDirection || v + input.attnDirection > Number(input.max) || v + input.attnDirection < 0) {
            input.attnDirection = v + 1 <= Number(input.max) && input.attnDirection !== 1 ? 1 : -1;
        }
        input.value = String(v + input.attnDirection);
        input.dispatchEvent(new Event('input'));
    };
    let start = null, waited = null, timer = null;
    const onPaint = () => {
        if (start === null) return;
        canvas.removeEventListener('attn-paint', onPaint);
        requestAnimationFrame(() => { clearTimeout(timer); resolve([performance.now() - start, waited]); });
    };
    canvas.addEventListener('attn-paint', onPaint);
    step(sliders[a % sliders.length]);
    start = performance.now();
    step(sliders[b % sliders.length]);
    waited = root.querySelector('.attn-status').textContent !== '';
    timer = setTimeout(() => { canvas.removeEventListener('attn-paint', onPaint); resolve([null, waited]); }, timeout);
})
"""

# The next keydown starts the clock; the first animation frame after the figure's next paint stops it.
AFTER_KEY = """
([sel, timeout]) => {
    const canvas = document.querySelector(sel + ' .attn-figure canvas');
    let pressed = null;
    document.addEventListener('keydown', () => { pressed = performance.now(); }, {capture: true, once: true});
    window.attnKeyToPaint = new Promise(resolve => {
        const timer = setTimeout(() => resolve(null), timeout);
        canvas.addEventListener('attn-paint', () => requestAnimationFrame(() => {
            clearTimeout(timer);
            resolve(pressed === null ? null : performance.now() - pressed);
        }), {once: true});
    });
}
"""


def kernel_moves(page, kind, moves, timeout_ms=5_000):
    """The moves of explorer ``kind`` that need the kernel: (what they are, the ms of each that waited for the
    kernel, a note or None); None for an explorer that has none. A move that paints nothing within ``timeout_ms``
    ends the series, and the note says so."""
    selector = lab_driver.explorer_selector(kind)
    if kind == "trained":
        label, box = "own sentence (needs the kernel)", page.locator(f"{selector} input[type=text]")
        if not box.count():
            return label, [], "not measured: no own-sentence box in this tree"

        def move(i):
            box.fill(f"{SENTENCES[i % len(SENTENCES)]} ({i})")
            page.evaluate(AFTER_KEY, [selector, timeout_ms])
            page.keyboard.press("Enter")
            return page.evaluate("() => window.attnKeyToPaint"), True
    elif kind in ("softmax", "cost"):
        label = "two sliders (needs the kernel)"

        def move(i):
            return tuple(page.evaluate(TWO_SLIDERS, [selector, i, i + 1, timeout_ms]))
    else:
        return None
    times, in_page, i = [], 0, 0
    while len(times) < moves and i < 2 + 3 * moves:  # the first two, untimed: warm up (and choose "your own")
        settle(page, kind)
        ms, waited = move(i)
        if ms is None:
            return label, times, f"move {i + 1} painted nothing within {timeout_ms / 1000:g} s (series ended)"
        if i >= 2 and waited:
            times.append(ms)
        in_page += i >= 2 and not waited
        i += 1
    were = "move was" if in_page == 1 else "moves were"
    return label, times, f"{in_page} {were} in the page after all (left out)" if in_page else None


# --- the proxy ----------------------------------------------------------------------------------------------------

class DelayProxy:
    """A TCP proxy on 127.0.0.1 (any free port) to ``port``, in a thread: each chunk read from either side is written
    to the other ``delay_ms / 2`` later, in the order read (a round trip gains ``delay_ms``). ``url``; ``stop()``."""

    def __init__(self, port, delay_ms):
        self.upstream, self.delay = port, delay_ms / 2000
        self.loop = asyncio.new_event_loop()
        started = threading.Event()

        def run():
            asyncio.set_event_loop(self.loop)
            self.server = self.loop.run_until_complete(asyncio.start_server(self._connection, "127.0.0.1", 0))
            started.set()
            self.loop.run_forever()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        started.wait()
        self.url = f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def _connection(self, client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection("127.0.0.1", self.upstream)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(self._pipe(client_reader, server_writer), self._pipe(server_reader, client_writer),
                             return_exceptions=True)
        for writer in (client_writer, server_writer):
            writer.close()

    async def _pipe(self, reader, writer):
        """Copy ``reader`` to ``writer``, each chunk ``delay`` seconds after it was read; end with end of file."""
        queue = asyncio.Queue()

        async def deliver():
            while True:
                due, data = await queue.get()
                await asyncio.sleep(max(0.0, due - self.loop.time()))
                if not data:
                    with contextlib.suppress(OSError):
                        writer.write_eof()
                    return
                writer.write(data)
                await writer.drain()

        delivering = asyncio.ensure_future(deliver())
        try:
            while True:
                data = await reader.read(65536)
                queue.put_nowait((self.loop.time() + self.delay, data))
                if not data:
                    break
        except OSError:
            queue.put_nowait((self.loop.time() + self.delay, b""))
        await delivering

    def stop(self):
        self.loop.call_soon_threadsafe(self.server.close)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)


# --- today's explorer's server ------------------------------------------------------------------------------------

@contextlib.contextmanager
def worktree(ref):
    """A detached git worktree of ``ref`` in a temporary folder, removed at the end."""
    folder = Path(tempfile.mkdtemp(prefix="attn-against-")) / "tree"
    subprocess.run(["git", "-C", str(lab_driver.REPO), "worktree", "add", "--detach", str(folder), ref], check=True,
                   capture_output=True)
    try:
        yield folder
    finally:
        subprocess.run(["git", "-C", str(lab_driver.REPO), "worktree", "remove", "--force", str(folder)], check=False,
                       capture_output=True)
        subprocess.run(["rm", "-rf", str(folder.parent)], check=False)


def measure_notebook(page, server, kind, args, old):
    """Open and run the notebook of ``kind`` at ``server.url``: ``press_series``' times and note, and
    ``kernel_moves``' answer (None for today's explorer)."""
    name = f"generated/{lab_driver.FUNCTIONS[kind]}.ipynb"
    lab_driver.open_and_run(page, server, name)
    lab_driver.wait_for_figure(page, kind)
    presses, note = press_series(page, kind, args.presses, old)
    moves = None if old else kernel_moves(page, kind, args.moves)
    page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")
    return presses, note, moves


def spread(times):
    """Median, min and max of ``times`` in 20 characters ("—" when there are none)."""
    if not times:
        return f"{'—':>8}{'':12}"
    return f"{statistics.median(times):>8.1f}{min(times):>6.0f}{max(times):>6.0f}"


def print_table(rows, args):
    print(f"\n{args.presses} single presses of each explorer's main control (in the page), {args.moves} moves that "
          "need the kernel; ms from the input (keydown, or the second slider's input event) to the first animation "
          f"frame that shows it. new: this working tree; before: {args.against}. load: 1-minute load average")
    print(f"{'':<18}{'':>6}  {'':<30}{'':<36}{'new (ms)':>20}{'before (ms)':>20}")
    print(f"{'explorer':<18}{'ratio':>6}  {'where':<30}{'move':<36}{'median   min   max':>20}{'median   min   max':>20}"
          f"  {'target':<8}{'load':>5}  verdict")
    for kind, ratio, where, move, new, before, avg, note, before_note in rows:
        target = IN_PAGE_MS if move.startswith("key press") else None if args.proxy_label in where else NEEDS_KERNEL_MS
        target_text = "—" if target is None else f"<= {target}"
        print(f"{lab_driver.FUNCTIONS[kind]:<18}{ratio:>6}  {where:<30}{move:<36}{spread(new)}{spread(before)}"
              f"  {target_text:<8}{avg:>5}  {verdict(new, target, note, before_note)}")


def verdict(times, target, note=None, before_note=None):
    """"target met" or "target missed" for the median of ``times`` (a series that ended on a move that painted
    nothing misses), with the notes of the series and of today's explorer's."""
    ended = bool(note) and "series ended" in note
    if note and note.startswith("not measured"):
        text = note
    elif target is None:
        text = "no target (waits for round trips)"
    else:
        text = "target missed" if ended or not times or statistics.median(times) > target else "target met"
    text += f": {note}" if note and not note.startswith("not measured") else ""
    return text + (f"; before: {before_note}" if before_note else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=24,
                        help="timed presses per explorer, ratio and server (a multiple of 8 ends where it began)")
    parser.add_argument("--moves", type=int, default=20, help="timed moves that need the kernel per explorer and ratio")
    parser.add_argument("--kinds", default=",".join(lab_driver.EXPLORER_NOTEBOOKS),
                        help="explorers to measure, by kind, comma-separated (default: all)")
    parser.add_argument("--ratios", default="1,2", help="device pixel ratios, comma-separated")
    parser.add_argument("--against", default=AGAINST, help="git ref of today's explorer (default: %(default)s; it "
                                                           "needs ipympl installed); 'none' measures this tree alone")
    parser.add_argument("--proxy-ms", type=float, default=0,
                        help="also measure through a local proxy that adds this many ms to every round trip")
    args = parser.parse_args()
    args.proxy_label = f"+ {args.proxy_ms:g} ms proxy"
    kinds = args.kinds.split(",")
    ratios = [int(r) for r in args.ratios.split(",")]
    missing = lab_driver.missing_browser_tools()
    if missing:
        sys.exit(f"cannot run: {missing}")
    from playwright.sync_api import sync_playwright

    print(f"load average before: {', '.join(f'{x:.1f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
    files = {f"generated/{lab_driver.FUNCTIONS[kind]}.ipynb": lab_driver.explorer_notebook(lab_driver.FUNCTIONS[kind])
             for kind in kinds}
    rows, servers, proxies = [], {}, []
    with contextlib.ExitStack() as stack:
        servers["new"] = lab_driver.Lab(files)
        stack.callback(servers["new"].stop)
        if args.against != "none" and importlib.util.find_spec("ipympl") is None:
            print(f"today's explorer ({args.against}) not measured: it needs ipympl, no longer installed with the "
                  "course (pip install 'ipympl>=0.9', then run this again)")
        elif args.against != "none":
            tree = stack.enter_context(worktree(args.against))
            servers["before"] = lab_driver.Lab(files, pythonpath=tree)
            stack.callback(servers["before"].stop)
        wheres = [("JupyterLab", {name: server for name, server in servers.items()})]
        if args.proxy_ms:
            through = {}
            for name, server in servers.items():
                proxy = DelayProxy(server.port, args.proxy_ms)
                stack.callback(proxy.stop)
                through[name] = types.SimpleNamespace(url=proxy.url)
            wheres.append((f"JupyterLab {args.proxy_label}", through))
        playwright = stack.enter_context(sync_playwright())
        browser = lab_driver.launch_chromium(playwright)
        stack.callback(browser.close)
        for ratio in ratios:
            context = browser.new_context(viewport={"width": 1500, "height": 1100}, device_scale_factor=ratio)
            page = context.new_page()
            for kind in kinds:
                for where, by_name in wheres:
                    presses, note, moves = measure_notebook(page, by_name["new"], kind, args, old=False)
                    before, before_note, _ = (measure_notebook(page, by_name["before"], kind, args, old=True)
                                              if "before" in by_name else (None, None, None))
                    rows.append((kind, ratio, where, "key press (in the page)", presses, before, load(), note,
                                 before_note))
                    if moves:
                        label, times, moves_note = moves
                        rows.append((kind, ratio, where, label, times, None, load(), moves_note, None))
                    print(f"measured {kind} at ratio {ratio}, {where} (load {load()})", flush=True)
            context.close()

    print(f"load average after: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print_table(rows, args)


if __name__ == "__main__":
    main()
