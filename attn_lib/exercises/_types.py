"""The types every judging step shares: a function problem, its cases and known mistakes, what one call of the
learner's function raised or returned, and one :class:`Attempt` per case (that outcome with how it is judged).

This module is the bottom of the judge: it imports nothing of the package but :class:`Feedback` and the
catalogue's :func:`entry`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ._catalogue import entry
from ._feedback import Feedback

# The tags a Case may carry: each switches a rule of the judge on for that case. They are constants, and an
# unknown tag is refused when the Case is made, so a misspelt tag cannot switch a rule off.
BATCH = "batch"  # leading batch axes: an answer right on every 2-D case and wrong here is no-batch
BROADCAST = "broadcast"  # a mask that only broadcasts to the scores' shape (a batch-like failure)
LARGE = "large"  # scores near 1000: an answer right elsewhere with NaN/inf here overflows
ONE_CHUNK = "one-chunk"  # check_chunked_attention: a chunk that holds every key (no combination needed)
TAGS = frozenset({BATCH, BROADCAST, LARGE, ONE_CHUNK})


@dataclass
class Case:
    """One set of inputs a checker gives the learner's function, with the right answer.

    ``inputs`` maps each parameter name to its value (arrays are copied before each call); ``label`` completes
    "when called on ..."; ``scale`` is the size of the numbers the computation goes through (default: the largest
    finite input); ``averaged`` is |V|.max() for an output that averages rows of V (see ``_compare.tolerance``);
    ``zeros`` marks the entries the problem promises are exactly 0 (a boolean array that broadcasts to
    ``expected``, e.g. the blocked keys' weights): there the answer must be 0.0 itself, not within a tolerance.
    """

    label: str
    inputs: dict
    expected: np.ndarray
    tags: frozenset = frozenset()
    scale: float | None = None
    averaged: float | None = None
    zeros: np.ndarray | None = None

    def __post_init__(self):
        self.tags = frozenset(self.tags)
        unknown = self.tags - TAGS
        if unknown:
            raise ValueError(f"tags: expected some of {sorted(TAGS)}, got {sorted(unknown)} (case {self.label!r})")
        self.expected = np.asarray(self.expected)
        if self.zeros is not None:
            self.zeros = np.broadcast_to(np.asarray(self.zeros, dtype=bool), self.expected.shape)
        if self.scale is None:
            sizes = [np.abs(v[np.isfinite(v)]).max(initial=0.0) for v in self.inputs.values()
                     if isinstance(v, np.ndarray) and v.dtype.kind == "f"]
            self.scale = float(max(sizes, default=1.0))
        self.scale = max(1.0, float(self.scale))


class Mistake:
    """A known mistake: functions computing the mistaken answer (``variants``), and its id in the catalogue.

    ``Mistake(id, variants=..., **fields)``: the reason and hint are the catalogue's (``_catalogue.entry``), with
    ``fields`` filled into their templates; an id not in the catalogue is refused. ``strict_nonfinite``: the
    mistake's NaN/inf must be reproduced (a numerical mistake); ``same_sizes`` (the default): a raising variant
    matches only the same message with the same sizes (two mistakes failing in one operation on different sizes
    are told apart); False accepts the message with other numbers."""

    def __init__(self, id: str, variants: tuple = (), *, strict_nonfinite: bool = False, same_sizes: bool = True,
                 **fields):
        if isinstance(variants, str) or not all(callable(v) for v in variants):
            raise TypeError(f"Mistake {id!r}: variants must be functions; its reason and hint are the catalogue's "
                            "(attn_lib/exercises/_data/_mistakes.py)")
        self.id = id
        self.variants = tuple(variants)
        self.strict_nonfinite = strict_nonfinite
        self.same_sizes = same_sizes
        self.fields = fields
        self.reason, self.hint = entry(id, **fields)

    def __repr__(self) -> str:
        return f"Mistake({self.id!r}, {len(self.variants)} variants)"


@dataclass
class FunctionProblem:
    """Everything the judge needs to know about one function-writing problem (see ``_judge``'s docstring).

    The hooks, each optional: ``diagnose(attempts, runner) -> Feedback | None`` (the problem's own structural
    reasons for a wrong answer), ``after_pass(attempts, runner) -> Feedback | str | None`` (run once every case is
    right: a failing Feedback, a note to append, or None), ``batch_mistake(attempt, runner) -> Feedback | None``
    (names the habit behind a no-batch answer; ``attempt`` is the first batch case it gets wrong).
    """

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
    overflow: tuple | None = None  # (id, {field: value}): a catalogue id, its fields but label; None: naive-overflow
    diagnose: Callable | None = None
    after_pass: Callable | None = None
    after_pass_inputs: str = ""  # when after_pass runs the function on larger inputs: what they are (own time limit)
    batch_mistake: Callable | None = None
    hint: str = "Call your function by hand on a small input and print each intermediate array."
    result_shape: str = ""  # the answer's shape, e.g. "(d_model, d_k)", for the hint of an exception naming shapes
    no_batch: tuple | None = None  # (id, {field: value}) for an answer right on no batch at all (default: no-batch)
    convert: str = "float"
    array_only: bool = False  # the problem says "return an array": a list returned is named (returned-list)
    time_limit: float | None = None  # seconds; None: _running.TIME_LIMIT, read when the check runs
    # The catalogue ids its hooks (diagnose, after_pass, batch_mistake) and the shared steps they call can give,
    # beyond its table and the judge's own (the teacher's table is generated from them; a test holds them true).
    gives: tuple = ()

    @property
    def signature(self) -> str:
        """The parameters the learner's function is defined with, e.g. "scores, mask=None"."""
        return ", ".join([*self.params, *(f"{o}=None" for o in self.optional)])


@dataclass
class Raised:
    """The learner's function raised ``exc``; ``line`` is the learner's line where it happened."""

    exc: BaseException
    line: str = ""

    def describe(self) -> str:
        message = str(self.exc).strip()
        if len(message) > 300:
            message = message[:297] + "..."
        # attn_lib's own input errors (InputValueError, ...) read as the builtin they are, as IPython shows them.
        kind = next((k for k in type(self.exc).__mro__ if k.__module__ == "builtins"), type(self.exc))
        if not type(self.exc).__module__.startswith("attn_lib"):
            kind = type(self.exc)
        text = kind.__name__ + (f": {message}" if message else "")
        return text + (f" ({self.line})" if self.line else "")


class Bad:
    """A returned value that is not an array of the expected kind: its mistake id, and its reason and hint from
    the catalogue with ``fields`` filled in."""

    def __init__(self, mistake: str, fields: dict):
        self.mistake = mistake
        self.text, self.hint = entry(mistake, **fields)


@dataclass(eq=False)  # compared by identity: a step asks whether an attempt is among others
class Attempt:
    """The learner's function on one case: what came back, and how it is judged.

    ``result`` is a float array (or a bool/int one for ``convert="array"``), a :class:`Raised`, a :class:`Bad`, or
    None when the function could not be called with the case's optional argument. ``dtype`` is the answer's
    floating-point dtype (float64 for anything else); ``tol`` the (rtol, atol) of the inputs' precision;
    ``right`` whether the result matches ``case.expected`` within it; ``peak`` the bytes tracemalloc saw the
    learner's call take beyond what was traced before it (0 when not tracing)."""

    case: Case
    result: object
    dtype: np.dtype
    tol: tuple
    right: bool = False
    peak: int = 0

    @property
    def judged(self) -> bool:
        return self.result is not None

    @property
    def array(self) -> bool:
        return isinstance(self.result, np.ndarray)


class FinalVerdict(Exception):
    """Unwinds a whole check with a final Feedback (not answered, too slow, exit, forbidden call)."""

    def __init__(self, feedback: Feedback):
        super().__init__(feedback.reason)
        self.feedback = feedback


def copy_input(value):
    """A fresh copy of an array input (anything else as it is), so a call cannot change the case."""
    return value.copy() if isinstance(value, np.ndarray) else value
