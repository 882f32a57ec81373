"""Comparing a learner's results with the right answer and with known mistakes, case by case."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ._feedback import Feedback, _fail
from ._pieces import _OVERFLOW
from ._running import _Bad, _Raised


_RTOL, _ATOL = 1e-5, 1e-6  # float32 learners pass; a wrong formula differs by far more on these inputs


def _fmt(x: float) -> str:
    if np.isnan(x):
        return "nan"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.4g}"


def _index(idx) -> str:
    return "[" + ", ".join(str(int(i)) for i in idx) + "]"


def _first_difference(got: np.ndarray, want: np.ndarray, what: str) -> str:
    """Where ``got`` first differs from ``want`` (same shape), and by how much at most."""
    bad = ~np.isclose(got, want, rtol=_RTOL, atol=_ATOL) | ~np.isfinite(got)
    where = np.argwhere(bad)
    first = tuple(where[0])
    diff = np.where(np.isfinite(got), np.abs(got - want), np.inf)
    worst = np.unravel_index(int(np.argmax(diff)), diff.shape)
    return (
        f"entry {_index(first)} of your {what} is {_fmt(got[first])} where it should be {_fmt(want[first])}; "
        f"{len(where)} of {got.size} entries differ, the largest difference is {_fmt(diff[worst])} at "
        f"{_index(worst)}"
    )


@dataclass
class _Case:
    """One set of inputs a checker feeds to the learner's function."""

    label: str
    inputs: dict
    tags: frozenset = frozenset()
    expected: np.ndarray | None = None


@dataclass
class _Mistake:
    """A classic mistake: functions computing the mistaken answer, and what to tell the learner."""

    id: str
    reason: str
    hint: str
    variants: tuple[Callable, ...]
    # True: the variant's NaN/inf entries must be NaN/inf in the learner's answer too (numerical mistakes).
    # False: entries where the variant is not finite are not compared (undefined rows, e.g. all keys blocked).
    strict_nonfinite: bool = False


def _variant_outcome(variant, case: _Case):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return np.asarray(variant(**case.inputs), dtype=float)
        except Exception as exc:  # a mistaken formula that fails on this shape (as the learner's would)
            return _Raised(exc, "")


def _agree(got, want, strict_nonfinite: bool):
    """True/False: does the learner's outcome agree with a variant's? None: this case tells nothing."""
    if isinstance(want, _Raised):
        return isinstance(got, _Raised)
    finite = np.isfinite(want)
    if not strict_nonfinite and want.size and finite.mean() < 0.5:
        return None
    if not isinstance(got, np.ndarray) or got.shape != want.shape:
        return False
    if strict_nonfinite and (np.isfinite(got) != finite).any():
        return False
    return bool(np.isfinite(got[finite]).all() and np.allclose(got[finite], want[finite], rtol=_RTOL, atol=_ATOL))


def _matches(results, cases, variant, strict_nonfinite, skip) -> bool:
    computed_agreement = differs_from_right = False
    for i, (got, case) in enumerate(zip(results, cases)):
        if i in skip and not strict_nonfinite:
            continue
        want = _variant_outcome(variant, case)
        verdict = _agree(got, want, strict_nonfinite)
        if verdict is False:
            return False
        if verdict and isinstance(want, np.ndarray):
            computed_agreement = True
            if want.shape != case.expected.shape or not np.allclose(want, case.expected, rtol=_RTOL, atol=_ATOL):
                differs_from_right = True
    return computed_agreement and differs_from_right


def _find_mistake(results, cases, table, skip=frozenset()):
    """The first mistake (and its variant) that the learner's results match on every informative case."""
    for mistake in table:
        for variant in mistake.variants:
            if _matches(results, cases, variant, mistake.strict_nonfinite, skip):
                return mistake, variant
    return None, None


def _report_mistake(mistake, variant, results, cases, overflow) -> Feedback:
    """The mistake's feedback, plus a note when the learner's output also overflowed where the mistake alone
    would have given finite numbers (a second mistake: no maximum subtracted before exp)."""
    reason = mistake.reason
    for i in sorted(overflow):
        want = _variant_outcome(variant, cases[i])
        got = results[i]
        if isinstance(want, np.ndarray) and want.shape == got.shape and np.isfinite(want[~np.isfinite(got)]).all():
            reason += f" Also, on {cases[i].label} your answer has NaN or inf. " + _OVERFLOW
            break
    return _fail(mistake.id, reason, mistake.hint)


def _is_right(got, case: _Case) -> bool:
    return (
        isinstance(got, np.ndarray)
        and got.shape == case.expected.shape
        and bool(np.isfinite(got).all())
        and bool(np.allclose(got, case.expected, rtol=_RTOL, atol=_ATOL))
    )


def _nonfinite(got) -> bool:
    return isinstance(got, np.ndarray) and got.size > 0 and not np.isfinite(got).all()


def _overflowed(results, cases, judged=None) -> set:
    """Indices of the cases tagged "large" (scores near 1000) whose result holds NaN or inf."""
    judged = range(len(cases)) if judged is None else judged
    return {i for i in judged if "large" in cases[i].tags and _nonfinite(results[i])}


def _right_but_overflowed(results, cases, overflow, judged=None) -> bool:
    """True when some large-score cases overflowed and every other case is right: exp without the maximum."""
    judged = range(len(cases)) if judged is None else judged
    return bool(overflow) and all(_is_right(results[i], cases[i]) for i in judged if i not in overflow)


def _first_problem(results, cases):
    """The first _Raised or _Bad among the results, with its case."""
    for got, case in zip(results, cases):
        if isinstance(got, (_Raised, _Bad)):
            return got, case
    return None, None


def _exception_hint(exc: Exception) -> str:
    message = str(exc)
    if isinstance(exc, ValueError) and any(w in message for w in ("mismatch", "broadcast", "shape", "aligned")):
        return (
            "The message names two shapes that do not fit. Print the shape of each intermediate array and "
            "compare with Q (n, d_k), K (m, d_k), V (m, d_v), scores and weights (n, m), output (n, d_v)."
        )
    if isinstance(exc, NameError):
        return "Define that name inside your function (or run the cell that defines it) before using it."
    return (
        "Call your function by hand on a small input, and print the intermediate arrays to see where it "
        "goes wrong."
    )


def _report_problem(problem, case: _Case) -> Feedback:
    if isinstance(problem, _Raised):
        return _fail(
            "exception",
            f"Your function raised {problem.describe()} when called on {case.label}.",
            _exception_hint(problem.exc),
        )
    return _fail(problem.mistake, f"{problem.text} (Called on {case.label}.)")
