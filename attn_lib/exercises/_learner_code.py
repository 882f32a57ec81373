"""The learner's own code: which traceback frames are the learner's (not attn_lib's, numpy's or the standard
library's), the learner's line where an exception happened, and a function's signature as text."""

from __future__ import annotations

import functools
import inspect
import io
import os
import sysconfig
import textwrap
import tokenize
import traceback

import numpy as np


# ------------------------------------------------------------------------------------------- the learner's code


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


@functools.lru_cache(maxsize=4096)
def is_library(filename: str) -> bool:
    """Whether a frame of ``filename`` is attn_lib's, numpy's or the standard library's, not the learner's."""
    if filename.startswith(("<frozen", "<__array_function__")):
        return True
    path = os.path.abspath(filename)
    if f"{os.sep}site-packages{os.sep}" in path or f"{os.sep}dist-packages{os.sep}" in path:
        return True
    return path.startswith(_LIBRARY_DIRS)


def learner_line(exc: BaseException) -> str:
    """'line N of your cell: <code>' for the last traceback frame in the learner's code, or ''."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not is_library(f.filename)]
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


def signature_text(fn) -> str:
    try:
        return f"{getattr(fn, '__name__', 'your function')}{inspect.signature(fn)}"
    except (TypeError, ValueError):
        return "your function"


def code_text(fn) -> str:
    """The learner's code with its comments and strings left out ("" when it cannot be read): a rule that reads
    the code for a habit (np.dot, .T) must not find it in a comment such as "# the same as np.dot(w, V)"."""
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except Exception:  # a builtin, a partial, a callable object, code typed where no source is kept
        return ""
    kept = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type not in (tokenize.COMMENT, tokenize.STRING):
                kept.append(tok.string)
    except (tokenize.TokenError, SyntaxError):  # a lambda's line cut mid-expression: the tokens read so far
        pass
    return "".join(kept)


_FILL_NAMES = {"inf", "NINF", "finfo", "iinfo"}


def _fill_number(text: str) -> bool:
    """A number a learner types as a fill for blocked scores: 1e9, 1e+30, 10000 (not 0, 1, 1e-9)."""
    try:
        return abs(float(text.replace("_", ""))) >= 1000
    except ValueError:  # 1j and the like
        return False


def fills_blocked(fn) -> bool:
    """Whether the learner's code visibly fills blocked scores (True when it cannot be read): a fill value such
    as np.inf, float("-inf"), np.finfo(...).min or -1e9 appears in it (np.where(mask, e, 0) zeroes, it does not
    fill); comments and docstrings do not count."""
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except Exception:  # a builtin, a partial, a callable object, code typed where no source is kept
        return True
    tokens = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            tokens.append(tok)
    except (tokenize.TokenError, SyntaxError):  # a lambda's line cut mid-expression: the tokens read so far
        pass
    return any(
        (tok.type == tokenize.NAME and tok.string in _FILL_NAMES)
        or (tok.type == tokenize.NUMBER and _fill_number(tok.string))
        or (tok.type == tokenize.STRING and len(tok.string) < 12 and "inf" in tok.string.lower())
        for tok in tokens
    )


def zeroed_before_max(table: list) -> list:
    """``table`` with zero-then-renormalise moved just before max-before-mask. exp(scores - max) zeroed by the
    mask and a maximum taken before -inf is put in give the same numbers on every input: for code that fills no
    blocked score (see :func:`fills_blocked`) the first is the mistake made."""
    ids = [m.id for m in table]
    if "zero-then-renormalise" not in ids or "max-before-mask" not in ids:
        return table
    zeroed = table[ids.index("zero-then-renormalise")]
    rest = [m for m in table if m is not zeroed]
    at = [m.id for m in rest].index("max-before-mask")
    return [*rest[:at], zeroed, *rest[at:]]
