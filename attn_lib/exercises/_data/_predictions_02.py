"""Notebook 02's prediction problems (counting scores and multiply-adds), as data: see ``_prediction``."""

from __future__ import annotations

import math

from .._answers import added_apart, check_number, read_number
from .._catalogue import entry
from .._check_count import check_count
from .._feedback import fail
from .._prediction import Prediction


def _n(p) -> str:
    return f"{p:,}"


def _score_macs(answer, p):
    n, d_k = p.n, p.d_k
    return check_count("score_macs", answer, n=n, m=n, d_k=d_k, mistakes=added_apart(n * n * d_k, [], [
        (n * d_k * d_k, "dk-squared",
         "That squares d_k where it enters once: a score is one dot product of d_k multiply-adds. The size that "
         "enters twice is the sequence's length, once as the queries and once as the keys."),
        (n * d_k, "one-query-row",
         "That is one query's dot products with the keys. Every one of the n queries makes its own row of "
         "scores."),
        (n * n * (d_k - 1), "counted-additions",
         "That counts the additions of each dot product (d_k - 1 of them). A multiply-add is one product added "
         "to the running sum: a dot product of d_k terms takes d_k of them."),
        (n * n * d_k / 2, "symmetric-half",
         "That halves the scores as if they were symmetric. Query i . key j is not query j . key i: queries and "
         "keys come from different projections, so every (query, key) pair is a dot product of its own."),
        (8 * n * n * d_k, "counted-base-heads",
         "That counts every head of the base model; the question asks what one head spends on its scores."),
    ]))


PROBLEMS = [
    Prediction(
        "02-P2", "count the multiply-adds",
        first=dict(n=1000, d_k=64),
        draw=lambda rng: dict(n=rng.choice([200, 300, 500, 600, 800, 1500, 2000, 3000]), d_k=rng.choice([16, 32, 128])),
        statement="How many multiply-adds does one head spend making its scores at $n = m = {n}$, with "
                  "$d_k = {d_k}$?",
        judge=_score_macs,
    ),
    Prediction(
        "02-P3", "cross-attention in a batch",
        first=dict(batch=4, n=10, m=1000, d_k=64),
        draw=lambda rng: dict(batch=rng.choice([2, 3, 5, 6, 8]), n=rng.choice([6, 12, 20, 25]),
                              m=rng.choice([300, 500, 800, 2000]), d_k=rng.choice([16, 32, 128])),
        statement="Cross-attention in a batch: {batch} sentence pairs, in each a decoder that has written $n = {n}$ "
                  "tokens attends to an encoder output of $m = {m}$ positions. One head with $d_k = {d_k}$ makes "
                  "the scores of the whole batch in one product, `Q @ np.swapaxes(K, -1, -2)` with "
                  "`Q ({batch}, {n}, {d_k})` and `K ({batch}, {m}, {d_k})`. How many multiply-adds does that "
                  "product spend?",
        judge=lambda answer, p: _cross_batch(answer, p),
    ),
    Prediction(
        "02-P4", "more, narrower heads",
        first=dict(d_model=512, heads=16, d_k=32, base_heads=8, base_d_k=64, n=1000),
        same_answer="Heads that split d_model between them cost what one full-width head would, whatever the "
                    "sizes: the answer is the idea, and the variants ask for it again with other numbers.",
        draw=lambda rng: _narrower(rng),
        statement="A designer keeps $d_{{\\text{{model}}}} = {d_model}$ but splits it into {heads} heads of width "
                  "$d_k = {d_model} / {heads} = {d_k}$ instead of {base_heads} heads of {base_d_k}. At "
                  "$n = m = {n}$, how many times as many multiply-adds do all {heads} heads spend on their scores "
                  "as all {base_heads} heads do? (1 means the same number.)",
        judge=lambda answer, p: check_number(answer, 1, rel=0.01, mistakes=added_apart(1, [
            (p.heads / p.base_heads, "counted-heads-only",
             "That counts the extra heads but keeps each as wide as before. With d_model kept, more heads are "
             "narrower heads, and a score's multiply-adds follow the width of its head."),
            (p.d_k / p.base_d_k, "counted-width-only",
             "That counts the narrower width but keeps the number of heads; there are more heads, each making "
             "its own n x m scores."),
            ((p.heads / p.base_heads) ** 2, "heads-squared",
             "That counts the extra heads twice over. More heads at the same d_model are narrower heads, and a "
             "score's multiply-adds follow its head's width."),
            ((p.d_k / p.base_d_k) ** 2, "width-squared",
             "That counts the narrower width twice over. A score's multiply-adds follow its head's width, not its "
             "square, and each head makes its own n x m scores."),
        ], [
            (0, "more-for-times", entry("more-for-times")[0],
             "Divide what the new heads spend by what the old heads spend."),
            (math.sqrt(p.heads / p.base_heads), "cost-as-sqrt-dk",
             "That makes a score's cost follow sqrt(d_k), the number the scores are divided by. The division is "
             "one operation per score; making the score is a dot product of d_k multiply-adds, in proportion to "
             "the width itself."),
            (p.heads, "gave-heads",
             "That is the new number of heads. The question compares costs: what all the new heads spend on their "
             "scores against what all the old heads spend."),
        ], rel=0.01), explain=f"Per (query, key) pair the {p.heads} heads spend {p.heads} x {p.d_k} = {p.d_model} "
                   f"multiply-adds, the {p.base_heads} heads {p.base_heads} x {p.base_d_k} = {p.d_model}. The heads "
                   "split d_model between them, so their scores cost what one full-width head would.",
            hint="Per (query, key) pair, each head spends d_k multiply-adds; add them over the heads."),
    ),
    Prediction(
        "02-P5", "what the heads hold",
        first=dict(heads=8, d_k=64, d_model=512, n=1000),
        draw=lambda rng: _one_wide(rng),
        statement="Compare {heads} heads of width {d_k} with a single head of width {d_model}, at $n = m = {n}$. "
                  "How many times as many scores do the {heads} heads hold as the single wide head? (1 means the "
                  "same number.)",
        judge=lambda answer, p: check_number(answer, p.heads, rel=0.01, mistakes=added_apart(p.heads, [
            (1, "same-as-multiply-adds",
             "The multiply-adds are the same (the previous problem), but the scores are not: a score is one number per "
             "(query, key) pair, however wide the dot product, and every head keeps its own n x m matrix."),
            (1 / p.heads, "inverted",
             "That compares the other way round: the single wide head's scores over the heads' scores."),
            (p.d_k, "counted-width",
             "A score is one number whatever d_k is; the width changes the multiply-adds per score, not the "
             "number of scores."),
        ], [
            (p.heads ** 2, "heads-squared",
             "That counts the heads twice over. Each head keeps one n x m matrix of scores, whatever its width: "
             "count the matrices each design keeps."),
            (100 * p.heads, "percentage",
             "That reads as a percentage; the question asks how many times as many, a plain factor (1 for the "
             "same number)."),
            (p.heads * p.n * p.n, "count-not-ratio",
             "That is how many scores the heads hold. The question asks for a factor: how many times as many as "
             "the single wide head holds."),
            (p.n * p.n, "count-not-ratio",
             "That is how many scores the single wide head holds. The question asks for a factor: how the heads' "
             "scores compare with it."),
        ], rel=0.01), explain=f"A score is one number per (query, key) pair and per head, whatever the head's "
                   f"width. The multiply-adds are the same, but the {p.heads} heads hold {p.heads} n x m matrices "
                   "against one.",
            hint="Count the score matrices: how many does each design keep, and how big is each?"),
    ),
    Prediction(
        "02-P6", "the memory",
        first=dict(layers=6, heads=8, n=1000),
        # layers and heads never 2 or 4 and never equal: each named mistake is then a number of its own (with 4
        # layers, counting numbers instead of bytes would equal leaving the layers out)
        draw=lambda rng: dict(layers=rng.choice([3, 5, 12, 24]), heads=rng.choice([6, 16, 32]),
                              n=rng.choice([500, 1500, 2000, 4000])),
        statement="How many bytes do the attention weights of {layers} layers of {heads} heads take at "
                  "$n = m = {n}$, stored in float32 (4 bytes per number)? Count the weights alone (the softmax of "
                  "the scores, $n \\times m$ per head), not the scores as well.",
        judge=lambda answer, p: _memory(answer, p),
    ),
    Prediction(
        "02-P7", "twice as long",
        first=dict(layers=6, heads=8, n=1000, factor=2),
        draw=lambda rng: dict(layers=rng.choice([4, 12]), heads=rng.choice([4, 12, 16]), n=rng.choice([500, 1000,
                              2000]), factor=rng.choice([3, 4, 5, 6])),
        statement="The same stack of {layers} layers of {heads} heads reads a sequence {factor} times as long: "
                  "$n = m$ grows from {n} to {factor} x {n}. How many times as much memory do its scores take?",
        judge=lambda answer, p: check_number(answer, p.factor ** 2, rel=0.01, mistakes=added_apart(p.factor ** 2, [
            (p.factor, "linear-growth",
             "Making the sequence longer multiplies the queries (n), and it also multiplies the keys (m): there "
             "is one score per pair, n x m, and both factors change."),
            (p.factor ** 3, "cubic-growth",
             "The scores grow with n x m: only the queries and the keys change; d_k, the heads and the layers "
             "stay the same."),
            (p.factor ** 4, "squared-twice",
             "That squares the growth of n x m. n and m each grow once, and the count is their product."),
        ], [
            (p.factor ** 2 * p.layers * p.heads, "counted-layers-and-heads",
             "That multiplies the growth by the layers and the heads. They are the same before and after, so they "
             "cancel in the comparison: every head of every layer grows alike."),
            (2 * p.factor, "doubled-factor",
             "That doubles the length's factor, as if the growth of n and the growth of m added up. There is one "
             "score per (query, key) pair: the two growths multiply."),
            (p.factor ** 2 * 4, "counted-bytes-in-ratio",
             "That multiplies the growth by the bytes per number. A score takes as many bytes after as before, so "
             "the bytes cancel in the comparison."),
            ((p.factor * p.n) ** 2, "count-not-ratio",
             "That is how many scores one head holds at the new length. The question asks for a factor: how many "
             "times as much memory as at the old length."),
            (p.layers * p.heads * (p.factor * p.n) ** 2, "count-not-ratio",
             "That is how many scores the whole stack holds at the new length. The question asks for a factor: "
             "how many times as much memory as at the old length."),
        ], rel=0.01), explain=f"One score per (query, key) pair, and both n and m grow {p.factor} times: "
                   f"{p.factor} x {p.factor}.",
            hint="Write the count as layers x heads x n x m and grow n and m."),
    ),
]


def _cross_batch(answer, p):
    right = p.batch * p.n * p.m * p.d_k
    return check_number(answer, right, rel=0, mistakes=added_apart(right, [
        (p.n * p.m * p.d_k, "forgot-batch",
         "That is one sentence pair's product. The batch axis stacks the pairs, and each makes its own "
         "scores."),
        (p.batch * p.m * p.m * p.d_k, "square-encoder",
         "That counts encoder positions meeting encoder positions, as in the encoder's self-attention. Here "
         "the queries come from the decoder: each of its positions meets every encoder position."),
        (p.batch * p.n * p.n * p.d_k, "square-decoder",
         "That counts decoder positions meeting decoder positions. In cross-attention the keys come from the "
         "encoder, whose length is m."),
        (p.batch * p.n * p.m, "forgot-dk",
         "That counts scores, not multiply-adds: each score is a dot product of d_k multiply-adds."),
        (p.batch * p.batch * p.n * p.m * p.d_k, "batch-members-meet",
         "That lets the queries of every pair meet the keys of every pair. The batch axis pairs member with "
         "member: queries of one sentence pair never meet keys of another."),
        (2 * p.batch * p.n * p.m * p.d_k, "counted-flops",
         "That counts a multiplication and an addition as two; a multiply-add counts once."),
    ], [
        (p.batch * (p.n + p.m) * p.d_k, "added-n-and-m",
         "That adds the decoder's length to the encoder's. Every query meets every key: one pair's scores "
         "form a grid of n rows and m columns, and the two lengths multiply."),
    ]), explain=f"{_n(right)} = {p.batch} pairs x {p.n} queries x {p.m} keys x {p.d_k}: each member of the "
                f"batch makes its own {p.n} x {p.m} scores (not square: n != m), each a dot product of d_k = "
                f"{p.d_k} multiply-adds.",
        hint="Count one member's scores (n x m, with n and m from different sequences), multiply by d_k, then "
             "count the members.")


def _narrower(rng):
    d_model = rng.choice([256, 768, 1024])
    base_heads = rng.choice([4, 8])
    heads = base_heads * rng.choice([2, 4])
    return dict(d_model=d_model, heads=heads, d_k=d_model // heads, base_heads=base_heads,
                base_d_k=d_model // base_heads, n=rng.choice([500, 2000]))


def _one_wide(rng):
    heads = rng.choice([4, 12, 16])
    d_k = rng.choice([32, 64])
    return dict(heads=heads, d_k=d_k, d_model=heads * d_k, n=rng.choice([500, 2000]))


# 02-P6's answers in a larger unit: a learner rounds them (152.6 for 152.587890625), so they are named to within
# half a percent, as check_count names them.
_UNIT_IDS = ("megabytes", "not-bytes")
_ROUNDED = 5e-3


def _memory(answer, p):
    weights = p.layers * p.heads * p.n * p.n
    right = weights * 4
    table = added_apart(right, [
        (2 * weights * 4, "scores-and-weights",
         "That counts the scores as well as the weights (or takes 8 bytes per number, float64). The backward pass "
         "needs only the weights, the softmax of the scores (notebook 08 shows that the softmax's gradient is made "
         "from the weights alone), so the scores can be dropped once the weights are made; and float32 takes 4 "
         "bytes."),
        (weights, "counted-numbers", "That counts the weights; the question asks for bytes."),
        (p.heads * p.n * p.n * 4, "forgot-layers", "That is one layer's weights; each of the layers keeps its own."),
        (p.layers * p.n * p.n * 4, "forgot-heads", "That is one head in each layer; every head keeps its own n x m "
         "weights."),
        (p.n * p.n * 4, "one-head-one-layer", "That is one head of one layer; every head of every layer keeps its "
         "own."),
        (weights * 2, "float16", "That takes 2 bytes per number, float16's size; float32 takes 4."),
        (weights * 4 / 1e6, "megabytes", "That is in megabytes (10^6 bytes); the question asks for bytes."),
        (weights * 32, "bits", "That counts bits; a float32 is 32 bits = 4 bytes."),
    ], [
        (p.layers * p.heads * p.n * 4, "linear-in-n", *entry("linear-in-n")),
        (right / 2**20, "not-bytes",
         "That is in mebibytes (2^20 = 1,048,576 bytes, what many tools call MB); the question asks for bytes."),
        (right / 1e9, "not-bytes", "That is in gigabytes (10^9 bytes); the question asks for bytes."),
        (right / 2**30, "not-bytes", "That is in gibibytes (2^30 bytes); the question asks for bytes."),
        (right / 1e3, "not-bytes", "That is in kilobytes (10^3 bytes); the question asks for bytes."),
        (right / 2**10, "not-bytes", "That is in kibibytes (2^10 = 1,024 bytes); the question asks for bytes."),
    ])
    feedback = check_number(
        answer, right, rel=0, mistakes=table,
        explain=f"{p.layers} layers x {p.heads} heads x {p.n} x {p.n} = {_n(weights)} weights, 4 bytes each: "
                f"{_n(right)} bytes ({right / 1e6:,.0f} MB).",
        hint="Count the weights of every head and layer (n x m each), then 4 bytes each in float32.")
    if feedback.mistake == "wrong-number":  # a size in a larger unit, rounded
        value = read_number(answer)
        for wrong, mid, reason, *hint in table:
            if mid in _UNIT_IDS and isinstance(value, float) and math.isclose(value, wrong, rel_tol=_ROUNDED):
                return fail(mid, reason, hint[0] if hint else feedback.hint)
    return feedback
