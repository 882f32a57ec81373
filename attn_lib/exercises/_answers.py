"""check_number and check_choice: the two generic checkers for predictions (a number, or one of a few options),
and what the checkers built on them share: a learner's answer read as a number, how far a wrong number is, an
author's table of named mistakes checked. The checkers of counts, variances and notebooks 09-10 import them
from here."""

from __future__ import annotations

import contextvars
import decimal
import math
import numbers
import re
import sys

import numpy as np

from ._compare import two_numbers
from ._feedback import Feedback, fail, failure, is_blank, not_answered


# The examples of a number in the not-a-number messages: no problem's answer (tests/exercises/test_no_giveaways.py).
NUMBER_EXAMPLES = "3.5 or 1e-3"
COUNT_EXAMPLES = "12_345_000 or 1.2345e7"


def as_number(answer, finite: bool = False):
    """A real number from an int, float, Fraction, Decimal, numpy scalar, or 0-d / one-element array; None if it is
    not one, or too large for a float (:func:`read_number` says which), and, with ``finite``, if it is NaN or
    infinite: a count or a variance is a finite number."""
    if isinstance(answer, np.ndarray):
        if answer.size != 1 or answer.dtype.kind not in "iuf":
            return None
        answer = answer.reshape(()).item()
    if _digits_beyond_float(answer):
        return None
    if isinstance(answer, decimal.Decimal):
        value = float(answer) if not answer.is_snan() else math.nan
    elif isinstance(answer, (bool, np.bool_)) or not isinstance(answer, numbers.Real):
        return None
    else:
        value = float(answer)
    return None if finite and not math.isfinite(value) else value


def _digits_beyond_float(answer) -> int:
    """The digits of a whole number, Fraction or Decimal too large for a float (10 ** 400); 0 for anything else."""
    if isinstance(answer, decimal.Decimal):
        if not answer.is_finite() or abs(answer) <= decimal.Decimal(sys.float_info.max):
            return 0
    elif isinstance(answer, bool) or not isinstance(answer, numbers.Rational):
        return 0
    else:
        try:
            float(answer)
            return 0
        except OverflowError:
            pass
    return len(str(abs(int(answer))))


def _tuple_of_commas(answer):
    """What a number written with commas became in Python ("8,000,000" is the tuple (8, 0, 0)): (the number as it
    was typed, the number the Python way) if ``answer`` is such a tuple of whole numbers, else None; ("", "") for a
    tuple of a few whole numbers that are no thousands (3,5 written for 3.5)."""
    if not (isinstance(answer, tuple) and 2 <= len(answer) <= 6
            and all(isinstance(x, numbers.Integral) and not isinstance(x, (bool, np.bool_)) for x in answer)):
        return None
    first, *rest = (int(x) for x in answer)
    if 1 <= abs(first) <= 999 and all(x == 0 or 100 <= x <= 999 for x in rest):
        groups = [str(first)] + [f"{x:03d}" for x in rest]
        return ",".join(groups), "_".join(groups)
    return "", ""


def read_number(answer, *, what: str = "Your answer", examples: str = NUMBER_EXAMPLES, finite: bool = False):
    """The learner's ``answer`` as a float (see :func:`as_number`), or a failing Feedback saying what it is instead:
    a tuple that commas made of a number (``commas-made-a-tuple``), a number beyond a float
    (``beyond-float``), or anything else (``not-a-number``). Never raises."""
    value = as_number(answer, finite=finite)
    if value is not None:
        return value
    digits = _digits_beyond_float(answer)
    if digits:
        return failure("beyond-float", what=what, digits=f"{digits:,}")
    commas = _tuple_of_commas(answer)
    if commas is not None:
        typed, python = commas
        written = f"{typed} is the tuple {answer!r}" if typed else f"{answer!r} is a tuple of {len(answer)} numbers"
        way = f"{python} or {python.replace('_', '')}" if typed else "a decimal point for a fraction (3.5)"
        return failure("commas-made-a-tuple", what=what, written=written, way=way)
    try:
        got = f"{type(answer).__name__} {answer!r}"
    except Exception:  # noqa: BLE001 (an object whose repr fails is still named)
        got = f"a {type(answer).__name__}"
    return failure("not-a-number", what=what, examples=examples, got=got)


def _number_text(x: float) -> str:
    """A learner's number as they would recognise it: integers with separators, else up to 6 digits."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x.is_integer() and abs(x) < 1e15:
        return f"{int(x):,}"
    return f"{x:.6g}"


def _judged_against(value: float, expected: float, rel: float, abs_tol: float) -> str:
    """A right number's reason when the author gave none: what it was judged against, and how closely."""
    if math.isnan(expected) or math.isinf(expected) or (rel == 0 and abs_tol == 0):
        return f"{_number_text(value)} is right: it is exactly the value computed from the problem's numbers."
    parts = ([f"{rel * 100:.3g} %"] if rel else []) + ([f"{abs_tol:.3g}"] if abs_tol else [])
    return (f"{_number_text(value)} is right: it is within {' or '.join(parts)} of the value computed from the "
            "problem's numbers (the tolerance allows for rounding, or for an estimate from samples).")


def _near(value: float, target: float, rel: float, abs_tol: float) -> bool:
    if math.isnan(target) or math.isinf(target):
        return value == target or (math.isnan(value) and math.isnan(target))
    if not math.isfinite(value):
        return False
    return abs(value - target) <= max(rel * abs(target), abs_tol)


# A reason never narrows the answer down to a handful of numbers: a band whose possible answers number fewer than this
# (counted in steps of the problem's precision) is not named, and the reason says only that the answer is not it.
HANDFUL = 8
_BANDS = ((1.1, "by less than 10 %"), (1.5, "by 10 % to 50 %"), (3, "between 1.5 and 3 times"),
          (10, "between 3 and 10 times"), (100, "between 10 and 100 times"), (1000, "between 100 and 1,000 times"))


def how_far(value: float, expected: float, step: float | None = None) -> str:
    """How far a wrong number is from the expected one, without stating the expected one, and without narrowing it
    to fewer than :data:`HANDFUL` candidates spaced ``step`` apart (by default 1 for a whole-number answer, else 1 %
    of it)."""
    if not math.isfinite(value):
        return f"Your answer is {_number_text(value)}; the answer is a finite number."
    if not math.isfinite(expected):
        return f"Your answer, {_number_text(value)}, is finite; think about what happens to the numbers here."
    value, expected = float(value), float(expected)
    shown = _number_text(value)
    if not value.is_integer():  # enough digits to differ visibly from the expected value
        shown = max(shown, two_numbers(value, expected)[0], key=len)
    if expected == 0:  # no side, no size: a word about either would say the answer is 0
        return f"Your answer, {shown}, is not it."
    if value == 0:
        return "Your answer is 0, which is not it."
    if (value > 0) != (expected > 0):  # its size is not shown: it may be the answer's, one step from it
        return f"Your answer has the wrong sign: the answer is {'positive' if expected > 0 else 'negative'}."
    if step is None:
        step = 1.0 if float(expected).is_integer() else abs(expected) * 0.01
    ratio = value / expected
    bigger = ratio > 1
    factor = ratio if bigger else 1 / ratio
    # A band, not the factor: "about 4 times too small" or "20% too large" would be the answer one step away.
    side = "large" if bigger else "small"
    low = 1.0
    for top, band in _BANDS:
        if factor < top:
            # The answers this band leaves open: |value| / top .. |value| / low (too large), or |value| low .. top.
            near, far = (abs(value) / top, abs(value) / low) if bigger else (abs(value) * low, abs(value) * top)
            if (far - near) / step < HANDFUL:
                return f"Your answer, {shown}, is not it."
            return f"Your answer, {shown}, is too {side}, {band}." if top <= 1.5 else \
                f"Your answer, {shown}, is {band} too {side}."
        low = top
    if bigger and abs(value) / low / step < HANDFUL:  # the answers left open lie between 0 and |value| / 1000
        return f"Your answer, {shown}, is not it."
    return f"Your answer, {shown}, is more than 1,000 times too {side}."


def _check_real(value, name: str) -> float:
    number = as_number(value)
    if number is None:
        raise TypeError(f"{name} must be a real number; got {type(value).__name__} {value!r}")
    return number


def _check_text(value, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string; got {type(value).__name__} {value!r}")
    return value


# Set while a variant's numbers are drawn (_prediction): a table whose two named mistakes coincide is refused too, so
# that a drawn variant can name every mistake it lists (the notebook's own numbers are the author's to choose).
DISTINCT_MISTAKES = contextvars.ContextVar("distinct_mistakes", default=False)


# A list while a test records the calls a prediction's judge makes (the checker, its arguments): the tests drive each
# recorded call with wrong answers and read every reason for the expected value (tests/exercises/test_no_giveaways.py).
CALLS = contextvars.ContextVar("calls", default=None)


# A list while a prediction's variant is drawn or shown: each judging checker notes the answer it expects and how
# closely it judges (``note_answer``), so that a draw whose answer is the notebook's own is drawn again, and a variant
# can say how precise a number must be.
ANSWERS = contextvars.ContextVar("answers", default=None)


def note_answer(expected, precision: str | None = None) -> None:
    """Note the answer a checker expects, and in words how closely it judges a number (None for a choice or shapes)."""
    answers = ANSWERS.get()
    if answers is not None:
        answers.append((expected, precision))


def precision_words(rel: float, abs_tol: float, decimals=None) -> str:
    """How closely a number is judged, as a statement says it: "exactly", "to within 1 %", "to 2 decimals"."""
    if decimals is not None:
        return f"to {decimals} decimal{'' if decimals == 1 else 's'}"
    if rel == 0 and abs_tol == 0:
        return "exactly"
    parts = ([f"{rel * 100:g} %"] if rel else []) + ([f"{abs_tol:g}"] if abs_tol else [])
    return "to within " + " or ".join(parts)


def record_call(name: str, args: tuple, kwargs: dict) -> None:
    """Note a checker's call where a test records them (:data:`CALLS`); nothing otherwise."""
    calls = CALLS.get()
    if calls is not None:
        calls.append((name, args, kwargs))


def added_apart(expected, listed, more, rel=0.0, abs_tol=0.0, taken=()) -> list:
    """A table of named mistakes for :func:`check_number`: the rows ``listed`` as they are, then each row of ``more``
    only where its value is a number of its own on these numbers: out of the tolerance (``rel``, ``abs_tol``, as
    check_number compares, either way round) of the answer ``expected``, of every row kept before it under another
    id, and of each value in ``taken`` (a checker's own mistakes). A mistake added to a problem after its variants
    were drawn is left out of a variant's table where it meets another (the earlier row names that number), instead
    of making check_number refuse the draw: no variant's numbers change for it."""
    def meets(a, b):
        return _near(a, b, rel, abs_tol) or _near(b, a, rel, abs_tol)

    kept = list(listed)
    for row in more:
        if not (meets(row[0], expected) or any(meets(row[0], value) for value in taken)
                or any(meets(row[0], k[0]) for k in kept if k[1] != row[1])):
            kept.append(row)
    return kept


def named_mistakes(mistakes, expected, rel, abs_tol) -> list:
    if isinstance(mistakes, (str, bytes)) or not hasattr(mistakes, "__iter__"):
        raise TypeError(f"mistakes must be a sequence of tuples (value, mistake_id, reason[, hint]); got "
                        f"{type(mistakes).__name__} {mistakes!r}")
    out = []
    for k, item in enumerate(mistakes):
        if not isinstance(item, tuple) or len(item) not in (3, 4):
            raise TypeError(f"mistakes[{k}] must be a tuple (value, mistake_id, reason) or (value, mistake_id, "
                            f"reason, hint); got {item!r}")
        value = _check_real(item[0], f"mistakes[{k}][0] (the mistaken value)")
        mid = _check_text(item[1], f"mistakes[{k}][1] (the mistake id)")
        reason = _check_text(item[2], f"mistakes[{k}][2] (the reason)")
        hint = _check_text(item[3], f"mistakes[{k}][3] (the hint)") if len(item) == 4 else None
        if not mid:
            raise ValueError(f"mistakes[{k}][1] (the mistake id) must not be empty")
        if _near(value, expected, rel, abs_tol) or _near(expected, value, rel, abs_tol):
            raise ValueError(f"mistakes[{k}][0] = {value!r} is within the tolerance of expected = {expected!r}, so "
                             "an answer there would pass; drop it or tighten rel / abs_tol")
        if DISTINCT_MISTAKES.get() and any(other_id != mid and (_near(value, other, rel, abs_tol)
                                                                 or _near(other, value, rel, abs_tol))
                                           for other, other_id, _, _ in out):
            raise ValueError(f"mistakes[{k}] = {value!r} coincides with another named mistake")
        out.append((value, mid, reason, hint))
    return out


# The ids of an answer that is not a number (read_number): every checker of a number may give them.
NUMBER_UNREAD = ("not-a-number", "commas-made-a-tuple", "beyond-float")


# The ids each checker of this module gives (the teacher's table is generated from them): "<own>" stands for the
# author's own ids (``mistakes=``), "chose-<label>" for one id per option, its reason the option's own.
GIVES = {
    "check_number": ("<own>", "too-few-decimals", "wrong-number", *NUMBER_UNREAD),
    "check_choice": ("chose-<label>", "not-an-option"),
}


def check_number(answer, expected, *, rel=0.05, abs_tol=0.0, mistakes=(), explain="", hint="",
                 what="your answer", decimals=None) -> Feedback:
    """Check a predicted number: right within ``rel`` (relative) or ``abs_tol`` of ``expected``.

    Parameters
    ----------
    answer : int, float, numpy scalar, or 0-d / one-element array
        The learner's number; ``None`` or ``...`` means not answered yet.
    expected : real number
        The right value (inf and nan are compared exactly).
    rel, abs_tol : float
        Relative and absolute tolerance; the answer passes when either holds.
    mistakes : sequence of tuples
        ``(value, mistake_id, reason)`` or ``(value, mistake_id, reason, hint)``: an answer within the same
        tolerance of ``value`` fails with that id, reason and hint (``hint`` below when none is given).
    explain : str
        Why the right answer is right: the reason shown when it passes.
    hint : str
        Shown with a wrong answer.
    what : str
        What the learner gives, for the "not answered" and "not a number" messages.
    decimals : int, optional
        The problem asks for the number to this many decimals: ``rel`` and ``abs_tol`` are then replaced by half a
        unit of the last decimal (0.005 for 2), and an answer that agrees only to fewer decimals is named
        (``too-few-decimals``).

    Returns
    -------
    Feedback
        Mistake ids: those of ``mistakes``, ``too-few-decimals``, ``wrong-number`` (says how far off, without
        the expected value), ``not-a-number``, ``not-answered``.

    Raises
    ------
    TypeError, ValueError
        For an author's bad argument (named in the message).

    Examples
    --------
    >>> check_number(64, 64, explain="The variance of a sum of 64 unit-variance terms is 64.")
    Correct: The variance of a sum of 64 unit-variance terms is 64.
    >>> check_number(8, 64, mistakes=[(8, "std", "8 is the standard deviation, not the variance.")]).mistake
    'std'
    >>> print(check_number(256, 64, hint="Variances add."))
    Not yet: Your answer, 256, is between 3 and 10 times too large.
    Hint: Variances add.
    >>> check_number(np.array([64.0]), 64).passed
    True
    """
    record_call("check_number", (answer, expected), dict(rel=rel, abs_tol=abs_tol, mistakes=mistakes, explain=explain,
                                                         hint=hint, what=what, decimals=decimals))
    expected = _check_real(expected, "expected")
    rel = _check_real(rel, "rel")
    abs_tol = _check_real(abs_tol, "abs_tol")
    if not (math.isfinite(rel) and rel >= 0):
        raise ValueError(f"rel must be a finite number >= 0; got {rel!r}")
    if not (math.isfinite(abs_tol) and abs_tol >= 0):
        raise ValueError(f"abs_tol must be a finite number >= 0; got {abs_tol!r}")
    if decimals is not None:
        if isinstance(decimals, bool) or not isinstance(decimals, numbers.Integral) or decimals < 0:
            raise TypeError(f"decimals must be a whole number >= 0 or None; got {decimals!r}")
        rel, abs_tol = 0.0, 0.5 * 10.0 ** -int(decimals) * (1 + 1e-9)
    explain = _check_text(explain, "explain")
    hint = _check_text(hint, "hint")
    what = _check_text(what, "what")
    table = named_mistakes(mistakes, expected, rel, abs_tol)
    note_answer(expected, precision_words(rel, abs_tol, decimals))
    if is_blank(answer):
        return not_answered(what)
    value = read_number(answer, what=what[:1].upper() + what[1:])
    if isinstance(value, Feedback):
        return value
    if _near(value, expected, rel, abs_tol):
        return Feedback(True, explain or _judged_against(value, expected, rel, abs_tol))
    close = [(abs(value - v) if math.isfinite(v) else 0.0, mid, reason, h) for v, mid, reason, h in table
             if _near(value, v, rel, abs_tol)]
    if not close and decimals is not None and math.isfinite(expected):
        fewer = [k for k in range(int(decimals)) if value == round(value, k) == round(expected, k)]
        if fewer:
            k = fewer[-1]
            return failure("too-few-decimals", value=_number_text(value), k=k, s="" if k == 1 else "s",
                           decimals=decimals, hint=hint,
                           more="one more digit" if decimals - k == 1 else f"{decimals - k} more digits")
    if close:
        _, mid, reason, mistake_hint = min(close, key=lambda c: c[0])
        return fail(mid, reason, hint if mistake_hint is None else mistake_hint)
    step = 2 * max(rel * abs(expected), abs_tol) or None  # what the tolerance tells apart
    return failure("wrong-number", how_far=how_far(value, expected, step), hint=hint)


def _norm(option) -> str:
    text = str(option).strip()
    while text[-1:] in (")", "."):
        text = text[:-1].rstrip()
    if text.startswith("(") and not text.endswith(")"):
        text = text[1:].lstrip()
    return text.casefold()


def check_choice(answer, right, reasons, *, hint="") -> Feedback:
    """Check a multiple-choice answer: each option has its own reason, shown whichever is chosen.

    Parameters
    ----------
    answer : str or None
        The learner's option label, e.g. "b", "B", " b) " or "b." (case and a trailing ")" or "." do not matter).
    right : str
        The right option's label (a key of ``reasons``).
    reasons : dict
        Option label -> one sentence saying why it is right or wrong.
    hint : str
        Shown with a wrong option.

    Returns
    -------
    Feedback
        Mistake ids: ``chose-<label>`` for a wrong option, ``not-an-option``, ``not-answered``.

    Examples
    --------
    >>> reasons = {"a": "Rows sum to one.", "b": "Columns do not: each row is one query's distribution."}
    >>> check_choice("A)", "a", reasons)
    Correct: Rows sum to one.
    >>> check_choice("b", "a", reasons).mistake
    'chose-b'
    >>> check_choice("c", "a", reasons).mistake
    'not-an-option'
    """
    record_call("check_choice", (answer, right, reasons), dict(hint=hint))
    if not isinstance(reasons, dict) or not reasons:
        raise TypeError(f"reasons must be a non-empty dict of option label -> reason; got {reasons!r}")
    labels = {}
    for label, reason in reasons.items():
        _check_text(label, "each key of reasons (an option label)")
        _check_text(reason, f"reasons[{label!r}]")
        key = _norm(label)
        if not key or key in labels:
            raise ValueError(f"reasons has an empty or repeated option label: {label!r}")
        labels[key] = label
    _check_text(right, "right")
    if right not in reasons:
        raise ValueError(f"right must be one of the options {list(reasons)}; got {right!r}")
    hint = _check_text(hint, "hint")
    note_answer(right)
    options = ", ".join(str(label) for label in reasons)
    if is_blank(answer) or (isinstance(answer, str) and not answer.strip()):
        return not_answered(f"your choice among the options {options}")
    if isinstance(answer, (str, numbers.Integral)) and not isinstance(answer, bool):
        label = labels.get(_norm(answer))
        if label is None and isinstance(answer, str):  # the option's line copied: "C: NaN in every entry", "b) ..."
            copied = re.match(r"\s*\(?\s*([^\s:).]+)\s*[:).]\s+\S", answer)
            label = labels.get(_norm(copied.group(1))) if copied else None
    else:
        label = None
    if label is None:
        return failure("not-an-option", answer=repr(answer), options=options, first=next(iter(reasons)))
    if label == right:
        return Feedback(True, reasons[right])
    return fail(f"chose-{label}", reasons[label], hint)
