"""The learner's record of the course, below both packages that use it: the checkers (``attn_lib.exercises``) write
their verdicts to it, and the review (``attn_lib.review``) reads it and writes the learner's ratings.

It imports neither of them, so imports run one way: the review imports the checkers (which problems exist, a fresh
variant of one) and the record; the checkers import the record. A checker that gives a verdict writes it here
itself, whether or not the notebook ever imported ``attn_lib.review``; what the record would otherwise have asked
the checkers (whether a problem has variants), the checker says when it writes.

Bottom to top: ``schedule.py`` (the clock, how the record writes a time, and the fsrs schedule), ``file.py`` (the
record on disk: where it is, its JSON format, reading, atomic writing, merging, export and import), ``changes.py``
(everything that changes the record: a notebook reached, a prompt rated, a variant answered, a checker's verdict).
This ``__init__`` imports nothing, so a verdict loads only what it writes with. The learner's names
(``record_path``, ``export_record``, ``import_record``, ``RecordError``) are exported by ``attn_lib.review``.
"""
