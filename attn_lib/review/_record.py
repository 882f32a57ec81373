"""The learner's record as data: its JSON format (version 1), how it is read and checked, and how two records merge.

A record is one small readable JSON object::

    {
      "format": "attn-course-record",
      "version": 1,
      "about": "...",                                  # one line for a person who opens the file
      "reached": {"05": "2026-12-01T23:40:05+00:00"},  # notebooks reached, and when first
      "solved": {"05-P2": "2026-12-01T23:41:10+00:00"},  # problems first solved (a right check or checker)
      "prompts": {"05-R1": {"card": {...}, "reviews": [{"at": "...", "rating": "Good", "n": 1}]}},
      "variants": {"05-P2": {"card": {...}, "reviews": [{"at": "...", "rating": "Again", "n": 1,
                                                        "seed": 4711, "passed": false}]}}
    }

``card`` is the fsrs package's own ``Card.to_dict()``: the schedule of that prompt, or of the variants of that
solved problem. ``reviews`` is the log, oldest first (``n``: the
review's number in that log, which keeps the order of two reviews in the same second). Merging two records (an import) keeps every notebook reached
and every problem solved at their earliest time, takes per prompt or problem the card of the newer review, and
joins the logs: merging is commutative, associative, and a record merged with itself is unchanged.
"""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from datetime import datetime

from ._clock import parse_stamp

FORMAT = "attn-course-record"
VERSION = 1
ABOUT = ("Your record of the attention course: notebooks reached, problems solved, and the review schedule of its "
         "prompts (attn_lib.review). Keep it beside the notebooks; export_record / import_record carry it elsewhere.")
SECTIONS = ("reached", "solved", "prompts", "variants")
RATINGS = ("Again", "Hard", "Good", "Easy")
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
            "variants": {}}


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
        raise ForeignRecord(f"{where} is not an attention-course record (no \"format\": \"{FORMAT}\" in it); "
                            "it was left as it is. Move it away, or set ATTN_COURSE_RECORD to another file.")
    version = data.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and version > VERSION:
        raise NewerRecord(f"{where} is a course record of version {version}, newer than this attn_lib reads "
                          f"(version {VERSION}); it was left as it is. Update attn_lib (pip install -U attn_lib, or "
                          "git pull in the course's folder) to use it.")
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


def _problem_in(section: str, key: str, item) -> str:
    """What is wrong with one entry of a section, or ""."""
    pattern = {"reached": NOTEBOOK, "solved": PROBLEM, "prompts": PROMPT, "variants": PROBLEM}[section]
    if not pattern.match(key):
        return f"not a {'notebook' if section == 'reached' else 'problem' if pattern is PROBLEM else 'prompt'} id"
    if section in ("reached", "solved"):
        return "" if _is_time(item) else f"expected a time such as \"2026-12-01T23:40:05+00:00\"; got {item!r}"
    if not isinstance(item, dict) or set(item) != {"card", "reviews"}:
        return "expected {\"card\": ..., \"reviews\": [...]}"
    card = item["card"]
    if not isinstance(card, dict) or set(card) != CARD_KEYS or not _is_time(card["due"]):
        return f"its card is not an fsrs card ({sorted(CARD_KEYS)})"
    if card["last_review"] is not None and not _is_time(card["last_review"]):
        return "its card's last_review is not a time"
    if not isinstance(item["reviews"], list):
        return "its reviews are not a list"
    for review in item["reviews"]:
        if not (isinstance(review, dict) and _is_time(review.get("at")) and review.get("rating") in RATINGS):
            return f"a review must have a time \"at\" and a \"rating\" in {RATINGS}; got {review!r}"
        if not isinstance(review.get("n", 1), int):
            return f"a review's number \"n\" must be a whole number; got {review!r}"
    return ""


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
