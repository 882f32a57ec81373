"""The one judging pipeline behind every checker that runs a learner's function.

A function checker is a :class:`FunctionProblem` (how to call the learner's function, the seeded cases, the
table of known mistakes) handed to :func:`judge`. ``judge`` does everything else, the same way for every problem,
as two ordered sequences of steps in code: :data:`BEFORE_RUNNING` (each ``step(fn, problem)``), then the
learner's function runs on every case (``_running.Runner.attempt``: one :class:`Attempt` per case), then
:data:`JUDGING_STEPS` (each ``step(attempts, runner)``); the first step that returns a Feedback gives the verdict.
In words:

1. ``None``, ``...``, or a function raising ``NotImplementedError`` -> "not answered yet" (id ``not-answered``).
2. Not callable -> ``not-callable``; cannot be called with ``params`` -> ``wrong-signature``.
3. Runs the function on a copy of every case's inputs, safely (a function that changes an input array in place
   still passes, with a note saying so): an exception becomes ``exception`` (naming the
   learner's line); ``SystemExit`` becomes ``exit``; more than ``time_limit`` seconds in all becomes ``too-slow``;
   calling one of attn_lib's functions named in ``forbidden`` (under whatever name it was imported), or passing
   it as the answer (itself, a functools.partial or a wrapper of it), becomes ``used-attn-lib``; returning None,
   a tuple or a non-number becomes ``returned-none``, ``returned-tuple``, ``not-an-array``.
4. Right when every case matches ``case.expected`` to the precision of the case's inputs (and is exactly 0 where
   ``case.zeros`` promises 0) (float32 rounding at
   the coarsest: a float32 answer right to its rounding passes; an answer cast to float16 is judged at the
   inputs' precision too, and when it is right only up to float16's rounding it fails as ``low-precision``);
   the tolerance grows with ``case.scale``, the size of the numbers the computation goes through. Then
   ``after_pass`` may still fail it (too much memory, not boolean) or add a note.
5. Otherwise the first mistake of the table that every informative case agrees with (each mistake computes its
   mistaken answer with ``variants`` on the same inputs; a variant that raises matches a learner that raised).
   When none matches and the answer fails on cases tagged ``BATCH`` or ``BROADCAST`` (a 2-D-only answer with
   a second mistake), steps 5-7 run on the other cases and a note about the batch is added
   (none when the batch answer is the batch's axes in front of the answer's 2-D shape: one mistake on every sequence).
6. Otherwise: right except NaN/inf on cases tagged ``LARGE`` -> ``overflow`` (id, fields: a catalogue entry).
7. Otherwise ``no-batch`` (right on every case without the tag ``BATCH``, wrong on one with it; the problem's
   ``batch_mistake`` may name the habit), an exception or odd return value on some case, ``diagnose(attempts,
   runner)`` (the problem's own
   structural reasons), then the generic ones: ``wrong-shape``, ``non-finite-output``, ``wrong-values`` (first
   differing entry, printed with enough digits that the two numbers differ, and how many digits agree, naming
   rounding as a possible cause when many do).

Example: a complete checker
---------------------------
>>> import numpy as np
>>> from attn_lib.exercises._judge import judge
>>> from attn_lib.exercises._types import Case, FunctionProblem, Mistake
>>> def _cases():
...     rng = np.random.default_rng(0)  # seeded: the same words on every run (nbval compares them)
...     cases = []
...     for shape in [(3, 4), (2, 3, 5)]:  # a batch case too, when the problem promises (..., n, m)
...         x = rng.normal(size=shape)
...         e = np.exp(x - x.max(axis=-1, keepdims=True))
...         cases.append(Case(f"x of shape {shape}", {"x": x}, expected=e / e.sum(axis=-1, keepdims=True)))
...     return cases
>>> def _mistakes():  # ids of the catalogue (_data/_mistakes.py), which holds their reasons and hints
...     return [
...         Mistake("softmax-wrong-axis",
...                 variants=(lambda x: np.exp(x) / np.exp(x).sum(axis=-2, keepdims=True),)),
...         Mistake("softmax-whole-matrix", variants=(lambda x: np.exp(x) / np.exp(x).sum(),)),
...     ]
>>> ROWS = FunctionProblem(
...     checker="check_rows", params=("x",), cases=_cases, mistakes=_mistakes, what="weights",
...     passed="Your rows are weights on all {count} cases.", forbidden=())
>>> def check_rows(fn):
...     return judge(fn, ROWS)
>>> check_rows(lambda x: np.exp(x) / np.exp(x).sum(axis=-1, keepdims=True)).passed
True
>>> check_rows(lambda x: (np.exp(x) / np.exp(x).sum(axis=-1, keepdims=True)).astype(np.float32)).passed
True
>>> check_rows(lambda x: np.exp(x) / np.exp(x).sum()).mistake
'softmax-whole-matrix'
>>> print(check_rows(None).verdict)
Not answered yet
>>> check_rows(lambda x: x ** 2 / (x ** 2).sum(axis=-1, keepdims=True)).mistake
'wrong-values'

Writing one
-----------
- ``Case(label, inputs, expected, tags=(), scale=None, averaged=None, zeros=None)``: ``inputs`` maps each parameter
  name to its value (arrays are copied before each call); ``label`` completes "when called on ..."; ``expected`` is
  computed by you (attn_lib or plain numpy, before the learner's code runs); ``zeros`` (a boolean array) marks the
  entries the problem promises are exactly 0, compared with == 0, not within the tolerance (the blocked keys'
  weights: exp(-700) is within any tolerance of 0, and still a weight). Tags are the constants of ``_types`` (``BATCH``,
  ``BROADCAST``, ``LARGE``, ...; an unknown one is refused): ``LARGE`` when its scores are near 1000 (the overflow
  rule uses it). ``scale`` is the size of the numbers the exponent sees (default: the largest finite
  input); an answer passes within about 64 float32 roundings at that scale (64 of the inputs' dtype's if coarser,
  whatever the answer's dtype). ``averaged`` (|V|.max()) for an output that averages rows of V: the absolute
  tolerance grows with it, so cancellation cannot make an output too small for its own rounding.
- ``Mistake(id, variants, strict_nonfinite=False, same_sizes=True, **fields)``: ``id`` names an entry of the
  catalogue (``_catalogue.CATALOGUE``), which holds the reason and hint, ``fields`` fill in its template (a new
  mistake gets its entry there first: an unknown id is refused). Each variant takes the case's
  inputs as keywords and returns the mistaken answer (or raises, as the mistaken code would: a learner matches
  when raising the same exception with the same message, sizes included: two mistakes that fail in one numpy
  operation on different sizes, such as lengths laid along the queries or down the keys, are told apart;
  ``same_sizes=False`` accepts the message with other numbers). A case where the variant is
  mostly NaN/inf tells nothing and is skipped, unless ``strict_nonfinite`` (a numerical mistake whose NaN/inf
  must be reproduced). A mistake only matches if on some case
  it differs from the right answer: order the table from specific to general.
- ``FunctionProblem``: ``params`` are passed positionally, in order; ``optional`` names (e.g. ``("mask",)``) are
  passed by keyword only when the case's value is not None; a function that cannot take them is judged on the
  other cases and then fails with ``no-<name>-parameter``. ``by_name`` lists params passed by keyword when the
  learner's function has a parameter of that name (e.g. ``("chunk_size",)``), else positionally. ``forbidden``
  names attn_lib functions the learner must write, not call (e.g. ``("softmax",)``; ``forbidden_why`` replaces
  the generic reason when the function is a part of the problem, not all of it; the verdict then states the one rule
  of every function problem, ``_running.CALL_RULE``, and ``tools``, what to use instead). The hooks take
  the attempts (one :class:`Attempt` per case: ``case``, ``result``, ``dtype``, ``tol``, ``right``, ``peak``) and
  the runner: ``diagnose(attempts, runner) -> Feedback | None`` sees every result as an array (exceptions and
  odd returns were reported before; compare with ``close(a.result, a.case.expected, a.tol)``);
  ``after_pass(attempts, runner) -> Feedback | str | None`` runs once everything is right: return a failing
  Feedback, a note to append, or None; ``batch_mistake(attempt, runner) -> Feedback | None`` names the habit of
  a no-batch answer. A hook's failing Feedback is ``failure(id, **fields)`` (``_feedback``), its words the
  catalogue's, and ``gives`` lists the ids the hooks can give (the teacher's table is generated from the
  tables, :func:`mistake_ids` and ``gives``). ``runner.call_inputs({name: value})`` calls the learner's
  function safely (same rules) as the cases are called, ``runner.call(*args, **kwargs)`` with the arguments as
  given; both return the raw result or a ``Raised``; ``runner.fn`` is the learner's function, ``runner.peak`` the
  memory of its last call. ``convert="float"`` turns results into float arrays; ``convert="array"`` keeps
  bool/int dtypes; ``array_only=True`` (for a problem whose text says "an array"; elsewhere a list of the right
  numbers is one more style) refuses a list as ``returned-list``.
  ``result_shape`` (e.g. ``"(d_model, d_k)"``) joins the arguments' shapes in the hint of an exception that names
  shapes; ``no_batch=(id, fields)`` (a catalogue id and its template fields) replaces the generic ``no-batch``
  for an answer right on 2-D inputs and on no batch.
- Helpers in
  ``_compare``: ``first_difference(got, want, tol, what)``, ``two_numbers(a, b)`` (a wrong and a right number
  with digits enough to differ), ``fmt``, ``index``, ``close``, ``is_right``; in ``_pieces``: learner-style, batch-safe
  ``row_softmax``, ``scaled_qk``, ``attention_out``, ``masked_scores``; in ``_catalogue``: every mistake's reason
  and hint (the words are ``_data/_mistakes.py``), ``entry(id, **fields)``; ``failure(id, **fields)``
  (``_feedback``) for a hook's verdict. ``time_limit`` defaults
  to 10 s.
- In ``_check_x.py`` the roles have one name each: ``PROBLEM``, ``_cases``, ``_mistakes``, ``_diagnose``,
  ``_after_pass``, ``_batch_mistake``, and ``check_x`` itself (tests/exercises/test_layout.py holds every module to
  it). What two checkers share goes in a shared module (``_pieces``, ``_answers``, ``_weights_diagnosis``,
  ``_attention_mistakes``), never in one checker imported by another. The steps, in order, are CONTRIBUTING.md's.
"""

from __future__ import annotations

import numpy as np

from ._compare import coarser, inputs_dtype, rounded_right
from ._explain import NAIVE_OVERFLOW, WRONG_ANSWER_STEPS, coarse_note, first_verdict
from ._catalogue import entry
from ._feedback import Feedback, fail, failure, is_blank, not_answered
from ._learner_code import signature_text
from ._running import Runner, accepts, forbidden_original, used_attn_lib, wanted
from ._record_verdict import record_verdict
from ._types import BATCH, LARGE, Attempt, FinalVerdict, FunctionProblem


# ------------------------------------------------------------------------------------------- before running


def not_answered_yet(fn, problem: FunctionProblem) -> Feedback | None:
    """``None`` or ``...``: the cell's prompt (a function raising NotImplementedError is found when it runs)."""
    return not_answered(wanted(fn, problem)) if is_blank(fn) else None


def is_attn_lib_itself(fn, problem: FunctionProblem) -> Feedback | None:
    """The answer IS a forbidden attn_lib function: my_softmax = attn_lib.softmax, or a partial of it."""
    original = forbidden_original(fn, problem)
    return None if original is None else used_attn_lib(problem, original)


def not_callable(fn, problem: FunctionProblem) -> Feedback | None:
    if callable(fn):
        return None
    checker = problem.checker
    return failure("not-callable", checker=checker, got=type(fn).__name__)


def wrong_signature(fn, problem: FunctionProblem) -> Feedback | None:
    if accepts(fn, *problem.params) is not False:
        return None
    return failure("wrong-signature", checker=problem.checker, params=", ".join(problem.params),
                   defined=signature_text(fn), signature=problem.signature)


# ------------------------------------------------------------------------------------------- after running


def low_precision(attempts: list[Attempt], runner: Runner) -> Feedback | None:
    """Right up to the rounding of an answer cast to a coarser dtype than the inputs'."""
    coarse = [a for a in attempts if coarser(a.dtype, a.case)]  # answers that keep fewer digits (float16)
    if not coarse or not all(a.right or (a in coarse and rounded_right(a.result, a.case, a.dtype))
                             for a in attempts):
        return None
    case, dtype = coarse[0].case, np.dtype(coarse[0].dtype)
    return failure("low-precision", what=runner.problem.what, label=case.label, dtype=dtype.name,
                   digits=int(np.finfo(dtype).precision), inputs=inputs_dtype(case).name)


def missing_parameter(attempts: list[Attempt], runner: Runner) -> Feedback | None:
    """Right on every case it could be called on, but it cannot take an optional argument (such as mask)."""
    missing = [name for name in runner.problem.optional if name in runner.untaken]
    if not missing or not all(a.right for a in attempts):
        return None
    name, problem = missing[0], runner.problem
    reason, hint = entry("no-<name>-parameter", name=name, count=len(attempts), defined=signature_text(runner.fn),
                         checker=problem.checker, params=", ".join(problem.params))
    return fail(f"no-{name}-parameter", reason, hint)


def all_right(attempts: list[Attempt], runner: Runner) -> Feedback | None:
    """Every case right: the problem's ``after_pass`` may still fail it (too much memory, not boolean) or add a
    note."""
    if not all(a.right for a in attempts):
        return None
    problem = runner.problem
    note = ""
    if problem.after_pass is not None:
        if problem.after_pass_inputs:
            runner.restart(problem.after_pass_inputs)
        extra = problem.after_pass(attempts, runner)
        if isinstance(extra, Feedback):
            return extra
        note = extra or ""
    return Feedback(True, problem.passed.format(count=runner.cases) + note)


# The whole order, before running the learner's function and after it ran on every case.
BEFORE_RUNNING = (not_answered_yet, is_attn_lib_itself, not_callable, wrong_signature)
JUDGING_STEPS = (low_precision, missing_parameter, all_right, *WRONG_ANSWER_STEPS)


# The ids every function checker may give, whatever its problem (the teacher's table lists them once).
EVERY_FUNCTION_CHECKER = (
    "not-answered", "not-callable", "wrong-signature", "exception", "exit", "too-slow", "returned-none",
    "returned-tuple", "not-an-array", "masked-array", "low-precision", "wrong-shape", "non-finite-output",
    "wrong-values",
)


def mistake_ids(problem: FunctionProblem) -> list[str]:
    """The ids ``problem``'s checker can give beyond :data:`EVERY_FUNCTION_CHECKER`, in the order the judge tries
    them: its table, the overflow and no-batch steps (where its cases have scores near 1000 or batch axes), a list
    returned where an array is asked for, a missing optional parameter, a forbidden call, and its hooks' ids."""
    cases = problem.cases()
    found = [m.id for m in problem.mistakes()]
    if any(LARGE in case.tags for case in cases):
        found.append((problem.overflow or NAIVE_OVERFLOW)[0])
    if any(BATCH in case.tags for case in cases):
        found.append("no-batch")
        if problem.no_batch is not None:
            found.append(problem.no_batch[0])
    if problem.array_only:
        found.append("returned-list")
    found += [f"no-{name}-parameter" for name in problem.optional]
    if problem.forbidden:
        found.append("used-attn-lib")
    found += problem.gives
    return list(dict.fromkeys(i for i in found if i not in EVERY_FUNCTION_CHECKER))


def judge(fn, problem: FunctionProblem) -> Feedback:
    """Judge the learner's ``fn`` on ``problem``; never raises for anything the learner wrote. The verdict is also
    handed to the learner's record (attn_lib._record: the problem reached, or solved)."""
    feedback = _verdict(fn, problem)
    record_verdict(feedback, checker=problem.checker)
    return feedback


def _verdict(fn, problem: FunctionProblem) -> Feedback:
    for step in BEFORE_RUNNING:
        feedback = step(fn, problem)
        if feedback is not None:
            return feedback
    cases = problem.cases()
    with Runner(fn, problem) as runner:
        runner.cases = len(cases)
        try:
            attempts = [runner.attempt(case) for case in cases]
            attempts = [a for a in attempts if a.judged]
            feedback, step = first_verdict(attempts, runner, JUDGING_STEPS)
            note = coarse_note(attempts, problem.what)
            if step in WRONG_ANSWER_STEPS and note and not runner.named_dtype:  # a second cause, named once
                feedback = fail(feedback.mistake, feedback.reason + note, feedback.hint)
        except FinalVerdict as verdict:
            feedback = verdict.feedback
    return runner.with_note(feedback)
