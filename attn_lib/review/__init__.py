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

The schedule is FSRS, by the fsrs package (see ``_schedule.py``). Every function that reads the time takes ``now``
(a timezone-aware datetime or a function returning one), so tests simulate days.

Layout, bottom to top: ``_prompts.py`` (the prompts), ``_clock.py``, ``_location.py`` (where the record is, and
whether this kernel may write it), ``_atomic.py`` (crash-safe replacement of a file), ``_record.py`` (the format,
its checks and the merge), ``_store.py`` (reading and writing the file; a corrupt one kept aside),
``_schedule.py`` (fsrs), ``_course.py`` (the course's problems), ``_solved.py`` (what the checkers record),
``_actions.py`` (what a learner's rating records), ``_queue.py`` (what is due), ``_transfer.py`` (export, import),
``_markup.py``, ``_words.py``, ``_progress.py``; the widgets ``_box.py``, ``_prompt_box.py``, ``_session.py``
(ipywidgets imported only when one is made); ``_anki.py`` and ``__main__.py`` (the deck; genanki imported only
there).
"""

from ._location import record_path
from ._progress import progress
from ._prompt_box import prompts_of
from ._prompts import PROMPTS, Prompt
from ._record import RecordError
from ._session import review
from ._transfer import export_record, import_record

__all__ = ["PROMPTS", "Prompt", "RecordError", "export_record", "import_record", "progress", "prompts_of",
           "record_path", "review"]
