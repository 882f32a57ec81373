"""The one judging skeleton behind every checker that runs a learner's function.

A function checker is a :class:`FunctionProblem` (how to call the learner's function, the seeded cases, the
table of known mistakes) handed to :func:`judge`. ``judge`` does everything else, the same way for every problem
(steps 1-2 here; step 3 in ``_running``, the tolerance of step 4 in ``_compare``, steps 5-7 in ``_explain``):

1. ``None``, ``...``, or a function raising ``NotImplementedError`` -> "not answered yet" (id ``not-answered``).
2. Not callable -> ``not-callable``; cannot be called with ``params`` -> ``wrong-signature``.
3. Runs the function on a copy of every case's inputs, safely (a function that changes an input array in place
   still passes, with a note saying so): an exception becomes ``exception`` (naming the
   learner's line); ``SystemExit`` becomes ``exit``; more than ``time_limit`` seconds in all becomes ``too-slow``;
   calling one of attn_lib's functions named in ``forbidden`` (under whatever name it was imported), or passing
   it as the answer (itself, a functools.partial or a wrapper of it), becomes ``used-attn-lib``; returning None,
   a tuple or a non-number becomes ``returned-none``, ``returned-tuple``, ``not-an-array``.
4. Right when every case matches ``case.expected`` to the precision of the case's inputs (float32 rounding at
   the coarsest: a float32 answer right to its rounding passes; an answer cast to float16 is judged at the
   inputs' precision too, and when it is right only up to float16's rounding it fails as ``low-precision``);
   the tolerance grows with ``case.scale``, the size of the numbers the computation goes through. Then
   ``after_pass`` may still fail it (too much memory, not boolean) or add a note.
5. Otherwise the first mistake of the table that every informative case agrees with (each mistake computes its
   mistaken answer with ``variants`` on the same inputs; a variant that raises matches a learner that raised).
   When none matches and the answer fails on cases tagged ``"batch"`` or ``"broadcast"`` (a 2-D-only answer with
   a second mistake), steps 5-7 run on the other cases and a note about the batch is added
   (none when the batch answer is the batch's axes in front of the answer's 2-D shape: one mistake on every sequence).
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
- ``Case(label, inputs, expected, tags=(), scale=None, averaged=None)``: ``inputs`` maps each parameter name to its
  value (arrays are copied before each call); ``label`` completes "when called on ..."; ``expected`` is computed by
  you (attn_lib or plain numpy, before the learner's code runs). Tag a case ``"large"`` when its scores are near 1000
  (the overflow rule uses it). ``scale`` is the size of the numbers the exponent sees (default: the largest finite
  input); an answer passes within about 64 float32 roundings at that scale (64 of the inputs' dtype's if coarser,
  whatever the answer's dtype). ``averaged`` (|V|.max()) for an output that averages rows of V: the absolute
  tolerance grows with it, so cancellation cannot make an output too small for its own rounding.
- ``Mistake(id, reason, hint, variants, strict_nonfinite=False)``: each variant takes the case's inputs as
  keywords and returns the mistaken answer (or raises, as the mistaken code would: a learner matches when
  raising the same exception with the same message, numbers aside). A case where the variant is
  mostly NaN/inf tells nothing and is skipped, unless ``strict_nonfinite`` (a numerical mistake whose NaN/inf
  must be reproduced; ``same_sizes=True``: a raising variant matches only a message with the same numbers,
  for two mistakes that fail in the same operation on different sizes). A mistake only matches if on some case
  it differs from the right answer: order the table from specific to general.
- ``FunctionProblem``: ``params`` are passed positionally, in order; ``optional`` names (e.g. ``("mask",)``) are
  passed by keyword only when the case's value is not None; a function that cannot take them is judged on the
  other cases and then fails with ``no-<name>-parameter``. ``by_name`` lists params passed by keyword when the
  learner's function has a parameter of that name (e.g. ``("chunk_size",)``), else positionally. ``forbidden``
  names attn_lib functions the learner must write, not call (e.g. ``("softmax",)``; ``forbidden_why`` replaces
  the generic reason when the function is a part of the problem, not all of it; the verdict then states the one rule
  of every function problem, ``_running.CALL_RULE``, and ``tools``, what to use instead). ``diagnose(results, cases,
  tols, run) -> Feedback | None`` sees every result as an array (exceptions and odd returns were reported
  before), ``tols[i]`` the (rtol, atol) for ``results[i]`` (use ``close(got, want, tol)``), and may call the
  learner again with ``run``. ``after_pass(fn, run) -> Feedback | str | None`` runs once everything is right:
  ``run(*args, **kwargs)`` calls the learner's function safely (same rules) and returns its raw result; return a
  failing Feedback, a note to append, or None. ``convert="float"`` turns results into float arrays;
  ``convert="array"`` keeps bool/int dtypes; ``array_only=True`` (for a problem
  whose text says "an array"; elsewhere a list of the right numbers is one more style) refuses a list as
  ``returned-list``.
  ``result_shape`` (e.g. ``"(d_model, d_k)"``) joins the arguments' shapes in the hint of an exception that names
  shapes; ``no_batch=(id, reason, hint)`` replaces the generic ``no-batch`` for an answer right on 2-D inputs and
  on no batch.
- ``run`` returns the raw result, or a ``_running.Raised`` when the learner's code raised. Helpers in
  ``_compare``: ``first_difference(got, want, tol, what)``, ``two_numbers(a, b)`` (a wrong and a right number
  with digits enough to differ), ``fmt``, ``index``, ``close``, ``is_right``; in ``_pieces``: learner-style, batch-safe
  ``row_softmax``, ``scaled_qk``, ``attention_out``, ``masked_scores`` and the texts several checkers share (``AXIS_1``,
  ``UNIFORM``, ``SMALL_FILL``, ``GLOBAL_MAX``, ``NO_DIVISION``, ...). ``time_limit`` defaults to 10 s.
- Export ``check_x`` from ``attn_lib/exercises/__init__.py``, add its row to that module's table of mistake
  ids, and test it in ``tests/exercises/test_check_x.py`` with a table of wrong answers (each asserted to get
  its own id) and a table of right-but-unusual answers (all must pass).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ._compare import coarser, inputs_dtype, is_right, rounded_right, tolerance
from ._explain import explain
from ._feedback import Feedback, is_blank, fail, not_answered
from ._pieces import FIX_OVERFLOW, OVERFLOW
from ._learner_code import signature_text
from ._running import (Runner, wanted, _accepts, _as_result, _forbidden_original, _has_parameter, _used_attn_lib,
                       _Verdict)


# ------------------------------------------------------------------------------------------- the author's parts


@dataclass
class Case:
    """One set of inputs a checker gives the learner's function, with the right answer."""

    label: str
    inputs: dict
    expected: np.ndarray
    tags: frozenset = frozenset()
    scale: float | None = None
    averaged: float | None = None  # an output that averages rows of V: |V|.max() (see _compare.tolerance)

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
    same_sizes: bool = False  # a raising variant matches only the same message with the same sizes





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
    forbidden_why: str = ""  # the reason when the learner calls a forbidden function (default: a generic one)
    tools: str = "np.exp, np.max, np.sum, @, ..."  # what the used-attn-lib hint suggests instead
    overflow: tuple = (
        "naive-overflow",
        "Your function is right on small scores, but on {label} it gives NaN or inf: it does not subtract each "
        "row's maximum before np.exp. " + OVERFLOW,
        FIX_OVERFLOW,
    )
    diagnose: Callable | None = None
    after_pass: Callable | None = None
    after_pass_inputs: str = ""  # when after_pass runs the function on larger inputs: what they are (own time limit)
    hint: str = "Call your function by hand on a small input and print each intermediate array."
    result_shape: str = ""  # the answer's shape, e.g. "(d_model, d_k)", for the hint of an exception naming shapes
    no_batch: tuple | None = None  # (id, reason, hint) for an answer right on no batch at all (default: no-batch)
    define: str = ""
    convert: str = "float"
    array_only: bool = False  # the problem says "return an array": a list returned is named (returned-list)
    time_limit: float | None = None  # seconds; None: _running.TIME_LIMIT, read when the check runs


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
        return fail(
            "not-callable",
            f"{checker} needs your function itself, but it got {type(fn).__name__}. Pass the name without "
            f"calling it: {checker}(my_function), not {checker}(my_function(...)).",
        )
    if _accepts(fn, *problem.params) is False:
        call = ", ".join(problem.params)
        define = problem.define or ", ".join([*problem.params, *(f"{o}=None" for o in problem.optional)])
        return fail(
            "wrong-signature",
            f"{checker} calls your function as fn({call}), but it is defined as {signature_text(fn)}.",
            f"Define it to take these arguments: def my_function({define}).",
        )
    return None


def _judge(fn, problem: FunctionProblem) -> Feedback:
    if is_blank(fn):
        return not_answered(wanted(fn, problem))
    original = _forbidden_original(fn, problem)
    if original is not None:  # e.g. my_softmax = attn_lib.softmax, or functools.partial(attn_lib.softmax)
        return _used_attn_lib(problem, original)
    trouble = _signature_problem(fn, problem)
    if trouble is not None:
        return trouble
    cases = problem.cases()
    with Runner(fn, problem) as runner:
        try:
            feedback = _judge_cases(fn, problem, cases, runner)
        except _Verdict as verdict:
            feedback = verdict.feedback
    return runner.with_note(feedback)


def _low_precision(problem: FunctionProblem, case: Case, dtype) -> Feedback:
    digits = int(np.finfo(dtype).precision)
    return fail(
        "low-precision",
        f"Your {problem.what} on {case.label} is {np.dtype(dtype).name}: it is the right answer up to the "
        f"rounding of {np.dtype(dtype).name}, which keeps about {digits} significant digits. The inputs are "
        f"{inputs_dtype(case).name}, and the problem is judged at their precision (to float32 rounding at the "
        "coarsest), so a result cast to half precision is not the formula's answer: it could hide a mistake of 1 %.",
        "Leave out the cast (.astype(np.float16), np.half, or float16 arrays): compute and return in float32 or "
        "float64.",
    )


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
        results.append(_as_result(out, problem.what, problem.convert, problem.array_only))
    tols = [tolerance(inputs_dtype(case), case) for case in cases]  # the inputs' precision, not the answer's
    judged = [i for i, got in enumerate(results) if got is not None]
    coarse = [i for i in judged if coarser(dtypes[i], cases[i])]
    if coarse and all(is_right(results[i], cases[i], tols[i]) or (i in coarse and rounded_right(
            results[i], cases[i], dtypes[i])) for i in judged):
        return _low_precision(problem, cases[coarse[0]], dtypes[coarse[0]])
    if all(is_right(results[i], cases[i], tols[i]) for i in judged):
        missing = [k for k, ok in takes.items() if not ok and any(c.inputs.get(k) is not None for c in cases)]
        if missing:
            return fail(
                f"no-{missing[0]}-parameter",
                f"Without {missing[0]} your function is right on all {len(judged)} cases, but it cannot take "
                f"{missing[0]}: it is defined as {signature_text(fn)}, and {problem.checker} also calls "
                f"fn({', '.join(problem.params)}, {missing[0]}=...).",
                f"Add a parameter {missing[0]}=None, and use it when it is given.",
            )
        note = ""
        if problem.after_pass is not None:
            if problem.after_pass_inputs:
                runner.restart(problem.after_pass_inputs)
            extra = problem.after_pass(fn, runner.call)
            if isinstance(extra, Feedback):
                return extra
            note = extra or ""
        return Feedback(True, problem.passed.format(count=len(cases)) + note)
    feedback = explain(results, cases, tols, dtypes, judged, problem, runner.call, problem.mistakes())
    if coarse and np.dtype(dtypes[coarse[0]]).name not in feedback.reason:  # a second cause the learner should see
        name = np.dtype(dtypes[coarse[0]]).name
        feedback = fail(feedback.mistake, f"{feedback.reason} Also, your {problem.what} is {name}, which keeps about "
                         f"{int(np.finfo(dtypes[coarse[0]]).precision)} significant digits: the problem is judged at "
                         "the precision of its inputs.", feedback.hint)
    return feedback

