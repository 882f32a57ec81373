"""The one judging skeleton behind every checker that runs a learner's function.

A function checker is a :class:`FunctionProblem` (how to call the learner's function, the seeded cases, the
table of known mistakes) handed to :func:`judge`. ``judge`` does everything else, the same way for every problem:

1. ``None``, ``...``, or a function raising ``NotImplementedError`` -> "not answered yet" (id ``not-answered``).
2. Not callable -> ``not-callable``; cannot be called with ``params`` -> ``wrong-signature``.
3. Runs the function on a copy of every case's inputs, safely: an exception becomes ``exception`` (naming the
   learner's line); ``SystemExit`` becomes ``exit``; more than ``time_limit`` seconds in all becomes ``too-slow``;
   calling one of attn_lib's functions named in ``forbidden`` (under whatever name it was imported) becomes
   ``used-attn-lib``; returning None, a tuple or a non-number becomes ``returned-none``, ``returned-tuple``,
   ``not-an-array``.
4. Right when every case matches ``case.expected`` to the precision of the learner's own dtype (a float32 answer
   right to float32 rounding passes, float16 gets float16's; the tolerance grows with ``case.scale``, the size of
   the numbers the computation goes through). Then ``after_pass`` may still fail it (too much memory, not
   boolean) or add a note.
5. Otherwise the first mistake of the table that every informative case agrees with (each mistake computes its
   mistaken answer with ``variants`` on the same inputs; a variant that raises matches a learner that raised).
   When none matches and the answer fails on cases tagged ``"batch"`` or ``"broadcast"`` (a 2-D-only answer with
   a second mistake), steps 5-7 run on the other cases and a note about the batch is added.
6. Otherwise: right except NaN/inf on cases tagged ``"large"`` -> ``overflow`` (id, reason, hint).
7. Otherwise ``no-batch`` (right on every case without the tag ``"batch"``, wrong on one with it), an
   exception or odd return value on some case, ``diagnose(results, cases, tols, run)`` (the problem's own
   structural reasons), then the generic ones: ``wrong-shape``, ``non-finite-output``, ``wrong-values`` (first
   differing entry, printed with enough digits that the two numbers differ, and how many digits agree, naming
   rounding as a possible cause when many do).

Example: a complete checker
---------------------------
>>> import numpy as np
>>> from attn_lib.exercises._judge import Case, FunctionProblem, Mistake, judge
>>> def _cases():
...     rng = np.random.default_rng(0)  # seeded: the same words on every run (nbval compares them)
...     cases = []
...     for shape in [(3, 4), (2, 3, 5)]:  # a batch case too, when the problem promises (..., n, m)
...         x = rng.normal(size=shape)
...         cases.append(Case(f"x of shape {shape}", {"x": x}, expected=x - x.mean(axis=-1, keepdims=True)))
...     return cases
>>> def _mistakes():
...     return [
...         Mistake("mean-wrong-axis", "You subtracted each column's mean, not each row's.",
...                 "Use axis=-1 with keepdims=True.",
...                 variants=(lambda x: x - x.mean(axis=-2, keepdims=True),)),
...         Mistake("whole-mean", "You subtracted the mean of the whole array.", "Give np.mean an axis.",
...                 variants=(lambda x: x - x.mean(),)),
...     ]
>>> CENTRE = FunctionProblem(
...     checker="check_centre", params=("x",), cases=_cases, mistakes=_mistakes, what="centred rows",
...     passed="Your rows are centred on all {count} cases.", forbidden=())
>>> def check_centre(fn):
...     return judge(fn, CENTRE)
>>> check_centre(lambda x: x - x.mean(axis=-1, keepdims=True)).passed
True
>>> check_centre(lambda x: (x - x.mean(axis=-1, keepdims=True)).astype(np.float32)).passed
True
>>> check_centre(lambda x: x - x.mean()).mistake
'whole-mean'
>>> print(check_centre(None).verdict)
Not answered yet
>>> check_centre(lambda x: x - np.median(x, axis=-1, keepdims=True)).mistake
'wrong-values'

Writing one
-----------
- ``Case(label, inputs, expected, tags=(), scale=None)``: ``inputs`` maps each parameter name to its value
  (arrays are copied before each call); ``label`` completes "when called on ..."; ``expected`` is computed by you
  (attn_lib or plain numpy, before the learner's code runs). Tag a case ``"large"`` when its scores are near 1000
  (the overflow rule uses it). ``scale`` is the size of the numbers the exponent sees (default: the largest
  finite input); an answer passes within about 64 float32 roundings at that scale (64 of its own dtype's if
  coarser: float16).
- ``Mistake(id, reason, hint, variants, strict_nonfinite=False)``: each variant takes the case's inputs as
  keywords and returns the mistaken answer (or raises, as the mistaken code would: a learner matches when
  raising the same exception with the same message, numbers aside). A case where the variant is
  mostly NaN/inf tells nothing and is skipped, unless ``strict_nonfinite`` (a numerical mistake whose NaN/inf
  must be reproduced). A mistake only matches if on some case it differs from the right answer: order the table
  from specific to general.
- ``FunctionProblem``: ``params`` are passed positionally, in order; ``optional`` names (e.g. ``("mask",)``) are
  passed by keyword only when the case's value is not None; a function that cannot take them is judged on the
  other cases and then fails with ``no-<name>-parameter``. ``by_name`` lists params passed by keyword when the
  learner's function has a parameter of that name (e.g. ``("chunk_size",)``), else positionally. ``forbidden``
  names attn_lib functions the learner must write, not call (e.g. ``("softmax",)``). ``diagnose(results, cases,
  tols, run) -> Feedback | None`` sees every result as an array (exceptions and odd returns were reported
  before), ``tols[i]`` the (rtol, atol) for ``results[i]`` (use ``close(got, want, tol)``), and may call the
  learner again with ``run``. ``after_pass(fn, run) -> Feedback | str | None`` runs once everything is right:
  ``run(*args, **kwargs)`` calls the learner's function safely (same rules) and returns its raw result; return a
  failing Feedback, a note to append, or None. ``convert="float"`` turns results into float arrays;
  ``convert="array"`` keeps bool/int dtypes.
- ``run`` returns the raw result, or a :class:`Raised` when the learner's code raised. Helpers here:
  ``first_difference(got, want, tol, what)``, ``two_numbers(a, b)`` (a wrong and a right number with digits
  enough to differ), ``fmt``, ``index``, ``close``, ``is_right``; in ``_pieces``: learner-style, batch-safe
  ``_softmax``, ``_scaled``, ``_out``, ``_blocked`` and the texts several checkers share (``_AXIS_1``,
  ``_UNIFORM``, ``_SMALL_FILL``, ``_GLOBAL_MAX``, ``_NO_DIVISION``, ...). ``time_limit`` defaults to 10 s.
- Export ``check_x`` from ``attn_lib/exercises/__init__.py``, add its row to that module's table of mistake
  ids, and test it in ``tests/exercises/test_check_x.py`` with a table of wrong answers (each asserted to get
  its own id) and a table of right-but-unusual answers (all must pass).
"""

from __future__ import annotations

import functools
import inspect
import re
import signal
import sys
import threading
import time
import types
import warnings
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ._feedback import Feedback, _fail, _not_answered
from ._running import _learner_line, _signature_text


TIME_LIMIT = 10.0  # seconds for all of one checker's calls of the learner's function


# ------------------------------------------------------------------------------------------- the author's parts


@dataclass
class Case:
    """One set of inputs a checker gives the learner's function, with the right answer."""

    label: str
    inputs: dict
    expected: np.ndarray
    tags: frozenset = frozenset()
    scale: float | None = None

    def __post_init__(self):
        self.tags = frozenset(self.tags)
        self.expected = np.asarray(self.expected)
        if self.scale is None:
            sizes = [np.abs(v[np.isfinite(v)]).max(initial=0.0) for v in self.inputs.values()
                     if isinstance(v, np.ndarray) and v.dtype.kind == "f"]
            self.scale = float(max(sizes, default=1.0))
        self.scale = max(1.0, float(self.scale))


@dataclass
class Mistake:
    """A known mistake: functions computing the mistaken answer, and what to tell the learner."""

    id: str
    reason: str
    hint: str
    variants: tuple = ()
    strict_nonfinite: bool = False


_OVERFLOW_TEXT = (
    "Exponentials of scores near 1000 overflow: exp(710) is already above the largest float64 "
    "(about 1.8e308), and inf / inf is NaN."
)
_FIX_OVERFLOW = (
    "Subtract each row's maximum before np.exp: x - np.max(x, axis=-1, keepdims=True). Adding a constant to a "
    "row does not change its softmax, and the largest exponent becomes exp(0) = 1."
)


@dataclass
class FunctionProblem:
    """Everything :func:`judge` needs to know about one function-writing problem (see the module docstring)."""

    checker: str
    params: tuple
    cases: Callable[[], list]
    mistakes: Callable[[], list]
    passed: str
    what: str = "output"
    optional: tuple = ()
    by_name: tuple = ()
    forbidden: tuple = ()
    overflow: tuple = (
        "naive-overflow",
        "Your function is right on small scores, but on {label} it gives NaN or inf: it does not subtract each "
        "row's maximum before np.exp. " + _OVERFLOW_TEXT,
        _FIX_OVERFLOW,
    )
    diagnose: Callable | None = None
    after_pass: Callable | None = None
    hint: str = "Call your function by hand on a small input and print each intermediate array."
    define: str = ""
    convert: str = "float"
    time_limit: float | None = None  # seconds; None: TIME_LIMIT, read when the check runs


# ------------------------------------------------------------------------------------------- running safely


class _Verdict(Exception):
    """Unwinds a whole check with a final Feedback (not answered, too slow, exit, forbidden call)."""

    def __init__(self, feedback: Feedback):
        super().__init__(feedback.reason)
        self.feedback = feedback


class _TimeUp(BaseException):
    """Raised by the timer inside the learner's code; a BaseException so `except Exception` cannot swallow it."""


@dataclass
class Raised:
    """The learner's function raised ``exc``; ``line`` is the learner's line where it happened."""

    exc: BaseException
    line: str = ""

    def describe(self) -> str:
        message = str(self.exc).strip()
        if len(message) > 300:
            message = message[:297] + "..."
        text = type(self.exc).__name__ + (f": {message}" if message else "")
        return text + (f" ({self.line})" if self.line else "")


@dataclass
class Bad:
    """A returned value that is not an array of the expected kind."""

    mistake: str
    text: str


def _copy(value):
    return value.copy() if isinstance(value, np.ndarray) else value


def _namespaces_of(fn) -> list:
    """Global namespaces the learner's code looks names up in: fn's own, and its closure's functions'."""
    spaces, seen = [], set()
    stack = [fn]
    while stack:
        f = stack.pop()
        f = getattr(f, "func", f)  # functools.partial
        f = getattr(f, "__func__", f)  # bound method
        if not hasattr(f, "__globals__") and callable(f):  # an object with __call__
            f = getattr(type(f) if not isinstance(f, type) else f, "__call__", None)
        g = getattr(f, "__globals__", None)
        if isinstance(g, dict) and id(g) not in seen:
            seen.add(id(g))
            spaces.append(g)
        for cell in getattr(f, "__closure__", None) or ():
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            if isinstance(value, types.FunctionType):
                stack.append(value)
    return spaces


class Runner:
    """Calls the learner's function safely; used as a context manager around all calls of one check."""

    def __init__(self, fn, problem: FunctionProblem):
        self.fn = fn
        self.problem = problem
        self.used: list[str] = []
        self._patched: list = []
        self._deadline = None
        self._old_handler = None
        self._armed = False
        self._left = 0.0

    # -- forbidden attn_lib functions: wrapped wherever the learner's code can reach them
    def _patch(self):
        if not self.problem.forbidden:
            return
        import attn_lib

        for name in self.problem.forbidden:
            original = getattr(attn_lib, name)

            @functools.wraps(original)
            def spy(*args, _original=original, _name=name, **kwargs):
                self.used.append(_name)
                return _original(*args, **kwargs)

            spaces = [attn_lib.__dict__, *_namespaces_of(self.fn)]
            module = sys.modules.get(getattr(original, "__module__", ""), None)
            if module is not None:
                spaces.append(module.__dict__)
            for space in spaces:
                for key, value in list(space.items()):
                    if value is original:
                        space[key] = spy
                        self._patched.append((space, key, original, spy))

    def _unpatch(self):
        for space, key, original, spy in reversed(self._patched):
            if space.get(key) is spy:
                space[key] = original
        self._patched.clear()

    # -- time limit: SIGALRM in the main thread, armed only while the learner's code runs (the checker's own
    # work is never interrupted); elsewhere no limit (signals only reach the main thread)
    def __enter__(self):
        self._left = _limit(self.problem)  # seconds of learner time left
        self._armed = False
        if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
            try:
                self._old_handler = signal.signal(signal.SIGALRM, self._alarm)
                self._deadline = True
            except (ValueError, OSError):
                self._deadline = None
        return self

    def _alarm(self, signum, frame):
        if self._armed:  # only inside the learner's code
            self._armed = False
            raise _TimeUp()

    def __exit__(self, *exc):
        if self._deadline is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._old_handler or signal.SIG_DFL)
            self._deadline = None
        self._unpatch()
        return False

    def _run(self, args, kwargs):
        if self._deadline is None:
            return self.fn(*args, **kwargs)
        if self._left <= 0:
            raise _TimeUp()
        start = time.monotonic()
        self._armed = True
        signal.setitimer(signal.ITIMER_REAL, self._left)
        try:
            return self.fn(*args, **kwargs)
        finally:
            self._armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            self._left -= time.monotonic() - start

    def call(self, *args, **kwargs):
        """The learner's result, or a Raised; raises _Verdict for not-answered, exit, too slow, forbidden."""
        args = tuple(_copy(a) for a in args)
        kwargs = {k: _copy(v) for k, v in kwargs.items()}
        self._patch()
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                result = self._run(args, kwargs)
        except NotImplementedError:
            raise _Verdict(_not_answered()) from None
        except _TimeUp:
            raise _Verdict(_too_slow(self.problem)) from None
        except SystemExit as exc:
            where = _learner_line(exc)
            code = f": {exc.code}" if exc.code not in (None, "") else ""
            raise _Verdict(_fail(
                "exit",
                f"Your function called exit (SystemExit{code}{', ' + where if where else ''}), which would stop "
                "the whole program. A function hands back its answer with `return`.",
                "Remove the exit() / sys.exit() call and return the array instead.",
            )) from None
        except Exception as exc:  # the learner's code may raise anything: report it, never propagate it
            result = Raised(exc, _learner_line(exc))
        finally:
            self._unpatch()
        if self.used:
            raise _Verdict(_used_attn_lib(self.problem, self.used[0]))
        return result


def _limit(problem: FunctionProblem) -> float:
    return TIME_LIMIT if problem.time_limit is None else problem.time_limit


def _too_slow(problem: FunctionProblem) -> Feedback:
    return _fail(
        "too-slow",
        f"Your function was still running after {_limit(problem):g} s, on inputs of a few dozen numbers "
        "(the right answer takes a few milliseconds): a loop that never ends, or one that runs far more often "
        "than you meant.",
        "Call your function by hand on a small input; print the loop variable to see where it gets stuck "
        "(Kernel > Interrupt stops a cell that runs forever).",
    )


def _used_attn_lib(problem: FunctionProblem, name: str) -> Feedback:
    return _fail(
        "used-attn-lib",
        f"Your function calls attn_lib.{name}, the function this problem asks you to write. The point is to "
        f"build it yourself from numpy operations; attn_lib.{name} is there to compare with afterwards.",
        f"Replace the call to {name} with your own numpy code (np.exp, np.max, np.sum, @, ...).",
    )


def _accepts(fn, *args, **kwargs) -> bool | None:
    """Whether ``fn`` can be called with these arguments (None when its signature cannot be read)."""
    try:
        inspect.signature(fn).bind(*args, **kwargs)
    except TypeError:
        return False
    except ValueError:
        return None
    return True


def _has_parameter(fn, name: str) -> bool:
    """Whether ``fn`` has a parameter ``name`` that can be passed by keyword."""
    try:
        parameter = inspect.signature(fn).parameters.get(name)
    except (TypeError, ValueError):
        return False
    return parameter is not None and parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY)


def _blank(answer) -> bool:
    return answer is None or answer is Ellipsis


def _as_result(out, what: str, convert: str = "float"):
    """The learner's return value as an array (float64 for convert="float"), or a Bad / Raised."""
    if isinstance(out, (Raised, Bad)):
        return out
    if out is None:
        return Bad("returned-none", f"Your function returned None instead of the {what}: is a `return` missing?")
    if isinstance(out, tuple):
        return Bad("returned-tuple", f"Your function returned a tuple of {len(out)} items; return the {what} "
                   "alone, as one array.")
    try:
        arr = np.asarray(out)
    except Exception:  # ragged lists and the like
        return Bad("not-an-array", f"Your function returned {type(out).__name__}, not an array of numbers.")
    if arr.dtype.kind not in "biuf":
        return Bad("not-an-array", f"Your function returned {type(out).__name__} of {arr.dtype}, not an array "
                   "of real numbers.")
    return arr.astype(float) if convert == "float" else arr


# ------------------------------------------------------------------------------------------- comparing


def tolerance(dtype, case: Case) -> tuple[float, float]:
    """(rtol, atol) for a learner's answer of ``dtype`` on ``case``: 64 roundings at the case's scale, of that
    dtype or of float32 if finer (a step done in float32 may come back as float64: 1 / np.sqrt(d_k) promotes it),
    at most 2 % (float16)."""
    dtype = np.dtype(dtype)
    eps = max(np.finfo(dtype).eps if dtype.kind == "f" else 0.0, float(np.finfo(np.float32).eps))
    rtol = min(0.02, 64 * eps * case.scale)
    return rtol, rtol * 1e-2


def close(got, want, tol) -> np.ndarray:
    rtol, atol = tol
    return np.isclose(got, want, rtol=rtol, atol=atol)


def is_right(got, case: Case, tol) -> bool:
    return (
        isinstance(got, np.ndarray)
        and got.shape == case.expected.shape
        and bool(np.isfinite(got).all())
        and bool(close(got, case.expected, tol).all())
    )


def nonfinite(got) -> bool:
    return isinstance(got, np.ndarray) and got.size > 0 and not np.isfinite(got).all()


def fmt(x: float, digits: int = 4) -> str:
    """A number with ``digits`` significant digits (nan, inf as words)."""
    x = float(x)
    if np.isnan(x):
        return "nan"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.{digits}g}"


def index(idx) -> str:
    return "[" + ", ".join(str(int(i)) for i in idx) + "]"


def agreeing_digits(a: float, b: float) -> int:
    """How many leading significant digits a and b share (0 when signs or magnitudes differ)."""
    if not (np.isfinite(a) and np.isfinite(b)) or a == 0 or b == 0 or (a > 0) != (b > 0):
        return 0
    if a == b:
        return 17
    agreed = 0
    for digits in range(1, 17):  # rounded to `digits` significant digits, do they print the same?
        if f"{a:.{digits - 1}e}" != f"{b:.{digits - 1}e}":
            break
        agreed = digits
    return agreed


def two_numbers(a: float, b: float) -> tuple[str, str]:
    """``a`` and ``b`` printed with the fewest significant digits (at least 4) that make them look different."""
    for digits in range(4, 18):
        sa, sb = fmt(a, digits), fmt(b, digits)
        if sa != sb:
            if (digits > 4 or len(sa) != len(sb)) and np.isfinite(a) and np.isfinite(b) and "e" not in sa + sb \
                    and not (float(a).is_integer() and float(b).is_integer()):  # keep zeros: 0.07440, 0.07439
                sa, sb = f"{float(a):#.{digits}g}", f"{float(b):#.{digits}g}"
            return sa, sb
    return repr(float(a)), repr(float(b))


def first_difference(got: np.ndarray, want: np.ndarray, tol, what: str, dtype=None) -> str:
    """Where ``got`` first differs from ``want`` (same shape), how much at most, and whether rounding may explain
    it (when the two agree to several digits)."""
    bad = ~close(got, want, tol) | ~np.isfinite(got)
    where = np.argwhere(bad)
    first = tuple(where[0])
    g, w = float(got[first]), float(want[first])
    sg, sw = two_numbers(g, w)
    diff = np.where(np.isfinite(got), np.abs(got - want), np.inf)
    worst = np.unravel_index(int(np.argmax(diff)), diff.shape)
    text = (
        f"entry {index(first)} of your {what} is {sg} where it should be {sw}; {len(where)} of {got.size} entries "
        f"differ, the largest difference is {fmt(diff[worst])} at {index(worst)}"
    )
    digits = agreeing_digits(g, w)
    if digits >= 3:
        coarse = dtype is not None and np.dtype(dtype) != np.float64
        kind = f" (your answer is {np.dtype(dtype).name})" if coarse else ""
        text += (
            f". The two agree to {digits} significant digits, so rounding is a possible cause{kind}: a step done "
            "in float16 or float32, or a number rounded by hand, loses digits"
        )
    return text


# ------------------------------------------------------------------------------------------- mistakes


def variant_outcome(variant, case: Case):
    """A mistaken variant's answer on ``case`` (float64 array), or a Raised when the variant fails there."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            inputs = {k: _copy(v) for k, v in case.inputs.items()}
            return np.asarray(variant(**inputs), dtype=float)
        except Exception as exc:  # a mistaken formula that fails on this shape (as the learner's would)
            return Raised(exc)


def _gist(exc: BaseException) -> str:
    return re.sub(r"\d+", "#", str(exc))


def _agree(got, want, tol, strict: bool):
    """True/False: does the learner's outcome agree with a variant's? None: this case tells nothing."""
    if isinstance(want, Raised):  # the same exception with the same message (sizes aside): the same operation
        return isinstance(got, Raised) and type(got.exc) is type(want.exc) and _gist(got.exc) == _gist(want.exc)
    if isinstance(got, (Raised, Bad)):
        return False
    finite = np.isfinite(want)
    if not strict and want.size and finite.mean() < 0.5:
        return None
    if got.shape != want.shape:
        return False
    if strict and (np.isfinite(got) != finite).any():
        return False
    return bool(np.isfinite(got[finite]).all() and close(got[finite], want[finite], tol).all())


def matches(mistake: Mistake, variant, results, cases, tols, skip=frozenset(), ignore=frozenset()) -> bool:
    """Whether the learner's results agree with ``variant`` on every informative case, and the variant differs
    from the right answer on at least one of them."""
    agreed = differs = False
    for i, (got, case) in enumerate(zip(results, cases)):
        if got is None or i in ignore or (i in skip and not mistake.strict_nonfinite):
            continue
        want = variant_outcome(variant, case)
        verdict = _agree(got, want, tols[i], mistake.strict_nonfinite)
        if verdict is False:
            return False
        if verdict:
            agreed = True
            if isinstance(want, Raised) or want.shape != case.expected.shape or not (
                np.isfinite(want).all() and close(want, case.expected, tolerance(np.float64, case)).all()
            ):
                differs = True
    return agreed and differs


def find_mistake(table: Sequence[Mistake], results, cases, tols, skip=frozenset(), ignore=frozenset()):
    """The first mistake (and its variant) of ``table`` that the results match (``skip``: cases left out for
    non-numerical mistakes; ``ignore``: cases left out for all)."""
    for mistake in table:
        for variant in mistake.variants:
            if matches(mistake, variant, results, cases, tols, skip, ignore):
                return mistake, variant
    return None, None


def report_mistake(mistake: Mistake, variant, results, cases, overflow) -> Feedback:
    """The mistake's feedback, plus a note when the learner's output also overflowed where the mistake alone
    gives finite numbers (a second mistake: no maximum subtracted before exp)."""
    reason = mistake.reason
    for i in sorted(overflow):
        want = variant_outcome(variant, cases[i])
        got = results[i]
        if isinstance(want, np.ndarray) and want.shape == got.shape and np.isfinite(want[~np.isfinite(got)]).all():
            reason += f" Also, on {cases[i].label} your answer has NaN or inf. " + _OVERFLOW_TEXT
            break
    return _fail(mistake.id, reason, mistake.hint)


def exception_hint(exc: BaseException) -> str:
    message = str(exc)
    if type(exc).__name__ == "AxisError":
        return ("An axis number is out of range for this array. Count from the end: axis=-1 is the last axis "
                "(the keys), axis=-2 the one before, whatever the number of leading axes.")
    if isinstance(exc, (ValueError, IndexError)) and any(
        w in message for w in ("mismatch", "broadcast", "shape", "aligned", "dimension", "did not match")
    ):
        return (
            "The message names shapes that do not fit. Print the shape of each intermediate array and compare "
            "with Q (..., n, d_k), K (..., m, d_k), V (..., m, d_v), scores and weights (..., n, m), output "
            "(..., n, d_v)."
        )
    if isinstance(exc, NameError):
        return "Define that name inside your function (or run the cell that defines it) before using it."
    return "Call your function by hand on a small input, and print the intermediate arrays to see where it goes wrong."


def report_problem(problem, case: Case) -> Feedback:
    """Feedback for a Raised or Bad result on ``case``."""
    if isinstance(problem, Raised):
        return _fail(
            "exception",
            f"Your function raised {problem.describe()} when called on {case.label}.",
            exception_hint(problem.exc),
        )
    return _fail(problem.mistake, f"{problem.text} (Called on {case.label}.)")


# ------------------------------------------------------------------------------------------- the judge


def judge(fn, problem: FunctionProblem) -> Feedback:
    """Judge the learner's ``fn`` on ``problem``; never raises for anything the learner wrote."""
    try:
        return _judge(fn, problem)
    except _Verdict as verdict:
        return verdict.feedback


def _signature_problem(fn, problem: FunctionProblem) -> Feedback | None:
    checker = problem.checker
    if not callable(fn):
        return _fail(
            "not-callable",
            f"{checker} needs your function itself, but it got {type(fn).__name__}. Pass the name without "
            f"calling it: {checker}(my_function), not {checker}(my_function(...)).",
        )
    if _accepts(fn, *problem.params) is False:
        call = ", ".join(problem.params)
        define = problem.define or ", ".join([*problem.params, *(f"{o}=None" for o in problem.optional)])
        return _fail(
            "wrong-signature",
            f"{checker} calls your function as fn({call}), but it is defined as {_signature_text(fn)}.",
            f"Define it to take these arguments: def my_function({define}).",
        )
    return None


def _judge(fn, problem: FunctionProblem) -> Feedback:
    if _blank(fn):
        return _not_answered()
    trouble = _signature_problem(fn, problem)
    if trouble is not None:
        return trouble
    takes = {name: _accepts(fn, *problem.params, **{name: None}) is not False for name in problem.optional}
    cases = problem.cases()
    with Runner(fn, problem) as runner:
        return _judge_cases(fn, problem, cases, runner)


def _judge_cases(fn, problem: FunctionProblem, cases: list, runner: Runner) -> Feedback:
    takes = {name: _accepts(fn, *problem.params, **{name: None}) is not False for name in problem.optional}
    named = [p for p in problem.by_name if _has_parameter(fn, p)]
    results, dtypes = [], []
    for case in cases:
        kwargs = {k: case.inputs[k] for k in problem.optional if case.inputs.get(k) is not None}
        if any(not takes[k] for k in kwargs):
            results.append(None)  # cannot be called with this case's optional argument
            dtypes.append(np.dtype(np.float64))
            continue
        args = [case.inputs[p] for p in problem.params if p not in named]
        kwargs.update({p: case.inputs[p] for p in named})
        out = runner.call(*args, **kwargs)
        dtype = getattr(out, "dtype", None)
        dtypes.append(dtype if isinstance(dtype, np.dtype) and dtype.kind == "f" else np.dtype(np.float64))
        results.append(_as_result(out, problem.what, problem.convert))
    tols = [tolerance(dt, case) for dt, case in zip(dtypes, cases)]
    judged = [i for i, got in enumerate(results) if got is not None]
    if all(is_right(results[i], cases[i], tols[i]) for i in judged):
        missing = [k for k, ok in takes.items() if not ok and any(c.inputs.get(k) is not None for c in cases)]
        if missing:
            return _fail(
                f"no-{missing[0]}-parameter",
                f"Without {missing[0]} your function is right on all {len(judged)} cases, but it cannot take "
                f"{missing[0]}: it is defined as {_signature_text(fn)}, and {problem.checker} also calls "
                f"fn({', '.join(problem.params)}, {missing[0]}=...).",
                f"Add a parameter {missing[0]}=None, and use it when it is given.",
            )
        note = ""
        if problem.after_pass is not None:
            extra = problem.after_pass(fn, runner.call)
            if isinstance(extra, Feedback):
                return extra
            note = extra or ""
        return Feedback(True, problem.passed.format(count=len(cases)) + note)
    return _explain(results, cases, tols, dtypes, judged, problem, runner.call, problem.mistakes())


def _explain(results, cases, tols, dtypes, judged, problem, run, table, split=True) -> Feedback:
    """Why the results on the cases ``judged`` are wrong: mistake table, overflow, batch, then diagnosis."""
    ignore = set(range(len(cases))) - set(judged)
    overflow = {i for i in judged if "large" in cases[i].tags and nonfinite(results[i])}
    mistake, variant = find_mistake(table, results, cases, tols, overflow, ignore)
    if mistake is not None:
        return report_mistake(mistake, variant, results, cases, overflow)
    right = {i for i in judged if is_right(results[i], cases[i], tols[i])}
    # Two mistakes at once, one of them only showing on batches or broadcasting masks (e.g. K.T and no scaling):
    # explain the rest on the other cases, and add a note on the batch.
    extra = [i for i in judged if cases[i].tags & {"batch", "broadcast"} and i not in right]
    rest = [i for i in judged if i not in extra]
    if split and extra and rest and not set(rest) <= right and all(isinstance(results[i], np.ndarray) for i in rest):
        feedback = _explain(results, cases, tols, dtypes, rest, problem, run, table, split=False)
        structural = [i for i in extra if not isinstance(results[i], np.ndarray)
                      or results[i].shape != cases[i].expected.shape]
        if not structural and feedback.mistake not in {m.id for m in table}:
            return _explain(results, cases, tols, dtypes, judged, problem, run, table, split=False)
        i = (structural or extra)[0]
        return _fail(feedback.mistake, feedback.reason + f" Also, on {cases[i].label} your function "
                     f"{_went_wrong(results[i], problem)}: the problem asks for leading batch axes and masks that "
                     "broadcast, so count axes from the end (axis=-1, np.swapaxes(K, -1, -2)).", feedback.hint)
    if overflow and all(i in right for i in judged if i not in overflow):
        mid, reason, hint = problem.overflow
        return _fail(mid, reason.format(label=cases[min(overflow)].label), hint)
    batch = [i for i in judged if "batch" in cases[i].tags]
    if batch and all(i in right for i in judged if i not in batch):
        return _no_batch(results, cases, tols, batch, problem)
    for i in judged:
        if isinstance(results[i], (Raised, Bad)):
            return report_problem(results[i], cases[i])
    judged_results = [results[i] for i in judged]
    judged_cases = [cases[i] for i in judged]
    judged_tols = [tols[i] for i in judged]
    if problem.diagnose is not None:
        found = problem.diagnose(judged_results, judged_cases, judged_tols, run)
        if found is not None:
            return found
    return diagnose_generic(judged_results, judged_cases, judged_tols, problem, [dtypes[i] for i in judged])


def _went_wrong(got, problem) -> str:
    if isinstance(got, Raised):
        return f"raises {got.describe()}"
    if isinstance(got, Bad):
        return got.text.rstrip(".")
    return f"gives wrong {problem.what}"


def _no_batch(results, cases, tols, batch, problem) -> Feedback:
    i = next(i for i in batch if not is_right(results[i], cases[i], tols[i]))
    got = results[i]
    what = _went_wrong(got, problem)
    if isinstance(got, np.ndarray) and got.shape != cases[i].expected.shape:
        what += f" of shape {got.shape}"
    return _fail(
        "no-batch",
        f"Your function is right on every 2-D input, but not on {cases[i].label}: it {what}. The problem asks "
        "for any number of leading (batch) axes: anything that assumes exactly two axes (.T, axis=0 or axis=1, "
        "x.shape[0], a loop over rows) goes wrong on other shapes.",
        "Count axes from the end: axis=-1 for the keys, np.swapaxes(K, -1, -2) instead of K.T, Q.shape[-1] for "
        "d_k; @ (np.matmul) multiplies the last two axes and broadcasts the rest.",
    )


def diagnose_generic(results, cases, tols, problem: FunctionProblem, dtypes=None) -> Feedback:
    """wrong-shape, non-finite-output, wrong-values: the first that applies."""
    dtypes = dtypes or [None] * len(results)
    for got, case in zip(results, cases):
        if got.shape != case.expected.shape:
            return _fail(
                "wrong-shape",
                f"For {case.label}, the {problem.what} should have shape {case.expected.shape}; yours has shape "
                f"{got.shape}.",
                problem.hint,
            )
    for got, case in zip(results, cases):
        if nonfinite(got):
            return _fail(
                "non-finite-output",
                f"For {case.label}, your {problem.what} has NaN or inf (first at "
                f"{index(np.argwhere(~np.isfinite(got))[0])}); the right {problem.what} is finite.",
                "Look for exp of large numbers, 0/0 (a row whose exponentials are all 0), or -inf reaching a "
                "product.",
            )
    for got, case, tol, dtype in zip(results, cases, tols, dtypes):
        if not is_right(got, case, tol):
            return _fail(
                "wrong-values",
                f"For {case.label}, {first_difference(got, case.expected, tol, problem.what, dtype)}.",
                problem.hint,
            )
    raise AssertionError("unreachable: a wrong answer with no difference")  # pragma: no cover
