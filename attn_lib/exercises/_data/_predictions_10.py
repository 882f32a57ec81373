"""Notebook 10's prediction problems (a trained model, all-MiniLM-L6-v2), as data: see ``_prediction``.

The judges call the checkers of ``_check_trained`` with the problem's numbers. 10 P1's parameter count is computed
here from the model's documented sizes, so that the check needs no model file (a test holds it equal to what
``attn_lib.minilm``'s loaded model counts).
"""

from __future__ import annotations

import math
from types import SimpleNamespace

from .._answers import added_apart, check_number
from .._check_trained import check_footnote4_variance, check_unscaled_row, check_weights_beyond_parameters, \
    check_why_scores_grow
from .._feedback import Feedback
from .._prediction import UNNAMED, Prediction

# all-MiniLM-L6-v2's sizes (its config.json): a BERT encoder.
MINILM = dict(vocabulary=30522, positions=512, token_types=2, width=384, layers=6, heads=12, intermediate=1536)


def parameter_count(vocabulary, positions, token_types, width, layers, intermediate, pooler=True) -> int:
    """The numbers in every tensor of a BERT encoder of these sizes (the model file's float tensors).

    Embeddings (token, position, token type) and their LayerNorm; per layer W_q, W_k, W_v, W^O with their biases,
    a LayerNorm, the feed-forward layer's two projections with their biases, and a LayerNorm; with ``pooler``, the
    pooler (width x width and a bias), which the sentence vector (a mean over the tokens) never uses.
    """
    d, f = width, intermediate
    embeddings = (vocabulary + positions + token_types) * d + 2 * d
    layer = 4 * (d * d + d) + 2 * d + (d * f + f) + (f * d + d) + 2 * d
    return embeddings + layers * layer + ((d * d + d) if pooler else 0)


def _named_beyond(more: Feedback, checked: Feedback) -> Feedback:
    """The checker's verdict, unless it names nothing (how far off only) and the problem's own mistakes, judged in
    ``more`` against the same answer, name the number: the checker's own mistakes come first."""
    if checked.mistake in UNNAMED and not more.passed and more.mistake not in UNNAMED:
        return more
    return checked


def _sizes(p) -> dict:
    return {name: getattr(p, name) for name in ("vocabulary", "positions", "token_types", "width", "layers",
                                                "intermediate")}


def _model(**sizes) -> dict:
    sizes = dict(MINILM, **sizes)
    counted = {name: sizes[name] for name in sizes if name != "heads"}
    return dict(sizes, parameters=parameter_count(**counted))


def _weights_beyond(answer, p):
    parameters = parameter_count(**_sizes(p))
    if parameters != p.parameters:
        raise ValueError(f"10-P1: the stated parameter count {p.parameters} is not the count of the stated sizes, "
                         f"{parameters}")
    per_pair, right = p.layers * p.heads, _first_length(parameters, p.layers * p.heads)
    # This problem's own mistakes, judged first so that the checker's call (below) is the one that says how closely
    # the number is judged; its verdict comes first too (_named_beyond).
    more = check_number(answer, right, rel=0, mistakes=added_apart(right, [], [
        (_first_length(parameters, 2 * per_pair), "scores-and-weights",
         "That counts the scores as well as the weights, two n x n arrays per head. The question counts the "
         "attention weights alone, the softmax's output: one n x n array per head of each layer."),
        (_first_length(parameters, per_pair, causal=True), "causal-in-encoder",
         "That counts n (n + 1) / 2 pairs per head, as under a causal mask. This encoder has none: every token "
         "attends to every token, both ways, so each head computes n x n weights."),
        (_first_length(parameters, per_pair / 2), "causal-in-encoder",
         "That counts half of the n x n pairs of a head, as under a causal mask. This encoder has none: every "
         "token attends to every token, both ways, so each head computes n x n weights."),
        (p.positions, "positions-limit",
         f"{p.positions} is how many positions the model has embeddings for: the longest sentence it could read, "
         "not where its weights overtake its parameters. The question counts as if it could read any length."),
    ]), what="the sentence length",
        hint=f"Write the number of attention weights for n tokens, then find the first n where it passes "
             f"{parameters:,}.")
    checked = check_weights_beyond_parameters(answer, parameters=parameters, layers=p.layers, heads=p.heads)
    return _named_beyond(more, checked)


def _first_length(parameters, per_pair, causal=False) -> int:
    """The smallest n whose per_pair x n^2 weights (n (n + 1) / 2 pairs per head with ``causal``) pass parameters."""
    n = math.isqrt(int(parameters / per_pair)) if not causal else math.isqrt(int(2 * parameters / per_pair))
    n = max(n - 2, 1)
    while per_pair * (n * (n + 1) / 2 if causal else n * n) <= parameters:
        n += 1
    return n


def _draw_model(rng):
    while True:  # another BERT-shaped encoder, heads of width 32 or 64, not the notebook's own
        width = rng.choice([256, 384, 512, 768])
        heads = rng.choice([h for h in (4, 6, 8, 12, 16) if width // h in (32, 64) and width % h == 0])
        layers = rng.choice([3, 4, 6, 8, 12])
        model = _model(width=width, heads=heads, layers=layers, intermediate=4 * width)
        per_token_pair, rest = divmod(model["parameters"], layers * heads)
        square = rest == 0 and math.isqrt(per_token_pair) ** 2 == per_token_pair  # the weights could equal them
        if (width, heads, layers) != (384, 12, 6) and not square:
            return model


def _draw_footnote4(rng):
    return dict(var_q=rng.choice([0.5, 1.0, 2.0]), var_k=rng.choice([0.5, 1.0, 2.0]),
                mean_q=rng.choice([0.2, 0.3, 0.4, 0.5, 0.6, 0.8]), mean_k=rng.choice([0.2, 0.3, 0.4, 0.5, 0.6, 0.8]),
                d_k=rng.choice([16, 32, 64]))


def footnote4_mistakes(p) -> list:
    """(value, id) of every mistake check_footnote4_variance names when the components have means."""
    sq, sk = p.var_q + p.mean_q ** 2, p.var_k + p.mean_k ** 2
    one = sq * sk - (p.mean_q * p.mean_k) ** 2
    return [(p.d_k * p.var_q * p.var_k, "ignored-means"), (p.d_k * sq * sk, "mean-square-not-variance"),
            (p.d_k * (p.var_q * p.var_k + p.mean_q * p.mean_k), "means-not-squared"),
            (p.d_k * (p.var_q * p.var_k + (p.mean_q * p.mean_k) ** 2), "only-means-product"),
            (one, "forgot-dk"), (math.sqrt(p.d_k) * one, "sqrt-dk"), (p.d_k * (p.var_q + p.var_k), "added-variances"),
            (p.d_k * math.sqrt(p.var_q * p.var_k), "standard-deviations")]


FOOTNOTE4_REL = 0.01  # the numbers are given, not measured: 1 %, so that a truncated answer or a near formula fails


def _footnote4(answer, p):
    return check_footnote4_variance(answer, var_q=p.var_q, var_k=p.var_k, d_k=p.d_k, mean_q=p.mean_q,
                                    mean_k=p.mean_k, rel=FOOTNOTE4_REL)


def _footnote4_named(answer, p):
    """10-P2's judge: check_footnote4_variance (_footnote4, which its draw keeps), and this problem's own mistakes
    where it names none."""
    sq, sk = p.var_q + p.mean_q ** 2, p.var_k + p.mean_k ** 2
    right = p.d_k * (sq * sk - (p.mean_q * p.mean_k) ** 2)
    mean = p.d_k * p.mean_q * p.mean_k  # the mean of q . k
    more = check_number(answer, right, rel=FOOTNOTE4_REL, mistakes=added_apart(right, [], [
        (p.d_k * p.var_q * p.var_k + mean ** 2, "squared-mean-added",
         "That adds the square of q . k's mean, (d_k mean_q mean_k)^2, to footnote 4's mean-0 answer. A mean "
         "shifts q . k without spreading it: the means widen q . k only through each product, where each one "
         "meets the other component's variance."),
        (p.d_k * (p.var_q * p.var_k + p.var_q * p.mean_q ** 2 + p.var_k * p.mean_k ** 2), "own-means",
         "That pairs each component's variance with its own mean (var_q mean_q^2). In a product q_t k_t, q_t's "
         "mean is multiplied by k_t, so it meets k_t's variance: each variance pairs with the other's mean."),
        (math.sqrt(right), "standard-deviation",
         "That is the standard deviation of q . k, a spread in the scores' own units; the question asks for the "
         "variance, the spread that adds up over the d_k independent products."),
    ], rel=FOOTNOTE4_REL), what="the predicted variance",
        hint="For independent q_t and k_t, E[(q_t k_t)^2] = E[q_t^2] E[k_t^2]: write each mean square from its "
             "variance and its mean, then take the variance of the product.")
    return _named_beyond(more, _footnote4(answer, p))


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def unscaled_row_mistakes(p) -> list:
    """(value, id) of every mistake check_unscaled_row names."""
    return [(_sigmoid(p.gap), "unchanged"), (_sigmoid(p.gap / math.sqrt(p.d_k)), "divided-again"),
            (0.5, "equal-weights"), (_sigmoid(p.gap * p.d_k), "times-dk")]


def _draw_unscaled_row(rng):
    while True:  # the unscaled gap between 1.5 and 6.5: a row that turns sharp but whose larger weight is below 0.999
        gap, d_k = rng.choice([0.25, 0.5, 0.75, 1.0, 1.5, 2.0]), rng.choice([8, 16, 32, 64, 128])
        if 1.5 <= gap * math.sqrt(d_k) <= 6.5 and (gap, d_k) != (1.0, 32):
            return dict(gap=gap, d_k=d_k, large=round(_sigmoid(gap), 2), small=round(1 - _sigmoid(gap), 2))


UNSCALED_DECIMALS = 3  # 10-P6's statement: "rounded (not truncated) to at least three decimals"


def _unscaled_row(answer, p):
    """10-P6's judge: check_unscaled_row, and this problem's own mistakes where it names none, with the number
    judged to three decimals (an answer right to fewer, 0.94 for 0.944, is told so: too-few-decimals)."""
    gap = p.gap * math.sqrt(p.d_k)  # the gap without the division
    right = _sigmoid(gap)
    rows = [
        (1 - right, "smaller-weight",
         "That is the smaller of the two weights, the one the lower score gets; the question asks for the larger."),
        (_sigmoid(gap / 2), "half-gap",
         "That is 1 / (1 + exp(-gap / 2)), as if each score moved by half the gap and only one of them counted. "
         "The two scores differ by the whole gap, and a two-key row's larger weight is 1 / (1 + exp(-gap))."),
        (gap, "gap-not-weight",
         "That is the gap between the two scores once the division is removed, a difference of scores; the "
         "question asks for the larger weight, a share of the row between 0 and 1."),
        (math.exp(gap), "weight-ratio",
         "That is exp(gap), how many times the larger weight is the smaller one; the question asks for the larger "
         "weight itself, a share of the row between 0 and 1."),
    ]
    # A number judged this closely is also named in the decimals a learner writes it with (0.81 for 0.8112), as
    # check_unscaled_row names its own; not where rounding takes it more than 10 % away (0.00 for 0.003).
    # A number the answer rounds to with fewer decimals is left to check_number's too-few-decimals.
    coarse = {round(right, places) for places in range(UNSCALED_DECIMALS)}
    rows += [(round(value, places), *rest) for value, *rest in list(rows) for places in (0, 1, 2, 3)
             if round(value, places) != value and abs(round(value, places) - value) <= 0.1 * abs(value)]
    rows = [row for row in rows if row[0] not in coarse]
    tol = 0.5 * 10.0 ** -UNSCALED_DECIMALS * (1 + 1e-9)  # check_number's band for decimals=3
    more = check_number(answer, right, decimals=UNSCALED_DECIMALS, mistakes=added_apart(right, [], rows, abs_tol=tol),
                        what="the larger weight",
                        hint="A two-key row's weights depend only on the gap between its two scores: what does "
                             "removing the division do to that gap?")
    return _named_beyond(more, check_unscaled_row(answer, gap=p.gap, d_k=p.d_k))


def _names_every_mistake(draw, judge, mistakes):
    """A draw whose variants name every mistake of ``mistakes(p)`` (a checker drops a mistake near the answer)."""
    def drawn(rng):
        while True:
            params = draw(rng)
            p = SimpleNamespace(**params)
            if all(judge(value, p).mistake == mid for value, mid in mistakes(p)):
                return params
    return drawn


PROBLEMS = [
    Prediction(
        "10-P1", "when do the weights outnumber the parameters?",
        first=_model(),
        draw=_draw_model,
        statement="A sentence encoder shaped like BERT (notebook 10's all-MiniLM-L6-v2 is one) has a vocabulary of "
                  "{vocabulary} tokens, {positions} positions, {token_types} token types, width {width}, {layers} "
                  "layers of {heads} heads each, and feed-forward layers of width {intermediate}. Its *parameters* "
                  "are the numbers in every one of its tensors ($W_q$, $W_k$, $W_v$, $W^O$, the embeddings, the "
                  "feed-forward layers, the LayerNorms, and the pooler, a ${width} \\times {width}$ layer and its "
                  "bias that the sentence vector, a mean over the tokens, never uses): fixed by training, "
                  "{parameters} of them. Its *attention weights* are the softmax's output, one per (query, key) pair "
                  "in every head of every layer: computed afresh for each sentence. How long would a sentence have "
                  "to be, in tokens, for the model to compute more attention weights for it than it has parameters? "
                  "Count as if the model could read a sentence of any length: the length you find may be past its "
                  "{positions} positions (and past the 256 tokens it is set to read). Answer with the smallest such "
                  "length, an int.",
        judge=_weights_beyond,
    ),
    Prediction(
        "10-P2", "footnote 4 with a mean",
        first=dict(var_q=1.0, var_k=1.0, mean_q=0.7, mean_k=0.5, d_k=32),
        draw=_names_every_mistake(_draw_footnote4, _footnote4, footnote4_mistakes),
        statement="Keep footnote 4's independence but drop its mean 0: the components of $q$ and $k$ are "
                  "independent, every component of $q$ with variance {var_q} and mean {mean_q}, every component of "
                  "$k$ with variance {var_k} and mean {mean_k}. At $d_k = {d_k}$, what is the variance of "
                  "$q \\cdot k$? Answer with a number (it is judged to within 1 %).",
        judge=_footnote4_named,
    ),
    Prediction(
        "10-P3", "what widens a row in layers 2 to 5 of a short sentence?",
        first={},
        why_one="It asks which assumption of footnote 4 the trained model breaks, measured on its fixed weights: "
                "the answer is a fact of this model, and no other numbers pose it again.",
        kind="choice",
        statement="In all-MiniLM-L6-v2, layers 2 to 5, the scores spread wider within a row than footnote 4 "
                  "predicts from the measured variances of the components of $q$ and $k$, "
                  "$d_k \\operatorname{{Var}}(q) \\operatorname{{Var}}(k)$. Choose the explanation that accounts "
                  "for most of the variance of the scores within a row in layers 2 to 5, for sentences of about a "
                  "dozen tokens.\n\n"
                  "- a) The components' variances are not 1, and the prediction does not allow for that.\n"
                  "- b) Shared directions: queries and keys vary most along the same few directions, so their "
                  "products add up.\n"
                  "- c) A head's mean query: every query shares it, and it prefers the same keys in every row.\n"
                  "- d) Noise: twelve keys a row are too few to measure a variance, so the excess is chance.\n\n"
                  "Answer with the letter, as a string.",
        judge=lambda answer, p: check_why_scores_grow(answer),
    ),
    Prediction(
        "10-P6", "a two-key row without the division",
        first=dict(gap=1.0, d_k=32, large=0.73, small=0.27),
        draw=_names_every_mistake(_draw_unscaled_row, lambda answer, p: check_unscaled_row(answer, gap=p.gap,
                                                                                           d_k=p.d_k),
                                  unscaled_row_mistakes),
        statement="A row has two keys whose scaled scores differ by {gap}, so its weights are about {large} and "
                  "{small}. The division by $\\sqrt{{d_k}}$ is removed, with $d_k = {d_k}$. What is the larger "
                  "weight now? Answer with a number rounded (not truncated) to at least three decimals.",
        judge=_unscaled_row,
    ),
]
