"""Calling the learner's code safely: blanks, NotImplementedError, exceptions with the learner's line,
odd return values, and a signature that does not fit."""

from __future__ import annotations

import inspect
import os
import sysconfig
import traceback
import warnings
from dataclasses import dataclass

import numpy as np

from ._feedback import Feedback, _fail, _not_answered


class _NotAnswered(Exception):
    """Raised inside a checker when the learner's function raises NotImplementedError."""


@dataclass
class _Raised:
    """An exception raised by the learner's function, with the learner's line where it happened."""

    exc: Exception
    line: str

    def describe(self) -> str:
        message = str(self.exc).strip()
        if len(message) > 300:
            message = message[:297] + "..."
        text = type(self.exc).__name__ + (f": {message}" if message else "")
        return text + (f" ({self.line})" if self.line else "")


@dataclass
class _Bad:
    """A returned value that is not an array of the expected kind."""

    mistake: str
    text: str


def _library_dirs() -> tuple[str, ...]:
    # Frames anywhere in attn_lib (this package's parent) are not the learner's code.
    attn_lib_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    dirs = {attn_lib_dir, os.path.dirname(os.path.abspath(np.__file__))}
    for key in ("stdlib", "platstdlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            dirs.add(os.path.abspath(path))
    return tuple(sorted(d + os.sep for d in dirs))


_LIBRARY_DIRS = _library_dirs()


def _is_library(filename: str) -> bool:
    if filename.startswith(("<frozen", "<__array_function__")):
        return True
    path = os.path.abspath(filename)
    if f"{os.sep}site-packages{os.sep}" in path or f"{os.sep}dist-packages{os.sep}" in path:
        return True
    return path.startswith(_LIBRARY_DIRS)


def _learner_line(exc: BaseException) -> str:
    """'line N of your cell: <code>' for the last traceback frame in the learner's code, or ''."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not _is_library(f.filename)]
    if not frames:
        return ""
    frame = frames[-1]
    name = frame.filename
    if "ipykernel_" in name or name.startswith("<ipython-input"):
        where = "your cell"
    elif name.startswith("<"):
        where = "your code"
    else:
        where = os.path.basename(name)
    code = (frame.line or "").strip()
    return f"line {frame.lineno} of {where}" + (f": {code}" if code else "")


def _copy(value):
    return value.copy() if isinstance(value, np.ndarray) else value


def _call(fn, *args, **kwargs):
    """Call the learner's ``fn`` on copies of the inputs; return its result or a _Raised, never raise.

    Numpy warnings (overflow in exp, 0/0) are silenced: the checker reports their effect, not the warning.
    A NotImplementedError means "not answered yet" and unwinds the whole checker.
    """
    args = tuple(_copy(a) for a in args)
    kwargs = {k: _copy(v) for k, v in kwargs.items()}
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return fn(*args, **kwargs)
        except NotImplementedError:
            raise _NotAnswered from None
        except Exception as exc:  # the learner's code may raise anything: report it, never propagate it
            return _Raised(exc, _learner_line(exc))


def _accepts(fn, *args, **kwargs) -> bool | None:
    """Whether ``fn`` can be called with these arguments (None when its signature cannot be read)."""
    try:
        inspect.signature(fn).bind(*args, **kwargs)
    except TypeError:
        return False
    except ValueError:
        return None
    return True


def _signature_text(fn) -> str:
    try:
        return f"{getattr(fn, '__name__', 'your function')}{inspect.signature(fn)}"
    except (TypeError, ValueError):
        return "your function"


def _as_float_result(out, what: str = "output"):
    """The learner's return value as a float array, or a _Bad saying what came back instead."""
    if isinstance(out, (_Raised, _Bad)):
        return out
    if out is None:
        return _Bad("returned-none", f"Your function returned None instead of the {what}: is a `return` missing?")
    if isinstance(out, tuple):
        return _Bad(
            "returned-tuple",
            f"Your function returned a tuple of {len(out)} items; return the {what} alone, as one array.",
        )
    try:
        arr = np.asarray(out, dtype=float)
    except (TypeError, ValueError):
        return _Bad("not-an-array", f"Your function returned {type(out).__name__}, not an array of numbers.")
    return arr


def _unless_unanswered(judge, *args):
    """``judge(*args)``, or "not answered yet" if the learner's function raised NotImplementedError inside it."""
    try:
        return judge(*args)
    except _NotAnswered:
        return _not_answered()


def _blank(answer) -> bool:
    return answer is None or answer is Ellipsis


def _function_problem(fn, checker: str, *example_args, define: str = "", **example_kwargs) -> Feedback | None:
    """Feedback when ``fn`` is not a function that can be called as the checker will call it."""
    if not callable(fn):
        return _fail(
            "not-callable",
            f"{checker} needs your function itself, but it got {type(fn).__name__}. Pass the name without "
            f"calling it: {checker}(my_function), not {checker}(my_function(...)).",
        )
    if _accepts(fn, *example_args, **example_kwargs) is False:
        call = ", ".join([*example_args, *(f"{k}={v}" for k, v in example_kwargs.items())])
        return _fail(
            "wrong-signature",
            f"{checker} calls your function as fn({call}), but it is defined as {_signature_text(fn)}.",
            f"Define it to take these arguments: def my_function({define or call}).",
        )
    return None
