"""Checkers for notebook 10: the attention line inside a trained model (all-MiniLM-L6-v2)."""

from __future__ import annotations

import math

import numpy as np

from ._answers import NUMBER_UNREAD, as_number, check_choice, check_number
from ._catalogue import entry
from ._feedback import Feedback


def _distinct(mistakes, expected, rel):
    """The mistakes whose value an answer could not reach while also being right (measured inputs vary)."""
    return [m for m in mistakes if abs(m[0] - expected) > rel * max(abs(expected), abs(m[0]))]


def _first_length_beyond(parameters, per_token_pair):
    """The smallest n with per_token_pair * n**2 > parameters (exact, in integers)."""
    n = math.isqrt(parameters // per_token_pair)
    while per_token_pair * n * n <= parameters:
        n += 1
    return n


# The ids each checker of this module gives (the teacher's table is generated from them); "chose-<label>": one id
# per option, its reason the option's own.
GIVES = {
    "check_footnote4_variance": (
        "unit-variance", "ignored-means", "mean-square-not-variance", "means-not-squared", "only-means-product", "forgot-dk", "sqrt-dk",
        "added-variances", "standard-deviations", "wrong-number", *NUMBER_UNREAD,
    ),
    "check_why_scores_grow": ("chose-<label>", "not-an-option"),
    "check_weights_beyond_parameters": (
        "rounded-down", "not-the-first", "one-layer", "one-head-per-layer", "one-head", "linear-in-n",
        "token-limit", "wrong-number", *NUMBER_UNREAD,
    ),
    "check_unscaled_row": ("unchanged", "divided-again", "times-dk", "equal-weights", "wrong-number", *NUMBER_UNREAD),
}


def check_weights_beyond_parameters(answer, parameters, layers=6, heads=12) -> Feedback:
    """The shortest sentence, in tokens, for which the model computes more attention weights than it has parameters.

    A sentence of n tokens gives ``layers * heads * n**2`` attention weights (the softmax's output, one per query,
    key, head and layer); the parameters are the numbers in W and the other tensors, fixed by training.

    Examples
    --------
    >>> check_weights_beyond_parameters(562, parameters=22_713_216).passed
    True
    >>> check_weights_beyond_parameters(4766, parameters=22_713_216).mistake
    'one-head'
    """
    for name, value in (("parameters", parameters), ("layers", layers), ("heads", heads)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive int; got {value!r}")
    parameters, layers, heads = int(parameters), int(layers), int(heads)
    per_pair = layers * heads
    expected = _first_length_beyond(parameters, per_pair)
    mistakes = [
        # Neither reason says on which side the answer lies: one step from an integer answer, that would be it.
        (expected - 1, "rounded-down",
         *entry("rounded-down")),
        (expected + 1, "not-the-first",
         *entry("not-the-first")),
        (_first_length_beyond(parameters, heads), "one-layer",
         *entry("one-layer", heads=heads, layers=layers)),
        (_first_length_beyond(parameters, layers), "one-head-per-layer",
         *entry("one-head-per-layer", heads=heads)),
        (_first_length_beyond(parameters, 1), "one-head",
         *entry("one-head", layers=layers, heads=heads)),
        (parameters // per_pair + 1, "linear-in-n",
         *entry("linear-in-n")),
        (256, "token-limit",
         *entry("token-limit")),
    ]
    mistakes = [m for m in mistakes if m[0] != expected]
    return check_number(
        answer, expected, rel=0.0, abs_tol=0.0, mistakes=mistakes, what="the sentence length",
        explain=(f"A sentence of n tokens gives {layers} layers x {heads} heads x n x n weights, so the weights "
                 f"pass the {parameters:,} parameters once {per_pair} n^2 > {parameters:,}: at n = {expected} "
                 f"there are {per_pair * expected ** 2:,} weights. The parameters are fixed by training; the "
                 "weights are computed afresh for every sentence and grow with its square."),
        hint=f"Write the number of attention weights for n tokens, then find the first n where it passes "
             f"{parameters:,}.",
    )


def check_footnote4_variance(answer, var_q, var_k, d_k=32, mean_q=0.0, mean_k=0.0, *, rel=0.05) -> Feedback:
    """Footnote 4 with independent components of variances var_q, var_k and means mean_q, mean_k: var(q . k).

    Each product q_t k_t has variance E[q_t^2] E[k_t^2] - (E[q_t] E[k_t])^2, with E[x^2] = var + mean^2, and the
    d_k independent products add: with both means 0 this is footnote 4's d_k var_q var_k. ``rel``: the relative
    tolerance (5 % where the variances are measured; a problem that gives exact numbers passes less).

    Examples
    --------
    >>> check_footnote4_variance(32 * 1.04 * 1.26, var_q=1.04, var_k=1.26).passed
    True
    >>> check_footnote4_variance(32, var_q=1.04, var_k=1.26).mistake
    'unit-variance'
    >>> check_footnote4_variance(32 * (1.49 * 1.25 - 0.49 * 0.25), var_q=1, var_k=1, mean_q=0.7, mean_k=0.5).passed
    True
    >>> check_footnote4_variance(32, var_q=1, var_k=1, mean_q=0.7, mean_k=0.5).mistake
    'ignored-means'
    """
    square_q, square_k = var_q + mean_q ** 2, var_k + mean_k ** 2  # E[q_t^2], E[k_t^2]
    one = square_q * square_k - (mean_q * mean_k) ** 2  # the variance of one product q_t k_t
    expected = d_k * one
    with_means = bool(mean_q or mean_k)
    mistakes = []
    if with_means:
        mistakes += [
            (d_k * var_q * var_k, "ignored-means",
             *entry("ignored-means")),
            (d_k * square_q * square_k, "mean-square-not-variance",
             *entry("mean-square-not-variance")),
            (d_k * (var_q * var_k + mean_q * mean_k), "means-not-squared",
             *entry("means-not-squared")),
            (d_k * (var_q * var_k + (mean_q * mean_k) ** 2), "only-means-product",
             *entry("only-means-product")),
        ]
    else:
        mistakes.append((float(d_k), "unit-variance",
                         *entry("unit-variance", d_k=d_k, var_q=f"{var_q:.2f}", var_k=f"{var_k:.2f}")))
    mistakes += [
        (one, "forgot-dk",
         *entry("forgot-dk", hint="Multiply by the number of products.")),
        (math.sqrt(d_k) * one, "sqrt-dk",
         *entry("sqrt-dk")),
        (d_k * (var_q + var_k), "added-variances",
         *entry("added-variances")),
        (d_k * math.sqrt(var_q * var_k), "standard-deviations",
         *entry("standard-deviations")),
    ]
    mistakes = _distinct(mistakes, expected, rel)
    if with_means:
        explain = (f"Each product q_t k_t has mean square E[q_t^2] E[k_t^2] = ({var_q:g} + {mean_q:g}^2)({var_k:g} + "
                   f"{mean_k:g}^2) and mean {mean_q:g} x {mean_k:g}, so variance {one:.4g}; the d_k = {d_k} "
                   f"independent products add: {expected:.1f}, more than the {d_k * var_q * var_k:.0f} that mean-0 "
                   "components of the same variances give. A mean is a third thing footnote 4 assumes away.")
        hint = ("For independent q_t and k_t, E[(q_t k_t)^2] = E[q_t^2] E[k_t^2]: write each mean square from its "
                "variance and its mean, then take the variance of the product.")
    else:
        explain = (f"If the components were independent with mean 0, each product would have variance "
                   f"{var_q:.2f} x {var_k:.2f} and the d_k = {d_k} products would add: {expected:.1f}.")
        hint = "Each product q_t k_t has variance var(q) var(k); q . k adds d_k of them."
    return check_number(answer, expected, rel=rel, mistakes=mistakes, what="the predicted variance",
                        explain=explain, hint=hint)


WHY_REASONS = {
    "a": "The components' variances are what the prediction already used (the table printed them, within a factor "
         "of 2 of 1): a prediction that uses them cannot be off by a factor of 2 to 8 because of them.",
    "b": "Shared directions leave the mean out. They are most of layer 0, but in layers 2 to 5 the part of a row's "
         "spread that depends on the query is between about one and two and a half times footnote 4's prediction, "
         "and they cannot see which key a query looks for.",
    "c": "Right: about half to two thirds of each query component's mean square is a constant of its head, so every "
         "query shares a mean query, and that mean query prefers the same keys in every row. Those differences between "
         "keys come from the keys alone, and footnote 4's mean-0 assumption has no room for them.",
    "d": "Twelve keys a row give a rough variance, but the same picture holds on every one of five sentences, and "
         "noise would make the measurement scatter round the prediction, not sit above it in every layer.",
}


def check_why_scores_grow(answer) -> Feedback:
    """What makes the trained rows wider than footnote 4 predicts in layers 2 to 5? One of "a" to "d".

    Examples
    --------
    >>> check_why_scores_grow("c").passed
    True
    >>> check_why_scores_grow("b").mistake
    'chose-b'
    """
    return check_choice(answer, "c", WHY_REASONS,
                        hint="Footnote 4 assumes three things of the components: independence, mean 0 and variance 1, "
                             "and the prediction above already uses the measured variances. Read the split of a row's "
                             "variance above: which of its parts is largest in layers 2 to 5?")


# An answer named times-dk lies within this fraction of the times-dk weight's distance from the right one.
_TIMES_DK_NEAR = 0.01


def check_unscaled_row(answer, gap=1.0, d_k=32) -> Feedback:
    """A row of two keys whose scaled scores differ by ``gap``: its larger weight once the division is removed.

    Examples
    --------
    >>> check_unscaled_row(1 / (1 + np.exp(-np.sqrt(32)))).passed
    True
    >>> check_unscaled_row(0.73).mistake
    'unchanged'
    """
    sigmoid = lambda x: 1.0 / (1.0 + math.exp(-x))  # noqa: E731 (the larger of two weights whose scores differ by x)
    expected = sigmoid(gap * math.sqrt(d_k))
    mistakes = [
        (sigmoid(gap), "unchanged",
         f"{sigmoid(gap):.3f} is the weight with the division. Removing it multiplies every score, so the gap "
         "between the two scores, by sqrt(d_k).",
         "A two-key row's weights depend only on the gap between its two scores: what does removing the division "
         "do to that gap?"),
        (sigmoid(gap / math.sqrt(d_k)), "divided-again",
         *entry("divided-again", gap=f"{gap:g}")),
        (0.5, "equal-weights", *entry("equal-weights")),
    ]
    times_dk = sigmoid(gap * d_k)
    value = as_number(answer)
    if value is not None and abs(value - times_dk) <= _TIMES_DK_NEAR * abs(times_dk - expected):
        # Only an answer near the times-dk weight (1 - 1e-14 for d_k = 32: within 4e-5 of it) is told so; 0.999 is not.
        mistakes.append((times_dk, "times-dk",
                         *entry("times-dk", d_k=d_k)))
    rel = 0.0005  # "to at least three decimals": within half a unit of the third decimal, as an absolute bound
    # The judged band is narrow, so a mistake is also named in the decimals a learner writes it with (0.73).
    mistakes += [(round(value, places), *rest) for value, *rest in list(mistakes) for places in (2, 3)
                 if abs(round(value, places) - value) > rel]
    return check_number(
        answer, expected, rel=0, abs_tol=rel, mistakes=_distinct(mistakes, expected, rel), what="the larger weight",
        explain=(f"Without the division the gap is {gap:g} x sqrt({d_k}) = {gap * math.sqrt(d_k):.2f}, and the "
                 f"larger weight is 1 / (1 + exp(-{gap * math.sqrt(d_k):.2f})) = {expected:.4f}: a row that was "
                 f"{sigmoid(gap):.2f} / {1 - sigmoid(gap):.2f} becomes nearly one-hot."),
        hint="A two-key row's weights depend only on the gap between its two scores: what does removing the "
             "division do to that gap?",
    )
