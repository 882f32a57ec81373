"""The record survives a write interrupted at every step: a crash (an exception no one catches, as a killed
kernel) at each file operation of the write, and a real SIGKILL of a process writing in a loop. After each, the
file is either the old complete record or the new complete one, never a mix, and no temporary file is left by a
crash the process lived through."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from attn_lib._record import file as record_file
from attn_lib._record.file import dumps, empty, parse

ROOT = Path(__file__).resolve().parents[2]


class Crash(BaseException):
    """The process dies here (BaseException: nothing in the write may catch it)."""


def record_with(n: int) -> str:
    record = empty()
    record["solved"] = {f"{k % 11:02d}-P{k}": "2026-01-05T09:00:00+00:00" for k in range(1, n + 1)}
    return dumps(record)


class Steps:
    """Counts the file operations of one write and crashes at operation number ``at`` (0-based)."""

    def __init__(self, at: int):
        self.at, self.count = at, 0

    def step(self, name: str):
        if self.count == self.at:
            raise Crash(name)
        self.count += 1


def interrupted_write(path: Path, text: str, at: int) -> bool:
    """Write ``text`` with a crash at step ``at``; True when the write got through all its steps first."""
    steps = Steps(at)
    real = {name: getattr(os, name) for name in ("replace", "fsync", "open", "close", "fdopen")}
    real_mkstemp = tempfile.mkstemp

    class Stream:  # a file whose write may die halfway through, the first half on disk
        def __init__(self, inner):
            self.inner = inner

        def write(self, data):
            steps.step("write, first half")
            self.inner.write(data[: len(data) // 2])
            self.inner.flush()
            steps.step("write, second half")
            return self.inner.write(data[len(data) // 2:])

        def flush(self):
            steps.step("flush")
            return self.inner.flush()

        def fileno(self):
            return self.inner.fileno()

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            steps.step("close") if exc[0] is None else None
            self.inner.close()

    def wrap(name):
        def operation(*args, **kwargs):
            steps.step(name)
            return real[name](*args, **kwargs)
        return operation

    def mkstemp(*args, **kwargs):
        steps.step("mkstemp")
        return real_mkstemp(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(record_file.tempfile, "mkstemp", mkstemp)
        for name in ("replace", "fsync", "open", "close"):
            patch.setattr(record_file.os, name, wrap(name))
        patch.setattr(record_file.os, "fdopen", lambda *a, **k: Stream(real["fdopen"](*a, **k)))
        try:
            record_file.write_atomically(path, text)
        except Crash:
            return False
    STEPS_SEEN.append(steps.count)
    return True


STEPS_SEEN: list = []


def test_a_write_interrupted_at_every_step_leaves_the_old_record_or_the_new_one(tmp_path):
    path = tmp_path / "attn-course-record.json"
    old, new = record_with(3), record_with(40)
    path.write_text(old, encoding="utf-8")
    outcomes = []
    at = 0
    while True:
        finished = interrupted_write(path, new, at)
        on_disk = path.read_text(encoding="utf-8")
        assert on_disk in (old, new), f"a crash at step {at} left a partial record"
        parse(on_disk, str(path))
        assert sorted(p.name for p in tmp_path.iterdir()) == [path.name], f"step {at} left a temporary file"
        outcomes.append(on_disk == new)
        if finished:
            break
        path.write_text(old, encoding="utf-8")  # the next trial starts from the old record again
        at += 1
    # Every step was interrupted once (mkstemp, two halves of the write, flush, fsync, close, replace, the folder's
    # open, fsync and close); before the replace the old record stays, from it on the new one is there.
    assert at == STEPS_SEEN[-1] >= 10
    print(f"\n{at} steps, each interrupted once; outcomes (new record?): {outcomes}")
    assert outcomes[0] is False and outcomes[-1] is True
    assert outcomes == sorted(outcomes)  # old ... old, new ... new: one switch, at the replace


WRITER = """
import sys, time
from pathlib import Path
from attn_lib._record.file import write_atomically
path, texts = Path(sys.argv[1]), [Path(p).read_text() for p in sys.argv[2:]]
print("ready", flush=True)
k = 0
while True:
    write_atomically(path, texts[k % len(texts)])
    k += 1
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="SIGKILL is POSIX")
def test_a_process_killed_mid_write_leaves_a_complete_record(tmp_path):
    path = tmp_path / "attn-course-record.json"
    texts = [record_with(n) for n in (5, 300, 2000)]  # small, middling, ~100 kB
    sources = []
    for k, text in enumerate(texts):
        sources.append(tmp_path / f"text{k}.json")
        sources[-1].write_text(text)
    path.write_text(texts[0])
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def interrupted():  # a kill during a write leaves its temporary file (named for the record): landed mid-write
        return [p for p in tmp_path.iterdir() if p.name.startswith(f".{path.name}.") and p.suffix == ".tmp"]

    trials = 0
    while trials < 12 or (len(interrupted()) < 3 and trials < 60):  # at least 12 kills, 3 of them mid-write
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path), *map(str, sources)],
                                  stdout=subprocess.PIPE, env=env)
        assert writer.stdout.readline().strip() == b"ready"
        time.sleep(0.05 + 0.013 * (trials % 12))  # many writes in flight, killed at a different moment each time
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        writer.stdout.close()
        on_disk = path.read_text()
        assert on_disk in texts, f"trial {trials}: the kill left a partial record"
        json.loads(on_disk)
        trials += 1
    print(f"\n{len(interrupted())} of {trials} kills landed mid-write (their temporary files are left)")
    assert interrupted(), "no kill landed mid-write: the test proved nothing"
