"""Comparing a learner's answer with the right one: the tolerance of its dtype, and a difference printed so
that the two numbers visibly differ."""

from __future__ import annotations

import numpy as np

from ._types import Case

# The numpy functions a verdict rests on, bound when attn_lib.exercises is first imported (a notebook's setup cell,
# before any learner code): a learner's cell that later rebinds ``numpy.isclose`` does not change a verdict. The
# graded test cell reloads a checker's module, not this one, so the checkers that import these keep them too.
isclose, allclose, isfinite, array_equal = np.isclose, np.allclose, np.isfinite, np.array_equal


def tolerance(dtype, case: Case) -> tuple[float, float]:
    """(rtol, atol) for judging ``case`` at the precision ``dtype`` (the judge passes the inputs' precision,
    :func:`inputs_dtype`, not the answer's): 64 roundings at the case's scale, of that dtype or of float32 if finer
    (a step done in float32 may come back as float64: 1 / np.sqrt(d_k) promotes it), at most 2 % (float16 inputs);
    the absolute part is that times |V|.max() for an output that averages rows of V
    (``case.averaged``), else a hundredth of it."""
    dtype = np.dtype(dtype)
    eps = max(np.finfo(dtype).eps if dtype.kind == "f" else 0.0, float(np.finfo(np.float32).eps))
    rtol = min(0.02, 64 * eps * case.scale)
    # An output that averages rows of V with weights each off by up to rtol (relative) is off by up to
    # rtol * |V|.max(), however small cancellation makes the output itself.
    return rtol, rtol * (case.averaged if case.averaged is not None else 1e-2)


def inputs_dtype(case: Case) -> np.dtype:
    """The precision a case is judged at: its coarsest floating-point input (float64 when it has none), so that an
    answer cast to float16 does not widen its own tolerance."""
    floats = [v.dtype for v in case.inputs.values() if isinstance(v, np.ndarray) and v.dtype.kind == "f"]
    return max(floats, key=lambda dt: np.finfo(dt).eps, default=np.dtype(np.float64))


def coarser(dtype, case: Case) -> bool:
    """Whether an answer of ``dtype`` keeps fewer digits than the case is judged at (float32 at the coarsest)."""
    dtype = np.dtype(dtype)
    judged = max(np.finfo(inputs_dtype(case)).eps, np.finfo(np.float32).eps)
    return dtype.kind == "f" and np.finfo(dtype).eps > judged


def rounded_right(got, case: Case, dtype) -> bool:
    """Whether ``got`` is the right answer up to the rounding of a computation done in ``dtype``: the typical
    entry off by a few of its roundings, none by more than 20 of them (relative to the largest entry). A mistake
    of 1 %, the same factor on every entry, is a mistake, not rounding."""
    want = case.expected
    if not (isinstance(got, np.ndarray) and got.shape == want.shape and isfinite(got).all() and isfinite(want).all()):
        return False
    eps = float(np.finfo(np.dtype(dtype)).eps)
    top = float(np.abs(want).max(initial=0.0)) or 1.0
    sizable = np.abs(want) >= 0.01 * top
    typical = float(np.median(np.abs(got - want)[sizable] / np.abs(want)[sizable])) if sizable.any() else 0.0
    return typical <= 4 * eps and float(np.abs(got - want).max(initial=0.0)) <= 20 * eps * top


def close(got, want, tol) -> np.ndarray:
    rtol, atol = tol
    return isclose(got, want, rtol=rtol, atol=atol)


def not_zero(got, case: Case) -> np.ndarray:
    """Where ``got`` (of the expected shape) is not exactly 0 though ``case.zeros`` promises 0 there: a promise
    of exactly 0 is compared exactly (exp(-700) is 1e-304, within any tolerance, and still not 0)."""
    if case.zeros is None:
        return np.zeros(np.shape(got), dtype=bool)
    return case.zeros & (got != 0)


def is_right(got, case: Case, tol) -> bool:
    return (
        isinstance(got, np.ndarray)
        and got.shape == case.expected.shape
        and bool(isfinite(got).all())
        and bool(close(got, case.expected, tol).all())
        and not not_zero(got, case).any()
    )


def nonfinite(got) -> bool:
    return isinstance(got, np.ndarray) and got.size > 0 and not isfinite(got).all()


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
    return difference(got, want, tol, what, dtype)[0]


def difference(got: np.ndarray, want: np.ndarray, tol, what: str, dtype=None) -> tuple[str, bool]:
    """:func:`first_difference`'s text, and whether it names the answer's ``dtype`` (as a cause of rounding)."""
    bad = ~close(got, want, tol) | ~isfinite(got)
    where = np.argwhere(bad)
    first = tuple(where[0])
    g, w = float(got[first]), float(want[first])
    sg, sw = two_numbers(g, w)
    diff = np.where(np.isfinite(got), np.abs(got - want), np.inf)
    worst = np.unravel_index(int(np.argmax(diff)), diff.shape)
    text = (
        f"entry {index(first)} of your {what} is {sg} where it should be {sw}; {len(where)} of {got.size} entries "
        f"differ, the largest difference is {fmt(diff[worst])} at {index(worst)}"
    ) if got.ndim else f"your {what} is {sg} where it should be {sw}"  # a single number has no entries
    digits = agreeing_digits(g, w)
    named = False
    if digits >= 3:
        named = dtype is not None and np.dtype(dtype) != np.float64
        kind = f" (your answer is {np.dtype(dtype).name})" if named else ""
        text += (
            f". The two agree to {digits} significant digits, so rounding is a possible cause{kind}: a step done "
            "in float16 or float32, or a number rounded by hand, loses digits"
        )
    return text, named
