"""Notebook 06's prediction problems (where the mask goes, and rows with nothing to attend to), as data: see
``_prediction``."""

from __future__ import annotations

import math

from .._answers import added_apart, check_choice, check_number
from .._prediction import Prediction

WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten",
         12: "twelve"}


def _word(k: int) -> str:
    return WORDS.get(k, str(k))


def _span(first: int, last: int) -> str:
    """Positions first..last in words: "0", "0 and 1", "0 to 3"."""
    if first == last:
        return str(first)
    return f"{first} and {last}" if last == first + 1 else f"{first} to {last}"


# Problem 2: softmax, zero the blocked weight, renormalise, on a row where the blocked score dominates.

def _dominant(answer, p):
    return check_choice(answer, "C", {
        "A": "That is what the mask before the softmax gives. Here the softmax sees the blocked 800 first, and each "
             "kept weight is computed relative to it: work out exp(0 - 800) in float64 before anything is zeroed.",
        "B": "Equal weights would need equal kept scores, and 0 and 1 are not equal; besides, the softmax saw the "
             "blocked 800 before the mask came in.",
        "C": "Right: softmax([0, 1, 800]) is [0, 0, 1] in float64 (exp(-799) underflows to 0); zeroing key 2 leaves "
             "[0, 0, 0], and dividing by its sum 0 gives 0/0 = NaN.",
        "D": "The mask zeroes key 2's weight after the softmax, so key 2 cannot keep its share; look at what the "
             "softmax left for the other two keys before renormalising.",
    }, hint="Compute the softmax of [0, 1, 800] first: exp(0 - 800) in float64 is smaller than the smallest "
            "positive float64.")


# Problem 3: a -1e9 fill on a row whose keys are all blocked.

def _coarse(weight: float) -> list:
    """A weight cut, or rounded half up, to one decimal and to two: (value, "one decimal" or "two decimals")."""
    found = []
    for places, words in ((1, "one decimal"), (2, "two decimals")):
        scaled = weight * 10 ** places
        for cut in (math.floor(scaled + 1e-9), math.floor(scaled + 0.5 + 1e-9)):
            if (cut / 10 ** places, words) not in found:
                found.append((cut / 10 ** places, words))
    return found


def _draw_blocked_row(rng):
    m = rng.choice([3, 4, 5, 8, 10])  # never 6, the notebook's: so the statement says how this row differs
    return dict(m=m, unlike=f" (which has 6 keys; this row has {m})")


def _filled_row(answer, p):
    weight = 1 / p.m
    # 1 %: a weight truncated to two decimals is not it
    return check_number(answer, weight, rel=0.01, mistakes=added_apart(weight, [
        (0, "like-inf", "0 is what -inf would suggest, but -1e9 is an ordinary (very negative) score, and a stable "
         "softmax first subtracts the row's maximum: in a row where every key is blocked, that maximum is -1e9 "
         "itself. Subtract it and look at what the row's scores become."),
        (1, "one-key", "A weight of 1 would put the whole row on one key; look whether any filled score stands out "
         "from the others."),
    ], [
        (1 / (p.m - 1), "divided-by-m-minus-one", "That shares the row among m - 1 keys, one key short: every one "
         "of the m keys holds the same filled score, so none of them is left out of the softmax's sum."),
        (1 / (p.m + 1), "divided-by-m-plus-one", "That shares the row among m + 1 keys, one key too many: the "
         "softmax's sum runs over the row's own m keys, and no other."),
        (p.m, "sum-of-exps", "That is the sum of the row's exponentials, the softmax's denominator, not a weight: a "
         "weight is one key's share of that sum, and the shares of a row add up to one."),
        *((value, "rounded-too-coarsely", f"That is the weight cut or rounded to {places}, coarser than the 1 % it "
           "is judged to here: give it with more digits, or as a fraction.") for value, places in _coarse(weight)),
    ], rel=0.01), explain=f"{_word(p.m).capitalize()} equal scores get equal weights, 1/{p.m} each: no NaN and no "
                          f"error, but the query now attends evenly to {_word(p.m)} keys that were all blocked, and "
                          "its output is the plain mean of their values, wrong without a sign.",
        hint="Subtract the row's maximum from the filled row, as the stable softmax does, and look at what is left.")


# Problem 4: left padding under a causal mask.

def _left_padding(answer, p):
    return check_number(answer, p.pad, rel=0, mistakes=added_apart(p.pad, [
        (1, "first-row-only", "Row 0 is empty, but it is not the only one: under the causal mask the next query sees "
         "one more key; check whether that key is real."),
        (0, "padding-ignored", "Under a causal mask query i sees keys 0 to i; with the first keys padding, the first "
         "queries see only padding, so their rows are fully masked."),
        (p.m - p.pad, "counted-real", "That counts the real positions, whose rows are never empty (a real query sees "
         "at least itself). The question asks for the rows left with no key."),
    ], [
        (p.pad + 1, "counted-first-real", "That counts the first real query too, but it sees itself, a real key: "
         "its row keeps one key. Only the queries before it are left with nothing."),
        (p.pad - 1, "last-padding-row", "The last padding query sees keys 0 to its own position, and every one of "
         "them is padding: the real keys come after it, beyond the causal mask, so its row is empty too."),
        (p.pad * (p.pad + 1) // 2, "counted-entries", "That counts entries, the (query, key) pairs the padding "
         "blocks where the causal mask allowed them; the question asks how many rows are left with no key at all."),
        (p.m, "every-row", "Every row loses the padding keys, but a row is empty only when nothing is left: a real "
         "query still sees itself, and the real keys before it."),
    ]), explain=f"Query i sees keys 0..i; keys {_span(0, p.pad - 1)} are padding, so queries {_span(0, p.pad - 1)} see "
               f"no real key: {_word(p.pad)} fully masked rows, each a NaN (or an error) waiting to happen.",
        hint=f"Write the {p.m} x {p.m} causal mask, cross out the padded columns, and count the rows left empty.")


def _draw_left_padding(rng):
    m = rng.randint(5, 10)
    # at least two padded rows (one is the first-row-only mistake), two real ones or more, and not as many as padded
    pad = rng.choice([k for k in range(2, m - 1) if k != m - k])
    return dict(m=m, pad=pad, pad_word=_word(pad))


PROBLEMS = [
    Prediction(
        "06-P2", "when a blocked score dominates",
        first=dict(),
        draw=None,
        why_one="The problem is one kind of row, a blocked score far above the kept ones in float64: other such rows "
                "would change the options' texts, never which option is right.",
        kind="choice",
        statement="One row of scores in float64, $s = (0, 1, 800)$, with key 2 blocked. Softmax of the full row, "
                  "zero the blocked weight, divide by the new row sum: what comes out?\n\n"
                  "- A: $(0.269, 0.731, 0)$, the same as masking before the softmax\n"
                  "- B: $(0.5, 0.5, 0)$\n"
                  "- C: NaN in every entry\n"
                  "- D: $(0, 0, 1)$",
        judge=_dominant,
    ),
    Prediction(
        "06-P3", "a `-1e9` fill on a row with nothing to attend to",
        first=dict(m=6, unlike=""),
        draw=_draw_blocked_row,
        statement="A row of scores has all of its $m = {m}$ keys blocked, like row \"the\" of the notebook's `empty`"
                  "{unlike}. Fill its blocked scores with `-1e9` instead of $-\\infty$, "
                  "and take the stable softmax, attn_lib's `softmax` (it subtracts the row's maximum before the "
                  "exponential, as notebook 04's does). What weight does each of the $m = {m}$ keys get?",
        judge=_filled_row,
    ),
    Prediction(
        "06-P4", "left padding under a causal mask",
        first=dict(m=6, pad=2, pad_word="two"),
        draw=_draw_left_padding,
        statement="A sequence of $m = {m}$ positions whose first {pad_word} are padding (left padding, which some "
                  "decoders use so that every sequence of a batch ends at the same position) gets a causal mask "
                  "combined with its padding mask: query $i$ may attend to key $j$ when $j \\le i$ and $j$ is not "
                  "padding. How many query rows have no key left at all?",
        judge=_left_padding,
    ),
]
