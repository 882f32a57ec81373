"""Keeping what was learned: review prompts on a spaced schedule, fresh variants of solved problems, the learner's
progress, and an Anki deck.

- ``prompts_of("05")``: the review prompts at the end of notebook 05 (answer from memory, show the answer, rate
  your recall Again / Hard / Good / Easy); rating schedules the prompt's next review.
- ``review()``: what is due now, one at a time: prompts, and new-number variants of problems you solved, judged by
  the problem's own checker. Nothing of a notebook you have not reached.
- ``progress()``: per notebook, problems solved of problems and prompts learned of prompts.
- ``export_record(path)`` / ``import_record(path)`` / ``record_path()``: the learner's record, one JSON file
  (``attn-course-record.json`` beside the notebooks, or ``$ATTN_COURSE_RECORD``), written atomically.
- ``python -m attn_lib.review --anki FILE``: every prompt as an Anki deck.

The schedule is FSRS, by the fsrs package (see ``attn_lib/_record/schedule.py``). Every function that reads the
time takes ``now`` (a timezone-aware datetime or a function returning one), so tests simulate days.

Layout, bottom to top. The record sits below this package, in ``attn_lib._record`` (the checkers write their
verdicts there too, so the checkers never import the review: this package imports them, and both import the
record): ``schedule.py`` (the clock and fsrs), ``file.py`` (where the record is and whether this kernel may write
it, its format, its checks and the merge, reading it with a corrupt one kept aside, crash-safe writing, export and
import), ``changes.py`` (what a learner's acts and the checkers' verdicts record). Here: ``_prompts.py`` (the
prompts), ``_course.py`` (the course's problems and prompts, what is due, ``progress()``), ``_text.py`` (markdown
as HTML or plain text, due times in words), ``_sessions.py`` (``prompts_of`` and ``review``) and ``_box.py`` (the
widgets' pieces; ipywidgets imported only when one is made); ``_anki.py`` and ``__main__.py`` (the deck; genanki
imported only there).
"""

from .._record.file import RecordError, export_record, import_record, record_path
from ._course import progress
from ._prompts import PROMPTS, Prompt
from ._sessions import prompts_of, review

__all__ = ["PROMPTS", "Prompt", "RecordError", "export_record", "import_record", "progress", "prompts_of",
           "record_path", "review"]
