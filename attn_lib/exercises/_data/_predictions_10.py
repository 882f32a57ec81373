"""Notebook 10's prediction problems (a trained model, all-MiniLM-L6-v2), as data: see ``_prediction``.

The judges call the checkers of ``_check_trained`` with the problem's numbers. 10 P1's parameter count is computed
here from the model's documented sizes, so that the check needs no model file (a test holds it equal to what
``attn_lib.minilm``'s loaded model counts).
"""

from __future__ import annotations

import math
from types import SimpleNamespace

from .._check_trained import check_footnote4_variance, check_unscaled_row, check_weights_beyond_parameters, \
    check_why_scores_grow
from .._prediction import Prediction

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
    return check_weights_beyond_parameters(answer, parameters=parameters, layers=p.layers, heads=p.heads)


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
        judge=_footnote4,
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
        judge=lambda answer, p: check_unscaled_row(answer, gap=p.gap, d_k=p.d_k),
    ),
]
