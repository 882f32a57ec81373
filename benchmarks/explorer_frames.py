"""What the kernel does for each explorer: the frames it computes and sends, and how long that takes.

An explorer (attn_lib/widgets/_explorer.py) is drawn in the browser from numbers the kernel computes: when it is
made, every frame the page starts with (``frames_json``: every position, or the cross of positions one control's
move away); after a move, the frames the page lacks, sent as messages. Measured here, in this process (no kernel,
no browser: what a widget's comm sends is JSON-encoded as the kernel's session would encode it, and dropped):

- making each explorer (``<kind>_explorer()``): the median milliseconds over ``--makes`` makes (the first, which
  loads data or a model once per process, printed beside it), the frames sent at first, and their JSON size
  (``frames_json``, and ``spec``);
- for each explorer whose page can lack a frame (softmax and cost: more positions than ``ALL_POSITIONS``, so the page
  holds the cross through the current position; trained: its own-sentence box), the kernel's answer to a change of
  ``values`` as the page sends it (``set_state``), from the change to the first frame sent (the position the page
  waits for, sent alone) and to the last (the rest of the new cross), with the frames and bytes sent:
  "needs the kernel" moves two controls at once (softmax and cost: off the page's cross) or gives the box a new
  sentence (trained); "one move" moves one control (its frame is in the page: the kernel sends the rest of the
  new cross, which a move of another control then finds in the page).

Target: a frame the page waits for is sent within 10 ms of the change (the page's 33 ms from a move to its pixels,
less a round trip and the page's work). The rest has no target: it tells how long after a move the page holds the
new cross, and so how soon a move of another control is in the page again.

Run: python benchmarks/explorer_frames.py [--moves 20] [--makes 3] [--kinds softmax,cost]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

FIRST_FRAME_MS = 10  # the target: change of values -> the frame the page waits for, handed to the comm


def load():
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def encoded(content):
    """``content`` as the kernel's session encodes a comm message (jupyter_client's json_packer)."""
    return json.dumps(content, ensure_ascii=False, allow_nan=False).encode()


def make(factory, makes):
    """Make the explorer ``makes`` times; return the last one and the milliseconds of each make."""
    times = []
    for _ in range(makes):
        start = time.perf_counter()
        explorer = factory()
        times.append(1000 * (time.perf_counter() - start))
    return explorer, times


class Sends:
    """Every message the explorer sends, as (milliseconds since ``start``, frames, bytes); the JSON encoding of each
    is timed with it, as the kernel's session encodes it before it leaves."""

    def __init__(self, explorer):
        self.records, self.start = [], None
        send = explorer.send

        def timed(content, buffers=None):
            size = len(encoded(content))
            self.records.append((1000 * (time.perf_counter() - self.start), len(content.get("frames", {})), size))
            send(content, buffers)

        explorer.send = timed

    def change(self, explorer, values):
        """Set ``values`` as a message from the page does; return the sends it caused."""
        self.records = []
        self.start = time.perf_counter()
        explorer.set_state({"values": values})
        return self.records


def two_control_moves(explorer, moves):
    """``moves`` positions, each two controls (other than the main one) one step from the last: never on the cross
    the page holds."""
    names = [n for n, c in explorer.controls.items() if c.kind == "slider" and n != explorer.main_control]
    values, out = dict(explorer.values), []
    for i in range(moves):
        for name in (names[i % len(names)], names[(i + 1) % len(names)]):
            count = len(explorer.controls[name].options)
            values[name] = values[name] + 1 if values[name] + 1 < count else values[name] - 1
        out.append(dict(values))
    return out


def one_control_moves(explorer, moves):
    """``moves`` positions, each one control (not the main one, in turn) one step from the last."""
    names = [n for n, c in explorer.controls.items() if c.kind == "slider" and n != explorer.main_control]
    values, out = dict(explorer.values), []
    for i in range(moves):
        name = names[i % len(names)]
        count = len(explorer.controls[name].options)
        values[name] = values[name] + 1 if values[name] + 1 < count else values[name] - 1
        out.append(dict(values))
    return out


SENTENCES = ("a bird sang in the old tree", "my brother reads a book every night", "the train left before we came",
             "rain fell on the quiet town all day", "he painted the door a bright green", "two cats slept by the fire")


def typed_sentences(explorer, moves):
    """``moves`` positions of the trained explorer, each with a sentence its box has not had."""
    return [{**explorer.values, "sentence": f"{SENTENCES[i % len(SENTENCES)]} ({i})"} for i in range(moves)]


def timed_changes(explorer, positions):
    """Each position set in turn, as from the page; (first frame ms, last frame ms, frames, kB) of each change that
    sent something."""
    sends, rows = Sends(explorer), []
    for values in positions:
        records = sends.change(explorer, values)
        if records:
            rows.append((records[0][0], records[-1][0], sum(r[1] for r in records), sum(r[2] for r in records) / 1e3))
    return rows


def spread(values):
    return f"{statistics.median(values):>8.1f}{min(values):>8.1f}{max(values):>8.1f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=20, help="timed changes of values per explorer and kind of move")
    parser.add_argument("--makes", type=int, default=3, help="times each explorer is made")
    parser.add_argument("--kinds", default="", help="explorers, by kind, comma-separated (default: all)")
    args = parser.parse_args()
    from attn_lib.widgets import EXPLORERS
    from attn_lib.widgets._explorer import ALL_POSITIONS

    kinds = args.kinds.split(",") if args.kinds else list(EXPLORERS)
    print(f"load average before: {load()} ({os.cpu_count()} cores)")
    made, changes = [], []
    for kind in kinds:
        explorer, times = make(EXPLORERS[kind], args.makes)
        made.append((kind, times, len(explorer.frames), len(explorer.frames_json.encode()) / 1e3,
                     len(encoded(explorer.spec)) / 1e3, load()))
        finite = [c for c in explorer.controls.values() if c.kind != "text"]
        texts = [c for c in explorer.controls.values() if c.kind == "text"]
        crossed = 1
        for c in finite:
            crossed *= len(c.options)
        kinds_of_move = []
        if crossed > ALL_POSITIONS:
            kinds_of_move = [("needs the kernel (two controls)", two_control_moves),
                             ("one move (in the page)", one_control_moves)]
        elif texts:
            kinds_of_move = [("needs the kernel (a new sentence)", typed_sentences)]
        for label, positions in kinds_of_move:
            timed_changes(explorer, positions(explorer, 2))  # warm up
            rows = timed_changes(explorer, positions(explorer, args.moves))
            changes.append((kind, label, rows, load()))

    print(f"load average after: {load()}")
    print(f"\nmaking each explorer ({args.makes} times; ms; the first make loads what a kernel loads once)")
    print(f"{'explorer':<18}{'median':>8}{'first':>8}{'frames':>8}{'frames kB':>11}{'spec kB':>9}  load average")
    for kind, times, frames, frames_kb, spec_kb, avg in made:
        print(f"{kind + '_explorer':<18}{statistics.median(times):>8.0f}{times[0]:>8.0f}{frames:>8}{frames_kb:>11.1f}"
              f"{spec_kb:>9.1f}  {avg}")
    print(f"\nthe kernel's answer to a change of values from the page ({args.moves} changes; ms from the change to "
          "the message sent, JSON-encoded)")
    print(f"{'explorer':<18}{'move':<34}{'first frame: median':>20}{'min':>8}{'max':>8}"
          f"{'all: median':>12}{'min':>8}{'max':>8}{'frames':>8}{'kB':>8}  {'target (first frame)':<24}load average")
    for kind, label, rows, avg in changes:
        first, last = [r[0] for r in rows], [r[1] for r in rows]
        frames, kb = statistics.median(r[2] for r in rows), statistics.median(r[3] for r in rows)
        waits = label.startswith("needs")
        met = statistics.median(first) <= FIRST_FRAME_MS
        verdict = f"<= {FIRST_FRAME_MS} ms: target {'met' if met else 'missed'}" if waits else "none (in the page)"
        first_text = f"{spread(first):>36}" if waits else f"{'(none waits)':>36}"
        print(f"{kind + '_explorer':<18}{label:<34}{first_text}{spread(last)}{frames:>8.0f}{kb:>8.0f}  "
              f"{verdict:<24}{avg}")


if __name__ == "__main__":
    main()
