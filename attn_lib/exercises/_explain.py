"""Why a wrong answer is wrong: the judging steps that run once some case is wrong, in the order of
:data:`WRONG_ANSWER_STEPS` (the judge's whole sequence is in ``_judge``). Each step takes the attempts (the cases
judged, one :class:`Attempt` each) and the runner, and returns a Feedback or None to pass to the next step."""

from __future__ import annotations

import re
import warnings

import numpy as np

from ._compare import close, coarser, difference, fmt, index, isfinite, nonfinite, not_zero, tolerance
from ._catalogue import EXACT_ZERO, OVERFLOW, entry
from ._feedback import Feedback, fail, failure
from ._types import BATCH, BROADCAST, LARGE, Attempt, Bad, Case, Mistake, Raised, copy_input

# What a problem's overflow step says by default: right on small scores, NaN/inf on scores near 1000.
NAIVE_OVERFLOW = ("naive-overflow", {"what": "function", "when": ""})


def variant_outcome(variant, case: Case):
    """A mistaken variant's answer on ``case`` (float64 array), or a Raised when the variant fails there."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            inputs = {k: copy_input(v) for k, v in case.inputs.items()}
            return np.asarray(variant(**inputs), dtype=float)
        except Exception as exc:  # a mistaken formula that fails on this shape (as the learner's would)
            return Raised(exc)


def _gist(exc: BaseException) -> str:
    return re.sub(r"\d+", "#", str(exc))


def _agree(got, want, tol, strict: bool, same_sizes: bool = True):
    """True/False: does the learner's outcome agree with a variant's? None: this case tells nothing."""
    if isinstance(want, Raised):  # the same exception, the same message: the same operation
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


def matches(mistake: Mistake, variant, attempts: list[Attempt], skip=()) -> bool:
    """Whether the learner's results agree with ``variant`` on every informative attempt, and the variant differs
    from the right answer on at least one of them (``skip``: attempts left out for non-numerical mistakes)."""
    agreed = differs = False
    for attempt in attempts:
        if attempt in skip and not mistake.strict_nonfinite:
            continue
        case = attempt.case
        want = variant_outcome(variant, case)
        verdict = _agree(attempt.result, want, attempt.tol, mistake.strict_nonfinite, mistake.same_sizes)
        if verdict is False:
            return False
        if verdict:
            agreed = True
            if isinstance(want, Raised) or want.shape != case.expected.shape or not (
                isfinite(want).all() and close(want, case.expected, tolerance(np.float64, case)).all()
            ):
                differs = True
    return agreed and differs


def find_mistake(table, attempts: list[Attempt], skip=()):
    """The first mistake (and its variant) of ``table`` that the attempts match, or (None, None)."""
    for mistake in table:
        for variant in mistake.variants:
            if matches(mistake, variant, attempts, skip):
                return mistake, variant
    return None, None


def overflowed(attempts: list[Attempt]) -> list[Attempt]:
    """The attempts on cases tagged LARGE whose results hold NaN or inf."""
    return [a for a in attempts if LARGE in a.case.tags and nonfinite(a.result)]


def report_mistake(mistake: Mistake, variant, attempts: list[Attempt]) -> Feedback:
    """The mistake's feedback, plus a note when the learner's output also overflowed where the mistake alone
    gives finite numbers (a second mistake: no maximum subtracted before exp)."""
    reason = mistake.reason
    for attempt in overflowed(attempts):
        want = variant_outcome(variant, attempt.case)
        got = attempt.result
        if isinstance(want, np.ndarray) and want.shape == got.shape and isfinite(want[~isfinite(got)]).all():
            reason += f" Also, on {attempt.case.label} your answer has NaN or inf. " + OVERFLOW
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


def report_problem(result, case: Case, owner=None) -> Feedback:
    """Feedback for a Raised or Bad ``result`` on ``case`` (``owner``: the FunctionProblem, for the hint's shapes)."""
    if isinstance(result, Raised):
        return failure("exception", raised=result.describe(), label=case.label, hint=exception_hint(result.exc, owner))
    return fail(result.mistake, f"{result.text} (Called on {case.label}.)", result.hint)


# ------------------------------------------------------------------------------------------- the steps


def known_mistake(attempts: list[Attempt], runner) -> Feedback | None:
    """The first mistake of the problem's table that every informative attempt agrees with."""
    mistake, variant = find_mistake(runner.mistakes, attempts, skip=overflowed(attempts))
    return None if mistake is None else report_mistake(mistake, variant, attempts)


def batch_also(attempts: list[Attempt], runner) -> Feedback | None:
    """Two mistakes at once, one of them only showing on batches or broadcasting masks (e.g. K.T and no scaling):
    the rest explained on the other cases, with a note on the batch."""
    problem = runner.problem
    extra = [a for a in attempts if a.case.tags & {BATCH, BROADCAST} and not a.right]
    rest = [a for a in attempts if a not in extra]
    if not (extra and rest and not all(a.right for a in rest) and all(a.array for a in rest)):
        return None
    feedback = explain(rest, runner, tuple(step for step in WRONG_ANSWER_STEPS if step is not batch_also))
    known = {m.id for m in runner.mistakes}
    # A wrong shape that is the batch's axes in front of the shape the answer gives on one sequence is the
    # same mistake as on 2-D (e.g. keepdims=True, or the output's norm instead of the values'): no batch note.
    extra = [a for a in extra if not _same_shape_mistake(a, rest[0])]
    # A wrong shape that keeps the batch axes is the same mistake as on 2-D (e.g. a transposed result);
    # a batch case counts against the answer's batch handling only when it raises or loses those axes.
    structural = [a for a in extra if not a.array or a.result.shape[:-2] != a.case.expected.shape[:-2]
                  or (a.result.shape != a.case.expected.shape
                      and all(r.result.shape == r.case.expected.shape for r in rest))]
    if not structural and (not extra or feedback.mistake not in known):
        return feedback if feedback.mistake in known else None
    a = (structural or extra)[0]
    return fail(feedback.mistake, feedback.reason + f" Also, on {a.case.label} your function "
                f"{went_wrong(a.result, problem)}: {_batch_note(problem, [r.case for r in attempts], a.result)}",
                feedback.hint)


def overflow(attempts: list[Attempt], runner) -> Feedback | None:
    """Right except NaN/inf on cases tagged LARGE."""
    large = overflowed(attempts)
    if not large or not all(a.right for a in attempts if a not in large):
        return None
    mid, fields = runner.problem.overflow or NAIVE_OVERFLOW
    return failure(mid, label=large[0].case.label, **fields)


def no_batch(attempts: list[Attempt], runner) -> Feedback | None:
    """Right on every case without the tag BATCH, wrong on one with it."""
    batch = [a for a in attempts if BATCH in a.case.tags]
    if not batch or not all(a.right for a in attempts if a not in batch):
        return None
    problem = runner.problem
    wrong = next(a for a in batch if not a.right)
    what = batch_failure(wrong, problem)
    if problem.batch_mistake is not None:
        named = problem.batch_mistake(wrong, runner)
        if named is not None:
            return named
    if problem.no_batch is not None and not any(a.right for a in batch):
        # right on no batch at all: the problem's own words for a 2-D-only answer
        mid, fields = problem.no_batch
        reason, hint = entry(mid, **fields)
        return fail(mid, reason + f" (On {wrong.case.label} it {what}.)", hint)
    return failure("no-batch", label=wrong.case.label, what=what, x="K" if "K" in problem.params else "x",
                   d_k=", Q.shape[-1] for d_k" if "Q" in problem.params else "")


def odd_result(attempts: list[Attempt], runner) -> Feedback | None:
    """An exception, or a return value that is not an array of numbers, on some case."""
    for a in attempts:
        if isinstance(a.result, (Raised, Bad)):
            return report_problem(a.result, a.case, runner.problem)
    return None


def own_diagnosis(attempts: list[Attempt], runner) -> Feedback | None:
    """The problem's own structural reasons (its ``diagnose`` hook), on results that are all arrays."""
    diagnose = runner.problem.diagnose
    return None if diagnose is None else diagnose(attempts, runner)


def wrong_shape(attempts: list[Attempt], runner) -> Feedback | None:
    problem = runner.problem
    for a in attempts:
        if a.result.shape != a.case.expected.shape:
            return failure("wrong-shape", label=a.case.label, what=problem.what, expected=a.case.expected.shape,
                           got=a.result.shape, extra="", hint=problem.hint)
    return None


def coarse_note(attempts: list[Attempt], what: str) -> str:
    """A second cause to name beside a wrong answer: an answer cast to a coarser dtype than its inputs (float16
    from float32 or float64 inputs); "" when there is none."""
    coarse = [a for a in attempts if coarser(a.dtype, a.case)]
    if not coarse:
        return ""
    dtype = np.dtype(coarse[0].dtype)
    return (f" Also, your {what} is {dtype.name}, which keeps about {int(np.finfo(dtype).precision)} significant "
            "digits: the problem is judged at the precision of its inputs.")


def non_finite(attempts: list[Attempt], runner) -> Feedback | None:
    """NaN or inf where the right answer is finite; a float16 answer is named as the likely cause (and the runner
    told so: the judge names a coarse dtype once)."""
    what = runner.problem.what
    for a in attempts:
        got = a.result
        if nonfinite(got):
            half = np.dtype(a.dtype) == np.float16
            small = (f" Your {what} is float16, whose largest number is 65504: a product or an exp beyond it "
                     "is inf, and inf - inf is NaN." if half else "")
            runner.named_dtype |= half
            return failure(
                "non-finite-output", label=a.case.label, what=what, extra=small,
                where=f"first at {index(np.argwhere(~isfinite(got))[0])}" if got.ndim else fmt(got))
    return None


def wrong_values(attempts: list[Attempt], runner) -> Feedback | None:
    """The first differing entry, with the digits that agree (naming the answer's dtype as a cause of rounding
    when many agree: the runner is told, and the judge names a coarse dtype once)."""
    problem = runner.problem
    for a in attempts:
        if not a.right and close(a.result, a.case.expected, a.tol).all():  # right but for a promised exact 0
            at = tuple(np.argwhere(not_zero(a.result, a.case))[0])
            return failure("wrong-values", label=a.case.label, hint=problem.hint, difference=EXACT_ZERO.format(
                at=index(at), what=problem.what, value=fmt(a.result[at])))
        if not a.right:
            text, named = difference(a.result, a.case.expected, a.tol, problem.what, a.dtype)
            runner.named_dtype |= named
            return failure("wrong-values", label=a.case.label, difference=text, hint=problem.hint)
    return None


# The order in which a wrong answer is explained: the first step with something to say gives the verdict.
WRONG_ANSWER_STEPS = (known_mistake, batch_also, overflow, no_batch, odd_result, own_diagnosis, wrong_shape,
                      non_finite, wrong_values)
# The generic reasons, for a problem's own diagnosis that falls back on them (diagnose_generic).
GENERIC_STEPS = (wrong_shape, non_finite, wrong_values)


def explain(attempts: list[Attempt], runner, steps=WRONG_ANSWER_STEPS) -> Feedback:
    """Why ``attempts`` (some wrong) are wrong: the first of ``steps`` that gives a verdict."""
    return first_verdict(attempts, runner, steps)[0]


def first_verdict(attempts: list[Attempt], runner, steps):
    """(Feedback, the step that gave it): the first of ``steps`` with something to say."""
    for step in steps:
        feedback = step(attempts, runner)
        if feedback is not None:
            return feedback, step
    raise AssertionError("unreachable: a wrong answer with no difference")  # pragma: no cover


def diagnose_generic(attempts: list[Attempt], runner) -> Feedback:
    """wrong-shape, non-finite-output, wrong-values: the first that applies."""
    return explain(attempts, runner, GENERIC_STEPS)


def _same_shape_mistake(attempt: Attempt, ref: Attempt) -> bool:
    """Whether ``attempt`` (wrong on a batch case) has the batch's leading axes, then the shape the answer gives
    on the 2-D case ``ref``: the answer treats a batch as a stack of sequences, and is wrong on each alike."""
    got, case = attempt.result, attempt.case
    if not (attempt.array and ref.array) or got.shape == case.expected.shape:
        return False
    lead = case.expected.ndim - ref.case.expected.ndim  # the sizes differ between cases: compare the axes
    return lead > 0 and got.shape[:lead] == case.expected.shape[:lead] and got.ndim == lead + ref.result.ndim


def _einsum_ellipsis(got) -> bool:
    message = str(got.exc) if isinstance(got, Raised) else ""
    return "einstein sum" in message and "ellipsis" in message


def _batch_note(problem, cases, got=None) -> str:
    """What the problem promises about leading axes, in its own terms (masks and K only where it has them)."""
    if _einsum_ellipsis(got):  # the axes were counted from the end; the einsum's output lacks '...'
        return ("the problem asks for leading batch axes, and np.einsum keeps the axes '...' stands for unless "
                "the output names them: write '...' in the output too (and sum over those axes afterwards if "
                "the result has none), or name each batch axis with its own letter.")
    masks = " and masks that broadcast" if any(BROADCAST in case.tags for case in cases) else ""
    keys = ", np.swapaxes(K, -1, -2)" if "K" in problem.params else ""
    return f"the problem asks for leading batch axes{masks}, so count axes from the end (axis=-1{keys})."


def went_wrong(got, problem) -> str:
    if isinstance(got, Raised):
        return f"raises {got.describe()}"
    if isinstance(got, Bad):
        return got.text.rstrip(".")
    return f"gives wrong {problem.what}"


def batch_failure(attempt: Attempt, problem) -> str:
    """What the learner's function did on a batch case it gets wrong: "raises ...", "gives wrong output of shape
    (2, 3)"."""
    what = went_wrong(attempt.result, problem)
    if attempt.array and attempt.result.shape != attempt.case.expected.shape:
        what += f" of shape {attempt.result.shape}"
    return what
