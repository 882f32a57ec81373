"""The learner's record on disk: where it is, its JSON format (version 1) and its checks, reading it, writing it
so that a crash leaves it whole, merging two records, and carrying it elsewhere (export, import).

Where. The record is ``attn-course-record.json`` in the course's notebooks folder: the nearest folder, from the
kernel's working folder up, that holds a record or the course's first notebook (``00-start-here.ipynb``), so a
notebook opened from a subfolder (the solutions) keeps the same record; else the working folder. The environment
variable ``ATTN_COURSE_RECORD`` names another file (a full path; a relative one is read from the working
directory): the tests and tools/build_notebooks.py point it at a temporary file. While nbgrader runs a notebook
(``NBGRADER_EXECUTION`` set: autograding or validating), nothing is written: the student's record is not the
grader's.

The format. A record is one small readable JSON object::

    {
      "format": "attn-course-record",
      "version": 1,
      "about": "...",                                  # one line for a person who opens the file
      "reached": {"05": "2026-12-01T23:40:05+00:00"},  # notebooks reached, and when first
      "solved": {"05-P2": "2026-12-01T23:41:10+00:00"},  # problems first solved (a right check or checker)
      "prompts": {"05-R1": {"card": {...}, "reviews": [{"at": "...", "rating": "Good", "n": 1}]}},
      "variants": {"05-P2": {"card": {...}, "reviews": [{"at": "...", "rating": "Again", "n": 1,
                                                        "seed": 4711, "passed": false}]}},
      "tried": {"03-P2": 2}                             # wrong answers to a problem not yet solved
    }

``card`` is the fsrs package's own ``Card.to_dict()``: the schedule of that prompt, or of the variants of that
solved problem. ``reviews`` is the log, oldest first (``n``: the review's number in that log, which keeps the order
of two reviews in the same second). Merging two records (an import) keeps every notebook reached and every problem
solved at their earliest time, takes per prompt or problem the card of the newer review, and joins the logs;
per problem not solved on either side it keeps the larger count of wrong tries ("tried", which a first solve reads
and removes, in any kernel, so a solve after wrong answers yesterday is rated as one): merging is commutative,
associative, and a record merged with itself is unchanged. A record without "tried" (written before it existed)
reads as one with no wrong tries.

Reading. A missing file is an empty record. A damaged record (cut short, not UTF-8, an entry edited by hand) loses
nothing that can still be read: every entry that is whole and valid is kept, the last good copy (below) is merged
back in, the damaged file is moved aside unchanged to ``<name>.corrupt-<time>``, the repaired record is written in
its place, and one sentence (on stderr, no traceback) names the file, what was damaged and where the old text is.
A record of another program or of a newer version is left where it is and refused (RecordError), so nothing is
written over it.

Writing. The whole text goes to a temporary file in the same folder, is flushed and fsynced, and ``os.replace``
(atomic on POSIX and Windows) puts it in place; then the folder is fsynced where the system allows it: a crash at
any moment leaves either the old text or the new, never a mix. In the browser edition (Pyodide's file system)
fsync may be missing or refuse: the replace is still atomic there, so that is skipped. Each write also writes the
last good copy, ``<stem>.last-good.json`` beside the record: what a damaged record is repaired from. A change
(read, change, write) holds a lock on ``.<name>.lock`` beside the record, so two kernels (two notebooks open)
writing at once both keep their answers (fcntl.flock on POSIX, msvcrt.locking on Windows; the browser edition runs
one kernel per tab and has no lock).

Carrying it elsewhere: ``export_record(path)`` copies it, ``import_record(path)`` merges one in (each notebook
reached and problem solved kept at its earliest time; per prompt or problem the newer review wins).
"""

from __future__ import annotations

import contextlib
import copy
import json
import math
import os
import re
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from .schedule import RATINGS, parse_stamp

# Where the record is, and whether this kernel may write it.
FILE_NAME = "attn-course-record.json"
VARIABLE = "ATTN_COURSE_RECORD"
NBGRADER_VARIABLE = "NBGRADER_EXECUTION"


COURSE_MARK = "00-start-here.ipynb"  # the course's first notebook: the folder that holds it holds the record


def record_path() -> Path:
    """The learner's record file: ``$ATTN_COURSE_RECORD`` if set, else ``attn-course-record.json`` in the nearest
    folder from here up that holds one or the course's first notebook, else here."""
    chosen = os.environ.get(VARIABLE, "").strip()
    if chosen:
        path = Path(chosen).expanduser()
        path = path if path.is_absolute() else Path.cwd() / path
        if path.is_dir():
            raise IsADirectoryError(f"{VARIABLE} must name a file for the course record; got the folder {path}")
        return path
    here = Path.cwd()
    for folder in (here, *here.parents):
        if (folder / FILE_NAME).is_file() or (folder / COURSE_MARK).is_file():
            return folder / FILE_NAME
    return here / FILE_NAME


def last_good_path(path: Path) -> Path:
    """The last good copy of the record at ``path``: ``<stem>.last-good.json`` beside it."""
    return path.with_name(f"{path.stem}.last-good.json")


def writing_allowed() -> bool:
    """False while nbgrader executes a notebook (``NBGRADER_EXECUTION`` set)."""
    return not os.environ.get(NBGRADER_VARIABLE)


# ---------------------------------------------------------------------------------------------------------------
# The format: what a record holds, its checks, and the merge.

FORMAT = "attn-course-record"
VERSION = 1
ABOUT = ("Your record of the attention course: notebooks reached, problems solved, and the review schedule of its "
         "prompts (attn_lib.review). Keep it beside the notebooks; export_record / import_record carry it elsewhere.")
SECTIONS = ("reached", "solved", "prompts", "variants", "tried")
CARD_KEYS = {"card_id", "state", "step", "stability", "difficulty", "due", "last_review"}
NOTEBOOK = re.compile(r"^\d\d$")
PROBLEM = re.compile(r"^\d\d-P\d+$")
PROMPT = re.compile(r"^\d\d-R\d+$")


class RecordError(ValueError):
    """A file that is not a course record this attn_lib can use; the message names the file and what to do."""


class ForeignRecord(RecordError):
    """Readable JSON, but not a course record (another program's file)."""


class NewerRecord(RecordError):
    """A course record of a newer format version than this attn_lib reads."""


class CorruptRecord(RecordError):
    """A file that claims to be a course record but cannot be read as one (cut short, edited by hand)."""


def empty() -> dict:
    return {"format": FORMAT, "version": VERSION, "about": ABOUT, "reached": {}, "solved": {}, "prompts": {},
            "variants": {}, "tried": {}}


def dumps(record: dict) -> str:
    """The record as the file holds it: indented, keys in a fixed order, a newline at the end."""
    ordered = {"format": FORMAT, "version": VERSION, "about": ABOUT}
    for section in SECTIONS:
        ordered[section] = {key: record[section][key] for key in sorted(record[section])}
    return json.dumps(ordered, indent=2, ensure_ascii=False) + "\n"


def parse(text: str, where: str) -> dict:
    """The record in ``text`` (the contents of ``where``, named in every error), checked item by item."""
    try:
        data = json.loads(text)
    except ValueError as error:
        if not text.strip():
            raise CorruptRecord(f"{where} is empty, not a course record") from None
        raise CorruptRecord(f"{where} is not readable JSON ({error})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise _foreign(where)
    _refuse_newer(data, where)
    version = data.get("version")
    if version != VERSION:
        raise CorruptRecord(f"{where} has the version {version!r}; a course record has a whole number from 1")
    record = empty()
    for section in SECTIONS:
        value = data.get(section, {})
        if not isinstance(value, dict):
            raise CorruptRecord(f"{where}: \"{section}\" must be an object; got {type(value).__name__}")
        for key, item in value.items():
            problem = _problem_in(section, key, item)
            if problem:
                raise CorruptRecord(f"{where}: \"{section}\" -> {key!r}: {problem}")
        record[section] = copy.deepcopy(value)
    return record


def _foreign(where: str) -> ForeignRecord:
    return ForeignRecord(f"{where} is not an attention-course record (no \"format\": \"{FORMAT}\" in it); it was "
                         "left as it is. Move it away, or set ATTN_COURSE_RECORD to another file.")


def _refuse_newer(data: dict, where: str) -> None:
    version = data.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and version > VERSION:
        raise NewerRecord(f"{where} is a course record of version {version}, newer than this attn_lib reads "
                          f"(version {VERSION}); it was left as it is. Update attn_lib (pip install -U attn_lib, or "
                          "git pull in the course's folder) to use it.")


def _problem_in(section: str, key: str, item) -> str:
    """What is wrong with one entry of a section, or ""."""
    pattern = {"reached": NOTEBOOK, "prompts": PROMPT}.get(section, PROBLEM)
    if not pattern.match(key):
        return f"not a {'notebook' if section == 'reached' else 'problem' if pattern is PROBLEM else 'prompt'} id"
    if section == "tried":
        if _whole(item) and item >= 1:
            return ""
        return f"expected a count of wrong tries (a whole number >= 1); got {item!r}"
    if section in ("reached", "solved"):
        return "" if _is_time(item) else f"expected a time such as \"2026-12-01T23:40:05+00:00\"; got {item!r}"
    if not isinstance(item, dict) or set(item) != {"card", "reviews"}:
        return "expected {\"card\": ..., \"reviews\": [...]}"
    card = item["card"]
    if not isinstance(card, dict) or set(card) != CARD_KEYS or not _is_time(card["due"]):
        return f"its card is not an fsrs card ({sorted(CARD_KEYS)})"
    if not (_whole(card["card_id"]) and card["state"] in (1, 2, 3) and _whole(card["state"])
            and (card["step"] is None or _whole(card["step"]))
            and all(card[key] is None or _real(card[key]) for key in ("stability", "difficulty"))):
        return "its card's numbers are not an fsrs card's (a whole card_id, state 1 to 3, step, stability, difficulty)"
    if card["last_review"] is not None and not _is_time(card["last_review"]):
        return "its card's last_review is not a time"
    if not isinstance(item["reviews"], list):
        return "its reviews are not a list"
    for review in item["reviews"]:
        if not (isinstance(review, dict) and _is_time(review.get("at")) and review.get("rating") in RATINGS):
            return f"a review must have a time \"at\" and a \"rating\" in {RATINGS}; got {review!r}"
        if not _whole(review.get("n", 1)):
            return f"a review's number \"n\" must be a whole number; got {review!r}"
        if not (_whole(review.get("seed", 0)) and review.get("seed", 0) >= 0
                and isinstance(review.get("passed", False), bool)
                and _whole(review.get("wrong_tries", 0)) and review.get("wrong_tries", 0) >= 0):
            return (f"a variant's review has a whole \"seed\" >= 0, \"passed\" true or false and a whole "
                    f"\"wrong_tries\" >= 0; got {review!r}")
    return ""


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _real(value) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # a whole number past any float: no card's
        return False


def _is_time(value) -> bool:
    try:
        parse_stamp(value)
    except (TypeError, ValueError):
        return False
    return True


def merge(mine: dict, theirs: dict) -> dict:
    """One record holding both: see the module's docstring."""
    merged = empty()
    for section in ("reached", "solved"):
        times = {**mine[section]}
        for key, when in theirs[section].items():
            if key not in times or parse_stamp(when) < parse_stamp(times[key]):
                times[key] = when
        merged[section] = times
    for section in ("prompts", "variants"):
        items = {}
        for key in set(mine[section]) | set(theirs[section]):
            present = [side[section][key] for side in (mine, theirs) if key in side[section]]
            items[key] = merge_item(present)
        merged[section] = items
    merged["tried"] = {key: max(side["tried"].get(key, 0) for side in (mine, theirs))
                       for key in set(mine["tried"]) | set(theirs["tried"]) if key not in merged["solved"]}
    return merged


def merge_item(items: list) -> dict:
    """The card of the newest review (ties broken by the card's text, so the order of ``items`` does not
    matter) with the reviews of all, each once (a review logged twice in one second on one side, twice), in time
    order."""
    card = max((item["card"] for item in items), key=_card_order)
    counts, reviews = {}, {}  # each review as often as the side that logged it most often (two alike in a second)
    for item in items:
        for text, count in Counter(_canonical(review) for review in item["reviews"]).items():
            counts[text] = max(counts.get(text, 0), count)
        reviews.update({_canonical(review): review for review in item["reviews"]})
    ordered = sorted(counts, key=lambda text: (parse_stamp(reviews[text]["at"]), reviews[text].get("n", 0), text))
    return {"card": copy.deepcopy(card),
            "reviews": [copy.deepcopy(reviews[text]) for text in ordered for _ in range(counts[text])]}


def _card_order(card: dict):
    last = card["last_review"]
    return (parse_stamp(last) if last else datetime.min.replace(tzinfo=parse_stamp(card["due"]).tzinfo),
            _canonical(card))


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True)


# ---------------------------------------------------------------------------------------------------------------
# Reading and writing the file.


def load(path: Path | None = None) -> dict:
    """The record at ``path`` (default: :func:`record_path`); an empty one when there is no file yet; a damaged one
    repaired (see the module's docstring)."""
    path = record_path() if path is None else path
    record = _read(path)[0]
    if record is not None:
        return record
    with locked(path):  # read again under the lock: another kernel may have repaired it meanwhile
        record, raw, damage = _read(path)
        return record if record is not None else _repaired(path, raw, damage)


def _read(path: Path) -> tuple[dict | None, bytes, str]:
    """(the record at ``path``, or None if it is damaged; its bytes; what is damaged, in words)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return empty(), b"", ""
    try:
        return parse(raw.decode("utf-8"), str(path)), raw, ""
    except UnicodeDecodeError:
        return None, raw, "not UTF-8 text"
    except CorruptRecord as error:
        return None, raw, str(error).removeprefix(f"{path}: ").removeprefix(f"{path} is ").removeprefix(f"{path} ")


def _repaired(path: Path, raw: bytes, damage: str) -> dict:
    """The damaged record ``raw`` at ``path`` repaired: its valid entries and the last good copy's; the file moved
    aside and the repaired record written (while nbgrader runs a notebook, nothing is moved or written)."""
    record, lost = salvage(raw.decode("utf-8", errors="replace"), str(path))
    copy_of = last_good_path(path)
    try:
        good = parse(copy_of.read_text(encoding="utf-8"), str(copy_of))
    except (OSError, UnicodeDecodeError, RecordError):
        good = None
    if good is not None:
        record = merge(record, good)
    if not writing_allowed():
        return record
    aside = keep_aside(path)
    save(record, path)
    kept = sum(len(record[section]) for section in SECTIONS)
    back = f", with its last good copy ({copy_of.name}) merged back in" if good is not None else ""
    left = f"; {_entries(lost)} that could not be read {'was' if lost == 1 else 'were'} left out" if lost else ""
    print(f"Your course record {path} was damaged ({damage}). It now holds the {_entries(kept)} that could still be "
          f"read{back}{left}. The damaged file is kept unchanged as {aside.name} beside it.", file=sys.stderr)
    return record


def _entries(n: int) -> str:
    return f"{n} entr{'y' if n == 1 else 'ies'}"


_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _readable_prefix(text: str, i: int = 0, depth: int = 0):
    """(the members of the JSON object at ``text[i]`` that decode whole, the index where reading stopped, whether
    the object was read to its end). The top level's members that are objects (the sections) are read member by
    member, so a record cut short keeps every entry before the cut; a section's members (entries) whole or not
    at all."""
    out: dict = {}
    i = _SPACE.match(text, i).end()
    if text[i:i + 1] != "{":
        return out, i, False
    i = _SPACE.match(text, i + 1).end()
    if text[i:i + 1] == "}":
        return out, i + 1, True
    while True:
        if text[i:i + 1] != '"':
            return out, i, False
        try:
            key, i = json.decoder.scanstring(text, i + 1)
        except ValueError:
            return out, i, False
        i = _SPACE.match(text, i).end()
        if text[i:i + 1] != ":":
            return out, i, False
        i = _SPACE.match(text, i + 1).end()
        if depth == 0 and text[i:i + 1] == "{":
            out[key], i, whole = _readable_prefix(text, i, 1)
            if not whole:
                return out, i, False
        else:
            try:
                out[key], i = _DECODER.raw_decode(text, i)
            except ValueError:
                return out, i, False
        i = _SPACE.match(text, i).end()
        if text[i:i + 1] == ",":
            i = _SPACE.match(text, i + 1).end()
        elif text[i:i + 1] == "}":
            return out, i + 1, True
        else:
            return out, i, False


def salvage(text: str, where: str) -> tuple[dict, int]:
    """(a record of every entry of ``text`` that is whole and valid, the number of entries left out as invalid).
    ``text`` may be cut short anywhere or damaged from some point on: what comes before is kept. Raises
    ForeignRecord or NewerRecord as :func:`parse` does, for a file that names another format or a newer version."""
    try:
        data = json.loads(text)
    except ValueError:
        data = _readable_prefix(text)[0]
    if not isinstance(data, dict):
        data = {}
    if "format" in data and data["format"] != FORMAT:
        raise _foreign(where)
    _refuse_newer(data, where)
    record, lost = empty(), 0
    for section in SECTIONS:
        entries = data.get(section, {})
        if not isinstance(entries, dict):
            lost += 1
            continue
        for key, item in entries.items():
            if _problem_in(section, key, item):
                lost += 1
            else:
                record[section][key] = copy.deepcopy(item)
    return record, lost


def keep_aside(path: Path) -> Path:
    """Rename ``path`` to a name no file has yet, ``<name>.corrupt-<UTC time>[-k]``, and return that name."""
    when = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    for k in range(1000):
        aside = path.with_name(f"{path.name}.corrupt-{when}" + (f"-{k}" if k else ""))
        if not aside.exists():
            os.replace(path, aside)
            return aside
    raise FileExistsError(f"no free name beside {path} to keep the corrupt record aside")


def save(record: dict, path: Path | None = None) -> bool:
    """Write ``record`` atomically, and its last good copy; returns False (and writes nothing) while nbgrader
    executes a notebook."""
    if not writing_allowed():
        return False
    path = record_path() if path is None else path
    text = dumps(record)
    write_atomically(path, text)
    write_atomically(last_good_path(path), text)
    return True


def update(change: Callable[[dict], bool], path: Path | None = None) -> dict:
    """Read the record, apply ``change`` (it edits the record and says whether it changed anything), and write it
    back if so. Read fresh each time, so two kernels (two notebooks open) do not undo each other's answers. While
    nbgrader runs a notebook, the record file is neither read nor written (the change goes to an empty record)."""
    if not writing_allowed():  # nbgrader runs the notebook: the change is applied to nothing, no file is read
        record = empty()
        change(record)
        return record
    path = record_path() if path is None else path
    with locked(path):
        record = load(path)
        if change(record):
            save(record, path)
    return record


_HELD: dict = {}  # the lock files this process holds, with how deep: a change that loads takes its lock once


@contextlib.contextmanager
def locked(path: Path):
    """Hold the lock beside the record at ``path`` (``.<name>.lock``) while the block runs; reentrant in a process.
    Another kernel waits for it. Where the system has no file lock (the browser edition), the block just runs."""
    lock = path.with_name(f".{path.name}.lock")
    if _HELD.get(lock) or sys.platform == "emscripten":
        _HELD[lock] = _HELD.get(lock, 0) + 1
        try:
            yield
        finally:
            _HELD[lock] -= 1
        return
    lock.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        _acquire(descriptor)
        _HELD[lock] = 1
        try:
            yield
        finally:
            _HELD[lock] = 0
            _release(descriptor)
    finally:
        os.close(descriptor)


def _acquire(descriptor: int) -> None:
    if os.name == "nt":
        import msvcrt

        while True:
            try:
                msvcrt.locking(descriptor, msvcrt.LK_NBLCK, 1)
                return
            except OSError:
                time.sleep(0.05)
    import fcntl

    fcntl.flock(descriptor, fcntl.LOCK_EX)


def _release(descriptor: int) -> None:
    if os.name == "nt":
        import msvcrt

        os.lseek(descriptor, 0, os.SEEK_SET)
        msvcrt.locking(descriptor, msvcrt.LK_UNLCK, 1)
        return
    import fcntl

    fcntl.flock(descriptor, fcntl.LOCK_UN)


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically; on any failure ``path`` is untouched and the temporary
    file removed, and the error raised."""
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
            stream.flush()
            sync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    sync_folder(folder)


def sync(descriptor: int) -> None:
    """fsync, where the file system has it (Pyodide's may not: skipped there)."""
    fsync = getattr(os, "fsync", None)
    if fsync is None:
        return
    try:
        fsync(descriptor)
    except OSError:
        pass


def sync_folder(folder: Path) -> None:
    """fsync the folder, so the replace itself survives a power cut (POSIX only; skipped where refused)."""
    flag = getattr(os, "O_DIRECTORY", None)
    if flag is None:
        return
    try:
        descriptor = os.open(folder, os.O_RDONLY | flag)
    except OSError:
        return
    try:
        sync(descriptor)
    finally:
        os.close(descriptor)


# ---------------------------------------------------------------------------------------------------------------
# Carrying the record elsewhere.


def export_record(path) -> Path:
    """Write the learner's record to ``path`` (a file name; the browser edition's is in its file browser, to
    download). Returns the path written."""
    target = _checked_path(path, "path")
    if target.resolve() == record_path().resolve():
        raise ValueError(f"path must be another file than the record itself; got {target}")
    write_atomically(target, dumps(load()))
    return target


def import_record(path) -> dict:
    """Merge the record in ``path`` (one exported elsewhere) into the learner's record, and return the merged
    record. Importing the same file twice changes nothing the second time."""
    source = _checked_path(path, "path")
    try:
        text = source.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(f"path {source} does not exist: no record to import") from None
    theirs = parse(text, str(source))
    before = []

    def change(record: dict) -> bool:
        before.append(copy.deepcopy(record))
        merged = merge(record, theirs)
        if dumps(merged) == dumps(record):
            return False
        record.clear()
        record.update(merged)
        return True

    merged = update(change)
    print(f"Imported {source.name}: {what_is_new(before[0], merged)}.")
    return merged


def what_is_new(before: dict, after: dict) -> str:
    """What ``after`` holds that ``before`` did not, in words: notebooks reached, problems solved, prompts and
    problems with reviews new to it."""
    counts = [(len(after["reached"].keys() - before["reached"].keys()), "notebook", "reached"),
              (len(after["solved"].keys() - before["solved"].keys()), "problem", "solved")]
    for section, what in (("prompts", "with new reviews"), ("variants", "with new reviews of its variants")):
        grown = sum(len(item["reviews"]) > len(before[section].get(key, {"reviews": []})["reviews"])
                    for key, item in after[section].items())
        counts.append((grown, "prompt" if section == "prompts" else "problem", what))
    said = [f"{n} {word}{'s' * (n != 1)} {what.replace('its', 'their') if n != 1 else what}"
            for n, word, what in counts if n]
    return ", ".join(said) if said else "nothing new, your record already held all of it"


def _checked_path(path, name: str) -> Path:
    if not isinstance(path, (str, Path)) or not str(path).strip():
        raise TypeError(f"{name} must be a file name (str or pathlib.Path); got {type(path).__name__} {path!r}")
    chosen = Path(path).expanduser()
    if chosen.is_dir():
        raise IsADirectoryError(f"{name} must name a file, not the folder {chosen}")
    return chosen
