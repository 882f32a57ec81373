"""Notebook 05's prediction problems (where a weighted average can land), as data: see ``_prediction``."""

from __future__ import annotations

from .._answers import added_apart, as_number, check_choice, check_number
from .._check_shapes import check_shapes
from .._prediction import Prediction, show

# The sentence's value rows (notebooks 00 and 05): columns animal, location. Their hull is the triangle with corners
# (0, 0) ("the" and "a"), (1, 0) ("cat") and (0, 1) ("mat"); "sat" (0, 0.2) and "on" (0, 0.5) lie on its left edge.
SENTENCE_VALUES = ("'the' (0, 0), 'cat' (1, 0), 'sat' (0, 0.2), 'on' (0, 0.5), 'a' (0, 0), 'mat' (0, 1)")
LETTERS = ("A", "B", "C", "D")


def _point(xy) -> str:
    """A point as a reason writes it: (1.2, 0), (0.3, 0.4)."""
    return f"({xy[0]:g}, {xy[1]:g})"


def _tenths(k: int) -> float:
    return round(k / 10, 1)


def _shuffled(rng, items: list) -> list:
    """The items in an order drawn with rng.choice (the draws use choice and randint only)."""
    items, out = list(items), []
    while items:
        out.append(items.pop(rng.choice(range(len(items)))))
    return out


# Problem 2: the largest number an average of three values can approach.

def _range_end(answer, p):
    values = (p.a, p.b, p.c)
    total, mean, sizes = sum(values), sum(values) / 3, sum(abs(v) for v in values)
    top, low = max(values), min(values)
    more = [(low, "smallest-value", "That is the smallest of the values, the bottom end of the range: an output comes "
             "close to it when its weight sits on that key. The question asks for the top end.")]
    if -low > top:  # the most negative value is the largest in size
        more.append((-low, "dropped-sign", "That is the size of the most negative value, its sign dropped. An output "
                     "averages the values as they are, signs and all, so it is never above the largest of them."))
    more += [
        (1, "weights-bound", "1 bounds each weight, not the output: the weights are at most 1, but they mix the "
         "values, and the output lands where the values are."),
        (top - low, "range-width", "That is the width of the range, the largest value minus the smallest: how far "
         "apart outputs can be, not how high one can go."),
        (p.b, "middle-value", "That is the middle value, the one between the others. Sharper weights move the "
         "output past it, towards a value at the end of the range."),
    ]
    given = as_number(answer)  # a number just below the limit, however many digits it has
    if given is not None and 1e-9 < top - given <= 0.1 + 1e-9:
        more.insert(0, (given, "just-below", "That is a number just below the limit, which the statement asks you "
                        "not to give: outputs come as close to the limit as you like, so every number just below it "
                        "is reached by some output. The question asks for the number they approach."))
    return check_number(answer, top, rel=0, abs_tol=1e-9, mistakes=added_apart(top, [
        (total, "summed-values", "That is the sum of the values, which needs every weight to be a whole one. The "
         "weights of a row sum to one, so the output is an average, not a sum."),
        (mean, "plain-mean", f"{show(mean)} is the plain mean of the three values, what equal weights of 1/3 give. "
         "Sharper weights move the output away from the mean, towards one of the values."),
        (sizes, "sum-of-sizes", f"{show(sizes)} adds the sizes of the values; an average of numbers is never larger "
         "than the largest of them."),
    ], more), explain=f"The output is w1 ({p.a}) + w2 ({p.b}) + w3 ({p.c}) with weights >= 0 that sum to one, so it is "
                      f"at most {top}, and it comes as close to {top} as the weight on the third key comes to 1 (a "
                      f"very sharp row). With d_v = 1 the convex hull of the values is the interval [{low}, {top}].",
        hint="An average of numbers lies between the smallest and the largest of them.")


def _draw_range(rng):
    while True:  # a whole-number mean (typed exactly, as the notebook's 2 is), no zero among the values, and a sum
        # that is neither the largest value (low + middle = 0) nor 0 (the mean's value too); the mean is not minus the
        # answer (its reason would show the answer's digits), and the answer is not 3, a word of how_far's bands
        low, high = rng.randint(-9, -1), rng.choice([2, 4, 5, 6, 7, 8, 9])
        middles = [v for v in range(low + 1, high) if v not in (0, -low, -low - high, -low - 4 * high)
                   and (low + v + high) % 3 == 0]
        if middles:
            return dict(a=low, b=rng.choice(middles), c=high)


# Problem 3: which point can be one head's output (inside the triangle of the sentence's value rows)?

def _one_head_reason(xy) -> tuple[bool, str]:
    """Whether a point is inside the triangle, and why (or why not), in the notebook's words."""
    x, y = xy
    s = round(x + y, 1)
    if x < 0 or y < 0:
        column = "animal" if x < 0 else "location"
        numbers = "0 or 1" if x < 0 else "between 0 and 1"
        return False, (f"{_point(xy)} has a negative {column} coordinate, but every value row's {column} "
                       f"coordinate is {numbers}, and an average of numbers that are all >= 0, with non-negative "
                       "weights, is >= 0.")
    if x > 1 or y > 1:
        word, corner, column = ("cat", "(1, 0)", "animal") if x > 1 else ("mat", "(0, 1)", "location")
        return False, (f"{_point(xy)} lies beyond '{word}' {corner}, the largest {column} coordinate of any value "
                       "row; an average is never larger than the largest of the numbers it averages.")
    if s > 1:
        return False, (f"{_point(xy)} lies beyond the edge from 'cat' (1, 0) to 'mat' (0, 1): its coordinates add "
                       f"up to {s:g}, and the coordinates of every point of the triangle add up to at most 1. A "
                       "weighted average cannot leave the hull.")
    return True, (f"{_point(xy)} has both coordinates positive and their sum, {s:g}, below 1: it is inside the "
                  f"triangle (weight {x:g} on 'cat', {y:g} in all on 'mat' and the value rows along the left edge, "
                  "the rest on 'the' and 'a').")


def _one_head(answer, p):
    points = {letter: getattr(p, letter) for letter in LETTERS}
    judged = {letter: _one_head_reason(xy) for letter, xy in points.items()}
    right = [letter for letter, (inside, _) in judged.items() if inside]
    if len(right) != 1:
        raise ValueError(f"05-P3 needs exactly one point inside the triangle; got {right}")
    return check_choice(answer, right[0], {letter: reason for letter, (_, reason) in judged.items()},
                        hint="Every output lies inside the triangle with corners (0, 0), (1, 0) and (0, 1).")


def _draw_one_head(rng):
    x = rng.randint(1, 7)
    inside = (_tenths(x), _tenths(rng.randint(1, 9 - x)))
    x = rng.randint(2, 9)
    beyond_edge = (_tenths(x), _tenths(rng.randint(max(2, 11 - x), 9)))
    k, other = rng.randint(1, 3), _tenths(rng.randint(1, 8))
    negative = rng.choice([(-_tenths(k), other), (other, -_tenths(k))])
    k = rng.randint(1, 5)
    beyond_corner = rng.choice([(_tenths(10 + k), 0.0), (0.0, _tenths(10 + k))])
    return dict(zip(LETTERS, _shuffled(rng, [inside, beyond_edge, negative, beyond_corner])))


# Problem 4: a query of zeros.

def _zero_query(answer, p):
    m, total = len(p.values), sum(p.values)
    ranked, nonzero = sorted(p.values), [v for v in p.values if v]
    median = (ranked[(m - 1) // 2] + ranked[m // 2]) / 2
    return check_number(answer, total / m, rel=0, abs_tol=1e-9, mistakes=added_apart(total / m, [
        (total, "summed-values", "That is the sum of the values, which would count every value whole. A zero query "
         "scores every key the same, so the weights are equal and share one among the m keys: the output averages "
         "the values instead of adding them."),
        (max(p.values), "one-hot", "That is the largest value, what a one-hot row on its key would give. A zero "
         "query scores every key the same, so no key wins: the weights are flat."),
        (1 / m, "the-weight", "That is the weight each key gets, not the output: the output mixes the values with "
         "those weights."),
    ], [
        (0, "zero-output", "A query of zeros makes every score 0, not the output: equal scores give equal weights, "
         "none of them 0, and the output mixes the values with them."),
        (p.values[0], "first-key", "That is the first key's value, what a one-hot row on key 0 would give. A zero "
         "query scores every key the same, so the first key stands out no more than the others."),
        (total / (m - 1), "divided-by-m-minus-one", "That divides the sum of the values by one less than m, one key "
         "short: every one of the m keys gets the same weight, the first and the last included."),
        (total / (m + 1), "divided-by-m-plus-one", "That divides the sum of the values by one more than m, one key "
         "too many: the weights share one among the m keys of the row, and no other."),
        (total / len(nonzero), "skipped-zeros", "That averages only the values that are not 0. A key whose value is "
         "0 still gets its equal weight: its value adds nothing to the sum, but it counts among the keys."),
        (median, "median", "That is the median, the middle of the values once sorted. The output weighs every value "
         "by its weight, so how large the values are counts, not only their order."),
        ((max(p.values) + min(p.values)) / 2, "midrange", "That is halfway between the largest and the smallest "
         "value; the output weighs every value, the ones in between too."),
    ]), explain=f"A zero query scores every key 0, the softmax of equal scores is 1/m each, and the output is the "
               f"plain mean of the values: ({' + '.join(str(v) for v in p.values)}) / {m} = {show(total / m)}.",
        hint="Work out the scores first, then the weights, then the average.")


def _listed(values) -> str:
    return ", ".join(str(v) for v in values[:-1]) + f" and {values[-1]}"


def _draw_zero_query(rng):
    m = rng.choice([4, 5, 8])  # 1/m (the weight, a named mistake) typed exactly: 0.25, 0.2, 0.125
    while True:  # whole-number mean (by hand), not 3; not every value alike (else one-hot is the mean), and more
        # than one value above 0 (else the sum is the largest value)
        values = tuple(rng.randint(0, 6) for _ in range(m))
        if (sum(values) % m == 0 and sum(values) != 3 * m  # a mean of 3 is a word of how_far's bands
                and len(set(values)) > 1 and sum(v > 0 for v in values) > 1):
            return dict(m=m, values=values, listed=_listed(values))


# Problem 5: shapes, with n != m and d_k != d_v.

def _draw_shapes(rng):
    while True:  # four different sizes: every named wrong shape differs from the right one and from the others
        n, m, d_k, d_v = (rng.randint(2, 12) for _ in range(4))
        if len({n, m, d_k, d_v}) == 4:
            return dict(n=n, m=m, d_k=d_k, d_v=d_v)


# Problem 6: two heads, one column each: the square [0, 1] x [0, 1], not the triangle.

def _two_heads_reason(xy) -> tuple[bool, str]:
    x, y = xy
    for value, column, head, word in ((x, "animal", "A", "cat"), (y, "location", "B", "mat")):
        if value > 1:
            return False, (f"{value:g} is beyond the largest {column} value of any key (1, for '{word}'): head "
                           f"{head}'s output is still one weighted average of its column, never above the largest "
                           "number in it.")
        if value < 0:
            return False, (f"{value:g} is below every {column} value: head {head} averages numbers that are all "
                           ">= 0, with weights >= 0.")
    return True, ("Right: each head averages its own column with its own weights, so the two coordinates move "
                  "independently, each between the smallest and largest number of its column. Head A can listen to "
                  "'cat' while head B listens to 'mat', which no single row of weights can do, so the point can be "
                  f"near (1, 1), and {_point(xy)} is reachable: inside the square, outside the triangle.")


NONE_OF_THEM = ("The triangle holds when one row of weights mixes whole value rows. Here each head has its own weights "
                "for its own column, so the point need not be one weighted average of the value rows.")


def _two_heads(answer, p):
    judged = {letter: _two_heads_reason(getattr(p, letter)) for letter in LETTERS[:3]}
    right = [letter for letter, (reachable, _) in judged.items() if reachable]
    if len(right) != 1:
        raise ValueError(f"05-P6 needs exactly one reachable point; got {right}")
    reasons = {letter: reason for letter, (_, reason) in judged.items()}
    reasons["D"] = NONE_OF_THEM
    return check_choice(answer, right[0], reasons,
                        hint="Each head's output is a weighted average of its own column: between which numbers? Are "
                             "the two coordinates tied to each other?")


def _draw_two_heads(rng):
    x = rng.randint(4, 9)
    square = (_tenths(x), _tenths(rng.randint(max(3, 13 - x), 9)))  # inside the square, sum >= 1.3: off the triangle
    beyond = rng.choice([(_tenths(rng.randint(11, 15)), _tenths(rng.randint(1, 9))),
                         (_tenths(rng.randint(1, 9)), _tenths(rng.randint(11, 15)))])
    below = rng.choice([(-_tenths(rng.randint(1, 3)), _tenths(rng.randint(1, 9))),
                        (_tenths(rng.randint(1, 9)), -_tenths(rng.randint(1, 3)))])
    return dict(zip(LETTERS[:3], _shuffled(rng, [square, beyond, below])))


PROBLEMS = [
    Prediction(
        "05-P2", "how far can an output go?",
        first=dict(a=-1, b=2, c=5),
        draw=_draw_range,
        statement="Take values of width $d_v = 1$: three keys whose values are the numbers ${a}$, ${b}$ and ${c}$. "
                  "Whatever the queries and keys are, each output is a weighted average of these three numbers. "
                  "What is the largest number an output can come as close to as you like? Give that number itself, "
                  "exactly (it is checked to within $10^{{-9}}$), not a number just below it. (No code needed.)",
        judge=_range_end,
    ),
    Prediction(
        "05-P3", "which point can be an output?",
        first=dict(A=(0.6, 0.6), B=(-0.1, 0.5), C=(0.3, 0.4), D=(1.2, 0.0)),
        draw=_draw_one_head,
        kind="choice",
        statement="The sentence's six value rows (columns animal, location) are " + SENTENCE_VALUES + ". Only one "
                  "of these four points can be the output of some query against the sentence's six keys and values: "
                  "A ${A}$, B ${B}$, C ${C}$, D ${D}$. Which one? Answer with its letter.",
        judge=_one_head,
    ),
    Prediction(
        "05-P4", "a query that scores every key alike",
        first=dict(m=4, values=(3, 0, 1, 0), listed="3, 0, 1 and 0"),
        draw=_draw_zero_query,
        statement="A query of zeros meets $m = {m}$ keys whose values have width one: {listed} ($d_v = 1$). What is "
                  "its output?",
        judge=_zero_query,
    ),
    Prediction(
        "05-P5", "predict the shapes of a cross-attention step with $d_k \\neq d_v$",
        first=dict(n=4, m=6, d_k=3, d_v=2),
        draw=_draw_shapes,
        kind="shapes",
        asks=("Q", "K", "V", "scores", "weights", "output"),
        statement="$n = {n}$ queries of width $d_k = {d_k}$ attend to $m = {m}$ keys; the values have width "
                  "$d_v = {d_v}$. Write the shape of each of Q, K, V, the scores, the weights and the output as a "
                  "tuple, before running anything.",
        judge=lambda answers, p: check_shapes(answers, n=p.n, m=p.m, d_k=p.d_k, d_v=p.d_v,
                                              asks=("Q", "K", "V", "scores", "weights", "output")),
    ),
    Prediction(
        "05-P6", "two heads, one column each",
        first=dict(A=(0.9, 0.9), B=(1.2, 0.3), C=(-0.1, 0.5)),
        draw=_draw_two_heads,
        kind="choice",
        statement="Two heads work on the sentence's six keys, whose value rows (columns animal, location) are "
                  + SENTENCE_VALUES + ". Each head has its own queries and its own column of values: head A reads "
                  "the animal column `V[:, :1]`, head B the location column `V[:, 1:]`. Concatenated, their outputs "
                  "give one point (animal, location) per query. Which of these points can that concatenated output "
                  "come as close to as you like?\n\n- A: ${A}$\n- B: ${B}$\n- C: ${C}$\n- D: none of them: like one "
                  "head's output, it stays inside the triangle",
        judge=_two_heads,
    ),
]
