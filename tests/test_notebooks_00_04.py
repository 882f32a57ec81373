"""Notebooks 00-04 (issue 17): no answer in a reason, a hint or the contents page (a reason that holds twice, half
or a unit of the answer too), 03's gradient claim printed beside the prose that states it, and 01's cross-attention
with projections of its own. The kinds of the problems are tests/test_problems.py's, the stored outputs
tests/test_stored_outputs.py's.

Read from the committed notebooks; no kernel is started. A checker cell is read by running its call with the
checkers replaced by recorders, so the right value and every reason are the ones the learner meets.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest

from attn_lib import attention_cost
from attn_lib.exercises._answers import CALLS
from attn_lib.exercises._problem_book import PREDICTIONS

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
sys.path.insert(0, str(ROOT / "tools"))
import problems  # noqa: E402  (tools/problems.py)

OWN = ["00-start-here", "01-shapes", "02-scores", "03-scaling", "04-softmax"]


def load(rel: str):
    return nbformat.read(NOTEBOOKS / rel, as_version=4)


def pairs():
    """(name, learner notebook, solutions notebook) for each of 00-04."""
    return [(name, load(f"{name}.ipynb"), load(f"solutions/{name}-solutions.ipynb")) for name in OWN]


# --- what a checker call holds, recorded -------------------------------------------------------------------------

PREDICTION_CALL = re.compile(r'\s*check\("(\d\d-P\d+)", answers?\)\s*')


def _recorded(problem_id: str, seed: int) -> dict:
    """The call a prediction's judge makes for one variant, as _record gives it: the checker, right value, texts."""
    token = CALLS.set([])
    try:
        PREDICTIONS[problem_id].variant(seed).check(None)
        calls = CALLS.get()
    finally:
        CALLS.reset(token)
    if not calls:
        return {"checker": "other"}
    name, args, kwargs = calls[-1]
    if name == "check_number":
        return dict(checker=name, expected=float(args[1]), wrong=[m[2:] for m in kwargs["mistakes"]],
                    hint=kwargs["hint"], given=PREDICTIONS[problem_id].variant(seed).text)
    if name == "check_count":
        quantity, _, n, m, d_k, d_v, heads, layers, d_model = args
        m = n if m is None else m
        expected = ((512 if d_model is None else d_model) * d_k if quantity == "projection_weights" else
                    getattr(attention_cost(n, m, d_k=d_k, d_v=d_v, heads=heads, layers=layers), quantity))
        return dict(checker=name, expected=float(expected), wrong=[m[2:] for m in kwargs["mistakes"]], hint="",
                    given=PREDICTIONS[problem_id].variant(seed).text)
    if name == "check_choice":
        return dict(checker=name, right=args[1], reasons=args[2], hint=kwargs["hint"])
    return {"checker": "other"}


def _record(source: str, seed: int = 0) -> dict:
    """Run a checker cell's call with recording stand-ins; returns the checker's name, right value and texts. A
    cell check("NN-PK", answer) is recorded through its judge, for variant ``seed``."""
    match = PREDICTION_CALL.fullmatch(source)
    if match:
        return _recorded(match.group(1), seed)
    seen = {}

    def check_number(answer, expected, *, mistakes=(), hint="", **_judging):  # rel, abs_tol, decimals, ...
        seen.update(checker="check_number", expected=float(expected), wrong=[m[2:] for m in mistakes], hint=hint)

    def check_count(quantity, answer, n, m=None, d_k=64, d_v=None, heads=1, layers=1, d_model=None, *,
                    mistakes=()):
        m = n if m is None else m
        if quantity == "projection_weights":
            expected = (512 if d_model is None else d_model) * d_k
        else:
            expected = getattr(attention_cost(n, m, d_k=d_k, d_v=d_v, heads=heads, layers=layers), quantity)
        seen.update(checker="check_count", expected=float(expected), wrong=[m[2:] for m in mistakes], hint="")

    def check_choice(answer, right, reasons, *, hint=""):
        seen.update(checker="check_choice", right=right, reasons=reasons, hint=hint)

    recorders = {"check_number": check_number, "check_count": check_count, "check_choice": check_choice}
    if re.match(r"\s*(check_\w+)\(", source).group(1) not in recorders:
        return {"checker": "other"}  # a function problem or check_shapes: its texts are the checker's own
    namespace = {"np": np, "answer": None, **recorders}
    exec(compile(source, "<checker cell>", "exec"), namespace)  # noqa: S102  (the notebook's own call)
    return seen


def _renderings(x: float) -> set[str]:
    """How a number can be written in prose: with separators, plainly, and rounded."""
    out = {f"{x:,.0f}", f"{x:.0f}"} if float(x).is_integer() else set()
    out |= {f"{x:g}", f"{x:.3g}", f"{x:.2f}", f"{x:.3f}", f"{x:.2g}"}
    return {r for r in out if r not in {"0", "0.00", "0.000"}}


def _numbers_in(text: str) -> set[str]:
    text = re.sub(r"Problem \d+", "", text)  # another problem's number answers nothing
    return set(re.findall(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?(?![\w])", text))


def number_problems(seeds=(0,)):
    for name, learner, _ in pairs():
        for p in problems.problems(learner, name):
            match = PREDICTION_CALL.fullmatch(p.checker.source)
            has_variants = bool(match) and PREDICTIONS[match.group(1)].has_variants
            for seed in seeds if has_variants else (0,):
                record = _record(p.checker.source, seed)
                if record["checker"] in ("check_number", "check_count"):
                    yield pytest.param(record, id=f"{name}:{p.heading.split(':')[0]}:variant-{seed}")


@pytest.mark.parametrize("record", list(number_problems(seeds=range(11))))
def test_no_wrong_answer_reason_or_hint_holds_the_answer_or_one_a_step_from_it(record):
    x = record["expected"]
    steps = [x, 2 * x, x / 2] + ([x / 1e3, x / 1e6, x / 1e9] if x >= 1e5 else [])
    # The numbers a variant's statement gives are no giveaway when a reason repeats them.
    forbidden = set().union(*(_renderings(v) for v in steps)) - _numbers_in(record.get("given", ""))
    texts = [t for mistake in record["wrong"] for t in mistake if t] + [record["hint"]]
    for text in texts:
        hits = _numbers_in(text) & forbidden
        assert not hits, f"{hits} (the answer {x:g}, or a step from it) in: {text!r}"


def test_the_recorder_catches_the_reasons_issue_17_found():
    before = '''check_number(answer, 6 * 8 * 1000 * 1000 * 4, rel=0, mistakes=[
        (2 * 6 * 8 * 1000 * 1000 * 4, "x", "384,000,000 is twice the answer."),
        (192, "megabytes", "192 is the answer in megabytes (10^6 bytes); the question asks for bytes."),
    ])'''
    record = _record(before)
    with pytest.raises(AssertionError, match="384,000,000"):
        test_no_wrong_answer_reason_or_hint_holds_the_answer_or_one_a_step_from_it(record)
    record = _record('check_number(answer, 0.25, mistakes=[(1, "x", "0.5 x 0.5 = 0.25: divide by 96.")])')
    with pytest.raises(AssertionError, match="0.25"):
        test_no_wrong_answer_reason_or_hint_holds_the_answer_or_one_a_step_from_it(record)


def test_the_contents_page_states_no_answer_of_notebooks_00_to_04():
    contents = "\n".join(c.source for c in load("contents.ipynb").cells)
    stated = _numbers_in(contents)
    for param in number_problems():
        record = param.values[0]
        if record["expected"] >= 100:  # small numbers (1, 4, 8) are everywhere and answer nothing alone
            assert not stated & _renderings(record["expected"]), (param.id, record["expected"])


def test_no_choice_reason_of_a_wrong_option_says_every_entry_is_the_right_option():
    # 03 Problem 6's wrong option "d" once ended "every entry is 0", the right option's matrix of zeros.
    for name, learner, _ in pairs():
        for p in problems.problems(learner, name):
            match = PREDICTION_CALL.fullmatch(p.checker.source)
            seeds = range(11) if match and PREDICTIONS[match.group(1)].has_variants else (0,)
            for record in [_record(p.checker.source, seed) for seed in seeds]:
                if record["checker"] != "check_choice":
                    continue
                for label, reason in record["reasons"].items():
                    if label != record["right"]:
                        assert "every entry is 0" not in reason, (name, p.heading, label)


# --- what the stored outputs print --------------------------------------------------------------------------------

def _stdout(cell) -> list[str]:
    return ["".join(o["text"]) for o in cell.get("outputs", []) if o.get("name") == "stdout"]


def test_03_states_the_jacobian_ratios_it_prints_with_the_number_of_keys_they_hold_for():
    # issue 25: the ratio at d_k = 512 depends on m as much as on d_k; the prose gives each figure with its m
    nb = load("03-scaling.ipynb")
    index = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and "def jacobian_size" in c.source)
    printed = "".join(_stdout(nb.cells[index]))
    prose = nb.cells[index + 1].source
    line = next(line for line in printed.splitlines() if line.startswith("d_k = 512, 10 keys"))
    median, low, high = re.search(r"is ([\d,]+) times smaller \(([\d,]+) to ([\d,]+) over 20 draws\)", line).groups()
    assert float(median.replace(",", "")) > 1
    for figure in (median, low, high):
        assert figure in prose, f"03: the prose does not state {figure} (m = 10)"
    by_m = dict(re.findall(r"m = +([\d]+): .*?; ([\d.,]+) times", printed))
    assert set(by_m) == {"10", "30", "100", "300", "1000"}, by_m
    ratios = [float(by_m[m].replace(",", "")) for m in ("10", "30", "100", "300", "1000")]
    assert ratios == sorted(ratios, reverse=True) and ratios[-1] > 1, ratios
    for m in ("30", "100", "300", "1000"):
        assert by_m[m] in prose, f"03: the prose does not state the ratio at m = {m} ({by_m[m]})"
    assert "at $Q$" not in prose and "pooled" not in prose  # the gradient at Q and W_q is 09's to measure
    assert "$d_k = 512$" in prose  # the prose writes its mathematics in TeX (issue 20)


def test_01_cross_attention_uses_projections_of_its_own():
    nb = load("01-shapes.ipynb")
    cell = next(c for c in nb.cells if c.cell_type == "code" and "Q_cross" in c.source)
    for name in ("W_q", "W_k", "W_v"):
        assert not re.search(rf"@\s*{name}\b", cell.source), f"01: cross-attention reuses self-attention's {name}"
        assert re.search(rf"@\s*{name}_cross\b", cell.source)
