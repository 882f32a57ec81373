"""Notebook 04's prediction problems (the softmax's axis, shifts and stretches, float16, temperature), as data: see
``_prediction``."""

from __future__ import annotations

import math

import numpy as np

from .._answers import added_apart, check_choice, check_number
from .._prediction import Prediction, show


def _columns(answer, p):
    return check_number(answer, p.m, rel=0.01, mistakes=added_apart(p.m, [
        (p.n, "rows-sum",
         "That is what a right softmax gives, each query's row summing to one. axis=0 normalises down the "
         "columns instead: count what then sums to one."),
        (1, "whole-array",
         "That would be a softmax over the whole array. axis=0 normalises each column on its own."),
        (p.n * p.m, "every-entry",
         "The entries are weights between 0 and 1, not ones: each column's weights share one unit."),
    ], [
        (p.n + p.m, "rows-and-columns",
         "That counts a unit for every row and another for every column, as if both summed to one. axis=0 "
         "normalises along one direction only, and all the weights together hold each of its units once."),
        (p.m / p.n, "per-row",
         f"That is a share per row, spread over the {p.n} queries; the question asks what all {p.entries} weights "
         "add up to together, every row's at once."),
    ], rel=0.01),
        explain=f"{p.m}: with axis=0 each of the {p.m} columns (one per key) sums to one, and the {p.n} queries' "
                "rows sum to whatever is left.",
        hint="axis=0 runs down the columns: how many columns are there, and what does each sum to?")


def _float16(answer, p):
    """The threshold ln(65504), and what float16 itself prints near it (computed here in float16, not copied)."""
    largest = float(np.finfo(np.float16).max)
    threshold = math.log(largest)
    two_decimals = round(threshold, 2)
    with np.errstate(over="ignore"):
        exp_11 = float(np.exp(np.float16(11)))
        exp_12_16 = float(np.exp(np.float16(12)))
        stored = np.float16(two_decimals)
        exp_stored = float(np.exp(stored))
    return check_number(answer, threshold, rel=0, abs_tol=0.01, mistakes=[
        (11, "whole-number",
         f"That is a whole number: exp of it still fits in float16 (float16 itself prints {exp_11:.0f} for it), and "
         "so does exp of slightly larger scores. Give the threshold to two decimals."),
        (12, "rounded-up",
         f"exp of that already overflows float16 ({math.exp(12):.0f} > {largest:.0f}; float16 itself prints "
         f"{exp_12_16} for it): the threshold lies below it. Give it to two decimals."),
        (11.1, "one-decimal",
         "That is rounded to one decimal; the problem asks for two, and the checker holds it to them."),
        (largest, "largest-not-log",
         f"{largest:.0f} is the largest float16 itself; exp reaches it at a much smaller score."),
        (math.log(float(np.finfo(np.float32).max)), "float32-threshold",
         "That is float32's threshold, for its largest number 3.4e38; float16 stops at 65504."),
        (math.log(float(np.finfo(np.float64).max)), "float64-threshold",
         "That is float64's threshold, for its largest number 1.8e308; float16 stops at 65504."),
        (math.log2(largest), "log2",
         "That is log2(65504): a logarithm in base 2. exp is base e: use the natural logarithm."),
        (math.log10(largest), "log10",
         "That is log10(65504): a logarithm in base 10. exp is base e: use the natural logarithm."),
    ], explain=f"About {two_decimals} = ln({largest:.0f}): exp(11) still fits in float16 (it prints "
               f"{exp_11:.0f}), exp(12) does not. The threshold is a real number that float16 cannot hold: "
               f"np.float16({two_decimals}) is {float(stored)}, just above it, and its exp overflows (prints "
               f"{exp_stored}). Unscaled scores of a d_k = 64 head have a standard deviation of 8, so they pass 11 "
               "often.",
        hint="exp(x) exceeds the largest number L when x exceeds ln(L), the natural logarithm.")


# How many times wider a stretch makes the gaps between a row's scores.
_FOLD = {2: "twofold", 4: "fourfold", 5: "fivefold", 10: "tenfold"}


def _shift_and_stretch(rng):
    """04-P3: a row A of three increasing whole scores, A plus a constant and A times a factor, in either order."""
    first = rng.randint(1, 4)
    a = [first, first + rng.choice([1, 2])]
    a.append(a[1] + rng.choice([1, 2]))
    shift, factor = rng.choice([20, 50, 100, 200, 1000]), rng.choice(sorted(_FOLD))
    shifted = rng.choice(["B", "C"])
    rows = {shifted: [s + shift for s in a], ("C" if shifted == "B" else "B"): [s * factor for s in a]}
    return dict(A=_listed(a), B=_listed(rows["B"]), C=_listed(rows["C"]))


def _listed(row) -> str:
    return ", ".join(str(s) for s in row)


def _rows(p) -> dict:
    return {name: [int(s) for s in getattr(p, name).split(",")] for name in "ABC"}


def _shifted_or_stretched(answer, p):
    rows = _rows(p)
    a = rows["A"]
    shifted = "B" if len({b - x for b, x in zip(rows["B"], a)}) == 1 else "C"  # the row that is A plus a constant
    stretched = "C" if shifted == "B" else "B"
    shift, factor = rows[shifted][0] - a[0], rows[stretched][0] // a[0]
    right, other = ("a", "b") if shifted == "B" else ("b", "a")  # "a": A and B, "b": A and C
    fold = _FOLD[factor]
    reasons = {
        right: f"{shifted} is A plus {shift} in every entry, and a constant added to a row cancels: exp(s + c) = "
               f"exp(c) exp(s), in every term and in the sum. {stretched} is A times {factor}, which widens the gaps "
               f"between the scores {fold}, so its weights are sharper.",
        other: f"{stretched} multiplies every score by {factor}: the gaps between the scores grow {fold}, and the "
               f"weights depend on the gaps, so {stretched}'s weights differ from A's.",
        "c": f"{stretched} = {factor} A widens the gaps between the scores {fold} (a temperature of "
             f"{show(1 / factor)}), so its largest weight takes more than A's: stretching a row is not shifting it.",
        "d": "Softmax depends only on the differences between a row's scores, not on the scores themselves: compare "
             "the differences within each row.",
    }
    return check_choice(answer, right, {label: reasons[label] for label in "abcd"},
                        hint="Write each row as A plus a constant, or A times a constant. Which of the two cancels in "
                             "exp(s) / sum(exp(s))?")


def _softmax_max(row, t=1.0) -> float:
    e = [math.exp((s - max(row)) / t) for s in row]
    return max(e) / sum(e)


# How a temperature below 1 changes the gaps between the scores (dividing by T).
_GAPS = {0.5: ("halves the gaps", "doubles the gaps between the scores", "twice"),
         0.25: ("divides the gaps by 4", "multiplies the gaps between the scores by 4", "four times")}


def _temperature(answer, p):
    row, t = (p.s0, p.s1, p.s2), p.T
    shrink, widen, times = _GAPS[t]
    right = _softmax_max(row, t)
    at_one = _softmax_max(row)
    shown = f"[{', '.join(show(s) for s in row)}]"
    scaled = f"[{', '.join(show(s / t) for s in row)}]"
    e = [math.exp((s - max(row)) / t) for s in row]
    middle = e[1] / sum(e)  # the weight of the middle score (the scores increase)
    rounded = [(round(right, places), "rounded-too-coarsely",
                f"That is the weight rounded to {places} decimal{'s' * (places != 1)}: too coarse for this "
                "question, whose number is judged to within 1 % of the weight. Keep more digits.")
               for places in (1, 2)]
    return check_number(answer, right, rel=0.01, mistakes=added_apart(right, [
        (_softmax_max([s * t for s in row]), "multiplied-by-temperature",
         f"That is the softmax of {shown} x {show(t)}: multiplying by T = {show(t)} {shrink} and flattens the "
         f"weights. A temperature divides the scores: T = {show(t)} widens the gaps and sharpens the row."),
        (at_one, "temperature-ignored",
         f"That is the largest weight at T = 1. Dividing by T = {show(t)} {widen}."),
        (at_one / t, "temperature-after-softmax",
         "That divides the weight by T after the softmax, which gives a 'weight' above 1. The temperature "
         "divides the scores before the softmax."),
        (1.0, "one-hot",
         f"A temperature below 1 sharpens the row, but only T -> 0 makes it one-hot: at T = {show(t)} the smaller "
         "weights are still far from 0."),
    ], [
        (at_one ** (1 / t), "power-after-softmax",
         f"That raises the largest T = 1 weight to the power 1/T = {show(1 / t)} after the softmax. The powers "
         "keep the ratios a temperature gives, but the row no longer sums to one: divide the scores by T before "
         "the softmax, so that its normalisation comes last."),
        (max(row) / sum(row), "no-exponential",
         f"That divides the largest score by the row's sum, {show(sum(row))}: a share of the scores themselves. "
         "The softmax takes exp of each score divided by T first, so the weights follow the gaps between the "
         "scores, not their sizes."),
        (2, "index-not-weight",
         "That is the position of the largest score (counted from 0, as np.argmax gives it); the question asks "
         "for its weight, a share between 0 and 1."),
        (middle, "middle-weight",
         f"That is the weight of the middle score, {show(row[1])}; the question asks for the largest weight, the "
         f"one the score {show(max(row))} gets."),
        *rounded,
    ], rel=0.01),
        explain=f"{right:.3f}: the row becomes {scaled}, whose gaps are {times} those of {shown}, so the largest "
                f"weight grows from {at_one:.3f} to {right:.3f}.",
        hint="Divide the scores by T first, then take the softmax.")


# 04-P6's draws: three different scores from 0 to 4 in steps of 0.5, and a temperature below 1, where the largest
# weight stays well below 1 (the smaller weights far from 0), a weight divided by T after the softmax passes 1, and
# the answer is not the notebook's (a shifted [1, 2, 3] at T = 0.5 would have the same weights).
_HALVES = [k / 2 if k % 2 else k // 2 for k in range(9)]
_ROWS = [((a, b, c), t) for a in _HALVES for b in _HALVES for c in _HALVES if a < b < c for t in _GAPS
         if _softmax_max((a, b, c), t) <= 0.95 and _softmax_max((a, b, c)) / t > 1.05
         and abs(_softmax_max((a, b, c), t) - _softmax_max((1, 2, 3), 0.5)) > 0.02]


# 04-P1's draws: n != m (else the rows' sum would be the answer), and the answer m not 3 or 10, the edges of the bands
# a far-off answer's reason prints ("between 1.5 and 3 times too large").
_SIZES = [(n, m) for n in range(2, 9) for m in (2, 4, 5, 6, 7, 8, 9) if n != m]


PROBLEMS = [
    Prediction(
        "04-P1", "normalised down the columns",
        first=dict(n=3, m=5, entries=15),
        draw=lambda rng: _n_m(rng.choice(_SIZES)),
        statement="A softmax written with `axis=0` is applied to scores of shape ({n}, {m}): $n = {n}$ queries, "
                  "$m = {m}$ keys. What do all {entries} of its \"weights\" add up to?",
        judge=_columns,
    ),
    Prediction(
        "04-P2", "a batch of sentences",
        first=dict(),
        why_one="The right option is the same for every shape of the stacked scores: other sizes would change "
                "nothing a learner decides.",
        kind="choice",
        statement="The scores of two sentences are stacked: shape `(batch, n, m) = (2, 3, 5)`. Along which axis "
                  "must the softmax normalise? Answer with one letter:\n\n"
                  "- `\"a\"`: `axis=-1`\n"
                  "- `\"b\"`: `axis=1`\n"
                  "- `\"c\"`: `axis=0`\n"
                  "- `\"d\"`: `axis=None` (the whole array)",
        judge=lambda answer, p: check_choice(answer, "a", {
            "a": "Each query's weights run over the keys, and the keys are the last axis of (batch, n, m): axis=-1 "
                 "stays right whatever batch axes are added in front.",
            "b": "Axis 1 of (batch, n, m) is n, the queries: that normalises down the columns of each sentence, so "
                 "each key's weights over the queries sum to one, not each query's weights over the keys.",
            "c": "Axis 0 is the batch: that shares one unit of weight between the same (query, key) pair in two "
                 "different sentences, which never attend to each other.",
            "d": "Over the whole array, all 2 x 3 x 5 weights would share one unit: each query must get its own "
                 "unit of weight to share among its keys.",
        }, hint="Which axis of (batch, n, m) counts the keys?"),
    ),
    Prediction(
        "04-P3", "shifted or stretched scores",
        first=dict(A="1, 2, 3", B="101, 102, 103", C="10, 20, 30"),
        draw=lambda rng: _shift_and_stretch(rng),
        kind="choice",
        statement="Three rows of scores: `A = [{A}]`, `B = [{B}]` and `C = [{C}]`. Which of them have the same "
                  "weights? Answer with one letter:\n\n"
                  "- `\"a\"`: A and B\n"
                  "- `\"b\"`: A and C\n"
                  "- `\"c\"`: all three\n"
                  "- `\"d\"`: none: every row's scores differ",
        judge=lambda answer, p: _shifted_or_stretched(answer, p),
    ),
    Prediction(
        "04-P4", "float16",
        first=dict(),
        why_one="The problem is float16's own limit: float16 has one largest number, and another format would be "
                "another problem.",
        statement="Half precision, float16, is common on accelerators. Its largest number is "
                  "`np.finfo(np.float16).max` (65504). What is the largest score $x$ for which $\\exp(x)$ is "
                  "still finite in float16? Give it to two decimals: the checker accepts answers within 0.01 of "
                  "the threshold (either way of rounding it), and nothing coarser.",
        judge=_float16,
    ),
    Prediction(
        "04-P6", "a temperature of 0.5",
        first=dict(s0=1, s1=2, s2=3, T=0.5),
        draw=lambda rng: _row(rng.choice(_ROWS)),
        statement="What is the largest weight of the row of scores `[{s0}, {s1}, {s2}]` at temperature "
                  "$T = {T}$?",
        judge=_temperature,
    ),
]


def _n_m(sizes):
    n, m = sizes
    return dict(n=n, m=m, entries=n * m)


def _row(drawn):
    (s0, s1, s2), t = drawn
    return dict(s0=s0, s1=s1, s2=s2, T=t)
