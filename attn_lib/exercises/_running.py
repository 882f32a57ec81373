"""Running the learner's function safely, and describing what it did.

:class:`Runner` calls the learner's function on copies of the inputs, with warnings silenced, and turns whatever
happens into something the judge can report: a result, a :class:`Raised` (the exception and the learner's line
where it happened), or a final verdict that ends the check (``NotImplementedError`` -> not answered,
``SystemExit`` -> ``exit``, more than ``TIME_LIMIT`` seconds in all -> ``too-slow``, a call of one of attn_lib's
functions the problem asks the learner to write -> ``used-attn-lib``; so is passing that function itself, see
:func:`forbidden_original`). While tracemalloc traces, ``Runner.peak`` is the peak memory of the learner's own
call alone, and the call is charged only ``1/TRACED_DISCOUNT`` of its time. An interval timer the caller had
armed is paused during the check and re-armed with what is left of it. What the learner's function writes to
``sys.stderr`` is written to ``sys.stdout`` instead (nbgrader scores 0 a test cell that writes to stderr). Also:
whether the learner's function can be called with given arguments, and its return value as an array (or a
:class:`Bad`). Which lines are the learner's: ``_learner_code``.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import signal
import sys
import threading
import time
import tracemalloc
import types
import warnings

import numpy as np

from .. import _platform
from ._compare import array_equal, inputs_dtype, is_right, tolerance
from ._feedback import Feedback, NOT_ANSWERED, failure, not_answered
from ._learner_code import is_library, learner_line
from ._types import Attempt, Bad, Case, FinalVerdict, FunctionProblem, Raised, copy_input


TIME_LIMIT = 10.0  # seconds for all of one checker's calls of the learner's function
# tracemalloc slows a plain-Python loop about tenfold: a traced call is charged only 1/TRACED_DISCOUNT of its time,
# so the tracing's overhead does not count against the learner (an endless loop is stopped after TRACED_DISCOUNT
# times the limit)
TRACED_DISCOUNT = 4.0


def signals_work(in_browser: bool | None = None) -> bool:
    """Whether an interval timer can stop a learner's endless loop here: CPython's main thread has SIGALRM;
    Pyodide, in the browser (``attn_lib._platform``), has no signals."""
    in_browser = _platform.in_browser() if in_browser is None else in_browser
    return hasattr(signal, "setitimer") and not in_browser


SIGNALS = signals_work()


class _TimeUp(BaseException):
    """Raised by the timer inside the learner's code; a BaseException so `except Exception` cannot swallow it."""


def _same(a: np.ndarray, b) -> bool:
    try:
        return a.shape == np.shape(b) and bool(array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    except Exception:  # an array numpy cannot compare: say nothing
        return True


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


def wanted(fn, problem) -> str:
    """What a function problem's checker cell checks, for its not-answered prompt: the function by its name."""
    name = getattr(fn, "__name__", "")
    name = name if name.isidentifier() else "fn"
    return f"your function {name}({problem.signature}), which returns the {problem.what}"


class Runner:
    """Calls the learner's function safely; used as a context manager around all calls of one check.

    It alone owns how a case's inputs become a call: :meth:`attempt` judges one case, :meth:`call_inputs` calls
    with inputs by parameter name (``params`` positionally, ``optional`` and the ``by_name`` parameters the
    function has by keyword), :meth:`call` with the arguments as given. ``fn`` is the learner's function."""

    def __init__(self, fn, problem: FunctionProblem):
        self.fn = fn
        self.problem = problem
        self.used: list[str] = []
        self._patched: list = []
        self._timer = None  # "signal" (SIGALRM), "trace" (sys.settrace, where there are no signals) or None
        self._old_handler = None
        self._armed = False
        self._stop_at = 0.0  # the trace timer's deadline (time.monotonic)
        self._left = 0.0
        self._discount = 1.0  # TRACED_DISCOUNT while tracemalloc traces the learner's call
        self._inputs = ""  # what the too-slow reason says the function ran on ("" = the graded cases)
        self.changed: list[str] = []  # parameters whose array the learner's function changed in place
        self.peak = 0  # bytes: tracemalloc's peak during the learner's last call, beyond what was traced before it
        self._outer = (0.0, 0.0)  # an interval timer the caller had armed (seconds left, interval), and when
        self._outer_at = 0.0
        # which optional parameters the function can take, and which by_name parameters it has
        self.takes = {name: accepts(fn, *problem.params, **{name: None}) is not False for name in problem.optional}
        self.named = [p for p in problem.by_name if has_parameter(fn, p)]
        self.untaken: set[str] = set()  # optional parameters a case had that the function cannot take
        self.cases = 0  # how many cases the check has (set by the judge)
        self.named_dtype = False  # a judging step's verdict already names the answer's dtype (said once)

    @functools.cached_property
    def mistakes(self) -> list:
        """The problem's table of known mistakes, made once per check."""
        return list(self.problem.mistakes())

    # -- the calling convention: a case's inputs, by name, become one call
    def call_inputs(self, inputs: dict):
        """The learner's raw result (or a Raised) on ``inputs``, a dict by parameter name."""
        kwargs = {k: inputs[k] for k in self.problem.optional if inputs.get(k) is not None}
        args = [inputs[p] for p in self.problem.params if p not in self.named]
        kwargs.update({p: inputs[p] for p in self.named})
        return self.call(*args, **kwargs)

    def attempt(self, case: Case) -> Attempt:
        """The learner's function on ``case``, converted and judged against ``case.expected``."""
        tol = tolerance(inputs_dtype(case), case)  # the inputs' precision, not the answer's
        untaken = {k for k in self.problem.optional if case.inputs.get(k) is not None and not self.takes[k]}
        if untaken:
            self.untaken |= untaken
            return Attempt(case, None, np.dtype(np.float64), tol)  # cannot take this case's optional argument
        out = self.call_inputs(case.inputs)
        dtype = getattr(out, "dtype", None)
        dtype = dtype if isinstance(dtype, np.dtype) and dtype.kind == "f" else np.dtype(np.float64)
        result = as_result(out, self.problem.what, self.problem.convert, self.problem.array_only)
        return Attempt(case, result, dtype, tol, right=is_right(result, case, tol), peak=self.peak)

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

    # -- the time limit, armed only while the learner's code runs (the checker's own work is never interrupted):
    # SIGALRM in the main thread where there are signals; elsewhere (another thread, or the browser, where
    # Pyodide has no signals) a trace function that stops the learner's code at its next line past the deadline.
    def __enter__(self):
        self._left = _limit(self.problem)  # seconds of learner time left
        self._armed = False
        self._timer = "trace" if sys.gettrace() is None else None  # a debugger's tracer is left alone: no limit
        if SIGNALS and threading.current_thread() is threading.main_thread():
            try:
                self._old_handler = signal.signal(signal.SIGALRM, self._alarm)
            except (ValueError, OSError):
                pass
            else:  # the caller's own timer is paused while the check runs, and re-armed afterwards
                self._timer = "signal"
                self._outer, self._outer_at = signal.setitimer(signal.ITIMER_REAL, 0), time.monotonic()
        return self

    def restart(self, inputs: str):
        """A fresh time budget for the runs after the graded cases (``after_pass``), on larger ``inputs``."""
        self._left = _limit(self.problem)
        self._inputs = inputs

    def _alarm(self, signum, frame):
        if self._armed:  # only inside the learner's code
            self._armed = False
            raise _TimeUp()

    def _trace(self, frame, event, arg):
        if self._armed and time.monotonic() > self._stop_at:
            self._armed = False
            raise _TimeUp()
        # Line by line only in the learner's own frames (an endless loop is there); a library's frames are checked
        # at each call, which costs far less than tracing numpy's Python code line by line.
        return None if event == "call" and is_library(frame.f_code.co_filename) else self._trace

    def __exit__(self, *exc):
        if self._timer == "signal":
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._old_handler or signal.SIG_DFL)
            if self._outer[0] > 0:  # the caller's timer, with what is left of it (due now: at once)
                signal.setitimer(signal.ITIMER_REAL, max(self._outer_left(), 1e-6), self._outer[1])
        self._timer = None
        self._unpatch()
        return False

    def _outer_left(self) -> float:
        return self._outer[0] - (time.monotonic() - self._outer_at)

    def _run(self, args, kwargs):
        if self._timer is None:
            return self._traced(args, kwargs)
        if self._left <= 0:
            raise _TimeUp()
        self._discount = discount = TRACED_DISCOUNT if tracemalloc.is_tracing() else 1.0
        wait = self._left * discount
        if self._outer[0] > 0:  # never past the caller's own timer
            wait = max(min(wait, self._outer_left()), 1e-6)
        start = time.monotonic()
        self._armed = True
        if self._timer == "signal":
            signal.setitimer(signal.ITIMER_REAL, wait)
        else:
            self._stop_at = start + wait
            sys.settrace(self._trace)
        try:
            return self._traced(args, kwargs)
        finally:
            self._armed = False
            if self._timer == "signal":
                signal.setitimer(signal.ITIMER_REAL, 0)
            else:
                sys.settrace(None)
            self._left -= (time.monotonic() - start) / discount

    def _traced(self, args, kwargs):
        """The learner's call alone; when tracemalloc traces, its peak is measured around this call only (the
        runner's copies of the inputs, made before, and its comparisons, made after, do not count)."""
        if not tracemalloc.is_tracing():
            return self.fn(*args, **kwargs)
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        try:
            return self.fn(*args, **kwargs)
        finally:
            self.peak = tracemalloc.get_traced_memory()[1] - base

    def call(self, *args, **kwargs):
        """The learner's result, or a Raised; raises FinalVerdict for not-answered, exit, too slow, forbidden."""
        pristine = dict(zip([p for p in (*self.problem.params, *self.problem.optional) if p not in kwargs], args))
        pristine.update(kwargs)
        args = tuple(copy_input(a) for a in args)
        kwargs = {k: copy_input(v) for k, v in kwargs.items()}
        given = dict(zip(pristine, (*args, *kwargs.values())))
        try:
            return self._call(args, kwargs)
        finally:
            self._note_changes(pristine, given)

    def _note_changes(self, pristine: dict, given: dict):
        for name, value in given.items():
            if isinstance(value, np.ndarray) and name not in self.changed and not _same(value, pristine[name]):
                self.changed.append(name)

    def with_note(self, feedback: Feedback) -> Feedback:
        """``feedback``, with a note when the learner's function changed an argument in place (allowed here)."""
        if not self.changed or feedback.mistake == NOT_ANSWERED:
            return feedback
        note = (f" Note: your function changed the array passed as `{self.changed[0]}` (in place); a caller that "
                "uses it again gets your changed numbers.")
        return Feedback(feedback.passed, feedback.reason + note, feedback.hint, feedback.mistake)

    def _call(self, args, kwargs):
        self._patch()
        try:
            # What the learner's function writes to stderr goes to stdout: the learner still reads it, and a graded
            # test cell (nbgrader scores 0 a cell that writes to stderr) keeps its points for a right function.
            with warnings.catch_warnings(), np.errstate(all="ignore"), contextlib.redirect_stderr(sys.stdout):
                warnings.simplefilter("ignore")
                result = self._run(args, kwargs)
        except NotImplementedError:
            raise FinalVerdict(not_answered(wanted(self.fn, self.problem))) from None
        except _TimeUp:
            raise FinalVerdict(_too_slow(self.problem, self._inputs, self._discount)) from None
        except SystemExit as exc:
            where = learner_line(exc)
            code = f": {exc.code}" if exc.code not in (None, "") else ""
            raise FinalVerdict(failure("exit", code=code + (", " + where if where else ""))) from None
        except Exception as exc:  # the learner's code may raise anything: report it, never propagate it
            result = Raised(exc, learner_line(exc))
        finally:
            self._unpatch()
        if self.used:
            raise FinalVerdict(used_attn_lib(self.problem, self.used[0]))
        return result


def _limit(problem: FunctionProblem) -> float:
    return TIME_LIMIT if problem.time_limit is None else problem.time_limit


def _too_slow(problem: FunctionProblem, inputs: str = "", discount: float = 1.0) -> Feedback:
    where = (f"on {inputs}, after it was right on every graded case (a numpy answer takes well under a second "
             "there)" if inputs else "on inputs of a few dozen numbers (the right answer takes a few milliseconds)")
    if discount != 1.0:
        where = (f"on {inputs}, after it was right on every graded case; these runs are traced (tracemalloc), "
                 f"which slows Python code, so only 1/{discount:g} of their time counts (a numpy answer takes "
                 "well under a second there, a plain Python loop over the keys a few seconds)")
    return failure("too-slow", seconds=f"{_limit(problem) * discount:g}", where=where)


# What every function problem lets the learner call, one rule for all of them, stated whenever a call is refused.
CALL_RULE = ("The rule of every function problem: numpy may always be called, and so may attn_lib's functions, "
             "except the ones its notebook teaches you to write and any that does the problem's main step in one "
             "call")


def call_rule(problem: FunctionProblem) -> str:
    """The rule, with the attn_lib functions it refuses in ``problem``."""
    names = " and ".join(f"attn_lib.{name}" for name in problem.forbidden)
    return f"{CALL_RULE}; here that is {names}." if names else f"{CALL_RULE}."


def used_attn_lib(problem: FunctionProblem, name: str) -> Feedback:
    reason = (problem.forbidden_why or f"Your function calls attn_lib.{name}, which does what this problem asks you "
              f"to write; it is there to compare with afterwards.")
    return failure("used-attn-lib", reason=reason, rule=call_rule(problem), name=name, tools=problem.tools)


def forbidden_original(fn, problem: FunctionProblem) -> str | None:
    """The name of the forbidden attn_lib function that ``fn`` IS (itself, or unwrapped from a functools.partial,
    a ``__wrapped__`` decorator or a bound method), or None."""
    if not problem.forbidden:
        return None
    import attn_lib

    originals = {id(getattr(attn_lib, name)): name for name in problem.forbidden}
    seen = set()
    while fn is not None and id(fn) not in seen:
        seen.add(id(fn))
        if id(fn) in originals:
            return originals[id(fn)]
        try:
            inner = fn.func if isinstance(fn, functools.partial) else getattr(fn, "__wrapped__", None)
            fn = inner if inner is not None else getattr(fn, "__func__", None)
        except Exception:  # an object whose attributes raise: not attn_lib's
            return None
    return None


def accepts(fn, *args, **kwargs) -> bool | None:
    """Whether ``fn`` can be called with these arguments (None when its signature cannot be read)."""
    try:
        inspect.signature(fn).bind(*args, **kwargs)
    except TypeError:
        return False
    except ValueError:
        return None
    return True


def has_parameter(fn, name: str) -> bool:
    """Whether ``fn`` has a parameter ``name`` that can be passed by keyword."""
    try:
        parameter = inspect.signature(fn).parameters.get(name)
    except (TypeError, ValueError):
        return False
    return parameter is not None and parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY)



def as_result(out, what: str, convert: str = "float", array_only: bool = False):
    """The learner's return value as an array (float64 for convert="float"), or a Bad / Raised (``array_only``: a
    list is refused, for a problem that asks for an array)."""
    if isinstance(out, (Raised, Bad)):
        return out
    if array_only and isinstance(out, list):
        return Bad("returned-list", {"count": len(out), "what": what})
    if out is None:
        return Bad("returned-none", {"what": what})
    if isinstance(out, tuple):
        return Bad("returned-tuple", {"count": len(out), "what": what})
    if isinstance(out, np.ma.MaskedArray) and np.ma.getmaskarray(out).any():
        blocked = "with the blocked weights 0" if what == "weights" else "with numbers in the masked entries"
        return Bad("masked-array", {"what": what, "blocked": blocked})
    try:
        arr = np.asarray(out)
    except Exception:  # ragged lists and the like
        return Bad("not-an-array", {"returned": type(out).__name__, "numbers": "numbers", "what": what, "kind": ""})
    if arr.dtype.kind not in "biuf":
        return Bad("not-an-array", {"returned": f"{type(out).__name__} of {arr.dtype}", "numbers": "real numbers",
                                    "what": what, "kind": " as floats"})
    return arr.astype(float) if convert == "float" else arr
