"""A prediction problem as data: its numbers, a statement written from them, and a judge that computes the answer.

A :class:`Prediction` is one problem of a notebook whose answer is a number, a shape or a choice. It holds

- ``first``: the numbers the notebook's prose states (variant 0, what every learner sees first);
- ``draw``: how to draw other numbers from a seeded ``random.Random`` (None for a problem with one meaningful
  instance, with ``why_one`` saying why);
- ``statement``: the problem's text as a template of those numbers, printed for a variant;
- ``judge(answer, p)``: the verdict on ``answer`` for the numbers ``p`` (attribute access), built on check_number,
  check_choice or a checker of its own. The expected answer is computed there, from ``p``: it is written in no
  notebook cell.

Variant ``seed`` of a problem is drawn from ``random.Random(f"{id}/{seed}")``: Python's Mersenne Twister seeded with
a string, the same numbers in CPython and in the browser edition's Pyodide. Seed 0 is ``first``. A draw whose named
mistakes would coincide with the answer (check_number refuses such a table) is drawn again from the same stream, so
a seed always gives the same numbers.
"""

from __future__ import annotations

import ast
import math
import numbers
import operator
import random
import re
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Callable

from ._answers import ANSWERS, CALLS, DISTINCT_MISTAKES
from ._feedback import Feedback, failure

ID = re.compile(r"^(\d\d)-P(\d+)$")  # "02-P3": notebook 02, problem 3
KINDS = ("number", "choice", "shapes")
DRAW_TRIES = 100  # draws of one seed before giving up: a problem whose draws keep colliding is an author's error


@dataclass(frozen=True)
class Prediction:
    """One prediction problem: see the module's docstring.

    Parameters
    ----------
    id : str
        ``"NN-PK"``: notebook NN, problem K (as its heading numbers it).
    title : str
        The heading's words after "Problem K:".
    first : dict
        The notebook's numbers (variant 0).
    statement : str
        The problem as a template of ``first``'s names (``str.format``), complete in itself.
    judge : callable
        ``judge(answer, p) -> Feedback``.
    draw : callable or None
        ``draw(rng) -> dict`` with the same keys as ``first``; None when the problem has one meaningful instance.
    why_one : str
        Why a problem without ``draw`` has no variants.
    kind : str
        What the answer is: "number", "choice" or "shapes" (how a typed answer is read).
    same_answer : str
        For a problem whose answer is the same in every variant by its idea (a ratio that is always 1), why: its
        draws are then not refused for having the notebook's answer. Otherwise a draw whose answer is the
        notebook's own is drawn again, since copying the notebook would pass it.
    asks : tuple of str
        For "shapes": the names whose shapes are asked.
    """

    id: str
    title: str
    first: dict
    statement: str
    judge: Callable[[Any, SimpleNamespace], Feedback]
    draw: Callable[[random.Random], dict] | None = None
    why_one: str = ""
    kind: str = "number"
    asks: tuple = ()
    same_answer: str = ""

    def __post_init__(self):
        if not ID.match(self.id):
            raise ValueError(f"id must look like '02-P3' (notebook, problem); got {self.id!r}")
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}; got {self.kind!r}")
        if self.draw is None and not self.why_one:
            raise ValueError(f"{self.id}: a problem without draw must say why it has one instance (why_one)")
        if self.kind == "shapes" and not self.asks:
            raise ValueError(f"{self.id}: a shapes problem names the shapes it asks for (asks)")

    @property
    def has_variants(self) -> bool:
        return self.draw is not None

    def numbers(self, seed: int = 0) -> dict:
        """The numbers of variant ``seed`` (0: the notebook's)."""
        seed = checked_seed(seed)
        if seed == 0:
            return dict(self.first)
        if self.draw is None:
            raise ValueError(f"{self.id} has one instance only ({self.why_one}); ask for seed 0 or no seed")
        rng = random.Random(f"{self.id}/{seed}")
        notebooks_answer = None  # computed once, at the first draw that gets this far
        for _ in range(DRAW_TRIES):
            params = self.draw(rng)
            if set(params) != set(self.first):
                raise ValueError(f"{self.id}: draw gave the names {sorted(params)}, first has {sorted(self.first)}")
            strict, quiet = DISTINCT_MISTAKES.set(True), CALLS.set(None)  # a trial draw is no call to record
            try:  # check_number refuses a named mistake that equals the answer or another named mistake
                self.judge(None, SimpleNamespace(**params))
            except ValueError:
                continue
            finally:
                DISTINCT_MISTAKES.reset(strict)
                CALLS.reset(quiet)
            if self.kind != "choice" and not self.same_answer:
                notebooks_answer = notebooks_answer or self.expected(self.first)
                if same_answer(self.expected(params), notebooks_answer):
                    continue  # the notebook's own answer would pass: a learner could copy it from the notebook
            return params
        raise RuntimeError(f"{self.id}: none of {DRAW_TRIES} draws of seed {seed} kept its named mistakes apart from "
                           "the answer and from each other, with an answer other than the notebook's")

    def variant(self, seed: int = 0) -> "Variant":
        return Variant(self, checked_seed(seed), self.numbers(seed))

    def expected(self, params: dict) -> tuple:
        """(the answer the judge expects for ``params``, how closely it judges a number in words, or None)."""
        token, quiet = ANSWERS.set([]), CALLS.set(None)
        try:
            self.judge(None, SimpleNamespace(**params))
            noted = ANSWERS.get()
        finally:
            ANSWERS.reset(token)
            CALLS.reset(quiet)
        return noted[-1] if noted else (None, None)


@dataclass(frozen=True)
class Variant:
    """One instance of a :class:`Prediction`: its seed, its numbers, its statement and its check. A notebook shows it
    with its own answer box: a labelled text field per answer, a Check button (Enter works too) and the verdict under
    them; without a widget front end, the statement, answered with ``.check(answer)``."""

    problem: Prediction
    seed: int
    params: dict = field(repr=False)
    practice: bool = field(default=False, repr=False)  # another(...)'s: each answer is recorded as a review

    @property
    def text(self) -> str:
        """The statement with this variant's numbers (markdown), and how the answer is given and judged."""
        text = self.problem.statement.format(**{name: show(value) for name, value in self.params.items()})
        # Thousands inside TeX are written 12{,}000: TeX sets a bare comma as punctuation, "12, 000".
        text = re.sub(r"\$[^$]+\$", lambda tex: re.sub(r"(?<=\d),(?=\d{3})", "{,}", tex.group(0)), text)
        if self.problem.kind == "shapes":
            names = ", ".join(f'"{name}": (rows, columns)' for name in self.problem.asks)
            text += f"\n\nAnswer with a dict of tuples: `{{{names}}}`."
        elif self.problem.kind == "number" and self.precision:
            text += f"\n\nYour number is judged {self.precision}."
        return text

    @property
    def precision(self) -> str | None:
        """How closely this variant's number is judged, in words ("exactly", "to within 1 %"), or None."""
        return self.problem.expected(self.params)[1]

    @property
    def label(self) -> str:
        which = "the notebook's numbers" if self.seed == 0 else f"variant {self.seed}"
        return f"Problem {self.problem.id} ({which})"

    def check(self, answer) -> Feedback:
        """The verdict on ``answer`` for this variant's numbers. A wrong answer the judge names no mistake for, and
        that is right for the notebook's own numbers, is named as that (``notebooks-answer``): a copy from the
        notebook, or the notebook's working redone with its numbers; one that is the right number in the wrong form
        is named by its form (:meth:`_slip_of_form`). A variant of ``another(...)`` records each answer in the
        learner's record (practice)."""
        feedback = self.problem.judge(answer, SimpleNamespace(**self.params))
        if self.seed and feedback.mistake in UNNAMED:  # the notebook's own numbers judge as its cells always did
            if self._right_for(answer, self.problem.first):
                feedback = failure("notebooks-answer", hint=feedback.hint)
            else:
                slip = self._slip_of_form(answer)  # (a Feedback is false when its answer is wrong: no `or` here)
                feedback = feedback if slip is None else slip
        if self.practice:
            from ._record_verdict import record_practice

            record_practice(feedback, self.problem.id, self.seed)
        return feedback

    def _right_for(self, answer, params: dict) -> bool:
        """Whether the judge passes ``answer`` for ``params`` (a second judgement, not a call to record)."""
        quiet = CALLS.set(None)
        try:
            return self.problem.judge(answer, SimpleNamespace(**params)).passed
        finally:
            CALLS.reset(quiet)

    def _slip_of_form(self, answer) -> Feedback | None:
        """A wrong number that is the right one written in the wrong form, named (the same slip in every problem):
        a share written as a percentage, how many more for how many times, a number truncated where it is rounded,
        a number rounded to fewer decimals than the precision it is judged to (which the variant's text states; a
        rounding within that precision passes before this is asked). None for anything else."""
        if self.problem.kind != "number" or isinstance(answer, bool) or not isinstance(answer, (int, float)):
            return None
        value = float(answer)
        if not math.isfinite(value) or value == 0:
            return None
        expected = self.problem.expected(self.params)[0]
        if isinstance(expected, (int, float)) and 0 < expected <= 1 and self._right_for(value / 100, self.params):
            return failure("percent-for-share")
        asks_factor = re.search(r"\b(factor|how many times|times as)\b", self.problem.statement)
        if asks_factor and self._right_for(value + 1, self.params):
            return failure("more-for-times")
        text = repr(value)
        if isinstance(expected, float) and "." in text and "e" not in text:
            places = len(text.split(".")[1])
            cut = math.trunc(expected * 10 ** places) / 10 ** places
            if value == cut and round(expected, places) != cut:
                return failure("truncated-not-rounded", places=f"{places} decimal{'s' * (places != 1)}")
            if value == round(expected, places) and not value.is_integer() and self.precision:
                return failure("rounded-too-coarsely", places=f"{places} decimal{'s' * (places != 1)}",
                               precision=self.precision)
        return None

    def check_text(self, text: str) -> Feedback:
        """The verdict on an answer typed as text (an answer box): read as the problem's kind of answer."""
        return self.check(read_answer(text, self.problem.kind))

    def _repr_markdown_(self) -> str:
        again = f'`another("{self.problem.id}", seed={self.seed})` shows these numbers again.'
        return f"**{self.label}**\n\n{self.text}\n\n{again}"

    def __repr__(self) -> str:
        return self._repr_markdown_().replace("**", "").replace("`", "") + "\nAnswer with .check(your_answer)."

    def widget(self):
        """The ipywidgets answer box (ipywidgets imported only here). Its ``verdict`` is the last verdict shown."""
        import ipywidgets as widgets
        from IPython.display import Markdown, display

        output = widgets.Output()
        names = self.problem.asks if self.problem.kind == "shapes" else ("answer",)
        fields = [widgets.Text(description=("Your answer" if name == "answer" else f"shape of {name}"),
                               placeholder=_PLACEHOLDERS[self.problem.kind], continuous_update=False,
                               style={"description_width": "initial"}) for name in names]
        button = widgets.Button(description="Check", tooltip="Check this answer")

        def judge(_=None):
            if self.problem.kind == "shapes":
                feedback = self.check({name: read_answer(field.value, "shapes") for name, field in zip(names, fields)})
            else:
                feedback = self.check_text(fields[0].value)
            box.verdict = feedback
            output.clear_output()
            with output:
                display(feedback)

        button.on_click(judge)
        for field in fields:  # Enter (or leaving the field) sends the value: judged as a click would be
            field.observe(judge, names="value")
        statement = widgets.Output()
        with statement:
            display(Markdown(self._repr_markdown_()))
        box = widgets.VBox([statement, *fields, button, output])
        box.fields, box.output, box.verdict = fields, output, None
        return box

    def _ipython_display_(self):
        from IPython.display import Markdown, display

        try:
            box = self.widget()
        except ImportError:  # no ipywidgets: the statement alone, answered with .check()
            display(Markdown(self._repr_markdown_() + "\n\nAnswer with `.check(your_answer)`."))
            return
        display(box)


# The ids check(...) gives beyond its judges' (the teacher's table is generated from them): a variant answered with
# the notebook's own answer, and a right number in the wrong form (Variant._slip_of_form).
GIVES = {"check": ("notebooks-answer", "percent-for-share", "more-for-times", "truncated-not-rounded",
                   "rounded-too-coarsely")}

# The verdicts that name no mistake: the checker can only say how far off a number is, or which shape is wrong.
UNNAMED = ("wrong-number", "wrong-count", "wrong-variance", "wrong-shape")


_PLACEHOLDERS = {"number": "a number, e.g. 3.5 or 2 * 1000", "choice": "an option's letter", "shapes": "(rows, columns)"}


def same_answer(a: tuple, b: tuple) -> bool:
    """Whether two noted answers are the same (numbers to 1e-9 relative; anything else by equality)."""
    x, y = a[0], b[0]
    if isinstance(x, (int, float)) and isinstance(y, (int, float)) and not isinstance(x, bool):
        return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12)
    return x is not None and x == y


def checked_seed(seed) -> int:
    """``seed`` as an int: any whole number >= 0, numpy's integers too (a seed drawn with numpy)."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise TypeError(f"seed must be a whole number >= 0 (0 is the notebook's numbers); got {seed!r}")
    return int(seed)


def show(value) -> str:
    """A number as a statement prints it: whole numbers with separators, others to 4 significant digits."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if float(value).is_integer() and abs(value) >= 10_000:
        return f"{int(value):,}"
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.4g}"


# The largest power a typed number may raise to: 2^1100 is past every float, so the checker can say so; a larger one
# (9 ** 9 ** 9) would keep the kernel busy for nothing.
MAX_POWER = 1100

# What a typed number may be: digits, a decimal point, an exponent, _ separators, + - * / ** ( ): "4 * 10 * 1000".
_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
              ast.Pow: operator.pow, ast.FloorDiv: operator.floordiv}
_SIGNS = {ast.UAdd: operator.pos, ast.USub: operator.neg}


def _arithmetic(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _arithmetic(node.left), _arithmetic(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > MAX_POWER:
            raise ValueError(f"a power above {MAX_POWER}")
        return _OPERATORS[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _SIGNS:
        return _SIGNS[type(node.op)](_arithmetic(node.operand))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("sqrt", "exp", "log"):
        if len(node.args) == 1 and not node.keywords:
            return getattr(math, node.func.id)(_arithmetic(node.args[0]))
    raise ValueError("not arithmetic")


# A number as prose or a calculator writes it, made Python's: thousands grouped by commas or spaces ("262,144",
# "8 000 000"; the first group starts with 1-9, every other has three digits, so "1,5" and "0,125" are not read as
# thousands), a Unicode minus, x and ^ for times and power, and a percentage read as the share it is ("25 %" is 0.25).
_GROUPED = re.compile(r"(?<![\d.])[1-9]\d{0,2}(?P<sep>[,\u00a0\u202f\u2009 ])\d{3}(?:(?P=sep)\d{3})*(?![\d,])")
_SIGNS_TYPED = {"\u2212": "-", "\u2013": "-", "\u00d7": "*", "\u22c5": "*", "\u00b7": "*", "\u00f7": "/", "^": "**"}


def _python_number_text(text: str) -> str:
    for typed, python in _SIGNS_TYPED.items():
        text = text.replace(typed, python)
    return _GROUPED.sub(lambda m: re.sub(r"[^\d]", "", m.group(0)), text)


def read_answer(text, kind: str):
    """An answer typed in a box, read as a number, a choice or shapes; what cannot be read is passed on as text,
    so that the checker says what it expected. A number may be written as the course prints it ("262,144"), with
    a Unicode minus, "2^10", arithmetic ("4 * 10**6", "1/8", "sqrt(64)") or a percentage ("25 %", read as 0.25)."""
    if not isinstance(text, str):
        return text
    text = text.strip()
    if not text:
        return None
    if kind == "choice":
        return text.strip("\"'")
    if kind == "number":
        typed = _python_number_text(text)
        percent = typed.endswith("%")
        try:
            value = _arithmetic(ast.parse(typed[:-1] if percent else typed, mode="eval").body)
        except (SyntaxError, ValueError, ZeroDivisionError, OverflowError):
            return text
        return value / 100 if percent else value
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        return text
    try:
        return ast.literal_eval(tree)
    except ValueError:
        return text
