"""Why a wrong answer is wrong: the first mistake of the problem's table it matches, else an overflow, a
batch-only failure, an exception or odd return value, the problem's own diagnosis, and the generic reasons
(wrong shape, NaN/inf, the first differing entry). Steps 5-7 of the judge (see ``_judge``)."""

from __future__ import annotations

import re
import warnings
from typing import TYPE_CHECKING, Sequence

import numpy as np

from ._compare import close, first_difference, fmt, index, is_right, isfinite, nonfinite, tolerance
from ._feedback import Feedback, fail
from ._pieces import OVERFLOW
from ._running import Bad, Raised, _copy

if TYPE_CHECKING:
    from ._judge import Case, FunctionProblem, Mistake


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


def _agree(got, want, tol, strict: bool, same_sizes: bool = False):
    """True/False: does the learner's outcome agree with a variant's? None: this case tells nothing."""
    if isinstance(want, Raised):  # the same exception with the same message (sizes aside): the same operation
        gist = str if same_sizes else _gist
        return isinstance(got, Raised) and type(got.exc) is type(want.exc) and gist(got.exc) == gist(want.exc)
    if isinstance(got, (Raised, Bad)):
        return False
    finite = isfinite(want)
    if not strict and want.size and finite.mean() < 0.5:
        return None
    if got.shape != want.shape:
        return False
    if strict and (isfinite(got) != finite).any():
        return False
    return bool(isfinite(got[finite]).all() and close(got[finite], want[finite], tol).all())


def matches(mistake: Mistake, variant, results, cases, tols, skip=frozenset(), ignore=frozenset()) -> bool:
    """Whether the learner's results agree with ``variant`` on every informative case, and the variant differs
    from the right answer on at least one of them."""
    agreed = differs = False
    for i, (got, case) in enumerate(zip(results, cases)):
        if got is None or i in ignore or (i in skip and not mistake.strict_nonfinite):
            continue
        want = variant_outcome(variant, case)
        verdict = _agree(got, want, tols[i], mistake.strict_nonfinite, mistake.same_sizes)
        if verdict is False:
            return False
        if verdict:
            agreed = True
            if isinstance(want, Raised) or want.shape != case.expected.shape or not (
                isfinite(want).all() and close(want, case.expected, tolerance(np.float64, case)).all()
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
        if isinstance(want, np.ndarray) and want.shape == got.shape and isfinite(want[~isfinite(got)]).all():
            reason += f" Also, on {cases[i].label} your answer has NaN or inf. " + OVERFLOW
            break
    return fail(mistake.id, reason, mistake.hint)


# The shapes of the arguments the function checkers pass, for the hint of an exception that names shapes.
ARGUMENT_SHAPES = {
    "Q": "Q (..., n, d_k)", "K": "K (..., m, d_k)", "V": "V (..., m, d_v)", "scores": "scores (..., n, m)",
    "mask": "mask (..., n, m), or any shape that broadcasts to it", "weights": "weights (..., n, m)",
    "x": "x (..., n, m)", "X": "X (..., n, d_model)", "d_scores": "d_scores (..., n, m)",
    "lengths": "lengths (batch,)",
}


def _shapes_text(problem) -> str:
    """The problem's own arguments and result with their shapes, e.g. "X (..., n, d_model), ... and your dW_q"."""
    if problem is None:
        names = [ARGUMENT_SHAPES[p] for p in ("Q", "K", "V", "scores")]
        return ", ".join(names) + " and the output (..., n, d_v)"
    names = [ARGUMENT_SHAPES[p] for p in (*problem.params, *problem.optional) if p in ARGUMENT_SHAPES]
    result = f"your {problem.what}" + (f" {problem.result_shape}" if problem.result_shape else "")
    return ", ".join(names) + f" and {result}" if names else result


def exception_hint(exc: BaseException, problem=None) -> str:
    message = str(exc)
    if type(exc).__name__ == "AxisError":
        return ("An axis number is out of range for this array. Count from the end: axis=-1 is the last axis "
                "(the keys), axis=-2 the one before, whatever the number of leading axes.")
    if isinstance(exc, (ValueError, IndexError)) and any(
        w in message for w in ("mismatch", "broadcast", "shape", "aligned", "dimension", "did not match")
    ):
        return (
            "The message names shapes that do not fit. Print the shape of each intermediate array and compare "
            f"with {_shapes_text(problem)}."
        )
    if isinstance(exc, NameError):
        return "Define that name inside your function (or run the cell that defines it) before using it."
    return "Call your function by hand on a small input, and print the intermediate arrays to see where it goes wrong."


def report_problem(problem, case: Case, owner=None) -> Feedback:
    """Feedback for a Raised or Bad result on ``case`` (``owner``: the FunctionProblem, for the hint's shapes)."""
    if isinstance(problem, Raised):
        return fail(
            "exception",
            f"Your function raised {problem.describe()} when called on {case.label}.",
            exception_hint(problem.exc, owner),
        )
    return fail(problem.mistake, f"{problem.text} (Called on {case.label}.)", problem.hint)


def explain(results, cases, tols, dtypes, judged, problem, run, table, split=True) -> Feedback:
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
        feedback = explain(results, cases, tols, dtypes, rest, problem, run, table, split=False)
        # A wrong shape that is the batch's axes in front of the shape the answer gives on one sequence is the
        # same mistake as on 2-D (e.g. keepdims=True, or the output's norm instead of the values'): no batch note.
        ref = rest[0]
        same = {i for i in extra if _same_shape_mistake(results[i], cases[i], results[ref], cases[ref])}
        extra = [i for i in extra if i not in same]
        # A wrong shape that keeps the batch axes is the same mistake as on 2-D (e.g. a transposed result);
        # a batch case counts against the answer's batch handling only when it raises or loses those axes.
        structural = [i for i in extra if not isinstance(results[i], np.ndarray)
                      or results[i].shape[:-2] != cases[i].expected.shape[:-2]
                      or (results[i].shape != cases[i].expected.shape
                          and all(results[j].shape == cases[j].expected.shape for j in rest))]
        if not structural and (not extra or feedback.mistake not in {m.id for m in table}):
            if feedback.mistake in {m.id for m in table}:
                return feedback
            return explain(results, cases, tols, dtypes, judged, problem, run, table, split=False)
        i = (structural or extra)[0]
        return fail(feedback.mistake, feedback.reason + f" Also, on {cases[i].label} your function "
                     f"{_went_wrong(results[i], problem)}: {_batch_note(problem, cases, results[i])}", feedback.hint)
    if overflow and all(i in right for i in judged if i not in overflow):
        mid, reason, hint = problem.overflow
        return fail(mid, reason.format(label=cases[min(overflow)].label), hint)
    batch = [i for i in judged if "batch" in cases[i].tags]
    if batch and all(i in right for i in judged if i not in batch):
        return _no_batch(results, cases, tols, batch, problem)
    for i in judged:
        if isinstance(results[i], (Raised, Bad)):
            return report_problem(results[i], cases[i], problem)
    judged_results = [results[i] for i in judged]
    judged_cases = [cases[i] for i in judged]
    judged_tols = [tols[i] for i in judged]
    if problem.diagnose is not None:
        found = problem.diagnose(judged_results, judged_cases, judged_tols, run)
        if found is not None:
            return found
    return diagnose_generic(judged_results, judged_cases, judged_tols, problem, [dtypes[i] for i in judged])


def _same_shape_mistake(got, case, ref_got, ref_case) -> bool:
    """Whether ``got`` (wrong on a batch case) has the batch's leading axes, then the shape the answer gives on
    the 2-D case ``ref_case``: the answer treats a batch as a stack of sequences, and is wrong on each alike."""
    if not (isinstance(got, np.ndarray) and isinstance(ref_got, np.ndarray)) or got.shape == case.expected.shape:
        return False
    lead = case.expected.ndim - ref_case.expected.ndim  # the sizes differ between cases: compare the axes
    return lead > 0 and got.shape[:lead] == case.expected.shape[:lead] and got.ndim == lead + ref_got.ndim


def _einsum_ellipsis(got) -> bool:
    message = str(got.exc) if isinstance(got, Raised) else ""
    return "einstein sum" in message and "ellipsis" in message


def _batch_note(problem, cases, got=None) -> str:
    """What the problem promises about leading axes, in its own terms (masks and K only where it has them)."""
    if _einsum_ellipsis(got):  # the axes were counted from the end; the einsum's output lacks '...'
        return ("the problem asks for leading batch axes, and np.einsum keeps the axes '...' stands for unless "
                "the output names them: write '...' in the output too (and sum over those axes afterwards if "
                "the result has none), or name each batch axis with its own letter.")
    masks = " and masks that broadcast" if any("broadcast" in case.tags for case in cases) else ""
    keys = ", np.swapaxes(K, -1, -2)" if "K" in problem.params else ""
    return f"the problem asks for leading batch axes{masks}, so count axes from the end (axis=-1{keys})."


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
    if problem.no_batch is not None and not any(is_right(results[j], cases[j], tols[j]) for j in batch):
        # right on no batch at all: the problem's own words for a 2-D-only answer
        mid, reason, hint = problem.no_batch
        return fail(mid, reason + f" (On {cases[i].label} it {what}.)", hint)
    return fail(
        "no-batch",
        f"Your function is right on every 2-D input, but not on {cases[i].label}: it {what}. The problem asks "
        "for any number of leading (batch) axes: anything that assumes exactly two axes (.T, axis=0 or axis=1, "
        "x.shape[0], a loop over rows) goes wrong on other shapes.",
        "Count axes from the end: axis=-1 for the keys"
        + (", np.swapaxes(K, -1, -2) instead of K.T" if "K" in problem.params else ", np.swapaxes(x, -1, -2) "
           "instead of x.T") + (", Q.shape[-1] for d_k" if "Q" in problem.params else "")
        + "; @ (np.matmul) multiplies the last two axes and broadcasts the rest.",
    )


def diagnose_generic(results, cases, tols, problem: FunctionProblem, dtypes=None) -> Feedback:
    """wrong-shape, non-finite-output, wrong-values: the first that applies."""
    dtypes = dtypes or [None] * len(results)
    for got, case in zip(results, cases):
        if got.shape != case.expected.shape:
            return fail(
                "wrong-shape",
                f"For {case.label}, the {problem.what} should have shape {case.expected.shape}; yours has shape "
                f"{got.shape}.",
                problem.hint,
            )
    for got, case, dtype in zip(results, cases, dtypes):
        if nonfinite(got):
            half = dtype is not None and np.dtype(dtype) == np.float16
            small = (f" Your {problem.what} is float16, whose largest number is 65504: a product or an exp beyond it "
                     "is inf, and inf - inf is NaN." if half else "")
            return fail(
                "non-finite-output",
                f"For {case.label}, your {problem.what} has NaN or inf"
                + (f" (first at {index(np.argwhere(~isfinite(got))[0])})" if got.ndim else f" ({fmt(got)})")
                + f"; the right {problem.what} is finite.{small}",
                "Look for 0/0: a mean or a division over nothing (an empty range or slice, at the smallest size the "
                "problem allows), or a row whose exponentials all underflow to 0; then for exp of large numbers, "
                "or -inf reaching a product.",
            )
    for got, case, tol, dtype in zip(results, cases, tols, dtypes):
        if not is_right(got, case, tol):
            return fail(
                "wrong-values",
                f"For {case.label}, {first_difference(got, case.expected, tol, problem.what, dtype)}.",
                problem.hint,
            )
    raise AssertionError("unreachable: a wrong answer with no difference")  # pragma: no cover
