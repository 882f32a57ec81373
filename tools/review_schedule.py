"""Print the review schedule of a simulated learner over 60 days: which items come back on which day.

The learner reaches the notebooks of the course's first three review prompts on day 0 and rates each prompt at the
notebook's end, and at every review, always the same way (Easy, Good, Again), and solves two problems with variants, then
answers every variant of the first right and of the second wrong. Every day at 09:00 UTC they sit down for half an
hour (looking at 09:00, 09:10, 09:20, 09:30) and review whatever ``attn_lib.review`` says is due, through the same
functions the widgets call. The clock is injected; the record is a temporary file; fsrs schedules everything.

    python tools/review_schedule.py            # 60 days
    python tools/review_schedule.py --days 30

A cell reads "G>d12": rated Good (A Again, H Hard, G Good, E Easy; a variant: G right, A wrong), next due on day 12;
"A3>d1": rated Again three times in that sitting. tests/review/test_schedule.py checks the same run.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
LOOKS = (0, 10, 20, 30)  # minutes into each day's sitting
PROMPT_RATINGS = ("Easy", "Good", "Again")
VARIANT_PROBLEMS = {"02-P2": True, "02-P3": False}  # problem -> whether each of its variants is answered right


def simulate(days: int = 60) -> tuple[list[str], list[tuple[int, dict]]]:
    """(the items' ids, one row per day: (day, {item: (ratings in that sitting, next due day)}))."""
    from attn_lib._record.changes import note_verdict, rate_prompt, rate_variant
    from attn_lib._record.file import load
    from attn_lib._record.schedule import due
    from attn_lib.exercises._feedback import Feedback
    from attn_lib.review import PROMPTS
    from attn_lib.review._course import due_items

    chosen = {prompt.id: PROMPT_RATINGS[k] for k, prompt in enumerate(PROMPTS[:len(PROMPT_RATINGS)])}
    rows = []
    day0 = {}
    for prompt_id, rating in chosen.items():  # at each notebook's end, as prompts_of records
        day0[prompt_id] = ([rating], rate_prompt(prompt_id, rating, START))
    for problem_id in VARIANT_PROBLEMS:  # solved in its notebook
        note_verdict(problem_id, Feedback(True, "right"), now=START, has_variants=True)
        day0[problem_id] = (["G"], load()["variants"][problem_id])
    rows.append((0, {key: (ratings, day_of(due(item))) for key, (ratings, item) in day0.items()}))
    for day in range(1, days + 1):
        done: dict = {}
        for minutes in LOOKS:
            now = START + timedelta(days=day, minutes=minutes)
            for item in due_items(load(), now):
                if item.kind == "prompt" and item.id in chosen:
                    entry = rate_prompt(item.id, chosen[item.id], now)
                    done.setdefault(item.id, [[], None])[0].append(chosen[item.id])
                elif item.kind == "variant" and item.id in VARIANT_PROBLEMS:
                    entry = rate_variant(item.id, day, VARIANT_PROBLEMS[item.id], now)
                    done.setdefault(item.id, [[], None])[0].append("G" if VARIANT_PROBLEMS[item.id] else "A")
                else:
                    continue
                done[item.id][1] = day_of(due(entry))
        rows.append((day, {key: (ratings, next_day) for key, (ratings, next_day) in done.items()}))
    return list(chosen) + list(VARIANT_PROBLEMS), rows


def day_of(moment: datetime) -> int:
    return (moment.date() - START.date()).days


def cell(entry) -> str:
    if entry is None:
        return "."
    ratings, next_day = entry
    letter = ratings[0][0]
    return f"{letter}{len(ratings) if len(ratings) > 1 else ''}>d{next_day}"


def table(items: list[str], rows: list) -> str:
    prompts = len(items) - len(VARIANT_PROBLEMS)
    labels = [f"{item} ({PROMPT_RATINGS[k]})" if k < prompts else
              f"{item} ({'right' if VARIANT_PROBLEMS[item] else 'wrong'})" for k, item in enumerate(items)]
    width = max(12, *(len(label) for label in labels))
    lines = ["day  " + "  ".join(label.ljust(width) for label in labels)]
    for day, entries in rows:
        if entries:
            lines.append(f"{day:>3}  " + "  ".join(cell(entries.get(item)).ljust(width) for item in items).rstrip())
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=int, default=60, help="days simulated after day 0 (default 60)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        os.environ["ATTN_COURSE_RECORD"] = str(Path(folder) / "attn-course-record.json")
        items, rows = simulate(args.days)
    print(f"Review schedule over {args.days} days from {START:%Y-%m-%d} (only days with a review are shown):")
    print(table(items, rows))
    counts = {item: sum(len(entries[item][0]) for _, entries in rows if item in entries) for item in items}
    print("reviews in all: " + ", ".join(f"{item} {count}" for item, count in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
