"""Notebook 03's prediction problems (the variance of a score, the division by sqrt(d_k), the softmax's Jacobian),
as data: see ``_prediction``."""

from __future__ import annotations

import math

from .._answers import added_apart, check_choice, check_number
from .._check_variance import check_variance
from .._prediction import Prediction, show

# 03-P5's tolerance, said in its statement (and in the notebook's).
RATIO_REL = 0.05
# Problem 1's width: 03-P2 and 03-P3 name the mistakes that reuse it (its answer, its width), so it is the same in
# every edition (Problem 1 has one instance; Problems 2 and 3 pose its idea again under other conditions).
PROBLEM_1_D_K = 64


# A number the wrong-number reasons print as a band's edge ("between 1.5 and 3 times too large", "by 10 % to 50 %"):
# an answer equal to one would be written in the reason of every far-off answer.
BAND_WORDS = (1.5, 3, 10, 50, 100, 1000)


def _apart(values, rel) -> bool:
    """No two of ``values`` within ``rel`` of each other (either way), as check_number's table needs them."""
    return all(abs(a - b) > rel * max(abs(a), abs(b)) for k, a in enumerate(values) for b in values[k + 1:])


def _close(a, b, rel) -> bool:
    """Whether ``a`` and ``b`` are within ``rel`` of each other, either way (check_number's test of a named mistake)."""
    return abs(a - b) <= rel * max(abs(a), abs(b))


def _unscaled_values(var, d_k, base=PROBLEM_1_D_K):
    """03-P2's answer and named mistakes."""
    right = d_k * var * var
    return [right, d_k * var, d_k, base, base * var * var, base * var, math.sqrt(right), var * var, var]


def _scaled_values(var, d_k, base=PROBLEM_1_D_K):
    """03-P3's answer and named mistakes."""
    unscaled = d_k * var * var
    return [var * var, 1, unscaled / math.sqrt(d_k), var, unscaled, base * var * var / d_k, unscaled / base]


# 03-P2 and 03-P3's draws: a head wider than Problem 1's with components of variance below 1; the answers and the
# named mistakes of both problems stay more than 10 % apart, and 03-P2's answer is no band's edge (03-P3's, var^2,
# never is).
_COMPONENTS = [(var, d_k) for var in (0.5, 0.25, 0.2) for d_k in (80, 96, 112, 128, 144, 160, 192, 224, 256, 320)
               if _apart(_unscaled_values(var, d_k), 0.1) and _apart(_scaled_values(var, d_k), 0.1)
               and not any(math.isclose(d_k * var * var, word) for word in BAND_WORDS)]


def _components(rng):
    return dict(zip(("var", "d_k"), rng.choice(_COMPONENTS)))


def _unscaled(answer, p):
    base, var, d_k = PROBLEM_1_D_K, p.var, p.d_k
    right = d_k * var * var
    return check_number(answer, right, rel=0.01, mistakes=added_apart(right, [
        (d_k * var, "product-variance-not-multiplied",
         f"That gives each product q_t k_t the components' variance, {show(var)}. A product of two independent "
         "components of mean 0 has variance Var(q_t) Var(k_t): the two variances multiply."),
        (d_k, "assumed-unit-variance",
         f"{d_k} = d_k is the variance when the components have variance 1. Here they have variance {show(var)}, "
         "and each product's variance is the product of the two components' variances."),
        (base, "problem-1-answer",
         f"{base} is Problem 1's answer, for d_k = {base} and components of variance 1. Both changed: this head "
         f"has d_k = {d_k}, and its components have variance {show(var)}."),
        (base * var * var, "used-dk-64",
         f"That uses d_k = {base} from Problem 1; this head has d_k = {d_k} components, so {d_k} products add."),
        (base * var, "dk-64-and-not-multiplied",
         f"That holds two mistakes: d_k = {base} is Problem 1's width (this head has {d_k}), and a product of two "
         f"components of variance {show(var)} does not have variance {show(var)}: the two variances multiply."),
        (math.sqrt(right), "std-not-variance",
         "That is a standard deviation, a spread in the score's own units; the question asks for the variance, "
         "the spread that adds up over independent terms."),
        (var * var, "forgot-to-add",
         "That is the variance of one product q_t k_t; the score is a sum of d_k such products, and the variances "
         "of independent terms add."),
        (var, "component-variance",
         f"{show(var)} is the variance of one component of q or k. The score is a sum of products q_t k_t, each "
         "with the product of the two components' variances, and the variances of independent terms add."),
    ], [
        (d_k * 2 * var, "added-variances",
         f"That adds the two components' variances, {show(var)} + {show(var)}, for each product q_t k_t. A product "
         "of two independent components of mean 0 has the product of their variances, not their sum."),
        (math.sqrt(d_k) * var * var, "sqrt-dk",
         "That multiplies one product's variance by sqrt(d_k), which is how the standard deviation of the sum "
         "grows. The variance is what adds over independent terms: it grows with d_k itself."),
        (d_k * d_k * var * var, "dk-squared",
         "That squares d_k where it enters once: each of the d_k products adds its own variance to the sum, and "
         "the count of terms is not squared."),
    ], rel=0.01),
        explain=f"{show(right)}: each product has variance {show(var)} x {show(var)} = {show(var * var)}, and {d_k} "
                f"independent products add to {show(right)}.",
        hint="Variance of one product: the product of the two variances. Then add d_k of them.")


def _scaled(answer, p):
    base, var, d_k = PROBLEM_1_D_K, p.var, p.d_k
    unscaled = d_k * var * var
    return check_number(answer, var * var, rel=0.01, mistakes=added_apart(var * var, [
        (1, "assumed-unit-variance",
         "The division gives variance 1 only under footnote 4's assumption, components of variance 1. Here the "
         f"components have variance {show(var)}, so the unscaled variance is not d_k, and the division shrinks it "
         "by the same factor as it would shrink d_k."),
        (unscaled / math.sqrt(d_k), "divided-variance-by-sqrt",
         "Var(x / c) = Var(x) / c^2: dividing a score by sqrt(d_k) divides its variance by the square of "
         "sqrt(d_k), not by sqrt(d_k) itself."),
        (var, "sd-or-component-variance",
         "That is either a standard deviation where the question asks for a variance, or the components' own "
         "variance (Problem 2's mistake of giving each product the components' variance, then dividing). A "
         "product of two independent components has the product of their variances, and Var(x / c) = "
         "Var(x) / c^2."),
        (unscaled, "not-divided",
         "That is the variance before the division. This score is divided by sqrt(d_k) first, and dividing a "
         "number by a constant changes its variance too: by how much follows from Var(c x)."),
        (base * var * var / d_k, "mixed-widths",
         f"That starts from the unscaled variance at Problem 1's width, {base} products; this head adds {d_k} "
         "products before the division."),
        (unscaled / base, "divided-by-64",
         f"That divides the variance by {base}, Problem 1's d_k; this head's d_k is {d_k}."),
    ], [
        (unscaled / (d_k * d_k), "divided-by-dk-squared",
         "That divides by d_k twice, by d_k^2 in all, as if the score were divided by d_k itself. It is divided by "
         "sqrt(d_k), and Var(x / c) = Var(x) / c^2 squares that divisor once."),
        (2 * var, "added-variances",
         f"That adds the two components' variances, {show(var)} + {show(var)}, for each product q_t k_t. A product "
         "of two independent components of mean 0 has the product of their variances, not their sum."),
        (var / math.sqrt(d_k), "std-divided-again",
         "That is a standard deviation where the question asks for a variance, divided by one sqrt(d_k) more "
         "than the score is (or the unscaled score's standard deviation divided by d_k). Work with variances "
         "throughout: Var(x / c) = Var(x) / c^2."),
    ], rel=0.01),
        explain=f"{show(var * var)}: the unscaled score has variance {d_k} x {show(var * var)} = {show(unscaled)}, "
                f"and dividing by sqrt({d_k}) divides the variance by {d_k}. Unit variance needs components of "
                "variance 1.",
        hint=f"Var(x / c) = Var(x) / c^2, with c = sqrt({d_k}).")


def _sci(x: float) -> str:
    """6.7e9, not 6.7e+09."""
    mantissa, exponent = f"{x:.1e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def _ratio(answer, p):
    d_k = p.d_k
    gap = math.sqrt(d_k)
    larger = 1 / (1 + math.exp(-gap))  # the larger of the two weights
    shrunk = math.exp(1 / gap)  # a gap of 1 divided by sqrt(d_k)
    near_one = ([(larger, "larger-weight",
                  "That is the larger weight itself, its share of the two keys' weight. The question asks how many "
                  "times the other weight it is: the ratio w_i / w_j."),
                 (shrunk, "gap-divided-by-sqrt-dk",
                  "That takes the gap as 1 / sqrt(d_k), a standard deviation of 1 divided by sqrt(d_k). This model "
                  "has no division, and one standard deviation of a raw score, a sum of d_k products, grows with "
                  "d_k.")]
                if not _close(larger, shrunk, RATIO_REL) else
                [(value, "larger-weight-or-shrunk-gap",
                  "That is close to 1, as if the two weights were nearly equal: it is the larger weight itself (a "
                  "share of the two keys' weight, not a ratio of two weights), or a gap shrunk to 1 / sqrt(d_k) by "
                  "a division this model does not have. The question asks for w_i / w_j, with the scores one "
                  "standard deviation of a raw score apart.") for value in (larger, shrunk)])
    return check_number(answer, math.exp(gap), rel=RATIO_REL, mistakes=added_apart(math.exp(gap), [
        (gap, "gap-not-ratio",
         "That is the gap itself, one standard deviation. The softmax turns a gap into a ratio of weights: "
         "w_i / w_j = exp(s_i - s_j)."),
        (math.e, "scaled-gap",
         "e = exp(1) is the ratio after the division, when one standard deviation is 1. Without it one standard "
         "deviation of a raw score grows with d_k."),
        (math.exp(d_k), "variance-as-gap",
         f"That uses {d_k}, the variance of a raw score, as the gap; one standard deviation is the square root of "
         "the variance."),
        (math.exp(-gap), "inverted-ratio",
         "That is the smaller weight over the larger. The question asks the other way round: how many times the "
         "smaller weight the larger one gets."),
        (math.exp(8), "used-dk-64",
         f"exp(8) = exp(sqrt(64)) uses d_k = 64, the base model's width. Here d_k = {d_k}."),
    ], near_one + [
        (2 ** gap, "base-2",
         "That raises 2 to the gap. The softmax's exponential has base e: w_i / w_j = exp(s_i - s_j)."),
        (math.exp(gap / 2), "halved-gap",
         "That is exp of half the gap. The ratio of two weights is exp of the whole difference between their two "
         "scores, the full standard deviation here."),
    ], rel=RATIO_REL),
        explain=f"exp(sqrt({d_k})) = exp({gap:.1f}), about {_sci(math.exp(gap))}: the larger score takes "
                "practically all the weight.",
        hint="The gap is one standard deviation of a raw score; the ratio of two weights is exp(gap).")


def _through_division(answer, p):
    w0, d_k = p.w0, p.d_k
    r = math.sqrt(d_k)
    at_scores = w0 * (1 - w0)
    right = at_scores / r
    return check_number(answer, right, rel=0.02, mistakes=added_apart(right, [
        (at_scores, "jacobian-at-scores",
         "That is d w / d s at the scaled scores s = z / sqrt(d_k), the softmax's own Jacobian. The raw dot "
         "product reaches the softmax through the division: by the chain rule its rate carries the division's "
         "factor too."),
        (at_scores / d_k, "divided-by-dk",
         "That divides by d_k. The scores are z / sqrt(d_k), so d s / d z is 1 / sqrt(d_k), not 1 / d_k."),
        (at_scores * r, "multiplied-by-sqrt-dk",
         "That multiplies by sqrt(d_k). The division makes the scores move more slowly than the dot products, "
         "not faster."),
        (-w0 * w0 / r, "off-diagonal",
         "That uses the off-diagonal formula, -w_i w_j. Entry (0, 0) lies on the diagonal: w_0 (1 - w_0), then "
         "the division's factor."),
        (w0 / r, "forgot-one-minus-w",
         "That leaves out (1 - w_0): the diagonal entry of diag(w) - w w^T is w_0 - w_0^2."),
        (w0, "the-weight",
         "That is the weight itself, not its rate of change: the diagonal entry of the softmax's Jacobian is "
         "w_0 (1 - w_0), and the division multiplies it by d s / d z."),
        (0, "one-hot",
         "This row is split between two keys, not one-hot: its Jacobian is not zero."),
    ], [
        (-w0 * (1 - w0) / r, "entry-0-1",
         "That is entry (0, 1), -w_0 w_1 through the division: how the first weight moves when the second raw "
         "dot product moves. The question asks for entry (0, 0), on the diagonal of diag(w) - w w^T."),
        (w0 * w0 / r, "squared-weight",
         "That takes w_0^2, the entry of w w^T alone, for the diagonal entry. The Jacobian subtracts it from "
         "diag(w): w_0 - w_0^2 on the diagonal, before the division's factor."),
        ((1 - w0) / r, "forgot-w0",
         "That leaves out the factor w_0 in front: the diagonal entry of diag(w) - w w^T is w_0 (1 - w_0), the "
         "weight times what the rest of the row holds."),
    ], rel=0.02),
        explain=f"{right:.4g} = {show(w0)} x (1 - {show(w0)}) / {show(r)}: at the scores the entry is w_0 (1 - w_0) "
                f"= {show(at_scores)}, and d s / d z = 1 / sqrt({d_k}) = 1/{show(r)} multiplies it. This is the "
                "further 1 / sqrt(d_k) that the gradient reaching Q carries in the scaled model (notebook 09 measures "
                "it at W_q, on a task).",
        hint="s = z / sqrt(d_k), so d w / d z = (d w / d s) (d s / d z).")


def _jacobian_values(d_k, w0):
    """03-P7's answer and named mistakes (0, the one-hot row's, is only ever met exactly)."""
    r = math.sqrt(d_k)
    at_scores = w0 * (1 - w0)
    return [at_scores / r, at_scores, at_scores / d_k, at_scores * r, -w0 * w0 / r, w0 / r, w0]


# 03-P7's draws: a width with a whole square root and a row split between two keys, whose answer and named mistakes
# stay more than 2 % apart.
_SPLIT_ROWS = [(d_k, w0) for d_k in (16, 36, 64, 100, 144, 256) for w0 in (0.1, 0.2, 0.4, 0.5, 0.6, 0.8, 0.9)
               if _apart(_jacobian_values(d_k, w0), 0.02)]


def _split_row(rng):
    d_k, w0 = rng.choice(_SPLIT_ROWS)
    return dict(d_k=d_k, w0=w0, w1=round(1 - w0, 2))


PROBLEMS = [
    Prediction(
        "03-P1", "predict the variance",
        first=dict(d_k=PROBLEM_1_D_K),
        why_one="Problems 2 and 3 pose its idea again under other conditions and name the mistakes that reuse its "
                "numbers (its width, its answer): they stay the notebook's in every edition, so that those reasons "
                "stay true.",
        statement="The components of $q$ and $k$ are independent, with mean 0 and variance 1, and $d_k = {d_k}$. "
                  "What is the variance of one unscaled score $q \\cdot k$?",
        judge=lambda answer, p: check_variance(answer, d_k=p.d_k, scaled=False),
    ),
    Prediction(
        "03-P2", "smaller components",
        first=dict(var=0.5, d_k=96),
        draw=_components,
        statement="In Problem 1 the components of $q$ and $k$ had variance 1 and $d_k = 64$. Now the components of "
                  "$q$ and $k$ have variance {var} (still independent, mean 0), and the head is wider, "
                  "$d_k = {d_k}$. What is the variance of one unscaled score $q \\cdot k$?",
        judge=_unscaled,
    ),
    Prediction(
        "03-P3", "after the division, with those components",
        first=dict(var=0.5, d_k=96),
        draw=_components,
        statement="In Problem 1 the components of $q$ and $k$ had variance 1 and $d_k = 64$. Now they have variance "
                  "{var} (independent, mean 0), $d_k = {d_k}$, and the score is divided by $\\sqrt{{d_k}}$: "
                  "$q \\cdot k / \\sqrt{{{d_k}}}$. What is its variance?",
        judge=_scaled,
    ),
    Prediction(
        "03-P5", "one standard deviation apart",
        first=dict(d_k=512),
        draw=lambda rng: dict(d_k=rng.choice([128, 196, 256, 384, 400, 576, 640])),
        statement="Unit-variance components, $d_k = {d_k}$, no division. Two keys' scores for one query differ "
                  "by one standard deviation of a raw score. How many times the weight of the other does the "
                  "larger get? (A number; use `np.exp` and `np.sqrt`. The checker accepts answers within "
                  f"{RATIO_REL * 100:g} % of the exact ratio.)",
        judge=_ratio,
    ),
    Prediction(
        "03-P6", "the Jacobian of a one-hot row",
        first=dict(),
        why_one="The right option is the same for every one-hot row, wherever its 1 stands and however long it "
                "is.",
        kind="choice",
        statement="A row of weights is exactly one-hot: $w = (1, 0, 0)$. What is its Jacobian "
                  "$\\operatorname{{diag}}(w) - w w^\\top$? Answer with one letter:\n\n"
                  "- `\"a\"`: all zeros\n"
                  "- `\"b\"`: the identity matrix\n"
                  "- `\"c\"`: $\\operatorname{{diag}}(1, 0, 0)$\n"
                  "- `\"d\"`: a matrix of ones",
        judge=lambda answer, p: check_choice(answer, "a", {
            "a": "diag(w) = diag(1, 0, 0) and w w^T has a single 1 in the same corner, so they cancel: moving any "
                 "score a little moves no weight, and no gradient flows back through this row.",
            "b": "The identity would mean each weight follows its own score one for one, whatever the row. Write "
                 "diag(w) and w w^T for this row, then subtract.",
            "c": "diag(w) is diag(1, 0, 0), but the Jacobian subtracts w w^T as well: look at its entry (0, 0).",
            "d": "Entry (i, j) is w_i (1 - w_j) on the diagonal and -w_i w_j off it: put w = (1, 0, 0) into both "
                 "and see what is left of a matrix of ones.",
        }, hint="Write out diag(w) and the outer product w w^T for w = (1, 0, 0), then subtract."),
    ),
    Prediction(
        "03-P7", "the Jacobian through the division",
        first=dict(d_k=64, w0=0.5, w1=0.5),
        draw=_split_row,
        statement="In the scaled model the weights are $w = \\operatorname{{softmax}}(z/\\sqrt{{d_k}})$, where "
                  "$z = (q \\cdot k_1, \\dots, q \\cdot k_m)$ are the raw dot products. At $d_k = {d_k}$ a row of "
                  "weights is $w = ({w0}, {w1}, 0)$. What is entry $(0, 0)$ of $\\partial w / \\partial z$: how "
                  "fast the first weight moves when the first raw dot product moves? (A number.)",
        judge=_through_division,
    ),
]
